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
 * result per command and measured side. Under `bench` (mode "bench") a
 * result is named as hyperfine names it: the command as typed, or its
 * -n name, with `parameters` the -L/-P values it was expanded with
 * (hyperfine's map of NAME to the value as text). Under run and compare
 * `command` is kagari's name for it ("BENCHMARK/COMMAND"), which is what
 * hyperfine writes for a command given a --command-name; `parameters`
 * holds the `matrix:` values, and under compare also `side` (base or
 * head) to tell the two sides apart. hyperfine leaves out an empty map.
 * `stddev` is null for a single run, as hyperfine writes it. `user` and
 * `system` are always numbers: the mean CPU times wait4 reported for the
 * runs (recorded for every run, metrics.cpu or not). `exit_codes` are
 * the runs' own exit statuses (non-zero ones only with exit_codes or
 * bench -i).
 */
#include "report/report.h"

#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "base/cmp.h"
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

/* The mean of a CPU time: from the run records, else the metric; 0 for a
   saved report that recorded neither (hyperfine always writes a number). */
static double cpu_mean(const struct side_result *s, int system)
{
	const struct metric_series *lat = &s->metric[METRIC_LATENCY];
	if (s->nr_runs && s->nr_runs == lat->nr) {
		double sum = 0;
		for (size_t i = 0; i < s->nr_runs; i++)
			sum += system ? s->runs[i].system_ns : s->runs[i].user_ns;
		return sum / (double)s->nr_runs;
	}
	double m = series_mean(&s->metric[system ? METRIC_CPU_SYSTEM : METRIC_CPU_USER]);
	return isfinite(m) ? m : 0;
}

/* Indexes of c's matrix names in name order (hyperfine's map is sorted). */
static size_t *param_order(const struct command_result *c)
{
	size_t n =
	    c->matrix_names.nr < c->matrix_values.nr ? c->matrix_names.nr : c->matrix_values.nr;
	size_t *idx = xcalloc(n + 1, sizeof(*idx));
	for (size_t i = 0; i < n; i++)
		idx[i] = i;
	for (size_t i = 1; i < n; i++)
		for (size_t k = i;
		     k > 0 && strcmp(c->matrix_names.v[idx[k - 1]], c->matrix_names.v[idx[k]]) > 0;
		     k--) {
			size_t t = idx[k];
			idx[k] = idx[k - 1];
			idx[k - 1] = t;
		}
	return idx;
}

static void emit_result(struct json_emit *j, const struct run_result *r,
			const struct bench_result *b, const struct command_result *c, enum side sd,
			struct sbuf *name)
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
	int bench = run_mode(r) == RUN_MODE_BENCH;
	int compare = run_mode(r) == RUN_MODE_COMPARE;
	sbuf_reset(name);
	if (bench)
		sbuf_adds(name, c->name);
	else
		sbuf_addf(name, "%s/%s", b->name, c->name);
	json_emit_begin_object(j);
	json_emit_kv_string(j, "command", name->buf);
	emit_seconds(j, "mean", series_mean(lat));
	emit_seconds(j, "stddev", series_stddev(lat));
	emit_seconds(j, "median", median);
	emit_seconds(j, "user", cpu_mean(s, 0));
	emit_seconds(j, "system", cpu_mean(s, 1));
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
	for (size_t i = 0; i < lat->nr; i++) {
		int ec = s->nr_runs == lat->nr ? s->runs[i].exit_code : 0;
		if (ec < 0)
			json_emit_null(j);
		else
			json_emit_int(j, ec);
	}
	json_emit_end_array(j);
	/* hyperfine leaves out an empty map (skip_serializing_if). */
	if (c->matrix_names.nr || compare) {
		size_t *idx = param_order(c);
		size_t np = c->matrix_names.nr < c->matrix_values.nr ? c->matrix_names.nr
								     : c->matrix_values.nr;
		json_emit_key(j, "parameters");
		json_emit_begin_object(j);
		for (size_t k = 0; k < np; k++)
			json_emit_kv_string(j, c->matrix_names.v[idx[k]],
					    c->matrix_values.v[idx[k]]);
		if (compare)
			json_emit_kv_string(j, "side", side_name(sd));
		json_emit_end_object(j);
		free(idx);
	}
	json_emit_end_object(j);
}

