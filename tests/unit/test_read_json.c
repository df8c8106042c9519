/*
 * report/read_json: a report written by report_write_json() reads back
 * into the same result (written again it is byte-identical), the seed is
 * exact up to 2^64-1, null numbers come back as NAN, and every kind of bad
 * input is an error naming the file and the field.
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

#include "analyze/summary.h"
#include "base/sbuf.h"
#include "base/xalloc.h"
#include "report/read_json.h"
#include "report/report.h"

static void add_series(struct metric_series *ms, double base, size_t n)
{
	double *v = xcalloc(n, sizeof(double));
	for (size_t i = 0; i < n; i++) {
		v[i] = base + (double)(i * 37 % 11);
		metric_series_add(ms, v[i], (int)(i / 2) + 1, (int)i + 1);
	}
	summary_compute(&ms->summary, v, n);
	ms->have_summary = 1;
	free(v);
}

static void comparison(struct comparison *c, const char *verdict, int boot)
{
	c->present = 1;
	c->statistic = xstrdup("median");
	c->pairing = xstrdup("rounds");
	c->base = 100000000;
	c->head = 112345678;
	c->change_percent = 12.345678901234567;
	c->ci_low_percent = 10.1;
	c->ci_high_percent = 14.2;
	c->confidence = 0.95;
	c->max_percent = 10;
	c->p_value = 0.000123;
	c->hl_shift_percent = 12.0;
	c->noise_floor_percent = NAN; /* written as null */
	c->verdict = (enum verdict)verdict_parse(verdict);
	c->reason = xstrdup("change +12.3% beyond the 10% tolerance: \"quoted\" <b>");
	c->gate = 1;
	c->p_reg = 0.99;
	c->p_imp = 0;
	c->p_adjusted = 0.000246;
	c->control_failed = 1;
	c->nr_dropped_rounds = 2;
	c->dropped_rounds = xcalloc(2, sizeof(int));
	c->dropped_rounds[0] = 3;
	c->dropped_rounds[1] = 7;
	if (boot) {
		c->nr_boot = 500;
		c->boot = xcalloc(500, sizeof(double));
		for (size_t i = 0; i < 500; i++)
			c->boot[i] = 12 + sin((double)i) * 3;
	}
}

