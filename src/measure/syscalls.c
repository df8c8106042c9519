/*
 * measure/syscalls: system calls counted by the kernel's syscall
 * tracepoints (syscalls.h): finding their ids in tracefs (mounted
 * privately when it is not mounted), opening them per run on the runner,
 * reading and closing them.
 */
#include "measure/syscalls.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <linux/perf_event.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mount.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include "base/fileio.h"
#include "base/sbuf.h"
#include "base/xalloc.h"

static const char *const TRACEFS_DIRS[] = {"/sys/kernel/tracing", "/sys/kernel/debug/tracing"};
#define MOUNT_POINT "/sys/kernel/tracing"
#define ID_MAX 32

static int read_id(const char *path, uint64_t *id)
{
	struct sbuf sb = SBUF_INIT;
	int rc = -1;
	if (sbuf_read_file(&sb, path, ID_MAX) == 0) {
		char *end;
		errno = 0;
		unsigned long long v = strtoull(sb.buf, &end, 10);
		if (!errno && end != sb.buf && (*end == '\n' || !*end)) {
			*id = v;
			rc = 0;
		}
	}
	sbuf_release(&sb);
	return rc;
}

static int cmp_name(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

/*
 * Held-open events: the kernel registers a tracepoint's perf handler when
 * its first event opens, and when its last event closes it unregisters the
 * handler and waits for an RCU grace period (tracepoint_synchronize_
 * unregister) — hundreds of milliseconds per tracepoint on a busy machine,
 * tens of seconds per run for every name. One disabled, uninherited event
 * per tracepoint on kagari itself, opened by the probe and closed at the
 * end, keeps every handler registered, so a run opens and closes its own
 * events cheaply and pays the grace periods once.
 */
static int open_keeper(uint64_t id)
{
	struct perf_event_attr a;
	memset(&a, 0, sizeof(a));
	a.size = sizeof(a);
	a.type = PERF_TYPE_TRACEPOINT;
	a.config = id;
	a.disabled = 1;
	long fd = syscall(SYS_perf_event_open, &a, 0, -1, -1, PERF_FLAG_FD_CLOEXEC);
	return fd < 0 ? -1 : (int)fd;
}

/*
 * Close the held events. The last close of each tracepoint waits for a
 * grace period (see open_keeper), serially in the kernel: seconds for all
 * of them. A detached grandchild, which inherited the descriptors and keeps
 * none of kagari's other files open, closes them after kagari has gone on;
 * kagari's own closes then only drop references. Without fork, it waits.
 */
static void close_keepers(struct syscalls_probe *p)
{
	if (!p->keep)
		return;
	pid_t pid = fork();
	if (pid == 0) {
		if (fork() != 0)
			_exit(0);
		setsid();
		if (chdir("/"))
			_exit(0);
		DIR *d = opendir("/proc/self/fd");
		int self = d ? dirfd(d) : -1;
		struct dirent *de;
		while (d && (de = readdir(d))) {
			int fd = atoi(de->d_name);
			int keep = de->d_name[0] == '.' || fd == self;
			for (size_t i = 0; !keep && i < p->nr; i++)
				keep = fd == p->keep[i];
			if (!keep)
				close(fd);
		}
		if (d)
			closedir(d);
		for (size_t i = 0; i < p->nr; i++)
			if (p->keep[i] >= 0)
				close(p->keep[i]);
		_exit(0);
	}
	if (pid > 0)
		while (waitpid(pid, NULL, 0) < 0 && errno == EINTR)
			;
	for (size_t i = 0; i < p->nr; i++)
		if (p->keep[i] >= 0)
			close(p->keep[i]);
	free(p->keep);
	p->keep = NULL;
}

/* Open the held events (once). Returns 0, or -1 with errno set. */
static int hold(struct syscalls_probe *p)
{
	if (p->keep)
		return 0;
	p->keep = xcalloc(p->nr + 1, sizeof(*p->keep));
	for (size_t i = 0; i < p->nr; i++)
		p->keep[i] = -1;
	for (size_t i = 0; i < p->nr; i++)
		if ((p->keep[i] = open_keeper(p->ids[i])) < 0)
			return -1;
	return 0;
}

static void free_names(struct syscalls_probe *p)
{
	close_keepers(p);
	for (size_t i = 0; i < p->nr; i++)
		free(p->names[i]);
	free(p->names);
	free(p->ids);
	p->names = NULL;
	p->ids = NULL;
	p->nr = 0;
}

int syscalls_read_ids(const char *events, struct syscalls_probe *p, struct sbuf *err)
{
	char *total = xstrfmt("%s/raw_syscalls/sys_enter/id", events);
	int bad = read_id(total, &p->total_id);
	free(total);
	if (bad) {
		sbuf_addf(err,
			  "no raw_syscalls:sys_enter tracepoint in '%s' (a kernel without "
			  "CONFIG_FTRACE_SYSCALLS, or tracefs not readable)",
			  events);
		return -1;
	}
	char *dir = xstrfmt("%s/syscalls", events);
	DIR *d = opendir(dir);
	if (!d) {
		sbuf_addf(err, "cannot read '%s': %s", dir, strerror(errno));
		free(dir);
		return -1;
	}
	size_t alloc = 0;
	struct dirent *de;
	free_names(p);
	while ((de = readdir(d))) {
		if (strncmp(de->d_name, "sys_enter_", 10) || !de->d_name[10])
			continue;
		char *path = xstrfmt("%s/%s/id", dir, de->d_name);
		uint64_t id;
		if (read_id(path, &id) == 0) {
			if (p->nr == alloc) {
				alloc = alloc ? alloc * 2 : 512;
				p->names = xreallocarray(p->names, alloc, sizeof(*p->names));
			}
			p->names[p->nr++] =
			    xstrfmt("%s %llu", de->d_name + 10, (unsigned long long)id);
		}
		free(path);
	}
	closedir(d);
	free(dir);
	if (!p->nr) {
		sbuf_addf(err, "no syscalls:sys_enter_* tracepoints in '%s'", events);
		return -1;
	}
	/* "name id" strings sorted by name, then split. */
	qsort(p->names, p->nr, sizeof(*p->names), cmp_name);
	p->ids = xcalloc(p->nr, sizeof(*p->ids));
	for (size_t i = 0; i < p->nr; i++) {
		char *sp = strchr(p->names[i], ' ');
		p->ids[i] = strtoull(sp + 1, NULL, 10);
		*sp = '\0';
	}
	return 0;
}

/* The events folder of a mounted tracefs, or NULL. */
static const char *mounted_events(void)
{
	static char buf[64];
	for (size_t i = 0; i < sizeof(TRACEFS_DIRS) / sizeof(TRACEFS_DIRS[0]); i++) {
		snprintf(buf, sizeof(buf), "%s/events/raw_syscalls", TRACEFS_DIRS[i]);
		if (access(buf, R_OK | X_OK) == 0) {
			snprintf(buf, sizeof(buf), "%s/events", TRACEFS_DIRS[i]);
			return buf;
		}
	}
	return NULL;
}

/*
 * tracefs is not mounted: mount it in a private mount namespace of a child
 * (root only) and let the child send the ids back: "total\nname id\n...",
 * or "!reason".
 */
static int private_mount_ids(struct syscalls_probe *p, struct sbuf *err)
{
	int fds[2];
	if (pipe2(fds, O_CLOEXEC)) {
		sbuf_addf(err, "pipe: %s", strerror(errno));
		return -1;
	}
	pid_t pid = fork();
	if (pid < 0) {
		sbuf_addf(err, "fork: %s", strerror(errno));
		close(fds[0]);
		close(fds[1]);
		return -1;
	}
	if (pid == 0) {
		close(fds[0]);
		struct sbuf out = SBUF_INIT;
		struct syscalls_probe cp;
		memset(&cp, 0, sizeof(cp));
		if (unshare(CLONE_NEWNS) || mount(NULL, "/", NULL, MS_REC | MS_PRIVATE, NULL)) {
			sbuf_addf(&out,
				  "!tracefs is not mounted, and mounting it privately "
				  "needs root (unshare: %s)",
				  strerror(errno));
		} else if (mount("nodev", MOUNT_POINT, "tracefs", MS_NOSUID | MS_NODEV | MS_NOEXEC,
				 NULL)) {
			sbuf_addf(&out, "!tracefs is not mounted and cannot be mounted (%s)",
				  strerror(errno));
		} else {
			struct sbuf e = SBUF_INIT;
			if (syscalls_read_ids(MOUNT_POINT "/events", &cp, &e)) {
				sbuf_addf(&out, "!%s", e.buf);
			} else {
				sbuf_addf(&out, "%llu\n", (unsigned long long)cp.total_id);
				for (size_t i = 0; i < cp.nr; i++)
					sbuf_addf(&out, "%s %llu\n", cp.names[i],
						  (unsigned long long)cp.ids[i]);
			}
			sbuf_release(&e);
		}
		int rc = fileio_write_all(fds[1], out.buf, out.len) ? 1 : 0;
		_exit(rc);
	}
	close(fds[1]);
	struct sbuf in = SBUF_INIT;
	char buf[4096];
	ssize_t n;
	while ((n = read(fds[0], buf, sizeof(buf))) != 0) {
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0)
			break;
		sbuf_add(&in, buf, (size_t)n);
	}
	close(fds[0]);
	int status;
	while (waitpid(pid, &status, 0) < 0 && errno == EINTR)
		;
	int rc = -1;
	if (!in.len) {
		sbuf_adds(err, "the tracefs probe sent nothing back");
	} else if (in.buf[0] == '!') {
		sbuf_adds(err, in.buf + 1);
	} else {
		char *line = in.buf, *nl;
		p->total_id = strtoull(line, NULL, 10);
		size_t alloc = 0;
		free_names(p);
		while ((nl = strchr(line, '\n')) && nl[1]) {
			line = nl + 1;
			char *sp = strchr(line, ' ');
			char *end = strchr(line, '\n');
			if (!sp || !end || sp > end)
				break;
			if (p->nr == alloc) {
				alloc = alloc ? alloc * 2 : 512;
				p->names = xreallocarray(p->names, alloc, sizeof(*p->names));
				p->ids = xreallocarray(p->ids, alloc, sizeof(*p->ids));
			}
			p->names[p->nr] = xstrndup(line, (size_t)(sp - line));
			p->ids[p->nr++] = strtoull(sp + 1, NULL, 10);
		}
		rc = p->nr ? 0 : -1;
		if (rc)
			sbuf_adds(err, "the tracefs probe sent no tracepoints");
	}
	sbuf_release(&in);
	return rc;
}

