/*
 * model/sequential: the look schedule and the error spending of the
 * sequential design (`runs: auto` in compare; docs/statistics.md "Sequential
 * rounds"). plan/ uses the looks to know where a batch of rounds ends;
 * analyze/ uses them and the levels to decide at each look. Pure.
 *
 * Looks are after 5, 8, 12, 16, 24, 32, 48, 64, 96, 128, ... rounds (each
 * about 1.5 times the one before, so a look costs at most half the rounds
 * measured so far), the last one at the cap N (max_rounds) itself; a look
 * n with N - n < n / 4 is left out, so that the cap's look is not a sliver
 * (N = 50: 5, 8, 12, 16, 24, 32, 50).
 *
 * Spending: alpha_k = alpha * ((n_k / N)^SEQ_SPEND_POWER -
 * (n_j / N)^SEQ_SPEND_POWER), n_j the last look that spent. A look whose
 * smallest possible p (2^-n_k for the signed-rank test over n_k rounds,
 * times the family size m for Holm) cannot pass its level spends nothing
 * and hands its share on to the next. The sum over all looks is at most
 * alpha whatever the correlation between looks (union bound), and every
 * level depends on n_k, N and m only, never on the data.
 */
#ifndef KAGARI_MODEL_SEQUENTIAL_H
#define KAGARI_MODEL_SEQUENTIAL_H

#define SEQ_SPEND_POWER 1.0

/* The first look after `n` rounds (> n), capped at N; N when n >= N. */
int seq_next_look(int n, int N);

/* Is `n` rounds a scheduled look (n == N included)? */
int seq_is_look(int n, int N);

/*
 * The level of a look after n rounds when the last look that spent was
 * after `spent_at` rounds (0: none), for a family of m gated comparisons;
 * 0 when no p could pass it (the share moves on). A final look at n < N
 * (the time cap ended the rounds) spends by the same rule.
 */
double seq_level(double alpha, int n, int spent_at, int N, int m);

/*
 * The level of the test of the change of the mean (analyze/mean.h) at the
 * same look, spent on a schedule of its own: alpha * (n / N)^2, so that
 * more of it is left for the last looks (a minority of slow runs is shown
 * only after many rounds; before MEAN_PASS_MIN_ROUNDS nothing passes on
 * it). min_p is the smallest p that test gives with n rounds (2^-n, or
 * 1 / (resamples + 1) when its sets are drawn). Its own union bound holds
 * as seq_level()'s does.
 */
#define SEQ_MEAN_SPEND_POWER 2.0
double seq_level_mean(double alpha, int n, int spent_at, int N, int m, double min_p);

#endif
