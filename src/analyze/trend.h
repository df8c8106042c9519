/*
 * analyze/trend: does the change move over the rounds? The pair
 * log-ratios (head's round mean over base's, one value a round) against
 * the round number: the Theil-Sen slope (the median of the pairwise
 * slopes) and the Mann-Kendall test of "no monotone trend"
 * (docs/statistics.md, "A change that moves"). Both use only the order of
 * the values, so a stalled round weighs as one rank, as in the signed-rank
 * test; machine drift hits both runs of a round and cancels in the ratio.
 *
 * Call trend_fit() once per comparison; it allocates nothing that
 * outlives it.
 */
#ifndef KAGARI_ANALYZE_TREND_H
#define KAGARI_ANALYZE_TREND_H

#include <stddef.h>

#include "model/rng.h"

/* Fewer rounds than this: no test (p stays NAN, the trend never counts). */
#define TREND_MIN_ROUNDS 10
/* Up to this many rounds every pairwise slope is taken; beyond, this
   many squared over two, drawn at random pairs (seeded). */
#define TREND_EXACT_ROUNDS 1000

struct trend {
	size_t n;	  /* rounds fitted */
	double slope;	  /* Theil-Sen: change of the log-ratio per round */
	double intercept; /* median of y - slope x: the line is intercept + slope x */
	double s;	  /* Mann-Kendall S: concordant minus discordant pairs */
	double p;	  /* two-sided p of S under "no trend" (normal, ties and
			     continuity corrected); NAN below TREND_MIN_ROUNDS */
};

/*
 * Fit y[k] (log-ratios) against x[k] (round numbers, strictly increasing)
 * for k < n. rng is used only beyond TREND_EXACT_ROUNDS rounds. With n < 2
 * slope and intercept are 0 (n == 1: intercept y[0]) and p is NAN.
 */
void trend_fit(const double *x, const double *y, size_t n, struct rng *rng, struct trend *out);

#endif
