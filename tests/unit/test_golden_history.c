/*
 * kagari history without a process: history/series.h builds the series
 * from a fixed list of points — several commits measured once or more, a
 * side-branch commit and one the repository does not have, two machines,
 * one planted step — with the order of commits given as data, not read
 * from a repository; and the four outputs (report/history.h) are
 * compared whole with golden files
 * tests/data/golden/out/history.{table,json,markdown,html}
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

#include "base/sbuf.h"
#include "base/xalloc.h"
#include "history/history.h"
#include "history/series.h"
#include "report/history.h"
#include "report/history_site.h"

#include "golden.h"

static size_t count_of(const char *s, const char *what)
{
	size_t n = 0;
	for (const char *p = s; (p = strstr(p, what)); p += strlen(what))
		n++;
	return n;
}

#define THIS_MACHINE "aaaaaaaaaaaaaaaa"
#define OTHER_MACHINE "bbbbbbbbbbbbbbbb"

/* The sha of commit k: 40 hex digits, k in the first two. */
static char *sha_of(int k)
{
	char *s = xcalloc(41, 1);
	snprintf(s, 41, "%02x%038d", k, 0);
	return s;
}

/* The first-parent line: commits 1..8, oldest first; commit 20 is a side
   branch's (dated), 30 is not in the repository. */
#define LINE_LEN 8
#define SIDE 20
#define GONE 30

static void order_given(struct history_order *o)
{
	char *line[LINE_LEN];
	const char *cline[LINE_LEN];
	for (int k = 0; k < LINE_LEN; k++)
		cline[k] = line[k] = sha_of(k + 1);
	*o = (struct history_order)HISTORY_ORDER_INIT;
	history_order_line(o, cline, LINE_LEN);
	char *side = sha_of(SIDE);
	const char *cside = side;
	long long date = 1700000000;
	history_order_dated(o, &cside, &date, 1);
	for (int k = 0; k < LINE_LEN; k++)
		free(line[k]);
	free(side);
}

static void add_point(struct history_points *p, const char *bench, const char *cmd,
		      const char *metric, const char *fp, int commit, double median)
{
	if (p->nr == p->alloc) {
		p->alloc = p->alloc ? 2 * p->alloc : 32;
		p->v = xreallocarray(p->v, p->alloc, sizeof(*p->v));
	}
	struct history_point *q = &p->v[p->nr];
	memset(q, 0, sizeof(*q));
	char time[32];
	snprintf(time, sizeof(time), "2024-05-%02zuT12:00:00Z", p->nr % 28 + 1);
	q->suite = xstrdup("s");
	q->benchmark = xstrdup(bench);
	q->command = xstrdup(cmd);
	q->metric = xstrdup(metric);
	q->fingerprint = xstrdup(fp);
	q->cpu_model = xstrdup(strcmp(fp, THIS_MACHINE) ? "Other CPU" : "This CPU");
	q->sha = sha_of(commit);
	q->time = xstrdup(time);
	q->median = median;
	q->run = (int64_t)p->nr + 1;
	q->kind = xstrdup("run");
	q->result = xstrdup("pass");
	q->change_percent = q->ci_low_percent = q->ci_high_percent = NAN;
	q->mean_change_percent = q->mean_ci_low_percent = q->mean_ci_high_percent = NAN;
	q->p_value = q->max_percent = NAN;
	q->gate = -1;
	p->nr++;
}

/* The last point added made a paired comparison against commit base. */
static void paired(struct history_points *p, int base, const char *verdict, double change,
		   double lo, double hi)
{
	struct history_point *q = &p->v[p->nr - 1];
	free(q->kind);
	q->kind = xstrdup("ci");
	free(q->result);
	q->result = xstrdup(verdict);
	q->verdict = xstrdup(verdict);
	q->change_percent = change;
	q->ci_low_percent = lo;
	q->ci_high_percent = hi;
	q->mean_change_percent = change + 1;
	q->mean_ci_low_percent = lo + 1;
	q->mean_ci_high_percent = hi + 1;
	q->p_value = 0.001;
	q->max_percent = 5;
	q->gate = 1;
	q->base_sha = sha_of(base);
	q->base_ref = sha_of(base);
}

