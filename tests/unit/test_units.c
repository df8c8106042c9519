/* Tests for suite/units: durations, sizes, percentages, rates, budgets. */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <stdlib.h>
#include <string.h>

#include "base/sbuf.h"
#include "suite/units.h"

static void dur_ok(const char *s, int64_t want)
{
	struct sbuf err = SBUF_INIT;
	int64_t ns = -1;
	if (units_parse_duration(s, &ns, &err))
		fail_msg("'%s': %s", s, err.buf);
	if (ns != want)
		fail_msg("'%s': got %lld, want %lld", s, (long long)ns, (long long)want);
	sbuf_release(&err);
}

static void dur_bad(const char *s, const char *frag)
{
	struct sbuf err = SBUF_INIT;
	int64_t ns = 77;
	if (!units_parse_duration(s, &ns, &err))
		fail_msg("'%s' accepted", s);
	assert_true(ns == 77);
	if (!strstr(err.buf, frag))
		fail_msg("'%s': '%s' lacks '%s'", s, err.buf, frag);
	sbuf_release(&err);
}

static void test_durations(void **state)
{
	(void)state;
	dur_ok("1ns", 1);
	dur_ok("1.5s", 1500000000);
	dur_ok("300ms", 300000000);
	dur_ok("250us", 250000);
	dur_ok("250\xc2\xb5s", 250000);
	dur_ok("250\xce\xbcs", 250000);
	dur_ok("2m", INT64_C(120000000000));
	dur_ok("1h30m", INT64_C(5400000000000));
	dur_ok("24h", INT64_C(86400000000000));
	dur_ok("0s", 0);
	dur_ok("0.5us", 500);
	dur_ok("1.000000001s", 1000000001);
	dur_ok("0.5m", INT64_C(30000000000));
	/* himorime's grammar: digits, an optional fraction, the unit right
	 * after; whole nanoseconds only. */
	dur_bad(".5s", "not a duration");
	dur_bad("1.s", "not a duration");
	dur_bad("+1s", "not a duration");
	dur_bad("1 s", "write the unit right after the number");
	dur_bad("0.9ns", "a fraction of a nanosecond");
	dur_bad("0.0000000001s", "a fraction of a nanosecond");
	dur_bad("1.5ns", "a fraction of a nanosecond");
	dur_bad("5", "needs a unit");
	dur_bad("0", "needs a unit");
	dur_bad("", "empty duration");
	dur_bad("24h1ns", "longer than 24h");
	dur_bad("100000h", "longer than 24h");
	dur_bad("-1s", "negative");
	dur_bad("5S", "did you mean 's'?");
	dur_bad("5MS", "did you mean 'ms'?");
	dur_bad("5sec", "unknown duration unit 'sec'");
	dur_bad("64MiB", "is a size");
	dur_bad("s", "not a duration");
	dur_bad("1.2.3s", "not a duration");
	dur_bad("1s5", "a number needs a unit");
}

static void size_ok(const char *s, int64_t want)
{
	struct sbuf err = SBUF_INIT;
	int64_t b = -1;
	if (units_parse_size(s, &b, &err))
		fail_msg("'%s': %s", s, err.buf);
	if (b != want)
		fail_msg("'%s': got %lld", s, (long long)b);
	sbuf_release(&err);
}

static void size_bad(const char *s, const char *frag)
{
	struct sbuf err = SBUF_INIT;
	int64_t b;
	if (!units_parse_size(s, &b, &err))
		fail_msg("'%s' accepted", s);
	if (!strstr(err.buf, frag))
		fail_msg("'%s': '%s' lacks '%s'", s, err.buf, frag);
	sbuf_release(&err);
}

static void test_sizes(void **state)
{
	(void)state;
	size_ok("0B", 0);
	size_ok("512B", 512);
	size_ok("1KB", 1000);
	size_ok("1.5 MB", 1500000);
	size_ok("2GB", INT64_C(2000000000));
	size_ok("1TB", INT64_C(1000000000000));
	size_ok("1KiB", 1024);
	size_ok("64MiB", 64 * 1024 * 1024);
	size_ok("1GiB", INT64_C(1073741824));
	size_ok("1TiB", INT64_C(1099511627776));
	size_ok("0.5KiB", 512);
	size_bad("64", "needs a unit");
	size_bad("64mib", "did you mean 'MiB'?");
	size_bad("64kb", "did you mean 'KB'?");
	size_ok("64 bytes", 64); /* himorime spells B also "bytes" */
	size_bad("64 Bytes", "did you mean");
	size_bad("-1MB", "negative");
	size_bad("5ms", "is a duration");
	size_bad("99999999TiB", "too large");
	size_bad("", "empty size");
}

