/*
 * analyze/analyze: the analysis entry point (analyze.h). Laid out in the
 * order analyze_result() runs: settings copied from the suite, summaries,
 * budgets, comparisons (compute, Holm, decide — compare.h's call order),
 * then the roll-up of verdicts into results and counts.
 */
#include "analyze/analyze.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "analyze/accept.h"
#include "analyze/budget.h"
#include "analyze/compare.h"
#include "analyze/mean.h"
#include "analyze/format.h"
#include "analyze/holm.h"
#include "analyze/profile.h"
#include "analyze/summary.h"
#include "base/sbuf.h"
#include "base/xalloc.h"
#include "model/rng.h"
#include "model/sequential.h"

void analyze_settings_from_suite(const struct command_spec *cs, struct command_result *cr)
{
	const struct regression_cfg *rc = &cs->settings.regression;
	struct analysis_settings *a = &cr->analysis;
	int listed = !rc->commands.nr || strvec_contains(&rc->commands, cs->name);
	a->present = 1;
	a->pairing = rc->pairing;
	a->correction = rc->correction;
	a->resamples = rc->resamples;
	a->confidence = rc->confidence;
	a->min_samples = rc->min_samples;
	a->max_cv = rc->max_cv;
	a->runs_per_round = cs->settings.runs_per_round;
	a->rare_share = rc->rare_share;
	/*
	 * A metric gates when the suite gave it a tolerance (regression.METRIC);
	 * with none given, latency gates at the default. The other compared
	 * metrics are reported but neither gate nor enter Holm's family: a
	 * metric nobody set a tolerance for must not multiply the p of the
	 * one somebody did.
	 */
	int any_configured = 0;
	for (int m = 0; m < METRIC__COUNT; m++)
		any_configured |= listed && rc->metric[m].configured;
	for (int m = 0; m < METRIC__COUNT; m++) {
		const struct metric_regression *mr = &rc->metric[m];
		struct metric_rule *rule = &a->metric[m];
		rule->compare = listed && mr->compare;
		rule->configured = listed && mr->configured;
		rule->statistic = mr->statistic;
		rule->max_percent = mr->max_percent;
		rule->min_difference = mr->min_difference;
		rule->gate =
		    mr->gate && (mr->configured || (!any_configured && m == METRIC_LATENCY));
	}
	/* Budgets apply to the head side (the side `run` measures). */
	cr->nr_budgets = cs->nr_budgets;
	cr->budgets = xcalloc(cs->nr_budgets + 1, sizeof(*cr->budgets));
	for (size_t i = 0; i < cs->nr_budgets; i++)
		budget_evaluate(&cs->budgets[i], NULL, &cr->budgets[i]);
}

static void summarise(struct metric_series *ms)
{
	double *v = xcalloc(ms->nr + 1, sizeof(*v));
	for (size_t i = 0; i < ms->nr; i++)
		v[i] = ms->samples[i].value;
	summary_compute(&ms->summary, v, ms->nr);
	ms->have_summary = 1;
	free(v);
}

/* ---- comparisons -------------------------------------------------------- */

/* One comparison waiting for Holm and the verdict rules. */
struct pending {
	struct compare_input in;
	struct compare_result res;
	struct comparison *out;
	int holm;
	char *label; /* "benchmark/command metric", for warnings */
	/* The sequential design: */
	const struct command_result *cr;
	size_t cmd; /* index in its benchmark */
	int seq;    /* decided at looks (a gated timed metric) */
	int frozen; /* decided at look decided_at */
	int decided_at;
	int spent_at;		   /* the last look that spent error */
	int mean_spent_at;	   /* the same for the test of the mean */
	struct sample *owned_base; /* compare_baseline: the baseline's rounds */
};

static void fill_comparison(struct pending *p)
{
	struct comparison *c = p->out;
	const struct compare_result *r = &p->res;
	c->present = 1;
	c->statistic = xstrdup(p->in.statistic == STATISTIC_MEAN ? "mean" : "median");
	c->pairing = xstrdup(p->in.pairing == PAIRING_INDEPENDENT ? "independent" : "rounds");
	c->base = r->base_stat;
	c->head = r->head_stat;
	/* Paired: the head value shown is the base statistic times the
	   median per-round ratio, so that the two values shown beside the
	   change are the ones whose ratio it is. */
	if (p->in.pairing == PAIRING_ROUNDS && isfinite(r->change_percent) &&
	    isfinite(r->base_stat))
		c->head = r->base_stat * (1 + r->change_percent / 100);
	c->change_percent = r->change_percent;
	c->ci_low_percent = r->ci_low_percent;
	c->ci_high_percent = r->ci_high_percent;
	c->confidence = p->in.confidence;
	c->max_percent = p->in.max_percent;
	c->p_value = r->p_value;
	c->p_adjusted = r->p_adjusted;
	c->p_reg = r->p_reg;
	c->p_imp = r->p_imp;
	c->hl_shift_percent = r->hl_shift_percent;
	c->noise_floor_percent = r->noise_floor_percent;
	c->mean_change_percent = r->mean_change_percent;
	c->mean_ci_low_percent = r->mean_ci_low_percent;
	c->mean_ci_high_percent = r->mean_ci_high_percent;
	c->mean_p_reg = r->mean_p_reg;
	c->minority_share = r->minority_share;
	c->minority_factor = r->minority_factor;
	c->blind_share_percent = r->blind_share_percent;
	c->trend_percent_per_round = r->trend_percent_per_round;
	c->trend_p = r->trend_p;
	c->verdict = r->verdict != VERDICT_NONE ? r->verdict : VERDICT_INCONCLUSIVE;
	c->reason = xstrdup(r->reason ? r->reason : "");
	c->gate = p->in.gate;
	c->control_failed = r->control_failed;
	c->nr_dropped_rounds = r->nr_dropped;
	c->dropped_rounds = xcalloc(r->nr_dropped + 1, sizeof(int));
	for (size_t i = 0; i < r->nr_dropped; i++)
		c->dropped_rounds[i] = r->dropped[i].round;
	c->decided_at_rounds = p->decided_at;
	c->nr_boot = r->nr_boot;
	c->boot = xcalloc(r->nr_boot + 1, sizeof(double));
	if (r->nr_boot)
		memcpy(c->boot, r->boot, r->nr_boot * sizeof(double));
}

