/*
 * execute_prepare: commands as the engine runs them. A suite's exec spec
 * (a command, a hook, the build) is expanded into a `struct
 * execute_prepared` (argv with variables substituted, environment layered
 * over the inherited one, cwd) and handed to the runner; hooks and the
 * build must exit 0, and a failure is described with the masked stderr
 * tail. Also the public execute_build() and execute_command_display().
 *
 * Call order: execute_prepare_exec() (or execute_prepare_hook()) into a
 * zeroed, strvec_init()ed struct execute_prepared; execute_run_prepared()
 * or execute_run_hooks(); execute_prepared_release(). See
 * execute_internal.h for the contracts.
 */
#include "measure/execute_internal.h"

#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "base/path.h"
#include "base/sbuf.h"
#include "base/strvec.h"
#include "base/xalloc.h"
#include "proc/child.h"
#include "proc/proc.h"
#include "measure/runner.h"
#include "suite/vars.h"

#define HOOK_TIMEOUT_NS (5LL * 60 * 1000000000)
#define BUILD_TIMEOUT_NS (10LL * 60 * 1000000000)

void execute_prepared_release(struct execute_prepared *p)
{
	strvec_clear(&p->argv);
	strvec_clear(&p->env);
	free(p->cwd);
	free(p->stdout_path);
	free(p->stderr_path);
	free(p->stdin_path);
	memset(p, 0, sizeof(*p));
}

/* The suite's folder as seen from one side's checkout. */
char *execute_side_suite_dir(const struct suite *s, const struct execute_side *side)
{
	size_t n = strlen(s->root);
	if (!strncmp(s->dir, s->root, n) && (s->dir[n] == '/' || !s->dir[n]))
		return xstrfmt("%s%s", side->root, s->dir + n);
	return xstrdup(s->dir);
}

char *execute_suite_dir_in(const struct suite *s, const char *root)
{
	struct execute_side side = {.root = root};
	return execute_side_suite_dir(s, &side);
}

char *execute_join_path(const char *dir, const char *rel)
{
	if (!rel || !*rel)
		return xstrdup(dir);
	if (rel[0] == '/')
		return xstrdup(rel);
	return xstrfmt("%s/%s", dir, rel);
}

/* Is normalised `path` inside folder dir (not normalised; NULL: no)? */
static int inside(const char *path, const char *dir)
{
	if (!dir)
		return 0;
	char *d = path_normalize(dir);
	int in = path_inside(path, d) != NULL;
	free(d);
	return in;
}

char *execute_side_path(const char *what, const char *in, const char *dir,
			const struct vars_context *ctx, struct sbuf *err)
{
	struct sbuf tmp = SBUF_INIT;
	struct sbuf why = SBUF_INIT;
	if (vars_expand(in, ctx, 0, &tmp, &why)) {
		sbuf_addf(err, "%s '%s': %s", what, in, why.buf);
		sbuf_release(&tmp);
		sbuf_release(&why);
		return NULL;
	}
	sbuf_release(&why);
	char *joined = execute_join_path(dir, tmp.buf);
	sbuf_release(&tmp);
	char *norm = path_normalize(joined);
	int ok =
	    inside(norm, ctx->repo) || inside(norm, ctx->head_repo) || inside(norm, ctx->workdir);
	free(norm);
	if (!ok) {
		sbuf_addf(err, "%s '%s' is '%s', which leaves the repository and ${workdir}", what,
			  in, joined);
		free(joined);
		return NULL;
	}
	return joined;
}

static int expand(const char *in, const struct vars_context *ctx, int quote, struct sbuf *out,
		  struct sbuf *err)
{
	sbuf_reset(out);
	return vars_expand(in, ctx, quote, out, err);
}

/*
 * Expand an exec spec into argv/env/cwd. `layers` are environment override
 * vectors applied in order over the inherited environment.
 */
int execute_prepare_exec(const struct exec_spec *e, const struct strvec *const *layers,
			 size_t nr_layers, const char *default_cwd, const char *settings_cwd,
			 const struct vars_context *ctx, struct execute_prepared *p,
			 struct sbuf *err)
{
	struct sbuf tmp = SBUF_INIT;
	int rc = 0;

