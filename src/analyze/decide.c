/*
 * analyze/decide: phase 3 of the comparison engine (compare.h), the
 * verdict of docs/statistics.md ("Verdict rules, in order"). Evidence
 * first: facts_compute() names every fact a verdict may rest on (the typical
 * change and the mean shown beyond or within T, min_difference met, the
 * noise floor or the rounds resolving the change, a trend, the pass
 * minimum of rounds). Then one classification, in order:
 *
 *   1 too few samples, 2 dispersion              -> inconclusive
 *   5 a regression (typical or mean) shown       -> regression, or
 *     4 below min_difference, 7 within the floor
 *       and not resolved by the rounds           -> inconclusive
 *   3 a zero base                                -> inconclusive
 *   6 an improvement shown                       -> improved, or
 *     7 within the floor, rounds not resolving   -> within_noise
 *   8 (or 4) the pass conjunction                -> pass
 *   9 / 10 what the conjunction lacked           -> inconclusive
 *
 * Only rule_pass() says pass, and it says it only when every condition
 * holds at once; no other rule can. Rule numbers are compare_result.rule.
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

/* Every fact a verdict may rest on (docs/statistics.md), named once. */
struct facts {
	const struct compare_input *in;
	struct compare_result *r;
	double T, conf, alpha, deg, F, m;
	int hib;
	/* The typical change: shown beyond +T / -T; shown not above T
	   (1 - P(regression) >= confidence); in a sequential look the mirror
	   test of "below T" at the look's level as the pass reads it (Holm
	   within +-T, else Bonferroni: p_pass) and as an improvement reads it
	   (Bonferroni: typ_below). */
	int typ_reg, typ_imp, typ_within, typ_mirror, typ_below;
	double p_pass;
	/* The change of the mean (docs/statistics.md, "The change of the
	   mean"): computed, shown beyond +T, beyond -T, shown within T. */
	int mean, mean_reg, mean_imp, mean_within;
	double mdeg;
	/* min_difference set, and both the typical and the mean difference
	   shown below it: the ends of their intervals, in the metric's unit. */
	int md_set, small_diff, small_abs;
	double typ_diff, mean_diff;
	/* The regression's change above the noise floor, or the rounds
	   beyond T one by one (the sign test at the level). */
	int rounds_resolve, rounds_resolve_imp;
	/* The change moves over the rounds and crosses T by the cap. */
	int trend;	  /* the trend line beyond T either way: no improved */
	int trend_slower; /* ... beyond T toward slower: no pass either */
	/* the mean over every round, the stall filter's dropped ones too,
	   beyond T toward slower (a pass may not rest on dropped rounds) */
	int dropped_slower;
	double all_mdeg;
	/* The pass minimum: rounds of the sequential design's mean rule and
	   head runs of rare_share. */
	int need_rounds, need_runs, rounds_ok;
};

static int mean_min_rounds(const struct compare_input *in)
{
	return in->mean_min_rounds > 0 ? in->mean_min_rounds : MEAN_PASS_MIN_ROUNDS;
}

/* Head runs a pass needs so that a slowdown of `share` of the runs is
   seen with 95% probability: ln(0.05) / ln(1 - share), rounded up. */
static int runs_for_share(double share)
{
	if (!(share > 0 && share < 1))
		return 0;
	return (int)ceil(log(0.05) / log1p(-share) - 1e-9);
}

/* The mean shown beyond T: p below alpha / 3, or below alpha with the
   mean also apart from the typical change. */
static int mean_shown(double p, double p_apart, double m, double alpha)
{
	return p * m < alpha / 3 || (p * m < alpha && p_apart * m < alpha);
}

/*
 * The change of the mean at the level the typical change is judged by.
 * Its p-values are not in Holm's step-down (that orders the typical
 * changes of the run); they are multiplied by the family size instead
 * (Bonferroni, the conservative bound on it). "Within T" needs the same
 * evidence as for the typical change: the share of its confidence
 * distribution at or below T is at least the confidence, and in
 * sequential looks its own test of "below T" rejects at the look's level.
 */
