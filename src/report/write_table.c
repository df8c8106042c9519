/*
 * `table`: the report for humans (hyperfine-like).
 *
 *	kagari run · seed 42 · started 2024-05-01T10:00:00Z
 *
 *	demo (kagari.yaml)
 *
 *	  sort-20k [smoke] · 20 rounds
 *	    sort  ./build/sort --n 20000  pass
 *	      metric   median    mean ± σ             min … max   ...  n
 *	      latency  12.34 ms  12.41 ms ± 310.2 µs  12.01 ms …  ...  20
 *	      cycles   unsupported (perf_event_open is not permitted)
 *	      budget latency p95 <= 300ms: pass (actual 12.9 ms, below the
 *	      limit by 287.1 ms, -95.7%)
 *
 *	summary: 1 benchmark, 1 command: 1 pass · exit code 0
 *
 * Each benchmark is laid out in two passes: its lines are collected first
 * (cells of the metric and comparison tables kept apart), the column widths
 * computed in display columns (UTF-8 aware), then everything is written.
 * All user-controlled text is sanitised: control characters become `?` and
 * invalid UTF-8 becomes U+FFFD, so a program's stderr cannot drive the
 * terminal.
 *
 * Values, differences and percentages are formatted by analyze/format, so
 * that the table agrees with budget messages and the other writers.
 */
#include "report/report.h"
#include "report/describe.h"
#include "report/section.h"

#include <inttypes.h>
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "analyze/format.h"
#include "base/xalloc.h"
#include "report/json_emit.h"

enum tcolor { TC_NONE, TC_GREEN, TC_RED, TC_YELLOW, TC_BOLD, TC_DIM };

static const char *const tcolor_code[] = {
	[TC_NONE] = "",
	[TC_GREEN] = "\033[32m",
	[TC_RED] = "\033[31m",
	[TC_YELLOW] = "\033[33m",
	[TC_BOLD] = "\033[1m",
	[TC_DIM] = "\033[2m",
};

#define TABLE_MAX_CELLS 8
#define TABLE_GROUPS 3
#define GROUP_TEXT (-1)
#define GROUP_METRICS 0
#define GROUP_COMPARE 1
#define GROUP_PROFILE 2
#define PROFILE_ROWS 8

/* One output line of a benchmark block: free text or a row of cells. */
struct tline {
	int group;
	size_t indent;
	char *text; /* GROUP_TEXT: the whole line, colours included */
	size_t ncells;
	char *cell[TABLE_MAX_CELLS]; /* sanitised, without colour */
	enum tcolor color[TABLE_MAX_CELLS];
};

struct table {
	const struct run_result *r;
	const struct report_options *o;
	struct sbuf *out;
	struct tline *lines;
	size_t nr, alloc;
};

/* ---- text helpers ------------------------------------------------------ */

/* Display columns of code point cp: 0 for combining marks, 2 for wide. */
static size_t cp_width(uint32_t cp)
{
	if ((cp >= 0x0300 && cp <= 0x036F) || (cp >= 0x200B && cp <= 0x200F) ||
	    (cp >= 0xFE00 && cp <= 0xFE0F))
		return 0;
	if ((cp >= 0x1100 && cp <= 0x115F) || (cp >= 0x2E80 && cp <= 0xA4CF) ||
	    (cp >= 0xAC00 && cp <= 0xD7A3) || (cp >= 0xF900 && cp <= 0xFAFF) ||
	    (cp >= 0xFE30 && cp <= 0xFE4F) || (cp >= 0xFF00 && cp <= 0xFF60) ||
	    (cp >= 0xFFE0 && cp <= 0xFFE6) ||
	    (cp >= 0x1F300 && cp <= 0x1F64F) ||
	    (cp >= 0x1F900 && cp <= 0x1F9FF) ||
	    (cp >= 0x20000 && cp <= 0x3FFFD))
		return 2;
	return 1;
}

/* Display width of sanitised text (no control characters left). */
static size_t display_width(const char *s)
{
	size_t n = strlen(s), w = 0;
	for (size_t i = 0; i < n;) {
		uint32_t cp;
		i += json_utf8_next(s + i, n - i, &cp);
		w += cp_width(cp);
	}
	return w;
}

/*
 * Append s[0..n) safe for a terminal: tabs become a space, other control
 * characters (C0, DEL, C1) `?`, invalid UTF-8 U+FFFD.
 */
static void add_safe_len(struct sbuf *out, const char *s, size_t n)
{
	for (size_t i = 0; i < n;) {
		uint32_t cp;
		size_t k = json_utf8_next(s + i, n - i, &cp);
		if (cp == '\t')
			sbuf_addch(out, ' ');
		else if (cp < 0x20 || (cp >= 0x7F && cp <= 0x9F))
			sbuf_addch(out, '?');
		else if (cp == 0xFFFD)
			sbuf_adds(out, "\xEF\xBF\xBD");
		else
			sbuf_add(out, s + i, k);
		i += k;
	}
}

