/*
 * report/describe: the one wording of values, comparisons and budgets —
 * the work unit of a throughput everywhere, the budget's limit without
 * limit_text, and which comparisons are problems (an accepted regression
 * is one, an ungated inconclusive one only in the annotations' list).
 */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "base/xalloc.h"
#include "report/describe.h"

static void init_cmd(struct command_result *c, const char *work)
{
	memset(c, 0, sizeof(*c));
	c->throughput_unit = work ? xstrdup(work) : NULL;
}

static void test_value_work_unit(void **state)
{
	struct command_result c;
	struct sbuf sb = SBUF_INIT;
	(void)state;

	init_cmd(&c, "lines");
	report_value_text(&sb, &c, METRIC_THROUGHPUT, 4900);
	assert_string_equal(sb.buf, "4900.0 lines/s");
	sbuf_reset(&sb);
	report_delta_text(&sb, &c, METRIC_THROUGHPUT, 100, 5000);
	assert_string_equal(sb.buf, "100.0 lines/s");
	sbuf_reset(&sb);
	report_metric_unit(&sb, &c, METRIC_THROUGHPUT);
	assert_string_equal(sb.buf, "lines/s");
	sbuf_reset(&sb);
	/* other metrics keep their unit */
	report_value_text(&sb, &c, METRIC_LATENCY, 20e6);
	assert_string_equal(sb.buf, "20.00 ms");
	free(c.throughput_unit);
	sbuf_release(&sb);
}

static void test_budget_texts(void **state)
{
	struct command_result c;
	struct budget_result bu;
	struct sbuf sb = SBUF_INIT;
	(void)state;

	init_cmd(&c, "lines");
	memset(&bu, 0, sizeof(bu));
	bu.metric = METRIC_THROUGHPUT;
	bu.aggregation = "median";
	bu.op = ">=";
	bu.limit = 5000;
	bu.actual = 4900;
	bu.have_actual = 1;
	bu.status = BUDGET_FAIL;
	/* no limit_text (an older report): the operator and the value */
	report_budget_rule(&sb, &c, &bu);
	assert_string_equal(sb.buf, "median >= 5000.0 lines/s");
	sbuf_reset(&sb);
	report_budget_subject(&sb, &bu);
	assert_string_equal(sb.buf, "throughput median");
	sbuf_reset(&sb);
	report_budget_actual(&sb, &c, &bu, "n/a");
	assert_string_equal(sb.buf, "4900.0 lines/s");
	sbuf_reset(&sb);
	report_budget_excess(&sb, &bu);
	assert_string_equal(sb.buf, "-2.0%");
	sbuf_reset(&sb);
	/* limit_text is the budget as written */
	bu.limit_text = ">= 5000";
	report_budget_limit(&sb, &c, &bu);
	assert_string_equal(sb.buf, ">= 5000");
	sbuf_reset(&sb);
	bu.have_actual = 0;
	report_budget_actual(&sb, &c, &bu, "n/a");
	report_budget_excess(&sb, &bu);
	assert_string_equal(sb.buf, "n/a");
	sbuf_reset(&sb);
	bu.status = BUDGET_UNASSESSABLE;
	bu.reason = "no samples";
	report_budget_details(&sb, &bu);
	assert_string_equal(sb.buf, "cannot be assessed: no samples");
	free(c.throughput_unit);
	sbuf_release(&sb);
}

static void test_comparison_texts(void **state)
{
	struct comparison cp;
	struct sbuf sb = SBUF_INIT;
	(void)state;

	memset(&cp, 0, sizeof(cp));
	cp.present = 1;
	cp.change_percent = 18;
	cp.ci_low_percent = 14.2;
	cp.ci_high_percent = 21.9;
	cp.verdict = VERDICT_IMPROVED;
	cp.decided_at_rounds = 6;
	report_change_text(&sb, &cp);
	assert_string_equal(sb.buf, "+18.0% (+14.2% … +21.9%)");
	sbuf_reset(&sb);
	report_change_text_plain(&sb, &cp);
	assert_string_equal(sb.buf, "+18.0% [+14.2%, +21.9%]");
	sbuf_reset(&sb);
	report_verdict_text(&sb, &cp);
	assert_string_equal(sb.buf, "improved (not gated) (decided after 6 rounds)");
	sbuf_release(&sb);
}

/*
 * A pass 27% faster whose improvement was not established reads as faster,
 * with what was not established; a pass within the tolerance, a slower
 * change and an improved verdict get the plain change.
 */
