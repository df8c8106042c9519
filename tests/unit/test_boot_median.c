/*
 * analyze/boot_median: drawing a bootstrap resample's median from its
 * exact distribution gives the distribution that resampling gives.
 *
 * For n = 1..7 every one of the n^n resamples of x_i = 2^i is enumerated
 * (the type-7 median of each, (x_i + x_j)/2 is unique per pair i <= j), so
 * the exact probability of each median value is known; 400,000 draws of the
 * sampler must match each within 5 standard errors. Then the sampler and
 * brute-force resampling agree on a larger sample with ties.
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

#include "analyze/boot_median.h"
#include "model/rng.h"

#define DRAWS 400000

static int cmp_d(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;
	return (x > y) - (x < y);
}

/* the type-7 median of a resample given as indices into sorted x */
static double median_of(const double *x, const size_t *idx, size_t n)
{
	double v[8];
	for (size_t i = 0; i < n; i++)
		v[i] = x[idx[i]];
	qsort(v, n, sizeof(double), cmp_d);
	return (v[(n - 1) / 2] + v[n / 2]) / 2;
}

static void test_exact_enumeration(void **state)
{
	(void)state;
	for (size_t n = 1; n <= 7; n++) {
		double x[8];
		for (size_t i = 0; i < n; i++)
			x[i] = (double)(1u << i);
		/* exact probabilities, indexed by the median's value * 2 */
		double p[256] = { 0 }, f[256] = { 0 };
		size_t idx[8] = { 0 }, total = 1;
		for (size_t i = 0; i < n; i++)
			total *= n;
		for (size_t t = 0; t < total; t++) {
			size_t c = t;
			for (size_t i = 0; i < n; i++) {
				idx[i] = c % n;
				c /= n;
			}
			p[(int)(2 * median_of(x, idx, n))] += 1.0 / (double)total;
		}
		struct boot_median b;
		struct rng rng;
		rng_seed(&rng, 1000 + n);
		boot_median_init(&b, x, n);
		for (int k = 0; k < DRAWS; k++) {
			double m = boot_median_draw(&b, &rng);
			assert_true(m >= x[0] && m <= x[n - 1]);
			int key = (int)(2 * m);
			assert_true(key >= 0 && key < 256 && 2 * m == key);
			f[key] += 1.0 / DRAWS;
		}
		boot_median_release(&b);
		for (int key = 0; key < 256; key++) {
			double se = sqrt(p[key] * (1 - p[key]) / DRAWS);
			if (fabs(f[key] - p[key]) > 5 * se + 1e-9)
				fail_msg("n=%zu median %g: drawn %.5f, exact %.5f",
					 n, key / 2.0, f[key], p[key]);
		}
	}
}

/* Against brute-force resampling, n = 40 with ties: the two give the same
   distribution (quantiles within sampling error). */
static void test_against_resampling(void **state)
{
	(void)state;
	const size_t n = 40;
	double x[40];
	for (size_t i = 0; i < n; i++)
		x[i] = (double)((i * 7) % 13); /* ties */
	qsort(x, n, sizeof(double), cmp_d);
	struct rng rng;
	rng_seed(&rng, 7);
	struct boot_median b;
	boot_median_init(&b, x, n);
	enum { B = 100000 };
	double *drawn = malloc(B * sizeof(double)), *brute = malloc(B * sizeof(double));
	size_t idx[40];
	for (int k = 0; k < B; k++) {
		drawn[k] = boot_median_draw(&b, &rng);
		double v[40];
		for (size_t i = 0; i < n; i++)
			idx[i] = (size_t)rng_below(&rng, n);
		for (size_t i = 0; i < n; i++)
			v[i] = x[idx[i]];
		qsort(v, n, sizeof(double), cmp_d);
		brute[k] = (v[(n - 1) / 2] + v[n / 2]) / 2;
	}
	boot_median_release(&b);
	/* P(median* <= v) for every half-step v */
	for (double v = 0; v <= 12; v += 0.5) {
		double a = 0, c = 0;
		for (int k = 0; k < B; k++) {
			a += drawn[k] <= v;
			c += brute[k] <= v;
		}
		a /= B;
		c /= B;
		double se = sqrt((a * (1 - a) + c * (1 - c)) / B);
		if (fabs(a - c) > 5 * se + 1e-9)
			fail_msg("P(median* <= %g): sampler %.4f, resampling %.4f", v, a, c);
	}
	free(drawn);
	free(brute);
}

static void test_empty(void **state)
{
	(void)state;
	struct boot_median b;
	struct rng rng;
	rng_seed(&rng, 1);
	boot_median_init(&b, NULL, 0);
	assert_true(isnan(boot_median_draw(&b, &rng)));
	boot_median_release(&b);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_exact_enumeration),
		cmocka_unit_test(test_against_resampling),
		cmocka_unit_test(test_empty),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