/*
 * The points as history_query() returns them: by series, then by time.
 * "parse" on this machine: commits 1..8 of the line two runs each, about
 * 10 ms up to commit 4 and 12 ms from commit 5 (a +20% step), commit 3
 * measured before commit 2, then a side-branch commit at 30 ms (shown,
 * never a step: it is off the line) and one the repository does not
 * have; the same command on another machine, two commits; allocations
 * of "sort <fast> & \"q\"", all 0; "walk", whose commits' sessions differ
 * far more than their runs (no number of runs finds a 5% step); a metric
 * this kagari does not know and a benchmark the filter drops.
 */
static void fixed_points(struct history_points *p)
{
	static const double parse[LINE_LEN][2] = {
	    {10.0e6, 10.1e6}, {10.05e6, 9.95e6},  {10.1e6, 10.0e6}, {9.9e6, 10.0e6},
	    {12.0e6, 12.1e6}, {12.05e6, 11.95e6}, {12.1e6, 12.0e6}, {11.9e6, 12.0e6},
	};
	static const int measured[LINE_LEN] = {1, 3, 2, 4, 5, 6, 7, 8};
	static const double walk[6] = {10.0e6, 10.5e6, 9.6e6, 10.3e6, 9.7e6, 10.4e6};

	memset(p, 0, sizeof(*p));
	for (int r = 0; r < 2; r++) /* first runs of every commit, then the second runs */
		for (int k = 0; k < LINE_LEN; k++)
			add_point(p, "b", "parse", "latency", THIS_MACHINE, measured[k],
				  parse[measured[k] - 1][r]);
	add_point(p, "b", "parse", "latency", THIS_MACHINE, SIDE, 30e6);
	add_point(p, "b", "parse", "latency", THIS_MACHINE, GONE, 11e6);
	add_point(p, "b", "parse", "latency", OTHER_MACHINE, 7, 8e6);
	add_point(p, "b", "parse", "latency", OTHER_MACHINE, 8, 8.2e6);
	add_point(p, "b", "parse", "nope", THIS_MACHINE, 8, 1);
	for (int k = 1; k <= 4; k++)
		add_point(p, "b", "sort <fast> & \"q\"", "allocs", THIS_MACHINE, k, 0);
	for (int r = 0; r < 2; r++)
		for (int k = 0; k < 6; k++)
			add_point(p, "b", "walk", "latency", THIS_MACHINE, k + 1,
				  walk[k] + r * 0.01e6);
	/* "gate": ci at every commit against its parent; a paired +20% at
	   commit 3 (too short a line for the series to tell), a pass at 4. */
	static const double gate[4] = {5e6, 5e6, 6e6, 6e6};
	for (int k = 1; k <= 4; k++) {
		add_point(p, "b", "gate", "latency", THIS_MACHINE, k, gate[k - 1]);
		if (k == 3)
			paired(p, 2, "regression", 20, 17.5, 22.5);
		else if (k > 1)
			paired(p, k - 1, "pass", 0.2, -0.5, 0.9);
	}
	add_point(p, "skip", "x", "latency", THIS_MACHINE, 8, 1e6);
}

static int keep_but_skip(void *ctx, const char *suite, const char *bench)
{
	(*(int *)ctx)++;
	return strcmp(suite, "s") || strcmp(bench, "skip");
}

static void build(struct history_series_set *set, const struct history_points *p,
		  const struct history_order *o, int *asked)
{
	struct history_series_options opt = {THIS_MACHINE, 1, 5, keep_but_skip, asked};
	history_series_build(set, p, o, &opt);
}

static int commit_of_sha(const char *sha)
{
	unsigned k;
	return sha && sscanf(sha, "%2x", &k) == 1 ? (int)k : -1;
}

static int commit_of(const struct history_commit *c)
{
	return commit_of_sha(c->sha);
}

