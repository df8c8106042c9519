/*
 * analyze/summary: descriptive statistics of a series (summary.h): R type-7
 * quantiles, long-double means, the summary of one series, and the 101
 * bootstrap quantiles a comparison keeps for reports.
 */
#include "analyze/summary.h"

#include <float.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "base/cmp.h"
#include "base/xalloc.h"

void summary_sort(double *x, size_t n)
{
	if (n > 1)
		qsort(x, n, sizeof(*x), cmp_double);
}

double quantile_sorted(const double *sorted, size_t n, double p)
{
	/* R accepts probabilities this far outside [0, 1] and clamps them. */
	const double eps = 100 * DBL_EPSILON;
	double h, frac, a, b;
	size_t lo;

	if (!n || isnan(p) || p < -eps || p > 1 + eps)
		return NAN;
	if (p < 0)
		p = 0;
	if (p > 1)
		p = 1;
	h = (double)(n - 1) * p;
	lo = (size_t)floor(h);
	if (lo >= n - 1)
		return sorted[n - 1];
	frac = h - (double)lo;
	a = sorted[lo];
	b = sorted[lo + 1];
	/*
	 * a + frac * (b - a) rather than R's (1 - frac) * a + frac * b: both
	 * agree to the last bits, but this form returns a exactly at frac 0
	 * and stays within [a, b]. Equal neighbours return the value itself.
	 */
	if (frac <= 0 || a == b)
		return a;
	double q = a + frac * (b - a);
	if (q > b)
		q = b;
	return q;
}

static double *sorted_copy(const double *x, size_t n)
{
	double *c = xreallocarray(NULL, n ? n : 1, sizeof(*c));

	if (n)
		memcpy(c, x, n * sizeof(*c));
	summary_sort(c, n);
	return c;
}

double quantile(const double *x, size_t n, double p)
{
	double *c, q;

	if (!n)
		return NAN;
	c = sorted_copy(x, n);
	q = quantile_sorted(c, n, p);
	free(c);
	return q;
}

/*
 * The mean in long double, clamped to [min, max] of the data: exact sums
 * cannot leave that range, but the final division can round past it (and
 * identical values must give exactly that value, not a neighbour).
 */
static long double mean_ld(const double *x, size_t n)
{
	long double sum = 0, m;
	double lo = x[0], hi = x[0];

	for (size_t i = 0; i < n; i++) {
		sum += x[i];
		if (x[i] < lo)
			lo = x[i];
		if (x[i] > hi)
			hi = x[i];
	}
	if (lo == hi)
		return lo;
	m = sum / (long double)n;
	if (m < lo)
		m = lo;
	if (m > hi)
		m = hi;
	return m;
}

double summary_mean(const double *x, size_t n)
{
	if (!n)
		return NAN;
	return (double)mean_ld(x, n);
}

static double stddev_with_mean(const double *x, size_t n, long double m)
{
	long double ss = 0, comp = 0, var;
	size_t i;

	/* Identical values have no spread, whatever the rounding of m. */
	for (i = 1; i < n && x[i] == x[0]; i++)
		;
	if (i == n)
		return 0;
	/*
	 * Corrected two-pass algorithm (Chan, Golub, LeVeque): the second sum
	 * removes the error left by rounding the mean.
	 */
	for (i = 0; i < n; i++) {
		long double d = (long double)x[i] - m;
		ss += d * d;
		comp += d;
	}
	var = (ss - comp * comp / (long double)n) / (long double)(n - 1);
	if (var < 0)
		var = 0;
	return (double)sqrtl(var);
}

double summary_stddev(const double *x, size_t n)
{
	if (!n)
		return NAN;
	return stddev_with_mean(x, n, mean_ld(x, n));
}

void summary_compute(struct summary *s, const double *x, size_t n)
{
	double *c, q1, q3;
	long double m;

	s->count = n;
	if (!n) {
		s->min = s->max = s->mean = s->median = NAN;
		s->stddev = s->cv = s->robust_cv = NAN;
		s->p90 = s->p95 = s->p99 = NAN;
		return;
	}
	c = sorted_copy(x, n);
	s->min = c[0];
	s->max = c[n - 1];
	m = mean_ld(c, n);
	s->mean = (double)m;
	s->stddev = stddev_with_mean(c, n, m);
	s->median = quantile_sorted(c, n, 0.5);
	q1 = quantile_sorted(c, n, 0.25);
	q3 = quantile_sorted(c, n, 0.75);
	s->p90 = quantile_sorted(c, n, 0.90);
	s->p95 = quantile_sorted(c, n, 0.95);
	s->p99 = quantile_sorted(c, n, 0.99);
	s->cv = s->mean != 0 ? s->stddev / s->mean : NAN;
	s->robust_cv = s->median != 0 ? (q3 - q1) / 1.349 / s->median : NAN;
	free(c);
}

int comparison_boot_quantiles(const struct comparison *c, double q[COMPARISON_BOOT_QUANTILES])
{
	double *v;
	size_t n = 0;

	if (!c->boot || !c->nr_boot)
		return 0;
	v = xreallocarray(NULL, c->nr_boot, sizeof(*v));
	for (size_t i = 0; i < c->nr_boot; i++)
		if (isfinite(c->boot[i]))
			v[n++] = c->boot[i];
	if (!n) {
		free(v);
		return 0;
	}
	/*
	 * R type 7 with h = (n - 1) k / 100 in integers, so that 101 values
	 * read back (already sorted) come out exactly as they went in.
	 */
	summary_sort(v, n);
	for (size_t k = 0; k < COMPARISON_BOOT_QUANTILES; k++) {
		size_t num = (n - 1) * k, lo = num / 100, rem = num % 100;
		double a = v[lo];

		if (!rem || lo + 1 >= n || v[lo + 1] == a) {
			q[k] = a;
		} else {
			double x = a + (double)rem / 100.0 * (v[lo + 1] - a);
			q[k] = x > v[lo + 1] ? v[lo + 1] : x;
		}
	}
	free(v);
	return 1;
}
