/*
 * `markdown`: the complete report as GitHub-flavoured Markdown, for a
 * step summary, a wiki page or a README section.
 *
 *	<!-- kagari:begin kagari -->
 *	## kagari compare: 1 regression
 *
 *	base **main** (0acd445dea07) → head 1b2c3d4e5f60 · 6 comparisons in
 *	4 commands · exit code 1 (1 gated regression found)
 *
 *	### demo (kagari.yaml) · regression
 *
 *	#### Comparisons
 *	| benchmark | command | metric | base | head | change | interval | ...
 *	#### Budgets
 *	| benchmark | command | metric | budget | actual | result |
 *	#### Measurements          (in <details> in compare mode)
 *	#### Errors
 *	### Warnings
 *	### Environment            (the seed, versions, machine, git)
 *	<!-- kagari:end kagari -->
 *
 * Every table lists every row (nothing is cut); all user text goes through
 * report_md_escape(), stderr through a code fence. The markers carry
 * o->section (report/section.h) so that a page can hold several reports.
 */
#include "report/report.h"

#include <inttypes.h>
#include <math.h>
#include <string.h>

#include "analyze/format.h"
#include "report/describe.h"
#include "report/problems.h"
#include "report/section.h"
#include "report/counted_functions.h"
#include "report/syscall_names.h"

struct md {
	const struct run_result *r;
	struct sbuf *out;
	struct sbuf tmp;
};

/* Functions listed per profiled command. */
#define MD_PROFILE_ROWS 10

static void cell_open(struct md *m)
{
	sbuf_addch(m->out, ' ');
}

static void cell_close(struct md *m)
{
	sbuf_adds(m->out, " |");
}

/* A cell: " text |" (report_md_cell()). */
static void cell_text(struct md *m, const char *s)
{
	report_md_cell(m->out, s);
}

/* A cell from m->tmp (escaped), which is reset. */
static void cell_tmp(struct md *m)
{
	cell_text(m, m->tmp.buf);
	sbuf_reset(&m->tmp);
}

static void cell_value(struct md *m, const struct command_result *c, enum metric_id id, double v)
{
	report_value_text(&m->tmp, c, id, v);
	cell_tmp(m);
}

static void cell_percent(struct md *m, double pct)
{
	units_format_percent(&m->tmp, pct);
	cell_tmp(m);
}

static void row_start(struct md *m)
{
	sbuf_addch(m->out, '|');
}

static void row_end(struct md *m)
{
	sbuf_addch(m->out, '\n');
}

/* "| a | b |\n|---|---:|\n": align is 'l' or 'r' per column. */
static void table_head(struct md *m, const char *const *names, const char *align)
{
	row_start(m);
	for (size_t i = 0; names[i]; i++)
		cell_text(m, names[i]);
	row_end(m);
	sbuf_addch(m->out, '|');
	for (size_t i = 0; names[i]; i++)
		sbuf_adds(m->out, align[i] == 'r' ? "---:|" : "---|");
	sbuf_addch(m->out, '\n');
}

static int has_comparisons(const struct suite_result *s)
{
	for (size_t b = 0; b < s->nr_benches; b++)
		for (size_t c = 0; c < s->benches[b].nr_commands; c++)
			for (int k = 0; k < METRIC__COUNT; k++)
				if (s->benches[b].commands[c].comparison[k].present)
					return 1;
	return 0;
}

static int has_budgets(const struct suite_result *s)
{
	for (size_t b = 0; b < s->nr_benches; b++)
		for (size_t c = 0; c < s->benches[b].nr_commands; c++)
			if (s->benches[b].commands[c].nr_budgets)
				return 1;
	return 0;
}

static int has_errors(const struct suite_result *s)
{
	for (size_t b = 0; b < s->nr_benches; b++)
		for (size_t c = 0; c < s->benches[b].nr_commands; c++)
			if (s->benches[b].commands[c].error ||
			    s->benches[b].commands[c].stderr_tail)
				return 1;
	return 0;
}

