/*
 * analyze/exact: the exact tests of exact.h — the sign-flip permutation
 * test (exact enumeration, Monte Carlo beyond), the Wilcoxon signed-rank
 * test (exact, normal beyond), Mann-Whitney U (exact
 * without ties, normal with tie and continuity correction otherwise), the
 * Hodges-Lehmann shift and the selection helpers they share.
 */
#include "analyze/exact.h"

#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "analyze/summary.h"
#include "base/cmp.h"
#include "base/xalloc.h"

const char *exact_method_name(enum exact_method m)
{
	switch (m) {
	case EXACT_ENUMERATED:
		return "sign-flip exact";
	case EXACT_MONTE_CARLO:
		return "sign-flip monte carlo";
	case EXACT_MW_EXACT:
		return "mann-whitney exact";
	case EXACT_MW_NORMAL:
		return "mann-whitney normal";
	case EXACT_SR_EXACT:
		return "signed-rank exact";
	case EXACT_SR_NORMAL:
		return "signed-rank normal";
	}
	return "?";
}

double exact_normal_sf(double z)
{
	return 0.5 * erfc(z / sqrt(2.0));
}

static void swap_d(double *a, double *b)
{
	double t = *a;

	*a = *b;
	*b = t;
}

/* What partition_step() returns for a span it sorted whole. */
#define SORTED SIZE_MAX

/*
 * One step of Hoare's partition of a[lo..hi] (lo < hi) around the median
 * of a[lo], a[mid] and a[hi], which it orders first: returns j with
 * a[lo..j] <= pivot <= a[j+1..hi] and lo <= j < hi, or SORTED when the
 * span holds three or fewer, which the ordering alone sorts. The one
 * partition of exact_select() and select_listed().
 */
static size_t partition_step(double *a, size_t lo, size_t mid, size_t hi)
{
	size_t i = lo, j = hi;
	double pivot;

	if (a[mid] < a[lo])
		swap_d(&a[mid], &a[lo]);
	if (a[hi] < a[lo])
		swap_d(&a[hi], &a[lo]);
	if (a[hi] < a[mid])
		swap_d(&a[hi], &a[mid]);
	if (hi - lo < 3)
		return SORTED;
	pivot = a[mid];
	for (;;) {
		do
			i++;
		while (a[i] < pivot);
		do
			j--;
		while (a[j] > pivot);
		if (i >= j)
			return j;
		swap_d(&a[i], &a[j]);
	}
}

double exact_select(double *a, size_t n, size_t k)
{
	size_t lo = 0, hi = n - 1;

	/*
	 * Hoare partition around the median of three; the loop narrows
	 * [lo, hi] to the side holding k. Expected linear time.
	 */
	while (hi > lo) {
		size_t j = partition_step(a, lo, lo + (hi - lo) / 2, hi);

		if (j == SORTED)
			break; /* three or fewer: sorted by the step */
		if (k <= j)
			hi = j;
		else
			lo = j + 1;
	}
	return a[k];
}

double exact_quantile_inplace(double *a, size_t n, double p)
{
	double h, frac, v, w;
	size_t lo;

	if (!n)
		return NAN;
	if (p < 0)
		p = 0;
	if (p > 1)
		p = 1;
	h = (double)(n - 1) * p;
	lo = (size_t)floor(h);
	if (lo >= n - 1)
		lo = n - 1;
	v = exact_select(a, n, lo);
	frac = h - (double)lo;
	if (frac <= 0 || lo == n - 1)
		return v;
	w = a[lo + 1];
	for (size_t i = lo + 2; i < n; i++)
		if (a[i] < w)
			w = a[i];
	if (w == v)
		return v;
	v = v + frac * (w - v);
	return v > w ? w : v;
}

/* ---- sign flip ---------------------------------------------------------- */

/* All 2^m sums of +-a[i]; bit i set means a[i] is negated. */
static void half_sums(const double *a, size_t m, double *out)
{
	for (size_t mask = 0; mask < ((size_t)1 << m); mask++) {
		double s = 0;

		for (size_t i = 0; i < m; i++)
			s += (mask >> i & 1) ? -a[i] : a[i];
		out[mask] = s;
	}
}

/* Number of elements of sorted s[0..n) that are >= v. */
static size_t count_ge(const double *s, size_t n, double v)
{
	size_t lo = 0, hi = n;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (s[mid] < v)
			lo = mid + 1;
		else
			hi = mid;
	}
	return n - lo;
}

double exact_signflip_p(const double *d, size_t n, int resamples, struct rng *rng,
			enum exact_method *method)
{
	double obs = 0, scale = 0, bound, *abs_d;
	double p;

