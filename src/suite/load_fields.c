/*
 * suite/load_fields: the key lists of every mapping, the typed getters (int, bool,
 * enum, string, duration), text, name, variable and path checks, env and
 * exit codes, and exec objects (build and hooks).
 */
#include "suite/load_internal.h"

#include <errno.h>
#include <limits.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <yaml.h>

#include "base/path.h"
#include "base/sbuf.h"
#include "base/strvec.h"
#include "base/xalloc.h"
#include "base/suggest.h"
#include "model/formats.h"
#include "suite/units.h"
#include "suite/vars.h"
#include "suite/ywalk.h"

/* ------------------------------------------------------------------ */
/* Key sets.                                                           */

#define SETTINGS_KEYS                                                                              \
	"warmup", "runs", "min_runs", "max_runs", "min_time", "timeout", "cwd", "env", "stdout",   \
	    "stderr", "exit_codes", "metrics", "regression", "runs_per_round", "order",            \
	    "max_time", "layout_noise"
#define BENCH_ONLY_KEYS                                                                            \
	"name", "description", "tags", "stdin", "terminal", "setup", "prepare_each", "cleanup",    \
	    "baseline", "commands", "matrix"

const char *const ld_top_keys[] = {"version", "name",	    "description", "defaults",
				   "build",   "benchmarks", "report",	   NULL};
const char *const ld_top_elsewhere[] = {SETTINGS_KEYS, "commands", "tags", "stdin", NULL};
static const char *const exec_keys[] = {"command", "shell", "cwd", "env", "timeout", NULL};
/* The build's: an exec object's, and whether it needs the submodules. */
static const char *const build_keys[] = {"command", "shell",	  "cwd", "env",
					 "timeout", "submodules", NULL};
static const char *const exec_elsewhere[] = {"warmup",	 "runs",	 "min_runs", "max_runs",
					     "max_time", "stdout",	 "stderr",   "exit_codes",
					     "budget",	 "layout_noise", NULL};
const char *const ld_defaults_keys[] = {SETTINGS_KEYS, NULL};
const char *const ld_defaults_elsewhere[] = {BENCH_ONLY_KEYS, "command", "shell", "budget", NULL};
const char *const ld_bench_keys[] = {SETTINGS_KEYS, BENCH_ONLY_KEYS, NULL};
const char *const ld_bench_elsewhere[] = {"command", "shell", "budget", NULL};
const char *const ld_command_keys[] = {"command", "shell",	  "cwd",    "env",
				       "timeout", "stdout",	  "stderr", "exit_codes",
				       "budget",  "layout_noise", NULL};
const char *const ld_command_elsewhere[] = {
    "warmup",	  "runs",	    "min_runs", "max_runs", "min_time",	     "metrics",
    "regression", "runs_per_round", "order",	"max_time", BENCH_ONLY_KEYS, NULL};
const char *const ld_metrics_keys[] = {
    "cpu",     "memory",       "counters",	    "instrument",  "allocations", "syscalls",
    "profile", "profile_runs", "profile_frequency", "unsupported", "throughput",  NULL};
const char *const ld_metrics_defaults_keys[] = {
    "cpu",     "memory",       "counters",	    "instrument",  "allocations", "syscalls",
    "profile", "profile_runs", "profile_frequency", "unsupported", NULL};
const char *const ld_throughput_only[] = {"throughput", NULL};
const char *const ld_metric_reg_keys[] = {"statistic", "max_percent", "min_difference", "gate",
					  NULL};
/* ipc is derived from instructions and cycles, and may be asked for alike. */
const char *const ld_counter_names[] = {
    "instructions", "cycles", "branch_misses", "cache_misses", "ipc", "estimated_cycles", NULL};
const char *const ld_order_names[] = {"random", "abba", "alternate", NULL};
const char *const ld_pairing_names[] = {"rounds", "independent", NULL};
const char *const ld_correction_names[] = {"holm", "none", NULL};
const char *const ld_statistic_names[] = {"median", "mean", NULL};
const char *const ld_instrument_names[] = {"auto", "perf", "valgrind", NULL};
const char *const ld_unsupported_names[] = {"fail", "skip", NULL};
/* The formats of every command (model/formats.h), NULL-terminated. */
const char *const ld_format_names[] = {REPORT_FORMAT_NAMES};

