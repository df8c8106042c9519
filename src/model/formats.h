/*
 * model/formats: the one table of the report formats kagari writes.
 *
 * Everything that names the formats comes from REPORT_FORMATS below: the
 * enum, the names report_format_parse() accepts (report/report.h), the
 * `--format` choices, help and "expected one of" messages of run,
 * compare, ci, report, merge and bench (cmd/), and the suite file's
 * `output: {format: ...}` names (suite/). A new format is one row here
 * plus its writer in report_render() (report/report.c).
 *
 * It lives in model/ because suite/, which may not include report/,
 * checks the suite file's format names too. The lists are built by the
 * preprocessor, so the option tables stay static constants.
 *
 * A row is X(ID, NAME, NOTE, SCOPE):
 *   ID     the enum report_format value
 *   NAME   the --format name
 *   NOTE   said after the name in --help (" (Bencher)"), or ""
 *   SCOPE  ALL: every command and the suite file; BENCH: only `kagari bench`
 *          (hyperfine's csv and markdown layouts, which describe a one-sided
 *          run of several commands)
 * The first row is the default format and is in every scope; it is written
 * with X1 so that the lists need no separator before it.
 */
#ifndef KAGARI_MODEL_FORMATS_H
#define KAGARI_MODEL_FORMATS_H

#define REPORT_FORMATS(X1, X)                                                                      \
	X1(REPORT_TABLE, "table", " (default)", ALL) /* for humans */                              \
	X(REPORT_JSON, "json", "", ALL)		     /* docs/contract.md "The JSON report" */      \
	X(REPORT_CSV, "csv", "", ALL) /* a row per suite/benchmark/command/side/metric */          \
	X(REPORT_SAMPLES_CSV, "samples-csv", "", ALL) /* one row per sample */                     \
	X(REPORT_MARKDOWN, "markdown", "", ALL)                                                    \
	X(REPORT_GITHUB, "github", "", ALL)                                                        \
	X(REPORT_HTML, "html", "", ALL)                                                            \
	X(REPORT_HYPERFINE, "hyperfine-json", "", ALL)	    /* hyperfine --export-json schema */   \
	X(REPORT_HYPERFINE_CSV, "hyperfine-csv", "", BENCH) /* --export-csv layout */              \
	X(REPORT_HYPERFINE_MARKDOWN, "hyperfine-markdown", "",                                     \
	  BENCH)				/* --export-markdown layout */                     \
	X(REPORT_BMF, "bmf", " (Bencher)", ALL) /* Bencher Metric Format */                        \
	X(REPORT_JUNIT, "junit", "", ALL)	/* JUnit XML */

#define REPORT_FORMAT_ENUM_(id, name, note, scope) id,
enum report_format {
	REPORT_FORMATS(REPORT_FORMAT_ENUM_, REPORT_FORMAT_ENUM_) REPORT_FORMAT__COUNT
};

/*
 * Parse a --format name (any row above). Returns 0, or -1 when unknown
 * (*out untouched).
 */
int report_format_parse(const char *name, enum report_format *out);
/* The name report_format_parse() accepts for f; "unknown" out of range. */
const char *report_format_name(enum report_format f);

/* FMT_IN_(scope of the list, scope of the row)(text): the text or nothing. */
#define FMT_IN_ALL_ALL(...) __VA_ARGS__
#define FMT_IN_ALL_BENCH(...)
#define FMT_IN_BENCH_ALL(...) __VA_ARGS__
#define FMT_IN_BENCH_BENCH(...) __VA_ARGS__
#define FMT_IN_(list, row) FMT_IN_##list##_##row

/* "table|json|...": an OPT_ENUM's choices (base/opts.h). */
#define FMT_CHOICE1_ALL_(id, name, note, scope) FMT_IN_(ALL, scope)(name)
#define FMT_CHOICE_ALL_(id, name, note, scope) FMT_IN_(ALL, scope)("|" name)
#define FMT_CHOICE1_BENCH_(id, name, note, scope) FMT_IN_(BENCH, scope)(name)
#define FMT_CHOICE_BENCH_(id, name, note, scope) FMT_IN_(BENCH, scope)("|" name)
#define REPORT_FORMAT_CHOICES REPORT_FORMATS(FMT_CHOICE1_ALL_, FMT_CHOICE_ALL_)
#define REPORT_FORMAT_CHOICES_BENCH REPORT_FORMATS(FMT_CHOICE1_BENCH_, FMT_CHOICE_BENCH_)

/* "table (default), json, ..., bmf (Bencher), junit": for --help. */
#define FMT_HELP1_ALL_(id, name, note, scope) FMT_IN_(ALL, scope)(name note)
#define FMT_HELP_ALL_(id, name, note, scope) FMT_IN_(ALL, scope)(", " name note)
#define REPORT_FORMAT_HELP REPORT_FORMATS(FMT_HELP1_ALL_, FMT_HELP_ALL_)

/* The names of every command's formats as initialisers of a NULL-terminated
   array of strings (the suite file's `format:`). */
#define FMT_NAME_ALL_(id, name, note, scope) FMT_IN_(ALL, scope)(name, )
#define REPORT_FORMAT_NAMES REPORT_FORMATS(FMT_NAME_ALL_, FMT_NAME_ALL_) NULL

#endif
