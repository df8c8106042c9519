/*
 * suite/units: the value syntaxes of a suite file.
 *
 *   durations    "1.5s", "300ms", "1h30m"  (ns us µs μs ms s m h; a bare
 *                number is an error; negative or over 24h is an error)
 *   sizes        "64MiB", "1.5 GB"          (B KB MB GB TB powers of 1000,
 *                KiB MiB GiB TiB powers of 1024; case-sensitive)
 *   percentages  "10" or "10%"              in (0, 1000]; a tolerance
 *                                           (max_percent) in [0.001, 1000]
 *   rates        "<n> <unit>/s"             ("20 MB/s" -> bytes per second)
 *   budgets      "OP value"                 OP in < <= > >=, the value in the
 *                metric's unit (see units_parse_budget)
 *
 * Every parser is pure: it returns 0 and fills its output, or returns -1,
 * leaves the output untouched and appends one lowercase reason (no position,
 * no final period) to err. The suite loader adds FILE:LINE:COL and the field.
 * Formatting values back to text is report/'s job, not this module's.
 */
#ifndef KAGARI_SUITE_UNITS_H
#define KAGARI_SUITE_UNITS_H

#include <stdint.h>

#include "model/metric.h"
#include "suite/model.h"

struct sbuf;

/* Largest duration accepted anywhere in a suite: 24 hours. */
#define UNITS_MAX_DURATION_NS (INT64_C(24) * 3600 * 1000000000)

/* A plain decimal number ("12", "1.5", "1e6"); no unit, finite. */
int units_parse_number(const char *s, double *out, struct sbuf *err);
/* Duration into nanoseconds (rounded), 0 <= ns <= 24h. */
int units_parse_duration(const char *s, int64_t *ns, struct sbuf *err);
/* Size into bytes (rounded), >= 0, at most 2^62. A unit is required. */
int units_parse_size(const char *s, int64_t *bytes, struct sbuf *err);
/* "10" or "10%" (also "10 %") into 10.0; must lie in (0, 1000]. */
int units_parse_percent(const char *s, double *pct, struct sbuf *err);
/*
 * A tolerance (`max_percent`, --max-percent of every command): a
 * percentage as above in [SETTINGS_MIN_MAX_PERCENT,
 * SETTINGS_MAX_MAX_PERCENT] (model/settings.h), the one range a suite, a
 * command line and a saved report are held to.
 */
int units_parse_tolerance(const char *s, double *pct, struct sbuf *err);
/*
 * "<n> <unit>/s" into units per second. A size unit (B, KB, MiB, ...) is
 * converted to bytes and *unit is set to "bytes"; any other unit name
 * ([A-Za-z_]+, e.g. "ops", "lines") is returned as written. *unit is a
 * freshly allocated string the caller frees (untouched on error).
 */
int units_parse_rate(const char *s, double *per_second, char **unit, struct sbuf *err);
/*
 * Aggregation name: min max mean median, or pN with 0 < N < 100 (p50, p95,
 * p99.9). *percentile is set for AGG_PERCENTILE only.
 */
int units_parse_aggregation(const char *s, enum aggregation *agg, double *percentile,
			    struct sbuf *err);
/*
 * A budget "OP value" for `metric` under `aggregation`. The value is parsed
 * in the metric's unit: durations for latency/cpu_*, sizes for peak_rss,
 * alloc_bytes, peak_heap, plain numbers for counts and ipc, a rate or a
 * plain number for throughput, a ratio ("0.9") or percentage ("90%") for
 * cpu_utilization. Lower-is-better metrics take only < <=, higher-is-better
 * only > >=, cpu_utilization either.
 * On success `out` is filled (aggregation_name, limit_text and unit are
 * allocated; loc is zeroed) and the caller releases it with the suite.
 */
int units_parse_budget(enum metric_id metric, const char *aggregation, const char *text,
		       struct budget *out, struct sbuf *err);
/*
 * A value in the metric's base unit, as for min_difference: a duration for
 * time metrics, a size for byte metrics, a plain number for counts and
 * ratios, a rate or plain number for throughput (unit ignored).
 */
int units_parse_metric_value(enum metric_id metric, const char *s, double *out, struct sbuf *err);

#endif
