/* report/write_power: `kagari power`'s table and JSON (see power.h). */
#include "report/power.h"

#include <stdio.h>

#include "model/metric.h"
#include "suite/model.h"
#include "report/json_emit.h"

void report_power_table(struct sbuf *o, const struct power_design *d, const struct trace *tr,
			size_t nt, const struct power_trace_stats *ts,
			const struct power_cell *cells, size_t nc, uint64_t seed)
{
	sbuf_addf(o,
		  "kagari power: %zu trace%s, %zu runs, median %.2f ms, adjacent pairs MAD %.2f%% "
		  "sd %.2f%% (%s)\n",
		  nt, nt == 1 ? "" : "s", ts->runs, ts->median_ns / 1e6, ts->pair_mad, ts->pair_sd,
		  d->metric == METRIC_CPU_TOTAL ? "cpu_total" : "latency");
	for (size_t i = 0; i < nt; i++)
		sbuf_addf(o, "  %s (%zu runs)\n", tr[i].file, tr[i].n);
	if (d->sequential)
		sbuf_addf(o,
			  "design: %d run%s per side per round, order %s, sequential up to %d runs "
			  "per side",
			  d->st.runs_per_round, d->st.runs_per_round == 1 ? "" : "s", d->order_name,
			  d->rounds * d->st.runs_per_round);
	else
		sbuf_addf(o,
			  "design: %d run%s per side per round, order %s, fixed %d runs per side",
			  d->st.runs_per_round, d->st.runs_per_round == 1 ? "" : "s", d->order_name,
			  d->rounds * d->st.runs_per_round);
	if (d->st.regression.rare_share > 0)
		sbuf_addf(o, ", rare_share %g%%", d->st.regression.rare_share * 100);
	sbuf_addf(o, ", confidence %g, warm-up %d; %s; seed %llu\n\n", d->st.regression.confidence,
		  d->st.warmup, d->from ? d->from : "kagari's defaults", (unsigned long long)seed);
	sbuf_addf(o, "%-14s %7s %7s %11s %7s %9s %13s %13s %11s %9s\n", "cell", "mean", "trials",
		  "regression", "pass", "improved", "within_noise", "inconclusive", "runs mean",
		  "runs p95");
	for (size_t i = 0; i < nc; i++) {
		const struct power_cell *c = &cells[i];
		double t = c->trials ? c->trials : 1;
		char mean[32];
		/* the cell's change of the mean: what a user's total time does */
		snprintf(mean, sizeof(mean), "%+.1f%%", 100 * c->effect);
		sbuf_addf(
		    o, "%-14s %7s %7d %10.1f%% %6.1f%% %8.1f%% %12.1f%% %12.1f%% %11.1f %9.0f\n",
		    c->text, mean, c->trials, 100 * c->verdicts[0] / t, 100 * c->verdicts[1] / t,
		    100 * c->verdicts[2] / t, 100 * c->verdicts[3] / t, 100 * c->verdicts[4] / t,
		    c->mean_runs, c->p95_runs);
	}
	sbuf_adds(
	    o,
	    "\nEFFECT@T: head EFFECT% slower, tolerance T%; SHARE%xFACTOR@T: SHARE% of head's runs "
	    "FACTOR times slower\n"
	    "(a FACTOR below 1: faster); mean: the cell's change of the mean.\n"
	    "runs: runs per side until the verdict (mean and 95th percentile over the trials).\n");
}

void report_power_json(struct sbuf *o, const struct power_design *d, const struct trace *tr,
		       size_t nt, const struct power_trace_stats *ts,
		       const struct power_cell *cells, size_t nc, uint64_t seed)
{
	struct json_emit j;
	json_emit_init(&j, o, 1);
	json_emit_begin_object(&j);
	json_emit_key(&j, "trace");
	json_emit_begin_object(&j);
	json_emit_key(&j, "files");
	json_emit_begin_array(&j);
	for (size_t i = 0; i < nt; i++)
		json_emit_string(&j, tr[i].file);
	json_emit_end_array(&j);
	json_emit_kv_uint(&j, "runs", ts->runs);
	json_emit_kv_double(&j, "median_ns", ts->median_ns);
	json_emit_kv_double(&j, "pair_mad_percent", ts->pair_mad);
	json_emit_kv_double(&j, "pair_sd_percent", ts->pair_sd);
	json_emit_kv_string(&j, "metric", d->metric == METRIC_CPU_TOTAL ? "cpu_total" : "latency");
	json_emit_end_object(&j);
	json_emit_key(&j, "design");
	json_emit_begin_object(&j);
	json_emit_kv_int(&j, "runs_per_round", d->st.runs_per_round);
	json_emit_kv_string(&j, "order", d->order_name);
	json_emit_kv_bool(&j, "sequential", d->sequential);
	if (d->sequential)
		json_emit_kv_int(&j, "max_runs", d->rounds * d->st.runs_per_round);
	else
		json_emit_kv_int(&j, "runs", d->rounds * d->st.runs_per_round);
	json_emit_kv_int(&j, "warmup", d->st.warmup);
	json_emit_kv_double(&j, "confidence", d->st.regression.confidence);
	json_emit_kv_int(&j, "resamples", d->st.regression.resamples);
	if (d->st.regression.rare_share > 0)
		json_emit_kv_double(&j, "rare_share", d->st.regression.rare_share);
	if (d->from)
		json_emit_kv_string(&j, "suite", d->from);
	else
		json_emit_kv_null(&j, "suite");
	json_emit_kv_uint(&j, "seed", seed);
	json_emit_end_object(&j);
	json_emit_key(&j, "cells");
	json_emit_begin_array(&j);
	for (size_t i = 0; i < nc; i++) {
		const struct power_cell *c = &cells[i];
		double t = c->trials ? c->trials : 1;
		json_emit_begin_object(&j);
		json_emit_kv_string(&j, "cell", c->text);
		json_emit_kv_double(&j, "effect_percent", c->effect * 100);
		if (c->share > 0) {
			json_emit_kv_double(&j, "slow_share", c->share);
			json_emit_kv_double(&j, "slow_factor", c->factor);
		}
		json_emit_kv_double(&j, "tolerance_percent", c->T);
		json_emit_kv_int(&j, "trials", c->trials);
		for (int v = 0; v < 5; v++)
			json_emit_kv_double(&j, verdict_name(power_verdicts[v]),
					    c->verdicts[v] / t);
		json_emit_kv_double(&j, "mean_runs_per_side", c->mean_runs);
		json_emit_kv_double(&j, "p95_runs_per_side", c->p95_runs);
		json_emit_end_object(&j);
	}
	json_emit_end_array(&j);
	json_emit_end_object(&j);
	json_emit_finish(&j);
}
