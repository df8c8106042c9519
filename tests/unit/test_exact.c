/*
 * Tests for analyze/exact: the sign-flip test, the signed-rank test
 * (against brute-force enumeration and SciPy's normal approximation),
 * Mann-Whitney and the
 * Hodges-Lehmann estimators against SciPy/NumPy reference values
 * (tests/data/reference/gen_exact.py -> exact_ref.h), plus selection,
 * Monte Carlo behaviour beyond 20 pairs, and Holm (analyze/holm).
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

#include "analyze/exact.h"
#include "analyze/holm.h"
#include "model/rng.h"
#include "../data/reference/exact_ref.h"

#define ARRAY_SIZE(a) (sizeof(a) / sizeof((a)[0]))

static void check_rel(const char *what, const char *set, double got,
		      double want, double tol)
{
	int ok;

	if (want == 0)
		ok = fabs(got) <= tol;
	else
		ok = fabs(got - want) <= tol * fmax(fabs(got), fabs(want));
	if (!ok)
		fail_msg("%s of '%s': got %.17g, want %.17g", what, set, got,
			 want);
}

static void test_signflip_reference(void **state)
{
	(void)state;
	for (size_t i = 0; i < ARRAY_SIZE(ref_signflips); i++) {
		const struct ref_signflip *r = &ref_signflips[i];
		double *neg = malloc(r->n * sizeof(*neg));
		struct rng rng;
		enum exact_method m;

		rng_seed(&rng, 1);
		for (size_t k = 0; k < r->n; k++)
			neg[k] = -r->d[k];
		/* Counts over 2^n patterns: exact, to the last bit. */
		check_rel("sign-flip p", r->name,
			  exact_signflip_p(r->d, r->n, 2000, &rng, &m),
			  r->p_greater, 1e-15);
		assert_int_equal(m, EXACT_ENUMERATED);
		check_rel("sign-flip p (less)", r->name,
			  exact_signflip_p(neg, r->n, 2000, &rng, NULL),
			  r->p_less, 1e-15);
		check_rel("HL paired", r->name, exact_hl_paired(r->d, r->n),
			  r->hl, 1e-14);
		free(neg);
	}
}

static void test_signflip_monte_carlo(void **state)
{
	double d[40];
	struct rng rng, data;
	enum exact_method m;
	double p1, p2, p_all_pos;

	(void)state;
	rng_seed(&data, 7);
	/* A clear shift: the observed pattern is rarely reached. */
	for (int i = 0; i < 40; i++)
		d[i] = 0.01 + 0.02 * (rng_uniform(&data) - 0.5);
	rng_seed(&rng, 3);
	p_all_pos = exact_signflip_p(d, 40, 2000, &rng, &m);
	assert_int_equal(m, EXACT_MONTE_CARLO);
	/* (1 + hits) / (B + 1): never below 1 / 2001 */
	assert_true(p_all_pos >= 1.0 / 2001 && p_all_pos < 0.01);

	/* Centred data: p near one half; the same seed repeats exactly. */
	for (int i = 0; i < 40; i++)
		d[i] = rng_uniform(&data) - 0.5;
	rng_seed(&rng, 11);
	p1 = exact_signflip_p(d, 40, 4000, &rng, NULL);
	rng_seed(&rng, 11);
	p2 = exact_signflip_p(d, 40, 4000, &rng, NULL);
	assert_true(p1 == p2);
	assert_true(p1 > 0.05 && p1 < 0.95);
	assert_true(exact_signflip_p(d, 0, 10, &rng, NULL) == 1);
}

/* P(W+ >= observed) by listing all 2^n sign patterns of the ranks of |d|
   (midranks for ties, zeros dropped): the definition itself. */
