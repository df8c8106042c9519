/*
 * report/problems: what is wrong with a run, most severe first — the
 * regressions, budgets over their limit, errors, undecided comparisons,
 * unsupported metrics, regressions that do not gate and accepted ones —
 * walked once over the result model, so that the GitHub annotations and
 * the summaries of the table, markdown, github and html writers count and
 * name the same problems.
 *
 * Nothing here words a value or a change (report/describe.h does) or
 * marks anything up (the writers do); it only finds, classifies, folds
 * and orders. The lists point into the run_result they were made from.
 */
#ifndef KAGARI_REPORT_PROBLEMS_H
#define KAGARI_REPORT_PROBLEMS_H

#include <stddef.h>

#include "base/sbuf.h"
#include "model/result.h"

/* Most severe first. */
enum report_problem_kind {
	PROBLEM_REGRESSION,   /* a gated comparison found a regression */
	PROBLEM_OVER_BUDGET,  /* a budget failed */
	PROBLEM_ERROR,	      /* a command failed or was interrupted */
	PROBLEM_INCONCLUSIVE, /* a gated comparison could not decide */
	PROBLEM_UNSUPPORTED,  /* a metric unsupported or failed, a budget
				 that could not be assessed */
	PROBLEM_NOT_GATED,    /* a regression in a comparison with gate: false */
	PROBLEM_ACCEPTED,     /* a regression a Kagari-Accept trailer accepted */
	PROBLEM__COUNT
};

struct report_problem {
	enum report_problem_kind kind;
	const struct suite_result *suite;
	const struct bench_result *bench;
	const struct command_result *cmd;
	size_t cmd_index;		    /* 0-based position of cmd in report order */
	int metric;			    /* enum metric_id, or -1 (a command error) */
	const struct comparison *cmp;	    /* regression, inconclusive */
	const struct budget_result *budget; /* over budget, unassessable */
	const char *reason;		    /* unsupported/failed metric, error: not owned */
	/*
	 * Unsupported metrics with the same metric, status and reason are
	 * merged into one problem: `count` commands (the first is `cmd`).
	 */
	size_t count;
	int failed; /* a metric whose measuring failed (not unsupported) */
	/* An unsupported or failed metric in report_problems_list(): the
	   side (enum side), or -1 when both sides have it alike. */
	int side;
	double weight; /* larger is worse within a kind */
	size_t order;  /* report order, the last tie-break */
};

struct report_problems {
	struct report_problem *v;
	size_t nr, alloc;
	size_t count[PROBLEM__COUNT]; /* problems (rows) of each kind */
	size_t nr_commands;	      /* commands in the report */
	size_t nr_comparisons;	      /* comparisons present */
};

/*
 * The one definition of a comparison that is a problem.
 * report_comparison_problem(): the kind report_problems_list() gives it —
 * PROBLEM_REGRESSION (a gated regression), PROBLEM_NOT_GATED,
 * PROBLEM_ACCEPTED (a regression a Kagari-Accept trailer accepted) or
 * PROBLEM_INCONCLUSIVE (gated or not) — or -1 (pass, improved,
 * within_noise, skipped, no verdict).
 * report_comparison_is_problem(): 1 when the summaries list cp among the
 * problems (report_problems_collect()): every kind but an inconclusive
 * comparison that does not gate. A writer that lists the problems and then
 * "the rest" skips exactly these in the rest.
 */
int report_comparison_problem(const struct comparison *cp);
int report_comparison_is_problem(const struct comparison *cp);

/*
 * The one walk over the problems of a result. report_problems_list(): every
 * problem of r in report order, unmerged and unsorted (the GitHub
 * annotations, report/annotations.c): per command its error (or
 * interruption: reason "interrupted", cmd->error NULL), the budgets that did
 * not pass, the comparisons judged regression (PROBLEM_NOT_GATED when not
 * gated) or inconclusive (gated or not: cmp->gate), then each metric
 * unsupported or failed, per side (`side`; one problem with side -1 when
 * both sides have it with the same status and reason; base before head).
 *
 * report_problems_collect(): that list folded for the summaries: without
 * the inconclusive comparisons that are not gated, one unsupported or
 * failed metric per command (the base side's when both), merged across
 * commands when metric, status and reason are alike (`count`), sorted by
 * kind, then weight (regressions by the size of the change, budgets by how
 * far over), then report order.
 *
 * report_problems_release() frees either list (not what it points into).
 */
void report_problems_list(struct report_problems *p, const struct run_result *r);
void report_problems_collect(struct report_problems *p, const struct run_result *r);
void report_problems_release(struct report_problems *p);
/* "regression", "over budget", "error", "inconclusive", "unsupported",
   "regression (not gated)". */
const char *report_problem_kind_name(enum report_problem_kind k);
/*
 * The title words of the counts: "2 regressions, 1 over budget, 1 error";
 * in compare mode always starting with the regressions ("No regressions"
 * when none), in run mode "All checks passed" when nothing failed.
 */
void report_problems_title(struct sbuf *out, const struct report_problems *p,
			   const struct run_result *r);

#endif
