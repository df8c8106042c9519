/*
 * kagari merge REPORT.json... [--replicate] [--format FMT] [--output FILE]:
 * read the JSON reports of the jobs of a CI matrix (`--shard K/N`), join
 * and judge them as one run (analyze/merge.h: what is refused, how the
 * rounds are pooled) and write the result. docs/sharding.md.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "analyze/merge.h"
#include "base/sbuf.h"
#include "base/xalloc.h"
#include "cmd/cmd.h"
#include "cmd/common.h"
#include "model/exit.h"
#include "analyze/outcome.h"
#include "report/output.h"
#include "report/annotations.h"
#include "report/read_json.h"
#include "report/report.h"

#define MERGE_MAX_BYTES ((size_t)1 << 30)

struct merge_cli {
	struct cli_common common;
	struct cli_out out;	  /* format, output, summary */
	int replicate;		  /* --replicate */
	int annotations;	  /* GitHub annotations on stderr */
	int fail_on_inconclusive; /* --fail-on-inconclusive */
};

#define M(f) offsetof(struct merge_cli, f)
static const struct opt merge_opts[] = {
    {"replicate", OPT_BOOL, M(replicate), NULL,
     "pool the rounds of a command measured in several reports (jobs run with --replicate)", NULL},
    {"format", OPT_ENUM, M(out.format), "FMT", "output format: " REPORT_FORMAT_HELP,
     REPORT_FORMAT_CHOICES},
    {"output", OPT_STRING, M(out.output), "FILE",
     "write to FILE (atomically) instead of stdout; never an input", NULL},
    {"summary", OPT_STRING, M(out.summary), "FILE",
     "append a GitHub-flavoured Markdown summary to FILE (e.g. $GITHUB_STEP_SUMMARY)", NULL},
    {"annotations", OPT_BOOL, M(annotations), NULL,
     "GitHub workflow-command annotations on stderr, as kagari ci writes them", NULL},
    {"fail-on-inconclusive", OPT_BOOL, M(fail_on_inconclusive), NULL,
     "exit 1 when a gated comparison is inconclusive", NULL},
    {NULL, 0, 0, NULL, NULL, NULL},
};
#undef M

static int read_report(const char *path, struct run_result *r)
{
	struct sbuf text = SBUF_INIT, err = SBUF_INIT;
	int rc = 0;
	run_result_init(r);
	if (sbuf_read_file(&text, path, MERGE_MAX_BYTES)) {
		cmd_error("cannot read '%s': %s", path,
			  errno == EFBIG ? "larger than 1 GiB" : strerror(errno));
		rc = EXIT_INVALID;
	} else if (report_read_json(text.buf, text.len, path, r, &err)) {
		cmd_error("%s", err.buf);
		rc = EXIT_INVALID;
	}
	sbuf_release(&text);
	sbuf_release(&err);
	return rc;
}

/* The usage checks: reports given, a known --format (*f), and an --output
   that is none of them. 0 or EXIT_USAGE. */
static int merge_check_args(const struct merge_cli *cli, enum report_format *f)
{
	if (cli->common.args.nr < 1) {
		cmd_error("merge needs the JSON reports of the shards (kagari merge shard-*.json)");
		return EXIT_USAGE;
	}
	if (cli->out.format && report_format_parse(cli->out.format, f)) {
		cmd_error("unknown report format '%s'", cli->out.format);
		return EXIT_USAGE;
	}
	if (!cli->out.output)
		return 0;
	struct input_files in = INPUT_FILES_INIT;
	for (size_t i = 0; i < cli->common.args.nr; i++) {
		char *what = xstrfmt("the input report '%s'", cli->common.args.v[i]);
		input_files_add(&in, cli->common.args.v[i], what);
		free(what);
	}
	int bad = common_check_output("--output", cli->out.output, NULL, &in, EXIT_USAGE);
	input_files_release(&in);
	return bad;
}

/* Every report read, checked and merged, and none missing. 0, or the exit
   code (the reason said). */
static int read_all(struct merge_set *m, const struct merge_cli *cli)
{
	struct sbuf err = SBUF_INIT;
	int rc = 0;
	for (size_t i = 0; i < cli->common.args.nr && !rc; i++) {
		struct run_result r;
		rc = read_report(cli->common.args.v[i], &r);
		if (!rc && merge_set_add(m, &r, cli->common.args.v[i], cli->replicate, &err))
			rc = EXIT_INVALID;
		run_result_release(&r);
	}
	if (!rc && merge_set_check_complete(m, &err))
		rc = EXIT_INVALID;
	if (rc && err.len)
		cmd_error("%s", err.buf);
	sbuf_release(&err);
	return rc;
}

/* The merged report in format f, to --output or standard output. 0, or
   EXIT_INTERNAL or EXIT_EXEC. */
static int write_merged(const struct run_result *r, enum report_format f,
			const struct merge_cli *cli, const struct cmd_env *env)
{
	struct sbuf err = SBUF_INIT, out = SBUF_INIT;
	int rc = 0;
	struct report_options o;
	report_options_init(&o);
	o.color = !cli->out.output && env->stdout_tty && !cli->out.no_color && !getenv("NO_COLOR");
	if (report_render(r, f, &o, &out, &err)) {
		cmd_error("%s", err.buf);
		rc = EXIT_INTERNAL;
	} else {
		rc = common_write_output(cli->out.output, NULL, out.buf, out.len);
	}
	sbuf_release(&err);
	sbuf_release(&out);
	return rc;
}

/* --summary: Markdown appended to the file; rc merged with EXIT_EXEC when
   it cannot be. */
static int write_summary(const struct run_result *r, const struct merge_cli *cli, int rc)
{
	return exit_merge(rc, common_write_summary(r, cli->out.summary));
}

/* --annotations: GitHub's workflow commands on stderr, after the report. */
static void write_annotations(const struct run_result *r, const struct merge_cli *cli)
{
	struct sbuf an = SBUF_INIT;
	const char *ws = getenv("GITHUB_WORKSPACE");
	github_annotations(&an, r, cli->fail_on_inconclusive, ws && *ws ? ws : NULL);
	fflush(stdout);
	fputs(an.buf, stderr);
	fflush(stderr);
	sbuf_release(&an);
}

static int merge_exec(const void *opts, struct cmd_env *env)
{
	const struct merge_cli *cli = opts;
	enum report_format f = REPORT_TABLE;
	int rc = merge_check_args(cli, &f);
	if (rc)
		return rc;
	struct merge_set m;
	merge_set_init(&m, cli->common.args.nr);
	rc = read_all(&m, cli);
	if (rc)
		goto out;
	merge_set_as_one_run(&m);
	merge_set_judge(&m, cli->fail_on_inconclusive);
	rc = write_merged(&m.r, f, cli, env);
	if (rc)
		goto out;
	rc = m.r.summary.exit_code;
	if (cli->out.summary)
		rc = write_summary(&m.r, cli, rc);
	if (cli->annotations)
		write_annotations(&m.r, cli);
	if (rc && rc != m.r.summary.exit_code)
		cmd_error("the summary could not be written");
	else if (rc && m.r.exit_reason)
		cmd_error("%s", m.r.exit_reason);
out:
	merge_set_release(&m);
	return rc;
}

const struct cmd_entry cmd_merge = {
    .name = "merge",
    .args = "REPORT.json... [--replicate] [--format FMT] [--output FILE]",
    .summary = "join the JSON reports of --shard jobs into one, analysed as one run",
    .opts = merge_opts,
    .cli_size = sizeof(struct merge_cli),
    .needs_runner = 0,
    .exec = merge_exec,
};
