/*
 * report (html): every comparison has its four plots, every user string
 * is escaped and no script can get in; the bootstrap plot works from raw
 * resamples and from the 101 quantiles a JSON report keeps; 200
 * comparisons stay one navigable page.
 */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <ctype.h>
#include <jansson.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "analyze/summary.h"
#include "base/xalloc.h"
#include "report/report.h"
#include "report/svg.h"

#define EVIL "<script>alert(\"x&y\")</script> 'q' & \"dq\""
#define EVIL_ESC                                                               \
	"&lt;script&gt;alert(&quot;x&amp;y&quot;)&lt;/script&gt; &#39;q&#39; " \
	"&amp; &quot;dq&quot;"

/* ---- fixtures ---------------------------------------------------------- */

/* Deterministic noise in [-1, 1). */
static double noise(uint64_t *s)
{
	*s = *s * 6364136223846793005ULL + 1442695040888963407ULL;
	return (double)(*s >> 11) / 9007199254740992.0 * 2 - 1;
}

/* 10 rounds of 2 runs per side; head `change` percent slower. */
static void samples(struct command_result *c, enum metric_id m, double base,
		    double change, uint64_t *seed)
{
	for (int sd = 0; sd < SIDE__COUNT; sd++) {
		struct metric_series *ms = &c->side[sd].metric[m];
		double v0 = sd == SIDE_HEAD ? base * (1 + change / 100) : base;
		for (int i = 0; i < 20; i++)
			metric_series_add(ms,
					  round(v0 * (1 + 0.03 * noise(seed))),
					  i / 2 + 1, i + 1);
		ms->have_summary = 1;
		ms->summary.count = 20;
		ms->summary.min = v0 * 0.97;
		ms->summary.max = v0 * 1.03;
		ms->summary.mean = ms->summary.median = v0;
		ms->summary.stddev = v0 * 0.01;
		ms->summary.p95 = v0 * 1.02;
	}
}

static void comparison(struct command_result *c, enum metric_id m,
		       const char *verdict, double change, uint64_t *seed)
{
	struct comparison *cp = &c->comparison[m];

	samples(c, m, m == METRIC_PEAK_RSS ? 1 << 20 : 50e6, change, seed);
	cp->present = 1;
	cp->statistic = xstrdup("median");
	cp->pairing = xstrdup("rounds");
	cp->base = 50e6;
	cp->head = 50e6 * (1 + change / 100);
	cp->change_percent = change;
	cp->ci_low_percent = change - 2.5;
	cp->ci_high_percent = change + 2.5;
	cp->confidence = 0.95;
	cp->max_percent = 10;
	cp->p_value = cp->p_adjusted = 0.02;
	cp->noise_floor_percent = 2;
	cp->verdict = (enum verdict)verdict_parse(verdict);
	cp->reason = xstrdup(EVIL);
	cp->gate = 1;
	cp->nr_boot = 2000;
	cp->boot = xreallocarray(NULL, cp->nr_boot, sizeof(double));
	for (size_t i = 0; i < cp->nr_boot; i++)
		cp->boot[i] = change + 1.2 * (noise(seed) + noise(seed));
	cp->nr_dropped_rounds = 1;
	cp->dropped_rounds = xcalloc(1, sizeof(int));
	cp->dropped_rounds[0] = 4;
}

