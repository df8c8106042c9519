/*
 * analyze/format: metric values as people read them, for budget messages
 * and every report writer (one formatter, so all outputs agree).
 *
 * Values are in the metric's base unit (metric.h). Each function appends
 * to `out` and never fails; NaN appends "n/a", infinities "inf"/"-inf".
 *
 *   ns     812 ns, 12.34 us, 312.4 ms, 2.345 s   (4 significant digits)
 *   bytes  512 B, 1.50 KiB, 64.0 MiB, 1.25 GiB  (3 significant digits,
 *          powers of 1024, up to PiB)
 *   count  1234567 (integers plain, no separators; a fractional value such
 *          as a mean gets one decimal: 1234.5)
 *   ratio  0.873 (3 decimals)
 *   rate   1234.5 /s (1 decimal)
 *
 * The unit is chosen after rounding, so 999.96 us prints as 1.000 ms and
 * 1023.9 KiB as 1.00 MiB.
 */
#ifndef KAGARI_ANALYZE_FORMAT_H
#define KAGARI_ANALYZE_FORMAT_H

#include "base/sbuf.h"
#include "model/metric.h"

/* Append v (base unit of metric m) with its unit. */
void units_format_value(struct sbuf *out, enum metric_id m, double v);
/* The same, by unit: `integral` says whether whole values are expected. */
void units_format_unit(struct sbuf *out, enum metric_unit unit, int integral, double v);
/*
 * Append a difference `delta` in the unit and number of decimals that `ref`
 * is printed with, so that "312.4 ms" and "300 ms" differ "by 12.4 ms".
 * Falls back to units_format_value(delta) when that would print as zero
 * (or ref is 0 or not finite). The sign of delta is kept ("-12.4 ms").
 */
void units_format_delta(struct sbuf *out, enum metric_id m, double delta, double ref);
/*
 * A signed percentage: "+4.1%", "-12.0%"; below 0.05 in magnitude two
 * significant digits ("+0.042%"); exactly zero "0.0%"; NaN "n/a".
 */
void units_format_percent(struct sbuf *out, double pct);

/*
 * A change with its interval, as plain text says it: "+4.1% [-0.3%, +8.7%]";
 * the change alone ("+4.1%") when it has no interval (both bounds NaN). The
 * one form of every plain-text writer and message.
 */
void units_format_change(struct sbuf *out, double pct, double low, double high);

#endif
