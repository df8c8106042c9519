/*
 * report/describe: what a report says about a value, a comparison and a
 * budget, worded once for every writer. The human formats (table,
 * markdown, github, html, junit, the GitHub annotations and step summary)
 * take these texts and add only their own markup — escaping, cells,
 * colours, elements — so that a change reads the same wherever it is
 * shown, the way hyperfine's exporters share one description of a
 * benchmark and differ only in layout.
 *
 * Every text is raw: user text (a work unit, a budget as written) is put
 * in as it is, and the writer escapes the result for its format
 * (report_md_escape(), report_html_escape(), the table's sanitising).
 * Each function appends to `out` and keeps nothing.
 */
#ifndef KAGARI_REPORT_DESCRIBE_H
#define KAGARI_REPORT_DESCRIBE_H

#include "base/sbuf.h"
#include "model/result.h"

/* ---- the run ------------------------------------------------------------ */

/*
 * The base's ref as a report shows it beside the sha: NULL when it says
 * nothing the sha does not (no ref, or the sha itself or an abbreviation of
 * it, as `ci` gets from an event), else the ref. So a header reads
 * "base main (0acd445dea07)" or "base 0acd445dea07", never the sha twice.
 */
const char *report_base_ref_shown(const struct git_info *g);

/*
 * The environment's git rows, with whole shas: the head's sha, then
 * " + uncommitted changes" when its tree was dirty (nothing without a head
 * sha); the base as "main (SHA)", or the sha alone when the ref says
 * nothing more (nothing without a base).
 */
void report_git_head_text(struct sbuf *out, const struct git_info *g);
void report_git_base_text(struct sbuf *out, const struct git_info *g);

/* "1 (1 gated regression found)": the exit code and why. */
void report_exit_text(struct sbuf *out, const struct run_result *r);

/*
 * How a writer marks up the parts of the status line: `text` appends user
 * text (a ref, a sha, the exit reason) escaped for its format
 * (report_md_escape(), the HTML escaper, the table's sanitising); a ref is
 * put between ref_open and ref_close ("**", "<b>"), a sha between
 * sha_open and sha_close ("<code>"); NULL puts nothing.
 */
struct report_markup {
	void (*text)(struct sbuf *out, const char *s);
	const char *ref_open, *ref_close;
	const char *sha_open, *sha_close;
};

/*
 * The revisions a report compares: "base main (0acd445dea07) → head
 * 1b2c3d4e5f60 + uncommitted changes" — shas cut to 12 digits, the ref
 * only when it says more than the sha (report_base_ref_shown()), "working
 * tree" for a head without a sha. Adds nothing and returns 0 for a run
 * without a base.
 */
int report_revisions_text(struct sbuf *out, const struct run_result *r,
			  const struct report_markup *mk);

/*
 * The one status line under a report's title: the revisions, how much it
 * holds, the exit code and why —
 *
 *	base main (0acd445dea07) → head 1b2c3d4e5f60 · 6 comparisons in
 *	4 commands · exit code 1 (1 gated regression found)
 *
 * ("2 commands · exit code 0" for a run without a base or comparisons).
 * The seed and the machine belong to each report's environment, not here.
 */
void report_status_line(struct sbuf *out, const struct run_result *r,
			const struct report_markup *mk);

/* ---- values ------------------------------------------------------------ */

/*
 * The unit name of metric m for command c: the registry's unit_name,
 * except throughput with a work unit, which is "<throughput_unit>/s"
 * ("lines/s"). The CSV and JSON writers put it in their unit column.
 */
void report_metric_unit(struct sbuf *out, const struct command_result *c, enum metric_id m);

/*
 * A value of metric m as analyze/format prints it, throughput with the
 * command's work unit ("1234.5 lines/s", never "1234.5 /s").
 * report_delta_text(): a difference, in the unit the size of `ref` picks
 * (units_format_delta()), with the work unit the same way.
 */
void report_value_text(struct sbuf *out, const struct command_result *c, enum metric_id m,
		       double v);
void report_delta_text(struct sbuf *out, const struct command_result *c, enum metric_id m,
		       double delta, double ref);

/*
 * The n of a measured series: its samples, and "+N" for the runs that
 * confirmed a simulated count without being samples ("1+2",
 * model/result.h's `confirmed`); the table, Markdown and HTML print it.
 */
void report_count_text(struct sbuf *out, const struct metric_series *ms);

/* ---- comparisons --------------------------------------------------------- */

/*
 * "tolerance 5%": the comparison's tolerance (its max_percent) as every
 * report says it, in the writer's own punctuation (", tolerance 5%",
 * "beyond tolerance 10%"); nothing when it has none.
 */
void report_tolerance_text(struct sbuf *out, const struct comparison *cp);
/* " (tolerance 5%)": the same after a change; nothing without one. */
void report_tolerance_note(struct sbuf *out, const struct comparison *cp);

