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
 *
 * The plan (the commands expanded, the private suite, the saved one, the
 * results' names) is suite/bench_plan.h's; this file takes the options,
 * writes the suite's files and runs the session.
 */
#include <errno.h>
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
#include "suite/bench_plan.h"

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
	char *shell; /* -S; -N is "none" */
	char *style;
	char *max_percent;
	char *save_suite;
	int ignore_failure;
	int min_runs; /* -1 unset */
};

#define B(f) offsetof(struct bench_cli, f)
/* hyperfine's spellings; the short ones are named in the help lines.
   time-unit and style are strings with choices (completion offers them):
   bench_take() checks them with messages of hyperfine's shape. */
static const struct opt bench_opts[] = {
    {"runs", OPT_COUNT, B(measure.runs), "N", "(-r) measured runs per command (default: adaptive)",
     NULL},
    {"warmup", OPT_COUNT, B(measure.warmup), "N",
     "(-w) unmeasured warm-up runs per command (default 1)", NULL},
    {"prepare", OPT_STRING, B(prepare), "CMD", "(-p) run CMD before every run, untimed", NULL},
    {"shell", OPT_STRING, B(shell), "SHELL",
     "(-S) the POSIX shell the commands run in (default sh); -N or 'none': no shell, the command "
     "split into words",
     NULL},
    {"parameter-scan", OPT_APPEND, B(scan), "NAME MIN MAX",
     "(-P) one command per value MIN, MIN+STEP, ... MAX, as {NAME}", NULL},
    {"parameter-step-size", OPT_STRING, B(step), "STEP",
     "(-D) the step of --parameter-scan (default 1)", NULL},
    {"parameter-list", OPT_APPEND, B(params), "NAME A,B,..",
     "(-L) one command per value, as {NAME}; several lists give every combination", NULL},
    {"command-name", OPT_APPEND, B(names), "NAME",
     "(-n) the name of the next command (repeatable; {NAME} expands)", NULL},
    {"setup", OPT_STRING, B(setup), "CMD",
     "(-s) run CMD once before the runs of the commands, untimed", NULL},
    {"cleanup", OPT_STRING, B(cleanup), "CMD",
     "(-c) run CMD once after the runs of the commands, untimed", NULL},
    {"ignore-failure", OPT_BOOL, B(ignore_failure), NULL,
     "(-i) a non-zero exit status does not stop a command (the exit codes are exported)", NULL},
    {"min-runs", OPT_COUNT, B(min_runs), "N",
     "(-m) at least N runs per command without --runs (default 10)", NULL},
    {"max-runs", OPT_COUNT, B(measure.max_runs), "N",
     "(-M) at most N runs per command without --runs (default 1000)", NULL},
    {"time-unit", OPT_STRING, B(out.time_unit), "UNIT",
     "(-u) the unit of the table and the Markdown export",
     "second|millisecond|microsecond|nanosecond"},
    {"style", OPT_STRING, B(style), "TYPE",
     "output style: none (no progress, no colour), basic or nocolor (no colour), auto, full, color",
     "auto|basic|full|nocolor|color|none"},
    {"export-json", OPT_APPEND_NAMED, B(exports), "FILE",
     "also write hyperfine's JSON export to FILE", NULL},
    {"export-csv", OPT_APPEND_NAMED, B(exports), "FILE",
     "also write hyperfine's CSV export (seconds, parameter_NAME columns) to FILE", NULL},
    {"export-markdown", OPT_APPEND_NAMED, B(exports), "FILE",
     "also write hyperfine's Markdown table to FILE", NULL},
    {"max-percent", OPT_STRING, B(max_percent), "P",
     "gate: a command more than P% (0.001 to 1000) slower than the first fails (exit 1); "
     "default: report only",
     NULL},
    {"save-suite", OPT_STRING, B(save_suite), "FILE",
     "write the equivalent suite to FILE (kagari run FILE measures the same commands)", NULL},
    {"format", OPT_ENUM, B(out.format), "FMT",
     "report format, as for run, or hyperfine's csv and markdown layouts",
     REPORT_FORMAT_CHOICES_BENCH},
    {"output", OPT_STRING, B(out.output), "FILE", "write the report to FILE instead of stdout",
     NULL},
    {"seed", OPT_SEED, B(measure.seed), "N", "seed for run order and resampling", NULL},
    {"quiet", OPT_BOOL, B(out.quiet), NULL, "no progress line", NULL},
    {"no-color", OPT_BOOL, B(out.no_color), NULL, "no colour", NULL},
    OPT_ALLOW_PULL_REQUEST_TARGET, /* taken out of argv by cmd_exec() */
    {NULL, 0, 0, NULL, NULL, NULL},
};
#undef B

