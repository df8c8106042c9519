/*
 * kagari-helper: a controllable child process for kagari's tests.
 *
 * Usage: kagari-helper [--pidfile F] STEP [ARG] [STEP [ARG]]...
 *
 * Steps run left to right; the program exits 0 after the last one unless a
 * step ends it first. Any error (unknown step, bad argument) exits 99 with a
 * message on stderr.
 *
 *   --pidfile F      pids of processes started by later steps are appended
 *                    to F, one per line (the file is written before the step
 *                    moves on, so a test can read it once we exit or hang)
 *   sleep MS         sleep MS milliseconds
 *   minority FILE    a program slow on some of its runs: FILE holds
 *                    "PERMILLE FACTOR MS [COUNT]"; the run sleeps MS * FACTOR
 *                    ms when the COUNT-th draw of a fixed generator is below
 *                    PERMILLE/1000, else MS ms, and writes COUNT + 1 back
 *                    (the same draws on every machine: a fixed seed)
 *   burn MS          spin on the CPU until MS ms of CPU time are used
 *   work N           a deterministic CPU loop of N iterations
 *   alloc MIB        malloc MIB MiB and touch every page (kept until exit)
 *   mallocs N        N malloc/free pairs of 64 bytes
 *   threads N        start N threads that each make 1000 malloc/free pairs
 *                    of 64 bytes, and join them
 *   fork-mallocs N   fork a child that makes N malloc/free pairs of 64
 *                    bytes and exits normally; wait for it
 *   writes N         N write(2) calls of one byte each to /dev/null
 *   fork-writes N    fork a child that makes N such writes and exits
 *                    through _exit; wait for it
 *   _exit CODE       leave at once through _exit(2) (no atexit handlers,
 *                    no destructors)
 *   spawn N          fork N children that each sleep 300 s
 *   grandchild       fork a child that forks a grandchild; both sleep 300 s
 *   setsid-escape    fork a child that calls setsid() and sleeps 300 s; the
 *                    step returns once the child is in its own session
 *   ignore-term      ignore SIGTERM from now on (to exercise SIGKILL)
 *   exit CODE        exit with CODE now
 *   signal NAME      raise signal NAME (e.g. SEGV, SIGKILL, 9) with its
 *                    default action
 *   stdout TEXT      write TEXT and a newline to stdout
 *   stderr TEXT      write TEXT and a newline to stderr
 *   stdout-bytes N   write N bytes ('o') to stdout
 *   stderr-bytes N   write N bytes ('e') to stderr
 *   cat              copy stdin to stdout
 *   env NAME         print the value of NAME and a newline (exit 1 if unset)
 *   pwd              print the working directory and a newline
 *   fds              print the open descriptor numbers, space-separated,
 *                    and a newline (the one used to list them excluded)
 *   tty              print "tty 0:A 1:B 2:C ctty:D fg:E size:COLSxROWS":
 *                    isatty() of 0-2, whether /dev/tty (a controlling
 *                    terminal) opens, whether our group is its foreground
 *                    group, and the window size of fd 0 (0x0 if none)
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/ioctl.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#define LONG_SLEEP_S 300

static const char *pidfile;

/* Exactly n write(2) calls (one byte each) to /dev/null. */
static void writes(long n)
{
	int fd = open("/dev/null", O_WRONLY | O_CLOEXEC);
	if (fd < 0)
		return;
	for (long k = 0; k < n; k++)
		if (write(fd, "x", 1) != 1)
			break;
	close(fd);
}

