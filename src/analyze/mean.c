/*
 * analyze/mean: the change of the mean and the minority behind it
 * (mean.h; docs/statistics.md, "The change of the mean").
 */
#include "analyze/mean.h"

#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "analyze/exact.h"
#include "analyze/summary.h"
#include "base/xalloc.h"

void mean_dist_paired(const double *h, const double *b, size_t n, int resamples, struct rng *rng,
		      struct mean_dist *out)
{
	size_t B = resamples > 0 ? (size_t)resamples : 1;

	memset(out, 0, sizeof(*out));
	if (!n)
		return;
	/* 2^n - 1 non-empty sets: all of them while that is at most B. */
	if (n < 63 && ((uint64_t)1 << n) - 1 <= B) {
		size_t total = ((size_t)1 << n) - 1;

		out->enumerated = 1;
		out->v = xreallocarray(NULL, total, sizeof(double));
		for (size_t set = 1; set <= total; set++) {
			double sh = 0, sb = 0;

			for (size_t k = 0; k < n; k++)
				if (set >> k & 1) {
					sh += h[k];
					sb += b[k];
				}
			out->v[out->n++] = log(sh / sb);
		}
	} else {
		out->v = xreallocarray(NULL, B, sizeof(double));
		for (size_t i = 0; i < B; i++) {
			double sh = 0, sb = 0;
			uint64_t bits = 0;

			for (size_t k = 0; k < n; k++) {
				/* branchless: a random bit mispredicts half the time,
				   and adding 0 * x leaves a finite sum exactly as it
				   was (bench/reanalyze.sh: a quarter of the time) */
				double w;

				if (!(k & 63))
					bits = rng_next(rng);
				w = (double)(bits & 1);
				sh += h[k] * w;
				sb += b[k] * w;
				bits >>= 1;
			}
			if (sb > 0)
				out->v[out->n++] = log(sh / sb);
			else
				out->nr_empty++;
		}
	}
	summary_sort(out->v, out->n);
}

/* How many of the ascending v[0..n) are <= c (upper) or < c (!upper). */
static size_t count_below(const double *v, size_t n, double c, int upper)
{
	size_t lo = 0, hi = n;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (upper ? v[mid] <= c : v[mid] < c)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo;
}

/*
 * The observed pattern counts once (Monte Carlo: (1 + hits) / (B + 1);
 * enumerated: the identity is the one set not listed), a drawn empty set
 * as a tie. A tolerance of 1e-12 in the log keeps rounding from splitting
 * exact ties.
 */
double mean_dist_p_le(const struct mean_dist *d, double c)
{
	size_t hits = count_below(d->v, d->n, c + 1e-12, 1) + d->nr_empty;

	return (double)(1 + hits) / (double)(1 + d->n + d->nr_empty);
}

double mean_dist_p_ge(const struct mean_dist *d, double c)
{
	size_t hits = d->n - count_below(d->v, d->n, c - 1e-12, 0) + d->nr_empty;

	return (double)(1 + hits) / (double)(1 + d->n + d->nr_empty);
}

double mean_dist_quantile(const struct mean_dist *d, double q)
{
	return d->n ? quantile_sorted(d->v, d->n, q) : NAN;
}

double mean_missable_share(size_t n)
{
	return n ? 1 - pow(0.1, 1.0 / (double)n) : 1;
}

void mean_dist_release(struct mean_dist *d)
{
	free(d->v);
	memset(d, 0, sizeof(*d));
}

void mean_minority(const double *lr, size_t n, double theta, int dir, double *share, double *factor)
{
	double *e, *t, med, s, c;
	size_t up = 0, down = 0, k = 0;

	*share = *factor = NAN;
	if (n < 8 || !dir)
		return;
	e = xreallocarray(NULL, n, sizeof(*e));
	t = xreallocarray(NULL, n, sizeof(*t));
	for (size_t i = 0; i < n; i++)
		e[i] = (lr[i] - theta) * (dir > 0 ? 1 : -1);
	memcpy(t, e, n * sizeof(*t));
	med = exact_quantile_inplace(t, n, 0.5);
	for (size_t i = 0; i < n; i++)
		t[i] = fabs(e[i] - med);
	s = 1.4826 * exact_quantile_inplace(t, n, 0.5);
	/* Beyond what the body of the noise reaches, and beyond 15%: the
	   sentence is about runs that took another path, not a wide body. */
	c = fmax(5 * s, log(1.15));
	for (size_t i = 0; i < n; i++) {
		if (e[i] > c)
			t[up++] = lr[i];
		else if (e[i] < -c)
			down++;
	}
	if (up > down) {
		*share = (double)(up - down) / (double)n;
		k = up;
		*factor = exp(exact_quantile_inplace(t, k, 0.5));
	}
	free(e);
	free(t);
}
