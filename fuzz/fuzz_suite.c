/*
 * fuzz/fuzz_suite: libFuzzer target for the suite loader (suite_load_mem).
 *
 * Besides "no crash, no leak, no undefined behaviour", every input checks
 * the invariant "the loader never accepts a file that validation would
 * reject". `kagari validate` is suite_load() itself, so validation here
 * means the contract's rules for a suite file (CONTRACT.md, "The suite
 * file"), re-checked independently by this harness:
 *
 *   raw bytes   at most 1 MiB, no NUL, no BOM, valid UTF-8, exactly one
 *               YAML document, no mapping with the same scalar key twice
 *               (checked with libyaml's event API, not the loader's walk);
 *   the model   version "1"; non-empty name; at least one benchmark; unique
 *               non-empty benchmark names; at least one command each, named
 *               [A-Za-z0-9][A-Za-z0-9_.-]* and unique; baseline names a
 *               command; every setting inside its documented range
 *               (durations within 24h, timeouts > 0, min_runs <= max_runs,
 *               percentages in (0, 1000], confidence in [0.5, 0.999], ...);
 *               argv non-empty or a shell script; budgets in the direction
 *               of their metric; ${artifact} only with `build`, ${workdir}
 *               never in `build`; paths neither absolute nor starting '~';
 *   messages    a rejection has at least one message, every line
 *               "FILE:LINE:COL: ..." (LINE, COL >= 1) or "FILE: ...";
 *   determinism loading the same text again gives the same verdict, the
 *               same messages, and (when accepted) the same model, compared
 *               through a textual dump of every field.
 *
 * A violated invariant calls abort(), which libFuzzer reports as a crash.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <yaml.h>

#include "base/sbuf.h"
#include "model/metric.h"
#include "suite/load.h"
#include "suite/model.h"
#include "suite/units.h"
#include "suite/vars.h"

/* A folder that does not exist: no file system state leaks into the run. */
#define SUITE_FUZZ_FILE "/nonexistent-kagari-fuzz/dir/suite.yaml"

static void suite_fail(const char *what, const struct sbuf *ctx)
{
	fprintf(stderr, "fuzz_suite invariant violated: %s\n", what);
	if (ctx && ctx->len)
		fprintf(stderr, "context:\n%s\n", ctx->buf);
	abort();
}

/* ---------------------------------------------------------------- */
/* Raw-byte rules.                                                   */

static int utf8_valid(const unsigned char *s, size_t n)
{
	size_t i = 0;
	while (i < n) {
		unsigned c = s[i];
		size_t len;
		uint32_t cp;
		if (c < 0x80) {
			i++;
			continue;
		} else if (c >= 0xc2 && c <= 0xdf) {
			len = 2, cp = c & 0x1f;
		} else if (c >= 0xe0 && c <= 0xef) {
			len = 3, cp = c & 0x0f;
		} else if (c >= 0xf0 && c <= 0xf4) {
			len = 4, cp = c & 0x07;
		} else {
			return 0;
		}
		if (i + len > n)
			return 0;
		for (size_t k = 1; k < len; k++) {
			if ((s[i + k] & 0xc0) != 0x80)
				return 0;
			cp = (cp << 6) | (s[i + k] & 0x3f);
		}
		if ((len == 3 && cp < 0x800) || (len == 4 && cp < 0x10000) ||
		    cp > 0x10ffff || (cp >= 0xd800 && cp <= 0xdfff))
			return 0;
		i += len;
	}
	return 1;
}

/* Keys seen in one open mapping. */
struct keyset {
	char **keys;
	size_t nr, alloc;
	int expect_key; /* the next node is a key */
	int is_map;
};

struct anchor {
	char *name;
	char *scalar; /* NULL when the anchored node is not a scalar */
};

struct events {
	struct keyset *stack;
	size_t depth, alloc;
	struct anchor *anchors;
	size_t nr_anchors, alloc_anchors;
	int documents;
	int dup; /* a duplicate key was seen */
};

