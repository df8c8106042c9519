/*
 * report/destination: where a run's reports go (destination.h).
 */
#include "report/destination.h"

#include <stdlib.h>
#include <string.h>

#include "base/fileio.h"
#include "base/sbuf.h"
#include "base/xalloc.h"
#include "model/exit.h"
#include "report/section.h"

int destination_add(struct destination **d, size_t *n, size_t *alloc, const char *format,
		    const char *path, const char *section, const char *label, int bad_code,
		    struct sbuf *err)
{
	enum report_format f;
	if (report_format_parse(format, &f)) {
		sbuf_addf(err, "unknown report format '%s'", format);
		return -1;
	}
	if (section && (f != REPORT_MARKDOWN || !path)) {
		sbuf_addf(err, "a section ('%s') needs format markdown and an output file",
			  section);
		return -1;
	}
	if (section && !report_section_name_valid(section)) {
		sbuf_addf(err,
			  "invalid section name '%s': 1-64 of [A-Za-z0-9_.-], starting with a "
			  "letter or digit",
			  section);
		return -1;
	}
	char *canon = path ? fileio_canonical_path(path) : NULL;
	for (size_t i = 0; i < *n; i++) {
		const char *p = (*d)[i].canonical;
		if ((!p && !canon) || (p && canon && !strcmp(p, canon))) {
			free(canon);
			sbuf_addf(err, "two reports would be written to %s%s%s", path ? "'" : "",
				  path ? path : "standard output", path ? "'" : "");
			return -1;
		}
	}
	ALLOC_GROW(*d, *n + 1, *alloc);
	(*d)[*n].format = f;
	(*d)[*n].path = path ? xstrdup(path) : NULL;
	(*d)[*n].section = section ? xstrdup(section) : NULL;
	(*d)[*n].canonical = canon;
	(*d)[*n].label = xstrdup(label);
	(*d)[*n].bad_code = bad_code;
	(*n)++;
	return 0;
}

int destination_add_suite_outputs(struct destination **d, size_t *n, size_t *alloc,
				  const struct loaded_suites *ls, struct sbuf *err)
{
	int rc = 0;
	for (size_t i = 0; i < ls->nr && !rc; i++) {
		const struct suite *su = ls->suites[i];
		for (size_t k = 0; k < su->nr_outputs && !rc; k++) {
			const struct report_output *o = &su->outputs[k];
			char *p = o->path[0] == '/' ? xstrdup(o->path)
						    : xstrfmt("%s/%s", su->dir, o->path);
			/* An output the suite names is part of the suite: exit 2. */
			char *label = xstrfmt("%s:%d:%d: report.outputs[%zu].path:", su->file,
					      o->loc.line, o->loc.col, k);
			rc = destination_add(d, n, alloc, o->format, p, o->section, label,
					     EXIT_INVALID, err);
			free(label);
			free(p);
		}
	}
	return rc;
}

void destinations_release(struct destination *d, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		free(d[i].path);
		free(d[i].section);
		free(d[i].canonical);
		free(d[i].label);
	}
	free(d);
}
