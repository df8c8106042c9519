/*
 * The JSON report (docs/contract.md "The JSON report"). Field order follows the
 * contract; fields it does not list (interrupted, warnings, exit_reason,
 * per-command rounds/error/stderr_tail, budget limit_text/reason, metric
 * reason, stats count/robust_cv/p90/p95/p99, a metric's `required`, the
 * command's `analysis` settings) are additions it allows.
 */
#include "report/report.h"
#include "report/describe.h"

#include <math.h>

#include "analyze/summary.h"
#include "report/json_emit.h"
#include "report/counted_functions.h"
#include "report/syscall_names.h"

#ifndef KAGARI_VERSION
#define KAGARI_VERSION "unknown" /* CMake defines it from project() */
#endif

/* A value of metric m: integer for integral metrics, null when unmeasured. */
static void emit_value(struct json_emit *j, enum metric_id m, double v)
{
	if (report_value_is_integral(m, v))
		json_emit_int(j, (int64_t)llround(v));
	else
		json_emit_double(j, v);
}

static void kv_value(struct json_emit *j, const char *key, enum metric_id m, double v)
{
	json_emit_key(j, key);
	emit_value(j, m, v);
}

static void emit_stats(struct json_emit *j, enum metric_id m, const struct summary *s)
{
	json_emit_begin_object(j);
	json_emit_kv_uint(j, "count", s->count);
	kv_value(j, "min", m, s->min);
	kv_value(j, "median", m, s->median);
	kv_value(j, "mean", m, s->mean);
	kv_value(j, "max", m, s->max);
	kv_value(j, "stddev", m, s->stddev);
	/* Ratios: never integers. */
	json_emit_kv_double(j, "cv", s->cv);
	json_emit_kv_double(j, "robust_cv", s->robust_cv);
	kv_value(j, "p90", m, s->p90);
	kv_value(j, "p95", m, s->p95);
	kv_value(j, "p99", m, s->p99);
	json_emit_end_object(j);
}

static void emit_side(struct json_emit *j, const struct command_result *c,
		      const struct side_result *sd, struct sbuf *tmp)
{
	json_emit_begin_object(j);
	json_emit_kv_uint(j, "count", sd->count);
	json_emit_key(j, "metrics");
	json_emit_begin_object(j);
	for (int m = 0; m < METRIC__COUNT; m++) {
		const struct metric_series *ms = &sd->metric[m];
		if (ms->status == MSTATUS_ABSENT)
			continue;
		json_emit_key(j, metric_get(m)->name);
		json_emit_begin_object(j);
		sbuf_reset(tmp);
		report_metric_unit(tmp, c, m);
		json_emit_kv_string(j, "unit", tmp->buf);
		json_emit_kv_string(j, "status", metric_status_name(ms->status));
		if (ms->reason)
			json_emit_kv_string(j, "reason", ms->reason);
		if (ms->required)
			json_emit_kv_bool(j, "required", 1);
		if (ms->confirmed > 0)
			json_emit_kv_int(j, "confirmed_runs", ms->confirmed);
		if (ms->status == MSTATUS_OK || ms->have_summary) {
			json_emit_key(j, "stats");
			if (ms->have_summary)
				emit_stats(j, m, &ms->summary);
			else
				json_emit_null(j);
		}
		if (ms->status == MSTATUS_OK || ms->nr) {
			json_emit_key(j, "samples");
			json_emit_begin_array(j);
			for (size_t i = 0; i < ms->nr; i++) {
				json_emit_begin_object_inline(j);
				const struct sample *x = &ms->samples[i];
				json_emit_kv_int(j, "round", x->round);
				json_emit_kv_int(j, "run", x->run);
				kv_value(j, "value", m, x->value);
				if (x->layout_pad >= 0)
					json_emit_kv_int(j, "layout_pad", x->layout_pad);
				json_emit_end_object(j);
			}
			json_emit_end_array(j);
		}
		json_emit_end_object(j);
	}
	json_emit_end_object(j);
	if (sd->nr_syscall_names) {
		/* metrics.syscalls: each call name's median count per run. */
		json_emit_key(j, "syscalls_by_name");
		json_emit_begin_object(j);
		for (size_t i = 0; i < sd->nr_syscall_names; i++) {
			json_emit_key(j, sd->syscall_names[i].name);
			json_emit_double(j, sd->syscall_names[i].count);
		}
		json_emit_end_object(j);
	}
	if (sd->nr_counted_functions) {
		/* --profile under valgrind: per function, its counts. */
		json_emit_key(j, "counted_functions");
		json_emit_begin_object(j);
		for (size_t i = 0; i < sd->nr_counted_functions; i++) {
			const struct fn_count *f = &sd->counted_functions[i];
			json_emit_key(j, f->name);
			json_emit_begin_object_inline(j);
			json_emit_kv_double(j, "instructions", f->instructions);
			if (isfinite(f->estimated_cycles))
				json_emit_kv_double(j, "estimated_cycles", f->estimated_cycles);
			json_emit_end_object(j);
		}
		json_emit_end_object(j);
	}
	if (sd->nr_runs) {
		/* What wait4 said of each measured run, in run order. */
		json_emit_key(j, "runs");
		json_emit_begin_object(j);
		json_emit_key(j, "exit_code");
		json_emit_begin_array_inline(j);
		for (size_t i = 0; i < sd->nr_runs; i++) {
			if (sd->runs[i].exit_code < 0)
				json_emit_null(j);
			else
				json_emit_int(j, sd->runs[i].exit_code);
		}
		json_emit_end_array(j);
		static const char *const keys[] = {"cpu_user", "cpu_system"};
		for (int k = 0; k < 2; k++) {
			json_emit_key(j, keys[k]);
			json_emit_begin_array_inline(j);
			for (size_t i = 0; i < sd->nr_runs; i++) {
				double v = k ? sd->runs[i].system_ns : sd->runs[i].user_ns;
				json_emit_uint(j, (uint64_t)llround(v > 0 ? v : 0));
			}
			json_emit_end_array(j);
		}
		json_emit_end_object(j);
	}
	json_emit_end_object(j);
}