	if (method)
		*method = n <= EXACT_SIGNFLIP_MAX_N ? EXACT_ENUMERATED : EXACT_MONTE_CARLO;
	if (!n)
		return 1;
	abs_d = xreallocarray(NULL, n, sizeof(*abs_d));
	for (size_t i = 0; i < n; i++) {
		obs += d[i];
		abs_d[i] = fabs(d[i]);
		scale += abs_d[i];
	}
	/* Patterns whose sum ties the observed one count as extreme. */
	bound = obs - 1e-9 * scale;

	if (n <= EXACT_SIGNFLIP_MAX_N) {
		/* Meet in the middle: sum = A[i] + B[j]. */
		size_t n1 = n / 2, n2 = n - n1;
		size_t na = (size_t)1 << n1, nb = (size_t)1 << n2;
		double *A = xreallocarray(NULL, na, sizeof(*A));
		double *B = xreallocarray(NULL, nb, sizeof(*B));
		uint64_t hits = 0;

		half_sums(abs_d, n1, A);
		half_sums(abs_d + n1, n2, B);
		qsort(B, nb, sizeof(*B), cmp_double);
		for (size_t i = 0; i < na; i++)
			hits += count_ge(B, nb, bound - A[i]);
		p = (double)hits / ldexp(1.0, (int)n);
		free(A);
		free(B);
	} else {
		uint64_t hits = 0;

		if (resamples < 1)
			resamples = 1;
		for (int b = 0; b < resamples; b++) {
			double s = 0;
			uint64_t bits = 0;

			for (size_t i = 0; i < n; i++) {
				if (!(i & 63))
					bits = rng_next(rng);
				s += (bits & 1) ? -abs_d[i] : abs_d[i];
				bits >>= 1;
			}
			if (s >= bound)
				hits++;
		}
		p = (double)(1 + hits) / (double)(resamples + 1);
	}
	free(abs_d);
	return p;
}

/* ---- signed rank -------------------------------------------------------- */

/*
 * The upper tail P(W+ >= s), s = 0 .. m(m+1)/2, of the signed-rank
 * statistic without ties, for m <= EXACT_SIGNED_RANK_MAX_N. The recurrence
 * costs O(m^3), milliseconds at m = 200, and a sequential compare or a
 * `kagari power` replay asks for the same few m (its looks) thousands of
 * times, so the last SR_CACHE tails are kept (at most 640 KB each). The
 * tail is summed from the top so that tiny p keep their precision.
 */
#define SR_CACHE 12
static struct {
	size_t m;
	double *sf;
} sr_cache[SR_CACHE];
static size_t sr_cache_next;

static const double *sr_null_sf(size_t m)
{
	size_t top = m * (m + 1) / 2, hi = 0;
	double *prob, *sf, acc = 0;

	for (size_t i = 0; i < SR_CACHE; i++)
		if (sr_cache[i].sf && sr_cache[i].m == m)
			return sr_cache[i].sf;
	prob = xcalloc(top + 1, sizeof(*prob));
	sf = xreallocarray(NULL, top + 1, sizeof(*sf));
	prob[0] = 1;
	for (size_t k = 1; k <= m; k++) {
		hi += k;
		for (size_t s = hi + 1; s-- > 0;)
			prob[s] = 0.5 * (prob[s] + (s >= k ? prob[s - k] : 0));
	}
	for (size_t s = top + 1; s-- > 0;) {
		acc += prob[s];
		sf[s] = acc > 1 ? 1 : acc;
	}
	free(prob);
	free(sr_cache[sr_cache_next].sf);
	sr_cache[sr_cache_next].m = m;
	sr_cache[sr_cache_next].sf = sf;
	sr_cache_next = (sr_cache_next + 1) % SR_CACHE;
	return sf;
}

static double normal_quantile(double p);

size_t exact_signed_rank_rank(size_t n, double q)
{
	size_t M = n * (n + 1) / 2, c = 0;

	if (!n)
		return 0;
	if (q <= 0)
		return 1;
	if (q >= 1)
		return M;
	if (n <= EXACT_SIGNED_RANK_MAX_N) {
		/* P(W+ <= c - 1) = P(W+ >= M - c + 1) by symmetry: the
		   largest c with that at most q. */
		const double *sf = sr_null_sf(n);

		while (c < M && sf[M - c] <= q)
			c++;
	} else {
		double nn = (double)n, mean = nn * (nn + 1) / 4;
		double sd = sqrt(nn * (nn + 1) * (2 * nn + 1) / 24);
		double x = mean + normal_quantile(q) * sd + 0.5;

		c = x < 1 ? 1 : (size_t)x;
		if (c > M)
			c = M;
	}
	return c ? c : 1;
}

