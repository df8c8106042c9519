/*
 * analyze/decide: phase 3 of the comparison engine (compare.h), the nine
 * verdict rules of docs/statistics.md in order, each in a function of its
 * own: rules 1-4 (too few samples, dispersion, a zero base, below
 * min_difference), 5-7 (beyond the tolerance: regression or improvement,
 * or within the noise floor), 8 (a pass; in sequential looks also the
 * mirror test) and 9 (inconclusive, saying which condition failed).
 * compare_compute() (compare.c) and holm_adjust() (holm.c) come first.
 */
#include "analyze/compare.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "analyze/exact.h"
#include "analyze/format.h"
#include "analyze/mean.h"
#include "base/sbuf.h"
#include "base/xalloc.h"

/* Holm's family size, at least 1: what a Bonferroni bound multiplies by. */
static double family_size(const struct compare_result *r)
{
	return (double)(r->holm_m ? r->holm_m : 1);
}

/* "> 10%" or "< -10%": the threshold on the change for one direction. */
static void add_threshold(struct sbuf *sb, int upper, double t)
{
	sbuf_addf(sb, upper ? "> %g%%" : "< -%g%%", t);
}

static void add_p(struct sbuf *sb, const struct compare_result *r)
{
	sbuf_addf(sb, "p=%.2g", r->p_value);
	if (r->holm_applied)
		sbuf_addf(sb, " (Holm %.2g)", r->p_adjusted);
}

static void add_interval(struct sbuf *sb, const struct compare_input *in,
			 const struct compare_result *r)
{
	sbuf_addf(sb, "%g%% interval ", in->confidence * 100);
	units_format_percent(sb, r->ci_low_percent);
	sbuf_adds(sb, " to ");
	units_format_percent(sb, r->ci_high_percent);
}

static void set_verdict(struct compare_result *r, enum verdict v, int rule, struct sbuf *reason)
{
	r->verdict = v;
	r->rule = rule;
	free(r->reason);
	r->reason = sbuf_detach(reason);
}

/* The level a p must get below: alpha, or Holm's alpha / m. */
static void add_level(struct sbuf *sb, double alpha, size_t m, double thr)
{
	if (m > 1)
		sbuf_addf(sb, "the Holm threshold %g / %zu = %.2g", alpha, m, thr);
	else
		sbuf_addf(sb, "%g", alpha);
}

/* The warning when no p this test can give passes the Holm threshold. */
static void warn_power(const struct compare_input *in, struct compare_result *r)
{
	double alpha = 1 - in->confidence;
	double thr = alpha / family_size(r);
	int rpr = in->runs_per_round > 0 ? in->runs_per_round : 1;
	struct sbuf sb = SBUF_INIT;

	if (in->sequential || r->exact_data || isnan(r->min_possible_p) || r->min_possible_p < thr)
		return;
	if (in->pairing == PAIRING_INDEPENDENT) {
		size_t k = 1;

		while (k < 1000 && exp(lgamma(k + 1.0) * 2 - lgamma(2.0 * k + 1)) >= thr)
			k++;
		sbuf_addf(&sb,
			  "with %zu and %zu runs the smallest possible p is "
			  "%.2g, not below ",
			  r->nr_base, r->nr_head, r->min_possible_p);
		add_level(&sb, alpha, r->holm_m, thr);
		sbuf_addf(&sb,
			  ": no change can be shown; %zu runs per side would "
			  "be needed",
			  k);
	} else {
		int n = 1;

		while (n < 1000 && ldexp(1.0, -n) >= thr)
			n++;
		sbuf_addf(&sb,
			  "with %zu rounds the smallest possible p is %.2g, "
			  "not below ",
			  r->nr_pairs, r->min_possible_p);
		add_level(&sb, alpha, r->holm_m, thr);
		sbuf_addf(&sb,
			  ": no change can be shown; %d rounds (%d runs per "
			  "side) would be needed",
			  n, n * rpr);
		if (n > EXACT_SIGNFLIP_MAX_N && 1.0 / (in->resamples + 1.0) >= thr)
			sbuf_addf(&sb, ", and resamples of at least %.0f", floor(1.0 / thr));
	}
	strvec_push_take(&r->warnings, sbuf_detach(&sb));
}

/* What every rule reads: the tolerance, the levels and the estimate. */
struct rules {
	const struct compare_input *in;
	struct compare_result *r;
	double T, conf, alpha, deg, F;
	int hib;
	/* The change of the mean (docs/statistics.md, "The change of the
	   mean"): computed, shown beyond +T, beyond -T, shown below T. */
	int mean, mean_reg, mean_imp, mean_below;
	double mdeg;
};

