/*
 * kagari compare --against REV [options] [PATH...]: measure the base
 * revision (a temporary detached worktree) and the working tree (with its
 * uncommitted changes) interleaved, and give a verdict per command and
 * metric (docs/statistics.md). The user's working tree, index, branches and
 * stashes are never touched; the worktree is removed at exit, on error and
 * on SIGINT/SIGTERM.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "base/path.h"
#include "base/sbuf.h"
#include "base/xalloc.h"
#include "cmd/cmd.h"
#include "cmd/compare.h"
#include "cmd/exit.h"
#include "cmd/gate_suites.h"
#include "cmd/interrupt.h"
#include "cmd/session.h"
#include "git/git.h"
#include "git/worktree.h"
#include "proc/child.h"
#include "suite/load.h"
#include "analyze/accept.h"
#include "analyze/analyze.h"
#include "cmd/common.h"

#define C struct compare_cli
static const struct opt compare_opts[] = {
    {"against", OPT_STRING, offsetof(C, against), "REV",
     "the base revision: a commit, branch or tag (required)", NULL},
    OPT_SUITE_FROM(C, "the working tree's; the base's where the working tree has none"),
    OPT_MAX_PERCENT(C, ""),
    OPT_COMMON_MEASURE(C),
    OPT_MAX_TIME(C),
    {"fail-on-inconclusive", OPT_BOOL, offsetof(C, fail_on_inconclusive), NULL,
     "exit 1 when a gated comparison is inconclusive", NULL},
    {NULL, 0, 0, NULL, NULL, NULL},
};
#undef C

/* "left out: 'a', 'b' (only in WHOSE copy)" or "no benchmark left out". */
static void add_left_out(struct sbuf *sb, const struct strvec *names, const char *whose)
{
	if (!names->nr) {
		sbuf_adds(sb, "no benchmark left out");
		return;
	}
	sbuf_adds(sb, "left out: ");
	for (size_t k = 0; k < names->nr; k++)
		sbuf_addf(sb, "%s'%s'", k ? ", " : "", names->v[k]);
	sbuf_addf(sb, " (only in %s copy)", whose);
}

/*
 * The copies of suite i differ: run the base's (bs, owned) or the working
 * tree's in both sides, and say so now, before measuring, with the
 * benchmarks the other copy has that are therefore not run.
 */
static void use_differing_copy(struct session *s, size_t i, struct suite *bs, int use_base,
			       const char *base_ref, const char *rel)
{
	const struct suite *su = s->ls.suites[i];
	struct strvec left = STRVEC_INIT;
	struct sbuf msg = SBUF_INIT;
	char *theirs = xstrfmt("%s's", base_ref);
	if (use_base) {
		common_left_out(s->cfg.selection, bs, su, &left);
		sbuf_addf(
		    &msg,
		    "suite '%s': both sides run %s copy of %s, which differs from the working "
		    "tree's (suite_from: base; --suite-from head runs the working tree's); ",
		    su->name, theirs, rel);
		add_left_out(&msg, &left, "the working tree's");
		const struct cli_shard *sh = s->cfg.shard;
		int sharded = sh && sh->spec && !sh->replicate;
		size_t n = common_replace_suite(s->cfg.selection, sharded, &s->ls, i, bs);
		session_warn_now(s, "%s", msg.buf);
		if (!n)
			session_warn_now(
			    s, "suite '%s': no benchmark of %s copy matches the selection",
			    s->ls.suites[i]->name, theirs);
	} else {
		common_left_out(s->cfg.selection, su, bs, &left);
		sbuf_addf(&msg,
			  "suite '%s': both sides run the working tree's copy of %s, which differs "
			  "from %s (suite_from: head; --suite-from base runs %s); ",
			  su->name, rel, theirs, theirs);
		add_left_out(&msg, &left, theirs);
		session_warn_now(s, "%s", msg.buf);
		suite_free(bs);
	}
	free(theirs);
	sbuf_release(&msg);
	strvec_clear(&left);
}

/*
 * Which copy of suite i both sides run: --suite-from, else def — "head"
 * for compare (what the user is editing is what runs), "base" for ci (the
 * base commit's own copy where it has one: a pull request cannot loosen
 * the gate it is judged by). A suite the base lacks runs the head's copy
 * (the change that adds a suite still gets a comparison). Where the copies
 * differ, one line says which ran and what it left out. Replaces the suite
 * in s->ls when the base's copy is used and records the choice in *from
 * ("base" or "head"). Returns 0, or the exit code to stop with (message
 * printed).
 */
