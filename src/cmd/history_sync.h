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
 * dir) with the branch and remote of hb (NULL fields: the defaults). Its one-line result goes to
 * `to` (stdout for the subcommands, stderr where stdout is a report); warnings and errors to
 * stderr. Returns 0, EXIT_USAGE (push: no history at path) or EXIT_EXEC.
 */
int history_sync_run(const struct cli_history_branch *hb, enum history_sync_op op, const char *path,
		     const char *dir, FILE *to);

/* The subcommand `kagari history push|pull` on the suites of paths (args
   with the subcommand taken off) and their history (--history FILE or
   NULL). */
int history_sync_exec(const struct strvec *paths, const char *history,
		      const struct cli_history_branch *hb, enum history_sync_op op);

#endif
