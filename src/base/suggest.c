/*
 * base/suggest: "did you mean" — the optimal-string-alignment edit
 * distance and the closest plausible candidate (suggest.h). The one edit
 * distance of kagari: suite keys, variables and --flags use it.
 */
#include "base/suggest.h"

#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "base/xalloc.h"

size_t suggest_distance(const char *a, const char *b)
{
	size_t n = strlen(a), m = strlen(b);
	/* Three rows for the optimal-string-alignment distance. */
	size_t *prev2 = xcalloc(m + 1, sizeof(size_t));
	size_t *prev = xcalloc(m + 1, sizeof(size_t));
	size_t *cur = xcalloc(m + 1, sizeof(size_t));
	for (size_t j = 0; j <= m; j++)
		prev[j] = j;
	for (size_t i = 1; i <= n; i++) {
		cur[0] = i;
		for (size_t j = 1; j <= m; j++) {
			size_t cost = a[i - 1] != b[j - 1];
			size_t best = prev[j] + 1;
			if (cur[j - 1] + 1 < best)
				best = cur[j - 1] + 1;
			if (prev[j - 1] + cost < best)
				best = prev[j - 1] + cost;
			if (i > 1 && j > 1 && a[i - 1] == b[j - 2] && a[i - 2] == b[j - 1] &&
			    prev2[j - 2] + 1 < best)
				best = prev2[j - 2] + 1;
			cur[j] = best;
		}
		size_t *t = prev2;
		prev2 = prev;
		prev = cur;
		cur = t;
	}
	size_t d = prev[m];
	free(prev2);
	free(prev);
	free(cur);
	return d;
}

const char *suggest_closest(const char *word, const char *const *candidates)
{
	const char *best = NULL;
	size_t best_d = (size_t)-1;
	size_t len = strlen(word);
	size_t limit = len <= 4 ? 1 : len / 3 + 1;
	if (limit > 3)
		limit = 3;
	for (; candidates && *candidates; candidates++) {
		if (!strcasecmp(word, *candidates))
			return *candidates;
		size_t d = suggest_distance(word, *candidates);
		if (d < best_d) {
			best_d = d;
			best = *candidates;
		}
	}
	return best_d <= limit && best_d < len ? best : NULL;
}
