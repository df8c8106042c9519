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
			int cache_sim, struct strvec *out)
{
	strvec_push(out, valgrind);
	strvec_push(out, "--tool=cachegrind");
	if (cache_sim) {
		strvec_push(out, "--cache-sim=yes");
		strvec_push(out, "--I1=" VALGRIND_I1);
		strvec_push(out, "--D1=" VALGRIND_D1);
		strvec_push(out, "--LL=" VALGRIND_LL);
	} else {
		strvec_push(out, "--cache-sim=no");
	}
	strvec_push(out, "--branch-sim=no");
	strvec_push(out, "--trace-children=yes");
	strvec_pushf(out, "--cachegrind-out-file=%s/cg.%%p", dir);
	strvec_pushf(out, "--log-file=%s/vg.%%p.log", dir);
	strvec_pushv(out, argv);
}

static const char *const event_names[VG__COUNT] = {
    [VG_IR] = "Ir", [VG_I1MR] = "I1mr", [VG_ILMR] = "ILmr",
    [VG_DR] = "Dr", [VG_D1MR] = "D1mr", [VG_DLMR] = "DLmr",
    [VG_DW] = "Dw", [VG_D1MW] = "D1mw", [VG_DLMW] = "DLmw",
};

const char *valgrind_event_name(enum valgrind_event e)
{
	return e < VG__COUNT ? event_names[e] : "?";
}

uint64_t valgrind_ll_misses(const struct valgrind_counts *c)
{
	return c->ev[VG_ILMR] + c->ev[VG_DLMR] + c->ev[VG_DLMW];
}