/* The standard normal quantile (Acklam's rational approximation, relative
   error below 1.2e-9; the tails refined by one Halley step). */
static double normal_quantile(double p)
{
	static const double a[] = {-3.969683028665376e+01, 2.209460984245205e+02,
				   -2.759285104469687e+02, 1.383577518672690e+02,
				   -3.066479806614716e+01, 2.506628277459239e+00};
	static const double b[] = {-5.447609879822406e+01, 1.615858368580409e+02,
				   -1.556989798598866e+02, 6.680131188771972e+01,
				   -1.328068155288572e+01};
	static const double c[] = {-7.784894002430293e-03, -3.223964580411365e-01,
				   -2.400758277161838e+00, -2.549732539343734e+00,
				   4.374664141464968e+00,  2.938163982698783e+00};
	static const double d[] = {7.784695709041462e-03, 3.224671290700398e-01,
				   2.445134137142996e+00, 3.754408661907416e+00};
	double q, r, x;

	if (p <= 0)
		return -INFINITY;
	if (p >= 1)
		return INFINITY;
	if (p < 0.02425 || p > 1 - 0.02425) {
		q = sqrt(-2 * log(p < 0.5 ? p : 1 - p));
		x = (((((c[0] * q + c[1]) * q + c[2]) * q + c[3]) * q + c[4]) * q + c[5]) /
		    ((((d[0] * q + d[1]) * q + d[2]) * q + d[3]) * q + 1);
		if (p > 0.5)
			x = -x;
	} else {
		q = p - 0.5;
		r = q * q;
		x = (((((a[0] * r + a[1]) * r + a[2]) * r + a[3]) * r + a[4]) * r + a[5]) * q /
		    (((((b[0] * r + b[1]) * r + b[2]) * r + b[3]) * r + b[4]) * r + 1);
	}
	/* Halley: e = Phi(x) - p */
	double e = 0.5 * erfc(-x / sqrt(2.0)) - p;
	double u = e * sqrt(2 * M_PI) * exp(x * x / 2);
	return x - u / (1 + x * u / 2);
}

/*
 * The rank (1-based, 0 before the first) of the Walsh average at quantile q
 * of the signed-rank confidence distribution of n pairs; c is the rank of a
 * smaller q (or 0): q rises along the callers' loops, so the exact rank
 * only moves up from it.
 */
static size_t hl_quantile_rank(size_t n, double q, size_t c)
{
	size_t M = n * (n + 1) / 2;

	if (n <= EXACT_SIGNED_RANK_MAX_N) {
		const double *sf = sr_null_sf(n);

		while (c < M && sf[M - c] <= q)
			c++;
		return c;
	}
	double nn = (double)n;
	double x =
	    nn * (nn + 1) / 4 + normal_quantile(q) * sqrt(nn * (nn + 1) * (2 * nn + 1) / 24) + 0.5;
	return x < 1 ? 1 : x > (double)M ? M : (size_t)x;
}

void exact_hl_quantiles(const double *w, size_t n, size_t B, double *out)
{
	size_t c = 0;

	if (!n)
		return;
	for (size_t i = 0; i < B; i++) {
		double q = ((double)i + 0.5) / (double)B;

		c = hl_quantile_rank(n, q, c);
		out[i] = w[(c ? c : 1) - 1];
	}
}

double *exact_walsh_sorted(const double *d, size_t n, size_t *count)
{
	size_t m = n * (n + 1) / 2, k = 0;
	double *w = xreallocarray(NULL, m ? m : 1, sizeof(*w));

	for (size_t i = 0; i < n; i++)
		for (size_t j = i; j < n; j++)
			w[k++] = (d[i] + d[j]) / 2;
	qsort(w, m, sizeof(*w), cmp_double);
	*count = m;
	return w;
}

void exact_hl_interval(const double *w, size_t n, double confidence, double *lo, double *hi)
{
	size_t M = n * (n + 1) / 2, c;

	if (!n) {
		*lo = *hi = NAN;
		return;
	}
	c = exact_signed_rank_rank(n, (1 - confidence) / 2);
	if (c > (M + 1) / 2)
		c = (M + 1) / 2;
	*lo = w[c - 1];
	*hi = w[M - c];
}

static int cmp_abs_double(const void *pa, const void *pb)
{
	double x = fabs(*(const double *)pa), y = fabs(*(const double *)pb);

	return (x > y) - (x < y);
}