int report_write_hyperfine(const struct run_result *r, const struct report_options *o,
			   struct sbuf *out, struct sbuf *err)
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
					emit_result(&j, r, br, &br->commands[c], (enum side)sd,
						    &name);
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

/* ---- hyperfine's CSV and Markdown layouts -------------------------------- */

/* One exported result: a command's measured side, in seconds. */
struct hf_row {
	const struct command_result *c;
	char *name;
	double mean, stddev, median, user, system, min, max;
};

static size_t hf_rows(const struct run_result *r, struct hf_row **out)
{
	struct sbuf name = SBUF_INIT;
	size_t n = 0, alloc = 0;
	*out = NULL;
	int bench = run_mode(r) == RUN_MODE_BENCH;
	for (size_t i = 0; i < r->nr_suites; i++)
		for (size_t b = 0; b < r->suites[i].nr_benches; b++) {
			const struct bench_result *br = &r->suites[i].benches[b];
			for (size_t c = 0; c < br->nr_commands; c++)
				for (int sd = 0; sd < SIDE__COUNT; sd++) {
					const struct command_result *cr = &br->commands[c];
					const struct side_result *s = &cr->side[sd];
					const struct metric_series *lat =
					    &s->metric[METRIC_LATENCY];
					if (!s->present || lat->status != MSTATUS_OK || !lat->nr)
						continue;
					double *v = xcalloc(lat->nr, sizeof(*v));
					for (size_t k = 0; k < lat->nr; k++)
						v[k] = lat->samples[k].value;
					qsort(v, lat->nr, sizeof(*v), cmp_double);
					size_t m = lat->nr;
					ALLOC_GROW(*out, n + 1, alloc);
					struct hf_row *x = &(*out)[n++];
					x->c = cr;
					sbuf_reset(&name);
					if (bench)
						sbuf_adds(&name, cr->name);
					else if (run_mode(r) == RUN_MODE_COMPARE)
						sbuf_addf(&name, "%s/%s (%s)", br->name, cr->name,
							  side_name((enum side)sd));
					else
						sbuf_addf(&name, "%s/%s", br->name, cr->name);
					x->name = xstrdup(name.buf);
					x->mean = series_mean(lat) / 1e9;
					x->stddev = series_stddev(lat) / 1e9;
					x->median =
					    (m % 2 ? v[m / 2] : (v[m / 2 - 1] + v[m / 2]) / 2) /
					    1e9;
					x->min = v[0] / 1e9;
					x->max = v[m - 1] / 1e9;
					x->user = cpu_mean(s, 0) / 1e9;
					x->system = cpu_mean(s, 1) / 1e9;
					free(v);
				}
		}
	sbuf_release(&name);
	return n;
}

static void hf_rows_free(struct hf_row *rows, size_t n)
{
	for (size_t i = 0; i < n; i++)
		free(rows[i].name);
	free(rows);
}

static void csv_text(struct sbuf *out, const char *s)
{
	if (!strpbrk(s, ",\"\r\n")) {
		sbuf_adds(out, s);
		return;
	}
	sbuf_addch(out, '"');
	for (; *s; s++) {
		if (*s == '"')
			sbuf_addch(out, '"');
		sbuf_addch(out, *s);
	}
	sbuf_addch(out, '"');
}

static void csv_num(struct sbuf *out, double v)
{
	sbuf_addch(out, ',');
	if (isfinite(v))
		json_format_double_plain(out, v);
}

/* The parameter names of every row, sorted, once each. */
static void hf_param_names(const struct hf_row *rows, size_t n, struct strvec *names)
{
	for (size_t i = 0; i < n; i++)
		for (size_t k = 0; k < rows[i].c->matrix_names.nr; k++)
			if (!strvec_contains(names, rows[i].c->matrix_names.v[k]))
				strvec_push(names, rows[i].c->matrix_names.v[k]);
	for (size_t i = 1; i < names->nr; i++)
		for (size_t k = i; k > 0 && strcmp(names->v[k - 1], names->v[k]) > 0; k--) {
			const char *t = names->v[k];
			names->v[k] = names->v[k - 1];
			names->v[k - 1] = t;
		}
}

/*
 * hyperfine's --export-csv: a header and one row per result, in seconds:
 * command,mean,stddev,median,user,system,min,max and a parameter_NAME
 * column per parameter (sorted by name; empty where a result has none).
 */
