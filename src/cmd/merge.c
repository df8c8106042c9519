/*
 * kagari merge REPORT.json... [--replicate] [--format FMT] [--output FILE]:
 * join the JSON reports of the jobs of a CI matrix (`--shard K/N`) into one
 * report and judge it as one job would have: analyze_result() over the
 * merged set (so Holm's correction runs across every comparison of every
 * shard), then the exit code of compare (cmd/outcome.c). docs/sharding.md.
 *
 * Refused, exit 2, with the reason: reports of different modes, base or
 * head commits (or dirtiness); the same suite from different files; the
 * same command in two reports without --replicate, or with different
 * analysis settings. With --replicate the same command's samples are
 * pooled: each report's rounds become a block of rounds after the ones
 * before (pairs stay within their round), so N jobs give N times the
 * rounds. The merged report keeps the first report's seed (the analysis is
 * seeded with it, so merging the same files again gives the same output).
 * A shard whose build or measuring failed (exit 4) keeps the merged exit
 * code at 4 with its reason.
 *
 * The set is checked first (exit 2, naming the files): every report must
 * carry its shard record (K/N, the selection, a run id; shard.c) and the
 * `analysis` settings of every command (without them its comparisons and
 * budgets would be dropped, and a failing shard would merge to a pass);
 * all must be shards of one matrix (the same N, selection and
 * --replicate) split alike (the same split method and assignment
 * fingerprint, shard.c), no run may come twice (a copy would count its samples
 * twice), no shard twice, and none may be missing.
 */
#include <errno.h>
#include <limits.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "analyze/analyze.h"
#include "base/sbuf.h"
#include "base/xalloc.h"
#include "cmd/cmd.h"
#include "cmd/common.h"
#include "cmd/exit.h"
#include "cmd/outcome.h"
#include "report/output.h"
#include "report/annotations.h"
#include "report/read_json.h"
#include "report/report.h"

#define MERGE_MAX_BYTES ((size_t)1 << 30)

struct merge_cli {
	struct cli_common common;
	struct cli_out out;	  /* format, output, summary */
	int replicate;		  /* --replicate */
	int annotations;	  /* GitHub annotations on stderr */
	int fail_on_inconclusive; /* --fail-on-inconclusive */
};

#define M(f) offsetof(struct merge_cli, f)
static const struct opt merge_opts[] = {
    {"replicate", OPT_BOOL, M(replicate), NULL,
     "pool the rounds of a command measured in several reports (jobs run with --replicate)", NULL},
    {"format", OPT_ENUM, M(out.format), "FMT", "output format: " REPORT_FORMAT_HELP,
     REPORT_FORMAT_CHOICES},
    {"output", OPT_STRING, M(out.output), "FILE",
     "write to FILE (atomically) instead of stdout; never an input", NULL},
    {"summary", OPT_STRING, M(out.summary), "FILE",
     "append a GitHub-flavoured Markdown summary to FILE (e.g. $GITHUB_STEP_SUMMARY)", NULL},
    {"annotations", OPT_BOOL, M(annotations), NULL,
     "GitHub workflow-command annotations on stderr, as kagari ci writes them", NULL},
    {"fail-on-inconclusive", OPT_BOOL, M(fail_on_inconclusive), NULL,
     "exit 1 when a gated comparison is inconclusive", NULL},
    {NULL, 0, 0, NULL, NULL, NULL},
};
#undef M

static int streq(const char *a, const char *b)
{
	return (!a && !b) || (a && b && !strcmp(a, b));
}

static char *xstrdup_or_null(const char *s)
{
	return s ? xstrdup(s) : NULL;
}

/* The highest round and run numbers of a series (0 when empty). */
static void series_max(const struct metric_series *d, int *max_round, int *max_run)
{
	*max_round = *max_run = 0;
	for (size_t i = 0; i < d->nr; i++) {
		if (d->samples[i].round > *max_round)
			*max_round = d->samples[i].round;
		if (d->samples[i].run > *max_run)
			*max_run = d->samples[i].run;
	}
}

