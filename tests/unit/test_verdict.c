/*
 * Tests for model/verdict: every verdict of docs/contract.md has one name,
 * the name parses back to the same verdict, and anything else (no
 * verdict, a near miss, another case, an empty string, NULL) is refused.
 * Likewise for the results of commands, benchmarks and suites, whose
 * verdicts are named as verdicts and whose order is the roll-up's.
 */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <string.h>

#include "model/result.h"
#include "model/verdict.h"

static void test_round_trip(void **state)
{
	(void)state;
	for (int v = VERDICT_NONE + 1; v < VERDICT__COUNT; v++) {
		const char *name = verdict_name((enum verdict)v);
		assert_non_null(name);
		assert_int_equal(verdict_parse(name), v);
		assert_string_equal(verdict_text((enum verdict)v, "n/a"), name);
	}
}

static void test_contract_names(void **state)
{
	/* docs/contract.md, "comparisons": the names reports carry. */
	static const char *const names[] = { "pass", "improved", "regression",
					     "inconclusive", "within_noise",
					     "skipped", "accepted" };
	(void)state;
	assert_int_equal(sizeof(names) / sizeof(names[0]), VERDICT__COUNT - 1);
	for (size_t i = 0; i < sizeof(names) / sizeof(names[0]); i++) {
		int v = verdict_parse(names[i]);
		assert_true(v > VERDICT_NONE && v < VERDICT__COUNT);
		for (size_t j = 0; j < i; j++)
			assert_int_not_equal(verdict_parse(names[j]), v);
	}
	assert_int_equal(verdict_parse("regression"), VERDICT_REGRESSION);
	assert_int_equal(verdict_parse("accepted"), VERDICT_ACCEPTED);
}

static void test_unknown(void **state)
{
	static const char *const bad[] = { "", "passed", "Pass", "PASS",
					   "within noise", "regression ",
					   "too_few_samples", "grew", "n/a" };
	(void)state;
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++)
		assert_int_equal(verdict_parse(bad[i]), -1);
	assert_int_equal(verdict_parse(NULL), -1);
	/* No verdict has no name: the writers print their own fallback. */
	assert_null(verdict_name(VERDICT_NONE));
	assert_null(verdict_name(VERDICT__COUNT));
	assert_null(verdict_name((enum verdict)-1));
	assert_string_equal(verdict_text(VERDICT_NONE, "n/a"), "n/a");
}

static void test_result_round_trip(void **state)
{
	(void)state;
	for (int r = RESULT_NONE + 1; r < RESULT__COUNT; r++) {
		const char *name = result_name((enum result)r);
		assert_non_null(name);
		assert_int_equal(result_parse(name), r);
		assert_string_equal(result_text((enum result)r, "n/a"), name);
	}
}

static void test_result_names(void **state)
{
	/* The names reports have carried: the states, then the verdicts. */
	static const char *const names[] = {
		"pass",	       "over_budget", "error",	      "unsupported",
		"interrupted", "not_run",     "improved",     "regression",
		"inconclusive", "within_noise", "skipped",    "accepted"
	};
	(void)state;
	assert_int_equal(sizeof(names) / sizeof(names[0]), RESULT__COUNT - 1);
	for (size_t i = 0; i < sizeof(names) / sizeof(names[0]); i++) {
		int x = result_parse(names[i]);
		assert_true(x > RESULT_NONE && x < RESULT__COUNT);
		for (size_t j = 0; j < i; j++)
			assert_int_not_equal(result_parse(names[j]), x);
	}
	assert_int_equal(result_parse("over_budget"), RESULT_OVER_BUDGET);
	assert_int_equal(result_parse("not_run"), RESULT_NOT_RUN);
	assert_int_equal(result_parse("regression"), RESULT_REGRESSION);
}

static void test_result_verdicts(void **state)
{
	(void)state;
	assert_int_equal(result_from_verdict(VERDICT_NONE), RESULT_NONE);
	for (int v = VERDICT_NONE + 1; v < VERDICT__COUNT; v++) {
		enum result x = result_from_verdict((enum verdict)v);
		assert_int_not_equal(x, RESULT_NONE);
		assert_string_equal(result_name(x), verdict_name((enum verdict)v));
	}
}

static void test_result_severity(void **state)
{
	/* analyze_rollup() keeps the greatest: the order it always had. */
	static const enum result order[] = {
		RESULT_PASS,	     RESULT_IMPROVED,	  RESULT_WITHIN_NOISE,
		RESULT_ACCEPTED,    RESULT_INCONCLUSIVE, RESULT_UNSUPPORTED,
		RESULT_OVER_BUDGET, RESULT_REGRESSION,  RESULT_INTERRUPTED,
		RESULT_ERROR
	};
	(void)state;
	for (size_t i = 1; i < sizeof(order) / sizeof(order[0]); i++)
		assert_true(order[i - 1] < order[i]);
	/* A skipped comparison never outranks a command's pass. */
	assert_true(RESULT_SKIPPED < RESULT_PASS);
	assert_true(RESULT_NONE < RESULT_NOT_RUN);
}

static void test_result_unknown(void **state)
{
	static const char *const bad[] = { "", "passed", "Pass", "over budget",
					   "over-budget", "error ", "failed",
					   "fail", "n/a", "none" };
	(void)state;
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++)
		assert_int_equal(result_parse(bad[i]), -1);
	assert_int_equal(result_parse(NULL), -1);
	assert_null(result_name(RESULT_NONE));
	assert_null(result_name(RESULT__COUNT));
	assert_null(result_name((enum result)-1));
	assert_string_equal(result_text(RESULT_NONE, "n/a"), "n/a");
}

/* The report's mode string to the enum the writers branch on. */
static void test_run_mode(void **state)
{
	(void)state;
	struct run_result r;
	memset(&r, 0, sizeof(r));
	assert_int_equal(run_mode(&r), RUN_MODE_RUN); /* no mode: a run */
	r.mode = "run";
	assert_int_equal(run_mode(&r), RUN_MODE_RUN);
	r.mode = "compare";
	assert_int_equal(run_mode(&r), RUN_MODE_COMPARE);
	r.mode = "bench";
	assert_int_equal(run_mode(&r), RUN_MODE_BENCH);
	r.mode = "Compare";
	assert_int_equal(run_mode(&r), RUN_MODE_OTHER);
	r.mode = "";
	assert_int_equal(run_mode(&r), RUN_MODE_OTHER);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_round_trip),
		cmocka_unit_test(test_contract_names),
		cmocka_unit_test(test_unknown),
		cmocka_unit_test(test_result_round_trip),
		cmocka_unit_test(test_result_names),
		cmocka_unit_test(test_result_verdicts),
		cmocka_unit_test(test_result_severity),
		cmocka_unit_test(test_result_unknown),
		cmocka_unit_test(test_run_mode),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
