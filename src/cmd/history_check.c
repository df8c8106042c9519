/*
 * cmd/history_check: the alerts of `kagari history check` (history_check.h,
 * docs/history.md "Alerts").
 */
#include "cmd/history_check.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "base/sbuf.h"
#include "base/strvec.h"
#include "base/xalloc.h"
#include "cmd/cli.h"
#include "cmd/exit.h"
#include "git/git.h"
#include "git/web.h"
#include "suite/model.h"

static int cmp_str(const void *a, const void *b)
{
	return strcmp(*(const char *const *)a, *(const char *const *)b);
}

int history_check_range(const char *dir, const char *since, struct strvec *range, char **head)
{
	struct sbuf err = SBUF_INIT, out = SBUF_INIT;
	char *repo = NULL, *from = NULL;
	int rc = EXIT_USAGE;
	*head = NULL;
	if (git_toplevel(dir, &repo, &err)) {
		cmd_error("history check needs the repository whose commits it checks: %s",
			  err.buf);
		goto out;
	}
	if (git_resolve_commit(repo, "HEAD", head, &err)) {
		cmd_error("history check: %s", err.buf);
		goto out;
	}
	if (since) {
		if (git_resolve_commit(repo, since, &from, &err)) {
			cmd_error("--since %s", err.buf);
			goto out;
		}
	} else {
		/* HEAD's first parent: the last commit of the line alone. A
		   root commit has none, and is checked with all before it. */
		struct sbuf e2 = SBUF_INIT;
		if (git_resolve_commit(repo, "HEAD^1", &from, &e2))
			from = NULL;
		sbuf_release(&e2);
	}
	struct strvec args = STRVEC_INIT;
	strvec_push(&args, "rev-list");
	if (from) {
		char *r = xstrfmt("%s..%s", from, *head);
		strvec_push(&args, r);
		free(r);
	} else {
		strvec_push(&args, *head);
	}
	int bad = git_run(repo, (const char *const *)args.v, GIT_SLOW_TIMEOUT_NS, &out, &err);
	strvec_clear(&args);
	if (bad) {
		cmd_error("history check: %s", err.buf);
		goto out;
	}
	for (char *s = out.buf, *nl; s && *s; s = nl + 1) {
		if (!(nl = strchr(s, '\n')))
			break;
		*nl = '\0';
		strvec_push(range, s);
	}
	if (range->nr > 1)
		qsort(range->v, range->nr, sizeof(*range->v), cmp_str);
	rc = 0;
out:
	free(repo);
	free(from);
	sbuf_release(&err);
	sbuf_release(&out);
	return rc;
}

static int in_range(const struct strvec *range, const char *sha)
{
	return sha && range->nr &&
	       bsearch(&sha, range->v, range->nr, sizeof(*range->v), cmp_str) != NULL;
}

/* The tolerance T of the series' command and metric in the suites
   (regression.METRIC.max_percent) when the suite gates that metric (a
   step of a metric nobody gates is shown, never an alert); NAN when it
   does not, or the command is no longer in the suites. */
double history_check_tolerance(const struct loaded_suites *ls, const struct history_series *s)
{
	for (size_t i = 0; i < ls->nr; i++) {
		const struct suite *su = ls->suites[i];
		if (strcmp(su->name, s->key->suite))
			continue;
		for (size_t b = 0; b < su->nr_benches; b++) {
			const struct bench_spec *be = &su->benches[b];
			if (strcmp(be->name, s->key->benchmark))
				continue;
			for (size_t c = 0; c < be->nr_commands; c++) {
				const struct metric_regression *mr =
				    &be->commands[c].settings.regression.metric[s->metric];
				if (!strcmp(be->commands[c].name, s->key->command))
					return mr->compare && mr->gate ? mr->max_percent : NAN;
			}
		}
	}
	return NAN;
}

/* Is a change of pct percent worse for the metric? */
static int worse(enum metric_id m, double pct)
{
	switch (metric_get(m)->better) {
	case BETTER_LOWER:
		return pct > 0;
	case BETTER_HIGHER:
		return pct < 0;
	default:
		return pct != 0;
	}
}

