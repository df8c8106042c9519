/*
 * history/steps: binary segmentation with an L1 cost (steps.h).
 */
#include "history/steps.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "base/cmp.h"
#include "base/xalloc.h"

/* Median of x[0..n) using scratch (n doubles). */
static double median(const double *x, size_t n, double *scratch)
{
	memcpy(scratch, x, n * sizeof(*x));
	qsort(scratch, n, sizeof(*scratch), cmp_double);
	return n % 2 ? scratch[n / 2] : (scratch[n / 2 - 1] + scratch[n / 2]) / 2;
}

struct ctx {
	const double *x;
	const double *w; /* 1 / each point's noise */
	double min_change;
	size_t min_size;
	double *scratch;
	double *left, *right; /* costs of every prefix and suffix of a segment */
	double *sorted, *sw;  /* values sorted, with their weights */
	struct step *v;
	size_t nr, alloc;
};

/*
 * The weighted L1 cost of a sorted array: sum of w * |a - m| about its
 * weighted median m (the first value whose cumulative weight reaches half
 * the total). With equal weights this is the upper half's sum minus the
 * lower half's, divided by the noise.
 */
static double sorted_cost(const double *a, const double *w, size_t m)
{
	double total = 0, acc = 0, c = 0;
	for (size_t i = 0; i < m; i++)
		total += w[i];
	size_t k = 0;
	while (k + 1 < m && (acc += w[k]) < total / 2)
		k++;
	for (size_t i = 0; i < m; i++)
		c += w[i] * fabs(a[i] - a[k]);
	return c;
}

/*
 * out[k] = cost of x[0..k) for k = 1..n (out[0] = 0), by insertion into a
 * sorted array: O(n^2) for all prefixes instead of a sort per split.
 */
static void prefix_costs(const double *x, const double *w, size_t n, int reverse, double *sorted,
			 double *sw, double *out)
{
	out[0] = 0;
	for (size_t k = 0; k < n; k++) {
		size_t i = reverse ? n - 1 - k : k;
		double v = x[i];
		size_t at = k;
		while (at > 0 && sorted[at - 1] > v) {
			sorted[at] = sorted[at - 1];
			sw[at] = sw[at - 1];
			at--;
		}
		sorted[at] = v;
		sw[at] = w[i];
		out[k + 1] = sorted_cost(sorted, sw, k + 1);
	}
}

static void segment(struct ctx *c, size_t lo, size_t hi)
{
	size_t n = hi - lo;
	if (n < 2 * c->min_size || n < 2)
		return;
	prefix_costs(c->x + lo, c->w + lo, n, 0, c->sorted, c->sw, c->left);
	prefix_costs(c->x + lo, c->w + lo, n, 1, c->sorted, c->sw, c->right);
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
	/* The costs are in units of each point's noise. */
	double pen = 2 * sqrt((double)n * log((double)n));
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
	c->v[c->nr++] = (struct step){at, before, after, pct};
	segment(c, at, hi);
}

/* Segment x with each point's noise sd[i] (> 0). */
static void find(const double *x, const double *sd, size_t n, size_t min_size,
		 double min_change_percent, struct step **steps, size_t *nr_steps)
{
	double *w = xcalloc(n, sizeof(*w));
	for (size_t i = 0; i < n; i++)
		w[i] = 1 / sd[i];
	struct ctx c = {x,
			w,
			min_change_percent,
			min_size ? min_size : 1,
			xcalloc(n, sizeof(double)),
			xcalloc(n + 1, sizeof(double)),
			xcalloc(n + 1, sizeof(double)),
			xcalloc(n + 1, sizeof(double)),
			xcalloc(n + 1, sizeof(double)),
			NULL,
			0,
			0};
	/* Bounded by the segments' lengths: each level of recursion splits. */
	segment(&c, 0, n);
	*steps = c.v;
	*nr_steps = c.nr;
	free(c.scratch);
	free(c.left);
	free(c.right);
	free(c.sorted);
	free(c.sw);
	free(w);
}

/* Exact metrics (counts) have no noise: any change is a step, but a floor
   keeps the penalty positive. */
static double floor_noise(double sigma, const double *x, size_t n, double *scratch)
{
	double level = fabs(median(x, n, scratch));
	return sigma < level * 1e-9 ? level * 1e-9 : sigma;
}

double steps_find(const double *x, size_t n, size_t min_size, double min_change_percent,
		  struct step **steps, size_t *nr_steps)
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
	sigma = floor_noise(sigma, x, n, scratch);
	for (size_t i = 0; i < n; i++)
		d[i] = sigma;
	find(x, d, n, min_size, min_change_percent, steps, nr_steps);
	free(d);
	free(scratch);
	return sigma;
}

size_t steps_run_pairs(const struct steps_point *p, size_t n)
{
	size_t pairs = 0;
	for (size_t i = 0; i < n; i++)
		pairs += p[i].nr_runs > 1 ? p[i].nr_runs - 1 : 0;
	return pairs;
}

