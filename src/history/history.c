/*
 * history: the SQLite results store (history.h; docs/history.md has the
 * schema and the policies).
 */
#include "history/history.h"

#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <stdio.h>
#include <sqlite3.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "base/fileio.h"
#include "base/sbuf.h"
#include "base/xalloc.h"
#include "history/history_internal.h"

/*
 * The forward migrations: migrations[i] takes a database from schema
 * version i to i + 1 (PRAGMA user_version). Never edit a shipped step;
 * add one.
 */
static const char *const migrations[] = {
    /* 0 -> 1: runs, machines, per-metric results. */
    "CREATE TABLE machines ("
    "  id INTEGER PRIMARY KEY,"
    "  fingerprint TEXT NOT NULL UNIQUE,"
    "  machine_id TEXT, cpu_model TEXT, cores INTEGER, arch TEXT);"
    "CREATE TABLE runs ("
    "  id INTEGER PRIMARY KEY,"
    "  time TEXT NOT NULL, started TEXT, kind TEXT NOT NULL,"
    "  head_sha TEXT, base_sha TEXT, base_ref TEXT, dirty INTEGER,"
    "  branch TEXT, seed INTEGER, version TEXT, exit_code INTEGER,"
    "  machine INTEGER NOT NULL REFERENCES machines(id),"
    "  kernel TEXT, counters_source TEXT, report TEXT);"
    "CREATE TABLE results ("
    "  run INTEGER NOT NULL REFERENCES runs(id),"
    "  suite TEXT NOT NULL, benchmark TEXT NOT NULL, command TEXT NOT NULL,"
    "  side TEXT NOT NULL, metric TEXT NOT NULL, result TEXT,"
    "  count INTEGER, median REAL, mean REAL, min REAL, max REAL,"
    "  stddev REAL, p95 REAL,"
    "  verdict TEXT, change_percent REAL, ci_low_percent REAL,"
    "  ci_high_percent REAL);",
    /* 1 -> 2: the indexes the history and shard queries use. */
    "CREATE INDEX results_series ON results(suite, benchmark, command, metric, side);"
    "CREATE INDEX results_run ON results(run);"
    "CREATE INDEX runs_machine ON runs(machine, time);",
    /* 2 -> 3: the history branch (history/sync.h). Every run gets an
       origin, a name no other run can take (history_origin_new()), so a
       run imported twice is one run; runs of older files get theirs when
       they are first pushed. sync_state remembers the last tip of each
       branch seen, to notice a branch rewritten by a force-push. */
    "ALTER TABLE runs ADD COLUMN origin TEXT;"
    "CREATE UNIQUE INDEX runs_origin ON runs(origin);"
    "CREATE TABLE sync_state (key TEXT PRIMARY KEY, value TEXT NOT NULL);",
    /* 3 -> 4: the rest of a paired comparison, so that the history keeps
       what compare and ci measured (docs/history.md, "Verdicts"): the
       change of the mean and its interval, the p-value, the tolerance
       and whether the metric gated. */
    "ALTER TABLE results ADD COLUMN mean_change_percent REAL;"
    "ALTER TABLE results ADD COLUMN mean_ci_low_percent REAL;"
    "ALTER TABLE results ADD COLUMN mean_ci_high_percent REAL;"
    "ALTER TABLE results ADD COLUMN p_value REAL;"
    "ALTER TABLE results ADD COLUMN max_percent REAL;"
    "ALTER TABLE results ADD COLUMN gate INTEGER;",
};
#define NR_MIGRATIONS (sizeof(migrations) / sizeof(migrations[0]))
_Static_assert(NR_MIGRATIONS == HISTORY_SCHEMA_VERSION, "one migration per version");

void history_db_error(struct history *h, const char *what, struct sbuf *err)
{
	int code = sqlite3_extended_errcode(h->db);
	sbuf_addf(err, "history '%s': %s: %s", h->path, what, sqlite3_errmsg(h->db));
	if ((code & 0xff) == SQLITE_BUSY || (code & 0xff) == SQLITE_LOCKED)
		sbuf_adds(err, " (another process holds it; waited for the busy timeout)");
	else if ((code & 0xff) == SQLITE_CORRUPT || (code & 0xff) == SQLITE_NOTADB)
		sbuf_adds(err, " (move the file aside to start a new history)");
}

