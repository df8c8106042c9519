/*
 * suite/load: a suite file into a validated struct suite (load.h). Laid
 * out in sections, in the order a file meets them: encoding and parser
 * errors with line:col; anchors, aliases and merge keys; the key lists of
 * each mapping; typed getters and path and variable checks; commands and
 * hooks; metrics and regression settings; budgets; commands, stdin and
 * tags; benchmarks; report outputs and the top level; then suite_load()
 * and suite_load_mem().
 */
#include "suite/load.h"

#include <errno.h>
#include <limits.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <yaml.h>

#include "base/sbuf.h"
#include "base/strvec.h"
#include "base/xalloc.h"
#include "base/suggest.h"
#include "model/settings.h"
#include "suite/units.h"
#include "suite/vars.h"
#include "suite/ywalk.h"

/* Aliases may not make the document larger than this many nodes (or the
 * number of nodes actually written, when that is larger). */
#define SUITE_MAX_EXPANDED_NODES 10000
/* Encoding problems reported before giving up on the file. */
#define SUITE_MAX_ENCODING_ERRORS 10

struct loader {
	struct ywalk w;
	struct suite *s;
	const char *data; /* the file's bytes, for positions inside scalars */
	size_t len;
	int has_build;
	char *rel_dir; /* the suite's folder relative to the root: "" or "a/b" */
	/* regression.commands of the benchmark being loaded (checked once
	 * its commands are known) */
	yaml_node_t *reg_commands;
	const char *reg_commands_path;
	/* regression.<metric> written on the benchmark being loaded (a metric
	 * it does not measure is an error there, not in defaults) */
	yaml_node_t *reg_metric[METRIC__COUNT];
	const char *reg_metric_path[METRIC__COUNT];
};

enum level { LV_DEFAULTS, LV_BENCH, LV_COMMAND };

/* ------------------------------------------------------------------ */
/* Encoding checks, before libyaml sees the bytes.                     */

/* Length of the valid UTF-8 sequence at s (1..4), or 0; *cp gets it. */
static size_t utf8_decode(const unsigned char *s, size_t avail, uint32_t *cp)
{
	unsigned char c = s[0];
	size_t n;
	uint32_t v, min;
	if (c < 0x80) {
		*cp = c;
		return 1;
	} else if ((c & 0xe0) == 0xc0) {
		n = 2, v = c & 0x1f, min = 0x80;
	} else if ((c & 0xf0) == 0xe0) {
		n = 3, v = c & 0x0f, min = 0x800;
	} else if ((c & 0xf8) == 0xf0) {
		n = 4, v = c & 0x07, min = 0x10000;
	} else {
		return 0;
	}
	if (avail < n)
		return 0;
	for (size_t i = 1; i < n; i++) {
		if ((s[i] & 0xc0) != 0x80)
			return 0;
		v = (v << 6) | (s[i] & 0x3f);
	}
	if (v < min || v > 0x10ffff || (v >= 0xd800 && v <= 0xdfff))
		return 0;
	*cp = v;
	return n;
}

/* Returns the number of problems recorded. */
static size_t check_encoding(struct ywalk *w, const char *data, size_t len)
{
	const unsigned char *s = (const unsigned char *)data;
	size_t nerr = 0;
	int line = 1, col = 1;
	if (len >= 3 && s[0] == 0xef && s[1] == 0xbb && s[2] == 0xbf) {
		ywalk_error_at(w, 1, 1, NULL,
			       "the file starts with a UTF-8 byte order mark (BOM); save it as UTF-8 without a BOM");
		return 1;
	}
	for (size_t i = 0; i < len && nerr < SUITE_MAX_ENCODING_ERRORS;) {
		uint32_t cp;
		size_t n = utf8_decode(s + i, len - i, &cp);
		if (!n) {
			ywalk_error_at(w, line, col, NULL,
				       "invalid UTF-8 (byte 0x%02x); the suite must be UTF-8 text",
				       s[i]);
			nerr++;
			/* Skip to the next plausible start byte. */
			i++;
			while (i < len && (s[i] & 0xc0) == 0x80)
				i++;
			col++;
			continue;
		}
		if (cp == '\n' || (cp == '\r' && !(i + 1 < len && s[i + 1] == '\n'))) {
			line++;
			col = 1;
			i += n;
			continue;
		}
		if ((cp < 0x20 && cp != '\t' && cp != '\r') || cp == 0x7f ||
		    (cp >= 0x80 && cp <= 0x9f)) {
			ywalk_error_at(w, line, col, NULL,
				       "control character U+%04X is not allowed (only tab, newline and carriage return)",
				       (unsigned)cp);
			nerr++;
		} else if (cp == 0xfeff) {
			ywalk_error_at(w, line, col, NULL,
				       "a byte order mark (U+FEFF) is not allowed inside the file");
			nerr++;
		}
		i += n;
		col++;
	}
	return nerr;
}

/* 1-based line and column of byte offset `off` (columns count characters). */
static void offset_position(const char *data, size_t len, size_t off,
			    int *line, int *col)
{
	*line = 1;
	*col = 1;
	for (size_t i = 0; i < off && i < len; i++) {
		unsigned char c = (unsigned char)data[i];
		if (c == '\n') {
			++*line;
			*col = 1;
		} else if ((c & 0xc0) != 0x80) {
			++*col;
		}
	}
}

/* The byte at (line, col) (1-based; col in characters), or -1. */
static int char_at(const char *data, size_t len, int line, int col)
{
	size_t i = 0;
	for (int l = 1; l < line && i < len; i++)
		if (data[i] == '\n')
			l++;
	for (int c = 1; i < len && data[i] != '\n'; i++) {
		if (((unsigned char)data[i] & 0xc0) == 0x80)
			continue;
		if (c == col)
			return (unsigned char)data[i];
		c++;
	}
	return -1;
}

static void report_parser_error(struct loader *L, yaml_parser_t *p)
{
	int line, col;
	if (p->error == YAML_READER_ERROR) {
		offset_position(L->data, L->len, p->problem_offset, &line, &col);
	} else {
		line = (int)p->problem_mark.line + 1;
		col = (int)p->problem_mark.column + 1;
	}
	struct sbuf msg = SBUF_INIT;
	sbuf_addf(&msg, "invalid YAML: %s", p->problem ? p->problem : "parse error");
	if (p->context && p->error != YAML_READER_ERROR)
		sbuf_addf(&msg, " (%s at line %d, column %d)", p->context,
			  (int)p->context_mark.line + 1, (int)p->context_mark.column + 1);
	if (char_at(L->data, L->len, line, col) == '\t')
		sbuf_adds(&msg, "; tabs cannot be used for indentation in YAML, use spaces");
	ywalk_error_at(&L->w, line, col, NULL, "%s", msg.buf);
	sbuf_release(&msg);
}

/* ------------------------------------------------------------------ */
/* Alias expansion budget (and recursive aliases), without recursion.   */

static size_t node_children(yaml_node_t *n, size_t k, int *child)
{
	/* The k-th child index of n, 0 when k is past the end. */
	if (n->type == YAML_SEQUENCE_NODE) {
		size_t len = (size_t)(n->data.sequence.items.top -
				      n->data.sequence.items.start);
		if (k >= len)
			return 0;
		*child = n->data.sequence.items.start[k];
		return 1;
	}
	if (n->type == YAML_MAPPING_NODE) {
		size_t len = (size_t)(n->data.mapping.pairs.top -
				      n->data.mapping.pairs.start);
		if (k >= 2 * len)
			return 0;
		yaml_node_pair_t *p = &n->data.mapping.pairs.start[k / 2];
		*child = k % 2 ? p->value : p->key;
		return 1;
	}
	return 0;
}

static int check_expansion(struct loader *L, yaml_document_t *doc)
{
	size_t nr = (size_t)(doc->nodes.top - doc->nodes.start);
	uint64_t budget = nr > SUITE_MAX_EXPANDED_NODES ? nr : SUITE_MAX_EXPANDED_NODES;
	uint64_t *size = xcalloc(nr + 1, sizeof(*size));
	unsigned char *state = xcalloc(nr + 1, 1); /* 0 new, 1 open, 2 done */
	struct frame {
		int node;
		size_t next;
	} *stack = xreallocarray(NULL, nr + 1, sizeof(*stack));
	size_t depth = 0;
	int rc = 0;

	stack[depth++] = (struct frame){ 1, 0 };
	state[1] = 1;
	size[1] = 1;
	while (depth && !rc) {
		struct frame *f = &stack[depth - 1];
		yaml_node_t *n = yaml_document_get_node(doc, f->node);
		int child;
		if (!node_children(n, f->next, &child)) {
			state[f->node] = 2;
			uint64_t sz = size[f->node];
			depth--;
			if (depth) {
				uint64_t *ps = &size[stack[depth - 1].node];
				*ps = *ps + sz > budget + 1 ? budget + 1 : *ps + sz;
			}
			continue;
		}
		f->next++;
		if (state[child] == 1) {
			yaml_node_t *c = yaml_document_get_node(doc, child);
			ywalk_error(&L->w, c, NULL,
				    "invalid YAML: an alias refers to a node that contains it (recursive alias)");
			rc = -1;
			break;
		}
		if (state[child] == 2) {
			uint64_t *ps = &size[f->node];
			*ps = *ps + size[child] > budget + 1 ? budget + 1 : *ps + size[child];
			continue;
		}
		state[child] = 1;
		size[child] = 1;
		stack[depth++] = (struct frame){ child, 0 };
	}
	if (!rc && size[1] > budget) {
		/* Point at the innermost node that is still too large. */
		int at = 1;
		for (;;) {
			yaml_node_t *n = yaml_document_get_node(doc, at);
			int child, next = 0;
			for (size_t k = 0; node_children(n, k, &child); k++)
				if (size[child] > budget) {
					next = child;
					break;
				}
			if (!next)
				break;
			at = next;
		}
		ywalk_error(&L->w, yaml_document_get_node(doc, at), NULL,
			    "invalid YAML: aliases expand to more than %llu nodes (an alias bomb?)",
			    (unsigned long long)budget);
		rc = -1;
	}
	free(size);
	free(state);
	free(stack);
	return rc;
}

/* ------------------------------------------------------------------ */
/* Key sets.                                                           */

#define SETTINGS_KEYS                                                          \
	"warmup", "runs", "min_runs", "max_runs", "min_time", "timeout", "cwd", \
		"env", "stdout", "stderr", "exit_codes", "metrics",             \
		"regression", "runs_per_round", "order", "max_time",            \
		"layout_noise"
