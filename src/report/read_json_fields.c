/*
 * report/read_json_fields: the JSON report reader's field path and typed
 * getters (read_json_internal.h): where the reader is, for messages; the
 * first error, recorded there; strings, results, numbers, counts,
 * booleans, choices, metric names, arrays of objects and objects keyed by
 * metric, each checked for its type with the path in the message.
 */
#include "report/read_json_internal.h"

#include <math.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#include "base/xalloc.h"

/* Enter a member or element; returns the length to restore with rj_leave(). */
size_t rj_enter_key(struct rd *d, const char *key)
{
	size_t old = d->path.len;
	if (d->path.len)
		sbuf_addch(&d->path, '.');
	sbuf_adds(&d->path, key);
	return old;
}

size_t rj_enter_index(struct rd *d, size_t i)
{
	size_t old = d->path.len;
	sbuf_addf(&d->path, "[%zu]", i);
	return old;
}

void rj_leave(struct rd *d, size_t old)
{
	sbuf_setlen(&d->path, old);
}

/* Record the first error, at the current path (plus key when not NULL). */
void rj_fail(struct rd *d, const char *key, const char *fmt, ...)
{
	if (d->failed)
		return;
	d->failed = 1;
	sbuf_addf(d->err, "%s: ", d->file);
	if (d->path.len || key) {
		sbuf_adds(d->err, d->path.buf);
		if (key)
			sbuf_addf(d->err, "%s%s", d->path.len ? "." : "", key);
		sbuf_adds(d->err, ": ");
	}
	va_list ap;
	va_start(ap, fmt);
	sbuf_vaddf(d->err, fmt, ap);
	va_end(ap);
}

const char *rj_type_name(const json_t *v)
{
	switch (json_typeof(v)) {
	case JSON_OBJECT:
		return "an object";
	case JSON_ARRAY:
		return "an array";
	case JSON_STRING:
		return "a string";
	case JSON_INTEGER:
	case JSON_REAL:
		return "a number";
	case JSON_TRUE:
	case JSON_FALSE:
		return "a boolean";
	default:
		return "null";
	}
}

void rj_expected(struct rd *d, const char *key, const char *what, const json_t *v)
{
	rj_fail(d, key, "expected %s, not %s", what, rj_type_name(v));
}

/* obj.key when it is of type t (`what` in the error); absent or null
   gives NULL. */
static json_t *get_typed(struct rd *d, json_t *obj, const char *key, int required, json_type t,
			 const char *what)
{
	json_t *v = json_object_get(obj, key);
	if (!v || json_is_null(v)) {
		if (required)
			rj_fail(d, key, "missing");
		return NULL;
	}
	if (json_typeof(v) != t) {
		rj_expected(d, key, what, v);
		return NULL;
	}
	return v;
}

json_t *rj_get_object(struct rd *d, json_t *obj, const char *key, int required)
{
	return get_typed(d, obj, key, required, JSON_OBJECT, "an object");
}

json_t *rj_get_array(struct rd *d, json_t *obj, const char *key, int required)
{
	return get_typed(d, obj, key, required, JSON_ARRAY, "an array");
}

/*
 * obj[key] as an array of objects, read into a new zeroed array of `size`
 * byte items (the caller owns it; NULL when the key is absent or not an
 * array). *nr counts every item handed out, the one that failed included,
 * so that releasing the result frees whatever was read.
 */
void *rj_read_objects(struct rd *d, json_t *obj, const char *key, int required, size_t size,
		      size_t *nr, rj_read_item_fn *fn)
{
	json_t *arr = rj_get_array(d, obj, key, required);
	if (!arr || d->failed)
		return NULL;
	size_t n = json_array_size(arr);
	char *items = xcalloc(n + 1, size);
	size_t old = rj_enter_key(d, key);
	for (size_t i = 0; i < n && !d->failed; i++) {
		json_t *x = json_array_get(arr, i);
		size_t o2 = rj_enter_index(d, i);
		(*nr)++;
		if (!json_is_object(x))
			rj_expected(d, NULL, "an object", x);
		else
			fn(d, x, items + i * size);
		rj_leave(d, o2);
	}
	rj_leave(d, old);
	return items;
}

/* A string or null (absent: NULL). *dst is replaced. */
void rj_get_string(struct rd *d, json_t *obj, const char *key, char **dst)
{
	json_t *v = json_object_get(obj, key);
	if (!v || json_is_null(v))
		return;
	if (!json_is_string(v)) {
		rj_expected(d, key, "a string", v);
		return;
	}
	free(*dst);
	*dst = xstrdup(json_string_value(v));
}

