/* model/trace: reading and writing the A/A trace format (trace.h). */
#include "model/trace.h"

#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "base/sbuf.h"
#include "base/xalloc.h"

enum { COL_WALL, COL_USER, COL_SYS, COL__N };
static const char *const col_names[COL__N] = { "wall_ns", "user_ns", "sys_ns" };

/* The end of the field starting at p (a tab, a newline or the end). */
static const char *field_end(const char *p, const char *end)
{
	while (p < end && *p != '\t' && *p != '\n' && *p != '\r')
		p++;
	return p;
}

int trace_parse(const char *file, const char *text, size_t len, int need_cpu,
		struct trace *t, struct sbuf *err)
{
	const char *p = text, *end = text + len;
	int col_of[COL__N] = { -1, -1, -1 };
	int ncols = 0;
	size_t line = 1, alloc = 0;

	memset(t, 0, sizeof(*t));
	if (!len) {
		sbuf_addf(err, "%s:1:1: empty trace: a header line naming wall_ns is needed",
			  file);
		return -1;
	}
	/* The header. */
	while (p < end && *p != '\n') {
		const char *e = field_end(p, end);

		for (int c = 0; c < COL__N; c++)
			if ((size_t)(e - p) == strlen(col_names[c]) &&
			    !memcmp(p, col_names[c], (size_t)(e - p)))
				col_of[c] = ncols;
		ncols++;
		p = e;
		if (p < end && *p == '\r')
			p++;
		if (p < end && *p == '\t')
			p++;
	}
	for (int c = 0; c < COL__N; c++) {
		if (col_of[c] >= 0 || (c != COL_WALL && !need_cpu))
			continue;
		sbuf_addf(err, "%s:1:1: field '%s': the header has no such column%s", file,
			  col_names[c],
			  c == COL_WALL ? "" : " (--metric cpu_total needs user_ns and sys_ns)");
		return -1;
	}
	int have_cpu = col_of[COL_USER] >= 0 && col_of[COL_SYS] >= 0;
	t->file = xstrdup(file);
	while (p < end) {
		double v[COL__N] = { NAN, NAN, NAN };
		const char *ls;
		int c = 0;

		p++; /* the newline */
		line++;
		if (p >= end)
			break;
		ls = p;
		if (*p == '\n' || (*p == '\r' && p + 1 < end && p[1] == '\n')) {
			sbuf_addf(err, "%s:%zu:1: empty line", file, line);
			goto fail;
		}
		for (;;) {
			const char *e = field_end(p, end);

			for (int k = 0; k < COL__N; k++) {
				char buf[64], *stop;
				size_t flen = (size_t)(e - p);

				if (col_of[k] != c)
					continue;
				if (!flen || flen >= sizeof(buf)) {
					sbuf_addf(err, "%s:%zu:%zu: field '%s': not a number '%.*s'",
						  file, line, (size_t)(p - ls) + 1, col_names[k],
						  (int)(flen > 40 ? 40 : flen), p);
					goto fail;
				}
				memcpy(buf, p, flen);
				buf[flen] = 0;
				errno = 0;
				v[k] = strtod(buf, &stop);
				if (*stop || errno || !isfinite(v[k])) {
					sbuf_addf(err, "%s:%zu:%zu: field '%s': not a number '%s'",
						  file, line, (size_t)(p - ls) + 1, col_names[k], buf);
					goto fail;
				}
				if (v[k] < 0 || (k == COL_WALL && v[k] == 0)) {
					sbuf_addf(err, "%s:%zu:%zu: field '%s': %s %s", file, line,
						  (size_t)(p - ls) + 1, col_names[k],
						  v[k] < 0 ? "a negative time" : "a zero time", buf);
					goto fail;
				}
			}
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
		for (int k = 0; k < COL__N; k++) {
			if (col_of[k] < 0 || !isnan(v[k]))
				continue;
			if (k != COL_WALL && !need_cpu)
				continue;
			sbuf_addf(err, "%s:%zu:%zu: field '%s': missing (the line has %d of %d columns)",
				  file, line, (size_t)(p - ls) + 1, col_names[k], c, ncols);
			goto fail;
		}
		if (need_cpu && v[COL_USER] + v[COL_SYS] <= 0) {
			sbuf_addf(err, "%s:%zu:1: fields 'user_ns' and 'sys_ns': a zero CPU time",
				  file, line);
			goto fail;
		}
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
