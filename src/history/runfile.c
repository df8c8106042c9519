/*
 * history/runfile: one stored run as one compact JSON file of the history
 * branch, and back (sync.h has the format; docs/history.md the policies).
 * Origins (history.h), the origins stored, export, validated import, and
 * the remembered tips of the branches (sync_state).
 */
#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/sbuf.h"
#include "base/xalloc.h"
#include "history/history_internal.h"
#include "history/sync.h"
#include "model/rng.h"

/* 16 (time) + 1 + 12 (sha) + 1 + 16 (fingerprint) + 1 + 12 (random). */
#define ORIGIN_LEN 59

static int is_hex(const char *s, size_t n)
{
	for (size_t i = 0; i < n; i++)
		if (!strchr("0123456789abcdef", s[i]) || !s[i])
			return 0;
	return 1;
}

char *history_origin_new(const char *time, const char *head_sha, const char *fingerprint)
{
	char t[17] = "00000000T000000Z";
	/* "2026-12-04T19:11:43.123Z": the digits of the date and time. */
	if (time && strlen(time) >= 19 && time[4] == '-' && time[7] == '-' && time[10] == 'T' &&
	    time[13] == ':' && time[16] == ':') {
		static const int at[14] = {0, 1, 2, 3, 5, 6, 8, 9, 11, 12, 14, 15, 17, 18};
		int ok = 1;
		for (int i = 0; i < 14; i++)
			ok &= time[at[i]] >= '0' && time[at[i]] <= '9';
		if (ok)
			for (int i = 0; i < 14; i++)
				t[i < 8 ? i : i + 1] = time[at[i]];
	}
	char sha[13] = "000000000000";
	if (head_sha && strlen(head_sha) >= 12 && is_hex(head_sha, 12))
		memcpy(sha, head_sha, 12);
	char fp[17] = "0000000000000000";
	if (fingerprint && strlen(fingerprint) == 16 && is_hex(fingerprint, 16))
		memcpy(fp, fingerprint, 16);
	uint64_t rnd = rng_random_seed() & UINT64_C(0xffffffffffff);
	return xstrfmt("%s-%s-%s-%012llx", t, sha, fp, (unsigned long long)rnd);
}

int history_origin_valid(const char *s)
{
	if (!s || strlen(s) != ORIGIN_LEN)
		return 0;
	for (int i = 0; i < 16; i++)
		if (i == 8 ? s[i] != 'T' : i == 15 ? s[i] != 'Z' : !(s[i] >= '0' && s[i] <= '9'))
			return 0;
	return s[16] == '-' && is_hex(s + 17, 12) && s[29] == '-' && is_hex(s + 30, 16) &&
	       s[46] == '-' && is_hex(s + 47, 12);
}

void history_run_path(const char *origin, struct sbuf *out)
{
	/* runs/YYYY-MM/ORIGIN.json: a month per folder keeps trees small. */
	sbuf_addf(out, "runs/%.4s-%.2s/%s.json", origin, origin + 4, origin);
}

int history_assign_origins(struct history *h, struct sbuf *err)
{
	sqlite3_stmt *sel = NULL, *upd = NULL;
	if (history_exec_sql(h, "BEGIN IMMEDIATE", "cannot lock the database", err))
		return -1;
	int rc = -1;
	if (history_prepare(h,
			    "SELECT u.id, u.time, u.head_sha, m.fingerprint FROM runs u"
			    " JOIN machines m ON m.id = u.machine WHERE u.origin IS NULL",
			    &sel, "cannot name the runs", err) ||
	    history_prepare(h, "UPDATE runs SET origin = ?1 WHERE id = ?2", &upd,
			    "cannot name the runs", err))
		goto out;
	int step;
	while ((step = sqlite3_step(sel)) == SQLITE_ROW) {
		char *o = history_origin_new((const char *)sqlite3_column_text(sel, 1),
					     (const char *)sqlite3_column_text(sel, 2),
					     (const char *)sqlite3_column_text(sel, 3));
		sqlite3_reset(upd);
		history_bind_text(upd, 1, o);
		sqlite3_bind_int64(upd, 2, sqlite3_column_int64(sel, 0));
		free(o);
		if (sqlite3_step(upd) != SQLITE_DONE) {
			history_db_error(h, "cannot name the runs", err);
			goto out;
		}
	}
	if (step != SQLITE_DONE) {
		history_db_error(h, "cannot name the runs", err);
		goto out;
	}
	rc = history_exec_sql(h, "COMMIT", "cannot name the runs", err);
out:
	sqlite3_finalize(sel);
	sqlite3_finalize(upd);
	if (rc)
		sqlite3_exec(h->db, "ROLLBACK", NULL, NULL, NULL);
	return rc;
}

