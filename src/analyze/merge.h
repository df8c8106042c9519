/*
 * analyze/merge: `kagari merge` without its reading and writing — the
 * JSON reports of the jobs of a CI matrix (`--shard K/N`) joined into one
 * report and judged as one job would have: analyze_result() over the
 * merged set (so Holm's correction runs across every comparison of every
 * shard), then the exit code of compare (analyze/outcome.h).
 * docs/sharding.md.
 *
 * Refused, with the reason: reports of different modes, base or head
 * commits (or dirtiness); the same suite from different files; the same
 * command in two reports without replicate, or with different analysis
 * settings. With replicate the same command's samples are pooled: each
 * report's rounds become a block of rounds after the ones before (pairs
 * stay within their round), so N jobs give N times the rounds. The merged
 * report keeps the first report's seed (the analysis is seeded with it,
 * so merging the same files again gives the same output). A shard whose
 * build or measuring failed (exit 4) keeps the merged exit code at 4 with
 * its reason.
 *
 * The set is checked as it grows: every report must carry its shard
 * record (K/N, the selection, a run id; plan/shard.h) and the `analysis`
 * settings of every command (without them its comparisons and budgets
 * would be dropped, and a failing shard would merge to a pass); all must
 * be shards of one matrix (the same N, selection and --replicate) split
 * alike (the same split method and assignment fingerprint), no run may
 * come twice (a copy would count its samples twice), no shard twice, and
 * none may be missing.
 *
 * Call order: merge_set_init(); merge_set_add() per report read, in the
 * order given; merge_set_check_complete(); merge_set_as_one_run();
 * merge_set_judge(); (write m.r); merge_set_release().
 */
#ifndef KAGARI_ANALYZE_MERGE_H
#define KAGARI_ANALYZE_MERGE_H

#include <stddef.h>

#include "model/result.h"

struct sbuf;

/* What merge keeps of each report's shard record, to check the set. */
struct shard_seen {
	const char *path;
	int index, count, replicate, benchmarks;
	char *selection, *run_id;
	char *split, *assignment; /* NULL: a report of an older kagari */
};

/* The reports as they are merged: r is the first one, the others merged
   into it; sh their shard records; whether (and why) a shard failed. */
struct merge_set {
	struct run_result r;
	struct shard_seen *sh;
	size_t nr_sh;
	int exec_failed;
	char *exec_reason;
};

/* An empty set for up to nr_reports reports. */
void merge_set_init(struct merge_set *m, size_t nr_reports);
/*
 * Report r, read from path (borrowed for the set's life; consumed: r is
 * left empty), checked (judgeable, its shard against the ones before) and
 * merged into m->r; replicate: --replicate, pool a command measured in
 * several reports. 0, or -1 with the reason in err (which names the
 * files).
 */
int merge_set_add(struct merge_set *m, struct run_result *r, const char *path, int replicate,
		  struct sbuf *err);
/* Every shard 1..N there: 0, or -1 naming the ones missing in err. */
int merge_set_check_complete(const struct merge_set *m, struct sbuf *err);
/* The merged report is one whole run: shard 1/1, with an id of the runs
   it joins (the same files merge to the same id). */
void merge_set_as_one_run(struct merge_set *m);
/* The one analysis, over the whole merged set: Holm across all shards;
   then the exit code, --fail-on-inconclusive's and a failed shard's. */
void merge_set_judge(struct merge_set *m, int fail_on_inconclusive);
void merge_set_release(struct merge_set *m);

#endif
