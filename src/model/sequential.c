/*
 * model/sequential: the look schedule and the spending rule of
 * sequential.h.
 */
#include "model/sequential.h"

#include <math.h>
#include <stddef.h>

static const int looks[] = { 5, 8, 12, 16, 24, 32, 48, 64 };

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

static double spent(double alpha, int n, int N)
{
	return spent_by(alpha, n, N, SEQ_SPEND_POWER);
}

double seq_level_mean(double alpha, int n, int spent_at, int N, int m, double min_p)
{
	double level = spent_by(alpha, n, N, SEQ_MEAN_SPEND_POWER) -
		       spent_by(alpha, spent_at, N, SEQ_MEAN_SPEND_POWER);
	if (level <= 0)
		return 0;
	if (ldexp(1.0, -(n < 1000 ? n : 1000)) * (m > 0 ? m : 1) > level ||
	    min_p * (m > 0 ? m : 1) > level)
		return 0;
	return level;
}

double seq_level(double alpha, int n, int spent_at, int N, int m)
{
	double level = spent(alpha, n, N) - spent(alpha, spent_at, N);
	if (level <= 0)
		return 0;
	/* The smallest p the signed-rank test gives with n rounds. */
	if (ldexp(1.0, -(n < 1000 ? n : 1000)) * (m > 0 ? m : 1) > level)
		return 0;
	return level;
}
