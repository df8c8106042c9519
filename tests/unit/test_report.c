/* report: the table, json, csv and samples-csv writers on hand-built results. */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <jansson.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "analyze/format.h"
#include "base/xalloc.h"
#include "report/report.h"

#define BIG_SEED UINT64_C(18446744073709551557)
#define BIG_SEED_TEXT "18446744073709551557"

/* ---- fixtures -------------------------------------------------------- */

/* n samples v0, v0+step, ...; a summary filled by hand (not computed). */
static void fill_series(struct metric_series *ms, int n, double v0,
			double step)
{
	for (int i = 0; i < n; i++)
		metric_series_add(ms, v0 + step * i, i + 1, i + 1);
	ms->have_summary = 1;
	ms->summary.count = (size_t)n;
	ms->summary.min = v0;
	ms->summary.max = v0 + step * (n - 1);
	ms->summary.mean = v0 + step * (n - 1) / 2.0;
	ms->summary.median = v0 + step * (n - 1) / 2.0;
	ms->summary.stddev = step * 2.5;
	ms->summary.cv = ms->summary.stddev / ms->summary.mean;
	ms->summary.robust_cv = NAN; /* not measured: null, never 0 */
	ms->summary.p90 = ms->summary.max;
	ms->summary.p95 = ms->summary.max;
	ms->summary.p99 = ms->summary.max;
}

static void add_budget(struct command_result *c, enum metric_id m,
		       const char *agg, const char *op, double limit,
		       const char *text, int have_actual, double actual,
		       enum budget_status st, const char *reason)
{
	c->budgets = xreallocarray(c->budgets, c->nr_budgets + 1,
				   sizeof(*c->budgets));
	struct budget_result *b = &c->budgets[c->nr_budgets++];
	memset(b, 0, sizeof(*b));
	b->metric = m;
	b->aggregation = xstrdup(agg);
	b->op = xstrdup(op);
	b->limit = limit;
	b->limit_text = xstrdup(text);
	b->have_actual = have_actual;
	b->actual = actual;
	b->status = st;
	b->reason = reason ? xstrdup(reason) : NULL;
}

/*
 * One suite (a name with a comma and quotes), one benchmark (a name with a
 * newline), two commands: "sort" (measured, budgets) and "crash" (failed).
 * In compare mode both sides are present and "sort" has comparisons.
 */
