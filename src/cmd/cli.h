/*
 * cmd/cli: the option families several commands share, and their table
 * entries.
 *
 * Each command owns its options: a struct `X_cli` next to its table in its
 * own file (cmd/run.c's struct run_cli ...), which starts with struct
 * cli_common and embeds the families below it takes. The table entries of
 * a family are macros over the command's struct type T, so one option is
 * one field here and one entry in the macro. cmd_exec() zeroes the struct,
 * sets the defaults and frees it by walking the table (opts_defaults(),
 * opts_release() in base/opts.h): nothing here keeps an init or free list.
 */
#ifndef KAGARI_CMD_CLI_H
#define KAGARI_CMD_CLI_H

#include <stddef.h>

#include "base/opts.h"
#include "base/strvec.h"
#include "model/formats.h"

/* What every command has, first in its struct (cmd_exec() reads it). */
struct cli_common {
	struct strvec args; /* positional arguments */
	int help;	    /* -h, --help */
	/* Every command that builds or runs anything (needs_runner). */
	int allow_pull_request_target; /* --allow-pull-request-target */
};

/* Which benchmarks: run, compare, ci, list, aa, bisect, history
   (OPT_COMMON_SELECTION; read by cmd/common.c and cmd/shard.c). */
struct cli_selection {
	char *filter;
	struct strvec tags;
	struct strvec skip_tags;
};

/* What kagari prints and where. format: every command that writes a
   report; output: all of those but list and doctor; summary: run, compare,
   ci, merge; section: run, compare, ci, report; quiet: run, compare, ci,
   aa, bisect, bench; no_color: run, compare, ci, bench; time_unit: bench. */
struct cli_out {
	char *format;
	char *output;
	char *summary;
	char *section;
	int quiet;
	int no_color;
	char *time_unit; /* -u/--time-unit (NULL: chosen per value) */
};

/* How the commands are measured. runs, warmup: run, compare, ci, aa,
   bisect, bench; seed: the same and power; max_runs: power, bench;
   max_time: compare, ci, aa; profile, profile_dir: run, compare, ci. */
struct cli_measure {
	int runs;     /* -1 unset */
	int warmup;   /* -1 unset */
	int max_runs; /* -1 unset */
	struct opts_seed seed;
	char *max_time;	   /* --max-time DURATION */
	int profile;	   /* --profile */
	char *profile_dir; /* --profile-dir DIR */
};

/* The run history (cmd/record.c): run, compare, ci; history reads
   --history only. */
struct cli_record {
	char *history;	/* --history FILE */
	int no_history; /* --no-history */
};

/* Sharding: run, compare, ci; replicate also merge. */
struct cli_shard {
	char *spec;    /* --shard K/N */
	int replicate; /* --replicate: every shard measures all */
};

/* The analysis. metric: history, bisect, power; confidence: report
   (--reanalyze), power. */
struct cli_analysis {
	char *metric;	  /* --metric M */
	char *confidence; /* --confidence C */
};

/* The history branch (cmd/history_sync.c): history's --branch and
   --remote, ci's --history-branch and --history-remote. */
struct cli_history_branch {
	char *branch; /* NULL: kagari-history */
	char *remote; /* NULL: origin */
};

/* The offset of field F of family member M of the command's struct T. */
#define CLI_AT(T, M, F) offsetof(T, M.F)

/* Which benchmarks (T has `struct cli_selection selection`). */
#define OPT_COMMON_SELECTION(T)                                                                    \
	{"filter",                                                                                 \
	 OPT_STRING,                                                                               \
	 CLI_AT(T, selection, filter),                                                             \
	 "RE",                                                                                     \
	 "only benchmarks whose name matches the POSIX extended regex RE",                         \
	 NULL},                                                                                    \
	    {"tag",                                                                                \
	     OPT_LIST,                                                                             \
	     CLI_AT(T, selection, tags),                                                           \
	     "T",                                                                                  \
	     "only benchmarks with tag T (repeatable, comma-separated)",                           \
	     NULL},                                                                                \
	{                                                                                          \
		"skip-tag", OPT_LIST, CLI_AT(T, selection, skip_tags), "T",                        \
		    "skip benchmarks with tag T (repeatable; skip wins)", NULL                     \
	}

/* Every command that builds or runs anything (needs_runner): the one
   opt-out of the pull_request_target refusal (SECURITY.md). */
#define OPT_ALLOW_PULL_REQUEST_TARGET                                                              \
	{                                                                                          \
		"allow-pull-request-target", OPT_BOOL,                                             \
		    offsetof(struct cli_common, allow_pull_request_target), NULL,                  \
		    "run even when GITHUB_EVENT_NAME is pull_request_target (a job with secrets "  \
		    "and a write token): only where no untrusted code is checked out "             \
		    "(SECURITY.md)",                                                               \
		    NULL                                                                           \
	}

/* compare, ci and aa: the cap of the sequential rounds. */
#define OPT_MAX_TIME(T)                                                                            \
	{                                                                                          \
		"max-time", OPT_STRING, CLI_AT(T, measure, max_time), "DURATION",                  \
		    "a cap on the whole compare: once DURATION (e.g. 10m) is spent no run "        \
		    "starts; the comparisons it stopped end inconclusive",                         \
		    NULL                                                                           \
	}