int history_list_origins(struct history *h, struct strvec *out, struct sbuf *err)
{
	sqlite3_stmt *st = NULL;
	if (history_prepare(h, "SELECT origin FROM runs WHERE origin IS NOT NULL ORDER BY origin",
			    &st, "cannot list the runs", err))
		return -1;
	int step;
	while ((step = sqlite3_step(st)) == SQLITE_ROW)
		strvec_push(out, (const char *)sqlite3_column_text(st, 0));
	sqlite3_finalize(st);
	if (step != SQLITE_DONE) {
		history_db_error(h, "cannot list the runs", err);
		return -1;
	}
	return 0;
}

/*
 * The end of the JSON value starting at p (white space before it skipped),
 * or NULL when there is none or it is not JSON: a syntax check that builds
 * nothing, for the report a run file carries as it is.
 */
static const char *skip_ws(const char *p, const char *end)
{
	while (p < end && (*p == ' ' || *p == '\t' || *p == '\n' || *p == '\r'))
		p++;
	return p;
}

static const char *skip_string(const char *p, const char *end)
{
	for (p++; p < end; p++) {
		unsigned char ch = (unsigned char)*p;
		if (ch == '"')
			return p + 1;
		if (ch < 0x20)
			return NULL;
		if (ch == '\\') {
			if (++p >= end || !strchr("\"\\/bfnrtu", *p))
				return NULL;
			if (*p == 'u')
				for (int i = 0; i < 4; i++)
					if (++p >= end || !strchr("0123456789abcdefABCDEF", *p))
						return NULL;
		}
	}
	return NULL;
}

static const char *skip_number(const char *p, const char *end)
{
	const char *q = p;
	if (q < end && *q == '-')
		q++;
	if (q >= end || !(*q >= '0' && *q <= '9'))
		return NULL;
	if (*q == '0')
		q++;
	else
		while (q < end && *q >= '0' && *q <= '9')
			q++;
	if (q < end && *q == '.') {
		const char *d = ++q;
		while (q < end && *q >= '0' && *q <= '9')
			q++;
		if (q == d)
			return NULL;
	}
	if (q < end && (*q == 'e' || *q == 'E')) {
		q++;
		if (q < end && (*q == '+' || *q == '-'))
			q++;
		const char *d = q;
		while (q < end && *q >= '0' && *q <= '9')
			q++;
		if (q == d)
			return NULL;
	}
	return q;
}

static const char *skip_value(const char *p, const char *end, int depth)
{
	p = skip_ws(p, end);
	if (p >= end || depth > 256)
		return NULL;
	if (*p == '"')
		return skip_string(p, end);
	if (*p == '{' || *p == '[') {
		char close = *p == '{' ? '}' : ']';
		p = skip_ws(p + 1, end);
		if (p < end && *p == close)
			return p + 1;
		for (;;) {
			if (close == '}') {
				if (p >= end || *p != '"' || !(p = skip_string(p, end)))
					return NULL;
				p = skip_ws(p, end);
				if (p >= end || *p++ != ':')
					return NULL;
			}
			if (!(p = skip_value(p, end, depth + 1)))
				return NULL;
			p = skip_ws(p, end);
			if (p < end && *p == ',')
				p = skip_ws(p + 1, end);
			else if (p < end && *p == close)
				return p + 1;
			else
				return NULL;
		}
	}
	static const char *const lit[] = {"true", "false", "null"};
	for (int i = 0; i < 3; i++) {
		size_t n = strlen(lit[i]);
		if ((size_t)(end - p) >= n && !memcmp(p, lit[i], n))
			return p + n;
	}
	return skip_number(p, end);
}

