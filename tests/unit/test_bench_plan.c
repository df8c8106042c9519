/*
 * kagari bench's plan without a process (suite/bench_plan.h): parameters
 * expanded in hyperfine's order with their names, scans written as
 * hyperfine writes them, every usage error with the option it names, the
 * private suite (loaded back with the suite loader) and its scripts, -N
 * words, the saved suite, and the names the results carry.
 */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <stdlib.h>
#include <string.h>

#include "base/sbuf.h"
#include "base/strvec.h"
#include "base/xalloc.h"
#include "suite/bench_plan.h"
#include "suite/load.h"

/* A plan of the commands given (NULL-terminated). */
static void plan_of(struct bench_plan *p, const char *const *cmds)
{
	bench_plan_init(p);
	for (; *cmds; cmds++)
		strvec_push(&p->templates, *cmds);
}

static void test_expand_order(void **state)
{
	(void)state;
	struct bench_plan p;
	struct sbuf err = SBUF_INIT;
	const char *cmds[] = {"a {x} {n}", "b {n}", NULL};
	plan_of(&p, cmds);
	struct strvec lists = STRVEC_INIT;
	strvec_push(&lists, "x");
	strvec_push(&lists, "p,,q");
	assert_int_equal(bench_plan_add_lists(&p, &lists, &err), 0);
	p.scan_name = xstrdup("n");
	p.scan_min = xstrdup("1");
	p.scan_max = xstrdup("2");
	strvec_push(&p.names, "A{x}");
	assert_int_equal(bench_plan_expand(&p, &err), 0);
	/* the scan first, changing fastest; every command per combination;
	   an empty list value kept */
	static const char *const want[] = {"a p 1", "b 1", "a p 2", "b 2", "a  1",  "b 1",
					   "a  2",  "b 2", "a q 1", "b 1", "a q 2", "b 2"};
	assert_int_equal(p.cmds.nr, 12);
	for (size_t i = 0; i < 12; i++)
		assert_string_equal(p.cmds.v[i], want[i]);
	assert_string_equal(p.labels.v[0], "Ap");
	assert_string_equal(p.labels.v[1], "b 1"); /* no name: the command */
	assert_string_equal(p.labels.v[4], "A");
	assert_int_equal(p.nr_params, 2);
	assert_string_equal(p.params[0].name, "n");
	assert_string_equal(p.values[10].v[0], "2");
	assert_string_equal(p.values[10].v[1], "q");
	assert_true(p.max == 10);
	strvec_clear(&lists);
	bench_plan_release(&p);
	sbuf_release(&err);
}

/* A scan's values written as hyperfine writes them. */
static void test_scan_values(void **state)
{
	(void)state;
	struct bench_plan p;
	struct sbuf err = SBUF_INIT;
	const char *cmds[] = {"t {v}", NULL};
	plan_of(&p, cmds);
	p.scan_name = xstrdup("v");
	p.scan_min = xstrdup("0.5");
	p.scan_max = xstrdup("1");
	p.step = xstrdup("0.25");
	assert_int_equal(bench_plan_expand(&p, &err), 0);
	assert_int_equal(p.cmds.nr, 3);
	assert_string_equal(p.cmds.v[0], "t 0.5");
	assert_string_equal(p.cmds.v[1], "t 0.75");
	assert_string_equal(p.cmds.v[2], "t 1.00");
	bench_plan_release(&p);
	sbuf_release(&err);
}

struct bad_case {
	const char *scan[4]; /* name, min, max, step */
	const char *max_percent, *shell;
	int min_runs, max_runs, names, no_commands;
	const char *message;
};

