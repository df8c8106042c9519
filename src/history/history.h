/*
 * history: kagari's results store, an embedded SQLite database
 * (`.kagari/history.sqlite` beside the suite, docs/history.md).
 *
 * Every `run`, `compare` and `ci` appends one row per run (time, kind,
 * commits, dirtiness, branch, seed, version, exit code), the machine it ran
 * on (a fingerprint: hashed machine id, CPU model, cores), one row per
 * command, side and metric with the summary statistics and the verdict,
 * and the whole JSON report (samples and analysis settings, so any run can
 * be analysed again by `kagari report --reanalyze`), up to
 * HISTORY_MAX_REPORT_BYTES.
 *
 * Call order:
 *	struct history *h;
 *	history_open(path, timeout_ms, &h, &err);  creates the folder, its
 *	                                  .gitignore, the schema; migrates
 *	history_append(h, &rec, r, json, &err);     one transaction
 *	history_query(h, &q, &rows, &err);         the points of series
 *	history_close(h);
 *
 * Concurrency: WAL journal, a busy timeout, and every write in one
 * BEGIN IMMEDIATE transaction, so two kagari processes on one runner append
 * at once without losing a row. A database that is locked beyond the
 * timeout, corrupt, not a database, or of a newer schema is an error
 * (-1 with a reason naming the file); nothing here prints.
 *
 * This module never analyses: it stores what analyze_result() computed and
 * reads back series; cmd/ decides what to do with them.
 */
#ifndef KAGARI_HISTORY_HISTORY_H
#define KAGARI_HISTORY_HISTORY_H

#include <stddef.h>
#include <stdint.h>

#include "model/result.h"

struct sbuf;
struct history;

/* The schema this kagari writes; older databases are migrated forward. */
#define HISTORY_SCHEMA_VERSION 4
/* Reports larger than this are stored without their JSON (statistics only). */
#define HISTORY_MAX_REPORT_BYTES ((size_t)16 << 20)
#define HISTORY_DEFAULT_TIMEOUT_MS 10000

/* The machine a run was measured on. */
struct history_machine {
	char *fingerprint; /* 16 hex digits: hash of id, CPU model and cores */
	char *machine_id;  /* 16 hex digits: hash of /etc/machine-id (or
			      $KAGARI_MACHINE_ID, or the host name) */
	char *cpu_model;
	int cores;
	char *arch;
};

/* What a run adds beside its result. */
struct history_record {
	const char *kind;     /* "run" | "compare" | "ci" */
	const char *head_sha; /* NULL outside a repository */
	const char *base_sha, *base_ref;
	int dirty;	    /* -1 unknown */
	const char *branch; /* NULL when detached or unknown */
	int exit_code;
};

/*
 * Fill m for this machine from env (sysinfo's). forced_id, when not NULL or
 * empty, stands in for /etc/machine-id (cmd/ passes $KAGARI_MACHINE_ID, so
 * that tests and containers can name a machine). history_machine_release().
 */
void history_machine_detect(const struct environment_info *env, const char *forced_id,
			    struct history_machine *m);
void history_machine_release(struct history_machine *m);

/*
 * Open (creating the folder, a `.gitignore` holding `*` in it when kagari
 * made the folder or the file is missing, and the database) and bring the
 * schema to HISTORY_SCHEMA_VERSION. A new database is only made where no
 * file is; an existing file without kagari's schema (an empty file,
 * another program's database) is refused, never written into. timeout_ms:
 * how long to wait for another writer. Returns 0, or -1 with a reason in
 * err (*out NULL).
 */
int history_open(const char *path, int timeout_ms, struct history **out, struct sbuf *err);
/*
 * Open an existing history for reading only (`kagari history`, --shard's
 * durations): nothing is created or migrated, and a history in a folder
 * this process may not write is still read. Returns 0, or -1 with a
 * reason in err (no such file, not a kagari history, a newer schema).
 */
int history_open_read(const char *path, int timeout_ms, struct history **out, struct sbuf *err);
void history_close(struct history *h);
/* The schema version the file holds (after history_open: the current one). */
int history_schema_version(struct history *h);

/*
 * Append run r (analysed) as one transaction; report_json (may be NULL) is
 * the JSON report as written. Returns the new run's id (> 0), or -1.
 */
int64_t history_append(struct history *h, const struct history_record *rec,
		       const struct history_machine *m, const struct run_result *r,
		       const char *report_json, struct sbuf *err);

/* One stored measurement: the head side's median of one metric in one run. */
struct history_point {
	char *suite, *benchmark, *command, *metric;
	char *fingerprint; /* the machine's */
	char *cpu_model;
	char *sha;
	char *time; /* RFC 3339, when the run finished */
	double median;
	int64_t run; /* the run's id */
	/* The run's kind ("run", "compare", "ci"), the command's result
	   ("pass", "regression", ... docs/contract.md) and, when the run
	   compared this metric, its verdict and change with its interval
	   (percent; NAN and NULL when it did not). */
	char *kind, *result, *verdict;
	double change_percent, ci_low_percent, ci_high_percent;
	/* The paired comparison's other numbers (schema 4; NAN and -1 in
	   runs recorded before): the change of the mean with its interval,
	   the p-value, the tolerance T it was judged by (percent) and whether
	   it gated. base_sha, base_ref: the commit it compared with (the
	   run's; NULL for a `run`). */
	double mean_change_percent, mean_ci_low_percent, mean_ci_high_percent;
	double p_value, max_percent;
	int gate;
	char *base_sha, *base_ref;
};

struct history_points {
	struct history_point *v;
	size_t nr, alloc;
};

/*
 * Every head-side median stored for clean commits (dirty runs and runs
 * outside a repository have no commit to stand for), ordered by suite,
 * benchmark, command, metric, machine and time. suite/metric: NULL for
 * all, else only that one.
 */
int history_query(struct history *h, const char *suite, const char *metric,
		  struct history_points *out, struct sbuf *err);
void history_points_release(struct history_points *p);

/*
 * A run's origin: a name no other run takes, kept with the run (runs.origin)
 * and naming its file in the history branch (history/sync.h):
 * "YYYYMMDDTHHMMSSZ-SHA12-FINGERPRINT-RANDOM12" — the finish time (an
 * RFC 3339 UTC time; zeros when NULL or unreadable), the first 12 hex
 * digits of the head commit (zeros outside a repository), the machine
 * fingerprint (16 hex digits) and 48 random bits. Caller frees.
 */
char *history_origin_new(const char *time, const char *head_sha, const char *fingerprint);
/* 1 when s has the shape history_origin_new() gives. */
int history_origin_valid(const char *s);

/*
 * The JSON report stored with run id (history_point.run) in *report
 * (caller frees; NULL when the run has none: a report over
 * HISTORY_MAX_REPORT_BYTES, or none was written). 0, or -1 with a reason.
 */
int history_run_report(struct history *h, int64_t run, char **report, struct sbuf *err);

/* The number of runs stored. */
int64_t history_count_runs(struct history *h, struct sbuf *err);

/*
 * The mean wall time (ms, head side) of each command in its most recent
 * runs on machine fingerprint: for balancing shards. *ms is filled for
 * each (suite, benchmark, command) triple asked for, NAN when unknown.
 */
int history_expected_ms(struct history *h, const char *fingerprint, const char *const *suite,
			const char *const *bench, const char *const *cmd, size_t n, double *ms,
			struct sbuf *err);

#endif