static void push(struct events *ev, int is_map)
{
	if (ev->depth == ev->alloc) {
		ev->alloc = ev->alloc ? 2 * ev->alloc : 16;
		ev->stack = realloc(ev->stack, ev->alloc * sizeof(*ev->stack));
		if (!ev->stack)
			abort();
	}
	memset(&ev->stack[ev->depth], 0, sizeof(ev->stack[0]));
	ev->stack[ev->depth].is_map = is_map;
	ev->stack[ev->depth].expect_key = 1;
	ev->depth++;
}

static void pop(struct events *ev)
{
	struct keyset *k = &ev->stack[--ev->depth];
	for (size_t i = 0; i < k->nr; i++)
		free(k->keys[i]);
	free(k->keys);
}

/* A node (scalar text or NULL for a collection) was completed at the top. */
static void node_done(struct events *ev, const char *scalar, int starting)
{
	if (!ev->depth)
		return;
	struct keyset *k = &ev->stack[ev->depth - 1];
	if (!k->is_map)
		return;
	if (k->expect_key && scalar) {
		for (size_t i = 0; i < k->nr; i++)
			if (!strcmp(k->keys[i], scalar))
				ev->dup = 1;
		if (k->nr == k->alloc) {
			k->alloc = k->alloc ? 2 * k->alloc : 8;
			k->keys = realloc(k->keys, k->alloc * sizeof(*k->keys));
			if (!k->keys)
				abort();
		}
		k->keys[k->nr++] = strdup(scalar);
	}
	(void)starting;
	k->expect_key = !k->expect_key;
}

static void add_anchor(struct events *ev, const unsigned char *name,
		       const char *scalar)
{
	if (!name)
		return;
	if (ev->nr_anchors == ev->alloc_anchors) {
		ev->alloc_anchors = ev->alloc_anchors ? 2 * ev->alloc_anchors : 8;
		ev->anchors = realloc(ev->anchors,
				      ev->alloc_anchors * sizeof(*ev->anchors));
		if (!ev->anchors)
			abort();
	}
	ev->anchors[ev->nr_anchors].name = strdup((const char *)name);
	ev->anchors[ev->nr_anchors].scalar = scalar ? strdup(scalar) : NULL;
	ev->nr_anchors++;
}

static const char *anchor_scalar(struct events *ev, const unsigned char *name)
{
	for (size_t i = ev->nr_anchors; i-- > 0;)
		if (!strcmp(ev->anchors[i].name, (const char *)name))
			return ev->anchors[i].scalar;
	return NULL;
}

/*
 * Scan with the event API: count documents and find duplicate scalar keys.
 * Returns 0 when the stream parsed, -1 on a parse error.
 */
static int scan_events(const uint8_t *data, size_t len, struct events *ev)
{
	yaml_parser_t p;
	yaml_event_t e;
	int rc = 0, done = 0;
	if (!yaml_parser_initialize(&p))
		abort();
	yaml_parser_set_input_string(&p, data, len);
	yaml_parser_set_encoding(&p, YAML_UTF8_ENCODING);
	while (!done) {
		if (!yaml_parser_parse(&p, &e)) {
			rc = -1;
			break;
		}
		switch (e.type) {
		case YAML_STREAM_END_EVENT:
			done = 1;
			break;
		case YAML_DOCUMENT_START_EVENT:
			ev->documents++;
			break;
		case YAML_SCALAR_EVENT:
			add_anchor(ev, e.data.scalar.anchor,
				   (const char *)e.data.scalar.value);
			node_done(ev, (const char *)e.data.scalar.value, 0);
			break;
		case YAML_ALIAS_EVENT:
			node_done(ev, anchor_scalar(ev, e.data.alias.anchor), 0);
			break;
		case YAML_MAPPING_START_EVENT:
			add_anchor(ev, e.data.mapping_start.anchor, NULL);
			push(ev, 1);
			break;
		case YAML_SEQUENCE_START_EVENT:
			add_anchor(ev, e.data.sequence_start.anchor, NULL);
			push(ev, 0);
			break;
		case YAML_MAPPING_END_EVENT:
		case YAML_SEQUENCE_END_EVENT:
			if (ev->depth)
				pop(ev);
			node_done(ev, NULL, 0);
			break;
		default:
			break;
		}
		yaml_event_delete(&e);
	}
	yaml_parser_delete(&p);
	return rc;
}

