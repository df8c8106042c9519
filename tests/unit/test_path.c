/*
 * base/path: normalisation and containment, "/" and look-alike prefixes
 * included (the copies this replaced said nothing was inside "/").
 */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>
#include <stdlib.h>
#include <string.h>

#include "base/path.h"
#include "base/sbuf.h"

static void norm(const char *in, const char *want)
{
	char *got = path_normalize(in);
	if (strcmp(got, want))
		fail_msg("path_normalize(\"%s\") = \"%s\", want \"%s\"", in, got, want);
	free(got);
}

static void test_normalize(void **state)
{
	(void)state;
	norm("/a//b/./c/../d", "/a/b/d");
	norm("/", "/");
	norm("", "/");
	norm("/..", "/");
	norm("/a/../..", "/");
	norm("/a/b/", "/a/b");
	norm("a/./b", "/a/b");
}

static void in(const char *path, const char *root, const char *want)
{
	const char *got = path_inside(path, root);
	if (want ? !got || strcmp(got, want) : got != NULL)
		fail_msg("path_inside(\"%s\", \"%s\") = %s%s%s, want %s", path, root,
			 got ? "\"" : "", got ? got : "NULL", got ? "\"" : "",
			 want ? want : "NULL");
}

static void test_inside(void **state)
{
	(void)state;
	in("/a/b/c", "/a", "b/c");
	in("/a/b/c", "/a/", "b/c");
	in("/a", "/a", "");
	in("/ab", "/a", NULL);
	in("/b/a", "/a", NULL);
	in("/", "/a", NULL);
	/* the root holds everything */
	in("/a/b", "/", "a/b");
	in("/", "/", "");
	in("/a/b", "//", "a/b");
	in(NULL, "/", NULL);
	in("/a", NULL, NULL);
}

static void test_components(void **state)
{
	(void)state;
	const char *p = "//a/./bc//d/", *c;
	const char *want[] = {"a", ".", "bc", "d"};
	size_t n, k = 0;
	while ((c = path_component(&p, &n))) {
		assert_true(k < 4);
		assert_int_equal(n, strlen(want[k]));
		assert_memory_equal(c, want[k], n);
		k++;
	}
	assert_int_equal(k, 4);
	p = "///";
	assert_null(path_component(&p, &n));
}

static void clean(const char *in, int want_rc, const char *want)
{
	struct sbuf out = SBUF_INIT;
	int rc = path_clean_relative(in, &out);
	if (rc != want_rc || (!rc && strcmp(out.buf, want)))
		fail_msg("path_clean_relative(\"%s\") = %d \"%s\", want %d \"%s\"", in, rc, out.buf,
			 want_rc, want ? want : "");
	sbuf_release(&out);
}

static void test_clean_relative(void **state)
{
	(void)state;
	clean("a/b", 0, "a/b");
	clean("./a//b/", 0, "a/b");
	clean(".", 0, "");
	clean("", 0, "");
	clean("a/./.b/c.", 0, "a/.b/c.");
	clean("a/../b", -1, NULL);
	clean("..", -1, NULL);
	clean("a/..b/...", 0, "a/..b/...");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_normalize),
	    cmocka_unit_test(test_inside),
	    cmocka_unit_test(test_components),
	    cmocka_unit_test(test_clean_relative),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
