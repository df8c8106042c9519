/*
 * tmpdir: kagari's private temporary folders (mkdtemp, mode 0700, under
 * $TMPDIR or /tmp) and their removal.
 */
#ifndef KAGARI_BASE_TMPDIR_H
#define KAGARI_BASE_TMPDIR_H

#include <stddef.h>

struct sbuf;

/* A fresh private folder named PREFIX-XXXXXX; NULL with a reason in err. */
char *tmpdir_create(const char *prefix, struct sbuf *err);
/* Remove a folder tree without following symlinks. Returns 0 or -1. */
int tmpdir_remove(const char *path);

/*
 * Liveness that holds across pid namespaces (a container, `unshare
 * --pid`), where a pid means nothing: the folder's maker holds an
 * exclusive flock() on dir/lock for as long as it lives (the kernel drops
 * it when the process dies, SIGKILL included). tmpdir_lock() makes that
 * file already locked (a locked temporary file renamed into place, so no
 * one ever sees it unlocked) and returns its descriptor (close-on-exec:
 * measured programs do not inherit it), or -1 with a reason in err. Keep
 * it open until the folder is removed. The file's first line is kagari's
 * (tmpdir_lock_state() does not count a file without it).
 */
int tmpdir_lock(const char *dir, struct sbuf *err);
/*
 * Is dir's maker alive? 1: dir/lock is held; 0: it exists and is free (the
 * maker is gone), and *fd then holds the lock for the caller (close it when
 * done; -1 otherwise); -1: there is no lock file (a folder being made, or
 * one from a kagari before locks), or it cannot be opened.
 */
int tmpdir_lock_state(const char *dir, int *fd);
/*
 * The same with the lock file dir/name (tmpdir_lock() is name "lock");
 * shared_read makes the file readable by others (0644 within the umask),
 * so that another user sharing the folder can test it.
 */
int tmpdir_lock_named(const char *dir, const char *name, int shared_read, struct sbuf *err);
int tmpdir_lock_state_named(const char *dir, const char *name, int *fd);

/*
 * tmpdir_create() and tmpdir_lock() in one: the folder, locked, its lock's
 * descriptor in *lock_fd; NULL with a reason in err (nothing is left).
 * Where the filesystem has no flock (tmpdir_flock_unsupported()), the
 * folder without a lock (*lock_fd -1), and the first time in the process
 * a warning in warn: such a folder is never pruned by another kagari.
 */
char *tmpdir_create_locked(const char *prefix, int *lock_fd, struct sbuf *warn, struct sbuf *err);
/* Is errno err flock()'s "not on this filesystem" (EOPNOTSUPP, ENOLCK, ENOSYS)? */
int tmpdir_flock_unsupported(int err);
/*
 * The flock() that the locks of tmpdir.c take and test: flock(2); only the
 * unit tests replace it (to play a filesystem without flock).
 */
extern int (*tmpdir_flock)(int fd, int op);
/*
 * The end of such a folder: removed (keep 0), or kept without its lock file
 * (so that no later kagari prunes it), then the lock closed. Frees nothing.
 */
void tmpdir_release(char *dir, int lock_fd, int keep);

/*
 * Mark folder dir (from tmpdir_create) as its maker's: write `owner`
 * (dir/owner) into it, a line a later tmpdir_prune() hands to its `gone`
 * test. Returns 0, or -1 with a reason in err.
 */
int tmpdir_claim(const char *dir, const char *owner, struct sbuf *err);

/*
 * Is name a folder name tmpdir_create() makes for kagari: one of its
 * prefixes ("kagari", "kagari-compare", "kagari-aa", "kagari-bench",
 * "kagari-bisect") starting with prefix (NULL: any), '-', and mkdtemp's 6
 * characters, exactly?
 */
int tmpdir_name_is_kagari(const char *name, const char *prefix);

/*
 * Remove the folders under $TMPDIR (or /tmp) that a killed kagari left:
 * named exactly as tmpdir_create() makes them with a kagari prefix that
 * starts with prefix (tmpdir_name_is_kagari), ours, not symlinks, and
 * either with a lock file nobody holds (tmpdir_lock_state() 0: the maker
 * is gone, in whatever pid namespace it ran), or without one but with an
 * owner file (tmpdir_claim) for which gone(text) returns 1 (gone may be
 * NULL). Lock and owner files count only when they start with the line
 * tmpdir_lock() and tmpdir_claim() write (a user's `kagari-mine/lock` is
 * not kagari's). A folder whose lock is held, or with neither file (being
 * made, not kagari's, or made where flock is not supported), is left
 * alone. Returns how many were removed.
 */
size_t tmpdir_prune(const char *prefix, int (*gone)(const char *owner));

#endif
