/*
 * proc/proc: the Linux-specific process plumbing behind child.c and
 * runner.c (proc.h): signal names, the child subreaper, children listed
 * through /proc and stray descendants reaped, pidfds, and masking secrets
 * in captured text.
 */
#include "proc/proc.h"

#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <sys/utsname.h>
#include <sys/wait.h>
#include <unistd.h>

#include "base/sbuf.h"
#include "base/strvec.h"
#include "base/xalloc.h"

extern char **environ;

struct signame {
	int sig;
	const char *name;
};

static const struct signame signames[] = {
    {SIGHUP, "SIGHUP"},	      {SIGINT, "SIGINT"},   {SIGQUIT, "SIGQUIT"},
    {SIGILL, "SIGILL"},	      {SIGTRAP, "SIGTRAP"}, {SIGABRT, "SIGABRT"},
    {SIGBUS, "SIGBUS"},	      {SIGFPE, "SIGFPE"},   {SIGKILL, "SIGKILL"},
    {SIGUSR1, "SIGUSR1"},     {SIGSEGV, "SIGSEGV"}, {SIGUSR2, "SIGUSR2"},
    {SIGPIPE, "SIGPIPE"},     {SIGALRM, "SIGALRM"}, {SIGTERM, "SIGTERM"},
#ifdef SIGSTKFLT
    {SIGSTKFLT, "SIGSTKFLT"},
#endif
    {SIGCHLD, "SIGCHLD"},     {SIGCONT, "SIGCONT"}, {SIGSTOP, "SIGSTOP"},
    {SIGTSTP, "SIGTSTP"},     {SIGTTIN, "SIGTTIN"}, {SIGTTOU, "SIGTTOU"},
    {SIGURG, "SIGURG"},	      {SIGXCPU, "SIGXCPU"}, {SIGXFSZ, "SIGXFSZ"},
    {SIGVTALRM, "SIGVTALRM"}, {SIGPROF, "SIGPROF"}, {SIGWINCH, "SIGWINCH"},
    {SIGIO, "SIGIO"},
#ifdef SIGPWR
    {SIGPWR, "SIGPWR"},
#endif
    {SIGSYS, "SIGSYS"},
};

/* Real-time signals are named relative to the nearer end, as bash does. */
static const char *const rtmin_names[] = {
    "SIGRTMIN",	   "SIGRTMIN+1",  "SIGRTMIN+2",	 "SIGRTMIN+3",	"SIGRTMIN+4",  "SIGRTMIN+5",
    "SIGRTMIN+6",  "SIGRTMIN+7",  "SIGRTMIN+8",	 "SIGRTMIN+9",	"SIGRTMIN+10", "SIGRTMIN+11",
    "SIGRTMIN+12", "SIGRTMIN+13", "SIGRTMIN+14", "SIGRTMIN+15",
};
static const char *const rtmax_names[] = {
    "SIGRTMAX",	   "SIGRTMAX-1",  "SIGRTMAX-2",	 "SIGRTMAX-3",	"SIGRTMAX-4",  "SIGRTMAX-5",
    "SIGRTMAX-6",  "SIGRTMAX-7",  "SIGRTMAX-8",	 "SIGRTMAX-9",	"SIGRTMAX-10", "SIGRTMAX-11",
    "SIGRTMAX-12", "SIGRTMAX-13", "SIGRTMAX-14", "SIGRTMAX-15",
};

#define ARRAY_LEN(a) (sizeof(a) / sizeof((a)[0]))

const char *proc_signal_name(int sig)
{
	for (size_t i = 0; i < ARRAY_LEN(signames); i++)
		if (signames[i].sig == sig)
			return signames[i].name;
	if (sig >= SIGRTMIN && sig <= SIGRTMAX) {
		int lo = sig - SIGRTMIN, hi = SIGRTMAX - sig;
		if (lo <= hi && (size_t)lo < ARRAY_LEN(rtmin_names))
			return rtmin_names[lo];
		if ((size_t)hi < ARRAY_LEN(rtmax_names))
			return rtmax_names[hi];
	}
	return "SIG?";
}

int proc_signal_number(const char *name)
{
	if (!name || !*name)
		return -1;
	if (isdigit((unsigned char)*name)) {
		char *end;
		long n = strtol(name, &end, 10);
		return (*end || n < 1 || n > SIGRTMAX) ? -1 : (int)n;
	}
	if (!strncasecmp(name, "SIG", 3))
		name += 3;
	for (size_t i = 0; i < ARRAY_LEN(signames); i++)
		if (!strcasecmp(signames[i].name + 3, name))
			return signames[i].sig;
	for (int sig = SIGRTMIN; sig <= SIGRTMAX; sig++)
		if (!strcasecmp(proc_signal_name(sig) + 3, name))
			return sig;
	return -1;
}

