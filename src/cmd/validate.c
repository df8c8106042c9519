/* kagari validate [PATH...]: load and check suites, run nothing. */
#include <stdio.h>

#include "cmd/cmd.h"
#include "cmd/common.h"
#include "model/exit.h"

static int validate_exec(const void *opts, struct cmd_env *env)
{
	const struct cli_common *cli = opts;
	struct loaded_suites ls;
	int rc = common_load(&cli->args, &ls);
	if (rc == 0) {
		for (size_t i = 0; i < ls.nr; i++) {
			size_t cmds = 0;
			for (size_t b = 0; b < ls.suites[i]->nr_benches; b++)
				cmds += ls.suites[i]->benches[b].nr_commands;
			printf("%s: ok (suite '%s', %zu benchmark%s, %zu command%s)\n",
			       ls.suites[i]->file, ls.suites[i]->name, ls.suites[i]->nr_benches,
			       ls.suites[i]->nr_benches == 1 ? "" : "s", cmds,
			       cmds == 1 ? "" : "s");
			/* A warning, not an error: the suite still runs and
			   `run` measures it; only its compare cannot fail. */
			common_warn_power(ls.suites[i]);
		}
	}
	suites_release(&ls);
	return rc;
}

const struct cmd_entry cmd_validate = {
    .name = "validate",
    .args = "[PATH...]",
    .summary = "check suite files and list every error at once; run nothing",
    .exec = validate_exec,
};
