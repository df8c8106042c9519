/* report/write_aa: `kagari aa`'s JSON, table and HTML page (see aa.h). */
#include "report/aa.h"

#include <math.h>

#include "report/html_page.h"
#include "report/json_emit.h"
#include "report/svg.h"

static void num_or_null(struct json_emit *j, const char *key, double v)
{
	if (isfinite(v))
		json_emit_kv_double(j, key, v);
	else
		json_emit_kv_null(j, key);
}

void report_aa_json(struct sbuf *out, const struct aa_survey *st)
{
	struct json_emit j;
	json_emit_init(&j, out, 1);
	json_emit_begin_object(&j);
	json_emit_kv_string(&j, "schema_version", "1");
	json_emit_kv_string(&j, "mode", "aa");
	json_emit_kv_int(&j, "repeat", st->measured);
	json_emit_kv_int(&j, "seed", (int64_t)st->seed);
	json_emit_key(&j, "rule");
	json_emit_string(&j, "smallest T with no false verdict and p95(|change|) < T/2");
	json_emit_key(&j, "recommendations");
	json_emit_begin_array(&j);
	for (size_t k = 0; k < st->nr; k++) {
		const struct aa_row *row = &st->rows[k];
		json_emit_begin_object(&j);
		json_emit_kv_string(&j, "suite", row->suite);
		json_emit_kv_string(&j, "benchmark", row->benchmark);
		json_emit_kv_string(&j, "command", row->command);
		json_emit_kv_string(&j, "metric", metric_get(row->metric)->name);
		if (row->recommended >= 0)
			json_emit_kv_double(&j, "min_tolerance_percent",
					    AA_TOLERANCES[row->recommended]);
		else
			json_emit_kv_null(&j, "min_tolerance_percent");
		json_emit_kv_int(&j, "compares", (int64_t)row->n);
		if (row->have_value && !row->varied)
			json_emit_kv_bool(&j, "deterministic", 1);
		json_emit_key(&j, "change_percent");
		json_emit_begin_object(&j);
		num_or_null(&j, "median", row->median);
		num_or_null(&j, "p5", row->p5);
		num_or_null(&j, "p95", row->p95);
		num_or_null(&j, "p95_abs", row->p95_abs);
		json_emit_key(&j, "values");
		json_emit_begin_array(&j);
		for (size_t i = 0; i < row->n; i++)
			json_emit_double(&j, row->change[i]);
		json_emit_end_array(&j);
		json_emit_end_object(&j);
		json_emit_key(&j, "false_verdicts");
		json_emit_begin_array(&j);
		for (size_t t = 0; t < AA_NR_TOL; t++) {
			json_emit_begin_object_inline(&j);
			json_emit_kv_double(&j, "tolerance_percent", AA_TOLERANCES[t]);
			json_emit_kv_int(&j, "count", row->false_at[t]);
			json_emit_end_object(&j);
		}
		json_emit_end_array(&j);
		json_emit_end_object(&j);
	}
	json_emit_end_array(&j);
	json_emit_end_object(&j);
	json_emit_finish(&j);
	sbuf_addch(out, '\n');
}

static void add_percent(struct sbuf *out, double v)
{
	if (isfinite(v))
		sbuf_addf(out, "%+.1f%%", v);
	else
		sbuf_adds(out, "-");
}

