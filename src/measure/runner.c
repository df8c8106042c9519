/*
 * measure/runner: the runner process (runner.h). Laid out in sections: the
 * frame encoding of the protocol; the transport (frames and fds over a
 * socket); the runner process itself (its loop, one request at a time);
 * batches, in the runner process; and kagari's side (starting the runner
 * as kagari-runner or a fork, requests, answers, stopping it).
 * src/runner_main.c is the kagari-runner program's main.
 */
#include "measure/runner.h"

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

/*
 * Frames: a u32 payload length, then the payload. Integers are native
 * (both ends are the same binary); strings are a u32 length, the bytes and
 * a NUL, so the runner can point into its receive buffer instead of copying;
 * NONE as a length means NULL.
 *
 * request:  u32 magic, pad, flags, in, out, err, fdmask; i64 timeout, grace;
 *           u32 argc, argv...; u32 envc (NONE: inherit), envp...;
 *           str dir, in_path, in_data, out_path, err_path
 *           (+ SCM_RIGHTS: the descriptors named by fdmask, in order)
 * answer:   u32 status; i32 code, exit_code, signal; u32 timed_out,
 *           interrupted, spawn_errno, truncated; i64 wall, user, sys,
 *           maxrss; str error, stderr_tail, out, err
 * repeat:   u32 REPEAT_MAGIC, pad: the same request as the previous one
 *           but for its pad (sent when the other bytes would be identical
 *           and no descriptors travel; measured runs repeat one command,
 *           and the environment alone makes a request a few KiB)
 *           pad: the layout pad's length (runner.h), NONE for none
 * hello:    (runner -> kagari, once) str error (empty: ready)
 * batch:    u32 BATCH_MAGIC; u32 TABLE_SAME (the table of the previous
 *           batch) or TABLE_NEW, u32 length, table; u32 n, n entries of
 *           u32 request index, unit, flags, pad
 *           table: u32 count, per request: u32 nok, i32 ok codes, u32
 *           length, a request payload as above (no descriptors, pad
 *           NONE: the entries carry it)
 * batch answer: u32 stop (STOP_*), u32 n, n answer payloads as above
 *           (status CHILD_NOT_RUN for entries not run)
 */
#define FRAME_MAGIC 0x3152474bU	 /* "KGR1" */
#define REPEAT_MAGIC 0x3252474bU /* "KGR2" */
#define BATCH_MAGIC 0x3352474bU	 /* "KGR3" */
#define TABLE_NEW 1u
#define TABLE_SAME 2u
/* batch answer: why the batch stopped early */
#define STOP_NONE 0u
#define STOP_BARRIER 1u
#define STOP_INTERRUPT 2u
#define STOP_BAD 3u
/* Unit ids of a batch are below this (the runner keeps a flag per id). */
#define MAX_UNIT RUNNER_MAX_UNIT
/* Passed to a kagari-runner program; a different build refuses to serve. */
#define PROTOCOL_TOKEN "kagari-runner-protocol-4"

/*
 * After answering, the runner polls its socket this long before it blocks:
 * kagari usually asks for the next run within microseconds, and catching
 * the request while still on the CPU saves a wake-up from idle (tens of
 * microseconds on a virtual machine) per run. Only time between runs is
 * spent; a measured program never competes with it.
 */
#define SPIN_NS INT64_C(100000)
#define NONE UINT32_MAX
#define FD_IN 1u
#define FD_OUT 2u
#define FD_ERR 4u

void runner_request_init(struct runner_request *req)
{
	struct runner_request blank = RUNNER_REQUEST_INIT;
	*req = blank;
}

pid_t runner_pid(const struct runner *r)
{
	return r->pid;
}

void runner_interrupt(const struct runner *r)
{
	int saved = errno;
	if (r->pid > 0)
		kill(r->pid, SIGINT);
	errno = saved;
}

/* ---- encoding ---- */

static void put_u32(struct sbuf *b, uint32_t v)
{
	sbuf_add(b, &v, sizeof(v));
}

static void put_i64(struct sbuf *b, int64_t v)
{
	sbuf_add(b, &v, sizeof(v));
}

static void put_bytes(struct sbuf *b, const void *p, size_t len)
{
	if (!p) {
		put_u32(b, NONE);
		return;
	}
	put_u32(b, (uint32_t)len);
	sbuf_add(b, p, len);
	sbuf_addch(b, '\0');
}

static void put_str(struct sbuf *b, const char *s)
{
	put_bytes(b, s, s ? strlen(s) : 0);
}

static void begin_frame(struct sbuf *b)
{
	sbuf_reset(b);
	put_u32(b, 0);
}

static void end_frame(struct sbuf *b)
{
	uint32_t len = (uint32_t)(b->len - sizeof(uint32_t));
	memcpy(b->buf, &len, sizeof(len));
}

struct reader {
	const char *p, *end;
	int bad;
};

static void get(struct reader *rd, void *out, size_t n)
{
	if (rd->bad || (size_t)(rd->end - rd->p) < n) {
		rd->bad = 1;
		memset(out, 0, n);
		return;
	}
	memcpy(out, rd->p, n);
	rd->p += n;
}

static uint32_t get_u32(struct reader *rd)
{
	uint32_t v;
	get(rd, &v, sizeof(v));
	return v;
}

