/*
 * Seeded Monte-Carlo calibration of the comparison engine (docs/statistics.md,
 * the end of "The paired test"): runs: 20 (ten rounds
 * of two runs per side), lognormal per-run noise, five machines:
 *   (a) quiet, CV 1%;
 *   (b) loaded, CV 2% plus a 10% load factor shared by both sides in a round;
 *   (c) a 30% step drift mid-run (CV 1%);
 *   (d) 5% of runs stalled 3x (CV 1%);
 *   (e) very noisy, CV 5% plus 10% shared.
 * Each trial is one comparison (Holm over a family of one) with the default
 * settings (median, paired by rounds, 2000 resamples, confidence 0.95).
 * Required: no false regression in 200 A/A trials of every machine at
 * T = 10 and T = 2; +20% at T = 10 found in >= 95% everywhere; +5% at T = 3
 * found in >= 90% under (a), (c), (d) and >= 70% under (b). The achieved
 * rates are printed as a table. A shortfall is a defect of the engine.
 *
 * Both designs are calibrated: single-run pairs (the default, 20 rounds of
 * one run per side) and rounds of two (10 rounds). For pairs the shared
 * load of (b) and (e) cannot be "shared within a round" — a round is one
 * pair, and a load drawn afresh for each pair is a load that jumps exactly
 * between pairs, which no machine does. It drifts from run to run instead
 * (AR(1) with the recorded traces' lag-1 autocorrelation 0.89 and the
 * machine's 10%), which leaves a pair about 4.7% of noise: no design of 20
 * or 64 pairs finds +5% at T = 3 there, so that cell is printed, not
 * required, for pairs on (b) and (e) (docs/statistics.md has the figures;
 * what pairs achieve on recorded noise is `kagari power`'s to show). With
 * 20 pairs, one-sided stalls (d) need >= 85% for +20% and >= 75% for +5%;
 * with rounds of two the stall filter drops a round only when both sides
 * are disturbed (a one-sided filter removed shaped changes), so (d)'s
 * detection cells are printed, not required, there. The sequential cells
 * below carry (d) for both designs (+5% at T = 3 in >= 90% with rounds of
 * two, where the both-sides filter leaves one-sided stalls to the test).
 *
 * The sequential design (`runs: auto`, docs/statistics.md "Sequential rounds")
 * goes through analyze_result() itself, the code compare runs: one
 * command, latency gated, max_runs 64 (looks after 5, 8, 12, 16, 24, 32
 * rounds). Replaying the looks on all 32 rounds gives exactly the verdict
 * and the look a measurement that stopped there would have given (a look
 * sees only the rounds up to it). To stay within seconds these cells use
 * SEQ_TRIALS trials (SEQ_TRIALS_AT_T in the boundary cell) and 500
 * resamples (the interval's share P is coarser; the exact signed-rank
 * test does not resample). Required on every machine: no false
 * regression in A/A at T = 10 and T = 2; +20% at T = 10 found in >= 95%;
 * +5% at T = 3 found in >= 95% except on (e), where no design of 32
 * rounds can (the fixed design finds 21% in 10); and a change exactly at
 * the tolerance (+3% at T = 3) called a regression in at most 5% and a
 * pass in at most 5% of trials.
 */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <math.h>
#include <stdio.h>
#include <string.h>

#include "analyze/analyze.h"
#include "analyze/compare.h"
#include "analyze/holm.h"
#include "model/rng.h"
#include "base/xalloc.h"

#define TRIALS 200
#define RUNS 20 /* runs per side of the fixed design */
#define MAX_RUNS 64 /* the sequential cells' max_runs */
#define LOAD_RHO 0.89 /* the recorded traces' lag-1 autocorrelation */

/* Runs per side per round of the design under test: 1 (single-run pairs,
   the default) or 2. */
static int PER_ROUND = 1;
#define ROUNDS (RUNS / PER_ROUND)

struct machine {
	const char *name;
	double s;      /* per-run lognormal sigma (about the CV) */
	double shared; /* per-round lognormal sigma shared by both sides */
	double drift;  /* step from the middle round on */
	double stall;  /* probability that a run is stalled 3x */
};

