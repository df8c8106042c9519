/*
 * cmd/compare: the engine of `compare` and `ci` — base worktree, both
 * sides measured interleaved; session_finish() analyses the result
 * (analyze/analyze.h: every comparison, Holm across the run).
 */
#ifndef KAGARI_CMD_COMPARE_H
#define KAGARI_CMD_COMPARE_H

struct cli;
struct cmd_env;
struct session;

/*
 * Compare the working tree with base_ref; returns the exit code.
 * default_from: whose copy of each suite both sides run without
 * --suite-from, "head" (compare) or "base" (ci).
 * after_measure (may be NULL) becomes the session's hook (session.h): it is
 * called with after_data once the result is judged and the reports are
 * written, and only when measuring took place.
 */
int compare_run(struct cli *cli, struct cmd_env *env, const char *mode,
		const char *base_ref, const char *default_from,
		int (*after_measure)(struct session *s, void *data),
		void *after_data);

#endif