static void skip_comparison_fill(struct comparison *c, const struct metric_rule *mr,
				 const char *why);

static void skip_comparison(struct comparison *c, const struct metric_rule *mr, const char *why)
{
	comparison_clear(c); /* a look may have filled it already */
	skip_comparison_fill(c, mr, why);
}

static void skip_comparison_fill(struct comparison *c, const struct metric_rule *mr,
				 const char *why)
{
	c->present = 1;
	c->statistic = xstrdup(mr->statistic == STATISTIC_MEAN ? "mean" : "median");
	c->pairing = xstrdup("rounds");
	c->base = c->head = c->change_percent = NAN;
	c->ci_low_percent = c->ci_high_percent = c->p_value = NAN;
	c->hl_shift_percent = c->noise_floor_percent = NAN;
	c->mean_change_percent = c->mean_ci_low_percent = c->mean_ci_high_percent = NAN;
	c->mean_p_reg = c->minority_share = c->minority_factor = NAN;
	c->blind_share_percent = c->trend_percent_per_round = c->trend_p = NAN;
	c->p_reg = c->p_imp = c->p_adjusted = NAN;
	c->confidence = NAN;
	c->max_percent = mr->max_percent;
	c->verdict = VERDICT_SKIPPED;
	c->reason = xstrdup(why);
	c->gate = mr->gate;
}

static struct sample *samples_upto(const struct sample *s, size_t n, int rounds, size_t *out);

/* The command a compare_baseline benchmark compares with, or NULL. */
static const struct command_result *baseline_of(const struct bench_result *br)
{
	for (size_t c = 0; br->baseline && c < br->nr_commands; c++)
		if (br->commands[c].name && !strcmp(br->commands[c].name, br->baseline))
			return &br->commands[c];
	return NULL;
}

/*
 * Comparison m of cr cannot be computed: too many samples or too costly to
 * resample (inconclusive, with the reason), or not measured on both sides.
 * Returns 1 when it was skipped and filled, 0 when it can be queued.
 */
static int comparison_skipped(struct command_result *cr, int m, const struct metric_rule *mr,
			      const struct metric_series *bm, const struct metric_series *hm)
{
	if (bm->status == MSTATUS_OK && hm->status == MSTATUS_OK &&
	    (bm->nr > SETTINGS_MAX_COMPARE_SAMPLES || hm->nr > SETTINGS_MAX_COMPARE_SAMPLES)) {
		/* A saved report may hold any number: too many to
		   analyse in bounded memory is said, not aborted on. */
		char *why = xstrfmt("too many rounds to analyse: %zu base and %zu head samples, at "
				    "most %d per side",
				    bm->nr, hm->nr, SETTINGS_MAX_COMPARE_SAMPLES);
		skip_comparison(&cr->comparison[m], mr, why);
		free(why);
		cr->comparison[m].verdict = VERDICT_INCONCLUSIVE;
		return 1;
	}
	if (bm->status == MSTATUS_OK && hm->status == MSTATUS_OK &&
	    (double)cr->analysis.resamples * (double)(bm->nr > hm->nr ? bm->nr : hm->nr) >
		(double)SETTINGS_MAX_BOOTSTRAP_DRAWS) {
		/* Reports are refused above it when read; shards pooled
		   by merge --replicate may still pass it. */
		char *why = xstrfmt("too costly to analyse: %d resamples x %zu samples per side is "
				    "more than %lld bootstrap draws",
				    cr->analysis.resamples, bm->nr > hm->nr ? bm->nr : hm->nr,
				    SETTINGS_MAX_BOOTSTRAP_DRAWS);
		skip_comparison(&cr->comparison[m], mr, why);
		free(why);
		cr->comparison[m].verdict = VERDICT_INCONCLUSIVE;
		return 1;
	}
	if (bm->status != MSTATUS_OK || hm->status != MSTATUS_OK) {
		if (cr->out_of_time) {
			/* --max-time was spent before it ran on both
			   sides: undecided, not skipped. */
			skip_comparison(
			    &cr->comparison[m], mr,
			    "not measured: --max-time was spent before it ran on both sides");
			cr->comparison[m].verdict = VERDICT_INCONCLUSIVE;
		} else if (mr->configured)
			skip_comparison(&cr->comparison[m], mr, "not measured on both sides");
		return 1;
	}
	return 0;
}

/* Are all values of a series of n samples the same? */
static int all_alike(const struct sample *v, size_t n)
{
	for (size_t i = 1; i < n; i++)
		if (v[i].value != v[0].value)
			return 0;
	return 1;
}

/*
 * An instrumented count (counter, allocation or system-call metric) with
 * at least METRIC_EXACT_RUNS runs per side (samples, or a simulated sample
 * and the runs that confirmed it), the same in every run of each side:
 * exact, so judged with at most that many samples (model/metric.h;
 * measure/ stops its instrumented runs there). A count that varies at all
 * keeps min_samples.
 */