static void emit_comparison(struct json_emit *j, enum metric_id m, const struct comparison *cp)
{
	json_emit_begin_object(j);
	json_emit_kv_string(j, "statistic", cp->statistic);
	json_emit_kv_string(j, "pairing", cp->pairing);
	kv_value(j, "base", m, cp->base);
	kv_value(j, "head", m, cp->head);
	json_emit_kv_double(j, "change_percent", cp->change_percent);
	json_emit_kv_double(j, "ci_low_percent", cp->ci_low_percent);
	json_emit_kv_double(j, "ci_high_percent", cp->ci_high_percent);
	json_emit_kv_double(j, "confidence", cp->confidence);
	json_emit_kv_double(j, "max_percent", cp->max_percent);
	json_emit_kv_double(j, "p_value", cp->p_value);
	json_emit_kv_double(j, "hl_shift_percent", cp->hl_shift_percent);
	json_emit_kv_double(j, "noise_floor_percent", cp->noise_floor_percent);
	json_emit_kv_double(j, "mean_change_percent", cp->mean_change_percent);
	json_emit_kv_double(j, "mean_ci_low_percent", cp->mean_ci_low_percent);
	json_emit_kv_double(j, "mean_ci_high_percent", cp->mean_ci_high_percent);
	json_emit_kv_double(j, "mean_p_regression", cp->mean_p_reg);
	json_emit_kv_double(j, "minority_share", cp->minority_share);
	json_emit_kv_double(j, "minority_factor", cp->minority_factor);
	json_emit_kv_double(j, "blind_share_percent", cp->blind_share_percent);
	json_emit_kv_double(j, "trend_percent_per_round", cp->trend_percent_per_round);
	json_emit_kv_double(j, "trend_p", cp->trend_p);
	json_emit_kv_string(j, "verdict", verdict_name(cp->verdict));
	json_emit_kv_string(j, "reason", cp->reason);
	if (cp->accepted_by)
		json_emit_kv_string(j, "accepted_by", cp->accepted_by);
	json_emit_kv_bool(j, "gate", cp->gate);
	json_emit_kv_double(j, "p_regression", cp->p_reg);
	json_emit_kv_double(j, "p_improvement", cp->p_imp);
	json_emit_kv_double(j, "p_adjusted", cp->p_adjusted);
	json_emit_kv_bool(j, "control_failed", cp->control_failed);
	if (cp->decided_at_rounds > 0)
		json_emit_kv_int(j, "decided_at_rounds", cp->decided_at_rounds);
	json_emit_key(j, "dropped_rounds");
	json_emit_begin_array_inline(j);
	for (size_t i = 0; i < cp->nr_dropped_rounds; i++)
		json_emit_int(j, cp->dropped_rounds[i]);
	json_emit_end_array(j);
	/* The bootstrap distribution, for plots of a re-rendered report. */
	double q[COMPARISON_BOOT_QUANTILES];
	if (comparison_boot_quantiles(cp, q)) {
		json_emit_key(j, "bootstrap_quantiles");
		json_emit_begin_array_inline(j);
		for (size_t i = 0; i < COMPARISON_BOOT_QUANTILES; i++)
			json_emit_double(j, q[i]);
		json_emit_end_array(j);
	}
	json_emit_end_object(j);
}

