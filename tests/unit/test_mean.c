/*
 * analyze/mean: the change of the mean's distribution is the sign-flip
 * permutation distribution of the mean, inverted; and the verdict rules
 * built on it (compare_compute + compare_decide) never pass a minority of
 * slow runs that the data show, and never call stalls on both sides a
 * regression.
 *
 * The p-values are checked against a direct sign-flip count: for small n,
 * every pattern of swapped rounds is enumerated and the share whose sum of
 * (h / c - b) is at least the observed one must be mean_dist_p_le()'s p.
 */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "analyze/compare.h"
#include "analyze/mean.h"
#include "model/rng.h"

/* p of "the mean ratio exceeds c" by counting every sign pattern. */
static double brute_p(const double *h, const double *b, size_t n, double c)
{
	double obs = 0;
	size_t hits = 0, total = (size_t)1 << n;

	for (size_t k = 0; k < n; k++)
		obs += h[k] / c - b[k];
	for (size_t set = 0; set < total; set++) {
		double s = 0;

		for (size_t k = 0; k < n; k++) {
			double x = h[k] / c - b[k];
			s += (set >> k & 1) ? -x : x;
		}
		hits += s >= obs - 1e-12 * fabs(obs) - 1e-12;
	}
	return (double)hits / (double)total;
}

static void test_enumerated_matches_sign_flip(void **state)
{
	(void)state;
	struct rng rng;
	rng_seed(&rng, 3);
	for (size_t n = 2; n <= 10; n++) {
		double h[10], b[10];

		for (size_t k = 0; k < n; k++) {
			b[k] = 100 + 10 * rng_uniform(&rng);
			h[k] = b[k] * (0.9 + 0.3 * rng_uniform(&rng));
		}
		struct mean_dist d;
		mean_dist_paired(h, b, n, 2000, &rng, &d);
		assert_true(d.enumerated);
		assert_int_equal(d.n, ((size_t)1 << n) - 1);
		for (double c = 0.9; c < 1.25; c += 0.05) {
			double want = brute_p(h, b, n, c);
			double got = mean_dist_p_le(&d, log(c));
			assert_true(fabs(want - got) < 1e-9);
		}
		mean_dist_release(&d);
	}
}

static void test_drawn_close_to_exact(void **state)
{
	(void)state;
	struct rng rng;
	rng_seed(&rng, 5);
	double h[16], b[16];

	for (size_t k = 0; k < 16; k++) {
		b[k] = 50 + rng_uniform(&rng);
		h[k] = b[k] * (k % 5 == 0 ? 2.0 : 1.0);
	}
	struct mean_dist d;
	mean_dist_paired(h, b, 16, 20000, &rng, &d);
	assert_false(d.enumerated == 0 && d.n == 0);
	for (double c = 1.0; c < 1.4; c += 0.1) {
		double want = brute_p(h, b, 16, c);
		double got = mean_dist_p_le(&d, log(c));
		/* 20,000 draws: a standard error under 0.0036 */
		assert_true(fabs(want - got) < 0.02);
	}
	mean_dist_release(&d);
}

static void test_minority_named(void **state)
{
	(void)state;
	double lr[200];
	struct rng rng;
	rng_seed(&rng, 9);
	for (size_t k = 0; k < 200; k++)
		lr[k] = 0.02 * (rng_uniform(&rng) - 0.5) + (k % 10 == 3 ? log(3) : 0);
	double share, factor;
	mean_minority(lr, 200, 0, 1, &share, &factor);
	assert_true(fabs(share - 0.10) < 0.011);
	assert_true(factor > 2.9 && factor < 3.1);
	/* noise alone names no minority */
	for (size_t k = 0; k < 200; k++)
		lr[k] = 0.02 * (rng_uniform(&rng) - 0.5);
	mean_minority(lr, 200, 0, 1, &share, &factor);
	assert_true(isnan(share) && isnan(factor));
}

/* Single-run pairs: base and head runs of a program, head optionally slow
   on a share of its runs, through the comparison engine. */
static enum verdict judge(double share, double factor, size_t n, int sequential,
			  double *mean, double *typical)
{
	struct sample *bs = calloc(n, sizeof(*bs)), *hs = calloc(n, sizeof(*hs));
	struct compare_input in;
	struct compare_result r;
	struct rng rng;

	rng_seed(&rng, 17);
	for (size_t k = 0; k < n; k++) {
		double level = 100 * (1 + 0.2 * sin((double)k / 20)); /* drift */
		bs[k].value = level * exp(0.02 * (rng_uniform(&rng) - 0.5));
		hs[k].value = level * exp(0.02 * (rng_uniform(&rng) - 0.5)) *
			      (rng_uniform(&rng) < share ? factor : 1);
		bs[k].round = hs[k].round = (int)k + 1;
		bs[k].run = hs[k].run = (int)k + 1;
	}
	compare_input_init(&in);
	in.base = bs;
	in.nr_base = n;
	in.head = hs;
	in.nr_head = n;
	in.runs_per_round = 1;
	in.max_percent = 10;
	in.seed = 1;
	in.sequential = sequential;
	in.level = in.mean_level = 0.01;
	compare_compute(&in, &r);
	compare_decide(&in, &r);
	enum verdict v = r.verdict;
	*mean = r.mean_change_percent;
	*typical = r.change_percent;
	compare_result_release(&r);
	free(bs);
	free(hs);
	return v;
}

static void test_verdicts(void **state)
{
	(void)state;
	double mean, typ;

	/* 10% of head's runs 3x slower: typical unchanged, the mean +20% */
	assert_int_equal(judge(0.10, 3, 200, 0, &mean, &typ), VERDICT_REGRESSION);
	assert_true(fabs(typ) < 3 && mean > 12);
	/* a larger minority in a sequential look, at its level 0.01 */
	assert_int_equal(judge(0.20, 3, 200, 1, &mean, &typ), VERDICT_REGRESSION);
	/* A/A: a pass, the mean shown within 10% */
	assert_int_equal(judge(0, 1, 200, 1, &mean, &typ), VERDICT_PASS);
	/* too few rounds in a sequential look to rule a minority out */
	assert_int_equal(judge(0, 1, 30, 1, &mean, &typ), VERDICT_INCONCLUSIVE);
	/* a minority made faster is never a regression */
	assert_int_not_equal(judge(0.3, 0.5, 200, 1, &mean, &typ), VERDICT_REGRESSION);
	assert_true(mean < -10);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_enumerated_matches_sign_flip),
		cmocka_unit_test(test_drawn_close_to_exact),
		cmocka_unit_test(test_minority_named),
		cmocka_unit_test(test_verdicts),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
