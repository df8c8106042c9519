/*
 * analyze/bisect: the search and the judging of `kagari bisect`
 * (analyze/bisect.h, docs/bisect.md).
 *
 * A commit with any regressing comparison is "bad", one whose followed
 * comparisons (those that regressed at BAD) all pass, improve or stay
 * within noise is "good", whatever the other commands' verdicts; one whose
 * followed comparison is not decided is measured again with twice the
 * runs a side, up to the command's max_runs, each measurement of a commit
 * at half the level of the one before (alpha/2, alpha/4, ...:
 * bisect_look_alpha()), and one whose build fails, or whose followed
 * comparison fails or is still not decided, is skipped (named), as
 * `git bisect` does with exit 125, and the search tries the nearest
 * untested commit instead.
 */
#include "analyze/bisect.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "analyze/format.h"
#include "base/sbuf.h"
#include "base/xalloc.h"
#include "model/metric.h"
#include "model/verdict.h"

const char *bisect_outcome_name(enum bisect_outcome o)
{
	return o == BISECT_GOOD	  ? "good"
	       : o == BISECT_BAD  ? "bad"
	       : o == BISECT_SKIP ? "skip"
				  : "untested";
}

void bisect_result_add(struct bisect_result *r, const char *sha, size_t sha_len,
		       const char *subject, size_t subject_len)
{
	r->path = xreallocarray(r->path, r->n + 1, sizeof(*r->path));
	struct bisect_commit *c = &r->path[r->n++];
	memset(c, 0, sizeof(*c));
	c->sha = xstrndup(sha, sha_len);
	c->subject = xstrndup(subject, subject_len);
}

void bisect_result_release(struct bisect_result *r)
{
	for (size_t k = 0; k < r->n; k++) {
		struct bisect_commit *c = &r->path[k];
		free(c->sha);
		free(c->subject);
		free(c->reason);
		free(c->what);
		free(c->alpha);
	}
	free(r->path);
	free(r->order);
	free(r->good);
	free(r->bad);
	memset(r, 0, sizeof(*r));
	r->first = -1;
}

const struct bisect_commit *bisect_first_bad(const struct bisect_result *r)
{
	return r->first >= 0 && !r->ambiguous ? &r->path[r->first] : NULL;
}

size_t bisect_skipped(const struct bisect_result *r)
{
	size_t skipped = 0;
	for (size_t k = 0; k < r->n; k++)
		skipped += r->path[k].out == BISECT_SKIP;
	return skipped;
}

long bisect_candidates_from(const struct bisect_result *r)
{
	long lo = r->first - 1;
	while (lo >= 0 && r->path[lo].out != BISECT_GOOD)
		lo--;
	return lo + 1;
}

void bisect_init(struct bisect *b)
{
	memset(b, 0, sizeof(*b));
	b->r.first = -1;
	b->metric = -1;
	strvec_init(&b->matters);
}

void bisect_release(struct bisect *b)
{
	bisect_result_release(&b->r);
	strvec_clear(&b->matters);
	free(b->alpha0);
	b->alpha0 = NULL;
	b->nr_alpha0 = 0;
}

int bisect_command_named(const char *named, const char *suite, const char *bench, const char *cmd)
{
	if (!named)
		return 1;
	size_t ns = strlen(suite), nb = strlen(bench);
	const char *p = named;
	if (!strncmp(p, suite, ns) && p[ns] == '/' && !strncmp(p + ns + 1, bench, nb) &&
	    p[ns + 1 + nb] == '/' && !strcmp(p + ns + 2 + nb, cmd))
		return 1;
	return !strncmp(p, bench, nb) && p[nb] == '/' && !strcmp(p + nb + 1, cmd);
}

/*
 * A commit left undecided is measured again and takes the last
 * measurement's outcome, so a false "bad" (or "good") may come from any
 * of its measurements: by the union bound their levels must add up to at
 * most alpha, and alpha/2 + alpha/4 + ... stays below it however many
 * there are (docs/bisect.md). Each measurement spends its share by the
 * suite's own design (the sequential looks of docs/statistics.md split it
 * again).
 */
double bisect_look_alpha(double alpha, int k)
{
	return ldexp(alpha, -k);
}