static void build(struct run_result *r, int compare)
{
	run_result_init(r);
	r->mode = xstrdup(compare ? "compare" : "run");
	r->seed = compare ? (uint64_t)INT64_MAX : BIG_SEED;
	r->started_at = xstrdup("2024-05-01T10:00:00Z");
	r->finished_at = xstrdup("2024-05-01T10:00:09Z");
	r->env.os = xstrdup("Debian GNU/Linux 12");
	r->env.kernel = xstrdup("6.1.0");
	r->env.arch = xstrdup("x86_64");
	r->env.cpu_model = xstrdup("Test CPU");
	r->env.logical_cpus = 2;
	r->git.head_sha = xstrdup("0123456789abcdef0123456789abcdef01234567");
	r->git.dirty = 0;
	if (compare) {
		r->git.base_ref = xstrdup("main");
		r->git.base_sha =
			xstrdup("fedcba9876543210fedcba9876543210fedcba98");
	}
	strvec_push(&r->warnings, "cpu frequency scaling is on");

	r->nr_suites = 1;
	r->suites = xcalloc(1, sizeof(*r->suites));
	struct suite_result *s = &r->suites[0];
	s->name = xstrdup("demo, \"quoted\"");
	s->file = xstrdup("kagari.yaml");
	s->result = RESULT_ERROR;
	s->nr_benches = 1;
	s->benches = xcalloc(1, sizeof(*s->benches));
	struct bench_result *b = &s->benches[0];
	b->name = xstrdup("sort\nbig");
	strvec_init(&b->tags);
	strvec_push(&b->tags, "smoke");
	b->result = RESULT_ERROR;
	b->rounds = 5;
	b->nr_commands = 2;
	b->commands = xcalloc(2, sizeof(*b->commands));

	struct command_result *c = &b->commands[0];
	c->name = xstrdup("sort");
	c->command = xstrdup("./build/sort --n 20000 --a-very-long-option-"
			     "that-does-not-fit-in-a-narrow-terminal");
	c->result = compare ? RESULT_REGRESSION : RESULT_OVER_BUDGET;
	c->rounds = 5;
	c->throughput_unit = xstrdup("bytes");
	for (int sd = compare ? SIDE_BASE : SIDE_HEAD; sd < SIDE__COUNT; sd++) {
		struct side_result *x = &c->side[sd];
		double k = sd == SIDE_HEAD && compare ? 1.1 : 1.0;
		x->present = 1;
		x->count = 5;
		/* latency median 1234.5 ns exactly (rounds to 1235) */
		fill_series(&x->metric[METRIC_LATENCY], 5, 1230.5 * k, 2);
		fill_series(&x->metric[METRIC_PEAK_RSS], 5, 3 * 1048576.0, 4096);
		fill_series(&x->metric[METRIC_CPU_UTILIZATION], 5, 0.97, 0.005);
		fill_series(&x->metric[METRIC_THROUGHPUT], 5, 1.5e6, 1e3);
		metric_series_set_status(&x->metric[METRIC_INSTRUCTIONS],
					 MSTATUS_UNSUPPORTED,
					 "perf_event_open is not permitted");
		/* METRIC_CYCLES stays MSTATUS_ABSENT: never printed */
	}
	add_budget(c, METRIC_LATENCY, "p95", "<=", 300e6, "<= 300ms", 1, 1238.5,
		   BUDGET_PASS, NULL);
	add_budget(c, METRIC_PEAK_RSS, "max", "<=", 2 * 1048576.0, "<= 2MiB", 1,
		   3 * 1048576.0 + 16384, BUDGET_FAIL, NULL);
	add_budget(c, METRIC_INSTRUCTIONS, "median", "<=", 1e9, "<= 1e9", 0, 0,
		   BUDGET_UNASSESSABLE, "instructions are unsupported here");
	if (compare) {
		struct comparison *cp = &c->comparison[METRIC_LATENCY];
		cp->present = 1;
		cp->statistic = xstrdup("median");
		cp->pairing = xstrdup("rounds");
		cp->base = 1234.5;
		cp->head = 1357.95;
		cp->change_percent = 10.0;
		cp->ci_low_percent = 8.1;
		cp->ci_high_percent = 12.0;
		cp->confidence = 0.95;
		cp->max_percent = 5;
		cp->p_value = NAN;
		cp->hl_shift_percent = 9.9;
		cp->noise_floor_percent = 1.5;
		cp->verdict = VERDICT_REGRESSION;
		cp->reason = xstrdup("median grew by more than 5%");
		cp->gate = 1;
	}

	c = &b->commands[1];
	c->name = xstrdup("crash");
	c->command = xstrdup("sh -c 'exit 3'");
	c->result = RESULT_ERROR;
	c->error = xstrdup("exited with status 3");
	c->stderr_tail = xstrdup("boom\n\033[31mred\033[0m line\r\nlast\n");
	for (int sd = compare ? SIDE_BASE : SIDE_HEAD; sd < SIDE__COUNT; sd++) {
		c->side[sd].present = 1;
		metric_series_set_status(&c->side[sd].metric[METRIC_LATENCY],
					 MSTATUS_FAILED, "the command failed");
	}

	r->summary.benchmarks = 1;
	r->summary.commands = 2;
	r->summary.over_budget = compare ? 0 : 1;
	r->summary.regression = compare ? 1 : 0;
	r->summary.error = 1;
	r->summary.exit_code = 4;
	r->exit_reason = xstrdup("command 'crash' failed: exited with status 3");
}

static char *render(const struct run_result *r, enum report_format f,
		    int color, int width)
{
	struct sbuf out = SBUF_INIT, err = SBUF_INIT;
	struct report_options o;
	report_options_init(&o);
	o.color = color;
	o.terminal_width = width;
	assert_int_equal(report_render(r, f, &o, &out, &err), 0);
	assert_int_equal(err.len, 0);
	sbuf_release(&err);
	return sbuf_detach(&out);
}

/* ---- a tiny RFC 4180 reader for the assertions ---------------------- */

struct csv {
	char ***rows; /* rows[i][j], NULL-terminated per row */
	size_t *nf;
	size_t nr;
};

