/*
 * proc/child_term: the pseudo-terminal of a `terminal: true` run (struct
 * term in child_internal.h): opening it, the child's file actions, typing
 * the input and taking the output.
 */
#include "proc/child_internal.h"

#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <termios.h>

#include "base/fileio.h"

void child_term_release(struct term *t)
{
	close_fd(&t->master);
	close_fd(&t->slave);
	close_fd(&t->out_fd);
	sbuf_release(&t->name);
	sbuf_release(&t->input);
	sbuf_release(&t->tail);
}

/* Open the terminal pair, size it, gather the input and the output file. */
int child_term_open(const struct child *c, struct term *t, struct sbuf *err)
{
	t->out_mode = c->out;
	switch (c->in) {
	case CHILD_IN_NULL:
		break;
	case CHILD_IN_CONTENT:
		sbuf_add(&t->input, c->in_data ? c->in_data : "", c->in_len);
		break;
	case CHILD_IN_FILE:
		if (sbuf_read_file(&t->input, c->in_path ? c->in_path : "", CHILD_CAPTURE_MAX)) {
			sbuf_addf(err, "cannot read stdin file '%s': %s",
				  c->in_path ? c->in_path : "", strerror(errno));
			return -1;
		}
		break;
	default:
		sbuf_adds(err, "a terminal run takes stdin as content or a "
			       "file only");
		return -1;
	}
	if (c->err != CHILD_OUT_DISCARD ||
	    (c->out != CHILD_OUT_DISCARD && c->out != CHILD_OUT_FILE &&
	     c->out != CHILD_OUT_CAPTURE)) {
		sbuf_adds(err, "a terminal run writes its output to the "
			       "terminal: stdout may only be discarded, a "
			       "file or captured, stderr only discarded");
		return -1;
	}
	if (c->out == CHILD_OUT_FILE) {
		t->out_fd = child_open_outfile(c->out_path ? c->out_path : "", 0, err);
		if (t->out_fd < 0)
			return -1;
	}
	t->master = posix_openpt(O_RDWR | O_NOCTTY | O_CLOEXEC);
	if (t->master < 0 || grantpt(t->master) || unlockpt(t->master)) {
		sbuf_addf(err, "cannot open a pseudo-terminal: %s", strerror(errno));
		return -1;
	}
	sbuf_grow(&t->name, 128);
	if (ptsname_r(t->master, t->name.buf, t->name.alloc - 1)) {
		sbuf_addf(err, "cannot name the pseudo-terminal: %s", strerror(errno));
		return -1;
	}
	t->name.len = strlen(t->name.buf);
	struct winsize ws = {.ws_row = CHILD_TERMINAL_ROWS, .ws_col = CHILD_TERMINAL_COLS};
	t->slave = open(t->name.buf, O_RDWR | O_NOCTTY | O_CLOEXEC);
	if (t->slave < 0 || ioctl(t->master, TIOCSWINSZ, &ws) < 0) {
		sbuf_addf(err, "cannot set up the pseudo-terminal '%s': %s", t->name.buf,
			  strerror(errno));
		return -1;
	}
	/* End of input, typed after the content: a partial last line needs
	 * one VEOF to be delivered and another to read as end of file. */
	struct termios tio;
	char veof = 4; /* ^D */
	if (!tcgetattr(t->slave, &tio) && tio.c_cc[VEOF])
		veof = (char)tio.c_cc[VEOF];
	if (t->input.len && t->input.buf[t->input.len - 1] != '\n')
		sbuf_addch(&t->input, veof);
	sbuf_addch(&t->input, veof);
	fcntl(t->master, F_SETFL, O_NONBLOCK);
	return 0;
}

/* The terminal's file actions: slave on 0 (as the controlling terminal). */
void child_term_actions(posix_spawn_file_actions_t *fa, const struct term *t, const char *dir)
{
	posix_spawn_file_actions_init(fa);
	posix_spawn_file_actions_addopen(fa, 0, t->name.buf, O_RDWR, 0);
	posix_spawn_file_actions_adddup2(fa, 0, 1);
	posix_spawn_file_actions_adddup2(fa, 0, 2);
	posix_spawn_file_actions_addclosefrom_np(fa, 3);
	if (dir)
		posix_spawn_file_actions_addchdir_np(fa, dir);
}

/* Take what the master has; keep it where c->out says. */
void child_term_drain(struct term *t, struct child_result *r)
{
	char buf[16384];
	while (!t->eof) {
		ssize_t n = read(t->master, buf, sizeof(buf));
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0 && errno == EAGAIN)
			return;
		if (n <= 0) {
			t->eof = 1; /* EIO: every slave is closed */
			return;
		}
		t->ready = 1;
		if (t->out_fd >= 0 && fileio_write_all(t->out_fd, buf, (size_t)n) < 0) {
			/* A full disk loses output, not the run. */
		}
		if (t->out_mode == CHILD_OUT_CAPTURE) {
			size_t room =
			    r->out.len < CHILD_CAPTURE_MAX ? CHILD_CAPTURE_MAX - r->out.len : 0;
			sbuf_add(&r->out, buf, (size_t)n < room ? (size_t)n : room);
			if ((size_t)n > room)
				r->out_truncated = 1;
		}
		sbuf_add(&t->tail, buf, (size_t)n);
		if (t->tail.len > 4 * CHILD_TAIL_MAX) {
			memmove(t->tail.buf, t->tail.buf + t->tail.len - CHILD_TAIL_MAX,
				CHILD_TAIL_MAX);
			sbuf_setlen(&t->tail, CHILD_TAIL_MAX);
		}
	}
}

/* Type what the terminal accepts of the input, once the program is ready. */
void child_term_type(struct term *t)
{
	while (t->ready && t->typed < t->input.len) {
		ssize_t n = write(t->master, t->input.buf + t->typed, t->input.len - t->typed);
		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0) {
			if (n < 0 && errno != EAGAIN)
				t->typed = t->input.len; /* give up */
			return;
		}
		t->typed += (size_t)n;
	}
}