/* 1 when text[0..len) is one JSON object (white space around it allowed). */
static int is_json_object(const char *text, size_t len)
{
	const char *end = text + len, *p = skip_ws(text, end);
	if (p >= end || *p != '{')
		return 0;
	p = skip_value(p, end, 0);
	return p && skip_ws(p, end) == end;
}

static json_t *col_json(sqlite3_stmt *st, int i)
{
	switch (sqlite3_column_type(st, i)) {
	case SQLITE_INTEGER:
		return json_integer(sqlite3_column_int64(st, i));
	case SQLITE_FLOAT:
		return json_real(sqlite3_column_double(st, i));
	case SQLITE_TEXT:
		return json_stringn((const char *)sqlite3_column_text(st, i),
				    (size_t)sqlite3_column_bytes(st, i));
	default:
		return json_null();
	}
}

/* Columns first..first+n-1 of st as the keys of obj. */
static void put_columns(json_t *obj, sqlite3_stmt *st, int first, const char *const *keys)
{
	for (int i = 0; keys[i]; i++)
		json_object_set_new(obj, keys[i], col_json(st, first + i));
}

static const char *const run_keys[] = {
    "time",   "started", "kind",    "head_sha",	 "base_sha", "base_ref",	"dirty",
    "branch", "seed",	 "version", "exit_code", "kernel",   "counters_source", NULL};
static const char *const machine_keys[] = {"fingerprint", "machine_id", "cpu_model",
					   "cores",	  "arch",	NULL};
/* The columns of a results row, in the order of the file's arrays. */
#define NR_RESULT_COLS 17
static const char *const result_cols = "suite, benchmark, command, side, metric, result,"
				       " count, median, mean, min, max, stddev, p95, verdict,"
				       " change_percent, ci_low_percent, ci_high_percent";

/*
 * The rest of a paired comparison (schema 4): the file's optional member
 * "comparisons", [[ROW, mean_change_percent, mean_ci_low_percent,
 * mean_ci_high_percent, p_value, max_percent, gate], ...], ROW the index of
 * its head row in "results". A member of its own, not longer result rows:
 * a kagari that predates it reads the file as before and leaves it out.
 */
#define NR_PAIRED_COLS 6
static const char *const paired_cols = "mean_change_percent, mean_ci_low_percent,"
				       " mean_ci_high_percent, p_value, max_percent, gate";

static int export_results(struct history *h, int64_t run, json_t *arr, json_t *paired,
			  struct sbuf *err)
{
	sqlite3_stmt *st = NULL;
	char *sql = xstrfmt("SELECT %s, %s FROM results WHERE run = ?1 ORDER BY rowid", result_cols,
			    paired_cols);
	int rc = history_prepare(h, sql, &st, "cannot read the results", err);
	free(sql);
	if (rc)
		return -1;
	sqlite3_bind_int64(st, 1, run);
	int step;
	while ((step = sqlite3_step(st)) == SQLITE_ROW) {
		json_t *row = json_array();
		for (int i = 0; i < NR_RESULT_COLS; i++)
			json_array_append_new(row, col_json(st, i));
		int any = 0;
		for (int i = 0; i < NR_PAIRED_COLS; i++)
			any |= sqlite3_column_type(st, NR_RESULT_COLS + i) != SQLITE_NULL;
		if (any) {
			json_t *c = json_array();
			json_array_append_new(c, json_integer((json_int_t)json_array_size(arr)));
			for (int i = 0; i < NR_PAIRED_COLS; i++)
				json_array_append_new(c, col_json(st, NR_RESULT_COLS + i));
			json_array_append_new(paired, c);
		}
		json_array_append_new(arr, row);
	}
	sqlite3_finalize(st);
	if (step != SQLITE_DONE) {
		history_db_error(h, "cannot read the results", err);
		return -1;
	}
	return 0;
}

