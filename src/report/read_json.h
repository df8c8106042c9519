/*
 * report/read_json: a saved JSON report (report_write_json()) back into a
 * struct run_result, so that `kagari report` can re-render it in any format
 * without measuring or recomputing anything.
 *
 * Call order:
 *
 *	struct run_result r;
 *	run_result_init(&r);
 *	if (report_read_json(text, len, "report.json", &r, &err) < 0)
 *		... err: "report.json:3:14: invalid JSON: ..." or
 *		    "report.json: suites[0].benchmarks[1].name: expected a string"
 *	... report_render(&r, ...) ...
 *	run_result_release(&r);
 *
 * Every field write_json.c writes is read back: suites, benchmarks (tags,
 * baseline), commands (error, stderr_tail), both sides with every metric's
 * unit, status, reason, stats and samples, comparisons (with the evidence
 * fields and `bootstrap_quantiles`), budgets, environment, git, warnings,
 * summary (exit_code included), exit_reason, interrupted, the seed, each
 * metric's `required` and each command's `analysis` settings (what
 * analyze_result() needs to analyse the samples again). The
 * seed is read from the number's own text, so every value up to 2^64-1 is
 * exact. Numbers that were null (not measured) come back as NAN; other
 * numbers are doubles, as in the result model. Fields this version does not
 * know are ignored (the contract allows more); a field of the wrong type,
 * an unknown metric, a comparison verdict or a command's, benchmark's or
 * suite's result model/verdict.h does not name,
 * verdict-independent enum values out of range, a
 * schema_version other than "1" or a `tool` other than "kagari" is an error
 * naming the file and the field.
 *
 * Ownership: r must be initialised (run_result_init()) and empty; on
 * success it owns everything read. On failure r may hold a partial result:
 * release it with run_result_release().
 */
#ifndef KAGARI_REPORT_READ_JSON_H
#define KAGARI_REPORT_READ_JSON_H

#include <stddef.h>

#include "base/sbuf.h"
#include "model/result.h"

/* The only schema_version this reader accepts. */
#define REPORT_SCHEMA_VERSION "1"

/*
 * Read the report in text[0..len) (`file` names it in messages). Returns 0,
 * or -1 with one reason appended to err, prefixed "FILE:LINE:COL: " for
 * invalid JSON and "FILE: FIELD.PATH: " otherwise.
 */
int report_read_json(const char *text, size_t len, const char *file, struct run_result *r,
		     struct sbuf *err);

#endif
