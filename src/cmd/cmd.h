/*
 * cmd: the subcommands. Each lives in its own file and exports one
 * `const struct cmd_entry`; cmd.c holds the table and dispatches.
 *
 * cmd/ is the only layer that prints messages for humans, decides exit
 * codes (cmd/exit.h) or exits. Call order from main():
 *   cmd_find(name) -> if entry->needs_runner: runner_start() -> cmd_exec().
 */
#ifndef KAGARI_CMD_CMD_H
#define KAGARI_CMD_CMD_H

#include <stdint.h>

#include "base/opts.h"
#include "base/strvec.h"
#include "model/formats.h"

struct runner;
struct sbuf;

/*
 * Every flag any command takes (the option tables of the cmd/ files point into
 * it, through the CLI_*() offset macros below). A flag that one command (or
 * one small family) takes lives in that command's or family's struct; the
 * comment on each says who takes it. Unset values are NULL / 0 / -1.
 * cli_init() before parsing, cli_release() after; the strings belong to the
 * struct.
 */
struct cli {
	/* Which benchmarks: run, compare, ci, list, aa, bisect
	   (OPT_COMMON_SELECTION; read by cmd/common.c and cmd/shard.c). */
	struct cli_selection {
		char *filter;
		struct strvec tags;
		struct strvec skip_tags;
	} selection;
	/* What kagari prints and where. format: every command that writes a
	   report; output: all of those but list and doctor; summary: run, compare,
	   ci, merge; section: run, compare, ci, report; quiet: run, compare,
	   ci, aa, bisect, bench; no_color: run, compare, ci, bench. */
	struct cli_out {
		char *format;
		char *output;
		char *summary;
		char *section;
		int quiet;
		int no_color;
		/* bench: more reports beside --format/--output (--export-json
		   ...): triples FORMAT, PATH, with the option that asked as
		   LABEL. The report writer (cmd/session.c) reads them. */
		struct strvec exports;
		char *time_unit; /* bench: -u/--time-unit (NULL: chosen per value) */
	} out;
	/* How the commands are measured. runs, warmup: run, compare, ci, aa,
	   bisect, bench; seed: the same and power; max_runs: power, bench;
	   max_time: compare, ci, aa; profile, profile_dir: run, compare, ci. */
	struct cli_measure {
		int runs;     /* -1 unset */
		int warmup;   /* -1 unset */
		int max_runs; /* -1 unset */
		int have_seed;
		uint64_t seed;
		char *max_time;	   /* --max-time DURATION */
		int profile;	   /* --profile */
		char *profile_dir; /* --profile-dir DIR */
	} measure;
	/* The run history (cmd/record.c). history: run, compare, ci and the
	   history command (the file it reads); no_history: run, compare, ci
	   (bench and bisect set it). */
	struct cli_record {
		char *history;	/* --history FILE */
		int no_history; /* --no-history */
	} record;
	/* Sharding: run, compare, ci; replicate also merge. */
	struct cli_shard {
		char *spec;	/* --shard K/N */
		int replicate;	/* --replicate: every shard measures all */
	} shard;
	/* The exit code: compare, ci, report (--reanalyze), merge. */
	struct cli_gate {
		int fail_on_inconclusive;
	} gate;
	/* The analysis. metric: history, bisect, power; confidence: report
	   (--reanalyze), power. */
	struct cli_analysis {
		char *metric;	  /* --metric M */
		char *confidence; /* --confidence C */
	} analysis;
	/* compare and ci. */
	struct cli_compare {
		char *against;
		char *suite_from; /* "base" | "head" | NULL (default) */
	} compare;
	/* report. */
	struct cli_report {
		int reanalyze;		   /* analyse the saved samples again */
		struct strvec max_percent; /* [METRIC=]P: compare, ci, --reanalyze */
		int list_formats;	   /* print the --format names and stop */
	} report;
	/* history. */
	struct cli_history {
		char *commit_url; /* --commit-url TEMPLATE (the site's links) */
		char *min_change; /* --min-change P */
		char *detect;	  /* --detect P */
		/* The history branch (history, its push and pull; ci). */
		char *branch;	  /* --branch B, ci's --history-branch B */
		char *remote;	  /* --remote R, ci's --history-remote R */
		int from_branch;  /* history: --from-branch */
		int push;	  /* ci: --history-push */
	} history;
	/* merge. */
	struct cli_merge {
		int annotations; /* GitHub annotations on stderr */
	} merge;
	/* bisect. */
	struct cli_bisect {
		char *good, *bad;
		char *command; /* --command [SUITE/]BENCH/CMD */
	} bisect;
	/* aa. */
	struct cli_aa {
		int repeat;  /* --repeat N, -1 unset */
		char *trace; /* --trace FILE */
	} aa;
	/* power. */
	struct cli_power {
		char *cells;	    /* --cells LIST */
		int trials;	    /* --trials N, -1 unset */
		int runs_per_round; /* -1 unset */
		char *order;	    /* random|abba|alternate */
	} power;
	/* init. */
	struct cli_init_opts {
		int force;
	} init;
	/* bench (cmd/bench.c), hyperfine's options as given; bench also
	   takes measure's runs, warmup, max_runs, seed and out's format,
	   output, quiet, no_color, time_unit. */
	struct cli_bench {
		struct strvec params;  /* -L: NAME, A,B,C pairs */
		struct strvec scan;    /* -P: NAME, MIN, MAX triples (last wins) */
		struct strvec names;   /* -n, in order */
		struct strvec exports; /* "export-json", FILE, ... (in order) */
		char *step;	       /* -D */
		char *prepare, *setup, *cleanup;
		char *shell;	       /* -S; -N is "none" */
		char *style;
		char *max_percent;
		char *save_suite;
		int ignore_failure;
		int min_runs;	       /* -1 unset */
	} bench;
	/* Every command that builds or runs anything (needs_runner). */
	int allow_pull_request_target; /* --allow-pull-request-target */
	/* Every command. */
	int help;
	struct strvec args; /* positional arguments */
};