static void test_series_from_points(void **state)
{
	(void)state;
	struct history_points p;
	struct history_order o;
	struct history_series_set set;
	int asked = 0;

	fixed_points(&p);
	order_given(&o);
	assert_true(o.line);
	build(&set, &p, &o, &asked);
	/* parse, allocs and walk here, parse on the other machine; "nope"
	   (no such metric) and the dropped benchmark are not series */
	assert_int_equal(set.nr, 5);
	assert_true(asked >= 4);
	const struct history_series *parse = &set.v[0], *allocs = &set.v[1], *walk = &set.v[2],
				    *gate = &set.v[3], *other = &set.v[4];
	/* steps from pairs first: ci's paired +20% at commit 3 against its
	   parent is a step there, with the paired change as its size, on a
	   line of 4 commits that the series alone could not segment (a step
	   keeps two commits on each side); the passes are no steps */
	assert_string_equal(gate->key->command, "gate");
	assert_int_equal(gate->nr_steps, 1);
	assert_int_equal(gate->steps[0].at, 2);
	assert_int_equal(gate->steps[0].evidence, HISTORY_EVIDENCE_PAIRED);
	assert_int_equal(commit_of_sha(gate->steps[0].from_sha), 2);
	assert_true(gate->steps[0].change_percent == 20);
	assert_true(fabs(gate->steps[0].before - 5e6) < 1);
	assert_int_equal(gate->nr_regressions, 1);
	assert_int_equal(gate->nr_improvements, 0);
	assert_int_equal(gate->pts[3].nr_cmps, 1);
	assert_string_equal(parse->key->command, "parse");
	assert_int_equal(parse->metric, METRIC_LATENCY);
	assert_true(parse->this_machine);
	assert_string_equal(allocs->key->metric, "allocs");
	assert_true(allocs->this_machine);
	assert_false(other->this_machine);
	assert_string_equal(other->key->fingerprint, OTHER_MACHINE);

	/* one point per commit, in the order of commits: the line (commit
	   3 was measured before 2), the side commit, the unknown one */
	assert_int_equal(parse->nr, LINE_LEN + 2);
	for (int k = 0; k < LINE_LEN; k++) {
		assert_int_equal(commit_of(&parse->pts[k]), k + 1);
		assert_int_equal(parse->pts[k].place, HISTORY_ON_LINE);
		assert_int_equal(parse->pts[k].runs, 2);
	}
	assert_int_equal(commit_of(&parse->pts[LINE_LEN]), SIDE);
	assert_int_equal(parse->pts[LINE_LEN].place, HISTORY_DATED);
	assert_int_equal(commit_of(&parse->pts[LINE_LEN + 1]), GONE);
	assert_int_equal(parse->pts[LINE_LEN + 1].place, HISTORY_UNKNOWN);
	/* a commit's point: the median of its runs, their least and greatest */
	assert_true(parse->pts[0].median == 10.05e6);
	assert_true(parse->pts[0].low == 10.0e6 && parse->pts[0].high == 10.1e6);
	assert_int_equal(parse->min_runs, 1);
	assert_int_equal(parse->max_runs, 2);
	/* the latest point is HEAD's (the line's last), not the unknown one */
	assert_int_equal(commit_of(history_series_latest(parse)), LINE_LEN);

	/* one step, at commit 5, of about +20%; the side commit at 30 ms is
	   off the line and makes none */
	assert_int_equal(parse->nr_steps, 1);
	assert_int_equal(parse->steps[0].at, 4);
	assert_true(parse->steps[0].change_percent > 18 && parse->steps[0].change_percent < 22);
	/* the noise from 8 pairs of runs: known, small, and the runs a 5%
	   step needs follow from it */
	assert_int_equal(parse->noise_pts, LINE_LEN);
	assert_int_equal(parse->noise_pairs, LINE_LEN);
	assert_false(isnan(parse->noise));
	assert_true(parse->noise > 0 && parse->noise < 0.02 * 12e6);
	assert_true(parse->runs_needed >= 1 && parse->runs_needed != STEPS_RUNS_NEVER);

	/* the sessions of walk's commits differ by far more than its runs:
	   the noise between them makes a 5% step unfindable */
	assert_string_equal(walk->key->command, "walk");
	assert_true(walk->between > 5 * walk->noise);
	assert_true(walk->runs_needed == STEPS_RUNS_NEVER);
	assert_int_equal(walk->nr_steps, 0);

	/* two single runs on the other machine cannot tell the noise */
	assert_int_equal(other->nr, 2);
	assert_true(isnan(other->noise));
	assert_int_equal(other->runs_needed, 0);
	assert_int_equal(other->nr_steps, 0);

	history_series_release(&set);
	assert_null(set.v);
	history_order_release(&o);
	history_points_release(&p);
}

