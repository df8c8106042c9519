/*
 * `junit`: JUnit XML as GitLab (artifacts:reports:junit), Jenkins' junit
 * step and most CI test views read it — the de-facto schema of Ant's
 * JUnit task: <testsuites> of <testsuite name tests failures errors
 * skipped time>, each of <testcase classname name time> holding at most
 * one <failure message type>, <error message type> or <skipped message>,
 * with the details as the element's text.
 *
 * One <testsuite> per kagari suite. In it, per command: a test case
 * "COMMAND" (an <error> when the command failed, <skipped> when it was not
 * run or was interrupted), a test case "COMMAND METRIC" per gated
 * comparison (a <failure type="regression"> for a regression, <skipped>
 * for a comparison that could not be made; an accepted regression passes
 * and says so in <system-out>), and a test case "COMMAND budget ..." per
 * budget (a <failure type="over_budget"> when exceeded, an <error> when it
 * could not be assessed). classname is "SUITE.BENCHMARK", so the test views
 * group by benchmark. Every <failure> and <error> carries its details
 * as text as well as in `message` (GitLab shows the text). The layout
 * validates against the junit-10 schema of Jenkins' xunit plugin (no
 * `skipped` on <testsuites>; tests/data/junit-10.xsd states its rules).
 *
 * `time`: a command's test case, the measured wall time of its runs (both
 * sides); <testsuites>, the run's real elapsed time, from started_at to
 * finished_at (what the job waited, builds and warm-up included); a
 * <testsuite>, the same when the report holds one suite, else its
 * commands' measured time. Text goes through report_html_escape():
 * markup characters as references and control characters XML 1.0 forbids
 * as U+FFFD.
 */
#include "report/report.h"
#include "report/describe.h"

#include <math.h>
#include <stdio.h>
#include <string.h>
#include <time.h>

#include "analyze/format.h"
#include "report/escape.h"

struct junit_counts {
	int tests, failures, errors, skipped;
	double time;
};

static void open_case(struct sbuf *out, const struct suite_result *s, const struct bench_result *b,
		      const char *name, double secs)
{
	sbuf_adds(out, "    <testcase classname=\"");
	report_html_escape(out, s->name, 0);
	sbuf_addch(out, '.');
	report_html_escape(out, b->name, 0);
	sbuf_adds(out, "\" name=\"");
	report_html_escape(out, name, 0);
	sbuf_addf(out, "\" time=\"%.6f\"", isfinite(secs) ? secs : 0.0);
}

/* <KIND message="MSG" type="TYPE">TEXT</KIND> inside a testcase. */
static void outcome(struct sbuf *out, const char *kind, const char *type, const char *msg,
		    const char *text)
{
	sbuf_addf(out, "      <%s", kind);
	if (type) {
		sbuf_adds(out, " type=\"");
		report_html_escape(out, type, 0);
		sbuf_addch(out, '"');
	}
	sbuf_adds(out, " message=\"");
	report_html_escape(out, msg, 0);
	sbuf_addch(out, '"');
	if (text && *text) {
		sbuf_addch(out, '>');
		report_html_escape(out, text, 1);
		sbuf_addf(out, "</%s>\n", kind);
	} else {
		sbuf_adds(out, "/>\n");
	}
}

static double measured_seconds(const struct command_result *c)
{
	double ns = 0;
	for (int sd = 0; sd < SIDE__COUNT; sd++) {
		const struct metric_series *lat = &c->side[sd].metric[METRIC_LATENCY];
		for (size_t i = 0; i < lat->nr; i++)
			ns += lat->samples[i].value;
	}
	return ns / 1e9;
}

/* "2024-05-01T10:00:00.123Z" as seconds since the epoch; NAN if not. */
static double rfc3339_seconds(const char *s)
{
	struct tm tm;
	int y, mo, d, h, mi, n = 0;
	double sec;
	memset(&tm, 0, sizeof(tm));
	if (!s || sscanf(s, "%d-%d-%dT%d:%d:%lf%n", &y, &mo, &d, &h, &mi, &sec, &n) != 6 ||
	    s[n] != 'Z')
		return NAN;
	tm.tm_year = y - 1900;
	tm.tm_mon = mo - 1;
	tm.tm_mday = d;
	tm.tm_hour = h;
	tm.tm_min = mi;
	return (double)timegm(&tm) + sec;
}

