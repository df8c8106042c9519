/*
 * report/write_history: `kagari history`'s table, JSON, Markdown and HTML
 * page over its series (report/history.h).
 */
#include "report/history.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "analyze/format.h"
#include "base/xalloc.h"
#include "report/escape.h"
#include "report/html_page.h"
#include "report/json_emit.h"
#include "report/section.h"
#include "report/svg.h"

/* Is v[i] the first series of another machine (where their heading goes)? */
static int first_of_others(const struct history_series *v, size_t i)
{
	return !v[i].this_machine && (i == 0 || v[i - 1].this_machine);
}

/*
 * Every string of a series comes from the history, and a history holds
 * what the history branch brought (anyone's): its control characters are
 * escaped (sbuf_add_escaped(): \n, \x1b), so that no name, commit or CPU
 * model starts a line of its own — a terminal escape, or a CI runner's
 * `::error::` — in the table or the Markdown. No line of the table starts
 * with such a string: each follows fixed text or the suite's own name.
 */
static void text(struct sbuf *out, const char *s)
{
	sbuf_add_escaped(out, s ? s : "?");
}

static void short_sha(struct sbuf *out, const char *sha)
{
	char *s = xstrndup(sha, strnlen(sha, 10));
	text(out, s);
	free(s);
}

static void series_name(struct sbuf *out, const struct history_series *s)
{
	text(out, s->key->suite);
	sbuf_adds(out, " / ");
	text(out, s->key->benchmark);
	sbuf_adds(out, " / ");
	text(out, s->key->command);
	sbuf_adds(out, " — ");
	text(out, s->key->metric);
}

/*
 * A step's five fields (from, to, change, before, after), each preceded by
 * its separator in sep[0..4] and the last followed by sep[5]: one order of
 * fields for the text line and the Markdown row.
 */
static void step_fields(struct sbuf *out, const struct history_series *s, const struct step *st,
			const char *const sep[6])
{
	sbuf_adds(out, sep[0]);
	short_sha(out, s->pts[st->at - 1].sha);
	sbuf_adds(out, sep[1]);
	short_sha(out, s->pts[st->at].sha);
	sbuf_adds(out, sep[2]);
	units_format_percent(out, st->change_percent);
	sbuf_adds(out, sep[3]);
	units_format_value(out, s->metric, st->before);
	sbuf_adds(out, sep[4]);
	units_format_value(out, s->metric, st->after);
	sbuf_adds(out, sep[5]);
}

/* report/history.h; the words are docs/history.md's. */
void report_history_noise_line(struct sbuf *out, const struct history_series *s, double detect)
{
	double level = s->nr ? fabs(history_series_latest(s)->median) : 0;
	if (isnan(s->noise)) {
		/* Too few runs to tell the noise: say what would tell it. */
		size_t more_runs = STEPS_MIN_PAIRS - s->noise_pairs;
		size_t more_commits = STEPS_MIN_PAIRS + 1 - s->noise_pts;
		sbuf_addf(
		    out,
		    "noise of one run unknown (%zu commit%s, %zu run%s): %zu more run%s of a "
		    "commit or %zu more commit%s would tell it, and the runs a %g%% step needs",
		    s->noise_pts, s->noise_pts == 1 ? "" : "s", s->noise_pts + s->noise_pairs,
		    s->noise_pts + s->noise_pairs == 1 ? "" : "s", more_runs,
		    more_runs == 1 ? "" : "s", more_commits, more_commits == 1 ? "" : "s", detect);
		return;
	}
	if (!(level > 0)) {
		sbuf_addf(
		    out,
		    "the latest value is 0: no noise in percent, and no %g%% step of it to find",
		    detect);
		return;
	}
	sbuf_addf(out, "noise of one run ±%.1f%%", s->noise / level * 100);
	if (s->between > 0)
		sbuf_addf(out, ", between sessions ±%.1f%%", s->between / level * 100);
	if (s->runs_needed == STEPS_RUNS_NEVER)
		sbuf_addf(out,
			  "; no number of runs per commit finds a %g%% step: the noise between "
			  "sessions alone makes it more than %.1f%% (",
			  detect, STEPS_DETECT_RATIO * s->between / level * 100);
	else
		sbuf_addf(out, "; a %g%% step needs %zu run%s per commit to be found (", detect,
			  s->runs_needed, s->runs_needed == 1 ? "" : "s");
	if (s->min_runs == s->max_runs)
		sbuf_addf(out, "these have %zu)", s->min_runs);
	else
		sbuf_addf(out, "these have %zu-%zu)", s->min_runs, s->max_runs);
}