static int exact_counts(const struct compare_input *in, const struct metric_series *bm,
			const struct metric_series *hm)
{
	enum metric_group g = metric_get(in->metric)->group;
	if (g != GROUP_COUNTERS && g != GROUP_ALLOCATIONS && g != GROUP_SYSCALLS)
		return 0;
	/* The runs that confirmed a simulated count (model/result.h) count. */
	size_t cb = bm->confirmed > 0 ? (size_t)bm->confirmed : 0;
	size_t ch = hm->confirmed > 0 ? (size_t)hm->confirmed : 0;
	return in->nr_base >= 1 && in->nr_head >= 1 && in->nr_base + cb >= METRIC_EXACT_RUNS &&
	       in->nr_head + ch >= METRIC_EXACT_RUNS && all_alike(in->base, in->nr_base) &&
	       all_alike(in->head, in->nr_head);
}
/* Queue the comparisons of one command (skipped ones are filled now). */
static void queue_command(uint64_t seed, const char *suite, const struct bench_result *br,
			  size_t cmd, struct command_result *cr, struct pending **pend, size_t *nr,
			  size_t *alloc)
{
	const struct analysis_settings *a = &cr->analysis;
	const struct side_result *base = &cr->side[SIDE_BASE];
	if (br->compare_baseline) {
		/* kagari bench: the baseline command's runs are the base. */
		const struct command_result *bl = baseline_of(br);
		if (!bl || bl == cr || bl->error || !bl->side[SIDE_HEAD].present)
			return;
		base = &bl->side[SIDE_HEAD];
	} else if (!base->present) {
		return; /* new in head: measured like run */
	}
	if (!a->present || !cr->side[SIDE_HEAD].present)
		return;
	if (cr->error)
		return;
	for (int m = 0; m < METRIC__COUNT; m++) {
		const struct metric_rule *mr = &a->metric[m];
		if (!mr->compare)
			continue;
		const struct metric_series *bm = &base->metric[m];
		const struct metric_series *hm = &cr->side[SIDE_HEAD].metric[m];
		if (comparison_skipped(cr, m, mr, bm, hm))
			continue;
		ALLOC_GROW(*pend, *nr + 1, *alloc);
		struct pending *p = &(*pend)[(*nr)++];
		memset(p, 0, sizeof(*p));
		compare_input_init(&p->in);
		p->in.base = bm->samples;
		p->in.nr_base = bm->nr;
		if (br->compare_baseline) {
			/* The rounds this command ran: the baseline ran on. */
			int last = 0;
			for (size_t i = 0; i < hm->nr; i++)
				if (hm->samples[i].round > last)
					last = hm->samples[i].round;
			p->owned_base = samples_upto(bm->samples, bm->nr, last, &p->in.nr_base);
			p->in.base = p->owned_base;
		}
		p->in.head = hm->samples;
		p->in.nr_head = hm->nr;
		p->in.metric = (enum metric_id)m;
		p->in.higher_is_better = metric_get(m)->better == BETTER_HIGHER;
		p->in.statistic = mr->statistic;
		p->in.max_percent = mr->max_percent;
		p->in.min_difference = mr->min_difference;
		p->in.pairing = a->pairing;
		p->in.resamples = a->resamples;
		p->in.confidence = a->confidence;
		p->in.min_samples = a->min_samples;
		p->in.max_cv = a->max_cv;
		p->in.runs_per_round = a->runs_per_round;
		p->in.rare_share = a->rare_share;
		p->in.confirmed_head = hm->confirmed;
		p->in.gate = mr->gate;
		char *label =
		    xstrfmt("%s/%s/%s/%s", suite, br->name, cr->name, metric_get(m)->name);
		p->in.seed = rng_seed_from(seed, label);
		free(label);
		p->out = &cr->comparison[m];
		p->label = xstrfmt("%s/%s %s", br->name, cr->name, metric_get(m)->name);
		p->holm = a->correction == CORRECTION_HOLM;
		p->cr = cr;
		p->cmd = cmd;
		if (exact_counts(&p->in, bm, hm)) {
			/* as many samples as each side has, at most
			   METRIC_EXACT_RUNS: one simulated run that the others
			   confirmed is exact too */
			size_t least =
			    p->in.nr_base < p->in.nr_head ? p->in.nr_base : p->in.nr_head;
			if (least > METRIC_EXACT_RUNS)
				least = METRIC_EXACT_RUNS;
			if (p->in.min_samples > (int)least)
				p->in.min_samples = (int)least;
		}
	}
}

/* ---- the sequential design ---------------------------------------------- */

/*
 * Metrics of the timed rounds, the ones a look can see while the rounds
 * run. Counter and allocation metrics (valgrind's and the shim's runs come
 * after the timed rounds) keep the fixed design.
 */
static int timed_metric(enum metric_id m)
{
	enum metric_group g = metric_get(m)->group;
	return g == GROUP_TIME || g == GROUP_CPU || g == GROUP_MEMORY || g == GROUP_THROUGHPUT;
}

/* The samples of rounds up to `rounds`, into a fresh array. */
static struct sample *samples_upto(const struct sample *s, size_t n, int rounds, size_t *out)
{
	struct sample *v = xcalloc(n + 1, sizeof(*v));
	size_t k = 0;
	for (size_t i = 0; i < n; i++)
		if (s[i].round <= rounds)
			v[k++] = s[i];
	*out = k;
	return v;
}

static int decisive(enum verdict verdict)
{
	return verdict == VERDICT_REGRESSION || verdict == VERDICT_IMPROVED ||
	       verdict == VERDICT_PASS;
}

struct seq_looks {
	int N, R, m; /* max rounds, rounds measured, comparisons under Holm */
	struct compare_result *look;
	struct compare_result **family;
	double *level, *mean_level;
};

/* Mark the comparisons the looks decide (p->seq) and size the looks. */
static void seq_select(struct pending *pend, size_t np, const struct bench_result *br,
		       struct seq_looks *L)
{
	for (size_t i = 0; i < np; i++) {
		struct pending *p = &pend[i];
		if (!p->cr->analysis.sequential)
			continue;
		/* bench without a gate: latency is still what the looks
		   decide (report only, but decided). */
		p->seq = (p->in.gate || (br->compare_baseline && p->in.metric == METRIC_LATENCY)) &&
			 timed_metric(p->in.metric);
		if (!p->seq)
			continue;
		L->m += p->holm;
		if (p->cr->analysis.max_rounds > L->N)
			L->N = p->cr->analysis.max_rounds;
		if (p->cr->rounds > L->R)
			L->R = p->cr->rounds;
	}
	/* The cap is at least the rounds there are: merge --replicate pools
	   the rounds of several jobs past each job's max_rounds, and the looks
	   must still reach the last round (a schedule that stops short of it
	   would never end). The levels depend on the rounds only, as before. */
	if (L->N < L->R)
		L->N = L->R;
}

/* The rounds a look needs to pass on the mean: MEAN_PASS_MIN_ROUNDS, or
   the cap when it is lower (its last look judges what it has). */