static int choose_suite(struct session *s, size_t i, const char *repo, const char *base_ref,
			const char *base_sha, const char *wt_path, const char *def,
			const char **from)
{
	const struct suite *su = s->ls.suites[i];
	const char *flag = s->cfg.suite_from;
	int want_base = !strcmp(flag ? flag : def, "base");
	char *file = xstrfmt("%s/%s", su->dir,
			     strrchr(su->file, '/') ? strrchr(su->file, '/') + 1 : su->file);
	const char *rel = path_inside(file, repo);
	struct sbuf err = SBUF_INIT, data = SBUF_INIT, head_data = SBUF_INIT;
	struct suite *bs = NULL;
	char *base_file = NULL;
	int exists = 0, rc = 0;
	*from = "head";
	if (git_show_file_exists(repo, base_sha, rel, &exists, &err)) {
		cmd_warning("%s", err.buf);
		exists = 0;
	}
	if (!exists) {
		if (flag && want_base) {
			cmd_error("--suite-from base: suite '%s' (%s) does not exist in %s",
				  su->name, rel, base_ref);
			rc = EXIT_USAGE;
		} else {
			session_warn_now(s,
					 "suite '%s' (%s) does not exist in %s: both sides run the "
					 "head's suite (suite_from: head)",
					 su->name, rel, base_ref);
		}
		goto out;
	}
	/* The base's copy, loaded as if it were the head's file so that its
	   folder and root, and every relative path, are the head's. */
	base_file = xstrfmt("%s/%s", wt_path, rel);
	sbuf_reset(&err);
	if (sbuf_read_file(&data, base_file, SUITE_MAX_BYTES) < 0) {
		cmd_error("cannot read %s's copy of the suite '%s' (%s)", base_ref, su->name, rel);
		rc = EXIT_EXEC;
		goto out;
	}
	if (sbuf_read_file(&head_data, su->file, SUITE_MAX_BYTES) >= 0 &&
	    head_data.len == data.len && !memcmp(head_data.buf, data.buf, data.len)) {
		*from = want_base ? "base" : "head"; /* one text: the same suite */
		goto out;
	}
	if (!(bs = suite_load_mem(su->file, data.buf, data.len, &err))) {
		sbuf_rtrim(&err);
		if (want_base) {
			cmd_error("%s's copy of the suite '%s' (%s) is invalid (--suite-from head "
				  "runs the working tree's):\n%s",
				  base_ref, su->name, rel, err.buf);
			rc = EXIT_INVALID;
		} else {
			session_warn_now(s,
					 "suite '%s': both sides run the working tree's copy of "
					 "%s; %s's copy differs and is not a valid suite, so what "
					 "it would leave out is unknown",
					 su->name, rel, base_ref);
		}
		goto out;
	}
	use_differing_copy(s, i, bs, want_base, base_ref, rel);
	*from = want_base ? "base" : "head";
out:
	sbuf_release(&data);
	sbuf_release(&head_data);
	sbuf_release(&err);
	free(base_file);
	free(file);
	return rc;
}

/*
 * The Kagari-Accept trailers of the commits in base..HEAD (the working
 * tree's uncommitted changes carry none) into s->r.accepts; a malformed
 * one is a warning naming its commit, and accepts nothing.
 */
static void read_acceptances(struct session *s, const char *repo, const char *base_sha,
			     const char *head_sha)
{
	struct strvec commits = STRVEC_INIT, values = STRVEC_INIT;
	struct sbuf err = SBUF_INIT;
	if (git_range_trailers(repo, base_sha, head_sha, "Kagari-Accept", &commits, &values,
			       &err)) {
		cmd_warning("cannot read the Kagari-Accept trailers of %.12s..%.12s: %s", base_sha,
			    head_sha, err.buf);
	}
	for (size_t i = 0; i < values.nr; i++) {
		struct acceptance a;
		memset(&a, 0, sizeof(a));
		sbuf_reset(&err);
		if (accept_parse(values.v[i], commits.v[i], &a, &err)) {
			strvec_pushf(&s->r.warnings,
				     "commit %.12s: Kagari-Accept %s; it accepts nothing",
				     commits.v[i], err.buf);
			continue;
		}
		run_result_add_acceptance(&s->r, &a);
		acceptance_release(&a);
	}
	strvec_clear(&commits);
	strvec_clear(&values);
	sbuf_release(&err);
}

