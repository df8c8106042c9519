/*
 * execute: measure the selected benchmarks of one suite, for one side
 * (`run`) or two (`compare`), filling the result model.
 *
 * Call order: fill a `struct execute_options` and one `struct execute_side`
 * per side (build first with execute_build() when the suite has `build`),
 * then execute_suite(). Per benchmark and side it makes a fresh ${workdir},
 * runs `setup`, then the rounds of plan.h (warm-up rounds first, discarded),
 * with `prepare_each` before every run, and `cleanup` at the end — also
 * after a failure or an interrupt. A unit (side, command) whose run fails
 * (exit status outside `exit_codes`, a signal, a timeout, a command that
 * cannot start) drops out of later rounds; the failure is recorded on the
 * command result with the masked stderr tail. Nothing here prints.
 *
 * Consecutive rounds go to the runner as one batch (runner.h) unless perf
 * counters are read per run; the outcomes are taken as if each run had
 * been made alone, so samples, rounds, order and messages are the same
 * (see "the timed rounds" in execute.c).
 *
 * Instrumented runs (allocation counts through the LD_PRELOAD shim of
 * alloc.h, instruction counts through valgrind.h) are separate, untimed
 * runs after the timed rounds of a benchmark, planned the same way (same
 * `order`, `runs_per_round`, prepare_each before each) with their own
 * round numbers: per side and command min(timed runs, regression.
 * min_samples) runs of each instrument. They see ${root} and the suite's
 * folder through an equal-length link (<side tmpdir>/root), with PWD set
 * to their working folder, so that both sides of a compare get argv and
 * environment strings of the same lengths.
 */
#ifndef KAGARI_MEASURE_EXECUTE_H
#define KAGARI_MEASURE_EXECUTE_H

#include <signal.h>
#include <stdint.h>

#include "measure/counters.h"
#include "measure/sample.h"
#include "measure/syscalls.h"
#include "model/result.h"
#include "suite/model.h"

struct environment_info;
struct runner;
struct sbuf;

/*
 * What instruments this machine has, probed lazily and cached (which
 * perf_event_open counters open; valgrind on $PATH and its version; the
 * allocation shim). Zero it before first use; execute_instruments_release()
 * frees it.
 *
 * Counter metrics (instructions, cycles, branch_misses, cache_misses, ipc)
 * come from one source per command: `instrument: perf` = perf_event_open
 * (each event that does not open is `unsupported` with the reason);
 * `instrument: valgrind` = valgrind (instructions, cache_misses and
 * estimated_cycles, the last two from its cache simulation); `auto` = perf
 * when the hardware `instructions` event opens here, else valgrind.
 * estimated_cycles always comes from valgrind (under `auto` with a PMU
 * only when listed); system calls from their own runs (syscalls.h). perf
 * readings are taken in the timed runs themselves (the events are opened on
 * the runner process for each measured run, counting from the command's
 * exec; warm-up runs are not counted); valgrind has its own untimed runs.
 */
struct execute_instruments {
	/* Set by the caller before first use (cmd/ reads them from the
	   environment; nothing below it does): */
	int counters_software;	   /* software stand-ins for the hardware
				      events (counters.h), a test switch */
	const char *shim_override; /* the allocation shim's path, or NULL
				      (alloc_shim_find) */
	/* perf_event_open counters (counters.h), probed on first need. */
	int perf_probed;
	struct counters_probe perf;
	char *perf_fallback_reason; /* auto fell back to valgrind: why, for
				       the metrics valgrind cannot give */
	int used_perf;		    /* set when a perf reading was recorded */
	/* Lowest running/enabled share of a hardware event in a recorded
	   run: 1 = never multiplexed; < 1 = values were extrapolated (a
	   report may warn). 0 until a hardware event was counted. */
	double perf_min_share;
	size_t perf_not_counted; /* runs where an asked event never ran */
	int valgrind_probed;
	char *valgrind;		/* absolute path, NULL when unavailable */
	char *valgrind_version; /* e.g. "3.19.0" */
	char *valgrind_error;	/* why unavailable */
	int shim_probed;
	char *shim; /* absolute path of libkagari-alloc.so or NULL */
	char *shim_error;
	int used_valgrind; /* set when a valgrind run produced counts */
	/* Sampling (sample.h), probed when a command is first profiled. */
	int sample_probed;
	struct sample_probe sample;
	/* System-call tracepoints (syscalls.h), probed on first need. */
	int syscalls_probed;
	struct syscalls_probe syscalls;
};