/* sql prepared into *st; -1 with an error naming `what` when it cannot be. */
int history_prepare(struct history *h, const char *sql, sqlite3_stmt **st, const char *what,
		    struct sbuf *err)
{
	if (sqlite3_prepare_v2(h->db, sql, -1, st, NULL) == SQLITE_OK)
		return 0;
	history_db_error(h, what, err);
	return -1;
}

int history_exec_sql(struct history *h, const char *sql, const char *what, struct sbuf *err)
{
	if (sqlite3_exec(h->db, sql, NULL, NULL, NULL) == SQLITE_OK)
		return 0;
	history_db_error(h, what, err);
	return -1;
}

/* 64-bit FNV-1a: a stable, short, non-reversible machine id. */
static uint64_t fnv1a(uint64_t h, const char *s)
{
	if (!h)
		h = UINT64_C(14695981039346656037);
	for (; s && *s; s++) {
		h ^= (unsigned char)*s;
		h *= UINT64_C(1099511628211);
	}
	h ^= 0xff; /* field separator */
	h *= UINT64_C(1099511628211);
	return h;
}

void history_machine_detect(const struct environment_info *env, const char *forced_id,
			    struct history_machine *m)
{
	memset(m, 0, sizeof(*m));
	struct sbuf id = SBUF_INIT;
	if (forced_id && *forced_id)
		sbuf_adds(&id, forced_id);
	else if (sbuf_read_file(&id, "/etc/machine-id", 4096) || !id.len) {
		char host[256] = "";
		sbuf_reset(&id);
		gethostname(host, sizeof(host) - 1);
		sbuf_addf(&id, "host:%s", host);
	}
	sbuf_rtrim(&id);
	m->machine_id = xstrfmt("%016llx", (unsigned long long)fnv1a(0, id.buf));
	m->cpu_model = xstrdup(env->cpu_model ? env->cpu_model : "unknown");
	m->cores = env->logical_cpus;
	m->arch = xstrdup(env->arch ? env->arch : "unknown");
	/* The series of one machine: same box, same CPU, same core count. */
	uint64_t h = fnv1a(0, m->machine_id);
	h = fnv1a(h, m->cpu_model);
	char cores[32];
	snprintf(cores, sizeof(cores), "%d", m->cores);
	h = fnv1a(h, cores);
	m->fingerprint = xstrfmt("%016llx", (unsigned long long)h);
	sbuf_release(&id);
}

void history_machine_release(struct history_machine *m)
{
	free(m->fingerprint);
	free(m->machine_id);
	free(m->cpu_model);
	free(m->arch);
	memset(m, 0, sizeof(*m));
}

/* mkdir -p of the folder holding path; a .gitignore with `*` in the last. */
static int make_folder(const char *path, struct sbuf *err)
{
	char *dir = xstrdup(path);
	char *slash = strrchr(dir, '/');
	int rc = 0;
	if (!slash) {
		free(dir);
		return 0;
	}
	*slash = 0;
	if (!*dir) {
		free(dir);
		return 0;
	}
	struct stat st;
	if (stat(dir, &st) == 0) {
		if (!S_ISDIR(st.st_mode)) {
			sbuf_addf(err, "history '%s': '%s' is not a folder", path, dir);
			free(dir);
			return -1;
		}
		/* Kagari's own `.kagari` gets its .gitignore even when someone
		   else made the folder; any other folder is the user's. */
		const char *base = strrchr(dir, '/');
		if (strcmp(base ? base + 1 : dir, ".kagari")) {
			free(dir);
			return 0;
		}
		goto ignore;
	}
	for (char *p = dir + 1; *p; p++) {
		if (*p != '/')
			continue;
		*p = 0;
		if (mkdir(dir, 0777) && errno != EEXIST) {
			sbuf_addf(err, "history '%s': cannot create '%s': %s", path, dir,
				  strerror(errno));
			free(dir);
			return -1;
		}
		*p = '/';
	}
	if (mkdir(dir, 0777) && errno != EEXIST) {
		sbuf_addf(err, "history '%s': cannot create '%s': %s", path, dir, strerror(errno));
		free(dir);
		return -1;
	}
ignore:;
	/* A folder kagari made is kagari's: git ignores all of it. */
	char *ign = xstrfmt("%s/.gitignore", dir);
	int fd = open(ign, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0666);
	if (fd >= 0) {
		static const char text[] =
		    "# written by kagari: the history is local to this machine\n*\n";
		if (fileio_write_all(fd, text, sizeof(text) - 1))
			rc = -1;
		if (close(fd))
			rc = -1;
		if (rc)
			sbuf_addf(err, "history '%s': cannot write '%s': %s", path, ign,
				  strerror(errno));
	}
	free(ign);
	free(dir);
	return rc;
}

