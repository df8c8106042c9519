/*
 * analyze/compare: the comparison engine of compare.h, exactly as
 * docs/statistics.md defines it. Laid out bottom-up, in sections: small helpers
 * (valid samples, statistics, spreads); the bootstrap (paired over rounds,
 * independent per side) and its percentile interval; rounds and the stall
 * filter; the within-round A/A control and noise floor; the estimate,
 * interval and exact tests per pairing; warnings (stall, control); then
 * compare_compute() (phase 1). Holm (phase 2) is holm.c, the nine verdict
 * rules of compare_decide() (phase 3) decide.c.
 */
#include "analyze/compare.h"
#include "analyze/compare_internal.h"

#include <float.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "analyze/boot_median.h"
#include "analyze/exact.h"
#include "analyze/format.h"
#include "analyze/mean.h"
#include "model/rng.h"
#include "analyze/summary.h"
#include "base/sbuf.h"
#include "base/xalloc.h"

#define STALL_MAD_FLOOR 0.001
/*
 * A round is a stall only when a side's spread is also at least this large
 * (max - min over mean). On a quiet machine the spreads are a fraction of a
 * percent and median + 6 MAD can fall to 2-3%: dropping such rounds costs
 * rounds (and with Holm, the power to reach a verdict) without removing any
 * stall. The stalls the filter exists for move a run by tens of percent.
 */
#define STALL_MIN_SPREAD 0.05
#define STALL_MIN_ROUNDS 3

void compare_input_init(struct compare_input *in)
{
	memset(in, 0, sizeof(*in));
	in->metric = METRIC_LATENCY;
	in->statistic = STATISTIC_MEDIAN;
	in->max_percent = 10;
	in->min_difference = -1;
	in->pairing = PAIRING_ROUNDS;
	in->resamples = 2000;
	in->confidence = 0.95;
	in->min_samples = 10;
	in->max_cv = 0.5;
	in->runs_per_round = 2;
	in->gate = 1;
}

/* One round: its values on each side in run (time) order. */
struct round {
	int number;
	const double *b, *h;
	size_t nb, nh;
	double bmean, hmean, spread; /* spread: the larger of bspread, hspread */
	double bspread, hspread;
	int kept;
};

/* Everything one compare_compute() call works with. */
struct work {
	const struct compare_input *in;
	double *bvals, *hvals; /* valid values, in (round, run) order */
	struct round *rounds;
	size_t nr;
	double *kb, *kh; /* values of the kept rounds */
	size_t nkb, nkh;
	double *scratch; /* max(B, samples) doubles */
	size_t nr_scratch;
	int B;
};

/* ---- small helpers ------------------------------------------------------ */

static int cmp_sample(const void *pa, const void *pb)
{
	const struct sample *a = pa, *b = pb;

	if (a->round != b->round)
		return (a->round > b->round) - (a->round < b->round);
	return (a->run > b->run) - (a->run < b->run);
}

static int valid_value(double v)
{
	return isfinite(v) && v >= 0;
}

/* Valid samples of one side, sorted by (round, run). */
static struct sample *valid_sorted(const struct sample *s, size_t n, size_t *nr_out)
{
	struct sample *c = xreallocarray(NULL, n ? n : 1, sizeof(*c));
	size_t k = 0;

	for (size_t i = 0; i < n; i++)
		if (valid_value(s[i].value))
			c[k++] = s[i];
	qsort(c, k, sizeof(*c), cmp_sample);
	*nr_out = k;
	return c;
}

/* A logarithm that stays finite at zero (a count that fell to 0). */
static double safe_log(double v)
{
	return v > DBL_MIN ? log(v) : log(DBL_MIN);
}

/* The statistic of x[0..n) (not modified); NAN when n == 0. */
static double stat_of(const double *x, size_t n, enum statistic st, double *scratch)
{
	if (!n)
		return NAN;
	if (st == STATISTIC_MEAN)
		return summary_mean(x, n);
	memcpy(scratch, x, n * sizeof(*x));
	return exact_quantile_inplace(scratch, n, 0.5);
}

static double robust_cv_of(const double *x, size_t n)
{
	double *c, q1, q3, med;

	if (!n)
		return NAN;
	c = xreallocarray(NULL, n, sizeof(*c));
	memcpy(c, x, n * sizeof(*c));
	summary_sort(c, n);
	q1 = quantile_sorted(c, n, 0.25);
	q3 = quantile_sorted(c, n, 0.75);
	med = quantile_sorted(c, n, 0.5);
	free(c);
	if (q3 == q1)
		return 0; /* no dispersion, whatever the median */
	return med != 0 ? (q3 - q1) / 1.349 / med : NAN;
}

static double side_spread(const double *x, size_t n)
{
	double lo, hi, m;

	if (n < 2)
		return 0;
	lo = hi = x[0];
	for (size_t i = 1; i < n; i++) {
		if (x[i] < lo)
			lo = x[i];
		if (x[i] > hi)
			hi = x[i];
	}
	m = summary_mean(x, n);
	return m > 0 ? (hi - lo) / m : 0;
}

/* ---- bootstrap ---------------------------------------------------------- */

/*
 * One bootstrap resample's statistic of sorted[0..n): the median from its
 * exact bootstrap distribution (analyze/boot_median.h, prepared once per
 * sample in *med), the mean by drawing the resample. A local copy of the
 * generator keeps its state in registers across the draws.
 */
static double resample_stat(struct rng *rng, const double *sorted, size_t n, enum statistic st,
			    const struct boot_median *med)
{
	if (st == STATISTIC_MEDIAN)
		return boot_median_draw(med, rng);
	struct rng g = *rng;
	double sum = 0;

	for (size_t i = 0; i < n; i++)
		sum += sorted[rng_below(&g, n)];
	*rng = g;
	return sum / (double)n;
}

