/*
 * `hyperfine-json`: hyperfine's --export-json schema, so that scripts and
 * plots written for hyperfine (its scripts/ folder, dashboards) read a
 * kagari run. The schema is hyperfine's `BenchmarkResult` serialised by
 * serde (src/benchmark/benchmark_result.rs, src/export/json.rs):
 *
 *   {"results": [{"command", "mean", "stddev", "median", "user", "system",
 *                 "min", "max", "times", "memory_usage_byte",
 *                 "exit_codes", "parameters"}]}
 *
 * Times are in seconds as hyperfine writes them; memory in bytes. One
 * result per command and measured side: `command` is kagari's name for it
 * ("BENCHMARK/COMMAND"), which is what hyperfine writes for a command
 * given a --command-name; under compare `parameters` holds `side` (base or
 * head) to tell the two apart, as hyperfine's parameters tell apart the
 * expansions of one template. `stddev` is null for a single run, as
 * hyperfine writes it; `user` and `system` are the means of the CPU
 * metrics, null when they were not measured (never 0). `exit_codes` has
 * one 0 per run: kagari keeps only runs whose exit status the suite
 * accepts (exit_codes, default [0]) and records no other status.
 */
#include "report/report.h"

#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "base/xalloc.h"

#include "report/json_emit.h"

/* A time series in ns as seconds; NAN stays null. */
static void emit_seconds(struct json_emit *j, const char *key, double ns)
{
	json_emit_kv_double(j, key, isfinite(ns) ? ns / 1e9 : NAN);
}

/*
 * Mean and sample standard deviation from the samples themselves, not the
 * summary: a saved JSON report rounds its summaries, and `report` must
 * export the same numbers as the run that saved it.
 */
static double series_mean(const struct metric_series *ms)
{
	if (ms->status != MSTATUS_OK || !ms->nr)
		return NAN;
	double sum = 0;
	for (size_t i = 0; i < ms->nr; i++)
		sum += ms->samples[i].value;
	return sum / (double)ms->nr;
}

static double series_stddev(const struct metric_series *ms)
{
	if (ms->status != MSTATUS_OK || ms->nr < 2)
		return NAN; /* hyperfine: null for one run */
	double mean = series_mean(ms), ss = 0;
	for (size_t i = 0; i < ms->nr; i++)
		ss += (ms->samples[i].value - mean) * (ms->samples[i].value - mean);
	return sqrt(ss / (double)(ms->nr - 1));
}

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;
	return (x > y) - (x < y);
}

static void emit_result(struct json_emit *j, const struct run_result *r,
			const struct bench_result *b, const struct command_result *c,
			enum side sd, struct sbuf *name)
{
	const struct side_result *s = &c->side[sd];
	const struct metric_series *lat = &s->metric[METRIC_LATENCY];
	if (!s->present || lat->status != MSTATUS_OK || !lat->nr)
		return;
	double *v = xcalloc(lat->nr, sizeof(*v));
	for (size_t i = 0; i < lat->nr; i++)
		v[i] = lat->samples[i].value;
	qsort(v, lat->nr, sizeof(*v), cmp_double);
	size_t n = lat->nr;
	double median = n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
	double min = v[0], max = v[n - 1];
	free(v);
	sbuf_reset(name);
	sbuf_addf(name, "%s/%s", b->name, c->name);
	json_emit_begin_object(j);
	json_emit_kv_string(j, "command", name->buf);
	emit_seconds(j, "mean", series_mean(lat));
	emit_seconds(j, "stddev", series_stddev(lat));
	emit_seconds(j, "median", median);
	emit_seconds(j, "user", series_mean(&s->metric[METRIC_CPU_USER]));
	emit_seconds(j, "system", series_mean(&s->metric[METRIC_CPU_SYSTEM]));
	emit_seconds(j, "min", min);
	emit_seconds(j, "max", max);
	json_emit_key(j, "times");
	json_emit_begin_array_inline(j);
	for (size_t i = 0; i < lat->nr; i++)
		json_emit_double(j, lat->samples[i].value / 1e9);
	json_emit_end_array(j);
	const struct metric_series *rss = &s->metric[METRIC_PEAK_RSS];
	if (rss->status == MSTATUS_OK && rss->nr == lat->nr) {
		json_emit_key(j, "memory_usage_byte");
		json_emit_begin_array_inline(j);
		for (size_t i = 0; i < rss->nr; i++)
			json_emit_uint(j, (uint64_t)llround(rss->samples[i].value));
		json_emit_end_array(j);
	}
	json_emit_key(j, "exit_codes");
	json_emit_begin_array_inline(j);
	for (size_t i = 0; i < lat->nr; i++)
		json_emit_int(j, 0);
	json_emit_end_array(j);
	/* hyperfine leaves out an empty map (skip_serializing_if). */
	if (r->mode && !strcmp(r->mode, "compare")) {
		json_emit_key(j, "parameters");
		json_emit_begin_object(j);
		json_emit_kv_string(j, "side", side_name(sd));
		json_emit_end_object(j);
	}
	json_emit_end_object(j);
}

int report_write_hyperfine(const struct run_result *r,
			   const struct report_options *o, struct sbuf *out,
			   struct sbuf *err)
{
	struct json_emit j;
	struct sbuf name = SBUF_INIT;
	(void)o;
	json_emit_init(&j, out, 1);
	json_emit_begin_object(&j);
	json_emit_key(&j, "results");
	json_emit_begin_array(&j);
	for (size_t i = 0; i < r->nr_suites; i++)
		for (size_t b = 0; b < r->suites[i].nr_benches; b++) {
			const struct bench_result *br = &r->suites[i].benches[b];
			for (size_t c = 0; c < br->nr_commands; c++)
				for (int sd = 0; sd < SIDE__COUNT; sd++)
					emit_result(&j, r, br, &br->commands[c],
						    (enum side)sd, &name);
		}
	json_emit_end_array(&j);
	json_emit_end_object(&j);
	sbuf_release(&name);
	if (json_emit_finish(&j) < 0) {
		sbuf_adds(err, "internal error: the hyperfine JSON export is malformed");
		return -1;
	}
	sbuf_addch(out, '\n');
	return 0;
}
