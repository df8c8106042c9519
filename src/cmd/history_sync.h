/*
 * cmd/history_sync: `kagari history push|pull`, `kagari history
 * --from-branch` and `kagari ci --history-push` — the history branch
 * (history/sync.h) from the command line: open the history, call the
 * library, print what happened.
 */
#ifndef KAGARI_CMD_HISTORY_SYNC_H
#define KAGARI_CMD_HISTORY_SYNC_H

#include <stdio.h>

#include "cmd/cmd.h"
#include "cmd/common.h"

enum history_sync_op { HISTORY_SYNC_PULL, HISTORY_SYNC_PUSH };

/*
 * Pull or push the history at `path` (the repository: the one holding
 * dir) with --remote/--branch of cli. Its one-line result goes to `to`
 * (stdout for the subcommands, stderr where stdout is a report);
 * warnings and errors to stderr. Returns 0, EXIT_USAGE (push: no history
 * at path) or EXIT_EXEC.
 */
int history_sync_run(const struct cli *cli, enum history_sync_op op, const char *path,
		     const char *dir, FILE *to);

/* The subcommand `kagari history push|pull` (args[0] taken off). */
int history_sync_exec(struct cli *cli, enum history_sync_op op);

#endif
