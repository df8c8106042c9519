/*
 * report/html_page: the one head of every HTML page kagari writes (the
 * report, `kagari aa`, `kagari history`): the doctype, the character set,
 * the one Content-Security-Policy — nothing may be loaded, no script may
 * run, only the page's own inline styles apply — the viewport, the
 * generator and the escaped title, then the page's own stylesheet with
 * the plots' (report/svg.h) after it.
 */
#ifndef KAGARI_REPORT_HTML_PAGE_H
#define KAGARI_REPORT_HTML_PAGE_H

#include "base/sbuf.h"

/* The policy every page carries, as the meta element's content. */
extern const char HTML_PAGE_CSP[];

/* Everything up to and including "<body>\n"; title is plain text. */
void html_page_open(struct sbuf *out, const char *title, const char *css);
/* "</body>\n</html>\n". */
void html_page_close(struct sbuf *out);

#endif
