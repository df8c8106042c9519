/*
 * Tests for git/: revision resolution, HEAD info, files in a commit, and
 * temporary worktrees, on real repositories made in a temporary folder. The
 * user-visible promises checked: the user's status, worktrees, stashes,
 * branches and HEAD are byte-identical before and after; hooks never run;
 * kagari's orphaned worktrees are pruned and nobody else's are.
 *
 * Git is isolated from the machine's config (GIT_CONFIG_GLOBAL=/dev/null,
 * GIT_CONFIG_NOSYSTEM=1) and commits carry a fixed identity from the
 * environment and -c options: no global config is needed or written.
 */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/utsname.h>
#include <sys/wait.h>
#include <unistd.h>

#include "base/sbuf.h"
#include "base/strvec.h"
#include "base/tmpdir.h"
#include "base/xalloc.h"
#include "git/git.h"
#include "git/tree.h"
#include "git/worktree.h"
#include "proc/child.h"

static char *test_root;
static int repo_counter;

/* Run argv in dir; stdout into out (may be NULL). Returns the exit code. */
static int run_in(const char *dir, struct sbuf *out, const char *const *argv)
{
	struct child c = CHILD_INIT;
	struct sbuf err = SBUF_INIT;
	int code;

	strvec_pushv(&c.argv, argv);
	c.dir = dir;
	c.out = CHILD_OUT_CAPTURE;
	c.err = CHILD_OUT_CAPTURE;
	c.timeout_ns = INT64_C(60) * 1000000000;
	code = child_run(&c, &err);
	if (code != 0)
		print_message("'%s %s' in %s -> %d: %s%s\n", argv[0], argv[1] ? argv[1] : "", dir,
			      code, err.buf, c.res.err.buf);
	if (out)
		sbuf_add(out, c.res.out.buf, c.res.out.len);
	sbuf_release(&err);
	child_release(&c);
	return code;
}

#define RUN(dir, ...)                                                                              \
	assert_int_equal(run_in(dir, NULL, (const char *const[]){__VA_ARGS__, NULL}), 0)
#define GIT(dir, ...)                                                                              \
	RUN(dir, "git", "-c", "user.name=Kagari Test", "-c", "user.email=test@example.com",        \
	    __VA_ARGS__)

/* Output of a git command in dir (the test's own view, not the module's). */
static char *git_out(const char *dir, const char *const *args)
{
	struct strvec argv = STRVEC_INIT;
	struct sbuf out = SBUF_INIT;
	strvec_push(&argv, "git");
	strvec_pushv(&argv, args);
	assert_int_equal(run_in(dir, &out, argv.v), 0);
	strvec_clear(&argv);
	return sbuf_detach(&out);
}

#define GIT_OUT(dir, ...) git_out(dir, (const char *const[]){__VA_ARGS__, NULL})

static void write_file(const char *path, const char *text)
{
	FILE *f = fopen(path, "w");
	assert_non_null(f);
	fputs(text, f);
	assert_int_equal(fclose(f), 0);
}

static char *read_text(const char *path)
{
	struct sbuf sb = SBUF_INIT;
	if (sbuf_read_file(&sb, path, 1 << 20) < 0) {
		sbuf_release(&sb);
		return NULL;
	}
	return sbuf_detach(&sb);
}

static int exists(const char *path)
{
	struct stat st;
	return lstat(path, &st) == 0;
}

struct repo {
	char *dir;
	char *c1, *c2; /* first and second (HEAD) commits */
};

/*
 * A repository: c1 has file.txt "one" and .gitignore "*.log", tagged v1
 * (annotated) and v1-light; c2 changes file.txt to "two" and adds new.txt.
 */
static void make_repo(struct repo *r)
{
	char *p;

	r->dir = xstrfmt("%s/repo%d", test_root, ++repo_counter);
	assert_int_equal(mkdir(r->dir, 0700), 0);
	GIT(r->dir, "init", "-q", "-b", "main", ".");
	p = xstrfmt("%s/file.txt", r->dir);
	write_file(p, "one\n");
	free(p);
	p = xstrfmt("%s/.gitignore", r->dir);
	write_file(p, "*.log\n");
	free(p);
	GIT(r->dir, "add", "file.txt", ".gitignore");
	GIT(r->dir, "commit", "-q", "-m", "first");
	GIT(r->dir, "tag", "-a", "-m", "version 1", "v1");
	GIT(r->dir, "tag", "v1-light");
	p = xstrfmt("%s/file.txt", r->dir);
	write_file(p, "two\n");
	free(p);
	p = xstrfmt("%s/new.txt", r->dir);
	write_file(p, "new\n");
	free(p);
	GIT(r->dir, "add", "file.txt", "new.txt");
	GIT(r->dir, "commit", "-q", "-m", "second");
	r->c1 = GIT_OUT(r->dir, "rev-parse", "HEAD~1");
	r->c2 = GIT_OUT(r->dir, "rev-parse", "HEAD");
	/* strip newlines */
	r->c1[strcspn(r->c1, "\n")] = 0;
	r->c2[strcspn(r->c2, "\n")] = 0;
}

static void repo_release(struct repo *r)
{
	free(r->dir);
	free(r->c1);
	free(r->c2);
}

/* A fresh private folder kagari-wt-XXXXXX under the test root. */
static char *make_parent(void)
{
	/* Named as compare names its folder (tmpdir_name_is_kagari()). */
	char *p = xstrfmt("%s/kagari-compare-XXXXXX", test_root);
	assert_non_null(mkdtemp(p));
	return p;
}

/* ------------------------------------------------------------------ */

