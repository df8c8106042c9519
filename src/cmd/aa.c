/*
 * kagari aa [options] [PATH...]: how small a change can this machine
 * resolve? N A/A compares of the working tree against itself: each suite
 * is built once per side as compare builds it (the head in the working
 * tree, the base in a temporary worktree of HEAD with the working tree's
 * uncommitted changes, at a path of the same length), then measured N times with the same commands
 * on both sides, interleaved in rounds exactly as `compare` measures a base and a head. This file
 * measures; the survey and its rule are analyze/aa.h's, the outputs report/aa.h's.
 */
#include <errno.h>
#include <stddef.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "analyze/aa.h"
#include "base/path.h"
#include "base/sbuf.h"
#include "base/xalloc.h"
#include "cmd/cmd.h"
#include "cmd/compare.h"
#include "cmd/exit.h"
#include "cmd/interrupt.h"
#include "cmd/common.h"
#include "cmd/session.h"
#include "base/fileio.h"
#include "git/git.h"
#include "git/worktree.h"
#include "measure/sysinfo.h"
#include "model/trace.h"
#include "proc/child.h"
#include "report/output.h"
#include "report/aa.h"
#include "suite/units.h"

#define AA_DEFAULT_REPEAT 10

struct aa_cli {
	struct cli_common common;
	struct cli_selection selection;
	struct cli_out out;	    /* format, output, quiet */
	struct cli_measure measure; /* seed, runs, warmup, max_time */
	int repeat;		    /* --repeat N, -1 unset */
	char *trace;		    /* --trace FILE */
};

#define A(f) offsetof(struct aa_cli, f)
static const struct opt aa_opts[] = {
    {"repeat", OPT_COUNT, A(repeat), "N", "number of A/A compares (default 10, at least 2)", NULL},
    OPT_COMMON_SELECTION(struct aa_cli),
    {"format", OPT_ENUM, A(out.format), "FMT",
     "report format: table (default), json, html (the A/A scatter)", "table|json|html"},
    {"output", OPT_STRING, A(out.output), "FILE",
     "write the report to FILE (atomically) instead of stdout; never an input", NULL},
    {"seed", OPT_SEED, A(measure.seed), "N",
     "seed for run order and resampling (default: random, always recorded)", NULL},
    {"runs", OPT_COUNT, A(measure.runs), "N",
     "measured runs per command and side in each compare (default: sequential rounds as in "
     "compare)",
     NULL},
    {"warmup", OPT_COUNT, A(measure.warmup), "N", "unmeasured warm-up runs per command and side",
     NULL},
    OPT_MAX_TIME(struct aa_cli),
    {"quiet", OPT_BOOL, A(out.quiet), NULL, "no progress line", NULL},
    {"trace", OPT_STRING, A(trace), "FILE",
     "also write every measured run, in the order they ran, as a trace for `kagari power`", NULL},
    OPT_ALLOW_PULL_REQUEST_TARGET,
    {NULL, 0, 0, NULL, NULL, NULL},
};
#undef A

/*
 * --trace: the runs of one command (the first one measured; a trace is one
 * program's noise), both sides, in the order they ran, in model/trace.h's
 * format. A/A: the two sides are two copies of one program.
 */
struct aa_trace {
	char *bench, *command; /* the command recorded */
	int other;	       /* another command was measured, not recorded */
	size_t n;
	struct sbuf text;
};

static void aa_on_run(void *data, int side, const char *bench, const char *command,
		      const struct child_result *res)
{
	struct aa_trace *t = data;
	if (!t->bench) {
		t->bench = xstrdup(bench);
		t->command = xstrdup(command);
		sbuf_adds(&t->text, TRACE_HEADER_AA);
	}
	if (strcmp(t->bench, bench) || strcmp(t->command, command)) {
		t->other = 1;
		return;
	}
	trace_add_row(&t->text, t->n++, side == SIDE_BASE ? 0 : 1, (double)res->wall_ns,
		      (double)res->user_ns, (double)res->sys_ns,
		      (double)res->maxrss_bytes / 1024.0);
}

/* Print each failed command's error of compare r; returns how many. */
static int command_errors(const struct run_result *r)
{
	int n = 0;
	for (size_t i = 0; i < r->nr_suites; i++) {
		if (r->suites[i].result == RESULT_ERROR && !r->suites[i].nr_benches)
			n++;
		for (size_t b = 0; b < r->suites[i].nr_benches; b++) {
			const struct bench_result *br = &r->suites[i].benches[b];
			for (size_t c = 0; c < br->nr_commands; c++)
				if (br->commands[c].error) {
					cmd_error("benchmark '%s', command '%s': %s", br->name,
						  br->commands[c].name, br->commands[c].error);
					n++;
				}
		}
	}
	return n;
}

