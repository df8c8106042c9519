/*
 * base/completion: the shell completion scripts of `kagari completion`,
 * generated from the same option tables (base/opts.h) that parse the
 * flags and print --help, so that they cannot lag behind them: the
 * command names, each command's --options, the values of enumerated
 * options, file names for FILE arguments and paths, command names after
 * `help` and shell names after `completion`.
 */
#ifndef KAGARI_BASE_COMPLETION_H
#define KAGARI_BASE_COMPLETION_H

#include <stddef.h>

#include "base/opts.h"

struct sbuf;

/* What a command's positional arguments are. */
enum completion_args {
	COMPLETION_FILES, /* suite paths, reports, traces */
	COMPLETION_COMMANDS,
	COMPLETION_SHELLS,
	COMPLETION_NONE,
};

struct completion_command {
	const char *name, *summary;
	const struct opt *opts; /* NULL: none */
	enum completion_args args;
};

/*
 * The script for shell ("bash", "zsh" or "fish") completing `kagari`
 * with the commands cmds[0..n), appended to out. 0, or -1 for another
 * shell (nothing appended).
 */
int completion_script(const char *shell, const struct completion_command *cmds, size_t n,
		      struct sbuf *out);

#endif