int history_run_export(struct history *h, const char *origin, struct sbuf *out, struct sbuf *err)
{
	sqlite3_stmt *st = NULL;
	if (history_prepare(h,
			    "SELECT u.id, u.time, u.started, u.kind, u.head_sha, u.base_sha,"
			    " u.base_ref, u.dirty, u.branch, u.seed, u.version, u.exit_code,"
			    " u.kernel, u.counters_source, m.fingerprint, m.machine_id,"
			    " m.cpu_model, m.cores, m.arch, u.report"
			    " FROM runs u JOIN machines m ON m.id = u.machine WHERE u.origin = ?1",
			    &st, "cannot read the run", err))
		return -1;
	history_bind_text(st, 1, origin);
	int step = sqlite3_step(st), rc = -1;
	if (step != SQLITE_ROW) {
		if (step == SQLITE_DONE)
			sbuf_addf(err, "history '%s': no run '%s'", h->path, origin);
		else
			history_db_error(h, "cannot read the run", err);
		sqlite3_finalize(st);
		return -1;
	}
	json_t *root = json_object(), *run = json_object(), *mach = json_object();
	json_t *results = json_array(), *paired = json_array();
	json_object_set_new(root, "kagari_history", json_integer(HISTORY_RUN_FORMAT));
	json_object_set_new(root, "origin", json_string(origin));
	put_columns(run, st, 1, run_keys);
	put_columns(mach, st, 14, machine_keys);
	json_object_set_new(root, "run", run);
	json_object_set_new(root, "machine", mach);
	json_object_set_new(root, "results", results);
	/* The report goes in as stored, byte for byte: last, so that a
	   reader finds it without parsing it (history_run_import()). */
	const char *report = (const char *)sqlite3_column_text(st, 19);
	size_t report_len = (size_t)sqlite3_column_bytes(st, 19);
	if (report && !is_json_object(report, report_len))
		report = NULL; /* not JSON: the statistics are still worth keeping */
	if (!export_results(h, sqlite3_column_int64(st, 0), results, paired, err)) {
		if (json_array_size(paired))
			json_object_set(root, "comparisons", paired);
		char *text = json_dumps(root, JSON_COMPACT | JSON_REAL_PRECISION(17));
		if (text) {
			sbuf_add(out, text, strlen(text) - 1); /* without its '}' */
			sbuf_adds(out, ",\"report\":");
			if (report)
				sbuf_add(out, report, report_len);
			else
				sbuf_adds(out, "null");
			sbuf_adds(out, "}\n");
			free(text);
			rc = 0;
		} else {
			sbuf_addf(err, "history '%s': cannot write run '%s' as JSON", h->path,
				  origin);
		}
	}
	json_decref(root);
	json_decref(paired);
	sqlite3_finalize(st);
	return rc;
}

/* Field `key` of obj: absent or null is fine (*v NULL); else it must be of
   the kind is_kind accepts. 0, or -1 with why. */
static int field(json_t *obj, const char *where, const char *key, int (*is_kind)(const json_t *),
		 const char *kind, int required, json_t **v, struct sbuf *why)
{
	*v = json_object_get(obj, key);
	if (*v && json_is_null(*v))
		*v = NULL;
	if (!*v && required) {
		sbuf_addf(why, "%s%s is missing", where, key);
		return -1;
	}
	if (*v && !is_kind(*v)) {
		sbuf_addf(why, "%s%s is not %s", where, key, kind);
		return -1;
	}
	return 0;
}

static int is_string(const json_t *v)
{
	return json_is_string(v);
}
static int is_integer(const json_t *v)
{
	return json_is_integer(v);
}
static int is_number(const json_t *v)
{
	return json_is_number(v);
}
static int is_object(const json_t *v)
{
	return json_is_object(v);
}
static int is_array(const json_t *v)
{
	return json_is_array(v);
}