/* Outside a repository (an empty order) the points keep the order they
   were first measured in, and every one is segmented. */
/*
 * A series step at a commit whose paired comparison measured no change of
 * that size is dropped: commits 1-8 of the line at 10 then 12 ms (the
 * series sees +20% at 5), and a ci of 5 against 4 that passed with
 * [-0.5%, +0.7%] (a second runs' build: the step was the machine's). With
 * an interval that holds the change ([+15%, +25%], a pass under a
 * tolerance of 30%) the series step stays, its evidence the series.
 */
static void test_pairs_overrule_series(void **state)
{
	(void)state;
	for (int keep = 0; keep <= 1; keep++) {
		struct history_points p;
		struct history_order o;
		struct history_series_set set;
		int asked = 0;
		memset(&p, 0, sizeof(p));
		order_given(&o);
		for (int r = 0; r < 2; r++)
			for (int k = 1; k <= LINE_LEN; k++) {
				add_point(&p, "b", "m", "latency", THIS_MACHINE, k,
					  (k >= 5 ? 12e6 : 10e6) + r * 0.05e6 + k * 0.01e6);
				if (k == 5 && r == 1)
					paired(&p, 4, "pass", keep ? 20 : 0.1, keep ? 15 : -0.5,
					       keep ? 25 : 0.7);
			}
		build(&set, &p, &o, &asked);
		assert_int_equal(set.nr, 1);
		const struct history_series *s = &set.v[0];
		assert_int_equal(s->nr_steps, (size_t)keep);
		if (keep) {
			assert_int_equal(s->steps[0].at, 4);
			assert_int_equal(s->steps[0].evidence, HISTORY_EVIDENCE_SERIES);
		}
		history_series_release(&set);
		history_order_release(&o);
		history_points_release(&p);
	}
}

static void test_series_without_repository(void **state)
{
	(void)state;
	struct history_points p;
	struct history_order o = HISTORY_ORDER_INIT;
	struct history_series_set set;
	int asked = 0;

	fixed_points(&p);
	build(&set, &p, &o, &asked);
	const struct history_series *parse = &set.v[0];
	static const int first_measured[] = {1, 3, 2, 4, 5, 6, 7, 8, SIDE, GONE};
	assert_int_equal(parse->nr, 10);
	for (size_t k = 0; k < parse->nr; k++) {
		assert_int_equal(commit_of(&parse->pts[k]), first_measured[k]);
		assert_int_equal(parse->pts[k].place, HISTORY_UNKNOWN);
	}
	/* the latest point is the last one measured */
	assert_int_equal(commit_of(history_series_latest(parse)), GONE);
	assert_int_equal(parse->noise_pts, 10);
	history_series_release(&set);
	history_points_release(&p);
}

static void test_order_given_as_data(void **state)
{
	(void)state;
	struct history_order o;

	order_given(&o);
	char *s = sha_of(5), *side = sha_of(SIDE), *gone = sha_of(GONE);
	const struct history_rank *r = history_order_find(&o, s);
	assert_non_null(r);
	assert_int_equal(r->place, HISTORY_ON_LINE);
	assert_int_equal(r->key, 4);
	r = history_order_find(&o, side);
	assert_non_null(r);
	assert_int_equal(r->place, HISTORY_DATED);
	assert_int_equal(r->key, 1700000000);
	assert_null(history_order_find(&o, gone));
	assert_null(history_order_find(&o, "05"));
	/* a sha that is not 40 characters is not a commit of the line */
	const char *bad = "abc";
	struct history_order e = HISTORY_ORDER_INIT;
	history_order_line(&e, &bad, 1);
	assert_false(e.line);
	assert_int_equal(e.nr, 0);
	history_order_release(&e);
	free(s);
	free(side);
	free(gone);
	history_order_release(&o);
}

