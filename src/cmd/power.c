/*
 * kagari power [options] TRACE...: what compare's design decides, and at
 * what cost, on a machine's own recorded noise (docs/power.md).
 *
 * A trace is a long A/A recording (model/trace.h): every difference between
 * its runs is noise. A trial takes a window of consecutive runs at a random
 * (seeded) offset, lets plan/ hand them to base and head in the design's
 * order exactly as compare's rounds would (warm-up rounds included and
 * discarded), makes head slower by the cell's effect, and judges the
 * samples with analyze_result(), the entry point compare uses, with the
 * sequential looks replayed as measuring would see them. Per cell it
 * reports how often each verdict came out and how many runs per side it
 * took. Live trials cannot tell a better design from a quieter hour; a
 * replay runs every candidate on the same noise.
 *
 * A cell is EFFECT@T (head scaled by 1 + EFFECT/100, tolerance T%) or
 * SHARE%xFACTOR@T (a shaped change: each head run is FACTOR times slower
 * with probability SHARE%, else unchanged).
 */
#include <errno.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "analyze/analyze.h"
#include "base/cmp.h"
#include "base/sbuf.h"
#include "base/xalloc.h"
#include "cmd/cmd.h"
#include "cmd/common.h"
#include "cmd/exit.h"
#include "model/rng.h"
#include "model/trace.h"
#include "plan/plan.h"
#include "report/json_emit.h"
#include "report/output.h"
#include "suite/discover.h"
#include "suite/load.h"
#include "suite/model.h"

#define POWER_DEFAULT_CELLS "0@2,3@2,5@3,10@3,20@10,2@2,3@3,40%x2.5@10"
#define POWER_DEFAULT_TRIALS 500
#define TRACE_MAX_BYTES ((size_t)1 << 30)

static const struct opt power_opts[] = {
	{ "cells", OPT_STRING, CLI_POWER(cells), "LIST",
	  "cells to replay, EFFECT@T or SHARE%xFACTOR@T, comma-separated (default "
	  POWER_DEFAULT_CELLS ")", NULL },
	{ "trials", OPT_COUNT, CLI_POWER(trials), "N",
	  "trials per cell (default 500)", NULL },
	{ "seed", OPT_SEED, CLI_MEAS(seed), "N",
	  "seed for the windows, the order and the shaped changes (default 1)", NULL },
	{ "metric", OPT_ENUM, CLI_ANA(metric), "M",
	  "the trace column replayed: latency (wall_ns, default) or cpu_total (user_ns + sys_ns)",
	  "latency|cpu_total" },
	{ "runs-per-round", OPT_COUNT, CLI_POWER(runs_per_round), "N",
	  "runs per side per round (default: the suite's, else 1)", NULL },
	{ "max-runs", OPT_COUNT, CLI_MEAS(max_runs), "N",
	  "the sequential design's cap, runs per side (default: the suite's, else 200)", NULL },
	{ "confidence", OPT_STRING, CLI_ANA(confidence), "C",
	  "confidence of the verdicts (default: the suite's, else 0.95)", NULL },
	{ "order", OPT_ENUM, CLI_POWER(order), "ORDER",
	  "order inside a round (default: the suite's, else random)", "random|abba|alternate" },
	{ "format", OPT_ENUM, CLI_OUT(format), "FMT",
	  "report format: table (default) or json", "table|json" },
	{ "output", OPT_STRING, CLI_OUT(output), "FILE",
	  "write the report to FILE (atomically) instead of stdout; never an input", NULL },
	{ NULL, 0, 0, NULL, NULL, NULL },
};

struct cell {
	char *text;	      /* as given */
	double effect;	      /* scale cells: head * (1 + effect) */
	double share, factor; /* shaped cells (share > 0) */
	double T;
	int trials;
	int verdicts[5];      /* regression pass improved within_noise inconclusive */
	double mean_runs, p95_runs;
};

/* The order of the columns and of cell.verdicts; any other verdict counts
   as inconclusive (the last). */
static const enum verdict power_verdicts[5] = { VERDICT_REGRESSION, VERDICT_PASS,
						VERDICT_IMPROVED, VERDICT_WITHIN_NOISE,
						VERDICT_INCONCLUSIVE };