/* The offsets of the option tables, one macro per struct of struct cli. */
#define CLI_SEL(f) offsetof(struct cli, selection.f)
#define CLI_OUT(f) offsetof(struct cli, out.f)
#define CLI_MEAS(f) offsetof(struct cli, measure.f)
#define CLI_REC(f) offsetof(struct cli, record.f)
#define CLI_SHARD(f) offsetof(struct cli, shard.f)
#define CLI_GATE(f) offsetof(struct cli, gate.f)
#define CLI_ANA(f) offsetof(struct cli, analysis.f)
#define CLI_CMP(f) offsetof(struct cli, compare.f)
#define CLI_REPORT(f) offsetof(struct cli, report.f)
#define CLI_HIST(f) offsetof(struct cli, history.f)
#define CLI_MERGE(f) offsetof(struct cli, merge.f)
#define CLI_BISECT(f) offsetof(struct cli, bisect.f)
#define CLI_AA(f) offsetof(struct cli, aa.f)
#define CLI_POWER(f) offsetof(struct cli, power.f)
#define CLI_INIT(f) offsetof(struct cli, init.f)

void cli_init(struct cli *c);
void cli_release(struct cli *c);

struct cmd_env {
	struct runner *runner; /* started before anything was loaded, or NULL */
	int stdout_tty;
	int stderr_tty;
	/*
	 * Switches main() reads from the environment, passed down as options
	 * (the library below cmd/ reads none of them): software stand-ins
	 * for the hardware counters (KAGARI_TEST_COUNTERS_SOFTWARE=1, for
	 * kagari's own tests), the allocation shim's path (KAGARI_ALLOC_SHIM,
	 * NULL when unset). KAGARI_RUNNER_FORK goes to runner_debug_no_exec().
	 */
	int counters_software;
	const char *alloc_shim;
};

