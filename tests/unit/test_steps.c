/*
 * Tests for history/steps: binary segmentation with the L1 cost finds a
 * planted step at its index with its size, finds two steps, ignores one
 * wild point, finds nothing in A/A noise (seeded, so deterministic: the
 * false-step rate over 200 noisy series is asserted, not hoped for), and
 * respects --min-change.
 */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <math.h>
#include <stdlib.h>

#include "history/steps.h"
#include "model/rng.h"

/* Gaussian noise (Box-Muller) around level, sd as a fraction of level. */
static void noisy(struct rng *r, double *x, size_t n, double level, double sd)
{
	for (size_t i = 0; i < n; i++) {
		double u = rng_uniform(r), v = rng_uniform(r);
		double z = sqrt(-2 * log(1 - u)) * cos(2 * M_PI * v);
		x[i] = level * (1 + sd * z);
	}
}

static void test_planted_step(void **state)
{
	(void)state;
	struct rng r;
	int found_right[2] = { 0, 0 };
	for (int big = 0; big < 2; big++)
		for (uint64_t seed = 1; seed <= 50; seed++) {
			double x[16], size = big ? 20 : 10;
			rng_seed(&r, seed);
			noisy(&r, x, 16, 100, 0.02);
			for (size_t i = 9; i < 16; i++)
				x[i] *= 1 + size / 100; /* from commit 9 on, noise 2 % */
			struct step *s;
			size_t n;
			steps_find(x, 16, 2, 1, &s, &n);
			if (n == 1 && s[0].at == 9 && fabs(s[0].change_percent - size) < 5)
				found_right[big]++;
			free(s);
		}
	/* A 10-sigma step over 16 commits: found at its commit every time; a
	   5-sigma one nearly always (the rest one commit off, or missed). */
	assert_int_equal(found_right[1], 50);
	assert_true(found_right[0] >= 42);
}

static void test_exact_series(void **state)
{
	(void)state;
	double x[] = { 1000, 1000, 1000, 1000, 1300, 1300, 1300, 1300, 1300, 900, 900 };
	struct step *s;
	size_t n;
	steps_find(x, 11, 2, 1, &s, &n);
	assert_int_equal(n, 2);
	assert_int_equal(s[0].at, 4);
	assert_true(fabs(s[0].change_percent - 30) < 1e-9);
	assert_int_equal(s[1].at, 9);
	assert_true(s[1].change_percent < -30);
	free(s);
	/* A constant series has no step; one odd point is not a step. */
	double flat[] = { 5, 5, 5, 5, 5, 9, 5, 5, 5, 5 };
	steps_find(flat, 10, 2, 1, &s, &n);
	assert_int_equal(n, 0);
	assert_null(s);
}

static void test_aa_noise(void **state)
{
	(void)state;
	struct rng r;
	int false_steps = 0;
	for (uint64_t seed = 1; seed <= 200; seed++) {
		double x[24];
		rng_seed(&r, 1000 + seed);
		noisy(&r, x, 24, 100, 0.05);
		struct step *s;
		size_t n;
		steps_find(x, 24, 2, 1, &s, &n);
		false_steps += n > 0;
		free(s);
	}
	/* The penalty is set for well under 1 % false steps per series. */
	assert_true(false_steps <= 2);
}

static void test_min_change(void **state)
{
	(void)state;
	double x[] = { 100, 100, 100, 100, 100.5, 100.5, 100.5, 100.5 };
	struct step *s;
	size_t n;
	steps_find(x, 8, 2, 1, &s, &n); /* +0.5 % < 1 % */
	assert_int_equal(n, 0);
	steps_find(x, 8, 2, 0.1, &s, &n);
	assert_int_equal(n, 1);
	assert_int_equal(s[0].at, 4);
	free(s);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_planted_step),
		cmocka_unit_test(test_exact_series),
		cmocka_unit_test(test_aa_noise),
		cmocka_unit_test(test_min_change),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
