/*
 * model/result: the result model every stage after measuring reads (runs,
 * series, summaries, comparisons, budgets, and the analysis settings of
 * model/settings.h).
 *
 * It is built for two sides (base and head) and numbered rounds from the
 * start: `run` is the one-sided case (only the head side is present), and
 * `compare` fills both. It copies what it needs from the suite (names,
 * budgets) so that a saved JSON report can be re-rendered without the suite.
 *
 * Who fills what, in pipeline order: measure/ creates the suites,
 * benchmarks and commands, the samples and each series' status (and
 * `required`); the pipeline copies each command's analysis settings and
 * budgets (analyze_settings_from_suite()); analyze_result() then fills the
 * summaries, budgets' outcomes, comparisons, results and counts;
 * cmd/ sets summary.exit_code and exit_reason. A result read back from
 * JSON (report/read_json.h) holds all of it and may be analysed again.
 *
 * Ownership: a `struct run_result` owns everything reachable from it;
 * run_result_release() frees it all. Strings are never shared between
 * two fields.
 */
#ifndef KAGARI_MODEL_RESULT_H
#define KAGARI_MODEL_RESULT_H

#include <stddef.h>
#include <stdint.h>

#include "model/profile.h"
#include "model/verdict.h"
#include "base/strvec.h"
#include "model/metric.h"
#include "model/settings.h"

enum side { SIDE_BASE, SIDE_HEAD, SIDE__COUNT };

enum metric_status {
	MSTATUS_ABSENT,	     /* not requested: not printed at all */
	MSTATUS_OK,	     /* measured */
	MSTATUS_UNSUPPORTED, /* requested, cannot be measured here (reason) */
	MSTATUS_FAILED,	     /* requested, measuring failed (reason) */
};

/* Descriptive statistics of one series (analyze/summary.h computes them). */
struct summary {
	size_t count;
	double min, max, mean, median;
	double stddev;	  /* sample standard deviation (n - 1); 0 when n == 1 */
	double cv;	  /* stddev / mean; NAN when mean == 0 */
	double robust_cv; /* IQR / 1.349 / median; NAN when median == 0 */
	double p90, p95, p99;
};

struct sample {
	double value;	/* in the metric's base unit */
	int round;	/* 1-based round number (warm-up rounds are not kept) */
	int run;	/* 1-based index of the run within its side */
	int layout_pad; /* the run's KAGARI_LAYOUT_PAD length; -1: none */
};

struct metric_series {
	enum metric_status status;
	char *reason; /* why unsupported/failed, else NULL */
	struct sample *samples;
	size_t nr, alloc;
	int have_summary;
	struct summary summary; /* valid when have_summary */
	int required;		/* exit 6 when it ends unsupported or failed */
	/*
	 * Further runs that attest the samples without measuring them
	 * again: valgrind's cache simulation runs once per side, and each
	 * later run counting instructions only (half the cost) whose count
	 * equalled the simulated run's adds one (measure/valgrind.h). 0 for
	 * every other series. JSON: the metric's `confirmed_runs`.
	 */
	int confirmed;
};

/*
 * What wait4 reported for one measured timed run, whatever metrics were
 * asked for (it costs nothing): hyperfine's export always has `user`,
 * `system` and the exit codes. JSON: a side's `runs`.
 */
struct run_record {
	int exit_code; /* -1: not known (a report that did not record it) */
	double user_ns, system_ns;
};

/* metrics.syscalls: one system call name and its median count per run. */
struct name_count {
	char *name;
	double count;
};

/* --profile under valgrind: one function's counts in a valgrind run. */
struct fn_count {
	char *name;
	double instructions;
	double estimated_cycles; /* NAN without the cache simulation */
};

struct side_result {
	int present;  /* this side was measured */
	size_t count; /* successful measured runs */
	struct metric_series metric[METRIC__COUNT];
	/* One per measured timed run, in run order (run k at k - 1). */
	struct run_record *runs;
	size_t nr_runs, alloc_runs;
	/* metrics.syscalls: the calls made, per name (sorted by name, counts
	   above zero only; JSON "syscalls_by_name"), or none. */
	struct name_count *syscall_names;
	size_t nr_syscall_names;
	/* --profile with a valgrind instrument: per function (sorted by
	   name) its counts in the side's first valgrind run (JSON
	   "counted_functions"), or none. */
	struct fn_count *counted_functions;
	size_t nr_counted_functions;
};

enum budget_status { BUDGET_PASS, BUDGET_FAIL, BUDGET_UNASSESSABLE };

struct budget_result {
	enum metric_id metric;
	char *aggregation; /* "p95", "max", ... */
	char *op;	   /* "<", "<=", ">", ">=" */
	double limit;	   /* base unit */
	char *limit_text;  /* as written in the suite */
	int have_actual;
	double actual; /* base unit, when have_actual */
	enum budget_status status;
	char *reason; /* unassessable: why */
};

