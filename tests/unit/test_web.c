/*
 * git/web: commit links derived from remote URLs (GitHub, GitLab, their
 * self-hosted hosts; https, ssh and scp-like), never with the remote's
 * credentials; --commit-url templates checked; {sha} filled in.
 */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>
#include <stdlib.h>
#include <string.h>

#include "base/sbuf.h"
#include "git/web.h"

static void from(const char *url, const char *want, const char *want_page)
{
	char *t = NULL, *p = NULL;
	int rc = git_web_from_remote(url, &t, &p);
	if (!want) {
		if (rc != -1 || t || p)
			fail_msg("'%s' gave '%s', want none", url, t ? t : "(null)");
		return;
	}
	if (rc || !t || strcmp(t, want) || strcmp(p, want_page))
		fail_msg("'%s' gave '%s' '%s', want '%s' '%s'", url, t ? t : "(null)",
			 p ? p : "(null)", want, want_page);
	free(t);
	free(p);
}

static void test_from_remote(void **state)
{
	(void)state;
	from("https://github.com/o/r.git", "https://github.com/o/r/commit/{sha}", "https://github.com/o/r");
	from("https://github.com/o/r", "https://github.com/o/r/commit/{sha}", "https://github.com/o/r");
	from("https://github.com/o/r/", "https://github.com/o/r/commit/{sha}", "https://github.com/o/r");
	from("git@github.com:o/r.git", "https://github.com/o/r/commit/{sha}", "https://github.com/o/r");
	from("ssh://git@github.com:22/o/r.git", "https://github.com/o/r/commit/{sha}", "https://github.com/o/r");
	from("git://github.com/o/r.git", "https://github.com/o/r/commit/{sha}", "https://github.com/o/r");
	/* Credentials are never kept: a user, a password, a token. */
	from("https://x-access-token:ghs_SECRET@github.com/o/r.git",
	     "https://github.com/o/r/commit/{sha}", "https://github.com/o/r");
	from("https://gitlab-ci-token:glcbt-SECRET@gitlab.com/group/sub/p.git",
	     "https://gitlab.com/group/sub/p/-/commit/{sha}", "https://gitlab.com/group/sub/p");
	from("https://user:p%40ss@gitlab.example.org:8443/g/p.git",
	     "https://gitlab.example.org:8443/g/p/-/commit/{sha}", "https://gitlab.example.org:8443/g/p");
	from("git@github.example.com:team/tool.git",
	     "https://github.example.com/team/tool/commit/{sha}", "https://github.example.com/team/tool");
	/* Nothing kagari can tell: another forge, a path, odd characters. */
	from("https://bitbucket.org/o/r.git", NULL, NULL);
	from("/srv/git/r.git", NULL, NULL);
	from("file:///srv/git/r.git", NULL, NULL);
	from("../r", NULL, NULL);
	from("https://github.com/o", NULL, NULL);
	from("https://github.com/o/r\"><script>.git", NULL, NULL);
	from("https://github.com/o/../r.git", NULL, NULL);
	from("https://github.com:x/o/r.git", NULL, NULL);
	from("", NULL, NULL);
}

static void test_template(void **state)
{
	(void)state;
	struct sbuf err = SBUF_INIT;
	assert_int_equal(git_web_check_template("https://git.example.org/r/c/{sha}", &err), 0);
	assert_int_equal(git_web_check_template("javascript:alert(1)//{sha}", &err), -1);
	assert_non_null(strstr(err.buf, "not an http:// or https:// address"));
	sbuf_reset(&err);
	assert_int_equal(git_web_check_template("https://example.org/commit/", &err), -1);
	assert_non_null(strstr(err.buf, "has no {sha}"));
	sbuf_reset(&err);
	assert_int_equal(git_web_check_template("https://example.org/\"x/{sha}", &err), -1);
	assert_int_equal(git_web_check_template("https://example.org/ x/{sha}", &err), -1);
	sbuf_release(&err);
	struct sbuf u = SBUF_INIT;
	git_web_commit_url(&u, "https://h/{sha}?x={sha}", "abc");
	assert_string_equal(u.buf, "https://h/abc?x=abc");
	sbuf_release(&u);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_from_remote),
		cmocka_unit_test(test_template),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
