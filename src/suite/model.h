/*
 * suite/model: the typed, validated form of a suite file.
 *
 * suite_load() (load.h) produces a `struct suite` in which inheritance
 * (defaults -> benchmark -> command) is already resolved: every command
 * carries complete `struct settings`, so later stages never look up a chain.
 * Strings that may contain variables (${artifact}, ${root}, ...) are kept
 * unexpanded; vars.h expands them when the values are known (per side).
 * Every node keeps the line and column it came from for later messages.
 *
 * Ownership: the suite owns everything reachable from it; suite_free()
 * releases it all.
 */
#ifndef KAGARI_SUITE_MODEL_H
#define KAGARI_SUITE_MODEL_H

#include <stddef.h>
#include <stdint.h>

#include "base/strvec.h"
#include "model/metric.h"
#include "model/settings.h"

struct src_loc {
	int line; /* 1-based; 0 = not from the file (a default) */
	int col;  /* 1-based */
};

/* A command to execute: build, hooks, and (inside command_spec) measured. */
struct exec_spec {
	int shell;	    /* 1: `script` runs under /bin/sh -c */
	struct strvec argv; /* when !shell: argv, unexpanded */
	char *script;	    /* when shell: the string, unexpanded */
	char *cwd;	    /* NULL: inherited (see settings.cwd) */
	struct strvec env;  /* NAME=VALUE overrides, file order, unexpanded */
	int64_t timeout_ns; /* 0: inherited / default */
	struct src_loc loc;
};

enum run_order { ORDER_RANDOM, ORDER_ABBA, ORDER_ALTERNATE };
enum instrument { INSTRUMENT_AUTO, INSTRUMENT_PERF, INSTRUMENT_VALGRIND };
enum counters_mode {
	COUNTERS_OFF,
	COUNTERS_AVAILABLE, /* `counters: true`: what the source can give */
	COUNTERS_LIST,	    /* `counters: [..]`: exactly these, required */
};
enum throughput_kind { WORK_NONE, WORK_VALUE, WORK_FILE_SIZE };

struct throughput_work {
	enum throughput_kind kind;
	double value; /* WORK_VALUE */
	char *file;   /* WORK_FILE_SIZE: suite-relative path */
	char *unit;   /* "operations" / "bytes" by default */
};

struct metrics_cfg {
	int cpu;		     /* default 0: latency only unless asked */
	int memory;		     /* default 0 */
	enum counters_mode counters; /* default COUNTERS_OFF */
	unsigned counters_list;	     /* bit (1u << metric_id) for COUNTERS_LIST */
	enum instrument instrument;  /* default INSTRUMENT_AUTO */
	int allocations;	     /* default 0 */
	int syscalls;		     /* (ext) default 0: system calls per run */
	/* (ext) sampled profiles after the timed rounds (analyze/profile.h) */
	int profile;			   /* default 0 */
	int profile_runs;		   /* untimed sampled runs per side, default 10 */
	int profile_frequency;		   /* samples per CPU second, default 3999 */
	int unsupported_skip;		   /* `unsupported: skip` (default fail) */
	struct throughput_work throughput; /* benchmark level */
};

struct metric_regression {
	int configured;		  /* written explicitly in the file: required */
	int compare;		  /* compared at all (latency, cpu_total, peak_rss by
				     default; any metric that is configured) */
	enum statistic statistic; /* default median */
	double max_percent;	  /* default 10 */
	double min_difference;	  /* in the metric's base unit; <0: unset */
	int gate;		  /* default 1 */
	struct src_loc loc;
};

struct regression_cfg {
	enum pairing pairing;	       /* default rounds */
	enum correction correction;    /* default holm */
	int resamples;		       /* default 2000 */
	struct src_loc resamples_loc;  /* where it was set (line 0: not set) */
	int resamples_in_defaults;     /* ... in `defaults` */
	double confidence;	       /* default 0.95, in [0.5, 0.999] */
	int min_samples;	       /* default 10 */
	double max_cv;		       /* default 0.5; 0 disables */
	double rare_share;	       /* (ext) in (0, 1); 0: unset */
	struct src_loc rare_share_loc; /* where it was set (line 0: not set) */
	struct strvec commands;	       /* benchmark level; empty = all */
	struct metric_regression metric[METRIC__COUNT];
};

/* Everything `defaults` and a benchmark may set, resolved per command. */
/* `max_time` unset: 10 minutes of measured time per command (both sides). */
#define MAX_TIME_PER_COMMAND INT64_C(-1)
#define MAX_TIME_COMMAND_NS INT64_C(600000000000)