/* One comparison of base and head for one metric (the compare issue). */
struct comparison {
	int present;
	char *statistic;   /* "median" | "mean" */
	char *pairing;	   /* "rounds" | "independent" */
	double base, head; /* the statistic of each side, base unit */
	double change_percent, ci_low_percent, ci_high_percent;
	double confidence, max_percent, p_value, hl_shift_percent;
	double noise_floor_percent;
	/*
	 * The change of the mean, which the verdict judges beside the
	 * typical change above (docs/statistics.md, "The change of the
	 * mean"): head's total over base's, its interval, the share of its
	 * confidence distribution beyond +T; and the minority of head's runs
	 * behind a mean that moved unlike the typical run (share in 0..1 and
	 * ratio, NAN when none is seen). NAN when not computed (older
	 * reports, exact data without samples).
	 */
	double mean_change_percent, mean_ci_low_percent, mean_ci_high_percent;
	double mean_p_reg;
	double minority_share, minority_factor;
	/*
	 * What a verdict could not see, and whether the change moves
	 * (docs/statistics.md): the blind share (a slowdown on this share of
	 * the runs is absent from head's runs with 95% probability, percent)
	 * and the trend of the round log-ratios (percent per round, its
	 * Mann-Kendall p). NAN when not computed (older reports).
	 */
	double blind_share_percent;
	double trend_percent_per_round, trend_p;
	enum verdict verdict; /* model/verdict.h; VERDICT_NONE when not present */
	char *reason;
	int gate;
	/* Beyond the contract's stable fields: the evidence behind the verdict. */
	double p_reg, p_imp; /* bootstrap shares beyond +T / -T */
	double p_adjusted;   /* Holm-adjusted p (== p_value without) */
	int control_failed;  /* the within-round A/A control drifted */
	int *dropped_rounds; /* rounds the stall filter removed */
	size_t nr_dropped_rounds;
	double *boot; /* bootstrap distribution of the change, % */
	size_t nr_boot;
	/*
	 * Set when `boot` holds the 0th..100th percentiles of the bootstrap
	 * distribution (ascending, nr_boot == 101) rather than the resamples:
	 * a report read back from JSON ("bootstrap_quantiles").
	 */
	int boot_is_quantiles;
	/* Sequential design: the rounds of the look that decided the verdict
	   (0: not decided at a look, or the fixed design). */
	int decided_at_rounds;
	/* verdict "accepted": the commit whose Kagari-Accept trailer allowed
	   this regression (full sha), else NULL */
	char *accepted_by;
};

#define COMPARISON_BOOT_QUANTILES 101

/* Free what c holds and zero it (present = 0): ready to be filled again. */
void comparison_clear(struct comparison *c);

struct command_result {
	char *name;
	char *command;		/* display form of the command (argv joined) */
	enum result result;	/* model/verdict.h; RESULT_NONE: not analysed */
	int rounds;		/* measured rounds (sequential: this command's) */
	int identical_artifact; /* base and head ${artifact} byte-identical */
	int out_of_time;	/* --max-time was spent while it measured, or before */
	int max_time_reached;	/* sequential: the suite's max_time stopped it */
	struct side_result side[SIDE__COUNT];
	struct comparison comparison[METRIC__COUNT];
	struct budget_result *budgets;
	size_t nr_budgets;
	char *error;	       /* failure message (exit status / signal), or NULL */
	char *stderr_tail;     /* last 2 KiB of stderr of the failing run, masked */
	char *throughput_unit; /* work unit name when throughput is measured */
	/* The `matrix:` values this command was expanded with (JSON
	   "matrix": {NAME: VALUE}); names and values index for index. */
	struct strvec matrix_names, matrix_values;
	struct analysis_settings analysis; /* how comparisons are made */
	/* Sampled profiles of both sides (metrics.profile / --profile), or
	   NULL; profile_error says why profiling failed or is unsupported. */
	struct profile_set *profile;
	char *profile_error;
};

struct bench_result {
	char *name;
	struct strvec tags;
	char *baseline; /* `baseline:` command name (ratios relative to it), or NULL */
	/*
	 * kagari bench: the commands were measured on one side in the same
	 * rounds, and each other command is compared with `baseline` (its
	 * head side is the comparison's base). JSON: "compare_with_baseline".
	 */
	int compare_baseline;
	enum result result; /* the worst of its commands' */
	int rounds;
	int line; /* the benchmark's line in its suite file; 0: unknown */
	struct command_result *commands;
	size_t nr_commands;
};

struct suite_result {
	char *name;
	char *file;
	enum result result; /* the worst of its benchmarks' */
	/* compare: whose copy of the suite file both sides ran, "base" or
	   "head" (NULL outside compare) */
	char *suite_from;
	/* compare: 1 when the suite's comparisons could not fail the check
	   (a suite only the head has, under the base's gate: JSON "gating":
	   false); 0 otherwise */
	int not_gating;
	struct bench_result *benches;
	size_t nr_benches;
};

