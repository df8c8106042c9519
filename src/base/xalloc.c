/*
 * base/xalloc: allocation that checks for overflow and aborts on
 * exhaustion, so callers never handle NULL (xalloc.h).
 */
#include "base/xalloc.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static void die_oom(size_t size)
{
	/* No allocation here: we are out of memory. */
	char msg[96];
	int n = snprintf(msg, sizeof(msg), "kagari: out of memory (allocating %zu bytes)\n", size);
	if (n > 0)
		(void)!write(2, msg, (size_t)n);
	abort();
}

void *xmalloc(size_t size)
{
	void *p = malloc(size ? size : 1);
	if (!p)
		die_oom(size);
	return p;
}

void *xcalloc(size_t nmemb, size_t size)
{
	void *p = calloc(nmemb ? nmemb : 1, size ? size : 1);
	if (!p)
		die_oom(nmemb * size);
	return p;
}

void *xreallocarray(void *ptr, size_t nmemb, size_t size)
{
	if (size && nmemb > (size_t)-1 / size)
		die_oom((size_t)-1);
	size_t total = nmemb * size;
	void *p = realloc(ptr, total ? total : 1);
	if (!p)
		die_oom(total);
	return p;
}

char *xstrdup(const char *s)
{
	return xstrndup(s, strlen(s));
}

char *xstrndup(const char *s, size_t n)
{
	size_t len = strnlen(s, n);
	char *p = xmalloc(len + 1);
	memcpy(p, s, len);
	p[len] = '\0';
	return p;
}

char *xstrfmt(const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	char *out = NULL;
	if (vasprintf(&out, fmt, ap) < 0)
		die_oom(0);
	va_end(ap);
	return out;
}
