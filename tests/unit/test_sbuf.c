/*
 * base/sbuf: bytes written straight into reserved space are accounted for
 * by sbuf_extend(), which keeps the string NUL-terminated (the readers of
 * pipes, /proc files and the runner's frames rely on it).
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

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_extend),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