static void csv_parse(struct csv *c, const char *s)
{
	memset(c, 0, sizeof(*c));
	while (*s) {
		c->rows = xreallocarray(c->rows, c->nr + 1, sizeof(*c->rows));
		c->nf = xreallocarray(c->nf, c->nr + 1, sizeof(*c->nf));
		char **f = NULL;
		size_t nf = 0;
		for (;;) {
			struct sbuf cell = SBUF_INIT;
			if (*s == '"') {
				s++;
				for (;;) {
					assert_true(*s != '\0'); /* unterminated */
					if (*s == '"' && s[1] == '"') {
						sbuf_addch(&cell, '"');
						s += 2;
					} else if (*s == '"') {
						s++;
						break;
					} else {
						sbuf_addch(&cell, *s++);
					}
				}
			} else {
				while (*s && *s != ',' && *s != '\n') {
					assert_true(*s != '"');
					sbuf_addch(&cell, *s++);
				}
			}
			f = xreallocarray(f, nf + 2, sizeof(*f));
			f[nf++] = sbuf_detach(&cell);
			f[nf] = NULL;
			if (*s == ',') {
				s++;
				continue;
			}
			assert_true(*s == '\n'); /* every record ends with LF */
			s++;
			break;
		}
		c->rows[c->nr] = f;
		c->nf[c->nr++] = nf;
	}
}

static void csv_free(struct csv *c)
{
	for (size_t i = 0; i < c->nr; i++) {
		for (size_t j = 0; j < c->nf[i]; j++)
			free(c->rows[i][j]);
		free(c->rows[i]);
	}
	free(c->rows);
	free(c->nf);
}

/* ---- JSON ------------------------------------------------------------ */

/* Replace the first `from` in s by `to` (for jansson's int64 limit). */
static char *replace(const char *s, const char *from, const char *to)
{
	const char *p = strstr(s, from);
	assert_non_null(p);
	struct sbuf sb = SBUF_INIT;
	sbuf_add(&sb, s, (size_t)(p - s));
	sbuf_adds(&sb, to);
	sbuf_adds(&sb, p + strlen(from));
	return sbuf_detach(&sb);
}

static json_t *path(json_t *j, const char *p)
{
	char *copy = xstrdup(p), *save = NULL;
	for (char *t = strtok_r(copy, ".", &save); t && j;
	     t = strtok_r(NULL, ".", &save)) {
		if (json_is_array(j))
			j = json_array_get(j, strtoul(t, NULL, 10));
		else
			j = json_object_get(j, t);
	}
	free(copy);
	return j;
}