static int64_t get_i64(struct reader *rd)
{
	int64_t v;
	get(rd, &v, sizeof(v));
	return v;
}

/* A pointer into the frame (NUL-terminated) or NULL for NONE. */
static const char *get_bytes(struct reader *rd, size_t *len)
{
	uint32_t n = get_u32(rd);
	*len = 0;
	if (rd->bad || n == NONE)
		return NULL;
	if ((size_t)(rd->end - rd->p) < (size_t)n + 1 || rd->p[n] != '\0') {
		rd->bad = 1;
		return NULL;
	}
	const char *s = rd->p;
	rd->p += (size_t)n + 1;
	*len = n;
	return s;
}

static const char *get_str(struct reader *rd)
{
	size_t len;
	return get_bytes(rd, &len);
}

/* ---- transport ---- */

static int send_frame(int fd, const struct sbuf *b, const int *fds, int nfds)
{
	const char *p = b->buf;
	size_t left = b->len;
	union {
		char buf[CMSG_SPACE(3 * sizeof(int))];
		struct cmsghdr align;
	} u;
	while (left) {
		struct iovec iov = {(void *)p, left};
		struct msghdr mh = {.msg_iov = &iov, .msg_iovlen = 1};
		if (nfds > 0) {
			memset(&u, 0, sizeof(u));
			mh.msg_control = u.buf;
			mh.msg_controllen = CMSG_SPACE(sizeof(int) * nfds);
			struct cmsghdr *cm = CMSG_FIRSTHDR(&mh);
			cm->cmsg_level = SOL_SOCKET;
			cm->cmsg_type = SCM_RIGHTS;
			cm->cmsg_len = CMSG_LEN(sizeof(int) * nfds);
			memcpy(CMSG_DATA(cm), fds, sizeof(int) * nfds);
		}
		ssize_t n = sendmsg(fd, &mh, MSG_NOSIGNAL);
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0)
			return -1;
		nfds = 0; /* the descriptors went with the first byte */
		p += n;
		left -= (size_t)n;
	}
	return 0;
}

/* Account for n bytes read straight into the space sbuf_grow() reserved
 * (sbuf_setlen() only shortens). */
static void sbuf_extend(struct sbuf *sb, size_t n)
{
	sb->len += n;
	sb->buf[sb->len] = '\0';
}

/*
 * Read one whole frame into b (header included). Descriptors that arrive
 * with it are stored in fds (up to 3; extra ones closed). Returns 1, 0 at a
 * clean EOF before any byte, -1 on error or a truncated frame (errno set).
 */
static int recv_frame(int fd, struct sbuf *b, int *fds, int *nfds)
{
	size_t need = sizeof(uint32_t);
	sbuf_reset(b);
	if (nfds)
		*nfds = 0;
	while (b->len < need) {
		sbuf_grow(b, need - b->len > 65536 ? need - b->len : 65536);
		/* Read as much as fits, not just the header: the protocol is
		 * strictly one frame each way, so nothing of a next frame
		 * can be in the socket, and most frames arrive in one call. */
		struct iovec iov = {b->buf + b->len, b->alloc - b->len - 1};
		union {
			char buf[CMSG_SPACE(3 * sizeof(int))];
			struct cmsghdr align;
		} u;
		struct msghdr mh = {.msg_iov = &iov, .msg_iovlen = 1};
		if (fds) {
			mh.msg_control = u.buf;
			mh.msg_controllen = sizeof(u.buf);
		}
		ssize_t n = recvmsg(fd, &mh, MSG_CMSG_CLOEXEC);
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0)
			return -1;
		if (fds && mh.msg_controllen) {
			for (struct cmsghdr *cm = CMSG_FIRSTHDR(&mh); cm;
			     cm = CMSG_NXTHDR(&mh, cm)) {
				if (cm->cmsg_level != SOL_SOCKET ||
				    cm->cmsg_type != SCM_RIGHTS)
					continue;
				size_t k =
				    (cm->cmsg_len - CMSG_LEN(0)) / sizeof(int);
				int got[8];
				if (k > 8)
					k = 8;
				memcpy(got, CMSG_DATA(cm), k * sizeof(int));
				for (size_t i = 0; i < k; i++) {
					if (*nfds < 3)
						fds[(*nfds)++] = got[i];
					else
						close(got[i]);
				}
			}
		}
		if (n == 0) {
			if (b->len == 0)
				return 0;
			errno = EPIPE;
			return -1;
		}
		sbuf_extend(b, (size_t)n);
		if (need == sizeof(uint32_t) && b->len >= need) {
			uint32_t len;
			memcpy(&len, b->buf, sizeof(len));
			need += len;
		}
	}
	if (b->len != need) {
		errno = EPROTO; /* more than one frame: a protocol error */
		return -1;
	}
	return 1;
}

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

