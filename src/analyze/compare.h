/*
 * analyze/compare: the comparison engine of `kagari compare` — base against
 * head samples of one metric of one command becomes a change, an interval,
 * an exact test, a noise floor and a verdict with a one-line reason, exactly
 * as docs/statistics.md defines them. Pure: no processes, no I/O.
 *
 * Call order for one run:
 *   1. for every comparison: compare_input_init(&in), fill it (the seed is
 *      already derived per comparison: rng_seed_from(run_seed,
 *      "bench/command/metric")), compare_compute(&in, &res);
 *   2. once over the gated comparisons of the run: holm_adjust() (holm.h),
 *      which sets p_adjusted and holm_m (skip it for `correction: none`,
 *      or pass holm = 0);
 *   3. for every comparison: compare_decide(&in, &res) — the verdict rules
 *      in order, the reason, and the warnings;
 *   4. copy what the report needs into `struct comparison`, then
 *      compare_result_release(&res).
 *
 * Conventions. "change" is (head - base) / base in percent as the samples
 * say; "degradation" is the change for lower-is-better metrics and the
 * negated change for higher-is-better ones (throughput, ipc). Every percent
 * below is a change unless named a degradation. Samples that are not finite
 * or are negative are ignored (metrics are never negative).
 *
 * Statistical choices beyond docs/statistics.md (documented here once):
 *  - the sign-flip test is exact up to 20 pairs (2^20 patterns) and Monte
 *    Carlo with `resamples` patterns beyond; Mann-Whitney is exact without
 *    ties up to nx * ny <= 2500, else normal with tie and continuity
 *    correction (exact.h);
 *  - the stall filter needs runs_per_round >= 2 and at least 3 rounds. The
 *    median and MAD are taken over the within-side spreads of both sides
 *    of every round (two values per round, sides with one run left out);
 *    a round goes when the larger of its two spreads exceeds median +
 *    6 MAD (at most half the rounds, widest first). Pooling the sides keeps
 *    the MAD from breaking down when stalls hit half the rounds (a stall
 *    widens one side only); it raised detection under 5% stalled runs from
 *    about 95% to about 97% in the calibration. The MAD is floored at 0.001
 *    (a relative spread of 0.1%) so that data whose spread is mostly
 *    exactly zero (integer metrics) do not lose rounds for a few units;
 *  - the control is within the round when at least two kept rounds hold
 *    two base runs, else odd rounds against even rounds; without two
 *    control values (or with a zero base value) it is unavailable: the noise
 *    floor is NAN and is not applied;
 *  - "exact data": after the stall filter every base value is equal and
 *    every head value is equal.
 *
 * Ownership: compare_compute() overwrites *out without releasing it; what it
 * allocates (dropped rounds, boot, reason, warnings) belongs to *out until
 * compare_result_release(), which leaves *out zeroed-and-valid to reuse.
 */
#ifndef KAGARI_ANALYZE_COMPARE_H
#define KAGARI_ANALYZE_COMPARE_H

#include <stddef.h>
#include <stdint.h>

#include "base/strvec.h"
#include "model/metric.h"
#include "model/result.h"
#include "suite/model.h"

