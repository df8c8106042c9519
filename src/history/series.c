/*
 * history/series: points to series of commits, in the order of commits,
 * with their steps and noise (history/series.h).
 */
#include "history/series.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "base/cmp.h"
#include "base/sbuf.h"
#include "base/strvec.h"
#include "base/xalloc.h"
#include "git/git.h"

static int cmp_rank_sha(const void *a, const void *b)
{
	return strcmp(((const struct history_rank *)a)->sha, ((const struct history_rank *)b)->sha);
}

static int cmp_str(const void *a, const void *b)
{
	return strcmp(*(const char *const *)a, *(const char *const *)b);
}

/* Append one rank (unsorted); shas that are not 40 characters are skipped. */
static void order_add(struct history_order *o, const char *sha, size_t len,
		      enum history_place place, long long key)
{
	if (len != 40)
		return;
	if (o->nr == o->alloc) {
		o->alloc = o->alloc ? 2 * o->alloc : 64;
		o->v = xreallocarray(o->v, o->alloc, sizeof(*o->v));
	}
	memcpy(o->v[o->nr].sha, sha, 40);
	o->v[o->nr].sha[40] = '\0';
	o->v[o->nr].place = place;
	o->v[o->nr].key = key;
	o->nr++;
}

static void order_sort(struct history_order *o)
{
	if (o->nr > 1)
		qsort(o->v, o->nr, sizeof(*o->v), cmp_rank_sha);
}

const struct history_rank *history_order_find(const struct history_order *o, const char *sha)
{
	struct history_rank k;
	if (!o->nr || strlen(sha) != 40)
		return NULL;
	memcpy(k.sha, sha, 41);
	return bsearch(&k, o->v, o->nr, sizeof(*o->v), cmp_rank_sha);
}

void history_order_line(struct history_order *o, const char *const *sha, size_t n)
{
	size_t before = o->nr;
	for (size_t k = 0; k < n; k++)
		order_add(o, sha[k], strlen(sha[k]), HISTORY_ON_LINE, (long long)k);
	o->line = o->line || o->nr > before;
	order_sort(o);
}

void history_order_dated(struct history_order *o, const char *const *sha, const long long *date,
			 size_t n)
{
	for (size_t k = 0; k < n; k++)
		order_add(o, sha[k], strlen(sha[k]), HISTORY_DATED, date[k]);
	order_sort(o);
}

void history_order_release(struct history_order *o)
{
	free(o->v);
	*o = (struct history_order)HISTORY_ORDER_INIT;
}

/* HEAD's first-parent line of repo, as `git rev-list` gives it (newest first). */
static void order_load_line(struct history_order *o, const char *repo)
{
	struct sbuf out = SBUF_INIT, err = SBUF_INIT;
	static const char *const fp[] = {"rev-list", "--first-parent", "HEAD", NULL};
	if (!git_run(repo, fp, GIT_SLOW_TIMEOUT_NS, &out, &err)) {
		size_t lines = 0;
		for (size_t i = 0; i < out.len; i++)
			lines += out.buf[i] == '\n';
		size_t k = 0;
		for (char *s = out.buf, *nl; s && *s; s = nl + 1, k++) {
			nl = strchr(s, '\n');
			if (!nl)
				break;
			order_add(o, s, (size_t)(nl - s), HISTORY_ON_LINE,
				  (long long)(lines - 1 - k));
		}
		o->line = o->nr > 0;
	}
	order_sort(o);
	sbuf_release(&out);
	sbuf_release(&err);
}

/* The commit dates of p's shas that are not on the line, each once, in one
   git call (at most HISTORY_MAX_DATED of them, to stay far below ARG_MAX;
   the rest keep the order they were first measured in). */
static void order_load_dated(struct history_order *o, const char *repo,
			     const struct history_points *p)
{
	const char **other = xcalloc(p->nr + 1, sizeof(*other));
	size_t nr_other = 0;
	for (size_t i = 0; i < p->nr; i++) {
		const char *sha = p->v[i].sha;
		if (sha && strlen(sha) == 40 && strspn(sha, "0123456789abcdef") == 40 &&
		    !history_order_find(o, sha))
			other[nr_other++] = sha;
	}
	qsort(other, nr_other, sizeof(*other), cmp_str);
	struct strvec args = STRVEC_INIT;
	strvec_push(&args, "log");
	strvec_push(&args, "--no-walk=unsorted");
	strvec_push(&args, "--ignore-missing");
	strvec_push(&args, "--format=%H %ct");
	size_t fixed = args.nr;
	for (size_t i = 0; i < nr_other && args.nr - fixed < HISTORY_MAX_DATED; i++)
		if (!i || strcmp(other[i], other[i - 1]))
			strvec_push(&args, other[i]);
	free(other);
	struct sbuf out = SBUF_INIT, err = SBUF_INIT;
	if (args.nr > fixed) {
		size_t before = o->nr;
		if (!git_run(repo, (const char *const *)args.v, GIT_SLOW_TIMEOUT_NS, &out, &err))
			for (char *s = out.buf, *nl; s && *s; s = nl + 1) {
				nl = strchr(s, '\n');
				if (!nl)
					break;
				if (nl - s > 41 && s[40] == ' ')
					order_add(o, s, 40, HISTORY_DATED,
						  strtoll(s + 41, NULL, 10));
			}
		if (o->nr > before)
			order_sort(o);
	}
	strvec_clear(&args);
	sbuf_release(&out);
	sbuf_release(&err);
}

