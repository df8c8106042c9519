/*
 * model/settings: what analysis needs besides the samples, as part of the
 * result model.
 *
 * The suite (suite/model.h) resolves these per command; the pipeline copies
 * them into each `struct command_result` (analyze_settings_from_suite() in
 * analyze/analyze.h) so that a result holds its samples *and* the rules
 * they are judged by. A saved JSON report carries them (`analysis` on each
 * command), and `kagari report --reanalyze` runs the same analysis on it.
 *
 * No functions and no allocation: plain values, copied by assignment.
 */
#ifndef KAGARI_MODEL_SETTINGS_H
#define KAGARI_MODEL_SETTINGS_H

#include "model/metric.h"

/* The most bootstrap resamples a suite may ask for (regression.resamples),
   and so a saved report too: each costs a pass over the samples. */
#define SETTINGS_MAX_RESAMPLES 10000000
/* The most bootstrap draws one comparison may cost: resamples x samples
   per side (a suite's `runs`, else `max_runs`; a saved report's samples).
   A suite or report asking for more is refused (exit 2), and a merged
   report that pools past it ends inconclusive (docs/statistics.md). */
#define SETTINGS_MAX_BOOTSTRAP_DRAWS 1000000000LL
/* The most samples per side a comparison analyses: beyond, it ends
   inconclusive with that reason instead of running out of memory (a saved
   report may hold any number). */
#define SETTINGS_MAX_COMPARE_SAMPLES 1000000

/* The range of a tolerance, `max_percent` (T, in percent), wherever it is
   given: a suite, --max-percent of any command, a saved report. Below
   0.001% (one part in 100,000) no timer or count resolves a change; above
   1000% nothing a gate means is left. */
#define SETTINGS_MIN_MAX_PERCENT 0.001
#define SETTINGS_MAX_MAX_PERCENT 1000.0

enum pairing { PAIRING_ROUNDS, PAIRING_INDEPENDENT };
enum correction { CORRECTION_HOLM, CORRECTION_NONE };
enum statistic { STATISTIC_MEDIAN, STATISTIC_MEAN };

/* How one metric of one command is compared (`regression.METRIC`). */
struct metric_rule {
	int compare;	/* compared at all (after regression.commands) */
	int configured; /* written in the suite: a comparison that
			   cannot be made is reported as `skipped` */
	enum statistic statistic;
	double max_percent;    /* T */
	double min_difference; /* base unit; < 0: unset */
	int gate;
};

/* The regression settings of one command (docs/statistics.md's parameters). */
struct analysis_settings {
	int present; /* set when copied from a suite or read from a report;
			without it the command is never compared */
	enum pairing pairing;
	enum correction correction;
	int resamples;
	double confidence;
	int min_samples;
	double max_cv;
	int runs_per_round; /* as planned: the stall filter needs >= 2 */
	/*
	 * The sequential design (`runs: auto` in compare, docs/statistics.md
	 * "Sequential rounds"): the verdicts are decided at looks after
	 * model/sequential.h's rounds, spending the error up to max_rounds
	 * (the planned cap, N). 0: the fixed design.
	 */
	int sequential;
	int max_rounds;
	/*
	 * `regression.rare_share` (docs/statistics.md, "The blind share of a
	 * pass"), a share in (0, 1): a pass needs enough head runs to see a
	 * slowdown of that share of the runs with 95% probability. 0: unset.
	 */
	double rare_share;
	struct metric_rule metric[METRIC__COUNT];
};

#endif