static void test_json_run(void **state)
{
	(void)state;
	struct run_result r;
	build(&r, 0);
	char *text = render(&r, REPORT_JSON, 0, 0);

	/* the uint64 seed is written exactly, as an integer */
	assert_non_null(strstr(text, "\"seed\": " BIG_SEED_TEXT ",\n"));
	/* jansson's integers are int64: parse the rest with a small seed */
	char *parsable = replace(text, BIG_SEED_TEXT, "7");
	json_error_t e;
	json_t *j = json_loads(parsable, 0, &e);
	if (!j)
		fail_msg("%s at line %d", e.text, e.line);

	assert_string_equal(json_string_value(path(j, "schema_version")), "1");
	assert_string_equal(json_string_value(path(j, "tool")), "kagari");
	assert_true(json_is_string(path(j, "kagari_version")));
	assert_string_equal(json_string_value(path(j, "mode")), "run");
	assert_true(json_is_integer(path(j, "seed")));
	assert_true(json_is_false(path(j, "interrupted")));
	assert_int_equal(json_integer_value(path(j, "environment.logical_cpus")), 2);
	assert_true(json_is_false(path(j, "environment.ci")));
	assert_true(json_is_null(path(j, "environment.counters_source")));
	assert_true(json_is_false(path(j, "git.dirty")));
	assert_true(json_is_null(path(j, "git.base_ref")));
	assert_string_equal(json_string_value(path(j, "warnings.0")),
			    "cpu frequency scaling is on");

	json_t *s = path(j, "suites.0");
	assert_string_equal(json_string_value(path(s, "name")), "demo, \"quoted\"");
	json_t *b = path(s, "benchmarks.0");
	assert_string_equal(json_string_value(path(b, "name")), "sort\nbig");
	assert_string_equal(json_string_value(path(b, "tags.0")), "smoke");
	assert_int_equal(json_integer_value(path(b, "rounds")), 5);

	json_t *c = path(b, "commands.0");
	assert_string_equal(json_string_value(path(c, "name")), "sort");
	assert_null(path(c, "base"));
	assert_null(path(c, "comparisons"));
	assert_int_equal(json_integer_value(path(c, "head.count")), 5);
	json_t *metrics = path(c, "head.metrics");
	/* absent metrics are omitted entirely */
	assert_null(json_object_get(metrics, "cycles"));
	assert_null(json_object_get(metrics, "allocs"));
	assert_int_equal(json_object_size(metrics), 5);

	json_t *lat = json_object_get(metrics, "latency");
	assert_string_equal(json_string_value(path(lat, "unit")), "ns");
	assert_string_equal(json_string_value(path(lat, "status")), "ok");
	/* integral metric: integers, rounded half away from zero */
	assert_true(json_is_integer(path(lat, "stats.median")));
	assert_int_equal(json_integer_value(path(lat, "stats.median")), 1235);
	assert_int_equal(json_integer_value(path(lat, "stats.min")), 1231);
	assert_int_equal(json_integer_value(path(lat, "stats.count")), 5);
	assert_true(json_is_real(path(lat, "stats.cv")));
	assert_true(json_is_null(path(lat, "stats.robust_cv")));
	assert_int_equal(json_array_size(path(lat, "samples")), 5);
	assert_int_equal(json_integer_value(path(lat, "samples.0.round")), 1);
	assert_int_equal(json_integer_value(path(lat, "samples.0.run")), 1);
	assert_true(json_is_integer(path(lat, "samples.4.value")));
	assert_int_equal(json_integer_value(path(lat, "samples.4.value")), 1239);

	json_t *util = json_object_get(metrics, "cpu_utilization");
	assert_string_equal(json_string_value(path(util, "unit")), "ratio");
	assert_true(json_is_real(path(util, "stats.mean")));
	assert_true(json_is_real(path(util, "samples.0.value")));
	json_t *tp = json_object_get(metrics, "throughput");
	assert_string_equal(json_string_value(path(tp, "unit")), "bytes/s");
	assert_true(json_is_real(path(tp, "stats.median")));
	assert_true(json_is_integer(path(metrics, "peak_rss.stats.max")));

	json_t *ins = json_object_get(metrics, "instructions");
	assert_string_equal(json_string_value(path(ins, "status")),
			    "unsupported");
	assert_string_equal(json_string_value(path(ins, "reason")),
			    "perf_event_open is not permitted");
	assert_null(path(ins, "stats"));
	assert_null(path(ins, "samples"));

	json_t *bud = path(c, "budgets");
	assert_int_equal(json_array_size(bud), 3);
	assert_string_equal(json_string_value(path(bud, "0.metric")), "latency");
	assert_string_equal(json_string_value(path(bud, "0.aggregation")), "p95");
	assert_string_equal(json_string_value(path(bud, "0.operator")), "<=");
	assert_int_equal(json_integer_value(path(bud, "0.limit")), 300000000);
	assert_string_equal(json_string_value(path(bud, "0.limit_text")), "<= 300ms");
	assert_int_equal(json_integer_value(path(bud, "0.actual")), 1239);
	assert_string_equal(json_string_value(path(bud, "0.status")), "pass");
	assert_null(path(bud, "0.reason"));
	assert_string_equal(json_string_value(path(bud, "1.status")), "fail");
	assert_true(json_is_null(path(bud, "2.actual")));
	assert_string_equal(json_string_value(path(bud, "2.status")),
			    "unassessable");
	assert_string_equal(json_string_value(path(bud, "2.reason")),
			    "instructions are unsupported here");

	json_t *crash = path(b, "commands.1");
	assert_string_equal(json_string_value(path(crash, "result")), "error");
	assert_string_equal(json_string_value(path(crash, "error")),
			    "exited with status 3");
	assert_string_equal(json_string_value(path(crash, "stderr_tail")),
			    "boom\n\033[31mred\033[0m line\r\nlast\n");
	assert_string_equal(
		json_string_value(path(crash, "head.metrics.latency.status")),
		"failed");
	assert_true(json_is_null(path(c, "error")));

	assert_int_equal(json_integer_value(path(j, "summary.exit_code")), 4);
	assert_int_equal(json_integer_value(path(j, "summary.over_budget")), 1);
	assert_int_equal(json_integer_value(path(j, "summary.error")), 1);
	assert_true(json_is_string(path(j, "exit_reason")));

	/* the same document compact: identical content, one line */
	char *compact;
	{
		struct sbuf out = SBUF_INIT, err = SBUF_INIT;
		struct report_options o;
		report_options_init(&o);
		o.json_compact = 1;
		assert_int_equal(report_write_json(&r, &o, &out, &err), 0);
		compact = sbuf_detach(&out);
		sbuf_release(&err);
	}
	/* one line: the only newline ends the document */
	assert_true(strchr(compact, '\n') == compact + strlen(compact) - 1);
	char *cparsable = replace(compact, BIG_SEED_TEXT, "7");
	json_t *j2 = json_loads(cparsable, 0, &e);
	assert_non_null(j2);
	assert_true(json_equal(j, j2));
	json_decref(j2);
	free(cparsable);
	free(compact);

	/* and the big seed is readable as a real at least */
	json_t *j3 = json_loads(text, JSON_DECODE_INT_AS_REAL, &e);
	assert_non_null(j3);
	assert_true(json_real_value(path(j3, "seed")) == (double)BIG_SEED);
	json_decref(j3);

	json_decref(j);
	free(parsable);
	free(text);
	run_result_release(&r);
}