struct cmd_entry {
	const char *name;
	const char *args;    /* usage after the name, e.g. "[options] [PATH...]" */
	const char *summary; /* one line for `kagari help` */
	const struct opt *opts;
	int needs_runner;
	/* Other spellings of `opts` entries (bench: hyperfine's -r, -N ...),
	   or NULL. The help of the entry names its short form. */
	const struct opt_alias *aliases;
	int (*exec)(struct cli *cli, struct cmd_env *env);
};

extern const struct cmd_entry cmd_init, cmd_validate, cmd_list, cmd_run,
	cmd_compare, cmd_version, cmd_help, cmd_power;
extern const struct cmd_entry cmd_ci, cmd_report;
extern const struct cmd_entry cmd_doctor;
extern const struct cmd_entry cmd_history, cmd_merge, cmd_bisect;
extern const struct cmd_entry cmd_completion;
extern const struct cmd_entry cmd_bench, cmd_aa;

/* The i-th command of the table (help's order), NULL past the end. */
const struct cmd_entry *cmd_at(size_t i);
/* NULL when unknown. */
const struct cmd_entry *cmd_find(const char *name);
/* Parse the options of `e` from argv and run it; returns the exit code. */
int cmd_exec(const struct cmd_entry *e, int argc, char **argv,
	     struct cmd_env *env);
