/*
 * model/verdict: the verdict of one comparison (docs/contract.md,
 * "comparisons"; the rules in docs/statistics.md) and the result of a
 * command, a benchmark or a suite (the JSON report's `result`) as enums,
 * each with the one table of its names. A command's result is the worst of
 * its own state (error, interrupted, over budget, unsupported) and the
 * verdicts of its gated comparisons; a benchmark's the worst of its
 * commands', a suite's the worst of its benchmarks' (analyze_rollup()).
 * So a result is either a verdict, under the verdict's name, or a state.
 *
 * The result model stores the enums; a name is written or read only where
 * text is: the JSON writer and reader, the history store and the
 * human-readable reports.
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

/*
 * In increasing severity: the roll-up keeps the greatest, and a verdict
 * replaces a command's state only when it is greater.
 */
enum result {
	/* No result: not analysed (zeroed memory; JSON null). */
	RESULT_NONE = 0,
	RESULT_NOT_RUN,	     /* "not_run" */
	RESULT_SKIPPED,	     /* a verdict (never a command's own) */
	RESULT_PASS,	     /* a verdict, and a command's state */
	RESULT_IMPROVED,     /* a verdict */
	RESULT_WITHIN_NOISE, /* a verdict */
	RESULT_ACCEPTED,     /* a verdict */
	RESULT_INCONCLUSIVE, /* a verdict */
	RESULT_UNSUPPORTED,  /* "unsupported": a required metric or a
				budget could not be measured or assessed */
	RESULT_OVER_BUDGET,  /* "over_budget": a budget failed */
	RESULT_REGRESSION,   /* a verdict */
	RESULT_INTERRUPTED,  /* "interrupted": stopped before measuring */
	RESULT_ERROR,	     /* "error": the command (or its suite) failed */
	RESULT__COUNT
};

/*
 * "not_run", "unsupported", "over_budget", "interrupted", "error", or the
 * verdict's name (verdict_name()) for the others; NULL for RESULT_NONE or
 * a value out of range.
 */
const char *result_name(enum result r);

/* result_name(r), or `none` where it has no name. */
const char *result_text(enum result r, const char *none);

/* The inverse for the names above; -1 for NULL or an unknown name. */
int result_parse(const char *name);

/* The result a verdict makes (RESULT_NONE for VERDICT_NONE). */
enum result result_from_verdict(enum verdict v);

#endif
