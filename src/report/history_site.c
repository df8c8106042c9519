/*
 * report/history_site: the trend site's page and its plots (history_site.h).
 */
#include "report/html_page.h"
#include "report/history_site.h"

#include <dirent.h>
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "analyze/format.h"
#include "base/cmp.h"
#include "base/sbuf.h"
#include "base/xalloc.h"
#include "report/output.h"
#include "report/svg.h"

/* The trend plot: W x H, the plot area [L, R] x [T, B]. Small multiples:
   two plots side by side on a laptop's screen, their text still legible. */
#define W 560.0
#define H 236.0
#define L 70.0
#define R 548.0
#define T 30.0
#define B 190.0
/* Commit labels under the axis, at most. */
#define X_LABELS 4

static const char site_css[] =
    "body{font:14px/1.45 system-ui,-apple-system,'Segoe UI',sans-serif;margin:0;"
    "color:#222;background:#f7f7f8}\n"
    "header{background:#fff;border-bottom:1px solid #ddd;padding:14px 24px}\n"
    "main{padding:0 24px 40px;max-width:1320px}\n"
    "h1{font-size:21px;margin:0 0 4px}\n"
    "h2{font-size:18px;margin:30px 0 8px;padding-bottom:3px;border-bottom:1px solid #ddd}\n"
    "h3{font-size:15px;margin:14px 0 4px}\n"
    "h4{font-size:14px;margin:12px 0 2px}\n"
    "table{border-collapse:collapse;background:#fff;margin:6px 0 12px}\n"
    "th,td{border:1px solid #e3e3e3;padding:3px 8px;text-align:left;vertical-align:top}\n"
    "th{background:#f3f3f5;font-weight:600}\n"
    "td.n{text-align:right;font-variant-numeric:tabular-nums;white-space:nowrap}\n"
    "td code{white-space:nowrap}\n"
    ".meta{color:#555;margin:2px 0}\n"
    ".dim{color:#666;font-weight:normal}\n"
    ".badge{display:inline-block;padding:0 7px;border-radius:9px;font-size:12px;"
    "font-weight:600;background:#eee;color:#444;white-space:nowrap}\n"
    ".k-bad{background:#fde2e1;color:#a4161a}\n"
    ".k-good{background:#e1f3e5;color:#1b6b2a}\n"
    ".k-warn{background:#fff1c2;color:#6f5200}\n"
    ".k-info{background:#e4ecf7;color:#28507f}\n"
    ".series{background:#fff;border:1px solid #e3e3e3;border-radius:4px;"
    "padding:6px 12px 4px;margin:8px 0 14px}\n"
    ".series p{margin:3px 0}\n"
    ".series ul{margin:3px 0 6px;padding-left:20px}\n"
    "code{font-family:ui-monospace,'DejaVu Sans Mono',monospace;font-size:12.5px;"
    "background:#f1f1f3;padding:1px 4px;border-radius:3px;overflow-wrap:anywhere}\n"
    "a{color:#1f5fa8}\n"
    "svg.trend{width:100%;max-width:760px;height:auto;display:block;background:#fff}\n"
    ".grid{display:grid;grid-template-columns:repeat(auto-fill,minmax(430px,1fr));"
    "gap:0 14px;align-items:start}\n"
    "details.others{margin:24px 0}\n"
    "details.others>summary{font-size:17px;font-weight:600;cursor:pointer;padding:6px 0}\n"
    ".gate{font-size:11px;color:#a4161a;font-weight:600}\n"
    "svg.trend text{font:11px system-ui,sans-serif;fill:#444}\n"
    "svg.trend text.e{text-anchor:end}\n"
    "svg.trend text.m{text-anchor:middle}\n"
    "svg.trend text.c{font:10.5px ui-monospace,monospace;text-anchor:middle}\n"
    "svg.trend text.st{fill:#c62828;font-weight:600}\n"
    "svg.trend .ax{stroke:#999;stroke-width:1}\n"
    "svg.trend .gr{stroke:#eee;stroke-width:1}\n"
    "svg.trend .ln{stroke:#e07b24;stroke-width:1.3;fill:none}\n"
    "svg.trend .iv{stroke:#e07b24;stroke-width:2;stroke-opacity:.45}\n"
    "svg.trend .pt{fill:#e07b24;stroke:#fff;stroke-width:.8}\n"
    "svg.trend .off{fill:#fff;stroke:#777;stroke-width:1.3}\n"
    "svg.trend .lv{stroke:#7b3fa0;stroke-width:1.4;stroke-dasharray:6 4}\n"
    "svg.trend .step{stroke:#c62828;stroke-width:1.4;stroke-dasharray:4 3}\n"
    "svg.trend .sep{stroke:#999;stroke-width:1;stroke-dasharray:2 3}\n"
    "svg.trend a:hover .pt{fill:#a04a00}\n"
    "svg.trend path.iv{fill:none}\n"
    "svg.trend .hb{fill:#000;fill-opacity:0}\n"
    "svg.trend .hb:hover{fill-opacity:.06}\n"
    "svg.trend .vr{stroke-width:5;stroke-opacity:.5}\n"
    "svg.trend .mk{stroke:#fff;stroke-width:.8}\n"
    "svg.trend .v-regression{stroke:#c62828;fill:#c62828}\n"
    "svg.trend .v-improved{stroke:#2e7d32;fill:#2e7d32}\n"
    "svg.trend .v-accepted{stroke:#b58100;fill:#b58100}\n";

static void esc(struct sbuf *out, const char *s)
{
	report_html_escape(out, s, 0);
}

/* A commit's first 10 characters, escaped as every field of a run file
   is (a history branch is anyone's: a run file's head_sha can hold markup). */
static void short_sha(struct sbuf *out, const char *sha)
{
	if (!sha)
		return;
	char *s = xstrndup(sha, strnlen(sha, 10));
	esc(out, s);
	free(s);
}

/* A coordinate: one decimal. */
static void num(struct sbuf *out, double v)
{
	if (!isfinite(v))
		v = 0;
	v = round(v * 10) / 10;
	sbuf_addf(out, "%.1f", v == 0 ? 0.0 : v);
}

