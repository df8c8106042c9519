/*
 * ci/github: the base commit of every GitHub event (fixtures in
 * tests/data/events/) and each refusal, workflow-command escaping, the
 * annotations of a judged run line by line, the fallback step summary and
 * appending to the step summary file.
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
#include <sys/stat.h>
#include <unistd.h>

#include "base/sbuf.h"
#include "base/xalloc.h"
#include "ci/github.h"
#include "report/annotations.h"

#ifndef KAGARI_SOURCE_DIR
#define KAGARI_SOURCE_DIR "."
#endif
#define EVENTS KAGARI_SOURCE_DIR "/tests/data/events/"

/* Base of event `name` read from fixture `file`; returns rc, *msg = err. */
static int base_of(const char *name, const char *file, char **sha, char **msg)
{
	struct sbuf err = SBUF_INIT;
	char *path = file ? xstrfmt("%s%s", EVENTS, file) : NULL;
	int rc = github_event_base(name, path, sha, &err);
	*msg = sbuf_detach(&err);
	free(path);
	return rc;
}

static void expect_base(const char *name, const char *file, const char *want)
{
	char *sha, *msg;
	int rc = base_of(name, file, &sha, &msg);
	if (rc)
		print_error("%s: %s\n", name, msg);
	assert_int_equal(rc, 0);
	assert_string_equal(sha, want);
	assert_string_equal(msg, "");
	free(sha);
	free(msg);
}

static void expect_refusal(const char *name, const char *file,
			   const char *const *parts)
{
	char *sha = (char *)1, *msg;
	assert_int_equal(base_of(name, file, &sha, &msg), -1);
	assert_null(sha);
	for (size_t i = 0; parts[i]; i++)
		if (!strstr(msg, parts[i])) {
			print_error("message '%s' lacks '%s'\n", msg, parts[i]);
			fail();
		}
	/* One line, no final period (house style). */
	assert_null(strchr(msg, '\n'));
	assert_true(msg[0] && msg[strlen(msg) - 1] != '.');
	free(msg);
}

static void test_pull_request_events(void **state)
{
	(void)state;
	expect_base("pull_request", "pull_request.json",
		    "1111111111111111111111111111111111111111");
	expect_base("pull_request_review", "pull_request_review.json",
		    "3333333333333333333333333333333333333333");
	expect_base("pull_request_review_comment", "pull_request_review_comment.json",
		    "4444444444444444444444444444444444444444");
}

static void test_merge_group_and_push(void **state)
{
	(void)state;
	expect_base("merge_group", "merge_group.json",
		    "5555555555555555555555555555555555555555");
	expect_base("push", "push.json", "6666666666666666666666666666666666666666");
}

static void test_push_new_branch_refused(void **state)
{
	(void)state;
	static const char *const parts[] = { "'push'", "all zeros", "--against",
					     "KAGARI_BASE_REF", NULL };
	expect_refusal("push", "push_new_branch.json", parts);
}

static void test_pull_request_target_refused(void **state)
{
	(void)state;
	static const char *const parts[] = { "'pull_request_target'", "refused",
					     "write token", "untrusted code", NULL };
	expect_refusal("pull_request_target", "pull_request_target.json", parts);
	/* Refused whatever the file holds, even when it is missing. */
	expect_refusal("pull_request_target", "no-such-file.json", parts);
}

static void test_other_events_ask_for_against(void **state)
{
	(void)state;
	static const char *const parts[] = { "'workflow_dispatch'", "no base commit",
					     "--against REV", NULL };
	expect_refusal("workflow_dispatch", "workflow_dispatch.json", parts);
	static const char *const parts2[] = { "'schedule'", "--against", NULL };
	expect_refusal("schedule", "workflow_dispatch.json", parts2);
}