static void comparisons_table(struct md *m, const struct suite_result *s)
{
	static const char *const head[] = {
	    "benchmark", "command",	  "metric",	  "base",	 "head",    "change",
	    "interval",	 "P(regression)", "p (adjusted)", "noise floor", "verdict", "reason",
	    NULL};

	sbuf_adds(m->out, "#### Comparisons\n\n");
	table_head(m, head, "lllrrrlrrrll");
	for (size_t b = 0; b < s->nr_benches; b++) {
		const struct bench_result *br = &s->benches[b];
		for (size_t i = 0; i < br->nr_commands; i++) {
			const struct command_result *c = &br->commands[i];
			for (int k = 0; k < METRIC__COUNT; k++) {
				const struct comparison *cp = &c->comparison[k];
				if (!cp->present)
					continue;
				row_start(m);
				cell_text(m, br->name);
				cell_text(m, c->name);
				cell_text(m, metric_get(k)->name);
				cell_value(m, c, k, cp->base);
				cell_value(m, c, k, cp->head);
				cell_percent(m, cp->change_percent);
				report_interval_text(&m->tmp, cp);
				if (isfinite(cp->confidence))
					sbuf_addf(&m->tmp, " (%g%%)", cp->confidence * 100);
				cell_tmp(m);
				if (isfinite(cp->p_reg))
					sbuf_addf(&m->tmp, "%.3f", cp->p_reg);
				cell_tmp(m);
				if (isfinite(cp->p_value))
					sbuf_addf(&m->tmp, "%.3g", cp->p_value);
				if (cp->p_adjusted != cp->p_value && isfinite(cp->p_adjusted))
					sbuf_addf(&m->tmp, " (%.3g)", cp->p_adjusted);
				cell_tmp(m);
				if (isfinite(cp->noise_floor_percent))
					sbuf_addf(&m->tmp, "%.1f%%", cp->noise_floor_percent);
				cell_tmp(m);
				report_verdict_text(&m->tmp, cp);
				report_verdict_note(&m->tmp, cp, (enum metric_id)k);
				cell_open(m);
				sbuf_adds(m->out, "**");
				report_md_escape(m->out, m->tmp.buf);
				sbuf_adds(m->out, "**");
				cell_close(m);
				sbuf_reset(&m->tmp);
				if (cp->nr_dropped_rounds) {
					if (cp->reason && *cp->reason) {
						report_reason_text(&m->tmp, cp);
						sbuf_adds(&m->tmp, "; ");
					}
					sbuf_adds(&m->tmp, "rounds dropped:");
					for (size_t d = 0; d < cp->nr_dropped_rounds; d++)
						sbuf_addf(&m->tmp, " %d", cp->dropped_rounds[d]);
					cell_tmp(m);
				} else {
					report_reason_text(&m->tmp, cp);
					cell_tmp(m);
				}
				row_end(m);
			}
		}
	}
	sbuf_addch(m->out, '\n');
}

static void budgets_table(struct md *m, const struct suite_result *s)
{
	static const char *const head[] = {"benchmark", "command", "metric", "budget",
					   "actual",	"result",  NULL};

	sbuf_adds(m->out, "#### Budgets\n\n");
	table_head(m, head, "lllrrl");
	for (size_t b = 0; b < s->nr_benches; b++) {
		const struct bench_result *br = &s->benches[b];
		for (size_t i = 0; i < br->nr_commands; i++) {
			const struct command_result *c = &br->commands[i];
			for (size_t k = 0; k < c->nr_budgets; k++) {
				const struct budget_result *bu = &c->budgets[k];
				row_start(m);
				cell_text(m, br->name);
				cell_text(m, c->name);
				cell_text(m, metric_get(bu->metric)->name);
				report_budget_rule(&m->tmp, c, bu);
				cell_tmp(m);
				report_budget_actual(&m->tmp, c, bu, NULL);
				cell_tmp(m);
				cell_open(m);
				sbuf_adds(m->out, bu->status == BUDGET_PASS ? "pass"
						  : bu->status == BUDGET_FAIL
						      ? "**over budget**"
						      : "**cannot be assessed**");
				if (bu->reason) {
					sbuf_adds(m->out, ": ");
					report_md_escape(m->out, bu->reason);
				}
				cell_close(m);
				row_end(m);
			}
		}
	}
	sbuf_addch(m->out, '\n');
}

