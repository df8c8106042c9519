/*
 * analyze/mean: the change of the mean — the total time a user waits —
 * beside the typical change the rank tests judge (docs/statistics.md,
 * "The change of the mean").
 *
 * Paired rounds: the estimate is R = sum(h) / sum(b) over the kept rounds
 * (each round's mean on each side). Its inference is the sign-flip
 * permutation test of the mean, inverted: under "head / c and base are
 * exchangeable within a round", swapping the two sides of the rounds in a
 * set A leaves the data as likely, and the flipped pattern's sum of
 * (h / c - b) is at least the observed one exactly when
 * R_A = sum_A(h) / sum_A(b) <= c. So the one-sided p of "the mean ratio
 * exceeds c" is the share of sets A (each round in A with probability 1/2,
 * the empty set and the observed pattern counted as ties) with R_A <= c,
 * and the distribution of ln R_A over those sets is the test's confidence
 * distribution: estimate, interval and test cannot disagree, and the test
 * is exact whatever the tails, needing only the symmetry that random order
 * within a round gives. A stall on one side is a round whose sign is a
 * coin flip; k stalls all on head have p = 2^-k, as noise should.
 *
 * Every one of the 2^n - 1 non-empty sets is enumerated while that is at
 * most `resamples`; beyond, `resamples` random sets are drawn.
 *
 * Nothing here prints; nothing allocated outlives mean_dist_release().
 */
#ifndef KAGARI_ANALYZE_MEAN_H
#define KAGARI_ANALYZE_MEAN_H

#include <stddef.h>

#include "model/rng.h"

/*
 * The fewest rounds on which a sequential look may show the mean within
 * the tolerance. A minority of runs is seen only once it has happened: in
 * n rounds a share s of slow runs is missed entirely with probability
 * (1 - s)^n, and the test, which sees only what happened, would pass it.
 * 45 rounds miss a 5% minority in fewer than 10% of cases and a 10% one
 * in fewer than 1% (0.95^45 = 0.099, 0.90^45 = 0.0087): the smallest n
 * that does both. A fixed design passes on what it has and says which
 * share it could have missed (docs/statistics.md).
 */
#define MEAN_PASS_MIN_ROUNDS 45
/* The share of runs a minority must reach to be missed in n rounds with
   probability at most 10%: 1 - 0.1^(1/n). */
double mean_missable_share(size_t n);

struct mean_dist {
	double *v;	 /* ln R_A of the non-empty sets drawn, ascending */
	size_t n;	 /* how many */
	size_t nr_empty; /* random draws of the empty set: ties both ways */
	int enumerated;	 /* every non-empty set once */
};

/*
 * The distribution of ln(sum_A h / sum_A b) over sets A of the n rounds
 * (h[k], b[k] > 0: each round's mean on each side). rng is used only when
 * the sets are drawn.
 */
void mean_dist_paired(const double *h, const double *b, size_t n, int resamples, struct rng *rng,
		      struct mean_dist *out);

/*
 * One-sided p-values from that distribution, the observed pattern and
 * the ties (the empty set) counted as extreme: mean_dist_p_le(d, c) is
 * the p of "the mean ratio exceeds e^c" (share of ln R_A <= c), and
 * mean_dist_p_ge(d, c) the p of "it is below e^c" (share >= c).
 */
double mean_dist_p_le(const struct mean_dist *d, double c);
double mean_dist_p_ge(const struct mean_dist *d, double c);

/* The q-quantile of ln R_A (type 7 over the sorted values); NAN if empty. */
double mean_dist_quantile(const struct mean_dist *d, double q);

void mean_dist_release(struct mean_dist *d);

/*
 * The minority behind a mean that moved unlike the typical run: of the
 * pair log-ratios lr[0..n) (n >= 8), centred on the typical shift theta,
 * those beyond c = max(5 robust SDs, ln 1.15) on the side the mean moved
 * to (dir > 0: slower), less as many as lie beyond -c on the other side
 * (noise is symmetric; a minority is not). *share is that excess over n,
 * *factor the median ratio of the excess side's tail (about 3 for runs
 * three times slower, 0.5 for runs twice as fast). NAN both when no excess
 * is seen.
 */
void mean_minority(const double *lr, size_t n, double theta, int dir, double *share,
		   double *factor);

#endif
