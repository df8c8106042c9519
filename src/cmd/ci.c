/*
 * kagari ci [options] [--fail-on-inconclusive] [PATH...]: `compare` for CI
 * pipelines. The base is --against, else $KAGARI_BASE_REF, else on GitLab
 * the merge request's diff base ($CI_MERGE_REQUEST_DIFF_BASE_SHA) or a
 * push's previous commit ($CI_COMMIT_BEFORE_SHA), else the commit GitHub's
 * event file names (ci/github.h). Colour is off. After the
 * reports are written, GitHub workflow-command annotations (::error,
 * ::warning, ::notice) go to standard error — GitHub reads workflow
 * commands from both streams, and stderr keeps `--format json` on stdout
 * clean — and a Markdown summary is appended to $GITHUB_STEP_SUMMARY when
 * it is set. On GitLab ($GITLAB_CI) the annotations are left out: its
 * job log would show them as text; `--format junit` feeds its test report.
 */
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/fileio.h"
#include "base/sbuf.h"
#include "base/xalloc.h"
#include "ci/github.h"
#include "report/annotations.h"
#include "cmd/cmd.h"
#include "cmd/compare.h"
#include "cmd/common.h"
#include "cmd/exit.h"
#include "cmd/gate_suites.h"
#include "cmd/history_sync.h"
#include "cmd/interrupt.h"
#include "cmd/record.h"
#include "cmd/session.h"
#include "report/report.h"

/*
 * compare's options (first, so that its table entries, made over struct
 * compare_cli, hold here too) and the history branch's.
 */
struct ci_cli {
	struct compare_cli cmp;
	int history_push;		   /* --history-push */
	struct cli_history_branch history; /* --history-branch, --history-remote */
};
_Static_assert(offsetof(struct ci_cli, cmp) == 0, "compare_cli comes first");

#define C struct compare_cli
#define H(f) offsetof(struct ci_cli, f)
static const struct opt ci_opts[] = {
    {"against", OPT_STRING, offsetof(C, against), "REV",
     "the base revision (default: $KAGARI_BASE_REF, else GitLab's $CI_MERGE_REQUEST_DIFF_BASE_SHA, "
     "else the GitHub event's base)",
     NULL},
    OPT_SUITE_FROM(C,
		   "the base's, found in its commit as the working tree's are, so that a pull "
		   "request cannot replace or loosen its own gate; the head's where the base has "
		   "no suite"),
    OPT_MAX_PERCENT(C, ""),
    OPT_COMMON_MEASURE(C),
    OPT_MAX_TIME(C),
    {"fail-on-inconclusive", OPT_BOOL, offsetof(C, fail_on_inconclusive), NULL,
     "exit 1 when a gated comparison is inconclusive", NULL},
    {"history-push", OPT_BOOL, H(history_push), NULL,
     "on a push to the default branch only: pull the history branch before measuring and push the "
     "run to it after (never from a pull request: SECURITY.md)",
     NULL},
    {"history-branch", OPT_STRING, H(history.branch), "B",
     "with --history-push: the history branch B (default kagari-history)", NULL},
    {"history-remote", OPT_STRING, H(history.remote), "R",
     "with --history-push: the remote R, a name or a URL (default origin)", NULL},
    {NULL, 0, 0, NULL, NULL, NULL},
};
#undef H
#undef C

static const char *nonempty_env(const char *name)
{
	const char *v = getenv(name);
	return v && *v ? v : NULL;
}

/* The session hook: annotations, then the step summary. */
static int ci_after_measure(struct session *s, void *data)
{
	const struct run_result *r = &s->r;
	int fail_inc = s->cfg.fail_on_inconclusive;
	int rc = 0;
	(void)data;

	struct sbuf out = SBUF_INIT, err = SBUF_INIT;
	if (!nonempty_env("GITLAB_CI")) {
		github_annotations(&out, r, fail_inc, nonempty_env("GITHUB_WORKSPACE"));
		fflush(stdout);
		fputs(out.buf, stderr);
		fflush(stderr);
	}

	const char *summary = nonempty_env("GITHUB_STEP_SUMMARY");
	/* --summary to the same file already holds this Markdown. */
	if (summary && !fileio_same_file(summary, s->cfg.summary)) {
		sbuf_reset(&out);
		struct report_options o;
		report_options_init(&o);
		if (report_render(r, REPORT_MARKDOWN, &o, &out, &err)) {
			cmd_warning("step summary: %s; appending a short summary instead", err.buf);
			sbuf_reset(&out);
			github_summary_fallback(&out, r, fail_inc);
		}
		sbuf_reset(&err);
		if (github_append_file(summary, out.buf, out.len, &err)) {
			cmd_error("step summary (GITHUB_STEP_SUMMARY): %s", err.buf);
			rc = EXIT_EXEC;
		}
	}
	sbuf_release(&out);
	sbuf_release(&err);
	return rc;
}

