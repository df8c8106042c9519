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
#include "report/problems.h"

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
	assert_string_equal(sb.buf, "faster: -27.0% [-38.8%, -15.2%] (beyond tolerance 10%); "
				    "not improved: the improvement is not established (p=0.09 not below 0.05)");
	sbuf_reset(&sb);
	report_verdict_note(&sb, &cp, METRIC_LATENCY);
	assert_string_equal(sb.buf, " (faster beyond tolerance 10%, not improved)");
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

/* A markup that shows where each part went: user text in {}, the ref in
   <r></r>, shas in <s></s>. */
static void braces(struct sbuf *out, const char *s)
{
	sbuf_addf(out, "{%s}", s);
}

static const struct report_markup probe = {braces, "<r>", "</r>", "<s>",
					   "</s>"};

/* One suite, one benchmark, two commands: latency compared on both,
   peak_rss on the first. */
static void build_run(struct run_result *r, struct bench_result *b,
		      struct suite_result *s, struct command_result *c)
{
	memset(r, 0, sizeof(*r));
	memset(s, 0, sizeof(*s));
	memset(b, 0, sizeof(*b));
	memset(c, 0, 2 * sizeof(*c));
	c[0].comparison[METRIC_LATENCY].present = 1;
	c[0].comparison[METRIC_PEAK_RSS].present = 1;
	c[1].comparison[METRIC_LATENCY].present = 1;
	b->commands = c;
	b->nr_commands = 2;
	s->benches = b;
	s->nr_benches = 1;
	r->suites = s;
	r->nr_suites = 1;
	r->summary.exit_code = 1;
	r->exit_reason = "1 gated regression found";
	r->git.head_sha = "1b2c3d4e5f60718293a4b5c6d7e8f90112233445";
	r->git.base_sha = "0acd445dea07112233445566778899aabbccddee";
	r->git.base_ref = "main";
}

static void test_status_line(void **state)
{
	struct run_result r;
	struct suite_result s;
	struct bench_result b;
	struct command_result c[2];
	struct sbuf sb = SBUF_INIT;
	(void)state;

	build_run(&r, &b, &s, c);
	report_status_line(&sb, &r, &probe);
	assert_string_equal(sb.buf,
			    "base <r>{main}</r> (<s>{0acd445dea07}</s>) → head "
			    "<s>{1b2c3d4e5f60}</s> · 3 comparisons in 2 commands"
			    " · {exit code 1 (1 gated regression found)}");

	/* a dirty tree, no head sha, a ref that is the sha abbreviated */
	sbuf_reset(&sb);
	r.git.dirty = 1;
	r.git.head_sha = NULL;
	r.git.base_ref = "0ACD445";
	assert_int_equal(report_revisions_text(&sb, &r, &probe), 1);
	assert_string_equal(sb.buf, "base <s>{0acd445dea07}</s> → head working "
				    "tree + uncommitted changes");

	/* a ref without a sha: no empty parentheses */
	sbuf_reset(&sb);
	r.git.dirty = 0;
	r.git.base_ref = "v1.2";
	r.git.base_sha = NULL;
	r.git.head_sha = "abc";
	report_revisions_text(&sb, &r, &probe);
	assert_string_equal(sb.buf, "base <r>{v1.2}</r> → head <s>{abc}</s>");

	/* no base, no comparison: the counts and the exit code only */
	sbuf_reset(&sb);
	r.git.base_ref = NULL;
	c[0].comparison[METRIC_LATENCY].present = 0;
	c[0].comparison[METRIC_PEAK_RSS].present = 0;
	c[1].comparison[METRIC_LATENCY].present = 0;
	b.nr_commands = 1;
	r.summary.exit_code = 0;
	r.exit_reason = NULL;
	assert_int_equal(report_revisions_text(&sb, &r, &probe), 0);
	assert_string_equal(sb.buf, "");
	report_status_line(&sb, &r, &probe);
	assert_string_equal(sb.buf, "1 command · {exit code 0}");
	sbuf_release(&sb);
}

static void test_git_rows(void **state)
{
	struct run_result r;
	struct suite_result s;
	struct bench_result b;
	struct command_result c[2];
	struct sbuf sb = SBUF_INIT;
	(void)state;

	build_run(&r, &b, &s, c);
	r.git.dirty = 1;
	report_git_head_text(&sb, &r.git);
	assert_string_equal(sb.buf, "1b2c3d4e5f60718293a4b5c6d7e8f90112233445 "
				    "+ uncommitted changes");
	sbuf_reset(&sb);
	report_git_base_text(&sb, &r.git);
	assert_string_equal(sb.buf, "main (0acd445dea07112233445566778899aabbccddee)");
	sbuf_reset(&sb);
	report_exit_text(&sb, &r);
	assert_string_equal(sb.buf, "1 (1 gated regression found)");
	sbuf_reset(&sb);
	r.git.head_sha = NULL;
	r.git.base_ref = NULL;
	r.git.base_sha = NULL;
	report_git_head_text(&sb, &r.git);
	report_git_base_text(&sb, &r.git);
	assert_string_equal(sb.buf, "");
	sbuf_release(&sb);
}

static void test_tolerance_texts(void **state)
{
	struct comparison cp;
	struct sbuf sb = SBUF_INIT;
	(void)state;

	memset(&cp, 0, sizeof(cp));
	cp.max_percent = 5;
	report_tolerance_text(&sb, &cp);
	assert_string_equal(sb.buf, "tolerance 5%");
	sbuf_reset(&sb);
	cp.max_percent = 2.5;
	report_tolerance_note(&sb, &cp);
	assert_string_equal(sb.buf, " (tolerance 2.5%)");
	/* none: nothing, never "nan%" */
	sbuf_reset(&sb);
	cp.max_percent = NAN;
	report_tolerance_text(&sb, &cp);
	report_tolerance_note(&sb, &cp);
	assert_string_equal(sb.buf, "");
	sbuf_release(&sb);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_value_work_unit),
		cmocka_unit_test(test_budget_texts),
		cmocka_unit_test(test_comparison_texts),
		cmocka_unit_test(test_better_texts),
		cmocka_unit_test(test_problem),
		cmocka_unit_test(test_status_line),
		cmocka_unit_test(test_git_rows),
		cmocka_unit_test(test_tolerance_texts),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
