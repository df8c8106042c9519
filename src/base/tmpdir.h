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
 * Mark folder dir (from tmpdir_create) as its maker's: write `owner`
 * (dir/owner) into it, a line a later tmpdir_prune() hands to its `gone`
 * test. Returns 0, or -1 with a reason in err.
 */
int tmpdir_claim(const char *dir, const char *owner, struct sbuf *err);

/*
 * Remove the folders PREFIX-* under $TMPDIR (or /tmp) that a killed
 * kagari left: ours, not symlinks, with an owner file (tmpdir_claim) for
 * which gone(text) returns 1. A folder without one (being made, or from a
 * kagari that did not claim it) is left alone. Returns how many were
 * removed.
 */
size_t tmpdir_prune(const char *prefix, int (*gone)(const char *owner));

#endif