static int seq_mean_min_rounds(const struct seq_looks *L)
{
	int cap = L->N > 0 ? L->N : L->R;
	return cap > 0 && cap < MEAN_PASS_MIN_ROUNDS ? cap : MEAN_PASS_MIN_ROUNDS;
}

/* Each comparison's level at look n; 1 when any can show something. */
static int seq_levels(struct pending *pend, size_t np, int n, struct seq_looks *L)
{
	int any = 0;
	for (size_t i = 0; i < np; i++) {
		struct pending *p = &pend[i];
		if (!p->seq)
			continue;
		L->level[i] = seq_level(1 - p->in.confidence, n, p->spent_at,
					L->N > 0 ? L->N : L->R, p->holm ? L->m : 1);
		L->mean_level[i] = seq_level_mean(1 - p->in.confidence, n, p->mean_spent_at,
						  L->N > 0 ? L->N : L->R, p->holm ? L->m : 1,
						  1.0 / (p->in.resamples + 1.0));
		any |= L->level[i] > 0 || L->mean_level[i] > 0;
	}
	return any;
}

/* Every comparison on the rounds up to n, then Holm over the family. */
static void seq_compute(struct pending *pend, size_t np, int n, struct seq_looks *L)
{
	size_t nf = 0;
	for (size_t i = 0; i < np; i++) {
		struct pending *p = &pend[i];
		if (!p->seq)
			continue;
		struct compare_input in = p->in;
		int upto = n < p->cr->rounds ? n : p->cr->rounds;
		struct sample *tb = samples_upto(p->in.base, p->in.nr_base, upto, &in.nr_base);
		struct sample *th = samples_upto(p->in.head, p->in.nr_head, upto, &in.nr_head);
		in.base = tb;
		in.head = th;
		in.sequential = 1;
		in.level = L->level[i];
		in.mean_level = L->mean_level[i];
		in.mean_min_rounds = seq_mean_min_rounds(L);
		in.max_rounds = L->N;
		in.defer_quantiles = 1; /* only a kept look needs them */
		compare_compute(&in, &L->look[i]);
		free(tb);
		free(th);
		if (p->holm)
			L->family[nf++] = &L->look[i];
		else {
			struct compare_result *one = &L->look[i];
			holm_adjust(&one, 1, 0);
		}
	}
	holm_adjust(L->family, nf, 1);
}

/* Decide what look n decides (everything at the final look); returns 1
   while some comparison is still open. */
static int seq_decide(struct pending *pend, size_t np, int n, int final, struct seq_looks *L)
{
	int open = 0;
	for (size_t i = 0; i < np; i++) {
		struct pending *p = &pend[i];
		struct compare_result *look = &L->look[i];
		if (!p->seq)
			continue;
		if (!p->frozen) {
			struct compare_input in = p->in;
			in.sequential = 1;
			in.level = L->level[i];
			in.mean_level = L->mean_level[i];
			in.mean_min_rounds = seq_mean_min_rounds(L);
			in.max_rounds = L->N;
			compare_decide(&in, look);
			if (decisive(look->verdict) || final) {
				compare_result_release(&p->res);
				p->res = *look;
				memset(look, 0, sizeof(*look));
				compare_finish_quantiles(&p->res);
				p->res.decided = 1;
				if (decisive(p->res.verdict)) {
					p->frozen = 1;
					p->decided_at = n;
				}
			}
			open |= !p->frozen;
		}
		if (L->level[i] > 0)
			p->spent_at = n;
		if (L->mean_level[i] > 0)
			p->mean_spent_at = n;
		compare_result_release(look);
	}
	return open;
}

/*
 * Does command cr gate only on instrumented counts (counters, allocations,
 * system calls), no metric of the timed runs being gated? Then the timed
 * rounds only feed the report, and METRIC_EXACT_RUNS of them are enough:
 * the counts come from their own runs (measure/ gives them up to
 * min_samples whatever the timed rounds were).
 */
static int gates_counts_only(const struct command_result *cr)
{
	int counts = 0;
	for (int m = 0; m < METRIC__COUNT; m++) {
		const struct metric_rule *r = &cr->analysis.metric[m];
		if (!r->compare || !r->gate)
			continue;
		if (!timed_metric((enum metric_id)m))
			counts = 1;
		else if (cr->side[SIDE_HEAD].metric[m].status != MSTATUS_ABSENT)
			return 0;
	}
	return counts;
}

/* decided[c]: command c has nothing left undecided (see sequential_bench). */
static void seq_mark_decided(const struct pending *pend, size_t np, const struct bench_result *br,
			     unsigned char *decided)
{
	/* A command stops at a look only once it has min_samples runs
	   per side: before that rule 1 leaves every comparison,
	   timed or not (allocations, counters), inconclusive — with
	   single-run pairs the first look comes after 5 runs. */
	for (size_t c = 0; c < br->nr_commands; c++) {
		const struct command_result *cr = &br->commands[c];
		int rpr = cr->analysis.runs_per_round > 0 ? cr->analysis.runs_per_round : 1;
		int need = cr->analysis.min_samples;
		if (gates_counts_only(cr) && need > METRIC_EXACT_RUNS)
			need = METRIC_EXACT_RUNS;
		decided[c] = !cr->analysis.present || (long)cr->rounds * rpr >= (long)need;
	}
	for (size_t i = 0; i < np; i++)
		if (pend[i].seq && !pend[i].frozen)
			decided[pend[i].cmd] = 0;
	/* compare_baseline: the baseline is decided with the rest. */
	const struct command_result *bl = br->compare_baseline ? baseline_of(br) : NULL;
	if (bl) {
		size_t bi = (size_t)(bl - br->commands);
		for (size_t c = 0; c < br->nr_commands; c++)
			if (c != bi && !br->commands[c].error && !decided[c])
				decided[bi] = 0;
	}
}

/* Why the rounds of cr stopped short of a decision (seq_finish()). */
static const char *seq_stop_reason(const struct command_result *cr, int N, int interrupted)
{
	if (cr->rounds >= N)
		return "max_runs reached";
	if (cr->out_of_time)
		return "--max-time was spent";
	if (cr->max_time_reached)
		return "the suite's max_time was reached";
	if (interrupted)
		return "interrupted";
	if (cr->error)
		return "the command failed";
	/* A what-if analysis (report --reanalyze with another tolerance):
	   measuring stopped where the verdicts it had were decided. */
	return "measuring stopped there, its verdicts decided as it measured";
}

