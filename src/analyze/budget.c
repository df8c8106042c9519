/*
 * analyze/budget: a command's budgets against its samples (budget.h):
 * the operator and aggregation helpers, budget_evaluate() on the suite's
 * budget, budget_reevaluate() on a result's own budget fields (a saved
 * report analysed again), then the one-sentence budget_describe().
 */
#include "analyze/budget.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "analyze/format.h"
#include "analyze/summary.h"
#include "base/xalloc.h"
#include "suite/units.h"

const char *budget_op_text(enum budget_op op)
{
	switch (op) {
	case BUDGET_LT:
		return "<";
	case BUDGET_LE:
		return "<=";
	case BUDGET_GT:
		return ">";
	case BUDGET_GE:
		return ">=";
	}
	return "?";
}

static int op_holds(enum budget_op op, double actual, double limit)
{
	switch (op) {
	case BUDGET_LT:
		return actual < limit;
	case BUDGET_LE:
		return actual <= limit;
	case BUDGET_GT:
		return actual > limit;
	case BUDGET_GE:
		return actual >= limit;
	}
	return 0;
}

double budget_aggregate(enum aggregation agg, double percentile, const double *x, size_t n)
{
	double *c, v;

	if (!n)
		return NAN;
	switch (agg) {
	case AGG_MEAN:
		return summary_mean(x, n);
	case AGG_MIN:
	case AGG_MAX:
		v = x[0];
		for (size_t i = 1; i < n; i++)
			if (agg == AGG_MIN ? x[i] < v : x[i] > v)
				v = x[i];
		return v;
	case AGG_MEDIAN:
		return quantile(x, n, 0.5);
	case AGG_PERCENTILE:
		if (!(percentile > 0 && percentile < 100))
			return NAN;
		c = xreallocarray(NULL, n, sizeof(*c));
		memcpy(c, x, n * sizeof(*c));
		summary_sort(c, n);
		v = quantile_sorted(c, n, percentile / 100);
		free(c);
		return v;
	}
	return NAN;
}

static char *canonical_aggregation(const struct budget *b)
{
	switch (b->aggregation) {
	case AGG_MIN:
		return xstrdup("min");
	case AGG_MAX:
		return xstrdup("max");
	case AGG_MEAN:
		return xstrdup("mean");
	case AGG_MEDIAN:
		return xstrdup("median");
	case AGG_PERCENTILE:
		return xstrfmt("p%g", b->percentile);
	}
	return xstrdup("?");
}

static char *status_reason(const struct metric_series *series, const char *metric)
{
	const char *why = series ? series->reason : NULL;

	switch (series ? series->status : MSTATUS_ABSENT) {
	case MSTATUS_UNSUPPORTED:
		return why ? xstrfmt("metric '%s' was not measured "
				     "(unsupported: %s)",
				     metric, why)
			   : xstrfmt("metric '%s' was not measured "
				     "(unsupported here)",
				     metric);
	case MSTATUS_FAILED:
		return why ? xstrfmt("metric '%s' was not measured "
				     "(failed: %s)",
				     metric, why)
			   : xstrfmt("metric '%s' was not measured "
				     "(measuring it failed)",
				     metric);
	case MSTATUS_ABSENT:
		/*
		 * A budget's metric is always requested, so nothing recorded
		 * means either no run succeeded or no collector exists here.
		 */
		return xstrfmt("metric '%s' was not measured (no run recorded "
			       "a value)",
			       metric);
	case MSTATUS_OK:
		break;
	}
	return NULL;
}

void budget_evaluate(const struct budget *b, const struct metric_series *series,
		     struct budget_result *out)
{
	const char *metric = metric_get(b->metric)->name;
	double *vals;
	size_t n = 0;

	memset(out, 0, sizeof(*out));
	out->metric = b->metric;
	out->aggregation =
	    b->aggregation_name ? xstrdup(b->aggregation_name) : canonical_aggregation(b);
	out->op = xstrdup(budget_op_text(b->op));
	out->limit = b->limit;
	if (b->limit_text) {
		out->limit_text = xstrdup(b->limit_text);
	} else {
		struct sbuf sb = SBUF_INIT;
		sbuf_addf(&sb, "%s ", out->op);
		units_format_value(&sb, b->metric, b->limit);
		out->limit_text = sbuf_detach(&sb);
	}
	out->status = BUDGET_UNASSESSABLE;