/*
 * Append src's samples of one side after dst's: rounds and runs follow on.
 * -1 when they cannot: a report's round numbers go up to INT_MAX, and the
 * sum of two would overflow (which UBSan stops and plain builds wrapped
 * to negative rounds).
 */
static int pool_side(struct side_result *dst, struct side_result *src)
{
	if (!src->present)
		return 0;
	for (int m = 0; m < METRIC__COUNT; m++) {
		struct metric_series *d = &dst->metric[m], *s = &src->metric[m];
		if (s->status != MSTATUS_OK)
			continue;
		int max_round, max_run;
		series_max(d, &max_round, &max_run);
		for (size_t i = 0; i < s->nr; i++)
			if (s->samples[i].round > INT_MAX - max_round ||
			    s->samples[i].run > INT_MAX - max_run)
				return -1;
	}
	dst->present = 1;
	for (int m = 0; m < METRIC__COUNT; m++) {
		struct metric_series *d = &dst->metric[m], *s = &src->metric[m];
		if (s->status != MSTATUS_OK)
			continue;
		int max_round, max_run;
		series_max(d, &max_round, &max_run);
		if (d->status != MSTATUS_OK) {
			free(d->reason);
			d->reason = NULL;
		}
		for (size_t i = 0; i < s->nr; i++)
			metric_series_add(d, s->samples[i].value, s->samples[i].round + max_round,
					  s->samples[i].run + max_run);
	}
	dst->count += src->count;
	return 0;
}

/* Move src (zeroed after) into dst's array of n items. */
#define APPEND_MOVE(arr, n, src)                                                                   \
	do {                                                                                       \
		(arr) = xreallocarray((arr), (n) + 1, sizeof(*(arr)));                             \
		(arr)[(n)++] = *(src);                                                             \
		memset((src), 0, sizeof(*(src)));                                                  \
	} while (0)

static int merge_commands(struct bench_result *db, struct bench_result *sb, const char *suite,
			  const char *dname, const char *sname, int replicate, struct sbuf *err)
{
	for (size_t c = 0; c < sb->nr_commands; c++) {
		struct command_result *sc = &sb->commands[c], *dc = NULL;
		for (size_t k = 0; k < db->nr_commands && !dc; k++)
			if (streq(db->commands[k].name, sc->name))
				dc = &db->commands[k];
		if (!dc) {
			APPEND_MOVE(db->commands, db->nr_commands, sc);
			continue;
		}
		if (!replicate) {
			sbuf_addf(err,
				  "'%s' and '%s' both measured suite '%s', benchmark '%s', command "
				  "'%s': shards split the benchmarks, so these are not shards of "
				  "one run (jobs run with --replicate are merged with --replicate)",
				  dname, sname, suite, db->name, sc->name);
			return -1;
		}
		if (dc->analysis.present != sc->analysis.present ||
		    memcmp(&dc->analysis, &sc->analysis, sizeof(dc->analysis))) {
			sbuf_addf(
			    err,
			    "'%s' and '%s' judge suite '%s', benchmark '%s', command '%s' with "
			    "different analysis settings: they were not run from the same suite",
			    dname, sname, suite, db->name, sc->name);
			return -1;
		}
		if (!streq(dc->command, sc->command)) {
			sbuf_addf(err,
				  "'%s' and '%s' ran different command lines as suite '%s', "
				  "benchmark '%s', command '%s'",
				  dname, sname, suite, db->name, sc->name);
			return -1;
		}
		for (int sd = 0; sd < SIDE__COUNT; sd++)
			if (sc->rounds > INT_MAX - dc->rounds ||
			    pool_side(&dc->side[sd], &sc->side[sd])) {
				sbuf_addf(
				    err,
				    "'%s' and '%s' number the rounds of suite '%s', benchmark "
				    "'%s', command '%s' too high to pool: the sum passes %d",
				    dname, sname, suite, db->name, sc->name, INT_MAX);
				return -1;
			}
		dc->rounds += sc->rounds;
		if (!dc->error && sc->error) {
			dc->error = sc->error;
			sc->error = NULL;
			free(dc->stderr_tail);
			dc->stderr_tail = sc->stderr_tail;
			sc->stderr_tail = NULL;
		}
	}
	db->rounds = 0;
	for (size_t k = 0; k < db->nr_commands; k++)
		if (db->commands[k].rounds > db->rounds)
			db->rounds = db->commands[k].rounds;
	return 0;
}

