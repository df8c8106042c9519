/*
 * measure/syscalls: the system calls of a measured command's process tree,
 * counted exactly by the kernel's syscall tracepoints through
 * perf_event_open(2).
 *
 * Why tracepoints and not ptrace or strace: both stop the traced process
 * twice per system call and switch to the tracer, which makes a program
 * that writes a lot tens of times slower (a static program making 100,000
 * one-byte writes: 0.05 s plain, 3.5 s under `strace -c -f` on the
 * development VM), so the count would cost more than the benchmark. A
 * tracepoint event in counting mode is incremented in the kernel on each
 * entry, with no stop and no context switch, and `inherit` carries it to
 * every descendant as the hardware counters are (counters.h): exact, and
 * nearly free.
 *
 * Events: one `syscalls:sys_enter_NAME` per call name the kernel has a
 * tracepoint for, each opened on the spawning process (the runner) with
 * `inherit` and `enable_on_exec`, fresh for every run, so that counting
 * starts at the command's exec and covers every process it forks; the
 * total is their sum (`raw_syscalls:sys_enter`, which counts every call,
 * only checks the permission in the probe: counting it too cost 15% more
 * per call, and its count equalled the sum for every program tried).
 *
 * Requirements: the tracepoint ids, which only tracefs shows
 * (/sys/kernel/tracing/events/.../id); when tracefs is not mounted and
 * kagari runs as root, the probe mounts it in a private mount namespace of
 * a short-lived child (nothing changes for the rest of the system); and the
 * permission to open tracepoint events (root or CAP_PERFMON, or
 * kernel.perf_event_paranoid = -1). Where either is missing the probe says
 * what to do.
 *
 * Call order:
 *	struct syscalls_probe p;
 *	syscalls_probe(&p);                   once; p.ok or p.why
 *	struct syscalls_counter c = SYSCALLS_COUNTER_INIT;
 *	per run: syscalls_begin(&c, &p, runner_pid, &err); run the command;
 *	         syscalls_end(&c, &total, counts, &err)   counts[p.nr]
 *	syscalls_release(&c); syscalls_probe_release(&p);
 */
#ifndef KAGARI_MEASURE_SYSCALLS_H
#define KAGARI_MEASURE_SYSCALLS_H

#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

struct sbuf;

struct syscalls_probe {
	int ok;
	char *why;	   /* when !ok: why, and what to do */
	size_t nr;	   /* call names with a tracepoint */
	char **names;	   /* "write", "openat", ... sorted by name */
	uint64_t *ids;	   /* their syscalls:sys_enter_NAME ids */
	uint64_t total_id; /* raw_syscalls:sys_enter (the permission check) */
	int private_mount; /* the ids came from a private tracefs mount */
	/* One disabled event per name's tracepoint on this process, opened
	   by the first syscalls_begin() and held until
	   syscalls_probe_release(): see syscalls.c. */
	int *keep;
};

/* Fill p (allocates). Never fails: p->ok or p->why. */
void syscalls_probe(struct syscalls_probe *p);
void syscalls_probe_release(struct syscalls_probe *p);

/*
 * Parse tracefs' syscall events folder (EVENTS/syscalls/sys_enter_*
 * /id and EVENTS/raw_syscalls/sys_enter/id) into p's names and ids.
 * Returns 0, or -1 with a reason.
 */
int syscalls_read_ids(const char *events, struct syscalls_probe *p, struct sbuf *err);

struct syscalls_counter {
	int total_fd;
	int *fd; /* nr, -1 when closed */
	size_t nr;
};
#define SYSCALLS_COUNTER_INIT                                                                      \
	{                                                                                          \
		-1, NULL, 0                                                                        \
	}

/*
 * Open the events of p on pid (0: this process) for one run, switched on
 * at its child's exec. Returns 0, or -1 with a reason; nothing is left
 * open then.
 */
int syscalls_begin(struct syscalls_counter *c, struct syscalls_probe *p, pid_t pid,
		   struct sbuf *err);

/*
 * After the run: the total into *total and each name's count into
 * counts[0..p->nr), then close. Returns 0, or -1 with a reason.
 */
int syscalls_end(struct syscalls_counter *c, uint64_t *total, uint64_t *counts, struct sbuf *err);

/* Close whatever is open, free c's arrays. Idempotent. */
void syscalls_release(struct syscalls_counter *c);

#endif
