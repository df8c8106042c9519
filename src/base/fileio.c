/*
 * base/fileio: writing all of a buffer (a file-size limit is an error,
 * not a signal), appending, and atomic replacement of a file through a
 * temporary file and rename (fileio.h).
 */
#include "base/fileio.h"

#include <errno.h>
#include <limits.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "base/sbuf.h"
#include "base/xalloc.h"

int fileio_write_all(int fd, const void *buf, size_t len)
{
	const char *p = buf;
	while (len) {
		ssize_t n = write(fd, p, len);
		if (n < 0) {
			if (errno == EINTR)
				continue;
			return -1;
		}
		p += n;
		len -= (size_t)n;
	}
	return 0;
}

/*
 * fileio_write_all() with SIGXFSZ ignored: a write beyond RLIMIT_FSIZE
 * raises SIGXFSZ, which would kill us (leaving a temporary file behind);
 * ignored, write() fails with EFBIG and the caller cleans up like after
 * any other failure. errno is that of the failure.
 */
static int write_all_no_sigxfsz(int fd, const void *data, size_t len)
{
	struct sigaction ign = {.sa_handler = SIG_IGN}, old;
	sigemptyset(&ign.sa_mask);
	sigaction(SIGXFSZ, &ign, &old);
	int rc = fileio_write_all(fd, data, len);
	int saved = errno;
	sigaction(SIGXFSZ, &old, NULL);
	errno = saved;
	return rc;
}

const char *fileio_kind_name(mode_t mode)
{
	if (S_ISREG(mode))
		return "a regular file";
	if (S_ISDIR(mode))
		return "a directory";
	if (S_ISLNK(mode))
		return "a symbolic link";
	if (S_ISFIFO(mode))
		return "a FIFO";
	if (S_ISCHR(mode))
		return "a character device";
	if (S_ISBLK(mode))
		return "a block device";
	if (S_ISSOCK(mode))
		return "a socket";
	return "not a regular file";
}

int fileio_check_target(const char *path, struct sbuf *err)
{
	struct stat st;
	if (lstat(path, &st) != 0)
		return 0; /* missing (or unreachable): the write says why */
	/*
	 * A directory cannot hold a report; a socket cannot be opened; a
	 * block device is a disk, and a report written onto it would
	 * destroy a file system.
	 */
	if (S_ISDIR(st.st_mode) || S_ISSOCK(st.st_mode) || S_ISBLK(st.st_mode)) {
		sbuf_addf(err, "'%s' is %s; name a file, a FIFO or a character device", path,
			  fileio_kind_name(st.st_mode));
		return -1;
	}
	return 0;
}

/* Written in place rather than replaced: renaming over a device or FIFO
 * would replace it with a regular file (/dev/null as a report). */
static int written_in_place(mode_t mode)
{
	return S_ISCHR(mode) || S_ISFIFO(mode);
}

/*
 * Open a FIFO or character device for writing. O_NONBLOCK makes the open
 * of a FIFO that nobody reads fail at once (ENXIO) instead of waiting for a
 * reader forever; it is cleared afterwards so that writes wait for a slow
 * reader like any pipe. Never O_CREAT: the file is there, and what is there
 * is checked again after the open (the path may have been swapped in
 * between). Returns the fd, or -1 with a reason appended to err.
 */
static int open_in_place(const char *path, int flags, int nofollow, const char *verb,
			 struct sbuf *err)
{
	int fd = open(path, O_WRONLY | O_NOCTTY | O_NONBLOCK | O_CLOEXEC | flags |
				(nofollow ? O_NOFOLLOW : 0));
	if (fd < 0) {
		struct stat st;
		if (errno == ENXIO && stat(path, &st) == 0 && S_ISFIFO(st.st_mode))
			sbuf_addf(err,
				  "cannot %s '%s': it is a FIFO and nothing has it open for "
				  "reading (start the reader first)",
				  verb, path);
		else
			sbuf_addf(err, "cannot %s '%s': %s", verb, path, strerror(errno));
		return -1;
	}
	struct stat st;
	int fl = fcntl(fd, F_GETFL);
	if (fstat(fd, &st) != 0 || !written_in_place(st.st_mode) || fl < 0 ||
	    fcntl(fd, F_SETFL, fl & ~O_NONBLOCK) != 0) {
		sbuf_addf(err, "cannot %s '%s': it changed while being opened", verb, path);
		close(fd);
		return -1;
	}
	return fd;
}

