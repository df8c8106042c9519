/*
 * kagari bench [options] CMD...: hyperfine's habits, kagari's engine. No
 * suite and no git: the commands on the command line are measured once
 * per round each, interleaved in the same rounds (a seeded shuffle per
 * round), the first one is the baseline, and each other command is
 * compared with it by the full comparison engine (paired per-round
 * ratios, bootstrap interval, exact test, Holm, the A/A noise floor) —
 * report only, exit 0, unless --max-percent P gates the verdicts.
 *
 * How: bench writes a private one-sided suite with one benchmark whose
 * commands c1..cN are the user's (`baseline: c1`), and runs the usual
 * session (cmd/session.h) in mode "bench" with execute_options'
 * compare_baseline: the benchmark result is marked compare_with_baseline
 * and analyze/ compares each command's runs with the baseline's of the
 * same rounds. Without --runs the rounds are sequential (the looks of
 * compare) with hyperfine's floor of 10 runs and 3 s per command. Each
 * command runs in the user's folder: with a shell, `SHELL cK.sh` where the
 * script changes there and runs the command (what `SHELL -c CMD` costs);
 * with -N its words are started directly, no shell at all, through a
 * link to that folder. The results are then named after the user's
 * commands (-n names, {NAME} expanded) with their parameters.
 *
 * Parameters as in hyperfine: -P NAME MIN MAX [-D STEP] and -L NAME A,B,C
 * (several combine into every combination) replace {NAME} in the commands
 * (and -n names), in hyperfine's order: per combination, the first
 * parameter changing fastest, every command as given. --save-suite FILE
 * writes the equivalent suite (one benchmark, `baseline: c1`) to graduate
 * to. --export-json/-csv/-markdown add hyperfine's exports beside
 * --format/--output.
 */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "base/fileio.h"
#include "base/sbuf.h"
#include "base/strvec.h"
#include "base/tmpdir.h"
#include "base/xalloc.h"
#include "cmd/cmd.h"
#include "cmd/exit.h"
#include "cmd/session.h"
#include "suite/load.h"

#define BENCH_MAX_COMMANDS 1000

/* bench's options, hyperfine's as given; measure and out hold the ones
   it shares with run (runs, warmup, max_runs, seed; format, output,
   quiet, no_color, time_unit). */
struct bench_cli {
	struct cli_common common;
	struct cli_out out;
	struct cli_measure measure;
	struct strvec params;  /* -L: NAME, A,B,C pairs */
	struct strvec scan;    /* -P: NAME, MIN, MAX triples (last wins) */
	struct strvec names;   /* -n, in order */
	struct strvec exports; /* "export-json", FILE, ... (in order) */
	char *step;	       /* -D */
	char *prepare, *setup, *cleanup;
	char *shell;	       /* -S; -N is "none" */
	char *style;
	char *max_percent;
	char *save_suite;
	int ignore_failure;
	int min_runs;	       /* -1 unset */
};

#define B(f) offsetof(struct bench_cli, f)
/* hyperfine's spellings; the short ones are named in the help lines.
   time-unit and style are strings with choices (completion offers them):
   bench_take() checks them with messages of hyperfine's shape. */
static const struct opt bench_opts[] = {
	{ "runs", OPT_COUNT, B(measure.runs), "N", "(-r) measured runs per command (default: adaptive)", NULL },
	{ "warmup", OPT_COUNT, B(measure.warmup), "N", "(-w) unmeasured warm-up runs per command (default 1)", NULL },
	{ "prepare", OPT_STRING, B(prepare), "CMD", "(-p) run CMD before every run, untimed", NULL },
	{ "shell", OPT_STRING, B(shell), "SHELL", "(-S) the POSIX shell the commands run in (default sh); -N or 'none': no shell, the command split into words", NULL },
	{ "parameter-scan", OPT_APPEND, B(scan), "NAME MIN MAX", "(-P) one command per value MIN, MIN+STEP, ... MAX, as {NAME}", NULL },
	{ "parameter-step-size", OPT_STRING, B(step), "STEP", "(-D) the step of --parameter-scan (default 1)", NULL },
	{ "parameter-list", OPT_APPEND, B(params), "NAME A,B,..", "(-L) one command per value, as {NAME}; several lists give every combination", NULL },
	{ "command-name", OPT_APPEND, B(names), "NAME", "(-n) the name of the next command (repeatable; {NAME} expands)", NULL },
	{ "setup", OPT_STRING, B(setup), "CMD", "(-s) run CMD once before the runs of the commands, untimed", NULL },
	{ "cleanup", OPT_STRING, B(cleanup), "CMD", "(-c) run CMD once after the runs of the commands, untimed", NULL },
	{ "ignore-failure", OPT_BOOL, B(ignore_failure), NULL, "(-i) a non-zero exit status does not stop a command (the exit codes are exported)", NULL },
	{ "min-runs", OPT_COUNT, B(min_runs), "N", "(-m) at least N runs per command without --runs (default 10)", NULL },
	{ "max-runs", OPT_COUNT, B(measure.max_runs), "N", "(-M) at most N runs per command without --runs (default 1000)", NULL },
	{ "time-unit", OPT_STRING, B(out.time_unit), "UNIT", "(-u) the unit of the table and the Markdown export", "second|millisecond|microsecond|nanosecond" },
	{ "style", OPT_STRING, B(style), "TYPE", "output style: none (no progress, no colour), basic or nocolor (no colour), auto, full, color", "auto|basic|full|nocolor|color|none" },
	{ "export-json", OPT_APPEND_NAMED, B(exports), "FILE", "also write hyperfine's JSON export to FILE", NULL },
	{ "export-csv", OPT_APPEND_NAMED, B(exports), "FILE", "also write hyperfine's CSV export (seconds, parameter_NAME columns) to FILE", NULL },
	{ "export-markdown", OPT_APPEND_NAMED, B(exports), "FILE", "also write hyperfine's Markdown table to FILE", NULL },
	{ "max-percent", OPT_STRING, B(max_percent), "P", "gate: a command more than P% slower than the first fails (exit 1); default: report only", NULL },
	{ "save-suite", OPT_STRING, B(save_suite), "FILE", "write the equivalent suite to FILE (kagari run FILE measures the same commands)", NULL },
	{ "format", OPT_ENUM, B(out.format), "FMT", "report format, as for run, or hyperfine's csv and markdown layouts", REPORT_FORMAT_CHOICES_BENCH },
	{ "output", OPT_STRING, B(out.output), "FILE", "write the report to FILE instead of stdout", NULL },
	{ "seed", OPT_SEED, B(measure.seed), "N", "seed for run order and resampling", NULL },
	{ "quiet", OPT_BOOL, B(out.quiet), NULL, "no progress line", NULL },
	{ "no-color", OPT_BOOL, B(out.no_color), NULL, "no colour", NULL },
	OPT_ALLOW_PULL_REQUEST_TARGET, /* taken out of argv by cmd_exec() */
	{ NULL, 0, 0, NULL, NULL, NULL },
};
#undef B

