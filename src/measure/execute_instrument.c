/*
 * execute_instrument: the instruments besides the clock and rusage.
 *
 * First, what this machine has (struct execute_instruments, probed lazily:
 * perf_event_open counters, valgrind, the allocation shim) and what each
 * command asks for (execute_metric_asked/required/unsupported, and where
 * its counters come from: execute_counter_source()).
 *
 * Then the instrumented runs: after a benchmark's timed rounds,
 * execute_instrument_bench() runs separate, untimed rounds per instrument
 * (the LD_PRELOAD allocation shim of alloc.h, valgrind's instruction
 * counts and cache simulation of valgrind.h), planned like the timed rounds (same `order`,
 * `runs_per_round`, prepare_each before each run), min(timed runs,
 * regression.min_samples) runs per unit. They see ${root} and the suite's
 * folder through an equal-length link (<side tmpdir>/root), with PWD set
 * to their working folder, and write their output files into a private
 * folder per side (<side tmpdir>/i<bench>), so that both sides of a
 * compare get argv and environment strings of the same lengths. Last,
 * execute_mark_unsupported() gives every asked metric that produced
 * nothing its reason.
 *
 * Perf counters are not read here but in the timed runs (execute_perf.c).
 */
#include "measure/execute_internal.h"

#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "base/sbuf.h"
#include "base/strvec.h"
#include "base/xalloc.h"
#include "measure/alloc.h"
#include "measure/counters.h"
#include "proc/proc.h"
#include "measure/runner.h"
#include "measure/syscalls.h"
#include "measure/valgrind.h"
#include "plan/plan.h"

enum instr_mode { INSTR_ALLOC, INSTR_VALGRIND, INSTR_SYSCALLS, INSTR__COUNT };

#define VALGRIND_NO_CYCLES                                                                         \
	"valgrind runs no clock: it gives instructions, estimated_cycles (its cache "              \
	"simulation) and cache_misses; real cycles, branch misses and ipc need hardware "          \
	"counters (instrument: perf)"
#define PERF_NO_ESTIMATE                                                                           \
	"estimated_cycles is valgrind's cache simulation and `instrument: perf` runs no "          \
	"valgrind; hardware counters give the real `cycles` (or use instrument: valgrind or auto)"
#define PMU_HAS_CYCLES                                                                             \
	"hardware counters give the real `cycles` here; list estimated_cycles in "                 \
	"metrics.counters to simulate it under valgrind as well"

