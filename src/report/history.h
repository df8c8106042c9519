/*
 * report/history: the outputs of `kagari history` over its series
 * (history/series.h, docs/history.md): the table, JSON, Markdown and one
 * HTML page with a trend plot per series. The site of `--output DIR/` is
 * report/history_site.h. Ownership: appends to the caller's buffer,
 * keeps nothing.
 */
#ifndef KAGARI_REPORT_HISTORY_H
#define KAGARI_REPORT_HISTORY_H

#include <stdint.h>

#include "base/sbuf.h"
#include "history/series.h"

/* What every output shows besides the series. */
struct history_view {
	const char *database; /* the history file's path */
	const char *machine;  /* this machine's fingerprint */
	int64_t runs;	      /* runs in the history */
	double detect;	      /* --detect: the step size, percent */
	const struct history_series_set *set;
};

void report_history_table(struct sbuf *out, const struct history_view *h);
void report_history_json(struct sbuf *out, const struct history_view *h);
void report_history_markdown(struct sbuf *out, const struct history_view *h);
void report_history_html(struct sbuf *out, const struct history_view *h);

/*
 * The series' noise line, as every output words it: "noise of one run
 * ±2.1%; a 5% step needs 9 runs per commit to be found (these have 1-3)",
 * ", between sessions ±0.4%" after the first part when the points'
 * sessions differ by more than their runs' noise explains; when no number
 * of runs finds the step, or the noise is unknown, the line says so and
 * what would tell it. detect: the step size in percent.
 */
void report_history_noise_line(struct sbuf *out, const struct history_series *s, double detect);

/*
 * `kagari history check` (docs/history.md, "Alerts"): what lies in the
 * range REV..HEAD. One alert per series and commit: a step (series or
 * paired evidence) in the worse direction beyond the tolerance, or a
 * paired regression at a commit that is no step (its base is no earlier
 * commit of the line).
 */
struct history_alert {
	const struct history_series *s;
	const struct history_step *step; /* the step, or NULL */
	const struct history_commit *c;	 /* its commit (the step's new level) */
	const struct history_point *cmp; /* the paired comparison, or NULL */
	double tolerance;		 /* percent */
	const char *url, *from_url;	 /* commit links (NULL: none) */
	const char *subject;		 /* the commit's subject (NULL: unknown) */
};

struct history_check_view {
	const char *since, *head; /* the range's ends as given and resolved */
	size_t nr_commits;	  /* commits in the range */
	const char *no_links;	  /* why commits are not links (NULL when they are) */
	const struct history_alert *v;
	size_t nr;
};

/* The Markdown an issue body takes: a heading, the range, a table of the
   alerts (commit, series, change, interval, evidence, machine); or the one
   line that says the range is clean. */
void report_history_check_markdown(struct sbuf *out, const struct history_view *h,
				   const struct history_check_view *c);

#endif