static void test_toplevel(void **state)
{
	struct repo r;
	struct sbuf err = SBUF_INIT;
	char *root = NULL, *sub, *want, *lone;

	(void)state;
	make_repo(&r);
	sub = xstrfmt("%s/sub/dir", r.dir);
	RUN(r.dir, "mkdir", "-p", "sub/dir");
	assert_int_equal(git_toplevel(sub, &root, &err), 0);
	want = realpath(r.dir, NULL);
	assert_string_equal(root, want);
	free(root);

	lone = xstrfmt("%s/lonely", test_root);
	assert_int_equal(mkdir(lone, 0700), 0);
	assert_int_equal(git_toplevel(lone, &root, &err), -1);
	assert_null(root);
	assert_non_null(strstr(err.buf, "is not inside a git repository"));
	assert_non_null(strstr(err.buf, lone));

	sbuf_reset(&err);
	free(sub);
	sub = xstrfmt("%s/no-such-folder", test_root);
	assert_int_equal(git_toplevel(sub, &root, &err), -1);
	assert_non_null(strstr(err.buf, "no-such-folder"));

	free(lone);
	free(sub);
	free(want);
	sbuf_release(&err);
	repo_release(&r);
}

static void test_resolve(void **state)
{
	struct repo r;
	struct sbuf err = SBUF_INIT;
	char *sha = NULL;

	(void)state;
	make_repo(&r);
	assert_int_equal(git_resolve_commit(r.dir, "HEAD", &sha, &err), 0);
	assert_string_equal(sha, r.c2);
	free(sha);
	assert_int_equal(git_resolve_commit(r.dir, "HEAD~1", &sha, &err), 0);
	assert_string_equal(sha, r.c1);
	free(sha);
	assert_int_equal(git_resolve_commit(r.dir, "main", &sha, &err), 0);
	assert_string_equal(sha, r.c2);
	free(sha);
	/* an annotated tag resolves to its commit, not the tag object */
	assert_int_equal(git_resolve_commit(r.dir, "v1", &sha, &err), 0);
	assert_string_equal(sha, r.c1);
	free(sha);
	assert_int_equal(git_resolve_commit(r.dir, "v1-light", &sha, &err), 0);
	assert_string_equal(sha, r.c1);
	free(sha);
	/* an abbreviated sha */
	{
		char *abbrev = xstrndup(r.c1, 10);
		assert_int_equal(git_resolve_commit(r.dir, abbrev, &sha, &err), 0);
		assert_string_equal(sha, r.c1);
		free(sha);
		free(abbrev);
	}
	assert_int_equal(err.len, 0);

	assert_int_equal(git_resolve_commit(r.dir, "no-such-branch", &sha, &err), -1);
	assert_null(sha);
	assert_non_null(strstr(err.buf, "'no-such-branch'"));
	assert_non_null(strstr(err.buf, "fetch"));
	assert_null(strstr(err.buf, "shallow"));

	sbuf_reset(&err);
	assert_int_equal(git_resolve_commit(r.dir, "HEAD^{tree}", &sha, &err), -1);
	assert_non_null(strstr(err.buf, "names a tree, not a commit"));

	sbuf_release(&err);
	repo_release(&r);
}

static void test_resolve_refuses_bad_text(void **state)
{
	static const char *const bad[] = {
	    "-x", "--output=/tmp/pwned", "--all", "a b", "ma\tin", "HEAD\n", "x\x01y", "",
	};
	struct repo r;
	struct sbuf err = SBUF_INIT;
	char *sha = NULL;

	(void)state;
	make_repo(&r);
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		sbuf_reset(&err);
		assert_int_equal(git_resolve_commit(r.dir, bad[i], &sha, &err), -1);
		assert_null(sha);
		assert_non_null(strstr(err.buf, "invalid revision"));
		/* never more than one line */
		assert_null(strchr(err.buf, '\n'));
	}
	sbuf_reset(&err);
	assert_int_equal(git_resolve_commit(r.dir, "-x", &sha, &err), -1);
	assert_string_equal(err.buf, "invalid revision '-x': it must not begin with '-'");
	sbuf_reset(&err);
	assert_int_equal(git_resolve_commit(r.dir, "a b", &sha, &err), -1);
	assert_non_null(strstr(err.buf, "whitespace"));
	sbuf_reset(&err);
	assert_int_equal(git_resolve_commit(r.dir, "x\x01y", &sha, &err), -1);
	assert_non_null(strstr(err.buf, "'x\\x01y'"));
	assert_non_null(strstr(err.buf, "control character"));
	/* --output would have made git write a file */
	assert_false(exists("/tmp/pwned"));
	sbuf_release(&err);
	repo_release(&r);
}

static void test_resolve_shallow(void **state)
{
	struct repo r;
	struct sbuf err = SBUF_INIT;
	char *sha = NULL, *url, *clone;
	int shallow = -1;

	(void)state;
	make_repo(&r);
	url = xstrfmt("file://%s", r.dir);
	clone = xstrfmt("%s/shallow%d", test_root, repo_counter);
	RUN(test_root, "git", "clone", "-q", "--depth", "1", url, clone);

	assert_int_equal(git_is_shallow(clone, &shallow, &err), 0);
	assert_int_equal(shallow, 1);
	assert_int_equal(git_is_shallow(r.dir, &shallow, &err), 0);
	assert_int_equal(shallow, 0);

	assert_int_equal(git_resolve_commit(clone, "HEAD", &sha, &err), 0);
	assert_string_equal(sha, r.c2);
	free(sha);
	assert_int_equal(git_resolve_commit(clone, "HEAD~1", &sha, &err), -1);
	assert_non_null(strstr(err.buf, "'HEAD~1'"));
	assert_non_null(strstr(err.buf, "shallow"));
	assert_non_null(strstr(err.buf, "git fetch --unshallow"));
	assert_non_null(strstr(err.buf, "fetch-depth: 0"));
	free(url);
	free(clone);
	sbuf_release(&err);
	repo_release(&r);
}

