/*
 * power/replay: replay compare's design over recorded A/A traces
 * (docs/power.md). Per cell it counts how often each verdict came out and
 * how many runs per side it took; live trials cannot tell a better design
 * from a quieter hour, a replay runs every candidate on the same noise.
 *
 * A cell is EFFECT@T (head scaled by 1 + EFFECT/100, tolerance T%) or
 * SHARE%xFACTOR@T (a shaped change: each head run is FACTOR times slower
 * with probability SHARE%, else unchanged). Nothing here reads files or
 * prints: cmd/power.c loads the traces and the design, report/power.h
 * writes what was found.
 */
#ifndef KAGARI_POWER_REPLAY_H
#define KAGARI_POWER_REPLAY_H

#include <stddef.h>
#include <stdint.h>

#include "base/sbuf.h"
#include "power/power.h"
#include "model/rng.h"
#include "model/trace.h"
#include "model/verdict.h"

/* The rounds compare would plan for d->st (warm-up, cap, sequential or
   fixed), its order's name and time cap, as measuring would see them. */
void power_design_plan(struct power_design *d);
/* "3@2", "-5@3", "40%x2.5@10" into *c (c->text a copy); -1 with a reason. */
int power_parse_cell(const char *text, struct power_cell *c, struct sbuf *err);
/* Trace t's runs of the replayed metric (METRIC_LATENCY or METRIC_CPU_TOTAL). */
const double *power_column(const struct trace *t, int metric);
/* The traces' noise, for the report's first line. */
void power_trace_stats(const struct trace *tr, size_t nt, int metric, struct power_trace_stats *s);
/* 0 when every cell's head runs stay below 2^63 ns; -1 naming the cell. */
int power_cells_fit(const struct power_design *d, const struct trace *tr, size_t nt,
		    const struct power_cell *cells, size_t nc, struct sbuf *err);
/*
 * What a trial does to the runs it replays (power_trial()): run() gives
 * the value a run takes from its recorded noise x. side is SIDE_BASE or
 * SIDE_HEAD, round the measured round (1-based; 0 for a warm-up run), run
 * the run's index in its side's time order (0-based, warm-up included).
 * It is called once per run in the order the runs happen, so draws from
 * rng are reproducible. name labels the replayed command.
 */
struct power_shape {
	const char *name;
	double (*run)(void *ctx, int side, int round, size_t run, double x, struct rng *rng);
	void *ctx;
};

/* What one trial found: the comparison's verdict, the rounds measured,
   the rounds it was decided at (the look; the rounds in a fixed design)
   and the runs per side that took, the rounds the stall filter dropped,
   its estimates and reason (owned). */
struct power_outcome {
	enum verdict verdict;
	int rounds, decided_at, runs;
	int dropped; /* rounds the stall filter removed */
	double change_percent, mean_change_percent, noise_floor_percent;
	char *reason;
};

/*
 * One trial of design d: the window of v from `start` handed to base and
 * head by plan/ (rounds and order drawn from rng), each run shaped, judged
 * by analyze_result() as compare judges the metric at tolerance T and
 * min_difference (base unit; < 0: unset), sequential looks included.
 * v must hold (warm_rounds + rounds) * 2 * runs_per_round runs from start.
 */
void power_trial(const struct power_design *d, double T, double min_difference, const double *v,
		 size_t start, const struct power_shape *shape, struct rng *rng, uint64_t seed,
		 struct power_outcome *out);
void power_outcome_release(struct power_outcome *o);

/* `trials` trials of every cell on windows of `need` runs (every trace
   holds one): fills each cell's verdicts, trials and runs. */
void power_replay(const struct power_design *d, const struct trace *tr, size_t nt, size_t need,
		  struct power_cell *cells, size_t nc, int trials, uint64_t seed);

/* The design's settings: the defaults of the suite found in the current
   folder (d->from its file), else kagari's. 0, or -1 with the suite's
   errors in err. */
int power_design_from_suite(struct power_design *d, struct sbuf *err);
/* A comma-separated list of cells (power_parse_cell()) into
   *cells[0..*nc) (allocated, also on failure); -1 with a reason naming
   the item (an empty one too) or saying no cell was given. */
int power_parse_cells(const char *list, struct power_cell **cells, size_t *nc, struct sbuf *err);
/* Every trace holds at least one window of `need` runs of design d;
   -1 naming the first that does not. */
int power_traces_long_enough(const struct power_design *d, const struct trace *tr, size_t nt,
			     size_t need, struct sbuf *err);

#endif
