/*
 * report/svg: inline SVG plots for the HTML and GitHub reports (svg.h): the
 * frame and axes, then the three plots — samples per round (strip), per
 * round ratios head/base, and the bootstrap distribution of the change.
 */
#include "report/svg.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "analyze/format.h"
#include "analyze/summary.h"
#include "base/cmp.h"
#include "base/xalloc.h"
#include "report/json_emit.h"
#include "report/describe.h"

/* The plot area inside the SVG_WIDTH x SVG_HEIGHT picture. */
#define PL 78.0
#define PR 588.0
#define PT 22.0
#define PB 136.0
#define BOOT_BINS 48

const char SVG_STYLESHEET[] =
    "svg.plot{background:#fff;border:1px solid #ddd;border-radius:4px;"
    "flex:1 1 500px;max-width:600px;min-width:0;height:auto;"
    "margin:0 8px 8px 0}\n"
    "svg.plot text{font:10px system-ui,sans-serif;fill:#444}\n"
    "svg.plot text.t{font-weight:600;fill:#222}\n"
    "svg.plot text.e{text-anchor:end}\n"
    "svg.plot text.m{text-anchor:middle}\n"
    "svg.plot .ax{stroke:#999;stroke-width:1}\n"
    "svg.plot .gr{stroke:#eee;stroke-width:1}\n"
    "svg.plot .b{fill:#3a6ea5}\n"
    "svg.plot .h{fill:#e07b24}\n"
    "svg.plot .bl{stroke:#3a6ea5;stroke-dasharray:4 3;stroke-width:1.5}\n"
    "svg.plot .hl{stroke:#e07b24;stroke-dasharray:4 3;stroke-width:1.5}\n"
    "svg.plot .bm{stroke:#3a6ea5;stroke-width:1.2}\n"
    "svg.plot .hm{stroke:#e07b24;stroke-width:1.2}\n"
    "svg.plot .bd{fill:none;stroke:#3a6ea5;stroke-width:2}\n"
    "svg.plot .hd{fill:none;stroke:#e07b24;stroke-width:2}\n"
    "svg.plot .drop{fill:#f1f1f1}\n"
    "svg.plot .r{fill:#333}\n"
    "svg.plot .rd{fill:none;stroke:#999;stroke-width:1}\n"
    "svg.plot .one{stroke:#666;stroke-width:1}\n"
    "svg.plot .med{stroke:#7b3fa0;stroke-width:1.5;stroke-dasharray:5 3}\n"
    "svg.plot .tol{stroke:#c62828;stroke-width:1.2;stroke-dasharray:3 3}\n"
    "svg.plot .ci{fill:#3a6ea5;fill-opacity:.15}\n"
    "svg.plot .bar{fill:#7f9cc0}\n"
    "svg.plot .est{stroke:#111;stroke-width:1.5}\n"
    "svg.plot .iv{stroke:#e07b24;stroke-width:2;stroke-opacity:.55}\n"
    "svg.plot text.tolt{fill:#c62828}\n"
    "svg.plot text.medt{fill:#7b3fa0}\n"
    "svg.flame{width:100%;height:auto;background:#fff;border:1px solid #ddd}\n"
    "svg.flame text{font:11px ui-monospace,monospace;fill:#222;pointer-events:none}\n"
    "svg.flame rect{stroke:#fff;stroke-width:.5}\n";

/* ---- frame ------------------------------------------------------------- */

struct frame {
	double x0, x1, y0, y1; /* data ranges, x0 < x1, y0 < y1 */
};

static double fx(const struct frame *f, double x)
{
	return PL + (x - f->x0) / (f->x1 - f->x0) * (PR - PL);
}

static double fy(const struct frame *f, double y)
{
	return PB - (y - f->y0) / (f->y1 - f->y0) * (PB - PT);
}

/* A number for a coordinate: one decimal, no "-0.0". */
static void coord(struct sbuf *out, double v)
{
	if (!isfinite(v))
		v = 0;
	v = round(v * 10) / 10;
	if (v == 0)
		v = 0;
	sbuf_addf(out, "%.1f", v);
}

static void svg_open(struct sbuf *out, const char *label)
{
	sbuf_addf(out,
		  "<svg class=\"plot\" viewBox=\"0 0 %d %d\" width=\"%d\" "
		  "height=\"%d\" role=\"img\" aria-label=\"",
		  SVG_WIDTH, SVG_HEIGHT, SVG_WIDTH, SVG_HEIGHT);
	report_html_escape(out, label, 0);
	sbuf_adds(out, "\"><title>");
	report_html_escape(out, label, 0);
	sbuf_adds(out, "</title>\n");
}

static void svg_close(struct sbuf *out)
{
	sbuf_adds(out, "</svg>\n");
}

/* <text x y class>escaped text</text> */
static void text_at(struct sbuf *out, double x, double y, const char *cls, const char *s)
{
	sbuf_adds(out, "<text x=\"");
	coord(out, x);
	sbuf_adds(out, "\" y=\"");
	coord(out, y);
	sbuf_addch(out, '"');
	if (cls && *cls)
		sbuf_addf(out, " class=\"%s\"", cls);
	sbuf_addch(out, '>');
	report_html_escape(out, s, 0);
	sbuf_adds(out, "</text>\n");
}

static void line(struct sbuf *out, double x1, double y1, double x2, double y2, const char *cls)
{
	sbuf_adds(out, "<line x1=\"");
	coord(out, x1);
	sbuf_adds(out, "\" y1=\"");
	coord(out, y1);
	sbuf_adds(out, "\" x2=\"");
	coord(out, x2);
	sbuf_adds(out, "\" y2=\"");
	coord(out, y2);
	sbuf_addf(out, "\" class=\"%s\"/>\n", cls);
}