void report_aa_table(struct sbuf *out, const struct aa_survey *st)
{
	sbuf_addf(out, "A/A: %d compare%s of the working tree against itself (seed %llu)\n\n",
		  st->measured, st->measured == 1 ? "" : "s", (unsigned long long)st->seed);
	sbuf_adds(out, "benchmark/command metric       median      p5     p95   false at T=");
	for (size_t t = 0; t < AA_TABLE_TOL; t++)
		sbuf_addf(out, "%g%%%s", AA_TOLERANCES[t], t + 1 < AA_TABLE_TOL ? "," : "");
	sbuf_adds(out, "   resolves\n");
	struct sbuf cell = SBUF_INIT;
	int any_exact = 0;
	for (size_t k = 0; k < st->nr; k++) {
		const struct aa_row *row = &st->rows[k];
		sbuf_reset(&cell);
		sbuf_addf(&cell, "%s/%s", row->benchmark, row->command);
		sbuf_addf(out, "%-17s %-12s", cell.buf, metric_get(row->metric)->name);
		const double v[3] = {row->median, row->p5, row->p95};
		for (int q = 0; q < 3; q++) {
			sbuf_reset(&cell);
			add_percent(&cell, v[q]);
			sbuf_addf(out, " %7s", cell.buf);
		}
		sbuf_reset(&cell);
		for (size_t t = 0; t < AA_TABLE_TOL; t++)
			sbuf_addf(&cell, "%d%s", row->false_at[t], t + 1 < AA_TABLE_TOL ? " " : "");
		sbuf_addf(out, "   %-20s ", cell.buf);
		if (row->recommended >= 0)
			sbuf_addf(out, "±%g%%", AA_TOLERANCES[row->recommended]);
		else
			sbuf_adds(out, "none up to 50%");
		if (row->have_value && !row->varied) {
			sbuf_adds(out, "  deterministic");
			any_exact = 1;
		}
		sbuf_addch(out, '\n');
	}
	if (!st->nr)
		sbuf_adds(out, "(no gated comparison was measured)\n");
	sbuf_adds(out, "\nresolves: the smallest tolerance with no false verdict whose 95th "
		       "percentile of |change| is below half of it; set regression.max_percent (or "
		       "a metric's) at least that high.\n");
	if (any_exact)
		sbuf_adds(out,
			  "deterministic: every run of every compare gave the same value here; "
			  "such a metric decides any change at all, under any load.\n");
	sbuf_release(&cell);
}

void report_aa_html(struct sbuf *out, const struct aa_survey *st)
{
	html_page_open(out, "kagari aa",
		       "body{font:14px system-ui,sans-serif;margin:24px}\n"
		       "table{border-collapse:collapse}td,th{padding:2px 8px;text-align:right}\n"
		       "td:first-child,th:first-child{text-align:left}\n"
		       ".plots{display:flex;flex-wrap:wrap}\n");
	sbuf_addf(out,
		  "<h1>kagari aa</h1>\n<p>%d A/A compares of the working tree against itself: "
		  "every measured change is noise, every regression or improved verdict is false. "
		  "A metric resolves the smallest tolerance with no false verdict whose 95th "
		  "percentile of |change| is below half of it.</p>\n",
		  st->measured);
	sbuf_adds(out, "<table><tr><th>benchmark/command</th><th>metric</th><th>median</th><th>p5</"
		       "th><th>p95</th>");
	for (size_t t = 0; t < AA_TABLE_TOL; t++)
		sbuf_addf(out, "<th>false at %g%%</th>", AA_TOLERANCES[t]);
	sbuf_adds(out, "<th>resolves</th></tr>\n");
	for (size_t k = 0; k < st->nr; k++) {
		const struct aa_row *row = &st->rows[k];
		sbuf_adds(out, "<tr><td>");
		report_html_escape(out, row->benchmark, 0);
		sbuf_addch(out, '/');
		report_html_escape(out, row->command, 0);
		sbuf_addf(out, "</td><td>%s</td>", metric_get(row->metric)->name);
		const double v[3] = {row->median, row->p5, row->p95};
		for (int q = 0; q < 3; q++) {
			sbuf_adds(out, "<td>");
			add_percent(out, v[q]);
			sbuf_adds(out, "</td>");
		}
		for (size_t t = 0; t < AA_TABLE_TOL; t++)
			sbuf_addf(out, "<td>%d</td>", row->false_at[t]);
		if (row->recommended >= 0)
			sbuf_addf(out, "<td>±%g%%", AA_TOLERANCES[row->recommended]);
		else
			sbuf_adds(out, "<td>none up to 50%");
		sbuf_adds(out, row->have_value && !row->varied ? " (deterministic)</td></tr>\n"
							       : "</td></tr>\n");
	}
	sbuf_adds(out, "</table>\n<div class=\"plots\">\n");
	struct sbuf title = SBUF_INIT;
	for (size_t k = 0; k < st->nr; k++) {
		const struct aa_row *row = &st->rows[k];
		sbuf_reset(&title);
		sbuf_addf(&title, "%s/%s %s: A/A change per compare", row->benchmark, row->command,
			  metric_get(row->metric)->name);
		svg_aa_plot(out, title.buf, row->change, row->n, AA_TOLERANCES, AA_TABLE_TOL);
		sbuf_addch(out, '\n');
	}
	sbuf_release(&title);
	sbuf_adds(out, "</div>\n");
	html_page_close(out);
}
