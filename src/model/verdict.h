/*
 * model/verdict: the verdict of one comparison (docs/contract.md,
 * "comparisons"; the rules in docs/statistics.md) as an enum, with the one
 * table of its names. The result model stores the enum; the name is
 * written or read only where text is: the JSON writer and reader, the
 * history store and the human-readable reports.
 */
#ifndef KAGARI_MODEL_VERDICT_H
#define KAGARI_MODEL_VERDICT_H

enum verdict {
	/* No verdict: a comparison that is not present (zeroed memory). */
	VERDICT_NONE = 0,
	VERDICT_PASS,
	VERDICT_IMPROVED,
	VERDICT_REGRESSION,
	VERDICT_INCONCLUSIVE,
	VERDICT_WITHIN_NOISE,
	VERDICT_SKIPPED,
	/* A gated regression a Kagari-Accept trailer allowed (analyze/accept.h). */
	VERDICT_ACCEPTED,
	VERDICT__COUNT
};

/*
 * "pass", "improved", "regression", "inconclusive", "within_noise",
 * "skipped", "accepted"; NULL for VERDICT_NONE or a value out of range.
 */
const char *verdict_name(enum verdict v);

/* verdict_name(v), or `none` where it has no name (the writers' "n/a"). */
const char *verdict_text(enum verdict v, const char *none);

/* The inverse for the names above; -1 for NULL or an unknown name. */
int verdict_parse(const char *name);

#endif
