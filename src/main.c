/*
 * kagari's entry point: make fds 0-2 sane, ignore SIGPIPE, start the runner
 * process for commands that measure (before any suite is loaded, so measured
 * children inherit a tiny RSS high-water mark), and dispatch.
 */
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "base/sbuf.h"
#include "cmd/cmd.h"
#include "model/exit.h"
#include "measure/runner.h"

static void sane_fds(void)
{
	/* A closed 0/1/2 would be reused by the next open() and mixed up. */
	for (int fd = 0; fd < 3; fd++)
		if (fcntl(fd, F_GETFD) < 0) {
			int n = open("/dev/null", fd ? O_WRONLY : O_RDONLY);
			if (n >= 0 && n != fd) {
				dup2(n, fd);
				close(n);
			}
		}
}

int main(int argc, char **argv)
{
	sane_fds();
	signal(SIGPIPE, SIG_IGN);

	if (argc < 2) {
		struct sbuf out = SBUF_INIT;
		cmd_overview(&out);
		fputs(out.buf, stderr);
		sbuf_release(&out);
		return EXIT_USAGE;
	}
	const char *name = argv[1];
	if (!strcmp(name, "--help") || !strcmp(name, "-h"))
		name = "help";
	else if (!strcmp(name, "--version") || !strcmp(name, "-V"))
		name = "version";
	const struct cmd_entry *e = cmd_find(name);
	if (!e) {
		cmd_error("unknown command '%s' (see 'kagari help')", argv[1]);
		return EXIT_USAGE;
	}

	const char *sw = getenv("KAGARI_TEST_COUNTERS_SOFTWARE");
	struct cmd_env env = {
	    .runner = NULL,
	    .stdout_tty = isatty(1),
	    .stderr_tty = isatty(2),
	    .counters_software = sw && !strcmp(sw, "1"),
	    .alloc_shim = getenv("KAGARI_ALLOC_SHIM"),
	};
	struct runner runner;
	int have_runner = 0;
	if (e->needs_runner) {
		struct sbuf err = SBUF_INIT;
		/* KAGARI_RUNNER_FORK: the runner stays a fork of kagari, so
		   that `make memcheck` traces its code too. */
		runner_debug_no_exec(getenv("KAGARI_RUNNER_FORK") != NULL);
		if (runner_start(&runner, &err)) {
			cmd_error("cannot start the runner process: %s", err.buf);
			sbuf_release(&err);
			return EXIT_INTERNAL;
		}
		sbuf_release(&err);
		env.runner = &runner;
		have_runner = 1;
	}
	int rc = cmd_exec(e, argc - 2, argv + 2, &env);
	if (have_runner)
		runner_stop(&runner);
	/* A failed write to stdout is an execution failure, which outranks
	   6 and 1 (docs/contract.md); a report writer may have said so already. */
	if ((fflush(stdout) != 0 || ferror(stdout)) &&
	    (rc == EXIT_PASS || rc == EXIT_FAIL || rc == EXIT_UNSUPPORTED)) {
		cmd_error("could not write to standard output");
		rc = EXIT_EXEC;
	}
	return rc;
}
