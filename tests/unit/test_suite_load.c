/*
 * Tests for suite/load: the valid and invalid corpora under
 * tests/data/suites, inheritance, encoding checks, paths and discovery.
 *
 * Each tests/data/suites/invalid/NAME.yaml names what it must be rejected
 * with: either its first line is "# expect: LINE:COL: field.path: message"
 * (the style of himorime's semantic corpus), or NAME.expect holds one such
 * fragment per line. Every fragment must appear in the errors.
 */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <math.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "base/sbuf.h"
#include "base/strvec.h"
#include "base/xalloc.h"
#include "suite/discover.h"
#include "suite/load.h"

#ifndef KAGARI_SOURCE_DIR
#define KAGARI_SOURCE_DIR "."
#endif
#define SUITES KAGARI_SOURCE_DIR "/tests/data/suites"

static struct suite *load_str(const char *yaml, struct sbuf *errs)
{
	return suite_load_mem("t.yaml", yaml, strlen(yaml), errs);
}

/* The suite must fail and its errors contain every fragment given. */
static void expect_errors(const char *yaml, ...)
{
	struct sbuf errs = SBUF_INIT;
	struct suite *s = load_str(yaml, &errs);
	if (s) {
		suite_free(s);
		fail_msg("suite unexpectedly valid:\n%s", yaml);
	}
	va_list ap;
	va_start(ap, yaml);
	const char *frag;
	while ((frag = va_arg(ap, const char *)))
		if (!strstr(errs.buf, frag))
			fail_msg("missing '%s' in:\n%s", frag, errs.buf);
	va_end(ap);
	sbuf_release(&errs);
}

static struct suite *expect_valid(const char *yaml)
{
	struct sbuf errs = SBUF_INIT;
	struct suite *s = load_str(yaml, &errs);
	if (!s)
		fail_msg("unexpected errors:\n%s", errs.buf);
	sbuf_release(&errs);
	return s;
}

static int has_suffix(const char *s, const char *suffix)
{
	size_t n = strlen(s), m = strlen(suffix);
	return n >= m && !strcmp(s + n - m, suffix);
}

static void list_dir(const char *dir, const char *suffix, struct strvec *out)
{
	DIR *d = opendir(dir);
	assert_non_null(d);
	struct dirent *de;
	while ((de = readdir(d)))
		if (has_suffix(de->d_name, suffix))
			strvec_pushf(out, "%s/%s", dir, de->d_name);
	closedir(d);
}

static void test_valid_corpus(void **state)
{
	(void)state;
	struct strvec files = STRVEC_INIT;
	list_dir(SUITES "/valid", ".yaml", &files);
	assert_true(files.nr >= 2);
	for (size_t i = 0; i < files.nr; i++) {
		struct sbuf errs = SBUF_INIT;
		struct suite *s = suite_load(files.v[i], &errs);
		if (!s)
			fail_msg("%s:\n%s", files.v[i], errs.buf);
		assert_string_equal(s->version, "1");
		assert_true(s->nr_benches >= 1);
		assert_string_equal(s->file, files.v[i]);
		assert_true(s->dir[0] == '/' && s->root[0] == '/');
		suite_free(s);
		sbuf_release(&errs);
	}
	strvec_clear(&files);
}

/* A tolerance from defaults for a metric one benchmark does not measure is
 * dropped there (no comparison, no verdict), kept where it is measured. */
static void test_himorime_compat(void **state)
{
	(void)state;
	struct sbuf errs = SBUF_INIT;
	struct suite *s = suite_load(SUITES "/valid/himorime-compat.yaml", &errs);
	if (!s)
		fail_msg("%s", errs.buf);
	const struct regression_cfg *off = &s->benches[0].commands[0].settings.regression;
	const struct regression_cfg *on = &s->benches[1].commands[0].settings.regression;
	assert_false(s->benches[0].commands[0].settings.metrics.memory);
	assert_false(off->metric[METRIC_PEAK_RSS].compare);
	assert_false(off->metric[METRIC_PEAK_RSS].configured);
	assert_false(off->metric[METRIC_CPU_TOTAL].compare);
	assert_true(off->metric[METRIC_LATENCY].compare);
	assert_true(on->metric[METRIC_PEAK_RSS].compare && on->metric[METRIC_PEAK_RSS].configured);
	assert_string_equal(s->benches[0].stdin_spec.value, "${workdir}/in.txt");
	assert_true(s->benches[1].commands[0].budgets[0].limit == 65536);
	assert_string_equal(s->benches[1].settings.metrics.throughput.unit, "text-lines");
	assert_true(s->defaults.min_time_ns == 500);
	suite_free(s);
	sbuf_release(&errs);
}

