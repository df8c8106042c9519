/*
 * suite/bench_plan: what `kagari bench` measures, from its command line
 * (hyperfine's habits): the commands with their parameters expanded
 * (-P NAME MIN MAX [-D STEP], -L NAME A,B,C), their names (-n), and the
 * private suite that measures them: one benchmark whose commands c1..cN
 * are the user's, c1 the baseline, each run in the user's folder by a
 * script (with a shell) or as its words (-N). Also the equivalent suite a
 * user would keep (--save-suite), and the names the results carry.
 * Nothing here prints or runs anything; errors fill a caller's sbuf.
 *
 * Ownership: struct bench_plan owns every string in it
 * (bench_plan_release()).
 */
#ifndef KAGARI_SUITE_BENCH_PLAN_H
#define KAGARI_SUITE_BENCH_PLAN_H

#include <stddef.h>

#include "base/sbuf.h"
#include "base/strvec.h"
#include "model/result.h"

/* At most this many commands after expanding the parameters. */
#define BENCH_MAX_COMMANDS 1000
/* hyperfine's defaults: at least 10 runs and 3 s per command. */
#define BENCH_MIN_RUNS 10
#define BENCH_MAX_RUNS 1000

struct bench_param {
	char *name;
	struct strvec values;
};

struct bench_plan {
	/* The command line, as given. */
	struct strvec templates;    /* the commands */
	struct strvec names;	    /* -n, in order */
	struct bench_param *params; /* -L lists (bench_plan_add_lists()) */
	size_t nr_params;
	char *scan_name, *scan_min, *scan_max, *step; /* the last -P, and -D */
	char *prepare, *setup, *cleanup;
	int ignore_failure;
	/* --runs (0 or below: adaptive), --warmup (-1: unset) */
	int runs, warmup;
	int min_runs, max_runs; /* -1: unset */
	char *shell;		/* NULL: sh; "none": -N */
	char *max_percent;	/* --max-percent as typed, or NULL */
	char *save_suite;	/* --save-suite FILE, or NULL */
	/* Made by bench_plan_expand(). */
	double max; /* the latency tolerance, % (10 without --max-percent) */
	/* In hyperfine's order: per combination of the parameters (the
	   first one changing fastest), every command. */
	struct strvec cmds, labels;
	struct strvec *values; /* per command: the parameters' values */
};

/* p empty: no commands, every option unset. */
void bench_plan_init(struct bench_plan *p);
void bench_plan_release(struct bench_plan *p);

/* -L NAME A,B,C pairs (NAME, then the list) as parameters, empty values
   kept as hyperfine keeps them. 0, or -1 with err naming the option. */
int bench_plan_add_lists(struct bench_plan *p, const struct strvec *pairs, struct sbuf *err);

/*
 * The checks the option table cannot make (a command at all,
 * --max-percent, --shell, --min-runs against --max-runs), the scan as the
 * first parameter, then every command expanded (p->cmds, p->labels,
 * p->values). 0, or -1 with err naming the option (a usage error).
 */
int bench_plan_expand(struct bench_plan *p, struct sbuf *err);

/* -N: commands started as their words, without a shell. */
int bench_plan_no_shell(const struct bench_plan *p);

/*
 * The private suite (YAML, to be written as HEAD/kagari.yaml, HEAD its
 * ${root}) and the scripts beside it, as pairs of a file name relative to
 * HEAD and its content in *files; every command and hook runs in cwd
 * (with -N through the link HEAD/work to cwd, which the caller makes).
 * 0, or -1 with err when a command cannot be split into words (-N).
 */
int bench_plan_suite(const struct bench_plan *p, const char *cwd, struct sbuf *yaml,
		     struct strvec *files, struct sbuf *err);

/*
 * The suite a user would write for these commands (--save-suite FILE):
 * its commands run in cwd as bench runs them, by a `cwd:` relative to
 * FILE's folder when cwd is in FILE's repository, else by changing there
 * first. cwd NULL: where FILE's folder is (nothing written for it).
 */
void bench_plan_saved_suite(struct sbuf *yaml, const struct bench_plan *p, const char *file,
			    const char *cwd);

/* The results (of the private suite) carry the user's commands, names and
   parameters, and the suite is named "kagari bench". */
void bench_plan_name_results(struct run_result *r, const struct bench_plan *p);

#endif
