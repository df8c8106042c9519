/*
 * base/sbuf: bytes written straight into reserved space are accounted for
 * by sbuf_extend(), which keeps the string NUL-terminated (the readers of
 * pipes, /proc files and the runner's frames rely on it); text kagari did
 * not write is shown with its control characters escaped (sbuf_add_escaped).
 */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>
#include <string.h>

#include "base/sbuf.h"

static void test_extend(void **state)
{
	(void)state;
	struct sbuf sb = SBUF_INIT;
	sbuf_adds(&sb, "ab");
	sbuf_grow(&sb, 100);
	memcpy(sb.buf + sb.len, "cdefXXXX", 8);
	sbuf_extend(&sb, 4);
	assert_int_equal(sb.len, 6);
	assert_string_equal(sb.buf, "abcdef");
	sbuf_extend(&sb, 0);
	assert_string_equal(sb.buf, "abcdef");
	sbuf_release(&sb);

	/* an empty, unallocated buffer: nothing read, nothing changes */
	struct sbuf e = SBUF_INIT;
	sbuf_extend(&e, 0);
	assert_int_equal(e.len, 0);
	assert_string_equal(e.buf, "");
}

static void escaped(const char *in, const char *want)
{
	struct sbuf sb = SBUF_INIT;
	sbuf_add_escaped(&sb, in);
	assert_string_equal(sb.buf, want);
	sbuf_release(&sb);
}

static void test_escaped(void **state)
{
	(void)state;
	/* a line break, workflow commands and terminal escapes stay one line */
	escaped("a\n::error::x", "a\\n::error::x");
	escaped("\r\t\x1b]0;title\x07\x1b[2J\x7f", "\\r\\t\\x1b]0;title\\x07\\x1b[2J\\x7f");
	/* C1 controls (CSI U+009B, NEL U+0085), bytes that are not UTF-8 */
	escaped("\xc2\x9b"
		"2J \xc2\x85",
		"\\xc2\\x9b2J \\xc2\\x85");
	escaped("\x9b\xff\xc3(\xe2\x82", "\\x9b\\xff\\xc3(\\xe2\\x82");
	escaped("\xc0\xaf\xed\xa0\x80", "\\xc0\\xaf\\xed\\xa0\\x80"); /* overlong, surrogate */
	/* bidirectional controls: the text would show in another order */
	escaped("a\xe2\x80\xae"
		"b\xe2\x81\xa6",
		"a\\u202eb\\u2066");
	/* what may be shown is kept, non-ASCII included */
	escaped("Intel(R) Xeon \xc3\xa9 \xe2\x80\x94 \xf0\x9f\x98\x80 \xc2\xa0",
		"Intel(R) Xeon \xc3\xa9 \xe2\x80\x94 \xf0\x9f\x98\x80 \xc2\xa0");
	escaped("", "");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_extend),
	    cmocka_unit_test(test_escaped),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
