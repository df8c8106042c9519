/*
 * test_fuzz_regressions: every input the fuzzers once failed on, fed again
 * to the very entry points of the fuzz targets (fuzz/fuzz_*.c are compiled
 * in here with LLVMFuzzerTestOneInput renamed), so that their invariants
 * run in the normal and the ASan build of `make check` without libFuzzer.
 * The inputs live in tests/data/fuzz-regressions/<target>/. A violated
 * invariant aborts, which fails the test. Inputs of bugs not fixed yet wait
 * in tests/data/fuzz-regressions/open/<target>/ (not replayed); move them
 * to <target>/ with the fix.
 *
 * Direct checks below pin down the user-visible side of each bug fixed.
 */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/sbuf.h"
#include "suite/load.h"
#include "suite/units.h"
#include "suite/vars.h"

#define LLVMFuzzerTestOneInput fuzz_suite_one
#include "../../fuzz/fuzz_suite.c"
#undef LLVMFuzzerTestOneInput
#define LLVMFuzzerTestOneInput fuzz_units_one
#include "../../fuzz/fuzz_units.c"
#undef LLVMFuzzerTestOneInput
#define LLVMFuzzerTestOneInput fuzz_vars_one
#include "../../fuzz/fuzz_vars.c"
#undef LLVMFuzzerTestOneInput
#if __has_include("../../fuzz/fuzz_github_event.c")
#define LLVMFuzzerTestOneInput fuzz_github_event_one
#include "../../fuzz/fuzz_github_event.c"
#undef LLVMFuzzerTestOneInput
#define HAVE_FUZZ_GITHUB_EVENT 1
#endif
#if __has_include("../../fuzz/fuzz_report_json.c")
#define LLVMFuzzerTestOneInput fuzz_report_json_one
#include "../../fuzz/fuzz_report_json.c"
#undef LLVMFuzzerTestOneInput
#define HAVE_FUZZ_REPORT_JSON 1
#endif

typedef int (*fuzz_entry)(const uint8_t *data, size_t size);

/*
 * Feed every file of tests/data/fuzz-regressions/<target>/ to `one`; the
 * folder may be missing only when `optional` (no input found yet).
 */
static void replay_dir(const char *target, fuzz_entry one, int optional)
{
	struct sbuf dir = SBUF_INIT;
	sbuf_addf(&dir, "%s/tests/data/fuzz-regressions/%s", KAGARI_SOURCE_DIR,
		  target);
	DIR *d = opendir(dir.buf);
	if (!d && optional) {
		sbuf_release(&dir);
		return;
	}
	assert_non_null(d);
	struct dirent *de;
	int n = 0;
	while ((de = readdir(d))) {
		if (de->d_name[0] == '.')
			continue;
		struct sbuf path = SBUF_INIT, data = SBUF_INIT;
		sbuf_addf(&path, "%s/%s", dir.buf, de->d_name);
		if (sbuf_read_file(&data, path.buf, 4 * 1024 * 1024) != 0)
			fail_msg("cannot read %s", path.buf);
		/* A private copy: the entry point must not read past `len`. */
		uint8_t *copy = malloc(data.len ? data.len : 1);
		assert_non_null(copy);
		memcpy(copy, data.buf, data.len);
		one(copy, data.len);
		free(copy);
		sbuf_release(&data);
		sbuf_release(&path);
		n++;
	}
	closedir(d);
	sbuf_release(&dir);
	assert_true(n > 0);
}

static void replay(const char *target, fuzz_entry one)
{
	replay_dir(target, one, 0);
}

/* The targets of the modules written after the fuzzing started. */
static void test_replay_later_targets(void **state)
{
	(void)state;
#ifdef HAVE_FUZZ_GITHUB_EVENT
	replay_dir("github_event", fuzz_github_event_one, 1);
#endif
#ifdef HAVE_FUZZ_REPORT_JSON
	replay_dir("report_json", fuzz_report_json_one, 1);
#endif
}

static void test_replay_suite(void **state)
{
	(void)state;
	replay("suite", fuzz_suite_one);
}

static void test_replay_units(void **state)
{
	(void)state;
	replay("units", fuzz_units_one);
}