static void test_head_info(void **state)
{
	struct repo r;
	struct sbuf err = SBUF_INIT;
	char *sha = NULL, *p, *unborn;
	int dirty = -1;

	(void)state;
	make_repo(&r);
	assert_int_equal(git_head_info(r.dir, &sha, &dirty, NULL, &err), 0);
	assert_string_equal(sha, r.c2);
	assert_int_equal(dirty, 0);
	free(sha);

	/* an ignored file does not count */
	p = xstrfmt("%s/build.log", r.dir);
	write_file(p, "noise\n");
	free(p);
	assert_int_equal(git_head_info(r.dir, NULL, &dirty, NULL, &err), 0);
	assert_int_equal(dirty, 0);

	/* an untracked source file does: the head measures it */
	p = xstrfmt("%s/extra.c", r.dir);
	write_file(p, "int x;\n");
	assert_int_equal(git_head_info(r.dir, NULL, &dirty, NULL, &err), 0);
	assert_int_equal(dirty, 1);
	/* ... unless it is one of kagari's own (a suite file not committed
	   yet, a report): those are named in skip, canonical */
	{
		struct strvec skip = STRVEC_INIT;
		struct sbuf st = SBUF_INIT;
		char *canon = realpath(p, NULL), *sha2 = NULL;
		assert_non_null(canon);
		strvec_push(&skip, canon);
		assert_int_equal(git_head_info(r.dir, NULL, &dirty, &skip, &err), 0);
		assert_int_equal(dirty, 0);
		/* in a new folder, with a new source file beside it: dirty */
		char *dir = xstrfmt("%s/newdir", r.dir);
		assert_int_equal(mkdir(dir, 0700), 0);
		char *suite = xstrfmt("%s/kagari.yaml", dir), *src = xstrfmt("%s/new.c", dir);
		write_file(suite, "version: \"1\"\n");
		strvec_push_take(&skip, realpath(suite, NULL));
		assert_int_equal(git_head_info(r.dir, NULL, &dirty, &skip, &err), 0);
		assert_int_equal(dirty, 0);
		write_file(src, "int y;\n");
		assert_int_equal(git_head_status(r.dir, &sha2, &st, &skip, &err), 0);
		assert_non_null(strstr(st.buf, "newdir/new.c"));
		assert_null(strstr(st.buf, "kagari.yaml"));
		assert_null(strstr(st.buf, "extra.c"));
		assert_int_equal(unlink(src), 0);
		/* kagari's .kagari/ folder (the history) never counts */
		char *kdir = xstrfmt("%s/.kagari", dir),
		     *hist = xstrfmt("%s/.kagari/history.sqlite", dir);
		assert_int_equal(mkdir(kdir, 0700), 0);
		write_file(hist, "x");
		assert_int_equal(git_head_info(r.dir, NULL, &dirty, &skip, &err), 0);
		assert_int_equal(dirty, 0);
		assert_int_equal(tmpdir_remove(dir), 0);
		free(kdir);
		free(hist);
		free(suite);
		free(src);
		free(dir);
		free(sha2);
		free(canon);
		sbuf_release(&st);
		strvec_clear(&skip);
	}
	assert_int_equal(unlink(p), 0);
	free(p);

	/* an unstaged change */
	p = xstrfmt("%s/file.txt", r.dir);
	write_file(p, "changed\n");
	assert_int_equal(git_head_info(r.dir, &sha, &dirty, NULL, &err), 0);
	assert_string_equal(sha, r.c2);
	assert_int_equal(dirty, 1);
	free(sha);
	/* a staged change */
	GIT(r.dir, "add", "file.txt");
	assert_int_equal(git_head_info(r.dir, NULL, &dirty, NULL, &err), 0);
	assert_int_equal(dirty, 1);
	GIT(r.dir, "reset", "-q", "--hard");
	assert_int_equal(git_head_info(r.dir, NULL, &dirty, NULL, &err), 0);
	assert_int_equal(dirty, 0);
	free(p);

	/* an unborn branch: no sha */
	unborn = xstrfmt("%s/unborn%d", test_root, ++repo_counter);
	assert_int_equal(mkdir(unborn, 0700), 0);
	GIT(unborn, "init", "-q", ".");
	{
		static char sentinel;
		sha = &sentinel;
	}
	assert_int_equal(git_head_info(unborn, &sha, &dirty, NULL, &err), 0);
	assert_null(sha);
	assert_int_equal(dirty, 0);
	assert_int_equal(git_resolve_commit(unborn, "HEAD", &sha, &err), -1);
	assert_non_null(strstr(err.buf, "no commits yet"));

	assert_int_equal(git_head_info(r.dir, &sha, &dirty, NULL, &err), 0);
	free(sha);
	free(unborn);
	sbuf_release(&err);
	repo_release(&r);
}

/*
 * git/tree.h: a commit's folders, files and contents without a checkout —
 * what the base's suite discovery reads (cmd/gate_suites.c).
 */