static void test_event_file_problems(void **state)
{
	(void)state;
	static const char *const missing[] = { "cannot read the GitHub event file",
					       "no-such-file.json", "No such file", NULL };
	expect_refusal("pull_request", "no-such-file.json", missing);
	static const char *const invalid[] = { "invalid.json:3:", "invalid JSON", NULL };
	expect_refusal("pull_request", "invalid.json", invalid);
	static const char *const nobase[] = { "pull_request.base.sha is missing",
					      "'pull_request' event", "--against", NULL };
	expect_refusal("pull_request", "pull_request_no_base.json", nobase);
	static const char *const badsha[] = { "not a commit sha", "rm -rf", NULL };
	expect_refusal("pull_request", "pull_request_bad_sha.json", badsha);
	/* merge_group's field on a pull_request file */
	static const char *const wrong[] = { "merge_group.base_sha is missing", NULL };
	expect_refusal("merge_group", "pull_request.json", wrong);
	static const char *const noname[] = { "GITHUB_EVENT_NAME is not set", NULL };
	expect_refusal(NULL, "pull_request.json", noname);
	expect_refusal("", "pull_request.json", noname);
	static const char *const nopath[] = { "GITHUB_EVENT_PATH is not set", NULL };
	expect_refusal("pull_request", NULL, nopath);
}

static void test_event_text(void **state)
{
	(void)state;
	struct sbuf err = SBUF_INIT;
	char *sha = NULL;
	const char *t = "[1, 2]";
	assert_int_equal(github_event_base_text("push", t, strlen(t), "ev", &sha, &err), -1);
	assert_non_null(strstr(err.buf, "not a JSON object"));
	sbuf_reset(&err);
	t = "{\"before\": null}";
	assert_int_equal(github_event_base_text("push", t, strlen(t), "ev", &sha, &err), -1);
	assert_non_null(strstr(err.buf, "before is null"));
	sbuf_reset(&err);
	/* SHA-256 repositories have 64-digit object names. */
	t = "{\"before\": \"aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa\"}";
	assert_int_equal(github_event_base_text("push", t, strlen(t), "ev", &sha, &err), 0);
	assert_int_equal(strlen(sha), 64);
	free(sha);
	sbuf_release(&err);
}

static void test_escaping(void **state)
{
	(void)state;
	struct sbuf out = SBUF_INIT;
	github_escape_data(&out, "50% a:b,c\r\nnext");
	assert_string_equal(out.buf, "50%25 a:b,c%0D%0Anext");
	sbuf_reset(&out);
	github_escape_property(&out, "50% a:b,c\r\nnext");
	assert_string_equal(out.buf, "50%25 a%3Ab%2Cc%0D%0Anext");
	sbuf_reset(&out);
	/* Already-escaped text is escaped again, not decoded. */
	github_escape_data(&out, "%0A::error::x");
	assert_string_equal(out.buf, "%250A::error::x");
	sbuf_reset(&out);
	github_command(&out, GITHUB_ERROR, "budget exceeded", "bench/k,1.yaml",
		       0, "line1\nline2");
	assert_string_equal(out.buf,
			    "::error title=budget exceeded,file=bench/k%2C1.yaml::line1%0Aline2\n");
	sbuf_reset(&out);
	/* The benchmark's line in the suite file, when known. */
	github_command(&out, GITHUB_ERROR, "regression", "kagari.yaml", 12, "m");
	assert_string_equal(out.buf, "::error title=regression,file=kagari.yaml,line=12::m\n");
	sbuf_reset(&out);
	github_command(&out, GITHUB_NOTICE, "a:b", NULL, 3, "m");
	assert_string_equal(out.buf, "::notice title=a%3Ab::m\n");
	sbuf_reset(&out);
	github_command(&out, GITHUB_WARNING, "t", "", 0, "");
	assert_string_equal(out.buf, "::warning title=t::\n");
	sbuf_release(&out);
}

/* A small judged compare result with one of every problem. */
static void make_comparison(struct comparison *c, const char *verdict, int gate,
			    double base, double head, double change)
{
	c->present = 1;
	c->statistic = xstrdup("median");
	c->pairing = xstrdup("rounds");
	c->base = base;
	c->head = head;
	c->change_percent = change;
	c->ci_low_percent = change - 2;
	c->ci_high_percent = change + 2;
	c->confidence = 0.95;
	c->max_percent = 10;
	c->verdict = (enum verdict)verdict_parse(verdict);
	c->reason = xstrdup("the reason");
	c->gate = gate;
}

