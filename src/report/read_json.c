/*
 * report/read_json: a saved JSON report back into a run_result
 * (read_json.h). The document and its outer levels are read here: the
 * commands, benchmarks and suites (a command's metrics, comparisons,
 * settings, budgets and profile in read_json_metrics.c, the typed getters
 * in read_json_fields.c; read_json_internal.h), environment, git, shard,
 * acceptances, summary, the exact seed read from its text, then the root
 * and report_read_json().
 */
#include "report/read_json.h"

#include <errno.h>
#include <jansson.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>

#include "base/xalloc.h"
#include "report/read_json_internal.h"

static void read_command(struct rd *d, json_t *o, struct command_result *c)
{
	rj_get_string(d, o, "name", &c->name);
	if (!c->name)
		rj_fail(d, "name", "missing");
	rj_get_string(d, o, "command", &c->command);
	rj_get_result(d, o, "result", &c->result);
	rj_get_int(d, o, "rounds", &c->rounds, 0, INT_MAX);
	rj_get_bool(d, o, "identical_artifact", &c->identical_artifact);
	rj_get_bool(d, o, "stopped_by_max_time", &c->out_of_time);
	rj_get_bool(d, o, "stopped_by_suite_max_time", &c->max_time_reached);
	json_t *mx = rj_get_object(d, o, "matrix", 0);
	if (mx) {
		const char *k;
		json_t *v;
		json_object_foreach(mx, k, v)
		{
			if (!json_is_string(v)) {
				rj_expected(d, "matrix", "an object of strings", v);
				break;
			}
			strvec_push(&c->matrix_names, k);
			strvec_push(&c->matrix_values, json_string_value(v));
		}
	}
	rj_get_string(d, o, "error", &c->error);
	rj_get_string(d, o, "stderr_tail", &c->stderr_tail);
	static const char *const side_keys[SIDE__COUNT] = {
	    [SIDE_BASE] = "base", [SIDE_HEAD] = "head"};
	for (int sd = 0; sd < SIDE__COUNT && !d->failed; sd++) {
		json_t *so = rj_get_object(d, o, side_keys[sd], 0);
		if (!so)
			continue;
		size_t old = rj_enter_key(d, side_keys[sd]);
		rj_read_side(d, so, &c->side[sd], c);
		rj_leave(d, old);
	}
	if (!d->failed)
		rj_read_by_metric(d, o, "comparisons", rj_comparison_metric, c);
	if (!d->failed)
		c->budgets = rj_read_objects(d, o, "budgets", 0, sizeof(*c->budgets),
					     &c->nr_budgets, rj_read_budget_item);
	json_t *an = d->failed ? NULL : rj_get_object(d, o, "analysis", 0);
	if (an) {
		size_t old = rj_enter_key(d, "analysis");
		rj_read_analysis(d, an, &c->analysis);
		/* The bootstrap's cost, as a suite's is capped (load_settings.c):
		   a report is as untrusted as a file can be. */
		size_t n = 0;
		for (int sd = 0; sd < SIDE__COUNT; sd++)
			for (int m = 0; m < METRIC__COUNT; m++)
				if (c->side[sd].metric[m].nr > n)
					n = c->side[sd].metric[m].nr;
		if (!d->failed && (double)c->analysis.resamples * (double)n >
				      (double)SETTINGS_MAX_BOOTSTRAP_DRAWS)
			rj_fail(d, "resamples",
				"%d resamples x %zu samples per side is %.0f bootstrap draws per "
				"comparison, more than the limit of %lld (docs/statistics.md)",
				c->analysis.resamples, n, (double)c->analysis.resamples * (double)n,
				SETTINGS_MAX_BOOTSTRAP_DRAWS);
		rj_leave(d, old);
	}
	json_t *pr = d->failed ? NULL : rj_get_object(d, o, "profile", 0);
	if (pr) {
		size_t old = rj_enter_key(d, "profile");
		rj_read_profile(d, pr, c);
		rj_leave(d, old);
	}
}

static void read_strings(struct rd *d, json_t *arr, struct strvec *sv)
{
	size_t i;
	json_t *x;
	json_array_foreach(arr, i, x)
	{
		if (!json_is_string(x)) {
			size_t old = rj_enter_index(d, i);
			rj_expected(d, NULL, "a string", x);
			rj_leave(d, old);
			return;
		}
		strvec_push(sv, json_string_value(x));
	}
}

static void read_command_item(struct rd *d, json_t *o, void *item)
{
	read_command(d, o, item);
}

