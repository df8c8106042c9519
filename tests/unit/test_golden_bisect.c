/*
 * kagari bisect without a process: a fake oracle (a plan of verdicts per
 * commit index and measurement) drives the search (analyze/bisect.h)
 * through the real judging to the first bad commit; skipped commits are
 * tried around and named, an undecided one is measured again with twice
 * the runs at half the level, a range with no bad commit finds nothing,
 * skips around the boundary leave it ambiguous. The table and JSON
 * (report/bisect.h) of a fixed result are compared whole with
 * tests/data/golden/out/bisect.{table,json} and bisect-ambiguous.*
 * (KAGARI_UPDATE_GOLDEN=1 rewrites them).
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

#include "analyze/bisect.h"
#include "base/sbuf.h"
#include "base/xalloc.h"
#include "model/metric.h"
#include "report/bisect.h"
#include "suite/load.h"

#include "golden.h"

/*
 * The fake oracle. plan[idx] holds one letter per measurement of commit
 * idx (the last repeats): R a regression, P pass, N within noise, I
 * inconclusive, F the command failed, X no comparison at all; B: the
 * commit does not build. Every measurement is of one command s/b/c,
 * latency gated, with change +20% on R and +1% otherwise.
 */
struct fake {
	const char *const *plan;
	size_t tested;	   /* prepare calls */
	int stop_after;	   /* stop() says yes after this many measurements (0: never) */
	size_t measured;
	char progress[64]; /* 't' for a test, 'a' for a measurement again */
	size_t nr_progress;
};

static int fake_prepare(void *data, struct bisect *b, size_t idx)
{
	struct fake *f = data;
	f->tested++;
	if (f->plan[idx][0] != 'B')
		return 0;
	b->r.path[idx].reason = xstrdup("the build failed: exit 2");
	return -1;
}

/* One result of suite s, benchmark b, command c: the comparison verdict v. */
static void fake_result(struct run_result *rr, const struct bisect *b, char v, size_t runs)
{
	run_result_init(rr);
	rr->mode = xstrdup("compare");
	rr->suites = xcalloc(1, sizeof(*rr->suites));
	rr->nr_suites = 1;
	struct suite_result *sr = &rr->suites[0];
	sr->name = xstrdup("s");
	sr->benches = xcalloc(1, sizeof(*sr->benches));
	sr->nr_benches = 1;
	struct bench_result *br = &sr->benches[0];
	br->name = xstrdup("b");
	br->commands = xcalloc(1, sizeof(*br->commands));
	br->nr_commands = 1;
	struct command_result *cr = &br->commands[0];
	cr->name = xstrdup("c");
	strvec_init(&cr->matrix_names);
	strvec_init(&cr->matrix_values);
	cr->analysis.metric[METRIC_LATENCY].gate = 1;
	cr->side[SIDE_HEAD].count = runs;
	cr->side[SIDE_HEAD].metric[METRIC_LATENCY].nr = runs;
	if (v == 'F') {
		cr->error = xstrdup("exit status 1");
		return;
	}
	if (v == 'X')
		return;
	struct comparison *cp = &cr->comparison[METRIC_LATENCY];
	cp->present = 1;
	cp->gate = 1;
	cp->confidence = b->nr_suites ? b->suites[0]->benches[0].commands[0].settings.regression.confidence
				      : 0.95;
	cp->change_percent = v == 'R' ? 20 : 1;
	cp->ci_low_percent = v == 'R' ? 15 : -2;
	cp->ci_high_percent = v == 'R' ? 25 : 4;
	cp->verdict = v == 'R' ? VERDICT_REGRESSION
		      : v == 'P' ? VERDICT_PASS
		      : v == 'N' ? VERDICT_WITHIN_NOISE
				 : VERDICT_INCONCLUSIVE;
}

static void fake_measure(void *data, struct bisect *b, size_t idx)
{
	struct fake *f = data;
	struct bisect_commit *c = &b->r.path[idx];
	bisect_measure_begin(b, idx);
	bisect_set_look(b, c->measured);
	const char *p = f->plan[idx];
	size_t len = strlen(p);
	char v = p[(size_t)c->measured - 1 < len ? (size_t)c->measured - 1 : len - 1];
	struct run_result rr;
	fake_result(&rr, b, v, c->runs > 0 ? (size_t)c->runs : 4);
	bisect_judge(b, idx, &rr);
	run_result_release(&rr);
	bisect_set_look(b, 0);
	f->measured++;
}