/* The kinds of a results row's columns: s string, S string or null,
   i integer, n number or null. */
static const char result_kinds[NR_RESULT_COLS + 1] = "sssssSinnnnnnSnnn";

static int check_results(json_t *results, struct sbuf *why)
{
	size_t i;
	json_t *row;
	json_array_foreach(results, i, row)
	{
		if (!json_is_array(row) || json_array_size(row) != NR_RESULT_COLS) {
			sbuf_addf(why, "results[%zu] is not an array of %d values", i,
				  NR_RESULT_COLS);
			return -1;
		}
		for (int c = 0; c < NR_RESULT_COLS; c++) {
			json_t *v = json_array_get(row, (size_t)c);
			char k = result_kinds[c];
			int ok = k == 's'   ? json_is_string(v)
				 : k == 'S' ? json_is_string(v) || json_is_null(v)
				 : k == 'i' ? json_is_integer(v)
					    : json_is_number(v) || json_is_null(v);
			if (!ok) {
				sbuf_addf(why, "results[%zu][%d] is not %s", i, c,
					  k == 's'   ? "a string"
					  : k == 'S' ? "a string or null"
					  : k == 'i' ? "an integer"
						     : "a number or null");
				return -1;
			}
		}
	}
	return 0;
}

/* The optional "comparisons" member: rows of 1 + NR_PAIRED_COLS values,
   each naming a row of results. */
static int check_paired(json_t *paired, size_t nr_results, struct sbuf *why)
{
	size_t i;
	json_t *row;
	if (!paired)
		return 0;
	json_array_foreach(paired, i, row)
	{
		json_t *at = json_array_get(row, 0);
		if (!json_is_array(row) || json_array_size(row) != 1 + NR_PAIRED_COLS ||
		    !json_is_integer(at) || json_integer_value(at) < 0 ||
		    (size_t)json_integer_value(at) >= nr_results) {
			sbuf_addf(why,
				  "comparisons[%zu] is not an array of a results row's index and "
				  "%d values",
				  i, NR_PAIRED_COLS);
			return -1;
		}
		for (int c = 1; c <= NR_PAIRED_COLS; c++) {
			json_t *v = json_array_get(row, (size_t)c);
			int gate = c == NR_PAIRED_COLS;
			if (!json_is_null(v) && !(gate ? json_is_integer(v) : json_is_number(v))) {
				sbuf_addf(why, "comparisons[%zu][%d] is not %s", i, c,
					  gate ? "an integer or null" : "a number or null");
				return -1;
			}
		}
	}
	return 0;
}

/* Everything import() reads, checked first, so that no file is imported
   half. 0, or -1 with why. */