static const struct opt_alias bench_aliases[] = {
	{ "-r", "runs", NULL }, { "-w", "warmup", NULL }, { "-p", "prepare", NULL },
	{ "-S", "shell", NULL }, { "-N", "shell", "none" },
	{ "-P", "parameter-scan", NULL }, { "-D", "parameter-step-size", NULL },
	{ "-L", "parameter-list", NULL }, { "-n", "command-name", NULL },
	{ "-s", "setup", NULL }, { "-c", "cleanup", NULL },
	{ "-i", "ignore-failure", NULL }, { "-m", "min-runs", NULL },
	{ "-M", "max-runs", NULL }, { "-u", "time-unit", NULL },
	{ NULL, NULL, NULL },
};

struct param {
	char *name;
	struct strvec values;
};

struct bench_args {
	struct strvec templates; /* the commands as given */
	struct strvec names;	 /* -n, in order */
	struct param *params;
	size_t nr_params;
	char *scan_name, *scan_min, *scan_max, *step;
	char *prepare, *setup, *cleanup;
	int ignore_failure;
	int min_runs, max_runs; /* -1: unset */
	char *shell; /* NULL: sh; "none": -N */
	char *max_percent;
	char *save_suite;
	/* expanded, in hyperfine's order: per combination of the
	   parameters (the first one changing fastest), every command */
	struct strvec cmds, labels;
	struct strvec *values; /* per command: the parameters' values */
	/* The session's reports beside --format/--output (--export-json
	   ...): FORMAT, PATH, LABEL triples, LABEL the option that asked. */
	struct strvec exports;
	int quiet, no_color; /* --quiet, --no-color, or what --style says */
};

static void bench_args_release(struct bench_args *a)
{
	strvec_clear(&a->templates);
	strvec_clear(&a->exports);
	strvec_clear(&a->names);
	for (size_t i = 0; i < a->nr_params; i++) {
		free(a->params[i].name);
		strvec_clear(&a->params[i].values);
	}
	free(a->params);
	free(a->scan_name);
	free(a->scan_min);
	free(a->scan_max);
	free(a->step);
	free(a->prepare);
	free(a->setup);
	free(a->cleanup);
	free(a->shell);
	for (size_t i = 0; a->values && i < a->cmds.nr; i++)
		strvec_clear(&a->values[i]);
	free(a->values);
	free(a->max_percent);
	free(a->save_suite);
	strvec_clear(&a->cmds);
	strvec_clear(&a->labels);
}

static struct param *add_param(struct bench_args *a, const char *name)
{
	a->params = xreallocarray(a->params, a->nr_params + 1, sizeof(*a->params));
	struct param *p = &a->params[a->nr_params++];
	p->name = xstrdup(name);
	strvec_init(&p->values);
	return p;
}

static int param_name_ok(const char *s)
{
	if (!*s)
		return 0;
	for (; *s; s++)
		if (!(*s == '_' || (*s >= 'a' && *s <= 'z') || (*s >= 'A' && *s <= 'Z') ||
		      (*s >= '0' && *s <= '9')))
			return 0;
	return 1;
}

static int parse_double(const char *s, double *out)
{
	char *end = NULL;
	errno = 0;
	double v = strtod(s, &end);
	if (!*s || *end || errno || !isfinite(v))
		return -1;
	*out = v;
	return 0;
}

/* A copy of from (a string of struct bench_cli's, or NULL) in *to. */
static void take_str(char **to, const char *from)
{
	free(*to);
	*to = from ? xstrdup(from) : NULL;
}

/* -L NAME A,B,C pairs as parameters (empty values kept, as hyperfine). */
static int take_lists(const struct strvec *pairs, struct bench_args *a)
{
	for (size_t i = 0; i + 1 < pairs->nr; i += 2) {
		if (!param_name_ok(pairs->v[i])) {
			cmd_error("--parameter-list: '%s' is not a parameter name ([A-Za-z0-9_]+)",
				  pairs->v[i]);
			return EXIT_USAGE;
		}
		struct param *p = add_param(a, pairs->v[i]);
		const char *q = pairs->v[i + 1];
		for (;;) {
			const char *comma = strchr(q, ',');
			size_t n = comma ? (size_t)(comma - q) : strlen(q);
			strvec_push_take(&p->values, xstrndup(q, n));
			if (!comma)
				break;
			q = comma + 1;
		}
	}
	return 0;
}