void bisect_save_alpha(struct bisect *b)
{
	for (size_t i = 0; i < b->nr_suites; i++) {
		const struct suite *su = b->suites[i];
		for (size_t bi = 0; bi < su->nr_benches; bi++)
			for (size_t cc = 0; cc < su->benches[bi].nr_commands; cc++) {
				b->alpha0 =
				    xreallocarray(b->alpha0, b->nr_alpha0 + 1, sizeof(*b->alpha0));
				b->alpha0[b->nr_alpha0++] =
				    1 - su->benches[bi].commands[cc].settings.regression.confidence;
			}
	}
}

/* It is the suites' settings that change, so the sequential looks made
   while measuring and the verdicts of analyze_result() use one level. */
void bisect_set_look(struct bisect *b, int k)
{
	size_t q = 0;
	for (size_t i = 0; i < b->nr_suites; i++) {
		struct suite *su = b->suites[i];
		for (size_t bi = 0; bi < su->nr_benches; bi++)
			for (size_t cc = 0; cc < su->benches[bi].nr_commands && q < b->nr_alpha0;
			     cc++, q++)
				su->benches[bi].commands[cc].settings.regression.confidence =
				    1 - (k > 0 ? bisect_look_alpha(b->alpha0[q], k) : b->alpha0[q]);
	}
}

/* The level the comparisons of rr were judged at (the largest, should
   commands' levels differ); NAN when none was made. */
static double judged_alpha(const struct run_result *rr)
{
	double a = NAN;
	for (size_t i = 0; i < rr->nr_suites; i++)
		for (size_t bi = 0; bi < rr->suites[i].nr_benches; bi++) {
			const struct bench_result *br = &rr->suites[i].benches[bi];
			for (size_t cc = 0; cc < br->nr_commands; cc++)
				for (int m = 0; m < METRIC__COUNT; m++) {
					const struct comparison *cp =
					    &br->commands[cc].comparison[m];
					if (cp->present && isfinite(cp->confidence) &&
					    !(1 - cp->confidence <= a))
						a = 1 - cp->confidence;
				}
		}
	return a;
}

void bisect_measure_begin(struct bisect *b, size_t idx)
{
	struct bisect_commit *c = &b->r.path[idx];
	free(c->reason);
	free(c->what);
	c->reason = c->what = NULL;
	c->out = BISECT_UNTESTED;
	c->have_change = 0;
	c->again = 0;
	c->undecided = 0;
	c->measured++;
	c->alpha = xreallocarray(c->alpha, (size_t)c->measured, sizeof(*c->alpha));
	c->alpha[c->measured - 1] = NAN;
	b->r.steps++;
}

/*
 * The runs a side that might decide an undecided comparison of command
 * cc of benchmark br in suite i, measured with `runs` a side: twice as
 * many, up to the command's max_runs (the cap of the sequential rounds);
 * 0 when it is already there.
 */
static int runs_again(const struct bisect *b, size_t i, const struct bench_result *br, size_t cc,
		      int runs)
{
	if (i >= b->nr_suites)
		return 0;
	const struct suite *su = b->suites[i];
	for (size_t k = 0; k < su->nr_benches; k++) {
		const struct bench_spec *bs = &su->benches[k];
		if (strcmp(bs->name, br->name) || cc >= bs->nr_commands)
			continue;
		int cap = bs->commands[cc].settings.max_runs;
		if (b->runs > cap)
			cap = b->runs;
		int next = runs > 0 ? 2 * runs : 0;
		if (next > cap)
			next = cap;
		return next > runs ? next : 0;
	}
	return 0;
}

/*
 * Would more runs give metric m of cr more samples? Not when it has fewer
 * than the runs (instrumented runs are min(runs, min_samples)), nor for
 * allocation counts that have min_samples already, nor for counters with
 * exactly min_samples (valgrind's, instrumented; perf's come from every
 * timed run, so more than min_samples of them say they are perf's).
 */
static int more_samples(const struct command_result *cr, int m)
{
	size_t got = cr->side[SIDE_HEAD].metric[m].nr;
	size_t min = cr->analysis.min_samples > 0 ? (size_t)cr->analysis.min_samples : 0;
	int group = metric_get(m)->group;
	if (got < cr->side[SIDE_HEAD].count)
		return 0;
	if (group == GROUP_ALLOCATIONS && got >= min)
		return 0;
	if (group == GROUP_COUNTERS && got == min)
		return 0;
	return 1;
}

