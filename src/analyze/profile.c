/* analyze/profile: which functions changed (analyze/profile.h). */
#include "analyze/profile.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "analyze/exact.h"
#include "base/xalloc.h"

/* ---- analysis ----------------------------------------------------------- */

static int cmp_pidx(const void *a, const void *b, void *ctx)
{
	const double *p = ctx;
	double x = p[*(const size_t *)a], y = p[*(const size_t *)b];
	return x < y ? -1 : x > y ? 1 : 0;
}

void profile_bh(const double *p, double *q, size_t n)
{
	size_t m = 0;
	size_t *idx = xcalloc(n ? n : 1, sizeof(size_t));
	double *pv = xcalloc(n ? n : 1, sizeof(double));
	for (size_t i = 0; i < n; i++) {
		pv[i] = p[i];
		if (!isnan(p[i]))
			idx[m++] = i;
	}
	qsort_r(idx, m, sizeof(size_t), cmp_pidx, pv);
	double run = 1.0;
	for (size_t k = m; k-- > 0;) {
		double v = pv[idx[k]] * (double)m / (double)(k + 1);
		if (v < run)
			run = v;
		q[idx[k]] = run;
	}
	for (size_t i = 0; i < n; i++)
		if (isnan(pv[i]))
			q[i] = NAN;
	free(idx);
	free(pv);
}

/* A run's estimated time of function f (self or inclusive), in ns. */
static double run_time(const struct profile_run *r, size_t f, int incl)
{
	if (!r->samples || f >= r->nr_slot || !r->slot[f])
		return 0;
	const struct profile_count *c = &r->counts[r->slot[f] - 1];
	return (double)(incl ? c->incl : c->self) / (double)r->samples * r->cpu_ns;
}

static int cmp_change(const void *a, const void *b)
{
	const struct profile_change *x = a, *y = b;
	/* Grown first, then shrunk, then the rest; within each by size. */
	static const int rank[] = {
	    [PROFILE_GREW] = 0, [PROFILE_SHRANK] = 1, [PROFILE_SAME] = 2, [PROFILE_TOO_FEW] = 3};
	if (rank[x->verdict] != rank[y->verdict])
		return rank[x->verdict] - rank[y->verdict];
	double ax = fabs(x->change_ns), ay = fabs(y->change_ns);
	if (x->verdict == PROFILE_GREW || x->verdict == PROFILE_SHRANK) {
		ax = x->change_ns * (x->verdict == PROFILE_GREW ? 1 : -1);
		ay = y->change_ns * (y->verdict == PROFILE_GREW ? 1 : -1);
	}
	if (ax != ay)
		return ax > ay ? -1 : 1;
	return x->func < y->func ? -1 : x->func > y->func;
}

/* Which rounds have a run on both sides (the pairs), and how many runs
   each side has in each round (a round with several runs on a side takes
   their mean). */
struct pairing {
	size_t nround, npairs;
	size_t *nrun; /* [round * PROFILE_SIDES + side] */
	size_t nruns_side[PROFILE_SIDES];
	int *pair_of_round; /* the pair's index, or -1 */
};

static void pairing_build(struct pairing *pg, const struct profile_set *ps)
{
	int max_round = 0;
	for (size_t i = 0; i < ps->nr_runs; i++)
		if (ps->runs[i].round > max_round)
			max_round = ps->runs[i].round;
	pg->nround = (size_t)max_round + 1;
	pg->nrun = xcalloc(pg->nround * PROFILE_SIDES, sizeof(size_t));
	pg->nruns_side[0] = pg->nruns_side[1] = 0;
	for (size_t i = 0; i < ps->nr_runs; i++) {
		pg->nrun[(size_t)ps->runs[i].round * PROFILE_SIDES + (size_t)ps->runs[i].side]++;
		pg->nruns_side[ps->runs[i].side]++;
	}
	pg->pair_of_round = xcalloc(pg->nround, sizeof(int));
	pg->npairs = 0;
	for (size_t k = 0; k < pg->nround; k++) {
		pg->pair_of_round[k] = -1;
		if (pg->nrun[k * PROFILE_SIDES] && pg->nrun[k * PROFILE_SIDES + 1])
			pg->pair_of_round[k] = (int)pg->npairs++;
	}
}

static void pairing_free(struct pairing *pg)
{
	free(pg->nrun);
	free(pg->pair_of_round);
}

/* Function f's mean self and inclusive time per side, its samples, and its
   self time per pair and side in side_sum ([pair * PROFILE_SIDES + side]). */