static void test_invalid_corpus(void **state)
{
	(void)state;
	struct strvec files = STRVEC_INIT;
	list_dir(SUITES "/invalid", ".yaml", &files);
	assert_true(files.nr >= 30);
	for (size_t i = 0; i < files.nr; i++) {
		const char *f = files.v[i];
		struct sbuf errs = SBUF_INIT, expect = SBUF_INIT;
		struct suite *s = suite_load(f, &errs);
		if (s) {
			suite_free(s);
			fail_msg("%s: unexpectedly valid", f);
		}
		char *exp = xstrfmt("%.*s.expect", (int)(strlen(f) - 5), f);
		struct sbuf first = SBUF_INIT;
		if (sbuf_read_file(&first, f, 65536))
			fail_msg("%s: cannot read", f);
		if (!strncmp(first.buf, "# expect: ", 10)) {
			const char *nl = strchrnul(first.buf, '\n');
			sbuf_add(&expect, first.buf + 10, (size_t)(nl - first.buf) - 10);
			if (!access(exp, F_OK))
				fail_msg("%s: both '# expect:' and %s", f, exp);
		} else if (sbuf_read_file(&expect, exp, 65536)) {
			fail_msg("%s: cannot read (and no '# expect:' first line)", exp);
		}
		sbuf_release(&first);
		/* Every error line names the file first. */
		for (const char *p = errs.buf; *p;) {
			const char *nl = strchr(p, '\n');
			assert_non_null(nl);
			if (strncmp(p, f, strlen(f)) || p[strlen(f)] != ':')
				fail_msg("%s: line without the file: %.*s", f,
					 (int)(nl - p), p);
			p = nl + 1;
		}
		int lines = 0;
		for (char *line = strtok(expect.buf, "\n"); line;
		     line = strtok(NULL, "\n")) {
			lines++;
			if (!strstr(errs.buf, line))
				fail_msg("%s: expected '%s' in:\n%s", f, line, errs.buf);
		}
		assert_true(lines >= 1);
		free(exp);
		sbuf_release(&expect);
		sbuf_release(&errs);
	}
	strvec_clear(&files);
}

