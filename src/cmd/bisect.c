/*
 * kagari bisect --good REV --bad REV [--metric M] [--command BENCH/CMD]
 * [--output FILE] [filters] [PATH...]: the first commit on the
 * first-parent path from GOOD to BAD whose selected commands regress
 * beyond the suite's tolerance against GOOD (docs/bisect.md).
 *
 * Every commit it looks at is checked out into a temporary detached
 * worktree (git/worktree.h) and built once, into its own folder; GOOD is
 * built first and its build serves every comparison. BAD is compared
 * first: when it is not a regression there is nothing to find, and the
 * comparisons that regressed there are the ones the search follows. Then
 * a binary search: a commit with any regressing comparison is "bad", one
 * whose followed comparisons all pass (or improve, or stay within noise)
 * is "good", whatever the other commands' verdicts; one whose followed
 * comparison is not decided is measured again with twice the runs a side,
 * up to the command's max_runs (test_commit()), each measurement of a
 * commit at half the level of the one before (alpha/2, alpha/4, ...:
 * look_alpha()), and one whose build
 * fails, or whose followed comparison fails or is still not decided, is
 * skipped (named), as `git bisect` does with exit 125, and the search
 * tries the nearest untested commit instead. --command narrows what is
 * measured to one benchmark and what is judged to one command. The user's working tree, index,
 * branches and HEAD are never touched; the suite is the working tree's
 * (as for compare), run in each commit's checkout.
 *
 * The search and the judging are analyze/bisect.h's, the table and the
 * JSON report/bisect.h's; this file checks commits out, builds and
 * measures them (the search's oracle) and turns the outcome into an exit
 * code.
 *
 * Exit 0: the first bad commit is named. Exit 1: it could not be (BAD is
 * not a regression against GOOD, or undecided, or skipped commits leave a
 * range). 3:
 * usage; 4: GOOD's build or git failed.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "analyze/analyze.h"
#include "analyze/bisect.h"
#include "base/path.h"
#include "base/sbuf.h"
#include "base/strvec.h"
#include "base/tmpdir.h"
#include "base/xalloc.h"
#include "cmd/cmd.h"
#include "cmd/exit.h"
#include "cmd/interrupt.h"
#include "cmd/session.h"
#include "git/git.h"
#include "git/worktree.h"
#include "measure/execute.h"
#include "proc/child.h"
#include "proc/proc.h"
#include "report/bisect.h"
#include "report/output.h"

struct bisect_cli {
	struct cli_common common;
	struct cli_selection selection;
	struct cli_out out;	      /* format, output, quiet */
	struct cli_measure measure;   /* seed, runs, warmup */
	struct cli_analysis analysis; /* metric */
	char *good, *bad;	      /* --good REV, --bad REV */
	char *command;		      /* --command [SUITE/]BENCH/CMD */
};

#define B(f) offsetof(struct bisect_cli, f)
static const struct opt bisect_opts[] = {
    {"good", OPT_STRING, B(good), "REV", "a commit without the regression (required)", NULL},
    {"bad", OPT_STRING, B(bad), "REV",
     "a later commit with it, GOOD on its first-parent path (required)", NULL},
    {"metric", OPT_STRING, B(analysis.metric), "M",
     "judge only metric M (default: every gated metric)", NULL},
    {"command", OPT_STRING, B(command), "BENCH/CMD",
     "measure only benchmark BENCH and judge only its command CMD (SUITE/BENCH/CMD with several "
     "suites)",
     NULL},
    OPT_COMMON_SELECTION(struct bisect_cli),
    {"format", OPT_ENUM, B(out.format), "FMT", "output format: table (default) or json",
     "table|json"},
    {"output", OPT_STRING, B(out.output), "FILE",
     "write the result to FILE (atomically; a FIFO or device in place) instead of stdout; never an "
     "input",
     NULL},
    {"seed", OPT_SEED, B(measure.seed), "N",
     "seed for run order and resampling (default: random, always printed)", NULL},
    {"runs", OPT_COUNT, B(measure.runs), "N",
     "measured runs per command and side (overrides the suite)", NULL},
    {"warmup", OPT_COUNT, B(measure.warmup), "N", "unmeasured warm-up runs per command and side",
     NULL},
    {"quiet", OPT_BOOL, B(out.quiet), NULL, "no progress lines", NULL},
    OPT_ALLOW_PULL_REQUEST_TARGET,
    {NULL, 0, 0, NULL, NULL, NULL},
};
#undef B

