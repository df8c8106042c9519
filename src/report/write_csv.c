/*
 * `csv` and `samples-csv`: flat tables for spreadsheets and scripts.
 *
 * Quoting follows RFC 4180: a field holding a comma, a double quote, CR or
 * LF is enclosed in double quotes, with inner quotes doubled. Records end
 * with "\n" (what Unix tools, R and Python's csv module read). A value that
 * was not measured is an empty cell, never 0.
 *
 * A text field that begins with '=', '+', '-', '@', a tab or a CR gets a
 * leading "'" (OWASP's advice against CSV injection): a spreadsheet would
 * otherwise run a suite named "=HYPERLINK(...)" as a formula. Numbers are
 * never text fields here, so a negative value stays a number.
 */
#include "report/report.h"
#include "report/describe.h"

#include <inttypes.h>
#include <math.h>
#include <string.h>

#include "report/json_emit.h"

static void csv_field(struct sbuf *out, const char *s)
{
	if (!s)
		return;
	int formula = *s && strchr("=+-@\t\r", *s);
	if (!strpbrk(s, ",\"\r\n")) {
		if (formula)
			sbuf_addch(out, '\'');
		sbuf_adds(out, s);
		return;
	}
	sbuf_addch(out, '"');
	if (formula)
		sbuf_addch(out, '\'');
	for (; *s; s++) {
		if (*s == '"')
			sbuf_addch(out, '"');
		sbuf_addch(out, *s);
	}
	sbuf_addch(out, '"');
}

static void csv_sep_field(struct sbuf *out, const char *s)
{
	sbuf_addch(out, ',');
	csv_field(out, s);
}

/* ",<value>": integral metrics as integers, others shortest round-trip. */
static void csv_value(struct sbuf *out, enum metric_id m, double v)
{
	sbuf_addch(out, ',');
	if (report_value_is_integral(m, v))
		sbuf_addf(out, "%" PRId64, (int64_t)llround(v));
	else
		json_format_double_plain(out, v);
}

static void csv_ratio(struct sbuf *out, double v)
{
	sbuf_addch(out, ',');
	json_format_double_plain(out, v);
}

/* suite,benchmark,command,side — the leading key of every record. */
static void csv_key(struct sbuf *out, const struct suite_result *s, const struct bench_result *b,
		    const struct command_result *c, enum side sd)
{
	csv_field(out, s->name);
	csv_sep_field(out, b->name);
	csv_sep_field(out, c->name);
	csv_sep_field(out, side_name(sd));
}

static void csv_stats_row(struct sbuf *out, const struct command_result *c, enum metric_id m,
			  const struct metric_series *ms, struct sbuf *unit)
{
	csv_sep_field(out, metric_get(m)->name);
	sbuf_reset(unit);
	report_metric_unit(unit, c, m);
	csv_sep_field(out, unit->buf);
	csv_sep_field(out, metric_status_name(ms->status));
	if (!ms->have_summary) {
		sbuf_adds(out, ",,,,,,,,,,\n");
		return;
	}
	const struct summary *x = &ms->summary;
	sbuf_addf(out, ",%zu", x->count);
	csv_value(out, m, x->min);
	csv_value(out, m, x->median);
	csv_value(out, m, x->mean);
	csv_value(out, m, x->max);
	csv_value(out, m, x->stddev);
	csv_ratio(out, x->cv);
	csv_value(out, m, x->p90);
	csv_value(out, m, x->p95);
	csv_value(out, m, x->p99);
	sbuf_addch(out, '\n');
}

static void csv_sample_rows(struct sbuf *out, const struct suite_result *s,
			    const struct bench_result *b, const struct command_result *c,
			    enum side sd, enum metric_id m, struct sbuf *unit)
{
	const struct metric_series *ms = &c->side[sd].metric[m];

	sbuf_reset(unit);
	report_metric_unit(unit, c, m);
	for (size_t i = 0; i < ms->nr; i++) {
		csv_key(out, s, b, c, sd);
		sbuf_addf(out, ",%d,%d", ms->samples[i].round, ms->samples[i].run);
		csv_sep_field(out, metric_get(m)->name);
		csv_sep_field(out, unit->buf);
		csv_value(out, m, ms->samples[i].value);
		/* Empty when the run had no layout pad (layout_noise off, or
		   an instrumented run). */
		sbuf_addch(out, ',');
		if (ms->samples[i].layout_pad >= 0)
			sbuf_addf(out, "%d", ms->samples[i].layout_pad);
		sbuf_addch(out, '\n');
	}
}

/* The records of one command: each present side (base first), each metric
 * that is not absent. */
static void csv_command(struct sbuf *out, const struct suite_result *s,
			const struct bench_result *b, const struct command_result *c, int samples,
			struct sbuf *unit)
{
	for (int sd = 0; sd < SIDE__COUNT; sd++) {
		if (!c->side[sd].present)
			continue;
		for (int m = 0; m < METRIC__COUNT; m++) {
			const struct metric_series *ms = &c->side[sd].metric[m];
			if (ms->status == MSTATUS_ABSENT)
				continue;
			if (samples) {
				csv_sample_rows(out, s, b, c, sd, m, unit);
			} else {
				csv_key(out, s, b, c, sd);
				csv_stats_row(out, c, m, ms, unit);
			}
		}
	}
}

static void csv_walk(const struct run_result *r, struct sbuf *out, int samples)
{
	struct sbuf unit = SBUF_INIT;

	for (size_t si = 0; si < r->nr_suites; si++) {
		const struct suite_result *s = &r->suites[si];
		for (size_t bi = 0; bi < s->nr_benches; bi++) {
			const struct bench_result *b = &s->benches[bi];
			for (size_t ci = 0; ci < b->nr_commands; ci++)
				csv_command(out, s, b, &b->commands[ci], samples, &unit);
		}
	}
	sbuf_release(&unit);
}

int report_write_csv(const struct run_result *r, const struct report_options *o, struct sbuf *out,
		     struct sbuf *err)
{
	(void)o;
	(void)err;
	sbuf_adds(out, "suite,benchmark,command,side,metric,unit,status,count,"
		       "min,median,mean,max,stddev,cv,p90,p95,p99\n");
	csv_walk(r, out, 0);
	return 0;
}

int report_write_samples_csv(const struct run_result *r, const struct report_options *o,
			     struct sbuf *out, struct sbuf *err)
{
	(void)o;
	(void)err;
	sbuf_adds(out, "suite,benchmark,command,side,round,run,metric,unit,"
		       "value,layout_pad\n");
	csv_walk(r, out, 1);
	return 0;
}
