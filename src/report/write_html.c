/*
 * `html`: one self-contained page — inline CSS, inline SVG, no scripts, no
 * network (a Content-Security-Policy forbids loading anything).
 *
 *	header      title with the counts, the status line (base → head,
 *	            comparisons, exit code: report/describe.h)
 *	Summary     one table: problems most severe first (report/problems.h),
 *	            then every other comparison (run mode: every command)
 *	Contents    every command, linked, with its result
 *	per suite, per command: the command line, a statistics table, for each
 *	            comparison its verdict, reason and four plots (report/
 *	            svg.h: samples by round, head/base per round, bootstrap
 *	            distribution, both sides' runs sorted); in run mode a strip plot per metric; the
 *	            budgets; the error and stderr
 *	Environment machine, git, seed, versions, warnings
 *
 * It stays usable for hundreds of comparisons: plots are 600x160, and when
 * a report holds more than HTML_OPEN_PLOTS comparisons only the problems'
 * plots are expanded (the others sit in a closed <details>, one click
 * away, still part of the page).
 *
 * Every piece of user text (names, commands, reasons, errors, stderr,
 * environment strings) goes through report_html_escape(); class names are
 * chosen from fixed lists, never copied from the data.
 */
#include "report/report.h"

#include <inttypes.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "analyze/format.h"
#include "base/xalloc.h"
#include "report/describe.h"
#include "report/problems.h"
#include "report/html_page.h"
#include "report/svg.h"
#include "report/counted_functions.h"
#include "report/syscall_names.h"

#define HTML_OPEN_PLOTS 24

/* Functions listed above a command's flame graph. */
#define HTML_PROFILE_ROWS 10

static const char page_css[] =
    "body{font:14px/1.45 system-ui,-apple-system,'Segoe UI',sans-serif;"
    "margin:0;color:#222;background:#f7f7f8}\n"
    "header{background:#fff;border-bottom:1px solid #ddd;padding:14px 24px}\n"
    "main{padding:0 24px 40px;max-width:1320px}\n"
    "h1{font-size:21px;margin:0 0 4px}\n"
    "h2{font-size:18px;margin:28px 0 8px;padding-bottom:3px;"
    "border-bottom:1px solid #ddd}\n"
    "h3{font-size:15px;margin:0 0 6px}\n"
    "h4{font-size:14px;margin:14px 0 2px;font-weight:600}\n"
    "table{border-collapse:collapse;background:#fff;margin:6px 0 12px}\n"
    "th,td{border:1px solid #e3e3e3;padding:3px 8px;text-align:left;"
    "vertical-align:top}\n"
    "th{background:#f3f3f5;font-weight:600}\n"
    "td.n{text-align:right;font-variant-numeric:tabular-nums;"
    "white-space:nowrap}\n"
    ".meta{color:#555;margin:2px 0}\n"
    ".dim{color:#666;font-weight:normal}\n"
    ".badge{display:inline-block;padding:0 7px;border-radius:9px;"
    "font-size:12px;font-weight:600;background:#eee;color:#444;"
    "white-space:nowrap}\n"
    ".k-bad{background:#fde2e1;color:#a4161a}\n"
    ".k-good{background:#e1f3e5;color:#1b6b2a}\n"
    ".k-warn{background:#fff1c2;color:#6f5200}\n"
    ".k-info{background:#e4ecf7;color:#28507f}\n"
    "nav ol{columns:3 300px;padding-left:22px;margin:4px 0}\n"
    "nav li{break-inside:avoid;margin:1px 0}\n"
    "code{font-family:ui-monospace,'DejaVu Sans Mono',monospace;"
    "font-size:12.5px;background:#f1f1f3;padding:1px 4px;border-radius:3px;"
    "overflow-wrap:anywhere}\n"
    "pre{background:#f4f4f6;border:1px solid #e3e3e3;padding:8px;"
    "overflow:auto;max-height:320px;font-size:12.5px}\n"
    ".cmd{background:#fff;border:1px solid #e3e3e3;border-radius:6px;"
    "padding:10px 14px;margin:12px 0}\n"
    ".plots{display:flex;flex-wrap:wrap}\n"
    ".reason{color:#333;margin:2px 0 6px}\n"
    ".err{color:#a4161a}\n"
    ".warn{color:#7a5b00}\n"
    "summary{cursor:pointer;color:#28507f}\n"
    "a{color:#28507f}\n";

/*
 * The badge class of a budget status, metric status, profile verdict or
 * problem kind, by the name shown (a result's or a comparison verdict's:
 * result_badge(), on the enum).
 */
static const char *badge_class(const char *word)
{
	static const char *const bad[] = {"regression", "over budget", "error",
					  "fail",	"failed",      "grew"};
	static const char *const good[] = {"pass", "improved", "accepted", "shrank"};
	static const char *const warn[] = {"inconclusive", "unsupported", "unassessable",
					   "cannot be assessed"};
	if (!word)
		return "";
	for (size_t i = 0; i < sizeof(bad) / sizeof(*bad); i++)
		if (!strcmp(word, bad[i]))
			return " k-bad";
	for (size_t i = 0; i < sizeof(good) / sizeof(*good); i++)
		if (!strcmp(word, good[i]))
			return " k-good";
	for (size_t i = 0; i < sizeof(warn) / sizeof(*warn); i++)
		if (!strcmp(word, warn[i]))
			return " k-warn";
	if (!strcmp(word, "regression (not gated)"))
		return " k-info";
	return "";
}

