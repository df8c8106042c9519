/*
 * kagari run [options] [PATH...]: measure suites on their own (the head
 * side only), check budgets, and report.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "analyze/rng.h"
#include "base/fileio.h"
#include "base/sbuf.h"
#include "base/tmpdir.h"
#include "base/xalloc.h"
#include "cmd/cmd.h"
#include "cmd/common.h"
#include "cmd/exit.h"
#include "cmd/interrupt.h"
#include "cmd/outcome.h"
#include "measure/execute.h"
#include "measure/runner.h"
#include "measure/sysinfo.h"
#include "report/report.h"
#include "suite/vars.h"

static const struct opt run_opts[] = {
	OPT_COMMON_MEASURE,
	{ NULL, 0, 0, NULL, NULL, NULL },
};

#define NOT_IMPLEMENTED "not implemented in this version"

/* Metric groups that later issues implement. */
static int group_pending(enum metric_group g)
{
	return g == GROUP_COUNTERS || g == GROUP_ALLOCATIONS;
}

/*
 * A requested metric this version cannot measure fails the run before
 * anything runs (exit 6) when it is required: named in `counters: [..]`,
 * `allocations: true`, under `regression:` or in a budget — unless
 * `unsupported: skip`. `terminal: true` is refused the same way.
 */
static int check_pending(const struct loaded_suites *ls)
{
	int rc = 0;
	for (size_t i = 0; i < ls->nr; i++) {
		const struct suite *s = ls->suites[i];
		for (size_t b = 0; b < s->nr_benches; b++) {
			const struct bench_spec *bs = &s->benches[b];
			if (!ls->selected[i][b])
				continue;
			if (bs->terminal) {
				cmd_error("%s:%d:%d: benchmarks[%zu].terminal: running on a pseudo-terminal is %s",
					  s->file, bs->loc.line, bs->loc.col, b, NOT_IMPLEMENTED);
				rc = EXIT_UNSUPPORTED;
			}
			for (size_t c = 0; c < bs->nr_commands; c++) {
				const struct command_spec *cs = &bs->commands[c];
				const struct settings *st = &cs->settings;
				if (st->metrics.unsupported_skip)
					continue;
				const char *why = NULL;
				if (st->metrics.counters == COUNTERS_LIST)
					why = "metrics.counters";
				else if (st->metrics.allocations)
					why = "metrics.allocations";
				for (int m = 0; m < METRIC__COUNT && !why; m++)
					if (group_pending(metric_get(m)->group) &&
					    st->regression.metric[m].configured)
						why = "regression";
				for (size_t k = 0; k < cs->nr_budgets && !why; k++)
					if (group_pending(metric_get(cs->budgets[k].metric)->group))
						why = "budget";
				if (why) {
					cmd_error("%s: benchmark '%s', command '%s': %s asks for hardware counters or allocation counts, which are %s (set metrics.unsupported: skip to run without them)",
						  s->file, bs->name, cs->name, why, NOT_IMPLEMENTED);
					rc = EXIT_UNSUPPORTED;
				}
			}
		}
	}
	return rc;
}

/* An existing regular file that we may execute? */
static int is_executable(const char *path)
{
	struct stat st;
	return stat(path, &st) == 0 && S_ISREG(st.st_mode) && access(path, X_OK) == 0;
}

/* argv[0] as posix_spawnp would find it, or NULL. */
static char *find_program(const char *prog, const char *cwd, const char *path_env)
{
	if (strchr(prog, '/'))
		return prog[0] == '/' ? xstrdup(prog) : xstrfmt("%s/%s", cwd, prog);
	const char *p = path_env ? path_env : "/usr/local/bin:/usr/bin:/bin";
	while (*p) {
		const char *colon = strchr(p, ':');
		size_t len = colon ? (size_t)(colon - p) : strlen(p);
		char *cand = xstrfmt("%.*s/%s", (int)len, len ? p : ".", prog);
		if (is_executable(cand))
			return cand;
		free(cand);
		if (!colon)
			break;
		p = colon + 1;
	}
	return NULL;
}

/*
 * Checks that need no measuring and would otherwise fail in the middle of a
 * run: a working folder or stdin file that does not exist (exit 2: the suite
 * points at nothing), a program that is not there or not executable (exit
 * 4). Values with variables are left to run time. Nothing is written when
 * these fail, so an earlier report stays as it was.
 */
