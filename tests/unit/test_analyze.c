/*
 * analyze/analyze: the one analysis entry point on a result that holds
 * samples and settings. A result written to JSON, read back and analysed
 * again comes out byte-identical; overrides change the verdicts they
 * should ("what if T had been 10?"); budgets are evaluated again from the
 * result's own fields; and a malformed `analysis` object in a saved report
 * is an error naming the field.
 */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "analyze/analyze.h"
#include "base/sbuf.h"
#include "base/xalloc.h"
#include "report/read_json.h"
#include "report/report.h"

/*
 * One compare-mode result: command `c` with 10 rounds of two runs per
 * side; allocs exact (100 base, 150 head: +50%), latency noisy around
 * 1 ms on both sides. allocs compared at T = 60, latency at T = 10; one
 * budget on head allocs (max <= 120, fails).
 */
static void make_result(struct run_result *r)
{
	run_result_init(r);
	r->mode = xstrdup("compare");
	r->seed = 12345;
	r->nr_suites = 1;
	r->suites = xcalloc(1, sizeof(*r->suites));
	struct suite_result *s = &r->suites[0];
	s->name = xstrdup("s");
	s->file = xstrdup("s.yaml");
	s->nr_benches = 1;
	s->benches = xcalloc(1, sizeof(*s->benches));
	struct bench_result *b = &s->benches[0];
	b->name = xstrdup("b");
	strvec_init(&b->tags);
	b->rounds = 10;
	b->nr_commands = 1;
	b->commands = xcalloc(1, sizeof(*b->commands));
	struct command_result *c = &b->commands[0];
	c->name = xstrdup("c");
	c->command = xstrdup("prog");
	c->rounds = 10;
	for (int sd = 0; sd < SIDE__COUNT; sd++) {
		c->side[sd].present = 1;
		c->side[sd].count = 20;
		for (int k = 0; k < 20; k++) {
			double noise = (double)((k * 7919 + sd * 104729) % 97) * 1000.0;
			metric_series_add(&c->side[sd].metric[METRIC_LATENCY],
					  1000000.0 + noise, k / 2 + 1, k + 1);
			metric_series_add(&c->side[sd].metric[METRIC_ALLOCS],
					  sd == SIDE_BASE ? 100 : 150, k / 2 + 1, k + 1);
		}
	}
	struct analysis_settings *a = &c->analysis;
	a->present = 1;
	a->pairing = PAIRING_ROUNDS;
	a->correction = CORRECTION_HOLM;
	a->resamples = 500;
	a->confidence = 0.95;
	a->min_samples = 10;
	a->max_cv = 0.5;
	a->runs_per_round = 2;
	a->metric[METRIC_LATENCY] = (struct metric_rule){ 1, 1, STATISTIC_MEDIAN, 10, -1, 1 };
	a->metric[METRIC_ALLOCS] = (struct metric_rule){ 1, 1, STATISTIC_MEDIAN, 60, -1, 1 };
	c->nr_budgets = 1;
	c->budgets = xcalloc(1, sizeof(*c->budgets));
	c->budgets[0].metric = METRIC_ALLOCS;
	c->budgets[0].aggregation = xstrdup("max");
	c->budgets[0].op = xstrdup("<=");
	c->budgets[0].limit = 120;
	c->budgets[0].limit_text = xstrdup("<= 120");
}

static char *to_json(const struct run_result *r)
{
	struct report_options o;
	report_options_init(&o);
	struct sbuf out = SBUF_INIT, err = SBUF_INIT;
	assert_int_equal(report_write_json(r, &o, &out, &err), 0);
	sbuf_release(&err);
	return sbuf_detach(&out);
}

static void test_round_trip(void **state)
{
	(void)state;
	struct run_result r, back;
	make_result(&r);
	analyze_result(&r, NULL);
	struct command_result *c = &r.suites[0].benches[0].commands[0];
	assert_string_equal(verdict_name(c->comparison[METRIC_ALLOCS].verdict), "pass");
	assert_true(c->side[SIDE_HEAD].metric[METRIC_ALLOCS].have_summary);
	assert_int_equal(c->budgets[0].status, BUDGET_FAIL);
	assert_true(c->budgets[0].have_actual && c->budgets[0].actual == 150);
	assert_int_equal(c->result, RESULT_OVER_BUDGET);
	assert_int_equal(r.summary.over_budget, 1);
	char *first = to_json(&r);

	/* Read back and analysed again: the same JSON, byte for byte. */
	struct sbuf err = SBUF_INIT;
	run_result_init(&back);
	assert_int_equal(report_read_json(first, strlen(first), "r.json", &back, &err), 0);
	analyze_result(&back, NULL);
	char *second = to_json(&back);
	assert_string_equal(first, second);

	/* Analysing twice in place changes nothing either. */
	analyze_result(&back, NULL);
	char *third = to_json(&back);
	assert_string_equal(first, third);

	free(first);
	free(second);
	free(third);
	sbuf_release(&err);
	run_result_release(&r);
	run_result_release(&back);
}

