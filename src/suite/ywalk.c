/*
 * suite/ywalk: walking a libyaml document with line and column kept
 * (ywalk.h): errors sorted by position, keys and indices in paths, scalars
 * by kind, merge keys, unknown-key reports with hints, typed getters.
 */
#include "suite/ywalk.h"

#include <errno.h>
#include <limits.h>
#include <math.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#include "base/sbuf.h"
#include "base/xalloc.h"
#include "base/suggest.h"

/* More keys than this in one mapping is not a suite anybody wrote. */
#define YWALK_MAX_KEYS 10000
/* Nesting of `<<` merges. */
#define YWALK_MAX_MERGE_DEPTH 16

void ywalk_init(struct ywalk *w, const char *file, yaml_document_t *doc)
{
	memset(w, 0, sizeof(*w));
	w->file = file;
	w->doc = doc;
	strvec_init(&w->paths);
}

void ywalk_release(struct ywalk *w)
{
	for (size_t i = 0; i < w->nr_errors; i++)
		free(w->errors[i].text);
	free(w->errors);
	strvec_clear(&w->paths);
	w->errors = NULL;
	w->nr_errors = w->alloc_errors = 0;
}

int ywalk_line(const yaml_node_t *n)
{
	return (int)n->start_mark.line + 1;
}

int ywalk_col(const yaml_node_t *n)
{
	return (int)n->start_mark.column + 1;
}

static void add_error(struct ywalk *w, int line, int col, const char *path, const char *fmt,
		      va_list ap)
{
	struct sbuf sb = SBUF_INIT;
	if (path && *path)
		sbuf_addf(&sb, "%s: ", path);
	sbuf_vaddf(&sb, fmt, ap);
	/*
	 * Keys and values quoted in the message may hold control characters
	 * ("a\nb" in a quoted scalar); escape them so that every error stays
	 * one "FILE:LINE:COL: ..." line.
	 */
	struct sbuf text = SBUF_INIT;
	for (size_t i = 0; i < sb.len; i++) {
		unsigned char c = (unsigned char)sb.buf[i];
		if (c == '\n')
			sbuf_adds(&text, "\\n");
		else if (c == '\r')
			sbuf_adds(&text, "\\r");
		else if (c == '\t')
			sbuf_adds(&text, "\\t");
		else if (c < 0x20 || c == 0x7f)
			sbuf_addf(&text, "\\x%02x", c);
		else
			sbuf_addch(&text, (char)c);
	}
	sbuf_release(&sb);
	ALLOC_GROW(w->errors, w->nr_errors + 1, w->alloc_errors);
	struct ywalk_error *e = &w->errors[w->nr_errors];
	e->line = line;
	e->col = col;
	e->seq = w->nr_errors;
	e->text = sbuf_detach(&text);
	w->nr_errors++;
}

void ywalk_error(struct ywalk *w, const yaml_node_t *at, const char *path, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	add_error(w, at ? ywalk_line(at) : 0, at ? ywalk_col(at) : 0, path, fmt, ap);
	va_end(ap);
}

void ywalk_error_at(struct ywalk *w, int line, int col, const char *path, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	add_error(w, line, col, path, fmt, ap);
	va_end(ap);
}

static int error_cmp(const void *a, const void *b)
{
	const struct ywalk_error *x = a, *y = b;
	if (x->line != y->line)
		return x->line < y->line ? -1 : 1;
	if (x->col != y->col)
		return x->col < y->col ? -1 : 1;
	return x->seq < y->seq ? -1 : x->seq > y->seq;
}

size_t ywalk_flush(struct ywalk *w, struct sbuf *out)
{
	if (w->nr_errors > 1)
		qsort(w->errors, w->nr_errors, sizeof(*w->errors), error_cmp);
	for (size_t i = 0; i < w->nr_errors; i++) {
		const struct ywalk_error *e = &w->errors[i];
		if (e->line)
			sbuf_addf(out, "%s:%d:%d: %s\n", w->file, e->line, e->col, e->text);
		else
			sbuf_addf(out, "%s: %s\n", w->file, e->text);
	}
	return w->nr_errors;
}

