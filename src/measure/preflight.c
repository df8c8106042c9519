/*
 * measure/preflight: the checks before anything runs (preflight.h).
 */
#include "measure/preflight.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "base/sbuf.h"
#include "base/strvec.h"
#include "base/xalloc.h"
#include "measure/execute.h"
#include "model/exit.h"
#include "model/metric.h"
#include "proc/child.h"
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
int preflight_instruments(const struct loaded_suites *ls, int counters_software,
			  const char *alloc_shim, struct strvec *errors)
{
	int rc = 0;
	struct execute_instruments in;
	memset(&in, 0, sizeof(in));
	in.counters_software = counters_software;
	in.shim_override = alloc_shim;
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
					strvec_pushf(
					    errors,
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
int preflight_paths(const struct loaded_suites *ls, struct strvec *errors)
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
					strvec_pushf(
					    errors,
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
					strvec_pushf(errors,
						     "%s:%d:%d: benchmarks[%zu].commands.%s.cwd: "
						     "folder '%s' does not exist",
						     s->file, cs->loc.line, cs->loc.col, b,
						     cs->name, cwd ? cwd : s->dir);
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
						strvec_pushf(
						    errors,
						    "%s:%d:%d: "
						    "benchmarks[%zu].commands.%s.command: %s",
						    s->file, cs->loc.line, cs->loc.col, b, cs->name,
						    why.buf);
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
