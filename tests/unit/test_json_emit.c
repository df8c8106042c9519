/* report/json_emit: structure, pretty printing, escaping, numbers. */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <float.h>
#include <jansson.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "report/json_emit.h"

/* Emit one string value and return the emitted text (caller frees). */
static char *quoted(const char *s, size_t len)
{
	struct sbuf sb = SBUF_INIT;
	json_quote(&sb, s, len);
	return sbuf_detach(&sb);
}

/* Parse `text` (a JSON string literal) with jansson; returns its value. */
static char *decode(const char *text)
{
	json_error_t e;
	json_t *j = json_loads(text, JSON_DECODE_ANY | JSON_ALLOW_NUL, &e);
	assert_non_null(j);
	assert_true(json_is_string(j));
	size_t n = json_string_length(j);
	char *out = malloc(n + 1);
	memcpy(out, json_string_value(j), n + 1);
	json_decref(j);
	return out;
}

static void test_pretty_structure(void **state)
{
	(void)state;
	struct sbuf sb = SBUF_INIT;
	struct json_emit j;

	json_emit_init(&j, &sb, 1);
	json_emit_begin_object(&j);
	json_emit_kv_string(&j, "name", "demo");
	json_emit_key(&j, "list");
	json_emit_begin_array(&j);
	json_emit_int(&j, 1);
	json_emit_bool(&j, 0);
	json_emit_null(&j);
	json_emit_end_array(&j);
	json_emit_key(&j, "empty");
	json_emit_begin_object(&j);
	json_emit_end_object(&j);
	json_emit_key(&j, "none");
	json_emit_begin_array(&j);
	json_emit_end_array(&j);
	json_emit_key(&j, "samples");
	json_emit_begin_array(&j);
	json_emit_begin_object_inline(&j);
	json_emit_kv_int(&j, "round", 1);
	json_emit_key(&j, "xs");
	json_emit_begin_array(&j); /* inside an inline object: inline too */
	json_emit_int(&j, 2);
	json_emit_int(&j, 3);
	json_emit_end_array(&j);
	json_emit_end_object(&j);
	json_emit_end_array(&j);
	json_emit_end_object(&j);
	assert_int_equal(json_emit_finish(&j), 0);
	assert_string_equal(sb.buf, "{\n"
				    "  \"name\": \"demo\",\n"
				    "  \"list\": [\n"
				    "    1,\n"
				    "    false,\n"
				    "    null\n"
				    "  ],\n"
				    "  \"empty\": {},\n"
				    "  \"none\": [],\n"
				    "  \"samples\": [\n"
				    "    {\"round\": 1, \"xs\": [2, 3]}\n"
				    "  ]\n"
				    "}");
	sbuf_release(&sb);
}

static void test_compact_and_ints(void **state)
{
	(void)state;
	struct sbuf sb = SBUF_INIT;
	struct json_emit j;

	json_emit_init(&j, &sb, 0);
	json_emit_begin_array(&j);
	json_emit_int(&j, INT64_MIN);
	json_emit_uint(&j, UINT64_MAX);
	json_emit_begin_object(&j);
	json_emit_kv_double(&j, "x", 0.5);
	json_emit_kv_string(&j, "s", NULL);
	json_emit_end_object(&j);
	json_emit_end_array(&j);
	assert_int_equal(json_emit_finish(&j), 0);
	assert_string_equal(sb.buf, "[-9223372036854775808,"
				    "18446744073709551615,"
				    "{\"x\":0.5,\"s\":null}]");
	sbuf_release(&sb);
}

static void test_misuse_detected(void **state)
{
	(void)state;
	struct sbuf sb = SBUF_INIT;
	struct json_emit j;

	/* a value without a key inside an object */
	json_emit_init(&j, &sb, 1);
	json_emit_begin_object(&j);
	json_emit_int(&j, 1);
	json_emit_end_object(&j);
	assert_int_equal(json_emit_finish(&j), -1);

	/* a key inside an array */
	json_emit_init(&j, &sb, 1);
	json_emit_begin_array(&j);
	json_emit_key(&j, "k");
	json_emit_int(&j, 1);
	json_emit_end_array(&j);
	assert_int_equal(json_emit_finish(&j), -1);

	/* unbalanced */
	json_emit_init(&j, &sb, 1);
	json_emit_begin_array(&j);
	assert_int_equal(json_emit_finish(&j), -1);

	/* mismatched end */
	json_emit_init(&j, &sb, 1);
	json_emit_begin_array(&j);
	json_emit_end_object(&j);
	assert_int_equal(json_emit_finish(&j), -1);

	/* two top-level values */
	json_emit_init(&j, &sb, 1);
	json_emit_int(&j, 1);
	json_emit_int(&j, 2);
	assert_int_equal(json_emit_finish(&j), -1);

	/* nothing at all */
	json_emit_init(&j, &sb, 1);
	assert_int_equal(json_emit_finish(&j), -1);

	/* a dangling key */
	json_emit_init(&j, &sb, 1);
	json_emit_begin_object(&j);
	json_emit_key(&j, "k");
	json_emit_end_object(&j);
	assert_int_equal(json_emit_finish(&j), -1);
	sbuf_release(&sb);
}