/* After the looks: no look at all leaves a comparison to the fixed-n
   path; an undecided one says why it stopped. */
static void seq_finish(struct pending *pend, size_t np, int N, int interrupted)
{
	for (size_t i = 0; i < np; i++) {
		struct pending *p = &pend[i];
		if (!p->seq)
			continue;
		if (!p->res.decided) { /* no look at all (no rounds) */
			p->seq = 0;
			continue;
		}
		if (!p->frozen && p->res.reason) {
			char *r = xstrfmt("%s; undecided after %d rounds (%s)", p->res.reason,
					  p->cr->rounds, seq_stop_reason(p->cr, N, interrupted));
			free(p->res.reason);
			p->res.reason = r;
		}
	}
}

/*
 * The looks of one benchmark's sequential commands (docs/statistics.md
 * "Sequential rounds"), replayed from the samples: at each look n (the
 * schedule of model/sequential.h up to the rounds measured, the last one
 * at the rounds measured) every gated timed comparison is computed on the
 * rounds up to n (a command that stopped earlier on all it has), Holm runs
 * over them all at the look's level, and each comparison not yet decided
 * is decided when its verdict is regression, improved or pass. The first
 * such verdict stands (decided_at); at the last look the undecided keep
 * the verdict they got there. `decided` (may be NULL; one per command of
 * br) is set for commands with nothing left undecided. Measuring calls
 * this after each look (analyze_look()), analyze_result() once at the
 * end: the same code gives the same verdicts.
 */
static void sequential_bench(struct pending *pend, size_t np, const struct bench_result *br,
			     unsigned char *decided, int interrupted)
{
	struct seq_looks L = {0, 0, 0, NULL, NULL, NULL, NULL};
	seq_select(pend, np, br, &L);
	L.look = xcalloc(np + 1, sizeof(*L.look));
	L.family = xcalloc(np + 1, sizeof(*L.family));
	L.level = xcalloc(np + 1, sizeof(*L.level));
	L.mean_level = xcalloc(np + 1, sizeof(*L.mean_level));
	int n = 0;
	while (n < L.R) {
		n = seq_next_look(n, L.N);
		if (n > L.R)
			n = L.R;
		int final = n >= L.R;
		if (!seq_levels(pend, np, n, &L) && !final)
			continue; /* nothing can be shown: the share moves on */
		seq_compute(pend, np, n, &L);
		if (!seq_decide(pend, np, n, final, &L))
			break;
	}
	if (decided)
		seq_mark_decided(pend, np, br, decided);
	seq_finish(pend, np, L.N, interrupted);
	free(L.look);
	free(L.family);
	free(L.level);
	free(L.mean_level);
}

static void pending_release(struct pending *p)
{
	free(p->owned_base);
	compare_result_release(&p->res);
	free(p->label);
}

void analyze_look(uint64_t seed, const char *suite_name, struct bench_result *br,
		  unsigned char *decided)
{
	struct pending *pend = NULL;
	size_t nr = 0, alloc = 0;
	for (size_t c = 0; c < br->nr_commands; c++)
		queue_command(seed, suite_name, br, c, &br->commands[c], &pend, &nr, &alloc);
	sequential_bench(pend, nr, br, decided, 0);
	for (size_t i = 0; i < nr; i++)
		pending_release(&pend[i]);
	free(pend);
}

/* ---- the run's comparisons ------------------------------------------------ */

static void compare_run_all(struct run_result *r)
{
	struct pending *pend = NULL;
	size_t nr = 0, alloc = 0;

	for (size_t i = 0; i < r->nr_suites; i++) {
		struct suite_result *sr = &r->suites[i];
		for (size_t b = 0; b < sr->nr_benches; b++) {
			struct bench_result *br = &sr->benches[b];
			size_t first = nr;
			for (size_t c = 0; c < br->nr_commands; c++)
				queue_command(r->seed, sr->name, br, c, &br->commands[c], &pend,
					      &nr, &alloc);
			/* pend may move while queueing: the benchmark's part now */
			sequential_bench(pend + first, nr - first, br, NULL, r->interrupted);
		}
	}

	/* The fixed design for the rest. */
	for (size_t i = 0; i < nr; i++)
		if (!pend[i].seq)
			compare_compute(&pend[i].in, &pend[i].res);
	/* Holm over every gated comparison that asks for it; the rest alone. */
	struct compare_result **family = xcalloc(nr + 1, sizeof(*family));
	size_t nf = 0;
	for (size_t i = 0; i < nr; i++)
		if (!pend[i].seq && pend[i].in.gate && pend[i].holm)
			family[nf++] = &pend[i].res;
	holm_adjust(family, nf, 1);
	for (size_t i = 0; i < nr; i++) {
		if (pend[i].seq || (pend[i].in.gate && pend[i].holm))
			continue;
		struct compare_result *one = &pend[i].res;
		holm_adjust(&one, 1, 0);
	}
	free(family);
	for (size_t i = 0; i < nr; i++) {
		if (!pend[i].seq)
			compare_decide(&pend[i].in, &pend[i].res);
		fill_comparison(&pend[i]);
		for (size_t w = 0; w < pend[i].res.warnings.nr; w++)
			strvec_pushf(&r->warnings, "%s: %s", pend[i].label,
				     pend[i].res.warnings.v[w]);
		pending_release(&pend[i]);
	}
	free(pend);
}

/* ---- what the verdicts say beyond the rules -------------------------------- */

static void set_reason(struct comparison *cp, char *reason)
{
	free(cp->reason);
	cp->reason = reason;
}

/*
 * The farthest from 0 that cp's change may be at its confidence: the ends
 * of its interval and of its mean's interval, or the change itself where
 * no interval was made.
 */
