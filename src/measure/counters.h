/*
 * measure/counters: hardware and software performance counters of a
 * measured command's process tree, through perf_event_open(2).
 *
 * Events: one group of hardware events (cycles, instructions,
 * branch-misses, cache-misses; user space only, kernel and hypervisor
 * excluded) and one group of software events (task-clock, page-faults),
 * which the kernel provides even in virtual machines without a PMU. They
 * are opened on the spawning process (the runner, see runner.h; pid 0 from
 * inside it, or its pid from kagari) with `inherit` and `enable_on_exec`:
 * they stay off in the spawner itself, every child it forks inherits a copy
 * that switches on at the child's exec, descendants of the child inherit
 * running copies, and each copy's counts are folded back into the opened
 * event when its process exits. Each group is read with PERF_FORMAT_GROUP
 * and the enabled/running times; a kernel that refuses that for inherited
 * events gets one read per event. Values are scaled by enabled/running
 * (multiplexing), and an event that never ran is "not counted", not 0.
 *
 * Events are opened fresh for every run and closed after it (as poop does),
 * not kept open across runs: with `enable_on_exec` the kernel clears the
 * flag on whichever copy it switches on, and its lazy context switch between
 * a parent and a child with cloned contexts can hand the original event to
 * the child, so after a few runs kept-open events silently stop counting
 * (observed on 6.18 within 2-4 runs of posix_spawn). A fresh event per run
 * starts from zero, so a run's reading is that run alone.
 *
 * Call order:
 *
 *	struct counters_probe p;
 *	counters_probe(&p, 0);                once: which events open here,
 *	                                      and why the others do not
 *	struct counters c;
 *	counters_init(&c, runner_pid(r), COUNTERS_ALL & ~unavailable);
 *	per measured run:
 *	    counters_begin(&c, &err);         open (off until the child execs)
 *	    ... start the command through that process, wait for it ...
 *	    counters_end(&c, &reading, &err); read, scale, close
 *	counters_release(&c);                 closes anything still open
 *	counters_probe_release(&p);
 *
 * Nothing here prints; errors are appended to a caller-supplied sbuf.
 *
 * Testing: counters_probe(&p, 1) and `software_stand_ins` set in struct
 * counters make the hardware events software stand-ins (see counters.c), so
 * that the perf path of kagari can be exercised end to end on a machine
 * without a PMU. Only cmd/ reads the switch (KAGARI_TEST_COUNTERS_SOFTWARE=1)
 * from the environment and passes it down.
 */
#ifndef KAGARI_MEASURE_COUNTERS_H
#define KAGARI_MEASURE_COUNTERS_H

#include <stdint.h>
#include <sys/types.h>

struct sbuf;

enum counters_event {
	COUNTERS_CYCLES,
	COUNTERS_INSTRUCTIONS,
	COUNTERS_BRANCH_MISSES,
	COUNTERS_CACHE_MISSES,
	COUNTERS_TASK_CLOCK,  /* software: nanoseconds on a CPU */
	COUNTERS_PAGE_FAULTS, /* software */
	COUNTERS__COUNT
};

#define COUNTERS_BIT(e) (1u << (e))
#define COUNTERS_HARDWARE                                                                          \
	(COUNTERS_BIT(COUNTERS_CYCLES) | COUNTERS_BIT(COUNTERS_INSTRUCTIONS) |                     \
	 COUNTERS_BIT(COUNTERS_BRANCH_MISSES) | COUNTERS_BIT(COUNTERS_CACHE_MISSES))
#define COUNTERS_SOFTWARE (COUNTERS_BIT(COUNTERS_TASK_CLOCK) | COUNTERS_BIT(COUNTERS_PAGE_FAULTS))
#define COUNTERS_ALL (COUNTERS_HARDWARE | COUNTERS_SOFTWARE)

/* perf's name of the event: "cycles", "branch-misses", "task-clock", ... */
const char *counters_event_name(enum counters_event e);
/* 1 for the hardware (PMU) events. */
int counters_event_hardware(enum counters_event e);

