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
/*
 * The next 64 random bits, and a draw uniform in [0, n), unbiased (Lemire's
 * multiply-and-reject; n == 0 gives 0). Defined here, inline, because the
 * bootstrap draws hundreds of thousands of indices per comparison and a
 * call per draw cost more than the draw itself (bench/analysis.sh).
 */
static inline uint64_t rng_rotl_(uint64_t x, int k)
{
	return (x << k) | (x >> (64 - k));
}

static inline uint64_t rng_next(struct rng *r)
{
	uint64_t *s = r->s;
	const uint64_t result = rng_rotl_(s[1] * 5, 7) * 9;
	const uint64_t t = s[1] << 17;

	s[2] ^= s[0];
	s[3] ^= s[1];
	s[1] ^= s[2];
	s[0] ^= s[3];
	s[2] ^= t;
	s[3] = rng_rotl_(s[3], 45);
	return result;
}

static inline uint64_t rng_below(struct rng *r, uint64_t n)
{
	unsigned __int128 m;
	uint64_t low;

	if (!n)
		return 0;
	m = (unsigned __int128)rng_next(r) * n;
	low = (uint64_t)m;
	if (low < n) {
		/* 2^64 mod n: products whose low half falls below it are
		 * biased. */
		uint64_t threshold = -n % n;
		while (low < threshold) {
			m = (unsigned __int128)rng_next(r) * n;
			low = (uint64_t)m;
		}
	}
	return (uint64_t)(m >> 64);
}

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