static void die(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
static void die(const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	fprintf(stderr, "kagari-helper: ");
	vfprintf(stderr, fmt, ap);
	fputc('\n', stderr);
	va_end(ap);
	exit(99);
}

static long num(const char *s)
{
	char *end;
	if (!s)
		die("missing argument");
	errno = 0;
	long v = strtol(s, &end, 10);
	if (errno || *end || end == s || v < 0)
		die("bad number '%s'", s);
	return v;
}

static void write_all(int fd, const char *p, size_t n)
{
	while (n) {
		ssize_t w = write(fd, p, n);
		if (w < 0 && errno == EINTR)
			continue;
		if (w < 0)
			exit(98);
		p += w;
		n -= (size_t)w;
	}
}

static void record_pid(pid_t pid)
{
	if (!pidfile)
		return;
	FILE *f = fopen(pidfile, "a");
	if (!f)
		die("cannot open pidfile '%s'", pidfile);
	fprintf(f, "%d\n", (int)pid);
	fclose(f);
}

static void sleep_ms(long ms)
{
	struct timespec ts = {ms / 1000, (ms % 1000) * 1000000L};
	while (nanosleep(&ts, &ts) < 0 && errno == EINTR)
		;
}

static void long_sleep(void)
{
	sleep_ms(LONG_SLEEP_S * 1000L);
	_exit(0);
}

static void mallocs(long n)
{
	for (long k = 0; k < n; k++) {
		volatile char *p = malloc(64);
		if (p)
			p[0] = 1;
		free((void *)p);
	}
}

static void *thread_mallocs(void *arg)
{
	(void)arg;
	mallocs(1000);
	return NULL;
}

static double cpu_ms(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
	return (double)ts.tv_sec * 1e3 + (double)ts.tv_nsec / 1e6;
}

static int signal_by_name(const char *name)
{
	static const struct {
		const char *name;
		int sig;
	} t[] = {
	    {"HUP", SIGHUP},   {"INT", SIGINT},	  {"QUIT", SIGQUIT}, {"ILL", SIGILL},
	    {"TRAP", SIGTRAP}, {"ABRT", SIGABRT}, {"BUS", SIGBUS},   {"FPE", SIGFPE},
	    {"KILL", SIGKILL}, {"USR1", SIGUSR1}, {"SEGV", SIGSEGV}, {"USR2", SIGUSR2},
	    {"PIPE", SIGPIPE}, {"ALRM", SIGALRM}, {"TERM", SIGTERM}, {"XCPU", SIGXCPU},
	    {"XFSZ", SIGXFSZ}, {"SYS", SIGSYS},
	};
	if (name[0] >= '0' && name[0] <= '9')
		return (int)num(name);
	if (!strncasecmp(name, "SIG", 3))
		name += 3;
	for (size_t i = 0; i < sizeof(t) / sizeof(t[0]); i++)
		if (!strcasecmp(t[i].name, name))
			return t[i].sig;
	die("unknown signal '%s'", name);
	return 0;
}

static void print_fds(void)
{
	DIR *d = opendir("/proc/self/fd");
	if (!d)
		die("cannot list fds");
	int self = dirfd(d), first = 1;
	struct dirent *de;
	while ((de = readdir(d))) {
		if (de->d_name[0] == '.' || atoi(de->d_name) == self)
			continue;
		printf("%s%s", first ? "" : " ", de->d_name);
		first = 0;
	}
	closedir(d);
	printf("\n");
	fflush(stdout);
}

static void write_bytes(int fd, long n, char c)
{
	char buf[4096];
	memset(buf, c, sizeof(buf));
	while (n > 0) {
		size_t k = n > (long)sizeof(buf) ? sizeof(buf) : (size_t)n;
		write_all(fd, buf, k);
		n -= (long)k;
	}
}

int main(int argc, char **argv)
{
	for (int i = 1; i < argc; i++) {
		const char *step = argv[i];
		const char *arg = i + 1 < argc ? argv[i + 1] : NULL;

		if (!strcmp(step, "--pidfile")) {
			if (!arg)
				die("--pidfile needs a file");
			pidfile = arg;
			i++;
		} else if (!strcmp(step, "sleep")) {
			sleep_ms(num(arg));
			i++;
		} else if (!strcmp(step, "minority")) {
			long permille = 0, factor = 1, ms = 0, count = 0;
			FILE *f;

			if (!arg)
				die("minority needs a file");
			f = fopen(arg, "r");
			if (!f || fscanf(f, "%ld %ld %ld %ld", &permille, &factor, &ms, &count) < 3)
				die("minority: cannot read '%s'", arg);
			fclose(f);
			/* splitmix64 of the run's number: a fixed draw per run */
			unsigned long long z = (unsigned long long)count + 0x9e3779b97f4a7c15ULL;
			z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
			z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
			z ^= z >> 31;
			f = fopen(arg, "w");
			if (!f)
				die("minority: cannot write '%s'", arg);
			fprintf(f, "%ld %ld %ld %ld\n", permille, factor, ms, count + 1);
			fclose(f);
			sleep_ms((long)(z % 1000) < permille ? ms * factor : ms);
			i++;
		} else if (!strcmp(step, "burn")) {
			double end = cpu_ms() + (double)num(arg);
			volatile unsigned long acc = 1;
			i++;
			/* Mostly user time: the clock read is a system call. */
			while (cpu_ms() < end)
				for (int k = 0; k < 200000; k++)
					acc = acc * 6364136223846793005UL + 1;
		} else if (!strcmp(step, "work")) {
			volatile unsigned long acc = 1;
			long n = num(arg);
			i++;
			for (long k = 0; k < n; k++)
				acc = acc * 6364136223846793005UL + 1;
		} else if (!strcmp(step, "alloc")) {
			size_t bytes = (size_t)num(arg) << 20;
			i++;
			volatile char *p = malloc(bytes ? bytes : 1);
			if (!p)
				die("out of memory");
			for (size_t k = 0; k < bytes; k += 4096)
				p[k] = 1;
			/* Kept (not freed) until exit, deliberately. */
		} else if (!strcmp(step, "mallocs")) {
			long n = num(arg);
			i++;
			mallocs(n);
		} else if (!strcmp(step, "threads")) {
			long n = num(arg);
			i++;
			pthread_t *t = calloc((size_t)n + 1, sizeof(*t));
			if (!t)
				die("out of memory");
			for (long k = 0; k < n; k++)
				if (pthread_create(&t[k], NULL, thread_mallocs, NULL))
					die("pthread_create failed");
			for (long k = 0; k < n; k++)
				pthread_join(t[k], NULL);
			free(t);
		} else if (!strcmp(step, "fork-mallocs")) {
			long n = num(arg);
			i++;
			fflush(NULL);
			pid_t pid = fork();
			if (pid < 0)
				die("fork failed");
			if (pid == 0) {
				mallocs(n);
				exit(0);
			}
			int st;
			while (waitpid(pid, &st, 0) < 0 && errno == EINTR)
				;
		} else if (!strcmp(step, "writes")) {
			long n = num(arg);
			i++;
			writes(n);
		} else if (!strcmp(step, "fork-writes")) {
			long n = num(arg);
			i++;
			fflush(NULL);
			pid_t pid = fork();
			if (pid < 0)
				die("fork failed");
			if (pid == 0) {
				writes(n);
				_exit(0);
			}
			int st;
			while (waitpid(pid, &st, 0) < 0 && errno == EINTR)
				;
		} else if (!strcmp(step, "_exit")) {
			fflush(NULL);
			_exit((int)num(arg));
		} else if (!strcmp(step, "spawn")) {
			long n = num(arg);
			i++;
			for (long k = 0; k < n; k++) {
				fflush(NULL);
				pid_t pid = fork();
				if (pid < 0)
					die("fork failed");
				if (pid == 0)
					long_sleep();
				record_pid(pid);
			}
		} else if (!strcmp(step, "grandchild")) {
			int p[2];
			if (pipe(p) < 0)
				die("pipe failed");
			fflush(NULL);
			pid_t pid = fork();
			if (pid < 0)
				die("fork failed");
			if (pid == 0) {
				pid_t g = fork();
				if (g == 0)
					long_sleep();
				if (write(p[1], &g, sizeof(g)) < 0)
					_exit(1);
				long_sleep();
			}
			pid_t g = -1;
			if (read(p[0], &g, sizeof(g)) != sizeof(g))
				die("grandchild failed");
			close(p[0]);
			close(p[1]);
			record_pid(pid);
			record_pid(g);
		} else if (!strcmp(step, "setsid-escape")) {
			int p[2];
			if (pipe(p) < 0)
				die("pipe failed");
			fflush(NULL);
			pid_t pid = fork();
			if (pid < 0)
				die("fork failed");
			if (pid == 0) {
				close(p[0]);
				if (setsid() < 0)
					_exit(1);
				if (write(p[1], "x", 1) < 0)
					_exit(1);
				close(p[1]);
				long_sleep();
			}
			close(p[1]);
			char c;
			if (read(p[0], &c, 1) != 1)
				die("setsid-escape failed");
			close(p[0]);
			record_pid(pid);
		} else if (!strcmp(step, "ignore-term")) {
			signal(SIGTERM, SIG_IGN);
		} else if (!strcmp(step, "exit")) {
			fflush(NULL);
			exit((int)num(arg));
		} else if (!strcmp(step, "signal")) {
			if (!arg)
				die("signal needs a name");
			int sig = signal_by_name(arg);
			fflush(NULL);
			signal(sig, SIG_DFL);
			sigset_t set;
			sigemptyset(&set);
			sigaddset(&set, sig);
			sigprocmask(SIG_UNBLOCK, &set, NULL);
			raise(sig);
			die("signal '%s' did not end the process", arg);
		} else if (!strcmp(step, "stdout") || !strcmp(step, "stderr")) {
			if (!arg)
				die("%s needs a text", step);
			int fd = step[3] == 'o' ? 1 : 2;
			fflush(NULL);
			write_all(fd, arg, strlen(arg));
			write_all(fd, "\n", 1);
			i++;
		} else if (!strcmp(step, "stdout-bytes")) {
			fflush(NULL);
			write_bytes(1, num(arg), 'o');
			i++;
		} else if (!strcmp(step, "stderr-bytes")) {
			fflush(NULL);
			write_bytes(2, num(arg), 'e');
			i++;
		} else if (!strcmp(step, "cat")) {
			char buf[65536];
			ssize_t n;
			fflush(NULL);
			while ((n = read(0, buf, sizeof(buf))) != 0) {
				if (n < 0 && errno == EINTR)
					continue;
				if (n < 0)
					die("cannot read stdin");
				write_all(1, buf, (size_t)n);
			}
		} else if (!strcmp(step, "env")) {
			if (!arg)
				die("env needs a name");
			const char *v = getenv(arg);
			if (!v)
				exit(1);
			printf("%s\n", v);
			fflush(stdout);
			i++;
		} else if (!strcmp(step, "pwd")) {
			char *cwd = getcwd(NULL, 0);
			if (!cwd)
				die("getcwd failed");
			printf("%s\n", cwd);
			fflush(stdout);
			free(cwd);
		} else if (!strcmp(step, "parent-to") && i + 1 < argc) {
			/* append "PARENT-COMM CWD" to FILE: who started us, where */
			char path[64], comm[64] = "";
			snprintf(path, sizeof(path), "/proc/%d/comm", (int)getppid());
			FILE *f = fopen(path, "r");
			if (f) {
				if (!fgets(comm, sizeof(comm), f))
					comm[0] = '\0';
				fclose(f);
			}
			comm[strcspn(comm, "\n")] = '\0';
			char *cwd = getcwd(NULL, 0);
			FILE *o = fopen(argv[++i], "a");
			if (!o || !cwd)
				die("parent-to failed");
			fprintf(o, "%s %s\n", comm, cwd);
			fclose(o);
			free(cwd);
		} else if (!strcmp(step, "fds")) {
			print_fds();
		} else if (!strcmp(step, "tty")) {
			struct winsize ws;
			memset(&ws, 0, sizeof(ws));
			int ctty = open("/dev/tty", O_RDWR | O_NOCTTY | O_CLOEXEC);
			int fg = isatty(0) && tcgetpgrp(0) == getpgrp();
			if (ioctl(0, TIOCGWINSZ, &ws) < 0)
				memset(&ws, 0, sizeof(ws));
			printf("tty 0:%d 1:%d 2:%d ctty:%d fg:%d size:%dx%d\n", isatty(0),
			       isatty(1), isatty(2), ctty >= 0, fg, ws.ws_col, ws.ws_row);
			fflush(stdout);
			if (ctty >= 0)
				close(ctty);
		} else {
			die("unknown step '%s'", step);
		}
	}
	fflush(NULL);
	return 0;
}