static void test_json_compare(void **state)
{
	(void)state;
	struct run_result r;
	build(&r, 1);
	char *text = render(&r, REPORT_JSON, 0, 0);
	json_error_t e;
	json_t *j = json_loads(text, 0, &e);
	if (!j)
		fail_msg("%s at line %d", e.text, e.line);

	assert_string_equal(json_string_value(path(j, "mode")), "compare");
	assert_true(json_integer_value(path(j, "seed")) == INT64_MAX);
	assert_string_equal(json_string_value(path(j, "git.base_ref")), "main");
	json_t *c = path(j, "suites.0.benchmarks.0.commands.0");
	assert_non_null(path(c, "base.metrics.latency"));
	assert_non_null(path(c, "head.metrics.latency"));
	assert_int_equal(json_integer_value(path(c, "base.metrics.latency.stats.median")),
			 1235);
	json_t *cmp = path(c, "comparisons");
	assert_int_equal(json_object_size(cmp), 1); /* only present ones */
	json_t *lat = json_object_get(cmp, "latency");
	assert_string_equal(json_string_value(path(lat, "statistic")), "median");
	assert_string_equal(json_string_value(path(lat, "pairing")), "rounds");
	assert_true(json_is_integer(path(lat, "base")));
	assert_int_equal(json_integer_value(path(lat, "base")), 1235);
	assert_int_equal(json_integer_value(path(lat, "head")), 1358);
	assert_true(json_is_real(path(lat, "change_percent")));
	assert_true(json_real_value(path(lat, "change_percent")) == 10.0);
	assert_true(json_real_value(path(lat, "ci_low_percent")) == 8.1);
	assert_true(json_is_null(path(lat, "p_value")));
	assert_string_equal(json_string_value(path(lat, "verdict")),
			    "regression");
	assert_true(json_is_true(path(lat, "gate")));
	assert_true(json_is_real(path(lat, "noise_floor_percent")));
	/* the failed command has no comparisons */
	assert_null(path(j, "suites.0.benchmarks.0.commands.1.comparisons"));

	json_decref(j);
	free(text);
	run_result_release(&r);
}

/* ---- CSV ------------------------------------------------------------- */

static void test_csv(void **state)
{
	(void)state;
	struct run_result r;
	build(&r, 1);
	char *text = render(&r, REPORT_CSV, 0, 0);
	const char *hdr = "suite,benchmark,command,side,metric,unit,status,"
			  "count,min,median,mean,max,stddev,cv,p90,p95,p99\n";
	assert_memory_equal(text, hdr, strlen(hdr));
	assert_non_null(strstr(text, "\"demo, \"\"quoted\"\"\",\"sort\nbig\","));

	struct csv c;
	csv_parse(&c, text);
	/* sort: 5 metrics x 2 sides; crash: latency x 2 sides */
	assert_int_equal(c.nr, 1 + 10 + 2);
	int seen_unsupported = 0, seen_lat = 0;
	for (size_t i = 0; i < c.nr; i++) {
		assert_int_equal(c.nf[i], 17);
		char **f = c.rows[i];
		if (i == 0)
			continue;
		assert_string_equal(f[0], "demo, \"quoted\"");
		assert_string_equal(f[1], "sort\nbig");
		assert_string_not_equal(f[4], "cycles");
		if (!strcmp(f[6], "unsupported")) {
			seen_unsupported++;
			for (int k = 7; k < 17; k++)
				assert_string_equal(f[k], "");
		}
		if (!strcmp(f[2], "sort") && !strcmp(f[3], "base") &&
		    !strcmp(f[4], "latency")) {
			seen_lat = 1;
			assert_string_equal(f[5], "ns");
			assert_string_equal(f[7], "5");
			assert_string_equal(f[8], "1231");
			assert_string_equal(f[9], "1235");
		}
		if (!strcmp(f[4], "throughput"))
			assert_string_equal(f[5], "bytes/s");
	}
	assert_int_equal(seen_unsupported, 2);
	assert_true(seen_lat);
	/* base rows come before head rows */
	assert_string_equal(c.rows[1][3], "base");
	csv_free(&c);
	free(text);
	run_result_release(&r);
}

