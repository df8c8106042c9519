/*
 * Tests for model/verdict: every verdict of docs/contract.md has one name,
 * the name parses back to the same verdict, and anything else (no
 * verdict, a near miss, another case, an empty string, NULL) is refused.
 */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <string.h>

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

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_round_trip),
		cmocka_unit_test(test_contract_names),
		cmocka_unit_test(test_unknown),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
