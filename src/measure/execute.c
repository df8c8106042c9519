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
#include "measure/proc.h"
#include "measure/runner.h"
#include "measure/sysinfo.h"
#include "plan/plan.h"
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
};

/* Per (side, command): its prepared command and how far it has got. */
struct unit {
	int side;
	size_t cmd;
	int ok;		  /* prepared and still running */
	int measured;	  /* measured runs so far */
	int64_t time_ns;  /* sum of measured wall time */
	struct prepared p;
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
static int run_prepared(const struct execute_options *o, const struct prepared *p,
			unsigned flags, struct child_result *res, struct sbuf *why)
{
	struct runner_request req = RUNNER_REQUEST_INIT;
	req.argv = p->argv.v;
	req.envp = p->env.v;
	req.dir = p->cwd;
	req.timeout_ns = p->timeout_ns;
	req.flags = flags;
	req.out = p->stdout_path ? CHILD_OUT_FILE : CHILD_OUT_DISCARD;
	req.out_path = p->stdout_path;
	req.err = p->stderr_path ? CHILD_OUT_FILE : CHILD_OUT_DISCARD;
	req.err_path = p->stderr_path;
	if (p->in && p->in->kind == STDIN_FILE) {
		req.in = CHILD_IN_FILE;
		req.in_path = p->stdin_path;
	} else if (p->in && p->in->kind == STDIN_CONTENT) {
		req.in = CHILD_IN_CONTENT;
		req.in_data = p->in->value;
		req.in_len = strlen(p->in->value);
	} else {
		req.in = CHILD_IN_NULL;
	}
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
 * Run an untimed command (hook, build) that must exit 0. On failure the
 * reason, with the masked stderr tail, is appended to why.
 */
static int run_must_succeed(const struct execute_options *o,
			    const struct prepared *p, unsigned flags,
			    struct sbuf *why)
{
	struct child_result res = CHILD_RESULT_INIT;
	int rc = run_prepared(o, p, flags, &res, why);
	if (rc == 0 && !(res.status == CHILD_EXITED && res.exit_code == 0 &&
			 !res.timed_out && !res.interrupted)) {
		describe_failure(&res, p, why);
		char *tail = proc_mask_secrets(res.stderr_tail.buf, p->env.v);
		if (*tail)
			sbuf_addf(why, "\n--- stderr (last 2 KiB) ---\n%s", tail);
		free(tail);
		rc = -1;
	}
	child_result_release(&res);
	return rc;
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
		memset(&p, 0, sizeof(p));
		strvec_init(&p.argv);
		strvec_init(&p.env);
		const struct strvec *layers[] = { &b->settings.env, &hooks[i].env };
		struct sbuf why = SBUF_INIT;
		if (prepare_exec(&hooks[i], layers, 2, suite_dir, b->settings.cwd,
				 ctx, &p, &why)) {
			sbuf_addf(err, "%s hook %zu: %s", what, i + 1, why.buf);
			sbuf_release(&why);
			prepared_release(&p);
			return -1;
		}
		p.timeout_ns = hooks[i].timeout_ns ? hooks[i].timeout_ns : HOOK_TIMEOUT_NS;
		int rc = run_must_succeed(o, &p, flags, &why);
		if (rc) {
			char *shown = execute_command_display(&hooks[i]);
			sbuf_addf(err, "%s hook %zu (%s) failed: %s", what, i + 1,
				  shown, why.buf);
			free(shown);
		}
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
		return 0; /* refused before measuring until those land */
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

/* Measure one benchmark on every present side. */
static int execute_bench(const struct suite *s, const struct bench_spec *b,
			 size_t bench_index,
			 const struct execute_side sides[SIDE__COUNT],
			 const struct execute_options *o, struct bench_result *br)
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
				u->ok = 1;
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
	struct plan_unit *seq = NULL;
	size_t seq_alloc = 0;
	struct child_result res = CHILD_RESULT_INIT;
	for (size_t i = 0; i < nr_units; i++)
		plan_units[i] = (struct plan_unit){ units[i].side, units[i].cmd };

	int warm_rounds = warmup > 0 ? rounds_for(warmup, per_round) : 0;
	int total_rounds = rounds_for(max_runs, per_round);
	int round = 0; /* measured rounds so far */
	for (int wr = 0; wr < warm_rounds + total_rounds && !interrupted; wr++) {
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
		size_t n = plan_round(bs->order, plan_units, owed, nr_units,
				      is_warm ? wr : round, &rng, &seq, &seq_alloc);
		for (size_t k = 0; k < n && !interrupted; k++) {
			struct unit *u = NULL;
			for (size_t i = 0; i < nr_units; i++)
				if (units[i].side == seq[k].side && units[i].cmd == seq[k].command)
					u = &units[i];
			if (!u || !u->ok)
				continue;
			const struct command_spec *cs = &b->commands[u->cmd];
			struct command_result *cr = &br->commands[u->cmd];
			const char *label = two_sided ? side_name(u->side) : NULL;
			struct sbuf err = SBUF_INIT;
			if (run_hooks("prepare_each", b->prepare_each, b->nr_prepare_each,
				      b, suite_dir[u->side], &ctx[u->side], o, 0, &err)) {
				set_error(cr, label, err.buf, NULL);
				u->ok = 0;
				sbuf_release(&err);
				if (*o->interrupted)
					interrupted = 1;
				continue;
			}
			if (run_prepared(o, &u->p, 0, &res, &err)) {
				set_error(cr, label, err.buf, NULL);
				u->ok = 0;
			} else if (res.interrupted || *o->interrupted) {
				interrupted = 1;
			} else if (!exit_code_ok(&cs->settings, &res)) {
				struct sbuf msg = SBUF_INIT;
				describe_failure(&res, &u->p, &msg);
				if (res.status == CHILD_EXITED && !res.timed_out) {
					sbuf_adds(&msg, " (exit_codes allows");
					for (size_t e = 0; e < cs->settings.nr_exit_codes; e++)
						sbuf_addf(&msg, "%s %d", e ? "," : "",
							  cs->settings.exit_codes[e]);
					sbuf_addch(&msg, ')');
				}
				char *tail = proc_mask_secrets(res.stderr_tail.buf, u->p.env.v);
				set_error(cr, label, msg.buf, tail);
				free(tail);
				sbuf_release(&msg);
				u->ok = 0;
			} else if (!is_warm) {
				u->measured++;
				u->time_ns += res.wall_ns;
				record_run(&cr->side[u->side], &cs->settings, &res,
					   work[u->side], round + 1, u->measured);
			}
			sbuf_release(&err);
			if (*o->interrupted)
				interrupted = 1;
		}
		if (!is_warm)
			round++;
	}
	br->rounds = round;

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
	free(seq);
	child_result_release(&res);
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
	int rc = 0;
	for (size_t i = 0; i < s->nr_benches && rc == 0; i++) {
		if (!selected[i])
			continue;
		rc = execute_bench(s, &s->benches[i], i, sides, o,
				   &out->benches[out->nr_benches++]);
	}
	return rc;
}