/* Write data to an fd from open_in_place() and close it. */
static int write_in_place(int fd, const char *path, const void *data, size_t len, const char *verb,
			  struct sbuf *err)
{
	int rc = write_all_no_sigxfsz(fd, data, len);
	int saved = errno;
	if (close(fd) != 0 && rc == 0 && errno != EINTR) {
		rc = -1;
		saved = errno;
	}
	if (rc)
		sbuf_addf(err, "cannot %s '%s': %s", verb, path, strerror(saved));
	return rc;
}

int fileio_append(const char *path, const void *data, size_t len, int nofollow, struct sbuf *err)
{
	struct stat st;
	if ((nofollow ? lstat(path, &st) : stat(path, &st)) == 0 && written_in_place(st.st_mode)) {
		int fd = open_in_place(path, O_APPEND, nofollow, "append to", err);
		return fd < 0 ? -1 : write_in_place(fd, path, data, len, "append to", err);
	}
	int flags = O_APPEND | O_CREAT | O_CLOEXEC | (nofollow ? O_NOFOLLOW : 0);
	int fd = open(path, O_RDWR | flags, 0666);
	int readable = fd >= 0;
	if (fd < 0 && errno == EACCES)
		fd = open(path, O_WRONLY | flags, 0666); /* write-only file */
	if (fd < 0) {
		sbuf_addf(err, "cannot open '%s' to append: %s", path, strerror(errno));
		return -1;
	}
	char last = '\n';
	off_t before = -1; /* the length to restore after a failed append */
	if (fstat(fd, &st) == 0 && S_ISREG(st.st_mode)) {
		before = st.st_size;
		if (readable && st.st_size > 0 && pread(fd, &last, 1, st.st_size - 1) != 1)
			last = '\n';
	}
	int rc = 0;
	if ((last != '\n' && write_all_no_sigxfsz(fd, "\n", 1)) ||
	    write_all_no_sigxfsz(fd, data, len)) {
		int saved = errno;
		/*
		 * Half a section (cut at the file-size limit or a full disk,
		 * mid-row) would break the page for good: cut the file back to
		 * what it was. Shrinking is allowed past RLIMIT_FSIZE.
		 */
		if (before >= 0 && ftruncate(fd, before) != 0)
			sbuf_addf(err,
				  "cannot append to '%s': %s (and cannot restore its length of "
				  "%lld bytes: %s)",
				  path, strerror(saved), (long long)before, strerror(errno));
		else
			sbuf_addf(err, "cannot append to '%s': %s%s", path, strerror(saved),
				  before >= 0 ? " (the file is left as it was)" : "");
		rc = -1;
	}
	if (close(fd) != 0 && rc == 0) {
		sbuf_addf(err, "cannot append to '%s': %s", path, strerror(errno));
		rc = -1;
	}
	return rc;
}

/*
 * Give the temporary file that replaces `old` the old file's mode, and its
 * owner and group when we can (root; or the group alone when we belong to
 * it). A report someone made private stays private. Set-id bits are never
 * copied onto a report, and when the group cannot be kept its permission
 * bits are dropped, so that our group gets no access the old one had.
 */