void history_order_load(struct history_order *o, const char *dir, const struct history_points *p)
{
	struct sbuf err = SBUF_INIT;
	char *repo = NULL;
	*o = (struct history_order)HISTORY_ORDER_INIT;
	if (!git_toplevel(dir, &repo, &err)) {
		order_load_line(o, repo);
		order_load_dated(o, repo, p);
	}
	free(repo);
	sbuf_release(&err);
}

const struct history_commit *history_series_latest(const struct history_series *s)
{
	for (size_t q = s->nr; q-- > 0;)
		if (s->pts[q].place == HISTORY_ON_LINE)
			return &s->pts[q];
	return s->nr ? &s->pts[s->nr - 1] : NULL;
}

struct by_sha {
	const char *sha;
	size_t pos;
};

static int cmp_by_sha(const void *a, const void *b)
{
	const struct by_sha *x = a, *y = b;
	int c = strcmp(x->sha, y->sha);
	return c ? c : (x->pos > y->pos) - (x->pos < y->pos);
}

static int cmp_commit_order(const void *a, const void *b)
{
	const struct history_commit *x = a, *y = b;
	if (x->place != y->place)
		return (int)x->place - (int)y->place;
	if (x->key != y->key)
		return (x->key > y->key) - (x->key < y->key);
	return (x->first > y->first) - (x->first < y->first);
}

static int same_series(const struct history_point *a, const struct history_point *b)
{
	return !strcmp(a->suite, b->suite) && !strcmp(a->benchmark, b->benchmark) &&
	       !strcmp(a->command, b->command) && !strcmp(a->metric, b->metric) &&
	       !strcmp(a->fingerprint, b->fingerprint);
}

/*
 * One point per commit of the series' points p->v[i..j), placed at its
 * first run: the points sorted by (sha, position) group each commit's runs
 * in O(n log n); series_order() puts the commits back in time order.
 */
static void series_commits(struct history_series *s, const struct history_points *p, size_t i,
			   size_t j)
{
	struct by_sha *ix = xcalloc(j - i, sizeof(*ix));
	size_t alloc = 0;
	for (size_t k = i; k < j; k++)
		ix[k - i] = (struct by_sha){p->v[k].sha, k};
	qsort(ix, j - i, sizeof(*ix), cmp_by_sha);
	for (size_t k = 0; k < j - i;) {
		size_t e = k;
		while (e < j - i && !strcmp(ix[e].sha, ix[k].sha))
			e++;
		if (s->nr == alloc) {
			alloc = alloc ? 2 * alloc : 16;
			s->pts = xreallocarray(s->pts, alloc, sizeof(*s->pts));
		}
		struct history_commit *c = &s->pts[s->nr++];
		memset(c, 0, sizeof(*c));
		c->sha = p->v[ix[k].pos].sha;
		c->time = p->v[ix[k].pos].time;
		c->first = ix[k].pos;
		c->runs = e - k;
		c->vals = xcalloc(e - k, sizeof(*c->vals));
		for (size_t q = k; q < e; q++) {
			const struct history_point *pt = &p->v[ix[q].pos];
			c->vals[q - k] = pt->median;
			if (pt->verdict) {
				c->cmps = xreallocarray(c->cmps, c->nr_cmps + 1, sizeof(*c->cmps));
				c->cmps[c->nr_cmps++] = pt;
			}
		}
		k = e;
	}
	free(ix);
}

/* The commits in the order of commits: ranked, then sorted. */
static void series_order(struct history_series *s, const struct history_order *o)
{
	for (size_t q = 0; q < s->nr; q++) {
		const struct history_rank *g = history_order_find(o, s->pts[q].sha);
		s->pts[q].place = g ? g->place : HISTORY_UNKNOWN;
		s->pts[q].key = g ? g->key : 0;
	}
	qsort(s->pts, s->nr, sizeof(*s->pts), cmp_commit_order);
}

/* Each commit's median and interval of its runs, the series' least and
   greatest runs per commit; the points as steps.h takes them (caller
   frees). */
