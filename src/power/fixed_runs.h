/*
 * power/fixed_runs: `kagari validate` and `kagari init` warn when a fixed
 * `runs` gives too few rounds for any gated comparison to reach the
 * suite's confidence: the smallest p the exact test can give must be
 * below (1 - confidence) / m for Holm's first step over the m gated
 * comparisons of the fixed design (as if the suite ran alone), planned as
 * plan/ plans rounds; and when a `regression.rare_share` asks for more
 * head runs than the design measures, so that no comparison can pass.
 */
#ifndef KAGARI_POWER_FIXED_RUNS_H
#define KAGARI_POWER_FIXED_RUNS_H

#include <stddef.h>

#include "suite/model.h"

struct strvec;

/*
 * One warning per `runs` key of s that is too small, with its
 * FILE:LINE:COL and the least runs that would do, and one per
 * `rare_share` key that asks too much, pushed to warnings. Returns how
 * many.
 */
size_t power_warn_fixed_runs(const struct suite *s, struct strvec *warnings);

#endif
