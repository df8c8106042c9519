/*
 * kagari history [options] [PATH...]: the stored history of the selected
 * benchmarks (the filters of `run`) as one series per command, metric and
 * machine over commits, with the steps binary segmentation finds
 * (history/steps.h, docs/history.md). A series holds the points of one
 * machine fingerprint only: this machine's series come first, other
 * machines' are listed apart, never mixed in.
 *
 * A commit measured several times is one point, the median of its runs'
 * medians, placed at its first run. Runs of a dirty working tree or outside
 * a repository stand for no commit and are not shown.
 */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "analyze/format.h"
#include "base/cmp.h"
#include "base/sbuf.h"
#include "base/strvec.h"
#include "base/xalloc.h"
#include "cmd/cmd.h"
#include "cmd/common.h"
#include "cmd/exit.h"
#include "cmd/history_sync.h"
#include "cmd/record.h"
#include "git/git.h"
#include "git/web.h"
#include "history/history.h"
#include "history/steps.h"
#include "measure/sysinfo.h"
#include "model/result.h"
#include "report/json_emit.h"
#include "report/history_site.h"
#include "report/output.h"
#include "report/html_page.h"
#include "report/svg.h"

/* A step must keep this many commits on either side (docs/history.md). */
#define HISTORY_MIN_SEGMENT 2
/* Commits off the first-parent line whose dates one git call asks for. */
#define HISTORY_MAX_DATED 20000

static const struct opt history_opts[] = {
	OPT_COMMON_SELECTION,
	{ "metric", OPT_STRING, CLI_ANA(metric), "M",
	  "only metric M (default: every metric stored)", NULL },
	{ "commit-url", OPT_STRING, CLI_HIST(commit_url), "TEMPLATE",
	  "the site's commit links, {sha} standing for the commit (default: from the origin remote on GitHub or GitLab; '' for none)", NULL },
	{ "min-change", OPT_STRING, CLI_HIST(min_change), "P",
	  "report only steps of at least P percent (default 1)", NULL },
	{ "detect", OPT_STRING, CLI_HIST(detect), "P",
	  "say how many runs per commit would find a step of P percent (default 5), or that none would", NULL },
	{ "history", OPT_STRING, CLI_REC(history), "FILE",
	  "read the history FILE (default: .kagari/history.sqlite beside the suite)", NULL },
	{ "format", OPT_ENUM, CLI_OUT(format), "FMT",
	  "output format: table (default), json, markdown, html", "table|json|markdown|html" },
	{ "output", OPT_STRING, CLI_OUT(output), "FILE",
	  "write to FILE (atomically) instead of stdout; never an input; with --format html, a folder (DIR/) gets a site to publish: DIR/index.html", NULL },
	{ "from-branch", OPT_BOOL, CLI_HIST(from_branch), NULL,
	  "import the history branch's new runs first (as `kagari history pull`)", NULL },
	{ "branch", OPT_STRING, CLI_HIST(branch), "B",
	  "push, pull, --from-branch: the history branch B (default kagari-history)", NULL },
	{ "remote", OPT_STRING, CLI_HIST(remote), "R",
	  "push, pull, --from-branch: the remote R, a name or a URL (default origin)", NULL },
	{ NULL, 0, 0, NULL, NULL, NULL },
};

struct commit_point {
	const char *sha, *time;
	size_t first; /* index of its first run in the query's points */
	double median;
	double low, high; /* the interval of its runs: their least and greatest */
	size_t runs;
	double *vals;	  /* its runs' medians, oldest first */
	size_t nr_vals, alloc_vals;
	int cls;	  /* 0 first-parent, 1 another commit, 2 unknown here */
	long long key;	  /* position on the first-parent line, or commit date */
};

struct series {
	const struct history_point *key; /* suite..fingerprint of the first point */
	const struct history_point *last; /* its last run */
	int this_machine;
	enum metric_id metric;
	struct commit_point *pts;
	size_t nr, alloc;
	struct step *steps;
	size_t nr_steps;
	double noise;	   /* of a single run (steps_run_noise()), metric units */
	double between;	   /* between sessions (steps_between_noise()), metric units */
	size_t runs_needed; /* per commit for a step of --detect percent, or
			       STEPS_RUNS_NEVER */
	size_t noise_pts, noise_pairs; /* the points the noise is estimated
			       from, and their pairs of runs of one commit */
	size_t min_runs, max_runs; /* runs per commit of its points */
};

/*
 * The order of commits: the first-parent line of HEAD, oldest first, then
 * the other commits by commit date; commits the repository does not have
 * last, in the order they were first measured. Sorted by sha for lookups.
 */
struct git_rank {
	char sha[41];
	int cls;
	long long key;
};

struct git_order {
	struct git_rank *v;
	size_t nr, alloc;
	int line; /* HEAD's first-parent line was read (a repository) */
};

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

/* The latest point: HEAD's, the last on the first-parent line, when the
   series has one there; else the last point. NULL for no points. */
static const struct commit_point *latest(const struct commit_point *pts, size_t nr)
{
	for (size_t q = nr; q-- > 0;)
		if (pts[q].cls == 0)
			return &pts[q];
	return nr ? &pts[nr - 1] : NULL;
}

static int cmp_str(const void *a, const void *b)
{
	return strcmp(*(const char *const *)a, *(const char *const *)b);
}

static int cmp_rank_sha(const void *a, const void *b)
{
	return strcmp(((const struct git_rank *)a)->sha, ((const struct git_rank *)b)->sha);
}