static void test_percent_number_rate(void **state)
{
	(void)state;
	struct sbuf err = SBUF_INIT;
	double v;
	assert_int_equal(units_parse_percent("10", &v, &err), 0);
	assert_true(v == 10);
	assert_int_equal(units_parse_percent("10%", &v, &err), 0);
	assert_true(v == 10);
	assert_int_equal(units_parse_percent("2.5 %", &v, &err), 0);
	assert_true(v == 2.5);
	assert_int_equal(units_parse_percent("1000", &v, &err), 0);
	assert_int_equal(units_parse_percent("0", &v, &err), -1);
	assert_non_null(strstr(err.buf, "out of range (0, 1000]"));
	assert_int_equal(units_parse_percent("1000.1%", &v, &err), -1);
	assert_int_equal(units_parse_percent("-5", &v, &err), -1);
	assert_int_equal(units_parse_percent("ten", &v, &err), -1);
	assert_int_equal(units_parse_percent("10%%", &v, &err), -1);

	assert_int_equal(units_parse_number("1e6", &v, &err), 0);
	assert_true(v == 1e6);
	assert_int_equal(units_parse_number("-2.5", &v, &err), 0);
	assert_true(v == -2.5);
	assert_int_equal(units_parse_number("nan", &v, &err), -1);
	assert_int_equal(units_parse_number("0x10", &v, &err), -1);
	assert_int_equal(units_parse_number("", &v, &err), -1);

	char *unit = NULL;
	assert_int_equal(units_parse_rate("100 MB/s", &v, &unit, &err), 0);
	assert_true(v == 1e8);
	assert_string_equal(unit, "bytes");
	free(unit);
	assert_int_equal(units_parse_rate("1.5MiB/s", &v, &unit, &err), 0);
	assert_true(v == 1.5 * 1024 * 1024);
	free(unit);
	assert_int_equal(units_parse_rate("5000 ops/s", &v, &unit, &err), 0);
	assert_true(v == 5000);
	assert_string_equal(unit, "ops");
	free(unit);
	unit = NULL;
	assert_int_equal(units_parse_rate("100 MB", &v, &unit, &err), -1);
	assert_int_equal(units_parse_rate("100 MB/min", &v, &unit, &err), -1);
	assert_int_equal(units_parse_rate("100/s", &v, &unit, &err), -1);
	assert_int_equal(units_parse_rate("fast ops/s", &v, &unit, &err), -1);
	assert_int_equal(units_parse_rate("1 -op/s", &v, &unit, &err), -1);
	assert_int_equal(units_parse_rate("1 _op/s", &v, &unit, &err), -1);
	/* himorime's unit pattern [A-Za-z][A-Za-z0-9_-]* */
	assert_int_equal(units_parse_rate("1 req-s/s", &v, &unit, &err), 0);
	assert_string_equal(unit, "req-s");
	free(unit);
	unit = NULL;
	assert_null(unit);
	sbuf_release(&err);
}

static void test_aggregations(void **state)
{
	(void)state;
	struct sbuf err = SBUF_INIT;
	enum aggregation a;
	double p = 0;
	assert_int_equal(units_parse_aggregation("min", &a, &p, &err), 0);
	assert_int_equal(a, AGG_MIN);
	assert_int_equal(units_parse_aggregation("median", &a, &p, &err), 0);
	assert_int_equal(a, AGG_MEDIAN);
	assert_int_equal(units_parse_aggregation("p1", &a, &p, &err), 0);
	assert_int_equal(a, AGG_PERCENTILE);
	assert_true(p == 1);
	assert_int_equal(units_parse_aggregation("p99.9", &a, &p, &err), 0);
	assert_true(p > 99.89 && p < 99.91);
	assert_int_equal(units_parse_aggregation("p100", &a, &p, &err), -1);
	assert_int_equal(units_parse_aggregation("p0", &a, &p, &err), -1);
	assert_int_equal(units_parse_aggregation("p", &a, &p, &err), -1);
	assert_int_equal(units_parse_aggregation("P95", &a, &p, &err), -1);
	assert_int_equal(units_parse_aggregation("avg", &a, &p, &err), -1);
	assert_non_null(strstr(err.buf, "unknown aggregation 'avg'"));
	sbuf_release(&err);
}