static double farthest_change(const struct comparison *cp)
{
	const double v[] = {cp->ci_low_percent, cp->ci_high_percent, cp->mean_ci_low_percent,
			    cp->mean_ci_high_percent};
	double far = NAN;
	for (size_t i = 0; i < sizeof(v) / sizeof(*v); i++)
		if (isfinite(v[i]) && !(fabs(v[i]) <= far))
			far = fabs(v[i]);
	if (isnan(far) && isfinite(cp->change_percent))
		far = fabs(cp->change_percent);
	return far;
}

/*
 * Identical builds: with byte-identical base and head artifacts run on the
 * same inputs (identical_artifact) only memory layout can move the
 * program, and by at most ANALYZE_LAYOUT_BOUND_PERCENT. A regression or
 * improvement whose every value its intervals allow stays within that is
 * a measurement artefact, saying so: an improvement within_noise, a
 * regression inconclusive — like every rule but the pass conjunction, an
 * artefact may not turn a slower head into a pass-like verdict
 * (docs/statistics.md, "Verdict rules, in order"). One that may
 * reach beyond it keeps its verdict; its reason says that the binaries are
 * identical, so the change comes from what kagari could not compare
 * (inputs, setup, environment).
 */
static void identical_artifact_guard(struct command_result *cr)
{
	if (!cr->identical_artifact)
		return;
	for (int m = 0; m < METRIC__COUNT; m++) {
		struct comparison *cp = &cr->comparison[m];
		if (!cp->present ||
		    (cp->verdict != VERDICT_REGRESSION && cp->verdict != VERDICT_IMPROVED))
			continue;
		const char *was = cp->reason ? cp->reason : "";
		double far = farthest_change(cp);
		if (far <= ANALYZE_LAYOUT_BOUND_PERCENT) {
			set_reason(cp,
				   xstrfmt("measurement artefact, not a change: base and head "
					   "${artifact} are byte-identical and the change stays "
					   "within the ±%g%% memory layout alone can make, yet %s",
					   ANALYZE_LAYOUT_BOUND_PERCENT, was));
			cp->verdict = cp->verdict == VERDICT_REGRESSION ? VERDICT_INCONCLUSIVE
									: VERDICT_WITHIN_NOISE;
		} else {
			double lo = cp->ci_low_percent, hi = cp->ci_high_percent;
			int beyond = (lo > ANALYZE_LAYOUT_BOUND_PERCENT) ||
				     (hi < -ANALYZE_LAYOUT_BOUND_PERCENT);
			set_reason(cp,
				   xstrfmt("%s%sbase and head ${artifact} are byte-identical, "
					   "and the change %s the ±%g%% memory layout alone can "
					   "make: it comes from elsewhere (inputs, setup, "
					   "environment)",
					   was, *was ? "; " : "",
					   beyond ? "is beyond" : "may reach beyond",
					   ANALYZE_LAYOUT_BOUND_PERCENT));
		}
	}
}

/*
 * Does comparison cp resolve a change of T%: is its interval wholly above
 * +T, wholly below -T or wholly within (-T, +T), with its noise floor
 * below T? Judged at the T of the metric that could not, not at cp's own
 * tolerance: an ungated cpu_total compared at 10% whose interval spans
 * [-5.6%, +2.8%] is a pass at 10% but resolves nothing at 2%.
 */
static int resolves(const struct comparison *cp, double T)
{
	double lo = cp->ci_low_percent, hi = cp->ci_high_percent;

	if (!cp->present || cp->verdict == VERDICT_NONE || !isfinite(lo) || !isfinite(hi) ||
	    cp->verdict == VERDICT_SKIPPED || cp->noise_floor_percent >= T)
		return 0;
	return lo > T || hi < -T || (lo > -T && hi < T);
}

/* Latency, CPU time and cycles measure time. */
static int is_time(int m)
{
	enum metric_group g = metric_get((enum metric_id)m)->group;
	return g == GROUP_TIME || g == GROUP_CPU || m == METRIC_CYCLES;
}

/* Instruction, branch, cache-miss and allocation counts measure work. */
static int is_work_count(int m)
{
	enum metric_group g = metric_get((enum metric_id)m)->group;
	return (g == GROUP_COUNTERS && m != METRIC_CYCLES) || g == GROUP_ALLOCATIONS;
}

/*
 * May o stand in for m in "... cannot resolve T% here; o ... did"? Only a
 * metric of the same kind: time for time (latency, CPU time, cycles),
 * memory for memory. A peak_rss that resolved says nothing of a change of
 * time, and a count of work is no stand-in for time (resolution_notes()).
 */
static int same_kind(int m, int o)
{
	if (is_time(m) || is_time(o))
		return is_time(m) && is_time(o);
	if (is_work_count(m) || is_work_count(o))
		return 0;
	return metric_get((enum metric_id)m)->group == metric_get((enum metric_id)o)->group;
}

/*
 * Say what the machine can resolve: a gated metric left inconclusive or
 * within_noise whose noise floor or interval is wider than its tolerance
 * says so, and names the command's metrics of the same kind (same_kind())
 * that did resolve a change of that size (resolves() above), e.g.
 * "latency cannot resolve 3% here (noise floor 37%); cpu_total +4.8%
 * [+4.4%, +5.3%] did".
 */
