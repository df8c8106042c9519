/*
 * report/write_table_bench: the table of `kagari bench`, in hyperfine's
 * layout (each command's time ± σ, range, user and system, then "'a' ran
 * N ± σ times faster than 'b'") with kagari's paired change and verdict
 * beside it, the warnings and the gate line. A second writer of the
 * `table` format, apart from kagari's own (write_table.c), whose text
 * helpers it shares through write_table_internal.h.
 */
#include "report/write_table_internal.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "analyze/format.h"
#include "base/xalloc.h"
#include "report/describe.h"

/* ---- kagari bench: hyperfine's layout ---------------------------------- */

/* A time in seconds in the unit of o->time_unit, else ms below 1 s. */
static void hf_time(struct sbuf *out, const struct report_options *o, double secs, int width)
{
	double scale;
	const char *u;
	report_hyperfine_unit(o->time_unit, secs, &scale, &u);
	int prec = scale == 1 ? 3 : scale == 1e9 ? 0 : 1;
	sbuf_addf(out, "%*.*f %s", width, prec, secs * scale, u);
}

struct hf_cmd {
	const struct command_result *c;
	double mean, sd, min, max, user, sys;
	size_t n;
};

static int hf_stats(const struct command_result *c, struct hf_cmd *x)
{
	const struct side_result *s = &c->side[SIDE_HEAD];
	const struct metric_series *lat = &s->metric[METRIC_LATENCY];
	memset(x, 0, sizeof(*x));
	x->c = c;
	if (!s->present || lat->status != MSTATUS_OK || !lat->nr)
		return 0;
	double sum = 0, ss = 0, u = 0, y = 0;
	x->min = x->max = lat->samples[0].value;
	for (size_t i = 0; i < lat->nr; i++) {
		double v = lat->samples[i].value;
		sum += v;
		x->min = v < x->min ? v : x->min;
		x->max = v > x->max ? v : x->max;
	}
	x->n = lat->nr;
	x->mean = sum / (double)lat->nr;
	for (size_t i = 0; i < lat->nr; i++)
		ss += (lat->samples[i].value - x->mean) * (lat->samples[i].value - x->mean);
	x->sd = lat->nr > 1 ? sqrt(ss / (double)(lat->nr - 1)) : NAN;
	for (size_t i = 0; i < s->nr_runs; i++) {
		u += s->runs[i].user_ns;
		y += s->runs[i].system_ns;
	}
	x->user = s->nr_runs ? u / (double)s->nr_runs : NAN;
	x->sys = s->nr_runs ? y / (double)s->nr_runs : NAN;
	x->mean /= 1e9, x->sd /= 1e9, x->min /= 1e9, x->max /= 1e9, x->user /= 1e9, x->sys /= 1e9;
	return 1;
}

/* hyperfine's "Benchmark N: NAME (COMMAND)" line, its two lines of times
   when the command has statistics (x), and the command's error. */
static void hf_command(struct table *t, const struct command_result *c, size_t i,
		       const struct hf_cmd *x)
{
	const struct report_options *o = t->o;
	struct sbuf *out = t->out;

	table_paint(t, out, TC_BOLD, "Benchmark");
	sbuf_addf(out, " %zu: ", i + 1);
	table_add_safe(out, c->name);
	if (c->command && strcmp(c->command, c->name)) {
		sbuf_adds(out, " (");
		table_add_safe(out, c->command);
		sbuf_adds(out, ")");
	}
	sbuf_addch(out, '\n');
	if (x) {
		sbuf_adds(out, "  Time (mean ± σ):     ");
		hf_time(out, o, x->mean, 6);
		sbuf_adds(out, " ± ");
		if (isfinite(x->sd))
			hf_time(out, o, x->sd, 5);
		else
			sbuf_adds(out, "   n/a");
		sbuf_adds(out, "    [User: ");
		hf_time(out, o, x->user, 0);
		sbuf_adds(out, ", System: ");
		hf_time(out, o, x->sys, 0);
		sbuf_adds(out, "]\n  Range (min … max):   ");
		hf_time(out, o, x->min, 6);
		sbuf_adds(out, " … ");
		hf_time(out, o, x->max, 6);
		sbuf_addf(out, "    %zu run%s\n", x->n, x->n == 1 ? "" : "s");
	}
	if (c->error) {
		sbuf_adds(out, "  ");
		table_paint(t, out, TC_RED, "error:");
		sbuf_addch(out, ' ');
		table_add_safe(out, c->error);
		sbuf_addch(out, '\n');
	}
}