static int plain_key_ok(const char *key)
{
	if (!*key)
		return 0;
	for (const char *p = key; *p; p++) {
		char c = *p;
		if (!((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
		      c == '_' || c == '-' || (unsigned char)c >= 0x80))
			return 0;
	}
	return 1;
}

const char *ywalk_key(struct ywalk *w, const char *parent, const char *key)
{
	struct sbuf sb = SBUF_INIT;
	int plain = plain_key_ok(key);
	if (parent && *parent)
		sbuf_adds(&sb, parent);
	if (plain) {
		if (sb.len)
			sbuf_addch(&sb, '.');
		sbuf_adds(&sb, key);
	} else {
		sbuf_addch(&sb, '[');
		sbuf_addch(&sb, '"');
		for (const char *p = key; *p; p++) {
			if (*p == '"' || *p == '\\')
				sbuf_addch(&sb, '\\');
			sbuf_addch(&sb, *p);
		}
		sbuf_adds(&sb, "\"]");
	}
	return strvec_push_take(&w->paths, sbuf_detach(&sb));
}

const char *ywalk_index(struct ywalk *w, const char *parent, size_t i)
{
	return strvec_pushf(&w->paths, "%s[%zu]", parent ? parent : "", i);
}

/* ywalk_substitute()'s state: the loader is single-threaded. */
static const struct strvec *subst_names, *subst_values;
static struct strvec subst_pool = STRVEC_INIT;

void ywalk_substitute(const struct strvec *names, const struct strvec *values)
{
	subst_names = names;
	subst_values = values;
	if (!names)
		strvec_clear(&subst_pool);
}

const char *ywalk_text(const yaml_node_t *n)
{
	const char *s = (const char *)n->data.scalar.value;
	if (!subst_names || !strstr(s, "${"))
		return s;
	struct sbuf out = SBUF_INIT;
	while (*s) {
		if (s[0] == '$' && s[1] == '$' && s[2] == '{') {
			sbuf_adds(&out, "$${"); /* a literal "${", left to vars.c */
			s += 3;
			continue;
		}
		int done = 0;
		if (s[0] == '$' && s[1] == '{')
			for (size_t i = 0; i < subst_names->nr && !done; i++) {
				size_t k = strlen(subst_names->v[i]);
				if (!strncmp(s + 2, subst_names->v[i], k) && s[2 + k] == '}') {
					sbuf_adds(&out, subst_values->v[i]);
					s += k + 3;
					done = 1;
				}
			}
		if (!done)
			sbuf_addch(&out, *s++);
	}
	return strvec_push_take(&subst_pool, sbuf_detach(&out));
}

static int is_plain(const yaml_node_t *n)
{
	return n->type == YAML_SCALAR_NODE && n->data.scalar.style == YAML_PLAIN_SCALAR_STYLE;
}

static int text_in(const char *s, const char *const *list)
{
	for (; *list; list++)
		if (!strcmp(s, *list))
			return 1;
	return 0;
}

static const char *const null_words[] = {"", "~", "null", "Null", "NULL", NULL};
static const char *const true_words[] = {"true", "True", "TRUE", NULL};
static const char *const false_words[] = {"false", "False", "FALSE", NULL};
static const char *const yes_words[] = {"yes", "Yes", "YES", "on", "On", "ON", NULL};
static const char *const no_words[] = {"no", "No", "NO", "off", "Off", "OFF", NULL};

static int digits(const char *s, size_t *n)
{
	size_t i = 0;
	while (s[i] >= '0' && s[i] <= '9')
		i++;
	*n = i;
	return i > 0;
}

/* YAML 1.2 core schema: [-+]?[0-9]+ */
static int text_is_int(const char *s)
{
	size_t n;
	if (*s == '-' || *s == '+')
		s++;
	return digits(s, &n) && !s[n];
}

/* [-+]?(\.[0-9]+|[0-9]+(\.[0-9]*)?)([eE][-+]?[0-9]+)? */
static int text_is_float(const char *s)
{
	size_t n = 0, m = 0;
	if (*s == '-' || *s == '+')
		s++;
	if (!strcmp(s, ".inf") || !strcmp(s, ".Inf") || !strcmp(s, ".INF"))
		return 1;
	if (!strcmp(s, ".nan") || !strcmp(s, ".NaN") || !strcmp(s, ".NAN"))
		return 1;
	int have = digits(s, &n);
	s += n;
	if (*s == '.') {
		s++;
		have |= digits(s, &m);
		s += m;
	}
	if (!have)
		return 0;
	if (*s == 'e' || *s == 'E') {
		s++;
		if (*s == '-' || *s == '+')
			s++;
		if (!digits(s, &n))
			return 0;
		s += n;
	}
	return !*s;
}

int ywalk_is_null(const yaml_node_t *n)
{
	return is_plain(n) && text_in(ywalk_text(n), null_words);
}

const char *ywalk_kind(const yaml_node_t *n)
{
	switch (n->type) {
	case YAML_MAPPING_NODE:
		return "a mapping";
	case YAML_SEQUENCE_NODE:
		return "a list";
	case YAML_SCALAR_NODE:
		break;
	default:
		return "nothing";
	}
	if (!is_plain(n))
		return "a string";
	const char *s = ywalk_text(n);
	if (text_in(s, null_words))
		return "null";
	if (text_in(s, true_words) || text_in(s, false_words))
		return "a boolean";
	if (text_is_int(s))
		return "an integer";
	if (text_is_float(s))
		return "a number";
	return "a string";
}

size_t ywalk_seq_len(const yaml_node_t *n)
{
	return (size_t)(n->data.sequence.items.top - n->data.sequence.items.start);
}

yaml_node_t *ywalk_seq_item(struct ywalk *w, const yaml_node_t *n, size_t i)
{
	return yaml_document_get_node(w->doc, n->data.sequence.items.start[i]);
}

static void push_pair(struct ywalk_map *m, const char *key, yaml_node_t *kn, yaml_node_t *vn,
		      int merged)
{
	ALLOC_GROW(m->pairs, m->nr + 1, m->alloc);
	m->pairs[m->nr++] = (struct ywalk_pair){key, kn, vn, merged, 0};
}

static int has_key(const struct ywalk_map *m, const char *key)
{
	for (size_t i = 0; i < m->nr; i++)
		if (!strcmp(m->pairs[i].key, key))
			return 1;
	return 0;
}

static int is_merge_key(const yaml_node_t *k)
{
	return is_plain(k) && !strcmp(ywalk_text(k), "<<");
}

static void merge_from(struct ywalk *w, struct ywalk_map *m, yaml_node_t *src, const char *path,
		       int depth);

/* Merge the pairs of mapping `src` that m does not have yet. */
static void merge_mapping(struct ywalk *w, struct ywalk_map *m, yaml_node_t *src, const char *path,
			  int depth)
{
	if (depth > YWALK_MAX_MERGE_DEPTH) {
		ywalk_error(w, src, path, "merge keys ('<<') nest too deeply");
		return;
	}
	yaml_node_pair_t *p;
	yaml_node_t *later_merge = NULL;
	for (p = src->data.mapping.pairs.start; p < src->data.mapping.pairs.top; p++) {
		yaml_node_t *k = yaml_document_get_node(w->doc, p->key);
		yaml_node_t *v = yaml_document_get_node(w->doc, p->value);
		if (k->type != YAML_SCALAR_NODE)
			continue; /* reported where the mapping itself is opened */
		if (is_merge_key(k)) {
			later_merge = v;
			continue;
		}
		if (!has_key(m, ywalk_text(k)))
			push_pair(m, ywalk_text(k), k, v, 1);
	}
	if (later_merge)
		merge_from(w, m, later_merge, path, depth + 1);
}

static void merge_from(struct ywalk *w, struct ywalk_map *m, yaml_node_t *src, const char *path,
		       int depth)
{
	if (src->type == YAML_MAPPING_NODE) {
		merge_mapping(w, m, src, path, depth);
		return;
	}
	if (src->type == YAML_SEQUENCE_NODE) {
		size_t n = ywalk_seq_len(src);
		for (size_t i = 0; i < n; i++) {
			yaml_node_t *it = ywalk_seq_item(w, src, i);
			if (it->type != YAML_MAPPING_NODE) {
				ywalk_error(w, it, path,
					    "a merge key ('<<') takes a mapping or a list of "
					    "mappings, got %s",
					    ywalk_kind(it));
				continue;
			}
			merge_mapping(w, m, it, path, depth);
		}
		return;
	}
	ywalk_error(w, src, path,
		    "a merge key ('<<') takes a mapping or a list of mappings, got %s",
		    ywalk_kind(src));
}

struct key_ref {
	const char *key;
	size_t idx;
};

static int key_ref_cmp(const void *a, const void *b)
{
	const struct key_ref *x = a, *y = b;
	int c = strcmp(x->key, y->key);
	if (c)
		return c;
	return x->idx < y->idx ? -1 : x->idx > y->idx;
}

static void report_unknown(struct ywalk *w, struct ywalk_map *m, const struct ywalk_pair *p,
			   const char *const *allowed, const char *elsewhere_hint,
			   const char *const *elsewhere)
{
	const char *kpath = ywalk_key(w, m->path, p->key);
	if (elsewhere && text_in(p->key, elsewhere)) {
		ywalk_error(w, p->key_node, kpath, "key '%s' is not allowed here%s%s%s", p->key,
			    elsewhere_hint ? " (" : "", elsewhere_hint ? elsewhere_hint : "",
			    elsewhere_hint ? ")" : "");
		return;
	}
	const char *near = suggest_closest(p->key, allowed);
	if (near) {
		ywalk_error(w, p->key_node, kpath, "unknown key '%s', did you mean '%s'?", p->key,
			    near);
		return;
	}
	struct sbuf list = SBUF_INIT;
	for (const char *const *a = allowed; *a; a++)
		sbuf_addf(&list, "%s%s", a == allowed ? "" : ", ", *a);
	ywalk_error(w, p->key_node, kpath, "unknown key '%s' (allowed: %s)", p->key, list.buf);
	sbuf_release(&list);
}

int ywalk_map_open(struct ywalk *w, yaml_node_t *n, const char *path, const char *const *allowed,
		   const char *elsewhere_hint, const char *const *elsewhere, struct ywalk_map *m)
{
	memset(m, 0, sizeof(*m));
	m->node = n;
	m->path = path;
	m->allowed = allowed;
	if (n->type != YAML_MAPPING_NODE) {
		ywalk_error(w, n, path, "expected a mapping, got %s", ywalk_kind(n));
		return -1;
	}
	size_t total = (size_t)(n->data.mapping.pairs.top - n->data.mapping.pairs.start);
	if (total > YWALK_MAX_KEYS) {
		ywalk_error(w, n, path, "more than %d keys in one mapping", YWALK_MAX_KEYS);
		return -1;
	}
	yaml_node_t *merge = NULL;
	for (yaml_node_pair_t *p = n->data.mapping.pairs.start; p < n->data.mapping.pairs.top;
	     p++) {
		yaml_node_t *k = yaml_document_get_node(w->doc, p->key);
		yaml_node_t *v = yaml_document_get_node(w->doc, p->value);
		if (k->type != YAML_SCALAR_NODE) {
			ywalk_error(w, k, path, "keys must be strings, got %s", ywalk_kind(k));
			continue;
		}
		if (is_merge_key(k)) {
			if (merge)
				ywalk_error(w, k, path, "duplicate key '<<'");
			merge = v;
			continue;
		}
		push_pair(m, ywalk_text(k), k, v, 0);
	}
	if (m->nr > 1) {
		struct key_ref *refs = xreallocarray(NULL, m->nr, sizeof(*refs));
		for (size_t i = 0; i < m->nr; i++)
			refs[i] = (struct key_ref){m->pairs[i].key, i};
		qsort(refs, m->nr, sizeof(*refs), key_ref_cmp);
		for (size_t i = 1; i < m->nr; i++) {
			if (strcmp(refs[i].key, refs[i - 1].key))
				continue;
			size_t first = refs[i - 1].idx;
			while (i < m->nr && !strcmp(refs[i].key, m->pairs[first].key)) {
				const struct ywalk_pair *d = &m->pairs[refs[i].idx];
				ywalk_error(w, d->key_node, ywalk_key(w, path, d->key),
					    "duplicate key '%s' (first defined at line %d)", d->key,
					    ywalk_line(m->pairs[first].key_node));
				i++;
			}
		}
		free(refs);
	}
	if (merge)
		merge_from(w, m, merge, path, 0);
	if (allowed)
		for (size_t i = 0; i < m->nr; i++)
			if (!text_in(m->pairs[i].key, allowed))
				report_unknown(w, m, &m->pairs[i], allowed, elsewhere_hint,
					       elsewhere);
	return 0;
}

void ywalk_map_close(struct ywalk_map *m)
{
	free(m->pairs);
	m->pairs = NULL;
	m->nr = m->alloc = 0;
}

yaml_node_t *ywalk_map_get(struct ywalk_map *m, const char *key)
{
	/* The first match: explicit keys come before merged ones. */
	for (size_t i = 0; i < m->nr; i++)
		if (!strcmp(m->pairs[i].key, key)) {
			m->pairs[i].used = 1;
			return m->pairs[i].value;
		}
	return NULL;
}

int ywalk_map_has_typo_of(const struct ywalk_map *m, const char *key)
{
	if (!m->allowed)
		return 0;
	for (size_t i = 0; i < m->nr; i++) {
		const char *k = m->pairs[i].key;
		const char *near;
		if (text_in(k, m->allowed))
			continue;
		near = suggest_closest(k, m->allowed);
		if (near && !strcmp(near, key))
			return 1;
	}
	return 0;
}

int ywalk_expect_scalar(struct ywalk *w, yaml_node_t *n, const char *path, const char *what)
{
	if (n->type != YAML_SCALAR_NODE || ywalk_is_null(n)) {
		ywalk_error(w, n, path, "expected %s, got %s", what, ywalk_kind(n));
		return -1;
	}
	return 0;
}

/*
 * A string value: a quoted scalar, or a plain one that does not read as a
 * number, a boolean or null. himorime's schema types these fields as
 * strings, so `name: 5` or `[sleep, 1]` are errors there and here alike.
 */
static int expect_string(struct ywalk *w, yaml_node_t *n, const char *path)
{
	if (ywalk_expect_scalar(w, n, path, "a string"))
		return -1;
	const char *kind = ywalk_kind(n);
	if (strcmp(kind, "a string")) {
		ywalk_error(w, n, path, "expected a string, got %s (quote it: \"%s\")", kind,
			    ywalk_text(n));
		return -1;
	}
	return 0;
}

int ywalk_str(struct ywalk *w, yaml_node_t *n, const char *path, char **out)
{
	if (expect_string(w, n, path))
		return -1;
	*out = xstrdup(ywalk_text(n));
	return 0;
}

int ywalk_nonempty_str(struct ywalk *w, yaml_node_t *n, const char *path, char **out)
{
	if (expect_string(w, n, path))
		return -1;
	if (!*ywalk_text(n)) {
		ywalk_error(w, n, path, "must not be empty");
		return -1;
	}
	*out = xstrdup(ywalk_text(n));
	return 0;
}

int ywalk_bool(struct ywalk *w, yaml_node_t *n, const char *path, int *out)
{
	if (is_plain(n)) {
		const char *s = ywalk_text(n);
		if (text_in(s, true_words) || text_in(s, yes_words)) {
			*out = 1;
			return 0;
		}
		if (text_in(s, false_words) || text_in(s, no_words)) {
			*out = 0;
			return 0;
		}
	}
	ywalk_error(w, n, path, "expected true or false, got %s", ywalk_kind(n));
	return -1;
}

int ywalk_int(struct ywalk *w, yaml_node_t *n, const char *path, long long min, long long max,
	      long long *out)
{
	if (!is_plain(n) || !text_is_int(ywalk_text(n))) {
		ywalk_error(w, n, path, "expected an integer, got %s", ywalk_kind(n));
		return -1;
	}
	errno = 0;
	long long v = strtoll(ywalk_text(n), NULL, 10);
	if (errno == ERANGE || v < min || v > max) {
		if (max - min <= 100000)
			ywalk_error(w, n, path, "must be between %lld and %lld, got %s", min, max,
				    ywalk_text(n));
		else if (errno != ERANGE && v < min)
			ywalk_error(w, n, path, "must be at least %lld, got %s", min,
				    ywalk_text(n));
		else
			ywalk_error(w, n, path, "must be at most %lld, got %s", max, ywalk_text(n));
		return -1;
	}
	*out = v;
	return 0;
}

int ywalk_number(struct ywalk *w, yaml_node_t *n, const char *path, double min, double max,
		 double *out)
{
	const char *s = is_plain(n) ? ywalk_text(n) : NULL;
	if (!s || !(text_is_int(s) || text_is_float(s))) {
		ywalk_error(w, n, path, "expected a number, got %s", ywalk_kind(n));
		return -1;
	}
	double v = strtod(s, NULL);
	if (!isfinite(v) || v < min || v > max) {
		ywalk_error(w, n, path, "must be between %g and %g, got %s", min, max, s);
		return -1;
	}
	*out = v;
	return 0;
}

int ywalk_enum(struct ywalk *w, yaml_node_t *n, const char *path, const char *const *choices,
	       int *out)
{
	struct sbuf list = SBUF_INIT;
	for (const char *const *c = choices; *c; c++)
		sbuf_addf(&list, "%s%s", c == choices ? "" : ", ", *c);
	if (n->type != YAML_SCALAR_NODE || ywalk_is_null(n)) {
		ywalk_error(w, n, path, "expected one of %s, got %s", list.buf, ywalk_kind(n));
		sbuf_release(&list);
		return -1;
	}
	const char *s = ywalk_text(n);
	for (int i = 0; choices[i]; i++)
		if (!strcmp(s, choices[i])) {
			*out = i;
			sbuf_release(&list);
			return 0;
		}
	const char *near = suggest_closest(s, choices);
	if (near)
		ywalk_error(w, n, path, "unknown value '%s', did you mean '%s'? (one of %s)", s,
			    near, list.buf);
	else
		ywalk_error(w, n, path, "unknown value '%s' (one of %s)", s, list.buf);
	sbuf_release(&list);
	return -1;
}

int ywalk_str_list(struct ywalk *w, yaml_node_t *n, const char *path, struct strvec *out)
{
	if (n->type != YAML_SEQUENCE_NODE) {
		ywalk_error(w, n, path, "expected a list of strings, got %s", ywalk_kind(n));
		return -1;
	}
	int rc = 0;
	size_t len = ywalk_seq_len(n);
	for (size_t i = 0; i < len; i++) {
		yaml_node_t *it = ywalk_seq_item(w, n, i);
		char *s;
		if (ywalk_nonempty_str(w, it, ywalk_index(w, path, i), &s)) {
			rc = -1;
			continue;
		}
		strvec_push_take(out, s);
	}
	return rc;
}