int history_schema_version(struct history *h)
{
	sqlite3_stmt *st = NULL;
	int v = -1;
	if (sqlite3_prepare_v2(h->db, "PRAGMA user_version", -1, &st, NULL) == SQLITE_OK &&
	    sqlite3_step(st) == SQLITE_ROW)
		v = sqlite3_column_int(st, 0);
	sqlite3_finalize(st);
	return v;
}

/* Bring the schema forward inside one write transaction (two processes
   opening a new file at once: the second finds it done). */
static int migrate(struct history *h, struct sbuf *err)
{
	if (history_exec_sql(h, "BEGIN IMMEDIATE", "cannot lock the database", err))
		return -1;
	int v = history_schema_version(h);
	if (v < 0) {
		history_db_error(h, "cannot read the schema version", err);
		goto fail;
	}
	if (v > HISTORY_SCHEMA_VERSION) {
		sbuf_addf(err,
			  "history '%s': schema version %d was written by a newer kagari (this one "
			  "knows up to %d); use that kagari or --history another file",
			  h->path, v, HISTORY_SCHEMA_VERSION);
		goto fail;
	}
	for (; v < HISTORY_SCHEMA_VERSION; v++) {
		struct sbuf what = SBUF_INIT;
		sbuf_addf(&what, "cannot migrate the schema from version %d to %d", v, v + 1);
		int bad = history_exec_sql(h, migrations[v], what.buf, err);
		sbuf_release(&what);
		if (bad)
			goto fail;
		char *set = xstrfmt("PRAGMA user_version = %d", v + 1);
		bad = history_exec_sql(h, set, "cannot set the schema version", err);
		free(set);
		if (bad)
			goto fail;
	}
	if (history_exec_sql(h, "COMMIT", "cannot commit the schema", err))
		goto fail;
	return 0;
fail:
	sqlite3_exec(h->db, "ROLLBACK", NULL, NULL, NULL);
	return -1;
}

/* path opened with flags into a new struct history; NULL with a reason. */
static struct history *open_db(const char *path, const char *as, int flags, int timeout_ms,
			       struct sbuf *err)
{
	struct history *h = xcalloc(1, sizeof(*h));
	h->path = xstrdup(path);
	if (sqlite3_open_v2(as, &h->db, flags | SQLITE_OPEN_NOMUTEX, NULL) != SQLITE_OK) {
		if (h->db)
			history_db_error(h, "cannot open", err);
		else
			sbuf_addf(err, "history '%s': cannot open (out of memory)", path);
		history_close(h);
		return NULL;
	}
	sqlite3_extended_result_codes(h->db, 1);
	sqlite3_busy_timeout(h->db, timeout_ms);
	return h;
}

/* WAL (kept in the file's header from then on) and the connection's pragmas. */
static int configure(struct history *h, int timeout_ms, struct sbuf *err)
{
	/*
	 * Switching to WAL takes an exclusive lock for a moment and may
	 * answer SQLITE_BUSY without the busy handler: retry until the
	 * timeout like the handler would.
	 */
	struct timespec t0, now;
	clock_gettime(CLOCK_MONOTONIC, &t0);
	for (;;) {
		int rc = sqlite3_exec(h->db, "PRAGMA journal_mode=WAL", NULL, NULL, NULL);
		if (rc == SQLITE_OK)
			break;
		clock_gettime(CLOCK_MONOTONIC, &now);
		long ms = (now.tv_sec - t0.tv_sec) * 1000 + (now.tv_nsec - t0.tv_nsec) / 1000000;
		if ((rc & 0xff) != SQLITE_BUSY || ms > timeout_ms) {
			history_db_error(h, "cannot use it", err);
			return -1;
		}
		usleep(10000);
	}
	return history_exec_sql(h, "PRAGMA synchronous=NORMAL; PRAGMA foreign_keys=ON",
				"cannot configure", err);
}

