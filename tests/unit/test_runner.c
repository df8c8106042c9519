/*
 * Tests for measure/runner.c: commands run through the runner process give
 * the same outcomes as child_run(), the peak RSS of a measured command does
 * not inherit ours, interrupts and timeouts stop whole process trees, and
 * the runner cleans up when kagari dies.
 *
 * The runner is started in main(), before cmocka and before any test
 * allocates, as kagari's main() does.
 */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "base/sbuf.h"
#include "base/xalloc.h"
#include "proc/child.h"
#include "proc/proc.h"
#include "measure/runner.h"

#ifndef KAGARI_HELPER
#define KAGARI_HELPER "kagari-helper"
#endif

static struct runner runner;
static char tmpdir[] = "/tmp/kagari-test-runner-XXXXXX";

#define H KAGARI_HELPER

static int run(struct runner_request *q, struct child_result *res,
	       struct sbuf *err, const char *const *argv)
{
	q->argv = argv;
	return runner_run(&runner, q, res, err);
}

static void sleep_ms(long ms)
{
	struct timespec ts = {ms / 1000, (ms % 1000) * 1000000L};
	while (nanosleep(&ts, &ts) < 0 && errno == EINTR)
		;
}

static long elapsed_ms(const struct timespec *since)
{
	struct timespec now;
	clock_gettime(CLOCK_MONOTONIC, &now);
	return (now.tv_sec - since->tv_sec) * 1000L +
	       (now.tv_nsec - since->tv_nsec) / 1000000L;
}

/*
 * Poll cond(arg) every 5 ms until it holds (1) or timeout_ms have passed
 * (0, with a message naming what we waited for). The tests wait on the
 * condition they need (a pid file, a process in /proc, a signal taken)
 * instead of sleeping a fixed time: quick on a quiet machine, not flaky on
 * a loaded one. Usable in a forked child: it does not assert.
 */
#define WAIT_MS 20000
static int wait_until(long timeout_ms, int (*cond)(void *), void *arg,
		      const char *what)
{
	struct timespec start;
	clock_gettime(CLOCK_MONOTONIC, &start);
	while (!cond(arg)) {
		if (elapsed_ms(&start) >= timeout_ms) {
			fprintf(stderr, "gave up after %ld ms waiting for %s\n",
				timeout_ms, what);
			return 0;
		}
		sleep_ms(5);
	}
	return 1;
}

struct pid_list {
	const char *file;
	pid_t *pids;
	int expect;
};

/* The file lists (at least) l->expect pids; they are put in l->pids. */
static int pids_listed(void *arg)
{
	struct pid_list *l = arg;
	struct sbuf sb = SBUF_INIT;
	int n = 0;
	if (!sbuf_read_file(&sb, l->file, 1 << 20))
		for (char *p = sb.buf; *p && n < l->expect;) {
			char *end;
			long v = strtol(p, &end, 10);
			if (end == p)
				break;
			l->pids[n++] = (pid_t)v;
			p = end;
		}
	sbuf_release(&sb);
	return n == l->expect;
}

/* Pids listed in the file; asserts there are `expect` of them. The writer
 * may still be running (test_kagari_dies): wait for them. */
static void read_pids(const char *pidfile, pid_t *pids, int expect)
{
	struct pid_list l = {pidfile, pids, expect};
	assert_true(wait_until(WAIT_MS, pids_listed, &l, "the pid file"));
}

/* The runner has taken the SIGINT of runner_interrupt(): it is no longer
 * pending, so its handler has set the flag the next request will see. */
static int runner_took_sigint(void *arg)
{
	pid_t pid = *(pid_t *)arg;
	char path[64];
	struct sbuf sb = SBUF_INIT;
	int pending = 1;
	snprintf(path, sizeof(path), "/proc/%d/status", (int)pid);
	if (!sbuf_read_file(&sb, path, 1 << 20)) {
		pending = 0;
		static const char *const fields[] = {"SigPnd:", "ShdPnd:"};
		for (size_t i = 0; i < 2; i++) {
			const char *f = fields[i];
			const char *line = strstr(sb.buf, f);
			unsigned long long mask = 0;
			if (!line ||
			    sscanf(line + strlen(f), " %llx", &mask) != 1)
				pending = 1; /* cannot tell: keep waiting */
			else if (mask & (1ULL << (SIGINT - 1)))
				pending = 1;
		}
	}
	sbuf_release(&sb);
	return !pending;
}

