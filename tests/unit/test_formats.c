/*
 * Tests for model/formats: the one table of report formats. Every format
 * has one name that parses back to it; the lists the preprocessor builds
 * from the table (--format choices and help of every command, bench's
 * larger set, the suite file's names) hold exactly the rows of their
 * scope, in the table's order, and name only formats that parse.
 */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <stdlib.h>
#include <string.h>

#include "base/sbuf.h"
#include "model/formats.h"

/* hyperfine's csv and markdown layouts: `kagari bench` only. */
static int bench_only(enum report_format f)
{
	return f == REPORT_HYPERFINE_CSV || f == REPORT_HYPERFINE_MARKDOWN;
}

static void test_round_trip(void **state)
{
	(void)state;
	for (int i = 0; i < REPORT_FORMAT__COUNT; i++) {
		enum report_format f = REPORT_FORMAT__COUNT;
		const char *name = report_format_name((enum report_format)i);
		assert_string_not_equal(name, "unknown");
		assert_int_equal(report_format_parse(name, &f), 0);
		assert_int_equal(f, i);
		for (int j = 0; j < i; j++)
			assert_string_not_equal(report_format_name((enum report_format)j), name);
	}
	enum report_format f = REPORT_HTML;
	assert_int_equal(report_format_parse("yaml", &f), -1);
	assert_int_equal(report_format_parse("", &f), -1);
	assert_int_equal(report_format_parse("hyperfine", &f), -1);
	assert_int_equal(f, REPORT_HTML); /* untouched */
	assert_string_equal(report_format_name(REPORT_FORMAT__COUNT), "unknown");
}

/* The names of the table in order, joined by sep; bench: with its own. */
static void expected(struct sbuf *sb, const char *sep, int bench)
{
	for (int i = 0; i < REPORT_FORMAT__COUNT; i++) {
		if (bench_only((enum report_format)i) && !bench)
			continue;
		sbuf_addf(sb, "%s%s", sb->len ? sep : "",
			  report_format_name((enum report_format)i));
	}
}

static void test_lists(void **state)
{
	struct sbuf sb = SBUF_INIT;
	(void)state;
	expected(&sb, "|", 0);
	assert_string_equal(REPORT_FORMAT_CHOICES, sb.buf);
	sbuf_reset(&sb);
	expected(&sb, "|", 1);
	assert_string_equal(REPORT_FORMAT_CHOICES_BENCH, sb.buf);

	/* The suite file's names: every command's, NULL-terminated. */
	static const char *const names[] = { REPORT_FORMAT_NAMES };
	sbuf_reset(&sb);
	for (size_t i = 0; names[i]; i++)
		sbuf_addf(&sb, "%s%s", i ? "|" : "", names[i]);
	assert_string_equal(sb.buf, REPORT_FORMAT_CHOICES);
	assert_null(names[sizeof(names) / sizeof(names[0]) - 1]);

	/* --help: the same names, the default and Bencher said. */
	sbuf_reset(&sb);
	expected(&sb, ", ", 0);
	char *plain = strdup(REPORT_FORMAT_HELP);
	assert_non_null(plain);
	assert_non_null(strstr(plain, "table (default), json, "));
	assert_non_null(strstr(plain, "bmf (Bencher)"));
	char *p;
	while ((p = strstr(plain, " (default)")) || (p = strstr(plain, " (Bencher)")))
		memmove(p, p + 10, strlen(p + 10) + 1);
	assert_string_equal(plain, sb.buf);
	free(plain);
	sbuf_release(&sb);
}

/* docs/contract.md's list of --format values is the table's. */
static void test_contract(void **state)
{
	(void)state;
	assert_string_equal(REPORT_FORMAT_CHOICES,
			    "table|json|csv|samples-csv|markdown|github|html|"
			    "hyperfine-json|bmf|junit");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_round_trip),
		cmocka_unit_test(test_lists),
		cmocka_unit_test(test_contract),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