/* An acceptance that names no measured command is a typo: say so. */
static void check_acceptances(struct session *s)
{
	const struct run_result *r = &s->r;
	for (size_t i = 0; i < r->nr_accepts; i++) {
		const struct acceptance *a = &r->accepts[i];
		int found = 0;
		for (size_t k = 0; k < r->nr_suites && !found; k++)
			for (size_t b = 0; b < r->suites[k].nr_benches && !found; b++) {
				const struct bench_result *br = &r->suites[k].benches[b];
				for (size_t c = 0; c < br->nr_commands && !found; c++)
					found = !strcmp(br->name, a->benchmark) &&
						!strcmp(br->commands[c].name, a->command);
			}
		if (!found)
			strvec_pushf(&s->r.warnings,
				     "commit %.12s: Kagari-Accept names '%s/%s', which this run "
				     "did not measure",
				     a->commit, a->benchmark, a->command);
	}
}

int compare_base_submodules(struct session *s, const struct git_worktree *wt, const char *base_ref)
{
	const struct suite *needs = NULL;
	for (size_t i = 0; i < s->ls.nr && !needs; i++)
		if (!s->ls.suites[i]->build_no_submodules)
			needs = s->ls.suites[i];
	if (!needs)
		return 0;
	struct sbuf err = SBUF_INIT;
	int rc = 0;
	if (git_worktree_add_submodules(wt, &err)) {
		sbuf_rtrim(&err);
		cmd_error("base '%s': %s; or, if the build of suite '%s' (%s) uses no submodule, "
			  "say so in it with `build: {submodules: false}`",
			  base_ref, err.buf, needs->name, needs->file);
		rc = EXIT_EXEC;
	}
	sbuf_release(&err);
	return rc;
}

/*
 * The suite's folder in the base's checkout (wt_path), made empty where
 * the base lacks it — a suite added in a new folder (the change that
 * adopts kagari in bench/, a new suite only the head has): the base side
 * runs the same commands from the same place, against the base's code.
 * Said in one line. Returns 0, or EXIT_EXEC when it cannot be made.
 */
static int base_suite_folder(struct session *s, const struct suite *su, const char *repo,
			     const char *wt_path, const char *base_ref)
{
	const char *rel = path_inside(su->dir, repo);
	struct stat st;
	if (!rel || !*rel) /* the top: the checkout itself */
		return 0;
	char *dir = xstrfmt("%s/%s", wt_path, rel);
	int rc = 0;
	if (stat(dir, &st) != 0) {
		for (char *p = dir + strlen(wt_path) + 1; !rc; p++) {
			if (*p && *p != '/')
				continue;
			char c = *p;
			*p = '\0';
			if (mkdir(dir, 0777) != 0 && errno != EEXIST) {
				cmd_error("cannot make the folder '%s' in %s's checkout: %s", rel,
					  base_ref, strerror(errno));
				rc = EXIT_EXEC;
			}
			*p = c;
			if (!c)
				break;
		}
		if (!rc)
			session_warn_now(s,
					 "suite '%s': %s has no folder %s; the base side runs from "
					 "that folder made empty in its checkout",
					 su->name, base_ref, rel);
	}
	free(dir);
	return rc;
}

/*
 * Choose every suite's copy (said before anything is built) unless the
 * gate already chose them (chosen: gate_suites_find()'s, or NULL), check
 * out the base's submodules if a build needs them, apply --max-percent to
 * the copies chosen, then build and measure each suite on both sides.
 * Returns 0, or the exit code choose_suite() or compare_base_submodules()
 * stopped with.
 */
