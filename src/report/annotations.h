/*
 * report/annotations: GitHub Actions workflow-command annotations and the
 * short fallback step summary of a judged run (`kagari ci`).
 *
 * Call order (cmd/ci.c), with ci/github.h reading the event:
 *
 *	github_event_base(getenv("GITHUB_EVENT_NAME"),
 *			  getenv("GITHUB_EVENT_PATH"), &sha, &err);
 *	... compare, analyse, write the reports ...
 *	github_annotations(&out, &result, fail_on_inconclusive, workspace);
 *	... print `out` (cmd/ci.c prints it on standard error) ...
 *	github_summary_fallback(&md, &result, fail_on_inconclusive);
 *	github_append_file(getenv("GITHUB_STEP_SUMMARY"), md.buf, md.len, &err);
 *
 * Nothing here prints or exits: functions append to a caller's sbuf.
 */
#ifndef KAGARI_REPORT_ANNOTATIONS_H
#define KAGARI_REPORT_ANNOTATIONS_H

#include <stddef.h>

#include "base/sbuf.h"
#include "model/result.h"

/*
 * Escaping that GitHub requires inside workflow commands: data (the
 * message) escapes %, \r and \n as %25, %0D and %0A; a property value
 * (title, file) also escapes : and , as %3A and %2C. Appends to out.
 */
void github_escape_data(struct sbuf *out, const char *s);
void github_escape_property(struct sbuf *out, const char *s);

enum github_level { GITHUB_NOTICE, GITHUB_WARNING, GITHUB_ERROR };

/*
 * Append one workflow command line:
 *	::LEVEL title=TITLE[,file=FILE[,line=LINE]]::MESSAGE\n
 * with title, file and message escaped. file may be NULL; line is left
 * out when it is 0 or there is no file.
 */
void github_command(struct sbuf *out, enum github_level level, const char *title, const char *file,
		    int line, const char *message);

/* The fixed annotation titles. */
#define GITHUB_TITLE_REGRESSION "regression"
#define GITHUB_TITLE_BUDGET "budget exceeded"
#define GITHUB_TITLE_INCONCLUSIVE "inconclusive"
#define GITHUB_TITLE_ACCEPTED "accepted regression"
/* An ungated metric's regression: a notice, since it cannot fail the job. */
#define GITHUB_TITLE_NOT_GATED "regression (not gated)"
#define GITHUB_TITLE_UNSUPPORTED "metric unsupported"
#define GITHUB_TITLE_FAILED "benchmark failed"

/*
 * Append the annotations of a judged run, one line each, in report order
 * (suite, benchmark, command; budgets, then comparisons, then metrics):
 *
 *	error   benchmark failed    a command that failed to run
 *	error   budget exceeded     a budget that failed
 *	error   metric unsupported  a budget that could not be assessed
 *	error   regression          a gated regression (warning if not gated)
 *	warning inconclusive        a gated inconclusive comparison (error with
 *	                            fail_on_inconclusive; notice if not gated)
 *	warning metric unsupported  a requested metric that is unsupported or
 *	                            failed on a side
 *
 * Passing, improved, within-noise and skipped comparisons give none. The
 * file property is the suite file, relative to `workspace`
 * ($GITHUB_WORKSPACE; may be NULL) when it lies inside it; an absolute path
 * outside it is left out.
 */
void github_annotations(struct sbuf *out, const struct run_result *r, int fail_on_inconclusive,
			const char *workspace);

/*
 * A short GitHub-flavoured Markdown summary (a title line such as "No
 * regressions" or "2 regressions, 1 over budget", the counts, the seed and
 * the problems of github_annotations() as a list), for when the full
 * Markdown report cannot be rendered. User text is escaped.
 */
void github_summary_fallback(struct sbuf *out, const struct run_result *r,
			     int fail_on_inconclusive);

#endif
