/*
 * measure/valgrind: instruction counts under valgrind (valgrind.h): finding
 * valgrind and its version, wrapping a command's argv, and reading the
 * counts from the files it wrote into a folder.
 */
#include "measure/valgrind.h"

#include <dirent.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "base/sbuf.h"
#include "base/strvec.h"
#include "base/xalloc.h"
#include "proc/child.h"

#define PROBE_TIMEOUT_NS (INT64_C(30) * 1000000000)
/* cachegrind files with per-line costs can be large; only summed here. */
#define CG_FILE_MAX ((size_t)256 << 20)

static const char INSTALL_HINT[] =
    "valgrind is not installed (install it, e.g. `apt-get install valgrind`, "
    "`dnf install valgrind` or `brew install valgrind`)";

/* valgrind on the PATH value, or NULL. */
static char *find_on_path(const char *path_env)
{
	const char *p = path_env ? path_env : "/usr/local/bin:/usr/bin:/bin";
	while (*p) {
		const char *colon = strchr(p, ':');
		size_t len = colon ? (size_t)(colon - p) : strlen(p);
		char *cand = xstrfmt("%.*s/valgrind", (int)len, len ? p : ".");
		if (access(cand, X_OK) == 0)
			return cand;
		free(cand);
		if (!colon)
			break;
		p = colon + 1;
	}
	return NULL;
}

char *valgrind_parse_version(const char *text)
{
	const char *p = strstr(text, "valgrind-");
	if (!p)
		return NULL;
	p += strlen("valgrind-");
	size_t n = strspn(p, "0123456789.");
	if (!n || p[0] < '0' || p[0] > '9')
		return NULL;
	return xstrndup(p, n);
}

int valgrind_probe(const char *path_env, char **path, char **version, struct sbuf *err)
{
	*path = NULL;
	*version = NULL;
	char *prog = find_on_path(path_env ? path_env : getenv("PATH"));
	if (!prog) {
		sbuf_adds(err, INSTALL_HINT);
		return -1;
	}
	struct child c = CHILD_INIT;
	struct sbuf why = SBUF_INIT;
	strvec_push(&c.argv, prog);
	strvec_push(&c.argv, "--version");
	c.in = CHILD_IN_NULL;
	c.out = CHILD_OUT_CAPTURE;
	c.err = CHILD_OUT_CAPTURE;
	c.timeout_ns = PROBE_TIMEOUT_NS;
	int code = child_run(&c, &why);
	int rc = 0;
	if (code != 0 || !(*version = valgrind_parse_version(c.res.out.buf))) {
		sbuf_addf(err, "'%s --version' did not run as expected", prog);
		if (code < 0 && why.len)
			sbuf_addf(err, ": %s", why.buf);
		else if (code != 0)
			sbuf_addf(err, " (exit %d)", code);
		rc = -1;
	}
	sbuf_release(&why);
	child_release(&c);
	if (rc) {
		free(*version);
		*version = NULL;
		free(prog);
	} else {
		*path = prog;
	}
	return rc;
}

void valgrind_wrap_argv(const char *valgrind, const char *const *argv, const char *dir,
			struct strvec *out)
{
	strvec_push(out, valgrind);
	strvec_push(out, "--tool=cachegrind");
	strvec_push(out, "--cache-sim=no");
	strvec_push(out, "--branch-sim=no");
	strvec_push(out, "--trace-children=yes");
	strvec_pushf(out, "--cachegrind-out-file=%s/cg.%%p", dir);
	strvec_pushf(out, "--log-file=%s/vg.%%p.log", dir);
	strvec_pushv(out, argv);
}

/* Parse an unsigned decimal at p; NULL when there is none. */
static const char *parse_u64(const char *p, uint64_t *v)
{
	if (*p < '0' || *p > '9')
		return NULL;
	char *end;
	errno = 0;
	unsigned long long x = strtoull(p, &end, 10);
	if (errno)
		return NULL;
	*v = x;
	return end;
}

int valgrind_parse_output(const char *text, uint64_t *ir, struct sbuf *err)
{
	int have_events = 0, have_summary = 0;
	uint64_t sum = 0, summary = 0;
	const char *p = text;
	while (*p) {
		const char *nl = strchr(p, '\n');
		size_t n = nl ? (size_t)(nl - p) : strlen(p);
		if (!strncmp(p, "events:", 7)) {
			const char *q = p + 7;
			while (*q == ' ')
				q++;
			if (strncmp(q, "Ir", 2) || (q[2] != ' ' && q[2] != '\n' && q[2])) {
				sbuf_addf(err, "cachegrind output counts '%.*s', not Ir first",
					  (int)(n - (size_t)(q - p)), q);
				return -1;
			}
			have_events = 1;
		} else if (!strncmp(p, "summary:", 8)) {
			const char *q = p + 8;
			while (*q == ' ')
				q++;
			if (!parse_u64(q, &summary)) {
				sbuf_addf(err, "malformed cachegrind summary line '%.*s'", (int)n,
					  p);
				return -1;
			}
			have_summary = 1;
		} else if (have_events && *p >= '0' && *p <= '9') {
			/* A cost line: "LINE COST..." (COST may be absent: zero). */
			uint64_t line, cost = 0;
			const char *q = parse_u64(p, &line);
			if (q && *q == ' ' && parse_u64(q + 1, &cost))
				sum += cost;
		}
		p += n + (nl ? 1 : 0);
	}
	if (!have_events) {
		sbuf_adds(err, "cachegrind output has no 'events:' line");
		return -1;
	}
	*ir = have_summary ? summary : sum;
	return 0;
}

static int is_cg_file(const char *name)
{
	return !strncmp(name, "cg.", 3) && name[3];
}

int valgrind_read_dir(const char *dir, uint64_t *ir, size_t *files, struct sbuf *err)
{
	*ir = 0;
	*files = 0;
	DIR *d = opendir(dir);
	if (!d) {
		sbuf_addf(err, "cannot open '%s': %s", dir, strerror(errno));
		return -1;
	}
	struct dirent *de;
	struct sbuf text = SBUF_INIT;
	int rc = 0;
	while (!rc && (de = readdir(d))) {
		if (!is_cg_file(de->d_name))
			continue;
		char *path = xstrfmt("%s/%s", dir, de->d_name);
		uint64_t one = 0;
		sbuf_reset(&text);
		if (sbuf_read_file(&text, path, CG_FILE_MAX)) {
			sbuf_addf(err, "cannot read '%s': %s", path, strerror(errno));
			rc = -1;
		} else if (valgrind_parse_output(text.buf, &one, err)) {
			sbuf_addf(err, " (in '%s')", path);
			rc = -1;
		} else {
			*ir += one;
			(*files)++;
		}
		free(path);
	}
	closedir(d);
	sbuf_release(&text);
	return rc;
}

int valgrind_clear_dir(const char *dir, struct sbuf *err)
{
	DIR *d = opendir(dir);
	if (!d) {
		sbuf_addf(err, "cannot open '%s': %s", dir, strerror(errno));
		return -1;
	}
	struct dirent *de;
	int rc = 0;
	while ((de = readdir(d))) {
		if (!strcmp(de->d_name, ".") || !strcmp(de->d_name, ".."))
			continue;
		char *path = xstrfmt("%s/%s", dir, de->d_name);
		if (unlink(path) != 0 && errno != ENOENT && !rc) {
			sbuf_addf(err, "cannot remove '%s': %s", path, strerror(errno));
			rc = -1;
		}
		free(path);
	}
	closedir(d);
	return rc;
}
