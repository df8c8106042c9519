/*
 * Tests for measure/child.c and measure/proc.c: running the helper program
 * (KAGARI_HELPER) and checking what a user would observe — exit statuses,
 * messages, output, cleanup of process trees, per-run resource usage.
 */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/time.h>
#include <unistd.h>

#include "base/sbuf.h"
#include "base/strvec.h"
#include "base/xalloc.h"
#include "proc/child.h"
#include "proc/proc.h"

#ifndef KAGARI_HELPER
#define KAGARI_HELPER "kagari-helper"
#endif

static char tmpdir[] = "/tmp/kagari-test-child-XXXXXX";

static void set_argv(struct child *c, ...)
{
	va_list ap;
	strvec_clear(&c->argv);
	strvec_push(&c->argv, KAGARI_HELPER);
	va_start(ap, c);
	for (const char *s; (s = va_arg(ap, const char *));)
		strvec_push(&c->argv, s);
	va_end(ap);
}

static char *tmp_path(const char *name)
{
	return xstrfmt("%s/%s", tmpdir, name);
}

/* Every pid listed in the file must be gone (killed and reaped). */
static void assert_pids_gone(const char *pidfile, int expect)
{
	struct sbuf sb = SBUF_INIT;
	assert_int_equal(sbuf_read_file(&sb, pidfile, 1 << 20), 0);
	int n = 0;
	for (char *p = sb.buf; *p;) {
		char *end;
		long pid = strtol(p, &end, 10);
		if (end == p)
			break;
		p = end;
		n++;
		errno = 0;
		int rc = kill((pid_t)pid, 0);
		if (rc == 0 || errno != ESRCH)
			fail_msg("pid %ld is still there", pid);
	}
	assert_int_equal(n, expect);
	sbuf_release(&sb);
	unlink(pidfile);
}

static void test_exit_codes(void **state)
{
	(void)state;
	struct child c = CHILD_INIT;
	struct sbuf err = SBUF_INIT;

	set_argv(&c, "exit", "0", NULL);
	assert_int_equal(child_run(&c, &err), 0);
	assert_int_equal(c.res.status, CHILD_EXITED);
	assert_int_equal(c.res.exit_code, 0);
	assert_true(c.res.wall_ns > 0);

	set_argv(&c, "exit", "3", NULL);
	assert_int_equal(child_run(&c, &err), 3);
	assert_int_equal(c.res.exit_code, 3);

	set_argv(&c, "exit", "255", NULL);
	assert_int_equal(child_run(&c, &err), 255);
	assert_int_equal(err.len, 0);

	struct sbuf d = SBUF_INIT;
	child_result_describe(&c.res, 0, &d);
	assert_string_equal(d.buf, "exited with status 255");
	sbuf_release(&d);
	sbuf_release(&err);
	child_release(&c);
}

static void test_signal_death(void **state)
{
	(void)state;
	struct child c = CHILD_INIT;
	struct sbuf err = SBUF_INIT, d = SBUF_INIT;

	set_argv(&c, "signal", "SEGV", NULL);
	assert_int_equal(child_run(&c, &err), 128 + SIGSEGV);
	assert_int_equal(c.res.status, CHILD_SIGNALED);
	assert_int_equal(c.res.signal, SIGSEGV);
	assert_string_equal(proc_signal_name(c.res.signal), "SIGSEGV");
	child_result_describe(&c.res, 0, &d);
	assert_string_equal(d.buf, "killed by signal SIGSEGV");

	set_argv(&c, "signal", "KILL", NULL);
	assert_int_equal(child_run(&c, &err), 128 + SIGKILL);
	assert_int_equal(c.res.signal, SIGKILL);
	assert_int_equal(err.len, 0);
	sbuf_release(&d);
	sbuf_release(&err);
	child_release(&c);
}