/*
 * A new history at path: the schema is written into a private file in the
 * same folder, which is then linked into place, so path never exists
 * without the schema (a run killed half-way leaves no empty file that
 * would later pass for a history). Another process that got there first
 * wins; ours is dropped. Returns 0 (path exists now) or -1.
 */
static int create_db(const char *path, int timeout_ms, struct sbuf *err)
{
	char *tmp = xstrfmt("%s.new-XXXXXX", path);
	int fd = mkstemp(tmp);
	if (fd < 0) {
		sbuf_addf(err, "history '%s': cannot create '%s': %s", path, tmp, strerror(errno));
		free(tmp);
		return -1;
	}
	close(fd);
	struct history *h = open_db(path, tmp, SQLITE_OPEN_READWRITE, timeout_ms, err);
	int rc = h && !configure(h, timeout_ms, err) && !migrate(h, err) ? 0 : -1;
	history_close(h); /* checkpoints: the file alone holds it all */
	if (!rc && link(tmp, path) && errno != EEXIST) {
		sbuf_addf(err, "history '%s': cannot create it: %s", path, strerror(errno));
		rc = -1;
	}
	unlink(tmp);
	free(tmp);
	return rc;
}

/* How many tables the database holds; -1 when it cannot be read. */
static int count_tables(struct history *h)
{
	sqlite3_stmt *st = NULL;
	int n = -1;
	if (sqlite3_prepare_v2(h->db, "SELECT count(*) FROM sqlite_master", -1, &st, NULL) ==
		SQLITE_OK &&
	    sqlite3_step(st) == SQLITE_ROW)
		n = sqlite3_column_int(st, 0);
	sqlite3_finalize(st);
	return n;
}

/*
 * An existing file without kagari's schema (schema version 0: an empty
 * file, another program's database) is not ours to write a schema into:
 * a history is only ever created where no file was (create_db()).
 */
static int check_is_history(struct history *h, struct sbuf *err)
{
	int v = history_schema_version(h);
	if (v < 0) {
		history_db_error(h, "cannot read the schema version", err);
		return -1;
	}
	if (v == 0) {
		sbuf_addf(err,
			  "history '%s' is %s, not a kagari history; refusing to write a schema "
			  "into it (remove it, or use --history with another file)",
			  h->path,
			  count_tables(h) > 0 ? "another program's database" : "an empty file");
		return -1;
	}
	return 0;
}

int history_open(const char *path, int timeout_ms, struct history **out, struct sbuf *err)
{
	*out = NULL;
	if (make_folder(path, err))
		return -1;
	struct stat st;
	if (stat(path, &st) && errno == ENOENT && create_db(path, timeout_ms, err))
		return -1;
	struct history *h = open_db(path, path, SQLITE_OPEN_READWRITE, timeout_ms, err);
	if (!h)
		return -1;
	if (check_is_history(h, err) || configure(h, timeout_ms, err) || migrate(h, err)) {
		history_close(h);
		return -1;
	}
	*out = h;
	return 0;
}

int history_open_read(const char *path, int timeout_ms, struct history **out, struct sbuf *err)
{
	*out = NULL;
	/*
	 * Read-only, and nothing created: no folder, no .gitignore, no
	 * schema. A WAL database needs its -shm beside it even to read; in a
	 * folder we may not write, where nobody else can be writing it
	 * through this path either, it is read as immutable instead.
	 */
	char *dir = xstrdup(path);
	char *slash = strrchr(dir, '/');
	if (slash)
		slash[slash == dir ? 1 : 0] = 0;
	int writable = access(slash ? dir : ".", W_OK) == 0;
	free(dir);
	struct history *h;
	if (writable) {
		h = open_db(path, path, SQLITE_OPEN_READONLY, timeout_ms, err);
	} else {
		struct sbuf uri = SBUF_INIT;
		sbuf_adds(&uri, "file:");
		for (const char *p = path; *p; p++)
			if (*p == '%' || *p == '?' || *p == '#')
				sbuf_addf(&uri, "%%%02X", (unsigned char)*p);
			else
				sbuf_addch(&uri, *p);
		sbuf_adds(&uri, "?immutable=1");
		h = open_db(path, uri.buf, SQLITE_OPEN_READONLY | SQLITE_OPEN_URI, timeout_ms, err);
		sbuf_release(&uri);
	}
	if (!h)
		return -1;
	int v = history_schema_version(h);
	if (v < 0) {
		history_db_error(h, "cannot read the schema version", err);
	} else if (v == 0) {
		sbuf_addf(err, "history '%s' is %s, not a kagari history", path,
			  count_tables(h) > 0 ? "another program's database" : "an empty file");
	} else if (v > HISTORY_SCHEMA_VERSION) {
		sbuf_addf(err,
			  "history '%s': schema version %d was written by a newer kagari (this one "
			  "knows up to %d); use that kagari or --history another file",
			  path, v, HISTORY_SCHEMA_VERSION);
	} else {
		/* Older schemas lack only indexes and columns: read as they
		   are. A reader goes through every result row once: the file
		   mapped and a larger page cache spare copying it page by page
		   (10,000 runs: a third less time). */
		sqlite3_exec(h->db, "PRAGMA mmap_size=268435456; PRAGMA cache_size=-32768", NULL,
			     NULL, NULL);
		*out = h;
		return 0;
	}
	history_close(h);
	return -1;
}