#define BENCH_ONLY_KEYS                                                        \
	"name", "description", "tags", "stdin", "terminal", "setup",           \
		"prepare_each", "cleanup", "baseline", "commands", "matrix"

static const char *const top_keys[] = { "version", "name", "description",
					"defaults", "build", "benchmarks",
					"report", NULL };
static const char *const top_elsewhere[] = { SETTINGS_KEYS, "commands",
					     "tags", "stdin", NULL };
static const char *const exec_keys[] = { "command", "shell", "cwd", "env",
					 "timeout", NULL };
static const char *const exec_elsewhere[] = { "warmup", "runs", "min_runs",
					      "max_runs", "max_time", "stdout", "stderr",
					      "exit_codes", "budget", "layout_noise",
					      NULL };
static const char *const defaults_keys[] = { SETTINGS_KEYS, NULL };
static const char *const defaults_elsewhere[] = { BENCH_ONLY_KEYS, "command",
						  "shell", "budget", NULL };
static const char *const bench_keys[] = { SETTINGS_KEYS, BENCH_ONLY_KEYS, NULL };
static const char *const bench_elsewhere[] = { "command", "shell", "budget",
					       NULL };
static const char *const command_keys[] = { "command", "shell", "cwd", "env",
					    "timeout", "stdout", "stderr",
					    "exit_codes", "budget", "layout_noise",
					    NULL };
static const char *const command_elsewhere[] = {
	"warmup", "runs", "min_runs", "max_runs", "min_time", "metrics",
	"regression", "runs_per_round", "order", "max_time",
	BENCH_ONLY_KEYS, NULL
};
static const char *const metrics_keys[] = {
	"cpu", "memory", "counters", "instrument", "allocations", "profile",
	"profile_runs", "profile_frequency", "unsupported", "throughput", NULL
};
static const char *const metrics_defaults_keys[] = {
	"cpu", "memory", "counters", "instrument", "allocations", "profile",
	"profile_runs", "profile_frequency", "unsupported", NULL
};
static const char *const throughput_only[] = { "throughput", NULL };
static const char *const metric_reg_keys[] = { "statistic", "max_percent",
					       "min_difference", "gate", NULL };
/* ipc is derived from instructions and cycles, and may be asked for alike. */
static const char *const counter_names[] = { "instructions", "cycles",
					     "branch_misses", "cache_misses",
					     "ipc", NULL };
static const char *const order_names[] = { "random", "abba", "alternate", NULL };
static const char *const pairing_names[] = { "rounds", "independent", NULL };
static const char *const correction_names[] = { "holm", "none", NULL };
static const char *const statistic_names[] = { "median", "mean", NULL };
static const char *const instrument_names[] = { "auto", "perf", "valgrind", NULL };
static const char *const unsupported_names[] = { "fail", "skip", NULL };
static const char *const format_names[] = { "table", "json", "csv",
					    "samples-csv", "markdown", "github",
					    "html", "hyperfine-json", "bmf",
					    "junit", NULL };

/* Regression keys: the fixed ones plus every comparable metric. */
static const char *const *regression_keys(int bench_level)
{
	static const char *keys[2][METRIC__COUNT + 8];
	const char **k = keys[bench_level];
	if (!k[0]) {
		size_t n = 0;
		static const char *const fixed[] = { "pairing", "correction",
						     "resamples", "confidence",
						     "min_samples", "max_cv" };
		for (size_t i = 0; i < sizeof(fixed) / sizeof(fixed[0]); i++)
			k[n++] = fixed[i];
		if (bench_level)
			k[n++] = "commands";
		for (int m = 0; m < METRIC__COUNT; m++)
			if (metric_get(m)->comparable)
				k[n++] = metric_get(m)->name;
		k[n] = NULL;
	}
	return k;
}

static const char *const *all_metric_names(void)
{
	static const char *names[METRIC__COUNT + 1];
	if (!names[0])
		for (int m = 0; m < METRIC__COUNT; m++)
			names[m] = metric_get(m)->name;
	return names;
}

/* ------------------------------------------------------------------ */
/* Small helpers.                                                       */

static struct src_loc loc_of(const yaml_node_t *n)
{
	return (struct src_loc){ ywalk_line(n), ywalk_col(n) };
}

static void missing(struct loader *L, struct ywalk_map *m, const char *key,
		    const char *hint)
{
	if (ywalk_map_has_typo_of(m, key))
		return;
	ywalk_error(&L->w, m->node, ywalk_key(&L->w, m->path, key),
		    "missing required key '%s'%s", key, hint ? hint : "");
}

static int get_int(struct loader *L, struct ywalk_map *m, const char *key,
		   long long min, long long max, int *out, yaml_node_t **node)
{
	yaml_node_t *n = ywalk_map_get(m, key);
	long long v;
	if (node)
		*node = n;
	if (!n)
		return 0;
	if (ywalk_int(&L->w, n, ywalk_key(&L->w, m->path, key), min, max, &v))
		return -1;
	*out = (int)v;
	return 1;
}

static int get_bool(struct loader *L, struct ywalk_map *m, const char *key,
		    int *out)
{
	yaml_node_t *n = ywalk_map_get(m, key);
	if (!n)
		return 0;
	return ywalk_bool(&L->w, n, ywalk_key(&L->w, m->path, key), out) ? -1 : 1;
}

static int get_enum(struct loader *L, struct ywalk_map *m, const char *key,
		    const char *const *choices, int *out)
{
	yaml_node_t *n = ywalk_map_get(m, key);
	if (!n)
		return 0;
	return ywalk_enum(&L->w, n, ywalk_key(&L->w, m->path, key), choices, out)
		       ? -1
		       : 1;
}

/* Replace *dst with a string value of key, if present. */
static int get_str(struct loader *L, struct ywalk_map *m, const char *key,
		   char **dst, yaml_node_t **node)
{
	yaml_node_t *n = ywalk_map_get(m, key);
	char *v;
	if (node)
		*node = n;
	if (!n)
		return 0;
	if (ywalk_nonempty_str(&L->w, n, ywalk_key(&L->w, m->path, key), &v))
		return -1;
	free(*dst);
	*dst = v;
	return 1;
}

static int get_duration(struct loader *L, struct ywalk_map *m, const char *key,
			int positive, int64_t *out)
{
	yaml_node_t *n = ywalk_map_get(m, key);
	const char *path = ywalk_key(&L->w, m->path, key);
	if (!n)
		return 0;
	if (ywalk_expect_scalar(&L->w, n, path, "a duration such as '2s'"))
		return -1;
	struct sbuf err = SBUF_INIT;
	int64_t ns;
	if (units_parse_duration(ywalk_text(n), &ns, &err)) {
		ywalk_error(&L->w, n, path, "%s", err.buf);
		sbuf_release(&err);
		return -1;
	}
	sbuf_release(&err);
	if (positive && ns <= 0) {
		ywalk_error(&L->w, n, path, "must be longer than 0s");
		return -1;
	}
	*out = ns;
	return 1;
}

/*
 * The column of byte `off` of scalar n's text, when the text maps onto the
 * source one to one (a single-line plain scalar, or a quoted one without
 * escapes); else the scalar's own column.
 */
static int column_in(const yaml_node_t *n, size_t off)
{
	int col = ywalk_col(n);
	const char *s = ywalk_text(n);
	size_t chars = 0, prefix = 0;
	int quotes;
	if (n->start_mark.line != n->end_mark.line)
		return col;
	switch (n->data.scalar.style) {
	case YAML_PLAIN_SCALAR_STYLE:
		quotes = 0;
		break;
	case YAML_SINGLE_QUOTED_SCALAR_STYLE:
	case YAML_DOUBLE_QUOTED_SCALAR_STYLE:
		quotes = 2;
		break;
	default:
		return col;
	}
	for (size_t i = 0; s[i]; i++)
		if (((unsigned char)s[i] & 0xc0) != 0x80) {
			chars++;
			if (i < off)
				prefix++;
		}
	/* Escapes always change the length: equal lengths mean the text is
	 * the source character for character. */
	if (n->end_mark.column - n->start_mark.column != chars + (size_t)quotes)
		return col;
	return col + quotes / 2 + (int)prefix;
}

/*
 * Names and text that reach reports and terminals. A name (the suite's or a
 * benchmark's) may hold no control character but tab, also when written
 * as a YAML escape ("\u0007"), which the byte check of the file cannot
 * see; a description may also hold newlines. Neither, nor a command that
 * reports display, may hold the bidirectional embedding, override or
 * isolate controls (U+202A..U+202E, U+2066..U+2069) that make displayed
 * text read differently from what runs ("Trojan Source").
 */
enum text_kind { TEXT_NAME, TEXT_DESCRIPTION, TEXT_COMMAND };

static int check_text(struct loader *L, const yaml_node_t *n, const char *path,
		      const char *text, enum text_kind kind)
{
	const unsigned char *p = (const unsigned char *)text;
	for (size_t i = 0; p[i];) {
		/* libyaml hands over valid UTF-8 (escapes included). */
		uint32_t cp;
		size_t len = utf8_decode(p + i, strlen(text + i), &cp);
		if (!len)
			len = 1, cp = p[i];
		i += len;
		if ((cp >= 0x202a && cp <= 0x202e) || (cp >= 0x2066 && cp <= 0x2069)) {
			ywalk_error(&L->w, n, path,
				    "must not contain the bidirectional control U+%04X (it makes displayed text read differently from what it is)",
				    (unsigned)cp);
			return -1;
		}
		int control = (cp < 0x20 || (cp >= 0x7f && cp <= 0x9f)) && cp != '\t' &&
			      !(kind == TEXT_DESCRIPTION && cp == '\n');
		if (control && kind != TEXT_COMMAND) {
			ywalk_error(&L->w, n, path,
				    "must not contain control characters (U+%04X)", (unsigned)cp);
			return -1;
		}
	}
	if (kind == TEXT_NAME && !text[strspn(text, " \t")]) {
		ywalk_error(&L->w, n, path, "must not be blank");
		return -1;
	}
	return 0;
}

/* himorime's name pattern [A-Za-z0-9][A-Za-z0-9_.-]* (commands, tags,
 * tools in report.versions). */
static int name_ok(const char *s)
{
	if (!((*s >= 'a' && *s <= 'z') || (*s >= 'A' && *s <= 'Z') ||
	      (*s >= '0' && *s <= '9')))
		return 0;
	for (s++; *s; s++)
		if (!((*s >= 'a' && *s <= 'z') || (*s >= 'A' && *s <= 'Z') ||
		      (*s >= '0' && *s <= '9') || *s == '_' || *s == '.' ||
		      *s == '-'))
			return 0;
	return 1;
}

