/*
 * analyze/outcome: the exit code of an analysed run (outcome.h). The verdicts
 * themselves are analyze/'s (analyze_rollup()); this only maps them.
 */
#include "analyze/outcome.h"

#include <stdlib.h>
#include <string.h>

#include "base/sbuf.h"
#include "base/xalloc.h"
#include "model/exit.h"
#include "model/result.h"

/*
 * "METRIC AGG LIMIT": the aggregation and limit text are absent from a
 * budget read back from a hand-edited or foreign report; say what is known
 * rather than hand NULL to %s.
 */
static void budget_words(const struct budget_result *b, struct sbuf *msg)
{
	sbuf_adds(msg, metric_get(b->metric)->name);
	if (b->aggregation)
		sbuf_addf(msg, " %s", b->aggregation);
	if (b->limit_text)
		sbuf_addf(msg, " %s", b->limit_text);
	else if (b->op && b->limit == b->limit) /* not NaN */
		sbuf_addf(msg, " %s %g %s", b->op, b->limit, metric_get(b->metric)->unit_name);
}

/* The first failed budget, "METRIC AGG LIMIT (benchmark 'B', command 'C')". */
static void first_budget(const struct run_result *r, struct sbuf *msg)
{
	for (size_t i = 0; i < r->nr_suites; i++)
		for (size_t b = 0; b < r->suites[i].nr_benches; b++) {
			const struct bench_result *br = &r->suites[i].benches[b];
			for (size_t c = 0; c < br->nr_commands; c++) {
				const struct command_result *cr = &br->commands[c];
				for (size_t k = 0; k < cr->nr_budgets; k++)
					if (cr->budgets[k].status == BUDGET_FAIL) {
						budget_words(&cr->budgets[k], msg);
						sbuf_addf(msg, " (benchmark '%s', command '%s')",
							  br->name, cr->name);
						/* Judged on fewer rounds than asked. */
						if (cr->out_of_time)
							sbuf_addf(
							    msg,
							    ", on the %d round%s measured before "
							    "the time cap (--max-time) stopped it",
							    cr->rounds, cr->rounds == 1 ? "" : "s");
						return;
					}
			}
		}
}

/*
 * The first command --max-time stopped before a budget of it could be
 * assessed: "benchmark 'B', command 'C'" in msg, 1; else 0.
 */
static int first_capped_budget(const struct run_result *r, struct sbuf *msg)
{
	for (size_t i = 0; i < r->nr_suites; i++)
		for (size_t b = 0; b < r->suites[i].nr_benches; b++) {
			const struct bench_result *br = &r->suites[i].benches[b];
			for (size_t c = 0; c < br->nr_commands; c++) {
				const struct command_result *cr = &br->commands[c];
				for (size_t k = 0; k < cr->nr_budgets && cr->out_of_time; k++)
					if (cr->budgets[k].status == BUDGET_UNASSESSABLE) {
						sbuf_addf(msg, "benchmark '%s', command '%s'",
							  br->name, cr->name);
						return 1;
					}
			}
		}
	return 0;
}

/*
 * The first command that failed to run: ", first: benchmark 'B', command
 * 'C' on the base side" (the side from its error's "base: "/"head: "
 * prefix, which a compare's errors carry), or nothing.
 */
static void first_error(const struct run_result *r, struct sbuf *msg)
{
	for (size_t i = 0; i < r->nr_suites; i++)
		for (size_t b = 0; b < r->suites[i].nr_benches; b++) {
			const struct bench_result *br = &r->suites[i].benches[b];
			for (size_t c = 0; c < br->nr_commands; c++) {
				const char *e = br->commands[c].error;
				if (!e)
					continue;
				sbuf_addf(msg, ", first: benchmark '%s', command '%s'", br->name,
					  br->commands[c].name);
				if (!strncmp(e, "base: ", 6) || !strncmp(e, "head: ", 6))
					sbuf_addf(msg, " on the %.4s side", e);
				return;
			}
		}
}

void outcome_judge(struct run_result *r)
{
	const struct run_summary *sm = &r->summary;
	int code = EXIT_PASS;
	int suite_error = 0;
	for (size_t i = 0; i < r->nr_suites; i++)
		suite_error |= r->suites[i].result == RESULT_ERROR;

	free(r->exit_reason);
	r->exit_reason = NULL;
	if (r->interrupted) {
		code = EXIT_EXEC;
		r->exit_reason =
		    xstrdup("interrupted: the report holds what was measured before the signal");
	} else if (suite_error || sm->error) {
		code = EXIT_EXEC;
		struct sbuf first = SBUF_INIT;
		first_error(r, &first);
		r->exit_reason =
		    xstrfmt("%d command%s failed to run%s (see the error above)",
			    sm->error ? sm->error : 1, sm->error == 1 ? "" : "s", first.buf);
		sbuf_release(&first);
	} else if (sm->unsupported) {
		code = EXIT_UNSUPPORTED;
		struct sbuf which = SBUF_INIT;
		if (first_capped_budget(r, &which))
			r->exit_reason =
			    xstrfmt("a budget could not be assessed: the time cap (--max-time) "
				    "stopped the measuring of %s before it had samples",
				    which.buf);
		else
			r->exit_reason =
			    xstrdup("a required metric could not be measured, or a budget could "
				    "not be assessed because its metric was not measured");
		sbuf_release(&which);
	} else if (sm->over_budget || sm->regression) {
		code = EXIT_FAIL;
		if (sm->regression) {
			r->exit_reason = xstrfmt("%d gated regression%s found", sm->regression,
						 sm->regression == 1 ? "" : "s");
		} else {
			struct sbuf budget_msg = SBUF_INIT;
			first_budget(r, &budget_msg);
			r->exit_reason =
			    xstrfmt("%d command%s over budget, first: %s", sm->over_budget,
				    sm->over_budget == 1 ? "" : "s", budget_msg.buf);
			sbuf_release(&budget_msg);
		}
	}
	r->summary.exit_code = code;
}

void outcome_fail_on_inconclusive(struct run_result *r)
{
	if (!r->summary.inconclusive || r->summary.exit_code != EXIT_PASS)
		return;
	r->summary.exit_code = EXIT_FAIL;
	free(r->exit_reason);
	r->exit_reason =
	    xstrfmt("%d comparison%s inconclusive (--fail-on-inconclusive)",
		    r->summary.inconclusive, r->summary.inconclusive == 1 ? " is" : "s are");
}