static void test_signal_names(void **state)
{
	(void)state;
	assert_string_equal(proc_signal_name(SIGKILL), "SIGKILL");
	assert_string_equal(proc_signal_name(SIGTERM), "SIGTERM");
	assert_string_equal(proc_signal_name(SIGRTMIN), "SIGRTMIN");
	assert_string_equal(proc_signal_name(SIGRTMIN + 2), "SIGRTMIN+2");
	assert_string_equal(proc_signal_name(SIGRTMAX), "SIGRTMAX");
	assert_string_equal(proc_signal_name(SIGRTMAX - 1), "SIGRTMAX-1");
	assert_string_equal(proc_signal_name(0), "SIG?");
	assert_string_equal(proc_signal_name(1000), "SIG?");
	assert_int_equal(proc_signal_number("segv"), SIGSEGV);
	assert_int_equal(proc_signal_number("SIGINT"), SIGINT);
	assert_int_equal(proc_signal_number("9"), 9);
	assert_int_equal(proc_signal_number("SIGRTMIN+2"), SIGRTMIN + 2);
	assert_int_equal(proc_signal_number("nope"), -1);
	assert_int_equal(proc_signal_number(""), -1);
}

static void test_not_found(void **state)
{
	(void)state;
	struct child c = CHILD_INIT;
	struct sbuf err = SBUF_INIT;

	strvec_push(&c.argv, "kagari-no-such-command");
	assert_int_equal(child_run(&c, &err), -1);
	assert_int_equal(c.res.status, CHILD_SPAWN_FAILED);
	assert_int_equal(c.res.spawn_errno, ENOENT);
	assert_non_null(strstr(err.buf, "command not found"));
	assert_non_null(strstr(err.buf, "'kagari-no-such-command'"));
	assert_int_equal(c.res.wall_ns, -1);

	sbuf_reset(&err);
	strvec_clear(&c.argv);
	strvec_push(&c.argv, "/nonexistent/kagari-prog");
	assert_int_equal(child_run(&c, &err), -1);
	assert_int_equal(c.res.spawn_errno, ENOENT);
	assert_non_null(strstr(err.buf, "'/nonexistent/kagari-prog'"));
	assert_non_null(strstr(err.buf, "no such file"));
	sbuf_release(&err);
	child_release(&c);
}

static void test_not_executable(void **state)
{
	(void)state;
	struct child c = CHILD_INIT;
	struct sbuf err = SBUF_INIT;
	char *path = tmp_path("noexec");
	int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0644);
	assert_true(fd >= 0);
	assert_int_equal(write(fd, "#!/bin/sh\n", 10), 10);
	close(fd);

	strvec_push(&c.argv, path);
	assert_int_equal(child_run(&c, &err), -1);
	assert_int_equal(c.res.status, CHILD_SPAWN_FAILED);
	assert_int_equal(c.res.spawn_errno, EACCES);
	assert_non_null(strstr(err.buf, path));
	assert_non_null(strstr(err.buf, "permission denied"));

	/* Found on PATH but not executable: also EACCES, with the path. */
	sbuf_reset(&err);
	strvec_clear(&c.argv);
	strvec_push(&c.argv, "noexec");
	strvec_pushf(&c.env, "PATH=%s", tmpdir);
	assert_int_equal(child_run(&c, &err), -1);
	assert_int_equal(c.res.spawn_errno, EACCES);
	assert_non_null(strstr(err.buf, path));

	unlink(path);
	free(path);
	sbuf_release(&err);
	child_release(&c);
}

static void test_path_of_child_env(void **state)
{
	(void)state;
	struct child c = CHILD_INIT;
	struct sbuf err = SBUF_INIT;
	char *link = tmp_path("khelper");
	assert_int_equal(symlink(KAGARI_HELPER, link), 0);

	/* Our PATH does not have tmpdir; the child's does. */
	strvec_push(&c.argv, "khelper");
	strvec_pushv(&c.argv, (const char *[]){"stdout", "found", NULL});
	strvec_pushf(&c.env, "PATH=/nonexistent:%s", tmpdir);
	c.out = CHILD_OUT_CAPTURE;
	assert_int_equal(child_run(&c, &err), 0);
	assert_string_equal(c.res.out.buf, "found\n");

	unlink(link);
	free(link);
	sbuf_release(&err);
	child_release(&c);
}

