/*
 * runner: a tiny helper process that starts and measures commands for
 * kagari.
 *
 * Why: posix_spawn has vfork semantics, and the kernel carries the RSS
 * high-water mark of the process that spawns into the child's ru_maxrss. If
 * kagari itself (grown by a loaded suite, JSON, bootstrap arrays) spawned the
 * measured commands, their peak RSS would never read below kagari's. So
 * main() starts the runner first thing: it forks and execs the small static
 * program kagari-runner (RUNNER_PROGRAM, src/runner_main.c), looked for next
 * to kagari's executable, then in ../lib/kagari/ and ../libexec/kagari/ from
 * there, whose whole resident set (~0.7 MiB) is below that of the smallest
 * dynamically linked command, so /bin/true reads what /usr/bin/time says.
 * Without that
 * program (or when it does not answer), the runner is a plain fork of
 * kagari, taken while kagari is still small (~1.2 MiB resident, which then
 * is the floor of every peak RSS). Either way the runner resets its own
 * high-water mark, becomes a child subreaper (so escaped descendants of a
 * command come back to it to be killed), and runs every command kagari asks
 * for through child.h, answering with the outcome.
 *
 * Call order:
 *
 *	struct runner r;
 *	runner_start(&r, &err);           first thing in main, before the
 *	                                  suite is loaded
 *	... runner_run(&r, &req, &res, &err) or runner_run_child(&r, &c, &err),
 *	    any number of times, one at a time ...
 *	runner_stop(&r);                  closes the socket, reaps the runner
 *
 * Protocol: requests and answers are compact binary frames over a private
 * AF_UNIX socketpair (both ends close-on-exec; the runner's end is passed
 * to kagari-runner by number); descriptors for CHILD_IN_FD / CHILD_OUT_FD
 * travel as SCM_RIGHTS. The runner's per-run work allocates nothing once its
 * buffers have grown.
 *
 * Per-run cost: measured runs repeat one request, so a request identical to
 * the previous one is sent as an 8-byte "repeat" frame; and after answering,
 * the runner polls its socket for a short while (100 us) before it blocks,
 * so that the next request usually finds it awake instead of costing a
 * wake-up from idle. Together with child.c's cached spawn attributes this
 * keeps a run of /bin/true within a few percent of a bare posix_spawn+wait4
 * loop (bench/overhead.sh).
 *
 * Lifetime and signals: the runner sits in its own process group, so a
 * Ctrl-C on the terminal reaches only kagari; kagari forwards SIGINT/SIGTERM
 * with runner_interrupt() (async-signal-safe). The runner then stops the
 * running command's group (SIGTERM, grace, SIGKILL) and answers with
 * res.interrupted set; an interrupt that arrives between runs stops the next
 * run at once unless its request carries RUNNER_CLEAR_INTERRUPT (use it for
 * cleanup hooks run after an interrupt). When kagari dies, the socket
 * closes: the runner stops the running command the same way and exits.
 *
 * The runner's environment and working directory are kagari's at
 * runner_start(): relative paths in requests are resolved against that
 * directory, and a NULL envp means that environment.
 */
#ifndef KAGARI_MEASURE_RUNNER_H
#define KAGARI_MEASURE_RUNNER_H

#include <stdint.h>
#include <sys/types.h>

#include "base/sbuf.h"
#include "measure/child.h"

struct runner {
	pid_t pid;	   /* -1 when not running */
	int fd;		   /* our end of the socketpair, -1 when closed */
	struct sbuf frame; /* reused send/receive buffer */
	struct sbuf last;  /* the last request sent (see the protocol) */
};

/* req.flags */
#define RUNNER_CLEAR_INTERRUPT 0x100 /* drop a pending interrupt first */
/* CHILD_SAME_PGROUP (child.h) may be passed through too. */

/*
 * One command to run. Every pointer is borrowed for the duration of
 * runner_run() only. Fields mean what the same-named fields of struct child
 * mean (child.h); a zeroed request is NOT valid (fds would be 0): start from
 * RUNNER_REQUEST_INIT.
 */
struct runner_request {
	const char *const *argv; /* NULL-terminated; argv[0] the program */
	const char *const *envp; /* full environment; NULL = the runner's.
				    From a strvec: `sv.nr ? sv.v : NULL`
				    unless an empty environment is meant */
	const char *dir;	 /* working directory or NULL */
	enum child_in in;
	const char *in_path;
	const void *in_data;
	size_t in_len;
	int in_fd;
	enum child_out out, err;
	const char *out_path, *err_path;
	int out_fd, err_fd;
	int64_t timeout_ns; /* 0 = no limit */
	int64_t grace_ns;   /* default CHILD_DEFAULT_GRACE_NS */
	unsigned flags;	    /* RUNNER_CLEAR_INTERRUPT, CHILD_SAME_PGROUP */
};

#define RUNNER_REQUEST_INIT                                                    \
	{                                                                      \
		.in_fd = -1, .out_fd = -1, .err_fd = -1,                       \
		.grace_ns = CHILD_DEFAULT_GRACE_NS                             \
	}

void runner_request_init(struct runner_request *req);

/*
 * Fork the runner. Returns 0, or -1 with a reason in err (r is then not
 * running, and runner_stop() is a no-op). Call it before this process
 * grows, and before installing a SIGCHLD handler that reaps.
 */
int runner_start(struct runner *r, struct sbuf *err);

/*
 * Run one command through the runner and wait for it. The outcome goes into
 * `res` (a struct child_result initialised with CHILD_RESULT_INIT or
 * child_result_init; its buffers are reused). Returns what child_run()
 * would: the exit code, 128+signal, or -1 with a reason in err, where
 * res->status is CHILD_SPAWN_FAILED (could not start) or CHILD_ERROR (could
 * not set up, or the runner itself died: then r is no longer usable).
 */
int runner_run(struct runner *r, const struct runner_request *req,
	       struct child_result *res, struct sbuf *err);

/*
 * Convenience: run a struct child (its argv, env, dir, stdio, timeout,
 * grace, flags; not watch_fd) through the runner, filling c->res, so that
 * callers can build one struct child and choose child_run() or the runner.
 */
int runner_run_child(struct runner *r, struct child *c, struct sbuf *err);

/*
 * Async-signal-safe: forward an interrupt (SIGINT) to the runner, which
 * stops the command it is running (see above). No-op when not running.
 */
void runner_interrupt(const struct runner *r);

/* Close the socket, wait for the runner to exit, free buffers. Idempotent. */
void runner_stop(struct runner *r);

/* The runner's pid, or -1. */
pid_t runner_pid(const struct runner *r);

/* The name of the separate runner program (see the header comment). */
#define RUNNER_PROGRAM "kagari-runner"

/*
 * main() of the kagari-runner program (src/runner_main.c): serves the
 * socket runner_start() passed on its command line until it closes, then
 * exits; returns only (2) when started any other way.
 */
int runner_program_main(int argc, char **argv);

/* Test hook: 1 = never exec kagari-runner (the runner is a plain fork). */
void runner_debug_no_exec(int on);

#endif
