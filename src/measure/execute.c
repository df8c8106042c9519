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
 * an interrupt), and the statuses of metrics that produced nothing.
 * Summaries, budgets and comparisons are analyze/'s (analyze.h).
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

#include "model/rng.h"
#include "base/sbuf.h"
#include "base/strvec.h"
#include "base/xalloc.h"
#include "measure/counters.h"
#include "measure/execute_internal.h"
#include "proc/proc.h"
#include "measure/runner.h"
#include "measure/sysinfo.h"
#include "plan/plan.h"
#include "model/result.h"
#include "suite/vars.h"

/* Which metrics a command records in its timed runs, per the resolved
   `metrics:` settings (execute_internal.h). */
int execute_timed_metric(const struct settings *st, enum metric_id m)
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
	case GROUP_SYSCALLS:
		return 0; /* never from timed runs: see instrumented runs */
	}
	return 0;
}

static void record_run(struct side_result *sr, const struct settings *st,
		       const struct child_result *out, double work, int round, int run)
{
	double wall = (double)out->wall_ns;
	double user = (double)out->user_ns, sys = (double)out->sys_ns;
	for (int m = 0; m < METRIC__COUNT; m++) {
		if (!execute_timed_metric(st, (enum metric_id)m))
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
	side_result_add_run(sr, out->status == CHILD_EXITED ? out->exit_code : -1, user, sys);
	sr->count++;
}

/* The work of one run; NAN when file_size names no readable file (yet). */
static double throughput_work(const struct bench_spec *b, const char *suite_dir,
			      const struct vars_context *ctx)
{
	const struct throughput_work *w = &b->settings.metrics.throughput;
	if (w->kind == WORK_VALUE)
		return w->value;
	if (w->kind == WORK_FILE_SIZE) {
		struct sbuf err = SBUF_INIT;
		char *path = execute_side_path("file_size", w->file, suite_dir, ctx, &err);
		struct stat st;
		double v = path && stat(path, &st) == 0 ? (double)st.st_size : NAN;
		free(path);
		sbuf_release(&err);
		return v;
	}
	return NAN;
}

static void set_error(struct command_result *cr, const char *side_label, const char *msg,
		      const char *tail)
{
	if (cr->error)
		return; /* the first failure is the one to show */
	cr->error = side_label ? xstrfmt("%s: %s", side_label, msg) : xstrdup(msg);
	if (tail && *tail)
		cr->stderr_tail = xstrdup(tail);
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

/*
 * Memory-layout noise (`layout_noise`, on by default): every timed run,
 * warm-up or measured, gets KAGARI_LAYOUT_PAD (runner.h) of a length drawn
 * uniformly from 0..LAYOUT_PAD_RANGE-1 bytes. The environment sits at the
 * top of the stack, so its size moves where the stack starts; a whole page
 * of lengths covers every offset that matters for alignment (cache lines,
 * pages, 4 KiB aliasing) at the cost of at most one more page of stack.
 * One length is drawn per command and round, and every run of that round,
 * base and head, gets it (common random numbers): each side still sees
 * the same uniform distribution over the rounds, so the estimate averages
 * the alignment effect without bias, as a draw per run did, but the round's
 * ratio no longer carries the difference between two unrelated draws (on
 * this project's VM the sort demo's run pairs spread 11% less: MAD of
 * ln(run 2 / run 1) 3.4% with a shared pad against 3.8% with two draws),
 * and on an unchanged program the within-round control (base run 2 /
 * run 1) sees the same noise the estimate does (docs/statistics.md says
 * what a changed one costs). The length is a function of the run seed, the
 * benchmark, the command and the round (counted per unit as run number /
 * runs_per_round, so batched or not, the same --seed gives the same
 * lengths and the plan is unchanged), not of the round stream.
 * Instrumented runs (counts, not times) keep their equal-length
 * environments.
 */
#define LAYOUT_PAD_RANGE 4096

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
	double *work; /* per side; a file_size is read again while NAN */
	char *const *suite_dir;
	const struct vars_context *ctx;
	const struct plan_unit *plan_units;
	struct plan_schedule sched;
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
	int64_t round_ns;     /* wall time per round of the last batch; -1 unknown */
	uint64_t layout_seed; /* the benchmark's layout pad stream */
	/* Sequential with o->seq_min_time: a decided unit stops only after
	   this much measured time (min_time, which the schedule drops). */
	int64_t seq_min_time_ns;
};

/* The layout pad of u's n-th (1-based) warm-up or measured run: the pad
   of its round, shared by both sides; -1 when its command has
   layout_noise off. */
static int layout_pad(const struct rounds *R, const struct execute_unit *u, int warm, int n)
{
	if (!R->b->commands[u->cmd].settings.layout_noise)
		return -1;
	int round = (n - 1) / R->sched.per_round;
	uint64_t st = R->layout_seed ^ ((uint64_t)(warm != 0) << 62) ^ ((uint64_t)u->cmd << 32) ^
		      (uint32_t)round;
	return (int)(rng_splitmix64(&st) % LAYOUT_PAD_RANGE);
}

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
						 R->suite_dir[sd], &R->ctx[sd], &R->hooks[sd][h],
						 &err))
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
 * u failed (a hook or a run): it makes no more runs, and in a compare
 * neither does the other side of its command — without both sides there
 * is no comparison to measure for, and the error decides the outcome.
 */
