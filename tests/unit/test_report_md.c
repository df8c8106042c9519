/*
 * report (markdown, github): section rewrites keep the rest of a page
 * byte for byte; tables list every comparison and budget; user text is
 * escaped; the pull-request page keeps ten problem rows, most severe first.
 */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "base/xalloc.h"
#include "report/report.h"
#include "report/section.h"

/* ---- fixtures ---------------------------------------------------------- */

static void series(struct metric_series *ms, double v0, double step)
{
	for (int i = 0; i < 20; i++)
		metric_series_add(ms, v0 + step * (i % 7), i / 2 + 1, i + 1);
	ms->have_summary = 1;
	ms->summary.count = 20;
	ms->summary.min = v0;
	ms->summary.max = v0 + 6 * step;
	ms->summary.mean = ms->summary.median = v0 + 3 * step;
	ms->summary.stddev = step;
	ms->summary.p95 = v0 + 6 * step;
}

static void comparison(struct command_result *c, enum metric_id m,
		       const char *verdict, int gate, double change)
{
	struct comparison *cp = &c->comparison[m];

	cp->present = 1;
	cp->statistic = xstrdup("median");
	cp->pairing = xstrdup("rounds");
	cp->base = 100e6;
	cp->head = 100e6 * (1 + change / 100);
	cp->change_percent = change;
	cp->ci_low_percent = change - 2;
	cp->ci_high_percent = change + 2;
	cp->confidence = 0.95;
	cp->max_percent = 10;
	cp->p_value = cp->p_adjusted = 0.01;
	cp->noise_floor_percent = 1.5;
	cp->verdict = (enum verdict)verdict_parse(verdict);
	cp->reason = xstrfmt("%s because | of <b>reasons</b>", verdict);
	cp->gate = gate;
}

static void budget(struct command_result *c, enum budget_status st,
		   double actual)
{
	c->budgets =
	    xreallocarray(c->budgets, c->nr_budgets + 1, sizeof(*c->budgets));
	struct budget_result *b = &c->budgets[c->nr_budgets++];
	memset(b, 0, sizeof(*b));
	b->metric = METRIC_LATENCY;
	b->aggregation = xstrdup("p95");
	b->op = xstrdup("<=");
	b->limit = 100e6;
	b->limit_text = xstrdup("<= 100ms");
	b->have_actual = st != BUDGET_UNASSESSABLE;
	b->actual = actual;
	b->status = st;
	if (st == BUDGET_UNASSESSABLE)
		b->reason = xstrdup("latency was not measured");
}

/* A compare result: one suite, one benchmark, n commands named "cmd<i>". */
static void build(struct run_result *r, size_t n, const char *bench_name)
{
	run_result_init(r);
	r->mode = xstrdup("compare");
	r->seed = 424242;
	r->started_at = xstrdup("2024-05-01T10:00:00Z");
	r->env.os = xstrdup("Linux");
	r->env.cpu_model = xstrdup("Test | CPU");
	r->env.logical_cpus = 2;
	r->git.head_sha = xstrdup("0123456789abcdef0123456789abcdef01234567");
	r->git.base_ref = xstrdup("main");
	r->git.base_sha = xstrdup("89abcdef0123456789abcdef0123456789abcdef");
	r->git.dirty = 1;
	r->nr_suites = 1;
	r->suites = xcalloc(1, sizeof(*r->suites));
	struct suite_result *s = &r->suites[0];
	s->name = xstrdup("demo");
	s->file = xstrdup("kagari.yaml");
	s->result = RESULT_PASS;
	s->nr_benches = 1;
	s->benches = xcalloc(1, sizeof(*s->benches));
	struct bench_result *b = &s->benches[0];
	strvec_init(&b->tags);
	b->name = xstrdup(bench_name);
	b->result = RESULT_PASS;
	b->nr_commands = n;
	b->commands = xcalloc(n ? n : 1, sizeof(*b->commands));
	for (size_t i = 0; i < n; i++) {
		struct command_result *c = &b->commands[i];
		c->name = xstrfmt("cmd%zu", i);
		c->command = xstrdup("./prog --n 1");
		c->result = RESULT_PASS;
		c->rounds = 10;
		for (int sd = 0; sd < SIDE__COUNT; sd++) {
			c->side[sd].present = 1;
			c->side[sd].count = 20;
			series(&c->side[sd].metric[METRIC_LATENCY],
			       100e6 + sd * 5e6, 1e6);
			series(&c->side[sd].metric[METRIC_PEAK_RSS], 1 << 20,
			       4096);
		}
	}
	r->summary.benchmarks = 1;
	r->summary.commands = (int)n;
}