int proc_become_subreaper(struct sbuf *err)
{
	if (prctl(PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0) < 0) {
		sbuf_addf(err, "cannot become a child subreaper: %s", strerror(errno));
		return -1;
	}
	return 0;
}

int proc_is_subreaper(void)
{
	int on = 0;
	if (prctl(PR_GET_CHILD_SUBREAPER, &on, 0, 0, 0) < 0)
		return 0;
	return on != 0;
}

int proc_has_no_children(void)
{
	siginfo_t si;
	memset(&si, 0, sizeof(si));
	if (waitid(P_ALL, 0, &si, WEXITED | WNOHANG | WNOWAIT | __WALL) < 0)
		return errno == ECHILD;
	return 0;
}

static void push_pid(pid_t **pids, size_t *nr, size_t *alloc, pid_t pid)
{
	ALLOC_GROW(*pids, *nr + 1, *alloc);
	(*pids)[(*nr)++] = pid;
}

/* Parse a space-separated list of pids, as in /proc/.../children. */
static void parse_pids(const char *s, pid_t **pids, size_t *nr, size_t *alloc)
{
	while (*s) {
		char *end;
		long v = strtol(s, &end, 10);
		if (end == s) {
			s++;
			continue;
		}
		if (v > 0)
			push_pid(pids, nr, alloc, (pid_t)v);
		s = end;
	}
}

/* Read a small /proc file into sb; 0 or -1 with errno. */
static int read_proc_file(const char *path, struct sbuf *sb)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return -1;
	sbuf_reset(sb);
	for (;;) {
		sbuf_grow(sb, 512);
		ssize_t n = read(fd, sb->buf + sb->len, sb->alloc - sb->len - 1);
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0) {
			int e = errno;
			close(fd);
			errno = e;
			return -1;
		}
		if (n == 0)
			break;
		sbuf_extend(sb, (size_t)n);
	}
	close(fd);
	return 0;
}

/* Slow path for kernels without CONFIG_PROC_CHILDREN: scan every process. */
static int scan_children(pid_t **pids, size_t *nr, size_t *alloc)
{
	DIR *d = opendir("/proc");
	if (!d)
		return -1;
	pid_t self = getpid();
	struct sbuf path = SBUF_INIT, stat = SBUF_INIT;
	struct dirent *de;
	while ((de = readdir(d))) {
		if (!isdigit((unsigned char)de->d_name[0]))
			continue;
		sbuf_reset(&path);
		sbuf_addf(&path, "/proc/%s/stat", de->d_name);
		if (read_proc_file(path.buf, &stat))
			continue;
		/* "pid (comm) state ppid ...": comm may hold ')' and spaces. */
		const char *p = strrchr(stat.buf, ')');
		char state;
		int ppid;
		if (p && sscanf(p + 1, " %c %d", &state, &ppid) == 2 && ppid == self)
			push_pid(pids, nr, alloc, (pid_t)atoi(de->d_name));
	}
	closedir(d);
	sbuf_release(&path);
	sbuf_release(&stat);
	return 0;
}

int proc_list_children(pid_t **pids, size_t *nr, size_t *alloc)
{
	DIR *d = opendir("/proc/self/task");
	if (!d)
		return scan_children(pids, nr, alloc);
	struct sbuf path = SBUF_INIT, text = SBUF_INIT;
	struct dirent *de;
	int rc = 0, fallback = 0;
	while ((de = readdir(d))) {
		if (!isdigit((unsigned char)de->d_name[0]))
			continue;
		sbuf_reset(&path);
		sbuf_addf(&path, "/proc/self/task/%s/children", de->d_name);
		if (read_proc_file(path.buf, &text)) {
			/* A thread that just exited is gone: skip it. Any
			 * other failure means the file does not exist here. */
			if (errno == ENOENT) {
				struct sbuf t = SBUF_INIT;
				sbuf_addf(&t, "/proc/self/task/%s", de->d_name);
				int gone = access(t.buf, F_OK) < 0;
				sbuf_release(&t);
				if (gone)
					continue;
			}
			fallback = 1;
			break;
		}
		parse_pids(text.buf, pids, nr, alloc);
	}
	closedir(d);
	sbuf_release(&path);
	sbuf_release(&text);
	if (fallback)
		rc = scan_children(pids, nr, alloc);
	return rc;
}

static int pid_in(pid_t pid, const pid_t *set, size_t n)
{
	for (size_t i = 0; i < n; i++)
		if (set[i] == pid)
			return 1;
	return 0;
}

