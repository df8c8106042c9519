/*
 * fileio: atomic writes never rename over anything but a regular file
 * (FIFOs and character devices are written in place, directories, sockets
 * refused), keep an existing file's mode; a failed append restores the
 * file's length; same-file and canonical-path checks.
 */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <sys/un.h>
#include <unistd.h>

#include "base/fileio.h"
#include "base/sbuf.h"
#include "base/xalloc.h"

static char dir[64];

static int setup(void **state)
{
	(void)state;
	strcpy(dir, "/tmp/kagari-test-fileio-XXXXXX");
	return mkdtemp(dir) ? 0 : -1;
}

static int teardown(void **state)
{
	(void)state;
	char *cmd = xstrfmt("rm -rf '%s'", dir);
	int rc = system(cmd);
	free(cmd);
	return rc == 0 ? 0 : -1;
}

static char *in_dir(const char *name)
{
	return xstrfmt("%s/%s", dir, name);
}

static void write_text(const char *path, const char *text, mode_t mode)
{
	int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, mode);
	assert_true(fd >= 0);
	assert_int_equal(fileio_write_all(fd, text, strlen(text)), 0);
	assert_int_equal(fchmod(fd, mode), 0);
	close(fd);
}

static void assert_file_is(const char *path, const char *text)
{
	struct sbuf sb = SBUF_INIT;
	assert_int_equal(sbuf_read_file(&sb, path, 1 << 20), 0);
	assert_string_equal(sb.buf, text);
	sbuf_release(&sb);
}

/* Nothing but `want` in the folder (no temporary file left). */
static void assert_only_entries(int want)
{
	char *cmd = xstrfmt("test $(ls -A '%s' | wc -l) -eq %d", dir, want);
	assert_int_equal(system(cmd), 0);
	free(cmd);
}

static void test_regular_replaced_and_mode_kept(void **state)
{
	(void)state;
	char *p = in_dir("r.json");
	struct sbuf err = SBUF_INIT;
	write_text(p, "old", 0600);
	assert_int_equal(fileio_write_atomic(p, "new", 3, &err), 0);
	assert_file_is(p, "new");
	struct stat st;
	assert_int_equal(stat(p, &st), 0);
	assert_int_equal(st.st_mode & 07777, 0600);
	/* A new file: 0666 minus the umask. */
	char *q = in_dir("fresh.json");
	mode_t um = umask(022);
	assert_int_equal(fileio_write_atomic(q, "x", 1, &err), 0);
	umask(um);
	assert_int_equal(stat(q, &st), 0);
	assert_int_equal(st.st_mode & 07777, 0644);
	/* Set-id bits are not carried onto a report. */
	assert_int_equal(chmod(p, 04750), 0);
	assert_int_equal(fileio_write_atomic(p, "again", 5, &err), 0);
	assert_int_equal(stat(p, &st), 0);
	assert_int_equal(st.st_mode & 07777, 0750);
	assert_only_entries(2);
	sbuf_release(&err);
	free(p);
	free(q);
}

static void test_fifo_written_in_place(void **state)
{
	(void)state;
	char *p = in_dir("fifo");
	struct sbuf err = SBUF_INIT;
	assert_int_equal(mkfifo(p, 0600), 0);

	/* Nobody reads: fails at once, says why, the FIFO stays. */
	assert_int_equal(fileio_write_atomic(p, "x", 1, &err), -1);
	assert_non_null(strstr(err.buf, "nothing has it open for reading"));
	assert_non_null(strstr(err.buf, p));
	sbuf_reset(&err);
	assert_int_equal(fileio_append(p, "x", 1, 1, &err), -1);
	assert_non_null(strstr(err.buf, "nothing has it open for reading"));
	sbuf_reset(&err);

	/* With a reader (us), the data goes through the pipe. */
	int rd = open(p, O_RDONLY | O_NONBLOCK);
	assert_true(rd >= 0);
	assert_int_equal(fileio_write_atomic(p, "report\n", 7, &err), 0);
	assert_int_equal(fileio_append(p, "more\n", 5, 1, &err), 0);
	char buf[64] = "";
	assert_int_equal(read(rd, buf, sizeof(buf) - 1), 12);
	assert_string_equal(buf, "report\nmore\n");
	close(rd);
	struct stat st;
	assert_int_equal(lstat(p, &st), 0);
	assert_true(S_ISFIFO(st.st_mode));
	assert_only_entries(1);
	sbuf_release(&err);
	free(p);
}