/* mode "compare" or "run"; n commands named EVIL-ish. */
static void build(struct run_result *r, const char *mode, size_t n,
		  int evil_names)
{
	uint64_t seed = 12345;

	run_result_init(r);
	r->mode = xstrdup(mode);
	r->seed = 987654321;
	r->started_at = xstrdup("2024-05-01T10:00:00Z");
	r->env.os = xstrdup(evil_names ? EVIL : "Linux");
	r->env.cpu_model = xstrdup("CPU & co");
	r->env.logical_cpus = 4;
	r->git.head_sha = xstrdup("0123456789abcdef0123456789abcdef01234567");
	if (!strcmp(mode, "compare")) {
		r->git.base_ref = xstrdup(evil_names ? "<b>main</b>" : "main");
		r->git.base_sha =
		    xstrdup("89abcdef0123456789abcdef0123456789abcdef");
	}
	r->git.dirty = 0;
	strvec_push(&r->warnings, evil_names ? EVIL : "a warning");
	r->nr_suites = 1;
	r->suites = xcalloc(1, sizeof(*r->suites));
	struct suite_result *s = &r->suites[0];
	s->name = xstrdup(evil_names ? EVIL : "suite");
	s->file = xstrdup("kagari.yaml");
	s->result = RESULT_REGRESSION;
	s->nr_benches = 1;
	s->benches = xcalloc(1, sizeof(*s->benches));
	struct bench_result *b = &s->benches[0];
	strvec_init(&b->tags);
	b->name = xstrdup(evil_names ? EVIL : "bench");
	b->result = RESULT_PASS;
	b->nr_commands = n;
	b->commands = xcalloc(n, sizeof(*b->commands));
	for (size_t i = 0; i < n; i++) {
		struct command_result *c = &b->commands[i];
		c->name = evil_names ? xstrfmt("c%zu %s", i, EVIL)
				     : xstrfmt("cmd%zu", i);
		c->command = xstrdup(evil_names ? EVIL : "./prog");
		c->result = i % 4 ? RESULT_PASS : RESULT_REGRESSION;
		c->rounds = 10;
		c->side[SIDE_HEAD].present = 1;
		c->side[SIDE_HEAD].count = 20;
		if (!strcmp(mode, "compare")) {
			c->side[SIDE_BASE].present = 1;
			c->side[SIDE_BASE].count = 20;
			comparison(c, METRIC_LATENCY,
				   i % 4 ? "pass" : "regression",
				   i % 4 ? 1.0 : 18.0, &seed);
			if (i % 2)
				comparison(c, METRIC_PEAK_RSS, "within_noise",
					   0.2, &seed);
		} else {
			samples(c, METRIC_LATENCY, 50e6, 0, &seed);
			samples(c, METRIC_PEAK_RSS, 1 << 20, 0, &seed);
			c->side[SIDE_BASE].present = 0;
		}
		metric_series_set_status(
		    &c->side[SIDE_HEAD].metric[METRIC_CYCLES],
		    MSTATUS_UNSUPPORTED, evil_names ? EVIL : "no perf");
	}
	if (evil_names) {
		struct command_result *c = &b->commands[0];
		c->error = xstrdup(EVIL);
		c->stderr_tail =
		    xstrdup("line1\n" EVIL "\n</pre><script>x</script>");
		c->throughput_unit = xstrdup("<i>ops</i>");
	}
	r->summary.benchmarks = 1;
	r->summary.commands = (int)n;
	r->summary.exit_code = 1;
	r->exit_reason =
	    xstrdup(evil_names ? EVIL : "1 gated regression found");
}

static char *render(const struct run_result *r, enum report_format f)
{
	struct sbuf out = SBUF_INIT, err = SBUF_INIT;

	assert_int_equal(report_render(r, f, NULL, &out, &err), 0);
	assert_int_equal(err.len, 0);
	sbuf_release(&err);
	return sbuf_detach(&out);
}

/* Occurrences of needle (no strstr: ASan checks the whole haystack on
   every call, which is slow on a 3 MB page). */
static size_t count(const char *hay, const char *needle)
{
	size_t n = 0, k = strlen(needle), len = strlen(hay);
	for (size_t i = 0; i + k <= len; i++)
		if (hay[i] == needle[0] && !memcmp(hay + i, needle, k)) {
			n++;
			i += k - 1;
		}
	return n;
}

/* Opening and closing tags of these elements balance. */
static void assert_balanced(const char *html)
{
	static const char *const tags[] = {
	    "svg", "section", "details", "table",   "tr",
	    "td",  "div",     "title",	 "text",    "ol",
	    "li",  "pre",     "h4",	 "summary", "a"};
	for (size_t i = 0; i < sizeof(tags) / sizeof(*tags); i++) {
		char *open1 = xstrfmt("<%s ", tags[i]);
		char *open2 = xstrfmt("<%s>", tags[i]);
		char *close = xstrfmt("</%s>", tags[i]);
		size_t o = count(html, open1) + count(html, open2);
		size_t c = count(html, close);
		if (o != c)
			fail_msg("<%s>: %zu opened, %zu closed", tags[i], o, c);
		free(open1);
		free(open2);
		free(close);
	}
	assert_int_equal(count(html, "<html"), 1);
	assert_int_equal(count(html, "</html>"), 1);
}

