/* Tests for suite/vars: load-time checks and run-time expansion. */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <stdlib.h>
#include <string.h>

#include "base/sbuf.h"
#include "base/strvec.h"
#include "suite/vars.h"

static void check_ok(const char *in, unsigned allowed, int shell)
{
	struct sbuf err = SBUF_INIT;
	size_t off = 0;
	if (vars_check(in, allowed, shell, &off, &err))
		fail_msg("'%s': %s", in, err.buf);
	sbuf_release(&err);
}

static void check_bad(const char *in, unsigned allowed, int shell,
		      size_t want_off, const char *frag)
{
	struct sbuf err = SBUF_INIT;
	size_t off = 999;
	if (!vars_check(in, allowed, shell, &off, &err))
		fail_msg("'%s' accepted", in);
	if (!strstr(err.buf, frag))
		fail_msg("'%s': '%s' lacks '%s'", in, err.buf, frag);
	if (off != want_off)
		fail_msg("'%s': offset %zu, want %zu", in, off, want_off);
	sbuf_release(&err);
}

static void test_check(void **state)
{
	(void)state;
	check_ok("", VAR_ALL, 0);
	check_ok("plain $HOME $ and $$ text", VAR_ALL, 1);
	check_ok("${artifact}", VAR_ALL, 0);
	check_ok("${artifact}${exe}", VAR_ALL, 0);
	check_ok("--out=${workdir}/x", VAR_ALL, 0);
	check_ok("-I${root}/include", VAR_ALL, 0);
	check_ok("a:${root}/bin", VAR_ALL, 0);
	check_ok("${env:PATH}/x", VAR_ALL, 0);
	check_ok("prefix-${env:A_1}-suffix", VAR_ALL, 0);
	check_ok("$${artifact}", 0, 0);
	check_ok("'$${x}'", 0, 1);
	check_ok("${artifact} --n 5 | wc -l > ${workdir}/o", VAR_ALL, 1);
	check_ok("echo 'a b' \"c\" ${root}/x", VAR_ALL, 1);
	check_ok("echo \\' ${root}", VAR_ALL, 1);
	/* Quotes only matter for shell strings. */
	check_ok("'${root}'", VAR_ALL, 0);

	check_bad("${nope}", VAR_ALL, 0, 0, "unknown variable '${nope}'");
	check_bad("x ${artifac}", VAR_ALL, 0, 2, "did you mean '${artifact}'?");
	check_bad("${ROOT}", VAR_ALL, 0, 0, "did you mean '${root}'?");
	check_bad("${env}", VAR_ALL, 0, 0, "unknown variable");
	check_bad("${env:}", VAR_ALL, 0, 0, "invalid environment variable name");
	check_bad("${env:A-B}", VAR_ALL, 0, 0, "invalid environment variable name");
	check_bad("abc ${root", VAR_ALL, 0, 4, "unterminated '${'");
	check_bad("${artifact}", VAR_ALL & ~VAR_ARTIFACT, 0, 0, "needs a top-level 'build'");
	check_bad("a ${workdir}", VAR_ALL & ~VAR_WORKDIR, 0, 2, "'${workdir}' is not available here");
	check_bad("x/${root}", VAR_ALL, 0, 2, "'${root}' may only begin a path");
	check_bad("${root}${head_root}", VAR_ALL, 0, 7, "'${head_root}' may only begin a path");
	check_bad("~${root}", VAR_ALL, 0, 1, "may only begin a path");
	check_bad("cat '${artifact}'", VAR_ALL, 1, 5, "inside quotes");
	check_bad("cat \"${env:HOME}/x\"", VAR_ALL, 1, 5, "inside quotes");
	check_bad("echo 'it''s' \"a ${root}\"", VAR_ALL, 1, 16, "inside quotes");
	check_bad("echo \"\\\" ${root}\"", VAR_ALL, 1, 9, "inside quotes");
}