static void events_release(struct events *ev)
{
	while (ev->depth)
		pop(ev);
	free(ev->stack);
	for (size_t i = 0; i < ev->nr_anchors; i++) {
		free(ev->anchors[i].name);
		free(ev->anchors[i].scalar);
	}
	free(ev->anchors);
}

static void check_raw(const uint8_t *data, size_t len)
{
	if (len > SUITE_MAX_BYTES)
		suite_fail("accepted a file over 1 MiB", NULL);
	if (memchr(data, '\0', len))
		suite_fail("accepted a file with a NUL byte", NULL);
	if (len >= 3 && data[0] == 0xef && data[1] == 0xbb && data[2] == 0xbf)
		suite_fail("accepted a file with a BOM", NULL);
	if (!utf8_valid(data, len))
		suite_fail("accepted invalid UTF-8", NULL);
	struct events ev;
	memset(&ev, 0, sizeof(ev));
	int rc = scan_events(data, len, &ev);
	int docs = ev.documents, dup = ev.dup;
	events_release(&ev);
	if (rc)
		suite_fail("accepted text that libyaml's event parser rejects", NULL);
	if (docs != 1)
		suite_fail("accepted a stream without exactly one document", NULL);
	if (dup)
		suite_fail("accepted a mapping with a duplicate key", NULL);
}

/* ---------------------------------------------------------------- */
/* Model rules.                                                      */

static int name_ok(const char *s)
{
	if (!s || !*s)
		return 0;
	for (const char *p = s; *p; p++) {
		char c = *p;
		int alnum = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') ||
			    (c >= '0' && c <= '9');
		if (p == s ? !alnum : !(alnum || c == '_' || c == '.' || c == '-'))
			return 0;
	}
	return 1;
}

static void check_string_vars(const char *s, unsigned allowed, int shell,
			      const char *what)
{
	struct sbuf err = SBUF_INIT;
	size_t off = 0;
	if (s && vars_check(s, allowed, shell, &off, &err)) {
		sbuf_addf(&err, "\nstring: %s", s);
		suite_fail(what, &err);
	}
	sbuf_release(&err);
}

static void check_path(const char *p, const char *what)
{
	if (!p)
		return;
	if (p[0] == '/' || p[0] == '~')
		suite_fail(what, NULL);
}

static void check_exec(const struct exec_spec *e, unsigned allowed)
{
	if (e->shell) {
		if (!e->script || !*e->script)
			suite_fail("accepted a shell command without a script", NULL);
		check_string_vars(e->script, allowed, 1,
				  "accepted a script with a disallowed variable");
	} else {
		if (e->argv.nr < 1 || !e->argv.v[0] || !*e->argv.v[0])
			suite_fail("accepted a command with an empty argv", NULL);
		for (size_t i = 0; i < e->argv.nr; i++)
			check_string_vars(e->argv.v[i], allowed, 0,
					  "accepted an argv item with a disallowed variable");
	}
	if (e->timeout_ns < 0 || e->timeout_ns > UNITS_MAX_DURATION_NS)
		suite_fail("accepted an exec timeout out of range", NULL);
	check_path(e->cwd, "accepted an absolute or '~' exec cwd");
}

static void check_percent(double p, const char *what)
{
	if (!(p > 0 && p <= 1000))
		suite_fail(what, NULL);
}