static void test_tree(void **state)
{
	struct repo r;
	struct sbuf err = SBUF_INIT, text = SBUF_INIT;
	struct strvec names = STRVEC_INIT;
	enum git_entry k;

	(void)state;
	make_repo(&r);
	/* c3: a folder with a suite, a nested folder and a link to file.txt. */
	RUN(r.dir, "mkdir", "-p", "bench/deep");
	char *p = xstrfmt("%s/bench/kagari.yaml", r.dir);
	write_file(p, "name: x\n");
	free(p);
	p = xstrfmt("%s/bench/deep/a.kagari.yaml", r.dir);
	write_file(p, "name: deep\n");
	free(p);
	RUN(r.dir, "ln", "-s", "../file.txt", "bench/link.yaml");
	GIT(r.dir, "add", "bench");
	GIT(r.dir, "commit", "-q", "-m", "third");
	char *c3 = GIT_OUT(r.dir, "rev-parse", "HEAD");
	c3[strcspn(c3, "\n")] = 0;

	assert_int_equal(git_tree_kind(r.dir, c3, "", &k, &err), 0);
	assert_int_equal(k, GIT_ENTRY_DIR);
	assert_int_equal(git_tree_kind(r.dir, c3, "./bench/", &k, &err), 0);
	assert_int_equal(k, GIT_ENTRY_DIR);
	assert_int_equal(git_tree_kind(r.dir, c3, "bench/kagari.yaml", &k, &err), 0);
	assert_int_equal(k, GIT_ENTRY_FILE);
	assert_int_equal(git_tree_kind(r.dir, c3, "bench/link.yaml", &k, &err), 0);
	assert_int_equal(k, GIT_ENTRY_FILE);
	/* a prefix of a name is not the name */
	assert_int_equal(git_tree_kind(r.dir, c3, "ben", &k, &err), 0);
	assert_int_equal(k, GIT_ENTRY_NONE);
	/* not in the older commit */
	assert_int_equal(git_tree_kind(r.dir, r.c1, "bench", &k, &err), 0);
	assert_int_equal(k, GIT_ENTRY_NONE);

	/* the files of a folder, not its folders, nor a folder's files */
	assert_int_equal(git_tree_files(r.dir, c3, "bench", &names, &err), 0);
	assert_int_equal(names.nr, 2);
	assert_string_equal(names.v[0], "kagari.yaml");
	assert_string_equal(names.v[1], "link.yaml");
	strvec_clear(&names);
	assert_int_equal(git_tree_files(r.dir, r.c1, ".", &names, &err), 0);
	assert_int_equal(names.nr, 2);
	assert_string_equal(names.v[0], ".gitignore");
	assert_string_equal(names.v[1], "file.txt");
	strvec_clear(&names);
	assert_int_equal(err.len, 0);

	/* a file's content as that commit has it; a link followed */
	assert_int_equal(git_tree_read(r.dir, r.c1, "file.txt", &text, &err), 0);
	assert_string_equal(text.buf, "one\n");
	assert_int_equal(git_tree_read(r.dir, c3, "bench/link.yaml", &text, &err), 0);
	assert_string_equal(text.buf, "two\n");
	assert_int_equal(git_tree_read(r.dir, c3, "bench/deep/a.kagari.yaml", &text, &err), 0);
	assert_string_equal(text.buf, "name: deep\n");
	/* missing, or a folder: not a file */
	assert_int_equal(git_tree_read(r.dir, r.c1, "new.txt", &text, &err), -1);
	assert_non_null(strstr(err.buf, "new.txt is not a file"));
	sbuf_reset(&err);
	assert_int_equal(git_tree_read(r.dir, c3, "bench", &text, &err), -1);
	sbuf_reset(&err);
	/* paths that leave the repository are refused */
	assert_int_equal(git_tree_kind(r.dir, c3, "../x", &k, &err), -1);
	assert_non_null(strstr(err.buf, "'..'"));
	sbuf_reset(&err);
	assert_int_equal(git_tree_files(r.dir, c3, "/etc", &names, &err), -1);
	sbuf_release(&err);
	sbuf_release(&text);
	free(c3);
	repo_release(&r);
}

static void test_show_file_exists(void **state)
{
	struct repo r;
	struct sbuf err = SBUF_INIT;
	int ex = -1;

	(void)state;
	make_repo(&r);
	assert_int_equal(git_show_file_exists(r.dir, r.c1, "file.txt", &ex, &err), 0);
	assert_int_equal(ex, 1);
	assert_int_equal(git_show_file_exists(r.dir, r.c1, "./file.txt", &ex, &err), 0);
	assert_int_equal(ex, 1);
	assert_int_equal(git_show_file_exists(r.dir, r.c1, "new.txt", &ex, &err), 0);
	assert_int_equal(ex, 0);
	assert_int_equal(git_show_file_exists(r.dir, r.c2, "new.txt", &ex, &err), 0);
	assert_int_equal(ex, 1);
	/* from a subfolder, paths stay relative to the top */
	RUN(r.dir, "mkdir", "sub");
	{
		char *sub = xstrfmt("%s/sub", r.dir);
		assert_int_equal(git_show_file_exists(sub, r.c2, "new.txt", &ex, &err), 0);
		assert_int_equal(ex, 1);
		free(sub);
	}
	assert_int_equal(err.len, 0);

	assert_int_equal(git_show_file_exists(r.dir, r.c1, "../x", &ex, &err), -1);
	assert_non_null(strstr(err.buf, "'..'"));
	sbuf_reset(&err);
	assert_int_equal(git_show_file_exists(r.dir, r.c1, "/etc/passwd", &ex, &err), -1);
	sbuf_reset(&err);
	assert_int_equal(git_show_file_exists(r.dir, "HEAD", "file.txt", &ex, &err), -1);
	sbuf_reset(&err);
	assert_int_equal(git_show_file_exists(r.dir, "0123456789012345678901234567890123456789",
					      "file.txt", &ex, &err),
			 -1);
	assert_non_null(strstr(err.buf, "not in the repository"));
	sbuf_release(&err);
	repo_release(&r);
}

/* What the user can see of their repository's state. */
static char *user_state(const char *dir)
{
	static const char *const cmds[][4] = {
	    {"status", "--porcelain", NULL}, {"worktree", "list", "--porcelain", NULL},
	    {"stash", "list", NULL},	     {"branch", "--list", NULL},
	    {"rev-parse", "HEAD", NULL},     {"config", "--local", "--list", NULL},
	};
	struct sbuf all = SBUF_INIT;
	for (size_t i = 0; i < sizeof(cmds) / sizeof(cmds[0]); i++) {
		char *o = git_out(dir, cmds[i]);
		sbuf_addf(&all, "== %s\n%s", cmds[i][0], o);
		free(o);
	}
	return sbuf_detach(&all);
}

