/*
 * kagari compare --against REV [options] [PATH...]: measure the base
 * revision (a temporary detached worktree) and the working tree (with its
 * uncommitted changes) interleaved, and give a verdict per command and
 * metric (STATISTICS.md). The user's working tree, index, branches and
 * stashes are never touched; the worktree is removed at exit, on error and
 * on SIGINT/SIGTERM.
 */
#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "analyze/compare.h"
#include "analyze/holm.h"
#include "model/rng.h"
#include "base/sbuf.h"
#include "base/xalloc.h"
#include "cmd/cmd.h"
#include "cmd/compare.h"
#include "cmd/exit.h"
#include "cmd/interrupt.h"
#include "cmd/session.h"
#include "git/git.h"
#include "git/worktree.h"
#include "proc/child.h"

static const struct opt compare_opts[] = {
	{ "against", OPT_STRING, offsetof(struct cli, against), "REV",
	  "the base revision: a commit, branch or tag (required)", NULL },
	OPT_COMMON_MEASURE,
	{ "fail-on-inconclusive", OPT_BOOL, offsetof(struct cli, fail_on_inconclusive),
	  NULL, "exit 1 when a gated comparison is inconclusive", NULL },
	{ NULL, 0, 0, NULL, NULL, NULL },
};

/* `path` relative to `root` when it lies inside it, else NULL. */
static const char *inside(const char *path, const char *root)
{
	size_t n = strlen(root);
	if (strncmp(path, root, n) || (path[n] && path[n] != '/'))
		return NULL;
	return path[n] == '/' ? path + n + 1 : path + n;
}

/* One comparison waiting for Holm and the verdict rules. */
struct pending {
	struct compare_input in;
	struct compare_result res;
	struct comparison *out;
	int holm;
	char *label; /* "benchmark/command metric", for warnings */
};

static void fill_comparison(struct pending *p)
{
	struct comparison *c = p->out;
	const struct compare_result *r = &p->res;
	c->present = 1;
	c->statistic = xstrdup(p->in.statistic == STATISTIC_MEAN ? "mean" : "median");
	c->pairing = xstrdup(p->in.pairing == PAIRING_INDEPENDENT ? "independent" : "rounds");
	c->base = r->base_stat;
	c->head = r->head_stat;
	c->change_percent = r->change_percent;
	c->ci_low_percent = r->ci_low_percent;
	c->ci_high_percent = r->ci_high_percent;
	c->confidence = p->in.confidence;
	c->max_percent = p->in.max_percent;
	c->p_value = r->p_value;
	c->p_adjusted = r->p_adjusted;
	c->p_reg = r->p_reg;
	c->p_imp = r->p_imp;
	c->hl_shift_percent = r->hl_shift_percent;
	c->noise_floor_percent = r->noise_floor_percent;
	c->verdict = xstrdup(r->verdict ? r->verdict : "inconclusive");
	c->reason = xstrdup(r->reason ? r->reason : "");
	c->gate = p->in.gate;
	c->control_failed = r->control_failed;
	c->nr_dropped_rounds = r->nr_dropped;
	c->dropped_rounds = xcalloc(r->nr_dropped + 1, sizeof(int));
	for (size_t i = 0; i < r->nr_dropped; i++)
		c->dropped_rounds[i] = r->dropped[i].round;
	c->nr_boot = r->nr_boot;
	c->boot = xcalloc(r->nr_boot + 1, sizeof(double));
	if (r->nr_boot)
		memcpy(c->boot, r->boot, r->nr_boot * sizeof(double));
}

static void skip_comparison(struct comparison *c, const struct metric_regression *mr,
			    const char *why)
{
	c->present = 1;
	c->statistic = xstrdup(mr->statistic == STATISTIC_MEAN ? "mean" : "median");
	c->pairing = xstrdup("rounds");
	c->base = c->head = c->change_percent = NAN;
	c->ci_low_percent = c->ci_high_percent = c->p_value = NAN;
	c->hl_shift_percent = c->noise_floor_percent = NAN;
	c->p_reg = c->p_imp = c->p_adjusted = NAN;
	c->confidence = NAN;
	c->max_percent = mr->max_percent;
	c->verdict = xstrdup("skipped");
	c->reason = xstrdup(why);
	c->gate = mr->gate;
}

