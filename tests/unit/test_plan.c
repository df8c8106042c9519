/*
 * Tests for plan/: the sequence of a round in each order (abba and
 * alternate spelled out, random as a seeded permutation), and the schedule
 * — warm-up rounds, runs owed per round, the adaptive stop, and when rounds
 * may be batched ahead — as tables of inputs and expected answers.
 */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "model/rng.h"
#include "model/sequential.h"
#include "plan/plan.h"
#include "suite/model.h"

/* Units as letters: side 0 = base 'B'/'b', side 1 = head 'H'/'h', upper
   case for command 0, lower case for command 1. */
static const struct plan_unit two[] = { { 0, 0 }, { 1, 0 } };
static const struct plan_unit four[] = { { 0, 0 }, { 1, 0 }, { 0, 1 }, { 1, 1 } };

static void spell(const struct plan_unit *seq, size_t n, char *out)
{
	for (size_t i = 0; i < n; i++) {
		char c = seq[i].side ? 'H' : 'B';
		out[i] = seq[i].command ? (char)(c - 'A' + 'a') : c;
	}
	out[n] = '\0';
}

static void test_round_orders(void **state)
{
	(void)state;
	static const struct {
		enum run_order order;
		const struct plan_unit *units;
		size_t n;
		int runs[4];
		int round;
		const char *want;
	} cases[] = {
		/* docs/statistics.md: abba mirrors, flipping every round. */
		{ ORDER_ABBA, two, 2, { 2, 2 }, 0, "BHHB" },
		{ ORDER_ABBA, two, 2, { 2, 2 }, 1, "HBBH" },
		{ ORDER_ABBA, two, 2, { 2, 2 }, 2, "BHHB" },
		{ ORDER_ABBA, two, 2, { 1, 1 }, 0, "BH" },
		{ ORDER_ABBA, two, 2, { 1, 1 }, 1, "HB" },
		{ ORDER_ABBA, four, 4, { 2, 2, 2, 2 }, 0, "BHbhhbHB" },
		{ ORDER_ABBA, four, 4, { 2, 2, 2, 2 }, 1, "hbHBBHbh" },
		/* alternate repeats the unit list. */
		{ ORDER_ALTERNATE, two, 2, { 2, 2 }, 0, "BHBH" },
		{ ORDER_ALTERNATE, two, 2, { 2, 2 }, 1, "BHBH" },
		{ ORDER_ALTERNATE, two, 2, { 3, 3 }, 5, "BHBHBH" },
		{ ORDER_ALTERNATE, four, 4, { 2, 2, 2, 2 }, 0, "BHbhBHbh" },
		/* A unit that owes fewer runs (or none) drops out of later passes. */
		{ ORDER_ALTERNATE, two, 2, { 2, 1 }, 0, "BHB" },
		{ ORDER_ALTERNATE, two, 2, { 0, 2 }, 0, "HH" },
		{ ORDER_ABBA, two, 2, { 1, 2 }, 0, "BHH" },
		{ ORDER_ABBA, four, 4, { 2, 0, 0, 2 }, 0, "BhhB" },
		{ ORDER_ALTERNATE, two, 2, { 0, 0 }, 0, "" },
	};
	struct plan_unit *seq = NULL;
	size_t alloc = 0;
	char got[32];
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		size_t n = plan_round(cases[i].order, cases[i].units, cases[i].runs,
				      cases[i].n, cases[i].round, NULL, &seq, &alloc);
		spell(seq, n, got);
		if (strcmp(got, cases[i].want))
			fail_msg("case %zu (%s, round %d): got '%s', want '%s'", i,
				 plan_order_name(cases[i].order), cases[i].round, got,
				 cases[i].want);
	}
	free(seq);
}

/* random: every unit as often as it owes, each pass shuffled on its own,
   reproducible from the seed. */
