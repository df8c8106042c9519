/*
 * measure/alloc: the allocation-counting shim's client side (alloc.h):
 * finding libkagari-alloc.so, the LD_PRELOAD environment, and reading the
 * counts the shim wrote for a run.
 */
#include "measure/alloc.h"

#include <errno.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "base/sbuf.h"
#include "base/strvec.h"
#include "base/xalloc.h"

/* The shim writes short lines; a tree of many processes stays far below. */
#define ALLOC_FILE_MAX ((size_t)64 << 20)

static int usable(const char *path)
{
	return access(path, R_OK) == 0;
}

/* The folder of this program's executable, or NULL. */
static char *exe_dir(void)
{
	size_t size = 256;
	char *buf = NULL;
	for (;;) {
		buf = xreallocarray(buf, size, 1);
		ssize_t n = readlink("/proc/self/exe", buf, size);
		if (n < 0) {
			free(buf);
			return NULL;
		}
		if ((size_t)n < size) {
			buf[n] = '\0';
			break;
		}
		size *= 2;
	}
	char *slash = strrchr(buf, '/');
	if (!slash) {
		free(buf);
		return NULL;
	}
	*slash = '\0';
	return buf;
}

int alloc_shim_find(const char *override, struct sbuf *path, struct sbuf *err)
{
	struct strvec tried = STRVEC_INIT;
	char *dir = exe_dir();
	int rc = -1;

	if (override && *override)
		strvec_push(&tried, override);
	if (dir) {
		strvec_pushf(&tried, "%s/%s", dir, ALLOC_SHIM_NAME);
		strvec_pushf(&tried, "%s/../lib/kagari/%s", dir, ALLOC_SHIM_NAME);
	}
#ifdef KAGARI_ALLOC_SHIM_PATH
	strvec_push(&tried, KAGARI_ALLOC_SHIM_PATH);
#endif
	for (size_t i = 0; i < tried.nr && rc; i++) {
		if (tried.v[i][0] != '/' || !usable(tried.v[i]))
			continue;
		char *real = realpath(tried.v[i], NULL);
		sbuf_adds(path, real ? real : tried.v[i]);
		free(real);
		rc = 0;
	}
	if (rc) {
		sbuf_addf(err, "the allocation shim '%s' was not found (tried", ALLOC_SHIM_NAME);
		for (size_t i = 0; i < tried.nr; i++)
			sbuf_addf(err, "%s '%s'", i ? "," : "", tried.v[i]);
		sbuf_adds(err, tried.nr ? "; set KAGARI_ALLOC_SHIM to its path)"
					: " nothing; set KAGARI_ALLOC_SHIM to its path)");
	}
	strvec_clear(&tried);
	free(dir);
	return rc;
}

void alloc_env_setup(struct strvec *env, const char *shim_path, const char *out_path)
{
	const char *old = strvec_getenv(env, "LD_PRELOAD");
	if (old && *old) {
		char *v = xstrfmt("%s:%s", shim_path, old);
		strvec_setenv(env, "LD_PRELOAD", v);
		free(v);
	} else {
		strvec_setenv(env, "LD_PRELOAD", shim_path);
	}
	strvec_setenv(env, ALLOC_OUT_ENV, out_path);
}

/* Parse "name=<unsigned>" at *p; advances past it. */
static int field(const char **p, const char *name, unsigned long long *v)
{
	size_t n = strlen(name);
	while (**p == ' ')
		(*p)++;
	if (strncmp(*p, name, n) || (*p)[n] != '=')
		return -1;
	const char *s = *p + n + 1;
	if (*s < '0' || *s > '9')
		return -1;
	char *end;
	errno = 0;
	*v = strtoull(s, &end, 10);
	if (errno || (*end != ' ' && *end != '\n' && *end))
		return -1;
	*p = end;
	return 0;
}

int alloc_parse(const char *text, size_t len, pid_t parent_pid, struct alloc_totals *t,
		struct sbuf *err)
{
	memset(t, 0, sizeof(*t));
	size_t lineno = 0;
	const char *p = text, *end = text + len;
	struct sbuf line = SBUF_INIT;
	int rc = 0;
	while (p < end && !rc) {
		const char *nl = memchr(p, '\n', (size_t)(end - p));
		size_t n = nl ? (size_t)(nl - p) : (size_t)(end - p);
		lineno++;
		sbuf_reset(&line);
		sbuf_add(&line, p, n);
		p += n + (nl ? 1 : 0);
		if (!n)
			continue;
		const char *q = line.buf;
		unsigned long long pid, ppid, allocs, bytes, peak, frees;
		const char *magic = "kagari-alloc 1 ";
		if (strncmp(q, magic, strlen(magic)) || !nl) {
			rc = -1;
		} else {
			q += strlen(magic);
			rc = field(&q, "pid", &pid) || field(&q, "ppid", &ppid) ||
				     field(&q, "allocs", &allocs) || field(&q, "bytes", &bytes) ||
				     field(&q, "peak", &peak) || field(&q, "frees", &frees)
				 ? -1
				 : 0;
		}
		if (rc) {
			sbuf_addf(err, "allocation shim output line %zu is malformed: '%.80s'",
				  lineno, line.buf);
			break;
		}
		t->allocs += allocs;
		t->bytes += bytes;
		t->peak += peak;
		t->frees += frees;
		t->processes++;
		if (parent_pid > 0 && ppid == (unsigned long long)parent_pid)
			t->main_seen = 1;
	}
	sbuf_release(&line);
	return rc;
}

int alloc_read(const char *path, pid_t parent_pid, struct alloc_totals *t, struct sbuf *err)
{
	struct sbuf sb = SBUF_INIT;
	memset(t, 0, sizeof(*t));
	if (sbuf_read_file(&sb, path, ALLOC_FILE_MAX)) {
		int e = errno;
		sbuf_release(&sb);
		if (e == ENOENT)
			return 0;
		sbuf_addf(err, "cannot read the allocation shim output '%s': %s", path,
			  strerror(e));
		return -1;
	}
	int rc = alloc_parse(sb.buf, sb.len, parent_pid, t, err);
	sbuf_release(&sb);
	return rc;
}

const char *alloc_unseen_reason(void)
{
	return "the allocation shim (LD_PRELOAD) saw no allocations of the started "
	       "program: a static binary, a setuid program, or one that ends through "
	       "_exit or a signal";
}