static void interrupt_runner(void)
{
	pid_t pid = runner_pid(&runner);
	runner_interrupt(&runner);
	assert_true(wait_until(WAIT_MS, runner_took_sigint, &pid,
			       "the runner to take SIGINT"));
}

/* A child of the runner has exec'd `H STEP ...`: the command runs. */
struct command_of {
	pid_t parent;
	const char *step;
};

static int command_runs(void *arg)
{
	const struct command_of *w = arg;
	DIR *d = opendir("/proc");
	struct dirent *de;
	struct sbuf sb = SBUF_INIT;
	char path[64];
	int found = 0;
	if (!d)
		return 0;
	while (!found && (de = readdir(d))) {
		char *end;
		long pid = strtol(de->d_name, &end, 10);
		int ppid;
		char state;
		if (*end || pid <= 0)
			continue;
		sbuf_reset(&sb);
		snprintf(path, sizeof(path), "/proc/%ld/stat", pid);
		if (sbuf_read_file(&sb, path, 1 << 16))
			continue;
		const char *p = strrchr(sb.buf, ')');
		if (!p || sscanf(p + 1, " %c %d", &state, &ppid) != 2 ||
		    ppid != w->parent)
			continue;
		/* argv is NUL-separated: H, then the first step. */
		sbuf_reset(&sb);
		snprintf(path, sizeof(path), "/proc/%ld/cmdline", pid);
		if (sbuf_read_file(&sb, path, 1 << 16))
			continue;
		size_t hl = strlen(H);
		found = sb.len > hl + 1 && !strcmp(sb.buf, H) &&
			!strcmp(sb.buf + hl + 1, w->step);
	}
	closedir(d);
	sbuf_release(&sb);
	return found;
}

/*
 * Fork a process that waits until the runner's command `H STEP ...` runs,
 * then interrupts: through SIGALRM to us when `via_handler` (whose handler
 * calls runner_interrupt(), as kagari's own signal handler does), else by
 * calling runner_interrupt() itself. reap_interrupter() checks it saw the
 * command.
 */
static pid_t interrupt_when_running(const char *step, int via_handler)
{
	pid_t self = getpid();
	pid_t pid = fork();
	assert_true(pid >= 0);
	if (pid == 0) {
		struct command_of w = {runner_pid(&runner), step};
		int ok = wait_until(WAIT_MS, command_runs, &w,
				    "the runner's command to run");
		if (via_handler)
			kill(self, SIGALRM);
		else
			runner_interrupt(&runner);
		_exit(ok ? 0 : 1);
	}
	return pid;
}

static void reap_interrupter(pid_t pid)
{
	int status;
	assert_int_equal(waitpid(pid, &status, 0), pid);
	assert_true(WIFEXITED(status) && WEXITSTATUS(status) == 0);
}

static int pid_gone(pid_t pid)
{
	errno = 0;
	return kill(pid, 0) < 0 && errno == ESRCH;
}

static void test_outcomes(void **state)
{
	(void)state;
	struct runner_request q = RUNNER_REQUEST_INIT;
	struct child_result res = CHILD_RESULT_INIT;
	struct sbuf err = SBUF_INIT;

	assert_true(runner_pid(&runner) > 0);
	assert_int_equal(
	    run(&q, &res, &err, (const char *[]){H, "exit", "0", NULL}), 0);
	assert_int_equal(res.status, CHILD_EXITED);
	assert_true(res.wall_ns > 0);
	assert_int_equal(
	    run(&q, &res, &err, (const char *[]){H, "exit", "42", NULL}), 42);
	assert_int_equal(
	    run(&q, &res, &err, (const char *[]){H, "signal", "ABRT", NULL}),
	    128 + SIGABRT);
	assert_int_equal(res.status, CHILD_SIGNALED);
	assert_string_equal(proc_signal_name(res.signal), "SIGABRT");
	assert_int_equal(err.len, 0);

	assert_int_equal(
	    run(&q, &res, &err, (const char *[]){"kagari-no-such-cmd", NULL}),
	    -1);
	assert_int_equal(res.status, CHILD_SPAWN_FAILED);
	assert_int_equal(res.spawn_errno, ENOENT);
	assert_non_null(strstr(err.buf, "command not found: "
					"'kagari-no-such-cmd'"));

	/* The stderr tail comes back even though stderr was discarded. */
	assert_int_equal(
	    run(&q, &res, &err,
		(const char *[]){H, "stderr", "fatal: no", "exit", "1", NULL}),
	    1);
	assert_string_equal(res.stderr_tail.buf, "fatal: no\n");
	child_result_release(&res);
	sbuf_release(&err);
}

