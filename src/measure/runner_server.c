/*
 * measure/runner_server: the runner process: it serves one request or batch at a
 * time, starting and measuring each command through proc/child.h.
 */
#include "measure/runner_internal.h"

#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "base/fileio.h"
#include "base/xalloc.h"
#include "proc/proc.h"

/* ---- the runner process ---- */

static void on_signal(int sig)
{
	(void)sig;
	child_interrupt();
}

static void close_fds(int *fds, int n)
{
	for (int i = 0; i < n; i++)
		if (fds[i] >= 0)
			close(fds[i]);
}

void rp_hello(int sock, const char *error)
{
	struct sbuf b = SBUF_INIT;
	rp_begin_frame(&b);
	rp_put_str(&b, error);
	rp_end_frame(&b);
	rp_send_frame(sock, &b, NULL, 0);
	sbuf_release(&b);
}

static int setup_runner(int sock, struct sbuf *err)
{
	/* Kagari forwards terminal signals; we must not get them twice. */
	setpgid(0, 0);
	prctl(PR_SET_NAME, "kagari-runner", 0, 0, 0);

	struct sigaction sa;
	memset(&sa, 0, sizeof(sa));
	sigemptyset(&sa.sa_mask);
	sa.sa_handler = on_signal;
	sa.sa_flags = SA_RESTART;
	for (const int *sig = proc_fatal_signals; *sig; sig++)
		sigaction(*sig, &sa, NULL);
	sa.sa_handler = SIG_IGN;
	sa.sa_flags = 0;
	sigaction(SIGPIPE, &sa, NULL);
	sa.sa_handler = SIG_DFL;
	sigaction(SIGCHLD, &sa, NULL);
	sigset_t none;
	sigemptyset(&none);
	sigprocmask(SIG_SETMASK, &none, NULL);

	/* Nothing of kagari's but 0-2 and our socket stays open here. */
	if (sock > 3)
		close_range(3, (unsigned)sock - 1, 0);
	close_range((unsigned)sock + 1, ~0U, 0);

	if (proc_become_subreaper(err))
		return -1;

	/* Forget the high-water mark inherited from kagari: measured
	 * children start from our current (small) RSS. */
	int fd = open("/proc/self/clear_refs", O_WRONLY | O_CLOEXEC);
	if (fd >= 0) {
		if (write(fd, "5", 1) < 0) {
			/* Older kernels: the floor is just higher. */
		}
		close(fd);
	}
	return 0;
}

/* Parse a request into c (+ argv/envp arrays pointing into the frame). */
static int parse_request(const char *p, size_t len, struct child *c, const char ***argv,
			 size_t *argv_alloc, const char ***envp, size_t *envp_alloc, int *envp_none,
			 const int *fds, int nfds, unsigned *flags, uint32_t *pad)
{
	struct reader rd = {p, p + len, 0};
	if (rp_get_u32(&rd) != FRAME_MAGIC)
		return -1;
	*pad = rp_get_u32(&rd);
	if (*pad != NONE && *pad > RUNNER_LAYOUT_PAD_MAX)
		return -1;
	*flags = rp_get_u32(&rd);
	c->in = (enum child_in)rp_get_u32(&rd);
	c->out = (enum child_out)rp_get_u32(&rd);
	c->err = (enum child_out)rp_get_u32(&rd);
	uint32_t fdmask = rp_get_u32(&rd);
	c->timeout_ns = rp_get_i64(&rd);
	c->grace_ns = rp_get_i64(&rd);
	c->flags = *flags & (CHILD_SAME_PGROUP | CHILD_TERMINAL);

	uint32_t argc = rp_get_u32(&rd);
	if (rd.bad || argc > (size_t)(rd.end - rd.p))
		return -1;
	ALLOC_GROW(*argv, (size_t)argc + 1, *argv_alloc);
	for (uint32_t i = 0; i < argc; i++)
		if (!((*argv)[i] = rp_get_str(&rd)))
			return -1;
	(*argv)[argc] = NULL;

	uint32_t envc = rp_get_u32(&rd);
	*envp_none = envc == NONE;
	if (!*envp_none) {
		if (rd.bad || envc > (size_t)(rd.end - rd.p))
			return -1;
		ALLOC_GROW(*envp, (size_t)envc + 1, *envp_alloc);
		for (uint32_t i = 0; i < envc; i++)
			if (!((*envp)[i] = rp_get_str(&rd)))
				return -1;
		(*envp)[envc] = NULL;
	}
	c->dir = rp_get_str(&rd);
	c->in_path = rp_get_str(&rd);
	c->in_data = rp_get_bytes(&rd, &c->in_len);
	c->out_path = rp_get_str(&rd);
	c->err_path = rp_get_str(&rd);
	if (rd.bad || rd.p != rd.end)
		return -1;

	int k = 0;
	c->in_fd = c->out_fd = c->err_fd = -1;
	if (fdmask & FD_IN)
		c->in_fd = k < nfds ? fds[k++] : -1;
	if (fdmask & FD_OUT)
		c->out_fd = k < nfds ? fds[k++] : -1;
	if (fdmask & FD_ERR)
		c->err_fd = k < nfds ? fds[k++] : -1;
	if ((c->in == CHILD_IN_FD && c->in_fd < 0) || (c->out == CHILD_OUT_FD && c->out_fd < 0) ||
	    (c->err == CHILD_OUT_FD && c->err_fd < 0))
		return -1;
	return 0;
}

