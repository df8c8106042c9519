/*
 * report/read_json_internal: what the files of the JSON report reader
 * share; not for callers outside src/report/read_json*.c (they use
 * read_json.h).
 *
 * The reader in three files, outermost first:
 *
 *   read_json.c          report_read_json(): the document (schema version,
 *                        tool, the exact seed), environment, git, shard,
 *                        acceptances, warnings, summary, and the suites,
 *                        benchmarks and commands
 *   read_json_metrics.c  what a command holds: each side's metrics (stats,
 *                        samples, status) and runs, comparisons, analysis
 *                        settings, budgets and the sampled profile
 *   read_json_fields.c   the reader's state, the field path kept for
 *                        messages, and the typed getters every level uses
 *
 * Every reader takes the state and the JSON object of its level; it
 * records the first error with rj_fail() (at the current path) and reads
 * on harmlessly after one: callers check d->failed.
 */
#ifndef KAGARI_REPORT_READ_JSON_INTERNAL_H
#define KAGARI_REPORT_READ_JSON_INTERNAL_H

#include <jansson.h>
#include <stddef.h>

#include "base/sbuf.h"
#include "model/metric.h"
#include "model/result.h"
#include "model/settings.h"

/* The reader's state: where we are (for messages) and the first error. */
struct rd {
	const char *file;
	struct sbuf *err;
	struct sbuf path; /* "suites[0].benchmarks[1]" */
	int failed;
};

/* ---- the field path and errors (read_json_fields.c) ---------------------- */

/* Enter a member or element; returns the length to restore with rj_leave(). */
size_t rj_enter_key(struct rd *d, const char *key);
size_t rj_enter_index(struct rd *d, size_t i);
void rj_leave(struct rd *d, size_t old);

/* Record the first error, at the current path (plus key when not NULL). */
void rj_fail(struct rd *d, const char *key, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));

/* "an object", "a string", ... "null": for messages. */
const char *rj_type_name(const json_t *v);

/* Fail at key: expected `what`, not the type of v. */
void rj_expected(struct rd *d, const char *key, const char *what, const json_t *v);

/* ---- typed getters (read_json_fields.c) ---------------------------------- */

/* obj.key when it is an object or array; absent or null gives NULL (and
   fails when required). */
json_t *rj_get_object(struct rd *d, json_t *obj, const char *key, int required);
json_t *rj_get_array(struct rd *d, json_t *obj, const char *key, int required);

/* Reads one object of an array into its (zeroed) item. */
typedef void rj_read_item_fn(struct rd *d, json_t *o, void *item);

/*
 * obj[key] as an array of objects, read into a new zeroed array of `size`
 * byte items (the caller owns it; NULL when the key is absent or not an
 * array). *nr counts every item handed out, the one that failed included,
 * so that releasing the result frees whatever was read.
 */
void *rj_read_objects(struct rd *d, json_t *obj, const char *key, int required, size_t size,
		      size_t *nr, rj_read_item_fn *fn);

/* A string or null (absent: NULL). *dst is replaced. */
void rj_get_string(struct rd *d, json_t *obj, const char *key, char **dst);

/* A result name (model/verdict.h) or null (absent: RESULT_NONE). */
void rj_get_result(struct rd *d, json_t *obj, const char *key, enum result *dst);

/* A number; null or absent is NAN. */
double rj_number_value(struct rd *d, const char *key, json_t *v);
double rj_get_number(struct rd *d, json_t *obj, const char *key);

/* A whole number in [lo, hi]; absent or null leaves *dst as it is. */
void rj_get_int(struct rd *d, json_t *obj, const char *key, int *dst, int lo, int hi);

/* A count (a whole number >= 0); absent or null leaves *dst as it is. */
void rj_get_size(struct rd *d, json_t *obj, const char *key, size_t *dst);

/* true/false into 1/0; null or absent leaves *dst as it is. */
void rj_get_bool(struct rd *d, json_t *obj, const char *key, int *dst);

/* One of names[0..n) into *dst; absent leaves *dst as it is. */
void rj_get_choice(struct rd *d, json_t *o, const char *key, const char *const *names, int n,
		   int *dst);

/* The metric called name; fails at key (returning -1) when unknown. */
int rj_get_metric(struct rd *d, const char *key, const char *name);

/* Reads the object of one metric (the value of its key in a map). */
typedef void rj_read_metric_fn(struct rd *d, json_t *o, enum metric_id m, void *ctx);

/*
 * obj[key] as an object keyed by metric name ("latency": {...}, ...), each
 * value an object handed to fn; an unknown name or a value that is not an
 * object fails with its path.
 */
void rj_read_by_metric(struct rd *d, json_t *obj, const char *key, rj_read_metric_fn *fn,
		       void *ctx);

/* ---- what a command holds (read_json_metrics.c) -------------------------- */

/* A command's side ("base" or "head"): count, metrics and runs. */
void rj_read_side(struct rd *d, json_t *o, struct side_result *sd, struct command_result *cr);

/* One of a command's `comparisons` (rj_read_by_metric()'s fn; ctx: the
   struct command_result). */
void rj_comparison_metric(struct rd *d, json_t *o, enum metric_id m, void *ctx);

/* One of a command's `budgets` (rj_read_objects()' fn). */
void rj_read_budget_item(struct rd *d, json_t *o, void *item);

/* A command's `analysis` settings (write_json.c's emit_analysis()). */
void rj_read_analysis(struct rd *d, json_t *o, struct analysis_settings *a);

/* A command's `profile` (write_json.c's emit_profile()). */
void rj_read_profile(struct rd *d, json_t *o, struct command_result *c);

#endif
