/*
 * bench/analysis: how long the comparison engine takes.
 *
 * Times compare_compute() + holm_adjust() + compare_decide() over 1000
 * comparisons of 100 samples per side (50 rounds of 2 runs, lognormal noise,
 * a shared per-round load) with 2000 resamples, paired and independent,
 * and the common case of 20 samples per side. Prints a small table.
 *
 * Build (from the repository root):
 *   gcc -std=gnu11 -D_GNU_SOURCE -O2 -Isrc -o /tmp/bench-analysis \
 *     bench/analysis.c src/analyze/compare.c src/analyze/exact.c \
 *     src/analyze/holm.c src/model/rng.c src/analyze/summary.c \
 *     src/analyze/format.c src/base/sbuf.c src/base/strvec.c \
 *     src/base/xalloc.c src/model/metric.c -lm
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#include "analyze/compare.h"
#include "analyze/holm.h"
#include "model/rng.h"
#include "base/xalloc.h"

#define COMPARISONS 1000

static double normal(struct rng *r)
{
	double u1 = 1 - rng_uniform(r), u2 = rng_uniform(r);

	return sqrt(-2 * log(u1)) * cos(2 * M_PI * u2);
}

static double now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + ts.tv_nsec * 1e-9;
}

static void bench(const char *label, int samples, enum pairing pairing,
		  int resamples)
{
	struct rng data;
	struct sample *base = xcalloc((size_t)samples, sizeof(*base));
	struct sample *head = xcalloc((size_t)samples, sizeof(*head));
	struct compare_result *res = xcalloc(COMPARISONS, sizeof(*res));
	struct compare_result **fam = xcalloc(COMPARISONS, sizeof(*fam));
	struct compare_input in;
	double t0, t, compute = 0;
	int verdicts[3] = { 0 };

	rng_seed(&data, 1);
	compare_input_init(&in);
	in.pairing = pairing;
	in.resamples = resamples;
	t0 = now();
	for (int c = 0; c < COMPARISONS; c++) {
		double f = 1;

		for (int i = 0; i < samples; i++) {
			if (i % 2 == 0)
				f = exp(0.05 * normal(&data));
			base[i] = (struct sample){
				1e8 * f * exp(0.02 * normal(&data)), i / 2 + 1,
				i + 1
			};
			head[i] = (struct sample){
				1e8 * (c % 2 ? 1.15 : 1.0) * f *
					exp(0.02 * normal(&data)),
				i / 2 + 1, i + 1
			};
		}
		in.base = base;
		in.nr_base = (size_t)samples;
		in.head = head;
		in.nr_head = (size_t)samples;
		in.seed = rng_seed_from(1, label) + (uint64_t)c;
		t = now();
		compare_compute(&in, &res[c]);
		compute += now() - t;
		fam[c] = &res[c];
	}
	t = now();
	holm_adjust(fam, COMPARISONS, 1);
	for (int c = 0; c < COMPARISONS; c++) {
		compare_decide(&in, &res[c]);
		verdicts[res[c].verdict[0] == 'r' ? 0
			 : res[c].verdict[0] == 'p' ? 1
						    : 2]++;
		compare_result_release(&res[c]);
	}
	compute += now() - t;
	printf("%-34s %8d %10d %10.3f s %9.3f ms  %d/%d/%d\n", label, samples,
	       resamples, compute, compute / COMPARISONS * 1e3, verdicts[0],
	       verdicts[1], verdicts[2]);
	(void)t0;
	free(base);
	free(head);
	free(res);
	free(fam);
}

int main(void)
{
	printf("%d comparisons each (half of them +15%%, Holm over all)\n",
	       COMPARISONS);
	printf("%-34s %8s %10s %12s %12s  %s\n", "case", "n/side",
	       "resamples", "total", "per comp.", "reg/pass/other");
	bench("paired by rounds, median", 100, PAIRING_ROUNDS, 2000);
	bench("independent, median", 100, PAIRING_INDEPENDENT, 2000);
	bench("paired by rounds, median (runs 20)", 20, PAIRING_ROUNDS, 2000);
	bench("independent, median (runs 20)", 20, PAIRING_INDEPENDENT, 2000);
	return 0;
}