/* Merge src (consumed) into dst; -1 with the reason when they do not fit. */
static int merge_into(struct run_result *dst, struct run_result *src, const char *dname,
		      const char *sname, int replicate, struct sbuf *err)
{
	if (!streq(dst->mode, src->mode)) {
		sbuf_addf(err, "'%s' is a report of `%s`, '%s' of `%s`", dname,
			  dst->mode ? dst->mode : "?", sname, src->mode ? src->mode : "?");
		return -1;
	}
	if (!streq(dst->git.base_sha, src->git.base_sha) ||
	    !streq(dst->git.head_sha, src->git.head_sha) || dst->git.dirty != src->git.dirty) {
		sbuf_addf(err,
			  "'%s' measured base %.12s and head %.12s%s, '%s' base %.12s and head "
			  "%.12s%s: shards of one run measure the same commits",
			  dname, dst->git.base_sha ? dst->git.base_sha : "-",
			  dst->git.head_sha ? dst->git.head_sha : "-",
			  dst->git.dirty == 1 ? " (dirty)" : "", sname,
			  src->git.base_sha ? src->git.base_sha : "-",
			  src->git.head_sha ? src->git.head_sha : "-",
			  src->git.dirty == 1 ? " (dirty)" : "");
		return -1;
	}
	for (size_t i = 0; i < src->nr_suites; i++) {
		struct suite_result *ss = &src->suites[i], *ds = NULL;
		for (size_t k = 0; k < dst->nr_suites && !ds; k++)
			if (streq(dst->suites[k].name, ss->name))
				ds = &dst->suites[k];
		if (!ds) {
			APPEND_MOVE(dst->suites, dst->nr_suites, ss);
			continue;
		}
		if (!streq(ds->file, ss->file)) {
			sbuf_addf(err, "suite '%s' comes from '%s' in '%s' but from '%s' in '%s'",
				  ss->name, ds->file ? ds->file : "?", dname,
				  ss->file ? ss->file : "?", sname);
			return -1;
		}
		for (size_t b = 0; b < ss->nr_benches; b++) {
			struct bench_result *sb = &ss->benches[b], *db = NULL;
			for (size_t k = 0; k < ds->nr_benches && !db; k++)
				if (streq(ds->benches[k].name, sb->name))
					db = &ds->benches[k];
			if (!db)
				APPEND_MOVE(ds->benches, ds->nr_benches, sb);
			else if (merge_commands(db, sb, ss->name, dname, sname, replicate, err))
				return -1;
		}
	}
	for (size_t i = 0; i < src->warnings.nr; i++) {
		int seen = 0;
		for (size_t k = 0; k < dst->warnings.nr && !seen; k++)
			seen = !strcmp(dst->warnings.v[k], src->warnings.v[i]);
		if (!seen)
			strvec_push(&dst->warnings, src->warnings.v[i]);
	}
	if (src->started_at && (!dst->started_at || strcmp(src->started_at, dst->started_at) < 0)) {
		free(dst->started_at);
		dst->started_at = xstrdup(src->started_at);
	}
	if (src->finished_at &&
	    (!dst->finished_at || strcmp(src->finished_at, dst->finished_at) > 0)) {
		free(dst->finished_at);
		dst->finished_at = xstrdup(src->finished_at);
	}
	dst->interrupted |= src->interrupted;
	/* The worst shard's steal: a runner the hypervisor starved is what a
	   reader must see, not an average that hides it. */
	if (!isnan(src->env.steal_percent) &&
	    (isnan(dst->env.steal_percent) || src->env.steal_percent > dst->env.steal_percent))
		dst->env.steal_percent = src->env.steal_percent;
	return 0;
}