static void badge(struct sbuf *out, const char *word)
{
	sbuf_addf(out, "<span class=\"badge%s\">", badge_class(word));
	report_html_escape(out, word ? word : "n/a", 0);
	sbuf_adds(out, "</span>");
}

/* A command's, benchmark's or suite's result as a badge. */
static void result_badge(struct sbuf *out, enum result res)
{
	const char *cls = "";
	switch (res) {
	case RESULT_REGRESSION:
	case RESULT_OVER_BUDGET:
	case RESULT_ERROR:
	case RESULT_INTERRUPTED:
		cls = " k-bad";
		break;
	case RESULT_PASS:
	case RESULT_IMPROVED:
	case RESULT_ACCEPTED:
		cls = " k-good";
		break;
	case RESULT_INCONCLUSIVE:
	case RESULT_UNSUPPORTED:
		cls = " k-warn";
		break;
	default: /* none, not_run, skipped, within_noise */
		break;
	}
	sbuf_addf(out, "<span class=\"badge%s\">", cls);
	report_html_escape(out, result_text(res, "n/a"), 0);
	sbuf_adds(out, "</span>");
}

static void esc(struct sbuf *out, const char *s)
{
	report_html_escape(out, s, 0);
}

/* Escaped raw text from tmp, which is reset. */
static void esc_tmp(struct sbuf *out, struct sbuf *tmp)
{
	report_html_escape(out, tmp->buf, 0);
	sbuf_reset(tmp);
}

/* The status line's markup: the ref in bold, shas as code. */
static const struct report_markup html_markup = {esc, "<b>", "</b>", "<code>", "</code>"};

static void td(struct sbuf *out, const char *cls, const char *s)
{
	if (cls)
		sbuf_addf(out, "<td class=\"%s\">", cls);
	else
		sbuf_adds(out, "<td>");
	esc(out, s);
	sbuf_adds(out, "</td>");
}

static void td_tmp(struct sbuf *out, const char *cls, struct sbuf *tmp)
{
	td(out, cls, tmp->buf);
	sbuf_reset(tmp);
}

static void value(struct sbuf *tmp, const struct command_result *c, enum metric_id m, double v)
{
	report_value_text(tmp, c, m, v);
}

/* "bench / command" (with the suite when there are several). */
static void where(struct sbuf *out, const struct run_result *r, const struct suite_result *s,
		  const struct bench_result *b, const struct command_result *c)
{
	if (r->nr_suites > 1) {
		esc(out, s->name);
		sbuf_adds(out, " / ");
	}
	esc(out, b->name);
	sbuf_adds(out, " / ");
	esc(out, c->name);
}

static void link_to(struct sbuf *out, const struct run_result *r, const struct suite_result *s,
		    const struct bench_result *b, const struct command_result *c, size_t idx,
		    int metric)
{
	sbuf_addf(out, "<a href=\"#c%zu", idx);
	if (metric >= 0)
		sbuf_addf(out, "-%s", metric_get(metric)->name);
	sbuf_adds(out, "\">");
	where(out, r, s, b, c);
	sbuf_adds(out, "</a>");
}

/* ---- summary ----------------------------------------------------------- */

static void summary_comparison_row(struct sbuf *out, struct sbuf *tmp, const struct run_result *r,
				   const struct suite_result *s, const struct bench_result *b,
				   const struct command_result *c, size_t idx, enum metric_id m,
				   const char *kind)
{
	const struct comparison *cp = &c->comparison[m];

	sbuf_adds(out, "<tr><td>");
	badge(out, kind);
	sbuf_adds(out, "</td><td>");
	link_to(out, r, s, b, c, idx, m);
	sbuf_adds(out, "</td>");
	td(out, NULL, metric_get(m)->name);
	report_base_head_text(tmp, c, m, cp);
	td_tmp(out, "n", tmp);
	report_change_text(tmp, cp);
	td_tmp(out, "n", tmp);
	report_reason_text(tmp, cp);
	td_tmp(out, NULL, tmp);
	sbuf_adds(out, "</tr>\n");
}

static void summary_problem_row(struct sbuf *out, struct sbuf *tmp, const struct run_result *r,
				const struct report_problem *p)
{
	const struct command_result *c = p->cmd;

	if (p->cmp) {
		summary_comparison_row(out, tmp, r, p->suite, p->bench, c, p->cmd_index, p->metric,
				       report_problem_kind_name(p->kind));
		return;
	}
	sbuf_adds(out, "<tr><td>");
	badge(out, report_problem_kind_name(p->kind));
	sbuf_adds(out, "</td><td>");
	link_to(out, r, p->suite, p->bench, c, p->cmd_index, -1);
	if (p->count > 1)
		sbuf_addf(out, " and %zu more", p->count - 1);
	sbuf_adds(out, "</td>");
	td(out, NULL, p->metric >= 0 ? metric_get(p->metric)->name : "");
	if (p->budget) {
		const struct budget_result *bu = p->budget;
		report_budget_rule(tmp, c, bu);
		if (bu->have_actual) {
			sbuf_adds(tmp, ", actual ");
			report_budget_actual(tmp, c, bu, NULL);
		}
		td_tmp(out, "n", tmp);
		report_budget_excess(tmp, bu);
		td_tmp(out, "n", tmp);
		report_budget_details(tmp, bu);
		td_tmp(out, NULL, tmp);
	} else {
		td(out, NULL, "");
		td(out, NULL, "");
		if (p->kind == PROBLEM_UNSUPPORTED && p->failed)
			sbuf_adds(tmp, "measuring failed");
		if (p->reason)
			sbuf_addf(tmp, "%s%s", tmp->len ? ": " : "", p->reason);
		td_tmp(out, NULL, tmp);
	}
	sbuf_adds(out, "</tr>\n");
}