static void line(struct sbuf *out, double x1, double y1, double x2, double y2, const char *cls)
{
	sbuf_adds(out, "<line x1=\"");
	num(out, x1);
	sbuf_adds(out, "\" y1=\"");
	num(out, y1);
	sbuf_adds(out, "\" x2=\"");
	num(out, x2);
	sbuf_adds(out, "\" y2=\"");
	num(out, y2);
	sbuf_addf(out, "\" class=\"%s\"/>\n", cls);
}

static void text(struct sbuf *out, double x, double y, const char *cls, const char *s)
{
	sbuf_adds(out, "<text x=\"");
	num(out, x);
	sbuf_adds(out, "\" y=\"");
	num(out, y);
	sbuf_addf(out, "\" class=\"%s\">", cls);
	esc(out, s);
	sbuf_adds(out, "</text>\n");
}

/* An opening <a> to url (nothing without one); returns whether it opened. */
static int link_open(struct sbuf *out, const char *url)
{
	if (!url)
		return 0;
	sbuf_adds(out, "<a href=\"");
	esc(out, url);
	sbuf_adds(out, "\">");
	return 1;
}

/* A point's commit: its short sha in <code>, linked to its page when it has
   one, then its subject. The one way steps, verdicts and the overview name
   a commit. */
static void commit_ref(struct sbuf *out, const struct history_site_point *p)
{
	int open = link_open(out, p->url);
	sbuf_adds(out, "<code>");
	short_sha(out, p->sha);
	sbuf_adds(out, open ? "</code></a>" : "</code>");
	if (p->subject) {
		sbuf_adds(out, " ");
		esc(out, p->subject);
	}
}

/* A step's change: with its interval when a paired comparison measured
   it, the bare percentage when the series' step detection found it. */
static void step_change(struct sbuf *t, const struct history_site_step *st)
{
	if (st->paired)
		units_format_change(t, st->change_percent, st->ci_low_percent, st->ci_high_percent);
	else
		units_format_percent(t, st->change_percent);
}

/* The value range of the plot, padded, never empty. */
struct scale {
	double y0, y1;
	size_t n;
};

static double sx(const struct scale *s, double i)
{
	return L + (i + 0.5) * (R - L) / (double)s->n;
}

static double sy(const struct scale *s, double v)
{
	return B - (v - s->y0) / (s->y1 - s->y0) * (B - T);
}

/*
 * The span a verdict mark covers in the metric's units: the paired
 * change's interval about the base it implies (the point's value over 1 +
 * the change). 0 when the point has no mark or no finite interval.
 */
static int mark_span(const struct history_site_point *p, double *lo, double *hi)
{
	if (!p->verdict || !isfinite(p->change_percent) || !isfinite(p->ci_low_percent) ||
	    !isfinite(p->ci_high_percent) || p->change_percent <= -100)
		return 0;
	double base = p->median / (1 + p->change_percent / 100);
	*lo = base * (1 + p->ci_low_percent / 100);
	*hi = base * (1 + p->ci_high_percent / 100);
	if (*lo > *hi) {
		double t = *lo;
		*lo = *hi;
		*hi = t;
	}
	return isfinite(*lo) && isfinite(*hi);
}

static void scale_of(struct scale *s, const struct history_site_series *v)
{
	s->n = v->nr;
	s->y0 = INFINITY;
	s->y1 = -INFINITY;
	for (size_t i = 0; i < v->nr; i++) {
		const struct history_site_point *p = &v->pts[i];
		s->y0 = fmin(s->y0, isfinite(p->low) ? fmin(p->low, p->median) : p->median);
		s->y1 = fmax(s->y1, isfinite(p->high) ? fmax(p->high, p->median) : p->median);
		double lo, hi;
		if (mark_span(p, &lo, &hi)) {
			s->y0 = fmin(s->y0, lo);
			s->y1 = fmax(s->y1, hi);
		}
	}
	double pad = (s->y1 - s->y0) * 0.08;
	if (!(pad > 0))
		pad = fabs(s->y0) > 0 ? fabs(s->y0) * 0.05 : 1;
	s->y0 -= pad;
	s->y1 += pad;
}

/* 1, 2 or 5 times a power of ten, about range / 4. */
static double nice_step(double range)
{
	double raw = range / 4, p = pow(10, floor(log10(raw)));
	double f = raw / p;
	return (f < 1.5 ? 1 : f < 3.5 ? 2 : f < 7.5 ? 5 : 10) * p;
}

static void axes(struct sbuf *out, const struct scale *s, enum metric_id m)
{
	struct sbuf lab = SBUF_INIT;
	double step = nice_step(s->y1 - s->y0);
	/* Ticks by count, not by adding the step: on values far larger than
	   their spread (1e18 +- 100) t += step would stand still. At most 20,
	   and none where the step is lost in the magnitude of the values. */
	double first = ceil(s->y0 / step) * step;
	for (int k = 0; k < 20 && step > 0 && isfinite(first) && first + step != first; k++) {
		double t = first + k * step;
		if (t > s->y1)
			break;
		line(out, L, sy(s, t), R, sy(s, t), "gr");
		sbuf_reset(&lab);
		units_format_value(&lab, m, fabs(t) < step / 1e6 ? 0 : t);
		text(out, L - 6, sy(s, t) + 4, "e", lab.buf);
	}
	line(out, L, T, L, B, "ax");
	line(out, L, B, R, B, "ax");
	sbuf_release(&lab);
}

/* Points on HEAD's line: the first that is not, or nr. */
static size_t line_end(const struct history_site_series *v)
{
	size_t k = 0;
	while (k < v->nr && !v->pts[k].off_line)
		k++;
	return k;
}

/* The level of each stretch of the line between steps: its median. */
static void levels(struct sbuf *out, const struct scale *s, const struct history_site_series *v)
{
	size_t end = line_end(v), from = 0;
	double *t = xcalloc(end + 1, sizeof(*t));
	for (size_t k = 0; k <= v->nr_steps && v->nr_steps; k++) {
		size_t to = k < v->nr_steps ? v->steps[k].at : end;
		if (to > end)
			break;
		if (to <= from) /* a paired step at the first commit */
			continue;
		for (size_t i = from; i < to; i++)
			t[i - from] = v->pts[i].median;
		qsort(t, to - from, sizeof(*t), cmp_double);
		size_t c = to - from;
		double med = c % 2 ? t[c / 2] : (t[c / 2 - 1] + t[c / 2]) / 2;
		line(out, sx(s, (double)from) - 4, sy(s, med), sx(s, (double)to - 1) + 4,
		     sy(s, med), "lv");
		from = to;
	}
	free(t);
}

