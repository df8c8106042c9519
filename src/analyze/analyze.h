/*
 * analyze/analyze: the one analysis entry point. From a result that holds
 * samples and settings (model/result.h, model/settings.h) it computes every
 * series' summary, every budget, every comparison with Holm and the verdict
 * rules, and rolls the verdicts up into results and summary counts.
 * `compare`, `run`, `ci` and `report --reanalyze` all go through it, so a
 * saved report analysed again with its own seed gives the same numbers.
 *
 * Call order:
 *   1. after measuring, per command: analyze_settings_from_suite() copies
 *      the suite's regression settings and budgets into the result (a
 *      result read back from JSON already has them);
 *   2. analyze_result() once over the whole run (again after changing
 *      settings: it replaces what an earlier call computed);
 *   3. analyze/outcome.h maps r->summary to an exit code.
 * Nothing here prints or exits. Warnings about comparisons (stall filter,
 * control, power) are appended to r->warnings, one per line, prefixed with
 * "BENCHMARK/COMMAND METRIC: "; analysing again first drops the warnings
 * of the comparisons it remakes, so two calls give what one gives.
 */
#ifndef KAGARI_ANALYZE_ANALYZE_H
#define KAGARI_ANALYZE_ANALYZE_H

#include "model/result.h"
#include "suite/model.h"

/*
 * Copy cs's regression settings into cr->analysis (metrics outside
 * `regression.commands` are not compared) and make one budget_result per
 * budget of cs, not yet evaluated. cr must hold no budgets yet.
 */
void analyze_settings_from_suite(const struct command_spec *cs, struct command_result *cr);

/*
 * "What if": settings to apply to every command before analysing. A
 * max_percent applies to the metric on every command that compares it.
 */
struct analyze_overrides {
	int have_max_percent[METRIC__COUNT];
	double max_percent[METRIC__COUNT];
	int have_confidence;
	double confidence;
};

/*
 * The largest change, either way and in percent, that memory layout alone
 * can put between two runs of one binary: what byte-identical base and
 * head artifacts explain (a command's identical_artifact). Derived from
 * docs/statistics.md, "Memory-layout noise": the layout's share of a pair's
 * variance, 3.8² - 3.4² %² in MADs, is a difference of two layouts with an
 * sd of 1.4826 x sqrt(2.88) = 2.5%; four of them is 10%.
 */
#define ANALYZE_LAYOUT_BOUND_PERCENT 10.0

/*
 * Analyse r: summaries of every measured series, budgets of the head
 * side, comparisons of commands measured on both sides without an error,
 * Holm over the gated comparisons that ask for it, verdicts, warnings,
 * then analyze_rollup(). Comparisons are seeded with rng_seed_from(r->seed,
 * "SUITE/BENCHMARK/COMMAND/METRIC"). ov may be NULL; when given, its values
 * are written into each command's settings first (so a report shows what
 * it was judged by).
 */
void analyze_result(struct run_result *r, const struct analyze_overrides *ov);

/*
 * The look of the sequential design while a benchmark is measured
 * (measure/execute.h's look callback): the comparisons of br's sequential
 * commands on the rounds so far, exactly as analyze_result() will replay
 * them at the end; decided[c] (one per command) is set for every command
 * with no gated timed metric left undecided. Needs each command's
 * analysis settings (analyze_settings_from_suite()); changes nothing in br.
 * `suite_name` and `seed` seed the comparisons as analyze_result() does.
 */
void analyze_look(uint64_t seed, const char *suite_name, struct bench_result *br,
		  unsigned char *decided);
/* analyze_look() of br, a benchmark of suite su, its commands given
   their analysis settings from su first (where they have none yet). */
void analyze_look_suite(uint64_t seed, const struct suite *su, struct bench_result *br,
			unsigned char *decided);

/*
 * Every command's, benchmark's and suite's `result` (the worst of
 * its parts; a gated comparison's verdict outranks pass) and the counts of
 * r->summary except exit_code. A suite without benchmarks keeps the result
 * it has (a failed build's RESULT_ERROR).
 */
void analyze_rollup(struct run_result *r);

#endif