static void read_bench(struct rd *d, json_t *o, struct bench_result *b)
{
	rj_get_string(d, o, "name", &b->name);
	if (!b->name)
		rj_fail(d, "name", "missing");
	json_t *tags = rj_get_array(d, o, "tags", 0);
	if (tags) {
		size_t old = rj_enter_key(d, "tags");
		read_strings(d, tags, &b->tags);
		rj_leave(d, old);
	}
	rj_get_result(d, o, "result", &b->result);
	rj_get_int(d, o, "rounds", &b->rounds, 0, INT_MAX);
	rj_get_int(d, o, "line", &b->line, 0, INT_MAX);
	rj_get_string(d, o, "baseline", &b->baseline);
	rj_get_bool(d, o, "compare_with_baseline", &b->compare_baseline);
	if (!d->failed)
		b->commands = rj_read_objects(d, o, "commands", 1, sizeof(*b->commands),
					      &b->nr_commands, read_command_item);
}

static void read_bench_item(struct rd *d, json_t *o, void *item)
{
	struct bench_result *b = item;
	strvec_init(&b->tags);
	read_bench(d, o, b);
}

static void read_suite(struct rd *d, json_t *o, struct suite_result *s)
{
	rj_get_string(d, o, "name", &s->name);
	if (!s->name)
		rj_fail(d, "name", "missing");
	rj_get_string(d, o, "file", &s->file);
	rj_get_result(d, o, "result", &s->result);
	rj_get_string(d, o, "suite_from", &s->suite_from);
	/* Older reports lack "gating": every suite of theirs gated. */
	int gating = 1;
	rj_get_bool(d, o, "gating", &gating);
	s->not_gating = !gating;
	if (!d->failed)
		s->benches = rj_read_objects(d, o, "benchmarks", 1, sizeof(*s->benches),
					     &s->nr_benches, read_bench_item);
}

static void read_suite_item(struct rd *d, json_t *o, void *item)
{
	read_suite(d, o, item);
}

static void read_environment(struct rd *d, json_t *o, struct environment_info *e)
{
	rj_get_string(d, o, "os", &e->os);
	rj_get_string(d, o, "kernel", &e->kernel);
	rj_get_string(d, o, "arch", &e->arch);
	rj_get_string(d, o, "cpu_model", &e->cpu_model);
	rj_get_int(d, o, "logical_cpus", &e->logical_cpus, 0, INT_MAX);
	rj_get_bool(d, o, "ci", &e->ci);
	rj_get_string(d, o, "counters_source", &e->counters_source);
	rj_get_string(d, o, "valgrind_version", &e->valgrind_version);
	e->steal_percent = rj_get_number(d, o, "steal_percent");
}

static void read_git(struct rd *d, json_t *o, struct git_info *g)
{
	rj_get_string(d, o, "head_sha", &g->head_sha);
	g->dirty = -1;
	rj_get_bool(d, o, "dirty", &g->dirty);
	rj_get_string(d, o, "base_ref", &g->base_ref);
	rj_get_string(d, o, "base_sha", &g->base_sha);
}

/* The shard record (write_json.c's emit_shard()). */
static void read_shard(struct rd *d, json_t *o, struct shard_record *sh)
{
	sh->present = 1;
	sh->index = sh->count = 0;
	rj_get_int(d, o, "index", &sh->index, 1, 1024);
	rj_get_int(d, o, "count", &sh->count, 1, 1024);
	rj_get_bool(d, o, "replicate", &sh->replicate);
	rj_get_string(d, o, "selection", &sh->selection);
	rj_get_int(d, o, "benchmarks", &sh->benchmarks, 0, INT_MAX);
	rj_get_string(d, o, "run_id", &sh->run_id);
	rj_get_string(d, o, "split", &sh->split);
	rj_get_string(d, o, "assignment", &sh->assignment);
	rj_get_int(d, o, "merged_from", &sh->merged_from, 1, INT_MAX);
	if (d->failed)
		return;
	if (!sh->index || !sh->count)
		rj_fail(d, !sh->index ? "index" : "count", "missing");
	else if (sh->index > sh->count)
		rj_fail(d, "index", "%d is above the count, %d", sh->index, sh->count);
	else if (!sh->run_id || !*sh->run_id)
		rj_fail(d, "run_id", "missing");
	else if (!sh->selection)
		sh->selection = xstrdup("");
}

