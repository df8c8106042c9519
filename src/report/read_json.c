/*
 * report/read_json: a saved JSON report back into a run_result
 * (read_json.h). Laid out bottom-up: the field path kept for messages;
 * typed getters; readers per level (stats, samples, metric, side,
 * comparison, analysis settings, budget, profile, command, benchmark, suite,
 * environment, git, summary); the exact seed read from its text; then the
 * root and report_read_json().
 */
#include "report/read_json.h"

#include <errno.h>
#include <jansson.h>
#include <limits.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "base/xalloc.h"

/* The reader's state: where we are (for messages) and the first error. */
struct rd {
	const char *file;
	struct sbuf *err;
	struct sbuf path; /* "suites[0].benchmarks[1]" */
	int failed;
};

/* Enter a member or element; returns the length to restore with leave(). */
static size_t enter_key(struct rd *d, const char *key)
{
	size_t old = d->path.len;
	if (d->path.len)
		sbuf_addch(&d->path, '.');
	sbuf_adds(&d->path, key);
	return old;
}

static size_t enter_index(struct rd *d, size_t i)
{
	size_t old = d->path.len;
	sbuf_addf(&d->path, "[%zu]", i);
	return old;
}

static void leave(struct rd *d, size_t old)
{
	sbuf_setlen(&d->path, old);
}

