/* analyze/aa: the A/A survey (see aa.h). */
#include "analyze/aa.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "analyze/analyze.h"
#include "analyze/summary.h"
#include "base/xalloc.h"

const double AA_TOLERANCES[AA_NR_TOL] = {1, 2, 3, 5, 10, 15, 20, 30, 50};

void aa_survey_init(struct aa_survey *st, int repeat, uint64_t seed)
{
	memset(st, 0, sizeof(*st));
	st->repeat = repeat;
	st->seed = seed;
}

static int is_false_verdict(const struct comparison *cp)
{
	return cp->present &&
	       (cp->verdict == VERDICT_REGRESSION || cp->verdict == VERDICT_IMPROVED);
}

/* The rows, from the first compare: every gated comparison it made. */
static void collect_rows(struct aa_survey *st, const struct run_result *r, int repeat)
{
	for (size_t i = 0; i < r->nr_suites; i++)
		for (size_t b = 0; b < r->suites[i].nr_benches; b++) {
			const struct bench_result *br = &r->suites[i].benches[b];
			for (size_t c = 0; c < br->nr_commands; c++)
				for (int m = 0; m < METRIC__COUNT; m++) {
					const struct comparison *cp =
					    &br->commands[c].comparison[m];
					if (!cp->present || !cp->gate)
						continue;
					ALLOC_GROW(st->rows, st->nr + 1, st->alloc);
					struct aa_row *row = &st->rows[st->nr++];
					memset(row, 0, sizeof(*row));
					row->suite = xstrdup(r->suites[i].name);
					row->benchmark = xstrdup(br->name);
					row->command = xstrdup(br->commands[c].name);
					row->si = i;
					row->bi = b;
					row->ci = c;
					row->metric = (enum metric_id)m;
					row->change = xcalloc((size_t)repeat, sizeof(double));
				}
		}
}

/* Row's comparison in compare r, or NULL when r has no such command. */
static struct comparison *row_comparison(const struct aa_row *row, struct run_result *r)
{
	if (row->si >= r->nr_suites || row->bi >= r->suites[row->si].nr_benches)
		return NULL;
	struct bench_result *br = &r->suites[row->si].benches[row->bi];
	if (row->ci >= br->nr_commands || strcmp(br->name, row->benchmark) ||
	    strcmp(br->commands[row->ci].name, row->command))
		return NULL;
	struct comparison *cp = &br->commands[row->ci].comparison[row->metric];
	return cp->present ? cp : NULL;
}

/*
 * Judge one A/A compare: its changes (the suite's own analysis), then the
 * same samples at every T of AA_TOLERANCES.
 */
/* Does any sample of the row's metric, either side, differ from the rest
   (in this compare or an earlier one)? */
static void note_values(struct aa_row *row, const struct run_result *r)
{
	const struct command_result *c = &r->suites[row->si].benches[row->bi].commands[row->ci];
	for (int sd = 0; sd < SIDE__COUNT; sd++) {
		const struct metric_series *ms = &c->side[sd].metric[row->metric];
		for (size_t i = 0; i < ms->nr; i++) {
			if (!row->have_value) {
				row->value = ms->samples[i].value;
				row->have_value = 1;
			} else if (ms->samples[i].value != row->value) {
				row->varied = 1;
			}
		}
	}
}

void aa_survey_add(struct aa_survey *st, struct run_result *r)
{
	analyze_result(r, NULL);
	if (!st->measured)
		collect_rows(st, r, st->repeat);
	for (size_t k = 0; k < st->nr; k++) {
		struct comparison *cp = row_comparison(&st->rows[k], r);
		if (cp && isfinite(cp->change_percent))
			st->rows[k].change[st->rows[k].n++] = cp->change_percent;
		if (cp)
			note_values(&st->rows[k], r);
	}
	for (size_t t = 0; t < AA_NR_TOL; t++) {
		struct analyze_overrides ov;
		memset(&ov, 0, sizeof(ov));
		for (int m = 0; m < METRIC__COUNT; m++) {
			ov.have_max_percent[m] = 1;
			ov.max_percent[m] = AA_TOLERANCES[t];
		}
		analyze_result(r, &ov);
		for (size_t k = 0; k < st->nr; k++) {
			struct comparison *cp = row_comparison(&st->rows[k], r);
			if (cp && is_false_verdict(cp))
				st->rows[k].false_at[t]++;
		}
	}
	st->measured++;
}

void aa_survey_finish(struct aa_survey *st)
{
	for (size_t k = 0; k < st->nr; k++) {
		struct aa_row *row = &st->rows[k];
		row->recommended = -1;
		if (!row->n) {
			row->median = row->p5 = row->p95 = row->p95_abs = NAN;
			continue;
		}
		double *a = xcalloc(row->n, sizeof(double));
		for (size_t i = 0; i < row->n; i++)
			a[i] = fabs(row->change[i]);
		row->median = quantile(row->change, row->n, 0.5);
		row->p5 = quantile(row->change, row->n, 0.05);
		row->p95 = quantile(row->change, row->n, 0.95);
		row->p95_abs = quantile(a, row->n, 0.95);
		free(a);
		for (size_t t = 0; t < AA_NR_TOL && row->recommended < 0; t++)
			if (!row->false_at[t] && row->p95_abs < AA_TOLERANCES[t] / 2)
				row->recommended = (int)t;
	}
}

void aa_survey_release(struct aa_survey *st)
{
	for (size_t k = 0; k < st->nr; k++) {
		free(st->rows[k].change);
		free(st->rows[k].suite);
		free(st->rows[k].benchmark);
		free(st->rows[k].command);
	}
	free(st->rows);
	memset(st, 0, sizeof(*st));
}