void execute_instruments_release(struct execute_instruments *in);

/*
 * Is metric m (a counter or allocation metric) asked for by this command,
 * and is it required? `asked`: counters: true or listed, allocations: true,
 * configured under `regression` or named in a budget. `required`: the same
 * but not `counters: true`. Other metrics: 0.
 */
int execute_metric_asked(const struct command_spec *cs, enum metric_id m);
int execute_metric_required(const struct command_spec *cs, enum metric_id m);

/*
 * Why metric m cannot be measured for this command on this machine, as far
 * as can be told before running (NULL when it can, or when it is not a
 * counter or allocation metric). Probes into *in. The string belongs to
 * *in or is static.
 */
const char *execute_metric_unsupported(struct execute_instruments *in,
				       const struct command_spec *cs, enum metric_id m);

struct execute_side {
	int present;
	const char *root;      /* this side's repository root (absolute) */
	const char *head_root; /* the head side's root */
	const char *artifact;  /* built program, or NULL without `build` */
	const char *tmpdir;    /* private folder for this side's workdirs */
};

/* Progress callback: called before each measured or warm-up round. */
typedef void execute_progress_fn(void *data, const char *bench, int round, int total_rounds,
				 int warmup);

/*
 * The sequential design's look (plan.h, plan_look_due()): called after a
 * look's round with the benchmark's result so far (every running
 * command's `rounds` set); sets decided[c] for each command whose verdict
 * is known (its units then stop).
 */
typedef void execute_look_fn(void *data, struct bench_result *br, unsigned char *decided);

/*
 * Optional: called after each measured timed run, in the order the runs
 * happened (`kagari aa --trace` records them): its side, benchmark and
 * command, and what wait4 reported.
 */
struct child_result;
typedef void execute_run_fn(void *data, int side, const char *bench, const char *command,
			    const struct child_result *res);

struct execute_options {
	struct runner *runner;
	execute_run_fn *on_run;
	void *on_run_data;
	uint64_t seed;
	int runs_override;		    /* -1: the suite's value */
	int warmup_override;		    /* -1: the suite's value */
	volatile sig_atomic_t *interrupted; /* set by the signal handler */
	execute_progress_fn *progress;
	void *progress_data;
	/* Sequential rounds (compare, `runs` unset or `auto`, no --runs):
	   two-sided benchmarks stop at looks where `look` says so. */
	int sequential;
	execute_look_fn *look;
	void *look_data;
	/* kagari bench: a one-sided benchmark with a `baseline` command
	   compares every other command with it (bench_result's
	   compare_baseline), sequentially like a compare when `sequential`. */
	int compare_baseline;
	/* Sequential: a decided command still runs until its measured time
	   reaches min_time (bench: hyperfine's "at least 3 s"). */
	int seq_min_time;
	int64_t deadline_ns; /* sysinfo_monotonic_ns() cap of the whole
				compare (--max-time); 0: none */
	/* Optional: a probe cache shared with the caller (NULL: a private one
	   per execute_suite call); its valgrind_version is what a report
	   should record when used_valgrind is set. */
	struct execute_instruments *instruments;
	/* Optional: counters_source is set to "perf" when a perf reading
	   was recorded, else "valgrind" when instruction counts came from
	   valgrind. */
	struct environment_info *env;
	/* 1: sample every command (--profile), as if `metrics.profile`. */
	int profile_override;
	/* 1: base and head ${artifact} are byte-identical (the caller compared
	   the builds). Then each benchmark, once set up on both sides and
	   before its first timed run, marks the commands that run the artifact
	   on the same inputs with the same hooks `identical_artifact`
	   (execute_identical.c). */
	int identical_artifacts;
};

/*
 * Run the suite's `build` for one side. Returns 0, or -1 with the reason
 * (exit status, stderr tail) in err.
 */
int execute_build(const struct suite *s, const struct execute_side *side,
		  const struct execute_options *o, struct sbuf *err);

/*
 * Measure benchmarks whose `selected[i]` is non-zero into out (which must
 * be zeroed; its strings are allocated). Returns 0 when measuring took
 * place (failures of commands are in the result), -1 when interrupted.
 */
int execute_suite(const struct suite *s, const unsigned char *selected,
		  const struct execute_side sides[SIDE__COUNT], const struct execute_options *o,
		  struct suite_result *out);

/* The display form of a command: argv joined with shell quoting as needed. */
char *execute_command_display(const struct exec_spec *e);

#endif
