/*
 * analyze/format: how values of each metric and percentages read in every
 * report and message (format.h): units chosen per magnitude, integral
 * metrics as integers, signed percentages and deltas.
 */
#include "analyze/format.h"

#include <math.h>

struct scale {
	const char *name;
	double factor;
};

static const struct scale time_scales[] = {
    {"ns", 1},
    {"us", 1e3},
    {"ms", 1e6},
    {"s", 1e9},
};

static const struct scale byte_scales[] = {
    {"B", 1},
    {"KiB", 1024.0},
    {"MiB", 1024.0 * 1024},
    {"GiB", 1024.0 * 1024 * 1024},
    {"TiB", 1024.0 * 1024 * 1024 * 1024},
    {"PiB", 1024.0 * 1024 * 1024 * 1024 * 1024},
};

/* How a value is printed: the scale index and the number of decimals. */
struct layout {
	int scale;
	int decimals;
};

static double round_to(double x, int decimals)
{
	double p = pow(10, decimals);

	return round(x * p) / p;
}

/*
 * Decimals that give `sig` significant digits to x >= 0, judged after
 * rounding (9.9996 with 4 digits is "10.00", not "10.000").
 */
static int decimals_for(double x, int sig)
{
	double lim = 10;
	int d;

	for (d = sig - 1; d > 0; d--, lim *= 10)
		if (round_to(x, d) < lim)
			break;
	return d;
}

/*
 * Pick the largest-but-one-step scale in which |v| stays below `limit`
 * after rounding; the base scale (integers: ns, B) prints no decimals.
 */
static struct layout pick_layout(const struct scale *sc, int nr, double limit, int sig, double a)
{
	struct layout l = {0, 0};

	if (round(a) < limit)
		return l;
	for (int i = 1; i < nr; i++) {
		double x = a / sc[i].factor;
		int d = decimals_for(x, sig);
		l.scale = i;
		l.decimals = d;
		if (round_to(x, d) < limit)
			break;
	}
	return l;
}

static int layout_for(enum metric_unit unit, double a, struct layout *l, const struct scale **sc)
{
	switch (unit) {
	case UNIT_NS:
		*sc = time_scales;
		*l = pick_layout(time_scales, 4, 1000, 4, a);
		return 1;
	case UNIT_BYTES:
		*sc = byte_scales;
		*l = pick_layout(byte_scales, 6, 1024, 3, a);
		return 1;
	default:
		return 0;
	}
}

static int format_nonfinite(struct sbuf *out, double v)
{
	if (isnan(v)) {
		sbuf_adds(out, "n/a");
		return 1;
	}
	if (isinf(v)) {
		sbuf_adds(out, v < 0 ? "-inf" : "inf");
		return 1;
	}
	return 0;
}

static void format_scaled(struct sbuf *out, const struct scale *sc, struct layout l, double v)
{
	double x = fabs(v) / sc[l.scale].factor;

	/* Sign added by hand so that -0.4 ns never prints as "-0 ns". */
	if (v < 0 && round_to(x, l.decimals) != 0)
		sbuf_addch(out, '-');
	sbuf_addf(out, "%.*f %s", l.decimals, x, sc[l.scale].name);
}

void units_format_unit(struct sbuf *out, enum metric_unit unit, int integral, double v)
{
	const struct scale *sc;
	struct layout l;

	if (format_nonfinite(out, v))
		return;
	if (layout_for(unit, fabs(v), &l, &sc)) {
		format_scaled(out, sc, l, v);
		return;
	}
	if (v == 0)
		v = 0; /* no "-0" */
	switch (unit) {
	case UNIT_RATIO:
		sbuf_addf(out, "%.3f", v);
		break;
	case UNIT_RATE:
		sbuf_addf(out, "%.1f /s", v);
		break;
	default:
		if (integral && v == floor(v))
			sbuf_addf(out, "%.0f", v);
		else
			sbuf_addf(out, "%.1f", v);
		break;
	}
}

void units_format_value(struct sbuf *out, enum metric_id m, double v)
{
	const struct metric_info *mi = metric_get(m);

	units_format_unit(out, mi->unit, mi->integral, v);
}

void units_format_delta(struct sbuf *out, enum metric_id m, double delta, double ref)
{
	const struct metric_info *mi = metric_get(m);
	const struct scale *sc;
	struct layout l;

	if (!isfinite(delta) || !isfinite(ref) || ref == 0 ||
	    !layout_for(mi->unit, fabs(ref), &l, &sc) ||
	    round_to(fabs(delta) / sc[l.scale].factor, l.decimals) == 0) {
		units_format_value(out, m, delta);
		return;
	}
	format_scaled(out, sc, l, delta);
}

void units_format_percent(struct sbuf *out, double pct)
{
	if (isnan(pct)) {
		sbuf_adds(out, "n/a");
		return;
	}
	if (pct == 0)
		sbuf_adds(out, "0.0%");
	else if (fabs(pct) < 0.05)
		sbuf_addf(out, "%+.2g%%", pct);
	else
		sbuf_addf(out, "%+.1f%%", pct);
}

void units_format_change(struct sbuf *out, double pct, double low, double high)
{
	units_format_percent(out, pct);
	if (isnan(low) && isnan(high))
		return;
	sbuf_adds(out, " [");
	units_format_percent(out, low);
	sbuf_adds(out, ", ");
	units_format_percent(out, high);
	sbuf_addch(out, ']');
}
