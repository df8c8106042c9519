/*
 * proc/child: the one module that starts processes (child.h). Laid out in
 * call order: interrupts and shared fds; results; resolving a program on
 * PATH (child_check_program()); stdin and output plumbing; posix_spawn
 * attributes and actions; the pseudo-terminal for `terminal: true`;
 * waiting with timeouts, the TERM-then-KILL stop of the process group and
 * the stderr tail; child_run(); and child_result_describe(), the one
 * wording of how a run ended.
 */
#include "proc/child.h"

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <spawn.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/ioctl.h>
#include <sys/wait.h>
#include <termios.h>
#include <time.h>
#include <unistd.h>

#include "base/fileio.h"
#include "base/xalloc.h"
#include "proc/proc.h"

extern char **environ;

/*
 * Process-wide state. The interrupt pair is a self-pipe: child_interrupt()
 * (called from a signal handler) sets the flag and writes a byte, which wakes
 * the ppoll() of a waiting run without the lost-wakeup race a bare flag has.
 * /dev/null and the stderr pipe are opened once and reused by every run,
 * which keeps the per-run cost of the runner close to a bare spawn.
 *
 * A discarded stderr goes into a pipe that the waiting process (the runner,
 * asleep in wait_exit() anyway) drains as it fills: whatever is beyond the
 * last CHILD_TAIL_MAX bytes waiting in it is spliced to /dev/null without
 * being copied to us, and the rest is kept in err_keep, so memory stays
 * bounded whatever the program writes. (It used to be a memfd read after
 * the run: a program writing 500 MB to stderr grew shared memory by 500 MB
 * and ran 5x slower than with a discarded stdout; see bench/chatty.sh.)
 */
#define ERR_PIPE_SIZE (1 << 20) /* fewer wake-ups for a flood */
static volatile sig_atomic_t intr_flag;
static volatile sig_atomic_t intr_wfd = -1;
static int intr_rfd = -1;
static int devnull_fd = -1;
static int err_rfd = -1, err_wfd = -1;
static struct sbuf err_keep = SBUF_INIT; /* the recent stderr of a run */
static int no_pidfd;

void child_debug_no_pidfd(int on)
{
	no_pidfd = on;
}

void child_interrupt(void)
{
	int saved = errno;
	intr_flag = 1;
	int fd = intr_wfd;
	if (fd >= 0 && write(fd, "", 1) < 0) {
		/* A full pipe already holds a wake-up. */
	}
	errno = saved;
}

static void drain_fd(int fd)
{
	char buf[64];
	while (fd >= 0 && (read(fd, buf, sizeof(buf)) > 0 || errno == EINTR))
		;
}

void child_interrupt_clear(void)
{
	intr_flag = 0;
	drain_fd(intr_rfd);
}

int child_interrupt_pending(void)
{
	return intr_flag != 0;
}