static void test_stdio(void **state)
{
	(void)state;
	struct runner_request q = RUNNER_REQUEST_INIT;
	struct child_result res = CHILD_RESULT_INIT;
	struct sbuf err = SBUF_INIT, got = SBUF_INIT;

	q.in = CHILD_IN_CONTENT;
	q.in_data = "abc\n";
	q.in_len = 4;
	q.out = CHILD_OUT_CAPTURE;
	for (int i = 0; i < 2; i++) {
		assert_int_equal(
		    run(&q, &res, &err, (const char *[]){H, "cat", NULL}), 0);
		assert_string_equal(res.out.buf, "abc\n");
	}

	q.envp = (const char *[]){"ONLY=this", NULL};
	q.dir = tmpdir;
	assert_int_equal(
	    run(&q, &res, &err,
		(const char *[]){H, "env", "ONLY", "pwd", "fds", NULL}),
	    0);
	struct sbuf want = SBUF_INIT;
	sbuf_addf(&want, "this\n%s\n0 1 2\n", tmpdir);
	assert_string_equal(res.out.buf, want.buf);
	sbuf_release(&want);
	q.envp = NULL;
	q.dir = NULL;

	char *path = xstrfmt("%s/out.txt", tmpdir);
	q.in = CHILD_IN_NULL;
	q.out = CHILD_OUT_FILE;
	q.out_path = path;
	assert_int_equal(
	    run(&q, &res, &err, (const char *[]){H, "stdout", "to file", NULL}),
	    0);
	assert_int_equal(sbuf_read_file(&got, path, 1 << 20), 0);
	assert_string_equal(got.buf, "to file\n");

	/* A descriptor of ours, passed over the socket. */
	int fd = open(path, O_WRONLY | O_TRUNC | O_CLOEXEC);
	assert_true(fd >= 0);
	q.out = CHILD_OUT_FD;
	q.out_fd = fd;
	assert_int_equal(
	    run(&q, &res, &err, (const char *[]){H, "stdout", "via fd", NULL}),
	    0);
	close(fd);
	sbuf_reset(&got);
	assert_int_equal(sbuf_read_file(&got, path, 1 << 20), 0);
	assert_string_equal(got.buf, "via fd\n");
	unlink(path);
	free(path);

	/* Large captures on both streams. */
	q.out = CHILD_OUT_CAPTURE;
	q.err = CHILD_OUT_CAPTURE;
	assert_int_equal(run(&q, &res, &err,
			     (const char *[]){H, "stdout-bytes", "500000",
					      "stderr-bytes", "300000", NULL}),
			 0);
	assert_int_equal(res.out.len, 500000);
	assert_int_equal(res.err.len, 300000);
	assert_int_equal(res.stderr_tail.len, CHILD_TAIL_MAX);

	/* runner_run_child: the same struct child, through the runner. */
	struct child c = CHILD_INIT;
	strvec_pushv(&c.argv,
		     (const char *[]){H, "stdout", "child", "exit", "5", NULL});
	c.out = CHILD_OUT_CAPTURE;
	assert_int_equal(runner_run_child(&runner, &c, &err), 5);
	assert_string_equal(c.res.out.buf, "child\n");
	child_release(&c);

	child_result_release(&res);
	sbuf_release(&got);
	sbuf_release(&err);
}

