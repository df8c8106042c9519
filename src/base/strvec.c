/*
 * base/strvec: a NULL-terminated vector of owned strings (strvec.h), with
 * the NAME=VALUE environment helpers.
 */
#include "base/strvec.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/xalloc.h"

const char *strvec_empty_[] = {NULL};

void strvec_init(struct strvec *sv)
{
	sv->v = strvec_empty_;
	sv->nr = 0;
	sv->alloc = 0;
}

void strvec_clear(struct strvec *sv)
{
	if (sv->v != strvec_empty_) {
		for (size_t i = 0; i < sv->nr; i++)
			free((char *)sv->v[i]);
		free(sv->v);
	}
	strvec_init(sv);
}

const char *strvec_push_take(struct strvec *sv, char *s)
{
	if (sv->v == strvec_empty_) {
		sv->v = NULL;
		sv->alloc = 0;
	}
	ALLOC_GROW(sv->v, sv->nr + 2, sv->alloc);
	sv->v[sv->nr++] = s;
	sv->v[sv->nr] = NULL;
	return s;
}

const char *strvec_push(struct strvec *sv, const char *s)
{
	return strvec_push_take(sv, xstrdup(s));
}

const char *strvec_pushf(struct strvec *sv, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	char *out = NULL;
	if (vasprintf(&out, fmt, ap) < 0)
		abort();
	va_end(ap);
	return strvec_push_take(sv, out);
}

void strvec_pushv(struct strvec *sv, const char *const *items)
{
	for (; items && *items; items++)
		strvec_push(sv, *items);
}

void strvec_copy(struct strvec *dst, const struct strvec *src)
{
	for (size_t i = 0; i < src->nr; i++)
		strvec_push(dst, src->v[i]);
}

static long env_index(const struct strvec *env, const char *name)
{
	size_t n = strlen(name);
	for (size_t i = 0; i < env->nr; i++)
		if (!strncmp(env->v[i], name, n) && env->v[i][n] == '=')
			return (long)i;
	return -1;
}

void strvec_setenv(struct strvec *env, const char *name, const char *value)
{
	char *entry = xstrfmt("%s=%s", name, value);
	long i = env_index(env, name);
	if (i >= 0) {
		free((char *)env->v[i]);
		env->v[i] = entry;
	} else {
		strvec_push_take(env, entry);
	}
}

const char *strvec_getenv(const struct strvec *env, const char *name)
{
	long i = env_index(env, name);
	return i < 0 ? NULL : env->v[i] + strlen(name) + 1;
}

int strvec_contains(const struct strvec *sv, const char *s)
{
	for (size_t i = 0; i < sv->nr; i++)
		if (!strcmp(sv->v[i], s))
			return 1;
	return 0;
}