/*
 * What the change of the mean shows at the level the typical change is
 * judged by. Its p-values are not in Holm's step-down (that orders the
 * typical changes of the run); they are multiplied by the family size
 * instead (Bonferroni, the conservative bound on it). The mean "below T"
 * needs the same evidence as a pass of the typical change: the share of
 * its confidence distribution at or below T is at least the confidence,
 * and in sequential looks its own test of "below T" rejects at the look's
 * level.
 */
/* The mean shown beyond T: p below alpha / 3, or below alpha with the
   mean also apart from the typical change (mean_rules()). */
static int mean_shown(double p, double p_apart, double m, double alpha)
{
	return p * m < alpha / 3 || (p * m < alpha && p_apart * m < alpha);
}

static int mean_min_rounds(const struct compare_input *in)
{
	return in->mean_min_rounds > 0 ? in->mean_min_rounds : MEAN_PASS_MIN_ROUNDS;
}

static void mean_rules(struct rules *R)
{
	const struct compare_result *r = R->r;
	double m = family_size(r);
	double alpha = R->in->sequential ? R->in->mean_level : R->alpha;

	R->mean = !isnan(r->mean_change_percent) && !isnan(r->mean_p_reg);
	if (!R->mean) {
		R->mean_below = 1;
		return;
	}
	R->mdeg = r->mean_degradation_percent;
	if (r->exact_data) {
		R->mean_reg = R->mdeg > R->T;
		R->mean_imp = -R->mdeg > R->T;
		R->mean_below = R->mdeg <= R->T;
		return;
	}
	/*
	 * Two tests that may each claim a regression are two chances at a
	 * false one, and on a plain shift both see the same change. So the
	 * mean claims it on a third of the level, or on the whole level when it is
	 * also shown apart from the typical change (beyond its estimate, at
	 * the same level): where a minority moved the mean away from the
	 * typical run, the case the rank test is blind to, that costs
	 * nothing; at a plain shift exactly at T the two together stay near
	 * the rank test's own error (docs/statistics.md).
	 */
	R->mean_reg = R->mdeg > R->T && r->mean_p_reg >= R->conf &&
		      mean_shown(r->mean_p_test_reg, r->mean_p_test_apart_reg, m, alpha);
	R->mean_imp = -R->mdeg > R->T && r->mean_p_imp >= R->conf &&
		      mean_shown(r->mean_p_test_imp, r->mean_p_test_apart_imp, m, alpha);
	R->mean_below = 1 - r->mean_p_reg >= R->conf;
	if (R->in->sequential)
		R->mean_below = R->mean_below && r->mean_p_test_pass * m < alpha &&
				r->nr_pairs >= (size_t)mean_min_rounds(R->in);
}

/* "; mean +20.3% [+11.9%, +29.4%]": the change of the mean in a reason. */
static void add_mean(struct sbuf *sb, const struct compare_result *r)
{
	sbuf_adds(sb, "mean ");
	units_format_change(sb, r->mean_change_percent, r->mean_ci_low_percent,
			    r->mean_ci_high_percent);
}

/* Rules 1-4, which need no test: 1 when one of them decided. */
static int decide_preconditions(const struct rules *R)
{
	const struct compare_input *in = R->in;
	struct compare_result *r = R->r;
	struct sbuf sb = SBUF_INIT;
	size_t least = r->nr_base < r->nr_head ? r->nr_base : r->nr_head;

	/* 1. too few runs */
	if (least < (size_t)(in->min_samples > 0 ? in->min_samples : 0)) {
		if (r->nr_base == r->nr_head)
			sbuf_addf(&sb, "only %zu samples, min_samples is %d", least,
				  in->min_samples);
		else
			sbuf_addf(&sb,
				  "only %zu %s samples (%zu %s), min_samples "
				  "is %d",
				  least, r->nr_base < r->nr_head ? "base" : "head",
				  r->nr_base < r->nr_head ? r->nr_head : r->nr_base,
				  r->nr_base < r->nr_head ? "head" : "base", in->min_samples);
		set_verdict(r, VERDICT_INCONCLUSIVE, 1, &sb);
		return 1;
	}
	if (!r->nr_pairs || (isnan(r->change_percent) && !r->zero_base)) {
		sbuf_adds(&sb, in->pairing == PAIRING_INDEPENDENT
				   ? "no samples to compare"
				   : "no round holds samples of both sides");
		set_verdict(r, VERDICT_INCONCLUSIVE, 1, &sb);
		return 1;
	}
	/* 2. dispersion */
	if (in->max_cv > 0 && r->robust_cv > in->max_cv && !r->ranges_disjoint) {
		sbuf_addf(&sb, "dispersion (robust CV %.2f) above max_cv %g", r->robust_cv,
			  in->max_cv);
		set_verdict(r, VERDICT_INCONCLUSIVE, 2, &sb);
		return 1;
	}
	/* 3. zero base statistic */
	if (r->zero_base) {
		sbuf_adds(&sb, "the base statistic is zero (in a round or a "
			       "resample): a relative change is undefined");
		set_verdict(r, VERDICT_INCONCLUSIVE, 3, &sb);
		return 1;
	}
	/* 4. min_difference */
	if (in->min_difference >= 0 && fabs(r->head_stat - r->base_stat) < in->min_difference) {
		sbuf_adds(&sb, "difference ");
		units_format_delta(&sb, in->metric, fabs(r->head_stat - r->base_stat),
				   r->base_stat);
		sbuf_adds(&sb, " below min_difference ");
		units_format_value(&sb, in->metric, in->min_difference);
		set_verdict(r, VERDICT_PASS, 4, &sb);
		return 1;
	}
	return 0;
}