/*
 * kagari's paired change of command c against the first command, with its
 * interval and, when --max-percent gates, the verdict. Returns whether the
 * change is gated.
 */
static int hf_change(struct table *t, const struct command_result *c)
{
	struct sbuf *out = t->out;
	const struct comparison *cp = &c->comparison[METRIC_LATENCY];
	struct sbuf sb = SBUF_INIT;
	int gated = 0;

	if (!cp->present)
		return 0;
	sbuf_adds(out, "  Change vs Benchmark 1 (paired by round, ");
	sbuf_adds(out, cp->statistic ? cp->statistic : "median");
	sbuf_adds(out, "): ");
	units_format_change(&sb, cp->change_percent, cp->ci_low_percent, cp->ci_high_percent);
	/* hyperfine's users compare means: the change of the mean beside
	   the paired one, always */
	if (isfinite(cp->mean_change_percent)) {
		sbuf_adds(&sb, ", ");
		report_mean_text(&sb, cp);
	}
	sbuf_adds(out, sb.buf);
	if (cp->gate) {
		gated = 1;
		sbuf_adds(out, "  ");
		table_paint_safe(t, out, table_result_tcolor(result_from_verdict(cp->verdict)),
				 verdict_text(cp->verdict, ""));
		report_tolerance_note(out, cp);
	}
	if (cp->gate && cp->verdict != VERDICT_NONE && cp->verdict != VERDICT_PASS && cp->reason &&
	    *cp->reason) {
		struct sbuf why = SBUF_INIT;

		report_reason_text(&why, cp);
		sbuf_adds(out, "\n    ");
		table_add_safe(out, why.buf);
		sbuf_release(&why);
	}
	sbuf_addch(out, '\n');
	sbuf_release(&sb);
	return gated;
}

/* hyperfine's summary: the fastest and the others' ratios to it. */
static void hf_summary(struct table *t, const struct hf_cmd *x, size_t n)
{
	struct sbuf *out = t->out;
	size_t fastest = n, valid = 0;

	for (size_t i = 0; i < n; i++)
		if (x[i].n) {
			valid++;
			if (fastest == n || x[i].mean < x[fastest].mean)
				fastest = i;
		}
	if (valid <= 1)
		return;
	sbuf_adds(out, "\n");
	table_paint(t, out, TC_BOLD, "Summary");
	sbuf_adds(out, "\n  '");
	table_add_safe(out, x[fastest].c->name);
	sbuf_adds(out, "' ran\n");
	for (size_t i = 0; i < n; i++) {
		if (i == fastest || !x[i].n)
			continue;
		const struct hf_cmd *f = &x[fastest];
		double ratio = x[i].mean / f->mean;
		sbuf_addf(out, "    %.2f", ratio);
		if (isfinite(x[i].sd) && isfinite(f->sd))
			sbuf_addf(out, " ± %.2f",
				  ratio *
				      sqrt(pow(x[i].sd / x[i].mean, 2) + pow(f->sd / f->mean, 2)));
		sbuf_adds(out, " times faster than '");
		table_add_safe(out, x[i].c->name);
		sbuf_adds(out, "'\n");
	}
}

/*
 * The run's warnings. A warning every comparison gets ("bench/NAME
 * latency: TEXT") is said once, with the commands it concerns.
 */