/* vars_check() with the error placed at the variable. */
static int check_vars(struct loader *L, const yaml_node_t *n, const char *path,
		      const char *text, unsigned allowed, int shell)
{
	struct sbuf err = SBUF_INIT;
	size_t off = 0;
	if (vars_check(text, allowed, shell, &off, &err) == 0) {
		sbuf_release(&err);
		return 0;
	}
	ywalk_error_at(&L->w, ywalk_line(n), column_in(n, off), path, "%s", err.buf);
	sbuf_release(&err);
	return -1;
}

static unsigned base_vars(const struct loader *L)
{
	return L->has_build ? VAR_ALL : (VAR_ALL & ~VAR_ARTIFACT);
}

/*
 * Lexically walk the components of `p` starting at depth `depth`; return -1
 * when a ".." climbs above depth 0.
 */
static int climbs_out(const char *p, int depth)
{
	while (*p) {
		while (*p == '/')
			p++;
		const char *e = strchrnul(p, '/');
		size_t n = (size_t)(e - p);
		if (n == 2 && p[0] == '.' && p[1] == '.') {
			if (--depth < 0)
				return -1;
		} else if (n && !(n == 1 && p[0] == '.')) {
			depth++;
		}
		p = e;
	}
	return 0;
}

static int dir_depth(const char *rel)
{
	int d = 0;
	for (const char *p = rel; *p;) {
		while (*p == '/')
			p++;
		if (!*p)
			break;
		d++;
		p = strchrnul(p, '/');
	}
	return d;
}

/* 1 if a '/'-separated component of p is "..". */
static int has_dotdot(const char *p)
{
	while (*p) {
		const char *e = strchrnul(p, '/');
		if (e - p == 2 && p[0] == '.' && p[1] == '.')
			return 1;
		p = *e ? e + 1 : e;
	}
	return 0;
}

/*
 * A suite-relative path (cwd, stdin file, file_size): relative to the suite's
 * folder and inside the repository, or beginning with ${root}, ${head_root}
 * or (outside `build`) ${workdir} (${root} being the suite's folder in the
 * side measured). No other variable may appear in a path:
 * ${env:HOME} or ${artifact} would point anywhere. No ".." may follow
 * ${workdir}, a fresh folder the path must stay in. The runner expands the
 * variables per side and checks the result again (execute_prepare.c).
 */
static int check_suite_path(struct loader *L, const yaml_node_t *n,
			    const char *path, const char *value,
			    int allow_workdir)
{
	if (!*value) {
		ywalk_error(&L->w, n, path, "must not be empty");
		return -1;
	}
	if (check_vars(L, n, path, value, VAR_ALL, 0))
		return -1;
	if (value[0] == '~') {
		ywalk_error(&L->w, n, path,
			    "'~' is not expanded; use a path relative to the suite's folder or ${root}/...");
		return -1;
	}
	size_t vlen = 0;
	unsigned var = vars_path_prefix(value, &vlen);
	if (var == VAR_ARTIFACT)
		var = 0, vlen = 0;
	const char *rest = value + vlen;
	/* Any variable left after the leading one is not a path variable in
	 * first position: ${env:..}, ${exe}, ${artifact} or a second one. */
	for (size_t i = 0; rest[i]; i++) {
		if (rest[i] == '$' && rest[i + 1] == '$' && rest[i + 2] == '{') {
			i += 2;
			continue;
		}
		if (rest[i] == '$' && rest[i + 1] == '{') {
			const char *close = strchr(rest + i, '}');
			int len = close ? (int)(close - (rest + i)) + 1 : 2;
			ywalk_error(&L->w, n, path,
				    "'%.*s' is not allowed in a path (a path may begin with ${root}, ${head_root} or ${workdir}, or be relative to the suite's folder)",
				    len, rest + i);
			return -1;
		}
	}
	if (var) {
		if (*rest && *rest != '/') {
			ywalk_error(&L->w, n, path, "'%.*s' must be followed by '/' or end the path",
				    (int)vlen, value);
			return -1;
		}
		if (var == VAR_WORKDIR && !allow_workdir) {
			ywalk_error(&L->w, n, path,
				    "'${workdir}' is not available in build (the build runs before any benchmark folder exists; use ${root})");
			return -1;
		}
		if (var == VAR_WORKDIR && has_dotdot(rest)) {
			ywalk_error(&L->w, n, path,
				    "'%s' must not contain '..' after ${workdir} (write the path inside it)",
				    value);
			return -1;
		}
		/* ${root} and ${head_root} are the suite's folder in their tree:
		 * a ".." after them may climb as far as a relative path may. */
		if (climbs_out(rest, dir_depth(L->rel_dir))) {
			ywalk_error(&L->w, n, path, "'%s' leaves the repository", value);
			return -1;
		}
		return 0;
	}
	if (value[0] == '/') {
		ywalk_error(&L->w, n, path,
			    "'%s' is absolute; paths are relative to the suite's folder (or begin with ${root})",
			    value);
		return -1;
	}
	if (climbs_out(value, dir_depth(L->rel_dir))) {
		ywalk_error(&L->w, n, path, "'%s' leaves the repository", value);
		return -1;
	}
	return 0;
}

/* stdout/stderr: `discard` or a file name inside ${workdir}. */
static int load_output_path(struct loader *L, struct ywalk_map *m,
			    const char *key, char **dst)
{
	yaml_node_t *n = ywalk_map_get(m, key);
	const char *path = ywalk_key(&L->w, m->path, key);
	char *v;
	if (!n)
		return 0;
	if (ywalk_nonempty_str(&L->w, n, path, &v))
		return -1;
	if (!strcmp(v, "discard")) {
		free(v);
		free(*dst);
		*dst = NULL;
		return 1;
	}
	const char *rel = v;
	if (!strncmp(rel, "${workdir}/", 11))
		rel += 11;
	const char *problem = NULL;
	if (vars_present(rel) || strstr(rel, "$${"))
		problem = "may hold no variables other than a leading ${workdir}/";
	else if (rel[0] == '/' || rel[0] == '~')
		problem = "must be a file name inside ${workdir} (relative, not absolute)";
	else if (!*rel || rel[strlen(rel) - 1] == '/')
		problem = "must name a file inside ${workdir}";
	else {
		for (const char *p = rel; *p;) {
			const char *e = strchrnul(p, '/');
			if (e - p == 2 && p[0] == '.' && p[1] == '.')
				problem = "may not contain '..' (files stay inside ${workdir})";
			p = *e ? e + 1 : e;
		}
	}
	if (problem) {
		ywalk_error(&L->w, n, path, "'%s' %s, or write 'discard'", v, problem);
		free(v);
		return -1;
	}
	free(*dst);
	*dst = xstrdup(rel);
	free(v);
	return 1;
}

static int env_name_ok(const char *s)
{
	if (!*s || (*s >= '0' && *s <= '9'))
		return 0;
	for (; *s; s++)
		if (!((*s >= 'a' && *s <= 'z') || (*s >= 'A' && *s <= 'Z') ||
		      (*s >= '0' && *s <= '9') || *s == '_'))
			return 0;
	return 1;
}

/* env: {NAME: value}; values are layered onto `env` by NAME. */
static void load_env(struct loader *L, yaml_node_t *n, const char *path,
		     struct strvec *env, unsigned allowed)
{
	struct ywalk_map m;
	if (ywalk_map_open(&L->w, n, path, NULL, NULL, NULL, &m))
		return;
	for (size_t i = 0; i < m.nr; i++) {
		struct ywalk_pair *p = &m.pairs[i];
		const char *kpath = ywalk_key(&L->w, path, p->key);
		if (!env_name_ok(p->key)) {
			ywalk_error(&L->w, p->key_node, kpath,
				    "invalid environment variable name '%s' (letters, digits and '_', not starting with a digit)",
				    p->key);
			continue;
		}
		char *value;
		if (ywalk_str(&L->w, p->value, kpath, &value))
			continue;
		if (!check_vars(L, p->value, kpath, value, allowed, 0))
			strvec_setenv(env, p->key, value);
		free(value);
	}
	ywalk_map_close(&m);
}

static int load_exit_codes(struct loader *L, yaml_node_t *n, const char *path,
			   struct settings *s)
{
	if (n->type != YAML_SEQUENCE_NODE) {
		ywalk_error(&L->w, n, path, "expected a list of exit codes such as [0, 1], got %s",
			    ywalk_kind(n));
		return -1;
	}
	size_t len = ywalk_seq_len(n);
	if (!len) {
		ywalk_error(&L->w, n, path, "must list at least one exit code");
		return -1;
	}
	int *codes = xreallocarray(NULL, len, sizeof(int));
	int rc = 0;
	for (size_t i = 0; i < len; i++) {
		long long v;
		if (ywalk_int(&L->w, ywalk_seq_item(&L->w, n, i),
			      ywalk_index(&L->w, path, i), 0, 255, &v))
			rc = -1;
		else
			codes[i] = (int)v;
	}
	if (rc) {
		free(codes);
		return -1;
	}
	free(s->exit_codes);
	s->exit_codes = codes;
	s->nr_exit_codes = len;
	return 0;
}

/* ------------------------------------------------------------------ */
/* Exec objects.                                                        */

/* `command` and `shell` of a build, hook or measured command. */
static void load_command_fields(struct loader *L, struct ywalk_map *m,
				struct exec_spec *e, unsigned allowed)
{
	int shell = 0;
	get_bool(L, m, "shell", &shell);
	e->shell = shell;
	yaml_node_t *n = ywalk_map_get(m, "command");
	const char *path = ywalk_key(&L->w, m->path, "command");
	if (!n) {
		missing(L, m, "command", " (an argv list such as [prog, arg], or a string with 'shell: true')");
		return;
	}
	if (n->type == YAML_SEQUENCE_NODE) {
		if (shell) {
			ywalk_error(&L->w, n, path,
				    "with 'shell: true' the command must be a string (or drop 'shell' to run the list as argv)");
			return;
		}
		size_t len = ywalk_seq_len(n);
		if (!len) {
			ywalk_error(&L->w, n, path, "must not be empty");
			return;
		}
		for (size_t i = 0; i < len; i++) {
			yaml_node_t *it = ywalk_seq_item(&L->w, n, i);
			const char *ipath = ywalk_index(&L->w, path, i);
			char *arg;
			if (ywalk_str(&L->w, it, ipath, &arg))
				continue;
			if (i == 0 && !*arg) {
				ywalk_error(&L->w, it, ipath, "the program name must not be empty");
				free(arg);
				continue;
			}
			check_vars(L, it, ipath, arg, allowed, 0);
			check_text(L, it, ipath, arg, TEXT_COMMAND);
			strvec_push_take(&e->argv, arg);
		}
		return;
	}
	if (n->type != YAML_SCALAR_NODE || ywalk_is_null(n)) {
		ywalk_error(&L->w, n, path,
			    "expected an argv list such as [prog, arg] (or a string with 'shell: true'), got %s",
			    ywalk_kind(n));
		return;
	}
	if (!shell) {
		ywalk_error(&L->w, n, path,
			    "a string command needs 'shell: true' (or write it as an argv list: [prog, arg, ...])");
		return;
	}
	if (!*ywalk_text(n)) {
		ywalk_error(&L->w, n, path, "must not be empty");
		return;
	}
	check_vars(L, n, path, ywalk_text(n), allowed, 1);
	check_text(L, n, path, ywalk_text(n), TEXT_COMMAND);
	free(e->script);
	e->script = xstrdup(ywalk_text(n));
}

