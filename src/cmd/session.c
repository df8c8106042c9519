/*
 * cmd/session: the pipeline `run`, `compare` and `ci` share (session.h).
 * Laid out in call order: refusals before anything runs (instruments a
 * machine lacks, preflight of folders and programs), report destinations,
 * progress, then session_prepare(), session_measure_suite() (build,
 * measure, copy the analysis settings), session_finish() (analyze_result(),
 * exit code, errors, warnings, reports) and session_release().
 */
#include "cmd/session.h"

#include <errno.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "analyze/analyze.h"
#include "model/rng.h"
#include "base/fileio.h"
#include "base/sbuf.h"
#include "base/tmpdir.h"
#include "base/xalloc.h"
#include "cmd/exit.h"
#include "cmd/interrupt.h"
#include "cmd/outcome.h"
#include "cmd/record.h"
#include "cmd/shard.h"
#include "git/git.h"
#include "proc/child.h"
#include "proc/proc.h"
#include "measure/runner.h"
#include "measure/sysinfo.h"
#include "report/output.h"
#include "report/section.h"
#include "suite/units.h"
#include "suite/vars.h"

/* Counter and allocation metrics: measured by instruments (perf, valgrind,
 * the allocation shim) that a machine may lack. */
static int group_instrumented(enum metric_group g)
{
	return g == GROUP_COUNTERS || g == GROUP_ALLOCATIONS || g == GROUP_SYSCALLS;
}

/*
 * A counter or allocation metric this machine cannot measure fails the run
 * before anything runs (exit 6) when it is required: named in
 * `counters: [..]`, `allocations: true`, under `regression:` or in a
 * budget — unless `unsupported: skip`.
 */
static int check_instruments(const struct loaded_suites *ls, const struct cmd_env *env)
{
	int rc = 0;
	struct execute_instruments in;
	memset(&in, 0, sizeof(in));
	in.counters_software = env->counters_software;
	in.shim_override = env->alloc_shim;
	for (size_t i = 0; i < ls->nr; i++) {
		const struct suite *s = ls->suites[i];
		for (size_t b = 0; b < s->nr_benches; b++) {
			const struct bench_spec *bs = &s->benches[b];
			if (!ls->selected[i][b])
				continue;
			for (size_t c = 0; c < bs->nr_commands; c++) {
				const struct command_spec *cs = &bs->commands[c];
				if (cs->settings.metrics.unsupported_skip)
					continue;
				/*
				 * Required counter and allocation metrics that this
				 * machine cannot give (no valgrind, no shim, cycles
				 * from valgrind, perf): one message per reason.
				 */
				const char *done[METRIC__COUNT];
				size_t nr_done = 0;
				for (int m = 0; m < METRIC__COUNT; m++) {
					if (!group_instrumented(metric_get(m)->group) ||
					    !execute_metric_required(cs, (enum metric_id)m))
						continue;
					const char *why =
					    execute_metric_unsupported(&in, cs, (enum metric_id)m);
					int seen = 0;
					for (size_t k = 0; k < nr_done; k++)
						seen |= done[k] == why;
					if (!why || seen)
						continue;
					done[nr_done++] = why;
					struct sbuf names = SBUF_INIT;
					for (int n = m; n < METRIC__COUNT; n++)
						if (group_instrumented(metric_get(n)->group) &&
						    execute_metric_required(cs,
									    (enum metric_id)n) &&
						    execute_metric_unsupported(
							&in, cs, (enum metric_id)n) == why)
							sbuf_addf(&names, "%s'%s'",
								  names.len ? ", " : "",
								  metric_get(n)->name);
					cmd_error(
					    "%s: benchmark '%s', command '%s': %s required (by "
					    "metrics.counters, metrics.allocations, "
					    "metrics.syscalls, "
					    "regression or "
					    "a budget) but cannot be measured here: %s (set "
					    "metrics.unsupported: skip to run without it)",
					    s->file, bs->name, cs->name, names.buf, why);
					sbuf_release(&names);
					rc = EXIT_UNSUPPORTED;
				}
			}
		}
	}
	execute_instruments_release(&in);
	return rc;
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
					cmd_error(
					    "%s:%d:%d: benchmarks[%zu].stdin: cannot read '%s': %s",
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
				dir = cwd ? (cwd[0] == '/' ? xstrdup(cwd)
							   : xstrfmt("%s/%s", s->dir, cwd))
					  : xstrdup(s->dir);
				struct stat st;
				if (stat(dir, &st) != 0 || !S_ISDIR(st.st_mode)) {
					cmd_error("%s:%d:%d: benchmarks[%zu].commands.%s.cwd: "
						  "folder '%s' does not exist",
						  s->file, cs->loc.line, cs->loc.col, b, cs->name,
						  cwd ? cwd : s->dir);
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
					/* The search child_run() will make, with the same words. */
					struct strvec env = STRVEC_INIT;
					struct sbuf why = SBUF_INIT;
					if (path_env)
						strvec_setenv(&env, "PATH", path_env);
					if (child_check_program(cs->exec.argv.v[0], dir,
								env.nr ? env.v : NULL, &why)) {
						cmd_error("%s:%d:%d: "
							  "benchmarks[%zu].commands.%s.command: %s",
							  s->file, cs->loc.line, cs->loc.col, b,
							  cs->name, why.buf);
						rc = exit_merge(rc, EXIT_EXEC);
					}
					sbuf_release(&why);
					strvec_clear(&env);
				}
				free(dir);
			}
		}
	}
	return rc;
}