static void budget_ok(enum metric_id m, const char *agg, const char *text,
		      enum budget_op op, double limit)
{
	struct sbuf err = SBUF_INIT;
	struct budget b;
	if (units_parse_budget(m, agg, text, &b, &err))
		fail_msg("'%s': %s", text, err.buf);
	assert_int_equal(b.op, op);
	if (b.limit != limit)
		fail_msg("'%s': limit %g, want %g", text, b.limit, limit);
	assert_string_equal(b.limit_text, text);
	assert_string_equal(b.aggregation_name, agg);
	assert_int_equal(b.metric, m);
	free(b.aggregation_name);
	free(b.limit_text);
	free(b.unit);
	sbuf_release(&err);
}

static void budget_bad(enum metric_id m, const char *text, const char *frag)
{
	struct sbuf err = SBUF_INIT;
	struct budget b;
	if (!units_parse_budget(m, "max", text, &b, &err))
		fail_msg("'%s' accepted", text);
	if (!strstr(err.buf, frag))
		fail_msg("'%s': '%s' lacks '%s'", text, err.buf, frag);
	sbuf_release(&err);
}

static void test_budgets(void **state)
{
	(void)state;
	budget_ok(METRIC_LATENCY, "p95", "<= 300ms", BUDGET_LE, 3e8);
	budget_ok(METRIC_LATENCY, "max", "<1s", BUDGET_LT, 1e9);
	budget_ok(METRIC_CPU_USER, "mean", "<= 20ms", BUDGET_LE, 2e7);
	budget_ok(METRIC_PEAK_RSS, "max", "<= 64MiB", BUDGET_LE, 64.0 * 1024 * 1024);
	budget_ok(METRIC_ALLOC_BYTES, "median", "< 1KB", BUDGET_LT, 1000);
	budget_ok(METRIC_PEAK_HEAP, "max", "<= 1MiB", BUDGET_LE, 1048576);
	budget_ok(METRIC_INSTRUCTIONS, "median", "<= 1e9", BUDGET_LE, 1e9);
	budget_ok(METRIC_ALLOCS, "max", "<= 100", BUDGET_LE, 100);
	budget_ok(METRIC_THROUGHPUT, "min", ">= 100 MB/s", BUDGET_GE, 1e8);
	budget_ok(METRIC_THROUGHPUT, "min", "> 5000", BUDGET_GT, 5000);
	budget_ok(METRIC_CPU_UTILIZATION, "mean", ">= 0.5", BUDGET_GE, 0.5);
	budget_ok(METRIC_CPU_UTILIZATION, "mean", "<= 90%", BUDGET_LE, 0.9);
	budget_ok(METRIC_IPC, "mean", ">= 1.5", BUDGET_GE, 1.5);

	budget_bad(METRIC_LATENCY, "<= 64MiB", "latency expects a duration");
	budget_bad(METRIC_LATENCY, "<= 300", "needs a unit");
	budget_bad(METRIC_LATENCY, ">= 1s", "lower is better for latency, so use '<' or '<='");
	budget_bad(METRIC_LATENCY, "300ms", "needs a comparison");
	budget_bad(METRIC_LATENCY, "== 300ms", "needs a comparison");
	budget_bad(METRIC_LATENCY, "<=", "no value");
	budget_bad(METRIC_PEAK_RSS, "<= 5ms", "peak_rss expects a size");
	budget_bad(METRIC_PEAK_RSS, "<= 64", "needs a unit");
	budget_bad(METRIC_INSTRUCTIONS, "<= 5ms", "is a duration");
	budget_bad(METRIC_INSTRUCTIONS, "<= 1MiB", "is a size");
	budget_bad(METRIC_INSTRUCTIONS, "<= -1", "negative");
	budget_bad(METRIC_THROUGHPUT, "<= 5 MB/s", "higher is better for throughput");
	budget_bad(METRIC_THROUGHPUT, ">= 5 MB", "throughput expects a rate");
	budget_bad(METRIC_CPU_UTILIZATION, ">= 2000%", "out of range");

	struct sbuf err = SBUF_INIT;
	struct budget b;
	assert_int_equal(units_parse_budget(METRIC_LATENCY, "p101", "<= 1s", &b, &err), -1);
	assert_non_null(strstr(err.buf, "percentile 'p101' is out of range"));
	sbuf_release(&err);
}