static void step_line(struct sbuf *out, const struct history_series *s, const struct step *st)
{
	static const char *const sep[6] = {"", " → ", "  ", "  (", " → ", ")"};

	step_fields(out, s, st, sep);
}

void report_history_table(struct sbuf *out, const struct history_view *h)
{
	const struct history_series *v = h->set->v;
	size_t nr = h->set->nr;
	const char *db = h->database, *fp = h->machine;
	int64_t runs = h->runs;
	double detect = h->detect;

	sbuf_addf(out, "history %s: %lld run%s; this machine %s\n", db, (long long)runs,
		  runs == 1 ? "" : "s", fp);
	if (!nr || !v[0].this_machine)
		sbuf_adds(out, "\nno series of this machine for the selected benchmarks\n");
	for (size_t i = 0; i < nr; i++) {
		const struct history_series *s = &v[i];
		if (first_of_others(v, i))
			sbuf_adds(out, "\nother machines (apart, never mixed with this one):\n");
		sbuf_addch(out, '\n');
		series_name(out, s);
		if (!s->this_machine) {
			sbuf_adds(out, "  [machine ");
			text(out, s->key->fingerprint);
			sbuf_adds(out, ", ");
			text(out, s->key->cpu_model);
			sbuf_adds(out, "]");
		}
		sbuf_addf(out, "\n  %zu commit%s, ", s->nr, s->nr == 1 ? "" : "s");
		short_sha(out, s->pts[0].sha);
		sbuf_adds(out, " .. ");
		short_sha(out, s->pts[s->nr - 1].sha);
		sbuf_adds(out, ", latest ");
		const struct history_commit *last = history_series_latest(s);
		units_format_value(out, s->metric, last->median);
		if (last->runs > 1) {
			sbuf_adds(out, " [");
			units_format_value(out, s->metric, last->low);
			sbuf_adds(out, " … ");
			units_format_value(out, s->metric, last->high);
			sbuf_addf(out, ", %zu runs]", last->runs);
		}
		sbuf_adds(out, "\n  ");
		report_history_noise_line(out, s, detect);
		sbuf_addch(out, '\n');
		if (!s->nr_steps)
			sbuf_adds(out, "  no steps\n");
		for (size_t k = 0; k < s->nr_steps; k++) {
			sbuf_adds(out, "  step ");
			step_line(out, s, &s->steps[k]);
			sbuf_addch(out, '\n');
		}
	}
}

