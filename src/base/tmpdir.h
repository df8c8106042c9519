/*
 * tmpdir: kagari's private temporary folders (mkdtemp, mode 0700, under
 * $TMPDIR or /tmp) and their removal.
 */
#ifndef KAGARI_BASE_TMPDIR_H
#define KAGARI_BASE_TMPDIR_H

struct sbuf;

/* A fresh private folder named PREFIX-XXXXXX; NULL with a reason in err. */
char *tmpdir_create(const char *prefix, struct sbuf *err);
/* Remove a folder tree without following symlinks. Returns 0 or -1. */
int tmpdir_remove(const char *path);

#endif
