/*
 * git/tree: the files of a commit, read without checking it out — what a
 * path is, the files of a folder, a file's content — so that kagari can
 * find the base revision's suites by the rule it finds the working tree's
 * by (suite/discover.h), before any worktree exists.
 *
 * relpath is relative to the top of the repository, '/'-separated; "" and
 * "." name the top; "." and empty components are ignored; an absolute
 * path or one with ".." is refused (-1). sha is a full commit sha. Every
 * call goes through git_exec() (git.h: no hooks, a clean environment);
 * each returns 0, or -1 with a one-line reason appended to err.
 */
#ifndef KAGARI_GIT_TREE_H
#define KAGARI_GIT_TREE_H

#include <stddef.h>

struct sbuf;
struct strvec;

enum git_entry { GIT_ENTRY_NONE, GIT_ENTRY_FILE, GIT_ENTRY_DIR };

/* What relpath is in commit sha: nothing, a file (a regular file or a
   symbolic link) or a folder (a submodule counts as nothing: its files
   are not in this repository's commits). */
int git_tree_kind(const char *repo, const char *sha, const char *relpath, enum git_entry *kind,
		  struct sbuf *err);

/* The names (no folder) of the files directly in folder reldir of commit
   sha, appended to names in git's order. */
int git_tree_files(const char *repo, const char *sha, const char *reldir, struct strvec *names,
		   struct sbuf *err);

/* The content of file relpath in commit sha (symbolic links inside the
   commit followed) in out (replaced); -1 when it is not a readable file. */
int git_tree_read(const char *repo, const char *sha, const char *relpath, struct sbuf *out,
		  struct sbuf *err);

#endif