static void keep_mode_and_owner(int fd, const struct stat *old)
{
	mode_t mode = old->st_mode & 01777;
	if (old->st_uid != geteuid() || old->st_gid != getegid()) {
		if (fchown(fd, geteuid() == 0 ? old->st_uid : (uid_t)-1, old->st_gid) != 0)
			mode &= ~(mode_t)070;
	}
	/* After fchown, which may clear set-id bits and would reset nothing else. */
	(void)fchmod(fd, mode);
}

char *fileio_canonical_path(const char *path)
{
	const char *slash = strrchr(path, '/');
	char *dir = slash ? xstrndup(path, (size_t)(slash - path + (slash == path))) : xstrdup(".");
	const char *base = slash ? slash + 1 : path;
	char *real = realpath(dir, NULL);
	char *out;
	if (!real)
		out = xstrdup(path);
	else if (!*base || !strcmp(base, "."))
		out = xstrdup(real);
	else
		out = xstrfmt("%s%s%s", real, strcmp(real, "/") ? "/" : "", base);
	free(real);
	free(dir);
	return out;
}

int fileio_same_file(const char *a, const char *b)
{
	struct stat sa, sb;
	if (!a || !b)
		return 0;
	if (stat(a, &sa) == 0 && stat(b, &sb) == 0)
		return sa.st_dev == sb.st_dev && sa.st_ino == sb.st_ino;
	/* One does not exist yet: the same name once its folder is resolved. */
	char *ca = fileio_canonical_path(a), *cb = fileio_canonical_path(b);
	int same = !strcmp(ca, cb);
	free(ca);
	free(cb);
	return same;
}

int fileio_write_atomic(const char *path, const void *data, size_t len, struct sbuf *err)
{
	struct stat st;
	int existed = lstat(path, &st) == 0;
	if (existed) {
		if (S_ISLNK(st.st_mode)) {
			sbuf_addf(err, "refusing to write '%s': it is a symbolic link", path);
			return -1;
		}
		if (written_in_place(st.st_mode)) {
			int fd = open_in_place(path, O_TRUNC, 1, "write", err);
			return fd < 0 ? -1 : write_in_place(fd, path, data, len, "write", err);
		}
		if (!S_ISREG(st.st_mode)) {
			sbuf_addf(err, "cannot write '%s': it is %s", path,
				  fileio_kind_name(st.st_mode));
			return -1;
		}
	}
	char *tmp = xstrfmt("%s.kagari-tmp-XXXXXX", path);
	int fd = mkostemp(tmp, O_CLOEXEC);
	if (fd < 0) {
		sbuf_addf(err, "cannot write '%s': %s", path, strerror(errno));
		free(tmp);
		return -1;
	}
	int rc = write_all_no_sigxfsz(fd, data, len);
	int saved = errno;
	if (rc == 0 && fsync(fd) != 0 && errno != EINVAL && errno != EROFS) {
		rc = -1;
		saved = errno;
	}
	if (existed) {
		keep_mode_and_owner(fd, &st);
	} else {
		/* A new report is a shared artefact: 0666 minus the umask, like
		 * a plain open() (mkostemp made it 0600). */
		mode_t um = umask(0);
		umask(um);
		(void)fchmod(fd, 0666 & ~um);
	}
	if (close(fd) != 0 && rc == 0) {
		rc = -1;
		saved = errno;
	}
	/*
	 * Never rename over anything but a regular file: look again, in case
	 * a device, FIFO, folder or link took the name while we wrote.
	 */
	struct stat now;
	if (rc == 0 && lstat(path, &now) == 0 && !S_ISREG(now.st_mode)) {
		unlink(tmp);
		sbuf_addf(err, "cannot write '%s': it became %s while the report was written", path,
			  fileio_kind_name(now.st_mode));
		free(tmp);
		return -1;
	}
	if (rc == 0 && rename(tmp, path) != 0) {
		rc = -1;
		saved = errno;
	}
	if (rc != 0) {
		unlink(tmp);
		sbuf_addf(err, "cannot write '%s': %s", path, strerror(saved));
	}
	free(tmp);
	return rc;
}
