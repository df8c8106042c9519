/*
 * execute_profile: the sampled, untimed runs behind `metrics: {profile:
 * true}` and `--profile` (measure/sample.h, measure/symbols.h,
 * model/profile.h).
 *
 * After a benchmark's timed rounds (and its instrumented ones), each
 * profiled command gets `profile_runs` runs per side in rounds of one run
 * per side, base and head alternating which goes first (ABBA), with
 * `prepare_each` before each; the timed rounds are never sampled, so they
 * stay unperturbed. Each run is sampled through the runner process
 * (sampler_begin on its pid, enable_on_exec), symbolized, and added to the
 * command's profile_set as (side, round) with the run's CPU time from
 * rusage. A run that fails stops profiling of that command with the reason
 * in profile_error; the timed results stand.
 *
 * measure/ only measures: which functions changed is decided later by
 * analyze_result() (analyze/analyze.h, analyze/profile.h).
 */
#include "measure/execute_internal.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "base/sbuf.h"
#include "base/xalloc.h"
#include "measure/runner.h"
#include "measure/sample.h"
#include "measure/symbols.h"
#include "model/profile.h"
#include "proc/proc.h"

int execute_profile_wanted(const struct execute_options *o, const struct command_spec *cs)
{
	return o->profile_override > 0 || cs->settings.metrics.profile;
}

static void profile_fail(struct command_result *cr, const char *side, const char *why)
{
	if (cr->profile_error)
		return;
	cr->profile_error = side ? xstrfmt("%s: %s", side, why) : xstrdup(why);
}

/* One sampled run of unit u; returns 1 when interrupted. */
static int profile_run(const struct bench_spec *b, const struct execute_options *o,
		       struct execute_instruments *in, struct execute_unit *u,
		       struct command_result *cr, int round, const char *suite_dir,
		       const struct vars_context *ctx, struct symbols *sy, int two_sided)
{
	const struct command_spec *cs = &b->commands[u->cmd];
	const char *side = two_sided ? side_name((enum side)u->side) : NULL;
	struct sbuf err = SBUF_INIT, msg = SBUF_INIT;
	struct child_result res = CHILD_RESULT_INIT;
	struct sampler smp = SAMPLER_INIT;
	int interrupted = 0;

	if (execute_run_hooks("prepare_each", b->prepare_each, b->nr_prepare_each, b, suite_dir,
			      ctx, o, 0, &err)) {
		sbuf_addf(&msg, "a sampled run could not be prepared: %s", err.buf);
		profile_fail(cr, side, msg.buf);
		goto out;
	}
	if (*o->interrupted) {
		interrupted = 1;
		goto out;
	}
	unsigned freq = (unsigned)cs->settings.metrics.profile_frequency;
	if (sampler_begin(&smp, &in->sample, runner_pid(o->runner), freq, &err)) {
		profile_fail(cr, side, err.buf);
		goto out;
	}
	int rc = execute_run_prepared(o, &u->p, 0, &res, &err);
	struct sample_data d;
	sbuf_reset(&msg);
	int got = sampler_end(&smp, &d, &msg) == 0;
	if (rc) {
		sbuf_reset(&msg);
		sbuf_addf(&msg, "a sampled run could not start: %s", err.buf);
		profile_fail(cr, side, msg.buf);
	} else if (res.interrupted || *o->interrupted) {
		interrupted = 1;
	} else if (!execute_exit_code_ok(&cs->settings, &res)) {
		sbuf_reset(&msg);
		sbuf_adds(&msg, "a sampled run ");
		execute_describe_failure(&res, &u->p, &msg);
		profile_fail(cr, side, msg.buf);
	} else if (!got) {
		profile_fail(cr, side, msg.buf);
	} else {
		struct profile_set *ps = cr->profile;
		double cpu = (double)(res.user_ns + res.sys_ns);
		struct profile_run *r = profile_run_add(
		    ps, u->side == SIDE_BASE ? PROFILE_BASE : PROFILE_HEAD, round, cpu);
		symbols_aggregate(sy, &d, ps, r);
		int ps_side = u->side == SIDE_BASE ? PROFILE_BASE : PROFILE_HEAD;
		ps->lost[ps_side] += d.lost + d.lost_samples + (d.dropped ? 1 : 0);
		ps->throttled[ps_side] += d.throttled;
	}
	if (got)
		sample_data_release(&d);
out:
	sampler_release(&smp);
	child_result_release(&res);
	sbuf_release(&err);
	sbuf_release(&msg);
	return interrupted || *o->interrupted;
}

int execute_profile_bench(const struct bench_spec *b, const struct execute_options *o,
			  struct execute_instruments *in, struct bench_result *br,
			  struct execute_unit *units, size_t nr_units,
			  const char *const suite_dir[SIDE__COUNT],
			  const struct vars_context ctx[SIDE__COUNT])
{
	int any = 0, two_sided = 0, sides_seen[SIDE__COUNT] = {0, 0};
	for (size_t i = 0; i < nr_units; i++) {
		const struct command_spec *cs = &b->commands[units[i].cmd];
		if (!execute_profile_wanted(o, cs))
			continue;
		sides_seen[units[i].side] = 1;
		any = 1;
	}
	if (!any)
		return 0;
	two_sided = sides_seen[SIDE_BASE] && sides_seen[SIDE_HEAD];
	if (!in->sample_probed) {
		in->sample_probed = 1;
		sample_probe(&in->sample, 0);
	}
	for (size_t c = 0; c < b->nr_commands; c++) {
		const struct command_spec *cs = &b->commands[c];
		struct command_result *cr = &br->commands[c];
		if (!execute_profile_wanted(o, cs))
			continue;
		if (!in->sample.ok) {
			profile_fail(cr, NULL, in->sample.why);
			continue;
		}
		cr->profile = xcalloc(1, sizeof(*cr->profile));
		cr->profile->event = xstrdup(in->sample.name);
		cr->profile->frequency = (unsigned)cs->settings.metrics.profile_frequency;
	}
	if (!in->sample.ok)
		return 0;

	struct symbols *sy = symbols_new();
	int most = 0;
	for (size_t c = 0; c < b->nr_commands; c++)
		if (execute_profile_wanted(o, &b->commands[c]) &&
		    b->commands[c].settings.metrics.profile_runs > most)
			most = b->commands[c].settings.metrics.profile_runs;
	int interrupted = 0;
	for (int r = 1; r <= most && !interrupted; r++) {
		if (o->progress)
			o->progress(o->progress_data, b->name, r, most, 0);
		/* ABBA across rounds: base first in odd rounds, head in even. */
		for (int k = 0; k < SIDE__COUNT && !interrupted; k++) {
			int sd = (r % 2) ? k : SIDE__COUNT - 1 - k;
			for (size_t i = 0; i < nr_units && !interrupted; i++) {
				struct execute_unit *u = &units[i];
				const struct command_spec *cs = &b->commands[u->cmd];
				struct command_result *cr = &br->commands[u->cmd];
				if (u->side != sd || !u->ok || !u->prepared ||
				    !execute_profile_wanted(o, cs) || !cr->profile ||
				    cr->profile_error || r > cs->settings.metrics.profile_runs)
					continue;
				interrupted = profile_run(b, o, in, u, cr, r, suite_dir[sd],
							  &ctx[sd], sy, two_sided);
			}
		}
	}
	symbols_free(sy);
	return interrupted;
}