static int fake_stop(void *data)
{
	struct fake *f = data;
	return f->stop_after > 0 && f->measured >= (size_t)f->stop_after;
}

static void fake_progress(void *data, const struct bisect *b, size_t idx, int again)
{
	struct fake *f = data;
	(void)b;
	(void)idx;
	if (f->nr_progress + 1 < sizeof(f->progress))
		f->progress[f->nr_progress++] = again ? 'a' : 't';
}

/* A path of n commits, c00 .. c(n-1), searched with plan; the oracle's
   counts in *f. */
static void run_search(struct bisect *b, struct fake *f, const char *const *plan, size_t n)
{
	bisect_init(b);
	b->r.good = xstrdup("good");
	b->r.bad = xstrdup("bad");
	for (size_t k = 0; k < n; k++) {
		char sha[8], subject[16];
		snprintf(sha, sizeof(sha), "c%02zu", k);
		snprintf(subject, sizeof(subject), "commit %zu", k);
		bisect_result_add(&b->r, sha, strlen(sha), subject, strlen(subject));
	}
	memset(f, 0, sizeof(*f));
	f->plan = plan;
	const struct bisect_oracle o = { fake_prepare, fake_measure, fake_stop, fake_progress, f };
	bisect_search(b, &o);
}

static void test_finds_first_bad(void **state)
{
	(void)state;
	/* 16 commits, the regression from index 9 on */
	const char *plan[16];
	for (size_t k = 0; k < 16; k++)
		plan[k] = k >= 9 ? "R" : k % 2 ? "P" : "N";
	struct bisect b;
	struct fake f;
	run_search(&b, &f, plan, 16);
	assert_int_equal(b.r.first, 9);
	assert_false(b.r.ambiguous);
	const struct bisect_commit *fb = bisect_first_bad(&b.r);
	assert_non_null(fb);
	assert_string_equal(fb->sha, "c09");
	assert_int_equal(fb->have_change, 1);
	assert_true(fb->change == 20 && fb->low == 15 && fb->high == 25);
	assert_string_equal(fb->what, "s/b/c latency");
	/* BAD first, then a binary search: 1 + log2(16) tests at most */
	assert_int_equal(b.r.order[0], 15);
	assert_true(b.r.nr_order <= 5);
	assert_int_equal(b.r.nr_order, f.tested);
	assert_int_equal(b.r.steps, b.r.nr_order);
	assert_int_equal(bisect_skipped(&b.r), 0);
	/* BAD's regression is what the search followed */
	assert_int_equal(b.matters.nr, 1);
	assert_string_equal(b.matters.v[0], "s/b/c latency");
	/* a good commit carries the change it was judged good on */
	for (size_t k = 0; k < b.r.nr_order; k++) {
		const struct bisect_commit *c = &b.r.path[b.r.order[k]];
		assert_int_equal(c->out, b.r.order[k] >= 9 ? BISECT_BAD : BISECT_GOOD);
		assert_int_equal(c->have_change, 1);
		assert_null(c->reason);
	}
	assert_int_equal(f.progress[0], 't');
	bisect_release(&b);

	/* the first commit itself, and BAD itself */
	for (size_t k = 0; k < 16; k++)
		plan[k] = "R";
	run_search(&b, &f, plan, 16);
	assert_int_equal(b.r.first, 0);
	bisect_release(&b);
	for (size_t k = 0; k < 16; k++)
		plan[k] = k == 15 ? "R" : "P";
	run_search(&b, &f, plan, 16);
	assert_int_equal(b.r.first, 15);
	bisect_release(&b);
}

