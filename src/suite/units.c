/*
 * suite/units: numbers with units as a suite writes them (units.h):
 * durations, sizes, percentages, rates, aggregations and budgets, each into
 * the metric's base unit, with messages that name the expected form.
 */
#include "suite/units.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "base/sbuf.h"
#include "base/xalloc.h"

/*
 * Length of the number at the start of s: digits with an optional fraction
 * ("1", "1.5", ".5", "1."), and an exponent when allow_exp. 0 if none.
 */
static size_t scan_number(const char *s, int allow_exp)
{
	size_t i = 0, digits = 0;
	while (s[i] >= '0' && s[i] <= '9')
		i++, digits++;
	if (s[i] == '.') {
		i++;
		while (s[i] >= '0' && s[i] <= '9')
			i++, digits++;
	}
	if (!digits)
		return 0;
	if (allow_exp && (s[i] == 'e' || s[i] == 'E')) {
		size_t j = i + 1;
		if (s[j] == '+' || s[j] == '-')
			j++;
		if (s[j] >= '0' && s[j] <= '9') {
			while (s[j] >= '0' && s[j] <= '9')
				j++;
			i = j;
		}
	}
	return i;
}

static long double number_value(const char *s, size_t len)
{
	char *tmp = xstrndup(s, len);
	long double v = strtold(tmp, NULL);
	free(tmp);
	return v;
}

static const char *skip_space(const char *s)
{
	while (*s == ' ' || *s == '\t')
		s++;
	return s;
}

/* s without surrounding blanks, as a new string. */
static char *trimmed(const char *s)
{
	s = skip_space(s);
	size_t n = strlen(s);
	while (n && (s[n - 1] == ' ' || s[n - 1] == '\t'))
		n--;
	return xstrndup(s, n);
}

int units_parse_number(const char *s, double *out, struct sbuf *err)
{
	char *t = trimmed(s);
	const char *p = t;
	int neg = 0;
	if (*p == '-' || *p == '+')
		neg = *p++ == '-';
	size_t n = scan_number(p, 1);
	if (!n || p[n]) {
		sbuf_addf(err, "'%s' is not a number", s);
		free(t);
		return -1;
	}
	long double v = number_value(p, n);
	free(t);
	if (!isfinite((double)v)) {
		sbuf_addf(err, "'%s' is out of range", s);
		return -1;
	}
	*out = (double)(neg ? -v : v);
	return 0;
}

struct unit_def {
	const char *name;
	long double factor;
};

static const struct unit_def duration_units[] = {
    {"ns", 1.0L},	 {"us", 1e3L}, {"\xc2\xb5s", 1e3L}, /* U+00B5 MICRO SIGN */
    {"\xce\xbcs", 1e3L},				    /* U+03BC GREEK SMALL LETTER MU */
    {"ms", 1e6L},	 {"s", 1e9L},  {"m", 60e9L},	    {"h", 3600e9L}, {NULL, 0},
};

static const struct unit_def size_units[] = {
    {"B", 1.0L},
    {"bytes", 1.0L},
    {"KB", 1e3L},
    {"MB", 1e6L},
    {"GB", 1e9L},
    {"TB", 1e12L},
    {"KiB", 1024.0L},
    {"MiB", 1024.0L * 1024},
    {"GiB", 1024.0L * 1024 * 1024},
    {"TiB", 1024.0L * 1024 * 1024 * 1024},
    {NULL, 0},
};

static const struct unit_def *find_unit(const struct unit_def *tab, const char *name, size_t len)
{
	for (; tab->name; tab++)
		if (strlen(tab->name) == len && !memcmp(tab->name, name, len))
			return tab;
	return NULL;
}

static const struct unit_def *find_unit_nocase(const struct unit_def *tab, const char *name,
					       size_t len)
{
	for (; tab->name; tab++)
		if (strlen(tab->name) == len && !strncasecmp(tab->name, name, len))
			return tab;
	return NULL;
}

/*
 * Words people write for a duration unit (`timeout: 30 sec`), and the unit
 * they mean: only for the hint, never accepted as a unit (himorime's
 * grammar has the short units only).
 */