static void fail(struct rd *d, const char *key, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

/* Record the first error, at the current path (plus key when not NULL). */
static void fail(struct rd *d, const char *key, const char *fmt, ...)
{
	if (d->failed)
		return;
	d->failed = 1;
	sbuf_addf(d->err, "%s: ", d->file);
	if (d->path.len || key) {
		sbuf_adds(d->err, d->path.buf);
		if (key)
			sbuf_addf(d->err, "%s%s", d->path.len ? "." : "", key);
		sbuf_adds(d->err, ": ");
	}
	va_list ap;
	va_start(ap, fmt);
	sbuf_vaddf(d->err, fmt, ap);
	va_end(ap);
}

static const char *type_name(const json_t *v)
{
	switch (json_typeof(v)) {
	case JSON_OBJECT:
		return "an object";
	case JSON_ARRAY:
		return "an array";
	case JSON_STRING:
		return "a string";
	case JSON_INTEGER:
	case JSON_REAL:
		return "a number";
	case JSON_TRUE:
	case JSON_FALSE:
		return "a boolean";
	default:
		return "null";
	}
}

static void expected(struct rd *d, const char *key, const char *what,
		     const json_t *v)
{
	fail(d, key, "expected %s, not %s", what, type_name(v));
}

/* obj.key when it is an object; absent or null gives NULL. */
static json_t *get_object(struct rd *d, json_t *obj, const char *key,
			  int required)
{
	json_t *v = json_object_get(obj, key);
	if (!v || json_is_null(v)) {
		if (required)
			fail(d, key, "missing");
		return NULL;
	}
	if (!json_is_object(v)) {
		expected(d, key, "an object", v);
		return NULL;
	}
	return v;
}

static json_t *get_array(struct rd *d, json_t *obj, const char *key,
			 int required)
{
	json_t *v = json_object_get(obj, key);
	if (!v || json_is_null(v)) {
		if (required)
			fail(d, key, "missing");
		return NULL;
	}
	if (!json_is_array(v)) {
		expected(d, key, "an array", v);
		return NULL;
	}
	return v;
}

/* Reads one object of an array into its (zeroed) item. */
typedef void read_item_fn(struct rd *d, json_t *o, void *item);

/*
 * obj[key] as an array of objects, read into a new zeroed array of `size`
 * byte items (the caller owns it; NULL when the key is absent or not an
 * array). *nr counts every item handed out, the one that failed included,
 * so that releasing the result frees whatever was read.
 */
static void *read_objects(struct rd *d, json_t *obj, const char *key,
			  int required, size_t size, size_t *nr, read_item_fn *fn)
{
	json_t *arr = get_array(d, obj, key, required);
	if (!arr || d->failed)
		return NULL;
	size_t n = json_array_size(arr);
	char *items = xcalloc(n + 1, size);
	size_t old = enter_key(d, key);
	for (size_t i = 0; i < n && !d->failed; i++) {
		json_t *x = json_array_get(arr, i);
		size_t o2 = enter_index(d, i);
		(*nr)++;
		if (!json_is_object(x))
			expected(d, NULL, "an object", x);
		else
			fn(d, x, items + i * size);
		leave(d, o2);
	}
	leave(d, old);
	return items;
}

/* A string or null (absent: NULL). *dst is replaced. */
static void get_string(struct rd *d, json_t *obj, const char *key, char **dst)
{
	json_t *v = json_object_get(obj, key);
	if (!v || json_is_null(v))
		return;
	if (!json_is_string(v)) {
		expected(d, key, "a string", v);
		return;
	}
	free(*dst);
	*dst = xstrdup(json_string_value(v));
}

/*
 * A command's, benchmark's or suite's result (model/verdict.h): one of its
 * names, or null or absent (RESULT_NONE: not analysed).
 */
static void get_result(struct rd *d, json_t *obj, const char *key,
			enum result *dst)
{
	char *name = NULL;
	get_string(d, obj, key, &name);
	int v = name ? result_parse(name) : RESULT_NONE;
	if (!d->failed && v < 0)
		fail(d, key, "unknown value '%s'", name);
	*dst = v < 0 ? RESULT_NONE : (enum result)v;
	free(name);
}

/* A number; null or absent is NAN. */
static double number_value(struct rd *d, const char *key, json_t *v)
{
	if (!v || json_is_null(v))
		return NAN;
	if (!json_is_number(v)) {
		expected(d, key, "a number", v);
		return NAN;
	}
	return json_number_value(v);
}

static double get_number(struct rd *d, json_t *obj, const char *key)
{
	return number_value(d, key, json_object_get(obj, key));
}

/* A whole number in [lo, hi]; absent or null leaves *dst as it is. */
static void get_int(struct rd *d, json_t *obj, const char *key, int *dst,
		    int lo, int hi)
{
	json_t *v = json_object_get(obj, key);
	if (!v || json_is_null(v))
		return;
	double x = number_value(d, key, v);
	if (d->failed)
		return;
	if (!(x >= lo && x <= hi) || x != floor(x)) {
		fail(d, key, "expected a whole number between %d and %d", lo, hi);
		return;
	}
	*dst = (int)x;
}

static void get_size(struct rd *d, json_t *obj, const char *key, size_t *dst)
{
	json_t *v = json_object_get(obj, key);
	if (!v || json_is_null(v))
		return;
	double x = number_value(d, key, v);
	if (d->failed)
		return;
	/* 2^53: every count a report holds is far below it. */
	if (!(x >= 0 && x <= 9007199254740992.0) || x != floor(x)) {
		fail(d, key, "expected a count (a whole number >= 0)");
		return;
	}
	*dst = (size_t)x;
}

/* true/false into 1/0; null or absent leaves *dst as it is. */
static void get_bool(struct rd *d, json_t *obj, const char *key, int *dst)
{
	json_t *v = json_object_get(obj, key);
	if (!v || json_is_null(v))
		return;
	if (!json_is_boolean(v)) {
		expected(d, key, "true or false", v);
		return;
	}
	*dst = json_is_true(v);
}

static int get_metric(struct rd *d, const char *key, const char *name)
{
	int m = metric_lookup(name);
	if (m < 0)
		fail(d, key, "unknown metric '%s'", name);
	return m;
}

/* Reads the object of one metric (the value of its key in a map). */
typedef void read_metric_fn(struct rd *d, json_t *o, enum metric_id m, void *ctx);

/*
 * obj[key] as an object keyed by metric name ("latency": {...}, ...), each
 * value an object handed to fn; an unknown name or a value that is not an
 * object fails with its path.
 */
static void read_by_metric(struct rd *d, json_t *obj, const char *key,
			   read_metric_fn *fn, void *ctx)
{
	json_t *map = get_object(d, obj, key, 0);
	if (!map || d->failed)
		return;
	size_t old = enter_key(d, key);
	const char *name;
	json_t *v;
	json_object_foreach(map, name, v) {
		int m = get_metric(d, name, name);
		if (d->failed)
			break;
		size_t o2 = enter_key(d, name);
		if (!json_is_object(v))
			expected(d, NULL, "an object", v);
		else
			fn(d, v, (enum metric_id)m, ctx);
		leave(d, o2);
		if (d->failed)
			break;
	}
	leave(d, old);
}

static void read_stats(struct rd *d, json_t *o, struct summary *s)
{
	get_size(d, o, "count", &s->count);
	s->min = get_number(d, o, "min");
	s->median = get_number(d, o, "median");
	s->mean = get_number(d, o, "mean");
	s->max = get_number(d, o, "max");
	s->stddev = get_number(d, o, "stddev");
	s->cv = get_number(d, o, "cv");
	s->robust_cv = get_number(d, o, "robust_cv");
	s->p90 = get_number(d, o, "p90");
	s->p95 = get_number(d, o, "p95");
	s->p99 = get_number(d, o, "p99");
}

static void read_samples(struct rd *d, json_t *arr, struct metric_series *ms)
{
	size_t i;
	json_t *x;
	json_array_foreach(arr, i, x) {
		size_t old = enter_index(d, i);
		if (!json_is_object(x)) {
			expected(d, NULL, "an object", x);
		} else {
			int round = 0, run = 0, pad = -1;
			get_int(d, x, "round", &round, 0, INT_MAX);
			get_int(d, x, "run", &run, 0, INT_MAX);
			get_int(d, x, "layout_pad", &pad, 0, INT_MAX);
			double v = get_number(d, x, "value");
			if (!d->failed) {
				metric_series_add(ms, v, round, run);
				ms->samples[ms->nr - 1].layout_pad = pad;
			}
		}
		leave(d, old);
		if (d->failed)
			return;
	}
}

static void read_metric(struct rd *d, json_t *o, enum metric_id m,
			struct metric_series *ms, struct command_result *cr)
{
	char *status = NULL, *unit = NULL;
	get_string(d, o, "status", &status);
	get_string(d, o, "unit", &unit);
	json_t *samples = get_array(d, o, "samples", 0);
	if (samples) {
		size_t old = enter_key(d, "samples");
		read_samples(d, samples, ms);
		leave(d, old);
	}
	json_t *stats = json_object_get(o, "stats");
	if (stats && !json_is_null(stats)) {
		if (!json_is_object(stats)) {
			expected(d, "stats", "an object", stats);
		} else {
			size_t old = enter_key(d, "stats");
			read_stats(d, stats, &ms->summary);
			ms->have_summary = 1;
			leave(d, old);
		}
	}
	enum metric_status st = MSTATUS_OK;
	if (!status)
		fail(d, "status", "missing");
	else if (!strcmp(status, "ok"))
		st = MSTATUS_OK;
	else if (!strcmp(status, "unsupported"))
		st = MSTATUS_UNSUPPORTED;
	else if (!strcmp(status, "failed"))
		st = MSTATUS_FAILED;
	else if (!strcmp(status, "absent"))
		st = MSTATUS_ABSENT;
	else
		fail(d, "status", "unknown metric status '%s'", status);
	json_t *reason = json_object_get(o, "reason");
	if (reason && !json_is_null(reason) && !json_is_string(reason))
		expected(d, "reason", "a string", reason);
	metric_series_set_status(ms, st, json_is_string(reason)
						 ? json_string_value(reason) : NULL);
	get_bool(d, o, "required", &ms->required);
	/* Throughput with a work unit is written "<unit>/s". */
	if (m == METRIC_THROUGHPUT && unit && !cr->throughput_unit) {
		size_t n = strlen(unit);
		if (n > 2 && !strcmp(unit + n - 2, "/s"))
			cr->throughput_unit = xstrndup(unit, n - 2);
	}
	free(status);
	free(unit);
}

struct side_ctx {
	struct side_result *sd;
	struct command_result *cr;
};

static void side_metric(struct rd *d, json_t *o, enum metric_id m, void *ctx)
{
	struct side_ctx *c = ctx;

	read_metric(d, o, m, &c->sd->metric[m], c->cr);
}

static void read_side(struct rd *d, json_t *o, struct side_result *sd,
		      struct command_result *cr)
{
	sd->present = 1;
	get_size(d, o, "count", &sd->count);
	struct side_ctx ctx = { sd, cr };

	read_by_metric(d, o, "metrics", side_metric, &ctx);
	json_t *runs = get_object(d, o, "runs", 0);
	if (!runs || d->failed)
		return;
	size_t old = enter_key(d, "runs");
	json_t *ec = get_array(d, runs, "exit_code", 1);
	json_t *us = get_array(d, runs, "cpu_user", 1);
	json_t *sy = get_array(d, runs, "cpu_system", 1);
	size_t n = ec ? json_array_size(ec) : 0;
	if (!d->failed && (json_array_size(us) != n || json_array_size(sy) != n))
		fail(d, NULL, "exit_code, cpu_user and cpu_system differ in length");
	for (size_t i = 0; i < n && !d->failed; i++) {
		json_t *e = json_array_get(ec, i);
		double ev = json_is_null(e) ? -1 : number_value(d, "exit_code", e);
		double u = number_value(d, "cpu_user", json_array_get(us, i));
		double y = number_value(d, "cpu_system", json_array_get(sy, i));
		if (!d->failed && (ev != floor(ev) || ev < -1 || ev > 255 || !(u >= 0) || !(y >= 0)))
			fail(d, NULL, "expected exit codes 0..255 (or null) and CPU times >= 0");
		if (!d->failed)
			side_result_add_run(sd, (int)ev, u, y);
	}
	leave(d, old);
}

static void read_double_array(struct rd *d, json_t *arr, double **v,
			      size_t *nr)
{
	size_t n = json_array_size(arr);
	*v = xcalloc(n + 1, sizeof(double));
	*nr = n;
	for (size_t i = 0; i < n; i++) {
		size_t old = enter_index(d, i);
		(*v)[i] = number_value(d, NULL, json_array_get(arr, i));
		leave(d, old);
	}
}

static void read_comparison(struct rd *d, json_t *o, struct comparison *c)
{
	c->present = 1;
	get_string(d, o, "statistic", &c->statistic);
	get_string(d, o, "pairing", &c->pairing);
	c->base = get_number(d, o, "base");
	c->head = get_number(d, o, "head");
	c->change_percent = get_number(d, o, "change_percent");
	c->ci_low_percent = get_number(d, o, "ci_low_percent");
	c->ci_high_percent = get_number(d, o, "ci_high_percent");
	c->confidence = get_number(d, o, "confidence");
	c->max_percent = get_number(d, o, "max_percent");
	c->p_value = get_number(d, o, "p_value");
	c->hl_shift_percent = get_number(d, o, "hl_shift_percent");
	c->noise_floor_percent = get_number(d, o, "noise_floor_percent");
	char *verdict = NULL;
	get_string(d, o, "verdict", &verdict);
	get_string(d, o, "reason", &c->reason);
	get_string(d, o, "accepted_by", &c->accepted_by);
	get_bool(d, o, "gate", &c->gate);
	c->p_reg = get_number(d, o, "p_regression");
	c->p_imp = get_number(d, o, "p_improvement");
	c->p_adjusted = get_number(d, o, "p_adjusted");
	get_bool(d, o, "control_failed", &c->control_failed);
	get_int(d, o, "decided_at_rounds", &c->decided_at_rounds, 0, INT_MAX);
	int vd = verdict_parse(verdict);
	if (!d->failed && vd < 0)
		fail(d, "verdict", verdict ? "unknown value '%s'" : "missing%s",
		     verdict ? verdict : "");
	c->verdict = vd < 0 ? VERDICT_NONE : (enum verdict)vd;
	free(verdict);
	json_t *dr = get_array(d, o, "dropped_rounds", 0);
	size_t n = dr ? json_array_size(dr) : 0;
	c->dropped_rounds = xcalloc(n + 1, sizeof(int));
	size_t old = enter_key(d, "dropped_rounds");
	for (size_t i = 0; i < n && !d->failed; i++) {
		json_t *x = json_array_get(dr, i);
		size_t o2 = enter_index(d, i);
		double v = number_value(d, NULL, x);
		if (!d->failed && (!(v >= 0 && v <= INT_MAX) || v != floor(v)))
			fail(d, NULL, "expected a round number");
		else
			c->dropped_rounds[c->nr_dropped_rounds++] = (int)v;
		leave(d, o2);
	}
	leave(d, old);
	json_t *bq = get_array(d, o, "bootstrap_quantiles", 0);
	if (bq) {
		old = enter_key(d, "bootstrap_quantiles");
		free(c->boot);
		read_double_array(d, bq, &c->boot, &c->nr_boot);
		c->boot_is_quantiles = 1;
		leave(d, old);
	}
}

/* One of names[0..n) into *dst; absent leaves *dst as it is. */
static void get_choice(struct rd *d, json_t *o, const char *key,
		       const char *const *names, int n, int *dst)
{
	char *v = NULL;
	get_string(d, o, key, &v);
	if (!v)
		return;
	int found = -1;
	for (int i = 0; i < n; i++)
		if (!strcmp(v, names[i]))
			found = i;
	if (found < 0)
		fail(d, key, "unknown value '%s'", v);
	else
		*dst = found;
	free(v);
}

static void read_metric_rule(struct rd *d, json_t *o, struct metric_rule *mr)
{
	static const char *const statistics[] = { [STATISTIC_MEDIAN] = "median",
						  [STATISTIC_MEAN] = "mean" };
	int st = STATISTIC_MEDIAN;
	mr->compare = 1;
	get_choice(d, o, "statistic", statistics, 2, &st);
	mr->statistic = (enum statistic)st;
	mr->max_percent = get_number(d, o, "max_percent");
	if (!d->failed && !(mr->max_percent >= 0))
		fail(d, "max_percent", "expected a number >= 0");
	mr->min_difference = get_number(d, o, "min_difference");
	if (isnan(mr->min_difference))
		mr->min_difference = -1;
	mr->gate = 1;
	get_bool(d, o, "gate", &mr->gate);
	get_bool(d, o, "configured", &mr->configured);
}

/* A command's `analysis` settings (write_json.c's emit_analysis()). */
static void analysis_metric(struct rd *d, json_t *o, enum metric_id m, void *ctx)
{
	struct analysis_settings *a = ctx;

	read_metric_rule(d, o, &a->metric[m]);
}

static void read_analysis(struct rd *d, json_t *o, struct analysis_settings *a)
{
	static const char *const pairings[] = { [PAIRING_ROUNDS] = "rounds",
						[PAIRING_INDEPENDENT] = "independent" };
	static const char *const corrections[] = { [CORRECTION_HOLM] = "holm",
						   [CORRECTION_NONE] = "none" };
	int v = PAIRING_ROUNDS;
	a->present = 1;
	get_choice(d, o, "pairing", pairings, 2, &v);
	a->pairing = (enum pairing)v;
	v = CORRECTION_HOLM;
	get_choice(d, o, "correction", corrections, 2, &v);
	a->correction = (enum correction)v;
	a->resamples = 2000;
	/* No more than a suite may ask for (a report is as untrusted as a
	   file can be: each resample is a pass over the samples). */
	get_int(d, o, "resamples", &a->resamples, 1, SETTINGS_MAX_RESAMPLES);
	a->confidence = get_number(d, o, "confidence");
	if (!d->failed && !(a->confidence > 0 && a->confidence < 1))
		fail(d, "confidence", "expected a number between 0 and 1");
	get_int(d, o, "min_samples", &a->min_samples, 0, INT_MAX);
	a->max_cv = get_number(d, o, "max_cv");
	if (!d->failed && !(a->max_cv >= 0))
		fail(d, "max_cv", "expected a number >= 0");
	a->runs_per_round = 1;
	get_int(d, o, "runs_per_round", &a->runs_per_round, 1, INT_MAX);
	get_bool(d, o, "sequential", &a->sequential);
	get_int(d, o, "max_rounds", &a->max_rounds, 0, INT_MAX);
	read_by_metric(d, o, "metrics", analysis_metric, a);
}

static void read_budget(struct rd *d, json_t *o, struct budget_result *b)
{
	char *metric = NULL, *status = NULL;
	get_string(d, o, "metric", &metric);
	if (!metric)
		fail(d, "metric", "missing");
	else {
		int m = get_metric(d, "metric", metric);
		if (m >= 0)
			b->metric = (enum metric_id)m;
	}
	get_string(d, o, "aggregation", &b->aggregation);
	get_string(d, o, "operator", &b->op);
	b->limit = get_number(d, o, "limit");
	get_string(d, o, "limit_text", &b->limit_text);
	json_t *actual = json_object_get(o, "actual");
	b->actual = number_value(d, "actual", actual);
	b->have_actual = actual && !json_is_null(actual);
	get_string(d, o, "status", &status);
	if (!status)
		fail(d, "status", "missing");
	else if (!strcmp(status, "pass"))
		b->status = BUDGET_PASS;
	else if (!strcmp(status, "fail"))
		b->status = BUDGET_FAIL;
	else if (!strcmp(status, "unassessable"))
		b->status = BUDGET_UNASSESSABLE;
	else
		fail(d, "status", "unknown budget status '%s'", status);
	get_string(d, o, "reason", &b->reason);
	free(metric);
	free(status);
}

static void read_budget_item(struct rd *d, json_t *o, void *item)
{
	read_budget(d, o, item);
}

/* A JSON number that is a whole count (>= 0, below 2^53) at the path. */
static uint64_t count_value(struct rd *d, const char *key, json_t *v)
{
	double x = number_value(d, key, v);
	if (d->failed)
		return 0;
	if (!(x >= 0 && x <= 9007199254740992.0) || x != floor(x)) {
		fail(d, key, "expected a count (a whole number >= 0)");
		return 0;
	}
	return (uint64_t)x;
}

/* {"base": N, "head": N} into v[PROFILE_SIDES]; absent leaves zeros. */
static void read_side_counts(struct rd *d, json_t *o, const char *key,
			     uint64_t v[PROFILE_SIDES])
{
	json_t *x = get_object(d, o, key, 0);
	if (!x)
		return;
	size_t old = enter_key(d, key);
	v[PROFILE_BASE] = count_value(d, "base", json_object_get(x, "base"));
	v[PROFILE_HEAD] = count_value(d, "head", json_object_get(x, "head"));
	leave(d, old);
}

/* The [ELEMENT, ...] array at arr[i], with n elements; NULL after fail(). */
static json_t *tuple(struct rd *d, json_t *arr, size_t i, size_t n)
{
	json_t *t = json_array_get(arr, i);
	if (!json_is_array(t) || json_array_size(t) != n) {
		fail(d, NULL, "expected an array of %zu elements", n);
		return NULL;
	}
	return t;
}

static const char *tuple_string(struct rd *d, json_t *t, size_t i)
{
	json_t *v = json_array_get(t, i);
	if (!json_is_string(v)) {
		expected(d, NULL, "a string", v);
		return NULL;
	}
	return json_string_value(v);
}

/* One of profile.sampled_runs: a run with its counts. */
static void read_profile_run(struct rd *d, json_t *o, struct profile_set *ps)
{
	static const char *const sides[] = { [PROFILE_BASE] = "base",
					     [PROFILE_HEAD] = "head" };
	int side = -1, round = 0;
	get_choice(d, o, "side", sides, PROFILE_SIDES, &side);
	get_int(d, o, "round", &round, 0, INT_MAX);
	if (!d->failed && side < 0)
		fail(d, "side", "missing");
	double cpu = (double)count_value(d, "cpu_ns", json_object_get(o, "cpu_ns"));
	uint64_t samples = count_value(d, "samples", json_object_get(o, "samples"));
	json_t *counts = get_array(d, o, "counts", 1);
	if (d->failed)
		return;
	struct profile_run *r = profile_run_add(ps, side, round, cpu);
	r->samples = samples;
	size_t old = enter_key(d, "counts");
	for (size_t i = 0; i < json_array_size(counts) && !d->failed; i++) {
		size_t o2 = enter_index(d, i);
		json_t *t = tuple(d, counts, i, 3);
		uint64_t f = t ? count_value(d, NULL, json_array_get(t, 0)) : 0;
		uint64_t self = t ? count_value(d, NULL, json_array_get(t, 1)) : 0;
		uint64_t incl = t ? count_value(d, NULL, json_array_get(t, 2)) : 0;
		if (!d->failed && f >= ps->nr_funcs)
			fail(d, NULL, "symbol %llu is not in profile.symbols",
			     (unsigned long long)f);
		if (!d->failed)
			profile_run_count_add(r, (size_t)f, self, incl);
		leave(d, o2);
	}
	leave(d, old);
}

/* One of profile.functions: a function's comparison. */
static void read_profile_change(struct rd *d, json_t *o, struct profile_set *ps,
				struct profile_change *ch)
{
	char *function = NULL, *binary = NULL, *verdict = NULL;
	get_string(d, o, "function", &function);
	get_string(d, o, "binary", &binary);
	get_string(d, o, "verdict", &verdict);
	if (!d->failed && !function)
		fail(d, "function", "missing");
	if (!d->failed && !binary)
		fail(d, "binary", "missing");
	int v = verdict ? profile_verdict_parse(verdict) : -1;
	if (!d->failed && v < 0)
		fail(d, "verdict", verdict ? "unknown value '%s'" : "missing%s",
		     verdict ? verdict : "");
	if (!d->failed) {
		ch->func = profile_func_intern(ps, function, binary);
		ch->verdict = (enum profile_verdict)v;
		ch->self_ns[PROFILE_BASE] = get_number(d, o, "self_base_ms") * 1e6;
		ch->self_ns[PROFILE_HEAD] = get_number(d, o, "self_head_ms") * 1e6;
		ch->change_ns = get_number(d, o, "change_ms") * 1e6;
		ch->ci_low_ns = get_number(d, o, "ci_low_ms") * 1e6;
		ch->ci_high_ns = get_number(d, o, "ci_high_ms") * 1e6;
		ch->q_value = get_number(d, o, "q_value");
		ch->p_value = get_number(d, o, "p_value");
		ch->incl_ns[PROFILE_BASE] = get_number(d, o, "incl_base_ms") * 1e6;
		ch->incl_ns[PROFILE_HEAD] = get_number(d, o, "incl_head_ms") * 1e6;
		json_t *sb = json_object_get(o, "samples_base");
		ch->samples[PROFILE_BASE] = sb ? count_value(d, "samples_base", sb) : 0;
		ch->samples[PROFILE_HEAD] =
			count_value(d, "samples_head", json_object_get(o, "samples_head"));
	}
	free(function);
	free(binary);
	free(verdict);
}

/*
 * commands[].profile (write_json.c's emit_profile()): the error, or the
 * profile with its symbols, sampled runs, stacks and judged functions.
 */
static void read_profile(struct rd *d, json_t *o, struct command_result *c)
{
	get_string(d, o, "error", &c->profile_error);
	char *event = NULL;
	get_string(d, o, "event", &event);
	if (!event || d->failed) {
		free(event);
		return;
	}
	struct profile_set *ps = xcalloc(1, sizeof(*ps));
	c->profile = ps;
	ps->event = event;
	int freq = 0;
	get_int(d, o, "frequency", &freq, 0, INT_MAX);
	ps->frequency = (unsigned)freq;
	read_side_counts(d, o, "samples", ps->samples);
	read_side_counts(d, o, "lost", ps->lost);
	read_side_counts(d, o, "throttled", ps->throttled);
	get_size(d, o, "pairs", &ps->pairs);
	ps->confidence = get_number(d, o, "confidence");

	json_t *arr = d->failed ? NULL : get_array(d, o, "symbols", 0);
	size_t old = enter_key(d, "symbols");
	for (size_t i = 0; arr && i < json_array_size(arr) && !d->failed; i++) {
		size_t o2 = enter_index(d, i);
		json_t *t = tuple(d, arr, i, 2);
		const char *fn = t ? tuple_string(d, t, 0) : NULL;
		const char *bin = fn ? tuple_string(d, t, 1) : NULL;
		if (bin && profile_func_intern(ps, fn, bin) != i)
			fail(d, NULL, "'%s' in '%s' is listed twice", fn, bin);
		leave(d, o2);
	}
	leave(d, old);

	arr = d->failed ? NULL : get_array(d, o, "sampled_runs", 0);
	old = enter_key(d, "sampled_runs");
	for (size_t i = 0; arr && i < json_array_size(arr) && !d->failed; i++) {
		size_t o2 = enter_index(d, i);
		json_t *x = json_array_get(arr, i);
		if (!json_is_object(x))
			expected(d, NULL, "an object", x);
		else
			read_profile_run(d, x, ps);
		leave(d, o2);
	}
	leave(d, old);

	arr = d->failed ? NULL : get_array(d, o, "stacks", 0);
	old = enter_key(d, "stacks");
	for (size_t i = 0; arr && i < json_array_size(arr) && !d->failed; i++) {
		size_t o2 = enter_index(d, i);
		json_t *t = tuple(d, arr, i, 3);
		const char *st = t ? tuple_string(d, t, 0) : NULL;
		uint64_t nb = st ? count_value(d, NULL, json_array_get(t, 1)) : 0;
		uint64_t nh = st ? count_value(d, NULL, json_array_get(t, 2)) : 0;
		if (st && !d->failed) {
			profile_stack_add(ps, st, PROFILE_BASE, nb);
			profile_stack_add(ps, st, PROFILE_HEAD, nh);
		}
		leave(d, o2);
	}
	leave(d, old);

	arr = d->failed ? NULL : get_array(d, o, "functions", 0);
	old = enter_key(d, "functions");
	size_t n = arr ? json_array_size(arr) : 0;
	ps->changes = xcalloc(n + 1, sizeof(*ps->changes));
	for (size_t i = 0; i < n && !d->failed; i++) {
		size_t o2 = enter_index(d, i);
		json_t *x = json_array_get(arr, i);
		if (!json_is_object(x))
			expected(d, NULL, "an object", x);
		else
			read_profile_change(d, x, ps, &ps->changes[ps->nr_changes++]);
		leave(d, o2);
	}
	leave(d, old);
}

static void comparison_metric(struct rd *d, json_t *o, enum metric_id m, void *ctx)
{
	struct command_result *c = ctx;

	read_comparison(d, o, &c->comparison[m]);
}

static void read_command(struct rd *d, json_t *o, struct command_result *c)
{
	get_string(d, o, "name", &c->name);
	if (!c->name)
		fail(d, "name", "missing");
	get_string(d, o, "command", &c->command);
	get_result(d, o, "result", &c->result);
	get_int(d, o, "rounds", &c->rounds, 0, INT_MAX);
	get_bool(d, o, "identical_artifact", &c->identical_artifact);
	get_bool(d, o, "stopped_by_max_time", &c->out_of_time);
	json_t *mx = get_object(d, o, "matrix", 0);
	if (mx) {
		const char *k;
		json_t *v;
		json_object_foreach(mx, k, v) {
			if (!json_is_string(v)) {
				expected(d, "matrix", "an object of strings", v);
				break;
			}
			strvec_push(&c->matrix_names, k);
			strvec_push(&c->matrix_values, json_string_value(v));
		}
	}
	get_string(d, o, "error", &c->error);
	get_string(d, o, "stderr_tail", &c->stderr_tail);
	static const char *const side_keys[SIDE__COUNT] = {
		[SIDE_BASE] = "base", [SIDE_HEAD] = "head"
	};
	for (int sd = 0; sd < SIDE__COUNT && !d->failed; sd++) {
		json_t *so = get_object(d, o, side_keys[sd], 0);
		if (!so)
			continue;
		size_t old = enter_key(d, side_keys[sd]);
		read_side(d, so, &c->side[sd], c);
		leave(d, old);
	}
	if (!d->failed)
		read_by_metric(d, o, "comparisons", comparison_metric, c);
	if (!d->failed)
		c->budgets = read_objects(d, o, "budgets", 0, sizeof(*c->budgets),
					  &c->nr_budgets, read_budget_item);
	json_t *an = d->failed ? NULL : get_object(d, o, "analysis", 0);
	if (an) {
		size_t old = enter_key(d, "analysis");
		read_analysis(d, an, &c->analysis);
		/* The bootstrap's cost, as a suite's is capped (load_settings.c):
		   a report is as untrusted as a file can be. */
		size_t n = 0;
		for (int sd = 0; sd < SIDE__COUNT; sd++)
			for (int m = 0; m < METRIC__COUNT; m++)
				if (c->side[sd].metric[m].nr > n)
					n = c->side[sd].metric[m].nr;
		if (!d->failed && (double)c->analysis.resamples * (double)n >
					  (double)SETTINGS_MAX_BOOTSTRAP_DRAWS)
			fail(d, "resamples",
			     "%d resamples x %zu samples per side is %.0f bootstrap draws per comparison, more than the limit of %lld (docs/statistics.md)",
			     c->analysis.resamples, n, (double)c->analysis.resamples * (double)n,
			     SETTINGS_MAX_BOOTSTRAP_DRAWS);
		leave(d, old);
	}
	json_t *pr = d->failed ? NULL : get_object(d, o, "profile", 0);
	if (pr) {
		size_t old = enter_key(d, "profile");
		read_profile(d, pr, c);
		leave(d, old);
	}
}

static void read_strings(struct rd *d, json_t *arr, struct strvec *sv)
{
	size_t i;
	json_t *x;
	json_array_foreach(arr, i, x) {
		if (!json_is_string(x)) {
			size_t old = enter_index(d, i);
			expected(d, NULL, "a string", x);
			leave(d, old);
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
	get_string(d, o, "name", &b->name);
	if (!b->name)
		fail(d, "name", "missing");
	json_t *tags = get_array(d, o, "tags", 0);
	if (tags) {
		size_t old = enter_key(d, "tags");
		read_strings(d, tags, &b->tags);
		leave(d, old);
	}
	get_result(d, o, "result", &b->result);
	get_int(d, o, "rounds", &b->rounds, 0, INT_MAX);
	get_int(d, o, "line", &b->line, 0, INT_MAX);
	get_string(d, o, "baseline", &b->baseline);
	get_bool(d, o, "compare_with_baseline", &b->compare_baseline);
	if (!d->failed)
		b->commands = read_objects(d, o, "commands", 1, sizeof(*b->commands),
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
	get_string(d, o, "name", &s->name);
	if (!s->name)
		fail(d, "name", "missing");
	get_string(d, o, "file", &s->file);
	get_result(d, o, "result", &s->result);
	get_string(d, o, "suite_from", &s->suite_from);
	if (!d->failed)
		s->benches = read_objects(d, o, "benchmarks", 1, sizeof(*s->benches),
					  &s->nr_benches, read_bench_item);
}

static void read_suite_item(struct rd *d, json_t *o, void *item)
{
	read_suite(d, o, item);
}

static void read_environment(struct rd *d, json_t *o,
			     struct environment_info *e)
{
	get_string(d, o, "os", &e->os);
	get_string(d, o, "kernel", &e->kernel);
	get_string(d, o, "arch", &e->arch);
	get_string(d, o, "cpu_model", &e->cpu_model);
	get_int(d, o, "logical_cpus", &e->logical_cpus, 0, INT_MAX);
	get_bool(d, o, "ci", &e->ci);
	get_string(d, o, "counters_source", &e->counters_source);
	get_string(d, o, "valgrind_version", &e->valgrind_version);
	e->steal_percent = get_number(d, o, "steal_percent");
}

static void read_git(struct rd *d, json_t *o, struct git_info *g)
{
	get_string(d, o, "head_sha", &g->head_sha);
	g->dirty = -1;
	get_bool(d, o, "dirty", &g->dirty);
	get_string(d, o, "base_ref", &g->base_ref);
	get_string(d, o, "base_sha", &g->base_sha);
}

/* The shard record (write_json.c's emit_shard()). */
static void read_shard(struct rd *d, json_t *o, struct shard_record *sh)
{
	sh->present = 1;
	sh->index = sh->count = 0;
	get_int(d, o, "index", &sh->index, 1, 1024);
	get_int(d, o, "count", &sh->count, 1, 1024);
	get_bool(d, o, "replicate", &sh->replicate);
	get_string(d, o, "selection", &sh->selection);
	get_int(d, o, "benchmarks", &sh->benchmarks, 0, INT_MAX);
	get_string(d, o, "run_id", &sh->run_id);
	get_string(d, o, "split", &sh->split);
	get_string(d, o, "assignment", &sh->assignment);
	if (d->failed)
		return;
	if (!sh->index || !sh->count)
		fail(d, !sh->index ? "index" : "count", "missing");
	else if (sh->index > sh->count)
		fail(d, "index", "%d is above the count, %d", sh->index, sh->count);
	else if (!sh->run_id || !*sh->run_id)
		fail(d, "run_id", "missing");
	else if (!sh->selection)
		sh->selection = xstrdup("");
}

static void read_acceptance_item(struct rd *d, json_t *o, void *item)
{
	struct acceptance *a = item;
	char *metric = NULL;
	get_string(d, o, "commit", &a->commit);
	get_string(d, o, "benchmark", &a->benchmark);
	get_string(d, o, "command", &a->command);
	get_string(d, o, "metric", &metric);
	a->max_percent = number_value(d, "max_percent", json_object_get(o, "max_percent"));
	int m = metric ? metric_lookup(metric) : -1;
	if (!a->commit || !a->benchmark || !a->command)
		fail(d, !a->commit ? "commit" : !a->benchmark ? "benchmark" : "command",
		     "missing");
	else if (m < 0)
		fail(d, "metric", "not a metric");
	else if (!(a->max_percent > 0))
		fail(d, "max_percent", "not a number above 0");
	a->metric = m < 0 ? METRIC_LATENCY : (enum metric_id)m;
	free(metric);
}

static void read_summary(struct rd *d, json_t *o, struct run_summary *s)
{
	get_int(d, o, "benchmarks", &s->benchmarks, 0, INT_MAX);
	get_int(d, o, "commands", &s->commands, 0, INT_MAX);
	get_int(d, o, "pass", &s->pass, 0, INT_MAX);
	get_int(d, o, "improved", &s->improved, 0, INT_MAX);
	get_int(d, o, "inconclusive", &s->inconclusive, 0, INT_MAX);
	get_int(d, o, "accepted", &s->accepted, 0, INT_MAX);
	get_int(d, o, "regression", &s->regression, 0, INT_MAX);
	get_int(d, o, "over_budget", &s->over_budget, 0, INT_MAX);
	get_int(d, o, "error", &s->error, 0, INT_MAX);
	json_t *ec = json_object_get(o, "exit_code");
	if (!ec || json_is_null(ec))
		fail(d, "exit_code", "missing");
	s->exit_code = -1;
	get_int(d, o, "exit_code", &s->exit_code, 0, 6);
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

static const char *raw_member(const char *text, size_t len, const char *key,
			      size_t *vlen)
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

static void read_seed(struct rd *d, const char *text, size_t len,
		      json_t *root, struct run_result *r)
{
	json_t *v = json_object_get(root, "seed");
	if (!v || json_is_null(v))
		return;
	if (!json_is_number(v)) {
		expected(d, "seed", "a number", v);
		return;
	}
	size_t n = 0;
	const char *raw = raw_member(text, len, "seed", &n);
	char *s = raw ? xstrndup(raw, n) : NULL;
	if (!s || !*s || strspn(s, "0123456789") != n) {
		fail(d, "seed", "expected a whole number between 0 and 2^64-1");
	} else {
		errno = 0;
		unsigned long long x = strtoull(s, NULL, 10);
		if (errno == ERANGE)
			fail(d, "seed", "'%s' is out of range (at most 2^64-1)", s);
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
		fail(d, "schema_version", "missing (is this a kagari JSON report?)");
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
			sbuf_adds(&t, type_name(sv));
		fail(d, "schema_version", "unknown schema version '%s' (this version of kagari reads \"%s\")",
		     t.buf, REPORT_SCHEMA_VERSION);
		sbuf_release(&t);
		return;
	}
	json_t *tool = json_object_get(root, "tool");
	if (!json_is_string(tool) || strcmp(json_string_value(tool), "kagari")) {
		fail(d, "tool", "not a kagari report (expected \"kagari\")");
		return;
	}
	get_string(d, root, "mode", &r->mode);
	read_seed(d, text, len, root, r);
	get_string(d, root, "started_at", &r->started_at);
	get_string(d, root, "finished_at", &r->finished_at);
	get_bool(d, root, "interrupted", &r->interrupted);
	json_t *o = get_object(d, root, "environment", 0);
	if (o && !d->failed) {
		size_t old = enter_key(d, "environment");
		read_environment(d, o, &r->env);
		leave(d, old);
	}
	o = get_object(d, root, "git", 0);
	if (o && !d->failed) {
		size_t old = enter_key(d, "git");
		read_git(d, o, &r->git);
		leave(d, old);
	}
	o = get_object(d, root, "shard", 0);
	if (o && !d->failed) {
		size_t old = enter_key(d, "shard");
		read_shard(d, o, &r->shard);
		leave(d, old);
	}
	if (!d->failed) {
		size_t n = 0;
		struct acceptance *acc = read_objects(d, root, "acceptances", 0, sizeof(*acc),
						      &n, read_acceptance_item);
		r->accepts = acc;
		r->nr_accepts = n;
	}
	json_t *a = get_array(d, root, "warnings", 0);
	if (a && !d->failed) {
		size_t old = enter_key(d, "warnings");
		read_strings(d, a, &r->warnings);
		leave(d, old);
	}
	if (!d->failed) {
		free(r->suites);
		r->suites = read_objects(d, root, "suites", 1, sizeof(*r->suites),
					 &r->nr_suites, read_suite_item);
	}
	o = get_object(d, root, "summary", 1);
	if (o && !d->failed) {
		size_t old = enter_key(d, "summary");
		read_summary(d, o, &r->summary);
		leave(d, old);
	}
	get_string(d, root, "exit_reason", &r->exit_reason);
}

int report_read_json(const char *text, size_t len, const char *file,
		     struct run_result *r, struct sbuf *err)
{
	json_error_t je;
	/*
	 * Integers as reals: the model keeps doubles, and integral values
	 * above 2^63 would otherwise fail to load. The seed, the one value
	 * that must stay exact, is read from its own text.
	 */
	json_t *root = json_loadb(text, len,
				  JSON_REJECT_DUPLICATES | JSON_DECODE_INT_AS_REAL |
					  JSON_ALLOW_NUL,
				  &je);
	if (!root) {
		sbuf_addf(err, "%s:%d:%d: invalid JSON: %s", file, je.line,
			  je.column, je.text);
		return -1;
	}
	struct rd d = { file, err, SBUF_INIT, 0 };
	if (!json_is_object(root))
		fail(&d, NULL, "not a kagari JSON report (expected an object, not %s)",
		     type_name(root));
	else
		read_root(&d, text, len, root, r);
	json_decref(root);
	sbuf_release(&d.path);
	return d.failed ? -1 : 0;
}
