/*
 * fuzz/fuzz_vars: libFuzzer target for variable checking and expansion
 * (suite/vars.h).
 *
 * Input layout: byte 0 holds the `allowed` mask (low 6 bits) and the shell
 * flag (bit 6); the rest, up to the first NUL, is the string.
 *
 * Invariants checked besides memory safety (abort() on violation):
 *   - vars_check() failure: a one-line reason (unless it quotes a newline
 *     of the input), and *offset points at the
 *     "${" of the offending reference;
 *   - vars_path_prefix(): a non-zero result is a path variable and its
 *     length ends on the closing brace;
 *   - a string without variables (vars_present() == 0) expands to itself
 *     with every "$${" turned into "${", in both quoting modes;
 *   - a string that passes vars_check(VAR_ALL) expands without error when
 *     every value is known (the environment holds every name it asks for);
 *   - with shell quoting, every substituted value (chosen to hold quotes,
 *     blanks, `$(...)` and backslashes) reaches /bin/sh as one word: the
 *     output, read back with POSIX single-quote rules, equals the unquoted
 *     expansion;
 *   - vars_shell_quote() round-trips any string.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/sbuf.h"
#include "base/strvec.h"
#include "suite/vars.h"

/* Values with everything a shell would misread. */
#define V_ARTIFACT "/b u'ild/a$(touch x)\"`y`"
#define V_ROOT "/r o;o't\\"
#define V_HEAD "/h*e?a[d]"
#define V_WORKDIR "/w\tork dir/'"

static void vars_fail(const char *what, const char *in, const struct sbuf *a,
		 const struct sbuf *b)
{
	fprintf(stderr, "fuzz_vars invariant violated: %s\ninput: '%s'\n", what, in);
	if (a && a->len)
		fprintf(stderr, "1: %s\n", a->buf);
	if (b && b->len)
		fprintf(stderr, "2: %s\n", b->buf);
	abort();
}

/*
 * Read `q` back as sh would for a text whose only quoting is kagari's own
 * single quotes (with the literal text containing no quotes or backslashes
 * outside them): drop the quotes, turn '\'' into '.
 */
static void sh_unquote_words(const char *q, struct sbuf *out)
{
	int in_single = 0;
	for (const char *p = q; *p; p++) {
		if (in_single) {
			if (*p == '\'')
				in_single = 0;
			else
				sbuf_addch(out, *p);
		} else if (*p == '\'') {
			in_single = 1;
		} else if (*p == '\\' && p[1]) {
			sbuf_addch(out, *++p);
		} else {
			sbuf_addch(out, *p);
		}
	}
}

/* Names of ${env:NAME} references in `in`, as NAME=value entries. */
static void collect_env(const char *in, struct strvec *env)
{
	for (size_t i = 0; in[i]; i++) {
		if (in[i] != '$')
			continue;
		if (in[i + 1] == '$' && in[i + 2] == '{') {
			i += 2;
			continue;
		}
		if (in[i + 1] != '{')
			continue;
		const char *close = strchr(in + i + 2, '}');
		if (!close)
			return;
		if (!strncmp(in + i + 2, "env:", 4)) {
			struct sbuf e = SBUF_INIT;
			sbuf_add(&e, in + i + 6, (size_t)(close - (in + i + 6)));
			sbuf_adds(&e, "=v a'l");
			strvec_push(env, e.buf);
			sbuf_release(&e);
		}
		i = (size_t)(close - in);
	}
}

static void check_literal(const char *in, int shell_quote)
{
	struct sbuf out = SBUF_INIT, err = SBUF_INIT, want = SBUF_INIT;
	struct vars_context ctx = { 0 };
	if (vars_expand(in, &ctx, shell_quote, &out, &err))
		vars_fail("a string without variables did not expand", in, &err, NULL);
	for (const char *p = in; *p; p++) {
		if (p[0] == '$' && p[1] == '$' && p[2] == '{') {
			sbuf_adds(&want, "${");
			p += 2;
		} else {
			sbuf_addch(&want, *p);
		}
	}
	if (strcmp(out.buf, want.buf))
		vars_fail("a string without variables changed", in, &out, &want);
	sbuf_release(&out);
	sbuf_release(&err);
	sbuf_release(&want);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	if (size < 1)
		return 0;
	unsigned allowed = data[0] & VAR_ALL;
	int shell = (data[0] >> 6) & 1;
	char *in = strndup((const char *)data + 1, size - 1);
	if (!in)
		abort();
	size_t len = strlen(in);

	struct sbuf err = SBUF_INIT;
	size_t off = (size_t)-1;
	int rc = vars_check(in, allowed, shell, &off, &err);
	if (rc) {
		if (rc != -1 || !err.len ||
		    (!strchr(in, '\n') && strchr(err.buf, '\n')))
			vars_fail("vars_check: bad failure report", in, &err, NULL);
		if (off >= len || in[off] != '$' || in[off + 1] != '{')
			vars_fail("vars_check: offset does not point at '${'", in, &err, NULL);
	} else if (err.len) {
		vars_fail("vars_check: success with a message", in, &err, NULL);
	}
	sbuf_release(&err);

	size_t plen = 0;
	unsigned bit = vars_path_prefix(in, &plen);
	if (bit && (!(bit & VAR_PATHS) || plen > len || in[plen - 1] != '}'))
		vars_fail("vars_path_prefix: bad result", in, NULL, NULL);

	if (!vars_present(in)) {
		check_literal(in, 0);
		check_literal(in, 1);
	}

	/* Full context: everything known. */
	size_t off2;
	struct sbuf e2 = SBUF_INIT;
	if (!vars_check(in, VAR_ALL, shell, &off2, &e2)) {
		struct strvec env = STRVEC_INIT;
		collect_env(in, &env);
		struct vars_context ctx = { V_ARTIFACT, V_ROOT, V_HEAD, V_WORKDIR, &env, NULL, NULL };
		struct sbuf plain = SBUF_INIT, quoted = SBUF_INIT, err3 = SBUF_INIT;
		if (vars_expand(in, &ctx, 0, &plain, &err3))
			vars_fail("a checked string did not expand", in, &err3, NULL);
		if (vars_expand(in, &ctx, 1, &quoted, &err3))
			vars_fail("a checked string did not expand (quoted)", in, &err3, NULL);
		/*
		 * Only when the user's own text holds no shell quoting can the
		 * quoted output be read back with the simple rules above.
		 */
		if (!strpbrk(in, "'\"\\")) {
			struct sbuf back = SBUF_INIT;
			sh_unquote_words(quoted.buf, &back);
			if (strcmp(back.buf, plain.buf))
				vars_fail("quoted expansion does not read back as the plain one",
				     in, &quoted, &plain);
			sbuf_release(&back);
		}
		sbuf_release(&plain);
		sbuf_release(&quoted);
		sbuf_release(&err3);
		strvec_clear(&env);
	}
	sbuf_release(&e2);

	struct sbuf q = SBUF_INIT, back = SBUF_INIT;
	vars_shell_quote(&q, in);
	sh_unquote_words(q.buf, &back);
	if (strcmp(back.buf, in))
		vars_fail("vars_shell_quote does not round-trip", in, &q, &back);
	sbuf_release(&q);
	sbuf_release(&back);
	free(in);
	return 0;
}