void compare_all(struct session *s)
{
	struct run_result *r = &s->r;
	struct pending *pend = NULL;
	size_t nr = 0, alloc = 0;

	for (size_t i = 0, si = 0; i < s->ls.nr && si < r->nr_suites; i++, si++) {
		const struct suite *su = s->ls.suites[i];
		struct suite_result *sr = &r->suites[si];
		for (size_t b = 0, k = 0; b < su->nr_benches && k < sr->nr_benches; b++) {
			if (!s->ls.selected[i][b])
				continue;
			const struct bench_spec *bs = &su->benches[b];
			struct bench_result *br = &sr->benches[k++];
			for (size_t c = 0; c < bs->nr_commands && c < br->nr_commands; c++) {
				const struct command_spec *cs = &bs->commands[c];
				struct command_result *cr = &br->commands[c];
				const struct regression_cfg *rc = &cs->settings.regression;
				if (!cr->side[SIDE_BASE].present || !cr->side[SIDE_HEAD].present)
					continue; /* new in head: measured like run */
				if (cr->error)
					continue;
				if (rc->commands.nr && !strvec_contains(&rc->commands, cs->name))
					continue;
				for (int m = 0; m < METRIC__COUNT; m++) {
					const struct metric_regression *mr = &rc->metric[m];
					if (!mr->compare)
						continue;
					const struct metric_series *bm = &cr->side[SIDE_BASE].metric[m];
					const struct metric_series *hm = &cr->side[SIDE_HEAD].metric[m];
					if (bm->status != MSTATUS_OK || hm->status != MSTATUS_OK) {
						if (mr->configured)
							skip_comparison(&cr->comparison[m], mr,
									"not measured on both sides");
						continue;
					}
					ALLOC_GROW(pend, nr + 1, alloc);
					struct pending *p = &pend[nr++];
					memset(p, 0, sizeof(*p));
					compare_input_init(&p->in);
					p->in.base = bm->samples;
					p->in.nr_base = bm->nr;
					p->in.head = hm->samples;
					p->in.nr_head = hm->nr;
					p->in.metric = (enum metric_id)m;
					p->in.higher_is_better = metric_get(m)->better == BETTER_HIGHER;
					p->in.statistic = mr->statistic;
					p->in.max_percent = mr->max_percent;
					p->in.min_difference = mr->min_difference;
					p->in.pairing = rc->pairing;
					p->in.resamples = rc->resamples;
					p->in.confidence = rc->confidence;
					p->in.min_samples = rc->min_samples;
					p->in.max_cv = rc->max_cv;
					p->in.runs_per_round = cs->settings.runs_per_round;
					p->in.gate = mr->gate;
					char *label = xstrfmt("%s/%s/%s/%s", su->name, bs->name,
							      cs->name, metric_get(m)->name);
					p->in.seed = rng_seed_from(r->seed, label);
					free(label);
					p->out = &cr->comparison[m];
					p->label = xstrfmt("%s/%s %s", bs->name, cs->name,
							   metric_get(m)->name);
					p->holm = rc->correction == CORRECTION_HOLM;
				}
			}
		}
	}

	for (size_t i = 0; i < nr; i++)
		compare_compute(&pend[i].in, &pend[i].res);
	/* Holm over every gated comparison that asks for it; the rest alone. */
	struct compare_result **family = xcalloc(nr + 1, sizeof(*family));
	size_t nf = 0;
	for (size_t i = 0; i < nr; i++)
		if (pend[i].in.gate && pend[i].holm)
			family[nf++] = &pend[i].res;
	holm_adjust(family, nf, 1);
	for (size_t i = 0; i < nr; i++) {
		if (pend[i].in.gate && pend[i].holm)
			continue;
		struct compare_result *one = &pend[i].res;
		holm_adjust(&one, 1, 0);
	}
	free(family);
	for (size_t i = 0; i < nr; i++) {
		compare_decide(&pend[i].in, &pend[i].res);
		fill_comparison(&pend[i]);
		for (size_t w = 0; w < pend[i].res.warnings.nr; w++)
			strvec_pushf(&r->warnings, "%s: %s", pend[i].label,
				     pend[i].res.warnings.v[w]);
		compare_result_release(&pend[i].res);
		free(pend[i].label);
	}
	free(pend);
}

/*
 * Resolve the repository and REV, make the base worktree, measure every
 * suite on both sides (a suite file absent in the base is `new_in_head` and
 * measured like `run`), compare, and remove the worktree whatever happened.
 */