void execute_instruments_release(struct execute_instruments *in)
{
	counters_probe_release(&in->perf);
	free(in->perf_fallback_reason);
	free(in->valgrind);
	free(in->valgrind_version);
	free(in->valgrind_error);
	free(in->shim);
	free(in->shim_error);
	sample_probe_release(&in->sample);
	syscalls_probe_release(&in->syscalls);
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

static void probe_syscalls(struct execute_instruments *in)
{
	if (in->syscalls_probed)
		return;
	in->syscalls_probed = 1;
	syscalls_probe(&in->syscalls);
}

static void probe_shim(struct execute_instruments *in)
{
	if (in->shim_probed)
		return;
	in->shim_probed = 1;
	struct sbuf path = SBUF_INIT, err = SBUF_INIT;
	if (alloc_shim_find(in->shim_override, &path, &err))
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
	counters_probe(&in->perf, in->counters_software);
	if (!(in->perf.available & COUNTERS_BIT(COUNTERS_INSTRUCTIONS)))
		in->perf_fallback_reason =
		    xstrfmt("valgrind gives instructions, estimated_cycles and cache_misses "
			    "only, and hardware counters are unavailable here: %s",
			    in->perf.why[COUNTERS_INSTRUCTIONS]);
}

/* Where the counter metrics of this command come from (see execute.h). */
enum execute_source execute_counter_source(struct execute_instruments *in,
					   const struct command_spec *cs)
{
	switch (cs->settings.metrics.instrument) {
	case INSTRUMENT_PERF:
		return EXECUTE_SOURCE_PERF;
	case INSTRUMENT_VALGRIND:
		return EXECUTE_SOURCE_VALGRIND;
	case INSTRUMENT_AUTO:
		break;
	}
	probe_perf(in);
	return in->perf.available & COUNTERS_BIT(COUNTERS_INSTRUCTIONS) ? EXECUTE_SOURCE_PERF
									: EXECUTE_SOURCE_VALGRIND;
}

/*
 * Does valgrind measure metric m of this command? instructions and
 * cache_misses when valgrind is the command's counter source;
 * estimated_cycles then too, and under `auto` with a PMU when it is
 * required (listed, configured or in a budget), since only valgrind
 * simulates it.
 */
int execute_from_valgrind(struct execute_instruments *in, const struct command_spec *cs,
			  enum metric_id m)
{
	switch (m) {
	case METRIC_INSTRUCTIONS:
	case METRIC_CACHE_MISSES:
		return execute_counter_source(in, cs) == EXECUTE_SOURCE_VALGRIND;
	case METRIC_ESTIMATED_CYCLES:
		if (cs->settings.metrics.instrument == INSTRUMENT_PERF)
			return 0;
		return execute_counter_source(in, cs) == EXECUTE_SOURCE_VALGRIND ||
		       execute_metric_required(cs, m);
	default:
		return 0;
	}
}

/* The perf events a counter metric is made of (0 for other metrics). */
unsigned execute_perf_events_of(enum metric_id m)
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
		return COUNTERS_BIT(COUNTERS_INSTRUCTIONS) | COUNTERS_BIT(COUNTERS_CYCLES);
	default:
		return 0;
	}
}
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
	if (g != GROUP_COUNTERS && g != GROUP_ALLOCATIONS && g != GROUP_SYSCALLS)
		return 0;
	if (cs->settings.regression.metric[m].configured || named_in_budget(cs, m))
		return 1;
	if (g == GROUP_ALLOCATIONS)
		return mc->allocations;
	if (g == GROUP_SYSCALLS)
		return mc->syscalls;
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
				       const struct command_spec *cs, enum metric_id m)
{
	enum metric_group g = metric_get(m)->group;
	if (g == GROUP_ALLOCATIONS) {
		probe_shim(in);
		return in->shim ? NULL : in->shim_error;
	}
	if (g == GROUP_SYSCALLS) {
		probe_syscalls(in);
		return in->syscalls.ok ? NULL : in->syscalls.why;
	}
	if (g != GROUP_COUNTERS)
		return NULL;
	if (m == METRIC_ESTIMATED_CYCLES) {
		if (cs->settings.metrics.instrument == INSTRUMENT_PERF)
			return PERF_NO_ESTIMATE;
		if (!execute_from_valgrind(in, cs, m))
			return PMU_HAS_CYCLES;
		probe_valgrind(in);
		return in->valgrind ? NULL : in->valgrind_error;
	}
	if (execute_counter_source(in, cs) == EXECUTE_SOURCE_PERF) {
		probe_perf(in);
		unsigned need = execute_perf_events_of(m);
		for (int e = 0; e < COUNTERS__COUNT; e++)
			if ((need & COUNTERS_BIT(e)) && !(in->perf.available & COUNTERS_BIT(e)))
				return in->perf.why[e];
		return NULL;
	}
	if (!execute_from_valgrind(in, cs, m))
		return cs->settings.metrics.instrument == INSTRUMENT_AUTO &&
			       in->perf_fallback_reason
			   ? in->perf_fallback_reason
			   : VALGRIND_NO_CYCLES;
	probe_valgrind(in);
	return in->valgrind ? NULL : in->valgrind_error;
}

/* Per unit: the instrumented variant of its command and how far it got. */
struct instr_unit {
	int want[INSTR__COUNT];
	int done[INSTR__COUNT];
	int cache_sim; /* valgrind: estimated_cycles or cache_misses asked */
	/* The cache simulation runs first; later runs count instructions
	   only while they give the simulated run's count (first_ir), and
	   every run simulates once one does not (sim_every). */
	int sim_every;
	int sim_this; /* the running valgrind run simulates the caches */
	int sim_runs; /* valgrind runs made with the simulation */
	/* the runs planned before any had to simulate again: instructions
	   keeps this many samples, as every other count does */
	int count_target;
	uint64_t first_ir, first_digest; /* the simulated run's counts */
	size_t first_files;
	int target[INSTR__COUNT]; /* runs to make of each mode */
	/* syscalls: per counted run, each name's count (target x names) */
	uint64_t *sc_counts;
	struct execute_prepared p; /* equal-length paths, PWD set; no instrument yet */
};

struct instr_ctx {
	const struct suite *s;
	const struct bench_spec *b;
	const struct execute_options *o;
	struct execute_instruments *in;
	struct bench_result *br;
	struct execute_unit *units;
	size_t nr_units;
	struct instr_unit *iu;
	const char *suite_dir[SIDE__COUNT]; /* through the link */
	struct vars_context ctx[SIDE__COUNT];
	char *dir[SIDE__COUNT]; /* private output folder per side */
	int two_sided;
};

static const enum metric_id alloc_metrics[] = {METRIC_ALLOCS, METRIC_ALLOC_BYTES, METRIC_PEAK_HEAP};
static const enum metric_id valgrind_metrics[] = {METRIC_INSTRUCTIONS, METRIC_ESTIMATED_CYCLES,
						  METRIC_CACHE_MISSES};
#define NR_VALGRIND_METRICS (sizeof(valgrind_metrics) / sizeof(valgrind_metrics[0]))

/* A valgrind metric this command asks for and gets from valgrind here. */
static int valgrind_wanted(struct execute_instruments *in, const struct command_spec *cs,
			   enum metric_id m)
{
	return execute_metric_asked(cs, m) && execute_from_valgrind(in, cs, m) &&
	       !execute_metric_unsupported(in, cs, m);
}

