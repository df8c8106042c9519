/*
 * base/sbuf: the growable string every piece of text is built in (sbuf.h):
 * growth, formatted appends, detaching, file reads.
 */
#include "base/sbuf.h"

#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "base/xalloc.h"

char sbuf_empty_[1];

void sbuf_init(struct sbuf *sb)
{
	sb->alloc = 0;
	sb->len = 0;
	sb->buf = sbuf_empty_;
}

void sbuf_release(struct sbuf *sb)
{
	if (sb->alloc)
		free(sb->buf);
	sbuf_init(sb);
}

char *sbuf_detach(struct sbuf *sb)
{
	char *out = sb->alloc ? sb->buf : xstrdup("");
	sbuf_init(sb);
	return out;
}

void sbuf_grow(struct sbuf *sb, size_t extra)
{
	if (sb->len + extra + 1 < sb->len)
		abort();
	size_t need = sb->len + extra + 1;
	if (need <= sb->alloc)
		return;
	size_t n = sb->alloc ? sb->alloc : 64;
	while (n < need)
		n *= 2;
	if (!sb->alloc) {
		sb->buf = xmalloc(n);
		sb->buf[0] = '\0';
	} else {
		sb->buf = xreallocarray(sb->buf, n, 1);
	}
	sb->alloc = n;
}

void sbuf_reset(struct sbuf *sb)
{
	sbuf_setlen(sb, 0);
}

void sbuf_setlen(struct sbuf *sb, size_t len)
{
	if (!sb->alloc)
		return; /* empty and unallocated: nothing to cut */
	if (len > sb->len)
		abort();
	sb->len = len;
	sb->buf[len] = '\0';
}

void sbuf_extend(struct sbuf *sb, size_t n)
{
	if (!n)
		return;
	if (sb->len + n + 1 > sb->alloc)
		abort(); /* more than sbuf_grow() reserved */
	sb->len += n;
	sb->buf[sb->len] = '\0';
}

void sbuf_add(struct sbuf *sb, const void *data, size_t len)
{
	if (!len)
		return;
	sbuf_grow(sb, len);
	memcpy(sb->buf + sb->len, data, len);
	sb->len += len;
	sb->buf[sb->len] = '\0';
}

void sbuf_adds(struct sbuf *sb, const char *s)
{
	sbuf_add(sb, s, strlen(s));
}

void sbuf_addch(struct sbuf *sb, int c)
{
	sbuf_grow(sb, 1);
	sb->buf[sb->len++] = (char)c;
	sb->buf[sb->len] = '\0';
}

void sbuf_addchars(struct sbuf *sb, int c, size_t n)
{
	if (!n)
		return;
	sbuf_grow(sb, n);
	memset(sb->buf + sb->len, c, n);
	sb->len += n;
	sb->buf[sb->len] = '\0';
}

void sbuf_vaddf(struct sbuf *sb, const char *fmt, va_list ap)
{
	va_list cp;
	va_copy(cp, ap);
	int n = vsnprintf(NULL, 0, fmt, cp);
	va_end(cp);
	if (n <= 0)
		return;
	sbuf_grow(sb, (size_t)n);
	vsnprintf(sb->buf + sb->len, (size_t)n + 1, fmt, ap);
	sb->len += (size_t)n;
}

void sbuf_addf(struct sbuf *sb, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	sbuf_vaddf(sb, fmt, ap);
	va_end(ap);
}

/* The length of the UTF-8 sequence at p (1-4), or 0 when it is not one
   (overlong, a surrogate, beyond U+10FFFF, cut short); its code point. */
static size_t utf8_len(const unsigned char *p, uint32_t *cp)
{
	size_t n = p[0] >= 0xf0 ? 4 : p[0] >= 0xe0 ? 3 : p[0] >= 0xc0 ? 2 : 0;
	if (!n || p[0] > 0xf4)
		return 0;
	uint32_t c = p[0] & (0x7f >> n);
	for (size_t i = 1; i < n; i++) {
		if ((p[i] & 0xc0) != 0x80)
			return 0; /* also the terminating NUL */
		c = c << 6 | (p[i] & 0x3f);
	}
	static const uint32_t least[5] = {0, 0, 0x80, 0x800, 0x10000};
	if (c < least[n] || c > 0x10ffff || (c >= 0xd800 && c <= 0xdfff))
		return 0;
	*cp = c;
	return n;
}

void sbuf_add_escaped(struct sbuf *sb, const char *s)
{
	for (const unsigned char *p = (const unsigned char *)s; *p;) {
		uint32_t cp = 0;
		size_t n = *p < 0x80 ? 1 : utf8_len(p, &cp);
		if (*p == '\n')
			sbuf_adds(sb, "\\n");
		else if (*p == '\r')
			sbuf_adds(sb, "\\r");
		else if (*p == '\t')
			sbuf_adds(sb, "\\t");
		else if (*p < 0x20 || *p == 0x7f || !n || (cp >= 0x80 && cp <= 0x9f))
			for (size_t i = 0; i < (n ? n : 1); i++)
				sbuf_addf(sb, "\\x%02x", p[i]);
		else if ((cp >= 0x202a && cp <= 0x202e) || (cp >= 0x2066 && cp <= 0x2069))
			sbuf_addf(sb, "\\u%04x", (unsigned)cp);
		else
			sbuf_add(sb, p, n);
		p += n ? n : 1;
	}
}

void sbuf_rtrim(struct sbuf *sb)
{
	size_t n = sb->len;
	while (n && (sb->buf[n - 1] == ' ' || sb->buf[n - 1] == '\t' || sb->buf[n - 1] == '\n' ||
		     sb->buf[n - 1] == '\r'))
		n--;
	sbuf_setlen(sb, n);
}

int sbuf_read_file(struct sbuf *sb, const char *path, size_t max_bytes)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return -1;
	char chunk[65536];
	size_t total = 0;
	for (;;) {
		ssize_t n = read(fd, chunk, sizeof(chunk));
		if (n < 0) {
			if (errno == EINTR)
				continue;
			int e = errno;
			close(fd);
			errno = e;
			return -1;
		}
		if (n == 0)
			break;
		total += (size_t)n;
		if (total > max_bytes) {
			close(fd);
			errno = EFBIG;
			return -1;
		}
		sbuf_add(sb, chunk, (size_t)n);
	}
	close(fd);
	return 0;
}
