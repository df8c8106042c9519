/*
 * Tests for analyze/budget: every operator at, below and above its limit,
 * the aggregations, the unassessable cases and the sentences users read.
 */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "analyze/budget.h"
#include "base/sbuf.h"

static struct budget make_budget(enum metric_id m, enum aggregation agg,
				 double pct, const char *agg_name,
				 enum budget_op op, double limit,
				 const char *limit_text)
{
	struct budget b;

	memset(&b, 0, sizeof(b));
	b.metric = m;
	b.aggregation = agg;
	b.percentile = pct;
	b.aggregation_name = (char *)agg_name;
	b.op = op;
	b.limit = limit;
	b.limit_text = (char *)limit_text;
	return b;
}

static void series_fill(struct metric_series *s, const double *v, size_t n)
{
	memset(s, 0, sizeof(*s));
	for (size_t i = 0; i < n; i++)
		metric_series_add(s, v[i], (int)i / 2 + 1, (int)i + 1);
}

static void series_release(struct metric_series *s)
{
	free(s->samples);
	free(s->reason);
	memset(s, 0, sizeof(*s));
}

/* Evaluate and return the sentence (caller frees). */
static char *describe(const struct budget *b, const struct metric_series *s,
		      struct budget_result *r)
{
	struct sbuf sb = SBUF_INIT;

	budget_evaluate(b, s, r);
	budget_describe(r, &sb);
	return sbuf_detach(&sb);
}

static void test_op_text(void **state)
{
	(void)state;
	assert_string_equal(budget_op_text(BUDGET_LT), "<");
	assert_string_equal(budget_op_text(BUDGET_LE), "<=");
	assert_string_equal(budget_op_text(BUDGET_GT), ">");
	assert_string_equal(budget_op_text(BUDGET_GE), ">=");
}

static void test_operators_at_below_above(void **state)
{
	/* max = 300; limits 299 (below), 300 (at), 301 (above). */
	const double v[] = { 100, 300, 200 };
	const double limits[3] = { 299, 300, 301 };
	static const struct {
		enum budget_op op;
		enum budget_status want[3];
	} cases[] = {
		{ BUDGET_LT, { BUDGET_FAIL, BUDGET_FAIL, BUDGET_PASS } },
		{ BUDGET_LE, { BUDGET_FAIL, BUDGET_PASS, BUDGET_PASS } },
		{ BUDGET_GT, { BUDGET_PASS, BUDGET_FAIL, BUDGET_FAIL } },
		{ BUDGET_GE, { BUDGET_PASS, BUDGET_PASS, BUDGET_FAIL } },
	};
	struct metric_series s;

	(void)state;
	series_fill(&s, v, 3);
	for (size_t c = 0; c < sizeof(cases) / sizeof(cases[0]); c++) {
		for (int k = 0; k < 3; k++) {
			struct budget b = make_budget(METRIC_LATENCY, AGG_MAX, 0,
						      "max", cases[c].op,
						      limits[k], NULL);
			struct budget_result r;
			budget_evaluate(&b, &s, &r);
			if (r.status != cases[c].want[k])
				fail_msg("300 %s %g: got %s", r.op, limits[k],
					 budget_status_name(r.status));
			assert_true(r.have_actual);
			assert_true(r.actual == 300);
			assert_null(r.reason);
			assert_string_equal(r.op, budget_op_text(cases[c].op));
			budget_result_release(&r);
		}
	}
	series_release(&s);
}