static const struct {
	const char *word, *unit;
} duration_words[] = {
    {"sec", "s"},   {"secs", "s"},   {"second", "s"},	    {"seconds", "s"},
    {"msec", "ms"}, {"msecs", "ms"}, {"millisecond", "ms"}, {"milliseconds", "ms"},
    {"usec", "us"}, {"usecs", "us"}, {"microsecond", "us"}, {"microseconds", "us"},
    {"nsec", "ns"}, {"nsecs", "ns"}, {"nanosecond", "ns"},  {"nanoseconds", "ns"},
    {"min", "m"},   {"mins", "m"},   {"minute", "m"},	    {"minutes", "m"},
    {"hr", "h"},    {"hrs", "h"},    {"hour", "h"},	    {"hours", "h"},
};

/* The unit a duration word (any case) or a mis-cased unit stands for. */
static const char *duration_unit_meant(const char *u, size_t ulen)
{
	for (size_t i = 0; i < sizeof(duration_words) / sizeof(duration_words[0]); i++)
		if (strlen(duration_words[i].word) == ulen &&
		    !strncasecmp(duration_words[i].word, u, ulen))
			return duration_words[i].unit;
	const struct unit_def *near = find_unit_nocase(duration_units, u, ulen);
	return near ? near->name : NULL;
}

/* "unknown unit 'x' in 'y' (...)" with a hint when one fits: the unit of
   another case, or for durations the unit a word such as 'sec' means. */
static void unknown_unit(struct sbuf *err, const struct unit_def *tab, const char *what,
			 const char *u, size_t ulen, const char *s, const char *list)
{
	const struct unit_def *near = find_unit_nocase(tab, u, ulen);
	const char *meant = tab == duration_units ? duration_unit_meant(u, ulen) : NULL;
	sbuf_addf(err, "unknown %s unit '%.*s' in '%s' (use %s", what, (int)ulen, u, s, list);
	if (near)
		sbuf_addf(err, "; units are case-sensitive, did you mean '%s'?", near->name);
	else if (meant)
		sbuf_addf(err, "; did you mean '%s'?", meant);
	sbuf_addch(err, ')');
}

static size_t unit_len(const char *p)
{
	/* A unit runs to the next digit, '.', blank, '/' or the end. */
	size_t n = 0;
	while (p[n] && !(p[n] >= '0' && p[n] <= '9') && p[n] != '.' && p[n] != ' ' &&
	       p[n] != '\t' && p[n] != '/')
		n++;
	return n;
}

/*
 * 1 if the decimal number num (digits, maybe a fraction) times factor
 * (ns per unit: 1, 1e3, ..., 60e9, 3600e9) is a whole number, decided on
 * the digits rather than on a rounded float.
 */
static int whole_nanoseconds(const char *num, size_t n, long double factor)
{
	const char *dot = memchr(num, '.', n);
	if (!dot)
		return 1;
	size_t frac = n - (size_t)(dot - num) - 1;
	while (frac && dot[frac] == '0')
		frac--; /* trailing zeros do not count */
	/* factor = mult * 10^exp with mult in {1, 6, 36}. */
	int exp = 0;
	long double f = factor;
	while (f >= 10 && fmodl(f, 10) == 0)
		f /= 10, exp++;
	unsigned mult = (unsigned)f;
	if (frac <= (size_t)exp)
		return 1;
	size_t k = frac - (size_t)exp; /* need (digits * mult) % 10^k == 0 */
	if (k > 3)
		return 0; /* the last fraction digit is not 0: impossible for mult <= 36 */
	unsigned long last = 0, mod = 1;
	for (size_t i = 0; i < k; i++)
		mod *= 10;
	for (size_t i = frac - k + 1; i <= frac; i++)
		last = last * 10 + (unsigned long)(dot[i] - '0');
	return (last * mult) % mod == 0;
}

#define DURATION_UNITS "ns, us, \xc2\xb5s, ms, s, m, h"
#define SIZE_UNITS "B, KB, MB, GB, TB, KiB, MiB, GiB, TiB"

