/*
 * fuzz/fuzz_units: libFuzzer target for the value parsers of suite/units.h
 * (durations, sizes, percentages, numbers, rates, aggregations, budgets and
 * metric values).
 *
 * Input layout: byte 0 picks the parser, byte 1 the metric (budgets and
 * metric values); the rest is the text. For budgets the text is
 * "AGGREGATION\nBUDGET". Text stops at the first NUL, as a C string would.
 *
 * Invariants checked besides memory safety (abort() on violation):
 *   - success: the result lies in the documented range (duration 0..24h,
 *     size 0..2^62, percentage (0, 1000], finite numbers, a rate with a
 *     non-empty unit, a budget whose operator matches its metric's
 *     direction and whose percentile lies in (0, 100)), and no message;
 *   - failure: exactly the documented contract: a non-empty one-line reason
 *     and the output left untouched (a sentinel is checked);
 *   - round trip: a parsed duration re-parses from "<ns>ns" to the same
 *     value, a size from "<bytes>B", a percentage from "%.17g".
 */
#include <inttypes.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/sbuf.h"
#include "model/metric.h"
#include "suite/model.h"
#include "suite/units.h"

#define SENTINEL_I INT64_C(0x5a5a5a5a5a5a5a5a)
#define SENTINEL_D (-123456.75)

static void units_fail(const char *what, const char *input,
		       const struct sbuf *err)
{
	fprintf(stderr, "fuzz_units invariant violated: %s\ninput: '%s'\n", what,
		input);
	if (err && err->len)
		fprintf(stderr, "message: %s\n", err->buf);
	abort();
}

static void check_reason(int rc, const char *in, const struct sbuf *err)
{
	if (rc == 0) {
		if (err->len)
			units_fail("success with a message", in, err);
		return;
	}
	if (rc != -1)
		units_fail("return code other than 0 or -1", in, err);
	if (!err->len)
		units_fail("failure without a reason", in, err);
	/* The reason may quote the input; otherwise it is one line. */
	if (!strchr(in, '\n') && strchr(err->buf, '\n'))
		units_fail("a reason with a newline", in, err);
}

static void fuzz_duration(const char *s)
{
	struct sbuf err = SBUF_INIT;
	int64_t ns = SENTINEL_I;
	int rc = units_parse_duration(s, &ns, &err);
	check_reason(rc, s, &err);
	if (rc) {
		if (ns != SENTINEL_I)
			units_fail("duration: output changed on failure", s, &err);
	} else {
		if (ns < 0 || ns > UNITS_MAX_DURATION_NS)
			units_fail("duration out of range", s, NULL);
		char buf[64];
		int64_t again = SENTINEL_I;
		snprintf(buf, sizeof(buf), "%" PRId64 "ns", ns);
		sbuf_reset(&err);
		if (units_parse_duration(buf, &again, &err) || again != ns)
			units_fail("duration does not round-trip through ns", s, &err);
	}
	sbuf_release(&err);
}

static void fuzz_size(const char *s)
{
	struct sbuf err = SBUF_INIT;
	int64_t b = SENTINEL_I;
	int rc = units_parse_size(s, &b, &err);
	check_reason(rc, s, &err);
	if (rc) {
		if (b != SENTINEL_I)
			units_fail("size: output changed on failure", s, &err);
	} else {
		if (b < 0 || b > (INT64_C(1) << 62))
			units_fail("size out of range", s, NULL);
		char buf[64];
		int64_t again = SENTINEL_I;
		snprintf(buf, sizeof(buf), "%" PRId64 "B", b);
		sbuf_reset(&err);
		if (units_parse_size(buf, &again, &err) || again != b)
			units_fail("size does not round-trip through B", s, &err);
	}
	sbuf_release(&err);
}

static void fuzz_percent(const char *s)
{
	struct sbuf err = SBUF_INIT;
	double p = SENTINEL_D;
	int rc = units_parse_percent(s, &p, &err);
	check_reason(rc, s, &err);
	if (rc) {
		if (p != SENTINEL_D)
			units_fail("percent: output changed on failure", s, &err);
	} else {
		if (!(p > 0 && p <= 1000))
			units_fail("percent out of (0, 1000]", s, NULL);
		char buf[64];
		double again = SENTINEL_D;
		snprintf(buf, sizeof(buf), "%.17g", p);
		sbuf_reset(&err);
		if (units_parse_percent(buf, &again, &err) || again != p)
			units_fail("percent does not round-trip", s, &err);
	}
	sbuf_release(&err);
}