/* build and hooks: {command, shell, cwd, env, timeout}. */
static void load_exec(struct loader *L, yaml_node_t *n, const char *path,
		      struct exec_spec *e, int64_t default_timeout,
		      unsigned allowed)
{
	struct ywalk_map m;
	e->loc = loc_of(n);
	e->timeout_ns = default_timeout;
	if (ywalk_map_open(&L->w, n, path, exec_keys,
			   "it belongs to a benchmark or a measured command",
			   exec_elsewhere, &m))
		return;
	load_command_fields(L, &m, e, allowed);
	yaml_node_t *cwd;
	if (get_str(L, &m, "cwd", &e->cwd, &cwd) > 0 &&
	    check_suite_path(L, cwd, ywalk_key(&L->w, path, "cwd"), e->cwd,
			     (allowed & VAR_WORKDIR) != 0)) {
		free(e->cwd);
		e->cwd = NULL;
	}
	yaml_node_t *env = ywalk_map_get(&m, "env");
	if (env)
		load_env(L, env, ywalk_key(&L->w, path, "env"), &e->env, allowed);
	get_duration(L, &m, "timeout", 1, &e->timeout_ns);
	ywalk_map_close(&m);
}

/* A list of hooks (setup, prepare_each, cleanup). */
static void load_hooks(struct loader *L, struct ywalk_map *m, const char *key,
		       struct exec_spec **out, size_t *nr)
{
	yaml_node_t *n = ywalk_map_get(m, key);
	const char *path = ywalk_key(&L->w, m->path, key);
	if (!n)
		return;
	if (n->type != YAML_SEQUENCE_NODE) {
		ywalk_error(&L->w, n, path, "expected a list of commands such as [{command: [...]}], got %s",
			    ywalk_kind(n));
		return;
	}
	size_t len = ywalk_seq_len(n);
	*out = xcalloc(len ? len : 1, sizeof(**out));
	for (size_t i = 0; i < len; i++) {
		struct exec_spec *e = &(*out)[i];
		strvec_init(&e->argv);
		strvec_init(&e->env);
		*nr = i + 1;
		load_exec(L, ywalk_seq_item(&L->w, n, i), ywalk_index(&L->w, path, i),
			  e, SUITE_HOOK_TIMEOUT_NS, base_vars(L));
	}
}

/* ------------------------------------------------------------------ */
/* metrics and regression.                                              */

static void load_throughput(struct loader *L, yaml_node_t *n, const char *path,
			    struct throughput_work *t)
{
	static const char *const tp_keys[] = { "work", NULL };
	static const char *const work_keys[] = { "value", "file_size", "unit", NULL };
	struct ywalk_map m, wm;
	if (ywalk_map_open(&L->w, n, path, tp_keys, NULL, NULL, &m))
		return;
	yaml_node_t *work = ywalk_map_get(&m, "work");
	const char *wpath = ywalk_key(&L->w, path, "work");
	if (!work) {
		missing(L, &m, "work", " ({value: N} or {file_size: PATH})");
		ywalk_map_close(&m);
		return;
	}
	ywalk_map_close(&m);
	if (ywalk_map_open(&L->w, work, wpath, work_keys, NULL, NULL, &wm))
		return;
	yaml_node_t *value = ywalk_map_get(&wm, "value");
	yaml_node_t *file = ywalk_map_get(&wm, "file_size");
	free(t->file);
	free(t->unit);
	t->file = t->unit = NULL;
	t->kind = WORK_NONE;
	if (value && file) {
		ywalk_error(&L->w, file, ywalk_key(&L->w, wpath, "file_size"),
			    "work declares both value and file_size; give exactly one");
	} else if (value) {
		double v;
		if (!ywalk_number(&L->w, value, ywalk_key(&L->w, wpath, "value"), 0,
				  1e18, &v)) {
			if (v <= 0)
				ywalk_error(&L->w, value, ywalk_key(&L->w, wpath, "value"),
					    "must be greater than 0");
			t->kind = WORK_VALUE;
			t->value = v;
		}
	} else if (file) {
		char *f;
		const char *fpath = ywalk_key(&L->w, wpath, "file_size");
		if (!ywalk_nonempty_str(&L->w, file, fpath, &f)) {
			check_suite_path(L, file, fpath, f, 1);
			t->kind = WORK_FILE_SIZE;
			t->file = f;
		}
	} else {
		missing(L, &wm, "value", " (or 'file_size')");
	}
	yaml_node_t *un;
	if (get_str(L, &wm, "unit", &t->unit, &un) > 0) {
		const char *upath = ywalk_key(&L->w, wpath, "unit");
		const char *u = t->unit;
		int ok = (*u >= 'a' && *u <= 'z') || (*u >= 'A' && *u <= 'Z');
		for (const char *c = u; ok && *c; c++)
			ok = (*c >= 'a' && *c <= 'z') || (*c >= 'A' && *c <= 'Z') ||
			     (*c >= '0' && *c <= '9') || *c == '_' || *c == '-';
		int64_t b;
		struct sbuf tmp = SBUF_INIT;
		char *one = xstrfmt("1%s", u);
		int byte_unit = units_parse_size(one, &b, &tmp) == 0;
		free(one);
		sbuf_release(&tmp);
		if (!ok)
			ywalk_error(&L->w, un, upath,
				    "invalid work unit '%s' (letters, digits, '_' and '-', starting with a letter)", u);
		else if (t->kind == WORK_FILE_SIZE && strcmp(u, "bytes"))
			ywalk_error(&L->w, un, upath,
				    "file_size measures bytes, so its unit must be bytes, not '%s' (remove unit or write unit: bytes)", u);
		else if (t->kind == WORK_VALUE && byte_unit && strcmp(u, "bytes"))
			ywalk_error(&L->w, un, upath,
				    "work unit '%s' is a byte size multiple (convert the value to bytes and write unit: bytes)", u);
	}
	if (!t->unit)
		t->unit = xstrdup(t->kind == WORK_FILE_SIZE ? "bytes" : "operations");
	ywalk_map_close(&wm);
}

static void load_metrics(struct loader *L, yaml_node_t *n, const char *path,
			 struct metrics_cfg *mc, enum level lv)
{
	struct ywalk_map m;
	if (ywalk_map_open(&L->w, n, path,
			   lv == LV_DEFAULTS ? metrics_defaults_keys : metrics_keys,
			   "throughput is set per benchmark", throughput_only, &m))
		return;
	get_bool(L, &m, "cpu", &mc->cpu);
	get_bool(L, &m, "memory", &mc->memory);
	get_bool(L, &m, "allocations", &mc->allocations);
	get_bool(L, &m, "profile", &mc->profile);
	get_int(L, &m, "profile_runs", 2, 10000, &mc->profile_runs, NULL);
	get_int(L, &m, "profile_frequency", 1, 100000, &mc->profile_frequency,
		NULL);
	int v;
	if (get_enum(L, &m, "instrument", instrument_names, &v) > 0)
		mc->instrument = (enum instrument)v;
	if (get_enum(L, &m, "unsupported", unsupported_names, &v) > 0)
		mc->unsupported_skip = v == 1;
	yaml_node_t *c = ywalk_map_get(&m, "counters");
	const char *cpath = ywalk_key(&L->w, path, "counters");
	if (c && c->type == YAML_SEQUENCE_NODE) {
		size_t len = ywalk_seq_len(c);
		unsigned bits = 0;
		int ok = 1;
		if (!len) {
			ywalk_error(&L->w, c, cpath, "must name at least one counter (or write 'counters: false')");
			ok = 0;
		}
		for (size_t i = 0; i < len; i++) {
			int k;
			yaml_node_t *it = ywalk_seq_item(&L->w, c, i);
			if (ywalk_enum(&L->w, it, ywalk_index(&L->w, cpath, i),
				       counter_names, &k)) {
				ok = 0;
				continue;
			}
			bits |= 1u << metric_lookup(counter_names[k]);
		}
		if (ok) {
			mc->counters = COUNTERS_LIST;
			mc->counters_list = bits;
		}
	} else if (c && !ywalk_is_null(c) && c->type == YAML_SCALAR_NODE) {
		int on;
		if (!ywalk_bool(&L->w, c, cpath, &on)) {
			mc->counters = on ? COUNTERS_AVAILABLE : COUNTERS_OFF;
			mc->counters_list = 0;
		}
	} else if (c) {
		ywalk_error(&L->w, c, cpath,
			    "expected true, false or a list of counters such as [instructions, cycles], got %s",
			    ywalk_kind(c));
	}
	yaml_node_t *tp = ywalk_map_get(&m, "throughput");
	if (tp && lv == LV_BENCH)
		load_throughput(L, tp, ywalk_key(&L->w, path, "throughput"),
				&mc->throughput);
	ywalk_map_close(&m);
}