static int measure_suites(struct session *s, const char *repo, const char *base_ref,
			  const char *base_sha, const struct git_worktree *wt,
			  const char *default_from, const struct gate_suites *chosen,
			  const struct analyze_overrides *ov)
{
	int rc = 0;
	const char *wt_path = wt->path;
	const char **from = xcalloc(s->ls.nr + 1, sizeof(*from));
	for (size_t i = 0; !rc && i < s->ls.nr; i++) {
		if (chosen)
			from[i] = chosen->from[i];
		else
			rc = choose_suite(s, i, repo, base_ref, base_sha, wt_path, default_from,
					  &from[i]);
	}
	if (!rc)
		rc = compare_base_submodules(s, wt, base_ref);
	/* After the choice: the tolerance given is the one, whichever copy. */
	if (!rc)
		common_apply_max_percent(&s->ls, ov);
	for (size_t i = 0; !rc && i < s->ls.nr; i++)
		rc = base_suite_folder(s, s->ls.suites[i], repo, wt_path, base_ref);
	for (size_t i = 0; !rc && i < s->ls.nr && !interrupt_requested; i++) {
		const struct suite *su = s->ls.suites[i];
		const char *root_rel = path_inside(su->root, repo);
		char *base_root = xstrfmt("%s%s%s", wt_path, root_rel && *root_rel ? "/" : "",
					  root_rel ? root_rel : "");
		char *tmp_base = xstrfmt("%s/s%zu-base", s->tmp, i);
		char *tmp_head = xstrfmt("%s/s%zu-head", s->tmp, i);
		struct execute_side sides[SIDE__COUNT] = {
		    [SIDE_BASE] = {.present = 1,
				   .root = base_root,
				   .head_root = su->root,
				   .tmpdir = tmp_base},
		    [SIDE_HEAD] = {.present = 1,
				   .root = su->root,
				   .head_root = su->root,
				   .tmpdir = tmp_head},
		};
		struct suite_result *sr = session_measure_suite(s, i, sides);
		sr->suite_from = xstrdup(from[i]);
		sr->not_gating = chosen && !chosen->gating[i];
		free(base_root);
		free(tmp_base);
		free(tmp_head);
	}
	free(from);
	return rc;
}

void compare_note_path_length(struct session *s, const struct git_worktree *wt)
{
	size_t base = strlen(wt->path), head = strlen(wt->repo);
	/* The worktree is <TMPDIR>/kagari-XXXXXX/NAME, NAME at least one
	   character: TMPDIR may be head - 16 characters long at most. */
	const size_t own = strlen("/kagari-XXXXXX/b");
	if (base == head)
		return;
	struct sbuf note = SBUF_INIT;
	sbuf_addf(&note,
		  "the base is built in '%s' (%zu characters), the working tree is '%s' (%zu); ",
		  wt->path, base, wt->repo, head);
	if (head > own)
		sbuf_addf(&note, "a TMPDIR of at most %zu characters", head - own);
	else
		sbuf_addf(&note, "a working tree path of more than %zu characters", own);
	sbuf_adds(&note, " builds both at paths of one length");
	free(s->path_length_note);
	s->path_length_note = sbuf_detach(&note);
}

/*
 * The repository of the suites (all in one), with kagari's orphaned
 * worktrees pruned; REV's commit, HEAD's and the tree's dirtiness.
 * Returns 0, or the exit code (printed).
 */
static int resolve_repo(struct session *s, const char *base_ref, char **repo, char **base_sha,
			char **head_sha, int *dirty)
{
	struct sbuf err = SBUF_INIT;
	int rc = 0;
	if (git_toplevel(s->ls.suites[0]->dir, repo, &err)) {
		cmd_error("%s (compare needs a git repository)", err.buf);
		rc = EXIT_EXEC;
	}
	for (size_t i = 0; !rc && i < s->ls.nr; i++)
		if (!path_inside(s->ls.suites[i]->dir, *repo)) {
			cmd_error("suite '%s' is not inside the repository '%s'",
				  s->ls.suites[i]->file, *repo);
			rc = EXIT_USAGE;
		}
	if (!rc) {
		sbuf_reset(&err);
		if (git_prune_orphans(*repo, &err))
			cmd_warning("could not prune kagari's orphaned worktrees: %s", err.buf);
		sbuf_reset(&err);
		if (git_resolve_commit(*repo, base_ref, base_sha, &err) ||
		    git_head_info(*repo, head_sha, dirty, &s->git_skip, &err)) {
			cmd_error("%s", err.buf);
			rc = EXIT_EXEC;
		}
	}
	sbuf_release(&err);
	return rc;
}

void compare_config(const struct compare_cli *cli, struct session_config *cfg)
{
	*cfg = (struct session_config){
	    .mode = "compare",
	    /* The shortest of kagari's names: the base worktree in it can
	       then match the working tree's path length in more places
	       (git_worktree_add_as(), GIT_WORKTREE_SAME_LENGTH). */
	    .tmp_prefix = "kagari",
	    .paths = &cli->common.args,
	    .selection = &cli->selection,
	    .measure = &cli->measure,
	    .shard = &cli->shard,
	    .fail_on_inconclusive = cli->fail_on_inconclusive,
	    .suite_from = cli->suite_from,
	};
	session_config_out(cfg, &cli->out);
	session_config_record(cfg, &cli->record);
}

