/*
 * report/json_emit: a streaming JSON writer into an sbuf (json_emit.h):
 * quoting with UTF-8 checks, the shortest round-trip doubles, nesting and
 * indentation, and the key/value helpers.
 */
#include "report/json_emit.h"

#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/xalloc.h"

void json_emit_init(struct json_emit *j, struct sbuf *out, int pretty)
{
	memset(j, 0, sizeof(*j));
	j->out = out;
	j->pretty = pretty;
}

int json_emit_finish(struct json_emit *j)
{
	int ok = j->done && !j->depth && !j->misuse && !j->have_key;
	free(j->stack);
	j->stack = NULL;
	j->depth = j->alloc = 0;
	return ok ? 0 : -1;
}

static struct json_emit_level *top(struct json_emit *j)
{
	return j->depth ? &j->stack[j->depth - 1] : NULL;
}

static int is_inline(struct json_emit *j)
{
	struct json_emit_level *t = top(j);
	return !j->pretty || (t && t->inl);
}

static void newline_indent(struct json_emit *j, size_t depth)
{
	sbuf_addch(j->out, '\n');
	sbuf_addchars(j->out, ' ', depth * 2);
}

/* Separator and indentation before a member (key) or an array element. */
static void before_item(struct json_emit *j)
{
	struct json_emit_level *t = top(j);
	if (t->count)
		sbuf_addch(j->out, ',');
	if (!is_inline(j))
		newline_indent(j, j->depth);
	else if (t->count && j->pretty)
		sbuf_addch(j->out, ' ');
	t->count++;
}

/* Called before writing any value; checks the grammar. */
static void before_value(struct json_emit *j)
{
	struct json_emit_level *t = top(j);
	if (!t) {
		if (j->done)
			j->misuse = 1;
		return;
	}
	if (t->kind == '{') {
		if (!j->have_key)
			j->misuse = 1;
		j->have_key = 0;
		return;
	}
	before_item(j);
}

/* Called after a scalar or a closed container. */
static void after_value(struct json_emit *j)
{
	if (!j->depth)
		j->done = 1;
}

static void begin(struct json_emit *j, char kind, int inl)
{
	before_value(j);
	int parent_inline = j->depth && j->stack[j->depth - 1].inl;
	ALLOC_GROW(j->stack, j->depth + 1, j->alloc);
	j->stack[j->depth].kind = kind;
	j->stack[j->depth].inl = (char)(inl || parent_inline);
	j->stack[j->depth].count = 0;
	j->depth++;
	sbuf_addch(j->out, kind);
}

static void end(struct json_emit *j, char kind)
{
	struct json_emit_level *t = top(j);
	if (!t || t->kind != kind || j->have_key) {
		j->misuse = 1;
		return;
	}
	int was_inline = is_inline(j);
	size_t count = t->count;
	j->depth--;
	if (count && !was_inline)
		newline_indent(j, j->depth);
	sbuf_addch(j->out, kind == '{' ? '}' : ']');
	after_value(j);
}

void json_emit_begin_object(struct json_emit *j)
{
	begin(j, '{', 0);
}

void json_emit_begin_object_inline(struct json_emit *j)
{
	begin(j, '{', 1);
}

void json_emit_end_object(struct json_emit *j)
{
	end(j, '{');
}

void json_emit_begin_array(struct json_emit *j)
{
	begin(j, '[', 0);
}

void json_emit_begin_array_inline(struct json_emit *j)
{
	begin(j, '[', 1);
}

void json_emit_end_array(struct json_emit *j)
{
	end(j, '[');
}

void json_emit_key(struct json_emit *j, const char *key)
{
	struct json_emit_level *t = top(j);
	if (!t || t->kind != '{' || j->have_key) {
		j->misuse = 1;
		return;
	}
	before_item(j);
	json_quote(j->out, key, strlen(key));
	sbuf_adds(j->out, j->pretty ? ": " : ":");
	j->have_key = 1;
}

size_t json_utf8_next(const char *str, size_t n, uint32_t *cp)
{
	const unsigned char *s = (const unsigned char *)str;
	unsigned char c = s[0];
	size_t need;
	unsigned char lo = 0x80, hi = 0xBF;
	uint32_t v;

	if (c < 0x80) {
		*cp = c;
		return 1;
	}
	*cp = 0xFFFD;
	if (c >= 0xC2 && c <= 0xDF) {
		need = 2;
		v = c & 0x1F;
	} else if (c >= 0xE0 && c <= 0xEF) {
		need = 3;
		v = c & 0x0F;
		if (c == 0xE0)
			lo = 0xA0; /* no overlong forms */
		else if (c == 0xED)
			hi = 0x9F; /* no UTF-16 surrogates */
	} else if (c >= 0xF0 && c <= 0xF4) {
		need = 4;
		v = c & 0x07;
		if (c == 0xF0)
			lo = 0x90;
		else if (c == 0xF4)
			hi = 0x8F; /* nothing above U+10FFFF */
	} else {
		return 1;
	}
	for (size_t i = 1; i < need; i++) {
		unsigned char l = i == 1 ? lo : 0x80, h = i == 1 ? hi : 0xBF;
		/* Invalid: one U+FFFD for the maximal valid prefix (Unicode's
		 * "maximal subpart" rule, as browsers do). */
		if (i >= n || s[i] < l || s[i] > h)
			return i;
		v = (v << 6) | (s[i] & 0x3F);
	}
	*cp = v;
	return need;
}