static int read_report(const char *path, struct run_result *r)
{
	struct sbuf text = SBUF_INIT, err = SBUF_INIT;
	int rc = 0;
	run_result_init(r);
	if (sbuf_read_file(&text, path, MERGE_MAX_BYTES)) {
		cmd_error("cannot read '%s': %s", path,
			  errno == EFBIG ? "larger than 1 GiB" : strerror(errno));
		rc = EXIT_INVALID;
	} else if (report_read_json(text.buf, text.len, path, r, &err)) {
		cmd_error("%s", err.buf);
		rc = EXIT_INVALID;
	}
	sbuf_release(&text);
	sbuf_release(&err);
	return rc;
}

/*
 * Can merge judge r as its analysis did? Every command needs the settings
 * its samples were judged by (`analysis`): without them analyze_result()
 * drops its comparisons and budgets, and a shard that failed the gate
 * would merge to a pass. Also the shard record, without which merge cannot
 * tell whether it has every shard. 0, or EXIT_INVALID with the reason.
 */
static int check_judgeable(const struct run_result *r, const char *path)
{
	if (!r->shard.present) {
		cmd_error("cannot merge '%s': it records no shard (a report of an older kagari, or "
			  "edited), so merge cannot tell whether every shard of the run is there; "
			  "measure it again with this kagari",
			  path);
		return EXIT_INVALID;
	}
	for (size_t i = 0; i < r->nr_suites; i++)
		for (size_t b = 0; b < r->suites[i].nr_benches; b++) {
			const struct bench_result *br = &r->suites[i].benches[b];
			for (size_t c = 0; c < br->nr_commands; c++)
				if (!br->commands[c].analysis.present) {
					cmd_error("cannot merge '%s': suite '%s', benchmark '%s', "
						  "command '%s' has no `analysis` settings (a "
						  "report of an older kagari, or edited), so its "
						  "samples cannot be judged again",
						  path, r->suites[i].name, br->name,
						  br->commands[c].name);
					return EXIT_INVALID;
				}
		}
	return 0;
}

/* What merge keeps of each report's shard record, to check the set. */
struct shard_seen {
	const char *path;
	int index, count, replicate, benchmarks;
	char *selection, *run_id;
	char *split, *assignment; /* NULL: a report of an older kagari */
};

/*
 * Report i (sh[i]) against the ones before: one matrix (same N, the same
 * selection and --replicate), no run twice, no shard twice.
 */
static int check_shard(const struct shard_seen *sh, size_t i)
{
	const struct shard_seen *b = &sh[i];
	for (size_t k = 0; k < i; k++) {
		const struct shard_seen *a = &sh[k];
		if (!strcmp(a->run_id, b->run_id)) {
			cmd_error("cannot merge: '%s' and '%s' are the same run (run id %s): its "
				  "samples would count twice",
				  a->path, b->path, b->run_id);
			return EXIT_INVALID;
		}
		if (a->count != b->count || a->replicate != b->replicate ||
		    strcmp(a->selection, b->selection) || a->benchmarks != b->benchmarks) {
			cmd_error("cannot merge: '%s' is shard %d/%d%s of %d benchmark%s selected "
				  "by '%s', '%s' shard %d/%d%s of %d selected by '%s': they are "
				  "not shards of one matrix",
				  a->path, a->index, a->count, a->replicate ? " (--replicate)" : "",
				  a->benchmarks, a->benchmarks == 1 ? "" : "s", a->selection,
				  b->path, b->index, b->count, b->replicate ? " (--replicate)" : "",
				  b->benchmarks, b->selection);
			return EXIT_INVALID;
		}
		/* The same matrix split differently (one job balanced by its
		   history, another by count) leaves some benchmark in no
		   shard, and every shard would still be there. */
		if (!streq(a->split, b->split) || !streq(a->assignment, b->assignment)) {
			cmd_error("cannot merge: '%s' assigned the benchmarks to shards %s "
				  "(assignment %s), '%s' %s (assignment %s): the jobs split the "
				  "benchmarks differently, so some benchmark may be measured by no "
				  "shard; give every job the same history (or --no-history)",
				  a->path, a->split ? a->split : "in an unrecorded way",
				  a->assignment ? a->assignment : "-", b->path,
				  b->split ? b->split : "in an unrecorded way",
				  b->assignment ? b->assignment : "-");
			return EXIT_INVALID;
		}
		if (a->index == b->index) {
			cmd_error("cannot merge: '%s' and '%s' are both shard %d/%d (runs %s and "
				  "%s): one job's shard was measured twice; merge one of them",
				  a->path, b->path, a->index, a->count, a->run_id, b->run_id);
			return EXIT_INVALID;
		}
	}
	return 0;
}

