/*
 * sysinfo: what machine this is, for the report's `environment` and for
 * the timestamps of a run. Reads uname(2), /proc/cpuinfo, /proc/stat and
 * $CI.
 *
 * Call order: sysinfo_collect() once per run, into the run_result's
 * environment (run_result_init() first; the strings then belong to the
 * result). The clocks and the CPU ticks (steal) may be read at any time.
 */
#ifndef KAGARI_MEASURE_SYSINFO_H
#define KAGARI_MEASURE_SYSINFO_H

#include <stdint.h>

struct environment_info;

/* Fill env (its strings are allocated; run_result_release frees them). */
void sysinfo_collect(struct environment_info *env);
/* The CPU model from /proc/cpuinfo ("model name", "Hardware" or "cpu
   model"), or NULL when it cannot be told. The caller frees it. */
char *sysinfo_cpu_model(void);
/* Now as RFC 3339 UTC with milliseconds, e.g. 2026-11-30T01:20:32.123Z. */
char *sysinfo_now_rfc3339(void);
/*
 * The machine's CPU time so far, from the "cpu" line of a /proc/stat
 * (`path`; NULL: the real one): the sum of its first eight columns (user
 * through steal, in clock ticks) and the eighth, steal — the time the
 * hypervisor gave this virtual machine's CPUs to someone else. Returns 0,
 * or -1 when the file or the column is missing (not Linux, or a kernel
 * older than 2.6.11).
 */
struct cpu_ticks {
	uint64_t total, steal;
};
int sysinfo_cpu_ticks(const char *path, struct cpu_ticks *t);
/* Steal between readings a and b in % of all CPU time; NAN when nothing
   elapsed or the counters went backwards. */
double sysinfo_steal_percent(const struct cpu_ticks *a, const struct cpu_ticks *b);

/* CLOCK_MONOTONIC in nanoseconds. */
int64_t sysinfo_monotonic_ns(void);

#endif