static void unit_failed(struct rounds *R, struct execute_unit *u)
{
	u->ok = 0;
	R->failed = 1;
	for (size_t i = 0; R->two_sided && i < R->nr_units; i++)
		if (R->units[i].cmd == u->cmd)
			R->units[i].ok = 0;
}

/*
 * Take the outcome of a timed run whose hooks passed: rc -1 = it could not
 * start (why); `stopped`: it was interrupted.
 */
static void take_run(struct rounds *R, struct execute_unit *u, int is_warm, int round,
		     const struct child_result *res, int rc, const char *why, int stopped,
		     const struct counters_reading *reading, int have_reading)
{
	const struct command_spec *cs = &R->b->commands[u->cmd];
	struct command_result *cr = &R->br->commands[u->cmd];
	const char *label = R->two_sided ? side_name(u->side) : NULL;
	if (rc) {
		set_error(cr, label, why, NULL);
		unit_failed(R, u);
	} else if (stopped) {
		R->interrupted = 1;
	} else if (!execute_exit_code_ok(&cs->settings, res)) {
		struct sbuf msg = SBUF_INIT;
		execute_describe_failure(res, &u->p, &msg);
		if (res->status == CHILD_EXITED && !res->timed_out) {
			sbuf_adds(&msg, " (exit_codes allows");
			for (size_t e = 0; e < cs->settings.nr_exit_codes; e++)
				sbuf_addf(&msg, "%s %d", e ? "," : "", cs->settings.exit_codes[e]);
			sbuf_addch(&msg, ')');
		}
		char *tail = proc_mask_secrets(res->stderr_tail.buf, u->p.env.v);
		set_error(cr, label, msg.buf, tail);
		free(tail);
		sbuf_release(&msg);
		unit_failed(R, u);
	} else if (is_warm) {
		u->warmed++;
	} else {
		u->measured++;
		u->time_ns += res->wall_ns;
		/* A file_size under ${workdir} may be written by prepare_each,
		 * after the benchmark's setup. */
		if (isnan(R->work[u->side]))
			R->work[u->side] =
			    throughput_work(R->b, R->suite_dir[u->side], &R->ctx[u->side]);
		record_run(&cr->side[u->side], &cs->settings, res, R->work[u->side], round + 1,
			   u->measured);
		if (R->o->on_run)
			R->o->on_run(R->o->on_run_data, u->side, R->b->name, cs->name, res);
		if (have_reading)
			execute_perf_record(R->in, cs, &cr->side[u->side], u->perf_events, reading,
					    round + 1, u->measured);
		int pad = layout_pad(R, u, 0, u->measured);
		if (pad >= 0)
			side_result_set_layout_pad(&cr->side[u->side], u->measured, pad);
	}
}

