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
static void step_fields(struct sbuf *out, const struct history_series *s,
			const struct history_step *st, const char *const sep[6])
{
	sbuf_adds(out, sep[0]);
	short_sha(out, st->from_sha);
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
		/* differences of consecutive commits: none across a paired step */
		size_t more_commits =
		    s->noise_diffs < STEPS_MIN_PAIRS ? STEPS_MIN_PAIRS - s->noise_diffs : 1;
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

/* A paired comparison's words: "regression +20.7% [+17.7%, +26.3%] (mean
   +19.0% [...]), ci against abc1234567". */
static void comparison_words(struct sbuf *out, const struct history_point *c)
{
	text(out, c->verdict);
	sbuf_addch(out, ' ');
	units_format_change(out, c->change_percent, c->ci_low_percent, c->ci_high_percent);
	if (isfinite(c->mean_change_percent)) {
		sbuf_adds(out, " (mean ");
		units_format_change(out, c->mean_change_percent, c->mean_ci_low_percent,
				    c->mean_ci_high_percent);
		sbuf_addch(out, ')');
	}
	if (isfinite(c->max_percent))
		sbuf_addf(out, ", tolerance %g%%", c->max_percent);
	sbuf_adds(out, ", ");
	text(out, c->kind);
	if (c->base_sha) {
		sbuf_adds(out, " against ");
		short_sha(out, c->base_sha);
	}
}

static void step_line(struct sbuf *out, const struct history_series *s,
		      const struct history_step *st)
{
	static const char *const sep[6] = {"", " → ", "  ", "  (", " → ", ")"};

	step_fields(out, s, st, sep);
	if (st->evidence == HISTORY_EVIDENCE_PAIRED) {
		sbuf_adds(out, "  paired: ");
		comparison_words(out, st->cmp);
	}
}

/* The commits whose last comparison marked a change, one line each; md:
   as a Markdown list, the words escaped. */
static void verdict_lines(struct sbuf *out, const struct history_series *s, int md)
{
	struct sbuf w = SBUF_INIT;
	for (size_t q = 0; q < s->nr; q++) {
		const struct history_commit *c = &s->pts[q];
		if (!c->nr_cmps || !history_verdict_is_change(c->cmps[c->nr_cmps - 1]->verdict))
			continue;
		sbuf_reset(&w);
		comparison_words(&w, c->cmps[c->nr_cmps - 1]);
		sbuf_adds(out, md ? "- at `" : "  verdict at ");
		short_sha(out, c->sha);
		sbuf_adds(out, md ? "`: " : ": ");
		if (md)
			report_md_escape(out, w.buf);
		else
			sbuf_add(out, w.buf, w.len);
		sbuf_addch(out, '\n');
	}
	sbuf_release(&w);
}

/* "2 regressions, 1 improvement" over the commits' last comparisons;
   nothing when none. */
static void verdict_counts(struct sbuf *out, const struct history_series *s)
{
	const char *sep = "";
	if (s->nr_regressions)
		sbuf_addf(out, "%zu regression%s", s->nr_regressions,
			  s->nr_regressions == 1 ? "" : "s"),
		    sep = ", ";
	if (s->nr_improvements)
		sbuf_addf(out, "%s%zu improvement%s", sep, s->nr_improvements,
			  s->nr_improvements == 1 ? "" : "s"),
		    sep = ", ";
	if (s->nr_accepted)
		sbuf_addf(out, "%s%zu accepted", sep, s->nr_accepted);
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
		verdict_lines(out, s, 0);
	}
}

/* One paired comparison as JSON (docs/contract.md, the history JSON). */
static void comparison_json(struct json_emit *j, const struct history_point *c)
{
	json_emit_begin_object_inline(j);
	json_emit_kv_int(j, "run", c->run);
	json_emit_kv_string(j, "time", c->time);
	json_emit_kv_string(j, "kind", c->kind);
	json_emit_kv_string(j, "base_sha", c->base_sha);
	json_emit_kv_string(j, "base_ref", c->base_ref);
	json_emit_kv_string(j, "verdict", c->verdict);
	json_emit_kv_double(j, "change_percent", c->change_percent);
	json_emit_kv_double(j, "ci_low_percent", c->ci_low_percent);
	json_emit_kv_double(j, "ci_high_percent", c->ci_high_percent);
	json_emit_kv_double(j, "mean_change_percent", c->mean_change_percent);
	json_emit_kv_double(j, "mean_ci_low_percent", c->mean_ci_low_percent);
	json_emit_kv_double(j, "mean_ci_high_percent", c->mean_ci_high_percent);
	json_emit_kv_double(j, "p_value", c->p_value);
	json_emit_kv_double(j, "max_percent", c->max_percent);
	json_emit_key(j, "gate");
	if (c->gate >= 0)
		json_emit_bool(j, c->gate);
	else
		json_emit_null(j);
	json_emit_end_object(j);
}