static void test_aggregations(void **state)
{
	double v[100];
	struct metric_series s;
	static const struct {
		enum aggregation agg;
		double pct;
		double want;
	} cases[] = {
		{ AGG_MIN, 0, 1 },	     { AGG_MAX, 0, 100 },
		{ AGG_MEAN, 0, 50.5 },	     { AGG_MEDIAN, 0, 50.5 },
		/* R: quantile(1:100, c(.95, .999, .01)) */
		{ AGG_PERCENTILE, 95, 95.05 }, { AGG_PERCENTILE, 99.9, 99.901 },
		{ AGG_PERCENTILE, 1, 1.99 },   { AGG_PERCENTILE, 50, 50.5 },
	};

	(void)state;
	/* Shuffled order: aggregation must not depend on it. */
	for (int i = 0; i < 100; i++)
		v[i] = (double)((i * 37) % 100 + 1);
	series_fill(&s, v, 100);
	for (size_t c = 0; c < sizeof(cases) / sizeof(cases[0]); c++) {
		struct budget b = make_budget(METRIC_LATENCY, cases[c].agg,
					      cases[c].pct, NULL, BUDGET_LE,
					      1000, NULL);
		struct budget_result r;
		budget_evaluate(&b, &s, &r);
		assert_int_equal(r.status, BUDGET_PASS);
		assert_true(r.have_actual);
		if (fabs(r.actual - cases[c].want) > 1e-9)
			fail_msg("%s: got %.17g, want %g", r.aggregation,
				 r.actual, cases[c].want);
		assert_true(fabs(budget_aggregate(cases[c].agg, cases[c].pct, v,
						  100) - cases[c].want) <= 1e-9);
		budget_result_release(&r);
	}
	series_release(&s);
	assert_true(isnan(budget_aggregate(AGG_MAX, 0, v, 0)));
	assert_true(isnan(budget_aggregate(AGG_PERCENTILE, 100, v, 10)));
}

static void test_strings_copied(void **state)
{
	const double v[] = { 5e6 };
	char agg[] = "p95", text[] = "<= 300ms";
	struct metric_series s;
	struct budget_result r;
	struct budget b;

	(void)state;
	series_fill(&s, v, 1);
	b = make_budget(METRIC_LATENCY, AGG_PERCENTILE, 95, agg, BUDGET_LE,
			300e6, text);
	budget_evaluate(&b, &s, &r);
	/* The result outlives the suite: it must own its strings. */
	memset(agg, 'x', 3);
	memset(text, 'x', 8);
	assert_string_equal(r.aggregation, "p95");
	assert_string_equal(r.op, "<=");
	assert_string_equal(r.limit_text, "<= 300ms");
	assert_true(r.limit == 300e6);
	assert_int_equal(r.metric, METRIC_LATENCY);
	budget_result_release(&r);

	/* Names the suite did not give are made up consistently. */
	b = make_budget(METRIC_LATENCY, AGG_PERCENTILE, 99.9, NULL, BUDGET_LT,
			300e6, NULL);
	budget_evaluate(&b, &s, &r);
	assert_string_equal(r.aggregation, "p99.9");
	assert_string_equal(r.limit_text, "< 300.0 ms");
	budget_result_release(&r);
	b = make_budget(METRIC_PEAK_RSS, AGG_MEDIAN, 0, NULL, BUDGET_LE,
			64.0 * 1024 * 1024, NULL);
	budget_evaluate(&b, &s, &r);
	assert_string_equal(r.aggregation, "median");
	assert_string_equal(r.limit_text, "<= 64.0 MiB");
	budget_result_release(&r);
	series_release(&s);
}

static void expect_unassessable(const struct budget *b,
				const struct metric_series *s,
				const char *reason, const char *sentence)
{
	struct budget_result r;
	char *text = describe(b, s, &r);

	assert_int_equal(r.status, BUDGET_UNASSESSABLE);
	assert_false(r.have_actual);
	assert_non_null(r.reason);
	assert_string_equal(r.reason, reason);
	assert_string_equal(text, sentence);
	/* The budget's own fields are still reported. */
	assert_non_null(r.aggregation);
	assert_non_null(r.op);
	assert_non_null(r.limit_text);
	free(text);
	budget_result_release(&r);
}

