/*
 * suite/load_bench: a benchmark: its commands and their budgets, stdin, tags, the
 * regression.commands list, matrix expansion.
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
#include "suite/units.h"
#include "suite/vars.h"
#include "suite/ywalk.h"

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
	const char *const *names = ld_all_metric_names();
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
				    "expected a mapping of aggregation to limit, such as {p95: "
				    "\"<= 300ms\"}, got %s",
				    ywalk_kind(p->value));
			continue;
		}
		if (ywalk_map_open(&L->w, p->value, mpath, NULL, NULL, NULL, &am))
			continue;
		if (!am.nr)
			ywalk_error(&L->w, p->value, mpath,
				    "must set at least one limit, such as {p95: \"<= 300ms\"}");
		if (id == METRIC_THROUGHPUT && b->settings.metrics.throughput.kind == WORK_NONE)
			ywalk_error(
			    &L->w, p->key_node, mpath,
			    "a throughput budget needs the benchmark's metrics.throughput.work");
		enum metric_group g = metric_get(id)->group;
		if (!group_measured(&b->settings.metrics, g)) {
			const char *grp = g == GROUP_CPU ? "cpu" : "memory";
			ywalk_error(&L->w, p->key_node, mpath,
				    "a budget on %s needs the benchmark to measure %s (enable it "
				    "with metrics: {%s: true})",
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
			if (units_parse_budget(id, q->key, ywalk_text(q->value), &bud, &err)) {
				yaml_node_t *at =
				    strstr(err.buf, "aggregation") || strstr(err.buf, "percentile")
					? q->key_node
					: q->value;
				ywalk_error(&L->w, at, apath, "%s", err.buf);
				sbuf_release(&err);
				continue;
			}
			sbuf_release(&err);
			bud.loc = ld_loc_of(q->value);
			const char *work_unit = b->settings.metrics.throughput.unit;
			if (id == METRIC_THROUGHPUT && bud.unit && work_unit &&
			    strcmp(bud.unit, work_unit))
				ywalk_error(&L->w, q->value, apath,
					    "the limit is in '%s' per second but the throughput "
					    "work is counted in '%s'",
					    bud.unit, work_unit);
			c->budgets =
			    xreallocarray(c->budgets, c->nr_budgets + 1, sizeof(*c->budgets));
			c->budgets[c->nr_budgets++] = bud;
		}
		ywalk_map_close(&am);
	}
	ywalk_map_close(&m);
}

static void load_command(struct loader *L, struct ywalk_pair *p, const char *path,
			 struct bench_spec *b, struct command_spec *c)
{
	struct ywalk_map m;
	c->name = xstrdup(p->key);
	c->loc = ld_loc_of(p->key_node);
	c->exec.loc = ld_loc_of(p->value);
	settings_copy(&c->settings, &b->settings);
	if (!ld_name_ok(p->key))
		ywalk_error(&L->w, p->key_node, path,
			    "invalid command name '%s' (letters, digits, '_', '.', '-', starting "
			    "with a letter or digit)",
			    p->key);
	if (ywalk_map_open(&L->w, p->value, path, ld_command_keys,
			   "set it on the benchmark or in 'defaults'", ld_command_elsewhere, &m))
		return;
	ld_command_fields(L, &m, &c->exec, ld_base_vars(L));
	ld_settings(L, &m, &c->settings, LV_COMMAND);
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

static void load_stdin(struct loader *L, yaml_node_t *n, const char *path, struct stdin_spec *in)
{
	static const char *const stdin_keys[] = {"file", "content", NULL};
	if (n->type == YAML_SCALAR_NODE && !ywalk_is_null(n)) {
		char *f;
		if (ywalk_nonempty_str(&L->w, n, path, &f))
			return;
		in->kind = STDIN_FILE;
		in->value = f;
		ld_check_suite_path(L, n, path, f, 1);
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
			ld_check_suite_path(L, f, fpath, in->value, 1);
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

static void load_tags(struct loader *L, yaml_node_t *n, const char *path, struct strvec *tags)
{
	if (ywalk_str_list(&L->w, n, path, tags))
		return;
	for (size_t i = 0; i < tags->nr; i++)
		if (!ld_name_ok(tags->v[i]))
			ywalk_error(&L->w, ywalk_seq_item(&L->w, n, i), ywalk_index(&L->w, path, i),
				    "invalid tag '%s' (letters, digits, '_', '.', '-', starting "
				    "with a letter or digit)",
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
				    "regression.%s is set but this benchmark does not measure %s "
				    "(enable it with metrics: {%s: true})",
				    metric_get(id)->name, g == GROUP_CPU ? "cpu" : "memory",
				    g == GROUP_CPU ? "cpu" : "memory");
		r->metric[id].configured = 0;
		r->metric[id].compare = 0;
	}
}

static const struct command_spec *find_command(const struct bench_spec *b, const char *name)
{
	for (size_t i = 0; i < b->nr_commands; i++)
		if (!strcmp(b->commands[i].name, name))
			return &b->commands[i];
	return NULL;
}

static void unknown_command(struct loader *L, const yaml_node_t *n, const char *path,
			    const struct bench_spec *b, const char *name)
{
	const char **names = xcalloc(b->nr_commands + 1, sizeof(*names));
	for (size_t i = 0; i < b->nr_commands; i++)
		names[i] = b->commands[i].name;
	const char *near = suggest_closest(name, names);
	if (near)
		ywalk_error(&L->w, n, path, "no command named '%s', did you mean '%s'?", name,
			    near);
	else
		ywalk_error(&L->w, n, path, "no command named '%s' in this benchmark", name);
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
static int load_matrix(struct loader *L, yaml_node_t *n, const char *path, struct matrix *x)
{
	static const char *const reserved[] = {"artifact", "root", "head_root", "workdir",
					       "exe",	   "env",  NULL};
	struct ywalk_map mm;
	int bad = 0;
	strvec_init(&x->names);
	x->values = NULL;
	x->combinations = 1;
	if (ywalk_map_open(&L->w, n, path, NULL, NULL, NULL, &mm))
		return -1;
	if (!mm.nr) {
		ywalk_error(&L->w, n, path,
			    "must name at least one variable, e.g. {size: [1k, 10k]}");
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
					    "'%s' is a built-in variable; choose another name",
					    name);
				ok = -1;
			}
		if (!ok)
			ywalk_error(&L->w, mm.pairs[i].key_node, vpath,
				    "invalid variable name '%s' (letters, digits and '_', not "
				    "starting with a digit)",
				    name);
		strvec_push(&x->names, name);
		strvec_init(&x->values[i]);
		bad |= ok != 1;
		if (v->type != YAML_SEQUENCE_NODE || !ywalk_seq_len(v)) {
			ywalk_error(&L->w, v, vpath,
				    "must be a non-empty list of values, e.g. [1k, 10k]");
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
						*v == '.' || *v == '-'
					    ? *v
					    : '_');
	}
	return sbuf_detach(&sb);
}

/*
 * A benchmark's `commands`: each one once, or with a `matrix` once per
 * combination of its values, named after them and with ${NAME} replaced
 * in its strings.
 */