/*
 * Choose the suites (the base's where its rules gate: gate_suites.h),
 * resolve the repository and REV, make the base worktree, measure every
 * suite on both sides with the copy chosen (choose_suite() where the
 * head's rules run), compare, and remove the worktree whatever happened.
 */
int compare_run(const struct session_config *cfg, const struct strvec *max_percent,
		struct cmd_env *env, const char *base_ref, const char *default_from,
		int (*after_measure)(struct session *s, void *data), void *after_data)
{
	struct sbuf err = SBUF_INIT;
	if (git_check_rev(base_ref, &err)) {
		cmd_error("%s", err.buf);
		sbuf_release(&err);
		return EXIT_USAGE;
	}
	struct analyze_overrides ov;
	memset(&ov, 0, sizeof(ov));
	int rc = common_parse_max_percent(max_percent, &ov);
	if (rc) {
		sbuf_release(&err);
		return rc;
	}
	/* The base's rules gate (ci; --suite-from base): its suites, found
	   in its tree, are the ones that run (gate_suites.h). */
	const char *flag = cfg->suite_from;
	int base_gate = !strcmp(flag ? flag : default_from, "base");
	struct gate_suites gs;
	struct session_config c = *cfg;
	if (base_gate) {
		rc = gate_suites_find(cfg->paths, cfg->selection, base_ref, flag != NULL, &gs);
		if (rc) {
			gate_suites_release(&gs);
			sbuf_release(&err);
			return rc;
		}
		c.suites = &gs.ls;
		c.own_files = &gs.replaced;
	}
	struct session s;
	rc = session_prepare(&s, &c, env);
	for (size_t i = 0; !rc && base_gate && i < gs.notes.nr; i++)
		session_warn_now(&s, "%s", gs.notes.v[i]);
	s.after_measure = after_measure;
	s.after_data = after_data;
	char *repo = NULL, *base_sha = NULL, *head_sha = NULL;
	int dirty = -1;
	struct git_worktree wt = GIT_WORKTREE_INIT;
	int have_wt = 0;
	if (!rc)
		rc = resolve_repo(&s, base_ref, &repo, &base_sha, &head_sha, &dirty);
	if (!rc) {
		s.r.git.base_ref = xstrdup(base_ref);
		s.r.git.base_sha = xstrdup(base_sha);
		s.r.git.head_sha = head_sha ? xstrdup(head_sha) : NULL;
		s.r.git.dirty = dirty;
		if (head_sha)
			read_acceptances(&s, repo, base_sha, head_sha);
		sbuf_reset(&err);
		have_wt = 1;
		/* The submodules once the suites are chosen: a build may
		   say it needs none (compare_base_submodules()). */
		if (git_worktree_add_as(repo, base_sha, s.tmp,
					GIT_WORKTREE_SAME_LENGTH | GIT_WORKTREE_NO_SUBMODULES, &wt,
					&err)) {
			/* err says what could not be checked out; this names
			   the ref it came from. */
			cmd_error("base '%s': %s", base_ref, err.buf);
			rc = EXIT_EXEC;
		} else {
			compare_note_path_length(&s, &wt);
		}
	}
	if (!rc)
		rc = measure_suites(&s, repo, base_ref, base_sha, &wt, default_from,
				    base_gate ? &gs : NULL, &ov);
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
		check_acceptances(&s);
	if (!rc)
		rc = session_finish(&s);
	session_release(&s);
	if (base_gate)
		gate_suites_release(&gs);
	free(repo);
	free(base_sha);
	free(head_sha);
	sbuf_release(&err);
	return rc;
}

static int compare_exec(const void *opts, struct cmd_env *env)
{
	const struct compare_cli *cli = opts;
	if (!cli->against) {
		cmd_error("compare needs --against REV (the base revision)");
		return EXIT_USAGE;
	}
	struct session_config cfg;
	compare_config(cli, &cfg);
	return compare_run(&cfg, &cli->max_percent, env, cli->against, "head", NULL, NULL);
}

const struct cmd_entry cmd_compare = {
    .name = "compare",
    .args = "--against REV [options] [--fail-on-inconclusive] [PATH...]",
    .summary = "compare the working tree with revision REV, interleaved, and gate on regressions",
    .opts = compare_opts,
    .cli_size = sizeof(struct compare_cli),
    .needs_runner = 1,
    .exec = compare_exec,
};
