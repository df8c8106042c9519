/*
 * measure/valgrind: instruction counts from valgrind's cachegrind, for
 * machines without hardware counters and for near-exact comparisons.
 *
 * A measured command is wrapped as
 *
 *   valgrind --tool=cachegrind --cache-sim=no --branch-sim=no
 *            --trace-children=yes --cachegrind-out-file=DIR/cg.%p
 *            --log-file=DIR/vg.%p.log ARGV...
 *
 * so that every process of its tree that runs to completion (an exec'd
 * program gets its own instance) writes one cg.PID file into the private
 * folder DIR; the `summary:` lines of all of them are summed into the
 * metric `instructions` (guest instructions, Ir). With the cache
 * simulation (`cache_sim`: --cache-sim=yes and the fixed cache model
 * below) the files also hold the L1 and last-level misses of instruction
 * fetches, data reads and data writes, from which `estimated_cycles` and
 * `cache_misses` are computed. The simulation costs about twice a plain
 * count, so execute_instrument.c simulates on a side's first run only and
 * counts instructions alone after it while they equal the simulated run's
 * (a run that executes the same instructions at the same addresses —
 * valgrind places a program's memory the same way every run — misses the
 * same), and simulates every run once a count differs. valgrind's own messages
 * go to the vg.*.log files, never to the program's stderr. Notes: a child
 * forked without exec inherits its parent's counts up to the fork (so the
 * sum counts those twice, the same way every run); counts depend on the
 * sizes of the environment and argv and on path lengths, which is why the
 * engine runs both sides with equal-length paths (execute.c).
 *
 * Call order:
 *   valgrind_probe(NULL, &path, &version, &err)  once; -1: not installed
 *   per run: empty DIR, valgrind_wrap_argv(path, argv, DIR, cache_sim, &wrapped),
 *            run it, valgrind_read_dir(DIR, &counts, &files, &err)
 */
#ifndef KAGARI_MEASURE_VALGRIND_H
#define KAGARI_MEASURE_VALGRIND_H

#include <stddef.h>
#include <stdint.h>

struct sbuf;
struct strvec;

/* How much longer than the command's timeout a valgrind run may take. */
#define VALGRIND_TIMEOUT_FACTOR 50

/*
 * The simulated caches, fixed instead of valgrind's default (the host's
 * own, read with cpuid), so that the same program gives the same counts on
 * every machine and runner: 32 KiB 8-way L1 instruction and data caches and
 * an 8 MiB 16-way last level, 64-byte lines (a common x86-64 desktop or
 * server core; cachegrind needs power-of-two set counts).
 */
#define VALGRIND_I1 "32768,8,64"
#define VALGRIND_D1 "32768,8,64"
#define VALGRIND_LL "8388608,16,64"

/*
 * Weights of estimated cycles, as gungraun (formerly iai-callgrind) and
 * CodSpeed define them: an access served by L1 costs 1 cycle, one served
 * by the last level 5, one that goes to memory 35.
 */
#define VALGRIND_CYCLES_L1 1
#define VALGRIND_CYCLES_LL 5
#define VALGRIND_CYCLES_RAM 35

/* cachegrind's events, in the order of its cache-simulation output. */
enum valgrind_event {
	VG_IR,	 /* instructions executed (fetches) */
	VG_I1MR, /* L1 instruction-cache misses */
	VG_ILMR, /* last-level misses of instruction fetches */
	VG_DR,	 /* data reads */
	VG_D1MR, /* L1 data-cache read misses */
	VG_DLMR, /* last-level data read misses */
	VG_DW,	 /* data writes */
	VG_D1MW, /* L1 data-cache write misses */
	VG_DLMW, /* last-level data write misses */
	VG__COUNT
};

/* The event's name in cachegrind's `events:` line ("Ir", "D1mr", ...). */
const char *valgrind_event_name(enum valgrind_event e);

/* The totals of one or more cachegrind output files. */
struct valgrind_counts {
	uint64_t ev[VG__COUNT];
	/* 1 when every file summed had the cache events (--cache-sim=yes) */
	int cache;
	/* valgrind_read_dir: each process's Ir, mixed and summed — equal for
	   two runs whose processes counted the same instructions each, in
	   whatever order they ran (a sum alone could hide work that moved
	   between the processes of a pool) */
	uint64_t procs_digest;
};

/*
 * Estimated cycles of counts with the cache events: L1 hits + 5 x LL hits
 * + 35 x memory accesses, where accesses are Ir + Dr + Dw, L1 hits are the
 * accesses minus the L1 misses (I1mr + D1mr + D1mw), LL hits the L1 misses
 * minus the LL misses (ILmr + DLmr + DLmw) and memory accesses the LL
 * misses.
 */
uint64_t valgrind_estimated_cycles(const struct valgrind_counts *c);
/* Last-level misses (ILmr + DLmr + DLmw): what reaches memory. */
uint64_t valgrind_ll_misses(const struct valgrind_counts *c);

/*
 * Find `valgrind` on path_env (a PATH value; NULL: $PATH) into *path and
 * read its version ("3.19.0" from "valgrind-3.19.0") into *version (both
 * allocated, the caller frees them). Returns 0, or -1 with a reason (not
 * installed, with the install hint; or it did not run) in err; both are
 * then NULL.
 */
int valgrind_probe(const char *path_env, char **path, char **version, struct sbuf *err);

/* The version number in the first line of `valgrind --version`, or NULL. */
char *valgrind_parse_version(const char *text);

/*
 * Push the valgrind command line for argv (NULL-terminated) onto out;
 * `valgrind` is the program (valgrind_probe's path). cache_sim: 1 =
 * simulate the caches (the fixed model above), 0 = count instructions
 * only (faster).
 */
void valgrind_wrap_argv(const char *valgrind, const char *const *argv, const char *dir,
			int cache_sim, struct strvec *out);

/*
 * The totals of one cachegrind output file's text into *c: its `summary:`
 * line, or, without one, the sum of each event column of its cost lines;
 * events are found by their names in the `events:` line, which must begin
 * with Ir; c->cache is 1 when all of the cache events are there. Returns
 * 0, or -1 with a reason.
 */
int valgrind_parse_output(const char *text, struct valgrind_counts *c, struct sbuf *err);

/*
 * Sum the totals of every cg.* file in dir into *c; *files is how many
 * there were (0 is not an error here). Returns 0, or -1 with a reason.
 */
int valgrind_read_dir(const char *dir, struct valgrind_counts *c, size_t *files, struct sbuf *err);

/* One function's totals over the cg.* files of a folder. */
struct valgrind_fn {
	char *name; /* cachegrind's fn= name ("main", "???" when unknown) */
	struct valgrind_counts c;
};

/*
 * Per function (by name, summed over every file and process), the costs
 * of every cg.* file in dir, sorted by name, into *fns (*nr of them; the
 * caller frees them with valgrind_fns_release). Returns 0, or -1 with a
 * reason.
 */
int valgrind_read_functions(const char *dir, struct valgrind_fn **fns, size_t *nr,
			    struct sbuf *err);
void valgrind_fns_release(struct valgrind_fn *fns, size_t nr);

/* Remove every file in dir (not dir itself). Returns 0 or -1 with a reason. */
int valgrind_clear_dir(const char *dir, struct sbuf *err);

#endif
