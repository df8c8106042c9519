/*
 * Tests for analyze/profile.c: Benjamini-Hochberg against R's
 * p.adjust(method = "BH"), the per-run time estimate (share of samples x
 * CPU time), paired verdicts with a grown, a shrunk and unchanged
 * functions, too few samples, the ordering, and the folded stacks.
 */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <math.h>
#include <stdio.h>
#include <string.h>

#include "analyze/profile.h"
#include "base/sbuf.h"

static void test_bh(void **state)
{
	(void)state;
	/* p.adjust(c(0.01, 0.04, 0.03, 0.005, NA), "BH") */
	double p[] = { 0.01, 0.04, 0.03, 0.005, NAN };
	double q[5];
	profile_bh(p, q, 5);
	assert_float_equal(q[0], 0.02, 1e-12);
	assert_float_equal(q[1], 0.04, 1e-12);
	assert_float_equal(q[2], 0.04, 1e-12);
	assert_float_equal(q[3], 0.02, 1e-12);
	assert_true(isnan(q[4]));
	/* p.adjust(c(0.5, 0.9, 0.04), "BH") = 0.75 0.90 0.12 */
	double p2[] = { 0.5, 0.9, 0.04 };
	profile_bh(p2, p2, 3);
	assert_float_equal(p2[0], 0.75, 1e-12);
	assert_float_equal(p2[1], 0.9, 1e-12);
	assert_float_equal(p2[2], 0.12, 1e-12);
}

/* Add one run: counts of self samples of funcs grow/shrink/same/rare. */
static void run(struct profile_set *ps, int side, int round, const size_t *fn,
		const unsigned *count, size_t n)
{
	uint64_t total = 0;
	for (size_t i = 0; i < n; i++)
		total += count[i];
	/* cpu-clock at 4 kHz: one sample per 250 us of CPU */
	struct profile_run *r = profile_run_add(ps, side, round,
						(double)total * 250000.0);
	for (size_t i = 0; i < n; i++)
		for (unsigned k = 0; k < count[i]; k++) {
			size_t frames[2] = { fn[i], fn[4] };
			profile_run_sample(ps, r, frames, 2);
		}
}

static void test_verdicts(void **state)
{
	(void)state;
	struct profile_set ps = PROFILE_SET_INIT;
	size_t fn[5];
	fn[0] = profile_func_intern(&ps, "grows", "prog");
	fn[1] = profile_func_intern(&ps, "shrinks", "prog");
	fn[2] = profile_func_intern(&ps, "same", "prog");
	fn[3] = profile_func_intern(&ps, "rare", "libc.so.6");
	fn[4] = profile_func_intern(&ps, "main", "prog");
	assert_int_equal(profile_func_intern(&ps, "grows", "prog"), fn[0]);
	assert_int_not_equal(profile_func_intern(&ps, "grows", "other"), fn[0]);
	/* Deterministic "noise" that differs by round and side. */
	for (int k = 1; k <= 10; k++) {
		unsigned wob = (unsigned)(k * 7 % 5);
		unsigned base[4] = { 400 + wob, 400 + 3 - wob % 3, 400 + wob * 2,
				     (unsigned)(k % 2) };
		unsigned head[4] = { 460 + (unsigned)(k * 3 % 4), 340 + wob,
				     400 + (unsigned)(k % 3) * 2 + wob % 2,
				     (unsigned)(k % 2) };
		run(&ps, PROFILE_BASE, k, fn, base, 4);
		run(&ps, PROFILE_HEAD, k, fn, head, 4);
	}
	profile_analyze(&ps, 0.95);
	assert_int_equal(ps.pairs, 10);
	assert_int_equal(ps.nr_changes, 5);
	const struct profile_change *c = ps.changes;
	/* grown first, then shrunk */
	assert_string_equal(ps.funcs[c[0].func].function, "grows");
	assert_int_equal(c[0].verdict, PROFILE_GREW);
	/* ~60 samples more per run = 15 ms */
	assert_true(c[0].change_ns > 13e6 && c[0].change_ns < 17e6);
	assert_true(c[0].ci_low_ns > 0 && c[0].ci_high_ns > c[0].ci_low_ns);
	assert_true(c[0].q_value < 0.05);
	assert_float_equal(c[0].self_ns[PROFILE_BASE], 402 * 250000.0, 1e6);
	assert_string_equal(ps.funcs[c[1].func].function, "shrinks");
	assert_int_equal(c[1].verdict, PROFILE_SHRANK);
	assert_true(c[1].ci_high_ns < 0);
	for (size_t i = 2; i < ps.nr_changes; i++) {
		const char *name = ps.funcs[c[i].func].function;
		if (!strcmp(name, "rare")) {
			assert_int_equal(c[i].verdict, PROFILE_TOO_FEW);
			assert_true(isnan(c[i].q_value));
			assert_true(i >= 3); /* after the tested ones */
		} else if (!strcmp(name, "main")) {
			/* never a leaf: no self time, inclusive = all */
			assert_int_equal(c[i].verdict, PROFILE_TOO_FEW);
			assert_true(c[i].incl_ns[PROFILE_HEAD] > 3e8);
		} else {
			assert_string_equal(name, "same");
			assert_int_equal(c[i].verdict, PROFILE_SAME);
		}
	}
	assert_string_equal(profile_verdict_name(PROFILE_TOO_FEW),
			    "too_few_samples");
	assert_int_equal(profile_verdict_parse("grew"), PROFILE_GREW);
	assert_int_equal(profile_verdict_parse("bigger"), -1);

	struct sbuf f = SBUF_INIT;
	profile_folded(&ps, PROFILE_BASE, &f);
	assert_non_null(strstr(f.buf, "main;grows "));
	assert_true(strstr(f.buf, "main;grows ") < strstr(f.buf, "main;same "));
	sbuf_release(&f);
	profile_set_release(&ps);
}

