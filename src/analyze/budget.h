/*
 * analyze/budget: check a command's budgets (suite `budget:`) against its
 * measured samples.
 *
 * Call order, per command and budget: budget_evaluate(budget, &side->metric
 * [budget->metric], &result) fills one `struct budget_result`; reports then
 * print budget_describe() for it (a failed budget's sentence is what a user
 * reads first).
 *
 * Ownership: budget_evaluate() overwrites *out without releasing what it
 * held and fills it with strings it allocates (aggregation, op, limit_text,
 * reason). They belong to *out: run_result_release() frees them once the
 * result sits in a command_result, budget_result_release() frees a
 * standalone one.
 */
#ifndef KAGARI_ANALYZE_BUDGET_H
#define KAGARI_ANALYZE_BUDGET_H

#include <stddef.h>

#include "base/sbuf.h"
#include "model/result.h"
#include "suite/model.h"

/* "<", "<=", ">", ">=". */
const char *budget_op_text(enum budget_op op);

/*
 * The aggregation of x[0..n) (any order): min, max, mean, median, or the R
 * type-7 quantile at `percentile` / 100 for AGG_PERCENTILE. NAN when n == 0
 * or the percentile lies outside (0, 100).
 */
double budget_aggregate(enum aggregation agg, double percentile, const double *x, size_t n);

/*
 * Evaluate budget `b` on `series` (the series of b->metric; NULL is taken
 * as not measured). The result is
 *  - BUDGET_UNASSESSABLE with a reason when the metric was not measured:
 *      MSTATUS_UNSUPPORTED  "metric 'peak_rss' was not measured
 *                           (unsupported: <series reason>)"
 *      MSTATUS_FAILED       "... was not measured (failed: <reason>)"
 *      MSTATUS_ABSENT/NULL  "... was not measured (no run recorded a value)"
 *    when an MSTATUS_OK series holds no samples ("no successful runs"),
 *    or when the budget itself cannot be evaluated (percentile outside
 *    (0, 100));
 *  - otherwise BUDGET_PASS or BUDGET_FAIL by `actual OP limit`, with
 *    have_actual set. Non-finite samples are ignored.
 * Strings are copied: aggregation is b->aggregation_name (or a canonical
 * name such as "p99.9" when NULL), limit_text b->limit_text (or "OP value"
 * built with units_format_value() when NULL).
 */
void budget_evaluate(const struct budget *b, const struct metric_series *series,
		     struct budget_result *out);

/*
 * Append one sentence about r, for any status, e.g.
 *   fail:  "latency p95 = 312.4 ms exceeds budget <= 300ms by 12.4 ms (+4.1%)"
 *          "throughput mean = 950.0 /s is below budget >= 1000/s by 50.0 /s
 * (-5.0%)" "latency max = 300.0 ms equals the limit of budget < 300ms" pass:
 * "latency p95 = 280.1 ms is within budget <= 300ms" unassessable: "peak_rss
 * max could not be assessed: <reason>" The percentage is relative to the limit
 * and left out when the limit is 0.
 */
void budget_describe(const struct budget_result *r, struct sbuf *out);

/*
 * Evaluate again the budget that *r describes — metric, aggregation, op,
 * limit and limit_text, as budget_evaluate() filled them or a saved report
 * holds them — on `series`, replacing the rest of *r. An aggregation or
 * operator this version cannot read makes it unassessable with the reason.
 */
void budget_reevaluate(struct budget_result *r, const struct metric_series *series);

/* Free the strings of a standalone result and zero it. */
void budget_result_release(struct budget_result *r);

#endif