static void add_safe(struct sbuf *out, const char *s)
{
	if (s)
		add_safe_len(out, s, strlen(s));
}

/* Append sanitised s cut to at most `max` display columns (with "…"). */
static void add_safe_cut(struct sbuf *out, const char *s, size_t max)
{
	struct sbuf tmp = SBUF_INIT;
	add_safe(&tmp, s);
	if (display_width(tmp.buf) <= max) {
		sbuf_add(out, tmp.buf, tmp.len);
		sbuf_release(&tmp);
		return;
	}
	size_t w = 0;
	for (size_t i = 0; i < tmp.len;) {
		uint32_t cp;
		size_t k = json_utf8_next(tmp.buf + i, tmp.len - i, &cp);
		if (w + cp_width(cp) + 1 > max)
			break;
		w += cp_width(cp);
		sbuf_add(out, tmp.buf + i, k);
		i += k;
	}
	sbuf_adds(out, "…");
	sbuf_release(&tmp);
}

static void paint(const struct table *t, struct sbuf *out, enum tcolor c,
		  const char *s)
{
	int on = t->o->color && c != TC_NONE;
	if (on)
		sbuf_adds(out, tcolor_code[c]);
	sbuf_adds(out, s);
	if (on)
		sbuf_adds(out, "\033[0m");
}

/* paint() of sanitised user text. */
static void paint_safe(const struct table *t, struct sbuf *out, enum tcolor c,
		       const char *s)
{
	struct sbuf tmp = SBUF_INIT;
	add_safe(&tmp, s);
	paint(t, out, c, tmp.buf);
	sbuf_release(&tmp);
}

/* The colour of a command's, benchmark's or suite's result. */
static enum tcolor result_tcolor(enum result res)
{
	switch (res) {
	case RESULT_PASS:
	case RESULT_IMPROVED:
	case RESULT_ACCEPTED:
		return TC_GREEN;
	case RESULT_OVER_BUDGET:
	case RESULT_ERROR:
	case RESULT_REGRESSION:
		return TC_RED;
	case RESULT_UNSUPPORTED:
	case RESULT_INCONCLUSIVE:
	case RESULT_INTERRUPTED:
	case RESULT_NOT_RUN:
		return TC_YELLOW;
	case RESULT_SKIPPED:
		return TC_DIM;
	default: /* none, within_noise */
		return TC_NONE;
	}
}

/* The colour of a budget's status. */
static enum tcolor budget_color(enum budget_status st)
{
	switch (st) {
	case BUDGET_PASS:
		return TC_GREEN;
	case BUDGET_FAIL:
		return TC_RED;
	default:
		return TC_YELLOW;
	}
}

/* ---- values -------------------------------------------------------------- */

/*
 * A value of metric m as analyze/format prints it; throughput carries the
 * command's work unit ("1234.5 bytes/s" rather than "1234.5 /s").
 */
static void table_format_value(struct sbuf *out,
			       const struct command_result *c,
			       enum metric_id m, double v)
{
	/* One formatter for every writer; the table also cleans user text. */
	struct sbuf text = SBUF_INIT;
	report_value_text(&text, c, m, v);
	add_safe(out, text.buf);
	sbuf_release(&text);
}

/* ---- lines ------------------------------------------------------------- */

static struct tline *tline_new(struct table *t, int group, size_t indent)
{
	ALLOC_GROW(t->lines, t->nr + 1, t->alloc);
	struct tline *l = &t->lines[t->nr++];
	memset(l, 0, sizeof(*l));
	l->group = group;
	l->indent = indent;
	return l;
}

/* A free-text line; takes the text out of sb (which is left empty). */
static void tline_text(struct table *t, size_t indent, struct sbuf *sb)
{
	struct tline *l = tline_new(t, GROUP_TEXT, indent);
	l->text = sbuf_detach(sb);
}

/* Append a cell; s is sanitised and copied. */
static void tline_cell(struct tline *l, enum tcolor c, const char *s)
{
	struct sbuf tmp = SBUF_INIT;
	if (l->ncells >= TABLE_MAX_CELLS)
		return;
	add_safe(&tmp, s);
	l->color[l->ncells] = c;
	l->cell[l->ncells++] = sbuf_detach(&tmp);
}

/* Append a cell that takes sb's text (left empty). */
static void tline_cell_sb(struct tline *l, enum tcolor c, struct sbuf *sb)
{
	tline_cell(l, c, sb->buf);
	sbuf_reset(sb);
}

/*
 * Write the collected lines. A row's last cell is never padded and does not
 * widen its column, so that "unsupported (long reason)" after a metric name
 * does not stretch the median column.
 */