/* regression.rare_share: kept in the report's analysis settings, read
   back and applied again; with 20 head runs a pass needs more (149). */
static void test_rare_share(void **state)
{
	(void)state;
	struct run_result r, back;
	make_result(&r);
	struct command_result *c = &r.suites[0].benches[0].commands[0];
	c->analysis.rare_share = 0.02;
	analyze_result(&r, NULL);
	const struct comparison *cp = &c->comparison[METRIC_ALLOCS];
	assert_int_equal(cp->verdict, VERDICT_INCONCLUSIVE);
	assert_non_null(strstr(cp->reason, "a pass needs 149 for rare_share 2%"));
	assert_true(fabs(cp->blind_share_percent - 100 * (1 - pow(0.05, 1.0 / 20))) < 1e-9);
	char *first = to_json(&r);
	assert_non_null(strstr(first, "\"rare_share\": 0.02"));
	struct sbuf err = SBUF_INIT;
	run_result_init(&back);
	assert_int_equal(report_read_json(first, strlen(first), "r.json", &back, &err), 0);
	assert_true(back.suites[0].benches[0].commands[0].analysis.rare_share == 0.02);
	analyze_result(&back, NULL);
	char *second = to_json(&back);
	assert_string_equal(first, second);
	free(first);
	free(second);
	sbuf_release(&err);
	run_result_release(&r);
	run_result_release(&back);
}

static void test_overrides(void **state)
{
	(void)state;
	struct run_result r;
	make_result(&r);
	struct analyze_overrides ov;
	memset(&ov, 0, sizeof(ov));
	ov.have_max_percent[METRIC_ALLOCS] = 1;
	ov.max_percent[METRIC_ALLOCS] = 10;
	ov.have_confidence = 1;
	ov.confidence = 0.9;
	analyze_result(&r, &ov);
	struct command_result *c = &r.suites[0].benches[0].commands[0];
	const struct comparison *cp = &c->comparison[METRIC_ALLOCS];
	assert_string_equal(verdict_name(cp->verdict), "regression");
	assert_true(cp->max_percent == 10);
	assert_true(cp->confidence == 0.9);
	assert_true(c->comparison[METRIC_LATENCY].max_percent == 10); /* untouched */
	assert_true(c->analysis.metric[METRIC_ALLOCS].max_percent == 10);
	assert_int_equal(c->result, RESULT_REGRESSION);
	assert_int_equal(r.summary.regression, 1);
	run_result_release(&r);
}

/* A metric not measured on both sides but configured is `skipped`. */
static void test_skipped(void **state)
{
	(void)state;
	struct run_result r;
	make_result(&r);
	struct command_result *c = &r.suites[0].benches[0].commands[0];
	c->analysis.metric[METRIC_PEAK_RSS] = (struct metric_rule){ 1, 1, STATISTIC_MEDIAN, 10, -1, 1 };
	c->analysis.metric[METRIC_CPU_TOTAL] = (struct metric_rule){ 1, 0, STATISTIC_MEDIAN, 10, -1, 1 };
	analyze_result(&r, NULL);
	assert_string_equal(verdict_name(c->comparison[METRIC_PEAK_RSS].verdict), "skipped");
	assert_false(c->comparison[METRIC_CPU_TOTAL].present);
	run_result_release(&r);
}


/*
 * A saved report may hold more rounds than can be analysed in bounded
 * memory: that comparison ends inconclusive saying so; the others of the
 * run are judged as ever.
 */
static void test_too_many_rounds(void **state)
{
	(void)state;
	struct run_result r;
	make_result(&r);
	struct command_result *c = &r.suites[0].benches[0].commands[0];
	for (int sd = 0; sd < SIDE__COUNT; sd++) {
		struct metric_series *m = &c->side[sd].metric[METRIC_LATENCY];
		for (int k = 20; k <= SETTINGS_MAX_COMPARE_SAMPLES; k++)
			metric_series_add(m, 1000000.0, k / 2 + 1, k + 1);
		assert_true(m->nr > SETTINGS_MAX_COMPARE_SAMPLES);
	}
	analyze_result(&r, NULL);
	const struct comparison *lat = &c->comparison[METRIC_LATENCY];
	assert_true(lat->present);
	assert_string_equal(verdict_name(lat->verdict), "inconclusive");
	assert_non_null(strstr(lat->reason, "too many rounds to analyse"));
	assert_string_equal(verdict_name(c->comparison[METRIC_ALLOCS].verdict), "pass"); /* +50% < 60% */
	run_result_release(&r);
}

