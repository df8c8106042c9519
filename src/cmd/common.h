/*
 * cmd/common: what several commands share — finding and loading the suites
 * named on the command line, and selecting benchmarks by --filter/--tag.
 * These print their own errors (this is cmd/) and return exit codes.
 */
#ifndef KAGARI_CMD_COMMON_H
#define KAGARI_CMD_COMMON_H

#include <stddef.h>

#include "base/opts.h"
#include "base/strvec.h"
#include "cmd/cmd.h"
#include "suite/model.h"

struct run_result;

struct loaded_suites {
	struct suite **suites;
	size_t nr;
	/* selected[i][b]: benchmark b of suite i is selected */
	unsigned char **selected;
	size_t nr_selected; /* benchmarks selected in all */
};

/*
 * Discover and load every suite of paths (the positional arguments). On
 * failure (a missing path too) prints all errors and returns
 * EXIT_INVALID; 0 on success.
 */
int common_load(const struct strvec *paths, struct loaded_suites *ls);
/* Load suite files (suite_discover()'s) into ls; EXIT_INVALID (each
   problem printed) when one is invalid, else 0. */
int common_load_files(const struct strvec *files, struct loaded_suites *ls);
/*
 * Apply --filter, --tag, --skip-tag (sel; NULL selects everything).
 * Returns 0, or EXIT_USAGE (printed) for a bad regex or when nothing is
 * selected.
 */
int common_select(const struct cli_selection *sel, struct loaded_suites *ls);
/*
 * Put suite s (owned from now on) in place of suite i and select its
 * benchmarks by the same flags (sel, NULL: all); returns how many are
 * selected (0 is not an error here). sharded: --shard without --replicate
 * narrowed the selection. compare uses it to run the base commit's copy of
 * a suite.
 */
size_t common_replace_suite(const struct cli_selection *sel, int sharded, struct loaded_suites *ls,
			    size_t i, struct suite *s);
/*
 * The benchmarks of `other` that --filter, --tag and --skip-tag select and
 * `ran` has no benchmark of that name: what running `ran` in its place
 * leaves out (compare's two copies of a suite). Their names go to out.
 */
void common_left_out(const struct cli_selection *sel, const struct suite *ran,
		     const struct suite *other, struct strvec *out);
void common_release(struct loaded_suites *ls);

/*
 * --max-percent (compare, ci, report --reanalyze), repeatable: "P" is the
 * tolerance of latency, "METRIC=P" of METRIC (a percentage as the suite
 * writes it, in (0, 1000]). Fills ov->max_percent; returns 0 or EXIT_USAGE
 * (printed).
 */
struct analyze_overrides;
int common_parse_max_percent(const struct strvec *args, struct analyze_overrides *ov);
/* --confidence C as the suite's regression.confidence takes it (0.5 to
   0.999): 0 with *c set, or EXIT_USAGE after naming the value. */
int common_parse_confidence(const char *text, double *c);
/* Those tolerances in place of the suites' own, on every command (the
   suite's defaults, each benchmark's and each command's regression). */
void common_apply_max_percent(struct loaded_suites *ls, const struct analyze_overrides *ov);

/*
 * Warn (once per `runs` key, with its FILE:LINE:COL) when a fixed `runs`
 * gives too few rounds for any gated comparison to reach the suite's
 * confidence: the smallest p the exact test can give must be below
 * (1 - confidence) / m for Holm's first step over the m gated comparisons
 * of the fixed design. And (once per `rare_share` key) when the head runs
 * a pass needs for regression.rare_share are more than `runs`, or than
 * `max_runs` in the sequential design: no comparison could ever pass.
 * Returns the number of warnings printed.
 */
size_t common_warn_power(const struct suite *s);

/*
 * The files a command reads (suite files, stdin files, a saved report, the
 * history database), so
 * that no output overwrites one. what[i] describes paths[i] for messages:
 * "the suite file 'kagari.yaml'".
 */
struct input_files {
	struct strvec paths;
	struct strvec what;
};
#define INPUT_FILES_INIT                                                                           \
	{                                                                                          \
		STRVEC_INIT, STRVEC_INIT                                                           \
	}
void input_files_add(struct input_files *in, const char *path, const char *what);
/* Every suite file of ls, and every stdin file its benchmarks name. */
void input_files_add_suites(struct input_files *in, const struct loaded_suites *ls);
/* The history database at path (record_history_path()). */
void input_files_add_history(struct input_files *in, const char *path);
void input_files_release(struct input_files *in);
/*
 * Check an output before anything is measured: a path no report can go to
 * (report_output_check(): a directory, a socket, a section in a FIFO ...)
 * or one that names an input (the same file however spelled or linked, or
 * the same resolved path when one does not exist yet) is refused. label
 * starts the message ("--output", "FILE:L:C: report.outputs[0].path:").
 * Prints the error and returns code; 0 when the output may be written.
 */
int common_check_output(const char *label, const char *path, const char *section,
			const struct input_files *in, int code);

/*
 * A rendered report (or table) to path, atomically and into `section` when
 * given (report_output_write()), or to standard output when path is NULL.
 * Prints what went wrong; 0, or EXIT_EXEC when it could not be written.
 */
int common_write_output(const char *path, const char *section, const char *text, size_t len);

/* --summary FILE: r as GitHub-flavoured Markdown appended to path. Prints
   what went wrong; 0, or EXIT_EXEC when it could not be. */
int common_write_summary(const struct run_result *r, const char *path);

#endif
