/*
 * proc/child_io: a run's stdin and outputs (files, capture pipes, the
 * discarded stderr's pipe), reading them while and after it runs, and the
 * stderr tail kept for messages.
 */
#include "proc/child_internal.h"

#include <errno.h>
#include <fcntl.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/ioctl.h>

#include "base/fileio.h"

/*
 * A discarded stderr goes into a pipe that the waiting process (the runner,
 * asleep in child_wait_exit() anyway) drains as it fills: whatever is beyond the
 * last CHILD_TAIL_MAX bytes waiting in it is spliced to /dev/null without
 * being copied to us, and the rest is kept in child_err_keep, so memory stays
 * bounded whatever the program writes. (It used to be a memfd read after
 * the run: a program writing 500 MB to stderr grew shared memory by 500 MB
 * and ran 5x slower than with a discarded stdout; see bench/chatty.sh.)
 */
#define ERR_PIPE_SIZE (1 << 20) /* fewer wake-ups for a flood */
static int err_rfd = -1, err_wfd = -1;

static int open_capture(int *read_end, int *write_end, struct sbuf *err)
{
	int p[2];
	if (pipe2(p, O_CLOEXEC) < 0) {
		sbuf_addf(err, "cannot create a pipe: %s", strerror(errno));
		return -1;
	}
	/* Only our end is non-blocking; the child sees an ordinary pipe. */
	fcntl(p[0], F_SETFL, O_NONBLOCK);
	*read_end = p[0];
	*write_end = p[1];
	return 0;
}

int child_open_stdin(const struct child *c, struct run_fds *f, struct sbuf *err)
{
	switch (c->in) {
	case CHILD_IN_NULL:
		f->in = child_devnull_fd;
		return 0;
	case CHILD_IN_INHERIT:
		return 0;
	case CHILD_IN_FD:
		f->in = c->in_fd;
		return 0;
	case CHILD_IN_FILE:
		f->in = f->close_in =
		    open(c->in_path ? c->in_path : "", O_RDONLY | O_CLOEXEC | O_NOCTTY);
		if (f->in < 0) {
			sbuf_addf(err, "cannot open stdin file '%s': %s",
				  c->in_path ? c->in_path : "", strerror(errno));
			return -1;
		}
		return 0;
	case CHILD_IN_CONTENT: {
		/* A fresh memfd per run: offset 0, never a pipe to feed
		 * (which would deadlock against a child that does not read
		 * all of it), and seekable like a file. */
		int fd = memfd_create("kagari-stdin", MFD_CLOEXEC);
		if (fd < 0) {
			sbuf_addf(err, "cannot create stdin content: %s", strerror(errno));
			return -1;
		}
		f->in = f->close_in = fd;
		if (fileio_write_all(fd, c->in_data, c->in_len) < 0 || lseek(fd, 0, SEEK_SET) < 0) {
			sbuf_addf(err, "cannot write stdin content: %s", strerror(errno));
			return -1;
		}
		return 0;
	}
	}
	sbuf_adds(err, "invalid stdin mode");
	return -1;
}

int child_open_outfile(const char *path, int for_tail, struct sbuf *err)
{
	int flags = O_CREAT | O_TRUNC | O_CLOEXEC | O_NOCTTY;
	int fd = open(path, flags | (for_tail ? O_RDWR : O_WRONLY), 0666);
	if (fd < 0 && for_tail && errno == EACCES)
		fd = open(path, flags | O_WRONLY, 0666);
	if (fd < 0)
		sbuf_addf(err, "cannot open output file '%s': %s", path, strerror(errno));
	return fd;
}

/*
 * Empty the stderr pipe: all but the last CHILD_TAIL_MAX bytes waiting go
 * to /dev/null by splice (no copy to us; read into a scratch buffer where
 * splice is refused), the rest into child_err_keep, which is cut back to its last
 * CHILD_TAIL_MAX bytes whenever it grows past 4 times that.
 */
