#include "measure/execute.h"

#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "analyze/budget.h"
#include "analyze/rng.h"
#include "base/sbuf.h"
#include "base/strvec.h"
#include "base/xalloc.h"
#include "measure/alloc.h"
#include "measure/counters.h"
#include "measure/proc.h"
#include "measure/runner.h"
#include "measure/valgrind.h"
#include "measure/sysinfo.h"
#include "plan/plan.h"
#include "report/result.h"
#include "suite/vars.h"

extern char **environ;

#define HOOK_TIMEOUT_NS (5LL * 60 * 1000000000)
#define BUILD_TIMEOUT_NS (10LL * 60 * 1000000000)

/* A fully expanded command, ready to hand to the runner. */
struct prepared {
	struct strvec argv;
	struct strvec env;
	char *cwd;
	char *stdout_path; /* NULL: discard */
	char *stderr_path;
	int64_t timeout_ns;
	const struct stdin_spec *in; /* NULL: /dev/null */
	char *stdin_path;	     /* absolute, for STDIN_FILE */
	int terminal;		     /* on a pseudo-terminal (CHILD_TERMINAL) */
};

/* Per (side, command): its prepared command and how far it has got. */
struct unit {
	int side;
	size_t cmd;
	int prepared;	  /* p is complete */
	int ok;		  /* prepared and still running */
	int measured;	  /* measured runs so far */
	int64_t time_ns;  /* sum of measured wall time */
	struct prepared p;
	unsigned perf_events; /* counters.h events read in its timed runs */
};

static void prepared_release(struct prepared *p)
{
	strvec_clear(&p->argv);
	strvec_clear(&p->env);
	free(p->cwd);
	free(p->stdout_path);
	free(p->stderr_path);
	free(p->stdin_path);
	memset(p, 0, sizeof(*p));
}

/* The suite's folder as seen from one side's checkout. */
static char *side_suite_dir(const struct suite *s, const struct execute_side *side)
{
	size_t n = strlen(s->root);
	if (!strncmp(s->dir, s->root, n) && (s->dir[n] == '/' || !s->dir[n]))
		return xstrfmt("%s%s", side->root, s->dir + n);
	return xstrdup(s->dir);
}

static char *join_path(const char *dir, const char *rel)
{
	if (!rel || !*rel)
		return xstrdup(dir);
	if (rel[0] == '/')
		return xstrdup(rel);
	return xstrfmt("%s/%s", dir, rel);
}

static int expand(const char *in, const struct vars_context *ctx, int quote,
		  struct sbuf *out, struct sbuf *err)
{
	sbuf_reset(out);
	return vars_expand(in, ctx, quote, out, err);
}

/*
 * Expand an exec spec into argv/env/cwd. `layers` are environment override
 * vectors applied in order over the inherited environment.
 */
static int prepare_exec(const struct exec_spec *e, const struct strvec *const *layers,
			size_t nr_layers, const char *default_cwd,
			const char *settings_cwd, const struct vars_context *ctx,
			struct prepared *p, struct sbuf *err)
{
	struct sbuf tmp = SBUF_INIT;
	int rc = 0;

	strvec_pushv(&p->env, (const char *const *)environ);
	struct vars_context envctx = *ctx;
	for (size_t l = 0; l < nr_layers && !rc; l++) {
		const struct strvec *layer = layers[l];
		for (size_t i = 0; i < layer->nr && !rc; i++) {
			const char *eq = strchr(layer->v[i], '=');
			if (!eq)
				continue;
			char *name = xstrndup(layer->v[i], (size_t)(eq - layer->v[i]));
			envctx.env = &p->env;
			if (expand(eq + 1, &envctx, 0, &tmp, err))
				rc = -1;
			else
				strvec_setenv(&p->env, name, tmp.buf);
			free(name);
		}
	}
	struct vars_context cmdctx = *ctx;
	cmdctx.env = &p->env;
	if (!rc && e->shell) {
		if (expand(e->script, &cmdctx, 1, &tmp, err)) {
			rc = -1;
		} else {
			strvec_push(&p->argv, "/bin/sh");
			strvec_push(&p->argv, "-c");
			strvec_push(&p->argv, tmp.buf);
		}
	} else {
		for (size_t i = 0; i < e->argv.nr && !rc; i++) {
			if (expand(e->argv.v[i], &cmdctx, 0, &tmp, err))
				rc = -1;
			else
				strvec_push(&p->argv, tmp.buf);
		}
	}
	const char *cwd = e->cwd ? e->cwd : settings_cwd;
	if (!rc && cwd) {
		if (expand(cwd, &cmdctx, 0, &tmp, err))
			rc = -1;
		else
			p->cwd = join_path(default_cwd, tmp.buf);
	} else if (!rc) {
		p->cwd = xstrdup(default_cwd);
	}
	sbuf_release(&tmp);
	return rc;
}

/* Describe how a run that did start ended, for error messages. */
static void describe_failure(const struct child_result *res,
			     const struct prepared *p, struct sbuf *msg)
{
	if (res->timed_out)
		sbuf_addf(msg, "timed out after %.3g s (its process group was killed)",
			  (double)p->timeout_ns / 1e9);
	else if (res->interrupted)
		sbuf_adds(msg, "interrupted");
	else if (res->status == CHILD_SIGNALED)
		sbuf_addf(msg, "killed by signal %s", proc_signal_name(res->signal));
	else
		sbuf_addf(msg, "exited with status %d", res->exit_code);
}

/*
 * Run a prepared command through the runner. Returns 0 when it ran (how it
 * ended is in res), -1 when it could not start or be set up (reason in why).
 */
static void fill_request(const struct prepared *p, unsigned flags,
			 struct runner_request *req)
{
	runner_request_init(req);
	req->argv = p->argv.v;
	req->envp = p->env.v;
	req->dir = p->cwd;
	req->timeout_ns = p->timeout_ns;
	req->flags = flags | (p->terminal ? CHILD_TERMINAL : 0);
	req->out = p->stdout_path ? CHILD_OUT_FILE : CHILD_OUT_DISCARD;
	req->out_path = p->stdout_path;
	req->err = p->stderr_path ? CHILD_OUT_FILE : CHILD_OUT_DISCARD;
	req->err_path = p->stderr_path;
	if (p->in && p->in->kind == STDIN_FILE) {
		req->in = CHILD_IN_FILE;
		req->in_path = p->stdin_path;
	} else if (p->in && p->in->kind == STDIN_CONTENT) {
		req->in = CHILD_IN_CONTENT;
		req->in_data = p->in->value;
		req->in_len = strlen(p->in->value);
	} else {
		req->in = CHILD_IN_NULL;
	}
}

static int run_prepared(const struct execute_options *o, const struct prepared *p,
			unsigned flags, struct child_result *res, struct sbuf *why)
{
	struct runner_request req;
	fill_request(p, flags, &req);
	child_result_reset(res);
	if (runner_run(o->runner, &req, res, why) < 0)
		return -1;
	return 0;
}

static int exit_code_ok(const struct settings *s, const struct child_result *res)
{
	if (res->timed_out || res->interrupted || res->status != CHILD_EXITED)
		return 0;
	for (size_t i = 0; i < s->nr_exit_codes; i++)
		if (s->exit_codes[i] == res->exit_code)
			return 1;
	return 0;
}

/*
 * Did a run that must exit 0 fail? Then the reason, with the masked stderr
 * tail, is appended to why.
 */
static int must_succeed_failed(const struct child_result *res,
			       const struct prepared *p, struct sbuf *why)
{
	if (res->status == CHILD_EXITED && res->exit_code == 0 &&
	    !res->timed_out && !res->interrupted)
		return 0;
	describe_failure(res, p, why);
	char *tail = proc_mask_secrets(res->stderr_tail.buf, p->env.v);
	if (*tail)
		sbuf_addf(why, "\n--- stderr (last 2 KiB) ---\n%s", tail);
	free(tail);
	return 1;
}

/*
 * Run an untimed command (hook, build) that must exit 0. On failure the
 * reason, with the masked stderr tail, is appended to why.
 */
static int run_must_succeed(const struct execute_options *o,
			    const struct prepared *p, unsigned flags,
			    struct sbuf *why)
{
	struct child_result res = CHILD_RESULT_INIT;
	int rc = run_prepared(o, p, flags, &res, why);
	if (rc == 0 && must_succeed_failed(&res, p, why))
		rc = -1;
	child_result_release(&res);
	return rc;
}

