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
 *	... runner_run(&r, &req, &res, &err), runner_run_child(&r, &c, &err)
 *	    or runner_run_batch(&r, &batch, &err), any number of times, one
 *	    at a time ...
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
 * wake-up from idle. Together with child_spawn.c's cached spawn attributes this
 * keeps a run of /bin/true within a few percent of a bare posix_spawn+wait4
 * loop (bench/overhead.sh). Whole rounds of runs go as one batch
 * (runner_run_batch below), so that neither process wakes the other
 * between the runs of a batch.
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
 * When the runner dies (a measured command may `kill -9 $PPID`), the
 * request it was serving fails with a reason that says so; kagari, a child
 * subreaper since runner_start(), kills and reaps what the run left behind
 * (the command, its group, escaped descendants), and the next request
 * starts a fresh runner (from kagari-runner when there is one, else a fork
 * of kagari as it is then, whose larger RSS becomes the floor of later peak
 * RSS readings).
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
#include "proc/child.h"

struct runner {
	pid_t pid;		/* -1 when not running */
	int fd;			/* our end of the socketpair, -1 when closed */
	struct sbuf frame;	/* reused send/receive buffer */
	struct sbuf last;	/* the last request sent (see the protocol) */
	struct sbuf table;	/* a batch's request table, encoded */
	struct sbuf last_table; /* the table the runner holds */
	int lost;		/* the runner died mid-request: restart at the next one */
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
	unsigned flags;	    /* RUNNER_CLEAR_INTERRUPT, CHILD_SAME_PGROUP,
			       CHILD_TERMINAL */
	/* Batches only (runner_run_batch): the exit codes that count as
	   success; none (NULL) = just 0. A run that ends otherwise (or by a
	   signal, a timeout, an interrupt, or does not start) fails. */
	const int *ok_codes;
	size_t nr_ok_codes;
	/* Memory-layout noise: >= 0 runs the command with
	   RUNNER_LAYOUT_PAD_ENV=<that many bytes> appended to its environment
	   (an inherited definition dropped); -1 (the default) adds nothing.
	   At most RUNNER_LAYOUT_PAD_MAX. In a batch the entry's pad counts,
	   not the request's (runner_batch_add). */
	int layout_pad;
};

/*
 * The variable of layout_pad: its length shifts where the stack (and what
 * is laid out after the environment) starts, so that alignment effects on
 * timings become noise shared by both sides (docs/statistics.md).
 */
#define RUNNER_LAYOUT_PAD_ENV "KAGARI_LAYOUT_PAD"
#define RUNNER_LAYOUT_PAD_MAX 65536

#define RUNNER_REQUEST_INIT                                                                        \
	{                                                                                          \
		.in_fd = -1, .out_fd = -1, .err_fd = -1, .grace_ns = CHILD_DEFAULT_GRACE_NS,       \
		.layout_pad = -1                                                                   \
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
 * not set up, or the runner itself died: the next call starts a new one).
 */
int runner_run(struct runner *r, const struct runner_request *req, struct child_result *res,
	       struct sbuf *err);