static void hf_warnings(struct table *t)
{
	const struct run_result *r = t->r;
	struct sbuf *out = t->out;
	unsigned char *done = xcalloc(r->warnings.nr + 1, 1);

	for (size_t i = 0; i < r->warnings.nr; i++) {
		if (done[i])
			continue;
		const char *w = r->warnings.v[i], *rest = strstr(w, ": ");
		table_paint(t, out, TC_YELLOW, "warning:");
		sbuf_addch(out, ' ');
		size_t same = 0;
		for (size_t k = i + 1; rest && k < r->warnings.nr; k++) {
			const char *ow = strstr(r->warnings.v[k], ": ");
			same += !done[k] && ow && !strcmp(ow, rest);
		}
		if (!same) {
			table_add_safe(out, w);
			sbuf_addch(out, '\n');
			continue;
		}
		table_add_safe(out, rest + 2);
		sbuf_addf(out, " (%zu comparisons: ", same + 1);
		table_add_safe_len(out, w, (size_t)(rest - w));
		for (size_t k = i + 1; k < r->warnings.nr; k++) {
			const char *ow = strstr(r->warnings.v[k], ": ");
			if (done[k] || !ow || strcmp(ow, rest))
				continue;
			done[k] = 1;
			sbuf_adds(out, ", ");
			table_add_safe_len(out, r->warnings.v[k], (size_t)(ow - r->warnings.v[k]));
		}
		sbuf_adds(out, ")\n");
	}
	free(done);
}

/*
 * "gate: 1 pass, 1 regression · exit code 1": the verdicts of the gated
 * comparisons only — the first command is the reference, compared with
 * nothing, so it is no pass — and every command that failed to run.
 */
static void hf_gate(struct table *t, const struct bench_result *br)
{
	const struct run_summary *s = &t->r->summary;
	struct sbuf *out = t->out;
	struct sbuf sb = SBUF_INIT;
	int n[RESULT__COUNT] = {0};

	for (size_t i = 0; br && i < br->nr_commands; i++) {
		const struct command_result *c = &br->commands[i];
		const struct comparison *cp = &c->comparison[METRIC_LATENCY];
		if (c->result == RESULT_ERROR)
			n[RESULT_ERROR]++;
		else if (cp->present && cp->gate)
			n[result_from_verdict(cp->verdict)]++;
	}
	n[RESULT_PASS] += n[RESULT_WITHIN_NOISE];
	table_count_part(&sb, n[RESULT_PASS], "pass", 1);
	table_count_part(&sb, n[RESULT_IMPROVED], "improved", 0);
	table_count_part(&sb, n[RESULT_INCONCLUSIVE], "inconclusive", 0);
	table_count_part(&sb, n[RESULT_REGRESSION],
			 n[RESULT_REGRESSION] == 1 ? "regression" : "regressions", 0);
	table_count_part(&sb, n[RESULT_ERROR], n[RESULT_ERROR] == 1 ? "error" : "errors", 0);
	sbuf_adds(out, "\ngate: ");
	sbuf_adds(out, sb.buf);
	sbuf_adds(out, " · ");
	sbuf_reset(&sb);
	sbuf_addf(&sb, "exit code %d", s->exit_code);
	table_paint(t, out, s->exit_code ? TC_RED : TC_GREEN, sb.buf);
	sbuf_addch(out, '\n');
	sbuf_release(&sb);
}

/*
 * `kagari bench`: per command hyperfine's two lines (mean ± σ with user
 * and system time, min … max with the runs), kagari's paired change
 * against the first command with its interval (and, when --max-percent
 * gates, the verdict), then hyperfine's summary: the fastest command and
 * how many times faster it ran than each other one (± the σ of the
 * ratio). Only latency is measured, so only latency is shown.
 */
void table_write_bench(struct table *t)
{
	const struct run_result *r = t->r;
	struct sbuf *out = t->out;
	const struct bench_result *br = NULL;
	if (r->nr_suites && r->suites[0].nr_benches)
		br = &r->suites[0].benches[0];
	size_t n = br ? br->nr_commands : 0;
	struct hf_cmd *x = xcalloc(n + 1, sizeof(*x));
	int gated = 0;
	if (r->interrupted) {
		table_paint(t, out, TC_YELLOW, "interrupted: results are partial");
		sbuf_addch(out, '\n');
	}
	for (size_t i = 0; i < n; i++) {
		const struct command_result *c = &br->commands[i];
		int ok = hf_stats(c, &x[i]);
		if (i)
			sbuf_addch(out, '\n');
		hf_command(t, c, i, ok ? &x[i] : NULL);
		if (i > 0)
			gated |= hf_change(t, c);
	}
	hf_summary(t, x, n);
	if (r->warnings.nr)
		sbuf_addch(out, '\n');
	hf_warnings(t);
	if (gated || r->summary.exit_code)
		hf_gate(t, br);
	free(x);
}