static void test_round_random(void **state)
{
	(void)state;
	int runs[4] = { 2, 2, 1, 3 };
	struct plan_unit *a = NULL, *b = NULL;
	size_t aa = 0, ba = 0;
	struct rng r1, r2;
	char sa[32], sb[32];
	int differs = 0, first[4] = { 0, 0, 0, 0 };
	for (int round = 0; round < 20; round++) {
		rng_seed(&r1, 42 + (uint64_t)round);
		rng_seed(&r2, 42 + (uint64_t)round);
		size_t n1 = plan_round(ORDER_RANDOM, four, runs, 4, round, &r1, &a, &aa);
		size_t n2 = plan_round(ORDER_RANDOM, four, runs, 4, round, &r2, &b, &ba);
		assert_int_equal(n1, 8);
		assert_int_equal(n2, 8);
		spell(a, n1, sa);
		spell(b, n2, sb);
		assert_string_equal(sa, sb);
		int count[4] = { 0, 0, 0, 0 };
		for (size_t k = 0; k < n1; k++)
			count[a[k].side + 2 * (int)a[k].command]++;
		assert_int_equal(count[0], 2);
		assert_int_equal(count[1], 2);
		assert_int_equal(count[2], 1);
		assert_int_equal(count[3], 3);
		/* Shuffled pass by pass: pass 1 is the four units, pass 2
		   the three that owe a second run, pass 3 the last one. */
		int pass1[4] = { 0, 0, 0, 0 }, pass2[4] = { 0, 0, 0, 0 };
		for (size_t k = 0; k < 4; k++)
			pass1[a[k].side + 2 * (int)a[k].command]++;
		for (size_t k = 4; k < 7; k++)
			pass2[a[k].side + 2 * (int)a[k].command]++;
		for (int u = 0; u < 4; u++) {
			assert_int_equal(pass1[u], 1);
			assert_int_equal(pass2[u], u == 2 ? 0 : 1);
		}
		assert_int_equal(a[7].side + 2 * (int)a[7].command, 3);
		differs |= strcmp(sa, "BHbhBHhh") != 0;
		first[a[0].side + 2 * (int)a[0].command]++;
	}
	assert_true(differs); /* it does shuffle */
	for (int u = 0; u < 4; u++) /* and any unit may go first */
		assert_true(first[u] > 0);
	free(a);
	free(b);
}

static void test_order_names(void **state)
{
	(void)state;
	assert_string_equal(plan_order_name(ORDER_RANDOM), "random");
	assert_string_equal(plan_order_name(ORDER_ABBA), "abba");
	assert_string_equal(plan_order_name(ORDER_ALTERNATE), "alternate");
}

static void test_counts(void **state)
{
	(void)state;
	static const struct { int runs, per_round, rounds; } r[] = {
		{ 0, 2, 0 }, { 1, 2, 1 }, { 2, 2, 1 }, { 3, 2, 2 }, { 20, 2, 10 },
		{ 7, 1, 7 }, { 7, 3, 3 },
	};
	for (size_t i = 0; i < sizeof(r) / sizeof(r[0]); i++)
		assert_int_equal(plan_rounds_for(r[i].runs, r[i].per_round), r[i].rounds);
	static const struct { int left, per_round, share; } s[] = {
		{ -1, 2, 0 }, { 0, 2, 0 }, { 1, 2, 1 }, { 2, 2, 2 }, { 9, 2, 2 }, { 5, 1, 1 },
	};
	for (size_t i = 0; i < sizeof(s) / sizeof(s[0]); i++)
		assert_int_equal(plan_share(s[i].left, s[i].per_round), s[i].share);
}

static struct settings make_settings(int runs, int per_round, int warmup,
				     int min_runs, int max_runs, int64_t min_time_ns)
{
	struct settings st;
	memset(&st, 0, sizeof(st));
	st.order = ORDER_ABBA;
	st.runs = runs;
	st.runs_per_round = per_round;
	st.warmup = warmup;
	st.min_runs = min_runs;
	st.max_runs = max_runs;
	st.min_time_ns = min_time_ns;
	return st;
}

static void test_schedule(void **state)
{
	(void)state;
	static const struct {
		int runs, per_round, warmup, min_runs, max_runs;
		int runs_override, warmup_override;
		/* expected */
		int fixed, min, max, warm_rounds, total_rounds;
	} cases[] = {
		/* runs: 20 is ten rounds of two; one warm-up run is one round. */
		{ 20, 2, 1, 10, 100, -1, -1, 20, 20, 20, 1, 10 },
		/* adaptive: up to max_runs */
		{ 0, 2, 1, 10, 100, -1, -1, 0, 10, 100, 1, 50 },
		/* --runs and --warmup override the suite */
		{ 0, 2, 1, 10, 100, 6, 0, 6, 6, 6, 0, 3 },
		{ 20, 1, 3, 10, 100, -1, 4, 20, 20, 20, 4, 20 },
		{ 5, 2, 3, 10, 100, -1, -1, 5, 5, 5, 2, 3 },
	};
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		struct settings st = make_settings(cases[i].runs, cases[i].per_round,
						   cases[i].warmup, cases[i].min_runs,
						   cases[i].max_runs, 0);
		struct plan_schedule s;
		plan_schedule_init(&s, &st, cases[i].runs_override, cases[i].warmup_override);
		assert_int_equal(s.order, ORDER_ABBA);
		assert_int_equal(s.fixed, cases[i].fixed);
		assert_int_equal(s.min_runs, cases[i].min);
		assert_int_equal(s.max_runs, cases[i].max);
		assert_int_equal(s.warm_rounds, cases[i].warm_rounds);
		assert_int_equal(s.total_rounds, cases[i].total_rounds);
	}
}