int proc_reap_strays(const pid_t *keep, size_t nkeep)
{
	pid_t *kids = NULL, *skip = NULL;
	size_t nr = 0, alloc = 0, nskip = 0, skip_alloc = 0;
	int reaped = 0;

	/* Each pass kills the current strays; their own children are then
	 * reparented to us and caught by the next pass. The bound only guards
	 * against a pathological fork bomb outpacing us. */
	for (int pass = 0; pass < 1000; pass++) {
		nr = 0;
		if (proc_list_children(&kids, &nr, &alloc))
			break;
		size_t victims = 0;
		for (size_t i = 0; i < nr; i++) {
			pid_t pid = kids[i];
			if (pid_in(pid, keep, nkeep) || pid_in(pid, skip, nskip))
				continue;
			if (kill(pid, SIGKILL) < 0 && errno == EPERM) {
				/* A set-uid program we may not signal: waiting
				 * for it could block forever. */
				push_pid(&skip, &nskip, &skip_alloc, pid);
				continue;
			}
			kids[victims++] = pid;
		}
		if (!victims)
			break;
		for (size_t i = 0; i < victims; i++) {
			while (waitpid(kids[i], NULL, __WALL) < 0 && errno == EINTR)
				;
			reaped++;
		}
	}
	free(kids);
	free(skip);
	return reaped;
}

int proc_pidfd_open(pid_t pid)
{
#ifdef SYS_pidfd_open
	/* pidfds are always close-on-exec. */
	return (int)syscall(SYS_pidfd_open, pid, 0);
#else
	errno = ENOSYS;
	return -1;
#endif
}

static const char *const secret_words[] = {
    "TOKEN", "SECRET", "PASSWORD", "KEY", "AUTH", "COOKIE", "SESSION", "CREDENTIAL",
};

static int name_is_secret(const char *name, size_t len)
{
	for (size_t w = 0; w < ARRAY_LEN(secret_words); w++) {
		size_t wl = strlen(secret_words[w]);
		for (size_t i = 0; i + wl <= len; i++)
			if (!strncasecmp(name + i, secret_words[w], wl))
				return 1;
	}
	return 0;
}

struct secret {
	const char *value;
	size_t len;
};

static int by_length_desc(const void *a, const void *b)
{
	const struct secret *x = a, *y = b;
	return (x->len < y->len) - (x->len > y->len);
}

char *proc_mask_secrets(const char *text, const char *const *envp)
{
	if (!envp)
		envp = (const char *const *)environ;
	struct secret *sec = NULL;
	size_t nsec = 0, alloc = 0;
	for (; envp && *envp; envp++) {
		const char *eq = strchr(*envp, '=');
		if (!eq || !name_is_secret(*envp, (size_t)(eq - *envp)))
			continue;
		size_t len = strlen(eq + 1);
		if (len < 4)
			continue;
		ALLOC_GROW(sec, nsec + 1, alloc);
		sec[nsec].value = eq + 1;
		sec[nsec].len = len;
		nsec++;
	}
	if (!nsec)
		return xstrdup(text);
	qsort(sec, nsec, sizeof(*sec), by_length_desc);

	struct sbuf out = SBUF_INIT;
	const char *p = text;
	while (*p) {
		size_t i;
		for (i = 0; i < nsec; i++)
			if (*p == sec[i].value[0] && !strncmp(p, sec[i].value, sec[i].len))
				break;
		if (i < nsec) {
			sbuf_adds(&out, "***");
			p += sec[i].len;
		} else {
			/* Copy the run up to the next possible match start. */
			const char *q = p + 1;
			while (*q) {
				size_t j;
				for (j = 0; j < nsec; j++)
					if (*q == sec[j].value[0])
						break;
				if (j < nsec)
					break;
				q++;
			}
			sbuf_add(&out, p, (size_t)(q - p));
			p = q;
		}
	}
	free(sec);
	return sbuf_detach(&out);
}

/* git's `rev-parse --local-env-vars` without the configuration ones. */
static const char *const git_repo_env[] = {
    "GIT_DIR",
    "GIT_WORK_TREE",
    "GIT_IMPLICIT_WORK_TREE",
    "GIT_INDEX_FILE",
    "GIT_COMMON_DIR",
    "GIT_PREFIX",
    "GIT_OBJECT_DIRECTORY",
    "GIT_ALTERNATE_OBJECT_DIRECTORIES",
    "GIT_QUARANTINE_PATH",
    "GIT_GRAFT_FILE",
    "GIT_NO_REPLACE_OBJECTS",
    "GIT_REPLACE_REF_BASE",
    "GIT_SHALLOW_FILE",
    "GIT_INTERNAL_SUPER_PREFIX",
    NULL,
};