static void test_no_bad_commit(void **state)
{
	(void)state;
	const char *plan[] = { "R", "R", "P", "N" }; /* BAD is not a regression */
	struct bisect b;
	struct fake f;
	run_search(&b, &f, plan, 4);
	assert_int_equal(b.r.first, -1);
	assert_null(bisect_first_bad(&b.r));
	assert_int_equal(b.r.nr_order, 1); /* only BAD was measured */
	assert_int_equal(b.r.path[3].out, BISECT_GOOD);
	for (size_t k = 0; k < 3; k++)
		assert_int_equal(b.r.path[k].out, BISECT_UNTESTED);
	bisect_release(&b);

	/* BAD whose command failed: skipped, named */
	const char *failed[] = { "P", "F" };
	run_search(&b, &f, failed, 2);
	assert_int_equal(b.r.first, -1);
	assert_int_equal(b.r.path[1].out, BISECT_SKIP);
	assert_string_equal(b.r.path[1].reason, "s/b/c latency: the command failed");
	assert_false(b.r.path[1].undecided); /* failed, not undecided */
	bisect_release(&b);

	/* no comparison of the selected metric at all */
	const char *none[] = { "P", "X" };
	run_search(&b, &f, none, 2);
	assert_int_equal(b.r.path[1].out, BISECT_SKIP);
	assert_string_equal(b.r.path[1].reason, "no comparison of the selected metric");
	bisect_release(&b);
}

static void test_skips(void **state)
{
	(void)state;
	/* 8 commits, bad from 6; in the middle one fails, one does not build */
	const char *plan[] = { "P", "P", "P", "F", "B", "P", "R", "R" };
	struct bisect b;
	struct fake f;
	run_search(&b, &f, plan, 8);
	assert_int_equal(b.r.first, 6);
	assert_false(b.r.ambiguous);
	assert_int_equal(bisect_skipped(&b.r), 2);
	/* the untested commit nearest the middle, around a skip */
	static const size_t order[] = { 7, 3, 2, 4, 5, 6 };
	assert_int_equal(b.r.nr_order, 6);
	for (size_t k = 0; k < 6; k++)
		assert_int_equal(b.r.order[k], order[k]);
	assert_int_equal(b.r.path[3].out, BISECT_SKIP);
	assert_string_equal(b.r.path[3].reason, "s/b/c latency: the command failed");
	assert_int_equal(b.r.path[4].out, BISECT_SKIP);
	assert_string_equal(b.r.path[4].reason, "the build failed: exit 2");
	assert_int_equal(b.r.path[4].measured, 0); /* never measured */
	assert_int_equal(b.r.steps, b.r.nr_order - 1);
	bisect_release(&b);

	/* skips around the boundary: ambiguous, the candidates named */
	const char *amb[] = { "P", "P", "B", "F", "R", "R" };
	run_search(&b, &f, amb, 6);
	assert_true(b.r.ambiguous);
	assert_null(bisect_first_bad(&b.r));
	assert_int_equal(b.r.first, 4);
	assert_int_equal(bisect_candidates_from(&b.r), 2); /* c02, c03, c04 */
	assert_int_equal(bisect_skipped(&b.r), 2);
	bisect_release(&b);
}

static void test_stop(void **state)
{
	(void)state;
	const char *plan[] = { "P", "P", "P", "P", "P", "P", "P", "R" };
	struct bisect b;
	struct fake f;
	bisect_init(&b);
	b.r.good = xstrdup("g");
	b.r.bad = xstrdup("b");
	for (int k = 0; k < 8; k++)
		bisect_result_add(&b.r, "c", 1, "s", 1);
	memset(&f, 0, sizeof(f));
	f.plan = plan;
	f.stop_after = 2; /* an interrupt after the second measurement */
	const struct bisect_oracle o = { fake_prepare, fake_measure, fake_stop, NULL, &f };
	bisect_search(&b, &o);
	assert_int_equal(f.measured, 2);
	assert_int_equal(b.r.nr_order, 2);
	bisect_release(&b);
}

/* Undecided at the first look: measured again, twice the runs, at half
   the level; still undecided at the cap: skipped, named. */