static void test_dir(void **state)
{
	(void)state;
	struct child c = CHILD_INIT;
	struct sbuf err = SBUF_INIT;
	char real[PATH_MAX];
	assert_non_null(realpath(tmpdir, real));

	set_argv(&c, "pwd", NULL);
	c.dir = tmpdir;
	c.out = CHILD_OUT_CAPTURE;
	assert_int_equal(child_run(&c, &err), 0);
	assert_int_equal(strncmp(c.res.out.buf, real, strlen(real)), 0);

	/* A relative program path resolves in c.dir. */
	char *link = tmp_path("rel-helper");
	assert_int_equal(symlink(KAGARI_HELPER, link), 0);
	strvec_clear(&c.argv);
	strvec_pushv(&c.argv,
		     (const char *[]){"./rel-helper", "exit", "4", NULL});
	assert_int_equal(child_run(&c, &err), 4);
	unlink(link);
	free(link);

	set_argv(&c, "pwd", NULL);
	c.dir = "/nonexistent/kagari-dir";
	assert_int_equal(child_run(&c, &err), -1);
	assert_non_null(strstr(err.buf, "cannot change to directory "
					"'/nonexistent/kagari-dir'"));
	sbuf_release(&err);
	child_release(&c);
}

static void test_env(void **state)
{
	(void)state;
	struct child c = CHILD_INIT;
	struct sbuf err = SBUF_INIT;

	setenv("KAGARI_TEST_INHERITED", "from-parent", 1);
	set_argv(&c, "env", "KAGARI_TEST_INHERITED", NULL);
	c.out = CHILD_OUT_CAPTURE;
	assert_int_equal(child_run(&c, &err), 0);
	assert_string_equal(c.res.out.buf, "from-parent\n");

	/* A given environment is the whole environment. */
	strvec_push(&c.env, "KAGARI_TEST_GIVEN=yes");
	assert_int_equal(child_run(&c, &err), 1);
	set_argv(&c, "env", "KAGARI_TEST_GIVEN", NULL);
	assert_int_equal(child_run(&c, &err), 0);
	assert_string_equal(c.res.out.buf, "yes\n");
	unsetenv("KAGARI_TEST_INHERITED");
	sbuf_release(&err);
	child_release(&c);
}

static void test_timeout_kills_tree(void **state)
{
	(void)state;
	struct child c = CHILD_INIT;
	struct sbuf err = SBUF_INIT, d = SBUF_INIT;
	char *pidfile = tmp_path("pids-timeout");

	/* 2 children, a child with a grandchild, and a setsid escapee. */
	set_argv(&c, "--pidfile", pidfile, "spawn", "2", "grandchild",
		 "setsid-escape", "sleep", "100000", NULL);
	c.timeout_ns = 300 * 1000000LL;
	c.grace_ns = 200 * 1000000LL;
	assert_int_equal(child_run(&c, &err), 128 + SIGTERM);
	assert_true(c.res.timed_out);
	assert_false(c.res.interrupted);
	assert_int_equal(c.res.signal, SIGTERM);
	assert_true(c.res.wall_ns >= c.timeout_ns);
	child_result_describe(&c.res, c.timeout_ns, &d);
	assert_string_equal(d.buf, "timed out after 300 ms");
	assert_pids_gone(pidfile, 5);

	/* A program that ignores SIGTERM gets SIGKILL after the grace. */
	set_argv(&c, "--pidfile", pidfile, "ignore-term", "setsid-escape",
		 "sleep", "100000", NULL);
	assert_int_equal(child_run(&c, &err), 128 + SIGKILL);
	assert_true(c.res.timed_out);
	assert_true(c.res.wall_ns >= c.timeout_ns + c.grace_ns);
	assert_pids_gone(pidfile, 1);

	free(pidfile);
	sbuf_release(&d);
	sbuf_release(&err);
	child_release(&c);
}