static void build_result(struct run_result *r, int nr_suites)
{
	run_result_init(r);
	r->mode = xstrdup("compare");
	r->seed = 42;
	r->git.base_ref = xstrdup("main");
	r->git.base_sha = xstrdup("1111111111111111111111111111111111111111");
	r->git.head_sha = xstrdup("2222222222222222222222222222222222222222");
	r->git.dirty = 0;
	r->suites = xcalloc(nr_suites, sizeof(*r->suites));
	r->nr_suites = nr_suites;
	for (int i = 0; i < nr_suites; i++) {
		struct suite_result *s = &r->suites[i];
		s->name = xstrfmt("suite%d", i);
		s->file = xstrdup(i ? "/elsewhere/k.yaml" : "/ws/bench/kagari.yaml");
		s->nr_benches = 1;
		s->benches = xcalloc(1, sizeof(*s->benches));
		struct bench_result *b = &s->benches[0];
		strvec_init(&b->tags);
		b->name = xstrdup("sort,big:1%");
		b->nr_commands = 2;
		b->commands = xcalloc(2, sizeof(*b->commands));
		struct command_result *c = &b->commands[0];
		c->name = xstrdup("fast");
		c->side[SIDE_BASE].present = c->side[SIDE_HEAD].present = 1;
		make_comparison(&c->comparison[METRIC_LATENCY], "regression", 1,
				100e6, 120e6, 20);
		make_comparison(&c->comparison[METRIC_PEAK_RSS], "inconclusive", 1,
				1048576, 1048576, 0);
		make_comparison(&c->comparison[METRIC_CPU_TOTAL], "improved", 1,
				100e6, 80e6, -20);
		make_comparison(&c->comparison[METRIC_CPU_USER], "regression", 0,
				100e6, 120e6, 20);
		make_comparison(&c->comparison[METRIC_CPU_SYSTEM], "inconclusive", 0,
				100e6, 100e6, 0);
		c->nr_budgets = 2;
		c->budgets = xcalloc(2, sizeof(*c->budgets));
		c->budgets[0] = (struct budget_result){
			.metric = METRIC_LATENCY, .aggregation = xstrdup("p95"),
			.op = xstrdup("<="), .limit = 300e6,
			.limit_text = xstrdup("<= 300ms"), .have_actual = 1,
			.actual = 312.4e6, .status = BUDGET_FAIL };
		c->budgets[1] = (struct budget_result){
			.metric = METRIC_INSTRUCTIONS, .aggregation = xstrdup("max"),
			.op = xstrdup("<="), .limit = 1e9,
			.limit_text = xstrdup("<= 1000000000"),
			.status = BUDGET_UNASSESSABLE,
			.reason = xstrdup("not measured") };
		metric_series_set_status(&c->side[SIDE_HEAD].metric[METRIC_INSTRUCTIONS],
					 MSTATUS_UNSUPPORTED, "no perf");
		metric_series_set_status(&c->side[SIDE_BASE].metric[METRIC_INSTRUCTIONS],
					 MSTATUS_UNSUPPORTED, "no perf");
		metric_series_set_status(&c->side[SIDE_HEAD].metric[METRIC_CYCLES],
					 MSTATUS_FAILED, "counter\nbroke");
		struct command_result *e = &b->commands[1];
		e->name = xstrdup("crash");
		e->side[SIDE_HEAD].present = 1;
		e->error = xstrdup("killed by signal SIGSEGV\nsecond line");
	}
	r->summary.benchmarks = nr_suites;
	r->summary.commands = 2 * nr_suites;
	r->summary.regression = nr_suites;
	r->summary.error = nr_suites;
	r->summary.exit_code = 4;
	r->exit_reason = xstrdup("1 command failed to run (see the error above)");
}

/* Split into lines and compare one by one (clearer failures). */
static void expect_lines(const char *got, const char *const *want)
{
	const char *p = got;
	size_t i = 0;
	for (; want[i]; i++) {
		const char *nl = strchr(p, '\n');
		assert_non_null(nl);
		char *line = xstrndup(p, (size_t)(nl - p));
		if (strcmp(line, want[i]))
			print_error("line %zu:\n got  %s\n want %s\n", i + 1, line, want[i]);
		assert_string_equal(line, want[i]);
		free(line);
		p = nl + 1;
	}
	assert_string_equal(p, "");
}

