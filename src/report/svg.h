/*
 * report/svg: the inline SVG plots of the HTML report (escaping is
 * report/escape.h's, included here for the plots' callers).
 *
 * Four pictures explain a comparison of one metric of one command:
 *
 *   svg_strip_plot()  the samples of each side by round (base blue, head
 *                     orange), each side's median dashed, rounds the stall
 *                     filter dropped shaded; in run mode only the head;
 *   svg_ratio_plot()  head / base per round (mean of each side's runs in
 *                     the round), 1.0 and the median ratio marked, the
 *                     tolerance 1 ± max_percent dashed, dropped rounds
 *                     hollow;
 *   svg_boot_plot()   the bootstrap distribution of the change in percent
 *                     as a histogram, the estimate, 0, the interval
 *                     (shaded) and the tolerance lines ±max_percent;
 *   svg_dist_plot()   both sides' runs sorted against the share of runs,
 *                     each side's median dashed and mean solid: where the
 *                     typical change and the change of the mean part (a
 *                     slow minority is the head curve's late jump).
 *
 * Call order: inside an HTML body whose stylesheet holds
 * SVG_STYLESHEET, call any of the plot functions; each appends exactly one
 * `<svg class="plot" ...>...</svg>` element of SVG_WIDTH x SVG_HEIGHT
 * (scaled down by CSS on narrow screens), with a <title> for screen
 * readers, even when there is nothing to draw (it then says why). No
 * scripts, no external references.
 *
 * The bootstrap plot works from c->boot either as raw resamples or as 101
 * quantiles (c->boot_is_quantiles, a report read back from JSON): both are
 * reduced to the 101 quantiles by comparison_boot_quantiles() and the
 * histogram is drawn from the piecewise-linear distribution function
 * through them, so both give the same picture.
 *
 * Ownership: everything is read from the caller's structures; nothing is
 * kept.
 */
#ifndef KAGARI_REPORT_SVG_H
#define KAGARI_REPORT_SVG_H

#include "base/sbuf.h"
#include "report/escape.h"
#include "model/result.h"

#define SVG_WIDTH 600
#define SVG_HEIGHT 160

/* CSS rules the plots' classes need (for the page's <style>). */
extern const char SVG_STYLESHEET[];

/* Plot metric m of command c; see above. */
void svg_strip_plot(struct sbuf *out, const struct command_result *c, enum metric_id m);
void svg_ratio_plot(struct sbuf *out, const struct command_result *c, enum metric_id m);
/*
 * The trend of one metric over commits (`kagari history --format html`):
 * y[0..n) in commit order, each with the interval of its runs
 * [lo[i], hi[i]] drawn as a vertical bar (class "iv") where it is wider
 * than nothing (lo, hi may be NULL), labels[i] the commit's short name
 * (may be NULL), and a dashed marker before each index in
 * steps[0..nr_steps).
 */
void svg_trend_plot(struct sbuf *out, const char *title, enum metric_id m, const double *y,
		    const double *lo, const double *hi, size_t n, const char *const *labels,
		    const size_t *steps, size_t nr_steps);
/*
 * The A/A scatter of `kagari aa` (founding article 000): change[0..n) in
 * percent, one dot per A/A compare in order, 0 marked, and the tolerance
 * bands ±tol[k] (ascending) that fit the points dashed.
 */
void svg_aa_plot(struct sbuf *out, const char *title, const double *change, size_t n,
		 const double *tol, size_t nr_tol);
/*
 * A metric against one numeric `matrix:` axis: one line per combination
 * of the other axes (x ascending, y the head side's median in m's base
 * unit, NAN: not measured), labelled at its last point.
 */
struct svg_line {
	const char *label;
	const double *x, *y;
	size_t n;
};
void svg_axis_plot(struct sbuf *out, const char *title, const char *axis, enum metric_id m,
		   const struct svg_line *lines, size_t nr_lines);
void svg_boot_plot(struct sbuf *out, const struct command_result *c, enum metric_id m);
void svg_dist_plot(struct sbuf *out, const struct command_result *c, enum metric_id m);

/*
 * The (differential) flame graph of c->profile (report/flame.c): one
 * `<svg class="flame">` 1000 px wide, a row per stack depth, each frame as
 * wide as its share of the head's samples; with both sides, coloured by
 * the verdict on its function's self time (red grew, blue shrank, deeper
 * for a larger change, beige same, grey too few samples), each frame's
 * <title> giving both sides' samples. Without head stacks, a line saying so.
 */
void svg_flame_graph(struct sbuf *out, const struct command_result *c);

#endif
