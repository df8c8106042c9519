/*
 * report/json_emit: a small streaming JSON writer into a struct sbuf.
 *
 * Call order:
 *
 *	struct json_emit j;
 *	json_emit_init(&j, &out, 1);          // 1 = pretty (2-space indent)
 *	json_emit_begin_object(&j);
 *	json_emit_key(&j, "name");
 *	json_emit_string(&j, "demo");
 *	json_emit_end_object(&j);
 *	if (json_emit_finish(&j) < 0) ...     // unbalanced or misused
 *
 * Every value inside an object must be preceded by json_emit_key(); values
 * inside arrays must not. The json_emit_kv_*() helpers write a key and a
 * value in one call. An "inline" container (json_emit_begin_*_inline) is
 * written on one line even when pretty printing, with everything nested
 * inside it; it is meant for small records such as samples.
 *
 * Strings: invalid UTF-8 is replaced by U+FFFD, control characters are
 * escaped (\n, \t, ... or \u00XX), and so are U+2028/U+2029 and a `<`
 * followed by `/` or `!` (as \u003c), so that the output can be embedded
 * in an HTML <script> element.
 *
 * Numbers: json_emit_double() writes the shortest text that reads back as
 * the same double, always with a `.` or an exponent so that readers keep it
 * a real; NAN and infinities are written as null (a value that was not
 * measured is null, never 0).
 *
 * Misuse (a value without a key in an object, a key in an array, an end
 * that does not match) does not abort: it is recorded and reported by
 * json_emit_finish(), and the output is then not valid JSON.
 *
 * Ownership: the emitter appends to `out`, which stays the caller's; it
 * owns only its nesting stack, freed by json_emit_finish().
 */
#ifndef KAGARI_REPORT_JSON_EMIT_H
#define KAGARI_REPORT_JSON_EMIT_H

#include <stddef.h>
#include <stdint.h>

#include "base/sbuf.h"

struct json_emit_level {
	char kind;    /* '{' or '[' */
	char inl;     /* written on one line */
	size_t count; /* members or elements written so far */
};

struct json_emit {
	struct sbuf *out;
	int pretty;
	int have_key; /* a key was written and waits for its value */
	int done;     /* a complete top-level value was written */
	int misuse;
	struct json_emit_level *stack;
	size_t depth, alloc;
};

/* Start writing one JSON value into `out` (appended; `out` not reset). */
void json_emit_init(struct json_emit *j, struct sbuf *out, int pretty);
/*
 * Free the nesting stack. Returns 0 when exactly one complete, balanced
 * value was written without misuse, else -1. The emitter may be
 * re-initialised afterwards.
 */
int json_emit_finish(struct json_emit *j);

void json_emit_begin_object(struct json_emit *j);
void json_emit_begin_object_inline(struct json_emit *j);
void json_emit_end_object(struct json_emit *j);
void json_emit_begin_array(struct json_emit *j);
void json_emit_begin_array_inline(struct json_emit *j);
void json_emit_end_array(struct json_emit *j);

/* An object member's name; the next call must write its value. */
void json_emit_key(struct json_emit *j, const char *key);

/* A string; NULL writes null. */
void json_emit_string(struct json_emit *j, const char *s);
/* A string of `len` bytes (may contain NUL bytes, written as \u0000). */
void json_emit_string_len(struct json_emit *j, const char *s, size_t len);
void json_emit_int(struct json_emit *j, int64_t v);
void json_emit_uint(struct json_emit *j, uint64_t v);
/* Shortest round-trip text; non-finite values are written as null. */
void json_emit_double(struct json_emit *j, double v);
void json_emit_bool(struct json_emit *j, int v);
void json_emit_null(struct json_emit *j);

/* Key + value in one call. */
void json_emit_kv_string(struct json_emit *j, const char *key, const char *s);
void json_emit_kv_int(struct json_emit *j, const char *key, int64_t v);
void json_emit_kv_uint(struct json_emit *j, const char *key, uint64_t v);
void json_emit_kv_double(struct json_emit *j, const char *key, double v);
void json_emit_kv_bool(struct json_emit *j, const char *key, int v);
void json_emit_kv_null(struct json_emit *j, const char *key);

/*
 * Helpers usable without an emitter (CSV, Markdown, HTML writers):
 *
 * json_quote() appends `s[0..len)` as a quoted, escaped JSON string.
 * json_format_double() appends the shortest text that strtod() reads back
 * as exactly `v` ("%.15g", else "%.16g", else "%.17g"), with ".0" added
 * when it would otherwise look like an integer; non-finite values append
 * "null". json_format_double_plain() is the same without the ".0" and with
 * nothing appended for non-finite values (for CSV cells).
 */
void json_quote(struct sbuf *out, const char *s, size_t len);
/*
 * Decode one UTF-8 character from s[0..n), n >= 1. Returns the bytes
 * consumed (>= 1) and sets *cp; an invalid or truncated sequence (overlong,
 * surrogate, above U+10FFFF) consumes its maximal valid prefix and yields
 * U+FFFD.
 */
size_t json_utf8_next(const char *s, size_t n, uint32_t *cp);
void json_format_double(struct sbuf *out, double v);
void json_format_double_plain(struct sbuf *out, double v);

#endif