/* One side only (`run --profile`): times, no tests. */
static void test_one_side(void **state)
{
	(void)state;
	struct profile_set ps = PROFILE_SET_INIT;
	size_t fn[5];
	for (int i = 0; i < 5; i++)
		fn[i] = profile_func_intern(&ps, i == 4 ? "main" : i ? "b" : "a",
					    "p");
	unsigned count[4] = { 30, 10, 0, 0 };
	run(&ps, PROFILE_HEAD, 1, fn, count, 2);
	run(&ps, PROFILE_HEAD, 2, fn, count, 2);
	profile_analyze(&ps, 0.95);
	assert_int_equal(ps.pairs, 0);
	assert_string_equal(ps.funcs[ps.changes[0].func].function, "a");
	assert_int_equal(ps.changes[0].verdict, PROFILE_SAME);
	assert_true(isnan(ps.changes[0].p_value));
	assert_float_equal(ps.changes[0].self_ns[PROFILE_HEAD], 30 * 250000.0, 1);
	profile_set_release(&ps);
}

/*
 * Many functions and more pairs than the sign-flip test enumerates: a
 * clear change must still pass Benjamini-Hochberg over 300 functions (a
 * Monte-Carlo p floored at 1/(resamples + 1) could not), and the
 * unchanged ones stay `same`.
 */
static void test_many_functions(void **state)
{
	(void)state;
	enum { NF = 300, PAIRS = 30 };
	struct profile_set ps = PROFILE_SET_INIT;
	size_t fn[NF];
	for (int f = 0; f < NF; f++) {
		char name[32];
		snprintf(name, sizeof(name), "f%d", f);
		fn[f] = profile_func_intern(&ps, name, "prog");
	}
	for (int k = 1; k <= PAIRS; k++)
		for (int side = 0; side < PROFILE_SIDES; side++) {
			struct profile_run *r = profile_run_add(&ps, side, k, 0);
			uint64_t total = 0;
			for (int f = 0; f < NF; f++) {
				/* f0 grows by 20%; all wobble by round */
				uint64_t n = 100 + (uint64_t)((k * 7 + f * 3 + side * 5) % 11);
				if (f == 0 && side == PROFILE_HEAD)
					n += 20;
				profile_run_count_add(r, fn[f], n, n);
				total += n;
			}
			r->samples = total;
			r->cpu_ns = (double)total * 250000.0;
		}
	profile_analyze(&ps, 0.95);
	assert_int_equal(ps.pairs, PAIRS);
	assert_string_equal(ps.funcs[ps.changes[0].func].function, "f0");
	assert_int_equal(ps.changes[0].verdict, PROFILE_GREW);
	assert_true(ps.changes[0].q_value < 0.001);
	for (size_t i = 1; i < ps.nr_changes; i++)
		assert_int_equal(ps.changes[i].verdict, PROFILE_SAME);
	profile_set_release(&ps);
}

/*
 * What a shared machine does to sampled runs: a function 10% slower in
 * head, runs whose CPU time wobbles by a few percent, and four rounds in
 * which a neighbour's burst made the base run 60% longer. A test on the
 * sum of the differences lets those four decide (their -0.6 units outweigh
 * thirty-six +0.1s: sign-flip p ~ 0.5); the signed-rank test and its
 * Hodges-Lehmann interval see 36 of 40 pairs grow.
 */
static void test_cpu_bursts(void **state)
{
	(void)state;
	enum { PAIRS = 40 };
	struct profile_set ps = PROFILE_SET_INIT;
	size_t fa = profile_func_intern(&ps, "a", "prog");
	size_t fb = profile_func_intern(&ps, "b", "prog");
	for (int k = 1; k <= PAIRS; k++)
		for (int side = 0; side < PROFILE_SIDES; side++) {
			struct profile_run *r = profile_run_add(&ps, side, k, 0);
			/* a: 100 samples in base, 110 in head; b: 100 */
			uint64_t na = side == PROFILE_HEAD ? 110 : 100, nb = 100;
			profile_run_count_add(r, fa, na, na);
			profile_run_count_add(r, fb, nb, nb);
			r->samples = na + nb;
			double wobble = 1 + 0.01 * (double)((k * 7 + side * 3) % 5 - 2);
			if (side == PROFILE_BASE && k % 10 == 0)
				wobble = 1.6;
			r->cpu_ns = (double)r->samples * 1e6 * wobble;
		}
	profile_analyze(&ps, 0.999);
	assert_int_equal(ps.pairs, PAIRS);
	assert_string_equal(ps.funcs[ps.changes[0].func].function, "a");
	assert_int_equal(ps.changes[0].verdict, PROFILE_GREW);
	assert_true(ps.changes[0].q_value < 0.001);
	/* about +10 ms on 100 ms, inside its interval */
	assert_true(ps.changes[0].change_ns > 5e6 && ps.changes[0].change_ns < 15e6);
	assert_true(ps.changes[0].ci_low_ns > 0 &&
		    ps.changes[0].ci_low_ns <= ps.changes[0].change_ns &&
		    ps.changes[0].change_ns <= ps.changes[0].ci_high_ns);
	profile_set_release(&ps);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_bh),
		cmocka_unit_test(test_verdicts),
		cmocka_unit_test(test_one_side),
		cmocka_unit_test(test_many_functions),
		cmocka_unit_test(test_cpu_bursts),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
