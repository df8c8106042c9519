/*
 * Tests for measure/counters.c: the perf path counted for real through the
 * software events (task-clock, page-faults work in virtual machines too),
 * one reading per run that never includes an earlier run, counting through
 * the runner process from outside it, the multiplexing arithmetic, and an
 * explanation for every errno. Assertions that need a PMU skip with a
 * printed reason when this machine has none.
 */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "base/sbuf.h"
#include "proc/child.h"
#include "measure/counters.h"
#include "measure/runner.h"
#include "test_skip.h"

#ifndef KAGARI_HELPER
#define KAGARI_HELPER "kagari-helper"
#endif

static struct runner runner;
static struct counters_probe probe;

/* Run the helper with steps as a child of this process, counted. */
static int counted_run(struct counters *c, struct counters_reading *r,
		       const char *const *steps)
{
	struct child ch = CHILD_INIT;
	struct sbuf err = SBUF_INIT;
	strvec_push(&ch.argv, KAGARI_HELPER);
	for (size_t i = 0; steps[i]; i++)
		strvec_push(&ch.argv, steps[i]);
	assert_int_equal(counters_begin(c, &err), 0);
	int code = child_run(&ch, &err);
	int rc = counters_end(c, r, &err);
	if (rc)
		print_message("counters_end: %s\n", err.buf);
	child_release(&ch);
	sbuf_release(&err);
	assert_int_equal(code, 0);
	return rc;
}

static void skip_without(unsigned need)
{
	if ((probe.available & need) == need)
		return;
	const char *why = "the needed perf events do not open here";
	for (int e = 0; e < COUNTERS__COUNT; e++)
		if ((need & COUNTERS_BIT(e)) && probe.why[e]) {
			why = probe.why[e];
			break;
		}
	test_skip(why, NULL); /* a PMU or a kernel setting, not a package */
}

static void test_task_clock(void **state)
{
	(void)state;
	skip_without(COUNTERS_SOFTWARE);
	struct counters c;
	struct counters_reading r;
	counters_init(&c, 0, COUNTERS_SOFTWARE);
	const char *steps[] = { "burn", "200", NULL };
	assert_int_equal(counted_run(&c, &r, steps), 0);
	assert_true(r.counted & COUNTERS_BIT(COUNTERS_TASK_CLOCK));
	assert_true(r.counted & COUNTERS_BIT(COUNTERS_PAGE_FAULTS));
	/* burn spins until 200 ms of CPU time are used. */
	double ms = r.value[COUNTERS_TASK_CLOCK] / 1e6;
	print_message("task-clock of burn 200: %.1f ms (share %.2f)\n", ms,
		      r.share[COUNTERS_TASK_CLOCK]);
	assert_true(ms >= 180 && ms < 5000);
	assert_true(r.share[COUNTERS_TASK_CLOCK] > 0);
	/* Hardware events were not asked for: never reported. */
	assert_false(r.counted & COUNTERS_HARDWARE);
	counters_release(&c);
}

static void test_page_faults(void **state)
{
	(void)state;
	skip_without(COUNTERS_SOFTWARE);
	struct counters c;
	struct counters_reading r;
	counters_init(&c, 0, COUNTERS_SOFTWARE);
	/* 50 MiB touched page by page: at least 12800 4-KiB pages. */
	const char *steps[] = { "alloc", "50", NULL };
	assert_int_equal(counted_run(&c, &r, steps), 0);
	assert_true(r.counted & COUNTERS_BIT(COUNTERS_PAGE_FAULTS));
	print_message("page-faults of alloc 50: %.0f\n",
		      r.value[COUNTERS_PAGE_FAULTS]);
	assert_true(r.value[COUNTERS_PAGE_FAULTS] >= 12800);
	counters_release(&c);
}

/*
 * A run's reading is that run alone: after a 50 MiB run, a run that
 * allocates nothing shows a few hundred faults, and every one of many
 * consecutive runs is counted (events kept open across runs with
 * enable_on_exec stop counting after a few runs on recent kernels).
 */
