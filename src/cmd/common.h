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
#include "report/inputs.h"
#include "suite/select.h"

struct run_result;

/*
 * Discover and load every suite of paths (the positional arguments,
 * suite/select.h). On failure (a missing path too) prints all errors and
 * returns EXIT_INVALID; 0 on success.
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
int common_select(const struct suite_selection *sel, struct loaded_suites *ls);
/* run/gate_suites.h's gate_suites_collect(), what it says printed: 0 or
   the exit code. */
struct gate_suites;
int gate_suites_find(const struct strvec *paths, const struct suite_selection *sel,
		     const char *base_ref, int explicit_base, struct gate_suites *g);

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