static void hello(int sock, const char *error)
{
	struct sbuf b = SBUF_INIT;
	begin_frame(&b);
	put_str(&b, error);
	end_frame(&b);
	send_frame(sock, &b, NULL, 0);
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
static int parse_request(const char *p, size_t len, struct child *c,
			 const char ***argv, size_t *argv_alloc,
			 const char ***envp, size_t *envp_alloc, int *envp_none,
			 const int *fds, int nfds, unsigned *flags,
			 uint32_t *pad)
{
	struct reader rd = {p, p + len, 0};
	if (get_u32(&rd) != FRAME_MAGIC)
		return -1;
	*pad = get_u32(&rd);
	if (*pad != NONE && *pad > RUNNER_LAYOUT_PAD_MAX)
		return -1;
	*flags = get_u32(&rd);
	c->in = (enum child_in)get_u32(&rd);
	c->out = (enum child_out)get_u32(&rd);
	c->err = (enum child_out)get_u32(&rd);
	uint32_t fdmask = get_u32(&rd);
	c->timeout_ns = get_i64(&rd);
	c->grace_ns = get_i64(&rd);
	c->flags = *flags & (CHILD_SAME_PGROUP | CHILD_TERMINAL);

	uint32_t argc = get_u32(&rd);
	if (rd.bad || argc > (size_t)(rd.end - rd.p))
		return -1;
	ALLOC_GROW(*argv, (size_t)argc + 1, *argv_alloc);
	for (uint32_t i = 0; i < argc; i++)
		if (!((*argv)[i] = get_str(&rd)))
			return -1;
	(*argv)[argc] = NULL;

	uint32_t envc = get_u32(&rd);
	*envp_none = envc == NONE;
	if (!*envp_none) {
		if (rd.bad || envc > (size_t)(rd.end - rd.p))
			return -1;
		ALLOC_GROW(*envp, (size_t)envc + 1, *envp_alloc);
		for (uint32_t i = 0; i < envc; i++)
			if (!((*envp)[i] = get_str(&rd)))
				return -1;
		(*envp)[envc] = NULL;
	}
	c->dir = get_str(&rd);
	c->in_path = get_str(&rd);
	c->in_data = get_bytes(&rd, &c->in_len);
	c->out_path = get_str(&rd);
	c->err_path = get_str(&rd);
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
	if ((c->in == CHILD_IN_FD && c->in_fd < 0) ||
	    (c->out == CHILD_OUT_FD && c->out_fd < 0) ||
	    (c->err == CHILD_OUT_FD && c->err_fd < 0))
		return -1;
	return 0;
}

static void put_answer(struct sbuf *b, const struct child_result *res,
		       const char *error, size_t error_len)
{
	put_u32(b, (uint32_t)res->status);
	put_u32(b, (uint32_t)res->code);
	put_u32(b, (uint32_t)res->exit_code);
	put_u32(b, (uint32_t)res->signal);
	put_u32(b, (uint32_t)res->timed_out);
	put_u32(b, (uint32_t)res->interrupted);
	put_u32(b, (uint32_t)res->spawn_errno);
	put_u32(b, (uint32_t)(res->out_truncated | (res->err_truncated << 1)));
	put_i64(b, res->wall_ns);
	put_i64(b, res->user_ns);
	put_i64(b, res->sys_ns);
	put_i64(b, res->maxrss_bytes);
	put_bytes(b, error, error_len);
	put_bytes(b, res->stderr_tail.buf, res->stderr_tail.len);
	put_bytes(b, res->out.buf, res->out.len);
	put_bytes(b, res->err.buf, res->err.len);
}

static void encode_answer(struct sbuf *b, const struct child_result *res,
			  const struct sbuf *error)
{
	begin_frame(b);
	put_answer(b, res, error->buf, error->len);
	end_frame(b);
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
		if (recv(sock, &byte, 1, MSG_PEEK | MSG_DONTWAIT) >= 0 ||
		    errno != EAGAIN)
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

/* Where a request frame (and a repeat frame) holds its pad. */
#define PAD_OFFSET (2 * sizeof(uint32_t))

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

static const char *const *pad_env(struct pad_env *pe, const char *const *envp,
				  uint32_t pad)
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
	int *ok; /* exit codes that count as success; none: just 0 */
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
	uint32_t count = get_u32(&rd);
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
		uint32_t nok = get_u32(&rd);
		if (rd.bad || nok > (size_t)(rd.end - rd.p))
			return -1;
		ALLOC_GROW(it->ok, (size_t)nok + 1, it->ok_alloc);
		for (uint32_t k = 0; k < nok; k++)
			it->ok[k] = (int)get_u32(&rd);
		it->nr_ok = nok;
		uint32_t len = get_u32(&rd);
		if (rd.bad || len > (size_t)(rd.end - rd.p))
			return -1;
		if (parse_request(rd.p, len, &it->c, &it->argv, &it->argv_alloc,
				  &it->envp, &it->envp_alloc, &it->envp_none,
				  NULL, 0, &it->flags, &it->pad))
			return -1;
		rd.p += len;
	}
	return rd.bad || rd.p != rd.end ? -1 : 0;
}