static void test_worktree_leaves_user_state(void **state)
{
	struct repo r;
	struct sbuf err = SBUF_INIT;
	struct git_worktree wt = GIT_WORKTREE_INIT;
	char *parent, *p, *before, *after, *text, *index_before, *index_after, *list, *bogus_index,
	    *root = NULL;

	(void)state;
	make_repo(&r);
	/* a stash, a staged change, an unstaged one and an untracked file */
	p = xstrfmt("%s/file.txt", r.dir);
	write_file(p, "stashed\n");
	GIT(r.dir, "stash", "-q");
	write_file(p, "staged\n");
	GIT(r.dir, "add", "file.txt");
	write_file(p, "uncommitted\n");
	free(p);
	p = xstrfmt("%s/untracked.txt", r.dir);
	write_file(p, "u\n");
	free(p);
	GIT(r.dir, "branch", "feature");

	before = user_state(r.dir);
	p = xstrfmt("%s/.git/index", r.dir);
	index_before = read_text(p);

	/* Variables a hook would set must not redirect git. */
	bogus_index = xstrfmt("%s/bogus-index", test_root);
	setenv("GIT_INDEX_FILE", bogus_index, 1);
	setenv("GIT_DIR", "/nonexistent", 1);

	parent = make_parent();
	assert_int_equal(git_worktree_add(r.dir, r.c1, parent, &wt, &err), 0);
	assert_int_equal(err.len, 0);
	unsetenv("GIT_INDEX_FILE");
	unsetenv("GIT_DIR");
	assert_false(exists(bogus_index));

	/* the worktree holds the old content, clean, at the base commit */
	{
		char *canon = realpath(parent, NULL);
		char *want = xstrfmt("%s/base", canon);
		assert_string_equal(wt.path, want);
		free(want);
		free(canon);
	}
	assert_string_equal(wt.sha, r.c1);
	{
		char *f = xstrfmt("%s/file.txt", wt.path);
		text = read_text(f);
		assert_string_equal(text, "one\n");
		free(text);
		free(f);
		f = xstrfmt("%s/new.txt", wt.path);
		assert_false(exists(f));
		free(f);
	}
	{
		char *sha = NULL;
		int dirty = -1;
		assert_int_equal(git_head_info(wt.path, &sha, &dirty, NULL, &err), 0);
		assert_string_equal(sha, r.c1);
		assert_int_equal(dirty, 0);
		free(sha);
		assert_int_equal(git_toplevel(wt.path, &root, &err), 0);
		assert_string_equal(root, wt.path);
		free(root);
	}
	/* it is listed, locked with kagari's reason */
	list = GIT_OUT(r.dir, "worktree", "list", "--porcelain");
	assert_non_null(strstr(list, wt.path));
	assert_non_null(strstr(list, "locked kagari pid="));
	free(list);
	/* while it exists, a prune at start leaves it (we are alive) */
	assert_int_equal(git_prune_orphans(r.dir, &err), 0);
	assert_true(exists(wt.path));

	assert_int_equal(git_worktree_remove(&wt, &err), 0);
	assert_int_equal(err.len, 0);
	assert_false(exists(wt.path));
	list = GIT_OUT(r.dir, "worktree", "list", "--porcelain");
	assert_null(strstr(list, parent));
	free(list);
	/* a second remove has nothing to do */
	assert_int_equal(git_worktree_remove(&wt, &err), 0);
	git_worktree_release(&wt);
	assert_null(wt.path);

	after = user_state(r.dir);
	assert_string_equal(before, after);
	index_after = read_text(p);
	assert_non_null(index_before);
	assert_non_null(index_after);
	assert_memory_equal(index_before, index_after, strlen(index_before) + 1);
	{
		char *f = xstrfmt("%s/file.txt", r.dir);
		text = read_text(f);
		assert_string_equal(text, "uncommitted\n");
		free(text);
		free(f);
	}

	assert_int_equal(rmdir(parent), 0);
	free(parent);
	free(p);
	free(before);
	free(after);
	free(index_before);
	free(index_after);
	free(bogus_index);
	sbuf_release(&err);
	repo_release(&r);
}

static void test_worktree_remove_after_folder_deleted(void **state)
{
	struct repo r;
	struct sbuf err = SBUF_INIT;
	struct git_worktree wt = GIT_WORKTREE_INIT;
	char *parent, *before, *after, *list;

	(void)state;
	make_repo(&r);
	before = GIT_OUT(r.dir, "worktree", "list", "--porcelain");
	parent = make_parent();
	assert_int_equal(git_worktree_add(r.dir, r.c2, parent, &wt, &err), 0);
	/* build output inside, then the folder disappears */
	{
		char *f = xstrfmt("%s/a.out", wt.path);
		write_file(f, "binary\n");
		free(f);
	}
	assert_int_equal(tmpdir_remove(wt.path), 0);
	assert_int_equal(git_worktree_remove(&wt, &err), 0);
	assert_int_equal(err.len, 0);
	after = GIT_OUT(r.dir, "worktree", "list", "--porcelain");
	assert_string_equal(before, after);
	git_worktree_release(&wt);

	/* remove with build output still in place */
	assert_int_equal(git_worktree_add(r.dir, r.c2, parent, &wt, &err), 0);
	{
		char *f = xstrfmt("%s/a.out", wt.path);
		write_file(f, "binary\n");
		free(f);
		f = xstrfmt("%s/file.txt", wt.path);
		write_file(f, "edited by the build\n");
		free(f);
	}
	assert_int_equal(git_worktree_remove(&wt, &err), 0);
	assert_false(exists(wt.path));
	list = GIT_OUT(r.dir, "worktree", "list", "--porcelain");
	assert_string_equal(before, list);
	git_worktree_release(&wt);

	/* add fails: an unknown commit; remove is still safe */
	assert_int_equal(
	    git_worktree_add(r.dir, "0123456789012345678901234567890123456789", parent, &wt, &err),
	    -1);
	assert_non_null(strstr(err.buf, "temporary worktree"));
	assert_null(strchr(err.buf, '\n'));
	sbuf_reset(&err);
	assert_int_equal(git_worktree_remove(&wt, &err), 0);
	assert_false(exists(wt.path));
	git_worktree_release(&wt);
	/* a revision name is not accepted: a full sha is required */
	assert_int_equal(git_worktree_add(r.dir, "HEAD", parent, &wt, &err), -1);
	assert_int_equal(git_worktree_remove(&wt, &err), 0);
	git_worktree_release(&wt);

	assert_int_equal(rmdir(parent), 0);
	free(parent);
	free(before);
	free(after);
	free(list);
	sbuf_release(&err);
	repo_release(&r);
}