static int preflight(const struct loaded_suites *ls)
{
	int rc = 0;
	for (size_t i = 0; i < ls->nr; i++) {
		const struct suite *s = ls->suites[i];
		for (size_t b = 0; b < s->nr_benches; b++) {
			const struct bench_spec *bs = &s->benches[b];
			if (!ls->selected[i][b])
				continue;
			if (bs->stdin_spec.kind == STDIN_FILE &&
			    !vars_present(bs->stdin_spec.value)) {
				char *p = xstrfmt("%s/%s", s->dir, bs->stdin_spec.value);
				if (access(p, R_OK) != 0) {
					cmd_error("%s:%d:%d: benchmarks[%zu].stdin: cannot read '%s': %s",
						  s->file, bs->loc.line, bs->loc.col, b,
						  bs->stdin_spec.value, strerror(errno));
					rc = exit_merge(rc, EXIT_INVALID);
				}
				free(p);
			}
			for (size_t c = 0; c < bs->nr_commands; c++) {
				const struct command_spec *cs = &bs->commands[c];
				const char *cwd = cs->exec.cwd ? cs->exec.cwd : cs->settings.cwd;
				char *dir = NULL;
				if (cwd && vars_present(cwd))
					continue;
				dir = cwd ? (cwd[0] == '/' ? xstrdup(cwd) : xstrfmt("%s/%s", s->dir, cwd))
					  : xstrdup(s->dir);
				struct stat st;
				if (stat(dir, &st) != 0 || !S_ISDIR(st.st_mode)) {
					cmd_error("%s:%d:%d: benchmarks[%zu].commands.%s.cwd: folder '%s' does not exist",
						  s->file, cs->loc.line, cs->loc.col, b, cs->name, cwd);
					rc = exit_merge(rc, EXIT_INVALID);
				} else if (!cs->exec.shell && cs->exec.argv.nr &&
					   !vars_present(cs->exec.argv.v[0])) {
					const char *path_env = strvec_getenv(&cs->exec.env, "PATH");
					if (!path_env)
						path_env = strvec_getenv(&cs->settings.env, "PATH");
					if (path_env && vars_present(path_env))
						path_env = NULL;
					if (!path_env)
						path_env = getenv("PATH");
					const char *prog = cs->exec.argv.v[0];
					char *found = find_program(prog, dir, path_env);
					if (!found) {
						cmd_error("benchmark '%s', command '%s': command not found: '%s'",
							  bs->name, cs->name, prog);
						rc = exit_merge(rc, EXIT_EXEC);
					} else if (!is_executable(found)) {
						cmd_error("benchmark '%s', command '%s': cannot run '%s': %s",
							  bs->name, cs->name, prog,
							  access(found, F_OK) ? "no such file"
									      : "permission denied (not executable)");
						rc = exit_merge(rc, EXIT_EXEC);
					}
					free(found);
				}
				free(dir);
			}
		}
	}
	return rc;
}

/* After measuring: pending metrics that were asked for are `unsupported`. */
static void mark_pending(const struct bench_spec *bs, struct bench_result *br)
{
	for (size_t c = 0; c < br->nr_commands && c < bs->nr_commands; c++) {
		const struct settings *st = &bs->commands[c].settings;
		for (int m = 0; m < METRIC__COUNT; m++) {
			const struct metric_info *mi = metric_get(m);
			int asked = 0;
			if (mi->group == GROUP_COUNTERS)
				asked = st->metrics.counters == COUNTERS_AVAILABLE ||
					(st->metrics.counters == COUNTERS_LIST &&
					 (st->metrics.counters_list & (1u << m))) ||
					st->regression.metric[m].configured;
			else if (mi->group == GROUP_ALLOCATIONS)
				asked = st->metrics.allocations ||
					st->regression.metric[m].configured;
			if (!asked)
				continue;
			for (int sd = 0; sd < SIDE__COUNT; sd++)
				if (br->commands[c].side[sd].present)
					metric_series_set_status(&br->commands[c].side[sd].metric[m],
								 MSTATUS_UNSUPPORTED, NOT_IMPLEMENTED);
		}
	}
}

/* One destination of the report. */
struct destination {
	enum report_format format;
	char *path; /* NULL: stdout */
};

