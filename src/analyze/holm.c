/*
 * analyze/holm: Holm's step-down correction (holm.h), on raw p-values and
 * over a family of compare_result.
 */
#include "analyze/holm.h"

#include <math.h>
#include <stdlib.h>

#include "base/xalloc.h"

struct holm_item {
	double p;
	size_t index;
};

static int cmp_item(const void *pa, const void *pb)
{
	const struct holm_item *a = pa, *b = pb;

	if (a->p != b->p)
		return (a->p > b->p) - (a->p < b->p);
	/* Stable for equal p, so the result does not depend on qsort. */
	return (a->index > b->index) - (a->index < b->index);
}

size_t holm_adjust_values(const double *p, size_t n, double *adj)
{
	struct holm_item *items;
	size_t m = 0;
	double running = 0;

	if (!n)
		return 0;
	items = xreallocarray(NULL, n, sizeof(*items));
	for (size_t i = 0; i < n; i++)
		if (!isnan(p[i]))
			items[m++] = (struct holm_item){p[i], i};
	for (size_t i = 0; i < n; i++)
		if (isnan(p[i]))
			adj[i] = NAN;
	qsort(items, m, sizeof(*items), cmp_item);
	for (size_t j = 0; j < m; j++) {
		double a = (double)(m - j) * items[j].p;

		if (a > 1)
			a = 1;
		if (a > running)
			running = a;
		adj[items[j].index] = running;
	}
	free(items);
	return m;
}

void holm_adjust(struct compare_result **results, size_t n, int holm)
{
	double *p;
	size_t m;

	if (!n)
		return;
	if (!holm) {
		for (size_t i = 0; i < n; i++) {
			results[i]->p_adjusted = results[i]->p_value;
			results[i]->holm_m = 1;
			results[i]->holm_applied = 0;
		}
		return;
	}
	p = xreallocarray(NULL, n, sizeof(*p));
	for (size_t i = 0; i < n; i++)
		p[i] = results[i]->p_value;
	m = holm_adjust_values(p, n, p);
	for (size_t i = 0; i < n; i++) {
		results[i]->p_adjusted = p[i];
		results[i]->holm_m = m ? m : 1;
		results[i]->holm_applied = m > 1;
	}
	free(p);
}
