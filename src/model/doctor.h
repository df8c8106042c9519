/*
 * model/doctor: what `kagari doctor` found, as a list of lines
 * `status item: value — advice` (measure/doctor.h examines the machine,
 * report/doctor.h writes the text and JSON).
 */
#ifndef KAGARI_MODEL_DOCTOR_H
#define KAGARI_MODEL_DOCTOR_H

#include <stddef.h>

enum doctor_status { DOCTOR_OK, DOCTOR_WARN, DOCTOR_INFO };

struct doctor_line {
	enum doctor_status status;
	char *item;
	char *value;
	char *advice; /* NULL: nothing to do */
};

struct doctor {
	struct doctor_line *v;
	size_t nr, alloc;
};

/* "ok", "warn" or "info". */
const char *doctor_status_name(enum doctor_status s);
/* Append a line (copies every string; an empty advice is none). */
void doctor_add(struct doctor *d, enum doctor_status st, const char *item, const char *value,
		const char *advice);
void doctor_release(struct doctor *d);

#endif