static void load_metric_regression(struct loader *L, yaml_node_t *n,
				   const char *path, enum metric_id id,
				   struct metric_regression *r)
{
	struct ywalk_map m;
	if (ywalk_map_open(&L->w, n, path, metric_reg_keys, NULL, NULL, &m))
		return;
	r->configured = 1;
	r->compare = 1;
	r->loc = loc_of(n);
	int v;
	if (get_enum(L, &m, "statistic", statistic_names, &v) > 0)
		r->statistic = (enum statistic)v;
	get_bool(L, &m, "gate", &r->gate);
	struct sbuf err = SBUF_INIT;
	yaml_node_t *mp = ywalk_map_get(&m, "max_percent");
	const char *mpath = ywalk_key(&L->w, path, "max_percent");
	if (mp && !ywalk_expect_scalar(&L->w, mp, mpath, "a percentage such as 10")) {
		double pct;
		if (units_parse_percent(ywalk_text(mp), &pct, &err))
			ywalk_error(&L->w, mp, mpath, "%s", err.buf);
		else
			r->max_percent = pct;
	}
	sbuf_reset(&err);
	yaml_node_t *md = ywalk_map_get(&m, "min_difference");
	const char *dpath = ywalk_key(&L->w, path, "min_difference");
	if (md && !ywalk_expect_scalar(&L->w, md, dpath, "a value in the metric's unit")) {
		double d;
		if (units_parse_metric_value(id, ywalk_text(md), &d, &err))
			ywalk_error(&L->w, md, dpath, "%s", err.buf);
		else if (d < 0)
			ywalk_error(&L->w, md, dpath, "must not be negative");
		else
			r->min_difference = d;
	}
	sbuf_release(&err);
	ywalk_map_close(&m);
}

static void load_regression(struct loader *L, yaml_node_t *n, const char *path,
			    struct regression_cfg *r, enum level lv)
{
	struct ywalk_map m;
	static const char *const bench_only[] = { "commands", NULL };
	if (ywalk_map_open(&L->w, n, path, regression_keys(lv == LV_BENCH),
			   "regression.commands is set per benchmark", bench_only,
			   &m))
		return;
	int v;
	if (get_enum(L, &m, "pairing", pairing_names, &v) > 0)
		r->pairing = (enum pairing)v;
	if (get_enum(L, &m, "correction", correction_names, &v) > 0)
		r->correction = (enum correction)v;
	get_int(L, &m, "resamples", 100, SETTINGS_MAX_RESAMPLES, &r->resamples, NULL);
	get_int(L, &m, "min_samples", 2, 1000000, &r->min_samples, NULL);
	yaml_node_t *c = ywalk_map_get(&m, "confidence");
	if (c)
		ywalk_number(&L->w, c, ywalk_key(&L->w, path, "confidence"), 0.5,
			     0.999, &r->confidence);
	c = ywalk_map_get(&m, "max_cv");
	if (c)
		ywalk_number(&L->w, c, ywalk_key(&L->w, path, "max_cv"), 0, 100,
			     &r->max_cv);
	c = ywalk_map_get(&m, "commands");
	if (c && lv == LV_BENCH) {
		const char *cpath = ywalk_key(&L->w, path, "commands");
		strvec_clear(&r->commands);
		if (!ywalk_str_list(&L->w, c, cpath, &r->commands)) {
			L->reg_commands = c;
			L->reg_commands_path = cpath;
		}
	}
	for (int id = 0; id < METRIC__COUNT; id++) {
		const struct metric_info *mi = metric_get(id);
		if (!mi->comparable)
			continue;
		yaml_node_t *mn = ywalk_map_get(&m, mi->name);
		if (mn)
			load_metric_regression(L, mn, ywalk_key(&L->w, path, mi->name),
					       id, &r->metric[id]);
		if (mn && lv == LV_BENCH) {
			L->reg_metric[id] = mn;
			L->reg_metric_path[id] = ywalk_key(&L->w, path, mi->name);
		}
	}
	ywalk_map_close(&m);
}

/* ------------------------------------------------------------------ */
/* Settings: what defaults, a benchmark and (in part) a command set.    */

static void load_settings(struct loader *L, struct ywalk_map *m,
			  struct settings *s, enum level lv)
{
	const char *path = m->path;
	unsigned vars = base_vars(L);
	yaml_node_t *n;

	if (lv != LV_COMMAND) {
		yaml_node_t *min_n, *max_n;
		get_int(L, m, "warmup", 0, 1000000, &s->warmup, NULL);
		/* `runs: auto` is the unset value: sequential rounds in a
		   compare, the adaptive count in a run. */
		yaml_node_t *rn = ywalk_map_get(m, "runs");
		const char *rt = rn && rn->type == YAML_SCALAR_NODE ? ywalk_text(rn) : NULL;
		if (rt && !strcmp(rt, "auto"))
			s->runs = 0;
		else if (get_int(L, m, "runs", 1, 100000000, &s->runs, NULL) > 0)
			s->runs_loc = loc_of(rn); /* for validate's power warning */
		get_duration(L, m, "max_time", 0, &s->max_time_ns);
		int a = get_int(L, m, "min_runs", 1, 100000000, &s->min_runs, &min_n);
		int b = get_int(L, m, "max_runs", 1, 100000000, &s->max_runs, &max_n);
		if ((a > 0 || b > 0) && s->min_runs > s->max_runs) {
			yaml_node_t *at = b > 0 ? max_n : min_n;
			ywalk_error(&L->w, at,
				    ywalk_key(&L->w, path, b > 0 ? "max_runs" : "min_runs"),
				    "min_runs (%d) is larger than max_runs (%d)",
				    s->min_runs, s->max_runs);
		}
		get_duration(L, m, "min_time", 0, &s->min_time_ns);
		get_int(L, m, "runs_per_round", 1, 1000000, &s->runs_per_round, NULL);
		int v;
		if (get_enum(L, m, "order", order_names, &v) > 0)
			s->order = (enum run_order)v;
		n = ywalk_map_get(m, "metrics");
		if (n)
			load_metrics(L, n, ywalk_key(&L->w, path, "metrics"),
				     &s->metrics, lv);
		n = ywalk_map_get(m, "regression");
		if (n)
			load_regression(L, n, ywalk_key(&L->w, path, "regression"),
					&s->regression, lv);
	}
	get_duration(L, m, "timeout", 1, &s->timeout_ns);
	get_bool(L, m, "layout_noise", &s->layout_noise);
	char *cwd = NULL;
	if (get_str(L, m, "cwd", &cwd, &n) > 0) {
		if (check_suite_path(L, n, ywalk_key(&L->w, path, "cwd"), cwd, 1)) {
			free(cwd);
		} else {
			free(s->cwd);
			s->cwd = cwd;
		}
	}
	n = ywalk_map_get(m, "env");
	if (n)
		load_env(L, n, ywalk_key(&L->w, path, "env"), &s->env, vars);
	load_output_path(L, m, "stdout", &s->stdout_path);
	load_output_path(L, m, "stderr", &s->stderr_path);
	n = ywalk_map_get(m, "exit_codes");
	if (n)
		load_exit_codes(L, n, ywalk_key(&L->w, path, "exit_codes"), s);
}

/* ------------------------------------------------------------------ */
/* Commands and budgets.                                                */

/* cpu and memory (himorime's groups) are measured only when asked for. */
static int group_measured(const struct metrics_cfg *mc, enum metric_group g)
{
	if (g == GROUP_CPU)
		return mc->cpu;
	if (g == GROUP_MEMORY)
		return mc->memory;
	return 1; /* latency; throughput, counters and allocations say so
		     themselves (work, instrumented runs) */
}

static void load_budget(struct loader *L, yaml_node_t *n, const char *path,
			const struct bench_spec *b, struct command_spec *c)
{
	struct ywalk_map m;
	const char *const *names = all_metric_names();
	if (ywalk_map_open(&L->w, n, path, names, NULL, NULL, &m))
		return;
	for (size_t i = 0; i < m.nr; i++) {
		struct ywalk_pair *p = &m.pairs[i];
		int id = metric_lookup(p->key);
		const char *mpath = ywalk_key(&L->w, path, p->key);
		struct ywalk_map am;
		if (id < 0)
			continue; /* reported as an unknown key */
		if (p->value->type != YAML_MAPPING_NODE) {
			ywalk_error(&L->w, p->value, mpath,
				    "expected a mapping of aggregation to limit, such as {p95: \"<= 300ms\"}, got %s",
				    ywalk_kind(p->value));
			continue;
		}
		if (ywalk_map_open(&L->w, p->value, mpath, NULL, NULL, NULL, &am))
			continue;
		if (!am.nr)
			ywalk_error(&L->w, p->value, mpath, "must set at least one limit, such as {p95: \"<= 300ms\"}");
		if (id == METRIC_THROUGHPUT &&
		    b->settings.metrics.throughput.kind == WORK_NONE)
			ywalk_error(&L->w, p->key_node, mpath,
				    "a throughput budget needs the benchmark's metrics.throughput.work");
		enum metric_group g = metric_get(id)->group;
		if (!group_measured(&b->settings.metrics, g)) {
			const char *grp = g == GROUP_CPU ? "cpu" : "memory";
			ywalk_error(&L->w, p->key_node, mpath,
				    "a budget on %s needs the benchmark to measure %s (enable it with metrics: {%s: true})",
				    p->key, grp, grp);
		}
		for (size_t k = 0; k < am.nr; k++) {
			struct ywalk_pair *q = &am.pairs[k];
			const char *apath = ywalk_key(&L->w, mpath, q->key);
			struct sbuf err = SBUF_INIT;
			struct budget bud;
			if (ywalk_expect_scalar(&L->w, q->value, apath,
						"a limit such as \"<= 300ms\""))
				continue;
			if (units_parse_budget(id, q->key, ywalk_text(q->value), &bud,
					       &err)) {
				yaml_node_t *at = strstr(err.buf, "aggregation") ||
							  strstr(err.buf, "percentile")
						  ? q->key_node
						  : q->value;
				ywalk_error(&L->w, at, apath, "%s", err.buf);
				sbuf_release(&err);
				continue;
			}
			sbuf_release(&err);
			bud.loc = loc_of(q->value);
			const char *work_unit = b->settings.metrics.throughput.unit;
			if (id == METRIC_THROUGHPUT && bud.unit && work_unit &&
			    strcmp(bud.unit, work_unit))
				ywalk_error(&L->w, q->value, apath,
					    "the limit is in '%s' per second but the throughput work is counted in '%s'",
					    bud.unit, work_unit);
			c->budgets = xreallocarray(c->budgets, c->nr_budgets + 1,
						   sizeof(*c->budgets));
			c->budgets[c->nr_budgets++] = bud;
		}
		ywalk_map_close(&am);
	}
	ywalk_map_close(&m);
}

