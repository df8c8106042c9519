/* model/verdict: the verdict and result names (model/verdict.h). */
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

/*
 * Index for index with enum result: the verdict a result is, or its own
 * name (docs/contract.md). A verdict's name is verdict_names' only.
 */
static const struct result_def {
	enum verdict verdict; /* VERDICT_NONE: not a verdict */
	const char *name;     /* the name of one that is not */
} results[RESULT__COUNT] = {
    [RESULT_NONE] = {VERDICT_NONE, NULL},
    [RESULT_NOT_RUN] = {VERDICT_NONE, "not_run"},
    [RESULT_SKIPPED] = {VERDICT_SKIPPED, NULL},
    [RESULT_PASS] = {VERDICT_PASS, NULL},
    [RESULT_IMPROVED] = {VERDICT_IMPROVED, NULL},
    [RESULT_WITHIN_NOISE] = {VERDICT_WITHIN_NOISE, NULL},
    [RESULT_ACCEPTED] = {VERDICT_ACCEPTED, NULL},
    [RESULT_INCONCLUSIVE] = {VERDICT_INCONCLUSIVE, NULL},
    [RESULT_UNSUPPORTED] = {VERDICT_NONE, "unsupported"},
    [RESULT_OVER_BUDGET] = {VERDICT_NONE, "over_budget"},
    [RESULT_REGRESSION] = {VERDICT_REGRESSION, NULL},
    [RESULT_INTERRUPTED] = {VERDICT_NONE, "interrupted"},
    [RESULT_ERROR] = {VERDICT_NONE, "error"},
};

const char *result_name(enum result r)
{
	if ((int)r < 0 || r >= RESULT__COUNT)
		return NULL;
	if (results[r].verdict != VERDICT_NONE)
		return verdict_name(results[r].verdict);
	return results[r].name;
}

const char *result_text(enum result r, const char *none)
{
	const char *name = result_name(r);
	return name ? name : none;
}

int result_parse(const char *name)
{
	if (!name)
		return -1;
	for (int r = RESULT_NONE + 1; r < RESULT__COUNT; r++)
		if (!strcmp(name, result_name((enum result)r)))
			return r;
	return -1;
}

enum result result_from_verdict(enum verdict v)
{
	if (v == VERDICT_NONE)
		return RESULT_NONE;
	for (int r = RESULT_NONE + 1; r < RESULT__COUNT; r++)
		if (results[r].verdict == v)
			return (enum result)r;
	return RESULT_NONE;
}