/* A commit's private folder (worktree at dir/base) and its builds. */
struct checkout {
	char *dir;
	struct git_worktree wt;
	int built;	 /* 1 built, -1 failed */
	char **artifact; /* per suite, when it has `build` */
};

struct bisect_cmd {
	struct session s;
	struct bisect b; /* the search, its judging and its result */
	char *repo;
	struct checkout good;
	struct checkout *co; /* per commit of b.r.path */
};

/* Check out and build commit sha once, as co (id names its folder); 0, or
   -1 with *reason saying why. */
static int prepare_commit(struct bisect_cmd *bc, struct checkout *co, const char *sha, size_t id,
			  char **reason)
{
	if (co->built)
		return co->built > 0 ? 0 : -1;
	struct sbuf err = SBUF_INIT;
	co->dir = xstrfmt("%s/c%03zu", bc->s.tmp, id);
	co->artifact = xcalloc(bc->s.ls.nr + 1, sizeof(*co->artifact));
	co->built = -1;
	free(*reason);
	*reason = NULL;
	if (mkdir(co->dir, 0700)) {
		*reason = xstrfmt("cannot create '%s'", co->dir);
		goto out;
	}
	/* No submodules when every build says it needs none (build.submodules). */
	unsigned flags = bc->s.ls.nr ? GIT_WORKTREE_NO_SUBMODULES : 0;
	for (size_t i = 0; i < bc->s.ls.nr; i++)
		if (!bc->s.ls.suites[i]->build_no_submodules)
			flags = 0;
	if (git_worktree_add_as(bc->repo, sha, co->dir, flags, &co->wt, &err)) {
		*reason = xstrfmt("cannot check it out: %s", err.buf);
		goto out;
	}
	for (size_t i = 0; i < bc->s.ls.nr; i++) {
		const struct suite *su = bc->s.ls.suites[i];
		if (!su->build)
			continue;
		const char *rel = path_inside(su->root, bc->repo);
		char *root = xstrfmt("%s%s%s", co->wt.path, rel && *rel ? "/" : "", rel ? rel : "");
		char *tmp = xstrfmt("%s/b%zu", co->dir, i);
		co->artifact[i] = xstrfmt("%s/artifact", tmp);
		struct execute_side side = {.present = 1,
					    .root = root,
					    .head_root = root,
					    .artifact = co->artifact[i],
					    .tmpdir = tmp};
		int bad = mkdir(tmp, 0700) || execute_build(su, &side, &bc->s.opts, &err);
		free(root);
		free(tmp);
		if (bad) {
			*reason = xstrfmt("the build failed: %s",
					  err.len ? err.buf : "cannot create its folder");
			goto out;
		}
	}
	co->built = 1;
out:
	sbuf_release(&err);
	return co->built > 0 ? 0 : -1;
}

/* The oracle's prepare: path[idx] checked out and built. */
static int oracle_prepare(void *data, struct bisect *b, size_t idx)
{
	struct bisect_cmd *bc = data;
	return prepare_commit(bc, &bc->co[idx], b->r.path[idx].sha, idx + 1,
			      &b->r.path[idx].reason);
}

/* The oracle's measure: path[idx] against GOOD once (its runs a side, 0:
   the suite's), at the level of its measurement, and judged. */