/* Expand hook i of a list into p (always to be released). */
static int prepare_hook(const char *what, const struct exec_spec *hooks,
			size_t i, const struct bench_spec *b,
			const char *suite_dir, const struct vars_context *ctx,
			struct prepared *p, struct sbuf *err)
{
	memset(p, 0, sizeof(*p));
	strvec_init(&p->argv);
	strvec_init(&p->env);
	const struct strvec *layers[] = { &b->settings.env, &hooks[i].env };
	struct sbuf why = SBUF_INIT;
	int rc = prepare_exec(&hooks[i], layers, 2, suite_dir, b->settings.cwd,
			      ctx, p, &why);
	if (rc)
		sbuf_addf(err, "%s hook %zu: %s", what, i + 1, why.buf);
	p->timeout_ns = hooks[i].timeout_ns ? hooks[i].timeout_ns : HOOK_TIMEOUT_NS;
	sbuf_release(&why);
	return rc;
}

static void hook_failed(const char *what, const struct exec_spec *hooks,
			size_t i, const char *why, struct sbuf *err)
{
	char *shown = execute_command_display(&hooks[i]);
	sbuf_addf(err, "%s hook %zu (%s) failed: %s", what, i + 1, shown, why);
	free(shown);
}

/*
 * Run a list of hooks; on failure describe it in err (with the stderr tail).
 * flags: RUNNER_CLEAR_INTERRUPT for cleanup, which must run after a signal.
 */
static int run_hooks(const char *what, const struct exec_spec *hooks, size_t n,
		     const struct bench_spec *b, const char *suite_dir,
		     const struct vars_context *ctx, const struct execute_options *o,
		     unsigned flags, struct sbuf *err)
{
	for (size_t i = 0; i < n; i++) {
		struct prepared p;
		struct sbuf why = SBUF_INIT;
		if (prepare_hook(what, hooks, i, b, suite_dir, ctx, &p, err)) {
			prepared_release(&p);
			return -1;
		}
		int rc = run_must_succeed(o, &p, flags, &why);
		if (rc)
			hook_failed(what, hooks, i, why.buf, err);
		sbuf_release(&why);
		prepared_release(&p);
		if (rc)
			return -1;
	}
	return 0;
}

char *execute_command_display(const struct exec_spec *e)
{
	if (e->shell)
		return xstrdup(e->script);
	struct sbuf sb = SBUF_INIT;
	for (size_t i = 0; i < e->argv.nr; i++) {
		const char *a = e->argv.v[i];
		if (i)
			sbuf_addch(&sb, ' ');
		/* Variables stay readable: `${artifact}` is shown as written. */
		if (*a && !strpbrk(a, " \t\n'\"\\`*?[]()<>|&;#~")) {
			sbuf_adds(&sb, a);
			continue;
		}
		sbuf_addch(&sb, '\'');
		for (; *a; a++) {
			if (*a == '\'')
				sbuf_adds(&sb, "'\\''");
			else
				sbuf_addch(&sb, *a);
		}
		sbuf_addch(&sb, '\'');
	}
	return sbuf_detach(&sb);
}

int execute_build(const struct suite *s, const struct execute_side *side,
		  const struct execute_options *o, struct sbuf *err)
{
	if (!s->build)
		return 0;
	struct vars_context ctx = {
		.artifact = side->artifact, .root = side->root,
		.head_root = side->head_root, .workdir = NULL, .env = NULL,
	};
	char *dir = side_suite_dir(s, side);
	struct prepared p;
	memset(&p, 0, sizeof(p));
	strvec_init(&p.argv);
	strvec_init(&p.env);
	const struct strvec *layers[] = { &s->build->env };
	int rc = prepare_exec(s->build, layers, 1, dir, NULL, &ctx, &p, err);
	if (!rc) {
		p.timeout_ns = s->build->timeout_ns ? s->build->timeout_ns : BUILD_TIMEOUT_NS;
		if (side->artifact)
			unlink(side->artifact); /* a stale artifact must not pass as built */
		struct sbuf why = SBUF_INIT;
		rc = run_must_succeed(o, &p, 0, &why);
		if (rc == 0 && side->artifact && access(side->artifact, F_OK) != 0) {
			sbuf_addf(&why, "it exited 0 but wrote no ${artifact} ('%s')",
				  side->artifact);
			rc = -1;
		}
		if (rc)
			sbuf_addf(err, "build of suite '%s' failed: %s", s->name, why.buf);
		sbuf_release(&why);
	}
	prepared_release(&p);
	free(dir);
	return rc;
}

/* Which metrics a command records, per the resolved `metrics:` settings. */
static int metric_requested(const struct settings *st, enum metric_id m)
{
	switch (metric_get(m)->group) {
	case GROUP_TIME:
		return 1;
	case GROUP_CPU:
		return st->metrics.cpu;
	case GROUP_MEMORY:
		return st->metrics.memory;
	case GROUP_THROUGHPUT:
		return st->metrics.throughput.kind != WORK_NONE;
	case GROUP_COUNTERS:
	case GROUP_ALLOCATIONS:
		return 0; /* never from timed runs: see instrumented runs */
	}
	return 0;
}

static void record_run(struct side_result *sr, const struct settings *st,
		       const struct child_result *out, double work, int round,
		       int run)
{
	double wall = (double)out->wall_ns;
	double user = (double)out->user_ns, sys = (double)out->sys_ns;
	for (int m = 0; m < METRIC__COUNT; m++) {
		if (!metric_requested(st, (enum metric_id)m))
			continue;
		double v;
		switch (m) {
		case METRIC_LATENCY:
			v = wall;
			break;
		case METRIC_CPU_USER:
			v = user;
			break;
		case METRIC_CPU_SYSTEM:
			v = sys;
			break;
		case METRIC_CPU_TOTAL:
			v = user + sys;
			break;
		case METRIC_CPU_UTILIZATION:
			if (wall <= 0)
				continue;
			v = (user + sys) / wall;
			break;
		case METRIC_PEAK_RSS:
			v = (double)out->maxrss_bytes;
			break;
		case METRIC_THROUGHPUT:
			if (wall <= 0)
				continue;
			v = work / (wall / 1e9);
			break;
		default:
			continue;
		}
		metric_series_add(&sr->metric[m], v, round, run);
	}
	sr->count++;
}

static double throughput_work(const struct bench_spec *b, const char *suite_dir)
{
	const struct throughput_work *w = &b->settings.metrics.throughput;
	if (w->kind == WORK_VALUE)
		return w->value;
	if (w->kind == WORK_FILE_SIZE) {
		char *path = join_path(suite_dir, w->file);
		struct stat st;
		double v = stat(path, &st) == 0 ? (double)st.st_size : NAN;
		free(path);
		return v;
	}
	return NAN;
}

static void set_error(struct command_result *cr, const char *side_label,
		      const char *msg, const char *tail)
{
	if (cr->error)
		return; /* the first failure is the one to show */
	cr->error = side_label ? xstrfmt("%s: %s", side_label, msg) : xstrdup(msg);
	if (tail && *tail)
		cr->stderr_tail = xstrdup(tail);
}

static int rounds_for(int runs, int per_round)
{
	return (runs + per_round - 1) / per_round;
}

/* ---- instrumented runs (allocations, valgrind) ------------------------- */

enum instr_mode { INSTR_ALLOC, INSTR_VALGRIND, INSTR__COUNT };

#define VALGRIND_ONLY_INSTRUCTIONS                                             \
	"valgrind counts instructions only; cycles, branch and cache misses " \
	"need hardware counters (instrument: perf)"

void execute_instruments_release(struct execute_instruments *in)
{
	counters_probe_release(&in->perf);
	free(in->perf_fallback_reason);
	free(in->valgrind);
	free(in->valgrind_version);
	free(in->valgrind_error);
	free(in->shim);
	free(in->shim_error);
	memset(in, 0, sizeof(*in));
}

static void probe_valgrind(struct execute_instruments *in)
{
	if (in->valgrind_probed)
		return;
	in->valgrind_probed = 1;
	struct sbuf err = SBUF_INIT;
	if (valgrind_probe(NULL, &in->valgrind, &in->valgrind_version, &err))
		in->valgrind_error = sbuf_detach(&err);
	sbuf_release(&err);
}

static void probe_shim(struct execute_instruments *in)
{
	if (in->shim_probed)
		return;
	in->shim_probed = 1;
	struct sbuf path = SBUF_INIT, err = SBUF_INIT;
	if (alloc_shim_find(&path, &err))
		in->shim_error = sbuf_detach(&err);
	else
		in->shim = sbuf_detach(&path);
	sbuf_release(&path);
	sbuf_release(&err);
}

static void probe_perf(struct execute_instruments *in)
{
	if (in->perf_probed)
		return;
	in->perf_probed = 1;
	counters_probe(&in->perf);
	if (!(in->perf.available & COUNTERS_BIT(COUNTERS_INSTRUCTIONS)))
		in->perf_fallback_reason = xstrfmt(
			"valgrind counts instructions only, and hardware counters "
			"are unavailable here: %s",
			in->perf.why[COUNTERS_INSTRUCTIONS]);
}

enum counter_source { SOURCE_PERF, SOURCE_VALGRIND };

