/*
 * report/section: what several writers share (section.h): Markdown
 * sections of a page and their markers, the Markdown escaper, cells and
 * code blocks, the list of warnings.
 */
#include "report/section.h"

#include <string.h>

#include "report/json_emit.h"

#define SECTION_NAME_MAX 64

int report_section_name_valid(const char *name)
{
	size_t n;

	if (!name || !*name)
		return 0;
	n = strlen(name);
	if (n > SECTION_NAME_MAX)
		return 0;
	for (size_t i = 0; i < n; i++) {
		char c = name[i];
		int alnum =
		    (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9');
		if (!alnum && (i == 0 || (c != '_' && c != '.' && c != '-')))
			return 0;
	}
	return 1;
}

void report_section_begin(struct sbuf *out, const char *name)
{
	sbuf_addf(out, "<!-- kagari:begin %s -->", name);
}

void report_section_end(struct sbuf *out, const char *name)
{
	sbuf_addf(out, "<!-- kagari:end %s -->", name);
}

/* Start of the first occurrence of needle in hay[from..len), or -1. */
static long find_from(const char *hay, size_t len, size_t from, const char *needle)
{
	size_t n = strlen(needle);

	if (!hay || from >= len)
		return -1;
	const char *p = memmem(hay + from, len - from, needle, n);
	return p ? (long)(p - hay) : -1;
}

/* Occurrences of needle in hay[0..len) (overlaps impossible for markers). */
static size_t count_of(const char *hay, size_t len, const char *needle)
{
	size_t count = 0, n = strlen(needle);
	long at = 0;

	while ((at = find_from(hay, len, (size_t)at, needle)) >= 0) {
		count++;
		at += (long)n;
	}
	return count;
}

/*
 * Check that text[0..len) holds the begin and end markers the right way:
 * exactly one of each in order (*present = 1, *b and *e their offsets),
 * or neither (*present = 0, only when allow_absent).
 */
static int check_markers(const char *text, size_t len, const char *begin, const char *end,
			 const char *what, const char *name, int allow_absent, int *present,
			 long *b, long *e, struct sbuf *err)
{
	size_t nb = count_of(text, len, begin), ne = count_of(text, len, end);

	*present = 0;
	if (!nb && !ne && allow_absent)
		return 0;
	if (nb == 1 && ne == 1) {
		*b = find_from(text, len, 0, begin);
		*e = find_from(text, len, 0, end);
		if (*e > *b) {
			*present = 1;
			return 0;
		}
		sbuf_addf(err,
			  "%s has the end marker of section '%s' before its "
			  "begin marker",
			  what, name);
		return -1;
	}
	if (nb > 1 || ne > 1)
		sbuf_addf(err,
			  "%s has section '%s' more than once (%zu begin and "
			  "%zu end markers)",
			  what, name, nb, ne);
	else if (!ne)
		sbuf_addf(err,
			  "%s has a begin marker of section '%s' without its "
			  "end marker",
			  what, name);
	else
		sbuf_addf(err,
			  "%s has an end marker of section '%s' without its "
			  "begin marker",
			  what, name);
	return -1;
}

/* Append s[0..n), turning lone LF into CRLF when crlf. */
static void add_eol(struct sbuf *out, const char *s, size_t n, int crlf)
{
	for (size_t i = 0; i < n; i++) {
		if (crlf && s[i] == '\n' && (i == 0 || s[i - 1] != '\r'))
			sbuf_addch(out, '\r');
		sbuf_addch(out, s[i]);
	}
}

int report_section_update(const char *existing, size_t len, const char *name,
			  const char *new_section, struct sbuf *out, struct sbuf *err)
{
	struct sbuf begin = SBUF_INIT, end = SBUF_INIT;
	size_t nlen = new_section ? strlen(new_section) : 0;
	long b = 0, e = 0, nb = 0, ne = 0;
	int present = 0, ret = -1;

	if (!report_section_name_valid(name)) {
		sbuf_addf(err,
			  "section name '%s' is invalid (use letters, digits, "
			  "'_', '.' and '-')",
			  name ? name : "");
		return -1;
	}
	report_section_begin(&begin, name);
	report_section_end(&end, name);
	if (check_markers(new_section ? new_section : "", nlen, begin.buf, end.buf,
			  "the new report", name, 0, &present, &nb, &ne, err) < 0)
		goto out;
	if (!existing) {
		existing = "";
		len = 0;
	}
	if (check_markers(existing, len, begin.buf, end.buf, "the page", name, 1, &present, &b, &e,
			  err) < 0)
		goto out;

	/* The new section without its final line break. */
	while (nlen && (new_section[nlen - 1] == '\n' || new_section[nlen - 1] == '\r'))
		nlen--;
	if (present) {
		size_t after = (size_t)e + end.len;
		size_t mb = (size_t)b + begin.len;
		int crlf = mb + 1 < len && existing[mb] == '\r' && existing[mb + 1] == '\n';

		sbuf_add(out, existing, (size_t)b);
		add_eol(out, new_section, nlen, crlf);
		sbuf_add(out, existing + after, len - after);
	} else {
		const char *nl = len ? memchr(existing, '\n', len) : NULL;
		int crlf = nl && nl > existing && nl[-1] == '\r';
		const char *eol = crlf ? "\r\n" : "\n";

		sbuf_add(out, existing, len);
		if (len) {
			/* end the last line, then one blank line */
			if (existing[len - 1] != '\n')
				sbuf_adds(out, eol);
			if (!(len >= 2 && existing[len - 1] == '\n' &&
			      (existing[len - 2] == '\n' ||
			       (len >= 3 && existing[len - 2] == '\r' &&
				existing[len - 3] == '\n'))))
				sbuf_adds(out, eol);
		}
		add_eol(out, new_section, nlen, crlf);
		sbuf_adds(out, eol);
	}
	ret = 0;
out:
	sbuf_release(&begin);
	sbuf_release(&end);
	return ret;
}

/*
 * GitHub turns `@name` into a mention (a notification to that person or
 * team) and `#123`, `GH-123` into a link to an issue (a cross-reference
 * shown in that issue) wherever they appear in text, backslash-escaped or
 * not: the markup is added after Markdown is rendered, on text outside
 * code and links. A benchmark named "@octocat #1" must do neither.
 * A zero-width joiner (U+200D) goes between the sign and what follows:
 * GitHub's patterns no longer match, the text reads and renders the same,
 * and, unlike a zero-width space, it is no line-break opportunity inside
 * a table cell. A code span would be inert too but changes how every such
 * name looks and nests badly inside the escaped text.
 */
#define ZWJ "\xE2\x80\x8D"

static int ascii_alnum(char c)
{
	return (c >= '0' && c <= '9') || (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z');
}

void report_md_escape(struct sbuf *out, const char *s)
{
	size_t n;

	if (!s)
		return;
	n = strlen(s);
	for (size_t i = 0; i < n;) {
		uint32_t cp;
		size_t k = json_utf8_next(s + i, n - i, &cp);
		char next = i + k < n ? s[i + k] : '\0';

		if (cp == '@' && ascii_alnum(next)) {
			sbuf_adds(out, "@" ZWJ);
			i += k;
			continue;
		}
		if (cp == '#' && next >= '0' && next <= '9') {
			sbuf_adds(out, "\\#" ZWJ);
			i += k;
			continue;
		}
		if (cp == '-' && i >= 2 && (s[i - 2] == 'G' || s[i - 2] == 'g') &&
		    (s[i - 1] == 'H' || s[i - 1] == 'h') && next >= '0' && next <= '9' &&
		    (i == 2 || !ascii_alnum(s[i - 3]))) {
			sbuf_adds(out, "-" ZWJ);
			i += k;
			continue;
		}

		switch (cp) {
		case '\\':
		case '|':
		case '`':
		case '*':
		case '_':
		case '[':
		case ']':
		case '~':
		case '#':
		case '!':
			sbuf_addch(out, '\\');
			sbuf_addch(out, (int)cp);
			break;
		case '<':
			sbuf_adds(out, "&lt;");
			break;
		case '>':
			sbuf_adds(out, "&gt;");
			break;
		case '&':
			sbuf_adds(out, "&amp;");
			break;
		case '"':
			sbuf_adds(out, "&quot;");
			break;
		case '\n':
		case '\r':
		case '\t':
			sbuf_addch(out, ' ');
			break;
		default:
			if (cp < 0x20 || (cp >= 0x7F && cp <= 0x9F))
				sbuf_addch(out, '?');
			else if (cp == 0xFFFD)
				sbuf_adds(out, "\xEF\xBF\xBD");
			else
				sbuf_add(out, s + i, k);
		}
		i += k;
	}
}

void report_md_command_label(struct sbuf *out, int *shown, const char *heading, const char *bullet,
			     const char *bench, const char *command)
{
	if (!*shown) {
		sbuf_adds(out, heading);
		*shown = 1;
	}
	sbuf_adds(out, bullet);
	sbuf_adds(out, "**");
	report_md_escape(out, bench);
	sbuf_adds(out, " / ");
	report_md_escape(out, command);
	sbuf_adds(out, "**");
}

void report_md_command_list(struct sbuf *out, const struct run_result *r, report_md_line_fn line,
			    void *ctx)
{
	struct sbuf text = SBUF_INIT;
	int shown = 0;
	for (size_t i = 0; i < r->nr_suites; i++)
		for (size_t b = 0; b < r->suites[i].nr_benches; b++) {
			const struct bench_result *br = &r->suites[i].benches[b];
			for (size_t c = 0; c < br->nr_commands; c++) {
				const struct command_result *cr = &br->commands[c];
				const char *heading = "";
				sbuf_reset(&text);
				if (!line(&text, &heading, cr, ctx))
					continue;
				report_md_command_label(out, &shown, heading, "- ", br->name,
							cr->name);
				sbuf_adds(out, ": ");
				sbuf_add(out, text.buf, text.len);
				sbuf_addch(out, '\n');
			}
		}
	if (shown)
		sbuf_addch(out, '\n');
	sbuf_release(&text);
}

void report_md_cell(struct sbuf *out, const char *s)
{
	sbuf_addch(out, ' ');
	report_md_escape(out, s);
	sbuf_adds(out, " |");
}

void report_md_code_block(struct sbuf *out, const char *s)
{
	size_t n = s ? strlen(s) : 0, run = 0, longest = 0, fence;

	for (size_t i = 0; i < n; i++) {
		run = s[i] == '`' ? run + 1 : 0;
		if (run > longest)
			longest = run;
	}
	fence = longest >= 3 ? longest + 1 : 3;
	sbuf_addchars(out, '`', fence);
	sbuf_addch(out, '\n');
	for (size_t i = 0; i < n;) {
		uint32_t cp;
		size_t k = json_utf8_next(s + i, n - i, &cp);

		if (cp == '\r' && i + 1 < n && s[i + 1] == '\n')
			; /* CRLF -> LF */
		else if (cp == '\n' || cp == '\t')
			sbuf_addch(out, (int)cp);
		else if (cp < 0x20 || (cp >= 0x7F && cp <= 0x9F))
			sbuf_addch(out, '?');
		else if (cp == 0xFFFD)
			sbuf_adds(out, "\xEF\xBF\xBD");
		else
			sbuf_add(out, s + i, k);
		i += k;
	}
	if (n && s[n - 1] != '\n')
		sbuf_addch(out, '\n');
	sbuf_addchars(out, '`', fence);
	sbuf_addch(out, '\n');
}

int report_warning_is_row_stall(const struct run_result *r, const char *w)
{
	static const char tag[] = ": stall filter dropped ";
	const char *at = strstr(w, tag);
	if (!at)
		return 0;
	size_t n = (size_t)(at - w);
	struct sbuf label = SBUF_INIT;
	int found = 0;
	for (size_t i = 0; i < r->nr_suites && !found; i++)
		for (size_t b = 0; b < r->suites[i].nr_benches && !found; b++) {
			const struct bench_result *br = &r->suites[i].benches[b];
			for (size_t c = 0; c < br->nr_commands && !found; c++)
				for (int m = 0; m < METRIC__COUNT && !found; m++) {
					const struct comparison *cp =
					    &br->commands[c].comparison[m];
					if (!cp->present || !cp->nr_dropped_rounds)
						continue;
					sbuf_reset(&label);
					sbuf_addf(&label, "%s/%s %s", br->name ? br->name : "",
						  br->commands[c].name ? br->commands[c].name : "",
						  metric_get(m)->name);
					found = label.len == n && !memcmp(label.buf, w, n);
				}
		}
	sbuf_release(&label);
	return found;
}

void report_md_warnings(struct sbuf *out, const struct run_result *r, const char *heading)
{
	size_t listed = 0;
	for (size_t i = 0; i < r->warnings.nr; i++) {
		if (report_warning_is_row_stall(r, r->warnings.v[i]))
			continue;
		if (!listed++)
			sbuf_addf(out, "%s\n\n", heading);
		sbuf_adds(out, "- ");
		report_md_escape(out, r->warnings.v[i]);
		sbuf_addch(out, '\n');
	}
	if (listed)
		sbuf_addch(out, '\n');
}
