/*
 * proc/child: the one module that starts processes (child.h). This file:
 * interrupts and shared fds; results; child_run() as its steps (open,
 * spawn, wait, reap, collect, account). The steps live in the files that
 * child_internal.h lists, by concern.
 */
#include "proc/child_internal.h"

#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>

#include "proc/proc.h"

extern char **environ;

/*
 * Process-wide state. The interrupt pair is a self-pipe: child_interrupt()
 * (called from a signal handler) sets the flag and writes a byte, which wakes
 * the ppoll() of a waiting run without the lost-wakeup race a bare flag has.
 * /dev/null and the stderr pipe are opened once and reused by every run,
 * which keeps the per-run cost of the runner close to a bare spawn.
 */
volatile sig_atomic_t child_intr_flag;
static volatile sig_atomic_t intr_wfd = -1;
int child_intr_rfd = -1;
int child_devnull_fd = -1;
struct sbuf child_err_keep = SBUF_INIT; /* the recent stderr of a run */
static int no_pidfd;

void child_debug_no_pidfd(int on)
{
	no_pidfd = on;
}

void child_interrupt(void)
{
	int saved = errno;
	child_intr_flag = 1;
	int fd = intr_wfd;
	if (fd >= 0 && write(fd, "", 1) < 0) {
		/* A full pipe already holds a wake-up. */
	}
	errno = saved;
}

void child_drain_fd(int fd)
{
	char buf[64];
	while (fd >= 0 && (read(fd, buf, sizeof(buf)) > 0 || errno == EINTR))
		;
}

void child_interrupt_clear(void)
{
	child_intr_flag = 0;
	child_drain_fd(child_intr_rfd);
}

int child_interrupt_pending(void)
{
	return child_intr_flag != 0;
}

static int setup_shared_fds(struct sbuf *err)
{
	if (child_intr_rfd < 0) {
		int p[2];
		if (pipe2(p, O_CLOEXEC | O_NONBLOCK) < 0) {
			sbuf_addf(err, "cannot create a pipe: %s", strerror(errno));
			return -1;
		}
		child_intr_rfd = p[0];
		intr_wfd = p[1];
	}
	if (child_devnull_fd < 0) {
		child_devnull_fd = open("/dev/null", O_RDWR | O_CLOEXEC);
		if (child_devnull_fd < 0) {
			sbuf_addf(err, "cannot open '/dev/null': %s", strerror(errno));
			return -1;
		}
	}
	return 0;
}

void child_result_init(struct child_result *r)
{
	struct child_result blank = CHILD_RESULT_INIT;
	*r = blank;
}

void child_result_release(struct child_result *r)
{
	sbuf_release(&r->stderr_tail);
	sbuf_release(&r->out);
	sbuf_release(&r->err);
	child_result_init(r);
}

void child_result_reset(struct child_result *r)
{
	struct sbuf tail = r->stderr_tail, out = r->out, errb = r->err;
	sbuf_reset(&tail);
	sbuf_reset(&out);
	sbuf_reset(&errb);
	child_result_init(r);
	r->stderr_tail = tail;
	r->out = out;
	r->err = errb;
}

void child_init(struct child *c)
{
	struct child blank = CHILD_INIT;
	*c = blank;
}

void child_release(struct child *c)
{
	strvec_clear(&c->argv);
	strvec_clear(&c->env);
	child_result_release(&c->res);
	child_init(c);
}

int child_run(struct child *c, struct sbuf *err)
{
	return child_run_argv(c, c->argv.v, c->env.nr ? c->env.v : NULL, err);
}

static void run_init(struct run *run)
{
	memset(run, 0, sizeof(*run));
	run->f = (struct run_fds){-1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1};
	run->t = (struct term)TERM_INIT;
	sbuf_init(&run->path);
}

static void run_release(struct run *run)
{
	child_close_run_fds(&run->f);
	if (run->have_term_fa)
		posix_spawn_file_actions_destroy(&run->term_fa);
	child_term_release(&run->t);
	sbuf_release(&run->path);
	free(run->keep);
}