static void test_himorime_full(void **state)
{
	(void)state;
	struct sbuf errs = SBUF_INIT;
	struct suite *s = suite_load(SUITES "/valid/himorime-full.yaml", &errs);
	if (!s)
		fail_msg("%s", errs.buf);
	assert_string_equal(s->name, "demo");
	assert_string_equal(s->description, "sort and count lines");
	assert_non_null(s->build);
	assert_int_equal(s->build->argv.nr, 5);
	assert_string_equal(s->build->argv.v[3], "${artifact}");
	assert_string_equal(s->build->cwd, "src");
	assert_string_equal(strvec_getenv(&s->build->env, "CFLAGS"), "-O2");
	assert_true(s->build->timeout_ns == INT64_C(300000000000));

	assert_int_equal(s->nr_benches, 3);
	const struct bench_spec *b = &s->benches[0];
	assert_string_equal(b->name, "sort-20k");
	assert_int_equal(b->tags.nr, 2);
	assert_int_equal(b->stdin_spec.kind, STDIN_FILE);
	assert_string_equal(b->stdin_spec.value, "testdata/in.txt");
	assert_int_equal(b->nr_setup, 1);
	assert_true(b->setup[0].timeout_ns == INT64_C(300000000000));
	assert_int_equal(b->nr_prepare_each, 1);
	assert_true(b->prepare_each[0].shell);
	assert_string_equal(b->prepare_each[0].script, "rm -f ${workdir}/tmp/*");
	assert_true(b->cleanup[0].timeout_ns == INT64_C(30000000000));
	assert_string_equal(b->baseline, "sort");
	assert_int_equal(b->settings.runs, 20);
	assert_int_equal(b->settings.min_runs, 10);
	assert_true(b->settings.min_time_ns == INT64_C(2000000000));
	/* env layers: defaults LC_ALL and DEPTH, the benchmark overrides DEPTH */
	assert_string_equal(strvec_getenv(&b->settings.env, "LC_ALL"), "C");
	assert_string_equal(strvec_getenv(&b->settings.env, "DEPTH"), "4");
	assert_int_equal(b->settings.metrics.throughput.kind, WORK_VALUE);
	assert_true(b->settings.metrics.throughput.value == 20000);
	assert_string_equal(b->settings.metrics.throughput.unit, "lines");
	const struct regression_cfg *r = &b->settings.regression;
	assert_int_equal(r->commands.nr, 2);
	assert_true(r->metric[METRIC_LATENCY].configured);
	assert_true(r->metric[METRIC_LATENCY].max_percent == 5);
	/* min_difference inherited from defaults, max_percent overridden */
	assert_true(r->metric[METRIC_LATENCY].min_difference == 2e6);
	assert_true(r->metric[METRIC_PEAK_RSS].max_percent == 10);
	assert_true(r->metric[METRIC_CPU_TOTAL].compare);
	assert_false(r->metric[METRIC_INSTRUCTIONS].compare);

	assert_int_equal(b->nr_commands, 2);
	const struct command_spec *c = &b->commands[0];
	assert_string_equal(c->name, "sort");
	assert_false(c->exec.shell);
	assert_int_equal(c->exec.argv.nr, 3);
	assert_string_equal(c->exec.argv.v[2], "20000");
	assert_true(c->settings.timeout_ns == INT64_C(60000000000));
	assert_string_equal(c->settings.cwd, ".");
	c = &b->commands[1];
	assert_string_equal(c->name, "sort-sh");
	assert_true(c->exec.shell);
	assert_string_equal(c->exec.script, "${artifact} --n 20000 | wc -l");
	assert_string_equal(strvec_getenv(&c->settings.env, "EXTRA"), "yes");
	assert_string_equal(strvec_getenv(&c->settings.env, "DEPTH"), "4");
	assert_string_equal(strvec_getenv(&c->exec.env, "EXTRA"), "yes");
	assert_true(c->settings.timeout_ns == INT64_C(30000000000));
	assert_true(c->exec.timeout_ns == INT64_C(30000000000));
	assert_string_equal(c->settings.stdout_path, "out.txt");
	assert_null(c->settings.stderr_path);
	assert_int_equal(c->settings.nr_exit_codes, 2);
	assert_int_equal(c->settings.exit_codes[1], 1);
	assert_int_equal(c->nr_budgets, 5);
	int seen_p95 = 0, seen_rss = 0, seen_tp = 0, seen_p999 = 0;
	for (size_t i = 0; i < c->nr_budgets; i++) {
		const struct budget *bu = &c->budgets[i];
		if (bu->metric == METRIC_LATENCY && bu->aggregation == AGG_PERCENTILE) {
			seen_p95 = 1;
			assert_true(bu->percentile == 95);
			assert_int_equal(bu->op, BUDGET_LE);
			assert_true(bu->limit == 3e8);
			assert_string_equal(bu->aggregation_name, "p95");
			assert_string_equal(bu->limit_text, "<= 300ms");
			assert_true(bu->loc.line > 0);
		}
		if (bu->metric == METRIC_PEAK_RSS) {
			seen_rss = 1;
			assert_int_equal(bu->aggregation, AGG_MAX);
			assert_true(bu->limit == 64.0 * 1024 * 1024);
		}
		if (bu->metric == METRIC_THROUGHPUT) {
			seen_tp = 1;
			assert_int_equal(bu->op, BUDGET_GE);
			assert_string_equal(bu->unit, "lines");
		}
		if (bu->metric == METRIC_CPU_TOTAL) {
			seen_p999 = 1;
			assert_true(bu->percentile > 99.89 && bu->percentile < 99.91);
		}
	}
	assert_true(seen_p95 && seen_rss && seen_tp && seen_p999);

	b = &s->benches[1];
	assert_int_equal(b->stdin_spec.kind, STDIN_FILE);
	assert_true(b->terminal);
	assert_int_equal(b->settings.metrics.throughput.kind, WORK_FILE_SIZE);
	assert_string_equal(b->settings.metrics.throughput.unit, "bytes");
	assert_int_equal(b->settings.runs, 0); /* adaptive */
	assert_int_equal(b->commands[0].budgets[0].limit, 10000000);
	b = &s->benches[2];
	assert_int_equal(b->stdin_spec.kind, STDIN_CONTENT);
	assert_string_equal(b->stdin_spec.value, "hello\nworld\n");
	assert_string_equal(b->commands[0].name, "wc.v2");

	assert_int_equal(s->nr_outputs, 2);
	assert_string_equal(s->outputs[1].format, "markdown");
	assert_string_equal(s->outputs[1].section, "performance");
	assert_null(s->outputs[0].section);
	assert_int_equal(s->nr_versions, 1);
	assert_string_equal(s->versions[0].tool, "cc");
	assert_int_equal(s->versions[0].argv.nr, 2);
	suite_free(s);
	sbuf_release(&errs);
}

