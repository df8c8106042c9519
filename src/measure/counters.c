/*
 * measure/counters: hardware and software counters through perf_event_open
 * (counters.h): probing which events open, opening a group per run on the
 * runner, reading and scaling for multiplexing, explaining failures.
 */
#include "measure/counters.h"

#include <errno.h>
#include <limits.h>
#include <linux/perf_event.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "base/sbuf.h"
#include "base/xalloc.h"

struct event_def {
	const char *name;
	uint32_t type;
	uint64_t config;
};

static const struct event_def events[COUNTERS__COUNT] = {
    [COUNTERS_CYCLES] = {"cycles", PERF_TYPE_HARDWARE, PERF_COUNT_HW_CPU_CYCLES},
    [COUNTERS_INSTRUCTIONS] = {"instructions", PERF_TYPE_HARDWARE, PERF_COUNT_HW_INSTRUCTIONS},
    [COUNTERS_BRANCH_MISSES] = {"branch-misses", PERF_TYPE_HARDWARE, PERF_COUNT_HW_BRANCH_MISSES},
    [COUNTERS_CACHE_MISSES] = {"cache-misses", PERF_TYPE_HARDWARE, PERF_COUNT_HW_CACHE_MISSES},
    [COUNTERS_TASK_CLOCK] = {"task-clock", PERF_TYPE_SOFTWARE, PERF_COUNT_SW_TASK_CLOCK},
    [COUNTERS_PAGE_FAULTS] = {"page-faults", PERF_TYPE_SOFTWARE, PERF_COUNT_SW_PAGE_FAULTS},
};

#define TIMES_FORMAT (PERF_FORMAT_TOTAL_TIME_ENABLED | PERF_FORMAT_TOTAL_TIME_RUNNING)

const char *counters_event_name(enum counters_event e)
{
	return e < COUNTERS__COUNT ? events[e].name : "?";
}

int counters_event_hardware(enum counters_event e)
{
	return e < COUNTERS__COUNT && events[e].type == PERF_TYPE_HARDWARE;
}

int counters_paranoid(void)
{
	struct sbuf sb = SBUF_INIT;
	int v = INT32_MIN;
	if (sbuf_read_file(&sb, "/proc/sys/kernel/perf_event_paranoid", 64) == 0) {
		char *end;
		long n = strtol(sb.buf, &end, 10);
		if (end != sb.buf && n > INT32_MIN && n < INT32_MAX)
			v = (int)n;
	}
	sbuf_release(&sb);
	return v;
}

void counters_explain(int errnum, enum counters_event e, int paranoid, struct sbuf *out)
{
	const char *name = counters_event_name(e);
	switch (errnum) {
	case ENOENT:
	case ENODEV:
		if (counters_event_hardware(e))
			sbuf_addf(out,
				  "no hardware performance counters for '%s' here "
				  "(%s: the CPU exposes no PMU, as in most virtual "
				  "machines and hosted CI runners); run on bare "
				  "metal or a VM with PMU passthrough, or use "
				  "`instrument: valgrind` for instruction counts",
				  name, errnum == ENOENT ? "ENOENT" : "ENODEV");
		else
			sbuf_addf(out, "the kernel does not provide the event '%s' (%s)", name,
				  errnum == ENOENT ? "ENOENT" : "ENODEV");
		break;
	case EACCES:
	case EPERM:
		sbuf_addf(out, "perf_event_open for '%s' is not permitted (%s): ", name,
			  errnum == EACCES ? "EACCES" : "EPERM");
		if (paranoid == INT32_MIN)
			sbuf_adds(out, "kernel.perf_event_paranoid could not be read; "
				       "if it is above 2, `sudo sysctl "
				       "kernel.perf_event_paranoid=1` allows counting "
				       "your own programs; in a container, its seccomp "
				       "policy may block perf_event_open");
		else if (paranoid > 2)
			sbuf_addf(out,
				  "kernel.perf_event_paranoid is %d, which forbids "
				  "unprivileged use; `sudo sysctl "
				  "kernel.perf_event_paranoid=1` allows counting "
				  "your own programs",
				  paranoid);
		else
			sbuf_addf(out,
				  "kernel.perf_event_paranoid is %d, which would "
				  "allow it, so a container's seccomp policy or a "
				  "security module likely blocks perf_event_open "
				  "(Docker: run with --cap-add PERFMON or a seccomp "
				  "profile that allows it)",
				  paranoid);
		break;
	case EOPNOTSUPP:
		sbuf_addf(out,
			  "this CPU or kernel does not support '%s' as asked "
			  "(EOPNOTSUPP: e.g. no way to exclude kernel or "
			  "hypervisor time on this PMU)",
			  name);
		break;
	case EINVAL:
		sbuf_addf(out,
			  "the kernel rejected the event '%s' (EINVAL: an old "
			  "kernel, or a hypervisor exposing an incomplete PMU)",
			  name);
		break;
	case ENOSYS:
		sbuf_adds(out, "perf_event_open is not available (ENOSYS: a kernel "
			       "without CONFIG_PERF_EVENTS, or a sandbox such as "
			       "gVisor that does not implement it)");
		break;
	case EMFILE:
	case ENFILE:
		sbuf_addf(out,
			  "too many open files to open '%s' (%s); raise the "
			  "limit with `ulimit -n`",
			  name, errnum == EMFILE ? "EMFILE" : "ENFILE");
		break;
	case EBUSY:
		sbuf_addf(out,
			  "the counters for '%s' are taken by another user "
			  "(EBUSY: another profiler or the NMI watchdog)",
			  name);
		break;
	default:
		sbuf_addf(out, "perf_event_open for '%s' failed: %s", name, strerror(errnum));
		break;
	}
}

