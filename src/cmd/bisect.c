/*
 * kagari bisect --good REV --bad REV [--metric M] [--command BENCH/CMD]
 * [--output FILE] [filters] [PATH...]: the first commit on the
 * first-parent path from GOOD to BAD whose selected commands regress
 * beyond the suite's tolerance against GOOD (docs/bisect.md).
 *
 * Every commit it looks at is checked out into a temporary detached
 * worktree (git/worktree.h) and built once, into its own folder; GOOD is
 * built first and its build serves every comparison. BAD is compared
 * first: when it is not a regression there is nothing to find, and the
 * comparisons that regressed there are the ones the search follows. Then
 * a binary search: a commit with any regressing comparison is "bad", one
 * whose followed comparisons all pass (or improve, or stay within noise)
 * is "good", whatever the other commands' verdicts; one whose followed
 * comparison is not decided is measured again with twice the runs a side,
 * up to the command's max_runs (test_commit()), each measurement of a
 * commit at half the level of the one before (alpha/2, alpha/4, ...:
 * look_alpha()), and one whose build
 * fails, or whose followed comparison fails or is still not decided, is
 * skipped (named), as `git bisect` does with exit 125, and the search
 * tries the nearest untested commit instead. --command narrows what is
 * measured to one benchmark and what is judged to one command. The user's working tree, index,
 * branches and HEAD are never touched; the suite is the working tree's
 * (as for compare), run in each commit's checkout.
 *
 * Exit 0: the first bad commit is named. Exit 1: it could not be (BAD is
 * not a regression against GOOD, or skipped commits leave a range). 3:
 * usage; 4: GOOD's build or git failed.
 */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "analyze/analyze.h"
#include "analyze/format.h"
#include "base/path.h"
#include "base/sbuf.h"
#include "base/strvec.h"
#include "base/tmpdir.h"
#include "base/xalloc.h"
#include "cmd/cmd.h"
#include "cmd/exit.h"
#include "cmd/interrupt.h"
#include "cmd/session.h"
#include "git/git.h"
#include "git/worktree.h"
#include "measure/execute.h"
#include "proc/child.h"
#include "proc/proc.h"
#include "report/json_emit.h"
#include "report/output.h"

struct bisect_cli {
	struct cli_common common;
	struct cli_selection selection;
	struct cli_out out;	      /* format, output, quiet */
	struct cli_measure measure;   /* seed, runs, warmup */
	struct cli_analysis analysis; /* metric */
	char *good, *bad;	      /* --good REV, --bad REV */
	char *command;		      /* --command [SUITE/]BENCH/CMD */
};

#define B(f) offsetof(struct bisect_cli, f)
static const struct opt bisect_opts[] = {
	{ "good", OPT_STRING, B(good), "REV",
	  "a commit without the regression (required)", NULL },
	{ "bad", OPT_STRING, B(bad), "REV",
	  "a later commit with it, GOOD on its first-parent path (required)", NULL },
	{ "metric", OPT_STRING, B(analysis.metric), "M",
	  "judge only metric M (default: every gated metric)", NULL },
	{ "command", OPT_STRING, B(command), "BENCH/CMD",
	  "measure only benchmark BENCH and judge only its command CMD (SUITE/BENCH/CMD with several suites)", NULL },
	OPT_COMMON_SELECTION(struct bisect_cli),
	{ "format", OPT_ENUM, B(out.format), "FMT",
	  "output format: table (default) or json", "table|json" },
	{ "output", OPT_STRING, B(out.output), "FILE",
	  "write the result to FILE (atomically; a FIFO or device in place) instead of stdout; never an input", NULL },
	{ "seed", OPT_SEED, B(measure.seed), "N",
	  "seed for run order and resampling (default: random, always printed)", NULL },
	{ "runs", OPT_COUNT, B(measure.runs), "N",
	  "measured runs per command and side (overrides the suite)", NULL },
	{ "warmup", OPT_COUNT, B(measure.warmup), "N",
	  "unmeasured warm-up runs per command and side", NULL },
	{ "quiet", OPT_BOOL, B(out.quiet), NULL, "no progress lines", NULL },
	OPT_ALLOW_PULL_REQUEST_TARGET,
	{ NULL, 0, 0, NULL, NULL, NULL },
};
#undef B

enum outcome { OUT_UNTESTED, OUT_GOOD, OUT_BAD, OUT_SKIP };

struct commit {
	char *sha;
	char *subject;	   /* its subject line, as git gives it */
	enum outcome out;
	char *reason;	   /* skip: why; bad: which comparison */
	int have_change;   /* bad: the regression; good: the followed change */
	double change, low, high;
	char *what;	   /* "suite/benchmark/command metric" of the change */
	char *dir;	   /* private folder: worktree at dir/base, builds */
	struct git_worktree wt;
	int built;	   /* 1 built, -1 failed */
	char **artifact;   /* per suite, when it has `build` */
	int measured;	   /* how many times it was measured */
	int runs;	   /* runs a side of the last measurement (0: the suite's) */
	int again;	   /* skip: runs a side that might decide it (0: none) */
	double *alpha;	   /* per measurement: the level it was judged at */
};