/* Where the counter metrics of this command come from (see execute.h). */
static enum counter_source counter_source(struct execute_instruments *in,
					  const struct command_spec *cs)
{
	switch (cs->settings.metrics.instrument) {
	case INSTRUMENT_PERF:
		return SOURCE_PERF;
	case INSTRUMENT_VALGRIND:
		return SOURCE_VALGRIND;
	case INSTRUMENT_AUTO:
		break;
	}
	probe_perf(in);
	return in->perf.available & COUNTERS_BIT(COUNTERS_INSTRUCTIONS)
		       ? SOURCE_PERF : SOURCE_VALGRIND;
}

/* The perf events a counter metric is made of (0 for other metrics). */
static unsigned perf_events_of(enum metric_id m)
{
	switch (m) {
	case METRIC_INSTRUCTIONS:
		return COUNTERS_BIT(COUNTERS_INSTRUCTIONS);
	case METRIC_CYCLES:
		return COUNTERS_BIT(COUNTERS_CYCLES);
	case METRIC_BRANCH_MISSES:
		return COUNTERS_BIT(COUNTERS_BRANCH_MISSES);
	case METRIC_CACHE_MISSES:
		return COUNTERS_BIT(COUNTERS_CACHE_MISSES);
	case METRIC_IPC:
		return COUNTERS_BIT(COUNTERS_INSTRUCTIONS) |
		       COUNTERS_BIT(COUNTERS_CYCLES);
	default:
		return 0;
	}
}

static const enum metric_id counter_metrics[] = {
	METRIC_INSTRUCTIONS, METRIC_CYCLES, METRIC_BRANCH_MISSES,
	METRIC_CACHE_MISSES, METRIC_IPC,
};
#define NR_COUNTER_METRICS (sizeof(counter_metrics) / sizeof(counter_metrics[0]))

static int named_in_budget(const struct command_spec *cs, enum metric_id m)
{
	for (size_t i = 0; i < cs->nr_budgets; i++)
		if (cs->budgets[i].metric == m)
			return 1;
	return 0;
}

int execute_metric_required(const struct command_spec *cs, enum metric_id m)
{
	const struct metrics_cfg *mc = &cs->settings.metrics;
	enum metric_group g = metric_get(m)->group;
	if (g != GROUP_COUNTERS && g != GROUP_ALLOCATIONS)
		return 0;
	if (cs->settings.regression.metric[m].configured || named_in_budget(cs, m))
		return 1;
	if (g == GROUP_ALLOCATIONS)
		return mc->allocations;
	return mc->counters == COUNTERS_LIST && (mc->counters_list & (1u << m));
}

int execute_metric_asked(const struct command_spec *cs, enum metric_id m)
{
	if (metric_get(m)->group == GROUP_COUNTERS &&
	    cs->settings.metrics.counters == COUNTERS_AVAILABLE)
		return 1;
	return execute_metric_required(cs, m);
}

const char *execute_metric_unsupported(struct execute_instruments *in,
				       const struct command_spec *cs,
				       enum metric_id m)
{
	enum metric_group g = metric_get(m)->group;
	if (g == GROUP_ALLOCATIONS) {
		probe_shim(in);
		return in->shim ? NULL : in->shim_error;
	}
	if (g != GROUP_COUNTERS)
		return NULL;
	if (counter_source(in, cs) == SOURCE_PERF) {
		probe_perf(in);
		unsigned need = perf_events_of(m);
		for (int e = 0; e < COUNTERS__COUNT; e++)
			if ((need & COUNTERS_BIT(e)) &&
			    !(in->perf.available & COUNTERS_BIT(e)))
				return in->perf.why[e];
		return NULL;
	}
	if (m != METRIC_INSTRUCTIONS)
		return cs->settings.metrics.instrument == INSTRUMENT_AUTO &&
				       in->perf_fallback_reason
			       ? in->perf_fallback_reason
			       : VALGRIND_ONLY_INSTRUCTIONS;
	probe_valgrind(in);
	return in->valgrind ? NULL : in->valgrind_error;
}

/* Per unit: the instrumented variant of its command and how far it got. */
struct instr_unit {
	int want[INSTR__COUNT];
	int done[INSTR__COUNT];
	int target;
	struct prepared p; /* equal-length paths, PWD set; no instrument yet */
};

struct instr_ctx {
	const struct suite *s;
	const struct bench_spec *b;
	const struct execute_options *o;
	struct execute_instruments *in;
	struct bench_result *br;
	struct unit *units;
	size_t nr_units;
	struct instr_unit *iu;
	const char *suite_dir[SIDE__COUNT]; /* through the link */
	struct vars_context ctx[SIDE__COUNT];
	char *dir[SIDE__COUNT];		    /* private output folder per side */
	int two_sided;
};

static const enum metric_id alloc_metrics[] = { METRIC_ALLOCS, METRIC_ALLOC_BYTES,
						METRIC_PEAK_HEAP };

static void series_fail(struct metric_series *ms, enum metric_status st,
			const char *reason)
{
	free(ms->samples);
	ms->samples = NULL;
	ms->nr = ms->alloc = 0;
	metric_series_set_status(ms, st, reason);
}

/* Mark the metrics of one mode of one unit failed/unsupported, stop it. */
static void instr_stop(struct instr_ctx *ic, size_t i, enum instr_mode mode,
		       enum metric_status st, const char *reason)
{
	struct unit *u = &ic->units[i];
	const struct command_spec *cs = &ic->b->commands[u->cmd];
	struct side_result *sr = &ic->br->commands[u->cmd].side[u->side];
	if (mode == INSTR_ALLOC) {
		for (size_t k = 0; k < sizeof(alloc_metrics) / sizeof(alloc_metrics[0]); k++)
			if (execute_metric_asked(cs, alloc_metrics[k]))
				series_fail(&sr->metric[alloc_metrics[k]], st, reason);
	} else {
		series_fail(&sr->metric[METRIC_INSTRUCTIONS], st, reason);
	}
	ic->iu[i].want[mode] = 0;
}

/* <dir>/root -> root, so that both sides see paths of the same length. */
static char *equal_length_root(const char *tmpdir, const char *root)
{
	char *link = xstrfmt("%s/root", tmpdir);
	struct stat st;
	if (lstat(link, &st) != 0 && symlink(root, link) != 0) {
		free(link);
		return xstrdup(root);
	}
	return link;
}

/* Run one instrumented run of unit i; returns 1 when interrupted. */
static int instr_run(struct instr_ctx *ic, size_t i, enum instr_mode mode,
		     int round, struct child_result *res)
{
	struct unit *u = &ic->units[i];
	struct instr_unit *iu = &ic->iu[i];
	const struct execute_options *o = ic->o;
	const struct command_spec *cs = &ic->b->commands[u->cmd];
	struct side_result *sr = &ic->br->commands[u->cmd].side[u->side];
	const char *dir = ic->dir[u->side];
	const char *what = mode == INSTR_ALLOC ? "allocation-counting" : "valgrind";
	struct sbuf err = SBUF_INIT, msg = SBUF_INIT;
	int interrupted = 0;

	if (run_hooks("prepare_each", ic->b->prepare_each, ic->b->nr_prepare_each,
		      ic->b, ic->suite_dir[u->side], &ic->ctx[u->side], o, 0, &err)) {
		sbuf_addf(&msg, "the %s run could not be prepared: %s", what, err.buf);
		instr_stop(ic, i, mode, MSTATUS_FAILED, msg.buf);
		goto out;
	}
	if (*o->interrupted) {
		interrupted = 1;
		goto out;
	}
	if (valgrind_clear_dir(dir, &err)) {
		instr_stop(ic, i, mode, MSTATUS_FAILED, err.buf);
		goto out;
	}

	struct prepared run = iu->p; /* shallow: argv/env replaced below */
	struct strvec argv = STRVEC_INIT, env = STRVEC_INIT;
	char *out_file = xstrfmt("%s/alloc", dir);
	strvec_copy(&env, &iu->p.env);
	if (mode == INSTR_ALLOC) {
		strvec_copy(&argv, &iu->p.argv);
		alloc_env_setup(&env, ic->in->shim, out_file);
		run.timeout_ns = iu->p.timeout_ns ? iu->p.timeout_ns * 2 : 0;
	} else {
		valgrind_wrap_argv(ic->in->valgrind, iu->p.argv.v, dir, &argv);
		run.timeout_ns = iu->p.timeout_ns ? iu->p.timeout_ns * VALGRIND_TIMEOUT_FACTOR : 0;
	}
	run.argv = argv;
	run.env = env;
	int rc = run_prepared(o, &run, 0, res, &err);
	if (rc) {
		sbuf_addf(&msg, "the %s run could not start: %s", what, err.buf);
		instr_stop(ic, i, mode, MSTATUS_FAILED, msg.buf);
	} else if (res->interrupted || *o->interrupted) {
		interrupted = 1;
	} else if (!exit_code_ok(&cs->settings, res)) {
		sbuf_addf(&msg, "the %s run ", what);
		describe_failure(res, &run, &msg);
		char *tail = proc_mask_secrets(res->stderr_tail.buf, run.env.v);
		if (*tail)
			sbuf_addf(&msg, "; stderr ends: %s", tail);
		free(tail);
		instr_stop(ic, i, mode, MSTATUS_FAILED, msg.buf);
	} else if (mode == INSTR_ALLOC) {
		struct alloc_totals t;
		if (alloc_read(out_file, runner_pid(o->runner), &t, &err)) {
			instr_stop(ic, i, mode, MSTATUS_FAILED, err.buf);
		} else if (!t.main_seen) {
			instr_stop(ic, i, mode, MSTATUS_UNSUPPORTED, alloc_unseen_reason());
		} else {
			double v[] = { (double)t.allocs, (double)t.bytes, (double)t.peak };
			iu->done[mode]++;
			for (size_t k = 0; k < sizeof(alloc_metrics) / sizeof(alloc_metrics[0]); k++)
				if (execute_metric_asked(cs, alloc_metrics[k]))
					metric_series_add(&sr->metric[alloc_metrics[k]], v[k],
							  round, iu->done[mode]);
		}
	} else {
		uint64_t ir = 0;
		size_t files = 0;
		if (valgrind_read_dir(dir, &ir, &files, &err)) {
			instr_stop(ic, i, mode, MSTATUS_FAILED, err.buf);
		} else if (!files) {
			instr_stop(ic, i, mode, MSTATUS_FAILED,
				   "valgrind wrote no cachegrind output (the program ended through a signal or exec failed)");
		} else {
			iu->done[mode]++;
			ic->in->used_valgrind = 1;
			metric_series_add(&sr->metric[METRIC_INSTRUCTIONS], (double)ir,
					  round, iu->done[mode]);
		}
	}
	free(out_file);
	strvec_clear(&argv);
	strvec_clear(&env);
out:
	if (*o->interrupted)
		interrupted = 1;
	sbuf_release(&err);
	sbuf_release(&msg);
	return interrupted;
}