static void oracle_measure(void *data, struct bisect *b, size_t idx)
{
	struct bisect_cmd *bc = data;
	struct bisect_commit *c = &b->r.path[idx];
	const struct checkout *co = &bc->co[idx];
	bisect_measure_begin(b, idx);
	bisect_set_look(b, c->measured);
	bc->s.opts.runs_override = c->runs > 0 ? c->runs : bc->s.cfg.measure->runs;
	struct run_result rr;
	run_result_init(&rr);
	rr.mode = xstrdup("compare");
	rr.seed = bc->s.r.seed;
	rr.suites = xcalloc(bc->s.ls.nr + 1, sizeof(*rr.suites));
	int failed = 0;
	for (size_t i = 0; i < bc->s.ls.nr && !interrupt_requested; i++) {
		const struct suite *su = bc->s.ls.suites[i];
		const char *rel = path_inside(su->root, bc->repo);
		char *groot =
		    xstrfmt("%s%s%s", bc->good.wt.path, rel && *rel ? "/" : "", rel ? rel : "");
		char *hroot =
		    xstrfmt("%s%s%s", co->wt.path, rel && *rel ? "/" : "", rel ? rel : "");
		char *tb = xstrfmt("%s/m%03zu-%zu-base", bc->s.tmp, b->r.steps, i);
		char *th = xstrfmt("%s/m%03zu-%zu-head", bc->s.tmp, b->r.steps, i);
		mkdir(tb, 0700);
		mkdir(th, 0700);
		struct execute_side sides[SIDE__COUNT] = {
		    [SIDE_BASE] = {.present = 1,
				   .root = groot,
				   .head_root = hroot,
				   .artifact = bc->good.artifact[i],
				   .tmpdir = tb},
		    [SIDE_HEAD] = {.present = 1,
				   .root = hroot,
				   .head_root = hroot,
				   .artifact = co->artifact[i],
				   .tmpdir = th},
		};
		struct suite_result *sr = &rr.suites[rr.nr_suites++];
		bc->s.measuring = su; /* for the sequential looks (session_look) */
		if (execute_suite(su, bc->s.ls.selected[i], sides, &bc->s.opts, sr))
			failed = 1;
		bc->s.measuring = NULL;
		for (size_t bi = 0, k = 0; bi < su->nr_benches && k < sr->nr_benches; bi++) {
			if (!bc->s.ls.selected[i][bi])
				continue;
			struct bench_result *br = &sr->benches[k++];
			/* Unless the sequential looks already gave them. */
			for (size_t cc = 0;
			     cc < br->nr_commands && cc < su->benches[bi].nr_commands; cc++)
				if (!br->commands[cc].analysis.present)
					analyze_settings_from_suite(&su->benches[bi].commands[cc],
								    &br->commands[cc]);
		}
		free(groot);
		free(hroot);
		free(tb);
		free(th);
	}
	if (failed || interrupt_requested) {
		c->out = BISECT_SKIP;
		c->reason = xstrdup("interrupted");
	} else {
		analyze_result(&rr, NULL);
		bisect_judge(b, idx, &rr);
	}
	run_result_release(&rr);
	bisect_set_look(b, 0);
	bc->s.opts.runs_override = bc->s.cfg.measure->runs;
}

static int oracle_stop(void *data)
{
	(void)data;
	return interrupt_requested != 0;
}

/* The progress lines on stderr (unless --quiet). */
static void oracle_progress(void *data, const struct bisect *b, size_t idx, int again)
{
	struct bisect_cmd *bc = data;
	const struct bisect_commit *c = &b->r.path[idx];
	if (bc->s.cfg.quiet)
		return;
	if (!again)
		fprintf(stderr, "kagari: bisect: testing %.12s\n", c->sha);
	else
		fprintf(stderr,
			"kagari: bisect: %.12s undecided (%s); measuring it again with %d runs a "
			"side, at alpha/%d (each measurement of a commit at half the level of the "
			"one before)\n",
			c->sha, c->reason, c->again,
			1 << (c->measured + 1 < 30 ? c->measured + 1 : 30));
}

static void release_checkout(struct checkout *co, size_t nr_suites, int *rc)
{
	if (co->wt.path || co->wt.repo) {
		struct sbuf err = SBUF_INIT;
		if (git_worktree_remove(&co->wt, &err)) {
			cmd_error("could not remove the temporary worktree '%s': %s",
				  co->wt.path ? co->wt.path : "", err.buf);
			*rc = exit_merge(*rc, EXIT_EXEC);
		}
		sbuf_release(&err);
	}
	git_worktree_release(&co->wt);
	for (size_t i = 0; co->artifact && i < nr_suites; i++)
		free(co->artifact[i]);
	free(co->artifact);
	free(co->dir);
}

/* For tmpdir_prune(): 1 only when the folder's maker is certainly gone. */
static int owner_gone(const char *owner)
{
	return proc_owner_state(owner) == 0;
}

/* The usage checks made before anything is prepared: both ends given, as
   valid revision text, and --metric one that can be compared. */
static int bisect_check_args(const struct bisect_cli *cli, int *metric)
{
	if (!cli->good || !cli->bad) {
		cmd_error("bisect needs --good REV and --bad REV");
		return EXIT_USAGE;
	}
	*metric = -1;
	if (cli->analysis.metric) {
		*metric = metric_lookup(cli->analysis.metric);
		if (*metric < 0 || !metric_get(*metric)->comparable) {
			cmd_error("--metric '%s': not a metric that can be compared",
				  cli->analysis.metric);
			return EXIT_USAGE;
		}
	}
	struct sbuf err = SBUF_INIT;
	int rc = 0;
	if (git_check_rev(cli->good, &err) || git_check_rev(cli->bad, &err)) {
		cmd_error("%s", err.buf);
		rc = EXIT_USAGE;
	}
	sbuf_release(&err);
	return rc;
}

