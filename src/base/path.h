/*
 * base/path: lexical path arithmetic, the one place kagari asks whether a
 * path lies inside a folder (git's dir.c keeps its own in one place too).
 *
 * Lexical: nothing here touches the file system or resolves symbolic
 * links; callers that need the real location resolve first (realpath) and
 * then ask.
 */
#ifndef KAGARI_BASE_PATH_H
#define KAGARI_BASE_PATH_H

#include <stddef.h>

/*
 * The next non-empty '/'-separated component of *p: returns its start and
 * sets *n to its length, and moves *p past it; NULL when none is left.
 *	for (const char *c; (c = path_component(&p, &n));) ...
 */
const char *path_component(const char **p, size_t *n);

/*
 * An absolute path with empty and "." components dropped and ".." applied
 * ("/a//b/./c/../d" -> "/a/b/d"; ".." at the root stays at the root; "/"
 * for nothing left). A relative p is taken as relative to "/". Caller frees.
 */
char *path_normalize(const char *p);

/*
 * `path` relative to `root` when it is root or lies below it, else NULL:
 * "" for root itself, "b/c" for "/a/b/c" under "/a". Whole components
 * only ("/ab" is not under "/a"); trailing slashes of root are ignored, so
 * every absolute path lies under "/". Both are taken as written (normalise
 * first when they may hold "." or ".."). The result points into path.
 */
const char *path_inside(const char *path, const char *root);

/*
 * Append a relative path's components to out (which the caller resets),
 * '/'-separated, empty and "." components dropped ("./a//b/" -> "a/b",
 * "." -> ""). Returns -1, out partly written, when a component is "..":
 * a path that must stay inside a tree (a commit's, a repository's) may
 * not climb out of it. Lexical, as everything here; whether relpath may
 * be absolute or empty is the caller's question.
 */
struct sbuf;
int path_clean_relative(const char *relpath, struct sbuf *out);

#endif
