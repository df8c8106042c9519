/*
 * overhead_floor: the cost of the barest possible measured run, to compare
 * kagari's per-run overhead against.
 *
 * It times REPS repetitions of RUNS iterations of posix_spawn(PROGRAM) +
 * wait4() (no pipes, no timeouts, no process groups) and prints the median
 * and range of the per-run cost in microseconds. Standalone on purpose: it
 * depends on nothing of kagari.
 *
 * Build and run:
 *	cc -O2 -o /tmp/overhead_floor bench/overhead_floor.c
 *	/tmp/overhead_floor [REPS [RUNS [PROGRAM]]]   (default 5 1000 /bin/true)
 */
#define _GNU_SOURCE
#include <spawn.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <time.h>

extern char **environ;

static double now_s(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

static int by_value(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;
	return (x > y) - (x < y);
}

int main(int argc, char **argv)
{
	int reps = argc > 1 ? atoi(argv[1]) : 5;
	int runs = argc > 2 ? atoi(argv[2]) : 1000;
	char *prog = argc > 3 ? argv[3] : "/bin/true";
	char *args[] = {prog, NULL};
	if (reps < 1 || reps > 1000 || runs < 1) {
		fprintf(stderr,
			"usage: overhead_floor [REPS [RUNS [PROGRAM]]]\n");
		return 2;
	}
	double *per_run = calloc((size_t)reps, sizeof(*per_run));
	if (!per_run)
		return 1;
	for (int r = 0; r < reps; r++) {
		double t0 = now_s();
		for (int i = 0; i < runs; i++) {
			pid_t pid;
			int status;
			struct rusage ru;
			if (posix_spawn(&pid, prog, NULL, NULL, args,
					environ)) {
				perror(prog);
				return 1;
			}
			if (wait4(pid, &status, 0, &ru) != pid) {
				perror("wait4");
				return 1;
			}
		}
		per_run[r] = (now_s() - t0) / runs * 1e6;
	}
	qsort(per_run, (size_t)reps, sizeof(*per_run), by_value);
	printf("posix_spawn+wait4 %s: median %.1f us/run (min %.1f, max %.1f; "
	       "%d x %d runs)\n",
	       prog, per_run[reps / 2], per_run[0], per_run[reps - 1], reps,
	       runs);
	free(per_run);
	return 0;
}