static void test_usage_errors(void **state)
{
	(void)state;
	static const struct bad_case cases[] = {
	    {{NULL},
	     NULL,
	     NULL,
	     -1,
	     -1,
	     0,
	     1,
	     "bench needs at least one command: kagari bench 'CMD1' ['CMD2' ...]"},
	    {{NULL},
	     "0",
	     NULL,
	     -1,
	     -1,
	     0,
	     0,
	     "--max-percent '0': percentage '0' is out of range [0.001, 1000]"},
	    {{NULL},
	     "5x",
	     NULL,
	     -1,
	     -1,
	     0,
	     0,
	     "--max-percent '5x': '5x' is not a percentage (write e.g. '10' or '10%')"},
	    /* compare's syntax and range: a percent sign, no hexadecimal, nothing
	       below 0.001 (the suite bench writes would refuse it) */
	    {{NULL},
	     "0x10",
	     NULL,
	     -1,
	     -1,
	     0,
	     0,
	     "--max-percent '0x10': '0x10' is not a percentage (write e.g. '10' or '10%')"},
	    {{NULL},
	     "1e-5",
	     NULL,
	     -1,
	     -1,
	     0,
	     0,
	     "--max-percent '1e-5': '1e-5' is not a percentage (write e.g. '10' or '10%')"},
	    {{NULL},
	     "0.00001",
	     NULL,
	     -1,
	     -1,
	     0,
	     0,
	     "--max-percent '0.00001': percentage '0.00001' is out of range [0.001, 1000]"},
	    {{NULL}, NULL, "", -1, -1, 0, 0, "--shell: empty"},
	    {{NULL}, NULL, NULL, 6, 5, 0, 0, "--min-runs 6 is above --max-runs 5"},
	    {{NULL, NULL, NULL, "1"},
	     NULL,
	     NULL,
	     -1,
	     -1,
	     0,
	     0,
	     "--parameter-step-size (-D) needs --parameter-scan (-P)"},
	    {{"n-x", "1", "3", NULL},
	     NULL,
	     NULL,
	     -1,
	     -1,
	     0,
	     0,
	     "--parameter-scan: 'n-x' is not a parameter name ([A-Za-z0-9_]+)"},
	    {{"n", "a", "3", NULL},
	     NULL,
	     NULL,
	     -1,
	     -1,
	     0,
	     0,
	     "--parameter-scan n: MIN 'a' and MAX '3' must be numbers"},
	    {{"n", "3", "1", NULL},
	     NULL,
	     NULL,
	     -1,
	     -1,
	     0,
	     0,
	     "--parameter-scan n: MAX 1 is below MIN 3"},
	    {{"n", "1", "2", "-1"},
	     NULL,
	     NULL,
	     -1,
	     -1,
	     0,
	     0,
	     "--parameter-step-size: '-1' is not a number above 0"},
	    {{"n", "1", "5000", NULL},
	     NULL,
	     NULL,
	     -1,
	     -1,
	     0,
	     0,
	     "--parameter-scan n: 5000 values; at most 1000"},
	    {{"n", "1", "600", NULL},
	     NULL,
	     NULL,
	     -1,
	     -1,
	     0,
	     0,
	     "more than 1000 commands after expanding the parameters"},
	    {{NULL}, NULL, NULL, -1, -1, 2, 0, "2 --command-name for 1 command"},
	};
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		const struct bad_case *c = &cases[i];
		struct bench_plan p;
		struct sbuf err = SBUF_INIT;
		const char *one[] = {"x", NULL}, *two[] = {"x", "y", NULL}, *none[] = {NULL};
		plan_of(&p, c->no_commands			       ? none
			    : c->scan[0] && !strcmp(c->scan[2], "600") ? two
								       : one);
		p.scan_name = c->scan[0] ? xstrdup(c->scan[0]) : NULL;
		p.scan_min = c->scan[1] ? xstrdup(c->scan[1]) : NULL;
		p.scan_max = c->scan[2] ? xstrdup(c->scan[2]) : NULL;
		p.step = c->scan[3] ? xstrdup(c->scan[3]) : NULL;
		p.max_percent = c->max_percent ? xstrdup(c->max_percent) : NULL;
		p.shell = c->shell ? xstrdup(c->shell) : NULL;
		p.min_runs = c->min_runs;
		p.max_runs = c->max_runs;
		for (int k = 0; k < c->names; k++)
			strvec_push(&p.names, "n");
		assert_int_equal(bench_plan_expand(&p, &err), -1);
		assert_string_equal(err.buf, c->message);
		bench_plan_release(&p);
		sbuf_release(&err);
	}
	/* -L with a bad name */
	struct bench_plan p;
	struct sbuf err = SBUF_INIT;
	struct strvec lists = STRVEC_INIT;
	bench_plan_init(&p);
	strvec_push(&lists, "a b");
	strvec_push(&lists, "1");
	assert_int_equal(bench_plan_add_lists(&p, &lists, &err), -1);
	assert_string_equal(err.buf,
			    "--parameter-list: 'a b' is not a parameter name ([A-Za-z0-9_]+)");
	strvec_clear(&lists);
	bench_plan_release(&p);
	sbuf_release(&err);
}

