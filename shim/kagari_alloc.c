/*
 * libkagari-alloc.so: kagari's allocation-counting shim (LD_PRELOAD).
 *
 * It interposes the whole malloc family (malloc, free, calloc, realloc,
 * reallocarray, memalign, posix_memalign, aligned_alloc, valloc, pvalloc,
 * malloc_usable_size) and forwards to glibc's own entry points
 * (__libc_malloc, __libc_free, ...), so it never needs dlsym and cannot
 * recurse into itself. Per process it counts, with relaxed atomics:
 *
 *   allocs  calls that allocate (malloc, calloc, a realloc that does not
 *           free, memalign and friends; malloc(0) counts)
 *   bytes   bytes requested by those calls (for realloc: the new size)
 *   peak    the high-water mark of live requested bytes
 *   frees   calls of free/realloc(p, 0) on a non-NULL pointer
 *
 * Sizes: each block gets a 16-byte header in front of the pointer handed
 * out: the requested size (with the alignment shift in the top byte) and a
 * check word (the size word XOR a constant). free() and realloc() look for
 * the check word; a block without it (allocated before the shim could see
 * it, e.g. by the dynamic loader's early allocator) is passed to glibc
 * untouched and not counted. Over-aligned blocks (memalign & co. with an
 * alignment above 16) are allocated `alignment` bytes larger and handed
 * out `alignment` bytes in, so that the header fits before them.
 *
 * Output: when the process exits normally (a destructor), one line is
 * appended with a single O_APPEND write(2) to the file named by
 * $KAGARI_ALLOC_OUT:
 *
 *   kagari-alloc 1 pid=P ppid=Q allocs=N bytes=N peak=N frees=N
 *
 * where ppid is the parent at the time the process started (or forked), so
 * that kagari can tell the process it started from its descendants. A
 * forked child starts counting from zero (a pthread_atfork handler), and
 * its live bytes may go below zero when it frees what it inherited; peak
 * is never below zero. Nothing is written by processes that end through
 * _exit(2) or a signal, by static binaries (no LD_PRELOAD) or by setuid
 * programs (the loader ignores LD_PRELOAD for them): kagari reports the
 * metric as unsupported when the process it started wrote no line.
 * Allocations made before an exec(3) are lost with the old image.
 *
 * This file is built on its own (no sanitizers, hidden visibility for
 * everything but the interposed functions) and uses no kagari code.
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/*
 * Loads into the programs of any glibc (make dist builds it once for every
 * Linux): x86-64 glibc 2.14 gave memcpy a new version, which a program on
 * an older glibc could not bind, so the shim asks for the first one. Every
 * other symbol it needs is from glibc 2.3.2 or older (tests/package/p_dist.sh).
 */
#if defined(__x86_64__) && defined(__GLIBC__)
__asm__(".symver memcpy,memcpy@GLIBC_2.2.5");
#endif

#define EXPORT __attribute__((visibility("default")))

extern void *__libc_malloc(size_t n);
extern void __libc_free(void *p);
extern void *__libc_calloc(size_t n, size_t size);
extern void *__libc_realloc(void *p, size_t n);
extern void *__libc_memalign(size_t align, size_t n);

#define HDR 16u
#define CHECK UINT64_C(0x6b61676172693a61) /* "kagari:a" */
#define SIZE_MASK ((UINT64_C(1) << 56) - 1)
#define MAX_REQUEST (SIZE_MASK / 2)

struct hdr {
	uint64_t word;	/* size | shift << 56 */
	uint64_t check; /* word ^ CHECK */
};

static uint64_t kagari_alloc_calls, kagari_alloc_bytes, kagari_alloc_frees;
static int64_t kagari_alloc_live, kagari_alloc_peak;
static pid_t start_ppid;

static void account_alloc(size_t n)
{
	__atomic_fetch_add(&kagari_alloc_calls, 1, __ATOMIC_RELAXED);
	__atomic_fetch_add(&kagari_alloc_bytes, (uint64_t)n, __ATOMIC_RELAXED);
	int64_t live = __atomic_add_fetch(&kagari_alloc_live, (int64_t)n,
					  __ATOMIC_RELAXED);
	int64_t peak = __atomic_load_n(&kagari_alloc_peak, __ATOMIC_RELAXED);
	while (live > peak &&
	       !__atomic_compare_exchange_n(&kagari_alloc_peak, &peak, live, 1,
					    __ATOMIC_RELAXED, __ATOMIC_RELAXED))
		;
}