static int open_tracepoint(uint64_t id, pid_t pid)
{
	struct perf_event_attr a;
	memset(&a, 0, sizeof(a));
	a.size = sizeof(a);
	a.type = PERF_TYPE_TRACEPOINT;
	a.config = id;
	a.read_format = PERF_FORMAT_TOTAL_TIME_ENABLED | PERF_FORMAT_TOTAL_TIME_RUNNING;
	a.disabled = 1;
	a.enable_on_exec = 1;
	a.inherit = 1;
	long fd = syscall(SYS_perf_event_open, &a, pid, -1, -1, PERF_FLAG_FD_CLOEXEC);
	return fd < 0 ? -1 : (int)fd;
}

/* Why a tracepoint event does not open (errnum), and what to do. */
static void explain_open(int errnum, struct sbuf *out)
{
	switch (errnum) {
	case EACCES:
	case EPERM:
		sbuf_addf(
		    out,
		    "opening the syscall tracepoints is not permitted (%s): run as root, "
		    "give kagari CAP_PERFMON, or `sudo sysctl kernel.perf_event_paranoid=-1`; "
		    "in a container, its seccomp policy may block perf_event_open",
		    errnum == EACCES ? "EACCES" : "EPERM");
		break;
	case ENOSYS:
		sbuf_adds(out, "perf_event_open is not available (ENOSYS: a kernel without "
			       "CONFIG_PERF_EVENTS, or a sandbox such as gVisor)");
		break;
	case EMFILE:
	case ENFILE:
		sbuf_addf(out,
			  "too many open files for one event per system call (%s); raise the "
			  "limit with `ulimit -n 4096`",
			  errnum == EMFILE ? "EMFILE" : "ENFILE");
		break;
	default:
		sbuf_addf(out, "perf_event_open for a syscall tracepoint failed: %s",
			  strerror(errnum));
		break;
	}
}