static void fuzz_number(const char *s)
{
	struct sbuf err = SBUF_INIT;
	double v = SENTINEL_D;
	int rc = units_parse_number(s, &v, &err);
	check_reason(rc, s, &err);
	if (rc ? v != SENTINEL_D : !isfinite(v))
		units_fail(rc ? "number: output changed on failure" : "number not finite", s,
		     &err);
	sbuf_release(&err);
}

static void fuzz_rate(const char *s)
{
	struct sbuf err = SBUF_INIT;
	double v = SENTINEL_D;
	char *unit = (char *)"sentinel";
	int rc = units_parse_rate(s, &v, &unit, &err);
	check_reason(rc, s, &err);
	if (rc) {
		if (v != SENTINEL_D || strcmp(unit, "sentinel"))
			units_fail("rate: output changed on failure", s, &err);
	} else {
		if (!isfinite(v) || v < 0)
			units_fail("rate not finite or negative", s, NULL);
		if (!unit || !*unit)
			units_fail("rate without a unit", s, NULL);
		free(unit);
	}
	sbuf_release(&err);
}

static void fuzz_aggregation(const char *s)
{
	struct sbuf err = SBUF_INIT;
	enum aggregation agg = (enum aggregation)77;
	double pct = SENTINEL_D;
	int rc = units_parse_aggregation(s, &agg, &pct, &err);
	check_reason(rc, s, &err);
	if (rc) {
		if ((int)agg != 77 || pct != SENTINEL_D)
			units_fail("aggregation: output changed on failure", s, &err);
	} else {
		if ((int)agg < AGG_MIN || (int)agg > AGG_PERCENTILE)
			units_fail("aggregation out of range", s, NULL);
		if (agg == AGG_PERCENTILE && !(pct > 0 && pct < 100))
			units_fail("percentile out of (0, 100)", s, NULL);
	}
	sbuf_release(&err);
}

static void fuzz_budget(enum metric_id m, const char *s)
{
	const char *nl = strchr(s, '\n');
	char *agg = nl ? strndup(s, (size_t)(nl - s)) : strdup("p95");
	const char *text = nl ? nl + 1 : s;
	struct sbuf err = SBUF_INIT;
	struct budget b, before;
	memset(&b, 0x5a, sizeof(b));
	before = b;
	int rc = units_parse_budget(m, agg, text, &b, &err);
	check_reason(rc, s, &err);
	if (rc) {
		if (memcmp(&b, &before, sizeof(b)))
			units_fail("budget: output changed on failure", s, &err);
	} else {
		const struct metric_info *mi = metric_get(m);
		if (b.metric != m)
			units_fail("budget: wrong metric", s, NULL);
		if (mi->better == BETTER_LOWER && (b.op == BUDGET_GT || b.op == BUDGET_GE))
			units_fail("budget: '>' on a lower-is-better metric", s, NULL);
		if (mi->better == BETTER_HIGHER && (b.op == BUDGET_LT || b.op == BUDGET_LE))
			units_fail("budget: '<' on a higher-is-better metric", s, NULL);
		if (b.aggregation == AGG_PERCENTILE && !(b.percentile > 0 && b.percentile < 100))
			units_fail("budget: percentile out of range", s, NULL);
		if (!isfinite(b.limit) || b.limit < 0)
			units_fail("budget: limit not finite or negative", s, NULL);
		if (!b.aggregation_name || strcmp(b.aggregation_name, agg) ||
		    !b.limit_text || strcmp(b.limit_text, text))
			units_fail("budget: texts not kept as written", s, NULL);
		free(b.aggregation_name);
		free(b.limit_text);
		free(b.unit);
	}
	free(agg);
	sbuf_release(&err);
}

static void fuzz_metric_value(enum metric_id m, const char *s)
{
	struct sbuf err = SBUF_INIT;
	double v = SENTINEL_D;
	int rc = units_parse_metric_value(m, s, &v, &err);
	check_reason(rc, s, &err);
	if (rc) {
		if (v != SENTINEL_D)
			units_fail("metric value: output changed on failure", s, &err);
	} else if (!isfinite(v) || v < 0) {
		units_fail("metric value not finite or negative", s, NULL);
	}
	sbuf_release(&err);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	if (size < 2)
		return 0;
	unsigned which = data[0] % 8;
	enum metric_id m = (enum metric_id)(data[1] % METRIC__COUNT);
	char *s = strndup((const char *)data + 2, size - 2);
	if (!s)
		abort();
	switch (which) {
	case 0: fuzz_duration(s); break;
	case 1: fuzz_size(s); break;
	case 2: fuzz_percent(s); break;
	case 3: fuzz_number(s); break;
	case 4: fuzz_rate(s); break;
	case 5: fuzz_aggregation(s); break;
	case 6: fuzz_budget(m, s); break;
	case 7: fuzz_metric_value(m, s); break;
	}
	free(s);
	return 0;
}