static void release(struct run_result *r)
{
	run_result_release(r);
}

static char *render(const struct run_result *r, enum report_format f,
		    const char *section)
{
	struct sbuf out = SBUF_INIT, err = SBUF_INIT;
	struct report_options o;

	report_options_init(&o);
	if (section)
		o.section = section;
	assert_int_equal(report_render(r, f, &o, &out, &err), 0);
	assert_int_equal(err.len, 0);
	sbuf_release(&err);
	return sbuf_detach(&out);
}

static size_t count(const char *hay, const char *needle)
{
	size_t n = 0, k = strlen(needle);
	for (const char *p = hay; (p = strstr(p, needle)); p += k)
		n++;
	return n;
}

/* Lines of s starting with prefix. */
static size_t lines_starting(const char *s, const char *prefix)
{
	size_t n = 0, k = strlen(prefix);
	for (const char *p = s; p && *p;) {
		if (!strncmp(p, prefix, k))
			n++;
		p = strchr(p, '\n');
		if (p)
			p++;
	}
	return n;
}

/* Unescaped pipes of one table line (a backslash escapes the next). */
static size_t cell_pipes(const char *line, size_t len)
{
	size_t n = 0;
	for (size_t i = 0; i < len; i++) {
		if (line[i] == '\\') {
			i++;
			continue;
		}
		n += line[i] == '|';
	}
	return n;
}

/* Every line of a table (from "| " header on) has the header's pipes. */
static void assert_tables_regular(const char *md)
{
	const char *p = md;
	size_t want = 0;

	while (*p) {
		const char *nl = strchr(p, '\n');
		size_t len = nl ? (size_t)(nl - p) : strlen(p);
		if (len && p[0] == '|') {
			size_t k = cell_pipes(p, len);
			if (!want)
				want = k;
			if (k != want)
				fail_msg(
				    "table row has %zu cells, header %zu: %.*s",
				    k, want, (int)len, p);
		} else {
			want = 0;
		}
		p += len;
		if (*p)
			p++;
	}
}

/* ---- section update ------------------------------------------------ */

static void update(const char *page, const char *name, const char *sec,
		   struct sbuf *out, int expect)
{
	struct sbuf err = SBUF_INIT;
	sbuf_reset(out);
	int rc = report_section_update(page, page ? strlen(page) : 0, name, sec,
				       out, &err);
	if (rc != expect)
		fail_msg("rc %d, expected %d: %s", rc, expect, err.buf);
	if (rc < 0)
		assert_true(err.len > 0);
	sbuf_release(&err);
}