/* Rules 5-7: a change shown beyond the tolerance, which is a regression
   or an improvement above the noise floor, else within the noise. 1 when
   they decided; sb holds the change either way. */
static int decide_beyond(const struct rules *R, struct sbuf *sb)
{
	struct compare_result *r = R->r;
	double T = R->T, F = R->F, deg = R->deg;
	int p_ok = r->exact_data || r->p_adjusted < R->alpha;
	int typ_reg = deg > T && r->p_reg >= R->conf && p_ok;
	int typ_imp = -deg > T && r->p_imp >= R->conf && p_ok;
	/* the typical change shown below T, with the mirror test in a
	   sequential look as a pass needs it (decide_pass()) */
	int typ_below = 1 - r->p_reg >= R->conf && (!R->in->sequential || r->exact_data ||
						    r->p_test_pass * family_size(r) < R->alpha);
	/* A regression of either the typical run or the mean is one. An
	   improvement needs the other one below T too: a typical run
	   faster by more than T says nothing of a slower minority. */
	int reg = typ_reg || R->mean_reg;
	int imp = !reg && ((typ_imp && R->mean_below) || (R->mean_imp && typ_below));
	/* the change the verdict rests on: the typical one when it shows */
	int by_mean = reg ? !typ_reg : imp && !(typ_imp && R->mean_below);
	double shown = by_mean ? R->mdeg : deg;

	if (!reg && !imp)
		return 0;
	if (by_mean) {
		sbuf_adds(sb, "typical, ");
		add_mean(sb, r);
		sbuf_addch(sb, ' ');
	}
	add_threshold(sb, reg ? !R->hib : R->hib, T);
	if (r->exact_data) {
		sbuf_adds(sb, " (exact data: no spread on either side)");
	} else if (by_mean) {
		double p = reg ? r->mean_p_test_reg : r->mean_p_test_imp;

		sbuf_addf(sb, " with P=%.2f, p=%.2g", reg ? r->mean_p_reg : r->mean_p_imp, p);
		if (r->holm_m > 1)
			sbuf_addf(sb, " (x%zu comparisons %.2g)", r->holm_m,
				  fmin(1, p * family_size(r)));
	} else {
		sbuf_addf(sb, " with P=%.2f, ", reg ? r->p_reg : r->p_imp);
		add_p(sb, r);
	}
	if ((reg && shown > F) || (imp && -shown > F)) {
		/* 5 and 6 */
		if (!isnan(r->noise_floor_percent) && !r->exact_data)
			sbuf_addf(sb, ", noise floor %.1f%%", F);
		set_verdict(r, reg ? VERDICT_REGRESSION : VERDICT_IMPROVED, reg ? 5 : 6, sb);
		return 1;
	}
	/* 7 */
	sbuf_addf(sb,
		  ", but not above the noise floor: this machine "
		  "cannot resolve changes of %g%% for this command "
		  "(noise floor %.1f%%)",
		  T, F);
	set_verdict(r, VERDICT_WITHIN_NOISE, 7, sb);
	return 1;
}

/* Rule 8: confidently no regression beyond T (in sequential looks the
   mirror test must also show the degradation below T at this look's
   level; when it does not, rule 9 says so). 1 when decided. */
