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
	int fd = mkstemp(tmp);
	if (fd < 0) {
		sbuf_addf(err, "cannot write '%s': %s", path, strerror(errno));
		free(tmp);
		return -1;
	}
	/*
	 * A write beyond RLIMIT_FSIZE raises SIGXFSZ, which would kill us with
	 * the temp file behind; with it ignored, write() fails with EFBIG and we
	 * clean up like any other failure.
	 */
	struct sigaction ign = { .sa_handler = SIG_IGN }, old;
	sigemptyset(&ign.sa_mask);
	sigaction(SIGXFSZ, &ign, &old);
	int rc = fileio_write_all(fd, data, len);
	int saved = errno;
	sigaction(SIGXFSZ, &old, NULL);
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