/* --export-json FILE ... as a->exports' FORMAT, PATH, LABEL triples. */
static int take_exports(const struct bench_cli *cli, struct bench_args *a)
{
	const struct strvec *e = &cli->exports;
	for (size_t i = 0; i + 1 < e->nr; i += 2) {
		const char *opt = e->v[i], *file = e->v[i + 1];
		if (!*file) {
			cmd_error("--%s: empty file name", opt);
			return EXIT_USAGE;
		}
		strvec_push(&a->exports, !strcmp(opt, "export-json") ? "hyperfine-json"
					 : !strcmp(opt, "export-csv")	 ? "hyperfine-csv"
								 : "hyperfine-markdown");
		strvec_push(&a->exports, file);
		strvec_push_take(&a->exports, xstrfmt("--%s", opt));
	}
	return 0;
}

/* A value of a bench_opts string with choices, if given, is one of them. */
static int choice_check(const char *name, const char *v)
{
	const struct opt *o = bench_opts;
	while (strcmp(o->name, name))
		o++;
	if (!v)
		return 0;
	size_t n = strlen(v);
	for (const char *p = o->choices; *p;) {
		size_t len = strcspn(p, "|");
		if (len == n && !strncmp(p, v, n))
			return 0;
		p += len + (p[len] == '|');
	}
	struct sbuf list = SBUF_INIT;
	for (const char *p = o->choices; *p; p++)
		if (*p == '|')
			sbuf_adds(&list, ", ");
		else
			sbuf_addch(&list, *p);
	cmd_error("--%s: '%s' is not one of %s", name, v, list.buf);
	sbuf_release(&list);
	return -1;
}

/*
 * The options cmd_exec() parsed on bench_opts into a (copied), with the
 * checks the table cannot make. Returns 0, or the exit code (message
 * printed).
 */
static int bench_take(const struct bench_cli *cli, struct bench_args *a)
{
	const struct bench_cli *b = cli;
	strvec_clear(&a->templates);
	strvec_copy(&a->templates, &cli->common.args);
	if (cli->measure.runs == 0) {
		cmd_error("--runs must be at least 1");
		return EXIT_USAGE;
	}
	if (b->min_runs == 0 || cli->measure.max_runs == 0) {
		cmd_error("%s must be at least 1", b->min_runs == 0 ? "--min-runs" : "--max-runs");
		return EXIT_USAGE;
	}
	a->min_runs = b->min_runs;
	a->max_runs = cli->measure.max_runs;
	a->ignore_failure = b->ignore_failure;
	take_str(&a->prepare, b->prepare);
	take_str(&a->setup, b->setup);
	take_str(&a->cleanup, b->cleanup);
	take_str(&a->shell, b->shell);
	take_str(&a->step, b->step);
	take_str(&a->max_percent, b->max_percent);
	take_str(&a->save_suite, b->save_suite);
	for (size_t i = 0; i < b->names.nr; i++)
		strvec_push(&a->names, b->names.v[i]);
	if (b->scan.nr >= 3) { /* the last -P wins */
		const char **last = b->scan.v + b->scan.nr - 3;
		a->scan_name = xstrdup(last[0]);
		a->scan_min = xstrdup(last[1]);
		a->scan_max = xstrdup(last[2]);
	}
	if (choice_check("time-unit", cli->out.time_unit) || choice_check("style", b->style))
		return EXIT_USAGE;
	a->quiet = cli->out.quiet;
	a->no_color = cli->out.no_color;
	if (b->style && !strcmp(b->style, "none")) {
		a->quiet = 1;
		a->no_color = 1;
	} else if (b->style && (!strcmp(b->style, "basic") || !strcmp(b->style, "nocolor"))) {
		a->no_color = 1;
	}
	int rc = take_lists(&b->params, a);
	return rc ? rc : take_exports(cli, a);
}

/* Digits after the decimal point of a number as typed (none: 0). */
static int decimals(const char *s)
{
	const char *dot = strchr(s, '.');
	if (!dot || strpbrk(s, "eE"))
		return 0;
	int n = 0;
	for (const char *p = dot + 1; *p >= '0' && *p <= '9'; p++)
		n++;
	return n > 15 ? 15 : n;
}

