/*
 * power/power: what `kagari power` replays and what it found — the cells
 * (a change and a tolerance), the design (compare's settings), each
 * cell's verdict counts and cost, and the traces' noise. power/replay.h
 * fills them, report/power.h writes them.
 */
#ifndef KAGARI_POWER_POWER_H
#define KAGARI_POWER_POWER_H

#include <stddef.h>
#include <stdint.h>

#include "suite/model.h"
#include "model/verdict.h"

struct power_cell {
	char *text;	      /* as given */
	double effect;	      /* scale cells: head * (1 + effect) */
	double share, factor; /* shaped cells (share > 0) */
	double T;
	int trials;
	int verdicts[5]; /* regression pass improved within_noise inconclusive */
	double mean_runs, p95_runs;
};

/* The order of the columns and of cell.verdicts; any other verdict counts
   as inconclusive (the last). */
extern const enum verdict power_verdicts[5];

struct power_design {
	struct settings st;	 /* warmup, runs, runs_per_round, order, max_runs,
				    max_time, regression */
	int metric;		 /* METRIC_LATENCY | METRIC_CPU_TOTAL */
	int warm_rounds, rounds; /* from plan/ */
	int sequential;
	int64_t max_time_ns;	/* the time cap of one command */
	const char *from;	/* the suite file, or NULL (defaults) */
	const char *order_name; /* st.order's name (plan_order_name()) */
	/* Judge as measuring does when base and head ${artifact} are
	   byte-identical (model/result.h); 0 for kagari power. */
	int identical_artifact;
};

/* The replayed traces' noise: the median run, and the MAD and sd of the
   log-ratios of adjacent pairs in percent. */
struct power_trace_stats {
	size_t runs;
	double median_ns, pair_mad, pair_sd;
};

#endif
