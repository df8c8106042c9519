/*
 * history/steps: binary segmentation by a winsorized CUSUM (steps.h).
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

struct vw {
	double v, w;
};

struct ctx {
	const double *x;
	const double *orig; /* the values the steps' sizes are told in (x, or
			       what x is the logarithm of) */
	const double *w;    /* 1 / each point's noise */
	double min_change;
	size_t min_size;
	double *scratch;
	double *left, *right; /* prefix sums of a segment (split_cusum()) */
	struct vw *vw;	      /* values with their weights, to sort */
	struct step *v;
	size_t nr, alloc;
};

static int cmp_vw(const void *a, const void *b)
{
	double x = ((const struct vw *)a)->v, y = ((const struct vw *)b)->v;
	return (x > y) - (x < y);
}

/* The weighted median of x[lo, hi) (weights w: the first value whose
   cumulative weight reaches half the total) and the sum of the squared
   weights (the precision of the points). O(m log m). */
static double weighted_median(const struct ctx *c, size_t lo, size_t hi, double *prec)
{
	size_t m = hi - lo;
	struct vw *t = c->vw;
	double total = 0, acc = 0;
	*prec = 0;
	for (size_t i = 0; i < m; i++) {
		t[i] = (struct vw){c->x[lo + i], c->w[lo + i]};
		*prec += t[i].w * t[i].w;
		total += t[i].w;
	}
	qsort(t, m, sizeof(*t), cmp_vw);
	size_t k = 0;
	while (k + 1 < m && (acc += t[k].w) < total / 2)
		k++;
	return t[k].v;
}

/*
 * The best split of x[lo, hi) by a winsorized CUSUM: each point, in units
 * of its own noise, is clipped to within CLIP of the segment's weighted
 * median (one wild run moves nothing far), and the split is the one that
 * explains most of the squares, S_L^2/P_L + S_R^2/P_R - S^2/P (P the sum
 * of the points' precisions 1/sigma_i^2, S of precision times value):
 * that is z^2, z the difference of the two sides' (winsorized) means in
 * standard errors. Returns z, the split in *at (0: none).
 */
#define CLIP 2.0
static double split_cusum(struct ctx *c, size_t lo, size_t hi, size_t *at)
{
	size_t n = hi - lo;
	double pw;
	double m = weighted_median(c, lo, hi, &pw);
	double *cp = c->left, *cs = c->right; /* prefix precision and sums */
	cp[0] = cs[0] = 0;
	for (size_t i = 0; i < n; i++) {
		double w = c->w[lo + i], r = (c->x[lo + i] - m) * w;
		r = r > CLIP ? CLIP : r < -CLIP ? -CLIP : r;
		cp[i + 1] = cp[i] + w * w;
		cs[i + 1] = cs[i] + w * r; /* w^2 (x~ - m), x~ - m = r / w */
	}
	double best = 0;
	*at = 0;
	for (size_t k = c->min_size; k + c->min_size <= n; k++) {
		double pl = cp[k], pr = cp[n] - cp[k], sl = cs[k], sr = cs[n] - cs[k];
		double g = sl * sl / pl + sr * sr / pr - cs[n] * cs[n] / cp[n];
		if (g > best) {
			best = g;
			*at = lo + k;
		}
	}
	return sqrt(best);
}

/* The winsorized mean of x[lo, hi) about its own weighted median (each
   point clipped to within CLIP of its noise), and the precision. */
static double winsorized_mean(struct ctx *c, size_t lo, size_t hi, double *prec)
{
	double p, s = 0;
	double m = weighted_median(c, lo, hi, &p);
	for (size_t i = lo; i < hi; i++) {
		double w = c->w[i], r = (c->x[i] - m) * w;
		r = r > CLIP ? CLIP : r < -CLIP ? -CLIP : r;
		s += w * r;
	}
	*prec = p;
	return m + s / p;
}

/* The two sides of a split apart, in standard errors: their winsorized
   means (each about its own median, so a large step is not clipped). */