struct design {
	struct settings st;   /* warmup, runs, runs_per_round, order, max_runs,
				 max_time, regression */
	int metric;	      /* METRIC_LATENCY | METRIC_CPU_TOTAL */
	int warm_rounds, rounds; /* from plan/ */
	int sequential;
	int64_t max_time_ns;  /* the time cap of one command */
	const char *from;     /* the suite file, or NULL (defaults) */
};

static int parse_number(const char *s, const char **end, double *v)
{
	char *e;
	errno = 0;
	*v = strtod(s, &e);
	if (e == s || errno || !isfinite(*v))
		return -1;
	*end = e;
	return 0;
}

/* "3@2", "-5@3", "40%x2.5@10" */
static int parse_cell(const char *text, struct cell *c, struct sbuf *err)
{
	const char *p = text;
	double a;
	memset(c, 0, sizeof(*c));
	if (parse_number(p, &p, &a))
		goto bad;
	if (*p == '%') {
		if (p[1] != 'x' || parse_number(p + 2, &p, &c->factor) || c->factor <= 0)
			goto bad;
		if (a <= 0 || a > 100) {
			sbuf_addf(err, "--cells '%s': the share of slow runs must be in (0, 100]",
				  text);
			return -1;
		}
		c->share = a / 100;
		c->effect = c->share * (c->factor - 1);
	} else {
		if (a <= -100)
			goto bad;
		c->effect = a / 100;
	}
	if (*p != '@' || parse_number(p + 1, &p, &c->T) || *p || c->T <= 0 || c->T >= 1000)
		goto bad;
	c->text = xstrdup(text);
	return 0;
bad:
	sbuf_addf(err,
		  "--cells '%s': a cell is EFFECT@T (e.g. 3@2: +3%% at a 2%% tolerance) or "
		  "SHARE%%xFACTOR@T (e.g. 40%%x2.5@10: 40%% of head's runs 2.5x slower)",
		  text);
	return -1;
}

/* The suite's defaults when a suite is found here, else kagari's. */
static int design_from_suite(struct design *d, struct sbuf *err)
{
	struct strvec files = STRVEC_INIT;
	struct sbuf derr = SBUF_INIT;
	settings_init_defaults(&d->st);
	d->from = NULL;
	if (suite_discover(NULL, 0, &files, &derr) || !files.nr) {
		/* no suite here: the defaults */
		sbuf_release(&derr);
		strvec_clear(&files);
		return 0;
	}
	struct suite *s = suite_load(files.v[0], err);
	strvec_clear(&files);
	sbuf_release(&derr);
	if (!s)
		return -1;
	settings_release(&d->st);
	settings_copy(&d->st, &s->defaults);
	d->from = xstrdup(s->file);
	suite_free(s);
	return 0;
}

/* Trace i's runs of the replayed metric. */
static const double *column(const struct trace *t, int metric)
{
	return metric == METRIC_CPU_TOTAL ? t->cpu : t->wall;
}

/*
 * One trial: a window of trace `t` from `start`, given to base and head by
 * plan/, judged by analyze_result(). Returns the verdict's index and the
 * runs per side it took.
 */
