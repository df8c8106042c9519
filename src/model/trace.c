/* model/trace: reading and writing the A/A trace format (trace.h). */
#include "model/trace.h"

#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "base/sbuf.h"
#include "base/xalloc.h"

enum { COL_WALL, COL_USER, COL_SYS, COL__N };
static const char *const col_names[COL__N] = {"wall_ns", "user_ns", "sys_ns"};

/* The end of the field starting at p (a tab, a newline or the end). */
static const char *field_end(const char *p, const char *end)
{
	while (p < end && *p != '\t' && *p != '\n' && *p != '\r')
		p++;
	return p;
}

/* What the parser of one trace carries from line to line. */
struct trace_reader {
	const char *file;
	const char *p, *end;
	size_t line;
	int col_of[COL__N]; /* the header's column of each field, or -1 */
	int ncols;
	int need_cpu;
	struct sbuf *err;
};

/* The header line: which column holds each field. 0, or -1 (err says). */
static int read_header(struct trace_reader *R)
{
	const char *p = R->p, *end = R->end;

	while (p < end && *p != '\n') {
		const char *e = field_end(p, end);

		for (int c = 0; c < COL__N; c++)
			if ((size_t)(e - p) == strlen(col_names[c]) &&
			    !memcmp(p, col_names[c], (size_t)(e - p)))
				R->col_of[c] = R->ncols;
		R->ncols++;
		p = e;
		if (p < end && *p == '\r')
			p++;
		if (p < end && *p == '\t')
			p++;
	}
	R->p = p;
	for (int c = 0; c < COL__N; c++) {
		if (R->col_of[c] >= 0 || (c != COL_WALL && !R->need_cpu))
			continue;
		sbuf_addf(R->err, "%s:1:1: field '%s': the header has no such column%s", R->file,
			  col_names[c],
			  c == COL_WALL ? "" : " (--metric cpu_total needs user_ns and sys_ns)");
		return -1;
	}
	return 0;
}

/* Field k's value from the field [p, e) that starts at column col. */
static int read_value(struct trace_reader *R, int k, const char *p, const char *e, size_t col,
		      double *v)
{
	char buf[64], *stop;
	size_t flen = (size_t)(e - p);

	if (!flen || flen >= sizeof(buf)) {
		sbuf_addf(R->err, "%s:%zu:%zu: field '%s': not a number '%.*s'", R->file, R->line,
			  col, col_names[k], (int)(flen > 40 ? 40 : flen), p);
		return -1;
	}
	memcpy(buf, p, flen);
	buf[flen] = 0;
	errno = 0;
	*v = strtod(buf, &stop);
	if (*stop || errno || !isfinite(*v)) {
		sbuf_addf(R->err, "%s:%zu:%zu: field '%s': not a number '%s'", R->file, R->line,
			  col, col_names[k], buf);
		return -1;
	}
	if (*v >= TRACE_TIME_LIMIT_NS) {
		sbuf_addf(R->err,
			  "%s:%zu:%zu: field '%s': %s ns is beyond the 2^63 ns "
			  "(about 292 years) a time can hold",
			  R->file, R->line, col, col_names[k], buf);
		return -1;
	}
	if (*v < 0 || (k == COL_WALL && *v == 0)) {
		sbuf_addf(R->err, "%s:%zu:%zu: field '%s': %s %s", R->file, R->line, col,
			  col_names[k], *v < 0 ? "a negative time" : "a zero time", buf);
		return -1;
	}
	return 0;
}

/*
 * One run's line, R->p at its first byte: the fields kept into v (NAN
 * where the line has no such column). 0, or -1 (err says where).
 */
