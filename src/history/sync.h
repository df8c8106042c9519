/*
 * history/sync: the history branch — a git branch of the repository
 * (`kagari-history` by default) that keeps every job's runs, so that a
 * history outlives the CI runner that measured it (docs/history.md).
 *
 * The branch holds a marker file KAGARI-HISTORY at its root (a branch
 * without it is not kagari's and is never read or written) and one compact
 * JSON file per run, runs/YYYY-MM/ORIGIN.json, named by the run's origin
 * (history_origin_new(): no other run can take it), holding
 *
 *	{"kagari_history": 1, "origin": ORIGIN,
 *	 "run": {time, started, kind, head_sha, base_sha, base_ref, dirty,
 *	         branch, seed, version, exit_code, kernel, counters_source},
 *	 "machine": {fingerprint, machine_id, cpu_model, cores, arch},
 *	 "results": [[suite, benchmark, command, side, metric, result, count,
 *	              median, mean, min, max, stddev, p95, verdict,
 *	              change_percent, ci_low_percent, ci_high_percent], ...],
 *	 "report": the JSON report as stored, or null}
 *
 * Files are only ever added, never edited, so two jobs that push at once
 * never conflict: the one whose push is rejected fetches the new tip,
 * builds its commit again on it and retries.
 *
 * Git is used through plumbing only, and the branch is fetched from and
 * pushed to the remote's URL (never its name: no remote-tracking ref is
 * updated): the fetched tip and the commit built go to the private ref
 * refs/kagari/history/BRANCH; the work tree, the index, HEAD, the user's
 * branches and remote-tracking refs are never touched. A commit is built by
 * one `git fast-import` (`--done`: a stream cut short commits nothing) and
 * a ref is only ever updated whole, by git.
 *
 * Nothing here prints: warnings go to res->warnings, errors to err (with
 * any credentials of the remote's URL replaced by "***").
 */
#ifndef KAGARI_HISTORY_SYNC_H
#define KAGARI_HISTORY_SYNC_H

#include <stddef.h>
#include <stdint.h>

#include "base/strvec.h"

struct history;
struct sbuf;

/* The run file format this kagari writes and reads (newer ones are skipped). */
#define HISTORY_RUN_FORMAT 1
/* The marker's format (a newer marker: the branch is refused). */
#define HISTORY_BRANCH_FORMAT 1
#define HISTORY_MARKER "KAGARI-HISTORY"
#define HISTORY_DEFAULT_BRANCH "kagari-history"
#define HISTORY_DEFAULT_REMOTE "origin"
/*
 * A run file larger than this is skipped by a pull, unread (named in a
 * warning): kagari's own are the size of their report, at most
 * HISTORY_MAX_REPORT_BYTES (16 MiB), and their results.
 */
#define HISTORY_MAX_RUN_FILE_BYTES ((size_t)32 << 20)
/* Pushes tried before giving up on a branch others keep moving. */
#define HISTORY_PUSH_ATTEMPTS 10

struct history_sync {
	const char *repo;   /* a folder inside the git repository */
	const char *remote; /* a remote's name, or a URL or path */
	const char *branch; /* the history branch's name */
	int attempts;	    /* push: at most this many (0: HISTORY_PUSH_ATTEMPTS) */
};

struct history_sync_result {
	char *url;	  /* the remote's URL, credentials redacted */
	char *tip;	  /* the branch's tip afterwards, NULL when it has none */
	size_t on_branch; /* run files in the branch afterwards */
	size_t pushed;	  /* push: runs added to the branch */
	size_t imported;  /* pull: runs added to the history */
	size_t present;	  /* pull: runs of the branch the history had */
	size_t skipped;	  /* pull: files skipped (each one a warning) */
	int attempts;	  /* push: pushes tried */
	int created;	  /* push: the branch was created */
	int rewritten;	  /* the branch was rewritten since it was last seen */
	struct strvec warnings;
};

/*
 * Append the history's runs that the branch lacks to it (creating it with
 * its marker when the remote has no such branch; nothing to push: nothing
 * is written). The commit is streamed to `git fast-import` a run file at a
 * time, so the memory it takes does not grow with the number of runs. Returns 0, or -1 with the
 * reason: not a repository, no such remote, a branch that is not kagari's (nothing written), git
 * failing, or pushes still rejected after o->attempts tries (naming the remote).
 */
int history_sync_push(struct history *h, const struct history_sync *o,
		      struct history_sync_result *res, struct sbuf *err);
/*
 * Import the branch's runs that the history lacks, in one transaction. A
 * file that is not a kagari run, of a newer format, or larger than
 * HISTORY_MAX_RUN_FILE_BYTES is skipped whole with a warning naming it
 * (its control characters escaped: file names and fields are anyone's); a branch rewritten since it
 * was last seen (its old tip is no ancestor of the new one) is a warning, and the history's runs
 * are kept. No branch on the remote: 0, nothing imported.
 */
int history_sync_pull(struct history *h, const struct history_sync *o,
		      struct history_sync_result *res, struct sbuf *err);
void history_sync_result_release(struct history_sync_result *res);

/* The URL with the password or token of its user part replaced by "***". */
char *history_sync_redact(const char *url);

/* --- run files (runfile.c) --------------------------------------------- */

/* "runs/YYYY-MM/ORIGIN.json", appended to out. */
void history_run_path(const char *origin, struct sbuf *out);
/* Give every run without an origin (runs of older kagari) its own. */
int history_assign_origins(struct history *h, struct sbuf *err);
/* Every run's origin, sorted (strcmp order), appended to out. */
int history_list_origins(struct history *h, struct strvec *out, struct sbuf *err);
/* The run file of the run `origin`, appended to out. 0 or -1. */
int history_run_export(struct history *h, const char *origin, struct sbuf *out, struct sbuf *err);
/*
 * Store the run file text (file name ORIGIN.json) inside the caller's
 * transaction, all of it or nothing: 1 added, 0 a run of that origin was
 * there, 2 skipped (not a kagari run, a newer format, a bad field: the
 * reason in why), -1 a database error in err.
 */
int history_run_import(struct history *h, const char *origin, const char *text, size_t len,
		       struct sbuf *why, struct sbuf *err);
int history_begin(struct history *h, struct sbuf *err);
int history_commit(struct history *h, struct sbuf *err);
void history_rollback(struct history *h);
/* sync_state: *value NULL when key is unknown; value NULL deletes. */
int history_state_get(struct history *h, const char *key, char **value, struct sbuf *err);
int history_state_set(struct history *h, const char *key, const char *value, struct sbuf *err);

#endif