/* Make s->r ready for the next compare (the previous one is released). */
static void next_result(struct session *s, uint64_t seed)
{
	run_result_release(&s->r);
	run_result_init(&s->r);
	s->r.mode = xstrdup("compare");
	s->r.seed = seed;
	s->r.started_at = sysinfo_now_rfc3339();
	s->r.suites = xcalloc(s->ls.nr + 1, sizeof(*s->r.suites));
}

/* --trace FILE: checked as an output (never one of the inputs, not the
   --output file), and every run recorded into tr. 0 or the exit code. */
static int aa_trace_setup(struct session *s, const struct aa_cli *cli, struct aa_trace *tr)
{
	struct input_files in = INPUT_FILES_INIT;
	input_files_add_suites(&in, &s->ls);
	int rc = common_check_output("--trace", cli->trace, NULL, &in, EXIT_USAGE);
	input_files_release(&in);
	if (cli->out.output && !rc && fileio_same_file(cli->out.output, cli->trace)) {
		cmd_error("--trace and --output name the same file '%s'", cli->trace);
		rc = EXIT_USAGE;
	}
	if (rc)
		return rc;
	s->opts.on_run = aa_on_run;
	s->opts.on_run_data = tr;
	return 0;
}

/*
 * Where the base side is built, as compare builds a base: a temporary
 * worktree of HEAD (wt) at a path as long as the working tree's, holding
 * the working tree's uncommitted changes too, when a suite builds and
 * every suite is in the working tree of one repository. Else wt stays
 * empty and both sides are built in the working tree (outside a
 * repository compare cannot run). 0, or the exit code (message printed).
 */
static int aa_base_tree(struct session *s, struct git_worktree *wt)
{
	char *repo = NULL, *head = NULL;
	struct sbuf err = SBUF_INIT, status = SBUF_INIT;
	int builds = 0, rc = 0;
	for (size_t i = 0; i < s->ls.nr; i++)
		builds |= s->ls.suites[i]->build != NULL;
	if (!builds || git_toplevel(s->ls.suites[0]->dir, &repo, &err))
		goto out;
	for (size_t i = 0; i < s->ls.nr; i++)
		if (!path_inside(s->ls.suites[i]->dir, repo))
			goto out;
	if (git_head_status(repo, &head, &status, &s->git_skip, &err) || !head)
		goto out;
	if (git_prune_orphans(repo, &err))
		cmd_warning("could not prune kagari's orphaned worktrees: %s", err.buf);
	sbuf_reset(&err);
	if (git_worktree_add_as(repo, head, s->tmp,
				GIT_WORKTREE_SAME_LENGTH | GIT_WORKTREE_NO_SUBMODULES, wt, &err) ||
	    git_worktree_copy_changes(wt, &status, &err)) {
		cmd_error("a copy of the working tree for the base side: %s", err.buf);
		rc = EXIT_EXEC;
	} else {
		compare_note_path_length(s, wt);
		rc = compare_base_submodules(s, wt, "HEAD");
	}
out:
	free(repo);
	free(head);
	sbuf_release(&err);
	sbuf_release(&status);
	return rc;
}

/* Remove aa_base_tree()'s worktree, if any. 0 or EXIT_EXEC. */
static int aa_remove_tree(struct git_worktree *wt)
{
	struct sbuf err = SBUF_INIT;
	int rc = 0;
	/* A pending interrupt would stop the git calls of the cleanup. */
	child_interrupt_clear();
	if (wt->path && git_worktree_remove(wt, &err)) {
		cmd_error("could not remove the temporary worktree '%s': %s", wt->path, err.buf);
		rc = EXIT_EXEC;
	}
	git_worktree_release(wt);
	sbuf_release(&err);
	return rc;
}

/* The k-th A/A compare: every suite with the working tree on both sides
   (the base built in wt's folder when there is one), then judged into
   st. 0 or EXIT_EXEC. */
static int aa_one_compare(struct session *s, const struct git_worktree *wt, struct aa_survey *st,
			  int k, int repeat)
{
	if (k)
		next_result(s, st->seed);
	/* Each compare its own run order; the resampling seed stays. */
	s->opts.seed = st->seed + (uint64_t)k;
	for (size_t i = 0; i < s->ls.nr && !s->r.interrupted; i++) {
		const struct suite *su = s->ls.suites[i];
		char *tmp_a = xstrfmt("%s/s%zu-r%d-base", s->tmp, i, k);
		char *tmp_b = xstrfmt("%s/s%zu-r%d-head", s->tmp, i, k);
		const char *rel = wt->path ? path_inside(su->root, wt->repo) : NULL;
		char *base_root =
		    rel ? xstrfmt("%s%s%s", wt->path, *rel ? "/" : "", rel) : xstrdup(su->root);
		/* Both sides: the working tree (A/A), the base's copy of it
		   in its own folder as compare's base is. */
		struct execute_side sides[SIDE__COUNT] = {
		    [SIDE_BASE] = {.present = 1,
				   .root = base_root,
				   .head_root = su->root,
				   .tmpdir = tmp_a},
		    [SIDE_HEAD] = {.present = 1,
				   .root = su->root,
				   .head_root = su->root,
				   .tmpdir = tmp_b},
		};
		session_measure_suite(s, i, sides);
		free(base_root);
		free(tmp_a);
		free(tmp_b);
	}
	if (s->r.interrupted || interrupt_requested) {
		cmd_error("interrupted after %d of %d A/A compares", k, repeat);
		return EXIT_EXEC;
	}
	if (command_errors(&s->r) || s->exec_rc) {
		if (s->r.exit_reason)
			cmd_error("%s", s->r.exit_reason);
		cmd_error("A/A compare %d of %d failed", k + 1, repeat);
		return EXIT_EXEC;
	}
	aa_survey_add(st, &s->r);
	return 0;
}