void history_close(struct history *h)
{
	if (!h)
		return;
	for (int i = 0; i < STMT__COUNT; i++)
		sqlite3_finalize(h->stmt[i]);
	sqlite3_close_v2(h->db);
	free(h->path);
	free(h);
}

sqlite3_stmt *history_cached(struct history *h, enum history_stmt which, const char *sql,
			     const char *what, struct sbuf *err)
{
	sqlite3_stmt *st = h->stmt[which];
	if (st) {
		sqlite3_reset(st);
		sqlite3_clear_bindings(st);
		return st;
	}
	if (history_prepare(h, sql, &h->stmt[which], what, err))
		return NULL;
	return h->stmt[which];
}

void history_bind_text(sqlite3_stmt *st, int i, const char *s)
{
	if (s)
		sqlite3_bind_text(st, i, s, -1, SQLITE_TRANSIENT);
	else
		sqlite3_bind_null(st, i);
}

void history_bind_double(sqlite3_stmt *st, int i, double v)
{
	if (isfinite(v))
		sqlite3_bind_double(st, i, v);
	else
		sqlite3_bind_null(st, i);
}

int64_t history_machine_row(struct history *h, const struct history_machine *m, struct sbuf *err)
{
	sqlite3_stmt *st = NULL;
	int64_t id = -1;
	if (history_prepare(h,
			    "INSERT INTO machines(fingerprint, machine_id, cpu_model, cores, arch)"
			    " VALUES (?1, ?2, ?3, ?4, ?5)"
			    " ON CONFLICT(fingerprint) DO UPDATE SET arch = excluded.arch"
			    " RETURNING id",
			    &st, "cannot record the machine", err))
		return -1;
	history_bind_text(st, 1, m->fingerprint);
	history_bind_text(st, 2, m->machine_id);
	history_bind_text(st, 3, m->cpu_model);
	sqlite3_bind_int(st, 4, m->cores);
	history_bind_text(st, 5, m->arch);
	if (sqlite3_step(st) == SQLITE_ROW)
		id = sqlite3_column_int64(st, 0);
	else
		history_db_error(h, "cannot record the machine", err);
	sqlite3_finalize(st);
	return id;
}