/* The run's real elapsed time in seconds; NAN when unknown. */
static double elapsed_seconds(const struct run_result *r)
{
	double a = rfc3339_seconds(r->started_at), b = rfc3339_seconds(r->finished_at);
	return isfinite(a) && isfinite(b) && b >= a ? b - a : NAN;
}

/* The command's own case: an error, not run, or measured. */
static void command_case(struct sbuf *out, struct junit_counts *n, const struct suite_result *s,
			 const struct bench_result *b, const struct command_result *c,
			 struct sbuf *tmp)
{
	double secs = measured_seconds(c);
	n->tests++;
	n->time += secs;
	open_case(out, s, b, c->name, secs);
	const char *res = result_text(c->result, "");
	if (c->error) {
		sbuf_adds(out, ">\n");
		sbuf_reset(tmp);
		sbuf_adds(tmp, c->error);
		if (c->stderr_tail && *c->stderr_tail)
			sbuf_addf(tmp, "\nstderr (last lines):\n%s", c->stderr_tail);
		outcome(out, "error", "error", c->error, tmp->buf);
		sbuf_adds(out, "    </testcase>\n");
		n->errors++;
	} else if (c->result == RESULT_NOT_RUN || c->result == RESULT_INTERRUPTED) {
		sbuf_adds(out, ">\n");
		outcome(out, "skipped", NULL, res, NULL);
		sbuf_adds(out, "    </testcase>\n");
		n->skipped++;
	} else {
		sbuf_adds(out, "/>\n");
	}
}

/* A case per gated comparison: a regression fails it. */
static void comparison_cases(struct sbuf *out, struct junit_counts *n, const struct suite_result *s,
			     const struct bench_result *b, const struct command_result *c,
			     struct sbuf *tmp)
{
	for (int m = 0; m < METRIC__COUNT; m++) {
		const struct comparison *cp = &c->comparison[m];
		if (!cp->present || !cp->gate)
			continue;
		sbuf_reset(tmp);
		sbuf_addf(tmp, "%s %s", c->name, metric_get(m)->name);
		n->tests++;
		open_case(out, s, b, tmp->buf, 0);
		const char *v = verdict_text(cp->verdict, "");
		sbuf_reset(tmp);
		sbuf_addf(tmp, "%s: %s ", metric_get(m)->name, v);
		units_format_percent(tmp, cp->change_percent);
		report_tolerance_note(tmp, cp);
		if (cp->verdict == VERDICT_REGRESSION) {
			sbuf_adds(out, ">\n");
			struct sbuf text = SBUF_INIT;
			sbuf_adds(&text, tmp->buf);
			if (cp->reason && *cp->reason) {
				sbuf_adds(&text, ": ");
				report_reason_text(&text, cp);
			}
			outcome(out, "failure", "regression", tmp->buf, text.buf);
			sbuf_release(&text);
			sbuf_adds(out, "    </testcase>\n");
			n->failures++;
		} else if (cp->verdict == VERDICT_SKIPPED) {
			sbuf_adds(out, ">\n");
			outcome(out, "skipped", NULL, cp->reason ? cp->reason : v, NULL);
			sbuf_adds(out, "    </testcase>\n");
			n->skipped++;
		} else {
			sbuf_adds(out, ">\n      <system-out>");
			report_html_escape(out, tmp->buf, 0);
			if (cp->reason) {
				struct sbuf why = SBUF_INIT;

				report_reason_text(&why, cp);
				sbuf_adds(out, ": ");
				report_html_escape(out, why.buf, 1);
				sbuf_release(&why);
			}
			sbuf_adds(out, "</system-out>\n    </testcase>\n");
		}
	}
}

