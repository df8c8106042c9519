/*
 * analyze/outcome: from an analysed run_result to the exit code (CONTRACT
 * precedence 4, 6, 1, 0) and the one sentence that explains a non-zero
 * exit.
 *
 * Call order: analyze_result() (or at least analyze_rollup(), which fills
 * the results and r->summary's counts), then outcome_judge(). On an
 * unanalysed result the counts are zero and the exit code says pass.
 */
#ifndef KAGARI_ANALYZE_OUTCOME_H
#define KAGARI_ANALYZE_OUTCOME_H

struct run_result;

/* Set r->summary.exit_code and r->exit_reason (replaced, or NULL on 0). */
void outcome_judge(struct run_result *r);

/*
 * --fail-on-inconclusive, after outcome_judge(): a run that would pass but
 * has inconclusive comparisons exits 1 with a reason that counts them.
 */
void outcome_fail_on_inconclusive(struct run_result *r);

#endif