static void test_section_replace_keeps_rest(void **state)
{
	(void)state;
	const char *before =
	    "# My project\r\n\r\nSome text with <!-- a comment -->\r\n"
	    "<!-- kagari:begin other -->\r\nother report\r\n"
	    "<!-- kagari:end other -->\r\n\r\n";
	const char *after =
	    "\r\nTrailing text, no final newline \xc3\xa9 | pipes";
	const char *old_sec = "<!-- kagari:begin kagari -->\r\nold\r\nstuff\r\n"
			      "<!-- kagari:end kagari -->";
	const char *sec = "<!-- kagari:begin kagari -->\nnew\n"
			  "<!-- kagari:end kagari -->\n";
	char *page = xstrfmt("%s%s%s", before, old_sec, after);
	struct sbuf out = SBUF_INIT;

	update(page, "kagari", sec, &out, 0);
	/* everything outside the section byte for byte */
	assert_int_equal(memcmp(out.buf, before, strlen(before)), 0);
	assert_true(out.len >= strlen(after));
	assert_string_equal(out.buf + out.len - strlen(after), after);
	/* the section itself: CRLF as the page had it, the old text gone */
	assert_non_null(strstr(out.buf,
			       "<!-- kagari:begin kagari -->\r\nnew\r\n"
			       "<!-- kagari:end kagari -->\r\nTrailing"));
	assert_null(strstr(out.buf, "old\r\nstuff"));
	assert_non_null(strstr(out.buf, "other report"));

	/* updating again with the same section changes nothing */
	char *once = xstrdup(out.buf);
	update(once, "kagari", sec, &out, 0);
	assert_string_equal(out.buf, once);

	/* the other section can be replaced without touching ours */
	update(once, "other",
	       "<!-- kagari:begin other -->\nX\n<!-- kagari:end other -->\n",
	       &out, 0);
	assert_non_null(strstr(out.buf, "\r\nX\r\n"));
	assert_non_null(strstr(out.buf, "\r\nnew\r\n"));
	assert_null(strstr(out.buf, "other report"));
	free(once);
	free(page);
	sbuf_release(&out);
}

static void test_section_lf_page_and_append(void **state)
{
	(void)state;
	const char *sec = "<!-- kagari:begin kagari -->\nnew\n"
			  "<!-- kagari:end kagari -->\n";
	struct sbuf out = SBUF_INIT;

	/* LF page, section in the middle */
	update("a\n<!-- kagari:begin kagari -->\nx\n<!-- kagari:end kagari "
	       "-->\nb\n",
	       "kagari", sec, &out, 0);
	assert_string_equal(out.buf, "a\n<!-- kagari:begin kagari -->\nnew\n"
				     "<!-- kagari:end kagari -->\nb\n");
	/* empty or missing page: the section alone */
	update("", "kagari", sec, &out, 0);
	assert_string_equal(out.buf, sec);
	update(NULL, "kagari", sec, &out, 0);
	assert_string_equal(out.buf, sec);
	/* absent: appended after a blank line, page kept */
	update("# Title\nno newline", "kagari", sec, &out, 0);
	assert_string_equal(out.buf, "# Title\nno newline\n\n"
				     "<!-- kagari:begin kagari -->\nnew\n"
				     "<!-- kagari:end kagari -->\n");
	update("# Title\n\n", "kagari", sec, &out, 0);
	assert_string_equal(out.buf,
			    "# Title\n\n<!-- kagari:begin kagari -->\nnew\n"
			    "<!-- kagari:end kagari -->\n");
	/* CRLF page: appended with CRLF */
	update("# Title\r\ntext\r\n", "kagari", sec, &out, 0);
	assert_string_equal(
	    out.buf,
	    "# Title\r\ntext\r\n\r\n<!-- kagari:begin kagari -->\r\nnew\r\n"
	    "<!-- kagari:end kagari -->\r\n");
	/* a section of another name does not count */
	update(
	    "<!-- kagari:begin kagari2 -->\nz\n<!-- kagari:end kagari2 -->\n",
	    "kagari", sec, &out, 0);
	assert_non_null(strstr(
	    out.buf,
	    "z\n<!-- kagari:end kagari2 -->\n\n<!-- kagari:begin kagari -->"));
	sbuf_release(&out);
}