static double brute_signed_rank_p(const double *d, size_t n)
{
	double a[24], rank[24], obs = 0;
	size_t m = 0, hits = 0;

	for (size_t i = 0; i < n; i++)
		if (d[i] != 0)
			a[m++] = d[i];
	if (!m)
		return 1;
	for (size_t i = 0; i < m; i++) {
		double below = 0, same = 0;

		for (size_t j = 0; j < m; j++) {
			below += fabs(a[j]) < fabs(a[i]);
			same += fabs(a[j]) == fabs(a[i]);
		}
		rank[i] = below + (same + 1) / 2;
		if (a[i] > 0)
			obs += rank[i];
	}
	for (size_t mask = 0; mask < ((size_t)1 << m); mask++) {
		double w = 0;

		for (size_t i = 0; i < m; i++)
			if (mask >> i & 1)
				w += rank[i];
		hits += w >= obs - 1e-9;
	}
	return (double)hits / ldexp(1.0, (int)m);
}

static void test_signed_rank_exact(void **state)
{
	struct rng data;
	double d[16], neg[16], min_p;
	enum exact_method m;

	(void)state;
	rng_seed(&data, 5);
	for (int set = 0; set < 200; set++) {
		size_t n = 1 + (size_t)(rng_uniform(&data) * 16);
		char name[32];
		/* Half the sets are small integers: ties and zeros. */
		int coarse = set % 2;

		for (size_t i = 0; i < n; i++) {
			double u = rng_uniform(&data) - 0.3;

			d[i] = coarse ? round(u * 6) : u;
			neg[i] = -d[i];
		}
		snprintf(name, sizeof(name), "set %d (n %zu)", set, n);
		check_rel("signed-rank p", name, exact_signed_rank_p(d, n, &m, &min_p),
			  brute_signed_rank_p(d, n), 1e-12);
		assert_int_equal(m, EXACT_SR_EXACT);
		check_rel("signed-rank p (less)", name,
			  exact_signed_rank_p(neg, n, NULL, NULL),
			  brute_signed_rank_p(neg, n), 1e-12);
		assert_true(min_p > 0 && min_p <= 1);
	}
	/* All positive and distinct: the smallest p there is, 2^-n. */
	for (int i = 0; i < 12; i++)
		d[i] = 1 + i;
	check_rel("signed-rank p", "all positive", exact_signed_rank_p(d, 12, NULL, &min_p),
		  ldexp(1.0, -12), 1e-15);
	check_rel("signed-rank min p", "all positive", min_p, ldexp(1.0, -12), 1e-15);
	/* One disturbed round among nine, the largest of all, costs one rank:
	   W+ = 36 of 45, p = 33/512, where the sign-flip test on the mean
	   loses all evidence. */
	for (int i = 0; i < 8; i++)
		d[i] = 0.01 + 0.001 * i;
	d[8] = -0.5;
	check_rel("signed-rank p", "one outlier", exact_signed_rank_p(d, 9, NULL, NULL),
		  33.0 / 512, 1e-15);
	assert_true(exact_signflip_p(d, 9, 100, &data, NULL) > 0.4);
	/* Nothing but zeros: no evidence either way. */
	memset(d, 0, sizeof(d));
	assert_true(exact_signed_rank_p(d, 16, &m, &min_p) == 1 && min_p == 1);
	assert_true(exact_signed_rank_p(d, 0, NULL, NULL) == 1);
}

/* Beyond EXACT_SIGNED_RANK_MAX_N: the normal approximation with tie and
   continuity correction, against scipy.stats.wilcoxon(x,
   alternative='greater', method='approx', correction=True,
   zero_method='wilcox') for d_i = ((37 i) mod 41) - 18, i < 450. */
static void test_signed_rank_normal(void **state)
{
	static double d[450];
	enum exact_method m;
	double min_p;

	(void)state;
	for (int i = 0; i < 450; i++)
		d[i] = (double)((i * 37) % 41) - 18;
	check_rel("signed-rank p", "scipy d", exact_signed_rank_p(d, 450, &m, &min_p),
		  0.00022411076371419648, 1e-9);
	assert_int_equal(m, EXACT_SR_NORMAL);
	assert_true(min_p < 1e-50);
	for (int i = 0; i < 450; i++)
		d[i] += 0.5;
	check_rel("signed-rank p", "scipy d + 0.5", exact_signed_rank_p(d, 450, NULL, NULL),
		  9.816282724462726e-06, 1e-9);
	for (int i = 0; i < 450; i++)
		d[i] = -d[i];
	check_rel("signed-rank p", "scipy -d - 0.5", exact_signed_rank_p(d, 450, NULL, NULL),
		  0.9999901996509484, 1e-9);
}

