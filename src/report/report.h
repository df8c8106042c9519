/*
 * report: turn a struct run_result into one of the output formats.
 *
 * Call order:
 *
 *	enum report_format f;
 *	if (report_format_parse(name, &f) < 0) ... usage error ...
 *	struct report_options o;
 *	report_options_init(&o);
 *	o.color = ...; o.terminal_width = ...;
 *	if (report_render(result, f, &o, &out, &err) < 0) ... err says why ...
 *
 * Every writer reads the one result model and appends to `out` (never
 * resets it); nothing is printed. Metrics with MSTATUS_ABSENT are left out
 * everywhere; a value that was not measured is shown as absent, null, an
 * empty CSV cell or "unsupported (reason)", never as 0.
 *
 * Ownership: the caller owns `r`, `out` and `err`; the writers keep nothing.
 */
#ifndef KAGARI_REPORT_REPORT_H
#define KAGARI_REPORT_REPORT_H

#include "base/sbuf.h"
/* enum report_format, report_format_parse() and report_format_name(): the
   one table of the format names. */
#include "model/formats.h"
#include "model/result.h"

struct report_options {
	int color;	       /* ANSI colours in `table` (the caller decides:
				  tty, --no-color, NO_COLOR, ci) */
	int terminal_width;    /* columns for `table`; <= 0 means unlimited */
	int json_compact;      /* `json` on one line instead of 2-space indent */
	const char *time_unit; /* bench's table and hyperfine-markdown:
				  "second", "millisecond", "microsecond" or
				  "nanosecond"; NULL: per value (not owned) */
	const char *section;   /* `markdown`: the NAME of its
				  <!-- kagari:begin NAME --> markers
				  (report/section.h); not owned */
};

/* No colour, unlimited width, pretty JSON, section "kagari". */
void report_options_init(struct report_options *o);

/*
 * Render r in format f, appending to out. o may be NULL (defaults).
 * Returns 0, or -1 with a reason appended to err (e.g. an invalid
 * o->section for `markdown`); on failure `out` may hold a partial
 * rendering that the caller should discard.
 */
int report_render(const struct run_result *r, enum report_format f, const struct report_options *o,
		  struct sbuf *out, struct sbuf *err);

/* The writers behind report_render(), same contract (o is never NULL). */
int report_write_json(const struct run_result *r, const struct report_options *o, struct sbuf *out,
		      struct sbuf *err);
int report_write_table(const struct run_result *r, const struct report_options *o, struct sbuf *out,
		       struct sbuf *err);
int report_write_csv(const struct run_result *r, const struct report_options *o, struct sbuf *out,
		     struct sbuf *err);
int report_write_samples_csv(const struct run_result *r, const struct report_options *o,
			     struct sbuf *out, struct sbuf *err);
/* GitHub-flavoured Markdown: every comparison, budget, the environment. */
int report_write_markdown(const struct run_result *r, const struct report_options *o,
			  struct sbuf *out, struct sbuf *err);
/* A compact Markdown page for a pull-request comment. */
int report_write_github(const struct run_result *r, const struct report_options *o,
			struct sbuf *out, struct sbuf *err);
/* One self-contained HTML page with inline SVG plots, no scripts. */
int report_write_html(const struct run_result *r, const struct report_options *o, struct sbuf *out,
		      struct sbuf *err);

/* hyperfine's --export-json schema (write_hyperfine.c). */
int report_write_hyperfine(const struct run_result *r, const struct report_options *o,
			   struct sbuf *out, struct sbuf *err);
/* hyperfine's --export-csv and --export-markdown layouts
   (write_hyperfine.c). */
int report_write_hyperfine_csv(const struct run_result *r, const struct report_options *o,
			       struct sbuf *out, struct sbuf *err);
int report_write_hyperfine_markdown(const struct run_result *r, const struct report_options *o,
				    struct sbuf *out, struct sbuf *err);
/* The time unit of hyperfine's tables (-u NAME, else by the first mean):
   the factor from seconds and the label ("ms"). */
void report_hyperfine_unit(const char *time_unit, double first_mean_s, double *scale,
			   const char **label);
/* Bencher Metric Format JSON (write_bmf.c). */
int report_write_bmf(const struct run_result *r, const struct report_options *o, struct sbuf *out,
		     struct sbuf *err);
/* JUnit XML for CI test views (write_junit.c). */
int report_write_junit(const struct run_result *r, const struct report_options *o, struct sbuf *out,
		       struct sbuf *err);

/*
 * Helpers shared by the writers (and useful to the Markdown/HTML ones):
 *
 * (The unit and value texts with a command's work unit are in
 * report/describe.h.)
 * report_value_is_integral() says whether a value of metric m is printed
 * as an integer (rounded half away from zero): the metric is integral and
 * the value is finite and within the int64 range.
 */
int report_value_is_integral(enum metric_id m, double v);

/*
 * The profile rows a writer shows under a command (every format the same):
 * indexes into c->profile->changes of the functions that grew or shrank,
 * then (to fill up to `max`) the tested ones with the largest self time
 * change; with one side, the largest self times. Never too_few_samples.
 * Returns how many were put into idx (at most max).
 */
size_t report_profile_top(const struct command_result *c, size_t max, size_t *idx);
/* "12.345 ms" style text for a profile time in ns (NAN: "–"). */
void report_profile_ms(struct sbuf *out, double ns, int sign);
/*
 * A profile row's verdict as the human formats show it: "grew", "shrank",
 * "too few samples", and for the JSON's "same" "not significant" — the
 * test did not show a change, which a function that grew 16x in few
 * samples can still have; with_q adds its q value ("not significant,
 * q 0.31") where no q column stands beside it.
 */
void report_profile_verdict(struct sbuf *out, const struct profile_change *ch, int with_q);

/*
 * Markdown (the `markdown` and `github` writers): per profiled command, a
 * line naming it with the event, frequency and sampled runs, the reason
 * profiling stopped if it did, and a table of its report_profile_top()
 * functions (at most max): base → head self time, change, interval, q,
 * verdict (one side: the self time). only_regressions: only commands whose
 * result is "regression". Nothing when no command qualifies.
 */
void report_profile_markdown(struct sbuf *out, const struct run_result *r, int only_regressions,
			     size_t max);

#endif