struct alerts {
	struct history_alert *v;
	size_t nr, alloc;
};

static void push_alert(struct alerts *a, const struct history_alert *x)
{
	if (a->nr == a->alloc) {
		a->alloc = a->alloc ? 2 * a->alloc : 8;
		a->v = xreallocarray(a->v, a->alloc, sizeof(*a->v));
	}
	a->v[a->nr++] = *x;
}

/* The alerts of series s in range: its steps that are worse beyond the
   tolerance (a paired step: a regression verdict), then the paired
   regressions at commits that are no step. */
static void series_alerts(struct alerts *a, const struct history_series *s,
			  const struct strvec *range, double tol)
{
	for (size_t k = 0; k < s->nr_steps; k++) {
		const struct history_step *st = &s->steps[k];
		const struct history_commit *c = &s->pts[st->at];
		if (!in_range(range, c->sha))
			continue;
		int alert =
		    st->evidence == HISTORY_EVIDENCE_PAIRED
			? !strcmp(st->cmp->verdict, "regression")
			: worse(s->metric, st->change_percent) && fabs(st->change_percent) > tol;
		if (alert)
			push_alert(
			    a, &(struct history_alert){s, st, c, st->cmp, tol, NULL, NULL, NULL});
	}
	for (size_t q = 0; q < s->nr; q++) {
		const struct history_commit *c = &s->pts[q];
		if (!c->nr_cmps || !in_range(range, c->sha))
			continue;
		const struct history_point *p = c->cmps[c->nr_cmps - 1];
		int stepped = 0;
		for (size_t k = 0; k < s->nr_steps && !stepped; k++)
			stepped = s->steps[k].at == q && s->steps[k].cmp == p;
		if (!stepped && !strcmp(p->verdict, "regression") && p->gate != 0)
			push_alert(a, &(struct history_alert){
					  s, NULL, c, p,
					  isfinite(p->max_percent) ? p->max_percent : tol, NULL,
					  NULL, NULL});
	}
}

int history_check_alerts(struct sbuf *out, const struct history_view *hv,
			 const struct loaded_suites *ls, const struct strvec *range,
			 const char *since, const char *head, const char *dir, const char *tmpl,
			 const char *no_links)
{
	struct alerts a = {NULL, 0, 0};
	const struct history_series_set *set = hv->set;
	for (size_t i = 0; i < set->nr; i++)
		series_alerts(&a, &set->v[i], range, history_check_tolerance(ls, &set->v[i]));
	/* The links and subjects of the commits named. */
	struct strvec keep = STRVEC_INIT;
	const char **sha = xcalloc(a.nr + 1, sizeof(*sha));
	for (size_t i = 0; i < a.nr; i++)
		sha[i] = a.v[i].c->sha;
	struct git_subjects sj;
	git_subjects_load(&sj, dir, sha, a.nr);
	struct sbuf t = SBUF_INIT;
	char **urls = xcalloc(2 * a.nr + 1, sizeof(*urls));
	for (size_t i = 0; i < a.nr; i++) {
		struct history_alert *x = &a.v[i];
		x->subject = git_subjects_get(&sj, x->c->sha);
		const char *from = x->cmp ? x->cmp->base_sha : x->step->from_sha;
		if (tmpl) {
			sbuf_reset(&t);
			git_web_commit_url(&t, tmpl, x->c->sha);
			x->url = urls[2 * i] = sbuf_detach(&t);
			if (from) {
				git_web_commit_url(&t, tmpl, from);
				x->from_url = urls[2 * i + 1] = sbuf_detach(&t);
			}
		}
	}
	struct history_check_view cv = {
	    since ? since : "HEAD^", head, range->nr, no_links, a.v, a.nr};
	report_history_check_markdown(out, hv, &cv);
	int any = a.nr > 0;
	for (size_t i = 0; i < 2 * a.nr; i++)
		free(urls[i]);
	free(urls);
	free(sha);
	free(a.v);
	git_subjects_release(&sj);
	strvec_clear(&keep);
	sbuf_release(&t);
	return any;
}
