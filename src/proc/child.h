/*
 * child: the one module that starts processes (git's run-command idea).
 *
 * Measured runs, hooks, builds and git all come through child_run(). A run
 * spawns one program with posix_spawn (vfork semantics: no copy of our
 * memory), in a new process group, with an empty signal mask and default
 * signal dispositions, no inherited descriptors beyond 0-2, and waits for
 * it; it returns how the program ended and what it cost.
 *
 * Call order:
 *
 *	struct child c = CHILD_INIT;         (or child_init(&c))
 *	strvec_pushv(&c.argv, ...);          argv[0] without '/' is looked
 *	                                     up on the PATH of c.env (or of
 *	                                     our environ when c.env is empty)
 *	c.dir = "...";  c.in = CHILD_IN_CONTENT;  c.timeout_ns = ...;  ...
 *	int code = child_run(&c, &err);      may be called again: every run
 *	                                     reopens stdin and files and
 *	                                     resets c.res
 *	... read c.res ...
 *	child_release(&c);                   frees argv, env and c.res
 *
 * Return value of child_run(): the exit code (0..255), or 128+N when the
 * program died of signal N (the name is proc_signal_name(c.res.signal)), or
 * -1 when it could not be started or the run could not be set up; then a
 * reason is appended to err and c.res.status says which (CHILD_SPAWN_FAILED
 * with c.res.spawn_errno = ENOENT for "command not found", EACCES for "not
 * executable"; CHILD_ERROR for anything else, e.g. an unreadable stdin
 * file). A run stopped by its timeout or by child_interrupt() still returns
 * its (signal) status; c.res.timed_out / c.res.interrupted say why.
 *
 * Descriptors: child_run() opens and closes everything it uses; every
 * descriptor it opens is O_CLOEXEC. Descriptors the caller passes with
 * CHILD_IN_FD / CHILD_OUT_FD stay the caller's (they are dup'ed into place
 * in the child, never closed here). Paths in in_path/out_path/err_path are
 * opened by this process, relative to ITS working directory (not c.dir):
 * pass absolute paths when in doubt.
 *
 * Measurement: wall time on CLOCK_MONOTONIC from just before the spawn until
 * the exit is noticed; user/system time and peak RSS from wait4() of that
 * one pid (its own usage plus that of the descendants it waited for; never
 * RUSAGE_CHILDREN totals). Note that the kernel carries the spawning
 * process's RSS high-water mark into the child's ru_maxrss, which is why
 * measured runs go through the tiny runner process (runner.h).
 *
 * Cleanup: when the run times out or is interrupted, the process group gets
 * SIGTERM, then after grace_ns SIGKILL. Whatever way the main program ends,
 * anything left in its process group is killed, and when this process is a
 * child subreaper (proc_become_subreaper()) every descendant that escaped
 * (setsid, double fork) and was reparented to us is killed and reaped too,
 * so nothing the run started is left running. Children this process already
 * had before the run are left alone.
 *
 * Not thread-safe: one run at a time per process (the interrupt hook and the
 * cached /dev/null and stderr-tail descriptors are process-wide).
 */
#ifndef KAGARI_PROC_CHILD_H
#define KAGARI_PROC_CHILD_H

#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "base/sbuf.h"
#include "base/strvec.h"

struct sbuf;

#define CHILD_DEFAULT_GRACE_NS INT64_C(2000000000)
/* Bytes of stderr kept in c.res.stderr_tail for error messages. */
#define CHILD_TAIL_MAX 2048
/* Captured output beyond this is read and dropped (res.*_truncated set). */
#define CHILD_CAPTURE_MAX ((size_t)64 << 20)

enum child_in {
	CHILD_IN_NULL = 0, /* /dev/null */
	CHILD_IN_FILE,	   /* in_path, opened read-only anew each run */
	CHILD_IN_CONTENT,  /* the in_len bytes at in_data, from offset 0 */
	CHILD_IN_INHERIT,  /* our stdin */
	CHILD_IN_FD,	   /* in_fd (the caller's), dup'ed onto 0 */
};

