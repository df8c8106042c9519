/*
 * measure/alloc: the kagari side of the allocation shim
 * (shim/kagari_alloc.c, built as libkagari-alloc.so).
 *
 * A measured program is run with LD_PRELOAD naming the shim and
 * KAGARI_ALLOC_OUT naming a file; every process of its tree that exits
 * normally appends one line there. This module finds the shim, sets the
 * environment up, and sums the lines into the metrics `allocs`,
 * `alloc_bytes` and `peak_heap` (the sum of the per-process peaks: an upper
 * bound on the tree's live heap at any one time).
 *
 * Call order, per run:
 *   alloc_shim_find(override, &path, &err)      once (cache the path)
 *   alloc_env_setup(&env, path, out_file)       before spawning
 *   ... run the program with env (out_file must not exist yet) ...
 *   alloc_read(out_file, parent_pid, &totals, &err)
 *   if (!totals.main_seen) -> unsupported, reason from alloc_unseen_reason()
 *
 * Nothing here prints; errors go to a caller-supplied sbuf.
 */
#ifndef KAGARI_MEASURE_ALLOC_H
#define KAGARI_MEASURE_ALLOC_H

#include <stdint.h>
#include <sys/types.h>

struct sbuf;
struct strvec;

/* Name of the environment variable the shim writes its lines to. */
#define ALLOC_OUT_ENV "KAGARI_ALLOC_OUT"
/* File name of the shim. */
#define ALLOC_SHIM_NAME "libkagari-alloc.so"

struct alloc_totals {
	uint64_t allocs;  /* allocating calls, summed over processes */
	uint64_t bytes;	  /* requested bytes, summed */
	uint64_t peak;	  /* sum of the per-process peaks of live bytes */
	uint64_t frees;	  /* free calls, summed */
	size_t processes; /* lines read */
	int main_seen;	  /* a line came from a child of parent_pid */
};

/*
 * Find the shim: `override` when not NULL or empty (cmd/ passes
 * $KAGARI_ALLOC_SHIM: nothing below cmd/ reads the environment for it),
 * else next to this program's
 * executable (/proc/self/exe), else <exe dir>/../lib/kagari/, else the
 * build-time path KAGARI_ALLOC_SHIM_PATH when defined. On success the
 * absolute path is appended to `path` and 0 returned; else -1 with the
 * places tried in err.
 */
int alloc_shim_find(const char *override, struct sbuf *path, struct sbuf *err);

/*
 * Set LD_PRELOAD (the shim first, any existing value kept after it) and
 * KAGARI_ALLOC_OUT=out_path in env (NAME=VALUE strings).
 */
void alloc_env_setup(struct strvec *env, const char *shim_path, const char *out_path);

/*
 * Parse the shim's lines in `text` (len bytes) and sum them into *t (which
 * is overwritten). A line whose ppid is parent_pid sets t->main_seen.
 * Returns 0, or -1 with a reason when a line is malformed.
 */
int alloc_parse(const char *text, size_t len, pid_t parent_pid, struct alloc_totals *t,
		struct sbuf *err);

/*
 * The same from the file at path; a missing file means no process wrote a
 * line (t is zero, main_seen 0), which is not an error.
 */
int alloc_read(const char *path, pid_t parent_pid, struct alloc_totals *t, struct sbuf *err);

/* Why a program's allocations could not be seen (for `unsupported`). */
const char *alloc_unseen_reason(void);

#endif
