/*
 * `bmf`: Bencher Metric Format (https://bencher.dev/docs/reference/
 * bencher-metric-format), what `bencher run --adapter json` reads, so that
 * a report can go to a Bencher server:
 *
 *   {"BENCHMARK": {"MEASURE": {"value": N, "lower_value": N,
 *                              "upper_value": N}}}
 *
 * One benchmark per command, named "BENCHMARK/COMMAND" (with the suite's
 * name in front when the report holds more than one suite). Its measures
 * are every metric measured on the head side (the one side under `run`),
 * keyed by the metric's name in kebab case, which Bencher takes as the
 * measure's slug: `latency` is Bencher's built-in Latency measure, in
 * nanoseconds like kagari's; `throughput` (per second) its built-in
 * Throughput; the others (cpu-total, peak-rss, instructions ...) are made
 * by Bencher on first sight, in kagari's base units (ns, bytes, counts).
 * `value` is the statistic kagari compares that metric by (the median
 * unless the suite says `statistic: mean`), `lower_value` and
 * `upper_value` the smallest and largest run. A metric that was not
 * measured is left out, never written as 0.
 */
#include "report/report.h"

#include <math.h>
#include <string.h>

#include "report/json_emit.h"

static void measure_slug(struct sbuf *out, enum metric_id m)
{
	sbuf_reset(out);
	for (const char *p = metric_get(m)->name; *p; p++)
		sbuf_addch(out, *p == '_' ? '-' : *p);
}

static void emit_command(struct json_emit *j, const struct run_result *r,
			 const struct suite_result *s, const struct bench_result *b,
			 const struct command_result *c, struct sbuf *tmp)
{
	const struct side_result *head = &c->side[SIDE_HEAD];
	if (!head->present || !head->count)
		return;
	sbuf_reset(tmp);
	if (r->nr_suites > 1)
		sbuf_addf(tmp, "%s/", s->name);
	sbuf_addf(tmp, "%s/%s", b->name, c->name);
	json_emit_key(j, tmp->buf);
	json_emit_begin_object(j);
	for (int m = 0; m < METRIC__COUNT; m++) {
		const struct metric_series *ms = &head->metric[m];
		if (ms->status != MSTATUS_OK || !ms->have_summary)
			continue;
		const struct summary *x = &ms->summary;
		int mean = c->analysis.present &&
			   c->analysis.metric[m].statistic == STATISTIC_MEAN;
		double v = mean ? x->mean : x->median;
		if (!isfinite(v))
			continue;
		measure_slug(tmp, (enum metric_id)m);
		json_emit_key(j, tmp->buf);
		json_emit_begin_object_inline(j);
		json_emit_kv_double(j, "value", v);
		if (isfinite(x->min) && isfinite(x->max)) {
			json_emit_kv_double(j, "lower_value", x->min);
			json_emit_kv_double(j, "upper_value", x->max);
		}
		json_emit_end_object(j);
	}
	json_emit_end_object(j);
}

int report_write_bmf(const struct run_result *r, const struct report_options *o,
		     struct sbuf *out, struct sbuf *err)
{
	struct json_emit j;
	struct sbuf tmp = SBUF_INIT;
	(void)o;
	json_emit_init(&j, out, 1);
	json_emit_begin_object(&j);
	for (size_t i = 0; i < r->nr_suites; i++)
		for (size_t b = 0; b < r->suites[i].nr_benches; b++) {
			const struct bench_result *br = &r->suites[i].benches[b];
			for (size_t c = 0; c < br->nr_commands; c++)
				emit_command(&j, r, &r->suites[i], br, &br->commands[c], &tmp);
		}
	json_emit_end_object(&j);
	sbuf_release(&tmp);
	if (json_emit_finish(&j) < 0) {
		sbuf_adds(err, "internal error: the BMF export is malformed");
		return -1;
	}
	sbuf_addch(out, '\n');
	return 0;
}
