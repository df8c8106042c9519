/*
 * suite/discover: the suite files a command line names — files as given,
 * folders searched for suite file names (kagari.yaml, *.kagari.yaml, ...)
 * (discover.h).
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

static int add_dir(const char *dir, struct strvec *files, struct sbuf *err)
{
	DIR *d = opendir(dir);
	if (!d) {
		sbuf_addf(err, "%s: cannot read the directory: %s\n", dir, strerror(errno));
		return -1;
	}
	struct strvec names = STRVEC_INIT;
	struct dirent *de;
	while ((de = readdir(d)))
		if (suite_discover_name_matches(de->d_name))
			strvec_push(&names, de->d_name);
	closedir(d);
	if (names.nr > 1)
		qsort(names.v, names.nr, sizeof(*names.v), cmp_str);
	size_t dlen = strlen(dir);
	int rc = 0, added = 0;
	for (size_t i = 0; i < names.nr; i++) {
		char *p = dlen && dir[dlen - 1] == '/' ? xstrfmt("%s%s", dir, names.v[i])
						       : xstrfmt("%s/%s", dir, names.v[i]);
		struct stat st;
		/* Skip folders that happen to match the pattern. */
		if (stat(p, &st) == 0 && !S_ISDIR(st.st_mode)) {
			add_file(files, p);
			added = 1;
		}
		free(p);
	}
	strvec_clear(&names);
	if (!added) {
		sbuf_addf(err,
			  "%s: no suite in this directory (looked for kagari.yaml, *.kagari.yaml, "
			  "himorime.yaml, *.himorime.yaml)\n",
			  dir);
		rc = -1;
	}
	return rc;
}

int suite_discover(const char *const *paths, size_t n, struct strvec *files, struct sbuf *err)
{
	struct stat st;
	int rc = 0;
	if (!n) {
		if (stat("kagari.yaml", &st) == 0) {
			add_file(files, "kagari.yaml");
			return 0;
		}
		if (stat("himorime.yaml", &st) == 0) {
			add_file(files, "himorime.yaml");
			return 0;
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
		if (stat(p, &st) != 0) {
			sbuf_addf(err, "%s: %s\n", p,
				  errno == ENOENT ? "no such file or directory" : strerror(errno));
			rc = -1;
			continue;
		}
		if (S_ISDIR(st.st_mode)) {
			if (add_dir(p, files, err))
				rc = -1;
		} else {
			add_file(files, p);
		}
	}
	return rc;
}
