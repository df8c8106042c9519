/*
 * report/describe: the texts of values, comparisons and budgets every
 * writer shows (describe.h).
 */
#include "report/describe.h"

#include <math.h>
#include <string.h>
#include <strings.h>

#include "analyze/format.h"

/* ---- the run ------------------------------------------------------------ */

const char *report_base_ref_shown(const struct git_info *g)
{
	const char *ref = g->base_ref, *sha = g->base_sha;
	if (!ref || !*ref)
		return NULL;
	if (!sha)
		return ref;
	size_t n = strlen(ref);
	/* An abbreviation is at least 4 hex digits, as git's. */
	if (n >= 4 && n <= strlen(sha) && strspn(ref, "0123456789abcdefABCDEF") == n &&
	    !strncasecmp(ref, sha, n))
		return NULL;
	return ref;
}

void report_git_head_text(struct sbuf *out, const struct git_info *g)
{
	if (!g->head_sha)
		return;
	sbuf_adds(out, g->head_sha);
	if (g->dirty > 0)
		sbuf_adds(out, " + uncommitted changes");
}

void report_git_base_text(struct sbuf *out, const struct git_info *g)
{
	const char *ref = report_base_ref_shown(g);

	if (!g->base_ref && !g->base_sha)
		return;
	sbuf_adds(out, ref ? ref : "");
	if (g->base_sha)
		sbuf_addf(out, "%s%s%s", ref ? " (" : "", g->base_sha, ref ? ")" : "");
}

void report_exit_text(struct sbuf *out, const struct run_result *r)
{
	sbuf_addf(out, "%d", r->summary.exit_code);
	if (r->exit_reason && *r->exit_reason)
		sbuf_addf(out, " (%s)", r->exit_reason);
}

static void mark(struct sbuf *out, const struct report_markup *mk, const char *open,
		 const char *close, const char *s, size_t n)
{
	struct sbuf sb = SBUF_INIT;

	sbuf_add(&sb, s, strnlen(s, n));
	sbuf_adds(out, open ? open : "");
	mk->text(out, sb.buf);
	sbuf_adds(out, close ? close : "");
	sbuf_release(&sb);
}

int report_revisions_text(struct sbuf *out, const struct run_result *r,
			  const struct report_markup *mk)
{
	const struct git_info *g = &r->git;
	const char *ref = report_base_ref_shown(g);

	if (!g->base_ref && !g->base_sha)
		return 0;
	sbuf_adds(out, "base ");
	if (ref)
		mark(out, mk, mk->ref_open, mk->ref_close, ref, strlen(ref));
	if (g->base_sha) {
		sbuf_adds(out, ref ? " (" : "");
		mark(out, mk, mk->sha_open, mk->sha_close, g->base_sha, 12);
		sbuf_adds(out, ref ? ")" : "");
	}
	sbuf_adds(out, " → head ");
	if (g->head_sha)
		mark(out, mk, mk->sha_open, mk->sha_close, g->head_sha, 12);
	else
		sbuf_adds(out, "working tree");
	if (g->dirty > 0)
		sbuf_adds(out, " + uncommitted changes");
	return 1;
}

/* The commands of b and the comparisons they hold, added to the counts. */
static void count_bench(const struct bench_result *b, size_t *commands, size_t *comparisons)
{
	*commands += b->nr_commands;
	for (size_t c = 0; c < b->nr_commands; c++)
		for (int m = 0; m < METRIC__COUNT; m++)
			*comparisons += b->commands[c].comparison[m].present != 0;
}

void report_status_line(struct sbuf *out, const struct run_result *r,
			const struct report_markup *mk)
{
	struct sbuf sb = SBUF_INIT;
	size_t commands = 0, comparisons = 0;

	for (size_t i = 0; i < r->nr_suites; i++)
		for (size_t b = 0; b < r->suites[i].nr_benches; b++)
			count_bench(&r->suites[i].benches[b], &commands, &comparisons);
	if (report_revisions_text(out, r, mk))
		sbuf_adds(out, " · ");
	if (comparisons)
		sbuf_addf(out, "%zu comparison%s in ", comparisons, comparisons == 1 ? "" : "s");
	sbuf_addf(out, "%zu command%s · ", commands, commands == 1 ? "" : "s");
	sbuf_adds(&sb, "exit code ");
	report_exit_text(&sb, r);
	mk->text(out, sb.buf);
	sbuf_release(&sb);
}

