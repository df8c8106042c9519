/*
 * bench/hl: the Hodges-Lehmann shift by selection (exact.h: O(n log n)
 * time, O(n) memory) against the quadratic method it replaced, for large
 * rounds counts. Per n: the estimate, the 95% interval and the 101
 * confidence quantiles by selection; the estimate by the quadratic method
 * where its n(n+1)/2 Walsh averages fit (at 30,000 rounds they need
 * 3.6 GB); the peak RSS after each.
 *
 * Build (from the repository root): see bench/hl.sh.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/resource.h>
#include <time.h>

#include "analyze/exact.h"
#include "model/rng.h"
#include "base/xalloc.h"

static double now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + ts.tv_nsec * 1e-9;
}

static long peak_mib(void)
{
	struct rusage ru;

	getrusage(RUSAGE_SELF, &ru);
	return ru.ru_maxrss / 1024;
}

int main(int argc, char **argv)
{
	static const size_t sizes[] = { 1000, 3000, 30000, 100000, 1000000 };
	size_t quad_max = argc > 1 ? (size_t)atol(argv[1]) : 3000;
	struct rng g;

	rng_seed(&g, 1);
	printf("%9s  %12s  %12s  %14s  %12s  %9s\n", "rounds", "estimate_s", "interval_s",
	       "quantiles_s", "quadratic_s", "peak_MiB");
	for (size_t s = 0; s < sizeof(sizes) / sizeof(sizes[0]); s++) {
		size_t n = sizes[s];
		double *d = xcalloc(n, sizeof(*d)), lo, hi, q[101];
		for (size_t i = 0; i < n; i++)
			d[i] = log(0.9 + 0.3 * rng_uniform(&g)) + 0.02;
		double t0 = now();
		double est = exact_hl_paired(d, n);
		double t1 = now();
		double *a = exact_sorted_copy(d, n);
		exact_hl_interval_sorted(a, n, 0.95, &lo, &hi);
		double t2 = now();
		exact_hl_quantiles_sorted(a, n, 101, q);
		double t3 = now();
		char quad[32] = "-";
		if (n <= quad_max) {
			double t4 = now();
			double e2 = exact_hl_paired_quadratic(d, n);
			snprintf(quad, sizeof(quad), "%.3f%s", now() - t4, e2 == est ? "" : " (DIFFERS)");
		}
		printf("%9zu  %12.3f  %12.3f  %14.3f  %12s  %9ld\n", n, t1 - t0, t2 - t1, t3 - t2, quad,
		       peak_mib());
		free(a);
		free(d);
		(void)lo;
		(void)hi;
	}
	return 0;
}