static void load_commands(struct loader *L, yaml_node_t *cmds, yaml_node_t *mx, const char *path,
			  struct bench_spec *b)
{
	const char *cpath = ywalk_key(&L->w, path, "commands");
	struct ywalk_map cm;
	if (ywalk_map_open(&L->w, cmds, cpath, NULL, NULL, NULL, &cm))
		return;
	if (!cm.nr)
		ywalk_error(&L->w, cmds, cpath, "must define at least one command");
	struct matrix x;
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
						    "the matrix gives two commands the name '%s'",
						    name);
			free(name);
		}
	}
	strvec_clear(&values);
	free(idx);
	if (mx)
		matrix_release(&x);
	ywalk_map_close(&cm);
}

void ld_bench(struct loader *L, yaml_node_t *n, const char *path, size_t index,
	      struct bench_spec *b)
{
	struct suite *s = L->s;
	struct ywalk_map m;
	yaml_node_t *v;

	b->loc = ld_loc_of(n);
	settings_copy(&b->settings, &s->defaults);
	L->reg_commands = NULL;
	memset(L->reg_metric, 0, sizeof(L->reg_metric));
	if (ywalk_map_open(&L->w, n, path, ld_bench_keys,
			   "it belongs to a command under 'commands'", ld_bench_elsewhere, &m))
		return;

	if (ld_get_str(L, &m, "name", &b->name, &v) > 0) {
		ld_check_text(L, v, ywalk_key(&L->w, path, "name"), b->name, TEXT_NAME);
		for (size_t i = 0; i < index; i++)
			if (s->benches[i].name && !strcmp(s->benches[i].name, b->name))
				ywalk_error(&L->w, v, ywalk_key(&L->w, path, "name"),
					    "duplicate benchmark name '%s' (first at line %d)",
					    b->name, s->benches[i].loc.line);
	} else if (!v) {
		ld_missing(L, &m, "name", NULL);
	}
	if (ld_get_str(L, &m, "description", &b->description, &v) > 0)
		ld_check_text(L, v, ywalk_key(&L->w, path, "description"), b->description,
			      TEXT_DESCRIPTION);
	if ((v = ywalk_map_get(&m, "tags")))
		load_tags(L, v, ywalk_key(&L->w, path, "tags"), &b->tags);
	if ((v = ywalk_map_get(&m, "stdin")))
		load_stdin(L, v, ywalk_key(&L->w, path, "stdin"), &b->stdin_spec);
	yaml_node_t *terminal = ywalk_map_get(&m, "terminal");
	if (terminal)
		ywalk_bool(&L->w, terminal, ywalk_key(&L->w, path, "terminal"), &b->terminal);
	ld_hooks(L, &m, "setup", &b->setup, &b->nr_setup);
	ld_hooks(L, &m, "prepare_each", &b->prepare_each, &b->nr_prepare_each);
	ld_hooks(L, &m, "cleanup", &b->cleanup, &b->nr_cleanup);
	ld_settings(L, &m, &b->settings, LV_BENCH);
	check_measured(L, b);

	yaml_node_t *cmds = ywalk_map_get(&m, "commands");
	if (!cmds)
		ld_missing(L, &m, "commands", " (a mapping of command names to commands)");
	else
		load_commands(L, cmds, ywalk_map_get(&m, "matrix"), path, b);

	if (ld_get_str(L, &m, "baseline", &b->baseline, &v) > 0 && !find_command(b, b->baseline) &&
	    cmds)
		unknown_command(L, v, ywalk_key(&L->w, path, "baseline"), b, b->baseline);
	if (L->reg_commands && cmds) {
		for (size_t i = 0; i < b->settings.regression.commands.nr; i++) {
			const char *name = b->settings.regression.commands.v[i];
			if (!find_command(b, name))
				unknown_command(L, ywalk_seq_item(&L->w, L->reg_commands, i),
						ywalk_index(&L->w, L->reg_commands_path, i), b,
						name);
		}
	}
	if (b->terminal) {
		for (size_t i = 0; i < b->nr_commands; i++)
			if (b->commands[i].settings.stderr_path) {
				ywalk_error(&L->w, terminal, ywalk_key(&L->w, path, "terminal"),
					    "'terminal: true' cannot be combined with 'stderr' "
					    "(the terminal carries both streams)");
				break;
			}
	}
	ywalk_map_close(&m);
}