static int add_destination(struct destination **d, size_t *n, size_t *alloc, const char *format,
			   const char *path, const char *section, const char *label, int bad_code)
{
	enum report_format f;
	if (report_format_parse(format, &f)) {
		cmd_error("unknown report format '%s'", format);
		return EXIT_USAGE;
	}
	if (section && (f != REPORT_MARKDOWN || !path)) {
		cmd_error("a section ('%s') needs format markdown and an output file", section);
		return EXIT_USAGE;
	}
	if (section && !report_section_name_valid(section)) {
		cmd_error("invalid section name '%s': 1-64 of [A-Za-z0-9_.-], starting with a "
			  "letter or digit",
			  section);
		return EXIT_USAGE;
	}
	char *canon = path ? fileio_canonical_path(path) : NULL;
	for (size_t i = 0; i < *n; i++) {
		const char *p = (*d)[i].canonical;
		if ((!p && !canon) || (p && canon && !strcmp(p, canon))) {
			free(canon);
			cmd_error("two reports would be written to %s%s%s", path ? "'" : "",
				  path ? path : "standard output", path ? "'" : "");
			return EXIT_USAGE;
		}
	}
	ALLOC_GROW(*d, *n + 1, *alloc);
	(*d)[*n].format = f;
	(*d)[*n].path = path ? xstrdup(path) : NULL;
	(*d)[*n].section = section ? xstrdup(section) : NULL;
	(*d)[*n].canonical = canon;
	(*d)[*n].label = xstrdup(label);
	(*d)[*n].bad_code = bad_code;
	(*n)++;
	return 0;
}

/*
 * Before measuring: every output (--output, --summary, report.outputs, a
 * --section page) must be something a report can go to and none of the
 * run's inputs (`run --output kagari.yaml` would overwrite the suite).
 * Every problem is printed; a flag is a usage error, a suite's own output
 * makes the suite invalid.
 */
static int check_destinations(struct session *s)
{
	struct input_files in = INPUT_FILES_INIT;
	int rc = 0;
	input_files_add_suites(&in, &s->ls);
	/* The history too, even under --no-history: a report written over it
	   would lose every run recorded there. */
	char *history = record_history_path(s->cfg.history, &s->ls);
	input_files_add_history(&in, history);
	free(history);
	for (size_t i = 0; i < s->nr_dest; i++)
		if (s->dest[i].path)
			rc = exit_merge(rc, common_check_output(s->dest[i].label, s->dest[i].path,
								s->dest[i].section, &in,
								s->dest[i].bad_code));
	if (s->cfg.summary)
		rc = exit_merge(
		    rc, common_check_output("--summary", s->cfg.summary, NULL, &in, EXIT_USAGE));
	input_files_release(&in);
	return rc;
}

static void show_progress(void *data, const char *bench, int round, int total, int warmup)
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

/*
 * Print each failed command's error and stderr tail. Under `kagari ci` the
 * tail is the measured program's text: cmd_error() keeps its lines from
 * reading as workflow commands (cmd_guard_workflow_commands()).
 */
static void print_command_errors(const struct run_result *r)
{
	struct sbuf msg = SBUF_INIT;
	for (size_t i = 0; i < r->nr_suites; i++)
		for (size_t b = 0; b < r->suites[i].nr_benches; b++) {
			const struct bench_result *br = &r->suites[i].benches[b];
			for (size_t c = 0; c < br->nr_commands; c++) {
				const struct command_result *cr = &br->commands[c];
				if (!cr->error)
					continue;
				sbuf_reset(&msg);
				sbuf_adds(&msg, cr->error);
				if (cr->stderr_tail && *cr->stderr_tail)
					child_add_stderr_tail(&msg, cr->stderr_tail,
							      strlen(cr->stderr_tail),
							      CHILD_TAIL_BLOCK);
				cmd_error("benchmark '%s', command '%s': %s", br->name, cr->name,
					  msg.buf);
			}
		}
	sbuf_release(&msg);
}