static void test_per_run(void **state)
{
	(void)state;
	skip_without(COUNTERS_SOFTWARE);
	struct counters c;
	struct counters_reading big, small;
	counters_init(&c, 0, COUNTERS_SOFTWARE);
	const char *alloc[] = { "alloc", "50", NULL };
	const char *nothing[] = { "exit", "0", NULL };
	assert_int_equal(counted_run(&c, &big, alloc), 0);
	assert_int_equal(counted_run(&c, &small, nothing), 0);
	assert_true(big.value[COUNTERS_PAGE_FAULTS] >= 12800);
	assert_true(small.counted & COUNTERS_BIT(COUNTERS_PAGE_FAULTS));
	assert_true(small.value[COUNTERS_PAGE_FAULTS] > 0);
	assert_true(small.value[COUNTERS_PAGE_FAULTS] < 2000);
	double lo = 1e18, hi = 0;
	for (int i = 0; i < 25; i++) {
		struct counters_reading r;
		assert_int_equal(counted_run(&c, &r, nothing), 0);
		assert_true(r.counted & COUNTERS_BIT(COUNTERS_TASK_CLOCK));
		assert_true(r.counted & COUNTERS_BIT(COUNTERS_PAGE_FAULTS));
		double pf = r.value[COUNTERS_PAGE_FAULTS];
		lo = pf < lo ? pf : lo;
		hi = pf > hi ? pf : hi;
	}
	/* The same program faults about as often every time. */
	assert_true(hi < 2 * lo);
	counters_release(&c);
}

/* Counting the children of the runner process, from this process. */
static void test_through_runner(void **state)
{
	(void)state;
	skip_without(COUNTERS_SOFTWARE);
	struct counters c;
	struct sbuf err = SBUF_INIT;
	counters_init(&c, runner_pid(&runner), COUNTERS_SOFTWARE);
	for (int i = 0; i < 5; i++) {
		const char *argv[] = { KAGARI_HELPER, i == 2 ? "alloc" : "burn",
				       i == 2 ? "50" : "20", NULL };
		struct runner_request q = RUNNER_REQUEST_INIT;
		struct child_result res = CHILD_RESULT_INIT;
		struct counters_reading r;
		q.argv = argv;
		assert_int_equal(counters_begin(&c, &err), 0);
		assert_int_equal(runner_run(&runner, &q, &res, &err), 0);
		assert_int_equal(counters_end(&c, &r, &err), 0);
		assert_true(r.counted & COUNTERS_BIT(COUNTERS_TASK_CLOCK));
		double pf = r.value[COUNTERS_PAGE_FAULTS];
		if (i == 2)
			assert_true(pf >= 12800);
		else
			assert_true(pf < 2000);
		assert_true(r.value[COUNTERS_TASK_CLOCK] >= 15e6);
		child_result_release(&res);
	}
	counters_release(&c);
	sbuf_release(&err);
}

/* The counts of a shell's children are folded into the run's reading. */
static void test_descendants(void **state)
{
	(void)state;
	skip_without(COUNTERS_SOFTWARE);
	struct counters c;
	struct counters_reading r;
	counters_init(&c, 0, COUNTERS_SOFTWARE);
	struct child ch = CHILD_INIT;
	struct sbuf err = SBUF_INIT;
	strvec_push(&ch.argv, "/bin/sh");
	strvec_push(&ch.argv, "-c");
	strvec_push(&ch.argv, "\"$0\" alloc 50; \"$0\" burn 50");
	strvec_push(&ch.argv, KAGARI_HELPER);
	assert_int_equal(counters_begin(&c, &err), 0);
	assert_int_equal(child_run(&ch, &err), 0);
	assert_int_equal(counters_end(&c, &r, &err), 0);
	assert_true(r.value[COUNTERS_PAGE_FAULTS] >= 12800);
	assert_true(r.value[COUNTERS_TASK_CLOCK] >= 45e6);
	child_release(&ch);
	sbuf_release(&err);
	counters_release(&c);
}

