/* report/write_bisect: `kagari bisect`'s table and JSON (see bisect.h). */
#include "report/bisect.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "analyze/format.h"
#include "report/json_emit.h"

/*
 * A commit's subject as the table shows it: control characters (C0, DEL
 * and UTF-8's C1) as '?', so a subject cannot move the cursor or colour
 * the terminal; at most 50 characters, cut with "...".
 */
static char *clean_subject(const char *s)
{
	size_t n = s ? strlen(s) : 0;
	struct sbuf out = SBUF_INIT;
	size_t chars = 0;
	for (size_t i = 0; i < n; i++) {
		unsigned char ch = (unsigned char)s[i];
		if ((ch & 0xC0) != 0x80 && ++chars > 50) {
			sbuf_adds(&out, "...");
			break;
		}
		if (ch == 0xC2 && i + 1 < n && (unsigned char)s[i + 1] >= 0x80 &&
		    (unsigned char)s[i + 1] <= 0x9F) {
			sbuf_addch(&out, '?');
			i++;
		} else {
			sbuf_addch(&out, ch < 0x20 || ch == 0x7F ? '?' : ch);
		}
	}
	return sbuf_detach(&out);
}

/* Characters of a UTF-8 string (for the subject column). */
static size_t utf8_chars(const char *s)
{
	size_t n = 0;
	for (; *s; s++)
		n += ((unsigned char)*s & 0xC0) != 0x80;
	return n;
}

/*
 * "  SHA  OUTCOME  SUBJECT  CHANGE [LOW, HIGH] WHAT  (REASON)": every
 * tested commit with its subject (padded to width characters), a bad one
 * with its regression and a good one with the change it was judged good
 * on.
 */
static void table_commit_line(struct sbuf *out, const struct bisect_commit *c, size_t width)
{
	char *subject = clean_subject(c->subject);
	sbuf_addf(out, "  %.12s  %-4s  %s", c->sha, bisect_outcome_name(c->out), subject);
	if (c->have_change || c->reason || c->measured > 1)
		sbuf_addchars(out, ' ', width - utf8_chars(subject));
	free(subject);
	if (c->have_change) {
		sbuf_adds(out, "  ");
		units_format_change(out, c->change, c->low, c->high);
		sbuf_addf(out, " %s", c->what);
	}
	if (c->reason)
		sbuf_addf(out, "  (%s)", c->reason);
	if (c->measured > 1)
		sbuf_addf(out, "  [measured %d times, the last with %d runs a side]", c->measured,
			  c->runs);
	sbuf_addch(out, '\n');
}

void report_bisect_table(struct sbuf *out, const struct bisect_result *r)
{
	const struct bisect_commit *fb = bisect_first_bad(r);
	/* Commits, not measurements: a commit measured again is one commit
	   compared (its line says how often it was measured). */
	sbuf_addf(out, "bisect %.12s (good) .. %.12s (bad): %zu commit%s, %zu compared", r->good,
		  r->bad, r->n, r->n == 1 ? "" : "s", r->nr_order);
	if (r->steps > r->nr_order)
		sbuf_addf(out, " in %zu measurements", r->steps);
	sbuf_addch(out, '\n');
	size_t width = 0;
	for (size_t k = 0; k < r->nr_order; k++) {
		char *subject = clean_subject(r->path[r->order[k]].subject);
		size_t w = utf8_chars(subject);
		width = w > width ? w : width;
		free(subject);
	}
	for (size_t k = 0; k < r->nr_order; k++)
		table_commit_line(out, &r->path[r->order[k]], width);
	if (!fb)
		return;
	char *subject = clean_subject(fb->subject);
	sbuf_addf(out, "first bad commit: %s %s\n", fb->sha, subject);
	free(subject);
	if (fb->have_change) {
		sbuf_addf(out, "  %s ", fb->what);
		units_format_percent(out, fb->change);
		sbuf_adds(out, " against good, interval [");
		units_format_percent(out, fb->low);
		sbuf_adds(out, ", ");
		units_format_percent(out, fb->high);
		sbuf_adds(out, "]\n");
	}
}

/* One tested commit of the "tested" array. */
static void json_tested(struct json_emit *j, const struct bisect_commit *c)
{
	json_emit_begin_object_inline(j);
	json_emit_kv_string(j, "sha", c->sha);
	json_emit_kv_string(j, "subject", c->subject ? c->subject : "");
	json_emit_kv_string(j, "outcome", bisect_outcome_name(c->out));
	json_emit_kv_int(j, "measurements", c->measured);
	json_emit_key(j, "alpha");
	json_emit_begin_array(j);
	for (int look = 0; look < c->measured; look++)
		if (isfinite(c->alpha[look]))
			json_emit_double(j, c->alpha[look]);
		else
			json_emit_null(j);
	json_emit_end_array(j);
	if (c->have_change) {
		json_emit_kv_double(j, "change_percent", c->change);
		json_emit_kv_double(j, "ci_low_percent", c->low);
		json_emit_kv_double(j, "ci_high_percent", c->high);
		json_emit_kv_string(j, "what", c->what);
	}
	if (c->reason)
		json_emit_kv_string(j, "reason", c->reason);
	json_emit_end_object(j);
}

void report_bisect_json(struct sbuf *out, const struct bisect_result *r)
{
	const struct bisect_commit *fb = bisect_first_bad(r);
	struct json_emit j;
	json_emit_init(&j, out, 1);
	json_emit_begin_object(&j);
	json_emit_kv_string(&j, "good", r->good);
	json_emit_kv_string(&j, "bad", r->bad);
	json_emit_kv_uint(&j, "seed", r->seed);
	json_emit_kv_int(&j, "commits", (int64_t)r->n);
	json_emit_key(&j, "first_bad");
	if (fb)
		json_emit_string(&j, fb->sha);
	else
		json_emit_null(&j);
	json_emit_key(&j, "change_percent");
	if (fb && fb->have_change) {
		json_emit_double(&j, fb->change);
		json_emit_kv_double(&j, "ci_low_percent", fb->low);
		json_emit_kv_double(&j, "ci_high_percent", fb->high);
		json_emit_kv_string(&j, "what", fb->what);
	} else {
		json_emit_null(&j);
	}
	json_emit_key(&j, "tested");
	json_emit_begin_array(&j);
	for (size_t k = 0; k < r->nr_order; k++)
		json_tested(&j, &r->path[r->order[k]]);
	json_emit_end_array(&j);
	json_emit_end_object(&j);
	json_emit_finish(&j);
}
