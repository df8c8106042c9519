/*
 * sysinfo: the steal share of environment.steal_percent — read from a
 * /proc/stat-format file (the "cpu" line's first eight columns, steal the
 * eighth), refused when the line or the column is missing, and the share
 * between two readings.
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
#include <unistd.h>

#include "measure/sysinfo.h"

static char path[64];

static void write_stat(const char *text)
{
	strcpy(path, "/tmp/kagari-test-sysinfo-XXXXXX");
	int fd = mkstemp(path);
	assert_true(fd >= 0);
	FILE *f = fdopen(fd, "w");
	assert_non_null(f);
	fputs(text, f);
	fclose(f);
}

static void test_ticks_read(void **state)
{
	(void)state;
	struct cpu_ticks t;
	/* user nice system idle iowait irq softirq steal guest guest_nice */
	write_stat("cpu  100 5 50 800 10 0 5 30 7 0\ncpu0 50 2 25 400 5 0 2 15 3 0\n");
	assert_int_equal(sysinfo_cpu_ticks(path, &t), 0);
	assert_int_equal(t.total, 1000); /* guest time is already in user */
	assert_int_equal(t.steal, 30);
	unlink(path);
}

static void test_ticks_refused(void **state)
{
	(void)state;
	struct cpu_ticks t = { 1, 1 };
	write_stat("cpu  100 5 50 800 10 0 5\n"); /* no steal column */
	assert_int_equal(sysinfo_cpu_ticks(path, &t), -1);
	unlink(path);
	write_stat("intr 12345\n");
	assert_int_equal(sysinfo_cpu_ticks(path, &t), -1);
	unlink(path);
	assert_int_equal(sysinfo_cpu_ticks("/nonexistent/kagari/stat", &t), -1);
}

static void test_steal_share(void **state)
{
	(void)state;
	struct cpu_ticks a = { 1000, 30 }, b = { 1200, 80 };
	assert_true(fabs(sysinfo_steal_percent(&a, &b) - 25.0) < 1e-9);
	struct cpu_ticks same = a;
	assert_true(isnan(sysinfo_steal_percent(&a, &same))); /* nothing elapsed */
	struct cpu_ticks back = { 1200, 10 };
	assert_true(isnan(sysinfo_steal_percent(&a, &back))); /* went backwards */
}

/* The real file: on Linux it reads, and a share over a short span is a
   percentage. */
static void test_real_proc_stat(void **state)
{
	(void)state;
	struct cpu_ticks a, b;
	if (sysinfo_cpu_ticks(NULL, &a)) {
		print_message("skip: no /proc/stat with a steal column here\n");
		return;
	}
	usleep(50000);
	assert_int_equal(sysinfo_cpu_ticks(NULL, &b), 0);
	/* Not b.total >= a.total: a tickless kernel's idle count may step
	   back a little; the share is then NAN, which is what it reports. */
	double p = sysinfo_steal_percent(&a, &b);
	assert_true(isnan(p) || (p >= 0 && p <= 100));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_ticks_read),
		cmocka_unit_test(test_ticks_refused),
		cmocka_unit_test(test_steal_share),
		cmocka_unit_test(test_real_proc_stat),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