static void test_mann_whitney_reference(void **state)
{
	(void)state;
	for (size_t i = 0; i < ARRAY_SIZE(ref_mws); i++) {
		const struct ref_mw *r = &ref_mws[i];
		enum exact_method m;
		double tol;

		check_rel("U", r->name,
			  exact_mann_whitney_u(r->x, r->nx, r->y, r->ny), r->u,
			  0);
		tol = 1e-12;
		check_rel("MW p greater", r->name,
			  exact_mann_whitney_p(r->x, r->nx, r->y, r->ny, &m),
			  r->p_greater, tol);
		assert_int_equal(m, r->exact ? EXACT_MW_EXACT : EXACT_MW_NORMAL);
		check_rel("MW p less", r->name,
			  exact_mann_whitney_p(r->y, r->ny, r->x, r->nx, NULL),
			  r->p_less, tol);
		check_rel("HL two-sample", r->name,
			  exact_hl_two_sample(r->x, r->nx, r->y, r->ny), r->hl,
			  1e-14);
	}
}

static void test_mann_whitney_edges(void **state)
{
	double a[5] = { 1, 1, 1, 1, 1 }, b[4] = { 1, 1, 1, 1 };
	double x[3] = { 5, 6, 7 }, y[3] = { 1, 2, 3 };

	(void)state;
	/* All tied: no spread, no evidence. */
	assert_true(exact_mann_whitney_p(a, 5, b, 4, NULL) == 1);
	assert_true(exact_mann_whitney_p(a, 0, b, 4, NULL) == 1);
	/* Complete separation: 1 / C(6, 3). */
	check_rel("separated", "3x3", exact_mann_whitney_p(x, 3, y, 3, NULL),
		  1.0 / 20, 1e-15);
	check_rel("separated", "3x3 less",
		  exact_mann_whitney_p(y, 3, x, 3, NULL), 1, 1e-15);
}

static int cmp_d(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return (x > y) - (x < y);
}

static void test_select_and_quantile(void **state)
{
	struct rng rng;

	(void)state;
	rng_seed(&rng, 99);
	for (int trial = 0; trial < 200; trial++) {
		size_t n = 1 + rng_below(&rng, 40);
		double a[40] = { 0 }, s[40], w[40];

		for (size_t i = 0; i < n; i++)
			a[i] = (double)rng_below(&rng, 8); /* many ties */
		memcpy(s, a, sizeof(a));
		qsort(s, n, sizeof(double), cmp_d);
		for (size_t k = 0; k < n; k++) {
			memcpy(w, a, sizeof(a));
			assert_true(exact_select(w, n, k) == s[k]);
			for (size_t i = 0; i < k; i++)
				assert_true(w[i] <= w[k]);
			for (size_t i = k + 1; i < n; i++)
				assert_true(w[i] >= w[k]);
		}
		memcpy(w, a, sizeof(a));
		{
			double h = (double)(n - 1) * 0.25, want;
			size_t lo = (size_t)floor(h);

			want = lo + 1 < n ? s[lo] + (h - lo) * (s[lo + 1] - s[lo])
					  : s[lo];
			check_rel("q25", "random", exact_quantile_inplace(w, n, 0.25),
				  want, 1e-15);
		}
	}
}

static void test_holm_values(void **state)
{
	/* R: p.adjust(c(0.01, 0.04, 0.03, 0.005), "holm") */
	double p[4] = { 0.01, 0.04, 0.03, 0.005 }, adj[4];
	double want[4] = { 0.03, 0.06, 0.06, 0.02 };
	double q[5] = { 0.2, NAN, 0.9, 0.01, 0.6 }, qa[5];

	(void)state;
	assert_int_equal(holm_adjust_values(p, 4, adj), 4);
	for (int i = 0; i < 4; i++)
		check_rel("holm", "4", adj[i], want[i], 1e-15);
	/* NaN is not in the family; adjusted values are capped at 1. */
	assert_int_equal(holm_adjust_values(q, 5, qa), 4);
	assert_true(isnan(qa[1]));
	check_rel("holm", "nan", qa[3], 0.04, 1e-15);
	check_rel("holm", "nan", qa[0], 0.6, 1e-15);
	check_rel("holm", "nan", qa[4], 1, 1e-15);
	check_rel("holm", "nan", qa[2], 1, 1e-15);
}


