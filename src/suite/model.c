/*
 * suite/model: defaults of the resolved settings and freeing a suite
 * (model.h).
 */
#include "suite/model.h"

#include <stdlib.h>
#include <string.h>

#include "base/sbuf.h"
#include "base/xalloc.h"

void settings_init_defaults(struct settings *s)
{
	memset(s, 0, sizeof(*s));
	s->warmup = 1;
	s->runs = 0;
	s->min_runs = 10;
	s->max_runs = 200;
	s->min_time_ns = INT64_C(2000000000);
	s->max_time_ns = MAX_TIME_PER_COMMAND; /* 10 minutes a command */
	s->timeout_ns = INT64_C(60000000000);
	s->cwd = NULL;
	strvec_init(&s->env);
	s->stdout_path = NULL;
	s->stderr_path = NULL;
	s->exit_codes = xmalloc(sizeof(int));
	s->exit_codes[0] = 0;
	s->nr_exit_codes = 1;
	s->runs_per_round = 1;
	s->order = ORDER_RANDOM;
	s->layout_noise = 1;

	/* As in himorime, a suite measures latency and what it asks for. */
	s->metrics.cpu = 0;
	s->metrics.memory = 0;
	s->metrics.counters = COUNTERS_OFF;
	s->metrics.counters_list = 0;
	s->metrics.instrument = INSTRUMENT_AUTO;
	s->metrics.allocations = 0;
	s->metrics.syscalls = 0;
	s->metrics.profile = 0;
	s->metrics.profile_runs = 10;
	s->metrics.profile_frequency = 3999;
	s->metrics.unsupported_skip = 0;
	s->metrics.throughput.kind = WORK_NONE;

	struct regression_cfg *r = &s->regression;
	r->pairing = PAIRING_ROUNDS;
	r->correction = CORRECTION_HOLM;
	r->resamples = 2000;
	r->confidence = 0.95;
	r->min_samples = 10;
	r->max_cv = 0.5;
	strvec_init(&r->commands);
	for (int i = 0; i < METRIC__COUNT; i++) {
		struct metric_regression *m = &r->metric[i];
		m->configured = 0;
		m->compare = i == METRIC_LATENCY || i == METRIC_CPU_TOTAL || i == METRIC_PEAK_RSS;
		m->statistic = STATISTIC_MEDIAN;
		m->max_percent = 10;
		m->min_difference = -1;
		m->gate = 1;
	}
}

static char *dup_or_null(const char *s)
{
	return s ? xstrdup(s) : NULL;
}

void settings_copy(struct settings *dst, const struct settings *src)
{
	*dst = *src;
	dst->cwd = dup_or_null(src->cwd);
	strvec_init(&dst->env);
	strvec_copy(&dst->env, &src->env);
	dst->stdout_path = dup_or_null(src->stdout_path);
	dst->stderr_path = dup_or_null(src->stderr_path);
	dst->exit_codes =
	    xreallocarray(NULL, src->nr_exit_codes ? src->nr_exit_codes : 1, sizeof(int));
	if (src->nr_exit_codes)
		memcpy(dst->exit_codes, src->exit_codes, src->nr_exit_codes * sizeof(int));
	dst->metrics.throughput.file = dup_or_null(src->metrics.throughput.file);
	dst->metrics.throughput.unit = dup_or_null(src->metrics.throughput.unit);
	strvec_init(&dst->regression.commands);
	strvec_copy(&dst->regression.commands, &src->regression.commands);
}

void settings_release(struct settings *s)
{
	free(s->cwd);
	strvec_clear(&s->env);
	free(s->stdout_path);
	free(s->stderr_path);
	free(s->exit_codes);
	free(s->metrics.throughput.file);
	free(s->metrics.throughput.unit);
	strvec_clear(&s->regression.commands);
	memset(s, 0, sizeof(*s));
	strvec_init(&s->env);
	strvec_init(&s->regression.commands);
}

