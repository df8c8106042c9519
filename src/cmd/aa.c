/*
 * kagari aa [options] [PATH...]: how small a change can this machine
 * resolve? N A/A compares of the working tree against itself: each suite
 * is built once, then measured N times with the same commands on both
 * sides, interleaved in rounds exactly as `compare` measures a base and a
 * head, and each compare goes through analyze_result(). Every change an
 * A/A compare measures is noise, and every regression or improved verdict
 * is false. The same samples are then judged again at each tolerance T of
 * AA_TOLERANCES (analyze_result() with overrides, as `report --reanalyze
 * --max-percent` does), so the false verdicts per T come from one set of
 * measurements.
 *
 * The rule for the recommendation (docs/aa.md): the smallest T of
 * AA_TOLERANCES at which no compare gave a false verdict and the 95th
 * percentile of |change| is below T/2 — the margin keeps a tolerance the
 * noise alone nearly reaches from being recommended. None: null.
 */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "analyze/analyze.h"
#include "analyze/summary.h"
#include "base/sbuf.h"
#include "base/xalloc.h"
#include "cmd/cmd.h"
#include "cmd/exit.h"
#include "cmd/interrupt.h"
#include "cmd/common.h"
#include "cmd/session.h"
#include "base/fileio.h"
#include "measure/sysinfo.h"
#include "model/trace.h"
#include "proc/child.h"
#include "report/json_emit.h"
#include "report/output.h"
#include "report/svg.h"
#include "suite/units.h"

static const double AA_TOLERANCES[] = { 1, 2, 3, 5, 10, 15, 20, 30, 50 };
#define AA_NR_TOL (sizeof(AA_TOLERANCES) / sizeof(AA_TOLERANCES[0]))
/* The tolerances the table shows (the first AA_TABLE_TOL of the list). */
#define AA_TABLE_TOL 5
#define AA_DEFAULT_REPEAT 10

static const struct opt aa_opts[] = {
	{ "repeat", OPT_COUNT, CLI_AA(repeat), "N",
	  "number of A/A compares (default 10, at least 2)", NULL },
	OPT_COMMON_SELECTION,
	{ "format", OPT_ENUM, CLI_OUT(format), "FMT",
	  "report format: table (default), json, html (the A/A scatter)",
	  "table|json|html" },
	{ "output", OPT_STRING, CLI_OUT(output), "FILE",
	  "write the report to FILE (atomically) instead of stdout; never an input",
	  NULL },
	{ "seed", OPT_SEED, CLI_MEAS(seed), "N",
	  "seed for run order and resampling (default: random, always recorded)", NULL },
	{ "runs", OPT_COUNT, CLI_MEAS(runs), "N",
	  "measured runs per command and side in each compare (default: sequential rounds as in compare)", NULL },
	{ "warmup", OPT_COUNT, CLI_MEAS(warmup), "N",
	  "unmeasured warm-up runs per command and side", NULL },
	OPT_MAX_TIME,
	{ "quiet", OPT_BOOL, CLI_OUT(quiet), NULL,
	  "no progress line", NULL },
	{ "trace", OPT_STRING, CLI_AA(trace), "FILE",
	  "also write every measured run, in the order they ran, as a trace for `kagari power`",
	  NULL },
	OPT_ALLOW_PULL_REQUEST_TARGET,
	{ NULL, 0, 0, NULL, NULL, NULL },
};

/*
 * --trace: the runs of one command (the first one measured; a trace is one
 * program's noise), both sides, in the order they ran, in model/trace.h's
 * format. A/A: the two sides are two copies of one program.
 */
struct aa_trace {
	char *bench, *command;	/* the command recorded */
	int other;		/* another command was measured, not recorded */
	size_t n;
	struct sbuf text;
};