/* Each step: a dashed line before the commit that made it, labelled with
   the change and that commit (a link to it). */
static void steps(struct sbuf *out, const struct scale *s, const struct history_site_series *v)
{
	struct sbuf lab = SBUF_INIT;
	for (size_t k = 0; k < v->nr_steps; k++) {
		size_t at = v->steps[k].at;
		if (!at || at >= v->nr)
			continue;
		double x = (sx(s, (double)at - 1) + sx(s, (double)at)) / 2;
		line(out, x, T - 4, x, B, "step");
		sbuf_reset(&lab);
		units_format_percent(&lab, v->steps[k].change_percent);
		sbuf_adds(&lab, " at ");
		sbuf_add(&lab, v->pts[at].sha, strnlen(v->pts[at].sha, 10));
		int a = link_open(out, v->pts[at].url);
		text(out, x > (L + R) / 2 ? x - 4 : x + 4, T - 8 + (double)(k % 2) * 11,
		     x > (L + R) / 2 ? "st e" : "st", lab.buf);
		if (a)
			sbuf_adds(out, "</a>\n");
	}
	sbuf_release(&lab);
}

/* One point's hover text: commit, subject, value and interval, runs, time. */
static void point_title(struct sbuf *out, const struct history_site_series *v, size_t i)
{
	const struct history_site_point *p = &v->pts[i];
	struct sbuf t = SBUF_INIT;
	sbuf_add(&t, p->sha, strnlen(p->sha, 10));
	if (p->subject)
		sbuf_addf(&t, " %s", p->subject);
	sbuf_adds(&t, "\n");
	units_format_value(&t, v->metric, p->median);
	if (p->runs > 1) {
		sbuf_adds(&t, " [");
		units_format_value(&t, v->metric, p->low);
		sbuf_adds(&t, " … ");
		units_format_value(&t, v->metric, p->high);
		sbuf_adds(&t, "]");
	}
	sbuf_addf(&t, ", %zu run%s", p->runs, p->runs == 1 ? "" : "s");
	if (p->time)
		sbuf_addf(&t, ", %s", p->time);
	if (p->off_line)
		sbuf_adds(&t, " (not on HEAD's first-parent line)");
	sbuf_adds(out, "<title>");
	report_html_escape(out, t.buf, 1);
	sbuf_adds(out, "</title>");
	sbuf_release(&t);
}

/* "regression +20.7% [+17.7%, +26.3%], ci against abc1234567" */
static void verdict_words(struct sbuf *t, const struct history_site_point *p)
{
	sbuf_adds(t, p->verdict);
	sbuf_addch(t, ' ');
	units_format_change(t, p->change_percent, p->ci_low_percent, p->ci_high_percent);
	sbuf_adds(t, ", ");
	sbuf_adds(t, p->kind ? p->kind : "compare");
	if (p->base_sha) {
		sbuf_adds(t, " against ");
		sbuf_add(t, p->base_sha, strnlen(p->base_sha, 10));
	}
}

/*
 * Each paired verdict that marked a change: a bar over the paired
 * change's interval (about the base it implies) and a triangle, up for a
 * slower or bigger value, down for a faster or smaller one, coloured by the
 * verdict, linking to the commit, its words on hover.
 */
static void marks(struct sbuf *out, const struct scale *s, const struct history_site_series *v)
{
	struct sbuf t = SBUF_INIT;
	for (size_t i = 0; i < v->nr; i++) {
		const struct history_site_point *p = &v->pts[i];
		if (!p->verdict)
			continue;
		double x = sx(s, (double)i), lo, hi;
		char cls[48];
		snprintf(cls, sizeof(cls), "vr v-%s",
			 !strcmp(p->verdict, "improved")   ? "improved"
			 : !strcmp(p->verdict, "accepted") ? "accepted"
							   : "regression");
		int a = link_open(out, p->report ? p->report : p->url);
		sbuf_adds(out, "<g>");
		sbuf_reset(&t);
		sbuf_add(&t, p->sha, strnlen(p->sha, 10));
		sbuf_adds(&t, ": ");
		verdict_words(&t, p);
		sbuf_adds(out, "<title>");
		report_html_escape(out, t.buf, 1);
		sbuf_adds(out, "</title>");
		int up = p->change_percent > 0, span = mark_span(p, &lo, &hi);
		if (span)
			line(out, x, sy(s, lo), x, sy(s, hi), cls);
		/* the triangle beyond the bar's end, pointing the way it moved */
		double y0 =
		    span ? (up ? sy(s, hi) - 3 : sy(s, lo) + 3) : sy(s, p->median) + (up ? -6 : 6);
		double tip = up ? y0 - 9 : y0 + 9;
		sbuf_adds(out, "<path d=\"M");
		num(out, x - 5);
		sbuf_addch(out, ' ');
		num(out, y0);
		sbuf_adds(out, " L");
		num(out, x + 5);
		sbuf_addch(out, ' ');
		num(out, y0);
		sbuf_adds(out, " L");
		num(out, x);
		sbuf_addch(out, ' ');
		num(out, tip);
		sbuf_addf(out, " Z\" class=\"mk %s\"/></g>", cls + 3);
		sbuf_adds(out, a ? "</a>\n" : "\n");
	}
	sbuf_release(&t);
}

/* Is point i one the plot draws on its own in a dense series: a step's
   either side, a verdict mark, off the line, or the last? */
static int drawn_alone(const struct history_site_series *v, size_t i)
{
	if (v->pts[i].verdict || v->pts[i].off_line || i + 1 == v->nr)
		return 1;
	for (size_t k = 0; k < v->nr_steps; k++)
		if (v->steps[k].at == i || v->steps[k].at == i + 1)
			return 1;
	return 0;
}

static void point_circle(struct sbuf *out, const struct scale *s,
			 const struct history_site_series *v, size_t i, double r)
{
	int a = link_open(out, v->pts[i].url);
	sbuf_adds(out, "<circle cx=\"");
	num(out, sx(s, (double)i));
	sbuf_adds(out, "\" cy=\"");
	num(out, sy(s, v->pts[i].median));
	sbuf_addf(out, "\" r=\"%.1f\" class=\"%s\">", r, v->pts[i].off_line ? "off" : "pt");
	point_title(out, v, i);
	sbuf_adds(out, "</circle>");
	sbuf_adds(out, a ? "</a>\n" : "\n");
}

