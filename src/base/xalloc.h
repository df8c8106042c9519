/*
 * xalloc: allocation that never returns NULL.
 *
 * Every allocation in kagari goes through these wrappers. They check the
 * size arithmetic for overflow and abort with a message when memory is
 * exhausted, so callers never juggle NULL (the tmux xmalloc.c idea).
 */
#ifndef KAGARI_BASE_XALLOC_H
#define KAGARI_BASE_XALLOC_H

#include <stddef.h>

void *xmalloc(size_t size);
void *xcalloc(size_t nmemb, size_t size);
/* Resize to nmemb * size bytes; aborts on overflow. */
void *xreallocarray(void *ptr, size_t nmemb, size_t size);
char *xstrdup(const char *s);
char *xstrndup(const char *s, size_t n);
/* printf into a freshly allocated string the caller frees. */
char *xstrfmt(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

/* Grow an array so that it holds at least `need` elements. */
#define ALLOC_GROW(ptr, need, alloc)                                                               \
	do {                                                                                       \
		if ((size_t)(need) > (size_t)(alloc)) {                                            \
			size_t alloc_grow_n_ = (size_t)(alloc)*2 + 8;                              \
			if (alloc_grow_n_ < (size_t)(need))                                        \
				alloc_grow_n_ = (size_t)(need);                                    \
			(ptr) = xreallocarray((ptr), alloc_grow_n_, sizeof(*(ptr)));               \
			(alloc) = alloc_grow_n_;                                                   \
		}                                                                                  \
	} while (0)

#endif