static void load_command(struct loader *L, struct ywalk_pair *p,
			 const char *path, struct bench_spec *b,
			 struct command_spec *c)
{
	struct ywalk_map m;
	c->name = xstrdup(p->key);
	c->loc = loc_of(p->key_node);
	c->exec.loc = loc_of(p->value);
	settings_copy(&c->settings, &b->settings);
	if (!name_ok(p->key))
		ywalk_error(&L->w, p->key_node, path,
			    "invalid command name '%s' (letters, digits, '_', '.', '-', starting with a letter or digit)",
			    p->key);
	if (ywalk_map_open(&L->w, p->value, path, command_keys,
			   "set it on the benchmark or in 'defaults'",
			   command_elsewhere, &m))
		return;
	load_command_fields(L, &m, &c->exec, base_vars(L));
	load_settings(L, &m, &c->settings, LV_COMMAND);
	/* The exec copy of the resolved values, for callers that only look
	 * at exec (see load.h). */
	c->exec.cwd = c->settings.cwd ? xstrdup(c->settings.cwd) : NULL;
	strvec_copy(&c->exec.env, &c->settings.env);
	c->exec.timeout_ns = c->settings.timeout_ns;
	yaml_node_t *bud = ywalk_map_get(&m, "budget");
	if (bud)
		load_budget(L, bud, ywalk_key(&L->w, path, "budget"), b, c);
	ywalk_map_close(&m);
}

/* ------------------------------------------------------------------ */
/* Benchmarks.                                                          */

static void load_stdin(struct loader *L, yaml_node_t *n, const char *path,
		       struct stdin_spec *in)
{
	static const char *const stdin_keys[] = { "file", "content", NULL };
	if (n->type == YAML_SCALAR_NODE && !ywalk_is_null(n)) {
		char *f;
		if (ywalk_nonempty_str(&L->w, n, path, &f))
			return;
		in->kind = STDIN_FILE;
		in->value = f;
		check_suite_path(L, n, path, f, 1);
		return;
	}
	if (n->type != YAML_MAPPING_NODE) {
		ywalk_error(&L->w, n, path,
			    "expected a file path, {file: PATH} or {content: TEXT}, got %s",
			    ywalk_kind(n));
		return;
	}
	struct ywalk_map m;
	if (ywalk_map_open(&L->w, n, path, stdin_keys, NULL, NULL, &m))
		return;
	yaml_node_t *f = ywalk_map_get(&m, "file");
	yaml_node_t *c = ywalk_map_get(&m, "content");
	if (f && c) {
		ywalk_error(&L->w, c, ywalk_key(&L->w, path, "content"),
			    "give either 'file' or 'content', not both");
	} else if (f) {
		const char *fpath = ywalk_key(&L->w, path, "file");
		if (!ywalk_nonempty_str(&L->w, f, fpath, &in->value)) {
			in->kind = STDIN_FILE;
			check_suite_path(L, f, fpath, in->value, 1);
		}
	} else if (c) {
		/* Content is data, not a command: variables are not expanded. */
		if (!ywalk_str(&L->w, c, ywalk_key(&L->w, path, "content"), &in->value))
			in->kind = STDIN_CONTENT;
	} else {
		ywalk_error(&L->w, n, path, "expected 'file' or 'content'");
	}
	ywalk_map_close(&m);
}

static void load_tags(struct loader *L, yaml_node_t *n, const char *path,
		      struct strvec *tags)
{
	if (ywalk_str_list(&L->w, n, path, tags))
		return;
	for (size_t i = 0; i < tags->nr; i++)
		if (!name_ok(tags->v[i]))
			ywalk_error(&L->w, ywalk_seq_item(&L->w, n, i),
				    ywalk_index(&L->w, path, i),
				    "invalid tag '%s' (letters, digits, '_', '.', '-', starting with a letter or digit)",
				    tags->v[i]);
}

/*
 * A benchmark's regression setting for a metric it does not measure would
 * silently do nothing: an error, as in himorime. One inherited from
 * `defaults` is dropped for this benchmark instead, so that no comparison
 * or verdict comes from a metric the benchmark did not ask for.
 */
static void check_measured(struct loader *L, struct bench_spec *b)
{
	struct regression_cfg *r = &b->settings.regression;
	for (int id = 0; id < METRIC__COUNT; id++) {
		enum metric_group g = metric_get(id)->group;
		if (group_measured(&b->settings.metrics, g))
			continue;
		if (L->reg_metric[id])
			ywalk_error(&L->w, L->reg_metric[id], L->reg_metric_path[id],
				    "regression.%s is set but this benchmark does not measure %s (enable it with metrics: {%s: true})",
				    metric_get(id)->name, g == GROUP_CPU ? "cpu" : "memory",
				    g == GROUP_CPU ? "cpu" : "memory");
		r->metric[id].configured = 0;
		r->metric[id].compare = 0;
	}
}

static const struct command_spec *find_command(const struct bench_spec *b,
					       const char *name)
{
	for (size_t i = 0; i < b->nr_commands; i++)
		if (!strcmp(b->commands[i].name, name))
			return &b->commands[i];
	return NULL;
}

static void unknown_command(struct loader *L, const yaml_node_t *n,
			    const char *path, const struct bench_spec *b,
			    const char *name)
{
	const char **names = xcalloc(b->nr_commands + 1, sizeof(*names));
	for (size_t i = 0; i < b->nr_commands; i++)
		names[i] = b->commands[i].name;
	const char *near = suggest_closest(name, names);
	if (near)
		ywalk_error(&L->w, n, path, "no command named '%s', did you mean '%s'?",
			    name, near);
	else
		ywalk_error(&L->w, n, path, "no command named '%s' in this benchmark",
			    name);
	free(names);
}

#define MATRIX_MAX_COMBINATIONS 1000

struct matrix {
	struct strvec names;
	struct strvec *values; /* values[i]: the list of names.v[i] */
	size_t combinations;
};

static void matrix_release(struct matrix *x)
{
	for (size_t i = 0; i < x->names.nr; i++)
		strvec_clear(&x->values[i]);
	free(x->values);
	strvec_clear(&x->names);
}

/*
 * `matrix: {size: [1k, 10k], level: [1, 9]}`: names ([A-Za-z_][A-Za-z0-9_]*,
 * not a built-in variable) and non-empty lists of scalars. Returns 0 when
 * there is a usable matrix in *x (errors are recorded on L).
 */
static int load_matrix(struct loader *L, yaml_node_t *n, const char *path,
		       struct matrix *x)
{
	static const char *const reserved[] = { "artifact", "root", "head_root",
						"workdir", "exe", "env", NULL };
	struct ywalk_map mm;
	int bad = 0;
	strvec_init(&x->names);
	x->values = NULL;
	x->combinations = 1;
	if (ywalk_map_open(&L->w, n, path, NULL, NULL, NULL, &mm))
		return -1;
	if (!mm.nr) {
		ywalk_error(&L->w, n, path, "must name at least one variable, e.g. {size: [1k, 10k]}");
		bad = 1;
	}
	x->values = xcalloc(mm.nr + 1, sizeof(*x->values));
	for (size_t i = 0; i < mm.nr; i++) {
		const char *name = mm.pairs[i].key;
		const char *vpath = ywalk_key(&L->w, path, name);
		yaml_node_t *v = mm.pairs[i].value;
		int ok = (*name == '_' || (*name >= 'a' && *name <= 'z') ||
			  (*name >= 'A' && *name <= 'Z'));
		for (const char *c = name; *c && ok; c++)
			ok = *c == '_' || (*c >= 'a' && *c <= 'z') || (*c >= 'A' && *c <= 'Z') ||
			     (*c >= '0' && *c <= '9');
		for (size_t r = 0; reserved[r] && ok; r++)
			if (!strcmp(name, reserved[r])) {
				ywalk_error(&L->w, mm.pairs[i].key_node, vpath,
					    "'%s' is a built-in variable; choose another name", name);
				ok = -1;
			}
		if (!ok)
			ywalk_error(&L->w, mm.pairs[i].key_node, vpath,
				    "invalid variable name '%s' (letters, digits and '_', not starting with a digit)",
				    name);
		strvec_push(&x->names, name);
		strvec_init(&x->values[i]);
		bad |= ok != 1;
		if (v->type != YAML_SEQUENCE_NODE || !ywalk_seq_len(v)) {
			ywalk_error(&L->w, v, vpath, "must be a non-empty list of values, e.g. [1k, 10k]");
			bad = 1;
			continue;
		}
		for (size_t k = 0; k < ywalk_seq_len(v); k++) {
			yaml_node_t *it = ywalk_seq_item(&L->w, v, k);
			if (it->type != YAML_SCALAR_NODE) {
				ywalk_error(&L->w, it, ywalk_index(&L->w, vpath, k),
					    "must be a value (a string or number), not a %s",
					    ywalk_kind(it));
				bad = 1;
				continue;
			}
			if (strvec_contains(&x->values[i], ywalk_text(it))) {
				ywalk_error(&L->w, it, ywalk_index(&L->w, vpath, k),
					    "duplicate value '%s'", ywalk_text(it));
				bad = 1;
			}
			strvec_push(&x->values[i], ywalk_text(it));
		}
		x->combinations *= x->values[i].nr ? x->values[i].nr : 1;
		if (x->combinations > MATRIX_MAX_COMBINATIONS) {
			ywalk_error(&L->w, n, path, "more than %d combinations",
				    MATRIX_MAX_COMBINATIONS);
			bad = 1;
			break;
		}
	}
	ywalk_map_close(&mm);
	return bad ? -1 : 0;
}

/* The name of command `key` at combination idx: "key.size-1k.level-9",
   characters a command name may not hold as '_'. */
static char *matrix_name(const char *key, const struct matrix *x, const size_t *idx,
			 struct strvec *values)
{
	struct sbuf sb = SBUF_INIT;
	sbuf_adds(&sb, key);
	strvec_clear(values);
	for (size_t i = 0; i < x->names.nr; i++) {
		const char *v = x->values[i].v[idx[i]];
		strvec_push(values, v);
		sbuf_addf(&sb, ".%s-", x->names.v[i]);
		for (; *v; v++)
			sbuf_addch(&sb, (*v >= 'a' && *v <= 'z') || (*v >= 'A' && *v <= 'Z') ||
					     (*v >= '0' && *v <= '9') || *v == '_' ||
					     *v == '.' || *v == '-' ? *v : '_');
	}
	return sbuf_detach(&sb);
}

