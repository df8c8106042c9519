/*
 * history/steps: binary segmentation by a winsorized CUSUM, blocks of a few
 * commits on a level of their own, each step placed by the series' own
 * noise (steps.h).
 */
#include "history/steps.h"

#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "base/cmp.h"
#include "base/xalloc.h"

/* Median of s[0..n), ascending (halved before the sum: two values near
   DBL_MAX have a finite mean). */
static double median_sorted(const double *s, size_t n)
{
	return n % 2 ? s[n / 2] : s[n / 2 - 1] / 2 + s[n / 2] / 2;
}

/* Median of x[0..n) using scratch (n doubles, not x). */
static double median(const double *x, size_t n, double *scratch)
{
	memcpy(scratch, x, n * sizeof(*x));
	qsort(scratch, n, sizeof(*scratch), cmp_double);
	return median_sorted(scratch, n);
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
	struct vi *vi;	      /* values with their indexes, to sort */
	struct step *v;
	size_t nr, alloc;
};

static int cmp_vw(const void *a, const void *b)
{
	/* cmp_double's total order: qsort stays defined with NaN */
	return cmp_double(&((const struct vw *)a)->v, &((const struct vw *)b)->v);
}

/* The weighted median of x[lo, hi) and x[lo2, hi2) (the second range may
   be empty; weights w: the first value whose cumulative weight reaches
   half the total) and the sum of the squared weights (the precision of
   the points). O(m log m). */
static double weighted_median2(const struct ctx *c, size_t lo, size_t hi, size_t lo2, size_t hi2,
			       double *prec)
{
	struct vw *t = c->vw;
	double total = 0, acc = 0;
	size_t m = 0;
	*prec = 0;
	for (int r = 0; r < 2; r++)
		for (size_t i = r ? lo2 : lo; i < (r ? hi2 : hi); i++) {
			t[m] = (struct vw){c->x[i], c->w[i]};
			*prec += t[m].w * t[m].w;
			total += t[m++].w;
		}
	qsort(t, m, sizeof(*t), cmp_vw);
	size_t k = 0;
	while (k + 1 < m && (acc += t[k].w) < total / 2)
		k++;
	return t[k].v;
}