static void check_settings(const struct settings *s, unsigned allowed)
{
	if (s->warmup < 0 || s->warmup > 1000000)
		suite_fail("warmup out of range", NULL);
	if (s->runs < 0 || s->runs > 100000000)
		suite_fail("runs out of range", NULL);
	if (s->min_runs < 1 || s->max_runs < 1 || s->min_runs > s->max_runs)
		suite_fail("accepted min_runs > max_runs (or < 1)", NULL);
	if (s->min_time_ns < 0 || s->min_time_ns > UNITS_MAX_DURATION_NS)
		suite_fail("min_time out of range", NULL);
	if (s->timeout_ns <= 0 || s->timeout_ns > UNITS_MAX_DURATION_NS)
		suite_fail("timeout out of range", NULL);
	if (s->runs_per_round < 1)
		suite_fail("runs_per_round < 1", NULL);
	if (s->nr_exit_codes < 1 || !s->exit_codes)
		suite_fail("no exit codes", NULL);
	check_path(s->cwd, "accepted an absolute or '~' cwd");
	for (size_t i = 0; i < s->env.nr; i++) {
		const char *eq = strchr(s->env.v[i], '=');
		if (!eq || eq == s->env.v[i])
			suite_fail("env entry without NAME=", NULL);
		check_string_vars(eq + 1, allowed, 0,
				  "accepted an env value with a disallowed variable");
	}
	const struct regression_cfg *r = &s->regression;
	if (!(r->confidence >= 0.5 && r->confidence <= 0.999))
		suite_fail("confidence out of range", NULL);
	if (r->resamples < 100 || r->min_samples < 2)
		suite_fail("resamples or min_samples out of range", NULL);
	if (!(r->max_cv >= 0))
		suite_fail("max_cv out of range", NULL);
	for (int m = 0; m < METRIC__COUNT; m++)
		if (r->metric[m].compare || r->metric[m].configured)
			check_percent(r->metric[m].max_percent,
				      "accepted max_percent outside (0, 1000]");
	const struct throughput_work *w = &s->metrics.throughput;
	if (w->kind == WORK_FILE_SIZE)
		check_path(w->file, "accepted an absolute file_size path");
}

static void check_budget(const struct budget *b)
{
	if ((int)b->metric < 0 || b->metric >= METRIC__COUNT)
		suite_fail("budget metric out of range", NULL);
	const struct metric_info *mi = metric_get(b->metric);
	if (mi->better == BETTER_LOWER && (b->op == BUDGET_GT || b->op == BUDGET_GE))
		suite_fail("accepted '>' budget on a lower-is-better metric", NULL);
	if (mi->better == BETTER_HIGHER && (b->op == BUDGET_LT || b->op == BUDGET_LE))
		suite_fail("accepted '<' budget on a higher-is-better metric", NULL);
	if (b->aggregation == AGG_PERCENTILE &&
	    !(b->percentile > 0 && b->percentile < 100))
		suite_fail("accepted a percentile outside (0, 100)", NULL);
	if (b->limit != b->limit)
		suite_fail("accepted a NaN budget", NULL);
}

static void check_model(const struct suite *s)
{
	if (!s->version || strcmp(s->version, "1"))
		suite_fail("accepted a version other than \"1\"", NULL);
	if (!s->name || !*s->name)
		suite_fail("accepted a suite without a name", NULL);
	if (s->nr_benches < 1)
		suite_fail("accepted a suite without benchmarks", NULL);
	unsigned allowed = VAR_ALL & ~(s->build ? 0u : (unsigned)VAR_ARTIFACT);
	if (s->build)
		check_exec(s->build, VAR_ALL & ~(unsigned)VAR_WORKDIR);
	check_settings(&s->defaults, allowed);
	for (size_t i = 0; i < s->nr_benches; i++) {
		const struct bench_spec *b = &s->benches[i];
		if (!b->name || !*b->name)
			suite_fail("accepted a benchmark without a name", NULL);
		for (size_t j = 0; j < i; j++)
			if (!strcmp(s->benches[j].name, b->name))
				suite_fail("accepted two benchmarks with one name", NULL);
		if (b->nr_commands < 1)
			suite_fail("accepted a benchmark without commands", NULL);
		check_settings(&b->settings, allowed);
		for (size_t k = 0; k < b->nr_setup; k++)
			check_exec(&b->setup[k], allowed);
		for (size_t k = 0; k < b->nr_prepare_each; k++)
			check_exec(&b->prepare_each[k], allowed);
		for (size_t k = 0; k < b->nr_cleanup; k++)
			check_exec(&b->cleanup[k], allowed);
		if (b->stdin_spec.kind == STDIN_FILE)
			check_path(b->stdin_spec.value, "accepted an absolute stdin path");
		if (b->terminal && b->settings.stderr_path)
			suite_fail("accepted terminal: true with stderr set", NULL);
		int baseline_found = !b->baseline;
		for (size_t c = 0; c < b->nr_commands; c++) {
			const struct command_spec *cs = &b->commands[c];
			if (!name_ok(cs->name))
				suite_fail("accepted a bad command name", NULL);
			for (size_t d = 0; d < c; d++)
				if (!strcmp(b->commands[d].name, cs->name))
					suite_fail("accepted two commands with one name", NULL);
			if (b->baseline && !strcmp(b->baseline, cs->name))
				baseline_found = 1;
			check_exec(&cs->exec, allowed);
			check_settings(&cs->settings, allowed);
			for (size_t k = 0; k < cs->nr_budgets; k++)
				check_budget(&cs->budgets[k]);
		}
		if (!baseline_found)
			suite_fail("accepted a baseline that names no command", NULL);
	}
}