/* compare, ci and report --reanalyze (T has `struct strvec max_percent`;
   PREFIX: "with --reanalyze: "). */
#define OPT_MAX_PERCENT(T, PREFIX)                                                                 \
	{                                                                                          \
		"max-percent", OPT_LIST, offsetof(T, max_percent), "[METRIC=]P",                   \
		    PREFIX "judge latency (or METRIC) with tolerance P percent (0.001 to 1000) "   \
			   "in place of the suite's, on every command (repeatable)",               \
		    NULL                                                                           \
	}

/* run, compare and ci: selection, reports, measuring, history, shards
   (T has selection, out, measure, record and shard). */
#define OPT_COMMON_MEASURE(T)                                                                      \
	OPT_COMMON_SELECTION(T),                                                                   \
	    {"format",                                                                             \
	     OPT_ENUM,                                                                             \
	     CLI_AT(T, out, format),                                                               \
	     "FMT",                                                                                \
	     "report format: " REPORT_FORMAT_HELP,                                                 \
	     REPORT_FORMAT_CHOICES},                                                               \
	    {"output",                                                                             \
	     OPT_STRING,                                                                           \
	     CLI_AT(T, out, output),                                                               \
	     "FILE",                                                                               \
	     "write the report to FILE (atomically; a FIFO or device in place) instead of "        \
	     "stdout; never an input",                                                             \
	     NULL},                                                                                \
	    {"summary",                                                                            \
	     OPT_STRING,                                                                           \
	     CLI_AT(T, out, summary),                                                              \
	     "FILE",                                                                               \
	     "append a GitHub-flavoured Markdown summary to FILE",                                 \
	     NULL},                                                                                \
	    {"section",                                                                            \
	     OPT_STRING,                                                                           \
	     CLI_AT(T, out, section),                                                              \
	     "NAME",                                                                               \
	     "markdown: rewrite only section NAME of an existing --output page",                   \
	     NULL},                                                                                \
	    {"seed",                                                                               \
	     OPT_SEED,                                                                             \
	     CLI_AT(T, measure, seed),                                                             \
	     "N",                                                                                  \
	     "seed for run order and resampling (default: random, always recorded)",               \
	     NULL},                                                                                \
	    {"runs",                                                                               \
	     OPT_COUNT,                                                                            \
	     CLI_AT(T, measure, runs),                                                             \
	     "N",                                                                                  \
	     "measured runs per command and side (overrides the suite)",                           \
	     NULL},                                                                                \
	    {"warmup",                                                                             \
	     OPT_COUNT,                                                                            \
	     CLI_AT(T, measure, warmup),                                                           \
	     "N",                                                                                  \
	     "unmeasured warm-up runs per command and side",                                       \
	     NULL},                                                                                \
	    {"profile",                                                                            \
	     OPT_BOOL,                                                                             \
	     CLI_AT(T, measure, profile),                                                          \
	     NULL,                                                                                 \
	     "sample every command in untimed runs after the timed ones and "                      \
	     "report the functions that changed (as metrics: {profile: true}); "                   \
	     "with a valgrind instrument, also by exact count",                                    \
	     NULL},                                                                                \
	    {"profile-dir",                                                                        \
	     OPT_STRING,                                                                           \
	     CLI_AT(T, measure, profile_dir),                                                      \
	     "DIR",                                                                                \
	     "write folded stacks (one file per command and side) into DIR; "                      \
	     "implies --profile",                                                                  \
	     NULL},                                                                                \
	    {"quiet", OPT_BOOL, CLI_AT(T, out, quiet), NULL, "no progress line", NULL},            \
	    {"no-color",                                                                           \
	     OPT_BOOL,                                                                             \
	     CLI_AT(T, out, no_color),                                                             \
	     NULL,                                                                                 \
	     "no colour (NO_COLOR is honoured too)",                                               \
	     NULL},                                                                                \
	    {"history",                                                                            \
	     OPT_STRING,                                                                           \
	     CLI_AT(T, record, history),                                                           \
	     "FILE",                                                                               \
	     "append the run to the SQLite history FILE (default: .kagari/history.sqlite beside "  \
	     "the suite)",                                                                         \
	     NULL},                                                                                \
	    {"no-history",                                                                         \
	     OPT_BOOL,                                                                             \
	     CLI_AT(T, record, no_history),                                                        \
	     NULL,                                                                                 \
	     "neither record the run in the history nor read it (for --shard)",                    \
	     NULL},                                                                                \
	    {"shard",                                                                              \
	     OPT_STRING,                                                                           \
	     CLI_AT(T, shard, spec),                                                               \
	     "K/N",                                                                                \
	     "measure only shard K of N of the selected benchmarks (merge the reports with "       \
	     "kagari merge)",                                                                      \
	     NULL},                                                                                \
	    {"replicate",                                                                          \
	     OPT_BOOL,                                                                             \
	     CLI_AT(T, shard, replicate),                                                          \
	     NULL,                                                                                 \
	     "with --shard: measure every benchmark in every shard; merge --replicate pools the "  \
	     "rounds",                                                                             \
	     NULL},                                                                                \
	    OPT_ALLOW_PULL_REQUEST_TARGET

#endif