static void test_metric_values(void **state)
{
	(void)state;
	struct sbuf err = SBUF_INIT;
	double v;
	assert_int_equal(units_parse_metric_value(METRIC_LATENCY, "2ms", &v, &err), 0);
	assert_true(v == 2e6);
	assert_int_equal(units_parse_metric_value(METRIC_PEAK_RSS, "1MiB", &v, &err), 0);
	assert_true(v == 1048576);
	assert_int_equal(units_parse_metric_value(METRIC_CYCLES, "1000", &v, &err), 0);
	assert_true(v == 1000);
	assert_int_equal(units_parse_metric_value(METRIC_THROUGHPUT, "5 MB/s", &v, &err), 0);
	assert_true(v == 5e6);
	assert_int_equal(units_parse_metric_value(METRIC_LATENCY, "2", &v, &err), -1);
	assert_int_equal(units_parse_metric_value(METRIC_PEAK_RSS, "2", &v, &err), -1);
	sbuf_release(&err);
}

/*
 * Every hint a message of suite/units gives ("e.g. 'VALUE'", "such as
 * 'VALUE'") is a value that parses (issue 34: `timeout: 30 sec` hinted
 * '30sec', which was then rejected). The inputs below reach each message
 * that carries a hint; each hint is parsed by the parser that printed it.
 */
enum hint_kind { H_DURATION, H_SIZE, H_PERCENT, H_RATE, H_BUDGET, H_VALUE };

/* Parse hint as kind would (budgets: a comparison first, else a value of
   metric m). 0 when it parses. */
static int hint_parses(enum hint_kind kind, enum metric_id m, const char *hint,
		       struct sbuf *why)
{
	int64_t i64;
	double d;
	char *unit = NULL;
	struct budget b;
	int rc = -1;
	switch (kind) {
	case H_DURATION:
		return units_parse_duration(hint, &i64, why);
	case H_SIZE:
		return units_parse_size(hint, &i64, why);
	case H_PERCENT:
		return units_parse_percent(hint, &d, why);
	case H_RATE:
		rc = units_parse_rate(hint, &d, &unit, why);
		free(unit);
		return rc;
	case H_BUDGET:
	case H_VALUE:
		if (hint[0] != '<' && hint[0] != '>')
			return units_parse_metric_value(m, hint, &d, why);
		rc = units_parse_budget(m, "max", hint, &b, why);
		if (!rc) {
			free(b.aggregation_name);
			free(b.limit_text);
			free(b.unit);
		}
		return rc;
	}
	return -1;
}

/* Each quoted hint after "e.g." or "such as" in msg, up to the '(', ')' or
   ';' that ends the example, parsed as kind; returns how many. */
static int check_hints(enum hint_kind kind, enum metric_id m, const char *input,
		       const char *msg)
{
	int found = 0;
	for (const char *p = msg; (p = strstr(p, "'")) != NULL;) {
		/* Is this quote inside an example? Look back for its opener. */
		const char *eg = NULL;
		for (const char *q = p; q > msg && !strchr("();", q[-1]); q--) {
			if (q - msg >= 4 && !strncmp(q - 4, "e.g.", 4))
				eg = q;
			if (q - msg >= 7 && !strncmp(q - 7, "such as", 7))
				eg = q;
			if (eg)
				break;
		}
		const char *end = strchr(p + 1, '\'');
		if (!end)
			break;
		if (eg) {
			size_t len = (size_t)(end - p - 1);
			char *hint = malloc(len + 1);
			assert_non_null(hint);
			memcpy(hint, p + 1, len);
			hint[len] = '\0';
			struct sbuf why = SBUF_INIT;
			if (hint_parses(kind, m, hint, &why))
				fail_msg("'%s': the hint '%s' in \"%s\" does not parse: %s",
					 input, hint, msg, why.buf);
			sbuf_release(&why);
			free(hint);
			found++;
		}
		p = end + 1;
	}
	return found;
}

/* Parse input as kind (for metric m), which must fail; check its hints. */
static int hints_of(enum hint_kind kind, enum metric_id m, const char *input)
{
	struct sbuf err = SBUF_INIT;
	int64_t i64;
	double d;
	char *unit = NULL;
	struct budget b;
	int rc = -1;
	switch (kind) {
	case H_DURATION:
		rc = units_parse_duration(input, &i64, &err);
		break;
	case H_SIZE:
		rc = units_parse_size(input, &i64, &err);
		break;
	case H_PERCENT:
		rc = units_parse_percent(input, &d, &err);
		break;
	case H_RATE:
		rc = units_parse_rate(input, &d, &unit, &err);
		free(unit);
		break;
	case H_BUDGET:
		rc = units_parse_budget(m, "max", input, &b, &err);
		break;
	case H_VALUE:
		rc = units_parse_metric_value(m, input, &d, &err);
		break;
	}
	if (!rc)
		fail_msg("'%s' accepted", input);
	int n = check_hints(kind, m, input, err.buf);
	sbuf_release(&err);
	return n;
}