static void test_bad_analysis(void **state)
{
	(void)state;
	struct run_result r;
	make_result(&r);
	analyze_result(&r, NULL);
	char *json = to_json(&r);
	run_result_release(&r);
	static const struct { const char *from, *to, *msg; } cases[] = {
		{ "\"confidence\": 0.95,\n", "\"confidence\": 2,\n", "analysis.confidence" },
		{ "\"correction\": \"holm\"", "\"correction\": \"sometimes\"", "analysis.correction" },
		{ "\"resamples\": 500", "\"resamples\": \"many\"", "analysis.resamples" },
		/* more than a suite may ask for: each is a pass over the samples */
		{ "\"resamples\": 500", "\"resamples\": 10000001", "analysis.resamples" },
		{ "\"allocs\": {\"statistic\"", "\"nosuch\": {\"statistic\"", "analysis.metrics.nosuch" },
	};
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		const char *at = strstr(strstr(json, "\"analysis\": {"), cases[i].from);
		if (!at)
			fail_msg("case %zu: '%s' not in the report", i, cases[i].from);
		struct sbuf bad = SBUF_INIT, err = SBUF_INIT;
		sbuf_add(&bad, json, (size_t)(at - json));
		sbuf_adds(&bad, cases[i].to);
		sbuf_adds(&bad, at + strlen(cases[i].from));
		run_result_init(&r);
		assert_int_equal(report_read_json(bad.buf, bad.len, "r.json", &r, &err), -1);
		if (!strstr(err.buf, cases[i].msg))
			fail_msg("case %zu: '%s' does not name '%s'", i, err.buf, cases[i].msg);
		run_result_release(&r);
		sbuf_release(&bad);
		sbuf_release(&err);
	}
	free(json);
}

/*
 * Latency gated at T = 3 on a machine that cannot resolve it (rounds
 * +-40% apart), cpu_total compared (ungated, at 10%) with +5% and spread
 * `cpu_spread`: latency's reason says it cannot resolve 3% and names
 * cpu_total only when cpu_total's interval is decisive at 3%.
 */
static char *resolution_reason_rss(double cpu_spread, double instr_change, double rss_change)
{
	struct run_result r;
	make_result(&r);
	struct command_result *c = &r.suites[0].benches[0].commands[0];
	for (int sd = 0; sd < SIDE__COUNT; sd++) {
		metric_series_fail(&c->side[sd].metric[METRIC_LATENCY], MSTATUS_ABSENT, NULL);
		metric_series_fail(&c->side[sd].metric[METRIC_CPU_TOTAL], MSTATUS_ABSENT, NULL);
		if (instr_change)
			metric_series_fail(&c->side[sd].metric[METRIC_INSTRUCTIONS], MSTATUS_ABSENT, NULL);
		if (rss_change)
			metric_series_fail(&c->side[sd].metric[METRIC_PEAK_RSS], MSTATUS_ABSENT, NULL);
		for (int k = 0; k < 20; k++) {
			double wild = (k * 37 + sd * 11) % 5 - 2;
			double even = (double)((k * 7919 + sd * 104729) % 97) / 96 - 0.5;
			metric_series_add(&c->side[sd].metric[METRIC_LATENCY],
					  1e6 * (1 + 0.2 * wild), k / 2 + 1, k + 1);
			metric_series_add(&c->side[sd].metric[METRIC_CPU_TOTAL],
					  1e6 * (sd == SIDE_HEAD ? 1.05 : 1) * (1 + cpu_spread * even),
					  k / 2 + 1, k + 1);
			if (instr_change)
				metric_series_add(&c->side[sd].metric[METRIC_INSTRUCTIONS],
						  1e9 * (sd == SIDE_HEAD ? 1 + instr_change : 1) *
							  (1 + 0.002 * even),
						  k / 2 + 1, k + 1);
			if (rss_change)
				metric_series_add(&c->side[sd].metric[METRIC_PEAK_RSS],
						  round(1e8 * (sd == SIDE_HEAD ? 1 + rss_change : 1) *
							(1 + 0.002 * even)),
						  k / 2 + 1, k + 1);
		}
	}
	c->analysis.metric[METRIC_LATENCY] = (struct metric_rule){ 1, 1, STATISTIC_MEDIAN, 3, -1, 1 };
	c->analysis.metric[METRIC_CPU_TOTAL] = (struct metric_rule){ 1, 0, STATISTIC_MEDIAN, 10, -1, 0 };
	if (instr_change)
		c->analysis.metric[METRIC_INSTRUCTIONS] =
			(struct metric_rule){ 1, 0, STATISTIC_MEDIAN, 10, -1, 0 };
	if (rss_change)
		c->analysis.metric[METRIC_PEAK_RSS] =
			(struct metric_rule){ 1, 0, STATISTIC_MEDIAN, 10, -1, 0 };
	c->analysis.metric[METRIC_ALLOCS].compare = 0;
	analyze_result(&r, NULL);
	const struct comparison *l = &c->comparison[METRIC_LATENCY];
	const struct comparison *cpu = &c->comparison[METRIC_CPU_TOTAL];
	assert_true(l->verdict == VERDICT_INCONCLUSIVE || l->verdict == VERDICT_WITHIN_NOISE);
	/* cpu_total's own verdict, at its own 10%, is decided either way. */
	if (cpu->verdict != VERDICT_PASS)
		fail_msg("cpu_total %s: %s", verdict_text(cpu->verdict, "none"), cpu->reason);
	/* The Markdown and GitHub reports carry the reason. */
	static const enum report_format shown[] = { REPORT_MARKDOWN, REPORT_GITHUB };
	for (size_t i = 0; i < sizeof(shown) / sizeof(shown[0]); i++) {
		struct sbuf out = SBUF_INIT, err = SBUF_INIT;
		assert_int_equal(report_render(&r, shown[i], NULL, &out, &err), 0);
		if (!strstr(out.buf, "latency cannot resolve 3% here ("))
			fail_msg("%s report without the note:\n%s", report_format_name(shown[i]),
				 out.buf);
		sbuf_release(&out);
		sbuf_release(&err);
	}
	char *reason = xstrdup(l->reason);
	run_result_release(&r);
	return reason;
}