static void test_defaults_and_ext(void **state)
{
	(void)state;
	struct suite *s = expect_valid("version: \"1\"\nname: n\n"
				       "benchmarks:\n  - name: a\n"
				       "    commands: {x: {command: [ls]}}\n");
	const struct settings *st = &s->benches[0].commands[0].settings;
	assert_int_equal(st->warmup, 1);
	assert_int_equal(st->runs, 0);
	assert_int_equal(st->min_runs, 10);
	assert_int_equal(st->max_runs, 200);
	assert_true(st->max_time_ns == MAX_TIME_PER_COMMAND);
	assert_true(st->timeout_ns == INT64_C(60000000000));
	assert_int_equal(st->runs_per_round, 1);
	assert_int_equal(st->order, ORDER_RANDOM);
	assert_int_equal(st->nr_exit_codes, 1);
	assert_int_equal(st->exit_codes[0], 0);
	/* himorime measures latency only unless a suite asks for more, and
	 * compares nothing it does not measure. */
	assert_false(st->metrics.cpu);
	assert_false(st->metrics.memory);
	assert_false(st->regression.metric[METRIC_CPU_TOTAL].compare);
	assert_false(st->regression.metric[METRIC_PEAK_RSS].compare);
	assert_int_equal(st->metrics.counters, COUNTERS_OFF);
	assert_int_equal(st->regression.pairing, PAIRING_ROUNDS);
	assert_int_equal(st->regression.resamples, 2000);
	assert_true(st->regression.metric[METRIC_LATENCY].compare);
	assert_false(st->regression.metric[METRIC_LATENCY].configured);
	assert_true(st->regression.metric[METRIC_LATENCY].min_difference < 0);
	assert_null(s->build);
	suite_free(s);

	struct sbuf errs = SBUF_INIT;
	s = suite_load(SUITES "/valid/kagari-ext.yaml", &errs);
	assert_non_null(s);
	const struct bench_spec *b = &s->benches[0];
	assert_int_equal(s->defaults.order, ORDER_ABBA);
	assert_int_equal(b->settings.order, ORDER_ALTERNATE);
	assert_int_equal(s->defaults.metrics.counters, COUNTERS_LIST);
	assert_int_equal(s->defaults.metrics.counters_list,
			 (1u << METRIC_INSTRUCTIONS) | (1u << METRIC_CYCLES));
	assert_int_equal(b->settings.metrics.counters, COUNTERS_AVAILABLE);
	assert_int_equal(b->settings.metrics.instrument, INSTRUMENT_PERF);
	assert_true(b->settings.metrics.allocations);
	assert_true(b->settings.metrics.unsupported_skip);
	assert_int_equal(b->settings.regression.pairing, PAIRING_INDEPENDENT);
	assert_int_equal(b->settings.regression.correction, CORRECTION_NONE);
	/* rare_share from defaults, as a share */
	assert_true(fabs(b->settings.regression.rare_share - 0.02) < 1e-12);
	assert_true(s->defaults.regression.rare_share > 0.0199);
	const struct metric_regression *mr =
		&b->settings.regression.metric[METRIC_ALLOC_BYTES];
	assert_true(mr->configured && mr->compare);
	assert_true(mr->min_difference == 1024);
	assert_true(b->settings.regression.metric[METRIC_ALLOCS].min_difference == 10);
	assert_true(b->settings.regression.metric[METRIC_INSTRUCTIONS].max_percent == 1);
	const struct command_spec *c = &b->commands[0];
	assert_string_equal(c->name, "true");
	assert_int_equal(c->nr_budgets, 3);
	assert_true(c->budgets[1].metric == METRIC_CPU_UTILIZATION);
	assert_true(c->budgets[1].limit == 0.5);
	suite_free(s);
	sbuf_release(&errs);
}

static void test_three_mistakes_at_once(void **state)
{
	(void)state;
	const char *yaml = "version: \"1\"\n"
			   "name: n\n"
			   "defaults:\n"
			   "  warmup: lots\n"
			   "benchmarks:\n"
			   "  - name: a\n"
			   "    commands:\n"
			   "      sort:\n"
			   "        comand: [sort]\n"
			   "        timeout: 10\n";
	struct sbuf errs = SBUF_INIT;
	assert_null(load_str(yaml, &errs));
	const char *want[] = {
		"t.yaml:4:11: defaults.warmup: expected an integer, got a string\n",
		"t.yaml:9:9: benchmarks[0].commands.sort.comand: unknown key 'comand', did you mean 'command'?\n",
		"t.yaml:10:18: benchmarks[0].commands.sort.timeout: duration '10' needs a unit",
	};
	const char *p = errs.buf;
	for (size_t i = 0; i < 3; i++) {
		const char *at = strstr(p, want[i]);
		if (!at)
			fail_msg("missing (in order) '%s' in:\n%s", want[i], errs.buf);
		p = at + 1;
	}
	size_t lines = 0;
	for (const char *q = errs.buf; *q; q++)
		lines += *q == '\n';
	assert_int_equal(lines, 3);
	sbuf_release(&errs);
}

