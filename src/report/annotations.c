/*
 * report/annotations: GitHub workflow-command annotations and the short
 * fallback step summary of a judged run (annotations.h). Laid out as: the
 * workflow-command escaping, the problems of a run (report_problems_list()
 * of report/section.c, one annotation each, in report order), then the two
 * writers over them. User text in the summary
 * goes through report_md_escape(), the escaper every Markdown writer uses.
 */
#include "report/annotations.h"

#include <inttypes.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "analyze/format.h"
#include "base/xalloc.h"
#include "report/describe.h"
#include "report/problems.h"
#include "report/section.h"

static void escape(struct sbuf *out, const char *s, int property)
{
	for (; s && *s; s++) {
		switch (*s) {
		case '%':
			sbuf_adds(out, "%25");
			break;
		case '\r':
			sbuf_adds(out, "%0D");
			break;
		case '\n':
			sbuf_adds(out, "%0A");
			break;
		case ':':
			sbuf_adds(out, property ? "%3A" : ":");
			break;
		case ',':
			sbuf_adds(out, property ? "%2C" : ",");
			break;
		case '#':
			/* The older command form, "##[", is read anywhere in
			   a line: an invisible U+200B breaks it. */
			sbuf_addch(out, '#');
			if (s[1] == '#' && s[2] == '[')
				sbuf_adds(out, "\xe2\x80\x8b");
			break;
		default:
			sbuf_addch(out, *s);
		}
	}
}

void github_escape_data(struct sbuf *out, const char *s)
{
	escape(out, s, 0);
}

void github_escape_property(struct sbuf *out, const char *s)
{
	escape(out, s, 1);
}

static const char *level_name(enum github_level l)
{
	return l == GITHUB_ERROR ? "error" : l == GITHUB_WARNING ? "warning" : "notice";
}

void github_command(struct sbuf *out, enum github_level level, const char *title, const char *file,
		    int line, const char *message)
{
	sbuf_addf(out, "::%s title=", level_name(level));
	github_escape_property(out, title);
	if (file && *file) {
		sbuf_adds(out, ",file=");
		github_escape_property(out, file);
		if (line > 0)
			sbuf_addf(out, ",line=%d", line);
	}
	sbuf_adds(out, "::");
	github_escape_data(out, message);
	sbuf_addch(out, '\n');
}

/* One problem of a run: an annotation, or a line of the fallback summary. */
struct problem {
	enum github_level level;
	const char *title;
	const char *file; /* borrowed from the result */
	int line;	  /* the benchmark's line in file, 0: unknown */
	char *message;
};

struct problems {
	struct problem *v;
	size_t nr, alloc;
};

static void add_problem(struct problems *p, enum github_level level, const char *title,
			const char *file, int line, struct sbuf *msg)
{
	ALLOC_GROW(p->v, p->nr + 1, p->alloc);
	p->v[p->nr].level = level;
	p->v[p->nr].title = title;
	p->v[p->nr].file = file;
	p->v[p->nr].line = line;
	p->v[p->nr].message = sbuf_detach(msg);
	p->nr++;
}

static void problems_release(struct problems *p)
{
	for (size_t i = 0; i < p->nr; i++)
		free(p->v[i].message);
	free(p->v);
}

/* "suite: bench/command" (the suite only when the run has several). */
static void subject(struct sbuf *msg, const struct run_result *r, const struct suite_result *s,
		    const struct bench_result *b, const struct command_result *c)
{
	if (r->nr_suites > 1)
		sbuf_addf(msg, "%s: ", s->name ? s->name : "");
	sbuf_addf(msg, "%s/%s", b->name ? b->name : "", c->name ? c->name : "");
}

static void comparison_text(struct sbuf *msg, const struct command_result *c, enum metric_id m,
			    const struct comparison *cp)
{
	sbuf_addf(msg, " %s: ", metric_get(m)->name);
	/* ASCII arrows and brackets: annotations are plain text. */
	report_value_text(msg, c, m, cp->base);
	sbuf_adds(msg, " -> ");
	report_value_text(msg, c, m, cp->head);
	sbuf_adds(msg, ", ");
	report_change_text_plain(msg, cp);
	report_tolerance_note(msg, cp);
	if (cp->reason && *cp->reason) {
		sbuf_adds(msg, ": ");
		report_reason_text(msg, cp);
	}
}

