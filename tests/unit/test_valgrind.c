/*
 * measure/valgrind: version parsing, argv wrapping, cachegrind output
 * parsing and summing over a folder, and (when valgrind is installed) one
 * real run whose count is stable across runs.
 */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/fileio.h"
#include "base/sbuf.h"
#include "base/strvec.h"
#include "base/tmpdir.h"
#include "base/xalloc.h"
#include "proc/child.h"
#include "measure/valgrind.h"
#include "test_skip.h"

static void test_version(void **state)
{
	(void)state;
	char *v = valgrind_parse_version("valgrind-3.19.0\n");
	assert_string_equal(v, "3.19.0");
	free(v);
	assert_null(valgrind_parse_version("something else\n"));
}

static void test_wrap(void **state)
{
	(void)state;
	struct strvec out = STRVEC_INIT;
	valgrind_wrap_argv("/usr/bin/valgrind", (const char *const[]){ "prog", "-x", NULL },
			   "/t/d", &out);
	assert_string_equal(out.v[0], "/usr/bin/valgrind");
	assert_true(strvec_contains(&out, "--tool=cachegrind"));
	assert_true(strvec_contains(&out, "--cache-sim=no"));
	assert_true(strvec_contains(&out, "--branch-sim=no"));
	assert_true(strvec_contains(&out, "--trace-children=yes"));
	assert_true(strvec_contains(&out, "--cachegrind-out-file=/t/d/cg.%p"));
	assert_string_equal(out.v[out.nr - 2], "prog");
	assert_string_equal(out.v[out.nr - 1], "-x");
	strvec_clear(&out);
}

static const char CG[] = "desc: I1 cache: 32768 B\n"
			 "cmd: ./fk\n"
			 "events: Ir\n"
			 "fl=a.c\n"
			 "fn=main\n"
			 "1 2\n"
			 "3 40\n"
			 "summary: 42\n";

static void test_parse(void **state)
{
	(void)state;
	uint64_t ir = 0;
	struct sbuf err = SBUF_INIT;
	assert_int_equal(valgrind_parse_output(CG, &ir, &err), 0);
	assert_int_equal(ir, 42);
	/* Without a summary line: the sum of the cost lines. */
	assert_int_equal(valgrind_parse_output("events: Ir\nfn=x\n1 5\n2 7\n", &ir, &err), 0);
	assert_int_equal(ir, 12);
	assert_int_equal(valgrind_parse_output("cmd: x\n", &ir, &err), -1);
	assert_non_null(strstr(err.buf, "events:"));
	sbuf_reset(&err);
	assert_int_equal(valgrind_parse_output("events: Dr Ir\n", &ir, &err), -1);
	sbuf_reset(&err);
	assert_int_equal(valgrind_parse_output("events: Ir\nsummary: x\n", &ir, &err), -1);
	sbuf_release(&err);
}

static void test_dir(void **state)
{
	(void)state;
	struct sbuf err = SBUF_INIT;
	char *dir = tmpdir_create("kagari-test-vg", &err);
	assert_non_null(dir);
	for (int i = 0; i < 3; i++) {
		char *p = xstrfmt("%s/cg.%d", dir, 100 + i);
		assert_int_equal(fileio_write_atomic(p, CG, strlen(CG), &err), 0);
		free(p);
	}
	char *log = xstrfmt("%s/vg.100.log", dir);
	assert_int_equal(fileio_write_atomic(log, "x\n", 2, &err), 0);
	free(log);
	uint64_t ir = 0;
	size_t files = 0;
	assert_int_equal(valgrind_read_dir(dir, &ir, &files, &err), 0);
	assert_int_equal(files, 3);
	assert_int_equal(ir, 126);
	assert_int_equal(valgrind_clear_dir(dir, &err), 0);
	assert_int_equal(valgrind_read_dir(dir, &ir, &files, &err), 0);
	assert_int_equal(files, 0);
	tmpdir_remove(dir);
	free(dir);
	sbuf_release(&err);
}

static uint64_t real_count(const char *vg, const char *dir, const char *n)
{
	struct sbuf err = SBUF_INIT;
	struct child c = CHILD_INIT;
	assert_int_equal(valgrind_clear_dir(dir, &err), 0);
	valgrind_wrap_argv(vg, (const char *const[]){ KAGARI_HELPER, "work", n, NULL },
			   dir, &c.argv);
	assert_int_equal(child_run(&c, &err), 0);
	uint64_t ir = 0;
	size_t files = 0;
	assert_int_equal(valgrind_read_dir(dir, &ir, &files, &err), 0);
	assert_int_equal(files, 1);
	child_release(&c);
	sbuf_release(&err);
	return ir;
}

static void test_real(void **state)
{
	(void)state;
	char *vg = NULL, *version = NULL;
	struct sbuf err = SBUF_INIT;
	if (valgrind_probe(NULL, &vg, &version, &err)) {
		assert_non_null(strstr(err.buf, "not installed"));
		char why[512];
		snprintf(why, sizeof(why), "%s", err.buf);
		sbuf_release(&err);
		test_skip(why, "valgrind");
	}
	assert_non_null(strchr(version, '.'));
	char *dir = tmpdir_create("kagari-test-vg", &err);
	uint64_t a = real_count(vg, dir, "100000");
	uint64_t b = real_count(vg, dir, "100000");
	uint64_t c = real_count(vg, dir, "200000");
	assert_int_equal(a, b); /* the same program, argv and environment */
	assert_true(c > a + 100000 * 3);
	tmpdir_remove(dir);
	free(dir);
	free(vg);
	free(version);
	sbuf_release(&err);
}

static void test_missing(void **state)
{
	(void)state;
	char *vg = NULL, *version = NULL;
	struct sbuf err = SBUF_INIT;
	assert_int_equal(valgrind_probe("/nonexistent", &vg, &version, &err), -1);
	assert_null(vg);
	assert_non_null(strstr(err.buf, "valgrind is not installed"));
	sbuf_release(&err);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_version),
		cmocka_unit_test(test_wrap),
		cmocka_unit_test(test_parse),
		cmocka_unit_test(test_dir),
		cmocka_unit_test(test_missing),
		cmocka_unit_test(test_real),
	};
	return test_skip_status(cmocka_run_group_tests(tests, NULL, NULL));
}