enum child_out {
	/* /dev/null; for stderr a private memfd, to read the tail from */
	CHILD_OUT_DISCARD = 0,
	CHILD_OUT_FILE,	   /* out_path / err_path, created or truncated */
	CHILD_OUT_CAPTURE, /* into c.res.out / c.res.err, via pipes */
	CHILD_OUT_INHERIT, /* our stdout / stderr */
	CHILD_OUT_FD,	   /* out_fd / err_fd (the caller's) */
};

/* c.flags */
/* Stay in our process group (never for measured runs). */
#define CHILD_SAME_PGROUP 0x1
/*
 * Run on a pseudo-terminal of CHILD_TERMINAL_COLS x CHILD_TERMINAL_ROWS:
 * the slave is the program's stdin, stdout, stderr and controlling
 * terminal (it runs in a session of its own; CHILD_SAME_PGROUP is then
 * ignored). The stdin content or file (in = CONTENT or FILE; NULL: none)
 * is typed into the terminal once the program is ready — when it has
 * written its first output, or CHILD_TERMINAL_READY_NS after the start,
 * whichever comes first — followed by end-of-file (the terminal's VEOF,
 * Ctrl-D; twice after a last line without a newline, once alone without
 * stdin). What the terminal shows (output and echoed input) is read as it
 * comes: discarded, written to out_path (out = FILE) or captured into
 * res.out (out = CAPTURE); stderr must be DISCARD, and res.stderr_tail is
 * the last CHILD_TAIL_MAX bytes the terminal showed.
 */
#define CHILD_TERMINAL 0x2
#define CHILD_TERMINAL_COLS 80
#define CHILD_TERMINAL_ROWS 24
#define CHILD_TERMINAL_READY_NS INT64_C(100000000)

enum child_status {
	CHILD_NOT_RUN = 0,
	CHILD_EXITED,	    /* res.exit_code is valid */
	CHILD_SIGNALED,	    /* res.signal is valid */
	CHILD_SPAWN_FAILED, /* could not start: spawn_errno, reason in err */
	CHILD_ERROR,	    /* the run could not be set up; reason in err */
};

struct child_result {
	enum child_status status;
	int code;	 /* what child_run returned */
	int exit_code;	 /* CHILD_EXITED */
	int signal;	 /* CHILD_SIGNALED */
	int timed_out;	 /* stopped because timeout_ns passed */
	int interrupted; /* stopped by child_interrupt() or watch_fd */
	int spawn_errno; /* CHILD_SPAWN_FAILED */
	/* Measurements; -1 when the program did not run. */
	int64_t wall_ns;
	int64_t user_ns;
	int64_t sys_ns;
	int64_t maxrss_bytes;
	/* The last CHILD_TAIL_MAX bytes the program wrote to stderr (for
	 * DISCARD, FILE and CAPTURE), starting at a UTF-8 boundary. */
	struct sbuf stderr_tail;
	struct sbuf out; /* stdout when CHILD_OUT_CAPTURE */
	struct sbuf err; /* stderr when CHILD_OUT_CAPTURE */
	/* A capture exceeded CHILD_CAPTURE_MAX (the rest was dropped). */
	int out_truncated;
	int err_truncated;
};

struct child {
	struct strvec argv; /* argv[0] is the program */
	struct strvec env;  /* full envp; empty = inherit our environ */
	const char *dir;    /* working directory, or NULL; not owned */

	enum child_in in;
	const char *in_path; /* CHILD_IN_FILE; not owned */
	const void *in_data; /* CHILD_IN_CONTENT; not owned */
	size_t in_len;
	int in_fd; /* CHILD_IN_FD */

	enum child_out out, err;
	const char *out_path, *err_path; /* CHILD_OUT_FILE; not owned */
	int out_fd, err_fd;		 /* CHILD_OUT_FD */

	int64_t timeout_ns; /* 0 = no limit */
	int64_t grace_ns;   /* SIGTERM -> SIGKILL delay; 0 = SIGKILL at once */
	unsigned flags;	    /* CHILD_* flags above */
	/* If >= 0: when this descriptor becomes readable or hangs up during
	 * the run, the run is stopped as if interrupted (the runner watches
	 * its socket so that kagari's death stops the command). */
	int watch_fd;