/*
 * After the timed rounds: the instrumented rounds of every mode some unit
 * wants. Returns 1 when interrupted.
 */
static int instr_rounds(struct instr_ctx *ic, const struct plan_unit *plan_units,
			struct rng *rng)
{
	const struct settings *bs = &ic->b->settings;
	int per_round = bs->runs_per_round > 0 ? bs->runs_per_round : 1;
	int *owed = xcalloc(ic->nr_units + 1, sizeof(*owed));
	struct plan_unit *seq = NULL;
	size_t seq_alloc = 0;
	struct child_result res = CHILD_RESULT_INIT;
	int interrupted = 0;

	for (int mode = 0; mode < INSTR__COUNT && !interrupted; mode++) {
		int most = 0;
		for (size_t i = 0; i < ic->nr_units; i++)
			if (ic->iu[i].want[mode] && ic->iu[i].target > most)
				most = ic->iu[i].target;
		int total = rounds_for(most, per_round);
		for (int r = 0; r < total && !interrupted; r++) {
			int any = 0;
			for (size_t i = 0; i < ic->nr_units; i++) {
				struct instr_unit *iu = &ic->iu[i];
				int left = iu->target - iu->done[mode];
				owed[i] = iu->want[mode] && ic->units[i].ok && left > 0
						  ? (left < per_round ? left : per_round) : 0;
				any |= owed[i] > 0;
			}
			if (!any)
				break;
			if (ic->o->progress)
				ic->o->progress(ic->o->progress_data, ic->b->name, r + 1,
						total, 0);
			size_t n = plan_round(bs->order, plan_units, owed, ic->nr_units,
					      r, rng, &seq, &seq_alloc);
			for (size_t k = 0; k < n && !interrupted; k++) {
				size_t i = 0;
				while (i < ic->nr_units &&
				       !(ic->units[i].side == seq[k].side &&
					 ic->units[i].cmd == seq[k].command))
					i++;
				if (i == ic->nr_units || !ic->iu[i].want[mode])
					continue;
				interrupted = instr_run(ic, i, (enum instr_mode)mode, r + 1, &res);
			}
		}
	}
	free(owed);
	free(seq);
	child_result_release(&res);
	return interrupted;
}

/*
 * Decide what each unit wants, prepare its equal-length command, run the
 * instrumented rounds. Metrics that cannot be measured are marked later
 * (mark_instr_unsupported). Returns 1 when interrupted.
 */
static int instrument_bench(const struct suite *s, const struct bench_spec *b,
			    size_t bench_index,
			    const struct execute_side sides[SIDE__COUNT],
			    const struct execute_options *o,
			    struct execute_instruments *in, struct bench_result *br,
			    struct unit *units, size_t nr_units,
			    const struct plan_unit *plan_units, struct rng *rng,
			    const char *const workdir[SIDE__COUNT])
{
	struct instr_ctx ic;
	memset(&ic, 0, sizeof(ic));
	ic.s = s;
	ic.b = b;
	ic.o = o;
	ic.in = in;
	ic.br = br;
	ic.units = units;
	ic.nr_units = nr_units;
	ic.iu = xcalloc(nr_units + 1, sizeof(*ic.iu));
	ic.two_sided = sides[SIDE_BASE].present && sides[SIDE_HEAD].present;

	int any = 0;
	for (size_t i = 0; i < nr_units; i++) {
		struct unit *u = &units[i];
		const struct command_spec *cs = &b->commands[u->cmd];
		const struct settings *st = &cs->settings;
		struct instr_unit *iu = &ic.iu[i];
		strvec_init(&iu->p.argv);
		strvec_init(&iu->p.env);
		if (!u->ok || u->measured <= 0)
			continue;
		int cap = st->regression.min_samples > 0 ? st->regression.min_samples : 10;
		iu->target = u->measured < cap ? u->measured : cap;
		for (size_t k = 0; k < sizeof(alloc_metrics) / sizeof(alloc_metrics[0]); k++)
			if (execute_metric_asked(cs, alloc_metrics[k]) &&
			    !execute_metric_unsupported(in, cs, alloc_metrics[k]))
				iu->want[INSTR_ALLOC] = 1;
		if (execute_metric_asked(cs, METRIC_INSTRUCTIONS) &&
		    counter_source(in, cs) == SOURCE_VALGRIND &&
		    !execute_metric_unsupported(in, cs, METRIC_INSTRUCTIONS))
			iu->want[INSTR_VALGRIND] = 1;
		any |= iu->want[INSTR_ALLOC] || iu->want[INSTR_VALGRIND];
	}
	int interrupted = 0;
	char *link[SIDE__COUNT] = { NULL, NULL };
	char *sdir[SIDE__COUNT] = { NULL, NULL };
	if (!any)
		goto out;

	struct execute_side eq[SIDE__COUNT];
	for (int sd = 0; sd < SIDE__COUNT; sd++) {
		eq[sd] = sides[sd];
		if (!sides[sd].present)
			continue;
		link[sd] = equal_length_root(sides[sd].tmpdir, sides[sd].root);
		eq[sd].root = link[sd];
		sdir[sd] = side_suite_dir(s, &eq[sd]);
		ic.suite_dir[sd] = sdir[sd];
		ic.ctx[sd] = (struct vars_context){
			.artifact = sides[sd].artifact, .root = link[sd],
			.head_root = sides[sd].head_root, .workdir = workdir[sd],
			.env = NULL,
		};
		ic.dir[sd] = xstrfmt("%s/i%zu", sides[sd].tmpdir, bench_index);
		if (mkdir(ic.dir[sd], 0700) != 0 && errno != EEXIST) {
			struct sbuf msg = SBUF_INIT;
			sbuf_addf(&msg, "cannot create '%s': %s", ic.dir[sd], strerror(errno));
			for (size_t i = 0; i < nr_units; i++)
				for (int mode = 0; mode < INSTR__COUNT; mode++)
					if (units[i].side == sd && ic.iu[i].want[mode])
						instr_stop(&ic, i, (enum instr_mode)mode,
							   MSTATUS_FAILED, msg.buf);
			sbuf_release(&msg);
		}
	}
	for (size_t i = 0; i < nr_units; i++) {
		struct unit *u = &units[i];
		struct instr_unit *iu = &ic.iu[i];
		if (!iu->want[INSTR_ALLOC] && !iu->want[INSTR_VALGRIND])
			continue;
		const struct command_spec *cs = &b->commands[u->cmd];
		const struct strvec *layers[] = { &cs->settings.env, &cs->exec.env };
		struct sbuf err = SBUF_INIT;
		if (prepare_exec(&cs->exec, layers, 2, sdir[u->side], cs->settings.cwd,
				 &ic.ctx[u->side], &iu->p, &err)) {
			for (int mode = 0; mode < INSTR__COUNT; mode++)
				if (iu->want[mode])
					instr_stop(&ic, i, (enum instr_mode)mode, MSTATUS_FAILED,
						   err.buf);
		} else {
			iu->p.timeout_ns = u->p.timeout_ns;
			iu->p.stdout_path = u->p.stdout_path ? xstrdup(u->p.stdout_path) : NULL;
			iu->p.stderr_path = u->p.stderr_path ? xstrdup(u->p.stderr_path) : NULL;
			iu->p.in = u->p.in;
			iu->p.terminal = u->p.terminal;
			iu->p.stdin_path = u->p.stdin_path ? xstrdup(u->p.stdin_path) : NULL;
			/* Shells and getcwd users see the link too, on both sides. */
			strvec_setenv(&iu->p.env, "PWD", iu->p.cwd);
		}
		sbuf_release(&err);
	}
	interrupted = instr_rounds(&ic, plan_units, rng);
out:
	for (size_t i = 0; i < nr_units; i++)
		prepared_release(&ic.iu[i].p);
	free(ic.iu);
	for (int sd = 0; sd < SIDE__COUNT; sd++) {
		free(link[sd]);
		free(sdir[sd]);
		free(ic.dir[sd]);
	}
	return interrupted;
}