/* Every shard 1..N once: the ones missing are named. */
static int check_complete(const struct shard_seen *sh, size_t n)
{
	int count = sh[0].count;
	struct sbuf missing = SBUF_INIT, have = SBUF_INIT;
	int nr_missing = 0;
	for (int k = 1; k <= count; k++) {
		int found = 0;
		for (size_t i = 0; i < n && !found; i++)
			found = sh[i].index == k;
		if (!found) {
			nr_missing++;
			if (nr_missing <= 20)
				sbuf_addf(&missing, "%s%d/%d", missing.len ? ", " : "", k, count);
		}
	}
	if (nr_missing > 20)
		sbuf_addf(&missing, " and %d more", nr_missing - 20);
	for (size_t i = 0; i < n && i < 20; i++)
		sbuf_addf(&have, "%s'%s' (%d/%d)", i ? ", " : "", sh[i].path, sh[i].index,
			  sh[i].count);
	if (n > 20)
		sbuf_addf(&have, " and %zu more", n - 20);
	int rc = 0;
	if (nr_missing) {
		cmd_error("cannot merge: shard%s %s of the run %s missing (given: %s); the "
			  "benchmarks of a missing shard would go unjudged",
			  nr_missing == 1 ? "" : "s", missing.buf, nr_missing == 1 ? "is" : "are",
			  have.buf);
		rc = EXIT_INVALID;
	}
	sbuf_release(&missing);
	sbuf_release(&have);
	return rc;
}

/* FNV-1a, 64 bits. */
static uint64_t fnv1a(const char *s)
{
	uint64_t h = UINT64_C(14695981039346656037);
	for (; *s; s++)
		h = (h ^ (unsigned char)*s) * UINT64_C(1099511628211);
	return h;
}

/* The usage checks: reports given, a known --format (*f), and an --output
   that is none of them. 0 or EXIT_USAGE. */
static int merge_check_args(const struct merge_cli *cli, enum report_format *f)
{
	if (cli->common.args.nr < 1) {
		cmd_error("merge needs the JSON reports of the shards (kagari merge shard-*.json)");
		return EXIT_USAGE;
	}
	if (cli->out.format && report_format_parse(cli->out.format, f)) {
		cmd_error("unknown report format '%s'", cli->out.format);
		return EXIT_USAGE;
	}
	if (!cli->out.output)
		return 0;
	struct input_files in = INPUT_FILES_INIT;
	for (size_t i = 0; i < cli->common.args.nr; i++) {
		char *what = xstrfmt("the input report '%s'", cli->common.args.v[i]);
		input_files_add(&in, cli->common.args.v[i], what);
		free(what);
	}
	int bad = common_check_output("--output", cli->out.output, NULL, &in, EXIT_USAGE);
	input_files_release(&in);
	return bad;
}