uint64_t valgrind_estimated_cycles(const struct valgrind_counts *c)
{
	uint64_t access = c->ev[VG_IR] + c->ev[VG_DR] + c->ev[VG_DW];
	uint64_t l1_miss = c->ev[VG_I1MR] + c->ev[VG_D1MR] + c->ev[VG_D1MW];
	uint64_t ll_miss = valgrind_ll_misses(c);
	/* cachegrind counts a miss at most once per access, so the
	   differences are never negative; clamp anyway against a damaged
	   file. */
	uint64_t l1_hit = access > l1_miss ? access - l1_miss : 0;
	uint64_t ll_hit = l1_miss > ll_miss ? l1_miss - ll_miss : 0;
	return VALGRIND_CYCLES_L1 * l1_hit + VALGRIND_CYCLES_LL * ll_hit +
	       VALGRIND_CYCLES_RAM * ll_miss;
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

#define MAX_COLUMNS 32

/*
 * The `events:` line's names (after "events:") as column -> event (-1: an
 * event kagari does not use). Returns the number of columns, or -1 with a
 * reason when Ir is not first.
 */
static int parse_events(const char *q, size_t n, int *col, struct sbuf *err)
{
	int cols = 0;
	const char *end = q + n;
	while (q < end) {
		while (q < end && *q == ' ')
			q++;
		const char *w = q;
		while (q < end && *q != ' ')
			q++;
		if (q == w)
			break;
		if (cols == MAX_COLUMNS) {
			sbuf_adds(err, "cachegrind output counts too many events");
			return -1;
		}
		col[cols] = -1;
		for (int e = 0; e < VG__COUNT; e++)
			if ((size_t)(q - w) == strlen(event_names[e]) &&
			    !strncmp(w, event_names[e], (size_t)(q - w)))
				col[cols] = e;
		cols++;
	}
	if (!cols || col[0] != VG_IR) {
		sbuf_addf(err, "cachegrind output counts '%.*s', not Ir first", (int)n, end - n);
		return -1;
	}
	return cols;
}

/* The numbers of a cost or summary line into v[0..cols); 0 or -1. */
static int parse_costs(const char *q, int cols, uint64_t *v)
{
	for (int k = 0; k < cols; k++)
		v[k] = 0;
	for (int k = 0; k < cols; k++) {
		while (*q == ' ')
			q++;
		if (*q == '\n' || !*q)
			return 0; /* trailing zero columns may be left out */
		q = parse_u64(q, &v[k]);
		if (!q || (*q != ' ' && *q != '\n' && *q))
			return -1;
	}
	return 0;
}

/* The text after a line's "KEY:" and the spaces that follow it, or NULL
   when the line at p does not start with key. */
static const char *after_key(const char *p, const char *key)
{
	size_t k = strlen(key);
	if (strncmp(p, key, k))
		return NULL;
	p += k;
	while (*p == ' ')
		p++;
	return p;
}

/* A cost line at p, "LINE COST..." (COSTs may be absent: zero), into v;
   -1 when it is not one (the readers skip it). */
static int cost_line(const char *p, int cols, uint64_t *v)
{
	uint64_t line;
	const char *q = parse_u64(p, &line);
	return q && *q == ' ' && !parse_costs(q + 1, cols, v) ? 0 : -1;
}

int valgrind_parse_output(const char *text, struct valgrind_counts *c, struct sbuf *err)
{
	int col[MAX_COLUMNS];
	int cols = -1, have_summary = 0;
	uint64_t sum[MAX_COLUMNS] = {0}, summary[MAX_COLUMNS] = {0};
	const char *p = text;
	memset(c, 0, sizeof(*c));
	while (*p) {
		const char *nl = strchr(p, '\n');
		size_t n = nl ? (size_t)(nl - p) : strlen(p);
		const char *q;
		if ((q = after_key(p, "events:"))) {
			cols = parse_events(q, n - (size_t)(q - p), col, err);
			if (cols < 0)
				return -1;
		} else if ((q = after_key(p, "summary:"))) {
			if (cols < 0 || *q < '0' || *q > '9' || parse_costs(q, cols, summary)) {
				sbuf_addf(err, "malformed cachegrind summary line '%.*s'", (int)n,
					  p);
				return -1;
			}
			have_summary = 1;
		} else if (cols > 0 && *p >= '0' && *p <= '9') {
			uint64_t v[MAX_COLUMNS];
			if (!cost_line(p, cols, v))
				for (int k = 0; k < cols; k++)
					sum[k] += v[k];
		}
		p += n + (nl ? 1 : 0);
	}
	if (cols < 0) {
		sbuf_adds(err, "cachegrind output has no 'events:' line");
		return -1;
	}
	const uint64_t *tot = have_summary ? summary : sum;
	unsigned seen = 0;
	for (int k = 0; k < cols; k++)
		if (col[k] >= 0) {
			c->ev[col[k]] = tot[k];
			seen |= 1u << col[k];
		}
	c->cache = seen == (1u << VG__COUNT) - 1;
	return 0;
}

static int is_cg_file(const char *name)
{
	return !strncmp(name, "cg.", 3) && name[3];
}

/*
 * Read every cachegrind file ("cg.*") of dir in turn and hand its text to
 * one_file(); both readers below walk the folder the same way and differ
 * only in what they take from a file. Stops at the first failure.
 */
static int for_each_cg_file(const char *dir,
			    int (*one_file)(const char *text, const char *path, void *ctx,
					    struct sbuf *err),
			    void *ctx, struct sbuf *err)
{
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
		sbuf_reset(&text);
		if (sbuf_read_file(&text, path, CG_FILE_MAX)) {
			sbuf_addf(err, "cannot read '%s': %s", path, strerror(errno));
			rc = -1;
		} else {
			rc = one_file(text.buf, path, ctx, err);
		}
		free(path);
	}
	closedir(d);
	sbuf_release(&text);
	return rc;
}

struct sum_ctx {
	struct valgrind_counts *c;
	size_t *files;
};

/* splitmix64's finaliser: a 64-bit value mixed, so that sums of mixed
   values differ where the multisets of the values do. */
static uint64_t mix64(uint64_t x)
{
	x ^= x >> 30;
	x *= 0xbf58476d1ce4e5b9ULL;
	x ^= x >> 27;
	x *= 0x94d049bb133111ebULL;
	return x ^ (x >> 31);
}