static void rect(struct sbuf *out, double x, double y, double w, double h, const char *cls,
		 const char *tip)
{
	sbuf_adds(out, "<rect x=\"");
	coord(out, x);
	sbuf_adds(out, "\" y=\"");
	coord(out, y);
	sbuf_adds(out, "\" width=\"");
	coord(out, w > 0 ? w : 0);
	sbuf_adds(out, "\" height=\"");
	coord(out, h > 0 ? h : 0);
	sbuf_addf(out, "\" class=\"%s\"", cls);
	if (tip) {
		sbuf_adds(out, "><title>");
		report_html_escape(out, tip, 0);
		sbuf_adds(out, "</title></rect>\n");
	} else {
		sbuf_adds(out, "/>\n");
	}
}

static void dot(struct sbuf *out, double x, double y, double r, const char *cls)
{
	sbuf_adds(out, "<circle cx=\"");
	coord(out, x);
	sbuf_adds(out, "\" cy=\"");
	coord(out, y);
	sbuf_addf(out, "\" r=\"%.1f\" class=\"%s\"/>\n", r, cls);
}

/* The plot with nothing to draw: a title and why. */
static void empty_plot(struct sbuf *out, const char *title, const char *why)
{
	svg_open(out, title);
	text_at(out, 8, 14, "t", title);
	text_at(out, SVG_WIDTH / 2.0, SVG_HEIGHT / 2.0, "m", why);
	svg_close(out);
}

/* A "nice" step (1, 2 or 5 times a power of ten) for about n ticks. */
static double nice_step(double range, int n)
{
	double rough, mag, norm;

	if (!(range > 0) || !isfinite(range))
		return 1;
	rough = range / n;
	mag = pow(10, floor(log10(rough)));
	norm = rough / mag;
	if (norm < 1.5)
		return mag;
	if (norm < 3)
		return 2 * mag;
	if (norm < 7)
		return 5 * mag;
	return 10 * mag;
}

/*
 * Ticks at multiples of step within [lo, hi]: how many (at most 20, none
 * when the step is lost in the magnitude of the values) and the k-th.
 */
static double tick_at(double lo, double step, int k)
{
	return (ceil(lo / step) + k) * step;
}

static int tick_count(double lo, double hi, double step)
{
	int n = 0;

	if (!(step > 0) || !isfinite(lo) || !isfinite(hi) ||
	    tick_at(lo, step, 1) == tick_at(lo, step, 0))
		return 0;
	while (n < 20 && tick_at(lo, step, n) <= hi + step * 1e-9)
		n++;
	return n;
}

/* Widen [*lo, *hi] by `pad` of its span (a point gets a span of its own). */
static void pad_range(double *lo, double *hi, double pad)
{
	double span = *hi - *lo;

	if (!(span > 0)) {
		double a = fabs(*hi);
		span = a > 0 ? a * 0.1 : 1;
		*lo -= span / 2;
		*hi += span / 2;
		return;
	}
	*lo -= span * pad;
	*hi += span * pad;
}

/* Horizontal grid lines with value labels on the left. */
static void y_axis_values(struct sbuf *out, const struct frame *f, const struct command_result *c,
			  enum metric_id m)
{
	double step = nice_step(f->y1 - f->y0, 4);
	struct sbuf lab = SBUF_INIT;

	for (int k = 0, nt = tick_count(f->y0, f->y1, step); k < nt; k++) {
		double v = tick_at(f->y0, step, k);
		double y = fy(f, v);
		line(out, PL, y, PR, y, "gr");
		report_value_text(&lab, c, m, fabs(v) < step * 1e-9 ? 0 : v);
		text_at(out, PL - 4, y + 3.5, "e", lab.buf);
		sbuf_reset(&lab);
	}
	line(out, PL, PT, PL, PB, "ax");
	sbuf_release(&lab);
}

/* Ticks for rounds rmin..rmax along the bottom. */
static void x_axis_rounds(struct sbuf *out, const struct frame *f, int rmin, int rmax)
{
	long n = (long)rmax - rmin + 1;
	long step = n <= 20 ? 1 : (long)nice_step((double)n, 12);
	struct sbuf lab = SBUF_INIT;

	if (step < 1)
		step = 1;
	line(out, PL, PB, PR, PB, "ax");
	for (long r = rmin; r <= rmax; r += step) {
		/* the last round is labelled; a tick too close to it is not */
		if (r != rmax && rmax - r < step && (rmax - rmin) % step)
			continue;
		sbuf_addf(&lab, "%ld", r);
		text_at(out, fx(f, (double)r), PB + 12, "m", lab.buf);
		sbuf_reset(&lab);
	}
	if ((rmax - rmin) % step) {
		sbuf_addf(&lab, "%d", rmax);
		text_at(out, fx(f, rmax), PB + 12, "m", lab.buf);
	}
	text_at(out, PL - 4, PB + 12, "e", "round");
	sbuf_release(&lab);
}

static int is_dropped(const struct comparison *cp, int round)
{
	if (!cp)
		return 0;
	for (size_t i = 0; i < cp->nr_dropped_rounds; i++)
		if (cp->dropped_rounds[i] == round)
			return 1;
	return 0;
}

static int series_ok(const struct command_result *c, enum side s, enum metric_id m)
{
	const struct metric_series *ms = &c->side[s].metric[m];
	return c->side[s].present && ms->status == MSTATUS_OK && ms->nr;
}

static void shade_dropped(struct sbuf *out, const struct frame *f, const struct comparison *cp,
			  int rmin, int rmax)
{
	struct sbuf tip = SBUF_INIT;

	if (!cp || !cp->present)
		return;
	for (size_t i = 0; i < cp->nr_dropped_rounds; i++) {
		int r = cp->dropped_rounds[i];
		if (r < rmin || r > rmax)
			continue;
		sbuf_addf(&tip, "round %d: dropped by the stall filter", r);
		rect(out, fx(f, r - 0.5), PT, fx(f, r + 0.5) - fx(f, r - 0.5), PB - PT, "drop",
		     tip.buf);
		sbuf_reset(&tip);
	}
	sbuf_release(&tip);
}

