/*
 * suite/load_settings: metrics (throughput, counters, instruments, profile) and regression
 * settings per metric, and the settings that defaults, a benchmark and (in
 * part) a command carry.
 */
#include "suite/load_internal.h"

#include <errno.h>
#include <limits.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <yaml.h>

#include "base/path.h"
#include "base/sbuf.h"
#include "base/strvec.h"
#include "base/xalloc.h"
#include "base/suggest.h"
#include "suite/units.h"
#include "suite/vars.h"
#include "suite/ywalk.h"

/* ------------------------------------------------------------------ */
/* metrics and regression.                                              */

static void load_throughput(struct loader *L, yaml_node_t *n, const char *path,
			    struct throughput_work *t)
{
	static const char *const tp_keys[] = {"work", NULL};
	static const char *const work_keys[] = {"value", "file_size", "unit", NULL};
	struct ywalk_map m, wm;
	if (ywalk_map_open(&L->w, n, path, tp_keys, NULL, NULL, &m))
		return;
	yaml_node_t *work = ywalk_map_get(&m, "work");
	const char *wpath = ywalk_key(&L->w, path, "work");
	if (!work) {
		ld_missing(L, &m, "work", " ({value: N} or {file_size: PATH})");
		ywalk_map_close(&m);
		return;
	}
	ywalk_map_close(&m);
	if (ywalk_map_open(&L->w, work, wpath, work_keys, NULL, NULL, &wm))
		return;
	yaml_node_t *value = ywalk_map_get(&wm, "value");
	yaml_node_t *file = ywalk_map_get(&wm, "file_size");
	free(t->file);
	free(t->unit);
	t->file = t->unit = NULL;
	t->kind = WORK_NONE;
	if (value && file) {
		ywalk_error(&L->w, file, ywalk_key(&L->w, wpath, "file_size"),
			    "work declares both value and file_size; give exactly one");
	} else if (value) {
		double v;
		if (!ywalk_number(&L->w, value, ywalk_key(&L->w, wpath, "value"), 0, 1e18, &v)) {
			if (v <= 0)
				ywalk_error(&L->w, value, ywalk_key(&L->w, wpath, "value"),
					    "must be greater than 0");
			t->kind = WORK_VALUE;
			t->value = v;
		}
	} else if (file) {
		char *f;
		const char *fpath = ywalk_key(&L->w, wpath, "file_size");
		if (!ywalk_nonempty_str(&L->w, file, fpath, &f)) {
			ld_check_suite_path(L, file, fpath, f, 1);
			t->kind = WORK_FILE_SIZE;
			t->file = f;
		}
	} else {
		ld_missing(L, &wm, "value", " (or 'file_size')");
	}
	yaml_node_t *un;
	if (ld_get_str(L, &wm, "unit", &t->unit, &un) > 0) {
		const char *upath = ywalk_key(&L->w, wpath, "unit");
		const char *u = t->unit;
		int ok = (*u >= 'a' && *u <= 'z') || (*u >= 'A' && *u <= 'Z');
		for (const char *c = u; ok && *c; c++)
			ok = (*c >= 'a' && *c <= 'z') || (*c >= 'A' && *c <= 'Z') ||
			     (*c >= '0' && *c <= '9') || *c == '_' || *c == '-';
		int64_t b;
		struct sbuf tmp = SBUF_INIT;
		char *one = xstrfmt("1%s", u);
		int byte_unit = units_parse_size(one, &b, &tmp) == 0;
		free(one);
		sbuf_release(&tmp);
		if (!ok)
			ywalk_error(&L->w, un, upath,
				    "invalid work unit '%s' (letters, digits, '_' and '-', "
				    "starting with a letter)",
				    u);
		else if (t->kind == WORK_FILE_SIZE && strcmp(u, "bytes"))
			ywalk_error(&L->w, un, upath,
				    "file_size measures bytes, so its unit must be bytes, not '%s' "
				    "(remove unit or write unit: bytes)",
				    u);
		else if (t->kind == WORK_VALUE && byte_unit && strcmp(u, "bytes"))
			ywalk_error(&L->w, un, upath,
				    "work unit '%s' is a byte size multiple (convert the value to "
				    "bytes and write unit: bytes)",
				    u);
	}
	if (!t->unit)
		t->unit = xstrdup(t->kind == WORK_FILE_SIZE ? "bytes" : "operations");
	ywalk_map_close(&wm);
}

