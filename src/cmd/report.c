/*
 * kagari report INPUT.json [--format FMT] [--output FILE]: re-render a
 * saved JSON report in any format without measuring or recomputing
 * anything. The exit code is the saved report's own (summary.exit_code),
 * with its exit_reason as the last line on stderr, so a pipeline can gate
 * on a report made elsewhere. Invalid JSON or an unknown schema_version is
 * exit 2; an output path that is the input (same file, however named), a
 * directory, a socket or a block device is exit 3. A FIFO or character
 * device is written in place.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "base/fileio.h"
#include "base/sbuf.h"
#include "cmd/cmd.h"
#include "cmd/common.h"
#include "cmd/exit.h"
#include "report/read_json.h"
#include "report/output.h"
#include "report/report.h"
#include "report/section.h"

/* Bigger than any report of a few thousand comparisons with samples. */
#define REPORT_MAX_BYTES ((size_t)1 << 30)

static const struct opt report_opts[] = {
	{ "format", OPT_ENUM, offsetof(struct cli, format), "FMT",
	  "output format: table (default), markdown, github, html, csv, samples-csv, json",
	  "table|markdown|github|html|csv|samples-csv|json" },
	{ "output", OPT_STRING, offsetof(struct cli, output), "FILE",
	  "write to FILE (atomically; a FIFO or device in place) instead of stdout; never the input itself", NULL },
	{ "section", OPT_STRING, offsetof(struct cli, section), "NAME",
	  "markdown: rewrite only section NAME of an existing --output page", NULL },
	{ NULL, 0, 0, NULL, NULL, NULL },
};

static int report_exec(struct cli *cli, struct cmd_env *env)
{
	if (cli->args.nr != 1) {
		cmd_error("report needs exactly one INPUT.json (a report saved with --format json), not %zu",
			  cli->args.nr);
		return EXIT_USAGE;
	}
	const char *input = cli->args.v[0];
	enum report_format f = REPORT_TABLE;
	if (cli->format && report_format_parse(cli->format, &f)) {
		cmd_error("unknown report format '%s'", cli->format);
		return EXIT_USAGE;
	}
	struct stat in_st;
	if (stat(input, &in_st) != 0) {
		cmd_error("cannot read '%s': %s", input, strerror(errno));
		return EXIT_USAGE;
	}
	if (S_ISDIR(in_st.st_mode)) {
		cmd_error("'%s' is a folder, not a saved JSON report", input);
		return EXIT_USAGE;
	}
	/* By identity, not by name: ./r.json, r.json and links are one file. */
	if (cli->output) {
		struct input_files in = INPUT_FILES_INIT;
		struct sbuf what = SBUF_INIT;
		sbuf_addf(&what, "the input report '%s'", input);
		input_files_add(&in, input, what.buf);
		int bad = common_check_output("--output", cli->output, cli->section, &in,
					      EXIT_USAGE);
		input_files_release(&in);
		sbuf_release(&what);
		if (bad)
			return bad;
	}

	struct sbuf text = SBUF_INIT, out = SBUF_INIT, err = SBUF_INIT;
	struct run_result r;
	run_result_init(&r);
	int rc;
	if (sbuf_read_file(&text, input, REPORT_MAX_BYTES)) {
		cmd_error("cannot read '%s': %s", input,
			  errno == EFBIG ? "larger than 1 GiB" : strerror(errno));
		rc = EXIT_INVALID;
		goto out;
	}
	if (report_read_json(text.buf, text.len, input, &r, &err)) {
		cmd_error("%s", err.buf);
		rc = EXIT_INVALID;
		goto out;
	}
	struct report_options o;
	report_options_init(&o);
	o.color = !cli->output && env->stdout_tty && !cli->no_color &&
		  !getenv("NO_COLOR");
	if (cli->section && (f != REPORT_MARKDOWN || !cli->output ||
			     !report_section_name_valid(cli->section))) {
		cmd_error("--section '%s' needs --format markdown, --output FILE and a name of 1-64 [A-Za-z0-9_.-]",
			  cli->section);
		rc = EXIT_USAGE;
		goto out;
	}
	o.section = cli->section;
	if (report_render(&r, f, &o, &out, &err)) {
		cmd_error("%s", err.buf);
		rc = EXIT_INTERNAL; /* a writer refused a report the reader accepted */
		goto out;
	}
	if (!cli->output) {
		fputs(out.buf, stdout);
		if (fflush(stdout) || ferror(stdout)) {
			cmd_error("cannot write the report to standard output: %s",
				  strerror(errno));
			rc = EXIT_EXEC;
			goto out;
		}
	} else if (report_output_write(cli->output, cli->section, out.buf, out.len,
				       &err)) {
		cmd_error("%s (the previous file, if any, is untouched)", err.buf);
		rc = EXIT_EXEC;
		goto out;
	}
	rc = r.summary.exit_code;
	if (rc && r.exit_reason && *r.exit_reason)
		cmd_error("%s", r.exit_reason);
	else if (rc)
		cmd_error("the saved report's exit code is %d", rc);
out:
	run_result_release(&r);
	sbuf_release(&text);
	sbuf_release(&out);
	sbuf_release(&err);
	return rc;
}

const struct cmd_entry cmd_report = {
	.name = "report",
	.args = "INPUT.json [--format FMT] [--output FILE]",
	.summary = "re-render a saved JSON report without measuring; exits with its exit code",
	.opts = report_opts,
	.needs_runner = 0,
	.exec = report_exec,
};
