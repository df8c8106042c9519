/*
 * proc/child_wait: waiting for a run with its timeout and interrupts, the
 * TERM-then-KILL stop of its process group, reaping it and accounting its
 * resource usage and status into the result.
 */
#include "proc/child_internal.h"

#include <errno.h>
#include <poll.h>
#include <string.h>
#include <sys/wait.h>

#include "proc/proc.h"

static void signal_run(pid_t pid, int own_group, int sig)
{
	if (own_group && kill(-pid, sig) == 0)
		return;
	kill(pid, sig);
}

static void begin_stop(struct waiter *w)
{
	if (w->grace_ns > 0) {
		signal_run(w->pid, w->own_group, SIGTERM);
		w->stopping = 1;
		w->deadline = now_ns() + w->grace_ns;
	} else {
		signal_run(w->pid, w->own_group, SIGKILL);
		w->stopping = 2;
		w->deadline = -1;
	}
}

/* What one child_wait_exit() round polls, and where each fd sits (-1: absent). */
struct poll_set {
	struct pollfd pfd[7];
	int n, i_pid, i_intr, i_watch, i_out, i_err, i_term, i_sink;
};

static int poll_add(struct poll_set *ps, int fd, short events)
{
	ps->pfd[ps->n] = (struct pollfd){fd, events, 0};
	return ps->n++;
}

/* The fds worth waking for this round: the pidfd, the interrupt pipe and
   the watch fd (until stopping), the capture pipes, the terminal. */
static void poll_build(const struct child *c, const struct waiter *w, const struct run_fds *f,
		       const struct term *t, struct poll_set *ps)
{
	ps->n = 0;
	ps->i_pid = ps->i_intr = ps->i_watch = ps->i_out = ps->i_err = -1;
	ps->i_term = ps->i_sink = -1;
	if (w->pidfd >= 0)
		ps->i_pid = poll_add(ps, w->pidfd, POLLIN);
	if (!w->stopping) {
		ps->i_intr = poll_add(ps, child_intr_rfd, POLLIN);
		if (c->watch_fd >= 0)
			ps->i_watch = poll_add(ps, c->watch_fd, POLLIN);
	}
	if (f->out_pipe >= 0)
		ps->i_out = poll_add(ps, f->out_pipe, POLLIN);
	if (f->err_pipe >= 0)
		ps->i_err = poll_add(ps, f->err_pipe, POLLIN);
	if (f->err_sink >= 0)
		ps->i_sink = poll_add(ps, f->err_sink, POLLIN);
	if (t->master >= 0 && !t->eof) {
		short ev = POLLIN;
		if (t->ready && t->typed < t->input.len)
			ev |= POLLOUT;
		ps->i_term = poll_add(ps, t->master, ev);
	}
}

/*
 * How long this round may sleep (ns, -1: until an fd wakes it): until the
 * deadline, until the terminal counts as ready, and without a pidfd at most
 * *step, which doubles up to 10 ms (the fallback polling of waitid()).
 */
static int64_t poll_wait_ns(const struct waiter *w, const struct term *t, const struct poll_set *ps,
			    int64_t *step)
{
	int64_t wait = -1;
	if (w->deadline >= 0) {
		wait = w->deadline - now_ns();
		if (wait < 0)
			wait = 0;
	}
	if (ps->i_term >= 0 && !t->ready) {
		int64_t left = t->ready_at - now_ns();
		if (left < 0)
			left = 0;
		if (wait < 0 || left < wait)
			wait = left;
	}
	if (w->pidfd < 0) {
		if (wait < 0 || wait > *step)
			wait = *step;
		if (*step < 10000000)
			*step *= 2;
	}
	return wait;
}

/* Serve the fds that woke; returns 1 when the pidfd says the process
   exited. */
static int poll_serve(struct child *c, struct waiter *w, struct run_fds *f, struct term *t,
		      const struct poll_set *ps)
{
	struct child_result *r = &c->res;
	const struct pollfd *pfd = ps->pfd;
	if (ps->i_out >= 0 && pfd[ps->i_out].revents)
		child_pump(&f->out_pipe, &r->out, &r->out_truncated);
	if (ps->i_err >= 0 && pfd[ps->i_err].revents)
		child_pump(&f->err_pipe, &r->err, &r->err_truncated);
	if (ps->i_sink >= 0 && pfd[ps->i_sink].revents)
		child_drain_err(f->err_sink);
	if (ps->i_term >= 0 && pfd[ps->i_term].revents)
		child_term_drain(t, r);
	if (ps->i_pid >= 0 && pfd[ps->i_pid].revents)
		return 1;
	if (ps->i_intr >= 0 && pfd[ps->i_intr].revents) {
		child_drain_fd(child_intr_rfd);
		if (!w->stopping && child_intr_flag) {
			r->interrupted = 1;
			begin_stop(w);
		}
	}
	if (ps->i_watch >= 0 && pfd[ps->i_watch].revents && !w->stopping) {
		r->interrupted = 1;
		begin_stop(w);
	}
	return 0;
}