struct bisect {
	struct session s;
	char *repo;
	struct commit good;
	char *bad_sha;	     /* BAD resolved to a commit */
	struct commit *path; /* first-parent path after GOOD; last is BAD */
	size_t n;
	int metric;	     /* -1: every gated metric */
	const char *command; /* --command: "[SUITE/]BENCH/CMD", or NULL */
	size_t steps;	     /* measurements so far */
	size_t *order;	     /* indexes into path (SIZE_MAX: good) in test order */
	struct strvec matters; /* "suite/bench/command metric" that regressed at BAD */
	size_t nr_order;
	double *alpha0;	     /* every command's 1 - confidence, as the suite says */
	size_t nr_alpha0;
};

/*
 * The level of the k-th measurement of one commit (k = 1, 2, ...): alpha /
 * 2^k, alpha = 1 - the suite's confidence. A commit left undecided is
 * measured again and takes the last measurement's outcome, so a false
 * "bad" (or "good") may come from any of its measurements: by the union
 * bound their levels must add up to at most alpha, and alpha/2 + alpha/4
 * + ... stays below it however many there are (docs/bisect.md). Each
 * measurement spends its share by the suite's own design (the sequential
 * looks of docs/statistics.md split it again).
 */
static double look_alpha(double alpha, int k)
{
	return ldexp(alpha, -k);
}

/* Every command's alpha as the suite says it, before the first look. */
static void save_alpha(struct bisect *b)
{
	for (size_t i = 0; i < b->s.ls.nr; i++) {
		const struct suite *su = b->s.ls.suites[i];
		for (size_t bi = 0; bi < su->nr_benches; bi++)
			for (size_t cc = 0; cc < su->benches[bi].nr_commands; cc++) {
				b->alpha0 = xreallocarray(b->alpha0, b->nr_alpha0 + 1,
							  sizeof(*b->alpha0));
				b->alpha0[b->nr_alpha0++] =
					1 - su->benches[bi].commands[cc].settings.regression.confidence;
			}
	}
}

/*
 * Judge the k-th measurement of a commit at look_alpha() of each command's
 * alpha (k 0: the suite's own again). It is the suite's settings that
 * change, so the sequential looks made while measuring (session_look)
 * and the verdicts of analyze_result() use the same level.
 */
static void set_look(struct bisect *b, int k)
{
	size_t q = 0;
	for (size_t i = 0; i < b->s.ls.nr; i++) {
		struct suite *su = b->s.ls.suites[i];
		for (size_t bi = 0; bi < su->nr_benches; bi++)
			for (size_t cc = 0; cc < su->benches[bi].nr_commands && q < b->nr_alpha0;
			     cc++, q++)
				su->benches[bi].commands[cc].settings.regression.confidence =
					1 - (k > 0 ? look_alpha(b->alpha0[q], k) : b->alpha0[q]);
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
					const struct comparison *cp = &br->commands[cc].comparison[m];
					if (cp->present && isfinite(cp->confidence) &&
					    !(1 - cp->confidence <= a))
						a = 1 - cp->confidence;
				}
		}
	return a;
}

/* Check out and build commit c once; 0, or -1 (c->reason says why). */
static int prepare_commit(struct bisect *b, struct commit *c, size_t id)
{
	if (c->built)
		return c->built > 0 ? 0 : -1;
	struct sbuf err = SBUF_INIT;
	c->dir = xstrfmt("%s/c%03zu", b->s.tmp, id);
	c->artifact = xcalloc(b->s.ls.nr + 1, sizeof(*c->artifact));
	c->built = -1;
	if (mkdir(c->dir, 0700)) {
		c->reason = xstrfmt("cannot create '%s'", c->dir);
		goto out;
	}
	if (git_worktree_add(b->repo, c->sha, c->dir, &c->wt, &err)) {
		c->reason = xstrfmt("cannot check it out: %s", err.buf);
		goto out;
	}
	for (size_t i = 0; i < b->s.ls.nr; i++) {
		const struct suite *su = b->s.ls.suites[i];
		if (!su->build)
			continue;
		const char *rel = path_inside(su->root, b->repo);
		char *root = xstrfmt("%s%s%s", c->wt.path, rel && *rel ? "/" : "", rel ? rel : "");
		char *tmp = xstrfmt("%s/b%zu", c->dir, i);
		c->artifact[i] = xstrfmt("%s/artifact", tmp);
		struct execute_side side = { .present = 1, .root = root, .head_root = root,
					     .artifact = c->artifact[i], .tmpdir = tmp };
		int bad = mkdir(tmp, 0700) || execute_build(su, &side, &b->s.opts, &err);
		free(root);
		free(tmp);
		if (bad) {
			c->reason = xstrfmt("the build failed: %s", err.len ? err.buf : "cannot create its folder");
			goto out;
		}
	}
	c->built = 1;
out:
	sbuf_release(&err);
	return c->built > 0 ? 0 : -1;
}

/* Is command `cmd` of benchmark `bench` in suite `suite` what --command names? */
static int command_named(const char *named, const char *suite, const char *bench,
			 const char *cmd)
{
	if (!named)
		return 1;
	size_t ns = strlen(suite), nb = strlen(bench);
	const char *p = named;
	if (!strncmp(p, suite, ns) && p[ns] == '/' &&
	    !strncmp(p + ns + 1, bench, nb) && p[ns + 1 + nb] == '/' &&
	    !strcmp(p + ns + 2 + nb, cmd))
		return 1;
	return !strncmp(p, bench, nb) && p[nb] == '/' && !strcmp(p + nb + 1, cmd);
}