/* The private suite loads with the suite loader: c1 the baseline, the
   tolerance, the runs, a script per command and hook. */
static void test_private_suite(void **state)
{
	(void)state;
	struct bench_plan p;
	struct sbuf err = SBUF_INIT, y = SBUF_INIT;
	struct strvec files = STRVEC_INIT;
	const char *cmds[] = {"sleep 0", "echo 'hi'", NULL};
	plan_of(&p, cmds);
	p.max_percent = xstrdup("5");
	p.runs = 7;
	p.setup = xstrdup("make");
	p.shell = xstrdup("bash");
	assert_int_equal(bench_plan_expand(&p, &err), 0);
	assert_true(p.max == 5);
	assert_int_equal(bench_plan_suite(&p, "/home/u/it's", &y, &files, &err), 0);
	assert_int_equal(files.nr, 6); /* setup.sh, c1.sh, c2.sh with contents */
	assert_string_equal(files.v[0], "setup.sh");
	assert_string_equal(files.v[1], "cd -- '/home/u/it'\\''s' || exit 126\nmake\n");
	assert_string_equal(files.v[4], "c2.sh");
	assert_string_equal(files.v[5], "cd -- '/home/u/it'\\''s' || exit 126\necho 'hi'\n");
	assert_non_null(strstr(y.buf, "c2: {command: [\"bash\", \"${root}/c2.sh\"]}"));
	struct suite *su = suite_load_mem("/tmp/kagari-unit-bench/kagari.yaml", y.buf, y.len, &err);
	assert_non_null(su);
	assert_int_equal(su->nr_benches, 1);
	assert_int_equal(su->benches[0].nr_commands, 2);
	assert_string_equal(su->benches[0].baseline, "c1");
	assert_int_equal(su->benches[0].commands[0].settings.runs, 7);
	suite_free(su);
	bench_plan_release(&p);
	strvec_clear(&files);
	sbuf_release(&y);

	/* -N: the words, no script; an unclosed quote is refused */
	const char *words[] = {"echo \"a b\" c\\ d ${x}", NULL};
	plan_of(&p, words);
	p.shell = xstrdup("none");
	assert_int_equal(bench_plan_expand(&p, &err), 0);
	assert_true(bench_plan_no_shell(&p));
	assert_int_equal(bench_plan_suite(&p, "/w", &y, &files, &err), 0);
	assert_int_equal(files.nr, 0);
	assert_non_null(
	    strstr(y.buf, "c1: {command: [\"echo\", \"a b\", \"c d\", \"$${x}\"], cwd: work}"));
	bench_plan_release(&p);
	sbuf_reset(&y);
	const char *unclosed[] = {"echo \"open", NULL};
	plan_of(&p, unclosed);
	p.shell = xstrdup("none");
	assert_int_equal(bench_plan_expand(&p, &err), 0);
	assert_int_equal(bench_plan_suite(&p, "/w", &y, &files, &err), -1);
	assert_string_equal(
	    err.buf, "-N: cannot split 'echo \"open' into words (an unclosed quote, or empty)");
	bench_plan_release(&p);
	strvec_clear(&files);
	sbuf_release(&y);
	sbuf_release(&err);
}

/* The saved suite: commented names, hyperfine's defaults, loadable. */
static void test_saved_suite(void **state)
{
	(void)state;
	struct bench_plan p;
	struct sbuf err = SBUF_INIT, y = SBUF_INIT;
	const char *cmds[] = {"echo {n}", NULL};
	plan_of(&p, cmds);
	p.scan_name = xstrdup("n");
	p.scan_min = xstrdup("1");
	p.scan_max = xstrdup("2");
	strvec_push(&p.names, "n={n}");
	p.ignore_failure = 1;
	assert_int_equal(bench_plan_expand(&p, &err), 0);
	bench_plan_saved_suite(&y, &p, "/tmp/kagari-unit-bench/saved.yaml", NULL);
	assert_non_null(strstr(y.buf, "min_runs: 10\n  max_runs: 1000\n  min_time: 3s\n"));
	assert_non_null(strstr(y.buf, "exit_codes: [0, 1, 2,"));
	assert_non_null(strstr(
	    y.buf, "      # n=2\n      c2:\n        command: \"echo 2\"\n        shell: true\n"));
	struct suite *su = suite_load_mem("/tmp/kagari-unit-bench/saved.yaml", y.buf, y.len, &err);
	assert_non_null(su);
	assert_int_equal(su->benches[0].nr_commands, 2);
	suite_free(su);
	bench_plan_release(&p);
	sbuf_release(&y);
	sbuf_release(&err);
}