double exact_signed_rank_p(const double *d, size_t n, enum exact_method *method, double *min_p)
{
	double *a = xreallocarray(NULL, n + 1, sizeof(*a));
	unsigned *w2 = xreallocarray(NULL, n + 1, sizeof(*w2));
	size_t m = 0, total = 0, obs = 0;
	double tie_term = 0, p;

	/* Zeros carry no sign: dropped, as wilcox.test and SciPy's
	   zero_method='wilcox' do. */
	for (size_t i = 0; i < n; i++)
		if (d[i] != 0)
			a[m++] = d[i];
	if (method)
		*method = m <= EXACT_SIGNED_RANK_MAX_N ? EXACT_SR_EXACT : EXACT_SR_NORMAL;
	if (!m) {
		if (min_p)
			*min_p = 1;
		free(a);
		free(w2);
		return 1;
	}
	qsort(a, m, sizeof(*a), cmp_abs_double);
	/* Doubled midranks are whole numbers: ranks i+1 .. j share i+1+j. */
	for (size_t i = 0; i < m;) {
		size_t j = i + 1;

		while (j < m && fabs(a[j]) == fabs(a[i]))
			j++;
		for (size_t k = i; k < j; k++) {
			w2[k] = (unsigned)(i + 1 + j);
			total += w2[k];
			if (a[k] > 0)
				obs += w2[k];
		}
		if (j - i > 1)
			tie_term +=
			    (double)(j - i) * (double)(j - i) * (double)(j - i) - (double)(j - i);
		i = j;
	}
	if (m <= EXACT_SIGNED_RANK_MAX_N && tie_term == 0) {
		/* No ties (doubled ranks 2, 4, ..., 2m): the
		   null distribution depends on m alone and is cached. */
		const double *sf = sr_null_sf(m);

		p = sf[obs / 2];
		if (min_p)
			*min_p = sf[m * (m + 1) / 2];
	} else if (m <= EXACT_SIGNED_RANK_MAX_N) {
		/* prob[s]: P(doubled W+ == s) under random signs, built one
		   rank at a time; p = P(W+ >= observed), exact ties included. */
		double *prob = xreallocarray(NULL, total + 1, sizeof(*prob));
		size_t top = 0;

		memset(prob, 0, (total + 1) * sizeof(*prob));
		prob[0] = 1;
		for (size_t k = 0; k < m; k++) {
			top += w2[k];
			for (size_t s = top + 1; s-- > 0;)
				prob[s] = 0.5 * (prob[s] + (s >= w2[k] ? prob[s - w2[k]] : 0));
		}
		p = 0;
		for (size_t s = obs; s <= total; s++)
			p += prob[s];
		if (min_p)
			*min_p = prob[total];
		free(prob);
	} else {
		/* W+ (single ranks) has mean m(m+1)/4 and variance
		   m(m+1)(2m+1)/24 - tie_term/48. */
		double mm = (double)m, mean = mm * (mm + 1) / 4;
		double sd = sqrt(mm * (mm + 1) * (2 * mm + 1) / 24 - tie_term / 48);
		double wplus = (double)obs / 2;

		p = sd > 0 ? exact_normal_sf((wplus - mean - 0.5) / sd) : 1;
		if (min_p)
			*min_p =
			    sd > 0 ? exact_normal_sf(((double)total / 2 - mean - 0.5) / sd) : 1;
	}
	free(a);
	free(w2);
	return p > 1 ? 1 : p;
}

/* ---- Mann-Whitney ------------------------------------------------------- */

struct tagged {
	double v;
	int is_x;
};

static int cmp_tagged(const void *pa, const void *pb)
{
	const struct tagged *a = pa, *b = pb;

	return (a->v > b->v) - (a->v < b->v);
}

/*
 * U of x (midranks), the tie term sum(t^3 - t) and whether any tie exists.
 */
static double mw_rank_u(const double *x, size_t nx, const double *y, size_t ny, double *tie_term,
			int *any_tie)
{
	size_t n = nx + ny;
	struct tagged *all = xreallocarray(NULL, n, sizeof(*all));
	double rank_sum_x = 0, tt = 0;

	for (size_t i = 0; i < nx; i++)
		all[i] = (struct tagged){x[i], 1};
	for (size_t j = 0; j < ny; j++)
		all[nx + j] = (struct tagged){y[j], 0};
	qsort(all, n, sizeof(*all), cmp_tagged);
	*any_tie = 0;
	for (size_t i = 0; i < n;) {
		size_t j = i + 1, xs = 0;
		double midrank, t;

		while (j < n && all[j].v == all[i].v)
			j++;
		for (size_t k = i; k < j; k++)
			xs += (size_t)all[k].is_x;
		/* ranks i+1 .. j, average (i + 1 + j) / 2 */
		midrank = ((double)i + 1 + (double)j) / 2;
		rank_sum_x += midrank * (double)xs;
		t = (double)(j - i);
		if (j - i > 1) {
			*any_tie = 1;
			tt += t * t * t - t;
		}
		i = j;
	}
	free(all);
	*tie_term = tt;
	return rank_sum_x - (double)nx * ((double)nx + 1) / 2;
}