/* ---------------------------------------------------------------- */
/* A textual dump of the model, for the determinism check.           */

static void dump_str(struct sbuf *o, const char *k, const char *v)
{
	sbuf_addf(o, "%s=%s\n", k, v ? v : "(null)");
}

static void dump_vec(struct sbuf *o, const char *k, const struct strvec *v)
{
	sbuf_addf(o, "%s[%zu]", k, v->nr);
	for (size_t i = 0; i < v->nr; i++)
		sbuf_addf(o, " <%s>", v->v[i]);
	sbuf_addch(o, '\n');
}

static void dump_exec(struct sbuf *o, const struct exec_spec *e)
{
	sbuf_addf(o, "exec shell=%d timeout=%lld at %d:%d\n", e->shell,
		  (long long)e->timeout_ns, e->loc.line, e->loc.col);
	dump_vec(o, "argv", &e->argv);
	dump_str(o, "script", e->script);
	dump_str(o, "cwd", e->cwd);
	dump_vec(o, "env", &e->env);
}

static void dump_settings(struct sbuf *o, const struct settings *s)
{
	sbuf_addf(o, "settings %d %d %d %d %lld %lld %d %d\n", s->warmup, s->runs,
		  s->min_runs, s->max_runs, (long long)s->min_time_ns,
		  (long long)s->timeout_ns, s->runs_per_round, (int)s->order);
	dump_str(o, "cwd", s->cwd);
	dump_vec(o, "env", &s->env);
	dump_str(o, "stdout", s->stdout_path);
	dump_str(o, "stderr", s->stderr_path);
	for (size_t i = 0; i < s->nr_exit_codes; i++)
		sbuf_addf(o, "exit %d\n", s->exit_codes[i]);
	const struct metrics_cfg *m = &s->metrics;
	sbuf_addf(o, "metrics %d %d %d %x %d %d %d %d %.17g\n", m->cpu, m->memory,
		  (int)m->counters, m->counters_list, (int)m->instrument,
		  m->allocations, m->unsupported_skip, (int)m->throughput.kind,
		  m->throughput.value);
	dump_str(o, "work.file", m->throughput.file);
	dump_str(o, "work.unit", m->throughput.unit);
	const struct regression_cfg *r = &s->regression;
	sbuf_addf(o, "regression %d %d %d %.17g %d %.17g\n", (int)r->pairing,
		  (int)r->correction, r->resamples, r->confidence, r->min_samples,
		  r->max_cv);
	dump_vec(o, "commands", &r->commands);
	for (int i = 0; i < METRIC__COUNT; i++) {
		const struct metric_regression *mr = &r->metric[i];
		sbuf_addf(o, "metric %d: %d %d %d %.17g %.17g %d\n", i, mr->configured,
			  mr->compare, (int)mr->statistic, mr->max_percent,
			  mr->min_difference, mr->gate);
	}
}