/*
 * Claim the session's folder, so that the next bisect can prune it if we
 * die. Only a locked folder: one made where flock is not supported must
 * never be pruned by another kagari (a pid may mean nothing here).
 */
static void claim_tmp(struct bisect_cmd *bc)
{
	if (!bc->s.have_tmp_lock)
		return;
	struct sbuf tag = SBUF_INIT, err = SBUF_INIT;
	proc_owner_tag(&tag);
	if (tmpdir_claim(bc->s.tmp, tag.buf, &err))
		cmd_warning("%s", err.buf);
	sbuf_release(&tag);
	sbuf_release(&err);
}

/* --command: measure only the benchmarks that hold the command. 0, or
   EXIT_USAGE when no selected benchmark has it. */
static int narrow_to_command(struct bisect_cmd *bc, const struct bisect_cli *cli)
{
	size_t found = 0;
	struct sbuf names = SBUF_INIT;
	for (size_t i = 0; i < bc->s.ls.nr; i++) {
		const struct suite *su = bc->s.ls.suites[i];
		for (size_t bi = 0; bi < su->nr_benches; bi++) {
			const struct bench_spec *bs = &su->benches[bi];
			int has = 0;
			for (size_t cc = 0; cc < bs->nr_commands; cc++) {
				if (bisect_command_named(cli->command, su->name, bs->name,
							 bs->commands[cc].name))
					has = 1;
				else if (bc->s.ls.selected[i][bi] && names.len < 400)
					sbuf_addf(&names, "%s%s/%s", names.len ? ", " : "",
						  bs->name, bs->commands[cc].name);
			}
			if (!has)
				bc->s.ls.selected[i][bi] = 0;
			found += has && bc->s.ls.selected[i][bi];
		}
	}
	int rc = 0;
	if (!found) {
		cmd_error("--command '%s': no selected benchmark has that command (BENCH/CMD, or "
			  "SUITE/BENCH/CMD; the selected ones: %s)",
			  cli->command, names.len ? names.buf : "none");
		rc = EXIT_USAGE;
	}
	sbuf_release(&names);
	return rc;
}

/* The repository (the first suite's), its orphaned worktrees pruned, and
   GOOD and BAD resolved to commits (b.r.good, b.r.bad). */
static int resolve_ends(struct bisect_cmd *bc, const struct bisect_cli *cli)
{
	struct sbuf err = SBUF_INIT;
	int rc = 0;
	if (git_toplevel(bc->s.ls.suites[0]->dir, &bc->repo, &err)) {
		cmd_error("%s (bisect needs a git repository)", err.buf);
		rc = EXIT_EXEC;
		goto out;
	}
	sbuf_reset(&err);
	if (git_prune_orphans(bc->repo, &err))
		cmd_warning("could not prune kagari's orphaned worktrees: %s", err.buf);
	sbuf_reset(&err);
	if (git_resolve_commit(bc->repo, cli->good, &bc->b.r.good, &err) ||
	    git_resolve_commit(bc->repo, cli->bad, &bc->b.r.bad, &err)) {
		cmd_error("%s", err.buf);
		rc = EXIT_USAGE;
	}
out:
	sbuf_release(&err);
	return rc;
}

/* b.r.path: the first-parent path after GOOD up to BAD, oldest first, each
   commit with its subject; bc->co, a checkout for each. */