/*
 * A dense line (more than DENSE commits) is drawn by buckets of
 * consecutive commits, one a few pixels wide: the line through each
 * bucket's median, a bar from its least run to its greatest, and a hover
 * area naming its commits and range; only the commits that matter — a
 * step's either side, a verdict, the last — are points of their own. So
 * 2,000 commits cost the page what 160 do, and the eye sees no less.
 */
#define DENSE 240
#define BUCKETS 160
static void dense_line(struct sbuf *out, const struct scale *s, const struct history_site_series *v,
		       size_t end)
{
	double *t = xcalloc(end / BUCKETS + 2, sizeof(*t));
	struct sbuf iv = SBUF_INIT, hov = SBUF_INIT, lab = SBUF_INIT;
	sbuf_adds(out, "<polyline class=\"ln\" points=\"");
	for (size_t b = 0; b < BUCKETS; b++) {
		size_t from = b * end / BUCKETS, to = (b + 1) * end / BUCKETS;
		if (to <= from)
			continue;
		double lo = INFINITY, hi = -INFINITY;
		for (size_t i = from; i < to; i++) {
			t[i - from] = v->pts[i].median;
			lo = fmin(lo, isfinite(v->pts[i].low) ? v->pts[i].low : v->pts[i].median);
			hi = fmax(hi, isfinite(v->pts[i].high) ? v->pts[i].high : v->pts[i].median);
		}
		size_t c = to - from;
		qsort(t, c, sizeof(*t), cmp_double);
		double med = c % 2 ? t[c / 2] : (t[c / 2 - 1] + t[c / 2]) / 2;
		double x = sx(s, (double)(from + to - 1) / 2);
		num(out, x);
		sbuf_addch(out, ',');
		num(out, sy(s, med));
		sbuf_addch(out, ' ');
		sbuf_adds(&iv, "M");
		num(&iv, x);
		sbuf_addch(&iv, ' ');
		num(&iv, sy(s, lo));
		sbuf_adds(&iv, "V");
		num(&iv, sy(s, hi));
		/* the hover area of the bucket: its commits, median and range */
		sbuf_reset(&lab);
		sbuf_add(&lab, v->pts[from].sha, strnlen(v->pts[from].sha, 7));
		sbuf_adds(&lab, "..");
		sbuf_add(&lab, v->pts[to - 1].sha, strnlen(v->pts[to - 1].sha, 7));
		sbuf_addf(&lab, " (%zu commits): median ", c);
		units_format_value(&lab, v->metric, med);
		sbuf_adds(&lab, ", runs ");
		units_format_value(&lab, v->metric, lo);
		sbuf_adds(&lab, " … ");
		units_format_value(&lab, v->metric, hi);
		sbuf_adds(&hov, "<rect class=\"hb\" x=\"");
		num(&hov, sx(s, (double)from) - (sx(s, 1) - sx(s, 0)) / 2);
		sbuf_addf(&hov, "\" y=\"%d\" width=\"", (int)T);
		num(&hov, (sx(s, (double)to) - sx(s, (double)from)));
		sbuf_addf(&hov, "\" height=\"%d\"><title>", (int)(B - T));
		report_html_escape(&hov, lab.buf, 1);
		sbuf_adds(&hov, "</title></rect>\n");
	}
	if (out->len && out->buf[out->len - 1] == ' ')
		out->len--, out->buf[out->len] = '\0';
	sbuf_adds(out, "\"/>\n<path class=\"iv\" d=\"");
	sbuf_add(out, iv.buf, iv.len);
	sbuf_adds(out, "\"/>\n");
	sbuf_add(out, hov.buf, hov.len);
	sbuf_release(&iv);
	sbuf_release(&hov);
	sbuf_release(&lab);
	free(t);
}

static void points(struct sbuf *out, const struct scale *s, const struct history_site_series *v)
{
	size_t end = line_end(v);
	int dense = end > DENSE;
	/* the line through HEAD's first-parent commits only */
	if (dense) {
		dense_line(out, s, v, end);
	} else if (end > 1) {
		sbuf_adds(out, "<polyline class=\"ln\" points=\"");
		for (size_t i = 0; i < end; i++) {
			num(out, sx(s, (double)i));
			sbuf_addch(out, ',');
			num(out, sy(s, v->pts[i].median));
			sbuf_addch(out, i + 1 < end ? ' ' : '"');
		}
		sbuf_adds(out, "/>\n");
	}
	if (end && end < v->nr) {
		double x = (sx(s, (double)end - 1) + sx(s, (double)end)) / 2;
		line(out, x, T, x, B, "sep");
		text(out, x + 4, B - 6, "", "other commits");
	}
	for (size_t i = dense ? end : 0; i < v->nr; i++)
		if (v->pts[i].runs > 1 && v->pts[i].high > v->pts[i].low)
			line(out, sx(s, (double)i), sy(s, v->pts[i].low), sx(s, (double)i),
			     sy(s, v->pts[i].high), "iv");
	marks(out, s, v);
	double r = v->nr > 200 ? 2 : 3.2;
	for (size_t i = 0; i < v->nr; i++)
		if (!dense || drawn_alone(v, i))
			point_circle(out, s, v, i, r);
}

/* Commit labels under the axis: the first, the last, a few evenly
   between (never two side by side). */
static void commit_label(struct sbuf *out, const struct scale *s,
			 const struct history_site_series *v, size_t i)
{
	char lab[8];
	snprintf(lab, sizeof(lab), "%.7s", v->pts[i].sha);
	line(out, sx(s, (double)i), B, sx(s, (double)i), B + 4, "ax");
	text(out, sx(s, (double)i), B + 16, "c", lab);
}

static void commit_labels(struct sbuf *out, const struct scale *s,
			  const struct history_site_series *v)
{
	size_t step = v->nr > 1 ? (v->nr - 1 + X_LABELS - 2) / (X_LABELS - 1) : 1;
	for (size_t i = 0; i < v->nr; i += step)
		if (i == 0 || i + step / 2 < v->nr - 1)
			commit_label(out, s, v, i);
	if (v->nr > 1)
		commit_label(out, s, v, v->nr - 1);
	text(out, (L + R) / 2, B + 34, "m", "commits, in the order of HEAD's first-parent line");
}

