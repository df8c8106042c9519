/*
 * strvec: a NULL-terminated, growable array of owned strings (argv, envp).
 * A zeroed struct is not valid: use STRVEC_INIT or strvec_init(). `v` is
 * never NULL and always NULL-terminated, so it can be passed to execve.
 */
#ifndef KAGARI_BASE_STRVEC_H
#define KAGARI_BASE_STRVEC_H

#include <stddef.h>

struct strvec {
	const char **v;
	size_t nr;
	size_t alloc;
};

extern const char *strvec_empty_[];
#define STRVEC_INIT                                                                                \
	{                                                                                          \
		strvec_empty_, 0, 0                                                                \
	}

void strvec_init(struct strvec *sv);
void strvec_clear(struct strvec *sv);
/* Copies s. */
const char *strvec_push(struct strvec *sv, const char *s);
/* Takes ownership of s (allocated with xmalloc). */
const char *strvec_push_take(struct strvec *sv, char *s);
const char *strvec_pushf(struct strvec *sv, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));
void strvec_pushv(struct strvec *sv, const char *const *items);
void strvec_copy(struct strvec *dst, const struct strvec *src);
/* Set NAME=VALUE in an environment vector, replacing an existing NAME. */
void strvec_setenv(struct strvec *env, const char *name, const char *value);
/* Value of NAME in an environment vector, or NULL. */
const char *strvec_getenv(const struct strvec *env, const char *name);
/* 1 if s is one of the elements. */
int strvec_contains(const struct strvec *sv, const char *s);

#endif