static void test_hints_parse(void **state)
{
	(void)state;
	static const char *const durations[] = {
		"", "30 sec", "30 Sec", "30 SEC", "1 s", "30 secs", "30 seconds",
		"2 minutes", "1.5 hours", "0.5 sec", "250 msec", "30 fortnights",
		"30", "100000", "0.0000000001", "5", ".5s", "1.5 ns", "100000 s",
		"100000 sec", "30sec", "5S", "abc", "1s5", "64MiB", "1.2.3s",
	};
	static const char *const sizes[] = {
		"", "64", "0.5", "99999999999999999999", "abc", "64 mib",
		"5ms", "64 Bytes", "+5", "64 bits",
	};
	static const char *const percents[] = { "ten", "", "0", "10%%", "-5" };
	static const char *const rates[] = { "fast", "100 MB", "100/s", "1 _op/s" };
	static const char *const budgets[] = {
		"300ms", "300", "abc", "64MiB", "<= 300", "<= 30 sec", "0.9",
		"100 MB/s", "1e9", "<= abc", "30 sec", "",
	};
	static const char *const values[] = { "2", "abc", "30 sec", "64", "-1", "5ms", "1MiB" };
	int found = 0;
	for (size_t i = 0; i < sizeof(durations) / sizeof(*durations); i++)
		found += hints_of(H_DURATION, METRIC_LATENCY, durations[i]);
	for (size_t i = 0; i < sizeof(sizes) / sizeof(*sizes); i++)
		found += hints_of(H_SIZE, METRIC_LATENCY, sizes[i]);
	for (size_t i = 0; i < sizeof(percents) / sizeof(*percents); i++)
		found += hints_of(H_PERCENT, METRIC_LATENCY, percents[i]);
	for (size_t i = 0; i < sizeof(rates) / sizeof(*rates); i++)
		found += hints_of(H_RATE, METRIC_LATENCY, rates[i]);
	for (int m = 0; m < METRIC__COUNT; m++) {
		for (size_t i = 0; i < sizeof(budgets) / sizeof(*budgets); i++) {
			struct sbuf err = SBUF_INIT;
			struct budget b;
			if (units_parse_budget((enum metric_id)m, "max", budgets[i], &b, &err) == 0) {
				free(b.aggregation_name); /* a valid budget for this metric */
				free(b.limit_text);
				free(b.unit);
			} else {
				found += check_hints(H_BUDGET, (enum metric_id)m, budgets[i], err.buf);
			}
			sbuf_release(&err);
		}
		for (size_t i = 0; i < sizeof(values) / sizeof(*values); i++) {
			struct sbuf err = SBUF_INIT;
			double d;
			if (units_parse_metric_value((enum metric_id)m, values[i], &d, &err))
				found += check_hints(H_VALUE, (enum metric_id)m, values[i], err.buf);
			sbuf_release(&err);
		}
	}
	/* The test reads hints, not nothing: each parser's messages gave some. */
	if (found < 100)
		fail_msg("only %d hints found", found);

	/* The reported case and its neighbours, word for word. */
	dur_bad("30 sec", "write e.g. '30s'");
	dur_bad("30 Sec", "write e.g. '30s'");
	dur_bad("2 minutes", "write e.g. '2m'");
	dur_bad("1 s", "right after the number, e.g. '1s'");
	dur_bad("30sec", "unknown duration unit 'sec' in '30sec'");
	dur_bad("30sec", "did you mean 's'?");
	dur_bad("100000", "e.g. '100000ms'"); /* 100000s is longer than 24h */
	dur_bad("0.0000000001", "needs a unit (");
	dur_bad("100000 sec", "write a number and a unit");
	size_bad("99999999999999999999", "needs a unit (");
	budget_bad(METRIC_LATENCY, "abc", "write e.g. '<= 300ms'");
	budget_bad(METRIC_LATENCY, "300ms", "write e.g. '<= 300ms'");
	budget_bad(METRIC_THROUGHPUT, "abc", "write e.g. '>= 100 MB/s'");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_durations),
		cmocka_unit_test(test_sizes),
		cmocka_unit_test(test_percent_number_rate),
		cmocka_unit_test(test_aggregations),
		cmocka_unit_test(test_budgets),
		cmocka_unit_test(test_metric_values),
		cmocka_unit_test(test_hints_parse),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