static int trial(const struct design *d, const struct cell *c, const double *v,
		 size_t start, struct rng *rng, uint64_t seed, int *runs)
{
	const struct settings *st = &d->st;
	struct plan_unit units[2] = { { SIDE_BASE, 0 }, { SIDE_HEAD, 0 } };
	struct plan_unit *seq = NULL;
	size_t seq_alloc = 0, pos = start;
	int owed[2] = { st->runs_per_round, st->runs_per_round };
	struct run_result r;
	int64_t spent = 0;
	int rounds = d->rounds;

	run_result_init(&r);
	r.seed = seed;
	r.nr_suites = 1;
	r.suites = xcalloc(1, sizeof(*r.suites));
	struct suite_result *sr = &r.suites[0];
	sr->name = xstrdup("power");
	sr->nr_benches = 1;
	sr->benches = xcalloc(1, sizeof(*sr->benches));
	struct bench_result *br = &sr->benches[0];
	br->name = xstrdup("trace");
	br->nr_commands = 1;
	br->commands = xcalloc(1, sizeof(*br->commands));
	struct command_result *cr = &br->commands[0];
	cr->name = xstrdup(c->text);
	for (int s = 0; s < SIDE__COUNT; s++) {
		cr->side[s].present = 1;
		cr->side[s].metric[d->metric].status = MSTATUS_OK;
	}

	for (int k = 0; k < d->warm_rounds + d->rounds; k++) {
		size_t n = plan_round(st->order, units, owed, 2, k, rng, &seq, &seq_alloc);
		int measured = k >= d->warm_rounds;
		for (size_t i = 0; i < n; i++) {
			double x = v[pos++];
			struct side_result *side = &cr->side[seq[i].side];
			if (seq[i].side == SIDE_HEAD) {
				if (c->share > 0)
					x *= rng_uniform(rng) < c->share ? c->factor : 1;
				else
					x *= 1 + c->effect;
			}
			if (!measured)
				continue;
			side->count++;
			metric_series_add(&side->metric[d->metric], x, k - d->warm_rounds + 1,
					  (int)side->count);
			/* x < 2^63 (check_cells_fit()); the sum saturates. */
			int64_t ns = (int64_t)x;
			spent = spent > INT64_MAX - ns ? INT64_MAX : spent + ns;
		}
		/* The time cap, as measuring checks it after every round. */
		if (measured && d->sequential && d->max_time_ns > 0 && spent >= d->max_time_ns) {
			rounds = k - d->warm_rounds + 1;
			break;
		}
	}
	free(seq);
	cr->rounds = rounds;
	br->rounds = rounds;

	/* The analysis settings compare would give a command of this design;
	   the replayed metric is the one compared, and it gates at T. */
	struct command_spec cs;
	memset(&cs, 0, sizeof(cs));
	cs.name = cr->name;
	cs.settings = *st;
	analyze_settings_from_suite(&cs, cr);
	struct analysis_settings *a = &cr->analysis;
	a->sequential = d->sequential;
	a->max_rounds = d->rounds;
	for (int m = 0; m < METRIC__COUNT; m++)
		a->metric[m].compare = a->metric[m].gate = a->metric[m].configured = 0;
	struct metric_rule *mr = &a->metric[d->metric];
	mr->compare = mr->configured = mr->gate = 1;
	mr->max_percent = c->T;
	mr->min_difference = -1;
	analyze_result(&r, NULL);

	const struct comparison *cp = &cr->comparison[d->metric];
	int vi = 4;
	for (int i = 0; i < 5; i++)
		if (cp->verdict == power_verdicts[i])
			vi = i;
	int used = d->sequential && cp->decided_at_rounds > 0 ? cp->decided_at_rounds : rounds;
	*runs = used * st->runs_per_round;
	run_result_release(&r);
	return vi;
}

static int cmp_int(const void *a, const void *b)
{
	int x = *(const int *)a, y = *(const int *)b;
	return (x > y) - (x < y);
}

struct trace_stats {
	size_t runs;
	double median_ns, pair_mad, pair_sd;
};

/* Median of all runs; MAD and sd of the log-ratios of adjacent pairs
   (runs 2i, 2i+1), in percent: what a single-run pair leaves of the noise. */
static void trace_stats(const struct trace *tr, size_t nt, int metric, struct trace_stats *s)
{
	size_t n = 0, np = 0;
	for (size_t i = 0; i < nt; i++)
		n += tr[i].n;
	double *all = xreallocarray(NULL, n + 1, sizeof(double));
	double *lr = xreallocarray(NULL, n / 2 + 1, sizeof(double));
	n = 0;
	for (size_t i = 0; i < nt; i++) {
		const double *v = column(&tr[i], metric);
		for (size_t k = 0; k < tr[i].n; k++)
			all[n++] = v[k];
		for (size_t k = 0; k + 1 < tr[i].n; k += 2)
			lr[np++] = log(v[k + 1] / v[k]);
	}
	qsort(all, n, sizeof(double), cmp_double);
	s->runs = n;
	s->median_ns = n % 2 ? all[n / 2] : (all[n / 2 - 1] + all[n / 2]) / 2;
	double mean = 0, ss = 0;
	for (size_t k = 0; k < np; k++)
		mean += lr[k];
	mean /= np ? (double)np : 1;
	for (size_t k = 0; k < np; k++)
		ss += (lr[k] - mean) * (lr[k] - mean);
	s->pair_sd = np > 1 ? sqrt(ss / (double)(np - 1)) * 100 : NAN;
	qsort(lr, np, sizeof(double), cmp_double);
	double med = np ? (np % 2 ? lr[np / 2] : (lr[np / 2 - 1] + lr[np / 2]) / 2) : NAN;
	for (size_t k = 0; k < np; k++)
		lr[k] = fabs(lr[k] - med);
	qsort(lr, np, sizeof(double), cmp_double);
	/* scaled by 1.4826 to estimate the sd under normal noise */
	s->pair_mad = np ? (np % 2 ? lr[np / 2] : (lr[np / 2 - 1] + lr[np / 2]) / 2) * 148.26 : NAN;
	free(all);
	free(lr);
}