static void order_add(struct git_order *o, const char *sha, size_t len, int cls, long long key)
{
	if (len != 40)
		return;
	if (o->nr == o->alloc) {
		o->alloc = o->alloc ? 2 * o->alloc : 64;
		o->v = xreallocarray(o->v, o->alloc, sizeof(*o->v));
	}
	memcpy(o->v[o->nr].sha, sha, 40);
	o->v[o->nr].sha[40] = '\0';
	o->v[o->nr].cls = cls;
	o->v[o->nr].key = key;
	o->nr++;
}

static const struct git_rank *order_find(const struct git_order *o, const char *sha)
{
	struct git_rank k;
	if (!o->nr || strlen(sha) != 40)
		return NULL;
	memcpy(k.sha, sha, 41);
	return bsearch(&k, o->v, o->nr, sizeof(*o->v), cmp_rank_sha);
}

/*
 * The rank of every sha of the points in the repository of `dir`: its
 * place on HEAD's first-parent line, else its commit date. Without a
 * repository (or with git failing) the order stays empty and the points
 * keep the order they were first measured in.
 */
static void git_order_load(struct git_order *o, const char *dir, const struct history_points *p)
{
	struct sbuf out = SBUF_INIT, err = SBUF_INIT;
	char *repo = NULL;
	memset(o, 0, sizeof(*o));
	if (git_toplevel(dir, &repo, &err))
		goto out;
	static const char *const fp[] = { "rev-list", "--first-parent", "HEAD", NULL };
	if (!git_run(repo, fp, GIT_SLOW_TIMEOUT_NS, &out, &err)) {
		size_t lines = 0;
		for (size_t i = 0; i < out.len; i++)
			lines += out.buf[i] == '\n';
		/* rev-list lists the newest first. */
		size_t k = 0;
		for (char *s = out.buf, *nl; s && *s; s = nl + 1, k++) {
			nl = strchr(s, '\n');
			if (!nl)
				break;
			order_add(o, s, (size_t)(nl - s), 0, (long long)(lines - 1 - k));
		}
		o->line = o->nr > 0;
	}
	qsort(o->v, o->nr, sizeof(*o->v), cmp_rank_sha);
	/* The other shas, each once: their commit dates, one git call (at
	   most HISTORY_MAX_DATED of them, to stay far below ARG_MAX; the
	   rest keep the order they were first measured in). */
	const char **other = xcalloc(p->nr + 1, sizeof(*other));
	size_t nr_other = 0;
	for (size_t i = 0; i < p->nr; i++) {
		const char *sha = p->v[i].sha;
		if (sha && strlen(sha) == 40 && strspn(sha, "0123456789abcdef") == 40 &&
		    !order_find(o, sha))
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
	if (args.nr > fixed) {
		sbuf_reset(&out);
		sbuf_reset(&err);
		size_t before = o->nr;
		if (!git_run(repo, (const char *const *)args.v, GIT_SLOW_TIMEOUT_NS, &out, &err))
			for (char *s = out.buf, *nl; s && *s; s = nl + 1) {
				nl = strchr(s, '\n');
				if (!nl)
					break;
				if (nl - s > 41 && s[40] == ' ')
					order_add(o, s, 40, 1, strtoll(s + 41, NULL, 10));
			}
		if (o->nr > before)
			qsort(o->v, o->nr, sizeof(*o->v), cmp_rank_sha);
	}
	strvec_clear(&args);
out:
	free(repo);
	sbuf_release(&out);
	sbuf_release(&err);
}

static int cmp_commit_order(const void *a, const void *b)
{
	const struct commit_point *x = a, *y = b;
	if (x->cls != y->cls)
		return x->cls - y->cls;
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

static int selected(const struct loaded_suites *ls, const char *suite, const char *bench)
{
	for (size_t i = 0; i < ls->nr; i++) {
		if (strcmp(ls->suites[i]->name, suite))
			continue;
		for (size_t b = 0; b < ls->suites[i]->nr_benches; b++)
			if (ls->selected[i][b] && !strcmp(ls->suites[i]->benches[b].name, bench))
				return 1;
	}
	return 0;
}

/*
 * One point per commit of the series' points p->v[i..j), placed at its
 * first run: the points sorted by (sha, position) group each commit's runs
 * in O(n log n); the commits are put back in time order by series_order().
 */
static void series_commits(struct series *s, const struct history_points *p,
			   size_t i, size_t j)
{
	struct by_sha *ix = xcalloc(j - i, sizeof(*ix));
	for (size_t k = i; k < j; k++)
		ix[k - i] = (struct by_sha){ p->v[k].sha, k };
	qsort(ix, j - i, sizeof(*ix), cmp_by_sha);
	for (size_t k = 0; k < j - i;) {
		size_t e = k;
		while (e < j - i && !strcmp(ix[e].sha, ix[k].sha))
			e++;
		if (s->nr == s->alloc) {
			s->alloc = s->alloc ? 2 * s->alloc : 16;
			s->pts = xreallocarray(s->pts, s->alloc, sizeof(*s->pts));
		}
		struct commit_point *c = &s->pts[s->nr++];
		memset(c, 0, sizeof(*c));
		c->sha = p->v[ix[k].pos].sha;
		c->time = p->v[ix[k].pos].time;
		c->first = ix[k].pos;
		c->alloc_vals = c->nr_vals = e - k;
		c->vals = xcalloc(e - k, sizeof(*c->vals));
		for (size_t q = k; q < e; q++)
			c->vals[q - k] = p->v[ix[q].pos].median;
		k = e;
	}
	free(ix);
}

/* The commits in the order of commits (struct git_rank): ranked, sorted. */
static void series_order(struct series *s, const struct git_order *order)
{
	for (size_t q = 0; q < s->nr; q++) {
		const struct git_rank *g = order_find(order, s->pts[q].sha);
		s->pts[q].cls = g ? g->cls : 2;
		s->pts[q].key = g ? g->key : 0;
	}
	qsort(s->pts, s->nr, sizeof(*s->pts), cmp_commit_order);
}

/* Each commit's median and interval of its runs, the series' least and
   greatest runs per commit; the points as steps.h takes them (freed by
   the caller). */
static struct steps_point *series_points(struct series *s)
{
	struct steps_point *sp = xcalloc(s->nr ? s->nr : 1, sizeof(*sp));
	for (size_t q = 0; q < s->nr; q++) {
		struct commit_point *c = &s->pts[q];
		size_t n = c->nr_vals;
		double *t = xcalloc(n, sizeof(*t));
		memcpy(t, c->vals, n * sizeof(*t));
		qsort(t, n, sizeof(*t), cmp_double);
		c->median = n % 2 ? t[n / 2] : (t[n / 2 - 1] + t[n / 2]) / 2;
		c->low = t[0];
		c->high = t[n - 1];
		free(t);
		c->runs = n;
		if (!q || n < s->min_runs)
			s->min_runs = n;
		if (n > s->max_runs)
			s->max_runs = n;
		sp[q] = (struct steps_point){ c->median, c->vals, n };
	}
	return sp;
}

/* The series' steps, its noise and the runs a step of --detect percent needs. */
static void series_steps(struct series *s, const struct steps_point *sp, int line,
			 double min_change, double detect)
{
	/*
	 * Steps are searched on HEAD's first-parent line alone, in its
	 * order (the points sorted above put it first): a side branch's
	 * commits or another branch's tip, placed after it by date, are
	 * not a continuation of that line, and a "step" into them would
	 * be no change any commit made. They are shown, not segmented.
	 * Without a repository there is no line, and every point, in the
	 * order it was measured, is segmented.
	 */
	size_t nseg = s->nr;
	if (line)
		for (nseg = 0; nseg < s->nr && s->pts[nseg].cls == 0;)
			nseg++;
	if (nseg >= 2) {
		s->noise = steps_find_points(sp, nseg, HISTORY_MIN_SEGMENT, min_change,
					     &s->steps, &s->nr_steps, &s->between);
	} else {
		nseg = s->nr;
		s->noise = steps_run_noise(sp, s->nr);
		s->between = steps_between_noise(sp, s->nr, s->noise);
	}
	s->noise_pts = nseg;
	s->noise_pairs = steps_run_pairs(sp, nseg);
	s->runs_needed = 0;
	if (s->nr) {
		double level = fabs(latest(s->pts, s->nr)->median);
		s->runs_needed = steps_runs_needed(s->noise, s->between,
						   level * detect / 100);
	}
}

/* This machine's series first, each group in the query's order: every
   renderer shows them in that order, the other machines apart. v is freed. */
static struct series *machine_first(struct series *v, size_t nr)
{
	struct series *ordered = xcalloc(nr ? nr : 1, sizeof(*ordered));
	size_t k = 0;
	for (int mine = 1; mine >= 0; mine--)
		for (size_t q = 0; q < nr; q++)
			if (v[q].this_machine == mine)
				ordered[k++] = v[q];
	free(v);
	return ordered;
}

/* Group the points (ordered by series, then time) into series of commits. */
static struct series *build_series(const struct history_points *p,
				   const struct loaded_suites *ls, const char *fp,
				   double min_change, double detect,
				   const struct git_order *order, size_t *nr_out)
{
	struct series *v = NULL;
	size_t nr = 0, alloc = 0;
	for (size_t i = 0; i < p->nr;) {
		size_t j = i;
		while (j < p->nr && same_series(&p->v[i], &p->v[j]))
			j++;
		int m = metric_lookup(p->v[i].metric);
		if (m < 0 || !selected(ls, p->v[i].suite, p->v[i].benchmark)) {
			i = j;
			continue;
		}
		if (nr == alloc) {
			alloc = alloc ? 2 * alloc : 16;
			v = xreallocarray(v, alloc, sizeof(*v));
		}
		struct series *s = &v[nr++];
		memset(s, 0, sizeof(*s));
		s->key = &p->v[i];
		s->last = &p->v[j - 1];
		s->metric = (enum metric_id)m;
		s->this_machine = !strcmp(p->v[i].fingerprint, fp);
		series_commits(s, p, i, j);
		series_order(s, order);
		struct steps_point *sp = series_points(s);
		series_steps(s, sp, order->line, min_change, detect);
		free(sp);
		i = j;
	}
	*nr_out = nr;
	return machine_first(v, nr);
}

/* Is v[i] the first series of another machine (where their heading goes)? */
static int first_of_others(const struct series *v, size_t i)
{
	return !v[i].this_machine && (i == 0 || v[i - 1].this_machine);
}

static void series_free(struct series *v, size_t nr)
{
	for (size_t i = 0; i < nr; i++) {
		for (size_t q = 0; q < v[i].nr; q++)
			free(v[i].pts[q].vals);
		free(v[i].pts);
		free(v[i].steps);
	}
	free(v);
}

static void short_sha(struct sbuf *out, const char *sha)
{
	sbuf_add(out, sha, strnlen(sha, 10));
}

static void series_name(struct sbuf *out, const struct series *s)
{
	sbuf_addf(out, "%s / %s / %s — %s", s->key->suite, s->key->benchmark,
		  s->key->command, s->key->metric);
}

/*
 * A step's five fields (from, to, change, before, after), each preceded by
 * its separator in sep[0..4] and the last followed by sep[5]: one order of
 * fields for the text line and the Markdown row.
 */
static void step_fields(struct sbuf *out, const struct series *s, const struct step *st,
			const char *const sep[6])
{
	sbuf_adds(out, sep[0]);
	short_sha(out, s->pts[st->at - 1].sha);
	sbuf_adds(out, sep[1]);
	short_sha(out, s->pts[st->at].sha);
	sbuf_adds(out, sep[2]);
	units_format_percent(out, st->change_percent);
	sbuf_adds(out, sep[3]);
	units_format_value(out, s->metric, st->before);
	sbuf_adds(out, sep[4]);
	units_format_value(out, s->metric, st->after);
	sbuf_adds(out, sep[5]);
}

/*
 * "noise of one run ±2.1%; a 5% step needs 9 runs per commit (these have
 * 1-3)", with ", between sessions ±0.4%" after the first part when the
 * points' sessions differ by more than their runs' noise explains, and
 * then, when no number of runs finds the step, "no number of runs per
 * commit finds a 5% step: the noise between sessions alone makes it more
 * than 2% (...)" (docs/history.md).
 */
static void noise_line(struct sbuf *out, const struct series *s, double detect)
{
	double level = s->nr ? fabs(latest(s->pts, s->nr)->median) : 0;
	if (isnan(s->noise)) {
		/* Too few runs to tell the noise: say what would tell it. */
		size_t more_runs = STEPS_MIN_PAIRS - s->noise_pairs;
		size_t more_commits = STEPS_MIN_PAIRS + 1 - s->noise_pts;
		sbuf_addf(out, "noise of one run unknown (%zu commit%s, %zu run%s): %zu more run%s of a commit or %zu more commit%s would tell it, and the runs a %g%% step needs",
			  s->noise_pts, s->noise_pts == 1 ? "" : "s",
			  s->noise_pts + s->noise_pairs, s->noise_pts + s->noise_pairs == 1 ? "" : "s",
			  more_runs, more_runs == 1 ? "" : "s",
			  more_commits, more_commits == 1 ? "" : "s", detect);
		return;
	}
	if (!(level > 0)) {
		sbuf_addf(out, "the latest value is 0: no noise in percent, and no %g%% step of it to find",
			  detect);
		return;
	}
	sbuf_addf(out, "noise of one run ±%.1f%%", s->noise / level * 100);
	if (s->between > 0)
		sbuf_addf(out, ", between sessions ±%.1f%%", s->between / level * 100);
	if (s->runs_needed == STEPS_RUNS_NEVER)
		sbuf_addf(out, "; no number of runs per commit finds a %g%% step: the noise between sessions alone makes it more than %.1f%% (",
			  detect, STEPS_DETECT_RATIO * s->between / level * 100);
	else
		sbuf_addf(out, "; a %g%% step needs %zu run%s per commit to be found (",
			  detect, s->runs_needed, s->runs_needed == 1 ? "" : "s");
	if (s->min_runs == s->max_runs)
		sbuf_addf(out, "these have %zu)", s->min_runs);
	else
		sbuf_addf(out, "these have %zu-%zu)", s->min_runs, s->max_runs);
}

static void step_line(struct sbuf *out, const struct series *s, const struct step *st)
{
	static const char *const sep[6] = { "", " → ", "  ", "  (", " → ", ")" };

	step_fields(out, s, st, sep);
}

static void render_table(struct sbuf *out, const struct series *v, size_t nr,
			 const char *db, const char *fp, int64_t runs, double detect)
{
	sbuf_addf(out, "history %s: %lld run%s; this machine %s\n", db, (long long)runs,
		  runs == 1 ? "" : "s", fp);
	if (!nr || !v[0].this_machine)
		sbuf_adds(out, "\nno series of this machine for the selected benchmarks\n");
	for (size_t i = 0; i < nr; i++) {
		const struct series *s = &v[i];
		if (first_of_others(v, i))
			sbuf_adds(out, "\nother machines (apart, never mixed with this one):\n");
		sbuf_addch(out, '\n');
		series_name(out, s);
		if (!s->this_machine)
			sbuf_addf(out, "  [machine %s, %s]", s->key->fingerprint,
				  s->key->cpu_model ? s->key->cpu_model : "?");
		sbuf_addf(out, "\n  %zu commit%s, ", s->nr, s->nr == 1 ? "" : "s");
		short_sha(out, s->pts[0].sha);
		sbuf_adds(out, " .. ");
		short_sha(out, s->pts[s->nr - 1].sha);
		sbuf_adds(out, ", latest ");
		const struct commit_point *last = latest(s->pts, s->nr);
		units_format_value(out, s->metric, last->median);
		if (last->runs > 1) {
			sbuf_adds(out, " [");
			units_format_value(out, s->metric, last->low);
			sbuf_adds(out, " … ");
			units_format_value(out, s->metric, last->high);
			sbuf_addf(out, ", %zu runs]", last->runs);
		}
		sbuf_adds(out, "\n  ");
		noise_line(out, s, detect);
		sbuf_addch(out, '\n');
		if (!s->nr_steps)
			sbuf_adds(out, "  no steps\n");
		for (size_t k = 0; k < s->nr_steps; k++) {
			sbuf_adds(out, "  step ");
			step_line(out, s, &s->steps[k]);
			sbuf_addch(out, '\n');
		}
	}
}

static void render_json(struct sbuf *out, const struct series *v, size_t nr,
			const char *db, const char *fp, int64_t runs, double detect)
{
	struct json_emit j;
	json_emit_init(&j, out, 1);
	json_emit_begin_object(&j);
	json_emit_kv_string(&j, "schema_version", "1");
	json_emit_kv_string(&j, "database", db);
	json_emit_kv_string(&j, "machine", fp);
	json_emit_kv_int(&j, "runs", runs);
	json_emit_key(&j, "series");
	json_emit_begin_array(&j);
	for (size_t i = 0; i < nr; i++) {
		const struct series *s = &v[i];
		json_emit_begin_object(&j);
		json_emit_kv_string(&j, "suite", s->key->suite);
		json_emit_kv_string(&j, "benchmark", s->key->benchmark);
		json_emit_kv_string(&j, "command", s->key->command);
		json_emit_kv_string(&j, "metric", s->key->metric);
		json_emit_kv_string(&j, "unit", metric_get(s->metric)->unit_name);
		json_emit_kv_string(&j, "machine", s->key->fingerprint);
		json_emit_key(&j, "this_machine");
		json_emit_bool(&j, s->this_machine);
		json_emit_kv_string(&j, "cpu_model", s->key->cpu_model);
		double level = s->nr ? fabs(latest(s->pts, s->nr)->median) : 0;
		if (isnan(s->noise))
			level = 0; /* unknown: every estimate null */
		json_emit_key(&j, "noise_percent");
		if (level > 0)
			json_emit_double(&j, s->noise / level * 100);
		else
			json_emit_null(&j);
		json_emit_key(&j, "between_percent");
		if (level > 0)
			json_emit_double(&j, s->between / level * 100);
		else
			json_emit_null(&j);
		json_emit_key(&j, "detect");
		json_emit_begin_object_inline(&j);
		json_emit_kv_double(&j, "step_percent", detect);
		json_emit_key(&j, "runs_per_commit");
		if (level > 0 && s->runs_needed != STEPS_RUNS_NEVER)
			json_emit_int(&j, (int64_t)s->runs_needed);
		else
			json_emit_null(&j);
		/* The least step any number of runs finds: 5 tau. */
		json_emit_key(&j, "min_step_percent");
		if (level > 0)
			json_emit_double(&j, STEPS_DETECT_RATIO * s->between / level * 100);
		else
			json_emit_null(&j);
		json_emit_end_object(&j);
		json_emit_key(&j, "points");
		json_emit_begin_array(&j);
		for (size_t q = 0; q < s->nr; q++) {
			json_emit_begin_object_inline(&j);
			json_emit_kv_string(&j, "sha", s->pts[q].sha);
			json_emit_kv_string(&j, "time", s->pts[q].time);
			json_emit_kv_double(&j, "median", s->pts[q].median);
			json_emit_kv_double(&j, "low", s->pts[q].low);
			json_emit_kv_double(&j, "high", s->pts[q].high);
			json_emit_kv_int(&j, "runs", (int64_t)s->pts[q].runs);
			json_emit_end_object(&j);
		}
		json_emit_end_array(&j);
		json_emit_key(&j, "steps");
		json_emit_begin_array(&j);
		for (size_t k = 0; k < s->nr_steps; k++) {
			const struct step *st = &s->steps[k];
			json_emit_begin_object_inline(&j);
			json_emit_kv_string(&j, "from_sha", s->pts[st->at - 1].sha);
			json_emit_kv_string(&j, "to_sha", s->pts[st->at].sha);
			json_emit_kv_double(&j, "before", st->before);
			json_emit_kv_double(&j, "after", st->after);
			json_emit_kv_double(&j, "change_percent", st->change_percent);
			json_emit_end_object(&j);
		}
		json_emit_end_array(&j);
		json_emit_end_object(&j);
		}
	json_emit_end_array(&j);
	json_emit_end_object(&j);
	json_emit_finish(&j);
}

static void render_markdown(struct sbuf *out, const struct series *v, size_t nr,
		    const char *fp, double detect)
{
	sbuf_addf(out, "## kagari history\n\nThis machine: `%s`.\n", fp);
	for (size_t i = 0; i < nr; i++) {
		const struct series *s = &v[i];
		if (first_of_others(v, i))
			sbuf_adds(out, "\n## Other machines\n\nShown apart, never mixed with this machine's series.\n");
		sbuf_adds(out, "\n### ");
		series_name(out, s);
		if (!s->this_machine)
			sbuf_addf(out, " (machine `%s`)", s->key->fingerprint);
		sbuf_addf(out, "\n\n%zu commits; ", s->nr);
		noise_line(out, s, detect);
		sbuf_adds(out, ". ");
		if (!s->nr_steps)
			sbuf_adds(out, "No steps.\n");
		else
			sbuf_adds(out, "Steps:\n\n| from | to | change | before | after |\n|---|---|---:|---:|---:|\n");
		for (size_t k = 0; k < s->nr_steps; k++) {
			static const char *const row[6] = { "| `", "` | `", "` | ",
							    " | ", " | ", " |\n" };

			step_fields(out, s, &s->steps[k], row);
		}
	}
}

static void render_html(struct sbuf *out, const struct series *v, size_t nr,
			const char *fp, double detect)
{
	html_page_open(out, "kagari history", "body{font:14px system-ui,sans-serif;margin:24px}\n");
	sbuf_adds(out, "<h1>kagari history</h1>\n<p>This machine: <code>");
	report_html_escape(out, fp, 0);
	sbuf_adds(out, "</code></p>\n");
	struct sbuf title = SBUF_INIT;
	for (size_t i = 0; i < nr; i++) {
		const struct series *s = &v[i];
		if (first_of_others(v, i))
			sbuf_adds(out, "<h2>Other machines</h2>\n<p>Shown apart, never mixed with this machine's series.</p>\n");
		sbuf_reset(&title);
		series_name(&title, s);
		if (!s->this_machine)
			sbuf_addf(&title, " (machine %s)", s->key->fingerprint);
		sbuf_adds(out, "<section><h3>");
		report_html_escape(out, title.buf, 0);
		sbuf_adds(out, "</h3>\n");
		double *y = xcalloc(s->nr, sizeof(*y));
		double *lo = xcalloc(s->nr, sizeof(*lo)), *hi = xcalloc(s->nr, sizeof(*hi));
		char **lab = xcalloc(s->nr, sizeof(*lab));
		size_t *at = xcalloc(s->nr_steps + 1, sizeof(*at));
		for (size_t q = 0; q < s->nr; q++) {
			y[q] = s->pts[q].median;
			lo[q] = s->pts[q].low;
			hi[q] = s->pts[q].high;
			lab[q] = xstrndup(s->pts[q].sha, 10);
		}
		for (size_t k = 0; k < s->nr_steps; k++)
			at[k] = s->steps[k].at;
		svg_trend_plot(out, title.buf, s->metric, y, lo, hi, s->nr,
			       (const char *const *)lab, at, s->nr_steps);
		struct sbuf nl = SBUF_INIT;
		noise_line(&nl, s, detect);
		if (nl.len) {
			sbuf_adds(out, "<p class=\"noise\">");
			report_html_escape(out, nl.buf, 0);
			sbuf_adds(out, "</p>\n");
		}
		sbuf_release(&nl);
		sbuf_adds(out, "<ul>\n");
		if (!s->nr_steps)
			sbuf_adds(out, "<li>no steps</li>\n");
		for (size_t k = 0; k < s->nr_steps; k++) {
			struct sbuf t = SBUF_INIT;
			step_line(&t, s, &s->steps[k]);
			sbuf_adds(out, "<li class=\"step\">step ");
			report_html_escape(out, t.buf, 0);
			sbuf_adds(out, "</li>\n");
			sbuf_release(&t);
		}
		sbuf_adds(out, "</ul></section>\n");
		for (size_t q = 0; q < s->nr; q++)
			free(lab[q]);
		free(lab);
		free(y);
		free(lo);
		free(hi);
		free(at);
	}
	sbuf_release(&title);
	html_page_close(out);
}

/*
 * Does --output name a folder for the site (--format html and a path that
 * ends in '/' or is a folder)? An existing file, or a new name without a
 * slash, is one page as before.
 */
static int history_site_mode(const struct cli *cli)
{
	const char *o = cli->out.output;
	struct stat st;
	if (!o || !*o || !cli->out.format || strcmp(cli->out.format, "html"))
		return 0;
	return o[strlen(o) - 1] == '/' || (!stat(o, &st) && S_ISDIR(st.st_mode));
}

/* --min-change, --detect (percentages) and --metric checked. 0 or EXIT_USAGE. */
static int history_check_args(const struct cli *cli, double *min_change, double *detect)
{
	*min_change = 1;
	if (cli->history.min_change) {
		char *end;
		*min_change = strtod(cli->history.min_change, &end);
		if (end == cli->history.min_change || *end || !(*min_change >= 0 && *min_change < 1e6)) {
			cmd_error("--min-change '%s': expected a percentage such as 2 or 0.5",
				  cli->history.min_change);
			return EXIT_USAGE;
		}
	}
	*detect = 5;
	if (cli->history.detect) {
		char *end;
		*detect = strtod(cli->history.detect, &end);
		if (end == cli->history.detect || *end || !(*detect > 0 && *detect < 1e6)) {
			cmd_error("--detect '%s': expected a percentage above 0 such as 5 or 0.5",
				  cli->history.detect);
			return EXIT_USAGE;
		}
	}
	if (cli->history.commit_url && !history_site_mode(cli)) {
		cmd_error("--commit-url is for the site: --format html --output DIR/");
		return EXIT_USAGE;
	}
	struct sbuf err = SBUF_INIT;
	if (cli->history.commit_url && *cli->history.commit_url &&
	    git_web_check_template(cli->history.commit_url, &err)) {
		cmd_error("--commit-url %s", err.buf);
		sbuf_release(&err);
		return EXIT_USAGE;
	}
	sbuf_release(&err);
	if (cli->analysis.metric && metric_lookup(cli->analysis.metric) < 0) {
		cmd_error("--metric '%s': no such metric", cli->analysis.metric);
		return EXIT_USAGE;
	}
	return 0;
}

/* The output is never an input: not the history, not a suite. */
static int history_check_output(const struct cli *cli, const struct loaded_suites *ls,
				const char *path)
{
	const char *o = cli->out.output;
	if (o[0] && o[strlen(o) - 1] == '/' && !history_site_mode(cli)) {
		cmd_error("--output '%s' names a folder: only --format html writes a site into one", o);
		return EXIT_USAGE;
	}
	struct stat st;
	size_t n = strlen(o);
	while (n > 1 && o[n - 1] == '/')
		n--;
	char *bare = xstrndup(o, n);
	int file = history_site_mode(cli) && !stat(bare, &st) && !S_ISDIR(st.st_mode);
	free(bare);
	if (file) {
		cmd_error("--output '%s' names a folder, but it is a file", o);
		return EXIT_USAGE;
	}
	struct input_files in = INPUT_FILES_INIT;
	input_files_add_suites(&in, ls);
	input_files_add_history(&in, path);
	/* A site is its index page: that is what must be no input. */
	char *index = history_site_mode(cli) ? history_site_index(o) : NULL;
	int rc = common_check_output("--output", index ? index : o, NULL, &in, EXIT_USAGE);
	free(index);
	input_files_release(&in);
	return rc;
}

/* The history at path opened (*h) and its points of --metric read (*pts).
   0, EXIT_USAGE when there is none, or EXIT_EXEC. */
static int history_read(const struct cli *cli, const char *path, struct history **h,
			struct history_points *pts, struct sbuf *err)
{
	struct stat st;
	if (stat(path, &st)) {
		cmd_error("no history at '%s' (%s): `kagari run` and `kagari compare` record one",
			  path, strerror(errno));
		return EXIT_USAGE;
	}
	/* Only reading: a history in a read-only folder is still shown. */
	if (history_open_read(path, record_timeout_ms(), h, err) ||
	    history_query(*h, NULL, cli->analysis.metric, pts, err)) {
		cmd_error("%s", err->buf);
		return EXIT_EXEC;
	}
	return 0;
}

/* This machine, as the history knows machines (its fingerprint first). */
static void this_machine(struct history_machine *m)
{
	struct environment_info envi = { 0 };
	envi.cpu_model = sysinfo_cpu_model();
	envi.logical_cpus = (int)sysconf(_SC_NPROCESSORS_ONLN);
	history_machine_detect(&envi, getenv("KAGARI_MACHINE_ID"), m);
	free(envi.cpu_model);
}

/* The series in --format. */
static void history_render(struct sbuf *out, const struct cli *cli, const struct series *v,
			   size_t nr, const char *path, const char *fp, int64_t runs,
			   double detect)
{
	const char *f = cli->out.format ? cli->out.format : "table";
	if (!strcmp(f, "json"))
		render_json(out, v, nr, path, fp, runs, detect);
	else if (!strcmp(f, "markdown"))
		render_markdown(out, v, nr, fp, detect);
	else if (!strcmp(f, "html"))
		render_html(out, v, nr, fp, detect);
	else
		render_table(out, v, nr, path, fp, runs, detect);
}

/* out to --output or standard output. 0 or EXIT_EXEC. */
static int history_write(const struct cli *cli, const struct sbuf *out)
{
	return common_write_output(cli->out.output, NULL, out->buf, out->len);
}

/* `kagari history push|pull [options] [PATH...]`: args[0] names it. */
static int history_subcommand(struct cli *cli, int *rc)
{
	const char *sub = cli->args.nr ? cli->args.v[0] : NULL;
	if (!sub || (strcmp(sub, "push") && strcmp(sub, "pull")))
		return 0;
	enum history_sync_op op = !strcmp(sub, "push") ? HISTORY_SYNC_PUSH : HISTORY_SYNC_PULL;
	free((char *)cli->args.v[0]);
	memmove(cli->args.v, cli->args.v + 1, cli->args.nr * sizeof(*cli->args.v));
	cli->args.nr--;
	if (cli->history.from_branch) {
		cmd_error("--from-branch is for showing the history; `kagari history %s` takes --branch and --remote",
			  op == HISTORY_SYNC_PUSH ? "push" : "pull");
		*rc = EXIT_USAGE;
	} else {
		*rc = history_sync_exec(cli, op);
	}
	return 1;
}

/* The subjects of every commit of the series (git/web.h). */
static void subjects_load(struct git_subjects *sj, const struct series *v, size_t nr, const char *dir)
{
	size_t total = 0, k = 0;
	for (size_t i = 0; i < nr; i++)
		total += v[i].nr;
	const char **sha = xcalloc(total + 1, sizeof(*sha));
	for (size_t i = 0; i < nr; i++)
		for (size_t q = 0; q < v[i].nr; q++)
			sha[k++] = v[i].pts[q].sha;
	git_subjects_load(sj, dir, sha, k); /* none: no subjects shown */
	free(sha);
}

/* One series as the site shows it (report/history_site.h); the strings
   it allocates (noise line, links) are pushed on keep. */
static void site_series(struct history_site_series *o, const struct series *s,
			const struct git_subjects *sj, const char *tmpl, double detect,
			struct strvec *keep)
{
	struct history_site_point *pts = xcalloc(s->nr ? s->nr : 1, sizeof(*pts));
	struct history_site_step *st = xcalloc(s->nr_steps + 1, sizeof(*st));
	struct sbuf t = SBUF_INIT;
	for (size_t q = 0; q < s->nr; q++) {
		const struct commit_point *c = &s->pts[q];
		pts[q] = (struct history_site_point){ c->sha, c->time, git_subjects_get(sj, c->sha), NULL,
						      c->median, c->low, c->high, c->runs,
						      c->cls != 0 && s->pts[0].cls == 0 };
		if (tmpl) {
			sbuf_reset(&t);
			git_web_commit_url(&t, tmpl, c->sha);
			strvec_push(keep, t.buf);
			pts[q].url = keep->v[keep->nr - 1];
		}
	}
	for (size_t k = 0; k < s->nr_steps; k++)
		st[k] = (struct history_site_step){ s->steps[k].at, s->steps[k].before,
						    s->steps[k].after, s->steps[k].change_percent };
	sbuf_reset(&t);
	noise_line(&t, s, detect);
	strvec_push(keep, t.buf);
	sbuf_release(&t);
	const struct history_point *l = s->last;
	*o = (struct history_site_series){
		.suite = s->key->suite, .benchmark = s->key->benchmark, .command = s->key->command,
		.metric = s->metric, .machine = s->key->fingerprint, .cpu_model = s->key->cpu_model,
		.this_machine = s->this_machine, .pts = pts, .nr = s->nr, .steps = st,
		.nr_steps = s->nr_steps, .noise = keep->v[keep->nr - 1],
		.last = { l->sha, l->time, l->kind, l->result, l->verdict, l->change_percent,
			  l->ci_low_percent, l->ci_high_percent },
	};
}

/* The commit link template: --commit-url, else the origin remote's; NULL
   with the reason in *why when there is none. */
static char *site_links(const struct cli *cli, const char *dir, char **page, const char **why)
{
	char *tmpl = NULL;
	*page = NULL;
	*why = NULL;
	if (cli->history.commit_url) {
		if (*cli->history.commit_url)
			return xstrdup(cli->history.commit_url);
		*why = "--commit-url is empty";
		return NULL;
	}
	if (git_web_origin(dir, &tmpl, page)) {
		*why = "no origin remote on GitHub or GitLab to link to (--commit-url TEMPLATE says where a commit is shown)";
		return NULL;
	}
	return tmpl;
}

/* The site into the folder --output names (report/history_site.h).
   0 or EXIT_EXEC. */
static int history_publish(const struct cli *cli, const struct series *v, size_t nr,
			   const char *dir, const char *fp, int64_t runs, double detect)
{
	struct git_subjects sj;
	struct strvec keep = STRVEC_INIT;
	struct sbuf err = SBUF_INIT;
	char *page = NULL;
	const char *why;
	char *tmpl = site_links(cli, dir, &page, &why);
	subjects_load(&sj, v, nr, dir);
	/* keep holds copies: its strings stay where they are as it grows. */
	struct history_site_series *ss = xcalloc(nr ? nr : 1, sizeof(*ss));
	for (size_t i = 0; i < nr; i++)
		site_series(&ss[i], &v[i], &sj, tmpl, detect, &keep);
	char *now = sysinfo_now_rfc3339();
	struct history_site site = { fp, page, why, now, runs, ss, nr };
	int rc = 0;
	if (history_site_write(cli->out.output, &site, &err)) {
		cmd_error("--output %s", err.buf);
		rc = EXIT_EXEC;
	}
	for (size_t i = 0; i < nr; i++) {
		free((void *)ss[i].pts);
		free((void *)ss[i].steps);
	}
	free(ss);
	free(now);
	free(tmpl);
	free(page);
	git_subjects_release(&sj);
	strvec_clear(&keep);
	sbuf_release(&err);
	return rc;
}

static int history_exec(struct cli *cli, struct cmd_env *env)
{
	(void)env;
	double min_change, detect;
	int rc_sub;
	if (history_subcommand(cli, &rc_sub))
		return rc_sub;
	int rc = history_check_args(cli, &min_change, &detect);
	if (rc)
		return rc;
	struct loaded_suites ls;
	rc = common_load(cli, &ls);
	if (!rc)
		rc = common_select(cli, &ls);
	if (rc) {
		common_release(&ls);
		return rc;
	}
	char *path = record_history_path(cli, &ls);
	struct sbuf err = SBUF_INIT, out = SBUF_INIT;
	struct history *h = NULL;
	struct history_points pts = { 0 };
	struct series *v = NULL;
	size_t nr = 0;
	if (cli->out.output)
		rc = history_check_output(cli, &ls, path);
	if (!rc && cli->history.from_branch)
		rc = history_sync_run(cli, HISTORY_SYNC_PULL, path, ls.suites[0]->dir, stderr);
	if (!rc)
		rc = history_read(cli, path, &h, &pts, &err);
	if (rc)
		goto out;
	int64_t runs = history_count_runs(h, &err);
	struct history_machine m;
	this_machine(&m);
	struct git_order order;
	git_order_load(&order, ls.suites[0]->dir, &pts);
	v = build_series(&pts, &ls, m.fingerprint, min_change, detect, &order, &nr);
	free(order.v);
	if (history_site_mode(cli)) {
		rc = history_publish(cli, v, nr, ls.suites[0]->dir, m.fingerprint, runs, detect);
	} else {
		history_render(&out, cli, v, nr, path, m.fingerprint, runs, detect);
		rc = history_write(cli, &out);
	}
	history_machine_release(&m);
out:
	series_free(v, nr);
	history_points_release(&pts);
	history_close(h);
	free(path);
	sbuf_release(&err);
	sbuf_release(&out);
	common_release(&ls);
	return rc;
}

const struct cmd_entry cmd_history = {
	.name = "history",
	.args = "[push|pull] [options] [PATH...]",
	.summary = "show the recorded series per command and metric over commits, with their steps; push/pull the history branch",
	.opts = history_opts,
	.needs_runner = 0,
	.exec = history_exec,
};