static void facts_mean(struct facts *f)
{
	const struct compare_result *r = f->r;
	double alpha = f->in->sequential ? f->in->mean_level : f->alpha;

	f->mean = !isnan(r->mean_change_percent) && !isnan(r->mean_p_reg);
	if (!f->mean) {
		f->mean_within = 1;
		return;
	}
	f->mdeg = r->mean_degradation_percent;
	if (r->exact_data) {
		f->mean_reg = f->mdeg > f->T;
		f->mean_imp = -f->mdeg > f->T;
		f->mean_within = f->mdeg <= f->T;
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
	f->mean_reg = f->mdeg > f->T && r->mean_p_reg >= f->conf &&
		      mean_shown(r->mean_p_test_reg, r->mean_p_test_apart_reg, f->m, alpha);
	f->mean_imp = -f->mdeg > f->T && r->mean_p_imp >= f->conf &&
		      mean_shown(r->mean_p_test_imp, r->mean_p_test_apart_imp, f->m, alpha);
	f->mean_within = 1 - r->mean_p_reg >= f->conf;
	if (f->in->sequential)
		f->mean_within = f->mean_within && r->mean_p_test_pass * f->m < alpha;
}

/* The largest absolute difference an interval [lo, hi] (percent of ref)
   allows; the estimate itself where there is no interval. */
static double diff_bound(double lo, double hi, double est, double ref)
{
	double far = fmax(fabs(lo), fabs(hi));

	if (!isfinite(far))
		far = fabs(est);
	return far / 100 * fabs(ref);
}

/*
 * The most the interval lets the head be slower, in the metric's unit (0
 * when it is all on the faster side). min_difference asks "is it slower
 * by more than this?": the far end of an improvement is no slowdown, and
 * reading it as one held back a head that its slower twin then passed
 * (bench/promise.sh, seed 44, case 3798).
 */
static double slower_bound(double lo, double hi, double est, double ref, int hib)
{
	double end = hib ? -lo : hi;

	if (!isfinite(end))
		end = hib ? -est : est;
	return fmax(end, 0) / 100 * fabs(ref);
}

static void facts_compute(struct facts *f)
{
	const struct compare_input *in = f->in;
	const struct compare_result *r = f->r;
	int p_ok = r->exact_data || r->p_adjusted < f->alpha;

	f->typ_reg = f->deg > f->T && r->p_reg >= f->conf && p_ok;
	f->typ_imp = -f->deg > f->T && r->p_imp >= f->conf && p_ok;
	f->typ_within = 1 - r->p_reg >= f->conf;
	f->p_pass = NAN;
	f->typ_mirror = 1;
	if (in->sequential && !r->exact_data) {
		f->p_pass = fabs(f->deg) <= f->T ? r->p_adjusted : fmin(1, r->p_test_pass * f->m);
		f->typ_mirror = f->p_pass < f->alpha;
	}
	f->typ_below =
	    f->typ_within && (!in->sequential || r->exact_data || r->p_test_pass * f->m < f->alpha);
	facts_mean(f);

	f->md_set = in->min_difference >= 0;
	if (f->md_set) {
		double typ_abs = diff_bound(r->ci_low_percent, r->ci_high_percent,
					    r->change_percent, r->base_stat);
		double mean_abs = f->mean
				      ? diff_bound(r->mean_ci_low_percent, r->mean_ci_high_percent,
						   r->mean_change_percent, r->base_mean)
				      : typ_abs;

		/* an improvement smaller than min_difference is none */
		f->small_abs = typ_abs < in->min_difference && mean_abs < in->min_difference;
		/* a pass, or a shown regression's rule 4: slower by less */
		f->typ_diff = slower_bound(r->ci_low_percent, r->ci_high_percent, r->change_percent,
					   r->base_stat, f->hib);
		f->mean_diff = f->mean
				   ? slower_bound(r->mean_ci_low_percent, r->mean_ci_high_percent,
						  r->mean_change_percent, r->base_mean, f->hib)
				   : f->typ_diff;
		f->small_diff =
		    f->typ_diff < in->min_difference && f->mean_diff < in->min_difference;
	}

	f->rounds_resolve =
	    !r->exact_data && isfinite(r->p_rounds_beyond) && r->p_rounds_beyond * f->m < f->alpha;
	f->rounds_resolve_imp = !r->exact_data && isfinite(r->p_rounds_beyond_imp) &&
				r->p_rounds_beyond_imp * f->m < f->alpha;

	if (isfinite(r->trend_p) && r->trend_p * f->m < f->alpha) {
		double ends[] = {r->trend_first_percent, r->trend_last_percent,
				 r->trend_cap_percent};

		/* A pass is held back only by a line slower than T at some
		   point (its first or last round, or the cap): a change that
		   moves within the faster side is never a slowdown to miss,
		   and blocking it made a slower twin of a case pass where
		   the case itself did not (bench/promise.sh, seed 40). */
		for (size_t i = 0; i < sizeof(ends) / sizeof(*ends); i++) {
			double deg = f->hib ? -ends[i] : ends[i];

			f->trend |= fabs(ends[i]) > f->T;
			f->trend_slower |= deg > f->T;
		}
	}
	f->all_mdeg =
	    f->hib ? -r->all_rounds_mean_change_percent : r->all_rounds_mean_change_percent;
	f->dropped_slower = r->nr_dropped && isfinite(f->all_mdeg) && f->all_mdeg > f->T;

	f->need_rounds = in->sequential ? mean_min_rounds(in) : 0;
	f->need_runs = runs_for_share(in->rare_share);
	f->rounds_ok =
	    r->nr_pairs >= (size_t)f->need_rounds && r->nr_head_kept >= (size_t)f->need_runs;
}

/* "; mean +20.3% [+11.9%, +29.4%]": the change of the mean in a reason. */
static void add_mean(struct sbuf *sb, const struct compare_result *r)
{
	sbuf_adds(sb, "mean ");
	units_format_change(sb, r->mean_change_percent, r->mean_ci_low_percent,
			    r->mean_ci_high_percent);
}

/* "slower by at most 0.31 ms (typical) and 0.33 ms (mean)" */
static void add_differences(struct sbuf *sb, const struct facts *f)
{
	const struct compare_result *r = f->r;

	sbuf_adds(sb, "slower by at most ");
	units_format_delta(sb, f->in->metric, f->typ_diff, r->base_stat);
	sbuf_adds(sb, " (typical)");
	if (f->mean) {
		sbuf_adds(sb, " and ");
		units_format_delta(sb, f->in->metric, f->mean_diff, r->base_stat);
		sbuf_adds(sb, " (mean)");
	}
	sbuf_adds(sb, ", below min_difference ");
	units_format_value(sb, f->in->metric, f->in->min_difference);
}

/* A zero base left rounds out: a regression's reason says so. */
static void add_zero_base_note(struct sbuf *sb, const struct compare_result *r)
{
	if (r->nr_zero_base)
		sbuf_addf(sb, "; %zu of %zu rounds had a zero base and were left out",
			  r->nr_zero_base, r->nr_pairs);
}

/* ---- the rules ---------------------------------------------------------- */

/* Rules 1 and 2, which need no test: too few runs, or too dispersed. */
static int rule_preconditions(const struct facts *f)
{
	const struct compare_input *in = f->in;
	struct compare_result *r = f->r;
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
	return 0;
}

/* "> 10% with P=1.00, p=0.001": how a shown change was shown. */
static void add_shown(struct sbuf *sb, const struct facts *f, int reg, int by_mean)
{
	const struct compare_result *r = f->r;

	if (by_mean) {
		sbuf_adds(sb, "typical, ");
		add_mean(sb, r);
		sbuf_addch(sb, ' ');
	}
	add_threshold(sb, reg ? !f->hib : f->hib, f->T);
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
}

/* A floor the rounds beat: the machine resolved the change round by round,
   so the floor is the program's own rhythm (docs/statistics.md). */
static void add_rounds_beyond(struct sbuf *sb, const struct facts *f, int reg)
{
	const struct compare_result *r = f->r;

	sbuf_addf(sb, ", noise floor %.1f%% but %zu of %zu rounds were ", f->F,
		  reg ? r->nr_rounds_beyond : r->nr_rounds_beyond_imp, r->nr_rounds_signed);
	add_threshold(sb, reg ? !f->hib : f->hib, f->T);
	sbuf_addf(sb,
		  " (sign test p=%.2g): the floor is the program's own run-to-run "
		  "pattern, not the machine",
		  reg ? r->p_rounds_beyond : r->p_rounds_beyond_imp);
}

static void add_floor_words(struct sbuf *sb, const struct facts *f)
{
	sbuf_addf(sb,
		  ", but not above the noise floor: this machine "
		  "cannot resolve changes of %g%% for this command "
		  "(noise floor %.1f%%)",
		  f->T, f->F);
}

/*
 * Rule 5: a regression of the typical run or of the mean, shown beyond
 * T. What else may be said of it is only `inconclusive`: below
 * min_difference (4), or within the noise floor while the rounds one by
 * one do not resolve it either (7). The floor is the machine's A/A
 * spread as the base's own runs show it, and a program with a rhythm of
 * its own (every other run slower, a stall every tenth run) widens it; a
 * head beyond T in most rounds, beyond chance, has been resolved by the
 * machine whatever the floor says.
 */
static int rule_regression(const struct facts *f, struct sbuf *sb)
{
	struct compare_result *r = f->r;
	int by_mean;
	double shown;

	if (!f->typ_reg && !f->mean_reg)
		return 0;
	/* Both shown: the one above the floor, if either is. Reading the
	   floor against the typical change alone made a slower twin of a
	   regression on its mean inconclusive (bench/promise.sh, seed 42). */
	by_mean = !f->typ_reg || (f->mean_reg && !(f->deg > f->F) && f->mdeg > f->F);
	shown = by_mean ? f->mdeg : f->deg;
	add_shown(sb, f, 1, by_mean);
	if (f->md_set && f->small_diff) {
		sbuf_adds(sb, ", but the ");
		add_differences(sb, f);
		set_verdict(r, VERDICT_INCONCLUSIVE, 4, sb);
		return 1;
	}
	if (shown > f->F || r->exact_data) {
		if (!isnan(r->noise_floor_percent) && !r->exact_data)
			sbuf_addf(sb, ", noise floor %.1f%%", f->F);
	} else if (f->rounds_resolve) {
		add_rounds_beyond(sb, f, 1);
	} else {
		add_floor_words(sb, f);
		set_verdict(r, VERDICT_INCONCLUSIVE, 7, sb);
		return 1;
	}
	add_zero_base_note(sb, r);
	set_verdict(r, VERDICT_REGRESSION, 5, sb);
	return 1;
}

/* Rule 3: a zero base statistic (in a round or a resample) leaves no
   relative change to pass on; a regression was said above. */
static int rule_zero_base(const struct facts *f, struct sbuf *sb)
{
	struct compare_result *r = f->r;

	if (!r->zero_base)
		return 0;
	sbuf_reset(sb);
	if (r->nr_zero_base && r->nr_zero_base < r->nr_pairs)
		sbuf_addf(sb,
			  "the base is zero in %zu of %zu rounds: a relative change of those "
			  "is undefined, so the rest cannot pass",
			  r->nr_zero_base, r->nr_pairs);
	else
		sbuf_adds(sb, "the base statistic is zero (in a round or a "
			      "resample): a relative change is undefined");
	set_verdict(r, VERDICT_INCONCLUSIVE, 3, sb);
	return 1;
}

/*
 * Rule 6: an improvement, shown beyond -T by one of the typical change
 * and the mean while the other is shown within T (a typical run faster
 * by more than T says nothing of a slower minority), with the pass
 * minimum of rounds where the mean is the one within. Within the noise
 * floor it is within_noise (7). Not when the change is below
 * min_difference (that is a pass) or still moving (rule 10).
 */
static int rule_improved(const struct facts *f, struct sbuf *sb)
{
	struct compare_result *r = f->r;
	int by_typ = f->typ_imp && f->mean_within && f->rounds_ok;
	int by_mean = !by_typ && f->mean_imp && f->typ_below;
	double shown;

	if ((!by_typ && !by_mean) || (f->md_set && f->small_abs) || f->trend)
		return 0;
	shown = by_mean ? f->mdeg : f->deg;
	add_shown(sb, f, 0, by_mean);
	if (-shown > f->F || r->exact_data) {
		if (!isnan(r->noise_floor_percent) && !r->exact_data)
			sbuf_addf(sb, ", noise floor %.1f%%", f->F);
	} else if (f->rounds_resolve_imp) {
		add_rounds_beyond(sb, f, 0);
	} else {
		add_floor_words(sb, f);
		set_verdict(r, VERDICT_WITHIN_NOISE, 7, sb);
		return 1;
	}
	set_verdict(r, VERDICT_IMPROVED, 6, sb);
	return 1;
}

/* "; blind share 6.4%": what a pass could not see (docs/statistics.md). */
static void add_blind_share(struct sbuf *sb, const struct compare_result *r)
{
	if (isfinite(r->blind_share_percent))
		sbuf_addf(sb,
			  "; blind share %.1f%%: a slowdown of fewer of the runs may not "
			  "have happened yet",
			  r->blind_share_percent);
}

/*
 * Rule 8 (4): pass, the one conjunction. The change is within T — the
 * typical change shown within T (with the mirror test in a sequential
 * look) and the change of the mean shown within T, or, in place of both,
 * the typical and the mean difference both shown below min_difference
 * (rule 4) — and the change does not move (no trend crossing T by the
 * cap), and the rounds reach the pass minimum (MEAN_PASS_MIN_ROUNDS in a
 * sequential look, rare_share's runs), and no base is zero (rule 3 came
 * first). Nothing else says pass.
 */
static int rule_pass(const struct facts *f, struct sbuf *sb)
{
	const struct compare_input *in = f->in;
	struct compare_result *r = f->r;
	int within_t = f->typ_within && f->typ_mirror && f->mean_within;
	int within_md = f->md_set && f->small_diff;

	if (!(within_t || within_md) || f->trend_slower || f->dropped_slower || !f->rounds_ok ||
	    r->zero_base)
		return 0;
	if (!within_t) {
		add_differences(sb, f);
		add_blind_share(sb, r);
		set_verdict(r, VERDICT_PASS, 4, sb);
		return 1;
	}
	if (r->exact_data) {
		sbuf_addf(sb, "within %g%% (exact data: no spread on either side)", f->T);
	} else if (-f->deg > f->T) {
		add_threshold(sb, f->hib, f->T);
		sbuf_addf(sb, ": no regression (P=%.2f); ", r->p_reg);
		if (r->p_imp < f->conf)
			sbuf_addf(sb,
				  "the improvement is not established "
				  "(P=%.2f below %g)",
				  r->p_imp, f->conf);
		else {
			sbuf_adds(sb, "the improvement is not established (");
			add_p(sb, r);
			sbuf_addf(sb, " not below %.2g)", f->alpha);
		}
	} else {
		sbuf_addf(sb, "within %g%% (", f->T);
		add_interval(sb, in, r);
		sbuf_addf(sb, ", P(regression)=%.2f", r->p_reg);
		if (!isnan(f->p_pass))
			sbuf_addf(sb, ", mirror test p=%.2g", f->p_pass);
		sbuf_addch(sb, ')');
	}
	add_blind_share(sb, r);
	set_verdict(r, VERDICT_PASS, 8, sb);
	return 1;
}

/* Rule 9: the typical change is not shown within T. */
static void undecided_typical(const struct facts *f, struct sbuf *sb)
{
	const struct compare_result *r = f->r;

	if (f->typ_within) {
		/* only the mirror test of a sequential look failed */
		sbuf_addf(sb, "within %g%% but the mirror test p=%.2g", f->T, r->p_test_pass);
		if (r->holm_applied)
			sbuf_addf(sb, " (Holm %.2g)", f->p_pass);
		sbuf_addf(sb, " is not below this look's level %.2g", f->alpha);
	} else if (f->deg > f->T) {
		add_threshold(sb, !f->hib, f->T);
		if (r->p_reg < f->conf) {
			sbuf_addf(sb, " but P=%.2f is below %g", r->p_reg, f->conf);
		} else {
			sbuf_addf(sb, " with P=%.2f but ", r->p_reg);
			add_p(sb, r);
			sbuf_addf(sb, " is not below %.2g", f->alpha);
		}
	} else {
		sbuf_adds(sb, "but the ");
		add_interval(sb, f->in, r);
		sbuf_adds(sb, " reaches ");
		add_threshold(sb, !f->hib, f->T);
		/* a pass needs P(regression) <= 1 - confidence; alpha is
		   this look's share of it and differs in sequential mode */
		sbuf_addf(sb, ": P(regression)=%.2f, a pass needs at most %g", r->p_reg,
			  1 - f->conf);
	}
}

/* Rule 9: the typical run is within T, the mean or the rounds are not
   enough: a slow minority is not ruled out. */
static void undecided_mean(const struct facts *f, struct sbuf *sb)
{
	const struct compare_input *in = f->in;
	const struct compare_result *r = f->r;

	if (f->mean_within && !(in->sequential && r->nr_pairs < (size_t)f->need_rounds)) {
		/* both within T: only rare_share's runs are missing */
		sbuf_addf(sb,
			  "within %g%% (typical and mean), but %zu runs: a pass needs %d for "
			  "rare_share %g%%, fewer could miss a slowdown of %g%% of the runs",
			  f->T, r->nr_head_kept, f->need_runs, in->rare_share * 100,
			  in->rare_share * 100);
		return;
	}
	sbuf_adds(sb, "typical is no regression, but the ");
	add_mean(sb, r);
	sbuf_addf(sb, " is not shown within %g%% (P(regression)=%.2f", f->T, r->mean_p_reg);
	if (in->sequential && r->nr_pairs < (size_t)f->need_rounds)
		sbuf_addf(sb,
			  "; %zu rounds, a pass on the mean needs %d: fewer could miss a "
			  "minority of 5%% of the runs",
			  r->nr_pairs, f->need_rounds);
	else if (in->sequential)
		sbuf_addf(sb, ", test p=%.2g not below this look's level %.2g",
			  r->mean_p_test_pass * f->m, in->mean_level);
	sbuf_adds(sb, ")");
}

/* Rule 10: the change moves over the rounds, and by the cap it is beyond
   T: a change that is still moving has no single size to pass. */
static void undecided_trend(const struct facts *f, struct sbuf *sb)
{
	const struct compare_result *r = f->r;
	const char *unit = f->in->runs_per_round > 1 ? "round" : "run";

	sbuf_addf(sb, "but the change %s with every %s: ",
		  r->trend_percent_per_round > 0 ? "grows" : "shrinks", unit);
	/* two digits: a slope of +0.25% a run is what the reader must see */
	sbuf_addf(sb, "%+.2g%% per %s, ", r->trend_percent_per_round, unit);
	units_format_percent(sb, r->trend_last_percent);
	sbuf_addf(sb, " by the last round (%d) from ", r->trend_last_round);
	units_format_percent(sb, r->trend_first_percent);
	sbuf_addf(sb, " at round %d (Mann-Kendall p=%.2g)", r->trend_first_round, r->trend_p);
	if (r->trend_cap_round > r->trend_last_round) {
		sbuf_adds(sb, ", at that rate ");
		units_format_percent(sb, r->trend_cap_percent);
		sbuf_addf(sb, " by round %d", r->trend_cap_round);
	}
	sbuf_addf(sb, ": a change still moving has no single size to pass within %g%%", f->T);
}

/* Rule 9: within T on the kept rounds, but the rounds the stall filter
   dropped hold the slowdown: with them the mean is beyond T. */
static void undecided_dropped(const struct facts *f, struct sbuf *sb)
{
	const struct compare_result *r = f->r;

	sbuf_addf(sb,
		  "within %g%% on the rounds kept, but with the %zu the stall filter dropped the "
		  "mean is ",
		  f->T, r->nr_dropped);
	units_format_percent(sb, r->all_rounds_mean_change_percent);
	sbuf_adds(sb, ": a pass may not rest on rounds left out");
}

/* Rules 9 and 10: inconclusive, naming the condition of the pass that
   failed, in the conjunction's order. */
static void rule_undecided(const struct facts *f, struct sbuf *sb)
{
	int rule = 9;

	if (!(f->typ_within && f->typ_mirror))
		undecided_typical(f, sb);
	else if (!f->mean_within || !f->rounds_ok)
		undecided_mean(f, sb);
	else if (f->trend_slower) {
		undecided_trend(f, sb);
		rule = 10;
	} else if (f->dropped_slower) {
		undecided_dropped(f, sb);
	} else
		sbuf_adds(sb, "no rule decided"); /* unreachable: rule_pass() */
	set_verdict(f->r, VERDICT_INCONCLUSIVE, rule, sb);
}

void compare_decide(const struct compare_input *in, struct compare_result *r)
{
	struct facts f = {
	    .in = in,
	    .r = r,
	    .T = in->max_percent,
	    .conf = in->confidence,
	    .alpha = in->sequential ? in->level : 1 - in->confidence,
	    .deg = r->degradation_percent,
	    .F = isnan(r->noise_floor_percent) ? 0 : r->noise_floor_percent,
	    .m = family_size(r),
	    .hib = in->higher_is_better,
	};
	struct sbuf sb = SBUF_INIT;

	if (r->decided)
		return;
	r->decided = 1;
	warn_power(in, r);
	if (rule_preconditions(&f))
		return;
	facts_compute(&f);
	/* every later reason begins with the change */
	units_format_percent(&sb, r->change_percent);
	sbuf_addch(&sb, ' ');
	if (rule_regression(&f, &sb) || rule_zero_base(&f, &sb) || rule_improved(&f, &sb) ||
	    rule_pass(&f, &sb))
		return;
	rule_undecided(&f, &sb);
}
