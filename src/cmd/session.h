/*
 * cmd/session: the pipeline `run`, `compare` and `ci` share.
 *
 * Call order:
 *   session_prepare()        load and select suites, check destinations,
 *                            refuse what this version cannot do, preflight,
 *                            make the private temporary folder, seed
 *   session_measure_suite()  once per suite, with one or two sides; copies
 *                            each command's analysis settings into the result
 *   session_finish()         analyze_result() (analyze/analyze.h), then the
 *                            exit code (cmd/outcome.h), errors, reports,
 *                            then the history (cmd/record.h: after the
 *                            reports, so it never costs one)
 *   session_release()
 * Everything here prints its own messages (this is cmd/).
 */
#ifndef KAGARI_CMD_SESSION_H
#define KAGARI_CMD_SESSION_H

#include "cmd/cmd.h"
#include "cmd/common.h"
#include "measure/execute.h"
#include "measure/sysinfo.h"
#include "report/report.h"
#include "model/result.h"

struct destination {
	enum report_format format;
	char *path;	 /* NULL: stdout */
	char *section;	 /* markdown: rewrite only this section of path */
	char *canonical; /* path with its folder resolved, for conflicts */
	char *label;	 /* "--output" or "FILE:L:C: report.outputs[K].path:" */
	int bad_code;	 /* exit code when path cannot take a report */
};

struct progress {
	int enabled;
	const char *suite;
	int shown;
};

/*
 * What a session is asked to do, filled by the command from its own
 * options (the session reads no command's option struct, and a command
 * changes what it asks here, never in its parsed options). Pointers are
 * borrowed for the session's life; a NULL family is one the command does
 * not take.
 */
struct session_config {
	const char *mode;		       /* the report's mode: "run", "compare", "bench" */
	const char *history_kind;	       /* the history's runs.kind ("ci"); NULL: mode */
	const char *tmp_prefix;		       /* of the private folder in TMPDIR */
	const struct strvec *paths;	       /* suite files or folders (none: ./kagari.yaml) */
	const struct cli_selection *selection; /* NULL: every benchmark */
	const struct cli_measure *measure;     /* never NULL */
	const struct cli_shard *shard;	       /* NULL: not sharded */
	/* The reports: --format (NULL: table), --output (NULL: stdout),
	   --section, --summary, --time-unit (NULL: per value); exports: more
	   reports as FORMAT, PATH, LABEL triples (bench's --export-json ...),
	   or NULL. */
	const char *format, *output, *section, *summary, *time_unit;
	const struct strvec *exports;
	int quiet;    /* no progress line */
	int no_color; /* no colour on a terminal */
	/* The history: --history FILE (NULL: beside the first suite);
	   no_history: neither read nor recorded. */
	const char *history;
	int no_history;
	int fail_on_inconclusive;
	const char *suite_from; /* compare, ci: --suite-from, or NULL */
	/* Suites already found and loaded (compare's gate: the base
	   revision's, cmd/gate_suites.h), taken over by session_prepare()
	   and left empty; NULL: session_prepare() loads `paths`. */
	struct loaded_suites *suites;
	/* More of kagari's own files, no change to the measured code
	   (git_head_info()'s skip): the working tree's suite files the
	   base's copies ran in place of. NULL: none. */
	const struct strvec *own_files;
};

/* Copy the report fields (format ... no_color) of out into cfg. */
void session_config_out(struct session_config *cfg, const struct cli_out *out);
/* Copy --history and --no-history of rec into cfg. */
void session_config_record(struct session_config *cfg, const struct cli_record *rec);

struct session {
	struct session_config cfg;
	struct cmd_env *env;
	struct loaded_suites ls;
	struct destination *dest;
	size_t nr_dest, dest_alloc;
	char *tmp;	   /* private 0700 folder, removed by session_release */
	int tmp_lock;	   /* flock held on tmp/lock while we live (tmpdir_lock()) */
	int have_tmp_lock; /* tmp_lock is open (a zeroed session has none) */
	struct run_result r;
	struct progress prog;
	struct execute_options opts;
	int exec_rc;				/* failures outside commands (builds, git) */
	struct execute_instruments instruments; /* valgrind / shim probes */
	/*
	 * Optional (NULL: none): called by session_finish() with the judged
	 * result in s->r, after the reports are written and before the closing
	 * message; `ci` emits its annotations and step summary here. Returns
	 * 0, or an exit code merged like a report that could not be written.
	 */
	int (*after_measure)(struct session *s, void *data);
	void *after_data;
	/*
	 * Set (kagari aa): each suite is built once per side, as compare
	 * builds it (the head in its tree, the base in its own), and every
	 * later call of session_measure_suite() runs those artifacts
	 * (built[i][side], owned, for suite i).
	 */
	int build_once;
	char *(*built)[SIDE__COUNT];
	/*
	 * Set (owned) when the base is built in a folder whose path is not
	 * as long as the head's, saying so and what would fix it
	 * (compare_note_path_length()): a suite whose two ${artifact} then
	 * differ in size gets it as a warning.
	 */
	char *path_length_note;
	/*
	 * The suite execute_suite() is measuring, for the sequential looks
	 * (session_look): set by session_measure_suite(), and by a caller
	 * that measures into a result of its own (bisect) before each
	 * execute_suite() with s->opts.
	 */
	const struct suite *measuring;
	/* /proc/stat at the start, for environment.steal_percent. */
	struct cpu_ticks ticks_start;
	int have_ticks_start;
	/*
	 * The repository of the first suite, its HEAD and `git status` when
	 * the session started (NULL outside a repository); session_finish()
	 * reads them again. Different: HEAD moved or the working tree changed
	 * while measuring (git_moved), and the run is recorded as dirty.
	 */
	char *git_repo, *git_start_sha;
	struct sbuf git_start_status;
	/* Untracked files that are kagari's own, not a change to the tree:
	   the suite files, the outputs, the history (git_head_info()). */
	struct strvec git_skip;
	int git_moved;
	/* Warnings already said on stderr before measuring (session_warn_now()):
	   session_finish() does not say them again. */
	struct strvec warned;
};

/* Returns 0, or the exit code to stop with (message printed). cfg is
   copied; what it points to must outlive the session. */
int session_prepare(struct session *s, const struct session_config *cfg, struct cmd_env *env);
/*
 * Build and measure suite i on `sides` into a new suite_result (sides with
 * present == 0 are skipped; each present side needs root, head_root and
 * tmpdir; artifact is filled here when the suite has `build`). Returns the
 * new suite_result.
 */
struct suite_result *session_measure_suite(struct session *s, size_t i,
					   struct execute_side sides[SIDE__COUNT]);
/*
 * A warning said now, on stderr, before anything is measured, and kept in
 * the report's warnings (which session_finish() does not print again).
 */
void session_warn_now(struct session *s, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));
/* Analyse, map to the exit code, print command errors, write every report;
   returns the exit code. */
int session_finish(struct session *s);
void session_release(struct session *s);

#endif