static const struct machine machines[] = {
	{ "(a) quiet CV 1%", 0.01, 0.01, 0, 0 },
	{ "(b) CV 2% + 10% shared", 0.02, 0.10, 0, 0 },
	{ "(c) 30% step drift", 0.01, 0.01, 0.30, 0 },
	{ "(d) 5% runs stalled 3x", 0.01, 0.01, 0, 0.05 },
	{ "(e) CV 5% + 10% shared", 0.05, 0.10, 0, 0 },
};
#define NR_MACHINES (sizeof(machines) / sizeof(machines[0]))

struct cell {
	double effect, T;
};

static const struct cell cells[] = {
	{ 0.00, 10 }, /* A/A */
	{ 0.00, 2 },  /* A/A */
	{ 0.20, 10 },
	{ 0.05, 3 },
};
#define NR_CELLS (sizeof(cells) / sizeof(cells[0]))

static double normal(struct rng *r)
{
	double u1 = 1 - rng_uniform(r), u2 = rng_uniform(r);

	return sqrt(-2 * log(u1)) * cos(2 * M_PI * u2);
}

/* One trial's samples: runs numbered in time order within each side. */
static void simulate_n(struct rng *r, const struct machine *m, double effect,
		       struct sample *base, struct sample *head, int rounds, int step)
{
	/* Single-run pairs: the load drifts from run to run (AR(1), lag-1
	   autocorrelation LOAD_RHO, stationary sigma `shared`), as the
	   recorded traces show it; a factor drawn afresh for every pair
	   would be a load that jumps exactly between pairs. */
	double load = m->shared * normal(r);

	for (int k = 0; k < rounds; k++) {
		double f = exp(m->shared * normal(r));

		if (m->drift && k >= step)
			f *= 1 + m->drift;
		for (int j = 0; j < PER_ROUND; j++) {
			struct sample *b = &base[k * PER_ROUND + j];
			struct sample *h = &head[k * PER_ROUND + j];
			double fb = f, fh = f;

			if (PER_ROUND == 1) {
				double step_f = m->drift && k >= step ? 1 + m->drift : 1;
				double l1 = load = LOAD_RHO * load + sqrt(1 - LOAD_RHO * LOAD_RHO) *
								     m->shared * normal(r);
				double l2 = load = LOAD_RHO * load + sqrt(1 - LOAD_RHO * LOAD_RHO) *
								     m->shared * normal(r);
				int head_first = rng_uniform(r) < 0.5;

				fb = step_f * exp(head_first ? l2 : l1);
				fh = step_f * exp(head_first ? l1 : l2);
			}
			b->value = 100e6 * fb * exp(m->s * normal(r));
			h->value = 100e6 * (1 + effect) * fh *
				   exp(m->s * normal(r));
			if (m->stall && rng_uniform(r) < m->stall)
				b->value *= 3;
			if (m->stall && rng_uniform(r) < m->stall)
				h->value *= 3;
			b->round = h->round = k + 1;
			b->run = h->run = k * PER_ROUND + j + 1;
		}
	}
}

static void simulate(struct rng *r, const struct machine *m, double effect,
		     struct sample *base, struct sample *head)
{
	simulate_n(r, m, effect, base, head, ROUNDS, ROUNDS / 2);
}

enum { V_REG, V_IMP, V_PASS, V_INC, V_NOISE, V__N };

static int verdict_index(const char *v)
{
	if (!strcmp(v, "regression"))
		return V_REG;
	if (!strcmp(v, "improved"))
		return V_IMP;
	if (!strcmp(v, "pass"))
		return V_PASS;
	if (!strcmp(v, "within_noise"))
		return V_NOISE;
	return V_INC;
}