/* estimated_cycles and cache_misses: the metrics of the cache simulation. */
static int cache_metric(enum metric_id m)
{
	return m == METRIC_ESTIMATED_CYCLES || m == METRIC_CACHE_MISSES;
}

/* Mark the metrics of one mode of one unit failed/unsupported, stop it. */
static void instr_stop(struct instr_ctx *ic, size_t i, enum instr_mode mode, enum metric_status st,
		       const char *reason)
{
	struct execute_unit *u = &ic->units[i];
	const struct command_spec *cs = &ic->b->commands[u->cmd];
	struct side_result *sr = &ic->br->commands[u->cmd].side[u->side];
	if (mode == INSTR_ALLOC) {
		for (size_t k = 0; k < sizeof(alloc_metrics) / sizeof(alloc_metrics[0]); k++)
			if (execute_metric_asked(cs, alloc_metrics[k]))
				metric_series_fail(&sr->metric[alloc_metrics[k]], st, reason);
	} else if (mode == INSTR_SYSCALLS) {
		metric_series_fail(&sr->metric[METRIC_SYSCALLS], st, reason);
	} else {
		for (size_t k = 0; k < NR_VALGRIND_METRICS; k++)
			if (valgrind_wanted(ic->in, cs, valgrind_metrics[k]))
				metric_series_fail(&sr->metric[valgrind_metrics[k]], st, reason);
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

/* The allocation counts of one finished run of unit i. */
static void instr_record_alloc(struct instr_ctx *ic, size_t i, const char *out_file, int round)
{
	struct execute_unit *u = &ic->units[i];
	struct instr_unit *iu = &ic->iu[i];
	const struct command_spec *cs = &ic->b->commands[u->cmd];
	struct side_result *sr = &ic->br->commands[u->cmd].side[u->side];
	struct sbuf err = SBUF_INIT;
	struct alloc_totals t;
	if (alloc_read(out_file, runner_pid(ic->o->runner), &t, &err)) {
		instr_stop(ic, i, INSTR_ALLOC, MSTATUS_FAILED, err.buf);
	} else if (!t.main_seen) {
		instr_stop(ic, i, INSTR_ALLOC, MSTATUS_UNSUPPORTED, alloc_unseen_reason());
	} else {
		double v[] = {(double)t.allocs, (double)t.bytes, (double)t.peak};
		iu->done[INSTR_ALLOC]++;
		for (size_t k = 0; k < sizeof(alloc_metrics) / sizeof(alloc_metrics[0]); k++)
			if (execute_metric_asked(cs, alloc_metrics[k]))
				metric_series_add(&sr->metric[alloc_metrics[k]], v[k], round,
						  iu->done[INSTR_ALLOC]);
	}
	sbuf_release(&err);
}

/* At most this many functions are kept per side, and only those with at
   least 1/FN_MIN_SHARE of the instructions: what can explain a change. */
#define FN_MAX 500
#define FN_MIN_SHARE 10000

static int by_ir_desc(const void *a, const void *b)
{
	uint64_t x = ((const struct valgrind_fn *)a)->c.ev[VG_IR];
	uint64_t y = ((const struct valgrind_fn *)b)->c.ev[VG_IR];
	return x < y   ? 1
	       : x > y ? -1
		       : strcmp(((const struct valgrind_fn *)a)->name,
				((const struct valgrind_fn *)b)->name);
}

static int fn_by_name(const void *a, const void *b)
{
	return strcmp(((const struct fn_count *)a)->name, ((const struct fn_count *)b)->name);
}

/*
 * --profile with valgrind: the per-function counts of this (the first)
 * valgrind run of a side, from the cachegrind files already written — the
 * counted profile that explains a change beside the sampled one.
 */
static void instr_record_functions(struct instr_ctx *ic, size_t i, uint64_t total_ir)
{
	struct execute_unit *u = &ic->units[i];
	struct side_result *sr = &ic->br->commands[u->cmd].side[u->side];
	struct valgrind_fn *fns = NULL;
	size_t nr = 0;
	struct sbuf err = SBUF_INIT;
	if (sr->counted_functions || valgrind_read_functions(ic->dir[u->side], &fns, &nr, &err)) {
		sbuf_release(&err);
		return;
	}
	qsort(fns, nr, sizeof(*fns), by_ir_desc);
	sr->counted_functions = xcalloc(FN_MAX + 1, sizeof(*sr->counted_functions));
	for (size_t k = 0; k < nr && k < FN_MAX; k++) {
		if (!fns[k].c.ev[VG_IR] || fns[k].c.ev[VG_IR] * FN_MIN_SHARE < total_ir)
			break;
		int cache = ic->iu[i].sim_this;
		sr->counted_functions[sr->nr_counted_functions++] = (struct fn_count){
		    .name = xstrdup(fns[k].name),
		    .instructions = (double)fns[k].c.ev[VG_IR],
		    .estimated_cycles = cache ? (double)valgrind_estimated_cycles(&fns[k].c) : NAN};
	}
	qsort(sr->counted_functions, sr->nr_counted_functions, sizeof(*sr->counted_functions),
	      fn_by_name);
	valgrind_fns_release(fns, nr);
	sbuf_release(&err);
}

/*
 * A run without the simulation counted other instructions than the
 * simulated one: the program does not run the same way every time, so
 * its misses may differ too. From now on every run of the command's units
 * (both sides, so that each has its min_samples) simulates the caches,
 * each until its cache metrics hold `target` simulated runs of their own.
 */
static void instr_sim_every(struct instr_ctx *ic, size_t cmd)
{
	for (size_t i = 0; i < ic->nr_units; i++) {
		struct instr_unit *iu = &ic->iu[i];
		if (ic->units[i].cmd != cmd || !iu->cache_sim || iu->sim_every)
			continue;
		struct side_result *sr = &ic->br->commands[cmd].side[ic->units[i].side];
		for (size_t k = 0; k < NR_VALGRIND_METRICS; k++)
			if (cache_metric(valgrind_metrics[k]))
				sr->metric[valgrind_metrics[k]].confirmed = 0;
		iu->sim_every = 1;
		iu->target[INSTR_VALGRIND] += iu->done[INSTR_VALGRIND] - iu->sim_runs;
	}
}

/* The cachegrind counts of one finished run of unit i, from its side's folder. */
static void instr_record_valgrind(struct instr_ctx *ic, size_t i, int round)
{
	struct execute_unit *u = &ic->units[i];
	struct instr_unit *iu = &ic->iu[i];
	const struct command_spec *cs = &ic->b->commands[u->cmd];
	struct side_result *sr = &ic->br->commands[u->cmd].side[u->side];
	struct sbuf err = SBUF_INIT;
	struct valgrind_counts vc;
	size_t files = 0;
	if (valgrind_read_dir(ic->dir[u->side], &vc, &files, &err)) {
		instr_stop(ic, i, INSTR_VALGRIND, MSTATUS_FAILED, err.buf);
	} else if (!files) {
		instr_stop(ic, i, INSTR_VALGRIND, MSTATUS_FAILED,
			   "valgrind wrote no cachegrind output (the program ended through "
			   "a signal or exec failed)");
	} else if (iu->sim_this && !vc.cache) {
		instr_stop(ic, i, INSTR_VALGRIND, MSTATUS_FAILED,
			   "valgrind's cachegrind output has no cache events although "
			   "--cache-sim=yes was given");
	} else {
		double v[] = {(double)vc.ev[VG_IR], (double)valgrind_estimated_cycles(&vc),
			      (double)valgrind_ll_misses(&vc)};
		/* A run counting instructions only, after the simulated one:
		   it confirms the cache metrics when each process counted the
		   simulated run's instructions (a pool's workers too). */
		int confirms = iu->cache_sim && !iu->sim_this && vc.ev[VG_IR] == iu->first_ir &&
			       vc.procs_digest == iu->first_digest && files == iu->first_files;
		if (!iu->done[INSTR_VALGRIND]) {
			iu->first_ir = vc.ev[VG_IR];
			iu->first_digest = vc.procs_digest;
			iu->first_files = files;
		}
		iu->done[INSTR_VALGRIND]++;
		iu->sim_runs += iu->sim_this;
		ic->in->used_valgrind = 1;
		if (execute_profile_wanted(ic->o, cs))
			instr_record_functions(ic, i, vc.ev[VG_IR]);
		for (size_t k = 0; k < NR_VALGRIND_METRICS; k++) {
			struct metric_series *ms = &sr->metric[valgrind_metrics[k]];
			if (!valgrind_wanted(ic->in, cs, valgrind_metrics[k]))
				continue;
			if (cache_metric(valgrind_metrics[k]) && !iu->sim_this)
				ms->confirmed += confirms;
			/* the extra simulated runs are for the cache metrics */
			else if (cache_metric(valgrind_metrics[k]) ||
				 ms->nr < (size_t)iu->count_target)
				metric_series_add(ms, v[k], round, iu->done[INSTR_VALGRIND]);
		}
		if (iu->cache_sim && !iu->sim_this && !confirms)
			instr_sim_every(ic, u->cmd);
	}
	sbuf_release(&err);
}

/* The system calls of one finished run of unit i (total, per name). */
static void instr_record_syscalls(struct instr_ctx *ic, size_t i, int round, uint64_t total,
				  const uint64_t *counts)
{
	struct execute_unit *u = &ic->units[i];
	struct instr_unit *iu = &ic->iu[i];
	struct side_result *sr = &ic->br->commands[u->cmd].side[u->side];
	size_t nr = ic->in->syscalls.nr;
	if (iu->done[INSTR_SYSCALLS] >= iu->target[INSTR_SYSCALLS])
		return;
	if (!iu->sc_counts)
		iu->sc_counts =
		    xcalloc((size_t)iu->target[INSTR_SYSCALLS] * nr + 1, sizeof(*iu->sc_counts));
	memcpy(iu->sc_counts + (size_t)iu->done[INSTR_SYSCALLS] * nr, counts, nr * sizeof(*counts));
	iu->done[INSTR_SYSCALLS]++;
	metric_series_add(&sr->metric[METRIC_SYSCALLS], (double)total, round,
			  iu->done[INSTR_SYSCALLS]);
}

static int cmp_u64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
	return x < y ? -1 : x > y;
}

/* After the rounds: each call name's median count per run on unit i's side. */
static void instr_syscall_names(struct instr_ctx *ic, size_t i)
{
	struct execute_unit *u = &ic->units[i];
	struct instr_unit *iu = &ic->iu[i];
	struct side_result *sr = &ic->br->commands[u->cmd].side[u->side];
	size_t nr = ic->in->syscalls.nr, runs = (size_t)iu->done[INSTR_SYSCALLS];
	if (!iu->sc_counts || !runs)
		return;
	uint64_t *col = xcalloc(runs, sizeof(*col));
	sr->syscall_names = xcalloc(nr + 1, sizeof(*sr->syscall_names));
	for (size_t n = 0; n < nr; n++) {
		for (size_t r = 0; r < runs; r++)
			col[r] = iu->sc_counts[r * nr + n];
		qsort(col, runs, sizeof(*col), cmp_u64);
		double med = runs % 2 ? (double)col[runs / 2]
				      : ((double)col[runs / 2 - 1] + (double)col[runs / 2]) / 2;
		if (med > 0)
			sr->syscall_names[sr->nr_syscall_names++] = (struct name_count){
			    .name = xstrdup(ic->in->syscalls.names[n]), .count = med};
	}
	free(col);
}

/*
 * The command line, environment and timeout of an instrumented run of
 * `mode`: the allocation shim preloaded, the command under valgrind, or as
 * it is (system calls are counted from outside).
 */
static void instr_command(struct instr_ctx *ic, struct instr_unit *iu, enum instr_mode mode,
			  const char *dir, const char *out_file, struct execute_prepared *run)
{
	strvec_init(&run->argv);
	strvec_init(&run->env);
	strvec_copy(&run->env, &iu->p.env);
	if (mode == INSTR_VALGRIND) {
		/* The simulation costs about twice a plain count (docs/suite.md):
		   once per side, unless the counts show it must be every time. */
		iu->sim_this = iu->cache_sim && (!iu->done[INSTR_VALGRIND] || iu->sim_every);
		valgrind_wrap_argv(ic->in->valgrind, iu->p.argv.v, dir, iu->sim_this, &run->argv);
		run->timeout_ns = iu->p.timeout_ns ? iu->p.timeout_ns * VALGRIND_TIMEOUT_FACTOR : 0;
		return;
	}
	strvec_copy(&run->argv, &iu->p.argv);
	if (mode == INSTR_ALLOC)
		alloc_env_setup(&run->env, ic->in->shim, out_file);
	run->timeout_ns = iu->p.timeout_ns ? iu->p.timeout_ns * 2 : 0;
}

static const char *const instr_what[INSTR__COUNT] = {
    [INSTR_ALLOC] = "allocation-counting",
    [INSTR_VALGRIND] = "valgrind",
    [INSTR_SYSCALLS] = "syscall-counting",
};

/* Run one instrumented run of unit i; returns 1 when interrupted. */
static int instr_run(struct instr_ctx *ic, size_t i, enum instr_mode mode, int round,
		     struct child_result *res)
{
	struct execute_unit *u = &ic->units[i];
	struct instr_unit *iu = &ic->iu[i];
	const struct execute_options *o = ic->o;
	const struct command_spec *cs = &ic->b->commands[u->cmd];
	const char *dir = ic->dir[u->side];
	const char *what = instr_what[mode];
	struct sbuf err = SBUF_INIT, msg = SBUF_INIT;
	int interrupted = 0;

	if (execute_run_hooks("prepare_each", ic->b->prepare_each, ic->b->nr_prepare_each, ic->b,
			      ic->suite_dir[u->side], &ic->ctx[u->side], o, 0, &err)) {
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

	struct execute_prepared run = iu->p; /* shallow: argv/env replaced below */
	char *out_file = xstrfmt("%s/alloc", dir);
	instr_command(ic, iu, mode, dir, out_file, &run);
	struct syscalls_counter sc = SYSCALLS_COUNTER_INIT;
	struct sbuf sc_err = SBUF_INIT;
	uint64_t sc_total = 0, *sc_names = NULL;
	int counted = 0;
	if (mode == INSTR_SYSCALLS &&
	    syscalls_begin(&sc, &ic->in->syscalls, runner_pid(o->runner), &err)) {
		instr_stop(ic, i, mode, MSTATUS_FAILED, err.buf);
		goto done;
	}
	int rc = execute_run_prepared(o, &run, 0, res, &err);
	if (mode == INSTR_SYSCALLS) {
		sc_names = xcalloc(ic->in->syscalls.nr + 1, sizeof(*sc_names));
		counted = syscalls_end(&sc, &sc_total, sc_names, &sc_err) == 0;
		syscalls_release(&sc);
	}
	if (rc) {
		sbuf_addf(&msg, "the %s run could not start: %s", what, err.buf);
		instr_stop(ic, i, mode, MSTATUS_FAILED, msg.buf);
	} else if (res->interrupted || *o->interrupted) {
		interrupted = 1;
	} else if (!execute_exit_code_ok(&cs->settings, res)) {
		sbuf_addf(&msg, "the %s run ", what);
		execute_describe_failure(res, &run, &msg);
		char *tail = proc_mask_secrets(res->stderr_tail.buf, run.env.v);
		if (*tail)
			sbuf_addf(&msg, "; stderr ends: %s", tail);
		free(tail);
		instr_stop(ic, i, mode, MSTATUS_FAILED, msg.buf);
	} else if (mode == INSTR_ALLOC) {
		instr_record_alloc(ic, i, out_file, round);
	} else if (mode == INSTR_VALGRIND) {
		instr_record_valgrind(ic, i, round);
	} else if (!counted) {
		instr_stop(ic, i, mode, MSTATUS_FAILED, sc_err.buf);
	} else {
		instr_record_syscalls(ic, i, round, sc_total, sc_names);
	}
done:
	sbuf_release(&sc_err);
	free(sc_names);
	free(out_file);
	strvec_clear(&run.argv);
	strvec_clear(&run.env);
out:
	if (*o->interrupted)
		interrupted = 1;
	sbuf_release(&err);
	sbuf_release(&msg);
	return interrupted;
}

/* The metrics a mode's runs give unit i (asked and measured here). */
static size_t mode_metrics(struct instr_ctx *ic, size_t i, enum instr_mode mode,
			   enum metric_id *out)
{
	const struct command_spec *cs = &ic->b->commands[ic->units[i].cmd];
	size_t n = 0;
	if (mode == INSTR_ALLOC) {
		for (size_t k = 0; k < sizeof(alloc_metrics) / sizeof(alloc_metrics[0]); k++)
			if (execute_metric_asked(cs, alloc_metrics[k]))
				out[n++] = alloc_metrics[k];
	} else if (mode == INSTR_VALGRIND) {
		for (size_t k = 0; k < NR_VALGRIND_METRICS; k++)
			if (valgrind_wanted(ic->in, cs, valgrind_metrics[k]))
				out[n++] = valgrind_metrics[k];
	} else {
		out[n++] = METRIC_SYSCALLS;
	}
	return n;
}

/* Has unit i made METRIC_EXACT_RUNS runs of mode, all alike in every metric
   (the cache metrics: their simulated runs alike, the others confirming)? */
static int unit_exact(struct instr_ctx *ic, size_t i, enum instr_mode mode)
{
	struct execute_unit *u = &ic->units[i];
	const struct side_result *sr = &ic->br->commands[u->cmd].side[u->side];
	enum metric_id ms[METRIC__COUNT];
	size_t n = mode_metrics(ic, i, mode, ms);
	if (ic->iu[i].done[mode] < METRIC_EXACT_RUNS)
		return 0;
	for (size_t k = 0; k < n; k++) {
		const struct metric_series *s = &sr->metric[ms[k]];
		if (s->status != MSTATUS_OK || s->nr + (size_t)s->confirmed < METRIC_EXACT_RUNS)
			return 0;
		for (size_t j = 1; j < s->nr; j++)
			if (s->samples[j].value != s->samples[0].value)
				return 0;
	}
	return 1;
}

/*
 * Deterministic counts decide fast: a command whose every unit (each side)
 * wanting mode has made METRIC_EXACT_RUNS runs with the same counts in
 * each stops there; if one side varies, both go on to the full target so
 * that the comparison has its min_samples on each.
 */
static void instr_settle(struct instr_ctx *ic, enum instr_mode mode)
{
	for (size_t c = 0; c < ic->b->nr_commands; c++) {
		int units = 0, exact = 1;
		for (size_t i = 0; i < ic->nr_units; i++) {
			if (ic->units[i].cmd != c || !ic->iu[i].want[mode])
				continue;
			units++;
			exact = exact && unit_exact(ic, i, mode);
		}
		if (!units || !exact)
			continue;
		for (size_t i = 0; i < ic->nr_units; i++)
			if (ic->units[i].cmd == c && ic->iu[i].want[mode])
				ic->iu[i].target[mode] = ic->iu[i].done[mode];
	}
}

/*
 * After the timed rounds: the instrumented rounds of every mode some unit
 * wants. Returns 1 when interrupted.
 */
static int instr_rounds(struct instr_ctx *ic, const struct plan_unit *plan_units, struct rng *rng)
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
			if (ic->iu[i].want[mode] && ic->iu[i].target[mode] > most)
				most = ic->iu[i].target[mode];
		int total = plan_rounds_for(most, per_round);
		for (int r = 0; r < total && !interrupted; r++) {
			int any = 0;
			for (size_t i = 0; i < ic->nr_units; i++) {
				struct instr_unit *iu = &ic->iu[i];
				owed[i] =
				    iu->want[mode] && ic->units[i].ok
					? plan_share(iu->target[mode] - iu->done[mode], per_round)
					: 0;
				any |= owed[i] > 0;
			}
			if (!any)
				break;
			if (ic->o->progress)
				ic->o->progress(ic->o->progress_data, ic->b->name, r + 1, total, 0);
			size_t n = plan_round(bs->order, plan_units, owed, ic->nr_units, r, rng,
					      &seq, &seq_alloc);
			for (size_t k = 0; k < n && !interrupted; k++) {
				size_t i = 0;
				while (i < ic->nr_units && !(ic->units[i].side == seq[k].side &&
							     ic->units[i].cmd == seq[k].command))
					i++;
				if (i == ic->nr_units || !ic->iu[i].want[mode])
					continue;
				interrupted = instr_run(ic, i, (enum instr_mode)mode, r + 1, &res);
			}
			instr_settle(ic, (enum instr_mode)mode);
			/* A command whose counts vary under valgrind simulates
			   every run from then on and needs more of them
			   (instr_sim_every): the rounds go on for them, even
			   past the last one planned. */
			for (size_t i = 0; i < ic->nr_units; i++)
				if (ic->iu[i].want[mode] &&
				    plan_rounds_for(ic->iu[i].target[mode], per_round) > total)
					total = plan_rounds_for(ic->iu[i].target[mode], per_round);
		}
	}
	free(owed);
	free(seq);
	child_result_release(&res);
	return interrupted;
}

