/*
 * analyze/accept: intended regressions. A commit in the compared range
 * that carries the trailer
 *
 *     Kagari-Accept: BENCHMARK/COMMAND METRIC +P%
 *
 * (read by cmd/ with git's own trailer parsing, git/git.h) accepts a gated
 * regression of METRIC of that command up to +P%: analyze_result() turns
 * its verdict into `accepted`, records the commit (comparison.accepted_by)
 * and says so in the reason; a change beyond +P% stays a regression and
 * its reason names the acceptance it exceeded. The acceptances travel in
 * the result (run_result.accepts, the JSON report's `acceptances`), so
 * `report --reanalyze` judges by them again.
 */
#ifndef KAGARI_ANALYZE_ACCEPT_H
#define KAGARI_ANALYZE_ACCEPT_H

#include "model/result.h"

struct sbuf;

/*
 * Parse a trailer value ("parse/fast latency +15%") into *a (commit
 * copied from `commit`). Returns 0, or -1 with the reason in err (*a
 * untouched).
 */
int accept_parse(const char *value, const char *commit, struct acceptance *a, struct sbuf *err);

/* Apply r->accepts to the verdicts of r (called by analyze_result()). */
void accept_apply(struct run_result *r);

#endif
