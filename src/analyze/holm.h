/*
 * analyze/holm: Holm's step-down correction over the gated comparisons of
 * one run (docs/statistics.md: `regression.correction: holm`).
 *
 * Call order: compare_compute() for every comparison, then holm_adjust()
 * once over the gated ones (the family), then compare_decide() for every
 * comparison. Comparisons left out of the family keep p_adjusted = p_value.
 */
#ifndef KAGARI_ANALYZE_HOLM_H
#define KAGARI_ANALYZE_HOLM_H

#include <stddef.h>

#include "analyze/compare.h"

/*
 * Holm-adjusted p of p[0..n) into adj[0..n) (may alias p): sorted ascending,
 * adj_(i) = max_{j <= i} min(1, (m - j + 1) p_(j)) with m the number of
 * non-NaN entries. NaN entries are not part of the family and stay NaN.
 * Returns m.
 */
size_t holm_adjust_values(const double *p, size_t n, double *adj);

/*
 * Adjust the p_value of results[0..n) as one family: sets p_adjusted,
 * holm_m (the family size: results whose p_value is not NaN) and
 * holm_applied. With holm == 0 (`correction: none`) p_adjusted = p_value
 * and holm_m = 1.
 */
void holm_adjust(struct compare_result **results, size_t n, int holm);

#endif
