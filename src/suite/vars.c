/*
 * suite/vars: ${...} variables (vars.h): checking names when a suite
 * loads, and expanding them per side (artifact, root, head_root, workdir,
 * env:NAME) when a command runs.
 */
#include "suite/vars.h"

#include <stdlib.h>
#include <string.h>

#include "base/sbuf.h"
#include "base/strvec.h"
#include "base/xalloc.h"
#include "base/suggest.h"

static const struct {
	const char *name;
	unsigned bit;
} var_names[] = {
    {"artifact", VAR_ARTIFACT}, {"root", VAR_ROOT}, {"head_root", VAR_HEAD_ROOT},
    {"workdir", VAR_WORKDIR},	{"exe", VAR_EXE},
};

static const char *const var_candidates[] = {
    "artifact", "root", "head_root", "workdir", "exe", "env:NAME", NULL,
};

/* One token of a string: a literal run, "$${", or a ${...} reference. */
struct var_ref {
	unsigned bit;	   /* 0: not a variable */
	size_t start, end; /* [start, end) in the input */
	const char *name;  /* points into the input: the text between braces */
	size_t name_len;
};

static int env_name_ok(const char *s, size_t n)
{
	if (!n || (s[0] >= '0' && s[0] <= '9'))
		return 0;
	for (size_t i = 0; i < n; i++) {
		char c = s[i];
		if (!((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
		      c == '_'))
			return 0;
	}
	return 1;
}

/*
 * Parse the reference starting at in[i] == '$' && in[i+1] == '{'.
 * Returns 0 and fills ref, or -1 with a reason.
 */
static int parse_ref(const char *in, size_t i, struct var_ref *ref, struct sbuf *err)
{
	const char *close = strchr(in + i + 2, '}');
	if (!close) {
		sbuf_addf(err, "unterminated '${' (write '$${' for a literal '${')");
		return -1;
	}
	ref->start = i;
	ref->end = (size_t)(close - in) + 1;
	ref->name = in + i + 2;
	ref->name_len = (size_t)(close - ref->name);
	ref->bit = 0;
	for (size_t k = 0; k < sizeof(var_names) / sizeof(var_names[0]); k++)
		if (strlen(var_names[k].name) == ref->name_len &&
		    !memcmp(var_names[k].name, ref->name, ref->name_len))
			ref->bit = var_names[k].bit;
	if (!ref->bit && ref->name_len >= 4 && !memcmp(ref->name, "env:", 4)) {
		if (!env_name_ok(ref->name + 4, ref->name_len - 4)) {
			sbuf_addf(err, "invalid environment variable name in '%.*s'",
				  (int)(ref->end - ref->start), in + i);
			return -1;
		}
		ref->bit = VAR_ENV;
	}
	if (!ref->bit) {
		char *name = xstrndup(ref->name, ref->name_len);
		const char *near = suggest_closest(name, var_candidates);
		sbuf_addf(err, "unknown variable '${%s}'", name);
		if (near)
			sbuf_addf(err, ", did you mean '${%s}'?", near);
		else
			sbuf_addf(err, " (known: ${artifact}, ${root}, ${head_root}, ${workdir}, "
				       "${exe}, ${env:NAME}; write '$${' for a literal '${')");
		free(name);
		return -1;
	}
	return 0;
}

int vars_present(const char *in)
{
	for (size_t i = 0; in[i]; i++) {
		if (in[i] != '$')
			continue;
		if (in[i + 1] == '$' && in[i + 2] == '{') {
			i += 2;
			continue;
		}
		if (in[i + 1] == '{')
			return 1;
	}
	return 0;
}

unsigned vars_path_prefix(const char *in, size_t *len)
{
	if (in[0] != '$' || in[1] != '{')
		return 0;
	struct var_ref ref;
	struct sbuf tmp = SBUF_INIT;
	int rc = parse_ref(in, 0, &ref, &tmp);
	sbuf_release(&tmp);
	if (rc || !(ref.bit & VAR_PATHS))
		return 0;
	*len = ref.end;
	return ref.bit;
}

int vars_check(const char *in, unsigned allowed, int shell, size_t *offset, struct sbuf *err)
{
	enum { Q_NONE, Q_SINGLE, Q_DOUBLE } q = Q_NONE;
	size_t last_var_end = (size_t)-1;
	size_t escaped = (size_t)-1; /* shell: in[escaped] follows a '\' */
	for (size_t i = 0; in[i]; i++) {
		char c = in[i];
		if (c == '$' && in[i + 1] == '$' && in[i + 2] == '{') {
			i += 2;
			continue;
		}
		if (c == '$' && in[i + 1] == '{') {
			struct var_ref ref;
			*offset = i;
			if (parse_ref(in, i, &ref, err))
				return -1;
			const char *what = ref.bit == VAR_ENV ? "${env:...}" : NULL;
			char *shown = xstrndup(in + ref.start, ref.end - ref.start);
			if (!(ref.bit & allowed)) {
				if (ref.bit == VAR_ARTIFACT)
					sbuf_addf(err,
						  "'%s' needs a top-level 'build' that produces it",
						  shown);
				else if (ref.bit == VAR_WORKDIR)
					sbuf_addf(err,
						  "'%s' is not available here (it exists only "
						  "while benchmarks run, not in 'build')",
						  shown);
				else
					sbuf_addf(err, "'%s' is not available here",
						  what ? what : shown);
				free(shown);
				return -1;
			}
			/*
			 * vars_expand() substitutes "\${x}" like "${x}"; the
			 * backslash would then escape kagari's opening quote
			 * and leave the value unquoted.
			 */
			if (shell && escaped == i) {
				sbuf_addf(err,
					  "'%s' follows a backslash; kagari quotes substituted "
					  "values itself, so remove the backslash (write '$${' for "
					  "a literal '${')",
					  shown);
				free(shown);
				return -1;
			}
			if (shell && q != Q_NONE) {
				sbuf_addf(err,
					  "'%s' is inside quotes; kagari quotes substituted values "
					  "itself, so remove the quotes around it",
					  shown);
				free(shown);
				return -1;
			}
			if (ref.bit & VAR_PATHS) {
				int after_var = last_var_end == i;
				char prev = i ? in[i - 1] : '\0';
				if (after_var || prev == '/' || prev == '.' || prev == '~' ||
				    prev == '\\') {
					sbuf_addf(err, "'%s' may only begin a path", shown);
					free(shown);
					return -1;
				}
			}
			free(shown);
			last_var_end = ref.end;
			i = ref.end - 1;
			continue;
		}
		if (!shell)
			continue;
		switch (q) {
		case Q_NONE:
			if (c == '\\' && in[i + 1] == '$')
				escaped = i + 1; /* looked at as a '$' next */
			else if (c == '\\' && in[i + 1])
				i++;
			else if (c == '\'')
				q = Q_SINGLE;
			else if (c == '"')
				q = Q_DOUBLE;
			break;
		case Q_SINGLE:
			if (c == '\'')
				q = Q_NONE;
			break;
		case Q_DOUBLE:
			if (c == '\\' && in[i + 1] == '$')
				escaped = i + 1;
			else if (c == '\\' && in[i + 1])
				i++;
			else if (c == '"')
				q = Q_NONE;
			break;
		}
	}
	return 0;
}

void vars_shell_quote(struct sbuf *out, const char *s)
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

int vars_expand(const char *in, const struct vars_context *ctx, int shell_quote, struct sbuf *out,
		struct sbuf *err)
{
	for (size_t i = 0; in[i]; i++) {
		if (in[i] != '$') {
			sbuf_addch(out, in[i]);
			continue;
		}
		if (in[i + 1] == '$' && in[i + 2] == '{') {
			sbuf_adds(out, "${");
			i += 2;
			continue;
		}
		if (in[i + 1] != '{') {
			sbuf_addch(out, '$');
			continue;
		}
		struct var_ref ref;
		if (parse_ref(in, i, &ref, err))
			return -1;
		const char *value = NULL;
		char *env_name = NULL;
		switch (ref.bit) {
		case VAR_ARTIFACT:
			value = ctx->artifact;
			break;
		case VAR_ROOT:
			value = ctx->root;
			break;
		case VAR_HEAD_ROOT:
			value = ctx->head_root;
			break;
		case VAR_WORKDIR:
			value = ctx->workdir;
			break;
		case VAR_EXE:
			value = ""; /* Linux: executables have no suffix */
			break;
		case VAR_ENV:
			env_name = xstrndup(ref.name + 4, ref.name_len - 4);
			value = ctx->env ? strvec_getenv(ctx->env, env_name) : getenv(env_name);
			if (!value) {
				sbuf_addf(
				    err,
				    "environment variable '%s' is not set (used as '${env:%s}')",
				    env_name, env_name);
				free(env_name);
				return -1;
			}
			free(env_name);
			break;
		}
		if (!value) {
			sbuf_addf(err, "variable '%.*s' has no value here",
				  (int)(ref.end - ref.start), in + ref.start);
			return -1;
		}
		if (shell_quote && ref.bit != VAR_EXE)
			vars_shell_quote(out, value);
		else
			sbuf_adds(out, value);
		i = ref.end - 1;
	}
	return 0;
}