static void table_flush(struct table *t)
{
	size_t width[TABLE_GROUPS][TABLE_MAX_CELLS] = { { 0 } };

	for (size_t i = 0; i < t->nr; i++) {
		struct tline *l = &t->lines[i];
		if (l->group == GROUP_TEXT)
			continue;
		for (size_t c = 0; c + 1 < l->ncells; c++) {
			size_t w = display_width(l->cell[c]);
			if (w > width[l->group][c])
				width[l->group][c] = w;
		}
	}
	for (size_t i = 0; i < t->nr; i++) {
		struct tline *l = &t->lines[i];
		size_t start = t->out->len;
		sbuf_addchars(t->out, ' ', l->indent);
		if (l->group == GROUP_TEXT) {
			sbuf_adds(t->out, l->text);
			free(l->text);
		}
		for (size_t c = 0; c < l->ncells; c++) {
			paint(t, t->out, l->color[c], l->cell[c]);
			if (c + 1 < l->ncells) {
				size_t w = display_width(l->cell[c]);
				sbuf_addchars(t->out, ' ',
					      width[l->group][c] - w + 2);
			}
			free(l->cell[c]);
		}
		/* no trailing blanks (an empty last cell leaves padding) */
		while (t->out->len > start &&
		       t->out->buf[t->out->len - 1] == ' ')
			sbuf_setlen(t->out, t->out->len - 1);
		sbuf_addch(t->out, '\n');
	}
	t->nr = 0;
}

/* ---- blocks ------------------------------------------------------------ */

static int compare_mode(const struct command_result *c)
{
	return c->side[SIDE_BASE].present;
}

static void metric_header(struct table *t, size_t indent, int two_sided)
{
	struct tline *l = tline_new(t, GROUP_METRICS, indent);
	tline_cell(l, TC_DIM, "metric");
	if (two_sided)
		tline_cell(l, TC_DIM, "side");
	tline_cell(l, TC_DIM, "median");
	tline_cell(l, TC_DIM, "mean ± σ");
	tline_cell(l, TC_DIM, "min … max");
	tline_cell(l, TC_DIM, "p95");
	tline_cell(l, TC_DIM, "n");
}

static void metric_row(struct table *t, size_t indent,
		       const struct command_result *c, enum metric_id m,
		       enum side sd, int two_sided, int first)
{
	const struct metric_series *ms = &c->side[sd].metric[m];
	struct tline *l = tline_new(t, GROUP_METRICS, indent);
	struct sbuf sb = SBUF_INIT;

	tline_cell(l, TC_NONE, first ? metric_get(m)->name : "");
	if (two_sided)
		tline_cell(l, TC_NONE, side_name(sd));
	if (ms->status == MSTATUS_UNSUPPORTED || ms->status == MSTATUS_FAILED) {
		sbuf_adds(&sb, ms->status == MSTATUS_UNSUPPORTED ? "unsupported"
								 : "failed");
		if (ms->reason)
			sbuf_addf(&sb, " (%s)", ms->reason);
		tline_cell_sb(l, ms->status == MSTATUS_FAILED ? TC_RED
							      : TC_YELLOW,
			      &sb);
		sbuf_release(&sb);
		return;
	}
	if (!ms->have_summary) {
		sbuf_addf(&sb, "%zu samples, no statistics", ms->nr);
		tline_cell_sb(l, TC_NONE, &sb);
		sbuf_release(&sb);
		return;
	}
	const struct summary *s = &ms->summary;
	table_format_value(&sb, c, m, s->median);
	tline_cell_sb(l, TC_BOLD, &sb);
	table_format_value(&sb, c, m, s->mean);
	sbuf_adds(&sb, " ± ");
	table_format_value(&sb, c, m, s->stddev);
	tline_cell_sb(l, TC_NONE, &sb);
	table_format_value(&sb, c, m, s->min);
	sbuf_adds(&sb, " … ");
	table_format_value(&sb, c, m, s->max);
	tline_cell_sb(l, TC_NONE, &sb);
	table_format_value(&sb, c, m, s->p95);
	tline_cell_sb(l, TC_NONE, &sb);
	sbuf_addf(&sb, "%zu", s->count);
	tline_cell_sb(l, TC_NONE, &sb);
	sbuf_release(&sb);
}

static void comparison_row(struct table *t, size_t indent,
			   const struct command_result *c, enum metric_id m)
{
	const struct comparison *cp = &c->comparison[m];
	struct tline *l = tline_new(t, GROUP_COMPARE, indent);
	struct sbuf sb = SBUF_INIT, text = SBUF_INIT;

	tline_cell(l, TC_NONE, metric_get(m)->name);
	report_base_head_text(&text, c, m, cp);
	add_safe(&sb, text.buf);
	tline_cell_sb(l, TC_NONE, &sb);
	report_change_text_plain(&sb, cp);
	tline_cell_sb(l, TC_NONE, &sb);
	tline_cell(l, result_tcolor(result_from_verdict(cp->verdict)),
		   verdict_text(cp->verdict, "n/a"));
	if (cp->decided_at_rounds > 0)
		sbuf_addf(&sb, "decided after %d rounds: ", cp->decided_at_rounds);
	report_reason_text(&sb, cp);
	if (!cp->gate)
		sbuf_adds(&sb, sb.len ? " (not gated)" : "not gated");
	tline_cell_sb(l, TC_NONE, &sb);
	sbuf_release(&sb);
	sbuf_release(&text);
}