double exact_mann_whitney_u(const double *x, size_t nx, const double *y, size_t ny)
{
	double tt;
	int tie;

	if (!nx || !ny)
		return 0;
	return mw_rank_u(x, nx, y, ny, &tt, &tie);
}

/*
 * P(U >= u) under H0 for sizes m, n without ties. f(i, j, u), the number
 * of orderings of i x's and j y's with U = u, satisfies
 * f(i, j, u) = f(i - 1, j, u - j) + f(i, j - 1, u): the largest element is
 * either an x (beating all j y's) or a y. Only additions, so doubles keep
 * full relative precision even where counts exceed 2^53.
 */
static double mw_exact_sf(size_t m, size_t n, double u_obs)
{
	size_t stride = m * n + 1;
	double *prev = xcalloc((n + 1) * stride, sizeof(*prev));
	double *cur = xcalloc((n + 1) * stride, sizeof(*cur));
	double total = 0, tail = 0, *t;
	size_t u0;

	for (size_t j = 0; j <= n; j++)
		prev[j * stride] = 1; /* i = 0: only U = 0 */
	for (size_t i = 1; i <= m; i++) {
		cur[0] = 1; /* j = 0 */
		for (size_t j = 1; j <= n; j++) {
			double *c = cur + j * stride;
			const double *left = cur + (j - 1) * stride;
			const double *up = prev + j * stride;
			size_t len = i * j + 1;

			for (size_t u = 0; u < len; u++) {
				double a = 0, b = 0;

				if (u >= j && u - j <= (i - 1) * j)
					a = up[u - j];
				if (u <= i * (j - 1))
					b = left[u];
				c[u] = a + b;
			}
		}
		t = prev;
		prev = cur;
		cur = t;
	}
	u0 = (size_t)ceil(u_obs);
	for (size_t u = 0; u < stride; u++) {
		double f = prev[n * stride + u];

		total += f;
		if (u >= u0)
			tail += f;
	}
	free(prev);
	free(cur);
	return tail / total;
}

double exact_mann_whitney_p(const double *x, size_t nx, const double *y, size_t ny,
			    enum exact_method *method)
{
	double u, tt, mu, sigma2, z, nn;
	int tie;

	if (method)
		*method = EXACT_MW_NORMAL;
	if (!nx || !ny)
		return 1;
	u = mw_rank_u(x, nx, y, ny, &tt, &tie);
	if (!tie && nx * ny <= EXACT_MW_EXACT_MAX) {
		if (method)
			*method = EXACT_MW_EXACT;
		return mw_exact_sf(nx, ny, u);
	}
	nn = (double)(nx + ny);
	mu = (double)nx * (double)ny / 2;
	sigma2 = (double)nx * (double)ny / 12 * ((nn + 1) - (nn > 1 ? tt / (nn * (nn - 1)) : 0));
	if (!(sigma2 > 0))
		return 1; /* every value tied: no evidence of a shift */
	z = (u - mu - 0.5) / sqrt(sigma2);
	return exact_normal_sf(z);
}

/* ---- Hodges-Lehmann (at the end: the selection below) ------------------- */

/* ---- selection over the Walsh averages and the differences -------------- */

/*
 * The k-th smallest of a set of n(n+1)/2 (or nx * ny) values that are
 * never stored: a binary search on the value, over the doubles in their
 * order (the IEEE bit patterns, mapped so that integer order is numeric
 * order), with each step counting the members <= t in linear time over
 * the sorted data (two pointers; fl(a + b) and fl(a - b) are monotone in
 * each argument, so the pointers only move one way). The smallest t with
 * count(t) >= k + 1 is the k-th smallest member itself: at most 64 steps,
 * O(n) memory and O(n log n) time with the sort.
 */
static uint64_t key_of(double x)
{
	uint64_t u;
	memcpy(&u, &x, sizeof(u));
	return u >> 63 ? ~u : u | (UINT64_C(1) << 63);
}

static double double_of(uint64_t k)
{
	uint64_t u = k >> 63 ? k & ~(UINT64_C(1) << 63) : ~k;
	double x;
	memcpy(&x, &u, sizeof(x));
	return x;
}

/*
 * The two sets, each as "how many members are <= t" (linear: two pointers
 * over the sorted data) and "the members in (lo, hi]" (linear plus what
 * it hands out).
 */