/*
 * CSV injection: a text field a spreadsheet would take for a formula
 * (a leading =, +, -, @, tab or CR) starts with "'"; others, and the
 * numbers, are as they were.
 */
static void test_csv_formula_names(void **state)
{
	(void)state;
	static const char *const names[][2] = {
		{ "=HYPERLINK(\"http://x\",\"y\")", "'=HYPERLINK(\"http://x\",\"y\")" },
		{ "+1", "'+1" }, { "-2+3", "'-2+3" }, { "@SUM(A1)", "'@SUM(A1)" },
		{ "\tcmd", "'\tcmd" }, { "\rcmd", "'\rcmd" }, { "a-b=c", "a-b=c" },
	};
	for (size_t k = 0; k < sizeof(names) / sizeof(names[0]); k++) {
		for (int samples = 0; samples <= 1; samples++) {
			struct run_result r;
			build(&r, 1);
			struct suite_result *s = &r.suites[0];
			free(s->name);
			s->name = xstrdup(names[k][0]);
			free(s->benches[0].name);
			s->benches[0].name = xstrdup(names[k][0]);
			free(s->benches[0].commands[0].name);
			s->benches[0].commands[0].name = xstrdup(names[k][0]);
			char *text = render(&r, samples ? REPORT_SAMPLES_CSV : REPORT_CSV, 0, 0);
			struct csv c;
			csv_parse(&c, text);
			assert_true(c.nr > 1);
			for (size_t i = 1; i < c.nr; i++) {
				assert_string_equal(c.rows[i][0], names[k][1]);
				assert_string_equal(c.rows[i][1], names[k][1]);
				if (strcmp(c.rows[i][2], "crash"))
					assert_string_equal(c.rows[i][2], names[k][1]);
			}
			csv_free(&c);
			free(text);
			run_result_release(&r);
		}
	}
}

static void test_samples_csv(void **state)
{
	(void)state;
	for (int compare = 0; compare <= 1; compare++) {
		struct run_result r;
		build(&r, compare);
		size_t samples = 0;
		const struct command_result *cs = r.suites[0].benches[0].commands;
		for (int c = 0; c < 2; c++)
			for (int sd = 0; sd < SIDE__COUNT; sd++)
				for (int m = 0; m < METRIC__COUNT; m++)
					samples += cs[c].side[sd].metric[m].nr;
		assert_int_equal(samples, compare ? 40 : 20);

		char *text = render(&r, REPORT_SAMPLES_CSV, 0, 0);
		struct csv c;
		csv_parse(&c, text);
		assert_int_equal(c.nr, samples + 1);
		const char *want[] = { "suite", "benchmark", "command", "side",
				       "round", "run", "metric", "unit",
				       "value", "layout_pad" };
		assert_int_equal(c.nf[0], 10);
		for (int k = 0; k < 10; k++)
			assert_string_equal(c.rows[0][k], want[k]);
		for (size_t i = 1; i < c.nr; i++) {
			assert_int_equal(c.nf[i], 10);
			assert_string_equal(c.rows[i][1], "sort\nbig");
			assert_string_not_equal(c.rows[i][8], "");
		}
		/* first sample: integral latency value, no layout pad */
		assert_string_equal(c.rows[1][6], "latency");
		assert_string_equal(c.rows[1][4], "1");
		assert_string_equal(c.rows[1][8], "1231");
		assert_string_equal(c.rows[1][9], "");
		csv_free(&c);
		free(text);
		/* a pad recorded for the last run shows in its rows */
		struct side_result *hs = NULL;
		const struct metric_series *lat = NULL;
		for (int sd = 0; sd < SIDE__COUNT && !lat; sd++)
			for (int m = 0; m < METRIC__COUNT && !lat; m++)
				if (cs[0].side[sd].metric[m].nr) {
					hs = &r.suites[0].benches[0].commands[0].side[sd];
					lat = &hs->metric[m];
				}
		assert_non_null(lat);
		side_result_set_layout_pad(hs, lat->samples[lat->nr - 1].run, 517);
		assert_int_equal(lat->samples[lat->nr - 1].layout_pad, 517);
		assert_int_equal(lat->samples[0].layout_pad, -1);
		text = render(&r, REPORT_SAMPLES_CSV, 0, 0);
		assert_non_null(strstr(text, ",517\n"));
		free(text);
		run_result_release(&r);
	}
}