struct settings {
	int warmup;	     /* default 1 */
	int runs;	     /* 0 (unset or `auto`): sequential in a
				compare, adaptive in a run */
	int64_t max_time_ns; /* sequential: measured time cap of the benchmark;
				0: none; MAX_TIME_PER_COMMAND (unset): 10
				minutes per command of the benchmark */
	int min_runs;	     /* default 10 */
	int max_runs;	     /* default 200 */
	int64_t min_time_ns; /* default 2 s */
	int64_t timeout_ns;  /* default 1 min */
	char *cwd;	     /* NULL: the suite's folder */
	struct strvec env;   /* layered NAME=VALUE overrides, unexpanded */
	char *stdout_path;   /* NULL: discard; else a file under ${workdir} */
	char *stderr_path;   /* NULL: discard */
	int *exit_codes;     /* default {0} */
	size_t nr_exit_codes;
	int runs_per_round;   /* default 1: single-run pairs */
	enum run_order order; /* default random */
	int layout_noise;     /* default 1: a KAGARI_LAYOUT_PAD of random
				 length in each timed run (runner.h) */
	struct metrics_cfg metrics;
	struct regression_cfg regression;
	struct src_loc runs_loc; /* where `runs` was set (line 0: not set) */
};

enum budget_op { BUDGET_LT, BUDGET_LE, BUDGET_GT, BUDGET_GE };
enum aggregation { AGG_MIN, AGG_MAX, AGG_MEAN, AGG_MEDIAN, AGG_PERCENTILE };

struct budget {
	enum metric_id metric;
	enum aggregation aggregation;
	double percentile;	/* AGG_PERCENTILE: in (0, 100), e.g. 95, 99.9 */
	char *aggregation_name; /* as written: "p95", "max" */
	enum budget_op op;
	double limit;	  /* in the metric's base unit */
	char *limit_text; /* as written, e.g. "<= 64MiB" */
	char *unit;	  /* throughput only: the work unit the limit was
			     written in ("bytes" for size rates), or NULL
			     for a plain number; the loader checks it
			     against metrics.throughput.work.unit */
	struct src_loc loc;
};

enum stdin_kind { STDIN_NONE, STDIN_FILE, STDIN_CONTENT };

struct stdin_spec {
	enum stdin_kind kind;
	char *value; /* suite-relative path (unexpanded) or the content */
};

struct command_spec {
	char *name;
	struct exec_spec exec;
	struct settings settings; /* resolved: defaults -> benchmark -> command */
	struct budget *budgets;
	size_t nr_budgets;
	/* `matrix:` combination this command was expanded from: axis names
	   and the values, index for index (empty without a matrix) */
	struct strvec matrix_names, matrix_values;
	struct src_loc loc;
};

struct bench_spec {
	char *name;
	char *description;
	struct strvec tags;
	struct stdin_spec stdin_spec;
	int terminal;
	struct exec_spec *setup;
	size_t nr_setup;
	struct exec_spec *prepare_each;
	size_t nr_prepare_each;
	struct exec_spec *cleanup;
	size_t nr_cleanup;
	char *baseline;		  /* a command name, or NULL */
	struct settings settings; /* resolved: defaults -> benchmark */
	struct command_spec *commands;
	size_t nr_commands;
	struct src_loc loc;
};

struct report_output {
	char *format;
	char *path;
	char *section; /* NULL unless given */
	struct src_loc loc;
};

struct tool_version {
	char *tool;
	struct strvec argv;
};

struct suite {
	char *file;    /* the path as the user gave it */
	char *dir;     /* absolute folder of the file */
	char *root;    /* absolute repository root (git toplevel, else dir) */
	char *version; /* "1" */
	char *name;
	char *description;
	struct exec_spec *build; /* NULL when there is no build */
	/* build.submodules *ext* false: the build needs none of the base
	   revision's submodules (compare's base worktree is made without
	   them); 0 otherwise, and without a build. */
	int build_no_submodules;
	struct settings defaults;
	struct bench_spec *benches;
	size_t nr_benches;
	struct report_output *outputs;
	size_t nr_outputs;
	struct tool_version *versions;
	size_t nr_versions;
};

void settings_init_defaults(struct settings *s);
/* Deep copy (dst is overwritten, not released). */
void settings_copy(struct settings *dst, const struct settings *src);
void settings_release(struct settings *s);
void exec_spec_release(struct exec_spec *e);
/* The command as a user reads it: a shell script as written, argv words
   joined, each quoted for sh where it needs it; variables (${artifact})
   stay as written. The caller frees it. */
char *exec_spec_display(const struct exec_spec *e);
void suite_free(struct suite *s);
/*
 * Make s unable to fail a check: every metric's `gate` off (defaults,
 * benchmarks, commands) and its budgets dropped; its comparisons are still
 * made and reported. compare runs a suite only the head has this way (a
 * change cannot bring the rules it is judged by: cmd/gate_suites.c).
 */
void suite_ungate(struct suite *s);

#endif
