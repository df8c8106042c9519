/*
 * report/escape: HTML and XML escaping of user text (names, commands,
 * reasons, stderr, environment strings). Ownership: appends to the
 * caller's buffer; keeps nothing.
 */
#ifndef KAGARI_REPORT_ESCAPE_H
#define KAGARI_REPORT_ESCAPE_H

#include "base/sbuf.h"

/*
 * Append s with `&`, `<`, `>`, `"` and `'` as character references,
 * invalid UTF-8 and control characters as U+FFFD (tabs and line breaks
 * kept when keep_lines, else a space). Safe in element content and in
 * quoted attribute values. NULL appends nothing.
 */
void report_html_escape(struct sbuf *out, const char *s, int keep_lines);

#endif
