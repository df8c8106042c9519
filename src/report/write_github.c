/*
 * `github`: a compact Markdown page for a pull-request comment, read in ten
 * seconds.
 *
 *	<!-- kagari:comment -->
 *	### ❌ kagari: 2 regressions, 1 over budget
 *
 *	base **main** (0acd445dea07) → head 1b2c3d4e5f60 · 12 comparisons in
 *	4 commands · exit code 1 (1 gated regression found)
 *
 *	| | benchmark / command | metric | base → head | change (interval) |
 *details |
 *	|---|---|---|---|---|---|
 *	| 🔴 regression | sort-20k / sort | latency | 217.5 ms → 262.8 ms | ... |
 *	... at most ten rows, most severe first ...
 *
 *	<details><summary>5 more problems</summary> ... </details>
 *	<details><summary>All 12 comparisons</summary> ... </details>
 *
 *	<sub>kagari 0.1.0 · seed 42 · ...</sub>
 *
 * The first line is a hidden marker a bot searches for to update its
 * earlier comment instead of adding a new one. Problems are ordered
 * regression > over budget > error > inconclusive > unsupported (then a
 * regression in a comparison that does not gate), see report/problems.h.
 * Tables inside <details> are capped so that the page stays under
 * GitHub's comment limit (65536 characters) for very large runs.
 */
#include "report/report.h"

#include <inttypes.h>
#include <math.h>
#include <string.h>

#include "analyze/format.h"
#include "report/describe.h"
#include "report/problems.h"
#include "report/section.h"
#include "report/counted_functions.h"
#include "report/syscall_names.h"

#define GITHUB_MARKER "<!-- kagari:comment -->"
#define GITHUB_TOP_ROWS 10
#define GITHUB_DETAIL_ROWS 150 /* per <details> table */
#define GITHUB_PROFILE_ROWS 5  /* functions per profiled regression */

static const char *const kind_icon[] = {
    [PROBLEM_REGRESSION] = "🔴",	     [PROBLEM_OVER_BUDGET] = "🟠", [PROBLEM_ERROR] = "⛔",
    [PROBLEM_INCONCLUSIVE] = "🟡", [PROBLEM_UNSUPPORTED] = "⚪",    [PROBLEM_NOT_GATED] = "🔵",
    [PROBLEM_ACCEPTED] = "🟢",
};

static void where_text(struct sbuf *sb, const struct run_result *r, const struct suite_result *s,
		       const struct bench_result *b, const struct command_result *c)
{
	if (r->nr_suites > 1 && s->name)
		sbuf_addf(sb, "%s / ", s->name);
	sbuf_addf(sb, "%s / %s", b->name ? b->name : "", c->name ? c->name : "");
}

static void problems_head(struct sbuf *out)
{
	sbuf_adds(out, "| | benchmark / command | metric | base → head | "
		       "change (interval) | details |\n"
		       "|---|---|---|---|---|---|\n");
}

static void problem_row(struct sbuf *out, const struct run_result *r,
			const struct report_problem *p)
{
	struct sbuf sb = SBUF_INIT;
	const struct command_result *c = p->cmd;

	sbuf_addf(out, "| %s %s |", kind_icon[p->kind], report_problem_kind_name(p->kind));
	where_text(&sb, r, p->suite, p->bench, c);
	if (p->count > 1)
		sbuf_addf(&sb, " and %zu more", p->count - 1);
	report_md_cell(out, sb.buf);
	sbuf_reset(&sb);
	report_md_cell(out, p->metric >= 0 ? metric_get(p->metric)->name : "");
	if (p->cmp) {
		report_base_head_text(&sb, c, p->metric, p->cmp);
		report_md_cell(out, sb.buf);
		sbuf_reset(&sb);
		report_change_text(&sb, p->cmp);
		report_md_cell(out, sb.buf);
		sbuf_reset(&sb);
		report_reason_text(&sb, p->cmp);
		report_md_cell(out, sb.buf);
		sbuf_reset(&sb);
	} else if (p->budget) {
		const struct budget_result *bu = p->budget;
		report_budget_rule(&sb, c, bu);
		if (bu->have_actual) {
			sbuf_adds(&sb, ", actual ");
			report_budget_actual(&sb, c, bu, NULL);
		}
		report_md_cell(out, sb.buf);
		sbuf_reset(&sb);
		report_budget_excess(&sb, bu);
		report_md_cell(out, sb.buf);
		sbuf_reset(&sb);
		report_budget_details(&sb, bu);
		report_md_cell(out, sb.buf);
	} else {
		report_md_cell(out, "");
		report_md_cell(out, "");
		if (p->kind == PROBLEM_UNSUPPORTED && p->metric >= 0 && p->failed)
			sbuf_adds(&sb, "measuring failed");
		if (p->reason)
			sbuf_addf(&sb, "%s%s", sb.len ? ": " : "", p->reason);
		report_md_cell(out, sb.buf);
	}
	sbuf_addch(out, '\n');
	sbuf_release(&sb);
}

