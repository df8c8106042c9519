/*
 * analyze/compare_rounds: what the rounds and the sides show one by one,
 * beside the estimate (compare_internal.h): each side's range and whether
 * it is exact, the blind share, the trend of the round log-ratios
 * (analyze/trend.h) projected to the design's cap, and the sign test of
 * the rounds beyond the tolerance in the regression direction, which the
 * verdict reads where the noise floor would say the machine cannot
 * resolve the change (docs/statistics.md).
 */
#include "analyze/compare_internal.h"

#include <math.h>

#include "analyze/exact.h"
#include "analyze/trend.h"
#include "model/rng.h"

/* P(X >= k) for X ~ Binomial(n, 1/2). */
static double binom_half_sf(size_t k, size_t n)
{
	double p = 0, ln2n = (double)n * log(2.0);

	if (k == 0)
		return 1;
	if (k > n)
		return 0;
	if (n > 2000) {
		/* normal, continuity corrected */
		double z = ((double)k - 0.5 - n / 2.0) / sqrt(n / 4.0);
		return exact_normal_sf(z);
	}
	for (size_t j = k; j <= n; j++)
		p += exp(lgamma(n + 1.0) - lgamma(j + 1.0) - lgamma(n - j + 1.0) - ln2n);
	return fmin(1, p);
}

/*
 * The round-by-round evidence beside the estimate: x[k] the round number
 * and lr[k] the round's log-ratio, in round order. The trend of lr over the
 * rounds (analyze/trend.h), projected to the design's cap, and the sign
 * tests of the rounds beyond the tolerance in either direction.
 */
void compare_rounds_evidence(const struct compare_input *in, struct compare_result *out,
			     const double *x, const double *lr, size_t n)
{
	double up = log1p(in->max_percent / 100);
	double down = in->max_percent < 100 ? log1p(-in->max_percent / 100) : -INFINITY;
	struct trend t;
	struct rng rng;
	size_t above = 0, below = 0;

	for (size_t k = 0; k < n; k++) {
		above += lr[k] > up;
		below += lr[k] < down;
	}
	/* in degradation terms: beyond +T toward slower, beyond -T toward faster */
	out->nr_rounds_beyond = in->higher_is_better ? below : above;
	out->nr_rounds_beyond_imp = in->higher_is_better ? above : below;
	out->nr_rounds_signed = n;
	out->p_rounds_beyond = n ? binom_half_sf(out->nr_rounds_beyond, n) : NAN;
	out->p_rounds_beyond_imp = n ? binom_half_sf(out->nr_rounds_beyond_imp, n) : NAN;
	if (!n)
		return;
	rng_seed(&rng, rng_seed_from(in->seed, "trend"));
	trend_fit(x, lr, n, &rng, &t);
	out->trend_percent_per_round = expm1(t.slope) * 100;
	out->trend_p = t.p;
	out->trend_first_round = (int)x[0];
	out->trend_last_round = (int)x[n - 1];
	out->trend_cap_round =
	    in->max_rounds > out->trend_last_round ? in->max_rounds : out->trend_last_round;
	out->trend_first_percent = expm1(t.intercept + t.slope * x[0]) * 100;
	out->trend_last_percent = expm1(t.intercept + t.slope * x[n - 1]) * 100;
	out->trend_cap_percent = expm1(t.intercept + t.slope * out->trend_cap_round) * 100;
}

static int all_equal(const double *x, size_t n)
{
	for (size_t i = 1; i < n; i++)
		if (x[i] != x[0])
			return 0;
	return 1;
}

void compare_sides_facts(const struct compare_input *in, struct compare_result *out,
			 const double *kb, size_t nkb, const double *kh, size_t nkh)
{
	/* 1 - (1 - s)^n = 0.95: a slowdown on a share s of the runs is
	   absent from n runs with probability 5% (docs/statistics.md);
	   runs that confirmed an unchanging count saw it too. */
	if (nkh) {
		double n = (double)nkh;
		if (in->confirmed_head > 0 && all_equal(kh, nkh))
			n += in->confirmed_head;
		out->blind_share_percent = -expm1(log(0.05) / n) * 100;
	}
	if (!nkb || !nkh)
		return;
	double bmin = kb[0], bmax = kb[0], hmin = kh[0], hmax = kh[0];
	for (size_t i = 1; i < nkb; i++) {
		bmin = fmin(bmin, kb[i]);
		bmax = fmax(bmax, kb[i]);
	}
	for (size_t i = 1; i < nkh; i++) {
		hmin = fmin(hmin, kh[i]);
		hmax = fmax(hmax, kh[i]);
	}
	out->ranges_disjoint = bmax < hmin || hmax < bmin;
	out->exact_data = all_equal(kb, nkb) && all_equal(kh, nkh);
}