	/* Builds, hooks and commands are not tied to the repository or index
	   of a git hook kagari runs in (a base build would see the head's);
	   the suite's env: can still set GIT_DIR and the like. */
	proc_env_without_git_repo(&p->env, NULL);
	struct vars_context envctx = *ctx;
	for (size_t l = 0; l < nr_layers && !rc; l++) {
		const struct strvec *layer = layers[l];
		for (size_t i = 0; i < layer->nr && !rc; i++) {
			const char *eq = strchr(layer->v[i], '=');
			if (!eq)
				continue;
			char *name = xstrndup(layer->v[i], (size_t)(eq - layer->v[i]));
			envctx.env = &p->env;
			if (expand(eq + 1, &envctx, 0, &tmp, err))
				rc = -1;
			else
				strvec_setenv(&p->env, name, tmp.buf);
			free(name);
		}
	}
	struct vars_context cmdctx = *ctx;
	cmdctx.env = &p->env;
	if (!rc && e->shell) {
		if (expand(e->script, &cmdctx, 1, &tmp, err)) {
			rc = -1;
		} else {
			strvec_push(&p->argv, "/bin/sh");
			strvec_push(&p->argv, "-c");
			strvec_push(&p->argv, tmp.buf);
		}
	} else {
		for (size_t i = 0; i < e->argv.nr && !rc; i++) {
			if (expand(e->argv.v[i], &cmdctx, 0, &tmp, err))
				rc = -1;
			else
				strvec_push(&p->argv, tmp.buf);
		}
	}
	const char *cwd = e->cwd ? e->cwd : settings_cwd;
	if (!rc && cwd) {
		p->cwd = execute_side_path("cwd", cwd, default_cwd, &cmdctx, err);
		if (!p->cwd)
			rc = -1;
	} else if (!rc) {
		p->cwd = xstrdup(default_cwd);
	}
	sbuf_release(&tmp);
	return rc;
}

/* Describe how a run that did start ended, for error messages. */
void execute_describe_failure(const struct child_result *res, const struct execute_prepared *p,
			      struct sbuf *msg)
{
	child_result_describe(res, p->timeout_ns, msg);
	if (res->timed_out)
		sbuf_adds(msg, " (its process group was killed)");
}

void execute_fill_request(const struct execute_prepared *p, unsigned flags,
			  struct runner_request *req)
{
	runner_request_init(req);
	req->argv = p->argv.v;
	req->envp = p->env.v;
	req->dir = p->cwd;
	req->timeout_ns = p->timeout_ns;
	req->flags = flags | (p->terminal ? CHILD_TERMINAL : 0);
	req->layout_pad = p->padded ? p->layout_pad : -1;
	req->out = p->stdout_path ? CHILD_OUT_FILE : CHILD_OUT_DISCARD;
	req->out_path = p->stdout_path;
	req->err = p->stderr_path ? CHILD_OUT_FILE : CHILD_OUT_DISCARD;
	req->err_path = p->stderr_path;
	if (p->in && p->in->kind == STDIN_FILE) {
		req->in = CHILD_IN_FILE;
		req->in_path = p->stdin_path;
	} else if (p->in && p->in->kind == STDIN_CONTENT) {
		req->in = CHILD_IN_CONTENT;
		req->in_data = p->in->value;
		req->in_len = strlen(p->in->value);
	} else {
		req->in = CHILD_IN_NULL;
	}
}

int execute_run_prepared(const struct execute_options *o, const struct execute_prepared *p,
			 unsigned flags, struct child_result *res, struct sbuf *why)
{
	struct runner_request req;
	execute_fill_request(p, flags, &req);
	child_result_reset(res);
	if (runner_run(o->runner, &req, res, why) < 0)
		return -1;
	return 0;
}

int execute_exit_code_ok(const struct settings *s, const struct child_result *res)
{
	if (res->timed_out || res->interrupted || res->status != CHILD_EXITED)
		return 0;
	for (size_t i = 0; i < s->nr_exit_codes; i++)
		if (s->exit_codes[i] == res->exit_code)
			return 1;
	return 0;
}

/*
 * Did a run that must exit 0 fail? Then the reason, with the masked stderr
 * tail, is appended to why.
 */
int execute_must_succeed_failed(const struct child_result *res, const struct execute_prepared *p,
				struct sbuf *why)
{
	if (res->status == CHILD_EXITED && res->exit_code == 0 && !res->timed_out &&
	    !res->interrupted)
		return 0;
	execute_describe_failure(res, p, why);
	char *tail = proc_mask_secrets(res->stderr_tail.buf, p->env.v);
	child_add_stderr_tail(why, tail, strlen(tail), CHILD_TAIL_BLOCK);
	free(tail);
	return 1;
}

/*
 * Run an untimed command (hook, build) that must exit 0. On failure the
 * reason, with the masked stderr tail, is appended to why.
 */