double counters_scale(uint64_t value, uint64_t enabled, uint64_t running, double *share)
{
	if (running == 0) {
		if (share)
			*share = 0;
		return NAN;
	}
	if (enabled <= running) {
		if (share)
			*share = 1;
		return (double)value;
	}
	double s = (double)running / (double)enabled;
	if (share)
		*share = s;
	return (double)value * ((double)enabled / (double)running);
}

double counters_ipc(const struct counters_reading *r)
{
	unsigned need = COUNTERS_BIT(COUNTERS_CYCLES) | COUNTERS_BIT(COUNTERS_INSTRUCTIONS);
	if ((r->counted & need) != need || !(r->value[COUNTERS_CYCLES] > 0))
		return NAN;
	return r->value[COUNTERS_INSTRUCTIONS] / r->value[COUNTERS_CYCLES];
}

/*
 * Test hook: with `stand_ins` (the caller's switch, from
 * KAGARI_TEST_COUNTERS_SOFTWARE=1, which only cmd/ reads) the hardware
 * events are stood in for by software ones (cpu-clock, task-clock, minor
 * faults, context switches), so that kagari's whole perf path can be tested
 * on machines without a PMU. Never for real use.
 */
static const uint64_t stand_in[COUNTERS__COUNT] = {
    [COUNTERS_CYCLES] = PERF_COUNT_SW_CPU_CLOCK,
    [COUNTERS_INSTRUCTIONS] = PERF_COUNT_SW_TASK_CLOCK,
    [COUNTERS_BRANCH_MISSES] = PERF_COUNT_SW_PAGE_FAULTS_MIN,
    [COUNTERS_CACHE_MISSES] = PERF_COUNT_SW_CONTEXT_SWITCHES,
};

static int open_event(enum counters_event e, pid_t pid, int group_fd, int group_read,
		      int enable_on_exec, int stand_ins)
{
	struct perf_event_attr a;
	memset(&a, 0, sizeof(a));
	a.size = sizeof(a);
	a.type = events[e].type;
	a.config = events[e].config;
	if (a.type == PERF_TYPE_HARDWARE && stand_ins) {
		a.type = PERF_TYPE_SOFTWARE;
		a.config = stand_in[e];
	}
	a.read_format = TIMES_FORMAT | (group_read ? PERF_FORMAT_GROUP : 0);
	/* A group's members follow their leader: only the leader waits for
	 * the exec. */
	a.disabled = group_fd < 0 && enable_on_exec;
	a.enable_on_exec = group_fd < 0 && enable_on_exec;
	a.inherit = 1;
	a.exclude_kernel = 1;
	a.exclude_hv = 1;
	long fd = syscall(SYS_perf_event_open, &a, pid, -1, group_fd, PERF_FLAG_FD_CLOEXEC);
	return fd < 0 ? -1 : (int)fd;
}

/* Can an inherited group be read in one go on this kernel? */
static int probe_group_read(void)
{
	int leader = open_event(COUNTERS_TASK_CLOCK, 0, -1, 1, 0, 0);
	if (leader < 0)
		return 0;
	int member = open_event(COUNTERS_PAGE_FAULTS, 0, leader, 1, 0, 0);
	int ok = 0;
	if (member >= 0) {
		uint64_t buf[3 + 2];
		ssize_t n = read(leader, buf, sizeof(buf));
		ok = n == (ssize_t)sizeof(buf) && buf[0] == 2;
		close(member);
	}
	close(leader);
	return ok;
}

void counters_probe(struct counters_probe *p, int software_stand_ins)
{
	memset(p, 0, sizeof(*p));
	p->software_stand_ins = software_stand_ins;
	p->paranoid = counters_paranoid();
	for (int e = 0; e < COUNTERS__COUNT; e++) {
		int fd = open_event((enum counters_event)e, 0, -1, 0, 1, software_stand_ins);
		if (fd >= 0) {
			close(fd);
			p->available |= COUNTERS_BIT(e);
			continue;
		}
		p->err[e] = errno;
		struct sbuf why = SBUF_INIT;
		counters_explain(errno, (enum counters_event)e, p->paranoid, &why);
		p->why[e] = sbuf_detach(&why);
	}
	p->group_read = probe_group_read();
}