static void test_prefix_present(void **state)
{
	(void)state;
	size_t len = 0;
	assert_int_equal(vars_path_prefix("${root}/x", &len), VAR_ROOT);
	assert_int_equal(len, 7);
	assert_int_equal(vars_path_prefix("${workdir}", &len), VAR_WORKDIR);
	assert_int_equal(vars_path_prefix("${exe}", &len), 0);
	assert_int_equal(vars_path_prefix("x${root}", &len), 0);
	assert_int_equal(vars_path_prefix("${nope}", &len), 0);
	assert_true(vars_present("a ${x}"));
	assert_false(vars_present("a $${x} $HOME"));
	assert_false(vars_present(""));
}

static void expand_ok(const char *in, const struct vars_context *ctx, int quote,
		      const char *want)
{
	struct sbuf out = SBUF_INIT, err = SBUF_INIT;
	if (vars_expand(in, ctx, quote, &out, &err))
		fail_msg("'%s': %s", in, err.buf);
	assert_string_equal(out.buf, want);
	sbuf_release(&out);
	sbuf_release(&err);
}

static void test_expand(void **state)
{
	(void)state;
	struct strvec env = STRVEC_INIT;
	strvec_push(&env, "NAME=it's");
	strvec_push(&env, "EMPTY=");
	struct vars_context ctx = { "/b/sort", "/repo", "/head", "/tmp/w d", &env, NULL, NULL };
	expand_ok("", &ctx, 0, "");
	expand_ok("${artifact}${exe} --n 5", &ctx, 0, "/b/sort --n 5");
	expand_ok("${root}:${head_root}", &ctx, 0, "/repo:/head");
	expand_ok("$${root} $$ $HOME $", &ctx, 0, "${root} $$ $HOME $");
	expand_ok("${env:NAME}", &ctx, 0, "it's");
	expand_ok("[${env:EMPTY}]", &ctx, 0, "[]");
	/* Shell quoting: every substituted value is one word for sh. */
	expand_ok("${artifact} > ${workdir}/o", &ctx, 1, "'/b/sort' > '/tmp/w d'/o");
	expand_ok("echo ${env:NAME}", &ctx, 1, "echo 'it'\\''s'");
	expand_ok("x${env:EMPTY}y", &ctx, 1, "x''y");
	expand_ok("${artifact}${exe}", &ctx, 1, "'/b/sort'");
	expand_ok("$${HOME}", &ctx, 1, "${HOME}");

	struct sbuf out = SBUF_INIT, err = SBUF_INIT;
	assert_int_equal(vars_expand("${env:UNSET_X}", &ctx, 0, &out, &err), -1);
	assert_non_null(strstr(err.buf, "environment variable 'UNSET_X' is not set"));
	sbuf_reset(&err);
	struct vars_context none = { NULL, "/r", NULL, NULL, &env, NULL, NULL };
	assert_int_equal(vars_expand("${artifact}", &none, 0, &out, &err), -1);
	assert_non_null(strstr(err.buf, "'${artifact}' has no value here"));
	sbuf_reset(&err);
	assert_int_equal(vars_expand("${bogus}", &ctx, 0, &out, &err), -1);
	sbuf_reset(&err);
	/* NULL env: the process environment. */
	setenv("KAGARI_TEST_VAR", "v a", 1);
	struct vars_context genv = { NULL, NULL, NULL, NULL, NULL, NULL, NULL };
	sbuf_reset(&out);
	assert_int_equal(vars_expand("${env:KAGARI_TEST_VAR}", &genv, 1, &out, &err), 0);
	assert_string_equal(out.buf, "'v a'");
	sbuf_release(&out);
	sbuf_release(&err);
	strvec_clear(&env);
}

static void test_shell_quote(void **state)
{
	(void)state;
	struct sbuf out = SBUF_INIT;
	vars_shell_quote(&out, "");
	assert_string_equal(out.buf, "''");
	sbuf_reset(&out);
	vars_shell_quote(&out, "a'b");
	assert_string_equal(out.buf, "'a'\\''b'");
	sbuf_reset(&out);
	vars_shell_quote(&out, "$(rm -rf /) `x` \"q\" \\");
	assert_string_equal(out.buf, "'$(rm -rf /) `x` \"q\" \\'");
	sbuf_release(&out);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_check),
		cmocka_unit_test(test_prefix_present),
		cmocka_unit_test(test_expand),
		cmocka_unit_test(test_shell_quote),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