static int write_reports(const struct run_result *r, const struct destination *d, size_t n,
			 const struct session_config *cfg, struct cmd_env *env)
{
	int rc = 0;
	for (size_t i = 0; i < n; i++) {
		struct report_options o;
		report_options_init(&o);
		o.color = !d[i].path && env->stdout_tty && !cfg->no_color && !getenv("NO_COLOR");
		o.section = d[i].section;
		o.time_unit = cfg->time_unit;
		struct sbuf out = SBUF_INIT, err = SBUF_INIT;
		if (report_render(r, d[i].format, &o, &out, &err)) {
			cmd_error("%s", err.buf);
			rc = EXIT_INTERNAL;
		} else {
			rc = exit_merge(
			    rc, common_write_output(d[i].path, d[i].section, out.buf, out.len));
		}
		sbuf_release(&out);
		sbuf_release(&err);
	}
	if (cfg->summary)
		rc = exit_merge(rc, common_write_summary(r, cfg->summary));
	return rc;
}

/*
 * The look of the sequential rounds (execute.h): the benchmark's commands
 * get their analysis settings now (session_measure_suite() leaves them),
 * and analyze_look() says which are decided.
 */
static void session_look(void *data, struct bench_result *br, unsigned char *decided)
{
	struct session *s = data;
	/* Not s->r's last suite: bisect measures into results of its own. */
	const struct suite *su = s->measuring;
	const struct bench_spec *bs = NULL;
	if (!su)
		return;
	for (size_t b = 0; b < su->nr_benches && !bs; b++)
		if (br->name && !strcmp(su->benches[b].name, br->name))
			bs = &su->benches[b];
	if (!bs)
		return;
	for (size_t c = 0; c < br->nr_commands && c < bs->nr_commands; c++)
		if (!br->commands[c].analysis.present)
			analyze_settings_from_suite(&bs->commands[c], &br->commands[c]);
	analyze_look(s->r.seed, su->name, br, decided);
}

/* For tmpdir_prune(), a folder without a lock (a kagari before locks):
   1 only when the owner file's process is certainly gone. */
static int owner_gone(const char *owner)
{
	return proc_owner_state(owner) == 0;
}

static void skip_path(struct strvec *skip, const char *path)
{
	char *canon = realpath(path, NULL);
	strvec_push_take(skip, canon ? canon : fileio_canonical_path(path));
}

/*
 * The files kagari itself makes or reads in the tree, which are no change
 * to the code measured (git_head_info()): the suite files being run, every
 * report destination, --summary and the history (with SQLite's side
 * files). Anything else untracked makes the tree dirty.
 */
static void git_skip_own_files(struct session *s)
{
	for (size_t i = 0; i < s->ls.nr; i++)
		skip_path(&s->git_skip, s->ls.suites[i]->file);
	for (size_t i = 0; s->cfg.own_files && i < s->cfg.own_files->nr; i++)
		skip_path(&s->git_skip, s->cfg.own_files->v[i]);
	for (size_t i = 0; i < s->nr_dest; i++)
		if (s->dest[i].path)
			skip_path(&s->git_skip, s->dest[i].path);
	if (s->cfg.summary)
		skip_path(&s->git_skip, s->cfg.summary);
	if (!s->cfg.no_history && s->ls.nr) {
		char *h = record_history_path(s->cfg.history, &s->ls);
		static const char *const side[] = {"", "-journal", "-wal", "-shm"};
		for (size_t i = 0; i < sizeof(side) / sizeof(side[0]); i++) {
			char *p = xstrfmt("%s%s", h, side[i]);
			skip_path(&s->git_skip, p);
			free(p);
		}
		free(h);
	}
}

/* --max-time as nanoseconds (*ns; 0 without it). 0 or EXIT_USAGE. */
static int parse_max_time(const struct cli_measure *m, int64_t *ns)
{
	*ns = 0;
	if (!m->max_time)
		return 0;
	struct sbuf err = SBUF_INIT;
	int rc = 0;
	if (units_parse_duration(m->max_time, ns, &err) || *ns <= 0) {
		cmd_error("--max-time '%s': %s", m->max_time,
			  err.len ? err.buf : "must be longer than 0s");
		rc = EXIT_USAGE;
	}
	sbuf_release(&err);
	return rc;
}

/* Every report destination: --output (or stdout), each --export, then the
   outputs the suites name. 0 or the exit code of the first refused. */