/* Run mode: a command without problems. */
static void summary_command_row(struct sbuf *out, struct sbuf *tmp, const struct run_result *r,
				const struct suite_result *s, const struct bench_result *b,
				const struct command_result *c, size_t idx)
{
	const struct metric_series *lat = &c->side[SIDE_HEAD].metric[METRIC_LATENCY];
	size_t pass = 0;

	sbuf_adds(out, "<tr><td>");
	result_badge(out, c->result ? c->result : RESULT_PASS);
	sbuf_adds(out, "</td><td>");
	link_to(out, r, s, b, c, idx, -1);
	sbuf_adds(out, "</td>");
	td(out, NULL, "latency");
	if (lat->have_summary) {
		sbuf_adds(tmp, "median ");
		value(tmp, c, METRIC_LATENCY, lat->summary.median);
	}
	td_tmp(out, "n", tmp);
	if (lat->have_summary)
		sbuf_addf(tmp, "%zu runs", lat->summary.count);
	td_tmp(out, "n", tmp);
	for (size_t i = 0; i < c->nr_budgets; i++)
		pass += c->budgets[i].status == BUDGET_PASS;
	if (c->nr_budgets)
		sbuf_addf(tmp, "%zu of %zu budgets met", pass, c->nr_budgets);
	td_tmp(out, NULL, tmp);
	sbuf_adds(out, "</tr>\n");
}

static int command_has_problem(const struct report_problems *p, const struct command_result *c)
{
	for (size_t i = 0; i < p->nr; i++)
		if (p->v[i].cmd == c)
			return 1;
	return 0;
}

#define SUMMARY_HEAD_AT(base_head)                                                                 \
	"<table><thead><tr><th>result</th><th>benchmark / command</th>"                            \
	"<th>metric</th><th>" base_head "</th><th>change (interval)</th>"                          \
	"<th>details</th></tr></thead>\n<tbody>\n"
/* compare's head figure links to the note that says what it is */
#define SUMMARY_HEAD(compare)                                                                      \
	((compare) ? SUMMARY_HEAD_AT("<a href=\"#base-head\">base → head</a>")                     \
		   : SUMMARY_HEAD_AT("base → head"))

#define HTML_BASE_HEAD_NOTE                                                                        \
	"<p class=\"meta\" id=\"base-head\">base → head: the base's median (its mean where "     \
	"the statistic is the mean) and that value moved by the change; with paired rounds the "   \
	"change is the median of the per-round head/base ratios, so the head figure is not the "   \
	"head's own median. Each side's own median is in its command's table below.</p>\n"

/*
 * Problems first, most severe on top; then the rest in report order, in
 * the same table when few, else collapsed under it.
 */
static void summary(struct sbuf *out, struct sbuf *tmp, const struct run_result *r,
		    const struct report_problems *p, int compare)
{
	struct sbuf rest = SBUF_INIT;
	size_t idx = 0, nrest = 0;

	for (size_t i = 0; i < r->nr_suites; i++) {
		const struct suite_result *s = &r->suites[i];
		for (size_t b = 0; b < s->nr_benches; b++) {
			const struct bench_result *br = &s->benches[b];
			for (size_t k = 0; k < br->nr_commands; k++, idx++) {
				const struct command_result *c = &br->commands[k];
				if (!compare) {
					if (command_has_problem(p, c))
						continue;
					summary_command_row(&rest, tmp, r, s, br, c, idx);
					nrest++;
					continue;
				}
				for (int m = 0; m < METRIC__COUNT; m++) {
					const struct comparison *cp = &c->comparison[m];
					/* The problems' rows are above: the
					   rest is exactly what they are not. */
					if (!cp->present || report_comparison_is_problem(cp))
						continue;
					summary_comparison_row(&rest, tmp, r, s, br, c, idx, m,
							       verdict_name(cp->verdict));
					nrest++;
				}
			}
		}
	}
	sbuf_adds(out, "<section id=\"summary\"><h2>Summary</h2>\n");
	if (p->nr || nrest <= HTML_OPEN_PLOTS) {
		sbuf_adds(out, SUMMARY_HEAD(compare));
		for (size_t i = 0; i < p->nr; i++)
			summary_problem_row(out, tmp, r, &p->v[i]);
		if (nrest <= HTML_OPEN_PLOTS)
			sbuf_add(out, rest.buf, rest.len);
		sbuf_adds(out, "</tbody></table>\n");
	}
	if (nrest > HTML_OPEN_PLOTS) {
		sbuf_addf(out, "<details%s><summary>%zu %s without a problem</summary>\n",
			  p->nr ? "" : " open", nrest, compare ? "comparisons" : "commands");
		sbuf_adds(out, SUMMARY_HEAD(compare));
		sbuf_add(out, rest.buf, rest.len);
		sbuf_adds(out, "</tbody></table>\n</details>\n");
	}
	/* The head figure beside a paired change is the base's moved by the
	   change, so that the two are the values whose ratio it is: not the
	   head's own median, which a reader would take it for. */
	if (compare && (p->nr || nrest))
		sbuf_adds(out, HTML_BASE_HEAD_NOTE);
	sbuf_adds(out, "</section>\n");
	sbuf_release(&rest);
}

