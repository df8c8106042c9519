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
	valgrind_wrap_argv("/usr/bin/valgrind", (const char *const[]){"prog", "-x", NULL}, "/t/d",
			   0, &out);
	assert_string_equal(out.v[0], "/usr/bin/valgrind");
	assert_true(strvec_contains(&out, "--tool=cachegrind"));
	assert_true(strvec_contains(&out, "--cache-sim=no"));
	assert_true(strvec_contains(&out, "--branch-sim=no"));
	assert_true(strvec_contains(&out, "--trace-children=yes"));
	assert_true(strvec_contains(&out, "--cachegrind-out-file=/t/d/cg.%p"));
	assert_string_equal(out.v[out.nr - 2], "prog");
	assert_string_equal(out.v[out.nr - 1], "-x");
	strvec_clear(&out);
	/* With the cache simulation: the fixed model, not the host's caches. */
	valgrind_wrap_argv("/usr/bin/valgrind", (const char *const[]){"prog", NULL}, "/t/d", 1,
			   &out);
	assert_true(strvec_contains(&out, "--cache-sim=yes"));
	assert_true(strvec_contains(&out, "--I1=32768,8,64"));
	assert_true(strvec_contains(&out, "--D1=32768,8,64"));
	assert_true(strvec_contains(&out, "--LL=8388608,16,64"));
	assert_false(strvec_contains(&out, "--cache-sim=no"));
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
	struct valgrind_counts c;
	struct sbuf err = SBUF_INIT;
	assert_int_equal(valgrind_parse_output(CG, &c, &err), 0);
	assert_int_equal(c.ev[VG_IR], 42);
	assert_int_equal(c.cache, 0);
	/* Without a summary line: the sum of the cost lines. */
	assert_int_equal(valgrind_parse_output("events: Ir\nfn=x\n1 5\n2 7\n", &c, &err), 0);
	assert_int_equal(c.ev[VG_IR], 12);
	assert_int_equal(valgrind_parse_output("cmd: x\n", &c, &err), -1);
	assert_non_null(strstr(err.buf, "events:"));
	sbuf_reset(&err);
	assert_int_equal(valgrind_parse_output("events: Dr Ir\n", &c, &err), -1);
	sbuf_reset(&err);
	assert_int_equal(valgrind_parse_output("events: Ir\nsummary: x\n", &c, &err), -1);
	sbuf_release(&err);
}

/* A cache-simulation file as cachegrind 3.19 writes it. */
static const char CG_CACHE[] = "desc: I1 cache:         32768 B, 64 B, 8-way associative\n"
			       "cmd: ./w 1000\n"
			       "events: Ir I1mr ILmr Dr D1mr DLmr Dw D1mw DLmw \n"
			       "fl=???\n"
			       "fn=main\n"
			       "0 1000 10 4 300 20 5 200 6 1\n"
			       "fn=write\n"
			       "0 24 2\n"
			       "summary: 1024 12 4 300 20 5 200 6 1\n";

static void test_parse_cache(void **state)
{
	(void)state;
	struct valgrind_counts c;
	struct sbuf err = SBUF_INIT;
	assert_int_equal(valgrind_parse_output(CG_CACHE, &c, &err), 0);
	assert_int_equal(c.cache, 1);
	assert_int_equal(c.ev[VG_IR], 1024);
	assert_int_equal(c.ev[VG_I1MR], 12);
	assert_int_equal(c.ev[VG_DLMW], 1);
	assert_int_equal(valgrind_ll_misses(&c), 4 + 5 + 1);
	/* accesses 1024+300+200 = 1524; L1 misses 12+20+6 = 38; LL misses
	   10: 1486 L1 hits + 5 x 28 LL hits + 35 x 10 from memory. */
	assert_int_equal(valgrind_estimated_cycles(&c), 1486 + 5 * 28 + 35 * 10);
	/* Without the summary, each column is summed; short lines pad with 0. */
	const char *nosum = "events: Ir I1mr ILmr Dr D1mr DLmr Dw D1mw DLmw\n"
			    "fn=a\n1 10 1 1 4 0 0 2\n2 5\n";
	assert_int_equal(valgrind_parse_output(nosum, &c, &err), 0);
	assert_int_equal(c.ev[VG_IR], 15);
	assert_int_equal(c.ev[VG_I1MR], 1);
	assert_int_equal(c.ev[VG_DR], 4);
	assert_int_equal(c.ev[VG_DW], 2);
	assert_int_equal(c.cache, 1);
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
	struct valgrind_counts c;
	size_t files = 0;
	assert_int_equal(valgrind_read_dir(dir, &c, &files, &err), 0);
	assert_int_equal(files, 3);
	assert_int_equal(c.ev[VG_IR], 126);
	assert_int_equal(c.cache, 0);
	assert_int_equal(valgrind_clear_dir(dir, &err), 0);
	assert_int_equal(valgrind_read_dir(dir, &c, &files, &err), 0);
	assert_int_equal(files, 0);
	/* Two processes of a tree with the cache simulation: summed. */
	for (int i = 0; i < 2; i++) {
		char *p = xstrfmt("%s/cg.%d", dir, 200 + i);
		assert_int_equal(fileio_write_atomic(p, CG_CACHE, strlen(CG_CACHE), &err), 0);
		free(p);
	}
	assert_int_equal(valgrind_read_dir(dir, &c, &files, &err), 0);
	assert_int_equal(files, 2);
	assert_int_equal(c.cache, 1);
	assert_int_equal(c.ev[VG_IR], 2048);
	assert_int_equal(valgrind_estimated_cycles(&c), 2 * (1486 + 5 * 28 + 35 * 10));
	tmpdir_remove(dir);
	free(dir);
	sbuf_release(&err);
}