static void aa_on_run(void *data, int side, const char *bench, const char *command,
		      const struct child_result *res)
{
	struct aa_trace *t = data;
	if (!t->bench) {
		t->bench = xstrdup(bench);
		t->command = xstrdup(command);
		sbuf_adds(&t->text, TRACE_HEADER_AA);
	}
	if (strcmp(t->bench, bench) || strcmp(t->command, command)) {
		t->other = 1;
		return;
	}
	trace_add_row(&t->text, t->n++, side == SIDE_BASE ? 0 : 1, (double)res->wall_ns,
		      (double)res->user_ns, (double)res->sys_ns, (double)res->maxrss_bytes / 1024.0);
}

/* One gated metric of one command, over the N compares. */
struct aa_row {
	char *suite, *benchmark, *command;	  /* copied from the first compare */
	size_t si, bi, ci;			  /* its place in every compare */
	enum metric_id metric;
	double *change;				  /* [n] change_percent per compare */
	size_t n;
	int false_at[AA_NR_TOL];		  /* regression or improved at T */
	double median, p5, p95, p95_abs;
	int recommended;			  /* index into AA_TOLERANCES, -1 none */
};

struct aa_state {
	struct aa_row *rows;
	size_t nr, alloc;
	int repeat, measured;
	uint64_t seed;
};

static int is_false_verdict(const struct comparison *cp)
{
	return cp->present &&
	       (cp->verdict == VERDICT_REGRESSION || cp->verdict == VERDICT_IMPROVED);
}

/* The rows, from the first compare: every gated comparison it made. */
static void collect_rows(struct aa_state *st, const struct run_result *r, int repeat)
{
	for (size_t i = 0; i < r->nr_suites; i++)
		for (size_t b = 0; b < r->suites[i].nr_benches; b++) {
			const struct bench_result *br = &r->suites[i].benches[b];
			for (size_t c = 0; c < br->nr_commands; c++)
				for (int m = 0; m < METRIC__COUNT; m++) {
					const struct comparison *cp = &br->commands[c].comparison[m];
					if (!cp->present || !cp->gate)
						continue;
					ALLOC_GROW(st->rows, st->nr + 1, st->alloc);
					struct aa_row *row = &st->rows[st->nr++];
					memset(row, 0, sizeof(*row));
					row->suite = xstrdup(r->suites[i].name);
					row->benchmark = xstrdup(br->name);
					row->command = xstrdup(br->commands[c].name);
					row->si = i;
					row->bi = b;
					row->ci = c;
					row->metric = (enum metric_id)m;
					row->change = xcalloc((size_t)repeat, sizeof(double));
				}
		}
}

/* Row's comparison in compare r, or NULL when r has no such command. */
static struct comparison *row_comparison(const struct aa_row *row, struct run_result *r)
{
	if (row->si >= r->nr_suites || row->bi >= r->suites[row->si].nr_benches)
		return NULL;
	struct bench_result *br = &r->suites[row->si].benches[row->bi];
	if (row->ci >= br->nr_commands || strcmp(br->name, row->benchmark) ||
	    strcmp(br->commands[row->ci].name, row->command))
		return NULL;
	struct comparison *cp = &br->commands[row->ci].comparison[row->metric];
	return cp->present ? cp : NULL;
}

/*
 * Judge one A/A compare: its changes (the suite's own analysis), then the
 * same samples at every T of AA_TOLERANCES.
 */
static void judge_compare(struct aa_state *st, struct run_result *r)
{
	analyze_result(r, NULL);
	if (!st->measured)
		collect_rows(st, r, st->repeat);
	for (size_t k = 0; k < st->nr; k++) {
		struct comparison *cp = row_comparison(&st->rows[k], r);
		if (cp && isfinite(cp->change_percent))
			st->rows[k].change[st->rows[k].n++] = cp->change_percent;
	}
	for (size_t t = 0; t < AA_NR_TOL; t++) {
		struct analyze_overrides ov;
		memset(&ov, 0, sizeof(ov));
		for (int m = 0; m < METRIC__COUNT; m++) {
			ov.have_max_percent[m] = 1;
			ov.max_percent[m] = AA_TOLERANCES[t];
		}
		analyze_result(r, &ov);
		for (size_t k = 0; k < st->nr; k++) {
			struct comparison *cp = row_comparison(&st->rows[k], r);
			if (cp && is_false_verdict(cp))
				st->rows[k].false_at[t]++;
		}
	}
	st->measured++;
}