static void test_measured_again(void **state)
{
	(void)state;
	static const char yaml[] =
		"version: \"1\"\nname: s\n"
		"defaults: {runs: 4, max_runs: 16, regression: {confidence: 0.9}}\n"
		"benchmarks:\n  - name: b\n    commands:\n      c: {command: [\"true\"]}\n";
	struct sbuf err = SBUF_INIT;
	struct suite *su = suite_load_mem("/tmp/kagari-unit-bisect.yaml", yaml, sizeof(yaml) - 1,
					  &err);
	assert_non_null(su);
	/* index 3 decides on its second measurement; index 1 never does */
	const char *plan[] = { "P", "I", "P", "IR", "R" };
	struct bisect b;
	struct fake f;
	bisect_init(&b);
	b.suites = &su;
	b.nr_suites = 1;
	bisect_save_alpha(&b);
	assert_int_equal(b.nr_alpha0, 1);
	b.r.good = xstrdup("good");
	b.r.bad = xstrdup("bad");
	for (size_t k = 0; k < 5; k++) {
		char sha[4] = { 'c', (char)('0' + k), 0, 0 };
		bisect_result_add(&b.r, sha, 2, "subject", 7);
	}
	memset(&f, 0, sizeof(f));
	f.plan = plan;
	const struct bisect_oracle o = { fake_prepare, fake_measure, fake_stop, fake_progress, &f };
	bisect_search(&b, &o);

	const struct bisect_commit *c3 = &b.r.path[3], *c1 = &b.r.path[1];
	assert_int_equal(c3->out, BISECT_BAD);
	assert_int_equal(c3->measured, 2);
	assert_int_equal(c3->runs, 8); /* twice the suite's 4 */
	assert_true(fabs(c3->alpha[0] - 0.05) < 1e-12);	 /* alpha/2 */
	assert_true(fabs(c3->alpha[1] - 0.025) < 1e-12); /* alpha/4 */
	/* 4, 8, 16 runs a side: the cap, then it stays skipped */
	assert_int_equal(c1->out, BISECT_SKIP);
	assert_int_equal(c1->measured, 3);
	assert_int_equal(c1->runs, 16);
	assert_int_equal(c1->again, 0);
	assert_non_null(strstr(c1->reason, "s/b/c latency inconclusive"));
	assert_true(c1->undecided);
	assert_false(c3->undecided);
	/* The header counts commits compared, not measurements (c1 and c3
	   were measured more than once), and says how many measurements. */
	{
		struct sbuf t = SBUF_INIT;
		char want[128];
		assert_true(b.r.steps > b.r.nr_order);
		report_bisect_table(&t, &b.r);
		snprintf(want, sizeof(want), ": 5 commits, %zu compared in %zu measurements\n",
			 b.r.nr_order, b.r.steps);
		if (!strstr(t.buf, want))
			fail_msg("no '%s' in:\n%s", want, t.buf);
		sbuf_release(&t);
	}
	assert_int_equal(b.r.first, 3);
	assert_false(b.r.ambiguous);
	/* the suite's own level is back after every measurement */
	assert_true(fabs(su->benches[0].commands[0].settings.regression.confidence - 0.9) < 1e-12);
	assert_non_null(strchr(f.progress, 'a'));
	assert_true(fabs(bisect_look_alpha(0.1, 3) - 0.0125) < 1e-15);
	bisect_release(&b);

	/* --runs above the suite's max_runs is the cap instead */
	const char *undecided[] = { "P", "I", "R" };
	bisect_init(&b);
	b.suites = &su;
	b.nr_suites = 1;
	b.runs = 32;
	bisect_save_alpha(&b);
	b.r.good = xstrdup("good");
	b.r.bad = xstrdup("bad");
	for (size_t k = 0; k < 3; k++)
		bisect_result_add(&b.r, "c", 1, "s", 1);
	memset(&f, 0, sizeof(f));
	f.plan = undecided;
	bisect_search(&b, &o);
	assert_int_equal(b.r.path[1].measured, 4); /* 4, 8, 16, 32 runs a side */
	assert_int_equal(b.r.path[1].runs, 32);
	assert_int_equal(b.r.path[1].out, BISECT_SKIP);
	assert_true(b.r.ambiguous);
	bisect_release(&b);
	suite_free(su);
	sbuf_release(&err);
}

static void test_command_named(void **state)
{
	(void)state;
	assert_true(bisect_command_named(NULL, "s", "b", "c"));
	assert_true(bisect_command_named("b/c", "s", "b", "c"));
	assert_true(bisect_command_named("s/b/c", "s", "b", "c"));
	assert_false(bisect_command_named("b/c", "s", "b", "cc"));
	assert_false(bisect_command_named("x/b/c", "s", "b", "c"));
	assert_false(bisect_command_named("b", "s", "b", "c"));
}