double steps_run_noise(const struct steps_point *p, size_t n)
{
	size_t pairs = 0, total = 0;
	for (size_t i = 0; i < n; i++)
		total += p[i].nr_runs;
	double *d = xcalloc(total + n + 1, sizeof(*d));
	double *scratch = xcalloc(total + n + 1, sizeof(*scratch));
	for (size_t i = 0; i < n; i++)
		for (size_t j = 0; j + 1 < p[i].nr_runs; j++)
			d[pairs++] = fabs(p[i].runs[j + 1] - p[i].runs[j]);
	double sigma;
	if (pairs >= STEPS_MIN_PAIRS) {
		sigma = 1.4826 * median(d, pairs, scratch) / sqrt(2.0);
	} else if (n >= STEPS_MIN_PAIRS + 1) {
		/* Consecutive points, each difference scaled to two single runs. */
		size_t m = 0;
		for (size_t i = 0; i + 1 < n; i++) {
			double k0 = p[i].nr_runs ? (double)p[i].nr_runs : 1;
			double k1 = p[i + 1].nr_runs ? (double)p[i + 1].nr_runs : 1;
			d[m++] = fabs(p[i + 1].value - p[i].value) / sqrt(1 / k0 + 1 / k1);
		}
		sigma = 1.4826 * median(d, m, scratch);
	} else {
		/* One or two differences tell nothing: two runs 14% apart
		   are no estimate of the noise, one run none at all. */
		sigma = NAN;
	}
	free(d);
	free(scratch);
	return sigma;
}

/*
 * Runs of one commit are measured back to back, in one session, and share
 * its offset (the day, the machine's state): a point's value varies by
 * tau^2 + sigma_1^2 / k around the commit's true value, and only the second
 * part shrinks with more runs. tau^2 is estimated by the method of moments
 * from consecutive points: Var(x[i+1] - x[i]) = 2 tau^2 + sigma_1^2 (1/k_i
 * + 1/k_i+1) where no step lies between them, the variance of the
 * differences taken robustly (1.4826 * median |dx|)^2, so a step, which
 * changes one difference, barely moves it.
 */
double steps_between_noise(const struct steps_point *p, size_t n, double sigma1)
{
	/* sigma_1 from the points themselves already holds tau: it cannot be
	   told apart from the noise of one run without runs of one commit. */
	if (n < 2 || steps_run_pairs(p, n) < STEPS_MIN_PAIRS || !(sigma1 >= 0))
		return 0;
	double *d = xcalloc(n, sizeof(*d));
	double *scratch = xcalloc(n, sizeof(*scratch));
	double c = 0;
	for (size_t i = 0; i + 1 < n; i++) {
		double k0 = p[i].nr_runs ? (double)p[i].nr_runs : 1;
		double k1 = p[i + 1].nr_runs ? (double)p[i + 1].nr_runs : 1;
		d[i] = fabs(p[i + 1].value - p[i].value);
		c += 1 / k0 + 1 / k1;
	}
	c /= (double)(n - 1);
	double sd = 1.4826 * median(d, n - 1, scratch);
	double tau2 = (sd * sd - sigma1 * sigma1 * c) / 2;
	free(d);
	free(scratch);
	return tau2 > 0 ? sqrt(tau2) : 0;
}

double steps_find_points(const struct steps_point *p, size_t n, size_t min_size,
			 double min_change_percent, struct step **steps, size_t *nr_steps,
			 double *between)
{
	*steps = NULL;
	*nr_steps = 0;
	if (between)
		*between = 0;
	if (n < 2)
		return 0;
	double *x = xcalloc(n, sizeof(*x));
	double *sd = xcalloc(n, sizeof(*sd));
	double *scratch = xcalloc(n, sizeof(*scratch));
	for (size_t i = 0; i < n; i++)
		x[i] = p[i].value;
	double sigma = steps_run_noise(p, n);
	if (isnan(sigma)) {
		/* Unknown noise: no step can be told from it. */
		free(x);
		free(sd);
		free(scratch);
		return sigma;
	}
	sigma = floor_noise(sigma, x, n, scratch);
	double tau = steps_between_noise(p, n, sigma);
	for (size_t i = 0; i < n; i++) {
		double k = p[i].nr_runs ? (double)p[i].nr_runs : 1;
		sd[i] = sqrt(tau * tau + sigma * sigma / k);
	}
	find(x, sd, n, min_size, min_change_percent, steps, nr_steps);
	if (between)
		*between = tau;
	free(x);
	free(sd);
	free(scratch);
	return sigma;
}

size_t steps_runs_needed(double noise, double between, double step)
{
	if (!(noise >= 0) || !(between >= 0) || !(step > 0))
		return 0;
	/* step >= R sqrt(tau^2 + sigma^2 / k)  <=>  k >= sigma^2 / ((step/R)^2 - tau^2) */
	double room = pow(step / STEPS_DETECT_RATIO, 2) - between * between;
	if (!(room > 0))
		return between > 0 ? STEPS_RUNS_NEVER : 1;
	double k = ceil(noise * noise / room - 1e-9);
	if (k < 1)
		k = 1;
	return k > 1e9 ? (size_t)1e9 : (size_t)k;
}
