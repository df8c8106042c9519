/*
 * fileio: writing files without ever leaving a half-written one behind.
 *
 * fileio_write_atomic() writes to a private temporary file in the target's
 * own folder, fsyncs it, and renames it over the target, so a reader sees the
 * old content or the new, never a mix, and a failure (disk full, RLIMIT_FSIZE,
 * read-only folder) leaves an earlier report untouched. The target must not
 * be a symlink (a report never follows a link out of its folder). Only a
 * regular file is ever renamed over: a character device or FIFO is written
 * in place (renaming over /dev/null would replace it), anything else is
 * refused. fileio_append() adds to a file in place (GitHub step summaries).
 *
 * fileio_check_target() is the same refusal without writing, so that a
 * command can refuse a destination before it measures anything.
 */
#ifndef KAGARI_BASE_FILEIO_H
#define KAGARI_BASE_FILEIO_H

#include <stddef.h>
#include <sys/types.h>

struct sbuf;

/*
 * A regular file (or none) is replaced atomically; an existing file keeps
 * its mode, and its owner and group when we may set them (root), else a new
 * file is 0666 minus the umask. A FIFO or character device is opened
 * without O_CREAT and written in place; a FIFO nobody reads fails at once
 * rather than waiting for a reader. A symlink, directory, socket or block
 * device is refused. Returns 0, or -1 with a reason appended to err.
 */
int fileio_write_atomic(const char *path, const void *data, size_t len, struct sbuf *err);
/*
 * Refuse a destination no report can be written to: a directory, a socket,
 * a block device. A missing path or any other kind is 0 (the write itself
 * reports what else can go wrong). Returns 0, or -1 with "'PATH' is a
 * directory; ..." appended to err.
 */
int fileio_check_target(const char *path, struct sbuf *err);
/* "a directory", "a FIFO", "a character device", ... for st_mode. */
const char *fileio_kind_name(mode_t mode);
/*
 * path with its folder resolved (the file itself may not exist yet), so
 * that "out/r.json", "./out/r.json" and an absolute spelling are equal;
 * path itself when the folder cannot be resolved. Caller frees.
 */
char *fileio_canonical_path(const char *path);
/*
 * Do a and b name the same file? By identity (device and inode, so hard
 * and symbolic links count) when both exist, else by canonical path.
 * NULL is never the same as anything.
 */
int fileio_same_file(const char *a, const char *b);
/*
 * Append data to path (created 0666 minus the umask when missing), starting
 * on a new line when the file is not empty and does not end with one;
 * existing content is kept. With nofollow, a symbolic link at path is
 * refused. A write beyond RLIMIT_FSIZE fails (EFBIG) rather than raising
 * SIGXFSZ; when an append to a regular file fails, the file is cut back to
 * its length before the append, so no half section stays. A FIFO or
 * character device is written in place, as by fileio_write_atomic().
 * Returns 0, or -1 with a reason naming path appended to err.
 */
int fileio_append(const char *path, const void *data, size_t len, int nofollow, struct sbuf *err);
/* Write all of buf to fd, retrying on EINTR. Returns 0 or -1 (errno set). */
int fileio_write_all(int fd, const void *buf, size_t len);

#endif
