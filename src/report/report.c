/*
 * report/report: report_render(), which hands a run_result to the writer
 * of the format asked for (report.h; the format names are model/formats.h's).
 */
#include "report/report.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "base/xalloc.h"
#include "report/section.h"

void report_options_init(struct report_options *o)
{
	memset(o, 0, sizeof(*o));
	o->section = REPORT_SECTION_DEFAULT;
}

int report_render(const struct run_result *r, enum report_format f, const struct report_options *o,
		  struct sbuf *out, struct sbuf *err)
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
	case REPORT_HYPERFINE:
		return report_write_hyperfine(r, o, out, err);
	case REPORT_BMF:
		return report_write_bmf(r, o, out, err);
	case REPORT_JUNIT:
		return report_write_junit(r, o, out, err);
	case REPORT_HYPERFINE_CSV:
		return report_write_hyperfine_csv(r, o, out, err);
	case REPORT_HYPERFINE_MARKDOWN:
		return report_write_hyperfine_markdown(r, o, out, err);
	default:
		sbuf_addf(err, "unknown report format '%s'", report_format_name(f));
		return -1;
	}
}

int report_value_is_integral(enum metric_id m, double v)
{
	/* 2^63: beyond it llround() is undefined; such values stay doubles. */
	return metric_get(m)->integral && isfinite(v) && fabs(v) < 9223372036854775808.0;
}

size_t report_profile_top(const struct command_result *c, size_t max, size_t *idx)
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
			if (best == SIZE_MAX || ps->changes[i].self_ns[PROFILE_HEAD] >
						    ps->changes[best].self_ns[PROFILE_HEAD])
				best = i;
		}
		if (best == SIZE_MAX)
			break;
		idx[n++] = best;
	}
	return n;
}

void report_profile_verdict(struct sbuf *out, const struct profile_change *ch, int with_q)
{
	switch (ch->verdict) {
	case PROFILE_SAME:
		sbuf_adds(out, "not significant");
		if (with_q && !isnan(ch->q_value))
			sbuf_addf(out, ", q %.2g", ch->q_value);
		return;
	case PROFILE_TOO_FEW:
		sbuf_adds(out, "too few samples");
		return;
	case PROFILE_GREW:
	case PROFILE_SHRANK:
		break;
	}
	sbuf_adds(out, profile_verdict_name(ch->verdict));
}

void report_profile_ms(struct sbuf *out, double ns, int sign)
{
	if (isnan(ns)) {
		sbuf_adds(out, "–");
		return;
	}
	double ms = ns / 1e6;
	double a = fabs(ms);
	const char *fmt = sign ? (a >= 100  ? "%+.0f ms"
				  : a >= 10 ? "%+.1f ms"
					    : "%+.2f ms")
			       : (a >= 100  ? "%.0f ms"
				  : a >= 10 ? "%.1f ms"
					    : "%.2f ms");
	sbuf_addf(out, fmt, ms);
}

/* One function's row of the Markdown profile table. */
static void profile_md_row(struct sbuf *out, struct sbuf *tmp, const struct profile_set *ps,
			   const struct profile_change *ch, int two)
{
	sbuf_adds(out, "|");
	report_md_cell(out, ps->funcs[ch->func].function);
	report_md_cell(out, ps->funcs[ch->func].binary);
	sbuf_reset(tmp);
	if (two) {
		report_profile_ms(tmp, ch->self_ns[PROFILE_BASE], 0);
		sbuf_adds(tmp, " → ");
	}
	report_profile_ms(tmp, ch->self_ns[PROFILE_HEAD], 0);
	report_md_cell(out, tmp->buf);
	if (two) {
		sbuf_reset(tmp);
		report_profile_ms(tmp, ch->change_ns, 1);
		report_md_cell(out, tmp->buf);
		sbuf_reset(tmp);
		if (!isnan(ch->ci_low_ns)) {
			report_profile_ms(tmp, ch->ci_low_ns, 1);
			sbuf_adds(tmp, " … ");
			report_profile_ms(tmp, ch->ci_high_ns, 1);
		} else {
			sbuf_adds(tmp, "–");
		}
		report_md_cell(out, tmp->buf);
		sbuf_reset(tmp);
		if (isnan(ch->q_value))
			sbuf_adds(tmp, "–");
		else
			sbuf_addf(tmp, "%.2g", ch->q_value);
		report_md_cell(out, tmp->buf);
		sbuf_reset(tmp);
		report_profile_verdict(tmp, ch, 0);
		report_md_cell(out, tmp->buf);
	}
}

void report_profile_markdown(struct sbuf *out, const struct run_result *r, int only_regressions,
			     size_t max)
{
	struct sbuf tmp = SBUF_INIT;
	size_t *idx = xcalloc(max + 1, sizeof(*idx));
	int heading = 0;
	for (size_t i = 0; i < r->nr_suites; i++)
		for (size_t b = 0; b < r->suites[i].nr_benches; b++) {
			const struct bench_result *br = &r->suites[i].benches[b];
			for (size_t c = 0; c < br->nr_commands; c++) {
				const struct command_result *cr = &br->commands[c];
				const struct profile_set *ps = cr->profile;
				int two = cr->side[SIDE_BASE].present;
				if (!ps && !cr->profile_error)
					continue;
				if (only_regressions && cr->result != RESULT_REGRESSION)
					continue;
				size_t n = report_profile_top(cr, max, idx);
				report_md_command_label(
				    out, &heading,
				    only_regressions ? "#### Functions under a regression\n\n"
						     : "#### Sampled profiles\n\n",
				    "", br->name, cr->name);
				if (ps) {
					sbuf_reset(&tmp);
					size_t runs[PROFILE_SIDES] = {0, 0};
					for (size_t k = 0; k < ps->nr_runs; k++)
						runs[ps->runs[k].side]++;
					sbuf_addf(
					    &tmp, " · %s at %u Hz · %zu sampled run%s per side",
					    ps->event ? ps->event : "?", ps->frequency,
					    runs[PROFILE_HEAD], runs[PROFILE_HEAD] == 1 ? "" : "s");
					if (ps->lost[0] + ps->lost[1])
						sbuf_addf(&tmp, " · %llu lost",
							  (unsigned long long)(ps->lost[0] +
									       ps->lost[1]));
					report_md_escape(out, tmp.buf);
				}
				sbuf_adds(out, "\n\n");
				if (cr->profile_error) {
					sbuf_adds(out, "> profile: ");
					report_md_escape(out, cr->profile_error);
					sbuf_adds(out, "\n\n");
				}
				if (!n) {
					if (ps)
						sbuf_adds(
						    out,
						    "No function had enough samples to judge.\n\n");
					continue;
				}
				sbuf_adds(
				    out,
				    two ? "| function | binary | base → head | change | interval | "
					  "q | verdict |\n"
					  "|---|---|--:|--:|--:|--:|---|\n"
					: "| function | binary | self time |\n|---|---|--:|\n");
				for (size_t k = 0; k < n; k++) {
					profile_md_row(out, &tmp, ps, &ps->changes[idx[k]], two);
					sbuf_addch(out, '\n');
				}
				sbuf_addch(out, '\n');
			}
		}
	free(idx);
	sbuf_release(&tmp);
}