static void test_section_rejects(void **state)
{
	(void)state;
	const char *sec = "<!-- kagari:begin kagari -->\nnew\n"
			  "<!-- kagari:end kagari -->\n";
	struct sbuf out = SBUF_INIT;

	update("<!-- kagari:begin kagari -->\nx\n", "kagari", sec, &out, -1);
	update("x\n<!-- kagari:end kagari -->\n", "kagari", sec, &out, -1);
	update("<!-- kagari:end kagari -->\n<!-- kagari:begin kagari -->\n",
	       "kagari", sec, &out, -1);
	update("<!-- kagari:begin kagari -->\n<!-- kagari:end kagari -->\n"
	       "<!-- kagari:begin kagari -->\n<!-- kagari:end kagari -->\n",
	       "kagari", sec, &out, -1);
	update("<!-- kagari:begin kagari -->\n<!-- kagari:begin kagari -->\n"
	       "<!-- kagari:end kagari -->\n",
	       "kagari", sec, &out, -1);
	assert_int_equal(out.len, 0); /* untouched on failure */
	/* invalid names and a new section without its markers */
	update("", "bad name", sec, &out, -1);
	update("", "x-->", sec, &out, -1);
	update("", "", sec, &out, -1);
	update("", "-x", sec, &out, -1);
	update("", "kagari", "no markers\n", &out, -1);
	update("", "other", sec, &out, -1);
	assert_true(report_section_name_valid("perf.linux-x86_64"));
	assert_false(report_section_name_valid("a b"));
	sbuf_release(&out);
}

/* The rendered report is a valid section: rendering twice is stable. */
static void test_markdown_section_roundtrip(void **state)
{
	(void)state;
	struct run_result r;
	struct sbuf out = SBUF_INIT, err = SBUF_INIT, again = SBUF_INIT;
	build(&r, 2, "bench");
	comparison(&r.suites[0].benches[0].commands[0], METRIC_LATENCY, "pass",
		   1, 1.0);
	char *md = render(&r, REPORT_MARKDOWN, "nightly");
	assert_true(!strncmp(md, "<!-- kagari:begin nightly -->\n", 30));
	assert_non_null(strstr(md, "\n<!-- kagari:end nightly -->\n"));

	const char *page = "intro\n\n<!-- kagari:begin nightly -->\nold\n"
			   "<!-- kagari:end nightly -->\n\noutro\n";
	assert_int_equal(report_section_update(page, strlen(page), "nightly",
					       md, &out, &err),
			 0);
	assert_true(
	    !strncmp(out.buf, "intro\n\n<!-- kagari:begin nightly -->\n", 37));
	assert_string_equal(out.buf + out.len - 8, "\n\noutro\n");
	assert_int_equal(report_section_update(out.buf, out.len, "nightly", md,
					       &again, &err),
			 0);
	assert_string_equal(again.buf, out.buf);

	/* an invalid section name is an error, not a broken page */
	struct report_options o;
	struct sbuf bad = SBUF_INIT;
	report_options_init(&o);
	o.section = "no spaces";
	assert_int_equal(report_render(&r, REPORT_MARKDOWN, &o, &bad, &err),
			 -1);
	assert_non_null(strstr(err.buf, "no spaces"));
	free(md);
	sbuf_release(&out);
	sbuf_release(&err);
	sbuf_release(&again);
	sbuf_release(&bad);
	release(&r);
}

/* ---- markdown tables ------------------------------------------------- */

static void test_markdown_every_comparison_and_budget(void **state)
{
	(void)state;
	struct run_result r;
	const size_t n = 40;

	build(&r, n, "bench");
	for (size_t i = 0; i < n; i++) {
		struct command_result *c = &r.suites[0].benches[0].commands[i];
		comparison(c, METRIC_LATENCY, i % 3 ? "pass" : "regression", 1,
			   i % 3 ? 1.0 : 20.0);
		comparison(c, METRIC_PEAK_RSS, "within_noise", 0, 0.5);
		budget(c, i % 5 ? BUDGET_PASS : BUDGET_FAIL,
		       i % 5 ? 90e6 : 120e6);
	}
	char *md = render(&r, REPORT_MARKDOWN, NULL);
	/* comparisons: 2 per command; budgets: 1 per command */
	for (size_t i = 0; i < n; i++) {
		char *row = xstrfmt("| bench | cmd%zu | latency |", i);
		char *rss = xstrfmt("| bench | cmd%zu | peak\\_rss |", i);
		char *bud = xstrfmt(
		    "| bench | cmd%zu | latency | p95 &lt;= 100ms |", i);
		/* latency: a comparison row, a budget row, 2 measurement rows
		 */
		assert_int_equal(count(md, row), 4);
		/* peak_rss: a comparison row, 2 measurement rows */
		assert_int_equal(count(md, rss), 3);
		assert_int_equal(count(md, bud), 1);
		free(row);
		free(rss);
		free(bud);
	}
	assert_int_equal(count(md, "| **regression** |"), 14);
	assert_int_equal(count(md, "| **pass** |"), 26);
	assert_int_equal(count(md, "| **within\\_noise (not gated)** |"), 40);
	assert_int_equal(count(md, "| **over budget** |"), 8);
	/* the status line counts every comparison; the seed is the
	   environment's */
	assert_non_null(strstr(md, "\nbase **main** (89abcdef0123) → head 0123456789ab + uncommitted changes · 80 comparisons in 40 commands · exit code 0\n"));
	assert_non_null(strstr(md, "| seed | 424242 |"));
	assert_non_null(strstr(md, "| cpu | Test \\| CPU |"));
	assert_non_null(strstr(md, "### Environment"));
	assert_tables_regular(md);
	free(md);
	release(&r);
}