static int load_path(struct bisect_cmd *bc)
{
	struct sbuf err = SBUF_INIT, revs = SBUF_INIT;
	int rc = 0;
	char *range = xstrfmt("%s..%s", bc->b.r.good, bc->b.r.bad);
	/* "commit SHA" and then "SHA<TAB>SUBJECT" for each commit. */
	const char *args[] = {"rev-list", "--first-parent", "--reverse", "--format=%H%x09%s", range,
			      NULL};
	if (git_run(bc->repo, args, GIT_SLOW_TIMEOUT_NS, &revs, &err)) {
		cmd_error("%s", err.buf);
		rc = EXIT_EXEC;
	}
	free(range);
	for (char *p = revs.buf, *nl; !rc && p && *p; p = nl + 1) {
		nl = strchr(p, '\n');
		if (!nl)
			nl = p + strlen(p);
		char *tab = memchr(p, '\t', (size_t)(nl - p));
		if (strncmp(p, "commit ", 7) && tab && tab - p >= 40)
			bisect_result_add(&bc->b.r, p, (size_t)(tab - p), tab + 1,
					  (size_t)(nl - tab - 1));
		if (!*nl || !nl[1])
			break;
	}
	bc->co = xcalloc(bc->b.r.n + 1, sizeof(*bc->co));
	for (size_t k = 0; k < bc->b.r.n; k++)
		bc->co[k].wt = (struct git_worktree)GIT_WORKTREE_INIT;
	sbuf_release(&err);
	sbuf_release(&revs);
	return rc;
}

/* The path is something to bisect: not empty, and GOOD on it (the first
   commit's first parent). 0 or EXIT_USAGE. */
static int check_path(const struct bisect_cmd *bc, const struct bisect_cli *cli)
{
	if (!bc->b.r.n) {
		cmd_error("--bad '%s' is not a descendant of --good '%s': nothing to bisect",
			  cli->bad, cli->good);
		return EXIT_USAGE;
	}
	int rc = 0;
	char *parent = xstrfmt("%s^1", bc->b.r.path[0].sha), *psha = NULL;
	struct sbuf err = SBUF_INIT;
	if (git_resolve_commit(bc->repo, parent, &psha, &err) || strcmp(psha, bc->b.r.good)) {
		cmd_error("--good '%s' is not on the first-parent path of --bad '%s'", cli->good,
			  cli->bad);
		rc = EXIT_USAGE;
	}
	free(parent);
	free(psha);
	sbuf_release(&err);
	return rc;
}

/* GOOD built, then the search (bisect_search()). 0, or EXIT_EXEC when
   GOOD does not build or on an interrupt. */
static int bisect_run(struct bisect_cmd *bc, const struct bisect_cli *cli)
{
	struct bisect_result *r = &bc->b.r;
	char *reason = NULL;
	if (prepare_commit(bc, &bc->good, r->good, 0, &reason)) {
		cmd_error("--good %.12s: %s", r->good, reason);
		free(reason);
		return EXIT_EXEC;
	}
	if (!cli->out.quiet)
		fprintf(stderr,
			"kagari: bisect: %zu commit%s after %.12s on the first-parent path to "
			"%.12s (seed %llu)\n",
			r->n, r->n == 1 ? "" : "s", r->good, r->bad,
			(unsigned long long)bc->s.r.seed);
	const struct bisect_oracle oracle = {oracle_prepare, oracle_measure, oracle_stop,
					     oracle_progress, bc};
	bisect_search(&bc->b, &oracle);
	if (interrupt_requested) {
		cmd_error("interrupted");
		return EXIT_EXEC;
	}
	return 0;
}

/* After the result: the skipped commits counted, and why no first bad
   commit could be named, if it could not (rc merged with EXIT_FAIL). */
static int bisect_conclude(const struct bisect_result *r, int rc)
{
	size_t skipped = bisect_skipped(r);
	if (skipped)
		cmd_warning("%zu commit%s skipped (a failed build, or a comparison that regressed "
			    "at --bad failed or was not decided), as git bisect skips",
			    skipped, skipped == 1 ? " was" : "s were");
	if (r->first < 0) {
		const struct bisect_commit *bad = &r->path[r->n - 1];
		if (bad->out == BISECT_SKIP && bad->undecided) {
			/* Inconclusive is not "no regression": the comparison
			   could not tell, so say what would let it. */
			char runs[64] = "--runs N";
			if (bad->runs > 0)
				snprintf(runs, sizeof(runs), "--runs above %d", bad->runs);
			cmd_error(
			    "--bad %.12s against --good %.12s is undecided (%s): not shown to "
			    "be a regression beyond the tolerance, nor shown within it, after "
			    "%d measurement%s, so there is nothing to bisect yet. Measure with "
			    "more runs (%s, or a higher max_runs in the suite), or bisect a "
			    "quieter metric (--metric cpu_total: CPU time, steadier than "
			    "latency on a busy machine)",
			    r->bad, r->good, bad->reason, bad->measured,
			    bad->measured == 1 ? "" : "s", runs);
		} else if (bad->out == BISECT_SKIP)
			cmd_error("--bad %.12s could not be judged against --good %.12s (%s): "
				  "nothing to find",
				  r->bad, r->good, bad->reason ? bad->reason : "skipped");
		else
			cmd_error("--bad %.12s is not a regression beyond the tolerance against "
				  "--good %.12s (%s): nothing to find",
				  r->bad, r->good,
				  bad->reason ? bad->reason : bisect_outcome_name(bad->out));
		rc = exit_merge(rc, EXIT_FAIL);
	} else if (r->ambiguous) {
		long from = bisect_candidates_from(r);
		cmd_error(
		    "skipped commits leave the first bad commit among %ld, from %.12s to %.12s",
		    r->first - from + 1, r->path[from].sha, r->path[r->first].sha);
		rc = exit_merge(rc, EXIT_FAIL);
	}
	return rc;
}