/* The scan's values as a parameter list. */
static int scan_values(struct bench_args *a)
{
	if (a->step && !a->scan_name) {
		cmd_error("--parameter-step-size (-D) needs --parameter-scan (-P)");
		return EXIT_USAGE;
	}
	if (!a->scan_name)
		return 0;
	double lo, hi, step = 1;
	if (!param_name_ok(a->scan_name)) {
		cmd_error("--parameter-scan: '%s' is not a parameter name ([A-Za-z0-9_]+)", a->scan_name);
		return EXIT_USAGE;
	}
	if (parse_double(a->scan_min, &lo) || parse_double(a->scan_max, &hi)) {
		cmd_error("--parameter-scan %s: MIN '%s' and MAX '%s' must be numbers",
			  a->scan_name, a->scan_min, a->scan_max);
		return EXIT_USAGE;
	}
	if (a->step && (parse_double(a->step, &step) || step <= 0)) {
		cmd_error("--parameter-step-size: '%s' is not a number above 0", a->step);
		return EXIT_USAGE;
	}
	if (hi < lo) {
		cmd_error("--parameter-scan %s: MAX %s is below MIN %s", a->scan_name,
			  a->scan_max, a->scan_min);
		return EXIT_USAGE;
	}
	double n = floor((hi - lo) / step + 1e-9) + 1;
	if (n > BENCH_MAX_COMMANDS) {
		cmd_error("--parameter-scan %s: %.0f values; at most %d", a->scan_name, n,
			  BENCH_MAX_COMMANDS);
		return EXIT_USAGE;
	}
	/* The scan is the first parameter: hyperfine's commands vary it.
	   Its values are written as hyperfine writes them (decimal sums):
	   MIN with the digits it was typed with, then MIN + k STEP with as
	   many decimals as the longer of MIN and STEP. */
	struct param p = { .name = xstrdup(a->scan_name) };
	strvec_init(&p.values);
	int dmin = decimals(a->scan_min), dstep = a->step ? decimals(a->step) : 0;
	int d = dmin > dstep ? dmin : dstep;
	for (int k = 0; k < (int)n; k++)
		strvec_pushf(&p.values, "%.*f", k ? d : dmin, lo + step * k);
	a->params = xreallocarray(a->params, a->nr_params + 1, sizeof(*a->params));
	memmove(a->params + 1, a->params, a->nr_params * sizeof(*a->params));
	a->params[0] = p;
	a->nr_params++;
	return 0;
}

/* t with each {NAME} of the combination `idx` replaced. */
static char *substitute(const char *t, const struct bench_args *a, const size_t *idx)
{
	struct sbuf out = SBUF_INIT;
	while (*t) {
		int done = 0;
		if (*t == '{') {
			for (size_t p = 0; p < a->nr_params && !done; p++) {
				size_t n = strlen(a->params[p].name);
				if (!strncmp(t + 1, a->params[p].name, n) && t[1 + n] == '}') {
					sbuf_adds(&out, a->params[p].values.v[idx[p]]);
					t += n + 2;
					done = 1;
				}
			}
		}
		if (!done)
			sbuf_addch(&out, *t++);
	}
	return sbuf_detach(&out);
}

/*
 * Every combination of the parameters, each with every template, in
 * hyperfine's order (the first parameter changes fastest; within a
 * combination the commands as given): a->cmds, a->labels, a->values.
 */
static int expand(struct bench_args *a)
{
	for (size_t p = 0; p < a->nr_params; p++)
		if (!a->params[p].values.nr) {
			cmd_error("parameter '%s' has no values", a->params[p].name);
			return EXIT_USAGE;
		}
	if (a->names.nr > a->templates.nr) {
		cmd_error("%zu --command-name for %zu command%s", a->names.nr, a->templates.nr,
			  a->templates.nr == 1 ? "" : "s");
		return EXIT_USAGE;
	}
	size_t *idx = xcalloc(a->nr_params + 1, sizeof(*idx));
	size_t alloc = 0;
	for (;;) {
		for (size_t t = 0; t < a->templates.nr; t++) {
			if (a->cmds.nr >= BENCH_MAX_COMMANDS) {
				cmd_error("more than %d commands after expanding the parameters",
					  BENCH_MAX_COMMANDS);
				free(idx);
				return EXIT_USAGE;
			}
			char *c = substitute(a->templates.v[t], a, idx);
			char *l = t < a->names.nr ? substitute(a->names.v[t], a, idx) : xstrdup(c);
			ALLOC_GROW(a->values, a->cmds.nr + 1, alloc);
			struct strvec *vals = &a->values[a->cmds.nr];
			strvec_init(vals);
			for (size_t p = 0; p < a->nr_params; p++)
				strvec_push(vals, a->params[p].values.v[idx[p]]);
			strvec_push(&a->cmds, c);
			strvec_push(&a->labels, l);
			free(c);
			free(l);
		}
		/* next combination, the first parameter fastest */
		int carry = 1;
		for (size_t p = 0; p < a->nr_params && carry; p++) {
			if (++idx[p] < a->params[p].values.nr)
				carry = 0;
			else
				idx[p] = 0;
		}
		if (carry)
			break; /* every combination done (or no parameters) */
	}
	free(idx);
	return 0;
}

static void sh_quote(struct sbuf *out, const char *s)
{
	sbuf_addch(out, '\'');
	for (; *s; s++) {
		if (*s == '\'')
			sbuf_adds(out, "'\\''");
		else
			sbuf_addch(out, *s);
	}
	sbuf_addch(out, '\'');
}

static void yaml_quote(struct sbuf *out, const char *s)
{
	sbuf_addch(out, '"');
	for (; *s; s++) {
		unsigned char c = (unsigned char)*s;
		if (c == '"' || c == '\\')
			sbuf_addf(out, "\\%c", c);
		else if (c == '\n')
			sbuf_adds(out, "\\n");
		else if (c == '\t')
			sbuf_adds(out, "\\t");
		else if (c < 0x20 || c == 0x7f)
			sbuf_addf(out, "\\x%02x", c);
		else
			sbuf_addch(out, c);
	}
	sbuf_addch(out, '"');
}