static void load_bench(struct loader *L, yaml_node_t *n, const char *path,
		       size_t index, struct bench_spec *b)
{
	struct suite *s = L->s;
	struct ywalk_map m;
	yaml_node_t *v;

	b->loc = loc_of(n);
	settings_copy(&b->settings, &s->defaults);
	L->reg_commands = NULL;
	memset(L->reg_metric, 0, sizeof(L->reg_metric));
	if (ywalk_map_open(&L->w, n, path, bench_keys,
			   "it belongs to a command under 'commands'",
			   bench_elsewhere, &m))
		return;

	if (get_str(L, &m, "name", &b->name, &v) > 0) {
		check_text(L, v, ywalk_key(&L->w, path, "name"), b->name, TEXT_NAME);
		for (size_t i = 0; i < index; i++)
			if (s->benches[i].name && !strcmp(s->benches[i].name, b->name))
				ywalk_error(&L->w, v, ywalk_key(&L->w, path, "name"),
					    "duplicate benchmark name '%s' (first at line %d)",
					    b->name, s->benches[i].loc.line);
	} else if (!v) {
		missing(L, &m, "name", NULL);
	}
	if (get_str(L, &m, "description", &b->description, &v) > 0)
		check_text(L, v, ywalk_key(&L->w, path, "description"),
			   b->description, TEXT_DESCRIPTION);
	if ((v = ywalk_map_get(&m, "tags")))
		load_tags(L, v, ywalk_key(&L->w, path, "tags"), &b->tags);
	if ((v = ywalk_map_get(&m, "stdin")))
		load_stdin(L, v, ywalk_key(&L->w, path, "stdin"), &b->stdin_spec);
	yaml_node_t *terminal = ywalk_map_get(&m, "terminal");
	if (terminal)
		ywalk_bool(&L->w, terminal, ywalk_key(&L->w, path, "terminal"),
			   &b->terminal);
	load_hooks(L, &m, "setup", &b->setup, &b->nr_setup);
	load_hooks(L, &m, "prepare_each", &b->prepare_each, &b->nr_prepare_each);
	load_hooks(L, &m, "cleanup", &b->cleanup, &b->nr_cleanup);
	load_settings(L, &m, &b->settings, LV_BENCH);
	check_measured(L, b);

	yaml_node_t *cmds = ywalk_map_get(&m, "commands");
	const char *cpath = ywalk_key(&L->w, path, "commands");
	struct ywalk_map cm;
	if (!cmds) {
		missing(L, &m, "commands", " (a mapping of command names to commands)");
	} else if (!ywalk_map_open(&L->w, cmds, cpath, NULL, NULL, NULL, &cm)) {
		if (!cm.nr)
			ywalk_error(&L->w, cmds, cpath, "must define at least one command");
		struct matrix x;
		yaml_node_t *mx = ywalk_map_get(&m, "matrix");
		int have_x = mx && !load_matrix(L, mx, ywalk_key(&L->w, path, "matrix"), &x);
		size_t per = have_x ? x.combinations : 1;
		b->commands = xcalloc(cm.nr ? cm.nr * per : 1, sizeof(*b->commands));
		size_t *idx = xcalloc(have_x ? x.names.nr + 1 : 1, sizeof(*idx));
		struct strvec values = STRVEC_INIT;
		for (size_t i = 0; i < cm.nr; i++) {
			memset(idx, 0, (have_x ? x.names.nr + 1 : 1) * sizeof(*idx));
			for (size_t k = 0; k < per; k++) {
				struct command_spec *c = &b->commands[b->nr_commands++];
				struct ywalk_pair p = cm.pairs[i];
				char *name = NULL;
				strvec_init(&c->exec.argv);
				strvec_init(&c->exec.env);
				if (have_x) {
					/* one command per combination, ${NAME} replaced */
					name = matrix_name(p.key, &x, idx, &values);
					p.key = name;
					ywalk_substitute(&x.names, &values);
					for (size_t q = x.names.nr; q > 0; q--)
						if (++idx[q - 1] < x.values[q - 1].nr)
							break;
						else
							idx[q - 1] = 0;
				}
				load_command(L, &p, ywalk_key(&L->w, cpath, cm.pairs[i].key), b, c);
				ywalk_substitute(NULL, NULL);
				if (have_x) {
					strvec_copy(&c->matrix_names, &x.names);
					strvec_copy(&c->matrix_values, &values);
				}
				for (size_t d = 0; name && d + 1 < b->nr_commands; d++)
					if (b->commands[d].name && !strcmp(b->commands[d].name, name))
						ywalk_error(&L->w, cm.pairs[i].key_node,
							    ywalk_key(&L->w, cpath, cm.pairs[i].key),
							    "the matrix gives two commands the name '%s'", name);
				free(name);
			}
		}
		strvec_clear(&values);
		free(idx);
		if (mx)
			matrix_release(&x);
		ywalk_map_close(&cm);
	}

	if (get_str(L, &m, "baseline", &b->baseline, &v) > 0 &&
	    !find_command(b, b->baseline) && cmds)
		unknown_command(L, v, ywalk_key(&L->w, path, "baseline"), b,
				b->baseline);
	if (L->reg_commands && cmds) {
		for (size_t i = 0; i < b->settings.regression.commands.nr; i++) {
			const char *name = b->settings.regression.commands.v[i];
			if (!find_command(b, name))
				unknown_command(L, ywalk_seq_item(&L->w, L->reg_commands, i),
						ywalk_index(&L->w, L->reg_commands_path, i),
						b, name);
		}
	}
	if (b->terminal) {
		for (size_t i = 0; i < b->nr_commands; i++)
			if (b->commands[i].settings.stderr_path) {
				ywalk_error(&L->w, terminal,
					    ywalk_key(&L->w, path, "terminal"),
					    "'terminal: true' cannot be combined with 'stderr' (the terminal carries both streams)");
				break;
			}
	}
	ywalk_map_close(&m);
}

/* ------------------------------------------------------------------ */
/* report, top level.                                                   */

static int section_name_ok(const char *s)
{
	if (!((*s >= 'a' && *s <= 'z') || (*s >= '0' && *s <= '9')))
		return 0;
	for (; *s; s++)
		if (!((*s >= 'a' && *s <= 'z') || (*s >= '0' && *s <= '9') || *s == '-'))
			return 0;
	return 1;
}

/* path without "." components and repeated slashes (it holds no ".."). */
static char *clean_output_path(const char *path)
{
	struct sbuf sb = SBUF_INIT;
	for (const char *p = path; *p;) {
		while (*p == '/')
			p++;
		const char *e = strchrnul(p, '/');
		if (e > p && !(e - p == 1 && *p == '.'))
			sbuf_addf(&sb, "%s%.*s", sb.len ? "/" : "", (int)(e - p), p);
		p = e;
	}
	return sbuf_detach(&sb);
}

/*
 * A report file: relative to the suite's folder and inside it (no "..",
 * no absolute path, no '~', no variable), and not a file an earlier output
 * writes too, however spelled, unless both fill distinct Markdown sections.
 */
static void check_output_path(struct loader *L, const yaml_node_t *n,
			      const char *path, const struct report_output *o,
			      size_t index)
{
	const char *v = o->path;
	if (v[0] == '/' || v[0] == '~' || v[0] == '\\') {
		ywalk_error(&L->w, n, path,
			    "'%s' must be a path relative to the suite's folder", v);
		return;
	}
	if (has_dotdot(v)) {
		ywalk_error(&L->w, n, path,
			    "'%s' leaves the suite's folder; report files stay inside it", v);
		return;
	}
	if (strstr(v, "${")) {
		ywalk_error(&L->w, n, path,
			    "'%s': report paths take no variables (write a path relative to the suite's folder)",
			    v);
		return;
	}
	char *mine = clean_output_path(v);
	for (size_t j = 0; j < index; j++) {
		const struct report_output *prev = &L->s->outputs[j];
		if (!prev->path)
			continue;
		char *theirs = clean_output_path(prev->path);
		int same = !strcmp(mine, theirs);
		free(theirs);
		if (same && (!prev->section || !o->section ||
			     !strcmp(prev->section, o->section))) {
			ywalk_error(&L->w, n, path,
				    "report output '%s' conflicts with report.outputs[%zu] ('%s'); use different files or distinct Markdown sections",
				    v, j, prev->path);
			break;
		}
	}
	free(mine);
}

static void load_report(struct loader *L, yaml_node_t *n, const char *path)
{
	static const char *const report_keys[] = { "outputs", "versions", NULL };
	static const char *const output_keys[] = { "format", "path", "section", NULL };
	struct suite *s = L->s;
	struct ywalk_map m;
	if (ywalk_map_open(&L->w, n, path, report_keys, NULL, NULL, &m))
		return;
	yaml_node_t *outs = ywalk_map_get(&m, "outputs");
	const char *opath = ywalk_key(&L->w, path, "outputs");
	if (outs && outs->type != YAML_SEQUENCE_NODE) {
		ywalk_error(&L->w, outs, opath,
			    "expected a list such as [{format: json, path: out.json}], got %s",
			    ywalk_kind(outs));
	} else if (outs) {
		size_t len = ywalk_seq_len(outs);
		s->outputs = xcalloc(len ? len : 1, sizeof(*s->outputs));
		for (size_t i = 0; i < len; i++) {
			yaml_node_t *it = ywalk_seq_item(&L->w, outs, i);
			const char *ipath = ywalk_index(&L->w, opath, i);
			struct report_output *o = &s->outputs[i];
			struct ywalk_map om;
			s->nr_outputs = i + 1;
			o->loc = loc_of(it);
			if (ywalk_map_open(&L->w, it, ipath, output_keys, NULL, NULL, &om))
				continue;
			int f;
			yaml_node_t *v;
			int got = get_enum(L, &om, "format", format_names, &f);
			if (got > 0)
				o->format = xstrdup(format_names[f]);
			else if (!got)
				missing(L, &om, "format", NULL);
			yaml_node_t *sec = ywalk_map_get(&om, "section");
			if (sec && sec->type == YAML_SCALAR_NODE && !ywalk_is_null(sec))
				o->section = xstrdup(ywalk_text(sec));
			got = get_str(L, &om, "path", &o->path, &v);
			if (got > 0)
				check_output_path(L, v, ywalk_key(&L->w, ipath, "path"), o, i);
			else if (!got)
				missing(L, &om, "path", NULL);
			if (get_str(L, &om, "section", &o->section, &v) > 0) {
				const char *spath = ywalk_key(&L->w, ipath, "section");
				if (!section_name_ok(o->section))
					ywalk_error(&L->w, v, spath,
						    "invalid section name '%s' (lowercase letters, digits and '-', starting with a letter or digit)",
						    o->section);
				else if (o->format && strcmp(o->format, "markdown"))
					ywalk_error(&L->w, v, spath,
						    "section is only allowed with format: markdown, not %s (a section replaces part of a Markdown file)",
						    o->format);
			}
			ywalk_map_close(&om);
		}
	}
	yaml_node_t *vers = ywalk_map_get(&m, "versions");
	const char *vpath = ywalk_key(&L->w, path, "versions");
	struct ywalk_map vm;
	if (vers && !ywalk_map_open(&L->w, vers, vpath, NULL, NULL, NULL, &vm)) {
		s->versions = xcalloc(vm.nr ? vm.nr : 1, sizeof(*s->versions));
		for (size_t i = 0; i < vm.nr; i++) {
			struct tool_version *t = &s->versions[i];
			const char *tpath = ywalk_key(&L->w, vpath, vm.pairs[i].key);
			yaml_node_t *argv = vm.pairs[i].value;
			s->nr_versions = i + 1;
			t->tool = xstrdup(vm.pairs[i].key);
			strvec_init(&t->argv);
			if (!name_ok(t->tool))
				ywalk_error(&L->w, vm.pairs[i].key_node, tpath,
					    "invalid tool name '%s' (letters, digits, '_', '.', '-', starting with a letter or digit)",
					    t->tool);
			if (ywalk_str_list(&L->w, argv, tpath, &t->argv))
				continue;
			if (!t->argv.nr)
				ywalk_error(&L->w, argv, tpath,
					    "must not be empty (an argv list such as [cc, --version])");
			for (size_t k = 0; k < t->argv.nr; k++)
				check_vars(L, ywalk_seq_item(&L->w, argv, k),
					   ywalk_index(&L->w, tpath, k), t->argv.v[k],
					   base_vars(L) & ~VAR_WORKDIR, 0);
		}
		ywalk_map_close(&vm);
	}
	ywalk_map_close(&m);
}