static struct steps_point *series_points(struct history_series *s)
{
	struct steps_point *sp = xcalloc(s->nr ? s->nr : 1, sizeof(*sp));
	for (size_t q = 0; q < s->nr; q++) {
		struct history_commit *c = &s->pts[q];
		size_t n = c->runs;
		double *t = xcalloc(n, sizeof(*t));
		memcpy(t, c->vals, n * sizeof(*t));
		qsort(t, n, sizeof(*t), cmp_double);
		c->median = n % 2 ? t[n / 2] : (t[n / 2 - 1] + t[n / 2]) / 2;
		c->low = t[0];
		c->high = t[n - 1];
		free(t);
		if (!q || n < s->min_runs)
			s->min_runs = n;
		if (n > s->max_runs)
			s->max_runs = n;
		sp[q] = (struct steps_point){c->median, c->vals, n};
	}
	return sp;
}

int history_verdict_is_change(const char *verdict)
{
	return verdict && (!strcmp(verdict, "regression") || !strcmp(verdict, "improved") ||
			   !strcmp(verdict, "accepted"));
}

/* Is base an earlier commit than pts[q]: on the line before it when there
   is a line, else (no repository) a commit measured before it? */
static int base_before(const struct history_series *s, size_t q, const char *base,
		       const struct history_order *o)
{
	if (!base || !strcmp(base, s->pts[q].sha))
		return 0;
	if (o->line) {
		const struct history_rank *g = history_order_find(o, base);
		return s->pts[q].place == HISTORY_ON_LINE && g && g->place == HISTORY_ON_LINE &&
		       g->key < s->pts[q].key;
	}
	for (size_t k = q + 1; k < s->nr; k++)
		if (!strcmp(s->pts[k].sha, base))
			return 0;
	return 1;
}

const struct history_point *history_series_evidence(const struct history_series *s, size_t q,
						    const struct history_order *o)
{
	const struct history_commit *c = &s->pts[q];
	for (size_t k = c->nr_cmps; k-- > 0;)
		if (base_before(s, q, c->cmps[k]->base_sha, o) &&
		    isfinite(c->cmps[k]->change_percent))
			return c->cmps[k];
	return NULL;
}

/* Does the range of paired step ps, from its base to its commit, hold
   pts[a]? */
static int in_paired_range(const struct history_series *s, const struct history_step *ps, size_t a,
			   const struct history_order *o)
{
	if (a > ps->at)
		return 0;
	if (a == ps->at)
		return 1;
	if (!o->line)
		return 0;
	const struct history_rank *g = history_order_find(o, ps->from_sha);
	return g && s->pts[a].place == HISTORY_ON_LINE && s->pts[a].key > g->key;
}

static int cmp_step_at(const void *a, const void *b)
{
	const struct history_step *x = a, *y = b;
	return (x->at > y->at) - (x->at < y->at);
}

/*
 * Steps from pairs first: each commit whose paired comparison against an
 * earlier commit says regression, improved or accepted is a step at that
 * commit with the paired change as its size, however short the line. A
 * series step inside such a range gives way to it; one at a commit whose
 * paired comparison measured no such change — its interval excludes the
 * series' change — is dropped: the pairs measured that commit, the levels
 * only guessed it.
 */
static void series_paired(struct history_series *s, const struct step *found, size_t nr_found,
			  const struct history_order *o)
{
	struct history_step *v = xcalloc(nr_found + s->nr + 1, sizeof(*v));
	size_t nr = 0;
	for (size_t q = 0; q < s->nr; q++) {
		const struct history_point *e = history_series_evidence(s, q, o);
		const struct history_point *last =
		    s->pts[q].nr_cmps ? s->pts[q].cmps[s->pts[q].nr_cmps - 1] : NULL;
		if (last && !strcmp(last->verdict, "regression"))
			s->nr_regressions++;
		else if (last && !strcmp(last->verdict, "improved"))
			s->nr_improvements++;
		else if (last && !strcmp(last->verdict, "accepted"))
			s->nr_accepted++;
		if (!e || !history_verdict_is_change(e->verdict))
			continue;
		double after = e->median, f = 1 + e->change_percent / 100;
		v[nr++] = (struct history_step){q,     e->base_sha,	  f > 0 ? after / f : NAN,
						after, e->change_percent, HISTORY_EVIDENCE_PAIRED,
						e};
	}
	size_t paired = nr;
	for (size_t k = 0; k < nr_found; k++) {
		const struct step *st = &found[k];
		int covered = 0;
		for (size_t j = 0; j < paired && !covered; j++)
			covered = in_paired_range(s, &v[j], st->at, o);
		const struct history_point *e = history_series_evidence(s, st->at, o);
		if (!covered && e && !history_verdict_is_change(e->verdict) &&
		    isfinite(e->ci_low_percent) && isfinite(e->ci_high_percent) &&
		    (st->change_percent < e->ci_low_percent ||
		     st->change_percent > e->ci_high_percent))
			covered = 1;
		if (!covered)
			v[nr++] = (struct history_step){
			    st->at,    s->pts[st->at - 1].sha, st->before,
			    st->after, st->change_percent,     HISTORY_EVIDENCE_SERIES,
			    NULL};
	}
	qsort(v, nr, sizeof(*v), cmp_step_at);
	s->steps = v;
	s->nr_steps = nr;
}

