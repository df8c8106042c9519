/*
 * report/bisect: `kagari bisect`'s outputs over what its search found
 * (struct bisect_result, analyze/bisect.h): the table and the JSON of
 * docs/bisect.md. Ownership: appends to the caller's buffer.
 */
#ifndef KAGARI_REPORT_BISECT_H
#define KAGARI_REPORT_BISECT_H

#include "analyze/bisect.h"
#include "base/sbuf.h"

/* Every tested commit in test order, then the first bad commit, if named. */
void report_bisect_table(struct sbuf *out, const struct bisect_result *r);
void report_bisect_json(struct sbuf *out, const struct bisect_result *r);

#endif
