/*
 * kagari run [options] [PATH...]: measure suites on their own (the head
 * side only), check budgets, and report.
 */
#include <stdlib.h>

#include "base/xalloc.h"
#include "cmd/cmd.h"
#include "cmd/session.h"

struct run_cli {
	struct cli_common common;
	struct suite_selection selection;
	struct cli_out out;
	struct cli_measure measure;
	struct cli_record record;
	struct cli_shard shard;
};

static const struct opt run_opts[] = {
    OPT_COMMON_MEASURE(struct run_cli),
    {NULL, 0, 0, NULL, NULL, NULL},
};

static int run_exec(const void *opts, struct cmd_env *env)
{
	const struct run_cli *cli = opts;
	struct session_config cfg = {
	    .mode = "run",
	    .tmp_prefix = "kagari",
	    .paths = &cli->common.args,
	    .selection = &cli->selection,
	    .measure = &cli->measure,
	    .shard = &cli->shard,
	};
	session_config_out(&cfg, &cli->out);
	session_config_record(&cfg, &cli->record);
	struct session s;
	int rc = session_prepare(&s, &cfg, env);
	if (!rc) {
		for (size_t i = 0; i < s.ls.nr && !s.r.interrupted; i++) {
			const struct suite *su = s.ls.suites[i];
			char *side_tmp = xstrfmt("%s/s%zu-head", s.tmp, i);
			struct execute_side sides[SIDE__COUNT] = {
			    [SIDE_BASE] = {.present = 0},
			    [SIDE_HEAD] = {.present = 1,
					   .root = su->root,
					   .head_root = su->root,
					   .tmpdir = side_tmp},
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
    .cli_size = sizeof(struct run_cli),
    .needs_runner = 1,
    .exec = run_exec,
};