static void dump_suite(struct sbuf *o, const struct suite *s)
{
	dump_str(o, "file", s->file);
	dump_str(o, "dir", s->dir);
	dump_str(o, "root", s->root);
	dump_str(o, "version", s->version);
	dump_str(o, "name", s->name);
	dump_str(o, "description", s->description);
	if (s->build)
		dump_exec(o, s->build);
	dump_settings(o, &s->defaults);
	for (size_t i = 0; i < s->nr_benches; i++) {
		const struct bench_spec *b = &s->benches[i];
		dump_str(o, "bench", b->name);
		dump_str(o, "description", b->description);
		dump_vec(o, "tags", &b->tags);
		sbuf_addf(o, "stdin %d terminal %d\n", (int)b->stdin_spec.kind,
			  b->terminal);
		dump_str(o, "stdin", b->stdin_spec.value);
		for (size_t k = 0; k < b->nr_setup; k++)
			dump_exec(o, &b->setup[k]);
		for (size_t k = 0; k < b->nr_prepare_each; k++)
			dump_exec(o, &b->prepare_each[k]);
		for (size_t k = 0; k < b->nr_cleanup; k++)
			dump_exec(o, &b->cleanup[k]);
		dump_str(o, "baseline", b->baseline);
		dump_settings(o, &b->settings);
		for (size_t c = 0; c < b->nr_commands; c++) {
			const struct command_spec *cs = &b->commands[c];
			dump_str(o, "command", cs->name);
			dump_exec(o, &cs->exec);
			dump_settings(o, &cs->settings);
			for (size_t k = 0; k < cs->nr_budgets; k++) {
				const struct budget *bu = &cs->budgets[k];
				sbuf_addf(o, "budget %d %d %.17g %d %.17g\n",
					  (int)bu->metric, (int)bu->aggregation,
					  bu->percentile, (int)bu->op, bu->limit);
				dump_str(o, "agg", bu->aggregation_name);
				dump_str(o, "limit", bu->limit_text);
				dump_str(o, "unit", bu->unit);
			}
		}
	}
	for (size_t i = 0; i < s->nr_outputs; i++) {
		dump_str(o, "out.format", s->outputs[i].format);
		dump_str(o, "out.path", s->outputs[i].path);
		dump_str(o, "out.section", s->outputs[i].section);
	}
	for (size_t i = 0; i < s->nr_versions; i++) {
		dump_str(o, "tool", s->versions[i].tool);
		dump_vec(o, "argv", &s->versions[i].argv);
	}
}

/* ---------------------------------------------------------------- */

static void check_messages(const struct sbuf *errs)
{
	static const char prefix[] = SUITE_FUZZ_FILE ":";
	if (!errs->len)
		suite_fail("rejected without a message", NULL);
	if (errs->buf[errs->len - 1] != '\n')
		suite_fail("messages do not end with a newline", errs);
	const char *line = errs->buf;
	while (*line) {
		const char *nl = strchr(line, '\n');
		if (strncmp(line, prefix, sizeof(prefix) - 1))
			suite_fail("a message does not start with FILE:", errs);
		const char *p = line + sizeof(prefix) - 1;
		if (*p != ' ') {
			char *end;
			long l = strtol(p, &end, 10);
			if (end == p || l < 1 || *end != ':')
				suite_fail("a message has a bad line number", errs);
			p = end + 1;
			long c = strtol(p, &end, 10);
			if (end == p || c < 1 || *end != ':' || end[1] != ' ')
				suite_fail("a message has a bad column number", errs);
		}
		line = nl + 1;
	}
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct sbuf e1 = SBUF_INIT, e2 = SBUF_INIT;
	struct sbuf d1 = SBUF_INIT, d2 = SBUF_INIT;
	struct suite *s1 = suite_load_mem(SUITE_FUZZ_FILE, (const char *)data, size, &e1);
	struct suite *s2 = suite_load_mem(SUITE_FUZZ_FILE, (const char *)data, size, &e2);

	if (!s1 != !s2)
		suite_fail("two loads of the same text disagree", NULL);
	if (e1.len != e2.len || (e1.len && memcmp(e1.buf, e2.buf, e1.len)))
		suite_fail("two loads of the same text give different messages", &e1);
	if (s1) {
		if (e1.len)
			suite_fail("accepted with messages", &e1);
		check_raw(data, size);
		check_model(s1);
		dump_suite(&d1, s1);
		dump_suite(&d2, s2);
		if (d1.len != d2.len || memcmp(d1.buf, d2.buf, d1.len))
			suite_fail("two loads of the same text give different models", &d1);
	} else {
		check_messages(&e1);
	}
	suite_free(s1);
	suite_free(s2);
	sbuf_release(&e1);
	sbuf_release(&e2);
	sbuf_release(&d1);
	sbuf_release(&d2);
	return 0;
}