/*
 * "budget latency p95 <= 300ms: FAIL (actual 320.1 ms, above the limit by
 * 20.1 ms, +6.7%)"
 */
static void budget_line(struct table *t, size_t indent,
			const struct command_result *c,
			const struct budget_result *b)
{
	struct sbuf sb = SBUF_INIT, text = SBUF_INIT;
	const char *st = b->status == BUDGET_PASS   ? "pass"
			 : b->status == BUDGET_FAIL ? "FAIL"
						    : "cannot be assessed";

	/* The words of report/describe.h, cleaned for a terminal. */
	sbuf_adds(&text, "budget ");
	report_budget_subject(&text, b);
	sbuf_addch(&text, ' ');
	report_budget_limit(&text, c, b);
	add_safe(&sb, text.buf);
	sbuf_adds(&sb, ": ");
	paint(t, &sb, budget_color(b->status), st);
	if (b->have_actual && isfinite(b->actual)) {
		double d = b->actual - b->limit;
		sbuf_adds(&sb, " (actual ");
		table_format_value(&sb, c, b->metric, b->actual);
		if (d == 0) {
			sbuf_adds(&sb, ", at the limit");
		} else if (isfinite(d)) {
			sbuf_adds(&sb, d > 0 ? ", above the limit by "
					     : ", below the limit by ");
			/* in the unit of the larger side: "by 287.1 ms" */
			double ref = fmax(fabs(b->actual), fabs(b->limit));
			sbuf_reset(&text);
			report_delta_text(&text, c, b->metric, fabs(d), ref);
			add_safe(&sb, text.buf);
			if (b->limit != 0) {
				sbuf_adds(&sb, ", ");
				units_format_percent(&sb,
						     d / fabs(b->limit) * 100);
			}
		}
		sbuf_addch(&sb, ')');
	}
	if (b->reason) {
		sbuf_adds(&sb,
			  b->status == BUDGET_UNASSESSABLE ? ": " : " — ");
		add_safe(&sb, b->reason);
	}
	tline_text(t, indent, &sb);
	sbuf_release(&sb);
	sbuf_release(&text);
}

static void error_lines(struct table *t, size_t indent,
			const struct command_result *c)
{
	struct sbuf sb = SBUF_INIT;

	if (c->error) {
		paint(t, &sb, TC_RED, "error:");
		sbuf_addch(&sb, ' ');
		add_safe(&sb, c->error);
		tline_text(t, indent, &sb);
	}
	if (c->stderr_tail && *c->stderr_tail) {
		sbuf_adds(&sb, "stderr (last lines):");
		tline_text(t, indent, &sb);
		const char *p = c->stderr_tail;
		while (*p) {
			const char *nl = strchr(p, '\n');
			size_t n = nl ? (size_t)(nl - p) : strlen(p);
			size_t shown = n && p[n - 1] == '\r' ? n - 1 : n;
			paint(t, &sb, TC_DIM, "|");
			if (shown)
				sbuf_addch(&sb, ' ');
			add_safe_len(&sb, p, shown);
			sbuf_rtrim(&sb);
			tline_text(t, indent + 2, &sb);
			p += n;
			if (*p)
				p++;
		}
	}
	sbuf_release(&sb);
}

/*
 * The sampled profile under a command: the event and run counts, then the
 * functions that changed most (report_profile_top), or why there is none.
 */