/* The annotation of one problem of report_problems_list(), or none (an
   interruption without an error: the run's summary tells it). */
static void annotate(struct problems *p, const struct run_result *r, const struct report_problem *x,
		     const char *file, int fail_on_inconclusive)
{
	const struct command_result *c = x->cmd;
	struct sbuf msg = SBUF_INIT;
	enum github_level lvl = GITHUB_WARNING;
	const char *title = GITHUB_TITLE_UNSUPPORTED;

	if (x->kind == PROBLEM_ERROR && !c->error)
		return;
	subject(&msg, r, x->suite, x->bench, c);
	if (x->kind == PROBLEM_ERROR) {
		sbuf_addf(&msg, ": %s", c->error);
		lvl = GITHUB_ERROR;
		title = GITHUB_TITLE_FAILED;
	} else if (x->budget) {
		const struct budget_result *bu = x->budget;
		sbuf_adds(&msg, ": ");
		report_budget_subject(&msg, bu);
		lvl = GITHUB_ERROR;
		if (bu->status == BUDGET_FAIL) {
			sbuf_adds(&msg, " ");
			report_budget_actual(&msg, c, bu, "n/a");
			sbuf_adds(&msg, ", budget ");
			report_budget_limit(&msg, c, bu);
			title = GITHUB_TITLE_BUDGET;
		} else {
			sbuf_adds(&msg, " ");
			report_budget_limit(&msg, c, bu);
			sbuf_adds(&msg, " could not be assessed");
			if (bu->reason && *bu->reason)
				sbuf_addf(&msg, ": %s", bu->reason);
		}
	} else if (x->cmp) {
		const struct comparison *cp = x->cmp;
		if (x->kind == PROBLEM_ACCEPTED) {
			title = GITHUB_TITLE_ACCEPTED;
			lvl = GITHUB_NOTICE;
		} else if (x->kind == PROBLEM_INCONCLUSIVE) {
			title = GITHUB_TITLE_INCONCLUSIVE;
			lvl = !cp->gate		     ? GITHUB_NOTICE
			      : fail_on_inconclusive ? GITHUB_ERROR
						     : GITHUB_WARNING;
		} else if (cp->gate) {
			title = GITHUB_TITLE_REGRESSION;
			lvl = GITHUB_ERROR;
		} else {
			/* Shown, but it does not gate: a warning titled
			   "regression" on a pull request read as a failure. */
			title = GITHUB_TITLE_NOT_GATED;
			lvl = GITHUB_NOTICE;
		}
		comparison_text(&msg, c, (enum metric_id)x->metric, cp);
		if (!cp->gate)
			sbuf_adds(&msg, " (not gated)");
	} else { /* a metric unsupported or failed */
		sbuf_addf(&msg, ": %s %s", metric_get(x->metric)->name,
			  metric_status_name(x->failed ? MSTATUS_FAILED : MSTATUS_UNSUPPORTED));
		if (c->side[SIDE_BASE].present && x->side >= 0)
			sbuf_addf(&msg, " on %s", side_name((enum side)x->side));
		if (x->reason && *x->reason)
			sbuf_addf(&msg, ": %s", x->reason);
	}
	add_problem(p, lvl, title, file, x->bench ? x->bench->line : 0, &msg);
	sbuf_release(&msg);
}

/* The suite file for the `file` property, or NULL. */
static const char *annotation_file(const char *file, const char *workspace)
{
	if (!file || !*file)
		return NULL;
	if (file[0] != '/')
		return file;
	if (!workspace || !*workspace)
		return NULL;
	size_t n = strlen(workspace);
	while (n > 1 && workspace[n - 1] == '/')
		n--;
	if (strncmp(file, workspace, n) || file[n] != '/' || !file[n + 1])
		return NULL;
	return file + n + 1;
}