static void test_outputs_golden(void **state)
{
	(void)state;
	struct history_points p;
	struct history_order o;
	struct history_series_set set;
	struct sbuf out = SBUF_INIT;
	int asked = 0;

	fixed_points(&p);
	order_given(&o);
	build(&set, &p, &o, &asked);
	struct history_view hv = {".kagari/history.sqlite", THIS_MACHINE, 21, 5, &set};
	report_history_table(&out, &hv);
	assert_int_equal(check_golden(GOLDEN_DIR "/out/history.table", &out), 0);
	/* the step at its commits, the other machine apart */
	assert_non_null(strstr(out.buf, "step 0400000000 → 0500000000  +"));
	assert_non_null(strstr(out.buf, "other machines (apart, never mixed with this one):"));
	assert_non_null(strstr(out.buf, "the latest value is 0"));
	assert_non_null(strstr(out.buf, "no number of runs per commit finds a 5% step"));
	sbuf_reset(&out);
	report_history_json(&out, &hv);
	assert_int_equal(check_golden(GOLDEN_DIR "/out/history.json", &out), 0);
	sbuf_reset(&out);
	report_history_markdown(&out, &hv);
	assert_int_equal(check_golden(GOLDEN_DIR "/out/history.markdown", &out), 0);
	/* names are escaped in Markdown too: no raw markup of the user's */
	assert_null(strstr(out.buf, "<fast>"));
	sbuf_reset(&out);
	report_history_html(&out, &hv);
	golden_unversion(&out);
	assert_int_equal(check_golden(GOLDEN_DIR "/out/history.html", &out), 0);
	/* names are escaped in the page */
	assert_null(strstr(out.buf, "<fast>"));
	assert_non_null(strstr(out.buf, "sort &lt;fast&gt; &amp; &quot;q&quot;"));
	sbuf_release(&out);
	history_series_release(&set);
	history_order_release(&o);
	history_points_release(&p);
}

/*
 * The site's plot of values far larger than their spread (1e18 + 0..300
 * ns) or all equal: the axis is drawn in bounded steps and the page ends
 * (a tick loop that added the step to 1e18 never moved and never ended).
 */
static void test_site_extreme_values(void **state)
{
	(void)state;
	struct history_site_point pts[2][4];
	struct history_site_series ser[2];
	static const char *const sha[4] = {"a1", "b2", "c3", "d4"};
	for (int k = 0; k < 2; k++) {
		for (int i = 0; i < 4; i++)
			pts[k][i] = (struct history_site_point){sha[i],
								NULL,
								NULL,
								NULL,
								k ? 5e6 : 1e18 + 100.0 * i,
								k ? 5e6 : 1e18 + 100.0 * i,
								k ? 5e6 : 1e18 + 100.0 * i,
								1,
								0,
								NULL,
								NULL,
								NULL,
								NAN,
								NAN,
								NAN,
								0,
								NULL};
		ser[k] = (struct history_site_series){
		    .suite = "s",
		    .benchmark = "b",
		    .command = k ? "flat" : "huge",
		    .metric = METRIC_LATENCY,
		    .machine = "m",
		    .this_machine = 1,
		    .pts = pts[k],
		    .nr = 4,
		    .noise = "noise unknown",
		    .last = {"d4", NULL, "run", "pass", NULL, NAN, NAN, NAN}};
	}
	struct history_site site = {"m", NULL, "no remote", "2026-01-01T00:00:00Z", 8, ser, 2,
				    NULL, 0};
	struct sbuf out = SBUF_INIT;
	history_site_render(&out, &site);
	assert_true(count_of(out.buf, "<svg") >= 2);
	assert_null(strstr(out.buf, "nan"));
	assert_non_null(strstr(out.buf, "</html>"));
	sbuf_release(&out);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_order_given_as_data),
	    cmocka_unit_test(test_series_from_points),
	    cmocka_unit_test(test_series_without_repository),
	    cmocka_unit_test(test_pairs_overrule_series),
	    cmocka_unit_test(test_outputs_golden),
	    cmocka_unit_test(test_site_extreme_values),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