/* c's change: the comparison cp of what ("suite/bench/command metric"). */
static void note_change(struct bisect_commit *c, const struct comparison *cp, const char *what)
{
	free(c->what);
	c->have_change = 1;
	c->change = cp->change_percent;
	c->low = cp->ci_low_percent;
	c->high = cp->ci_high_percent;
	c->what = xstrdup(what);
}

/* Where judge_one() is: the commit, whether it is BAD, which of
   b->matters were seen, how many comparisons were judged. */
struct judging {
	struct bisect_commit *c;
	int at_bad;
	unsigned char *seen;
	size_t judged;
};

/* Why comparison cp (of cr, metric m) leaves c undecided, and the runs a
   side that might decide it (c->again). */
static void note_undecided(const struct bisect *b, struct bisect_commit *c, size_t i,
			   const struct bench_result *br, size_t cc, int m, const char *what)
{
	const struct command_result *cr = &br->commands[cc];
	const struct comparison *cp = &cr->comparison[m];
	struct sbuf r = SBUF_INIT;
	if (cr->error) {
		sbuf_addf(&r, "%s: the command failed", what);
	} else {
		sbuf_addf(&r, "%s %s ", what, verdict_text(cp->verdict, "undecided"));
		units_format_change(&r, cp->change_percent, cp->ci_low_percent,
				    cp->ci_high_percent);
		c->undecided = cp->present;
		if (more_samples(cr, m))
			c->again = runs_again(b, i, br, cc, (int)cr->side[SIDE_HEAD].count);
	}
	c->reason = sbuf_detach(&r);
}

/* One comparison (metric m of command cc of br, in suite i of rr) judged. */
static void judge_one(struct bisect *b, struct judging *J, const struct run_result *rr, size_t i,
		      const struct bench_result *br, size_t cc, int m, struct sbuf *what)
{
	struct bisect_commit *c = J->c;
	const struct command_result *cr = &br->commands[cc];
	const struct comparison *cp = &cr->comparison[m];
	int gate = cp->present ? cp->gate : cr->analysis.metric[m].gate;
	int selected = b->metric >= 0 ? m == b->metric : gate;
	if (!selected || (!cp->present && !cr->error) ||
	    !bisect_command_named(b->command, rr->suites[i].name, br->name, cr->name))
		return;
	sbuf_reset(what);
	sbuf_addf(what, "%s/%s/%s %s", rr->suites[i].name, br->name, cr->name, metric_get(m)->name);
	size_t k = 0;
	while (k < b->matters.nr && strcmp(b->matters.v[k], what->buf))
		k++;
	int matters = k < b->matters.nr;
	if (matters)
		J->seen[k] = 1;
	J->judged++;
	if (cp->present && cp->verdict == VERDICT_REGRESSION) {
		if (c->out != BISECT_BAD) {
			c->out = BISECT_BAD;
			note_change(c, cp, what->buf);
		}
		if (J->at_bad)
			strvec_push(&b->matters, what->buf);
		return;
	}
	/* At BAD every selected comparison may be the regression, so an
	   undecided one is measured again there too. */
	if (!matters && !J->at_bad)
		return;
	int decided =
	    cp->present && (cp->verdict == VERDICT_PASS || cp->verdict == VERDICT_IMPROVED ||
			    cp->verdict == VERDICT_WITHIN_NOISE || cp->verdict == VERDICT_ACCEPTED);
	/* A good commit shows the change of the first comparison it is
	   judged good on. */
	if (decided && matters && c->out != BISECT_BAD && !c->have_change)
		note_change(c, cp, what->buf);
	if (!decided && !c->reason)
		note_undecided(b, c, i, br, cc, m, what->buf);
}

/*
 * Bad: any judged comparison (gated, or --metric's) is a regression.
 * Otherwise what decides is the comparisons that regressed at BAD
 * (b->matters, filled when BAD itself is judged): all of them pass,
 * improve or stay within noise: good; one inconclusive, skipped or
 * failed: skip, naming it. An inconclusive comparison of a command that
 * did not regress at BAD says nothing about the regression being hunted,
 * so it skips nothing.
 */