void exec_spec_release(struct exec_spec *e)
{
	strvec_clear(&e->argv);
	free(e->script);
	free(e->cwd);
	strvec_clear(&e->env);
	e->script = NULL;
	e->cwd = NULL;
}

static void exec_array_free(struct exec_spec *v, size_t n)
{
	for (size_t i = 0; i < n; i++)
		exec_spec_release(&v[i]);
	free(v);
}

static void budget_release(struct budget *b)
{
	free(b->aggregation_name);
	free(b->limit_text);
	free(b->unit);
}

static void command_release(struct command_spec *c)
{
	free(c->name);
	strvec_clear(&c->matrix_names);
	strvec_clear(&c->matrix_values);
	exec_spec_release(&c->exec);
	settings_release(&c->settings);
	for (size_t i = 0; i < c->nr_budgets; i++)
		budget_release(&c->budgets[i]);
	free(c->budgets);
}

static void bench_release(struct bench_spec *b)
{
	free(b->name);
	free(b->description);
	strvec_clear(&b->tags);
	free(b->stdin_spec.value);
	exec_array_free(b->setup, b->nr_setup);
	exec_array_free(b->prepare_each, b->nr_prepare_each);
	exec_array_free(b->cleanup, b->nr_cleanup);
	free(b->baseline);
	settings_release(&b->settings);
	for (size_t i = 0; i < b->nr_commands; i++)
		command_release(&b->commands[i]);
	free(b->commands);
}

static void settings_ungate(struct settings *st)
{
	for (int m = 0; m < METRIC__COUNT; m++)
		st->regression.metric[m].gate = 0;
}

void suite_ungate(struct suite *s)
{
	settings_ungate(&s->defaults);
	for (size_t b = 0; b < s->nr_benches; b++) {
		struct bench_spec *bs = &s->benches[b];
		settings_ungate(&bs->settings);
		for (size_t c = 0; c < bs->nr_commands; c++) {
			struct command_spec *cs = &bs->commands[c];
			settings_ungate(&cs->settings);
			for (size_t i = 0; i < cs->nr_budgets; i++)
				budget_release(&cs->budgets[i]);
			free(cs->budgets);
			cs->budgets = NULL;
			cs->nr_budgets = 0;
		}
	}
}

void suite_free(struct suite *s)
{
	if (!s)
		return;
	free(s->file);
	free(s->dir);
	free(s->root);
	free(s->version);
	free(s->name);
	free(s->description);
	if (s->build) {
		exec_spec_release(s->build);
		free(s->build);
	}
	settings_release(&s->defaults);
	for (size_t i = 0; i < s->nr_benches; i++)
		bench_release(&s->benches[i]);
	free(s->benches);
	for (size_t i = 0; i < s->nr_outputs; i++) {
		free(s->outputs[i].format);
		free(s->outputs[i].path);
		free(s->outputs[i].section);
	}
	free(s->outputs);
	for (size_t i = 0; i < s->nr_versions; i++) {
		free(s->versions[i].tool);
		strvec_clear(&s->versions[i].argv);
	}
	free(s->versions);
	free(s);
}

char *exec_spec_display(const struct exec_spec *e)
{
	if (e->shell)
		return xstrdup(e->script);
	struct sbuf sb = SBUF_INIT;
	for (size_t i = 0; i < e->argv.nr; i++) {
		const char *a = e->argv.v[i];
		if (i)
			sbuf_addch(&sb, ' ');
		/* Variables stay readable: `${artifact}` is shown as written. */
		if (*a && !strpbrk(a, " \t\n'\"\\`*?[]()<>|&;#~")) {
			sbuf_adds(&sb, a);
			continue;
		}
		sbuf_addch(&sb, '\'');
		for (; *a; a++) {
			if (*a == '\'')
				sbuf_adds(&sb, "'\\''");
			else
				sbuf_addch(&sb, *a);
		}
		sbuf_addch(&sb, '\'');
	}
	return sbuf_detach(&sb);
}