/*
 * Counter and allocation metrics asked for but not measured on a side
 * that ran: `unsupported` with the reason this machine or instrument gives.
 */
static void mark_instr_unsupported(struct execute_instruments *in,
				   const struct command_spec *cs,
				   struct command_result *cr)
{
	for (int m = 0; m < METRIC__COUNT; m++) {
		if (!execute_metric_asked(cs, (enum metric_id)m))
			continue;
		const char *why = execute_metric_unsupported(in, cs, (enum metric_id)m);
		for (int sd = 0; sd < SIDE__COUNT; sd++) {
			struct side_result *sr = &cr->side[sd];
			struct metric_series *ms = &sr->metric[m];
			if (!sr->present || ms->status != MSTATUS_ABSENT || !sr->count)
				continue;
			metric_series_set_status(ms, MSTATUS_UNSUPPORTED,
						 why ? why : "not measured");
		}
	}
}

/* ---- perf counters in the timed runs ---------------------------------- */

/*
 * The perf events a command's timed runs read: the events of its asked
 * counter metrics that come from perf and open here, plus the software
 * events (task-clock, page-faults) whenever any are read. 0: none.
 */
static unsigned perf_plan(struct execute_instruments *in,
			  const struct command_spec *cs)
{
	unsigned ev = 0;
	for (size_t k = 0; k < NR_COUNTER_METRICS; k++) {
		enum metric_id m = counter_metrics[k];
		if (!execute_metric_asked(cs, m) || counter_source(in, cs) != SOURCE_PERF)
			continue;
		if (!execute_metric_unsupported(in, cs, m))
			ev |= perf_events_of(m);
	}
	if (ev)
		ev |= in->perf.available & COUNTERS_SOFTWARE;
	return ev;
}

/* Counting failed for a unit: its perf metrics fail with the reason. */
static void perf_fail(const struct command_spec *cs, struct side_result *sr,
		      unsigned events, const char *why)
{
	struct sbuf msg = SBUF_INIT;
	sbuf_addf(&msg, "hardware counters failed: %s", why);
	for (size_t k = 0; k < NR_COUNTER_METRICS; k++) {
		enum metric_id m = counter_metrics[k];
		unsigned need = perf_events_of(m);
		if (execute_metric_asked(cs, m) && (events & need) == need)
			series_fail(&sr->metric[m], MSTATUS_FAILED, msg.buf);
	}
	sbuf_release(&msg);
}

/* Add one run's reading to the unit's perf metrics. */
static void perf_record(struct execute_instruments *in,
			const struct command_spec *cs, struct side_result *sr,
			unsigned events, const struct counters_reading *r,
			int round, int run)
{
	int missed = 0;
	for (size_t k = 0; k < NR_COUNTER_METRICS; k++) {
		enum metric_id m = counter_metrics[k];
		unsigned need = perf_events_of(m);
		if (!execute_metric_asked(cs, m) || (events & need) != need)
			continue;
		double v;
		if (m == METRIC_IPC) {
			v = counters_ipc(r);
		} else {
			int e = __builtin_ctz(need);
			v = (r->counted & need) ? r->value[e] : NAN;
			if (!isnan(v)) {
				/* A multiplexed share is extrapolated; counts stay
				   integers. */
				v = nearbyint(v);
				double share = r->share[e];
				if (in->perf_min_share <= 0 || share < in->perf_min_share)
					in->perf_min_share = share;
			}
		}
		if (isnan(v)) {
			missed = 1; /* not counted in this run: no sample */
			continue;
		}
		metric_series_add(&sr->metric[m], v, round, run);
		in->used_perf = 1;
	}
	if (missed)
		in->perf_not_counted++;
}

/*
 * run_prepared() for a timed run; for a measured run of a unit that reads
 * perf events, they are opened on the runner just before and read just
 * after, into *reading (*have set when it holds one).
 */
static int run_timed(const struct execute_options *o, struct execute_instruments *in,
		     struct counters *pc, struct unit *u,
		     const struct command_spec *cs, struct side_result *sr,
		     int measured, struct child_result *res,
		     struct counters_reading *reading, int *have, struct sbuf *why)
{
	struct sbuf perr = SBUF_INIT;
	int counting = measured && u->perf_events;
	*have = 0;
	if (counting) {
		pc->pid = runner_pid(o->runner);
		pc->events = u->perf_events;
		if (counters_begin(pc, &perr)) {
			perf_fail(cs, sr, u->perf_events, perr.buf);
			u->perf_events = 0;
			counting = 0;
		}
	}
	int rc = run_prepared(o, &u->p, 0, res, why);
	if (counting) {
		sbuf_reset(&perr);
		if (counters_end(pc, reading, &perr) == 0)
			*have = 1;
		else
			in->perf_not_counted++;
	}
	sbuf_release(&perr);
	return rc;
}

/* Perf metrics that no run counted: failed, with the likely cause. */
static void perf_mark_uncounted(struct execute_instruments *in,
				const struct command_spec *cs,
				struct side_result *sr)
{
	unsigned events = perf_plan(in, cs);
	if (!events || !sr->present || !sr->count)
		return;
	for (size_t k = 0; k < NR_COUNTER_METRICS; k++) {
		enum metric_id m = counter_metrics[k];
		unsigned need = perf_events_of(m);
		struct metric_series *ms = &sr->metric[m];
		if (!execute_metric_asked(cs, m) || (events & need) != need ||
		    ms->status != MSTATUS_ABSENT)
			continue;
		metric_series_set_status(
			ms, MSTATUS_FAILED,
			"not counted in any run: the event never got a hardware "
			"counter (another profiler or the NMI watchdog may hold "
			"them; see `kagari doctor`)");
	}
}


/* ---- the timed rounds ------------------------------------------------- */

/*
 * Batches: when no perf counters are read per run (they are opened around
 * each run from here), consecutive rounds of one phase (warm-up or
 * measured) go to the runner as one batch (runner.h): the prepare_each
 * hooks and runs of every planned run, in the planned order, each entry
 * tagged with its unit. The runner skips the rest of a unit after a failed
 * hook or run, stops at the next round boundary after any failure, and
 * stops at an interrupt. The outcomes are then taken in order exactly as
 * if each run had been made alone; after a failure, the rounds from the
 * boundary on are planned again (the random stream rewound to that round),
 * so samples, rounds, order and messages are those of unbatched runs.
 *
 * How many rounds a batch holds: as many as fit in BATCH_NS at the pace of
 * the previous batch (one round for the first), at most BATCH_MAX_ENTRIES
 * entries; adaptive measured rounds only while every unit is below
 * min_runs (whether a round happens must not depend on the outcomes).
 * Runs that ended before an interrupt keep their samples.
 */
#define BATCH_NS INT64_C(50000000)
#define BATCH_MAX_ENTRIES 4096

/* A planned run in a batch: its unit and its first entry (hooks first). */
struct batch_item {
	size_t unit;
	size_t entry;
};