static void render_table(struct sbuf *o, const struct design *d, const struct trace *tr,
			 size_t nt, const struct trace_stats *ts, const struct cell *cells,
			 size_t nc, uint64_t seed)
{
	sbuf_addf(o, "kagari power: %zu trace%s, %zu runs, median %.2f ms, adjacent pairs MAD %.2f%% sd %.2f%% (%s)\n",
		  nt, nt == 1 ? "" : "s", ts->runs, ts->median_ns / 1e6, ts->pair_mad, ts->pair_sd,
		  d->metric == METRIC_CPU_TOTAL ? "cpu_total" : "latency");
	for (size_t i = 0; i < nt; i++)
		sbuf_addf(o, "  %s (%zu runs)\n", tr[i].file, tr[i].n);
	if (d->sequential)
		sbuf_addf(o, "design: %d run%s per side per round, order %s, sequential up to %d runs per side",
			  d->st.runs_per_round, d->st.runs_per_round == 1 ? "" : "s",
			  plan_order_name(d->st.order), d->rounds * d->st.runs_per_round);
	else
		sbuf_addf(o, "design: %d run%s per side per round, order %s, fixed %d runs per side",
			  d->st.runs_per_round, d->st.runs_per_round == 1 ? "" : "s",
			  plan_order_name(d->st.order), d->rounds * d->st.runs_per_round);
	sbuf_addf(o, ", confidence %g, warm-up %d; %s; seed %llu\n\n",
		  d->st.regression.confidence, d->st.warmup,
		  d->from ? d->from : "kagari's defaults", (unsigned long long)seed);
	sbuf_addf(o, "%-14s %7s %7s %11s %7s %9s %13s %13s %11s %9s\n", "cell", "mean", "trials",
		  "regression", "pass", "improved", "within_noise", "inconclusive",
		  "runs mean", "runs p95");
	for (size_t i = 0; i < nc; i++) {
		const struct cell *c = &cells[i];
		double t = c->trials ? c->trials : 1;
		char mean[32];
		/* the cell's change of the mean: what a user's total time does */
		snprintf(mean, sizeof(mean), "%+.1f%%", 100 * c->effect);
		sbuf_addf(o, "%-14s %7s %7d %10.1f%% %6.1f%% %8.1f%% %12.1f%% %12.1f%% %11.1f %9.0f\n",
			  c->text, mean, c->trials, 100 * c->verdicts[0] / t, 100 * c->verdicts[1] / t,
			  100 * c->verdicts[2] / t, 100 * c->verdicts[3] / t,
			  100 * c->verdicts[4] / t, c->mean_runs, c->p95_runs);
	}
	sbuf_adds(o, "\nEFFECT@T: head EFFECT% slower, tolerance T%; SHARE%xFACTOR@T: SHARE% of head's runs FACTOR times slower\n"
		     "(a FACTOR below 1: faster); mean: the cell's change of the mean.\n"
		     "runs: runs per side until the verdict (mean and 95th percentile over the trials).\n");
}