static int item_failed(const struct batch_item *it,
		       const struct child_result *r)
{
	if (r->code < 0 || r->timed_out || r->interrupted ||
	    r->status != CHILD_EXITED)
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
static void serve_batch(int sock, struct batch_state *st,
			const struct sbuf *frame, int nfds, struct sbuf *err)
{
	static const struct child_result blank = CHILD_RESULT_INIT;
	struct reader rd = {frame->buf + 2 * sizeof(uint32_t),
			    frame->buf + frame->len, 0};
	uint32_t stop = STOP_NONE, n = 0;
	size_t units = 0;

	uint32_t kind = get_u32(&rd);
	if (kind == TABLE_NEW) {
		uint32_t len = get_u32(&rd);
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
	n = get_u32(&rd);
	if (rd.bad || !st->valid || nfds ||
	    (size_t)n * 4 * sizeof(uint32_t) != (size_t)(rd.end - rd.p)) {
		st->valid = 0;
		begin_frame(&st->answer);
		put_u32(&st->answer, STOP_BAD);
		put_u32(&st->answer, 0);
		end_frame(&st->answer);
		return;
	}
	/* Check every entry first, and clear the failure flags. */
	const char *entries = rd.p;
	for (uint32_t e = 0; e < n; e++) {
		uint32_t req = get_u32(&rd), unit = get_u32(&rd);
		get_u32(&rd);
		uint32_t pad = get_u32(&rd);
		if (req >= st->nr_item || unit >= MAX_UNIT ||
		    (pad != NONE && pad > RUNNER_LAYOUT_PAD_MAX)) {
			stop = STOP_BAD;
			break;
		}
		if (unit >= units)
			units = (size_t)unit + 1;
	}
	if (stop == STOP_BAD) {
		begin_frame(&st->answer);
		put_u32(&st->answer, STOP_BAD);
		put_u32(&st->answer, 0);
		end_frame(&st->answer);
		return;
	}
	ALLOC_GROW(st->failed, units + 1, st->failed_alloc);
	memset(st->failed, 0, units);

	begin_frame(&st->answer);
	put_u32(&st->answer, STOP_NONE);
	put_u32(&st->answer, n);
	rd.p = entries;
	int any_failed = 0;
	for (uint32_t e = 0; e < n; e++) {
		uint32_t req = get_u32(&rd), unit = get_u32(&rd);
		uint32_t eflags = get_u32(&rd), pad = get_u32(&rd);
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
			       pad_env(&st->pad, it->envp_none ? NULL : it->envp,
				       pad),
			       err);
		put_answer(&st->answer, &it->c.res, err->buf, err->len);
		if (item_failed(it, &it->c.res)) {
			st->failed[unit] = 1;
			any_failed = 1;
		}
		if (it->c.res.interrupted)
			stop = STOP_INTERRUPT;
	}
	memcpy(st->answer.buf + sizeof(uint32_t), &stop, sizeof(stop));
	end_frame(&st->answer);
}

static int is_batch(const struct sbuf *frame)
{
	uint32_t magic;
	if (frame->len < 2 * sizeof(uint32_t))
		return 0;
	memcpy(&magic, frame->buf + sizeof(uint32_t), sizeof(magic));
	return magic == BATCH_MAGIC;
}

static void __attribute__((noreturn)) runner_main(int sock)
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
		hello(sock, err.buf);
		_exit(1);
	}
	hello(sock, "");

	for (;;) {
		int fds[3], nfds = 0, bad = 0;
		spin_for_request(sock);
		if (recv_frame(sock, &frame, fds, &nfds) <= 0)
			break;
		sbuf_reset(&err);
		if (is_batch(&frame)) {
			serve_batch(sock, &batch, &frame, nfds, &err);
			close_fds(fds, nfds);
			if (send_frame(sock, &batch.answer, NULL, 0))
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
			    req.buf + sizeof(uint32_t), req.len - sizeof(uint32_t),
			    &c, &argv, &argv_alloc, &envp, &envp_alloc,
			    &envp_none, fds, nfds, &flags, &pad);
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
			child_run_argv(&c, argv,
				       pad_env(&penv, envp_none ? NULL : envp,
					       pad),
				       &err);
		}
		close_fds(fds, nfds);
		encode_answer(&frame, &c.res, &err);
		if (send_frame(sock, &frame, NULL, 0))
			break;
	}
	/* Nothing is running here: child_run_argv() returns only after the
	 * command and everything it left behind are gone. */
	_exit(0);
}

/* ---- kagari's side ---- */

static void runner_reset(struct runner *r)
{
	r->pid = -1;
	r->fd = -1;
	r->lost = 0;
	sbuf_init(&r->frame);
	sbuf_init(&r->last);
	sbuf_init(&r->table);
	sbuf_init(&r->last_table);
}

/*
 * The runners this process started and has not reaped: the children a dead
 * runner's orphans must be told apart from (runner_lost()).
 */
static pid_t live[16];

static void live_set(pid_t old, pid_t now)
{
	for (size_t i = 0; i < sizeof(live) / sizeof(live[0]); i++)
		if (live[i] == old) {
			live[i] = now;
			return;
		}
}

/*
 * Reap a runner that closed its socket, describing how it ended. A runner
 * that died (a measured command or hook may kill it: `kill -9 $PPID`) left
 * the command it was running, and whatever that started, orphaned; they were
 * reparented to us (runner_start() made us a child subreaper) and are killed
 * and reaped here, so that nothing keeps running. The next request starts a
 * fresh runner (runner_revive()).
 */