static void test_annotations(void **state)
{
	(void)state;
	struct run_result r;
	build_result(&r, 1);
	struct sbuf out = SBUF_INIT;
	github_annotations(&out, &r, 0, "/ws/");
	static const char *const want[] = {
		"::error title=budget exceeded,file=bench/kagari.yaml::sort,big:1%25/fast: latency p95 312.4 ms, budget <= 300ms",
		"::error title=metric unsupported,file=bench/kagari.yaml::sort,big:1%25/fast: instructions max <= 1000000000 could not be assessed: not measured",
		"::error title=regression,file=bench/kagari.yaml::sort,big:1%25/fast latency: 100.0 ms -> 120.0 ms, +20.0%25 [+18.0%25, +22.0%25] (tolerance 10%25): the reason",
		"::notice title=regression (not gated),file=bench/kagari.yaml::sort,big:1%25/fast cpu_user: 100.0 ms -> 120.0 ms, +20.0%25 [+18.0%25, +22.0%25] (tolerance 10%25): the reason (not gated)",
		"::notice title=inconclusive,file=bench/kagari.yaml::sort,big:1%25/fast cpu_system: 100.0 ms -> 100.0 ms, 0.0%25 [-2.0%25, +2.0%25] (tolerance 10%25): the reason (not gated)",
		"::warning title=inconclusive,file=bench/kagari.yaml::sort,big:1%25/fast peak_rss: 1.00 MiB -> 1.00 MiB, 0.0%25 [-2.0%25, +2.0%25] (tolerance 10%25): the reason",
		"::warning title=metric unsupported,file=bench/kagari.yaml::sort,big:1%25/fast: instructions unsupported: no perf",
		"::warning title=metric unsupported,file=bench/kagari.yaml::sort,big:1%25/fast: cycles failed on head: counter%0Abroke",
		"::error title=benchmark failed,file=bench/kagari.yaml::sort,big:1%25/crash: killed by signal SIGSEGV%0Asecond line",
		NULL
	};
	expect_lines(out.buf, want);

	/* --fail-on-inconclusive makes a gated inconclusive an error. */
	sbuf_reset(&out);
	github_annotations(&out, &r, 1, NULL);
	/* No workspace: an absolute suite file is left out. */
	assert_null(strstr(out.buf, "file="));
	assert_non_null(strstr(out.buf, "::error title=inconclusive::sort,big:1%25/fast peak_rss"));
	assert_non_null(strstr(out.buf, "::notice title=inconclusive::sort,big:1%25/fast cpu_system"));
	sbuf_release(&out);
	run_result_release(&r);
}

static void test_annotations_several_suites(void **state)
{
	(void)state;
	struct run_result r;
	build_result(&r, 2);
	/* Relative suite files are kept; absolute ones outside the workspace dropped. */
	free(r.suites[0].file);
	r.suites[0].file = xstrdup("kagari.yaml");
	struct sbuf out = SBUF_INIT;
	github_annotations(&out, &r, 0, "/ws");
	assert_non_null(strstr(out.buf, "::error title=benchmark failed,file=kagari.yaml::suite0: sort,big:1%25/crash:"));
	assert_non_null(strstr(out.buf, "::error title=benchmark failed::suite1: sort,big:1%25/crash:"));
	/* A workspace that is only a prefix of the name does not count. */
	sbuf_reset(&out);
	free(r.suites[1].file);
	r.suites[1].file = xstrdup("/wsx/k.yaml");
	github_annotations(&out, &r, 0, "/ws");
	assert_null(strstr(out.buf, "file=x"));
	assert_null(strstr(out.buf, "k.yaml"));
	sbuf_release(&out);
	run_result_release(&r);
}