static void test_hardware(void **state)
{
	(void)state;
	skip_without(COUNTERS_BIT(COUNTERS_INSTRUCTIONS) |
		     COUNTERS_BIT(COUNTERS_CYCLES));
	struct counters c;
	struct counters_reading a, b;
	counters_init(&c, 0, probe.available);
	const char *small[] = { "work", "1000000", NULL };
	const char *large[] = { "work", "10000000", NULL };
	assert_int_equal(counted_run(&c, &a, small), 0);
	assert_int_equal(counted_run(&c, &b, large), 0);
	assert_true(a.counted & COUNTERS_BIT(COUNTERS_INSTRUCTIONS));
	assert_true(b.value[COUNTERS_INSTRUCTIONS] > 5 * a.value[COUNTERS_INSTRUCTIONS]);
	assert_true(counters_ipc(&b) > 0);
	counters_release(&c);
}

static void test_scale(void **state)
{
	(void)state;
	double share = -1;
	/* Counted all along: the value as read. */
	assert_true(counters_scale(1000, 500, 500, &share) == 1000);
	assert_true(share == 1);
	/* Multiplexed: on a counter half the time, extrapolated. */
	assert_true(counters_scale(1000, 500, 250, &share) == 2000);
	assert_true(share == 0.5);
	assert_true(fabs(counters_scale(300, 1000, 100, &share) - 3000) < 1e-9);
	assert_true(fabs(share - 0.1) < 1e-12);
	/* Never on a counter: not counted, not 0. */
	assert_true(isnan(counters_scale(0, 1000, 0, &share)));
	assert_true(share == 0);
	assert_true(isnan(counters_scale(0, 0, 0, NULL)));
	/* Rounding of the kernel's times never scales down. */
	assert_true(counters_scale(7, 10, 11, &share) == 7);
	assert_true(share == 1);

	struct counters_reading r;
	memset(&r, 0, sizeof(r));
	r.value[COUNTERS_INSTRUCTIONS] = 3000;
	r.value[COUNTERS_CYCLES] = 1500;
	assert_true(isnan(counters_ipc(&r)));
	r.counted = COUNTERS_BIT(COUNTERS_INSTRUCTIONS);
	assert_true(isnan(counters_ipc(&r)));
	r.counted |= COUNTERS_BIT(COUNTERS_CYCLES);
	assert_true(counters_ipc(&r) == 2);
	r.value[COUNTERS_CYCLES] = 0;
	assert_true(isnan(counters_ipc(&r)));
}

static void expect(int errnum, enum counters_event e, int paranoid,
		   const char *const *words)
{
	struct sbuf sb = SBUF_INIT;
	counters_explain(errnum, e, paranoid, &sb);
	for (size_t i = 0; words[i]; i++) {
		if (!strstr(sb.buf, words[i]))
			fail_msg("'%s' lacks '%s'", sb.buf, words[i]);
	}
	/* Messages are lowercase-led, without a final period. */
	assert_true(sb.len > 0 && sb.buf[sb.len - 1] != '.');
	sbuf_release(&sb);
}

static void test_explain(void **state)
{
	(void)state;
	expect(ENOENT, COUNTERS_CYCLES, 2,
	       (const char *const[]){ "'cycles'", "PMU", "virtual machine",
				      "instrument: valgrind", "ENOENT", NULL });
	expect(ENODEV, COUNTERS_INSTRUCTIONS, 2,
	       (const char *const[]){ "'instructions'", "ENODEV", NULL });
	expect(EACCES, COUNTERS_INSTRUCTIONS, 3,
	       (const char *const[]){ "EACCES", "perf_event_paranoid is 3",
				      "sudo sysctl kernel.perf_event_paranoid=1",
				      NULL });
	expect(EPERM, COUNTERS_CYCLES, 4,
	       (const char *const[]){ "EPERM", "perf_event_paranoid is 4",
				      "kernel.perf_event_paranoid=1", NULL });
	/* Allowed by the sysctl, yet refused: the container. */
	expect(EPERM, COUNTERS_CYCLES, 1,
	       (const char *const[]){ "perf_event_paranoid is 1", "seccomp",
				      NULL });
	expect(EACCES, COUNTERS_CYCLES, INT32_MIN,
	       (const char *const[]){ "could not be read", "seccomp", NULL });
	expect(EOPNOTSUPP, COUNTERS_BRANCH_MISSES, 2,
	       (const char *const[]){ "'branch-misses'", "EOPNOTSUPP", NULL });
	expect(EINVAL, COUNTERS_CACHE_MISSES, 2,
	       (const char *const[]){ "'cache-misses'", "EINVAL", NULL });
	expect(ENOSYS, COUNTERS_TASK_CLOCK, 2,
	       (const char *const[]){ "ENOSYS", NULL });
	expect(EMFILE, COUNTERS_TASK_CLOCK, 2,
	       (const char *const[]){ "EMFILE", "ulimit", NULL });
	expect(ENOENT, COUNTERS_PAGE_FAULTS, 2,
	       (const char *const[]){ "'page-faults'", NULL });
	expect(E2BIG, COUNTERS_CYCLES, 2,
	       (const char *const[]){ "'cycles'", strerror(E2BIG), NULL });
}

