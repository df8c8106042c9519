/*
 * kagari report INPUT.json [--format FMT] [--output FILE]: re-render a
 * saved JSON report in any format without measuring or recomputing
 * anything. The exit code is the saved report's own (summary.exit_code),
 * with its exit_reason as the last line on stderr, so a pipeline can gate
 * on a report made elsewhere. Invalid JSON or an unknown schema_version is
 * exit 2; an output path that is the input (same file, however named), a
 * directory, a socket or a block device is exit 3. A FIFO or character
 * device is written in place.
 *
 * With --reanalyze the saved samples go through the analysis again
 * (analyze_result(), the code compare runs) with the settings saved beside
 * them, the report's own seed, and any --max-percent METRIC=P or
 * --confidence C given: "what if the tolerance had been P?" without
 * measuring. The exit code is then the one compare would have given.
 *
 * --list-formats prints the names --format takes, one a line (exit 0), so
 * a script can check a format exactly before it measures anything.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "analyze/analyze.h"
#include "base/fileio.h"
#include "base/sbuf.h"
#include "base/xalloc.h"
#include "cmd/cmd.h"
#include "cmd/common.h"
#include "model/exit.h"
#include "analyze/outcome.h"
#include "suite/units.h"
#include "report/read_json.h"
#include "report/output.h"
#include "report/report.h"
#include "report/section.h"

/* Bigger than any report of a few thousand comparisons with samples. */
#define REPORT_MAX_BYTES ((size_t)1 << 30)

struct report_cli {
	struct cli_common common;
	struct cli_out out;	      /* format, output, section */
	struct cli_analysis analysis; /* confidence */
	int reanalyze;		      /* analyse the saved samples again */
	struct strvec max_percent;    /* [METRIC=]P, with --reanalyze */
	int fail_on_inconclusive;     /* with --reanalyze */
	int list_formats;	      /* print the --format names and stop */
};

#define R(f) offsetof(struct report_cli, f)
static const struct opt report_opts[] = {
    {"format", OPT_ENUM, R(out.format), "FMT", "output format: " REPORT_FORMAT_HELP,
     REPORT_FORMAT_CHOICES},
    {"output", OPT_STRING, R(out.output), "FILE",
     "write to FILE (atomically; a FIFO or device in place) instead of stdout; never the input "
     "itself",
     NULL},
    {"section", OPT_STRING, R(out.section), "NAME",
     "markdown: rewrite only section NAME of an existing --output page", NULL},
    {"reanalyze", OPT_BOOL, R(reanalyze), NULL,
     "analyse the saved samples again (the report's seed and settings); exit as compare would",
     NULL},
    OPT_MAX_PERCENT(struct report_cli, "with --reanalyze: "),
    {"confidence", OPT_STRING, R(analysis.confidence), "C",
     "with --reanalyze: judge every comparison at confidence C (0.5 to 0.999)", NULL},
    {"fail-on-inconclusive", OPT_BOOL, R(fail_on_inconclusive), NULL,
     "with --reanalyze: exit 1 when a gated comparison is inconclusive", NULL},
    {"list-formats", OPT_BOOL, R(list_formats), NULL,
     "print the --format names, one a line, and exit 0 (no INPUT.json)", NULL},
    {NULL, 0, 0, NULL, NULL, NULL},
};
#undef R

/* --max-percent and --confidence into ov; returns 0 or EXIT_USAGE. */
static int parse_overrides(const struct report_cli *cli, struct analyze_overrides *ov)
{
	memset(ov, 0, sizeof(*ov));
	if (!cli->reanalyze &&
	    (cli->max_percent.nr || cli->analysis.confidence || cli->fail_on_inconclusive)) {
		cmd_error(
		    "--max-percent, --confidence and --fail-on-inconclusive need --reanalyze");
		return EXIT_USAGE;
	}
	int rc = common_parse_max_percent(&cli->max_percent, ov);
	if (rc)
		return rc;
	if (cli->analysis.confidence) {
		if (common_parse_confidence(cli->analysis.confidence, &ov->confidence))
			return EXIT_USAGE;
		ov->have_confidence = 1;
	}
	return 0;
}

