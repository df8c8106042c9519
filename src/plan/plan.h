/*
 * plan: which unit runs when — the one schedule of the timed and the
 * instrumented rounds: warm-up, rounds, the order inside a round, how many
 * runs each unit owes a round, and the adaptive stop. measure/ executes
 * what these functions say and decides nothing about the schedule itself.
 *
 * Call order for one benchmark (measure/execute.c):
 *   plan_schedule_init(&s, &settings, runs_override, warmup_override);
 *   for each round r from 0 (the warm-up rounds come first, then measured
 *   rounds, at most s.warm_rounds + s.total_rounds):
 *     owed[i] = unit ok ? plan_owed(&s, r, measured[i]) : 0;  (none: stop)
 *     in a measured round after the first, adaptive (s.fixed <= 0): stop
 *       unless some ok unit plan_wants_more(&s, measured, time_ns);
 *     plan_round(s.order, units, owed, n, ...) is the round's sequence.
 *   Rounds may be batched ahead only while plan_round_certain() holds for
 *   every unit: whether they happen must not depend on outcomes.
 *
 * A unit is one (side, command) pair of a benchmark. A round runs every
 * active unit `runs_per_round` times, in an order set by the suite's `order`
 * (docs/statistics.md, "Rounds" and "Order within a round"):
 *   random    - the passes of abba/alternate (every unit that owes a k-th
 *               run, once), each shuffled on its own from the seed (the
 *               default);
 *   abba      - the unit list forwards then backwards, the direction
 *               flipping every round (base head head base, head base base head);
 *   alternate - the unit list repeated (base head base head).
 * `run` is the one-sided case: its units are the head side's commands.
 */
#ifndef KAGARI_PLAN_PLAN_H
#define KAGARI_PLAN_PLAN_H

#include <stddef.h>
#include <stdint.h>

#include "suite/model.h"

struct rng;

struct plan_unit {
	int side;	/* enum side */
	size_t command; /* index into the benchmark's commands */
};

/*
 * Write the sequence of one round into seq (resized with ALLOC_GROW; the
 * caller owns and frees it): each of the n units appears `runs[i]` times
 * (runs[i] == 0 leaves unit i out of this round). `round` is the 0-based
 * round index, used by abba to flip direction. The rng is used for random
 * order only. Returns the sequence length.
 */
size_t plan_round(enum run_order order, const struct plan_unit *units, const int *runs, size_t n,
		  int round, struct rng *rng, struct plan_unit **seq, size_t *seq_alloc);

const char *plan_order_name(enum run_order order);

/* ---- the schedule ------------------------------------------------------ */

struct plan_schedule {
	enum run_order order;
	int per_round;		/* runs of each unit per round, >= 1 */
	int warmup;		/* unmeasured runs per unit, before the measured */
	int fixed;		/* > 0: exactly this many measured runs; else adaptive */
	int min_runs, max_runs; /* adaptive bounds (both `fixed` when fixed) */
	int64_t min_time_ns;	/* adaptive: measured wall time a unit needs */
	int sequential;		/* compare with `runs: auto`: looks (below) */
	int64_t max_time_ns;	/* sequential: stop at a round after this much
				   measured time; 0: no cap */
	int warm_rounds;	/* rounds 0 .. warm_rounds-1 are warm-up */
	int total_rounds;	/* measured rounds at most */
};

/*
 * The schedule of settings `st` (runs_per_round, order, warmup, runs,
 * min_runs, max_runs, min_time); runs_override > 0 and warmup_override
 * >= 0 replace the suite's `runs` and `warmup` (--runs, --warmup).
 */
void plan_schedule_init(struct plan_schedule *s, const struct settings *st, int runs_override,
			int warmup_override);

/*
 * Make an adaptive schedule sequential (a compare whose `runs` is unset or
 * `auto`, docs/statistics.md "Sequential rounds"): every unit runs up to
 * max_runs, and the analysis after each look (model/sequential.h) says
 * which commands are decided and stop; `max_time` caps the measured time.
 * A fixed schedule stays fixed.
 */
void plan_make_sequential(struct plan_schedule *s, const struct settings *st);

/*
 * Sequential: is there a look after `rounds` measured rounds? Batches of
 * rounds end at a look, since what follows depends on its outcome.
 */
int plan_look_due(const struct plan_schedule *s, int rounds);

/* Rounds needed for `runs` runs at per_round runs per round (0 for 0). */
int plan_rounds_for(int runs, int per_round);

/* A unit's share of one round when it still owes `left` runs: 0..per_round. */
int plan_share(int left, int per_round);

/*
 * Runs a unit owes in round r (0-based, warm-up rounds first) when it has
 * made `measured` measured runs so far.
 */
int plan_owed(const struct plan_schedule *s, int r, int measured);

/*
 * The adaptive stop, per unit: does a unit with `measured` measured runs
 * and `time_ns` of measured wall time need another round? (Below max_runs,
 * and below min_runs or min_time.) A fixed schedule never asks.
 */
int plan_wants_more(const struct plan_schedule *s, int measured, int64_t time_ns);

/*
 * Is it settled before any outcome is known that a unit with `measured`
 * runs takes part in the next measured round? True for a fixed schedule,
 * below min(min_runs, max_runs) for an adaptive one, and for a sequential
 * one (its batches end at looks instead).
 */
int plan_round_certain(const struct plan_schedule *s, int measured);

#endif
