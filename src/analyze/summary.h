/*
 * analyze/summary: descriptive statistics of one metric's samples.
 *
 * Quantiles are R's type 7 (linear interpolation between order statistics,
 * the default of R's quantile() and numpy's percentile()). Sums are taken in
 * long double, which holds every integer below 2^64 exactly, so means of
 * integer nanoseconds and bytes are exact before the final rounding.
 *
 * Inputs are expected to be finite. Nothing here allocates memory that
 * outlives the call; quantile() and summary_compute() copy and sort
 * internally and never modify the caller's array.
 *
 * Typical use: summary_compute(&s, values, n) once per metric series; the
 * comparison engine calls summary_sort() once and then quantile_sorted()
 * many times on resamples.
 */
#ifndef KAGARI_ANALYZE_SUMMARY_H
#define KAGARI_ANALYZE_SUMMARY_H

#include <stddef.h>

#include "model/result.h"

/* struct summary is part of the result model (model/result.h). */

/*
 * R type-7 quantile of x[0..n) at probability p in [0, 1]. `sorted` must be
 * ascending. n == 0 returns NAN. As in R, p within 100 machine epsilons
 * outside [0, 1] is clamped; any other p (or NaN) returns NAN. When the two
 * neighbouring order statistics are equal the result is exactly that value.
 */
double quantile_sorted(const double *sorted, size_t n, double p);
/* The same on unsorted data (copies and sorts). */
double quantile(const double *x, size_t n, double p);
/* Fill s from x[0..n); n == 0 gives count 0 and NAN everywhere else. */
void summary_compute(struct summary *s, const double *x, size_t n);

/* Sort x[0..n) ascending in place (NaN, if any, last). */
void summary_sort(double *x, size_t n);
/* Arithmetic mean with a long double sum; NAN when n == 0. */
double summary_mean(const double *x, size_t n);
/* Sample standard deviation (n - 1, two-pass): 0 when n == 1, NAN when n == 0 */
double summary_stddev(const double *x, size_t n);

/*
 * The 0th, 1st, ..., 100th percentiles (R type 7) of the finite values of
 * c->boot into q[0..101). With boot_is_quantiles the values are read as
 * given (so a report re-rendered from JSON reproduces them exactly).
 * Returns 1, or 0 when there is nothing to summarise (q untouched).
 */
int comparison_boot_quantiles(const struct comparison *c, double q[COMPARISON_BOOT_QUANTILES]);

#endif