static void summarise(struct aa_state *st)
{
	for (size_t k = 0; k < st->nr; k++) {
		struct aa_row *row = &st->rows[k];
		row->recommended = -1;
		if (!row->n) {
			row->median = row->p5 = row->p95 = row->p95_abs = NAN;
			continue;
		}
		double *a = xcalloc(row->n, sizeof(double));
		for (size_t i = 0; i < row->n; i++)
			a[i] = fabs(row->change[i]);
		row->median = quantile(row->change, row->n, 0.5);
		row->p5 = quantile(row->change, row->n, 0.05);
		row->p95 = quantile(row->change, row->n, 0.95);
		row->p95_abs = quantile(a, row->n, 0.95);
		free(a);
		for (size_t t = 0; t < AA_NR_TOL && row->recommended < 0; t++)
			if (!row->false_at[t] && row->p95_abs < AA_TOLERANCES[t] / 2)
				row->recommended = (int)t;
	}
}

static void num_or_null(struct json_emit *j, const char *key, double v)
{
	if (isfinite(v))
		json_emit_kv_double(j, key, v);
	else
		json_emit_kv_null(j, key);
}

static void render_json(struct sbuf *out, const struct aa_state *st)
{
	struct json_emit j;
	json_emit_init(&j, out, 1);
	json_emit_begin_object(&j);
	json_emit_kv_string(&j, "schema_version", "1");
	json_emit_kv_string(&j, "mode", "aa");
	json_emit_kv_int(&j, "repeat", st->measured);
	json_emit_kv_int(&j, "seed", (int64_t)st->seed);
	json_emit_key(&j, "rule");
	json_emit_string(&j, "smallest T with no false verdict and p95(|change|) < T/2");
	json_emit_key(&j, "recommendations");
	json_emit_begin_array(&j);
	for (size_t k = 0; k < st->nr; k++) {
		const struct aa_row *row = &st->rows[k];
		json_emit_begin_object(&j);
		json_emit_kv_string(&j, "suite", row->suite);
		json_emit_kv_string(&j, "benchmark", row->benchmark);
		json_emit_kv_string(&j, "command", row->command);
		json_emit_kv_string(&j, "metric", metric_get(row->metric)->name);
		if (row->recommended >= 0)
			json_emit_kv_double(&j, "min_tolerance_percent",
					    AA_TOLERANCES[row->recommended]);
		else
			json_emit_kv_null(&j, "min_tolerance_percent");
		json_emit_kv_int(&j, "compares", (int64_t)row->n);
		json_emit_key(&j, "change_percent");
		json_emit_begin_object(&j);
		num_or_null(&j, "median", row->median);
		num_or_null(&j, "p5", row->p5);
		num_or_null(&j, "p95", row->p95);
		num_or_null(&j, "p95_abs", row->p95_abs);
		json_emit_key(&j, "values");
		json_emit_begin_array(&j);
		for (size_t i = 0; i < row->n; i++)
			json_emit_double(&j, row->change[i]);
		json_emit_end_array(&j);
		json_emit_end_object(&j);
		json_emit_key(&j, "false_verdicts");
		json_emit_begin_array(&j);
		for (size_t t = 0; t < AA_NR_TOL; t++) {
			json_emit_begin_object_inline(&j);
			json_emit_kv_double(&j, "tolerance_percent", AA_TOLERANCES[t]);
			json_emit_kv_int(&j, "count", row->false_at[t]);
			json_emit_end_object(&j);
		}
		json_emit_end_array(&j);
		json_emit_end_object(&j);
	}
	json_emit_end_array(&j);
	json_emit_end_object(&j);
	json_emit_finish(&j);
	sbuf_addch(out, '\n');
}

static void add_percent(struct sbuf *out, double v)
{
	if (isfinite(v))
		sbuf_addf(out, "%+.1f%%", v);
	else
		sbuf_adds(out, "-");
}

