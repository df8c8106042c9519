/*
 * report/section: helpers shared by the `markdown`, `github` and `html`
 * writers — named sections of a Markdown page, escaping of user text, and
 * the list of problems (regressions, budgets, errors, ...) most severe
 * first.
 *
 * A Markdown report is wrapped in two marker lines,
 *
 *	<!-- kagari:begin NAME -->
 *	...
 *	<!-- kagari:end NAME -->
 *
 * so that `--section NAME` can replace its own part of an existing page
 * (a README, $GITHUB_STEP_SUMMARY, a wiki page) and leave the rest alone.
 *
 * Call order for `--section NAME --output FILE`:
 *
 *	if (!report_section_name_valid(name)) ... usage error ...
 *	o.section = name;
 *	report_render(r, REPORT_MARKDOWN, &o, &rendered, &err);
 *	sbuf_read_file(&page, FILE, ...);      // empty when FILE is missing
 *	if (report_section_update(page.buf, page.len, name, rendered.buf,
 *				  &updated, &err) < 0) ... err says why ...
 *	write `updated` to FILE atomically (temporary file + rename)
 *
 * Ownership: callers own every buffer; nothing here keeps memory.
 */
#ifndef KAGARI_REPORT_SECTION_H
#define KAGARI_REPORT_SECTION_H

#include <stddef.h>

#include "base/sbuf.h"
#include "model/result.h"

/* The section name used when none is given. */
#define REPORT_SECTION_DEFAULT "kagari"

/*
 * A section name is 1..64 characters of [A-Za-z0-9_.-] starting with a
 * letter or digit (so that it can never end the HTML comment it sits in).
 */
int report_section_name_valid(const char *name);

/* Append "<!-- kagari:begin NAME -->" / "<!-- kagari:end NAME -->". */
void report_section_begin(struct sbuf *out, const char *name);
void report_section_end(struct sbuf *out, const char *name);

/*
 * Put `new_section` (a rendered Markdown report whose markers name `name`)
 * into the page existing[0..len), appending the result to `out`:
 *
 *  - when the page holds the section, the bytes from the start of its
 *    begin marker to the end of its end marker are replaced by
 *    new_section without its final line break; every byte before and
 *    after (the end marker's own line break included) is kept as it was.
 *    When the page's section used CRLF line breaks, the new section's
 *    LF line breaks become CRLF too;
 *  - when the page holds no marker of that name, new_section is appended
 *    after the page, separated by a blank line (CRLF when the page's
 *    first line break is CRLF); an empty page becomes new_section.
 *
 * Markers of other names are ignored. Returns 0, or -1 with a reason in
 * err (and `out` untouched) when the name is invalid, when new_section
 * does not hold exactly one begin and one end marker of that name in
 * order, or when the page holds a begin marker without its end marker
 * (or the reverse), an end before its begin, or a marker twice.
 */
int report_section_update(const char *existing, size_t len, const char *name,
			  const char *new_section, struct sbuf *out,
			  struct sbuf *err);

/*
 * Append user text for a Markdown table cell or a line of text: `\`, `|`,
 * `` ` ``, `*`, `_`, `[`, `]`, `~`, `#` and `!` get a backslash; `<`, `>`,
 * `&` and `"` become entities (so HTML in a name is shown, never
 * interpreted); line breaks and tabs become a space, other control
 * characters `?`, invalid UTF-8 U+FFFD. `@name`, `#123` and `GH-123` get a
 * zero-width joiner after the sign so that GitHub neither mentions anyone
 * nor links an issue. NULL appends nothing. The one Markdown escaper: the
 * markdown and github formats and the CI step summary all use it.
 */
void report_md_escape(struct sbuf *out, const char *s);

/* A Markdown table cell: " TEXT |", TEXT through report_md_escape(). The
   one cell builder of the markdown and github writers. */
void report_md_cell(struct sbuf *out, const char *s);

/*
 * Append text as a fenced code block (```), the fence longer than any run
 * of backticks inside, control characters but line breaks and tabs shown
 * as `?`. The text may have any content: a fence shows it verbatim.
 */
void report_md_code_block(struct sbuf *out, const char *s);

/*
 * The base's ref as a report shows it beside the sha: NULL when it says
 * nothing the sha does not (no ref, or the sha itself or an abbreviation of
 * it, as `ci` gets from an event), else the ref. So a header reads
 * "base main (0acd445dea07)" or "base 0acd445dea07", never the sha twice.
 */
const char *report_base_ref_shown(const struct git_info *g);

/*
 * 1 when warning w is the stall filter's about a comparison of r that
 * drops rounds ("BENCH/CMD METRIC: stall filter dropped ..."): a report
 * whose comparison rows say "rounds dropped: ..." leaves it out of its
 * list of warnings, so that it is said once.
 */
int report_warning_is_row_stall(const struct run_result *r, const char *w);

/*
 * r's warnings as a Markdown list under `heading` ("### Warnings"), the
 * stall filter's that its comparison rows already say left out; nothing
 * when none is left. The markdown and github writers' one list.
 */
void report_md_warnings(struct sbuf *out, const struct run_result *r,
			const char *heading);

/* ---- problems ---------------------------------------------------------- */

/* Most severe first. */
enum report_problem_kind {
	PROBLEM_REGRESSION,   /* a gated comparison found a regression */
	PROBLEM_OVER_BUDGET,  /* a budget failed */
	PROBLEM_ERROR,	      /* a command failed or was interrupted */
	PROBLEM_INCONCLUSIVE, /* a gated comparison could not decide */
	PROBLEM_UNSUPPORTED,  /* a metric unsupported or failed, a budget
				 that could not be assessed */
	PROBLEM_NOT_GATED, /* a regression in a comparison with gate: false */
	PROBLEM_ACCEPTED,  /* a regression a Kagari-Accept trailer accepted */
	PROBLEM__COUNT
};

struct report_problem {
	enum report_problem_kind kind;
	const struct suite_result *suite;
	const struct bench_result *bench;
	const struct command_result *cmd;
	size_t cmd_index; /* 0-based position of cmd in report order */
	int metric;	  /* enum metric_id, or -1 (a command error) */
	const struct comparison *cmp;	    /* regression, inconclusive */
	const struct budget_result *budget; /* over budget, unassessable */
	const char *reason; /* unsupported/failed metric, error: not owned */
	/*
	 * Unsupported metrics with the same metric, status and reason are
	 * merged into one problem: `count` commands (the first is `cmd`).
	 */
	size_t count;
	int failed;    /* a metric whose measuring failed (not unsupported) */
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
void report_problems_list(struct report_problems *p,
			  const struct run_result *r);
void report_problems_collect(struct report_problems *p,
			     const struct run_result *r);
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
