/*
 * history_internal: what the files of history/ share (history.c, the
 * store; runfile.c, a run as one file of the history branch; sync.c, the
 * branch itself). Not for other layers: they use history.h and sync.h.
 */
#ifndef KAGARI_HISTORY_HISTORY_INTERNAL_H
#define KAGARI_HISTORY_HISTORY_INTERNAL_H

#include <sqlite3.h>
#include <stdint.h>

#include "history/history.h"

struct sbuf;

/* The statements a pull runs once per run file, prepared once. */
enum history_stmt { STMT_IMPORT_MACHINE, STMT_IMPORT_RUN, STMT_IMPORT_RESULT, STMT__COUNT };

struct history {
	sqlite3 *db;
	char *path;
	sqlite3_stmt *stmt[STMT__COUNT]; /* history_cached() */
};

/* Statement `which` (sql) prepared on first use, then reset and its
   bindings cleared; finalized by history_close(). NULL with an error. */
sqlite3_stmt *history_cached(struct history *h, enum history_stmt which, const char *sql,
			     const char *what, struct sbuf *err);

/* "history 'PATH': WHAT: sqlite's message" (and a hint) appended to err. */
void history_db_error(struct history *h, const char *what, struct sbuf *err);
/* sql prepared into *st; -1 with an error naming `what` when it cannot be. */
int history_prepare(struct history *h, const char *sql, sqlite3_stmt **st, const char *what,
		    struct sbuf *err);
int history_exec_sql(struct history *h, const char *sql, const char *what, struct sbuf *err);
/* NULL binds NULL; a non-finite double binds NULL. */
void history_bind_text(sqlite3_stmt *st, int i, const char *s);
void history_bind_double(sqlite3_stmt *st, int i, double v);
/* The machines row of m (made when missing): its id, or -1. */
int64_t history_machine_row(struct history *h, const struct history_machine *m, struct sbuf *err);
/* Column i as a new string, NULL for NULL. */
char *history_col_text(sqlite3_stmt *st, int i);
/*
 * A bound query of at most one row stepped once: its first column as a new
 * string in *text (NULL when no row or NULL), st finalized either way; -1
 * with an error naming `what` when sqlite fails.
 */
int history_step_text(struct history *h, sqlite3_stmt *st, char **text, const char *what,
		      struct sbuf *err);

#endif
