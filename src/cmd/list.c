/* kagari list: the benchmarks and commands a selection would run. */
#include <stdio.h>
#include <string.h>

#include "base/sbuf.h"
#include "cmd/cmd.h"
#include "cmd/common.h"
#include "model/exit.h"
#include "report/list.h"

#include <stdlib.h>

struct list_cli {
	struct cli_common common;
	struct suite_selection selection;
	struct cli_out out; /* format */
};

static const struct opt list_opts[] = {
    OPT_COMMON_SELECTION(struct list_cli),
    {"format", OPT_ENUM, offsetof(struct list_cli, out.format), "FMT", "text (default) or json",
     "text|json"},
    {NULL, 0, 0, NULL, NULL, NULL},
};

static int list_exec(const void *opts, struct cmd_env *env)
{
	const struct list_cli *cli = opts;
	struct loaded_suites ls;
	int rc = common_load(&cli->common.args, &ls);
	if (!rc)
		rc = common_select(&cli->selection, &ls);
	if (!rc) {
		struct sbuf out = SBUF_INIT;
		if (cli->out.format && !strcmp(cli->out.format, "json"))
			report_list_json(&out, ls.suites, ls.nr, ls.selected);
		else
			report_list_text(&out, ls.suites, ls.nr, ls.selected);
		fputs(out.buf, stdout);
		sbuf_release(&out);
	}
	suites_release(&ls);
	return rc;
}

const struct cmd_entry cmd_list = {
    .name = "list",
    .args = "[--filter RE] [--tag T] [--skip-tag T] [--format text|json] [PATH...]",
    .summary = "list the benchmarks and commands a selection would run",
    .opts = list_opts,
    .cli_size = sizeof(struct list_cli),
    .exec = list_exec,
};
