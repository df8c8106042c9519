/*
 * report/counted_functions: per-function valgrind counts of a command,
 * base → head (counted_functions.h), the same in every format.
 */
#include "report/counted_functions.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "base/sbuf.h"
#include "base/xalloc.h"
#include "model/result.h"
#include "report/section.h"

static double change_of(const struct counted_fn_row *r)
{
	if (isfinite(r->est[0]) && isfinite(r->est[1]))
		return fabs(r->est[1] - r->est[0]);
	return fabs(r->ir[1] - r->ir[0]);
}

static int by_change(const void *a, const void *b)
{
	const struct counted_fn_row *x = a, *y = b;
	double dx = change_of(x), dy = change_of(y);
	if (dx != dy)
		return dx < dy ? 1 : -1;
	return strcmp(x->name, y->name);
}

static int by_head(const void *a, const void *b)
{
	const struct counted_fn_row *x = a, *y = b;
	if (x->ir[1] != y->ir[1])
		return x->ir[1] < y->ir[1] ? 1 : -1;
	return strcmp(x->name, y->name);
}

size_t report_counted_fn_rows(const struct command_result *c, size_t max,
			      struct counted_fn_row *rows, int *two)
{
	const struct side_result *s[2] = {&c->side[SIDE_BASE], &c->side[SIDE_HEAD]};
	*two = s[0]->present && s[1]->present && s[0]->nr_counted_functions &&
	       s[1]->nr_counted_functions;
	size_t nb = *two ? s[0]->nr_counted_functions : 0, nh = s[1]->nr_counted_functions;
	if (!nb && !nh)
		return 0;
	struct counted_fn_row *all = xcalloc(nb + nh + 1, sizeof(*all));
	size_t n = 0, i = 0, k = 0;
	while (i < nb || k < nh) {
		const struct fn_count *b = i < nb ? &s[0]->counted_functions[i] : NULL;
		const struct fn_count *h = k < nh ? &s[1]->counted_functions[k] : NULL;
		int cmp = !b ? 1 : !h ? -1 : strcmp(b->name, h->name);
		struct counted_fn_row r = {0};
		r.est[0] = r.est[1] = NAN;
		if (cmp <= 0) {
			r.name = b->name;
			r.ir[0] = b->instructions;
			r.est[0] = b->estimated_cycles;
			i++;
		}
		if (cmp >= 0) {
			r.name = h->name;
			r.ir[1] = h->instructions;
			r.est[1] = h->estimated_cycles;
			k++;
		}
		/* A function listed on one side only counts 0 on the other. */
		for (int sd = 0; sd < 2; sd++)
			if (isnan(r.est[sd]) && isfinite(r.est[1 - sd]) && r.ir[sd] == 0)
				r.est[sd] = 0;
		if (!*two || change_of(&r) > 0)
			all[n++] = r;
	}
	qsort(all, n, sizeof(*all), *two ? by_change : by_head);
	if (n > max)
		n = max;
	memcpy(rows, all, n * sizeof(*rows));
	free(all);
	return n;
}

static void add_pair(struct sbuf *out, double b, double h, int two, const char *what)
{
	if (two) {
		sbuf_addf(out, "%.0f → %.0f %s", b, h, what);
		if (b > 0)
			sbuf_addf(out, " (%+.1f%%)", (h / b - 1) * 100);
		else
			sbuf_adds(out, " (new)");
	} else {
		sbuf_addf(out, "%.0f %s", h, what);
	}
}

void report_counted_fn_text(struct sbuf *out, const struct counted_fn_row *row, int two)
{
	sbuf_addf(out, "%s ", row->name);
	add_pair(out, row->ir[0], row->ir[1], two, "instructions");
	if (isfinite(row->est[1]) && (!two || isfinite(row->est[0]))) {
		sbuf_adds(out, ", ");
		add_pair(out, row->est[0], row->est[1], two, "estimated cycles");
	}
}

struct counted_fn_md {
	struct counted_fn_row *rows;
	size_t max;
	struct sbuf line;
};

static int counted_fn_md_line(struct sbuf *text, const char **heading,
			      const struct command_result *cr, void *ctx)
{
	struct counted_fn_md *m = ctx;
	int two;
	size_t n = report_counted_fn_rows(cr, m->max, m->rows, &two);
	*heading = "#### Functions by count (valgrind, exact)\n\n";
	for (size_t k = 0; k < n; k++) {
		sbuf_reset(&m->line);
		report_counted_fn_text(&m->line, &m->rows[k], two);
		if (k)
			sbuf_adds(text, "; ");
		report_md_escape(text, m->line.buf);
	}
	return n > 0;
}

void report_counted_fn_markdown(struct sbuf *out, const struct run_result *r, size_t max)
{
	struct counted_fn_md m = {xcalloc(max + 1, sizeof(*m.rows)), max, SBUF_INIT};
	report_md_command_list(out, r, counted_fn_md_line, &m);
	free(m.rows);
	sbuf_release(&m.line);
}
