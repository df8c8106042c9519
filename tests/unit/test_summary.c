/*
 * Tests for analyze/summary: quantiles, mean and spread against reference
 * values computed by R (tests/data/reference/gen_quantiles.R ->
 * quantiles_ref.h), plus the edge cases a user can run into.
 */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "analyze/summary.h"
#include "../data/reference/quantiles_ref.h"

#define NR_REF (sizeof(ref_datasets) / sizeof(ref_datasets[0]))

/*
 * Relative tolerance 1e-12; exact when the data are integers and R's answer
 * is an integer (then there is nothing to round).
 */
static void check_close(const char *what, const char *set, double p,
			double got, double want, int integral)
{
	int ok;

	if (integral && want == floor(want))
		ok = got == want;
	else if (want == 0)
		ok = got == 0;
	else
		ok = fabs(got - want) <= 1e-12 * fmax(fabs(got), fabs(want));
	if (!ok)
		fail_msg("%s of '%s' at p=%g: got %.17g, want %.17g", what, set,
			 p, got, want);
}

static double *sorted_dup(const double *x, size_t n)
{
	double *c = malloc(n * sizeof(*c));

	assert_non_null(c);
	memcpy(c, x, n * sizeof(*c));
	summary_sort(c, n);
	for (size_t i = 1; i < n; i++)
		assert_true(c[i - 1] <= c[i]);
	return c;
}

static void test_quantiles_match_r(void **state)
{
	(void)state;
	for (size_t d = 0; d < NR_REF; d++) {
		const struct ref_dataset *r = &ref_datasets[d];
		double *c = sorted_dup(r->x, r->n);

		for (int k = 0; k < REF_NR_PROBS; k++) {
			double p = ref_probs[k];
			check_close("quantile", r->name, p,
				    quantile(r->x, r->n, p), r->q[k],
				    r->integral);
			check_close("quantile_sorted", r->name, p,
				    quantile_sorted(c, r->n, p), r->q[k],
				    r->integral);
		}
		free(c);
	}
}

static void test_summary_matches_r(void **state)
{
	(void)state;
	for (size_t d = 0; d < NR_REF; d++) {
		const struct ref_dataset *r = &ref_datasets[d];
		struct summary s;

		summary_compute(&s, r->x, r->n);
		assert_int_equal(s.count, r->n);
		check_close("min", r->name, 0, s.min, r->q[0], r->integral);
		check_close("max", r->name, 1, s.max, r->q[REF_NR_PROBS - 1],
			    r->integral);
		check_close("mean", r->name, 0, s.mean, r->mean, r->integral);
		check_close("median", r->name, 0.5, s.median, r->median,
			    r->integral);
		check_close("sd", r->name, 0, s.stddev, r->sd, 0);
		check_close("cv", r->name, 0, s.cv, r->cv, 0);
		check_close("robust_cv", r->name, 0, s.robust_cv, r->robust_cv,
			    0);
		for (int k = 0; k < REF_NR_PROBS; k++) {
			double *dst = NULL;
			if (ref_probs[k] == 0.9)
				dst = &s.p90;
			else if (ref_probs[k] == 0.95)
				dst = &s.p95;
			else if (ref_probs[k] == 0.99)
				dst = &s.p99;
			if (dst)
				check_close("pXX", r->name, ref_probs[k], *dst,
					    r->q[k], r->integral);
		}
		check_close("summary_mean", r->name, 0,
			    summary_mean(r->x, r->n), r->mean, r->integral);
		check_close("summary_stddev", r->name, 0,
			    summary_stddev(r->x, r->n), r->sd, 0);
	}
}

static void test_iqr_matches_r(void **state)
{
	(void)state;
	for (size_t d = 0; d < NR_REF; d++) {
		const struct ref_dataset *r = &ref_datasets[d];
		double iqr = quantile(r->x, r->n, 0.75) -
			     quantile(r->x, r->n, 0.25);
		/* A difference of two rounded quantiles: allow their rounding. */
		double scale = fmax(fabs(r->q[3]), fabs(r->q[5]));
		if (fabs(iqr - r->iqr) > 1e-12 * fmax(scale, fabs(r->iqr)))
			fail_msg("iqr of '%s': got %.17g, want %.17g", r->name,
				 iqr, r->iqr);
	}
}

static void test_empty(void **state)
{
	struct summary s;

	(void)state;
	memset(&s, 0x55, sizeof(s));
	summary_compute(&s, NULL, 0);
	assert_int_equal(s.count, 0);
	assert_true(isnan(s.min) && isnan(s.max) && isnan(s.mean));
	assert_true(isnan(s.median) && isnan(s.stddev) && isnan(s.cv));
	assert_true(isnan(s.robust_cv) && isnan(s.p90) && isnan(s.p95));
	assert_true(isnan(s.p99));
	assert_true(isnan(quantile(NULL, 0, 0.5)));
	assert_true(isnan(quantile_sorted(NULL, 0, 0.5)));
	assert_true(isnan(summary_mean(NULL, 0)));
	assert_true(isnan(summary_stddev(NULL, 0)));
}