static int setup_shared_fds(struct sbuf *err)
{
	if (intr_rfd < 0) {
		int p[2];
		if (pipe2(p, O_CLOEXEC | O_NONBLOCK) < 0) {
			sbuf_addf(err, "cannot create a pipe: %s",
				  strerror(errno));
			return -1;
		}
		intr_rfd = p[0];
		intr_wfd = p[1];
	}
	if (devnull_fd < 0) {
		devnull_fd = open("/dev/null", O_RDWR | O_CLOEXEC);
		if (devnull_fd < 0) {
			sbuf_addf(err, "cannot open '/dev/null': %s",
				  strerror(errno));
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

static int64_t now_ns(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (int64_t)ts.tv_sec * 1000000000 + ts.tv_nsec;
}

static int64_t tv_ns(const struct timeval *tv)
{
	return (int64_t)tv->tv_sec * 1000000000 + (int64_t)tv->tv_usec * 1000;
}

static const char *env_get(const char *const *envp, const char *name)
{
	size_t n = strlen(name);
	for (; envp && *envp; envp++)
		if (!strncmp(*envp, name, n) && (*envp)[n] == '=')
			return *envp + n + 1;
	return NULL;
}

/* `path` as seen from the child's working directory, for checks here. */
static void from_dir(struct sbuf *out, const char *dir, const char *path)
{
	sbuf_reset(out);
	if (dir && path[0] != '/') {
		sbuf_adds(out, dir);
		sbuf_addch(out, '/');
	}
	sbuf_adds(out, path);
}

/*
 * Find the program to spawn. A name with a slash is used as is (relative
 * paths resolve in the child, after its chdir); otherwise search the PATH of
 * the child's environment, like execvp but with the child's PATH rather than
 * ours. Returns 0 with the path in `path`, or -1 with *eno and a reason.
 */
static int resolve_program(const char *prog, const char *dir,
			   const char *const *envp, struct sbuf *path, int *eno,
			   struct sbuf *err)
{
	sbuf_reset(path);
	if (strchr(prog, '/')) {
		sbuf_adds(path, prog);
		return 0;
	}
	if (!*prog) {
		*eno = ENOENT;
		sbuf_adds(err, "empty program name");
		return -1;
	}
	const char *search = env_get(envp, "PATH");
	if (!search)
		search = "/bin:/usr/bin";
	struct sbuf check = SBUF_INIT, denied = SBUF_INIT;
	int found = 0;
	for (const char *p = search;; p++) {
		const char *end = strchrnul(p, ':');
		sbuf_reset(path);
		if (end == p)
			sbuf_addch(path, '.');
		else
			sbuf_add(path, p, (size_t)(end - p));
		sbuf_addch(path, '/');
		sbuf_adds(path, prog);
		from_dir(&check, dir, path->buf);
		struct stat st;
		if (!stat(check.buf, &st) && S_ISREG(st.st_mode)) {
			if (!access(check.buf, X_OK)) {
				found = 1;
				break;
			}
			if (!denied.len)
				sbuf_adds(&denied, check.buf);
		}
		if (!*end)
			break;
		p = end;
	}
	if (!found) {
		if (denied.len) {
			*eno = EACCES;
			sbuf_addf(err,
				  "cannot run '%s': permission denied "
				  "(not executable)",
				  denied.buf);
		} else {
			*eno = ENOENT;
			sbuf_addf(err,
				  "command not found: '%s' (searched "
				  "PATH=%s)",
				  prog, search);
		}
	}
	sbuf_release(&check);
	sbuf_release(&denied);
	return found ? 0 : -1;
}

static void spawn_reason(int eno, const char *prog, const char *dir,
			 struct sbuf *err)
{
	struct stat st;
	if (dir && (eno == ENOENT || eno == ENOTDIR || eno == EACCES) &&
	    (stat(dir, &st) < 0 || !S_ISDIR(st.st_mode))) {
		sbuf_addf(err, "cannot change to directory '%s': %s", dir,
			  strerror(errno ? errno : ENOTDIR));
		return;
	}
	struct sbuf shown = SBUF_INIT;
	from_dir(&shown, dir, prog);
	switch (eno) {
	case ENOENT:
		sbuf_addf(err, "cannot run '%s': no such file", shown.buf);
		break;
	case EACCES:
		if (!stat(shown.buf, &st) && S_ISDIR(st.st_mode))
			sbuf_addf(err, "cannot run '%s': is a directory",
				  shown.buf);
		else
			sbuf_addf(err,
				  "cannot run '%s': permission denied "
				  "(not executable)",
				  shown.buf);
		break;
	case ENOEXEC:
		sbuf_addf(err,
			  "cannot run '%s': exec format error "
			  "(a script without a #! line?)",
			  shown.buf);
		break;
	default:
		sbuf_addf(err, "cannot run '%s': %s", shown.buf, strerror(eno));
	}
	sbuf_release(&shown);
}

int child_check_program(const char *prog, const char *dir,
			const char *const *envp, struct sbuf *err)
{
	struct sbuf path = SBUF_INIT, full = SBUF_INIT;
	int eno = 0, rc = 0;
	if (!envp)
		envp = (const char *const *)environ;
	if (resolve_program(prog, dir, envp, &path, &eno, err)) {
		rc = -1;
	} else if (strchr(prog, '/')) {
		/* What posix_spawn would find after the child's chdir. */
		struct stat st;
		from_dir(&full, dir, prog);
		if (stat(full.buf, &st) < 0)
			eno = errno == ENOTDIR ? ENOTDIR : ENOENT;
		else if (!S_ISREG(st.st_mode) || access(full.buf, X_OK) < 0)
			eno = EACCES;
		if (eno) {
			spawn_reason(eno, prog, dir, err);
			rc = -1;
		}
	}
	sbuf_release(&path);
	sbuf_release(&full);
	return rc;
}

/* Everything one run holds open; fds are -1 when unused. */
struct run_fds {
	int in, out, err; /* the child's 0/1/2 sources (-1: inherit) */
	int close_in, close_out, close_err; /* ours to close after the spawn */
	int out_pipe, err_pipe;		    /* read ends of capture pipes */
	int tail;	    /* where to read the stderr tail from */
	int own_tail;	    /* tail when it is ours to close */
	int err_sink;	    /* read end of the stderr pipe (DISCARD) */
};

static void close_fd(int *fd)
{
	if (*fd >= 0) {
		close(*fd);
		*fd = -1;
	}
}

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

static int open_stdin(const struct child *c, struct run_fds *f,
		      struct sbuf *err)
{
	switch (c->in) {
	case CHILD_IN_NULL:
		f->in = devnull_fd;
		return 0;
	case CHILD_IN_INHERIT:
		return 0;
	case CHILD_IN_FD:
		f->in = c->in_fd;
		return 0;
	case CHILD_IN_FILE:
		f->in = f->close_in = open(c->in_path ? c->in_path : "",
					   O_RDONLY | O_CLOEXEC | O_NOCTTY);
		if (f->in < 0) {
			sbuf_addf(err, "cannot open stdin file '%s': %s",
				  c->in_path ? c->in_path : "",
				  strerror(errno));
			return -1;
		}
		return 0;
	case CHILD_IN_CONTENT: {
		/* A fresh memfd per run: offset 0, never a pipe to feed
		 * (which would deadlock against a child that does not read
		 * all of it), and seekable like a file. */
		int fd = memfd_create("kagari-stdin", MFD_CLOEXEC);
		if (fd < 0) {
			sbuf_addf(err, "cannot create stdin content: %s",
				  strerror(errno));
			return -1;
		}
		f->in = f->close_in = fd;
		if (fileio_write_all(fd, c->in_data, c->in_len) < 0 ||
		    lseek(fd, 0, SEEK_SET) < 0) {
			sbuf_addf(err, "cannot write stdin content: %s",
				  strerror(errno));
			return -1;
		}
		return 0;
	}
	}
	sbuf_adds(err, "invalid stdin mode");
	return -1;
}

static int open_outfile(const char *path, int for_tail, struct sbuf *err)
{
	int flags = O_CREAT | O_TRUNC | O_CLOEXEC | O_NOCTTY;
	int fd = open(path, flags | (for_tail ? O_RDWR : O_WRONLY), 0666);
	if (fd < 0 && for_tail && errno == EACCES)
		fd = open(path, flags | O_WRONLY, 0666);
	if (fd < 0)
		sbuf_addf(err, "cannot open output file '%s': %s", path,
			  strerror(errno));
	return fd;
}

/*
 * Empty the stderr pipe: all but the last CHILD_TAIL_MAX bytes waiting go
 * to /dev/null by splice (no copy to us; read into a scratch buffer where
 * splice is refused), the rest into err_keep, which is cut back to its last
 * CHILD_TAIL_MAX bytes whenever it grows past 4 times that.
 */
static void drain_err(int fd)
{
	char buf[4 * CHILD_TAIL_MAX];
	for (;;) {
		int avail = 0;
		if (ioctl(fd, FIONREAD, &avail) < 0)
			avail = 0;
		if (avail > CHILD_TAIL_MAX) {
			size_t skip = (size_t)avail - CHILD_TAIL_MAX;
			ssize_t n = splice(fd, NULL, devnull_fd, NULL, skip,
					   SPLICE_F_NONBLOCK);
			if (n < 0 && errno == EINTR)
				continue;
			if (n > 0) {
				/* What went before the skipped bytes is no
				 * longer the tail. */
				sbuf_reset(&err_keep);
				continue;
			}
		}
		ssize_t n = read(fd, buf, sizeof(buf));
		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			return; /* EAGAIN: empty (we hold a writer: no EOF) */
		sbuf_add(&err_keep, buf, (size_t)n);
		if (err_keep.len > 4 * CHILD_TAIL_MAX) {
			memmove(err_keep.buf,
				err_keep.buf + err_keep.len - CHILD_TAIL_MAX,
				CHILD_TAIL_MAX);
			sbuf_setlen(&err_keep, CHILD_TAIL_MAX);
		}
	}
}

static int open_outputs(const struct child *c, struct run_fds *f,
			struct sbuf *err)
{
	const char *out_path = c->out_path ? c->out_path : "";
	const char *err_path = c->err_path ? c->err_path : "";

	switch (c->out) {
	case CHILD_OUT_DISCARD:
		f->out = devnull_fd;
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
			    open_outfile(out_path, 1, err);
			if (f->out < 0)
				return -1;
			break;
		}
		f->out = f->close_out = open_outfile(out_path, 0, err);
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
				f->err = devnull_fd;
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
		sbuf_reset(&err_keep);
		drain_err(err_rfd);
		sbuf_reset(&err_keep);
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
		f->err = f->tail = f->own_tail = open_outfile(err_path, 1, err);
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

static void close_run_fds(struct run_fds *f)
{
	close_fd(&f->close_in);
	close_fd(&f->close_out);
	close_fd(&f->close_err);
	close_fd(&f->out_pipe);
	close_fd(&f->err_pipe);
	close_fd(&f->own_tail);
}

/* Read what is available from a capture pipe; closes it at EOF. */
static void pump(int *fd, struct sbuf *sb, int *truncated)
{
	for (;;) {
		ssize_t n;
		if (sb->len < CHILD_CAPTURE_MAX) {
			sbuf_grow(sb, 16384);
			n = read(*fd, sb->buf + sb->len,
				 sb->alloc - sb->len - 1);
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
static void set_tail(struct sbuf *tail, const char *data, size_t len)
{
	size_t skip = 0;
	if (len > CHILD_TAIL_MAX) {
		data += len - CHILD_TAIL_MAX;
		len = CHILD_TAIL_MAX;
		while (skip < 3 && skip < len &&
		       ((unsigned char)data[skip] & 0xC0) == 0x80)
			skip++;
	}
	sbuf_reset(tail);
	sbuf_add(tail, data + skip, len - skip);
}

/* Returns the size of the file (0 when empty), or -1 if unknown. */
static off_t read_tail(int fd, struct sbuf *tail)
{
	struct stat st;
	if (fstat(fd, &st) < 0)
		return -1;
	if (!S_ISREG(st.st_mode) || st.st_size <= 0)
		return st.st_size;
	char buf[CHILD_TAIL_MAX];
	off_t off =
	    st.st_size > CHILD_TAIL_MAX ? st.st_size - CHILD_TAIL_MAX : 0;
	ssize_t n = pread(fd, buf, (size_t)(st.st_size - off), off);
	if (n <= 0)
		return st.st_size;
	size_t skip = 0;
	while (off && skip < 3 && skip < (size_t)n &&
	       ((unsigned char)buf[skip] & 0xC0) == 0x80)
		skip++;
	sbuf_reset(tail);
	sbuf_add(tail, buf + skip, (size_t)n - skip);
	return st.st_size;
}

static void signal_run(pid_t pid, int own_group, int sig)
{
	if (own_group && kill(-pid, sig) == 0)
		return;
	kill(pid, sig);
}

/*
 * posix_spawn attributes and file actions are built once and reused while
 * they stay the same (measured runs repeat one command with the cached
 * /dev/null and tail descriptors): building them costs allocations and a
 * getrlimit per action, every run.
 */
static posix_spawnattr_t spawn_attrs[3];
static int spawn_attrs_ready[3];

/* own_group: 0 = our group, 1 = a new group, 2 = a new session (setsid). */
static posix_spawnattr_t *spawn_attr(int own_group)
{
	posix_spawnattr_t *attr = &spawn_attrs[own_group];
	if (!spawn_attrs_ready[own_group]) {
		sigset_t none, all;
		short sflags = POSIX_SPAWN_SETSIGMASK | POSIX_SPAWN_SETSIGDEF;
		posix_spawnattr_init(attr);
		sigemptyset(&none);
		sigfillset(&all);
		posix_spawnattr_setsigmask(attr, &none);
		posix_spawnattr_setsigdefault(attr, &all);
		if (own_group == 2) {
			sflags |= POSIX_SPAWN_SETSID;
		} else if (own_group) {
			sflags |= POSIX_SPAWN_SETPGROUP;
			posix_spawnattr_setpgroup(attr, 0);
		}
		posix_spawnattr_setflags(attr, sflags);
		spawn_attrs_ready[own_group] = 1;
	}
	return attr;
}

static struct {
	int ready;
	int in, out, err; /* the fds dup'ed onto 0-2 (-1: inherited) */
	int has_dir;
	struct sbuf dir;
	posix_spawn_file_actions_t fa;
} spawn_fa = {.dir = SBUF_INIT};

static posix_spawn_file_actions_t *spawn_actions(const struct run_fds *f,
						 const char *dir)
{
	if (spawn_fa.ready && spawn_fa.in == f->in && spawn_fa.out == f->out &&
	    spawn_fa.err == f->err && spawn_fa.has_dir == !!dir &&
	    (!dir || !strcmp(spawn_fa.dir.buf, dir)))
		return &spawn_fa.fa;
	if (spawn_fa.ready)
		posix_spawn_file_actions_destroy(&spawn_fa.fa);
	posix_spawn_file_actions_init(&spawn_fa.fa);
	if (f->in >= 0)
		posix_spawn_file_actions_adddup2(&spawn_fa.fa, f->in, 0);
	if (f->out >= 0)
		posix_spawn_file_actions_adddup2(&spawn_fa.fa, f->out, 1);
	if (f->err >= 0)
		posix_spawn_file_actions_adddup2(&spawn_fa.fa, f->err, 2);
	/* Belt and braces over O_CLOEXEC: descriptors another library
	 * opened without it must not leak into the measured program. */
	posix_spawn_file_actions_addclosefrom_np(&spawn_fa.fa, 3);
	if (dir)
		posix_spawn_file_actions_addchdir_np(&spawn_fa.fa, dir);
	spawn_fa.in = f->in;
	spawn_fa.out = f->out;
	spawn_fa.err = f->err;
	spawn_fa.has_dir = !!dir;
	sbuf_reset(&spawn_fa.dir);
	if (dir)
		sbuf_adds(&spawn_fa.dir, dir);
	spawn_fa.ready = 1;
	return &spawn_fa.fa;
}


/*
 * A run on a pseudo-terminal (CHILD_TERMINAL). The child is spawned with
 * POSIX_SPAWN_SETSID and opens the slave by name as its fd 0 (without
 * O_NOCTTY): on Linux a session leader without a controlling terminal that
 * opens a terminal acquires it, so the slave becomes its controlling
 * terminal and the foreground group is the child's (posix_spawn cannot
 * issue TIOCSCTTY, and needs not). We keep a slave descriptor open for the
 * run, so the master never reports a hang-up before the child has opened
 * its side; it is closed once the run is over, after which a read of the
 * master returns what is left, then EIO.
 */
struct term {
	int master; /* -1: not a terminal run */
	int slave;  /* our own slave descriptor, held during the run */
	struct sbuf name;
	struct sbuf input; /* what to type: stdin content, then VEOF */
	size_t typed;
	int ready;	  /* first output seen, or CHILD_TERMINAL_READY_NS */
	int64_t ready_at; /* when the wait for output ends */
	int out_fd;	  /* the stdout file, or -1 */
	int out_mode;	  /* enum child_out of c->out */
	struct sbuf tail; /* recent output, for res.stderr_tail */
	int eof;	  /* the master has nothing more to give */
};

#define TERM_INIT                                                              \
	{                                                                      \
		.master = -1, .slave = -1, .name = SBUF_INIT,                  \
		.input = SBUF_INIT, .out_fd = -1, .tail = SBUF_INIT            \
	}

static void term_release(struct term *t)
{
	close_fd(&t->master);
	close_fd(&t->slave);
	close_fd(&t->out_fd);
	sbuf_release(&t->name);
	sbuf_release(&t->input);
	sbuf_release(&t->tail);
}

/* Open the terminal pair, size it, gather the input and the output file. */
static int term_open(const struct child *c, struct term *t, struct sbuf *err)
{
	t->out_mode = c->out;
	switch (c->in) {
	case CHILD_IN_NULL:
		break;
	case CHILD_IN_CONTENT:
		sbuf_add(&t->input, c->in_data ? c->in_data : "", c->in_len);
		break;
	case CHILD_IN_FILE:
		if (sbuf_read_file(&t->input, c->in_path ? c->in_path : "",
				   CHILD_CAPTURE_MAX)) {
			sbuf_addf(err, "cannot read stdin file '%s': %s",
				  c->in_path ? c->in_path : "",
				  strerror(errno));
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
		t->out_fd = open_outfile(c->out_path ? c->out_path : "", 0, err);
		if (t->out_fd < 0)
			return -1;
	}
	t->master = posix_openpt(O_RDWR | O_NOCTTY | O_CLOEXEC);
	if (t->master < 0 || grantpt(t->master) || unlockpt(t->master)) {
		sbuf_addf(err, "cannot open a pseudo-terminal: %s",
			  strerror(errno));
		return -1;
	}
	sbuf_grow(&t->name, 128);
	if (ptsname_r(t->master, t->name.buf, t->name.alloc - 1)) {
		sbuf_addf(err, "cannot name the pseudo-terminal: %s",
			  strerror(errno));
		return -1;
	}
	t->name.len = strlen(t->name.buf);
	struct winsize ws = {.ws_row = CHILD_TERMINAL_ROWS,
			     .ws_col = CHILD_TERMINAL_COLS};
	t->slave = open(t->name.buf, O_RDWR | O_NOCTTY | O_CLOEXEC);
	if (t->slave < 0 || ioctl(t->master, TIOCSWINSZ, &ws) < 0) {
		sbuf_addf(err, "cannot set up the pseudo-terminal '%s': %s",
			  t->name.buf, strerror(errno));
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
static void term_actions(posix_spawn_file_actions_t *fa, const struct term *t,
			 const char *dir)
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
static void term_drain(struct term *t, struct child_result *r)
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
		if (t->out_fd >= 0 &&
		    fileio_write_all(t->out_fd, buf, (size_t)n) < 0) {
			/* A full disk loses output, not the run. */
		}
		if (t->out_mode == CHILD_OUT_CAPTURE) {
			size_t room = r->out.len < CHILD_CAPTURE_MAX
					  ? CHILD_CAPTURE_MAX - r->out.len
					  : 0;
			sbuf_add(&r->out, buf, (size_t)n < room ? (size_t)n : room);
			if ((size_t)n > room)
				r->out_truncated = 1;
		}
		sbuf_add(&t->tail, buf, (size_t)n);
		if (t->tail.len > 4 * CHILD_TAIL_MAX) {
			memmove(t->tail.buf,
				t->tail.buf + t->tail.len - CHILD_TAIL_MAX,
				CHILD_TAIL_MAX);
			sbuf_setlen(&t->tail, CHILD_TAIL_MAX);
		}
	}
}

/* Type what the terminal accepts of the input, once the program is ready. */
static void term_type(struct term *t)
{
	while (t->ready && t->typed < t->input.len) {
		ssize_t n = write(t->master, t->input.buf + t->typed,
				  t->input.len - t->typed);
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

struct waiter {
	pid_t pid;
	int pidfd;
	int own_group;
	int stopping; /* 0 running, 1 SIGTERM sent, 2 SIGKILL sent */
	int64_t deadline;
	int64_t grace_ns;
};

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

/* What one wait_exit() round polls, and where each fd sits (-1: absent). */
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
static void poll_build(const struct child *c, const struct waiter *w,
		       const struct run_fds *f, const struct term *t,
		       struct poll_set *ps)
{
	ps->n = 0;
	ps->i_pid = ps->i_intr = ps->i_watch = ps->i_out = ps->i_err = -1;
	ps->i_term = ps->i_sink = -1;
	if (w->pidfd >= 0)
		ps->i_pid = poll_add(ps, w->pidfd, POLLIN);
	if (!w->stopping) {
		ps->i_intr = poll_add(ps, intr_rfd, POLLIN);
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
static int64_t poll_wait_ns(const struct waiter *w, const struct term *t,
			    const struct poll_set *ps, int64_t *step)
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
static int poll_serve(struct child *c, struct waiter *w, struct run_fds *f,
		      struct term *t, const struct poll_set *ps)
{
	struct child_result *r = &c->res;
	const struct pollfd *pfd = ps->pfd;
	if (ps->i_out >= 0 && pfd[ps->i_out].revents)
		pump(&f->out_pipe, &r->out, &r->out_truncated);
	if (ps->i_err >= 0 && pfd[ps->i_err].revents)
		pump(&f->err_pipe, &r->err, &r->err_truncated);
	if (ps->i_sink >= 0 && pfd[ps->i_sink].revents)
		drain_err(f->err_sink);
	if (ps->i_term >= 0 && pfd[ps->i_term].revents)
		term_drain(t, r);
	if (ps->i_pid >= 0 && pfd[ps->i_pid].revents)
		return 1;
	if (ps->i_intr >= 0 && pfd[ps->i_intr].revents) {
		drain_fd(intr_rfd);
		if (!w->stopping && intr_flag) {
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
static void wait_exit(struct child *c, struct waiter *w, struct run_fds *f,
		      struct term *t, int64_t t0)
{
	struct child_result *r = &c->res;
	int64_t step = 100000; /* fallback polling, grows to 10 ms */
	w->deadline = c->timeout_ns > 0 ? t0 + c->timeout_ns : -1;
	t->ready_at = t0 + CHILD_TERMINAL_READY_NS;

	for (;;) {
		if (t->master >= 0) {
			if (!t->ready && now_ns() >= t->ready_at)
				t->ready = 1;
			term_type(t);
		}
		if (!w->stopping && intr_flag) {
			r->interrupted = 1;
			begin_stop(w);
		}
		struct poll_set ps;
		poll_build(c, w, f, t, &ps);
		int64_t wait = poll_wait_ns(w, t, &ps, &step);
		struct timespec ts = {(time_t)(wait / 1000000000),
				      (long)(wait % 1000000000)};
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

int child_run(struct child *c, struct sbuf *err)
{
	return child_run_argv(c, c->argv.v, c->env.nr ? c->env.v : NULL, err);
}

/* What one run holds between its steps. */
struct run {
	struct run_fds f;
	struct term t;
	posix_spawn_file_actions_t term_fa;
	int have_term_fa;
	struct sbuf path; /* the program, resolved */
	pid_t *keep;	  /* children we had before the run (subreaper) */
	size_t nkeep, keep_alloc;
	int subreaper;
	int own_group;
	pid_t pid;
	int64_t t0;
};

static void run_init(struct run *run)
{
	memset(run, 0, sizeof(*run));
	run->f = (struct run_fds){-1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1};
	run->t = (struct term)TERM_INIT;
	sbuf_init(&run->path);
}

static void run_release(struct run *run)
{
	close_run_fds(&run->f);
	if (run->have_term_fa)
		posix_spawn_file_actions_destroy(&run->term_fa);
	term_release(&run->t);
	sbuf_release(&run->path);
	free(run->keep);
}

/* Open the run's stdin and outputs (or its terminal) and find the program. */
static int run_open(struct child *c, const char *const *argv,
		    const char *const *envp, struct run *run, struct sbuf *err)
{
	struct child_result *r = &c->res;
	int eno = 0;
	if (setup_shared_fds(err) ||
	    ((c->flags & CHILD_TERMINAL)
		 ? term_open(c, &run->t, err)
		 : (open_stdin(c, &run->f, err) || open_outputs(c, &run->f, err)))) {
		r->status = CHILD_ERROR;
		return -1;
	}
	if (resolve_program(argv[0], c->dir, envp, &run->path, &eno, err)) {
		r->status = CHILD_SPAWN_FAILED;
		r->spawn_errno = eno;
		return -1;
	}
	return 0;
}

/* Start the program: its attributes and file actions, then posix_spawn. */
static int run_spawn(struct child *c, const char *const *argv,
		     const char *const *envp, struct run *run, struct sbuf *err)
{
	struct child_result *r = &c->res;
	posix_spawnattr_t *attr;
	posix_spawn_file_actions_t *fa;
	run->own_group = !(c->flags & CHILD_SAME_PGROUP);
	if (run->t.master >= 0) {
		/* A session of its own: pgid == pid, as with a new group. */
		run->own_group = 1;
		attr = spawn_attr(2);
		term_actions(&run->term_fa, &run->t, c->dir);
		run->have_term_fa = 1;
		fa = &run->term_fa;
	} else {
		attr = spawn_attr(run->own_group);
		fa = spawn_actions(&run->f, c->dir);
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
		spawn_reason(rc, run->path.buf, c->dir, err);
		return -1;
	}
	return 0;
}

/*
 * The main process has exited: kill what it left in its group, reap it
 * (its status and resource usage), and reap the strays a subreaper got.
 */
static int run_reap(struct child *c, const char *const *argv, struct run *run,
		    int *status, struct rusage *ru, struct sbuf *err)
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

/* Every writer is gone: what is left in the pipes is all there is. */
static void run_collect(struct child *c, struct run *run)
{
	struct child_result *r = &c->res;
	if (run->t.master >= 0) {
		close_fd(&run->t.slave); /* the master now ends in EIO */
		term_drain(&run->t, r);
		set_tail(&r->stderr_tail, run->t.tail.buf, run->t.tail.len);
	}
	if (run->f.out_pipe >= 0)
		pump(&run->f.out_pipe, &r->out, &r->out_truncated);
	if (run->f.err_pipe >= 0)
		pump(&run->f.err_pipe, &r->err, &r->err_truncated);
	if (run->f.err_sink >= 0)
		drain_err(run->f.err_sink);
}

/* The reaped status and resource usage as the result, and the stderr tail
   from wherever the run's stderr went. */
static void run_account(struct child *c, struct run *run, int status,
			const struct rusage *ru)
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
		set_tail(&r->stderr_tail, r->err.buf, r->err.len);
	else if (run->f.err_sink >= 0)
		set_tail(&r->stderr_tail, err_keep.buf, err_keep.len);
	else if (run->f.tail >= 0)
		read_tail(run->f.tail, &r->stderr_tail);
}

int child_run_argv(struct child *c, const char *const *argv,
		   const char *const *envp, struct sbuf *err)
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
		wait_exit(c, &w, &run.f, &run.t, run.t0);
		r->wall_ns = now_ns() - run.t0;
		close_fd(&w.pidfd);
		int status;
		struct rusage ru;
		if (!run_reap(c, argv, &run, &status, &ru, err)) {
			run_collect(c, &run);
			run_account(c, &run, status, &ru);
			/* An interrupt is consumed; a second signal during the
			   stop is absorbed. */
			if (r->interrupted)
				child_interrupt_clear();
		}
	}
	run_release(&run);
	return r->code;
}

static void describe_ns(struct sbuf *out, int64_t ns)
{
	if (ns % 1000000000 == 0)
		sbuf_addf(out, "%lld s", (long long)(ns / 1000000000));
	else if (ns >= 1000000000)
		sbuf_addf(out, "%.3g s", (double)ns / 1e9);
	else
		sbuf_addf(out, "%.3g ms", (double)ns / 1e6);
}

void child_result_describe(const struct child_result *r, int64_t timeout_ns,
			   struct sbuf *out)
{
	if (r->timed_out) {
		sbuf_adds(out, "timed out");
		if (timeout_ns > 0) {
			sbuf_adds(out, " after ");
			describe_ns(out, timeout_ns);
		}
		return;
	}
	if (r->interrupted) {
		sbuf_adds(out, "interrupted");
		return;
	}
	switch (r->status) {
	case CHILD_NOT_RUN:
		sbuf_adds(out, "did not run");
		break;
	case CHILD_EXITED:
		sbuf_addf(out, "exited with status %d", r->exit_code);
		break;
	case CHILD_SIGNALED:
		sbuf_addf(out, "killed by signal %s", proc_signal_name(r->signal));
		break;
	case CHILD_SPAWN_FAILED:
		sbuf_adds(out, "could not be started");
		break;
	case CHILD_ERROR:
		sbuf_adds(out, "could not be run");
		break;
	}
}

/* The last three meaningful lines of tail, on one line (CHILD_TAIL_LINE). */
static void add_tail_line(struct sbuf *out, const char *tail, size_t len)
{
	const char *lines[3];
	size_t lens[3], n = 0;
	const char *p = tail, *end = tail + len;

	while (p < end) {
		const char *nl = memchr(p, '\n', (size_t)(end - p));
		const char *le = nl ? nl : end;
		const char *s = p;
		while (s < le && (*s == ' ' || *s == '\t' || *s == '\r'))
			s++;
		const char *e = le;
		while (e > s &&
		       (e[-1] == ' ' || e[-1] == '\t' || e[-1] == '\r'))
			e--;
		if (e > s && strncmp(s, "hint:", 5)) {
			if (n == 3) {
				memmove(lines, lines + 1, 2 * sizeof(*lines));
				memmove(lens, lens + 1, 2 * sizeof(*lens));
				n = 2;
			}
			lines[n] = s;
			lens[n] = (size_t)(e - s);
			n++;
		}
		p = nl ? nl + 1 : end;
	}
	for (size_t i = 0; i < n; i++) {
		if (i)
			sbuf_adds(out, "; ");
		/* Keep the message on one line and printable. */
		for (size_t k = 0; k < lens[i] && k < 400; k++) {
			unsigned char ch = (unsigned char)lines[i][k];
			if (ch < 0x20 || ch == 0x7f)
				sbuf_addch(out, ' ');
			else
				sbuf_addch(out, ch);
		}
	}
}

void child_add_stderr_tail(struct sbuf *out, const char *tail, size_t len,
			   enum child_tail_style style)
{
	if (style == CHILD_TAIL_LINE) {
		if (!len)
			return;
		sbuf_adds(out, ": ");
		add_tail_line(out, tail, len);
		return;
	}
	len = strnlen(tail, len);
	if (!len)
		return;
	sbuf_addf(out, "\n--- stderr (last %d KiB) ---\n", CHILD_TAIL_MAX / 1024);
	sbuf_add(out, tail, len);
}