static double split_sides_z(struct ctx *c, size_t lo, size_t at, size_t hi)
{
	double pl, pr;
	double ml = winsorized_mean(c, lo, at, &pl);
	double mr = winsorized_mean(c, at, hi, &pr);
	return fabs(mr - ml) / sqrt(1 / pl + 1 / pr);
}

/*
 * The least distance between the two sides of a split, in standard
 * errors, for a step in a segment of n commits: STEPS_Z, and more on short
 * segments, whose noise is itself estimated from few differences (set by
 * simulation, docs/history.md).
 */
static double threshold(size_t n)
{
	return STEPS_Z * (1 + 4 / (double)n);
}

static void segment(struct ctx *c, size_t lo, size_t hi)
{
	size_t n = hi - lo, at;
	if (n < 2 * c->min_size || n < 2)
		return;
	split_cusum(c, lo, hi, &at);
	if (!at)
		return;
	/* accepted by the sides' own distance: each side clipped about its
	   own median, so that a large step is measured whole */
	double z = split_sides_z(c, lo, at, hi);
	if (!(z > threshold(n)))
		return;
	double before = median(c->orig + lo, at - lo, c->scratch);
	double after = median(c->orig + at, hi - at, c->scratch);
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
static void find(const double *x, const double *orig, const double *sd, size_t n, size_t min_size,
		 double min_change_percent, struct step **steps, size_t *nr_steps)
{
	double *w = xcalloc(n, sizeof(*w));
	for (size_t i = 0; i < n; i++)
		w[i] = 1 / sd[i];
	struct ctx c = {x,
			orig,
			w,
			min_change_percent,
			min_size ? min_size : 1,
			xcalloc(n, sizeof(double)),
			xcalloc(n + 1, sizeof(double)),
			xcalloc(n + 1, sizeof(double)),
			xcalloc(n + 1, sizeof(struct vw)),
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
	free(c.vw);
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
	find(x, x, d, n, min_size, min_change_percent, steps, nr_steps);
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

/* steps_run_noise() leaving out the differences across a cut (cut[i]: a
   known step between points i - 1 and i; NULL: none). */
static double run_noise(const struct steps_point *p, size_t n, const unsigned char *cut)
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
			if (!cut || !cut[i + 1])
				d[m++] = fabs(p[i + 1].value - p[i].value) / sqrt(1 / k0 + 1 / k1);
		}
		sigma = m >= STEPS_MIN_PAIRS ? 1.4826 * median(d, m, scratch) : NAN;
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
double steps_run_noise(const struct steps_point *p, size_t n)
{
	return run_noise(p, n, NULL);
}

/* steps_between_noise() leaving out the differences across a cut. */
static double between_noise(const struct steps_point *p, size_t n, double sigma1,
			    const unsigned char *cut)
{
	/* sigma_1 from the points themselves already holds tau: it cannot be
	   told apart from the noise of one run without runs of one commit. */
	if (n < 2 || steps_run_pairs(p, n) < STEPS_MIN_PAIRS || !(sigma1 >= 0))
		return 0;
	double *d = xcalloc(n, sizeof(*d));
	double *scratch = xcalloc(n, sizeof(*scratch));
	double c = 0;
	size_t m = 0;
	for (size_t i = 0; i + 1 < n; i++) {
		double k0 = p[i].nr_runs ? (double)p[i].nr_runs : 1;
		double k1 = p[i + 1].nr_runs ? (double)p[i + 1].nr_runs : 1;
		if (cut && cut[i + 1])
			continue;
		d[m++] = fabs(p[i + 1].value - p[i].value);
		c += 1 / k0 + 1 / k1;
	}
	double tau2 = 0;
	if (m) {
		c /= (double)m;
		double sd = 1.4826 * median(d, m, scratch);
		tau2 = (sd * sd - sigma1 * sigma1 * c) / 2;
	}
	free(d);
	free(scratch);
	return tau2 > 0 ? sqrt(tau2) : 0;
}

double steps_between_noise(const struct steps_point *p, size_t n, double sigma1)
{
	return between_noise(p, n, sigma1, NULL);
}

/* Every value and run of p[0..n) above 0 (and finite). */
static int all_positive(const struct steps_point *p, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		if (!(p[i].value > 0) || !isfinite(p[i].value))
			return 0;
		for (size_t j = 0; j < p[i].nr_runs; j++)
			if (!(p[i].runs[j] > 0) || !isfinite(p[i].runs[j]))
				return 0;
	}
	return 1;
}

/* p with every value and run as its logarithm (caller frees each runs
   array and the points). */
static struct steps_point *log_points(const struct steps_point *p, size_t n)
{
	struct steps_point *q = xcalloc(n, sizeof(*q));
	for (size_t i = 0; i < n; i++) {
		double *r = xcalloc(p[i].nr_runs + 1, sizeof(*r));
		for (size_t j = 0; j < p[i].nr_runs; j++)
			r[j] = log(p[i].runs[j]);
		q[i] = (struct steps_point){log(p[i].value), r, p[i].nr_runs};
	}
	return q;
}

double steps_find_points(const struct steps_point *p, size_t n, size_t min_size,
			 double min_change_percent, struct step **steps, size_t *nr_steps,
			 double *between)
{
	return steps_find_points_cut(p, n, NULL, min_size, min_change_percent, steps, nr_steps,
				     between);
}

double steps_find_points_cut(const struct steps_point *p, size_t n, const unsigned char *cut,
			     size_t min_size, double min_change_percent, struct step **steps,
			     size_t *nr_steps, double *between)
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
	double sigma = run_noise(p, n, cut);
	if (isnan(sigma)) {
		/* Unknown noise: no step can be told from it. */
		free(x);
		free(sd);
		free(scratch);
		return sigma;
	}
	sigma = floor_noise(sigma, x, n, scratch);
	double tau = between_noise(p, n, sigma, cut);
	/*
	 * Times and sizes change by factors: a step that makes a program 2x
	 * slower doubles its noise too, and one noise for the whole series
	 * then sees steps in every stretch after it. Segmented as logarithms
	 * (when every value is positive), the noise is the same on every
	 * level and a step of +20% is the same size on any of them. sigma and
	 * tau are returned as measured (the noise line's percentages).
	 */
	struct steps_point *lp = all_positive(p, n) ? log_points(p, n) : NULL;
	double *lx = lp ? xcalloc(n, sizeof(*lx)) : NULL;
	double ds = sigma, dt = tau;
	if (lp) {
		for (size_t i = 0; i < n; i++)
			lx[i] = lp[i].value;
		ds = run_noise(lp, n, cut);
		if (!(ds >= 1e-9))
			ds = 1e-9; /* exact values: any change counts */
		dt = between_noise(lp, n, ds, cut);
	}
	for (size_t i = 0; i < n; i++) {
		double k = p[i].nr_runs ? (double)p[i].nr_runs : 1;
		sd[i] = sqrt(dt * dt + ds * ds / k);
	}
	/* Each stretch between known steps on its own: a level the pairs
	   measured is no level the series should guess across. */
	const double *dx = lp ? lx : x;
	for (size_t a = 0, b; a < n; a = b) {
		for (b = a + 1; b < n && !(cut && cut[b]);)
			b++;
		struct step *st;
		size_t nr;
		find(dx + a, x + a, sd + a, b - a, min_size, min_change_percent, &st, &nr);
		if (nr) {
			*steps = xreallocarray(*steps, *nr_steps + nr, sizeof(**steps));
			for (size_t k = 0; k < nr; k++) {
				st[k].at += a;
				(*steps)[(*nr_steps)++] = st[k];
			}
		}
		free(st);
	}
	if (lp) {
		for (size_t i = 0; i < n; i++)
			free((double *)lp[i].runs);
		free(lp);
		free(lx);
	}
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
