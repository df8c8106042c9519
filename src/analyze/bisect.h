/*
 * analyze/bisect: `kagari bisect`'s search and judging (docs/bisect.md),
 * without a process. The search picks which commit of the first-parent
 * path to test next and narrows the range from the outcomes; the judging
 * turns one analysed comparison of a commit against GOOD into good, bad or
 * skip. How a commit is checked out, built and measured is the caller's
 * (struct bisect_oracle), so the search runs as well on a table of
 * verdicts as on real measurements.
 *
 * Ownership: struct bisect_result owns every string and array it points
 * to (bisect_result_release()); struct bisect borrows its suites and its
 * --command text.
 */
#ifndef KAGARI_ANALYZE_BISECT_H
#define KAGARI_ANALYZE_BISECT_H

#include <stddef.h>
#include <stdint.h>

#include "base/strvec.h"
#include "model/result.h"
#include "suite/model.h"

enum bisect_outcome { BISECT_UNTESTED, BISECT_GOOD, BISECT_BAD, BISECT_SKIP };

/* "good", "bad", "skip" or "untested". */
const char *bisect_outcome_name(enum bisect_outcome o);

/* One commit of the first-parent path after GOOD. */
struct bisect_commit {
	char *sha;
	char *subject; /* its subject line, as git gives it */
	enum bisect_outcome out;
	char *reason;	 /* skip: why; bad: NULL */
	int have_change; /* bad: the regression; good: the followed change */
	double change, low, high;
	char *what;    /* "suite/benchmark/command metric" of the change */
	int measured;  /* how many times it was measured */
	int runs;      /* runs a side of the last measurement (0: the suite's) */
	int again;     /* skip: runs a side that might decide it (0: none) */
	int undecided; /* skip: a comparison was measured but not decided
			  (not a failed build or command) */
	/* per measurement: the level it was judged at (NAN: none) */
	double *alpha;
};

/* What a bisect found: what the outputs (report/bisect.h) show. */
struct bisect_result {
	char *good, *bad; /* the two ends, resolved to commits */
	uint64_t seed;
	/* after GOOD, oldest first; the last is BAD */
	struct bisect_commit *path;
	size_t n;
	size_t steps;  /* measurements made */
	size_t *order; /* indexes into path, in test order */
	size_t nr_order;
	long first;    /* the first bad commit's index; -1: BAD is not bad */
	int ambiguous; /* skips leave more than one candidate */
};

/* Append a commit (sha and subject copied) to r's path. */
void bisect_result_add(struct bisect_result *r, const char *sha, size_t sha_len,
		       const char *subject, size_t subject_len);
void bisect_result_release(struct bisect_result *r);

/* The first bad commit when one is named (found and not ambiguous), or NULL. */
const struct bisect_commit *bisect_first_bad(const struct bisect_result *r);
/* How many commits of the path were skipped. */
size_t bisect_skipped(const struct bisect_result *r);
/* Ambiguous: the index of the first candidate (after the last good
   commit before r->first); the candidates run from it to r->first. */
long bisect_candidates_from(const struct bisect_result *r);

/* The search and its judging. */
struct bisect {
	struct bisect_result r;
	int metric;	       /* the judged metric; -1: every gated metric */
	const char *command;   /* --command: "[SUITE/]BENCH/CMD", or NULL */
	struct suite **suites; /* measured, in the order of a result's suites */
	size_t nr_suites;
	int runs;	       /* --runs (0 or below: the suites'); caps a measurement again
				*/
	struct strvec matters; /* "suite/bench/command metric" that regressed at BAD */
	double *alpha0;	       /* every command's 1 - confidence, as the suites say */
	size_t nr_alpha0;
};

/* b empty, judging every gated metric of every command. */
void bisect_init(struct bisect *b);
/* Frees b->r and the judging state (not the suites). */
void bisect_release(struct bisect *b);

/* Is command `cmd` of benchmark `bench` in suite `suite` what `named`
   (--command: BENCH/CMD or SUITE/BENCH/CMD; NULL: every one) names? */
int bisect_command_named(const char *named, const char *suite, const char *bench, const char *cmd);

/* The level of the k-th measurement of one commit (k = 1, 2, ...): alpha / 2^k.
 */
double bisect_look_alpha(double alpha, int k);
/* Every command's alpha of b->suites as they say it, before the first look. */
void bisect_save_alpha(struct bisect *b);
/* The suites' confidence set for the k-th measurement of a commit
   (bisect_look_alpha()); k 0: the suites' own again. */
void bisect_set_look(struct bisect *b, int k);

/* Before measuring path[idx] once more: its last judgement forgotten,
   its measurement counted (alpha NAN until judged), b->r.steps counted. */
void bisect_measure_begin(struct bisect *b, size_t idx);
/*
 * Judge path[idx] from rr, its analysed comparison against GOOD
 * (analyze_result()), and note the level it was judged at. BAD (the last
 * commit) is judged first and fills b->matters.
 */
void bisect_judge(struct bisect *b, size_t idx, const struct run_result *rr);

/*
 * How the search reaches the commits. prepare: check path[idx] out and
 * build it; 0, or -1 with path[idx].reason set. measure: measure path[idx]
 * once against GOOD with path[idx].runs a side (0: the suites') and judge
 * it (bisect_measure_begin(), bisect_judge()). stop: nonzero when the
 * search must end now (an interrupt); may be NULL. progress (may be NULL):
 * path[idx] is about to be tested (again 0), or measured again (again 1).
 */
struct bisect_oracle {
	int (*prepare)(void *data, struct bisect *b, size_t idx);
	void (*measure)(void *data, struct bisect *b, size_t idx);
	int (*stop)(void *data);
	void (*progress)(void *data, const struct bisect *b, size_t idx, int again);
	void *data;
};

/*
 * The search: BAD first, then a binary search between the last known good
 * and the first known bad, trying the untested commit nearest the middle
 * (a skipped commit's neighbours). A commit skipped for an undecided
 * comparison is measured again (path[idx].again runs a side) before it
 * stays skipped. Sets b->r.first, b->r.ambiguous and b->r.order.
 */
void bisect_search(struct bisect *b, const struct bisect_oracle *o);

#endif
