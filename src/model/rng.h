/*
 * model/rng: the seeded pseudo-random generator behind every resample and
 * every shuffled round order.
 *
 * xoshiro256** (Blackman and Vigna, 2018), its state filled from the seed by
 * splitmix64 as the authors recommend. Randomness is always injected: each
 * function that resamples takes a `struct rng *` from its caller, so a run
 * seed reproduces every verdict.
 *
 * Call order: derive a seed (rng_random_seed() once per run, or the user's
 * --seed; then rng_seed_from(run_seed, "bench/command/metric") per
 * comparison), rng_seed(), then any number of rng_next/rng_below/
 * rng_uniform/rng_shuffle calls. A `struct rng` owns no memory; copying it
 * forks an identical stream.
 */
#ifndef KAGARI_MODEL_RNG_H
#define KAGARI_MODEL_RNG_H

#include <stddef.h>
#include <stdint.h>

struct rng {
	uint64_t s[4];
};

/* Fill the state from `seed` with splitmix64 (any seed, including 0). */
void rng_seed(struct rng *r, uint64_t seed);
/* The next 64 random bits. */
uint64_t rng_next(struct rng *r);
/* Uniform in [0, n), unbiased (Lemire's multiply-and-reject); n == 0 gives 0.
 */
uint64_t rng_below(struct rng *r, uint64_t n);
/* Uniform in [0, 1) on the 2^-53 grid (the top 53 bits of rng_next). */
double rng_uniform(struct rng *r);
/* Fisher-Yates shuffle of nmemb elements of `size` bytes each, in place. */
void rng_shuffle(struct rng *r, void *base, size_t nmemb, size_t size);

/* One splitmix64 step: advance *state and return the mixed output. */
uint64_t rng_splitmix64(uint64_t *state);
/*
 * A seed for one named use of a run seed, e.g. one comparison: FNV-1a of
 * `label` (NULL counts as "") combined with `seed` through splitmix64.
 * Deterministic across platforms; different labels give unrelated streams.
 */
uint64_t rng_seed_from(uint64_t seed, const char *label);
/*
 * A fresh seed from getrandom(); if that fails (very old kernel, seccomp),
 * from the clock, pid and an address, mixed by splitmix64. Never fails.
 */
uint64_t rng_random_seed(void);

#endif