static int looks_like_size(const char *s);

/*
 * Hints: a message's "e.g. 'VALUE'" is always a value that parses, so a
 * user who copies it is not told off a second time (issue 34). Each
 * candidate is checked with the parser it is meant for before it is
 * printed; none fitting, the message names the units instead.
 */
static int duration_valid(const char *s)
{
	int64_t ns;
	struct sbuf tmp = SBUF_INIT;
	int ok = units_parse_duration(s, &ns, &tmp) == 0;
	sbuf_release(&tmp);
	return ok;
}

/*
 * The number num[0..n) with the first of units[] (NULL-ended) that makes a
 * valid duration, into hint; 0, or -1 when none does.
 */
static int duration_hint(struct sbuf *hint, const char *num, size_t n, const char *const *units)
{
	for (; *units; units++) {
		sbuf_reset(hint);
		sbuf_addf(hint, "%.*s%s", (int)n, num, *units);
		if (duration_valid(hint->buf))
			return 0;
	}
	sbuf_reset(hint);
	return -1;
}

/* "'30 sec' is not a duration: ..." — the unit was apart from its number. */
static void unit_apart(struct sbuf *err, const char *s, const char *num, size_t n, const char *u,
		       size_t ulen)
{
	struct sbuf hint = SBUF_INIT;
	char *unit = xstrndup(u, ulen);
	const char *meant = duration_unit_meant(u, ulen);
	const char *as_written[] = {unit, NULL}, *as_meant[] = {meant, NULL};
	if (!duration_hint(&hint, num, n, as_written))
		sbuf_addf(
		    err, "'%s' is not a duration: write the unit right after the number, e.g. '%s'",
		    s, hint.buf);
	else if (meant && !duration_hint(&hint, num, n, as_meant))
		sbuf_addf(err,
			  "'%s' is not a duration: write e.g. '%s' (the unit '%s' right after the "
			  "number)",
			  s, hint.buf, meant);
	else
		sbuf_addf(err,
			  "'%s' is not a duration: write a number and a unit (%s) right after it",
			  s, DURATION_UNITS);
	free(unit);
	sbuf_release(&hint);
}

/* "duration '30' needs a unit", with a unit that makes it valid if any. */
static void duration_needs_unit(struct sbuf *err, const char *s, const char *t)
{
	static const char *const units[] = {"s", "ms", "us", "ns", "m", "h", NULL};
	struct sbuf hint = SBUF_INIT;
	if (!duration_hint(&hint, t, strlen(t), units))
		sbuf_addf(err, "duration '%s' needs a unit (%s), e.g. '%s'", s, DURATION_UNITS,
			  hint.buf);
	else
		sbuf_addf(err, "duration '%s' needs a unit (%s)", s, DURATION_UNITS);
	sbuf_release(&hint);
}

int units_parse_duration(const char *s, int64_t *ns, struct sbuf *err)
{
	char *t = trimmed(s);
	const char *p = t;
	int rc = -1;
	long double total = 0;

	if (!*p) {
		sbuf_addf(err, "empty duration (write e.g. '2s' or '300ms')");
		goto out;
	}
	if (*p == '-') {
		sbuf_addf(err, "duration '%s' is negative", s);
		goto out;
	}
	do {
		size_t n = scan_number(p, 0);
		if (!n || *p == '.' || p[n - 1] == '.') {
			sbuf_addf(err,
				  "'%s' is not a duration (write e.g. '2s', '1.5s' or '300ms')", s);
			goto out;
		}
		long double v = number_value(p, n);
		const char *num = p;
		p += n;
		const char *u = skip_space(p);
		if (u != p && unit_len(u)) {
			unit_apart(err, s, num, n, u, unit_len(u));
			goto out;
		}
		size_t ulen = unit_len(u);
		if (!ulen) {
			if (!*u && total == 0 && p == t + strlen(t))
				duration_needs_unit(err, s, t);
			else
				sbuf_addf(err, "'%s' is not a duration: a number needs a unit (%s)",
					  s, DURATION_UNITS);
			goto out;
		}
		const struct unit_def *d = find_unit(duration_units, u, ulen);
		if (!d) {
			if (looks_like_size(t))
				sbuf_addf(err, "'%s' is a size, expected a duration (%s)", s,
					  DURATION_UNITS);
			else
				unknown_unit(err, duration_units, "duration", u, ulen, s,
					     DURATION_UNITS);
			goto out;
		}
		if (!whole_nanoseconds(num, n, d->factor)) {
			sbuf_addf(err,
				  "duration '%s' is a fraction of a nanosecond (the smallest step "
				  "is 1ns)",
				  s);
			goto out;
		}
		total += v * d->factor;
		p = u + ulen;
		if (total > (long double)UNITS_MAX_DURATION_NS)
			break;
	} while (*p);
	if (total > (long double)UNITS_MAX_DURATION_NS) {
		sbuf_addf(err, "duration '%s' is longer than 24h", s);
		goto out;
	}
	*ns = (int64_t)llroundl(total);
	rc = 0;
out:
	free(t);
	return rc;
}

