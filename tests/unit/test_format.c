/*
 * Tests for analyze/format: how values of each unit read in messages and
 * reports, including the unit changes that rounding causes.
 */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <math.h>
#include <string.h>

#include "analyze/format.h"

struct value_case {
	enum metric_id metric;
	double v;
	const char *want;
};

#define KiB 1024.0
#define MiB (1024.0 * 1024)
#define GiB (1024.0 * 1024 * 1024)

static void test_values(void **state)
{
	const struct value_case cases[] = {
		/* ns: 4 significant digits, base unit without decimals */
		{ METRIC_LATENCY, 0, "0 ns" },
		{ METRIC_LATENCY, 812, "812 ns" },
		{ METRIC_LATENCY, 812.4, "812 ns" },
		{ METRIC_LATENCY, 999.4, "999 ns" },
		{ METRIC_LATENCY, 999.6, "1.000 us" },
		{ METRIC_LATENCY, 1000, "1.000 us" },
		{ METRIC_LATENCY, 12340, "12.34 us" },
		{ METRIC_LATENCY, 999960, "1.000 ms" },
		{ METRIC_LATENCY, 312.4e6, "312.4 ms" },
		{ METRIC_LATENCY, 2.345e9, "2.345 s" },
		{ METRIC_LATENCY, 9.9996e9, "10.00 s" },
		{ METRIC_LATENCY, 1500e9, "1500 s" },
		{ METRIC_CPU_TOTAL, -12.4e6, "-12.40 ms" },
		{ METRIC_CPU_TOTAL, -0.4, "0 ns" },
		/* bytes: 3 significant digits, powers of 1024 */
		{ METRIC_PEAK_RSS, 512, "512 B" },
		{ METRIC_PEAK_RSS, 1023, "1023 B" },
		{ METRIC_PEAK_RSS, 1024, "1.00 KiB" },
		{ METRIC_PEAK_RSS, 1.5 * KiB, "1.50 KiB" },
		{ METRIC_PEAK_RSS, 500 * KiB, "500 KiB" },
		{ METRIC_PEAK_RSS, 1048575, "1.00 MiB" },
		{ METRIC_PEAK_RSS, 64 * MiB, "64.0 MiB" },
		{ METRIC_PEAK_RSS, 1.25 * GiB, "1.25 GiB" },
		{ METRIC_ALLOC_BYTES, 3 * GiB * 1024, "3.00 TiB" },
		/* counts: plain integers, a fractional mean gets a decimal */
		{ METRIC_ALLOCS, 0, "0" },
		{ METRIC_INSTRUCTIONS, 1234567, "1234567" },
		{ METRIC_INSTRUCTIONS, 1234567890123.0, "1234567890123" },
		{ METRIC_ALLOCS, 1234.5, "1234.5" },
		/* ratios and rates */
		{ METRIC_IPC, 0.8734, "0.873" },
		{ METRIC_CPU_UTILIZATION, 1, "1.000" },
		{ METRIC_IPC, -0.0, "0.000" },
		{ METRIC_THROUGHPUT, 1234.5, "1234.5 /s" },
		{ METRIC_THROUGHPUT, 0.25, "0.2 /s" },
		/* not numbers */
		{ METRIC_LATENCY, NAN, "n/a" },
		{ METRIC_PEAK_RSS, INFINITY, "inf" },
		{ METRIC_IPC, -INFINITY, "-inf" },
	};

	(void)state;
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		struct sbuf sb = SBUF_INIT;
		units_format_value(&sb, cases[i].metric, cases[i].v);
		if (strcmp(sb.buf, cases[i].want))
			fail_msg("%.17g as %s: got '%s', want '%s'", cases[i].v,
				 metric_get(cases[i].metric)->name, sb.buf,
				 cases[i].want);
		sbuf_release(&sb);
	}
}

static void test_by_unit(void **state)
{
	struct sbuf sb = SBUF_INIT;

	(void)state;
	units_format_unit(&sb, UNIT_NS, 1, 2.5e6);
	sbuf_addch(&sb, '|');
	units_format_unit(&sb, UNIT_COUNT, 1, 7);
	sbuf_addch(&sb, '|');
	units_format_unit(&sb, UNIT_COUNT, 0, 7.25);
	/* Appends, never resets. */
	assert_string_equal(sb.buf, "2.500 ms|7|7.2");
	sbuf_release(&sb);
}

static void test_delta(void **state)
{
	static const struct {
		enum metric_id m;
		double delta, ref;
		const char *want;
	} cases[] = {
		{ METRIC_LATENCY, 12.4e6, 312.4e6, "12.4 ms" },
		{ METRIC_LATENCY, -12.4e6, 312.4e6, "-12.4 ms" },
		{ METRIC_LATENCY, 0.345e9, 2.345e9, "0.345 s" },
		/* Would print as 0.0 ms: formatted on its own instead. */
		{ METRIC_LATENCY, 40e3, 300.04e6, "40.00 us" },
		{ METRIC_PEAK_RSS, 6 * MiB, 70 * MiB, "6.0 MiB" },
		{ METRIC_PEAK_RSS, 100, 70 * MiB, "100 B" },
		{ METRIC_LATENCY, 5, 0, "5 ns" },
		{ METRIC_THROUGHPUT, 50, 950, "50.0 /s" },
		{ METRIC_ALLOCS, 3, 3, "3" },
		{ METRIC_IPC, 0.05, 0.95, "0.050" },
	};

	(void)state;
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		struct sbuf sb = SBUF_INIT;
		units_format_delta(&sb, cases[i].m, cases[i].delta,
				   cases[i].ref);
		if (strcmp(sb.buf, cases[i].want))
			fail_msg("delta %g (ref %g): got '%s', want '%s'",
				 cases[i].delta, cases[i].ref, sb.buf,
				 cases[i].want);
		sbuf_release(&sb);
	}
}

static void test_percent(void **state)
{
	static const struct {
		double pct;
		const char *want;
	} cases[] = {
		{ 4.1333, "+4.1%" },  { -5, "-5.0%" },	  { 0, "0.0%" },
		{ -0.0, "0.0%" },     { 0.042, "+0.042%" }, { -0.0133, "-0.013%" },
		{ 0.06, "+0.1%" },    { 250, "+250.0%" }, { NAN, "n/a" },
	};

	(void)state;
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		struct sbuf sb = SBUF_INIT;
		units_format_percent(&sb, cases[i].pct);
		if (strcmp(sb.buf, cases[i].want))
			fail_msg("percent %g: got '%s', want '%s'",
				 cases[i].pct, sb.buf, cases[i].want);
		sbuf_release(&sb);
	}
}

static void test_change(void **state)
{
	struct sbuf sb = SBUF_INIT;
	(void)state;
	units_format_change(&sb, 4.1, -0.3, 8.72);
	assert_string_equal(sb.buf, "+4.1% [-0.3%, +8.7%]");
	sbuf_reset(&sb);
	units_format_change(&sb, NAN, NAN, 0);
	assert_string_equal(sb.buf, "n/a [n/a, 0.0%]");
	/* no interval at all: the change alone, never "[n/a, n/a]" */
	sbuf_reset(&sb);
	units_format_change(&sb, -2.5, NAN, NAN);
	assert_string_equal(sb.buf, "-2.5%");
	sbuf_release(&sb);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_values),
		cmocka_unit_test(test_by_unit),
		cmocka_unit_test(test_delta),
		cmocka_unit_test(test_percent),
		cmocka_unit_test(test_change),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