/* What merge keeps of r's shard record (path is not copied). */
static struct shard_seen shard_seen_of(const char *path, const struct run_result *r)
{
	return (struct shard_seen){path,
				   r->shard.index,
				   r->shard.count,
				   r->shard.replicate,
				   r->shard.benchmarks,
				   xstrdup(r->shard.selection),
				   xstrdup(r->shard.run_id),
				   xstrdup_or_null(r->shard.split),
				   xstrdup_or_null(r->shard.assignment)};
}

/* The reports as they are merged: r is the first one, the others merged
   into it; sh their shard records; whether (and why) a shard failed. */
struct merge_set {
	struct run_result r;
	struct shard_seen *sh;
	size_t nr_sh;
	int exec_failed;
	char *exec_reason;
};

/* Report i read, checked against the ones before and merged into m->r. */
static int merge_next(struct merge_set *m, const struct merge_cli *cli, size_t i)
{
	struct run_result next;
	struct sbuf err = SBUF_INIT;
	int rc = read_report(cli->common.args.v[i], &next);
	if (!rc)
		rc = check_judgeable(&next, cli->common.args.v[i]);
	if (!rc) {
		m->sh[m->nr_sh++] = shard_seen_of(cli->common.args.v[i], &next);
		rc = check_shard(m->sh, m->nr_sh - 1);
	}
	if (!rc && next.summary.exit_code == EXIT_EXEC && !m->exec_failed) {
		m->exec_failed = 1;
		m->exec_reason = next.exit_reason ? xstrdup(next.exit_reason) : NULL;
	}
	if (!rc && merge_into(&m->r, &next, cli->common.args.v[0], cli->common.args.v[i],
			      cli->replicate, &err)) {
		cmd_error("cannot merge: %s", err.buf);
		rc = EXIT_INVALID;
	}
	run_result_release(&next);
	sbuf_release(&err);
	return rc;
}

/* Every report read, checked and merged, and none missing. 0, or the exit
   code (the reason said). */
static int read_all(struct merge_set *m, const struct merge_cli *cli)
{
	int rc = read_report(cli->common.args.v[0], &m->r);
	if (!rc)
		rc = check_judgeable(&m->r, cli->common.args.v[0]);
	if (!rc)
		m->sh[m->nr_sh++] = shard_seen_of(cli->common.args.v[0], &m->r);
	m->exec_failed = !rc && m->r.summary.exit_code == EXIT_EXEC;
	m->exec_reason = m->exec_failed && m->r.exit_reason ? xstrdup(m->r.exit_reason) : NULL;
	for (size_t i = 1; i < cli->common.args.nr && !rc; i++)
		rc = merge_next(m, cli, i);
	if (!rc)
		rc = check_complete(m->sh, m->nr_sh);
	return rc;
}

/* The merged report is one whole run: shard 1/1, with an id of the runs
   it joins (the same files merge to the same id). */
static void merge_as_one_run(struct merge_set *m)
{
	uint64_t id = 0;
	for (size_t i = 0; i < m->nr_sh; i++)
		id ^= fnv1a(m->sh[i].run_id);
	free(m->r.shard.run_id);
	m->r.shard.run_id = xstrfmt("merge-%016llx", (unsigned long long)id);
	m->r.shard.index = m->r.shard.count = 1;
	m->r.shard.replicate = 0;
	m->r.shard.merged_from = (int)m->nr_sh;
}

/* The one analysis, over the whole merged set: Holm across all shards;
   then the exit code, --fail-on-inconclusive's and a failed shard's. */