static double *sorted_dup(const double *x, size_t n)
{
	double *c = xreallocarray(NULL, n ? n : 1, sizeof(*c));

	if (n)
		memcpy(c, x, n * sizeof(*c));
	summary_sort(c, n);
	return c;
}

/* out[b] = (stat(r*) - 1) * 100 for B resamples of the ratios r. */
static void bootstrap_ratio(struct work *w, struct rng *rng, const double *r, size_t n, double *out)
{
	double *s = sorted_dup(r, n);
	struct boot_median med;

	boot_median_init(&med, s, n);
	for (int b = 0; b < w->B; b++)
		out[b] = (resample_stat(rng, s, n, w->in->statistic, &med) - 1) * 100;
	boot_median_release(&med);
	free(s);
}

/*
 * out[b] = (stat(y*) - stat(x*)) / stat(x*) * 100 for B resamples of x and
 * y drawn separately; NAN where stat(x*) is 0. Returns how many were.
 */
static size_t bootstrap_two(struct work *w, struct rng *rng, const double *x, size_t nx,
			    const double *y, size_t ny, enum statistic st, double *out)
{
	double *sx = sorted_dup(x, nx), *sy = sorted_dup(y, ny);
	size_t zero = 0;
	struct boot_median mx, my;

	boot_median_init(&mx, sx, nx);
	boot_median_init(&my, sy, ny);
	for (int b = 0; b < w->B; b++) {
		double a = resample_stat(rng, sx, nx, st, &mx);
		double c = resample_stat(rng, sy, ny, st, &my);

		if (a == 0) {
			out[b] = NAN;
			zero++;
		} else {
			out[b] = (c - a) / a * 100;
		}
	}
	boot_median_release(&mx);
	boot_median_release(&my);
	free(sx);
	free(sy);
	return zero;
}

/* Drop NAN entries in place; returns the new length. */
static size_t compact_finite(double *x, size_t n)
{
	size_t k = 0;

	for (size_t i = 0; i < n; i++)
		if (!isnan(x[i]))
			x[k++] = x[i];
	return k;
}

/* The central `confidence` percentile interval of boot[0..n). */
static void percentile_interval(struct work *w, const double *boot, size_t n, double *lo,
				double *hi)
{
	double a = (1 - w->in->confidence) / 2;

	if (!n) {
		*lo = *hi = NAN;
		return;
	}
	memcpy(w->scratch, boot, n * sizeof(*boot));
	*lo = exact_quantile_inplace(w->scratch, n, a);
	*hi = exact_quantile_inplace(w->scratch, n, 1 - a);
}

/* ---- rounds and the stall filter ---------------------------------------- */

static void build_rounds(struct work *w, const struct sample *bs, size_t nb,
			 const struct sample *hs, size_t nh)
{
	size_t i = 0, j = 0;

	w->bvals = xreallocarray(NULL, nb ? nb : 1, sizeof(double));
	w->hvals = xreallocarray(NULL, nh ? nh : 1, sizeof(double));
	for (size_t k = 0; k < nb; k++)
		w->bvals[k] = bs[k].value;
	for (size_t k = 0; k < nh; k++)
		w->hvals[k] = hs[k].value;
	w->rounds = xcalloc(nb + nh ? nb + nh : 1, sizeof(*w->rounds));
	w->nr = 0;
	while (i < nb || j < nh) {
		int number;
		struct round *r = &w->rounds[w->nr++];

		if (j >= nh || (i < nb && bs[i].round <= hs[j].round))
			number = bs[i].round;
		else
			number = hs[j].round;
		r->number = number;
		r->b = w->bvals + i;
		r->h = w->hvals + j;
		while (i < nb && bs[i].round == number) {
			i++;
			r->nb++;
		}
		while (j < nh && hs[j].round == number) {
			j++;
			r->nh++;
		}
		r->bmean = r->nb ? summary_mean(r->b, r->nb) : NAN;
		r->hmean = r->nh ? summary_mean(r->h, r->nh) : NAN;
		r->bspread = side_spread(r->b, r->nb);
		r->hspread = side_spread(r->h, r->nh);
		r->spread = fmax(r->bspread, r->hspread);
		r->kept = 1;
	}
}

static int cmp_spread_desc(const void *pa, const void *pb)
{
	const struct round *a = *(struct round *const *)pa;
	const struct round *b = *(struct round *const *)pb;

	if (a->spread != b->spread)
		return (a->spread < b->spread) - (a->spread > b->spread);
	return (a->number > b->number) - (a->number < b->number);
}