struct pairset {
	const double *a, *b; /* Walsh: a only; differences: x = a, y = b */
	size_t na, nb;
	int walsh;
};

static size_t pairset_count(const struct pairset *p, double t)
{
	size_t count = 0;
	if (p->walsh) {
		/* for row i, members (a_i + a_j) / 2 with j in [i, j) are <= t */
		size_t j = p->na;
		for (size_t i = 0; i < p->na; i++) {
			while (j > i && (p->a[i] + p->a[j - 1]) / 2 > t)
				j--;
			if (j <= i)
				break; /* later rows start higher still */
			count += j - i;
		}
	} else {
		/* for y_i, x_0..x_{j-1} - y_i are <= t */
		size_t j = 0;
		for (size_t i = 0; i < p->nb; i++) {
			while (j < p->na && p->a[j] - p->b[i] <= t)
				j++;
			count += j;
		}
	}
	return count;
}

/* The members in (lo, hi] into out (room for all of them); how many. */
static size_t pairset_between(const struct pairset *p, double lo, double hi, double *out)
{
	size_t k = 0;
	if (p->walsh) {
		size_t jl = p->na, jh = p->na;
		for (size_t i = 0; i < p->na; i++) {
			while (jh > i && (p->a[i] + p->a[jh - 1]) / 2 > hi)
				jh--;
			while (jl > i && (p->a[i] + p->a[jl - 1]) / 2 > lo)
				jl--;
			size_t from = jl > i ? jl : i;
			for (size_t j = from; j < jh; j++)
				out[k++] = (p->a[i] + p->a[j]) / 2;
		}
	} else {
		size_t jl = 0, jh = 0;
		for (size_t i = 0; i < p->nb; i++) {
			while (jh < p->na && p->a[jh] - p->b[i] <= hi)
				jh++;
			while (jl < p->na && p->a[jl] - p->b[i] <= lo)
				jl++;
			for (size_t j = jl; j < jh; j++)
				out[k++] = p->a[j] - p->b[i];
		}
	}
	return k;
}

/*
 * The k-th smallest member (0-based). Invariant: count(lo) < k + 1 <=
 * count(hi). Each step guesses t by interpolating the count between lo
 * and hi (the count of a large set is a smooth curve: a few steps), and
 * bisects the doubles' order instead after a guess that did not at least
 * halve the members left (so at most about 2 x 64 steps in all). Once few
 * members are left between lo and hi (at most 4 per data value), they are
 * listed and the one wanted selected; lo and hi adjacent doubles: hi is it.
 */
/* How many members a selection lists rather than counts on: at most 4
   per data value (O(n) memory, as the counting's). */
static size_t pairset_list_max(const struct pairset *p)
{
	return 4 * (p->na + p->nb) + 64;
}

static double pairset_select_in(const struct pairset *p, size_t k, double lo, size_t clo, double hi,
				size_t chi, size_t list_max)
{
	size_t want = k + 1;
	int bisect = 0;
	for (;;) {
		uint64_t klo = key_of(lo), khi = key_of(hi);
		if (khi - klo <= 1)
			return hi;
		size_t left = chi - clo;
		if (left <= list_max) {
			double *buf = xreallocarray(NULL, left ? left : 1, sizeof(*buf));
			size_t got = pairset_between(p, lo, hi, buf);
			double v = exact_select(buf, got, want - clo - 1);
			free(buf);
			return v;
		}
		uint64_t kt = klo + (khi - klo) / 2;
		if (!bisect) {
			double frac = (double)(want - clo) / (double)left;
			double g = lo + frac * (hi - lo);
			uint64_t kg = key_of(g);
			if (g == g && kg > klo && kg < khi)
				kt = kg;
		}
		double t = double_of(kt);
		size_t c = pairset_count(p, t);
		if (c >= want) {
			hi = t;
			chi = c;
		} else {
			lo = t;
			clo = c;
		}
		bisect = !bisect && (chi - clo) * 2 > left;
	}
}

/* The whole set's bracket: its smallest member (lo, with count(lo)) and
   its largest (hi, every member). */
static void pairset_bounds(const struct pairset *p, double *lo, size_t *clo, double *hi,
			   size_t *chi)
{
	if (p->walsh) {
		*lo = p->a[0];
		*hi = p->a[p->na - 1];
	} else {
		*lo = p->a[0] - p->b[p->nb - 1];
		*hi = p->a[p->na - 1] - p->b[0];
	}
	*clo = pairset_count(p, *lo);
	*chi = pairset_count(p, *hi);
}

