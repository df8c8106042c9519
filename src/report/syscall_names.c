/*
 * report/syscall_names: the per-name system-call rows of a command
 * (syscall_names.h), the same in every format.
 */
#include "report/syscall_names.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "base/sbuf.h"
#include "base/xalloc.h"
#include "model/result.h"
#include "report/section.h"

static int two_sided(const struct command_result *c)
{
	return c->side[SIDE_BASE].present && c->side[SIDE_HEAD].present &&
	       (c->side[SIDE_BASE].nr_syscall_names || c->side[SIDE_HEAD].nr_syscall_names);
}

static int by_change(const void *a, const void *b)
{
	const struct syscall_row *x = a, *y = b;
	double dx = fabs(x->head - x->base), dy = fabs(y->head - y->base);
	if (dx != dy)
		return dx < dy ? 1 : -1;
	return strcmp(x->name, y->name);
}

static int by_head(const void *a, const void *b)
{
	const struct syscall_row *x = a, *y = b;
	if (x->head != y->head)
		return x->head < y->head ? 1 : -1;
	return strcmp(x->name, y->name);
}

size_t report_syscall_rows(const struct command_result *c, size_t max, struct syscall_row *rows,
			   int *two)
{
	const struct side_result *b = &c->side[SIDE_BASE], *h = &c->side[SIDE_HEAD];
	*two = two_sided(c);
	size_t nb = *two ? b->nr_syscall_names : 0, nh = h->nr_syscall_names;
	if (!nb && !nh)
		return 0;
	/* Both lists are sorted by name: merge them. */
	struct syscall_row *all = xcalloc(nb + nh + 1, sizeof(*all));
	size_t n = 0, i = 0, k = 0;
	while (i < nb || k < nh) {
		int cmp = i == nb   ? 1
			  : k == nh ? -1
				    : strcmp(b->syscall_names[i].name, h->syscall_names[k].name);
		struct syscall_row r = {0};
		if (cmp <= 0) {
			r.name = b->syscall_names[i].name;
			r.base = b->syscall_names[i++].count;
		}
		if (cmp >= 0) {
			r.name = h->syscall_names[k].name;
			r.head = h->syscall_names[k++].count;
		}
		if (!*two || r.head != r.base)
			all[n++] = r;
	}
	qsort(all, n, sizeof(*all), *two ? by_change : by_head);
	if (n > max)
		n = max;
	memcpy(rows, all, n * sizeof(*rows));
	free(all);
	return n;
}

static void add_count(struct sbuf *out, double v)
{
	if (v == floor(v))
		sbuf_addf(out, "%.0f", v);
	else
		sbuf_addf(out, "%.1f", v);
}

int report_syscall_line(struct sbuf *out, const struct command_result *c, size_t max, int ascii)
{
	int two;
	struct syscall_row *rows = xcalloc(max + 1, sizeof(*rows));
	size_t n = report_syscall_rows(c, max, rows, &two);
	int any =
	    c->side[SIDE_HEAD].nr_syscall_names || (two && c->side[SIDE_BASE].nr_syscall_names);
	if (!any) {
		free(rows);
		return 0;
	}
	if (two && !n)
		sbuf_adds(out, "no call changed its count");
	for (size_t k = 0; k < n; k++) {
		sbuf_addf(out, "%s%s ", k ? ", " : "", rows[k].name);
		if (two) {
			add_count(out, rows[k].base);
			sbuf_adds(out, ascii ? " -> " : " → ");
		}
		add_count(out, rows[k].head);
	}
	free(rows);
	return 1;
}

struct syscall_md {
	struct syscall_row *rows;
	size_t max;
	struct sbuf line;
};

static int syscall_md_line(struct sbuf *text, const char **heading, const struct command_result *cr,
			   void *ctx)
{
	struct syscall_md *m = ctx;
	int two;
	if (!report_syscall_rows(cr, m->max, m->rows, &two))
		return 0;
	sbuf_reset(&m->line);
	report_syscall_line(&m->line, cr, m->max, 0);
	*heading = two ? "#### System calls that changed (median per run, base → head)\n\n"
		       : "#### System calls (median per run)\n\n";
	report_md_escape(text, m->line.buf);
	return 1;
}

void report_syscall_markdown(struct sbuf *out, const struct run_result *r, size_t max)
{
	struct syscall_md m = {xcalloc(max + 1, sizeof(*m.rows)), max, SBUF_INIT};
	report_md_command_list(out, r, syscall_md_line, &m);
	free(m.rows);
	sbuf_release(&m.line);
}
