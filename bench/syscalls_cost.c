/*
 * bench/syscalls_cost: what counting system calls (measure/syscalls.h)
 * costs a run. Runs a command RUNS times plain and RUNS times with the
 * syscall tracepoints open on this process (as kagari opens them on its
 * runner), interleaved, and prints the median wall time of each, their
 * ratio, and the counted total and top names of the last counted run.
 *
 *   kagari-bench-syscalls RUNS COMMAND [ARG]...
 *
 * Built with the tests; bench/counts.sh runs it.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/sbuf.h"
#include "base/strvec.h"
#include "base/xalloc.h"
#include "measure/syscalls.h"
#include "proc/child.h"

static int cmp_i64(const void *a, const void *b)
{
	int64_t x = *(const int64_t *)a, y = *(const int64_t *)b;
	return x < y ? -1 : x > y;
}

static double median_ms(int64_t *v, int n)
{
	qsort(v, (size_t)n, sizeof(*v), cmp_i64);
	double m = n % 2 ? (double)v[n / 2] : ((double)v[n / 2 - 1] + (double)v[n / 2]) / 2;
	return m / 1e6;
}

/* One run of argv; its wall time in ns, or -1. */
static int64_t run_once(char **argv)
{
	struct child c = CHILD_INIT;
	struct sbuf err = SBUF_INIT;
	for (char **a = argv; *a; a++)
		strvec_push(&c.argv, *a);
	c.in = CHILD_IN_NULL;
	int64_t wall = child_run(&c, &err) == 0 ? c.res.wall_ns : -1;
	if (wall < 0)
		fprintf(stderr, "the command failed: %s\n", err.buf);
	child_release(&c);
	sbuf_release(&err);
	return wall;
}

int main(int argc, char **argv)
{
	if (argc < 3) {
		fprintf(stderr, "usage: %s RUNS COMMAND [ARG]...\n", argv[0]);
		return 2;
	}
	int runs = atoi(argv[1]);
	if (runs < 1 || runs > 10000)
		return 2;
	struct syscalls_probe p;
	syscalls_probe(&p);
	if (!p.ok) {
		fprintf(stderr, "%s\n", p.why);
		syscalls_probe_release(&p);
		return 6;
	}
	int64_t *plain = xcalloc((size_t)runs, sizeof(*plain));
	int64_t *counted = xcalloc((size_t)runs, sizeof(*counted));
	uint64_t *counts = xcalloc(p.nr + 1, sizeof(*counts));
	uint64_t total = 0;
	struct sbuf err = SBUF_INIT;
	/* One counted run first: the tracepoints' one-time registration. */
	for (int i = -1; i < runs; i++) {
		struct syscalls_counter c = SYSCALLS_COUNTER_INIT;
		if (syscalls_begin(&c, &p, 0, &err)) {
			fprintf(stderr, "%s\n", err.buf);
			return 1;
		}
		int64_t w = run_once(argv + 2);
		if (syscalls_end(&c, &total, counts, &err)) {
			fprintf(stderr, "%s\n", err.buf);
			return 1;
		}
		syscalls_release(&c);
		int64_t q = run_once(argv + 2);
		if (w < 0 || q < 0)
			return 1;
		if (i >= 0) {
			counted[i] = w;
			plain[i] = q;
		}
	}
	double mp = median_ms(plain, runs), mc = median_ms(counted, runs);
	printf("%-10s %10.3f ms\n", "plain", mp);
	printf("%-10s %10.3f ms\n", "counted", mc);
	printf("%-10s %10.2fx\n", "ratio", mc / mp);
	printf("%-10s %10llu system calls in the last counted run", "total",
	       (unsigned long long)total);
	size_t best = 0;
	for (size_t i = 1; i < p.nr; i++)
		if (counts[i] > counts[best])
			best = i;
	if (p.nr)
		printf(" (most: %s %llu)", p.names[best], (unsigned long long)counts[best]);
	printf("\n");
	free(plain);
	free(counted);
	free(counts);
	sbuf_release(&err);
	syscalls_probe_release(&p);
	return 0;
}
