/*
 * suite/discover: the suite files a command line names — files as given,
 * folders searched for suite file names (kagari.yaml, *.kagari.yaml, ...)
 * — in the working tree or in any tree a caller describes (discover.h).
 */
#include "suite/discover.h"

#include <dirent.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "base/sbuf.h"
#include "base/strvec.h"
#include "base/xalloc.h"

static int has_suffix(const char *s, const char *suffix)
{
	size_t n = strlen(s), m = strlen(suffix);
	return n > m && !strcmp(s + n - m, suffix);
}

int suite_discover_name_matches(const char *name)
{
	return !strcmp(name, "kagari.yaml") || !strcmp(name, "himorime.yaml") ||
	       has_suffix(name, ".kagari.yaml") || has_suffix(name, ".himorime.yaml");
}

static int cmp_str(const void *a, const void *b)
{
	return strcmp(*(const char *const *)a, *(const char *const *)b);
}

static void add_file(struct strvec *files, const char *path)
{
	if (!strvec_contains(files, path))
		strvec_push(files, path);
}

/* ---- the working tree: stat() and readdir() ---- */

static int fs_kind(void *data, const char *path, enum suite_entry *kind, struct sbuf *err)
{
	struct stat st;
	(void)data;
	*kind = SUITE_ENTRY_NONE;
	if (stat(path, &st) != 0) {
		if (errno == ENOENT || errno == ENOTDIR)
			return 0;
		sbuf_addf(err, "%s: %s\n", path, strerror(errno));
		return -1;
	}
	*kind = S_ISDIR(st.st_mode) ? SUITE_ENTRY_DIR : SUITE_ENTRY_FILE;
	return 0;
}

static int fs_files(void *data, const char *dir, struct strvec *names, struct sbuf *err)
{
	DIR *d = opendir(dir);
	(void)data;
	if (!d) {
		sbuf_addf(err, "%s: cannot read the directory: %s\n", dir, strerror(errno));
		return -1;
	}
	size_t dlen = strlen(dir);
	struct dirent *de;
	while ((de = readdir(d))) {
		if (!suite_discover_name_matches(de->d_name))
			continue;
		char *p = dlen && dir[dlen - 1] == '/' ? xstrfmt("%s%s", dir, de->d_name)
						       : xstrfmt("%s/%s", dir, de->d_name);
		struct stat st;
		/* Skip folders that happen to match the pattern. */
		if (stat(p, &st) == 0 && !S_ISDIR(st.st_mode))
			strvec_push(names, de->d_name);
		free(p);
	}
	closedir(d);
	return 0;
}

static const struct suite_tree working_tree = {fs_kind, fs_files, NULL};

/* ---- the rule, in any tree ---- */

static int add_dir(const struct suite_tree *t, const char *dir, struct strvec *files,
		   struct sbuf *err)
{
	struct strvec names = STRVEC_INIT;
	if (t->files(t->data, dir, &names, err)) {
		strvec_clear(&names);
		return -1;
	}
	if (names.nr > 1)
		qsort(names.v, names.nr, sizeof(*names.v), cmp_str);
	size_t dlen = strlen(dir);
	int added = 0;
	for (size_t i = 0; i < names.nr; i++) {
		if (!suite_discover_name_matches(names.v[i]))
			continue;
		char *p = dlen && dir[dlen - 1] == '/' ? xstrfmt("%s%s", dir, names.v[i])
						       : xstrfmt("%s/%s", dir, names.v[i]);
		add_file(files, p);
		added = 1;
		free(p);
	}
	strvec_clear(&names);
	if (!added) {
		sbuf_addf(err,
			  "%s: no suite in this directory (looked for kagari.yaml, *.kagari.yaml, "
			  "himorime.yaml, *.himorime.yaml)\n",
			  dir);
		return -1;
	}
	return 0;
}

int suite_discover_tree(const struct suite_tree *t, const char *const *paths, size_t n,
			struct strvec *files, struct sbuf *err)
{
	enum suite_entry kind;
	int rc = 0;
	if (!n) {
		static const char *const deflt[] = {"kagari.yaml", "himorime.yaml"};
		for (size_t k = 0; k < 2; k++) {
			if (t->kind(t->data, deflt[k], &kind, err))
				return -1;
			if (kind == SUITE_ENTRY_FILE) {
				add_file(files, deflt[k]);
				return 0;
			}
		}
		sbuf_addf(err, "no suite given and neither kagari.yaml nor himorime.yaml in the "
			       "current directory (try 'kagari init')\n");
		return -1;
	}
	for (size_t i = 0; i < n; i++) {
		const char *p = paths[i];
		if (!*p) {
			sbuf_addf(err, "'': empty path\n");
			rc = -1;
			continue;
		}
		if (t->kind(t->data, p, &kind, err)) {
			rc = -1;
			continue;
		}
		if (kind == SUITE_ENTRY_NONE) {
			sbuf_addf(err, "%s: no such file or directory\n", p);
			rc = -1;
		} else if (kind == SUITE_ENTRY_DIR) {
			if (add_dir(t, p, files, err))
				rc = -1;
		} else {
			add_file(files, p);
		}
	}
	return rc;
}

int suite_discover(const char *const *paths, size_t n, struct strvec *files, struct sbuf *err)
{
	return suite_discover_tree(&working_tree, paths, n, files, err);
}