/* The trend plot of one series: one <svg class="trend">. */
static void trend_plot(struct sbuf *out, const struct history_site_series *v, const char *label)
{
	struct scale s;
	scale_of(&s, v);
	sbuf_addf(out,
		  "<svg class=\"trend\" viewBox=\"0 0 %d %d\" width=\"%d\" height=\"%d\" "
		  "role=\"img\" aria-label=\"",
		  (int)W, (int)H, (int)W, (int)H);
	esc(out, label);
	sbuf_adds(out, "\"><title>");
	esc(out, label);
	sbuf_adds(out, "</title>\n");
	axes(out, &s, v->metric);
	levels(out, &s, v);
	steps(out, &s, v);
	points(out, &s, v);
	commit_labels(out, &s, v);
	sbuf_adds(out, "</svg>\n");
}

/* ---- the page ------------------------------------------------------------ */

static const char *badge_class(const char *verdict)
{
	static const struct {
		const char *name, *cls;
	} k[] = {
	    {"regression", "k-bad"},   {"over_budget", "k-bad"},  {"error", "k-bad"},
	    {"improved", "k-good"},    {"pass", "k-good"},	  {"inconclusive", "k-warn"},
	    {"unsupported", "k-warn"}, {"interrupted", "k-warn"},
	};
	for (size_t i = 0; verdict && i < sizeof(k) / sizeof(k[0]); i++)
		if (!strcmp(verdict, k[i].name))
			return k[i].cls;
	return "k-info";
}

/* The last run's verdict as a badge: the metric's comparison when it had
   one, else the command's result ("run" measures one side). */
static void last_badge(struct sbuf *out, const struct history_site_last *l)
{
	const char *v = l->verdict ? l->verdict : l->result;
	sbuf_addf(out, "<span class=\"badge %s\">", badge_class(v));
	esc(out, v ? v : "no verdict");
	sbuf_adds(out, "</span>");
	if (l->verdict && isfinite(l->change_percent)) {
		struct sbuf t = SBUF_INIT;
		sbuf_addch(&t, ' ');
		units_format_change(&t, l->change_percent, l->ci_low_percent, l->ci_high_percent);
		esc(out, t.buf);
		sbuf_release(&t);
	}
}

/* "kagari compare at abc1234567, 2026-…: regression +12.0% […]". */
static void last_line(struct sbuf *out, const struct history_site_series *v)
{
	const struct history_site_last *l = &v->last;
	sbuf_adds(out, "<p>Last run: ");
	esc(out, l->kind ? l->kind : "run");
	sbuf_adds(out, " of <code>");
	short_sha(out, l->sha);
	sbuf_adds(out, "</code>");
	if (l->time) {
		sbuf_adds(out, ", ");
		esc(out, l->time);
	}
	sbuf_adds(out, ": ");
	last_badge(out, l);
	if (!l->verdict) {
		sbuf_adds(out, " <span class=\"dim\">(the command's result: ");
		esc(out, metric_get(v->metric)->name);
		sbuf_adds(out, " was not compared in that run)</span>");
	}
	sbuf_adds(out, "</p>\n");
}

/* "b / m — latency (machine 1a2b…)" for labels. */
static void series_label(struct sbuf *out, const struct history_site_series *v)
{
	sbuf_addf(out, "%s / %s / %s — %s (machine %s)", v->suite, v->benchmark, v->command,
		  metric_get(v->metric)->name, v->machine ? v->machine : "?");
}

static void step_items(struct sbuf *out, const struct history_site_series *v)
{
	struct sbuf t = SBUF_INIT;
	sbuf_adds(out, "<ul>\n");
	if (!v->nr_steps)
		sbuf_adds(out, "<li>no steps</li>\n");
	for (size_t k = 0; k < v->nr_steps; k++) {
		const struct history_site_step *st = &v->steps[k];
		const struct history_site_point *b = &v->pts[st->at];
		const char *from = st->from_sha ? st->from_sha : v->pts[st->at - 1].sha;
		sbuf_reset(&t);
		step_change(&t, st);
		sbuf_adds(&t, " (");
		units_format_value(&t, v->metric, st->before);
		sbuf_adds(&t, " → ");
		units_format_value(&t, v->metric, st->after);
		sbuf_adds(&t, ")");
		sbuf_adds(out, "<li class=\"step\">step <b>");
		esc(out, t.buf);
		sbuf_adds(out, "</b> at ");
		commit_ref(out, b);
		sbuf_adds(out, st->paired ? " <span class=\"dim\">(paired: measured against <code>"
					  : " <span class=\"dim\">(series: after <code>");
		short_sha(out, from);
		sbuf_adds(out, "</code>: the change is in ");
		short_sha(out, from);
		sbuf_adds(out, "..");
		short_sha(out, b->sha);
		sbuf_adds(out, ")</span></li>\n");
	}
	sbuf_adds(out, "</ul>\n");
	sbuf_release(&t);
}

/* The paired verdicts that marked a change, newest first, each linking to
   its commit. */
static void verdict_items(struct sbuf *out, const struct history_site_series *v)
{
	size_t n = v->nr_regressions + v->nr_improvements + v->nr_accepted;
	if (!n)
		return;
	struct sbuf t = SBUF_INIT;
	sbuf_adds(out, "<p>Paired verdicts:</p>\n<ul>\n");
	for (size_t i = v->nr; i-- > 0;) {
		const struct history_site_point *p = &v->pts[i];
		if (!p->verdict)
			continue;
		sbuf_reset(&t);
		verdict_words(&t, p);
		sbuf_addf(out, "<li class=\"verdict\"><span class=\"badge %s\">",
			  !strcmp(p->verdict, "improved")   ? "k-good"
			  : !strcmp(p->verdict, "accepted") ? "k-warn"
							    : "k-bad");
		esc(out, p->verdict);
		sbuf_adds(out, "</span> ");
		esc(out, t.buf + strlen(p->verdict) + 1);
		sbuf_adds(out, " at ");
		commit_ref(out, p);
		if (p->report) {
			sbuf_adds(out, " · <a href=\"");
			esc(out, p->report);
			sbuf_adds(out, "\">its report</a>");
		}
		sbuf_adds(out, "</li>\n");
	}
	sbuf_adds(out, "</ul>\n");
	sbuf_release(&t);
}

