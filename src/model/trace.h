/*
 * model/trace: recorded A/A traces (docs/power.md, "The trace format") —
 * long sequences of runs of two identical copies of one program, one run
 * at a time, so that every difference between runs is the machine's noise.
 * `kagari power` replays a design over them; `kagari aa --trace` writes
 * them. One header line of tab-separated column names, then one line per
 * run in the order the runs happened:
 *
 *   index copy start_s wall_ns user_ns sys_ns maxrss_kib steal_ticks
 *
 * Only `wall_ns` is required (latency); `user_ns` and `sys_ns` give
 * cpu_total. Columns may come in any order; unknown ones are ignored.
 * Times must be positive numbers (user_ns + sys_ns too) below
 * TRACE_TIME_LIMIT_NS.
 */
#ifndef KAGARI_MODEL_TRACE_H
#define KAGARI_MODEL_TRACE_H

#include <stddef.h>

struct sbuf;

/*
 * Every time kagari measures is a count of nanoseconds in an int64: below
 * 2^63 ns (about 292 years). A trace's times, and the head times a replay
 * scales from them, must stay below it.
 */
#define TRACE_TIME_LIMIT_NS 0x1p63

struct trace {
	char *file;   /* as given */
	size_t n;     /* runs */
	double *wall; /* [n] wall_ns */
	double *cpu;  /* [n] user_ns + sys_ns, or NULL without those columns */
};

/*
 * Parse the text of FILE into *t. Returns 0, or -1 with
 * "FILE:LINE:COL: field 'NAME': what is wrong" in err (nothing to free).
 * `need_cpu` makes user_ns and sys_ns required.
 */
int trace_parse(const char *file, const char *text, size_t len, int need_cpu, struct trace *t,
		struct sbuf *err);

void trace_release(struct trace *t);

/* The header line kagari aa --trace writes first (with its newline): the
   recorder's columns but start_s and steal_ticks, which kagari's runner
   does not report per run (runs are batched, so the time a result
   arrives is not when its run started). */
#define TRACE_HEADER_AA "index\tcopy\twall_ns\tuser_ns\tsys_ns\tmaxrss_kib\n"

/* One run as a line of that format. */
void trace_add_row(struct sbuf *out, size_t index, int copy, double wall_ns, double user_ns,
		   double sys_ns, double maxrss_kib);

#endif