/* The probe's verdicts match what opening for real gives. */
static void test_probe(void **state)
{
	(void)state;
	for (int e = 0; e < COUNTERS__COUNT; e++) {
		int ok = !!(probe.available & COUNTERS_BIT(e));
		assert_int_equal(ok, probe.err[e] == 0);
		assert_int_equal(ok, probe.why[e] == NULL);
		print_message("%-14s %s\n", counters_event_name((enum counters_event)e),
			      ok ? "opens" : probe.why[e]);
		struct counters c;
		struct sbuf err = SBUF_INIT;
		counters_init(&c, 0, COUNTERS_BIT(e));
		assert_int_equal(counters_begin(&c, &err) == 0, ok);
		if (!ok)
			assert_string_equal(err.buf, probe.why[e]);
		for (int k = 0; k < COUNTERS__COUNT; k++)
			assert_int_equal(c.fd[k] >= 0, ok && k == e);
		counters_release(&c);
		sbuf_release(&err);
	}
	assert_true(counters_event_hardware(COUNTERS_CYCLES));
	assert_false(counters_event_hardware(COUNTERS_TASK_CLOCK));
	assert_string_equal(counters_event_name(COUNTERS_BRANCH_MISSES),
			    "branch-misses");
}

/* A process that is gone: explained, nothing left open. */
static void test_begin_fails(void **state)
{
	(void)state;
	skip_without(COUNTERS_SOFTWARE);
	struct counters c;
	struct sbuf err = SBUF_INIT;
	pid_t gone = (pid_t)0x3ffffff0;
	counters_init(&c, gone, COUNTERS_SOFTWARE);
	assert_int_equal(counters_begin(&c, &err), -1);
	assert_non_null(strstr(err.buf, "'task-clock'"));
	for (int k = 0; k < COUNTERS__COUNT; k++)
		assert_int_equal(c.fd[k], -1);
	/* Nothing asked: nothing opened, nothing counted. */
	struct counters none;
	struct counters_reading r;
	counters_init(&none, 0, 0);
	assert_int_equal(counters_begin(&none, &err), 0);
	assert_int_equal(counters_end(&none, &r, &err), 0);
	assert_int_equal(r.counted, 0);
	counters_release(&c);
	sbuf_release(&err);
}

/* `test_counters` runs everything that software events can test;
   `test_counters hardware` (its own CTest entry) the PMU-only assertions,
   skipped as a whole where there is no PMU. */
int main(int argc, char **argv)
{
	int hardware = argc > 1 && strcmp(argv[1], "hardware") == 0;
	struct sbuf err = SBUF_INIT;
	if (runner_start(&runner, &err)) {
		fprintf(stderr, "cannot start the runner: %s\n", err.buf);
		return 1;
	}
	sbuf_release(&err);
	counters_probe(&probe, 0);
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_scale),
		cmocka_unit_test(test_explain),
		cmocka_unit_test(test_probe),
		cmocka_unit_test(test_task_clock),
		cmocka_unit_test(test_page_faults),
		cmocka_unit_test(test_per_run),
		cmocka_unit_test(test_through_runner),
		cmocka_unit_test(test_descendants),
		cmocka_unit_test(test_begin_fails),
	};
	const struct CMUnitTest hardware_tests[] = {
		cmocka_unit_test(test_hardware),
	};
	int failed = hardware ? cmocka_run_group_tests(hardware_tests, NULL, NULL)
			      : cmocka_run_group_tests(tests, NULL, NULL);
	counters_probe_release(&probe);
	runner_stop(&runner);
	return test_skip_status(failed);
}
