/*
 * report/report: the format table and report_render(), which hands a
 * run_result to the writer of the format asked for (report.h).
 */
#include "report/report.h"

#include <math.h>
#include <string.h>

#include "report/section.h"

static const char *const format_names[] = {
	[REPORT_TABLE] = "table",
	[REPORT_JSON] = "json",
	[REPORT_CSV] = "csv",
	[REPORT_SAMPLES_CSV] = "samples-csv",
	[REPORT_MARKDOWN] = "markdown",
	[REPORT_GITHUB] = "github",
	[REPORT_HTML] = "html",
};

int report_format_parse(const char *name, enum report_format *out)
{
	for (size_t i = 0; i < sizeof(format_names) / sizeof(*format_names);
	     i++) {
		if (!strcmp(name, format_names[i])) {
			*out = (enum report_format)i;
			return 0;
		}
	}
	return -1;
}

const char *report_format_name(enum report_format f)
{
	if ((size_t)f >= sizeof(format_names) / sizeof(*format_names))
		return "unknown";
	return format_names[f];
}

void report_options_init(struct report_options *o)
{
	memset(o, 0, sizeof(*o));
	o->section = REPORT_SECTION_DEFAULT;
}

int report_render(const struct run_result *r, enum report_format f,
		  const struct report_options *o, struct sbuf *out,
		  struct sbuf *err)
{
	struct report_options defaults;

	if (!o) {
		report_options_init(&defaults);
		o = &defaults;
	}
	switch (f) {
	case REPORT_TABLE:
		return report_write_table(r, o, out, err);
	case REPORT_JSON:
		return report_write_json(r, o, out, err);
	case REPORT_CSV:
		return report_write_csv(r, o, out, err);
	case REPORT_SAMPLES_CSV:
		return report_write_samples_csv(r, o, out, err);
	case REPORT_MARKDOWN:
		return report_write_markdown(r, o, out, err);
	case REPORT_GITHUB:
		return report_write_github(r, o, out, err);
	case REPORT_HTML:
		return report_write_html(r, o, out, err);
	default:
		sbuf_addf(err, "unknown report format '%s'",
			  report_format_name(f));
		return -1;
	}
}

void report_metric_unit(struct sbuf *out, const struct command_result *c,
			enum metric_id m)
{
	if (m == METRIC_THROUGHPUT && c && c->throughput_unit &&
	    *c->throughput_unit)
		sbuf_addf(out, "%s/s", c->throughput_unit);
	else
		sbuf_adds(out, metric_get(m)->unit_name);
}

int report_value_is_integral(enum metric_id m, double v)
{
	/* 2^63: beyond it llround() is undefined; such values stay doubles. */
	return metric_get(m)->integral && isfinite(v) &&
	       fabs(v) < 9223372036854775808.0;
}

size_t report_profile_top(const struct command_result *c, size_t max,
			  size_t *idx)
{
	const struct profile_set *ps = c->profile;
	size_t n = 0;
	if (!ps)
		return 0;
	/* changes[] is ordered grown, shrunk, same (by |change|), too few. */
	if (c->side[SIDE_BASE].present) {
		for (size_t i = 0; i < ps->nr_changes && n < max; i++)
			if (ps->changes[i].verdict != PROFILE_TOO_FEW)
				idx[n++] = i;
		return n;
	}
	/* One side: by self time. */
	for (size_t k = 0; k < max; k++) {
		size_t best = SIZE_MAX;
		for (size_t i = 0; i < ps->nr_changes; i++) {
			int taken = 0;
			for (size_t j = 0; j < n; j++)
				taken |= idx[j] == i;
			if (taken || ps->changes[i].verdict == PROFILE_TOO_FEW)
				continue;
			if (best == SIZE_MAX ||
			    ps->changes[i].self_ns[PROFILE_HEAD] >
				    ps->changes[best].self_ns[PROFILE_HEAD])
				best = i;
		}
		if (best == SIZE_MAX)
			break;
		idx[n++] = best;
	}
	return n;
}

void report_profile_ms(struct sbuf *out, double ns, int sign)
{
	if (isnan(ns)) {
		sbuf_adds(out, "–");
		return;
	}
	double ms = ns / 1e6;
	double a = fabs(ms);
	const char *fmt = sign ? (a >= 100 ? "%+.0f ms" : a >= 10 ? "%+.1f ms" : "%+.2f ms")
			       : (a >= 100 ? "%.0f ms" : a >= 10 ? "%.1f ms" : "%.2f ms");
	sbuf_addf(out, fmt, ms);
}
