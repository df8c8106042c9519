/*
 * cmd/compare: the engine of `compare` and `ci` — base worktree, both
 * sides measured interleaved; session_finish() analyses the result
 * (analyze/analyze.h: every comparison, Holm across the run).
 */
#ifndef KAGARI_CMD_COMPARE_H
#define KAGARI_CMD_COMPARE_H

#include "cmd/cli.h"

struct cmd_env;
struct git_worktree;
struct session;
struct session_config;

/* The options of `compare`; `ci` takes them all and more (cmd/ci.c). */
struct compare_cli {
	struct cli_common common;
	struct cli_selection selection;
	struct cli_out out;
	struct cli_measure measure;
	struct cli_record record;
	struct cli_shard shard;
	int fail_on_inconclusive;
	char *against;		   /* --against REV */
	char *suite_from;	   /* "base" | "head" | NULL (default) */
	struct strvec max_percent; /* [METRIC=]P, repeatable */
};

/* compare and ci: whose suites both sides run (the default differs:
   DEFAULT is the help's words for it; "base": cmd/gate_suites.h). */
#define OPT_SUITE_FROM(T, DEFAULT)                                                                 \
	{                                                                                          \
		"suite-from", OPT_ENUM, offsetof(T, suite_from), "SIDE",                           \
		    "run the base's suites (a suite only the head has: reported, not gating) "     \
		    "or the head's on both sides "                                                 \
		    "(default: " DEFAULT ")",                                                      \
		    "base|head"                                                                    \
	}

/* A compare session's configuration from cli (mode "compare"). */
void compare_config(const struct compare_cli *cli, struct session_config *cfg);
/*
 * Compare the working tree with base_ref in a session set up by cfg
 * (compare_config(), then any changes of the caller's; max_percent: the
 * --max-percent words); returns the exit code.
 * default_from: whose copy of each suite both sides run without
 * --suite-from, "head" (compare) or "base" (ci).
 * after_measure (may be NULL) becomes the session's hook (session.h): it is
 * called with after_data once the result is judged and the reports are
 * written, and only when measuring took place.
 */
int compare_run(const struct session_config *cfg, const struct strvec *max_percent,
		struct cmd_env *env, const char *base_ref, const char *default_from,
		int (*after_measure)(struct session *s, void *data), void *after_data);

/*
 * The base worktree wt (made with GIT_WORKTREE_SAME_LENGTH) could not be
 * as long as the working tree's path: keep why, and the TMPDIR that would
 * fix it, in s->path_length_note (said if the two builds then differ in
 * size).
 */
void compare_note_path_length(struct session *s, const struct git_worktree *wt);
/*
 * The base worktree's submodules (wt was made with
 * GIT_WORKTREE_NO_SUBMODULES), unless every suite of s says its build
 * needs none (`build: {submodules: false}`). Returns 0 or EXIT_EXEC
 * (message printed: git's reason, and the setting that avoids it).
 */
int compare_base_submodules(struct session *s, const struct git_worktree *wt, const char *base_ref);

#endif