/* -N: the words of cmd (quotes group, backslash escapes), as hyperfine. */
static int split_words(const char *cmd, struct strvec *out)
{
	struct sbuf w = SBUF_INIT;
	int in = 0, q = 0;
	for (const char *p = cmd;; p++) {
		if (!*p || (!q && (*p == ' ' || *p == '\t' || *p == '\n'))) {
			if (in)
				strvec_push(out, w.buf);
			sbuf_reset(&w);
			in = 0;
			if (!*p)
				break;
			continue;
		}
		in = 1;
		if (!q && (*p == '\'' || *p == '"'))
			q = *p;
		else if (q && *p == q)
			q = 0;
		else if (*p == '\\' && q != '\'' && p[1])
			sbuf_addch(&w, *++p);
		else
			sbuf_addch(&w, *p);
	}
	sbuf_release(&w);
	return q ? -1 : 0;
}

static int no_shell(const struct bench_args *a)
{
	return a->shell && !strcmp(a->shell, "none");
}

/* The body of one side's script: to the user's folder, then the command. */
static int script_body(struct sbuf *out, const struct bench_args *a, const char *cwd,
		       const char *cmd)
{
	sbuf_adds(out, "cd -- ");
	sh_quote(out, cwd);
	sbuf_adds(out, " || exit 126\n");
	if (!no_shell(a)) {
		sbuf_addf(out, "%s\n", cmd);
		return 0;
	}
	struct strvec w = STRVEC_INIT;
	if (split_words(cmd, &w) || !w.nr) {
		strvec_clear(&w);
		cmd_error("-N: cannot split '%s' into words (an unclosed quote, or empty)", cmd);
		return EXIT_USAGE;
	}
	sbuf_adds(out, "exec");
	for (size_t i = 0; i < w.nr; i++) {
		sbuf_addch(out, ' ');
		sh_quote(out, w.v[i]);
	}
	sbuf_addch(out, '\n');
	strvec_clear(&w);
	return 0;
}

static int write_file(const char *path, const struct sbuf *data)
{
	struct sbuf err = SBUF_INIT;
	int rc = 0;
	if (fileio_write_atomic(path, data->buf, data->len, &err)) {
		cmd_error("%s", err.buf);
		rc = EXIT_EXEC;
	}
	sbuf_release(&err);
	return rc;
}

/* The regression settings both suites share: latency, the one metric
   bench measures (user and system CPU time come with every run). */
static void regression_yaml(struct sbuf *y, const struct bench_args *a, double max)
{
	sbuf_addf(y, "  regression:\n    latency: {max_percent: %g, gate: %s}\n", max,
		  a->max_percent ? "true" : "false");
}

/* hyperfine's defaults: at least 10 runs and 3 s per command. */
#define BENCH_MIN_RUNS 10
#define BENCH_MAX_RUNS 1000

static void defaults_yaml(struct sbuf *y, const struct bench_cli *cli, const struct bench_args *a)
{
	sbuf_adds(y, "defaults:\n");
	if (cli->measure.warmup >= 0)
		sbuf_addf(y, "  warmup: %d\n", cli->measure.warmup);
	if (cli->measure.runs > 0) {
		sbuf_addf(y, "  runs: %d\n", cli->measure.runs);
	} else {
		int max = a->max_runs > 0 ? a->max_runs : BENCH_MAX_RUNS;
		int min = a->min_runs > 0 ? a->min_runs : BENCH_MIN_RUNS;
		if (min > max && a->min_runs <= 0)
			min = max;
		if (max < min && a->max_runs <= 0)
			max = min;
		sbuf_addf(y, "  min_runs: %d\n  max_runs: %d\n  min_time: 3s\n", min, max);
	}
	if (a->ignore_failure) {
		sbuf_adds(y, "  exit_codes: [");
		for (int i = 0; i < 256; i++)
			sbuf_addf(y, "%s%d", i ? ", " : "", i);
		sbuf_adds(y, "]\n");
	}
}

/*
 * Where the saved suite's commands run: bench runs them in the user's
 * folder, a suite in its own folder, so a relative path in a command
 * (data.txt) would resolve elsewhere. rel: the user's folder relative to
 * the saved file's folder, for `cwd:` (NULL: the same folder), when it
 * lies in that suite's repository; otherwise cd: the absolute folder each
 * command first changes to, as bench's own scripts do.
 */
struct saved_where {
	char *rel;
	char *cd;
};