/* ---- values ------------------------------------------------------------ */

static int has_work_unit(const struct command_result *c, enum metric_id m)
{
	return m == METRIC_THROUGHPUT && c && c->throughput_unit && *c->throughput_unit;
}

void report_metric_unit(struct sbuf *out, const struct command_result *c, enum metric_id m)
{
	if (has_work_unit(c, m))
		sbuf_addf(out, "%s/s", c->throughput_unit);
	else
		sbuf_adds(out, metric_get(m)->unit_name);
}

/* out[start..] is "<n> /s" or "<n>/s": make it "<n> <unit>/s". */
static void put_work_unit(struct sbuf *out, size_t start, const struct command_result *c,
			  enum metric_id m)
{
	if (!has_work_unit(c, m))
		return;
	if (out->len - start >= 2 && !strcmp(out->buf + out->len - 2, "/s")) {
		sbuf_setlen(out, out->len - 2);
		if (out->len > start && out->buf[out->len - 1] != ' ')
			sbuf_addch(out, ' ');
		sbuf_adds(out, c->throughput_unit);
		sbuf_adds(out, "/s");
	}
}

void report_value_text(struct sbuf *out, const struct command_result *c, enum metric_id m, double v)
{
	size_t start = out->len;

	units_format_value(out, m, v);
	put_work_unit(out, start, c, m);
}

void report_count_text(struct sbuf *out, const struct metric_series *ms)
{
	sbuf_addf(out, "%zu", ms->summary.count);
	if (ms->confirmed > 0)
		sbuf_addf(out, "+%d", ms->confirmed);
}

void report_delta_text(struct sbuf *out, const struct command_result *c, enum metric_id m,
		       double delta, double ref)
{
	size_t start = out->len;

	units_format_delta(out, m, delta, ref);
	put_work_unit(out, start, c, m);
}

/* ---- comparisons --------------------------------------------------------- */

void report_tolerance_text(struct sbuf *out, const struct comparison *cp)
{
	if (isfinite(cp->max_percent))
		sbuf_addf(out, "tolerance %g%%", cp->max_percent);
}

void report_tolerance_note(struct sbuf *out, const struct comparison *cp)
{
	if (!isfinite(cp->max_percent))
		return;
	sbuf_adds(out, " (");
	report_tolerance_text(out, cp);
	sbuf_addch(out, ')');
}

void report_base_head_text(struct sbuf *out, const struct command_result *c, enum metric_id m,
			   const struct comparison *cp)
{
	report_value_text(out, c, m, cp->base);
	sbuf_adds(out, " → ");
	report_value_text(out, c, m, cp->head);
}

/* "+14.2% … +21.9%" and "+18.0% (+14.2% … +21.9%)": the page forms. */
static void add_interval(struct sbuf *out, double lo, double hi)
{
	units_format_percent(out, lo);
	sbuf_adds(out, " … ");
	units_format_percent(out, hi);
}

static void add_change(struct sbuf *out, double pct, double lo, double hi)
{
	units_format_percent(out, pct);
	sbuf_adds(out, " (");
	add_interval(out, lo, hi);
	sbuf_addch(out, ')');
}

void report_interval_text(struct sbuf *out, const struct comparison *cp)
{
	add_interval(out, cp->ci_low_percent, cp->ci_high_percent);
}

void report_change_text(struct sbuf *out, const struct comparison *cp)
{
	add_change(out, cp->change_percent, cp->ci_low_percent, cp->ci_high_percent);
	if (report_mean_differs(cp)) {
		sbuf_adds(out, "; mean ");
		add_change(out, cp->mean_change_percent, cp->mean_ci_low_percent,
			   cp->mean_ci_high_percent);
	}
}

void report_change_text_plain(struct sbuf *out, const struct comparison *cp)
{
	units_format_change(out, cp->change_percent, cp->ci_low_percent, cp->ci_high_percent);
	if (report_mean_differs(cp)) {
		sbuf_adds(out, "; ");
		report_mean_text(out, cp);
	}
}