static void judge_merged(struct merge_set *m, const struct merge_cli *cli)
{
	struct run_result *r = &m->r;
	free(r->exit_reason);
	r->exit_reason = NULL;
	analyze_result(r, NULL);
	outcome_judge(r);
	if (cli->fail_on_inconclusive && r->summary.inconclusive &&
	    r->summary.exit_code == EXIT_PASS) {
		r->summary.exit_code = EXIT_FAIL;
		free(r->exit_reason);
		r->exit_reason = xstrfmt("%d comparison%s inconclusive (--fail-on-inconclusive)",
					 r->summary.inconclusive,
					 r->summary.inconclusive == 1 ? " is" : "s are");
	}
	if (m->exec_failed && r->summary.exit_code != EXIT_EXEC) {
		r->summary.exit_code = EXIT_EXEC;
		free(r->exit_reason);
		r->exit_reason =
		    m->exec_reason ? m->exec_reason : xstrdup("a shard failed to measure");
		m->exec_reason = NULL;
	}
}

/* The merged report in format f, to --output or standard output. 0, or
   EXIT_INTERNAL or EXIT_EXEC. */
static int write_merged(const struct run_result *r, enum report_format f,
			const struct merge_cli *cli, const struct cmd_env *env)
{
	struct sbuf err = SBUF_INIT, out = SBUF_INIT;
	int rc = 0;
	struct report_options o;
	report_options_init(&o);
	o.color = !cli->out.output && env->stdout_tty && !cli->out.no_color && !getenv("NO_COLOR");
	if (report_render(r, f, &o, &out, &err)) {
		cmd_error("%s", err.buf);
		rc = EXIT_INTERNAL;
	} else {
		rc = common_write_output(cli->out.output, NULL, out.buf, out.len);
	}
	sbuf_release(&err);
	sbuf_release(&out);
	return rc;
}

/* --summary: Markdown appended to the file; rc merged with EXIT_EXEC when
   it cannot be. */
static int write_summary(const struct run_result *r, const struct merge_cli *cli, int rc)
{
	return exit_merge(rc, common_write_summary(r, cli->out.summary));
}

/* --annotations: GitHub's workflow commands on stderr, after the report. */
static void write_annotations(const struct run_result *r, const struct merge_cli *cli)
{
	struct sbuf an = SBUF_INIT;
	const char *ws = getenv("GITHUB_WORKSPACE");
	github_annotations(&an, r, cli->fail_on_inconclusive, ws && *ws ? ws : NULL);
	fflush(stdout);
	fputs(an.buf, stderr);
	fflush(stderr);
	sbuf_release(&an);
}

static void merge_set_release(struct merge_set *m)
{
	for (size_t i = 0; i < m->nr_sh; i++) {
		free(m->sh[i].selection);
		free(m->sh[i].run_id);
		free(m->sh[i].split);
		free(m->sh[i].assignment);
	}
	free(m->sh);
	free(m->exec_reason);
	run_result_release(&m->r);
}

static int merge_exec(const void *opts, struct cmd_env *env)
{
	const struct merge_cli *cli = opts;
	enum report_format f = REPORT_TABLE;
	int rc = merge_check_args(cli, &f);
	if (rc)
		return rc;
	struct merge_set m;
	memset(&m, 0, sizeof(m));
	m.sh = xcalloc(cli->common.args.nr, sizeof(*m.sh));
	rc = read_all(&m, cli);
	if (rc)
		goto out;
	merge_as_one_run(&m);
	judge_merged(&m, cli);
	rc = write_merged(&m.r, f, cli, env);
	if (rc)
		goto out;
	rc = m.r.summary.exit_code;
	if (cli->out.summary)
		rc = write_summary(&m.r, cli, rc);
	if (cli->annotations)
		write_annotations(&m.r, cli);
	if (rc && rc != m.r.summary.exit_code)
		cmd_error("the summary could not be written");
	else if (rc && m.r.exit_reason)
		cmd_error("%s", m.r.exit_reason);
out:
	merge_set_release(&m);
	return rc;
}

const struct cmd_entry cmd_merge = {
    .name = "merge",
    .args = "REPORT.json... [--replicate] [--format FMT] [--output FILE]",
    .summary = "join the JSON reports of --shard jobs into one, analysed as one run",
    .opts = merge_opts,
    .cli_size = sizeof(struct merge_cli),
    .needs_runner = 0,
    .exec = merge_exec,
};