static void put_answer(struct sbuf *b, const struct child_result *res, const char *error,
		       size_t error_len)
{
	rp_put_u32(b, (uint32_t)res->status);
	rp_put_u32(b, (uint32_t)res->code);
	rp_put_u32(b, (uint32_t)res->exit_code);
	rp_put_u32(b, (uint32_t)res->signal);
	rp_put_u32(b, (uint32_t)res->timed_out);
	rp_put_u32(b, (uint32_t)res->interrupted);
	rp_put_u32(b, (uint32_t)res->spawn_errno);
	rp_put_u32(b, (uint32_t)(res->out_truncated | (res->err_truncated << 1)));
	rp_put_i64(b, res->wall_ns);
	rp_put_i64(b, res->user_ns);
	rp_put_i64(b, res->sys_ns);
	rp_put_i64(b, res->maxrss_bytes);
	rp_put_bytes(b, error, error_len);
	rp_put_bytes(b, res->stderr_tail.buf, res->stderr_tail.len);
	rp_put_bytes(b, res->out.buf, res->out.len);
	rp_put_bytes(b, res->err.buf, res->err.len);
}

static void encode_answer(struct sbuf *b, const struct child_result *res, const struct sbuf *error)
{
	rp_begin_frame(b);
	put_answer(b, res, error->buf, error->len);
	rp_end_frame(b);
}

static int64_t mono_ns(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (int64_t)ts.tv_sec * 1000000000 + ts.tv_nsec;
}

/* Poll the socket for up to SPIN_NS before the caller blocks on it. */
static void spin_for_request(int sock)
{
	int64_t until = mono_ns() + SPIN_NS;
	char byte;
	do {
		if (recv(sock, &byte, 1, MSG_PEEK | MSG_DONTWAIT) >= 0 || errno != EAGAIN)
			return; /* a request, EOF or an error: go and read it */
		if (child_interrupt_pending())
			return;
#if defined(__x86_64__) || defined(__i386__)
		__builtin_ia32_pause();
#endif
	} while (mono_ns() < until);
}

static int is_repeat(const struct sbuf *frame)
{
	uint32_t magic;
	if (frame->len != 3 * sizeof(uint32_t))
		return 0;
	memcpy(&magic, frame->buf + sizeof(uint32_t), sizeof(magic));
	return magic == REPEAT_MAGIC;
}

/*
 * The environment of one run with RUNNER_LAYOUT_PAD_ENV=<pad bytes>
 * appended and any earlier definition (inherited from an outer kagari)
 * dropped; envp itself when pad is NONE. The buffers are reused, so the
 * per-run work allocates nothing once they have grown.
 */
struct pad_env {
	const char **v;
	size_t alloc;
	struct sbuf var;
};

extern char **environ;

static const char *const *pad_env(struct pad_env *pe, const char *const *envp, uint32_t pad)
{
	static const char prefix[] = RUNNER_LAYOUT_PAD_ENV "=";
	if (pad == NONE)
		return envp;
	if (!envp)
		envp = (const char *const *)environ;
	size_t n = 0, k = 0;
	while (envp[n])
		n++;
	ALLOC_GROW(pe->v, n + 2, pe->alloc);
	for (size_t i = 0; i < n; i++)
		if (strncmp(envp[i], prefix, sizeof(prefix) - 1))
			pe->v[k++] = envp[i];
	sbuf_reset(&pe->var);
	sbuf_add(&pe->var, prefix, sizeof(prefix) - 1);
	sbuf_addchars(&pe->var, 'x', pad);
	pe->v[k++] = pe->var.buf;
	pe->v[k] = NULL;
	return pe->v;
}

/* ---- batches, in the runner process ---- */

/* One request of a batch's table, parsed (pointers into the table). */
struct batch_item {
	struct child c; /* request fields; c.res is the item's result buffer */
	const char **argv, **envp;
	size_t argv_alloc, envp_alloc;
	int envp_none;
	unsigned flags;
	uint32_t pad; /* NONE: the table's requests carry none */
	int *ok;      /* exit codes that count as success; none: just 0 */
	size_t nr_ok, ok_alloc;
};

