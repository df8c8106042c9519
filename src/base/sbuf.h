/*
 * sbuf: the one growable string type for all text kagari builds.
 *
 * Invariants: `buf` is never NULL and always NUL-terminated; `len` excludes
 * the NUL. A zeroed struct is NOT valid: use SBUF_INIT or sbuf_init().
 * sbuf_release() frees and re-initialises; sbuf_detach() hands the buffer to
 * the caller (who frees it) and leaves the sbuf empty and valid.
 */
#ifndef KAGARI_BASE_SBUF_H
#define KAGARI_BASE_SBUF_H

#include <stdarg.h>
#include <stddef.h>

struct sbuf {
	size_t alloc;
	size_t len;
	char *buf;
};

extern char sbuf_empty_[];
#define SBUF_INIT                                                                                  \
	{                                                                                          \
		0, 0, sbuf_empty_                                                                  \
	}

void sbuf_init(struct sbuf *sb);
void sbuf_release(struct sbuf *sb);
char *sbuf_detach(struct sbuf *sb);
void sbuf_grow(struct sbuf *sb, size_t extra);
void sbuf_reset(struct sbuf *sb);
void sbuf_setlen(struct sbuf *sb, size_t len);
/* Account for n bytes written (e.g. by read(2)) straight into the space
 * sbuf_grow() reserved; sbuf_setlen() only shortens. */
void sbuf_extend(struct sbuf *sb, size_t n);

void sbuf_add(struct sbuf *sb, const void *data, size_t len);
void sbuf_adds(struct sbuf *sb, const char *s);
void sbuf_addch(struct sbuf *sb, int c);
void sbuf_addf(struct sbuf *sb, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
void sbuf_vaddf(struct sbuf *sb, const char *fmt, va_list ap);
/* Append `n` copies of `c`. */
void sbuf_addchars(struct sbuf *sb, int c, size_t n);
/*
 * Append s with control characters escaped (\n, \r, \t, \xNN), so that a
 * value quoted in a one-line message stays on one line and cannot drive a
 * terminal: C0 controls and DEL, the C1 controls U+0080-U+009F (\xc2\x9b,
 * the byte pair of each), bytes that are not UTF-8 (\xNN) and the
 * bidirectional controls U+202A-U+202E, U+2066-U+2069 (\u202e). Every
 * text kagari prints that it did not write (a history branch's file names,
 * a run file's fields, an event file's values) goes through it.
 */
void sbuf_add_escaped(struct sbuf *sb, const char *s);
/* Remove trailing whitespace. */
void sbuf_rtrim(struct sbuf *sb);
/* Read a whole file (at most max_bytes; more is an error) into sb.
 * Returns 0, or -1 with errno set (EFBIG when larger than max_bytes). */
int sbuf_read_file(struct sbuf *sb, const char *path, size_t max_bytes);

#endif
