/*
 * execute_internal: what the files of the execute engine share; not for
 * callers outside src/measure/execute*.c (they use execute.h).
 *
 * The engine in six files, in the order a benchmark meets them:
 *
 *   execute_prepare.c     expand a suite's exec spec into a prepared command
 *                         (argv, environment, cwd), run untimed commands that
 *                         must succeed (hooks, build), describe failures
 *   execute.c             execute_suite(): per benchmark and side setup, the
 *                         timed rounds (plan, batches through the runner,
 *                         adaptive stop), recording samples, cleanup, budgets
 *   execute_perf.c        perf_event_open counters around the timed runs
 *   execute_instrument.c  the instrument probes (struct execute_instruments,
 *                         execute_metric_asked/required/unsupported) and the
 *                         untimed instrumented rounds (allocation shim,
 *                         valgrind) after the timed ones
 *   execute_profile.c     the sampled, untimed runs of `metrics: {profile:
 *                         true}` after those
 *   execute_identical.c   whether a compare of byte-identical artifacts may
 *                         be called an A/A for a command (identical_artifact),
 *                         asked after setup, before the first timed run
 *
 * Per benchmark, execute.c calls: execute_side_suite_dir(), execute_run_hooks()
 * (setup), execute_prepare_exec() per unit, execute_same_inputs() per command
 * (identical artifacts only), execute_perf_plan() per unit, the
 * rounds (execute_run_timed() + execute_perf_record() per unbatched run),
 * execute_perf_mark_uncounted(), execute_instrument_bench(),
 * execute_run_hooks() (cleanup), execute_mark_unsupported() per command.
 * Nothing here prints; every string a function returns is the caller's to
 * free unless said otherwise.
 */
#ifndef KAGARI_MEASURE_EXECUTE_INTERNAL_H
#define KAGARI_MEASURE_EXECUTE_INTERNAL_H

#include <stddef.h>
#include <stdint.h>

#include "base/strvec.h"
#include "proc/child.h"
#include "measure/counters.h"
#include "measure/execute.h"
#include "model/metric.h"
#include "measure/runner.h"
#include "plan/plan.h"
#include "model/result.h"
#include "suite/model.h"
#include "suite/vars.h"

struct rng;
struct sbuf;

/* ---- prepared commands, hooks, build (execute_prepare.c) --------------- */

/*
 * A fully expanded command, ready to hand to the runner. Zero it and
 * strvec_init() argv and env before filling it; release it with
 * execute_prepared_release() whether or not filling succeeded.
 */
struct execute_prepared {
	struct strvec argv;
	struct strvec env;
	char *cwd;
	char *stdout_path; /* NULL: discard */
	char *stderr_path;
	int64_t timeout_ns;
	const struct stdin_spec *in; /* NULL: /dev/null; borrowed from the suite */
	char *stdin_path;	     /* absolute, for STDIN_FILE */
	int terminal;		     /* on a pseudo-terminal (CHILD_TERMINAL) */
	/* The next run's layout pad (runner.h), set before each timed run
	   when `padded`; a zeroed p has none. */
	int padded;
	int layout_pad;
};

/* Per (side, command): its prepared command and how far it has got. */
struct execute_unit {
	int side;
	size_t cmd;
	int prepared;	 /* p is complete */
	int ok;		 /* prepared and still running */
	int stopped;	 /* sequential: its command is decided */
	int measured;	 /* measured runs so far */
	int warmed;	 /* warm-up runs so far */
	int64_t time_ns; /* sum of measured wall time */
	struct execute_prepared p;
	unsigned perf_events; /* counters.h events read in its timed runs */
};

/* Free what p holds and zero it. */
void execute_prepared_release(struct execute_prepared *p);

/* The suite's folder as seen from one side's checkout (caller frees). */
char *execute_side_suite_dir(const struct suite *s, const struct execute_side *side);

/* The suite's folder inside another checkout rooted at `root` (caller
   frees): what ${head_root} is for a side. */
char *execute_suite_dir_in(const struct suite *s, const char *root);

/* rel resolved against dir: dir when rel is NULL or empty, rel when
   absolute (caller frees). */