static void test_char_device_written_in_place(void **state)
{
	(void)state;
	char *p = in_dir("null");
	struct sbuf err = SBUF_INIT;
	if (mknod(p, S_IFCHR | 0666, makedev(1, 3)) != 0) {
		print_message("skipped: mknod needs root (%s)\n", strerror(errno));
		free(p);
		return;
	}
	assert_int_equal(fileio_write_atomic(p, "report", 6, &err), 0);
	assert_int_equal(fileio_append(p, "summary", 7, 1, &err), 0);
	struct stat st;
	assert_int_equal(lstat(p, &st), 0);
	assert_true(S_ISCHR(st.st_mode));
	assert_int_equal(unlink(p), 0);

	/* A device that fails the write: the error, and still a device. */
	assert_int_equal(mknod(p, S_IFCHR | 0666, makedev(1, 7)), 0); /* full */
	assert_int_equal(fileio_write_atomic(p, "report", 6, &err), -1);
	assert_non_null(strstr(err.buf, strerror(ENOSPC)));
	assert_int_equal(lstat(p, &st), 0);
	assert_true(S_ISCHR(st.st_mode));
	assert_int_equal(unlink(p), 0);
	assert_only_entries(0);
	sbuf_release(&err);
	free(p);
}

static void test_refused_kinds(void **state)
{
	(void)state;
	char *d = in_dir("adir");
	char *s = in_dir("sock");
	char *l = in_dir("link");
	char *ok = in_dir("plain");
	struct sbuf err = SBUF_INIT;
	assert_int_equal(mkdir(d, 0755), 0);
	int fd = socket(AF_UNIX, SOCK_STREAM, 0);
	struct sockaddr_un sa = { .sun_family = AF_UNIX };
	assert_true(strlen(s) < sizeof(sa.sun_path));
	strcpy(sa.sun_path, s);
	assert_int_equal(bind(fd, (struct sockaddr *)&sa, sizeof(sa)), 0);
	assert_int_equal(symlink("plain", l), 0);

	assert_int_equal(fileio_check_target(d, &err), -1);
	assert_non_null(strstr(err.buf, "adir' is a directory"));
	sbuf_reset(&err);
	assert_int_equal(fileio_check_target(s, &err), -1);
	assert_non_null(strstr(err.buf, "sock' is a socket"));
	sbuf_reset(&err);
	assert_int_equal(fileio_check_target(ok, &err), 0); /* missing: fine */
	assert_int_equal(fileio_check_target(l, &err), 0);  /* refused on write */
	assert_string_equal(err.buf, "");

	assert_int_equal(fileio_write_atomic(d, "x", 1, &err), -1);
	assert_non_null(strstr(err.buf, "it is a directory"));
	sbuf_reset(&err);
	assert_int_equal(fileio_write_atomic(s, "x", 1, &err), -1);
	assert_non_null(strstr(err.buf, "it is a socket"));
	sbuf_reset(&err);
	assert_int_equal(fileio_write_atomic(l, "x", 1, &err), -1);
	assert_non_null(strstr(err.buf, "symbolic link"));
	struct stat st;
	assert_int_equal(lstat(s, &st), 0);
	assert_true(S_ISSOCK(st.st_mode));
	assert_int_equal(lstat(d, &st), 0);
	assert_true(S_ISDIR(st.st_mode));
	assert_int_equal(lstat(l, &st), 0);
	assert_true(S_ISLNK(st.st_mode));
	assert_only_entries(3);
	close(fd);
	unlink(s);
	unlink(l);
	rmdir(d);
	sbuf_release(&err);
	free(d);
	free(s);
	free(l);
	free(ok);
}