static void test_rusage(void **state)
{
	(void)state;
	struct runner_request q = RUNNER_REQUEST_INIT;
	struct child_result res = CHILD_RESULT_INIT;
	struct sbuf err = SBUF_INIT;

	assert_int_equal(
	    run(&q, &res, &err, (const char *[]){H, "burn", "200", NULL}), 0);
	int64_t burned = res.user_ns;
	assert_int_equal(
	    run(&q, &res, &err, (const char *[]){H, "burn", "0", NULL}), 0);
	assert_true(res.user_ns < burned / 2);
	child_result_release(&res);
	sbuf_release(&err);
}

static void test_peak_rss_floor(void **state)
{
	(void)state;
	struct runner_request q = RUNNER_REQUEST_INIT;
	struct child_result res = CHILD_RESULT_INIT;
	struct sbuf err = SBUF_INIT;

	/* We grow to 200 MiB; commands measured through the runner must not
	 * see it in their peak RSS. */
	size_t big = (size_t)200 << 20;
	volatile char *mem = xmalloc(big);
	for (size_t i = 0; i < big; i += 4096)
		mem[i] = 1;

	assert_int_equal(
	    run(&q, &res, &err, (const char *[]){"/bin/true", NULL}), 0);
	assert_true(res.maxrss_bytes > 0);
	assert_true(res.maxrss_bytes < (int64_t)10 << 20);

	assert_int_equal(
	    run(&q, &res, &err, (const char *[]){H, "alloc", "100", NULL}), 0);
	assert_true(res.maxrss_bytes >= (int64_t)100 << 20);
	assert_true(res.maxrss_bytes < (int64_t)150 << 20);

	free((void *)mem);
	child_result_release(&res);
	sbuf_release(&err);
}

static void test_timeout_tree(void **state)
{
	(void)state;
	struct runner_request q = RUNNER_REQUEST_INIT;
	struct child_result res = CHILD_RESULT_INIT;
	struct sbuf err = SBUF_INIT;
	char *pidfile = xstrfmt("%s/pids", tmpdir);
	pid_t pids[4];

	q.timeout_ns = 300 * 1000000LL;
	q.grace_ns = 100 * 1000000LL;
	assert_int_equal(
	    run(&q, &res, &err,
		(const char *[]){H, "--pidfile", pidfile, "ignore-term",
				 "spawn", "1", "grandchild", "setsid-escape",
				 "sleep", "100000", NULL}),
	    128 + SIGKILL);
	assert_true(res.timed_out);
	read_pids(pidfile, pids, 4);
	for (int i = 0; i < 4; i++)
		assert_true(pid_gone(pids[i]));
	unlink(pidfile);
	free(pidfile);
	child_result_release(&res);
	sbuf_release(&err);
}

static void on_alarm(int sig)
{
	(void)sig;
	runner_interrupt(&runner);
}

static void test_interrupt(void **state)
{
	(void)state;
	struct runner_request q = RUNNER_REQUEST_INIT;
	struct child_result res = CHILD_RESULT_INIT;
	struct sbuf err = SBUF_INIT;

	struct sigaction sa, old;
	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = on_alarm;
	sigemptyset(&sa.sa_mask);
	sigaction(SIGALRM, &sa, &old);
	pid_t killer = interrupt_when_running("sleep", 1);
	assert_int_equal(
	    run(&q, &res, &err, (const char *[]){H, "sleep", "100000", NULL}),
	    128 + SIGTERM);
	assert_true(res.interrupted);
	assert_false(res.timed_out);
	reap_interrupter(killer);
	sigaction(SIGALRM, &old, NULL);

	/* Between runs: pending for the next run... */
	interrupt_runner();
	assert_int_equal(
	    run(&q, &res, &err, (const char *[]){H, "sleep", "100000", NULL}),
	    128 + SIGTERM);
	assert_true(res.interrupted);

	/* ...unless the request clears it (cleanup after an interrupt). */
	interrupt_runner();
	q.flags = RUNNER_CLEAR_INTERRUPT;
	assert_int_equal(
	    run(&q, &res, &err, (const char *[]){H, "exit", "0", NULL}), 0);
	assert_false(res.interrupted);
	child_result_release(&res);
	sbuf_release(&err);
}

struct orphans {
	const pid_t *pids; /* runner, spawned child, escapee */
	int runner_exited, status;
};