/* ---- contents ---------------------------------------------------------- */

static void contents(struct sbuf *out, const struct run_result *r)
{
	size_t idx = 0;

	sbuf_adds(out, "<nav id=\"contents\"><h2>Contents</h2>\n");
	for (size_t i = 0; i < r->nr_suites; i++) {
		const struct suite_result *s = &r->suites[i];
		sbuf_addf(out, "<p><a href=\"#s%zu\">", i);
		esc(out, s->name);
		sbuf_adds(out, "</a> ");
		result_badge(out, s->result);
		sbuf_adds(out, "</p>\n<ol>\n");
		for (size_t b = 0; b < s->nr_benches; b++) {
			const struct bench_result *br = &s->benches[b];
			for (size_t k = 0; k < br->nr_commands; k++, idx++) {
				const struct command_result *c = &br->commands[k];
				sbuf_addf(out, "<li><a href=\"#c%zu\">", idx);
				esc(out, br->name);
				sbuf_adds(out, " / ");
				esc(out, c->name);
				sbuf_adds(out, "</a> ");
				result_badge(out, c->result);
				sbuf_adds(out, "</li>\n");
			}
		}
		sbuf_adds(out, "</ol>\n");
	}
	sbuf_adds(out, "<p><a href=\"#environment\">Environment</a></p>\n</nav>\n");
}

/* ---- per command ------------------------------------------------------- */

static void stats_table(struct sbuf *out, struct sbuf *tmp, const struct command_result *c, int two)
{
	int any = 0;

	for (int m = 0; m < METRIC__COUNT; m++)
		for (int s = 0; s < SIDE__COUNT; s++)
			any |= c->side[s].present && c->side[s].metric[m].status != MSTATUS_ABSENT;
	if (!any)
		return;
	sbuf_adds(out, "<table><thead><tr><th>metric</th>");
	if (two)
		sbuf_adds(out, "<th>side</th>");
	sbuf_adds(out, "<th>median</th><th>mean ± σ</th><th>min … max</th>"
		       "<th>p95</th><th>n</th></tr></thead>\n<tbody>\n");
	for (int m = 0; m < METRIC__COUNT; m++) {
		for (int s = two ? SIDE_BASE : SIDE_HEAD; s < SIDE__COUNT; s++) {
			const struct metric_series *ms = &c->side[s].metric[m];
			const struct summary *su = &ms->summary;
			if (!c->side[s].present || ms->status == MSTATUS_ABSENT)
				continue;
			sbuf_adds(out, "<tr>");
			td(out, NULL, metric_get(m)->name);
			if (two)
				td(out, NULL, side_name(s));
			if (ms->status == MSTATUS_UNSUPPORTED || ms->status == MSTATUS_FAILED) {
				sbuf_adds(out, "<td colspan=\"5\">");
				badge(out, ms->status == MSTATUS_FAILED ? "failed" : "unsupported");
				if (ms->reason) {
					sbuf_adds(out, " ");
					esc(out, ms->reason);
				}
				sbuf_adds(out, "</td></tr>\n");
				continue;
			}
			if (!ms->have_summary) {
				sbuf_addf(tmp, "%zu samples, no statistics", ms->nr);
				sbuf_adds(out, "<td colspan=\"5\">");
				esc_tmp(out, tmp);
				sbuf_adds(out, "</td></tr>\n");
				continue;
			}
			value(tmp, c, m, su->median);
			td_tmp(out, "n", tmp);
			value(tmp, c, m, su->mean);
			sbuf_adds(tmp, " ± ");
			value(tmp, c, m, su->stddev);
			td_tmp(out, "n", tmp);
			value(tmp, c, m, su->min);
			sbuf_adds(tmp, " … ");
			value(tmp, c, m, su->max);
			td_tmp(out, "n", tmp);
			value(tmp, c, m, su->p95);
			td_tmp(out, "n", tmp);
			report_count_text(tmp, ms);
			td_tmp(out, "n", tmp);
			sbuf_adds(out, "</tr>\n");
		}
	}
	sbuf_adds(out, "</tbody></table>\n");
}