void report_history_json(struct sbuf *out, const struct history_view *h)
{
	const struct history_series *v = h->set->v;
	size_t nr = h->set->nr;
	double detect = h->detect;
	struct json_emit j;
	json_emit_init(&j, out, 1);
	json_emit_begin_object(&j);
	json_emit_kv_string(&j, "schema_version", "1");
	json_emit_kv_string(&j, "database", h->database);
	json_emit_kv_string(&j, "machine", h->machine);
	json_emit_kv_int(&j, "runs", h->runs);
	json_emit_key(&j, "series");
	json_emit_begin_array(&j);
	for (size_t i = 0; i < nr; i++) {
		const struct history_series *s = &v[i];
		json_emit_begin_object(&j);
		json_emit_kv_string(&j, "suite", s->key->suite);
		json_emit_kv_string(&j, "benchmark", s->key->benchmark);
		json_emit_kv_string(&j, "command", s->key->command);
		json_emit_kv_string(&j, "metric", s->key->metric);
		json_emit_kv_string(&j, "unit", metric_get(s->metric)->unit_name);
		json_emit_kv_string(&j, "machine", s->key->fingerprint);
		json_emit_key(&j, "this_machine");
		json_emit_bool(&j, s->this_machine);
		json_emit_kv_string(&j, "cpu_model", s->key->cpu_model);
		double level = s->nr ? fabs(history_series_latest(s)->median) : 0;
		if (isnan(s->noise))
			level = 0; /* unknown: every estimate null */
		json_emit_key(&j, "noise_percent");
		if (level > 0)
			json_emit_double(&j, s->noise / level * 100);
		else
			json_emit_null(&j);
		json_emit_key(&j, "between_percent");
		if (level > 0)
			json_emit_double(&j, s->between / level * 100);
		else
			json_emit_null(&j);
		json_emit_key(&j, "detect");
		json_emit_begin_object_inline(&j);
		json_emit_kv_double(&j, "step_percent", detect);
		json_emit_key(&j, "runs_per_commit");
		if (level > 0 && s->runs_needed != STEPS_RUNS_NEVER)
			json_emit_int(&j, (int64_t)s->runs_needed);
		else
			json_emit_null(&j);
		/* The least step any number of runs finds: 5 tau. */
		json_emit_key(&j, "min_step_percent");
		if (level > 0)
			json_emit_double(&j, STEPS_DETECT_RATIO * s->between / level * 100);
		else
			json_emit_null(&j);
		json_emit_end_object(&j);
		json_emit_key(&j, "points");
		json_emit_begin_array(&j);
		for (size_t q = 0; q < s->nr; q++) {
			json_emit_begin_object_inline(&j);
			json_emit_kv_string(&j, "sha", s->pts[q].sha);
			json_emit_kv_string(&j, "time", s->pts[q].time);
			json_emit_kv_double(&j, "median", s->pts[q].median);
			json_emit_kv_double(&j, "low", s->pts[q].low);
			json_emit_kv_double(&j, "high", s->pts[q].high);
			json_emit_kv_int(&j, "runs", (int64_t)s->pts[q].runs);
			json_emit_end_object(&j);
		}
		json_emit_end_array(&j);
		json_emit_key(&j, "steps");
		json_emit_begin_array(&j);
		for (size_t k = 0; k < s->nr_steps; k++) {
			const struct step *st = &s->steps[k];
			json_emit_begin_object_inline(&j);
			json_emit_kv_string(&j, "from_sha", s->pts[st->at - 1].sha);
			json_emit_kv_string(&j, "to_sha", s->pts[st->at].sha);
			json_emit_kv_double(&j, "before", st->before);
			json_emit_kv_double(&j, "after", st->after);
			json_emit_kv_double(&j, "change_percent", st->change_percent);
			json_emit_end_object(&j);
		}
		json_emit_end_array(&j);
		json_emit_end_object(&j);
	}
	json_emit_end_array(&j);
	json_emit_end_object(&j);
	json_emit_finish(&j);
}

void report_history_markdown(struct sbuf *out, const struct history_view *h)
{
	const struct history_series *v = h->set->v;
	size_t nr = h->set->nr;
	const char *fp = h->machine;
	double detect = h->detect;

	sbuf_addf(out, "## kagari history\n\nThis machine: `%s`.\n", fp);
	for (size_t i = 0; i < nr; i++) {
		const struct history_series *s = &v[i];
		if (first_of_others(v, i))
			sbuf_adds(out, "\n## Other machines\n\nShown apart, never mixed with this "
				       "machine's series.\n");
		sbuf_adds(out, "\n### ");
		/* names are the user's: escaped, as every Markdown writer does */
		struct sbuf name = SBUF_INIT;
		series_name(&name, s);
		report_md_escape(out, name.buf);
		sbuf_release(&name);
		if (!s->this_machine) {
			sbuf_adds(out, " (machine `");
			text(out, s->key->fingerprint);
			sbuf_adds(out, "`)");
		}
		sbuf_addf(out, "\n\n%zu commits; ", s->nr);
		report_history_noise_line(out, s, detect);
		sbuf_adds(out, ". ");
		if (!s->nr_steps)
			sbuf_adds(out, "No steps.\n");
		else
			sbuf_adds(out, "Steps:\n\n| from | to | change | before | after "
				       "|\n|---|---|---:|---:|---:|\n");
		for (size_t k = 0; k < s->nr_steps; k++) {
			static const char *const row[6] = {"| `", "` | `", "` | ",
							   " | ", " | ",   " |\n"};

			step_fields(out, s, &s->steps[k], row);
		}
	}
}