static int read_run(struct trace_reader *R, double v[COL__N])
{
	const char *p = R->p, *end = R->end, *ls = p;
	int c = 0;

	if (*p == '\n' || (*p == '\r' && p + 1 < end && p[1] == '\n')) {
		sbuf_addf(R->err, "%s:%zu:1: empty line", R->file, R->line);
		return -1;
	}
	for (;;) {
		const char *e = field_end(p, end);

		for (int k = 0; k < COL__N; k++)
			if (R->col_of[k] == c &&
			    read_value(R, k, p, e, (size_t)(p - ls) + 1, &v[k]))
				return -1;
		c++;
		p = e;
		if (p < end && *p == '\t') {
			p++;
			continue;
		}
		if (p < end && *p == '\r')
			p++;
		break;
	}
	R->p = p;
	for (int k = 0; k < COL__N; k++) {
		if (R->col_of[k] < 0 || !isnan(v[k]))
			continue;
		if (k != COL_WALL && !R->need_cpu)
			continue;
		sbuf_addf(R->err, "%s:%zu:%zu: field '%s': missing (the line has %d of %d columns)",
			  R->file, R->line, (size_t)(p - ls) + 1, col_names[k], c, R->ncols);
		return -1;
	}
	if (R->need_cpu && v[COL_USER] + v[COL_SYS] >= TRACE_TIME_LIMIT_NS) {
		sbuf_addf(R->err,
			  "%s:%zu:1: fields 'user_ns' and 'sys_ns': a CPU time beyond the "
			  "2^63 ns (about 292 years) a time can hold",
			  R->file, R->line);
		return -1;
	}
	if (R->need_cpu && v[COL_USER] + v[COL_SYS] <= 0) {
		sbuf_addf(R->err, "%s:%zu:1: fields 'user_ns' and 'sys_ns': a zero CPU time",
			  R->file, R->line);
		return -1;
	}
	return 0;
}

int trace_parse(const char *file, const char *text, size_t len, int need_cpu, struct trace *t,
		struct sbuf *err)
{
	struct trace_reader R = {
	    .file = file,
	    .p = text,
	    .end = text + len,
	    .line = 1,
	    .col_of = {-1, -1, -1},
	    .need_cpu = need_cpu,
	    .err = err,
	};
	size_t alloc = 0;

	memset(t, 0, sizeof(*t));
	if (!len) {
		sbuf_addf(err, "%s:1:1: empty trace: a header line naming wall_ns is needed", file);
		return -1;
	}
	if (read_header(&R))
		return -1;
	int have_cpu = R.col_of[COL_USER] >= 0 && R.col_of[COL_SYS] >= 0;
	t->file = xstrdup(file);
	while (R.p < R.end) {
		double v[COL__N] = {NAN, NAN, NAN};

		R.p++; /* the newline */
		R.line++;
		if (R.p >= R.end)
			break;
		if (read_run(&R, v))
			goto fail;
		if (t->n == alloc) {
			alloc = alloc ? 2 * alloc : 1024;
			t->wall = xreallocarray(t->wall, alloc, sizeof(double));
			if (have_cpu)
				t->cpu = xreallocarray(t->cpu, alloc, sizeof(double));
		}
		t->wall[t->n] = v[COL_WALL];
		if (have_cpu)
			t->cpu[t->n] = isnan(v[COL_USER]) || isnan(v[COL_SYS])
					   ? NAN
					   : v[COL_USER] + v[COL_SYS];
		t->n++;
	}
	if (!t->n) {
		sbuf_addf(err, "%s:2:1: no runs after the header", file);
		goto fail;
	}
	return 0;
fail:
	trace_release(t);
	return -1;
}

void trace_release(struct trace *t)
{
	free(t->file);
	free(t->wall);
	free(t->cpu);
	memset(t, 0, sizeof(*t));
}

void trace_add_row(struct sbuf *out, size_t index, int copy, double wall_ns, double user_ns,
		   double sys_ns, double maxrss_kib)
{
	sbuf_addf(out, "%zu\t%d\t%.0f\t%.0f\t%.0f\t%.0f\n", index, copy, wall_ns, user_ns, sys_ns,
		  maxrss_kib);
}
