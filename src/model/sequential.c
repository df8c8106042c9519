/*
 * model/sequential: the look schedule and the spending rule of
 * sequential.h.
 */
#include "model/sequential.h"

#include <math.h>
#include <stddef.h>

static const int looks[] = {5, 8, 12, 16, 24, 32, 48, 64};

int seq_next_look(int n, int N)
{
	if (n >= N)
		return N;
	int next = 0;
	for (size_t i = 0; i < sizeof(looks) / sizeof(looks[0]) && !next; i++)
		if (looks[i] > n)
			next = looks[i];
	if (!next) /* beyond 64: every half again */
		for (next = 64; next <= n; next += next / 2)
			;
	/* A look so close to the cap that the last one would add less than
	   a quarter of its rounds is left out: the cap's look would spend
	   almost nothing (48 then 50 rounds: 2/50 of alpha). */
	if (next < N && 4 * (N - next) < next)
		return N;
	return next < N ? next : N;
}

int seq_is_look(int n, int N)
{
	return n > 0 && (n == N || seq_next_look(n - 1, N) == n);
}

static double spent_by(double alpha, int n, int N, double power)
{
	double t = N > 0 ? (double)n / N : 1;
	return alpha * pow(t > 1 ? 1 : t, power);
}

/* A look's share of alpha on the schedule of `power`; 0 when no p could
   pass it: the test's smallest p with n rounds is 2^-n, or min_p when
   that is larger, times the family size m. */
static double level_by(double alpha, int n, int spent_at, int N, int m, double power, double min_p)
{
	double level = spent_by(alpha, n, N, power) - spent_by(alpha, spent_at, N, power);
	double smallest = fmax(ldexp(1.0, -(n < 1000 ? n : 1000)), min_p);

	if (level <= 0 || smallest * (m > 0 ? m : 1) > level)
		return 0;
	return level;
}

double seq_level_mean(double alpha, int n, int spent_at, int N, int m, double min_p)
{
	return level_by(alpha, n, spent_at, N, m, SEQ_MEAN_SPEND_POWER, min_p);
}

double seq_level(double alpha, int n, int spent_at, int N, int m)
{
	/* The smallest p the signed-rank test gives with n rounds: 2^-n. */
	return level_by(alpha, n, spent_at, N, m, SEQ_SPEND_POWER, 0);
}