static void stall_filter(struct work *w, struct compare_result *out)
{
	double *s, med, mad, thr;
	struct round **cand;
	size_t nc = 0, ns = 0, max_drop = w->nr / 2;

	out->stall_threshold = NAN;
	if (w->in->runs_per_round < 2 || w->nr < STALL_MIN_ROUNDS)
		return;
	/*
	 * Median and MAD over the spreads of every side of every round
	 * (2 per round): a stall inflates one side's spread only, so fewer
	 * than half of these are contaminated even when stalls hit half the
	 * rounds, where the MAD of the per-round maxima would break down.
	 */
	s = xreallocarray(NULL, 2 * w->nr, sizeof(*s));
	for (size_t k = 0; k < w->nr; k++) {
		if (w->rounds[k].nb >= 2)
			s[ns++] = w->rounds[k].bspread;
		if (w->rounds[k].nh >= 2)
			s[ns++] = w->rounds[k].hspread;
	}
	if (!ns) {
		free(s);
		return;
	}
	med = exact_quantile_inplace(s, ns, 0.5);
	for (size_t k = 0; k < ns; k++)
		s[k] = fabs(s[k] - med);
	mad = exact_quantile_inplace(s, ns, 0.5);
	free(s);
	thr = fmax(med + 6 * fmax(mad, STALL_MAD_FLOOR), STALL_MIN_SPREAD);
	out->stall_threshold = thr;

	/*
	 * A round goes only when both of its sides are disturbed: a wide
	 * spread on one side can be that side's own change (a slow path
	 * taken on some runs only widens head exactly in the rounds that
	 * carry it), so one side's spread alone must never remove a round.
	 * A stall on one side is left to the rank test, where it weighs as
	 * one round (docs/statistics.md, "Stall filter").
	 */
	cand = xreallocarray(NULL, w->nr, sizeof(*cand));
	for (size_t k = 0; k < w->nr; k++)
		if (w->rounds[k].nb >= 2 && w->rounds[k].nh >= 2 && w->rounds[k].bspread > thr &&
		    w->rounds[k].hspread > thr)
			cand[nc++] = &w->rounds[k];
	/* At most half the rounds go, the widest first. */
	qsort(cand, nc, sizeof(*cand), cmp_spread_desc);
	if (nc > max_drop)
		nc = max_drop;
	for (size_t k = 0; k < nc; k++)
		cand[k]->kept = 0;
	free(cand);
	if (!nc)
		return;
	out->dropped = xcalloc(nc, sizeof(*out->dropped));
	for (size_t k = 0; k < w->nr; k++) {
		const struct round *r = &w->rounds[k];
		struct compare_dropped *d;

		if (r->kept)
			continue;
		d = &out->dropped[out->nr_dropped++];
		d->round = r->number;
		d->spread = r->spread;
		d->nr_base = r->nb;
		d->nr_head = r->nh;
		d->base = xreallocarray(NULL, r->nb ? r->nb : 1, sizeof(double));
		d->head = xreallocarray(NULL, r->nh ? r->nh : 1, sizeof(double));
		memcpy(d->base, r->b, r->nb * sizeof(double));
		memcpy(d->head, r->h, r->nh * sizeof(double));
	}
}

/* The change of the mean over every round holding both sides, kept or
   dropped: head's mean run over base's, minus one, in percent. */
static double all_rounds_mean_change(const struct work *w)
{
	double sb = 0, sh = 0;
	size_t nb = 0, nh = 0;

	for (size_t k = 0; k < w->nr; k++) {
		const struct round *r = &w->rounds[k];

		if (!r->nb || !r->nh)
			continue;
		for (size_t i = 0; i < r->nb; i++)
			sb += r->b[i];
		for (size_t i = 0; i < r->nh; i++)
			sh += r->h[i];
		nb += r->nb;
		nh += r->nh;
	}
	if (!nb || !nh || !(sb > 0))
		return NAN;
	return ((sh / (double)nh) / (sb / (double)nb) - 1) * 100;
}

static void collect_kept(struct work *w)
{
	w->kb = xreallocarray(NULL, 1, sizeof(double));
	w->kh = xreallocarray(NULL, 1, sizeof(double));
	w->nkb = w->nkh = 0;
	for (size_t k = 0; k < w->nr; k++) {
		const struct round *r = &w->rounds[k];

		if (!r->kept)
			continue;
		w->kb = xreallocarray(w->kb, w->nkb + r->nb + 1, sizeof(double));
		w->kh = xreallocarray(w->kh, w->nkh + r->nh + 1, sizeof(double));
		memcpy(w->kb + w->nkb, r->b, r->nb * sizeof(double));
		memcpy(w->kh + w->nkh, r->h, r->nh * sizeof(double));
		w->nkb += r->nb;
		w->nkh += r->nh;
	}
}

/* ---- the A/A control ---------------------------------------------------- */

/*
 * The control within the round compares single runs (base run 2 over base
 * run 1), while the estimate compares means of runs_per_round runs per
 * side: its log-ratios are sqrt(runs_per_round) times wider than the
 * estimate's, so they are shrunk by that factor before the interval is
 * taken (docs/statistics.md, "on the estimate's scale"). Without it a true +5%
 * at T = 3 on a quiet machine came out within_noise.
 */
static double control_scale(const struct compare_input *in)
{
	return 1 / sqrt(in->runs_per_round > 1 ? in->runs_per_round : 1);
}

/* A change in percent with its log-ratio multiplied by `scale`. */
static double scale_percent(double pct, double scale)
{
	if (isnan(pct) || pct <= -100)
		return pct;
	return (exp(log1p(pct / 100) * scale) - 1) * 100;
}

/*
 * Single-run pairs (runs_per_round 1, the median): the estimate is the
 * Hodges-Lehmann shift of the pair log-ratios, the estimate that belongs
 * to the signed-rank test, and its interval and P(regression) come from
 * that test's confidence distribution, so the estimate, the interval and
 * the test cannot disagree (docs/statistics.md, "Single-run pairs").
 */
static int pair_design(const struct compare_input *in)
{
	return in->pairing == PAIRING_ROUNDS && in->runs_per_round == 1 &&
	       in->statistic == STATISTIC_MEDIAN;
}

/* nq quantiles of the HL distribution of sorted a[0..n), in percent. */
static void hl_quantiles_percent(const double *a, size_t n, double *quant, size_t nq)
{
	exact_hl_quantiles_sorted(a, n, nq, quant);
	for (size_t i = 0; i < nq; i++)
		quant[i] = expm1(quant[i]) * 100;
}

/* HL shift, interval (percent) and quantiles (if quant) of x[0..n);
 *sorted, if given, keeps the sorted copy of x (a deferred look's). */