/* ---- table ----------------------------------------------------------- */

/* A value as the table prints it (analyze/format), caller frees. */
static char *fmt(enum metric_id m, double v)
{
	struct sbuf sb = SBUF_INIT;
	units_format_value(&sb, m, v);
	return sbuf_detach(&sb);
}

/* The line of text containing `needle`, copied (caller frees). */
static char *line_with(const char *text, const char *needle)
{
	const char *p = strstr(text, needle);
	assert_non_null(p);
	const char *a = p, *z = strchr(p, '\n');
	while (a > text && a[-1] != '\n')
		a--;
	return xstrndup(a, z ? (size_t)(z - a) : strlen(a));
}

static void test_table_run(void **state)
{
	(void)state;
	struct run_result r;
	build(&r, 0);
	char *text = render(&r, REPORT_TABLE, 0, 0);

	assert_null(strchr(text, '\033')); /* no colour, and stderr is tamed */
	assert_null(strchr(text, '\r'));
	assert_non_null(strstr(text, "sort"));
	assert_non_null(strstr(text, "crash"));
	assert_non_null(strstr(text, "seed " BIG_SEED_TEXT));
	assert_non_null(strstr(text, "unsupported (perf_event_open is not "
				     "permitted)"));
	assert_null(strstr(text, "cycles"));
	assert_non_null(strstr(text, "failed (the command failed)"));
	assert_non_null(strstr(text, "error: exited with status 3"));
	assert_non_null(strstr(text, "| boom"));
	assert_non_null(strstr(text, "| ?[31mred?[0m line\n"));
	assert_non_null(strstr(text, "budget latency p95 <= 300ms: pass"));
	char *rss = fmt(METRIC_PEAK_RSS, 3 * 1048576.0 + 16384);
	char *want = xstrfmt("budget peak_rss max <= 2MiB: FAIL (actual %s, "
			     "above the limit by ",
			     rss);
	assert_non_null(strstr(text, want));
	free(want);
	free(rss);
	assert_non_null(strstr(text, "cannot be assessed"));
	char *med = fmt(METRIC_LATENCY, 1234.5);
	assert_non_null(strstr(text, med));
	assert_non_null(strstr(text, "bytes/s"));
	assert_non_null(strstr(text, "warning: cpu frequency scaling is on"));
	assert_non_null(strstr(text, "exit code 4"));
	assert_non_null(strstr(text, "1 over budget"));
	/* the benchmark name's newline does not break the layout */
	assert_non_null(strstr(text, "sort?big"));

	/* columns line up: the median column starts at the same place */
	char *h = line_with(text, "median");
	char *l = line_with(text, med);
	char *p = line_with(text, "peak_rss  ");
	char *rmed = fmt(METRIC_PEAK_RSS, 3 * 1048576.0 + 8192);
	size_t col = (size_t)(strstr(h, "median") - h);
	assert_int_equal((size_t)(strstr(l, med) - l), col);
	assert_int_equal((size_t)(strstr(p, rmed) - p), col);
	free(rmed);
	free(med);
	free(h);
	free(l);
	free(p);
	free(text);

	/* colour when asked */
	text = render(&r, REPORT_TABLE, 1, 0);
	assert_non_null(strstr(text, "\033[31m")); /* red FAIL / error */
	assert_non_null(strstr(text, "\033[32m")); /* green pass */
	free(text);

	/* a narrow terminal cuts the long command line */
	text = render(&r, REPORT_TABLE, 0, 60);
	char *cmd = line_with(text, "./build/sort");
	assert_non_null(strstr(cmd, "…"));
	assert_non_null(strstr(cmd, "over_budget"));
	assert_null(strstr(text, "narrow-terminal"));
	free(cmd);
	free(text);
	run_result_release(&r);
}

