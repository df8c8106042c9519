/* report/html_page: the one page head (see html_page.h). */
#include "report/html_page.h"

#include "report/escape.h"
#include "report/svg.h"

const char HTML_PAGE_CSP[] = "default-src 'none'; style-src 'unsafe-inline'";

void html_page_open(struct sbuf *out, const char *title, const char *css)
{
	sbuf_adds(out, "<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n"
		       "<meta charset=\"utf-8\">\n"
		       "<meta http-equiv=\"Content-Security-Policy\" "
		       "content=\"");
	sbuf_adds(out, HTML_PAGE_CSP);
	sbuf_adds(out, "\">\n<meta name=\"viewport\" content=\"width=device-width, "
		       "initial-scale=1\">\n"
		       "<meta name=\"generator\" content=\"kagari " KAGARI_VERSION "\">\n"
		       "<title>");
	report_html_escape(out, title, 0);
	sbuf_adds(out, "</title>\n<style>\n");
	if (css)
		sbuf_adds(out, css);
	sbuf_adds(out, SVG_STYLESHEET);
	sbuf_adds(out, "</style>\n</head>\n<body>\n");
}

void html_page_close(struct sbuf *out)
{
	sbuf_adds(out, "</body>\n</html>\n");
}