/* The runner has exited (reaped here) and the command's processes are gone. */
static int orphans_done(void *arg)
{
	struct orphans *o = arg;
	if (!o->runner_exited &&
	    waitpid(o->pids[0], &o->status, WNOHANG) == o->pids[0])
		o->runner_exited = 1;
	return o->runner_exited && pid_gone(o->pids[1]) &&
	       pid_gone(o->pids[2]);
}

/* kagari dies mid-run: the runner stops the command tree and exits. */
static void test_kagari_dies(void **state)
{
	(void)state;
	char *pidfile = xstrfmt("%s/pids-dies", tmpdir);
	struct sbuf why = SBUF_INIT;
	/* The orphaned runner comes back to us, to be reaped. */
	assert_int_equal(proc_become_subreaper(&why), 0);
	sbuf_release(&why);
	pid_t kagari = fork();
	assert_true(kagari >= 0);
	if (kagari == 0) {
		struct runner r2;
		struct sbuf err = SBUF_INIT;
		struct child_result res = CHILD_RESULT_INIT;
		struct runner_request q = RUNNER_REQUEST_INIT;
		if (runner_start(&r2, &err))
			_exit(2);
		struct sbuf line = SBUF_INIT;
		sbuf_addf(&line, "%d\n", (int)runner_pid(&r2));
		int fd = open(pidfile, O_WRONLY | O_CREAT | O_APPEND, 0644);
		if (fd < 0 || write(fd, line.buf, line.len) < 0)
			_exit(3);
		close(fd);
		q.argv = (const char *[]){H,	   "--pidfile", pidfile,
					  "spawn", "1",		"setsid-escape",
					  "sleep", "100000",	NULL};
		runner_run(&r2, &q, &res, &err);
		_exit(4); /* not reached: killed first */
	}
	pid_t pids[3]; /* runner, spawned child, escapee */
	read_pids(pidfile, pids, 3);
	kill(kagari, SIGKILL);
	int status;
	assert_int_equal(waitpid(kagari, &status, 0), kagari);
	assert_true(WIFSIGNALED(status));

	/* The runner sees its socket close, stops everything, exits. */
	struct orphans o = {pids, 0, 0};
	assert_true(wait_until(WAIT_MS, orphans_done, &o,
			       "the runner to stop the command and exit"));
	assert_true(WIFEXITED(o.status) && WEXITSTATUS(o.status) == 0);
	prctl(PR_SET_CHILD_SUBREAPER, 0, 0, 0, 0);
	unlink(pidfile);
	free(pidfile);
}

static void test_runner_death(void **state)
{
	(void)state;
	struct runner r2;
	struct sbuf err = SBUF_INIT;
	struct child_result res = CHILD_RESULT_INIT;
	struct runner_request q = RUNNER_REQUEST_INIT;

	assert_int_equal(runner_start(&r2, &err), 0);
	kill(runner_pid(&r2), SIGKILL);
	q.argv = (const char *[]){H, "exit", "0", NULL};
	assert_int_equal(runner_run(&r2, &q, &res, &err), -1);
	assert_int_equal(res.status, CHILD_ERROR);
	assert_non_null(strstr(err.buf, "runner process was killed by "
					"SIGKILL"));
	assert_int_equal(runner_pid(&r2), -1);
	/* The next request starts a fresh runner. */
	sbuf_reset(&err);
	assert_int_equal(runner_run(&r2, &q, &res, &err), 0);
	assert_true(runner_pid(&r2) > 0);
	runner_stop(&r2);
	/* A runner stopped on purpose stays stopped. */
	assert_int_equal(runner_run(&r2, &q, &res, &err), -1);
	assert_non_null(strstr(err.buf, "not running"));
	runner_stop(&r2); /* idempotent */
	child_result_release(&res);
	sbuf_release(&err);
}