void bisect_judge(struct bisect *b, size_t idx, const struct run_result *rr)
{
	struct bisect_commit *c = &b->r.path[idx];
	struct judging J = {c, idx + 1 == b->r.n, xcalloc(b->matters.nr + 1, 1), 0};
	struct sbuf what = SBUF_INIT;
	if (c->measured > 0)
		c->alpha[c->measured - 1] = judged_alpha(rr);
	for (size_t i = 0; i < rr->nr_suites; i++)
		for (size_t bi = 0; bi < rr->suites[i].nr_benches; bi++) {
			const struct bench_result *br = &rr->suites[i].benches[bi];
			for (size_t cc = 0; cc < br->nr_commands; cc++)
				for (int m = 0; m < METRIC__COUNT; m++)
					judge_one(b, &J, rr, i, br, cc, m, &what);
		}
	sbuf_release(&what);
	size_t missing = 0;
	while (missing < b->matters.nr && J.seen[missing])
		missing++;
	free(J.seen);
	if (c->out == BISECT_BAD) {
		free(c->reason); /* a regression is bad whatever else is unclear
				  */
		c->reason = NULL;
		c->again = 0;
		c->undecided = 0;
	} else if (!J.judged) {
		c->out = BISECT_SKIP;
		c->have_change = 0; /* a skip says why in its reason */
		c->reason = xstrdup(b->command ? "no comparison of --command's command and the "
						 "selected metric"
					       : "no comparison of the selected metric");
	} else if (c->reason) {
		c->out = BISECT_SKIP;
		c->have_change = 0;
	} else if (missing < b->matters.nr) {
		/* A comparison that regressed at BAD is missing here. */
		c->out = BISECT_SKIP;
		c->have_change = 0;
		c->reason = xstrfmt("%s: not compared", b->matters.v[missing]);
	} else {
		c->out = BISECT_GOOD;
	}
}

static int stopped(const struct bisect_oracle *o)
{
	return o->stop && o->stop(o->data);
}

/*
 * Test path[idx]: prepared once, measured and judged; a commit skipped
 * because a comparison that matters is undecided is measured again, with
 * twice the runs a side each time, up to the command's max_runs, before
 * it stays skipped.
 */
static void test_commit(struct bisect *b, const struct bisect_oracle *o, size_t idx)
{
	struct bisect_commit *c = &b->r.path[idx];
	b->r.order = xreallocarray(b->r.order, b->r.nr_order + 1, sizeof(*b->r.order));
	b->r.order[b->r.nr_order++] = idx;
	if (o->progress)
		o->progress(o->data, b, idx, 0);
	if (o->prepare(o->data, b, idx)) {
		c->out = BISECT_SKIP;
		return;
	}
	o->measure(o->data, b, idx);
	while (c->out == BISECT_SKIP && c->again > 0 && !stopped(o)) {
		if (o->progress)
			o->progress(o->data, b, idx, 1);
		c->runs = c->again;
		o->measure(o->data, b, idx);
	}
}

/* lo: the index of the last known good (-1 is GOOD itself), hi: the first
   known bad. */
void bisect_search(struct bisect *b, const struct bisect_oracle *o)
{
	long lo = -1, hi = (long)b->r.n - 1;
	b->r.first = -1;
	b->r.ambiguous = 0;
	if (!b->r.n)
		return;
	test_commit(b, o, (size_t)hi);
	if (b->r.path[hi].out != BISECT_BAD)
		return;
	while (hi - lo > 1 && !stopped(o)) {
		long mid = lo + (hi - lo) / 2, pick = -1;
		/* The untested commit nearest the middle (skips are tried
		 * around). */
		for (long d = 0; d < hi - lo && pick < 0; d++) {
			if (mid - d > lo && b->r.path[mid - d].out == BISECT_UNTESTED)
				pick = mid - d;
			else if (mid + d < hi && b->r.path[mid + d].out == BISECT_UNTESTED)
				pick = mid + d;
		}
		if (pick < 0) {
			b->r.ambiguous = 1;
			break;
		}
		test_commit(b, o, (size_t)pick);
		if (b->r.path[pick].out == BISECT_BAD)
			hi = pick;
		else if (b->r.path[pick].out == BISECT_GOOD)
			lo = pick;
	}
	b->r.first = hi;
}