static void comparison_block(struct sbuf *out, struct sbuf *tmp, const struct command_result *c,
			     size_t idx, enum metric_id m, int open)
{
	const struct comparison *cp = &c->comparison[m];

	sbuf_addf(out, "<div class=\"cmp\" id=\"c%zu-%s\">\n<h4>%s ", idx, metric_get(m)->name,
		  metric_get(m)->name);
	result_badge(out, result_from_verdict(cp->verdict));
	sbuf_adds(out, " ");
	units_format_percent(tmp, cp->change_percent);
	esc_tmp(out, tmp);
	sbuf_adds(out, " <span class=\"dim\">");
	report_base_head_text(tmp, c, m, cp);
	sbuf_adds(tmp, ", interval ");
	report_interval_text(tmp, cp);
	if (isfinite(cp->confidence))
		sbuf_addf(tmp, " (%g%%)", cp->confidence * 100);
	if (isfinite(cp->max_percent)) {
		sbuf_adds(tmp, ", ");
		report_tolerance_text(tmp, cp);
	}
	if (!cp->gate)
		sbuf_adds(tmp, ", not gated");
	esc_tmp(out, tmp);
	sbuf_adds(out, "</span></h4>\n<p class=\"reason\">");
	report_reason_text(tmp, cp);
	esc_tmp(out, tmp);
	sbuf_addf(tmp, " · statistic %s, pairing %s", cp->statistic ? cp->statistic : "n/a",
		  cp->pairing ? cp->pairing : "n/a");
	if (isfinite(cp->p_reg))
		sbuf_addf(tmp, " · P(regression) %.3f", cp->p_reg);
	if (isfinite(cp->p_value))
		sbuf_addf(tmp, " · p %.3g", cp->p_value);
	if (isfinite(cp->p_adjusted) && cp->p_adjusted != cp->p_value)
		sbuf_addf(tmp, " (adjusted %.3g)", cp->p_adjusted);
	if (isfinite(cp->noise_floor_percent))
		sbuf_addf(tmp, " · noise floor %.1f%%", cp->noise_floor_percent);
	if (cp->control_failed)
		sbuf_adds(tmp, " · the A/A control drifted");
	if (cp->nr_dropped_rounds) {
		sbuf_adds(tmp, " · rounds dropped:");
		for (size_t i = 0; i < cp->nr_dropped_rounds; i++)
			sbuf_addf(tmp, " %d", cp->dropped_rounds[i]);
	}
	esc_tmp(out, tmp);
	sbuf_addf(out,
		  "</p>\n<details%s><summary>plots</summary>\n"
		  "<div class=\"plots\">\n",
		  open ? " open" : "");
	svg_strip_plot(out, c, m);
	svg_ratio_plot(out, c, m);
	svg_boot_plot(out, c, m);
	svg_dist_plot(out, c, m);
	sbuf_adds(out, "</div>\n</details>\n</div>\n");
}

static void budgets_table(struct sbuf *out, struct sbuf *tmp, const struct command_result *c)
{
	if (!c->nr_budgets)
		return;
	sbuf_adds(out, "<table><thead><tr><th>budget</th><th>limit</th>"
		       "<th>actual</th><th>result</th></tr></thead>\n<tbody>\n");
	for (size_t i = 0; i < c->nr_budgets; i++) {
		const struct budget_result *bu = &c->budgets[i];
		sbuf_adds(out, "<tr>");
		report_budget_subject(tmp, bu);
		td_tmp(out, NULL, tmp);
		report_budget_limit(tmp, c, bu);
		td_tmp(out, "n", tmp);
		report_budget_actual(tmp, c, bu, NULL);
		td_tmp(out, "n", tmp);
		sbuf_adds(out, "<td>");
		badge(out, budget_status_name(bu->status));
		if (bu->reason) {
			sbuf_addch(out, ' ');
			esc(out, bu->reason);
		}
		sbuf_adds(out, "</td></tr>\n");
	}
	sbuf_adds(out, "</tbody></table>\n");
}

/*
 * The sampled profile of a command: the event and runs, why it stopped if
 * it did, the functions that changed most (report_profile_top) and the
 * differential flame graph. Open when the command is a problem.
 */
static void profile_block(struct sbuf *out, struct sbuf *tmp, const struct command_result *c,
			  int open)
{
	const struct profile_set *ps = c->profile;
	int two = c->side[SIDE_BASE].present;
	if (!ps && !c->profile_error)
		return;
	sbuf_addf(out, "<details%s><summary>profile", open ? " open" : "");
	if (ps) {
		size_t runs = 0;
		for (size_t i = 0; i < ps->nr_runs; i++)
			runs += ps->runs[i].side == PROFILE_HEAD;
		sbuf_reset(tmp);
		sbuf_addf(tmp, " (%s at %u Hz, %zu sampled run%s per side", ps->event,
			  ps->frequency, runs, runs == 1 ? "" : "s");
		if (ps->lost[0] + ps->lost[1])
			sbuf_addf(tmp, ", %llu lost",
				  (unsigned long long)(ps->lost[0] + ps->lost[1]));
		sbuf_addch(tmp, ')');
		esc_tmp(out, tmp);
	}
	sbuf_adds(out, "</summary>\n");
	if (c->profile_error) {
		sbuf_adds(out, "<p class=\"err\">profile: ");
		esc(out, c->profile_error);
		sbuf_adds(out, "</p>\n");
	}
	size_t idx[HTML_PROFILE_ROWS];
	size_t n = report_profile_top(c, HTML_PROFILE_ROWS, idx);
	if (n) {
		sbuf_adds(out, two ? "<table><tr><th>function</th><th>binary</th>"
				     "<th>base</th><th>head</th><th>change</th>"
				     "<th>interval</th><th>q</th><th>verdict</th></tr>\n"
				   : "<table><tr><th>function</th><th>binary</th>"
				     "<th>self time</th></tr>\n");
		for (size_t k = 0; k < n; k++) {
			const struct profile_change *ch = &ps->changes[idx[k]];
			sbuf_adds(out, "<tr>");
			td(out, NULL, ps->funcs[ch->func].function);
			td(out, NULL, ps->funcs[ch->func].binary);
			if (two) {
				sbuf_reset(tmp);
				report_profile_ms(tmp, ch->self_ns[PROFILE_BASE], 0);
				td_tmp(out, "num", tmp);
			}
			sbuf_reset(tmp);
			report_profile_ms(tmp, ch->self_ns[PROFILE_HEAD], 0);
			td_tmp(out, "num", tmp);
			if (two) {
				sbuf_reset(tmp);
				report_profile_ms(tmp, ch->change_ns, 1);
				td_tmp(out, "num", tmp);
				sbuf_reset(tmp);
				if (isnan(ch->ci_low_ns)) {
					sbuf_adds(tmp, "–");
				} else {
					report_profile_ms(tmp, ch->ci_low_ns, 1);
					sbuf_adds(tmp, " … ");
					report_profile_ms(tmp, ch->ci_high_ns, 1);
				}
				td_tmp(out, "num", tmp);
				sbuf_reset(tmp);
				if (isnan(ch->q_value))
					sbuf_adds(tmp, "–");
				else
					sbuf_addf(tmp, "%.2g", ch->q_value);
				td_tmp(out, "num", tmp);
				sbuf_adds(out, "<td>");
				sbuf_reset(tmp);
				report_profile_verdict(tmp, ch, 0);
				badge(out, tmp->buf);
				sbuf_reset(tmp);
				sbuf_adds(out, "</td>");
			}
			sbuf_adds(out, "</tr>\n");
		}
		sbuf_adds(out, "</table>\n");
	}
	if (ps)
		svg_flame_graph(out, c);
	sbuf_adds(out, "</details>\n");
}

