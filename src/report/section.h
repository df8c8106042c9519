/*
 * report/section: helpers shared by the `markdown`, `github` and `html`
 * writers — named sections of a Markdown page, escaping of user text, the
 * list of warnings. (The list of problems: report/problems.h.)
 *
 * A Markdown report is wrapped in two marker lines,
 *
 *	<!-- kagari:begin NAME -->
 *	...
 *	<!-- kagari:end NAME -->
 *
 * so that `--section NAME` can replace its own part of an existing page
 * (a README, $GITHUB_STEP_SUMMARY, a wiki page) and leave the rest alone.
 *
 * Call order for `--section NAME --output FILE`:
 *
 *	if (!report_section_name_valid(name)) ... usage error ...
 *	o.section = name;
 *	report_render(r, REPORT_MARKDOWN, &o, &rendered, &err);
 *	sbuf_read_file(&page, FILE, ...);      // empty when FILE is missing
 *	if (report_section_update(page.buf, page.len, name, rendered.buf,
 *				  &updated, &err) < 0) ... err says why ...
 *	write `updated` to FILE atomically (temporary file + rename)
 *
 * Ownership: callers own every buffer; nothing here keeps memory.
 */
#ifndef KAGARI_REPORT_SECTION_H
#define KAGARI_REPORT_SECTION_H

#include <stddef.h>

#include "base/sbuf.h"
#include "model/result.h"

/* The section name used when none is given. */
#define REPORT_SECTION_DEFAULT "kagari"

/*
 * A section name is 1..64 characters of [A-Za-z0-9_.-] starting with a
 * letter or digit (so that it can never end the HTML comment it sits in).
 */
int report_section_name_valid(const char *name);

/* Append "<!-- kagari:begin NAME -->" / "<!-- kagari:end NAME -->". */
void report_section_begin(struct sbuf *out, const char *name);
void report_section_end(struct sbuf *out, const char *name);

/*
 * Put `new_section` (a rendered Markdown report whose markers name `name`)
 * into the page existing[0..len), appending the result to `out`:
 *
 *  - when the page holds the section, the bytes from the start of its
 *    begin marker to the end of its end marker are replaced by
 *    new_section without its final line break; every byte before and
 *    after (the end marker's own line break included) is kept as it was.
 *    When the page's section used CRLF line breaks, the new section's
 *    LF line breaks become CRLF too;
 *  - when the page holds no marker of that name, new_section is appended
 *    after the page, separated by a blank line (CRLF when the page's
 *    first line break is CRLF); an empty page becomes new_section.
 *
 * Markers of other names are ignored. Returns 0, or -1 with a reason in
 * err (and `out` untouched) when the name is invalid, when new_section
 * does not hold exactly one begin and one end marker of that name in
 * order, or when the page holds a begin marker without its end marker
 * (or the reverse), an end before its begin, or a marker twice.
 */
int report_section_update(const char *existing, size_t len, const char *name,
			  const char *new_section, struct sbuf *out, struct sbuf *err);

/*
 * Append user text for a Markdown table cell or a line of text: `\`, `|`,
 * `` ` ``, `*`, `_`, `[`, `]`, `~`, `#` and `!` get a backslash; `<`, `>`,
 * `&` and `"` become entities (so HTML in a name is shown, never
 * interpreted); line breaks and tabs become a space, other control
 * characters `?`, invalid UTF-8 U+FFFD. `@name`, `#123` and `GH-123` get a
 * zero-width joiner after the sign so that GitHub neither mentions anyone
 * nor links an issue. NULL appends nothing. The one Markdown escaper: the
 * markdown and github formats and the CI step summary all use it.
 */
void report_md_escape(struct sbuf *out, const char *s);

/* A Markdown table cell: " TEXT |", TEXT through report_md_escape(). The
   one cell builder of the markdown and github writers. */
void report_md_cell(struct sbuf *out, const char *s);

/*
 * A command's label in a per-command Markdown part: `heading` first when
 * *shown is 0 (then *shown becomes 1), then `bullet` ("- " or ""), then
 * "**BENCH / CMD**" with both names escaped. The one label of the parts
 * that list commands (system calls, counted functions, profiles).
 */
void report_md_command_label(struct sbuf *out, int *shown, const char *heading, const char *bullet,
			     const char *bench, const char *command);

/*
 * Writes one command's line of a report_md_command_list() into `text`
 * (Markdown, already escaped) and the list's heading into *heading;
 * returns 0 when the command has no line.
 */
typedef int (*report_md_line_fn)(struct sbuf *text, const char **heading,
				 const struct command_result *cr, void *ctx);

/*
 * A Markdown list with one "- **BENCH / CMD**: TEXT" line per command of
 * r that line() writes, in the order of the run, under the heading the
 * first line names, with a blank line after; nothing when no command has
 * a line.
 */
void report_md_command_list(struct sbuf *out, const struct run_result *r, report_md_line_fn line,
			    void *ctx);

/*
 * Append text as a fenced code block (```), the fence longer than any run
 * of backticks inside, control characters but line breaks and tabs shown
 * as `?`. The text may have any content: a fence shows it verbatim.
 */
void report_md_code_block(struct sbuf *out, const char *s);

/*
 * 1 when warning w is the stall filter's about a comparison of r that
 * drops rounds ("BENCH/CMD METRIC: stall filter dropped ..."): a report
 * whose comparison rows say "rounds dropped: ..." leaves it out of its
 * list of warnings, so that it is said once.
 */
int report_warning_is_row_stall(const struct run_result *r, const char *w);

/*
 * r's warnings as a Markdown list under `heading` ("### Warnings"), the
 * stall filter's that its comparison rows already say left out; nothing
 * when none is left. The markdown and github writers' one list.
 */
void report_md_warnings(struct sbuf *out, const struct run_result *r, const char *heading);

#endif
