/*
 * The founding article's workload, in C: sort 20,000 pseudo-random numbers
 * 100 times. SLOWDOWN (an integer percentage, from slowdown.txt at build
 * time) adds whole rounds of identical size, so 10 means exactly 10% more
 * work (smaller extra sorts would cost less than their share).
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

#ifndef SLOWDOWN
#define SLOWDOWN 0
#endif

#ifndef SIZE /* bench/sensitivity makes runs shorter with -DSIZE=... */
#define SIZE 20000
#endif
enum { BASE_ROUNDS = 100 };

static int cmp_u32(const void *a, const void *b)
{
	uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;
	return (x > y) - (x < y);
}

int main(void)
{
	static uint32_t data[SIZE];
	uint32_t state = 2463534242u; /* xorshift32: same numbers every run */
	uint64_t sum = 0;
	int rounds = BASE_ROUNDS + BASE_ROUNDS * SLOWDOWN / 100;
	for (int r = 0; r < rounds; r++) {
		for (int i = 0; i < SIZE; i++) {
			state ^= state << 13;
			state ^= state >> 17;
			state ^= state << 5;
			data[i] = state;
		}
		qsort(data, SIZE, sizeof(data[0]), cmp_u32);
		for (int i = 0; i < SIZE; i += 7)
			sum += data[((uint64_t)i * 7919) % SIZE];
	}
	printf("%llu\n", (unsigned long long)sum);
	return 0;
}