static void test_leftovers_killed_after_exit(void **state)
{
	(void)state;
	struct child c = CHILD_INIT;
	struct sbuf err = SBUF_INIT;
	char *pidfile = tmp_path("pids-exit");

	set_argv(&c, "--pidfile", pidfile, "spawn", "1", "grandchild",
		 "setsid-escape", "exit", "0", NULL);
	assert_int_equal(child_run(&c, &err), 0);
	assert_false(c.res.timed_out);
	assert_pids_gone(pidfile, 4);
	free(pidfile);
	sbuf_release(&err);
	child_release(&c);
}

static void test_stdin(void **state)
{
	(void)state;
	struct child c = CHILD_INIT;
	struct sbuf err = SBUF_INIT;

	set_argv(&c, "cat", NULL);
	c.in = CHILD_IN_CONTENT;
	c.in_data = "hello\nworld\n";
	c.in_len = 12;
	c.out = CHILD_OUT_CAPTURE;
	for (int i = 0; i < 2; i++) { /* reopened every run */
		assert_int_equal(child_run(&c, &err), 0);
		assert_string_equal(c.res.out.buf, "hello\nworld\n");
	}

	char *path = tmp_path("stdin.txt");
	int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0644);
	assert_int_equal(write(fd, "from file\n", 10), 10);
	close(fd);
	c.in = CHILD_IN_FILE;
	c.in_path = path;
	for (int i = 0; i < 2; i++) {
		assert_int_equal(child_run(&c, &err), 0);
		assert_string_equal(c.res.out.buf, "from file\n");
	}
	unlink(path);
	assert_int_equal(child_run(&c, &err), -1);
	assert_int_equal(c.res.status, CHILD_ERROR);
	assert_non_null(strstr(err.buf, "cannot open stdin file"));
	assert_non_null(strstr(err.buf, path));

	/* Default: /dev/null, so cat ends at once. */
	sbuf_reset(&err);
	c.in = CHILD_IN_NULL;
	assert_int_equal(child_run(&c, &err), 0);
	assert_string_equal(c.res.out.buf, "");
	free(path);
	sbuf_release(&err);
	child_release(&c);
}

static void test_stdout_file(void **state)
{
	(void)state;
	struct child c = CHILD_INIT;
	struct sbuf err = SBUF_INIT, got = SBUF_INIT;
	char *path = tmp_path("out.txt");

	set_argv(&c, "stdout", "first run", NULL);
	c.out = CHILD_OUT_FILE;
	c.out_path = path;
	assert_int_equal(child_run(&c, &err), 0);
	assert_int_equal(sbuf_read_file(&got, path, 1 << 20), 0);
	assert_string_equal(got.buf, "first run\n");

	set_argv(&c, "stdout", "2nd", NULL); /* truncated */
	assert_int_equal(child_run(&c, &err), 0);
	sbuf_reset(&got);
	assert_int_equal(sbuf_read_file(&got, path, 1 << 20), 0);
	assert_string_equal(got.buf, "2nd\n");

	/* The same file for both streams behaves like >f 2>&1. */
	set_argv(&c, "stdout", "a", "stderr", "b", "stdout", "c", NULL);
	c.err = CHILD_OUT_FILE;
	c.err_path = path;
	assert_int_equal(child_run(&c, &err), 0);
	sbuf_reset(&got);
	assert_int_equal(sbuf_read_file(&got, path, 1 << 20), 0);
	assert_string_equal(got.buf, "a\nb\nc\n");
	assert_string_equal(c.res.stderr_tail.buf, "a\nb\nc\n");

	unlink(path);
	free(path);
	sbuf_release(&got);
	sbuf_release(&err);
	child_release(&c);
}