/* Nothing that runs or loads: no scripts, handlers, URLs or external refs. */
static void assert_inert(const char *html)
{
	static const char *const banned[] = {
	    "<script",	 "<img",	"<link", "<iframe", "<object",
	    "<embed",	 "javascript:", "http:", "https:",  "url(",
	    " onerror=", " onload=",	" src=", "@import",
	};
	/* one lower-case copy, then plain searches (fast under ASan) */
	char *low = xstrdup(html);
	for (char *p = low; *p; p++)
		*p = (char)tolower((unsigned char)*p);
	for (size_t i = 0; i < sizeof(banned) / sizeof(*banned); i++)
		if (strstr(low, banned[i]))
			fail_msg("'%s' in the page", banned[i]);
	free(low);
	assert_non_null(strstr(html, "Content-Security-Policy"));
}

/* ---- tests ------------------------------------------------------------- */

static void test_four_plots_per_comparison(void **state)
{
	(void)state;
	struct run_result r;

	build(&r, "compare", 6, 0);
	char *html = render(&r, REPORT_HTML);
	size_t comparisons = 6 + 3; /* latency everywhere, rss on odd */

	assert_int_equal(count(html, "<svg"), 4 * comparisons);
	assert_int_equal(count(html, "<div class=\"cmp\""), comparisons);
	/* each comparison block holds exactly its four plots */
	for (const char *p = strstr(html, "<div class=\"cmp\""); p;) {
		const char *next = strstr(p + 1, "<div class=\"cmp\"");
		const char *end = next ? next : html + strlen(html);
		size_t n = 0;
		for (const char *q = p; (q = strstr(q, "<svg")) && q < end; q++)
			n++;
		assert_int_equal(n, 4);
		char *block = xstrndup(p, (size_t)(end - p));
		assert_non_null(strstr(block, "runs sorted, median dashed, mean "
					      "solid</title>"));
		assert_int_equal(count(block, "<polyline class=\"bd\""), 1);
		assert_int_equal(count(block, "<polyline class=\"hd\""), 1);
		assert_non_null(strstr(block, "by round</title>"));
		assert_non_null(strstr(block, "head / base per round</title>"));
		assert_non_null(
		    strstr(block, "bootstrap distribution</title>"));
		/* the bootstrap plot has bars, tolerance lines and the interval
		 */
		assert_true(count(block, "class=\"bar\"") > 5);
		assert_true(count(block, "class=\"tol\"") >= 2);
		assert_int_equal(count(block, "class=\"ci\""), 1);
		assert_non_null(strstr(block, "class=\"med\""));
		assert_non_null(strstr(block, "class=\"one\""));
		/* round 4 was dropped: shaded in the strip and ratio plots */
		assert_int_equal(
		    count(block, "round 4: dropped by the stall filter"), 2);
		free(block);
		p = next;
	}
	/* summary first with the regressions at the top, then contents */
	const char *sum = strstr(html, "<section id=\"summary\">");
	const char *toc = strstr(html, "<nav id=\"contents\">");
	const char *env = strstr(html, "<section id=\"environment\">");
	assert_true(sum && toc && env && sum < toc && toc < env);
	const char *first_reg = strstr(sum, "badge k-bad\">regression<");
	const char *first_pass = strstr(sum, "badge k-good\">pass<");
	assert_true(first_reg && first_pass && first_reg < first_pass);
	assert_non_null(strstr(env, "987654321"));
	/* every command linked from the contents */
	for (size_t i = 0; i < 6; i++) {
		char *a = xstrfmt("<a href=\"#c%zu\">", i);
		char *id = xstrfmt("id=\"c%zu\"", i);
		assert_non_null(strstr(toc, a));
		assert_int_equal(count(html, id), 1);
		free(a);
		free(id);
	}
	assert_balanced(html);
	assert_inert(html);
	free(html);
	run_result_release(&r);
}