struct environment_info {
	char *os, *kernel, *arch, *cpu_model;
	int logical_cpus;
	int ci;			/* running under CI ($CI set) */
	char *counters_source;	/* "perf" | "valgrind" | NULL */
	char *valgrind_version; /* when counts came from valgrind */
	/* The hypervisor's steal from the run's start to its finish, in %
	   of all CPUs' time (/proc/stat); NAN when unknown. */
	double steal_percent;
};

struct git_info {
	char *head_sha; /* NULL outside a repository */
	int dirty;	/* -1 unknown */
	char *base_ref, *base_sha;
};

/*
 * Which share of a job matrix a report measured (--shard K/N; 1/1 without
 * it), the selection the shards were split from, and an id of the
 * invocation: kagari merge checks that a set of reports is every shard of
 * one matrix exactly once (JSON "shard"; absent in older reports).
 */
struct shard_record {
	int present;	  /* 0: a report written before shard records */
	int index, count; /* K and N, 1 <= K <= N */
	int replicate;	  /* --replicate: every shard measured every benchmark */
	char *selection;  /* the selection options as given ("" for none) */
	int benchmarks;	  /* benchmarks selected before the split */
	char *run_id;	  /* unique to the invocation that wrote the report */
	/* How the selected benchmarks were assigned to the N shards: the
	   method ("count", "balanced" or "replicate") and a fingerprint of
	   the whole assignment (every selected benchmark and its shard),
	   the same in every job that split alike; NULL in older reports. */
	char *split, *assignment;
	/* kagari merge: how many reports the merged one joins (JSON
	   "merged_from", absent otherwise); 0 for a report of one run. */
	int merged_from;
};

struct run_summary {
	int benchmarks, commands;
	int pass, improved, inconclusive, regression, over_budget, error;
	int accepted; /* commands whose worst verdict is an accepted regression */
	/* Commands whose required metric could not be measured or whose
	   budget could not be assessed (exit 6; not in the JSON report). */
	int unsupported;
	int exit_code;
};

/*
 * An intended regression, accepted by a commit of the compared range with
 * the trailer `Kagari-Accept: BENCHMARK/COMMAND METRIC +P%`: a gated
 * regression of that metric up to +P% is `accepted` instead.
 */
struct acceptance {
	char *commit;	 /* full sha of the commit that carries the trailer */
	char *benchmark; /* names as in the suite */
	char *command;
	enum metric_id metric;
	double max_percent; /* P */
};

struct run_result {
	char *mode; /* "run" | "compare" | "bench" ...: see run_mode() */
	uint64_t seed;
	char *started_at, *finished_at; /* RFC 3339 UTC */
	int interrupted;
	struct environment_info env;
	struct git_info git;
	struct shard_record shard;
	struct suite_result *suites;
	size_t nr_suites;
	struct strvec warnings;
	struct run_summary summary;
	char *exit_reason;	    /* one sentence explaining a non-zero exit, or NULL */
	struct acceptance *accepts; /* compare: the range's Kagari-Accept trailers */
	size_t nr_accepts;
};

void run_result_init(struct run_result *r);
/* Append a copy of a to r->accepts. */
void run_result_add_acceptance(struct run_result *r, const struct acceptance *a);
void acceptance_release(struct acceptance *a);
void run_result_release(struct run_result *r);

/*
 * What produced a result, read from its `mode` (a string in the JSON
 * report, docs/contract.md): writers branch on this, never on the string.
 * A missing mode is a run; one kagari does not know (a later version's)
 * is RUN_MODE_OTHER and is printed as it is.
 */
enum run_mode {
	RUN_MODE_RUN,
	RUN_MODE_COMPARE,
	RUN_MODE_BENCH,
	RUN_MODE_OTHER,
};
enum run_mode run_mode(const struct run_result *r);
/* Append a sample; the series becomes MSTATUS_OK. */
void metric_series_add(struct metric_series *m, double value, int round, int run);
/* Append what wait4 said of the next measured run of sr. */
void side_result_add_run(struct side_result *sr, int exit_code, double user_ns, double system_ns);
/* Record the layout pad of measured run `run` (1-based) on the samples of
   every metric of sr that run produced (metric_series_add() leaves -1). */
void side_result_set_layout_pad(struct side_result *sr, int run, int pad);
/* Mark requested-but-missing with a reason (copied). */
void metric_series_set_status(struct metric_series *m, enum metric_status st, const char *reason);
/* Drop a series' samples and set its status and reason (copied). */
void metric_series_fail(struct metric_series *m, enum metric_status st, const char *reason);
const char *side_name(enum side s);		      /* "base" | "head" */
const char *budget_status_name(enum budget_status s); /* pass fail unassessable */
/* "absent" | "ok" | "unsupported" | "failed" (the JSON report's `status`). */
const char *metric_status_name(enum metric_status s);

#endif