char *execute_join_path(const char *dir, const char *rel);

/*
 * A suite path (cwd, stdin file, file_size) for one side: its variables
 * expanded with ctx like a command's, a relative result joined to dir.
 * The result must stay, lexically, inside ctx's repo, head_repo or
 * workdir: the loader checked the unexpanded text, this checks what the
 * variables became. Returns a new string, or NULL with a reason in err
 * (naming `what`, e.g. "stdin").
 */
char *execute_side_path(const char *what, const char *in, const char *dir,
			const struct vars_context *ctx, struct sbuf *err);

/*
 * Expand an exec spec into p's argv/env/cwd (p initialised as above).
 * `layers` are environment override vectors applied in order over the
 * inherited environment; cwd is e's, else settings_cwd, relative to
 * default_cwd. Returns 0, or -1 with the variable error in err.
 */
int execute_prepare_exec(const struct exec_spec *e, const struct strvec *const *layers,
			 size_t nr_layers, const char *default_cwd, const char *settings_cwd,
			 const struct vars_context *ctx, struct execute_prepared *p,
			 struct sbuf *err);

/* A runner request for p (pointers into p, which must outlive it). */
void execute_fill_request(const struct execute_prepared *p, unsigned flags,
			  struct runner_request *req);

/*
 * Run a prepared command through the runner. Returns 0 when it ran (how it
 * ended is in res), -1 when it could not start or be set up (reason in why).
 */
int execute_run_prepared(const struct execute_options *o, const struct execute_prepared *p,
			 unsigned flags, struct child_result *res, struct sbuf *why);

/* Describe how a run that did start ended, for error messages. */
void execute_describe_failure(const struct child_result *res, const struct execute_prepared *p,
			      struct sbuf *msg);

/*
 * 1 when a command with settings st records metric m in its timed runs
 * (time always; cpu, memory and throughput when its `metrics:` ask);
 * never the counters, allocations or system calls, which only the
 * instrumented runs measure. Timed runs record and instrumented runs skip
 * by this one answer.
 */
int execute_timed_metric(const struct settings *st, enum metric_id m);

/* Did a run end in one of the settings' exit_codes (no signal, timeout,
   interrupt)? */
int execute_exit_code_ok(const struct settings *s, const struct child_result *res);

/*
 * Did a run that must exit 0 fail? Then 1, and the reason, with the masked
 * stderr tail, is appended to why.
 */
int execute_must_succeed_failed(const struct child_result *res, const struct execute_prepared *p,
				struct sbuf *why);

/* Expand hook i of a list (`what`: "setup", ...) into p, which is always
   to be released. Returns 0, or -1 with the reason in err. */
int execute_prepare_hook(const char *what, const struct exec_spec *hooks, size_t i,
			 const struct bench_spec *b, const char *suite_dir,
			 const struct vars_context *ctx, struct execute_prepared *p,
			 struct sbuf *err);

/* Append "WHAT hook N (COMMAND) failed: WHY" to err. */
void execute_hook_failed(const char *what, const struct exec_spec *hooks, size_t i, const char *why,
			 struct sbuf *err);

/*
 * Run a list of hooks; on failure describe it in err (with the stderr tail)
 * and return -1. flags: RUNNER_CLEAR_INTERRUPT for cleanup, which must run
 * after a signal.
 */
int execute_run_hooks(const char *what, const struct exec_spec *hooks, size_t n,
		      const struct bench_spec *b, const char *suite_dir,
		      const struct vars_context *ctx, const struct execute_options *o,
		      unsigned flags, struct sbuf *err);

/* ---- instrument probes and instrumented runs (execute_instrument.c) ---- */

enum execute_source { EXECUTE_SOURCE_PERF, EXECUTE_SOURCE_VALGRIND };

/* Where the counter metrics of this command come from (see execute.h);
   may probe perf into *in. */
enum execute_source execute_counter_source(struct execute_instruments *in,
					   const struct command_spec *cs);

/* Does valgrind measure counter metric m of this command (instructions,
   cache_misses, estimated_cycles; see execute_instrument.c)? */
int execute_from_valgrind(struct execute_instruments *in, const struct command_spec *cs,
			  enum metric_id m);