static void test_encoding(void **state)
{
	(void)state;
	struct sbuf errs = SBUF_INIT;
	static const char nul[] = "version: \"1\"\nna\0me: x\n";
	assert_null(suite_load_mem("t.yaml", nul, sizeof(nul) - 1, &errs));
	assert_non_null(strstr(errs.buf, "t.yaml:2:3: control character U+0000"));
	sbuf_reset(&errs);

	expect_errors("\xef\xbb\xbfversion: \"1\"\n", "t.yaml:1:1: the file starts with a UTF-8 byte order mark", NULL);
	expect_errors("version: \"1\"\nname: \"a\x1b[1m\"\n", "t.yaml:2:9: control character U+001B", NULL);
	expect_errors("version: \"1\"\nname: \xc3\x28\n", "t.yaml:2:7: invalid UTF-8 (byte 0xc3)", NULL);
	expect_errors("version: \"1\"\nname: \xed\xa0\x80\n", "t.yaml:2:7: invalid UTF-8", NULL);
	expect_errors("name: \xc2\x85x\n", "t.yaml:1:7: control character U+0085", NULL);
	/* Non-ASCII text is fine and columns count characters. */
	expect_errors("version: \"1\"\nname: \xc3\xa9t\xc3\xa9\nbenchmarks: 5\n",
		      "t.yaml:3:13: benchmarks: expected a list", NULL);
	expect_errors("version: \"1\"\nname: n\nbenchmarks:\n  - name: a\n"
		      "    commands: {x: {command: [\"r\xc3\xa9sum\xc3\xa9 ${nope}\"]}}\n",
		      "t.yaml:5:38: benchmarks[0].commands.x.command[0]: unknown variable '${nope}'",
		      NULL);

	/* Over 1 MiB, from memory and from disk. */
	size_t big = SUITE_MAX_BYTES + 1;
	char *data = xmalloc(big);
	memset(data, '#', big);
	data[big - 1] = '\n';
	assert_null(suite_load_mem("t.yaml", data, big, &errs));
	assert_non_null(strstr(errs.buf, "t.yaml: the suite is larger than 1 MiB"));
	sbuf_reset(&errs);
	char dir[] = "/tmp/kagari-suite-XXXXXX";
	assert_non_null(mkdtemp(dir));
	char *path = xstrfmt("%s/big.yaml", dir);
	FILE *f = fopen(path, "w");
	assert_non_null(f);
	fwrite(data, 1, big, f);
	fclose(f);
	assert_null(suite_load(path, &errs));
	assert_non_null(strstr(errs.buf, "the suite is larger than 1 MiB"));
	assert_true(!strncmp(errs.buf, path, strlen(path)));
	sbuf_reset(&errs);
	unlink(path);
	free(path);
	free(data);

	/* A directory and a missing file have no position. */
	assert_null(suite_load(dir, &errs));
	char *want = xstrfmt("%s: is a directory", dir);
	assert_non_null(strstr(errs.buf, want));
	free(want);
	sbuf_reset(&errs);
	path = xstrfmt("%s/missing.yaml", dir);
	assert_null(suite_load(path, &errs));
	want = xstrfmt("%s: cannot read the suite: No such file or directory\n", path);
	assert_string_equal(errs.buf, want);
	free(want);
	free(path);
	rmdir(dir);
	sbuf_release(&errs);
}

static void test_yaml_structure(void **state)
{
	(void)state;
	/* Small aliases and merge keys are fine. */
	struct suite *s = expect_valid(
		"version: \"1\"\nname: n\n"
		"benchmarks:\n"
		"  - name: a\n"
		"    env: &envs {A: \"1\", B: \"2\"}\n"
		"    commands:\n"
		"      x: &cmd {command: [ls], timeout: 5s}\n"
		"      y:\n"
		"        <<: *cmd\n"
		"        timeout: 7s\n"
		"        env: *envs\n");
	const struct bench_spec *b = &s->benches[0];
	assert_int_equal(b->nr_commands, 2);
	assert_true(b->commands[1].settings.timeout_ns == INT64_C(7000000000));
	assert_string_equal(b->commands[1].exec.argv.v[0], "ls");
	assert_string_equal(strvec_getenv(&b->commands[1].settings.env, "B"), "2");
	suite_free(s);

	/* A merged key that is unknown is still reported. */
	expect_errors("version: \"1\"\nname: n\nbenchmarks:\n  - name: a\n"
		      "    commands:\n      x:\n        <<: {command: [ls], runz: 1}\n",
		      "t.yaml:7:29: benchmarks[0].commands.x.runz: unknown key 'runz'", NULL);
	/* Keys must be strings; duplicates inside a command. */
	expect_errors("version: \"1\"\nname: n\n? [a]\n: 1\nbenchmarks: []\n",
		      "t.yaml:3:3: keys must be strings, got a list", NULL);
	expect_errors("version: \"1\"\nname: n\nbenchmarks:\n  - name: a\n"
		      "    commands: {x: {command: [ls], command: [ls]}}\n",
		      "t.yaml:5:35: benchmarks[0].commands.x.command: duplicate key 'command' (first defined at line 5)",
		      NULL);
	/* Nested type errors at every level. */
	expect_errors("version: \"1\"\nname: n\nbenchmarks:\n  - name: a\n"
		      "    metrics: [cpu]\n"
		      "    regression: {latency: 5}\n"
		      "    commands: {x: [ls], y: {command: {a: b}}, z: {command: [ls], env: [A]}}\n",
		      "t.yaml:5:14: benchmarks[0].metrics: expected a mapping, got a list",
		      "t.yaml:6:27: benchmarks[0].regression.latency: expected a mapping, got an integer",
		      "t.yaml:7:19: benchmarks[0].commands.x: expected a mapping, got a list",
		      "t.yaml:7:38: benchmarks[0].commands.y.command: expected an argv list",
		      "t.yaml:7:71: benchmarks[0].commands.z.env: expected a mapping, got a list",
		      NULL);
	/* As in himorime, strings are strings: version 1, numbers, booleans
	 * and null in name, env and argv are errors naming the type. */
	expect_errors("version: 1\nname: n\nbenchmarks:\n  - name: a\n    commands: {x: {command: [ls]}}\n",
		      "t.yaml:1:10: version: expected the string \"1\", got an integer", NULL);
	expect_errors("version: \"1\"\nname: 5\nbenchmarks:\n  - name: a\n"
		      "    env: {N: 10, B: true, E: }\n"
		      "    commands: {x: {command: [sleep, 0.5, true]}}\n",
		      "t.yaml:2:7: name: expected a string, got an integer (quote it: \"5\")",
		      "t.yaml:5:14: benchmarks[0].env.N: expected a string, got an integer",
		      "t.yaml:5:21: benchmarks[0].env.B: expected a string, got a boolean",
		      "t.yaml:5:30: benchmarks[0].env.E: expected a string, got null",
		      "t.yaml:6:37: benchmarks[0].commands.x.command[1]: expected a string, got a number",
		      "t.yaml:6:42: benchmarks[0].commands.x.command[2]: expected a string, got a boolean",
		      NULL);
	/* Quoted, the same values are taken as written. */
	s = expect_valid("version: \"1\"\nname: n\nbenchmarks:\n  - name: a\n"
			 "    env: {N: \"10\", B: \"true\", F: \"1.50\", E: \"\"}\n"
			 "    commands: {x: {command: [sleep, \"0.5\"]}}\n");
	assert_string_equal(strvec_getenv(&s->benches[0].settings.env, "N"), "10");
	assert_string_equal(strvec_getenv(&s->benches[0].settings.env, "B"), "true");
	assert_string_equal(strvec_getenv(&s->benches[0].settings.env, "F"), "1.50");
	assert_string_equal(strvec_getenv(&s->benches[0].settings.env, "E"), "");
	assert_string_equal(s->benches[0].commands[0].exec.argv.v[1], "0.5");
	suite_free(s);
}

