/*
 * cmd: the subcommands. Each lives in its own file and exports one
 * `const struct cmd_entry`; cmd.c holds the table and dispatches.
 *
 * cmd/ is the only layer that prints messages for humans, decides exit
 * codes (model/exit.h) or exits. Call order from main():
 *   cmd_find(name) -> if entry->needs_runner: runner_start() -> cmd_exec().
 */
#ifndef KAGARI_CMD_CMD_H
#define KAGARI_CMD_CMD_H

#include <stddef.h>

#include "base/opts.h"
#include "cmd/cli.h"

struct runner;
struct sbuf;

struct cmd_env {
	struct runner *runner; /* started before anything was loaded, or NULL */
	int stdout_tty;
	int stderr_tty;
	/*
	 * Switches main() reads from the environment, passed down as options
	 * (the library below cmd/ reads none of them): software stand-ins
	 * for the hardware counters (KAGARI_TEST_COUNTERS_SOFTWARE=1, for
	 * kagari's own tests), the allocation shim's path (KAGARI_ALLOC_SHIM,
	 * NULL when unset). KAGARI_RUNNER_FORK goes to runner_debug_no_exec().
	 */
	int counters_software;
	const char *alloc_shim;
};

struct cmd_entry {
	const char *name;
	const char *args;    /* usage after the name, e.g. "[options] [PATH...]" */
	const char *summary; /* one line for `kagari help` */
	const struct opt *opts;
	/* sizeof the command's option struct (`struct X_cli`, cmd/cli.h),
	   which starts with struct cli_common; 0: struct cli_common itself. */
	size_t cli_size;
	int needs_runner;
	/* Other spellings of `opts` entries (bench: hyperfine's -r, -N ...),
	   or NULL. The help of the entry names its short form. */
	const struct opt_alias *aliases;
	/* Runs the command on its option struct, as parsed from `opts`
	   (read-only: what a command decides goes to its own structs, such
	   as a session's struct session_config; cmd_exec() frees it
	   afterwards); returns the exit code. */
	int (*exec)(const void *cli, struct cmd_env *env);
};

extern const struct cmd_entry cmd_init, cmd_validate, cmd_list, cmd_run, cmd_compare, cmd_version,
    cmd_help, cmd_power;
extern const struct cmd_entry cmd_ci, cmd_report;
extern const struct cmd_entry cmd_doctor;
extern const struct cmd_entry cmd_history, cmd_merge, cmd_bisect;
extern const struct cmd_entry cmd_completion;
extern const struct cmd_entry cmd_bench, cmd_aa;

/* The i-th command of the table (help's order), NULL past the end. */
const struct cmd_entry *cmd_at(size_t i);
/* NULL when unknown. */
const struct cmd_entry *cmd_find(const char *name);
/* Parse the options of `e` from argv and run it; returns the exit code. */
int cmd_exec(const struct cmd_entry *e, int argc, char **argv, struct cmd_env *env);
/* Full help of one command, generated from its option table. */
void cmd_usage(const struct cmd_entry *e, struct sbuf *out);
/* Top-level help. */
void cmd_overview(struct sbuf *out);
/* Print "kagari: error: MSG" (multi-line MSG is kept) to stderr. */
void cmd_error(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
void cmd_warning(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
/*
 * From now on, cmd_error() and cmd_warning() keep the lines after a
 * message's first from reading as CI workflow commands: each is prefixed
 * "  | " (CR counts as a line break), and with `fence` the message is
 * wrapped in ::stop-commands::TOKEN ... ::TOKEN:: (GitHub). `kagari ci`.
 */
void cmd_guard_workflow_commands(int fence);

/*
 * Under the GitHub guard above: text, in out, with every place a runner
 * would read as a workflow command (a line starting with "::" after white
 * space, "##[" anywhere) broken by an invisible U+200B, so that names from
 * the suite in a report on standard output cannot issue commands. Returns
 * 1 when out holds such a changed copy; 0 (out untouched) when no guard is
 * on or nothing needed breaking. A fence is no answer there: the runner
 * reads stdout and stderr apart, and a fence open on stdout could swallow
 * the annotations ci writes on stderr.
 */
int cmd_workflow_safe_text(const char *text, size_t len, struct sbuf *out);

#endif