/*
 * A command's, benchmark's or suite's result (model/verdict.h): one of its
 * names, or null or absent (RESULT_NONE: not analysed).
 */
void rj_get_result(struct rd *d, json_t *obj, const char *key, enum result *dst)
{
	char *name = NULL;
	rj_get_string(d, obj, key, &name);
	int v = name ? result_parse(name) : RESULT_NONE;
	if (!d->failed && v < 0)
		rj_fail(d, key, "unknown value '%s'", name);
	*dst = v < 0 ? RESULT_NONE : (enum result)v;
	free(name);
}

/* A number; null or absent is NAN. */
double rj_number_value(struct rd *d, const char *key, json_t *v)
{
	if (!v || json_is_null(v))
		return NAN;
	if (!json_is_number(v)) {
		rj_expected(d, key, "a number", v);
		return NAN;
	}
	return json_number_value(v);
}

double rj_get_number(struct rd *d, json_t *obj, const char *key)
{
	return rj_number_value(d, key, json_object_get(obj, key));
}

/* A whole number in [lo, hi]; absent or null leaves *dst as it is. */
void rj_get_int(struct rd *d, json_t *obj, const char *key, int *dst, int lo, int hi)
{
	json_t *v = json_object_get(obj, key);
	if (!v || json_is_null(v))
		return;
	double x = rj_number_value(d, key, v);
	if (d->failed)
		return;
	if (!(x >= lo && x <= hi) || x != floor(x)) {
		rj_fail(d, key, "expected a whole number between %d and %d", lo, hi);
		return;
	}
	*dst = (int)x;
}

void rj_get_size(struct rd *d, json_t *obj, const char *key, size_t *dst)
{
	json_t *v = json_object_get(obj, key);
	if (!v || json_is_null(v))
		return;
	double x = rj_number_value(d, key, v);
	if (d->failed)
		return;
	/* 2^53: every count a report holds is far below it. */
	if (!(x >= 0 && x <= 9007199254740992.0) || x != floor(x)) {
		rj_fail(d, key, "expected a count (a whole number >= 0)");
		return;
	}
	*dst = (size_t)x;
}

/* true/false into 1/0; null or absent leaves *dst as it is. */
void rj_get_bool(struct rd *d, json_t *obj, const char *key, int *dst)
{
	json_t *v = json_object_get(obj, key);
	if (!v || json_is_null(v))
		return;
	if (!json_is_boolean(v)) {
		rj_expected(d, key, "true or false", v);
		return;
	}
	*dst = json_is_true(v);
}

int rj_get_metric(struct rd *d, const char *key, const char *name)
{
	int m = metric_lookup(name);
	if (m < 0)
		rj_fail(d, key, "unknown metric '%s'", name);
	return m;
}

/*
 * obj[key] as an object keyed by metric name ("latency": {...}, ...), each
 * value an object handed to fn; an unknown name or a value that is not an
 * object fails with its path.
 */
void rj_read_by_metric(struct rd *d, json_t *obj, const char *key, rj_read_metric_fn *fn, void *ctx)
{
	json_t *map = rj_get_object(d, obj, key, 0);
	if (!map || d->failed)
		return;
	size_t old = rj_enter_key(d, key);
	const char *name;
	json_t *v;
	json_object_foreach(map, name, v)
	{
		int m = rj_get_metric(d, name, name);
		if (d->failed)
			break;
		size_t o2 = rj_enter_key(d, name);
		if (!json_is_object(v))
			rj_expected(d, NULL, "an object", v);
		else
			fn(d, v, (enum metric_id)m, ctx);
		rj_leave(d, o2);
		if (d->failed)
			break;
	}
	rj_leave(d, old);
}

/* One of names[0..n) into *dst; absent leaves *dst as it is. */
void rj_get_choice(struct rd *d, json_t *o, const char *key, const char *const *names, int n,
		   int *dst)
{
	char *v = NULL;
	rj_get_string(d, o, key, &v);
	if (!v)
		return;
	int found = -1;
	for (int i = 0; i < n; i++)
		if (!strcmp(v, names[i]))
			found = i;
	if (found < 0)
		rj_fail(d, key, "unknown value '%s'", v);
	else
		*dst = found;
	free(v);
}