/*
 * --history-push: may this job write the history branch? Only a push to
 * the default branch may (GitHub: the push event's ref; GitLab:
 * CI_PIPELINE_SOURCE and CI_COMMIT_BRANCH): a pull request's code must
 * never write to the repository. 1 yes; 0 no, with the one line saying
 * why printed; -1 the event could not be read (printed).
 */
static int history_push_allowed(void)
{
	struct sbuf why = SBUF_INIT, err = SBUF_INIT;
	int yes = 0, rc = 0;
	if (nonempty_env("GITLAB_CI")) {
		const char *src = nonempty_env("CI_PIPELINE_SOURCE");
		const char *br = nonempty_env("CI_COMMIT_BRANCH");
		const char *def = nonempty_env("CI_DEFAULT_BRANCH");
		yes = src && !strcmp(src, "push") && br && def && !strcmp(br, def);
		if (!yes)
			sbuf_addf(
			    &why,
			    "this GitLab pipeline is not a push to the default branch "
			    "(CI_PIPELINE_SOURCE %s, CI_COMMIT_BRANCH %s, CI_DEFAULT_BRANCH %s)",
			    src ? src : "unset", br ? br : "unset", def ? def : "unset");
	} else if (nonempty_env("GITHUB_EVENT_NAME")) {
		rc = github_event_default_push(nonempty_env("GITHUB_EVENT_NAME"),
					       nonempty_env("GITHUB_EVENT_PATH"), &yes, &why, &err);
	} else {
		sbuf_adds(&why, "no CI event says this is a push to the default branch (GitHub "
				"Actions or GitLab CI)");
	}
	if (rc) {
		cmd_error("--history-push: %s", err.buf);
		yes = -1;
	} else if (!yes) {
		fprintf(stderr,
			"kagari: ci: --history-push: not pulling or pushing the history branch: "
			"%s; only a push to the default branch writes it, a pull request's code "
			"never does (SECURITY.md)\n",
			why.buf);
	}
	sbuf_release(&why);
	sbuf_release(&err);
	return yes;
}

/* --history-push: the history's path and repository folder (from the
   suites as `compare_run()` will load them: the base's under its gate,
   gate_suites.h); 0, or -1 when they cannot be loaded (compare_run()
   then says why). */
static int history_place(const struct session_config *cfg, const char *base, char **path,
			 char **dir)
{
	struct loaded_suites ls;
	struct gate_suites g;
	const struct loaded_suites *from = &ls;
	int base_gate = !cfg->suite_from || !strcmp(cfg->suite_from, "base");
	int rc;
	*path = *dir = NULL;
	if (base_gate) {
		rc =
		    gate_suites_find(cfg->paths, cfg->selection, base, cfg->suite_from != NULL, &g);
		from = &g.ls;
	} else {
		rc = common_load(cfg->paths, &ls);
	}
	if (!rc) {
		*path = record_history_path(cfg->history, from);
		*dir = xstrdup(from->nr ? from->suites[0]->dir : ".");
	}
	if (base_gate)
		gate_suites_release(&g);
	else
		common_release(&ls);
	return rc ? -1 : 0;
}

static int ci_exec_sync(const struct ci_cli *cli, const struct session_config *cfg,
			struct cmd_env *env, const char *base)
{
	char *path = NULL, *dir = NULL;
	int sync = 0;
	if (cli->history_push) {
		if (cfg->no_history) {
			cmd_error(
			    "--history-push pushes the history: it cannot go with --no-history");
			return EXIT_USAGE;
		}
		sync = history_push_allowed();
		if (sync < 0)
			return EXIT_USAGE;
		if (sync && history_place(cfg, base, &path, &dir))
			sync = 0;
		/* A pull that fails costs the gate nothing: the push after
		   says whether the branch can be written. */
		if (sync && history_sync_run(&cli->history, HISTORY_SYNC_PULL, path, dir, stderr))
			cmd_warning("measuring without the history branch's runs");
	}
	int rc = compare_run(cfg, &cli->cmp.max_percent, env, base, "base", ci_after_measure, NULL);
	if (sync && !interrupt_requested)
		rc = exit_merge(
		    rc, history_sync_run(&cli->history, HISTORY_SYNC_PUSH, path, dir, stderr));
	free(path);
	free(dir);
	return rc;
}