int report_mean_differs(const struct comparison *cp)
{
	double gap = cp->mean_change_percent - cp->change_percent;

	if (!isfinite(cp->mean_change_percent) || !isfinite(cp->change_percent))
		return 0;
	/* an interval of no width is exact data, where the two coincide */
	if (!(cp->mean_ci_low_percent < cp->mean_ci_high_percent))
		return 0;
	if (fabs(gap) < fmax(isfinite(cp->max_percent) ? cp->max_percent / 2 : 0, 2))
		return 0;
	/* an interval that holds the typical estimate does not tell them apart */
	return !(cp->mean_ci_low_percent <= cp->change_percent &&
		 cp->change_percent <= cp->mean_ci_high_percent);
}

void report_mean_text(struct sbuf *out, const struct comparison *cp)
{
	sbuf_adds(out, "mean ");
	units_format_change(out, cp->mean_change_percent, cp->mean_ci_low_percent,
			    cp->mean_ci_high_percent);
}

/* "3x", "2.5x", "1.5x": a factor as a person says it. */
static void add_factor(struct sbuf *out, double f)
{
	double r = f >= 10 ? round(f) : round(f * 10) / 10;

	if (r == floor(r))
		sbuf_addf(out, "%.0fx", r);
	else
		sbuf_addf(out, "%.1fx", r);
}

int report_minority_text(struct sbuf *out, const struct comparison *cp)
{
	int slower = cp->mean_change_percent > cp->change_percent;
	double s = cp->minority_share * 100, f = cp->minority_factor;

	if (!report_mean_differs(cp))
		return 0;
	if (isfinite(s) && isfinite(f) && s > 0 && f > 0 && (slower ? f > 1 : f < 1)) {
		sbuf_addf(out,
			  s >= 1.5 ? "%.0f%% of head's runs are about "
				   : "%.1f%% of head's runs are about ",
			  s);
		add_factor(out, slower ? f : 1 / f);
		sbuf_adds(out, slower ? " slower; " : " faster; ");
	} else {
		sbuf_adds(out, "head's mean is ");
		units_format_percent(out, cp->mean_change_percent);
		sbuf_adds(out, slower ? ", its tail is heavier; " : ", its tail is lighter; ");
	}
	if (isfinite(cp->ci_low_percent) && cp->ci_low_percent <= 0 && cp->ci_high_percent >= 0) {
		sbuf_adds(out, "the typical run is unchanged");
	} else {
		sbuf_adds(out, "the typical run is ");
		units_format_percent(out, cp->change_percent);
	}
	return 1;
}

void report_reason_text(struct sbuf *out, const struct comparison *cp)
{
	int said = report_minority_text(out, cp);

	if (cp->reason && *cp->reason) {
		if (said)
			sbuf_adds(out, ": ");
		sbuf_adds(out, cp->reason);
	}
}

/* "faster", "higher", "lower": metric m moved the better way. */
static const char *better_word(enum metric_id m)
{
	const struct metric_info *mi = metric_get(m);

	if (mi->better == BETTER_HIGHER)
		return "higher";
	return mi->unit == UNIT_NS ? "faster" : "lower";
}

/* Where the reason says what was not established, from that clause on. */
static const char *not_established(const char *reason)
{
	const char *at = reason ? strstr(reason, "not established") : NULL;

	if (!at)
		return reason;
	while (at > reason && at[-1] != ';' && at[-1] != ':')
		at--;
	while (*at == ' ')
		at++;
	return at;
}

int report_better_text(struct sbuf *out, const struct comparison *cp, enum metric_id m)
{
	int hib = metric_get(m)->better == BETTER_HIGHER;
	double T = cp->max_percent, d = cp->change_percent;

	/* The whole interval beyond the tolerance: shown to be better by
	   more than T, though the verdict's other tests did not say so. */
	if (!cp->present || cp->verdict != VERDICT_PASS || !isfinite(d) || !isfinite(T) ||
	    metric_get(m)->better == BETTER_EITHER ||
	    !(hib ? cp->ci_low_percent > T : cp->ci_high_percent < -T))
		return 0;
	sbuf_addf(out, "%s: ", better_word(m));
	units_format_change(out, d, cp->ci_low_percent, cp->ci_high_percent);
	sbuf_adds(out, " (beyond ");
	report_tolerance_text(out, cp);
	sbuf_adds(out, "); not improved");
	if (cp->reason && *cp->reason)
		sbuf_addf(out, ": %s", not_established(cp->reason));
	return 1;
}

