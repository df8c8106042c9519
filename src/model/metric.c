/*
 * model/metric: the metric registry's table and lookups (metric.h).
 */
#include "model/metric.h"

#include <string.h>

static const struct metric_info metrics[METRIC__COUNT] = {
    {METRIC_LATENCY, "latency", UNIT_NS, "ns", BETTER_LOWER, 1, GROUP_TIME, 1},
    {METRIC_CPU_USER, "cpu_user", UNIT_NS, "ns", BETTER_LOWER, 1, GROUP_CPU, 1},
    {METRIC_CPU_SYSTEM, "cpu_system", UNIT_NS, "ns", BETTER_LOWER, 1, GROUP_CPU, 1},
    {METRIC_CPU_TOTAL, "cpu_total", UNIT_NS, "ns", BETTER_LOWER, 1, GROUP_CPU, 1},
    {METRIC_CPU_UTILIZATION, "cpu_utilization", UNIT_RATIO, "ratio", BETTER_EITHER, 0, GROUP_CPU,
     0},
    {METRIC_PEAK_RSS, "peak_rss", UNIT_BYTES, "bytes", BETTER_LOWER, 1, GROUP_MEMORY, 1},
    {METRIC_THROUGHPUT, "throughput", UNIT_RATE, "per_second", BETTER_HIGHER, 0, GROUP_THROUGHPUT,
     1},
    {METRIC_INSTRUCTIONS, "instructions", UNIT_COUNT, "count", BETTER_LOWER, 1, GROUP_COUNTERS, 1},
    {METRIC_CYCLES, "cycles", UNIT_COUNT, "count", BETTER_LOWER, 1, GROUP_COUNTERS, 1},
    {METRIC_BRANCH_MISSES, "branch_misses", UNIT_COUNT, "count", BETTER_LOWER, 1, GROUP_COUNTERS,
     1},
    {METRIC_CACHE_MISSES, "cache_misses", UNIT_COUNT, "count", BETTER_LOWER, 1, GROUP_COUNTERS, 1},
    {METRIC_IPC, "ipc", UNIT_RATIO, "ratio", BETTER_HIGHER, 0, GROUP_COUNTERS, 1},
    {METRIC_ESTIMATED_CYCLES, "estimated_cycles", UNIT_COUNT, "count", BETTER_LOWER, 1,
     GROUP_COUNTERS, 1},
    {METRIC_ALLOCS, "allocs", UNIT_COUNT, "count", BETTER_LOWER, 1, GROUP_ALLOCATIONS, 1},
    {METRIC_ALLOC_BYTES, "alloc_bytes", UNIT_BYTES, "bytes", BETTER_LOWER, 1, GROUP_ALLOCATIONS, 1},
    {METRIC_PEAK_HEAP, "peak_heap", UNIT_BYTES, "bytes", BETTER_LOWER, 1, GROUP_ALLOCATIONS, 1},
    {METRIC_SYSCALLS, "syscalls", UNIT_COUNT, "count", BETTER_LOWER, 1, GROUP_SYSCALLS, 1},
};

const struct metric_info *metric_get(enum metric_id id)
{
	return &metrics[id];
}

int metric_lookup(const char *name)
{
	for (int i = 0; i < METRIC__COUNT; i++)
		if (!strcmp(metrics[i].name, name))
			return i;
	return -1;
}
