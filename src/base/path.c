/*
 * base/path: lexical normalisation and containment (path.h).
 */
#include "base/path.h"

#include <stdlib.h>
#include <string.h>

#include "base/sbuf.h"
#include "base/strvec.h"
#include "base/xalloc.h"

const char *path_component(const char **p, size_t *n)
{
	const char *s = *p;
	while (*s == '/')
		s++;
	if (!*s) {
		*p = s;
		return NULL;
	}
	const char *e = strchrnul(s, '/');
	*n = (size_t)(e - s);
	*p = e;
	return s;
}

char *path_normalize(const char *p)
{
	struct strvec parts = STRVEC_INIT;
	size_t n;
	for (const char *c; (c = path_component(&p, &n));) {
		if (n == 2 && c[0] == '.' && c[1] == '.') {
			if (parts.nr) {
				free((char *)parts.v[--parts.nr]);
				parts.v[parts.nr] = NULL;
			}
		} else if (!(n == 1 && c[0] == '.')) {
			strvec_push_take(&parts, xstrndup(c, n));
		}
	}
	struct sbuf out = SBUF_INIT;
	for (size_t i = 0; i < parts.nr; i++)
		sbuf_addf(&out, "/%s", parts.v[i]);
	if (!out.len)
		sbuf_addch(&out, '/');
	strvec_clear(&parts);
	return sbuf_detach(&out);
}

const char *path_inside(const char *path, const char *root)
{
	if (!path || !root)
		return NULL;
	size_t n = strlen(root);
	while (n && root[n - 1] == '/')
		n--;
	if (strncmp(path, root, n) || (path[n] && path[n] != '/'))
		return NULL;
	const char *rel = path + n;
	while (*rel == '/')
		rel++;
	return rel;
}

int path_clean_relative(const char *relpath, struct sbuf *out)
{
	const char *p = relpath;
	size_t n;
	for (const char *c; (c = path_component(&p, &n));) {
		if (n == 2 && c[0] == '.' && c[1] == '.')
			return -1;
		if (!(n == 1 && c[0] == '.')) {
			if (out->len)
				sbuf_addch(out, '/');
			sbuf_add(out, c, n);
		}
	}
	return 0;
}
