/*
 * bench/history: how long the history takes with 10,000 stored runs.
 *
 * Appends RUNS runs (default 10,000) through history_append() — the code
 * `run` and `compare` use — to a fresh database: 1 suite, 5 benchmarks of
 * 2 commands, latency and allocs on the head side (20 result rows a run),
 * 2,000 commits of 5 runs each, on 2 machines, with a +20 % latency step
 * planted at commit 1,200 of benchmark b0. Then times the queries
 * `kagari history` and `--shard` make (history_query of everything and of
 * one metric, history_expected_ms of all 10 commands, the run count) and
 * the step detection over every series, and prints a table. bench/history.sh
 * builds it and also times `kagari history --format json` end to end.
 *
 * With SHAS (a file of 40-hex commit ids, one a line, oldest first: a
 * repository's first-parent line, bench/history.sh makes one) commit k
 * is the k-th id, and every fifth run is a `ci` of its commit against
 * the one before, with a paired comparison of latency (a regression at
 * the planted step, a pass elsewhere): what `kagari history`, `history
 * check` and the site read at scale.
 *
 *   ./history DB-PATH [RUNS [SHAS]]
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "base/sbuf.h"
#include "base/xalloc.h"
#include "history/history.h"
#include "history/steps.h"
#include "model/result.h"
#include "model/rng.h"

#define BENCHES 5
#define COMMANDS 2
#define RUNS_PER_COMMIT 5

static double now_ms(void)
{
	struct timespec t;
	clock_gettime(CLOCK_MONOTONIC, &t);
	return t.tv_sec * 1e3 + t.tv_nsec / 1e6;
}

static void make_run(struct run_result *r, struct rng *g, int commit, int paired)
{
	run_result_init(r);
	r->mode = xstrdup("run");
	r->seed = (uint64_t)commit;
	r->started_at = xstrfmt("2026-01-01T00:00:%06d.000Z", commit);
	r->finished_at = xstrdup(r->started_at);
	r->nr_suites = 1;
	r->suites = xcalloc(1, sizeof(*r->suites));
	struct suite_result *s = &r->suites[0];
	s->name = xstrdup("s");
	s->file = xstrdup("kagari.yaml");
	s->nr_benches = BENCHES;
	s->benches = xcalloc(BENCHES, sizeof(*s->benches));
	for (int b = 0; b < BENCHES; b++) {
		struct bench_result *br = &s->benches[b];
		br->name = xstrfmt("b%d", b);
		br->nr_commands = COMMANDS;
		br->commands = xcalloc(COMMANDS, sizeof(*br->commands));
		for (int c = 0; c < COMMANDS; c++) {
			struct command_result *cr = &br->commands[c];
			cr->name = xstrfmt("c%d", c);
			cr->result = RESULT_PASS;
			cr->side[SIDE_HEAD].present = 1;
			cr->side[SIDE_HEAD].count = 10;
			double level = 1e6 * (1 + b) * (b == 0 && commit >= 1200 ? 1.2 : 1);
			struct metric_series *m = &cr->side[SIDE_HEAD].metric[METRIC_LATENCY];
			m->status = MSTATUS_OK;
			m->have_summary = 1;
			m->summary.count = 10;
			m->summary.median = level * (1 + 0.02 * (rng_uniform(g) - 0.5));
			m->summary.mean = m->summary.median;
			m->summary.min = m->summary.max = m->summary.median;
			if (paired) {
				struct comparison *cp = &cr->comparison[METRIC_LATENCY];
				int step = b == 0 && commit == 1200;
				cp->present = 1;
				cp->verdict = step ? VERDICT_REGRESSION : VERDICT_PASS;
				cp->change_percent = step ? 20 : 0.1;
				cp->ci_low_percent = cp->change_percent - 1;
				cp->ci_high_percent = cp->change_percent + 1;
				cp->mean_change_percent = cp->change_percent;
				cp->mean_ci_low_percent = cp->ci_low_percent;
				cp->mean_ci_high_percent = cp->ci_high_percent;
				cp->p_value = step ? 0.001 : 0.8;
				cp->max_percent = 5;
				cp->gate = 1;
			}
			m = &cr->side[SIDE_HEAD].metric[METRIC_ALLOCS];
			m->status = MSTATUS_OK;
			m->have_summary = 1;
			m->summary.count = 10;
			m->summary.median = m->summary.mean = 1000 + b;
		}
	}
}

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;
	return x < y ? -1 : x > y;
}

/* A standard normal draw (Box-Muller). */
static double gauss(struct rng *g)
{
	double u = rng_uniform(g), v = rng_uniform(g);
	return sqrt(-2 * log(1 - u)) * cos(2 * M_PI * v);
}

/*
 * Series that make many steps, the step detector's worst case (placing
 * each step weighs the points about it against the series' noise): 20
 * series of 2,000 commits of 3 runs, points with 1 % noise and runs 0.5 %
 * about them, as `kagari history` hands them to steps_find_points(). Kind
 * 0: a drift of +0.02 % a commit; 1: a new level (sd 10 %) every 50
 * commits; 2: a staircase of +5 % every 20 commits; 3: every 5. Prints
 * the time of steps_find_points() over the 20, the best of 3.
 */
