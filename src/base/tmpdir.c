/*
 * base/tmpdir: private 0700 temporary folders under $TMPDIR and their
 * removal, also when a measured program left unreadable folders (tmpdir.h).
 */
#include "base/tmpdir.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <ftw.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

#include "base/fileio.h"
#include "base/sbuf.h"
#include "base/xalloc.h"

int (*tmpdir_flock)(int fd, int op) = flock;

int tmpdir_flock_unsupported(int err)
{
	return err == EOPNOTSUPP || err == ENOLCK || err == ENOSYS;
}

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

static int remove_one(const char *path, const struct stat *st, int flag, struct FTW *ftw)
{
	(void)st;
	(void)ftw;
	if (flag == FTW_DP)
		return rmdir(path) ? 0 : 0;
	return unlink(path) ? 0 : 0;
}

/* A measured program may leave folders we cannot read or write into. */
static int open_up(const char *path, const struct stat *st, int flag, struct FTW *ftw)
{
	(void)ftw;
	if ((flag == FTW_D || flag == FTW_DNR) && st && (st->st_mode & 0700) != 0700)
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
#define LOCK_FILE "lock"
/*
 * The first line of every lock and owner file kagari writes: prune touches
 * a folder only when its file starts with it, so a user's own
 * $TMPDIR/kagari-* folder with a file that happens to be named `lock` or
 * `owner` is never taken for kagari's.
 */
#define LOCK_MAGIC "kagari-tmpdir-lock v1\n"
#define OWNER_MAGIC "kagari-tmpdir-owner v1\n"

/* The folder names tmpdir_create() makes with the prefixes kagari uses. */
static const char *const known_prefixes[] = {"kagari",	     "kagari-compare", "kagari-aa",
					     "kagari-bench", "kagari-bisect",  NULL};

/* name is prefix, '-', and 6 characters of mkdtemp's alphabet. */
static int name_is(const char *name, const char *prefix)
{
	size_t n = strlen(prefix);
	if (strncmp(name, prefix, n) || name[n] != '-' || strlen(name + n + 1) != 6)
		return 0;
	for (const char *p = name + n + 1; *p; p++)
		if (!((*p >= 'a' && *p <= 'z') || (*p >= 'A' && *p <= 'Z') ||
		      (*p >= '0' && *p <= '9')))
			return 0;
	return 1;
}

int tmpdir_name_is_kagari(const char *name, const char *prefix)
{
	for (size_t i = 0; known_prefixes[i]; i++)
		if ((!prefix || !strncmp(known_prefixes[i], prefix, strlen(prefix))) &&
		    name_is(name, known_prefixes[i]))
			return 1;
	return 0;
}

/* Does the open file f start with magic? */
static int fd_has_magic(int f, const char *magic)
{
	char buf[64];
	size_t n = strlen(magic);
	ssize_t got = pread(f, buf, n, 0);
	return got == (ssize_t)n && !memcmp(buf, magic, n);
}

int tmpdir_lock_named(const char *dir, const char *name, int shared_read, struct sbuf *err)
{
	char *tmp = xstrfmt("%s/.%s-XXXXXX", dir, name);
	char *path = xstrfmt("%s/%s", dir, name);
	int fd = mkostemp(tmp, O_CLOEXEC);
	if (fd < 0) {
		sbuf_addf(err, "cannot create a lock file in '%s': %s", dir, strerror(errno));
	} else if (write(fd, LOCK_MAGIC, strlen(LOCK_MAGIC)) != (ssize_t)strlen(LOCK_MAGIC) ||
		   tmpdir_flock(fd, LOCK_EX | LOCK_NB) || rename(tmp, path)) {
		/* Never left in place unlocked: a free lock says "gone". */
		int e = errno;
		sbuf_addf(err, "cannot lock '%s': %s", path, strerror(e));
		unlink(tmp);
		close(fd);
		fd = -1;
		errno = e;
	} else if (shared_read) {
		/* Readable by whoever shares the folder (another user of a
		   shared repository), within the umask: they only test it. */
		mode_t mask = umask(0);
		umask(mask);
		fchmod(fd, 0644 & ~mask);
	}
	free(tmp);
	free(path);
	return fd;
}

int tmpdir_lock(const char *dir, struct sbuf *err)
{
	return tmpdir_lock_named(dir, LOCK_FILE, 0, err);
}

int tmpdir_lock_state_named(const char *dir, const char *name, int *fd)
{
	char *path = xstrfmt("%s/%s", dir, name);
	struct stat st;
	int ret = -1;
	*fd = -1;
	int f = open(path, O_RDONLY | O_CLOEXEC | O_NOFOLLOW);
	/* Without kagari's first line it is not our lock: -1, never "free". */
	if (f >= 0 && fstat(f, &st) == 0 && S_ISREG(st.st_mode) && fd_has_magic(f, LOCK_MAGIC)) {
		if (tmpdir_flock(f, LOCK_EX | LOCK_NB) == 0) {
			*fd = f;
			f = -1;
			ret = 0;
		} else if (errno == EWOULDBLOCK) {
			ret = 1;
		}
	}
	if (f >= 0)
		close(f);
	free(path);
	return ret;
}

int tmpdir_lock_state(const char *dir, int *fd)
{
	return tmpdir_lock_state_named(dir, LOCK_FILE, fd);
}

int tmpdir_claim(const char *dir, const char *owner, struct sbuf *err)
{
	char *path = xstrfmt("%s/" OWNER_FILE, dir);
	char *line = xstrfmt(OWNER_MAGIC "%s\n", owner);
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
		/* Only the names tmpdir_create() makes: PREFIX-XXXXXX. */
		if (strncmp(e->d_name, prefix, n) || e->d_name[n] != '-' ||
		    !tmpdir_name_is_kagari(e->d_name, prefix))
			continue;
		char *dir = xstrfmt("%s/%s", base, e->d_name);
		char *file = xstrfmt("%s/" OWNER_FILE, dir);
		struct stat st;
		int fd = -1, state = -1;
		sbuf_reset(&owner);
		/* Someone else's folder, or a symlink to anywhere, is never ours to remove. */
		if (lstat(dir, &st) == 0 && S_ISDIR(st.st_mode) && st.st_uid == geteuid()) {
			state = tmpdir_lock_state(dir, &fd);
			/* No lock file: the owner file (bisect's claim) decides,
			   when it is kagari's (its first line). */
			size_t m = strlen(OWNER_MAGIC);
			if (state < 0 && gone && sbuf_read_file(&owner, file, 4096) == 0 &&
			    owner.len >= m && !memcmp(owner.buf, OWNER_MAGIC, m) &&
			    gone(owner.buf + m) == 1)
				state = 0;
		}
		/* Removed while holding the dead maker's lock: a second kagari
		   pruning at the same time sees it held and leaves it. */
		if (state == 0 && tmpdir_remove(dir) == 0)
			removed++;
		if (fd >= 0)
			close(fd);
		free(file);
		free(dir);
	}
	closedir(d);
	sbuf_release(&owner);
	return removed;
}