static void render_json(struct sbuf *o, const struct design *d, const struct trace *tr,
			size_t nt, const struct trace_stats *ts, const struct cell *cells,
			size_t nc, uint64_t seed)
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
	json_emit_kv_string(&j, "order", plan_order_name(d->st.order));
	json_emit_kv_bool(&j, "sequential", d->sequential);
	if (d->sequential)
		json_emit_kv_int(&j, "max_runs", d->rounds * d->st.runs_per_round);
	else
		json_emit_kv_int(&j, "runs", d->rounds * d->st.runs_per_round);
	json_emit_kv_int(&j, "warmup", d->st.warmup);
	json_emit_kv_double(&j, "confidence", d->st.regression.confidence);
	json_emit_kv_int(&j, "resamples", d->st.regression.resamples);
	if (d->from)
		json_emit_kv_string(&j, "suite", d->from);
	else
		json_emit_kv_null(&j, "suite");
	json_emit_kv_uint(&j, "seed", seed);
	json_emit_end_object(&j);
	json_emit_key(&j, "cells");
	json_emit_begin_array(&j);
	for (size_t i = 0; i < nc; i++) {
		const struct cell *c = &cells[i];
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
			json_emit_kv_double(&j, verdict_name(power_verdicts[v]), c->verdicts[v] / t);
		json_emit_kv_double(&j, "mean_runs_per_side", c->mean_runs);
		json_emit_kv_double(&j, "p95_runs_per_side", c->p95_runs);
		json_emit_end_object(&j);
	}
	json_emit_end_array(&j);
	json_emit_end_object(&j);
	json_emit_finish(&j);
}

static int load_traces(const struct cli *cli, int need_cpu, struct trace *tr)
{
	for (size_t i = 0; i < cli->args.nr; i++) {
		struct sbuf text = SBUF_INIT, err = SBUF_INIT;
		const char *f = cli->args.v[i];
		if (sbuf_read_file(&text, f, TRACE_MAX_BYTES)) {
			cmd_error("%s: cannot read the trace: %s", f, strerror(errno));
			sbuf_release(&text);
			return EXIT_INVALID;
		}
		int bad = trace_parse(f, text.buf ? text.buf : "", text.len, need_cpu, &tr[i], &err);
		sbuf_release(&text);
		if (bad) {
			cmd_error("%s", err.buf);
			sbuf_release(&err);
			return EXIT_INVALID;
		}
		sbuf_release(&err);
	}
	return 0;
}

/* The design's overrides from the command line; 0 or the exit code. */
static int design_from_cli(const struct cli *cli, struct design *d)
{
	d->metric = cli->analysis.metric && !strcmp(cli->analysis.metric, "cpu_total") ? METRIC_CPU_TOTAL
								    : METRIC_LATENCY;
	if (cli->power.runs_per_round == 0 || cli->measure.max_runs == 0 || cli->power.trials == 0) {
		cmd_error("--%s must be at least 1", cli->power.trials == 0 ? "trials"
						     : cli->measure.max_runs == 0 ? "max-runs"
									  : "runs-per-round");
		return EXIT_USAGE;
	}
	if (cli->power.runs_per_round > 0)
		d->st.runs_per_round = cli->power.runs_per_round;
	if (cli->measure.max_runs > 0)
		d->st.max_runs = cli->measure.max_runs;
	if (cli->power.order)
		d->st.order = !strcmp(cli->power.order, "abba")	   ? ORDER_ABBA
			      : !strcmp(cli->power.order, "alternate") ? ORDER_ALTERNATE
								  : ORDER_RANDOM;
	if (cli->analysis.confidence) {
		char *e;
		double c = strtod(cli->analysis.confidence, &e);
		if (*e || !(c > 0.5 && c < 1)) {
			cmd_error("--confidence '%s': a number between 0.5 and 1, e.g. 0.95",
				  cli->analysis.confidence);
			return EXIT_USAGE;
		}
		d->st.regression.confidence = c;
	}
	struct plan_schedule ps;
	plan_schedule_init(&ps, &d->st, -1, -1);
	plan_make_sequential(&ps, &d->st);
	d->sequential = ps.sequential;
	d->warm_rounds = ps.warm_rounds;
	d->rounds = ps.total_rounds;
	d->max_time_ns = d->st.max_time_ns == MAX_TIME_PER_COMMAND ? MAX_TIME_COMMAND_NS
								    : d->st.max_time_ns;
	return 0;
}