static const struct opt_alias bench_aliases[] = {
    {"-r", "runs", NULL},
    {"-w", "warmup", NULL},
    {"-p", "prepare", NULL},
    {"-S", "shell", NULL},
    {"-N", "shell", "none"},
    {"-P", "parameter-scan", NULL},
    {"-D", "parameter-step-size", NULL},
    {"-L", "parameter-list", NULL},
    {"-n", "command-name", NULL},
    {"-s", "setup", NULL},
    {"-c", "cleanup", NULL},
    {"-i", "ignore-failure", NULL},
    {"-m", "min-runs", NULL},
    {"-M", "max-runs", NULL},
    {"-u", "time-unit", NULL},
    {NULL, NULL, NULL},
};

/*
 * What bench asks of the session besides the plan: the reports beside
 * --format/--output (--export-json ...) as FORMAT, PATH, LABEL triples,
 * LABEL the option that asked; --quiet and --no-color, or what --style
 * says.
 */
struct bench_out {
	struct strvec exports;
	int quiet, no_color;
};

/* A copy of from (a string of struct bench_cli's, or NULL) in *to. */
static void take_str(char **to, const char *from)
{
	free(*to);
	*to = from ? xstrdup(from) : NULL;
}

/* --export-json FILE ... as o->exports' FORMAT, PATH, LABEL triples. */
static int take_exports(const struct bench_cli *cli, struct bench_out *o)
{
	const struct strvec *e = &cli->exports;
	for (size_t i = 0; i + 1 < e->nr; i += 2) {
		const char *opt = e->v[i], *file = e->v[i + 1];
		if (!*file) {
			cmd_error("--%s: empty file name", opt);
			return EXIT_USAGE;
		}
		strvec_push(&o->exports, !strcmp(opt, "export-json")  ? "hyperfine-json"
					 : !strcmp(opt, "export-csv") ? "hyperfine-csv"
								      : "hyperfine-markdown");
		strvec_push(&o->exports, file);
		strvec_push_take(&o->exports, xstrfmt("--%s", opt));
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
 * The options cmd_exec() parsed on bench_opts into a and o (copied), with
 * the checks the table cannot make. Returns 0, or the exit code (message
 * printed).
 */
static int bench_take(const struct bench_cli *cli, struct bench_plan *a, struct bench_out *o)
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
	a->runs = cli->measure.runs;
	a->warmup = cli->measure.warmup;
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
	o->quiet = cli->out.quiet;
	o->no_color = cli->out.no_color;
	if (b->style && !strcmp(b->style, "none")) {
		o->quiet = 1;
		o->no_color = 1;
	} else if (b->style && (!strcmp(b->style, "basic") || !strcmp(b->style, "nocolor"))) {
		o->no_color = 1;
	}
	struct sbuf err = SBUF_INIT;
	int rc = 0;
	if (bench_plan_add_lists(a, &b->params, &err)) {
		cmd_error("%s", err.buf);
		rc = EXIT_USAGE;
	}
	sbuf_release(&err);
	return rc ? rc : take_exports(cli, o);
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

/*
 * The private suite and scripts under dir/head (its ${root}; an empty .git
 * folder makes it the suite's root, as a repository would), as
 * bench_plan_suite() says; with -N the link dir/head/work to the user's
 * folder, where the commands run.
 */
static int make_suite(const char *dir, const struct bench_plan *a, char **suite_file)
{
	char cwd[4096];
	if (!getcwd(cwd, sizeof(cwd))) {
		cmd_error("cannot get the current folder: %s", strerror(errno));
		return EXIT_EXEC;
	}
	char *head = xstrfmt("%s/head", dir);
	char *g = xstrfmt("%s/.git", head);
	char *work = xstrfmt("%s/work", head);
	int bad =
	    mkdir(head, 0700) || mkdir(g, 0700) || (bench_plan_no_shell(a) && symlink(cwd, work));
	free(g);
	free(work);
	if (bad) {
		cmd_error("cannot create a folder in '%s': %s", dir, strerror(errno));
		free(head);
		return EXIT_EXEC;
	}
	struct sbuf y = SBUF_INIT, err = SBUF_INIT;
	struct strvec files = STRVEC_INIT;
	int rc = 0;
	if (bench_plan_suite(a, cwd, &y, &files, &err)) {
		cmd_error("%s", err.buf);
		rc = EXIT_USAGE;
	}
	for (size_t i = 0; !rc && i + 1 < files.nr; i += 2) {
		char *f = xstrfmt("%s/%s", head, files.v[i]);
		struct sbuf content = SBUF_INIT;
		sbuf_adds(&content, files.v[i + 1]);
		rc = write_file(f, &content);
		sbuf_release(&content);
		free(f);
	}
	if (!rc) {
		*suite_file = xstrfmt("%s/kagari.yaml", head);
		rc = write_file(*suite_file, &y);
	}
	strvec_clear(&files);
	sbuf_release(&y);
	sbuf_release(&err);
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
	const struct bench_plan *a;
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

/*
 * Measure the commands of the suite bench wrote (suite_file) in a session
 * asked for by bench's options; returns the exit code.
 */
static int bench_measure(const struct bench_cli *cli, struct bench_plan *a,
			 const struct bench_out *o, const char *suite_file, struct cmd_env *env)
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
	    .exports = &o->exports,
	    .quiet = o->quiet,
	    .no_color = o->no_color,
	    .no_history = 1, /* no suite of the user's to keep it beside */
	};
	if (a->cmds.nr > 1 && !o->quiet)
		fprintf(stderr,
			"kagari: bench: %zu commands measured in the same rounds; each compared "
			"with the first, '%s'\n",
			a->cmds.nr, a->labels.v[0]);
	struct session s;
	int rc = session_prepare(&s, &cfg, env);
	if (!rc) {
		const struct suite *su = s.ls.suites[0];
		char *tmp_head = xstrfmt("%s/s0-head", s.tmp);
		struct execute_side sides[SIDE__COUNT] = {
		    [SIDE_HEAD] = {.present = 1,
				   .root = su->root,
				   .head_root = su->root,
				   .tmpdir = tmp_head},
		};
		struct bench_look look = {s.opts.look, s.opts.look_data, a};
		s.opts.compare_baseline = 1;
		s.opts.seq_min_time = 1;
		s.opts.look = bench_look_fn;
		s.opts.look_data = &look;
		session_measure_suite(&s, 0, sides);
		bench_plan_name_results(&s.r, a);
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
	struct bench_plan a;
	bench_plan_init(&a);
	struct bench_out o = {STRVEC_INIT, 0, 0};
	struct sbuf err = SBUF_INIT;
	int rc = bench_take(cli, &a, &o);
	if (!rc && bench_plan_expand(&a, &err)) {
		cmd_error("%s", err.buf);
		rc = EXIT_USAGE;
	}
	char *dir = NULL, *suite_file = NULL;
	int dir_lock = -1;
	struct sbuf warn = SBUF_INIT;
	if (!rc && a.save_suite) {
		struct sbuf y = SBUF_INIT;
		char cwd[4096];
		bench_plan_saved_suite(&y, &a, a.save_suite, getcwd(cwd, sizeof(cwd)) ? cwd : NULL);
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
		rc = make_suite(dir, &a, &suite_file);
	if (!rc)
		rc = bench_measure(cli, &a, &o, suite_file, env);
	tmpdir_release(dir, dir_lock, getenv("KAGARI_KEEP_WORKDIR") != NULL);
	free(dir);
	free(suite_file);
	sbuf_release(&err);
	sbuf_release(&warn);
	bench_plan_release(&a);
	strvec_clear(&o.exports);
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