static void render_table(struct sbuf *out, const struct aa_state *st)
{
	sbuf_addf(out, "A/A: %d compare%s of the working tree against itself (seed %llu)\n\n",
		  st->measured, st->measured == 1 ? "" : "s", (unsigned long long)st->seed);
	sbuf_adds(out, "benchmark/command metric       median      p5     p95   false at T=");
	for (size_t t = 0; t < AA_TABLE_TOL; t++)
		sbuf_addf(out, "%g%%%s", AA_TOLERANCES[t], t + 1 < AA_TABLE_TOL ? "," : "");
	sbuf_adds(out, "   resolves\n");
	struct sbuf cell = SBUF_INIT;
	for (size_t k = 0; k < st->nr; k++) {
		const struct aa_row *row = &st->rows[k];
		sbuf_reset(&cell);
		sbuf_addf(&cell, "%s/%s", row->benchmark, row->command);
		sbuf_addf(out, "%-17s %-12s", cell.buf, metric_get(row->metric)->name);
		const double v[3] = { row->median, row->p5, row->p95 };
		for (int q = 0; q < 3; q++) {
			sbuf_reset(&cell);
			add_percent(&cell, v[q]);
			sbuf_addf(out, " %7s", cell.buf);
		}
		sbuf_reset(&cell);
		for (size_t t = 0; t < AA_TABLE_TOL; t++)
			sbuf_addf(&cell, "%d%s", row->false_at[t], t + 1 < AA_TABLE_TOL ? " " : "");
		sbuf_addf(out, "   %-20s ", cell.buf);
		if (row->recommended >= 0)
			sbuf_addf(out, "±%g%%\n", AA_TOLERANCES[row->recommended]);
		else
			sbuf_adds(out, "none up to 50%\n");
	}
	if (!st->nr)
		sbuf_adds(out, "(no gated comparison was measured)\n");
	sbuf_adds(out, "\nresolves: the smallest tolerance with no false verdict whose 95th percentile of |change| is below half of it; set regression.max_percent (or a metric's) at least that high.\n");
	sbuf_release(&cell);
}

static void render_html(struct sbuf *out, const struct aa_state *st)
{
	sbuf_adds(out, "<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">"
		       "<meta http-equiv=\"Content-Security-Policy\" content=\"default-src 'none'; style-src 'unsafe-inline'\">"
		       "<title>kagari aa</title><style>body{font:14px system-ui,sans-serif;margin:24px}\n"
		       "table{border-collapse:collapse}td,th{padding:2px 8px;text-align:right}\n"
		       "td:first-child,th:first-child{text-align:left}\n"
		       ".plots{display:flex;flex-wrap:wrap}\n");
	sbuf_adds(out, SVG_STYLESHEET);
	sbuf_addf(out, "</style></head><body>\n<h1>kagari aa</h1>\n<p>%d A/A compares of the working tree against itself: every measured change is noise, every regression or improved verdict is false. A metric resolves the smallest tolerance with no false verdict whose 95th percentile of |change| is below half of it.</p>\n",
		  st->measured);
	sbuf_adds(out, "<table><tr><th>benchmark/command</th><th>metric</th><th>median</th><th>p5</th><th>p95</th>");
	for (size_t t = 0; t < AA_TABLE_TOL; t++)
		sbuf_addf(out, "<th>false at %g%%</th>", AA_TOLERANCES[t]);
	sbuf_adds(out, "<th>resolves</th></tr>\n");
	for (size_t k = 0; k < st->nr; k++) {
		const struct aa_row *row = &st->rows[k];
		sbuf_adds(out, "<tr><td>");
		report_html_escape(out, row->benchmark, 0);
		sbuf_addch(out, '/');
		report_html_escape(out, row->command, 0);
		sbuf_addf(out, "</td><td>%s</td>", metric_get(row->metric)->name);
		const double v[3] = { row->median, row->p5, row->p95 };
		for (int q = 0; q < 3; q++) {
			sbuf_adds(out, "<td>");
			add_percent(out, v[q]);
			sbuf_adds(out, "</td>");
		}
		for (size_t t = 0; t < AA_TABLE_TOL; t++)
			sbuf_addf(out, "<td>%d</td>", row->false_at[t]);
		if (row->recommended >= 0)
			sbuf_addf(out, "<td>±%g%%</td></tr>\n", AA_TOLERANCES[row->recommended]);
		else
			sbuf_adds(out, "<td>none up to 50%</td></tr>\n");
	}
	sbuf_adds(out, "</table>\n<div class=\"plots\">\n");
	struct sbuf title = SBUF_INIT;
	for (size_t k = 0; k < st->nr; k++) {
		const struct aa_row *row = &st->rows[k];
		sbuf_reset(&title);
		sbuf_addf(&title, "%s/%s %s: A/A change per compare", row->benchmark,
			  row->command, metric_get(row->metric)->name);
		svg_aa_plot(out, title.buf, row->change, row->n, AA_TOLERANCES, AA_TABLE_TOL);
		sbuf_addch(out, '\n');
	}
	sbuf_release(&title);
	sbuf_adds(out, "</div>\n</body></html>\n");
}