/* Repeated requests travel as "repeat" frames; any change is noticed. */
static void test_repeat(void **state)
{
	(void)state;
	struct runner_request q = RUNNER_REQUEST_INIT;
	struct child_result res = CHILD_RESULT_INIT;
	struct sbuf err = SBUF_INIT;
	const char *const *three = (const char *[]){H, "exit", "3", NULL};
	const char *const *four = (const char *[]){H, "exit", "4", NULL};

	for (int i = 0; i < 3; i++)
		assert_int_equal(run(&q, &res, &err, three), 3);
	assert_int_equal(run(&q, &res, &err, four), 4);
	assert_int_equal(run(&q, &res, &err, three), 3);

	/* The stderr tail of one run never leaks into the next. */
	const char *const *loud =
	    (const char *[]){H, "stderr", "first", "exit", "1", NULL};
	const char *const *quiet = (const char *[]){H, "exit", "1", NULL};
	assert_int_equal(run(&q, &res, &err, loud), 1);
	assert_string_equal(res.stderr_tail.buf, "first\n");
	assert_int_equal(run(&q, &res, &err, quiet), 1);
	assert_string_equal(res.stderr_tail.buf, "");
	assert_int_equal(run(&q, &res, &err, quiet), 1);
	assert_string_equal(res.stderr_tail.buf, "");

	/* Only the stdin content differs. */
	q.in = CHILD_IN_CONTENT;
	q.out = CHILD_OUT_CAPTURE;
	q.in_data = "one";
	q.in_len = 3;
	const char *const *cat = (const char *[]){H, "cat", NULL};
	assert_int_equal(run(&q, &res, &err, cat), 0);
	assert_int_equal(run(&q, &res, &err, cat), 0);
	assert_string_equal(res.out.buf, "one");
	q.in_data = "two";
	assert_int_equal(run(&q, &res, &err, cat), 0);
	assert_string_equal(res.out.buf, "two");

	/* Descriptors are passed anew each time, never repeated. */
	int p[2];
	assert_int_equal(pipe2(p, O_CLOEXEC), 0);
	q.in = CHILD_IN_FD;
	q.in_fd = p[0];
	assert_int_equal(write(p[1], "abcdef", 6), 6);
	close(p[1]);
	assert_int_equal(run(&q, &res, &err, cat), 0);
	assert_string_equal(res.out.buf, "abcdef");
	assert_int_equal(run(&q, &res, &err, cat), 0);
	assert_string_equal(res.out.buf, "");
	close(p[0]);
	assert_int_equal(err.len, 0);
	child_result_release(&res);
	sbuf_release(&err);
}