static int ci_exec(const void *opts, struct cmd_env *env)
{
	const struct ci_cli *cli = opts;
	const char *base = cli->cmp.against;
	const char *from = "--against";
	char *event_sha = NULL;
	struct sbuf err = SBUF_INIT;
	struct sbuf from_event = SBUF_INIT;

	/* A failing program's stderr tail must not reach the runner as
	   workflow commands; GitLab reads none, so no fence there. */
	cmd_guard_workflow_commands(!nonempty_env("GITLAB_CI"));
	if (!base && (base = nonempty_env("KAGARI_BASE_REF")))
		from = "KAGARI_BASE_REF";
	/* GitLab: a merge-request pipeline's base is the merge base with the
	   target branch (what the merge request's diff shows). */
	if (!base && (base = nonempty_env("CI_MERGE_REQUEST_DIFF_BASE_SHA")))
		from = "the GitLab merge request, CI_MERGE_REQUEST_DIFF_BASE_SHA";
	if (!base && nonempty_env("GITLAB_CI")) {
		const char *before = nonempty_env("CI_COMMIT_BEFORE_SHA");
		if (!before || strspn(before, "0") == strlen(before)) {
			cmd_error("this GitLab pipeline names no base commit "
				  "(CI_MERGE_REQUEST_DIFF_BASE_SHA is set only in merge-request "
				  "pipelines; CI_COMMIT_BEFORE_SHA is %s); pass --against REV or "
				  "set KAGARI_BASE_REF",
				  before ? "all zeros for a new branch" : "not set");
			sbuf_release(&err);
			return EXIT_USAGE;
		}
		base = before;
		from = "the GitLab push, CI_COMMIT_BEFORE_SHA";
	}
	if (!base) {
		const char *name = nonempty_env("GITHUB_EVENT_NAME");
		const char *path = nonempty_env("GITHUB_EVENT_PATH");
		if (!name && !path) {
			cmd_error("ci needs a base revision: pass --against REV, set "
				  "KAGARI_BASE_REF, or run it in a GitLab merge-request pipeline "
				  "(CI_MERGE_REQUEST_DIFF_BASE_SHA) or GitHub Actions (where "
				  "GITHUB_EVENT_PATH and GITHUB_EVENT_NAME name the event)");
			sbuf_release(&err);
			return EXIT_USAGE;
		}
		/* Allowed (--allow-pull-request-target; cmd_exec() refused it
		   otherwise): its event file names the base as a pull_request
		   event's does. */
		const char *as = name && !strcmp(name, "pull_request_target") &&
					 cli->cmp.common.allow_pull_request_target
				     ? "pull_request"
				     : name;
		if (github_event_base(as, path, &event_sha, &err)) {
			cmd_error("%s", err.buf);
			sbuf_release(&err);
			return EXIT_USAGE;
		}
		base = event_sha;
		sbuf_addf(&from_event, "the '%s' event", name);
		from = from_event.buf;
	}
	if (!cli->cmp.out.quiet)
		fprintf(stderr, "kagari: ci: comparing with %s (from %s)\n", base, from);
	struct session_config cfg;
	compare_config(&cli->cmp, &cfg);
	/* Logs are not terminals; escape codes would only clutter them. */
	cfg.no_color = 1;
	/* The history tells a gate's run from a developer's compare. */
	cfg.history_kind = "ci";
	int rc = ci_exec_sync(cli, &cfg, env, base);
	free(event_sha);
	sbuf_release(&from_event);
	sbuf_release(&err);
	return rc;
}

const struct cmd_entry cmd_ci = {
    .name = "ci",
    .args = "[options] [--fail-on-inconclusive] [PATH...]",
    .summary = "compare in CI: base from --against, $KAGARI_BASE_REF, GitLab or the GitHub event; "
	       "annotations",
    .opts = ci_opts,
    .cli_size = sizeof(struct ci_cli),
    .needs_runner = 1,
    .exec = ci_exec,
};