#define ADV_SERIES 20
#define ADV_COMMITS 2000
#define ADV_RUNS 3
static void adversarial(int kind)
{
	static const char *name[] = {"  drift +0.02 %/commit", "  a new level every 50 commits",
				     "  +5 % every 20 commits", "  +5 % every 5 commits"};
	struct rng g;
	rng_seed(&g, 41 + (uint64_t)kind);
	struct steps_point *p = xcalloc((size_t)ADV_SERIES * ADV_COMMITS, sizeof(*p));
	double *runs = xcalloc((size_t)ADV_SERIES * ADV_COMMITS * ADV_RUNS, sizeof(*runs));
	for (size_t s = 0; s < ADV_SERIES; s++) {
		double level = 1;
		for (size_t i = 0; i < ADV_COMMITS; i++) {
			if (kind == 0)
				level = 1 + 0.0002 * (double)i;
			else if (kind == 1 && i % 50 == 0)
				level = exp(0.1 * gauss(&g));
			else if (i && i % (kind == 2 ? 20 : 5) == 0 && kind >= 2)
				level *= 1.05;
			double x = 100 * level * (1 + 0.01 * gauss(&g)), t[ADV_RUNS];
			double *r = runs + (s * ADV_COMMITS + i) * ADV_RUNS;
			for (size_t j = 0; j < ADV_RUNS; j++)
				t[j] = r[j] = x * (1 + 0.005 * gauss(&g));
			qsort(t, ADV_RUNS, sizeof(*t), cmp_double);
			p[s * ADV_COMMITS + i] = (struct steps_point){t[ADV_RUNS / 2], r, ADV_RUNS};
		}
	}
	double best = INFINITY;
	size_t found = 0;
	for (int rep = 0; rep < 3; rep++) {
		double a = now_ms();
		found = 0;
		for (size_t s = 0; s < ADV_SERIES; s++) {
			struct step *st;
			size_t ns;
			steps_find_points(p + s * ADV_COMMITS, ADV_COMMITS, 2, 1, &st, &ns, NULL);
			found += ns;
			free(st);
		}
		double t = now_ms() - a;
		best = t < best ? t : best;
	}
	printf("%-44s %9.1f ms  (%zu steps in %d series of %d commits)\n", name[kind], best, found,
	       ADV_SERIES, ADV_COMMITS);
	free(p);
	free(runs);
}

/* The commit number of sha: its line in the ids given, else its hex. */
static unsigned long commit_of(const char **line, size_t nr, const char *sha)
{
	for (size_t k = 0; k < nr; k++)
		if (!strcmp(line[k], sha))
			return k;
	return strtoul(sha, NULL, 16);
}

