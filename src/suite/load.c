/*
 * suite/load: a suite file into a validated struct suite (load.h): report
 * outputs, the top level, and suite_load() / suite_load_mem(), which run
 * the checks of load_text.c, parse, and walk the document with the
 * loaders of load_fields.c, load_settings.c and load_bench.c
 * (load_internal.h lists them).
 */
#include "suite/load.h"

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
#include "suite/units.h"
#include "suite/vars.h"
#include "suite/ywalk.h"

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
static void check_output_path(struct loader *L, const yaml_node_t *n, const char *path,
			      const struct report_output *o, size_t index)
{
	const char *v = o->path;
	if (v[0] == '/' || v[0] == '~' || v[0] == '\\') {
		ywalk_error(&L->w, n, path, "'%s' must be a path relative to the suite's folder",
			    v);
		return;
	}
	if (ld_has_dotdot(v)) {
		ywalk_error(&L->w, n, path,
			    "'%s' leaves the suite's folder; report files stay inside it", v);
		return;
	}
	if (strstr(v, "${")) {
		ywalk_error(&L->w, n, path,
			    "'%s': report paths take no variables (write a path relative to the "
			    "suite's folder)",
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
		if (same && (!prev->section || !o->section || !strcmp(prev->section, o->section))) {
			ywalk_error(&L->w, n, path,
				    "report output '%s' conflicts with report.outputs[%zu] ('%s'); "
				    "use different files or distinct Markdown sections",
				    v, j, prev->path);
			break;
		}
	}
	free(mine);
}

static void load_report(struct loader *L, yaml_node_t *n, const char *path)
{
	static const char *const report_keys[] = {"outputs", "versions", NULL};
	static const char *const output_keys[] = {"format", "path", "section", NULL};
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
			o->loc = ld_loc_of(it);
			if (ywalk_map_open(&L->w, it, ipath, output_keys, NULL, NULL, &om))
				continue;
			int f;
			yaml_node_t *v;
			int got = ld_get_enum(L, &om, "format", ld_format_names, &f);
			if (got > 0)
				o->format = xstrdup(ld_format_names[f]);
			else if (!got)
				ld_missing(L, &om, "format", NULL);
			yaml_node_t *sec = ywalk_map_get(&om, "section");
			if (sec && sec->type == YAML_SCALAR_NODE && !ywalk_is_null(sec))
				o->section = xstrdup(ywalk_text(sec));
			got = ld_get_str(L, &om, "path", &o->path, &v);
			if (got > 0)
				check_output_path(L, v, ywalk_key(&L->w, ipath, "path"), o, i);
			else if (!got)
				ld_missing(L, &om, "path", NULL);
			if (ld_get_str(L, &om, "section", &o->section, &v) > 0) {
				const char *spath = ywalk_key(&L->w, ipath, "section");
				if (!section_name_ok(o->section))
					ywalk_error(
					    &L->w, v, spath,
					    "invalid section name '%s' (lowercase letters, digits "
					    "and '-', starting with a letter or digit)",
					    o->section);
				else if (o->format && strcmp(o->format, "markdown"))
					ywalk_error(
					    &L->w, v, spath,
					    "section is only allowed with format: markdown, not %s "
					    "(a section replaces part of a Markdown file)",
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
			if (!ld_name_ok(t->tool))
				ywalk_error(&L->w, vm.pairs[i].key_node, tpath,
					    "invalid tool name '%s' (letters, digits, '_', '.', "
					    "'-', starting with a letter or digit)",
					    t->tool);
			if (ywalk_str_list(&L->w, argv, tpath, &t->argv))
				continue;
			if (!t->argv.nr)
				ywalk_error(
				    &L->w, argv, tpath,
				    "must not be empty (an argv list such as [cc, --version])");
			for (size_t k = 0; k < t->argv.nr; k++)
				ld_check_vars(L, ywalk_seq_item(&L->w, argv, k),
					      ywalk_index(&L->w, tpath, k), t->argv.v[k],
					      ld_base_vars(L) & ~VAR_WORKDIR, 0);
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
	if (ywalk_map_open(&L->w, root, "", ld_top_keys,
			   "put it under 'defaults' or in a benchmark", ld_top_elsewhere, &m))
		return;

	v = ywalk_map_get(&m, "version");
	if (!v) {
		ld_missing(L, &m, "version", " (write version: \"1\")");
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
	if (!ld_get_str(L, &m, "name", &s->name, &v))
		ld_missing(L, &m, "name", NULL);
	else if (s->name)
		ld_check_text(L, v, "name", s->name, TEXT_NAME);
	if (ld_get_str(L, &m, "description", &s->description, &v) > 0)
		ld_check_text(L, v, "description", s->description, TEXT_DESCRIPTION);

	/* build first: ${artifact} elsewhere depends on it. */
	v = ywalk_map_get(&m, "build");
	if (v) {
		L->has_build = 1;
		s->build = xcalloc(1, sizeof(*s->build));
		strvec_init(&s->build->argv);
		strvec_init(&s->build->env);
		ld_build(L, v, s->build, &s->build_no_submodules);
	}

	struct ywalk_map dm;
	v = ywalk_map_get(&m, "defaults");
	if (v && !ywalk_map_open(&L->w, v, "defaults", ld_defaults_keys, "set it on each benchmark",
				 ld_defaults_elsewhere, &dm)) {
		ld_settings(L, &dm, &s->defaults, LV_DEFAULTS);
		ywalk_map_close(&dm);
	}

	v = ywalk_map_get(&m, "benchmarks");
	if (!v) {
		ld_missing(L, &m, "benchmarks", " (a list of benchmarks)");
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
			ld_bench(L, ywalk_seq_item(&L->w, v, i),
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
	char *dir =
	    slash ? xstrndup(file, slash == file ? 1 : (size_t)(slash - file)) : xstrdup(".");
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

struct suite *suite_load_mem(const char *file, const char *data, size_t len, struct sbuf *errs)
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
		ywalk_error(&L.w, NULL, NULL, "the suite is larger than 1 MiB (%zu bytes)", len);
		goto done;
	}
	if (ld_check_encoding(&L.w, data, len))
		goto done;
	/* libyaml cannot see a NUL inside the input: checked above. */
	if (!yaml_parser_initialize(&parser))
		abort();
	yaml_parser_set_input_string(&parser, (const unsigned char *)data, len);
	yaml_parser_set_encoding(&parser, YAML_UTF8_ENCODING);
	if (!yaml_parser_load(&parser, &doc)) {
		ld_report_parser_error(&L, &parser);
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
		ld_report_parser_error(&L, &parser);
	} else {
		if (yaml_document_get_root_node(&extra))
			ywalk_error_at(
			    &L.w, (int)extra.start_mark.line + 1, (int)extra.start_mark.column + 1,
			    NULL, "a second YAML document is not allowed (one suite per file)");
		yaml_document_delete(&extra);
	}
	yaml_parser_delete(&parser);
	if (L.w.nr_errors || ld_check_expansion(&L, &doc))
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
			sbuf_addf(errs, "%s: cannot read the suite: %s\n", path, strerror(errno));
		sbuf_release(&data);
		return NULL;
	}
	struct suite *s = suite_load_mem(path, data.buf, data.len, errs);
	sbuf_release(&data);
	return s;
}