/* The perf events (COUNTERS_BIT set) a counter metric is made of (0 for
   other metrics). */
unsigned execute_perf_events_of(enum metric_id m);

/*
 * After the timed rounds of a benchmark: decide what each unit wants,
 * prepare its equal-length command, run the untimed instrumented rounds
 * (allocation shim, valgrind), planned like the timed ones with rng.
 * Metrics that cannot be measured are marked later
 * (execute_mark_unsupported). Returns 1 when interrupted, else 0.
 */
int execute_instrument_bench(const struct suite *s, const struct bench_spec *b, size_t bench_index,
			     const struct execute_side sides[SIDE__COUNT],
			     const struct execute_options *o, struct execute_instruments *in,
			     struct bench_result *br, struct execute_unit *units, size_t nr_units,
			     const struct plan_unit *plan_units, struct rng *rng,
			     const char *const workdir[SIDE__COUNT]);

/*
 * Counter and allocation metrics asked for but not measured on a side
 * that ran: `unsupported` with the reason this machine or instrument gives.
 */
void execute_mark_unsupported(struct execute_instruments *in, const struct command_spec *cs,
			      struct command_result *cr);

/* ---- sampled profiles (execute_profile.c) ------------------------------ */

/* Does this command get sampled runs (`metrics.profile` or --profile)? */
int execute_profile_wanted(const struct execute_options *o, const struct command_spec *cs);

/*
 * After the timed and instrumented rounds of a benchmark: the untimed
 * sampled rounds of every profiled command, into br->commands[].profile
 * (or profile_error); analyze_result() judges them later. Returns 1 when
 * interrupted.
 */
int execute_profile_bench(const struct bench_spec *b, const struct execute_options *o,
			  struct execute_instruments *in, struct bench_result *br,
			  struct execute_unit *units, size_t nr_units,
			  const char *const suite_dir[SIDE__COUNT],
			  const struct vars_context ctx[SIDE__COUNT]);

/* ---- perf counters in the timed runs (execute_perf.c) ------------------ */

/*
 * The perf events a command's timed runs read: the events of its asked
 * counter metrics that come from perf and open here, plus the software
 * events (task-clock, page-faults) whenever any are read. 0: none.
 */
unsigned execute_perf_plan(struct execute_instruments *in, const struct command_spec *cs);

/*
 * execute_run_prepared() for a timed run of u; for a measured run of a
 * unit that reads perf events, they are opened on the runner just before
 * and read just after, into *reading (*have set when it holds one). A
 * failure to open them fails the unit's perf metrics in sr and stops its
 * counting.
 */
int execute_run_timed(const struct execute_options *o, struct execute_instruments *in,
		      struct counters *pc, struct execute_unit *u, const struct command_spec *cs,
		      struct side_result *sr, int measured, struct child_result *res,
		      struct counters_reading *reading, int *have, struct sbuf *why);

/* Add one run's reading of `events` to the command's perf metrics in sr. */
void execute_perf_record(struct execute_instruments *in, const struct command_spec *cs,
			 struct side_result *sr, unsigned events, const struct counters_reading *r,
			 int round, int run);

/* Perf metrics that no run counted: failed, with the likely cause. */
void execute_perf_mark_uncounted(struct execute_instruments *in, const struct command_spec *cs,
				 struct side_result *sr);

/* ---- identical artifacts (execute_identical.c) ---------------------------- */

/*
 * With byte-identical artifacts, once setup has run on both sides (ctx
 * with each side's ${workdir}) and before the first timed run: is command
 * cs an A/A? 1 when its argv[0] is exactly ${artifact} and every other
 * argument, environment value the suite sets and stdin file, and every
 * word and environment value of the benchmark's setup, prepare_each and
 * cleanup hooks, names the same thing on both sides (the same path, the
 * same word with each side's own folders set aside, or regular files with
 * the same bytes); else 0.
 */
int execute_same_inputs(const struct bench_spec *b, const struct command_spec *cs,
			const struct execute_side sides[SIDE__COUNT],
			char *const suite_dir[SIDE__COUNT],
			const struct vars_context ctx[SIDE__COUNT]);

#endif