static char *resolution_reason(double cpu_spread, double instr_change)
{
	return resolution_reason_rss(cpu_spread, instr_change, 0);
}

static void test_resolution_note(void **state)
{
	(void)state;
	char *tight = resolution_reason(0.002, 0), *loose = resolution_reason(0.12, 0);
	if (!strstr(tight, "latency cannot resolve 3% here (") ||
	    !strstr(tight, "; cpu_total +5.0% [") || !strstr(tight, "] did"))
		fail_msg("tight cpu_total: \"%s\"", tight);
	if (!strstr(loose, "latency cannot resolve 3% here (") || strstr(loose, "cpu_total") ||
	    strstr(loose, " did"))
		fail_msg("loose cpu_total (its interval spans 3%%): \"%s\"", loose);
	free(tight);
	free(loose);
}

/*
 * Instruction counts measure work, not time (zstd 1.5.0's -6: 36.5% more
 * instructions, 46% less time): the note never offers them as the metric
 * that resolved in place of time, beside a time metric that did or alone,
 * and says when they moved against it.
 */
static void test_resolution_note_counts(void **state)
{
	(void)state;
	char *same = resolution_reason(0.002, 0.2), *against = resolution_reason(0.002, -0.2);
	char *alone = resolution_reason(0.12, 0.2);
	if (!strstr(same, "; cpu_total +5.0% [") || strstr(same, "instructions") ||
	    !strstr(same, "] did") || strstr(same, "moved against"))
		fail_msg("instructions with cpu_total: \"%s\"", same);
	if (!strstr(against, "; cpu_total +5.0% [") ||
	    !strstr(against, "] did; instructions -20.0% [") ||
	    !strstr(against, "] moved against cpu_total +5.0%: a count of work, not of time"))
		fail_msg("instructions against cpu_total: \"%s\"", against);
	/* No time metric resolved: instructions are no stand-in for one. */
	if (strstr(alone, " did") || (strstr(alone, "instructions") && !strstr(alone, "moved against latency")))
		fail_msg("instructions alone: \"%s\"", alone);
	free(same);
	free(against);
	free(alone);
}

/*
 * Only a metric of the same kind is offered: a peak_rss that resolved its
 * +0.7% is no answer to latency's question (jq 1.6 -> 1.7.1: "peak_rss
 * +0.7% [...] did" where cpu_total was the time metric that decided).
 */
