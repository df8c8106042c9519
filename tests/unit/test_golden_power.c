/*
 * kagari power without a process: cells parse or are refused with a
 * reason, the replay (power/replay.h) over a synthetic A/A trace finds a
 * +20% head and passes an A/A cell, a minority cell is seen, a cell that
 * would overflow is refused, and the table and JSON (report/power.h) of a
 * fixed replay are compared whole with tests/data/golden/out/power.{table,json}
 * (KAGARI_UPDATE_GOLDEN=1 rewrites them).
 */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "base/sbuf.h"
#include "base/xalloc.h"
#include "model/metric.h"
#include "power/replay.h"
#include "report/power.h"

#include "golden.h"

static void test_parse_cells(void **state)
{
	(void)state;
	struct power_cell c;
	struct sbuf err = SBUF_INIT;

	assert_int_equal(power_parse_cell("3@2", &c, &err), 0);
	assert_true(fabs(c.effect - 0.03) < 1e-12 && c.T == 2 && c.share == 0);
	free(c.text);
	assert_int_equal(power_parse_cell("40%x2.5@10", &c, &err), 0);
	assert_true(fabs(c.share - 0.4) < 1e-12 && c.factor == 2.5 && c.T == 10);
	assert_true(fabs(c.effect - 0.6) < 1e-12); /* the change of the mean */
	free(c.text);
	assert_int_equal(power_parse_cell("20%x0.5@10", &c, &err), 0);
	assert_true(fabs(c.effect + 0.1) < 1e-12); /* a minority speed-up */
	free(c.text);
	static const char *const bad[] = { "3", "3@", "@2", "3@0", "x@2", "-100@2",
					   "0%x2@5", "101%x2@5", "10%x0@5", "10%2@5", "" };
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		sbuf_reset(&err);
		assert_int_equal(power_parse_cell(bad[i], &c, &err), -1);
		assert_non_null(strstr(err.buf, "--cells '"));
	}
	sbuf_release(&err);
}

/* n runs of one program: 1 ms, +-2% of deterministic noise and a stall
   every 97th run, as a recorded A/A trace would hold. */
static void synthetic_trace(struct trace *t, size_t n)
{
	uint64_t s = 11;
	memset(t, 0, sizeof(*t));
	t->file = xstrdup("synthetic.tsv");
	t->n = n;
	t->wall = xcalloc(n, sizeof(double));
	for (size_t i = 0; i < n; i++) {
		s = s * 6364136223846793005ULL + 1442695040888963407ULL;
		double u = (double)(s >> 11) / 9007199254740992.0;
		t->wall[i] = 1e6 * (1 + 0.04 * (u - 0.5)) * (i % 97 == 13 ? 1.8 : 1);
	}
}

static void default_design(struct power_design *d)
{
	memset(d, 0, sizeof(*d));
	settings_init_defaults(&d->st);
	d->metric = METRIC_LATENCY;
	power_design_plan(d);
}

static void test_replay_directions(void **state)
{
	(void)state;
	struct power_design d;
	struct trace t;
	struct power_cell cells[3];
	struct sbuf err = SBUF_INIT;

	default_design(&d);
	synthetic_trace(&t, 3000);
	assert_true(d.sequential);
	assert_int_equal(power_parse_cell("0@10", &cells[0], &err), 0);
	assert_int_equal(power_parse_cell("20@10", &cells[1], &err), 0);
	assert_int_equal(power_parse_cell("20%x2@10", &cells[2], &err), 0);
	assert_int_equal(power_cells_fit(&d, &t, 1, cells, 3, &err), 0);
	size_t need = (size_t)(d.warm_rounds + d.rounds) * 2 * (size_t)d.st.runs_per_round;
	power_replay(&d, &t, 1, need, cells, 3, 20, 5);
	for (int i = 0; i < 3; i++)
		assert_int_equal(cells[i].trials, 20);
	/* A/A: never a regression, mostly a pass */
	assert_int_equal(cells[0].verdicts[0], 0);
	assert_true(cells[0].verdicts[1] >= 18);
	/* +20% at T = 10: always a regression, quickly */
	assert_int_equal(cells[1].verdicts[0], 20);
	assert_true(cells[1].mean_runs <= 30);
	/* 20% of head's runs 2x slower (mean +20%): never a pass */
	assert_int_equal(cells[2].verdicts[1], 0);
	assert_true(cells[2].verdicts[0] >= 15);

	struct power_trace_stats ts;
	power_trace_stats(&t, 1, METRIC_LATENCY, &ts);
	assert_int_equal(ts.runs, 3000);
	assert_true(fabs(ts.median_ns - 1e6) < 2e4);
	assert_true(ts.pair_mad > 0.5 && ts.pair_mad < 3);

	/* a cell whose head runs would not fit in 2^63 ns */
	struct power_cell huge;
	assert_int_equal(power_parse_cell("1e15@2", &huge, &err), 0);
	sbuf_reset(&err);
	assert_int_equal(power_cells_fit(&d, &t, 1, &huge, 1, &err), -1);
	assert_non_null(strstr(err.buf, "--cells '1e15@2'"));
	free(huge.text);

	for (int i = 0; i < 3; i++)
		free(cells[i].text);
	free(t.file);
	free(t.wall);
	settings_release(&d.st);
	sbuf_release(&err);
}

/* Every figure fixed: the writers' whole output is golden. */
static void test_outputs_golden(void **state)
{
	(void)state;
	struct power_design d;
	struct trace t = { "traces/a.tsv", 2400, NULL, NULL };
	struct power_trace_stats ts = { 2400, 174.2e6, 2.16, 5.97 };
	struct power_cell cells[2];
	struct sbuf err = SBUF_INIT, out = SBUF_INIT;

	default_design(&d);
	assert_int_equal(power_parse_cell("3@2", &cells[0], &err), 0);
	assert_int_equal(power_parse_cell("10%x3@10", &cells[1], &err), 0);
	const int counts[2][5] = { { 475, 0, 0, 1, 24 }, { 322, 7, 0, 0, 171 } };
	for (int i = 0; i < 2; i++) {
		memcpy(cells[i].verdicts, counts[i], sizeof(counts[i]));
		cells[i].trials = 500;
	}
	cells[0].mean_runs = 91.8;
	cells[0].p95_runs = 200;
	cells[1].mean_runs = 171.5;
	cells[1].p95_runs = 200;
	report_power_table(&out, &d, &t, 1, &ts, cells, 2, 1);
	assert_int_equal(check_golden(GOLDEN_DIR "/out/power.table", &out), 0);
	sbuf_reset(&out);
	report_power_json(&out, &d, &t, 1, &ts, cells, 2, 1);
	assert_int_equal(check_golden(GOLDEN_DIR "/out/power.json", &out), 0);
	for (int i = 0; i < 2; i++)
		free(cells[i].text);
	settings_release(&d.st);
	sbuf_release(&out);
	sbuf_release(&err);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_parse_cells),
		cmocka_unit_test(test_replay_directions),
		cmocka_unit_test(test_outputs_golden),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