static void hl_summary(const double *x, size_t n, double confidence, double *est, double *lo,
		       double *hi, double *quant, size_t nq, double **sorted)
{
	/* By selection over the sorted values: the n(n+1)/2 Walsh averages
	   are never stored (O(n) memory; exact.h). */
	size_t M = n * (n + 1) / 2;
	double *a = exact_sorted_copy(x, n);
	double m1 = exact_walsh_select(a, n, (M - 1) / 2);
	double m2 = M % 2 ? m1 : exact_walsh_select(a, n, M / 2);

	*est = expm1((m1 + m2) / 2) * 100;
	exact_hl_interval_sorted(a, n, confidence, lo, hi);
	*lo = expm1(*lo) * 100;
	*hi = expm1(*hi) * 100;
	if (quant)
		hl_quantiles_percent(a, n, quant, nq);
	if (sorted)
		*sorted = a;
	else
		free(a);
}

/*
 * The control's values without those farther than 6 MADs from their
 * median (at most a quarter of them), in their order: a stalled base run
 * spoils up to three control values, and the Walsh averages' interval of
 * nine or ten values does not survive that (calibration machine (d)).
 * Only the floor is built from these values, never the estimate, so this
 * cannot remove a side's change; it keeps a stall from posing as noise.
 */
static size_t drop_far(double *c, size_t n)
{
	double *t = xreallocarray(NULL, n + 1, sizeof(*t)), med, mad;
	size_t k = 0, dropped = 0;

	if (n < 4) {
		free(t);
		return n;
	}
	memcpy(t, c, n * sizeof(*t));
	med = exact_quantile_inplace(t, n, 0.5);
	for (size_t i = 0; i < n; i++)
		t[i] = fabs(c[i] - med);
	mad = fmax(exact_quantile_inplace(t, n, 0.5), STALL_MAD_FLOOR);
	for (size_t i = 0; i < n; i++) {
		if (fabs(c[i] - med) > 6 * mad && dropped < n / 4) {
			dropped++;
			continue;
		}
		c[k++] = c[i];
	}
	free(t);
	return k;
}

/*
 * The A/A control of single-run pairs, from the base side alone: every
 * other base run against the geometric mean of its two base neighbours,
 * ln c = ln b_k - (ln b_{k-1} + ln b_{k+1}) / 2. Like a pair it compares
 * runs next to each other, so slow drift cancels as it does in the
 * estimate; its variance is 1.5 sigma^2 where a pair's is 2 sigma^2, so it
 * is widened by sqrt(4/3) onto the estimate's scale. Taking every other k
 * keeps neighbouring controls from sharing their centre run. Values a
 * stall made far off are left out first (drop_far()).
 */
static void control_pairs(struct work *w, struct compare_result *out)
{
	double *lb = xreallocarray(NULL, w->nr + 1, sizeof(*lb));
	double *c = xreallocarray(NULL, w->nr + 1, sizeof(*c));
	size_t n = 0, nc = 0;

	for (size_t k = 0; k < w->nr; k++) {
		const struct round *r = &w->rounds[k];

		if (!r->kept || !r->nb)
			continue;
		if (r->bmean <= 0) {
			free(lb);
			free(c);
			return;
		}
		lb[n++] = log(r->bmean);
	}
	for (size_t k = 1; k + 1 < n; k += 2)
		c[nc++] = (lb[k] - (lb[k - 1] + lb[k + 1]) / 2) * sqrt(4.0 / 3.0);
	nc = drop_far(c, nc);
	if (nc >= 2) {
		hl_summary(c, nc, w->in->confidence, &out->control_percent,
			   &out->control_low_percent, &out->control_high_percent, NULL, 0, NULL);
		/*
		 * One control value per two pairs: its interval would be
		 * sqrt(2) wider than the estimate's for the count alone, so
		 * it is narrowed about its centre by sqrt(nc / n) to the
		 * width it would have with as many values as the estimate.
		 */
		double centre = log1p(out->control_percent / 100);
		double sc = sqrt((double)nc / (double)n);

		out->control_low_percent =
		    expm1(centre + (log1p(out->control_low_percent / 100) - centre) * sc) * 100;
		out->control_high_percent =
		    expm1(centre + (log1p(out->control_high_percent / 100) - centre) * sc) * 100;
		/*
		 * Rule 2 asks whether the machine is too noisy to judge, so
		 * with pairs it reads the dispersion of the control, not of
		 * the pair ratios: a change of shape (a slow path on some
		 * runs) widens the ratios by itself and must not turn a
		 * regression into "inconclusive".
		 */
		for (size_t k = 0; k < nc; k++)
			c[k] = exp(c[k]);
		out->robust_cv = robust_cv_of(c, nc);
	}
	free(lb);
	free(c);
}

static void control_paired(struct work *w, struct compare_result *out, struct rng *rng)
{
	double *c = xreallocarray(NULL, w->nr + 1, sizeof(*c)), *boot;
	size_t n = 0, within = 0;
	int ok = 1;

	for (size_t k = 0; k < w->nr; k++)
		if (w->rounds[k].kept && w->rounds[k].nb >= 2)
			within++;
	if (within >= 2) {
		/* Per round: base run 2 over base run 1, in time order. */
		for (size_t k = 0; k < w->nr; k++) {
			const struct round *r = &w->rounds[k];

			if (!r->kept || r->nb < 2)
				continue;
			if (r->b[0] == 0 || r->b[1] == 0)
				ok = 0;
			else
				c[n++] = exp(log(r->b[1] / r->b[0]) * control_scale(w->in));
		}
	} else {
		/* One base run per round: even rounds over odd rounds. */
		double prev = NAN;

		for (size_t k = 0; k < w->nr; k++) {
			const struct round *r = &w->rounds[k];

			if (!r->kept || !r->nb)
				continue;
			if (isnan(prev)) {
				prev = r->bmean;
				continue;
			}
			if (prev == 0)
				ok = 0;
			else
				c[n++] = r->bmean / prev;
			prev = NAN;
		}
	}
	if (ok && n >= 2) {
		boot = xreallocarray(NULL, (size_t)w->B, sizeof(*boot));
		out->control_percent = (stat_of(c, n, w->in->statistic, w->scratch) - 1) * 100;
		bootstrap_ratio(w, rng, c, n, boot);
		percentile_interval(w, boot, (size_t)w->B, &out->control_low_percent,
				    &out->control_high_percent);
		free(boot);
	}
	free(c);
}

