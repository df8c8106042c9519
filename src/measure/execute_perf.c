/*
 * execute_perf: hardware and software counters (counters.h) around the
 * timed runs. For a unit whose counter metrics come from perf, the events
 * are opened on the runner process just before each measured run
 * (counting from the command's exec), read just after, and the reading
 * becomes one sample per counter metric of that run; warm-up runs are not
 * counted. Runs that read perf events are never batched (execute.c).
 *
 * Call order, per benchmark: execute_perf_plan() per unit; per measured
 * run execute_run_timed(), then execute_perf_record() when it returned a
 * reading; after the rounds execute_perf_mark_uncounted() per unit.
 */
#include "measure/execute_internal.h"

#include <math.h>

#include "base/sbuf.h"
#include "measure/counters.h"
#include "measure/runner.h"

static const enum metric_id counter_metrics[] = {
    METRIC_INSTRUCTIONS, METRIC_CYCLES, METRIC_BRANCH_MISSES, METRIC_CACHE_MISSES, METRIC_IPC,
};
#define NR_COUNTER_METRICS (sizeof(counter_metrics) / sizeof(counter_metrics[0]))

/*
 * The perf events a command's timed runs read: the events of its asked
 * counter metrics that come from perf and open here, plus the software
 * events (task-clock, page-faults) whenever any are read. 0: none.
 */
unsigned execute_perf_plan(struct execute_instruments *in, const struct command_spec *cs)
{
	unsigned ev = 0;
	for (size_t k = 0; k < NR_COUNTER_METRICS; k++) {
		enum metric_id m = counter_metrics[k];
		if (!execute_metric_asked(cs, m) ||
		    execute_counter_source(in, cs) != EXECUTE_SOURCE_PERF)
			continue;
		if (!execute_metric_unsupported(in, cs, m))
			ev |= execute_perf_events_of(m);
	}
	if (ev)
		ev |= in->perf.available & COUNTERS_SOFTWARE;
	return ev;
}

/* Counting failed for a unit: its perf metrics fail with the reason. */
static void perf_fail(const struct command_spec *cs, struct side_result *sr, unsigned events,
		      const char *why)
{
	struct sbuf msg = SBUF_INIT;
	sbuf_addf(&msg, "hardware counters failed: %s", why);
	for (size_t k = 0; k < NR_COUNTER_METRICS; k++) {
		enum metric_id m = counter_metrics[k];
		unsigned need = execute_perf_events_of(m);
		if (execute_metric_asked(cs, m) && (events & need) == need)
			metric_series_fail(&sr->metric[m], MSTATUS_FAILED, msg.buf);
	}
	sbuf_release(&msg);
}

/* Add one run's reading to the unit's perf metrics. */
void execute_perf_record(struct execute_instruments *in, const struct command_spec *cs,
			 struct side_result *sr, unsigned events, const struct counters_reading *r,
			 int round, int run)
{
	int missed = 0;
	for (size_t k = 0; k < NR_COUNTER_METRICS; k++) {
		enum metric_id m = counter_metrics[k];
		unsigned need = execute_perf_events_of(m);
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
 * execute_run_prepared() for a timed run; for a measured run of a unit that reads
 * perf events, they are opened on the runner just before and read just
 * after, into *reading (*have set when it holds one).
 */
int execute_run_timed(const struct execute_options *o, struct execute_instruments *in,
		      struct counters *pc, struct execute_unit *u, const struct command_spec *cs,
		      struct side_result *sr, int measured, struct child_result *res,
		      struct counters_reading *reading, int *have, struct sbuf *why)
{
	struct sbuf perr = SBUF_INIT;
	int counting = measured && u->perf_events;
	*have = 0;
	if (counting) {
		pc->pid = runner_pid(o->runner);
		pc->events = u->perf_events;
		pc->software_stand_ins = in->perf.software_stand_ins;
		if (counters_begin(pc, &perr)) {
			perf_fail(cs, sr, u->perf_events, perr.buf);
			u->perf_events = 0;
			counting = 0;
		}
	}
	int rc = execute_run_prepared(o, &u->p, 0, res, why);
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
void execute_perf_mark_uncounted(struct execute_instruments *in, const struct command_spec *cs,
				 struct side_result *sr)
{
	unsigned events = execute_perf_plan(in, cs);
	if (!events || !sr->present || !sr->count)
		return;
	for (size_t k = 0; k < NR_COUNTER_METRICS; k++) {
		enum metric_id m = counter_metrics[k];
		unsigned need = execute_perf_events_of(m);
		struct metric_series *ms = &sr->metric[m];
		if (!execute_metric_asked(cs, m) || (events & need) != need ||
		    ms->status != MSTATUS_ABSENT)
			continue;
		metric_series_set_status(ms, MSTATUS_FAILED,
					 "not counted in any run: the event never got a hardware "
					 "counter (another profiler or the NMI watchdog may hold "
					 "them; see `kagari doctor`)");
	}
}