static double median_of(const double *v, size_t n)
{
	return n ? quantile(v, n, 0.5) : NAN;
}

/* ---- (a) strip plot -------------------------------------------------- */

void svg_strip_plot(struct sbuf *out, const struct command_result *c, enum metric_id m)
{
	const struct comparison *cp = &c->comparison[m];
	struct sbuf title = SBUF_INIT, tip = SBUF_INIT;
	double lo = INFINITY, hi = -INFINITY;
	int rmin = 0, rmax = 0, sides = 0;
	struct frame f;

	sbuf_addf(&title, "%s by round", metric_get(m)->name);
	for (int s = 0; s < SIDE__COUNT; s++) {
		const struct metric_series *ms = &c->side[s].metric[m];
		if (!series_ok(c, s, m))
			continue;
		sides++;
		for (size_t i = 0; i < ms->nr; i++) {
			const struct sample *x = &ms->samples[i];
			if (!isfinite(x->value))
				continue;
			lo = fmin(lo, x->value);
			hi = fmax(hi, x->value);
			if (!rmin || x->round < rmin)
				rmin = x->round;
			if (x->round > rmax)
				rmax = x->round;
		}
	}
	if (!sides || !(lo <= hi)) {
		empty_plot(out, title.buf, "no samples");
		sbuf_release(&title);
		return;
	}
	if (rmin < 1)
		rmin = 1;
	if (rmax < rmin)
		rmax = rmin;
	pad_range(&lo, &hi, 0.08);
	f.x0 = rmin - 0.5;
	f.x1 = rmax + 0.5;
	f.y0 = lo;
	f.y1 = hi;

	svg_open(out, title.buf);
	shade_dropped(out, &f, cp, rmin, rmax);
	y_axis_values(out, &f, c, m);
	x_axis_rounds(out, &f, rmin, rmax);

	double slot = (PR - PL) / (rmax - rmin + 1);
	double off = fmin(slot / 4, 8);
	for (int s = 0; s < SIDE__COUNT; s++) {
		const struct metric_series *ms = &c->side[s].metric[m];
		double *v;
		size_t nv = 0;
		if (!series_ok(c, s, m))
			continue;
		v = xreallocarray(NULL, ms->nr, sizeof(*v));
		for (size_t i = 0; i < ms->nr; i++) {
			const struct sample *x = &ms->samples[i];
			if (!isfinite(x->value))
				continue;
			v[nv++] = x->value;
			double dx = sides == 2 ? (s == SIDE_BASE ? -off : off) : 0;
			/* runs of one round side by side */
			dx += (x->run % 2 ? -1 : 1) * fmin(slot / 10, 1.5);
			sbuf_adds(out, "<circle cx=\"");
			coord(out, fx(&f, x->round) + dx);
			sbuf_adds(out, "\" cy=\"");
			coord(out, fy(&f, x->value));
			sbuf_addf(out, "\" r=\"2.6\" class=\"%s\"><title>",
				  s == SIDE_BASE ? "b" : "h");
			sbuf_addf(&tip, "%s round %d run %d: ", side_name(s), x->round, x->run);
			report_value_text(&tip, c, m, x->value);
			report_html_escape(out, tip.buf, 0);
			sbuf_reset(&tip);
			sbuf_adds(out, "</title></circle>\n");
		}
		double med = median_of(v, nv);
		if (isfinite(med))
			line(out, PL, fy(&f, med), PR, fy(&f, med), s == SIDE_BASE ? "bl" : "hl");
		free(v);
	}
	/* title and legend */
	text_at(out, 8, 14, "t", title.buf);
	if (sides == 2 || series_ok(c, SIDE_BASE, m)) {
		dot(out, PR - 150, 10, 3, "b");
		text_at(out, PR - 144, 14, "", "base");
	}
	if (series_ok(c, SIDE_HEAD, m)) {
		dot(out, PR - 100, 10, 3, "h");
		text_at(out, PR - 94, 14, "", "head");
	}
	text_at(out, PR - 34, 14, "", "median");
	line(out, PR - 52, 10, PR - 38, 10, sides == 2 ? "bl" : "hl");
	svg_close(out);
	sbuf_release(&title);
	sbuf_release(&tip);
}

/* ---- (d) both distributions, runs sorted ------------------------------ */

/* The finite values of side s of metric m, sorted ascending (*n of them). */
static double *sorted_values(const struct command_result *c, enum side s, enum metric_id m,
			     size_t *n)
{
	const struct metric_series *ms = &c->side[s].metric[m];
	double *v = xreallocarray(NULL, ms->nr ? ms->nr : 1, sizeof(*v));

	*n = 0;
	for (size_t i = 0; i < ms->nr; i++)
		if (isfinite(ms->samples[i].value))
			v[(*n)++] = ms->samples[i].value;
	qsort(v, *n, sizeof(*v), cmp_double);
	return v;
}

/* One side: its runs as a step curve over the share of runs, its median
 * dashed and its mean solid across the plot. */
static void dist_side(struct sbuf *out, const struct frame *f, const struct command_result *c,
		      enum side s, enum metric_id m, const double *v, size_t n)
{
	int base = s == SIDE_BASE;
	struct sbuf tip = SBUF_INIT;
	double sum = 0;

