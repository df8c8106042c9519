/*
 * kagari init [--force] [PATH]: write a small, runnable suite to start from.
 * It never overwrites an existing file unless --force is given. The suite
 * leaves `runs` unset, so compare decides sequentially: a fixed count
 * small enough to look thrifty (runs: 10, five rounds) could never give a
 * p below Holm's threshold, and the gate could never fail. What it wrote
 * is loaded and checked as `validate` would, warnings included.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "base/fileio.h"
#include "base/sbuf.h"
#include "base/xalloc.h"
#include "cmd/cmd.h"
#include "cmd/common.h"
#include "cmd/exit.h"
#include "suite/load.h"

static const char starter_suite[] =
    "# kagari suite: what to measure, and the limits it must stay within.\n"
    "# Check it with `kagari validate`, measure it with `kagari run`,\n"
    "# compare with a git revision with `kagari compare --against main`.\n"
    "version: \"1\"\n"
    "name: my-project\n"
    "\n"
    "# build:                      # optional: build the program under test;\n"
    "#   command: [cc, -O2, -o, \"${artifact}\", main.c]   # then run \"${artifact}\"\n"
    "\n"
    "defaults:\n"
    "  warmup: 1                   # unmeasured runs first\n"
    "  # runs: unset, so compare measures in rounds until every gated\n"
    "  # comparison is decided (at most max_runs); a fixed `runs: N` must\n"
    "  # give enough rounds to ever reach significance (validate warns)\n"
    "  timeout: 1m                 # per run; the whole process tree is killed\n"
    "  metrics:                    # latency is always measured; these are on request\n"
    "    cpu: true                 # cpu_user, cpu_system, cpu_total, cpu_utilization\n"
    "    memory: true              # peak_rss\n"
    "    # counters: true          # instructions, cycles, ... (perf or valgrind)\n"
    "    # allocations: true       # allocs, alloc_bytes, peak_heap (LD_PRELOAD shim)\n"
    "    # syscalls: true          # system calls per run, by name (tracepoints)\n"
    "\n"
    "benchmarks:\n"
    "  - name: sort-numbers\n"
    "    tags: [smoke]\n"
    "    commands:\n"
    "      sort:\n"
    "        command: \"seq 100000 | sort -rn > /dev/null\"\n"
    "        shell: true\n"
    "        budget:\n"
    "          latency: {p95: \"<= 5s\"}\n"
    "          peak_rss: {max: \"<= 256MiB\"}\n"
    "      sort-stable:\n"
    "        command: \"seq 100000 | sort -s -rn > /dev/null\"\n"
    "        shell: true\n"
    "  - name: list-root\n"
    "    commands:\n"
    "      ls:\n"
    "        command: [ls, -l, /]     # argv form: no shell involved\n";

struct init_cli {
	struct cli_common common;
	int force; /* --force */
};

static int init_exec(const void *opts, struct cmd_env *env)
{
	const struct init_cli *cli = opts;
	if (cli->common.args.nr > 1) {
		cmd_error("init takes at most one PATH");
		return EXIT_USAGE;
	}
	const char *arg = cli->common.args.nr ? cli->common.args.v[0] : "kagari.yaml";
	struct stat st;
	char *path = (stat(arg, &st) == 0 && S_ISDIR(st.st_mode)) ? xstrfmt("%s/kagari.yaml", arg)
								  : xstrdup(arg);
	int rc = EXIT_PASS;
	if (lstat(path, &st) == 0 && !cli->force) {
		cmd_error("'%s' already exists; not overwriting it (use --force to replace it)",
			  path);
		rc = EXIT_USAGE;
	} else {
		struct sbuf err = SBUF_INIT;
		if (fileio_write_atomic(path, starter_suite, strlen(starter_suite), &err)) {
			cmd_error("%s", err.buf);
			rc = EXIT_EXEC;
		} else {
			printf("wrote %s: try 'kagari validate %s' and 'kagari run %s'\n", path,
			       path, path);
			sbuf_reset(&err);
			struct suite *su = suite_load(path, &err);
			if (su)
				common_warn_power(su);
			else
				cmd_warning("the suite written does not load: %s", err.buf);
			suite_free(su);
		}
		sbuf_release(&err);
	}
	free(path);
	return rc;
}

static const struct opt init_opts[] = {
    {"force", OPT_BOOL, offsetof(struct init_cli, force), NULL, "overwrite an existing file", NULL},
    {NULL, 0, 0, NULL, NULL, NULL},
};

const struct cmd_entry cmd_init = {
    .name = "init",
    .args = "[--force] [PATH]",
    .summary = "write a runnable starter suite (kagari.yaml)",
    .opts = init_opts,
    .cli_size = sizeof(struct init_cli),
    .exec = init_exec,
};