/*
 * Under `kagari bench` a command is compared with the benchmark's baseline
 * command, whose runs are its base (analyze/analyze.c): the plots of a
 * comparison draw them as the base side, so the picture holds both
 * distributions there too. *view is a shallow copy of c that owns nothing.
 */
static const struct command_result *
plotted(const struct bench_result *b, const struct command_result *c, struct command_result *view)
{
	if (!b->compare_baseline || !b->baseline || c->side[SIDE_BASE].present)
		return c;
	for (size_t i = 0; i < b->nr_commands; i++) {
		const struct command_result *bl = &b->commands[i];
		if (bl == c || !bl->name || strcmp(bl->name, b->baseline) ||
		    !bl->side[SIDE_HEAD].present)
			continue;
		*view = *c;
		view->side[SIDE_BASE] = bl->side[SIDE_HEAD];
		return view;
	}
	return c;
}

/* --profile under valgrind: the functions whose counts changed most. */
static void counted_fn_block(struct sbuf *out, struct sbuf *tmp, const struct command_result *c)
{
	struct counted_fn_row rows[COUNTED_FN_ROWS];
	int two;
	size_t n = report_counted_fn_rows(c, COUNTED_FN_ROWS, rows, &two);
	if (!n)
		return;
	sbuf_addf(out, "<p class=\"counted\">functions by count (valgrind%s):</p>\n<ul>\n",
		  two ? ", base → head" : "");
	for (size_t k = 0; k < n; k++) {
		sbuf_reset(tmp);
		report_counted_fn_text(tmp, &rows[k], two);
		sbuf_adds(out, "<li>");
		esc(out, tmp->buf);
		sbuf_adds(out, "</li>\n");
	}
	sbuf_adds(out, "</ul>\n");
}

static void command_section(struct sbuf *out, struct sbuf *tmp, const struct run_result *r,
			    const struct report_problems *p, const struct bench_result *b,
			    const struct command_result *c, size_t idx, int open_all)
{
	int two = c->side[SIDE_BASE].present;
	int compared = 0;

	sbuf_addf(out, "<section class=\"cmd\" id=\"c%zu\">\n<h3>", idx);
	esc(out, b->name);
	sbuf_adds(out, " / ");
	esc(out, c->name);
	sbuf_adds(out, " ");
	result_badge(out, c->result);
	if (c->rounds > 0)
		sbuf_addf(out, " <span class=\"dim\">%d round%s</span>", c->rounds,
			  c->rounds == 1 ? "" : "s");
	sbuf_adds(out, "</h3>\n");
	if (c->command && *c->command) {
		sbuf_adds(out, "<p class=\"meta\"><code>");
		esc(out, c->command);
		sbuf_adds(out, "</code></p>\n");
	}
	if (c->error) {
		sbuf_adds(out, "<p class=\"err\">error: ");
		esc(out, c->error);
		sbuf_adds(out, "</p>\n");
	}
	if (c->stderr_tail && *c->stderr_tail) {
		sbuf_adds(out, "<p class=\"meta\">stderr (last lines):</p><pre>");
		report_html_escape(out, c->stderr_tail, 1);
		sbuf_adds(out, "</pre>\n");
	}
	stats_table(out, tmp, c, two);
	for (int m = 0; m < METRIC__COUNT; m++) {
		const struct comparison *cp = &c->comparison[m];
		if (!cp->present)
			continue;
		struct command_result view;
		compared = 1;
		comparison_block(out, tmp, plotted(b, c, &view), idx, m,
				 open_all || report_comparison_is_problem(cp));
	}
	if (!compared) {
		int any = 0;
		for (int m = 0; m < METRIC__COUNT; m++)
			any |= c->side[SIDE_HEAD].present &&
			       c->side[SIDE_HEAD].metric[m].status == MSTATUS_OK &&
			       c->side[SIDE_HEAD].metric[m].nr;
		if (any) {
			sbuf_addf(out,
				  "<details%s><summary>plots</summary>\n"
				  "<div class=\"plots\">\n",
				  open_all || command_has_problem(p, c) ? " open" : "");
			for (int m = 0; m < METRIC__COUNT; m++)
				if (c->side[SIDE_HEAD].present &&
				    c->side[SIDE_HEAD].metric[m].status == MSTATUS_OK &&
				    c->side[SIDE_HEAD].metric[m].nr)
					svg_strip_plot(out, c, m);
			sbuf_adds(out, "</div>\n</details>\n");
		}
	}
	budgets_table(out, tmp, c);
	sbuf_reset(tmp);
	if (report_syscall_line(tmp, c, SYSCALL_ROWS, 0)) {
		/* metrics.syscalls: the call names that changed most. */
		sbuf_adds(out, "<p class=\"syscalls\">system calls per run: ");
		esc(out, tmp->buf);
		sbuf_adds(out, "</p>\n");
	}
	counted_fn_block(out, tmp, c);
	profile_block(out, tmp, c, open_all || command_has_problem(p, c));
	sbuf_adds(out, "</section>\n");
	(void)r;
}