/*
 * GIT_WORKTREE_SAME_LENGTH (issue 40): the worktree's path exactly as long
 * as the repository's, so that a build holding its folder is laid out the
 * same on both sides; "base" when the parent is too long for that.
 */
static void test_worktree_same_length(void **state)
{
	struct repo r;
	struct sbuf err = SBUF_INIT;
	struct git_worktree wt = GIT_WORKTREE_INIT;

	(void)state;
	make_repo(&r);
	char *longer = xstrfmt("%s-with-a-name-long-enough-for-a-worktree-beside-it", r.dir);
	assert_int_equal(rename(r.dir, longer), 0);
	free(r.dir);
	r.dir = longer;
	char *parent = make_parent();
	char *repo_abs = realpath(r.dir, NULL), *parent_abs = realpath(parent, NULL);
	assert_int_equal(
	    git_worktree_add_as(r.dir, r.c1, parent, GIT_WORKTREE_SAME_LENGTH, &wt, &err), 0);
	assert_int_equal(strlen(wt.path), strlen(repo_abs));
	assert_int_equal(strncmp(wt.path, parent_abs, strlen(parent_abs)), 0);
	assert_int_equal(strncmp(wt.path + strlen(parent_abs), "/base_", 6), 0);
	{
		char *f = xstrfmt("%s/file.txt", wt.path);
		char *text = read_text(f);
		assert_string_equal(text, "one\n");
		free(text);
		free(f);
	}
	assert_int_equal(git_worktree_remove(&wt, &err), 0);
	assert_false(exists(wt.path));
	git_worktree_release(&wt);

	/* A parent longer than the repository's path: the folder "base". */
	char *deep = xstrfmt("%s/a-folder-that-makes-the-parent-longer-than-the-repository-path-"
			     "itself-is-by-far",
			     parent);
	assert_int_equal(mkdir(deep, 0700), 0);
	assert_int_equal(
	    git_worktree_add_as(r.dir, r.c1, deep, GIT_WORKTREE_SAME_LENGTH, &wt, &err), 0);
	assert_true(strlen(wt.path) > strlen(repo_abs));
	assert_string_equal(strrchr(wt.path, '/'), "/base");
	assert_int_equal(git_worktree_remove(&wt, &err), 0);
	git_worktree_release(&wt);
	assert_int_equal(err.len, 0);

	assert_int_equal(rmdir(deep), 0);
	assert_int_equal(rmdir(parent), 0);
	free(deep);
	free(parent);
	free(repo_abs);
	free(parent_abs);
	sbuf_release(&err);
	repo_release(&r);
}

/*
 * git_worktree_copy_changes() (kagari aa's base side): a worktree of HEAD
 * made to hold the working tree's uncommitted changes — a modified file
 * (its mode too), a deleted one, an untracked one in a new folder, a
 * symlink — and the user's tree left as it was.
 */
static void test_worktree_copy_changes(void **state)
{
	struct repo r;
	struct sbuf err = SBUF_INIT, status = SBUF_INIT;
	struct git_worktree wt = GIT_WORKTREE_INIT;
	char *sha = NULL, *p;
	struct stat st;

	(void)state;
	make_repo(&r);
	p = xstrfmt("%s/file.txt", r.dir);
	write_file(p, "three\n");
	assert_int_equal(chmod(p, 0755), 0);
	free(p);
	p = xstrfmt("%s/new.txt", r.dir);
	assert_int_equal(unlink(p), 0);
	free(p);
	p = xstrfmt("%s/sub", r.dir);
	assert_int_equal(mkdir(p, 0700), 0);
	free(p);
	p = xstrfmt("%s/sub/added.txt", r.dir);
	write_file(p, "added\n");
	free(p);
	p = xstrfmt("%s/link", r.dir);
	assert_int_equal(symlink("file.txt", p), 0);
	free(p);
	char *before = GIT_OUT(r.dir, "status", "--porcelain");

	assert_int_equal(git_head_status(r.dir, &sha, &status, NULL, &err), 0);
	char *parent = make_parent();
	assert_int_equal(git_worktree_add(r.dir, sha, parent, &wt, &err), 0);
	assert_int_equal(git_worktree_copy_changes(&wt, &status, &err), 0);
	assert_int_equal(err.len, 0);

	p = xstrfmt("%s/file.txt", wt.path);
	char *text = read_text(p);
	assert_string_equal(text, "three\n");
	assert_int_equal(stat(p, &st), 0);
	assert_int_equal(st.st_mode & 0777, 0755);
	free(text);
	free(p);
	p = xstrfmt("%s/new.txt", wt.path);
	assert_false(exists(p));
	free(p);
	p = xstrfmt("%s/sub/added.txt", wt.path);
	text = read_text(p);
	assert_string_equal(text, "added\n");
	free(text);
	free(p);
	p = xstrfmt("%s/link", wt.path);
	char target[64];
	ssize_t n = readlink(p, target, sizeof(target) - 1);
	assert_true(n > 0);
	target[n] = '\0';
	assert_string_equal(target, "file.txt");
	free(p);
	char *after = GIT_OUT(r.dir, "status", "--porcelain");
	assert_string_equal(before, after);

	assert_int_equal(git_worktree_remove(&wt, &err), 0);
	git_worktree_release(&wt);
	assert_int_equal(rmdir(parent), 0);
	free(parent);
	free(before);
	free(after);
	free(sha);
	sbuf_release(&status);
	sbuf_release(&err);
	repo_release(&r);
}