struct batch_state {
	struct sbuf table; /* the current table's bytes */
	int valid;
	struct batch_item *item;
	size_t nr_item, item_alloc, item_init;
	unsigned char *failed; /* per unit id: an entry of it failed */
	size_t failed_alloc;
	struct sbuf answer;
	struct pad_env pad;
};

static int parse_table(struct batch_state *st)
{
	struct reader rd = {st->table.buf, st->table.buf + st->table.len, 0};
	uint32_t count = rp_get_u32(&rd);
	if (rd.bad || count > (size_t)(rd.end - rd.p))
		return -1;
	ALLOC_GROW(st->item, (size_t)count + 1, st->item_alloc);
	for (; st->item_init < st->item_alloc; st->item_init++) {
		struct batch_item *it = &st->item[st->item_init];
		memset(it, 0, sizeof(*it));
		child_init(&it->c);
	}
	st->nr_item = count;
	for (uint32_t i = 0; i < count; i++) {
		struct batch_item *it = &st->item[i];
		uint32_t nok = rp_get_u32(&rd);
		if (rd.bad || nok > (size_t)(rd.end - rd.p))
			return -1;
		ALLOC_GROW(it->ok, (size_t)nok + 1, it->ok_alloc);
		for (uint32_t k = 0; k < nok; k++)
			it->ok[k] = (int)rp_get_u32(&rd);
		it->nr_ok = nok;
		uint32_t len = rp_get_u32(&rd);
		if (rd.bad || len > (size_t)(rd.end - rd.p))
			return -1;
		if (parse_request(rd.p, len, &it->c, &it->argv, &it->argv_alloc, &it->envp,
				  &it->envp_alloc, &it->envp_none, NULL, 0, &it->flags, &it->pad))
			return -1;
		rd.p += len;
	}
	return rd.bad || rd.p != rd.end ? -1 : 0;
}

static int item_failed(const struct batch_item *it, const struct child_result *r)
{
	if (r->code < 0 || r->timed_out || r->interrupted || r->status != CHILD_EXITED)
		return 1;
	if (!it->nr_ok)
		return r->exit_code != 0;
	for (size_t k = 0; k < it->nr_ok; k++)
		if (it->ok[k] == r->exit_code)
			return 0;
	return 1;
}

/*
 * Run the entries of a batch frame in order, answering in st->answer. An
 * entry whose unit failed earlier in the batch is not run; a BARRIER entry
 * after any failure, a pending interrupt, or a run that was interrupted
 * stops the batch (the rest are not run).
 */
static void serve_batch(int sock, struct batch_state *st, const struct sbuf *frame, int nfds,
			struct sbuf *err)
{
	static const struct child_result blank = CHILD_RESULT_INIT;
	struct reader rd = {frame->buf + 2 * sizeof(uint32_t), frame->buf + frame->len, 0};
	uint32_t stop = STOP_NONE, n = 0;
	size_t units = 0;

	uint32_t kind = rp_get_u32(&rd);
	if (kind == TABLE_NEW) {
		uint32_t len = rp_get_u32(&rd);
		st->valid = 0;
		if (!rd.bad && len <= (size_t)(rd.end - rd.p)) {
			sbuf_reset(&st->table);
			sbuf_add(&st->table, rd.p, len);
			rd.p += len;
			st->valid = !parse_table(st);
		}
	} else if (kind != TABLE_SAME) {
		st->valid = 0;
	}
	n = rp_get_u32(&rd);
	if (rd.bad || !st->valid || nfds ||
	    (size_t)n * 4 * sizeof(uint32_t) != (size_t)(rd.end - rd.p)) {
		st->valid = 0;
		rp_begin_frame(&st->answer);
		rp_put_u32(&st->answer, STOP_BAD);
		rp_put_u32(&st->answer, 0);
		rp_end_frame(&st->answer);
		return;
	}
	/* Check every entry first, and clear the failure flags. */
	const char *entries = rd.p;
	for (uint32_t e = 0; e < n; e++) {
		uint32_t req = rp_get_u32(&rd), unit = rp_get_u32(&rd);
		rp_get_u32(&rd);
		uint32_t pad = rp_get_u32(&rd);
		if (req >= st->nr_item || unit >= MAX_UNIT ||
		    (pad != NONE && pad > RUNNER_LAYOUT_PAD_MAX)) {
			stop = STOP_BAD;
			break;
		}
		if (unit >= units)
			units = (size_t)unit + 1;
	}
	if (stop == STOP_BAD) {
		rp_begin_frame(&st->answer);
		rp_put_u32(&st->answer, STOP_BAD);
		rp_put_u32(&st->answer, 0);
		rp_end_frame(&st->answer);
		return;
	}
	ALLOC_GROW(st->failed, units + 1, st->failed_alloc);
	memset(st->failed, 0, units);