static void account_free(size_t n)
{
	__atomic_fetch_add(&kagari_alloc_frees, 1, __ATOMIC_RELAXED);
	__atomic_fetch_sub(&kagari_alloc_live, (int64_t)n, __ATOMIC_RELAXED);
}

/* Write the header in front of user pointer u; returns u. */
static void *stamp(void *u, size_t n, unsigned shift)
{
	struct hdr *h = (struct hdr *)u - 1;
	h->word = (uint64_t)n | (uint64_t)shift << 56;
	h->check = h->word ^ CHECK;
	return u;
}

/* The header of p when p is one of ours, else NULL. */
static struct hdr *ours(void *p)
{
	struct hdr *h = (struct hdr *)p - 1;
	return h->check == (h->word ^ CHECK) ? h : NULL;
}

static void *base_of(void *p, const struct hdr *h)
{
	unsigned shift = (unsigned)(h->word >> 56);
	return (char *)p - (shift ? (size_t)1 << shift : HDR);
}

/* Usable size of a block glibc handed out (its chunk header). */
static size_t glibc_usable(void *p)
{
	size_t sz = ((size_t *)p)[-1];
	size_t chunk = sz & ~(size_t)7;
	if (sz & 2) /* IS_MMAPPED */
		return chunk > 2 * sizeof(size_t) ? chunk - 2 * sizeof(size_t) : 0;
	return chunk > sizeof(size_t) ? chunk - sizeof(size_t) : 0;
}

static void *plain_alloc(size_t n, int zero)
{
	if (n > MAX_REQUEST) {
		errno = ENOMEM;
		return NULL;
	}
	void *b = zero ? __libc_calloc(1, n + HDR) : __libc_malloc(n + HDR);
	if (!b)
		return NULL;
	account_alloc(n);
	return stamp((char *)b + HDR, n, 0);
}

/* Alignment: a power of two; at most 16 is what malloc gives anyway. */
static void *aligned_block(size_t align, size_t n)
{
	if (align <= HDR)
		return plain_alloc(n, 0);
	unsigned shift = 0;
	while (((size_t)1 << shift) < align)
		shift++;
	align = (size_t)1 << shift;
	if (shift >= 40 || n > MAX_REQUEST) {
		errno = ENOMEM;
		return NULL;
	}
	void *b = __libc_memalign(align, n + align);
	if (!b)
		return NULL;
	account_alloc(n);
	return stamp((char *)b + align, n, shift);
}

EXPORT void *malloc(size_t n)
{
	return plain_alloc(n, 0);
}

EXPORT void free(void *p)
{
	if (!p)
		return;
	struct hdr *h = ours(p);
	if (!h) {
		__libc_free(p);
		return;
	}
	account_free((size_t)(h->word & SIZE_MASK));
	void *b = base_of(p, h);
	h->check = 0;
	__libc_free(b);
}

EXPORT void *calloc(size_t n, size_t size)
{
	size_t total;
	if (__builtin_mul_overflow(n, size, &total)) {
		errno = ENOMEM;
		return NULL;
	}
	return plain_alloc(total, 1);
}

EXPORT void *realloc(void *p, size_t n)
{
	if (!p)
		return plain_alloc(n, 0);
	if (n == 0) {
		free(p);
		return NULL;
	}
	struct hdr *h = ours(p);
	if (!h) {
		/* Not ours: let glibc move it; count the call, not the bytes live. */
		void *q = __libc_realloc(p, n);
		if (q) {
			__atomic_fetch_add(&kagari_alloc_calls, 1, __ATOMIC_RELAXED);
			__atomic_fetch_add(&kagari_alloc_bytes, (uint64_t)n,
					   __ATOMIC_RELAXED);
		}
		return q;
	}
	size_t old = (size_t)(h->word & SIZE_MASK);
	if (n > MAX_REQUEST) {
		errno = ENOMEM;
		return NULL;
	}
	if (h->word >> 56) {
		/* Over-aligned: glibc's realloc would not keep the alignment. */
		void *q = malloc(n);
		if (!q)
			return NULL;
		memcpy(q, p, old < n ? old : n);
		free(p);
		return q;
	}
	uint64_t word = h->word;
	h->check = 0;
	void *b = __libc_realloc((char *)p - HDR, n + HDR);
	if (!b) {
		h->check = word ^ CHECK; /* the old block is still valid */
		return NULL;
	}
	__atomic_fetch_sub(&kagari_alloc_live, (int64_t)old, __ATOMIC_RELAXED);
	account_alloc(n);
	return stamp((char *)b + HDR, n, 0);
}

