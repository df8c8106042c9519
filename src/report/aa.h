/*
 * report/aa: the outputs of `kagari aa` over its survey (analyze/aa.h):
 * JSON (docs/aa.md), the table, and an HTML page with the A/A scatter of
 * each row. Ownership: appends to the caller's buffer.
 */
#ifndef KAGARI_REPORT_AA_H
#define KAGARI_REPORT_AA_H

#include "analyze/aa.h"
#include "base/sbuf.h"

void report_aa_json(struct sbuf *out, const struct aa_survey *st);
void report_aa_table(struct sbuf *out, const struct aa_survey *st);
void report_aa_html(struct sbuf *out, const struct aa_survey *st);

#endif