/* The annotations of r, in report order (report_problems_list()). */
static void collect(struct problems *p, const struct run_result *r, int fail_on_inconclusive,
		    const char *workspace)
{
	struct report_problems all;
	report_problems_list(&all, r);
	for (size_t i = 0; i < all.nr; i++)
		annotate(p, r, &all.v[i], annotation_file(all.v[i].suite->file, workspace),
			 fail_on_inconclusive);
	report_problems_release(&all);
}

void github_annotations(struct sbuf *out, const struct run_result *r, int fail_on_inconclusive,
			const char *workspace)
{
	struct problems p = {NULL, 0, 0};
	collect(&p, r, fail_on_inconclusive, workspace);
	for (size_t i = 0; i < p.nr; i++)
		github_command(out, p.v[i].level, p.v[i].title, p.v[i].file, p.v[i].line,
			       p.v[i].message);
	problems_release(&p);
}

static void count_part(struct sbuf *t, int n, const char *one, const char *many)
{
	if (n <= 0)
		return;
	sbuf_addf(t, "%s%d %s", t->len ? ", " : "", n, n == 1 ? one : many);
}

void github_summary_fallback(struct sbuf *out, const struct run_result *r, int fail_on_inconclusive)
{
	const struct run_summary *sm = &r->summary;
	struct sbuf title = SBUF_INIT;
	count_part(&title, sm->regression, "regression", "regressions");
	count_part(&title, sm->over_budget, "over budget", "over budget");
	count_part(&title, sm->error, "error", "errors");
	if (!title.len)
		sbuf_adds(&title, sm->exit_code ? "Failed" : "No regressions");
	if (r->interrupted)
		sbuf_adds(&title, " (interrupted)");
	sbuf_adds(out, "## kagari: ");
	sbuf_adds(out, title.buf);
	sbuf_adds(out, "\n\n");
	sbuf_addf(out,
		  "%d benchmark%s, %d command%s: %d pass, %d improved, %d inconclusive, %d "
		  "accepted, %d regression%s, %d over budget, %d error%s. Exit code %d",
		  sm->benchmarks, sm->benchmarks == 1 ? "" : "s", sm->commands,
		  sm->commands == 1 ? "" : "s", sm->pass, sm->improved, sm->inconclusive,
		  sm->accepted, sm->regression, sm->regression == 1 ? "" : "s", sm->over_budget,
		  sm->error, sm->error == 1 ? "" : "s", sm->exit_code);
	if (r->exit_reason && *r->exit_reason) {
		sbuf_adds(out, ": ");
		report_md_escape(out, r->exit_reason);
	}
	sbuf_addf(out, ". Seed %" PRIu64 ".\n", r->seed);
	if (r->git.base_sha || r->git.head_sha) {
		const char *ref = report_base_ref_shown(&r->git), *sha = r->git.base_sha;
		sbuf_adds(out, "\nBase ");
		if (ref)
			report_md_escape(out, ref);
		if (sha)
			sbuf_addf(out, "%s`%.12s`%s", ref ? " (" : "", sha, ref ? ")" : "");
		else if (!ref)
			sbuf_adds(out, "?");
		sbuf_adds(out, ", head ");
		sbuf_addf(out, "`%.12s`", r->git.head_sha ? r->git.head_sha : "?");
		if (r->git.dirty > 0)
			sbuf_adds(out, " with uncommitted changes");
		sbuf_adds(out, ".\n");
	}
	struct problems p = {NULL, 0, 0};
	collect(&p, r, fail_on_inconclusive, NULL);
	if (p.nr)
		sbuf_addch(out, '\n');
	for (size_t i = 0; i < p.nr; i++) {
		sbuf_addf(out, "- **%s** (%s): ", p.v[i].title, level_name(p.v[i].level));
		report_md_escape(out, p.v[i].message);
		sbuf_addch(out, '\n');
	}
	sbuf_addch(out, '\n');
	problems_release(&p);
	sbuf_release(&title);
}