static void runner_lost(struct runner *r, int mid_run, struct sbuf *err)
{
	int status = 0;
	if (r->fd >= 0)
		close(r->fd);
	r->fd = -1;
	if (r->pid > 0) {
		pid_t got;
		while ((got = waitpid(r->pid, &status, 0)) < 0 &&
		       errno == EINTR)
			;
		live_set(r->pid, 0);
		if (got == r->pid && WIFSIGNALED(status))
			sbuf_addf(err, "the runner process was killed by %s",
				  proc_signal_name(WTERMSIG(status)));
		else if (got == r->pid)
			sbuf_addf(err, "the runner process exited with code %d",
				  WEXITSTATUS(status));
		else
			sbuf_adds(err, "the runner process is gone");
		if (mid_run) {
			sbuf_adds(err, " during the run (did the command or a "
				       "hook kill it?); what the run started "
				       "was stopped");
			/* Our other children are runners and runs of
			 * child_run(), which never outlive their call: every
			 * other child now is an orphan of the runner's run. */
			proc_reap_strays(live, sizeof(live) / sizeof(live[0]));
			r->lost = 1;
		}
	} else {
		sbuf_adds(err, "the runner process is not running");
	}
	r->pid = -1;
}

/*
 * Before a request: when the runner died during an earlier request, start
 * a fresh one (the next benchmark, and the cleanup hooks of the one whose
 * runner died, still run). Returns 0 when a runner is there.
 */
static int runner_revive(struct runner *r, struct sbuf *err)
{
	if (r->fd >= 0)
		return 0;
	if (!r->lost) {
		sbuf_adds(err, "the runner process is not running");
		return -1;
	}
	/* The new runner knows no earlier request or table. */
	runner_stop(r);
	struct sbuf why = SBUF_INIT;
	int rc = runner_start(r, &why);
	if (rc) {
		sbuf_addf(err, "the runner process died and could not be "
			       "restarted: %s", why.buf);
		r->lost = 1;
	}
	sbuf_release(&why);
	return rc;
}

static int no_exec;

void runner_debug_no_exec(int on)
{
	no_exec = on;
}

static int read_link(const char *path, struct sbuf *out)
{
	for (size_t size = 256;; size *= 2) {
		sbuf_reset(out);
		sbuf_grow(out, size);
		ssize_t n = readlink(path, out->buf, size);
		if (n < 0)
			return -1;
		if ((size_t)n < size) {
			out->len = (size_t)n;
			out->buf[n] = '\0';
			return 0;
		}
	}
}

/*
 * Where the kagari-runner program is: next to our executable (the build
 * tree), else in ../lib/kagari/ or ../libexec/kagari/ from there (installed).
 * Empty when there is none: the runner is then a plain fork of this process.
 */
static void find_program(struct sbuf *path)
{
	static const char *const rel[] = {"/" RUNNER_PROGRAM,
					  "/../lib/kagari/" RUNNER_PROGRAM,
					  "/../libexec/kagari/" RUNNER_PROGRAM};
	struct sbuf exe = SBUF_INIT;
	sbuf_reset(path);
	/* runner_debug_no_exec(1) (main() sets it for KAGARI_RUNNER_FORK):
	   keep the runner a fork of kagari, e.g. so that `make memcheck`
	   traces the runner's code along with kagari's. */
	if (no_exec || read_link("/proc/self/exe", &exe) < 0)
		goto out;
	char *slash = strrchr(exe.buf, '/');
	if (!slash)
		goto out;
	sbuf_setlen(&exe, (size_t)(slash - exe.buf));
	for (size_t i = 0; i < sizeof(rel) / sizeof(rel[0]); i++) {
		sbuf_reset(path);
		sbuf_addf(path, "%s%s", exe.buf, rel[i]);
		if (!access(path->buf, X_OK))
			goto out;
	}
	sbuf_reset(path);
out:
	sbuf_release(&exe);
}

void runner_program_path(struct sbuf *path)
{
	find_program(path);
}

/* Fork (and exec `program` unless empty) a runner; wait for its hello. */
static int start_one(struct runner *r, const char *program, struct sbuf *err)
{
	int sv[2];
	runner_reset(r);
	if (socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, sv) < 0) {
		sbuf_addf(err, "cannot create a socket pair: %s",
			  strerror(errno));
		return -1;
	}
	char fdarg[16];
	snprintf(fdarg, sizeof(fdarg), "%d", sv[1]);
	char *const args[] = {(char *)RUNNER_PROGRAM, (char *)"--serve", fdarg,
			      (char *)PROTOCOL_TOKEN, NULL};
	pid_t pid = fork();
	if (pid < 0) {
		sbuf_addf(err, "cannot fork: %s", strerror(errno));
		close(sv[0]);
		close(sv[1]);
		return -1;
	}
	if (pid == 0) {
		close(sv[0]);
		if (*program) {
			/* A fresh, small process image: see runner.h. The
			 * socket is the one descriptor that must survive. */
			fcntl(sv[1], F_SETFD, 0);
			execv(program, args);
			_exit(127);
		}
		runner_main(sv[1]);
	}
	close(sv[1]);
	r->pid = pid;
	r->fd = sv[0];
	live_set(0, pid);

	int rc = recv_frame(r->fd, &r->frame, NULL, NULL);
	if (rc <= 0) {
		struct sbuf why = SBUF_INIT;
		runner_lost(r, 0, &why);
		sbuf_addf(err, "the runner process did not start (%s)",
			  why.buf);
		sbuf_release(&why);
		sbuf_release(&r->frame);
		return -1;
	}
	struct reader rd = {r->frame.buf + sizeof(uint32_t),
			    r->frame.buf + r->frame.len, 0};
	const char *msg = get_str(&rd);
	if (rd.bad || !msg || *msg) {
		sbuf_adds(err, msg && *msg ? msg
					   : "the runner process "
					     "sent a malformed greeting");
		runner_stop(r);
		return -1;
	}
	return 0;
}

