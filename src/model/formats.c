/* model/formats: the report format names (model/formats.h). */
#include "model/formats.h"

#include <string.h>

#define FORMAT_NAME_(id, name, note, scope) [id] = name,
static const char *const format_names[REPORT_FORMAT__COUNT] = {
    REPORT_FORMATS(FORMAT_NAME_, FORMAT_NAME_)};

int report_format_parse(const char *name, enum report_format *out)
{
	for (int i = 0; i < REPORT_FORMAT__COUNT; i++) {
		if (!strcmp(name, format_names[i])) {
			*out = (enum report_format)i;
			return 0;
		}
	}
	return -1;
}

const char *report_format_name(enum report_format f)
{
	if ((int)f < 0 || f >= REPORT_FORMAT__COUNT)
		return "unknown";
	return format_names[f];
}