static void test_variables_and_paths(void **state)
{
	(void)state;
	/* $${ is a literal and not checked; ${exe} and ${env:X} anywhere. */
	struct suite *s = expect_valid(
		"version: \"1\"\nname: n\nbuild: {command: [make, \"OUT=${artifact}${exe}\"]}\n"
		"benchmarks:\n  - name: a\n"
		"    cwd: \"${root}/sub\"\n"
		"    commands:\n"
		"      x: {command: \"echo $${HOME} ${env:HOME} ${artifact} >/dev/null\", shell: true}\n"
		"      y: {command: [\"${artifact}\", \"--out=${workdir}/o\", \"-I${root}/inc\"]}\n"
		"      z: {command: [ls], stdout: \"${workdir}/x.txt\"}\n");
	assert_string_equal(s->benches[0].commands[2].settings.stdout_path, "x.txt");
	assert_string_equal(s->benches[0].settings.cwd, "${root}/sub");
	assert_false(s->build_no_submodules); /* a build needs them unless it says not */
	suite_free(s);
	/* build.submodules (issue 40): the build's only, a boolean. */
	s = expect_valid("version: \"1\"\nname: n\nbuild: {command: [make], submodules: false}\n"
			 "benchmarks:\n  - name: a\n    commands: {x: {command: [ls]}}\n");
	assert_true(s->build_no_submodules);
	suite_free(s);
	expect_errors("version: \"1\"\nname: n\nbuild: {command: [make], submodules: 0}\n"
		      "benchmarks:\n  - name: a\n    commands: {x: {command: [ls]}}\n",
		      "build.submodules: ", NULL);
	expect_errors("version: \"1\"\nname: n\nbenchmarks:\n  - name: a\n"
		      "    setup: [{command: [ls], submodules: false}]\n"
		      "    commands: {x: {command: [ls]}}\n",
		      "unknown key 'submodules'", NULL);

	expect_errors("version: \"1\"\nname: n\nbenchmarks:\n  - name: a\n"
		      "    cwd: \"${root}/../../../../../../../../../../../../../x\"\n    commands: {x: {command: [ls]}}\n",
		      "t.yaml:5:10: benchmarks[0].cwd: '${root}/../../../../../../../../../../../../../x' leaves the repository", NULL);
	/* himorime allows ${workdir} in every benchmark path but build's: a
	 * stdin or a file_size that setup wrote. */
	s = expect_valid("version: \"1\"\nname: n\nbenchmarks:\n  - name: a\n"
			 "    stdin: {file: \"${workdir}/in\"}\n"
			 "    metrics: {throughput: {work: {file_size: \"${workdir}/in\"}}}\n"
			 "    commands: {x: {command: [ls]}}\n");
	assert_string_equal(s->benches[0].stdin_spec.value, "${workdir}/in");
	assert_string_equal(s->benches[0].settings.metrics.throughput.file, "${workdir}/in");
	suite_free(s);
	expect_errors("version: \"1\"\nname: n\nbenchmarks:\n  - name: a\n"
		      "    stdin: \"${workdir}/a/../b\"\n    cwd: \"${env:HOME}\"\n"
		      "    commands: {x: {command: [ls]}}\n",
		      "t.yaml:5:12: benchmarks[0].stdin: '${workdir}/a/../b' must not contain '..' after ${workdir}",
		      "t.yaml:6:10: benchmarks[0].cwd: '${env:HOME}' is not allowed in a path", NULL);
	expect_errors("version: \"1\"\nname: n\nbuild: {command: [make], cwd: \"${workdir}\"}\n"
		      "benchmarks:\n  - name: a\n    commands: {x: {command: [ls]}}\n",
		      "t.yaml:3:31: build.cwd: '${workdir}' is not available in build", NULL);
	expect_errors("version: \"1\"\nname: n\nbenchmarks:\n  - name: a\n"
		      "    commands: {x: {command: \"a \\\"${root}\\\"\", shell: true}}\n",
		      "benchmarks[0].commands.x.command: '${root}' is inside quotes", NULL);
	expect_errors("version: \"1\"\nname: n\nbenchmarks:\n  - name: a\n"
		      "    commands: {x: {command: [\"${env:1X}\"]}}\n",
		      "invalid environment variable name in '${env:1X}'", NULL);
	expect_errors("version: \"1\"\nname: n\nbenchmarks:\n  - name: a\n"
		      "    commands: {x: {command: [\"${root}${root}\"]}}\n",
		      "'${root}' may only begin a path", NULL);
}