/* One series: its command, plot, noise line, last run and steps. */
static void series_block(struct sbuf *out, const struct history_site_series *v, size_t id)
{
	struct sbuf label = SBUF_INIT;
	series_label(&label, v);
	sbuf_addf(out, "<div class=\"series\" id=\"s%zu\"><h4>", id);
	esc(out, v->command);
	sbuf_addf(out, " <span class=\"dim\">%zu commit%s</span></h4>\n", v->nr,
		  v->nr == 1 ? "" : "s");
	trend_plot(out, v, label.buf);
	sbuf_adds(out, "<p class=\"noise\">");
	esc(out, v->noise);
	sbuf_adds(out, "</p>\n");
	last_line(out, v);
	step_items(out, v);
	verdict_items(out, v);
	sbuf_adds(out, "</div>\n");
	sbuf_release(&label);
}

static int cmp_str0(const char *a, const char *b)
{
	return strcmp(a ? a : "", b ? b : "");
}

/* Sections by suite, benchmark, metric; in them this machine first, then
   the others by fingerprint; then the commands. */
static const struct history_site_series *sort_base;

static int cmp_order(const void *pa, const void *pb)
{
	const struct history_site_series *a = &sort_base[*(const size_t *)pa];
	const struct history_site_series *b = &sort_base[*(const size_t *)pb];
	int c;
	/* the metrics a suite gates first; the others folded after them */
	if (a->gated != b->gated)
		return b->gated - a->gated;
	if ((c = cmp_str0(a->suite, b->suite)) || (c = cmp_str0(a->benchmark, b->benchmark)))
		return c;
	if (a->metric != b->metric)
		return a->metric < b->metric ? -1 : 1;
	if (a->this_machine != b->this_machine)
		return b->this_machine - a->this_machine;
	if ((c = cmp_str0(a->machine, b->machine)) || (c = cmp_str0(a->command, b->command)))
		return c;
	return (*(const size_t *)pa > *(const size_t *)pb) -
	       (*(const size_t *)pa < *(const size_t *)pb);
}

/* The order the page shows the series in (caller frees). */
static size_t *page_order(const struct history_site *site)
{
	size_t *ix = xcalloc(site->nr ? site->nr : 1, sizeof(*ix));
	for (size_t i = 0; i < site->nr; i++)
		ix[i] = i;
	sort_base = site->series;
	qsort(ix, site->nr, sizeof(*ix), cmp_order);
	sort_base = NULL;
	return ix;
}

static void machine_name(struct sbuf *out, const struct history_site_series *v)
{
	sbuf_adds(out, "machine <code>");
	esc(out, v->machine ? v->machine : "?");
	sbuf_adds(out, "</code>");
	if (v->cpu_model) {
		sbuf_adds(out, " ");
		esc(out, v->cpu_model);
	}
	if (v->this_machine)
		sbuf_adds(out, " <span class=\"dim\">(the machine that made this page)</span>");
}

/* The overview: a row per series with its latest value, last verdict and
   steps, linking to its plot. */
static void overview(struct sbuf *out, const struct history_site *site, const size_t *ix)
{
	static const char head[] =
	    "<table><tr><th>benchmark</th><th>command</th><th>metric</th><th>machine</th>"
	    "<th>commits</th><th>latest</th><th>last run</th><th>steps</th>"
	    "<th>regressions</th><th>improvements</th></tr>\n";
	size_t gated = 0;
	for (size_t k = 0; k < site->nr; k++)
		gated += site->series[k].gated;
	sbuf_adds(out, "<h2 id=\"overview\">Overview</h2>\n");
	if (gated)
		sbuf_adds(out, head);
	struct sbuf t = SBUF_INIT;
	for (size_t k = 0; k < site->nr; k++) {
		const struct history_site_series *v = &site->series[ix[k]];
		/* the series of metrics no suite gates: a table of their own,
		   folded (page order puts them last) */
		if (!v->gated && (!k || site->series[ix[k - 1]].gated)) {
			if (gated)
				sbuf_adds(out, "</table>\n");
			sbuf_addf(out,
				  "<details%s><summary>%zu series of metrics no suite gates"
				  "</summary>\n",
				  gated ? "" : " open", site->nr - gated);
			sbuf_adds(out, head);
		}
		sbuf_adds(out, "<tr><td>");
		esc(out, v->suite);
		sbuf_adds(out, " / ");
		esc(out, v->benchmark);
		sbuf_addf(out, "</td><td><a href=\"#s%zu\">", k);
		esc(out, v->command);
		sbuf_addf(out, "</a></td><td>%s%s</td><td><code>", metric_get(v->metric)->name,
			  v->gated ? " <span class=\"gate\">gated</span>" : "");
		esc(out, v->machine ? v->machine : "?");
		sbuf_addf(out, "</code></td><td class=\"n\">%zu</td><td class=\"n\">", v->nr);
		sbuf_reset(&t);
		if (v->nr)
			units_format_value(
			    &t, v->metric,
			    v->pts[line_end(v) ? line_end(v) - 1 : v->nr - 1].median);
		esc(out, t.buf);
		sbuf_adds(out, "</td><td>");
		last_badge(out, &v->last);
		sbuf_addf(out,
			  "</td><td class=\"n\">%zu</td><td class=\"n\">%zu</td><td "
			  "class=\"n\">%zu</td></tr>\n",
			  v->nr_steps, v->nr_regressions, v->nr_improvements);
	}
	if (site->nr)
		sbuf_adds(out, "</table>\n");
	if (gated < site->nr)
		sbuf_adds(out, "</details>\n");
	sbuf_release(&t);
}

/*
 * The page's head: the very markup of html_page_open() on main
 * (report/html_page.h, "one HTML page head with one CSP for every page"),
 * which this branch predates; after the merge it replaces this function.
 */
