/*
 * model/profile: the sampled profiles of both sides of a command — the data
 * measure/ records, analyze/profile.h judges and report/ draws.
 *
 * A profile_set per command holds the functions seen (function name and
 * binary, interned), one profile_run per sampled run (its side, round, CPU
 * time, total samples, and per function the samples in which it was the
 * leaf — "self" — and in which it was anywhere on the stack — "inclusive",
 * counted once per sample however deep the recursion), the folded stacks
 * ("root;caller;leaf" with a sample count per side) that flame graphs are
 * drawn from, and, once analysed, one profile_change per function.
 *
 * Call order:
 *
 *	struct profile_set ps = PROFILE_SET_INIT;
 *	per sampled run:
 *	    struct profile_run *r = profile_run_add(&ps, side, round, cpu_ns);
 *	    per sample: profile_run_sample(&ps, r, frames, n)
 *	profile_analyze(&ps, ...)            (analyze/profile.h)
 *	... ps.changes[0..nr_changes) ordered by change, grown first ...
 *	profile_set_release(&ps);
 */
#ifndef KAGARI_MODEL_PROFILE_H
#define KAGARI_MODEL_PROFILE_H

#include <stddef.h>
#include <stdint.h>

struct sbuf;

#define PROFILE_BASE 0
#define PROFILE_HEAD 1
#define PROFILE_SIDES 2

/* Fewer self samples than this over all runs of both sides: not tested. */
#define PROFILE_MIN_SAMPLES 20

struct profile_func {
	char *function; /* "main", "[unknown in libfoo.so]" */
	char *binary;	/* file name of the ELF ("prog", "libc.so.6") */
};

struct profile_count {
	size_t func;
	uint64_t self, incl;
};

struct profile_run {
	int side, round;
	double cpu_ns;		      /* the run's user + system CPU time */
	uint64_t samples;	      /* every sample of the run */
	struct profile_count *counts; /* one per function seen in this run */
	size_t nr, alloc;
	size_t *slot; /* func -> index in counts + 1 (0: none); nr_slot */
	size_t nr_slot;
};

struct profile_stack {
	char *stack; /* folded: "main;f;g" root first */
	uint64_t count[PROFILE_SIDES];
};

enum profile_verdict {
	PROFILE_SAME,
	PROFILE_GREW,
	PROFILE_SHRANK,
	PROFILE_TOO_FEW,
};

/* "same", "grew", "shrank", "too_few_samples" */
const char *profile_verdict_name(enum profile_verdict v);
/* The inverse; -1 for an unknown name. */
int profile_verdict_parse(const char *name);

/* One function's comparison. Times in ns, means over the runs of a side. */
struct profile_change {
	size_t func;
	double self_ns[PROFILE_SIDES];
	double incl_ns[PROFILE_SIDES];
	double change_ns;		 /* mean of paired differences (self) */
	double ci_low_ns, ci_high_ns;	 /* bootstrap interval; NAN untested */
	double p_value, q_value;	 /* NAN untested */
	uint64_t samples[PROFILE_SIDES]; /* self samples over the side's runs */
	enum profile_verdict verdict;
};

struct profile_set {
	char *event; /* the sampling event ("cpu-clock", "cycles:ppp") */
	unsigned frequency;
	struct profile_func *funcs;
	size_t nr_funcs, alloc_funcs;
	struct profile_run *runs;
	size_t nr_runs, alloc_runs;
	struct profile_stack *stacks;
	size_t nr_stacks, alloc_stacks;
	uint64_t samples[PROFILE_SIDES];
	uint64_t lost[PROFILE_SIDES];	   /* LOST + LOST_SAMPLES + dropped */
	uint64_t throttled[PROFILE_SIDES]; /* THROTTLE records */
	size_t pairs;			   /* rounds with both sides */
	double confidence;
	struct profile_change *changes; /* after profile_analyze() */
	size_t nr_changes;
	/* private: hash indexes */
	size_t *func_index, func_index_size;
	size_t *stack_index, stack_index_size;
};

#define PROFILE_SET_INIT                                                                           \
	{                                                                                          \
		.event = NULL                                                                      \
	}

void profile_set_release(struct profile_set *ps);

/* The index of (function, binary), added when new. */
size_t profile_func_intern(struct profile_set *ps, const char *function, const char *binary);

/* Start a run; the pointer is valid until the next profile_run_add(). */
struct profile_run *profile_run_add(struct profile_set *ps, int side, int round, double cpu_ns);

/*
 * One sample of run r: frames[0..n) are function indexes, leaf first (n
 * may be 0: the sample counts in the run's total only). Adds self to
 * frames[0], inclusive once to each distinct function, and the folded
 * stack to the side's flame graph data.
 */
void profile_run_sample(struct profile_set *ps, struct profile_run *r, const size_t *frames,
			size_t n);

/*
 * Add self and inclusive sample counts of function func to run r at once
 * (readers and resampling tools; r->samples is the caller's to set).
 */
void profile_run_count_add(struct profile_run *r, size_t func, uint64_t self, uint64_t incl);

/* Add `count` samples of a folded stack string to a side (readers). */
void profile_stack_add(struct profile_set *ps, const char *stack, int side, uint64_t count);

/*
 * Write the folded stacks of one side ("a;b;c COUNT\n", sorted by stack),
 * the format flamegraph.pl, speedscope and inferno read.
 */
void profile_folded(const struct profile_set *ps, int side, struct sbuf *out);

#endif
