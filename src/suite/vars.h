/*
 * suite/vars: the ${...} variables of suite strings.
 *
 *   ${artifact}   the build output (only when the suite has `build`)
 *   ${root}       the suite's folder in the side being measured (himorime's
 *                 meaning; the repository root for a suite at its top)
 *   ${head_root}  the suite's folder in the head side (for shared inputs)
 *   ${workdir}    a fresh folder per benchmark and side (not in `build`)
 *   ${exe}        the platform's executable suffix (empty on Linux)
 *   ${env:NAME}   an environment variable
 *   $${           a literal "${"
 *
 * Call order: the loader calls vars_check() on every string that may hold
 * variables (unknown names are load errors with a position); the runner
 * calls vars_expand() per side once the values are known.
 */
#ifndef KAGARI_SUITE_VARS_H
#define KAGARI_SUITE_VARS_H

#include <stddef.h>

struct sbuf;
struct strvec;

/* Bits naming variables, for the `allowed` mask of vars_check(). */
enum {
	VAR_ARTIFACT = 1u << 0,
	VAR_ROOT = 1u << 1,
	VAR_HEAD_ROOT = 1u << 2,
	VAR_WORKDIR = 1u << 3,
	VAR_EXE = 1u << 4,
	VAR_ENV = 1u << 5,
	VAR_ALL = (1u << 6) - 1,
	/* The variables that stand for a folder or file path. */
	VAR_PATHS = VAR_ARTIFACT | VAR_ROOT | VAR_HEAD_ROOT | VAR_WORKDIR,
};

/*
 * Load-time check of `in`: every ${...} must be a known variable whose bit is
 * in `allowed`; a path variable may only begin a path (it may not follow
 * '/', '.', '~', '\' or another variable); with `shell`, a variable inside
 * quotes the user wrote ('...' or "...") is an error, because kagari quotes
 * substituted values itself. Returns 0, or -1 with one reason appended to
 * err and *offset set to the byte offset of the problem in `in`.
 * Disallowed variables get a reason naming why: ${artifact} needs a
 * top-level `build`; ${workdir} does not exist while building.
 */
int vars_check(const char *in, unsigned allowed, int shell, size_t *offset, struct sbuf *err);

/*
 * If `in` begins with a path variable, return its bit and set *len to the
 * length of "${name}"; else return 0.
 */
unsigned vars_path_prefix(const char *in, size_t *len);

/* 1 if `in` contains any variable reference (a literal "$${" is not one). */
int vars_present(const char *in);

/* Values known at run time; a NULL member is "not available here". */
struct vars_context {
	const char *artifact;
	const char *root;
	const char *head_root;
	const char *workdir;
	const struct strvec *env; /* NAME=VALUE for ${env:NAME}; NULL: getenv */
	/* Not variables: the repositories holding root and head_root, which
	 * an expanded path may not leave (measure/execute_side_path()). */
	const char *repo;
	const char *head_repo;
};

/*
 * Append `in` with every variable substituted to `out`. With shell_quote,
 * each substituted value is single-quoted so that /bin/sh reads it as one
 * word whatever it holds. Returns 0, or -1 with a reason appended to err
 * (an unknown or unavailable variable, an unset ${env:NAME}); `out` may then
 * hold a partial result.
 */
int vars_expand(const char *in, const struct vars_context *ctx, int shell_quote, struct sbuf *out,
		struct sbuf *err);

/* Append s single-quoted for POSIX sh: 'it'\''s' (empty -> ''). */
void vars_shell_quote(struct sbuf *out, const char *s);

#endif
