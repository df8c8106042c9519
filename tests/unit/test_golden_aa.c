/*
 * kagari aa without a process: the survey (analyze/aa.h) judges A/A
 * compares at every tolerance and recommends by its rule, and its three
 * outputs (report/aa.h) are compared whole with golden files
 * tests/data/golden/out/aa.{table,json,html} (KAGARI_UPDATE_GOLDEN=1
 * rewrites them).
 */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "analyze/aa.h"
#include "base/sbuf.h"
#include "base/xalloc.h"
#include "report/aa.h"

#include "golden.h"

/*
 * One compare-mode result of two commands, 12 rounds of one run a side,
 * gated on latency at T = 5: `same` is an A/A pair (both sides one
 * program's noise), `shifted` has head `shift` percent slower.
 */
static void make_compare(struct run_result *r, double shift, int variant)
{
	static const char *const names[] = { "same", "shifted" };

	run_result_init(r);
	r->mode = xstrdup("compare");
	r->seed = 7;
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
	b->rounds = 12;
	b->nr_commands = 2;
	b->commands = xcalloc(2, sizeof(*b->commands));
	for (size_t ci = 0; ci < 2; ci++) {
		struct command_result *c = &b->commands[ci];
		c->name = xstrdup(names[ci]);
		c->command = xstrdup("prog");
		c->rounds = 12;
		for (int sd = 0; sd < SIDE__COUNT; sd++) {
			c->side[sd].present = 1;
			c->side[sd].count = 12;
			for (int k = 0; k < 12; k++) {
				/* the same noise on both sides, in another order */
				int j = sd == SIDE_BASE ? k : (k * 5 + variant) % 12;
				double v = 1e6 * (1 + 0.002 * ((j * 7) % 12));
				if (ci == 1 && sd == SIDE_HEAD)
					v *= 1 + shift / 100;
				metric_series_add(&c->side[sd].metric[METRIC_LATENCY], v,
						  k + 1, 1);
			}
		}
		struct analysis_settings *a = &c->analysis;
		a->present = 1;
		a->pairing = PAIRING_ROUNDS;
		a->correction = CORRECTION_HOLM;
		a->resamples = 400;
		a->confidence = 0.95;
		a->min_samples = 5;
		a->max_cv = 0.5;
		a->runs_per_round = 1;
		a->metric[METRIC_LATENCY] =
		    (struct metric_rule){ 1, 1, STATISTIC_MEDIAN, 5, -1, 1 };
	}
}

/* Two compares: `same` never moves; `shifted` is +4% head each time, a
   false verdict at T = 1, 2 and 3 and none from 5 up. */
static void test_survey_judges_every_tolerance(void **state)
{
	(void)state;
	struct aa_survey st;

	aa_survey_init(&st, 2, 7);
	for (int k = 0; k < 2; k++) {
		struct run_result r;
		make_compare(&r, 4, k);
		aa_survey_add(&st, &r);
		run_result_release(&r);
	}
	aa_survey_finish(&st);
	assert_int_equal(st.measured, 2);
	assert_int_equal(st.nr, 2);
	const struct aa_row *same = &st.rows[0], *shifted = &st.rows[1];
	assert_string_equal(same->command, "same");
	assert_string_equal(shifted->command, "shifted");
	assert_int_equal(same->n, 2);
	assert_int_equal(shifted->n, 2);
	for (size_t t = 0; t < AA_NR_TOL; t++)
		assert_int_equal(same->false_at[t], 0);
	assert_true(fabs(same->median) < 1);
	assert_true(shifted->median > 3 && shifted->median < 5);
	/* +4% is a regression at T = 1 and 2 in both compares */
	assert_int_equal(shifted->false_at[0], 2);
	assert_int_equal(shifted->false_at[1], 2);
	for (size_t t = 4; t < AA_NR_TOL; t++)
		assert_int_equal(shifted->false_at[t], 0);
	/* the rule: no false verdict and p95(|change|) < T/2 — 4% needs
	   T = 10 (T = 5 has no false verdict, but 4 is not below 2.5) */
	assert_int_equal(same->recommended, 0);
	assert_true(AA_TOLERANCES[shifted->recommended] == 10);
	aa_survey_release(&st);
	assert_null(st.rows);
}

/* A survey filled by hand: every figure the writers print is fixed. */
static void fixed_survey(struct aa_survey *st)
{
	static const double changes[3][4] = {
		{ 0.4, -0.8, 1.1, -0.2 },
		{ 2.5, -3.0, 6.5, 1.0 },
		{ 0, 0, 0, 0 },
	};
	static const char *const cmds[3] = { "parse", "sort <fast> & \"q\"", "idle" };

	aa_survey_init(st, 4, 42);
	st->measured = 4;
	st->nr = st->alloc = 3;
	st->rows = xcalloc(3, sizeof(*st->rows));
	for (size_t k = 0; k < 3; k++) {
		struct aa_row *row = &st->rows[k];
		row->suite = xstrdup("s");
		row->benchmark = xstrdup("b");
		row->command = xstrdup(cmds[k]);
		row->metric = k == 2 ? METRIC_PEAK_RSS : METRIC_LATENCY;
		row->n = k == 2 ? 0 : 4;
		row->change = xcalloc(4, sizeof(double));
		memcpy(row->change, changes[k], sizeof(changes[k]));
	}
	st->rows[1].false_at[0] = 3;
	st->rows[1].false_at[1] = 2;
	st->rows[1].false_at[2] = 1;
	st->rows[1].false_at[3] = 1;
	aa_survey_finish(st);
}

static void test_rule_on_fixed_rows(void **state)
{
	(void)state;
	struct aa_survey st;

	fixed_survey(&st);
	/* p95 |change| 1.06 < 3/2 at T = 3 with no false verdict; T = 1 and
	   2 are too close to the noise */
	assert_true(AA_TOLERANCES[st.rows[0].recommended] == 3);
	/* false verdicts up to T = 5, p95 |change| 5.98 < 15/2 */
	assert_true(AA_TOLERANCES[st.rows[1].recommended] == 15);
	/* no compare measured it: no quantile, no recommendation */
	assert_int_equal(st.rows[2].recommended, -1);
	assert_true(isnan(st.rows[2].median));
	aa_survey_release(&st);
}

static void test_outputs_golden(void **state)
{
	(void)state;
	struct aa_survey st;
	struct sbuf out = SBUF_INIT;

	fixed_survey(&st);
	report_aa_table(&out, &st);
	assert_int_equal(check_golden(GOLDEN_DIR "/out/aa.table", &out), 0);
	sbuf_reset(&out);
	report_aa_json(&out, &st);
	assert_int_equal(check_golden(GOLDEN_DIR "/out/aa.json", &out), 0);
	sbuf_reset(&out);
	report_aa_html(&out, &st);
	golden_unversion(&out);
	assert_int_equal(check_golden(GOLDEN_DIR "/out/aa.html", &out), 0);
	/* names are escaped in the page */
	assert_null(strstr(out.buf, "<fast>"));
	assert_non_null(strstr(out.buf, "sort &lt;fast&gt; &amp; &quot;q&quot;"));
	sbuf_release(&out);
	aa_survey_release(&st);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_survey_judges_every_tolerance),
		cmocka_unit_test(test_rule_on_fixed_rows),
		cmocka_unit_test(test_outputs_golden),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