	sbuf_addf(out, "<polyline class=\"%s\" points=\"", base ? "bd" : "hd");
	for (size_t i = 0; i < n; i++) {
		sum += v[i];
		for (int k = 0; k < 2; k++) {
			coord(out, fx(f, (double)(i + k) / n));
			sbuf_addch(out, ',');
			coord(out, fy(f, v[i]));
			sbuf_addch(out, ' ');
		}
	}
	sbuf_adds(out, "\"><title>");
	sbuf_addf(&tip, "%s: %zu runs, median ", side_name(s), n);
	report_value_text(&tip, c, m, quantile_sorted(v, n, 0.5));
	sbuf_adds(&tip, ", mean ");
	report_value_text(&tip, c, m, sum / n);
	report_html_escape(out, tip.buf, 0);
	sbuf_adds(out, "</title></polyline>\n");
	double med = quantile_sorted(v, n, 0.5), mean = sum / n;
	line(out, PL, fy(f, med), PR, fy(f, med), base ? "bl" : "hl");
	line(out, PL, fy(f, mean), PR, fy(f, mean), base ? "bm" : "hm");
	sbuf_release(&tip);
}

/*
 * Why a fourth picture: the typical change and the change of the mean can
 * disagree (docs/statistics.md, "The change of the mean"). Both sides'
 * runs sorted, against the share of runs, show where: a slow minority of
 * head's runs is the head curve's late jump, with head's mean (solid)
 * above both medians (dashed) while the medians sit together.
 */
void svg_dist_plot(struct sbuf *out, const struct command_result *c, enum metric_id m)
{
	struct sbuf title = SBUF_INIT;
	double *v[SIDE__COUNT] = {NULL, NULL};
	size_t n[SIDE__COUNT] = {0, 0};
	double lo = INFINITY, hi = -INFINITY;
	struct frame f = {0, 1, 0, 1};

	sbuf_addf(&title, "%s runs sorted, median dashed, mean solid", metric_get(m)->name);
	for (int s = 0; s < SIDE__COUNT; s++) {
		if (!series_ok(c, s, m))
			continue;
		v[s] = sorted_values(c, s, m, &n[s]);
		if (n[s]) {
			lo = fmin(lo, v[s][0]);
			hi = fmax(hi, v[s][n[s] - 1]);
		}
	}
	if (!(lo <= hi)) {
		empty_plot(out, title.buf, "no samples");
	} else {
		pad_range(&lo, &hi, 0.08);
		f.y0 = lo;
		f.y1 = hi;
		svg_open(out, title.buf);
		y_axis_values(out, &f, c, m);
		line(out, PL, PB, PR, PB, "ax");
		/* 0% is the axis' own corner, where the axis title sits */
		for (int k = 1; k <= 4; k++) {
			char lab[8];
			snprintf(lab, sizeof(lab), "%d%%", k * 25);
			text_at(out, fx(&f, k / 4.0), PB + 12, "m", lab);
		}
		text_at(out, PL - 4, PB + 12, "e", "share of runs");
		for (int s = 0; s < SIDE__COUNT; s++)
			if (n[s])
				dist_side(out, &f, c, s, m, v[s], n[s]);
		text_at(out, 8, 14, "t", title.buf);
		if (n[SIDE_BASE]) {
			dot(out, PR - 90, 10, 3, "b");
			text_at(out, PR - 84, 14, "", "base");
		}
		if (n[SIDE_HEAD]) {
			dot(out, PR - 40, 10, 3, "h");
			text_at(out, PR - 34, 14, "", "head");
		}
		svg_close(out);
	}
	free(v[0]);
	free(v[1]);
	sbuf_release(&title);
}

/* ---- (b) ratio plot -------------------------------------------------- */

struct round_ratio {
	int round;
	double ratio;
	int dropped;
};

/* Per round: the mean of the head's runs over the mean of the base's. */
static size_t round_ratios(const struct command_result *c, enum metric_id m,
			   struct round_ratio **out)
{
	const struct metric_series *b = &c->side[SIDE_BASE].metric[m];
	const struct metric_series *h = &c->side[SIDE_HEAD].metric[m];
	int rmax = 0;
	size_t n = 0;

	for (size_t i = 0; i < b->nr; i++)
		if (b->samples[i].round > rmax)
			rmax = b->samples[i].round;
	for (size_t i = 0; i < h->nr; i++)
		if (h->samples[i].round > rmax)
			rmax = h->samples[i].round;
	if (rmax <= 0 || rmax > 10000000) {
		*out = NULL;
		return 0;
	}
	double *sum = xcalloc((size_t)rmax + 1, 4 * sizeof(double));
	/* sum[4r]: base sum, [4r+1] base n, [4r+2] head sum, [4r+3] head n */
	for (size_t i = 0; i < b->nr; i++) {
		const struct sample *x = &b->samples[i];
		if (x->round > 0 && isfinite(x->value)) {
			sum[4 * x->round] += x->value;
			sum[4 * x->round + 1]++;
		}
	}
	for (size_t i = 0; i < h->nr; i++) {
		const struct sample *x = &h->samples[i];
		if (x->round > 0 && isfinite(x->value)) {
			sum[4 * x->round + 2] += x->value;
			sum[4 * x->round + 3]++;
		}
	}
	*out = xcalloc((size_t)rmax, sizeof(**out));
	for (int r = 1; r <= rmax; r++) {
		double *q = &sum[4 * r];
		if (!q[1] || !q[3] || q[0] == 0)
			continue;
		(*out)[n].round = r;
		(*out)[n].ratio = (q[2] / q[3]) / (q[0] / q[1]);
		(*out)[n].dropped = is_dropped(&c->comparison[m], r);
		n++;
	}
	free(sum);
	return n;
}

/* The scale of a ratio or bootstrap plot: its frame, the tolerance t
   (NaN: none) and which of its lines fit on it. */
struct plot_scale {
	struct frame f;
	double lo, hi, t;
	int show_up, show_down;
};

/* The ratio plot's scale: the ratios, 1, and the tolerance band unless it
   is so wide that the data would shrink to a line. */
