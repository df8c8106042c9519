/* kagari help [CMD]: the overview, or one command's generated help. */
#include <stdio.h>

#include "base/sbuf.h"
#include "cmd/cmd.h"
#include "model/exit.h"

static int help_exec(const void *opts, struct cmd_env *env)
{
	const struct cli_common *cli = opts;
	struct sbuf out = SBUF_INIT;
	int rc = EXIT_PASS;
	if (cli->args.nr == 0) {
		cmd_overview(&out);
	} else {
		const struct cmd_entry *e = cmd_find(cli->args.v[0]);
		if (!e) {
			cmd_error("unknown command '%s' (see 'kagari help')", cli->args.v[0]);
			rc = EXIT_USAGE;
		} else {
			cmd_usage(e, &out);
		}
	}
	fputs(out.buf, stdout);
	sbuf_release(&out);
	return rc;
}

const struct cmd_entry cmd_help = {
    .name = "help",
    .args = "[COMMAND]",
    .summary = "show the commands, or one command's options",
    .exec = help_exec,
};