/* Print each failed command's error of compare r; returns how many. */
static int command_errors(const struct run_result *r)
{
	int n = 0;
	for (size_t i = 0; i < r->nr_suites; i++) {
		if (r->suites[i].result == RESULT_ERROR &&
		    !r->suites[i].nr_benches)
			n++;
		for (size_t b = 0; b < r->suites[i].nr_benches; b++) {
			const struct bench_result *br = &r->suites[i].benches[b];
			for (size_t c = 0; c < br->nr_commands; c++)
				if (br->commands[c].error) {
					cmd_error("benchmark '%s', command '%s': %s", br->name,
						  br->commands[c].name, br->commands[c].error);
					n++;
				}
		}
	}
	return n;
}

/* Make s->r ready for the next compare (the previous one is released). */
static void next_result(struct session *s, uint64_t seed)
{
	run_result_release(&s->r);
	run_result_init(&s->r);
	s->r.mode = xstrdup("compare");
	s->r.seed = seed;
	s->r.started_at = sysinfo_now_rfc3339();
	s->r.suites = xcalloc(s->ls.nr + 1, sizeof(*s->r.suites));
}

/* --trace FILE: checked as an output (never one of the inputs, not the
   --output file), and every run recorded into tr. 0 or the exit code. */
static int aa_trace_setup(struct session *s, struct cli *cli, struct aa_trace *tr)
{
	struct input_files in = INPUT_FILES_INIT;
	input_files_add_suites(&in, &s->ls);
	int rc = common_check_output("--trace", cli->aa.trace, NULL, &in, EXIT_USAGE);
	input_files_release(&in);
	if (cli->out.output && !rc && fileio_same_file(cli->out.output, cli->aa.trace)) {
		cmd_error("--trace and --output name the same file '%s'", cli->aa.trace);
		rc = EXIT_USAGE;
	}
	if (rc)
		return rc;
	s->opts.on_run = aa_on_run;
	s->opts.on_run_data = tr;
	return 0;
}

/* The k-th A/A compare: every suite with the working tree on both sides,
   then judged into st. 0 or EXIT_EXEC. */
static int aa_one_compare(struct session *s, struct aa_state *st, int k, int repeat)
{
	if (k)
		next_result(s, st->seed);
	/* Each compare its own run order; the resampling seed stays. */
	s->opts.seed = st->seed + (uint64_t)k;
	for (size_t i = 0; i < s->ls.nr && !s->r.interrupted; i++) {
		const struct suite *su = s->ls.suites[i];
		char *tmp_a = xstrfmt("%s/s%zu-r%d-base", s->tmp, i, k);
		char *tmp_b = xstrfmt("%s/s%zu-r%d-head", s->tmp, i, k);
		/* Both sides: the working tree (A/A). */
		struct execute_side sides[SIDE__COUNT] = {
			[SIDE_BASE] = { .present = 1, .root = su->root,
					.head_root = su->root, .tmpdir = tmp_a },
			[SIDE_HEAD] = { .present = 1, .root = su->root,
					.head_root = su->root, .tmpdir = tmp_b },
		};
		session_measure_suite(s, i, sides);
		free(tmp_a);
		free(tmp_b);
	}
	if (s->r.interrupted || interrupt_requested) {
		cmd_error("interrupted after %d of %d A/A compares", k, repeat);
		return EXIT_EXEC;
	}
	if (command_errors(&s->r) || s->exec_rc) {
		if (s->r.exit_reason)
			cmd_error("%s", s->r.exit_reason);
		cmd_error("A/A compare %d of %d failed", k + 1, repeat);
		return EXIT_EXEC;
	}
	judge_compare(st, &s->r);
	return 0;
}

