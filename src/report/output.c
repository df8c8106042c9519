/*
 * report/output: writing a rendered report to its destination (output.h):
 * atomically replacing a file, or one Markdown section of it, or appending.
 */
#include "report/output.h"

#include <errno.h>
#include <fcntl.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "base/fileio.h"
#include "base/sbuf.h"
#include "report/section.h"

/* Pages to rewrite a section of are small; refuse anything absurd. */
#define PAGE_MAX_BYTES ((size_t)64 << 20)

int report_output_check(const char *path, const char *section, struct sbuf *err)
{
	struct stat st;
	if (fileio_check_target(path, err))
		return -1;
	/* A section is read, then the page rewritten: a page is a file (reading a
	 * FIFO would wait for a writer, a device has no page to keep). */
	if (section && lstat(path, &st) == 0 && !S_ISREG(st.st_mode) && !S_ISLNK(st.st_mode)) {
		sbuf_addf(err, "'%s' is %s; a section can only be rewritten in a regular file",
			  path, fileio_kind_name(st.st_mode));
		return -1;
	}
	return 0;
}

int report_output_write(const char *path, const char *section, const char *text, size_t len,
			struct sbuf *err)
{
	if (!section)
		return fileio_write_atomic(path, text, len, err);
	struct sbuf why = SBUF_INIT;
	if (report_output_check(path, section, &why)) {
		sbuf_addf(err, "cannot write %s", why.buf);
		sbuf_release(&why);
		return -1;
	}
	sbuf_release(&why);
	struct sbuf page = SBUF_INIT, out = SBUF_INIT;
	int rc = 0;
	if (sbuf_read_file(&page, path, PAGE_MAX_BYTES) && errno != ENOENT) {
		sbuf_addf(err, "cannot read '%s' to update its section '%s': %s", path, section,
			  strerror(errno));
		rc = -1;
	} else if (report_section_update(page.buf, page.len, section, text, &out, err)) {
		rc = -1;
	} else {
		rc = fileio_write_atomic(path, out.buf, out.len, err);
	}
	sbuf_release(&page);
	sbuf_release(&out);
	return rc;
}

int report_output_append(const char *path, const char *text, size_t len, struct sbuf *err)
{
	return fileio_append(path, text, len, 1, err);
}