static int add_destination(struct destination **d, size_t *n, size_t *alloc,
			   const char *format, const char *path)
{
	enum report_format f;
	if (report_format_parse(format, &f)) {
		cmd_error("unknown report format '%s'", format);
		return EXIT_USAGE;
	}
	if (f == REPORT_MARKDOWN || f == REPORT_GITHUB || f == REPORT_HTML) {
		cmd_error("report format '%s' is %s", format, NOT_IMPLEMENTED);
		return EXIT_UNSUPPORTED;
	}
	for (size_t i = 0; i < *n; i++) {
		const char *p = (*d)[i].path;
		if ((!p && !path) || (p && path && !strcmp(p, path))) {
			cmd_error("two reports would be written to %s%s%s",
				  path ? "'" : "", path ? path : "standard output",
				  path ? "'" : "");
			return EXIT_USAGE;
		}
	}
	ALLOC_GROW(*d, *n + 1, *alloc);
	(*d)[*n].format = f;
	(*d)[*n].path = path ? xstrdup(path) : NULL;
	(*n)++;
	return 0;
}

struct progress {
	int enabled;
	const char *suite;
	int shown;
};

static void show_progress(void *data, const char *bench, int round, int total,
			  int warmup)
{
	struct progress *p = data;
	if (!p->enabled)
		return;
	fprintf(stderr, "\r\033[K%s / %s: %s round %d/%d", p->suite, bench,
		warmup ? "warm-up" : "measuring", round, total);
	fflush(stderr);
	p->shown = 1;
}

static void clear_progress(struct progress *p)
{
	if (p->shown) {
		fputs("\r\033[K", stderr);
		fflush(stderr);
		p->shown = 0;
	}
}

static int measure_all(struct loaded_suites *ls, const struct cli *cli,
		       struct cmd_env *env, const char *tmp, struct run_result *r)
{
	struct progress prog = {
		.enabled = env->stderr_tty && !cli->quiet,
	};
	struct execute_options o = {
		.runner = env->runner,
		.seed = r->seed,
		.runs_override = cli->runs,
		.warmup_override = cli->warmup,
		.interrupted = &interrupt_requested,
		.progress = show_progress,
		.progress_data = &prog,
	};
	r->suites = xcalloc(ls->nr + 1, sizeof(*r->suites));
	int rc = 0;
	for (size_t i = 0; i < ls->nr && !r->interrupted; i++) {
		const struct suite *s = ls->suites[i];
		struct suite_result *sr = &r->suites[r->nr_suites++];
		char *side_tmp = xstrfmt("%s/s%zu-head", tmp, i);
		char *artifact = s->build ? xstrfmt("%s/artifact", side_tmp) : NULL;
		struct execute_side sides[SIDE__COUNT] = {
			[SIDE_BASE] = { .present = 0 },
			[SIDE_HEAD] = { .present = 1, .root = s->root,
					.head_root = s->root, .artifact = artifact,
					.tmpdir = side_tmp },
		};
		prog.suite = s->name;
		struct sbuf err = SBUF_INIT;
		if (mkdir(side_tmp, 0700) != 0) {
			cmd_error("cannot create '%s': %s", side_tmp, strerror(errno));
			rc = EXIT_EXEC;
		} else if (execute_build(s, &sides[SIDE_HEAD], &o, &err)) {
			clear_progress(&prog);
			cmd_error("%s", err.buf);
			sr->name = xstrdup(s->name);
			sr->file = xstrdup(s->file);
			sr->result = xstrdup(RESULT_ERROR);
			rc = EXIT_EXEC;
		} else if (execute_suite(s, ls->selected[i], sides, &o, sr)) {
			r->interrupted = 1;
		}
		if (interrupt_requested)
			r->interrupted = 1;
		for (size_t b = 0, k = 0; b < s->nr_benches && k < sr->nr_benches; b++)
			if (ls->selected[i][b])
				mark_pending(&s->benches[b], &sr->benches[k++]);
		sbuf_release(&err);
		free(artifact);
		free(side_tmp);
	}
	clear_progress(&prog);
	return rc;
}

static void print_command_errors(const struct run_result *r)
{
	for (size_t i = 0; i < r->nr_suites; i++)
		for (size_t b = 0; b < r->suites[i].nr_benches; b++) {
			const struct bench_result *br = &r->suites[i].benches[b];
			for (size_t c = 0; c < br->nr_commands; c++) {
				const struct command_result *cr = &br->commands[c];
				if (!cr->error)
					continue;
				cmd_error("benchmark '%s', command '%s': %s%s%s", br->name,
					  cr->name, cr->error,
					  cr->stderr_tail && *cr->stderr_tail
						  ? "\n--- stderr (last 2 KiB) ---\n" : "",
					  cr->stderr_tail ? cr->stderr_tail : "");
			}
		}
}