static int check_run(json_t *root, const char *origin, struct sbuf *why)
{
	json_t *v, *run, *mach, *results;
	if (!json_is_object(root) || !json_object_get(root, "kagari_history")) {
		sbuf_adds(why, "not a kagari run (no \"kagari_history\" field)");
		return -1;
	}
	v = json_object_get(root, "kagari_history");
	if (!json_is_integer(v) || json_integer_value(v) < 1) {
		sbuf_adds(why, "kagari_history is not a format number");
		return -1;
	}
	if (json_integer_value(v) > HISTORY_RUN_FORMAT) {
		sbuf_addf(why,
			  "written by a newer kagari (run format %lld; this one reads up to %d)",
			  (long long)json_integer_value(v), HISTORY_RUN_FORMAT);
		return -1;
	}
	if (field(root, "", "origin", is_string, "a string", 1, &v, why))
		return -1;
	if (strcmp(json_string_value(v), origin)) {
		sbuf_adds(why, "its origin does not match its file name");
		return -1;
	}
	if (field(root, "", "run", is_object, "an object", 1, &run, why) ||
	    field(root, "", "machine", is_object, "an object", 1, &mach, why) ||
	    field(root, "", "results", is_array, "an array", 1, &results, why) ||
	    field(root, "", "report", is_object, "an object", 0, &v, why) ||
	    field(root, "", "comparisons", is_array, "an array", 0, &v, why) ||
	    check_paired(v, json_array_size(results), why))
		return -1;
	for (int i = 0; run_keys[i]; i++) {
		const char *k = run_keys[i];
		int integer = !strcmp(k, "dirty") || !strcmp(k, "seed") || !strcmp(k, "exit_code");
		int required = !strcmp(k, "time") || !strcmp(k, "kind");
		if (field(run, "run.", k, integer ? is_integer : is_string,
			  integer ? "an integer" : "a string", required, &v, why))
			return -1;
	}
	/* Commit ids are shown and linked as they are (the trend site, the
	   table): only what git writes is one. */
	static const char *const shas[] = {"head_sha", "base_sha", NULL};
	for (int i = 0; shas[i]; i++) {
		v = json_object_get(run, shas[i]);
		size_t n = json_is_string(v) ? json_string_length(v) : 0;
		if (json_is_string(v) &&
		    (n < 4 || n > 64 || strspn(json_string_value(v), "0123456789abcdef") != n)) {
			sbuf_addf(why, "run.%s is not a commit id (4 to 64 lowercase hex digits)",
				  shas[i]);
			return -1;
		}
	}
	for (int i = 0; machine_keys[i]; i++) {
		const char *k = machine_keys[i];
		int integer = !strcmp(k, "cores");
		if (field(mach, "machine.", k, integer ? is_integer : is_string,
			  integer ? "an integer" : "a string", !strcmp(k, "fingerprint"), &v, why))
			return -1;
	}
	/* A machine is told by its fingerprint: kagari's are 16 hex digits. */
	v = json_object_get(mach, "fingerprint");
	if (json_string_length(v) != 16 || !is_hex(json_string_value(v), 16)) {
		sbuf_adds(why,
			  "machine.fingerprint is not a fingerprint (16 lowercase hex digits)");
		return -1;
	}
	(void)is_number;
	return check_results(results, why);
}

static void bind_json(sqlite3_stmt *st, int i, json_t *v)
{
	if (json_is_integer(v))
		sqlite3_bind_int64(st, i, json_integer_value(v));
	else if (json_is_number(v))
		history_bind_double(st, i, json_number_value(v));
	else if (json_is_string(v))
		sqlite3_bind_text(st, i, json_string_value(v), (int)json_string_length(v),
				  SQLITE_TRANSIENT);
	else
		sqlite3_bind_null(st, i);
}

static int import_results(struct history *h, int64_t run, json_t *results, json_t *paired,
			  struct sbuf *err)
{
	char sql[768];
	snprintf(sql, sizeof(sql),
		 "INSERT INTO results(run, %s, %s) VALUES (?1,?2,?3,?4,?5,?6,?7,?8,"
		 "?9,?10,?11,?12,?13,?14,?15,?16,?17,?18,?19,?20,?21,?22,?23,?24)",
		 result_cols, paired_cols);
	size_t i, n = json_array_size(results);
	json_t *row;
	/* Each results row's comparison row, checked by check_paired(). */
	json_t **cmp = xcalloc(n + 1, sizeof(*cmp));
	json_array_foreach(paired, i, row) cmp[json_integer_value(json_array_get(row, 0))] = row;
	json_array_foreach(results, i, row)
	{
		sqlite3_stmt *st =
		    history_cached(h, STMT_IMPORT_RESULT, sql, "cannot import the results", err);
		if (!st)
			return -1;
		sqlite3_bind_int64(st, 1, run);
		for (int c = 0; c < NR_RESULT_COLS; c++)
			bind_json(st, c + 2, json_array_get(row, (size_t)c));
		for (int c = 0; c < NR_PAIRED_COLS && cmp[i]; c++)
			bind_json(st, NR_RESULT_COLS + 2 + c,
				  json_array_get(cmp[i], (size_t)c + 1));
		if (sqlite3_step(st) != SQLITE_DONE) {
			history_db_error(h, "cannot import the results", err);
			free(cmp);
			return -1;
		}
	}
	free(cmp);
	return 0;
}