/* Every comparison, in report order (collapsed). */
static void all_comparisons(struct sbuf *out, const struct run_result *r, size_t total)
{
	struct sbuf sb = SBUF_INIT;
	size_t shown = 0;

	sbuf_addf(out, "<details><summary>All %zu comparison%s</summary>\n\n", total,
		  total == 1 ? "" : "s");
	sbuf_adds(out, "| benchmark / command | metric | base → head | change "
		       "(interval) | verdict |\n"
		       "|---|---|---|---|---|\n");
	for (size_t i = 0; i < r->nr_suites; i++) {
		const struct suite_result *s = &r->suites[i];
		for (size_t b = 0; b < s->nr_benches; b++) {
			const struct bench_result *br = &s->benches[b];
			for (size_t k = 0; k < br->nr_commands; k++) {
				const struct command_result *c = &br->commands[k];
				for (int m = 0; m < METRIC__COUNT; m++) {
					const struct comparison *cp = &c->comparison[m];
					if (!cp->present)
						continue;
					if (shown++ >= GITHUB_DETAIL_ROWS)
						continue;
					sbuf_addch(out, '|');
					where_text(&sb, r, s, br, c);
					report_md_cell(out, sb.buf);
					sbuf_reset(&sb);
					report_md_cell(out, metric_get(m)->name);
					report_base_head_text(&sb, c, m, cp);
					report_md_cell(out, sb.buf);
					sbuf_reset(&sb);
					report_change_text(&sb, cp);
					report_md_cell(out, sb.buf);
					sbuf_reset(&sb);
					report_verdict_text(&sb, cp);
					report_verdict_note(&sb, cp, (enum metric_id)m);
					report_md_cell(out, sb.buf);
					sbuf_reset(&sb);
					sbuf_addch(out, '\n');
				}
			}
		}
	}
	if (shown > GITHUB_DETAIL_ROWS)
		sbuf_addf(out, "\n… and %zu more in the full report.\n",
			  shown - GITHUB_DETAIL_ROWS);
	sbuf_adds(out, "\n</details>\n\n");
	sbuf_release(&sb);
}

/* The hidden marker and the headline: "### ❌ kagari: 2 regressions". */
static void github_title(struct sbuf *out, const struct run_result *r,
			 const struct report_problems *p)
{
	struct sbuf sb = SBUF_INIT;
	size_t failing;

	failing =
	    p->count[PROBLEM_REGRESSION] + p->count[PROBLEM_OVER_BUDGET] + p->count[PROBLEM_ERROR];

	sbuf_adds(out, GITHUB_MARKER "\n");
	sbuf_addf(out, "### %s kagari: ",
		  r->summary.exit_code			      ? "❌"
		  : failing || p->count[PROBLEM_INCONCLUSIVE] ? "⚠️"
							      : "✅");
	report_problems_title(&sb, p, r);
	report_md_escape(out, sb.buf);
	sbuf_adds(out, "\n\n");
	sbuf_release(&sb);
}