/* ---- environment ------------------------------------------------------- */

/* Is every command's value of matrix axis a a number, with two or more
   distinct values? */
static int axis_numeric(const struct bench_result *br, size_t a)
{
	int distinct = 0;
	double first = 0;
	for (size_t c = 0; c < br->nr_commands; c++) {
		const struct command_result *cr = &br->commands[c];
		if (a >= cr->matrix_values.nr)
			return 0;
		char *end;
		const char *v = cr->matrix_values.v[a];
		double x = strtod(v, &end);
		if (!*v || *end || !isfinite(x))
			return 0;
		if (!c)
			first = x;
		else if (x != first)
			distinct = 1;
	}
	return distinct;
}

struct axis_point {
	double x, y;
};

static int axis_point_cmp(const void *a, const void *b)
{
	double x = ((const struct axis_point *)a)->x, y = ((const struct axis_point *)b)->x;
	return (x > y) - (x < y);
}

/*
 * A `matrix:` benchmark: each metric against each numeric axis, the head
 * side's median per value, one line per combination of the other axes
 * (and per command the matrix expanded).
 */
static void matrix_plots(struct sbuf *out, struct sbuf *tmp, const struct bench_result *br)
{
	if (!br->nr_commands || !br->commands[0].matrix_names.nr)
		return;
	const struct strvec *axes = &br->commands[0].matrix_names;
	size_t n = br->nr_commands;
	int opened = 0;
	for (size_t a = 0; a < axes->nr; a++) {
		if (!axis_numeric(br, a))
			continue;
		for (int m = 0; m < METRIC__COUNT; m++) {
			int any = 0;
			for (size_t c = 0; c < n; c++)
				any |= br->commands[c].side[SIDE_HEAD].metric[m].have_summary;
			if (!any)
				continue;
			/* line of each command: its name without the matrix part
			   and the other axes' values */
			struct strvec keys = STRVEC_INIT;
			size_t *line_of = xcalloc(n, sizeof(*line_of));
			for (size_t c = 0; c < n; c++) {
				const struct command_result *cr = &br->commands[c];
				sbuf_reset(tmp);
				sbuf_addf(tmp, ".%s-", axes->v[0]);
				const char *cut = strstr(cr->name, tmp->buf);
				sbuf_reset(tmp);
				sbuf_add(tmp, cr->name,
					 cut ? (size_t)(cut - cr->name) : strlen(cr->name));
				for (size_t k = 0;
				     k < cr->matrix_names.nr && k < cr->matrix_values.nr; k++)
					if (k != a)
						sbuf_addf(tmp, " %s=%s", cr->matrix_names.v[k],
							  cr->matrix_values.v[k]);
				size_t l = 0;
				while (l < keys.nr && strcmp(keys.v[l], tmp->buf))
					l++;
				if (l == keys.nr)
					strvec_push(&keys, tmp->buf);
				line_of[c] = l;
			}
			struct svg_line *lines = xcalloc(keys.nr, sizeof(*lines));
			struct axis_point *pts = xcalloc(n, sizeof(*pts));
			double *xy = xcalloc(2 * n, sizeof(*xy));
			size_t used = 0;
			for (size_t l = 0; l < keys.nr; l++) {
				size_t np = 0;
				for (size_t c = 0; c < n; c++) {
					if (line_of[c] != l)
						continue;
					const struct metric_series *ms =
					    &br->commands[c].side[SIDE_HEAD].metric[m];
					pts[np].x =
					    strtod(br->commands[c].matrix_values.v[a], NULL);
					pts[np].y = ms->have_summary ? ms->summary.median : NAN;
					np++;
				}
				qsort(pts, np, sizeof(*pts), axis_point_cmp);
				double *x = xy + used, *y = xy + n + used;
				for (size_t i = 0; i < np; i++) {
					x[i] = pts[i].x;
					y[i] = pts[i].y;
				}
				used += np;
				lines[l] = (struct svg_line){keys.v[l], x, y, np};
			}
			if (!opened) {
				sbuf_adds(out, "<section class=\"matrix\"><h3>");
				esc(out, br->name);
				sbuf_adds(out, ": matrix</h3>\n<div class=\"plots\">\n");
				opened = 1;
			}
			sbuf_reset(tmp);
			sbuf_addf(tmp, "%s: %s by %s (median)", br->name, metric_get(m)->name,
				  axes->v[a]);
			char *title = sbuf_detach(tmp);
			svg_axis_plot(out, title, axes->v[a], (enum metric_id)m, lines, keys.nr);
			free(title);
			free(xy);
			free(pts);
			free(lines);
			free(line_of);
			strvec_clear(&keys);
		}
	}
	if (opened)
		sbuf_adds(out, "</div>\n</section>\n");
}

