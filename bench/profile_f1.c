/*
 * profile_f1: the proof of the profile analysis, the way Reichelt and
 * Skarbalius (ICPE 2026) measured change-detection exactness — natively.
 * Driven by bench/profile.sh, which builds bench/profile_tree.c per depth d
 * into DIR/tree_d<d>; the change is its run-time flag `-d DELTA`, so base
 * and head run the very same binary (code placement cannot differ), and
 * head runs are interleaved with base runs over the whole sampling period
 * (sampling the heads in one stretch let the machine's load drift between
 * the sides and flag every leaf; docs/profiles.md).
 *
 *	kagari-profile-f1 DIR [POOL [FREQUENCY [DELTAS [DEPTHS]]]]
 *
 * DELTAS and DEPTHS are comma-separated lists (default 1,2,3,5 and
 * 2,4,6,8); DEPTHS "-" measures only the overhead.
 *
 * Per depth: POOL sampled runs of each head variant (delta 1, 2, 3, 5) and
 * 2 * POOL of the base (delta 0), interleaved, each through the real
 * sampler (sample.h, the event the probe picks: cpu-clock without a PMU)
 * and symbolizer; the CPU time per run from wait4. Then, per number of
 * runs n, TRIALS trials draw n base and n head runs (without replacement)
 * as n rounds and run profile_analyze(): a trial with a change is a true
 * positive when the slow leaf is `grew`, a false negative when not, and
 * adds a false positive when any other function is `grew` or `shrank`; a
 * trial without a change (n base runs against n other base runs) is a
 * false positive when anything is flagged. F1 = 2TP / (2TP + FP + FN).
 * It prints F1 per depth, delta and n, then the table "runs needed for F1
 * >= 98%" (the smallest n that reaches it; "> max" when none does).
 *
 * Last, the overhead: the depth-4 base, timed runs alternating sampling on
 * and off; median wall times and the child's CPU times, their ratio, and
 * a two-sided Mann-Whitney p each.
 */
#include <math.h>
#include <spawn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "analyze/exact.h"
#include "analyze/profile.h"
#include "model/rng.h"
#include "base/sbuf.h"
#include "measure/sample.h"
#include "measure/symbols.h"

extern char **environ;

/* Defaults; argv[4] and argv[5] may replace them ("10,20", "2,4"). */
static int depths[8] = { 2, 4, 6, 8 };
static int deltas[8] = { 1, 2, 3, 5 };
static int NDEPTH = 4, NDELTA = 4;
static const int ns[] = { 2, 3, 4, 6, 8, 10, 12, 16, 20, 24, 32 };
#define NN (sizeof(ns) / sizeof(ns[0]))
#define TRIALS 40
#define SLOW_LEAF 1

static struct sample_probe probe;
static unsigned freq = SAMPLE_DEFAULT_FREQ;

struct pool {
	struct profile_set ps; /* every run as side HEAD, round = index */
	size_t nr;
};

static double last_cpu; /* CPU seconds of the last run_once() child */

