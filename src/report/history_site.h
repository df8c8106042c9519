/*
 * report/history_site: the trend site of `kagari history --format html
 * --output DIR/` (docs/history.md): DIR/index.html, one self-contained
 * page that GitHub Pages or any web server serves as it is — no script,
 * no external resource, a Content-Security-Policy that allows nothing but
 * its own inline style, as the HTML report (report/write_html.c).
 *
 * The page: the machines and an overview row per series (its last run's
 * verdict, its steps), then one section per suite, benchmark and metric,
 * in it one part per machine (this machine first; machines are never
 * mixed in one plot) and in that one trend plot per command — the points
 * in the order of commits, each with the interval of its runs, a link to
 * its commit and its subject on hover, the commits off HEAD's
 * first-parent line apart after the line, each step marked at the commit
 * that caused it with a link to it, the level of each stretch between
 * steps — with the noise line, the last run's verdict and the steps
 * listed.
 *
 * cmd/history.c fills the structs below (the series of history/series.h,
 * the words of report/history.h's noise line, the links) and keeps
 * ownership; nothing here runs git or prints.
 */
#ifndef KAGARI_REPORT_HISTORY_SITE_H
#define KAGARI_REPORT_HISTORY_SITE_H

#include <stddef.h>
#include <stdint.h>

#include "model/metric.h"

struct sbuf;

struct history_site_point {
	const char *sha;	  /* full commit id */
	const char *time;	  /* its first run, RFC 3339 (may be NULL) */
	const char *subject;	  /* commit subject (NULL: unknown) */
	const char *url;	  /* link to the commit (NULL: none) */
	double median, low, high; /* the median of its runs, their least and greatest */
	size_t runs;
	int off_line; /* not on HEAD's first-parent line (shown after it) */
	/* Its last paired comparison (compare, ci) when that marked a change
	   (verdict "regression", "improved", "accepted"; else NULL): the
	   change with its interval, the kind of run and its base. */
	const char *verdict, *kind, *base_sha;
	double change_percent, ci_low_percent, ci_high_percent;
	size_t nr_compared; /* its runs that compared the metric */
	const char *report; /* that run's report page, relative (NULL: none) */
};

struct history_site_step {
	size_t at;	      /* index of the first point of the new level */
	double before, after; /* levels either side */
	double change_percent;
	const char *from_sha;			/* the last commit of the old level (or the base) */
	int paired;				/* from a paired comparison, else the series */
	double ci_low_percent, ci_high_percent; /* paired: the interval */
};

/* The series' last run (by time): its kind, result and, when it compared
   the metric, verdict and change with interval (NAN without). */
struct history_site_last {
	const char *sha, *time, *kind, *result, *verdict;
	double change_percent, ci_low_percent, ci_high_percent;
};

struct history_site_series {
	const char *suite, *benchmark, *command;
	enum metric_id metric;
	const char *machine, *cpu_model; /* fingerprint; CPU (may be NULL) */
	int this_machine;
	const struct history_site_point *pts;
	size_t nr;
	const struct history_site_step *steps;
	size_t nr_steps;
	const char *noise; /* the noise line, as the table words it */
	struct history_site_last last;
	size_t nr_regressions, nr_improvements, nr_accepted; /* verdict marks */
	int gated; /* the suite gates this metric of this command */
};

/* A page of the site besides index.html: a run's report. */
struct history_site_file {
	const char *name; /* relative to the folder: "reports/run-12.html" */
	const char *text;
	size_t len;
};

struct history_site {
	const char *machine;   /* the fingerprint of the machine that made the page */
	const char *repo_page; /* the repository's web page (NULL: none) */
	const char *no_links;  /* why commits are not links (NULL when they are) */
	const char *generated; /* when the page was made, RFC 3339 */
	int64_t runs;	       /* runs in the history */
	const struct history_site_series *series;
	size_t nr;
	const struct history_site_file *files; /* written after index.html */
	size_t nr_files;
};

/* The page (index.html) of site, appended to out. */
void history_site_render(struct sbuf *out, const struct history_site *site);

/* The file the site leaves in its folder: kagari wrote this folder. */
#define HISTORY_SITE_MARKER ".kagari-site"

/*
 * May the site be written into folder dir? Only a new folder, an empty one,
 * or one that holds HISTORY_SITE_MARKER (a regular file): never over the
 * user's own docs/index.html. 0, or -1 with a reason naming the folder and
 * a few of its files.
 */
int history_site_check_folder(const char *dir, struct sbuf *err);

/*
 * The site into folder dir (created with its parents when missing; refused
 * as history_site_check_folder() says): HISTORY_SITE_MARKER, then
 * dir/index.html and site->files (the reports of the runs whose verdicts
 * the page marks, in dir/reports/), each written atomically; nothing else
 * in dir touched. 0, or -1 with a reason naming the path in err.
 */
int history_site_write(const char *dir, const struct history_site *site, struct sbuf *err);

/* dir/index.html (caller frees): where history_site_write() writes. */
char *history_site_index(const char *dir);

#endif