/* A command's own ${...} survives the round trip through a saved suite
   (the loader expands ${...}: it must be written $${...}). */
static void test_saved_suite_literal_dollar(void **state)
{
	(void)state;
	struct bench_plan p;
	struct sbuf err = SBUF_INIT, y = SBUF_INIT;
	const char *cmds[] = {"echo ${HOME}", "printf %s ${x:-1}", NULL};
	plan_of(&p, cmds);
	p.setup = xstrdup("echo ${PWD} > /dev/null");
	assert_int_equal(bench_plan_expand(&p, &err), 0);
	bench_plan_saved_suite(&y, &p, "/tmp/kagari-unit-bench/saved.yaml", NULL);
	struct suite *su = suite_load_mem("/tmp/kagari-unit-bench/saved.yaml", y.buf, y.len, &err);
	if (!su)
		fail_msg("the saved suite does not load: %s\n%s", err.buf, y.buf);
	assert_int_equal(su->benches[0].nr_commands, 2);
	/* kept unexpanded; running it turns $${ back into ${ */
	assert_string_equal(su->benches[0].commands[0].exec.script, "echo $${HOME}");
	assert_string_equal(su->benches[0].commands[1].exec.script, "printf %s $${x:-1}");
	suite_free(su);
	bench_plan_release(&p);
	sbuf_release(&y);
	sbuf_release(&err);
}

static void test_name_results(void **state)
{
	(void)state;
	struct bench_plan p;
	struct sbuf err = SBUF_INIT;
	const char *cmds[] = {"run {k}", NULL};
	plan_of(&p, cmds);
	struct strvec lists = STRVEC_INIT;
	strvec_push(&lists, "k");
	strvec_push(&lists, "a,b");
	assert_int_equal(bench_plan_add_lists(&p, &lists, &err), 0);
	assert_int_equal(bench_plan_expand(&p, &err), 0);
	struct run_result r;
	run_result_init(&r);
	r.suites = xcalloc(1, sizeof(*r.suites));
	r.nr_suites = 1;
	r.suites[0].file = xstrdup("/tmp/x/kagari.yaml");
	r.suites[0].benches = xcalloc(1, sizeof(struct bench_result));
	r.suites[0].nr_benches = 1;
	struct bench_result *br = &r.suites[0].benches[0];
	br->baseline = xstrdup("c1");
	br->commands = xcalloc(2, sizeof(*br->commands));
	br->nr_commands = 2;
	for (int c = 0; c < 2; c++) {
		br->commands[c].name = xstrfmt("c%d", c + 1);
		strvec_init(&br->commands[c].matrix_names);
		strvec_init(&br->commands[c].matrix_values);
	}
	bench_plan_name_results(&r, &p);
	assert_string_equal(r.suites[0].file, "kagari bench");
	assert_string_equal(br->baseline, "run a");
	assert_string_equal(br->commands[1].name, "run b");
	assert_string_equal(br->commands[1].command, "run b");
	assert_string_equal(br->commands[1].matrix_names.v[0], "k");
	assert_string_equal(br->commands[1].matrix_values.v[0], "b");
	run_result_release(&r);
	strvec_clear(&lists);
	bench_plan_release(&p);
	sbuf_release(&err);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_expand_order), cmocka_unit_test(test_scan_values),
	    cmocka_unit_test(test_usage_errors), cmocka_unit_test(test_private_suite),
	    cmocka_unit_test(test_saved_suite),	 cmocka_unit_test(test_saved_suite_literal_dollar),
	    cmocka_unit_test(test_name_results),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
