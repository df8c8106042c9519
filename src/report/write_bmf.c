/*
 * `bmf`: Bencher Metric Format (https://bencher.dev/docs/reference/
 * bencher-metric-format), what `bencher run --adapter json` reads, so that
 * a report can go to a Bencher server:
 *
 *   {"BENCHMARK": {"MEASURE": {"value": N, "lower_value": N,
 *                              "upper_value": N}}}
 *
 * One benchmark per command, named "BENCHMARK/COMMAND" (with the suite's
 * name in front when the report holds more than one suite; under `bench`
 * the command's own name, as Bencher's hyperfine adapter names it). A
 * name longer than Bencher's limit (1,024 characters) is cut and ends in
 * "#" and 16 hex digits of a hash of the whole name, so that two long
 * names stay apart. Its measures are every metric measured on the head
 * side (the one side under `run`), keyed by a slug: Bencher's built-in
 * measures where one exists — `latency` (nanoseconds), `throughput` (the
 * work unit per second) and `instructions` (a count) — and otherwise a
 * custom measure Bencher creates on first sight, in kagari's base unit:
 * cpu-user, cpu-system, cpu-total (ns), cpu-utilization (a ratio),
 * peak-rss (bytes), cycles, branch-misses, cache-misses, estimated-cycles,
 * allocs, syscalls (counts), alloc-bytes, peak-heap (bytes), ipc (a ratio);
 * docs/exports.md lists them.
 * `value` is the mean of the runs and `lower_value`/`upper_value` the
 * mean minus and plus one sample standard deviation (what Bencher's own
 * hyperfine adapter reports by default; the lower one not below 0, since
 * no metric is negative); a single run has no bounds. A
 * metric that was not measured is left out, never written as 0.
 */
#include "report/report.h"

#include <math.h>
#include <stdint.h>
#include <string.h>

#include "report/json_emit.h"

static void measure_slug(struct sbuf *out, enum metric_id m)
{
	sbuf_reset(out);
	for (const char *p = metric_get(m)->name; *p; p++)
		sbuf_addch(out, *p == '_' ? '-' : *p);
}

/* Bencher's limit on a benchmark name, in characters. */
#define BMF_NAME_MAX 1024

/* A name Bencher takes: cut with a hash suffix past BMF_NAME_MAX. */
static void bmf_name(struct sbuf *name)
{
	size_t chars = 0;
	for (size_t i = 0; i < name->len; i++)
		chars += ((unsigned char)name->buf[i] & 0xC0) != 0x80;
	if (chars <= BMF_NAME_MAX)
		return;
	uint64_t h = UINT64_C(1469598103934665603);
	for (size_t i = 0; i < name->len; i++) {
		h ^= (unsigned char)name->buf[i];
		h *= UINT64_C(1099511628211);
	}
	/* Keep BMF_NAME_MAX - 17 characters, ending at a character boundary. */
	size_t keep = 0, n = 0;
	while (keep < name->len) {
		size_t next = keep + 1;
		while (next < name->len && ((unsigned char)name->buf[next] & 0xC0) == 0x80)
			next++;
		if (n + 1 > BMF_NAME_MAX - 17)
			break;
		keep = next;
		n++;
	}
	sbuf_setlen(name, keep);
	sbuf_addf(name, "#%016llx", (unsigned long long)h);
}

static void emit_command(struct json_emit *j, const struct run_result *r,
			 const struct suite_result *s, const struct bench_result *b,
			 const struct command_result *c, struct sbuf *tmp, struct strvec *used)
{
	const struct side_result *head = &c->side[SIDE_HEAD];
	if (!head->present || !head->count)
		return;
	sbuf_reset(tmp);
	if (run_mode(r) == RUN_MODE_BENCH) {
		sbuf_adds(tmp, c->name);
	} else {
		if (r->nr_suites > 1)
			sbuf_addf(tmp, "%s/", s->name);
		sbuf_addf(tmp, "%s/%s", b->name, c->name);
	}
	bmf_name(tmp);
	/* BMF's benchmarks are object keys: a name bench was given twice
	   (-L values a command does not use) gets " #2", " #3" ... */
	if (strvec_contains(used, tmp->buf)) {
		struct sbuf alt = SBUF_INIT;
		for (int k = 2;; k++) {
			sbuf_reset(&alt);
			sbuf_addf(&alt, "%s #%d", tmp->buf, k);
			if (!strvec_contains(used, alt.buf))
				break;
		}
		sbuf_reset(tmp);
		sbuf_adds(tmp, alt.buf);
		sbuf_release(&alt);
	}
	strvec_push(used, tmp->buf);
	json_emit_key(j, tmp->buf);
	json_emit_begin_object(j);
	for (int m = 0; m < METRIC__COUNT; m++) {
		const struct metric_series *ms = &head->metric[m];
		if (ms->status != MSTATUS_OK || !ms->nr)
			continue;
		double sum = 0, ss = 0;
		for (size_t i = 0; i < ms->nr; i++)
			sum += ms->samples[i].value;
		double mean = sum / (double)ms->nr;
		for (size_t i = 0; i < ms->nr; i++)
			ss += (ms->samples[i].value - mean) * (ms->samples[i].value - mean);
		if (!isfinite(mean))
			continue;
		measure_slug(tmp, (enum metric_id)m);
		json_emit_key(j, tmp->buf);
		json_emit_begin_object_inline(j);
		json_emit_kv_double(j, "value", mean);
		if (ms->nr > 1) {
			double sd = sqrt(ss / (double)(ms->nr - 1));
			json_emit_kv_double(j, "lower_value", mean - sd > 0 ? mean - sd : 0);
			json_emit_kv_double(j, "upper_value", mean + sd);
		}
		json_emit_end_object(j);
	}
	json_emit_end_object(j);
}

int report_write_bmf(const struct run_result *r, const struct report_options *o, struct sbuf *out,
		     struct sbuf *err)
{
	struct json_emit j;
	struct sbuf tmp = SBUF_INIT;
	struct strvec used = STRVEC_INIT;
	(void)o;
	json_emit_init(&j, out, 1);
	json_emit_begin_object(&j);
	for (size_t i = 0; i < r->nr_suites; i++)
		for (size_t b = 0; b < r->suites[i].nr_benches; b++) {
			const struct bench_result *br = &r->suites[i].benches[b];
			for (size_t c = 0; c < br->nr_commands; c++)
				emit_command(&j, r, &r->suites[i], br, &br->commands[c], &tmp,
					     &used);
		}
	json_emit_end_object(&j);
	sbuf_release(&tmp);
	strvec_clear(&used);
	if (json_emit_finish(&j) < 0) {
		sbuf_adds(err, "internal error: the BMF export is malformed");
		return -1;
	}
	sbuf_addch(out, '\n');
	return 0;
}