static void profile_block(struct table *t, size_t indent,
			  const struct command_result *c)
{
	const struct profile_set *ps = c->profile;
	struct sbuf sb = SBUF_INIT;
	int two = compare_mode(c);
	if (!ps) {
		if (c->profile_error) {
			paint(t, &sb, TC_YELLOW, "profile:");
			sbuf_addch(&sb, ' ');
			add_safe(&sb, c->profile_error);
			tline_text(t, indent, &sb);
		}
		sbuf_release(&sb);
		return;
	}
	size_t runs[PROFILE_SIDES] = { 0, 0 };
	for (size_t i = 0; i < ps->nr_runs; i++)
		runs[ps->runs[i].side]++;
	paint(t, &sb, TC_DIM, "profile");
	sbuf_adds(&sb, " (");
	add_safe(&sb, ps->event ? ps->event : "?");
	if (two)
		sbuf_addf(&sb, ", %zu+%zu sampled runs", runs[0], runs[1]);
	else
		sbuf_addf(&sb, ", %zu sampled runs", runs[1]);
	uint64_t lost = ps->lost[0] + ps->lost[1];
	uint64_t thr = ps->throttled[0] + ps->throttled[1];
	if (lost || thr)
		sbuf_addf(&sb, "; lost %llu, throttled %llu",
			  (unsigned long long)lost, (unsigned long long)thr);
	sbuf_adds(&sb, two ? "): self time per run, base → head" : "): self time per run");
	tline_text(t, indent, &sb);
	if (c->profile_error) {
		paint(t, &sb, TC_YELLOW, "profile stopped:");
		sbuf_addch(&sb, ' ');
		add_safe(&sb, c->profile_error);
		tline_text(t, indent + 2, &sb);
	}
	size_t idx[PROFILE_ROWS];
	size_t n = report_profile_top(c, PROFILE_ROWS, idx);
	if (!n) {
		sbuf_adds(&sb, "no function has enough samples");
		tline_text(t, indent + 2, &sb);
	}
	for (size_t k = 0; k < n; k++) {
		const struct profile_change *ch = &ps->changes[idx[k]];
		struct tline *l = tline_new(t, GROUP_PROFILE, indent + 2);
		tline_cell(l, TC_NONE, ps->funcs[ch->func].function);
		tline_cell(l, TC_DIM, ps->funcs[ch->func].binary);
		if (!two) {
			report_profile_ms(&sb, ch->self_ns[PROFILE_HEAD], 0);
			tline_cell_sb(l, TC_NONE, &sb);
			continue;
		}
		report_profile_ms(&sb, ch->self_ns[PROFILE_BASE], 0);
		sbuf_adds(&sb, " → ");
		report_profile_ms(&sb, ch->self_ns[PROFILE_HEAD], 0);
		tline_cell_sb(l, TC_NONE, &sb);
		report_profile_ms(&sb, ch->change_ns, 1);
		tline_cell_sb(l, TC_NONE, &sb);
		sbuf_adds(&sb, "[");
		report_profile_ms(&sb, ch->ci_low_ns, 1);
		sbuf_adds(&sb, ", ");
		report_profile_ms(&sb, ch->ci_high_ns, 1);
		sbuf_adds(&sb, "]");
		tline_cell_sb(l, TC_DIM, &sb);
		if (isnan(ch->q_value))
			sbuf_adds(&sb, "q –");
		else
			sbuf_addf(&sb, "q %.3g", ch->q_value);
		tline_cell_sb(l, TC_DIM, &sb);
		enum tcolor col = ch->verdict == PROFILE_GREW	  ? TC_RED
				  : ch->verdict == PROFILE_SHRANK ? TC_GREEN
								  : TC_NONE;
		tline_cell(l, col, profile_verdict_name(ch->verdict));
	}
	sbuf_release(&sb);
}

static void command_block(struct table *t, const struct command_result *c)
{
	struct sbuf sb = SBUF_INIT;
	int two = compare_mode(c);
	const char *res = result_text(c->result, "");
	size_t indent = 4;

	/* name, command line (cut to the terminal), result */
	paint_safe(t, &sb, TC_BOLD, c->name);
	if (c->command && *c->command) {
		sbuf_adds(&sb, "  ");
		if (t->o->terminal_width > 0) {
			size_t used = indent + display_width(c->name) + 4 +
				      strlen(res);
			size_t avail = (size_t)t->o->terminal_width > used + 10
					       ? (size_t)t->o->terminal_width -
							 used
					       : 10;
			add_safe_cut(&sb, c->command, avail);
		} else {
			add_safe(&sb, c->command);
		}
	}
	sbuf_adds(&sb, "  ");
	paint_safe(t, &sb, result_tcolor(c->result), res);
	tline_text(t, indent, &sb);

	int any = 0;
	for (int m = 0; m < METRIC__COUNT; m++)
		for (int s = 0; s < SIDE__COUNT; s++)
			if (c->side[s].present &&
			    c->side[s].metric[m].status == MSTATUS_OK)
				any = 1;
	if (any)
		metric_header(t, indent + 2, two);
	for (int m = 0; m < METRIC__COUNT; m++) {
		int first = 1;
		int s0 = two ? SIDE_BASE : SIDE_HEAD;
		for (int s = s0; s < SIDE__COUNT; s++) {
			if (!c->side[s].present ||
			    c->side[s].metric[m].status == MSTATUS_ABSENT)
				continue;
			metric_row(t, indent + 2, c, m, s, two, first);
			first = 0;
		}
	}

	int compared = 0;
	for (int m = 0; m < METRIC__COUNT; m++)
		compared |= c->comparison[m].present;
	if (compared) {
		paint(t, &sb, TC_DIM, "base → head");
		sbuf_addf(&sb, " (seed %" PRIu64 ")", t->r->seed);
		tline_text(t, indent + 2, &sb);
		for (int m = 0; m < METRIC__COUNT; m++)
			if (c->comparison[m].present)
				comparison_row(t, indent + 2, c, m);
	}
	for (size_t i = 0; i < c->nr_budgets; i++)
		budget_line(t, indent + 2, c, &c->budgets[i]);
	profile_block(t, indent + 2, c);
	error_lines(t, indent + 2, c);
	sbuf_release(&sb);
}

/*
 * With `baseline: NAME`, each command's median latency as a ratio of the
 * baseline command's (head side), like hyperfine's "x times faster".
 */
