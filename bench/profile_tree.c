/*
 * profile_tree: the synthetic program of the profile proof (after the
 * benchmark of Reichelt and Skarbalius, ICPE 2026): a complete binary call
 * tree of DEPTH decision levels under a root, every node its own noinline
 * function, each of the 2^DEPTH leaves doing `m` units of work, and one
 * leaf (SLOW, counting from 0 left to right) doing DELTA percent more.
 *
 * Build flags: -DDEPTH=d (0..8, required), -DDELTA=pct (default 0),
 * -DSLOW=k (default 0). Build with -O2 -fno-omit-frame-pointer so that the
 * sampled call chains are whole. Run-time flags override the build ones:
 *
 *	profile_tree [-m UNITS] [-n ITERATIONS] [-d DELTA] [-s SLOW]
 *
 * A unit is 1000 steps of a multiply-add chain (about 1 us). The tree is
 * walked ITERATIONS times (default 100), UNITS default 4 * 2^(8-DEPTH), so
 * that every depth does about the same total work (~0.2 s).
 *
 * Functions: node_1 is the root, node_10 and node_11 its children, and so
 * on (the binary digits are the path from the root); leaves are leaf_1...
 * with DEPTH digits after the 1. The work loop is inlined into each leaf,
 * so a leaf's samples are its own ("self"), not a shared helper's.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

#ifndef DEPTH
#error "build with -DDEPTH=d (0..8)"
#endif
#ifndef DELTA
#define DELTA 0
#endif
#ifndef SLOW
#define SLOW 0
#endif

#define NOINLINE __attribute__((noinline, noclone))

static uint64_t steps[1u << 8];
static volatile uint64_t sink;

static inline __attribute__((always_inline)) void work(unsigned leaf)
{
	uint64_t x = sink + leaf, n = steps[leaf];
	for (uint64_t i = 0; i < n; i++) {
		x = x * 6364136223846793005ULL + 1442695040888963407ULL;
		__asm__ volatile("" : "+r"(x));
	}
	sink = x;
}

/* Leaf index from its path bits: 0b1xxx minus the leading 1. */
#define LEAF(p)                                                                \
	NOINLINE void leaf_##p(void);                                          \
	NOINLINE void leaf_##p(void)                                           \
	{                                                                      \
		work((unsigned)(0b##p - (1u << DEPTH)));                       \
	}
#define NODE(p, c0, c1)                                                        \
	NOINLINE void node_##p(void);                                          \
	NOINLINE void node_##p(void)                                           \
	{                                                                      \
		c0();                                                          \
		c1();                                                          \
		__asm__ volatile("");                                          \
	}

#define T0(p) LEAF(p)
#define C0(p) leaf_##p
#define T1(p) T0(p##0) T0(p##1) NODE(p, C0(p##0), C0(p##1))
#define C1(p) node_##p
#define T2(p) T1(p##0) T1(p##1) NODE(p, C1(p##0), C1(p##1))
#define C2(p) node_##p
#define T3(p) T2(p##0) T2(p##1) NODE(p, C2(p##0), C2(p##1))
#define C3(p) node_##p
#define T4(p) T3(p##0) T3(p##1) NODE(p, C3(p##0), C3(p##1))
#define C4(p) node_##p
#define T5(p) T4(p##0) T4(p##1) NODE(p, C4(p##0), C4(p##1))
#define C5(p) node_##p
#define T6(p) T5(p##0) T5(p##1) NODE(p, C5(p##0), C5(p##1))
#define C6(p) node_##p
#define T7(p) T6(p##0) T6(p##1) NODE(p, C6(p##0), C6(p##1))
#define C7(p) node_##p
#define T8(p) T7(p##0) T7(p##1) NODE(p, C7(p##0), C7(p##1))
#define C8(p) node_##p

#define CAT_(a, b) a##b
#define CAT(a, b) CAT_(a, b)

CAT(T, DEPTH)(1)
#define ROOT CAT(C, DEPTH)(1)

int main(int argc, char **argv)
{
	double units = 4.0 * (double)(1u << (8 - DEPTH));
	long iterations = 100;
	double delta = DELTA;
	long slow = SLOW;
	int opt;
	while ((opt = getopt(argc, argv, "m:n:d:s:")) != -1) {
		switch (opt) {
		case 'm':
			units = atof(optarg);
			break;
		case 'n':
			iterations = atol(optarg);
			break;
		case 'd':
			delta = atof(optarg);
			break;
		case 's':
			slow = atol(optarg);
			break;
		default:
			fprintf(stderr, "usage: %s [-m UNITS] [-n ITERATIONS] "
					"[-d DELTA] [-s SLOW]\n",
				argv[0]);
			return 2;
		}
	}
	unsigned leaves = 1u << DEPTH;
	if (slow < 0 || slow >= (long)leaves || units < 0 || iterations < 0) {
		fprintf(stderr, "%s: SLOW must be below %u\n", argv[0], leaves);
		return 2;
	}
	for (unsigned i = 0; i < leaves; i++)
		steps[i] = (uint64_t)(units * 1000.0 *
				      (i == (unsigned)slow ? 1 + delta / 100 : 1));
	for (long i = 0; i < iterations; i++)
		ROOT();
	return 0;
}