static void load_metrics(struct loader *L, yaml_node_t *n, const char *path, struct metrics_cfg *mc,
			 enum level lv)
{
	struct ywalk_map m;
	if (ywalk_map_open(&L->w, n, path,
			   lv == LV_DEFAULTS ? ld_metrics_defaults_keys : ld_metrics_keys,
			   "throughput is set per benchmark", ld_throughput_only, &m))
		return;
	ld_get_bool(L, &m, "cpu", &mc->cpu);
	ld_get_bool(L, &m, "memory", &mc->memory);
	ld_get_bool(L, &m, "allocations", &mc->allocations);
	ld_get_bool(L, &m, "syscalls", &mc->syscalls);
	ld_get_bool(L, &m, "profile", &mc->profile);
	ld_get_int(L, &m, "profile_runs", 2, 10000, &mc->profile_runs, NULL);
	ld_get_int(L, &m, "profile_frequency", 1, 100000, &mc->profile_frequency, NULL);
	int v;
	if (ld_get_enum(L, &m, "instrument", ld_instrument_names, &v) > 0)
		mc->instrument = (enum instrument)v;
	if (ld_get_enum(L, &m, "unsupported", ld_unsupported_names, &v) > 0)
		mc->unsupported_skip = v == 1;
	yaml_node_t *c = ywalk_map_get(&m, "counters");
	const char *cpath = ywalk_key(&L->w, path, "counters");
	if (c && c->type == YAML_SEQUENCE_NODE) {
		size_t len = ywalk_seq_len(c);
		unsigned bits = 0;
		int ok = 1;
		if (!len) {
			ywalk_error(&L->w, c, cpath,
				    "must name at least one counter (or write 'counters: false')");
			ok = 0;
		}
		for (size_t i = 0; i < len; i++) {
			int k;
			yaml_node_t *it = ywalk_seq_item(&L->w, c, i);
			if (ywalk_enum(&L->w, it, ywalk_index(&L->w, cpath, i), ld_counter_names,
				       &k)) {
				ok = 0;
				continue;
			}
			bits |= 1u << metric_lookup(ld_counter_names[k]);
		}
		if (ok) {
			mc->counters = COUNTERS_LIST;
			mc->counters_list = bits;
		}
	} else if (c && !ywalk_is_null(c) && c->type == YAML_SCALAR_NODE) {
		int on;
		if (!ywalk_bool(&L->w, c, cpath, &on)) {
			mc->counters = on ? COUNTERS_AVAILABLE : COUNTERS_OFF;
			mc->counters_list = 0;
		}
	} else if (c) {
		ywalk_error(&L->w, c, cpath,
			    "expected true, false or a list of counters such as [instructions, "
			    "cycles], got %s",
			    ywalk_kind(c));
	}
	yaml_node_t *tp = ywalk_map_get(&m, "throughput");
	if (tp && lv == LV_BENCH)
		load_throughput(L, tp, ywalk_key(&L->w, path, "throughput"), &mc->throughput);
	ywalk_map_close(&m);
}

static void load_metric_regression(struct loader *L, yaml_node_t *n, const char *path,
				   enum metric_id id, struct metric_regression *r)
{
	struct ywalk_map m;
	if (ywalk_map_open(&L->w, n, path, ld_metric_reg_keys, NULL, NULL, &m))
		return;
	r->configured = 1;
	r->compare = 1;
	r->loc = ld_loc_of(n);
	int v;
	if (ld_get_enum(L, &m, "statistic", ld_statistic_names, &v) > 0)
		r->statistic = (enum statistic)v;
	ld_get_bool(L, &m, "gate", &r->gate);
	struct sbuf err = SBUF_INIT;
	yaml_node_t *mp = ywalk_map_get(&m, "max_percent");
	const char *mpath = ywalk_key(&L->w, path, "max_percent");
	if (mp && !ywalk_expect_scalar(&L->w, mp, mpath, "a percentage such as 10")) {
		double pct;
		if (units_parse_tolerance(ywalk_text(mp), &pct, &err))
			ywalk_error(&L->w, mp, mpath, "%s", err.buf);
		else
			r->max_percent = pct;
	}
	sbuf_reset(&err);
	yaml_node_t *md = ywalk_map_get(&m, "min_difference");
	const char *dpath = ywalk_key(&L->w, path, "min_difference");
	if (md && !ywalk_expect_scalar(&L->w, md, dpath, "a value in the metric's unit")) {
		double d;
		if (units_parse_metric_value(id, ywalk_text(md), &d, &err))
			ywalk_error(&L->w, md, dpath, "%s", err.buf);
		else if (d < 0)
			ywalk_error(&L->w, md, dpath, "must not be negative");
		else
			r->min_difference = d;
	}
	sbuf_release(&err);
	ywalk_map_close(&m);
}