static double pairset_select(const struct pairset *p, size_t k)
{
	double lo, hi;
	size_t clo, chi;
	pairset_bounds(p, &lo, &clo, &hi, &chi);
	if (k + 1 <= clo)
		return lo; /* the smallest member itself */
	return pairset_select_in(p, k, lo, clo, hi, chi, pairset_list_max(p));
}

/*
 * The members of ranks k[0..nk) (0-based, ascending, distinct) into
 * out[0..nk), each the exact k-th smallest as pairset_select() gives it.
 * Divide and conquer: the middle rank is selected within the bracket
 * (lo, hi] its neighbours left (count(lo) < every k + 1 <= count(hi)),
 * and splits it for the ranks on either side, so each selection starts
 * from a bracket a fraction of the set wide instead of the whole set:
 * the 101 quantiles of 100,000 pairs (5e9 Walsh averages) take a few
 * counts each instead of dozens.
 */
/* How many members one listing for several ranks may hold: 16 per data
   value (the 101 or 2,000 quantiles near the middle share few listings;
   measured fastest on 100,000 pairs, bench/reanalyze.sh), at most 32 MiB
   beyond what a single selection lists. */
static size_t pairset_chunk_max(const struct pairset *p)
{
	size_t many = 16 * (p->na + p->nb) + 64, cap = (size_t)1 << 22;
	size_t one = pairset_list_max(p);
	return many < cap ? many : cap > one ? cap : one;
}

/*
 * The members of a[0..L) at the ascending, distinct indexes k[i] - base
 * (i < nk) into out: a multiple selection. Each step partitions around the
 * median of three as exact_select() does (a[0..j] <= pivot <= a[j+1..L))
 * and goes on with each side that holds an index, so a side without one
 * is never touched again: about L log2(nk) steps for nk indexes, where
 * one exact_select() per index would pass over the whole array each time.
 */
static void select_listed(double *a, size_t L, const size_t *k, size_t nk, size_t base, double *out)
{
	while (nk) {
		if (L <= 16) { /* few left: sorted in place */
			for (size_t i = 1; i < L; i++)
				for (size_t j = i; j > 0 && a[j] < a[j - 1]; j--)
					swap_d(&a[j], &a[j - 1]);
			for (size_t i = 0; i < nk; i++)
				out[i] = a[k[i] - base];
			return;
		}
		if (nk == 1) {
			out[0] = exact_select(a, L, k[0] - base);
			return;
		}
		/* L > 16, so never SORTED; a[0..j] <= pivot <= a[j+1..L),
		   0 <= j < L - 1 */
		size_t j = partition_step(a, 0, L / 2, L - 1);
		size_t nl = 0;
		while (nl < nk && k[nl] - base <= j)
			nl++;
		select_listed(a, j + 1, k, nl, base, out);
		a += j + 1;
		L -= j + 1;
		base += j + 1;
		k += nl;
		out += nl;
		nk -= nl;
	}
}

static void pairset_select_many(const struct pairset *p, const size_t *k, size_t nk, double lo,
				size_t clo, double hi, size_t chi, double *out)
{
	while (nk) {
		if (nk > 1 && chi - clo <= pairset_chunk_max(p)) {
			/* Few members left for several ranks (the quantiles
			   near the middle are close): one listing for all. */
			double *buf = xreallocarray(NULL, chi - clo, sizeof(*buf));
			size_t got = pairset_between(p, lo, hi, buf);
			select_listed(buf, got, k, nk, clo, out);
			free(buf);
			return;
		}
		size_t mid = nk / 2;
		double v = pairset_select_in(p, k[mid], lo, clo, hi, chi, pairset_list_max(p));
		size_t cv = pairset_count(p, v); /* >= k[mid] + 1 */
		out[mid] = v;
		pairset_select_many(p, k, mid, lo, clo, v, cv, out);
		/* Ranks above whose member is v itself (ties at v). */
		size_t r = mid + 1;
		while (r < nk && k[r] + 1 <= cv)
			out[r++] = v;
		k += r;
		out += r;
		nk -= r;
		lo = v;
		clo = cv;
	}
}

double exact_walsh_select(const double *a, size_t n, size_t k)
{
	struct pairset p = {a, NULL, n, 0, 1};
	return pairset_select(&p, k);
}

double exact_diff_select(const double *x, size_t nx, const double *y, size_t ny, size_t k)
{
	struct pairset p = {x, y, nx, ny, 0};
	return pairset_select(&p, k);
}

double *exact_sorted_copy(const double *d, size_t n)
{
	double *a = xreallocarray(NULL, n ? n : 1, sizeof(*a));
	if (n)
		memcpy(a, d, n * sizeof(*a));
	qsort(a, n, sizeof(*a), cmp_double);
	return a;
}

/* R type-7 median of M members from their two middle order statistics,
   as exact_quantile_inplace() computes it. */