struct compare_input {
	const struct sample *base; /* value, round (1-based), run (1-based,
				      time order within the side) */
	size_t nr_base;
	const struct sample *head;
	size_t nr_head;
	enum metric_id metric;	  /* only to print values in reasons */
	int higher_is_better;	  /* degradation is the negated change */
	enum statistic statistic; /* median | mean */
	double max_percent;	  /* T */
	double min_difference;	  /* base unit; < 0: unset */
	enum pairing pairing;	  /* rounds | independent */
	int resamples;		  /* B */
	double confidence;	  /* e.g. 0.95 */
	int min_samples;
	double max_cv;	    /* 0 disables rule 2 */
	int runs_per_round; /* as planned; the stall filter needs >= 2 */
	uint64_t seed;	    /* per comparison */
	int gate;
	/*
	 * The sequential design (docs/statistics.md "Sequential rounds"): a
	 * regression or improvement needs its adjusted p below `level` (the
	 * look's spent error, model/sequential.h; 0: nothing can be shown at
	 * this look) instead of 1 - confidence, and a pass needs the mirror
	 * test ("the degradation is below T") below it too. The reported
	 * p_value is the test of the direction the estimate points to: beyond
	 * +T the regression test, beyond -T the improvement test, else the
	 * mirror test.
	 */
	int sequential;
	double level;
	double mean_level;   /* the same for the change of the mean
				(seq_level_mean()) */
	int mean_min_rounds; /* rounds a look needs to pass on the mean:
				MEAN_PASS_MIN_ROUNDS, or the cap when it is
				lower (the last look judges what it has) */
	/*
	 * The pass minimum (docs/statistics.md, "The blind share of a
	 * pass"): rare_share in (0, 1) asks that a pass see a slowdown
	 * hitting that share of the runs with 95% probability, so a pass
	 * needs at least ln(0.05) / ln(1 - rare_share) head runs, in any
	 * design. 0: unset (the sequential design's mean_min_rounds alone).
	 */
	double rare_share;
	/* head runs that confirmed its (simulated) count without being
	   samples (model/result.h): they count toward the blind share */
	int confirmed_head;
	/* The design's cap of rounds, where the trend test projects the
	   change to (sequential: max_rounds; 0: the rounds measured). */
	int max_rounds;
	/* A sequential look: the single-run pair design leaves its B
	   quantiles (boot) to compare_finish_quantiles(), keeping the
	   sorted log-ratios instead; most looks are discarded undecided,
	   and the quantiles are only for the report and its plots. */
	int defer_quantiles;
};

/* A round removed by the stall filter, with its values in run order. */
struct compare_dropped {
	int round;
	double spread; /* (max - min) / mean of the worse side */
	double *base, *head;
	size_t nr_base, nr_head;
};