void report_history_html(struct sbuf *out, const struct history_view *h)
{
	const struct history_series *v = h->set->v;
	size_t nr = h->set->nr;
	const char *fp = h->machine;
	double detect = h->detect;

	html_page_open(out, "kagari history", "body{font:14px system-ui,sans-serif;margin:24px}\n");
	sbuf_adds(out, "<h1>kagari history</h1>\n<p>This machine: <code>");
	report_html_escape(out, fp, 0);
	sbuf_adds(out, "</code></p>\n");
	struct sbuf title = SBUF_INIT;
	for (size_t i = 0; i < nr; i++) {
		const struct history_series *s = &v[i];
		if (first_of_others(v, i))
			sbuf_adds(out, "<h2>Other machines</h2>\n<p>Shown apart, never mixed with "
				       "this machine's series.</p>\n");
		sbuf_reset(&title);
		series_name(&title, s);
		if (!s->this_machine) {
			sbuf_adds(&title, " (machine ");
			text(&title, s->key->fingerprint);
			sbuf_adds(&title, ")");
		}
		sbuf_adds(out, "<section><h3>");
		report_html_escape(out, title.buf, 0);
		sbuf_adds(out, "</h3>\n");
		double *y = xcalloc(s->nr, sizeof(*y));
		double *lo = xcalloc(s->nr, sizeof(*lo)), *hi = xcalloc(s->nr, sizeof(*hi));
		char **lab = xcalloc(s->nr, sizeof(*lab));
		size_t *at = xcalloc(s->nr_steps + 1, sizeof(*at));
		for (size_t q = 0; q < s->nr; q++) {
			y[q] = s->pts[q].median;
			lo[q] = s->pts[q].low;
			hi[q] = s->pts[q].high;
			lab[q] = xstrndup(s->pts[q].sha, 10);
		}
		for (size_t k = 0; k < s->nr_steps; k++)
			at[k] = s->steps[k].at;
		svg_trend_plot(out, title.buf, s->metric, y, lo, hi, s->nr,
			       (const char *const *)lab, at, s->nr_steps);
		struct sbuf nl = SBUF_INIT;
		report_history_noise_line(&nl, s, detect);
		if (nl.len) {
			sbuf_adds(out, "<p class=\"noise\">");
			report_html_escape(out, nl.buf, 0);
			sbuf_adds(out, "</p>\n");
		}
		sbuf_release(&nl);
		sbuf_adds(out, "<ul>\n");
		if (!s->nr_steps)
			sbuf_adds(out, "<li>no steps</li>\n");
		for (size_t k = 0; k < s->nr_steps; k++) {
			struct sbuf t = SBUF_INIT;
			step_line(&t, s, &s->steps[k]);
			sbuf_adds(out, "<li class=\"step\">step ");
			report_html_escape(out, t.buf, 0);
			sbuf_adds(out, "</li>\n");
			sbuf_release(&t);
		}
		sbuf_adds(out, "</ul></section>\n");
		for (size_t q = 0; q < s->nr; q++)
			free(lab[q]);
		free(lab);
		free(y);
		free(lo);
		free(hi);
		free(at);
	}
	sbuf_release(&title);
	html_page_close(out);
}