static void measurement_row(struct md *m, const struct bench_result *br,
			    const struct command_result *c, enum metric_id k, enum side sd, int two)
{
	const struct metric_series *ms = &c->side[sd].metric[k];
	const struct summary *su = &ms->summary;

	row_start(m);
	cell_text(m, br->name);
	cell_text(m, c->name);
	cell_text(m, metric_get(k)->name);
	if (two)
		cell_text(m, side_name(sd));
	if (ms->status == MSTATUS_UNSUPPORTED || ms->status == MSTATUS_FAILED) {
		sbuf_adds(&m->tmp, ms->status == MSTATUS_UNSUPPORTED ? "unsupported" : "failed");
		if (ms->reason)
			sbuf_addf(&m->tmp, " (%s)", ms->reason);
		cell_tmp(m);
		for (int i = 0; i < 5; i++)
			cell_text(m, "");
		row_end(m);
		return;
	}
	if (!ms->have_summary) {
		sbuf_addf(&m->tmp, "%zu samples, no statistics", ms->nr);
		cell_tmp(m);
		for (int i = 0; i < 5; i++)
			cell_text(m, "");
		row_end(m);
		return;
	}
	cell_value(m, c, k, su->median);
	report_value_text(&m->tmp, c, k, su->mean);
	sbuf_adds(&m->tmp, " ± ");
	report_value_text(&m->tmp, c, k, su->stddev);
	cell_tmp(m);
	cell_value(m, c, k, su->min);
	cell_value(m, c, k, su->max);
	cell_value(m, c, k, su->p95);
	report_count_text(&m->tmp, ms);
	cell_tmp(m);
	row_end(m);
}

static void measurements_table(struct md *m, const struct suite_result *s, int compare)
{
	static const char *const head1[] = {"benchmark", "command", "metric", "median", "mean ± σ",
					    "min",	 "max",	    "p95",    "n",	NULL};
	static const char *const head2[] = {"benchmark", "command",  "metric", "side",
					    "median",	 "mean ± σ", "min",    "max",
					    "p95",	 "n",	     NULL};
	size_t rows = 0;

	for (size_t b = 0; b < s->nr_benches; b++)
		for (size_t i = 0; i < s->benches[b].nr_commands; i++)
			for (int sd = 0; sd < SIDE__COUNT; sd++)
				for (int k = 0; k < METRIC__COUNT; k++)
					rows +=
					    s->benches[b].commands[i].side[sd].present &&
					    s->benches[b].commands[i].side[sd].metric[k].status !=
						MSTATUS_ABSENT;
	if (!rows)
		return;
	if (compare)
		sbuf_addf(m->out, "<details><summary>Measurements (%zu rows)</summary>\n\n", rows);
	else
		sbuf_adds(m->out, "#### Measurements\n\n");
	table_head(m, compare ? head2 : head1, compare ? "llllrrrrrr" : "lllrrrrrr");
	for (size_t b = 0; b < s->nr_benches; b++) {
		const struct bench_result *br = &s->benches[b];
		for (size_t i = 0; i < br->nr_commands; i++) {
			const struct command_result *c = &br->commands[i];
			for (int k = 0; k < METRIC__COUNT; k++)
				for (int sd = compare ? SIDE_BASE : SIDE_HEAD; sd < SIDE__COUNT;
				     sd++)
					if (c->side[sd].present &&
					    c->side[sd].metric[k].status != MSTATUS_ABSENT)
						measurement_row(m, br, c, k, sd, compare);
		}
	}
	sbuf_adds(m->out, compare ? "\n</details>\n\n" : "\n");
}

static void errors_block(struct md *m, const struct suite_result *s)
{
	sbuf_adds(m->out, "#### Errors\n\n");
	for (size_t b = 0; b < s->nr_benches; b++) {
		const struct bench_result *br = &s->benches[b];
		for (size_t i = 0; i < br->nr_commands; i++) {
			const struct command_result *c = &br->commands[i];
			if (!c->error && !c->stderr_tail)
				continue;
			sbuf_adds(m->out, "- **");
			report_md_escape(m->out, br->name);
			sbuf_adds(m->out, " / ");
			report_md_escape(m->out, c->name);
			sbuf_adds(m->out, "**");
			if (c->error) {
				sbuf_adds(m->out, ": ");
				report_md_escape(m->out, c->error);
			}
			sbuf_addch(m->out, '\n');
			if (c->stderr_tail && *c->stderr_tail) {
				sbuf_adds(m->out, "\n  stderr (last lines):\n\n");
				report_md_code_block(m->out, c->stderr_tail);
			}
		}
	}
	sbuf_addch(m->out, '\n');
}

static void env_row(struct md *m, const char *key, const char *value)
{
	if (!value || !*value)
		return;
	row_start(m);
	cell_text(m, key);
	cell_text(m, value);
	row_end(m);
}