static void load_regression(struct loader *L, yaml_node_t *n, const char *path,
			    struct regression_cfg *r, enum level lv)
{
	struct ywalk_map m;
	static const char *const bench_only[] = {"commands", NULL};
	if (ywalk_map_open(&L->w, n, path, ld_regression_keys(lv == LV_BENCH),
			   "regression.commands is set per benchmark", bench_only, &m))
		return;
	int v;
	if (ld_get_enum(L, &m, "pairing", ld_pairing_names, &v) > 0)
		r->pairing = (enum pairing)v;
	if (ld_get_enum(L, &m, "correction", ld_correction_names, &v) > 0)
		r->correction = (enum correction)v;
	yaml_node_t *rs = NULL;
	if (ld_get_int(L, &m, "resamples", 100, SETTINGS_MAX_RESAMPLES, &r->resamples, &rs) > 0) {
		r->resamples_loc = ld_loc_of(rs);
		r->resamples_in_defaults = lv == LV_DEFAULTS;
	}
	ld_get_int(L, &m, "min_samples", 2, 1000000, &r->min_samples, NULL);
	yaml_node_t *c = ywalk_map_get(&m, "confidence");
	if (c)
		ywalk_number(&L->w, c, ywalk_key(&L->w, path, "confidence"), 0.5, 0.999,
			     &r->confidence);
	c = ywalk_map_get(&m, "max_cv");
	if (c)
		ywalk_number(&L->w, c, ywalk_key(&L->w, path, "max_cv"), 0, 100, &r->max_cv);
	c = ywalk_map_get(&m, "rare_share");
	if (c) {
		/* A share of the runs, written as a percentage: "2%" or 2. */
		const char *spath = ywalk_key(&L->w, path, "rare_share");
		struct sbuf err = SBUF_INIT;
		double pct = 0;
		if (ywalk_expect_scalar(&L->w, c, spath, "a percentage such as 2%")) {
		} else if (units_parse_percent(ywalk_text(c), &pct, &err) &&
			   !strstr(err.buf, "out of range")) {
			ywalk_error(&L->w, c, spath, "%s", err.buf);
		} else if (err.len || !(pct < 100)) {
			/* 0 and 100% ask for nothing and for every run */
			ywalk_error(&L->w, c, spath,
				    "'%s' is not a share of the runs: above 0%% and below 100%%",
				    ywalk_text(c));
		} else {
			r->rare_share = pct / 100;
			r->rare_share_loc = ld_loc_of(c);
		}
		sbuf_release(&err);
	}
	c = ywalk_map_get(&m, "commands");
	if (c && lv == LV_BENCH) {
		const char *cpath = ywalk_key(&L->w, path, "commands");
		strvec_clear(&r->commands);
		if (!ywalk_str_list(&L->w, c, cpath, &r->commands)) {
			L->reg_commands = c;
			L->reg_commands_path = cpath;
		}
	}
	for (int id = 0; id < METRIC__COUNT; id++) {
		const struct metric_info *mi = metric_get(id);
		if (!mi->comparable)
			continue;
		yaml_node_t *mn = ywalk_map_get(&m, mi->name);
		if (mn)
			load_metric_regression(L, mn, ywalk_key(&L->w, path, mi->name), id,
					       &r->metric[id]);
		if (mn && lv == LV_BENCH) {
			L->reg_metric[id] = mn;
			L->reg_metric_path[id] = ywalk_key(&L->w, path, mi->name);
		}
	}
	ywalk_map_close(&m);
}

/* ------------------------------------------------------------------ */
/* Settings: what defaults, a benchmark and (in part) a command set.    */

/*
 * resamples x samples per side (`runs`, else `max_runs`) within
 * SETTINGS_MAX_BOOTSTRAP_DRAWS, checked where resamples or a count was set
 * (here) against the resamples written in the suite (the error is at its
 * line, in defaults or here; an unwritten default is not checked).
 */