/* The summary in --format, to --output or standard output. */
static int aa_write(const struct cli *cli, const struct aa_state *st)
{
	int rc;
	struct sbuf out = SBUF_INIT;
	const char *fmt = cli->out.format ? cli->out.format : "table";
	if (!strcmp(fmt, "json"))
		render_json(&out, st);
	else if (!strcmp(fmt, "html"))
		render_html(&out, st);
	else
		render_table(&out, st);
	rc = common_write_output(cli->out.output, NULL, out.buf, out.len);
	sbuf_release(&out);
	return rc;
}

/* The --trace file, written even after a failed compare: the runs made
   are noise recorded all the same. 0 or EXIT_EXEC. */
static int aa_trace_write(const struct cli *cli, const struct aa_trace *tr)
{
	int rc = 0;
	struct sbuf err = SBUF_INIT;
	if (report_output_write(cli->aa.trace, NULL, tr->text.buf, tr->text.len, &err)) {
		cmd_error("--trace: %s", err.buf);
		rc = EXIT_EXEC;
	} else if (tr->other)
		fprintf(stderr, "kagari: --trace: %s holds the %zu runs of %s/%s only "
			"(a trace is one program's noise; --filter selects another)\n",
			cli->aa.trace, tr->n, tr->bench, tr->command);
	sbuf_release(&err);
	return rc;
}

static void aa_state_release(struct aa_state *st)
{
	for (size_t k = 0; k < st->nr; k++) {
		free(st->rows[k].change);
		free(st->rows[k].suite);
		free(st->rows[k].benchmark);
		free(st->rows[k].command);
	}
	free(st->rows);
}

static int aa_exec(struct cli *cli, struct cmd_env *env)
{
	int repeat = cli->aa.repeat < 0 ? AA_DEFAULT_REPEAT : cli->aa.repeat;
	if (repeat < 2) {
		cmd_error("--repeat must be at least 2 (a spread needs several compares)");
		return EXIT_USAGE;
	}
	struct session s;
	/* mode "compare": both sides measured interleaved, sequential rounds
	   unless --runs fixes them, exactly as compare measures. */
	int rc = session_prepare(&s, cli, env, "compare", "kagari-aa");
	if (rc) {
		session_release(&s);
		return rc;
	}
	s.build_once = 1;
	struct aa_trace tr = { .text = SBUF_INIT };
	if (cli->aa.trace && (rc = aa_trace_setup(&s, cli, &tr))) {
		session_release(&s);
		return rc;
	}
	struct aa_state st;
	memset(&st, 0, sizeof(st));
	st.repeat = repeat;
	st.seed = s.r.seed;
	for (int k = 0; k < repeat && !rc; k++)
		rc = aa_one_compare(&s, &st, k, repeat);
	if (!rc) {
		summarise(&st);
		rc = aa_write(cli, &st);
	}
	if (cli->aa.trace && tr.n) {
		int trc = aa_trace_write(cli, &tr);
		rc = rc ? rc : trc;
	}
	free(tr.bench);
	free(tr.command);
	sbuf_release(&tr.text);
	aa_state_release(&st);
	session_release(&s);
	return rc;
}

const struct cmd_entry cmd_aa = {
	.name = "aa",
	.args = "[--repeat N] [options] [PATH...]",
	.summary = "run N A/A compares of the working tree and say how small a change this machine resolves",
	.opts = aa_opts,
	.needs_runner = 1,
	.exec = aa_exec,
};