static void resolution_notes(struct command_result *cr)
{
	for (int m = 0; m < METRIC__COUNT; m++) {
		struct comparison *cp = &cr->comparison[m];
		if (!cp->present || !cp->gate ||
		    (cp->verdict != VERDICT_INCONCLUSIVE && cp->verdict != VERDICT_WITHIN_NOISE))
			continue;
		double T = cp->max_percent, F = cp->noise_floor_percent;
		double W = cp->ci_high_percent - cp->ci_low_percent;
		if (!(F > T) && !(W > T))
			continue;
		struct sbuf sb = SBUF_INIT;
		sbuf_addf(&sb, "%s; %s cannot resolve %g%% here (", cp->reason ? cp->reason : "",
			  metric_get(m)->name, T);
		if (F > T)
			sbuf_addf(&sb, "noise floor %.1f%%)", F);
		else
			sbuf_addf(&sb, "interval %.1f%% wide)", W);
		/*
		 * A count of work (instructions, allocations) is not a stand-in
		 * for time: zstd 1.5.0's -6 runs 36.5% more instructions in 46%
		 * less time. It is never offered as the metric that did; it is
		 * named only when it moved against a time metric that resolved.
		 */
		int time_ref = -1;
		for (int o = 0; o < METRIC__COUNT && time_ref < 0; o++)
			if (o != m && is_time(o) && resolves(&cr->comparison[o], T))
				time_ref = o;
		if (time_ref < 0 && is_time(m) && isfinite(cp->change_percent))
			time_ref = m;
		int named = 0;
		struct sbuf against = SBUF_INIT;
		for (int o = 0; o < METRIC__COUNT; o++) {
			const struct comparison *op = &cr->comparison[o];
			if (o == m || !resolves(op, T))
				continue;
			int counter = is_work_count(o);
			int agrees =
			    time_ref >= 0 && (op->change_percent > 0) ==
						 (cr->comparison[time_ref].change_percent > 0);
			if (counter && (agrees || time_ref < 0 || !is_time(m)))
				continue; /* offered in place of time: never */
			if (!counter && !same_kind(m, o))
				continue; /* peak_rss for latency: another kind */
			struct sbuf *to = counter && !agrees ? &against : &sb;
			sbuf_addf(to, "%s %s ",
				  to == &sb ? (named ? "," : ";") : (against.len ? "," : ""),
				  metric_get(o)->name);
			units_format_change(to, op->change_percent, op->ci_low_percent,
					    op->ci_high_percent);
			named |= to == &sb;
		}
		if (named)
			sbuf_adds(&sb, " did");
		if (against.len) {
			sbuf_addf(&sb, ";%s moved against %s ", against.buf,
				  metric_get(time_ref)->name);
			units_format_percent(&sb, cr->comparison[time_ref].change_percent);
			sbuf_adds(&sb, ": a count of work, not of time");
		}
		sbuf_release(&against);
		set_reason(cp, sbuf_detach(&sb));
	}
}

/*
 * A command whose runs --max-time stopped: an inconclusive verdict, and a
 * budget that could not be assessed, say that the time ran out (a look's
 * reason may say so already).
 */
static void out_of_time_note(struct command_result *cr)
{
	if (!cr->out_of_time)
		return;
	for (int m = 0; m < METRIC__COUNT; m++) {
		struct comparison *cp = &cr->comparison[m];
		if (!cp->present || cp->verdict != VERDICT_INCONCLUSIVE ||
		    (cp->reason && strstr(cp->reason, "--max-time")))
			continue;
		set_reason(cp, xstrfmt("%s%s--max-time was spent after %d round%s",
				       cp->reason ? cp->reason : "",
				       cp->reason && *cp->reason ? "; " : "", cr->rounds,
				       cr->rounds == 1 ? "" : "s"));
	}
	/* A budget the cap left without samples: the time cap, not the
	   metric, is why it could not be assessed (exit 6 says so too). */
	for (size_t k = 0; k < cr->nr_budgets; k++) {
		struct budget_result *b = &cr->budgets[k];
		if (b->status != BUDGET_UNASSESSABLE ||
		    (b->reason && strstr(b->reason, "--max-time")))
			continue;
		char *why =
		    xstrfmt("--max-time stopped the measuring after %d round%s: %s", cr->rounds,
			    cr->rounds == 1 ? "" : "s", b->reason ? b->reason : "no value");
		free(b->reason);
		b->reason = why;
	}
}

static void explain_verdicts(struct run_result *r)
{
	for (size_t i = 0; i < r->nr_suites; i++)
		for (size_t b = 0; b < r->suites[i].nr_benches; b++)
			for (size_t c = 0; c < r->suites[i].benches[b].nr_commands; c++) {
				struct command_result *cr = &r->suites[i].benches[b].commands[c];
				identical_artifact_guard(cr);
				resolution_notes(cr);
				out_of_time_note(cr);
			}
}

static void apply_overrides(struct command_result *cr, const struct analyze_overrides *ov)
{
	struct analysis_settings *a = &cr->analysis;
	if (!ov || !a->present)
		return;
	if (ov->have_confidence)
		a->confidence = ov->confidence;
	for (int m = 0; m < METRIC__COUNT; m++)
		if (ov->have_max_percent[m])
			a->metric[m].max_percent = ov->max_percent[m];
}

/*
 * Warnings an earlier analysis made about the comparisons that are about to
 * be made again ("BENCHMARK/COMMAND METRIC: ..."): they give way to the new
 * ones, so that analysing twice gives what analysing once does.
 */
static void drop_comparison_warnings(struct run_result *r)
{
	struct strvec kept = STRVEC_INIT;
	struct sbuf label = SBUF_INIT;
	for (size_t w = 0; w < r->warnings.nr; w++) {
		int ours = 0;
		for (size_t i = 0; i < r->nr_suites && !ours; i++)
			for (size_t b = 0; b < r->suites[i].nr_benches && !ours; b++) {
				const struct bench_result *br = &r->suites[i].benches[b];
				for (size_t c = 0; c < br->nr_commands && !ours; c++)
					for (int m = 0; m < METRIC__COUNT && !ours; m++) {
						if (!br->commands[c].comparison[m].present)
							continue;
						sbuf_reset(&label);
						sbuf_addf(&label, "%s/%s %s: ", br->name,
							  br->commands[c].name,
							  metric_get(m)->name);
						ours = !strncmp(r->warnings.v[w], label.buf,
								label.len);
					}
			}
		if (!ours)
			strvec_push(&kept, r->warnings.v[w]);
	}
	sbuf_release(&label);
	strvec_clear(&r->warnings);
	r->warnings = kept;
}

/*
 * Which functions of a sampled profile changed, with the command's
 * confidence and resamples (the suite's defaults when the result carries no
 * analysis settings), seeded by "SUITE/BENCHMARK/COMMAND/profile".
 */
static void analyze_profile(const struct run_result *r, const struct suite_result *sr,
			    const struct bench_result *br, struct command_result *cr)
{
	/* A saved profile without its sampled runs keeps its saved verdicts. */
	if (!cr->profile || !cr->profile->nr_runs)
		return;
	const struct analysis_settings *a = &cr->analysis;
	double confidence = a->present ? a->confidence : 0.95;
	profile_analyze(cr->profile, confidence);
}

