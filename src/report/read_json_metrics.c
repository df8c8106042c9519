/*
 * report/read_json_metrics: what one command of a saved JSON report holds
 * (read_json_internal.h), read back into its command_result: each side's
 * metrics (stats, samples, status) and runs, the comparisons, the analysis
 * settings, the budgets and the sampled profile. Laid out bottom-up, as
 * the levels nest.
 */
#include "report/read_json_internal.h"

#include <limits.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "base/xalloc.h"

static void read_stats(struct rd *d, json_t *o, struct summary *s)
{
	rj_get_size(d, o, "count", &s->count);
	s->min = rj_get_number(d, o, "min");
	s->median = rj_get_number(d, o, "median");
	s->mean = rj_get_number(d, o, "mean");
	s->max = rj_get_number(d, o, "max");
	s->stddev = rj_get_number(d, o, "stddev");
	s->cv = rj_get_number(d, o, "cv");
	s->robust_cv = rj_get_number(d, o, "robust_cv");
	s->p90 = rj_get_number(d, o, "p90");
	s->p95 = rj_get_number(d, o, "p95");
	s->p99 = rj_get_number(d, o, "p99");
}

/*
 * A sample's value as measuring writes it: never negative (a time, a size,
 * a count, a ratio or a rate), and a whole number for a metric whose
 * values are whole (nanoseconds, bytes, counts: write_json.c writes them
 * as integers). Anything else is an edited report, refused rather than
 * judged. null (not measured) is left to the analysis, as before.
 */
static void check_sample_value(struct rd *d, enum metric_id m, double v)
{
	const struct metric_info *mi = metric_get(m);
	if (isnan(v))
		return;
	if (!(v >= 0) || isinf(v))
		rj_fail(d, "value", "%s sample %.15g is %s (no measurement gives one)", mi->name, v,
			isinf(v) ? "not finite" : "negative");
	else if (mi->integral && v != floor(v))
		rj_fail(d, "value",
			"%s sample %.15g is not a whole number: %s is measured in whole %s",
			mi->name, v, mi->name,
			mi->unit == UNIT_NS	 ? "nanoseconds"
			: mi->unit == UNIT_BYTES ? "bytes"
						 : "counts");
}

static void read_samples(struct rd *d, json_t *arr, enum metric_id m, struct metric_series *ms)
{
	size_t i;
	json_t *x;
	json_array_foreach(arr, i, x)
	{
		size_t old = rj_enter_index(d, i);
		if (!json_is_object(x)) {
			rj_expected(d, NULL, "an object", x);
		} else {
			int round = 0, run = 0, pad = -1;
			rj_get_int(d, x, "round", &round, 0, INT_MAX);
			rj_get_int(d, x, "run", &run, 0, INT_MAX);
			rj_get_int(d, x, "layout_pad", &pad, 0, INT_MAX);
			double v = rj_get_number(d, x, "value");
			if (!d->failed)
				check_sample_value(d, m, v);
			if (!d->failed) {
				metric_series_add(ms, v, round, run);
				ms->samples[ms->nr - 1].layout_pad = pad;
			}
		}
		rj_leave(d, old);
		if (d->failed)
			return;
	}
}