static void environment(struct md *m)
{
	const struct run_result *r = m->r;
	static const char *const head[] = {"", "", NULL};
	struct sbuf v = SBUF_INIT;

	sbuf_adds(m->out, "### Environment\n\n");
	table_head(m, head, "ll");
	env_row(m, "kagari", KAGARI_VERSION);
	env_row(m, "mode", r->mode);
	sbuf_addf(&v, "%" PRIu64, r->seed);
	env_row(m, "seed", v.buf);
	env_row(m, "started", r->started_at);
	env_row(m, "finished", r->finished_at);
	env_row(m, "os", r->env.os);
	env_row(m, "kernel", r->env.kernel);
	env_row(m, "arch", r->env.arch);
	env_row(m, "cpu", r->env.cpu_model);
	sbuf_reset(&v);
	if (r->env.logical_cpus > 0)
		sbuf_addf(&v, "%d", r->env.logical_cpus);
	env_row(m, "logical cpus", v.buf);
	env_row(m, "ci", r->env.ci ? "yes" : "no");
	env_row(m, "counters", r->env.counters_source);
	sbuf_reset(&v);
	if (!isnan(r->env.steal_percent))
		sbuf_addf(&v, "%.1f%% of CPU time", r->env.steal_percent);
	env_row(m, "hypervisor steal", v.buf);
	sbuf_reset(&v);
	report_git_head_text(&v, &r->git);
	env_row(m, "git head", v.buf);
	sbuf_reset(&v);
	report_git_base_text(&v, &r->git);
	env_row(m, "git base", v.buf);
	sbuf_reset(&v);
	report_exit_text(&v, r);
	env_row(m, "exit code", v.buf);
	sbuf_addch(m->out, '\n');
	sbuf_release(&v);
}

/* The status line's markup: the ref in bold. */
static const struct report_markup md_markup = {report_md_escape, "**", "**", NULL, NULL};

/* The title, the status line (report/describe.h), a shard's note. */
static void header(struct md *m, const struct report_problems *p)
{
	const struct run_result *r = m->r;
	struct sbuf sb = SBUF_INIT;

	sbuf_adds(m->out, "## kagari ");
	report_md_escape(m->out, r->mode ? r->mode : "run");
	sbuf_adds(m->out, ": ");
	report_problems_title(&sb, p, r);
	report_md_escape(m->out, sb.buf);
	sbuf_adds(m->out, "\n\n");
	report_status_line(m->out, r, &md_markup);
	sbuf_adds(m->out, "\n\n");
	sbuf_reset(&sb);
	if (report_shard_text(&sb, r)) {
		sbuf_adds(m->out, "> ");
		report_md_escape(m->out, sb.buf);
		sbuf_adds(m->out, "\n\n");
	}
	if (r->interrupted)
		sbuf_adds(m->out, "> **interrupted**: the results are partial\n\n");
	sbuf_release(&sb);
}

int report_write_markdown(const struct run_result *r, const struct report_options *o,
			  struct sbuf *out, struct sbuf *err)
{
	const char *name = o->section ? o->section : REPORT_SECTION_DEFAULT;
	struct md m = {.r = r, .out = out, .tmp = SBUF_INIT};
	struct report_problems p;
	int compare = run_mode(r) == RUN_MODE_COMPARE;

	if (!report_section_name_valid(name)) {
		sbuf_addf(err,
			  "section name '%s' is invalid (use letters, digits, "
			  "'_', '.' and '-')",
			  name);
		return -1;
	}
	report_problems_collect(&p, r);
	report_section_begin(out, name);
	sbuf_addch(out, '\n');
	header(&m, &p);
	for (size_t i = 0; i < r->nr_suites; i++) {
		const struct suite_result *s = &r->suites[i];
		sbuf_adds(out, "### ");
		report_md_escape(out, s->name);
		if (s->file) {
			sbuf_adds(out, " (");
			report_md_escape(out, s->file);
			sbuf_addch(out, ')');
		}
		if (s->result) {
			sbuf_adds(out, " · ");
			report_md_escape(out, result_name(s->result));
		}
		if (s->not_gating)
			sbuf_adds(out, " · not gating (new: gates from the next change on)");
		sbuf_adds(out, "\n\n");
		if (has_comparisons(s))
			comparisons_table(&m, s);
		if (has_budgets(s))
			budgets_table(&m, s);
		measurements_table(&m, s, compare);
		if (has_errors(s))
			errors_block(&m, s);
	}
	/* Every profiled command: where the time went, per function. */
	report_profile_markdown(out, r, 0, MD_PROFILE_ROWS);
	/* metrics.syscalls: which calls changed, by name. */
	report_syscall_markdown(out, r, SYSCALL_ROWS);
	/* --profile under valgrind: the functions by exact count. */
	report_counted_fn_markdown(out, r, COUNTED_FN_ROWS);
	report_md_warnings(out, r, "### Warnings");
	environment(&m);
	report_section_end(out, name);
	sbuf_addch(out, '\n');
	report_problems_release(&p);
	sbuf_release(&m.tmp);
	return 0;
}
