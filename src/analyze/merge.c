/*
 * analyze/merge: the JSON reports of the jobs of a CI matrix (`--shard
 * K/N`, read by cmd/merge.c) joined into one run and judged as one job
 * would have judged it (merge.h). Every refusal is -1 with the reason.
 */
#include "analyze/merge.h"

#include <limits.h>
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "analyze/analyze.h"
#include "analyze/outcome.h"
#include "base/sbuf.h"
#include "base/xalloc.h"
#include "model/exit.h"

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
		if (s->confirmed > INT_MAX - d->confirmed)
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
		/* the runs that confirmed a simulated count come along too */
		d->confirmed += s->confirmed;
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

/*
 * Can merge judge r as its analysis did? Every command needs the settings
 * its samples were judged by (`analysis`): without them analyze_result()
 * drops its comparisons and budgets, and a shard that failed the gate
 * would merge to a pass. Also the shard record, without which merge cannot
 * tell whether it has every shard. 0, or -1 with the reason in err.
 */
static int check_judgeable(const struct run_result *r, const char *path, struct sbuf *err)
{
	if (!r->shard.present) {
		sbuf_addf(err,
			  "cannot merge '%s': it records no shard (a report of an older kagari, or "
			  "edited), so merge cannot tell whether every shard of the run is there; "
			  "measure it again with this kagari",
			  path);
		return -1;
	}
	for (size_t i = 0; i < r->nr_suites; i++)
		for (size_t b = 0; b < r->suites[i].nr_benches; b++) {
			const struct bench_result *br = &r->suites[i].benches[b];
			for (size_t c = 0; c < br->nr_commands; c++)
				if (!br->commands[c].analysis.present) {
					sbuf_addf(err,
						  "cannot merge '%s': suite '%s', benchmark '%s', "
						  "command '%s' has no `analysis` settings (a "
						  "report of an older kagari, or edited), so its "
						  "samples cannot be judged again",
						  path, r->suites[i].name, br->name,
						  br->commands[c].name);
					return -1;
				}
		}
	return 0;
}

/*
 * Report i (sh[i]) against the ones before: one matrix (same N, the same
 * selection and --replicate), no run twice, no shard twice.
 */
static int check_shard(const struct shard_seen *sh, size_t i, struct sbuf *err)
{
	const struct shard_seen *b = &sh[i];
	for (size_t k = 0; k < i; k++) {
		const struct shard_seen *a = &sh[k];
		if (!strcmp(a->run_id, b->run_id)) {
			sbuf_addf(err,
				  "cannot merge: '%s' and '%s' are the same run (run id %s): its "
				  "samples would count twice",
				  a->path, b->path, b->run_id);
			return -1;
		}
		if (a->count != b->count || a->replicate != b->replicate ||
		    strcmp(a->selection, b->selection) || a->benchmarks != b->benchmarks) {
			sbuf_addf(err,
				  "cannot merge: '%s' is shard %d/%d%s of %d benchmark%s selected "
				  "by '%s', '%s' shard %d/%d%s of %d selected by '%s': they are "
				  "not shards of one matrix",
				  a->path, a->index, a->count, a->replicate ? " (--replicate)" : "",
				  a->benchmarks, a->benchmarks == 1 ? "" : "s", a->selection,
				  b->path, b->index, b->count, b->replicate ? " (--replicate)" : "",
				  b->benchmarks, b->selection);
			return -1;
		}
		/* The same matrix split differently (one job balanced by its
		   history, another by count) leaves some benchmark in no
		   shard, and every shard would still be there. */
		if (!streq(a->split, b->split) || !streq(a->assignment, b->assignment)) {
			sbuf_addf(err,
				  "cannot merge: '%s' assigned the benchmarks to shards %s "
				  "(assignment %s), '%s' %s (assignment %s): the jobs split the "
				  "benchmarks differently, so some benchmark may be measured by no "
				  "shard; give every job the same history (or --no-history)",
				  a->path, a->split ? a->split : "in an unrecorded way",
				  a->assignment ? a->assignment : "-", b->path,
				  b->split ? b->split : "in an unrecorded way",
				  b->assignment ? b->assignment : "-");
			return -1;
		}
		if (a->index == b->index) {
			sbuf_addf(err,
				  "cannot merge: '%s' and '%s' are both shard %d/%d (runs %s and "
				  "%s): one job's shard was measured twice; merge one of them",
				  a->path, b->path, a->index, a->count, a->run_id, b->run_id);
			return -1;
		}
	}
	return 0;
}

/* Every shard 1..N once: the ones missing are named (-1, err). */
static int check_complete(const struct shard_seen *sh, size_t n, struct sbuf *err)
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
		sbuf_addf(err,
			  "cannot merge: shard%s %s of the run %s missing (given: %s); the "
			  "benchmarks of a missing shard would go unjudged",
			  nr_missing == 1 ? "" : "s", missing.buf, nr_missing == 1 ? "is" : "are",
			  have.buf);
		rc = -1;
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

void merge_set_init(struct merge_set *m, size_t nr_reports)
{
	memset(m, 0, sizeof(*m));
	run_result_init(&m->r);
	m->sh = xcalloc(nr_reports + 1, sizeof(*m->sh));
}

int merge_set_add(struct merge_set *m, struct run_result *r, const char *path, int replicate,
		  struct sbuf *err)
{
	if (check_judgeable(r, path, err))
		return -1;
	m->sh[m->nr_sh++] = shard_seen_of(path, r);
	if (m->nr_sh == 1) {
		/* The first report is the one the others are merged into. */
		run_result_release(&m->r);
		m->r = *r;
		run_result_init(r);
		m->exec_failed = m->r.summary.exit_code == EXIT_EXEC;
		m->exec_reason =
		    m->exec_failed && m->r.exit_reason ? xstrdup(m->r.exit_reason) : NULL;
		return 0;
	}
	if (check_shard(m->sh, m->nr_sh - 1, err))
		return -1;
	if (r->summary.exit_code == EXIT_EXEC && !m->exec_failed) {
		m->exec_failed = 1;
		m->exec_reason = r->exit_reason ? xstrdup(r->exit_reason) : NULL;
	}
	struct sbuf why = SBUF_INIT;
	int rc = 0;
	if (merge_into(&m->r, r, m->sh[0].path, path, replicate, &why)) {
		sbuf_addf(err, "cannot merge: %s", why.buf);
		rc = -1;
	}
	sbuf_release(&why);
	return rc;
}

int merge_set_check_complete(const struct merge_set *m, struct sbuf *err)
{
	return m->nr_sh ? check_complete(m->sh, m->nr_sh, err) : 0;
}

void merge_set_as_one_run(struct merge_set *m)
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

void merge_set_judge(struct merge_set *m, int fail_on_inconclusive)
{
	struct run_result *r = &m->r;
	free(r->exit_reason);
	r->exit_reason = NULL;
	analyze_result(r, NULL);
	outcome_judge(r);
	if (fail_on_inconclusive && r->summary.inconclusive && r->summary.exit_code == EXIT_PASS) {
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

void merge_set_release(struct merge_set *m)
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