/* The suite a user would write for these commands (--save-suite). */
static void saved_suite(struct sbuf *y, const struct bench_args *a, const struct bench_cli *cli,
			double max, const struct saved_where *at)
{
	sbuf_adds(y, "# Written by kagari bench --save-suite: the same commands as a suite.\n"
		     "# `kagari run` on it measures them; c1 is the baseline.\n");
	if (at && at->rel)
		sbuf_adds(y, "# They run where bench ran them: cwd is relative to this file's folder.\n");
	if (at && at->cd)
		sbuf_adds(y, "# They run where bench ran them: this file's folder cannot reach it\n"
			     "# (cwd stays in the suite's repository), so each first changes there.\n");
	sbuf_adds(y, "version: \"1\"\nname: bench\n");
	defaults_yaml(y, cli, a);
	if (at && at->rel) {
		sbuf_adds(y, "  cwd: ");
		yaml_quote(y, at->rel);
		sbuf_addch(y, '\n');
	}
	regression_yaml(y, a, max);
	sbuf_adds(y, "benchmarks:\n  - name: bench\n    baseline: c1\n");
	const char *sh = a->shell && !no_shell(a) ? a->shell : NULL;
	struct sbuf cmd = SBUF_INIT;
	const char *hook_cmd[] = { a->setup, a->prepare, a->cleanup };
	static const char *const hook_key[] = { "setup", "prepare_each", "cleanup" };
	for (int h = 0; h < 3; h++) {
		if (!hook_cmd[h])
			continue;
		/* Hooks do not inherit defaults.cwd (docs/suite.md). */
		sbuf_addf(y, "    %s:\n      - command: ", hook_key[h]);
		sbuf_reset(&cmd);
		if (at && at->cd) {
			sbuf_adds(&cmd, "cd -- ");
			sh_quote(&cmd, at->cd);
			sbuf_adds(&cmd, " && ");
		}
		sbuf_adds(&cmd, hook_cmd[h]);
		yaml_quote(y, cmd.buf);
		sbuf_adds(y, "\n        shell: true\n");
		if (at && at->rel) {
			sbuf_adds(y, "        cwd: ");
			yaml_quote(y, at->rel);
			sbuf_addch(y, '\n');
		}
	}
	sbuf_adds(y, "    commands:\n");
	for (size_t i = 0; i < a->cmds.nr; i++) {
		sbuf_adds(y, "      # ");
		for (const char *p = a->labels.v[i]; *p; p++)
			sbuf_addch(y, *p == '\n' ? ' ' : *p);
		sbuf_addf(y, "\n      c%zu:\n        command: ", i + 1);
		if (at && at->cd) {
			/* The script bench itself runs (script_body), in its shell. */
			sbuf_reset(&cmd);
			if (script_body(&cmd, a, at->cd, a->cmds.v[i]))
				sbuf_reset(&cmd);
			sbuf_adds(y, "[");
			yaml_quote(y, no_shell(a) || !a->shell ? "sh" : a->shell);
			sbuf_adds(y, ", \"-c\", ");
			yaml_quote(y, cmd.buf);
			sbuf_adds(y, "]\n");
		} else if (no_shell(a)) {
			struct strvec w = STRVEC_INIT;
			split_words(a->cmds.v[i], &w);
			sbuf_addch(y, '[');
			for (size_t k = 0; k < w.nr; k++) {
				if (k)
					sbuf_adds(y, ", ");
				yaml_quote(y, w.v[k]);
			}
			sbuf_adds(y, "]\n");
			strvec_clear(&w);
		} else if (sh) {
			sbuf_adds(y, "[");
			yaml_quote(y, sh);
			sbuf_adds(y, ", \"-c\", ");
			yaml_quote(y, a->cmds.v[i]);
			sbuf_adds(y, "]\n");
		} else {
			yaml_quote(y, a->cmds.v[i]);
			sbuf_adds(y, "\n        shell: true\n");
		}
	}
	sbuf_release(&cmd);
}

/*
 * Where --save-suite FILE's commands must run (struct saved_where): the
 * suite's folder and repository root are the loader's own (a draft of the
 * suite loaded from memory as FILE), so `cwd:` is checked by the rules it
 * will be loaded by.
 */
static void saved_where_find(struct saved_where *at, const char *file,
			     const struct bench_args *a, const struct bench_cli *cli, double max)
{
	memset(at, 0, sizeof(*at));
	char cwd[4096];
	if (!getcwd(cwd, sizeof(cwd)))
		return;
	struct sbuf y = SBUF_INIT, err = SBUF_INIT;
	saved_suite(&y, a, cli, max, NULL);
	struct suite *su = suite_load_mem(file, y.buf, y.len, &err);
	sbuf_release(&y);
	sbuf_release(&err);
	char *dir = su ? fileio_canonical_path(su->dir) : NULL;
	char *root = su ? fileio_canonical_path(su->root) : NULL;
	size_t nr = root ? strlen(root) : 0;
	if (!dir || !root) {
		at->cd = xstrdup(cwd);
	} else if (!strcmp(dir, cwd)) {
		/* The default already: nothing to write. */
	} else if (!strncmp(cwd, root, nr) && (cwd[nr] == '/' || !cwd[nr] || nr == 1)) {
		/* Up from dir to the longest common folder, then down to cwd. */
		size_t common = 0;
		for (size_t i = 0;; i++) {
			int end_d = !dir[i] || dir[i] == '/', end_c = !cwd[i] || cwd[i] == '/';
			if (end_d && end_c)
				common = i;
			if (!dir[i] || !cwd[i] || dir[i] != cwd[i])
				break;
		}
		struct sbuf rel = SBUF_INIT;
		for (const char *p = dir + common; *p; p++)
			if (*p == '/')
				sbuf_adds(&rel, rel.len ? "/.." : "..");
		if (cwd[common])
			sbuf_addf(&rel, "%s%s", rel.len ? "/" : "", cwd + common + 1);
		at->rel = sbuf_detach(&rel);
	} else {
		at->cd = xstrdup(cwd);
	}
	free(dir);
	free(root);
	suite_free(su);
}

/*
 * The private suite and scripts under dir/head (its ${root}; an empty .git
 * folder makes it the suite's root, as a repository would): one benchmark
 * whose commands c1..cN are the user's, measured in the same rounds, c1
 * the baseline. With a shell, cK runs the script cK.sh, which changes to
 * the user's folder and runs the command (`SHELL script` costs what
 * `SHELL -c CMD` costs); with -N, cK is the command's words, started
 * directly (no shell at all) in the user's folder through the link
 * dir/head/work. The hooks are shell scripts the same way.
 */