/*
 * Does the command gate only on instrumented counts, no timed metric? Then
 * its sequential timed rounds may stop early (analyze.c,
 * gates_counts_only), and its instrumented runs are not capped by them.
 */
static int gates_counts_only(const struct command_spec *cs)
{
	int counts = 0;
	for (int m = 0; m < METRIC__COUNT; m++) {
		const struct metric_regression *r = &cs->settings.regression.metric[m];
		enum metric_group g = metric_get((enum metric_id)m)->group;
		if (!r->compare || !r->gate)
			continue;
		if (g == GROUP_COUNTERS || g == GROUP_ALLOCATIONS || g == GROUP_SYSCALLS)
			counts |= execute_metric_asked(cs, (enum metric_id)m);
		else if (execute_timed_metric(&cs->settings, (enum metric_id)m))
			return 0;
	}
	return counts;
}

/* What each measured unit wants instrumented (ic->iu); 1 when any does. */
static int instr_wants(struct instr_ctx *ic)
{
	int any = 0;
	for (size_t i = 0; i < ic->nr_units; i++) {
		struct execute_unit *u = &ic->units[i];
		const struct command_spec *cs = &ic->b->commands[u->cmd];
		const struct settings *st = &cs->settings;
		struct instr_unit *iu = &ic->iu[i];
		strvec_init(&iu->p.argv);
		strvec_init(&iu->p.env);
		if (!u->ok || u->measured <= 0)
			continue;
		int cap = st->regression.min_samples > 0 ? st->regression.min_samples : 10;
		/* Sequential rounds that gate only on counts stop early (they
		   feed the report only): the counts are not capped by them. A
		   fixed `runs` still caps them, as documented. */
		int counts_only =
		    gates_counts_only(cs) && ic->br->commands[u->cmd].analysis.sequential;
		for (int mode = 0; mode < INSTR__COUNT; mode++)
			iu->target[mode] = u->measured < cap && !counts_only ? u->measured : cap;
		for (size_t k = 0; k < sizeof(alloc_metrics) / sizeof(alloc_metrics[0]); k++)
			if (execute_metric_asked(cs, alloc_metrics[k]) &&
			    !execute_metric_unsupported(ic->in, cs, alloc_metrics[k]))
				iu->want[INSTR_ALLOC] = 1;
		for (size_t k = 0; k < NR_VALGRIND_METRICS; k++)
			if (valgrind_wanted(ic->in, cs, valgrind_metrics[k]))
				iu->want[INSTR_VALGRIND] = 1;
		/* The cache simulation costs time: only when its counts are
		   asked for. */
		iu->cache_sim = valgrind_wanted(ic->in, cs, METRIC_ESTIMATED_CYCLES) ||
				valgrind_wanted(ic->in, cs, METRIC_CACHE_MISSES);
		/* Fewer runs than make a count exact: each simulates, so that
		   the cache metrics have as many samples as the others. */
		iu->sim_every = iu->target[INSTR_VALGRIND] < METRIC_EXACT_RUNS;
		iu->count_target = iu->target[INSTR_VALGRIND];
		iu->want[INSTR_SYSCALLS] = execute_metric_asked(cs, METRIC_SYSCALLS) &&
					   !execute_metric_unsupported(ic->in, cs, METRIC_SYSCALLS);
		any |=
		    iu->want[INSTR_ALLOC] || iu->want[INSTR_VALGRIND] || iu->want[INSTR_SYSCALLS];
	}
	return any;
}

