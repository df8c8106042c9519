/*
 * cmd/common: what several commands share — finding and loading the suites
 * named on the command line, and selecting benchmarks by --filter/--tag.
 * These print their own errors (this is cmd/) and return exit codes.
 */
#ifndef KAGARI_CMD_COMMON_H
#define KAGARI_CMD_COMMON_H

#include <stddef.h>

#include "cmd/cmd.h"
#include "suite/model.h"

struct loaded_suites {
	struct suite **suites;
	size_t nr;
	/* selected[i][b]: benchmark b of suite i is selected */
	unsigned char **selected;
	size_t nr_selected; /* benchmarks selected in all */
};

/*
 * Discover and load every suite of cli->args. On failure (a missing path
 * too) prints all errors and returns EXIT_INVALID; 0 on success.
 */
int common_load(const struct cli *cli, struct loaded_suites *ls);
/*
 * Apply --filter, --tag, --skip-tag. Returns 0, or EXIT_USAGE (printed)
 * for a bad regex or when nothing is selected.
 */
int common_select(const struct cli *cli, struct loaded_suites *ls);
void common_release(struct loaded_suites *ls);

#endif