/*
 * The Hodges-Lehmann selection (O(n) memory) against the O(n^2) method it
 * replaced, on random data: every order statistic of the Walsh averages
 * and of the two-sample differences, the estimates, the interval and the
 * quantiles must be equal, exactly. Kinds of data: continuous, heavy ties
 * (small integers), negative and zero values, one huge outlier, and
 * values of mixed sign around zero (-0.0 among them).
 */
static void fill_random(struct rng *g, double *v, size_t n, int kind)
{
	for (size_t i = 0; i < n; i++) {
		double u = rng_uniform(g);
		switch (kind) {
		case 0: v[i] = u * 2 - 1; break;
		case 1: v[i] = (double)(int)(u * 5) - 2; break;
		case 2: v[i] = log(u + 1e-9) * 0.01; break;
		case 3: v[i] = i == n / 2 ? 1e12 : u; break;
		default: v[i] = u < 0.3 ? -0.0 : u < 0.6 ? 0.0 : u - 0.8; break;
		}
	}
}

static void test_hl_selection_matches_quadratic(void **state)
{
	(void)state;
	struct rng g;
	rng_seed(&g, 20261202);
	for (int trial = 0; trial < 300; trial++) {
		int kind = trial % 5;
		size_t n = 1 + (size_t)(rng_uniform(&g) * (trial < 100 ? 12 : 90));
		size_t ny = 1 + (size_t)(rng_uniform(&g) * 40);
		double *d = calloc(n, sizeof(double)), *y = calloc(ny, sizeof(double));
		fill_random(&g, d, n, kind);
		fill_random(&g, y, ny, (kind + 1) % 5);
		size_t M;
		double *w = exact_walsh_sorted(d, n, &M);
		double *a = exact_sorted_copy(d, n);
		assert_int_equal(M, n * (n + 1) / 2);
		for (size_t k = 0; k < M; k += 1 + (M > 200 ? (size_t)(rng_uniform(&g) * 40) : 0))
			if (exact_walsh_select(a, n, k) != w[k]) {
				fprintf(stderr, "trial %d kind %d n %zu: Walsh k=%zu: %.17g, not %.17g\n",
					trial, kind, n, k, exact_walsh_select(a, n, k), w[k]);
				fail();
			}
		assert_true(exact_walsh_select(a, n, M - 1) == w[M - 1]);
		double p1 = exact_hl_paired(d, n), p2 = exact_hl_paired_quadratic(d, n);
		assert_true(p1 == p2);
		double x1 = exact_hl_two_sample(d, n, y, ny);
		double x2 = exact_hl_two_sample_quadratic(d, n, y, ny);
		assert_true(x1 == x2);
		/* every order statistic of the differences, small cases */
		if (n * ny <= 400) {
			double *diffs = calloc(n * ny, sizeof(double)), *ys = exact_sorted_copy(y, ny);
			size_t k = 0;
			for (size_t i = 0; i < ny; i++)
				for (size_t j = 0; j < n; j++)
					diffs[k++] = d[j] - y[i];
			for (size_t r = 0; r < k; r++) {
				double want = exact_select(diffs, k, r);
				assert_true(exact_diff_select(a, n, ys, ny, r) == want);
			}
			free(diffs);
			free(ys);
		}
		double lo1, hi1, lo2, hi2;
		for (int c = 0; c < 3; c++) {
			double conf = c == 0 ? 0.95 : c == 1 ? 0.5 : 0.999;
			exact_hl_interval(w, n, conf, &lo1, &hi1);
			exact_hl_interval_sorted(a, n, conf, &lo2, &hi2);
			assert_true(lo1 == lo2 && hi1 == hi2);
		}
		double q1[101], q2[101];
		exact_hl_quantiles(w, n, 101, q1);
		exact_hl_quantiles_sorted(a, n, 101, q2);
		for (int i = 0; i < 101; i++)
			assert_true(q1[i] == q2[i]);
		free(w);
		free(a);
		free(d);
		free(y);
	}
}