static void page_head(struct sbuf *out, const struct history_site *site)
{
	html_page_open(out, "kagari history", site_css);
	sbuf_adds(out, "<header><h1>kagari history</h1>\n<p class=\"meta\">");
	if (site->repo_page) {
		sbuf_adds(out, "<a href=\"");
		esc(out, site->repo_page);
		sbuf_adds(out, "\">");
		esc(out, site->repo_page);
		sbuf_adds(out, "</a> · ");
	}
	sbuf_addf(out, "%lld run%s recorded · %zu series · made ", (long long)site->runs,
		  site->runs == 1 ? "" : "s", site->nr);
	esc(out, site->generated ? site->generated : "?");
	sbuf_adds(
	    out,
	    " by kagari " KAGARI_VERSION "</p>\n<p class=\"meta\">Each point is a commit: "
	    "the median of its runs (a bar: their least to greatest), in the order of HEAD's "
	    "first-parent line, other commits after it, hollow. A dashed red line marks a step "
	    "at the commit that made it; dashed purple lines are the levels between steps.");
	if (site->no_links) {
		sbuf_adds(out, " Commits are not links: ");
		esc(out, site->no_links);
		sbuf_addch(out, '.');
	}
	sbuf_adds(out, "</p></header>\n<main>\n");
}

/* The machines, each once, in page order: never mixed in one plot. */
static void machines(struct sbuf *out, const struct history_site *site, const size_t *ix)
{
	sbuf_adds(out,
		  "<h2 id=\"machines\">Machines</h2>\n<p class=\"meta\">A series holds the runs of "
		  "one machine only (machine id, CPU model and cores): the same benchmark on "
		  "another machine is a plot of its own.</p>\n<ul>\n");
	for (size_t k = 0; k < site->nr; k++) {
		const struct history_site_series *v = &site->series[ix[k]];
		int seen = 0;
		for (size_t q = 0; q < k && !seen; q++)
			seen = !cmp_str0(site->series[ix[q]].machine, v->machine);
		if (seen)
			continue;
		size_t n = 0;
		for (size_t q = 0; q < site->nr; q++)
			n += !cmp_str0(site->series[q].machine, v->machine);
		sbuf_adds(out, "<li>");
		machine_name(out, v);
		sbuf_addf(out, ": %zu series</li>\n", n);
	}
	sbuf_adds(out, "</ul>\n");
}

/* The series sections in page order: the gated metrics, then the others
   folded in one <details>; in each section a part per machine, its
   commands' plots side by side (.grid). */
static void sections(struct sbuf *out, const struct history_site *site, const size_t *ix)
{
	const struct history_site_series *prev = NULL;
	size_t others = 0;
	for (size_t k = 0; k < site->nr; k++)
		others += !site->series[k].gated;
	for (size_t k = 0; k < site->nr; k++) {
		const struct history_site_series *v = &site->series[ix[k]];
		if (!v->gated && (!prev || prev->gated)) {
			if (prev)
				sbuf_adds(out, "</div></section>\n");
			sbuf_addf(out,
				  "<details class=\"others\"%s><summary>Metrics no suite gates "
				  "(%zu series)</summary>\n",
				  others == site->nr ? " open" : "", others);
			prev = NULL;
		}
		int section = !prev || cmp_str0(prev->suite, v->suite) ||
			      cmp_str0(prev->benchmark, v->benchmark) || prev->metric != v->metric;
		if (section) {
			if (prev)
				sbuf_adds(out, "</div></section>\n");
			sbuf_adds(out, "<section>\n<h2>");
			esc(out, v->suite);
			sbuf_adds(out, " / ");
			esc(out, v->benchmark);
			sbuf_addf(out, " — %s <span class=\"dim\">(", metric_get(v->metric)->name);
			esc(out, metric_get(v->metric)->unit_name);
			sbuf_addf(out, ")</span>%s</h2>\n",
				  v->gated ? " <span class=\"gate\">gated</span>" : "");
		}
		if (section || cmp_str0(prev->machine, v->machine)) {
			if (!section)
				sbuf_adds(out, "</div>\n");
			sbuf_adds(out, "<h3>");
			machine_name(out, v);
			sbuf_adds(out, "</h3>\n<div class=\"grid\">\n");
		}
		series_block(out, v, k);
		prev = v;
	}
	if (prev)
		sbuf_adds(out, "</div></section>\n");
	if (others)
		sbuf_adds(out, "</details>\n");
}

/* A step's badge: red when the metric got worse, green when better. */
static const char *worse_class(const struct history_site_series *v,
			       const struct history_site_step *st)
{
	enum metric_better b = metric_get(v->metric)->better;
	int up = st->change_percent > 0;
	if (b == BETTER_EITHER)
		return "k-warn";
	return (b == BETTER_LOWER) == up ? "k-bad" : "k-good";
}

/* A step of some series, for the latest changes. */
struct recent {
	const struct history_site_series *v;
	size_t k, id; /* its step; the series' place on the page */
};

static int cmp_recent(const void *a, const void *b)
{
	const struct recent *x = a, *y = b;
	const char *tx = x->v->pts[x->v->steps[x->k].at].time;
	const char *ty = y->v->pts[y->v->steps[y->k].at].time;
	int c = cmp_str0(ty, tx); /* newest first */
	return c ? c : (x->id > y->id) - (x->id < y->id);
}

/*
 * What a team that watches its main branch opens the page for: the latest
 * steps of every series, newest first (by their commit's first run), each
 * with its size, evidence and commit, linking to its plot — the gated
 * metrics' first, at most RECENT of them.
 */