/* The result in --format, written (--output or standard output), then
   concluded. */
static int bisect_report(struct bisect_cmd *bc, const struct bisect_cli *cli)
{
	const char *fmt = cli->out.format ? cli->out.format : "table";
	struct sbuf out = SBUF_INIT;
	bc->b.r.seed = bc->s.r.seed;
	if (!strcmp(fmt, "json"))
		report_bisect_json(&out, &bc->b.r);
	else
		report_bisect_table(&out, &bc->b.r);
	int rc = common_write_output(cli->out.output, NULL, out.buf, out.len);
	sbuf_release(&out);
	return bisect_conclude(&bc->b.r, rc);
}

/* Every worktree removed (a failure merged into *rc) and everything freed. */
static void bisect_cmd_release(struct bisect_cmd *bc, int *rc)
{
	/* A pending interrupt would stop the git calls of the cleanup. */
	child_interrupt_clear();
	release_checkout(&bc->good, bc->s.ls.nr, rc);
	for (size_t k = 0; bc->co && k < bc->b.r.n; k++)
		release_checkout(&bc->co[k], bc->s.ls.nr, rc);
	free(bc->co);
	bisect_release(&bc->b);
	free(bc->repo);
	session_release(&bc->s);
}

static int bisect_exec(const void *opts, struct cmd_env *env)
{
	const struct bisect_cli *cli = opts;
	int metric;
	int rc = bisect_check_args(cli, &metric);
	if (rc)
		return rc;
	/* session_prepare() wants the measuring flags; bisect writes no report
	   and records no history. */
	struct session_config cfg = {
	    .mode = "compare",
	    .tmp_prefix = "kagari-bisect",
	    .paths = &cli->common.args,
	    .selection = &cli->selection,
	    .measure = &cli->measure,
	    .no_history = 1,
	};
	session_config_out(&cfg, &cli->out);
	struct bisect_cmd bc;
	memset(&bc, 0, sizeof(bc));
	bc.good.wt = (struct git_worktree)GIT_WORKTREE_INIT;
	bisect_init(&bc.b);
	bc.b.metric = metric;
	bc.b.command = cli->command;
	bc.b.runs = cli->measure.runs;
	/* The folders of bisects that were killed (a crash, SIGKILL) first,
	   while nothing of ours is in TMPDIR yet. */
	tmpdir_prune("kagari-bisect", owner_gone);
	rc = session_prepare(&bc.s, &cfg, env);
	if (!rc) {
		claim_tmp(&bc);
		bc.b.suites = bc.s.ls.suites;
		bc.b.nr_suites = bc.s.ls.nr;
		bisect_save_alpha(&bc.b);
	}
	if (!rc && cli->command)
		rc = narrow_to_command(&bc, cli);
	if (!rc)
		rc = resolve_ends(&bc, cli);
	if (!rc)
		rc = load_path(&bc);
	if (!rc)
		rc = check_path(&bc, cli);
	if (!rc)
		rc = bisect_run(&bc, cli);
	if (!rc)
		rc = bisect_report(&bc, cli);
	bisect_cmd_release(&bc, &rc);
	return rc;
}

const struct cmd_entry cmd_bisect = {
    .name = "bisect",
    .args = "--good REV --bad REV [--metric M] [options] [PATH...]",
    .summary = "find the first commit between GOOD and BAD that regresses beyond the tolerance",
    .opts = bisect_opts,
    .cli_size = sizeof(struct bisect_cli),
    .needs_runner = 1,
    .exec = bisect_exec,
};
