/*
 * report/output: putting a rendered report where it belongs.
 *
 * report_output_write() writes a rendered report to a file atomically
 * (temporary file + rename, never following a symlink). With a section
 * name (Markdown `--section NAME`), the existing page is read (a missing
 * file counts as empty) and only the part between that section's
 * `<!-- kagari:begin NAME -->` / `end` markers is replaced, every other
 * byte kept; the rendered text must carry the same markers (the page must
 * be a regular file).
 */
#ifndef KAGARI_REPORT_OUTPUT_H
#define KAGARI_REPORT_OUTPUT_H

#include <stddef.h>

struct sbuf;

/*
 * Can a report go to path at all? Refuses what fileio_check_target()
 * refuses (a directory, a socket, a block device) and, with a section, any
 * existing path that is not a regular file. For checking destinations before
 * measuring. Returns 0, or -1 with "'PATH' is ..." appended to err.
 */
int report_output_check(const char *path, const char *section, struct sbuf *err);
/* Returns 0, or -1 with a reason in err (the previous file is untouched).
 * A FIFO or character device is written in place (base/fileio.h). */
int report_output_write(const char *path, const char *section, const char *text, size_t len,
			struct sbuf *err);
/* Append text to path (created when missing), after a newline when the
 * file does not end with one: for GitHub step summaries. */
int report_output_append(const char *path, const char *text, size_t len, struct sbuf *err);

#endif