static void test_calibration(void **state)
{
	int counts[NR_MACHINES][NR_CELLS][V__N];
	struct sample base[RUNS], head[RUNS];
	struct rng data;
	int failures = 0;

	(void)state;
	for (PER_ROUND = 1; PER_ROUND <= 2; PER_ROUND++) {
	memset(counts, 0, sizeof(counts));
	rng_seed(&data, 20260301);
	for (size_t mi = 0; mi < NR_MACHINES; mi++) {
		for (size_t ci = 0; ci < NR_CELLS; ci++) {
			for (int t = 0; t < TRIALS; t++) {
				struct compare_input in;
				struct compare_result res, *family = &res;

				simulate(&data, &machines[mi], cells[ci].effect,
					 base, head);
				compare_input_init(&in);
				in.runs_per_round = PER_ROUND;
				in.base = base;
				in.nr_base = ROUNDS * PER_ROUND;
				in.head = head;
				in.nr_head = ROUNDS * PER_ROUND;
				in.max_percent = cells[ci].T;
				in.seed = rng_seed_from(
					(uint64_t)(mi * 100 + ci) * 1000 + t,
					"calibration");
				compare_compute(&in, &res);
				holm_adjust(&family, 1, 1);
				compare_decide(&in, &res);
				counts[mi][ci][verdict_index(verdict_text(res.verdict, "inconclusive"))]++;
				compare_result_release(&res);
			}
		}
	}

	printf("\ncalibration: %d trials per cell, %d rounds x %d run%s, "
	       "median, paired, B=2000, confidence 0.95\n",
	       TRIALS, ROUNDS, PER_ROUND, PER_ROUND > 1 ? "s" : "");
	printf("%-24s %12s %12s %14s %14s\n", "machine", "A/A T=10",
	       "A/A T=2", "+20% T=10", "+5% T=3");
	printf("%-24s %12s %12s %14s %14s\n", "", "false reg.", "false reg.",
	       "found", "found");
	for (size_t mi = 0; mi < NR_MACHINES; mi++) {
		printf("%-24s %12d %12d %13.1f%% %13.1f%%\n", machines[mi].name,
		       counts[mi][0][V_REG], counts[mi][1][V_REG],
		       100.0 * counts[mi][2][V_REG] / TRIALS,
		       100.0 * counts[mi][3][V_REG] / TRIALS);
	}
	printf("verdicts per cell (regression/improved/pass/inconclusive/"
	       "within_noise):\n");
	for (size_t mi = 0; mi < NR_MACHINES; mi++) {
		printf("  %-24s", machines[mi].name);
		for (size_t ci = 0; ci < NR_CELLS; ci++)
			printf("  %d/%d/%d/%d/%d", counts[mi][ci][V_REG],
			       counts[mi][ci][V_IMP], counts[mi][ci][V_PASS],
			       counts[mi][ci][V_INC], counts[mi][ci][V_NOISE]);
		printf("\n");
	}
	fflush(stdout);

	for (size_t mi = 0; mi < NR_MACHINES; mi++) {
		double need5 = mi == 1 ? 0.70 : 0.90;

		if (counts[mi][0][V_REG] || counts[mi][1][V_REG]) {
			print_error("%s: false regressions in A/A\n",
				    machines[mi].name);
			failures++;
		}
		/* Two runs per side: the stall filter drops a round only when
		   both sides are disturbed (a one-sided filter can remove a
		   side's own change), so ten rounds cannot carry (d)'s
		   one-sided stalls; printed, not required (the default pairs
		   and the sequential design carry them). */
		if (PER_ROUND == 2 && mi == 3)
			continue;
		if (counts[mi][2][V_REG] < (PER_ROUND == 1 && mi == 3 ? 0.85 : 0.95) * TRIALS) {
			print_error("%s: +20%% at T=10 found in %d/%d\n",
				    machines[mi].name, counts[mi][2][V_REG],
				    TRIALS);
			failures++;
		}
		if (PER_ROUND == 1 && (mi == 1 || mi == 4))
			continue; /* see the head comment: a drifting load */
		if (PER_ROUND == 1 && mi == 3)
			need5 = 0.75;
		if (mi != 4 && counts[mi][3][V_REG] < need5 * TRIALS) {
			print_error("%s: +5%% at T=3 found in %d/%d\n",
				    machines[mi].name, counts[mi][3][V_REG],
				    TRIALS);
			failures++;
		}
	}
	}
	assert_int_equal(failures, 0);
}