static void emit_budget(struct json_emit *j, const struct budget_result *b)
{
	json_emit_begin_object(j);
	json_emit_kv_string(j, "metric", metric_get(b->metric)->name);
	json_emit_kv_string(j, "aggregation", b->aggregation);
	json_emit_kv_string(j, "operator", b->op);
	kv_value(j, "limit", b->metric, b->limit);
	json_emit_kv_string(j, "limit_text", b->limit_text);
	json_emit_key(j, "actual");
	if (b->have_actual)
		emit_value(j, b->metric, b->actual);
	else
		json_emit_null(j);
	json_emit_kv_string(j, "status", budget_status_name(b->status));
	if (b->reason)
		json_emit_kv_string(j, "reason", b->reason);
	json_emit_end_object(j);
}

/* The settings comparisons are made with, for `report --reanalyze`. */
static void emit_analysis(struct json_emit *j, const struct analysis_settings *a)
{
	json_emit_begin_object(j);
	json_emit_kv_string(j, "pairing",
			    a->pairing == PAIRING_INDEPENDENT ? "independent" : "rounds");
	json_emit_kv_string(j, "correction", a->correction == CORRECTION_NONE ? "none" : "holm");
	json_emit_kv_int(j, "resamples", a->resamples);
	json_emit_kv_double(j, "confidence", a->confidence);
	json_emit_kv_int(j, "min_samples", a->min_samples);
	json_emit_kv_double(j, "max_cv", a->max_cv);
	json_emit_kv_int(j, "runs_per_round", a->runs_per_round);
	json_emit_kv_bool(j, "sequential", a->sequential);
	if (a->sequential)
		json_emit_kv_int(j, "max_rounds", a->max_rounds);
	if (a->rare_share > 0)
		json_emit_kv_double(j, "rare_share", a->rare_share);
	json_emit_key(j, "metrics");
	json_emit_begin_object(j);
	for (int m = 0; m < METRIC__COUNT; m++) {
		const struct metric_rule *mr = &a->metric[m];
		if (!mr->compare)
			continue;
		json_emit_key(j, metric_get(m)->name);
		json_emit_begin_object_inline(j);
		json_emit_kv_string(j, "statistic",
				    mr->statistic == STATISTIC_MEAN ? "mean" : "median");
		json_emit_kv_double(j, "max_percent", mr->max_percent);
		json_emit_key(j, "min_difference");
		if (mr->min_difference >= 0)
			emit_value(j, m, mr->min_difference);
		else
			json_emit_null(j);
		json_emit_kv_bool(j, "gate", mr->gate);
		json_emit_kv_bool(j, "configured", mr->configured);
		json_emit_end_object(j);
	}
	json_emit_end_object(j);
	json_emit_end_object(j);
}

static void kv_ms(struct json_emit *j, const char *key, double ns)
{
	/* Milliseconds to the nanosecond, NaN as null. */
	json_emit_kv_double(j, key, isnan(ns) ? ns : round(ns / 1e3) / 1e3);
}

/*
 * What `report --reanalyze` judges again and the flame graph is drawn from:
 * the functions by index ("symbols": [function, binary]), per sampled run
 * its side, round, CPU time, samples and [symbol, self, inclusive] counts,
 * and the folded stacks with their [stack, base, head] sample counts.
 */
