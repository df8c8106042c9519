/*
 * Tests for analyze/rng: the published xoshiro256** and splitmix64 outputs,
 * and the properties resampling relies on (range, uniformity, determinism).
 */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <math.h>
#include <string.h>

#include "model/rng.h"

static void test_xoshiro_reference(void **state)
{
	/* Reference implementation output from the state {1, 2, 3, 4}. */
	static const uint64_t want[] = {
		11520ULL,
		0ULL,
		1509978240ULL,
		1215971899390074240ULL,
		1216172134540287360ULL,
		607988272756665600ULL,
		16172922978634559625ULL,
		8476171486693032832ULL,
		10595114339597558777ULL,
		2904607092377533576ULL,
	};
	struct rng r = { { 1, 2, 3, 4 } };

	(void)state;
	for (size_t i = 0; i < sizeof(want) / sizeof(want[0]); i++)
		assert_true(rng_next(&r) == want[i]);
}

static void test_splitmix_reference(void **state)
{
	static const uint64_t want0[] = { 0xe220a8397b1dcdafULL,
					  0x6e789e6aa1b965f4ULL,
					  0x06c45d188009454fULL };
	static const uint64_t want1234567[] = {
		6457827717110365317ULL, 3203168211198807973ULL,
		9817491932198370423ULL, 4593380528125082431ULL,
		16408922859458223821ULL,
	};
	uint64_t st = 0;

	(void)state;
	for (size_t i = 0; i < 3; i++)
		assert_true(rng_splitmix64(&st) == want0[i]);
	st = 1234567;
	for (size_t i = 0; i < 5; i++)
		assert_true(rng_splitmix64(&st) == want1234567[i]);
}

static void test_seeded_stream(void **state)
{
	/*
	 * Seeding through splitmix64 as the authors recommend (and as Rust's
	 * rand_xoshiro seed_from_u64 does): seed 42 gives these outputs.
	 */
	static const uint64_t want[] = { 1546998764402558742ULL,
					 6990951692964543102ULL,
					 12544586762248559009ULL };
	struct rng r, r2;

	(void)state;
	rng_seed(&r, 42);
	for (size_t i = 0; i < 3; i++)
		assert_true(rng_next(&r) == want[i]);
	/* Same seed, same stream; another seed, another stream. */
	rng_seed(&r, 7);
	rng_seed(&r2, 7);
	for (int i = 0; i < 100; i++)
		assert_true(rng_next(&r) == rng_next(&r2));
	rng_seed(&r2, 8);
	assert_true(rng_next(&r) != rng_next(&r2));
	/* Seed 0 is a valid seed (the state is never all zero). */
	rng_seed(&r, 0);
	assert_true(r.s[0] | r.s[1] | r.s[2] | r.s[3]);
}

static void test_below_range_and_uniform(void **state)
{
	enum { K = 10, N = 100000 };
	unsigned counts[K] = { 0 };
	double chi2 = 0, expect = (double)N / K;
	struct rng r;

	(void)state;
	rng_seed(&r, 12345);
	for (int i = 0; i < N; i++) {
		uint64_t v = rng_below(&r, K);
		assert_true(v < K);
		counts[v]++;
	}
	for (int k = 0; k < K; k++)
		chi2 += (counts[k] - expect) * (counts[k] - expect) / expect;
	/* 9 degrees of freedom: 27.88 is the 0.999 quantile. */
	assert_true(chi2 < 27.88);

	for (int i = 0; i < 1000; i++)
		assert_true(rng_below(&r, 1) == 0);
	assert_true(rng_below(&r, 0) == 0);
	/* A bound just above 2^63 rejects about half the draws: still in range. */
	for (int i = 0; i < 1000; i++)
		assert_true(rng_below(&r, (1ULL << 63) + 1) <= (1ULL << 63));
	for (int i = 0; i < 1000; i++) {
		uint64_t v = rng_below(&r, 3);
		assert_true(v < 3);
	}
}