static void test_capture_both_large(void **state)
{
	(void)state;
	struct child c = CHILD_INIT;
	struct sbuf err = SBUF_INIT;

	/* Far beyond a pipe's buffer on both streams: must not deadlock. */
	set_argv(&c, "stderr-bytes", "300000", "stdout-bytes", "1000000",
		 "stderr-bytes", "700000", "stderr", "the end", NULL);
	c.out = CHILD_OUT_CAPTURE;
	c.err = CHILD_OUT_CAPTURE;
	assert_int_equal(child_run(&c, &err), 0);
	assert_int_equal(c.res.out.len, 1000000);
	assert_int_equal(c.res.err.len, 1000000 + 8);
	assert_int_equal(c.res.stderr_tail.len, CHILD_TAIL_MAX);
	assert_string_equal(c.res.stderr_tail.buf + CHILD_TAIL_MAX - 8,
			    "the end\n");
	sbuf_release(&err);
	child_release(&c);
}

static void test_stderr_tail_when_discarded(void **state)
{
	(void)state;
	struct child c = CHILD_INIT;
	struct sbuf err = SBUF_INIT;

	set_argv(&c, "stderr", "error: boom", "exit", "2", NULL);
	assert_int_equal(child_run(&c, &err), 2);
	assert_string_equal(c.res.stderr_tail.buf, "error: boom\n");

	set_argv(&c, "stderr-bytes", "100000", "stderr", "last words", NULL);
	assert_int_equal(child_run(&c, &err), 0);
	assert_int_equal(c.res.stderr_tail.len, CHILD_TAIL_MAX);
	assert_string_equal(c.res.stderr_tail.buf + CHILD_TAIL_MAX - 11,
			    "last words\n");

	/* The next run starts with an empty tail. */
	set_argv(&c, "exit", "0", NULL);
	assert_int_equal(child_run(&c, &err), 0);
	assert_string_equal(c.res.stderr_tail.buf, "");
	sbuf_release(&err);
	child_release(&c);
}

static void test_rusage_is_per_run(void **state)
{
	(void)state;
	struct child c = CHILD_INIT;
	struct sbuf err = SBUF_INIT;

	set_argv(&c, "burn", "200", NULL);
	assert_int_equal(child_run(&c, &err), 0);
	int64_t burned = c.res.user_ns + c.res.sys_ns;
	assert_true(burned > 0);

	set_argv(&c, "burn", "0", NULL);
	assert_int_equal(child_run(&c, &err), 0);
	int64_t idle = c.res.user_ns + c.res.sys_ns;
	assert_true(idle < burned / 2);
	sbuf_release(&err);
	child_release(&c);
}

static void test_peak_rss(void **state)
{
	(void)state;
	struct child c = CHILD_INIT;
	struct sbuf err = SBUF_INIT;

	set_argv(&c, "alloc", "100", NULL);
	assert_int_equal(child_run(&c, &err), 0);
	assert_true(c.res.maxrss_bytes >= (int64_t)100 << 20);
	sbuf_release(&err);
	child_release(&c);
}

static void test_no_fd_leak(void **state)
{
	(void)state;
	struct child c = CHILD_INIT;
	struct sbuf err = SBUF_INIT;

	/* A descriptor someone opened without O_CLOEXEC. */
	int leaky = open("/dev/null", O_RDONLY);
	assert_true(leaky >= 3);
	set_argv(&c, "fds", NULL);
	c.out = CHILD_OUT_CAPTURE;
	c.err = CHILD_OUT_CAPTURE;
	c.in = CHILD_IN_CONTENT;
	c.in_data = "x";
	c.in_len = 1;
	assert_int_equal(child_run(&c, &err), 0);
	assert_string_equal(c.res.out.buf, "0 1 2\n");
	close(leaky);
	sbuf_release(&err);
	child_release(&c);
}

static void on_alarm(int sig)
{
	(void)sig;
	child_interrupt();
}