static void check_bootstrap_cost(struct loader *L, const struct settings *s, const char *path,
				 int set_here)
{
	const struct regression_cfg *r = &s->regression;
	if (!set_here || !r->resamples_loc.line)
		return;
	long long samples = s->runs > 0 ? s->runs : s->max_runs;
	long long draws = (long long)r->resamples * samples;
	if (draws <= SETTINGS_MAX_BOOTSTRAP_DRAWS)
		return;
	const char *rpath =
	    r->resamples_in_defaults
		? "defaults.regression.resamples"
		: ywalk_key(&L->w, ywalk_key(&L->w, path, "regression"), "resamples");
	ywalk_error_at(
	    &L->w, r->resamples_loc.line, r->resamples_loc.col, rpath,
	    "%d resamples x %lld samples per side (%s of %s) is %lld bootstrap draws per "
	    "comparison, more than the limit of %lld (docs/statistics.md): lower resamples or %s",
	    r->resamples, samples, s->runs > 0 ? "runs" : "max_runs", path, draws,
	    SETTINGS_MAX_BOOTSTRAP_DRAWS, s->runs > 0 ? "runs" : "max_runs");
}

void ld_settings(struct loader *L, struct ywalk_map *m, struct settings *s, enum level lv)
{
	const char *path = m->path;
	unsigned vars = ld_base_vars(L);
	yaml_node_t *n;

	if (lv != LV_COMMAND) {
		yaml_node_t *min_n, *max_n;
		ld_get_int(L, m, "warmup", 0, 1000000, &s->warmup, NULL);
		/* `runs: auto` is the unset value: sequential rounds in a
		   compare, the adaptive count in a run. */
		yaml_node_t *rn = ywalk_map_get(m, "runs");
		const char *rt = rn && rn->type == YAML_SCALAR_NODE ? ywalk_text(rn) : NULL;
		if (rt && !strcmp(rt, "auto"))
			s->runs = 0;
		else if (ld_get_int(L, m, "runs", 1, 100000000, &s->runs, NULL) > 0)
			s->runs_loc = ld_loc_of(rn); /* for validate's power warning */
		ld_get_duration(L, m, "max_time", 0, &s->max_time_ns);
		int a = ld_get_int(L, m, "min_runs", 1, 100000000, &s->min_runs, &min_n);
		int b = ld_get_int(L, m, "max_runs", 1, 100000000, &s->max_runs, &max_n);
		if ((a > 0 || b > 0) && s->min_runs > s->max_runs) {
			yaml_node_t *at = b > 0 ? max_n : min_n;
			ywalk_error(
			    &L->w, at, ywalk_key(&L->w, path, b > 0 ? "max_runs" : "min_runs"),
			    "min_runs (%d) is larger than max_runs (%d)", s->min_runs, s->max_runs);
		}
		ld_get_duration(L, m, "min_time", 0, &s->min_time_ns);
		ld_get_int(L, m, "runs_per_round", 1, 1000000, &s->runs_per_round, NULL);
		int v;
		if (ld_get_enum(L, m, "order", ld_order_names, &v) > 0)
			s->order = (enum run_order)v;
		n = ywalk_map_get(m, "metrics");
		if (n)
			load_metrics(L, n, ywalk_key(&L->w, path, "metrics"), &s->metrics, lv);
		n = ywalk_map_get(m, "regression");
		if (n)
			load_regression(L, n, ywalk_key(&L->w, path, "regression"), &s->regression,
					lv);
		yaml_node_t *rg = ywalk_map_get(m, "regression");
		int resamples_here = rg && rg->type == YAML_MAPPING_NODE &&
				     s->regression.resamples_loc.line &&
				     s->regression.resamples_in_defaults == (lv == LV_DEFAULTS);
		check_bootstrap_cost(L, s, path,
				     resamples_here || ywalk_map_get(m, "runs") ||
					 ywalk_map_get(m, "max_runs"));
	}
	ld_get_duration(L, m, "timeout", 1, &s->timeout_ns);
	ld_get_bool(L, m, "layout_noise", &s->layout_noise);
	char *cwd = NULL;
	if (ld_get_str(L, m, "cwd", &cwd, &n) > 0) {
		if (ld_check_suite_path(L, n, ywalk_key(&L->w, path, "cwd"), cwd, 1)) {
			free(cwd);
		} else {
			free(s->cwd);
			s->cwd = cwd;
		}
	}
	n = ywalk_map_get(m, "env");
	if (n)
		ld_env(L, n, ywalk_key(&L->w, path, "env"), &s->env, vars);
	ld_output_path(L, m, "stdout", &s->stdout_path);
	ld_output_path(L, m, "stderr", &s->stderr_path);
	n = ywalk_map_get(m, "exit_codes");
	if (n)
		ld_exit_codes(L, n, ywalk_key(&L->w, path, "exit_codes"), s);
}