int runner_start(struct runner *r, struct sbuf *err)
{
	struct sbuf program = SBUF_INIT, ignored = SBUF_INIT;
	/* Should the runner die mid-run, what it was running comes back to
	   us to be stopped (runner_lost()); without it, only the orphans
	   would be left running. */
	struct sbuf no_subreaper = SBUF_INIT;
	proc_become_subreaper(&no_subreaper);
	sbuf_release(&no_subreaper);
	find_program(&program);
	/* A kagari-runner that cannot serve us (another build's, broken)
	 * only costs the peak RSS floor: fall back to a plain fork. */
	int rc = program.len ? start_one(r, program.buf, &ignored) : -1;
	if (rc)
		rc = start_one(r, "", err);
	sbuf_release(&program);
	sbuf_release(&ignored);
	return rc;
}

int runner_serve(int fd, const char *token)
{
	/* A different build's kagari gets EOF instead of a hello and forks
	 * its own runner. */
	if (fd < 0 || !token || strcmp(token, PROTOCOL_TOKEN))
		return -1;
	runner_main(fd);
}

static void encode_request(struct sbuf *b, const struct runner_request *q,
			   int *fds, int *nfds)
{
	uint32_t fdmask = 0;
	*nfds = 0;
	if (q->in == CHILD_IN_FD) {
		fdmask |= FD_IN;
		fds[(*nfds)++] = q->in_fd;
	}
	if (q->out == CHILD_OUT_FD) {
		fdmask |= FD_OUT;
		fds[(*nfds)++] = q->out_fd;
	}
	if (q->err == CHILD_OUT_FD) {
		fdmask |= FD_ERR;
		fds[(*nfds)++] = q->err_fd;
	}
	begin_frame(b);
	put_u32(b, FRAME_MAGIC);
	put_u32(b, q->layout_pad < 0 ? NONE : (uint32_t)q->layout_pad);
	put_u32(b, q->flags);
	put_u32(b, (uint32_t)q->in);
	put_u32(b, (uint32_t)q->out);
	put_u32(b, (uint32_t)q->err);
	put_u32(b, fdmask);
	put_i64(b, q->timeout_ns);
	put_i64(b, q->grace_ns);
	uint32_t argc = 0;
	while (q->argv && q->argv[argc])
		argc++;
	put_u32(b, argc);
	for (uint32_t i = 0; i < argc; i++)
		put_str(b, q->argv[i]);
	if (!q->envp) {
		put_u32(b, NONE);
	} else {
		uint32_t envc = 0;
		while (q->envp[envc])
			envc++;
		put_u32(b, envc);
		for (uint32_t i = 0; i < envc; i++)
			put_str(b, q->envp[i]);
	}
	put_str(b, q->dir);
	put_str(b, q->in == CHILD_IN_FILE ? q->in_path : NULL);
	put_bytes(b,
		  q->in == CHILD_IN_CONTENT ? (q->in_data ? q->in_data : "")
					    : NULL,
		  q->in_len);
	put_str(b, q->out == CHILD_OUT_FILE ? q->out_path : NULL);
	put_str(b, q->err == CHILD_OUT_FILE ? q->err_path : NULL);
	end_frame(b);
}

static void get_sbuf(struct reader *rd, struct sbuf *sb)
{
	size_t len;
	const char *p = get_bytes(rd, &len);
	sbuf_reset(sb);
	if (p)
		sbuf_add(sb, p, len);
}

static const char *get_answer(struct reader *rd_, struct child_result *res,
			      size_t *elen);

int runner_run(struct runner *r, const struct runner_request *req,
	       struct child_result *res, struct sbuf *err)
{
	int fds[3], nfds;

	child_result_reset(res);
	res->code = -1;
	if (runner_revive(r, err)) {
		res->status = CHILD_ERROR;
		return -1;
	}
	if (!req->argv || !req->argv[0]) {
		res->status = CHILD_ERROR;
		sbuf_adds(err, "empty command");
		return -1;
	}
	if (req->in_len >= NONE) {
		res->status = CHILD_ERROR;
		sbuf_adds(err, "stdin content is too large");
		return -1;
	}
	if (req->layout_pad > RUNNER_LAYOUT_PAD_MAX) {
		res->status = CHILD_ERROR;
		sbuf_adds(err, "layout pad is too large");
		return -1;
	}
	/* The pad varies from run to run: compare and keep the request
	   without it, and send it in the repeat frame. */
	struct runner_request bare = *req;
	bare.layout_pad = -1;
	encode_request(&r->frame, &bare, fds, &nfds);
	uint32_t pad = req->layout_pad < 0 ? NONE : (uint32_t)req->layout_pad;
	const struct sbuf *out = &r->frame;
	struct sbuf repeat = SBUF_INIT;
	uint32_t repeat_buf[3] = {2 * sizeof(uint32_t), REPEAT_MAGIC, pad};
	if (!nfds && r->last.len == r->frame.len &&
	    !memcmp(r->last.buf, r->frame.buf, r->frame.len)) {
		repeat.buf = (char *)repeat_buf;
		repeat.len = sizeof(repeat_buf);
		out = &repeat;
	} else if (!nfds) {
		sbuf_reset(&r->last);
		sbuf_add(&r->last, r->frame.buf, r->frame.len);
	} else {
		sbuf_reset(&r->last); /* never repeated */
	}
	if (out == &r->frame)
		memcpy(r->frame.buf + PAD_OFFSET, &pad, sizeof(pad));
	if (send_frame(r->fd, out, fds, nfds) < 0 ||
	    recv_frame(r->fd, &r->frame, NULL, NULL) <= 0) {
		res->status = CHILD_ERROR;
		runner_lost(r, 1, err);
		return -1;
	}