static void test_failed_append_restores_length(void **state)
{
	(void)state;
	char *p = in_dir("summary.md");
	struct sbuf err = SBUF_INIT;
	char before[1001];
	memset(before, 'x', 1000);
	before[1000] = '\0'; /* no final newline: the append adds one first */
	write_text(p, before, 0644);

	struct rlimit old, lim = { 1024, 1024 };
	assert_int_equal(getrlimit(RLIMIT_FSIZE, &old), 0);
	lim.rlim_max = old.rlim_max;
	assert_int_equal(setrlimit(RLIMIT_FSIZE, &lim), 0);
	char add[200];
	memset(add, 'y', sizeof(add));
	int rc = fileio_append(p, add, sizeof(add), 1, &err);
	setrlimit(RLIMIT_FSIZE, &old);

	assert_int_equal(rc, -1);
	assert_non_null(strstr(err.buf, strerror(EFBIG)));
	assert_non_null(strstr(err.buf, "left as it was"));
	assert_file_is(p, before);

	/* Within the limit: appended after a newline. */
	sbuf_reset(&err);
	assert_int_equal(fileio_append(p, "ok\n", 3, 1, &err), 0);
	struct sbuf want = SBUF_INIT;
	sbuf_addf(&want, "%s\nok\n", before);
	assert_file_is(p, want.buf);
	sbuf_release(&want);
	sbuf_release(&err);
	free(p);
}

static void test_same_file(void **state)
{
	(void)state;
	char *a = in_dir("a.yaml");
	char *hard = in_dir("hard.yaml");
	char *soft = in_dir("soft.yaml");
	char *dotted = xstrfmt("%s/./a.yaml", dir);
	char *other = in_dir("b.yaml");
	char *missing = in_dir("missing.json");
	char *missing2 = xstrfmt("%s/../%s/missing.json", dir, strrchr(dir, '/') + 1);
	write_text(a, "a", 0644);
	write_text(other, "b", 0644);
	assert_int_equal(link(a, hard), 0);
	assert_int_equal(symlink("a.yaml", soft), 0);

	assert_true(fileio_same_file(a, a));
	assert_true(fileio_same_file(a, hard));
	assert_true(fileio_same_file(soft, a));
	assert_true(fileio_same_file(dotted, a));
	assert_false(fileio_same_file(a, other));
	assert_false(fileio_same_file(a, NULL));
	assert_false(fileio_same_file(NULL, NULL));
	/* Not there yet: the same resolved path. */
	assert_true(fileio_same_file(missing, missing2));
	assert_false(fileio_same_file(missing, a));

	char *c = fileio_canonical_path(missing2), *c2 = fileio_canonical_path(missing);
	assert_string_equal(c, c2);
	assert_null(strstr(c, ".."));
	free(c);
	free(c2);
	c = fileio_canonical_path("/");
	assert_string_equal(c, "/");
	free(c);
	free(a);
	free(hard);
	free(soft);
	free(dotted);
	free(other);
	free(missing);
	free(missing2);
}

int main(void)
{
	/* Like kagari: a closed reader is EPIPE, not death by SIGPIPE. */
	signal(SIGPIPE, SIG_IGN);
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_regular_replaced_and_mode_kept, setup, teardown),
		cmocka_unit_test_setup_teardown(test_fifo_written_in_place, setup, teardown),
		cmocka_unit_test_setup_teardown(test_char_device_written_in_place, setup, teardown),
		cmocka_unit_test_setup_teardown(test_refused_kinds, setup, teardown),
		cmocka_unit_test_setup_teardown(test_failed_append_restores_length, setup, teardown),
		cmocka_unit_test_setup_teardown(test_same_file, setup, teardown),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