/* A case per budget: over budget fails it, unassessable is an error. */
static void budget_cases(struct sbuf *out, struct junit_counts *n, const struct suite_result *s,
			 const struct bench_result *b, const struct command_result *c,
			 struct sbuf *tmp)
{
	for (size_t k = 0; k < c->nr_budgets; k++) {
		const struct budget_result *bu = &c->budgets[k];
		sbuf_reset(tmp);
		/* "parse budget latency p95 <= 20ms" (report/describe.h). */
		sbuf_addf(tmp, "%s budget ", c->name);
		report_budget_subject(tmp, bu);
		sbuf_addch(tmp, ' ');
		report_budget_limit(tmp, c, bu);
		n->tests++;
		open_case(out, s, b, tmp->buf, 0);
		if (bu->status == BUDGET_PASS) {
			sbuf_adds(out, "/>\n");
			continue;
		}
		sbuf_reset(tmp);
		report_budget_subject(tmp, bu);
		sbuf_addch(tmp, ' ');
		report_budget_actual(tmp, c, bu, "n/a");
		sbuf_adds(tmp, " (budget ");
		report_budget_limit(tmp, c, bu);
		sbuf_addch(tmp, ')');
		sbuf_adds(out, ">\n");
		if (bu->status == BUDGET_FAIL) {
			outcome(out, "failure", "over_budget", tmp->buf, tmp->buf);
			n->failures++;
		} else {
			struct sbuf text = SBUF_INIT;
			sbuf_adds(&text, tmp->buf);
			if (bu->reason && *bu->reason)
				sbuf_addf(&text, ": %s", bu->reason);
			outcome(out, "error", "unassessable", tmp->buf, text.buf);
			sbuf_release(&text);
			n->errors++;
		}
		sbuf_adds(out, "    </testcase>\n");
	}
}

static void command_cases(struct sbuf *out, struct junit_counts *n, const struct suite_result *s,
			  const struct bench_result *b, const struct command_result *c,
			  struct sbuf *tmp)
{
	command_case(out, n, s, b, c, tmp);
	comparison_cases(out, n, s, b, c, tmp);
	budget_cases(out, n, s, b, c, tmp);
}

/* <testsuite> has `skipped`; <testsuites> may not (junit-10). */
static void counts_attrs(struct sbuf *out, const struct junit_counts *n, int skipped)
{
	sbuf_addf(out, " tests=\"%d\" failures=\"%d\" errors=\"%d\"", n->tests, n->failures,
		  n->errors);
	if (skipped)
		sbuf_addf(out, " skipped=\"%d\"", n->skipped);
	sbuf_addf(out, " time=\"%.6f\"", isfinite(n->time) && n->time >= 0 ? n->time : 0.0);
}

int report_write_junit(const struct run_result *r, const struct report_options *o, struct sbuf *out,
		       struct sbuf *err)
{
	struct junit_counts all = {0};
	struct sbuf body = SBUF_INIT, cases = SBUF_INIT, tmp = SBUF_INIT;
	(void)o;
	(void)err;
	for (size_t i = 0; i < r->nr_suites; i++) {
		const struct suite_result *s = &r->suites[i];
		struct junit_counts n = {0};
		sbuf_reset(&cases);
		for (size_t b = 0; b < s->nr_benches; b++)
			for (size_t c = 0; c < s->benches[b].nr_commands; c++)
				command_cases(&cases, &n, s, &s->benches[b],
					      &s->benches[b].commands[c], &tmp);
		sbuf_adds(&body, "  <testsuite name=\"");
		report_html_escape(&body, s->name, 0);
		sbuf_addch(&body, '"');
		if (r->nr_suites == 1 && isfinite(elapsed_seconds(r)))
			n.time = elapsed_seconds(r);
		counts_attrs(&body, &n, 1);
		if (r->started_at) {
			sbuf_adds(&body, " timestamp=\"");
			report_html_escape(&body, r->started_at, 0);
			sbuf_addch(&body, '"');
		}
		sbuf_adds(&body, ">\n");
		sbuf_add(&body, cases.buf, cases.len);
		sbuf_adds(&body, "  </testsuite>\n");
		all.tests += n.tests;
		all.failures += n.failures;
		all.errors += n.errors;
		all.skipped += n.skipped;
		all.time += n.time;
	}
	sbuf_adds(out, "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<testsuites name=\"kagari\"");
	if (isfinite(elapsed_seconds(r)))
		all.time = elapsed_seconds(r);
	counts_attrs(out, &all, 0);
	sbuf_adds(out, ">\n");
	sbuf_add(out, body.buf, body.len);
	sbuf_adds(out, "</testsuites>\n");
	sbuf_release(&body);
	sbuf_release(&cases);
	sbuf_release(&tmp);
	return 0;
}