/* The status line (report_status_line()), ref in bold. */
static void github_status_line(struct sbuf *out, const struct run_result *r)
{
	static const struct report_markup mk = {report_md_escape, "**", "**", NULL, NULL};
	struct sbuf sb = SBUF_INIT;

	report_status_line(out, r, &mk);
	sbuf_adds(out, "\n\n");
	sbuf_reset(&sb);
	if (report_shard_text(&sb, r)) {
		sbuf_adds(out, "> ");
		report_md_escape(out, sb.buf);
		sbuf_adds(out, "\n\n");
	}
	sbuf_release(&sb);
}

/*
 * The most severe problems in a table, the rest collapsed under
 * <details>; or a line saying there are none.
 */
static void github_problems(struct sbuf *out, const struct run_result *r,
			    const struct report_problems *p)
{
	if (p->nr) {
		size_t top = p->nr < GITHUB_TOP_ROWS ? p->nr : GITHUB_TOP_ROWS;
		problems_head(out);
		for (size_t i = 0; i < top; i++)
			problem_row(out, r, &p->v[i]);
		sbuf_addch(out, '\n');
		if (p->nr > top) {
			size_t rest = p->nr - top;
			size_t shown = rest < GITHUB_DETAIL_ROWS ? rest : GITHUB_DETAIL_ROWS;
			sbuf_addf(out,
				  "<details><summary>%zu more "
				  "problem%s</summary>\n\n",
				  rest, rest == 1 ? "" : "s");
			problems_head(out);
			for (size_t i = top; i < top + shown; i++)
				problem_row(out, r, &p->v[i]);
			if (rest > shown)
				sbuf_addf(out, "\n… and %zu more in the full report.\n",
					  rest - shown);
			sbuf_adds(out, "\n</details>\n\n");
		}
	} else if (p->nr_comparisons) {
		sbuf_adds(out, "Every comparison is within its tolerance.\n\n");
	} else {
		sbuf_adds(out, "Every check passed.\n\n");
	}
}

/* <sub>kagari VERSION · seed N · os, cpu, cpus</sub> */
static void github_footer(struct sbuf *out, const struct run_result *r)
{
	struct sbuf sb = SBUF_INIT;

	sbuf_addf(out, "<sub>kagari %s · seed %" PRIu64, KAGARI_VERSION, r->seed);
	if (r->env.os || r->env.cpu_model) {
		sbuf_adds(out, " · ");
		if (r->env.os)
			sbuf_adds(&sb, r->env.os);
		if (r->env.cpu_model)
			sbuf_addf(&sb, "%s%s", r->env.os ? ", " : "", r->env.cpu_model);
		if (r->env.logical_cpus > 0)
			sbuf_addf(&sb, ", %d cpus", r->env.logical_cpus);
		report_md_escape(out, sb.buf);
	}
	sbuf_adds(out, "</sub>\n");
	sbuf_release(&sb);
}

int report_write_github(const struct run_result *r, const struct report_options *o,
			struct sbuf *out, struct sbuf *err)
{
	struct report_problems p;

	(void)o;
	(void)err;
	report_problems_collect(&p, r);

	github_title(out, r, &p);
	github_status_line(out, r);
	github_problems(out, r, &p);
	/* Where a regression's time went, when the commands were profiled. */
	report_profile_markdown(out, r, 1, GITHUB_PROFILE_ROWS);
	/* metrics.syscalls: which calls changed, by name. */
	report_syscall_markdown(out, r, SYSCALL_ROWS);
	report_counted_fn_markdown(out, r, COUNTED_FN_ROWS);
	if (p.nr_comparisons)
		all_comparisons(out, r, p.nr_comparisons);
	/* What may make the numbers less trustworthy (an oversubscribed
	   machine, throttling, a moved HEAD), as markdown says it. */
	report_md_warnings(out, r, "**Warnings**");
	github_footer(out, r);
	report_problems_release(&p);
	return 0;
}
