/* model/doctor: the doctor's findings (see doctor.h). */
#include "model/doctor.h"

#include <stdlib.h>

#include "base/xalloc.h"

const char *doctor_status_name(enum doctor_status s)
{
	return s == DOCTOR_OK ? "ok" : s == DOCTOR_WARN ? "warn" : "info";
}

void doctor_add(struct doctor *d, enum doctor_status st, const char *item, const char *value,
		const char *advice)
{
	ALLOC_GROW(d->v, d->nr + 1, d->alloc);
	struct doctor_line *l = &d->v[d->nr++];
	l->status = st;
	l->item = xstrdup(item);
	l->value = xstrdup(value);
	l->advice = advice && *advice ? xstrdup(advice) : NULL;
}

void doctor_release(struct doctor *d)
{
	for (size_t i = 0; i < d->nr; i++) {
		free(d->v[i].item);
		free(d->v[i].value);
		free(d->v[i].advice);
	}
	free(d->v);
	d->v = NULL;
	d->nr = d->alloc = 0;
}
