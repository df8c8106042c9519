/*
 * model/result: the result model's lifecycle and small accessors
 * (result.h): init and release, adding samples, statuses, names.
 */
#include "model/result.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "base/xalloc.h"

void run_result_init(struct run_result *r)
{
	memset(r, 0, sizeof(*r));
	strvec_init(&r->warnings);
	r->git.dirty = -1;
	r->env.steal_percent = NAN;
}

static void side_release(struct side_result *s)
{
	for (int m = 0; m < METRIC__COUNT; m++) {
		free(s->metric[m].reason);
		free(s->metric[m].samples);
	}
	free(s->runs);
	for (size_t i = 0; i < s->nr_syscall_names; i++)
		free(s->syscall_names[i].name);
	free(s->syscall_names);
	for (size_t i = 0; i < s->nr_counted_functions; i++)
		free(s->counted_functions[i].name);
	free(s->counted_functions);
}

void comparison_clear(struct comparison *c)
{
	free(c->statistic);
	free(c->pairing);
	free(c->reason);
	free(c->dropped_rounds);
	free(c->boot);
	free(c->accepted_by);
	memset(c, 0, sizeof(*c));
}

static void command_release(struct command_result *c)
{
	free(c->name);
	free(c->command);
	for (int s = 0; s < SIDE__COUNT; s++)
		side_release(&c->side[s]);
	for (int m = 0; m < METRIC__COUNT; m++)
		comparison_clear(&c->comparison[m]);
	for (size_t i = 0; i < c->nr_budgets; i++) {
		free(c->budgets[i].aggregation);
		free(c->budgets[i].op);
		free(c->budgets[i].limit_text);
		free(c->budgets[i].reason);
	}
	free(c->budgets);
	free(c->error);
	free(c->stderr_tail);
	free(c->throughput_unit);
	if (c->profile)
		profile_set_release(c->profile);
	free(c->profile);
	free(c->profile_error);
	strvec_clear(&c->matrix_names);
	strvec_clear(&c->matrix_values);
}

void acceptance_release(struct acceptance *a)
{
	free(a->commit);
	free(a->benchmark);
	free(a->command);
	memset(a, 0, sizeof(*a));
}

void run_result_add_acceptance(struct run_result *r, const struct acceptance *a)
{
	r->accepts = xreallocarray(r->accepts, r->nr_accepts + 1, sizeof(*r->accepts));
	struct acceptance *n = &r->accepts[r->nr_accepts++];
	n->commit = xstrdup(a->commit);
	n->benchmark = xstrdup(a->benchmark);
	n->command = xstrdup(a->command);
	n->metric = a->metric;
	n->max_percent = a->max_percent;
}

void run_result_release(struct run_result *r)
{
	for (size_t i = 0; i < r->nr_suites; i++) {
		struct suite_result *s = &r->suites[i];
		for (size_t b = 0; b < s->nr_benches; b++) {
			struct bench_result *br = &s->benches[b];
			for (size_t c = 0; c < br->nr_commands; c++)
				command_release(&br->commands[c]);
			free(br->commands);
			free(br->name);
			free(br->baseline);
			strvec_clear(&br->tags);
		}
		free(s->benches);
		free(s->suite_from);
		free(s->name);
		free(s->file);
	}
	free(r->suites);
	free(r->mode);
	free(r->started_at);
	free(r->finished_at);
	free(r->env.os);
	free(r->env.kernel);
	free(r->env.arch);
	free(r->env.cpu_model);
	free(r->env.counters_source);
	free(r->env.valgrind_version);
	free(r->git.head_sha);
	free(r->git.base_ref);
	free(r->git.base_sha);
	free(r->shard.selection);
	free(r->shard.run_id);
	free(r->shard.split);
	free(r->shard.assignment);
	strvec_clear(&r->warnings);
	free(r->exit_reason);
	for (size_t i = 0; i < r->nr_accepts; i++)
		acceptance_release(&r->accepts[i]);
	free(r->accepts);
	run_result_init(r);
}

void metric_series_add(struct metric_series *m, double value, int round, int run)
{
	ALLOC_GROW(m->samples, m->nr + 1, m->alloc);
	m->samples[m->nr].value = value;
	m->samples[m->nr].round = round;
	m->samples[m->nr].run = run;
	m->samples[m->nr].layout_pad = -1;
	m->nr++;
	m->status = MSTATUS_OK;
}

void side_result_add_run(struct side_result *sr, int exit_code, double user_ns, double system_ns)
{
	ALLOC_GROW(sr->runs, sr->nr_runs + 1, sr->alloc_runs);
	sr->runs[sr->nr_runs].exit_code = exit_code;
	sr->runs[sr->nr_runs].user_ns = user_ns;
	sr->runs[sr->nr_runs].system_ns = system_ns;
	sr->nr_runs++;
}

void side_result_set_layout_pad(struct side_result *sr, int run, int pad)
{
	for (int m = 0; m < METRIC__COUNT; m++) {
		struct metric_series *ms = &sr->metric[m];
		/* A run's samples are the last ones added. */
		for (size_t i = ms->nr; i-- > 0 && ms->samples[i].run == run;)
			ms->samples[i].layout_pad = pad;
	}
}

void metric_series_set_status(struct metric_series *m, enum metric_status st, const char *reason)
{
	m->status = st;
	free(m->reason);
	m->reason = reason ? xstrdup(reason) : NULL;
}

void metric_series_fail(struct metric_series *m, enum metric_status st, const char *reason)
{
	free(m->samples);
	m->samples = NULL;
	m->nr = m->alloc = 0;
	m->confirmed = 0;
	metric_series_set_status(m, st, reason);
}

const char *side_name(enum side s)
{
	return s == SIDE_BASE ? "base" : "head";
}

const char *budget_status_name(enum budget_status s)
{
	switch (s) {
	case BUDGET_PASS:
		return "pass";
	case BUDGET_FAIL:
		return "fail";
	default:
		return "unassessable";
	}
}

const char *metric_status_name(enum metric_status s)
{
	switch (s) {
	case MSTATUS_OK:
		return "ok";
	case MSTATUS_UNSUPPORTED:
		return "unsupported";
	case MSTATUS_FAILED:
		return "failed";
	default:
		return "absent";
	}
}

enum run_mode run_mode(const struct run_result *r)
{
	static const struct {
		const char *name;
		enum run_mode mode;
	} modes[] = {
	    {"run", RUN_MODE_RUN},
	    {"compare", RUN_MODE_COMPARE},
	    {"bench", RUN_MODE_BENCH},
	};

	if (!r->mode)
		return RUN_MODE_RUN;
	for (size_t i = 0; i < sizeof(modes) / sizeof(modes[0]); i++)
		if (!strcmp(r->mode, modes[i].name))
			return modes[i].mode;
	return RUN_MODE_OTHER;
}