static void control_independent(struct work *w, struct compare_result *out, struct rng *rng)
{
	double *x = xreallocarray(NULL, w->nkb + 1, sizeof(*x));
	double *y = xreallocarray(NULL, w->nkb + 1, sizeof(*y));
	size_t nx = 0, ny = 0, within = 0, pos = 0;

	for (size_t k = 0; k < w->nr; k++)
		if (w->rounds[k].kept && w->rounds[k].nb >= 2)
			within++;
	for (size_t k = 0; k < w->nr; k++) {
		const struct round *r = &w->rounds[k];

		if (!r->kept || !r->nb)
			continue;
		if (within >= 2) {
			/* Base's first runs against its second runs. */
			if (r->nb < 2)
				continue;
			x[nx++] = r->b[0];
			y[ny++] = r->b[1];
		} else {
			/* Odd rounds against even rounds. */
			for (size_t i = 0; i < r->nb; i++) {
				if (pos % 2 == 0)
					x[nx++] = r->b[i];
				else
					y[ny++] = r->b[i];
			}
			pos++;
		}
	}
	if (nx >= 2 && ny >= 2) {
		double sx = stat_of(x, nx, w->in->statistic, w->scratch);
		double sy = stat_of(y, ny, w->in->statistic, w->scratch);

		if (sx > 0) {
			double *boot = xreallocarray(NULL, (size_t)w->B, sizeof(*boot));
			size_t zero, n;

			out->control_percent = (sy - sx) / sx * 100;
			zero = bootstrap_two(w, rng, x, nx, y, ny, w->in->statistic, boot);
			n = zero ? compact_finite(boot, (size_t)w->B) : (size_t)w->B;
			percentile_interval(w, boot, n, &out->control_low_percent,
					    &out->control_high_percent);
			free(boot);
			/* First runs against second runs: as in the paired
			   control, each half holds one run a round where the
			   estimate has runs_per_round. */
			if (within >= 2) {
				double sc = control_scale(w->in);

				out->control_percent = scale_percent(out->control_percent, sc);
				out->control_low_percent =
				    scale_percent(out->control_low_percent, sc);
				out->control_high_percent =
				    scale_percent(out->control_high_percent, sc);
			}
		}
	}
	free(x);
	free(y);
}

/* ---- the estimate, interval and tests ----------------------------------- */

static void finish_boot(struct work *w, struct compare_result *out)
{
	const struct compare_input *in = w->in;
	size_t reg = 0, imp = 0;

	out->nr_boot = compact_finite(out->boot, out->nr_boot);
	for (size_t b = 0; b < out->nr_boot; b++) {
		double deg = in->higher_is_better ? -out->boot[b] : out->boot[b];

		reg += deg > in->max_percent;
		imp += deg < -in->max_percent;
	}
	if (out->nr_boot) {
		out->p_reg = (double)reg / (double)out->nr_boot;
		out->p_imp = (double)imp / (double)out->nr_boot;
	}
	percentile_interval(w, out->boot, out->nr_boot, &out->ci_low_percent,
			    &out->ci_high_percent);
}

/*
 * The change of the mean from its confidence distribution d (ln of head's
 * total over base's) and its estimate ln_est: interval, shares beyond
 * +-T and the three one-sided p (compare.h), in degradation terms.
 */
static void mean_from_dist(const struct compare_input *in, struct compare_result *out,
			   const struct mean_dist *d, double ln_est)
{
	double a = (1 - in->confidence) / 2;
	double up = log1p(in->max_percent / 100);
	double down = in->max_percent < 100 ? log1p(-in->max_percent / 100) : -INFINITY;
	double p_above, p_below, p_not_above, p_not_below;

	if (!d->n)
		return;
	/* p that the ratio is above up / below down, and the mirror */
	p_above = mean_dist_p_le(d, up);
	p_below = isinf(down) ? 1 : mean_dist_p_ge(d, down);
	p_not_above = mean_dist_p_ge(d, up);
	p_not_below = isinf(down) ? 1 : mean_dist_p_le(d, down);
	out->mean_change_percent = expm1(ln_est) * 100;
	out->mean_degradation_percent =
	    in->higher_is_better ? -out->mean_change_percent : out->mean_change_percent;
	out->mean_ci_low_percent = expm1(mean_dist_quantile(d, a)) * 100;
	out->mean_ci_high_percent = expm1(mean_dist_quantile(d, 1 - a)) * 100;
	out->mean_p_test_reg = in->higher_is_better ? p_below : p_above;
	out->mean_p_test_imp = in->higher_is_better ? p_above : p_below;
	out->mean_p_test_pass = in->higher_is_better ? p_not_below : p_not_above;
	out->mean_p_reg = 1 - out->mean_p_test_reg;
	out->mean_p_imp = 1 - out->mean_p_test_imp;
	if (isfinite(out->change_percent) && out->change_percent > -100) {
		double typ = log1p(out->change_percent / 100);
		double above = mean_dist_p_le(d, typ), below = mean_dist_p_ge(d, typ);

		out->mean_p_test_apart_reg = in->higher_is_better ? below : above;
		out->mean_p_test_apart_imp = in->higher_is_better ? above : below;
	}
}

