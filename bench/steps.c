/*
 * bench/steps: kagari's step detector (history/steps.h, as `kagari
 * history` calls it: each point its own noise, steps of at least 1%,
 * two commits on each side) over series read from standard input, for
 * bench/steps.py, which builds synthetic histories from bench/traces and
 * scores it against a reference E-divisive means detector.
 *
 * Input, one series a line: N, then per commit K and its K run values:
 *	N K1 v11 .. v1K1 K2 v21 .. ; a line of N = 0 ends.
 * Output, one line per series: the indexes of the steps found (the
 * first commit of each new level), ascending, space-separated.
 *
 * Build: cmake --build build --target kagari-bench-steps (bench/steps.sh).
 */
#include <stdio.h>
#include <stdlib.h>

#include "base/xalloc.h"
#include "history/series.h"
#include "history/steps.h"

int main(void)
{
	size_t n;
	while (scanf("%zu", &n) == 1 && n > 0) {
		struct steps_point *p = xcalloc(n, sizeof(*p));
		double **runs = xcalloc(n, sizeof(*runs));
		for (size_t i = 0; i < n; i++) {
			size_t k;
			if (scanf("%zu", &k) != 1 || !k || k > 100000) {
				fprintf(stderr, "bench/steps: bad input at commit %zu\n", i);
				return 2;
			}
			runs[i] = xcalloc(k, sizeof(double));
			for (size_t j = 0; j < k; j++)
				if (scanf("%lf", &runs[i][j]) != 1) {
					fprintf(stderr, "bench/steps: bad value at commit %zu\n",
						i);
					return 2;
				}
			/* the point: the median of its runs, as series.c makes it */
			double *t = xcalloc(k, sizeof(double));
			for (size_t j = 0; j < k; j++) {
				size_t at = j;
				while (at > 0 && t[at - 1] > runs[i][j]) {
					t[at] = t[at - 1];
					at--;
				}
				t[at] = runs[i][j];
			}
			p[i] = (struct steps_point){
			    k % 2 ? t[k / 2] : (t[k / 2 - 1] + t[k / 2]) / 2, runs[i], k};
			free(t);
		}
		struct step *st = NULL;
		size_t nr = 0;
		steps_find_points(p, n, HISTORY_MIN_SEGMENT, 1.0, &st, &nr, NULL);
		for (size_t k = 0; k < nr; k++)
			printf(k ? " %zu" : "%zu", st[k].at);
		printf("\n");
		fflush(stdout);
		free(st);
		for (size_t i = 0; i < n; i++)
			free(runs[i]);
		free(runs);
		free(p);
	}
	return 0;
}