static void test_unassessable(void **state)
{
	struct budget b = make_budget(METRIC_PEAK_RSS, AGG_MAX, 0, "max",
				      BUDGET_LE, 64.0 * 1024 * 1024,
				      "<= 64MiB");
	struct metric_series s;

	(void)state;
	memset(&s, 0, sizeof(s));
	metric_series_set_status(&s, MSTATUS_UNSUPPORTED,
				 "getrusage reports no peak RSS here");
	expect_unassessable(&b, &s,
			    "metric 'peak_rss' was not measured (unsupported: "
			    "getrusage reports no peak RSS here)",
			    "peak_rss max could not be assessed: metric "
			    "'peak_rss' was not measured (unsupported: "
			    "getrusage reports no peak RSS here)");
	metric_series_set_status(&s, MSTATUS_UNSUPPORTED, NULL);
	expect_unassessable(&b, &s,
			    "metric 'peak_rss' was not measured (unsupported "
			    "here)",
			    "peak_rss max could not be assessed: metric "
			    "'peak_rss' was not measured (unsupported here)");
	metric_series_set_status(&s, MSTATUS_FAILED, "wait4 failed");
	expect_unassessable(&b, &s,
			    "metric 'peak_rss' was not measured (failed: "
			    "wait4 failed)",
			    "peak_rss max could not be assessed: metric "
			    "'peak_rss' was not measured (failed: wait4 failed)");
	metric_series_set_status(&s, MSTATUS_ABSENT, NULL);
	expect_unassessable(&b, &s,
			    "metric 'peak_rss' was not measured (no run "
			    "recorded a value)",
			    "peak_rss max could not be assessed: metric "
			    "'peak_rss' was not measured (no run recorded a "
			    "value)");
	expect_unassessable(&b, NULL,
			    "metric 'peak_rss' was not measured (no run "
			    "recorded a value)",
			    "peak_rss max could not be assessed: metric "
			    "'peak_rss' was not measured (no run recorded a "
			    "value)");
	metric_series_set_status(&s, MSTATUS_OK, NULL);
	expect_unassessable(&b, &s, "no successful runs",
			    "peak_rss max could not be assessed: no successful "
			    "runs");
	series_release(&s);

	/* Samples exist but none is a number. */
	const double bad[] = { NAN, NAN };
	series_fill(&s, bad, 2);
	expect_unassessable(&b, &s, "metric 'peak_rss' has no finite samples",
			    "peak_rss max could not be assessed: metric "
			    "'peak_rss' has no finite samples");
	series_release(&s);

	/* A percentile the validator should have refused. */
	const double ok[] = { 1, 2 };
	series_fill(&s, ok, 2);
	b = make_budget(METRIC_LATENCY, AGG_PERCENTILE, 100, "p100", BUDGET_LE,
			10, "<= 10ns");
	expect_unassessable(&b, &s,
			    "percentile 100 of metric 'latency' is outside "
			    "(0, 100)",
			    "latency p100 could not be assessed: percentile 100 "
			    "of metric 'latency' is outside (0, 100)");
	series_release(&s);
}

static void test_nan_samples_ignored(void **state)
{
	const double v[] = { 10, NAN, 30, INFINITY };
	struct budget b = make_budget(METRIC_LATENCY, AGG_MAX, 0, "max",
				      BUDGET_LE, 30, "<= 30ns");
	struct metric_series s;
	struct budget_result r;

	(void)state;
	series_fill(&s, v, 4);
	budget_evaluate(&b, &s, &r);
	assert_int_equal(r.status, BUDGET_PASS);
	assert_true(r.actual == 30);
	budget_result_release(&r);
	series_release(&s);
}

struct describe_case {
	enum metric_id metric;
	enum aggregation agg;
	double pct;
	const char *agg_name;
	enum budget_op op;
	double limit;
	const char *limit_text;
	double value; /* every sample */
	enum budget_status status;
	const char *want;
};

