/*
 * analyze/trend: Theil-Sen slope and the Mann-Kendall test (trend.h).
 */
#include "analyze/trend.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "analyze/exact.h"
#include "base/xalloc.h"

static int cmp_double(const void *pa, const void *pb)
{
	double a = *(const double *)pa, b = *(const double *)pb;

	return (a > b) - (a < b);
}

/* Fenwick tree over ranks 1..n: counts of the values seen so far. */
static void fen_add(size_t *t, size_t n, size_t i)
{
	for (; i <= n; i += i & (~i + 1))
		t[i]++;
}

static size_t fen_sum(const size_t *t, size_t i)
{
	size_t s = 0;

	for (; i > 0; i -= i & (~i + 1))
		s += t[i];
	return s;
}

/*
 * Mann-Kendall S in O(n log n): with x increasing, S is the number of
 * later values above an earlier one minus those below. Ranks of y with
 * ties sharing the lowest rank; a Fenwick tree counts, for each y[j], the
 * earlier values below and at it. Also sum t(t-1)(2t+5) over tie groups
 * for the variance.
 */
static void mann_kendall(const double *y, size_t n, double *s_out, double *ties_out)
{
	double *sorted = xreallocarray(NULL, n, sizeof(*sorted));
	size_t *tree = xcalloc(n + 1, sizeof(*tree));
	double s = 0, ties = 0;

	memcpy(sorted, y, n * sizeof(*y));
	qsort(sorted, n, sizeof(*sorted), cmp_double);
	for (size_t i = 0; i < n;) {
		size_t j = i;

		while (j < n && sorted[j] == sorted[i])
			j++;
		double t = (double)(j - i);
		ties += t * (t - 1) * (2 * t + 5);
		i = j;
	}
	for (size_t j = 0; j < n; j++) {
		/* ranks: 1 + number of sorted values below y[j] */
		size_t lo = 0, hi = n;

		while (lo < hi) {
			size_t mid = lo + (hi - lo) / 2;

			if (sorted[mid] < y[j])
				lo = mid + 1;
			else
				hi = mid;
		}
		size_t rank = lo + 1;
		size_t below = fen_sum(tree, rank - 1);
		size_t at_or_below = fen_sum(tree, rank);
		size_t above = j - at_or_below;

		s += (double)below - (double)above;
		fen_add(tree, n, rank);
	}
	free(sorted);
	free(tree);
	*s_out = s;
	*ties_out = ties;
}

void trend_fit(const double *x, const double *y, size_t n, struct rng *rng, struct trend *out)
{
	double *sl, *res;
	size_t m = 0;

	memset(out, 0, sizeof(*out));
	out->n = n;
	out->p = NAN;
	if (n < 2) {
		out->intercept = n ? y[0] : 0;
		return;
	}
	if (n <= TREND_EXACT_ROUNDS) {
		sl = xreallocarray(NULL, n * (n - 1) / 2, sizeof(*sl));
		for (size_t i = 0; i < n; i++)
			for (size_t j = i + 1; j < n; j++)
				sl[m++] = (y[j] - y[i]) / (x[j] - x[i]);
	} else {
		/* As many random pairs as the exact fit's largest case. */
		size_t want = (size_t)TREND_EXACT_ROUNDS * (TREND_EXACT_ROUNDS - 1) / 2;

		sl = xreallocarray(NULL, want, sizeof(*sl));
		while (m < want) {
			size_t i = (size_t)rng_below(rng, n), j = (size_t)rng_below(rng, n);

			if (i == j)
				continue;
			sl[m++] = (y[j] - y[i]) / (x[j] - x[i]);
		}
	}
	out->slope = exact_quantile_inplace(sl, m, 0.5);
	free(sl);
	res = xreallocarray(NULL, n, sizeof(*res));
	for (size_t k = 0; k < n; k++)
		res[k] = y[k] - out->slope * x[k];
	out->intercept = exact_quantile_inplace(res, n, 0.5);
	free(res);

	double ties;

	mann_kendall(y, n, &out->s, &ties);
	if (n >= TREND_MIN_ROUNDS) {
		double nn = (double)n;
		double var = (nn * (nn - 1) * (2 * nn + 5) - ties) / 18;

		if (var > 0) {
			double z = (fabs(out->s) - 1) / sqrt(var);

			out->p = z > 0 ? fmin(1, 2 * exact_normal_sf(z)) : 1;
		} else {
			out->p = 1;
		}
	}
}