static void read_acceptance_item(struct rd *d, json_t *o, void *item)
{
	struct acceptance *a = item;
	char *metric = NULL;
	rj_get_string(d, o, "commit", &a->commit);
	rj_get_string(d, o, "benchmark", &a->benchmark);
	rj_get_string(d, o, "command", &a->command);
	rj_get_string(d, o, "metric", &metric);
	a->max_percent = rj_number_value(d, "max_percent", json_object_get(o, "max_percent"));
	int m = metric ? metric_lookup(metric) : -1;
	if (!a->commit || !a->benchmark || !a->command)
		rj_fail(d,
			!a->commit	? "commit"
			: !a->benchmark ? "benchmark"
					: "command",
			"missing");
	else if (m < 0)
		rj_fail(d, "metric", "not a metric");
	else if (!(a->max_percent > 0))
		rj_fail(d, "max_percent", "not a number above 0");
	a->metric = m < 0 ? METRIC_LATENCY : (enum metric_id)m;
	free(metric);
}

static void read_summary(struct rd *d, json_t *o, struct run_summary *s)
{
	rj_get_int(d, o, "benchmarks", &s->benchmarks, 0, INT_MAX);
	rj_get_int(d, o, "commands", &s->commands, 0, INT_MAX);
	rj_get_int(d, o, "pass", &s->pass, 0, INT_MAX);
	rj_get_int(d, o, "improved", &s->improved, 0, INT_MAX);
	rj_get_int(d, o, "inconclusive", &s->inconclusive, 0, INT_MAX);
	rj_get_int(d, o, "accepted", &s->accepted, 0, INT_MAX);
	rj_get_int(d, o, "regression", &s->regression, 0, INT_MAX);
	rj_get_int(d, o, "over_budget", &s->over_budget, 0, INT_MAX);
	rj_get_int(d, o, "error", &s->error, 0, INT_MAX);
	json_t *ec = json_object_get(o, "exit_code");
	if (!ec || json_is_null(ec))
		rj_fail(d, "exit_code", "missing");
	s->exit_code = -1;
	rj_get_int(d, o, "exit_code", &s->exit_code, 0, 6);
}

/*
 * The raw text of the top-level member `key` of the JSON object in
 * text[0..len), which jansson has already accepted (so it is valid and its
 * keys are unique). Keys are compared as written, without decoding escapes:
 * kagari's writer never escapes an ASCII letter. Returns NULL when absent.
 */
static const char *skip_ws(const char *p, const char *end)
{
	while (p < end && (*p == ' ' || *p == '\t' || *p == '\n' || *p == '\r'))
		p++;
	return p;
}

static const char *skip_string(const char *p, const char *end)
{
	for (p++; p < end && *p != '"'; p++)
		if (*p == '\\')
			p++;
	return p < end ? p + 1 : end;
}

static const char *skip_value(const char *p, const char *end)
{
	if (p < end && *p == '"')
		return skip_string(p, end);
	if (p < end && (*p == '{' || *p == '[')) {
		int depth = 0;
		while (p < end) {
			if (*p == '"') {
				p = skip_string(p, end);
				continue;
			}
			if (*p == '{' || *p == '[')
				depth++;
			else if ((*p == '}' || *p == ']') && --depth == 0)
				return p + 1;
			p++;
		}
		return end;
	}
	while (p < end && !strchr(",}] \t\r\n", *p))
		p++;
	return p;
}

static const char *raw_member(const char *text, size_t len, const char *key, size_t *vlen)
{
	const char *p = text, *end = text + len;
	size_t klen = strlen(key);
	p = skip_ws(p, end);
	if (p >= end || *p != '{')
		return NULL;
	p++;
	for (;;) {
		p = skip_ws(p, end);
		if (p >= end || *p != '"')
			return NULL;
		const char *k = p + 1;
		p = skip_string(p, end);
		size_t kn = (size_t)(p - 1 - k);
		p = skip_ws(p, end);
		if (p >= end || *p != ':')
			return NULL;
		p = skip_ws(p + 1, end);
		const char *v = p;
		p = skip_value(p, end);
		if (kn == klen && !memcmp(k, key, klen)) {
			*vlen = (size_t)(p - v);
			return v;
		}
		p = skip_ws(p, end);
		if (p >= end || *p != ',')
			return NULL;
		p++;
	}
}

static void read_seed(struct rd *d, const char *text, size_t len, json_t *root,
		      struct run_result *r)
{
	json_t *v = json_object_get(root, "seed");
	if (!v || json_is_null(v))
		return;
	if (!json_is_number(v)) {
		rj_expected(d, "seed", "a number", v);
		return;
	}
	size_t n = 0;
	const char *raw = raw_member(text, len, "seed", &n);
	char *s = raw ? xstrndup(raw, n) : NULL;
	if (!s || !*s || strspn(s, "0123456789") != n) {
		rj_fail(d, "seed", "expected a whole number between 0 and 2^64-1");
	} else {
		errno = 0;
		unsigned long long x = strtoull(s, NULL, 10);
		if (errno == ERANGE)
			rj_fail(d, "seed", "'%s' is out of range (at most 2^64-1)", s);
		else
			r->seed = (uint64_t)x;
	}
	free(s);
}

