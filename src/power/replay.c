/*
 * power/replay: the trials of `kagari power` (see replay.h).
 *
 * A trace is a long A/A recording (model/trace.h): every difference between
 * its runs is noise. A trial takes a window of consecutive runs at a random
 * (seeded) offset, lets plan/ hand them to base and head in the design's
 * order exactly as compare's rounds would (warm-up rounds included and
 * discarded), makes head slower by the cell's effect, and judges the
 * samples with analyze_result(), the entry point compare uses, with the
 * sequential looks replayed as measuring would see them.
 */
#include "power/replay.h"

#include <errno.h>
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "analyze/analyze.h"
#include "base/cmp.h"
#include "base/strvec.h"
#include "base/xalloc.h"
#include "model/rng.h"
#include "plan/plan.h"
#include "suite/discover.h"
#include "suite/load.h"
#include "suite/model.h"

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
int power_parse_cell(const char *text, struct power_cell *c, struct sbuf *err)
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

/* Trace i's runs of the replayed metric. */
const double *power_column(const struct trace *t, int metric)
{
	return metric == METRIC_CPU_TOTAL ? t->cpu : t->wall;
}

/* A cell's change: head slower by its effect, or a share of head's runs
   by its factor (drawn from the trial's rng, in run order). */
static double cell_shape(void *ctx, int side, int round, size_t run, double x, struct rng *rng)
{
	const struct power_cell *c = ctx;
	(void)round;
	(void)run;
	if (side != SIDE_HEAD)
		return x;
	if (c->share > 0)
		return x * (rng_uniform(rng) < c->share ? c->factor : 1);
	return x * (1 + c->effect);
}

/*
 * One trial: a window of `v` from `start`, given to base and head by
 * plan/, shaped run by run, judged by analyze_result() with T and
 * min_difference on the replayed metric.
 */
void power_trial(const struct power_design *d, double T, double min_difference, const double *v,
		 size_t start, const struct power_shape *shape, struct rng *rng, uint64_t seed,
		 struct power_outcome *out)
{
	const struct settings *st = &d->st;
	struct plan_unit units[2] = {{SIDE_BASE, 0}, {SIDE_HEAD, 0}};
	struct plan_unit *seq = NULL;
	size_t seq_alloc = 0, pos = start, nth[SIDE__COUNT] = {0, 0};
	int owed[2] = {st->runs_per_round, st->runs_per_round};
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
	cr->name = xstrdup(shape->name ? shape->name : "trial");
	for (int s = 0; s < SIDE__COUNT; s++) {
		cr->side[s].present = 1;
		cr->side[s].metric[d->metric].status = MSTATUS_OK;
	}

