/*
 * measure/runner: kagari's side of the runner process (runner.h): starting
 * it as the kagari-runner program or a fork, sending requests and batches,
 * reading answers, stopping it. The protocol is runner_proto.c's, the
 * process itself runner_server.c; src/runner_main.c is kagari-runner's main.
 */
#include "measure/runner.h"
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
		while ((got = waitpid(r->pid, &status, 0)) < 0 && errno == EINTR)
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
		sbuf_addf(err,
			  "the runner process died and could not be "
			  "restarted: %s",
			  why.buf);
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
	static const char *const rel[] = {"/" RUNNER_PROGRAM, "/../lib/kagari/" RUNNER_PROGRAM,
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
		sbuf_addf(err, "cannot create a socket pair: %s", strerror(errno));
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
		rp_runner_main(sv[1]);
	}
	close(sv[1]);
	r->pid = pid;
	r->fd = sv[0];
	live_set(0, pid);

	int rc = rp_recv_frame(r->fd, &r->frame, NULL, NULL);
	if (rc <= 0) {
		struct sbuf why = SBUF_INIT;
		runner_lost(r, 0, &why);
		sbuf_addf(err, "the runner process did not start (%s)", why.buf);
		sbuf_release(&why);
		sbuf_release(&r->frame);
		return -1;
	}
	struct reader rd = {r->frame.buf + sizeof(uint32_t), r->frame.buf + r->frame.len, 0};
	const char *msg = rp_get_str(&rd);
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
	rp_runner_main(fd);
}

static void encode_request(struct sbuf *b, const struct runner_request *q, int *fds, int *nfds)
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
	rp_begin_frame(b);
	rp_put_u32(b, FRAME_MAGIC);
	rp_put_u32(b, q->layout_pad < 0 ? NONE : (uint32_t)q->layout_pad);
	rp_put_u32(b, q->flags);
	rp_put_u32(b, (uint32_t)q->in);
	rp_put_u32(b, (uint32_t)q->out);
	rp_put_u32(b, (uint32_t)q->err);
	rp_put_u32(b, fdmask);
	rp_put_i64(b, q->timeout_ns);
	rp_put_i64(b, q->grace_ns);
	uint32_t argc = 0;
	while (q->argv && q->argv[argc])
		argc++;
	rp_put_u32(b, argc);
	for (uint32_t i = 0; i < argc; i++)
		rp_put_str(b, q->argv[i]);
	if (!q->envp) {
		rp_put_u32(b, NONE);
	} else {
		uint32_t envc = 0;
		while (q->envp[envc])
			envc++;
		rp_put_u32(b, envc);
		for (uint32_t i = 0; i < envc; i++)
			rp_put_str(b, q->envp[i]);
	}
	rp_put_str(b, q->dir);
	rp_put_str(b, q->in == CHILD_IN_FILE ? q->in_path : NULL);
	rp_put_bytes(b, q->in == CHILD_IN_CONTENT ? (q->in_data ? q->in_data : "") : NULL,
		     q->in_len);
	rp_put_str(b, q->out == CHILD_OUT_FILE ? q->out_path : NULL);
	rp_put_str(b, q->err == CHILD_OUT_FILE ? q->err_path : NULL);
	rp_end_frame(b);
}

static void get_sbuf(struct reader *rd, struct sbuf *sb)
{
	size_t len;
	const char *p = rp_get_bytes(rd, &len);
	sbuf_reset(sb);
	if (p)
		sbuf_add(sb, p, len);
}

static const char *get_answer(struct reader *rd_, struct child_result *res, size_t *elen);