struct compare_result {
	/* ---- phase 1: compare_compute() ---- */
	size_t nr_base, nr_head;		/* valid samples, before the stall filter */
	size_t nr_rounds;			/* rounds seen (either side) */
	size_t nr_pairs;			/* paired: rounds used; independent: kept rounds */
	double base_stat, head_stat;		/* statistic of the kept samples */
	double change_percent;			/* the estimate (NAN: zero base) */
	double degradation_percent;		/* +-change_percent, see above */
	double ci_low_percent, ci_high_percent; /* central `confidence` */
	double p_reg, p_imp;			/* bootstrap shares of degradation > T, < -T */
	/*
	 * The exact test: one-sided p for "the degradation exceeds T"
	 * (p_test_reg) and "the improvement exceeds T" (p_test_imp);
	 * p_value is the one for the direction of the estimate (regression
	 * when degradation >= 0), and p_adjusted its Holm-adjusted value
	 * (= p_value until holm_adjust()).
	 */
	double p_test_reg, p_test_imp, p_value, p_adjusted;
	double p_test_pass;    /* the mirror test: "the degradation is below T" */
	const char *test;      /* exact_method_name() of the test used */
	double min_possible_p; /* smallest p the test can give with this n */
	size_t holm_m;	       /* Holm family size (1 without correction) */
	int holm_applied;      /* holm_adjust() ran with holm != 0 and m > 1 */
	double hl_shift_percent;
	/*
	 * The change of the mean, the total time a user waits (analyze/
	 * mean.h; docs/statistics.md, "The change of the mean"): head's
	 * total over base's (paired: over the kept rounds; independent: the
	 * two sides' means) minus one, its central interval, the shares of
	 * its confidence distribution whose degradation is beyond +T / -T,
	 * and the one-sided p of "the mean's degradation exceeds T", "...
	 * is below -T" and "... is below T". The verdict needs both this
	 * and the typical change above (docs/statistics.md). NAN when not
	 * computed (no samples, a zero base).
	 */
	double mean_change_percent, mean_degradation_percent;
	double mean_ci_low_percent, mean_ci_high_percent;
	double mean_p_reg, mean_p_imp;
	double mean_p_test_reg, mean_p_test_imp, mean_p_test_pass;
	/* The one-sided p that the mean's degradation exceeds the typical
	   change's (mean_p_test_apart_reg) or falls short of it (_imp): a
	   regression is claimed on the mean only when the mean is also
	   shown apart from the typical run, where the rank test is blind. */
	double mean_p_test_apart_reg, mean_p_test_apart_imp;
	/* The minority behind a mean that moved unlike the typical run
	   (mean_minority()): share of head's runs and their ratio; NAN. */
	double minority_share, minority_factor;
	/*
	 * A change that moves (analyze/trend.h): the Theil-Sen slope of the
	 * round log-ratios against the round number, as a change in percent
	 * per round, its Mann-Kendall p (two-sided; NAN: too few rounds), and
	 * the fitted line's change at the first round fitted, the last one
	 * and at the design's cap (percent).
	 */
	double trend_percent_per_round, trend_p;
	double trend_first_percent, trend_last_percent, trend_cap_percent;
	int trend_first_round, trend_last_round, trend_cap_round;
	/*
	 * The blind share of this comparison: the share of runs a slowdown
	 * could hit and still be absent from all nr_head_kept head runs with
	 * 95% probability, 1 - 0.05^(1/n), in percent (NAN without runs).
	 */
	double blind_share_percent;
	size_t nr_head_kept;
	/* Rounds whose base mean was zero (paired): left out of the ratios
	   (a relative change of them is undefined). */
	size_t nr_zero_base;
	double base_mean; /* mean of the kept base runs (min_difference of the mean) */
	/* With rounds dropped by the stall filter: the change of the mean
	   over every round holding both sides, the dropped ones included
	   (percent; NAN when none was dropped). A pass may not rest on
	   rounds the filter took away (decide.c). */
	double all_rounds_mean_change_percent;
	/*
	 * The sign test of the rounds: how many kept rounds' log-ratio lies
	 * beyond the tolerance in the regression direction, and the one-sided
	 * binomial p of that many or more under "a round is as likely below
	 * as beyond" (the rounds resolve the change whatever the noise floor).
	 */
	size_t nr_rounds_beyond, nr_rounds_signed; /* beyond T, of how many */
	double p_rounds_beyond;
	size_t nr_rounds_beyond_imp; /* the same toward improvement (beyond -T) */
	double p_rounds_beyond_imp;
	double robust_cv;    /* of r (paired) / the larger side (independent) */
	int ranges_disjoint; /* max of one side below min of the other */
	/* A/A control: base against itself, same estimator. */
	double control_percent, control_low_percent, control_high_percent;
	double noise_floor_percent; /* F = max(|lo_c|, |hi_c|); NAN: none */
	int control_failed;	    /* the control interval excludes 0 by more than T */
	int exact_data;		    /* zero spread on both sides */
	int zero_base;		    /* a zero base statistic (rule 3) */
	double stall_threshold;	    /* median + 6 MAD of spreads; NAN: off */
	struct compare_dropped *dropped;
	size_t nr_dropped;
	/* The bootstrap distribution of the change (percent), in resample
	 * order, for plots. */
	double *boot;
	size_t nr_boot;
	/* With defer_quantiles: the sorted pair log-ratios the B quantiles
	   are selected from, and B (compare_finish_quantiles()). */
	double *deferred_lr;
	size_t nr_deferred_lr, deferred_boot;
	/* ---- phase 3: compare_decide() ---- */
	enum verdict verdict; /* pass improved regression inconclusive
				 within_noise (model/verdict.h) */
	char *reason;	      /* one line naming the numbers */
	int rule;	      /* 1..10: the rule that decided (decide.c) */
	/* Stall, control and power warnings (one sentence each). */
	struct strvec warnings;
	int decided;
};

/* Fill *in with docs/statistics.md's defaults (median, 10%, rounds, 2000, ...). */
void compare_input_init(struct compare_input *in);

/* Phase 1: everything but the verdict. */
void compare_compute(const struct compare_input *in, struct compare_result *out);

/*
 * Phase 3: the nine verdict rules in order with a reason; appends a warning
 * when the smallest possible p cannot pass the Holm threshold (with the
 * number of runs that would be needed). Call once per result.
 */
void compare_decide(const struct compare_input *in, struct compare_result *out);

/* The quantiles a compare_compute() with defer_quantiles left out, into
   boot; nothing when none were deferred. Same values as computed at once. */
void compare_finish_quantiles(struct compare_result *r);

void compare_result_release(struct compare_result *r);

#endif
