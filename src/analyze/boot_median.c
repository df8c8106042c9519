/*
 * analyze/boot_median: the exact bootstrap distribution of the median,
 * sampled by inversion (boot_median.h has the derivation).
 */
#include "analyze/boot_median.h"

#include <math.h>
#include <stdlib.h>

#include "base/xalloc.h"

/*
 * P(Binomial(n, p) >= r) for 1 <= r <= n, by the pmf recurrence from the
 * end nearer the mode, so that an underflowing start only ever drops terms
 * that are negligible: upward from r when the mode is at or below r,
 * otherwise 1 - the sum downward from r - 1.
 */
static double binom_upper(size_t n, double p, size_t r)
{
	if (p <= 0)
		return 0;
	if (p >= 1)
		return 1;
	double lq = log1p(-p), lp = log(p), odds = p / (1 - p);
	double nn = (double)n;
	if ((double)r >= nn * p) {
		double k = (double)r;
		double t = exp(lgamma(nn + 1) - lgamma(k + 1) - lgamma(nn - k + 1) + k * lp +
			       (nn - k) * lq);
		double sum = 0;
		for (size_t j = r; j <= n && t > 0; j++) {
			sum += t;
			t *= (nn - (double)j) / ((double)j + 1) * odds;
		}
		return sum < 1 ? sum : 1;
	}
	double k = (double)(r - 1);
	double t =
	    exp(lgamma(nn + 1) - lgamma(k + 1) - lgamma(nn - k + 1) + k * lp + (nn - k) * lq);
	double sum = 0;
	for (size_t j = r - 1; t > 0; j--) {
		sum += t;
		if (!j)
			break;
		t *= (double)j / (nn - (double)j + 1) / odds;
	}
	return sum < 1 ? 1 - sum : 0;
}

void boot_median_init(struct boot_median *b, const double *x, size_t n)
{
	size_t r = (n - 1) / 2 + 1;
	double nn = (double)n;

	b->x = x;
	b->n = n;
	b->cdf = b->exactly = NULL;
	if (!n)
		return;
	b->cdf = xreallocarray(NULL, n, sizeof(double));
	for (size_t i = 0; i + 1 < n; i++)
		b->cdf[i] = binom_upper(n, (double)(i + 1) / nn, r);
	b->cdf[n - 1] = 1;
	if (n % 2)
		return;
	/*
	 * P(exactly r draws <= i and fewer than r <= i - 1)
	 *   = C(n, r) ((n-1-i)/n)^(n-r) [((i+1)/n)^r - (i/n)^r],
	 * divided by P(I = i).
	 */
	b->exactly = xcalloc(n, sizeof(double));
	double lc = lgamma(nn + 1) - lgamma((double)r + 1) - lgamma(nn - (double)r + 1);
	double rr = (double)r;
	for (size_t i = 0; i + 1 < n; i++) {
		double pi = b->cdf[i] - (i ? b->cdf[i - 1] : 0);
		if (pi <= 0)
			continue;
		double a = rr * log((double)(i + 1) / nn);
		double d = i ? a + log1p(-pow((double)i / (double)(i + 1), rr)) : a;
		double num = exp(lc + (nn - rr) * log((nn - 1 - (double)i) / nn) + d);
		b->exactly[i] = num >= pi ? 1 : num / pi;
	}
}

double boot_median_draw(const struct boot_median *b, struct rng *rng)
{
	if (!b->n)
		return NAN;
	size_t n = b->n, lo = 0, hi = n - 1;
	double u = rng_uniform(rng);

	/* the smallest i with cdf[i] > u */
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		if (b->cdf[mid] > u)
			hi = mid;
		else
			lo = mid + 1;
	}
	double v1 = b->x[lo];
	if (!b->exactly || !(rng_uniform(rng) < b->exactly[lo]))
		return v1;
	/* The n - r draws above lo are uniform on its m higher indices; the
	   smallest of K such draws is floor(m (1 - U^(1/K))). */
	size_t m = n - 1 - lo, K = n - ((n - 1) / 2 + 1);
	double u3 = rng_uniform(rng);
	size_t j = (size_t)((double)m * (1 - pow(u3, 1 / (double)K)));
	if (j >= m)
		j = m - 1;
	return v1 + 0.5 * (b->x[lo + 1 + j] - v1);
}

void boot_median_release(struct boot_median *b)
{
	free(b->cdf);
	free(b->exactly);
	b->cdf = b->exactly = NULL;
}
