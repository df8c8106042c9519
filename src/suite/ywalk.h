/*
 * suite/ywalk: a small layer over a libyaml document for the suite loader.
 *
 * It keeps the file's line and column with every message, builds the
 * `field.path` strings (benchmarks[0].commands.sort.command), checks types,
 * rejects unknown and duplicate keys (with "did you mean" hints), resolves
 * YAML merge keys (`<<: *defaults`), and collects every error so that all of
 * them are reported at once, sorted by position.
 *
 * Call order:
 *   ywalk_init(&w, file, doc);
 *   ... ywalk_map_open() / ywalk_map_get() / ywalk_map_close(),
 *       ywalk_str() / ywalk_int() / ... on the nodes ...
 *   ywalk_flush(&w, errs);   one "FILE:LINE:COL: path: message\n" per error
 *   ywalk_release(&w);
 *
 * Path strings returned by ywalk_key()/ywalk_index() are owned by the walk
 * and live until ywalk_release().
 */
#ifndef KAGARI_SUITE_YWALK_H
#define KAGARI_SUITE_YWALK_H

#include <stddef.h>
#include <stdint.h>

#include <yaml.h>

#include "base/strvec.h"

struct sbuf;

struct ywalk_error {
	int line, col; /* 0: no position */
	size_t seq;    /* insertion order, for a stable sort */
	char *text;    /* "path: message" (no file, no newline) */
};

struct ywalk {
	const char *file;
	yaml_document_t *doc;
	struct ywalk_error *errors;
	size_t nr_errors, alloc_errors;
	struct strvec paths; /* storage for path strings */
};

struct ywalk_pair {
	const char *key; /* the key's text */
	yaml_node_t *key_node;
	yaml_node_t *value;
	int merged; /* came from a `<<` merge */
	int used;
};

/* A mapping opened for lookups: explicit keys first, merged keys after. */
struct ywalk_map {
	yaml_node_t *node;
	const char *path;
	const char *const *allowed; /* as given to ywalk_map_open() */
	struct ywalk_pair *pairs;
	size_t nr, alloc;
};

void ywalk_init(struct ywalk *w, const char *file, yaml_document_t *doc);
/*
 * A benchmark's `matrix:` (suite/load.c): while names is set, ywalk_text()
 * returns every scalar with each ${NAME} of names replaced by the value at
 * the same index of values ("$${" stays a literal). Set it before loading
 * one command of a combination and clear it (NULL, NULL) after: the texts
 * made meanwhile live until then. The loader is single-threaded.
 */
void ywalk_substitute(const struct strvec *names, const struct strvec *values);
void ywalk_release(struct ywalk *w);

/* Record an error at node `at` (NULL: no position). path may be "" or NULL. */
void ywalk_error(struct ywalk *w, const yaml_node_t *at, const char *path, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));
void ywalk_error_at(struct ywalk *w, int line, int col, const char *path, const char *fmt, ...)
    __attribute__((format(printf, 5, 6)));
/* Append all errors, sorted by position, to out; returns their number. */
size_t ywalk_flush(struct ywalk *w, struct sbuf *out);

/* "parent.key" (or `parent["a.b"]` when the key needs quoting). */
const char *ywalk_key(struct ywalk *w, const char *parent, const char *key);
/* "parent[i]" */
const char *ywalk_index(struct ywalk *w, const char *parent, size_t i);

/* 1-based position of a node. */
int ywalk_line(const yaml_node_t *n);
int ywalk_col(const yaml_node_t *n);

/* "a mapping", "a list", "a string", "an integer", "a number", "a boolean",
 * "null": how a value reads under the YAML 1.2 core schema. */
const char *ywalk_kind(const yaml_node_t *n);
int ywalk_is_null(const yaml_node_t *n);
/* The scalar's text (NUL-terminated; libyaml keeps a terminator). */
const char *ywalk_text(const yaml_node_t *n);
/* Items of a sequence node. */
size_t ywalk_seq_len(const yaml_node_t *n);
yaml_node_t *ywalk_seq_item(struct ywalk *w, const yaml_node_t *n, size_t i);

/*
 * Open a mapping: reports "expected a mapping" (returns -1) when n is not
 * one; reports non-string and duplicate keys; resolves merge keys. When
 * `allowed` is non-NULL (NULL-terminated), keys outside it are reported
 * with a hint from `allowed`, and then from `elsewhere` (keys valid at
 * another level, reported as "not allowed here"). Always pair with
 * ywalk_map_close() after a 0 return.
 */
int ywalk_map_open(struct ywalk *w, yaml_node_t *n, const char *path, const char *const *allowed,
		   const char *elsewhere_hint, const char *const *elsewhere, struct ywalk_map *m);
void ywalk_map_close(struct ywalk_map *m);
/* The value of key, or NULL. */
yaml_node_t *ywalk_map_get(struct ywalk_map *m, const char *key);
/* 1 if an unknown key of m looks like a typo of `key` (so a "missing key"
 * error would only repeat the "did you mean" one). */
int ywalk_map_has_typo_of(const struct ywalk_map *m, const char *key);

/*
 * Typed reads of a value at `path`. Each returns 0 and stores the value, or
 * records an error at n and returns -1 (output untouched).
 */
/* Any non-null scalar, as text (numbers and booleans as written). */
int ywalk_str(struct ywalk *w, yaml_node_t *n, const char *path, char **out);
/* Like ywalk_str, but the text must be non-empty. */
int ywalk_nonempty_str(struct ywalk *w, yaml_node_t *n, const char *path, char **out);
/* true/false (also yes/no/on/off, as YAML 1.1 readers accept). */
int ywalk_bool(struct ywalk *w, yaml_node_t *n, const char *path, int *out);
/* A plain integer in [min, max]. */
int ywalk_int(struct ywalk *w, yaml_node_t *n, const char *path, long long min, long long max,
	      long long *out);
/* A plain number (int or float notation) in [min, max]. */
int ywalk_number(struct ywalk *w, yaml_node_t *n, const char *path, double min, double max,
		 double *out);
/* One of the NULL-terminated `choices`; returns its index in *out. */
int ywalk_enum(struct ywalk *w, yaml_node_t *n, const char *path, const char *const *choices,
	       int *out);
/* A list of non-empty strings. */
int ywalk_str_list(struct ywalk *w, yaml_node_t *n, const char *path, struct strvec *out);
/* Checks n is a scalar (reports "expected <what>, got ..."). */
int ywalk_expect_scalar(struct ywalk *w, yaml_node_t *n, const char *path, const char *what);

#endif
