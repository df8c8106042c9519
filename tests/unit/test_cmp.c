/*
 * Tests for base/cmp: cmp_double is a total order on doubles (NaN after
 * every number, -0.0 equal to 0.0, infinities at the ends), so qsort
 * sorts any array, NaNs included, ascending with the NaNs last.
 */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <math.h>
#include <stdlib.h>

#include "base/cmp.h"

static int sign(int x)
{
	return (x > 0) - (x < 0);
}

static void test_pairs(void **state)
{
	double one = 1, two = 2, nz = -0.0, pz = 0.0, ninf = -INFINITY,
	       pinf = INFINITY, nan1 = NAN, nan2 = -NAN;
	(void)state;
	assert_int_equal(sign(cmp_double(&one, &two)), -1);
	assert_int_equal(sign(cmp_double(&two, &one)), 1);
	assert_int_equal(cmp_double(&one, &one), 0);
	assert_int_equal(cmp_double(&nz, &pz), 0);
	assert_int_equal(sign(cmp_double(&ninf, &one)), -1);
	assert_int_equal(sign(cmp_double(&pinf, &two)), 1);
	/* NaN sorts after every number, +inf included, and ties with NaN. */
	assert_int_equal(sign(cmp_double(&nan1, &pinf)), 1);
	assert_int_equal(sign(cmp_double(&pinf, &nan1)), -1);
	assert_int_equal(sign(cmp_double(&ninf, &nan2)), -1);
	assert_int_equal(cmp_double(&nan1, &nan2), 0);
}

/* Antisymmetric and transitive over a set with every kind of value. */
static void test_total_order(void **state)
{
	const double v[] = { NAN, 3, -INFINITY, -0.0, 0.0, 1e-300, -1e300,
			     INFINITY, 3, -NAN, 2.5 };
	const size_t n = sizeof(v) / sizeof(v[0]);
	(void)state;
	for (size_t i = 0; i < n; i++)
		for (size_t j = 0; j < n; j++) {
			int ij = sign(cmp_double(&v[i], &v[j]));
			assert_int_equal(ij, -sign(cmp_double(&v[j], &v[i])));
			for (size_t k = 0; k < n; k++)
				if (ij <= 0 && sign(cmp_double(&v[j], &v[k])) <= 0)
					assert_true(cmp_double(&v[i], &v[k]) <= 0);
		}
}

static void test_qsort(void **state)
{
	double v[] = { 5, NAN, -1, INFINITY, 0.5, NAN, -INFINITY, 5, 2 };
	const double want[] = { -INFINITY, -1, 0.5, 2, 5, 5, INFINITY };
	const size_t n = sizeof(v) / sizeof(v[0]);
	(void)state;
	qsort(v, n, sizeof(v[0]), cmp_double);
	for (size_t i = 0; i < sizeof(want) / sizeof(want[0]); i++)
		assert_true(v[i] == want[i]);
	assert_true(isnan(v[n - 2]) && isnan(v[n - 1]));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_pairs),
		cmocka_unit_test(test_total_order),
		cmocka_unit_test(test_qsort),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