/* Batches: unit skipping after a failure, barriers, the table kept. */
static void test_batch(void **state)
{
	(void)state;
	struct runner_batch b = RUNNER_BATCH_INIT;
	struct sbuf err = SBUF_INIT;
	struct runner_request q = RUNNER_REQUEST_INIT;
	static const int one[] = {1};

	for (int pass = 0; pass < 2; pass++) {
		runner_batch_reset(&b);
		q.argv = (const char *[]){H, "exit", "0", NULL};
		size_t ok = runner_batch_request(&b, &q);
		q.argv = (const char *[]){H, "exit", "3", NULL};
		size_t bad = runner_batch_request(&b, &q);
		q.argv = (const char *[]){H, "stderr", "tail", "exit", "1", NULL};
		q.ok_codes = one;
		q.nr_ok_codes = 1;
		size_t one_ok = runner_batch_request(&b, &q);
		q.ok_codes = NULL;
		q.nr_ok_codes = 0;

		runner_batch_add(&b, ok, 0, 0);
		runner_batch_add(&b, pass ? ok : bad, 1, 0);
		runner_batch_add(&b, ok, 1, 0); /* skipped after a failure */
		runner_batch_add(&b, one_ok, 2, 0);
		runner_batch_add(&b, ok, 0, RUNNER_BARRIER);
		runner_batch_add(&b, ok, 2, 0);
		assert_int_equal(runner_run_batch(&runner, &b, &err), 0);
		assert_int_equal(err.len, 0);
		assert_int_equal(b.entry[0].res.status, CHILD_EXITED);
		assert_int_equal(b.entry[0].res.code, 0);
		assert_true(b.entry[0].res.wall_ns > 0);
		assert_int_equal(b.entry[1].res.code, pass ? 0 : 3);
		assert_int_equal(b.entry[2].res.status,
				 pass ? CHILD_EXITED : CHILD_NOT_RUN);
		assert_int_equal(b.entry[3].res.code, 1);
		assert_string_equal(b.entry[3].res.stderr_tail.buf, "tail\n");
		for (size_t i = 4; i < 6; i++)
			assert_int_equal(b.entry[i].res.status,
					 pass ? CHILD_EXITED : CHILD_NOT_RUN);
		assert_int_equal(b.stop,
				 pass ? RUNNER_STOP_NONE : RUNNER_STOP_BARRIER);
	}

	/* A command that cannot start fails its unit, with the reason. */
	runner_batch_reset(&b);
	q.argv = (const char *[]){"kagari-no-such-cmd", NULL};
	size_t missing = runner_batch_request(&b, &q);
	runner_batch_add(&b, missing, 5, 0);
	runner_batch_add(&b, missing, 5, 0);
	assert_int_equal(runner_run_batch(&runner, &b, &err), 0);
	assert_int_equal(b.entry[0].res.status, CHILD_SPAWN_FAILED);
	assert_non_null(strstr(b.entry[0].error.buf, "command not found"));
	assert_int_equal(b.entry[1].res.status, CHILD_NOT_RUN);

	/* Descriptors cannot travel in a batch. */
	runner_batch_reset(&b);
	q.argv = (const char *[]){H, "exit", "0", NULL};
	q.in = CHILD_IN_FD;
	q.in_fd = 0;
	runner_batch_add(&b, runner_batch_request(&b, &q), 0, 0);
	q.in = CHILD_IN_NULL;
	q.in_fd = -1;
	assert_int_equal(runner_run_batch(&runner, &b, &err), -1);
	assert_int_equal(b.entry[0].res.status, CHILD_ERROR);
	sbuf_reset(&err);

	/* An interrupt stops the batch and is consumed. */
	runner_batch_reset(&b);
	q.argv = (const char *[]){H, "exit", "0", NULL};
	size_t r0 = runner_batch_request(&b, &q);
	runner_batch_add(&b, r0, 0, 0);
	runner_batch_add(&b, r0, 1, 0);
	interrupt_runner();
	assert_int_equal(runner_run_batch(&runner, &b, &err), 0);
	assert_int_equal(b.stop, RUNNER_STOP_INTERRUPT);
	assert_int_equal(b.entry[0].res.status, CHILD_NOT_RUN);
	assert_int_equal(b.entry[1].res.status, CHILD_NOT_RUN);
	assert_int_equal(runner_run_batch(&runner, &b, &err), 0);
	assert_int_equal(b.stop, RUNNER_STOP_NONE);
	assert_int_equal(b.entry[1].res.code, 0);

	/* An interrupt during a run stops it and the rest. */
	runner_batch_reset(&b);
	q.argv = (const char *[]){H, "sleep", "5000", NULL};
	size_t slow = runner_batch_request(&b, &q);
	runner_batch_add(&b, slow, 0, 0);
	runner_batch_add(&b, slow, 1, 0);
	pid_t killer = interrupt_when_running("sleep", 0);
	assert_int_equal(runner_run_batch(&runner, &b, &err), 0);
	reap_interrupter(killer);
	assert_int_equal(b.stop, RUNNER_STOP_INTERRUPT);
	assert_true(b.entry[0].res.interrupted);
	assert_true(b.entry[0].res.wall_ns < 4000000000LL);
	assert_int_equal(b.entry[1].res.status, CHILD_NOT_RUN);
	assert_int_equal(err.len, 0);
	runner_batch_release(&b);
	sbuf_release(&err);
}

/* A terminal run through the runner: the program sees an 80x24 tty. */
static void test_terminal(void **state)
{
	(void)state;
	struct runner_request q = RUNNER_REQUEST_INIT;
	struct child_result res = CHILD_RESULT_INIT;
	struct sbuf err = SBUF_INIT;
	q.flags = CHILD_TERMINAL;
	q.out = CHILD_OUT_CAPTURE;
	assert_int_equal(run(&q, &res, &err, (const char *[]){H, "tty", NULL}),
			 0);
	assert_non_null(strstr(res.out.buf, "tty 0:1 1:1 2:1 ctty:1 fg:1 "
					    "size:80x24\r\n"));
	/* Typed input reaches the program, then end-of-file. */
	q.in = CHILD_IN_CONTENT;
	q.in_data = "typed\n";
	q.in_len = 6;
	assert_int_equal(run(&q, &res, &err, (const char *[]){H, "cat", NULL}),
			 0);
	assert_string_equal(res.out.buf, "typed\r\ntyped\r\n");
	assert_int_equal(err.len, 0);
	child_result_release(&res);
	sbuf_release(&err);
}