/* A compare result that uses every field write_json.c writes. */
static void build(struct run_result *r)
{
	run_result_init(r);
	r->mode = xstrdup("compare");
	r->seed = UINT64_MAX;
	r->started_at = xstrdup("2026-01-02T03:04:05.678Z");
	r->finished_at = xstrdup("2026-01-02T03:05:00.000Z");
	r->interrupted = 1;
	r->env.os = xstrdup("Debian GNU/Linux 12 (bookworm)");
	r->env.kernel = xstrdup("6.1.0");
	r->env.arch = xstrdup("x86_64");
	r->env.cpu_model = NULL;
	r->env.logical_cpus = 0; /* unknown: null */
	r->env.ci = 1;
	r->env.counters_source = xstrdup("perf");
	r->git.head_sha = xstrdup("2222222222222222222222222222222222222222");
	r->git.dirty = -1;
	r->git.base_ref = xstrdup("main");
	r->git.base_sha = xstrdup("1111111111111111111111111111111111111111");
	strvec_push(&r->warnings, "suite 'x' does not exist in main: new_in_head");
	strvec_push(&r->warnings, "unicode \xe2\x86\x92 and tab\t");
	struct acceptance acc = {
		.commit = "4444444444444444444444444444444444444444", .benchmark = "sort",
		.command = "fast", .metric = METRIC_CPU_TOTAL, .max_percent = 12.5,
	};
	run_result_add_acceptance(r, &acc);
	r->nr_suites = 2;
	r->suites = xcalloc(2, sizeof(*r->suites));
	for (size_t si = 0; si < 2; si++) {
		struct suite_result *s = &r->suites[si];
		s->name = xstrfmt("suite-%zu", si);
		s->file = xstrfmt("bench/s%zu.kagari.yaml", si);
		s->result = si ? RESULT_PASS : RESULT_REGRESSION;
		s->suite_from = si ? xstrdup("head") : NULL; /* compare only */
		s->nr_benches = 1;
		s->benches = xcalloc(1, sizeof(*s->benches));
		struct bench_result *b = &s->benches[0];
		strvec_init(&b->tags);
		b->name = xstrdup("sort <20k> & \"more\"");
		strvec_push(&b->tags, "smoke");
		strvec_push(&b->tags, "io");
		b->baseline = si ? NULL : xstrdup("fast");
		b->result = s->result;
		b->rounds = 15;
		b->nr_commands = 2;
		b->commands = xcalloc(2, sizeof(*b->commands));
		struct command_result *c = &b->commands[0];
		c->name = xstrdup("fast");
		c->command = xstrdup("./sort --n 20000");
		c->result = RESULT_REGRESSION;
		c->rounds = 15;
		c->throughput_unit = xstrdup("lines");
		for (int sd = 0; sd < SIDE__COUNT; sd++) {
			struct side_result *side = &c->side[sd];
			side->present = 1;
			side->count = 30;
			add_series(&side->metric[METRIC_LATENCY], 1e8 + sd * 1e7, 30);
			add_series(&side->metric[METRIC_PEAK_RSS], 6291456, 30);
			add_series(&side->metric[METRIC_CPU_UTILIZATION], 0.5, 30);
			add_series(&side->metric[METRIC_THROUGHPUT], 1234.5, 30);
			metric_series_set_status(&side->metric[METRIC_INSTRUCTIONS],
						 MSTATUS_UNSUPPORTED, "perf_event_paranoid is 3");
			metric_series_set_status(&side->metric[METRIC_ALLOCS],
						 MSTATUS_FAILED, NULL);
		}
		/* A huge integral value stays exact as a double. */
		c->side[SIDE_HEAD].metric[METRIC_PEAK_RSS].samples[0].value = 9007199254740992.0;
		comparison(&c->comparison[METRIC_LATENCY], "regression", 1);
		comparison(&c->comparison[METRIC_PEAK_RSS], "within_noise", 0);
		c->nr_budgets = 2;
		c->budgets = xcalloc(2, sizeof(*c->budgets));
		c->budgets[0] = (struct budget_result){
			.metric = METRIC_LATENCY, .aggregation = xstrdup("p95"),
			.op = xstrdup("<="), .limit = 300e6,
			.limit_text = xstrdup("<= 300ms"), .have_actual = 1,
			.actual = 312400000, .status = BUDGET_FAIL };
		c->budgets[1] = (struct budget_result){
			.metric = METRIC_INSTRUCTIONS, .aggregation = xstrdup("max"),
			.op = xstrdup("<="), .limit = 1e9,
			.limit_text = xstrdup("<= 1000000000"),
			.status = BUDGET_UNASSESSABLE,
			.reason = xstrdup("instructions were not measured") };
		struct command_result *e = &b->commands[1];
		e->name = xstrdup("crash");
		e->command = xstrdup("sh -c 'kill -SEGV $$'");
		e->result = RESULT_ERROR;
		e->error = xstrdup("killed by signal SIGSEGV (run 1)");
		e->stderr_tail = xstrdup("line 1\nline 2\n");
		e->side[SIDE_HEAD].present = 1;
		e->side[SIDE_HEAD].metric[METRIC_LATENCY].status = MSTATUS_OK;
	}
	r->summary = (struct run_summary){ .benchmarks = 2, .commands = 4, .pass = 0,
					   .improved = 0, .inconclusive = 1,
					   .regression = 2, .over_budget = 0,
					   .error = 2, .exit_code = 4 };
	r->exit_reason = xstrdup("interrupted: the report holds what was measured before the signal");
}

static void write_json(const struct run_result *r, struct sbuf *out)
{
	struct report_options o;
	struct sbuf err = SBUF_INIT;
	report_options_init(&o);
	assert_int_equal(report_write_json(r, &o, out, &err), 0);
	sbuf_release(&err);
}