/* The folders of the instrumented runs, per side (freed by the caller). */
struct instr_dirs {
	char *link[SIDE__COUNT]; /* the equal-length link to the root */
	char *sdir[SIDE__COUNT]; /* the suite's folder through it */
	char *hdir[SIDE__COUNT]; /* the suite's folder in the head's root */
};

/* Each present side's equal-length root, variables and working folder;
   a folder that cannot be made stops that side's instrumented units. */
static void instr_sides(struct instr_ctx *ic, const struct execute_side sides[SIDE__COUNT],
			size_t bench_index, const char *const workdir[SIDE__COUNT],
			struct instr_dirs *d)
{
	struct execute_side eq[SIDE__COUNT];
	for (int sd = 0; sd < SIDE__COUNT; sd++) {
		eq[sd] = sides[sd];
		if (!sides[sd].present)
			continue;
		d->link[sd] = equal_length_root(sides[sd].tmpdir, sides[sd].root);
		eq[sd].root = d->link[sd];
		d->sdir[sd] = execute_side_suite_dir(ic->s, &eq[sd]);
		ic->suite_dir[sd] = d->sdir[sd];
		d->hdir[sd] = execute_suite_dir_in(ic->s, sides[sd].head_root);
		ic->ctx[sd] = (struct vars_context){
		    .artifact = sides[sd].artifact,
		    .root = d->sdir[sd],
		    .head_root = d->hdir[sd],
		    .workdir = workdir[sd],
		    .env = NULL,
		    .repo = d->link[sd],
		    .head_repo = sides[sd].head_root,
		};
		ic->dir[sd] = xstrfmt("%s/i%zu", sides[sd].tmpdir, bench_index);
		if (mkdir(ic->dir[sd], 0700) != 0 && errno != EEXIST) {
			struct sbuf msg = SBUF_INIT;
			sbuf_addf(&msg, "cannot create '%s': %s", ic->dir[sd], strerror(errno));
			for (size_t i = 0; i < ic->nr_units; i++)
				for (int mode = 0; mode < INSTR__COUNT; mode++)
					if (ic->units[i].side == sd && ic->iu[i].want[mode])
						instr_stop(ic, i, (enum instr_mode)mode,
							   MSTATUS_FAILED, msg.buf);
			sbuf_release(&msg);
		}
	}
}