static void write_file(const char *path, const char *text)
{
	FILE *f = fopen(path, "w");
	assert_non_null(f);
	fputs(text, f);
	fclose(f);
}

static void test_repository_root(void **state)
{
	(void)state;
	char dir[] = "/tmp/kagari-suite-XXXXXX";
	assert_non_null(mkdtemp(dir));
	char *git = xstrfmt("%s/.git", dir), *sub = xstrfmt("%s/bench", dir);
	char *file = xstrfmt("%s/bench/kagari.yaml", dir);
	assert_int_equal(mkdir(git, 0700), 0);
	assert_int_equal(mkdir(sub, 0700), 0);
	write_file(file, "version: \"1\"\nname: n\nbenchmarks:\n  - name: a\n"
			 "    cwd: ../src\n    stdin: ../data/in.txt\n"
			 "    commands: {x: {command: [ls]}}\n");
	struct sbuf errs = SBUF_INIT;
	struct suite *s = suite_load(file, &errs);
	if (!s)
		fail_msg("%s", errs.buf);
	char *real = realpath(dir, NULL);
	char *real_sub = xstrfmt("%s/bench", real);
	assert_string_equal(s->root, real);
	assert_string_equal(s->dir, real_sub);
	suite_free(s);
	write_file(file, "version: \"1\"\nname: n\nbenchmarks:\n  - name: a\n"
			 "    cwd: src/../../../x\n"
			 "    commands: {x: {command: [ls]}}\n");
	assert_null(suite_load(file, &errs));
	assert_non_null(strstr(errs.buf, "benchmarks[0].cwd: 'src/../../../x' leaves the repository"));
	unlink(file);
	rmdir(sub);
	rmdir(git);
	rmdir(dir);
	free(real);
	free(real_sub);
	free(git);
	free(sub);
	free(file);
	sbuf_release(&errs);
}

static void test_discover(void **state)
{
	(void)state;
	char dir[] = "/tmp/kagari-suite-XXXXXX";
	assert_non_null(mkdtemp(dir));
	const char *names[] = { "kagari.yaml", "b.kagari.yaml", "a.himorime.yaml",
				"himorime.yaml", "other.yaml", "kagari.yml" };
	for (size_t i = 0; i < 6; i++) {
		char *p = xstrfmt("%s/%s", dir, names[i]);
		write_file(p, "x\n");
		free(p);
	}
	struct strvec files = STRVEC_INIT;
	struct sbuf err = SBUF_INIT;
	const char *args[] = { dir };
	assert_int_equal(suite_discover(args, 1, &files, &err), 0);
	assert_int_equal(files.nr, 4);
	char *want = xstrfmt("%s/a.himorime.yaml", dir);
	assert_string_equal(files.v[0], want);
	free(want);
	want = xstrfmt("%s/kagari.yaml", dir);
	assert_string_equal(files.v[3], want);

	/* A file is taken as given; a missing path is an error. */
	strvec_clear(&files);
	char *other = xstrfmt("%s/other.yaml", dir);
	char *missing = xstrfmt("%s/nope.yaml", dir);
	const char *args2[] = { other, missing };
	assert_int_equal(suite_discover(args2, 2, &files, &err), -1);
	assert_int_equal(files.nr, 1);
	assert_string_equal(files.v[0], other);
	assert_non_null(strstr(err.buf, "nope.yaml: no such file or directory"));
	sbuf_reset(&err);

	/* No PATH: ./kagari.yaml, else ./himorime.yaml. */
	char *cwd = getcwd(NULL, 0);
	assert_int_equal(chdir(dir), 0);
	strvec_clear(&files);
	assert_int_equal(suite_discover(NULL, 0, &files, &err), 0);
	assert_string_equal(files.v[0], "kagari.yaml");
	unlink("kagari.yaml");
	strvec_clear(&files);
	assert_int_equal(suite_discover(NULL, 0, &files, &err), 0);
	assert_string_equal(files.v[0], "himorime.yaml");
	unlink("himorime.yaml");
	strvec_clear(&files);
	assert_int_equal(suite_discover(NULL, 0, &files, &err), -1);
	assert_non_null(strstr(err.buf, "neither kagari.yaml nor himorime.yaml"));
	assert_int_equal(chdir(cwd), 0);
	free(cwd);

	for (size_t i = 0; i < 6; i++) {
		char *p = xstrfmt("%s/%s", dir, names[i]);
		unlink(p);
		free(p);
	}
	rmdir(dir);
	free(want);
	free(other);
	free(missing);
	strvec_clear(&files);
	sbuf_release(&err);
}

