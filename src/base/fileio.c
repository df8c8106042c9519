/*
 * base/fileio: writing all of a buffer (a file-size limit is an error,
 * not a signal), appending, and atomic replacement of a file through a
 * temporary file and rename (fileio.h).
 */
#include "base/fileio.h"

#include <errno.h>
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
	struct sigaction ign = { .sa_handler = SIG_IGN }, old;
	sigemptyset(&ign.sa_mask);
	sigaction(SIGXFSZ, &ign, &old);
	int rc = fileio_write_all(fd, data, len);
	int saved = errno;
	sigaction(SIGXFSZ, &old, NULL);
	errno = saved;
	return rc;
}

int fileio_append(const char *path, const void *data, size_t len,
		  int nofollow, struct sbuf *err)
{
	int flags = O_APPEND | O_CREAT | O_CLOEXEC | (nofollow ? O_NOFOLLOW : 0);
	int fd = open(path, O_RDWR | flags, 0666);
	int readable = fd >= 0;
	if (fd < 0 && errno == EACCES)
		fd = open(path, O_WRONLY | flags, 0666); /* write-only file */
	if (fd < 0) {
		sbuf_addf(err, "cannot open '%s' to append: %s", path, strerror(errno));
		return -1;
	}
	struct stat st;
	char last = '\n';
	if (readable && fstat(fd, &st) == 0 && S_ISREG(st.st_mode) &&
	    st.st_size > 0 && pread(fd, &last, 1, st.st_size - 1) != 1)
		last = '\n';
	int rc = 0;
	if ((last != '\n' && write_all_no_sigxfsz(fd, "\n", 1)) ||
	    write_all_no_sigxfsz(fd, data, len)) {
		sbuf_addf(err, "cannot append to '%s': %s", path, strerror(errno));
		rc = -1;
	}
	if (close(fd) != 0 && rc == 0) {
		sbuf_addf(err, "cannot append to '%s': %s", path, strerror(errno));
		rc = -1;
	}
	return rc;
}

int fileio_write_atomic(const char *path, const void *data, size_t len,
			struct sbuf *err)
{
	struct stat st;
	if (lstat(path, &st) == 0) {
		if (S_ISLNK(st.st_mode)) {
			sbuf_addf(err, "refusing to write '%s': it is a symbolic link", path);
			return -1;
		}
		if (S_ISDIR(st.st_mode)) {
			sbuf_addf(err, "cannot write '%s': it is a directory", path);
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
	/* Reports are shared artefacts: 0644 minus the umask, like a plain open(). */
	mode_t um = umask(0);
	umask(um);
	(void)fchmod(fd, 0666 & ~um);
	if (close(fd) != 0 && rc == 0) {
		rc = -1;
		saved = errno;
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
