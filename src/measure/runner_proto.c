/*
 * measure/runner_proto: the runner protocol's frames (runner_internal.h has the
 * layout) and their transport over the socket, descriptors included;
 * both ends use it.
 */
#include "measure/runner_internal.h"

#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "base/fileio.h"
#include "base/xalloc.h"
#include "proc/proc.h"

/* ---- encoding ---- */

void rp_put_u32(struct sbuf *b, uint32_t v)
{
	sbuf_add(b, &v, sizeof(v));
}

void rp_put_i64(struct sbuf *b, int64_t v)
{
	sbuf_add(b, &v, sizeof(v));
}

void rp_put_bytes(struct sbuf *b, const void *p, size_t len)
{
	if (!p) {
		rp_put_u32(b, NONE);
		return;
	}
	rp_put_u32(b, (uint32_t)len);
	sbuf_add(b, p, len);
	sbuf_addch(b, '\0');
}

void rp_put_str(struct sbuf *b, const char *s)
{
	rp_put_bytes(b, s, s ? strlen(s) : 0);
}

void rp_begin_frame(struct sbuf *b)
{
	sbuf_reset(b);
	rp_put_u32(b, 0);
}

void rp_end_frame(struct sbuf *b)
{
	uint32_t len = (uint32_t)(b->len - sizeof(uint32_t));
	memcpy(b->buf, &len, sizeof(len));
}

void rp_get(struct reader *rd, void *out, size_t n)
{
	if (rd->bad || (size_t)(rd->end - rd->p) < n) {
		rd->bad = 1;
		memset(out, 0, n);
		return;
	}
	memcpy(out, rd->p, n);
	rd->p += n;
}

uint32_t rp_get_u32(struct reader *rd)
{
	uint32_t v;
	rp_get(rd, &v, sizeof(v));
	return v;
}

int64_t rp_get_i64(struct reader *rd)
{
	int64_t v;
	rp_get(rd, &v, sizeof(v));
	return v;
}

/* A pointer into the frame (NUL-terminated) or NULL for NONE. */
const char *rp_get_bytes(struct reader *rd, size_t *len)
{
	uint32_t n = rp_get_u32(rd);
	*len = 0;
	if (rd->bad || n == NONE)
		return NULL;
	if ((size_t)(rd->end - rd->p) < (size_t)n + 1 || rd->p[n] != '\0') {
		rd->bad = 1;
		return NULL;
	}
	const char *s = rd->p;
	rd->p += (size_t)n + 1;
	*len = n;
	return s;
}

const char *rp_get_str(struct reader *rd)
{
	size_t len;
	return rp_get_bytes(rd, &len);
}

/* ---- transport ---- */

int rp_send_frame(int fd, const struct sbuf *b, const int *fds, int nfds)
{
	const char *p = b->buf;
	size_t left = b->len;
	union {
		char buf[CMSG_SPACE(3 * sizeof(int))];
		struct cmsghdr align;
	} u;
	while (left) {
		struct iovec iov = {(void *)p, left};
		struct msghdr mh = {.msg_iov = &iov, .msg_iovlen = 1};
		if (nfds > 0) {
			memset(&u, 0, sizeof(u));
			mh.msg_control = u.buf;
			mh.msg_controllen = CMSG_SPACE(sizeof(int) * nfds);
			struct cmsghdr *cm = CMSG_FIRSTHDR(&mh);
			cm->cmsg_level = SOL_SOCKET;
			cm->cmsg_type = SCM_RIGHTS;
			cm->cmsg_len = CMSG_LEN(sizeof(int) * nfds);
			memcpy(CMSG_DATA(cm), fds, sizeof(int) * nfds);
		}
		ssize_t n = sendmsg(fd, &mh, MSG_NOSIGNAL);
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0)
			return -1;
		nfds = 0; /* the descriptors went with the first byte */
		p += n;
		left -= (size_t)n;
	}
	return 0;
}

/*
 * Read one whole frame into b (header included). Descriptors that arrive
 * with it are stored in fds (up to 3; extra ones closed). Returns 1, 0 at a
 * clean EOF before any byte, -1 on error or a truncated frame (errno set).
 */
int rp_recv_frame(int fd, struct sbuf *b, int *fds, int *nfds)
{
	size_t need = sizeof(uint32_t);
	sbuf_reset(b);
	if (nfds)
		*nfds = 0;
	while (b->len < need) {
		sbuf_grow(b, need - b->len > 65536 ? need - b->len : 65536);
		/* Read as much as fits, not just the header: the protocol is
		 * strictly one frame each way, so nothing of a next frame
		 * can be in the socket, and most frames arrive in one call. */
		struct iovec iov = {b->buf + b->len, b->alloc - b->len - 1};
		union {
			char buf[CMSG_SPACE(3 * sizeof(int))];
			struct cmsghdr align;
		} u;
		struct msghdr mh = {.msg_iov = &iov, .msg_iovlen = 1};
		if (fds) {
			mh.msg_control = u.buf;
			mh.msg_controllen = sizeof(u.buf);
		}
		ssize_t n = recvmsg(fd, &mh, MSG_CMSG_CLOEXEC);
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0)
			return -1;
		if (fds && mh.msg_controllen) {
			for (struct cmsghdr *cm = CMSG_FIRSTHDR(&mh); cm;
			     cm = CMSG_NXTHDR(&mh, cm)) {
				if (cm->cmsg_level != SOL_SOCKET || cm->cmsg_type != SCM_RIGHTS)
					continue;
				size_t k = (cm->cmsg_len - CMSG_LEN(0)) / sizeof(int);
				int got[8];
				if (k > 8)
					k = 8;
				memcpy(got, CMSG_DATA(cm), k * sizeof(int));
				for (size_t i = 0; i < k; i++) {
					if (*nfds < 3)
						fds[(*nfds)++] = got[i];
					else
						close(got[i]);
				}
			}
		}
		if (n == 0) {
			if (b->len == 0)
				return 0;
			errno = EPIPE;
			return -1;
		}
		sbuf_extend(b, (size_t)n);
		if (need == sizeof(uint32_t) && b->len >= need) {
			uint32_t len;
			memcpy(&len, b->buf, sizeof(len));
			need += len;
		}
	}
	if (b->len != need) {
		errno = EPROTO; /* more than one frame: a protocol error */
		return -1;
	}
	return 1;
}