static void test_interrupt(void **state)
{
	(void)state;
	struct child c = CHILD_INIT;
	struct sbuf err = SBUF_INIT, d = SBUF_INIT;
	char *pidfile = tmp_path("pids-intr");

	struct sigaction sa, old;
	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = on_alarm;
	sigemptyset(&sa.sa_mask);
	sigaction(SIGALRM, &sa, &old);
	struct itimerval it = {{0, 0}, {0, 200000}};
	setitimer(ITIMER_REAL, &it, NULL);

	set_argv(&c, "--pidfile", pidfile, "setsid-escape", "sleep", "100000",
		 NULL);
	assert_int_equal(child_run(&c, &err), 128 + SIGTERM);
	assert_true(c.res.interrupted);
	assert_false(c.res.timed_out);
	child_result_describe(&c.res, 0, &d);
	assert_string_equal(d.buf, "interrupted");
	assert_pids_gone(pidfile, 1);
	assert_false(child_interrupt_pending());
	sigaction(SIGALRM, &old, NULL);

	/* An interrupt between runs stops the next run at once... */
	child_interrupt();
	assert_true(child_interrupt_pending());
	set_argv(&c, "sleep", "100000", NULL);
	assert_int_equal(child_run(&c, &err), 128 + SIGTERM);
	assert_true(c.res.interrupted);
	assert_false(child_interrupt_pending());

	/* ...unless it is cleared. */
	child_interrupt();
	child_interrupt_clear();
	set_argv(&c, "exit", "0", NULL);
	assert_int_equal(child_run(&c, &err), 0);
	assert_false(c.res.interrupted);

	free(pidfile);
	sbuf_release(&d);
	sbuf_release(&err);
	child_release(&c);
}

static void test_watch_fd(void **state)
{
	(void)state;
	struct child c = CHILD_INIT;
	struct sbuf err = SBUF_INIT;
	int p[2];
	assert_int_equal(pipe2(p, O_CLOEXEC), 0);
	close(p[1]); /* hung up: the run is stopped at once */
	set_argv(&c, "sleep", "100000", NULL);
	c.watch_fd = p[0];
	c.grace_ns = 0;
	assert_int_equal(child_run(&c, &err), 128 + SIGKILL);
	assert_true(c.res.interrupted);
	close(p[0]);
	sbuf_release(&err);
	child_release(&c);
}

static void test_without_pidfd(void **state)
{
	(void)state;
	struct child c = CHILD_INIT;
	struct sbuf err = SBUF_INIT;
	child_debug_no_pidfd(1);

	set_argv(&c, "sleep", "20", "exit", "7", NULL);
	assert_int_equal(child_run(&c, &err), 7);
	set_argv(&c, "sleep", "100000", NULL);
	c.timeout_ns = 100 * 1000000LL;
	assert_int_equal(child_run(&c, &err), 128 + SIGTERM);
	assert_true(c.res.timed_out);
	set_argv(&c, "stdout-bytes", "200000", NULL);
	c.out = CHILD_OUT_CAPTURE;
	assert_int_equal(child_run(&c, &err), 0);
	assert_int_equal(c.res.out.len, 200000);

	child_debug_no_pidfd(0);
	sbuf_release(&err);
	child_release(&c);
}

static void test_mask_secrets(void **state)
{
	(void)state;
	const char *envp[] = {
	    "API_TOKEN=abcd1234",
	    "my_Password=hunter2",
	    "SSH_KEY=xyz", /* too short */
	    "PATH=/usr/bin",
	    "SECRET_A=longsecret",
	    "SECRET_B=longsecretvalue",
	    "GITHUB_AUTH=ghp_0123",
	    NULL,
	};
	char *m = proc_mask_secrets(
	    "token=abcd1234 pw hunter2hunter2 path /usr/bin key xyz "
	    "longsecretvalue longsecret ghp_0123.",
	    envp);
	assert_string_equal(m, "token=*** pw ****** path /usr/bin key xyz "
			       "*** *** ***.");
	free(m);
	m = proc_mask_secrets("", envp);
	assert_string_equal(m, "");
	free(m);
	m = proc_mask_secrets("nothing secret", (const char *[]){NULL});
	assert_string_equal(m, "nothing secret");
	free(m);
}

static int setup(void **state)
{
	(void)state;
	struct sbuf err = SBUF_INIT;
	if (!mkdtemp(tmpdir))
		return -1;
	/* Like the runner: escaped descendants come back to us. */
	int rc = proc_become_subreaper(&err);
	sbuf_release(&err);
	return rc;
}