static void baseline_line(struct table *t, const struct bench_result *b)
{
	const struct metric_series *base = NULL;
	if (!b->baseline)
		return;
	for (size_t i = 0; i < b->nr_commands; i++)
		if (!strcmp(b->commands[i].name, b->baseline))
			base = &b->commands[i].side[SIDE_HEAD].metric[METRIC_LATENCY];
	if (!base || !base->have_summary || !(base->summary.median > 0))
		return;
	struct sbuf sb = SBUF_INIT;
	sbuf_adds(&sb, "relative to ");
	add_safe(&sb, b->baseline);
	sbuf_adds(&sb, " (median latency):");
	for (size_t i = 0; i < b->nr_commands; i++) {
		const struct metric_series *m =
			&b->commands[i].side[SIDE_HEAD].metric[METRIC_LATENCY];
		if (!m->have_summary)
			continue;
		sbuf_adds(&sb, i ? ", " : " ");
		add_safe(&sb, b->commands[i].name);
		sbuf_addf(&sb, " %.2fx", m->summary.median / base->summary.median);
	}
	tline_text(t, 4, &sb);
	sbuf_release(&sb);
}

static void bench_block(struct table *t, const struct bench_result *b)
{
	struct sbuf sb = SBUF_INIT;

	paint_safe(t, &sb, TC_BOLD, b->name);
	if (b->tags.nr) {
		sbuf_adds(&sb, " [");
		for (size_t i = 0; i < b->tags.nr; i++) {
			if (i)
				sbuf_adds(&sb, ", ");
			add_safe(&sb, b->tags.v[i]);
		}
		sbuf_addch(&sb, ']');
	}
	if (b->rounds > 0)
		sbuf_addf(&sb, " · %d round%s", b->rounds,
			  b->rounds == 1 ? "" : "s");
	if (b->result && b->result != RESULT_PASS) {
		sbuf_adds(&sb, " · ");
		paint_safe(t, &sb, result_tcolor(b->result), result_name(b->result));
	}
	tline_text(t, 2, &sb);
	for (size_t i = 0; i < b->nr_commands; i++)
		command_block(t, &b->commands[i]);
	baseline_line(t, b);
	sbuf_release(&sb);
	table_flush(t);
}

/* One command's part of its benchmark's verdict line, into sb ("; "
   between parts); name: the command's name goes first. */
static void lead_command(struct sbuf *sb, const struct command_result *c, int name)
{
	struct sbuf part = SBUF_INIT;
	const char *sep = sb->len ? "; " : "";
	if (c->error) {
		size_t n = strcspn(c->error, "\n");
		sbuf_addf(&part, "%s%s", name ? c->name : "", name ? ": " : "");
		sbuf_adds(&part, "error: ");
		sbuf_add(&part, c->error, n);
	}
	for (int m = 0; m < METRIC__COUNT && !c->error; m++) {
		const struct comparison *cp = &c->comparison[m];
		if (!cp->present || !cp->gate)
			continue;
		sbuf_addf(&part, "%s%s%s", part.len ? "; " : "", name ? c->name : "",
			  name ? " " : "");
		report_lead_change_text(&part, cp, (enum metric_id)m);
	}
	for (size_t i = 0; i < c->nr_budgets; i++) {
		const struct budget_result *bu = &c->budgets[i];
		if (bu->status == BUDGET_PASS)
			continue;
		sbuf_addf(&part, "%s%s%sbudget ", part.len ? "; " : "",
			  name ? c->name : "", name ? " " : "");
		report_budget_subject(&part, bu);
		sbuf_adds(&part, " ");
		report_budget_limit(&part, c, bu);
		sbuf_adds(&part, bu->status == BUDGET_FAIL ? ": FAIL" : ": cannot be assessed");
	}
	if (part.len) {
		sbuf_adds(sb, sep);
		add_safe(sb, part.buf);
	}
	sbuf_release(&part);
}

/*
 * A compare leads with its verdicts, one line per benchmark — the result
 * and each gated change with its interval and tolerance — and the details
 * follow:
 *
 *	  parse  regression  latency +18.0% [+14.2%, +21.9%] (tolerance 5%)
 */
static void lead_block(struct table *t)
{
	const struct run_result *r = t->r;
	int two = 0;
	for (size_t i = 0; i < r->nr_suites; i++)
		for (size_t b = 0; b < r->suites[i].nr_benches; b++)
			for (size_t c = 0; c < r->suites[i].benches[b].nr_commands; c++)
				two |= compare_mode(&r->suites[i].benches[b].commands[c]);
	if (!two)
		return;
	struct sbuf sb = SBUF_INIT;
	sbuf_addch(t->out, '\n');
	paint(t, t->out, TC_BOLD, "verdicts");
	sbuf_adds(t->out, " (details below)\n");
	for (size_t i = 0; i < r->nr_suites; i++)
		for (size_t b = 0; b < r->suites[i].nr_benches; b++) {
			const struct bench_result *br = &r->suites[i].benches[b];
			struct tline *l = tline_new(t, GROUP_METRICS, 2);
			if (r->nr_suites > 1 && r->suites[i].name)
				sbuf_addf(&sb, "%s/", r->suites[i].name);
			sbuf_adds(&sb, br->name ? br->name : "");
			tline_cell_sb(l, TC_BOLD, &sb);
			tline_cell(l, result_tcolor(br->result), result_text(br->result, "n/a"));
			for (size_t c = 0; c < br->nr_commands; c++)
				lead_command(&sb, &br->commands[c], br->nr_commands > 1);
			/* already sanitised; tline_cell() leaves clean text as it is */
			tline_cell_sb(l, TC_NONE, &sb);
		}
	table_flush(t);
	sbuf_release(&sb);
}

