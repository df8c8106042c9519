/*
 * kagari doctor: what this machine can measure and how well.
 *
 * One line per item, `ok|warn|info  item: value — what to do about it`.
 * The examination is measure/doctor.h's, the output report/doctor.h's.
 * Always exits 0: it reports, it does not judge a suite.
 */
#include <stdio.h>
#include <string.h>

#include "base/sbuf.h"
#include "cmd/cmd.h"
#include "model/exit.h"
#include "measure/doctor.h"
#include "report/doctor.h"

struct doctor_cli {
	struct cli_common common;
	struct cli_out out; /* format */
};

static const struct opt doctor_opts[] = {
    {"format", OPT_ENUM, offsetof(struct doctor_cli, out.format), "FMT", "text (default) or json",
     "text|json"},
    {NULL, 0, 0, NULL, NULL, NULL},
};

static int doctor_exec(const void *opts, struct cmd_env *env)
{
	const struct doctor_cli *cli = opts;
	if (cli->common.args.nr) {
		cmd_error("doctor takes no arguments ('%s')", cli->common.args.v[0]);
		return EXIT_USAGE;
	}
	struct doctor d = {NULL, 0, 0};
	const struct doctor_inputs in = {
	    .counters_software = env->counters_software,
	    .alloc_shim = env->alloc_shim,
	    .stdout_tty = env->stdout_tty,
	};
	doctor_examine(&d, &in);
	struct sbuf out = SBUF_INIT;
	if (cli->out.format && !strcmp(cli->out.format, "json"))
		report_doctor_json(&out, &d);
	else
		report_doctor_text(&out, &d);
	fputs(out.buf, stdout);
	sbuf_release(&out);
	doctor_release(&d);
	return EXIT_PASS;
}

const struct cmd_entry cmd_doctor = {
    .name = "doctor",
    .args = "[--format text|json]",
    .summary = "show what this machine can measure and how well",
    .opts = doctor_opts,
    .cli_size = sizeof(struct doctor_cli),
    .exec = doctor_exec,
};
