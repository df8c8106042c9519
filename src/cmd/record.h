/*
 * cmd/record: appending a finished run to the history (history/history.h)
 * for `run`, `compare` and `ci`, and where that history lives.
 */
#ifndef KAGARI_CMD_RECORD_H
#define KAGARI_CMD_RECORD_H

#include "cmd/cmd.h"
#include "cmd/common.h"

struct session;

/*
 * The history file a command uses: `history` (--history FILE), else
 * .kagari/history.sqlite in the folder of the first suite. Caller frees.
 */
char *record_history_path(const char *history, const struct loaded_suites *ls);
/* The busy timeout: $KAGARI_HISTORY_TIMEOUT_MS, else the default. */
int record_timeout_ms(void);
/*
 * Append s's judged result (called after the reports are written, so a
 * history that cannot be written never costs the report). Returns 0, or
 * EXIT_EXEC with the error printed. Nothing happens with --no-history or
 * for an interrupted run.
 */
int record_session(struct session *s);

#endif