static void read_root(struct rd *d, const char *text, size_t len, json_t *root,
		      struct run_result *r)
{
	json_t *sv = json_object_get(root, "schema_version");
	if (!sv) {
		rj_fail(d, "schema_version", "missing (is this a kagari JSON report?)");
		return;
	}
	/* The number 1 is the same version, as aa and history once wrote it. */
	int old_form = json_is_number(sv) && json_number_value(sv) == 1;
	if (!old_form &&
	    (!json_is_string(sv) || strcmp(json_string_value(sv), REPORT_SCHEMA_VERSION))) {
		struct sbuf t = SBUF_INIT;
		if (json_is_string(sv))
			sbuf_adds(&t, json_string_value(sv));
		else
			sbuf_adds(&t, rj_type_name(sv));
		rj_fail(d, "schema_version",
			"unknown schema version '%s' (this version of kagari reads \"%s\")", t.buf,
			REPORT_SCHEMA_VERSION);
		sbuf_release(&t);
		return;
	}
	json_t *tool = json_object_get(root, "tool");
	if (!json_is_string(tool) || strcmp(json_string_value(tool), "kagari")) {
		rj_fail(d, "tool", "not a kagari report (expected \"kagari\")");
		return;
	}
	rj_get_string(d, root, "mode", &r->mode);
	read_seed(d, text, len, root, r);
	rj_get_string(d, root, "started_at", &r->started_at);
	rj_get_string(d, root, "finished_at", &r->finished_at);
	rj_get_bool(d, root, "interrupted", &r->interrupted);
	json_t *o = rj_get_object(d, root, "environment", 0);
	if (o && !d->failed) {
		size_t old = rj_enter_key(d, "environment");
		read_environment(d, o, &r->env);
		rj_leave(d, old);
	}
	o = rj_get_object(d, root, "git", 0);
	if (o && !d->failed) {
		size_t old = rj_enter_key(d, "git");
		read_git(d, o, &r->git);
		rj_leave(d, old);
	}
	o = rj_get_object(d, root, "shard", 0);
	if (o && !d->failed) {
		size_t old = rj_enter_key(d, "shard");
		read_shard(d, o, &r->shard);
		rj_leave(d, old);
	}
	if (!d->failed) {
		size_t n = 0;
		struct acceptance *acc = rj_read_objects(d, root, "acceptances", 0, sizeof(*acc),
							 &n, read_acceptance_item);
		r->accepts = acc;
		r->nr_accepts = n;
	}
	json_t *a = rj_get_array(d, root, "warnings", 0);
	if (a && !d->failed) {
		size_t old = rj_enter_key(d, "warnings");
		read_strings(d, a, &r->warnings);
		rj_leave(d, old);
	}
	if (!d->failed) {
		free(r->suites);
		r->suites = rj_read_objects(d, root, "suites", 1, sizeof(*r->suites), &r->nr_suites,
					    read_suite_item);
	}
	o = rj_get_object(d, root, "summary", 1);
	if (o && !d->failed) {
		size_t old = rj_enter_key(d, "summary");
		read_summary(d, o, &r->summary);
		rj_leave(d, old);
	}
	rj_get_string(d, root, "exit_reason", &r->exit_reason);
}

int report_read_json(const char *text, size_t len, const char *file, struct run_result *r,
		     struct sbuf *err)
{
	json_error_t je;
	/*
	 * Integers as reals: the model keeps doubles, and integral values
	 * above 2^63 would otherwise fail to load. The seed, the one value
	 * that must stay exact, is read from its own text.
	 */
	json_t *root = json_loadb(
	    text, len, JSON_REJECT_DUPLICATES | JSON_DECODE_INT_AS_REAL | JSON_ALLOW_NUL, &je);
	if (!root) {
		sbuf_addf(err, "%s:%d:%d: invalid JSON: %s", file, je.line, je.column, je.text);
		return -1;
	}
	struct rd d = {file, err, SBUF_INIT, 0};
	if (!json_is_object(root))
		rj_fail(&d, NULL, "not a kagari JSON report (expected an object, not %s)",
			rj_type_name(root));
	else
		read_root(&d, text, len, root, r);
	json_decref(root);
	sbuf_release(&d.path);
	return d.failed ? -1 : 0;
}