/* The machines row of the run file's machine: its id, or -1. */
static int64_t import_machine(struct history *h, json_t *mach, struct sbuf *err)
{
	sqlite3_stmt *st =
	    history_cached(h, STMT_IMPORT_MACHINE,
			   "INSERT INTO machines(fingerprint, machine_id, cpu_model, cores, arch)"
			   " VALUES (?1, ?2, ?3, ?4, ?5)"
			   " ON CONFLICT(fingerprint) DO UPDATE SET fingerprint = fingerprint"
			   " RETURNING id",
			   "cannot import the machine", err);
	if (!st)
		return -1;
	for (int i = 0; machine_keys[i]; i++)
		bind_json(st, i + 1, json_object_get(mach, machine_keys[i]));
	int64_t id = -1;
	if (sqlite3_step(st) == SQLITE_ROW)
		id = sqlite3_column_int64(st, 0);
	else
		history_db_error(h, "cannot import the machine", err);
	sqlite3_reset(st);
	return id;
}

/* The checked run root stored (inside the caller's transaction). 1 when
   added, 0 when a run of that origin was there, -1 on a database error. */
static int import_checked(struct history *h, json_t *root, const char *origin, const char *report,
			  size_t report_len, struct sbuf *err)
{
	json_t *run = json_object_get(root, "run");
	int64_t mid = import_machine(h, json_object_get(root, "machine"), err);
	if (mid < 0)
		return -1;
	sqlite3_stmt *st =
	    history_cached(h, STMT_IMPORT_RUN,
			   "INSERT INTO runs(time, started, kind, head_sha, base_sha, base_ref,"
			   " dirty, branch, seed, version, exit_code, kernel, counters_source,"
			   " machine, report, origin)"
			   " VALUES (?1,?2,?3,?4,?5,?6,?7,?8,?9,?10,?11,?12,?13,?14,?15,?16)"
			   " ON CONFLICT(origin) DO NOTHING",
			   "cannot import the run", err);
	if (!st)
		return -1;
	for (int i = 0; run_keys[i]; i++)
		bind_json(st, i + 1, json_object_get(run, run_keys[i]));
	sqlite3_bind_int64(st, 14, mid);
	if (report && report_len <= HISTORY_MAX_REPORT_BYTES)
		sqlite3_bind_text(st, 15, report, (int)report_len, SQLITE_STATIC);
	history_bind_text(st, 16, origin);
	int rc = -1;
	if (sqlite3_step(st) != SQLITE_DONE)
		history_db_error(h, "cannot import the run", err);
	else if (!sqlite3_changes(h->db))
		rc = 0;
	else if (!import_results(h, sqlite3_last_insert_rowid(h->db),
				 json_object_get(root, "results"),
				 json_object_get(root, "comparisons"), err))
		rc = 1;
	sqlite3_reset(st);
	sqlite3_clear_bindings(st); /* the report is bound in place */
	return rc;
}

/*
 * The report of a run file as kagari writes it — the last member,
 * `,"report":{...}}` — found without parsing it: *report (NULL for null)
 * and the text before it closed as an object in env. 0 when the file does
 * not have that shape (another writer's layout: it is parsed whole).
 */
static int split_report(const char *text, size_t len, const char **report, size_t *report_len,
			struct sbuf *env)
{
	static const char key[] = ",\"report\":";
	/* No JSON string holds an unescaped '"', and the members before the
	   report are kagari's own: the first such text is the member. */
	const char *at = memmem(text, len, key, sizeof(key) - 1);
	if (!at)
		return 0;
	const char *r = at + sizeof(key) - 1, *end = text + len;
	while (end > r && strchr(" \t\r\n", end[-1]))
		end--;
	if (end == r || end[-1] != '}')
		return 0;
	end--;
	r = skip_ws(r, end);
	while (end > r && strchr(" \t\r\n", end[-1]))
		end--;
	if (end - r == 4 && !memcmp(r, "null", 4))
		*report = NULL;
	else if (is_json_object(r, (size_t)(end - r)))
		*report = r, *report_len = (size_t)(end - r);
	else
		return 0;
	sbuf_add(env, text, (size_t)(at - text));
	sbuf_addch(env, '}');
	return 1;
}

