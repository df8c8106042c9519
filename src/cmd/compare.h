/*
 * cmd/compare: the engine of `compare` and `ci` — base worktree, both
 * sides measured interleaved, every comparison through the statistics of
 * analyze/compare.h with Holm across the run.
 */
#ifndef KAGARI_CMD_COMPARE_H
#define KAGARI_CMD_COMPARE_H

struct cli;
struct cmd_env;
struct session;

/* Compare the working tree with base_ref; returns the exit code. */
int compare_run(struct cli *cli, struct cmd_env *env, const char *mode,
		const char *base_ref);
/* Fill the comparisons of every measured command of s (after measuring). */
void compare_all(struct session *s);

#endif
