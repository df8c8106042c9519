/*
 * Visible skips for the cmocka programs. A test that cannot run here calls
 * test_skip() with its reason; the program's main returns
 * test_skip_status(failed) so that CTest counts it as skipped (exit 77, the
 * SKIP_RETURN_CODE set in CMakeLists.txt) when nothing failed, and as failed
 * when something did: a skip never hides a failure.
 *
 * When the reason is a Debian package that scripts/deps.sh installs, pass its
 * name: under CI=true as root deps.sh has had every chance to install it, so
 * there the missing package is a failure, not a skip.
 */
#ifndef KAGARI_TEST_SKIP_H
#define KAGARI_TEST_SKIP_H

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static int test_skip_count;

static inline int test_skip_forbidden(void)
{
	const char *ci = getenv("CI");
	return ci && strcmp(ci, "true") == 0 && geteuid() == 0;
}

/* Ends the current cmocka test as skipped (or failed, see above). */
#define test_skip(why, package)                                                \
	do {                                                                   \
		const char *pkg_ = (package);                                  \
		if (pkg_ && test_skip_forbidden())                             \
			fail_msg("would skip (%s), but under CI=true as root "  \
				 "scripts/deps.sh installs %s",                \
				 (why), pkg_);                                 \
		print_message("SKIP: %s\n", (why));                            \
		test_skip_count++;                                             \
		skip();                                                        \
	} while (0)

/* main's return value from cmocka_run_group_tests()'s count of failures. */
static inline int test_skip_status(int failed)
{
	if (failed)
		return 1;
	if (test_skip_count) {
		printf("%d test(s) skipped; see the SKIP lines above\n",
		       test_skip_count);
		return 77;
	}
	return 0;
}

#endif