/* Beyond the exact signed-rank distribution (n > 400), and a size whose
   Walsh averages the quadratic method can still hold: still equal. */
static void test_hl_selection_large(void **state)
{
	(void)state;
	struct rng g;
	rng_seed(&g, 7);
	/* 2100 rounds: 2.2 million Walsh averages, past the sorted copy the
	   quantiles use below 2^21, so these come by selection too */
	size_t n = 2100, M;
	double *d = calloc(n, sizeof(double));
	fill_random(&g, d, n, 2);
	double *w = exact_walsh_sorted(d, n, &M), *a = exact_sorted_copy(d, n);
	assert_true(exact_hl_paired(d, n) == exact_hl_paired_quadratic(d, n));
	double lo1, hi1, lo2, hi2, q1[101], q2[101];
	exact_hl_interval(w, n, 0.95, &lo1, &hi1);
	exact_hl_interval_sorted(a, n, 0.95, &lo2, &hi2);
	assert_true(lo1 == lo2 && hi1 == hi2);
	exact_hl_quantiles(w, n, 101, q1);
	exact_hl_quantiles_sorted(a, n, 101, q2);
	for (int i = 0; i < 101; i++)
		assert_true(q1[i] == q2[i]);
	free(w);
	free(a);
	free(d);
}

/*
 * The 2,000 bootstrap quantiles a comparison draws (resamples), selected
 * together (ranks sharing a listing near the middle, ties splitting a
 * bracket), equal the sorted Walsh averages at every rank: with many
 * distinct values, with few (five: most averages tied), and with signed
 * zeros.
 */
static void test_hl_quantiles_many(void **state)
{
	(void)state;
	static const int kinds[] = {0, 1, 4};
	struct rng g;
	rng_seed(&g, 40);
	for (size_t t = 0; t < sizeof(kinds) / sizeof(kinds[0]); t++) {
		size_t n = 2100, M, B = 2000;
		double *d = calloc(n, sizeof(double));
		fill_random(&g, d, n, kinds[t]);
		double *w = exact_walsh_sorted(d, n, &M), *a = exact_sorted_copy(d, n);
		double *q1 = calloc(B, sizeof(double)), *q2 = calloc(B, sizeof(double));
		exact_hl_quantiles(w, n, B, q1);
		exact_hl_quantiles_sorted(a, n, B, q2);
		size_t last = (size_t)-1;
		double one = 0;
		for (size_t i = 0; i < B; i++) {
			/* the rank of quantile i is where the sorted averages
			   hold q1[i]; one selection of it gives the very same
			   double (a zero's sign too) */
			size_t r = 0, hi = M;
			while (r < hi) { /* the first average not below q1[i] */
				size_t mid = r + (hi - r) / 2;
				if (w[mid] < q1[i])
					r = mid + 1;
				else
					hi = mid;
			}
			if (r != last)
				one = exact_walsh_select(a, n, r);
			last = r;
			if (!(q1[i] == q2[i] && signbit(one) == signbit(q2[i]))) {
				fprintf(stderr, "kind %d quantile %zu: %.17g, not %.17g\n", kinds[t],
					i, q2[i], q1[i]);
				fail();
			}
		}
		free(q1);
		free(q2);
		free(w);
		free(a);
		free(d);
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_signflip_reference),
		cmocka_unit_test(test_signflip_monte_carlo),
		cmocka_unit_test(test_signed_rank_exact),
		cmocka_unit_test(test_signed_rank_normal),
		cmocka_unit_test(test_mann_whitney_reference),
		cmocka_unit_test(test_mann_whitney_edges),
		cmocka_unit_test(test_select_and_quantile),
		cmocka_unit_test(test_hl_selection_matches_quadratic),
		cmocka_unit_test(test_hl_selection_large),
		cmocka_unit_test(test_hl_quantiles_many),
		cmocka_unit_test(test_holm_values),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
