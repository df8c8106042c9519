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
#include "report/write_table_internal.h"

#include <inttypes.h>
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "analyze/format.h"
#include "base/xalloc.h"
#include "report/json_emit.h"
#include "report/counted_functions.h"
#include "report/syscall_names.h"

static const char *const tcolor_code[] = {
    [TC_NONE] = "",	      [TC_GREEN] = "\033[32m", [TC_RED] = "\033[31m",
    [TC_YELLOW] = "\033[33m", [TC_BOLD] = "\033[1m",   [TC_DIM] = "\033[2m",
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
	    (cp >= 0xFFE0 && cp <= 0xFFE6) || (cp >= 0x1F300 && cp <= 0x1F64F) ||
	    (cp >= 0x1F900 && cp <= 0x1F9FF) || (cp >= 0x20000 && cp <= 0x3FFFD))
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
void table_add_safe_len(struct sbuf *out, const char *s, size_t n)
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

void table_add_safe(struct sbuf *out, const char *s)
{
	if (s)
		table_add_safe_len(out, s, strlen(s));
}

/* Append sanitised s cut to at most `max` display columns (with "…"). */
static void add_safe_cut(struct sbuf *out, const char *s, size_t max)
{
	struct sbuf tmp = SBUF_INIT;
	table_add_safe(&tmp, s);
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

void table_paint(const struct table *t, struct sbuf *out, enum tcolor c, const char *s)
{
	int on = t->o->color && c != TC_NONE;
	if (on)
		sbuf_adds(out, tcolor_code[c]);
	sbuf_adds(out, s);
	if (on)
		sbuf_adds(out, "\033[0m");
}

/* table_paint() of sanitised user text. */
void table_paint_safe(const struct table *t, struct sbuf *out, enum tcolor c, const char *s)
{
	struct sbuf tmp = SBUF_INIT;
	table_add_safe(&tmp, s);
	table_paint(t, out, c, tmp.buf);
	sbuf_release(&tmp);
}

/* The colour of a command's, benchmark's or suite's result. */
enum tcolor table_result_tcolor(enum result res)
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
static void table_format_value(struct sbuf *out, const struct command_result *c, enum metric_id m,
			       double v)
{
	/* One formatter for every writer; the table also cleans user text. */
	struct sbuf text = SBUF_INIT;
	report_value_text(&text, c, m, v);
	table_add_safe(out, text.buf);
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
	table_add_safe(&tmp, s);
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
	size_t width[TABLE_GROUPS][TABLE_MAX_CELLS] = {{0}};

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
			table_paint(t, t->out, l->color[c], l->cell[c]);
			if (c + 1 < l->ncells) {
				size_t w = display_width(l->cell[c]);
				sbuf_addchars(t->out, ' ', width[l->group][c] - w + 2);
			}
			free(l->cell[c]);
		}
		/* no trailing blanks (an empty last cell leaves padding) */
		while (t->out->len > start && t->out->buf[t->out->len - 1] == ' ')
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

static void metric_row(struct table *t, size_t indent, const struct command_result *c,
		       enum metric_id m, enum side sd, int two_sided, int first)
{
	const struct metric_series *ms = &c->side[sd].metric[m];
	struct tline *l = tline_new(t, GROUP_METRICS, indent);
	struct sbuf sb = SBUF_INIT;

	tline_cell(l, TC_NONE, first ? metric_get(m)->name : "");
	if (two_sided)
		tline_cell(l, TC_NONE, side_name(sd));
	if (ms->status == MSTATUS_UNSUPPORTED || ms->status == MSTATUS_FAILED) {
		sbuf_adds(&sb, ms->status == MSTATUS_UNSUPPORTED ? "unsupported" : "failed");
		if (ms->reason)
			sbuf_addf(&sb, " (%s)", ms->reason);
		tline_cell_sb(l, ms->status == MSTATUS_FAILED ? TC_RED : TC_YELLOW, &sb);
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
	report_count_text(&sb, ms);
	tline_cell_sb(l, TC_NONE, &sb);
	sbuf_release(&sb);
}

static void comparison_row(struct table *t, size_t indent, const struct command_result *c,
			   enum metric_id m)
{
	const struct comparison *cp = &c->comparison[m];
	struct tline *l = tline_new(t, GROUP_COMPARE, indent);
	struct sbuf sb = SBUF_INIT, text = SBUF_INIT;

	tline_cell(l, TC_NONE, metric_get(m)->name);
	report_base_head_text(&text, c, m, cp);
	table_add_safe(&sb, text.buf);
	tline_cell_sb(l, TC_NONE, &sb);
	report_change_text_plain(&sb, cp);
	tline_cell_sb(l, TC_NONE, &sb);
	tline_cell(l, table_result_tcolor(result_from_verdict(cp->verdict)),
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
static void budget_line(struct table *t, size_t indent, const struct command_result *c,
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
	table_add_safe(&sb, text.buf);
	sbuf_adds(&sb, ": ");
	table_paint(t, &sb, budget_color(b->status), st);
	if (b->have_actual && isfinite(b->actual)) {
		double d = b->actual - b->limit;
		sbuf_adds(&sb, " (actual ");
		table_format_value(&sb, c, b->metric, b->actual);
		if (d == 0) {
			sbuf_adds(&sb, ", at the limit");
		} else if (isfinite(d)) {
			sbuf_adds(&sb, d > 0 ? ", above the limit by " : ", below the limit by ");
			/* in the unit of the larger side: "by 287.1 ms" */
			double ref = fmax(fabs(b->actual), fabs(b->limit));
			sbuf_reset(&text);
			report_delta_text(&text, c, b->metric, fabs(d), ref);
			table_add_safe(&sb, text.buf);
			if (b->limit != 0) {
				sbuf_adds(&sb, ", ");
				units_format_percent(&sb, d / fabs(b->limit) * 100);
			}
		}
		sbuf_addch(&sb, ')');
	}
	if (b->reason) {
		sbuf_adds(&sb, b->status == BUDGET_UNASSESSABLE ? ": " : " — ");
		table_add_safe(&sb, b->reason);
	}
	tline_text(t, indent, &sb);
	sbuf_release(&sb);
	sbuf_release(&text);
}

static void error_lines(struct table *t, size_t indent, const struct command_result *c)
{
	struct sbuf sb = SBUF_INIT;

	if (c->error) {
		table_paint(t, &sb, TC_RED, "error:");
		sbuf_addch(&sb, ' ');
		table_add_safe(&sb, c->error);
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
			table_paint(t, &sb, TC_DIM, "|");
			if (shown)
				sbuf_addch(&sb, ' ');
			table_add_safe_len(&sb, p, shown);
			sbuf_rtrim(&sb);
			tline_text(t, indent + 2, &sb);
			p += n;
			if (*p)
				p++;
		}
	}
	sbuf_release(&sb);
}

/* metrics.syscalls: the call names that changed most, or the most made. */
static void syscall_line(struct table *t, size_t indent, const struct command_result *c)
{
	struct sbuf line = SBUF_INIT, sb = SBUF_INIT;
	if (report_syscall_line(&line, c, SYSCALL_ROWS, 0)) {
		table_paint(t, &sb, TC_DIM, "syscalls");
		sbuf_addch(&sb, ' ');
		table_add_safe(&sb, line.buf);
		tline_text(t, indent, &sb);
	}
	sbuf_release(&line);
	sbuf_release(&sb);
}

/* --profile under valgrind: the functions whose counts changed most. */
static void counted_fn_block(struct table *t, size_t indent, const struct command_result *c)
{
	struct counted_fn_row rows[COUNTED_FN_ROWS];
	int two;
	size_t n = report_counted_fn_rows(c, COUNTED_FN_ROWS, rows, &two);
	struct sbuf sb = SBUF_INIT, line = SBUF_INIT;
	if (two && !n) {
		table_paint(t, &sb, TC_DIM, "counted (valgrind): no function changed its count");
		tline_text(t, indent, &sb);
	} else if (n) {
		table_paint(t, &sb, TC_DIM,
			    two ? "counted (valgrind), base → head:" : "counted (valgrind):");
		tline_text(t, indent, &sb);
	}
	for (size_t k = 0; k < n; k++) {
		sbuf_reset(&sb);
		sbuf_reset(&line);
		report_counted_fn_text(&line, &rows[k], two);
		table_add_safe(&sb, line.buf);
		tline_text(t, indent + 2, &sb);
	}
	sbuf_release(&sb);
	sbuf_release(&line);
}

/*
 * The sampled profile under a command: the event and run counts, then the
 * functions that changed most (report_profile_top), or why there is none.
 */
static void profile_block(struct table *t, size_t indent, const struct command_result *c)
{
	const struct profile_set *ps = c->profile;
	struct sbuf sb = SBUF_INIT;
	int two = compare_mode(c);
	if (!ps) {
		if (c->profile_error) {
			table_paint(t, &sb, TC_YELLOW, "profile:");
			sbuf_addch(&sb, ' ');
			table_add_safe(&sb, c->profile_error);
			tline_text(t, indent, &sb);
		}
		sbuf_release(&sb);
		return;
	}
	size_t runs[PROFILE_SIDES] = {0, 0};
	for (size_t i = 0; i < ps->nr_runs; i++)
		runs[ps->runs[i].side]++;
	table_paint(t, &sb, TC_DIM, "profile");
	sbuf_adds(&sb, " (");
	table_add_safe(&sb, ps->event ? ps->event : "?");
	if (two)
		sbuf_addf(&sb, ", %zu+%zu sampled runs", runs[0], runs[1]);
	else
		sbuf_addf(&sb, ", %zu sampled runs", runs[1]);
	uint64_t lost = ps->lost[0] + ps->lost[1];
	uint64_t thr = ps->throttled[0] + ps->throttled[1];
	if (lost || thr)
		sbuf_addf(&sb, "; lost %llu, throttled %llu", (unsigned long long)lost,
			  (unsigned long long)thr);
	sbuf_adds(&sb, two ? "): self time per run, base → head" : "): self time per run");
	tline_text(t, indent, &sb);
	if (c->profile_error) {
		table_paint(t, &sb, TC_YELLOW, "profile stopped:");
		sbuf_addch(&sb, ' ');
		table_add_safe(&sb, c->profile_error);
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
		report_profile_verdict(&sb, ch, 0);
		tline_cell_sb(l, col, &sb);
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
	table_paint_safe(t, &sb, TC_BOLD, c->name);
	if (c->command && *c->command) {
		sbuf_adds(&sb, "  ");
		if (t->o->terminal_width > 0) {
			size_t used = indent + display_width(c->name) + 4 + strlen(res);
			size_t avail = (size_t)t->o->terminal_width > used + 10
					   ? (size_t)t->o->terminal_width - used
					   : 10;
			add_safe_cut(&sb, c->command, avail);
		} else {
			table_add_safe(&sb, c->command);
		}
	}
	sbuf_adds(&sb, "  ");
	table_paint_safe(t, &sb, table_result_tcolor(c->result), res);
	tline_text(t, indent, &sb);

	int any = 0;
	for (int m = 0; m < METRIC__COUNT; m++)
		for (int s = 0; s < SIDE__COUNT; s++)
			if (c->side[s].present && c->side[s].metric[m].status == MSTATUS_OK)
				any = 1;
	if (any)
		metric_header(t, indent + 2, two);
	for (int m = 0; m < METRIC__COUNT; m++) {
		int first = 1;
		int s0 = two ? SIDE_BASE : SIDE_HEAD;
		for (int s = s0; s < SIDE__COUNT; s++) {
			if (!c->side[s].present || c->side[s].metric[m].status == MSTATUS_ABSENT)
				continue;
			metric_row(t, indent + 2, c, m, s, two, first);
			first = 0;
		}
	}

	int compared = 0;
	for (int m = 0; m < METRIC__COUNT; m++)
		compared |= c->comparison[m].present;
	if (compared) {
		table_paint(t, &sb, TC_DIM, "base → head");
		sbuf_addf(&sb, " (seed %" PRIu64 ")", t->r->seed);
		tline_text(t, indent + 2, &sb);
		for (int m = 0; m < METRIC__COUNT; m++)
			if (c->comparison[m].present)
				comparison_row(t, indent + 2, c, m);
	}
	for (size_t i = 0; i < c->nr_budgets; i++)
		budget_line(t, indent + 2, c, &c->budgets[i]);
	syscall_line(t, indent + 2, c);
	counted_fn_block(t, indent + 2, c);
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
	table_add_safe(&sb, b->baseline);
	sbuf_adds(&sb, " (median latency):");
	for (size_t i = 0; i < b->nr_commands; i++) {
		const struct metric_series *m =
		    &b->commands[i].side[SIDE_HEAD].metric[METRIC_LATENCY];
		if (!m->have_summary)
			continue;
		sbuf_adds(&sb, i ? ", " : " ");
		table_add_safe(&sb, b->commands[i].name);
		sbuf_addf(&sb, " %.2fx", m->summary.median / base->summary.median);
	}
	tline_text(t, 4, &sb);
	sbuf_release(&sb);
}

static void bench_block(struct table *t, const struct bench_result *b)
{
	struct sbuf sb = SBUF_INIT;

	table_paint_safe(t, &sb, TC_BOLD, b->name);
	if (b->tags.nr) {
		sbuf_adds(&sb, " [");
		for (size_t i = 0; i < b->tags.nr; i++) {
			if (i)
				sbuf_adds(&sb, ", ");
			table_add_safe(&sb, b->tags.v[i]);
		}
		sbuf_addch(&sb, ']');
	}
	if (b->rounds > 0)
		sbuf_addf(&sb, " · %d round%s", b->rounds, b->rounds == 1 ? "" : "s");
	if (b->result && b->result != RESULT_PASS) {
		sbuf_adds(&sb, " · ");
		table_paint_safe(t, &sb, table_result_tcolor(b->result), result_name(b->result));
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
		sbuf_addf(&part, "%s%s%sbudget ", part.len ? "; " : "", name ? c->name : "",
			  name ? " " : "");
		report_budget_subject(&part, bu);
		sbuf_adds(&part, " ");
		report_budget_limit(&part, c, bu);
		sbuf_adds(&part, bu->status == BUDGET_FAIL ? ": FAIL" : ": cannot be assessed");
	}
	if (part.len) {
		sbuf_adds(sb, sep);
		table_add_safe(sb, part.buf);
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
	table_paint(t, t->out, TC_BOLD, "verdicts");
	sbuf_adds(t->out, " (details below)\n");
	for (size_t i = 0; i < r->nr_suites; i++)
		for (size_t b = 0; b < r->suites[i].nr_benches; b++) {
			const struct bench_result *br = &r->suites[i].benches[b];
			struct tline *l = tline_new(t, GROUP_METRICS, 2);
			if (r->nr_suites > 1 && r->suites[i].name)
				sbuf_addf(&sb, "%s/", r->suites[i].name);
			sbuf_adds(&sb, br->name ? br->name : "");
			tline_cell_sb(l, TC_BOLD, &sb);
			tline_cell(l, table_result_tcolor(br->result),
				   result_text(br->result, "n/a"));
			for (size_t c = 0; c < br->nr_commands; c++)
				lead_command(&sb, &br->commands[c], br->nr_commands > 1);
			/* already sanitised; tline_cell() leaves clean text as it is */
			tline_cell_sb(l, TC_NONE, &sb);
		}
	table_flush(t);
	sbuf_release(&sb);
}

/* The status line's markup: plain text, sanitised for a terminal. */
static const struct report_markup table_markup = {table_add_safe, NULL, NULL, NULL, NULL};

static void header(struct table *t)
{
	const struct run_result *r = t->r;
	struct sbuf *out = t->out;

	struct sbuf title = SBUF_INIT;

	sbuf_adds(&title, "kagari ");
	table_add_safe(&title, r->mode ? r->mode : "run");
	table_paint(t, out, TC_BOLD, title.buf);
	sbuf_release(&title);
	sbuf_addf(out, " · seed %" PRIu64, r->seed);
	if (r->started_at) {
		sbuf_adds(out, " · started ");
		table_add_safe(out, r->started_at);
	}
	sbuf_addch(out, '\n');
	struct sbuf shard = SBUF_INIT;
	if (report_shard_text(&shard, r)) {
		table_paint(t, out, TC_YELLOW, shard.buf);
		sbuf_addch(out, '\n');
	}
	sbuf_release(&shard);
	/* the status line's revisions; its exit code ends the table */
	if (report_revisions_text(out, r, &table_markup))
		sbuf_addch(out, '\n');
	if (r->interrupted) {
		table_paint(t, out, TC_YELLOW, "interrupted: results are partial");
		sbuf_addch(out, '\n');
	}
}

void table_count_part(struct sbuf *sb, int n, const char *what, int always)
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
		table_paint(t, out, TC_YELLOW, "warning:");
		sbuf_addch(out, ' ');
		table_add_safe(out, r->warnings.v[i]);
		sbuf_addch(out, '\n');
	}
	table_count_part(&sb, s->pass, "pass", 1);
	table_count_part(&sb, s->improved, "improved", 0);
	table_count_part(&sb, s->inconclusive, "inconclusive", 0);
	table_count_part(&sb, s->accepted, "accepted", 0);
	table_count_part(&sb, s->regression, s->regression == 1 ? "regression" : "regressions", 0);
	table_count_part(&sb, s->over_budget, "over budget", 0);
	table_count_part(&sb, s->error, s->error == 1 ? "error" : "errors", 0);
	sbuf_addf(out, "summary: %d benchmark%s, %d command%s: %s · ", s->benchmarks,
		  s->benchmarks == 1 ? "" : "s", s->commands, s->commands == 1 ? "" : "s", sb.buf);
	sbuf_reset(&sb);
	sbuf_addf(&sb, "exit code %d", s->exit_code);
	table_paint(t, out, s->exit_code ? TC_RED : TC_GREEN, sb.buf);
	sbuf_addch(out, '\n');
	if (r->exit_reason && *r->exit_reason) {
		sbuf_adds(out, "  ");
		table_add_safe(out, r->exit_reason);
		sbuf_addch(out, '\n');
	}
	sbuf_release(&sb);
}

int report_write_table(const struct run_result *r, const struct report_options *o, struct sbuf *out,
		       struct sbuf *err)
{
	struct table t = {.r = r, .o = o, .out = out};

	(void)err;
	if (run_mode(r) == RUN_MODE_BENCH) {
		table_write_bench(&t);
		return 0;
	}

	header(&t);
	lead_block(&t);
	for (size_t i = 0; i < r->nr_suites; i++) {
		const struct suite_result *s = &r->suites[i];
		sbuf_addch(out, '\n');
		table_paint_safe(&t, out, TC_BOLD, s->name);
		if (s->file) {
			sbuf_adds(out, " (");
			table_add_safe(out, s->file);
			sbuf_addch(out, ')');
		}
		if (s->result && s->result != RESULT_PASS) {
			sbuf_adds(out, " · ");
			table_paint_safe(&t, out, table_result_tcolor(s->result),
					 result_name(s->result));
		}
		/* A suite only the head has, under the base's gate (ci). */
		if (s->not_gating)
			sbuf_adds(out, " · not gating (new: gates from the next change on)");
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