static void ratio_scale(const struct round_ratio *rr, size_t n, const struct comparison *cp,
			struct plot_scale *sc)
{
	double lo = 1, hi = 1;
	for (size_t i = 0; i < n; i++) {
		lo = fmin(lo, rr[i].ratio);
		hi = fmax(hi, rr[i].ratio);
	}
	sc->t = cp->present && isfinite(cp->max_percent) && cp->max_percent > 0
		    ? cp->max_percent / 100
		    : NAN;
	/*
	 * The tolerance band is part of the picture (the data against it)
	 * unless it is so wide that the data would shrink to a line.
	 */
	double dev = fmax(fmax(hi - 1, 1 - lo), hi - lo);
	sc->show_up = isfinite(sc->t) && sc->t <= 10 * fmax(dev, 0.002);
	sc->show_down = sc->show_up && sc->t < 1;
	if (sc->show_up)
		hi = fmax(hi, 1 + sc->t);
	if (sc->show_down)
		lo = fmin(lo, 1 - sc->t);
	pad_range(&lo, &hi, 0.08);
	sc->f.x0 = rr[0].round - 0.5;
	sc->f.x1 = rr[n - 1].round + 0.5;
	sc->f.y0 = lo;
	sc->f.y1 = hi;
	sc->lo = lo;
	sc->hi = hi;
}

/* The ratio axis: grid lines and labels at nice steps. */
static void ratio_y_axis(struct sbuf *out, const struct plot_scale *sc)
{
	struct sbuf lab = SBUF_INIT;
	double lo = sc->lo, hi = sc->hi;
	double step = nice_step(hi - lo, 4);
	for (int k = 0, nt = tick_count(lo, hi, step); k < nt; k++) {
		double v = tick_at(lo, step, k);
		line(out, PL, fy(&sc->f, v), PR, fy(&sc->f, v), "gr");
		sbuf_addf(&lab, "%.*f",
			  step >= 0.1	 ? 1
			  : step >= 0.01 ? 2
					 : 3,
			  fabs(v) < step * 1e-9 ? 0.0 : v);
		text_at(out, PL - 4, fy(&sc->f, v) + 3.5, "e", lab.buf);
		sbuf_reset(&lab);
	}
	sbuf_release(&lab);
}

/* The lines across: 1.0, the tolerance band, the median of the kept. */
static void ratio_lines(struct sbuf *out, const struct plot_scale *sc, const struct comparison *cp,
			double med)
{
	const struct frame *f = &sc->f;
	double t = sc->t;
	struct sbuf lab = SBUF_INIT;
	line(out, PL, fy(f, 1), PR, fy(f, 1), "one");
	text_at(out, PR - 2, fy(f, 1) - 3, "e", "1.0");
	if (sc->show_up) {
		line(out, PL, fy(f, 1 + t), PR, fy(f, 1 + t), "tol");
		sbuf_addf(&lab, "+%g%%", cp->max_percent);
		text_at(out, PL + 4, fy(f, 1 + t) - 3, "tolt", lab.buf);
		sbuf_reset(&lab);
	}
	if (sc->show_down) {
		line(out, PL, fy(f, 1 - t), PR, fy(f, 1 - t), "tol");
		sbuf_addf(&lab, "-%g%%", cp->max_percent);
		text_at(out, PL + 4, fy(f, 1 - t) + 10, "tolt", lab.buf);
		sbuf_reset(&lab);
	}
	if (isfinite(med)) {
		line(out, PL, fy(f, med), PR, fy(f, med), "med");
	}
	sbuf_release(&lab);
}

/* One point per round, the dropped ones marked. */
static void ratio_points(struct sbuf *out, const struct frame *f, const struct round_ratio *rr,
			 size_t n)
{
	for (size_t i = 0; i < n; i++) {
		sbuf_adds(out, "<circle cx=\"");
		coord(out, fx(f, rr[i].round));
		sbuf_adds(out, "\" cy=\"");
		coord(out, fy(f, rr[i].ratio));
		sbuf_addf(out,
			  "\" r=\"3\" class=\"%s\"><title>round %d: "
			  "%.4f%s</title></circle>\n",
			  rr[i].dropped ? "rd" : "r", rr[i].round, rr[i].ratio,
			  rr[i].dropped ? " (dropped)" : "");
	}
}

void svg_ratio_plot(struct sbuf *out, const struct command_result *c, enum metric_id m)
{
	const struct comparison *cp = &c->comparison[m];
	struct sbuf title = SBUF_INIT, lab = SBUF_INIT;
	struct round_ratio *rr = NULL;
	size_t n = 0, nk = 0;
	double *kept;
	struct plot_scale sc;

	sbuf_addf(&title, "%s head / base per round", metric_get(m)->name);
	if (series_ok(c, SIDE_BASE, m) && series_ok(c, SIDE_HEAD, m))
		n = round_ratios(c, m, &rr);
	if (!n) {
		empty_plot(out, title.buf, "no round holds runs of both sides");
		sbuf_release(&title);
		free(rr);
		return;
	}
	kept = xreallocarray(NULL, n, sizeof(*kept));
	for (size_t i = 0; i < n; i++)
		if (!rr[i].dropped)
			kept[nk++] = rr[i].ratio;
	double med = median_of(kept, nk);
	ratio_scale(rr, n, cp, &sc);
	int rmin = rr[0].round, rmax = rr[n - 1].round;

	svg_open(out, title.buf);
	shade_dropped(out, &sc.f, cp, rmin, rmax);
	ratio_y_axis(out, &sc);
	line(out, PL, PT, PL, PB, "ax");
	x_axis_rounds(out, &sc.f, rmin, rmax);
	ratio_lines(out, &sc, cp, med);
	ratio_points(out, &sc.f, rr, n);
	text_at(out, 8, 14, "t", title.buf);
	if (isfinite(med)) {
		sbuf_addf(&lab, "median %.3f (", med);
		units_format_percent(&lab, (med - 1) * 100);
		sbuf_addch(&lab, ')');
		text_at(out, PR, 14, "e medt", lab.buf);
	}
	svg_close(out);
	free(kept);
	free(rr);
	sbuf_release(&title);
	sbuf_release(&lab);
}