/* The paired change of the mean over the kept rounds (analyze/mean.h). */
static void mean_paired(struct work *w, struct compare_result *out, const double *lr, size_t nlr)
{
	const struct compare_input *in = w->in;
	double *h = xreallocarray(NULL, w->nr + 1, sizeof(*h));
	double *b = xreallocarray(NULL, w->nr + 1, sizeof(*b));
	double sh = 0, sb = 0;
	size_t n = 0;
	struct mean_dist d;
	struct rng rng;

	for (size_t k = 0; k < w->nr; k++) {
		const struct round *rd = &w->rounds[k];

		if (!rd->kept || !rd->nb || !rd->nh)
			continue;
		h[n] = rd->hmean;
		b[n] = rd->bmean;
		sh += h[n];
		sb += b[n];
		n++;
	}
	if (n && sb > 0 && sh > 0) {
		rng_seed(&rng, rng_seed_from(in->seed, "mean"));
		mean_dist_paired(h, b, n, w->B, &rng, &d);
		mean_from_dist(in, out, &d, log(sh / sb));
		mean_dist_release(&d);
		mean_minority(lr, nlr, log1p(out->change_percent / 100),
			      out->mean_change_percent > out->change_percent ? 1 : -1,
			      &out->minority_share, &out->minority_factor);
	}
	free(h);
	free(b);
}

static void analyse_paired(struct work *w, struct compare_result *out, struct rng *boot_rng)
{
	const struct compare_input *in = w->in;
	double *r = xreallocarray(NULL, w->nr + 1, sizeof(*r));
	double *lr = xreallocarray(NULL, w->nr + 1, sizeof(*lr));
	double *d = xreallocarray(NULL, w->nr + 1, sizeof(*d));
	double *x = xreallocarray(NULL, w->nr + 1, sizeof(*x));
	double up = log1p(in->max_percent / 100);
	enum exact_method method;
	size_t n = 0;

	for (size_t k = 0; k < w->nr; k++) {
		const struct round *rd = &w->rounds[k];

		if (!rd->kept || !rd->nb || !rd->nh)
			continue;
		out->nr_pairs++;
		/* A round with a zero base has no ratio: it is left out and
		   counted, and the verdict may then say regression or
		   inconclusive, never pass (decide.c, rule 3). */
		if (rd->bmean == 0) {
			out->zero_base = 1;
			out->nr_zero_base++;
		} else {
			x[n] = rd->number;
			r[n++] = rd->hmean / rd->bmean;
		}
	}
	if (!n)
		goto done;
	for (size_t k = 0; k < n; k++)
		lr[k] = safe_log(r[k]);
	compare_rounds_evidence(w->in, out, x, lr, n);

	if (pair_design(in) && in->defer_quantiles) {
		hl_summary(lr, n, in->confidence, &out->change_percent, &out->ci_low_percent,
			   &out->ci_high_percent, NULL, 0, &out->deferred_lr);
		out->nr_deferred_lr = n;
		out->deferred_boot = (size_t)w->B;
	} else if (pair_design(in)) {
		out->boot = xreallocarray(NULL, (size_t)w->B, sizeof(double));
		out->nr_boot = (size_t)w->B;
		hl_summary(lr, n, in->confidence, &out->change_percent, &out->ci_low_percent,
			   &out->ci_high_percent, out->boot, out->nr_boot, NULL);
	} else {
		out->boot = xreallocarray(NULL, (size_t)w->B, sizeof(double));
		out->nr_boot = (size_t)w->B;
		out->change_percent = (stat_of(r, n, in->statistic, w->scratch) - 1) * 100;
		bootstrap_ratio(w, boot_rng, r, n, out->boot);
		finish_boot(w, out);
	}

	/* Exact tests on d_k = ln r_k - ln(1 + T/100) and its mirror: the
	   signed-rank test, so that a disturbed round counts as one rank
	   (docs/statistics.md, "The paired test"). */
	for (size_t k = 0; k < n; k++)
		d[k] = lr[k] - up;
	{
		double p_up = exact_signed_rank_p(d, n, &method, &out->min_possible_p);
		double p_down = 1;

		if (in->max_percent < 100) {
			double down = log1p(-in->max_percent / 100);

			for (size_t k = 0; k < n; k++)
				d[k] = down - lr[k];
			p_down = exact_signed_rank_p(d, n, NULL, NULL);
		}
		out->p_test_reg = in->higher_is_better ? p_down : p_up;
		out->p_test_imp = in->higher_is_better ? p_up : p_down;
		/* The mirror of the regression test: the degradation is
		   below T (ln r below ln(1 + T), or above ln(1 - T) when
		   higher is better). */
		if (in->sequential && (!in->higher_is_better || in->max_percent < 100)) {
			double lim = in->higher_is_better ? log1p(-in->max_percent / 100) : up;
			for (size_t k = 0; k < n; k++)
				d[k] = in->higher_is_better ? lr[k] - lim : lim - lr[k];
			out->p_test_pass = exact_signed_rank_p(d, n, NULL, NULL);
		}
	}
	out->test = exact_method_name(method);
	if (pair_design(in)) {
		/* The confidence distribution's shares beyond +-T: one minus
		   the p of the test that the shift is not beyond. */
		out->p_reg = 1 - out->p_test_reg;
		out->p_imp = 1 - out->p_test_imp;
		out->hl_shift_percent = out->change_percent;
	} else
		out->hl_shift_percent = expm1(exact_hl_paired(lr, n)) * 100;
	out->robust_cv = robust_cv_of(r, n);
	mean_paired(w, out, lr, n);
done:
	free(r);
	free(lr);
	free(d);
	free(x);
}

