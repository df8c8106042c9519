/*
 * cmd/outcome: results, summary counts and the exit code of a
 * measured run, with docs/contract.md's precedence 4, 6, 1, 0.
 */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <stdlib.h>
#include <string.h>

#include "analyze/analyze.h"
#include "base/xalloc.h"
#include "model/exit.h"
#include "analyze/outcome.h"
#include "model/result.h"

/* One suite, one benchmark, one command measured on the head side. */
static struct command_result *one_command(struct run_result *r)
{
	run_result_init(r);
	r->mode = xstrdup("run");
	r->nr_suites = 1;
	r->suites = xcalloc(1, sizeof(*r->suites));
	r->suites[0].name = xstrdup("s");
	r->suites[0].file = xstrdup("s.yaml");
	r->suites[0].nr_benches = 1;
	r->suites[0].benches = xcalloc(1, sizeof(*r->suites[0].benches));
	struct bench_result *br = &r->suites[0].benches[0];
	br->name = xstrdup("b");
	strvec_init(&br->tags);
	br->nr_commands = 1;
	br->commands = xcalloc(1, sizeof(*br->commands));
	struct command_result *cr = &br->commands[0];
	cr->name = xstrdup("c");
	cr->side[SIDE_HEAD].present = 1;
	cr->side[SIDE_HEAD].count = 3;
	return cr;
}

static void add_budget(struct command_result *cr, enum budget_status st)
{
	cr->nr_budgets = 1;
	cr->budgets = xcalloc(1, sizeof(*cr->budgets));
	cr->budgets[0].metric = METRIC_LATENCY;
	cr->budgets[0].aggregation = xstrdup("p95");
	cr->budgets[0].op = xstrdup("<=");
	cr->budgets[0].limit_text = xstrdup("1ms");
	cr->budgets[0].status = st;
}

static void require_failed(struct command_result *cr, enum metric_id m)
{
	struct metric_series *ms = &cr->side[SIDE_HEAD].metric[m];
	ms->required = 1;
	metric_series_set_status(ms, MSTATUS_FAILED, "the shim wrote nothing");
}

static void test_pass(void **state)
{
	(void)state;
	struct run_result r;
	one_command(&r);
	analyze_rollup(&r);
	outcome_judge(&r);
	assert_int_equal(r.summary.exit_code, EXIT_PASS);
	assert_int_equal(r.summary.pass, 1);
	assert_int_equal(r.suites[0].result, RESULT_PASS);
	assert_null(r.exit_reason);
	run_result_release(&r);
}

static void test_over_budget_is_1(void **state)
{
	(void)state;
	struct run_result r;
	add_budget(one_command(&r), BUDGET_FAIL);
	analyze_rollup(&r);
	outcome_judge(&r);
	assert_int_equal(r.summary.exit_code, EXIT_FAIL);
	assert_int_equal(r.summary.over_budget, 1);
	assert_non_null(strstr(r.exit_reason, "over budget"));
	run_result_release(&r);
}

/* A budget read back from an edited report may lack its texts: the reason
   says what is known, never "(null)". */
static void test_over_budget_without_texts(void **state)
{
	(void)state;
	struct run_result r;
	struct command_result *cr = one_command(&r);
	add_budget(cr, BUDGET_FAIL);
	free(cr->budgets[0].aggregation);
	free(cr->budgets[0].limit_text);
	cr->budgets[0].aggregation = cr->budgets[0].limit_text = NULL;
	cr->budgets[0].limit = 1e6;
	analyze_rollup(&r);
	outcome_judge(&r);
	assert_int_equal(r.summary.exit_code, EXIT_FAIL);
	assert_null(strstr(r.exit_reason, "(null)"));
	assert_non_null(strstr(r.exit_reason, "latency <= 1e+06 ns (benchmark"));
	run_result_release(&r);
}

static void test_required_failed_is_6(void **state)
{
	(void)state;
	struct run_result r;
	require_failed(one_command(&r), METRIC_ALLOCS);
	analyze_rollup(&r);
	outcome_judge(&r);
	assert_int_equal(r.summary.exit_code, EXIT_UNSUPPORTED);
	assert_int_equal(r.suites[0].benches[0].commands[0].result,
			 RESULT_UNSUPPORTED);
	run_result_release(&r);
}

/* Precedence 6 over 1: a command over budget whose required metric
   failed still makes the run exit 6, while it shows over_budget. */
static void test_over_budget_and_required_failed_is_6(void **state)
{
	(void)state;
	struct run_result r;
	struct command_result *cr = one_command(&r);
	add_budget(cr, BUDGET_FAIL);
	require_failed(cr, METRIC_ALLOCS);
	analyze_rollup(&r);
	outcome_judge(&r);
	assert_int_equal(r.summary.exit_code, EXIT_UNSUPPORTED);
	assert_int_equal(cr->result, RESULT_OVER_BUDGET);
	assert_int_equal(r.summary.over_budget, 1);
	assert_non_null(strstr(r.exit_reason, "required metric"));
	run_result_release(&r);
}

/* Precedence 4 over 6: a failed command wins. */
static void test_error_wins(void **state)
{
	(void)state;
	struct run_result r;
	struct command_result *cr = one_command(&r);
	require_failed(cr, METRIC_ALLOCS);
	cr->error = xstrdup("exited with status 3");
	analyze_rollup(&r);
	outcome_judge(&r);
	assert_int_equal(r.summary.exit_code, EXIT_EXEC);
	assert_int_equal(r.summary.error, 1);
	run_result_release(&r);
}

/* The exit reason names the first failed command and, in a compare, the
   side that failed. */
static void test_error_names_side(void **state)
{
	(void)state;
	struct run_result r;
	struct command_result *cr = one_command(&r);
	cr->side[SIDE_BASE].present = 1;
	cr->error = xstrdup("base: exited with status 1 (exit_codes allows 0)");
	analyze_rollup(&r);
	outcome_judge(&r);
	assert_int_equal(r.summary.exit_code, EXIT_EXEC);
	assert_string_equal(r.exit_reason,
			    "1 command failed to run, first: benchmark 'b', command 'c' on the base side (see the error above)");
	free(cr->error);
	cr->error = xstrdup("exited with status 3"); /* run: one side, none named */
	outcome_judge(&r);
	assert_string_equal(r.exit_reason,
			    "1 command failed to run, first: benchmark 'b', command 'c' (see the error above)");
	run_result_release(&r);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_pass),
		cmocka_unit_test(test_over_budget_is_1),
		cmocka_unit_test(test_over_budget_without_texts),
		cmocka_unit_test(test_required_failed_is_6),
		cmocka_unit_test(test_over_budget_and_required_failed_is_6),
		cmocka_unit_test(test_error_wins),
		cmocka_unit_test(test_error_names_side),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