/* Add one file's totals to the sum. */
static int sum_file(const char *text, const char *path, void *ctx, struct sbuf *err)
{
	struct sum_ctx *s = ctx;
	struct valgrind_counts one;
	if (valgrind_parse_output(text, &one, err)) {
		sbuf_addf(err, " (in '%s')", path);
		return -1;
	}
	for (int e = 0; e < VG__COUNT; e++)
		s->c->ev[e] += one.ev[e];
	s->c->cache &= one.cache;
	s->c->procs_digest += mix64(one.ev[VG_IR] + 0x9e3779b97f4a7c15ULL);
	(*s->files)++;
	return 0;
}

int valgrind_read_dir(const char *dir, struct valgrind_counts *c, size_t *files, struct sbuf *err)
{
	memset(c, 0, sizeof(*c));
	c->cache = 1;
	*files = 0;
	struct sum_ctx s = {c, files};
	int rc = for_each_cg_file(dir, sum_file, &s, err);
	if (!*files)
		c->cache = 0;
	return rc;
}

void valgrind_fns_release(struct valgrind_fn *fns, size_t nr)
{
	for (size_t i = 0; i < nr; i++)
		free(fns[i].name);
	free(fns);
}

static int cmp_fn(const void *a, const void *b)
{
	return strcmp(((const struct valgrind_fn *)a)->name, ((const struct valgrind_fn *)b)->name);
}

/* Append the fn= blocks of one file's text to *fns (unmerged). */
static int add_functions(const char *text, struct valgrind_fn **fns, size_t *nr, size_t *alloc,
			 struct sbuf *err)
{
	int col[MAX_COLUMNS];
	int cols = -1;
	struct valgrind_fn *cur = NULL;
	const char *p = text;
	while (*p) {
		const char *nl = strchr(p, '\n');
		size_t n = nl ? (size_t)(nl - p) : strlen(p);
		const char *q;
		if ((q = after_key(p, "events:"))) {
			cols = parse_events(q, n - (size_t)(q - p), col, err);
			if (cols < 0)
				return -1;
		} else if (!strncmp(p, "fn=", 3)) {
			if (*nr == *alloc) {
				*alloc = *alloc ? *alloc * 2 : 256;
				*fns = xreallocarray(*fns, *alloc, sizeof(**fns));
			}
			cur = &(*fns)[(*nr)++];
			memset(cur, 0, sizeof(*cur));
			cur->name = xstrndup(p + 3, n - 3);
		} else if (cur && cols > 0 && *p >= '0' && *p <= '9') {
			uint64_t v[MAX_COLUMNS];
			if (!cost_line(p, cols, v))
				for (int k = 0; k < cols; k++)
					if (col[k] >= 0)
						cur->c.ev[col[k]] += v[k];
		}
		p += n + (nl ? 1 : 0);
	}
	return 0;
}

struct functions_ctx {
	struct valgrind_fn **fns;
	size_t *nr;
	size_t alloc;
};

static int functions_file(const char *text, const char *path, void *ctx, struct sbuf *err)
{
	(void)path;
	struct functions_ctx *f = ctx;
	return add_functions(text, f->fns, f->nr, &f->alloc, err);
}

int valgrind_read_functions(const char *dir, struct valgrind_fn **fns, size_t *nr, struct sbuf *err)
{
	*fns = NULL;
	*nr = 0;
	struct functions_ctx f = {fns, nr, 0};
	int rc = for_each_cg_file(dir, functions_file, &f, err);
	if (rc) {
		valgrind_fns_release(*fns, *nr);
		*fns = NULL;
		*nr = 0;
		return -1;
	}
	/* Merge the blocks of one name (several files, several processes). */
	qsort(*fns, *nr, sizeof(**fns), cmp_fn);
	size_t w = 0;
	for (size_t i = 0; i < *nr; i++) {
		if (w && !strcmp((*fns)[w - 1].name, (*fns)[i].name)) {
			for (int e = 0; e < VG__COUNT; e++)
				(*fns)[w - 1].c.ev[e] += (*fns)[i].c.ev[e];
			free((*fns)[i].name);
		} else {
			(*fns)[w++] = (*fns)[i];
		}
	}
	*nr = w;
	return 0;
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