/*
 * The runs a side that might decide an undecided comparison of command
 * cc of benchmark br in suite i, measured with `runs` a side: twice as
 * many, up to the command's max_runs (the cap of the sequential rounds);
 * 0 when it is already there.
 */
static int runs_again(const struct bisect *b, size_t i, const struct bench_result *br,
		      size_t cc, int runs)
{
	if (i >= b->s.ls.nr)
		return 0;
	const struct suite *su = b->s.ls.suites[i];
	for (size_t k = 0; k < su->nr_benches; k++) {
		const struct bench_spec *bs = &su->benches[k];
		if (strcmp(bs->name, br->name) || cc >= bs->nr_commands)
			continue;
		int cap = bs->commands[cc].settings.max_runs;
		if (b->s.cfg.measure->runs > cap)
			cap = b->s.cfg.measure->runs;
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

/*
 * Judge c from its analysed comparisons against GOOD. Bad: any judged
 * comparison (gated, or --metric's) is a regression. Otherwise what
 * decides is the comparisons that regressed at BAD (b->matters, filled
 * when BAD itself is judged, at_bad): all of them pass, improve or stay
 * within noise: good; one inconclusive, skipped or failed: skip, naming it.
 * An inconclusive comparison of a command that did not regress at BAD says
 * nothing about the regression being hunted, so it skips nothing.
 */
/* c's change: the comparison cp of what ("suite/bench/command metric"). */
static void note_change(struct commit *c, const struct comparison *cp, const char *what)
{
	free(c->what);
	c->have_change = 1;
	c->change = cp->change_percent;
	c->low = cp->ci_low_percent;
	c->high = cp->ci_high_percent;
	c->what = xstrdup(what);
}

static void judge(struct bisect *b, struct commit *c, const struct run_result *rr, int at_bad)
{
	struct sbuf what = SBUF_INIT;
	size_t judged = 0;
	unsigned char *seen = xcalloc(b->matters.nr + 1, 1);
	for (size_t i = 0; i < rr->nr_suites; i++)
		for (size_t bi = 0; bi < rr->suites[i].nr_benches; bi++) {
			const struct bench_result *br = &rr->suites[i].benches[bi];
			for (size_t cc = 0; cc < br->nr_commands; cc++) {
				const struct command_result *cr = &br->commands[cc];
				for (int m = 0; m < METRIC__COUNT; m++) {
					const struct comparison *cp = &cr->comparison[m];
					int gate = cp->present ? cp->gate : cr->analysis.metric[m].gate;
					int selected = b->metric >= 0 ? m == b->metric : gate;
					if (!selected || (!cp->present && !cr->error) ||
					    !command_named(b->command, rr->suites[i].name, br->name, cr->name))
						continue;
					sbuf_reset(&what);
					sbuf_addf(&what, "%s/%s/%s %s", rr->suites[i].name, br->name,
						  cr->name, metric_get(m)->name);
					size_t k = 0;
					while (k < b->matters.nr && strcmp(b->matters.v[k], what.buf))
						k++;
					int matters = k < b->matters.nr;
					if (matters)
						seen[k] = 1;
					judged++;
					if (cp->present && cp->verdict == VERDICT_REGRESSION) {
						if (c->out != OUT_BAD) {
							c->out = OUT_BAD;
							note_change(c, cp, what.buf);
						}
						if (at_bad)
							strvec_push(&b->matters, what.buf);
						continue;
					}
					/* At BAD every selected comparison may be the
					   regression, so an undecided one is measured
					   again there too. */
					if (!matters && !at_bad)
						continue;
					int decided = cp->present &&
						      (cp->verdict == VERDICT_PASS ||
						       cp->verdict == VERDICT_IMPROVED ||
						       cp->verdict == VERDICT_WITHIN_NOISE ||
						       cp->verdict == VERDICT_ACCEPTED);
					/* A good commit shows the change of the
					   first comparison it is judged good on. */
					if (decided && matters && c->out != OUT_BAD && !c->have_change)
						note_change(c, cp, what.buf);
					if (!decided && !c->reason) {
						struct sbuf r = SBUF_INIT;
						if (cr->error) {
							sbuf_addf(&r, "%s: the command failed", what.buf);
						} else {
							sbuf_addf(&r, "%s %s ", what.buf,
								  verdict_text(cp->verdict, "undecided"));
							units_format_change(&r, cp->change_percent,
									    cp->ci_low_percent,
									    cp->ci_high_percent);
							if (more_samples(cr, m))
								c->again = runs_again(b, i, br, cc,
										      (int)cr->side[SIDE_HEAD].count);
						}
						c->reason = sbuf_detach(&r);
					}
				}
			}
		}
	sbuf_release(&what);
	size_t missing = 0;
	while (missing < b->matters.nr && seen[missing])
		missing++;
	free(seen);
	if (c->out == OUT_BAD) {
		free(c->reason); /* a regression is bad whatever else is unclear */
		c->reason = NULL;
		c->again = 0;
	} else if (!judged) {
		c->out = OUT_SKIP;
		c->have_change = 0; /* a skip says why in its reason */
		c->reason = xstrdup(b->command ? "no comparison of --command's command and the selected metric"
					       : "no comparison of the selected metric");
	} else if (c->reason) {
		c->out = OUT_SKIP;
		c->have_change = 0;
	} else if (missing < b->matters.nr) {
		/* A comparison that regressed at BAD is missing here. */
		c->out = OUT_SKIP;
		c->have_change = 0;
		c->reason = xstrfmt("%s: not compared", b->matters.v[missing]);
	} else {
		c->out = OUT_GOOD;
	}
}

/* Measure c against GOOD once (c->runs a side, 0: the suite's) and judge it. */
static void measure_commit(struct bisect *b, struct commit *c)
{
	free(c->reason);
	free(c->what);
	c->reason = c->what = NULL;
	c->out = OUT_UNTESTED;
	c->have_change = 0;
	c->again = 0;
	c->measured++;
	c->alpha = xreallocarray(c->alpha, (size_t)c->measured, sizeof(*c->alpha));
	c->alpha[c->measured - 1] = NAN;
	set_look(b, c->measured);
	b->s.opts.runs_override = c->runs > 0 ? c->runs : b->s.cfg.measure->runs;
	b->steps++;
	struct run_result rr;
	run_result_init(&rr);
	rr.mode = xstrdup("compare");
	rr.seed = b->s.r.seed;
	rr.suites = xcalloc(b->s.ls.nr + 1, sizeof(*rr.suites));
	int failed = 0;
	for (size_t i = 0; i < b->s.ls.nr && !interrupt_requested; i++) {
		const struct suite *su = b->s.ls.suites[i];
		const char *rel = path_inside(su->root, b->repo);
		char *groot = xstrfmt("%s%s%s", b->good.wt.path, rel && *rel ? "/" : "", rel ? rel : "");
		char *hroot = xstrfmt("%s%s%s", c->wt.path, rel && *rel ? "/" : "", rel ? rel : "");
		char *tb = xstrfmt("%s/m%03zu-%zu-base", b->s.tmp, b->steps, i);
		char *th = xstrfmt("%s/m%03zu-%zu-head", b->s.tmp, b->steps, i);
		mkdir(tb, 0700);
		mkdir(th, 0700);
		struct execute_side sides[SIDE__COUNT] = {
			[SIDE_BASE] = { .present = 1, .root = groot, .head_root = hroot,
					.artifact = b->good.artifact[i], .tmpdir = tb },
			[SIDE_HEAD] = { .present = 1, .root = hroot, .head_root = hroot,
					.artifact = c->artifact[i], .tmpdir = th },
		};
		struct suite_result *sr = &rr.suites[rr.nr_suites++];
		b->s.measuring = su; /* for the sequential looks (session_look) */
		if (execute_suite(su, b->s.ls.selected[i], sides, &b->s.opts, sr))
			failed = 1;
		b->s.measuring = NULL;
		for (size_t bi = 0, k = 0; bi < su->nr_benches && k < sr->nr_benches; bi++) {
			if (!b->s.ls.selected[i][bi])
				continue;
			struct bench_result *br = &sr->benches[k++];
			/* Unless the sequential looks already gave them. */
			for (size_t cc = 0; cc < br->nr_commands && cc < su->benches[bi].nr_commands; cc++)
				if (!br->commands[cc].analysis.present)
					analyze_settings_from_suite(&su->benches[bi].commands[cc],
								    &br->commands[cc]);
		}
		free(groot);
		free(hroot);
		free(tb);
		free(th);
	}
	if (failed || interrupt_requested) {
		c->out = OUT_SKIP;
		c->reason = xstrdup("interrupted");
		run_result_release(&rr);
		set_look(b, 0);
		return;
	}
	analyze_result(&rr, NULL);
	c->alpha[c->measured - 1] = judged_alpha(&rr);
	judge(b, c, &rr, c == &b->path[b->n - 1]);
	run_result_release(&rr);
	set_look(b, 0);
}

/*
 * Measure c against GOOD and judge it. Its build is made once and kept
 * (prepare_commit()); a commit skipped because a comparison that matters
 * is undecided is measured again, with twice the runs a side each time,
 * up to the command's max_runs, before it stays skipped.
 */
static void test_commit(struct bisect *b, struct commit *c, size_t id)
{
	if (!b->s.cfg.quiet)
		fprintf(stderr, "kagari: bisect: testing %.12s\n", c->sha);
	if (prepare_commit(b, c, id)) {
		c->out = OUT_SKIP;
		return;
	}
	measure_commit(b, c);
	while (c->out == OUT_SKIP && c->again > 0 && !interrupt_requested) {
		if (!b->s.cfg.quiet)
			fprintf(stderr, "kagari: bisect: %.12s undecided (%s); measuring it again with %d runs a side, at alpha/%d (each measurement of a commit at half the level of the one before)\n",
				c->sha, c->reason, c->again, 1 << (c->measured + 1 < 30 ? c->measured + 1 : 30));
		c->runs = c->again;
		measure_commit(b, c);
	}
	b->s.opts.runs_override = b->s.cfg.measure->runs;
}

static const char *outcome_name(enum outcome o)
{
	return o == OUT_GOOD ? "good" : o == OUT_BAD ? "bad" : o == OUT_SKIP ? "skip" : "untested";
}

static void record_order(struct bisect *b, size_t idx)
{
	b->order = xreallocarray(b->order, b->nr_order + 1, sizeof(*b->order));
	b->order[b->nr_order++] = idx;
}

/*
 * The search. path[n-1] is BAD. lo: index of the last known good (-1 is
 * GOOD itself), hi: the first known bad. Returns hi, or -1 when BAD is not
 * bad; *ambiguous when skipped commits leave more than one candidate.
 */
static long search(struct bisect *b, int *ambiguous)
{
	long lo = -1, hi = (long)b->n - 1;
	*ambiguous = 0;
	record_order(b, (size_t)hi);
	test_commit(b, &b->path[hi], (size_t)hi + 1);
	if (b->path[hi].out != OUT_BAD)
		return -1;
	while (hi - lo > 1 && !interrupt_requested) {
		long mid = lo + (hi - lo) / 2, pick = -1;
		/* The untested commit nearest the middle (skips are tried around). */
		for (long d = 0; d < hi - lo && pick < 0; d++) {
			if (mid - d > lo && b->path[mid - d].out == OUT_UNTESTED)
				pick = mid - d;
			else if (mid + d < hi && b->path[mid + d].out == OUT_UNTESTED)
				pick = mid + d;
		}
		if (pick < 0) {
			*ambiguous = 1;
			break;
		}
		record_order(b, (size_t)pick);
		test_commit(b, &b->path[pick], (size_t)pick + 1);
		if (b->path[pick].out == OUT_BAD)
			hi = pick;
		else if (b->path[pick].out == OUT_GOOD)
			lo = pick;
	}
	return hi;
}

/*
 * A commit's subject as the table shows it: control characters (C0, DEL
 * and UTF-8's C1) as '?', so a subject cannot move the cursor or colour
 * the terminal; at most 50 characters, cut with "...".
 */
static char *clean_subject(const char *s)
{
	size_t n = s ? strlen(s) : 0;
	struct sbuf out = SBUF_INIT;
	size_t chars = 0;
	for (size_t i = 0; i < n; i++) {
		unsigned char ch = (unsigned char)s[i];
		if ((ch & 0xC0) != 0x80 && ++chars > 50) {
			sbuf_adds(&out, "...");
			break;
		}
		if (ch == 0xC2 && i + 1 < n && (unsigned char)s[i + 1] >= 0x80 &&
		    (unsigned char)s[i + 1] <= 0x9F) {
			sbuf_addch(&out, '?');
			i++;
		} else {
			sbuf_addch(&out, ch < 0x20 || ch == 0x7F ? '?' : ch);
		}
	}
	return sbuf_detach(&out);
}

/* Characters of a UTF-8 string (for the subject column). */
static size_t utf8_chars(const char *s)
{
	size_t n = 0;
	for (; *s; s++)
		n += ((unsigned char)*s & 0xC0) != 0x80;
	return n;
}

/*
 * "  SHA  OUTCOME  SUBJECT  CHANGE [LOW, HIGH] WHAT  (REASON)": every
 * tested commit with its subject (padded to width characters), a bad one
 * with its regression and a good one with the change it was judged good
 * on.
 */
static void print_commit_line(struct sbuf *out, const struct commit *c, size_t width)
{
	char *subject = clean_subject(c->subject);
	sbuf_addf(out, "  %.12s  %-4s  %s", c->sha, outcome_name(c->out), subject);
	if (c->have_change || c->reason || c->measured > 1)
		sbuf_addchars(out, ' ', width - utf8_chars(subject));
	free(subject);
	if (c->have_change) {
		sbuf_adds(out, "  ");
		units_format_change(out, c->change, c->low, c->high);
		sbuf_addf(out, " %s", c->what);
	}
	if (c->reason)
		sbuf_addf(out, "  (%s)", c->reason);
	if (c->measured > 1)
		sbuf_addf(out, "  [measured %d times, the last with %d runs a side]",
			  c->measured, c->runs);
	sbuf_addch(out, '\n');
}

static void release_commit(struct commit *c, size_t nr_suites, int *rc)
{
	if (c->wt.path || c->wt.repo) {
		struct sbuf err = SBUF_INIT;
		if (git_worktree_remove(&c->wt, &err)) {
			cmd_error("could not remove the temporary worktree '%s': %s",
				  c->wt.path ? c->wt.path : "", err.buf);
			*rc = exit_merge(*rc, EXIT_EXEC);
		}
		sbuf_release(&err);
	}
	git_worktree_release(&c->wt);
	for (size_t i = 0; c->artifact && i < nr_suites; i++)
		free(c->artifact[i]);
	free(c->artifact);
	free(c->sha);
	free(c->subject);
	free(c->reason);
	free(c->what);
	free(c->dir);
	free(c->alpha);
}

/* For tmpdir_prune(): 1 only when the folder's maker is certainly gone. */
static int owner_gone(const char *owner)
{
	return proc_owner_state(owner) == 0;
}

/* The usage checks made before anything is prepared: both ends given, as
   valid revision text, and --metric one that can be compared. */
static int bisect_check_args(const struct bisect_cli *cli, int *metric)
{
	if (!cli->good || !cli->bad) {
		cmd_error("bisect needs --good REV and --bad REV");
		return EXIT_USAGE;
	}
	*metric = -1;
	if (cli->analysis.metric) {
		*metric = metric_lookup(cli->analysis.metric);
		if (*metric < 0 || !metric_get(*metric)->comparable) {
			cmd_error("--metric '%s': not a metric that can be compared", cli->analysis.metric);
			return EXIT_USAGE;
		}
	}
	struct sbuf err = SBUF_INIT;
	int rc = 0;
	if (git_check_rev(cli->good, &err) || git_check_rev(cli->bad, &err)) {
		cmd_error("%s", err.buf);
		rc = EXIT_USAGE;
	}
	sbuf_release(&err);
	return rc;
}

/*
 * Claim the session's folder, so that the next bisect can prune it if we
 * die. Only a locked folder: one made where flock is not supported must
 * never be pruned by another kagari (a pid may mean nothing here).
 */
static void claim_tmp(struct bisect *b)
{
	if (!b->s.have_tmp_lock)
		return;
	struct sbuf tag = SBUF_INIT, err = SBUF_INIT;
	proc_owner_tag(&tag);
	if (tmpdir_claim(b->s.tmp, tag.buf, &err))
		cmd_warning("%s", err.buf);
	sbuf_release(&tag);
	sbuf_release(&err);
}

/* --command: measure only the benchmarks that hold the command. 0, or
   EXIT_USAGE when no selected benchmark has it. */
static int narrow_to_command(struct bisect *b, const struct bisect_cli *cli)
{
	size_t found = 0;
	struct sbuf names = SBUF_INIT;
	for (size_t i = 0; i < b->s.ls.nr; i++) {
		const struct suite *su = b->s.ls.suites[i];
		for (size_t bi = 0; bi < su->nr_benches; bi++) {
			const struct bench_spec *bs = &su->benches[bi];
			int has = 0;
			for (size_t cc = 0; cc < bs->nr_commands; cc++) {
				if (command_named(cli->command, su->name, bs->name,
						  bs->commands[cc].name))
					has = 1;
				else if (b->s.ls.selected[i][bi] && names.len < 400)
					sbuf_addf(&names, "%s%s/%s", names.len ? ", " : "",
						  bs->name, bs->commands[cc].name);
			}
			if (!has)
				b->s.ls.selected[i][bi] = 0;
			found += has && b->s.ls.selected[i][bi];
		}
	}
	int rc = 0;
	if (!found) {
		cmd_error("--command '%s': no selected benchmark has that command (BENCH/CMD, or SUITE/BENCH/CMD; the selected ones: %s)",
			  cli->command, names.len ? names.buf : "none");
		rc = EXIT_USAGE;
	}
	sbuf_release(&names);
	return rc;
}

/* The repository (the first suite's), its orphaned worktrees pruned, and
   GOOD and BAD resolved to commits (b->good.sha, b->bad_sha). */
static int resolve_ends(struct bisect *b, const struct bisect_cli *cli)
{
	struct sbuf err = SBUF_INIT;
	int rc = 0;
	if (git_toplevel(b->s.ls.suites[0]->dir, &b->repo, &err)) {
		cmd_error("%s (bisect needs a git repository)", err.buf);
		rc = EXIT_EXEC;
		goto out;
	}
	sbuf_reset(&err);
	if (git_prune_orphans(b->repo, &err))
		cmd_warning("could not prune kagari's orphaned worktrees: %s", err.buf);
	sbuf_reset(&err);
	if (git_resolve_commit(b->repo, cli->good, &b->good.sha, &err) ||
	    git_resolve_commit(b->repo, cli->bad, &b->bad_sha, &err)) {
		cmd_error("%s", err.buf);
		rc = EXIT_USAGE;
	}
out:
	sbuf_release(&err);
	return rc;
}

/* b->path: the first-parent path after GOOD up to BAD, oldest first, each
   commit with its subject. */
static int load_path(struct bisect *b)
{
	struct sbuf err = SBUF_INIT, revs = SBUF_INIT;
	int rc = 0;
	char *range = xstrfmt("%s..%s", b->good.sha, b->bad_sha);
	/* "commit SHA" and then "SHA<TAB>SUBJECT" for each commit. */
	const char *args[] = { "rev-list", "--first-parent", "--reverse",
			       "--format=%H%x09%s", range, NULL };
	if (git_run(b->repo, args, GIT_SLOW_TIMEOUT_NS, &revs, &err)) {
		cmd_error("%s", err.buf);
		rc = EXIT_EXEC;
	}
	free(range);
	for (char *p = revs.buf, *nl; !rc && p && *p; p = nl + 1) {
		nl = strchr(p, '\n');
		if (!nl)
			nl = p + strlen(p);
		char *tab = memchr(p, '\t', (size_t)(nl - p));
		if (strncmp(p, "commit ", 7) && tab && tab - p >= 40) {
			b->path = xreallocarray(b->path, b->n + 1, sizeof(*b->path));
			memset(&b->path[b->n], 0, sizeof(b->path[b->n]));
			b->path[b->n].sha = xstrndup(p, (size_t)(tab - p));
			b->path[b->n].subject = xstrndup(tab + 1, (size_t)(nl - tab - 1));
			b->path[b->n].wt = (struct git_worktree)GIT_WORKTREE_INIT;
			b->n++;
		}
		if (!*nl || !nl[1])
			break;
	}
	sbuf_release(&err);
	sbuf_release(&revs);
	return rc;
}

/* The path is something to bisect: not empty, and GOOD on it (the first
   commit's first parent). 0 or EXIT_USAGE. */
static int check_path(const struct bisect *b, const struct bisect_cli *cli)
{
	if (!b->n) {
		cmd_error("--bad '%s' is not a descendant of --good '%s': nothing to bisect",
			  cli->bad, cli->good);
		return EXIT_USAGE;
	}
	int rc = 0;
	char *parent = xstrfmt("%s^1", b->path[0].sha), *psha = NULL;
	struct sbuf err = SBUF_INIT;
	if (git_resolve_commit(b->repo, parent, &psha, &err) || strcmp(psha, b->good.sha)) {
		cmd_error("--good '%s' is not on the first-parent path of --bad '%s'",
			  cli->good, cli->bad);
		rc = EXIT_USAGE;
	}
	free(parent);
	free(psha);
	sbuf_release(&err);
	return rc;
}

/* GOOD built, then the search (search()): *first and *ambiguous as it
   says. 0, or EXIT_EXEC when GOOD does not build or on an interrupt. */
static int bisect_run(struct bisect *b, const struct bisect_cli *cli, long *first, int *ambiguous)
{
	if (prepare_commit(b, &b->good, 0)) {
		cmd_error("--good %.12s: %s", b->good.sha, b->good.reason);
		return EXIT_EXEC;
	}
	if (!cli->out.quiet)
		fprintf(stderr, "kagari: bisect: %zu commit%s after %.12s on the first-parent path to %.12s (seed %llu)\n",
			b->n, b->n == 1 ? "" : "s", b->good.sha, b->bad_sha,
			(unsigned long long)b->s.r.seed);
	*first = search(b, ambiguous);
	if (interrupt_requested) {
		cmd_error("interrupted");
		return EXIT_EXEC;
	}
	return 0;
}

/* One tested commit of the json result's "tested" array. */
static void render_json_tested(struct json_emit *j, const struct commit *c)
{
	json_emit_begin_object_inline(j);
	json_emit_kv_string(j, "sha", c->sha);
	json_emit_kv_string(j, "subject", c->subject ? c->subject : "");
	json_emit_kv_string(j, "outcome", outcome_name(c->out));
	json_emit_kv_int(j, "measurements", c->measured);
	json_emit_key(j, "alpha");
	json_emit_begin_array(j);
	for (int look = 0; look < c->measured; look++)
		if (isfinite(c->alpha[look]))
			json_emit_double(j, c->alpha[look]);
		else
			json_emit_null(j);
	json_emit_end_array(j);
	if (c->have_change) {
		json_emit_kv_double(j, "change_percent", c->change);
		json_emit_kv_double(j, "ci_low_percent", c->low);
		json_emit_kv_double(j, "ci_high_percent", c->high);
		json_emit_kv_string(j, "what", c->what);
	}
	if (c->reason)
		json_emit_kv_string(j, "reason", c->reason);
	json_emit_end_object(j);
}

/* The result in --format json; fb is the first bad commit, or NULL. */
static void render_json(struct sbuf *out, const struct bisect *b, const struct commit *fb)
{
	struct json_emit j;
	json_emit_init(&j, out, 1);
	json_emit_begin_object(&j);
	json_emit_kv_string(&j, "good", b->good.sha);
	json_emit_kv_string(&j, "bad", b->bad_sha);
	json_emit_kv_uint(&j, "seed", b->s.r.seed);
	json_emit_kv_int(&j, "commits", (int64_t)b->n);
	json_emit_key(&j, "first_bad");
	if (fb)
		json_emit_string(&j, fb->sha);
	else
		json_emit_null(&j);
	json_emit_key(&j, "change_percent");
	if (fb && fb->have_change) {
		json_emit_double(&j, fb->change);
		json_emit_kv_double(&j, "ci_low_percent", fb->low);
		json_emit_kv_double(&j, "ci_high_percent", fb->high);
		json_emit_kv_string(&j, "what", fb->what);
	} else {
		json_emit_null(&j);
	}
	json_emit_key(&j, "tested");
	json_emit_begin_array(&j);
	for (size_t k = 0; k < b->nr_order; k++)
		render_json_tested(&j, &b->path[b->order[k]]);
	json_emit_end_array(&j);
	json_emit_end_object(&j);
	json_emit_finish(&j);
}

/* The result as a table; fb is the first bad commit, or NULL. */
static void render_table(struct sbuf *out, const struct bisect *b, const struct commit *fb)
{
	sbuf_addf(out, "bisect %.12s (good) .. %.12s (bad): %zu commit%s, %zu compared\n",
		  b->good.sha, b->bad_sha, b->n, b->n == 1 ? "" : "s", b->steps);
	size_t width = 0;
	for (size_t k = 0; k < b->nr_order; k++) {
		char *subject = clean_subject(b->path[b->order[k]].subject);
		size_t w = utf8_chars(subject);
		width = w > width ? w : width;
		free(subject);
	}
	for (size_t k = 0; k < b->nr_order; k++)
		print_commit_line(out, &b->path[b->order[k]], width);
	if (!fb)
		return;
	char *subject = clean_subject(fb->subject);
	sbuf_addf(out, "first bad commit: %s %s\n", fb->sha, subject);
	free(subject);
	if (fb->have_change) {
		sbuf_addf(out, "  %s ", fb->what);
		units_format_percent(out, fb->change);
		sbuf_adds(out, " against good, interval [");
		units_format_percent(out, fb->low);
		sbuf_adds(out, ", ");
		units_format_percent(out, fb->high);
		sbuf_adds(out, "]\n");
	}
}

/* The rendered result to --output or standard output. 0 or EXIT_EXEC. */
static int bisect_write(const struct bisect_cli *cli, const struct sbuf *out)
{
	return common_write_output(cli->out.output, NULL, out->buf, out->len);
}

/* After the result: the skipped commits counted, and why no first bad
   commit could be named, if it could not (rc merged with EXIT_FAIL). */
static int bisect_conclude(const struct bisect *b, long first, int ambiguous, int rc)
{
	size_t skipped = 0;
	for (size_t k = 0; k < b->n; k++)
		skipped += b->path[k].out == OUT_SKIP;
	if (skipped)
		cmd_warning("%zu commit%s skipped (a failed build, or a comparison that regressed at --bad failed or was not decided), as git bisect skips",
			    skipped, skipped == 1 ? " was" : "s were");
	if (first < 0) {
		const struct commit *bad = &b->path[b->n - 1];
		cmd_error("--bad %.12s is not a regression beyond the tolerance against --good %.12s (%s): nothing to find",
			  b->bad_sha, b->good.sha,
			  bad->reason ? bad->reason : outcome_name(bad->out));
		rc = exit_merge(rc, EXIT_FAIL);
	} else if (ambiguous) {
		long lo = first - 1;
		while (lo >= 0 && b->path[lo].out != OUT_GOOD)
			lo--;
		cmd_error("skipped commits leave the first bad commit among %ld, from %.12s to %.12s",
			  first - lo, b->path[lo + 1].sha, b->path[first].sha);
		rc = exit_merge(rc, EXIT_FAIL);
	}
	return rc;
}

/* The result in --format, written, then concluded. */
static int bisect_report(const struct bisect *b, const struct bisect_cli *cli, long first, int ambiguous)
{
	const char *fmt = cli->out.format ? cli->out.format : "table";
	const struct commit *fb = first >= 0 && !ambiguous ? &b->path[first] : NULL;
	struct sbuf out = SBUF_INIT;
	if (!strcmp(fmt, "json"))
		render_json(&out, b, fb);
	else
		render_table(&out, b, fb);
	int rc = bisect_write(cli, &out);
	sbuf_release(&out);
	return bisect_conclude(b, first, ambiguous, rc);
}

/* Every worktree removed (a failure merged into *rc) and everything freed. */
static void bisect_release(struct bisect *b, int *rc)
{
	/* A pending interrupt would stop the git calls of the cleanup. */
	child_interrupt_clear();
	release_commit(&b->good, b->s.ls.nr, rc);
	for (size_t k = 0; k < b->n; k++)
		release_commit(&b->path[k], b->s.ls.nr, rc);
	free(b->path);
	free(b->order);
	free(b->alpha0);
	strvec_clear(&b->matters);
	free(b->repo);
	free(b->bad_sha);
	session_release(&b->s);
}

static int bisect_exec(const void *opts, struct cmd_env *env)
{
	const struct bisect_cli *cli = opts;
	int metric;
	int rc = bisect_check_args(cli, &metric);
	if (rc)
		return rc;
	/* session_prepare() wants the measuring flags; bisect writes no report
	   and records no history. */
	struct session_config cfg = {
		.mode = "compare",
		.tmp_prefix = "kagari-bisect",
		.paths = &cli->common.args,
		.selection = &cli->selection,
		.measure = &cli->measure,
		.no_history = 1,
	};
	session_config_out(&cfg, &cli->out);
	struct bisect b;
	memset(&b, 0, sizeof(b));
	strvec_init(&b.matters);
	b.metric = metric;
	b.command = cli->command;
	/* The folders of bisects that were killed (a crash, SIGKILL) first,
	   while nothing of ours is in TMPDIR yet. */
	tmpdir_prune("kagari-bisect", owner_gone);
	rc = session_prepare(&b.s, &cfg, env);
	if (!rc) {
		claim_tmp(&b);
		save_alpha(&b);
	}
	if (!rc && cli->command)
		rc = narrow_to_command(&b, cli);
	if (!rc)
		rc = resolve_ends(&b, cli);
	if (!rc)
		rc = load_path(&b);
	if (!rc)
		rc = check_path(&b, cli);
	long first = -1;
	int ambiguous = 0;
	if (!rc)
		rc = bisect_run(&b, cli, &first, &ambiguous);
	if (!rc)
		rc = bisect_report(&b, cli, first, ambiguous);
	bisect_release(&b, &rc);
	return rc;
}

const struct cmd_entry cmd_bisect = {
	.name = "bisect",
	.args = "--good REV --bad REV [--metric M] [options] [PATH...]",
	.summary = "find the first commit between GOOD and BAD that regresses beyond the tolerance",
	.opts = bisect_opts,
	.cli_size = sizeof(struct bisect_cli),
	.needs_runner = 1,
	.exec = bisect_exec,
};