static int make_suite(const char *dir, const struct bench_args *a, const struct bench_cli *cli,
		      double max, char **suite_file)
{
	char cwd[4096];
	if (!getcwd(cwd, sizeof(cwd))) {
		cmd_error("cannot get the current folder: %s", strerror(errno));
		return EXIT_EXEC;
	}
	char *head = xstrfmt("%s/head", dir);
	char *g = xstrfmt("%s/.git", head);
	char *work = xstrfmt("%s/work", head);
	int bad = mkdir(head, 0700) || mkdir(g, 0700) || (no_shell(a) && symlink(cwd, work));
	free(g);
	free(work);
	if (bad) {
		cmd_error("cannot create a folder in '%s': %s", dir, strerror(errno));
		free(head);
		return EXIT_EXEC;
	}
	const char *sh = no_shell(a) || !a->shell ? "sh" : a->shell;
	int rc = 0;
	struct sbuf body = SBUF_INIT, y = SBUF_INIT;
	sbuf_adds(&y, "version: \"1\"\nname: bench\n");
	defaults_yaml(&y, cli, a);
	regression_yaml(&y, a, max);
	sbuf_adds(&y, "benchmarks:\n  - name: bench\n");
	if (a->cmds.nr > 1)
		sbuf_adds(&y, "    baseline: c1\n");
	struct bench_args sh_only = *a;
	sh_only.shell = NULL; /* hooks are always shell commands */
	const char *hook_cmd[] = { a->setup, a->prepare, a->cleanup };
	static const char *const hook_key[] = { "setup", "prepare_each", "cleanup" };
	for (int h = 0; h < 3 && !rc; h++) {
		if (!hook_cmd[h])
			continue;
		sbuf_reset(&body);
		script_body(&body, &sh_only, cwd, hook_cmd[h]);
		char *f = xstrfmt("%s/%s.sh", head, hook_key[h]);
		rc = write_file(f, &body);
		free(f);
		sbuf_addf(&y, "    %s:\n      - command: [sh, \"${root}/%s.sh\"]\n", hook_key[h],
			  hook_key[h]);
	}
	sbuf_adds(&y, "    commands:\n");
	for (size_t k = 0; k < a->cmds.nr && !rc; k++) {
		sbuf_addf(&y, "      c%zu: {command: [", k + 1);
		if (no_shell(a)) {
			struct strvec w = STRVEC_INIT;
			if (split_words(a->cmds.v[k], &w) || !w.nr) {
				cmd_error("-N: cannot split '%s' into words (an unclosed quote, or empty)",
					  a->cmds.v[k]);
				rc = EXIT_USAGE;
			}
			for (size_t i = 0; i < w.nr; i++) {
				if (i)
					sbuf_adds(&y, ", ");
				/* $${ is a literal ${ in a suite */
				struct sbuf q = SBUF_INIT;
				for (const char *p = w.v[i]; *p; p++) {
					if (p[0] == '$' && p[1] == '{')
						sbuf_addch(&q, '$');
					sbuf_addch(&q, *p);
				}
				yaml_quote(&y, q.buf);
				sbuf_release(&q);
			}
			strvec_clear(&w);
			sbuf_adds(&y, "], cwd: work}\n");
			continue;
		}
		sbuf_reset(&body);
		rc = script_body(&body, a, cwd, a->cmds.v[k]);
		char *f = xstrfmt("%s/c%zu.sh", head, k + 1);
		if (!rc)
			rc = write_file(f, &body);
		free(f);
		yaml_quote(&y, sh);
		sbuf_addf(&y, ", \"${root}/c%zu.sh\"]}\n", k + 1);
	}
	sbuf_release(&body);
	if (!rc) {
		*suite_file = xstrfmt("%s/kagari.yaml", head);
		rc = write_file(*suite_file, &y);
	}
	sbuf_release(&y);
	free(head);
	return rc;
}

/* Swap the commands' private names (c1, c2 ...) for the user's labels, or
   back: the comparisons are seeded by name, so the looks while measuring
   must see the names the final analysis sees. */
static void swap_names(struct bench_result *br, char **names, char **baseline)
{
	for (size_t c = 0; c < br->nr_commands; c++) {
		char *t = br->commands[c].name;
		br->commands[c].name = names[c];
		names[c] = t;
	}
	char *t = br->baseline;
	br->baseline = *baseline;
	*baseline = t;
}

struct bench_look {
	execute_look_fn *look;
	void *data;
	const struct bench_args *a;
};

static void bench_look_fn(void *data, struct bench_result *br, unsigned char *decided)
{
	struct bench_look *L = data;
	size_t n = br->nr_commands < L->a->labels.nr ? br->nr_commands : L->a->labels.nr;
	if (n != br->nr_commands) {
		L->look(L->data, br, decided);
		return;
	}
	char **names = xcalloc(n + 1, sizeof(*names));
	for (size_t c = 0; c < n; c++)
		names[c] = (char *)L->a->labels.v[c];
	char *baseline = br->baseline ? (char *)L->a->labels.v[0] : NULL;
	swap_names(br, names, &baseline);
	L->look(L->data, br, decided);
	swap_names(br, names, &baseline);
	free(names);
}

/* The results carry the user's commands, names and parameters. */
static void name_results(struct run_result *r, const struct bench_args *a)
{
	if (!r->nr_suites || !r->suites[0].nr_benches)
		return;
	struct suite_result *sr = &r->suites[0];
	free(sr->file);
	sr->file = xstrdup("kagari bench");
	struct bench_result *br = &sr->benches[0];
	if (br->baseline) {
		free(br->baseline);
		br->baseline = xstrdup(a->labels.v[0]);
	}
	for (size_t c = 0; c < br->nr_commands && c < a->cmds.nr; c++) {
		struct command_result *cr = &br->commands[c];
		free(cr->name);
		free(cr->command);
		cr->name = xstrdup(a->labels.v[c]);
		cr->command = xstrdup(a->cmds.v[c]);
		for (size_t p = 0; p < a->nr_params; p++) {
			strvec_push(&cr->matrix_names, a->params[p].name);
			strvec_push(&cr->matrix_values, a->values[c].v[p]);
		}
	}
}

