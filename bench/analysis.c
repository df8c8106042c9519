/*
 * bench/analysis: how long the comparison engine takes.
 *
 * Times compare_compute() + holm_adjust() + compare_decide() per comparison
 * of 100 runs per side: single-run pairs (the default design), rounds of
 * two runs per side and independent samples (both with 2000 bootstrap
 * resamples), and the same at 20 runs per side; then the whole look
 * schedule of one sequential comparison that runs to the 200-pair cap
 * (every look of model/sequential.h computed and decided, as compare does).
 * Data: lognormal noise around a shared per-round level; half of the
 * comparisons +15%. Prints a table; COMPARISONS comparisons a case
 * (argument 1, default 1000).
 *
 * Build (from the repository root): see bench/analysis.sh.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#include "analyze/compare.h"
#include "analyze/holm.h"
#include "base/xalloc.h"
#include "model/rng.h"
#include "model/sequential.h"

static int COMPARISONS = 1000;

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

/* samples per side, runs_per_round of them in each round */
static void fill(struct rng *data, struct sample *base, struct sample *head,
		 int samples, int per_round, double effect)
{
	double f = 1;

	for (int i = 0; i < samples; i++) {
		if (i % per_round == 0)
			f = exp(0.05 * normal(data));
		base[i] = (struct sample){ 1e8 * f * exp(0.02 * normal(data)),
					   i / per_round + 1, i + 1, -1 };
		head[i] = (struct sample){ 1e8 * effect * f * exp(0.02 * normal(data)),
					   i / per_round + 1, i + 1, -1 };
	}
}

static void bench(const char *label, int samples, enum pairing pairing,
		  int per_round)
{
	struct rng data;
	struct sample *base = xcalloc((size_t)samples, sizeof(*base));
	struct sample *head = xcalloc((size_t)samples, sizeof(*head));
	struct compare_result *res = xcalloc((size_t)COMPARISONS, sizeof(*res));
	struct compare_result **fam = xcalloc((size_t)COMPARISONS, sizeof(*fam));
	struct compare_input in;
	double t, total = 0;
	int verdicts[3] = { 0 };

	rng_seed(&data, 1);
	compare_input_init(&in);
	in.pairing = pairing;
	in.runs_per_round = per_round;
	in.resamples = 2000;
	for (int c = 0; c < COMPARISONS; c++) {
		fill(&data, base, head, samples, per_round, c % 2 ? 1.15 : 1.0);
		in.base = base;
		in.nr_base = (size_t)samples;
		in.head = head;
		in.nr_head = (size_t)samples;
		in.seed = rng_seed_from(1, label) + (uint64_t)c;
		t = now();
		compare_compute(&in, &res[c]);
		total += now() - t;
		fam[c] = &res[c];
	}
	t = now();
	holm_adjust(fam, (size_t)COMPARISONS, 1);
	for (int c = 0; c < COMPARISONS; c++) {
		compare_decide(&in, &res[c]);
		verdicts[res[c].verdict == VERDICT_REGRESSION ? 0 : res[c].verdict == VERDICT_PASS ? 1 : 2]++;
		compare_result_release(&res[c]);
	}
	total += now() - t;
	printf("%-38s %6d %10.3f ms  %d/%d/%d\n", label, samples,
	       total / COMPARISONS * 1e3, verdicts[0], verdicts[1], verdicts[2]);
	free(base);
	free(head);
	free(res);
	free(fam);
}

/*
 * One sequential comparison of single-run pairs that never decides early
 * (an A/A whose every look is computed): every look up to N = 200, each
 * with its level, computed and decided as analyze/ does.
 */
static void schedule(int N)
{
	struct rng data;
	struct sample *base = xcalloc((size_t)N, sizeof(*base));
	struct sample *head = xcalloc((size_t)N, sizeof(*head));
	struct compare_input in;
	int reps = COMPARISONS / 20 > 1 ? COMPARISONS / 20 : 1, looks = 0;
	double t = now();

	rng_seed(&data, 2);
	compare_input_init(&in);
	in.runs_per_round = 1;
	in.sequential = 1;
	for (int k = 0; k < reps; k++) {
		fill(&data, base, head, N, 1, 1.0);
		looks = 0;
		for (int n = seq_next_look(0, N), spent = 0;; n = seq_next_look(n, N)) {
			struct compare_result r, *fam = &r;

			in.base = base;
			in.nr_base = (size_t)n;
			in.head = head;
			in.nr_head = (size_t)n;
			in.seed = (uint64_t)k;
			in.level = seq_level(1 - in.confidence, n, spent, N, 1);
			if (in.level > 0)
				spent = n;
			compare_compute(&in, &r);
			holm_adjust(&fam, 1, 1);
			compare_decide(&in, &r);
			compare_result_release(&r);
			looks++;
			if (n >= N)
				break;
		}
	}
	printf("%-38s %6d %10.3f ms  (%d looks)\n", "look schedule, pairs, to the cap", N,
	       (now() - t) / reps * 1e3, looks);
	free(base);
	free(head);
}

int main(int argc, char **argv)
{
	if (argc > 1)
		COMPARISONS = atoi(argv[1]) > 0 ? atoi(argv[1]) : 1;
	printf("%d comparisons a case (half of them +15%%, Holm over all); "
	       "2000 bootstrap resamples where the design draws them\n",
	       COMPARISONS);
	printf("%-38s %6s %13s  %s\n", "case", "n/side", "per comp.", "reg/pass/other");
	bench("single-run pairs (the default)", 100, PAIRING_ROUNDS, 1);
	bench("rounds of 2 runs per side", 100, PAIRING_ROUNDS, 2);
	bench("independent", 100, PAIRING_INDEPENDENT, 1);
	bench("single-run pairs (runs: 20)", 20, PAIRING_ROUNDS, 1);
	bench("rounds of 2 (runs: 20)", 20, PAIRING_ROUNDS, 2);
	bench("independent (runs: 20)", 20, PAIRING_INDEPENDENT, 1);
	schedule(200);
	return 0;
}