/* "20.00 ms → 23.60 ms": the compared statistic of both sides. */
void report_base_head_text(struct sbuf *out, const struct command_result *c, enum metric_id m,
			   const struct comparison *cp);

/*
 * "+18.0% (+14.2% … +21.9%)": the change and its interval, as the
 * Markdown and HTML pages show it. report_change_text_plain(): the same in
 * the plain-text form of the terminal table, the annotations and the
 * analysis' own reasons, "+18.0% [+14.2%, +21.9%]".
 */
void report_change_text(struct sbuf *out, const struct comparison *cp);
/* "+14.2% … +21.9%": the interval alone, for a page whose change has a
   cell of its own. */
void report_interval_text(struct sbuf *out, const struct comparison *cp);
void report_change_text_plain(struct sbuf *out, const struct comparison *cp);

/*
 * The change of the mean beside the typical change (docs/statistics.md,
 * "The change of the mean"). report_mean_differs(): 1 when a report
 * should say so — the mean moved at least half the tolerance (and 2
 * points) away from the typical change and its interval excludes the
 * typical estimate; the JSON report always holds both.
 * report_mean_text(): "mean +20.3% [+11.9%, +29.4%]".
 * report_minority_text(): the plain sentence of what happened, "10% of
 * head's runs are about 3x slower; the typical run is unchanged" (or
 * "head's mean is +20.3% while its typical run is +0.4%" when no minority
 * stands out); adds nothing and returns 0 unless the mean differs.
 */
int report_mean_differs(const struct comparison *cp);
void report_mean_text(struct sbuf *out, const struct comparison *cp);
int report_minority_text(struct sbuf *out, const struct comparison *cp);
/*
 * What the reports show as a comparison's reason: the sentence above, if
 * any, then the analysis' own reason ("…; typical +0.4%, mean …").
 */
void report_reason_text(struct sbuf *out, const struct comparison *cp);

/*
 * A pass whose whole interval lies beyond the tolerance the better way, which
 * reads as "no change" unless said: "faster: -27.0% [-38.8%, -15.2%]
 * (beyond tolerance 10%); not improved: the improvement is not
 * established (P=0.93 below 0.95)" ("higher"/"lower" for metrics that are
 * not times). Adds nothing and returns 0 for any other comparison.
 */
int report_better_text(struct sbuf *out, const struct comparison *cp, enum metric_id m);
/* After report_verdict_text() in a verdict cell: " (faster beyond
   tolerance 10%, not improved)" for the pass above, else nothing. */
void report_verdict_note(struct sbuf *out, const struct comparison *cp, enum metric_id m);
/*
 * A comparison in a benchmark's one-line verdict: "latency +18.0%
 * [+14.2%, +21.9%] (tolerance 5%)", or the metric and
 * report_better_text().
 */
void report_lead_change_text(struct sbuf *out, const struct comparison *cp, enum metric_id m);

/*
 * The verdict as the comparison lists show it: "regression",
 * "inconclusive (not gated)", "improved (decided after 6 rounds)"; "n/a"
 * without a verdict.
 */
void report_verdict_text(struct sbuf *out, const struct comparison *cp);

/* ---- budgets ------------------------------------------------------------- */

/*
 * The budget's limit: as written in the suite, operator included
 * ("<= 20ms"); a report without limit_text (an older kagari) gets the
 * operator and the limit's value with the command's work unit
 * (">= 5000 lines/s").
 */
void report_budget_limit(struct sbuf *out, const struct command_result *c,
			 const struct budget_result *bu);

/* "latency p95": the metric and aggregation the budget judges. */
void report_budget_subject(struct sbuf *out, const struct budget_result *bu);

/* "p95 <= 20ms": the aggregation and the limit. */
void report_budget_rule(struct sbuf *out, const struct command_result *c,
			const struct budget_result *bu);

/*
 * The actual value ("24.10 ms", with the work unit), or `none` when the
 * budget has none (NULL: nothing).
 */
void report_budget_actual(struct sbuf *out, const struct command_result *c,
			  const struct budget_result *bu, const char *none);

/* "+20.5%": how far the actual value is from the limit, in percent of the
   limit; nothing when that is unknown (no actual value, a limit of 0). */
void report_budget_excess(struct sbuf *out, const struct budget_result *bu);

/* "cannot be assessed: REASON", "REASON" or nothing: what a budget that did
   not pass says beside its numbers. */
void report_budget_details(struct sbuf *out, const struct budget_result *bu);

/*
 * What share of a job matrix the report holds, when it is not the whole
 * selection: "shard 1 of 2: 3 of the 5 selected benchmarks; the others are
 * in the other shards (kagari merge judges them all)", or for --replicate
 * "replicate 1 of 3: every selected benchmark (kagari merge pools the
 * replicates)"; for a report kagari merge wrote, "merged by kagari merge
 * from 4 reports". Returns 0 and adds nothing for a report of one whole
 * run (1 of 1, or without a shard record).
 */
int report_shard_text(struct sbuf *out, const struct run_result *r);

#endif