static void test_no_problems_no_annotations(void **state)
{
	(void)state;
	struct run_result r;
	run_result_init(&r);
	r.suites = xcalloc(1, sizeof(*r.suites));
	r.nr_suites = 1;
	r.suites[0].name = xstrdup("s");
	r.suites[0].nr_benches = 1;
	r.suites[0].benches = xcalloc(1, sizeof(struct bench_result));
	strvec_init(&r.suites[0].benches[0].tags);
	r.suites[0].benches[0].name = xstrdup("b");
	r.suites[0].benches[0].nr_commands = 1;
	r.suites[0].benches[0].commands = xcalloc(1, sizeof(struct command_result));
	struct command_result *c = &r.suites[0].benches[0].commands[0];
	c->name = xstrdup("c");
	make_comparison(&c->comparison[METRIC_LATENCY], "within_noise", 1, 1, 1, 0);
	make_comparison(&c->comparison[METRIC_PEAK_RSS], "skipped", 1, NAN, NAN, NAN);
	struct sbuf out = SBUF_INIT;
	github_annotations(&out, &r, 1, NULL);
	assert_string_equal(out.buf, "");
	github_summary_fallback(&out, &r, 1);
	assert_non_null(strstr(out.buf, "## kagari: No regressions\n"));
	sbuf_release(&out);
	run_result_release(&r);
}

static void test_summary_fallback(void **state)
{
	(void)state;
	struct run_result r;
	build_result(&r, 1);
	free(r.suites[0].benches[0].name);
	r.suites[0].benches[0].name = xstrdup("<script>|*x*");
	free(r.exit_reason);
	r.exit_reason = xstrdup("ask @octocat about #12");
	struct sbuf out = SBUF_INIT;
	github_summary_fallback(&out, &r, 0);
	const char *t = out.buf;
	const char *title = "## kagari: 1 regression, 1 error\n\n";
	assert_true(!strncmp(t, title, strlen(title)));
	/* The shared Markdown escaper: no mention, no issue link. */
	assert_non_null(strstr(t, "Exit code 4: ask @" "\xE2\x80\x8D" "octocat about \\#" "\xE2\x80\x8D" "12. Seed 42.\n"));
	assert_non_null(strstr(t, "Base main (`111111111111`), head `222222222222`.\n"));
	assert_non_null(strstr(t, "- **regression** (error): &lt;script&gt;\\|\\*x\\*/fast latency:"));
	assert_non_null(strstr(t, "- **benchmark failed** (error): &lt;script&gt;\\|\\*x\\*/crash: killed by signal SIGSEGV second line\n"));
	assert_null(strstr(t, "<script>"));
	assert_true(out.len >= 2 && !strcmp(t + out.len - 2, "\n\n"));
	sbuf_release(&out);
	run_result_release(&r);
}

static void test_append_file(void **state)
{
	(void)state;
	char dir[] = "/tmp/kagari-test-github-XXXXXX";
	assert_non_null(mkdtemp(dir));
	char *path = xstrfmt("%s/summary.md", dir);
	struct sbuf err = SBUF_INIT, got = SBUF_INIT;

	/* Created when missing. */
	assert_int_equal(github_append_file(path, "a\n", 2, &err), 0);
	/* Existing content kept; a missing final newline is added first. */
	FILE *f = fopen(path, "a");
	fputs("no newline", f);
	fclose(f);
	assert_int_equal(github_append_file(path, "## b\n", 5, &err), 0);
	assert_int_equal(github_append_file(path, "c\n", 2, &err), 0);
	assert_int_equal(sbuf_read_file(&got, path, 1 << 20), 0);
	assert_string_equal(got.buf, "a\nno newline\n## b\nc\n");

	char *bad = xstrfmt("%s/no/such/dir/x.md", dir);
	assert_int_equal(github_append_file(bad, "x", 1, &err), -1);
	assert_non_null(strstr(err.buf, "cannot open"));
	assert_non_null(strstr(err.buf, "x.md"));
	free(bad);

	unlink(path);
	rmdir(dir);
	free(path);
	sbuf_release(&err);
	sbuf_release(&got);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_pull_request_events),
		cmocka_unit_test(test_merge_group_and_push),
		cmocka_unit_test(test_push_new_branch_refused),
		cmocka_unit_test(test_pull_request_target_refused),
		cmocka_unit_test(test_other_events_ask_for_against),
		cmocka_unit_test(test_event_file_problems),
		cmocka_unit_test(test_event_text),
		cmocka_unit_test(test_escaping),
		cmocka_unit_test(test_annotations),
		cmocka_unit_test(test_annotations_several_suites),
		cmocka_unit_test(test_no_problems_no_annotations),
		cmocka_unit_test(test_summary_fallback),
		cmocka_unit_test(test_append_file),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
