/*
 * measure/syscalls: reading tracepoint ids from a tracefs-like folder, and
 * (where the syscall tracepoints open: root, or a lowered
 * perf_event_paranoid) exact counts of a helper's write(2) calls, its
 * forked child's included.
 */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "base/fileio.h"
#include "base/sbuf.h"
#include "base/tmpdir.h"
#include "base/xalloc.h"
#include "measure/syscalls.h"
#include "proc/child.h"
#include "test_skip.h"

static void put(const char *dir, const char *sub, const char *text)
{
	struct sbuf err = SBUF_INIT;
	char *d = xstrfmt("%s/%s", dir, sub);
	char *cmd = xstrfmt("mkdir -p '%s'", d);
	assert_int_equal(system(cmd), 0);
	char *f = xstrfmt("%s/id", d);
	assert_int_equal(fileio_write_atomic(f, text, strlen(text), &err), 0);
	free(f);
	free(cmd);
	free(d);
	sbuf_release(&err);
}

static void test_read_ids(void **state)
{
	(void)state;
	struct sbuf err = SBUF_INIT;
	char *dir = tmpdir_create("kagari-test-sc", &err);
	assert_non_null(dir);
	struct syscalls_probe p;
	memset(&p, 0, sizeof(p));
	assert_int_equal(syscalls_read_ids(dir, &p, &err), -1);
	assert_non_null(strstr(err.buf, "raw_syscalls:sys_enter"));
	sbuf_reset(&err);
	put(dir, "raw_syscalls/sys_enter", "21\n");
	put(dir, "syscalls/sys_enter_write", "700\n");
	put(dir, "syscalls/sys_exit_write", "701\n");
	put(dir, "syscalls/sys_enter_openat", "650\n");
	put(dir, "syscalls/sys_enter_read", "x\n"); /* unreadable id: left out */
	assert_int_equal(syscalls_read_ids(dir, &p, &err), 0);
	assert_int_equal(p.total_id, 21);
	assert_int_equal(p.nr, 2);
	assert_string_equal(p.names[0], "openat");
	assert_int_equal(p.ids[0], 650);
	assert_string_equal(p.names[1], "write");
	assert_int_equal(p.ids[1], 700);
	syscalls_probe_release(&p);
	tmpdir_remove(dir);
	free(dir);
	sbuf_release(&err);
}

/* Run the helper with args under counting; the count of `write`. */
static uint64_t count_writes(struct syscalls_probe *p, const char *const *args, uint64_t *total)
{
	struct sbuf err = SBUF_INIT;
	struct syscalls_counter c = SYSCALLS_COUNTER_INIT;
	struct child ch = CHILD_INIT;
	strvec_push(&ch.argv, KAGARI_HELPER);
	strvec_pushv(&ch.argv, args);
	ch.in = CHILD_IN_NULL;
	assert_int_equal(syscalls_begin(&c, p, 0, &err), 0);
	assert_int_equal(child_run(&ch, &err), 0);
	uint64_t *counts = xcalloc(p->nr, sizeof(*counts));
	assert_int_equal(syscalls_end(&c, total, counts, &err), 0);
	uint64_t w = UINT64_MAX;
	for (size_t i = 0; i < p->nr; i++)
		if (!strcmp(p->names[i], "write"))
			w = counts[i];
	free(counts);
	syscalls_release(&c);
	child_release(&ch);
	sbuf_release(&err);
	return w;
}

static void test_real(void **state)
{
	(void)state;
	struct syscalls_probe p;
	syscalls_probe(&p);
	if (!p.ok) {
		assert_non_null(p.why);
		char why[1024];
		snprintf(why, sizeof(why), "%s", p.why);
		syscalls_probe_release(&p);
		if (geteuid() == 0)
			fail_msg("as root the syscall tracepoints must open: %s", why);
		test_skip(why, NULL);
	}
	assert_true(p.nr > 100);
	uint64_t total = 0;
	assert_int_equal(count_writes(&p, (const char *const[]){"writes", "200", NULL}, &total),
			 200);
	assert_true(total > 200);
	uint64_t t2 = 0;
	assert_int_equal(count_writes(&p, (const char *const[]){"writes", "400", NULL}, &t2), 400);
	assert_true(t2 >= total + 200);
	/* A forked child's calls are counted too. */
	assert_int_equal(
	    count_writes(&p, (const char *const[]){"fork-writes", "150", "writes", "50", NULL},
			 &total),
	    200);
	syscalls_probe_release(&p);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_read_ids),
	    cmocka_unit_test(test_real),
	};
	return test_skip_status(cmocka_run_group_tests(tests, NULL, NULL));
}