void syscalls_probe(struct syscalls_probe *p)
{
	memset(p, 0, sizeof(*p));
	struct sbuf err = SBUF_INIT;
	const char *events = mounted_events();
	int rc;
	if (events) {
		rc = syscalls_read_ids(events, p, &err);
	} else {
		rc = private_mount_ids(p, &err);
		p->private_mount = 1;
	}
	if (rc == 0) {
		int fd = open_tracepoint(p->total_id, 0);
		if (fd < 0) {
			explain_open(errno, &err);
			rc = -1;
		} else {
			close(fd);
		}
	}
	if (rc) {
		struct sbuf why = SBUF_INIT;
		sbuf_addf(&why, "system calls cannot be counted here: %s", err.buf);
		if (!events && geteuid() != 0)
			sbuf_adds(&why, " (mount it with `sudo mount -t tracefs nodev "
					"/sys/kernel/tracing`, and allow tracepoint events)");
		p->why = sbuf_detach(&why);
		free_names(p);
	} else {
		p->ok = 1;
	}
	sbuf_release(&err);
}

void syscalls_probe_release(struct syscalls_probe *p)
{
	free_names(p);
	free(p->why);
	memset(p, 0, sizeof(*p));
}

static void close_all(struct syscalls_counter *c)
{
	for (size_t i = 0; i < c->nr; i++) {
		if (c->fd[i] >= 0)
			close(c->fd[i]);
		c->fd[i] = -1;
	}
}