static void emit_profile_data(struct json_emit *j, const struct profile_set *ps)
{
	json_emit_key(j, "symbols");
	json_emit_begin_array(j);
	for (size_t i = 0; i < ps->nr_funcs; i++) {
		json_emit_begin_array_inline(j);
		json_emit_string(j, ps->funcs[i].function);
		json_emit_string(j, ps->funcs[i].binary);
		json_emit_end_array(j);
	}
	json_emit_end_array(j);
	json_emit_key(j, "sampled_runs");
	json_emit_begin_array(j);
	for (size_t i = 0; i < ps->nr_runs; i++) {
		const struct profile_run *r = &ps->runs[i];
		json_emit_begin_object_inline(j);
		json_emit_kv_string(j, "side", r->side == PROFILE_BASE ? "base" : "head");
		json_emit_kv_int(j, "round", r->round);
		json_emit_kv_uint(j, "cpu_ns", (uint64_t)llround(r->cpu_ns));
		json_emit_kv_uint(j, "samples", r->samples);
		json_emit_key(j, "counts");
		json_emit_begin_array_inline(j);
		for (size_t k = 0; k < r->nr; k++) {
			json_emit_begin_array_inline(j);
			json_emit_uint(j, r->counts[k].func);
			json_emit_uint(j, r->counts[k].self);
			json_emit_uint(j, r->counts[k].incl);
			json_emit_end_array(j);
		}
		json_emit_end_array(j);
		json_emit_end_object(j);
	}
	json_emit_end_array(j);
	json_emit_key(j, "stacks");
	json_emit_begin_array(j);
	for (size_t i = 0; i < ps->nr_stacks; i++) {
		json_emit_begin_array_inline(j);
		json_emit_string(j, ps->stacks[i].stack);
		json_emit_uint(j, ps->stacks[i].count[PROFILE_BASE]);
		json_emit_uint(j, ps->stacks[i].count[PROFILE_HEAD]);
		json_emit_end_array(j);
	}
	json_emit_end_array(j);
}

/* commands[].profile: the sampled profiles and the functions that changed. */
static void emit_profile(struct json_emit *j, const struct command_result *c)
{
	const struct profile_set *ps = c->profile;
	json_emit_key(j, "profile");
	json_emit_begin_object(j);
	if (c->profile_error)
		json_emit_kv_string(j, "error", c->profile_error);
	if (!ps) {
		json_emit_end_object(j);
		return;
	}
	json_emit_kv_string(j, "event", ps->event);
	json_emit_kv_uint(j, "frequency", ps->frequency);
	size_t runs[PROFILE_SIDES] = {0, 0};
	for (size_t i = 0; i < ps->nr_runs; i++)
		runs[ps->runs[i].side]++;
	static const char *const names[PROFILE_SIDES] = {"base", "head"};
	const char *what[] = {"runs", "samples", "lost", "throttled"};
	for (int k = 0; k < 4; k++) {
		json_emit_key(j, what[k]);
		json_emit_begin_object_inline(j);
		for (int s = 0; s < PROFILE_SIDES; s++) {
			if (s == PROFILE_BASE && !c->side[SIDE_BASE].present)
				continue;
			uint64_t v = k == 0   ? runs[s]
				     : k == 1 ? ps->samples[s]
				     : k == 2 ? ps->lost[s]
					      : ps->throttled[s];
			json_emit_kv_uint(j, names[s], v);
		}
		json_emit_end_object(j);
	}
	json_emit_kv_uint(j, "pairs", ps->pairs);
	json_emit_kv_double(j, "confidence", ps->confidence);
	json_emit_key(j, "functions");
	json_emit_begin_array(j);
	int two = c->side[SIDE_BASE].present;
	for (size_t i = 0; i < ps->nr_changes; i++) {
		const struct profile_change *ch = &ps->changes[i];
		json_emit_begin_object_inline(j);
		json_emit_kv_string(j, "function", ps->funcs[ch->func].function);
		json_emit_kv_string(j, "binary", ps->funcs[ch->func].binary);
		kv_ms(j, "self_base_ms", two ? ch->self_ns[PROFILE_BASE] : NAN);
		kv_ms(j, "self_head_ms", ch->self_ns[PROFILE_HEAD]);
		kv_ms(j, "change_ms", two ? ch->change_ns : NAN);
		kv_ms(j, "ci_low_ms", ch->ci_low_ns);
		kv_ms(j, "ci_high_ms", ch->ci_high_ns);
		json_emit_kv_double(j, "q_value", ch->q_value);
		json_emit_kv_string(j, "verdict", profile_verdict_name(ch->verdict));
		json_emit_kv_double(j, "p_value", ch->p_value);
		kv_ms(j, "incl_base_ms", two ? ch->incl_ns[PROFILE_BASE] : NAN);
		kv_ms(j, "incl_head_ms", ch->incl_ns[PROFILE_HEAD]);
		if (two)
			json_emit_kv_uint(j, "samples_base", ch->samples[PROFILE_BASE]);
		json_emit_kv_uint(j, "samples_head", ch->samples[PROFILE_HEAD]);
		json_emit_end_object(j);
	}
	json_emit_end_array(j);
	emit_profile_data(j, ps);
	json_emit_end_object(j);
}

