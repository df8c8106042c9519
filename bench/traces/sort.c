/*
 * The A/A traces' workload (bench/traces/README.md): ROUNDS rounds of
 * sorting 20,000 xorshift numbers, about 174 ms a run with 60 rounds on
 * this project's VM. Two copies of one binary make an A/A pair.
 * Build: cc -O2 -o sort sort.c; use: ./sort [ROUNDS]
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

static int cmp(const void *a, const void *b)
{
	uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;
	return (x > y) - (x < y);
}

int main(int argc, char **argv)
{
	int rounds = argc > 1 ? atoi(argv[1]) : 60;
	static uint32_t v[20000];
	uint32_t x = 2463534242u, sum = 0;

	for (int r = 0; r < rounds; r++) {
		for (int i = 0; i < 20000; i++) {
			x ^= x << 13;
			x ^= x >> 17;
			x ^= x << 5;
			v[i] = x;
		}
		qsort(v, 20000, sizeof(v[0]), cmp);
		sum += v[r % 20000];
	}
	printf("%u\n", sum);
	return 0;
}
