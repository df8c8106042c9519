/*
 * base/tmpdir: private 0700 temporary folders under $TMPDIR and their
 * removal, also when a measured program left unreadable folders (tmpdir.h).
 */
#include "base/tmpdir.h"

#include <dirent.h>
#include <errno.h>
#include <ftw.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "base/fileio.h"
#include "base/sbuf.h"
#include "base/xalloc.h"

static const char *tmp_base(void)
{
	const char *base = getenv("TMPDIR");
	return base && *base ? base : "/tmp";
}

char *tmpdir_create(const char *prefix, struct sbuf *err)
{
	const char *base = tmp_base();
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

#define OWNER_FILE "owner"

int tmpdir_claim(const char *dir, const char *owner, struct sbuf *err)
{
	char *path = xstrfmt("%s/" OWNER_FILE, dir);
	char *line = xstrfmt("%s\n", owner);
	int ret = fileio_write_atomic(path, line, strlen(line), err);
	free(path);
	free(line);
	return ret;
}

size_t tmpdir_prune(const char *prefix, int (*gone)(const char *owner))
{
	const char *base = tmp_base();
	size_t n = strlen(prefix), removed = 0;
	DIR *d = opendir(base);
	struct dirent *e;
	struct sbuf owner = SBUF_INIT;

	if (!d)
		return 0;
	while ((e = readdir(d))) {
		if (strncmp(e->d_name, prefix, n) || e->d_name[n] != '-')
			continue;
		char *dir = xstrfmt("%s/%s", base, e->d_name);
		char *file = xstrfmt("%s/" OWNER_FILE, dir);
		struct stat st;
		sbuf_reset(&owner);
		/* Someone else's folder, or a symlink to anywhere, is never ours to remove. */
		if (lstat(dir, &st) == 0 && S_ISDIR(st.st_mode) && st.st_uid == geteuid() &&
		    sbuf_read_file(&owner, file, 4096) == 0 && gone(owner.buf) == 1 &&
		    tmpdir_remove(dir) == 0)
			removed++;
		free(file);
		free(dir);
	}
	closedir(d);
	sbuf_release(&owner);
	return removed;
}