static int read_text(const char *text, struct run_result *r, struct sbuf *err)
{
	run_result_init(r);
	return report_read_json(text, strlen(text), "r.json", r, err);
}

static void test_round_trip(void **state)
{
	(void)state;
	struct run_result a, b;
	struct sbuf j1 = SBUF_INIT, j2 = SBUF_INIT, err = SBUF_INIT;
	build(&a);
	write_json(&a, &j1);
	int rc = read_text(j1.buf, &b, &err);
	if (rc)
		print_error("%s\n", err.buf);
	assert_int_equal(rc, 0);
	write_json(&b, &j2);
	assert_string_equal(j1.buf, j2.buf);

	/* Spot checks on the model itself. */
	assert_true(b.seed == UINT64_MAX);
	assert_string_equal(b.mode, "compare");
	assert_null(b.suites[0].suite_from);
	assert_int_equal(b.nr_accepts, 1);
	assert_string_equal(b.accepts[0].command, "fast");
	assert_int_equal(b.accepts[0].metric, METRIC_CPU_TOTAL);
	assert_true(b.accepts[0].max_percent == 12.5);
	assert_string_equal(b.suites[1].suite_from, "head");
	assert_int_equal(b.interrupted, 1);
	assert_int_equal(b.git.dirty, -1);
	assert_int_equal(b.env.logical_cpus, 0);
	assert_null(b.env.cpu_model);
	assert_int_equal(b.warnings.nr, 2);
	assert_int_equal(b.nr_suites, 2);
	const struct bench_result *bb = &b.suites[0].benches[0];
	assert_string_equal(bb->name, "sort <20k> & \"more\"");
	assert_int_equal(bb->tags.nr, 2);
	assert_string_equal(bb->baseline, "fast");
	assert_null(b.suites[1].benches[0].baseline);
	const struct command_result *c = &bb->commands[0];
	assert_string_equal(c->throughput_unit, "lines");
	assert_int_equal(c->side[SIDE_BASE].present, 1);
	assert_int_equal(c->side[SIDE_HEAD].metric[METRIC_LATENCY].nr, 30);
	assert_true(c->side[SIDE_HEAD].metric[METRIC_PEAK_RSS].samples[0].value ==
		    9007199254740992.0);
	assert_int_equal(c->side[SIDE_HEAD].metric[METRIC_LATENCY].samples[29].round, 15);
	assert_int_equal(c->side[SIDE_HEAD].metric[METRIC_INSTRUCTIONS].status,
			 MSTATUS_UNSUPPORTED);
	assert_string_equal(c->side[SIDE_HEAD].metric[METRIC_INSTRUCTIONS].reason,
			    "perf_event_paranoid is 3");
	assert_int_equal(c->side[SIDE_HEAD].metric[METRIC_ALLOCS].status, MSTATUS_FAILED);
	assert_int_equal(c->side[SIDE_HEAD].metric[METRIC_CYCLES].status, MSTATUS_ABSENT);
	const struct comparison *cp = &c->comparison[METRIC_LATENCY];
	assert_string_equal(verdict_name(cp->verdict), "regression");
	assert_true(cp->change_percent == 12.345678901234567);
	assert_true(isnan(cp->noise_floor_percent));
	assert_int_equal(cp->nr_dropped_rounds, 2);
	assert_int_equal(cp->dropped_rounds[1], 7);
	assert_int_equal(cp->boot_is_quantiles, 1);
	assert_int_equal(cp->nr_boot, 101);
	assert_int_equal(c->comparison[METRIC_PEAK_RSS].nr_boot, 0);
	assert_int_equal(c->comparison[METRIC_CPU_TOTAL].present, 0);
	assert_int_equal(c->nr_budgets, 2);
	assert_int_equal(c->budgets[1].status, BUDGET_UNASSESSABLE);
	assert_int_equal(c->budgets[1].have_actual, 0);
	assert_int_equal(c->budgets[0].have_actual, 1);
	assert_true(c->budgets[0].actual == 312400000);
	assert_string_equal(bb->commands[1].stderr_tail, "line 1\nline 2\n");
	assert_int_equal(b.summary.exit_code, 4);
	assert_int_equal(b.summary.error, 2);
	assert_string_equal(b.exit_reason, a.exit_reason);

	/* The table renders the same from either. */
	struct report_options o;
	report_options_init(&o);
	sbuf_reset(&j1);
	sbuf_reset(&j2);
	assert_int_equal(report_write_table(&a, &o, &j1, &err), 0);
	assert_int_equal(report_write_table(&b, &o, &j2, &err), 0);
	assert_string_equal(j1.buf, j2.buf);
	sbuf_reset(&j1);
	sbuf_reset(&j2);
	assert_int_equal(report_write_samples_csv(&a, &o, &j1, &err), 0);
	assert_int_equal(report_write_samples_csv(&b, &o, &j2, &err), 0);
	assert_string_equal(j1.buf, j2.buf);

	run_result_release(&a);
	run_result_release(&b);
	sbuf_release(&j1);
	sbuf_release(&j2);
	sbuf_release(&err);
}