/* Write cg.PID files whose summary lines give these Ir counts. */
static void write_irs(const char *dir, const unsigned *ir, int n)
{
	struct sbuf err = SBUF_INIT;
	assert_int_equal(valgrind_clear_dir(dir, &err), 0);
	for (int i = 0; i < n; i++) {
		char *p = xstrfmt("%s/cg.%d", dir, 300 + i);
		char *text = xstrfmt("desc: x\ncmd: x\nevents: Ir\nsummary: %u\n", ir[i]);
		assert_int_equal(fileio_write_atomic(p, text, strlen(text), &err), 0);
		free(text);
		free(p);
	}
	sbuf_release(&err);
}

/* The processes' counts as a multiset: the order of the processes does
   not matter, the same sum split differently does (a confirming run of
   a pool whose work moved between workers is no confirmation). */
static void test_procs_digest(void **state)
{
	(void)state;
	struct sbuf err = SBUF_INIT;
	char *dir = tmpdir_create("kagari-test-vg", &err);
	assert_non_null(dir);
	struct valgrind_counts a, b;
	size_t files = 0;
	const unsigned one[] = {1000, 2000, 3000}, reordered[] = {3000, 1000, 2000},
		       moved[] = {1500, 1500, 3000};
	write_irs(dir, one, 3);
	assert_int_equal(valgrind_read_dir(dir, &a, &files, &err), 0);
	write_irs(dir, reordered, 3);
	assert_int_equal(valgrind_read_dir(dir, &b, &files, &err), 0);
	assert_true(a.ev[VG_IR] == b.ev[VG_IR] && a.procs_digest == b.procs_digest);
	write_irs(dir, moved, 3);
	assert_int_equal(valgrind_read_dir(dir, &b, &files, &err), 0);
	assert_true(a.ev[VG_IR] == b.ev[VG_IR]);
	assert_true(a.procs_digest != b.procs_digest);
	tmpdir_remove(dir);
	free(dir);
	sbuf_release(&err);
}

static void test_functions(void **state)
{
	(void)state;
	struct sbuf err = SBUF_INIT;
	char *dir = tmpdir_create("kagari-test-vg", &err);
	assert_non_null(dir);
	/* Two processes: main and write in each, summed by name. */
	for (int i = 0; i < 2; i++) {
		char *p = xstrfmt("%s/cg.%d", dir, 300 + i);
		assert_int_equal(fileio_write_atomic(p, CG_CACHE, strlen(CG_CACHE), &err), 0);
		free(p);
	}
	struct valgrind_fn *fns = NULL;
	size_t nr = 0;
	assert_int_equal(valgrind_read_functions(dir, &fns, &nr, &err), 0);
	assert_int_equal(nr, 2);
	assert_string_equal(fns[0].name, "main");
	assert_int_equal(fns[0].c.ev[VG_IR], 2000);
	assert_int_equal(fns[0].c.ev[VG_DLMW], 2);
	assert_string_equal(fns[1].name, "write");
	assert_int_equal(fns[1].c.ev[VG_IR], 48);
	assert_int_equal(fns[1].c.ev[VG_I1MR], 4);
	valgrind_fns_release(fns, nr);
	tmpdir_remove(dir);
	free(dir);
	sbuf_release(&err);
}

static uint64_t real_count(const char *vg, const char *dir, const char *n, int cache,
			   struct valgrind_counts *out)
{
	struct sbuf err = SBUF_INIT;
	struct child c = CHILD_INIT;
	assert_int_equal(valgrind_clear_dir(dir, &err), 0);
	valgrind_wrap_argv(vg, (const char *const[]){KAGARI_HELPER, "work", n, NULL}, dir, cache,
			   &c.argv);
	assert_int_equal(child_run(&c, &err), 0);
	size_t files = 0;
	assert_int_equal(valgrind_read_dir(dir, out, &files, &err), 0);
	assert_int_equal(files, 1);
	assert_int_equal(out->cache, cache);
	child_release(&c);
	sbuf_release(&err);
	return out->ev[VG_IR];
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
	struct valgrind_counts ca, cb, cc;
	uint64_t a = real_count(vg, dir, "100000", 0, &ca);
	uint64_t b = real_count(vg, dir, "100000", 0, &cb);
	uint64_t c = real_count(vg, dir, "200000", 0, &cc);
	assert_int_equal(a, b); /* the same program, argv and environment */
	assert_true(c > a + 100000 * 3);
	/* The cache simulation counts the same instructions, and its
	   estimated cycles are as repeatable. */
	uint64_t sa = real_count(vg, dir, "100000", 1, &ca);
	real_count(vg, dir, "100000", 1, &cb);
	real_count(vg, dir, "200000", 1, &cc);
	assert_int_equal(sa, a);
	assert_int_equal(valgrind_estimated_cycles(&ca), valgrind_estimated_cycles(&cb));
	assert_true(valgrind_estimated_cycles(&ca) > sa);
	assert_true(valgrind_estimated_cycles(&cc) > valgrind_estimated_cycles(&ca) + 100000 * 3);
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
	    cmocka_unit_test(test_version),	 cmocka_unit_test(test_wrap),
	    cmocka_unit_test(test_parse),	 cmocka_unit_test(test_parse_cache),
	    cmocka_unit_test(test_dir),		 cmocka_unit_test(test_missing),
	    cmocka_unit_test(test_real),	 cmocka_unit_test(test_functions),
	    cmocka_unit_test(test_procs_digest),
	};
	return test_skip_status(cmocka_run_group_tests(tests, NULL, NULL));
}
