/*
 * fileio: writing files without ever leaving a half-written one behind.
 *
 * fileio_write_atomic() writes to a private temporary file in the target's
 * own folder, fsyncs it, and renames it over the target, so a reader sees the
 * old content or the new, never a mix, and a failure (disk full, RLIMIT_FSIZE,
 * read-only folder) leaves an earlier report untouched. The target must not
 * be a symlink (a report never follows a link out of its folder).
 * fileio_append() adds to a file in place (GitHub step summaries).
 */
#ifndef KAGARI_BASE_FILEIO_H
#define KAGARI_BASE_FILEIO_H

#include <stddef.h>

struct sbuf;

/* Returns 0, or -1 with a reason appended to err. */
int fileio_write_atomic(const char *path, const void *data, size_t len,
			struct sbuf *err);
/*
 * Append data to path (created 0666 minus the umask when missing), starting
 * on a new line when the file is not empty and does not end with one;
 * existing content is kept. With nofollow, a symbolic link at path is
 * refused. A write beyond RLIMIT_FSIZE fails (EFBIG) rather than raising
 * SIGXFSZ. Returns 0, or -1 with a reason naming path appended to err.
 */
int fileio_append(const char *path, const void *data, size_t len,
		  int nofollow, struct sbuf *err);
/* Write all of buf to fd, retrying on EINTR. Returns 0 or -1 (errno set). */
int fileio_write_all(int fd, const void *buf, size_t len);

#endif