static void test_markdown_escaping(void **state)
{
	(void)state;
	struct run_result r;
	const char *evil = "a|b <script>alert(\"x\")</script> & 'q' *y* _z_";

	build(&r, 1, evil);
	struct command_result *c = &r.suites[0].benches[0].commands[0];
	free(c->name);
	c->name = xstrdup("c|md\nline2");
	c->error = xstrdup("exit 1 | <img src=x onerror=alert(1)>");
	c->stderr_tail = xstrdup("```\n<script>\n```` end\n");
	comparison(c, METRIC_LATENCY, "regression", 1, 25);
	budget(c, BUDGET_FAIL, 150e6);
	strvec_push(&r.warnings, "warn | <b>bold</b>");
	free(r.suites[0].name);
	r.suites[0].name = xstrdup("# suite & \"co\"");

	for (int f = 0; f < 2; f++) {
		char *md =
		    render(&r, f ? REPORT_GITHUB : REPORT_MARKDOWN, NULL);
		const char *esc =
		    "a\\|b &lt;script&gt;alert(&quot;x&quot;)&lt;/script&gt; "
		    "&amp; 'q' \\*y\\* \\_z\\_";
		assert_non_null(strstr(md, esc));
		assert_non_null(strstr(md, "c\\|md line2"));
		/* no raw HTML from user text outside a code fence */
		assert_null(strstr(md, "<script>alert"));
		assert_null(strstr(md, "<img"));
		assert_null(strstr(md, "<b>"));
		assert_tables_regular(md);
		if (!f) {
			assert_non_null(
			    strstr(md, "### \\# suite &amp; &quot;co&quot;"));
			/* stderr in a fence longer than its backtick runs */
			assert_non_null(strstr(
			    md, "\n`````\n```\n<script>\n```` end\n`````\n"));
			assert_non_null(
			    strstr(md, "- warn \\| &lt;b&gt;bold&lt;/b&gt;"));
		}
		free(md);
	}
	release(&r);
}

/* GitHub must neither mention anyone nor link an issue from a name. */
static void test_md_escape_no_mentions(void **state)
{
	(void)state;
	struct sbuf sb = SBUF_INIT;
	report_md_escape(&sb, "@octocat @org/team #123 gh-7 GH-8 xGH-9 a#b # 1 @ x a@b");
#define ZWJ "\xE2\x80\x8D"
	assert_string_equal(sb.buf, "@" ZWJ "octocat @" ZWJ "org/team \\#" ZWJ
				    "123 gh-" ZWJ "7 GH-" ZWJ "8 xGH-9 a\\#b \\# 1 @ x a@" ZWJ
				    "b");
#undef ZWJ
	sbuf_release(&sb);
}

/* ---- github ------------------------------------------------------------ */