static int write_reports(const struct run_result *r, const struct destination *d,
			 size_t n, const struct cli *cli, struct cmd_env *env)
{
	int rc = 0;
	for (size_t i = 0; i < n; i++) {
		struct report_options o;
		report_options_init(&o);
		o.color = !d[i].path && env->stdout_tty && !cli->no_color &&
			  !getenv("NO_COLOR");
		struct sbuf out = SBUF_INIT, err = SBUF_INIT;
		if (report_render(r, d[i].format, &o, &out, &err)) {
			cmd_error("%s", err.buf);
			rc = EXIT_INTERNAL;
		} else if (!d[i].path) {
			fputs(out.buf, stdout);
			fflush(stdout);
		} else if (fileio_write_atomic(d[i].path, out.buf, out.len, &err)) {
			cmd_error("%s (the previous report, if any, is untouched)", err.buf);
			rc = exit_merge(rc, EXIT_EXEC);
		}
		sbuf_release(&out);
		sbuf_release(&err);
	}
	return rc;
}

static int run_exec(struct cli *cli, struct cmd_env *env)
{
	struct loaded_suites ls;
	struct destination *dest = NULL;
	size_t nr_dest = 0, dest_alloc = 0;
	char *tmp = NULL;
	int rc = common_load(cli, &ls);
	if (!rc)
		rc = common_select(cli, &ls);
	if (!rc && cli->summary) {
		cmd_error("--summary (Markdown) is %s", NOT_IMPLEMENTED);
		rc = EXIT_UNSUPPORTED;
	}
	if (!rc)
		rc = add_destination(&dest, &nr_dest, &dest_alloc,
				     cli->format ? cli->format : "table", cli->output);
	for (size_t i = 0; i < ls.nr && !rc; i++) {
		const struct suite *s = ls.suites[i];
		for (size_t k = 0; k < s->nr_outputs && !rc; k++) {
			char *p = s->outputs[k].path[0] == '/'
					  ? xstrdup(s->outputs[k].path)
					  : xstrfmt("%s/%s", s->dir, s->outputs[k].path);
			rc = add_destination(&dest, &nr_dest, &dest_alloc,
					     s->outputs[k].format, p);
			free(p);
		}
	}
	if (!rc)
		rc = check_pending(&ls);
	if (!rc)
		rc = preflight(&ls);

	struct run_result r;
	run_result_init(&r);
	if (!rc) {
		struct sbuf err = SBUF_INIT;
		tmp = tmpdir_create("kagari", &err);
		if (!tmp) {
			cmd_error("%s", err.buf);
			rc = EXIT_EXEC;
		}
		sbuf_release(&err);
	}
	if (!rc) {
		r.mode = xstrdup("run");
		/* Random seeds stay below 2^53 so every JSON reader keeps them exact. */
		r.seed = cli->have_seed ? cli->seed
					: rng_random_seed() & ((UINT64_C(1) << 53) - 1);
		r.started_at = sysinfo_now_rfc3339();
		sysinfo_collect(&r.env);
		interrupt_install(env->runner);
		int mrc = measure_all(&ls, cli, env, tmp, &r);
		interrupt_uninstall();
		r.finished_at = sysinfo_now_rfc3339();
		outcome_judge(&r);
		r.summary.exit_code = exit_merge(r.summary.exit_code, mrc);
		print_command_errors(&r);
		int wrc = write_reports(&r, dest, nr_dest, cli, env);
		rc = exit_merge(r.summary.exit_code, wrc);
		if (rc && !r.exit_reason && mrc)
			r.exit_reason = xstrdup("the build failed");
		if (rc && r.exit_reason)
			cmd_error("%s", r.exit_reason);
		else if (rc == EXIT_EXEC && wrc)
			cmd_error("a report could not be written");
	}
	if (tmp && !getenv("KAGARI_KEEP_WORKDIR"))
		tmpdir_remove(tmp);
	free(tmp);
	for (size_t i = 0; i < nr_dest; i++)
		free(dest[i].path);
	free(dest);
	run_result_release(&r);
	common_release(&ls);
	return rc;
}

const struct cmd_entry cmd_run = {
	.name = "run",
	.args = "[options] [PATH...]",
	.summary = "measure suites, check budgets and report",
	.opts = run_opts,
	.needs_runner = 1,
	.exec = run_exec,
};
