/*
 * git/tree: a commit's files without a checkout (tree.h), from `git
 * ls-tree -z` and `git cat-file --batch --follow-symlinks`.
 */
#include "git/tree.h"

#include <stdlib.h>
#include <string.h>

#include "base/path.h"
#include "base/sbuf.h"
#include "base/strvec.h"
#include "base/xalloc.h"
#include "git/git.h"

/* relpath without "." and empty components in out ("" for the top); -1
   for an absolute path or one with "..". */
static int tree_path(const char *relpath, struct sbuf *out, struct sbuf *err)
{
	sbuf_reset(out);
	if (relpath[0] == '/') {
		sbuf_addf(err, "'%s': expected a path relative to the top of the repository",
			  relpath);
		return -1;
	}
	if (path_clean_relative(relpath, out)) {
		sbuf_addf(err, "'%s': a path in a commit may not contain '..'", relpath);
		return -1;
	}
	return 0;
}

/*
 * `git ls-tree -z SHA [-- PATH]` into out: records "MODE TYPE OID\tPATH"
 * each ended by NUL.
 */
static int ls_tree(const char *repo, const char *sha, const char *path, struct sbuf *out,
		   struct sbuf *err)
{
	const char *args[] = {"ls-tree", "-z", sha, "--", path, NULL};
	if (!*path)
		args[3] = NULL;
	return git_run(repo, args, GIT_TIMEOUT_NS, out, err);
}

/* One record of ls-tree's output at *p (moved past it): its mode, type
   and path; 0 at the end. */
static int next_entry(const char **p, const char *end, const char **mode, const char **type,
		      const char **path)
{
	if (*p >= end)
		return 0;
	const char *rec = *p;
	size_t len = strnlen(rec, (size_t)(end - rec));
	*p = rec + len + 1;
	const char *tab = memchr(rec, '\t', len);
	const char *sp = memchr(rec, ' ', len);
	if (!tab || !sp)
		return next_entry(p, end, mode, type, path);
	*mode = rec;
	*type = sp + 1;
	*path = tab + 1;
	return 1;
}

static int is_file_entry(const char *mode, const char *type)
{
	return !strncmp(type, "blob ", 5) && strncmp(mode, "160000", 6);
}

int git_tree_kind(const char *repo, const char *sha, const char *relpath, enum git_entry *kind,
		  struct sbuf *err)
{
	struct sbuf path = SBUF_INIT, out = SBUF_INIT;
	int rc = -1;
	*kind = GIT_ENTRY_NONE;
	if (tree_path(relpath, &path, err))
		goto done;
	if (!path.len) {
		*kind = GIT_ENTRY_DIR;
		rc = 0;
		goto done;
	}
	if (ls_tree(repo, sha, path.buf, &out, err))
		goto done;
	const char *p = out.buf, *end = out.buf + out.len, *mode, *type, *name;
	while (next_entry(&p, end, &mode, &type, &name))
		if (!strcmp(name, path.buf)) {
			if (!strncmp(type, "tree ", 5))
				*kind = GIT_ENTRY_DIR;
			else if (is_file_entry(mode, type))
				*kind = GIT_ENTRY_FILE;
		}
	rc = 0;
done:
	sbuf_release(&path);
	sbuf_release(&out);
	return rc;
}

int git_tree_files(const char *repo, const char *sha, const char *reldir, struct strvec *names,
		   struct sbuf *err)
{
	struct sbuf path = SBUF_INIT, out = SBUF_INIT;
	int rc = -1;
	if (tree_path(reldir, &path, err))
		goto done;
	/* "DIR/" lists the folder's entries; the top needs no path. */
	if (path.len)
		sbuf_addch(&path, '/');
	if (ls_tree(repo, sha, path.buf, &out, err))
		goto done;
	const char *p = out.buf, *end = out.buf + out.len, *mode, *type, *name;
	while (next_entry(&p, end, &mode, &type, &name)) {
		if (strncmp(name, path.buf, path.len) || !is_file_entry(mode, type))
			continue;
		const char *base = name + path.len;
		if (*base && !strchr(base, '/'))
			strvec_push(names, base);
	}
	rc = 0;
done:
	sbuf_release(&path);
	sbuf_release(&out);
	return rc;
}

int git_tree_read(const char *repo, const char *sha, const char *relpath, struct sbuf *out,
		  struct sbuf *err)
{
	struct sbuf path = SBUF_INIT, in = SBUF_INIT, raw = SBUF_INIT;
	int rc = -1;
	sbuf_reset(out);
	if (tree_path(relpath, &path, err))
		goto done;
	sbuf_addf(&in, "%s:%s\n", sha, path.buf);
	const char *args[] = {"cat-file", "--batch", "--follow-symlinks", NULL};
	struct sbuf gerr = SBUF_INIT;
	int code = git_exec_input(repo, args, in.buf, in.len, GIT_TIMEOUT_NS, &raw, &gerr, err);
	if (code > 0)
		git_add_failure(args, code, &gerr, err);
	sbuf_release(&gerr);
	if (code)
		goto done;
	/* "OID blob SIZE\nDATA\n", or "NAME missing", "dangling ...",
	   "symlink ..." (a link out of the commit), "loop ...", "notdir ...". */
	const char *nl = memchr(raw.buf, '\n', raw.len);
	const char *sp = nl ? memchr(raw.buf, ' ', (size_t)(nl - raw.buf)) : NULL;
	if (!sp || strncmp(sp, " blob ", 6)) {
		sbuf_addf(err, "%s is not a file in commit %.12s", path.buf, sha);
		goto done;
	}
	char *endp;
	unsigned long long size = strtoull(sp + 6, &endp, 10);
	if (endp != nl || size > raw.len - (size_t)(nl + 1 - raw.buf)) {
		sbuf_addf(err, "'git cat-file' gave a short answer for %s", path.buf);
		goto done;
	}
	sbuf_add(out, nl + 1, (size_t)size);
	rc = 0;
done:
	sbuf_release(&path);
	sbuf_release(&in);
	sbuf_release(&raw);
	return rc;
}