int report_write_hyperfine_csv(const struct run_result *r, const struct report_options *o,
			       struct sbuf *out, struct sbuf *err)
{
	(void)o;
	(void)err;
	struct hf_row *rows;
	size_t n = hf_rows(r, &rows);
	struct strvec names = STRVEC_INIT;
	hf_param_names(rows, n, &names);
	sbuf_adds(out, "command,mean,stddev,median,user,system,min,max");
	for (size_t k = 0; k < names.nr; k++) {
		sbuf_adds(out, ",");
		sbuf_adds(out, "parameter_");
		sbuf_adds(out, names.v[k]);
	}
	sbuf_addch(out, '\n');
	for (size_t i = 0; i < n; i++) {
		const struct hf_row *x = &rows[i];
		csv_text(out, x->name);
		csv_num(out, x->mean);
		csv_num(out, x->stddev);
		csv_num(out, x->median);
		csv_num(out, x->user);
		csv_num(out, x->system);
		csv_num(out, x->min);
		csv_num(out, x->max);
		for (size_t k = 0; k < names.nr; k++) {
			sbuf_addch(out, ',');
			for (size_t p = 0; p < x->c->matrix_names.nr && p < x->c->matrix_values.nr;
			     p++)
				if (!strcmp(x->c->matrix_names.v[p], names.v[k]))
					csv_text(out, x->c->matrix_values.v[p]);
		}
		sbuf_addch(out, '\n');
	}
	strvec_clear(&names);
	hf_rows_free(rows, n);
	return 0;
}

/* The unit of hyperfine's tables: -u, else seconds when the first
   result's mean is a second or more, else milliseconds. */
void report_hyperfine_unit(const char *time_unit, double first_mean_s, double *scale,
			   const char **label)
{
	const char *u = time_unit;
	if (!u)
		u = first_mean_s >= 1 ? "second" : "millisecond";
	if (!strcmp(u, "second"))
		*scale = 1, *label = "s";
	else if (!strcmp(u, "microsecond"))
		*scale = 1e6, *label = "µs";
	else if (!strcmp(u, "nanosecond"))
		*scale = 1e9, *label = "ns";
	else
		*scale = 1e3, *label = "ms";
}

/*
 * hyperfine's --export-markdown: | Command | Mean [ms] | Min [ms] |
 * Max [ms] | Relative |, the command in backticks ('|' escaped), mean ±
 * σ, and the mean relative to the fastest (1.00) with the σ of the ratio.
 */
int report_write_hyperfine_markdown(const struct run_result *r, const struct report_options *o,
				    struct sbuf *out, struct sbuf *err)
{
	(void)err;
	struct hf_row *rows;
	size_t n = hf_rows(r, &rows);
	double scale;
	const char *u;
	report_hyperfine_unit(o->time_unit, n ? rows[0].mean : 0, &scale, &u);
	sbuf_addf(out, "| Command | Mean [%s] | Min [%s] | Max [%s] | Relative |\n", u, u, u);
	sbuf_adds(out, "|:---|---:|---:|---:|---:|\n");
	size_t fastest = 0;
	for (size_t i = 1; i < n; i++)
		if (rows[i].mean < rows[fastest].mean)
			fastest = i;
	for (size_t i = 0; i < n; i++) {
		const struct hf_row *x = &rows[i], *f = &rows[fastest];
		sbuf_adds(out, "| `");
		for (const char *p = x->name; *p; p++) {
			if (*p == '|')
				sbuf_addch(out, '\\');
			sbuf_addch(out, *p == '\n' ? ' ' : *p);
		}
		sbuf_adds(out, "` | ");
		sbuf_addf(out, "%.1f", x->mean * scale);
		if (isfinite(x->stddev))
			sbuf_addf(out, " ± %.1f", x->stddev * scale);
		sbuf_addf(out, " | %.1f | %.1f | ", x->min * scale, x->max * scale);
		double ratio = f->mean > 0 ? x->mean / f->mean : NAN;
		if (i == fastest) {
			sbuf_adds(out, "1.00");
		} else {
			sbuf_addf(out, "%.2f", ratio);
			if (isfinite(x->stddev) && isfinite(f->stddev) && x->mean > 0 &&
			    f->mean > 0)
				sbuf_addf(out, " ± %.2f",
					  ratio * sqrt(pow(x->stddev / x->mean, 2) +
						       pow(f->stddev / f->mean, 2)));
		}
		sbuf_adds(out, " |\n");
	}
	hf_rows_free(rows, n);
	return 0;
}