static void test_compact_and_minimal(void **state)
{
	(void)state;
	struct run_result r;
	struct sbuf err = SBUF_INIT;
	const char *t = "{\"schema_version\":\"1\",\"tool\":\"kagari\",\"suites\":[],"
			"\"summary\":{\"exit_code\":0},\"future_field\":{\"x\":[1,2]}}";
	assert_int_equal(read_text(t, &r, &err), 0);
	assert_int_equal(r.nr_suites, 0);
	assert_true(r.seed == 0);
	assert_int_equal(r.git.dirty, -1);
	run_result_release(&r);
	sbuf_release(&err);
}

static void test_seed_exact(void **state)
{
	(void)state;
	static const struct {
		const char *text;
		uint64_t want;
	} cases[] = {
		{ "9007199254740993", UINT64_C(9007199254740993) },     /* 2^53 + 1 */
		{ "9223372036854775808", UINT64_C(9223372036854775808) }, /* 2^63 */
		{ "18446744073709551615", UINT64_MAX },
		{ "0", 0 },
	};
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		/* Nested "seed" keys and strings with braces must not confuse it. */
		char *t = xstrfmt("{\"schema_version\":\"1\",\"x\":{\"seed\":5,\"s\":\"}{\\\"\"},"
				  "\"tool\":\"kagari\",\"seed\" : %s ,\"suites\":[],"
				  "\"summary\":{\"exit_code\":0}}",
				  cases[i].text);
		struct run_result r;
		struct sbuf err = SBUF_INIT;
		int rc = read_text(t, &r, &err);
		if (rc)
			print_error("%s\n", err.buf);
		assert_int_equal(rc, 0);
		assert_true(r.seed == cases[i].want);
		run_result_release(&r);
		sbuf_release(&err);
		free(t);
	}
}

/* The text must fail with a message containing every part. */
static void expect_error(const char *text, const char *const *parts)
{
	struct run_result r;
	struct sbuf err = SBUF_INIT;
	assert_int_equal(read_text(text, &r, &err), -1);
	for (size_t i = 0; parts[i]; i++)
		if (!strstr(err.buf, parts[i])) {
			print_error("message '%s' lacks '%s'\n", err.buf, parts[i]);
			fail();
		}
	assert_null(strchr(err.buf, '\n'));
	run_result_release(&r);
	sbuf_release(&err);
}

#define HEAD "{\"schema_version\":\"1\",\"tool\":\"kagari\","
#define SUMMARY "\"summary\":{\"exit_code\":1}"