/* Does s parse as "<number> <size unit>"? (used for better messages) */
static int looks_like_size(const char *s)
{
	const char *p = skip_space(s);
	size_t n = scan_number(p, 0);
	if (!n)
		return 0;
	p = skip_space(p + n);
	size_t ulen = unit_len(p);
	return ulen && !p[ulen] && find_unit(size_units, p, ulen);
}

static int looks_like_duration(const char *s)
{
	int64_t ns;
	struct sbuf tmp = SBUF_INIT;
	const char *p = skip_space(s);
	int ok = scan_number(p, 0) && strpbrk(p, "nsmhu\xc2\xce") &&
		 units_parse_duration(s, &ns, &tmp) == 0;
	sbuf_release(&tmp);
	return ok;
}

/* "size '64' needs a unit", with a unit that makes it valid if any. */
static void size_needs_unit(struct sbuf *err, const char *s, const char *t)
{
	static const char *const units[] = {"MiB", "KiB", "B", NULL};
	struct sbuf hint = SBUF_INIT, tmp = SBUF_INIT;
	int64_t b;
	for (const char *const *u = units; *u; u++) {
		sbuf_reset(&hint);
		sbuf_addf(&hint, "%s%s", t, *u);
		if (units_parse_size(hint.buf, &b, &tmp) == 0)
			break;
		sbuf_reset(&hint);
	}
	if (hint.len)
		sbuf_addf(err, "size '%s' needs a unit (%s), e.g. '%s'", s, SIZE_UNITS, hint.buf);
	else
		sbuf_addf(err, "size '%s' needs a unit (%s)", s, SIZE_UNITS);
	sbuf_release(&hint);
	sbuf_release(&tmp);
}

int units_parse_size(const char *s, int64_t *bytes, struct sbuf *err)
{
	char *t = trimmed(s);
	const char *p = t;
	int rc = -1;

	if (!*p) {
		sbuf_addf(err, "empty size (write e.g. '64MiB')");
		goto out;
	}
	if (*p == '-') {
		sbuf_addf(err, "size '%s' is negative", s);
		goto out;
	}
	if (*p == '+')
		p++;
	size_t n = scan_number(p, 0);
	if (!n) {
		sbuf_addf(err, "'%s' is not a size (write e.g. '64MiB' or '1.5 GB')", s);
		goto out;
	}
	long double v = number_value(p, n);
	const char *u = skip_space(p + n);
	size_t ulen = unit_len(u);
	if (!ulen && !*u) {
		size_needs_unit(err, s, t);
		goto out;
	}
	const struct unit_def *d = ulen ? find_unit(size_units, u, ulen) : NULL;
	if (!d || u[ulen]) {
		if (looks_like_duration(t))
			sbuf_addf(err, "'%s' is a duration, expected a size (%s)", s, SIZE_UNITS);
		else if (!ulen || u[ulen])
			sbuf_addf(err, "'%s' is not a size (write e.g. '64MiB' or '1.5 GB')", s);
		else
			unknown_unit(err, size_units, "size", u, ulen, s, SIZE_UNITS);
		goto out;
	}
	long double b = v * d->factor;
	if (b > (long double)(INT64_C(1) << 62)) {
		sbuf_addf(err, "size '%s' is too large", s);
		goto out;
	}
	*bytes = (int64_t)llroundl(b);
	rc = 0;
out:
	free(t);
	return rc;
}

