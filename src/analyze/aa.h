/*
 * analyze/aa: the survey of `kagari aa` — N A/A compares of one tree
 * against itself, every measured change noise and every regression or
 * improved verdict false. Each compare is judged by the suite's own
 * analysis and again at every tolerance of AA_TOLERANCES (analyze_result()
 * with overrides, as `report --reanalyze --max-percent` does), so the
 * false verdicts per T come from one set of measurements.
 *
 * The rule for the recommendation (docs/aa.md): the smallest T of
 * AA_TOLERANCES at which no compare gave a false verdict and the 95th
 * percentile of |change| is below T/2 — the margin keeps a tolerance the
 * noise alone nearly reaches from being recommended. None: -1.
 *
 * Use: aa_survey_init(), aa_survey_add() per compare (it analyses the
 * result in place), aa_survey_finish(), read the rows, aa_survey_release().
 * Nothing here measures or prints (cmd/aa.c measures, report/aa.h writes).
 */
#ifndef KAGARI_ANALYZE_AA_H
#define KAGARI_ANALYZE_AA_H

#include <stddef.h>
#include <stdint.h>

#include "model/metric.h"
#include "model/result.h"

#define AA_NR_TOL 9
extern const double AA_TOLERANCES[AA_NR_TOL];
/* The tolerances the table shows (the first AA_TABLE_TOL of the list). */
#define AA_TABLE_TOL 5

/* One gated metric of one command, over the N compares. */
struct aa_row {
	char *suite, *benchmark, *command; /* copied from the first compare */
	size_t si, bi, ci;		   /* its place in every compare */
	enum metric_id metric;
	double *change; /* [n] change_percent per compare */
	size_t n;
	int false_at[AA_NR_TOL]; /* regression or improved at T */
	double median, p5, p95, p95_abs;
	int recommended; /* index into AA_TOLERANCES, -1 none */
	/* Every sample of both sides in every compare had one value (an
	   exact count: valgrind, allocations, system calls); varied: not. */
	int varied;
	int have_value;
	double value;
};

struct aa_survey {
	struct aa_row *rows;
	size_t nr, alloc;
	int repeat;   /* compares planned */
	int measured; /* compares judged */
	uint64_t seed;
};

void aa_survey_init(struct aa_survey *st, int repeat, uint64_t seed);
/* Judge one A/A compare r (analysed in place, more than once). The rows
   come from the first compare: every gated comparison it made. */
void aa_survey_add(struct aa_survey *st, struct run_result *r);
/* The quantiles of each row's changes and its recommended tolerance. */
void aa_survey_finish(struct aa_survey *st);
void aa_survey_release(struct aa_survey *st);

#endif