/* ---- (c) bootstrap distribution --------------------------------------- */

/* The distribution function through the 101 quantiles q at x. */
static double boot_cdf(const double *q, double x)
{
	int k;

	if (x < q[0])
		return 0;
	if (x >= q[COMPARISON_BOOT_QUANTILES - 1])
		return 1;
	/* the last k with q[k] <= x (ties: the jump is taken whole) */
	for (k = COMPARISON_BOOT_QUANTILES - 2; k > 0 && q[k] > x; k--)
		;
	if (q[k + 1] > q[k])
		return (k + (x - q[k]) / (q[k + 1] - q[k])) / 100;
	return (k + 1) / 100.0;
}

static void percent_label(struct sbuf *out, double v, double step)
{
	int d = step >= 1 ? 0 : step >= 0.1 ? 1 : step >= 0.01 ? 2 : 3;

	if (fabs(v) < step * 1e-9)
		v = 0;
	if (v == 0)
		sbuf_adds(out, "0%");
	else
		sbuf_addf(out, "%+.*f%%", d, v);
}

/* The bootstrap plot's scale: the quantiles, the interval, the estimate,
   0, and the tolerance lines unless absurdly wide (as in the ratio plot). */
static void boot_scale(const struct comparison *cp, const double *q, struct plot_scale *sc)
{
	double lo = q[0], hi = q[COMPARISON_BOOT_QUANTILES - 1];
	double t = isfinite(cp->max_percent) && cp->max_percent > 0 ? cp->max_percent : NAN;
	if (isfinite(cp->ci_low_percent))
		lo = fmin(lo, cp->ci_low_percent);
	if (isfinite(cp->ci_high_percent))
		hi = fmax(hi, cp->ci_high_percent);
	if (isfinite(cp->change_percent)) {
		lo = fmin(lo, cp->change_percent);
		hi = fmax(hi, cp->change_percent);
	}
	lo = fmin(lo, 0);
	hi = fmax(hi, 0);
	/* as in the ratio plot: the tolerance lines unless absurdly wide */
	double dev = fmax(fmax(fabs(lo), fabs(hi)), hi - lo);
	sc->show_up = isfinite(t) && t <= 10 * fmax(dev, 0.2);
	sc->show_down = sc->show_up;
	if (sc->show_up)
		hi = fmax(hi, t);
	if (sc->show_down)
		lo = fmin(lo, -t);
	pad_range(&lo, &hi, 0.06);
	sc->f.x0 = lo;
	sc->f.x1 = hi;
	sc->f.y0 = 0;
	sc->f.y1 = 1;
	sc->lo = lo;
	sc->hi = hi;
	sc->t = t;
}

/* The percent axis, then the interval as a band with its label. */
static void boot_axis_interval(struct sbuf *out, const struct plot_scale *sc,
			       const struct comparison *cp)
{
	const struct frame *f = &sc->f;
	struct sbuf lab = SBUF_INIT;
	/* x axis: percent */
	double step = nice_step(sc->hi - sc->lo, 8);
	line(out, PL, PB, PR, PB, "ax");
	for (int k = 0, nt = tick_count(sc->lo, sc->hi, step); k < nt; k++) {
		double v = tick_at(sc->lo, step, k);
		line(out, fx(f, v), PT, fx(f, v), PB, "gr");
		percent_label(&lab, v, step);
		text_at(out, fx(f, v), PB + 12, "m", lab.buf);
		sbuf_reset(&lab);
	}
	/* the interval */
	if (isfinite(cp->ci_low_percent) && isfinite(cp->ci_high_percent)) {
		sbuf_adds(&lab, "interval ");
		units_format_percent(&lab, cp->ci_low_percent);
		sbuf_adds(&lab, " … ");
		units_format_percent(&lab, cp->ci_high_percent);
		if (isfinite(cp->confidence))
			sbuf_addf(&lab, " (%g%%)", cp->confidence * 100);
		double x0 = fx(f, cp->ci_low_percent);
		double x1 = fx(f, cp->ci_high_percent);
		rect(out, x0, PT, fmax(x1 - x0, 1), PB - PT, "ci", lab.buf);
		text_at(out, PR, 14, "e", lab.buf);
		sbuf_reset(&lab);
	}
	sbuf_release(&lab);
}

/* The histogram over the data's own range, BOOT_BINS bars (one spike when
   every resample gave the same change). */
static void boot_bars(struct sbuf *out, const struct frame *f, const double *q)
{
	double mass[BOOT_BINS], top = 0;
	double qlo = q[0], qhi = q[COMPARISON_BOOT_QUANTILES - 1];
	double w = (qhi - qlo) / BOOT_BINS;
	int spike = !(w > 0) || (fx(f, qhi) - fx(f, qlo)) < 2;
	if (spike) {
		double x = fx(f, (qlo + qhi) / 2);
		rect(out, x - 2, PT + 14, 4, PB - PT - 14, "bar",
		     "every resample gave this change");
		return;
	}
	for (int i = 0; i < BOOT_BINS; i++) {
		double a = qlo + w * i, b = a + w;
		mass[i] = boot_cdf(q, b) - boot_cdf(q, a);
		if (i == BOOT_BINS - 1)
			mass[i] = 1 - boot_cdf(q, a);
		top = fmax(top, mass[i]);
	}
	for (int i = 0; i < BOOT_BINS && top > 0; i++) {
		double a = qlo + w * i;
		double x0 = fx(f, a), x1 = fx(f, a + w);
		double hgt = mass[i] / top * (PB - PT - 14);
		if (!(mass[i] > 0))
			continue;
		rect(out, x0, PB - hgt, fmax(x1 - x0 - 0.5, 0.5), hgt, "bar", NULL);
	}
}

