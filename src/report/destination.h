/*
 * report/destination: where a run's reports go — --output (or standard
 * output), the exports, the outputs a suite names — each checked as it is
 * added: a known format, a section only in a Markdown file, no two
 * reports to one file.
 */
#ifndef KAGARI_REPORT_DESTINATION_H
#define KAGARI_REPORT_DESTINATION_H

#include <stddef.h>

#include "model/formats.h"
#include "suite/select.h"

struct sbuf;

struct destination {
	enum report_format format;
	char *path;	 /* NULL: stdout */
	char *section;	 /* markdown: rewrite only this section of path */
	char *canonical; /* path with its folder resolved, for conflicts */
	char *label;	 /* "--output" or "FILE:L:C: report.outputs[K].path:" */
	int bad_code;	 /* exit code when path cannot take a report */
};

/*
 * Append to the array *d of *n (*alloc allocated) a report in format
 * (a name of model/formats.h) to path (NULL: standard output), into
 * section (NULL: the whole file). 0, or -1 with the reason in err.
 */
int destination_add(struct destination **d, size_t *n, size_t *alloc, const char *format,
		    const char *path, const char *section, const char *label, int bad_code,
		    struct sbuf *err);
/* The same for every `report.outputs` of every suite of ls (a path
   relative to its suite's folder; labelled FILE:L:C, bad_code 2). */
int destination_add_suite_outputs(struct destination **d, size_t *n, size_t *alloc,
				  const struct loaded_suites *ls, struct sbuf *err);
void destinations_release(struct destination *d, size_t n);

#endif
