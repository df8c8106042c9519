/*
 * analyze/boot_median: the bootstrap distribution of a sample's median,
 * drawn from its exact form instead of by resampling.
 *
 * A bootstrap resample of sorted x[0..n) is n draws with replacement; its
 * median (R's type 7: the mean of the order statistics at 0-based ranks
 * (n-1)/2 and n/2) lands on x[i] or between x[i] and x[j]. Which i and j
 * depends only on how many draws fall at or below each index, and those
 * counts are binomial: with r = (n-1)/2 + 1, the lower middle order
 * statistic I is at or below i when at least r of the n draws are, so
 *
 *	P(I <= i) = P(Binomial(n, (i+1)/n) >= r).
 *
 * For even n the upper one is x[I] when more than r draws are at or below
 * I; when exactly r are, the other n - r draws are uniform over the
 * indices above I and the upper one is the smallest of them. Both cases'
 * probabilities are closed forms (boot_median.c), so one resample's median
 * costs two or three uniforms and a binary search instead of n bounded
 * draws and a pass over n counts: the same distribution, ~50 times cheaper
 * at n = 100 (bench/analysis.sh). The draws differ from the resampling
 * ones (a seed gives other, equally distributed, values).
 */
#ifndef KAGARI_ANALYZE_BOOT_MEDIAN_H
#define KAGARI_ANALYZE_BOOT_MEDIAN_H

#include <stddef.h>

#include "model/rng.h"

struct boot_median {
	const double *x; /* sorted, borrowed */
	size_t n;
	double *cdf;	 /* P(I <= i) */
	double *exactly; /* even n: P(exactly r draws <= i | I = i) */
};

/* Prepare the draws for sorted x[0..n); x must outlive *b. */
void boot_median_init(struct boot_median *b, const double *x, size_t n);
/* The median of one bootstrap resample (NAN when n is 0). */
double boot_median_draw(const struct boot_median *b, struct rng *rng);
void boot_median_release(struct boot_median *b);

#endif