static int insert_results(struct history *h, int64_t run, const struct run_result *r,
			  struct sbuf *err)
{
	sqlite3_stmt *st = NULL;
	if (history_prepare(
		h,
		"INSERT INTO results(run, suite, benchmark, command, side, metric,"
		" result, count, median, mean, min, max, stddev, p95, verdict,"
		" change_percent, ci_low_percent, ci_high_percent, mean_change_percent,"
		" mean_ci_low_percent, mean_ci_high_percent, p_value, max_percent, gate)"
		" VALUES (?1,?2,?3,?4,?5,?6,?7,?8,?9,?10,?11,?12,?13,?14,?15,?16,?17,?18,"
		"?19,?20,?21,?22,?23,?24)",
		&st, "cannot record the results", err))
		return -1;
	int rc = 0;
	for (size_t i = 0; i < r->nr_suites && !rc; i++) {
		const struct suite_result *sr = &r->suites[i];
		for (size_t b = 0; b < sr->nr_benches && !rc; b++) {
			const struct bench_result *br = &sr->benches[b];
			for (size_t c = 0; c < br->nr_commands && !rc; c++) {
				const struct command_result *cr = &br->commands[c];
				for (int sd = 0; sd < SIDE__COUNT && !rc; sd++) {
					if (!cr->side[sd].present)
						continue;
					for (int m = 0; m < METRIC__COUNT && !rc; m++) {
						const struct metric_series *ms =
						    &cr->side[sd].metric[m];
						if (!ms->have_summary)
							continue;
						const struct comparison *cmp = &cr->comparison[m];
						int head_cmp = sd == SIDE_HEAD && cmp->present;
						sqlite3_reset(st);
						sqlite3_clear_bindings(st);
						sqlite3_bind_int64(st, 1, run);
						history_bind_text(st, 2, sr->name);
						history_bind_text(st, 3, br->name);
						history_bind_text(st, 4, cr->name);
						history_bind_text(st, 5, side_name(sd));
						history_bind_text(st, 6, metric_get(m)->name);
						history_bind_text(st, 7, result_name(cr->result));
						sqlite3_bind_int64(st, 8,
								   (int64_t)ms->summary.count);
						history_bind_double(st, 9, ms->summary.median);
						history_bind_double(st, 10, ms->summary.mean);
						history_bind_double(st, 11, ms->summary.min);
						history_bind_double(st, 12, ms->summary.max);
						history_bind_double(st, 13, ms->summary.stddev);
						history_bind_double(st, 14, ms->summary.p95);
						if (head_cmp) {
							history_bind_text(
							    st, 15, verdict_name(cmp->verdict));
							history_bind_double(st, 16,
									    cmp->change_percent);
							history_bind_double(st, 17,
									    cmp->ci_low_percent);
							history_bind_double(st, 18,
									    cmp->ci_high_percent);
							history_bind_double(
							    st, 19, cmp->mean_change_percent);
							history_bind_double(
							    st, 20, cmp->mean_ci_low_percent);
							history_bind_double(
							    st, 21, cmp->mean_ci_high_percent);
							history_bind_double(st, 22, cmp->p_value);
							history_bind_double(st, 23,
									    cmp->max_percent);
							sqlite3_bind_int(st, 24, cmp->gate ? 1 : 0);
						}
						if (sqlite3_step(st) != SQLITE_DONE) {
							history_db_error(
							    h, "cannot record the results", err);
							rc = -1;
						}
					}
				}
			}
		}
	}
	sqlite3_finalize(st);
	return rc;
}

int64_t history_append(struct history *h, const struct history_record *rec,
		       const struct history_machine *m, const struct run_result *r,
		       const char *report_json, struct sbuf *err)
{
	if (history_exec_sql(h, "BEGIN IMMEDIATE", "cannot lock the database", err))
		return -1;
	int64_t mid = history_machine_row(h, m, err), run = -1;
	sqlite3_stmt *st = NULL;
	if (mid < 0)
		goto fail;
	if (history_prepare(h,
			    "INSERT INTO runs(time, started, kind, head_sha, base_sha, base_ref,"
			    " dirty, branch, seed, version, exit_code, machine, kernel,"
			    " counters_source, report, origin)"
			    " VALUES (?1,?2,?3,?4,?5,?6,?7,?8,?9,?10,?11,?12,?13,?14,?15,?16)",
			    &st, "cannot record the run", err))
		goto fail;
	history_bind_text(st, 1, r->finished_at ? r->finished_at : r->started_at);
	history_bind_text(st, 2, r->started_at);
	history_bind_text(st, 3, rec->kind);
	history_bind_text(st, 4, rec->head_sha);
	history_bind_text(st, 5, rec->base_sha);
	history_bind_text(st, 6, rec->base_ref);
	if (rec->dirty >= 0)
		sqlite3_bind_int(st, 7, rec->dirty);
	history_bind_text(st, 8, rec->branch);
	sqlite3_bind_int64(st, 9, (int64_t)r->seed);
	history_bind_text(st, 10, KAGARI_VERSION);
	sqlite3_bind_int(st, 11, rec->exit_code);
	sqlite3_bind_int64(st, 12, mid);
	history_bind_text(st, 13, r->env.kernel);
	history_bind_text(st, 14, r->env.counters_source);
	if (report_json && strlen(report_json) <= HISTORY_MAX_REPORT_BYTES)
		history_bind_text(st, 15, report_json);
	char *origin = history_origin_new(r->finished_at ? r->finished_at : r->started_at,
					  rec->head_sha, m->fingerprint);
	history_bind_text(st, 16, origin);
	free(origin);
	if (sqlite3_step(st) != SQLITE_DONE) {
		history_db_error(h, "cannot record the run", err);
		goto fail;
	}
	run = sqlite3_last_insert_rowid(h->db);
	if (insert_results(h, run, r, err))
		goto fail;
	if (history_exec_sql(h, "COMMIT", "cannot commit the run", err))
		goto fail;
	sqlite3_finalize(st);
	return run;
fail:
	sqlite3_finalize(st);
	sqlite3_exec(h->db, "ROLLBACK", NULL, NULL, NULL);
	return -1;
}

