/*
 * base/tmpdir: which folders prune may remove (kagari's names, kagari's
 * lock files, a lock nobody holds) and the fallback on a filesystem
 * without flock (tmpdir_flock replaced by one that fails as such a
 * filesystem's does): the folder is made unlocked, a warning is given
 * once, and no other kagari ever prunes it.
 */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

#include "base/sbuf.h"
#include "base/tmpdir.h"
#include "base/xalloc.h"

static char *base;
static int fake_errno;

static int flock_fails(int fd, int op)
{
	(void)fd;
	(void)op;
	errno = fake_errno;
	return -1;
}

static int exists(const char *path)
{
	struct stat st;
	return lstat(path, &st) == 0;
}

static int always_gone(const char *owner)
{
	(void)owner;
	return 1;
}

static void write_text(const char *path, const char *text)
{
	FILE *f = fopen(path, "w");
	assert_non_null(f);
	fputs(text, f);
	assert_int_equal(fclose(f), 0);
}

static void test_unsupported_decision(void **state)
{
	(void)state;
	assert_true(tmpdir_flock_unsupported(EOPNOTSUPP));
	assert_true(tmpdir_flock_unsupported(ENOLCK));
	assert_true(tmpdir_flock_unsupported(ENOSYS));
	assert_false(tmpdir_flock_unsupported(EWOULDBLOCK));
	assert_false(tmpdir_flock_unsupported(EIO));
	assert_false(tmpdir_flock_unsupported(EACCES));
}

static void test_no_flock_fallback(void **state)
{
	struct sbuf warn = SBUF_INIT, err = SBUF_INIT;
	int fd = 0;
	(void)state;
	fake_errno = EOPNOTSUPP;
	tmpdir_flock = flock_fails;
	char *a = tmpdir_create_locked("kagari", &fd, &warn, &err);
	assert_non_null(a);
	assert_int_equal(fd, -1);
	assert_int_equal(err.len, 0);
	assert_non_null(strstr(warn.buf, "does not support flock"));
	/* No lock file is left: a free lock would say its maker is gone. */
	char *lock = xstrfmt("%s/lock", a);
	assert_false(exists(lock));
	/* Warned once per process. */
	sbuf_reset(&warn);
	char *b = tmpdir_create_locked("kagari-compare", &fd, &warn, &err);
	assert_non_null(b);
	assert_int_equal(fd, -1);
	assert_int_equal(warn.len, 0);
	/* Another error is still one: the folder is not made. */
	fake_errno = EIO;
	assert_null(tmpdir_create_locked("kagari", &fd, &warn, &err));
	assert_non_null(strstr(err.buf, "cannot lock"));
	tmpdir_flock = flock;
	/* Another kagari (with flock) never prunes the unlocked ones. */
	tmpdir_prune("kagari", always_gone);
	assert_true(exists(a));
	assert_true(exists(b));
	assert_int_equal(tmpdir_remove(a), 0);
	assert_int_equal(tmpdir_remove(b), 0);
	free(lock);
	free(a);
	free(b);
	sbuf_release(&warn);
	sbuf_release(&err);
}

static void test_prune_only_kagaris(void **state)
{
	struct sbuf warn = SBUF_INIT, err = SBUF_INIT;
	int fd = -1;
	(void)state;
	/* A live kagari's folder (its lock held) stays; once free it goes. */
	char *live = tmpdir_create_locked("kagari-bench", &fd, &warn, &err);
	assert_non_null(live);
	assert_true(fd >= 0);
	tmpdir_prune("kagari", always_gone);
	assert_true(exists(live));
	close(fd);
	tmpdir_prune("kagari", always_gone);
	assert_false(exists(live));
	/* A user's folders with a plain, free `lock`: not named as kagari
	   names its folders, or named so without kagari's first line. */
	static const char *const users[] = { "kagari-mine", "kagari-abcdef", "kagari-compare-Ab12Cd",
					     "kagari-x-Ab12Cd", "kagari-abcdefg" };
	for (size_t i = 0; i < sizeof(users) / sizeof(users[0]); i++) {
		char *d = xstrfmt("%s/%s", base, users[i]), *l = xstrfmt("%s/lock", d);
		assert_int_equal(mkdir(d, 0700), 0);
		write_text(l, "my own lock\n");
		free(l);
		free(d);
	}
	/* An owner file without kagari's first line is not kagari's either. */
	char *o = xstrfmt("%s/kagari-bisect-Zz9Yy8", base), *of = xstrfmt("%s/owner", o);
	assert_int_equal(mkdir(o, 0700), 0);
	write_text(of, "kagari pid=1 start=1\n");
	tmpdir_prune("kagari", always_gone);
	for (size_t i = 0; i < sizeof(users) / sizeof(users[0]); i++) {
		char *d = xstrfmt("%s/%s", base, users[i]);
		assert_true(exists(d));
		assert_int_equal(tmpdir_remove(d), 0);
		free(d);
	}
	assert_true(exists(o));
	/* tmpdir_claim()'s owner file is kagari's: pruned when gone. */
	assert_int_equal(unlink(of), 0);
	assert_int_equal(tmpdir_claim(o, "kagari pid=1 start=1", &err), 0);
	tmpdir_prune("kagari-bisect", always_gone);
	assert_false(exists(o));
	free(o);
	free(of);
	free(live);
	sbuf_release(&warn);
	sbuf_release(&err);
}

static void test_names(void **state)
{
	(void)state;
	assert_true(tmpdir_name_is_kagari("kagari-aB3dE9", NULL));
	assert_true(tmpdir_name_is_kagari("kagari-compare-aB3dE9", "kagari"));
	assert_true(tmpdir_name_is_kagari("kagari-bisect-aB3dE9", "kagari-bisect"));
	assert_false(tmpdir_name_is_kagari("kagari-compare-aB3dE9", "kagari-bisect"));
	assert_false(tmpdir_name_is_kagari("kagari-mine", NULL));
	assert_false(tmpdir_name_is_kagari("kagari-aB3dE", NULL));
	assert_false(tmpdir_name_is_kagari("kagari-aB3d.9", NULL));
	assert_false(tmpdir_name_is_kagari("kagari-other-aB3dE9", NULL));
	assert_false(tmpdir_name_is_kagari("kagari", NULL));
}

static int setup(void **state)
{
	(void)state;
	char tmpl[] = "/tmp/test-tmpdir-XXXXXX";
	assert_non_null(mkdtemp(tmpl));
	base = xstrdup(tmpl);
	setenv("TMPDIR", base, 1);
	return 0;
}

static int teardown(void **state)
{
	(void)state;
	tmpdir_remove(base);
	free(base);
	return 0;
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_unsupported_decision),
		cmocka_unit_test(test_names),
		cmocka_unit_test(test_no_flock_fallback),
		cmocka_unit_test(test_prune_only_kagaris),
	};
	return cmocka_run_group_tests(tests, setup, teardown);
}