/* commands[].syscall_changes: the call names whose count changed most. */
static void emit_syscall_changes(struct json_emit *j, const struct command_result *c)
{
	struct syscall_row rows[SYSCALL_ROWS_JSON];
	int two;
	size_t n = report_syscall_rows(c, SYSCALL_ROWS_JSON, rows, &two);
	if (!two)
		return;
	json_emit_key(j, "syscall_changes");
	json_emit_begin_array(j);
	for (size_t i = 0; i < n; i++) {
		json_emit_begin_object_inline(j);
		json_emit_kv_string(j, "name", rows[i].name);
		json_emit_kv_double(j, "base", rows[i].base);
		json_emit_kv_double(j, "head", rows[i].head);
		json_emit_end_object(j);
	}
	json_emit_end_array(j);
}

/* commands[].counted_function_changes: the functions whose counts changed most. */
static void emit_counted_fn_changes(struct json_emit *j, const struct command_result *c)
{
	struct counted_fn_row rows[COUNTED_FN_ROWS_JSON];
	int two;
	size_t n = report_counted_fn_rows(c, COUNTED_FN_ROWS_JSON, rows, &two);
	if (!two)
		return;
	json_emit_key(j, "counted_function_changes");
	json_emit_begin_array(j);
	for (size_t i = 0; i < n; i++) {
		json_emit_begin_object_inline(j);
		json_emit_kv_string(j, "name", rows[i].name);
		json_emit_kv_double(j, "base_instructions", rows[i].ir[0]);
		json_emit_kv_double(j, "head_instructions", rows[i].ir[1]);
		if (isfinite(rows[i].est[0]) && isfinite(rows[i].est[1])) {
			json_emit_kv_double(j, "base_estimated_cycles", rows[i].est[0]);
			json_emit_kv_double(j, "head_estimated_cycles", rows[i].est[1]);
		}
		json_emit_end_object(j);
	}
	json_emit_end_array(j);
}

static void emit_command(struct json_emit *j, const struct command_result *c, struct sbuf *tmp)
{
	json_emit_begin_object(j);
	json_emit_kv_string(j, "name", c->name);
	json_emit_kv_string(j, "command", c->command);
	json_emit_kv_string(j, "result", result_name(c->result));
	json_emit_kv_int(j, "rounds", c->rounds);
	if (c->identical_artifact)
		json_emit_kv_bool(j, "identical_artifact", 1);
	if (c->out_of_time)
		json_emit_kv_bool(j, "stopped_by_max_time", 1);
	if (c->max_time_reached)
		json_emit_kv_bool(j, "stopped_by_suite_max_time", 1);
	if (c->matrix_names.nr) {
		json_emit_key(j, "matrix");
		json_emit_begin_object_inline(j);
		for (size_t k = 0; k < c->matrix_names.nr && k < c->matrix_values.nr; k++)
			json_emit_kv_string(j, c->matrix_names.v[k], c->matrix_values.v[k]);
		json_emit_end_object(j);
	}
	json_emit_kv_string(j, "error", c->error);
	json_emit_kv_string(j, "stderr_tail", c->stderr_tail);
	if (c->side[SIDE_HEAD].present) {
		json_emit_key(j, "head");
		emit_side(j, c, &c->side[SIDE_HEAD], tmp);
	}
	if (c->side[SIDE_BASE].present) {
		json_emit_key(j, "base");
		emit_side(j, c, &c->side[SIDE_BASE], tmp);
	}
	int any = 0;
	for (int m = 0; m < METRIC__COUNT; m++)
		any |= c->comparison[m].present;
	if (any) {
		json_emit_key(j, "comparisons");
		json_emit_begin_object(j);
		for (int m = 0; m < METRIC__COUNT; m++) {
			if (!c->comparison[m].present)
				continue;
			json_emit_key(j, metric_get(m)->name);
			emit_comparison(j, m, &c->comparison[m]);
		}
		json_emit_end_object(j);
	}
	json_emit_key(j, "budgets");
	json_emit_begin_array(j);
	for (size_t i = 0; i < c->nr_budgets; i++)
		emit_budget(j, &c->budgets[i]);
	json_emit_end_array(j);
	if (c->analysis.present) {
		json_emit_key(j, "analysis");
		emit_analysis(j, &c->analysis);
	}
	if (c->profile || c->profile_error)
		emit_profile(j, c);
	emit_syscall_changes(j, c);
	emit_counted_fn_changes(j, c);
	json_emit_end_object(j);
}

