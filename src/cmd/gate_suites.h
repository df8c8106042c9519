/*
 * cmd/gate_suites: the suites a compare judges the change by when the
 * base's rules gate (`ci`, `--suite-from base`): the base revision's own
 * suites, found by the rule the working tree's are found by
 * (suite/discover.h) in the base commit's tree, so that deleting,
 * renaming, moving or shadowing a suite file changes nothing about what
 * gates.
 *
 * Which suites run, in this order:
 *   - every suite the base finds, its base copy, gating (suite_from
 *     "base"). A file argument the base lacks stands for its folder (the
 *     base's suites there, by the folder rule);
 *   - every suite of the working tree that matches none of those, the
 *     working tree's copy, measured and reported but not gating (its
 *     metrics' `gate` off, its budgets dropped: suite_ungate()): it gates
 *     from the next change on (suite_from "head", gating 0);
 *   - where the base finds no suite at all (the change that adopts
 *     kagari), the working tree's suites, gating, as `compare` runs them
 *     (suite_from "head"); with an explicit --suite-from base that is an
 *     error instead.
 * A working-tree suite matches a base suite at the same path in the
 * repository, else one of the same `name`; each matches at most once.
 * Everything is said in `notes` (one line per suite that differs), to be
 * said before anything is built.
 */
#ifndef KAGARI_CMD_GATE_SUITES_H
#define KAGARI_CMD_GATE_SUITES_H

#include "base/strvec.h"
#include "cmd/cli.h"
#include "cmd/common.h"

struct gate_suites {
	struct loaded_suites ls; /* the suites both sides run (not selected yet) */
	const char **from;	 /* per suite of ls: "base" or "head" */
	unsigned char *gating;	 /* per suite of ls: 1 when its comparisons gate */
	struct strvec notes;	 /* lines to say before measuring */
	struct strvec replaced;	 /* the working tree's suite files a base copy runs for */
};

/*
 * Fill g for a comparison with base_ref of the suites `paths` name (the
 * command's PATH arguments). sel: --filter and --tag, for the benchmarks
 * a copy leaves out. explicit_base: --suite-from base was given (a base
 * without any suite is then an error). Returns 0, or the exit code to stop
 * with (printed): 2 an invalid suite, 3 no base suite with an explicit
 * --suite-from base, 4 git could not read the base.
 */
int gate_suites_find(const struct strvec *paths, const struct cli_selection *sel,
		     const char *base_ref, int explicit_base, struct gate_suites *g);
void gate_suites_release(struct gate_suites *g);

#endif