int runner_run(struct runner *r, const struct runner_request *req, struct child_result *res,
	       struct sbuf *err)
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
	if (rp_send_frame(r->fd, out, fds, nfds) < 0 ||
	    rp_recv_frame(r->fd, &r->frame, NULL, NULL) <= 0) {
		res->status = CHILD_ERROR;
		runner_lost(r, 1, err);
		return -1;
	}

	struct reader rd = {r->frame.buf + sizeof(uint32_t), r->frame.buf + r->frame.len, 0};
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
static const char *get_answer(struct reader *rd_, struct child_result *res, size_t *elen)
{
	struct reader rd = *rd_;
	res->status = (enum child_status)rp_get_u32(&rd);
	res->code = (int)rp_get_u32(&rd);
	res->exit_code = (int)rp_get_u32(&rd);
	res->signal = (int)rp_get_u32(&rd);
	res->timed_out = (int)rp_get_u32(&rd);
	res->interrupted = (int)rp_get_u32(&rd);
	res->spawn_errno = (int)rp_get_u32(&rd);
	uint32_t trunc = rp_get_u32(&rd);
	res->out_truncated = (int)(trunc & 1);
	res->err_truncated = (int)((trunc >> 1) & 1);
	res->wall_ns = rp_get_i64(&rd);
	res->user_ns = rp_get_i64(&rd);
	res->sys_ns = rp_get_i64(&rd);
	res->maxrss_bytes = rp_get_i64(&rd);
	const char *etext = rp_get_bytes(&rd, elen);
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

size_t runner_batch_request(struct runner_batch *b, const struct runner_request *req)
{
	ALLOC_GROW(b->req, b->nr_req + 1, b->alloc_req);
	b->req[b->nr_req] = *req;
	return b->nr_req++;
}

size_t runner_batch_add(struct runner_batch *b, size_t request, unsigned unit, unsigned flags)
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
static int batch_fail(struct runner_batch *b, const char *why, struct sbuf *err)
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

/* The table into r->table: each request with its exit codes. Returns
   NULL, or why the batch cannot be sent. */
static const char *batch_table_encode(struct runner *r, const struct runner_batch *b)
{
	struct sbuf *t = &r->table;
	sbuf_reset(t);
	rp_put_u32(t, (uint32_t)b->nr_req);
	for (size_t i = 0; i < b->nr_req; i++) {
		const struct runner_request *q = &b->req[i];
		int fds[3], nfds;
		if (!q->argv || !q->argv[0])
			return "empty command";
		if (q->in_len >= NONE)
			return "stdin content is too large";
		if (q->in == CHILD_IN_FD || q->out == CHILD_OUT_FD || q->err == CHILD_OUT_FD)
			return "descriptors cannot be passed in a batch";
		rp_put_u32(t, (uint32_t)(q->ok_codes ? q->nr_ok_codes : 0));
		for (size_t k = 0; q->ok_codes && k < q->nr_ok_codes; k++)
			rp_put_u32(t, (uint32_t)q->ok_codes[k]);
		struct runner_request bare = *q;
		bare.layout_pad = -1; /* the entries carry it */
		encode_request(&r->frame, &bare, fds, &nfds);
		rp_put_u32(t, (uint32_t)(r->frame.len - sizeof(uint32_t)));
		sbuf_add(t, r->frame.buf + sizeof(uint32_t), r->frame.len - sizeof(uint32_t));
	}
	return NULL;
}

/* The batch frame into r->frame: the table (or "the same as last time"),
   then the entries. */
static void batch_frame_encode(struct runner *r, const struct runner_batch *b)
{
	struct sbuf *t = &r->table;
	struct sbuf *f = &r->frame;
	rp_begin_frame(f);
	rp_put_u32(f, BATCH_MAGIC);
	if (r->last_table.len == t->len && !memcmp(r->last_table.buf, t->buf, t->len)) {
		rp_put_u32(f, TABLE_SAME);
	} else {
		rp_put_u32(f, TABLE_NEW);
		rp_put_u32(f, (uint32_t)t->len);
		sbuf_add(f, t->buf, t->len);
		sbuf_reset(&r->last_table);
		sbuf_add(&r->last_table, t->buf, t->len);
	}
	rp_put_u32(f, (uint32_t)b->nr);
	for (size_t i = 0; i < b->nr; i++) {
		rp_put_u32(f, (uint32_t)b->entry[i].request);
		rp_put_u32(f, b->entry[i].unit);
		rp_put_u32(f, b->entry[i].flags);
		rp_put_u32(f, b->entry[i].layout_pad < 0 ? NONE : (uint32_t)b->entry[i].layout_pad);
	}
	rp_end_frame(f);
}

/* The runner's answer in r->frame: where it stopped, then each entry's
   result. */
static int batch_answer_read(struct runner *r, struct runner_batch *b, struct sbuf *err)
{
	struct sbuf *f = &r->frame;
	struct reader rd = {f->buf + sizeof(uint32_t), f->buf + f->len, 0};
	uint32_t stop = rp_get_u32(&rd), n = rp_get_u32(&rd);
	if (stop == STOP_BAD || rd.bad || n != b->nr) {
		sbuf_reset(&r->last_table); /* the runner dropped it */
		return batch_fail(b,
				  stop == STOP_BAD ? "malformed request to the runner"
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
		return batch_fail(b, "malformed answer from the runner process", err);
	}
	b->stop = stop == STOP_BARRIER	   ? RUNNER_STOP_BARRIER
		  : stop == STOP_INTERRUPT ? RUNNER_STOP_INTERRUPT
					   : RUNNER_STOP_NONE;
	return 0;
}

int runner_run_batch(struct runner *r, struct runner_batch *b, struct sbuf *err)
{
	b->stop = RUNNER_STOP_NONE;
	struct sbuf dead = SBUF_INIT;
	if (runner_revive(r, &dead)) {
		batch_fail(b, dead.buf, err);
		sbuf_release(&dead);
		return -1;
	}
	for (size_t i = 0; i < b->nr; i++)
		if (b->entry[i].request >= b->nr_req || b->entry[i].unit >= RUNNER_MAX_UNIT ||
		    b->entry[i].layout_pad > RUNNER_LAYOUT_PAD_MAX)
			return batch_fail(b, "invalid batch entry", err);

	const char *bad = batch_table_encode(r, b);
	if (bad)
		return batch_fail(b, bad, err);
	batch_frame_encode(r, b);
	if (rp_send_frame(r->fd, &r->frame, NULL, 0) < 0 ||
	    rp_recv_frame(r->fd, &r->frame, NULL, NULL) <= 0) {
		struct sbuf why = SBUF_INIT;
		runner_lost(r, 1, &why);
		batch_fail(b, why.buf, err);
		sbuf_release(&why);
		return -1;
	}
	return batch_answer_read(r, b, err);
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