/* The series' steps, its noise and the runs a step of detect percent needs. */
static void series_steps(struct history_series *s, const struct steps_point *sp,
			 const struct history_order *o, double min_change, double detect)
{
	int line = o->line;
	struct step *found = NULL;
	size_t nr_found = 0;
	/*
	 * Steps are searched on HEAD's first-parent line alone, in its
	 * order (series_order() puts it first): a side branch's commits or
	 * another branch's tip, placed after it by date, are not a
	 * continuation of that line, and a "step" into them would be no
	 * change any commit made. They are shown, not segmented. Without a
	 * repository there is no line, and every point, in the order it
	 * was measured, is segmented.
	 */
	size_t nseg = s->nr;
	if (line)
		for (nseg = 0; nseg < s->nr && s->pts[nseg].place == HISTORY_ON_LINE;)
			nseg++;
	if (nseg >= 2) {
		/* Steps from pairs first: the levels they measured are known,
		   so the series is searched, and its noise estimated, within
		   the stretches between them. */
		unsigned char *cut = xcalloc(nseg + 1, 1);
		s->noise_diffs = nseg - 1;
		for (size_t q = 1; q < nseg; q++) {
			const struct history_point *e = history_series_evidence(s, q, o);
			cut[q] = e && history_verdict_is_change(e->verdict);
			s->noise_diffs -= cut[q];
		}
		s->noise = steps_find_points_cut(sp, nseg, cut, HISTORY_MIN_SEGMENT, min_change,
						 &found, &nr_found, &s->between);
		free(cut);
	} else {
		nseg = s->nr;
		s->noise_diffs = s->nr ? s->nr - 1 : 0;
		s->noise = steps_run_noise(sp, s->nr);
		s->between = steps_between_noise(sp, s->nr, s->noise);
	}
	s->noise_pts = nseg;
	s->noise_pairs = steps_run_pairs(sp, nseg);
	series_paired(s, found, nr_found, o);
	free(found);
	s->runs_needed = 0;
	if (s->nr) {
		double level = fabs(history_series_latest(s)->median);
		s->runs_needed = steps_runs_needed(s->noise, s->between, level * detect / 100);
	}
}

/* This machine's series first, each group in the points' order. v is freed. */
static struct history_series *machine_first(struct history_series *v, size_t nr)
{
	struct history_series *ordered = xcalloc(nr ? nr : 1, sizeof(*ordered));
	size_t k = 0;
	for (int mine = 1; mine >= 0; mine--)
		for (size_t q = 0; q < nr; q++)
			if (v[q].this_machine == mine)
				ordered[k++] = v[q];
	free(v);
	return ordered;
}

void history_series_build(struct history_series_set *out, const struct history_points *p,
			  const struct history_order *o, const struct history_series_options *opt)
{
	struct history_series *v = NULL;
	size_t nr = 0, alloc = 0;
	for (size_t i = 0; i < p->nr;) {
		size_t j = i;
		while (j < p->nr && same_series(&p->v[i], &p->v[j]))
			j++;
		int m = metric_lookup(p->v[i].metric);
		if (m < 0 ||
		    (opt->keep && !opt->keep(opt->ctx, p->v[i].suite, p->v[i].benchmark))) {
			i = j;
			continue;
		}
		if (nr == alloc) {
			alloc = alloc ? 2 * alloc : 16;
			v = xreallocarray(v, alloc, sizeof(*v));
		}
		struct history_series *s = &v[nr++];
		memset(s, 0, sizeof(*s));
		s->key = &p->v[i];
		s->last = &p->v[j - 1];
		s->metric = (enum metric_id)m;
		s->this_machine = opt->machine && !strcmp(p->v[i].fingerprint, opt->machine);
		series_commits(s, p, i, j);
		series_order(s, o);
		struct steps_point *sp = series_points(s);
		series_steps(s, sp, o, opt->min_change, opt->detect);
		free(sp);
		i = j;
	}
	out->v = machine_first(v, nr);
	out->nr = nr;
}

void history_series_release(struct history_series_set *set)
{
	for (size_t i = 0; i < set->nr; i++) {
		for (size_t q = 0; q < set->v[i].nr; q++) {
			free(set->v[i].pts[q].vals);
			free(set->v[i].pts[q].cmps);
		}
		free(set->v[i].pts);
		free(set->v[i].steps);
	}
	free(set->v);
	set->v = NULL;
	set->nr = 0;
}