/* Each wanting unit's command, prepared through the equal-length root with
   the measured run's timeout and streams. */
static void instr_prepare(struct instr_ctx *ic, const struct instr_dirs *d)
{
	for (size_t i = 0; i < ic->nr_units; i++) {
		struct execute_unit *u = &ic->units[i];
		struct instr_unit *iu = &ic->iu[i];
		if (!iu->want[INSTR_ALLOC] && !iu->want[INSTR_VALGRIND] &&
		    !iu->want[INSTR_SYSCALLS])
			continue;
		const struct command_spec *cs = &ic->b->commands[u->cmd];
		const struct strvec *layers[] = {&cs->settings.env, &cs->exec.env};
		struct sbuf err = SBUF_INIT;
		if (execute_prepare_exec(&cs->exec, layers, 2, d->sdir[u->side], cs->settings.cwd,
					 &ic->ctx[u->side], &iu->p, &err)) {
			for (int mode = 0; mode < INSTR__COUNT; mode++)
				if (iu->want[mode])
					instr_stop(ic, i, (enum instr_mode)mode, MSTATUS_FAILED,
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
}

/*
 * Decide what each unit wants, prepare its equal-length command, run the
 * instrumented rounds. Metrics that cannot be measured are marked later
 * (execute_mark_unsupported). Returns 1 when interrupted.
 */
int execute_instrument_bench(const struct suite *s, const struct bench_spec *b, size_t bench_index,
			     const struct execute_side sides[SIDE__COUNT],
			     const struct execute_options *o, struct execute_instruments *in,
			     struct bench_result *br, struct execute_unit *units, size_t nr_units,
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

	int interrupted = 0;
	struct instr_dirs d;
	memset(&d, 0, sizeof(d));
	if (instr_wants(&ic)) {
		instr_sides(&ic, sides, bench_index, workdir, &d);
		instr_prepare(&ic, &d);
		interrupted = instr_rounds(&ic, plan_units, rng);
	}
	for (size_t i = 0; i < nr_units; i++) {
		instr_syscall_names(&ic, i);
		free(ic.iu[i].sc_counts);
		execute_prepared_release(&ic.iu[i].p);
	}
	free(ic.iu);
	for (int sd = 0; sd < SIDE__COUNT; sd++) {
		free(d.link[sd]);
		free(d.sdir[sd]);
		free(d.hdir[sd]);
		free(ic.dir[sd]);
	}
	return interrupted;
}

/*
 * Counter and allocation metrics asked for but not measured on a side
 * that ran: `unsupported` with the reason this machine or instrument gives.
 */
void execute_mark_unsupported(struct execute_instruments *in, const struct command_spec *cs,
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