static void add_commit(struct bisect_result *r, const char *sha, const char *subject,
		       enum bisect_outcome out)
{
	bisect_result_add(r, sha, strlen(sha), subject, strlen(subject));
	struct bisect_commit *c = &r->path[r->n - 1];
	c->out = out;
	if (out == BISECT_UNTESTED)
		return;
	c->measured = 1;
	c->alpha = xcalloc(4, sizeof(double));
	c->alpha[0] = 0.025;
}

static void set_change(struct bisect_commit *c, double ch, double lo, double hi)
{
	c->have_change = 1;
	c->change = ch;
	c->low = lo;
	c->high = hi;
	c->what = xstrdup("kagari/parse/big allocations");
}

/* A fixed result: 6 commits, BAD then a search with a skip, a commit
   measured twice, subjects with a control character, non-ASCII and more
   than 50 characters. */
static void fixed_result(struct bisect_result *r)
{
	memset(r, 0, sizeof(*r));
	r->good = xstrdup("1111111111111111111111111111111111111111");
	r->bad = xstrdup("6666666666666666666666666666666666666666");
	r->seed = 42;
	add_commit(r, "2222222222222222222222222222222222222222", "parser: reuse the token buffer",
		   BISECT_UNTESTED);
	add_commit(r, "3333333333333333333333333333333333333333",
		   "lexer: one allocation per line instead of per token, as before \xc3\xa9t\xc3\xa9",
		   BISECT_GOOD);
	set_change(&r->path[1], 0.4, -1.2, 2.1);
	add_commit(r, "4444444444444444444444444444444444444444", "build: tab\there, \xc2\x85 C1",
		   BISECT_SKIP);
	r->path[2].reason = xstrdup("the build failed: exit status 2");
	r->path[2].measured = 0;
	add_commit(r, "5555555555555555555555555555555555555555", "parse: copy each node",
		   BISECT_BAD);
	set_change(&r->path[3], 18.5, 12.25, 24.75);
	r->path[3].measured = 2;
	r->path[3].runs = 16;
	r->path[3].alpha[1] = NAN;
	add_commit(r, "6666666666666666666666666666666666666666", "release 2.0", BISECT_BAD);
	set_change(&r->path[4], 21, 15.5, 27);
	size_t order[] = { 4, 2, 1, 3 };
	r->order = xcalloc(4, sizeof(size_t));
	memcpy(r->order, order, sizeof(order));
	r->nr_order = 4;
	r->steps = 4;
	r->first = 3;
}

static void test_outputs_golden(void **state)
{
	(void)state;
	struct bisect_result r;
	struct sbuf out = SBUF_INIT;

	fixed_result(&r);
	report_bisect_table(&out, &r);
	assert_int_equal(check_golden(GOLDEN_DIR "/out/bisect.table", &out), 0);
	assert_non_null(strstr(out.buf, "first bad commit: 5555555555555555555555555555555555555555"));
	assert_null(strchr(out.buf, '\t')); /* control characters shown as '?' */
	sbuf_reset(&out);
	report_bisect_json(&out, &r);
	assert_int_equal(check_golden(GOLDEN_DIR "/out/bisect.json", &out), 0);
	assert_non_null(strstr(out.buf, "\"first_bad\": \"5555555555555555555555555555555555555555\""));

	/* skips leave the boundary open: no first bad commit named */
	r.ambiguous = 1;
	r.path[3].out = BISECT_SKIP;
	r.path[3].reason = xstrdup("kagari/parse/big allocations inconclusive +18.5% [12.3%, 24.8%]");
	sbuf_reset(&out);
	report_bisect_table(&out, &r);
	assert_int_equal(check_golden(GOLDEN_DIR "/out/bisect-ambiguous.table", &out), 0);
	assert_null(strstr(out.buf, "first bad commit"));
	sbuf_reset(&out);
	report_bisect_json(&out, &r);
	assert_int_equal(check_golden(GOLDEN_DIR "/out/bisect-ambiguous.json", &out), 0);
	assert_non_null(strstr(out.buf, "\"first_bad\": null"));
	sbuf_release(&out);
	bisect_result_release(&r);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_finds_first_bad),
		cmocka_unit_test(test_no_bad_commit),
		cmocka_unit_test(test_skips),
		cmocka_unit_test(test_stop),
		cmocka_unit_test(test_measured_again),
		cmocka_unit_test(test_command_named),
		cmocka_unit_test(test_outputs_golden),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