void child_drain_err(int fd)
{
	char buf[4 * CHILD_TAIL_MAX];
	for (;;) {
		int avail = 0;
		if (ioctl(fd, FIONREAD, &avail) < 0)
			avail = 0;
		if (avail > CHILD_TAIL_MAX) {
			size_t skip = (size_t)avail - CHILD_TAIL_MAX;
			ssize_t n =
			    splice(fd, NULL, child_devnull_fd, NULL, skip, SPLICE_F_NONBLOCK);
			if (n < 0 && errno == EINTR)
				continue;
			if (n > 0) {
				/* What went before the skipped bytes is no
				 * longer the tail. */
				sbuf_reset(&child_err_keep);
				continue;
			}
		}
		ssize_t n = read(fd, buf, sizeof(buf));
		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			return; /* EAGAIN: empty (we hold a writer: no EOF) */
		sbuf_add(&child_err_keep, buf, (size_t)n);
		if (child_err_keep.len > 4 * CHILD_TAIL_MAX) {
			memmove(child_err_keep.buf,
				child_err_keep.buf + child_err_keep.len - CHILD_TAIL_MAX,
				CHILD_TAIL_MAX);
			sbuf_setlen(&child_err_keep, CHILD_TAIL_MAX);
		}
	}
}

int child_open_outputs(const struct child *c, struct run_fds *f, struct sbuf *err)
{
	const char *out_path = c->out_path ? c->out_path : "";
	const char *err_path = c->err_path ? c->err_path : "";

	switch (c->out) {
	case CHILD_OUT_DISCARD:
		f->out = child_devnull_fd;
		break;
	case CHILD_OUT_INHERIT:
		break;
	case CHILD_OUT_FD:
		f->out = c->out_fd;
		break;
	case CHILD_OUT_FILE:
		if (c->err == CHILD_OUT_FILE && !strcmp(out_path, err_path)) {
			/* Like `>f 2>&1`: one file, one offset; the stderr
			 * tail is then read from it. */
			f->out = f->err = f->tail = f->own_tail =
			    child_open_outfile(out_path, 1, err);
			if (f->out < 0)
				return -1;
			break;
		}
		f->out = f->close_out = child_open_outfile(out_path, 0, err);
		if (f->out < 0)
			return -1;
		break;
	case CHILD_OUT_CAPTURE:
		if (open_capture(&f->out_pipe, &f->close_out, err))
			return -1;
		f->out = f->close_out;
		break;
	default:
		sbuf_adds(err, "invalid stdout mode");
		return -1;
	}

	switch (c->err) {
	case CHILD_OUT_DISCARD:
		/* Not /dev/null: a pipe we drain while the program runs,
		 * keeping the tail for the error message of a failing
		 * command (see the top of this file). */
		if (err_rfd < 0) {
			int p[2];
			if (pipe2(p, O_CLOEXEC) < 0) {
				f->err = child_devnull_fd;
				break;
			}
			/* Only our end is non-blocking; the program sees an
			 * ordinary pipe. A smaller pipe only costs wake-ups. */
			fcntl(p[0], F_SETFL, O_NONBLOCK);
			(void)!fcntl(p[0], F_SETPIPE_SZ, ERR_PIPE_SIZE);
			err_rfd = p[0];
			err_wfd = p[1];
		}
		/* Anything an earlier run's leftovers wrote is not ours. */
		sbuf_reset(&child_err_keep);
		child_drain_err(err_rfd);
		sbuf_reset(&child_err_keep);
		f->err = err_wfd;
		f->err_sink = err_rfd;
		break;
	case CHILD_OUT_INHERIT:
		break;
	case CHILD_OUT_FD:
		f->err = c->err_fd;
		break;
	case CHILD_OUT_FILE:
		if (c->out == CHILD_OUT_FILE && !strcmp(out_path, err_path))
			break; /* set up with stdout */
		f->err = f->tail = f->own_tail = child_open_outfile(err_path, 1, err);
		if (f->err < 0)
			return -1;
		break;
	case CHILD_OUT_CAPTURE:
		if (open_capture(&f->err_pipe, &f->close_err, err))
			return -1;
		f->err = f->close_err;
		break;
	default:
		sbuf_adds(err, "invalid stderr mode");
		return -1;
	}
	return 0;
}