/* A series' points (with their comparisons) and steps as JSON. */
static void series_points_steps_json(struct json_emit *j, const struct history_series *s)
{
	json_emit_key(j, "points");
	json_emit_begin_array(j);
	for (size_t q = 0; q < s->nr; q++) {
		json_emit_begin_object_inline(j);
		json_emit_kv_string(j, "sha", s->pts[q].sha);
		json_emit_kv_string(j, "time", s->pts[q].time);
		json_emit_kv_double(j, "median", s->pts[q].median);
		json_emit_kv_double(j, "low", s->pts[q].low);
		json_emit_kv_double(j, "high", s->pts[q].high);
		json_emit_kv_int(j, "runs", (int64_t)s->pts[q].runs);
		json_emit_key(j, "comparisons");
		json_emit_begin_array(j);
		for (size_t k = 0; k < s->pts[q].nr_cmps; k++)
			comparison_json(j, s->pts[q].cmps[k]);
		json_emit_end_array(j);
		json_emit_end_object(j);
	}
	json_emit_end_array(j);
	json_emit_key(j, "steps");
	json_emit_begin_array(j);
	for (size_t k = 0; k < s->nr_steps; k++) {
		const struct history_step *st = &s->steps[k];
		int paired = st->evidence == HISTORY_EVIDENCE_PAIRED;
		json_emit_begin_object_inline(j);
		json_emit_kv_string(j, "from_sha", st->from_sha);
		json_emit_kv_string(j, "to_sha", s->pts[st->at].sha);
		json_emit_kv_double(j, "before", st->before);
		json_emit_kv_double(j, "after", st->after);
		json_emit_kv_double(j, "change_percent", st->change_percent);
		json_emit_kv_string(j, "evidence", paired ? "paired" : "series");
		json_emit_kv_string(j, "verdict", paired ? st->cmp->verdict : NULL);
		json_emit_kv_double(j, "ci_low_percent", paired ? st->cmp->ci_low_percent : NAN);
		json_emit_kv_double(j, "ci_high_percent", paired ? st->cmp->ci_high_percent : NAN);
		json_emit_key(j, "run");
		if (paired)
			json_emit_int(j, st->cmp->run);
		else
			json_emit_null(j);
		json_emit_end_object(j);
	}
	json_emit_end_array(j);
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
		series_points_steps_json(&j, s);
		json_emit_key(&j, "verdicts");
		json_emit_begin_object_inline(&j);
		json_emit_kv_int(&j, "regression", (int64_t)s->nr_regressions);
		json_emit_kv_int(&j, "improved", (int64_t)s->nr_improvements);
		json_emit_kv_int(&j, "accepted", (int64_t)s->nr_accepted);
		json_emit_end_object(&j);
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
			sbuf_adds(out, "Steps:\n\n| from | to | change | before | after | evidence "
				       "|\n|---|---|---:|---:|---:|---|\n");
		for (size_t k = 0; k < s->nr_steps; k++) {
			static const char *const row[6] = {"| `", "` | `", "` | ",
							   " | ", " | ",   " | "};
			const struct history_step *st = &s->steps[k];
			step_fields(out, s, st, row);
			if (st->evidence == HISTORY_EVIDENCE_PAIRED) {
				struct sbuf w = SBUF_INIT;
				sbuf_adds(&w, "paired: ");
				comparison_words(&w, st->cmp);
				report_md_escape(out, w.buf);
				sbuf_release(&w);
			} else {
				sbuf_adds(out, "series");
			}
			sbuf_adds(out, " |\n");
		}
		if (s->nr_regressions + s->nr_improvements + s->nr_accepted) {
			sbuf_adds(out, "\nVerdicts (");
			verdict_counts(out, s);
			sbuf_adds(out, "):\n\n");
			verdict_lines(out, s, 1);
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
		/* the paired verdicts that marked a change, as the table's lines */
		struct sbuf vl = SBUF_INIT;
		verdict_lines(&vl, s, 0);
		for (char *line = vl.buf, *eol; line && *line; line = eol + 1) {
			if (!(eol = strchr(line, '\n')))
				break;
			*eol = '\0';
			sbuf_adds(out, "<li class=\"verdict\">");
			report_html_escape(out, line + 2, 0); /* without the table's indent */
			sbuf_adds(out, "</li>\n");
		}
		sbuf_release(&vl);
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

/* A Markdown commit: [`abc1234567`](url), or `abc1234567` without a link. */
static void md_commit(struct sbuf *out, const char *sha, const char *url)
{
	sbuf_adds(out, url ? "[`" : "`");
	short_sha(out, sha);
	sbuf_adds(out, url ? "`](" : "`");
	if (url) {
		/* the link is kagari's own (a template and a hex id) */
		sbuf_adds(out, url);
		sbuf_addch(out, ')');
	}
}

void report_history_check_markdown(struct sbuf *out, const struct history_view *h,
				   const struct history_check_view *c)
{
	struct sbuf w = SBUF_INIT;
	if (!c->nr) {
		sbuf_adds(out, "kagari history check: no step or paired regression beyond the "
			       "tolerance in ");
		text(out, c->since);
		sbuf_addf(out, "..HEAD (%zu commit%s; %lld runs recorded)\n", c->nr_commits,
			  c->nr_commits == 1 ? "" : "s", (long long)h->runs);
		return;
	}
	sbuf_addf(out, "## kagari: %zu performance regression%s in ", c->nr, c->nr == 1 ? "" : "s");
	sbuf_adds(out, "`");
	text(out, c->since);
	sbuf_adds(out, "..");
	short_sha(out, c->head);
	sbuf_addf(out,
		  "`\n\n%zu commit%s checked against the history (%lld runs). Each row is "
		  "a step — a paired comparison of the commit with its base, or a level "
		  "change of the series — or a paired regression, beyond the tolerance "
		  "and in the worse direction.\n\n",
		  c->nr_commits, c->nr_commits == 1 ? "" : "s", (long long)h->runs);
	sbuf_adds(out, "| commit | benchmark | metric | change | interval | evidence | machine "
		       "|\n|---|---|---|---:|---|---|---|\n");
	for (size_t i = 0; i < c->nr; i++) {
		const struct history_alert *a = &c->v[i];
		const struct history_series *s = a->s;
		sbuf_adds(out, "| ");
		md_commit(out, a->c->sha, a->url);
		if (a->subject) {
			sbuf_addch(out, ' ');
			sbuf_reset(&w);
			text(&w, a->subject);
			report_md_escape(out, w.buf);
		}
		sbuf_adds(out, " | ");
		sbuf_reset(&w);
		text(&w, s->key->suite);
		sbuf_adds(&w, " / ");
		text(&w, s->key->benchmark);
		sbuf_adds(&w, " / ");
		text(&w, s->key->command);
		report_md_escape(out, w.buf);
		sbuf_adds(out, " | ");
		text(out, s->key->metric);
		sbuf_adds(out, " | ");
		const struct history_point *p = a->cmp;
		double change = a->step ? a->step->change_percent : p->change_percent;
		units_format_percent(out, change);
		if (a->step) {
			sbuf_adds(out, " (");
			units_format_value(out, s->metric, a->step->before);
			sbuf_adds(out, " → ");
			units_format_value(out, s->metric, a->step->after);
			sbuf_adds(out, ")");
		}
		sbuf_adds(out, " | ");
		if (p && isfinite(p->ci_low_percent)) {
			sbuf_reset(&w);
			units_format_change(&w, p->change_percent, p->ci_low_percent,
					    p->ci_high_percent);
			/* the interval alone: what follows the change */
			const char *br = strchr(w.buf, '[');
			sbuf_adds(out, br ? br : w.buf);
		} else {
			sbuf_adds(out, "—");
		}
		sbuf_adds(out, " | ");
		if (p) {
			sbuf_adds(out, a->step ? "paired step: " : "paired: ");
			text(out, p->verdict);
			sbuf_adds(out, ", ");
			text(out, p->kind);
			if (p->base_sha) {
				sbuf_adds(out, " against ");
				md_commit(out, p->base_sha, a->from_url);
			}
		} else {
			sbuf_adds(out, "series step after ");
			md_commit(out, a->step->from_sha, a->from_url);
		}
		if (isfinite(a->tolerance))
			sbuf_addf(out, " (tolerance %g%%)", a->tolerance);
		sbuf_adds(out, " | `");
		text(out, s->key->fingerprint);
		sbuf_adds(out, "` |\n");
	}
	if (c->no_links) {
		sbuf_adds(out, "\nCommits are not links: ");
		text(out, c->no_links);
		sbuf_adds(out, ".\n");
	}
	sbuf_adds(out, "\n`kagari history` shows each series with its steps and verdicts; "
		       "`kagari bisect` finds the commit of a step within a range.\n");
	sbuf_release(&w);
}