static double median_of(double v, double w, size_t M)
{
	if (M % 2 || w == v)
		return v;
	return v + 0.5 * (w - v);
}

double exact_hl_paired(const double *d, size_t n)
{
	if (!n)
		return NAN;
	double *a = exact_sorted_copy(d, n);
	size_t M = n * (n + 1) / 2, k = (M - 1) / 2;
	double v = exact_walsh_select(a, n, k);
	double w = M % 2 ? v : exact_walsh_select(a, n, k + 1);
	free(a);
	return median_of(v, w, M);
}

double exact_hl_two_sample(const double *x, size_t nx, const double *y, size_t ny)
{
	if (!nx || !ny)
		return NAN;
	double *xs = exact_sorted_copy(x, nx), *ys = exact_sorted_copy(y, ny);
	size_t M = nx * ny, k = (M - 1) / 2;
	double v = exact_diff_select(xs, nx, ys, ny, k);
	double w = M % 2 ? v : exact_diff_select(xs, nx, ys, ny, k + 1);
	free(xs);
	free(ys);
	return median_of(v, w, M);
}

double exact_hl_paired_quadratic(const double *d, size_t n)
{
	size_t m = n * (n + 1) / 2, k = 0;
	double *w, v;

	if (!n)
		return NAN;
	w = xreallocarray(NULL, m, sizeof(*w));
	for (size_t i = 0; i < n; i++)
		for (size_t j = i; j < n; j++)
			w[k++] = (d[i] + d[j]) / 2;
	v = exact_quantile_inplace(w, m, 0.5);
	free(w);
	return v;
}

double exact_hl_two_sample_quadratic(const double *x, size_t nx, const double *y, size_t ny)
{
	double *w, v;
	size_t k = 0;

	if (!nx || !ny)
		return NAN;
	w = xreallocarray(NULL, nx * ny, sizeof(*w));
	for (size_t i = 0; i < ny; i++)
		for (size_t j = 0; j < nx; j++)
			w[k++] = x[j] - y[i];
	v = exact_quantile_inplace(w, nx * ny, 0.5);
	free(w);
	return v;
}

void exact_hl_interval_sorted(const double *a, size_t n, double confidence, double *lo, double *hi)
{
	size_t M = n * (n + 1) / 2, c;

	if (!n) {
		*lo = *hi = NAN;
		return;
	}
	c = exact_signed_rank_rank(n, (1 - confidence) / 2);
	if (c > (M + 1) / 2)
		c = (M + 1) / 2;
	*lo = exact_walsh_select(a, n, c - 1);
	*hi = exact_walsh_select(a, n, M - c);
}

/* Up to this many Walsh averages (16 MiB), the quantiles read them from a
   sorted copy: a bound that does not grow with n, and B selections of a
   small set would cost more than one sort. */
#define HL_QUANTILES_STORED_MAX ((size_t)1 << 21)

void exact_hl_quantiles_sorted(const double *a, size_t n, size_t B, double *out)
{
	size_t M = n * (n + 1) / 2, c = 0, last = 0;

	if (!n || !B)
		return;
	if (M <= HL_QUANTILES_STORED_MAX) {
		size_t count;
		double *w = exact_walsh_sorted(a, n, &count);
		exact_hl_quantiles(w, n, B, out);
		free(w);
		return;
	}
	/* The distinct ranks (neighbouring quantiles often share one), all
	   selected in one pass of pairset_select_many(). */
	size_t *rank = xreallocarray(NULL, B, sizeof(*rank)), nr = 0;
	double *val = xreallocarray(NULL, B, sizeof(*val));
	for (size_t i = 0; i < B; i++) {
		double q = ((double)i + 0.5) / (double)B;

		c = hl_quantile_rank(n, q, c);
		size_t r = c ? c : 1;
		if (!nr || r != last)
			rank[nr++] = r - 1;
		last = r;
	}
	struct pairset p = {a, NULL, n, 0, 1};
	double lo, hi;
	size_t clo, chi, first = 0;
	pairset_bounds(&p, &lo, &clo, &hi, &chi);
	while (first < nr && rank[first] + 1 <= clo)
		val[first++] = lo; /* the smallest member itself */
	pairset_select_many(&p, rank + first, nr - first, lo, clo, hi, chi, val + first);
	last = 0;
	for (size_t i = 0, j = 0; i < B; i++) {
		double q = ((double)i + 0.5) / (double)B;

		last = hl_quantile_rank(n, q, last);
		size_t r = last ? last : 1;
		while (rank[j] != r - 1)
			j++;
		out[i] = val[j];
	}
	free(rank);
	free(val);
}