static void test_escaping(void **state)
{
	(void)state;
	struct run_result r;

	build(&r, "compare", 2, 1);
	char *html = render(&r, REPORT_HTML);

	assert_inert(html);
	assert_balanced(html);
	assert_null(strstr(html, "alert(\""));
	assert_null(strstr(html, "<b>main"));
	assert_null(strstr(html, "<i>ops"));
	assert_null(strstr(html, "'q'"));
	/* names, reasons, commands, errors, env, warnings: all escaped */
	assert_true(count(html, EVIL_ESC) >= 10);
	assert_non_null(strstr(html, "c0 " EVIL_ESC));
	assert_non_null(strstr(html, "&lt;b&gt;main&lt;/b&gt;"));
	assert_non_null(
	    strstr(html, "&lt;/pre&gt;&lt;script&gt;x&lt;/script&gt;</pre>"));
	/* the plots are still there */
	assert_int_equal(count(html, "<svg"), 4 * 3);
	free(html);

	/* escaping itself */
	struct sbuf sb = SBUF_INIT;
	report_html_escape(&sb,
			   "a\x01"
			   "b\n\xff<",
			   0);
	assert_string_equal(sb.buf, "a\xEF\xBF\xBD"
				    "b \xEF\xBF\xBD&lt;");
	sbuf_reset(&sb);
	report_html_escape(&sb, "l1\r\nl2", 1);
	assert_string_equal(sb.buf, "l1\nl2");
	sbuf_release(&sb);
	run_result_release(&r);
}

static void test_run_mode_strip_per_metric(void **state)
{
	(void)state;
	struct run_result r;

	build(&r, "run", 3, 0);
	char *html = render(&r, REPORT_HTML);
	/* latency and peak_rss per command; cycles is unsupported */
	assert_int_equal(count(html, "<svg"), 3 * 2);
	assert_int_equal(count(html, "latency by round</title>"), 3);
	assert_int_equal(count(html, "peak_rss by round</title>"), 3);
	assert_int_equal(count(html, "<div class=\"cmp\""), 0);
	assert_null(strstr(html, "class=\"b\"")); /* no base side */
	assert_non_null(strstr(html, "class=\"h\""));
	assert_non_null(strstr(html, "no perf"));
	assert_balanced(html);
	assert_inert(html);
	free(html);
	run_result_release(&r);
}

/* The bootstrap plot from 101 quantiles equals the one from resamples. */
static void test_boot_from_quantiles(void **state)
{
	(void)state;
	struct run_result r;
	struct sbuf a = SBUF_INIT, b = SBUF_INIT;
	double q[COMPARISON_BOOT_QUANTILES];

	build(&r, "compare", 1, 0);
	struct command_result *c = &r.suites[0].benches[0].commands[0];
	struct comparison *cp = &c->comparison[METRIC_LATENCY];
	svg_boot_plot(&a, c, METRIC_LATENCY);
	assert_int_equal(comparison_boot_quantiles(cp, q), 1);
	for (int k = 1; k < COMPARISON_BOOT_QUANTILES; k++)
		assert_true(q[k] >= q[k - 1]);

	/* the JSON report carries them */
	char *json = render(&r, REPORT_JSON);
	json_error_t je;
	json_t *root = json_loads(json, 0, &je);
	assert_non_null(root);
	json_t *arr = json_object_get(
	    json_object_get(
		json_object_get(
		    json_array_get(
			json_object_get(
			    json_array_get(
				json_object_get(
				    json_array_get(
					json_object_get(root, "suites"), 0),
				    "benchmarks"),
				0),
			    "commands"),
			0),
		    "comparisons"),
		"latency"),
	    "bootstrap_quantiles");
	assert_true(json_is_array(arr));
	assert_int_equal(json_array_size(arr), COMPARISON_BOOT_QUANTILES);

	/* read back as a JSON reader would: boot = the quantiles */
	free(cp->boot);
	cp->nr_boot = COMPARISON_BOOT_QUANTILES;
	cp->boot = xcalloc(cp->nr_boot, sizeof(double));
	for (size_t k = 0; k < cp->nr_boot; k++) {
		cp->boot[k] = json_real_value(json_array_get(arr, k));
		assert_true(cp->boot[k] == q[k]); /* round trip exact */
	}
	cp->boot_is_quantiles = 1;
	double q2[COMPARISON_BOOT_QUANTILES];
	assert_int_equal(comparison_boot_quantiles(cp, q2), 1);
	assert_memory_equal(q, q2, sizeof(q));
	svg_boot_plot(&b, c, METRIC_LATENCY);
	assert_string_equal(a.buf, b.buf);

	/* without a distribution: a plot that says so, still one <svg */
	free(cp->boot);
	cp->boot = NULL;
	cp->nr_boot = 0;
	sbuf_reset(&b);
	svg_boot_plot(&b, c, METRIC_LATENCY);
	assert_int_equal(count(b.buf, "<svg"), 1);
	assert_non_null(strstr(b.buf, "no bootstrap distribution"));
	free(json);
	json = render(&r, REPORT_JSON);
	assert_null(strstr(json, "bootstrap_quantiles"));

	/* a degenerate distribution (exact data) is a single spike */
	cp->nr_boot = 50;
	cp->boot = xcalloc(cp->nr_boot, sizeof(double));
	sbuf_reset(&b);
	svg_boot_plot(&b, c, METRIC_LATENCY);
	assert_int_equal(count(b.buf, "class=\"bar\""), 1);
	json_decref(root);
	free(json);
	sbuf_release(&a);
	sbuf_release(&b);
	run_result_release(&r);
}