struct rounds {
	const struct bench_spec *b;
	const struct execute_options *o;
	struct execute_instruments *in;
	struct bench_result *br;
	struct unit *units;
	size_t nr_units;
	int two_sided;
	const double *work;
	char *const *suite_dir;
	const struct vars_context *ctx;
	const struct plan_unit *plan_units;
	int per_round, warmup, fixed, min_runs, max_runs;
	int warm_rounds, total_rounds;
	struct counters pc;
	struct child_result res;
	int interrupted;
	int failed; /* a hook or run failed in the current batch */
	struct plan_unit *seq;
	size_t seq_alloc;
	/* Batches: prepare_each hooks per side, prepared once. */
	int hooks_ok;
	struct prepared *hooks[SIDE__COUNT];
	struct runner_batch batch;
	size_t *unit_req;
	size_t hook_req[SIDE__COUNT];
	int *proj; /* runs so far, counting the batch being planned */
	struct batch_item *items;
	size_t nr_items, items_alloc;
	size_t *round_item; /* first item of each round of the batch */
	size_t round_item_alloc;
	struct rng *rng_at; /* the random stream before each round */
	size_t rng_at_alloc;
	int64_t round_ns; /* wall time per round of the last batch; -1 unknown */
};

static void rounds_prepare_hooks(struct rounds *R, const int *side_ok)
{
	const struct bench_spec *b = R->b;
	R->hooks_ok = 1;
	for (int sd = 0; sd < SIDE__COUNT; sd++) {
		if (!side_ok[sd] || !b->nr_prepare_each)
			continue;
		R->hooks[sd] = xcalloc(b->nr_prepare_each, sizeof(*R->hooks[sd]));
		for (size_t h = 0; h < b->nr_prepare_each; h++) {
			struct sbuf err = SBUF_INIT;
			if (prepare_hook("prepare_each", b->prepare_each, h, b,
					 R->suite_dir[sd], &R->ctx[sd],
					 &R->hooks[sd][h], &err))
				R->hooks_ok = 0; /* the unbatched runs say why */
			sbuf_release(&err);
		}
	}
	R->unit_req = xcalloc(R->nr_units + 1, sizeof(*R->unit_req));
	R->proj = xcalloc(R->nr_units + 1, sizeof(*R->proj));
}

static void rounds_release(struct rounds *R)
{
	for (int sd = 0; sd < SIDE__COUNT; sd++) {
		for (size_t h = 0; R->hooks[sd] && h < R->b->nr_prepare_each; h++)
			prepared_release(&R->hooks[sd][h]);
		free(R->hooks[sd]);
	}
	counters_release(&R->pc);
	child_result_release(&R->res);
	runner_batch_release(&R->batch);
	free(R->seq);
	free(R->unit_req);
	free(R->proj);
	free(R->items);
	free(R->round_item);
	free(R->rng_at);
}

static struct unit *rounds_unit(struct rounds *R, const struct plan_unit *pu)
{
	struct unit *u = NULL;
	for (size_t i = 0; i < R->nr_units; i++)
		if (R->units[i].side == pu->side && R->units[i].cmd == pu->command)
			u = &R->units[i];
	return u;
}

/*
 * Take the outcome of a timed run whose hooks passed: rc -1 = it could not
 * start (why); `stopped`: it was interrupted.
 */
static void take_run(struct rounds *R, struct unit *u, int is_warm, int round,
		     const struct child_result *res, int rc, const char *why,
		     int stopped, const struct counters_reading *reading,
		     int have_reading)
{
	const struct command_spec *cs = &R->b->commands[u->cmd];
	struct command_result *cr = &R->br->commands[u->cmd];
	const char *label = R->two_sided ? side_name(u->side) : NULL;
	if (rc) {
		set_error(cr, label, why, NULL);
		u->ok = 0;
		R->failed = 1;
	} else if (stopped) {
		R->interrupted = 1;
	} else if (!exit_code_ok(&cs->settings, res)) {
		struct sbuf msg = SBUF_INIT;
		describe_failure(res, &u->p, &msg);
		if (res->status == CHILD_EXITED && !res->timed_out) {
			sbuf_adds(&msg, " (exit_codes allows");
			for (size_t e = 0; e < cs->settings.nr_exit_codes; e++)
				sbuf_addf(&msg, "%s %d", e ? "," : "",
					  cs->settings.exit_codes[e]);
			sbuf_addch(&msg, ')');
		}
		char *tail = proc_mask_secrets(res->stderr_tail.buf, u->p.env.v);
		set_error(cr, label, msg.buf, tail);
		free(tail);
		sbuf_release(&msg);
		u->ok = 0;
		R->failed = 1;
	} else if (!is_warm) {
		u->measured++;
		u->time_ns += res->wall_ns;
		record_run(&cr->side[u->side], &cs->settings, res,
			   R->work[u->side], round + 1, u->measured);
		if (have_reading)
			perf_record(R->in, cs, &cr->side[u->side], u->perf_events,
				    reading, round + 1, u->measured);
	}
}

/* One planned run on its own: prepare_each hooks, then the timed run. */
static void rounds_run_one(struct rounds *R, struct unit *u, int is_warm,
			   int round)
{
	const struct execute_options *o = R->o;
	const struct bench_spec *b = R->b;
	const struct command_spec *cs = &b->commands[u->cmd];
	struct command_result *cr = &R->br->commands[u->cmd];
	struct sbuf err = SBUF_INIT;
	if (run_hooks("prepare_each", b->prepare_each, b->nr_prepare_each, b,
		      R->suite_dir[u->side], &R->ctx[u->side], o, 0, &err)) {
		set_error(cr, R->two_sided ? side_name(u->side) : NULL, err.buf,
			  NULL);
		u->ok = 0;
		R->failed = 1;
		sbuf_release(&err);
		if (*o->interrupted)
			R->interrupted = 1;
		return;
	}
	struct counters_reading reading;
	int have_reading = 0;
	int rc = run_timed(o, R->in, &R->pc, u, cs, &cr->side[u->side], !is_warm,
			   &R->res, &reading, &have_reading, &err);
	take_run(R, u, is_warm, round, &R->res, rc ? -1 : 0, err.buf,
		 R->res.interrupted || *o->interrupted, &reading, have_reading);
	sbuf_release(&err);
	if (*o->interrupted)
		R->interrupted = 1;
}

/* The table of a batch: every prepared unit's command, then the hooks. */
static void batch_table(struct rounds *R)
{
	struct runner_request q;
	runner_batch_reset(&R->batch);
	for (size_t i = 0; i < R->nr_units; i++) {
		const struct unit *u = &R->units[i];
		if (!u->prepared)
			continue;
		const struct settings *st = &R->b->commands[u->cmd].settings;
		fill_request(&u->p, 0, &q);
		q.ok_codes = st->exit_codes;
		q.nr_ok_codes = st->nr_exit_codes;
		R->unit_req[i] = runner_batch_request(&R->batch, &q);
	}
	for (int sd = 0; sd < SIDE__COUNT; sd++) {
		R->hook_req[sd] = R->batch.nr_req;
		for (size_t h = 0; R->hooks[sd] && h < R->b->nr_prepare_each; h++) {
			fill_request(&R->hooks[sd][h], 0, &q);
			runner_batch_request(&R->batch, &q);
		}
	}
}

/*
 * Plan round wr (and the rounds after it that may join, see above) into
 * one batch, run it, and take the outcomes. `owed` is round wr's share per
 * unit. Returns the number of rounds taken (at least 1).
 */