	rp_begin_frame(&st->answer);
	rp_put_u32(&st->answer, STOP_NONE);
	rp_put_u32(&st->answer, n);
	rd.p = entries;
	int any_failed = 0;
	for (uint32_t e = 0; e < n; e++) {
		uint32_t req = rp_get_u32(&rd), unit = rp_get_u32(&rd);
		uint32_t eflags = rp_get_u32(&rd), pad = rp_get_u32(&rd);
		struct batch_item *it = &st->item[req];
		if (stop == STOP_NONE && (eflags & RUNNER_BARRIER) && any_failed)
			stop = STOP_BARRIER;
		if (stop == STOP_NONE && child_interrupt_pending() &&
		    !(it->flags & RUNNER_CLEAR_INTERRUPT)) {
			/* Consumed, as a run it stopped would have. */
			child_interrupt_clear();
			stop = STOP_INTERRUPT;
		}
		if (stop != STOP_NONE || st->failed[unit]) {
			put_answer(&st->answer, &blank, NULL, 0);
			continue;
		}
		if (it->flags & RUNNER_CLEAR_INTERRUPT)
			child_interrupt_clear();
		sbuf_reset(err);
		it->c.watch_fd = sock;
		child_run_argv(&it->c, it->argv,
			       pad_env(&st->pad, it->envp_none ? NULL : it->envp, pad), err);
		put_answer(&st->answer, &it->c.res, err->buf, err->len);
		if (item_failed(it, &it->c.res)) {
			st->failed[unit] = 1;
			any_failed = 1;
		}
		if (it->c.res.interrupted)
			stop = STOP_INTERRUPT;
	}
	memcpy(st->answer.buf + sizeof(uint32_t), &stop, sizeof(stop));
	rp_end_frame(&st->answer);
}

static int is_batch(const struct sbuf *frame)
{
	uint32_t magic;
	if (frame->len < 2 * sizeof(uint32_t))
		return 0;
	memcpy(&magic, frame->buf + sizeof(uint32_t), sizeof(magic));
	return magic == BATCH_MAGIC;
}

void rp_runner_main(int sock)
{
	struct sbuf err = SBUF_INIT, frame = SBUF_INIT, req = SBUF_INIT;
	struct child c = CHILD_INIT;
	const char **argv = NULL, **envp = NULL;
	size_t argv_alloc = 0, envp_alloc = 0;
	int have_req = 0, envp_none = 0;
	unsigned flags = 0;
	uint32_t pad = NONE;
	struct pad_env penv;
	memset(&penv, 0, sizeof(penv));
	struct batch_state batch;
	memset(&batch, 0, sizeof(batch));

	if (setup_runner(sock, &err)) {
		rp_hello(sock, err.buf);
		_exit(1);
	}
	rp_hello(sock, "");

	for (;;) {
		int fds[3], nfds = 0, bad = 0;
		spin_for_request(sock);
		if (rp_recv_frame(sock, &frame, fds, &nfds) <= 0)
			break;
		sbuf_reset(&err);
		if (is_batch(&frame)) {
			serve_batch(sock, &batch, &frame, nfds, &err);
			close_fds(fds, nfds);
			if (rp_send_frame(sock, &batch.answer, NULL, 0))
				break;
			continue;
		}
		if (is_repeat(&frame)) {
			/* c, argv and envp still point into req. */
			bad = !have_req || nfds;
			memcpy(&pad, frame.buf + PAD_OFFSET, sizeof(pad));
			if (pad != NONE && pad > RUNNER_LAYOUT_PAD_MAX)
				bad = 1;
		} else {
			/* Keep the request's bytes for a repeat; the frame
			 * buffer is reused for the answer. */
			struct sbuf t = req;
			req = frame;
			frame = t;
			have_req = !parse_request(
			    req.buf + sizeof(uint32_t), req.len - sizeof(uint32_t), &c, &argv,
			    &argv_alloc, &envp, &envp_alloc, &envp_none, fds, nfds, &flags, &pad);
			bad = !have_req;
			/* Descriptors are closed after the run: a request
			 * that carried some cannot be repeated. */
			if (nfds)
				have_req = 0;
		}
		if (bad) {
			child_result_reset(&c.res);
			c.res.status = CHILD_ERROR;
			c.res.code = -1;
			sbuf_adds(&err, "malformed request to the runner");
		} else {
			if (flags & RUNNER_CLEAR_INTERRUPT)
				child_interrupt_clear();
			c.watch_fd = sock;
			child_run_argv(&c, argv, pad_env(&penv, envp_none ? NULL : envp, pad),
				       &err);
		}
		close_fds(fds, nfds);
		encode_answer(&frame, &c.res, &err);
		if (rp_send_frame(sock, &frame, NULL, 0))
			break;
	}
	/* Nothing is running here: child_run_argv() returns only after the
	 * command and everything it left behind are gone. */
	_exit(0);
}
