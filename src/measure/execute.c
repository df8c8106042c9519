/*
 * execute: the round engine (execute.h). Per benchmark, execute_bench()
 * fills the command results, and per present side makes a fresh ${workdir}
 * and runs `setup`; then it prepares one unit per (side, command), plans
 * the rounds (warm-up rounds first, then a fixed count or adaptive between
 * min_runs and max_runs within min_time), runs them — whole batches of
 * rounds through the runner when no perf counters are read per run, else
 * run by run — and records each measured run's samples (wall, CPU, RSS,
 * throughput; perf readings through execute_perf.c). After the timed
 * rounds come the untimed instrumented rounds (execute_instrument.c),
 * then `cleanup` on every side that was set up (also after a failure or
 * an interrupt), the statuses of metrics that produced nothing, the
 * summaries, and the budgets of the head side.
 *
 * Commands and hooks are expanded and run by execute_prepare.c; the files'
 * shared declarations are in execute_internal.h.
 */
#include "measure/execute.h"

#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "analyze/budget.h"
#include "analyze/rng.h"
#include "base/sbuf.h"
#include "base/strvec.h"
#include "base/xalloc.h"
#include "measure/counters.h"
#include "measure/execute_internal.h"
#include "measure/proc.h"
#include "measure/runner.h"
#include "plan/plan.h"
#include "report/result.h"
#include "suite/vars.h"

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
		char *path = execute_join_path(suite_dir, w->file);
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