	struct reader rd = {r->frame.buf + sizeof(uint32_t),
			    r->frame.buf + r->frame.len, 0};
	size_t elen;
	const char *etext = get_answer(&rd, res, &elen);
	if (rd.bad || rd.p != rd.end) {
		child_result_reset(res);
		res->status = CHILD_ERROR;
		res->code = -1;
		sbuf_adds(err, "malformed answer from the runner process");
		return -1;
	}
	if (res->code < 0 && etext)
		sbuf_add(err, etext, elen);
	return res->code;
}

/* Read one answer payload into res; returns its error text (or NULL). */
static const char *get_answer(struct reader *rd_, struct child_result *res,
			      size_t *elen)
{
	struct reader rd = *rd_;
	res->status = (enum child_status)get_u32(&rd);
	res->code = (int)get_u32(&rd);
	res->exit_code = (int)get_u32(&rd);
	res->signal = (int)get_u32(&rd);
	res->timed_out = (int)get_u32(&rd);
	res->interrupted = (int)get_u32(&rd);
	res->spawn_errno = (int)get_u32(&rd);
	uint32_t trunc = get_u32(&rd);
	res->out_truncated = (int)(trunc & 1);
	res->err_truncated = (int)((trunc >> 1) & 1);
	res->wall_ns = get_i64(&rd);
	res->user_ns = get_i64(&rd);
	res->sys_ns = get_i64(&rd);
	res->maxrss_bytes = get_i64(&rd);
	const char *etext = get_bytes(&rd, elen);
	get_sbuf(&rd, &res->stderr_tail);
	get_sbuf(&rd, &res->out);
	get_sbuf(&rd, &res->err);
	*rd_ = rd;
	return etext;
}

int runner_run_child(struct runner *r, struct child *c, struct sbuf *err)
{
	struct runner_request q = RUNNER_REQUEST_INIT;
	q.argv = c->argv.v;
	q.envp = c->env.nr ? c->env.v : NULL;
	q.dir = c->dir;
	q.in = c->in;
	q.in_path = c->in_path;
	q.in_data = c->in_data;
	q.in_len = c->in_len;
	q.in_fd = c->in_fd;
	q.out = c->out;
	q.err = c->err;
	q.out_path = c->out_path;
	q.err_path = c->err_path;
	q.out_fd = c->out_fd;
	q.err_fd = c->err_fd;
	q.timeout_ns = c->timeout_ns;
	q.grace_ns = c->grace_ns;
	q.flags = c->flags;
	return runner_run(r, &q, &c->res, err);
}


/* ---- batches, kagari's side ---- */

size_t runner_batch_request(struct runner_batch *b,
			    const struct runner_request *req)
{
	ALLOC_GROW(b->req, b->nr_req + 1, b->alloc_req);
	b->req[b->nr_req] = *req;
	return b->nr_req++;
}

size_t runner_batch_add(struct runner_batch *b, size_t request, unsigned unit,
			unsigned flags)
{
	ALLOC_GROW(b->entry, b->nr + 1, b->alloc);
	for (; b->init < b->alloc; b->init++) {
		child_result_init(&b->entry[b->init].res);
		sbuf_init(&b->entry[b->init].error);
	}
	struct runner_batch_entry *e = &b->entry[b->nr++];
	e->request = request;
	e->unit = unit;
	e->flags = flags;
	e->layout_pad = -1;
	child_result_reset(&e->res);
	sbuf_reset(&e->error);
	return b->nr - 1;
}

void runner_batch_reset(struct runner_batch *b)
{
	b->nr_req = 0;
	b->nr = 0;
	b->stop = RUNNER_STOP_NONE;
}

void runner_batch_release(struct runner_batch *b)
{
	for (size_t i = 0; i < b->init; i++) {
		child_result_release(&b->entry[i].res);
		sbuf_release(&b->entry[i].error);
	}
	free(b->req);
	free(b->entry);
	memset(b, 0, sizeof(*b));
}

/* Every entry failed with the same reason (also appended to err). */
static int batch_fail(struct runner_batch *b, const char *why,
		      struct sbuf *err)
{
	for (size_t i = 0; i < b->nr; i++) {
		struct runner_batch_entry *e = &b->entry[i];
		child_result_reset(&e->res);
		e->res.status = CHILD_ERROR;
		e->res.code = -1;
		sbuf_reset(&e->error);
		sbuf_adds(&e->error, why);
	}
	sbuf_adds(err, why);
	return -1;
}

