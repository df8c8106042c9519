/*
 * report/annotations: GitHub workflow-command annotations and the short
 * fallback step summary of a judged run (annotations.h). Laid out as: the
 * workflow-command escaping, the problems of a run (one per annotation, in
 * report order), then the two writers over them. User text in the summary
 * goes through report_md_escape(), the escaper every Markdown writer uses.
 */
#include "report/annotations.h"

#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "analyze/format.h"
#include "base/xalloc.h"
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

void github_command(struct sbuf *out, enum github_level level,
		    const char *title, const char *file, const char *message)
{
	sbuf_addf(out, "::%s title=", level_name(level));
	github_escape_property(out, title);
	if (file && *file) {
		sbuf_adds(out, ",file=");
		github_escape_property(out, file);
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
	char *message;
};

struct problems {
	struct problem *v;
	size_t nr, alloc;
};

static void add_problem(struct problems *p, enum github_level level,
			const char *title, const char *file, struct sbuf *msg)
{
	ALLOC_GROW(p->v, p->nr + 1, p->alloc);
	p->v[p->nr].level = level;
	p->v[p->nr].title = title;
	p->v[p->nr].file = file;
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
static void subject(struct sbuf *msg, const struct run_result *r,
		    const struct suite_result *s, const struct bench_result *b,
		    const struct command_result *c)
{
	if (r->nr_suites > 1)
		sbuf_addf(msg, "%s: ", s->name ? s->name : "");
	sbuf_addf(msg, "%s/%s", b->name ? b->name : "", c->name ? c->name : "");
}

static void comparison_text(struct sbuf *msg, enum metric_id m,
			    const struct comparison *cp)
{
	sbuf_addf(msg, " %s: ", metric_get(m)->name);
	units_format_value(msg, m, cp->base);
	sbuf_adds(msg, " -> ");
	units_format_value(msg, m, cp->head);
	sbuf_adds(msg, ", ");
	units_format_percent(msg, cp->change_percent);
	sbuf_adds(msg, " [");
	units_format_percent(msg, cp->ci_low_percent);
	sbuf_adds(msg, ", ");
	units_format_percent(msg, cp->ci_high_percent);
	sbuf_adds(msg, "]");
	if (cp->max_percent == cp->max_percent)
		sbuf_addf(msg, " (tolerance %g%%)", cp->max_percent);
	if (cp->reason && *cp->reason)
		sbuf_addf(msg, ": %s", cp->reason);
}

/* "<= 300ms": limit_text holds the operator too. */
static void budget_limit(struct sbuf *msg, const struct budget_result *bu)
{
	if (bu->limit_text && *bu->limit_text) {
		sbuf_adds(msg, bu->limit_text);
		return;
	}
	sbuf_addf(msg, "%s ", bu->op ? bu->op : "");
	units_format_value(msg, bu->metric, bu->limit);
}

static void collect_command(struct problems *p, const struct run_result *r,
			    const struct suite_result *s,
			    const struct bench_result *b,
			    const struct command_result *c, const char *file,
			    int fail_on_inconclusive)
{
	struct sbuf msg = SBUF_INIT;
	if (c->error) {
		subject(&msg, r, s, b, c);
		sbuf_addf(&msg, ": %s", c->error);
		add_problem(p, GITHUB_ERROR, GITHUB_TITLE_FAILED, file, &msg);
	}
	for (size_t k = 0; k < c->nr_budgets; k++) {
		const struct budget_result *bu = &c->budgets[k];
		if (bu->status == BUDGET_PASS)
			continue;
		subject(&msg, r, s, b, c);
		sbuf_addf(&msg, ": %s %s", metric_get(bu->metric)->name,
			  bu->aggregation ? bu->aggregation : "");
		if (bu->status == BUDGET_FAIL) {
			sbuf_adds(&msg, " ");
			if (bu->have_actual)
				units_format_value(&msg, bu->metric, bu->actual);
			else
				sbuf_adds(&msg, "n/a");
			sbuf_adds(&msg, ", budget ");
			budget_limit(&msg, bu);
			add_problem(p, GITHUB_ERROR, GITHUB_TITLE_BUDGET, file, &msg);
		} else {
			sbuf_adds(&msg, " ");
			budget_limit(&msg, bu);
			sbuf_adds(&msg, " could not be assessed");
			if (bu->reason && *bu->reason)
				sbuf_addf(&msg, ": %s", bu->reason);
			add_problem(p, GITHUB_ERROR, GITHUB_TITLE_UNSUPPORTED, file, &msg);
		}
	}
	for (int m = 0; m < METRIC__COUNT; m++) {
		const struct comparison *cp = &c->comparison[m];
		if (!cp->present || !cp->verdict)
			continue;
		enum github_level lvl;
		const char *title;
		if (!strcmp(cp->verdict, "regression")) {
			title = GITHUB_TITLE_REGRESSION;
			lvl = cp->gate ? GITHUB_ERROR : GITHUB_WARNING;
		} else if (!strcmp(cp->verdict, "accepted")) {
			title = GITHUB_TITLE_ACCEPTED;
			lvl = GITHUB_NOTICE;
		} else if (!strcmp(cp->verdict, "inconclusive")) {
			title = GITHUB_TITLE_INCONCLUSIVE;
			lvl = !cp->gate ? GITHUB_NOTICE
			      : fail_on_inconclusive ? GITHUB_ERROR : GITHUB_WARNING;
		} else {
			continue;
		}
		subject(&msg, r, s, b, c);
		comparison_text(&msg, (enum metric_id)m, cp);
		if (!cp->gate)
			sbuf_adds(&msg, " (not gated)");
		add_problem(p, lvl, title, file, &msg);
	}
	for (int m = 0; m < METRIC__COUNT; m++) {
		const struct metric_series *h = &c->side[SIDE_HEAD].metric[m];
		const struct metric_series *bs = &c->side[SIDE_BASE].metric[m];
		int hbad = c->side[SIDE_HEAD].present &&
			   (h->status == MSTATUS_UNSUPPORTED || h->status == MSTATUS_FAILED);
		int bbad = c->side[SIDE_BASE].present &&
			   (bs->status == MSTATUS_UNSUPPORTED || bs->status == MSTATUS_FAILED);
		int same = hbad && bbad && h->status == bs->status &&
			   !strcmp(h->reason ? h->reason : "", bs->reason ? bs->reason : "");
		for (int sd = SIDE_BASE; sd < SIDE__COUNT; sd++) {
			const struct metric_series *ms = sd == SIDE_HEAD ? h : bs;
			if (!(sd == SIDE_HEAD ? hbad : bbad) || (same && sd == SIDE_BASE))
				continue;
			subject(&msg, r, s, b, c);
			sbuf_addf(&msg, ": %s %s", metric_get(m)->name,
				  metric_status_name(ms->status));
			if (c->side[SIDE_BASE].present && !same)
				sbuf_addf(&msg, " on %s", side_name((enum side)sd));
			if (ms->reason && *ms->reason)
				sbuf_addf(&msg, ": %s", ms->reason);
			add_problem(p, GITHUB_WARNING, GITHUB_TITLE_UNSUPPORTED, file, &msg);
		}
	}
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

static void collect(struct problems *p, const struct run_result *r,
		    int fail_on_inconclusive, const char *workspace)
{
	for (size_t i = 0; i < r->nr_suites; i++) {
		const struct suite_result *s = &r->suites[i];
		const char *file = annotation_file(s->file, workspace);
		for (size_t b = 0; b < s->nr_benches; b++)
			for (size_t c = 0; c < s->benches[b].nr_commands; c++)
				collect_command(p, r, s, &s->benches[b],
						&s->benches[b].commands[c], file,
						fail_on_inconclusive);
	}
}

void github_annotations(struct sbuf *out, const struct run_result *r,
			int fail_on_inconclusive, const char *workspace)
{
	struct problems p = { NULL, 0, 0 };
	collect(&p, r, fail_on_inconclusive, workspace);
	for (size_t i = 0; i < p.nr; i++)
		github_command(out, p.v[i].level, p.v[i].title, p.v[i].file,
			       p.v[i].message);
	problems_release(&p);
}

static void count_part(struct sbuf *t, int n, const char *one, const char *many)
{
	if (n <= 0)
		return;
	sbuf_addf(t, "%s%d %s", t->len ? ", " : "", n, n == 1 ? one : many);
}

void github_summary_fallback(struct sbuf *out, const struct run_result *r,
			     int fail_on_inconclusive)
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
	sbuf_addf(out, "%d benchmark%s, %d command%s: %d pass, %d improved, %d inconclusive, %d accepted, %d regression%s, %d over budget, %d error%s. Exit code %d",
		  sm->benchmarks, sm->benchmarks == 1 ? "" : "s", sm->commands,
		  sm->commands == 1 ? "" : "s", sm->pass, sm->improved,
		  sm->inconclusive, sm->accepted, sm->regression, sm->regression == 1 ? "" : "s",
		  sm->over_budget, sm->error, sm->error == 1 ? "" : "s",
		  sm->exit_code);
	if (r->exit_reason && *r->exit_reason) {
		sbuf_adds(out, ": ");
		report_md_escape(out, r->exit_reason);
	}
	sbuf_addf(out, ". Seed %" PRIu64 ".\n", r->seed);
	if (r->git.base_sha || r->git.head_sha) {
		const char *ref = r->git.base_ref, *sha = r->git.base_sha;
		sbuf_adds(out, "\nBase ");
		if (ref && (!sha || strcmp(ref, sha)))
			report_md_escape(out, ref);
		if (sha)
			sbuf_addf(out, "%s`%.12s`%s", ref && strcmp(ref, sha) ? " (" : "",
				  sha, ref && strcmp(ref, sha) ? ")" : "");
		else if (!ref)
			sbuf_adds(out, "?");
		sbuf_adds(out, ", head ");
		sbuf_addf(out, "`%.12s`", r->git.head_sha ? r->git.head_sha : "?");
		if (r->git.dirty > 0)
			sbuf_adds(out, " with uncommitted changes");
		sbuf_adds(out, ".\n");
	}
	struct problems p = { NULL, 0, 0 };
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
