/*
 * history/steps: change points of a series (docs/history.md, "Finding
 * steps").
 *
 * Binary segmentation with a robust test: a segment's split is where a
 * CUSUM of winsorized values explains most (each point, in units of its
 * noise, clipped to within 2 of the segment's median, so one wild run
 * moves nothing far), and it is a step when the two sides' winsorized
 * means are STEPS_Z (1 + 4/n) standard errors apart, both parts keep at
 * least `min_size` points, and the two medians differ by at least
 * min_change_percent. The halves are split again the same way. A segment
 * no single split divides is searched for a block of a few commits on a
 * level of their own (a step and its undoing): its points all beyond
 * every other point of the segment, its mean STEPS_Z (1 + 4/n) standard
 * errors from the rest's, and both its edges steps. Then each step is
 * placed, within a few commits, where the points are likeliest about its
 * neighbouring segments' levels under the noise the series shows (a
 * kernel density of its residuals), tested again between its final
 * neighbours (the weakest failing step dropped), and sized by the medians
 * of those segments.
 * steps_find() gives every point one noise sigma, estimated robustly from
 * consecutive differences (1.4826 * median |x[i+1] - x[i]| / sqrt 2,
 * which a step barely moves); steps_find_points() each point its own:
 * that of its runs' session (tau) and of their number, on the
 * logarithms of the values when all are positive (noise grows with the
 * level; docs/history.md).
 */
#ifndef KAGARI_HISTORY_STEPS_H
#define KAGARI_HISTORY_STEPS_H

#include <stddef.h>

struct step {
	size_t at;	       /* first index of the new level */
	double before, after;  /* medians of the segments on either side */
	double change_percent; /* (after - before) / before * 100 */
};

/*
 * Find the steps of x[0..n) into *steps (ascending by index; caller frees;
 * *nr_steps 0 and *steps NULL when there are none), every point with the
 * same noise. Returns the noise estimate sigma.
 */
double steps_find(const double *x, size_t n, size_t min_size, double min_change_percent,
		  struct step **steps, size_t *nr_steps);

/* One point of a history: a commit's value (the median of its runs) and
   its runs' values, oldest first. */
struct steps_point {
	double value;
	const double *runs;
	size_t nr_runs;
};

/* A split is a step when its two sides are this many standard errors
   apart (more on short segments: steps.c, threshold()). */
#define STEPS_Z 4.5

/* Pairs of runs of one commit that steps_run_noise() needs to use them. */
#define STEPS_MIN_PAIRS 3

/* Pairs of consecutive runs of one commit among p[0..n). */
size_t steps_run_pairs(const struct steps_point *p, size_t n);

/*
 * The noise of a single run, sigma_1: from the differences between
 * consecutive runs of the same commit, 1.4826 * median |r[j+1] - r[j]| /
 * sqrt 2, when there are at least STEPS_MIN_PAIRS of them (no step or
 * drift between commits enters it); else from consecutive points, each
 * difference scaled by sqrt(1/k_i + 1/k_i+1) to that of two single runs
 * (for single-run points the estimate of steps_find()), when there are at
 * least STEPS_MIN_PAIRS of those (STEPS_MIN_PAIRS + 1 points). NAN when
 * neither: the noise is unknown (one run, or two runs 14% apart, tell
 * nothing of it), and so are the runs a step needs.
 */
double steps_run_noise(const struct steps_point *p, size_t n);

/*
 * The noise between sessions, tau: runs of one commit are measured back
 * to back and share that session's offset, so a point of k runs varies by
 * tau^2 + sigma_1^2 / k, not sigma_1^2 / k. Estimated by the method of
 * moments from consecutive points (a step changes one difference only):
 * tau^2 = max(0, ((1.4826 * median |x[i+1] - x[i]|)^2 - sigma_1^2 * mean(1/k_i
 * + 1/k_i+1)) / 2). 0 when sigma_1 came from the points themselves (fewer
 * than STEPS_MIN_PAIRS pairs of runs of one commit): it holds tau then.
 */
double steps_between_noise(const struct steps_point *p, size_t n, double sigma1);

/*
 * steps_find() with each point's own noise: sqrt(tau^2 + sigma_1^2 / k)
 * for a point of k runs (sigma_1 from steps_run_noise(), tau from
 * steps_between_noise()), in units of which each point is weighed and
 * clipped: a point of many runs weighs more than one of a single run, as
 * far as the session's offset lets it. On the logarithms of the values
 * when every value and run is positive (the noise's own estimates too). Returns sigma_1, and tau in
 * *between (may be NULL); NAN and no steps when steps_run_noise() does not know it.
 */
double steps_find_points(const struct steps_point *p, size_t n, size_t min_size,
			 double min_change_percent, struct step **steps, size_t *nr_steps,
			 double *between);

/*
 * steps_find_points() with the steps already known: cut[i] (i in 1..n-1)
 * is set when the level changes between points i - 1 and i (a paired
 * comparison measured it: history/series.h). The differences across a cut
 * are left out of the noise estimates, and each stretch between cuts is
 * segmented on its own; the cuts themselves are not returned as steps.
 * cut NULL: steps_find_points().
 */
double steps_find_points_cut(const struct steps_point *p, size_t n, const unsigned char *cut,
			     size_t min_size, double min_change_percent, struct step **steps,
			     size_t *nr_steps, double *between);

/*
 * A step is found (about 90 % of the time over 16 commits, at its commit)
 * when it is this many times the noise of a point (docs/history.md).
 */
#define STEPS_DETECT_RATIO 5.0

/* steps_runs_needed(): no number of runs per commit finds the step. */
#define STEPS_RUNS_NEVER ((size_t)-1)

/*
 * The runs per commit that make a step of `step` detectable with single
 * runs of noise `noise` and the noise between sessions `between` (same
 * unit): the least k with STEPS_DETECT_RATIO * sqrt(between^2 + noise^2 /
 * k) <= step, ceil(noise^2 / ((step / STEPS_DETECT_RATIO)^2 - between^2)),
 * at least 1; STEPS_RUNS_NEVER when step <= STEPS_DETECT_RATIO * between
 * (more runs cannot bring a point's noise below tau); 0 when step <= 0 or
 * a noise is not a number.
 */
size_t steps_runs_needed(double noise, double between, double step);

#endif