void analyze_result(struct run_result *r, const struct analyze_overrides *ov)
{
	drop_comparison_warnings(r);
	for (size_t i = 0; i < r->nr_suites; i++) {
		struct suite_result *sr = &r->suites[i];
		for (size_t b = 0; b < sr->nr_benches; b++) {
			struct bench_result *br = &sr->benches[b];
			for (size_t c = 0; c < br->nr_commands; c++) {
				struct command_result *cr = &br->commands[c];
				apply_overrides(cr, ov);
				for (int sd = 0; sd < SIDE__COUNT; sd++)
					for (int m = 0; m < METRIC__COUNT && cr->side[sd].present;
					     m++)
						if (cr->side[sd].metric[m].status == MSTATUS_OK)
							summarise(&cr->side[sd].metric[m]);
				for (size_t k = 0; k < cr->nr_budgets; k++)
					budget_reevaluate(
					    &cr->budgets[k],
					    &cr->side[SIDE_HEAD].metric[cr->budgets[k].metric]);
				for (int m = 0; m < METRIC__COUNT; m++)
					comparison_clear(&cr->comparison[m]);
				analyze_profile(r, sr, br, cr);
			}
		}
	}
	compare_run_all(r);
	accept_apply(r);
	explain_verdicts(r);
	analyze_rollup(r);
}

/* ---- the roll-up --------------------------------------------------------- */

/* Does a requested metric of this command fail the run (exit 6)? */
static int unsupported_required(const struct command_result *c)
{
	for (size_t i = 0; i < c->nr_budgets; i++)
		if (c->budgets[i].status == BUDGET_UNASSESSABLE)
			return 1;
	for (int sd = 0; sd < SIDE__COUNT; sd++)
		for (int m = 0; m < METRIC__COUNT && c->side[sd].present; m++)
			if (c->side[sd].metric[m].required &&
			    (c->side[sd].metric[m].status == MSTATUS_UNSUPPORTED ||
			     c->side[sd].metric[m].status == MSTATUS_FAILED))
				return 1;
	return 0;
}

static enum result command_outcome(const struct run_result *r, const struct command_result *cr,
				   struct run_summary *sm)
{
	enum result res = RESULT_PASS;
	int any_fail = 0;
	for (size_t k = 0; k < cr->nr_budgets; k++)
		any_fail |= cr->budgets[k].status == BUDGET_FAIL;
	if (cr->error) {
		res = RESULT_ERROR;
	} else if (r->interrupted && cr->side[SIDE_HEAD].count == 0) {
		res = RESULT_INTERRUPTED;
	} else {
		/* Over budget is what the command shows, but a required
		   metric that could not be measured still makes the run exit 6
		   (precedence 6, 1). */
		int unsup = unsupported_required(cr);
		if (any_fail)
			res = RESULT_OVER_BUDGET;
		else if (unsup)
			res = RESULT_UNSUPPORTED;
		sm->unsupported += unsup;
	}
	/* A more severe comparison verdict (compare mode) outranks it. */
	for (int m = 0; m < METRIC__COUNT; m++) {
		const struct comparison *cmp = &cr->comparison[m];
		enum result v = result_from_verdict(cmp->verdict);
		if (cmp->present && cmp->gate && v > res)
			res = v;
	}
	return res;
}

/* Count a command's result in r->summary. */
static void count_result(struct run_summary *sm, enum result res)
{
	switch (res) {
	case RESULT_PASS:
	case RESULT_WITHIN_NOISE:
		sm->pass++;
		break;
	case RESULT_IMPROVED:
		sm->improved++;
		break;
	case RESULT_INCONCLUSIVE:
		sm->inconclusive++;
		break;
	case RESULT_ACCEPTED:
		sm->accepted++;
		break;
	case RESULT_REGRESSION:
		sm->regression++;
		break;
	case RESULT_OVER_BUDGET:
		sm->over_budget++;
		break;
	case RESULT_ERROR:
	case RESULT_INTERRUPTED:
		sm->error++;
		break;
	default: /* unsupported: counted by command_outcome() */
		break;
	}
}

void analyze_rollup(struct run_result *r)
{
	struct run_summary *sm = &r->summary;
	int exit_code = sm->exit_code;
	memset(sm, 0, sizeof(*sm));
	sm->exit_code = exit_code; /* analyze/outcome.h's to set */

	/* enum result is in increasing severity: each level keeps the
	   greatest of the level below. */
	for (size_t i = 0; i < r->nr_suites; i++) {
		struct suite_result *s = &r->suites[i];
		enum result suite_worst = RESULT_NONE;
		for (size_t b = 0; b < s->nr_benches; b++) {
			struct bench_result *br = &s->benches[b];
			enum result bench_worst = RESULT_NONE;
			sm->benchmarks++;
			for (size_t c = 0; c < br->nr_commands; c++) {
				struct command_result *cr = &br->commands[c];
				cr->result = command_outcome(r, cr, sm);
				sm->commands++;
				count_result(sm, cr->result);
				if (cr->result > bench_worst)
					bench_worst = cr->result;
			}
			br->result = bench_worst ? bench_worst : RESULT_PASS;
			if (br->result > suite_worst)
				suite_worst = br->result;
		}
		/* A suite without benchmarks keeps its result (or passes). */
		if (suite_worst)
			s->result = suite_worst;
		if (!s->result)
			s->result = RESULT_PASS;
	}
}

void analyze_look_suite(uint64_t seed, const struct suite *su, struct bench_result *br,
			unsigned char *decided)
{
	const struct bench_spec *bs = NULL;
	for (size_t b = 0; b < su->nr_benches && !bs; b++)
		if (br->name && !strcmp(su->benches[b].name, br->name))
			bs = &su->benches[b];
	if (!bs)
		return;
	for (size_t c = 0; c < br->nr_commands && c < bs->nr_commands; c++)
		if (!br->commands[c].analysis.present)
			analyze_settings_from_suite(&bs->commands[c], &br->commands[c]);
	analyze_look(seed, su->name, br, decided);
}