static void emit_bench(struct json_emit *j, const struct bench_result *b, struct sbuf *tmp)
{
	json_emit_begin_object(j);
	json_emit_kv_string(j, "name", b->name);
	json_emit_key(j, "tags");
	json_emit_begin_array_inline(j);
	for (size_t i = 0; i < b->tags.nr; i++)
		json_emit_string(j, b->tags.v[i]);
	json_emit_end_array(j);
	json_emit_kv_string(j, "result", result_name(b->result));
	json_emit_kv_int(j, "rounds", b->rounds);
	if (b->line > 0)
		json_emit_kv_int(j, "line", b->line);
	if (b->baseline)
		json_emit_kv_string(j, "baseline", b->baseline);
	if (b->compare_baseline)
		json_emit_kv_bool(j, "compare_with_baseline", 1);
	json_emit_key(j, "commands");
	json_emit_begin_array(j);
	for (size_t i = 0; i < b->nr_commands; i++)
		emit_command(j, &b->commands[i], tmp);
	json_emit_end_array(j);
	json_emit_end_object(j);
}

static void emit_environment(struct json_emit *j, const struct environment_info *e)
{
	json_emit_begin_object(j);
	json_emit_kv_string(j, "os", e->os);
	json_emit_kv_string(j, "kernel", e->kernel);
	json_emit_kv_string(j, "arch", e->arch);
	json_emit_kv_string(j, "cpu_model", e->cpu_model);
	if (e->logical_cpus > 0)
		json_emit_kv_int(j, "logical_cpus", e->logical_cpus);
	else
		json_emit_kv_null(j, "logical_cpus");
	json_emit_kv_bool(j, "ci", e->ci);
	json_emit_kv_string(j, "counters_source", e->counters_source);
	if (e->valgrind_version)
		json_emit_kv_string(j, "valgrind_version", e->valgrind_version);
	if (isnan(e->steal_percent))
		json_emit_kv_null(j, "steal_percent");
	else
		json_emit_kv_double(j, "steal_percent", e->steal_percent);
	json_emit_end_object(j);
}

static void emit_git(struct json_emit *j, const struct git_info *g)
{
	json_emit_begin_object(j);
	json_emit_kv_string(j, "head_sha", g->head_sha);
	if (g->dirty < 0)
		json_emit_kv_null(j, "dirty");
	else
		json_emit_kv_bool(j, "dirty", g->dirty);
	json_emit_kv_string(j, "base_ref", g->base_ref);
	json_emit_kv_string(j, "base_sha", g->base_sha);
	json_emit_end_object(j);
}

static void emit_shard(struct json_emit *j, const struct shard_record *sh)
{
	json_emit_begin_object(j);
	json_emit_kv_int(j, "index", sh->index);
	json_emit_kv_int(j, "count", sh->count);
	json_emit_kv_bool(j, "replicate", sh->replicate);
	json_emit_kv_string(j, "selection", sh->selection);
	json_emit_kv_int(j, "benchmarks", sh->benchmarks);
	json_emit_kv_string(j, "run_id", sh->run_id);
	if (sh->split)
		json_emit_kv_string(j, "split", sh->split);
	if (sh->assignment)
		json_emit_kv_string(j, "assignment", sh->assignment);
	if (sh->merged_from > 0)
		json_emit_kv_int(j, "merged_from", sh->merged_from);
	json_emit_end_object(j);
}

