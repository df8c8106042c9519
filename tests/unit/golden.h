/*
 * tests/unit/golden.h: compare a writer's whole output with a golden file
 * under tests/data/golden/out/ (tests/data/golden/README).
 * KAGARI_UPDATE_GOLDEN=1 rewrites the file instead; a difference is
 * printed as a unified diff. Included by the test_golden_*.c programs.
 */
#ifndef KAGARI_TESTS_GOLDEN_H
#define KAGARI_TESTS_GOLDEN_H

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "base/sbuf.h"

#define GOLDEN_DIR KAGARI_SOURCE_DIR "/tests/data/golden"

static int write_all(const char *path, const struct sbuf *sb)
{
	FILE *f = fopen(path, "w");
	if (!f)
		return -1;
	size_t n = fwrite(sb->buf, 1, sb->len, f);
	return fclose(f) || n != sb->len ? -1 : 0;
}

/* Compare got with the golden file (or write it); returns 0 when equal. */
static int check_golden(const char *golden, const struct sbuf *got)
{
	const char *update = getenv("KAGARI_UPDATE_GOLDEN");
	struct sbuf want = SBUF_INIT;
	int rc = 0;

	if (update && !strcmp(update, "1")) {
		if (write_all(golden, got)) {
			fprintf(stderr, "cannot write %s\n", golden);
			return -1;
		}
		printf("updated %s\n", golden);
		return 0;
	}
	if (sbuf_read_file(&want, golden, 1 << 24)) {
		fprintf(stderr, "no golden file %s (KAGARI_UPDATE_GOLDEN=1 ctest -R golden writes it)\n",
			golden);
		sbuf_release(&want);
		return -1;
	}
	if (want.len != got->len || memcmp(want.buf, got->buf, got->len)) {
		char tmp[] = "/tmp/kagari-golden-XXXXXX";
		int fd = mkstemp(tmp);
		rc = -1;
		fprintf(stderr, "output differs from %s:\n", golden);
		if (fd >= 0) {
			close(fd);
			if (!write_all(tmp, got)) {
				struct sbuf cmd = SBUF_INIT;
				sbuf_addf(&cmd, "diff -u '%s' '%s' >&2", golden, tmp);
				if (system(cmd.buf) < 0)
					fprintf(stderr, "(cannot run diff)\n");
				sbuf_release(&cmd);
			}
			unlink(tmp);
		}
	}
	sbuf_release(&want);
	return rc;
}

/* The running kagari's version as @KAGARI_VERSION@, as the golden files
   hold it (an output stays golden across releases). */
static inline void golden_unversion(struct sbuf *got)
{
	static const char v[] = KAGARI_VERSION;
	struct sbuf o = SBUF_INIT;
	for (const char *p = got->buf; *p;) {
		if (!strncmp(p, v, sizeof(v) - 1)) {
			sbuf_adds(&o, "@KAGARI_VERSION@");
			p += sizeof(v) - 1;
		} else {
			sbuf_addch(&o, *p++);
		}
	}
	sbuf_release(got);
	*got = o;
}

#endif
