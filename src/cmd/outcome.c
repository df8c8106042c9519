#include "cmd/outcome.h"

#include <stdlib.h>
#include <string.h>

#include "base/sbuf.h"
#include "base/xalloc.h"
#include "cmd/exit.h"
#include "model/result.h"

/* Severity order of result strings, for rolling commands up into suites. */
static int severity(const char *result)
{
	static const char *order[] = { RESULT_PASS, "improved", "within_noise",
				       "inconclusive", RESULT_UNSUPPORTED,
				       RESULT_OVER_BUDGET, "regression",
				       RESULT_INTERRUPTED, RESULT_ERROR };
	for (size_t i = 0; i < sizeof(order) / sizeof(order[0]); i++)
		if (result && !strcmp(result, order[i]))
			return (int)i;
	return 0;
}

static void set_result(char **dst, const char *v)
{
	free(*dst);
	*dst = xstrdup(v);
}

/* Does a requested metric of this command fail the run (exit 6)? */
static int unsupported_required(const struct command_result *c)
{
	for (size_t i = 0; i < c->nr_budgets; i++)
		if (c->budgets[i].status == BUDGET_UNASSESSABLE)
			return 1;
	for (int sd = 0; sd < SIDE__COUNT; sd++)
		for (int m = 0; m < METRIC__COUNT && c->side[sd].present; m++)
			if (c->side[sd].metric[m].required &&
			    (c->side[sd].metric[m].status == MSTATUS_UNSUPPORTED ||
			     c->side[sd].metric[m].status == MSTATUS_FAILED))
				return 1;
	return 0;
}

void outcome_judge(struct run_result *r)
{
	struct run_summary *sm = &r->summary;
	memset(sm, 0, sizeof(*sm));
	int code = EXIT_PASS;
	const char *first_error = NULL, *first_budget = NULL, *first_unsup = NULL;
	struct sbuf budget_msg = SBUF_INIT;

	for (size_t i = 0; i < r->nr_suites; i++) {
		struct suite_result *s = &r->suites[i];
		int suite_sev = -1;
		for (size_t b = 0; b < s->nr_benches; b++) {
			struct bench_result *br = &s->benches[b];
			int bench_sev = -1;
			sm->benchmarks++;
			for (size_t c = 0; c < br->nr_commands; c++) {
				struct command_result *cr = &br->commands[c];
				const char *res = RESULT_PASS;
				int any_fail = 0;
				for (size_t k = 0; k < cr->nr_budgets; k++)
					if (cr->budgets[k].status == BUDGET_FAIL) {
						any_fail = 1;
						if (!first_budget) {
							first_budget = cr->name;
							sbuf_addf(&budget_msg, "%s %s %s (benchmark '%s', command '%s')",
								  metric_get(cr->budgets[k].metric)->name,
								  cr->budgets[k].aggregation,
								  cr->budgets[k].limit_text,
								  br->name, cr->name);
						}
					}
				if (cr->error) {
					res = RESULT_ERROR;
					if (!first_error)
						first_error = cr->name;
				} else if (r->interrupted && cr->side[SIDE_HEAD].count == 0) {
					res = RESULT_INTERRUPTED;
				} else {
					/* Over budget is what the command shows, but a
					   required metric that could not be measured
					   still makes the run exit 6 (precedence 6, 1). */
					int unsup = unsupported_required(cr);
					if (any_fail)
						res = RESULT_OVER_BUDGET;
					else if (unsup)
						res = RESULT_UNSUPPORTED;
					if (unsup && !first_unsup)
						first_unsup = cr->name;
				}
				/* A comparison verdict (compare mode) outranks pass. */
				for (int m = 0; m < METRIC__COUNT; m++) {
					const struct comparison *cmp = &cr->comparison[m];
					if (cmp->present && cmp->verdict && cmp->gate &&
					    severity(cmp->verdict) > severity(res))
						res = cmp->verdict;
				}
				set_result(&cr->result, res);
				sm->commands++;
				if (!strcmp(res, RESULT_PASS) || !strcmp(res, "within_noise"))
					sm->pass++;
				else if (!strcmp(res, "improved"))
					sm->improved++;
				else if (!strcmp(res, "inconclusive"))
					sm->inconclusive++;
				else if (!strcmp(res, "regression"))
					sm->regression++;
				else if (!strcmp(res, RESULT_OVER_BUDGET))
					sm->over_budget++;
				else if (!strcmp(res, RESULT_ERROR) || !strcmp(res, RESULT_INTERRUPTED))
					sm->error++;
				if (severity(res) > bench_sev) {
					bench_sev = severity(res);
					set_result(&br->result, res);
				}
			}
			if (!br->result)
				set_result(&br->result, RESULT_PASS);
			if (severity(br->result) > suite_sev) {
				suite_sev = severity(br->result);
				set_result(&s->result, br->result);
			}
		}
		if (!s->result)
			set_result(&s->result, RESULT_PASS);
		if (!strcmp(s->result, RESULT_ERROR) && !first_error)
			first_error = s->name;
	}

	free(r->exit_reason);
	r->exit_reason = NULL;
	if (r->interrupted) {
		code = EXIT_EXEC;
		r->exit_reason = xstrdup("interrupted: the report holds what was measured before the signal");
	} else if (first_error || sm->error) {
		code = EXIT_EXEC;
		r->exit_reason = xstrfmt("%d command%s failed to run (see the error above)",
					 sm->error ? sm->error : 1, sm->error == 1 ? "" : "s");
	} else if (first_unsup) {
		code = EXIT_UNSUPPORTED;
		r->exit_reason = xstrdup("a required metric could not be measured, or a budget could not be assessed because its metric was not measured");
	} else if (sm->over_budget || sm->regression) {
		code = EXIT_FAIL;
		if (sm->regression)
			r->exit_reason = xstrfmt("%d gated regression%s found", sm->regression,
						 sm->regression == 1 ? "" : "s");
		else
			r->exit_reason = xstrfmt("%d command%s over budget, first: %s",
						 sm->over_budget, sm->over_budget == 1 ? "" : "s",
						 budget_msg.buf);
	}
	sm->exit_code = code;
	sbuf_release(&budget_msg);
}