static int decide_pass(const struct rules *R, struct sbuf *sb)
{
	const struct compare_input *in = R->in;
	struct compare_result *r = R->r;
	double T = R->T, conf = R->conf, alpha = R->alpha, deg = R->deg;
	double p_pass = NAN;

	if (in->sequential && !r->exact_data) {
		p_pass = fabs(deg) <= T ? r->p_adjusted : fmin(1, r->p_test_pass * family_size(r));
		if (1 - r->p_reg >= conf && !(p_pass < alpha)) {
			sbuf_addf(sb, "within %g%% but the mirror test p=%.2g", T, r->p_test_pass);
			if (r->holm_applied)
				sbuf_addf(sb, " (Holm %.2g)", p_pass);
			sbuf_addf(sb, " is not below this look's level %.2g", alpha);
			set_verdict(r, VERDICT_INCONCLUSIVE, 9, sb);
			return 1;
		}
	}
	if (!(1 - r->p_reg >= conf))
		return 0;
	if (!R->mean_below) {
		/* The typical run is within T (or faster), the mean is not
		   shown to be: a slow minority is not ruled out. */
		sbuf_adds(sb, "typical is no regression, but the ");
		add_mean(sb, r);
		sbuf_addf(sb, " is not shown within %g%% (P(regression)=%.2f", T, r->mean_p_reg);
		if (in->sequential && r->nr_pairs < (size_t)mean_min_rounds(in))
			sbuf_addf(sb,
				  "; %zu rounds, a pass on the mean needs %d: fewer could miss a "
				  "minority of 5%% of the runs",
				  r->nr_pairs, mean_min_rounds(in));
		else if (in->sequential)
			sbuf_addf(sb, ", test p=%.2g not below this look's level %.2g",
				  r->mean_p_test_pass * family_size(r), in->mean_level);
		sbuf_adds(sb, ")");
		set_verdict(r, VERDICT_INCONCLUSIVE, 9, sb);
		return 1;
	}
	if (r->exact_data) {
		sbuf_addf(sb, "within %g%% (exact data: no spread on either side)", T);
	} else if (-deg > T) {
		add_threshold(sb, R->hib, T);
		sbuf_addf(sb, ": no regression (P=%.2f); ", r->p_reg);
		if (r->p_imp < conf)
			sbuf_addf(sb,
				  "the improvement is not established "
				  "(P=%.2f below %g)",
				  r->p_imp, conf);
		else {
			sbuf_adds(sb, "the improvement is not established (");
			add_p(sb, r);
			sbuf_addf(sb, " not below %g)", alpha);
		}
	} else {
		sbuf_addf(sb, "within %g%% (", T);
		add_interval(sb, in, r);
		sbuf_addf(sb, ", P(regression)=%.2f", r->p_reg);
		if (!isnan(p_pass))
			sbuf_addf(sb, ", mirror test p=%.2g", p_pass);
		sbuf_addch(sb, ')');
	}
	set_verdict(r, VERDICT_PASS, 8, sb);
	return 1;
}

/* Rule 9: inconclusive, naming the condition that failed. */
static void decide_undecided(const struct rules *R, struct sbuf *sb)
{
	struct compare_result *r = R->r;
	double T = R->T, conf = R->conf;

	if (R->deg > T) {
		add_threshold(sb, !R->hib, T);
		if (r->p_reg < conf) {
			sbuf_addf(sb, " but P=%.2f is below %g", r->p_reg, conf);
		} else {
			sbuf_addf(sb, " with P=%.2f but ", r->p_reg);
			add_p(sb, r);
			sbuf_addf(sb, " is not below %g", R->alpha);
		}
	} else {
		sbuf_adds(sb, "but the ");
		add_interval(sb, R->in, r);
		sbuf_adds(sb, " reaches ");
		add_threshold(sb, !R->hib, T);
		/* rule 8 passes when P(regression) <= 1 - confidence; alpha
		   is this look's share of it and differs in sequential mode */
		sbuf_addf(sb, ": P(regression)=%.2f, a pass needs at most %g", r->p_reg, 1 - conf);
	}
	set_verdict(r, VERDICT_INCONCLUSIVE, 9, sb);
}

void compare_decide(const struct compare_input *in, struct compare_result *r)
{
	struct rules R = {
	    .in = in,
	    .r = r,
	    .T = in->max_percent,
	    .conf = in->confidence,
	    .alpha = in->sequential ? in->level : 1 - in->confidence,
	    .deg = r->degradation_percent,
	    .F = isnan(r->noise_floor_percent) ? 0 : r->noise_floor_percent,
	    .hib = in->higher_is_better,
	};
	struct sbuf sb = SBUF_INIT;

	mean_rules(&R);

	if (r->decided)
		return;
	r->decided = 1;
	warn_power(in, r);
	if (decide_preconditions(&R))
		return;
	/* every later reason begins with the change */
	units_format_percent(&sb, r->change_percent);
	sbuf_addch(&sb, ' ');
	if (decide_beyond(&R, &sb))
		return;
	/* rules 8 and 9 write their own words after the change */
	if (decide_pass(&R, &sb))
		return;
	decide_undecided(&R, &sb);
}