/* Smallest p the Mann-Whitney test can give for sizes nx, ny. */
static double mw_min_p(size_t nx, size_t ny, enum exact_method method)
{
	double nn = (double)(nx + ny), mn = (double)nx * (double)ny;

	if (method == EXACT_MW_EXACT)
		return exp(lgamma(nx + 1.0) + lgamma(ny + 1.0) - lgamma(nn + 1));
	return exact_normal_sf((mn / 2 - 0.5) / sqrt(mn * (nn + 1) / 12));
}

/*
 * Independent samples: the change of the two sides' means, its
 * distribution from resampling each side (analyze/mean.h's test needs
 * rounds to flip).
 */
static void mean_independent(struct work *w, struct compare_result *out, struct rng *rng)
{
	double sb = summary_mean(w->kb, w->nkb), sh = summary_mean(w->kh, w->nkh);
	double *boot = xreallocarray(NULL, (size_t)w->B, sizeof(*boot));
	struct mean_dist d = {0};
	size_t n;

	if (!(sb > 0 && sh > 0)) {
		free(boot);
		return;
	}
	bootstrap_two(w, rng, w->kb, w->nkb, w->kh, w->nkh, STATISTIC_MEAN, boot);
	n = compact_finite(boot, (size_t)w->B);
	d.v = boot;
	for (size_t i = 0; i < n; i++)
		if (boot[i] > -100)
			boot[d.n++] = log1p(boot[i] / 100);
	summary_sort(d.v, d.n);
	mean_from_dist(w->in, out, &d, log(sh / sb));
	mean_dist_release(&d);
}

static void analyse_independent(struct work *w, struct compare_result *out, struct rng *boot_rng)
{
	const struct compare_input *in = w->in;
	double *x, *y, *xs;
	double up = log1p(in->max_percent / 100);
	enum exact_method method;
	size_t zero;

	for (size_t k = 0; k < w->nr; k++)
		out->nr_pairs += w->rounds[k].kept;
	if (!w->nkb || !w->nkh)
		return;
	if (out->base_stat == 0) {
		out->zero_base = 1;
		return;
	}
	out->change_percent = (out->head_stat - out->base_stat) / out->base_stat * 100;
	out->boot = xreallocarray(NULL, (size_t)w->B, sizeof(double));
	out->nr_boot = (size_t)w->B;
	zero = bootstrap_two(w, boot_rng, w->kb, w->nkb, w->kh, w->nkh, in->statistic, out->boot);
	if (zero)
		out->zero_base = 1;
	finish_boot(w, out);

	x = xreallocarray(NULL, w->nkh, sizeof(*x));
	xs = xreallocarray(NULL, w->nkh, sizeof(*xs));
	y = xreallocarray(NULL, w->nkb, sizeof(*y));
	for (size_t i = 0; i < w->nkh; i++)
		x[i] = safe_log(w->kh[i]);
	for (size_t i = 0; i < w->nkb; i++)
		y[i] = safe_log(w->kb[i]);
	{
		double p_up, p_down = 1;

		/* ln h - ln(1 + T/100) against ln b, "greater". */
		for (size_t i = 0; i < w->nkh; i++)
			xs[i] = x[i] - up;
		p_up = exact_mann_whitney_p(xs, w->nkh, y, w->nkb, &method);
		if (in->max_percent < 100) {
			double down = log1p(-in->max_percent / 100);

			/* ln h - ln(1 - T/100) against ln b, "less". */
			for (size_t i = 0; i < w->nkh; i++)
				xs[i] = x[i] - down;
			p_down = exact_mann_whitney_p(y, w->nkb, xs, w->nkh, NULL);
		}
		out->p_test_reg = in->higher_is_better ? p_down : p_up;
		out->p_test_imp = in->higher_is_better ? p_up : p_down;
		if (in->sequential && !in->higher_is_better) {
			/* base above head / (1 + T): "less". */
			for (size_t i = 0; i < w->nkh; i++)
				xs[i] = x[i] - up;
			out->p_test_pass = exact_mann_whitney_p(y, w->nkb, xs, w->nkh, NULL);
		} else if (in->sequential && in->max_percent < 100) {
			double down = log1p(-in->max_percent / 100);
			for (size_t i = 0; i < w->nkh; i++)
				xs[i] = x[i] - down;
			out->p_test_pass = exact_mann_whitney_p(xs, w->nkh, y, w->nkb, NULL);
		}
	}
	out->test = exact_method_name(method);
	out->min_possible_p = mw_min_p(w->nkh, w->nkb, method);
	{
		/* The rounds still order the runs in time: their log-ratios
		   carry the trend and the sign test as in the paired design. */
		double *rx = xreallocarray(NULL, w->nr + 1, sizeof(*rx));
		double *rl = xreallocarray(NULL, w->nr + 1, sizeof(*rl));
		size_t nr = 0;

		for (size_t k = 0; k < w->nr; k++) {
			const struct round *rd = &w->rounds[k];

			if (!rd->kept || !rd->nb || !rd->nh || !(rd->bmean > 0) || !(rd->hmean > 0))
				continue;
			rx[nr] = rd->number;
			rl[nr++] = log(rd->hmean / rd->bmean);
		}
		compare_rounds_evidence(w->in, out, rx, rl, nr);
		free(rx);
		free(rl);
	}
	out->hl_shift_percent = expm1(exact_hl_two_sample(x, w->nkh, y, w->nkb)) * 100;
	mean_independent(w, out, boot_rng);
	out->robust_cv = fmax(robust_cv_of(w->kb, w->nkb), robust_cv_of(w->kh, w->nkh));
	free(x);
	free(xs);
	free(y);
}

/* ---- phase 1 ------------------------------------------------------------ */