#define SEQ_TRIALS 100
#define SEQ_TRIALS_AT_T 300 /* the boundary cell: a 5% rate needs more */
#define CELL_TRIALS(ci) ((ci) == 4 ? SEQ_TRIALS_AT_T : SEQ_TRIALS)
#define SEQ_ROUNDS (MAX_RUNS / PER_ROUND)
#define SEQ_STEP (16 / PER_ROUND) /* the drift's step: after 16 runs */

static const struct cell seq_cells[] = {
	{ 0.00, 10 }, /* A/A */
	{ 0.00, 2 },  /* A/A */
	{ 0.20, 10 },
	{ 0.05, 3 },
	{ 0.03, 3 }, /* exactly at the tolerance */
};
#define NR_SEQ_CELLS (sizeof(seq_cells) / sizeof(seq_cells[0]))

/* One sequential compare through analyze_result(): verdict, rounds used. */
static int seq_trial(const struct sample *base, const struct sample *head, double T,
		     uint64_t seed, int *rounds)
{
	struct run_result r;
	run_result_init(&r);
	r.seed = seed;
	r.nr_suites = 1;
	r.suites = xcalloc(1, sizeof(*r.suites));
	struct suite_result *sr = &r.suites[0];
	sr->name = xstrdup("cal");
	sr->nr_benches = 1;
	sr->benches = xcalloc(1, sizeof(*sr->benches));
	struct bench_result *br = &sr->benches[0];
	br->name = xstrdup("b");
	br->nr_commands = 1;
	br->commands = xcalloc(1, sizeof(*br->commands));
	struct command_result *cr = &br->commands[0];
	cr->name = xstrdup("c");
	cr->rounds = SEQ_ROUNDS;
	for (int sd = 0; sd < SIDE__COUNT; sd++) {
		const struct sample *s = sd == SIDE_BASE ? base : head;
		cr->side[sd].present = 1;
		cr->side[sd].count = SEQ_ROUNDS * PER_ROUND;
		for (int i = 0; i < SEQ_ROUNDS * PER_ROUND; i++)
			metric_series_add(&cr->side[sd].metric[METRIC_LATENCY], s[i].value,
					  s[i].round, s[i].run);
	}
	struct analysis_settings *a = &cr->analysis;
	a->present = 1;
	a->pairing = PAIRING_ROUNDS;
	a->correction = CORRECTION_HOLM;
	a->resamples = 500;
	a->confidence = 0.95;
	a->min_samples = 10;
	a->max_cv = 0.5;
	a->runs_per_round = PER_ROUND;
	a->sequential = 1;
	a->max_rounds = SEQ_ROUNDS;
	struct metric_rule *mr = &a->metric[METRIC_LATENCY];
	mr->compare = mr->configured = mr->gate = 1;
	mr->statistic = STATISTIC_MEDIAN;
	mr->max_percent = T;
	mr->min_difference = -1;
	analyze_result(&r, NULL);
	const struct comparison *cp = &cr->comparison[METRIC_LATENCY];
	int v = verdict_index(verdict_text(cp->verdict, "inconclusive"));
	*rounds = cp->decided_at_rounds > 0 ? cp->decided_at_rounds : SEQ_ROUNDS;
	run_result_release(&r);
	return v;
}