static int add_destinations(struct session *s)
{
	const struct session_config *cfg = &s->cfg;
	int rc = add_destination(&s->dest, &s->nr_dest, &s->dest_alloc,
				 cfg->format ? cfg->format : "table", cfg->output, cfg->section,
				 "--output", EXIT_USAGE);
	const struct strvec *ex = cfg->exports;
	for (size_t k = 0; ex && k + 3 <= ex->nr && !rc; k += 3)
		rc = add_destination(&s->dest, &s->nr_dest, &s->dest_alloc, ex->v[k], ex->v[k + 1],
				     NULL, ex->v[k + 2], EXIT_USAGE);
	for (size_t i = 0; i < s->ls.nr && !rc; i++) {
		const struct suite *su = s->ls.suites[i];
		for (size_t k = 0; k < su->nr_outputs && !rc; k++) {
			const struct report_output *o = &su->outputs[k];
			char *p = o->path[0] == '/' ? xstrdup(o->path)
						    : xstrfmt("%s/%s", su->dir, o->path);
			/* An output the suite names is part of the suite: exit 2. */
			char *label = xstrfmt("%s:%d:%d: report.outputs[%zu].path:", su->file,
					      o->loc.line, o->loc.col, k);
			rc = add_destination(&s->dest, &s->nr_dest, &s->dest_alloc, o->format, p,
					     o->section, label, EXIT_INVALID);
			free(label);
			free(p);
		}
	}
	return rc;
}

/* The session's own folder in TMPDIR (s->tmp), locked when flock works. */
static int make_tmp(struct session *s, const char *tmp_prefix)
{
	/* The folders of kagaris that were killed (SIGKILL, a crash)
	   first: ours, with a lock no live process holds. */
	tmpdir_prune("kagari", owner_gone);
	struct sbuf err = SBUF_INIT, warn = SBUF_INIT;
	int rc = 0;
	s->tmp = tmpdir_create_locked(tmp_prefix, &s->tmp_lock, &warn, &err);
	if (!s->tmp) {
		cmd_error("%s", err.buf);
		rc = EXIT_EXEC;
	} else {
		/* -1 on a filesystem without flock: warned, unlocked. */
		s->have_tmp_lock = s->tmp_lock >= 0;
	}
	if (warn.len)
		cmd_warning("%s", warn.buf);
	sbuf_release(&err);
	sbuf_release(&warn);
	return rc;
}

/* The result's header: mode, shard record, seed, start time, machine. */
static void start_result(struct session *s, const char *mode, size_t nr_selected)
{
	s->r.mode = xstrdup(mode);
	shard_record(&s->cfg, nr_selected, &s->r.shard);
	/* Random seeds stay below 2^53 so every JSON reader keeps them exact. */
	const struct opts_seed *seed = &s->cfg.measure->seed;
	s->r.seed = seed->given ? seed->value : rng_random_seed() & ((UINT64_C(1) << 53) - 1);
	s->r.started_at = sysinfo_now_rfc3339();
	sysinfo_collect(&s->r.env);
	s->have_ticks_start = !sysinfo_cpu_ticks(NULL, &s->ticks_start);
	s->r.suites = xcalloc(s->ls.nr + 1, sizeof(*s->r.suites));
}

/* How the suites are measured (s->opts) and what progress shows. */
static void set_options(struct session *s, const char *mode, int64_t max_time_ns)
{
	const struct cli_measure *m = s->cfg.measure;
	const struct cmd_env *env = s->env;
	s->prog.enabled = env->stderr_tty && !s->cfg.quiet;
	s->instruments.counters_software = env->counters_software;
	s->instruments.shim_override = env->alloc_shim;
	s->opts = (struct execute_options){
	    .runner = env->runner,
	    .seed = s->r.seed,
	    .runs_override = m->runs,
	    .warmup_override = m->warmup,
	    .interrupted = &interrupt_requested,
	    .progress = show_progress,
	    .progress_data = &s->prog,
	    .instruments = &s->instruments,
	    .env = &s->r.env,
	    /* compare and ci: sequential rounds unless --runs fixes them */
	    .sequential =
		strcmp(mode, "run") != 0 && m->runs<0, .look = session_look, .look_data = s,
						    .deadline_ns = max_time_ns> 0
		    ? sysinfo_monotonic_ns() + max_time_ns
		    : 0,
	    .profile_override = m->profile || m->profile_dir,
	};
}

/* HEAD and the working tree now, to be checked at the end (none outside
   a repository, or when git cannot say). */
