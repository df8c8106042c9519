/*
 * plan/shard: `--shard K/N` on run, compare and ci — which of the
 * selected benchmarks this job measures (docs/sharding.md), and the
 * report's shard record that `kagari merge` checks. cmd/shard.c parses
 * the options and reads the expected times from the history.
 */
#ifndef KAGARI_PLAN_SHARD_H
#define KAGARI_PLAN_SHARD_H

#include <stddef.h>

#include "suite/select.h"

struct sbuf;
struct shard_record;

/* "K/N" with 1 <= K <= N <= 1024; 0, or -1. */
int shard_parse(const char *text, int *k, int *n);

/* What plan_shard_split() did. */
struct plan_shard_counts {
	size_t mine, total; /* benchmarks of this shard, of all shards */
	int balanced;	    /* split by expected time (else by count) */
};

/*
 * Narrow ls->selected to shard k of n (not sharded: nothing, k = n = 1;
 * replicate: every job measures everything), and set rec's split method and assignment
 * fingerprint (what merge compares). ms: the expected milliseconds of
 * each selected benchmark in suite order (balanced: longest first to the
 * least loaded shard), or NULL (by count: the i-th to shard i mod n).
 * 0, or -1 with the reason in err (more shards than benchmarks).
 */
int plan_shard_split(struct loaded_suites *ls, int k, int n, int sharded, int replicate,
		     const double *ms, struct shard_record *rec, struct plan_shard_counts *counts,
		     struct sbuf *err);
/*
 * The report's shard record: K/N of spec (1/1 without it), replicate, the
 * selection options (sel, NULL: none), the benchmarks selected before the
 * split (nr_selected) and a fresh random run id. Replaces what *out held.
 */
void plan_shard_record(const struct suite_selection *sel, const char *spec, int replicate,
		       size_t nr_selected, struct shard_record *out);

#endif