/* The summary in --format, to --output or standard output. */
static int aa_write(const struct aa_cli *cli, const struct aa_survey *st)
{
	int rc;
	struct sbuf out = SBUF_INIT;
	const char *fmt = cli->out.format ? cli->out.format : "table";
	if (!strcmp(fmt, "json"))
		report_aa_json(&out, st);
	else if (!strcmp(fmt, "html"))
		report_aa_html(&out, st);
	else
		report_aa_table(&out, st);
	rc = common_write_output(cli->out.output, NULL, out.buf, out.len);
	sbuf_release(&out);
	return rc;
}

/* The --trace file, written even after a failed compare: the runs made
   are noise recorded all the same. 0 or EXIT_EXEC. */
static int aa_trace_write(const struct aa_cli *cli, const struct aa_trace *tr)
{
	int rc = 0;
	struct sbuf err = SBUF_INIT;
	if (report_output_write(cli->trace, NULL, tr->text.buf, tr->text.len, &err)) {
		cmd_error("--trace: %s", err.buf);
		rc = EXIT_EXEC;
	} else if (tr->other)
		fprintf(stderr,
			"kagari: --trace: %s holds the %zu runs of %s/%s only "
			"(a trace is one program's noise; --filter selects another)\n",
			cli->trace, tr->n, tr->bench, tr->command);
	sbuf_release(&err);
	return rc;
}

static int aa_exec(const void *opts, struct cmd_env *env)
{
	const struct aa_cli *cli = opts;
	int repeat = cli->repeat < 0 ? AA_DEFAULT_REPEAT : cli->repeat;
	if (repeat < 2) {
		cmd_error("--repeat must be at least 2 (a spread needs several compares)");
		return EXIT_USAGE;
	}
	struct session s;
	/* mode "compare": both sides measured interleaved, sequential rounds
	   unless --runs fixes them, exactly as compare measures. The session
	   writes no report (aa_write() does) but checks --output as one. */
	struct session_config cfg = {
	    .mode = "compare",
	    .tmp_prefix = "kagari", /* short, as compare's (compare_config()) */
	    .paths = &cli->common.args,
	    .selection = &cli->selection,
	    .measure = &cli->measure,
	};
	session_config_out(&cfg, &cli->out);
	int rc = session_prepare(&s, &cfg, env);
	if (rc) {
		session_release(&s);
		return rc;
	}
	s.build_once = 1;
	struct aa_trace tr = {.text = SBUF_INIT};
	struct git_worktree wt = GIT_WORKTREE_INIT;
	if ((cli->trace && (rc = aa_trace_setup(&s, cli, &tr))) || (rc = aa_base_tree(&s, &wt))) {
		aa_remove_tree(&wt);
		free(tr.bench);
		free(tr.command);
		sbuf_release(&tr.text);
		session_release(&s);
		return rc;
	}
	struct aa_survey st;
	aa_survey_init(&st, repeat, s.r.seed);
	for (int k = 0; k < repeat && !rc; k++)
		rc = aa_one_compare(&s, &wt, &st, k, repeat);
	int wrc = aa_remove_tree(&wt);
	rc = rc ? rc : wrc;
	if (!rc) {
		aa_survey_finish(&st);
		rc = aa_write(cli, &st);
	}
	if (cli->trace && tr.n) {
		int trc = aa_trace_write(cli, &tr);
		rc = rc ? rc : trc;
	}
	free(tr.bench);
	free(tr.command);
	sbuf_release(&tr.text);
	aa_survey_release(&st);
	session_release(&s);
	return rc;
}

const struct cmd_entry cmd_aa = {
    .name = "aa",
    .args = "[--repeat N] [options] [PATH...]",
    .summary =
	"run N A/A compares of the working tree and say how small a change this machine resolves",
    .opts = aa_opts,
    .cli_size = sizeof(struct aa_cli),
    .needs_runner = 1,
    .exec = aa_exec,
};
