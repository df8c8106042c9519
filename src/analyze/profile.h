/*
 * analyze/profile: which functions of a sampled profile (model/profile.h)
 * changed between base and head.
 *
 * The method (after Reichelt and Skarbalius, ICPE 2026, who showed that
 * sampling finds which method changed with far fewer repetitions than
 * instrumentation): per run, a function's estimated time is its share of
 * the run's samples times the run's CPU time (so a slower neighbour, which
 * lengthens the run, does not make a function look slower: its share falls
 * as the run's time rises). Base and head runs are paired by round; per
 * function the paired differences head - base give the change (their
 * Hodges-Lehmann shift, the median of the Walsh averages), its interval at
 * the confidence (exact.h: the order statistics of the Walsh averages the
 * signed-rank test would not reject) and a two-sided Wilcoxon signed-rank
 * test (exact up to EXACT_SIGNED_RANK_MAX_N pairs, so p is never floored by
 * a resample count); ranks, because a run's CPU time on a shared machine
 * now and then jumps by tens of percent and a test on the sum lets those
 * pairs decide. Benjamini-Hochberg over the tested functions
 * gives q. Verdicts: `too_few_samples` when the function was the leaf of
 * fewer than PROFILE_MIN_SAMPLES samples over all runs of both sides (not
 * tested, not counted in BH); `grew` / `shrank` when q < 1 - confidence and
 * the interval excludes 0 on that side; else `same`.
 *
 * Called by analyze_result() (analyze.h) for every command that has a
 * profile, so `report --reanalyze` judges a saved profile again.
 */
#ifndef KAGARI_ANALYZE_PROFILE_H
#define KAGARI_ANALYZE_PROFILE_H

#include <stddef.h>

#include "model/profile.h"

/*
 * The comparison per function (see the header comment). confidence in
 * (0.5, 1). Only
 * functions seen on some side are listed. With one side (no pairs), the
 * times are filled in and every verdict is `same` with NAN test fields
 * ... unless too few samples. Replaces any earlier result.
 */
void profile_analyze(struct profile_set *ps, double confidence);

/*
 * Benjamini-Hochberg adjusted values of p[0..n) into q (monotone, capped
 * at 1). p and q may be the same array.
 */
void profile_bh(const double *p, double *q, size_t n);

#endif