/* One planned run on its own: prepare_each hooks, then the timed run. */
static void rounds_run_one(struct rounds *R, struct execute_unit *u, int is_warm, int round)
{
	const struct execute_options *o = R->o;
	const struct bench_spec *b = R->b;
	const struct command_spec *cs = &b->commands[u->cmd];
	struct command_result *cr = &R->br->commands[u->cmd];
	struct sbuf err = SBUF_INIT;
	if (execute_run_hooks("prepare_each", b->prepare_each, b->nr_prepare_each, b,
			      R->suite_dir[u->side], &R->ctx[u->side], o, 0, &err)) {
		set_error(cr, R->two_sided ? side_name(u->side) : NULL, err.buf, NULL);
		unit_failed(R, u);
		sbuf_release(&err);
		if (*o->interrupted)
			R->interrupted = 1;
		return;
	}
	struct counters_reading reading;
	int have_reading = 0;
	u->p.layout_pad = layout_pad(R, u, is_warm, (is_warm ? u->warmed : u->measured) + 1);
	u->p.padded = u->p.layout_pad >= 0;
	int rc = execute_run_timed(o, R->in, &R->pc, u, cs, &cr->side[u->side], !is_warm, &R->res,
				   &reading, &have_reading, &err);
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
 * May round r = wr + nb join the batch planned so far (est: its estimated
 * length)? Not past the rounds of this phase, a look that is due, the
 * batch's size and length limits, or --max-time.
 */
static int batch_room(const struct rounds *R, int r, int nb, int is_warm, int round, int64_t est)
{
	const struct execute_options *o = R->o;
	return !(r >= R->sched.warm_rounds + R->sched.total_rounds ||
		 (r < R->sched.warm_rounds) != is_warm ||
		 (!is_warm && plan_look_due(&R->sched, round + nb)) ||
		 R->batch.nr >= BATCH_MAX_ENTRIES || R->round_ns < 0 ||
		 est + R->round_ns > BATCH_NS ||
		 /* a batch never reaches past --max-time */
		 (o->deadline_ns > 0 &&
		  sysinfo_monotonic_ns() + est + 2 * R->round_ns > o->deadline_ns));
}

/* Round r's share per unit, as projected, into owed; 1 when some unit is
   owed runs and (measured) every unit's round is certain to be planned. */
static int batch_owed(struct rounds *R, int r, int is_warm, int *owed)
{
	int sure = 1, any = 0;
	for (size_t i = 0; i < R->nr_units; i++) {
		owed[i] = 0;
		if (!R->units[i].ok || R->units[i].stopped)
			continue;
		owed[i] = plan_owed(&R->sched, r, R->proj[i]);
		if (!is_warm && !plan_round_certain(&R->sched, R->proj[i]))
			sure = 0;
		any |= owed[i] > 0;
	}
	return any && sure;
}

/* Plan one round (the nb-th of the batch, r) and add its entries: each
   unit's prepare_each hooks, then the unit; a barrier before all but the
   first round. */
static void batch_add_round(struct rounds *R, int nb, int r, int is_warm, int round,
			    const int *owed, struct rng *rng)
{
	size_t nh = R->b->nr_prepare_each;
	ALLOC_GROW(R->rng_at, (size_t)nb + 1, R->rng_at_alloc);
	ALLOC_GROW(R->round_item, (size_t)nb + 2, R->round_item_alloc);
	R->rng_at[nb] = *rng;
	R->round_item[nb] = R->nr_items;
	size_t n = plan_round(R->sched.order, R->plan_units, owed, R->nr_units,
			      is_warm ? r : round + nb, rng, &R->seq, &R->seq_alloc);
	unsigned barrier = nb > 0 ? RUNNER_BARRIER : 0;
	for (size_t k = 0; k < n; k++) {
		struct execute_unit *u = rounds_unit(R, &R->seq[k]);
		if (!u || !u->ok)
			continue;
		size_t i = (size_t)(u - R->units);
		ALLOC_GROW(R->items, R->nr_items + 1, R->items_alloc);
		R->items[R->nr_items++] = (struct batch_item){i, R->batch.nr};
		for (size_t h = 0; h < nh; h++) {
			runner_batch_add(&R->batch, R->hook_req[u->side] + h, (unsigned)i, barrier);
			barrier = 0;
		}
		size_t e = runner_batch_add(&R->batch, R->unit_req[i], (unsigned)i, barrier);
		R->batch.entry[e].layout_pad = layout_pad(R, u, is_warm, R->proj[i] + 1);
		barrier = 0;
		R->proj[i]++;
	}
}

/* Plan round wr and the rounds that may join it into the batch; returns
   how many rounds it holds. */
static int batch_plan(struct rounds *R, int wr, int is_warm, int round, const int *owed0,
		      struct rng *rng)
{
	int *owed = xcalloc(R->nr_units + 1, sizeof(*owed));
	int64_t est = 0;
	int nb = 0;
	batch_table(R);
	R->nr_items = 0;
	for (size_t i = 0; i < R->nr_units; i++)
		R->proj[i] = is_warm ? R->units[i].warmed : R->units[i].measured;
	for (;; nb++) {
		int r = wr + nb;
		if (nb > 0) {
			if (!batch_room(R, r, nb, is_warm, round, est) ||
			    !batch_owed(R, r, is_warm, owed))
				break;
			est += R->round_ns;
		} else {
			memcpy(owed, owed0, R->nr_units * sizeof(*owed));
		}
		batch_add_round(R, nb, r, is_warm, round, owed, rng);
	}
	R->round_item[nb] = R->nr_items;
	free(owed);
	return nb;
}

/* The outcomes of item it's prepare_each hooks; 0 when one failed (the
   unit is done) or the batch was interrupted. *e: past the hooks. */
static int batch_take_hooks(struct rounds *R, struct execute_unit *u, size_t *e, int64_t *wall,
			    struct sbuf *why, struct sbuf *msg)
{
	const struct bench_spec *b = R->b;
	struct command_result *cr = &R->br->commands[u->cmd];
	for (size_t h = 0; h < b->nr_prepare_each; h++, (*e)++) {
		const struct runner_batch_entry *ent = &R->batch.entry[*e];
		if (ent->res.status == CHILD_NOT_RUN) {
			R->interrupted = 1;
			return 0;
		}
		if (ent->res.wall_ns > 0)
			*wall += ent->res.wall_ns;
		sbuf_reset(why);
		if (ent->res.code < 0)
			sbuf_add(why, ent->error.buf, ent->error.len);
		else if (!execute_must_succeed_failed(&ent->res, &R->hooks[u->side][h], why))
			continue;
		sbuf_reset(msg);
		execute_hook_failed("prepare_each", b->prepare_each, h, why->buf, msg);
		set_error(cr, R->two_sided ? side_name(u->side) : NULL, msg->buf, NULL);
		unit_failed(R, u);
		if (ent->res.interrupted)
			R->interrupted = 1;
		return 0;
	}
	return !R->interrupted;
}

/* Take round rb of the batch: each item's hooks, then its run. */
static void batch_take_round(struct rounds *R, int rb, int is_warm, int round, int64_t *wall,
			     struct sbuf *why, struct sbuf *msg)
{
	for (size_t it = R->round_item[rb]; it < R->round_item[rb + 1] && !R->interrupted; it++) {
		struct execute_unit *u = &R->units[R->items[it].unit];
		size_t e = R->items[it].entry;
		if (!u->ok || !batch_take_hooks(R, u, &e, wall, why, msg))
			continue;
		const struct runner_batch_entry *ent = &R->batch.entry[e];
		if (ent->res.status == CHILD_NOT_RUN) {
			R->interrupted = 1;
			break;
		}
		if (ent->res.wall_ns > 0)
			*wall += ent->res.wall_ns;
		take_run(R, u, is_warm, round, &ent->res, ent->res.code < 0 ? -1 : 0,
			 ent->error.buf, ent->res.interrupted, NULL, 0);
	}
}

/*
 * Plan round wr (and the rounds after it that may join, see above) into
 * one batch, run it, and take the outcomes. `owed` is round wr's share per
 * unit. Returns the number of rounds taken (at least 1).
 */
static int rounds_batch(struct rounds *R, int wr, int is_warm, int *round, const int *owed0,
			struct rng *rng)
{
	int nb = batch_plan(R, wr, is_warm, *round, owed0, rng);

	struct sbuf err = SBUF_INIT, why = SBUF_INIT, msg = SBUF_INIT;
	runner_run_batch(R->o->runner, &R->batch, &err); /* failures: per entry */
	sbuf_release(&err);

	R->failed = 0;
	int taken = 0;
	int64_t wall = 0;
	for (int rb = 0; rb < nb && !R->interrupted; rb++) {
		if (rb > 0 && R->failed) {
			*rng = R->rng_at[rb]; /* plan the rest anew */
			break;
		}
		batch_take_round(R, rb, is_warm, *round, &wall, &why, &msg);
		if (!is_warm)
			(*round)++;
		taken++;
	}
	if (*R->o->interrupted)
		R->interrupted = 1;
	if (taken > 0 && wall > 0)
		R->round_ns = wall / taken;
	sbuf_release(&why);
	sbuf_release(&msg);
	return taken;
}

/* ---- one benchmark ---------------------------------------------------- */

/* What the steps of execute_bench() share. */
struct bench_run {
	const struct suite *s;
	const struct bench_spec *b;
	const struct execute_side *sides;
	const struct execute_options *o;
	struct execute_instruments *in;
	struct bench_result *br;
	int two_sided;
	char *workdir[SIDE__COUNT];
	char *suite_dir[SIDE__COUNT];
	char *head_dir[SIDE__COUNT]; /* the suite's folder in the head tree */
	struct vars_context ctx[SIDE__COUNT];
	int side_ok[SIDE__COUNT];
	struct execute_unit *units; /* (side, command), base before head */
	size_t nr_units;
	struct plan_unit *plan_units;
	double work[SIDE__COUNT];
	int interrupted;
};

static void bench_fail_all(struct bench_run *B, int sd, const char *msg)
{
	for (size_t c = 0; c < B->b->nr_commands; c++)
		set_error(&B->br->commands[c], B->two_sided ? side_name(sd) : NULL, msg, NULL);
}

/* The result's names, commands and throughput unit. */
static void bench_result_start(struct bench_run *B)
{
	const struct bench_spec *b = B->b;
	struct bench_result *br = B->br;
	br->name = xstrdup(b->name);
	br->line = b->loc.line;
	br->baseline = b->baseline ? xstrdup(b->baseline) : NULL;
	br->compare_baseline = B->o->compare_baseline && b->baseline && b->nr_commands > 1 &&
			       !(B->sides[SIDE_BASE].present && B->sides[SIDE_HEAD].present);
	strvec_copy(&br->tags, &b->tags);
	br->nr_commands = b->nr_commands;
	br->commands = xcalloc(b->nr_commands, sizeof(*br->commands));
	for (size_t c = 0; c < b->nr_commands; c++) {
		struct command_result *cr = &br->commands[c];
		cr->name = xstrdup(b->commands[c].name);
		cr->command = execute_command_display(&b->commands[c].exec);
		strvec_copy(&cr->matrix_names, &b->commands[c].matrix_names);
		strvec_copy(&cr->matrix_values, &b->commands[c].matrix_values);
		if (b->settings.metrics.throughput.kind != WORK_NONE)
			cr->throughput_unit = xstrdup(b->settings.metrics.throughput.unit
							  ? b->settings.metrics.throughput.unit
							  : "operations");
	}
}

/* Per side: workdir, variables, setup hooks. */
static void bench_setup_sides(struct bench_run *B, size_t bench_index)
{
	const struct bench_spec *b = B->b;
	for (int sd = 0; sd < SIDE__COUNT; sd++) {
		if (!B->sides[sd].present)
			continue;
		B->suite_dir[sd] = execute_side_suite_dir(B->s, &B->sides[sd]);
		B->workdir[sd] = xstrfmt("%s/bench-%zu", B->sides[sd].tmpdir, bench_index);
		B->head_dir[sd] = execute_suite_dir_in(B->s, B->sides[sd].head_root);
		B->ctx[sd] = (struct vars_context){
		    .artifact = B->sides[sd].artifact,
		    .root = B->suite_dir[sd],
		    .head_root = B->head_dir[sd],
		    .workdir = B->workdir[sd],
		    .env = NULL,
		    .repo = B->sides[sd].root,
		    .head_repo = B->sides[sd].head_root,
		};
		for (size_t c = 0; c < b->nr_commands; c++)
			B->br->commands[c].side[sd].present = 1;
		/* A compare whose first side failed to set up has nothing to
		   compare: the other side is not set up (nor measured). */
		if (B->two_sided && sd > 0 && !B->side_ok[0])
			continue;
		if (mkdir(B->workdir[sd], 0700) != 0) {
			struct sbuf msg = SBUF_INIT;
			sbuf_addf(&msg, "cannot create workdir '%s': %s", B->workdir[sd],
				  strerror(errno));
			bench_fail_all(B, sd, msg.buf);
			sbuf_release(&msg);
			continue;
		}
		struct sbuf err = SBUF_INIT;
		if (execute_run_hooks("setup", b->setup, b->nr_setup, b, B->suite_dir[sd],
				      &B->ctx[sd], B->o, 0, &err))
			bench_fail_all(B, sd, err.buf);
		else
			B->side_ok[sd] = 1;
		sbuf_release(&err);
		if (*B->o->interrupted)
			B->interrupted = 1;
	}
}

/* Expand one unit's command; 0, or -1 with the reason in err. */
static int unit_prepare(struct bench_run *B, struct execute_unit *u, struct sbuf *err)
{
	const struct bench_spec *b = B->b;
	const struct command_spec *cs = &b->commands[u->cmd];
	int sd = u->side;
	const struct strvec *layers[] = {&cs->settings.env, &cs->exec.env};
	strvec_init(&u->p.argv);
	strvec_init(&u->p.env);
	if (execute_prepare_exec(&cs->exec, layers, 2, B->suite_dir[sd], cs->settings.cwd,
				 &B->ctx[sd], &u->p, err))
		return -1;
	u->ok = u->prepared = 1;
	u->p.terminal = b->terminal;
	u->p.timeout_ns = cs->exec.timeout_ns ? cs->exec.timeout_ns : cs->settings.timeout_ns;
	if (cs->settings.stdout_path)
		u->p.stdout_path = execute_join_path(B->workdir[sd], cs->settings.stdout_path);
	if (cs->settings.stderr_path)
		u->p.stderr_path = execute_join_path(B->workdir[sd], cs->settings.stderr_path);
	if (b->stdin_spec.kind != STDIN_NONE) {
		u->p.in = &b->stdin_spec;
		if (b->stdin_spec.kind == STDIN_FILE) {
			/* Variables expand per side; the result must stay inside
			   the repository or ${workdir}. */
			u->p.stdin_path = execute_side_path("stdin", b->stdin_spec.value,
							    B->suite_dir[sd], &B->ctx[sd], err);
			if (!u->p.stdin_path) {
				u->ok = 0;
				return -1;
			}
		}
	}
	return 0;
}

/* Units: (side, command) of every side that was set up, base first. */
static void bench_prepare_units(struct bench_run *B)
{
	const struct bench_spec *b = B->b;
	B->units = xcalloc(2 * b->nr_commands + 1, sizeof(*B->units));
	B->plan_units = xcalloc(2 * b->nr_commands + 1, sizeof(*B->plan_units));
	for (size_t c = 0; c < b->nr_commands; c++) {
		for (int sd = 0; sd < SIDE__COUNT; sd++) {
			if (!B->sides[sd].present || !B->side_ok[sd])
				continue;
			struct execute_unit *u = &B->units[B->nr_units];
			B->plan_units[B->nr_units++] = (struct plan_unit){sd, c};
			u->side = sd;
			u->cmd = c;
			struct sbuf err = SBUF_INIT;
			if (unit_prepare(B, u, &err))
				set_error(&B->br->commands[c], B->two_sided ? side_name(sd) : NULL,
					  err.buf, NULL);
			sbuf_release(&err);
		}
	}
	/* A compare measures a command only while both of its sides can. */
	for (size_t i = 0; B->two_sided && i < B->nr_units; i++) {
		int both = 0;
		for (size_t k = 0; k < B->nr_units; k++)
			both += B->units[k].cmd == B->units[i].cmd && B->units[k].ok;
		if (both < SIDE__COUNT)
			B->units[i].ok = 0;
	}
	for (int sd = 0; sd < SIDE__COUNT; sd++)
		if (B->suite_dir[sd])
			B->work[sd] = throughput_work(b, B->suite_dir[sd], &B->ctx[sd]);
}

/*
 * Identical artifacts: which commands are an A/A, judged on what setup
 * left on both sides, before any run (and cleanup) can change it.
 */
static void bench_identical(struct bench_run *B)
{
	if (!B->o->identical_artifacts || !B->two_sided || !B->side_ok[SIDE_BASE] ||
	    !B->side_ok[SIDE_HEAD])
		return;
	for (size_t c = 0; c < B->b->nr_commands; c++)
		B->br->commands[c].identical_artifact =
		    execute_same_inputs(B->b, &B->b->commands[c], B->sides, B->suite_dir, B->ctx);
}

/*
 * The runs each unit owes round wr (plan.h); 0 when the schedule is over:
 * nothing owed, or (adaptive) no unit wants another measured round.
 */
static int rounds_owed(struct rounds *R, int wr, int round, int *owed)
{
	int is_warm = wr < R->sched.warm_rounds, any = 0, more = 0;
	for (size_t i = 0; i < R->nr_units; i++) {
		const struct execute_unit *u = &R->units[i];
		int on = u->ok && !u->stopped;
		owed[i] = on ? plan_owed(&R->sched, wr, u->measured) : 0;
		any |= owed[i] > 0;
		more |= on && plan_wants_more(&R->sched, u->measured, u->time_ns);
	}
	if (!is_warm && R->sched.fixed <= 0 && round > 0 && !more)
		return 0;
	return any;
}

/* Is the cap of the whole compare (--max-time) spent? */
static int deadline_passed(const struct execute_options *o)
{
	return o->deadline_ns > 0 && sysinfo_monotonic_ns() >= o->deadline_ns;
}

/*
 * The --max-time cap is spent: no unit starts another run, and the
 * commands that were still measuring say so (out_of_time), so that their
 * comparisons end inconclusive with that reason.
 */
static void rounds_out_of_time(struct rounds *R)
{
	for (size_t i = 0; i < R->nr_units; i++) {
		struct execute_unit *u = &R->units[i];
		if (u->ok && !u->stopped)
			R->br->commands[u->cmd].out_of_time = 1;
		u->stopped = 1;
	}
}

/*
 * Sequential rounds, after `round` measured rounds: the running commands'
 * rounds, then at a look the analysis (o->look) stops the decided
 * commands. Past max_time (measured time of the benchmark) or the
 * deadline of the whole compare, every command stops. Returns 1 when
 * nothing runs on.
 */
static int rounds_look(struct rounds *R, int round)
{
	const struct execute_options *o = R->o;
	size_t nc = R->br->nr_commands;
	int64_t spent = 0;
	if (!R->sched.sequential || round <= 0)
		return 0;
	for (size_t i = 0; i < R->nr_units; i++) {
		spent += R->units[i].time_ns;
		if (R->units[i].ok && !R->units[i].stopped)
			R->br->commands[R->units[i].cmd].rounds = round;
	}
	int64_t cap = R->sched.max_time_ns == MAX_TIME_PER_COMMAND
			  ? MAX_TIME_COMMAND_NS * (int64_t)nc
			  : R->sched.max_time_ns;
	if (deadline_passed(o)) {
		rounds_out_of_time(R);
		return 1;
	}
	if (cap > 0 && spent >= cap) {
		for (size_t i = 0; i < R->nr_units; i++) {
			struct execute_unit *u = &R->units[i];
			/* An undecided verdict says the cap, not an interrupt,
			   ended its rounds (analyze.c's seq_stop_reason()). */
			if (u->ok && !u->stopped)
				R->br->commands[u->cmd].max_time_reached = 1;
			u->stopped = 1;
		}
		return 1;
	}
	if (!plan_look_due(&R->sched, round) || !o->look)
		return 0;
	unsigned char *decided = xcalloc(nc + 1, 1);
	o->look(o->look_data, R->br, decided);
	int running = 0;
	struct execute_unit *baseline = NULL;
	for (size_t i = 0; i < R->nr_units; i++) {
		struct execute_unit *u = &R->units[i];
		if (decided[u->cmd] && u->time_ns >= R->seq_min_time_ns)
			u->stopped = 1;
		if (R->br->compare_baseline && R->br->baseline &&
		    !strcmp(R->br->commands[u->cmd].name, R->br->baseline))
			baseline = u;
		else
			running |= u->ok && !u->stopped;
	}
	/* Compared with the baseline in the same rounds: it runs while any
	   other command does. */
	if (baseline && running)
		baseline->stopped = 0;
	if (baseline)
		running |= baseline->ok && !baseline->stopped;
	free(decided);
	return !running;
}

/* The timed rounds, warm-up first; returns the measured rounds made. */
static int bench_timed_rounds(struct bench_run *B, struct rng *rng)
{
	const struct execute_options *o = B->o;
	struct rounds R;
	memset(&R, 0, sizeof(R));
	R = (struct rounds){.b = B->b,
			    .o = o,
			    .in = B->in,
			    .br = B->br,
			    .units = B->units,
			    .nr_units = B->nr_units,
			    .two_sided = B->two_sided,
			    .work = B->work,
			    .suite_dir = B->suite_dir,
			    .ctx = B->ctx,
			    .plan_units = B->plan_units,
			    .round_ns = -1,
			    .interrupted = B->interrupted};
	char *label = xstrfmt("layout/%s", B->b->name);
	R.layout_seed = rng_seed_from(o->seed, label);
	free(label);
	plan_schedule_init(&R.sched, &B->b->settings, o->runs_override, o->warmup_override);
	if (o->seq_min_time)
		R.seq_min_time_ns = R.sched.min_time_ns;
	if (o->sequential && (B->two_sided || B->br->compare_baseline))
		plan_make_sequential(&R.sched, &B->b->settings);
	for (size_t c = 0; c < B->br->nr_commands; c++) {
		B->br->commands[c].analysis.sequential = R.sched.sequential;
		B->br->commands[c].analysis.max_rounds = R.sched.total_rounds;
	}
	child_result_init(&R.res);
	counters_init(&R.pc, 0, 0); /* pid and events set per run */
	int perf_any = 0;
	for (size_t i = 0; i < B->nr_units; i++)
		if (B->units[i].ok) {
			B->units[i].perf_events =
			    execute_perf_plan(B->in, &B->b->commands[B->units[i].cmd]);
			perf_any |= B->units[i].perf_events != 0;
		}
	rounds_prepare_hooks(&R, B->side_ok);
	int *owed = xcalloc(B->nr_units + 1, sizeof(*owed));
	int round = 0, last = R.sched.warm_rounds + R.sched.total_rounds;
	for (int wr = 0; wr < last && !R.interrupted && rounds_owed(&R, wr, round, owed);) {
		int is_warm = wr < R.sched.warm_rounds;
		/* --max-time is a cap: no round starts once it is spent. */
		if (deadline_passed(o)) {
			rounds_out_of_time(&R);
			break;
		}
		if (o->progress)
			o->progress(o->progress_data, B->b->name, is_warm ? wr + 1 : round + 1,
				    is_warm ? R.sched.warm_rounds : R.sched.total_rounds, is_warm);
		if (R.hooks_ok && (is_warm || !perf_any)) {
			/* Whole rounds through the runner at once. */
			wr += rounds_batch(&R, wr, is_warm, &round, owed, rng);
			if (!is_warm && rounds_look(&R, round))
				break;
			continue;
		}
		size_t n = plan_round(R.sched.order, B->plan_units, owed, B->nr_units,
				      is_warm ? wr : round, rng, &R.seq, &R.seq_alloc);
		for (size_t k = 0; k < n && !R.interrupted; k++) {
			struct execute_unit *u = rounds_unit(&R, &R.seq[k]);
			/* Not even within a round: the runs made stay, a round
			   left half-made pairs what it has. */
			if (deadline_passed(o)) {
				rounds_out_of_time(&R);
				break;
			}
			if (u && u->ok)
				rounds_run_one(&R, u, is_warm, round);
		}
		round += !is_warm;
		wr++;
		if (!is_warm && rounds_look(&R, round))
			break;
	}
	B->interrupted |= R.interrupted;
	free(owed);
	rounds_release(&R);
	return round;
}

/* Cleanup runs whatever happened, on every side that was set up. */
static void bench_cleanup(struct bench_run *B)
{
	for (int sd = 0; sd < SIDE__COUNT; sd++) {
		if (!B->side_ok[sd])
			continue;
		struct sbuf err = SBUF_INIT;
		if (execute_run_hooks("cleanup", B->b->cleanup, B->b->nr_cleanup, B->b,
				      B->suite_dir[sd], &B->ctx[sd], B->o, RUNNER_CLEAR_INTERRUPT,
				      &err))
			bench_fail_all(B, sd, err.buf);
		sbuf_release(&err);
	}
}

/*
 * Statuses of requested metrics that produced nothing. Summaries, budgets
 * and comparisons come later, from analyze/ (analyze.h).
 */
static void bench_statuses(struct bench_run *B, int round)
{
	for (size_t c = 0; c < B->b->nr_commands; c++) {
		struct command_result *cr = &B->br->commands[c];
		const struct command_spec *cs = &B->b->commands[c];
		if (!cr->analysis.sequential || !cr->rounds)
			cr->rounds = round;
		execute_mark_unsupported(B->in, cs, cr);
		for (int sd = 0; sd < SIDE__COUNT; sd++)
			for (int m = 0; m < METRIC__COUNT; m++)
				cr->side[sd].metric[m].required =
				    !cs->settings.metrics.unsupported_skip &&
				    execute_metric_required(cs, (enum metric_id)m);
		for (int sd = 0; sd < SIDE__COUNT; sd++) {
			struct metric_series *ms = &cr->side[sd].metric[METRIC_THROUGHPUT];
			if (cr->side[sd].present && ms->status != MSTATUS_OK &&
			    execute_timed_metric(&cs->settings, METRIC_THROUGHPUT) &&
			    isnan(B->work[sd]))
				metric_series_set_status(
				    ms, MSTATUS_FAILED,
				    "the throughput work file could not be read");
		}
	}
}

static void bench_release(struct bench_run *B)
{
	for (size_t i = 0; i < B->nr_units; i++)
		execute_prepared_release(&B->units[i].p);
	free(B->units);
	free(B->plan_units);
	for (int sd = 0; sd < SIDE__COUNT; sd++) {
		free(B->workdir[sd]);
		free(B->suite_dir[sd]);
		free(B->head_dir[sd]);
	}
}

/* Measure one benchmark on every present side. */
static int execute_bench(const struct suite *s, const struct bench_spec *b, size_t bench_index,
			 const struct execute_side sides[SIDE__COUNT],
			 const struct execute_options *o, struct execute_instruments *in,
			 struct bench_result *br)
{
	struct bench_run B = {
	    .s = s,
	    .b = b,
	    .sides = sides,
	    .o = o,
	    .in = in,
	    .br = br,
	    .two_sided = sides[SIDE_BASE].present && sides[SIDE_HEAD].present,
	    .work = {NAN, NAN},
	};
	bench_result_start(&B);
	if (deadline_passed(o)) {
		/* --max-time spent before this benchmark: nothing of it runs,
		   not even its setup; its comparisons end inconclusive. */
		for (size_t c = 0; c < b->nr_commands; c++) {
			br->commands[c].out_of_time = 1;
			for (int sd = 0; sd < SIDE__COUNT; sd++)
				br->commands[c].side[sd].present = sides[sd].present;
		}
		bench_statuses(&B, 0);
		bench_release(&B);
		return 0;
	}
	bench_setup_sides(&B, bench_index);
	bench_prepare_units(&B);
	bench_identical(&B);

	struct rng rng;
	rng_seed(&rng, rng_seed_from(o->seed, b->name));
	int round = bench_timed_rounds(&B, &rng);
	br->rounds = round;
	for (size_t i = 0; i < B.nr_units; i++)
		execute_perf_mark_uncounted(in, &b->commands[B.units[i].cmd],
					    &br->commands[B.units[i].cmd].side[B.units[i].side]);

	/* Untimed instrumented runs, planned like the timed ones. */
	if (!B.interrupted)
		B.interrupted = execute_instrument_bench(s, b, bench_index, sides, o, in, br,
							 B.units, B.nr_units, B.plan_units, &rng,
							 (const char *const *)B.workdir);
	/* Untimed sampled runs for the profiles, last. */
	if (!B.interrupted)
		B.interrupted = execute_profile_bench(b, o, in, br, B.units, B.nr_units,
						      (const char *const *)B.suite_dir, B.ctx);
	bench_cleanup(&B);
	bench_statuses(&B, round);
	bench_release(&B);
	return B.interrupted ? -1 : 0;
}

/*
 * After measuring: counter and allocation metrics that were asked for but
 * left without a status (execute_mark_unsupported() marks what it could
 * not measure with the reason) are `unsupported`, so that none is silently
 * absent. The metric status policy is measure/'s, not cmd/'s.
 */
static void mark_unmeasured(const struct bench_spec *bs, struct bench_result *br)
{
	for (size_t c = 0; c < br->nr_commands && c < bs->nr_commands; c++) {
		for (int m = 0; m < METRIC__COUNT; m++) {
			if (!(metric_get(m)->group == GROUP_COUNTERS ||
			      metric_get(m)->group == GROUP_ALLOCATIONS ||
			      metric_get(m)->group == GROUP_SYSCALLS) ||
			    !execute_metric_asked(&bs->commands[c], (enum metric_id)m))
				continue;
			for (int sd = 0; sd < SIDE__COUNT; sd++) {
				struct side_result *sr = &br->commands[c].side[sd];
				if (sr->present && sr->count &&
				    sr->metric[m].status == MSTATUS_ABSENT)
					metric_series_set_status(
					    &sr->metric[m], MSTATUS_UNSUPPORTED, "not measured");
			}
		}
	}
}

int execute_suite(const struct suite *s, const unsigned char *selected,
		  const struct execute_side sides[SIDE__COUNT], const struct execute_options *o,
		  struct suite_result *out)
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
	for (size_t i = 0, k = 0; i < s->nr_benches && k < out->nr_benches; i++)
		if (selected[i])
			mark_unmeasured(&s->benches[i], &out->benches[k++]);
	if (o->env && !o->env->counters_source && (in->used_perf || in->used_valgrind))
		o->env->counters_source = xstrdup(in->used_perf ? "perf" : "valgrind");
	execute_instruments_release(&local);
	return rc;
}
