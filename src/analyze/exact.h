/*
 * analyze/exact: the exact (permutation and rank) tests and the
 * Hodges-Lehmann shift estimators behind `kagari compare`.
 *
 * All tests are one-sided "greater" tests; the caller obtains the other
 * direction by negating (sign flip) or swapping the samples (Mann-Whitney).
 *
 *  - exact_signflip_p(): the sign-flip permutation test on the mean (sum)
 *    of d[0..n): H0 "d is symmetric about 0", alternative "shifted above
 *    0". Exact enumeration of all 2^n sign patterns for n <= 20 (split
 *    into two halves of at most 2^10 sums each, so it costs microseconds),
 *    Monte Carlo beyond with p = (1 + hits) / (B + 1). A pattern counts as
 *    "at least as extreme" when its sum is >= observed - 1e-9 * sum |d|, so
 *    the observed pattern and exact ties always count (as in SciPy's
 *    permutation_test).
 *  - exact_signed_rank_p(): the Wilcoxon signed-rank test of d[0..n):
 *    the same H0 (symmetric about 0), but on the ranks of |d| (midranks for
 *    ties, zeros dropped), so one disturbed round weighs as one rank rather
 *    than by its size. Exact null distribution (a recurrence over the
 *    doubled rank sums, ties included) for up to EXACT_SIGNED_RANK_MAX_N
 *    non-zero values, normal with tie and continuity correction beyond
 *    (identical to R's wilcox.test(correct = TRUE)). The paired compare
 *    uses it (docs/statistics.md says why).
 *  - exact_mann_whitney_p(): Mann-Whitney U for "x stochastically greater
 *    than y". Without ties and with nx * ny <= EXACT_MW_EXACT_MAX, the exact
 *    null distribution of U (counted by the usual recurrence, identical to
 *    scipy.stats.mannwhitneyu(method='exact')); otherwise the normal
 *    approximation with tie correction and continuity correction (identical
 *    to method='asymptotic', use_continuity=True). A sample in which every
 *    value is tied has no spread: p is 1.
 *  - exact_hl_paired(): median of the Walsh averages (d_i + d_j) / 2, i <= j.
 *  - exact_hl_two_sample(): median of all x_j - y_i.
 *    Both in O(n log n) time and O(n) memory: the n(n+1)/2 (nx * ny)
 *    members are never stored; exact_walsh_select() and
 *    exact_diff_select() find an order statistic by a binary search on
 *    the value, counting in linear time over the sorted data. The
 *    *_quadratic versions store every member (O(n^2) memory, 30,000
 *    rounds need 3.6 GB): kept as the reference the tests compare with.
 *
 * Inputs must be finite. Nothing allocated here outlives a call.
 */
#ifndef KAGARI_ANALYZE_EXACT_H
#define KAGARI_ANALYZE_EXACT_H

#include <stddef.h>

#include "model/rng.h"

/* Largest n for which the sign-flip test enumerates all 2^n patterns. */
#define EXACT_SIGNFLIP_MAX_N 20
/* Largest count of non-zero d for the exact signed-rank distribution. */
#define EXACT_SIGNED_RANK_MAX_N 400
/* Largest nx * ny for the exact Mann-Whitney distribution (no ties). */
#define EXACT_MW_EXACT_MAX 2500

enum exact_method {
	EXACT_ENUMERATED,  /* sign flip: all 2^n patterns */
	EXACT_MONTE_CARLO, /* sign flip: `resamples` random patterns */
	EXACT_MW_EXACT,	   /* Mann-Whitney: exact null distribution */
	EXACT_MW_NORMAL,   /* Mann-Whitney: normal, tie + continuity corr. */
	EXACT_SR_EXACT,	   /* signed rank: exact null distribution */
	EXACT_SR_NORMAL,   /* signed rank: normal, tie + continuity corr. */
};

/* "sign-flip exact", "sign-flip monte carlo", "mann-whitney exact", ... */
const char *exact_method_name(enum exact_method m);

/*
 * One-sided sign-flip p for "the mean of d exceeds 0". n == 0 gives 1.
 * Beyond EXACT_SIGNFLIP_MAX_N, `resamples` (>= 1) random patterns are drawn
 * from `rng` (untouched when enumerating). *method (if not NULL) says which.
 */
double exact_signflip_p(const double *d, size_t n, int resamples, struct rng *rng,
			enum exact_method *method);

