/*
 * model/metric: the one registry of everything kagari can measure.
 *
 * Collection, statistics, budgets and every report loop over this table
 * instead of naming metrics one by one. Values are stored as doubles in the
 * metric's base unit (nanoseconds, bytes, counts, a ratio, or units per
 * second); integral metrics hold exact integers (below 2^53) and are printed
 * as integers.
 *
 * Ownership and order: metric_get() returns an entry of a static table —
 * never freed, valid for the whole program — and takes only ids below
 * METRIC__COUNT (a value read from outside, e.g. a name, goes through
 * metric_lookup() first, which returns -1 for an unknown name). The enum's
 * order is the order every report lists metrics in; adding a metric means
 * adding it here, in metric.c's table, and to its collector.
 */
#ifndef KAGARI_MODEL_METRIC_H
#define KAGARI_MODEL_METRIC_H

enum metric_id {
	METRIC_LATENCY,
	METRIC_CPU_USER,
	METRIC_CPU_SYSTEM,
	METRIC_CPU_TOTAL,
	METRIC_CPU_UTILIZATION,
	METRIC_PEAK_RSS,
	METRIC_THROUGHPUT,
	METRIC_INSTRUCTIONS,
	METRIC_CYCLES,
	METRIC_BRANCH_MISSES,
	METRIC_CACHE_MISSES,
	METRIC_IPC,
	METRIC_ESTIMATED_CYCLES,
	METRIC_ALLOCS,
	METRIC_ALLOC_BYTES,
	METRIC_PEAK_HEAP,
	METRIC_SYSCALLS,
	METRIC__COUNT
};

enum metric_unit {
	UNIT_NS,    /* integer nanoseconds */
	UNIT_BYTES, /* integer bytes */
	UNIT_COUNT, /* integer count */
	UNIT_RATIO, /* dimensionless, e.g. cpu_utilization, ipc */
	UNIT_RATE,  /* work units per second (throughput) */
};

enum metric_better { BETTER_LOWER, BETTER_HIGHER, BETTER_EITHER };

/* Which `metrics:` switch turns the metric on. */
enum metric_group {
	GROUP_TIME,	   /* latency: always */
	GROUP_CPU,	   /* metrics.cpu */
	GROUP_MEMORY,	   /* metrics.memory */
	GROUP_THROUGHPUT,  /* metrics.throughput.work */
	GROUP_COUNTERS,	   /* metrics.counters */
	GROUP_ALLOCATIONS, /* metrics.allocations */
	GROUP_SYSCALLS,	   /* metrics.syscalls */
};

struct metric_info {
	enum metric_id id;
	const char *name; /* as in the suite and the JSON report */
	enum metric_unit unit;
	const char *unit_name; /* JSON "unit": ns, bytes, count, ratio, per_second */
	enum metric_better better;
	int integral; /* values are exact integers */
	enum metric_group group;
	int comparable; /* may appear under `regression:` */
};

/*
 * Instrumented counts (counters, allocations, system calls) that are the
 * same in every one of a command's first METRIC_EXACT_RUNS instrumented
 * runs on each side are exact: measure/ runs no more of them, and analyze/
 * judges such a series with that many samples instead of min_samples (the
 * cache simulation's metrics: one simulated sample and the runs that
 * confirmed it, struct metric_series's `confirmed`). A
 * count that varies at all keeps min_samples and is judged with its
 * spread.
 */
#define METRIC_EXACT_RUNS 3

const struct metric_info *metric_get(enum metric_id id);
/* Look a metric up by its name; returns -1 when unknown. */
int metric_lookup(const char *name);

#endif