static void test_single(void **state)
{
	const double x[] = { 812 };
	struct summary s;

	(void)state;
	summary_compute(&s, x, 1);
	assert_int_equal(s.count, 1);
	assert_true(s.min == 812 && s.max == 812 && s.mean == 812);
	assert_true(s.median == 812 && s.p90 == 812 && s.p99 == 812);
	assert_true(s.stddev == 0 && s.cv == 0 && s.robust_cv == 0);
}

static void test_all_equal_inexact_value(void **state)
{
	/* 0.1 has no exact binary form; the answers must still be exact. */
	const double x[] = { 0.1, 0.1, 0.1, 0.1, 0.1, 0.1, 0.1 };
	struct summary s;

	(void)state;
	summary_compute(&s, x, 7);
	assert_true(s.mean == 0.1);
	assert_true(s.median == 0.1 && s.p95 == 0.1 && s.p99 == 0.1);
	assert_true(s.stddev == 0);
	assert_true(s.cv == 0 && s.robust_cv == 0);
	for (double p = 0; p <= 1; p += 0.037)
		assert_true(quantile(x, 7, p) == 0.1);
}

static void test_zero_center(void **state)
{
	/* Only the documented divisions by zero give NaN. */
	const double zeros[] = { 0, 0, 0 };
	const double sym[] = { -2, 0, 2 };
	struct summary s;

	(void)state;
	summary_compute(&s, zeros, 3);
	assert_true(s.mean == 0 && s.stddev == 0 && s.median == 0);
	assert_true(isnan(s.cv) && isnan(s.robust_cv));
	summary_compute(&s, sym, 3);
	assert_true(s.mean == 0 && s.stddev == 2 && s.median == 0);
	assert_true(isnan(s.cv) && isnan(s.robust_cv));
}

static void test_integer_sum_exact(void **state)
{
	/* Summed left to right in double this loses 0.5 in the mean. */
	const double x[] = { 9007199254740992.0, 1, 1, 9007199254740990.0 };
	const double big[] = { 1e15 + 1, 1e15 + 2, 1e15 + 4, 1e15 + 5 };
	struct summary s;

	(void)state;
	assert_true(summary_mean(x, 4) == 4503599627370496.0);
	summary_compute(&s, big, 4);
	assert_true(s.mean == 1e15 + 3);
	assert_true(s.median == 1e15 + 3);
	/* sqrt(10/3): the deviations are small integers, the mean is exact. */
	assert_true(fabs(s.stddev - sqrt(10.0 / 3.0)) <= 1e-15);
}

static void test_probability_range(void **state)
{
	const double x[] = { 1, 2, 3, 4 };

	(void)state;
	assert_true(quantile_sorted(x, 4, 0) == 1);
	assert_true(quantile_sorted(x, 4, 1) == 4);
	/* R clamps probabilities within 100 epsilons of the range. */
	assert_true(quantile_sorted(x, 4, 1 + 1e-15) == 4);
	assert_true(quantile_sorted(x, 4, -1e-15) == 1);
	assert_true(isnan(quantile_sorted(x, 4, 1.01)));
	assert_true(isnan(quantile_sorted(x, 4, -0.5)));
	assert_true(isnan(quantile_sorted(x, 4, NAN)));
	/* Type 7: h = (n - 1) p. */
	assert_true(quantile_sorted(x, 4, 0.5) == 2.5);
	assert_true(quantile_sorted(x, 4, 1.0 / 3.0) == 2);
}

static void test_input_not_modified(void **state)
{
	double x[] = { 5, 3, 9, 1 };
	const double orig[] = { 5, 3, 9, 1 };
	struct summary s;

	(void)state;
	summary_compute(&s, x, 4);
	(void)quantile(x, 4, 0.3);
	assert_memory_equal(x, orig, sizeof(x));
	assert_true(s.min == 1 && s.max == 9 && s.median == 4);
}

static void test_monotone_in_p(void **state)
{
	double x[200];
	double prev = -INFINITY;

	(void)state;
	for (int i = 0; i < 200; i++)
		x[i] = 1e9 + (double)((i * 7919) % 200) * 3.7 + (i % 3);
	summary_sort(x, 200);
	for (int k = 0; k <= 1000; k++) {
		double q = quantile_sorted(x, 200, k / 1000.0);
		assert_true(q >= prev);
		assert_true(q >= x[0] && q <= x[199]);
		prev = q;
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_quantiles_match_r),
		cmocka_unit_test(test_summary_matches_r),
		cmocka_unit_test(test_iqr_matches_r),
		cmocka_unit_test(test_empty),
		cmocka_unit_test(test_single),
		cmocka_unit_test(test_all_equal_inexact_value),
		cmocka_unit_test(test_zero_center),
		cmocka_unit_test(test_integer_sum_exact),
		cmocka_unit_test(test_probability_range),
		cmocka_unit_test(test_input_not_modified),
		cmocka_unit_test(test_monotone_in_p),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