static void test_replay_vars(void **state)
{
	(void)state;
	replay("vars", fuzz_vars_one);
}

/* A quoted "\n" in a value or key stays inside one FILE:LINE:COL line. */
static void test_messages_stay_on_one_line(void **state)
{
	(void)state;
	static const char text[] = "version: \"1\"\n"
				   "name: x\n"
				   "benchmarks:\n"
				   "  - name: b\n"
				   "    timeout: \"1\\nzz\"\n"
				   "    \"k\\ry\": 1\n"
				   "    commands: {c: {command: [\"true\"]}}\n";
	struct sbuf errs = SBUF_INIT;
	struct suite *s = suite_load_mem("t.yaml", text, sizeof(text) - 1, &errs);
	assert_null(s);
	const char *line = errs.buf;
	int lines = 0;
	while (*line) {
		assert_int_equal(strncmp(line, "t.yaml:", 7), 0);
		assert_null(memchr(line, '\r', (size_t)(strchr(line, '\n') - line)));
		line = strchr(line, '\n') + 1;
		lines++;
	}
	assert_int_equal(lines, 2);
	assert_non_null(strstr(errs.buf, "t.yaml:5:14: benchmarks[0].timeout: "));
	assert_non_null(strstr(errs.buf, "'1\\nzz'"));
	sbuf_release(&errs);
}

/* Fails must leave the output alone, as units.h promises. */
static void test_metric_value_untouched_on_error(void **state)
{
	(void)state;
	struct sbuf err = SBUF_INIT;
	double v = 42;
	assert_int_equal(units_parse_metric_value(METRIC_IPC, "-1.5", &v, &err), -1);
	assert_true(v == 42);
	assert_non_null(strstr(err.buf, "negative"));
	sbuf_reset(&err);
	assert_int_equal(units_parse_metric_value(METRIC_THROUGHPUT, "-3", &v, &err),
			 -1);
	assert_true(v == 42);
	sbuf_release(&err);
}

/* A rate that overflows a double is an error, not infinity. */
static void test_rate_overflow(void **state)
{
	(void)state;
	struct sbuf err = SBUF_INIT;
	double v = 42;
	char *unit = NULL;
	assert_int_equal(units_parse_rate("278E2778o/s", &v, &unit, &err), -1);
	assert_null(unit);
	assert_true(v == 42);
	sbuf_reset(&err);
	assert_int_equal(units_parse_rate("1e300 GiB/s", &v, &unit, &err), -1);
	sbuf_reset(&err);
	assert_int_equal(units_parse_rate("20 MB/s", &v, &unit, &err), 0);
	assert_true(v == 20e6);
	assert_string_equal(unit, "bytes");
	free(unit);
	sbuf_release(&err);
}

/*
 * In a shell command, "\${x}" passed vars_check() while vars_expand() still
 * substituted it; the backslash then escaped kagari's opening quote and left
 * the value open to the shell.
 */
static void test_backslash_before_variable(void **state)
{
	(void)state;
	struct sbuf err = SBUF_INIT;
	size_t off = 0;
	assert_int_equal(vars_check("echo \\${env:HOME}", VAR_ALL, 1, &off, &err), -1);
	assert_int_equal(off, 6);
	assert_non_null(strstr(err.buf, "backslash"));
	sbuf_reset(&err);
	/* An escaped backslash, then the variable: fine. */
	assert_int_equal(vars_check("echo \\\\${env:HOME}", VAR_ALL, 1, &off, &err), 0);
	/* "\$${" is a backslash and the literal "${". */
	assert_int_equal(vars_check("echo \\$${x}", VAR_ALL, 1, &off, &err), 0);
	/* Outside shell commands a backslash means nothing special. */
	assert_int_equal(vars_check("a\\${env:HOME}", VAR_ALL, 0, &off, &err), 0);
	sbuf_release(&err);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_replay_suite),
		cmocka_unit_test(test_replay_units),
		cmocka_unit_test(test_replay_vars),
		cmocka_unit_test(test_replay_later_targets),
		cmocka_unit_test(test_messages_stay_on_one_line),
		cmocka_unit_test(test_metric_value_untouched_on_error),
		cmocka_unit_test(test_rate_overflow),
		cmocka_unit_test(test_backslash_before_variable),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