int history_run_import(struct history *h, const char *origin, const char *text, size_t len,
		       struct sbuf *why, struct sbuf *err)
{
	json_error_t je;
	struct sbuf env = SBUF_INIT;
	const char *report = NULL;
	size_t report_len = 0;
	char *dumped = NULL;
	int split = split_report(text, len, &report, &report_len, &env);
	json_t *root = split ? json_loadb(env.buf, env.len, JSON_REJECT_DUPLICATES, &je)
			     : json_loadb(text, len, JSON_REJECT_DUPLICATES, &je);
	sbuf_release(&env);
	if (!root) {
		sbuf_addf(why, "not JSON (line %d, column %d: ", je.line,
			  je.column > 0 ? je.column : 1);
		sbuf_add_escaped(why, je.text);
		sbuf_addch(why, ')');
		return 2;
	}
	int rc = 2;
	if (!check_run(root, origin, why)) {
		json_t *r = split ? NULL : json_object_get(root, "report");
		if (json_is_object(r)) {
			dumped = json_dumps(r, JSON_COMPACT | JSON_REAL_PRECISION(17));
			report = dumped;
			report_len = dumped ? strlen(dumped) : 0;
		}
		if (history_exec_sql(h, "SAVEPOINT run_file", "cannot import the run", err)) {
			rc = -1;
		} else {
			rc = import_checked(h, root, origin, report, report_len, err);
			if (rc < 0)
				sqlite3_exec(h->db, "ROLLBACK TO run_file", NULL, NULL, NULL);
			sqlite3_exec(h->db, "RELEASE run_file", NULL, NULL, NULL);
		}
	}
	free(dumped);
	json_decref(root);
	return rc;
}

int history_begin(struct history *h, struct sbuf *err)
{
	return history_exec_sql(h, "BEGIN IMMEDIATE", "cannot lock the database", err);
}

int history_commit(struct history *h, struct sbuf *err)
{
	if (!history_exec_sql(h, "COMMIT", "cannot commit", err))
		return 0;
	sqlite3_exec(h->db, "ROLLBACK", NULL, NULL, NULL);
	return -1;
}

void history_rollback(struct history *h)
{
	sqlite3_exec(h->db, "ROLLBACK", NULL, NULL, NULL);
}

int history_state_get(struct history *h, const char *key, char **value, struct sbuf *err)
{
	sqlite3_stmt *st = NULL;
	*value = NULL;
	if (history_prepare(h, "SELECT value FROM sync_state WHERE key = ?1", &st,
			    "cannot read the branch state", err))
		return -1;
	history_bind_text(st, 1, key);
	return history_step_text(h, st, value, "cannot read the branch state", err);
}

int history_state_set(struct history *h, const char *key, const char *value, struct sbuf *err)
{
	sqlite3_stmt *st = NULL;
	if (history_prepare(h,
			    value ? "INSERT INTO sync_state(key, value) VALUES (?1, ?2)"
				    " ON CONFLICT(key) DO UPDATE SET value = excluded.value"
				  : "DELETE FROM sync_state WHERE key = ?1",
			    &st, "cannot record the branch state", err))
		return -1;
	history_bind_text(st, 1, key);
	if (value)
		history_bind_text(st, 2, value);
	int rc = 0;
	if (sqlite3_step(st) != SQLITE_DONE) {
		history_db_error(h, "cannot record the branch state", err);
		rc = -1;
	}
	sqlite3_finalize(st);
	return rc;
}