static void test_escaping(void **state)
{
	(void)state;
	char *q, *d;

	q = quoted("a\"b\\c", 5);
	assert_string_equal(q, "\"a\\\"b\\\\c\"");
	free(q);

	q = quoted("\n\t\r\b\f\x01\x1f\x7f", 8);
	assert_string_equal(q, "\"\\n\\t\\r\\b\\f\\u0001\\u001f\\u007f\"");
	d = decode(q);
	assert_string_equal(d, "\n\t\r\b\f\x01\x1f\x7f");
	free(d);
	free(q);

	/* NUL inside a counted string */
	q = quoted("a\0b", 3);
	assert_string_equal(q, "\"a\\u0000b\"");
	free(q);

	/* safe inside an HTML <script>; a plain "<=" stays readable */
	q = quoted("</script><!-- <= 3", 18);
	assert_null(strstr(q, "</"));
	assert_null(strstr(q, "<!"));
	assert_non_null(strstr(q, "<= 3"));
	d = decode(q);
	assert_string_equal(d, "</script><!-- <= 3");
	free(d);
	free(q);

	/* valid UTF-8 passes through; U+2028/2029 are escaped */
	q = quoted("é€😀\xe2\x80\xa8\xe2\x80\xa9",
		   strlen("é€😀\xe2\x80\xa8\xe2\x80\xa9"));
	assert_string_equal(q, "\"é€😀\\u2028\\u2029\"");
	free(q);
}

static void test_invalid_utf8(void **state)
{
	(void)state;
	static const struct {
		const char *in;
		const char *out;
	} cases[] = {
		{ "a\xff" "b", "a\xEF\xBF\xBD" "b" },
		/* overlong '/' : two invalid bytes */
		{ "\xc0\xaf", "\xEF\xBF\xBD\xEF\xBF\xBD" },
		/* truncated 3-byte sequence at the end: one U+FFFD */
		{ "x\xe2\x82", "x\xEF\xBF\xBD" },
		/* truncated sequence followed by ASCII */
		{ "\xe2\x82" "z", "\xEF\xBF\xBD" "z" },
		/* a UTF-16 surrogate encoded in UTF-8 */
		{ "\xed\xa0\x80", "\xEF\xBF\xBD\xEF\xBF\xBD\xEF\xBF\xBD" },
		/* above U+10FFFF */
		{ "\xf4\x90\x80\x80",
		  "\xEF\xBF\xBD\xEF\xBF\xBD\xEF\xBF\xBD\xEF\xBF\xBD" },
		/* a lone continuation byte */
		{ "\x80", "\xEF\xBF\xBD" },
	};
	for (size_t i = 0; i < sizeof(cases) / sizeof(*cases); i++) {
		char *q = quoted(cases[i].in, strlen(cases[i].in));
		char *d = decode(q); /* jansson rejects invalid UTF-8 */
		assert_string_equal(d, cases[i].out);
		free(d);
		free(q);
	}
}

static void test_utf8_next(void **state)
{
	(void)state;
	uint32_t cp;
	assert_int_equal(json_utf8_next("A", 1, &cp), 1);
	assert_int_equal(cp, 'A');
	assert_int_equal(json_utf8_next("é", 2, &cp), 2);
	assert_int_equal(cp, 0xE9);
	assert_int_equal(json_utf8_next("😀", 4, &cp), 4);
	assert_int_equal(cp, 0x1F600);
	assert_int_equal(json_utf8_next("\xf0\x9f\x98", 3, &cp), 3);
	assert_int_equal(cp, 0xFFFD);
}

static void check_double(double v, const char *want)
{
	struct sbuf sb = SBUF_INIT;
	json_format_double(&sb, v);
	if (want)
		assert_string_equal(sb.buf, want);
	/* it must read back as exactly v */
	assert_true(strtod(sb.buf, NULL) == v);
	sbuf_release(&sb);
}

static void test_doubles(void **state)
{
	(void)state;
	struct sbuf sb = SBUF_INIT;

	check_double(0.1, "0.1");
	check_double(1.0, "1.0");
	check_double(-0.0, "-0.0");
	check_double(0.1 + 0.2, "0.30000000000000004");
	check_double(123456789.0, "123456789.0");
	check_double(1e300, "1e+300");
	check_double(5e-324, NULL); /* subnormal: round trip only */
	check_double(DBL_MAX, "1.7976931348623157e+308");
	check_double(1.0 / 3.0, "0.3333333333333333");
	check_double(2.5e-7, "2.5e-07");
	/* many values: always the round trip */
	double x = 1.2345;
	for (int i = 0; i < 2000; i++) {
		check_double(x, NULL);
		check_double(-x / 7.0, NULL);
		x *= 1.0173;
	}

	json_format_double(&sb, NAN);
	json_format_double(&sb, INFINITY);
	assert_string_equal(sb.buf, "nullnull");
	sbuf_reset(&sb);
	json_format_double_plain(&sb, NAN);
	assert_string_equal(sb.buf, "");
	json_format_double_plain(&sb, 2.0);
	assert_string_equal(sb.buf, "2");
	sbuf_release(&sb);

	/* a real stays a real for jansson */
	struct json_emit j;
	json_emit_init(&j, &sb, 0);
	json_emit_begin_array(&j);
	json_emit_double(&j, 3.0);
	json_emit_double(&j, -NAN);
	json_emit_end_array(&j);
	assert_int_equal(json_emit_finish(&j), 0);
	json_t *a = json_loads(sb.buf, 0, NULL);
	assert_non_null(a);
	assert_true(json_is_real(json_array_get(a, 0)));
	assert_true(json_is_null(json_array_get(a, 1)));
	json_decref(a);
	sbuf_release(&sb);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_pretty_structure),
		cmocka_unit_test(test_compact_and_ints),
		cmocka_unit_test(test_misuse_detected),
		cmocka_unit_test(test_escaping),
		cmocka_unit_test(test_invalid_utf8),
		cmocka_unit_test(test_utf8_next),
		cmocka_unit_test(test_doubles),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