void child_close_run_fds(struct run_fds *f)
{
	close_fd(&f->close_in);
	close_fd(&f->close_out);
	close_fd(&f->close_err);
	close_fd(&f->out_pipe);
	close_fd(&f->err_pipe);
	close_fd(&f->own_tail);
}

/* Read what is available from a capture pipe; closes it at EOF. */
void child_pump(int *fd, struct sbuf *sb, int *truncated)
{
	for (;;) {
		ssize_t n;
		if (sb->len < CHILD_CAPTURE_MAX) {
			sbuf_grow(sb, 16384);
			n = read(*fd, sb->buf + sb->len, sb->alloc - sb->len - 1);
			if (n > 0) {
				sbuf_extend(sb, (size_t)n);
				if (sb->len > CHILD_CAPTURE_MAX) {
					sbuf_setlen(sb, CHILD_CAPTURE_MAX);
					*truncated = 1;
				}
			}
		} else {
			char sink[4096];
			n = read(*fd, sink, sizeof(sink));
			if (n > 0)
				*truncated = 1;
		}
		if (n > 0)
			continue;
		if (n < 0 && errno == EINTR)
			continue;
		if (n == 0 || errno != EAGAIN)
			close_fd(fd);
		return;
	}
}

/* Keep the last CHILD_TAIL_MAX bytes, starting at a UTF-8 boundary. */
void child_set_tail(struct sbuf *tail, const char *data, size_t len)
{
	size_t skip = 0;
	if (len > CHILD_TAIL_MAX) {
		data += len - CHILD_TAIL_MAX;
		len = CHILD_TAIL_MAX;
		while (skip < 3 && skip < len && ((unsigned char)data[skip] & 0xC0) == 0x80)
			skip++;
	}
	sbuf_reset(tail);
	sbuf_add(tail, data + skip, len - skip);
}

/* Returns the size of the file (0 when empty), or -1 if unknown. */
off_t child_read_tail(int fd, struct sbuf *tail)
{
	struct stat st;
	if (fstat(fd, &st) < 0)
		return -1;
	if (!S_ISREG(st.st_mode) || st.st_size <= 0)
		return st.st_size;
	char buf[CHILD_TAIL_MAX];
	off_t off = st.st_size > CHILD_TAIL_MAX ? st.st_size - CHILD_TAIL_MAX : 0;
	ssize_t n = pread(fd, buf, (size_t)(st.st_size - off), off);
	if (n <= 0)
		return st.st_size;
	size_t skip = 0;
	while (off && skip < 3 && skip < (size_t)n && ((unsigned char)buf[skip] & 0xC0) == 0x80)
		skip++;
	sbuf_reset(tail);
	sbuf_add(tail, buf + skip, (size_t)n - skip);
	return st.st_size;
}

/* Every writer is gone: what is left in the pipes is all there is. */
void child_run_collect(struct child *c, struct run *run)
{
	struct child_result *r = &c->res;
	if (run->t.master >= 0) {
		close_fd(&run->t.slave); /* the master now ends in EIO */
		child_term_drain(&run->t, r);
		child_set_tail(&r->stderr_tail, run->t.tail.buf, run->t.tail.len);
	}
	if (run->f.out_pipe >= 0)
		child_pump(&run->f.out_pipe, &r->out, &r->out_truncated);
	if (run->f.err_pipe >= 0)
		child_pump(&run->f.err_pipe, &r->err, &r->err_truncated);
	if (run->f.err_sink >= 0)
		child_drain_err(run->f.err_sink);
}