/*
 * Can r be analysed again as asked? Comparisons saved without the settings
 * they were made with (a report from an older kagari) cannot be remade
 * (exit 2); a --max-percent for a metric no command compared would change
 * nothing (exit 3).
 */
static int check_reanalyzable(const struct run_result *r, const struct analyze_overrides *ov,
			      const char *input)
{
	int compared[METRIC__COUNT] = {0}, any = 0;
	for (size_t i = 0; i < r->nr_suites; i++)
		for (size_t b = 0; b < r->suites[i].nr_benches; b++) {
			const struct bench_result *br = &r->suites[i].benches[b];
			for (size_t c = 0; c < br->nr_commands; c++) {
				const struct analysis_settings *a = &br->commands[c].analysis;
				for (int m = 0; m < METRIC__COUNT && !a->present; m++)
					if (br->commands[c].comparison[m].present) {
						cmd_error("%s: benchmark '%s', command '%s' has "
							  "comparisons but no `analysis` settings "
							  "(saved by an older kagari): it cannot "
							  "be analysed again",
							  input, br->name, br->commands[c].name);
						return EXIT_INVALID;
					}
				any |= a->present;
				for (int m = 0; m < METRIC__COUNT && a->present; m++)
					compared[m] |= a->metric[m].compare;
			}
		}
	for (int m = 0; m < METRIC__COUNT; m++)
		if (ov->have_max_percent[m] && !compared[m]) {
			cmd_error("--max-percent: no command of '%s' compares '%s'", input,
				  metric_get(m)->name);
			return EXIT_USAGE;
		}
	if (ov->have_confidence && !any) {
		cmd_error("--confidence: '%s' holds no comparison settings (a report of `run`, or "
			  "one saved by a kagari without them)",
			  input);
		return EXIT_USAGE;
	}
	return 0;
}

/*
 * Analyse r again (analyze_result() replaces the saved comparisons and
 * their warnings); failures outside the analysis (a build, the worktree)
 * keep their exit 4 and reason. Returns the exit code compare would have
 * given.
 */
static int reanalyze(struct run_result *r, const struct analyze_overrides *ov,
		     const struct report_cli *cli)
{
	int saved = r->summary.exit_code;
	char *saved_reason = r->exit_reason;
	r->exit_reason = NULL;
	analyze_result(r, ov);
	outcome_judge(r);
	if (cli->fail_on_inconclusive)
		outcome_fail_on_inconclusive(r);
	if (saved == EXIT_EXEC && r->summary.exit_code != EXIT_EXEC) {
		r->summary.exit_code = EXIT_EXEC;
		free(r->exit_reason);
		r->exit_reason = saved_reason;
		saved_reason = NULL;
	}
	free(saved_reason);
	return r->summary.exit_code;
}

/* The input is a file that can be read, and --output is not it: by
   identity, not by name (./r.json, r.json and links are one file). */
static int check_input(const struct report_cli *cli, const char *input)
{
	struct stat in_st;
	if (stat(input, &in_st) != 0) {
		cmd_error("cannot read '%s': %s", input, strerror(errno));
		return EXIT_USAGE;
	}
	if (S_ISDIR(in_st.st_mode)) {
		cmd_error("'%s' is a folder, not a saved JSON report", input);
		return EXIT_USAGE;
	}
	if (!cli->out.output)
		return 0;
	struct input_files in = INPUT_FILES_INIT;
	struct sbuf what = SBUF_INIT;
	sbuf_addf(&what, "the input report '%s'", input);
	input_files_add(&in, input, what.buf);
	int bad =
	    common_check_output("--output", cli->out.output, cli->out.section, &in, EXIT_USAGE);
	input_files_release(&in);
	sbuf_release(&what);
	return bad;
}

/* The saved report read into r (run_result_init()ed by the caller), and
   with --reanalyze analysed again. 0 or the exit code. */
