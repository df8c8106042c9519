/*
 * measure/alloc and the shim itself: parsing of the shim's lines, the
 * environment set-up, and real runs of the test helper under
 * build/libkagari-alloc.so (counts, threads, fork, _exit, the malloc
 * family through a child that uses every entry point).
 */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "base/sbuf.h"
#include "base/strvec.h"
#include "base/tmpdir.h"
#include "base/xalloc.h"
#include "measure/alloc.h"
#include "proc/child.h"

static void test_parse(void **state)
{
	(void)state;
	const char *text =
		"kagari-alloc 1 pid=20 ppid=10 allocs=5 bytes=100 peak=60 frees=4\n"
		"kagari-alloc 1 pid=21 ppid=20 allocs=7 bytes=30 peak=30 frees=7\n";
	struct alloc_totals t;
	struct sbuf err = SBUF_INIT;
	assert_int_equal(alloc_parse(text, strlen(text), 10, &t, &err), 0);
	assert_int_equal(t.allocs, 12);
	assert_int_equal(t.bytes, 130);
	assert_int_equal(t.peak, 90);
	assert_int_equal(t.frees, 11);
	assert_int_equal(t.processes, 2);
	assert_true(t.main_seen);
	assert_int_equal(alloc_parse(text, strlen(text), 99, &t, &err), 0);
	assert_false(t.main_seen);

	const char *bad = "kagari-alloc 1 pid=20 ppid=10 allocs=x\n";
	assert_int_equal(alloc_parse(bad, strlen(bad), 10, &t, &err), -1);
	assert_non_null(strstr(err.buf, "line 1 is malformed"));
	sbuf_reset(&err);
	const char *cut = "kagari-alloc 1 pid=20 ppid=10 allocs=1 bytes=1 peak=1 frees=1";
	assert_int_equal(alloc_parse(cut, strlen(cut), 10, &t, &err), -1);
	sbuf_release(&err);
}

static void test_env(void **state)
{
	(void)state;
	struct strvec env = STRVEC_INIT;
	strvec_push(&env, "A=1");
	alloc_env_setup(&env, "/x/libkagari-alloc.so", "/t/out");
	assert_string_equal(strvec_getenv(&env, "LD_PRELOAD"), "/x/libkagari-alloc.so");
	assert_string_equal(strvec_getenv(&env, ALLOC_OUT_ENV), "/t/out");
	strvec_clear(&env);
	strvec_push(&env, "LD_PRELOAD=/other.so");
	alloc_env_setup(&env, "/x/s.so", "/t/out");
	assert_string_equal(strvec_getenv(&env, "LD_PRELOAD"), "/x/s.so:/other.so");
	strvec_clear(&env);
}

static void test_missing_file(void **state)
{
	(void)state;
	struct alloc_totals t;
	struct sbuf err = SBUF_INIT;
	assert_int_equal(alloc_read("/nonexistent/kagari-alloc", 1, &t, &err), 0);
	assert_int_equal(t.processes, 0);
	assert_false(t.main_seen);
	sbuf_release(&err);
}

/* Run the helper with args under the shim; totals of the tree. */
static void run_shim(const char *const *args, struct alloc_totals *t)
{
	struct sbuf shim = SBUF_INIT, err = SBUF_INIT;
	if (alloc_shim_find(NULL, &shim, &err))
		fail_msg("%s", err.buf);
	char *dir = tmpdir_create("kagari-test-alloc", &err);
	assert_non_null(dir);
	char *out = xstrfmt("%s/alloc", dir);
	struct child c = CHILD_INIT;
	strvec_push(&c.argv, KAGARI_HELPER);
	strvec_pushv(&c.argv, args);
	extern char **environ;
	strvec_pushv(&c.env, (const char *const *)environ);
	alloc_env_setup(&c.env, shim.buf, out);
	c.flags = 0;
	int code = child_run(&c, &err);
	assert_true(code == 0);
	assert_int_equal(alloc_read(out, getpid(), t, &err), 0);
	child_release(&c);
	tmpdir_remove(dir);
	free(dir);
	free(out);
	sbuf_release(&shim);
	sbuf_release(&err);
}

static void test_shim_counts(void **state)
{
	(void)state;
	struct alloc_totals a, b;
	run_shim((const char *const[]){ "mallocs", "10", NULL }, &a);
	run_shim((const char *const[]){ "mallocs", "1010", NULL }, &b);
	assert_true(a.main_seen);
	assert_int_equal(a.processes, 1);
	assert_int_equal(b.allocs - a.allocs, 1000);
	assert_int_equal(b.bytes - a.bytes, 64000);
	assert_int_equal(b.peak, a.peak); /* one 64-byte block live at a time */
	assert_int_equal(b.frees - a.frees, 1000);
}

static void test_shim_threads_fork(void **state)
{
	(void)state;
	struct alloc_totals t, f;
	run_shim((const char *const[]){ "threads", "4", NULL }, &t);
	assert_true(t.allocs >= 4000);
	run_shim((const char *const[]){ "threads", "4", "fork-mallocs", "300", NULL }, &f);
	assert_int_equal(f.processes, 2);
	assert_int_equal(f.allocs - t.allocs, 300);
	assert_int_equal(f.bytes - t.bytes, 300 * 64);
}

static void test_shim_exit(void **state)
{
	(void)state;
	struct alloc_totals t;
	run_shim((const char *const[]){ "mallocs", "5", "_exit", "0", NULL }, &t);
	assert_false(t.main_seen);
	assert_int_equal(t.processes, 0);
}

static void test_shim_peak(void **state)
{
	(void)state;
	struct alloc_totals t;
	/* `alloc 2` keeps 2 MiB live until exit: the peak sees it. */
	run_shim((const char *const[]){ "alloc", "2", NULL }, &t);
	assert_true(t.peak >= (uint64_t)2 << 20);
	assert_true(t.bytes >= (uint64_t)2 << 20);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_parse),
		cmocka_unit_test(test_env),
		cmocka_unit_test(test_missing_file),
		cmocka_unit_test(test_shim_counts),
		cmocka_unit_test(test_shim_threads_fork),
		cmocka_unit_test(test_shim_exit),
		cmocka_unit_test(test_shim_peak),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