static void record_git_start(struct session *s)
{
	struct sbuf err = SBUF_INIT;
	if (!git_toplevel(s->ls.suites[0]->dir, &s->git_repo, &err) &&
	    git_head_status(s->git_repo, &s->git_start_sha, &s->git_start_status, &s->git_skip,
			    &err)) {
		free(s->git_repo);
		s->git_repo = NULL;
	}
	sbuf_release(&err);
}

void session_config_out(struct session_config *cfg, const struct cli_out *out)
{
	cfg->format = out->format;
	cfg->output = out->output;
	cfg->section = out->section;
	cfg->summary = out->summary;
	cfg->time_unit = out->time_unit;
	cfg->quiet = out->quiet;
	cfg->no_color = out->no_color;
}

void session_config_record(struct session_config *cfg, const struct cli_record *rec)
{
	cfg->history = rec->history;
	cfg->no_history = rec->no_history;
}

int session_prepare(struct session *s, const struct session_config *cfg, struct cmd_env *env)
{
	memset(s, 0, sizeof(*s));
	sbuf_init(&s->git_start_status);
	strvec_init(&s->git_skip);
	strvec_init(&s->warned);
	s->cfg = *cfg;
	s->env = env;
	run_result_init(&s->r);
	if (cfg->measure->runs == 0) {
		cmd_error("--runs must be at least 1");
		return EXIT_USAGE;
	}
	int64_t max_time_ns;
	int rc = parse_max_time(cfg->measure, &max_time_ns);
	if (rc)
		return rc;
	if (cfg->suites) {
		s->ls = *cfg->suites;
		memset(cfg->suites, 0, sizeof(*cfg->suites));
	} else {
		rc = common_load(cfg->paths, &s->ls);
	}
	if (!rc)
		rc = common_select(cfg->selection, &s->ls);
	size_t nr_selected = s->ls.nr_selected;
	if (!rc)
		rc = shard_select(&s->cfg, &s->ls, &s->r.shard);
	if (!rc)
		rc = add_destinations(s);
	if (!rc)
		rc = check_destinations(s);
	if (!rc)
		rc = check_instruments(&s->ls, env);
	if (!rc)
		rc = preflight(&s->ls);
	if (!rc)
		rc = make_tmp(s, cfg->tmp_prefix);
	if (rc)
		return rc;
	start_result(s, cfg->mode, nr_selected);
	set_options(s, cfg->mode, max_time_ns);
	interrupt_install(env->runner);
	git_skip_own_files(s);
	record_git_start(s);
	return 0;
}

/*
 * HEAD or the working tree changed while measuring (a checkout, a commit,
 * an edit — by the user or by a measured command): the samples may come
 * from two states, so say so and record the run as dirty.
 */
static void check_git_moved(struct session *s)
{
	if (!s->git_repo || !s->git_start_sha)
		return;
	char *sha = NULL;
	struct sbuf status = SBUF_INIT, err = SBUF_INIT;
	if (git_head_status(s->git_repo, &sha, &status, &s->git_skip, &err)) {
		sbuf_rtrim(&err);
		strvec_pushf(
		    &s->r.warnings,
		    "HEAD could not be read again at the end (%s): the run is recorded as dirty",
		    err.buf);
		s->git_moved = 1;
	} else if (strcmp(sha, s->git_start_sha)) {
		strvec_pushf(&s->r.warnings,
			     "HEAD moved from %.12s to %.12s while measuring: the samples may come "
			     "from both commits; the run is recorded as dirty",
			     s->git_start_sha, sha);
		s->git_moved = 1;
	} else if (status.len != s->git_start_status.len ||
		   memcmp(status.buf, s->git_start_status.buf, status.len)) {
		/* By the same rule as the start's: kagari's own files (its
		   reports, the history) are no change. */
		strvec_pushf(
		    &s->r.warnings,
		    "the working tree %s while measuring: the samples may come from both states; "
		    "the run is recorded as dirty",
		    !s->git_start_status.len
			? "was clean at the start and has uncommitted changes at the end"
		    : !status.len
			? "had uncommitted changes at the start and is clean at the end"
			: "changed (other files differ from HEAD at the end than at the start)");
		s->git_moved = 1;
	}
	if (s->git_moved && s->r.git.head_sha)
		s->r.git.dirty = 1;
	free(sha);
	sbuf_release(&status);
	sbuf_release(&err);
}

/*
 * Are the two sides' built artifacts byte-identical? Then a compare of a
 * command that runs ${artifact} on the same inputs with the same hooks
 * (measure/execute_identical.c) is really an A/A, and analyze.c reports a
 * change there within the layout bound as a measurement artefact.
 */