static int run_must_succeed(const struct execute_options *o, const struct execute_prepared *p,
			    unsigned flags, struct sbuf *why)
{
	struct child_result res = CHILD_RESULT_INIT;
	int rc = execute_run_prepared(o, p, flags, &res, why);
	if (rc == 0 && execute_must_succeed_failed(&res, p, why))
		rc = -1;
	child_result_release(&res);
	return rc;
}

/* Expand hook i of a list into p (always to be released). */
int execute_prepare_hook(const char *what, const struct exec_spec *hooks, size_t i,
			 const struct bench_spec *b, const char *suite_dir,
			 const struct vars_context *ctx, struct execute_prepared *p,
			 struct sbuf *err)
{
	memset(p, 0, sizeof(*p));
	strvec_init(&p->argv);
	strvec_init(&p->env);
	const struct strvec *layers[] = {&b->settings.env, &hooks[i].env};
	struct sbuf why = SBUF_INIT;
	int rc =
	    execute_prepare_exec(&hooks[i], layers, 2, suite_dir, b->settings.cwd, ctx, p, &why);
	if (rc)
		sbuf_addf(err, "%s hook %zu: %s", what, i + 1, why.buf);
	p->timeout_ns = hooks[i].timeout_ns ? hooks[i].timeout_ns : HOOK_TIMEOUT_NS;
	sbuf_release(&why);
	return rc;
}

void execute_hook_failed(const char *what, const struct exec_spec *hooks, size_t i, const char *why,
			 struct sbuf *err)
{
	char *shown = execute_command_display(&hooks[i]);
	sbuf_addf(err, "%s hook %zu (%s) failed: %s", what, i + 1, shown, why);
	free(shown);
}

/*
 * Run a list of hooks; on failure describe it in err (with the stderr tail).
 * flags: RUNNER_CLEAR_INTERRUPT for cleanup, which must run after a signal.
 */
int execute_run_hooks(const char *what, const struct exec_spec *hooks, size_t n,
		      const struct bench_spec *b, const char *suite_dir,
		      const struct vars_context *ctx, const struct execute_options *o,
		      unsigned flags, struct sbuf *err)
{
	for (size_t i = 0; i < n; i++) {
		struct execute_prepared p;
		struct sbuf why = SBUF_INIT;
		if (execute_prepare_hook(what, hooks, i, b, suite_dir, ctx, &p, err)) {
			execute_prepared_release(&p);
			return -1;
		}
		int rc = run_must_succeed(o, &p, flags, &why);
		if (rc)
			execute_hook_failed(what, hooks, i, why.buf, err);
		sbuf_release(&why);
		execute_prepared_release(&p);
		if (rc)
			return -1;
	}
	return 0;
}

char *execute_command_display(const struct exec_spec *e)
{
	return exec_spec_display(e);
}

int execute_build(const struct suite *s, const struct execute_side *side,
		  const struct execute_options *o, struct sbuf *err)
{
	if (!s->build)
		return 0;
	char *dir = execute_side_suite_dir(s, side);
	char *head_dir = execute_suite_dir_in(s, side->head_root);
	struct vars_context ctx = {
	    .artifact = side->artifact,
	    .root = dir,
	    .head_root = head_dir,
	    .workdir = NULL,
	    .env = NULL,
	    .repo = side->root,
	    .head_repo = side->head_root,
	};
	struct execute_prepared p;
	memset(&p, 0, sizeof(p));
	strvec_init(&p.argv);
	strvec_init(&p.env);
	const struct strvec *layers[] = {&s->build->env};
	int rc = execute_prepare_exec(s->build, layers, 1, dir, NULL, &ctx, &p, err);
	if (!rc) {
		p.timeout_ns = s->build->timeout_ns ? s->build->timeout_ns : BUILD_TIMEOUT_NS;
		if (side->artifact)
			unlink(side->artifact); /* a stale artifact must not pass as built */
		struct sbuf why = SBUF_INIT;
		rc = run_must_succeed(o, &p, 0, &why);
		if (rc == 0 && side->artifact && access(side->artifact, F_OK) != 0) {
			sbuf_addf(&why, "it exited 0 but wrote no ${artifact} ('%s')",
				  side->artifact);
			rc = -1;
		}
		if (rc)
			sbuf_addf(err, "build of suite '%s' failed: %s", s->name, why.buf);
		sbuf_release(&why);
	}
	execute_prepared_release(&p);
	free(dir);
	free(head_dir);
	return rc;
}