int compare_run(struct cli *cli, struct cmd_env *env, const char *mode,
		const char *base_ref,
		int (*after_measure)(struct session *s, void *data),
		void *after_data)
{
	struct sbuf err = SBUF_INIT;
	if (git_check_rev(base_ref, &err)) {
		cmd_error("%s", err.buf);
		sbuf_release(&err);
		return EXIT_USAGE;
	}
	struct session s;
	int rc = session_prepare(&s, cli, env, mode, "kagari-compare");
	s.after_measure = after_measure;
	s.after_data = after_data;
	char *repo = NULL, *base_sha = NULL, *head_sha = NULL;
	int dirty = -1;
	struct git_worktree wt = GIT_WORKTREE_INIT;
	int have_wt = 0;
	if (!rc && git_toplevel(s.ls.suites[0]->dir, &repo, &err)) {
		cmd_error("%s (compare needs a git repository)", err.buf);
		rc = EXIT_EXEC;
	}
	for (size_t i = 0; !rc && i < s.ls.nr; i++)
		if (!inside(s.ls.suites[i]->dir, repo)) {
			cmd_error("suite '%s' is not inside the repository '%s'",
				  s.ls.suites[i]->file, repo);
			rc = EXIT_USAGE;
		}
	if (!rc) {
		sbuf_reset(&err);
		if (git_prune_orphans(repo, &err))
			cmd_warning("could not prune kagari's orphaned worktrees: %s", err.buf);
		sbuf_reset(&err);
		if (git_resolve_commit(repo, base_ref, &base_sha, &err) ||
		    git_head_info(repo, &head_sha, &dirty, &err)) {
			cmd_error("%s", err.buf);
			rc = EXIT_EXEC;
		}
	}
	if (!rc) {
		s.r.git.base_ref = xstrdup(base_ref);
		s.r.git.base_sha = xstrdup(base_sha);
		s.r.git.head_sha = head_sha ? xstrdup(head_sha) : NULL;
		s.r.git.dirty = dirty;
		sbuf_reset(&err);
		have_wt = 1;
		if (git_worktree_add(repo, base_sha, s.tmp, &wt, &err)) {
			cmd_error("cannot check out '%s' into a temporary worktree: %s",
				  base_ref, err.buf);
			rc = EXIT_EXEC;
		}
	}
	for (size_t i = 0; !rc && i < s.ls.nr && !interrupt_requested; i++) {
		const struct suite *su = s.ls.suites[i];
		char *file = xstrfmt("%s/%s", su->dir,
				     strrchr(su->file, '/') ? strrchr(su->file, '/') + 1 : su->file);
		const char *rel = inside(file, repo);
		int exists = 0;
		sbuf_reset(&err);
		if (git_show_file_exists(repo, base_sha, rel, &exists, &err)) {
			cmd_warning("%s", err.buf);
			exists = 0;
		}
		if (!exists)
			strvec_pushf(&s.r.warnings,
				     "suite '%s' (%s) does not exist in %s: new_in_head, measured like run",
				     su->name, rel, base_ref);
		const char *root_rel = inside(su->root, repo);
		char *base_root = xstrfmt("%s%s%s", wt.path, root_rel && *root_rel ? "/" : "",
					  root_rel ? root_rel : "");
		char *tmp_base = xstrfmt("%s/s%zu-base", s.tmp, i);
		char *tmp_head = xstrfmt("%s/s%zu-head", s.tmp, i);
		struct execute_side sides[SIDE__COUNT] = {
			[SIDE_BASE] = { .present = exists, .root = base_root,
					.head_root = su->root, .tmpdir = tmp_base },
			[SIDE_HEAD] = { .present = 1, .root = su->root,
					.head_root = su->root, .tmpdir = tmp_head },
		};
		session_measure_suite(&s, i, sides);
		free(base_root);
		free(tmp_base);
		free(tmp_head);
		free(file);
	}
	if (!rc)
		compare_all(&s);
	if (have_wt) {
		/* A pending interrupt would stop the git calls of the cleanup. */
		child_interrupt_clear();
		sbuf_reset(&err);
		if (git_worktree_remove(&wt, &err)) {
			cmd_error("could not remove the temporary worktree '%s': %s",
				  wt.path ? wt.path : "", err.buf);
			s.exec_rc = exit_merge(s.exec_rc, EXIT_EXEC);
		}
	}
	git_worktree_release(&wt);
	if (!rc)
		rc = session_finish(&s);
	session_release(&s);
	free(repo);
	free(base_sha);
	free(head_sha);
	sbuf_release(&err);
	return rc;
}

static int compare_exec(struct cli *cli, struct cmd_env *env)
{
	if (!cli->against) {
		cmd_error("compare needs --against REV (the base revision)");
		return EXIT_USAGE;
	}
	return compare_run(cli, env, "compare", cli->against, NULL, NULL);
}

const struct cmd_entry cmd_compare = {
	.name = "compare",
	.args = "--against REV [options] [--fail-on-inconclusive] [PATH...]",
	.summary = "compare the working tree with revision REV, interleaved, and gate on regressions",
	.opts = compare_opts,
	.needs_runner = 1,
	.exec = compare_exec,
};