static void test_describe(void **state)
{
	const double MiB = 1024.0 * 1024;
	const struct describe_case cases[] = {
		{ METRIC_LATENCY, AGG_PERCENTILE, 95, "p95", BUDGET_LE, 300e6,
		  "<= 300ms", 312.4e6, BUDGET_FAIL,
		  "latency p95 = 312.4 ms exceeds budget <= 300ms by 12.4 ms "
		  "(+4.1%)" },
		{ METRIC_LATENCY, AGG_PERCENTILE, 95, "p95", BUDGET_LE, 300e6,
		  "<= 300ms", 280.1e6, BUDGET_PASS,
		  "latency p95 = 280.1 ms is within budget <= 300ms" },
		{ METRIC_LATENCY, AGG_MAX, 0, "max", BUDGET_LT, 300e6,
		  "< 300ms", 300e6, BUDGET_FAIL,
		  "latency max = 300.0 ms equals the limit of budget < 300ms" },
		{ METRIC_LATENCY, AGG_MEDIAN, 0, "median", BUDGET_LE, 2e9,
		  "<= 2s", 2.346e9, BUDGET_FAIL,
		  "latency median = 2.346 s exceeds budget <= 2s by 0.346 s "
		  "(+17.3%)" },
		/* A tiny excess is still shown, in a unit that shows it. */
		{ METRIC_LATENCY, AGG_MAX, 0, "max", BUDGET_LE, 300e6,
		  "<= 300ms", 300.04e6, BUDGET_FAIL,
		  "latency max = 300.0 ms exceeds budget <= 300ms by 40.00 us "
		  "(+0.013%)" },
		{ METRIC_PEAK_RSS, AGG_MAX, 0, "max", BUDGET_LE, 64 * MiB,
		  "<= 64MiB", 70 * MiB, BUDGET_FAIL,
		  "peak_rss max = 70.0 MiB exceeds budget <= 64MiB by 6.0 MiB "
		  "(+9.4%)" },
		{ METRIC_THROUGHPUT, AGG_MEAN, 0, "mean", BUDGET_GE, 1000,
		  ">= 1000/s", 950, BUDGET_FAIL,
		  "throughput mean = 950.0 /s is below budget >= 1000/s by "
		  "50.0 /s (-5.0%)" },
		{ METRIC_THROUGHPUT, AGG_MIN, 0, "min", BUDGET_GT, 1000,
		  "> 1000/s", 1000, BUDGET_FAIL,
		  "throughput min = 1000.0 /s equals the limit of budget > "
		  "1000/s" },
		{ METRIC_CPU_UTILIZATION, AGG_MEAN, 0, "mean", BUDGET_LE, 0.9,
		  "<= 0.9", 0.95, BUDGET_FAIL,
		  "cpu_utilization mean = 0.950 exceeds budget <= 0.9 by 0.050 "
		  "(+5.6%)" },
		/* A zero limit has no percentage. */
		{ METRIC_ALLOCS, AGG_MAX, 0, "max", BUDGET_LE, 0, "<= 0", 3,
		  BUDGET_FAIL, "allocs max = 3 exceeds budget <= 0 by 3" },
		{ METRIC_INSTRUCTIONS, AGG_MEDIAN, 0, "median", BUDGET_LT, 1e9,
		  "< 1000000000", 1234567890, BUDGET_FAIL,
		  "instructions median = 1234567890 exceeds budget < "
		  "1000000000 by 234567890 (+23.5%)" },
	};

	(void)state;
	for (size_t c = 0; c < sizeof(cases) / sizeof(cases[0]); c++) {
		const struct describe_case *d = &cases[c];
		const double v[] = { d->value, d->value, d->value };
		struct budget b = make_budget(d->metric, d->agg, d->pct,
					      d->agg_name, d->op, d->limit,
					      d->limit_text);
		struct metric_series s;
		struct budget_result r;
		char *text;

		series_fill(&s, v, 3);
		text = describe(&b, &s, &r);
		if (r.status != d->status || strcmp(text, d->want))
			fail_msg("case %zu: got %s '%s', want '%s'", c,
				 budget_status_name(r.status), text, d->want);
		free(text);
		budget_result_release(&r);
		series_release(&s);
	}
}

static void test_describe_appends(void **state)
{
	/* A result read back from JSON may lack limit_text. */
	struct budget_result r;
	struct sbuf sb = SBUF_INIT;

	(void)state;
	memset(&r, 0, sizeof(r));
	r.metric = METRIC_LATENCY;
	r.aggregation = "p99";
	r.op = "<=";
	r.limit = 1e6;
	r.have_actual = 1;
	r.actual = 1.5e6;
	r.status = BUDGET_FAIL;
	sbuf_adds(&sb, "- ");
	budget_describe(&r, &sb);
	assert_string_equal(sb.buf, "- latency p99 = 1.500 ms exceeds budget "
				    "<= 1.000 ms by 0.500 ms (+50.0%)");
	sbuf_release(&sb);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_op_text),
		cmocka_unit_test(test_operators_at_below_above),
		cmocka_unit_test(test_aggregations),
		cmocka_unit_test(test_strings_copied),
		cmocka_unit_test(test_unassessable),
		cmocka_unit_test(test_nan_samples_ignored),
		cmocka_unit_test(test_describe),
		cmocka_unit_test(test_describe_appends),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