/* Without a pidfd: has the process exited (left a zombie)? */
static int exited_nowait(const struct waiter *w)
{
	siginfo_t si;
	memset(&si, 0, sizeof(si));
	return waitid(P_PID, (id_t)w->pid, &si, WEXITED | WNOHANG | WNOWAIT) == 0 &&
	       si.si_pid == w->pid;
}

/* Past the deadline: the timeout starts the stop, the grace ends in KILL. */
static void check_deadline(struct waiter *w, struct child_result *r)
{
	if (w->deadline < 0 || now_ns() < w->deadline)
		return;
	if (!w->stopping) {
		r->timed_out = 1;
		begin_stop(w);
	} else if (w->stopping == 1) {
		signal_run(w->pid, w->own_group, SIGKILL);
		w->stopping = 2;
		w->deadline = -1;
	}
}

/*
 * Wait until the main process has exited (it is then a zombie, not reaped),
 * pumping capture pipes, enforcing the timeout and reacting to interrupts.
 */
void child_wait_exit(struct child *c, struct waiter *w, struct run_fds *f, struct term *t,
		     int64_t t0)
{
	struct child_result *r = &c->res;
	int64_t step = 100000; /* fallback polling, grows to 10 ms */
	w->deadline = c->timeout_ns > 0 ? t0 + c->timeout_ns : -1;
	t->ready_at = t0 + CHILD_TERMINAL_READY_NS;

	for (;;) {
		if (t->master >= 0) {
			if (!t->ready && now_ns() >= t->ready_at)
				t->ready = 1;
			child_term_type(t);
		}
		if (!w->stopping && child_intr_flag) {
			r->interrupted = 1;
			begin_stop(w);
		}
		struct poll_set ps;
		poll_build(c, w, f, t, &ps);
		int64_t wait = poll_wait_ns(w, t, &ps, &step);
		struct timespec ts = {(time_t)(wait / 1000000000), (long)(wait % 1000000000)};
		int rc = ppoll(ps.pfd, (nfds_t)ps.n, wait < 0 ? NULL : &ts, NULL);
		if (rc < 0 && errno != EINTR)
			rc = 0; /* cannot happen with valid fds; keep going */
		if (rc > 0 && poll_serve(c, w, f, t, &ps))
			return;
		if (w->pidfd < 0 && exited_nowait(w))
			return;
		check_deadline(w, r);
	}
}

/*
 * The main process has exited: kill what it left in its group, reap it
 * (its status and resource usage), and reap the strays a subreaper got.
 */
int child_run_reap(struct child *c, const char *const *argv, struct run *run, int *status,
		   struct rusage *ru, struct sbuf *err)
{
	struct child_result *r = &c->res;
	/* The leader is a zombie, so its pid still names the group: nothing
	 * else can have taken it. Kill what it left behind, then reap it. */
	if (run->own_group)
		kill(-run->pid, SIGKILL);
	*status = 0;
	memset(ru, 0, sizeof(*ru));
	pid_t reaped;
	while ((reaped = wait4(run->pid, status, 0, ru)) < 0 && errno == EINTR)
		;
	if (reaped < 0) {
		/* Never report a run we could not reap as a clean exit. */
		sbuf_addf(err, "cannot wait for '%s': %s", argv[0], strerror(errno));
		r->status = CHILD_ERROR;
		r->code = -1;
		return -1;
	}
	if (run->subreaper && !proc_has_no_children())
		proc_reap_strays(run->keep, run->nkeep);
	return 0;
}

/* The reaped status and resource usage as the result, and the stderr tail
   from wherever the run's stderr went. */
void child_run_account(struct child *c, struct run *run, int status, const struct rusage *ru)
{
	struct child_result *r = &c->res;
	r->user_ns = tv_ns(&ru->ru_utime);
	r->sys_ns = tv_ns(&ru->ru_stime);
	r->maxrss_bytes = (int64_t)ru->ru_maxrss * 1024;
	if (WIFSIGNALED(status)) {
		r->status = CHILD_SIGNALED;
		r->signal = WTERMSIG(status);
		r->code = 128 + r->signal;
	} else {
		r->status = CHILD_EXITED;
		r->exit_code = WEXITSTATUS(status);
		r->code = r->exit_code;
	}
	if (c->err == CHILD_OUT_CAPTURE)
		child_set_tail(&r->stderr_tail, r->err.buf, r->err.len);
	else if (run->f.err_sink >= 0)
		child_set_tail(&r->stderr_tail, child_err_keep.buf, child_err_keep.len);
	else if (run->f.tail >= 0)
		child_read_tail(run->f.tail, &r->stderr_tail);
}