void syscalls_release(struct syscalls_counter *c)
{
	close_all(c);
	free(c->fd);
	c->fd = NULL;
	c->nr = 0;
}

int syscalls_begin(struct syscalls_counter *c, struct syscalls_probe *p, pid_t pid,
		   struct sbuf *err)
{
	syscalls_release(c);
	if (hold(p)) {
		explain_open(errno, err);
		return -1;
	}
	c->fd = xcalloc(p->nr + 1, sizeof(*c->fd));
	c->nr = p->nr;
	for (size_t i = 0; i < c->nr; i++)
		c->fd[i] = -1;
	/* No raw_syscalls:sys_enter event beside the names: a second
	   tracepoint handler on every call cost 15% of a write-bound run
	   (bench/counts.sh), and the names' sum equalled its count for every
	   program tried (ls -lR, sh pipelines, python3, valgrind). */
	int bad = 0;
	for (size_t i = 0; !bad && i < c->nr; i++)
		bad = (c->fd[i] = open_tracepoint(p->ids[i], pid)) < 0;
	if (bad) {
		explain_open(errno, err);
		close_all(c);
		return -1;
	}
	return 0;
}

/* One event's count; -1 when it cannot be read. */
static int read_count(int fd, uint64_t *v)
{
	uint64_t buf[3];
	ssize_t n;
	do
		n = read(fd, buf, sizeof(buf));
	while (n < 0 && errno == EINTR);
	if (n != (ssize_t)sizeof(buf))
		return -1;
	*v = buf[0];
	return 0;
}

int syscalls_end(struct syscalls_counter *c, uint64_t *total, uint64_t *counts, struct sbuf *err)
{
	int rc = 0;
	*total = 0;
	for (size_t i = 0; i < c->nr; i++) {
		counts[i] = 0;
		if (c->fd[i] < 0 || read_count(c->fd[i], &counts[i]))
			rc = -1;
		*total += counts[i];
	}
	if (rc)
		sbuf_addf(err, "reading the syscall tracepoint counts failed (%s)",
			  errno ? strerror(errno) : "short read");
	close_all(c);
	return rc;
}