void execute_series_fail(struct metric_series *ms, enum metric_status st,
			 const char *reason)
{
	free(ms->samples);
	ms->samples = NULL;
	ms->nr = ms->alloc = 0;
	metric_series_set_status(ms, st, reason);
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
	struct execute_unit *units;
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
	struct execute_prepared *hooks[SIDE__COUNT];
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
			if (execute_prepare_hook("prepare_each", b->prepare_each, h, b,
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
			execute_prepared_release(&R->hooks[sd][h]);
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

static struct execute_unit *rounds_unit(struct rounds *R, const struct plan_unit *pu)
{
	struct execute_unit *u = NULL;
	for (size_t i = 0; i < R->nr_units; i++)
		if (R->units[i].side == pu->side && R->units[i].cmd == pu->command)
			u = &R->units[i];
	return u;
}

/*
 * Take the outcome of a timed run whose hooks passed: rc -1 = it could not
 * start (why); `stopped`: it was interrupted.
 */
static void take_run(struct rounds *R, struct execute_unit *u, int is_warm, int round,
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
	} else if (!execute_exit_code_ok(&cs->settings, res)) {
		struct sbuf msg = SBUF_INIT;
		execute_describe_failure(res, &u->p, &msg);
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
			execute_perf_record(R->in, cs, &cr->side[u->side], u->perf_events,
				    reading, round + 1, u->measured);
	}
}

/* One planned run on its own: prepare_each hooks, then the timed run. */
static void rounds_run_one(struct rounds *R, struct execute_unit *u, int is_warm,
			   int round)
{
	const struct execute_options *o = R->o;
	const struct bench_spec *b = R->b;
	const struct command_spec *cs = &b->commands[u->cmd];
	struct command_result *cr = &R->br->commands[u->cmd];
	struct sbuf err = SBUF_INIT;
	if (execute_run_hooks("prepare_each", b->prepare_each, b->nr_prepare_each, b,
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
	int rc = execute_run_timed(o, R->in, &R->pc, u, cs, &cr->side[u->side], !is_warm,
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
		const struct execute_unit *u = &R->units[i];
		if (!u->prepared)
			continue;
		const struct settings *st = &R->b->commands[u->cmd].settings;
		execute_fill_request(&u->p, 0, &q);
		q.ok_codes = st->exit_codes;
		q.nr_ok_codes = st->nr_exit_codes;
		R->unit_req[i] = runner_batch_request(&R->batch, &q);
	}
	for (int sd = 0; sd < SIDE__COUNT; sd++) {
		R->hook_req[sd] = R->batch.nr_req;
		for (size_t h = 0; R->hooks[sd] && h < R->b->nr_prepare_each; h++) {
			execute_fill_request(&R->hooks[sd][h], 0, &q);
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
			struct execute_unit *u = rounds_unit(R, &R->seq[k]);
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
			struct execute_unit *u = &R->units[R->items[it].unit];
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
				else if (!execute_must_succeed_failed(&ent->res,
							      &R->hooks[u->side][h], &why))
					continue;
				sbuf_reset(&msg);
				execute_hook_failed("prepare_each", b->prepare_each, h, why.buf, &msg);
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
		suite_dir[sd] = execute_side_suite_dir(s, &sides[sd]);
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
		if (execute_run_hooks("setup", b->setup, b->nr_setup, b, suite_dir[sd],
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
	struct execute_unit *units = xcalloc(2 * b->nr_commands + 1, sizeof(*units));
	int setup_interrupted = interrupted;
	for (size_t c = 0; c < b->nr_commands; c++) {
		for (int sd = 0; sd < SIDE__COUNT; sd++) {
			if (!sides[sd].present || !side_ok[sd])
				continue;
			struct execute_unit *u = &units[nr_units++];
			const struct command_spec *cs = &b->commands[c];
			u->side = sd;
			u->cmd = c;
			strvec_init(&u->p.argv);
			strvec_init(&u->p.env);
			const struct strvec *layers[] = { &cs->settings.env, &cs->exec.env };
			struct sbuf err = SBUF_INIT;
			if (execute_prepare_exec(&cs->exec, layers, 2, suite_dir[sd],
					 cs->settings.cwd, &ctx[sd], &u->p, &err) == 0) {
				u->ok = u->prepared = 1;
				u->p.terminal = b->terminal;
				u->p.timeout_ns = cs->exec.timeout_ns ? cs->exec.timeout_ns
								      : cs->settings.timeout_ns;
				if (cs->settings.stdout_path)
					u->p.stdout_path = execute_join_path(workdir[sd], cs->settings.stdout_path);
				if (cs->settings.stderr_path)
					u->p.stderr_path = execute_join_path(workdir[sd], cs->settings.stderr_path);
				if (b->stdin_spec.kind != STDIN_NONE) {
					u->p.in = &b->stdin_spec;
					if (b->stdin_spec.kind == STDIN_FILE)
						u->p.stdin_path = execute_join_path(suite_dir[sd], b->stdin_spec.value);
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
			units[i].perf_events = execute_perf_plan(in, &b->commands[units[i].cmd]);
			perf_any |= units[i].perf_events != 0;
		}
	rounds_prepare_hooks(&R, side_ok);

	int warm_rounds = warmup > 0 ? execute_rounds_for(warmup, per_round) : 0;
	int total_rounds = execute_rounds_for(max_runs, per_round);
	R.warm_rounds = warm_rounds;
	R.total_rounds = total_rounds;
	int round = 0; /* measured rounds so far */
	for (int wr = 0; wr < warm_rounds + total_rounds && !R.interrupted;) {
		int is_warm = wr < warm_rounds;
		int any = 0;
		for (size_t i = 0; i < nr_units; i++) {
			struct execute_unit *u = &units[i];
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
				struct execute_unit *u = &units[i];
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
			struct execute_unit *u = rounds_unit(&R, &R.seq[k]);
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
		execute_perf_mark_uncounted(in, &b->commands[units[i].cmd],
				    &br->commands[units[i].cmd].side[units[i].side]);

	/* Untimed instrumented runs, planned like the timed ones. */
	if (!interrupted)
		interrupted = execute_instrument_bench(s, b, bench_index, sides, o, in, br,
					       units, nr_units, plan_units, &rng,
					       (const char *const *)workdir);
	/* Untimed sampled runs for the profiles, last. */
	if (!interrupted)
		interrupted = execute_profile_bench(s, b, o, in, br, units, nr_units,
						    (const char *const *)suite_dir, ctx);

	/* Cleanup runs whatever happened, on every side that was set up. */
	for (int sd = 0; sd < SIDE__COUNT; sd++) {
		if (!side_ok[sd])
			continue;
		struct sbuf err = SBUF_INIT;
		if (execute_run_hooks("cleanup", b->cleanup, b->nr_cleanup, b, suite_dir[sd],
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
		execute_mark_unsupported(in, cs, cr);
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
		execute_prepared_release(&units[i].p);
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