/* Rows of the first problems table (before any <details>). */
static size_t top_rows(const char *md)
{
	const char *end = strstr(md, "<details>");
	char *head = xstrndup(md, end ? (size_t)(end - md) : strlen(md));
	size_t n =
	    lines_starting(head, "| 🔴") + lines_starting(head, "| 🟠") +
	    lines_starting(head, "| ⛔") + lines_starting(head, "| 🟡") +
	    lines_starting(head, "| ⚪") + lines_starting(head, "| 🔵");
	free(head);
	return n;
}

static void test_github_no_problems(void **state)
{
	(void)state;
	struct run_result r;

	build(&r, 3, "bench");
	for (size_t i = 0; i < 3; i++)
		comparison(&r.suites[0].benches[0].commands[i], METRIC_LATENCY,
			   "pass", 1, 1);
	char *md = render(&r, REPORT_GITHUB, NULL);
	assert_true(!strncmp(md, "<!-- kagari:comment -->\n", 24));
	assert_non_null(strstr(md, "### ✅ kagari: No regressions\n"));
	assert_int_equal(top_rows(md), 0);
	assert_non_null(
	    strstr(md, "<details><summary>All 3 comparisons</summary>"));
	assert_null(strstr(md, "more problem"));
	assert_non_null(strstr(md, "seed 424242"));
	assert_tables_regular(md);
	free(md);
	release(&r);
}

/* An ungated regression beside no gated one: the heading says which
   regressions there are none of, not "No regressions, ... 1 regression
   not gated". */
static void test_github_heading_not_gated(void **state)
{
	(void)state;
	struct run_result r;

	build(&r, 2, "bench");
	comparison(&r.suites[0].benches[0].commands[0], METRIC_LATENCY, "inconclusive", 1, 3);
	comparison(&r.suites[0].benches[0].commands[1], METRIC_LATENCY, "regression", 0, 20);
	char *md = render(&r, REPORT_GITHUB, NULL);
	if (!strstr(md, "kagari: No gated regressions, 1 inconclusive, 1 regression not gated\n"))
		fail_msg("heading:\n%.300s", md);
	assert_null(strstr(md, "No regressions"));
	free(md);
	md = render(&r, REPORT_MARKDOWN, NULL);
	assert_non_null(strstr(md, "No gated regressions, 1 inconclusive, 1 regression not gated"));
	free(md);
	release(&r);
}

static void test_github_three_problems(void **state)
{
	(void)state;
	struct run_result r;

	build(&r, 4, "bench");
	struct command_result *c = r.suites[0].benches[0].commands;
	comparison(&c[0], METRIC_LATENCY, "inconclusive", 1, 8);
	comparison(&c[1], METRIC_LATENCY, "pass", 1, 1);
	budget(&c[2], BUDGET_FAIL, 130e6);
	comparison(&c[3], METRIC_LATENCY, "regression", 1, 30);
	r.summary.exit_code = 1;
	char *md = render(&r, REPORT_GITHUB, NULL);
	assert_true(!strncmp(md, "<!-- kagari:comment -->\n", 24));
	assert_non_null(strstr(
	    md, "### ❌ kagari: 1 regression, 1 over budget, 1 inconclusive\n"));
	assert_int_equal(top_rows(md), 3);
	assert_null(strstr(md, "more problem"));
	/* most severe first */
	const char *reg = strstr(md, "| 🔴 regression | bench / cmd3 |");
	const char *bud = strstr(md, "| 🟠 over budget | bench / cmd2 |");
	const char *inc = strstr(md, "| 🟡 inconclusive | bench / cmd0 |");
	assert_non_null(reg);
	assert_non_null(bud);
	assert_non_null(inc);
	assert_true(reg < bud && bud < inc);
	assert_non_null(strstr(md, "+30.0%"));
	assert_tables_regular(md);
	free(md);
	release(&r);
}