static int same_artifacts(const char *a, const char *b)
{
	struct sbuf x = SBUF_INIT, y = SBUF_INIT;
	int same = a && b && sbuf_read_file(&x, a, (size_t)1 << 30) >= 0 &&
		   sbuf_read_file(&y, b, (size_t)1 << 30) >= 0 && x.len == y.len &&
		   !memcmp(x.buf, y.buf, x.len);
	sbuf_release(&x);
	sbuf_release(&y);
	return same;
}

/*
 * The two sides' ${artifact} differ in size and were built in folders of
 * different lengths (s->path_length_note): a build that holds its folder
 * differs by that alone, so say it, with the fix.
 */
static void check_artifact_sizes(struct session *s, const struct suite *su,
				 const struct execute_side sides[SIDE__COUNT])
{
	struct stat a, b;
	if (!s->path_length_note || !sides[SIDE_BASE].present || !sides[SIDE_HEAD].present ||
	    !sides[SIDE_BASE].artifact || !sides[SIDE_HEAD].artifact ||
	    stat(sides[SIDE_BASE].artifact, &a) || stat(sides[SIDE_HEAD].artifact, &b) ||
	    a.st_size == b.st_size)
		return;
	strvec_pushf(&s->r.warnings,
		     "suite '%s': the base and head ${artifact} differ in size (%jd and %jd "
		     "bytes), as a build whose output holds its folder (__FILE__, debug "
		     "information, an rpath) does for that alone: %s",
		     su->name, (intmax_t)a.st_size, (intmax_t)b.st_size, s->path_length_note);
}

struct suite_result *session_measure_suite(struct session *s, size_t i,
					   struct execute_side sides[SIDE__COUNT])
{
	const struct suite *su = s->ls.suites[i];
	struct suite_result *sr = &s->r.suites[s->r.nr_suites++];
	char *artifact[SIDE__COUNT] = {NULL, NULL};
	int failed = 0, failed_side = SIDE_HEAD, no_folder = 0;
	s->prog.suite = su->name;
	/* The head first: a head that does not build decides the outcome,
	   and the base is then not built at all. */
	static const int order[SIDE__COUNT] = {SIDE_HEAD, SIDE_BASE};
	for (int k = 0; k < SIDE__COUNT && !failed; k++) {
		int sd = order[k];
		if (!sides[sd].present)
			continue;
		/* Equal-length artifact paths on both sides keep argv identical in size. */
		if (su->build)
			sides[sd].artifact = artifact[sd] =
			    xstrfmt("%s/artifact", sides[sd].tmpdir);
		struct sbuf err = SBUF_INIT;
		int prebuilt = su->build && s->build_once && s->built && s->built[i][sd];
		if (prebuilt)
			sides[sd].artifact = s->built[i][sd];
		if (mkdir(sides[sd].tmpdir, 0700) != 0) {
			cmd_error("cannot create '%s': %s", sides[sd].tmpdir, strerror(errno));
			failed = no_folder = 1;
		} else if (!prebuilt && execute_build(su, &sides[sd], &s->opts, &err)) {
			clear_progress(&s->prog);
			cmd_error("%s%s",
				  sides[SIDE_BASE].present ? (sd == SIDE_BASE ? "base: " : "head: ")
							   : "",
				  err.buf);
			failed = 1;
		}
		sbuf_release(&err);
		if (!failed && !prebuilt && su->build && s->build_once) {
			if (!s->built)
				s->built = xcalloc(s->ls.nr + 1, sizeof(*s->built));
			s->built[i][sd] = xstrdup(artifact[sd]);
		}
		if (failed)
			failed_side = sd;
		if (interrupt_requested)
			failed = 1;
	}
	if (failed) {
		sr->name = xstrdup(su->name);
		sr->file = xstrdup(su->file);
		if (!interrupt_requested) {
			sr->result = RESULT_ERROR;
			s->exec_rc = EXIT_EXEC;
			free(s->r.exit_reason);
			s->r.exit_reason = xstrfmt(
			    no_folder ? "the %stemporary folder of suite '%s' could not be created"
				      : "the %sbuild of suite '%s' failed",
			    !sides[SIDE_BASE].present  ? ""
			    : failed_side == SIDE_BASE ? "base "
						       : "head ",
			    su->name);
		}
	} else {
		/* An A/A only for the commands that run ${artifact} itself on
		   inputs and hooks that are the same on both sides, which
		   measure/ judges per benchmark after its setup. */
		check_artifact_sizes(s, su, sides);
		s->opts.identical_artifacts =
		    sides[SIDE_BASE].present && sides[SIDE_HEAD].present &&
		    same_artifacts(sides[SIDE_BASE].artifact, sides[SIDE_HEAD].artifact);
		s->measuring = su;
		if (execute_suite(su, s->ls.selected[i], sides, &s->opts, sr))
			s->r.interrupted = 1;
		s->measuring = NULL;
		s->opts.identical_artifacts = 0;
	}
	if (interrupt_requested)
		s->r.interrupted = 1;
	for (size_t b = 0, k = 0; b < su->nr_benches && k < sr->nr_benches; b++) {
		if (!s->ls.selected[i][b])
			continue;
		struct bench_result *br = &sr->benches[k++];
		/* The rules the samples are judged by travel with them. */
		for (size_t c = 0; c < br->nr_commands && c < su->benches[b].nr_commands; c++)
			if (!br->commands[c].analysis.present)
				analyze_settings_from_suite(&su->benches[b].commands[c],
							    &br->commands[c]);
	}
	for (int sd = 0; sd < SIDE__COUNT; sd++) {
		free(artifact[sd]);
		sides[sd].artifact = NULL;
	}
	clear_progress(&s->prog);
	return sr;
}

