/*
 * model/rng: xoshiro256** seeded through splitmix64 (rng.h): bounded
 * draws, uniform doubles, shuffles, seeds derived from names, and the
 * random seed of a run that was given none.
 */
#include "model/rng.h"

#include <sys/random.h>
#include <time.h>
#include <unistd.h>

uint64_t rng_splitmix64(uint64_t *state)
{
	uint64_t z = (*state += 0x9e3779b97f4a7c15ULL);

	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
	return z ^ (z >> 31);
}

void rng_seed(struct rng *r, uint64_t seed)
{
	/*
	 * Four consecutive splitmix64 outputs are never all zero (splitmix64
	 * is a bijection of its counter), so the state is always valid.
	 */
	for (int i = 0; i < 4; i++)
		r->s[i] = rng_splitmix64(&seed);
}

double rng_uniform(struct rng *r)
{
	return (double)(rng_next(r) >> 11) * 0x1.0p-53;
}

void rng_shuffle(struct rng *r, void *base, size_t nmemb, size_t size)
{
	unsigned char *p = base;

	for (size_t i = nmemb; i > 1; i--) {
		size_t j = (size_t)rng_below(r, i);
		unsigned char *a = p + (i - 1) * size, *b = p + j * size;

		if (a == b)
			continue;
		/* Byte-wise swap: no scratch buffer sized by the caller. */
		for (size_t k = 0; k < size; k++) {
			unsigned char c = a[k];
			a[k] = b[k];
			b[k] = c;
		}
	}
}

uint64_t rng_seed_from(uint64_t seed, const char *label)
{
	uint64_t h = 0xcbf29ce484222325ULL; /* FNV-1a 64 offset basis */
	uint64_t st;

	for (const unsigned char *c = (const unsigned char *)(label ? label : ""); *c; c++) {
		h ^= *c;
		h *= 0x100000001b3ULL; /* FNV-1a 64 prime */
	}
	/*
	 * Mix the seed first so that seeds differing in one bit and labels
	 * differing in one byte both land far apart.
	 */
	st = seed;
	st = rng_splitmix64(&st) ^ h;
	return rng_splitmix64(&st);
}

uint64_t rng_random_seed(void)
{
	uint64_t v = 0, st;
	struct timespec ts;

	if (getrandom(&v, sizeof(v), 0) == (ssize_t)sizeof(v))
		return v;
	clock_gettime(CLOCK_REALTIME, &ts);
	st = (uint64_t)ts.tv_sec * 1000000000ULL + (uint64_t)ts.tv_nsec;
	st ^= (uint64_t)getpid() << 32;
	st ^= (uint64_t)(uintptr_t)&v;
	return rng_splitmix64(&st);
}