char *tmpdir_create_locked(const char *prefix, int *lock_fd, struct sbuf *warn, struct sbuf *err)
{
	static int warned;
	struct sbuf why = SBUF_INIT;
	*lock_fd = -1;
	char *dir = tmpdir_create(prefix, err);
	if (!dir)
		return NULL;
	*lock_fd = tmpdir_lock(dir, &why);
	if (*lock_fd < 0 && tmpdir_flock_unsupported(errno)) {
		/* A filesystem without flock (some network or FUSE ones):
		   go on without the lock. The folder then has no lock file,
		   so no other kagari ever prunes it (nor can it tell that we
		   live); it is still removed at our exit. */
		if (!warned++)
			sbuf_addf(warn,
				  "%s: $TMPDIR's filesystem does not support flock, so kagari's "
				  "temporary folders are not locked; one left by a kagari killed "
				  "with SIGKILL is not removed by the next one",
				  why.buf);
	} else if (*lock_fd < 0) {
		/* Without it a later kagari could not tell we live. */
		sbuf_adds(err, why.buf);
		tmpdir_remove(dir);
		free(dir);
		dir = NULL;
	}
	sbuf_release(&why);
	return dir;
}

void tmpdir_release(char *dir, int lock_fd, int keep)
{
	if (dir && !keep) {
		tmpdir_remove(dir);
	} else if (dir) {
		/* Kept on purpose: without its lock file no later kagari
		   takes it for a dead run's and prunes it. */
		char *lock = xstrfmt("%s/" LOCK_FILE, dir);
		unlink(lock);
		free(lock);
	}
	/* Only now: the folder was ours until it was gone. */
	if (lock_fd >= 0)
		close(lock_fd);
}