char *history_col_text(sqlite3_stmt *st, int i)
{
	const unsigned char *s = sqlite3_column_text(st, i);
	return s ? xstrdup((const char *)s) : NULL;
}

int history_step_text(struct history *h, sqlite3_stmt *st, char **text, const char *what,
		      struct sbuf *err)
{
	int step = sqlite3_step(st);
	*text = step == SQLITE_ROW ? history_col_text(st, 0) : NULL;
	sqlite3_finalize(st);
	if (step != SQLITE_ROW && step != SQLITE_DONE) {
		history_db_error(h, what, err);
		return -1;
	}
	return 0;
}

/* The last run's columns of a point (NULL, NAN when the run has none). */
static double col_double_or_nan(sqlite3_stmt *st, int i)
{
	return sqlite3_column_type(st, i) == SQLITE_NULL ? NAN : sqlite3_column_double(st, i);
}

static char *col_text_or_null(sqlite3_stmt *st, int i)
{
	const unsigned char *s = sqlite3_column_text(st, i);
	return s ? xstrdup((const char *)s) : NULL;
}

int history_query(struct history *h, const char *suite, const char *metric,
		  struct history_points *out, struct sbuf *err)
{
	sqlite3_stmt *st = NULL;
	/* A history of schema 3 or older (read as it is) lacks the columns
	   of the paired comparison's other numbers: NULL stands for them. */
	int v4 = history_schema_version(h) >= 4;
	char *sql =
	    xstrfmt("SELECT r.suite, r.benchmark, r.command, r.metric, m.fingerprint,"
		    " m.cpu_model, u.head_sha, u.time, r.median, u.id, u.kind, r.result,"
		    " r.verdict, r.change_percent, r.ci_low_percent, r.ci_high_percent,"
		    " %s, u.base_sha, u.base_ref"
		    " FROM results r JOIN runs u ON u.id = r.run"
		    " JOIN machines m ON m.id = u.machine"
		    " WHERE r.side = 'head' AND u.head_sha IS NOT NULL"
		    " AND u.dirty IS NOT 1 AND r.median IS NOT NULL"
		    " AND (?1 IS NULL OR r.suite = ?1) AND (?2 IS NULL OR r.metric = ?2)"
		    " ORDER BY r.suite, r.benchmark, r.command, r.metric,"
		    " m.fingerprint, u.time, u.id",
		    v4 ? "r.mean_change_percent, r.mean_ci_low_percent, r.mean_ci_high_percent,"
			 " r.p_value, r.max_percent, r.gate"
		       : "NULL, NULL, NULL, NULL, NULL, NULL");
	int bad = history_prepare(h, sql, &st, "cannot query", err);
	free(sql);
	if (bad)
		return -1;
	history_bind_text(st, 1, suite);
	history_bind_text(st, 2, metric);
	int rc;
	while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
		if (out->nr == out->alloc) {
			out->alloc = out->alloc ? 2 * out->alloc : 64;
			out->v = xreallocarray(out->v, out->alloc, sizeof(*out->v));
		}
		struct history_point *p = &out->v[out->nr++];
		p->suite = history_col_text(st, 0);
		p->benchmark = history_col_text(st, 1);
		p->command = history_col_text(st, 2);
		p->metric = history_col_text(st, 3);
		p->fingerprint = history_col_text(st, 4);
		p->cpu_model = history_col_text(st, 5);
		p->sha = history_col_text(st, 6);
		p->time = history_col_text(st, 7);
		p->median = sqlite3_column_double(st, 8);
		p->run = sqlite3_column_int64(st, 9);
		p->kind = col_text_or_null(st, 10);
		p->result = col_text_or_null(st, 11);
		p->verdict = col_text_or_null(st, 12);
		p->change_percent = col_double_or_nan(st, 13);
		p->ci_low_percent = col_double_or_nan(st, 14);
		p->ci_high_percent = col_double_or_nan(st, 15);
		p->mean_change_percent = col_double_or_nan(st, 16);
		p->mean_ci_low_percent = col_double_or_nan(st, 17);
		p->mean_ci_high_percent = col_double_or_nan(st, 18);
		p->p_value = col_double_or_nan(st, 19);
		p->max_percent = col_double_or_nan(st, 20);
		p->gate =
		    sqlite3_column_type(st, 21) == SQLITE_NULL ? -1 : sqlite3_column_int(st, 21);
		p->base_sha = col_text_or_null(st, 22);
		p->base_ref = col_text_or_null(st, 23);
	}
	sqlite3_finalize(st);
	if (rc != SQLITE_DONE) {
		history_db_error(h, "cannot query", err);
		return -1;
	}
	return 0;
}