static void test_below_small_bounds_all_hit(void **state)
{
	/* Every value of small bounds appears (a resample index must). */
	struct rng r;

	(void)state;
	rng_seed(&r, 99);
	for (uint64_t n = 2; n <= 40; n++) {
		int seen[40] = { 0 }, distinct = 0;
		for (int i = 0; i < 2000; i++) {
			uint64_t v = rng_below(&r, n);
			assert_true(v < n);
			if (!seen[v]++)
				distinct++;
		}
		assert_int_equal(distinct, (int)n);
	}
}

static void test_uniform(void **state)
{
	enum { N = 200000 };
	double sum = 0, lo = 1, hi = 0;
	struct rng r;

	(void)state;
	rng_seed(&r, 2024);
	for (int i = 0; i < N; i++) {
		double u = rng_uniform(&r);
		assert_true(u >= 0 && u < 1);
		/* On the 2^-53 grid. */
		assert_true(ldexp(u, 53) == floor(ldexp(u, 53)));
		sum += u;
		if (u < lo)
			lo = u;
		if (u > hi)
			hi = u;
	}
	/* Mean 0.5, sd of the mean sqrt(1/12/N) = 0.00065: 6 sigma. */
	assert_true(fabs(sum / N - 0.5) < 0.004);
	assert_true(lo < 0.001 && hi > 0.999);
}

static void test_seed_from(void **state)
{
	(void)state;
	/* Pinned: these must never change, or old reports stop reproducing. */
	assert_true(rng_seed_from(42, "parse/fast/latency") ==
		    687374238232453860ULL);
	assert_true(rng_seed_from(0, "") == 6566800829925814604ULL);
	assert_true(rng_seed_from(1, "a") == 2173342480884055955ULL);
	assert_true(rng_seed_from(0, NULL) == rng_seed_from(0, ""));
	assert_true(rng_seed_from(42, "a") != rng_seed_from(42, "b"));
	assert_true(rng_seed_from(42, "a") != rng_seed_from(43, "a"));
	assert_true(rng_seed_from(42, "ab") != rng_seed_from(42, "ba"));
	assert_true(rng_seed_from(42, "a") == rng_seed_from(42, "a"));
}

static void test_random_seed(void **state)
{
	(void)state;
	/* 2^-64 odds of a false failure. */
	assert_true(rng_random_seed() != rng_random_seed());
}

static void test_shuffle(void **state)
{
	int a[50], b[50], seen[50];
	struct rng r, r2;
	int moved = 0;

	(void)state;
	for (int i = 0; i < 50; i++)
		a[i] = b[i] = i;
	rng_seed(&r, 5);
	r2 = r;
	rng_shuffle(&r, a, 50, sizeof(a[0]));
	rng_shuffle(&r2, b, 50, sizeof(b[0]));
	assert_memory_equal(a, b, sizeof(a));
	memset(seen, 0, sizeof(seen));
	for (int i = 0; i < 50; i++) {
		assert_true(a[i] >= 0 && a[i] < 50);
		assert_int_equal(seen[a[i]]++, 0);
		moved += a[i] != i;
	}
	assert_true(moved > 25);
	rng_shuffle(&r, a, 0, sizeof(a[0]));
	rng_shuffle(&r, a, 1, sizeof(a[0]));

	/* Each of the 6 orders of 3 items shows up about equally often. */
	unsigned counts[6] = { 0 };
	for (int t = 0; t < 6000; t++) {
		char s[3] = { 0, 1, 2 };
		rng_shuffle(&r, s, 3, 1);
		counts[s[0] * 2 + (s[1] > s[2])]++;
	}
	for (int k = 0; k < 6; k++)
		assert_true(counts[k] > 850 && counts[k] < 1150);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_xoshiro_reference),
		cmocka_unit_test(test_splitmix_reference),
		cmocka_unit_test(test_seeded_stream),
		cmocka_unit_test(test_below_range_and_uniform),
		cmocka_unit_test(test_below_small_bounds_all_hit),
		cmocka_unit_test(test_uniform),
		cmocka_unit_test(test_seed_from),
		cmocka_unit_test(test_random_seed),
		cmocka_unit_test(test_shuffle),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