/* A file name part: [A-Za-z0-9._-] kept, anything else '_'. */
static void add_name_part(struct sbuf *sb, const char *s)
{
	for (; *s; s++)
		sbuf_addch(sb, (*s >= 'a' && *s <= 'z') || (*s >= 'A' && *s <= 'Z') ||
				       (*s >= '0' && *s <= '9') || *s == '.' || *s == '-'
				   ? *s
				   : '_');
}

/*
 * --profile-dir DIR: the folded stacks of every profiled command, one
 * file per side: DIR/SUITE.BENCH.COMMAND.SIDE.folded. Returns 0 or
 * EXIT_EXEC (after saying why).
 */
static int write_profile_dir(const struct run_result *r, const char *dir)
{
	if (mkdir(dir, 0777) != 0 && errno != EEXIST) {
		cmd_error("cannot create the profile folder '%s': %s", dir, strerror(errno));
		return EXIT_EXEC;
	}
	int rc = 0;
	struct sbuf path = SBUF_INIT, body = SBUF_INIT, err = SBUF_INIT;
	for (size_t i = 0; i < r->nr_suites; i++)
		for (size_t b = 0; b < r->suites[i].nr_benches; b++) {
			const struct bench_result *br = &r->suites[i].benches[b];
			for (size_t c = 0; c < br->nr_commands; c++) {
				const struct command_result *cr = &br->commands[c];
				if (!cr->profile)
					continue;
				for (int sd = 0; sd < SIDE__COUNT; sd++) {
					if (!cr->side[sd].present)
						continue;
					sbuf_reset(&path);
					sbuf_addf(&path, "%s/", dir);
					add_name_part(&path, r->suites[i].name);
					sbuf_addch(&path, '.');
					add_name_part(&path, br->name);
					sbuf_addch(&path, '.');
					add_name_part(&path, cr->name);
					sbuf_addf(&path, ".%s.folded", side_name((enum side)sd));
					sbuf_reset(&body);
					profile_folded(
					    cr->profile,
					    sd == SIDE_BASE ? PROFILE_BASE : PROFILE_HEAD, &body);
					sbuf_reset(&err);
					if (fileio_write_atomic(path.buf, body.buf, body.len,
								&err)) {
						cmd_error("%s", err.buf);
						rc = EXIT_EXEC;
					}
				}
			}
		}
	sbuf_release(&path);
	sbuf_release(&body);
	sbuf_release(&err);
	return rc;
}

void session_warn_now(struct session *s, const char *fmt, ...)
{
	va_list ap;
	struct sbuf msg = SBUF_INIT;
	va_start(ap, fmt);
	sbuf_vaddf(&msg, fmt, ap);
	va_end(ap);
	clear_progress(&s->prog);
	cmd_warning("%s", msg.buf);
	strvec_push(&s->r.warnings, msg.buf);
	strvec_push(&s->warned, msg.buf);
	sbuf_release(&msg);
}

