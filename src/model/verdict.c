/* model/verdict: the verdict names (model/verdict.h). */
#include "model/verdict.h"

#include <string.h>

/* The names of docs/contract.md, index for index with enum verdict. */
static const char *const verdict_names[VERDICT__COUNT] = {
	[VERDICT_NONE] = NULL,
	[VERDICT_PASS] = "pass",
	[VERDICT_IMPROVED] = "improved",
	[VERDICT_REGRESSION] = "regression",
	[VERDICT_INCONCLUSIVE] = "inconclusive",
	[VERDICT_WITHIN_NOISE] = "within_noise",
	[VERDICT_SKIPPED] = "skipped",
	[VERDICT_ACCEPTED] = "accepted",
};

const char *verdict_name(enum verdict v)
{
	if ((int)v < 0 || v >= VERDICT__COUNT)
		return NULL;
	return verdict_names[v];
}

const char *verdict_text(enum verdict v, const char *none)
{
	const char *name = verdict_name(v);
	return name ? name : none;
}

int verdict_parse(const char *name)
{
	if (!name)
		return -1;
	for (int v = VERDICT_NONE + 1; v < VERDICT__COUNT; v++)
		if (!strcmp(name, verdict_names[v]))
			return v;
	return -1;
}