static int rounds_batch(struct rounds *R, int wr, int is_warm, int *round,
			const int *owed0, struct rng *rng)
{
	const struct bench_spec *b = R->b;
	const struct execute_options *o = R->o;
	size_t nh = b->nr_prepare_each;
	int *owed = xcalloc(R->nr_units + 1, sizeof(*owed));
	int64_t est = 0;
	int nb = 0;

	batch_table(R);
	R->nr_items = 0;
	for (size_t i = 0; i < R->nr_units; i++)
		R->proj[i] = R->units[i].measured;
	for (;; nb++) {
		int r = wr + nb, any = 0;
		if (nb > 0) {
			if (r >= R->warm_rounds + R->total_rounds ||
			    (r < R->warm_rounds) != is_warm ||
			    R->batch.nr >= BATCH_MAX_ENTRIES || R->round_ns < 0 ||
			    est + R->round_ns > BATCH_NS)
				break;
			int sure = 1;
			int floor = R->min_runs < R->max_runs ? R->min_runs : R->max_runs;
			for (size_t i = 0; i < R->nr_units; i++) {
				owed[i] = 0;
				if (!R->units[i].ok)
					continue;
				if (is_warm) {
					int done = r * R->per_round;
					owed[i] = R->warmup - done < R->per_round
							  ? R->warmup - done : R->per_round;
				} else {
					int left = R->max_runs - R->proj[i];
					owed[i] = left < R->per_round ? left : R->per_round;
					if (R->fixed <= 0 && R->proj[i] >= floor)
						sure = 0;
				}
				any |= owed[i] > 0;
			}
			if (!any || !sure)
				break;
			est += R->round_ns;
		} else {
			memcpy(owed, owed0, R->nr_units * sizeof(*owed));
		}
		ALLOC_GROW(R->rng_at, (size_t)nb + 1, R->rng_at_alloc);
		ALLOC_GROW(R->round_item, (size_t)nb + 2, R->round_item_alloc);
		R->rng_at[nb] = *rng;
		R->round_item[nb] = R->nr_items;
		size_t n = plan_round(b->settings.order, R->plan_units, owed,
				      R->nr_units, is_warm ? r : *round + nb, rng,
				      &R->seq, &R->seq_alloc);
		unsigned barrier = nb > 0 ? RUNNER_BARRIER : 0;
		for (size_t k = 0; k < n; k++) {
			struct unit *u = rounds_unit(R, &R->seq[k]);
			if (!u || !u->ok)
				continue;
			size_t i = (size_t)(u - R->units);
			ALLOC_GROW(R->items, R->nr_items + 1, R->items_alloc);
			R->items[R->nr_items++] = (struct batch_item){ i, R->batch.nr };
			for (size_t h = 0; h < nh; h++) {
				runner_batch_add(&R->batch, R->hook_req[u->side] + h,
						 (unsigned)i, barrier);
				barrier = 0;
			}
			runner_batch_add(&R->batch, R->unit_req[i], (unsigned)i, barrier);
			barrier = 0;
			R->proj[i]++;
		}
	}
	R->round_item[nb] = R->nr_items;
	free(owed);

	struct sbuf err = SBUF_INIT, why = SBUF_INIT, msg = SBUF_INIT;
	runner_run_batch(o->runner, &R->batch, &err); /* failures: per entry */
	sbuf_release(&err);

	R->failed = 0;
	int taken = 0;
	int64_t wall = 0;
	for (int rb = 0; rb < nb && !R->interrupted; rb++) {
		if (rb > 0 && R->failed) {
			*rng = R->rng_at[rb]; /* plan the rest anew */
			break;
		}
		for (size_t it = R->round_item[rb];
		     it < R->round_item[rb + 1] && !R->interrupted; it++) {
			struct unit *u = &R->units[R->items[it].unit];
			struct command_result *cr = &R->br->commands[u->cmd];
			const char *label = R->two_sided ? side_name(u->side) : NULL;
			size_t e = R->items[it].entry;
			if (!u->ok)
				continue;
			int hook_ok = 1;
			for (size_t h = 0; h < nh && hook_ok; h++, e++) {
				const struct runner_batch_entry *ent = &R->batch.entry[e];
				if (ent->res.status == CHILD_NOT_RUN) {
					R->interrupted = 1;
					break;
				}
				if (ent->res.wall_ns > 0)
					wall += ent->res.wall_ns;
				sbuf_reset(&why);
				if (ent->res.code < 0)
					sbuf_add(&why, ent->error.buf, ent->error.len);
				else if (!must_succeed_failed(&ent->res,
							      &R->hooks[u->side][h], &why))
					continue;
				sbuf_reset(&msg);
				hook_failed("prepare_each", b->prepare_each, h, why.buf, &msg);
				set_error(cr, label, msg.buf, NULL);
				u->ok = 0;
				R->failed = 1;
				hook_ok = 0;
				if (ent->res.interrupted)
					R->interrupted = 1;
			}
			if (!hook_ok || R->interrupted)
				continue;
			const struct runner_batch_entry *ent = &R->batch.entry[e];
			if (ent->res.status == CHILD_NOT_RUN) {
				R->interrupted = 1;
				break;
			}
			if (ent->res.wall_ns > 0)
				wall += ent->res.wall_ns;
			take_run(R, u, is_warm, *round, &ent->res,
				 ent->res.code < 0 ? -1 : 0, ent->error.buf,
				 ent->res.interrupted, NULL, 0);
		}
		if (!is_warm)
			(*round)++;
		taken++;
	}
	if (*o->interrupted)
		R->interrupted = 1;
	if (taken > 0 && wall > 0)
		R->round_ns = wall / taken;
	sbuf_release(&why);
	sbuf_release(&msg);
	return taken;
}

/* Measure one benchmark on every present side. */
static int execute_bench(const struct suite *s, const struct bench_spec *b,
			 size_t bench_index,
			 const struct execute_side sides[SIDE__COUNT],
			 const struct execute_options *o,
			 struct execute_instruments *in, struct bench_result *br)
{
	int interrupted = 0;
	int two_sided = sides[SIDE_BASE].present && sides[SIDE_HEAD].present;
	br->name = xstrdup(b->name);
	br->baseline = b->baseline ? xstrdup(b->baseline) : NULL;
	strvec_copy(&br->tags, &b->tags);
	br->nr_commands = b->nr_commands;
	br->commands = xcalloc(b->nr_commands, sizeof(*br->commands));
	for (size_t c = 0; c < b->nr_commands; c++) {
		struct command_result *cr = &br->commands[c];
		cr->name = xstrdup(b->commands[c].name);
		cr->command = execute_command_display(&b->commands[c].exec);
		if (b->settings.metrics.throughput.kind != WORK_NONE)
			cr->throughput_unit = xstrdup(b->settings.metrics.throughput.unit
							      ? b->settings.metrics.throughput.unit
							      : "operations");
	}

	/* Per side: workdir, variables, setup hooks. */
	char *workdir[SIDE__COUNT] = { NULL, NULL };
	char *suite_dir[SIDE__COUNT] = { NULL, NULL };
	struct vars_context ctx[SIDE__COUNT];
	int side_ok[SIDE__COUNT] = { 0, 0 };
	for (int sd = 0; sd < SIDE__COUNT; sd++) {
		if (!sides[sd].present)
			continue;
		suite_dir[sd] = side_suite_dir(s, &sides[sd]);
		workdir[sd] = xstrfmt("%s/bench-%zu", sides[sd].tmpdir, bench_index);
		ctx[sd] = (struct vars_context){
			.artifact = sides[sd].artifact, .root = sides[sd].root,
			.head_root = sides[sd].head_root, .workdir = workdir[sd],
			.env = NULL,
		};
		for (size_t c = 0; c < b->nr_commands; c++)
			br->commands[c].side[sd].present = 1;
		if (mkdir(workdir[sd], 0700) != 0) {
			struct sbuf msg = SBUF_INIT;
			sbuf_addf(&msg, "cannot create workdir '%s': %s", workdir[sd],
				  strerror(errno));
			for (size_t c = 0; c < b->nr_commands; c++)
				set_error(&br->commands[c], two_sided ? side_name(sd) : NULL,
					  msg.buf, NULL);
			sbuf_release(&msg);
			continue;
		}
		struct sbuf err = SBUF_INIT;
		if (run_hooks("setup", b->setup, b->nr_setup, b, suite_dir[sd],
			      &ctx[sd], o, 0, &err)) {
			for (size_t c = 0; c < b->nr_commands; c++)
				set_error(&br->commands[c], two_sided ? side_name(sd) : NULL,
					  err.buf, NULL);
		} else {
			side_ok[sd] = 1;
		}
		sbuf_release(&err);
		if (*o->interrupted)
			interrupted = 1;
	}

	/* Units: (side, command), base before head in the list. */
	size_t nr_units = 0;
	struct unit *units = xcalloc(2 * b->nr_commands + 1, sizeof(*units));
	int setup_interrupted = interrupted;
	for (size_t c = 0; c < b->nr_commands; c++) {
		for (int sd = 0; sd < SIDE__COUNT; sd++) {
			if (!sides[sd].present || !side_ok[sd])
				continue;
			struct unit *u = &units[nr_units++];
			const struct command_spec *cs = &b->commands[c];
			u->side = sd;
			u->cmd = c;
			strvec_init(&u->p.argv);
			strvec_init(&u->p.env);
			const struct strvec *layers[] = { &cs->settings.env, &cs->exec.env };
			struct sbuf err = SBUF_INIT;
			if (prepare_exec(&cs->exec, layers, 2, suite_dir[sd],
					 cs->settings.cwd, &ctx[sd], &u->p, &err) == 0) {
				u->ok = u->prepared = 1;
				u->p.terminal = b->terminal;
				u->p.timeout_ns = cs->exec.timeout_ns ? cs->exec.timeout_ns
								      : cs->settings.timeout_ns;
				if (cs->settings.stdout_path)
					u->p.stdout_path = join_path(workdir[sd], cs->settings.stdout_path);
				if (cs->settings.stderr_path)
					u->p.stderr_path = join_path(workdir[sd], cs->settings.stderr_path);
				if (b->stdin_spec.kind != STDIN_NONE) {
					u->p.in = &b->stdin_spec;
					if (b->stdin_spec.kind == STDIN_FILE)
						u->p.stdin_path = join_path(suite_dir[sd], b->stdin_spec.value);
				}
			} else {
				set_error(&br->commands[c], two_sided ? side_name(sd) : NULL,
					  err.buf, NULL);
			}
			sbuf_release(&err);
		}
	}

