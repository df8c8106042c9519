/*
 * history/steps: binary segmentation with an L1 cost (steps.h).
 */
#include "history/steps.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "base/xalloc.h"

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;
	return x < y ? -1 : x > y;
}

/* Median of x[0..n) using scratch (n doubles). */
static double median(const double *x, size_t n, double *scratch)
{
	memcpy(scratch, x, n * sizeof(*x));
	qsort(scratch, n, sizeof(*scratch), cmp_double);
	return n % 2 ? scratch[n / 2] : (scratch[n / 2 - 1] + scratch[n / 2]) / 2;
}

struct ctx {
	const double *x;
	double sigma, min_change;
	size_t min_size;
	double *scratch;
	double *left, *right; /* costs of every prefix and suffix of a segment */
	double *sorted;
	struct step *v;
	size_t nr, alloc;
};

/*
 * The L1 cost of a sorted array: the upper half's sum minus the lower
 * half's (the middle element of an odd count deviates by 0).
 */
static double sorted_cost(const double *a, size_t m)
{
	double c = 0;
	for (size_t i = 0; i < m / 2; i++)
		c += a[m - 1 - i] - a[i];
	return c;
}

/*
 * out[k] = cost of x[0..k) for k = 1..n (out[0] = 0), by insertion into a
 * sorted array: O(n^2) for all prefixes instead of a sort per split.
 */
static void prefix_costs(const double *x, size_t n, int reverse, double *sorted,
			 double *out)
{
	out[0] = 0;
	for (size_t k = 0; k < n; k++) {
		double v = reverse ? x[n - 1 - k] : x[k];
		size_t at = k;
		while (at > 0 && sorted[at - 1] > v) {
			sorted[at] = sorted[at - 1];
			at--;
		}
		sorted[at] = v;
		out[k + 1] = sorted_cost(sorted, k + 1);
	}
}

static void segment(struct ctx *c, size_t lo, size_t hi)
{
	size_t n = hi - lo;
	if (n < 2 * c->min_size || n < 2)
		return;
	prefix_costs(c->x + lo, n, 0, c->sorted, c->left);
	prefix_costs(c->x + lo, n, 1, c->sorted, c->right);
	double whole = c->left[n];
	double best = 0;
	size_t at = 0;
	for (size_t k = lo + c->min_size; k + c->min_size <= hi; k++) {
		double gain = whole - c->left[k - lo] - c->right[hi - k];
		if (gain > best) {
			best = gain;
			at = k;
		}
	}
	double pen = 2 * c->sigma * sqrt((double)n * log((double)n));
	if (!at || !(best > pen))
		return;
	double before = median(c->x + lo, at - lo, c->scratch);
	double after = median(c->x + at, hi - at, c->scratch);
	double pct = before != 0 ? (after - before) / fabs(before) * 100 : NAN;
	if (isfinite(pct) && fabs(pct) < c->min_change)
		return;
	segment(c, lo, at);
	if (c->nr == c->alloc) {
		c->alloc = c->alloc ? 2 * c->alloc : 4;
		c->v = xreallocarray(c->v, c->alloc, sizeof(*c->v));
	}
	c->v[c->nr++] = (struct step){ at, before, after, pct };
	segment(c, at, hi);
}

double steps_find(const double *x, size_t n, size_t min_size,
		  double min_change_percent, struct step **steps, size_t *nr_steps)
{
	*steps = NULL;
	*nr_steps = 0;
	if (n < 2)
		return 0;
	double *d = xcalloc(n, sizeof(*d));
	double *scratch = xcalloc(n, sizeof(*scratch));
	for (size_t i = 0; i + 1 < n; i++)
		d[i] = fabs(x[i + 1] - x[i]);
	double sigma = 1.4826 * median(d, n - 1, scratch) / sqrt(2.0);
	/* Exact metrics (counts) have no noise: any change is a step, but a
	   floor keeps the penalty positive. */
	double level = fabs(median(x, n, scratch));
	if (sigma < level * 1e-9)
		sigma = level * 1e-9;
	struct ctx c = { x, sigma, min_change_percent, min_size ? min_size : 1, scratch,
			 xcalloc(n + 1, sizeof(double)), xcalloc(n + 1, sizeof(double)),
			 xcalloc(n + 1, sizeof(double)), NULL, 0, 0 };
	/* Bounded by the segments' lengths: each level of recursion splits. */
	segment(&c, 0, n);
	*steps = c.v;
	*nr_steps = c.nr;
	free(c.left);
	free(c.right);
	free(c.sorted);
	free(d);
	free(scratch);
	return sigma;
}