static void test_owed(void **state)
{
	(void)state;
	/* warmup 3 at 2 per round: rounds 0, 1 warm (2 + 1); then runs 5. */
	struct settings st = make_settings(5, 2, 3, 10, 100, 0);
	struct plan_schedule s;
	plan_schedule_init(&s, &st, -1, -1);
	static const struct { int round, measured, owed; } cases[] = {
		{ 0, 0, 2 }, { 1, 0, 1 },	       /* warm-up */
		{ 2, 0, 2 }, { 3, 2, 2 }, { 4, 4, 1 }, /* the fifth run alone */
		{ 5, 5, 0 },			       /* done */
	};
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++)
		assert_int_equal(plan_owed(&s, cases[i].round, cases[i].measured),
				 cases[i].owed);
}

static void test_adaptive_stop(void **state)
{
	(void)state;
	/* min_runs 4, max_runs 8, min_time 1 s */
	struct settings st = make_settings(0, 2, 0, 4, 8, 1000000000);
	struct plan_schedule s;
	plan_schedule_init(&s, &st, -1, -1);
	static const struct {
		int measured;
		int64_t time_ns;
		int more, certain;
	} cases[] = {
		{ 0, 0, 1, 1 },
		{ 2, 5000000000, 1, 1 },  /* below min_runs, whatever the time */
		{ 4, 100000000, 1, 0 },   /* min_runs reached, min_time not */
		{ 4, 1000000000, 0, 0 },  /* both reached: stop */
		{ 6, 2000000000, 0, 0 },
		{ 8, 0, 0, 0 },		  /* max_runs ends it */
	};
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		assert_int_equal(plan_wants_more(&s, cases[i].measured, cases[i].time_ns),
				 cases[i].more);
		assert_int_equal(plan_round_certain(&s, cases[i].measured),
				 cases[i].certain);
	}
	/* A fixed schedule is always certain. */
	st = make_settings(6, 2, 0, 4, 8, 0);
	plan_schedule_init(&s, &st, -1, -1);
	assert_true(plan_round_certain(&s, 5));
}

/* The looks of the sequential design and the error they spend. */
static void test_sequential_looks(void **state)
{
	static const struct {
		int N;
		const char *looks;
	} cases[] = {
		{ 50, "5 8 12 16 24 32 50" },	/* max_runs 100: 48 is left out */
		{ 32, "5 8 12 16 24 32" },
		{ 64, "5 8 12 16 24 32 48 64" },
		{ 40, "5 8 12 16 24 32 40" },	/* 32 + 8: a quarter, kept */
		{ 10, "5 8 10" },
		{ 4, "4" },
		{ 200, "5 8 12 16 24 32 48 64 96 144 200" }, /* 144 + 56 > 144/4 */
		{ 100, "5 8 12 16 24 32 48 64 100" },	/* 96 is left out */
	};

	(void)state;
	for (size_t c = 0; c < sizeof(cases) / sizeof(cases[0]); c++) {
		char got[256] = "";
		size_t len = 0;
		int N = cases[c].N, spent_at = 0;
		double total = 0;

		for (int n = seq_next_look(0, N);; n = seq_next_look(n, N)) {
			double level = seq_level(0.05, n, spent_at, N, 1);

			assert_true(seq_is_look(n, N));
			len += (size_t)snprintf(got + len, sizeof(got) - len, "%s%d",
						len ? " " : "", n);
			if (level > 0) {
				total += level;
				spent_at = n;
			}
			if (n == N)
				break;
		}
		if (strcmp(got, cases[c].looks))
			fail_msg("N = %d: looks %s, want %s", N, got, cases[c].looks);
		/* All of alpha is spent, never more (a look that cannot pass
		   hands its share on, the last one spends the rest) — unless
		   even 2^-N is above alpha: then nothing can be decided. */
		if (N >= 5)
			assert_true(total <= 0.05 + 1e-12 && total > 0.05 - 1e-12);
		else
			assert_true(total == 0);
	}
	for (int n = 1; n < 50; n++)
		assert_int_equal(seq_is_look(n, 50), n == 5 || n == 8 || n == 12 || n == 16 ||
							     n == 24 || n == 32);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_round_orders),
		cmocka_unit_test(test_round_random),
		cmocka_unit_test(test_order_names),
		cmocka_unit_test(test_counts),
		cmocka_unit_test(test_schedule),
		cmocka_unit_test(test_owed),
		cmocka_unit_test(test_adaptive_stop),
		cmocka_unit_test(test_sequential_looks),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
