/*
 * suite/bench_plan: `kagari bench`'s command line to the suite it runs
 * (suite/bench_plan.h). Parameters as in hyperfine: -P NAME MIN MAX
 * [-D STEP] and -L NAME A,B,C (several combine into every combination)
 * replace {NAME} in the commands (and -n names), in hyperfine's order: per
 * combination, the first parameter changing fastest, every command as
 * given.
 */
#include "suite/bench_plan.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/fileio.h"
#include "base/xalloc.h"
#include "suite/load.h"
#include "suite/units.h"

void bench_plan_init(struct bench_plan *p)
{
	memset(p, 0, sizeof(*p));
	strvec_init(&p->templates);
	strvec_init(&p->names);
	strvec_init(&p->cmds);
	strvec_init(&p->labels);
	p->runs = p->warmup = -1;
	p->min_runs = p->max_runs = -1;
	p->max = 10;
}

void bench_plan_release(struct bench_plan *a)
{
	strvec_clear(&a->templates);
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
	a->params = NULL;
	a->values = NULL;
	a->nr_params = 0;
}

static struct bench_param *add_param(struct bench_plan *a, const char *name)
{
	a->params = xreallocarray(a->params, a->nr_params + 1, sizeof(*a->params));
	struct bench_param *p = &a->params[a->nr_params++];
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

int bench_plan_add_lists(struct bench_plan *a, const struct strvec *pairs, struct sbuf *err)
{
	for (size_t i = 0; i + 1 < pairs->nr; i += 2) {
		if (!param_name_ok(pairs->v[i])) {
			sbuf_addf(err,
				  "--parameter-list: '%s' is not a parameter "
				  "name ([A-Za-z0-9_]+)",
				  pairs->v[i]);
			return -1;
		}
		struct bench_param *p = add_param(a, pairs->v[i]);
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
static int scan_values(struct bench_plan *a, struct sbuf *err)
{
	if (a->step && !a->scan_name) {
		sbuf_addf(err, "--parameter-step-size (-D) needs --parameter-scan (-P)");
		return -1;
	}
	if (!a->scan_name)
		return 0;
	double lo, hi, step = 1;
	if (!param_name_ok(a->scan_name)) {
		sbuf_addf(err,
			  "--parameter-scan: '%s' is not a parameter name "
			  "([A-Za-z0-9_]+)",
			  a->scan_name);
		return -1;
	}
	if (parse_double(a->scan_min, &lo) || parse_double(a->scan_max, &hi)) {
		sbuf_addf(err,
			  "--parameter-scan %s: MIN '%s' and MAX '%s' must be "
			  "numbers",
			  a->scan_name, a->scan_min, a->scan_max);
		return -1;
	}
	if (a->step && (parse_double(a->step, &step) || step <= 0)) {
		sbuf_addf(err, "--parameter-step-size: '%s' is not a number above 0", a->step);
		return -1;
	}
	if (hi < lo) {
		sbuf_addf(err, "--parameter-scan %s: MAX %s is below MIN %s", a->scan_name,
			  a->scan_max, a->scan_min);
		return -1;
	}
	double n = floor((hi - lo) / step + 1e-9) + 1;
	if (n > BENCH_MAX_COMMANDS) {
		sbuf_addf(err, "--parameter-scan %s: %.0f values; at most %d", a->scan_name, n,
			  BENCH_MAX_COMMANDS);
		return -1;
	}
	/* The scan is the first parameter: hyperfine's commands vary it.
	   Its values are written as hyperfine writes them (decimal sums):
	   MIN with the digits it was typed with, then MIN + k STEP with as
	   many decimals as the longer of MIN and STEP. */
	struct bench_param p = {.name = xstrdup(a->scan_name)};
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
static char *substitute(const char *t, const struct bench_plan *a, const size_t *idx)
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
static int expand(struct bench_plan *a, struct sbuf *err)
{
	for (size_t p = 0; p < a->nr_params; p++)
		if (!a->params[p].values.nr) {
			sbuf_addf(err, "parameter '%s' has no values", a->params[p].name);
			return -1;
		}
	if (a->names.nr > a->templates.nr) {
		sbuf_addf(err, "%zu --command-name for %zu command%s", a->names.nr, a->templates.nr,
			  a->templates.nr == 1 ? "" : "s");
		return -1;
	}
	size_t *idx = xcalloc(a->nr_params + 1, sizeof(*idx));
	size_t alloc = 0;
	for (;;) {
		for (size_t t = 0; t < a->templates.nr; t++) {
			if (a->cmds.nr >= BENCH_MAX_COMMANDS) {
				sbuf_addf(err,
					  "more than %d commands after "
					  "expanding the parameters",
					  BENCH_MAX_COMMANDS);
				free(idx);
				return -1;
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

int bench_plan_expand(struct bench_plan *a, struct sbuf *err)
{
	if (!a->templates.nr) {
		sbuf_addf(err, "bench needs at least one command: kagari bench "
			       "'CMD1' ['CMD2' ...]");
		return -1;
	}
	/* The suite's own parser (and range) of max_percent, as compare's
	   and ci's --max-percent: a value bench takes is one its suite takes. */
	struct sbuf why = SBUF_INIT;
	if (a->max_percent && units_parse_tolerance(a->max_percent, &a->max, &why)) {
		sbuf_addf(err, "--max-percent '%s': %s", a->max_percent, why.buf);
		sbuf_release(&why);
		return -1;
	}
	sbuf_release(&why);
	if (a->shell && !*a->shell) {
		sbuf_addf(err, "--shell: empty");
		return -1;
	}
	if (a->min_runs > 0 && a->max_runs > 0 && a->min_runs > a->max_runs) {
		sbuf_addf(err, "--min-runs %d is above --max-runs %d", a->min_runs, a->max_runs);
		return -1;
	}
	if (scan_values(a, err))
		return -1;
	return expand(a, err);
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

/* A command as a YAML string of a suite: the suite loader expands ${...},
   so a command's own literal ${ is written $${ (docs/suite.md). */
static void yaml_command(struct sbuf *out, const char *s)
{
	struct sbuf q = SBUF_INIT;
	for (const char *p = s; *p; p++) {
		if (p[0] == '$' && p[1] == '{')
			sbuf_addch(&q, '$');
		sbuf_addch(&q, *p);
	}
	yaml_quote(out, q.buf ? q.buf : "");
	sbuf_release(&q);
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

int bench_plan_no_shell(const struct bench_plan *a)
{
	return a->shell && !strcmp(a->shell, "none");
}

/* The body of one side's script: to the user's folder, then the command. */
static int script_body(struct sbuf *out, int words, const char *cwd, const char *cmd,
		       struct sbuf *err)
{
	sbuf_adds(out, "cd -- ");
	sh_quote(out, cwd);
	sbuf_adds(out, " || exit 126\n");
	if (!words) {
		sbuf_addf(out, "%s\n", cmd);
		return 0;
	}
	struct strvec w = STRVEC_INIT;
	if (split_words(cmd, &w) || !w.nr) {
		strvec_clear(&w);
		if (err)
			sbuf_addf(err,
				  "-N: cannot split '%s' into words (an "
				  "unclosed quote, or empty)",
				  cmd);
		return -1;
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

/* The regression settings both suites share: latency, the one metric
   bench measures (user and system CPU time come with every run). */
static void regression_yaml(struct sbuf *y, const struct bench_plan *a, double max)
{
	/* The shortest decimal that reads back as the same double, never in
	   exponent form (a suite's percentage has none). */
	char num[64] = "";
	for (int prec = 1; prec <= 17; prec++) {
		snprintf(num, sizeof(num), "%.*g", prec, max);
		if (!strchr(num, 'e') && strtod(num, NULL) == max)
			break;
	}
	if (strchr(num, 'e'))
		snprintf(num, sizeof(num), "%.6f", max);
	sbuf_addf(y, "  regression:\n    latency: {max_percent: %s, gate: %s}\n", num,
		  a->max_percent ? "true" : "false");
}

static void defaults_yaml(struct sbuf *y, const struct bench_plan *a)
{
	sbuf_adds(y, "defaults:\n");
	if (a->warmup >= 0)
		sbuf_addf(y, "  warmup: %d\n", a->warmup);
	if (a->runs > 0) {
		sbuf_addf(y, "  runs: %d\n", a->runs);
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
static void saved_suite(struct sbuf *y, const struct bench_plan *a, const struct saved_where *at)
{
	sbuf_adds(y, "# Written by kagari bench --save-suite: the same commands "
		     "as a suite.\n"
		     "# `kagari run` on it measures them; c1 is the baseline.\n");
	if (at && at->rel)
		sbuf_adds(y, "# They run where bench ran them: cwd is relative "
			     "to this file's folder.\n");
	if (at && at->cd)
		sbuf_adds(y, "# They run where bench ran them: this file's "
			     "folder cannot reach it\n"
			     "# (cwd stays in the suite's repository), so each "
			     "first changes there.\n");
	sbuf_adds(y, "version: \"1\"\nname: bench\n");
	defaults_yaml(y, a);
	if (at && at->rel) {
		sbuf_adds(y, "  cwd: ");
		yaml_quote(y, at->rel);
		sbuf_addch(y, '\n');
	}
	regression_yaml(y, a, a->max);
	sbuf_adds(y, "benchmarks:\n  - name: bench\n    baseline: c1\n");
	const char *sh = a->shell && !bench_plan_no_shell(a) ? a->shell : NULL;
	struct sbuf cmd = SBUF_INIT;
	const char *hook_cmd[] = {a->setup, a->prepare, a->cleanup};
	static const char *const hook_key[] = {"setup", "prepare_each", "cleanup"};
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
		yaml_command(y, cmd.buf);
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
			/* The script bench itself runs (script_body), in its
			 * shell. */
			sbuf_reset(&cmd);
			if (script_body(&cmd, bench_plan_no_shell(a), at->cd, a->cmds.v[i], NULL))
				sbuf_reset(&cmd);
			sbuf_adds(y, "[");
			yaml_quote(y, bench_plan_no_shell(a) || !a->shell ? "sh" : a->shell);
			sbuf_adds(y, ", \"-c\", ");
			yaml_command(y, cmd.buf);
			sbuf_adds(y, "]\n");
		} else if (bench_plan_no_shell(a)) {
			struct strvec w = STRVEC_INIT;
			split_words(a->cmds.v[i], &w);
			sbuf_addch(y, '[');
			for (size_t k = 0; k < w.nr; k++) {
				if (k)
					sbuf_adds(y, ", ");
				yaml_command(y, w.v[k]);
			}
			sbuf_adds(y, "]\n");
			strvec_clear(&w);
		} else if (sh) {
			sbuf_adds(y, "[");
			yaml_quote(y, sh);
			sbuf_adds(y, ", \"-c\", ");
			yaml_command(y, a->cmds.v[i]);
			sbuf_adds(y, "]\n");
		} else {
			yaml_command(y, a->cmds.v[i]);
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
static void saved_where_find(struct saved_where *at, const char *file, const struct bench_plan *a,
			     const char *cwd)
{
	memset(at, 0, sizeof(*at));
	if (!cwd)
		return;
	struct sbuf y = SBUF_INIT, err = SBUF_INIT;
	saved_suite(&y, a, NULL);
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
		/* Up from dir to the longest common folder, then down to cwd.
		 */
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

void bench_plan_saved_suite(struct sbuf *yaml, const struct bench_plan *p, const char *file,
			    const char *cwd)
{
	struct saved_where at;
	saved_where_find(&at, file, p, cwd);
	saved_suite(yaml, p, &at);
	free(at.rel);
	free(at.cd);
}

/* A -N command's words as the flow sequence of a suite's `command:`
   (a literal ${ written $${). */
static int words_yaml(struct sbuf *y, const char *cmd)
{
	struct strvec w = STRVEC_INIT;
	int bad = split_words(cmd, &w) || !w.nr;
	for (size_t i = 0; i < w.nr; i++) {
		if (i)
			sbuf_adds(y, ", ");
		yaml_command(y, w.v[i]);
	}
	strvec_clear(&w);
	return bad ? -1 : 0;
}

/*
 * With a shell, cK runs the script cK.sh, which changes to the user's
 * folder and runs the command (`SHELL script` costs what `SHELL -c CMD`
 * costs); with -N, cK is the command's words, started directly (no shell
 * at all) in the user's folder through the link work. The hooks are
 * shell scripts the same way.
 */
int bench_plan_suite(const struct bench_plan *a, const char *cwd, struct sbuf *y,
		     struct strvec *files, struct sbuf *err)
{
	const char *sh = bench_plan_no_shell(a) || !a->shell ? "sh" : a->shell;
	struct sbuf body = SBUF_INIT;
	sbuf_adds(y, "version: \"1\"\nname: bench\n");
	defaults_yaml(y, a);
	regression_yaml(y, a, a->max);
	sbuf_adds(y, "benchmarks:\n  - name: bench\n");
	if (a->cmds.nr > 1)
		sbuf_adds(y, "    baseline: c1\n");
	const char *hook_cmd[] = {a->setup, a->prepare, a->cleanup};
	static const char *const hook_key[] = {"setup", "prepare_each", "cleanup"};
	for (int h = 0; h < 3; h++) {
		if (!hook_cmd[h])
			continue;
		sbuf_reset(&body);
		script_body(&body, 0, cwd, hook_cmd[h], NULL); /* hooks are shell commands */
		strvec_pushf(files, "%s.sh", hook_key[h]);
		strvec_push(files, body.buf);
		sbuf_addf(y, "    %s:\n      - command: [sh, \"${root}/%s.sh\"]\n", hook_key[h],
			  hook_key[h]);
	}
	sbuf_adds(y, "    commands:\n");
	int rc = 0;
	for (size_t k = 0; k < a->cmds.nr && !rc; k++) {
		sbuf_addf(y, "      c%zu: {command: [", k + 1);
		if (bench_plan_no_shell(a)) {
			if (words_yaml(y, a->cmds.v[k])) {
				sbuf_addf(err,
					  "-N: cannot split '%s' into words "
					  "(an unclosed quote, or empty)",
					  a->cmds.v[k]);
				rc = -1;
			}
			sbuf_adds(y, "], cwd: work}\n");
			continue;
		}
		sbuf_reset(&body);
		rc = script_body(&body, 0, cwd, a->cmds.v[k], err);
		strvec_pushf(files, "c%zu.sh", k + 1);
		strvec_push(files, body.buf);
		yaml_quote(y, sh);
		sbuf_addf(y, ", \"${root}/c%zu.sh\"]}\n", k + 1);
	}
	sbuf_release(&body);
	return rc;
}

/* The results carry the user's commands, names and parameters. */
void bench_plan_name_results(struct run_result *r, const struct bench_plan *a)
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