static pid_t dead_pid(void)
{
	pid_t pid = fork();
	assert_true(pid >= 0);
	if (pid == 0)
		_exit(0);
	assert_int_equal(waitpid(pid, NULL, 0), pid);
	return pid;
}

static void test_prune_orphans(void **state)
{
	struct repo r;
	struct sbuf err = SBUF_INIT;
	struct git_worktree gone = GIT_WORKTREE_INIT, live = GIT_WORKTREE_INIT;
	char *p_gone, *p_dead, *p_live, *p_other, *dead_path, *other_path, *user_wt, *user_locked,
	    *user_missing, *reason, *list, *canon_dead, *p_reused, *canon_reused, *reused_path;

	(void)state;
	make_repo(&r);

	/* ours, folder deleted (kagari was killed and /tmp was cleaned) */
	p_gone = make_parent();
	assert_int_equal(git_worktree_add(r.dir, r.c1, p_gone, &gone, &err), 0);
	assert_int_equal(tmpdir_remove(p_gone), 0);
	/* Its maker is gone: the kernel dropped the flock on the admin
	   folder's kagari-live.lock (here: closed). While held, a missing
	   folder alone would not make it an orphan (another TMPDIR). */
	assert_true(gone.live_lock > 0);
	close(gone.live_lock - 1);
	gone.live_lock = 0;

	/* ours, folder present, its kagari process dead; named as
	   GIT_WORKTREE_SAME_LENGTH pads "base" */
	p_dead = make_parent();
	canon_dead = realpath(p_dead, NULL);
	dead_path = xstrfmt("%s/base___", canon_dead);
	reason = xstrfmt("kagari pid=%ld start=0", (long)dead_pid());
	GIT(r.dir, "worktree", "add", "-q", "--lock", "--reason", reason, "--detach", dead_path,
	    r.c1);
	free(reason);

	/* ours, its pid now used by another process (this one) */
	p_reused = make_parent();
	canon_reused = realpath(p_reused, NULL);
	reused_path = xstrfmt("%s/base", canon_reused);
	reason = xstrfmt("kagari pid=%ld start=1", (long)getpid());
	GIT(r.dir, "worktree", "add", "-q", "--lock", "--reason", reason, "--detach", reused_path,
	    r.c1);
	free(reason);

	/* ours and alive (this process) */
	p_live = make_parent();
	assert_int_equal(git_worktree_add(r.dir, r.c1, p_live, &live, &err), 0);

	/* kagari's on another host: cannot tell, kept */
	p_other = make_parent();
	other_path = xstrfmt("%s/base", p_other);
	reason = xstrfmt("kagari pid=%ld start=0 host=elsewhere.example", (long)dead_pid());
	GIT(r.dir, "worktree", "add", "-q", "--lock", "--reason", reason, "--detach", other_path,
	    r.c1);
	free(reason);

	/* the user's: plain, locked, and one whose folder is gone */
	user_wt = xstrfmt("%s/user-wt%d", test_root, repo_counter);
	GIT(r.dir, "worktree", "add", "-q", "--detach", user_wt, r.c1);
	user_locked = xstrfmt("%s/user-locked%d", test_root, repo_counter);
	GIT(r.dir, "worktree", "add", "-q", "--lock", "--reason", "on a usb disk", "--detach",
	    user_locked, r.c1);
	user_missing = xstrfmt("%s/user-missing%d", test_root, repo_counter);
	GIT(r.dir, "worktree", "add", "-q", "--detach", user_missing, r.c1);
	assert_int_equal(tmpdir_remove(user_missing), 0);

	assert_int_equal(git_prune_orphans(r.dir, &err), 0);
	assert_int_equal(err.len, 0);
	/* The repository's worktree lock file is readable by the other
	   users of a shared repository: 0644 within the umask, not 0600. */
	{
		char *lockf = xstrfmt("%s/.git/kagari-worktrees.lock", r.dir);
		struct stat lst;
		mode_t mask = umask(0);
		umask(mask);
		assert_int_equal(stat(lockf, &lst), 0);
		assert_int_equal(lst.st_mode & 0777, 0644 & ~mask);
		free(lockf);
	}

	list = GIT_OUT(r.dir, "worktree", "list", "--porcelain");
	assert_null(strstr(list, gone.path));
	assert_null(strstr(list, dead_path));
	assert_null(strstr(list, reused_path));
	assert_non_null(strstr(list, live.path));
	assert_non_null(strstr(list, other_path));
	assert_non_null(strstr(list, user_wt));
	assert_non_null(strstr(list, user_locked));
	assert_non_null(strstr(list, "locked on a usb disk"));
	assert_non_null(strstr(list, user_missing));
	free(list);
	/* the dead one's folder and its private kagari-* parent are gone */
	assert_false(exists(dead_path));
	assert_false(exists(p_dead));
	assert_false(exists(p_reused));
	assert_true(exists(live.path));
	assert_true(exists(other_path));
	assert_true(exists(user_wt));
	assert_true(exists(user_locked));

	/* running it again changes nothing */
	assert_int_equal(git_prune_orphans(r.dir, &err), 0);
	assert_true(exists(live.path));

	assert_int_equal(git_worktree_remove(&live, &err), 0);
	assert_false(exists(live.path));

	git_worktree_release(&gone);
	git_worktree_release(&live);
	free(p_gone);
	free(p_dead);
	free(canon_dead);
	free(p_reused);
	free(canon_reused);
	free(reused_path);
	free(dead_path);
	free(p_live);
	free(p_other);
	free(other_path);
	free(user_wt);
	free(user_locked);
	free(user_missing);
	sbuf_release(&err);
	repo_release(&r);
}