void history_points_release(struct history_points *p)
{
	for (size_t i = 0; i < p->nr; i++) {
		struct history_point *q = &p->v[i];
		free(q->suite);
		free(q->benchmark);
		free(q->command);
		free(q->metric);
		free(q->fingerprint);
		free(q->cpu_model);
		free(q->sha);
		free(q->time);
		free(q->kind);
		free(q->result);
		free(q->verdict);
		free(q->base_sha);
		free(q->base_ref);
	}
	free(p->v);
	memset(p, 0, sizeof(*p));
}

int history_run_report(struct history *h, int64_t run, char **report, struct sbuf *err)
{
	sqlite3_stmt *st = NULL;
	*report = NULL;
	if (history_prepare(h, "SELECT report FROM runs WHERE id = ?1", &st,
			    "cannot read a run's report", err))
		return -1;
	sqlite3_bind_int64(st, 1, run);
	return history_step_text(h, st, report, "cannot read a run's report", err);
}

int64_t history_count_runs(struct history *h, struct sbuf *err)
{
	sqlite3_stmt *st = NULL;
	int64_t n = -1;
	if (sqlite3_prepare_v2(h->db, "SELECT count(*) FROM runs", -1, &st, NULL) == SQLITE_OK &&
	    sqlite3_step(st) == SQLITE_ROW)
		n = sqlite3_column_int64(st, 0);
	else
		history_db_error(h, "cannot count the runs", err);
	sqlite3_finalize(st);
	return n;
}

int history_expected_ms(struct history *h, const char *fingerprint, const char *const *suite,
			const char *const *bench, const char *const *cmd, size_t n, double *ms,
			struct sbuf *err)
{
	sqlite3_stmt *st = NULL;
	/* The last 5 runs' (by id: appended last) mean latency times their sample count: the
	   command's share of a job's time. */
	if (history_prepare(h,
			    "SELECT avg(x) FROM (SELECT r.mean * r.count AS x"
			    " FROM results r JOIN runs u ON u.id = r.run"
			    " JOIN machines m ON m.id = u.machine"
			    " WHERE m.fingerprint = ?1 AND r.suite = ?2 AND r.benchmark = ?3"
			    " AND r.command = ?4 AND r.metric = 'latency' AND r.side = 'head'"
			    " ORDER BY r.rowid DESC LIMIT 5)",
			    &st, "cannot query", err))
		return -1;
	for (size_t i = 0; i < n; i++) {
		sqlite3_reset(st);
		history_bind_text(st, 1, fingerprint);
		history_bind_text(st, 2, suite[i]);
		history_bind_text(st, 3, bench[i]);
		history_bind_text(st, 4, cmd[i]);
		ms[i] = NAN;
		int rc = sqlite3_step(st);
		if (rc == SQLITE_ROW && sqlite3_column_type(st, 0) != SQLITE_NULL)
			ms[i] = sqlite3_column_double(st, 0) / 1e6;
		else if (rc != SQLITE_ROW) {
			history_db_error(h, "cannot query", err);
			sqlite3_finalize(st);
			return -1;
		}
	}
	sqlite3_finalize(st);
	return 0;
}