/*
 * kernel.perf_event_paranoid (/proc/sys/kernel/perf_event_paranoid), or
 * INT32_MIN when it cannot be read.
 */
int counters_paranoid(void);

/*
 * One sentence on why `e` could not be opened with errno `errnum`, and
 * what to do about it, appended to out: ENOENT/ENODEV (no PMU: a virtual
 * machine or hosted runner), EACCES/EPERM (the perf_event_paranoid value
 * `paranoid` and the sysctl that lowers it, or a container's seccomp
 * policy), EOPNOTSUPP, EINVAL, ENOSYS, EMFILE, others by strerror.
 * `paranoid` is counters_paranoid()'s value (INT32_MIN: unknown).
 */
void counters_explain(int errnum, enum counters_event e, int paranoid, struct sbuf *out);

/* Which events open on this machine (each tried alone on this process). */
struct counters_probe {
	unsigned available;	    /* COUNTERS_BIT(e) set: e opens */
	int err[COUNTERS__COUNT];   /* errno when it does not, else 0 */
	char *why[COUNTERS__COUNT]; /* counters_explain() text, else NULL */
	int paranoid;		    /* counters_paranoid() */
	int group_read;		    /* 1: inherited group reads work */
	int software_stand_ins;	    /* as given to counters_probe() */
};

/*
 * Fill p (allocates the why strings). Never fails: results are in p.
 * software_stand_ins: 1 = probe software stand-ins for the hardware events
 * (a test switch, see above), else 0.
 */
void counters_probe(struct counters_probe *p, int software_stand_ins);
void counters_probe_release(struct counters_probe *p);

/* What one run counted. */
struct counters_reading {
	unsigned counted;	       /* COUNTERS_BIT(e): value[e] is valid */
	double value[COUNTERS__COUNT]; /* scaled by enabled/running */
	uint64_t raw[COUNTERS__COUNT]; /* as read */
	/* running/enabled time of the event's group: 1 = counted all along,
	 * < 1 = multiplexed (value extrapolated), 0 = not counted */
	double share[COUNTERS__COUNT];
};

struct counters {
	pid_t pid;		 /* the spawning process (0 = this one) */
	unsigned events;	 /* COUNTERS_BIT set of events to open */
	int fd[COUNTERS__COUNT]; /* -1 when not open */
	int group_read;		 /* read each group with PERF_FORMAT_GROUP */
	int software_stand_ins;	 /* test switch (see above); counters_init: 0 */
};

/*
 * Prepare c for counting the children `pid` spawns (0: this process).
 * `events` is a COUNTERS_BIT set (normally probe.available). group_read
 * is on; counters_begin() turns it off if the kernel refuses it.
 */
void counters_init(struct counters *c, pid_t pid, unsigned events);

/*
 * Open the events for one run (any still open are closed first). Returns
 * 0, or -1 with a reason (counters_explain of the first event that failed)
 * in err; nothing is left open then.
 */
int counters_begin(struct counters *c, struct sbuf *err);

/*
 * After the run (the command and its descendants have exited and been
 * waited for): read every open event into *out, scaled, and close them.
 * Returns 0, or -1 with a reason in err (events that read fine are still
 * in *out). An event with zero running time is left out of out->counted.
 */
int counters_end(struct counters *c, struct counters_reading *out, struct sbuf *err);

/* Close whatever is open. Idempotent. */
void counters_release(struct counters *c);

/*
 * value scaled by enabled/running: value when running == enabled, NAN when
 * running is 0 ("not counted"); *share (may be NULL) gets running/enabled
 * (0 when not counted).
 */
double counters_scale(uint64_t value, uint64_t enabled, uint64_t running, double *share);

/*
 * Instructions per cycle of a reading, or NAN unless both were counted
 * and cycles > 0.
 */
double counters_ipc(const struct counters_reading *r);

#endif