static void test_hooks_not_run(void **state)
{
	struct repo r;
	struct sbuf err = SBUF_INIT;
	struct git_worktree wt = GIT_WORKTREE_INIT;
	char *hook, *marker, *script, *parent, *control, *alt;

	(void)state;
	make_repo(&r);
	marker = xstrfmt("%s/hook-ran%d", test_root, repo_counter);
	script = xstrfmt("#!/bin/sh\necho \"$0\" >> '%s'\n", marker);
	hook = xstrfmt("%s/.git/hooks/post-checkout", r.dir);
	write_file(hook, script);
	assert_int_equal(chmod(hook, 0755), 0);

	parent = make_parent();
	assert_int_equal(git_worktree_add(r.dir, r.c1, parent, &wt, &err), 0);
	assert_false(exists(marker));
	assert_int_equal(git_worktree_remove(&wt, &err), 0);
	assert_false(exists(marker));
	git_worktree_release(&wt);

	/* A core.hooksPath in the repository's config is overridden too. */
	alt = xstrfmt("%s/hooks2", r.dir);
	assert_int_equal(mkdir(alt, 0700), 0);
	free(hook);
	hook = xstrfmt("%s/post-checkout", alt);
	write_file(hook, script);
	assert_int_equal(chmod(hook, 0755), 0);
	GIT(r.dir, "config", "core.hooksPath", alt);
	assert_int_equal(git_worktree_add(r.dir, r.c1, parent, &wt, &err), 0);
	assert_int_equal(git_worktree_remove(&wt, &err), 0);
	git_worktree_release(&wt);
	assert_false(exists(marker));

	/* Control: plain git runs the hook, so the test can see it. */
	control = xstrfmt("%s/control%d", test_root, repo_counter);
	GIT(r.dir, "worktree", "add", "-q", "--detach", control, r.c1);
	assert_true(exists(marker));
	GIT(r.dir, "worktree", "remove", "--force", control);

	assert_int_equal(rmdir(parent), 0);
	free(parent);
	free(control);
	free(alt);
	free(hook);
	free(marker);
	free(script);
	sbuf_release(&err);
	repo_release(&r);
}

static void test_git_not_installed(void **state)
{
	struct sbuf err = SBUF_INIT;
	char *root = NULL, *old = xstrdup(getenv("PATH") ? getenv("PATH") : "");

	(void)state;
	setenv("PATH", "/nonexistent-kagari", 1);
	assert_int_equal(git_toplevel(test_root, &root, &err), -1);
	setenv("PATH", old, 1);
	assert_null(root);
	assert_non_null(strstr(err.buf, "'git rev-parse' could not be run"));
	free(old);
	sbuf_release(&err);
}

static int group_setup(void **state)
{
	struct sbuf err = SBUF_INIT;
	(void)state;
	/* No machine-wide or personal git config can change the results. */
	setenv("GIT_CONFIG_GLOBAL", "/dev/null", 1);
	setenv("GIT_CONFIG_NOSYSTEM", "1", 1);
	setenv("GIT_AUTHOR_NAME", "Kagari Test", 1);
	setenv("GIT_AUTHOR_EMAIL", "test@example.com", 1);
	setenv("GIT_COMMITTER_NAME", "Kagari Test", 1);
	setenv("GIT_COMMITTER_EMAIL", "test@example.com", 1);
	setenv("GIT_AUTHOR_DATE", "2024-01-01T00:00:00Z", 1);
	setenv("GIT_COMMITTER_DATE", "2024-01-01T00:00:00Z", 1);
	/* The test's own `git status` must not refresh the index either,
	 * so that the index file can be compared byte for byte. */
	setenv("GIT_OPTIONAL_LOCKS", "0", 1);
	unsetenv("GIT_DIR");
	unsetenv("GIT_WORK_TREE");
	unsetenv("GIT_INDEX_FILE");
	test_root = tmpdir_create("test-git", &err);
	if (!test_root) {
		print_error("%s\n", err.buf);
		sbuf_release(&err);
		return -1;
	}
	sbuf_release(&err);
	return 0;
}

static int group_teardown(void **state)
{
	(void)state;
	if (test_root && !getenv("KAGARI_KEEP_TMP"))
		tmpdir_remove(test_root);
	free(test_root);
	return 0;
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_toplevel),
	    cmocka_unit_test(test_resolve),
	    cmocka_unit_test(test_resolve_refuses_bad_text),
	    cmocka_unit_test(test_resolve_shallow),
	    cmocka_unit_test(test_head_info),
	    cmocka_unit_test(test_show_file_exists),
    cmocka_unit_test(test_tree),
	    cmocka_unit_test(test_worktree_leaves_user_state),
	    cmocka_unit_test(test_worktree_remove_after_folder_deleted),
	    cmocka_unit_test(test_worktree_same_length),
	    cmocka_unit_test(test_worktree_copy_changes),
	    cmocka_unit_test(test_prune_orphans),
	    cmocka_unit_test(test_hooks_not_run),
	    cmocka_unit_test(test_git_not_installed),
	};
	return cmocka_run_group_tests(tests, group_setup, group_teardown);
}
