/*
 * kagari completion bash|zsh|fish: a shell completion script, generated
 * (base/completion.h) from the command table and each command's option
 * table.
 *
 *   source <(kagari completion bash)
 *   kagari completion zsh > "${fpath[1]}/_kagari"
 *   kagari completion fish > ~/.config/fish/completions/kagari.fish
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/completion.h"
#include "base/sbuf.h"
#include "base/xalloc.h"
#include "cmd/cmd.h"
#include "model/exit.h"

static int completion_exec(const void *opts, struct cmd_env *env)
{
	const struct cli_common *cli = opts;
	(void)env;
	if (cli->args.nr != 1) {
		cmd_error("completion needs one shell: bash, zsh or fish");
		return EXIT_USAGE;
	}
	const char *sh = cli->args.v[0];
	struct sbuf out = SBUF_INIT;
	size_t n = 0;
	while (cmd_at(n))
		n++;
	struct completion_command *cmds = xcalloc(n + 1, sizeof(*cmds));
	for (size_t i = 0; i < n; i++) {
		const struct cmd_entry *e = cmd_at(i);
		cmds[i] =
		    (struct completion_command){e->name, e->summary, e->opts,
						!strcmp(e->name, "help")      ? COMPLETION_COMMANDS
						: e == &cmd_completion	      ? COMPLETION_SHELLS
						: !strcmp(e->name, "version") ? COMPLETION_NONE
									      : COMPLETION_FILES};
	}
	int bad = completion_script(sh, cmds, n, &out);
	free(cmds);
	if (bad) {
		cmd_error("unknown shell '%s': bash, zsh or fish", sh);
		sbuf_release(&out);
		return EXIT_USAGE;
	}
	fputs(out.buf, stdout);
	int rc = fflush(stdout) || ferror(stdout) ? EXIT_EXEC : EXIT_PASS;
	if (rc)
		cmd_error("cannot write the completion script to standard output");
	sbuf_release(&out);
	return rc;
}

const struct cmd_entry cmd_completion = {
    .name = "completion",
    .args = "bash|zsh|fish",
    .summary = "print a shell completion script (generated from the option tables)",
    .exec = completion_exec,
};