static void test_better_texts(void **state)
{
	struct comparison cp;
	struct sbuf sb = SBUF_INIT;
	(void)state;

	memset(&cp, 0, sizeof(cp));
	cp.present = 1;
	cp.gate = 1;
	cp.change_percent = -27;
	cp.ci_low_percent = -38.8;
	cp.ci_high_percent = -15.2;
	cp.max_percent = 10;
	cp.mean_change_percent = NAN;
	cp.verdict = VERDICT_PASS;
	cp.reason = "< -10%: no regression (P=0.00); the improvement is not established (p=0.09 not below 0.05)";
	assert_int_equal(report_better_text(&sb, &cp, METRIC_LATENCY), 1);
	assert_string_equal(sb.buf, "faster: -27.0% [-38.8%, -15.2%] (beyond the 10% tolerance); "
				    "not improved: the improvement is not established (p=0.09 not below 0.05)");
	sbuf_reset(&sb);
	report_verdict_note(&sb, &cp, METRIC_LATENCY);
	assert_string_equal(sb.buf, " (faster beyond the 10% tolerance, not improved)");
	sbuf_reset(&sb);
	report_lead_change_text(&sb, &cp, METRIC_PEAK_RSS);
	assert_true(!strncmp(sb.buf, "peak_rss lower: -27.0%", 22));
	sbuf_reset(&sb);
	/* throughput: higher is better, +27% is the better way */
	cp.change_percent = 27;
	cp.ci_low_percent = 15.2;
	cp.ci_high_percent = 38.8;
	assert_int_equal(report_better_text(&sb, &cp, METRIC_THROUGHPUT), 1);
	assert_true(!strncmp(sb.buf, "higher: +27.0%", 14));
	sbuf_reset(&sb);
	/* ... and the worse way for latency: nothing to say */
	assert_int_equal(report_better_text(&sb, &cp, METRIC_LATENCY), 0);
	assert_int_equal((int)sb.len, 0);
	/* beyond the tolerance, but the interval reaches back within it:
	   the plain change */
	cp.change_percent = -12;
	cp.ci_low_percent = -20;
	cp.ci_high_percent = -5;
	assert_int_equal(report_better_text(&sb, &cp, METRIC_LATENCY), 0);
	/* within the tolerance: the plain change */
	cp.change_percent = -4;
	cp.ci_low_percent = -6;
	cp.ci_high_percent = -2;
	report_lead_change_text(&sb, &cp, METRIC_LATENCY);
	assert_string_equal(sb.buf, "latency -4.0% [-6.0%, -2.0%] (tolerance 10%)");
	sbuf_reset(&sb);
	/* improved says so itself */
	cp.change_percent = -27;
	cp.verdict = VERDICT_IMPROVED;
	assert_int_equal(report_better_text(&sb, &cp, METRIC_LATENCY), 0);
	report_verdict_note(&sb, &cp, METRIC_LATENCY);
	assert_int_equal((int)sb.len, 0);
	sbuf_release(&sb);
}

static void test_problem(void **state)
{
	struct comparison cp;
	static const struct {
		const char *verdict;
		int gate, kind, is_problem;
	} t[] = {
		{ "regression", 1, PROBLEM_REGRESSION, 1 },
		{ "regression", 0, PROBLEM_NOT_GATED, 1 },
		{ "accepted", 1, PROBLEM_ACCEPTED, 1 },
		{ "inconclusive", 1, PROBLEM_INCONCLUSIVE, 1 },
		{ "inconclusive", 0, PROBLEM_INCONCLUSIVE, 0 },
		{ "pass", 1, -1, 0 },
		{ "improved", 1, -1, 0 },
		{ "within_noise", 1, -1, 0 },
		{ "skipped", 1, -1, 0 },
	};
	(void)state;

	for (size_t i = 0; i < sizeof(t) / sizeof(*t); i++) {
		memset(&cp, 0, sizeof(cp));
		cp.present = 1;
		assert_true(verdict_parse(t[i].verdict) > 0);
		cp.verdict = (enum verdict)verdict_parse(t[i].verdict);
		cp.gate = t[i].gate;
		assert_int_equal(report_comparison_problem(&cp), t[i].kind);
		assert_int_equal(report_comparison_is_problem(&cp), t[i].is_problem);
	}
	memset(&cp, 0, sizeof(cp));
	assert_int_equal(report_comparison_problem(&cp), -1);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_value_work_unit),
		cmocka_unit_test(test_budget_texts),
		cmocka_unit_test(test_comparison_texts),
		cmocka_unit_test(test_better_texts),
		cmocka_unit_test(test_problem),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