static void test_calibration_sequential(void **state)
{
	static int counts[NR_MACHINES][NR_SEQ_CELLS][V__N];
	static long used[NR_MACHINES][NR_SEQ_CELLS];
	struct sample base[MAX_RUNS], head[MAX_RUNS];
	struct rng data;
	int failures = 0;

	(void)state;
	for (PER_ROUND = 1; PER_ROUND <= 2; PER_ROUND++) {
	memset(counts, 0, sizeof(counts));
	memset(used, 0, sizeof(used));
	rng_seed(&data, 20261201);
	for (size_t mi = 0; mi < NR_MACHINES; mi++)
		for (size_t ci = 0; ci < NR_SEQ_CELLS; ci++)
			for (int t = 0; t < CELL_TRIALS(ci); t++) {
				int n;
				simulate_n(&data, &machines[mi], seq_cells[ci].effect, base,
					   head, SEQ_ROUNDS, SEQ_STEP);
				counts[mi][ci][seq_trial(base, head, seq_cells[ci].T,
							 (uint64_t)(mi * 100 + ci) * 1000 + t,
							 &n)]++;
				used[mi][ci] += n * PER_ROUND;
			}

	printf("\nsequential calibration: %d trials per cell (%d at T), looks 5..%d rounds x %d run%s, "
	       "median, paired, B=500, confidence 0.95\n", SEQ_TRIALS,
	       SEQ_TRIALS_AT_T, SEQ_ROUNDS, PER_ROUND, PER_ROUND > 1 ? "s" : "");
	printf("%-24s %11s %11s %11s %11s %15s\n", "machine", "A/A T=10", "A/A T=2",
	       "+20% T=10", "+5% T=3", "+3% T=3");
	printf("%-24s %11s %11s %11s %11s %15s\n", "", "false reg.", "false reg.",
	       "found", "found", "reg. / pass");
	for (size_t mi = 0; mi < NR_MACHINES; mi++)
		printf("%-24s %11d %11d %10.0f%% %10.0f%% %6.0f%% / %3.0f%%\n",
		       machines[mi].name, counts[mi][0][V_REG], counts[mi][1][V_REG],
		       100.0 * counts[mi][2][V_REG] / SEQ_TRIALS,
		       100.0 * counts[mi][3][V_REG] / SEQ_TRIALS,
		       100.0 * counts[mi][4][V_REG] / SEQ_TRIALS_AT_T,
		       100.0 * counts[mi][4][V_PASS] / SEQ_TRIALS_AT_T);
	printf("mean runs per side per cell, then verdicts (regression/improved/pass/"
	       "inconclusive/within_noise):\n");
	for (size_t mi = 0; mi < NR_MACHINES; mi++) {
		printf("  %-24s", machines[mi].name);
		for (size_t ci = 0; ci < NR_SEQ_CELLS; ci++)
			printf("  %4.1f %d/%d/%d/%d/%d", (double)used[mi][ci] / CELL_TRIALS(ci),
			       counts[mi][ci][V_REG], counts[mi][ci][V_IMP],
			       counts[mi][ci][V_PASS], counts[mi][ci][V_INC],
			       counts[mi][ci][V_NOISE]);
		printf("\n");
	}
	fflush(stdout);

	for (size_t mi = 0; mi < NR_MACHINES; mi++) {
		if (counts[mi][0][V_REG] || counts[mi][1][V_REG]) {
			print_error("sequential %s: false regressions in A/A\n", machines[mi].name);
			failures++;
		}
		if (counts[mi][2][V_REG] < 0.95 * SEQ_TRIALS) {
			print_error("sequential %s: +20%% at T=10 found in %d/%d\n",
				    machines[mi].name, counts[mi][2][V_REG], SEQ_TRIALS);
			failures++;
		}
		if (mi != 4 && !(PER_ROUND == 1 && mi == 1) &&
		    counts[mi][3][V_REG] < (PER_ROUND == 2 && mi == 3 ? 0.90 : 0.95) * SEQ_TRIALS) {
			print_error("sequential %s: +5%% at T=3 found in %d/%d\n",
				    machines[mi].name, counts[mi][3][V_REG], SEQ_TRIALS);
			failures++;
		}
		if (counts[mi][4][V_REG] > 0.05 * SEQ_TRIALS_AT_T ||
		    counts[mi][4][V_PASS] > 0.05 * SEQ_TRIALS_AT_T) {
			print_error("sequential %s: +3%% at T=3 called regression %d, pass %d of %d\n",
				    machines[mi].name, counts[mi][4][V_REG],
				    counts[mi][4][V_PASS], SEQ_TRIALS_AT_T);
			failures++;
		}
	}
	}
	assert_int_equal(failures, 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_calibration),
		cmocka_unit_test(test_calibration_sequential),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