/* --cells (or the default list) into cells[0..*nc); 0 or the exit code. */
static int cells_from_cli(const struct cli *cli, struct cell **cells, size_t *nc)
{
	struct strvec list = STRVEC_INIT;
	struct sbuf err = SBUF_INIT;
	const char *cl = cli->power.cells ? cli->power.cells : POWER_DEFAULT_CELLS;
	int rc = 0;
	for (const char *p = cl; *cl;) {
		const char *e = strchr(p, ',');
		size_t l = e ? (size_t)(e - p) : strlen(p);
		if (!l) {
			/* "3@2,,5@3", a leading or a trailing comma: a cell left
			   out by a slip, not one to skip silently. */
			cmd_error("--cells '%s': item %zu is empty (cells are EFFECT@T or "
				  "SHARE%%xFACTOR@T, separated by single commas)",
				  cl, list.nr + 1);
			strvec_clear(&list);
			return EXIT_USAGE;
		}
		strvec_push_take(&list, xstrndup(p, l));
		if (!e)
			break;
		p = e + 1;
	}
	*cells = xcalloc(list.nr + 1, sizeof(**cells));
	for (size_t i = 0; i < list.nr && !rc; i++) {
		if (parse_cell(list.v[i], &(*cells)[*nc], &err)) {
			cmd_error("%s", err.buf);
			rc = EXIT_USAGE;
		} else
			(*nc)++;
	}
	strvec_clear(&list);
	sbuf_release(&err);
	if (!rc && !*nc) {
		cmd_error("--cells: no cell given");
		rc = EXIT_USAGE;
	}
	return rc;
}

/*
 * Every head run a cell makes from the traces stays a time kagari can hold
 * (below 2^63 ns, model/trace.h): the longest run of the replayed column
 * times the cell's largest factor. A cell beyond it would overflow the
 * time the cap adds up and be judged on values no run can have; 0, or
 * EXIT_USAGE naming the cell.
 */
static int check_cells_fit(const struct design *d, const struct trace *tr, size_t nt,
			   const struct cell *cells, size_t nc)
{
	double longest = 0;
	for (size_t i = 0; i < nt; i++) {
		const double *v = column(&tr[i], d->metric);
		for (size_t k = 0; k < tr[i].n; k++)
			if (v[k] > longest)
				longest = v[k];
	}
	for (size_t i = 0; i < nc; i++) {
		double f = cells[i].share > 0 ? cells[i].factor : 1 + cells[i].effect;
		if (f <= 1 || longest * f < TRACE_TIME_LIMIT_NS)
			continue;
		cmd_error("--cells '%s': head's runs would last up to %.3g ns (the traces' longest "
			  "run, %.3g ns, times %.6g), beyond the 2^63 ns (about 292 years) a time "
			  "can hold; choose a smaller effect",
			  cells[i].text, longest * f, longest, f);
		return EXIT_USAGE;
	}
	return 0;
}

/* Every trace holds at least one window of `need` runs; 0 or EXIT_INVALID. */
static int check_trace_lengths(const struct design *d, const struct trace *tr,
			       size_t nt, size_t need)
{
	for (size_t i = 0; i < nt; i++) {
		if (tr[i].n < need) {
			cmd_error("%s: %zu runs, but one window of this design needs %zu "
				  "(%d warm-up and %d measured rounds of %d run%s per side); record a "
				  "longer trace or lower --max-runs",
				  tr[i].file, tr[i].n, need, d->warm_rounds, d->rounds,
				  d->st.runs_per_round, d->st.runs_per_round == 1 ? "" : "s");
			return EXIT_INVALID;
		}
	}
	return 0;
}

/* --output is none of the inputs (the traces, the suite); 0 or the code. */
static int check_output(const struct cli *cli, const struct design *d)
{
	if (!cli->out.output)
		return 0;
	struct input_files in = INPUT_FILES_INIT;
	for (size_t i = 0; i < cli->args.nr; i++) {
		char *what = xstrfmt("the trace '%s'", cli->args.v[i]);
		input_files_add(&in, cli->args.v[i], what);
		free(what);
	}
	if (d->from)
		input_files_add(&in, d->from, "the suite file");
	int rc = common_check_output("--output", cli->out.output, NULL, &in, EXIT_USAGE);
	input_files_release(&in);
	return rc;
}

/*
 * `trials` trials of each cell, each on a window of `need` runs at a seeded
 * random offset. Windows are drawn over all traces alike: a trace holds
 * windows in proportion to its length.
 */