/* Open the run's stdin and outputs (or its terminal) and find the program. */
static int run_open(struct child *c, const char *const *argv, const char *const *envp,
		    struct run *run, struct sbuf *err)
{
	struct child_result *r = &c->res;
	int eno = 0;
	if (setup_shared_fds(err) ||
	    ((c->flags & CHILD_TERMINAL)
		 ? child_term_open(c, &run->t, err)
		 : (child_open_stdin(c, &run->f, err) || child_open_outputs(c, &run->f, err)))) {
		r->status = CHILD_ERROR;
		return -1;
	}
	if (child_resolve_program(argv[0], c->dir, envp, &run->path, &eno, err)) {
		r->status = CHILD_SPAWN_FAILED;
		r->spawn_errno = eno;
		return -1;
	}
	return 0;
}

/* Start the program: its attributes and file actions, then posix_spawn. */
static int run_spawn(struct child *c, const char *const *argv, const char *const *envp,
		     struct run *run, struct sbuf *err)
{
	struct child_result *r = &c->res;
	posix_spawnattr_t *attr;
	posix_spawn_file_actions_t *fa;
	run->own_group = !(c->flags & CHILD_SAME_PGROUP);
	if (run->t.master >= 0) {
		/* A session of its own: pgid == pid, as with a new group. */
		run->own_group = 1;
		attr = child_spawn_attr(2);
		child_term_actions(&run->term_fa, &run->t, c->dir);
		run->have_term_fa = 1;
		fa = &run->term_fa;
	} else {
		attr = child_spawn_attr(run->own_group);
		fa = child_spawn_actions(&run->f, c->dir);
	}

	/* Children we already have are not the run's to kill afterwards. */
	run->subreaper = proc_is_subreaper();
	if (run->subreaper && !proc_has_no_children())
		proc_list_children(&run->keep, &run->nkeep, &run->keep_alloc);

	run->t0 = now_ns();
	int rc = posix_spawn(&run->pid, run->path.buf, fa, attr, (char *const *)argv,
			     (char *const *)envp);
	/* The child holds its own copies now. */
	close_fd(&run->f.close_in);
	close_fd(&run->f.close_out);
	close_fd(&run->f.close_err);
	if (rc) {
		r->status = CHILD_SPAWN_FAILED;
		r->spawn_errno = rc;
		child_spawn_reason(rc, run->path.buf, c->dir, err);
		return -1;
	}
	return 0;
}

int child_run_argv(struct child *c, const char *const *argv, const char *const *envp,
		   struct sbuf *err)
{
	struct child_result *r = &c->res;
	child_result_reset(r);
	r->code = -1;
	if (!envp)
		envp = (const char *const *)environ;
	if (!argv || !argv[0]) {
		r->status = CHILD_ERROR;
		sbuf_adds(err, "empty command");
		return -1;
	}
	struct run run;
	run_init(&run);
	if (!run_open(c, argv, envp, &run, err) && !run_spawn(c, argv, envp, &run, err)) {
		struct waiter w = {.pid = run.pid,
				   .pidfd = -1,
				   .own_group = run.own_group,
				   .grace_ns = c->grace_ns};
		if (!no_pidfd)
			w.pidfd = proc_pidfd_open(run.pid);
		child_wait_exit(c, &w, &run.f, &run.t, run.t0);
		r->wall_ns = now_ns() - run.t0;
		close_fd(&w.pidfd);
		int status;
		struct rusage ru;
		if (!child_run_reap(c, argv, &run, &status, &ru, err)) {
			child_run_collect(c, &run);
			child_run_account(c, &run, status, &ru);
			/* An interrupt is consumed; a second signal during the
			   stop is absorbed. */
			if (r->interrupted)
				child_interrupt_clear();
		}
	}
	run_release(&run);
	return r->code;
}
