/*
 * proc/child_internal: what the files of proc/child (child.h) share, and
 * no one else includes. child.c: interrupts, the shared fds, results and
 * child_run() step by step; child_spawn.c: resolving the program and the
 * posix_spawn attributes and actions; child_io.c: stdin, the capture pipes
 * and the stderr tail; child_term.c: the pseudo-terminal; child_wait.c:
 * waiting with timeouts, the stop, reaping and the resource accounting;
 * child_describe.c: the wording of how a run ended.
 */
#ifndef KAGARI_PROC_CHILD_INTERNAL_H
#define KAGARI_PROC_CHILD_INTERNAL_H

#include <signal.h>
#include <spawn.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/resource.h>
#include <sys/time.h>
#include <sys/types.h>
#include <time.h>
#include <unistd.h>

#include "base/sbuf.h"
#include "proc/child.h"

/* Process-wide state (child.c): the interrupt flag and the read end of its
   self-pipe, /dev/null, and the kept recent stderr of a discarded one. */
extern volatile sig_atomic_t child_intr_flag;
extern int child_intr_rfd;
extern int child_devnull_fd;
extern struct sbuf child_err_keep;

static inline int64_t now_ns(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (int64_t)ts.tv_sec * 1000000000 + ts.tv_nsec;
}

static inline int64_t tv_ns(const struct timeval *tv)
{
	return (int64_t)tv->tv_sec * 1000000000 + (int64_t)tv->tv_usec * 1000;
}

/* Everything one run holds open; fds are -1 when unused. */
struct run_fds {
	int in, out, err;		    /* the child's 0/1/2 sources (-1: inherit) */
	int close_in, close_out, close_err; /* ours to close after the spawn */
	int out_pipe, err_pipe;		    /* read ends of capture pipes */
	int tail;			    /* where to read the stderr tail from */
	int own_tail;			    /* tail when it is ours to close */
	int err_sink;			    /* read end of the stderr pipe (DISCARD) */
};

static inline void close_fd(int *fd)
{
	if (*fd >= 0) {
		close(*fd);
		*fd = -1;
	}
}

/*
 * A run on a pseudo-terminal (CHILD_TERMINAL). The child is spawned with
 * POSIX_SPAWN_SETSID and opens the slave by name as its fd 0 (without
 * O_NOCTTY): on Linux a session leader without a controlling terminal that
 * opens a terminal acquires it, so the slave becomes its controlling
 * terminal and the foreground group is the child's (posix_spawn cannot
 * issue TIOCSCTTY, and needs not). We keep a slave descriptor open for the
 * run, so the master never reports a hang-up before the child has opened
 * its side; it is closed once the run is over, after which a read of the
 * master returns what is left, then EIO.
 */
struct term {
	int master; /* -1: not a terminal run */
	int slave;  /* our own slave descriptor, held during the run */
	struct sbuf name;
	struct sbuf input; /* what to type: stdin content, then VEOF */
	size_t typed;
	int ready;	  /* first output seen, or CHILD_TERMINAL_READY_NS */
	int64_t ready_at; /* when the wait for output ends */
	int out_fd;	  /* the stdout file, or -1 */
	int out_mode;	  /* enum child_out of c->out */
	struct sbuf tail; /* recent output, for res.stderr_tail */
	int eof;	  /* the master has nothing more to give */
};

#define TERM_INIT                                                                                  \
	{                                                                                          \
		.master = -1, .slave = -1, .name = SBUF_INIT, .input = SBUF_INIT, .out_fd = -1,    \
		.tail = SBUF_INIT                                                                  \
	}

struct waiter {
	pid_t pid;
	int pidfd;
	int own_group;
	int stopping; /* 0 running, 1 SIGTERM sent, 2 SIGKILL sent */
	int64_t deadline;
	int64_t grace_ns;
};

/* What one run holds between its steps. */
struct run {
	struct run_fds f;
	struct term t;
	posix_spawn_file_actions_t term_fa;
	int have_term_fa;
	struct sbuf path; /* the program, resolved */
	pid_t *keep;	  /* children we had before the run (subreaper) */
	size_t nkeep, keep_alloc;
	int subreaper;
	int own_group;
	pid_t pid;
	int64_t t0;
};

/* child.c */
void child_drain_fd(int fd);

/* child_spawn.c */
int child_resolve_program(const char *prog, const char *dir, const char *const *envp,
			  struct sbuf *path, int *eno, struct sbuf *err);
void child_spawn_reason(int eno, const char *prog, const char *dir, struct sbuf *err);
posix_spawnattr_t *child_spawn_attr(int own_group);
posix_spawn_file_actions_t *child_spawn_actions(const struct run_fds *f, const char *dir);

/* child_io.c */
int child_open_stdin(const struct child *c, struct run_fds *f, struct sbuf *err);
int child_open_outputs(const struct child *c, struct run_fds *f, struct sbuf *err);
int child_open_outfile(const char *path, int for_tail, struct sbuf *err);
void child_close_run_fds(struct run_fds *f);
void child_drain_err(int fd);
void child_pump(int *fd, struct sbuf *sb, int *truncated);
void child_set_tail(struct sbuf *tail, const char *data, size_t len);
off_t child_read_tail(int fd, struct sbuf *tail);
void child_run_collect(struct child *c, struct run *run);

/* child_term.c */
void child_term_release(struct term *t);
int child_term_open(const struct child *c, struct term *t, struct sbuf *err);
void child_term_actions(posix_spawn_file_actions_t *fa, const struct term *t, const char *dir);
void child_term_drain(struct term *t, struct child_result *r);
void child_term_type(struct term *t);

/* child_wait.c */
void child_wait_exit(struct child *c, struct waiter *w, struct run_fds *f, struct term *t,
		     int64_t t0);
int child_run_reap(struct child *c, const char *const *argv, struct run *run, int *status,
		   struct rusage *ru, struct sbuf *err);
void child_run_account(struct child *c, struct run *run, int status, const struct rusage *ru);

#endif
