/*
 * report/problems: the problems of a run, found, folded and ordered once
 * (problems.h).
 */
#include "report/problems.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "base/xalloc.h"

const char *report_problem_kind_name(enum report_problem_kind k)
{
	static const char *const names[] = {
	    [PROBLEM_REGRESSION] = "regression",
	    [PROBLEM_OVER_BUDGET] = "over budget",
	    [PROBLEM_ERROR] = "error",
	    [PROBLEM_INCONCLUSIVE] = "inconclusive",
	    [PROBLEM_UNSUPPORTED] = "unsupported",
	    [PROBLEM_NOT_GATED] = "regression (not gated)",
	    [PROBLEM_ACCEPTED] = "accepted",
	};
	return (size_t)k < PROBLEM__COUNT ? names[k] : "problem";
}

int report_comparison_problem(const struct comparison *cp)
{
	if (!cp->present)
		return -1;
	switch (cp->verdict) {
	case VERDICT_REGRESSION:
		return cp->gate ? PROBLEM_REGRESSION : PROBLEM_NOT_GATED;
	case VERDICT_ACCEPTED:
		return PROBLEM_ACCEPTED;
	case VERDICT_INCONCLUSIVE:
		return PROBLEM_INCONCLUSIVE;
	default:
		return -1;
	}
}

int report_comparison_is_problem(const struct comparison *cp)
{
	int k = report_comparison_problem(cp);

	return k >= 0 && !(k == PROBLEM_INCONCLUSIVE && !cp->gate);
}

static struct report_problem *problem_add(struct report_problems *p, enum report_problem_kind kind,
					  const struct suite_result *s,
					  const struct bench_result *b,
					  const struct command_result *c, size_t cmd_index,
					  int metric)
{
	struct report_problem *x;

	ALLOC_GROW(p->v, p->nr + 1, p->alloc);
	x = &p->v[p->nr];
	memset(x, 0, sizeof(*x));
	x->kind = kind;
	x->suite = s;
	x->bench = b;
	x->cmd = c;
	x->cmd_index = cmd_index;
	x->metric = metric;
	x->count = 1;
	x->side = -1;
	x->order = p->nr++;
	p->count[kind]++;
	return x;
}

static int str_eq(const char *a, const char *b)
{
	return (!a && !b) || (a && b && !strcmp(a, b));
}

static int bad_status(const struct command_result *c, int sd, int m)
{
	const struct metric_series *ms = &c->side[sd].metric[m];
	return c->side[sd].present &&
	       (ms->status == MSTATUS_UNSUPPORTED || ms->status == MSTATUS_FAILED);
}

static void list_command(struct report_problems *p, const struct suite_result *s,
			 const struct bench_result *b, const struct command_result *c, size_t idx)
{
	struct report_problem *x;

	if (c->error || c->result == RESULT_INTERRUPTED) {
		x = problem_add(p, PROBLEM_ERROR, s, b, c, idx, -1);
		x->reason = c->error ? c->error : "interrupted";
	}
	for (size_t i = 0; i < c->nr_budgets; i++) {
		const struct budget_result *bu = &c->budgets[i];
		if (bu->status == BUDGET_PASS)
			continue;
		x = problem_add(
		    p, bu->status == BUDGET_FAIL ? PROBLEM_OVER_BUDGET : PROBLEM_UNSUPPORTED, s, b,
		    c, idx, (int)bu->metric);
		x->budget = bu;
		x->reason = bu->reason;
		if (bu->status == BUDGET_FAIL && bu->have_actual && bu->limit != 0 &&
		    isfinite(bu->actual))
			x->weight = fabs(bu->actual - bu->limit) / fabs(bu->limit);
		else if (bu->status == BUDGET_UNASSESSABLE)
			x->weight = 10; /* decides the exit code: first */
	}
	for (int m = 0; m < METRIC__COUNT; m++) {
		const struct comparison *cp = &c->comparison[m];
		if (!cp->present)
			continue;
		p->nr_comparisons++;
		/* What a problem comparison is: report_comparison_problem(). */
		int kind = report_comparison_problem(cp);
		if (kind < 0)
			continue;
		x = problem_add(p, (enum report_problem_kind)kind, s, b, c, idx, m);
		x->cmp = cp;
		if (kind == PROBLEM_INCONCLUSIVE)
			x->weight = cp->p_reg;
		else
			x->weight = isfinite(cp->change_percent) ? fabs(cp->change_percent) : 0;
	}
	for (int m = 0; m < METRIC__COUNT; m++) {
		const struct metric_series *h = &c->side[SIDE_HEAD].metric[m];
		const struct metric_series *bs = &c->side[SIDE_BASE].metric[m];
		int hbad = bad_status(c, SIDE_HEAD, m);
		int bbad = bad_status(c, SIDE_BASE, m);
		int same = hbad && bbad && h->status == bs->status &&
			   str_eq(h->reason ? h->reason : "", bs->reason ? bs->reason : "");
		for (int sd = SIDE_BASE; sd < SIDE__COUNT; sd++) {
			const struct metric_series *ms = sd == SIDE_HEAD ? h : bs;
			if (!(sd == SIDE_HEAD ? hbad : bbad) || (same && sd == SIDE_BASE))
				continue;
			x = problem_add(p, PROBLEM_UNSUPPORTED, s, b, c, idx, m);
			x->reason = ms->reason;
			x->failed = ms->status == MSTATUS_FAILED;
			x->weight = x->failed; /* failed ranks above unsupported */
			x->side = same ? -1 : sd;
		}
	}
}

