/*
 * analyze/compare_internal: what compare.c shares with the files split
 * from it; nothing outside analyze/ includes this.
 */
#ifndef KAGARI_ANALYZE_COMPARE_INTERNAL_H
#define KAGARI_ANALYZE_COMPARE_INTERNAL_H

#include "analyze/compare.h"

/* Append out's warnings: dropped rounds, a drifted A/A control
   (compare_warn.c). */
void compare_add_warnings(const struct compare_input *in, struct compare_result *out);

/*
 * The trend of the round log-ratios lr[k] (x[k] the round numbers,
 * increasing) and the sign test of the rounds beyond the tolerance, into
 * out's trend_* and *_rounds_beyond fields (compare_rounds.c).
 */
void compare_rounds_evidence(const struct compare_input *in, struct compare_result *out,
			     const double *x, const double *lr, size_t n);

/*
 * What the kept runs of each side show before any test: the blind share of
 * a pass, whether the two sides' ranges are apart, whether each side's
 * values are all alike (exact data) (compare_rounds.c).
 */
void compare_sides_facts(const struct compare_input *in, struct compare_result *out,
			 const double *kb, size_t nkb, const double *kh, size_t nkh);

#endif