static void env_row(struct sbuf *out, const char *key, const char *v)
{
	if (!v || !*v)
		return;
	sbuf_adds(out, "<tr><th>");
	esc(out, key);
	sbuf_adds(out, "</th><td>");
	esc(out, v);
	sbuf_adds(out, "</td></tr>\n");
}

static void environment(struct sbuf *out, struct sbuf *tmp, const struct run_result *r)
{
	sbuf_adds(out, "<section id=\"environment\"><h2>Environment</h2>\n<table>\n");
	env_row(out, "kagari", KAGARI_VERSION);
	env_row(out, "mode", r->mode);
	sbuf_addf(tmp, "%" PRIu64, r->seed);
	env_row(out, "seed", tmp->buf);
	sbuf_reset(tmp);
	env_row(out, "started", r->started_at);
	env_row(out, "finished", r->finished_at);
	env_row(out, "os", r->env.os);
	env_row(out, "kernel", r->env.kernel);
	env_row(out, "arch", r->env.arch);
	env_row(out, "cpu", r->env.cpu_model);
	if (r->env.logical_cpus > 0)
		sbuf_addf(tmp, "%d", r->env.logical_cpus);
	env_row(out, "logical cpus", tmp->buf);
	sbuf_reset(tmp);
	env_row(out, "ci", r->env.ci ? "yes" : "no");
	env_row(out, "counters", r->env.counters_source);
	if (!isnan(r->env.steal_percent))
		sbuf_addf(tmp, "%.1f%% of CPU time", r->env.steal_percent);
	env_row(out, "hypervisor steal", tmp->buf);
	sbuf_reset(tmp);
	report_git_head_text(tmp, &r->git);
	env_row(out, "git head", tmp->buf);
	sbuf_reset(tmp);
	report_git_base_text(tmp, &r->git);
	env_row(out, "git base", tmp->buf);
	sbuf_reset(tmp);
	report_exit_text(tmp, r);
	env_row(out, "exit code", tmp->buf);
	sbuf_reset(tmp);
	sbuf_adds(out, "</table>\n");
	if (r->warnings.nr) {
		sbuf_adds(out, "<h3>Warnings</h3>\n<ul>\n");
		for (size_t i = 0; i < r->warnings.nr; i++) {
			sbuf_adds(out, "<li>");
			esc(out, r->warnings.v[i]);
			sbuf_adds(out, "</li>\n");
		}
		sbuf_adds(out, "</ul>\n");
	}
	sbuf_adds(out, "</section>\n");
}

/* ---- page -------------------------------------------------------------- */

static void header(struct sbuf *out, struct sbuf *tmp, const struct run_result *r,
		   const struct report_problems *p)
{
	sbuf_adds(out, "<header>\n<h1>kagari ");
	esc(out, r->mode ? r->mode : "run");
	sbuf_adds(out, ": ");
	report_problems_title(tmp, p, r);
	esc_tmp(out, tmp);
	sbuf_adds(out, "</h1>\n<p class=\"meta\">");
	report_status_line(out, r, &html_markup);
	sbuf_adds(out, "</p>\n");
	sbuf_reset(tmp);
	if (report_shard_text(tmp, r)) {
		sbuf_adds(out, "<p class=\"warn\">");
		esc_tmp(out, tmp);
		sbuf_adds(out, "</p>\n");
	}
	if (r->interrupted)
		sbuf_adds(out, "<p class=\"err\">interrupted: the results are "
			       "partial</p>\n");
	sbuf_adds(out, "</header>\n");
}

int report_write_html(const struct run_result *r, const struct report_options *o, struct sbuf *out,
		      struct sbuf *err)
{
	struct report_problems p;
	struct sbuf tmp = SBUF_INIT;
	int compare = run_mode(r) == RUN_MODE_COMPARE;
	size_t idx = 0;
	int open_all;

	(void)o;
	(void)err;
	report_problems_collect(&p, r);
	open_all = (compare ? p.nr_comparisons : p.nr_commands) <= HTML_OPEN_PLOTS;

	struct sbuf title = SBUF_INIT;
	sbuf_addf(&title, "kagari %s: ", r->mode ? r->mode : "run");
	report_problems_title(&title, &p, r);
	html_page_open(out, title.buf, page_css);
	sbuf_release(&title);
	header(out, &tmp, r, &p);
	sbuf_adds(out, "<main>\n");
	summary(out, &tmp, r, &p, compare);
	contents(out, r);
	for (size_t i = 0; i < r->nr_suites; i++) {
		const struct suite_result *s = &r->suites[i];
		sbuf_addf(out, "<section class=\"suite\" id=\"s%zu\">\n<h2>", i);
		esc(out, s->name);
		if (s->file) {
			sbuf_adds(out, " <span class=\"dim\">");
			esc(out, s->file);
			sbuf_adds(out, "</span>");
		}
		sbuf_adds(out, " ");
		result_badge(out, s->result);
		sbuf_adds(out, "</h2>\n");
		for (size_t b = 0; b < s->nr_benches; b++) {
			const struct bench_result *br = &s->benches[b];
			for (size_t k = 0; k < br->nr_commands; k++)
				command_section(out, &tmp, r, &p, br, &br->commands[k], idx++,
						open_all);
			matrix_plots(out, &tmp, br);
		}
		sbuf_adds(out, "</section>\n");
	}
	environment(out, &tmp, r);
	sbuf_adds(out, "</main>\n");
	html_page_close(out);
	report_problems_release(&p);
	sbuf_release(&tmp);
	return 0;
}