void counters_probe_release(struct counters_probe *p)
{
	for (int e = 0; e < COUNTERS__COUNT; e++)
		free(p->why[e]);
	memset(p, 0, sizeof(*p));
}

void counters_init(struct counters *c, pid_t pid, unsigned events_mask)
{
	c->pid = pid;
	c->events = events_mask & COUNTERS_ALL;
	c->group_read = 1;
	c->software_stand_ins = 0;
	for (int e = 0; e < COUNTERS__COUNT; e++)
		c->fd[e] = -1;
}

void counters_release(struct counters *c)
{
	for (int e = 0; e < COUNTERS__COUNT; e++) {
		if (c->fd[e] >= 0)
			close(c->fd[e]);
		c->fd[e] = -1;
	}
}

/* The events of one group (hardware or software) that c counts, in order. */
static int group_members(const struct counters *c, int hardware, int *out)
{
	int n = 0;
	for (int e = 0; e < COUNTERS__COUNT; e++)
		if ((c->events & COUNTERS_BIT(e)) &&
		    counters_event_hardware((enum counters_event)e) == hardware)
			out[n++] = e;
	return n;
}

/* Open everything once, grouped or not; -1 with errno and *failed set. */
static int open_all(struct counters *c, int *failed)
{
	for (int hw = 1; hw >= 0; hw--) {
		int list[COUNTERS__COUNT];
		int n = group_members(c, hw, list);
		int leader = -1;
		for (int i = 0; i < n; i++) {
			int e = list[i];
			int fd =
			    open_event((enum counters_event)e, c->pid, c->group_read ? leader : -1,
				       c->group_read, 1, c->software_stand_ins);
			if (fd < 0) {
				*failed = e;
				return -1;
			}
			c->fd[e] = fd;
			if (leader < 0)
				leader = fd;
		}
	}
	return 0;
}

int counters_begin(struct counters *c, struct sbuf *err)
{
	int failed = -1;
	counters_release(c);
	if (!c->events)
		return 0;
	if (open_all(c, &failed) == 0)
		return 0;
	int saved = errno;
	counters_release(c);
	if (c->group_read && saved == EINVAL) {
		/* A group the PMU can never schedule at once: count apart. */
		c->group_read = 0;
		if (open_all(c, &failed) == 0)
			return 0;
		saved = errno;
		counters_release(c);
	}
	counters_explain(saved, (enum counters_event)failed, counters_paranoid(), err);
	return -1;
}

static void store(struct counters_reading *out, int e, uint64_t value, uint64_t enabled,
		  uint64_t running)
{
	double share;
	double v = counters_scale(value, enabled, running, &share);
	out->raw[e] = value;
	out->share[e] = share;
	if (isnan(v))
		return;
	out->value[e] = v;
	out->counted |= COUNTERS_BIT(e);
}

static ssize_t read_fd(int fd, void *buf, size_t len)
{
	ssize_t n;
	do
		n = read(fd, buf, len);
	while (n < 0 && errno == EINTR);
	return n;
}

int counters_end(struct counters *c, struct counters_reading *out, struct sbuf *err)
{
	int rc = 0;
	memset(out, 0, sizeof(*out));
	for (int hw = 1; hw >= 0; hw--) {
		int list[COUNTERS__COUNT];
		int n = group_members(c, hw, list);
		if (!n || c->fd[list[0]] < 0)
			continue;
		if (c->group_read) {
			uint64_t buf[3 + COUNTERS__COUNT];
			size_t want = (size_t)(3 + n) * sizeof(uint64_t);
			ssize_t got = read_fd(c->fd[list[0]], buf, sizeof(buf));
			if (got == (ssize_t)want && buf[0] == (uint64_t)n) {
				for (int i = 0; i < n; i++)
					store(out, list[i], buf[3 + i], buf[1], buf[2]);
				continue;
			}
			/* Refused for inherited events: read apart from now on. */
			c->group_read = 0;
			if (!rc)
				sbuf_addf(err, "reading the '%s' counter group failed (%s)",
					  counters_event_name((enum counters_event)list[0]),
					  got < 0 ? strerror(errno) : "short read");
			rc = -1;
			continue;
		}
		for (int i = 0; i < n; i++) {
			uint64_t buf[3];
			ssize_t got = read_fd(c->fd[list[i]], buf, sizeof(buf));
			if (got == (ssize_t)sizeof(buf)) {
				store(out, list[i], buf[0], buf[1], buf[2]);
			} else {
				if (!rc)
					sbuf_addf(err, "reading the '%s' counter failed (%s)",
						  counters_event_name((enum counters_event)list[i]),
						  got < 0 ? strerror(errno) : "short read");
				rc = -1;
			}
		}
	}
	counters_release(c);
	return rc;
}