/*
 * One-sided signed-rank p for "d is shifted above 0". No non-zero value
 * gives 1. *method (if not NULL) says which way it was computed and
 * *min_p (if not NULL) receives the smallest p the test could give for
 * this n and these ties (2^-n' when exact, n' the non-zero count).
 */
double exact_signed_rank_p(const double *d, size_t n, enum exact_method *method, double *min_p);

/*
 * One-sided Mann-Whitney p for "x is stochastically greater than y". Either
 * sample empty gives 1. *method (if not NULL) says which way it was computed.
 */
double exact_mann_whitney_p(const double *x, size_t nx, const double *y, size_t ny,
			    enum exact_method *method);

/* Mann-Whitney U of x against y (pairs x > y, ties count 1/2). */
double exact_mann_whitney_u(const double *x, size_t nx, const double *y, size_t ny);

/* Hodges-Lehmann estimates (see above); NAN when a sample is empty. */
double exact_hl_paired(const double *d, size_t n);
double exact_hl_two_sample(const double *x, size_t nx, const double *y, size_t ny);
double exact_hl_paired_quadratic(const double *d, size_t n);
double exact_hl_two_sample_quadratic(const double *x, size_t nx, const double *y, size_t ny);

/* A sorted (ascending) copy of d[0..n); the caller frees. */
double *exact_sorted_copy(const double *d, size_t n);
/* The k-th smallest (0-based, k < n(n+1)/2) Walsh average (a_i + a_j) / 2,
   i <= j, of ascending a[0..n), n >= 1: exactly the value the sorted
   array of exact_walsh_sorted() holds at k. */
double exact_walsh_select(const double *a, size_t n, size_t k);
/* The k-th smallest (0-based, k < nx * ny) of x_j - y_i, x and y
   ascending and not empty. */
double exact_diff_select(const double *x, size_t nx, const double *y, size_t ny, size_t k);

/*
 * The distribution-free inference that belongs to the signed-rank test
 * (Hodges-Lehmann; Hollander and Wolfe, ch. 3): the Walsh averages of
 * d[0..n) sorted ascending (n(n+1)/2 of them, in *count; the caller
 * frees), their median is the shift estimate, and the shifts the test
 * would not reject form an interval between two order statistics of them.
 *
 * exact_signed_rank_rank(n, q): the largest 1-based rank c with
 * P(W+ <= c - 1) <= q under the null (exact without ties up to
 * EXACT_SIGNED_RANK_MAX_N, normal beyond), at least 1. The c-th smallest
 * Walsh average is the q-quantile of the test's confidence distribution.
 *
 * exact_hl_interval(): the central `confidence` interval [W_(c),
 * W_(M+1-c)], c = exact_signed_rank_rank(n, (1 - confidence) / 2), from
 * the sorted Walsh averages w of n values.
 */
double *exact_walsh_sorted(const double *d, size_t n, size_t *count);
size_t exact_signed_rank_rank(size_t n, double q);
void exact_hl_interval(const double *w, size_t n, double confidence, double *lo, double *hi);
/* B quantiles of that confidence distribution at (i + 0.5) / B, ascending,
   into out[0..B): what a bootstrap would draw, for plots. */
void exact_hl_quantiles(const double *w, size_t n, size_t B, double *out);
/* The same two from the ascending values a[0..n) themselves (not their
   Walsh averages), by selection: O(n) memory (the quantiles read a sorted
   copy of at most 2^21 Walsh averages, 16 MiB, when there are no more).
   exact_walsh_sorted() and the two above are the O(n^2) reference the
   tests compare with. */
void exact_hl_interval_sorted(const double *a, size_t n, double confidence, double *lo, double *hi);
void exact_hl_quantiles_sorted(const double *a, size_t n, size_t B, double *out);

/*
 * The k-th smallest (0-based) of a[0..n), k < n, by quickselect; reorders
 * a so that a[k] holds it, smaller-or-equal values before, larger-or-equal
 * after.
 */
double exact_select(double *a, size_t n, size_t k);
/* R type-7 quantile at p in [0, 1] of a[0..n) (reordered); NAN if n == 0. */
double exact_quantile_inplace(double *a, size_t n, double p);

/* Upper tail of the standard normal, P(Z > z), accurate far out. */
double exact_normal_sf(double z);

#endif