	struct child_result res; /* filled by child_run */
};

#define CHILD_RESULT_INIT                                                                          \
	{                                                                                          \
		.status = CHILD_NOT_RUN, .wall_ns = -1, .user_ns = -1, .sys_ns = -1,               \
		.maxrss_bytes = -1, .stderr_tail = SBUF_INIT, .out = SBUF_INIT, .err = SBUF_INIT   \
	}

#define CHILD_INIT                                                                                 \
	{                                                                                          \
		.argv = STRVEC_INIT, .env = STRVEC_INIT, .in_fd = -1, .out_fd = -1, .err_fd = -1,  \
		.grace_ns = CHILD_DEFAULT_GRACE_NS, .watch_fd = -1, .res = CHILD_RESULT_INIT       \
	}

void child_init(struct child *c);
/* Free argv, env and the result buffers; c is then as after child_init. */
void child_release(struct child *c);

void child_result_init(struct child_result *r);
void child_result_release(struct child_result *r);
/* Empty the result (keeping buffer memory) for another run. */
void child_result_reset(struct child_result *r);

/*
 * Run c to completion (see the header comment for the return value).
 * Blocks until the program and everything it left behind are gone.
 */
int child_run(struct child *c, struct sbuf *err);

/*
 * Would child_run() find and be allowed to execute `prog` in `dir` with
 * environment envp (NULL: ours)? The same search and the same messages
 * ("command not found: ...", "cannot run '...': permission denied (not
 * executable)"), without starting anything. Returns 0, or -1 with the
 * reason appended to err.
 */
int child_check_program(const char *prog, const char *dir, const char *const *envp,
			struct sbuf *err);

/*
 * The same with argv and envp given as borrowed NULL-terminated arrays
 * (envp NULL = our environ); c->argv and c->env are ignored. Used by the
 * runner to avoid copying each request.
 */
int child_run_argv(struct child *c, const char *const *argv, const char *const *envp,
		   struct sbuf *err);

/*
 * Async-signal-safe: stop the run being waited for (TERM to its group,
 * grace, KILL, like a timeout) and mark it interrupted. When no run is
 * waiting, the interrupt stays pending and stops the next run at once.
 */
void child_interrupt(void);
/* Drop a pending interrupt (before running cleanup after an interrupt). */
void child_interrupt_clear(void);
/* 1 if an interrupt is pending. */
int child_interrupt_pending(void);

/*
 * One phrase for how a run ended, appended to out, e.g. "exited with
 * status 3", "killed by signal SIGSEGV", "timed out after 1.5 s",
 * "interrupted". The one wording for runs, hooks, builds and git.
 * timeout_ns is the limit to quote for a timeout (0: not quoted).
 */
void child_result_describe(const struct child_result *r, int64_t timeout_ns, struct sbuf *out);

/*
 * The stderr tail of a failed run, appended to a failure text (after
 * child_result_describe() or an error message): the one format for measured
 * runs, hooks and builds, cmd/'s messages, and git. `tail` holds `len`
 * bytes (stderr_tail, masked by the caller where it may hold secrets).
 *   CHILD_TAIL_BLOCK: "\n--- stderr (last 2 KiB) ---\n" and the tail as it
 *	is, up to a NUL byte (messages for a terminal, a command's error);
 *	nothing when the tail is empty.
 *   CHILD_TAIL_LINE: ": " and the last three meaningful lines (blank lines
 *	and git's "hint:" lines dropped) joined by "; ", each cut at 400
 *	bytes, control characters as spaces (a message that must stay one
 *	line); nothing when len is 0.
 */
enum child_tail_style { CHILD_TAIL_BLOCK, CHILD_TAIL_LINE };
void child_add_stderr_tail(struct sbuf *out, const char *tail, size_t len,
			   enum child_tail_style style);

/* Test hook: 1 = never use pidfds (exercise the polling fallback). */
void child_debug_no_pidfd(int on);

#endif
