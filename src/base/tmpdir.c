/*
 * base/tmpdir: private 0700 temporary folders under $TMPDIR and their
 * removal, also when a measured program left unreadable folders (tmpdir.h).
 */
#include "base/tmpdir.h"

#include <errno.h>
#include <ftw.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "base/sbuf.h"
#include "base/xalloc.h"

char *tmpdir_create(const char *prefix, struct sbuf *err)
{
	const char *base = getenv("TMPDIR");
	if (!base || !*base)
		base = "/tmp";
	char *path = xstrfmt("%s/%s-XXXXXX", base, prefix);
	if (!mkdtemp(path)) {
		sbuf_addf(err, "cannot create a temporary folder in '%s': %s", base,
			  strerror(errno));
		free(path);
		return NULL;
	}
	return path;
}

static int remove_one(const char *path, const struct stat *st, int flag,
		      struct FTW *ftw)
{
	(void)st;
	(void)ftw;
	if (flag == FTW_DP)
		return rmdir(path) ? 0 : 0;
	return unlink(path) ? 0 : 0;
}

/* A measured program may leave folders we cannot read or write into. */
static int open_up(const char *path, const struct stat *st, int flag,
		   struct FTW *ftw)
{
	(void)ftw;
	if ((flag == FTW_D || flag == FTW_DNR) && st &&
	    (st->st_mode & 0700) != 0700)
		chmod(path, (st->st_mode & 07777) | 0700);
	return 0;
}

int tmpdir_remove(const char *path)
{
	if (!path)
		return 0;
	/* Pre-order first (make every folder ours to empty), then depth-first. */
	nftw(path, open_up, 16, FTW_PHYS);
	nftw(path, remove_one, 16, FTW_DEPTH | FTW_PHYS);
	return access(path, F_OK) == 0 ? -1 : 0;
}