int main(int argc, char **argv)
{
	if (argc < 2) {
		fprintf(stderr, "usage: %s DB-PATH [RUNS]\n", argv[0]);
		return 2;
	}
	int runs = argc > 2 ? atoi(argv[2]) : 10000;
	struct sbuf err = SBUF_INIT, shas = SBUF_INIT;
	/* The commit ids, when given: commit k is line k. */
	const char **line = xcalloc((size_t)runs / RUNS_PER_COMMIT + 2, sizeof(*line));
	size_t nr_line = 0;
	if (argc > 3) {
		if (sbuf_read_file(&shas, argv[3], 1 << 26)) {
			fprintf(stderr, "cannot read %s\n", argv[3]);
			return 1;
		}
		for (char *s = shas.buf, *nl;
		     s && *s && nr_line < (size_t)runs / RUNS_PER_COMMIT + 1; s = nl + 1) {
			if (!(nl = strchr(s, '\n')))
				break;
			*nl = '\0';
			line[nr_line++] = s;
		}
	}
	struct history *h;
	if (history_open(argv[1], 10000, &h, &err)) {
		fprintf(stderr, "%s\n", err.buf);
		return 1;
	}
	struct history_machine m[2] = {
	    {"aaaaaaaaaaaaaaaa", "1111111111111111", "CPU A", 8, "x86_64"},
	    {"bbbbbbbbbbbbbbbb", "2222222222222222", "CPU B", 4, "x86_64"},
	};
	struct rng g;
	rng_seed(&g, 1);
	double t0 = now_ms(), worst = 0;
	double *each = xcalloc((size_t)runs, sizeof(*each));
	for (int i = 0; i < runs; i++) {
		int commit = i / RUNS_PER_COMMIT;
		int paired =
		    nr_line && commit > 0 && (size_t)commit < nr_line && i % RUNS_PER_COMMIT == 0;
		struct run_result r;
		make_run(&r, &g, commit, paired);
		char sha[41];
		snprintf(sha, sizeof(sha), "%040x", commit);
		struct history_record rec = {.kind = paired ? "ci" : "run",
					     .head_sha =
						 (size_t)commit < nr_line ? line[commit] : sha,
					     .base_sha = paired ? line[commit - 1] : NULL,
					     .dirty = 0,
					     .branch = "main",
					     .exit_code = 0};
		double a = now_ms();
		if (history_append(h, &rec, &m[i % 10 == 9], &r, NULL, &err) < 0) {
			fprintf(stderr, "%s\n", err.buf);
			return 1;
		}
		each[i] = now_ms() - a;
		if (each[i] > worst)
			worst = each[i];
		run_result_release(&r);
	}
	double total = now_ms() - t0;
	qsort(each, (size_t)runs, sizeof(*each), cmp_double);
	printf("%-44s %12s\n", "operation", "time");
	printf("%-44s %9.3f ms\n", "append one run (median)", each[runs / 2]);
	printf("%-44s %9.3f ms\n", "append one run (p99)", each[(size_t)(runs * 0.99)]);
	printf("%-44s %9.0f ms\n", "append all runs", total);

	struct history_points p = {0};
	double a = now_ms();
	history_query(h, NULL, NULL, &p, &err);
	double q_all = now_ms() - a;
	size_t n_all = p.nr;
	history_points_release(&p);
	a = now_ms();
	history_query(h, NULL, "latency", &p, &err);
	double q_one = now_ms() - a;
	/* Step detection per series as `kagari history` does (one point per
	   commit: here the median of each commit's runs on machine A). */
	a = now_ms();
	size_t steps_found = 0, series = 0, at_1200 = 0;
	for (size_t i = 0; i < p.nr;) {
		size_t j = i;
		while (j < p.nr && !strcmp(p.v[j].benchmark, p.v[i].benchmark) &&
		       !strcmp(p.v[j].command, p.v[i].command) &&
		       !strcmp(p.v[j].fingerprint, p.v[i].fingerprint))
			j++;
		double *y = xcalloc(j - i, sizeof(*y));
		const char **sha = xcalloc(j - i, sizeof(*sha));
		size_t n = 0;
		for (size_t k = i; k < j;) {
			size_t e = k;
			while (e < j && !strcmp(p.v[e].sha, p.v[k].sha))
				e++;
			double v[RUNS_PER_COMMIT * 2];
			size_t nv = 0;
			for (size_t q = k; q < e && nv < RUNS_PER_COMMIT * 2; q++)
				v[nv++] = p.v[q].median;
			qsort(v, nv, sizeof(*v), cmp_double);
			sha[n] = p.v[k].sha;
			y[n++] = nv % 2 ? v[nv / 2] : (v[nv / 2 - 1] + v[nv / 2]) / 2;
			k = e;
		}
		struct step *st;
		size_t ns;
		steps_find(y, n, 2, 1, &st, &ns);
		steps_found += ns;
		/* Machine B measured every other commit: its step is right if
		   it lies between its last commit before 1200 and its first after. */
		for (size_t k = 0; k < ns; k++)
			at_1200 += commit_of(line, nr_line, sha[st[k].at]) >= 1200 &&
				   commit_of(line, nr_line, sha[st[k].at - 1]) < 1200;
		free(st);
		free(y);
		free(sha);
		series++;
		i = j;
	}
	double t_steps = now_ms() - a;
	history_points_release(&p);
	const char *suites[BENCHES * COMMANDS], *benches[BENCHES * COMMANDS],
	    *cmds[BENCHES * COMMANDS];
	char names[BENCHES * COMMANDS][2][8];
	for (int i = 0; i < BENCHES * COMMANDS; i++) {
		snprintf(names[i][0], 8, "b%d", i / COMMANDS);
		snprintf(names[i][1], 8, "c%d", i % COMMANDS);
		suites[i] = "s";
		benches[i] = names[i][0];
		cmds[i] = names[i][1];
	}
	double ms[BENCHES * COMMANDS];
	a = now_ms();
	history_expected_ms(h, "aaaaaaaaaaaaaaaa", suites, benches, cmds, BENCHES * COMMANDS, ms,
			    &err);
	double t_exp = now_ms() - a;
	a = now_ms();
	int64_t count = history_count_runs(h, &err);
	double t_count = now_ms() - a;
	printf("%-44s %9.1f ms  (%zu points)\n", "query every series (all metrics)", q_all, n_all);
	printf("%-44s %9.1f ms\n", "query one metric (latency)", q_one);
	printf("%-44s %9.1f ms  (%zu series, %zu steps, %zu at the planted commit)\n",
	       "find steps in every latency series", t_steps, series, steps_found, at_1200);
	printf("%-44s %12s\n", "", "(planted: b0/c0, b0/c1 on 2 machines = 4)");
	printf("%-44s %9.1f ms\n", "expected time of 10 commands (--shard)", t_exp);
	printf("%-44s %9.1f ms  (%lld runs)\n", "count the runs", t_count, (long long)count);
	printf("find steps, series made of steps:\n");
	for (int kind = 0; kind < 4; kind++)
		adversarial(kind);
	free(each);
	free(line);
	history_close(h);
	sbuf_release(&err);
	sbuf_release(&shas);
	return 0;
}