void json_quote(struct sbuf *out, const char *str, size_t len)
{
	const unsigned char *s = (const unsigned char *)str;
	size_t i = 0;

	sbuf_grow(out, len + 2);
	sbuf_addch(out, '"');
	while (i < len) {
		unsigned char c = s[i];
		if (c >= 0x80) {
			uint32_t cp;
			size_t n = json_utf8_next(str + i, len - i, &cp);
			if (cp == 0x2028 || cp == 0x2029)
				/* they end a line in JavaScript */
				sbuf_addf(out, "\\u%04x", (unsigned)cp);
			else if (cp == 0xFFFD)
				sbuf_adds(out, "\xEF\xBF\xBD");
			else
				sbuf_add(out, s + i, n);
			i += n;
			continue;
		}
		switch (c) {
		case '"':
			sbuf_adds(out, "\\\"");
			break;
		case '\\':
			sbuf_adds(out, "\\\\");
			break;
		case '\b':
			sbuf_adds(out, "\\b");
			break;
		case '\f':
			sbuf_adds(out, "\\f");
			break;
		case '\n':
			sbuf_adds(out, "\\n");
			break;
		case '\r':
			sbuf_adds(out, "\\r");
			break;
		case '\t':
			sbuf_adds(out, "\\t");
			break;
		case '<':
			/* no "</script>" or "<!--" inside a <script> */
			if (i + 1 < len && (s[i + 1] == '/' || s[i + 1] == '!'))
				sbuf_adds(out, "\\u003c");
			else
				sbuf_addch(out, '<');
			break;
		default:
			if (c < 0x20 || c == 0x7f)
				sbuf_addf(out, "\\u%04x", c);
			else
				sbuf_addch(out, (char)c);
		}
		i++;
	}
	sbuf_addch(out, '"');
}

static void format_shortest(struct sbuf *out, double v, int json)
{
	char buf[40];

	if (!isfinite(v)) {
		if (json)
			sbuf_adds(out, "null");
		return;
	}
	/*
	 * DBL_DIG (15) digits always read back as the decimal they came from,
	 * so if %.15g round-trips it is also the shortest (%g drops trailing
	 * zeros); otherwise 16, and 17 always round-trips.
	 */
	for (int prec = 15; prec <= 17; prec++) {
		snprintf(buf, sizeof(buf), "%.*g", prec, v);
		if (prec == 17 || strtod(buf, NULL) == v)
			break;
	}
	sbuf_adds(out, buf);
	if (json && !strpbrk(buf, ".eE"))
		sbuf_adds(out, ".0");
}

void json_format_double(struct sbuf *out, double v)
{
	format_shortest(out, v, 1);
}

void json_format_double_plain(struct sbuf *out, double v)
{
	format_shortest(out, v, 0);
}

void json_emit_string_len(struct json_emit *j, const char *s, size_t len)
{
	before_value(j);
	json_quote(j->out, s, len);
	after_value(j);
}

void json_emit_string(struct json_emit *j, const char *s)
{
	if (!s) {
		json_emit_null(j);
		return;
	}
	json_emit_string_len(j, s, strlen(s));
}

void json_emit_int(struct json_emit *j, int64_t v)
{
	before_value(j);
	sbuf_addf(j->out, "%" PRId64, v);
	after_value(j);
}

void json_emit_uint(struct json_emit *j, uint64_t v)
{
	before_value(j);
	sbuf_addf(j->out, "%" PRIu64, v);
	after_value(j);
}

void json_emit_double(struct json_emit *j, double v)
{
	before_value(j);
	json_format_double(j->out, v);
	after_value(j);
}

void json_emit_bool(struct json_emit *j, int v)
{
	before_value(j);
	sbuf_adds(j->out, v ? "true" : "false");
	after_value(j);
}

void json_emit_null(struct json_emit *j)
{
	before_value(j);
	sbuf_adds(j->out, "null");
	after_value(j);
}

void json_emit_kv_string(struct json_emit *j, const char *key, const char *s)
{
	json_emit_key(j, key);
	json_emit_string(j, s);
}

void json_emit_kv_int(struct json_emit *j, const char *key, int64_t v)
{
	json_emit_key(j, key);
	json_emit_int(j, v);
}

void json_emit_kv_uint(struct json_emit *j, const char *key, uint64_t v)
{
	json_emit_key(j, key);
	json_emit_uint(j, v);
}

void json_emit_kv_double(struct json_emit *j, const char *key, double v)
{
	json_emit_key(j, key);
	json_emit_double(j, v);
}

void json_emit_kv_bool(struct json_emit *j, const char *key, int v)
{
	json_emit_key(j, key);
	json_emit_bool(j, v);
}

void json_emit_kv_null(struct json_emit *j, const char *key)
{
	json_emit_key(j, key);
	json_emit_null(j);
}
