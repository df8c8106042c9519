/*
 * report/escape: text made safe for HTML and XML, for every writer that
 * emits markup (the HTML report and its plots, JUnit XML, the history and
 * A/A pages). One escaper, so no page can escape less than another.
 */
#include "report/escape.h"

#include <stdint.h>
#include <string.h>

#include "report/json_emit.h"

void report_html_escape(struct sbuf *out, const char *s, int keep_lines)
{
	size_t n;

	if (!s)
		return;
	n = strlen(s);
	for (size_t i = 0; i < n;) {
		uint32_t cp;
		size_t k = json_utf8_next(s + i, n - i, &cp);

		switch (cp) {
		case '&':
			sbuf_adds(out, "&amp;");
			break;
		case '<':
			sbuf_adds(out, "&lt;");
			break;
		case '>':
			sbuf_adds(out, "&gt;");
			break;
		case '"':
			sbuf_adds(out, "&quot;");
			break;
		case '\'':
			sbuf_adds(out, "&#39;");
			break;
		case '\n':
		case '\t':
			sbuf_addch(out, keep_lines ? (int)cp : ' ');
			break;
		case '\r':
			if (!keep_lines)
				sbuf_addch(out, ' ');
			break;
		default:
			if (cp < 0x20 || (cp >= 0x7F && cp <= 0x9F) || cp == 0xFFFD)
				sbuf_adds(out, "\xEF\xBF\xBD");
			else
				sbuf_add(out, s + i, k);
		}
		i += k;
	}
}