/*
 * A tree of our own, as a commit's is read (cmd/gate_suites.c): the same
 * rule must find the same files in it as in the working tree.
 */
static const char *const fake_files[] = { "kagari.yaml", "x.kagari.yaml",
					  "sub/himorime.yaml", "sub/notes.txt",
					  "sub/dir.kagari.yaml/inner" };

static int fake_kind(void *data, const char *path, enum suite_entry *kind,
		     struct sbuf *err)
{
	(void)data;
	(void)err;
	size_t n = strlen(path);
	*kind = SUITE_ENTRY_NONE;
	for (size_t i = 0; i < 5; i++) {
		if (!strcmp(fake_files[i], path))
			*kind = SUITE_ENTRY_FILE;
		else if (!strncmp(fake_files[i], path, n) &&
			 fake_files[i][n] == '/')
			*kind = SUITE_ENTRY_DIR;
	}
	if (!strcmp(path, "broken")) {
		sbuf_addf(err, "broken: cannot be read\n");
		return -1;
	}
	return 0;
}

static int fake_files_in(void *data, const char *dir, struct strvec *names,
			 struct sbuf *err)
{
	(void)data;
	(void)err;
	size_t n = strlen(dir);
	for (size_t i = 0; i < 5; i++)
		if (!strncmp(fake_files[i], dir, n) &&
		    fake_files[i][n] == '/' &&
		    !strchr(fake_files[i] + n + 1, '/'))
			strvec_push(names, fake_files[i] + n + 1);
	return 0;
}

static void test_discover_tree(void **state)
{
	(void)state;
	struct suite_tree t = { fake_kind, fake_files_in, NULL };
	struct strvec files = STRVEC_INIT;
	struct sbuf err = SBUF_INIT;

	/* No PATH: kagari.yaml first. */
	assert_int_equal(suite_discover_tree(&t, NULL, 0, &files, &err), 0);
	assert_int_equal(files.nr, 1);
	assert_string_equal(files.v[0], "kagari.yaml");
	strvec_clear(&files);

	/* A folder: its suite files only (not notes.txt, not a folder that
	   matches the pattern); a file as given; a missing path and a
	   folder without suites are errors. */
	const char *args[] = { "sub", "x.kagari.yaml", "nope", "sub/dir.kagari.yaml" };
	assert_int_equal(suite_discover_tree(&t, args, 4, &files, &err), -1);
	assert_int_equal(files.nr, 2);
	assert_string_equal(files.v[0], "sub/himorime.yaml");
	assert_string_equal(files.v[1], "x.kagari.yaml");
	assert_non_null(strstr(err.buf, "nope: no such file or directory"));
	assert_non_null(strstr(err.buf, "sub/dir.kagari.yaml: no suite in this directory"));
	sbuf_reset(&err);
	strvec_clear(&files);

	/* The tree's own failure is passed on. */
	const char *bad[] = { "broken" };
	assert_int_equal(suite_discover_tree(&t, bad, 1, &files, &err), -1);
	assert_non_null(strstr(err.buf, "broken: cannot be read"));
	assert_int_equal(files.nr, 0);
	strvec_clear(&files);
	sbuf_release(&err);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_valid_corpus),
		cmocka_unit_test(test_invalid_corpus),
		cmocka_unit_test(test_himorime_compat),
		cmocka_unit_test(test_himorime_full),
		cmocka_unit_test(test_defaults_and_ext),
		cmocka_unit_test(test_three_mistakes_at_once),
		cmocka_unit_test(test_encoding),
		cmocka_unit_test(test_yaml_structure),
		cmocka_unit_test(test_variables_and_paths),
		cmocka_unit_test(test_repository_root),
		cmocka_unit_test(test_discover),
		cmocka_unit_test(test_discover_tree),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