static void result_reset(struct compare_result *out)
{
	memset(out, 0, sizeof(*out));
	strvec_init(&out->warnings);
	out->base_stat = out->head_stat = NAN;
	out->change_percent = out->degradation_percent = NAN;
	out->ci_low_percent = out->ci_high_percent = NAN;
	out->p_reg = out->p_imp = NAN;
	out->p_test_reg = out->p_test_imp = out->p_test_pass = NAN;
	out->p_value = out->p_adjusted = NAN;
	out->min_possible_p = NAN;
	out->holm_m = 1;
	out->hl_shift_percent = out->robust_cv = NAN;
	out->mean_change_percent = out->mean_degradation_percent = NAN;
	out->mean_ci_low_percent = out->mean_ci_high_percent = NAN;
	out->mean_p_reg = out->mean_p_imp = NAN;
	out->mean_p_test_reg = out->mean_p_test_imp = NAN;
	out->mean_p_test_pass = NAN;
	out->mean_p_test_apart_reg = out->mean_p_test_apart_imp = NAN;
	out->minority_share = out->minority_factor = NAN;
	out->control_percent = NAN;
	out->control_low_percent = out->control_high_percent = NAN;
	out->noise_floor_percent = NAN;
	out->stall_threshold = NAN;
	out->trend_percent_per_round = out->trend_p = NAN;
	out->trend_first_percent = out->trend_last_percent = out->trend_cap_percent = NAN;
	out->blind_share_percent = NAN;
	out->base_mean = NAN;
	out->all_rounds_mean_change_percent = NAN;
	out->p_rounds_beyond = out->p_rounds_beyond_imp = NAN;
}

void compare_compute(const struct compare_input *in, struct compare_result *out)
{
	struct work w = {.in = in};
	struct sample *bs, *hs;
	size_t nb, nh;
	struct rng boot_rng, control_rng;

	result_reset(out);
	bs = valid_sorted(in->base, in->nr_base, &nb);
	hs = valid_sorted(in->head, in->nr_head, &nh);
	out->nr_base = nb;
	out->nr_head = nh;
	w.B = in->resamples > 0 ? in->resamples : 1;
	build_rounds(&w, bs, nb, hs, nh);
	free(bs);
	free(hs);
	out->nr_rounds = w.nr;
	w.nr_scratch = (size_t)w.B + nb + nh + 1;
	w.scratch = xreallocarray(NULL, w.nr_scratch, sizeof(double));

	rng_seed(&boot_rng, rng_seed_from(in->seed, "bootstrap"));
	rng_seed(&control_rng, rng_seed_from(in->seed, "control"));

	stall_filter(&w, out);
	if (out->nr_dropped)
		out->all_rounds_mean_change_percent = all_rounds_mean_change(&w);
	collect_kept(&w);
	out->base_stat = stat_of(w.kb, w.nkb, in->statistic, w.scratch);
	out->head_stat = stat_of(w.kh, w.nkh, in->statistic, w.scratch);
	out->base_mean = w.nkb ? summary_mean(w.kb, w.nkb) : NAN;
	out->nr_head_kept = w.nkh;
	compare_sides_facts(in, out, w.kb, w.nkb, w.kh, w.nkh);

	if (in->pairing == PAIRING_INDEPENDENT) {
		analyse_independent(&w, out, &boot_rng);
		control_independent(&w, out, &control_rng);
	} else {
		analyse_paired(&w, out, &boot_rng);
		if (pair_design(in))
			control_pairs(&w, out);
		else
			control_paired(&w, out, &control_rng);
	}

	if (!isnan(out->change_percent)) {
		out->degradation_percent =
		    in->higher_is_better ? -out->change_percent : out->change_percent;
		out->p_value = out->degradation_percent >= 0 ? out->p_test_reg : out->p_test_imp;
		if (in->sequential && fabs(out->degradation_percent) <= in->max_percent)
			out->p_value = out->p_test_pass;
		out->p_adjusted = out->p_value;
		if (out->exact_data) {
			/* No sampling noise: the interval is the estimate. */
			out->ci_low_percent = out->change_percent;
			out->ci_high_percent = out->change_percent;
			/* ... and so is the confidence distribution, whose
			   shares the rank test would otherwise cap at
			   1 - 2^-n. */
			if (pair_design(in)) {
				out->p_reg = out->degradation_percent > in->max_percent;
				out->p_imp = -out->degradation_percent > in->max_percent;
			}
			out->mean_ci_low_percent = out->mean_change_percent;
			out->mean_ci_high_percent = out->mean_change_percent;
			out->mean_p_reg = out->mean_degradation_percent > in->max_percent;
			out->mean_p_imp = -out->mean_degradation_percent > in->max_percent;
		}
	}
	if (!isnan(out->control_low_percent)) {
		out->noise_floor_percent =
		    fmax(fabs(out->control_low_percent), fabs(out->control_high_percent));
		out->control_failed = out->control_low_percent > in->max_percent ||
				      out->control_high_percent < -in->max_percent;
	}
	compare_add_warnings(in, out);

	free(w.bvals);
	free(w.hvals);
	free(w.rounds);
	free(w.kb);
	free(w.kh);
	free(w.scratch);
}

void compare_finish_quantiles(struct compare_result *r)
{
	if (!r->deferred_lr)
		return;
	free(r->boot);
	r->nr_boot = r->deferred_boot;
	r->boot = xreallocarray(NULL, r->nr_boot + 1, sizeof(double));
	hl_quantiles_percent(r->deferred_lr, r->nr_deferred_lr, r->boot, r->nr_boot);
	free(r->deferred_lr);
	r->deferred_lr = NULL;
	r->nr_deferred_lr = 0;
}

void compare_result_release(struct compare_result *r)
{
	for (size_t k = 0; k < r->nr_dropped; k++) {
		free(r->dropped[k].base);
		free(r->dropped[k].head);
	}
	free(r->dropped);
	free(r->boot);
	free(r->deferred_lr);
	free(r->reason);
	strvec_clear(&r->warnings);
	result_reset(r);
}