EXPORT void *reallocarray(void *p, size_t n, size_t size)
{
	size_t total;
	if (__builtin_mul_overflow(n, size, &total)) {
		errno = ENOMEM;
		return NULL;
	}
	return realloc(p, total);
}

EXPORT void *memalign(size_t align, size_t n)
{
	if (align & (align - 1)) {
		/* glibc rounds a non-power of two up */
		size_t a = 1;
		while (a < align && a)
			a <<= 1;
		if (!a) {
			errno = EINVAL;
			return NULL;
		}
		align = a;
	}
	return aligned_block(align, n);
}

EXPORT void *aligned_alloc(size_t align, size_t n)
{
	return memalign(align, n);
}

EXPORT int posix_memalign(void **out, size_t align, size_t n)
{
	if (align % sizeof(void *) || (align & (align - 1)) || !align)
		return EINVAL;
	int saved = errno;
	void *p = aligned_block(align, n);
	if (!p) {
		errno = saved;
		return ENOMEM;
	}
	*out = p;
	return 0;
}

EXPORT void *valloc(size_t n)
{
	return aligned_block((size_t)sysconf(_SC_PAGESIZE), n);
}

EXPORT void *pvalloc(size_t n)
{
	size_t page = (size_t)sysconf(_SC_PAGESIZE);
	if (n > MAX_REQUEST) {
		errno = ENOMEM;
		return NULL;
	}
	n = n ? (n + page - 1) & ~(page - 1) : page;
	return aligned_block(page, n);
}

EXPORT size_t malloc_usable_size(void *p)
{
	if (!p)
		return 0;
	struct hdr *h = ours(p);
	if (!h)
		return glibc_usable(p);
	return (size_t)(h->word & SIZE_MASK);
}

/* ---- output ------------------------------------------------------------ */

static char *put_str(char *o, const char *s)
{
	while (*s)
		*o++ = *s++;
	return o;
}

static char *put_u64(char *o, uint64_t v)
{
	char tmp[24];
	int n = 0;
	do {
		tmp[n++] = (char)('0' + v % 10);
		v /= 10;
	} while (v);
	while (n)
		*o++ = tmp[--n];
	return o;
}

static void child_after_fork(void)
{
	__atomic_store_n(&kagari_alloc_calls, 0, __ATOMIC_RELAXED);
	__atomic_store_n(&kagari_alloc_bytes, 0, __ATOMIC_RELAXED);
	__atomic_store_n(&kagari_alloc_frees, 0, __ATOMIC_RELAXED);
	__atomic_store_n(&kagari_alloc_live, 0, __ATOMIC_RELAXED);
	__atomic_store_n(&kagari_alloc_peak, 0, __ATOMIC_RELAXED);
	start_ppid = getppid();
}

__attribute__((constructor)) static void kagari_alloc_init(void)
{
	start_ppid = getppid();
	pthread_atfork(NULL, NULL, child_after_fork);
}

__attribute__((destructor)) static void kagari_alloc_fini(void)
{
	const char *path = getenv("KAGARI_ALLOC_OUT");
	if (!path || !*path)
		return;
	char line[256], *o = line;
	int64_t peak = __atomic_load_n(&kagari_alloc_peak, __ATOMIC_RELAXED);
	o = put_str(o, "kagari-alloc 1 pid=");
	o = put_u64(o, (uint64_t)getpid());
	o = put_str(o, " ppid=");
	o = put_u64(o, (uint64_t)start_ppid);
	o = put_str(o, " allocs=");
	o = put_u64(o, __atomic_load_n(&kagari_alloc_calls, __ATOMIC_RELAXED));
	o = put_str(o, " bytes=");
	o = put_u64(o, __atomic_load_n(&kagari_alloc_bytes, __ATOMIC_RELAXED));
	o = put_str(o, " peak=");
	o = put_u64(o, peak > 0 ? (uint64_t)peak : 0);
	o = put_str(o, " frees=");
	o = put_u64(o, __atomic_load_n(&kagari_alloc_frees, __ATOMIC_RELAXED));
	*o++ = '\n';
	int saved = errno;
	int fd = open(path, O_WRONLY | O_APPEND | O_CREAT | O_CLOEXEC, 0600);
	if (fd >= 0) {
		ssize_t w = write(fd, line, (size_t)(o - line));
		(void)w;
		close(fd);
	}
	errno = saved;
}