int session_finish(struct session *s)
{
	struct run_result *r = &s->r;
	/* The handlers stay until session_release(): a signal while the
	   reports are written or the temporary folder is removed must not end
	   us half-way (see interrupt.h). */
	int interrupted_before = interrupt_requested != 0;
	if (interrupt_requested)
		r->interrupted = 1;
	r->finished_at = sysinfo_now_rfc3339();
	struct cpu_ticks ticks_end;
	if (s->have_ticks_start && !sysinfo_cpu_ticks(NULL, &ticks_end))
		r->env.steal_percent = sysinfo_steal_percent(&s->ticks_start, &ticks_end);
	check_git_moved(s);
	analyze_result(r, NULL);
	if (s->instruments.used_perf && s->instruments.perf_min_share > 0 &&
	    s->instruments.perf_min_share < 1)
		strvec_pushf(
		    &r->warnings,
		    "hardware counters were multiplexed (counted %.0f%% of the time at worst): "
		    "values are scaled estimates; ask for fewer counters for exact counts",
		    s->instruments.perf_min_share * 100);
	if (s->instruments.perf_not_counted)
		strvec_pushf(&r->warnings, "%zu run%s had a counter that never ran (not counted)",
			     s->instruments.perf_not_counted,
			     s->instruments.perf_not_counted == 1 ? "" : "s");
	if (s->instruments.used_valgrind && s->instruments.valgrind_version &&
	    !r->env.valgrind_version)
		r->env.valgrind_version = xstrdup(s->instruments.valgrind_version);
	char *build_reason = r->exit_reason;
	r->exit_reason = NULL;
	outcome_judge(r);
	if (s->exec_rc && build_reason) {
		free(r->exit_reason);
		r->exit_reason = build_reason;
		build_reason = NULL;
	}
	free(build_reason);
	if (s->cfg.fail_on_inconclusive)
		outcome_fail_on_inconclusive(r);
	r->summary.exit_code = exit_merge(r->summary.exit_code, s->exec_rc);
	/* The table shows warnings and each failed command's error with its
	   stderr tail; anything else would hide them from a reader of stderr.
	   Printed once: on stderr only when no table is on stdout. */
	int table_on_stdout = 0;
	for (size_t i = 0; i < s->nr_dest; i++)
		if (!s->dest[i].path && s->dest[i].format == REPORT_TABLE)
			table_on_stdout = 1;
	if (!table_on_stdout)
		print_command_errors(r);
	if (!table_on_stdout)
		for (size_t i = 0; i < r->warnings.nr; i++)
			if (!strvec_contains(&s->warned, r->warnings.v[i]))
				cmd_warning("%s", r->warnings.v[i]);
	int wrc = write_reports(r, s->dest, s->nr_dest, &s->cfg, s->env);
	if (s->cfg.measure->profile_dir)
		wrc = exit_merge(wrc, write_profile_dir(r, s->cfg.measure->profile_dir));
	if (s->after_measure)
		wrc = exit_merge(wrc, s->after_measure(s, s->after_data));
	/* After the reports: a history that cannot be written costs no report. */
	int hrc = record_session(s);
	int rc = exit_merge(exit_merge(r->summary.exit_code, wrc), hrc);
	if (interrupt_requested && !interrupted_before) {
		/* Too late to mark the reports: they are whole, but the user
		   asked us to stop. */
		cmd_error("interrupted by %s while writing the reports",
			  proc_signal_name(interrupt_requested));
		rc = exit_merge(rc, EXIT_EXEC);
	}
	/* The last line explains the exit code: the measured outcome's
	   reason, unless a report that could not be written outranks it. */
	if (wrc && rc != r->summary.exit_code)
		cmd_error("a report could not be written");
	else if (hrc && rc != r->summary.exit_code)
		cmd_error("the run could not be recorded in the history");
	else if (rc && r->exit_reason)
		cmd_error("%s", r->exit_reason);
	else if (rc == EXIT_EXEC && wrc)
		cmd_error("a report could not be written");
	return rc;
}

void session_release(struct session *s)
{
	if (s->tmp && !getenv("KAGARI_KEEP_WORKDIR")) {
		tmpdir_remove(s->tmp);
	} else if (s->tmp) {
		/* Kept on purpose: without its lock file no later kagari
		   takes it for a dead run's and prunes it. */
		char *lock = xstrfmt("%s/lock", s->tmp);
		unlink(lock);
		free(lock);
	}
	/* Only now: the folder was ours until it was gone. */
	if (s->have_tmp_lock)
		close(s->tmp_lock);
	interrupt_uninstall();
	free(s->tmp);
	for (size_t i = 0; i < s->nr_dest; i++) {
		free(s->dest[i].path);
		free(s->dest[i].section);
		free(s->dest[i].canonical);
		free(s->dest[i].label);
	}
	free(s->dest);
	for (size_t i = 0; s->built && i < s->ls.nr; i++)
		for (int sd = 0; sd < SIDE__COUNT; sd++)
			free(s->built[i][sd]);
	free(s->built);
	free(s->path_length_note);
	run_result_release(&s->r);
	free(s->git_repo);
	free(s->git_start_sha);
	sbuf_release(&s->git_start_status);
	strvec_clear(&s->git_skip);
	strvec_clear(&s->warned);
	execute_instruments_release(&s->instruments);
	common_release(&s->ls);
	memset(s, 0, sizeof(*s));
}