int runner_run_batch(struct runner *r, struct runner_batch *b,
		     struct sbuf *err)
{
	b->stop = RUNNER_STOP_NONE;
	struct sbuf dead = SBUF_INIT;
	if (runner_revive(r, &dead)) {
		batch_fail(b, dead.buf, err);
		sbuf_release(&dead);
		return -1;
	}
	for (size_t i = 0; i < b->nr; i++)
		if (b->entry[i].request >= b->nr_req ||
		    b->entry[i].unit >= RUNNER_MAX_UNIT ||
		    b->entry[i].layout_pad > RUNNER_LAYOUT_PAD_MAX)
			return batch_fail(b, "invalid batch entry", err);

	/* The table: each request with its exit codes. */
	struct sbuf *t = &r->table;
	sbuf_reset(t);
	put_u32(t, (uint32_t)b->nr_req);
	for (size_t i = 0; i < b->nr_req; i++) {
		const struct runner_request *q = &b->req[i];
		int fds[3], nfds;
		if (!q->argv || !q->argv[0])
			return batch_fail(b, "empty command", err);
		if (q->in_len >= NONE)
			return batch_fail(b, "stdin content is too large", err);
		if (q->in == CHILD_IN_FD || q->out == CHILD_OUT_FD ||
		    q->err == CHILD_OUT_FD)
			return batch_fail(
			    b, "descriptors cannot be passed in a batch", err);
		put_u32(t, (uint32_t)(q->ok_codes ? q->nr_ok_codes : 0));
		for (size_t k = 0; q->ok_codes && k < q->nr_ok_codes; k++)
			put_u32(t, (uint32_t)q->ok_codes[k]);
		struct runner_request bare = *q;
		bare.layout_pad = -1; /* the entries carry it */
		encode_request(&r->frame, &bare, fds, &nfds);
		put_u32(t, (uint32_t)(r->frame.len - sizeof(uint32_t)));
		sbuf_add(t, r->frame.buf + sizeof(uint32_t),
			 r->frame.len - sizeof(uint32_t));
	}

	struct sbuf *f = &r->frame;
	begin_frame(f);
	put_u32(f, BATCH_MAGIC);
	if (r->last_table.len == t->len &&
	    !memcmp(r->last_table.buf, t->buf, t->len)) {
		put_u32(f, TABLE_SAME);
	} else {
		put_u32(f, TABLE_NEW);
		put_u32(f, (uint32_t)t->len);
		sbuf_add(f, t->buf, t->len);
		sbuf_reset(&r->last_table);
		sbuf_add(&r->last_table, t->buf, t->len);
	}
	put_u32(f, (uint32_t)b->nr);
	for (size_t i = 0; i < b->nr; i++) {
		put_u32(f, (uint32_t)b->entry[i].request);
		put_u32(f, b->entry[i].unit);
		put_u32(f, b->entry[i].flags);
		put_u32(f, b->entry[i].layout_pad < 0
			       ? NONE
			       : (uint32_t)b->entry[i].layout_pad);
	}
	end_frame(f);

	if (send_frame(r->fd, f, NULL, 0) < 0 ||
	    recv_frame(r->fd, f, NULL, NULL) <= 0) {
		struct sbuf why = SBUF_INIT;
		runner_lost(r, 1, &why);
		batch_fail(b, why.buf, err);
		sbuf_release(&why);
		return -1;
	}
	struct reader rd = {f->buf + sizeof(uint32_t), f->buf + f->len, 0};
	uint32_t stop = get_u32(&rd), n = get_u32(&rd);
	if (stop == STOP_BAD || rd.bad || n != b->nr) {
		sbuf_reset(&r->last_table); /* the runner dropped it */
		return batch_fail(b,
				  stop == STOP_BAD
				      ? "malformed request to the runner"
				      : "malformed answer from the runner "
					"process",
				  err);
	}
	for (size_t i = 0; i < n; i++) {
		struct runner_batch_entry *e = &b->entry[i];
		size_t elen;
		const char *etext = get_answer(&rd, &e->res, &elen);
		if (rd.bad)
			break;
		sbuf_reset(&e->error);
		if (e->res.code < 0 && etext)
			sbuf_add(&e->error, etext, elen);
	}
	if (rd.bad || rd.p != rd.end) {
		sbuf_reset(&r->last_table);
		return batch_fail(b, "malformed answer from the runner process",
				  err);
	}
	b->stop = stop == STOP_BARRIER	 ? RUNNER_STOP_BARRIER
		  : stop == STOP_INTERRUPT ? RUNNER_STOP_INTERRUPT
					   : RUNNER_STOP_NONE;
	return 0;
}

void runner_stop(struct runner *r)
{
	if (r->fd >= 0) {
		close(r->fd);
		r->fd = -1;
	}
	if (r->pid > 0) {
		while (waitpid(r->pid, NULL, 0) < 0 && errno == EINTR)
			;
		live_set(r->pid, 0);
		r->pid = -1;
	}
	sbuf_release(&r->frame);
	sbuf_release(&r->last);
	sbuf_release(&r->table);
	sbuf_release(&r->last_table);
	r->lost = 0;
}