static void header(struct table *t)
{
	const struct run_result *r = t->r;
	struct sbuf *out = t->out;

	struct sbuf title = SBUF_INIT;

	sbuf_adds(&title, "kagari ");
	add_safe(&title, r->mode ? r->mode : "run");
	paint(t, out, TC_BOLD, title.buf);
	sbuf_release(&title);
	sbuf_addf(out, " · seed %" PRIu64, r->seed);
	if (r->started_at) {
		sbuf_adds(out, " · started ");
		add_safe(out, r->started_at);
	}
	sbuf_addch(out, '\n');
	struct sbuf shard = SBUF_INIT;
	if (report_shard_text(&shard, r)) {
		paint(t, out, TC_YELLOW, shard.buf);
		sbuf_addch(out, '\n');
	}
	sbuf_release(&shard);
	if (r->git.base_ref || r->git.base_sha) {
		const char *ref = report_base_ref_shown(&r->git);
		sbuf_adds(out, "base ");
		add_safe(out, ref ? ref : "");
		if (r->git.base_sha) {
			sbuf_addf(out, "%s", ref ? " (" : "");
			add_safe_len(out, r->git.base_sha,
				     strnlen(r->git.base_sha, 12));
			sbuf_addf(out, "%s", ref ? ")" : "");
		}
		sbuf_adds(out, " → head ");
		if (r->git.head_sha)
			add_safe_len(out, r->git.head_sha,
				     strnlen(r->git.head_sha, 12));
		else
			sbuf_adds(out, "working tree");
		if (r->git.dirty > 0)
			sbuf_adds(out, " + uncommitted changes");
		sbuf_addch(out, '\n');
	}
	if (r->interrupted) {
		paint(t, out, TC_YELLOW, "interrupted: results are partial");
		sbuf_addch(out, '\n');
	}
}

static void count_part(struct sbuf *sb, int n, const char *what, int always)
{
	if (n || always)
		sbuf_addf(sb, "%s%d %s", sb->len ? ", " : "", n, what);
}

static void footer(struct table *t)
{
	const struct run_result *r = t->r;
	const struct run_summary *s = &r->summary;
	struct sbuf *out = t->out;
	struct sbuf sb = SBUF_INIT;

	for (size_t i = 0; i < r->warnings.nr; i++) {
		paint(t, out, TC_YELLOW, "warning:");
		sbuf_addch(out, ' ');
		add_safe(out, r->warnings.v[i]);
		sbuf_addch(out, '\n');
	}
	count_part(&sb, s->pass, "pass", 1);
	count_part(&sb, s->improved, "improved", 0);
	count_part(&sb, s->inconclusive, "inconclusive", 0);
	count_part(&sb, s->accepted, "accepted", 0);
	count_part(&sb, s->regression,
		   s->regression == 1 ? "regression" : "regressions", 0);
	count_part(&sb, s->over_budget, "over budget", 0);
	count_part(&sb, s->error, s->error == 1 ? "error" : "errors", 0);
	sbuf_addf(out, "summary: %d benchmark%s, %d command%s: %s · ",
		  s->benchmarks, s->benchmarks == 1 ? "" : "s", s->commands,
		  s->commands == 1 ? "" : "s", sb.buf);
	sbuf_reset(&sb);
	sbuf_addf(&sb, "exit code %d", s->exit_code);
	paint(t, out, s->exit_code ? TC_RED : TC_GREEN, sb.buf);
	sbuf_addch(out, '\n');
	if (r->exit_reason && *r->exit_reason) {
		sbuf_adds(out, "  ");
		add_safe(out, r->exit_reason);
		sbuf_addch(out, '\n');
	}
	sbuf_release(&sb);
}

/* ---- kagari bench: hyperfine's layout ---------------------------------- */