static double now(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

/*
 * Run `prog -d DELTA` once; sampled into pool when pool != NULL. Wall
 * seconds. Base and head are the same binary, so that the slow leaf's code
 * and its placement are identical on both sides and only the work differs.
 */
static double run_once(const char *prog, int delta, struct pool *pool,
		       struct symbols *sy)
{
	struct sampler s = SAMPLER_INIT;
	struct sbuf err = SBUF_INIT;
	if (pool && sampler_begin(&s, &probe, 0, freq, &err)) {
		fprintf(stderr, "sampling: %s\n", err.buf);
		exit(1);
	}
	char dstr[16];
	snprintf(dstr, sizeof(dstr), "%d", delta);
	char *argv[] = { (char *)prog, (char *)"-d", dstr, NULL };
	pid_t pid;
	double t0 = now();
	if (posix_spawn(&pid, prog, NULL, NULL, argv, environ)) {
		perror(prog);
		exit(1);
	}
	int st;
	struct rusage ru;
	wait4(pid, &st, 0, &ru);
	double wall = now() - t0;
	last_cpu = (double)(ru.ru_utime.tv_sec + ru.ru_stime.tv_sec) +
		   (double)(ru.ru_utime.tv_usec + ru.ru_stime.tv_usec) * 1e-6;
	if (!WIFEXITED(st) || WEXITSTATUS(st)) {
		fprintf(stderr, "%s failed\n", prog);
		exit(1);
	}
	if (pool) {
		struct sample_data d;
		sampler_end(&s, &d, &err);
		double cpu = (double)(ru.ru_utime.tv_sec + ru.ru_stime.tv_sec) * 1e9 +
			     (double)(ru.ru_utime.tv_usec + ru.ru_stime.tv_usec) * 1e3;
		struct profile_run *r = profile_run_add(&pool->ps, PROFILE_HEAD,
							(int)pool->nr, cpu);
		symbols_aggregate(sy, &d, &pool->ps, r);
		sample_data_release(&d);
		pool->nr++;
	}
	sampler_release(&s);
	sbuf_release(&err);
	return wall;
}

/* Copy run `i` of pool into ps as (side, round). */
static void copy_run(struct profile_set *ps, const struct pool *pool, size_t i,
		     int side, int round)
{
	const struct profile_run *src = &pool->ps.runs[i];
	struct profile_run *r = profile_run_add(ps, side, round, src->cpu_ns);
	r->samples = src->samples;
	for (size_t k = 0; k < src->nr; k++) {
		const struct profile_func *f = &pool->ps.funcs[src->counts[k].func];
		size_t fn = profile_func_intern(ps, f->function, f->binary);
		profile_run_count_add(r, fn, src->counts[k].self,
				      src->counts[k].incl);
	}
}

/* Draw k distinct indexes below n into out. */
static void draw(struct rng *rng, size_t n, size_t k, size_t *out)
{
	size_t *all = malloc(n * sizeof(size_t));
	for (size_t i = 0; i < n; i++)
		all[i] = i;
	rng_shuffle(rng, all, n, sizeof(size_t));
	memcpy(out, all, k * sizeof(size_t));
	free(all);
}

/* Analyze one trial; returns flags: 1 = slow leaf grew, 2 = other flagged */
static int trial(const struct pool *a, const size_t *ia, const struct pool *b,
		 const size_t *ib, size_t n, const char *slow)
{
	struct profile_set ps = PROFILE_SET_INIT;
	for (size_t k = 0; k < n; k++) {
		copy_run(&ps, a, ia[k], PROFILE_BASE, (int)k + 1);
		copy_run(&ps, b, ib[k], PROFILE_HEAD, (int)k + 1);
	}
	profile_analyze(&ps, 0.95);
	int out = 0;
	for (size_t i = 0; i < ps.nr_changes; i++) {
		const struct profile_change *c = &ps.changes[i];
		if (c->verdict != PROFILE_GREW && c->verdict != PROFILE_SHRANK)
			continue;
		if (c->verdict == PROFILE_GREW &&
		    !strcmp(ps.funcs[c->func].function, slow))
			out |= 1;
		else
			out |= 2;
	}
	profile_set_release(&ps);
	return out;
}

/* "1,2,3" into v[0..8); the count, or -1 when malformed. */
static int parse_list(const char *s, int *v, int lo, int hi)
{
	int n = 0;
	while (*s) {
		char *end;
		long x = strtol(s, &end, 10);
		if (end == s || x < lo || x > hi || n == 8 || (*end && *end != ','))
			return -1;
		v[n++] = (int)x;
		s = *end ? end + 1 : end;
	}
	return n;
}

static int cmp_double(const void *x, const void *y)
{
	double a = *(const double *)x, b = *(const double *)y;
	return a < b ? -1 : a > b;
}

int main(int argc, char **argv)
{
	if (argc < 2) {
		fprintf(stderr, "usage: %s DIR [POOL]\n", argv[0]);
		return 2;
	}
	const char *dir = argv[1];
	size_t pool_n = argc > 2 ? (size_t)atoi(argv[2]) : 12;
	if (argc > 3)
		freq = (unsigned)atoi(argv[3]);
	if (pool_n < 2 || pool_n > 32 || freq < 1) {
		fprintf(stderr, "POOL must be 2..32, FREQUENCY positive\n");
		return 2;
	}
	if (argc > 4)
		NDELTA = parse_list(argv[4], deltas, 0, 1000);
	if (argc > 5)
		NDEPTH = !strcmp(argv[5], "-") ? 0 : parse_list(argv[5], depths, 0, 8);
	if (NDELTA < 1 || NDEPTH < 0) {
		fprintf(stderr, "DELTAS and DEPTHS: up to 8 comma-separated "
				"whole numbers (depths 0..8)\n");
		return 2;
	}
	sample_probe(&probe, 0);
	if (!probe.ok) {
		fprintf(stderr, "sampling does not work here: %s\n", probe.why);
		return 77;
	}
	printf("event %s at %u Hz; pool %zu runs per head variant, %zu base; "
	       "%d trials per cell\n",
	       probe.name, freq, pool_n, 2 * pool_n, TRIALS);
	struct rng rng;
	rng_seed(&rng, 20260504);
	int needed[8][8];
	struct symbols *sy = symbols_new();
	if (!NDEPTH)
		goto skip_f1;
	for (int di = 0; di < NDEPTH; di++) {
		int d = depths[di];
		struct pool base = { PROFILE_SET_INIT, 0 }, head[8];
		char prog[4096];
		double t0 = now();
		for (int x = 0; x < NDELTA; x++)
			head[x] = (struct pool){ PROFILE_SET_INIT, 0 };
		snprintf(prog, sizeof(prog), "%s/tree_d%d", dir, d);
		for (size_t i = 0; i < 2 * pool_n; i++) {
			run_once(prog, 0, &base, sy);
			/* Head runs every other base run, so that both pools
			   span the same stretch of the machine's load. */
			if (i % 2)
				continue;
			for (int x = 0; x < NDELTA; x++)
				run_once(prog, deltas[x], &head[x], sy);
		}
		uint64_t lost = 0, samples = 0;
		for (size_t i = 0; i < base.ps.nr_runs; i++)
			samples += base.ps.runs[i].samples;
		(void)lost;
		char slow[64];
		snprintf(slow, sizeof(slow), "leaf_1");
		for (int bit = d - 1; bit >= 0; bit--)
			strncat(slow, (SLOW_LEAF >> bit) & 1 ? "1" : "0", 2);
		printf("\ndepth %d (slow leaf %s): sampled %.0f s, %.0f samples "
		       "per base run\n",
		       d, slow, now() - t0,
		       (double)samples / (double)base.ps.nr_runs);
		printf("  n   ");
		for (int x = 0; x < NDELTA; x++)
			printf("  F1 +%d%%", deltas[x]);
		printf("  (FP rate A/A)\n");
		for (int x = 0; x < NDELTA; x++)
			needed[di][x] = 0;
		size_t ia[64], ib[64];
		for (size_t k = 0; k < NN && (size_t)ns[k] <= pool_n; k++) {
			size_t n = (size_t)ns[k];
			/* negatives: n base against n other base runs */
			int fp0 = 0;
			for (int t = 0; t < TRIALS; t++) {
				size_t both[128];
				draw(&rng, base.nr, 2 * n, both);
				if (trial(&base, both, &base, both + n, n, slow))
					fp0++;
			}
			printf("  %-3zu ", n);
			for (int x = 0; x < NDELTA; x++) {
				int tp = 0, fn = 0, fp = fp0;
				for (int t = 0; t < TRIALS; t++) {
					draw(&rng, base.nr, n, ia);
					draw(&rng, head[x].nr, n, ib);
					int r = trial(&base, ia, &head[x], ib, n, slow);
					if (r & 1)
						tp++;
					else
						fn++;
					if (r & 2)
						fp++;
				}
				double f1 = 2.0 * tp / (2.0 * tp + fp + fn);
				printf("  %6.3f", f1);
				if (f1 >= 0.98 && !needed[di][x])
					needed[di][x] = (int)n;
			}
			printf("  (%d/%d)\n", fp0, TRIALS);
			fflush(stdout);
		}
		profile_set_release(&base.ps);
		for (int x = 0; x < NDELTA; x++)
			profile_set_release(&head[x].ps);
	}
	printf("\nruns needed for F1 >= 98%% (per side; '>%zu' = not reached "
	       "with the pool)\n",
	       pool_n);
	printf("depth");
	for (int x = 0; x < NDELTA; x++)
		printf("   +%d%%", deltas[x]);
	printf("\n");
	for (int di = 0; di < NDEPTH; di++) {
		printf("%5d", depths[di]);
		for (int x = 0; x < NDELTA; x++) {
			if (needed[di][x])
				printf("  %4d", needed[di][x]);
			else
				printf("  >%-3zu", pool_n);
		}
		printf("\n");
	}

skip_f1:
	/* Overhead: timed runs with sampling on against off, alternating;
	   wall time, and the child's own CPU time (what the sampled program
	   pays, without the runner side's draining thread). */
	enum { OVR = 30 };
	double on[OVR], off[OVR], con[OVR], coff[OVR];
	char prog[4096];
	snprintf(prog, sizeof(prog), "%s/tree_d4", dir);
	struct pool scratch = { PROFILE_SET_INIT, 0 };
	for (int i = 0; i < OVR; i++) {
		for (int k = 0; k < 2; k++) {
			if ((k == 0) == (i % 2 == 0)) {
				on[i] = run_once(prog, 0, &scratch, sy);
				con[i] = last_cpu;
			} else {
				off[i] = run_once(prog, 0, NULL, sy);
				coff[i] = last_cpu;
			}
		}
	}
	profile_set_release(&scratch.ps);
	double *pairs[2][2] = { { on, off }, { con, coff } };
	const char *what[2] = { "wall", "child CPU" };
	printf("\noverhead (depth 4, %d timed runs each, alternating):\n", OVR);
	for (int w = 0; w < 2; w++) {
		double *a = pairs[w][0], *b = pairs[w][1];
		double pg = exact_mann_whitney_p(a, OVR, b, OVR, NULL);
		double pl = exact_mann_whitney_p(b, OVR, a, OVR, NULL);
		double p = 2 * (pg < pl ? pg : pl);
		qsort(a, OVR, sizeof(double), cmp_double);
		qsort(b, OVR, sizeof(double), cmp_double);
		double ma = (a[OVR / 2 - 1] + a[OVR / 2]) / 2;
		double mb = (b[OVR / 2 - 1] + b[OVR / 2]) / 2;
		printf("  median %-9s %.1f ms sampled vs %.1f ms not: %+.2f%%, "
		       "Mann-Whitney two-sided p = %.3f\n",
		       what[w], ma * 1e3, mb * 1e3, (ma / mb - 1) * 100,
		       p > 1 ? 1 : p);
	}
	symbols_free(sy);
	sample_probe_release(&probe);
	return 0;
}