static void test_table_compare(void **state)
{
	(void)state;
	struct run_result r;
	build(&r, 1);
	char *text = render(&r, REPORT_TABLE, 0, 0);
	assert_null(strchr(text, '\033'));
	assert_non_null(strstr(text, "base main (fedcba987654) → head "
				     "0123456789ab"));
	assert_non_null(strstr(text, "seed 9223372036854775807"));
	char *b = fmt(METRIC_LATENCY, 1234.5), *h = fmt(METRIC_LATENCY, 1357.95);
	char *want = xstrfmt("%s → %s", b, h);
	/* the verdicts lead, one line per benchmark, before the details */
	char *lead = line_with(text, "(tolerance 5%)");
	assert_non_null(strstr(text, "verdicts (details below)"));
	assert_true(strstr(text, "verdicts") < strstr(text, want));
	assert_non_null(strstr(lead, "sort?big  error  "));
	assert_non_null(strstr(lead, "sort latency +10.0% [+8.1%, +12.0%] (tolerance 5%)"));
	assert_non_null(strstr(lead, "sort budget peak_rss max <= 2MiB: FAIL"));
	assert_non_null(strstr(lead, "crash: error: exited with status 3"));
	assert_null(strstr(lead, "p95")); /* a budget that passed is a detail */
	free(lead);
	char *row = line_with(text, want);
	assert_non_null(strstr(row, "latency"));
	assert_non_null(strstr(row, "+10.0% [+8.1%, +12.0%]"));
	free(want);
	free(b);
	free(h);
	assert_non_null(strstr(row, "regression"));
	assert_non_null(strstr(row, "median grew by more than 5%"));
	free(row);
	/* both sides listed */
	assert_non_null(strstr(text, " base "));
	assert_non_null(strstr(text, " head "));
	assert_non_null(strstr(text, "1 regression"));
	free(text);
	run_result_release(&r);
}

/* ---- formats --------------------------------------------------------- */

static void test_formats(void **state)
{
	(void)state;
	static const char *const names[] = { "table", "json", "csv",
					     "samples-csv", "markdown",
					     "github", "html" };
	enum report_format f;
	for (int i = 0; i < 7; i++) {
		assert_int_equal(report_format_parse(names[i], &f), 0);
		assert_int_equal(f, i);
		assert_string_equal(report_format_name(f), names[i]);
	}
	assert_int_equal(report_format_parse("yaml", &f), -1);
	assert_int_equal(report_format_parse("JSON", &f), -1);

	struct run_result r;
	build(&r, 0);
	struct sbuf out = SBUF_INIT, err = SBUF_INIT;
	assert_int_equal(report_render(&r, REPORT_HTML, NULL, &out, &err), 0);
	assert_non_null(strstr(out.buf, "<svg"));
	sbuf_reset(&out);
	/* NULL options: defaults, no colour */
	sbuf_reset(&err);
	assert_int_equal(report_render(&r, REPORT_TABLE, NULL, &out, &err), 0);
	assert_null(strchr(out.buf, '\033'));
	sbuf_release(&out);
	sbuf_release(&err);
	run_result_release(&r);
}

/* An empty result (nothing ran) still renders everywhere. */
static void test_empty(void **state)
{
	(void)state;
	struct run_result r;
	run_result_init(&r);
	for (int f = REPORT_TABLE; f <= REPORT_SAMPLES_CSV; f++) {
		char *text = render(&r, f, 0, 0);
		if (f == REPORT_JSON) {
			json_t *j = json_loads(text, 0, NULL);
			assert_non_null(j);
			assert_true(json_is_null(path(j, "mode")));
			assert_int_equal(json_array_size(path(j, "suites")), 0);
			assert_true(json_is_null(path(j, "git.dirty")));
			assert_true(json_is_null(path(j, "environment.logical_cpus")));
			json_decref(j);
		}
		free(text);
	}
	run_result_release(&r);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_json_run),
		cmocka_unit_test(test_json_compare),
		cmocka_unit_test(test_csv),
		cmocka_unit_test(test_samples_csv),
		cmocka_unit_test(test_csv_formula_names),
		cmocka_unit_test(test_table_run),
		cmocka_unit_test(test_table_compare),
		cmocka_unit_test(test_formats),
		cmocka_unit_test(test_empty),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