static void replay_cells(const struct design *d, const struct trace *tr, size_t nt,
			 size_t need, struct cell *cells, size_t nc, int trials,
			 uint64_t seed)
{
	size_t total_windows = 0;
	for (size_t i = 0; i < nt; i++)
		total_windows += tr[i].n - need + 1;
	int *runs = xcalloc((size_t)trials + 1, sizeof(int));
	for (size_t ci = 0; ci < nc; ci++) {
		struct cell *c = &cells[ci];
		double sum = 0;
		for (int t = 0; t < trials; t++) {
			char *label = xstrfmt("power/%s/%d", c->text, t);
			struct rng rng;
			rng_seed(&rng, rng_seed_from(seed, label));
			free(label);
			size_t w = (size_t)rng_below(&rng, total_windows), ti = 0;
			while (w >= tr[ti].n - need + 1) {
				w -= tr[ti].n - need + 1;
				ti++;
			}
			int v = trial(d, c, column(&tr[ti], d->metric), w, &rng,
				      rng_next(&rng), &runs[t]);
			c->verdicts[v]++;
			sum += runs[t];
		}
		c->trials = trials;
		c->mean_runs = sum / trials;
		qsort(runs, (size_t)trials, sizeof(int), cmp_int);
		/* the 95th percentile, nearest rank */
		size_t k = (size_t)ceil(0.95 * trials);
		c->p95_runs = runs[(k ? k : 1) - 1];
	}
	free(runs);
}

/* The table or JSON to stdout or --output; 0 or EXIT_EXEC. */
static int write_result(const struct cli *cli, const struct design *d,
			const struct trace *tr, size_t nt, const struct cell *cells,
			size_t nc, uint64_t seed)
{
	struct trace_stats ts;
	struct sbuf out = SBUF_INIT;
	int rc;
	trace_stats(tr, nt, d->metric, &ts);
	if (cli->out.format && !strcmp(cli->out.format, "json"))
		render_json(&out, d, tr, nt, &ts, cells, nc, seed);
	else
		render_table(&out, d, tr, nt, &ts, cells, nc, seed);
	rc = common_write_output(cli->out.output, NULL, out.buf, out.len);
	sbuf_release(&out);
	return rc;
}

static int power_exec(struct cli *cli, struct cmd_env *env)
{
	(void)env;
	struct design d;
	struct sbuf err = SBUF_INIT;
	struct cell *cells = NULL;
	size_t nc = 0, nt = cli->args.nr;
	struct trace *tr = NULL;
	int rc = 0;

	memset(&d, 0, sizeof(d));
	if (!nt) {
		cmd_error("power needs at least one trace file (kagari power TRACE...; "
			  "`kagari aa --trace FILE` records one)");
		return EXIT_USAGE;
	}
	if (design_from_suite(&d, &err)) {
		sbuf_rtrim(&err);
		fprintf(stderr, "%s\n", err.buf);
		cmd_error("invalid suite: nothing was replayed");
		sbuf_release(&err);
		settings_release(&d.st);
		return EXIT_INVALID;
	}
	if ((rc = design_from_cli(cli, &d)) || (rc = cells_from_cli(cli, &cells, &nc)))
		goto out;
	tr = xcalloc(nt + 1, sizeof(*tr));
	size_t need = (size_t)(d.warm_rounds + d.rounds) * 2 * (size_t)d.st.runs_per_round;
	if ((rc = load_traces(cli, d.metric == METRIC_CPU_TOTAL, tr)) ||
	    (rc = check_trace_lengths(&d, tr, nt, need)) ||
	    (rc = check_cells_fit(&d, tr, nt, cells, nc)) || (rc = check_output(cli, &d)))
		goto out;
	uint64_t seed = cli->measure.have_seed ? cli->measure.seed : 1;
	replay_cells(&d, tr, nt, need, cells, nc,
		     cli->power.trials > 0 ? cli->power.trials : POWER_DEFAULT_TRIALS, seed);
	rc = write_result(cli, &d, tr, nt, cells, nc, seed);
out:
	for (size_t i = 0; i < nc; i++)
		free(cells[i].text);
	free(cells);
	for (size_t i = 0; tr && i < nt; i++)
		trace_release(&tr[i]);
	free(tr);
	settings_release(&d.st);
	free((char *)d.from);
	sbuf_release(&err);
	return rc;
}

const struct cmd_entry cmd_power = {
	.name = "power",
	.args = "[options] TRACE...",
	.summary = "replay compare's design over recorded A/A traces: how often it decides, and at what cost",
	.opts = power_opts,
	.exec = power_exec,
};