	out->reason = status_reason(series, metric);
	if (out->reason)
		return;
	if (b->aggregation == AGG_PERCENTILE && !(b->percentile > 0 && b->percentile < 100)) {
		out->reason = xstrfmt("percentile %g of metric '%s' is outside "
				      "(0, 100)",
				      b->percentile, metric);
		return;
	}
	if (!series->nr) {
		out->reason = xstrdup("no successful runs");
		return;
	}

	vals = xreallocarray(NULL, series->nr, sizeof(*vals));
	for (size_t i = 0; i < series->nr; i++)
		if (isfinite(series->samples[i].value))
			vals[n++] = series->samples[i].value;
	if (!n) {
		out->reason = xstrfmt("metric '%s' has no finite samples", metric);
		free(vals);
		return;
	}
	out->actual = budget_aggregate(b->aggregation, b->percentile, vals, n);
	out->have_actual = 1;
	out->status = op_holds(b->op, out->actual, b->limit) ? BUDGET_PASS : BUDGET_FAIL;
	free(vals);
}

void budget_reevaluate(struct budget_result *r, const struct metric_series *series)
{
	struct budget b;
	struct sbuf err = SBUF_INIT;
	memset(&b, 0, sizeof(b));
	b.metric = r->metric;
	b.aggregation_name = r->aggregation;
	b.limit = r->limit;
	b.limit_text = r->limit_text;
	int op_ok = 0;
	for (int op = BUDGET_LT; op <= BUDGET_GE && r->op; op++)
		if (!strcmp(r->op, budget_op_text((enum budget_op)op))) {
			b.op = (enum budget_op)op;
			op_ok = 1;
		}
	if (!op_ok)
		sbuf_addf(&err, "unknown budget operator '%s'", r->op ? r->op : "");
	else if (!r->aggregation)
		sbuf_adds(&err, "the budget has no aggregation");
	else
		units_parse_aggregation(r->aggregation, &b.aggregation, &b.percentile, &err);
	if (err.len) {
		free(r->reason);
		r->reason = sbuf_detach(&err);
		r->status = BUDGET_UNASSESSABLE;
		r->have_actual = 0;
		return;
	}
	struct budget_result out;
	budget_evaluate(&b, series, &out);
	budget_result_release(r);
	*r = out;
}

static int op_is_upper_bound(const char *op)
{
	return op && op[0] == '<';
}

void budget_describe(const struct budget_result *r, struct sbuf *out)
{
	const char *metric = metric_get(r->metric)->name;
	const char *agg = r->aggregation ? r->aggregation : "value";
	struct sbuf limit = SBUF_INIT;
	double delta;

	if (r->limit_text) {
		sbuf_adds(&limit, r->limit_text);
	} else {
		sbuf_addf(&limit, "%s ", r->op ? r->op : "?");
		units_format_value(&limit, r->metric, r->limit);
	}

	if (r->status == BUDGET_UNASSESSABLE || !r->have_actual) {
		sbuf_addf(out, "%s %s could not be assessed: %s", metric, agg,
			  r->reason ? r->reason : "no value");
		sbuf_release(&limit);
		return;
	}

	sbuf_addf(out, "%s %s = ", metric, agg);
	units_format_value(out, r->metric, r->actual);
	if (r->status == BUDGET_PASS) {
		sbuf_addf(out, " is within budget %s", limit.buf);
		sbuf_release(&limit);
		return;
	}

	delta = r->actual - r->limit;
	if (delta == 0) {
		sbuf_addf(out, " equals the limit of budget %s", limit.buf);
		sbuf_release(&limit);
		return;
	}
	sbuf_addf(out, " %s budget %s by ", op_is_upper_bound(r->op) ? "exceeds" : "is below",
		  limit.buf);
	units_format_delta(out, r->metric, fabs(delta), r->actual);
	if (r->limit != 0) {
		sbuf_adds(out, " (");
		units_format_percent(out, delta / fabs(r->limit) * 100);
		sbuf_addch(out, ')');
	}
	sbuf_release(&limit);
}

void budget_result_release(struct budget_result *r)
{
	free(r->aggregation);
	free(r->op);
	free(r->limit_text);
	free(r->reason);
	memset(r, 0, sizeof(*r));
}