void report_problems_list(struct report_problems *p, const struct run_result *r)
{
	size_t idx = 0;

	memset(p, 0, sizeof(*p));
	for (size_t i = 0; i < r->nr_suites; i++) {
		const struct suite_result *s = &r->suites[i];
		for (size_t b = 0; b < s->nr_benches; b++) {
			const struct bench_result *br = &s->benches[b];
			for (size_t c = 0; c < br->nr_commands; c++)
				list_command(p, s, br, &br->commands[c], idx++);
		}
	}
	p->nr_commands = idx;
}

static int is_metric(const struct report_problem *x)
{
	return x->kind == PROBLEM_UNSUPPORTED && !x->budget;
}

static int problem_cmp(const void *pa, const void *pb)
{
	const struct report_problem *a = pa, *b = pb;

	if (a->kind != b->kind)
		return a->kind < b->kind ? -1 : 1;
	if (a->weight != b->weight)
		return a->weight > b->weight ? -1 : 1;
	return (a->order > b->order) - (a->order < b->order);
}

void report_problems_collect(struct report_problems *p, const struct run_result *r)
{
	struct report_problems all;

	report_problems_list(&all, r);
	memset(p, 0, sizeof(*p));
	p->nr_commands = all.nr_commands;
	p->nr_comparisons = all.nr_comparisons;
	for (size_t i = 0; i < all.nr; i++) {
		const struct report_problem *x = &all.v[i];
		size_t j;
		if (x->kind == PROBLEM_INCONCLUSIVE && !x->cmp->gate)
			continue;
		if (is_metric(x)) {
			/* The head side of a metric bad on both sides: the
			   command's problem is the base side's, listed just
			   before. */
			if (i && is_metric(&all.v[i - 1]) && all.v[i - 1].cmd == x->cmd &&
			    all.v[i - 1].metric == x->metric)
				continue;
			/* Alike in another command: merged. */
			for (j = 0; j < p->nr; j++) {
				struct report_problem *y = &p->v[j];
				if (is_metric(y) && y->metric == x->metric &&
				    str_eq(y->reason, x->reason) && y->failed == x->failed)
					break;
			}
			if (j < p->nr) {
				if (p->v[j].cmd != x->cmd)
					p->v[j].count++;
				continue;
			}
		}
		struct report_problem *y =
		    problem_add(p, x->kind, x->suite, x->bench, x->cmd, x->cmd_index, x->metric);
		size_t order = y->order;
		*y = *x;
		y->order = order;
		y->side = -1;
	}
	report_problems_release(&all);
	if (p->nr)
		qsort(p->v, p->nr, sizeof(*p->v), problem_cmp);
}

void report_problems_release(struct report_problems *p)
{
	free(p->v);
	memset(p, 0, sizeof(*p));
}

static void title_part(struct sbuf *out, size_t n, const char *one, const char *many)
{
	if (!n)
		return;
	sbuf_addf(out, "%s%zu %s", out->len ? ", " : "", n, n == 1 ? one : many);
}

void report_problems_title(struct sbuf *out, const struct report_problems *p,
			   const struct run_result *r)
{
	struct sbuf sb = SBUF_INIT;
	int compare = run_mode(r) == RUN_MODE_COMPARE;
	const size_t *n = p->count;

	/* "No regressions, 1 regression not gated" contradicts itself: say
	   which regressions there are none of. */
	if (compare && !n[PROBLEM_REGRESSION])
		sbuf_adds(&sb, n[PROBLEM_NOT_GATED]  ? "No gated regressions"
			       : n[PROBLEM_ACCEPTED] ? "No unaccepted regressions"
						     : "No regressions");
	title_part(&sb, n[PROBLEM_REGRESSION], "regression", "regressions");
	if (n[PROBLEM_REGRESSION] > 1) {
		/* "2 regressions in 1 command": the summary counts commands */
		size_t cmds = 0;
		for (size_t i = 0; i < p->nr; i++) {
			int seen = 0;
			if (p->v[i].kind != PROBLEM_REGRESSION)
				continue;
			for (size_t j = 0; j < i && !seen; j++)
				seen = p->v[j].kind == PROBLEM_REGRESSION &&
				       p->v[j].cmd == p->v[i].cmd;
			cmds += !seen;
		}
		if (cmds < n[PROBLEM_REGRESSION])
			sbuf_addf(&sb, " in %zu command%s", cmds, cmds == 1 ? "" : "s");
	}
	title_part(&sb, n[PROBLEM_OVER_BUDGET], "over budget", "over budget");
	title_part(&sb, n[PROBLEM_ERROR], "error", "errors");
	title_part(&sb, n[PROBLEM_INCONCLUSIVE], "inconclusive", "inconclusive");
	title_part(&sb, n[PROBLEM_UNSUPPORTED], "unsupported", "unsupported");
	title_part(&sb, n[PROBLEM_NOT_GATED], "regression not gated", "regressions not gated");
	title_part(&sb, n[PROBLEM_ACCEPTED], "accepted regression", "accepted regressions");
	if (!sb.len)
		sbuf_adds(&sb, "All checks passed");
	if (r->interrupted)
		sbuf_adds(&sb, " (interrupted)");
	sbuf_add(out, sb.buf, sb.len);
	sbuf_release(&sb);
}