/* 200 comparisons: a TOC entry each, problems' plots open, others closed. */
static void test_two_hundred(void **state)
{
	(void)state;
	struct run_result r;

	build(&r, "compare", 134, 0); /* 134 + 67 = 201 comparisons */
	char *html = render(&r, REPORT_HTML);
	size_t comparisons = 134 + 67;

	assert_int_equal(count(html, "<svg"), 4 * comparisons);
	assert_int_equal(count(html, "<li><a href=\"#c"), 134);
	/* 34 regressions (i % 4 == 0) open, the rest collapsed */
	assert_int_equal(count(html, "<details open><summary>plots"), 34);
	assert_int_equal(count(html, "<details><summary>plots"),
			 comparisons - 34);
	/* every plot is the sensible size */
	assert_int_equal(count(html, "viewBox=\"0 0 600 160\""),
			 4 * comparisons);
	assert_true(strlen(html) < 8u * 1024 * 1024);
	assert_balanced(html);
	assert_inert(html);
	free(html);
	run_result_release(&r);
}

/* Odd data still gives four plots per comparison, quickly, no NaN. */
static void test_degenerate_inputs(void **state)
{
	(void)state;
	struct run_result r;

	build(&r, "compare", 5, 0);
	struct command_result *c = r.suites[0].benches[0].commands;
	/* 0: a comparison without samples, distribution or numbers */
	for (int sd = 0; sd < SIDE__COUNT; sd++) {
		struct metric_series *ms =
		    &c[0].side[sd].metric[METRIC_LATENCY];
		free(ms->samples);
		ms->samples = NULL;
		ms->nr = ms->alloc = 0;
		ms->have_summary = 0;
	}
	struct comparison *cp = &c[0].comparison[METRIC_LATENCY];
	free(cp->boot);
	cp->boot = NULL;
	cp->nr_boot = 0;
	cp->change_percent = cp->ci_low_percent = cp->ci_high_percent = NAN;
	cp->max_percent = NAN;
	/* 1: every value equal, every resample 0 */
	for (int sd = 0; sd < SIDE__COUNT; sd++) {
		struct metric_series *ms =
		    &c[1].side[sd].metric[METRIC_LATENCY];
		for (size_t i = 0; i < ms->nr; i++)
			ms->samples[i].value = 7;
	}
	cp = &c[1].comparison[METRIC_LATENCY];
	for (size_t i = 0; i < cp->nr_boot; i++)
		cp->boot[i] = 0;
	cp->change_percent = cp->ci_low_percent = cp->ci_high_percent = 0;
	/* 2: huge values with a tiny spread, rounds far apart, a NaN and an
	   infinity among the samples and the resamples */
	for (int sd = 0; sd < SIDE__COUNT; sd++) {
		struct metric_series *ms =
		    &c[2].side[sd].metric[METRIC_LATENCY];
		for (size_t i = 0; i < ms->nr; i++) {
			ms->samples[i].value = 1e18 + (double)i * 256;
			ms->samples[i].round = i % 2 ? 1 : 2000000000;
		}
		ms->samples[0].value = NAN;
		ms->samples[1].value = INFINITY;
	}
	cp = &c[2].comparison[METRIC_LATENCY];
	cp->boot[0] = NAN;
	cp->boot[1] = -INFINITY;
	/* 3: a tolerance far wider than the data, a base of zero */
	cp = &c[3].comparison[METRIC_LATENCY];
	cp->max_percent = 1000;
	for (size_t i = 0; i < c[3].side[SIDE_BASE].metric[METRIC_LATENCY].nr;
	     i++)
		c[3].side[SIDE_BASE].metric[METRIC_LATENCY].samples[i].value =
		    0;
	/* 4: one sample per side */
	c[4].side[SIDE_BASE].metric[METRIC_LATENCY].nr = 1;
	c[4].side[SIDE_HEAD].metric[METRIC_LATENCY].nr = 1;

	char *html = render(&r, REPORT_HTML);
	size_t comparisons = 5 + 2;
	assert_int_equal(count(html, "<svg"), 4 * comparisons);
	assert_null(strstr(html, "nan"));
	assert_null(strstr(html, "inf\""));
	assert_non_null(strstr(html, "no samples"));
	assert_non_null(strstr(html, "no bootstrap distribution"));
	assert_non_null(strstr(html, "no round holds runs of both sides"));
	assert_non_null(strstr(html, "off scale"));
	assert_balanced(html);
	assert_inert(html);
	free(html);
	/* and the Markdown pages of the same */
	html = render(&r, REPORT_MARKDOWN);
	assert_non_null(strstr(html, "n/a"));
	free(html);
	html = render(&r, REPORT_GITHUB);
	free(html);
	run_result_release(&r);
}

