/*
 * report/power: `kagari power`'s table and JSON (docs/power.md): the
 * traces' noise, the design, and per cell the share of each verdict and
 * the runs per side it took.
 */
#ifndef KAGARI_REPORT_POWER_H
#define KAGARI_REPORT_POWER_H

#include <stddef.h>
#include <stdint.h>

#include "base/sbuf.h"
#include "power/power.h"
#include "model/trace.h"

void report_power_table(struct sbuf *o, const struct power_design *d, const struct trace *tr,
			size_t nt, const struct power_trace_stats *ts,
			const struct power_cell *cells, size_t nc, uint64_t seed);
void report_power_json(struct sbuf *o, const struct power_design *d, const struct trace *tr,
		       size_t nt, const struct power_trace_stats *ts,
		       const struct power_cell *cells, size_t nc, uint64_t seed);

#endif