static void test_resolution_note_kind(void **state)
{
	(void)state;
	char *with_cpu = resolution_reason_rss(0.002, 0, 0.007);
	char *rss_only = resolution_reason_rss(0.12, 0, 0.007);
	if (!strstr(with_cpu, "; cpu_total +5.0% [") || !strstr(with_cpu, "] did") ||
	    strstr(with_cpu, "peak_rss"))
		fail_msg("peak_rss beside cpu_total: \"%s\"", with_cpu);
	if (!strstr(rss_only, "latency cannot resolve 3% here (") || strstr(rss_only, "peak_rss") ||
	    strstr(rss_only, " did"))
		fail_msg("peak_rss alone: \"%s\"", rss_only);
	free(with_cpu);
	free(rss_only);
}

/*
 * Identical builds (identical_artifact): a change within the +-10% memory
 * layout can make is a measurement artefact (a regression inconclusive, an
 * improvement within_noise: never a pass-like verdict for a slower head);
 * beyond it the
 * verdict stands and its reason says the binaries are identical and the
 * change comes from elsewhere. Head is base x factor (x odd in odd
 * rounds), 0.1% of noise, at a 2% tolerance.
 */
static struct comparison identical_verdict(double factor, double odd, int identical,
					    char **reason)
{
	struct run_result r;
	make_result(&r);
	struct command_result *c = &r.suites[0].benches[0].commands[0];
	c->identical_artifact = identical;
	c->analysis.metric[METRIC_LATENCY].max_percent = 2;
	for (int sd = 0; sd < SIDE__COUNT; sd++) {
		struct metric_series *ms = &c->side[sd].metric[METRIC_LATENCY];
		for (size_t k = 0; k < ms->nr; k++)
			ms->samples[k].value = 1e6 * (1 + 0.001 * (double)(k % 3)) *
					       (sd == SIDE_BASE ? 1 : k / 2 % 2 ? odd : factor);
	}
	analyze_result(&r, NULL);
	struct comparison cp = c->comparison[METRIC_LATENCY];
	*reason = xstrdup(cp.reason ? cp.reason : "");
	run_result_release(&r);
	return cp;
}

static void test_identical_bound(void **state)
{
	(void)state;
	assert_true(ANALYZE_LAYOUT_BOUND_PERCENT == 10);
	const struct {
		double factor, odd;
		int identical;
		enum verdict v;
		const char *says, *not_says;
	} cases[] = {
		{ 1.05, 1.05, 1, VERDICT_INCONCLUSIVE, "measurement artefact, not a change",
		  "elsewhere" },
		{ 1.09, 1.09, 1, VERDICT_INCONCLUSIVE, "within the \u00b110% memory layout",
		  "elsewhere" },
		{ 0.95, 0.95, 1, VERDICT_WITHIN_NOISE, "measurement artefact", "elsewhere" },
		{ 1.12, 1.12, 1, VERDICT_REGRESSION,
		  "byte-identical, and the change is beyond the \u00b110% memory layout alone "
		  "can make: it comes from elsewhere (inputs, setup, environment)", "artefact" },
		/* +6% or +16% a round: the interval straddles +10%, so layout
		   cannot be said to explain it. */
		{ 1.06, 1.16, 1, VERDICT_REGRESSION, "the change may reach beyond the \u00b110%",
		  "artefact" },
		{ 3.00, 3.00, 1, VERDICT_REGRESSION, "comes from elsewhere", "artefact" },
		{ 0.50, 0.50, 1, VERDICT_IMPROVED, "comes from elsewhere", "artefact" },
		{ 1.05, 1.05, 0, VERDICT_REGRESSION, "> 2%", "identical" },
	};
	for (size_t i = 0; i < sizeof(cases) / sizeof(*cases); i++) {
		char *reason;
		struct comparison cp = identical_verdict(cases[i].factor, cases[i].odd,
							 cases[i].identical, &reason);
		if (cp.verdict != cases[i].v || !strstr(reason, cases[i].says) ||
		    strstr(reason, cases[i].not_says))
			fail_msg("x%g/x%g identical=%d: %s \"%s\"", cases[i].factor, cases[i].odd,
				 cases[i].identical, verdict_name(cp.verdict), reason);
		free(reason);
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_round_trip),
		cmocka_unit_test(test_rare_share),
		cmocka_unit_test(test_overrides),
		cmocka_unit_test(test_skipped),
		cmocka_unit_test(test_bad_analysis),
		cmocka_unit_test(test_too_many_rounds),
		cmocka_unit_test(test_resolution_note),
		cmocka_unit_test(test_resolution_note_counts),
		cmocka_unit_test(test_resolution_note_kind),
		cmocka_unit_test(test_identical_bound),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