/* "10" or "10%" into 10.0 when it lies in [lo, hi] (lo_open: (lo, hi]). */
static int percent_in(const char *s, double lo, int lo_open, double hi, double *pct,
		      struct sbuf *err)
{
	char *t = trimmed(s);
	size_t len = strlen(t);
	int rc = -1;
	if (len && t[len - 1] == '%') {
		t[--len] = '\0';
		while (len && (t[len - 1] == ' ' || t[len - 1] == '\t'))
			t[--len] = '\0';
	}
	const char *p = t;
	int neg = 0;
	if (*p == '-' || *p == '+')
		neg = *p++ == '-';
	size_t n = scan_number(p, 0);
	if (!n || p[n]) {
		sbuf_addf(err, "'%s' is not a percentage (write e.g. '10' or '10%%')", s);
		goto out;
	}
	double v = (double)number_value(p, n);
	if (neg)
		v = -v;
	if (!(lo_open ? v > lo : v >= lo) || !(v <= hi)) {
		sbuf_addf(err, "percentage '%s' is out of range %c%g, %g]", s, lo_open ? '(' : '[',
			  lo, hi);
		goto out;
	}
	*pct = v;
	rc = 0;
out:
	free(t);
	return rc;
}

int units_parse_percent(const char *s, double *pct, struct sbuf *err)
{
	return percent_in(s, 0, 1, 1000, pct, err);
}

int units_parse_tolerance(const char *s, double *pct, struct sbuf *err)
{
	return percent_in(s, SETTINGS_MIN_MAX_PERCENT, 0, SETTINGS_MAX_MAX_PERCENT, pct, err);
}