	/* Round plan: warm-up runs, then fixed or adaptive measured runs. */
	const struct settings *bs = &b->settings;
	int per_round = bs->runs_per_round > 0 ? bs->runs_per_round : 1;
	int warmup = o->warmup_override >= 0 ? o->warmup_override : bs->warmup;
	int fixed = o->runs_override > 0 ? o->runs_override : bs->runs;
	int max_runs = fixed > 0 ? fixed : bs->max_runs;
	int min_runs = fixed > 0 ? fixed : bs->min_runs;
	double work[SIDE__COUNT] = { NAN, NAN };
	for (int sd = 0; sd < SIDE__COUNT; sd++)
		if (suite_dir[sd])
			work[sd] = throughput_work(b, suite_dir[sd]);

	struct rng rng;
	rng_seed(&rng, rng_seed_from(o->seed, b->name));
	struct plan_unit *plan_units = xcalloc(nr_units + 1, sizeof(*plan_units));
	int *owed = xcalloc(nr_units + 1, sizeof(*owed));
	for (size_t i = 0; i < nr_units; i++)
		plan_units[i] = (struct plan_unit){ units[i].side, units[i].cmd };
	struct rounds R;
	memset(&R, 0, sizeof(R));
	R.b = b;
	R.o = o;
	R.in = in;
	R.br = br;
	R.units = units;
	R.nr_units = nr_units;
	R.two_sided = two_sided;
	R.work = work;
	R.suite_dir = suite_dir;
	R.ctx = ctx;
	R.plan_units = plan_units;
	R.per_round = per_round;
	R.warmup = warmup;
	R.fixed = fixed;
	R.min_runs = min_runs;
	R.max_runs = max_runs;
	R.round_ns = -1;
	R.interrupted = setup_interrupted;
	child_result_init(&R.res);
	counters_init(&R.pc, 0, 0); /* pid and events set per run */
	int perf_any = 0;
	for (size_t i = 0; i < nr_units; i++)
		if (units[i].ok) {
			units[i].perf_events = perf_plan(in, &b->commands[units[i].cmd]);
			perf_any |= units[i].perf_events != 0;
		}
	rounds_prepare_hooks(&R, side_ok);

	int warm_rounds = warmup > 0 ? rounds_for(warmup, per_round) : 0;
	int total_rounds = rounds_for(max_runs, per_round);
	R.warm_rounds = warm_rounds;
	R.total_rounds = total_rounds;
	int round = 0; /* measured rounds so far */
	for (int wr = 0; wr < warm_rounds + total_rounds && !R.interrupted;) {
		int is_warm = wr < warm_rounds;
		int any = 0;
		for (size_t i = 0; i < nr_units; i++) {
			struct unit *u = &units[i];
			owed[i] = 0;
			if (!u->ok)
				continue;
			if (is_warm) {
				int done = wr * per_round;
				owed[i] = warmup - done < per_round ? warmup - done : per_round;
			} else {
				int left = max_runs - u->measured;
				owed[i] = left < per_round ? left : per_round;
			}
			if (owed[i] > 0)
				any = 1;
		}
		if (!any)
			break;
		if (!is_warm && fixed <= 0 && round > 0) {
			/* Adaptive: stop once every unit has min_runs and min_time. */
			int need_more = 0;
			for (size_t i = 0; i < nr_units; i++) {
				struct unit *u = &units[i];
				if (u->ok && u->measured < max_runs &&
				    (u->measured < min_runs || u->time_ns < bs->min_time_ns))
					need_more = 1;
			}
			if (!need_more)
				break;
		}
		if (o->progress)
			o->progress(o->progress_data, b->name,
				    is_warm ? wr + 1 : round + 1,
				    is_warm ? warm_rounds : total_rounds, is_warm);
		if (R.hooks_ok && (is_warm || !perf_any)) {
			/* Whole rounds through the runner at once. */
			wr += rounds_batch(&R, wr, is_warm, &round, owed, &rng);
			continue;
		}
		size_t n = plan_round(bs->order, plan_units, owed, nr_units,
				      is_warm ? wr : round, &rng, &R.seq, &R.seq_alloc);
		for (size_t k = 0; k < n && !R.interrupted; k++) {
			struct unit *u = rounds_unit(&R, &R.seq[k]);
			if (!u || !u->ok)
				continue;
			rounds_run_one(&R, u, is_warm, round);
		}
		if (!is_warm)
			round++;
		wr++;
	}
	interrupted = setup_interrupted || R.interrupted;
	br->rounds = round;
	rounds_release(&R);
	for (size_t i = 0; i < nr_units; i++)
		perf_mark_uncounted(in, &b->commands[units[i].cmd],
				    &br->commands[units[i].cmd].side[units[i].side]);

	/* Untimed instrumented runs, planned like the timed ones. */
	if (!interrupted)
		interrupted = instrument_bench(s, b, bench_index, sides, o, in, br,
					       units, nr_units, plan_units, &rng,
					       (const char *const *)workdir);

	/* Cleanup runs whatever happened, on every side that was set up. */
	for (int sd = 0; sd < SIDE__COUNT; sd++) {
		if (!side_ok[sd])
			continue;
		struct sbuf err = SBUF_INIT;
		if (run_hooks("cleanup", b->cleanup, b->nr_cleanup, b, suite_dir[sd],
			      &ctx[sd], o, RUNNER_CLEAR_INTERRUPT, &err))
			for (size_t c = 0; c < b->nr_commands; c++)
				set_error(&br->commands[c], two_sided ? side_name(sd) : NULL,
					  err.buf, NULL);
		sbuf_release(&err);
	}

	/* Statuses of requested metrics that produced nothing, and summaries. */
	for (size_t c = 0; c < b->nr_commands; c++) {
		struct command_result *cr = &br->commands[c];
		const struct command_spec *cs = &b->commands[c];
		cr->rounds = round;
		mark_instr_unsupported(in, cs, cr);
		for (int sd = 0; sd < SIDE__COUNT; sd++)
			for (int m = 0; m < METRIC__COUNT; m++)
				cr->side[sd].metric[m].required =
					!cs->settings.metrics.unsupported_skip &&
					execute_metric_required(cs, (enum metric_id)m);
		for (int sd = 0; sd < SIDE__COUNT; sd++) {
			struct side_result *sr = &cr->side[sd];
			if (!sr->present)
				continue;
			for (int m = 0; m < METRIC__COUNT; m++) {
				struct metric_series *ms = &sr->metric[m];
				if (ms->status == MSTATUS_OK) {
					double *v = xcalloc(ms->nr + 1, sizeof(*v));
					for (size_t i = 0; i < ms->nr; i++)
						v[i] = ms->samples[i].value;
					summary_compute(&ms->summary, v, ms->nr);
					ms->have_summary = 1;
					free(v);
				} else if (m == METRIC_THROUGHPUT &&
					   metric_requested(&cs->settings, METRIC_THROUGHPUT) &&
					   isnan(work[sd])) {
					metric_series_set_status(ms, MSTATUS_FAILED,
								 "the throughput work file could not be read");
				}
			}
		}
		/* Budgets apply to the head side (the side `run` measures). */
		cr->nr_budgets = cs->nr_budgets;
		cr->budgets = xcalloc(cs->nr_budgets + 1, sizeof(*cr->budgets));
		for (size_t i = 0; i < cs->nr_budgets; i++)
			budget_evaluate(&cs->budgets[i],
					&cr->side[SIDE_HEAD].metric[cs->budgets[i].metric],
					&cr->budgets[i]);
	}

	for (size_t i = 0; i < nr_units; i++)
		prepared_release(&units[i].p);
	free(units);
	free(plan_units);
	free(owed);
	for (int sd = 0; sd < SIDE__COUNT; sd++) {
		free(workdir[sd]);
		free(suite_dir[sd]);
	}
	return interrupted ? -1 : 0;
}

int execute_suite(const struct suite *s, const unsigned char *selected,
		  const struct execute_side sides[SIDE__COUNT],
		  const struct execute_options *o, struct suite_result *out)
{
	out->name = xstrdup(s->name);
	out->file = xstrdup(s->file);
	size_t n = 0;
	for (size_t i = 0; i < s->nr_benches; i++)
		n += selected[i] != 0;
	out->benches = xcalloc(n + 1, sizeof(*out->benches));
	struct execute_instruments local;
	memset(&local, 0, sizeof(local));
	struct execute_instruments *in = o->instruments ? o->instruments : &local;
	int rc = 0;
	for (size_t i = 0; i < s->nr_benches && rc == 0; i++) {
		if (!selected[i])
			continue;
		rc = execute_bench(s, &s->benches[i], i, sides, o, in,
				   &out->benches[out->nr_benches++]);
	}
	if (o->env && !o->env->counters_source && (in->used_perf || in->used_valgrind))
		o->env->counters_source = xstrdup(in->used_perf ? "perf" : "valgrind");
	execute_instruments_release(&local);
	return rc;
}