static void read_metric(struct rd *d, json_t *o, enum metric_id m, struct metric_series *ms,
			struct command_result *cr)
{
	char *status = NULL, *unit = NULL;
	rj_get_string(d, o, "status", &status);
	rj_get_string(d, o, "unit", &unit);
	json_t *samples = rj_get_array(d, o, "samples", 0);
	if (samples) {
		size_t old = rj_enter_key(d, "samples");
		read_samples(d, samples, m, ms);
		rj_leave(d, old);
	}
	json_t *stats = json_object_get(o, "stats");
	if (stats && !json_is_null(stats)) {
		if (!json_is_object(stats)) {
			rj_expected(d, "stats", "an object", stats);
		} else {
			size_t old = rj_enter_key(d, "stats");
			read_stats(d, stats, &ms->summary);
			ms->have_summary = 1;
			rj_leave(d, old);
		}
	}
	enum metric_status st = MSTATUS_OK;
	if (!status)
		rj_fail(d, "status", "missing");
	else if (!strcmp(status, "ok"))
		st = MSTATUS_OK;
	else if (!strcmp(status, "unsupported"))
		st = MSTATUS_UNSUPPORTED;
	else if (!strcmp(status, "failed"))
		st = MSTATUS_FAILED;
	else if (!strcmp(status, "absent"))
		st = MSTATUS_ABSENT;
	else
		rj_fail(d, "status", "unknown metric status '%s'", status);
	json_t *reason = json_object_get(o, "reason");
	if (reason && !json_is_null(reason) && !json_is_string(reason))
		rj_expected(d, "reason", "a string", reason);
	metric_series_set_status(ms, st, json_is_string(reason) ? json_string_value(reason) : NULL);
	rj_get_bool(d, o, "required", &ms->required);
	/* Only the cache simulation's metrics are confirmed by other runs. */
	json_t *conf = json_object_get(o, "confirmed_runs");
	if (conf && !json_is_null(conf) && m != METRIC_ESTIMATED_CYCLES && m != METRIC_CACHE_MISSES)
		rj_fail(d, "confirmed_runs",
			"only estimated_cycles and cache_misses have confirmed runs");
	else
		rj_get_int(d, o, "confirmed_runs", &ms->confirmed, 1, 1000000);
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

static int cmp_name_count(const void *a, const void *b)
{
	return strcmp(((const struct name_count *)a)->name, ((const struct name_count *)b)->name);
}

/* A side's syscalls_by_name: {NAME: median count >= 0}, kept sorted by name. */
static void read_syscall_names(struct rd *d, json_t *o, struct side_result *sd)
{
	json_t *names = rj_get_object(d, o, "syscalls_by_name", 0);
	if (!names || d->failed)
		return;
	size_t old = rj_enter_key(d, "syscalls_by_name");
	const char *key;
	json_t *v;
	sd->syscall_names = xcalloc(json_object_size(names) + 1, sizeof(*sd->syscall_names));
	json_object_foreach(names, key, v)
	{
		double x = rj_number_value(d, key, v);
		if (d->failed)
			break;
		if (!(x >= 0)) {
			rj_fail(d, key, "expected a count >= 0");
			break;
		}
		sd->syscall_names[sd->nr_syscall_names++] =
		    (struct name_count){.name = xstrdup(key), .count = x};
	}
	qsort(sd->syscall_names, sd->nr_syscall_names, sizeof(*sd->syscall_names), cmp_name_count);
	rj_leave(d, old);
}

static int cmp_fn_count(const void *a, const void *b)
{
	return strcmp(((const struct fn_count *)a)->name, ((const struct fn_count *)b)->name);
}

/* A side's counted_functions: {NAME: {instructions, estimated_cycles?}}. */
static void read_counted_functions(struct rd *d, json_t *o, struct side_result *sd)
{
	json_t *fns = rj_get_object(d, o, "counted_functions", 0);
	if (!fns || d->failed)
		return;
	size_t old = rj_enter_key(d, "counted_functions");
	const char *key;
	json_t *v;
	sd->counted_functions = xcalloc(json_object_size(fns) + 1, sizeof(*sd->counted_functions));
	json_object_foreach(fns, key, v)
	{
		if (!json_is_object(v)) {
			rj_expected(d, key, "an object", v);
			break;
		}
		size_t in = rj_enter_key(d, key);
		double ir = rj_get_number(d, v, "instructions");
		double est = json_object_get(v, "estimated_cycles")
				 ? rj_get_number(d, v, "estimated_cycles")
				 : NAN;
		rj_leave(d, in);
		if (d->failed)
			break;
		if (!(ir >= 0)) {
			rj_fail(d, key, "expected instructions >= 0");
			break;
		}
		sd->counted_functions[sd->nr_counted_functions++] = (struct fn_count){
		    .name = xstrdup(key), .instructions = ir, .estimated_cycles = est};
	}
	qsort(sd->counted_functions, sd->nr_counted_functions, sizeof(*sd->counted_functions),
	      cmp_fn_count);
	rj_leave(d, old);
}

void rj_read_side(struct rd *d, json_t *o, struct side_result *sd, struct command_result *cr)
{
	sd->present = 1;
	rj_get_size(d, o, "count", &sd->count);
	struct side_ctx ctx = {sd, cr};

	rj_read_by_metric(d, o, "metrics", side_metric, &ctx);
	read_syscall_names(d, o, sd);
	read_counted_functions(d, o, sd);
	json_t *runs = rj_get_object(d, o, "runs", 0);
	if (!runs || d->failed)
		return;
	size_t old = rj_enter_key(d, "runs");
	json_t *ec = rj_get_array(d, runs, "exit_code", 1);
	json_t *us = rj_get_array(d, runs, "cpu_user", 1);
	json_t *sy = rj_get_array(d, runs, "cpu_system", 1);
	size_t n = ec ? json_array_size(ec) : 0;
	if (!d->failed && (json_array_size(us) != n || json_array_size(sy) != n))
		rj_fail(d, NULL, "exit_code, cpu_user and cpu_system differ in length");
	for (size_t i = 0; i < n && !d->failed; i++) {
		json_t *e = json_array_get(ec, i);
		double ev = json_is_null(e) ? -1 : rj_number_value(d, "exit_code", e);
		double u = rj_number_value(d, "cpu_user", json_array_get(us, i));
		double y = rj_number_value(d, "cpu_system", json_array_get(sy, i));
		if (!d->failed &&
		    (ev != floor(ev) || ev < -1 || ev > 255 || !(u >= 0) || !(y >= 0)))
			rj_fail(d, NULL, "expected exit codes 0..255 (or null) and CPU times >= 0");
		if (!d->failed)
			side_result_add_run(sd, (int)ev, u, y);
	}
	rj_leave(d, old);
}

static void read_double_array(struct rd *d, json_t *arr, double **v, size_t *nr)
{
	size_t n = json_array_size(arr);
	*v = xcalloc(n + 1, sizeof(double));
	*nr = n;
	for (size_t i = 0; i < n; i++) {
		size_t old = rj_enter_index(d, i);
		(*v)[i] = rj_number_value(d, NULL, json_array_get(arr, i));
		rj_leave(d, old);
	}
}

static void read_comparison(struct rd *d, json_t *o, struct comparison *c)
{
	c->present = 1;
	rj_get_string(d, o, "statistic", &c->statistic);
	rj_get_string(d, o, "pairing", &c->pairing);
	c->base = rj_get_number(d, o, "base");
	c->head = rj_get_number(d, o, "head");
	c->change_percent = rj_get_number(d, o, "change_percent");
	c->ci_low_percent = rj_get_number(d, o, "ci_low_percent");
	c->ci_high_percent = rj_get_number(d, o, "ci_high_percent");
	c->confidence = rj_get_number(d, o, "confidence");
	c->max_percent = rj_get_number(d, o, "max_percent");
	c->p_value = rj_get_number(d, o, "p_value");
	c->hl_shift_percent = rj_get_number(d, o, "hl_shift_percent");
	c->noise_floor_percent = rj_get_number(d, o, "noise_floor_percent");
	/* absent in reports of kagari before the change of the mean: NAN */
	c->mean_change_percent = rj_get_number(d, o, "mean_change_percent");
	c->mean_ci_low_percent = rj_get_number(d, o, "mean_ci_low_percent");
	c->mean_ci_high_percent = rj_get_number(d, o, "mean_ci_high_percent");
	c->mean_p_reg = rj_get_number(d, o, "mean_p_regression");
	c->minority_share = rj_get_number(d, o, "minority_share");
	c->minority_factor = rj_get_number(d, o, "minority_factor");
	/* absent in reports of kagari before the blind share and trend: NAN */
	c->blind_share_percent = rj_get_number(d, o, "blind_share_percent");
	c->trend_percent_per_round = rj_get_number(d, o, "trend_percent_per_round");
	c->trend_p = rj_get_number(d, o, "trend_p");
	char *verdict = NULL;
	rj_get_string(d, o, "verdict", &verdict);
	rj_get_string(d, o, "reason", &c->reason);
	rj_get_string(d, o, "accepted_by", &c->accepted_by);
	rj_get_bool(d, o, "gate", &c->gate);
	c->p_reg = rj_get_number(d, o, "p_regression");
	c->p_imp = rj_get_number(d, o, "p_improvement");
	c->p_adjusted = rj_get_number(d, o, "p_adjusted");
	rj_get_bool(d, o, "control_failed", &c->control_failed);
	rj_get_int(d, o, "decided_at_rounds", &c->decided_at_rounds, 0, INT_MAX);
	int vd = verdict_parse(verdict);
	if (!d->failed && vd < 0)
		rj_fail(d, "verdict", verdict ? "unknown value '%s'" : "missing%s",
			verdict ? verdict : "");
	c->verdict = vd < 0 ? VERDICT_NONE : (enum verdict)vd;
	free(verdict);
	json_t *dr = rj_get_array(d, o, "dropped_rounds", 0);
	size_t n = dr ? json_array_size(dr) : 0;
	c->dropped_rounds = xcalloc(n + 1, sizeof(int));
	size_t old = rj_enter_key(d, "dropped_rounds");
	for (size_t i = 0; i < n && !d->failed; i++) {
		json_t *x = json_array_get(dr, i);
		size_t o2 = rj_enter_index(d, i);
		double v = rj_number_value(d, NULL, x);
		if (!d->failed && (!(v >= 0 && v <= INT_MAX) || v != floor(v)))
			rj_fail(d, NULL, "expected a round number");
		else
			c->dropped_rounds[c->nr_dropped_rounds++] = (int)v;
		rj_leave(d, o2);
	}
	rj_leave(d, old);
	json_t *bq = rj_get_array(d, o, "bootstrap_quantiles", 0);
	if (bq) {
		old = rj_enter_key(d, "bootstrap_quantiles");
		free(c->boot);
		read_double_array(d, bq, &c->boot, &c->nr_boot);
		c->boot_is_quantiles = 1;
		rj_leave(d, old);
	}
}

static void read_metric_rule(struct rd *d, json_t *o, struct metric_rule *mr)
{
	static const char *const statistics[] = {
	    [STATISTIC_MEDIAN] = "median", [STATISTIC_MEAN] = "mean"};
	int st = STATISTIC_MEDIAN;
	mr->compare = 1;
	rj_get_choice(d, o, "statistic", statistics, 2, &st);
	mr->statistic = (enum statistic)st;
	mr->max_percent = rj_get_number(d, o, "max_percent");
	/* The range a suite and --max-percent take (suite/units.h): a
	   tolerance nothing can resolve, or none at all, is an edited
	   report. */
	if (!d->failed && !(mr->max_percent >= SETTINGS_MIN_MAX_PERCENT &&
			    mr->max_percent <= SETTINGS_MAX_MAX_PERCENT))
		rj_fail(d, "max_percent",
			"%.15g is out of range: expected a percentage from %g to %g",
			mr->max_percent, SETTINGS_MIN_MAX_PERCENT, SETTINGS_MAX_MAX_PERCENT);
	mr->min_difference = rj_get_number(d, o, "min_difference");
	if (isnan(mr->min_difference))
		mr->min_difference = -1;
	mr->gate = 1;
	rj_get_bool(d, o, "gate", &mr->gate);
	rj_get_bool(d, o, "configured", &mr->configured);
}

/* A command's `analysis` settings (write_json.c's emit_analysis()). */
static void analysis_metric(struct rd *d, json_t *o, enum metric_id m, void *ctx)
{
	struct analysis_settings *a = ctx;

	read_metric_rule(d, o, &a->metric[m]);
}

void rj_read_analysis(struct rd *d, json_t *o, struct analysis_settings *a)
{
	static const char *const pairings[] = {
	    [PAIRING_ROUNDS] = "rounds", [PAIRING_INDEPENDENT] = "independent"};
	static const char *const corrections[] = {
	    [CORRECTION_HOLM] = "holm", [CORRECTION_NONE] = "none"};
	int v = PAIRING_ROUNDS;
	a->present = 1;
	rj_get_choice(d, o, "pairing", pairings, 2, &v);
	a->pairing = (enum pairing)v;
	v = CORRECTION_HOLM;
	rj_get_choice(d, o, "correction", corrections, 2, &v);
	a->correction = (enum correction)v;
	a->resamples = 2000;
	/* No more than a suite may ask for (a report is as untrusted as a
	   file can be: each resample is a pass over the samples). */
	rj_get_int(d, o, "resamples", &a->resamples, 1, SETTINGS_MAX_RESAMPLES);
	a->confidence = rj_get_number(d, o, "confidence");
	if (!d->failed && !(a->confidence > 0 && a->confidence < 1))
		rj_fail(d, "confidence", "expected a number between 0 and 1");
	rj_get_int(d, o, "min_samples", &a->min_samples, 0, INT_MAX);
	a->max_cv = rj_get_number(d, o, "max_cv");
	if (!d->failed && !(a->max_cv >= 0))
		rj_fail(d, "max_cv", "expected a number >= 0");
	a->runs_per_round = 1;
	rj_get_int(d, o, "runs_per_round", &a->runs_per_round, 1, INT_MAX);
	rj_get_bool(d, o, "sequential", &a->sequential);
	/* The sequential looks are scheduled up to max_rounds: without a cap
	   there is no schedule to replay. */
	json_t *mr = json_object_get(o, "max_rounds");
	if (!d->failed && a->sequential && (!mr || json_is_null(mr)))
		rj_fail(d, "max_rounds", "missing: a sequential analysis needs its cap of rounds");
	rj_get_int(d, o, "max_rounds", &a->max_rounds, a->sequential ? 1 : 0, INT_MAX);
	if (json_object_get(o, "rare_share")) {
		a->rare_share = rj_get_number(d, o, "rare_share");
		if (!d->failed && !(a->rare_share > 0 && a->rare_share < 1))
			rj_fail(d, "rare_share", "expected a number between 0 and 1");
	}
	rj_read_by_metric(d, o, "metrics", analysis_metric, a);
}

static void read_budget(struct rd *d, json_t *o, struct budget_result *b)
{
	char *metric = NULL, *status = NULL;
	rj_get_string(d, o, "metric", &metric);
	if (!metric)
		rj_fail(d, "metric", "missing");
	else {
		int m = rj_get_metric(d, "metric", metric);
		if (m >= 0)
			b->metric = (enum metric_id)m;
	}
	rj_get_string(d, o, "aggregation", &b->aggregation);
	rj_get_string(d, o, "operator", &b->op);
	b->limit = rj_get_number(d, o, "limit");
	rj_get_string(d, o, "limit_text", &b->limit_text);
	json_t *actual = json_object_get(o, "actual");
	b->actual = rj_number_value(d, "actual", actual);
	b->have_actual = actual && !json_is_null(actual);
	rj_get_string(d, o, "status", &status);
	if (!status)
		rj_fail(d, "status", "missing");
	else if (!strcmp(status, "pass"))
		b->status = BUDGET_PASS;
	else if (!strcmp(status, "fail"))
		b->status = BUDGET_FAIL;
	else if (!strcmp(status, "unassessable"))
		b->status = BUDGET_UNASSESSABLE;
	else
		rj_fail(d, "status", "unknown budget status '%s'", status);
	rj_get_string(d, o, "reason", &b->reason);
	free(metric);
	free(status);
}

void rj_read_budget_item(struct rd *d, json_t *o, void *item)
{
	read_budget(d, o, item);
}

/* A JSON number that is a whole count (>= 0, below 2^53) at the path. */
static uint64_t count_value(struct rd *d, const char *key, json_t *v)
{
	double x = rj_number_value(d, key, v);
	if (d->failed)
		return 0;
	if (!(x >= 0 && x <= 9007199254740992.0) || x != floor(x)) {
		rj_fail(d, key, "expected a count (a whole number >= 0)");
		return 0;
	}
	return (uint64_t)x;
}

/* {"base": N, "head": N} into v[PROFILE_SIDES]; absent leaves zeros. */
static void read_side_counts(struct rd *d, json_t *o, const char *key, uint64_t v[PROFILE_SIDES])
{
	json_t *x = rj_get_object(d, o, key, 0);
	if (!x)
		return;
	size_t old = rj_enter_key(d, key);
	v[PROFILE_BASE] = count_value(d, "base", json_object_get(x, "base"));
	v[PROFILE_HEAD] = count_value(d, "head", json_object_get(x, "head"));
	rj_leave(d, old);
}

/* The [ELEMENT, ...] array at arr[i], with n elements; NULL after rj_fail(). */
static json_t *tuple(struct rd *d, json_t *arr, size_t i, size_t n)
{
	json_t *t = json_array_get(arr, i);
	if (!json_is_array(t) || json_array_size(t) != n) {
		rj_fail(d, NULL, "expected an array of %zu elements", n);
		return NULL;
	}
	return t;
}

static const char *tuple_string(struct rd *d, json_t *t, size_t i)
{
	json_t *v = json_array_get(t, i);
	if (!json_is_string(v)) {
		rj_expected(d, NULL, "a string", v);
		return NULL;
	}
	return json_string_value(v);
}

/* One of profile.sampled_runs: a run with its counts. */
static void read_profile_run(struct rd *d, json_t *o, struct profile_set *ps)
{
	static const char *const sides[] = {[PROFILE_BASE] = "base", [PROFILE_HEAD] = "head"};
	int side = -1, round = 0;
	rj_get_choice(d, o, "side", sides, PROFILE_SIDES, &side);
	rj_get_int(d, o, "round", &round, 0, INT_MAX);
	if (!d->failed && side < 0)
		rj_fail(d, "side", "missing");
	double cpu = (double)count_value(d, "cpu_ns", json_object_get(o, "cpu_ns"));
	uint64_t samples = count_value(d, "samples", json_object_get(o, "samples"));
	json_t *counts = rj_get_array(d, o, "counts", 1);
	if (d->failed)
		return;
	struct profile_run *r = profile_run_add(ps, side, round, cpu);
	r->samples = samples;
	size_t old = rj_enter_key(d, "counts");
	for (size_t i = 0; i < json_array_size(counts) && !d->failed; i++) {
		size_t o2 = rj_enter_index(d, i);
		json_t *t = tuple(d, counts, i, 3);
		uint64_t f = t ? count_value(d, NULL, json_array_get(t, 0)) : 0;
		uint64_t self = t ? count_value(d, NULL, json_array_get(t, 1)) : 0;
		uint64_t incl = t ? count_value(d, NULL, json_array_get(t, 2)) : 0;
		if (!d->failed && f >= ps->nr_funcs)
			rj_fail(d, NULL, "symbol %llu is not in profile.symbols",
				(unsigned long long)f);
		if (!d->failed)
			profile_run_count_add(r, (size_t)f, self, incl);
		rj_leave(d, o2);
	}
	rj_leave(d, old);
}

/* One of profile.functions: a function's comparison. */
static void read_profile_change(struct rd *d, json_t *o, struct profile_set *ps,
				struct profile_change *ch)
{
	char *function = NULL, *binary = NULL, *verdict = NULL;
	rj_get_string(d, o, "function", &function);
	rj_get_string(d, o, "binary", &binary);
	rj_get_string(d, o, "verdict", &verdict);
	if (!d->failed && !function)
		rj_fail(d, "function", "missing");
	if (!d->failed && !binary)
		rj_fail(d, "binary", "missing");
	int v = verdict ? profile_verdict_parse(verdict) : -1;
	if (!d->failed && v < 0)
		rj_fail(d, "verdict", verdict ? "unknown value '%s'" : "missing%s",
			verdict ? verdict : "");
	if (!d->failed) {
		ch->func = profile_func_intern(ps, function, binary);
		ch->verdict = (enum profile_verdict)v;
		ch->self_ns[PROFILE_BASE] = rj_get_number(d, o, "self_base_ms") * 1e6;
		ch->self_ns[PROFILE_HEAD] = rj_get_number(d, o, "self_head_ms") * 1e6;
		ch->change_ns = rj_get_number(d, o, "change_ms") * 1e6;
		ch->ci_low_ns = rj_get_number(d, o, "ci_low_ms") * 1e6;
		ch->ci_high_ns = rj_get_number(d, o, "ci_high_ms") * 1e6;
		ch->q_value = rj_get_number(d, o, "q_value");
		ch->p_value = rj_get_number(d, o, "p_value");
		ch->incl_ns[PROFILE_BASE] = rj_get_number(d, o, "incl_base_ms") * 1e6;
		ch->incl_ns[PROFILE_HEAD] = rj_get_number(d, o, "incl_head_ms") * 1e6;
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
void rj_read_profile(struct rd *d, json_t *o, struct command_result *c)
{
	rj_get_string(d, o, "error", &c->profile_error);
	char *event = NULL;
	rj_get_string(d, o, "event", &event);
	if (!event || d->failed) {
		free(event);
		return;
	}
	struct profile_set *ps = xcalloc(1, sizeof(*ps));
	c->profile = ps;
	ps->event = event;
	int freq = 0;
	rj_get_int(d, o, "frequency", &freq, 0, INT_MAX);
	ps->frequency = (unsigned)freq;
	read_side_counts(d, o, "samples", ps->samples);
	read_side_counts(d, o, "lost", ps->lost);
	read_side_counts(d, o, "throttled", ps->throttled);
	rj_get_size(d, o, "pairs", &ps->pairs);
	ps->confidence = rj_get_number(d, o, "confidence");

	json_t *arr = d->failed ? NULL : rj_get_array(d, o, "symbols", 0);
	size_t old = rj_enter_key(d, "symbols");
	for (size_t i = 0; arr && i < json_array_size(arr) && !d->failed; i++) {
		size_t o2 = rj_enter_index(d, i);
		json_t *t = tuple(d, arr, i, 2);
		const char *fn = t ? tuple_string(d, t, 0) : NULL;
		const char *bin = fn ? tuple_string(d, t, 1) : NULL;
		if (bin && profile_func_intern(ps, fn, bin) != i)
			rj_fail(d, NULL, "'%s' in '%s' is listed twice", fn, bin);
		rj_leave(d, o2);
	}
	rj_leave(d, old);

	arr = d->failed ? NULL : rj_get_array(d, o, "sampled_runs", 0);
	old = rj_enter_key(d, "sampled_runs");
	for (size_t i = 0; arr && i < json_array_size(arr) && !d->failed; i++) {
		size_t o2 = rj_enter_index(d, i);
		json_t *x = json_array_get(arr, i);
		if (!json_is_object(x))
			rj_expected(d, NULL, "an object", x);
		else
			read_profile_run(d, x, ps);
		rj_leave(d, o2);
	}
	rj_leave(d, old);

	arr = d->failed ? NULL : rj_get_array(d, o, "stacks", 0);
	old = rj_enter_key(d, "stacks");
	for (size_t i = 0; arr && i < json_array_size(arr) && !d->failed; i++) {
		size_t o2 = rj_enter_index(d, i);
		json_t *t = tuple(d, arr, i, 3);
		const char *st = t ? tuple_string(d, t, 0) : NULL;
		uint64_t nb = st ? count_value(d, NULL, json_array_get(t, 1)) : 0;
		uint64_t nh = st ? count_value(d, NULL, json_array_get(t, 2)) : 0;
		if (st && !d->failed) {
			profile_stack_add(ps, st, PROFILE_BASE, nb);
			profile_stack_add(ps, st, PROFILE_HEAD, nh);
		}
		rj_leave(d, o2);
	}
	rj_leave(d, old);

	arr = d->failed ? NULL : rj_get_array(d, o, "functions", 0);
	old = rj_enter_key(d, "functions");
	size_t n = arr ? json_array_size(arr) : 0;
	ps->changes = xcalloc(n + 1, sizeof(*ps->changes));
	for (size_t i = 0; i < n && !d->failed; i++) {
		size_t o2 = rj_enter_index(d, i);
		json_t *x = json_array_get(arr, i);
		if (!json_is_object(x))
			rj_expected(d, NULL, "an object", x);
		else
			read_profile_change(d, x, ps, &ps->changes[ps->nr_changes++]);
		rj_leave(d, o2);
	}
	rj_leave(d, old);
}

void rj_comparison_metric(struct rd *d, json_t *o, enum metric_id m, void *ctx)
{
	struct command_result *c = ctx;

	read_comparison(d, o, &c->comparison[m]);
}