/*
 * Measure the commands of the suite bench wrote (suite_file) in a session
 * asked for by bench's options; returns the exit code.
 */
static int bench_measure(const struct bench_cli *cli, struct bench_args *a,
			 const char *suite_file, struct cmd_env *env)
{
	struct strvec paths = STRVEC_INIT;
	strvec_push(&paths, suite_file);
	struct session_config cfg = {
		.mode = "bench",
		.tmp_prefix = "kagari-bench",
		.paths = &paths,
		.measure = &cli->measure,
		.format = cli->out.format,
		.output = cli->out.output,
		.time_unit = cli->out.time_unit,
		.exports = &a->exports,
		.quiet = a->quiet,
		.no_color = a->no_color,
		.no_history = 1, /* no suite of the user's to keep it beside */
	};
	if (a->cmds.nr > 1 && !a->quiet)
		fprintf(stderr, "kagari: bench: %zu commands measured in the same rounds; each compared with the first, '%s'\n",
			a->cmds.nr, a->labels.v[0]);
	struct session s;
	int rc = session_prepare(&s, &cfg, env);
	if (!rc) {
		const struct suite *su = s.ls.suites[0];
		char *tmp_head = xstrfmt("%s/s0-head", s.tmp);
		struct execute_side sides[SIDE__COUNT] = {
			[SIDE_HEAD] = { .present = 1, .root = su->root,
					.head_root = su->root, .tmpdir = tmp_head },
		};
		struct bench_look look = { s.opts.look, s.opts.look_data, a };
		s.opts.compare_baseline = 1;
		s.opts.seq_min_time = 1;
		s.opts.look = bench_look_fn;
		s.opts.look_data = &look;
		session_measure_suite(&s, 0, sides);
		name_results(&s.r, a);
		free(tmp_head);
		rc = session_finish(&s);
	}
	session_release(&s);
	strvec_clear(&paths);
	return rc;
}

static int bench_exec(const void *opts, struct cmd_env *env)
{
	const struct bench_cli *cli = opts;
	struct bench_args a;
	memset(&a, 0, sizeof(a));
	strvec_init(&a.templates);
	strvec_init(&a.exports);
	strvec_init(&a.names);
	strvec_init(&a.cmds);
	strvec_init(&a.labels);
	a.min_runs = a.max_runs = -1;
	double max = 10;
	int rc = bench_take(cli, &a);
	if (!rc && !a.templates.nr) {
		cmd_error("bench needs at least one command: kagari bench 'CMD1' ['CMD2' ...]");
		rc = EXIT_USAGE;
	}
	if (!rc && a.max_percent &&
	    (parse_double(a.max_percent, &max) || max <= 0 || max > 1000)) {
		cmd_error("--max-percent: '%s' is not a percentage in (0, 1000]", a.max_percent);
		rc = EXIT_USAGE;
	}
	if (!rc && a.shell && !*a.shell) {
		cmd_error("--shell: empty");
		rc = EXIT_USAGE;
	}
	if (!rc && a.min_runs > 0 && a.max_runs > 0 && a.min_runs > a.max_runs) {
		cmd_error("--min-runs %d is above --max-runs %d", a.min_runs, a.max_runs);
		rc = EXIT_USAGE;
	}
	if (!rc)
		rc = scan_values(&a);
	if (!rc)
		rc = expand(&a);
	struct sbuf err = SBUF_INIT;
	char *dir = NULL, *suite_file = NULL;
	int dir_lock = -1;
	struct sbuf warn = SBUF_INIT;
	if (!rc && a.save_suite) {
		struct sbuf y = SBUF_INIT;
		struct saved_where at;
		saved_where_find(&at, a.save_suite, &a, cli, max);
		saved_suite(&y, &a, cli, max, &at);
		free(at.rel);
		free(at.cd);
		rc = write_file(a.save_suite, &y);
		sbuf_release(&y);
	}
	if (!rc) {
		/* Locked like compare's, so a bench killed with SIGKILL
		   leaves a folder the next kagari prunes. */
		dir = tmpdir_create_locked("kagari-bench", &dir_lock, &warn, &err);
		if (warn.len)
			cmd_warning("%s", warn.buf);
		if (!dir) {
			cmd_error("%s", err.buf);
			rc = EXIT_EXEC;
		}
	}
	if (!rc)
		rc = make_suite(dir, &a, cli, max, &suite_file);
	if (!rc)
		rc = bench_measure(cli, &a, suite_file, env);
	tmpdir_release(dir, dir_lock, getenv("KAGARI_KEEP_WORKDIR") != NULL);
	free(dir);
	free(suite_file);
	sbuf_release(&err);
	sbuf_release(&warn);
	bench_args_release(&a);
	return rc;
}

const struct cmd_entry cmd_bench = {
	.name = "bench",
	.args = "[options] CMD...",
	.summary = "measure commands like hyperfine, interleaved; compare each with the first",
	.opts = bench_opts,
	.cli_size = sizeof(struct bench_cli),
	.aliases = bench_aliases,
	.needs_runner = 1,
	.exec = bench_exec,
};