static int load_report(struct run_result *r, const char *input, const struct analyze_overrides *ov,
		       const struct report_cli *cli)
{
	struct sbuf text = SBUF_INIT, err = SBUF_INIT;
	int rc = 0;
	if (sbuf_read_file(&text, input, REPORT_MAX_BYTES)) {
		cmd_error("cannot read '%s': %s", input,
			  errno == EFBIG ? "larger than 1 GiB" : strerror(errno));
		rc = EXIT_INVALID;
	} else if (report_read_json(text.buf, text.len, input, r, &err)) {
		cmd_error("%s", err.buf);
		rc = EXIT_INVALID;
	} else if (cli->reanalyze) {
		rc = check_reanalyzable(r, ov, input);
		if (!rc)
			reanalyze(r, ov, cli);
	}
	sbuf_release(&text);
	sbuf_release(&err);
	return rc;
}

/* r in format f (and --section), to --output or standard output. 0 or the
   exit code. */
static int write_report(const struct run_result *r, enum report_format f,
			const struct report_cli *cli, const struct cmd_env *env)
{
	struct report_options o;
	report_options_init(&o);
	o.color = !cli->out.output && env->stdout_tty && !cli->out.no_color && !getenv("NO_COLOR");
	if (cli->out.section && (f != REPORT_MARKDOWN || !cli->out.output ||
				 !report_section_name_valid(cli->out.section))) {
		cmd_error("--section '%s' needs --format markdown, --output FILE and a name of "
			  "1-64 [A-Za-z0-9_.-]",
			  cli->out.section);
		return EXIT_USAGE;
	}
	o.section = cli->out.section;
	struct sbuf out = SBUF_INIT, err = SBUF_INIT;
	int rc = 0;
	if (report_render(r, f, &o, &out, &err)) {
		cmd_error("%s", err.buf);
		rc = EXIT_INTERNAL; /* a writer refused a report the reader accepted */
	} else {
		rc = common_write_output(cli->out.output, cli->out.section, out.buf, out.len);
	}
	sbuf_release(&out);
	sbuf_release(&err);
	return rc;
}

/* --list-formats: the names --format takes, one a line, for scripts (the
   GitHub Action checks its `format` input against them). */
static int list_formats(const struct report_cli *cli)
{
	static const char *const names[] = {REPORT_FORMAT_NAMES};
	if (cli->common.args.nr) {
		cmd_error("--list-formats takes no INPUT.json");
		return EXIT_USAGE;
	}
	for (size_t i = 0; names[i]; i++)
		printf("%s\n", names[i]);
	return fflush(stdout) || ferror(stdout) ? EXIT_EXEC : 0;
}

static int report_exec(const void *opts, struct cmd_env *env)
{
	const struct report_cli *cli = opts;
	if (cli->list_formats)
		return list_formats(cli);
	if (cli->common.args.nr != 1) {
		cmd_error("report needs exactly one INPUT.json (a report saved with --format "
			  "json), not %zu",
			  cli->common.args.nr);
		return EXIT_USAGE;
	}
	const char *input = cli->common.args.v[0];
	enum report_format f = REPORT_TABLE;
	if (cli->out.format && report_format_parse(cli->out.format, &f)) {
		cmd_error("unknown report format '%s'", cli->out.format);
		return EXIT_USAGE;
	}
	struct analyze_overrides ov;
	int rc = parse_overrides(cli, &ov);
	if (!rc)
		rc = check_input(cli, input);
	if (rc)
		return rc;
	struct run_result r;
	run_result_init(&r);
	rc = load_report(&r, input, &ov, cli);
	if (!rc)
		rc = write_report(&r, f, cli, env);
	if (rc)
		goto out;
	rc = r.summary.exit_code;
	if (rc && r.exit_reason && *r.exit_reason)
		cmd_error("%s", r.exit_reason);
	else if (rc)
		cmd_error("the saved report's exit code is %d", rc);
out:
	run_result_release(&r);
	return rc;
}

const struct cmd_entry cmd_report = {
    .name = "report",
    .args = "INPUT.json [--format FMT] [--output FILE] [--reanalyze [--max-percent [METRIC=]P]... "
	    "[--confidence C]]",
    .summary = "re-render a saved JSON report, or analyse its samples again, without measuring",
    .opts = report_opts,
    .cli_size = sizeof(struct report_cli),
    .needs_runner = 0,
    .exec = report_exec,
};