static int is_git_repo_var(const char *entry)
{
	for (const char *const *d = git_repo_env; *d; d++) {
		size_t n = strlen(*d);
		if (!strncmp(entry, *d, n) && entry[n] == '=')
			return 1;
	}
	return 0;
}

void proc_env_without_git_repo(struct strvec *env, const char *const *envp)
{
	if (!envp)
		envp = (const char *const *)environ;
	for (; *envp; envp++)
		if (!is_git_repo_var(*envp))
			strvec_push(env, *envp);
}

const int proc_fatal_signals[] = {
    SIGHUP,  SIGINT,  SIGQUIT, SIGTERM, SIGUSR1, SIGUSR2,   SIGALRM, SIGVTALRM,
    SIGPROF, SIGXCPU, SIGXFSZ, SIGIO,	SIGPWR,	 SIGSTKFLT, 0,
};

/*
 * Start time (clock ticks after boot, field 22 of /proc/PID/stat) and state
 * of a process. Returns 0, or -1 when /proc does not know it.
 */
static int proc_start(long pid, unsigned long long *ticks, char *state)
{
	struct sbuf path = SBUF_INIT, stat_text = SBUF_INIT;
	int ret = -1;

	sbuf_addf(&path, "/proc/%ld/stat", pid);
	if (sbuf_read_file(&stat_text, path.buf, 1 << 16) == 0) {
		/* The command name may hold spaces and ')': skip past the
		 * last ')', then state is field 3 and starttime field 22. */
		const char *p = strrchr(stat_text.buf, ')');
		if (p) {
			char st = 0;
			unsigned long long t = 0;
			if (sscanf(p + 1,
				   " %c %*s %*s %*s %*s %*s %*s %*s %*s %*s "
				   "%*s %*s %*s %*s %*s %*s %*s %*s %*s %llu",
				   &st, &t) == 2) {
				*ticks = t;
				*state = st;
				ret = 0;
			}
		}
	}
	sbuf_release(&path);
	sbuf_release(&stat_text);
	return ret;
}

/* This machine's name with anything but [A-Za-z0-9._-] made '_'. */
static void add_host(struct sbuf *sb)
{
	struct utsname u;
	size_t start = sb->len;
	if (uname(&u) < 0 || !u.nodename[0]) {
		sbuf_adds(sb, "unknown");
		return;
	}
	sbuf_adds(sb, u.nodename);
	for (size_t i = start; i < sb->len; i++) {
		char c = sb->buf[i];
		if (!((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
		      c == '.' || c == '_' || c == '-'))
			sb->buf[i] = '_';
	}
}

void proc_owner_tag(struct sbuf *sb)
{
	unsigned long long ticks = 0;
	char state;
	long pid = (long)getpid();
	if (proc_start(pid, &ticks, &state) < 0)
		ticks = 0;
	sbuf_addf(sb, "pid=%ld start=%llu host=", pid, ticks);
	add_host(sb);
}

int proc_owner_state(const char *tag)
{
	long pid = 0;
	unsigned long long start = 0, ticks;
	struct sbuf host = SBUF_INIT, here = SBUF_INIT;
	const char *p = tag;
	int ret = -1;
	char state;

	while (p && *p) {
		const char *sp = strchr(p, ' ');
		size_t n = sp ? (size_t)(sp - p) : strcspn(p, "\n");
		char *end;
		if (!n)
			break;
		if (n > 4 && !strncmp(p, "pid=", 4)) {
			errno = 0;
			pid = strtol(p + 4, &end, 10);
			if (errno || end != p + n || pid <= 0)
				goto out;
		} else if (n > 6 && !strncmp(p, "start=", 6)) {
			errno = 0;
			start = strtoull(p + 6, &end, 10);
			if (errno || end != p + n)
				goto out;
		} else if (n > 5 && !strncmp(p, "host=", 5)) {
			sbuf_reset(&host);
			sbuf_add(&host, p + 5, n - 5);
		}
		p += n;
		while (*p == ' ')
			p++;
	}
	if (pid <= 0)
		goto out;
	add_host(&here);
	if (host.len && strcmp(host.buf, here.buf))
		goto out;
	ret = 1;
	if (kill((pid_t)pid, 0) < 0 && errno == ESRCH)
		ret = 0;
	else if (proc_start(pid, &ticks, &state) == 0 &&
		 (state == 'Z' || state == 'X' || (start && ticks != start)))
		ret = 0; /* a zombie, or the pid was reused */
out:
	sbuf_release(&host);
	sbuf_release(&here);
	return ret;
}