int units_parse_rate(const char *s, double *per_second, char **unit, struct sbuf *err)
{
	char *t = trimmed(s);
	const char *p = t;
	int rc = -1;
	size_t n = scan_number(p, 1);
	if (!n) {
		sbuf_addf(err, "'%s' is not a rate (write '<n> <unit>/s', e.g. '100 MB/s')", s);
		goto out;
	}
	long double v = number_value(p, n);
	const char *u = skip_space(p + n);
	const char *slash = strchr(u, '/');
	if (!slash || strcmp(slash, "/s") || slash == u) {
		sbuf_addf(err, "'%s' is not a rate (write '<n> <unit>/s', e.g. '100 MB/s')", s);
		goto out;
	}
	size_t ulen = (size_t)(slash - u);
	const struct unit_def *d = find_unit(size_units, u, ulen);
	if (d)
		v *= d->factor;
	if (!isfinite((double)v)) {
		sbuf_addf(err, "rate '%s' is out of range", s);
		goto out;
	}
	if (d) {
		*per_second = (double)v;
		*unit = xstrdup("bytes");
		rc = 0;
		goto out;
	}
	for (size_t i = 0; i < ulen; i++) {
		char c = u[i];
		/* himorime's work unit: [A-Za-z][A-Za-z0-9_-]* */
		if (!((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') ||
		      (i && ((c >= '0' && c <= '9') || c == '_' || c == '-')))) {
			sbuf_addf(err,
				  "'%s' has an invalid unit '%.*s' (a size unit, or a name that "
				  "starts with a letter, e.g. '5000 ops/s')",
				  s, (int)ulen, u);
			goto out;
		}
	}
	*per_second = (double)v;
	*unit = xstrndup(u, ulen);
	rc = 0;
out:
	free(t);
	return rc;
}

int units_parse_aggregation(const char *s, enum aggregation *agg, double *percentile,
			    struct sbuf *err)
{
	static const struct {
		const char *name;
		enum aggregation agg;
	} names[] = {
	    {"min", AGG_MIN},
	    {"max", AGG_MAX},
	    {"mean", AGG_MEAN},
	    {"median", AGG_MEDIAN},
	};
	for (size_t i = 0; i < sizeof(names) / sizeof(names[0]); i++)
		if (!strcmp(s, names[i].name)) {
			*agg = names[i].agg;
			return 0;
		}
	if (s[0] == 'p') {
		size_t n = scan_number(s + 1, 0);
		if (n && !s[1 + n] && s[1] != '.') {
			double v = (double)number_value(s + 1, n);
			if (v > 0 && v < 100) {
				*agg = AGG_PERCENTILE;
				*percentile = v;
				return 0;
			}
			sbuf_addf(err, "percentile '%s' is out of range (p1 .. p99.9)", s);
			return -1;
		}
	}
	sbuf_addf(err,
		  "unknown aggregation '%s' (use min, max, mean, median or a percentile such as "
		  "p95, p99.9)",
		  s);
	return -1;
}

/* A value of metric m's unit that parses (the hints' fallback). */
static const char *unit_example(enum metric_id m)
{
	switch (metric_get(m)->unit) {
	case UNIT_NS:
		return "300ms";
	case UNIT_BYTES:
		return "64MiB";
	case UNIT_COUNT:
		return "1000000";
	case UNIT_RATIO:
		return m == METRIC_CPU_UTILIZATION ? "0.9" : "1.5";
	case UNIT_RATE:
		return "100 MB/s";
	}
	return "1";
}

static const char *unit_expectation(enum metric_id m)
{
	switch (metric_get(m)->unit) {
	case UNIT_NS:
		return "a duration such as '300ms'";
	case UNIT_BYTES:
		return "a size such as '64MiB'";
	case UNIT_COUNT:
		return "a plain number such as '1000000'";
	case UNIT_RATIO:
		if (m == METRIC_CPU_UTILIZATION)
			return "a ratio such as '0.9' or a percentage such as '90%'";
		return "a plain number such as '1.5'";
	case UNIT_RATE:
		return "a rate such as '100 MB/s' or a plain number";
	}
	return "a value";
}

/* Parse s in the metric's unit; *unit set for rates. */
static int parse_in_unit(enum metric_id m, const char *s, double *out, char **unit,
			 struct sbuf *err)
{
	const struct metric_info *mi = metric_get(m);
	struct sbuf inner = SBUF_INIT;
	int rc = -1;
	switch (mi->unit) {
	case UNIT_NS: {
		int64_t ns;
		if (looks_like_size(s)) {
			sbuf_addf(&inner, "'%s' is a size", s);
			break;
		}
		if (units_parse_duration(s, &ns, &inner) == 0) {
			*out = (double)ns;
			rc = 0;
		}
		break;
	}
	case UNIT_BYTES: {
		int64_t b;
		if (units_parse_size(s, &b, &inner) == 0) {
			*out = (double)b;
			rc = 0;
		}
		break;
	}
	case UNIT_COUNT:
	case UNIT_RATIO: {
		char *t = trimmed(s);
		size_t len = strlen(t);
		if (m == METRIC_CPU_UTILIZATION && len && t[len - 1] == '%') {
			double pct;
			if (units_parse_percent(t, &pct, &inner) == 0) {
				*out = pct / 100.0;
				rc = 0;
			}
		} else if (looks_like_size(t)) {
			sbuf_addf(&inner, "'%s' is a size", s);
		} else if (looks_like_duration(t)) {
			sbuf_addf(&inner, "'%s' is a duration", s);
		} else if (units_parse_number(t, out, &inner) == 0) {
			if (*out < 0) {
				sbuf_reset(&inner);
				sbuf_addf(&inner, "'%s' is negative", s);
			} else {
				rc = 0;
			}
		}
		free(t);
		break;
	}
	case UNIT_RATE: {
		struct sbuf tmp = SBUF_INIT;
		if (units_parse_number(s, out, &tmp) == 0 && *out >= 0) {
			rc = 0;
			if (unit)
				*unit = NULL;
		} else {
			char *u = NULL;
			if (units_parse_rate(s, out, &u, &inner) == 0) {
				rc = 0;
				if (unit)
					*unit = u;
				else
					free(u);
			}
		}
		sbuf_release(&tmp);
		break;
	}
	}
	if (rc)
		sbuf_addf(err, "%s expects %s (%s)", mi->name, unit_expectation(m), inner.buf);
	sbuf_release(&inner);
	return rc;
}

int units_parse_metric_value(enum metric_id metric, const char *s, double *out, struct sbuf *err)
{
	double v;
	/* parse_in_unit() may write a rejected value (e.g. a negative count). */
	if (parse_in_unit(metric, s, &v, NULL, err))
		return -1;
	*out = v;
	return 0;
}

/*
 * "budget '300ms' needs a comparison: write e.g. '<= 300ms'": the value as
 * written when the budget with the comparison parses, else an example of
 * the metric's unit.
 */
static void budget_needs_comparison(struct sbuf *err, enum metric_id metric, const char *text,
				    const char *value)
{
	const char *op = metric_get(metric)->better == BETTER_HIGHER ? ">=" : "<=";
	struct sbuf hint = SBUF_INIT, tmp = SBUF_INIT;
	struct budget b;
	sbuf_addf(&hint, "%s %s", op, value);
	if (units_parse_budget(metric, "max", hint.buf, &b, &tmp) == 0) {
		free(b.aggregation_name);
		free(b.limit_text);
		free(b.unit);
	} else {
		sbuf_reset(&hint);
		sbuf_addf(&hint, "%s %s", op, unit_example(metric));
	}
	sbuf_addf(err, "budget '%s' needs a comparison: write e.g. '%s'", text, hint.buf);
	sbuf_release(&hint);
	sbuf_release(&tmp);
}

int units_parse_budget(enum metric_id metric, const char *aggregation, const char *text,
		       struct budget *out, struct sbuf *err)
{
	const struct metric_info *mi = metric_get(metric);
	enum aggregation agg;
	double pct = 0;
	if (units_parse_aggregation(aggregation, &agg, &pct, err))
		return -1;

	const char *p = skip_space(text);
	enum budget_op op;
	if (!strncmp(p, "<=", 2))
		op = BUDGET_LE, p += 2;
	else if (!strncmp(p, ">=", 2))
		op = BUDGET_GE, p += 2;
	else if (*p == '<')
		op = BUDGET_LT, p++;
	else if (*p == '>')
		op = BUDGET_GT, p++;
	else {
		budget_needs_comparison(err, metric, text, p);
		return -1;
	}
	int lower = op == BUDGET_LT || op == BUDGET_LE;
	if (mi->better == BETTER_LOWER && !lower) {
		sbuf_addf(err, "budget '%s': lower is better for %s, so use '<' or '<='", text,
			  mi->name);
		return -1;
	}
	if (mi->better == BETTER_HIGHER && lower) {
		sbuf_addf(err, "budget '%s': higher is better for %s, so use '>' or '>='", text,
			  mi->name);
		return -1;
	}
	p = skip_space(p);
	if (!*p) {
		sbuf_addf(err, "budget '%s' has no value after the comparison", text);
		return -1;
	}
	double limit;
	char *unit = NULL;
	struct sbuf inner = SBUF_INIT;
	if (parse_in_unit(metric, p, &limit, &unit, &inner)) {
		sbuf_addf(err, "budget '%s': %s", text, inner.buf);
		sbuf_release(&inner);
		return -1;
	}
	sbuf_release(&inner);
	if (!(limit > 0)) {
		sbuf_addf(err, "budget '%s': the limit must be greater than zero", text);
		free(unit);
		return -1;
	}
	memset(out, 0, sizeof(*out));
	out->metric = metric;
	out->aggregation = agg;
	out->percentile = pct;
	out->aggregation_name = xstrdup(aggregation);
	out->op = op;
	out->limit = limit;
	out->limit_text = xstrdup(text);
	out->unit = unit;
	return 0;
}