static void emit_summary(struct json_emit *j, const struct run_summary *s)
{
	json_emit_begin_object(j);
	json_emit_kv_int(j, "benchmarks", s->benchmarks);
	json_emit_kv_int(j, "commands", s->commands);
	json_emit_kv_int(j, "pass", s->pass);
	json_emit_kv_int(j, "improved", s->improved);
	json_emit_kv_int(j, "inconclusive", s->inconclusive);
	json_emit_kv_int(j, "accepted", s->accepted);
	json_emit_kv_int(j, "regression", s->regression);
	json_emit_kv_int(j, "over_budget", s->over_budget);
	json_emit_kv_int(j, "error", s->error);
	json_emit_kv_int(j, "exit_code", s->exit_code);
	json_emit_end_object(j);
}

int report_write_json(const struct run_result *r, const struct report_options *o, struct sbuf *out,
		      struct sbuf *err)
{
	struct json_emit j;
	struct sbuf tmp = SBUF_INIT;

	json_emit_init(&j, out, !o->json_compact);
	json_emit_begin_object(&j);
	json_emit_kv_string(&j, "schema_version", "1");
	json_emit_kv_string(&j, "tool", "kagari");
	json_emit_kv_string(&j, "kagari_version", KAGARI_VERSION);
	json_emit_kv_string(&j, "mode", r->mode);
	json_emit_kv_uint(&j, "seed", r->seed);
	json_emit_kv_string(&j, "started_at", r->started_at);
	json_emit_kv_string(&j, "finished_at", r->finished_at);
	json_emit_kv_bool(&j, "interrupted", r->interrupted);
	json_emit_key(&j, "environment");
	emit_environment(&j, &r->env);
	json_emit_key(&j, "git");
	emit_git(&j, &r->git);
	if (r->shard.present) {
		json_emit_key(&j, "shard");
		emit_shard(&j, &r->shard);
	}
	if (r->nr_accepts) {
		json_emit_key(&j, "acceptances");
		json_emit_begin_array(&j);
		for (size_t i = 0; i < r->nr_accepts; i++) {
			const struct acceptance *a = &r->accepts[i];
			json_emit_begin_object_inline(&j);
			json_emit_kv_string(&j, "commit", a->commit);
			json_emit_kv_string(&j, "benchmark", a->benchmark);
			json_emit_kv_string(&j, "command", a->command);
			json_emit_kv_string(&j, "metric", metric_get(a->metric)->name);
			json_emit_kv_double(&j, "max_percent", a->max_percent);
			json_emit_end_object(&j);
		}
		json_emit_end_array(&j);
	}
	json_emit_key(&j, "warnings");
	json_emit_begin_array(&j);
	for (size_t i = 0; i < r->warnings.nr; i++)
		json_emit_string(&j, r->warnings.v[i]);
	json_emit_end_array(&j);
	json_emit_key(&j, "suites");
	json_emit_begin_array(&j);
	for (size_t i = 0; i < r->nr_suites; i++) {
		const struct suite_result *s = &r->suites[i];
		json_emit_begin_object(&j);
		json_emit_kv_string(&j, "name", s->name);
		json_emit_kv_string(&j, "file", s->file);
		json_emit_kv_string(&j, "result", result_name(s->result));
		if (s->suite_from) {
			json_emit_kv_string(&j, "suite_from", s->suite_from);
			json_emit_kv_bool(&j, "gating", !s->not_gating);
		}
		json_emit_key(&j, "benchmarks");
		json_emit_begin_array(&j);
		for (size_t b = 0; b < s->nr_benches; b++)
			emit_bench(&j, &s->benches[b], &tmp);
		json_emit_end_array(&j);
		json_emit_end_object(&j);
	}
	json_emit_end_array(&j);
	json_emit_key(&j, "summary");
	emit_summary(&j, &r->summary);
	json_emit_kv_string(&j, "exit_reason", r->exit_reason);
	json_emit_end_object(&j);
	sbuf_release(&tmp);
	if (json_emit_finish(&j) < 0) {
		sbuf_adds(err, "internal error: the JSON report is malformed");
		return -1;
	}
	sbuf_addch(out, '\n');
	return 0;
}