static void load_top(struct loader *L, yaml_node_t *root)
{
	struct suite *s = L->s;
	struct ywalk_map m;
	yaml_node_t *v;
	if (root->type != YAML_MAPPING_NODE) {
		ywalk_error(&L->w, root, NULL,
			    "a suite is a mapping with version, name and benchmarks, got %s",
			    ywalk_kind(root));
		return;
	}
	if (ywalk_map_open(&L->w, root, "", top_keys,
			   "put it under 'defaults' or in a benchmark",
			   top_elsewhere, &m))
		return;

	v = ywalk_map_get(&m, "version");
	if (!v) {
		missing(L, &m, "version", " (write version: \"1\")");
	} else if (v->type == YAML_SCALAR_NODE && !strcmp(ywalk_text(v), "1") &&
		   strcmp(ywalk_kind(v), "a string")) {
		ywalk_error(&L->w, v, "version",
			    "expected the string \"1\", got %s (write version: \"1\")",
			    ywalk_kind(v));
	} else if (v->type != YAML_SCALAR_NODE || strcmp(ywalk_text(v), "1")) {
		ywalk_error(&L->w, v, "version",
			    "unsupported version %s%s%s (only \"1\" is supported)",
			    v->type == YAML_SCALAR_NODE ? "'" : "",
			    v->type == YAML_SCALAR_NODE ? ywalk_text(v) : ywalk_kind(v),
			    v->type == YAML_SCALAR_NODE ? "'" : "");
	} else {
		s->version = xstrdup("1");
	}
	if (!get_str(L, &m, "name", &s->name, &v))
		missing(L, &m, "name", NULL);
	else if (s->name)
		check_text(L, v, "name", s->name, TEXT_NAME);
	if (get_str(L, &m, "description", &s->description, &v) > 0)
		check_text(L, v, "description", s->description, TEXT_DESCRIPTION);

	/* build first: ${artifact} elsewhere depends on it. */
	v = ywalk_map_get(&m, "build");
	if (v) {
		L->has_build = 1;
		s->build = xcalloc(1, sizeof(*s->build));
		strvec_init(&s->build->argv);
		strvec_init(&s->build->env);
		load_exec(L, v, "build", s->build, SUITE_BUILD_TIMEOUT_NS,
			  VAR_ALL & ~VAR_WORKDIR);
	}

	struct ywalk_map dm;
	v = ywalk_map_get(&m, "defaults");
	if (v && !ywalk_map_open(&L->w, v, "defaults", defaults_keys,
				 "set it on each benchmark", defaults_elsewhere,
				 &dm)) {
		load_settings(L, &dm, &s->defaults, LV_DEFAULTS);
		ywalk_map_close(&dm);
	}

	v = ywalk_map_get(&m, "benchmarks");
	if (!v) {
		missing(L, &m, "benchmarks", " (a list of benchmarks)");
	} else if (v->type != YAML_SEQUENCE_NODE) {
		ywalk_error(&L->w, v, "benchmarks", "expected a list of benchmarks, got %s",
			    ywalk_kind(v));
	} else {
		size_t len = ywalk_seq_len(v);
		if (!len)
			ywalk_error(&L->w, v, "benchmarks", "must list at least one benchmark");
		s->benches = xcalloc(len ? len : 1, sizeof(*s->benches));
		for (size_t i = 0; i < len; i++) {
			struct bench_spec *b = &s->benches[i];
			strvec_init(&b->tags);
			s->nr_benches = i + 1;
			load_bench(L, ywalk_seq_item(&L->w, v, i),
				   ywalk_index(&L->w, "benchmarks", i), i, b);
		}
	}
	v = ywalk_map_get(&m, "report");
	if (v)
		load_report(L, v, "report");
	ywalk_map_close(&m);
}

/* ------------------------------------------------------------------ */
/* Folders, parsing, entry points.                                      */

/* Absolute, lexically normalised folder of `file` (need not exist). */
static char *suite_dir_of(const char *file)
{
	const char *slash = strrchr(file, '/');
	char *dir = slash ? xstrndup(file, slash == file ? 1 : (size_t)(slash - file))
			  : xstrdup(".");
	char *real = realpath(dir, NULL);
	if (real) {
		free(dir);
		return real;
	}
	if (dir[0] == '/')
		return dir;
	char *cwd = getcwd(NULL, 0);
	char *abs = xstrfmt("%s/%s", cwd ? cwd : "/", dir);
	free(cwd);
	free(dir);
	return abs;
}

/* The nearest ancestor of dir (itself included) holding `.git`, else dir. */
static char *suite_root_of(const char *dir)
{
	char *cur = xstrdup(dir);
	for (;;) {
		char *probe = xstrfmt("%s/.git", strcmp(cur, "/") ? cur : "");
		struct stat st;
		int found = stat(probe, &st) == 0;
		free(probe);
		if (found)
			return cur;
		char *slash = strrchr(cur, '/');
		if (!slash || !strcmp(cur, "/"))
			break;
		if (slash == cur)
			slash[1] = '\0';
		else
			*slash = '\0';
	}
	free(cur);
	return xstrdup(dir);
}

static char *relative_dir(const char *root, const char *dir)
{
	size_t n = strlen(root);
	if (!strcmp(root, "/"))
		return xstrdup(dir + 1);
	if (!strncmp(dir, root, n) && dir[n] == '/')
		return xstrdup(dir + n + 1);
	return xstrdup("");
}

struct suite *suite_load_mem(const char *file, const char *data, size_t len,
			     struct sbuf *errs)
{
	struct loader L;
	yaml_parser_t parser;
	yaml_document_t doc, extra;
	int have_doc = 0;

	memset(&L, 0, sizeof(L));
	L.data = data;
	L.len = len;
	ywalk_init(&L.w, file, NULL);
	L.s = xcalloc(1, sizeof(*L.s));
	L.s->file = xstrdup(file);
	L.s->dir = suite_dir_of(file);
	L.s->root = suite_root_of(L.s->dir);
	L.rel_dir = relative_dir(L.s->root, L.s->dir);
	settings_init_defaults(&L.s->defaults);

	if (len > SUITE_MAX_BYTES) {
		ywalk_error(&L.w, NULL, NULL, "the suite is larger than 1 MiB (%zu bytes)",
			    len);
		goto done;
	}
	if (check_encoding(&L.w, data, len))
		goto done;
	/* libyaml cannot see a NUL inside the input: checked above. */
	if (!yaml_parser_initialize(&parser))
		abort();
	yaml_parser_set_input_string(&parser, (const unsigned char *)data, len);
	yaml_parser_set_encoding(&parser, YAML_UTF8_ENCODING);
	if (!yaml_parser_load(&parser, &doc)) {
		report_parser_error(&L, &parser);
		yaml_parser_delete(&parser);
		goto done;
	}
	have_doc = 1;
	L.w.doc = &doc;
	yaml_node_t *root = yaml_document_get_root_node(&doc);
	if (!root || ywalk_is_null(root)) {
		ywalk_error(&L.w, NULL, NULL,
			    "the suite is empty (expected version, name and benchmarks)");
		yaml_parser_delete(&parser);
		goto done;
	}
	if (!yaml_parser_load(&parser, &extra)) {
		report_parser_error(&L, &parser);
	} else {
		if (yaml_document_get_root_node(&extra))
			ywalk_error_at(&L.w, (int)extra.start_mark.line + 1,
				       (int)extra.start_mark.column + 1, NULL,
				       "a second YAML document is not allowed (one suite per file)");
		yaml_document_delete(&extra);
	}
	yaml_parser_delete(&parser);
	if (L.w.nr_errors || check_expansion(&L, &doc))
		goto done;
	load_top(&L, root);

done:
	if (have_doc)
		yaml_document_delete(&doc);
	free(L.rel_dir);
	if (ywalk_flush(&L.w, errs)) {
		ywalk_release(&L.w);
		suite_free(L.s);
		return NULL;
	}
	ywalk_release(&L.w);
	return L.s;
}

struct suite *suite_load(const char *path, struct sbuf *errs)
{
	struct stat st;
	struct sbuf data = SBUF_INIT;
	if (stat(path, &st) != 0) {
		sbuf_addf(errs, "%s: cannot read the suite: %s\n", path, strerror(errno));
		return NULL;
	}
	if (S_ISDIR(st.st_mode)) {
		sbuf_addf(errs, "%s: is a directory, not a suite file\n", path);
		return NULL;
	}
	if (!S_ISREG(st.st_mode)) {
		sbuf_addf(errs, "%s: not a regular file\n", path);
		return NULL;
	}
	if (st.st_size > SUITE_MAX_BYTES) {
		sbuf_addf(errs, "%s: the suite is larger than 1 MiB (%lld bytes)\n", path,
			  (long long)st.st_size);
		return NULL;
	}
	if (sbuf_read_file(&data, path, SUITE_MAX_BYTES) != 0) {
		if (errno == EFBIG)
			sbuf_addf(errs, "%s: the suite is larger than 1 MiB\n", path);
		else
			sbuf_addf(errs, "%s: cannot read the suite: %s\n", path,
				  strerror(errno));
		sbuf_release(&data);
		return NULL;
	}
	struct suite *s = suite_load_mem(path, data.buf, data.len, errs);
	sbuf_release(&data);
	return s;
}