/* The tolerance lines, or where they are off the scale. */
static void boot_tolerance(struct sbuf *out, const struct plot_scale *sc)
{
	const struct frame *f = &sc->f;
	double t = sc->t;
	struct sbuf lab = SBUF_INIT;
	if (sc->show_up) {
		line(out, fx(f, t), PT, fx(f, t), PB, "tol");
		sbuf_addf(&lab, "+%g%%", t);
		text_at(out, fx(f, t) + 3, PB - 4, "tolt", lab.buf);
		sbuf_reset(&lab);
	}
	if (sc->show_down) {
		line(out, fx(f, -t), PT, fx(f, -t), PB, "tol");
		sbuf_addf(&lab, "-%g%%", t);
		text_at(out, fx(f, -t) - 3, PB - 4, "e tolt", lab.buf);
		sbuf_reset(&lab);
	}
	if (!sc->show_up) {
		sbuf_addf(&lab, "+%g%% off scale →", t);
		text_at(out, PR - 2, PB - 4, "e tolt", lab.buf);
		sbuf_reset(&lab);
	}
	if (!sc->show_down) {
		sbuf_addf(&lab, "← -%g%% off scale", t);
		text_at(out, PL + 2, PB - 4, "tolt", lab.buf);
		sbuf_reset(&lab);
	}
	sbuf_release(&lab);
}

void svg_boot_plot(struct sbuf *out, const struct command_result *c, enum metric_id m)
{
	const struct comparison *cp = &c->comparison[m];
	double q[COMPARISON_BOOT_QUANTILES];
	struct sbuf title = SBUF_INIT, lab = SBUF_INIT;
	struct plot_scale sc;

	sbuf_addf(&title, "%s change: bootstrap distribution", metric_get(m)->name);
	if (!cp->present || !comparison_boot_quantiles(cp, q)) {
		empty_plot(out, title.buf, "no bootstrap distribution");
		sbuf_release(&title);
		return;
	}
	boot_scale(cp, q, &sc);

	svg_open(out, title.buf);
	boot_axis_interval(out, &sc, cp);
	boot_bars(out, &sc.f, q);
	/* 0, the estimate, the tolerance */
	line(out, fx(&sc.f, 0), PT, fx(&sc.f, 0), PB, "one");
	if (isfinite(cp->change_percent)) {
		double x = fx(&sc.f, cp->change_percent);
		line(out, x, PT + 6, x, PB, "est");
		units_format_percent(&lab, cp->change_percent);
		text_at(out, x + 3, PT + 14, "", lab.buf);
		sbuf_reset(&lab);
	}
	if (isfinite(sc.t))
		boot_tolerance(out, &sc);
	text_at(out, 8, 14, "t", title.buf);
	svg_close(out);
	sbuf_release(&title);
	sbuf_release(&lab);
}

/*
 * The title, the value axis of metric m (grid lines and labels at nice
 * steps) and both axes of frame f: what every line plot over values
 * draws first.
 */
static void value_frame(struct sbuf *out, const struct frame *f, enum metric_id m,
			const char *title)
{
	struct sbuf lab = SBUF_INIT;
	double step = nice_step(f->y1 - f->y0, 4);

	text_at(out, 8, 14, "t", title);
	for (int k = 0, nt = tick_count(f->y0, f->y1, step); k < nt; k++) {
		double v = tick_at(f->y0, step, k);
		line(out, PL, fy(f, v), PR, fy(f, v), "gr");
		units_format_value(&lab, m, fabs(v) < step * 1e-9 ? 0 : v);
		text_at(out, PL - 4, fy(f, v) + 3.5, "e", lab.buf);
		sbuf_reset(&lab);
	}
	line(out, PL, PT, PL, PB, "ax");
	line(out, PL, PB, PR, PB, "ax");
	sbuf_release(&lab);
}

/* ---- trend (kagari history) ------------------------------------------ */

void svg_trend_plot(struct sbuf *out, const char *title, enum metric_id m, const double *y,
		    const double *lo, const double *hi, size_t n, const char *const *labels,
		    const size_t *steps, size_t nr_steps)
{
	if (!n) {
		empty_plot(out, title, "no commits recorded");
		return;
	}
	struct frame f = {0, n > 1 ? (double)(n - 1) : 1, y[0], y[0]};
	for (size_t i = 0; i < n; i++) {
		double a = lo && isfinite(lo[i]) ? fmin(lo[i], y[i]) : y[i];
		double b = hi && isfinite(hi[i]) ? fmax(hi[i], y[i]) : y[i];
		if (a < f.y0)
			f.y0 = a;
		if (b > f.y1)
			f.y1 = b;
	}
	pad_range(&f.y0, &f.y1, 0.08);
	if (n == 1) {
		f.x0 = -1;
		f.x1 = 1;
	}
	svg_open(out, title);
	value_frame(out, &f, m, title);
	struct sbuf lab = SBUF_INIT;
	/* Each step: a dashed line between the last old and first new commit. */
	for (size_t s = 0; s < nr_steps; s++) {
		if (steps[s] == 0 || steps[s] >= n)
			continue;
		double x = fx(&f, (double)steps[s] - 0.5);
		line(out, x, PT, x, PB, "tol");
		sbuf_addf(&lab, "step at %s", labels && labels[steps[s]] ? labels[steps[s]] : "?");
		text_at(out, x + 3, PT + 9, "tolt", lab.buf);
		sbuf_reset(&lab);
	}
	for (size_t i = 0; i + 1 < n; i++)
		line(out, fx(&f, (double)i), fy(&f, y[i]), fx(&f, (double)i + 1), fy(&f, y[i + 1]),
		     "one");
	/* Each commit's runs: a bar from the least to the greatest. */
	for (size_t i = 0; lo && hi && i < n; i++)
		if (isfinite(lo[i]) && isfinite(hi[i]) && hi[i] > lo[i])
			line(out, fx(&f, (double)i), fy(&f, lo[i]), fx(&f, (double)i),
			     fy(&f, hi[i]), "iv");
	for (size_t i = 0; i < n; i++)
		dot(out, fx(&f, (double)i), fy(&f, y[i]), 2.5, "h");
	/* First and last commit under the axis. */
	if (labels) {
		text_at(out, fx(&f, 0), PB + 12, n > 1 ? "" : "m", labels[0]);
		if (n > 1)
			text_at(out, fx(&f, (double)(n - 1)), PB + 12, "e", labels[n - 1]);
	}
	svg_close(out);
	sbuf_release(&lab);
}

