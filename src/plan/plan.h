/*
 * plan: which unit runs when.
 *
 * A unit is one (side, command) pair of a benchmark. A round runs every
 * active unit `runs_per_round` times, in an order set by the suite's `order`
 * (STATISTICS.md, "Definitions"):
 *   random    - a seeded shuffle of the round's runs (the default);
 *   abba      - the unit list forwards then backwards, the direction
 *               flipping every round (base head head base, head base base head);
 *   alternate - the unit list repeated (base head base head).
 * `run` is the one-sided case: its units are the head side's commands.
 */
#ifndef KAGARI_PLAN_PLAN_H
#define KAGARI_PLAN_PLAN_H

#include <stddef.h>

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
size_t plan_round(enum run_order order, const struct plan_unit *units,
		  const int *runs, size_t n, int round, struct rng *rng,
		  struct plan_unit **seq, size_t *seq_alloc);

const char *plan_order_name(enum run_order order);

#endif
