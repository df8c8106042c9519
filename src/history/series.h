/*
 * history/series: the series `kagari history` shows (docs/history.md),
 * built from the points history_query() reads — one series per suite,
 * benchmark, command, metric and machine fingerprint, one point per
 * commit in the order of commits, with its steps (history/steps.h), its
 * noise and the runs per commit a step of a given size needs.
 *
 * A commit measured several times is one point: the median of its runs'
 * medians, with the least and greatest of them, placed at its first run.
 * A series holds the points of one machine only: this machine's series
 * come first, other machines' after them, never mixed in.
 *
 * The order of commits (struct history_order) is data: HEAD's
 * first-parent line oldest first, then the other commits by commit date,
 * then commits the repository does not have in the order they were first
 * measured. history_order_load() reads it from a repository with git;
 * tests give it as lists.
 *
 * Call order:
 *	struct history_order o;
 *	history_order_load(&o, dir, &points);    (or _line() and _dated())
 *	struct history_series_set set;
 *	history_series_build(&set, &points, &o, &opt);
 *	... report/history.h renders set ...
 *	history_series_release(&set);            before history_points_release()
 *	history_order_release(&o);
 *
 * The series point into the points (names, shas, times): they must
 * outlive it. Nothing here prints.
 */
#ifndef KAGARI_HISTORY_SERIES_H
#define KAGARI_HISTORY_SERIES_H

#include <stddef.h>

#include "history/history.h"
#include "history/steps.h"
#include "model/metric.h"

/* A step must keep this many commits on either side (docs/history.md). */
#define HISTORY_MIN_SEGMENT 2
/* Commits off the first-parent line whose dates one git call asks for. */
#define HISTORY_MAX_DATED 20000

/* Where a commit stands in the order of commits. */
enum history_place {
	HISTORY_ON_LINE, /* on HEAD's first-parent line, by its position */
	HISTORY_DATED,	 /* another commit of the repository, by its date */
	HISTORY_UNKNOWN, /* not in the repository: as first measured */
};

struct history_rank {
	char sha[41];
	enum history_place place;
	long long key; /* position on the line (0 the oldest), or commit date */
};

/* The rank of every commit known, sorted by sha for lookups. */
struct history_order {
	struct history_rank *v;
	size_t nr, alloc;
	int line; /* a first-parent line was given (a repository) */
};

#define HISTORY_ORDER_INIT                                                                         \
	{                                                                                          \
		NULL, 0, 0, 0                                                                      \
	}

/* HEAD's first-parent line, sha[0..n) oldest first (shas that are not 40
   characters long are skipped). Sets o->line when any is kept. */
void history_order_line(struct history_order *o, const char *const *sha, size_t n);
/* Commits off the line, each with its commit date (seconds). */
void history_order_dated(struct history_order *o, const char *const *sha, const long long *date,
			 size_t n);
/*
 * The order from the repository of dir: HEAD's first-parent line, then the
 * commit dates of p's other commits (at most HISTORY_MAX_DATED of them, in
 * one git call). Without a repository, or with git failing, the order
 * stays empty (o->line 0) and the points keep the order they were first
 * measured in. o is initialised here.
 */
void history_order_load(struct history_order *o, const char *dir, const struct history_points *p);
/* The rank of sha, or NULL when the order does not know it. */
const struct history_rank *history_order_find(const struct history_order *o, const char *sha);
void history_order_release(struct history_order *o);

/* One commit of a series. */
struct history_commit {
	/* The runs of this commit that compared the metric (compare, ci),
	   oldest first: their verdicts, changes and bases (history_point). */
	const struct history_point **cmps;
	size_t nr_cmps;
	const char *sha, *time; /* time: its first run, RFC 3339 */
	size_t first;		/* index of its first run in the points */
	double median;		/* of its runs' medians */
	double low, high;	/* its runs' least and greatest */
	size_t runs;
	double *vals; /* its runs' medians, oldest first */
	enum history_place place;
	long long key;
};

/* Where a step's evidence came from. */
enum history_evidence {
	HISTORY_EVIDENCE_SERIES, /* the points' levels (history/steps.h) */
	HISTORY_EVIDENCE_PAIRED, /* a paired comparison of the commit with its base */
};

/*
 * A step of a series: at pts[at], the first commit of the new level; the
 * change happened in from_sha..pts[at].sha. From the series, from_sha is
 * pts[at - 1]'s and before/after the medians of the levels; from a paired
 * comparison (cmp: a regression, an improvement or an accepted regression
 * of the commit against an earlier commit of the line, its parent or a
 * push's `before`), from_sha is that base, after the run's median, before
 * what the change makes of it, and change_percent the paired change.
 */
struct history_step {
	size_t at;
	const char *from_sha;
	double before, after, change_percent;
	enum history_evidence evidence;
	const struct history_point *cmp; /* paired only, else NULL */
};

struct history_series {
	const struct history_point *key;  /* its first point: names, machine */
	const struct history_point *last; /* its last run, by time */
	int this_machine;
	enum metric_id metric;
	struct history_commit *pts; /* in the order of commits */
	size_t nr;
	struct history_step *steps; /* ascending; at indexes pts */
	size_t nr_steps;
	/* Commits whose last comparison said regression, improved, accepted. */
	size_t nr_regressions, nr_improvements, nr_accepted;
	double noise;		       /* of a single run (steps_run_noise()), metric
					  units; NAN when unknown */
	double between;		       /* between sessions (steps_between_noise()) */
	size_t runs_needed;	       /* per commit for a step of opt->detect percent,
					  or STEPS_RUNS_NEVER; 0 when unknown */
	size_t noise_diffs;	       /* differences of consecutive points it may use
					  (none across a paired step) */
	size_t noise_pts, noise_pairs; /* the points the noise is estimated
			       from, and their pairs of runs of one commit */
	size_t min_runs, max_runs;     /* runs per commit of its points */
};

struct history_series_set {
	struct history_series *v; /* this machine's first, each group in the
				     points' order */
	size_t nr;
};

struct history_series_options {
	const char *machine; /* this machine's fingerprint */
	double min_change;   /* percent: smaller steps are not reported */
	double detect;	     /* percent: the step runs_needed is for */
	/* Which benchmarks to show (NULL: all); ctx is passed through. */
	int (*keep)(void *ctx, const char *suite, const char *benchmark);
	void *ctx;
};

/*
 * The series of p (ordered by suite, benchmark, command, metric, machine
 * and time, as history_query() returns them), points of metrics this
 * kagari does not know and of benchmarks keep refuses left out. Steps are
 * searched on the first-parent line alone when o has one (a side branch's
 * commits are shown after it, not segmented), else over every point.
 */
void history_series_build(struct history_series_set *out, const struct history_points *p,
			  const struct history_order *o, const struct history_series_options *opt);
void history_series_release(struct history_series_set *set);

/* The comparison a commit's step is judged by: its last one whose base is
   an earlier commit (of the line, when there is one); NULL when none. */
const struct history_point *history_series_evidence(const struct history_series *s, size_t q,
						    const struct history_order *o);
/* 1 when the verdict marks a change: regression, improved, accepted. */
int history_verdict_is_change(const char *verdict);

/* The latest point: HEAD's, the last on the first-parent line, when the
   series has one there; else its last point. NULL for no points. */
const struct history_commit *history_series_latest(const struct history_series *s);

#endif