static double weighted_median(const struct ctx *c, size_t lo, size_t hi, double *prec)
{
	return weighted_median2(c, lo, hi, hi, hi, prec);
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

/* The winsorized mean of x[lo, hi) and x[lo2, hi2) about their own
   weighted median (each point clipped to within CLIP of its noise), and
   the precision. */
static double winsorized_mean2(struct ctx *c, size_t lo, size_t hi, size_t lo2, size_t hi2,
			       double *prec)
{
	double p, s = 0;
	double m = weighted_median2(c, lo, hi, lo2, hi2, &p);
	for (int k = 0; k < 2; k++)
		for (size_t i = k ? lo2 : lo; i < (k ? hi2 : hi); i++) {
			double w = c->w[i], r = (c->x[i] - m) * w;
			r = r > CLIP ? CLIP : r < -CLIP ? -CLIP : r;
			s += w * r;
		}
	*prec = p;
	return m + s / p;
}

static double winsorized_mean(struct ctx *c, size_t lo, size_t hi, double *prec)
{
	return winsorized_mean2(c, lo, hi, hi, hi, prec);
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

/* The change from the median of orig[lo, at) to that of orig[at, hi), in
   percent (NAN from a median of 0), the medians in *before and *after. */
static double change(struct ctx *c, size_t lo, size_t at, size_t hi, double *before, double *after)
{
	*before = median(c->orig + lo, at - lo, c->scratch);
	*after = median(c->orig + at, hi - at, c->scratch);
	return *before != 0 ? (*after - *before) / fabs(*before) * 100 : NAN;
}

/* Too small a change to be a step (--min-change). */
static int below_min_change(const struct ctx *c, double pct)
{
	return isfinite(pct) && fabs(pct) < c->min_change;
}

static void push(struct ctx *c, size_t lo, size_t at, size_t hi)
{
	if (c->nr == c->alloc) {
		c->alloc = c->alloc ? 2 * c->alloc : 4;
		c->v = xreallocarray(c->v, c->alloc, sizeof(*c->v));
	}
	struct step *s = &c->v[c->nr];
	s->at = at;
	s->change_percent = change(c, lo, at, hi, &s->before, &s->after);
	c->nr++;
}

/*
 * A few commits on a level of their own in the middle of a segment (a
 * step and its undoing, 3 to 5 commits apart) are a single split's blind
 * spot: they move either side's mean too little, all the less as the
 * CUSUM clips them to CLIP. Such a level, when its points lie beyond every
 * other point of the segment (interval_is_level()), is the L least (or
 * greatest) points of the segment standing side by side: [*i, *j), the
 * greatest such L of at least 3 and at least min_size (the block is a
 * part between two steps), at most half the segment, with min_size
 * points on either side, below the rest when below, else above it.
 * O(n log n). Returns 0 when there is none.
 */
struct vi {
	double v;
	size_t i;
};

static int cmp_vi(const void *a, const void *b)
{
	return cmp_double(&((const struct vi *)a)->v, &((const struct vi *)b)->v);
}

static int extreme_block(struct ctx *c, size_t lo, size_t hi, int below, size_t *i, size_t *j)
{
	size_t n = hi - lo, ms = c->min_size, first = SIZE_MAX, last = 0;
	struct vi *t = c->vi;
	for (size_t k = 0; k < n; k++)
		t[k] = (struct vi){c->x[lo + k], lo + k};
	qsort(t, n, sizeof(*t), cmp_vi);
	int found = 0;
	for (size_t l = 1; 2 * l <= n; l++) {
		size_t at = t[below ? l - 1 : n - l].i;
		first = at < first ? at : first;
		last = at > last ? at : last;
		if (l >= 3 && l >= ms && last - first + 1 == l && first >= lo + ms &&
		    last + 1 + ms <= hi) {
			*i = first;
			*j = last + 1;
			found = 1;
		}
	}
	return found;
}

/*
 * The chance that the l least (or greatest) of n exchangeable points
 * stand side by side, as noise without a level puts them in any order:
 * 2 (n - l + 1) l! (n - l)! / n!. A block of a few commits is a level
 * only when this is under BLOCK_CHANCE, so it needs more commits in a
 * shorter segment (3 of 50, 5 of 16, none of 8): of lines of 16 points
 * whose noise has a 20 % tail, 3 of 3 adjacent ones are often that tail.
 */
#define BLOCK_CHANCE 0.01
static double block_chance(size_t n, size_t l)
{
	return 2 * exp(log((double)(n - l + 1)) + lgamma((double)l + 1) +
		       lgamma((double)(n - l) + 1) - lgamma((double)n + 1));
}

/*
 * Is [i, j) a level of its own within [lo, hi)? Its distance from the
 * rest in standard errors when it is, else 0. At least 3 commits (two
 * adjacent wild runs are no level), every one of them beyond every point
 * of the rest (below the least, or above the greatest: the rest's own
 * spread, whatever its shape, says they are none of its noise, where a
 * standard error would count a few runs of a long tail as a level), its
 * winsorized mean threshold() standard errors from the rest's, each of
 * its two edges a step by the test of a single split, and each a change
 * of at least min_change, and a block no noise is likely to make
 * (block_chance()). Over seven seeds of bench/steps.sh this adds no false
 * step to the A/A series; in simulated A/A lines of 8 to 1,000 commits of
 * Gaussian, skewed, Student t(3) and 20 %-tailed noise at most one series
 * in a thousand (docs/history.md).
 */
static double interval_is_level(struct ctx *c, size_t lo, size_t i, size_t j, size_t hi)
{
	if (j - i < 3 || !(block_chance(hi - lo, j - i) < BLOCK_CHANCE))
		return 0;
	double pin, pout;
	double min = winsorized_mean(c, i, j, &pin);
	double mout = winsorized_mean2(c, lo, i, j, hi, &pout);
	int below = min < mout;
	double near = below ? -INFINITY : INFINITY; /* the inner point nearest the rest */
	for (size_t k = i; k < j; k++)
		near = below ? fmax(near, c->x[k]) : fmin(near, c->x[k]);
	for (size_t k = lo; k < hi; k = k + 1 == i ? j : k + 1)
		if (below ? c->x[k] <= near : c->x[k] >= near)
			return 0;
	double z = fabs(min - mout) / sqrt(1 / pin + 1 / pout);
	if (!(z > threshold(hi - lo)))
		return 0;
	if (!(split_sides_z(c, lo, i, j) > threshold(j - lo)) ||
	    !(split_sides_z(c, i, j, hi) > threshold(hi - i)))
		return 0;
	double b, a;
	if (below_min_change(c, change(c, lo, i, j, &b, &a)) ||
	    below_min_change(c, change(c, i, j, hi, &b, &a)))
		return 0;
	return z;
}

static void segment(struct ctx *c, size_t lo, size_t hi)
{
	size_t n = hi - lo, at, i = 0, j = 0;
	if (n < 2 * c->min_size || n < 2)
		return;
	split_cusum(c, lo, hi, &at);
	/* accepted by the sides' own distance: each side clipped about its
	   own median, so that a large step is measured whole */
	double b, a;
	if (at && split_sides_z(c, lo, at, hi) > threshold(n) &&
	    !below_min_change(c, change(c, lo, at, hi, &b, &a))) {
		segment(c, lo, at);
		push(c, lo, at, hi);
		segment(c, at, hi);
		return;
	}
	/* No single split: a few commits on a level of their own? */
	double best = 0;
	for (int below = 0; below < 2; below++) {
		size_t bi = 0, bj = 0;
		double z;
		if (extreme_block(c, lo, hi, below, &bi, &bj) &&
		    (z = interval_is_level(c, lo, bi, bj, hi)) > best) {
			best = z;
			i = bi;
			j = bj;
		}
	}
	if (best > 0) {
		segment(c, lo, i);
		push(c, lo, i, j);
		segment(c, i, j);
		push(c, i, j, hi);
		segment(c, j, hi);
	}
}

/*
 * Where a found step is placed. The split that explains most of the
 * clipped squares is right for telling whether there is a step, not for
 * where: the point beside a step of skewed noise (a long tail on one side,
 * as the recorded traces have) is clipped about the pooled segment's
 * median and can look like the other level. So each step, once its
 * neighbours are known, is moved to the commit within REFINE_REACH of it
 * (and min_size of its neighbours) that makes the points on either side
 * likeliest about their own levels (each side's weighted median), the
 * likelihood that of the noise the series itself shows: a kernel density
 * of the residuals about every level, in units of each point's noise
 * (Gaussian kernel, Silverman's bandwidth 1.06 min(sd, 1.4826 MAD)
 * N^-1/5). A few passes, as a moved step moves its neighbours' levels.
 */
#define REFINE_REACH 20
#define REFINE_PASSES 3

struct density {
	const double *r; /* residuals, ascending */
	size_t n;
	double h;
	double lnorm;  /* log(n h sqrt(2 pi)) */
	double g0, dg; /* the table: -log f at g0 + j dg, j < nt */
	double *t;
	size_t nt;
};

/* -log of the density at z (the kernels beyond 8 h left out; a z beyond
   every kernel gets the nearest residual's, in log form). O(the residuals
   within 8 h of z). */
static double nll_exact(const struct density *d, double z)
{
	const double cut = 8 * d->h;
	size_t a = 0, b = d->n;
	while (a < b) { /* the first residual >= z - cut */
		size_t mid = a + (b - a) / 2;
		if (d->r[mid] < z - cut)
			a = mid + 1;
		else
			b = mid;
	}
	double s = 0;
	for (size_t k = a; k < d->n && d->r[k] <= z + cut; k++) {
		double u = (z - d->r[k]) / d->h;
		s += exp(-0.5 * u * u);
	}
	if (s > 0)
		return d->lnorm - log(s);
	double near = a < d->n ? d->r[a] : d->r[d->n - 1];
	if (a > 0 && fabs(z - d->r[a - 1]) < fabs(z - near))
		near = d->r[a - 1];
	double u = (z - near) / d->h;
	return d->lnorm + 0.5 * u * u;
}

/*
 * nll_exact() tabulated once per pass, every h / TABLE_STEPS from 8 h
 * below the least residual to 8 h above the greatest (at most TABLE_MAX
 * points about the median residual), and read by linear interpolation:
 * where half the residuals lie within a few h of each other, as they do
 * in a long series, each exact value sums most of them, and placing the
 * steps of a series of 2,000 commits with a step every few commits took
 * seconds. -log f curves by at most 1 / h^2 where it is a sum of kernels
 * (and by exactly that beyond them), so the interpolation is within
 * 1 / (8 TABLE_STEPS^2) of it. Each residual adds its kernel to the 16
 * TABLE_STEPS + 1 points within 8 h of it by a recurrence of products (no
 * exp per point): O(n TABLE_STEPS). A z off the table (far out among a
 * few outliers) is computed exactly.
 */
#define TABLE_STEPS 8
#define TABLE_MAX ((size_t)1 << 16)

static void tabulate(struct density *d, double **buf, size_t *alloc)
{
	double h = d->h, dg = h / TABLE_STEPS, cut = 8 * h;
	double mid = d->r[d->n / 2], half = (double)(TABLE_MAX / 2) * dg;
	double lo = d->r[0] - cut, hi = d->r[d->n - 1] + cut;
	lo = lo < mid - half ? mid - half : lo;
	hi = hi > mid + half ? mid + half : hi;
	size_t nt = (size_t)((hi - lo) / dg) + 2;
	if (nt > *alloc) {
		*alloc = nt;
		*buf = xreallocarray(*buf, nt, sizeof(**buf));
	}
	double *t = *buf;
	memset(t, 0, nt * sizeof(*t));
	/* exp(-u^2 / 2) at u, u + e, u + 2e ...: each term is the last times
	   q, and q shrinks by exp(-e^2) a step */
	const double e = 1.0 / TABLE_STEPS, shrink = exp(-e * e);
	for (size_t k = 0; k < d->n; k++) {
		double ja = ceil((d->r[k] - cut - lo) / dg), jb = floor((d->r[k] + cut - lo) / dg);
		ja = ja < 0 ? 0 : ja;
		jb = jb > (double)(nt - 1) ? (double)(nt - 1) : jb;
		if (!(ja <= jb))
			continue;
		double u = (lo + ja * dg - d->r[k]) / h;
		double v = exp(-0.5 * u * u), q = exp(-u * e - 0.5 * e * e);
		for (size_t j = (size_t)ja; j <= (size_t)jb; j++) {
			t[j] += v;
			v *= q;
			q *= shrink;
		}
	}
	/* where no kernel reaches, nll_exact()'s parabola about the nearest
	   residual (r[a - 1] or r[a], a the first residual at or above) */
	for (size_t j = 0, a = 0; j < nt; j++) {
		double z = lo + (double)j * dg;
		while (a < d->n && d->r[a] < z)
			a++;
		if (t[j] > 0) {
			t[j] = d->lnorm - log(t[j]);
			continue;
		}
		double near = a < d->n ? d->r[a] : d->r[d->n - 1];
		if (a > 0 && fabs(z - d->r[a - 1]) < fabs(z - near))
			near = d->r[a - 1];
		double u = (z - near) / h;
		t[j] = d->lnorm + 0.5 * u * u;
	}
	d->g0 = lo;
	d->dg = dg;
	d->t = t;
	d->nt = nt;
}

/* -log of the density at z: the table's, interpolated, on it. */
static double nll(const struct density *d, double z)
{
	double x = (z - d->g0) / d->dg;
	if (!(x >= 0 && x < (double)(d->nt - 1)))
		return nll_exact(d, z);
	size_t j = (size_t)x;
	double f = x - (double)j;
	return d->t[j] + f * (d->t[j + 1] - d->t[j]);
}

/* The residuals of x about the levels between the steps, in units of each
   point's noise, sorted, and their bandwidth; 0 when they have no spread
   (exact values: nothing to weigh). */
static int residuals(struct ctx *c, size_t n, double *r, struct density *d)
{
	for (size_t k = 0, lo = 0; k <= c->nr; k++) {
		size_t hi = k < c->nr ? c->v[k].at : n, i;
		double p;
		double m = weighted_median(c, lo, hi, &p);
		for (i = lo; i < hi; i++)
			r[i] = (c->x[i] - m) * c->w[i];
		lo = hi;
	}
	qsort(r, n, sizeof(*r), cmp_double);
	double mean = 0, var = 0;
	for (size_t i = 0; i < n; i++)
		mean += r[i];
	mean /= (double)n;
	for (size_t i = 0; i < n; i++)
		var += (r[i] - mean) * (r[i] - mean);
	double sd = sqrt(var / (double)n);
	double mid = median_sorted(r, n);
	for (size_t i = 0; i < n; i++)
		c->scratch[i] = fabs(r[i] - mid);
	qsort(c->scratch, n, sizeof(*c->scratch), cmp_double);
	double mad = 1.4826 * median_sorted(c->scratch, n);
	double s = mad < sd ? mad : sd;
	double h = 1.06 * s * pow((double)n, -0.2);
	*d = (struct density){r, n, h, log((double)n * h * sqrt(2 * M_PI)), 0, 0, NULL, 0};
	return d->h > 0 && isfinite(d->h);
}

static void refine(struct ctx *c, size_t n)
{
	double *r = xcalloc(n, sizeof(*r));
	double *dl = xcalloc(2 * REFINE_REACH + 1, sizeof(*dl));
	double *dr = xcalloc(2 * REFINE_REACH + 1, sizeof(*dr));
	double *table = NULL;
	size_t table_alloc = 0;
	struct density d;
	for (int pass = 0; pass < REFINE_PASSES && residuals(c, n, r, &d); pass++) {
		int moved = 0;
		tabulate(&d, &table, &table_alloc);
		for (size_t k = 0; k < c->nr; k++) {
			size_t lo = k ? c->v[k - 1].at : 0, hi = k + 1 < c->nr ? c->v[k + 1].at : n;
			size_t at = c->v[k].at, ms = c->min_size;
			size_t a = at > lo + ms + REFINE_REACH ? at - REFINE_REACH : lo + ms;
			size_t b = at + REFINE_REACH + ms < hi ? at + REFINE_REACH : hi - ms;
			if (a >= b)
				continue;
			double p;
			double ml = weighted_median(c, lo, at, &p),
			       mr = weighted_median(c, at, hi, &p);
			/* cost(s) = sum over [a, s) of -log f about the left level
			   + over [s, b) about the right one */
			double cost = 0;
			for (size_t i = a; i < b; i++) {
				dl[i - a] = nll(&d, (c->x[i] - ml) * c->w[i]);
				dr[i - a] = nll(&d, (c->x[i] - mr) * c->w[i]);
				cost += dr[i - a];
			}
			double best = INFINITY, here = NAN;
			size_t to = at;
			for (size_t s = a; s <= b; s++) {
				if (s == at)
					here = cost;
				if (cost < best) {
					best = cost;
					to = s;
				}
				if (s < b)
					cost += dl[s - a] - dr[s - a];
			}
			if (to != at && best < here - 1e-9) {
				c->v[k].at = to;
				moved = 1;
			}
		}
		if (!moved)
			break;
	}
	free(table);
	free(dl);
	free(dr);
	free(r);
}

/*
 * Each step tested again between its final neighbours, as segment()
 * tested it between the ends of its segment then: a large step that the
 * pooled CUSUM placed a commit or two late leaves those commits as a
 * level of their own in the part before it, found as a second step beside
 * the first, and placed, the two are one. The weakest step that fails is
 * dropped, and the test repeated until every step passes. Returns whether
 * any was dropped.
 */
static int prune(struct ctx *c, size_t n)
{
	int dropped = 0;
	for (;;) {
		size_t worst = c->nr;
		double least = INFINITY;
		for (size_t k = 0; k < c->nr; k++) {
			size_t lo = k ? c->v[k - 1].at : 0, hi = k + 1 < c->nr ? c->v[k + 1].at : n;
			size_t at = c->v[k].at;
			double b, a;
			double r = split_sides_z(c, lo, at, hi) / threshold(hi - lo);
			if (below_min_change(c, change(c, lo, at, hi, &b, &a)))
				r = 0;
			if (!(r > 1) && !(r >= least)) {
				least = r;
				worst = k;
			}
		}
		if (worst == c->nr)
			return dropped;
		memmove(c->v + worst, c->v + worst + 1, (c->nr - worst - 1) * sizeof(*c->v));
		c->nr--;
		dropped = 1;
	}
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
			xcalloc(n + 1, sizeof(struct vi)),
			NULL,
			0,
			0};
	/* Bounded by the segments' lengths: each level of recursion splits. */
	segment(&c, 0, n);
	for (int round = 0; round < 3 && c.nr; round++) {
		refine(&c, n);
		if (!prune(&c, n))
			break;
	}
	/* each step's size: the medians of its neighbouring segments */
	for (size_t k = 0; k < c.nr; k++) {
		size_t lo = k ? c.v[k - 1].at : 0, hi = k + 1 < c.nr ? c.v[k + 1].at : n;
		struct step *s = &c.v[k];
		s->change_percent = change(&c, lo, s->at, hi, &s->before, &s->after);
	}
	*steps = c.v;
	*nr_steps = c.nr;
	free(c.scratch);
	free(c.left);
	free(c.right);
	free(c.vw);
	free(c.vi);
	free(w);
}

/*
 * Exact metrics (counts) have no noise: any change is a step, but a floor
 * keeps the penalty positive and every weight finite: 1e-9 of the level,
 * the median's size, or when that is 0 (a count that was 0 more often
 * than not) the median size of the values that are not 0 (one wild value
 * cannot raise it), and 1e-9 when every value is 0 (nothing differs).
 */
static double floor_noise(double sigma, const double *x, size_t n, double *scratch)
{
	double level = fabs(median(x, n, scratch));
	if (!(level > 0)) {
		size_t m = 0;
		for (size_t i = 0; i < n; i++)
			if (x[i] != 0 && isfinite(x[i]))
				scratch[m++] = fabs(x[i]);
		qsort(scratch, m, sizeof(*scratch), cmp_double);
		level = m ? median_sorted(scratch, m) : 1;
	}
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