#define RECENT 10
static void latest_changes(struct sbuf *out, const struct history_site *site, const size_t *ix)
{
	struct recent *r = NULL;
	size_t n = 0;
	for (size_t k = 0; k < site->nr; k++) {
		const struct history_site_series *v = &site->series[ix[k]];
		for (size_t j = 0; j < v->nr_steps; j++) {
			if (v->steps[j].at >= v->nr)
				continue;
			r = xreallocarray(r, n + 1, sizeof(*r));
			r[n++] = (struct recent){v, j, k};
		}
	}
	if (!n) {
		free(r);
		return;
	}
	qsort(r, n, sizeof(*r), cmp_recent);
	/* the gated metrics' steps first, each group newest first */
	struct recent *o = xcalloc(n, sizeof(*o));
	size_t m = 0;
	for (int gated = 1; gated >= 0; gated--)
		for (size_t i = 0; i < n; i++)
			if (r[i].v->gated == gated)
				o[m++] = r[i];
	sbuf_adds(out, "<h2 id=\"latest\">Latest changes</h2>\n<ul>\n");
	struct sbuf t = SBUF_INIT;
	for (size_t i = 0; i < n && i < RECENT; i++) {
		const struct history_site_series *v = o[i].v;
		const struct history_site_step *st = &v->steps[o[i].k];
		const struct history_site_point *b = &v->pts[st->at];
		sbuf_reset(&t);
		step_change(&t, st);
		sbuf_addf(out, "<li><span class=\"badge %s\">", worse_class(v, st));
		esc(out, t.buf);
		sbuf_addf(out, "</span> <a href=\"#s%zu\">", o[i].id);
		esc(out, v->benchmark);
		sbuf_adds(out, " / ");
		esc(out, v->command);
		sbuf_addf(out, " — %s</a>%s", metric_get(v->metric)->name,
			  v->gated ? " <span class=\"gate\">gated</span>" : "");
		if (!v->this_machine) {
			sbuf_adds(out, " on machine <code>");
			esc(out, v->machine ? v->machine : "?");
			sbuf_adds(out, "</code>");
		}
		sbuf_adds(out, " at ");
		commit_ref(out, b);
		sbuf_addf(out, " <span class=\"dim\">(%s", st->paired ? "paired" : "series");
		if (b->time) {
			sbuf_adds(out, ", ");
			esc(out, b->time);
		}
		sbuf_adds(out, ")</span>");
		if (st->paired && b->report) {
			sbuf_adds(out, " · <a href=\"");
			esc(out, b->report);
			sbuf_adds(out, "\">report</a>");
		}
		sbuf_adds(out, "</li>\n");
	}
	if (n > RECENT)
		sbuf_addf(out, "<li class=\"dim\">and %zu earlier</li>\n", n - RECENT);
	sbuf_adds(out, "</ul>\n");
	sbuf_release(&t);
	free(o);
	free(r);
}

void history_site_render(struct sbuf *out, const struct history_site *site)
{
	size_t *ix = page_order(site);
	page_head(out, site);
	if (!site->nr)
		sbuf_adds(out, "<p>No series recorded for the selected benchmarks.</p>\n");
	else {
		machines(out, site, ix);
		latest_changes(out, site, ix);
		overview(out, site, ix);
	}
	sections(out, site, ix);
	sbuf_adds(out, "</main>\n");
	html_page_close(out);
	free(ix);
}

char *history_site_index(const char *dir)
{
	struct sbuf p = SBUF_INIT;
	size_t n = strlen(dir);
	while (n > 1 && dir[n - 1] == '/')
		n--;
	sbuf_add(&p, dir, n);
	sbuf_adds(&p, n == 1 && dir[0] == '/' ? "index.html" : "/index.html");
	return sbuf_detach(&p);
}

/* mkdir -p dir: 0, or -1 with a reason naming the folder. */
static int make_folders(const char *dir, struct sbuf *err)
{
	char *p = xstrdup(dir);
	int rc = 0;
	for (char *q = p + 1;; q++) {
		char c = *q;
		if (c && c != '/')
			continue;
		*q = '\0';
		struct stat st;
		if (mkdir(p, 0777) && errno != EEXIST) {
			sbuf_addf(err, "cannot create the folder '%s': %s", p, strerror(errno));
			rc = -1;
		} else if (stat(p, &st) || !S_ISDIR(st.st_mode)) {
			sbuf_addf(err, "'%s' is not a folder", p);
			rc = -1;
		}
		*q = c;
		if (rc || !c)
			break;
	}
	free(p);
	return rc;
}

static const char marker_text[] =
    "This folder holds a site that `kagari history --format html --output` wrote:\n"
    "kagari rewrites its index.html and the runs' reports in reports/ (and\n"
    "nothing else here). Without this file, kagari refuses to write into a\n"
    "folder that holds anything.\n";

int history_site_check_folder(const char *dir, struct sbuf *err)
{
	DIR *d = opendir(dir);
	if (!d) {
		if (errno == ENOENT)
			return 0; /* a new folder */
		sbuf_addf(err, "'%s': cannot read the folder: %s", dir, strerror(errno));
		return -1;
	}
	struct sbuf names = SBUF_INIT;
	size_t n = 0;
	int marker = 0;
	struct dirent *e;
	while ((e = readdir(d))) {
		if (!strcmp(e->d_name, ".") || !strcmp(e->d_name, ".."))
			continue;
		if (!strcmp(e->d_name, HISTORY_SITE_MARKER))
			marker = 1;
		if (n++ < 3) {
			sbuf_adds(&names, n > 1 ? ", " : "");
			sbuf_add_escaped(&names, e->d_name);
		}
	}
	closedir(d);
	struct stat st;
	char *m = xstrfmt("%s/%s", dir, HISTORY_SITE_MARKER);
	/* The marker kagari writes: a file of its own, no link to elsewhere. */
	int ok = !n || (marker && !lstat(m, &st) && S_ISREG(st.st_mode));
	free(m);
	if (!ok)
		sbuf_addf(err,
			  "'%s' is a folder that holds files kagari did not write (%s%s): the "
			  "site goes into an empty folder, a new one, or one kagari wrote before "
			  "(it leaves a %s file there); nothing written (name another folder, or "
			  "empty this one)",
			  dir, names.buf, n > 3 ? ", ..." : "", HISTORY_SITE_MARKER);
	sbuf_release(&names);
	return ok ? 0 : -1;
}

int history_site_write(const char *dir, const struct history_site *site, struct sbuf *err)
{
	if (history_site_check_folder(dir, err) || make_folders(dir, err))
		return -1;
	/* The marker first: a folder with kagari's index.html always has it. */
	char *marker = xstrfmt("%s/%s", dir, HISTORY_SITE_MARKER);
	int rc = report_output_write(marker, NULL, marker_text, sizeof(marker_text) - 1, err);
	free(marker);
	if (rc)
		return -1;
	struct sbuf page = SBUF_INIT;
	history_site_render(&page, site);
	char *index = history_site_index(dir);
	rc = report_output_write(index, NULL, page.buf, page.len, err);
	free(index);
	sbuf_release(&page);
	if (!rc && site->nr_files) {
		char *sub = xstrfmt("%s/reports", dir);
		rc = make_folders(sub, err);
		free(sub);
	}
	for (size_t i = 0; !rc && i < site->nr_files; i++) {
		char *path = xstrfmt("%s/%s", dir, site->files[i].name);
		rc = report_output_write(path, NULL, site->files[i].text, site->files[i].len, err);
		free(path);
	}
	return rc;
}