	for (int k = 0; k < d->warm_rounds + d->rounds; k++) {
		size_t n = plan_round(st->order, units, owed, 2, k, rng, &seq, &seq_alloc);
		int measured = k >= d->warm_rounds;
		for (size_t i = 0; i < n; i++) {
			int sd = seq[i].side;
			struct side_result *side = &cr->side[sd];
			double x = shape->run(shape->ctx, sd, measured ? k - d->warm_rounds + 1 : 0,
					      nth[sd]++, v[pos++], rng);
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
	cr->identical_artifact = d->identical_artifact;

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
	mr->max_percent = T;
	mr->min_difference = min_difference;
	analyze_result(&r, NULL);

	const struct comparison *cp = &cr->comparison[d->metric];
	out->verdict = cp->verdict;
	out->rounds = rounds;
	out->decided_at =
	    d->sequential && cp->decided_at_rounds > 0 ? cp->decided_at_rounds : rounds;
	out->runs = out->decided_at * st->runs_per_round;
	out->dropped = (int)cp->nr_dropped_rounds;
	out->change_percent = cp->change_percent;
	out->mean_change_percent = cp->mean_change_percent;
	out->noise_floor_percent = cp->noise_floor_percent;
	out->reason = xstrdup(cp->reason ? cp->reason : "");
	run_result_release(&r);
}

void power_outcome_release(struct power_outcome *o)
{
	free(o->reason);
	o->reason = NULL;
}

/* One trial of cell c: the verdict's index in power_verdicts and the
   runs per side it took. */
static int trial(const struct power_design *d, const struct power_cell *c, const double *v,
		 size_t start, struct rng *rng, uint64_t seed, int *runs)
{
	struct power_shape shape = {c->text, cell_shape, (void *)c};
	struct power_outcome o;
	power_trial(d, c->T, -1, v, start, &shape, rng, seed, &o);
	int vi = 4;
	for (int i = 0; i < 5; i++)
		if (o.verdict == power_verdicts[i])
			vi = i;
	*runs = o.runs;
	power_outcome_release(&o);
	return vi;
}

static int cmp_int(const void *a, const void *b)
{
	int x = *(const int *)a, y = *(const int *)b;
	return (x > y) - (x < y);
}

/* Median of all runs; MAD and sd of the log-ratios of adjacent pairs
   (runs 2i, 2i+1), in percent: what a single-run pair leaves of the noise. */
void power_trace_stats(const struct trace *tr, size_t nt, int metric, struct power_trace_stats *s)
{
	size_t n = 0, np = 0;
	for (size_t i = 0; i < nt; i++)
		n += tr[i].n;
	double *all = xreallocarray(NULL, n + 1, sizeof(double));
	double *lr = xreallocarray(NULL, n / 2 + 1, sizeof(double));
	n = 0;
	for (size_t i = 0; i < nt; i++) {
		const double *v = power_column(&tr[i], metric);
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

/*
 * Every head run a cell makes from the traces stays a time kagari can hold
 * (below 2^63 ns, model/trace.h): the longest run of the replayed column
 * times the cell's largest factor. A cell beyond it would overflow the
 * time the cap adds up and be judged on values no run can have; 0, or
 * -1 with a reason naming the cell.
 */
int power_cells_fit(const struct power_design *d, const struct trace *tr, size_t nt,
		    const struct power_cell *cells, size_t nc, struct sbuf *err)
{
	double longest = 0;
	for (size_t i = 0; i < nt; i++) {
		const double *v = power_column(&tr[i], d->metric);
		for (size_t k = 0; k < tr[i].n; k++)
			if (v[k] > longest)
				longest = v[k];
	}
	for (size_t i = 0; i < nc; i++) {
		double f = cells[i].share > 0 ? cells[i].factor : 1 + cells[i].effect;
		if (f <= 1 || longest * f < TRACE_TIME_LIMIT_NS)
			continue;
		sbuf_addf(err,
			  "--cells '%s': head's runs would last up to %.3g ns (the traces' longest "
			  "run, %.3g ns, times %.6g), beyond the 2^63 ns (about 292 years) a time "
			  "can hold; choose a smaller effect",
			  cells[i].text, longest * f, longest, f);
		return -1;
	}
	return 0;
}

/*
 * `trials` trials of each cell, each on a window of `need` runs at a seeded
 * random offset. Windows are drawn over all traces alike: a trace holds
 * windows in proportion to its length.
 */
void power_replay(const struct power_design *d, const struct trace *tr, size_t nt, size_t need,
		  struct power_cell *cells, size_t nc, int trials, uint64_t seed)
{
	size_t total_windows = 0;
	for (size_t i = 0; i < nt; i++)
		total_windows += tr[i].n - need + 1;
	int *runs = xcalloc((size_t)trials + 1, sizeof(int));
	for (size_t ci = 0; ci < nc; ci++) {
		struct power_cell *c = &cells[ci];
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
			int v = trial(d, c, power_column(&tr[ti], d->metric), w, &rng,
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

void power_design_plan(struct power_design *d)
{
	struct plan_schedule ps;
	d->order_name = plan_order_name(d->st.order);
	plan_schedule_init(&ps, &d->st, -1, -1);
	plan_make_sequential(&ps, &d->st);
	d->sequential = ps.sequential;
	d->warm_rounds = ps.warm_rounds;
	d->rounds = ps.total_rounds;
	d->max_time_ns =
	    d->st.max_time_ns == MAX_TIME_PER_COMMAND ? MAX_TIME_COMMAND_NS : d->st.max_time_ns;
}

/* The suite's defaults when a suite is found here, else kagari's. */
int power_design_from_suite(struct power_design *d, struct sbuf *err)
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

int power_parse_cells(const char *cl, struct power_cell **cells, size_t *nc, struct sbuf *err)
{
	struct strvec list = STRVEC_INIT;
	int rc = 0;
	*nc = 0;
	for (const char *p = cl; *cl;) {
		const char *e = strchr(p, ',');
		size_t l = e ? (size_t)(e - p) : strlen(p);
		if (!l) {
			/* "3@2,,5@3", a leading or a trailing comma: a cell left
			   out by a slip, not one to skip silently. */
			sbuf_addf(err,
				  "--cells '%s': item %zu is empty (cells are EFFECT@T or "
				  "SHARE%%xFACTOR@T, separated by single commas)",
				  cl, list.nr + 1);
			strvec_clear(&list);
			*cells = xcalloc(1, sizeof(**cells));
			return -1;
		}
		strvec_push_take(&list, xstrndup(p, l));
		if (!e)
			break;
		p = e + 1;
	}
	*cells = xcalloc(list.nr + 1, sizeof(**cells));
	for (size_t i = 0; i < list.nr && !rc; i++) {
		if (power_parse_cell(list.v[i], &(*cells)[*nc], err))
			rc = -1;
		else
			(*nc)++;
	}
	strvec_clear(&list);
	if (!rc && !*nc) {
		sbuf_adds(err, "--cells: no cell given");
		rc = -1;
	}
	return rc;
}

int power_traces_long_enough(const struct power_design *d, const struct trace *tr, size_t nt,
			     size_t need, struct sbuf *err)
{
	for (size_t i = 0; i < nt; i++) {
		if (tr[i].n < need) {
			sbuf_addf(
			    err,
			    "%s: %zu runs, but one window of this design needs %zu "
			    "(%d warm-up and %d measured rounds of %d run%s per side); record a "
			    "longer trace or lower --max-runs",
			    tr[i].file, tr[i].n, need, d->warm_rounds, d->rounds,
			    d->st.runs_per_round, d->st.runs_per_round == 1 ? "" : "s");
			return -1;
		}
	}
	return 0;
}