/* A time in seconds in the unit of o->time_unit, else ms below 1 s. */
static void hf_time(struct sbuf *out, const struct report_options *o, double secs,
		    int width)
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
static void hf_command(struct table *t, const struct command_result *c,
		       size_t i, const struct hf_cmd *x)
{
	const struct report_options *o = t->o;
	struct sbuf *out = t->out;

	paint(t, out, TC_BOLD, "Benchmark");
	sbuf_addf(out, " %zu: ", i + 1);
	add_safe(out, c->name);
	if (c->command && strcmp(c->command, c->name)) {
		sbuf_adds(out, " (");
		add_safe(out, c->command);
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
		paint(t, out, TC_RED, "error:");
		sbuf_addch(out, ' ');
		add_safe(out, c->error);
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
	units_format_percent(&sb, cp->change_percent);
	if (isfinite(cp->ci_low_percent) && isfinite(cp->ci_high_percent)) {
		sbuf_adds(&sb, " [");
		units_format_percent(&sb, cp->ci_low_percent);
		sbuf_adds(&sb, ", ");
		units_format_percent(&sb, cp->ci_high_percent);
		sbuf_adds(&sb, "]");
	}
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
		paint_safe(t, out, result_tcolor(result_from_verdict(cp->verdict)), verdict_text(cp->verdict, ""));
		sbuf_addf(out, " (tolerance %g%%)", cp->max_percent);
	}
	if (cp->gate && cp->verdict != VERDICT_NONE && cp->verdict != VERDICT_PASS && cp->reason &&
	    *cp->reason) {
		struct sbuf why = SBUF_INIT;

		report_reason_text(&why, cp);
		sbuf_adds(out, "\n    ");
		add_safe(out, why.buf);
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
	paint(t, out, TC_BOLD, "Summary");
	sbuf_adds(out, "\n  '");
	add_safe(out, x[fastest].c->name);
	sbuf_adds(out, "' ran\n");
	for (size_t i = 0; i < n; i++) {
		if (i == fastest || !x[i].n)
			continue;
		const struct hf_cmd *f = &x[fastest];
		double ratio = x[i].mean / f->mean;
		sbuf_addf(out, "    %.2f", ratio);
		if (isfinite(x[i].sd) && isfinite(f->sd))
			sbuf_addf(out, " ± %.2f", ratio * sqrt(pow(x[i].sd / x[i].mean, 2) +
							  pow(f->sd / f->mean, 2)));
		sbuf_adds(out, " times faster than '");
		add_safe(out, x[i].c->name);
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
		paint(t, out, TC_YELLOW, "warning:");
		sbuf_addch(out, ' ');
		size_t same = 0;
		for (size_t k = i + 1; rest && k < r->warnings.nr; k++) {
			const char *ow = strstr(r->warnings.v[k], ": ");
			same += !done[k] && ow && !strcmp(ow, rest);
		}
		if (!same) {
			add_safe(out, w);
			sbuf_addch(out, '\n');
			continue;
		}
		add_safe(out, rest + 2);
		sbuf_addf(out, " (%zu comparisons: ", same + 1);
		add_safe_len(out, w, (size_t)(rest - w));
		for (size_t k = i + 1; k < r->warnings.nr; k++) {
			const char *ow = strstr(r->warnings.v[k], ": ");
			if (done[k] || !ow || strcmp(ow, rest))
				continue;
			done[k] = 1;
			sbuf_adds(out, ", ");
			add_safe_len(out, r->warnings.v[k], (size_t)(ow - r->warnings.v[k]));
		}
		sbuf_adds(out, ")\n");
	}
	free(done);
}

/* "gate: 1 pass, 1 regression · exit code 1" */
static void hf_gate(struct table *t)
{
	const struct run_summary *s = &t->r->summary;
	struct sbuf *out = t->out;
	struct sbuf sb = SBUF_INIT;

	count_part(&sb, s->pass, "pass", 1);
	count_part(&sb, s->improved, "improved", 0);
	count_part(&sb, s->inconclusive, "inconclusive", 0);
	count_part(&sb, s->regression, s->regression == 1 ? "regression" : "regressions", 0);
	count_part(&sb, s->error, s->error == 1 ? "error" : "errors", 0);
	sbuf_adds(out, "\ngate: ");
	sbuf_adds(out, sb.buf);
	sbuf_adds(out, " · ");
	sbuf_reset(&sb);
	sbuf_addf(&sb, "exit code %d", s->exit_code);
	paint(t, out, s->exit_code ? TC_RED : TC_GREEN, sb.buf);
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
static void bench_table(struct table *t)
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
		paint(t, out, TC_YELLOW, "interrupted: results are partial");
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
		hf_gate(t);
	free(x);
}

int report_write_table(const struct run_result *r,
		       const struct report_options *o, struct sbuf *out,
		       struct sbuf *err)
{
	struct table t = { .r = r, .o = o, .out = out };

	(void)err;
	if (r->mode && !strcmp(r->mode, "bench")) {
		bench_table(&t);
		return 0;
	}

	header(&t);
	lead_block(&t);
	for (size_t i = 0; i < r->nr_suites; i++) {
		const struct suite_result *s = &r->suites[i];
		sbuf_addch(out, '\n');
		paint_safe(&t, out, TC_BOLD, s->name);
		if (s->file) {
			sbuf_adds(out, " (");
			add_safe(out, s->file);
			sbuf_addch(out, ')');
		}
		if (s->result && s->result != RESULT_PASS) {
			sbuf_adds(out, " · ");
			paint_safe(&t, out, result_tcolor(s->result), result_name(s->result));
		}
		sbuf_addch(out, '\n');
		for (size_t b = 0; b < s->nr_benches; b++) {
			sbuf_addch(out, '\n');
			bench_block(&t, &s->benches[b]);
		}
	}
	sbuf_addch(out, '\n');
	footer(&t);
	free(t.lines);
	return 0;
}