/* The executable behind a pid, or "" (caller frees). */
static char *exe_of(pid_t pid)
{
	char link[64], buf[4096];
	snprintf(link, sizeof(link), "/proc/%d/exe", (int)pid);
	ssize_t n = readlink(link, buf, sizeof(buf) - 1);
	buf[n > 0 ? n : 0] = '\0';
	return xstrdup(buf);
}

/*
 * With kagari-runner built next to us, the runner is that small program;
 * without it (or told not to), a fork of us. Both serve the same.
 */
static void test_program_or_fork(void **state)
{
	(void)state;
	struct runner r2;
	struct sbuf err = SBUF_INIT;
	struct child_result res = CHILD_RESULT_INIT;
	struct runner_request q = RUNNER_REQUEST_INIT;
	char *self = exe_of(getpid());
	char *program = xstrfmt("%.*s/%s", (int)(strrchr(self, '/') - self),
				self, RUNNER_PROGRAM);

	char *exe = exe_of(runner_pid(&runner));
	if (access(program, X_OK) == 0)
		assert_string_equal(exe, program);
	else
		assert_string_equal(exe, self);
	free(exe);

	runner_debug_no_exec(1);
	assert_int_equal(runner_start(&r2, &err), 0);
	runner_debug_no_exec(0);
	exe = exe_of(runner_pid(&r2));
	assert_string_equal(exe, self);
	free(exe);
	q.argv = (const char *[]){H, "stderr", "forked", "exit", "7", NULL};
	assert_int_equal(runner_run(&r2, &q, &res, &err), 7);
	assert_string_equal(res.stderr_tail.buf, "forked\n");
	assert_true(res.maxrss_bytes > 0);
	runner_stop(&r2);

	/* Run by hand, the program refuses; a wrong token is not served. */
	assert_int_equal(runner_serve(0, "kagari-runner-protocol-0"), -1);
	if (access(program, X_OK) == 0) {
		pid_t pid = fork();
		assert_true(pid >= 0);
		if (pid == 0) {
			int null = open("/dev/null", O_WRONLY);
			dup2(null, 2);
			execl(program, RUNNER_PROGRAM, (char *)NULL);
			_exit(127);
		}
		int status = 0;
		assert_int_equal(waitpid(pid, &status, 0), pid);
		assert_true(WIFEXITED(status));
		assert_int_equal(WEXITSTATUS(status), 2);
	}

	free(program);
	free(self);
	child_result_release(&res);
	sbuf_release(&err);
}

static int setup(void **state)
{
	(void)state;
	return mkdtemp(tmpdir) ? 0 : -1;
}

static int teardown(void **state)
{
	(void)state;
	return rmdir(tmpdir);
}

int main(void)
{
	struct sbuf err = SBUF_INIT;
	if (runner_start(&runner, &err)) {
		fprintf(stderr, "cannot start the runner: %s\n", err.buf);
		return 1;
	}
	sbuf_release(&err);

	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_outcomes),
	    cmocka_unit_test(test_stdio),
	    cmocka_unit_test(test_rusage),
	    cmocka_unit_test(test_peak_rss_floor),
	    cmocka_unit_test(test_timeout_tree),
	    cmocka_unit_test(test_interrupt),
	    cmocka_unit_test(test_kagari_dies),
	    cmocka_unit_test(test_runner_death),
	    cmocka_unit_test(test_repeat),
	    cmocka_unit_test(test_batch),
	    cmocka_unit_test(test_terminal),
	    cmocka_unit_test(test_program_or_fork),
	};
	int rc = cmocka_run_group_tests(tests, setup, teardown);
	runner_stop(&runner);
	return rc;
}
