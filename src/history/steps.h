/*
 * history/steps: change points of a series (docs/history.md, "Finding
 * steps").
 *
 * Binary segmentation with a robust cost: a segment costs the sum of the
 * absolute deviations from its median (an L1 fit, so one wild point does
 * not make a step); a segment is split at the point that lowers the cost
 * most when the gain exceeds the penalty
 *
 *	2 * sigma * sqrt(n * ln n)
 *
 * (n the segment's length; sigma the series' noise, estimated robustly
 * from consecutive differences: 1.4826 * median |x[i+1] - x[i]| / sqrt 2,
 * which a step barely moves), both parts keep at least `min_size` points,
 * and the two medians differ by at least min_change_percent. The halves
 * are split again the same way.
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
 * *nr_steps 0 and *steps NULL when there are none). Returns the noise
 * estimate sigma.
 */
double steps_find(const double *x, size_t n, size_t min_size,
		  double min_change_percent, struct step **steps, size_t *nr_steps);

#endif