static void test_github_fifteen_problems(void **state)
{
	(void)state;
	struct run_result r;

	build(&r, 15, "bench");
	struct command_result *c = r.suites[0].benches[0].commands;
	/* 3 unsupported, 3 inconclusive, 3 errors, 3 over budget, 3 regressions
	   (in reverse order of severity, regressions of growing size) */
	for (int i = 0; i < 3; i++) {
		metric_series_set_status(
		    &c[i].side[SIDE_HEAD].metric[METRIC_CYCLES],
		    MSTATUS_UNSUPPORTED, i ? "perf says no" : "no perf here");
		comparison(&c[3 + i], METRIC_LATENCY, "inconclusive", 1, 5);
		c[6 + i].error = xstrfmt("exit status %d", i + 1);
		budget(&c[9 + i], BUDGET_FAIL, 110e6 + 10e6 * i);
		comparison(&c[12 + i], METRIC_LATENCY, "regression", 1,
			   15 + 5 * i);
	}
	/* two commands with the same reason: merged into one row */
	metric_series_set_status(&c[14].side[SIDE_HEAD].metric[METRIC_CYCLES],
				 MSTATUS_UNSUPPORTED, "perf says no");
	char *md = render(&r, REPORT_GITHUB, NULL);
	assert_true(!strncmp(md, "<!-- kagari:comment -->\n", 24));
	assert_non_null(
	    strstr(md, "kagari: 3 regressions, 3 over budget, 3 errors, "
		       "3 inconclusive, 2 unsupported\n"));
	assert_int_equal(top_rows(md), 10);
	assert_non_null(
	    strstr(md, "<details><summary>4 more problems</summary>"));
	/* 14 problem rows in all (3+3+3+3+2), ten on top */
	assert_int_equal(
	    lines_starting(md, "| 🔴") + lines_starting(md, "| 🟠") +
		lines_starting(md, "| ⛔") + lines_starting(md, "| 🟡") +
		lines_starting(md, "| ⚪"),
	    14);
	/* regressions by size, then budgets by excess, then errors */
	const char *p14 = strstr(md, "| 🔴 regression | bench / cmd14 |");
	const char *p12 = strstr(md, "| 🔴 regression | bench / cmd12 |");
	const char *b11 = strstr(md, "| 🟠 over budget | bench / cmd11 |");
	const char *b9 = strstr(md, "| 🟠 over budget | bench / cmd9 |");
	const char *e6 = strstr(md, "| ⛔ error | bench / cmd6 |");
	const char *i3 = strstr(md, "| 🟡 inconclusive | bench / cmd3 |");
	const char *u =
	    strstr(md, "| ⚪ unsupported | bench / cmd1 and 2 more | cycles |");
	const char *i4 = strstr(md, "| 🟡 inconclusive | bench / cmd4 |");
	const char *det = strstr(md, "<details><summary>4 more");
	if (!(p14 && p12 && b11 && b9 && e6 && i3 && i4 && u && det))
		fail_msg("missing rows in:\n%s", md);
	assert_true(p14 < p12 && p12 < b11 && b11 < b9 && b9 < e6);
	/* the tenth row is the first inconclusive; the rest is collapsed */
	assert_true(e6 < i3 && i3 < det && det < i4 && i4 < u);
	assert_tables_regular(md);
	free(md);

	/* the full markdown lists the same */
	md = render(&r, REPORT_MARKDOWN, NULL);
	assert_non_null(
	    strstr(md, "## kagari compare: 3 regressions, 3 over budget"));
	assert_int_equal(
	    count(md, "| cycles | head | unsupported (perf says no) |"), 3);
	free(md);
	release(&r);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_section_replace_keeps_rest),
	    cmocka_unit_test(test_section_lf_page_and_append),
	    cmocka_unit_test(test_section_rejects),
	    cmocka_unit_test(test_markdown_section_roundtrip),
	    cmocka_unit_test(test_markdown_every_comparison_and_budget),
	    cmocka_unit_test(test_markdown_escaping),
	    cmocka_unit_test(test_md_escape_no_mentions),
	    cmocka_unit_test(test_github_no_problems),
	    cmocka_unit_test(test_github_heading_not_gated),
	    cmocka_unit_test(test_github_three_problems),
	    cmocka_unit_test(test_github_fifteen_problems),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