/* Regression keys: the fixed ones plus every comparable metric. */
const char *const *ld_regression_keys(int bench_level)
{
	static const char *keys[2][METRIC__COUNT + 10];
	const char **k = keys[bench_level];
	if (!k[0]) {
		size_t n = 0;
		static const char *const fixed[] = {"pairing",	  "correction",	 "resamples",
						    "confidence", "min_samples", "max_cv",
						    "rare_share"};
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

const char *const *ld_all_metric_names(void)
{
	static const char *names[METRIC__COUNT + 1];
	if (!names[0])
		for (int m = 0; m < METRIC__COUNT; m++)
			names[m] = metric_get(m)->name;
	return names;
}

/* ------------------------------------------------------------------ */
/* Small helpers.                                                       */

struct src_loc ld_loc_of(const yaml_node_t *n)
{
	return (struct src_loc){ywalk_line(n), ywalk_col(n)};
}

void ld_missing(struct loader *L, struct ywalk_map *m, const char *key, const char *hint)
{
	if (ywalk_map_has_typo_of(m, key))
		return;
	ywalk_error(&L->w, m->node, ywalk_key(&L->w, m->path, key), "missing required key '%s'%s",
		    key, hint ? hint : "");
}

int ld_get_int(struct loader *L, struct ywalk_map *m, const char *key, long long min, long long max,
	       int *out, yaml_node_t **node)
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

int ld_get_bool(struct loader *L, struct ywalk_map *m, const char *key, int *out)
{
	yaml_node_t *n = ywalk_map_get(m, key);
	if (!n)
		return 0;
	return ywalk_bool(&L->w, n, ywalk_key(&L->w, m->path, key), out) ? -1 : 1;
}

int ld_get_enum(struct loader *L, struct ywalk_map *m, const char *key, const char *const *choices,
		int *out)
{
	yaml_node_t *n = ywalk_map_get(m, key);
	if (!n)
		return 0;
	return ywalk_enum(&L->w, n, ywalk_key(&L->w, m->path, key), choices, out) ? -1 : 1;
}

/* Replace *dst with a string value of key, if present. */
int ld_get_str(struct loader *L, struct ywalk_map *m, const char *key, char **dst,
	       yaml_node_t **node)
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

int ld_get_duration(struct loader *L, struct ywalk_map *m, const char *key, int positive,
		    int64_t *out)
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
int ld_check_text(struct loader *L, const yaml_node_t *n, const char *path, const char *text,
		  enum text_kind kind)
{
	const unsigned char *p = (const unsigned char *)text;
	for (size_t i = 0; p[i];) {
		/* libyaml hands over valid UTF-8 (escapes included). */
		uint32_t cp;
		size_t len = ld_utf8_decode(p + i, strlen(text + i), &cp);
		if (!len)
			len = 1, cp = p[i];
		i += len;
		if ((cp >= 0x202a && cp <= 0x202e) || (cp >= 0x2066 && cp <= 0x2069)) {
			ywalk_error(&L->w, n, path,
				    "must not contain the bidirectional control U+%04X (it makes "
				    "displayed text read differently from what it is)",
				    (unsigned)cp);
			return -1;
		}
		int control = (cp < 0x20 || (cp >= 0x7f && cp <= 0x9f)) && cp != '\t' &&
			      !(kind == TEXT_DESCRIPTION && cp == '\n');
		if (control && kind != TEXT_COMMAND) {
			ywalk_error(&L->w, n, path, "must not contain control characters (U+%04X)",
				    (unsigned)cp);
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
int ld_name_ok(const char *s)
{
	if (!((*s >= 'a' && *s <= 'z') || (*s >= 'A' && *s <= 'Z') || (*s >= '0' && *s <= '9')))
		return 0;
	for (s++; *s; s++)
		if (!((*s >= 'a' && *s <= 'z') || (*s >= 'A' && *s <= 'Z') ||
		      (*s >= '0' && *s <= '9') || *s == '_' || *s == '.' || *s == '-'))
			return 0;
	return 1;
}

/* vars_check() with the error placed at the variable. */
int ld_check_vars(struct loader *L, const yaml_node_t *n, const char *path, const char *text,
		  unsigned allowed, int shell)
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

unsigned ld_base_vars(const struct loader *L)
{
	return L->has_build ? VAR_ALL : (VAR_ALL & ~VAR_ARTIFACT);
}

/*
 * Lexically walk the components of `p` starting at depth `depth`; return -1
 * when a ".." climbs above depth 0.
 */
static int climbs_out(const char *p, int depth)
{
	size_t n;
	for (const char *c; (c = path_component(&p, &n));) {
		if (n == 2 && c[0] == '.' && c[1] == '.') {
			if (--depth < 0)
				return -1;
		} else if (!(n == 1 && c[0] == '.')) {
			depth++;
		}
	}
	return 0;
}

static int dir_depth(const char *rel)
{
	int d = 0;
	size_t n;
	while (path_component(&rel, &n))
		d++;
	return d;
}

/* 1 if a '/'-separated component of p is "..". */
int ld_has_dotdot(const char *p)
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
int ld_check_suite_path(struct loader *L, const yaml_node_t *n, const char *path, const char *value,
			int allow_workdir)
{
	if (!*value) {
		ywalk_error(&L->w, n, path, "must not be empty");
		return -1;
	}
	if (ld_check_vars(L, n, path, value, VAR_ALL, 0))
		return -1;
	if (value[0] == '~') {
		ywalk_error(&L->w, n, path,
			    "'~' is not expanded; use a path relative to the suite's folder or "
			    "${root}/...");
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
			ywalk_error(
			    &L->w, n, path,
			    "'%.*s' is not allowed in a path (a path may begin with ${root}, "
			    "${head_root} or ${workdir}, or be relative to the suite's folder)",
			    len, rest + i);
			return -1;
		}
	}
	if (var) {
		if (*rest && *rest != '/') {
			ywalk_error(&L->w, n, path,
				    "'%.*s' must be followed by '/' or end the path", (int)vlen,
				    value);
			return -1;
		}
		if (var == VAR_WORKDIR && !allow_workdir) {
			ywalk_error(&L->w, n, path,
				    "'${workdir}' is not available in build (the build runs before "
				    "any benchmark folder exists; use ${root})");
			return -1;
		}
		if (var == VAR_WORKDIR && ld_has_dotdot(rest)) {
			ywalk_error(&L->w, n, path,
				    "'%s' must not contain '..' after ${workdir} (write the path "
				    "inside it)",
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
			    "'%s' is absolute; paths are relative to the suite's folder (or begin "
			    "with ${root})",
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
int ld_output_path(struct loader *L, struct ywalk_map *m, const char *key, char **dst)
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
void ld_env(struct loader *L, yaml_node_t *n, const char *path, struct strvec *env,
	    unsigned allowed)
{
	struct ywalk_map m;
	if (ywalk_map_open(&L->w, n, path, NULL, NULL, NULL, &m))
		return;
	for (size_t i = 0; i < m.nr; i++) {
		struct ywalk_pair *p = &m.pairs[i];
		const char *kpath = ywalk_key(&L->w, path, p->key);
		if (!env_name_ok(p->key)) {
			ywalk_error(&L->w, p->key_node, kpath,
				    "invalid environment variable name '%s' (letters, digits and "
				    "'_', not starting with a digit)",
				    p->key);
			continue;
		}
		char *value;
		if (ywalk_str(&L->w, p->value, kpath, &value))
			continue;
		if (!ld_check_vars(L, p->value, kpath, value, allowed, 0))
			strvec_setenv(env, p->key, value);
		free(value);
	}
	ywalk_map_close(&m);
}

int ld_exit_codes(struct loader *L, yaml_node_t *n, const char *path, struct settings *s)
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
		if (ywalk_int(&L->w, ywalk_seq_item(&L->w, n, i), ywalk_index(&L->w, path, i), 0,
			      255, &v))
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
void ld_command_fields(struct loader *L, struct ywalk_map *m, struct exec_spec *e, unsigned allowed)
{
	int shell = 0;
	ld_get_bool(L, m, "shell", &shell);
	e->shell = shell;
	yaml_node_t *n = ywalk_map_get(m, "command");
	const char *path = ywalk_key(&L->w, m->path, "command");
	if (!n) {
		ld_missing(L, m, "command",
			   " (an argv list such as [prog, arg], or a string with 'shell: true')");
		return;
	}
	if (n->type == YAML_SEQUENCE_NODE) {
		if (shell) {
			ywalk_error(&L->w, n, path,
				    "with 'shell: true' the command must be a string (or drop "
				    "'shell' to run the list as argv)");
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
			ld_check_vars(L, it, ipath, arg, allowed, 0);
			ld_check_text(L, it, ipath, arg, TEXT_COMMAND);
			strvec_push_take(&e->argv, arg);
		}
		return;
	}
	if (n->type != YAML_SCALAR_NODE || ywalk_is_null(n)) {
		ywalk_error(&L->w, n, path,
			    "expected an argv list such as [prog, arg] (or a string with 'shell: "
			    "true'), got %s",
			    ywalk_kind(n));
		return;
	}
	if (!shell) {
		ywalk_error(&L->w, n, path,
			    "a string command needs 'shell: true' (or write it as an argv list: "
			    "[prog, arg, ...])");
		return;
	}
	if (!*ywalk_text(n)) {
		ywalk_error(&L->w, n, path, "must not be empty");
		return;
	}
	ld_check_vars(L, n, path, ywalk_text(n), allowed, 1);
	ld_check_text(L, n, path, ywalk_text(n), TEXT_COMMAND);
	free(e->script);
	e->script = xstrdup(ywalk_text(n));
}

/* build and hooks: {command, shell, cwd, env, timeout}; the build's
   `submodules` too when submodules is not NULL. */
static void exec_fields(struct loader *L, yaml_node_t *n, const char *path, struct exec_spec *e,
			int64_t default_timeout, unsigned allowed, int *submodules)
{
	struct ywalk_map m;
	e->loc = ld_loc_of(n);
	e->timeout_ns = default_timeout;
	if (ywalk_map_open(&L->w, n, path, submodules ? build_keys : exec_keys,
			   "it belongs to a benchmark or a measured command", exec_elsewhere, &m))
		return;
	ld_command_fields(L, &m, e, allowed);
	yaml_node_t *cwd;
	if (ld_get_str(L, &m, "cwd", &e->cwd, &cwd) > 0 &&
	    ld_check_suite_path(L, cwd, ywalk_key(&L->w, path, "cwd"), e->cwd,
				(allowed & VAR_WORKDIR) != 0)) {
		free(e->cwd);
		e->cwd = NULL;
	}
	yaml_node_t *env = ywalk_map_get(&m, "env");
	if (env)
		ld_env(L, env, ywalk_key(&L->w, path, "env"), &e->env, allowed);
	ld_get_duration(L, &m, "timeout", 1, &e->timeout_ns);
	if (submodules)
		ld_get_bool(L, &m, "submodules", submodules);
	ywalk_map_close(&m);
}

void ld_exec(struct loader *L, yaml_node_t *n, const char *path, struct exec_spec *e,
	     int64_t default_timeout, unsigned allowed)
{
	exec_fields(L, n, path, e, default_timeout, allowed, NULL);
}

void ld_build(struct loader *L, yaml_node_t *n, struct exec_spec *e, int *no_submodules)
{
	int submodules = 1;
	exec_fields(L, n, "build", e, SUITE_BUILD_TIMEOUT_NS, VAR_ALL & ~VAR_WORKDIR, &submodules);
	*no_submodules = !submodules;
}

/* A list of hooks (setup, prepare_each, cleanup). */
void ld_hooks(struct loader *L, struct ywalk_map *m, const char *key, struct exec_spec **out,
	      size_t *nr)
{
	yaml_node_t *n = ywalk_map_get(m, key);
	const char *path = ywalk_key(&L->w, m->path, key);
	if (!n)
		return;
	if (n->type != YAML_SEQUENCE_NODE) {
		ywalk_error(&L->w, n, path,
			    "expected a list of commands such as [{command: [...]}], got %s",
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
		ld_exec(L, ywalk_seq_item(&L->w, n, i), ywalk_index(&L->w, path, i), e,
			SUITE_HOOK_TIMEOUT_NS, ld_base_vars(L));
	}
}
