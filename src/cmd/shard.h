/*
 * cmd/shard: `--shard K/N` on run, compare and ci — this job measures its
 * share of the selected benchmarks (plan/shard.h, docs/sharding.md).
 * `kagari merge` joins the shards' JSON reports.
 */
#ifndef KAGARI_CMD_SHARD_H
#define KAGARI_CMD_SHARD_H

#include "cmd/cmd.h"
#include "cmd/common.h"

struct shard_record;
struct session_config;
/*
 * Narrow ls->selected to shard K of N (cfg->shard; nothing without it, or
 * with --replicate, where every job measures everything), and set rec's
 * split method and assignment fingerprint (what merge compares). Returns
 * 0, or EXIT_USAGE with the error printed.
 */
int shard_select(const struct session_config *cfg, struct loaded_suites *ls,
		 struct shard_record *rec);
/*
 * The report's shard record: K/N (1/1 without --shard), --replicate, the
 * selection options, the benchmarks selected before the split
 * (nr_selected) and a fresh random run id. Replaces what *out held.
 */
void shard_record(const struct session_config *cfg, size_t nr_selected, struct shard_record *out);

#endif