static int teardown(void **state)
{
	(void)state;
	return rmdir(tmpdir);
}


/* CHILD_TERMINAL: a pseudo-terminal as stdin, stdout, stderr and ctty. */
static void test_terminal(void **state)
{
	(void)state;
	struct child c = CHILD_INIT;
	struct sbuf err = SBUF_INIT, sb = SBUF_INIT;
	char *in = tmp_path("tty-in"), *out = tmp_path("tty-out");

	c.flags = CHILD_TERMINAL;
	c.out = CHILD_OUT_CAPTURE;
	set_argv(&c, "tty", "stderr", "on-the-tty", NULL);
	assert_int_equal(child_run(&c, &err), 0);
	assert_string_equal(c.res.out.buf, "tty 0:1 1:1 2:1 ctty:1 fg:1 "
					   "size:80x24\r\non-the-tty\r\n");
	/* The stderr tail is what the terminal showed last. */
	assert_string_equal(c.res.stderr_tail.buf,
			    "tty 0:1 1:1 2:1 ctty:1 fg:1 size:80x24\r\n"
			    "on-the-tty\r\n");

	/* A stdin file is typed (a last line without newline too), then
	 * end-of-file; the terminal's output goes to the stdout file. */
	FILE *fp = fopen(in, "w");
	assert_non_null(fp);
	fputs("one\ntwo", fp);
	fclose(fp);
	c.in = CHILD_IN_FILE;
	c.in_path = in;
	c.out = CHILD_OUT_FILE;
	c.out_path = out;
	set_argv(&c, "cat", "exit", "4", NULL);
	assert_int_equal(child_run(&c, &err), 4);
	assert_int_equal(sbuf_read_file(&sb, out, 1 << 20), 0);
	assert_string_equal(sb.buf, "one\r\ntwoone\r\ntwo");

	/* Timeouts stop the session's whole group. */
	c.in = CHILD_IN_NULL;
	c.out = CHILD_OUT_DISCARD;
	c.timeout_ns = 200000000;
	set_argv(&c, "sleep", "5000", NULL);
	child_run(&c, &err);
	assert_true(c.res.timed_out);
	c.timeout_ns = 0;

	/* stderr has no place of its own on a terminal. */
	c.err = CHILD_OUT_CAPTURE;
	set_argv(&c, "exit", "0", NULL);
	assert_int_equal(child_run(&c, &err), -1);
	assert_int_equal(c.res.status, CHILD_ERROR);
	assert_non_null(strstr(err.buf, "terminal"));

	unlink(in);
	unlink(out);
	free(in);
	free(out);
	sbuf_release(&sb);
	sbuf_release(&err);
	child_release(&c);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_exit_codes),
	    cmocka_unit_test(test_signal_death),
	    cmocka_unit_test(test_signal_names),
	    cmocka_unit_test(test_not_found),
	    cmocka_unit_test(test_not_executable),
	    cmocka_unit_test(test_path_of_child_env),
	    cmocka_unit_test(test_dir),
	    cmocka_unit_test(test_env),
	    cmocka_unit_test(test_timeout_kills_tree),
	    cmocka_unit_test(test_leftovers_killed_after_exit),
	    cmocka_unit_test(test_stdin),
	    cmocka_unit_test(test_stdout_file),
	    cmocka_unit_test(test_capture_both_large),
	    cmocka_unit_test(test_stderr_tail_when_discarded),
	    cmocka_unit_test(test_rusage_is_per_run),
	    cmocka_unit_test(test_peak_rss),
	    cmocka_unit_test(test_no_fd_leak),
	    cmocka_unit_test(test_interrupt),
	    cmocka_unit_test(test_watch_fd),
	    cmocka_unit_test(test_without_pidfd),
	    cmocka_unit_test(test_mask_secrets),
	    cmocka_unit_test(test_terminal),
	};
	return cmocka_run_group_tests(tests, setup, teardown);
}
