/*
 * kagari run [options] [PATH...]: measure suites on their own (the head
 * side only), check budgets, and report.
 */
#include <stdlib.h>

#include "base/xalloc.h"
#include "cmd/cmd.h"
#include "cmd/session.h"

static const struct opt run_opts[] = {
	OPT_COMMON_MEASURE,
	{ NULL, 0, 0, NULL, NULL, NULL },
};

static int run_exec(struct cli *cli, struct cmd_env *env)
{
	struct session s;
	int rc = session_prepare(&s, cli, env, "run", "kagari");
	if (!rc) {
		for (size_t i = 0; i < s.ls.nr && !s.r.interrupted; i++) {
			const struct suite *su = s.ls.suites[i];
			char *side_tmp = xstrfmt("%s/s%zu-head", s.tmp, i);
			struct execute_side sides[SIDE__COUNT] = {
				[SIDE_BASE] = { .present = 0 },
				[SIDE_HEAD] = { .present = 1, .root = su->root,
						.head_root = su->root,
						.tmpdir = side_tmp },
			};
			session_measure_suite(&s, i, sides);
			free(side_tmp);
		}
		rc = session_finish(&s);
	}
	session_release(&s);
	return rc;
}

const struct cmd_entry cmd_run = {
	.name = "run",
	.args = "[options] [PATH...]",
	.summary = "measure suites, check budgets and report",
	.opts = run_opts,
	.needs_runner = 1,
	.exec = run_exec,
};