static void test_errors(void **state)
{
	(void)state;
	static const char *const v2[] = { "r.json: schema_version: unknown schema version '2'",
					  "reads \"1\"", NULL };
	expect_error("{\"schema_version\":\"2\",\"tool\":\"kagari\"}", v2);
	static const char *const vnum[] = { "r.json: schema_version: unknown schema version 'a number'", NULL };
	expect_error("{\"schema_version\":2}", vnum);
	static const char *const vnone[] = { "r.json: schema_version: missing", NULL };
	expect_error("{\"tool\":\"kagari\"}", vnone);
	static const char *const tool[] = { "r.json: tool: not a kagari report", NULL };
	expect_error("{\"schema_version\":\"1\",\"tool\":\"hyperfine\"}", tool);
	/* the old form (the number 1, as aa and history wrote it) is read */
	expect_error("{\"schema_version\":1,\"tool\":\"hyperfine\"}", tool);
	static const char *const syntax[] = { "r.json:2:", "invalid JSON", NULL };
	expect_error("{\"schema_version\":\"1\",\n  \"tool\": kagari}", syntax);
	static const char *const empty[] = { "r.json:", "invalid JSON", NULL };
	expect_error("", empty);
	static const char *const dup[] = { "r.json:", "duplicate", NULL };
	expect_error(HEAD "\"seed\":1,\"seed\":2}", dup);
	static const char *const arr[] = { "r.json: not a kagari JSON report (expected an object, not an array)", NULL };
	expect_error("[]", arr);
	static const char *const nosuites[] = { "r.json: suites: missing", NULL };
	expect_error(HEAD SUMMARY "}", nosuites);
	static const char *const nosummary[] = { "r.json: summary: missing", NULL };
	expect_error(HEAD "\"suites\":[]}", nosummary);
	static const char *const noexit[] = { "r.json: summary.exit_code: missing", NULL };
	expect_error(HEAD "\"suites\":[],\"summary\":{}}", noexit);
	static const char *const badexit[] = { "r.json: summary.exit_code: expected a whole number between 0 and 6", NULL };
	expect_error(HEAD "\"suites\":[],\"summary\":{\"exit_code\":7}}", badexit);
	static const char *const name[] = { "r.json: suites[0].benchmarks[1].name: expected a string, not a number", NULL };
	expect_error(HEAD SUMMARY ",\"suites\":[{\"name\":\"s\",\"benchmarks\":["
		     "{\"name\":\"a\",\"commands\":[]},{\"name\":3,\"commands\":[]}]}]}",
		     name);
	static const char *const metric[] = { "r.json: suites[0].benchmarks[0].commands[0].head.metrics.speed: unknown metric 'speed'", NULL };
	expect_error(HEAD SUMMARY ",\"suites\":[{\"name\":\"s\",\"benchmarks\":["
		     "{\"name\":\"a\",\"commands\":[{\"name\":\"c\",\"head\":{\"count\":1,"
		     "\"metrics\":{\"speed\":{\"unit\":\"ns\",\"status\":\"ok\"}}}}]}]}]}",
		     metric);
	static const char *const sample[] = { "commands[0].head.metrics.latency.samples[1].value: expected a number, not a string", NULL };
	expect_error(HEAD SUMMARY ",\"suites\":[{\"name\":\"s\",\"benchmarks\":["
		     "{\"name\":\"a\",\"commands\":[{\"name\":\"c\",\"head\":{\"count\":1,"
		     "\"metrics\":{\"latency\":{\"unit\":\"ns\",\"status\":\"ok\",\"samples\":["
		     "{\"round\":1,\"run\":1,\"value\":5},{\"round\":1,\"run\":2,\"value\":\"5\"}]}}}}]}]}]}",
		     sample);
	static const char *const bstatus[] = { "commands[0].budgets[0].status: unknown budget status 'meh'", NULL };
	expect_error(HEAD SUMMARY ",\"suites\":[{\"name\":\"s\",\"benchmarks\":["
		     "{\"name\":\"a\",\"commands\":[{\"name\":\"c\",\"budgets\":["
		     "{\"metric\":\"latency\",\"status\":\"meh\"}]}]}]}]}",
		     bstatus);
	static const char *const verdict[] = { "comparisons.latency.verdict: missing", NULL };
	expect_error(HEAD SUMMARY ",\"suites\":[{\"name\":\"s\",\"benchmarks\":["
		     "{\"name\":\"a\",\"commands\":[{\"name\":\"c\",\"comparisons\":"
		     "{\"latency\":{\"gate\":true}}}]}]}]}",
		     verdict);
	/* The verdict is an enum in the result model: a name outside
	   docs/contract.md's list is refused, not carried along. */
	static const char *const unknown_verdict[] = { "r.json: suites[0].benchmarks[0].commands[0].comparisons.latency.verdict: unknown value 'passed'", NULL };
	expect_error(HEAD SUMMARY ",\"suites\":[{\"name\":\"s\",\"benchmarks\":["
		     "{\"name\":\"a\",\"commands\":[{\"name\":\"c\",\"comparisons\":"
		     "{\"latency\":{\"verdict\":\"passed\",\"gate\":true}}}]}]}]}",
		     unknown_verdict);
	static const char *const number_verdict[] = { "comparisons.latency.verdict: expected a string, not a number", NULL };
	expect_error(HEAD SUMMARY ",\"suites\":[{\"name\":\"s\",\"benchmarks\":["
		     "{\"name\":\"a\",\"commands\":[{\"name\":\"c\",\"comparisons\":"
		     "{\"latency\":{\"verdict\":1,\"gate\":true}}}]}]}]}",
		     number_verdict);
	/* So are the results of commands, benchmarks and suites
	   (model/verdict.h): a verdict's name or a state's, or null. */
	static const char *const unknown_command_result[] = { "r.json: suites[0].benchmarks[0].commands[0].result: unknown value 'Regression'", NULL };
	expect_error(HEAD SUMMARY ",\"suites\":[{\"name\":\"s\",\"benchmarks\":["
		     "{\"name\":\"a\",\"commands\":[{\"name\":\"c\",\"result\":\"Regression\"}]}]}]}",
		     unknown_command_result);
	static const char *const unknown_bench_result[] = { "r.json: suites[0].benchmarks[1].result: unknown value 'over budget'", NULL };
	expect_error(HEAD SUMMARY ",\"suites\":[{\"name\":\"s\",\"benchmarks\":["
		     "{\"name\":\"a\",\"result\":\"pass\",\"commands\":[]},"
		     "{\"name\":\"b\",\"result\":\"over budget\",\"commands\":[]}]}]}",
		     unknown_bench_result);
	static const char *const unknown_suite_result[] = { "r.json: suites[0].result: unknown value ''", NULL };
	expect_error(HEAD SUMMARY ",\"suites\":[{\"name\":\"s\",\"result\":\"\",\"benchmarks\":[]}]}",
		     unknown_suite_result);
	static const char *const number_result[] = { "r.json: suites[0].result: expected a string, not a number", NULL };
	expect_error(HEAD SUMMARY ",\"suites\":[{\"name\":\"s\",\"result\":0,\"benchmarks\":[]}]}",
		     number_result);
	static const char *const gate[] = { "comparisons.latency.gate: expected true or false, not a number", NULL };
	expect_error(HEAD SUMMARY ",\"suites\":[{\"name\":\"s\",\"benchmarks\":["
		     "{\"name\":\"a\",\"commands\":[{\"name\":\"c\",\"comparisons\":"
		     "{\"latency\":{\"verdict\":\"pass\",\"gate\":1}}}]}]}]}",
		     gate);
	static const char *const big[] = { "r.json: seed: '18446744073709551616' is out of range", NULL };
	expect_error(HEAD "\"seed\":18446744073709551616,\"suites\":[]," SUMMARY "}", big);
	static const char *const neg[] = { "r.json: seed: expected a whole number between 0 and 2^64-1", NULL };
	expect_error(HEAD "\"seed\":-1,\"suites\":[]," SUMMARY "}", neg);
	expect_error(HEAD "\"seed\":1.5,\"suites\":[]," SUMMARY "}", neg);
	static const char *const sstr[] = { "r.json: seed: expected a number, not a string", NULL };
	expect_error(HEAD "\"seed\":\"1\",\"suites\":[]," SUMMARY "}", sstr);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_round_trip),
		cmocka_unit_test(test_compact_and_minimal),
		cmocka_unit_test(test_seed_exact),
		cmocka_unit_test(test_errors),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