/*
 * Batches: many runs for one request and one answer, so that kagari sleeps
 * through them and the runner goes from one run to the next without waiting
 * for kagari (two process wake-ups saved per run). A batch is a table of
 * requests (a command, a hook) and a list of entries, each naming a request
 * and a unit (the caller's id for "one command on one side", below
 * RUNNER_MAX_UNIT); the runner runs the entries in order, and:
 *
 *   - after an entry fails (see ok_codes above), the later entries of the
 *     same unit are not run;
 *   - an entry flagged RUNNER_BARRIER (the caller's round boundary) stops
 *     the batch when any entry before it failed: it and the rest are not
 *     run (stop = RUNNER_STOP_BARRIER), so that the caller can plan the
 *     rest anew knowing the failure;
 *   - a pending interrupt (runner_interrupt()) before an entry, or a run
 *     that was interrupted, stops the batch (RUNNER_STOP_INTERRUPT); the
 *     interrupt is consumed as with runner_run(). Entries whose request has
 *     RUNNER_CLEAR_INTERRUPT drop a pending interrupt and run.
 *
 * Entries not run come back with res.status CHILD_NOT_RUN. Descriptors
 * (CHILD_IN_FD, CHILD_OUT_FD) cannot travel in a batch. The table is sent
 * only when it differs from the previous batch's.
 *
 *	struct runner_batch b = RUNNER_BATCH_INIT;
 *	size_t q = runner_batch_request(&b, &req);   borrowed until run
 *	size_t e = runner_batch_add(&b, q, unit, flags);   any number of
 *	b.entry[e].layout_pad = pad;                 times; the pad optional
 *	runner_run_batch(&r, &b, &err);              outcomes in b.entry[i]
 *	runner_batch_reset(&b);                      for the next batch
 *	runner_batch_release(&b);
 */
#define RUNNER_BARRIER 0x1 /* runner_batch_add flags */
#define RUNNER_MAX_UNIT (1u << 20)

enum runner_stop {
	RUNNER_STOP_NONE = 0,  /* every entry was run or skipped by its unit */
	RUNNER_STOP_BARRIER,   /* stopped at a barrier after a failure */
	RUNNER_STOP_INTERRUPT, /* stopped by an interrupt */
};

struct runner_batch_entry {
	size_t request; /* index into the batch's requests */
	unsigned unit;
	unsigned flags;		 /* RUNNER_BARRIER */
	int layout_pad;		 /* as in runner_request; -1 after _add */
	struct child_result res; /* the outcome (CHILD_NOT_RUN: not run) */
	struct sbuf error;	 /* the reason when res.code < 0 */
};

struct runner_batch {
	struct runner_request *req; /* copies; their pointers are borrowed */
	size_t nr_req, alloc_req;
	struct runner_batch_entry *entry;
	size_t nr, alloc, init; /* init: entries with buffers set up */
	enum runner_stop stop;	/* set by runner_run_batch */
};

#define RUNNER_BATCH_INIT                                                                          \
	{                                                                                          \
		.req = NULL                                                                        \
	}

/* Add a request to the table; returns its index. */
size_t runner_batch_request(struct runner_batch *b, const struct runner_request *req);
/* Add an entry: run request `request` for `unit`; returns its index. */
size_t runner_batch_add(struct runner_batch *b, size_t request, unsigned unit, unsigned flags);
/* Forget requests and entries (keeping buffers for the next batch). */
void runner_batch_reset(struct runner_batch *b);
void runner_batch_release(struct runner_batch *b);

/*
 * Run a batch through the runner and wait for all of it. Returns 0 when the
 * runner answered (outcomes in b->entry, b->stop says whether and why it
 * stopped early); -1 with a reason in err when the batch could not be run
 * (an invalid request, or the runner died: the next call starts a new one):
 * every entry then has res.status CHILD_ERROR and the reason in its error.
 */
int runner_run_batch(struct runner *r, struct runner_batch *b, struct sbuf *err);

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
 * The body of the kagari-runner program (src/runner_main.c, which parses
 * `--serve FD TOKEN`): serve socket fd until it closes, then exit. Returns
 * -1 (without serving) only when token is not this build's protocol token.
 */
int runner_serve(int fd, const char *token);

/*
 * Test hook: 1 = never exec kagari-runner (the runner is a plain fork).
 * main() sets it from KAGARI_RUNNER_FORK before runner_start(); nothing
 * below cmd/ reads the environment for it.
 */
void runner_debug_no_exec(int on);

/*
 * The kagari-runner program runner_start() would exec, in *path: next to
 * this executable (the build tree), else in ../lib/kagari/ or
 * ../libexec/kagari/ from it (an installed tree, wherever it was moved).
 * Empty when there is none (the runner is then a plain fork).
 */
void runner_program_path(struct sbuf *path);

#endif