/* Full help of one command, generated from its option table. */
void cmd_usage(const struct cmd_entry *e, struct sbuf *out);
/* Top-level help. */
void cmd_overview(struct sbuf *out);
/* Print "kagari: error: MSG" (multi-line MSG is kept) to stderr. */
void cmd_error(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
void cmd_warning(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
/*
 * From now on, cmd_error() and cmd_warning() keep the lines after a
 * message's first from reading as CI workflow commands: each is prefixed
 * "  | " (CR counts as a line break), and with `fence` the message is
 * wrapped in ::stop-commands::TOKEN ... ::TOKEN:: (GitHub). `kagari ci`.
 */
void cmd_guard_workflow_commands(int fence);

/*
 * Under the GitHub guard above: text, in out, with every place a runner
 * would read as a workflow command (a line starting with "::" after white
 * space, "##[" anywhere) broken by an invisible U+200B, so that names from
 * the suite in a report on standard output cannot issue commands. Returns
 * 1 when out holds such a changed copy; 0 (out untouched) when no guard is
 * on or nothing needed breaking. A fence is no answer there: the runner
 * reads stdout and stderr apart, and a fence open on stdout could swallow
 * the annotations ci writes on stderr.
 */
int cmd_workflow_safe_text(const char *text, size_t len, struct sbuf *out);

/* Option tables shared by several commands. */
#define OPT_COMMON_SELECTION                                                   \
	{ "filter", OPT_STRING, CLI_SEL(filter), "RE",                         \
	  "only benchmarks whose name matches the POSIX extended regex RE",    \
	  NULL },                                                              \
	{ "tag", OPT_LIST, CLI_SEL(tags), "T",                                 \
	  "only benchmarks with tag T (repeatable, comma-separated)", NULL },  \
	{ "skip-tag", OPT_LIST, CLI_SEL(skip_tags), "T",                       \
	  "skip benchmarks with tag T (repeatable; skip wins)", NULL }

/* Every command that builds or runs anything (needs_runner): the one
   opt-out of the pull_request_target refusal (SECURITY.md). */
#define OPT_ALLOW_PULL_REQUEST_TARGET                                          \
	{ "allow-pull-request-target", OPT_BOOL,                               \
	  offsetof(struct cli, allow_pull_request_target), NULL,               \
	  "run even when GITHUB_EVENT_NAME is pull_request_target (a job with secrets and a write token): only where no untrusted code is checked out (SECURITY.md)", \
	  NULL }

/* compare, ci and aa: the cap of the sequential rounds. */
#define OPT_MAX_TIME                                                           \
	{ "max-time", OPT_STRING, CLI_MEAS(max_time), "DURATION",              \
	  "a cap on the whole compare: once DURATION (e.g. 10m) is spent no run starts; the comparisons it stopped end inconclusive", \
	  NULL }
/* compare and ci: whose copy of each suite file both sides run (the
   default differs: DEFAULT is the help's words for it). */
#define OPT_SUITE_FROM(DEFAULT)                                                \
	{ "suite-from", OPT_ENUM, CLI_CMP(suite_from), "SIDE",                 \
	  "run the base's or the head's copy of each suite on both sides (default: " DEFAULT ")", \
	  "base|head" }
/* compare, ci and report --reanalyze (PREFIX: "with --reanalyze: "). */
#define OPT_MAX_PERCENT(PREFIX)                                                \
	{ "max-percent", OPT_LIST, CLI_REPORT(max_percent), "[METRIC=]P",      \
	  PREFIX "judge latency (or METRIC) with tolerance P percent in place of the suite's, on every command (repeatable)", \
	  NULL }

#define OPT_COMMON_MEASURE                                                     \
	OPT_COMMON_SELECTION,                                                  \
	{ "format", OPT_ENUM, CLI_OUT(format), "FMT",                          \
	  "report format: " REPORT_FORMAT_HELP, REPORT_FORMAT_CHOICES }, \
	{ "output", OPT_STRING, CLI_OUT(output), "FILE",                       \
	  "write the report to FILE (atomically; a FIFO or device in place) instead of stdout; never an input", \
	  NULL },							       \
	{ "summary", OPT_STRING, CLI_OUT(summary), "FILE",                     \
	  "append a GitHub-flavoured Markdown summary to FILE", NULL },        \
	{ "section", OPT_STRING, CLI_OUT(section), "NAME",                     \
	  "markdown: rewrite only section NAME of an existing --output page", NULL }, \
	{ "seed", OPT_SEED, CLI_MEAS(seed), "N",                               \
	  "seed for run order and resampling (default: random, always recorded)", NULL }, \
	{ "runs", OPT_COUNT, CLI_MEAS(runs), "N",                              \
	  "measured runs per command and side (overrides the suite)", NULL },  \
	{ "warmup", OPT_COUNT, CLI_MEAS(warmup), "N",                          \
	  "unmeasured warm-up runs per command and side", NULL },              \
	{ "profile", OPT_BOOL, CLI_MEAS(profile), NULL,                        \
	  "sample every command in untimed runs after the timed ones and "      \
	  "report the functions that changed (as metrics: {profile: true})",   \
	  NULL },                                                              \
	{ "profile-dir", OPT_STRING, CLI_MEAS(profile_dir), "DIR",             \
	  "write folded stacks (one file per command and side) into DIR; "     \
	  "implies --profile", NULL },                                         \
	{ "quiet", OPT_BOOL, CLI_OUT(quiet), NULL,                             \
	  "no progress line", NULL },                                          \
	{ "no-color", OPT_BOOL, CLI_OUT(no_color), NULL,                       \
	  "no colour (NO_COLOR is honoured too)", NULL },                     \
	{ "history", OPT_STRING, CLI_REC(history), "FILE",                     \
	  "append the run to the SQLite history FILE (default: .kagari/history.sqlite beside the suite)", NULL }, \
	{ "no-history", OPT_BOOL, CLI_REC(no_history), NULL,                   \
	  "neither record the run in the history nor read it (for --shard)", NULL },                     \
	{ "shard", OPT_STRING, CLI_SHARD(spec), "K/N",                         \
	  "measure only shard K of N of the selected benchmarks (merge the reports with kagari merge)", NULL }, \
	{ "replicate", OPT_BOOL, CLI_SHARD(replicate), NULL,                   \
	  "with --shard: measure every benchmark in every shard; merge --replicate pools the rounds", NULL }, \
	OPT_ALLOW_PULL_REQUEST_TARGET

#endif