static void function_sums(struct profile_change *c, const struct profile_set *ps,
			  const struct pairing *pg, double *side_sum)
{
	size_t f = c->func;
	memset(side_sum, 0, (pg->npairs * PROFILE_SIDES + 1) * sizeof(double));
	for (size_t i = 0; i < ps->nr_runs; i++) {
		const struct profile_run *r = &ps->runs[i];
		double t = run_time(r, f, 0);
		c->self_ns[r->side] += t;
		c->incl_ns[r->side] += run_time(r, f, 1);
		if (f < r->nr_slot && r->slot[f])
			c->samples[r->side] += r->counts[r->slot[f] - 1].self;
		int pr = pg->pair_of_round[r->round];
		if (pr >= 0)
			side_sum[(size_t)pr * PROFILE_SIDES + (size_t)r->side] +=
			    t /
			    (double)pg->nrun[(size_t)r->round * PROFILE_SIDES + (size_t)r->side];
	}
	for (int s = 0; s < PROFILE_SIDES; s++)
		if (pg->nruns_side[s]) {
			c->self_ns[s] /= (double)pg->nruns_side[s];
			c->incl_ns[s] /= (double)pg->nruns_side[s];
		}
	c->change_ns = c->self_ns[PROFILE_HEAD] - c->self_ns[PROFILE_BASE];
}

/*
 * The signed-rank test on the npairs head − base differences d and its
 * Hodges-Lehmann estimate and interval, as the timed comparisons use: on a
 * shared machine a run's CPU time, and with it every function's, jumps by
 * tens of percent now and then, and a test on the sum lets those few pairs
 * decide (a +10% leaf over 40 pairs fell short of q < 0.001 one compare in
 * four under ctest -j2; the ranks did not). neg is scratch of npairs.
 */
static void function_test(struct profile_change *c, const double *d, double *neg, size_t npairs,
			  double confidence)
{
	for (size_t k = 0; k < npairs; k++)
		neg[k] = -d[k];
	double pg = exact_signed_rank_p(d, npairs, NULL, NULL);
	double pl = exact_signed_rank_p(neg, npairs, NULL, NULL);
	double pv = 2 * (pg < pl ? pg : pl);
	c->p_value = pv > 1 ? 1 : pv;
	size_t nw = npairs * (npairs + 1) / 2;
	double *a = exact_sorted_copy(d, npairs);
	c->change_ns = nw % 2 ? exact_walsh_select(a, npairs, nw / 2)
			      : (exact_walsh_select(a, npairs, nw / 2 - 1) +
				 exact_walsh_select(a, npairs, nw / 2)) /
				    2;
	exact_hl_interval_sorted(a, npairs, confidence, &c->ci_low_ns, &c->ci_high_ns);
	free(a);
}

/* Benjamini-Hochberg over the functions' p-values; a function grew or
   shrank when its q is below alpha and its interval excludes 0. */
static void apply_fdr(struct profile_change *ch, const double *p, size_t nf, double alpha)
{
	double *q = xcalloc(nf, sizeof(double));
	profile_bh(p, q, nf);
	for (size_t f = 0; f < nf; f++) {
		struct profile_change *c = &ch[f];
		c->q_value = q[f];
		if (isnan(q[f]) || q[f] >= alpha)
			continue;
		if (c->change_ns > 0 && c->ci_low_ns > 0)
			c->verdict = PROFILE_GREW;
		else if (c->change_ns < 0 && c->ci_high_ns < 0)
			c->verdict = PROFILE_SHRANK;
	}
	free(q);
}

void profile_analyze(struct profile_set *ps, double confidence)
{
	free(ps->changes);
	ps->changes = NULL;
	ps->nr_changes = 0;
	ps->confidence = confidence;
	size_t nf = ps->nr_funcs;
	if (!nf)
		return;

	struct pairing pg;
	pairing_build(&pg, ps);
	size_t npairs = pg.npairs;
	ps->pairs = npairs;

	struct profile_change *ch = xcalloc(nf, sizeof(*ch));
	double *side_sum = xcalloc(npairs * PROFILE_SIDES + 1, sizeof(double));
	double *d = xcalloc(npairs + 1, sizeof(double));
	double *neg = xcalloc(npairs + 1, sizeof(double));
	double *p = xcalloc(nf, sizeof(double));

	for (size_t f = 0; f < nf; f++) {
		struct profile_change *c = &ch[f];
		c->func = f;
		function_sums(c, ps, &pg, side_sum);
		c->ci_low_ns = c->ci_high_ns = c->p_value = c->q_value = NAN;
		p[f] = NAN;
		if (c->samples[0] + c->samples[1] < PROFILE_MIN_SAMPLES) {
			c->verdict = PROFILE_TOO_FEW;
			continue;
		}
		c->verdict = PROFILE_SAME;
		if (npairs < 2)
			continue;
		for (size_t k = 0; k < npairs; k++)
			d[k] = side_sum[k * PROFILE_SIDES + 1] - side_sum[k * PROFILE_SIDES];
		function_test(c, d, neg, npairs, confidence);
		p[f] = c->p_value;
	}
	apply_fdr(ch, p, nf, 1 - confidence);
	/* Functions never seen on either side are not listed. */
	size_t n = 0;
	for (size_t f = 0; f < nf; f++)
		if (ch[f].samples[0] || ch[f].samples[1] || ch[f].incl_ns[0] > 0 ||
		    ch[f].incl_ns[1] > 0)
			ch[n++] = ch[f];
	qsort(ch, n, sizeof(*ch), cmp_change);
	ps->changes = ch;
	ps->nr_changes = n;
	free(p);
	free(neg);
	free(d);
	free(side_sum);
	pairing_free(&pg);
}