/* The y of the first <line ... class="cls"/> in svg (its y1). */
static double line_y(const char *svg, const char *cls)
{
	char *want = xstrfmt("class=\"%s\"/>", cls);
	const char *at = strstr(svg, want);
	free(want);
	assert_non_null(at);
	while (at > svg && strncmp(at, "<line ", 6))
		at--;
	const char *y1 = strstr(at, "y1=\"");
	assert_non_null(y1);
	return strtod(y1 + 4, NULL);
}

/*
 * A slow minority, drawn: 10% of head's runs 3x slower. The medians sit
 * together, head's mean line lies well above both medians (a smaller y)
 * and above base's mean, and each side's curve is there with its tip.
 */
static void test_dist_plot_minority(void **state)
{
	(void)state;
	struct command_result c;
	struct sbuf out = SBUF_INIT;
	uint64_t seed = 3;

	memset(&c, 0, sizeof(c));
	for (int sd = 0; sd < SIDE__COUNT; sd++) {
		struct metric_series *ms = &c.side[sd].metric[METRIC_LATENCY];
		c.side[sd].present = 1;
		ms->status = MSTATUS_OK;
		for (int i = 0; i < 100; i++) {
			double v = 100e6 * (1 + 0.02 * noise(&seed));
			if (sd == SIDE_HEAD && i % 10 == 3)
				v *= 3;
			metric_series_add(ms, v, i + 1, 1);
		}
	}
	svg_dist_plot(&out, &c, METRIC_LATENCY);
	assert_int_equal(count(out.buf, "<svg"), 1);
	assert_int_equal(count(out.buf, "<polyline class=\"bd\""), 1);
	assert_int_equal(count(out.buf, "<polyline class=\"hd\""), 1);
	assert_non_null(strstr(out.buf, "head: 100 runs, median "));
	double bmed = line_y(out.buf, "bl"), hmed = line_y(out.buf, "hl");
	double bmean = line_y(out.buf, "bm"), hmean = line_y(out.buf, "hm");
	assert_true(fabs(bmed - hmed) < 3);
	assert_true(fabs(bmean - bmed) < 3);
	assert_true(hmean < hmed - 5); /* +20% of ~240 on 114 px */
	assert_true(hmean < bmean - 5);
	assert_null(strstr(out.buf, "nan"));
	sbuf_release(&out);
	for (int sd = 0; sd < SIDE__COUNT; sd++)
		free(c.side[sd].metric[METRIC_LATENCY].samples);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_four_plots_per_comparison),
	    cmocka_unit_test(test_escaping),
	    cmocka_unit_test(test_run_mode_strip_per_metric),
	    cmocka_unit_test(test_boot_from_quantiles),
	    cmocka_unit_test(test_two_hundred),
	    cmocka_unit_test(test_degenerate_inputs),
	    cmocka_unit_test(test_dist_plot_minority),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