void svg_aa_plot(struct sbuf *out, const char *title, const double *change, size_t n,
		 const double *tol, size_t nr_tol)
{
	if (!n) {
		empty_plot(out, title, "no compare measured this metric");
		return;
	}
	double top = 0;
	for (size_t i = 0; i < n; i++)
		if (fabs(change[i]) > top)
			top = fabs(change[i]);
	/* The bands that fit beside the points, and at least the first. */
	size_t shown = 0;
	for (size_t k = 0; k < nr_tol; k++)
		if (k == 0 || tol[k] <= 2 * top)
			shown = k + 1;
	for (size_t k = 0; k < shown; k++)
		if (tol[k] > top)
			top = tol[k];
	struct frame f = {-0.5, n > 1 ? (double)n - 0.5 : 0.5, -top, top};
	pad_range(&f.y0, &f.y1, 0.08);
	svg_open(out, title);
	text_at(out, 8, 14, "t", title);
	struct sbuf lab = SBUF_INIT;
	line(out, PL, PT, PL, PB, "ax");
	line(out, PL, PB, PR, PB, "ax");
	line(out, PL, fy(&f, 0), PR, fy(&f, 0), "one");
	text_at(out, PL - 4, fy(&f, 0) + 3.5, "e", "0%");
	/* T bands: a change inside ±T is not a verdict at tolerance T. */
	for (size_t k = 0; k < shown; k++) {
		line(out, PL, fy(&f, tol[k]), PR, fy(&f, tol[k]), "tol");
		line(out, PL, fy(&f, -tol[k]), PR, fy(&f, -tol[k]), "tol");
		sbuf_addf(&lab, "±%g%%", tol[k]);
		text_at(out, PL - 4, fy(&f, tol[k]) + 3.5, "e", lab.buf);
		sbuf_reset(&lab);
	}
	for (size_t i = 0; i < n; i++)
		dot(out, fx(&f, (double)i), fy(&f, change[i]), 2.5, "h");
	sbuf_addf(&lab, "A/A compare 1..%zu", n);
	text_at(out, (PL + PR) / 2, PB + 12, "m", lab.buf);
	svg_close(out);
	sbuf_release(&lab);
}

void svg_axis_plot(struct sbuf *out, const char *title, const char *axis, enum metric_id m,
		   const struct svg_line *lines, size_t nr_lines)
{
	struct frame f = {0, 0, 0, 0};
	int first = 1;
	for (size_t l = 0; l < nr_lines; l++)
		for (size_t i = 0; i < lines[l].n; i++) {
			double x = lines[l].x[i], y = lines[l].y[i];
			if (!isfinite(x) || !isfinite(y))
				continue;
			if (first) {
				f.x0 = f.x1 = x;
				f.y0 = f.y1 = y;
				first = 0;
			}
			f.x0 = x < f.x0 ? x : f.x0;
			f.x1 = x > f.x1 ? x : f.x1;
			f.y0 = y < f.y0 ? y : f.y0;
			f.y1 = y > f.y1 ? y : f.y1;
		}
	if (first) {
		empty_plot(out, title, "no command measured this metric");
		return;
	}
	if (f.x1 == f.x0) {
		f.x0 -= 1;
		f.x1 += 1;
	}
	pad_range(&f.y0, &f.y1, 0.08);
	svg_open(out, title);
	value_frame(out, &f, m, title);
	struct sbuf lab = SBUF_INIT;
	static const char *const cls[] = {"h", "b", "r"};
	for (size_t l = 0; l < nr_lines; l++) {
		const struct svg_line *ln = &lines[l];
		for (size_t i = 0; i + 1 < ln->n; i++)
			if (isfinite(ln->y[i]) && isfinite(ln->y[i + 1]))
				line(out, fx(&f, ln->x[i]), fy(&f, ln->y[i]), fx(&f, ln->x[i + 1]),
				     fy(&f, ln->y[i + 1]), "one");
		for (size_t i = 0; i < ln->n; i++)
			if (isfinite(ln->y[i]))
				dot(out, fx(&f, ln->x[i]), fy(&f, ln->y[i]), 2.5, cls[l % 3]);
		/* the line's name beside its last point */
		if (ln->label && ln->n && isfinite(ln->y[ln->n - 1]))
			text_at(out, fx(&f, ln->x[ln->n - 1]) - 4, fy(&f, ln->y[ln->n - 1]) - 5,
				"e", ln->label);
	}
	sbuf_addf(&lab, "%g", f.x0);
	text_at(out, PL, PB + 12, "", lab.buf);
	sbuf_reset(&lab);
	sbuf_addf(&lab, "%g", f.x1);
	text_at(out, PR, PB + 12, "e", lab.buf);
	sbuf_reset(&lab);
	text_at(out, (PL + PR) / 2, PB + 12, "m", axis);
	svg_close(out);
	sbuf_release(&lab);
}