void report_verdict_note(struct sbuf *out, const struct comparison *cp, enum metric_id m)
{
	struct sbuf tmp = SBUF_INIT;

	if (report_better_text(&tmp, cp, m)) {
		sbuf_addf(out, " (%s beyond ", better_word(m));
		report_tolerance_text(out, cp);
		sbuf_adds(out, ", not improved)");
	}
	sbuf_release(&tmp);
}

void report_lead_change_text(struct sbuf *out, const struct comparison *cp, enum metric_id m)
{
	sbuf_addf(out, "%s ", metric_get(m)->name);
	if (report_better_text(out, cp, m))
		return;
	report_change_text_plain(out, cp);
	report_tolerance_note(out, cp);
}

void report_verdict_text(struct sbuf *out, const struct comparison *cp)
{
	sbuf_adds(out, verdict_text(cp->verdict, "n/a"));
	if (!cp->gate)
		sbuf_adds(out, " (not gated)");
	if (cp->decided_at_rounds > 0)
		sbuf_addf(out, " (decided after %d rounds)", cp->decided_at_rounds);
}

/* ---- budgets ------------------------------------------------------------- */

void report_budget_limit(struct sbuf *out, const struct command_result *c,
			 const struct budget_result *bu)
{
	if (bu->limit_text && *bu->limit_text) {
		sbuf_adds(out, bu->limit_text);
		return;
	}
	if (bu->op && *bu->op)
		sbuf_addf(out, "%s ", bu->op);
	report_value_text(out, c, bu->metric, bu->limit);
}

void report_budget_subject(struct sbuf *out, const struct budget_result *bu)
{
	sbuf_adds(out, metric_get(bu->metric)->name);
	if (bu->aggregation && *bu->aggregation)
		sbuf_addf(out, " %s", bu->aggregation);
}

void report_budget_rule(struct sbuf *out, const struct command_result *c,
			const struct budget_result *bu)
{
	if (bu->aggregation && *bu->aggregation)
		sbuf_addf(out, "%s ", bu->aggregation);
	report_budget_limit(out, c, bu);
}

void report_budget_actual(struct sbuf *out, const struct command_result *c,
			  const struct budget_result *bu, const char *none)
{
	if (bu->have_actual)
		report_value_text(out, c, bu->metric, bu->actual);
	else if (none)
		sbuf_adds(out, none);
}

void report_budget_excess(struct sbuf *out, const struct budget_result *bu)
{
	if (bu->have_actual && bu->limit != 0 && isfinite(bu->actual))
		units_format_percent(out, (bu->actual - bu->limit) / fabs(bu->limit) * 100);
}

void report_budget_details(struct sbuf *out, const struct budget_result *bu)
{
	size_t start = out->len;

	if (bu->status == BUDGET_UNASSESSABLE)
		sbuf_adds(out, "cannot be assessed");
	if (bu->reason)
		sbuf_addf(out, "%s%s", out->len > start ? ": " : "", bu->reason);
}

int report_shard_text(struct sbuf *out, const struct run_result *r)
{
	const struct shard_record *sh = &r->shard;
	if (sh->present && sh->merged_from > 0) {
		sbuf_addf(out, "merged by kagari merge from %d report%s", sh->merged_from,
			  sh->merged_from == 1 ? "" : "s");
		return 1;
	}
	if (!sh->present || sh->count <= 1)
		return 0;
	if (sh->replicate) {
		sbuf_addf(out,
			  "replicate %d of %d: every selected benchmark "
			  "(kagari merge pools the replicates)",
			  sh->index, sh->count);
		return 1;
	}
	sbuf_addf(out,
		  "shard %d of %d: %d of the %d selected benchmark%s; "
		  "the others are in the other shards (kagari merge "
		  "judges them all)",
		  sh->index, sh->count, r->summary.benchmarks, sh->benchmarks,
		  sh->benchmarks == 1 ? "" : "s");
	return 1;
}
