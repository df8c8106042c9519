/*
 * git: everything `kagari compare` asks of git about a repository — running
 * git, resolving a revision to a commit, HEAD and dirtiness, and whether a
 * file exists in a commit. Temporary worktrees are in git/worktree.h.
 *
 * Nothing here changes the user's working tree, index, branches, stashes or
 * config. Every call runs, through child.h (never a shell),
 *
 *	git -C REPO -c core.hooksPath=/dev/null -c core.fsmonitor=false
 *	    -c gc.auto=0 -c maintenance.auto=false ARGS...
 *
 * with stdin from /dev/null, stdout and stderr captured, and our environment
 * plus GIT_OPTIONAL_LOCKS=0 (status does not refresh the user's index),
 * LC_ALL=C (messages we can match) and GIT_TERMINAL_PROMPT=0 (never wait for
 * a password). The variables that would point git at another repository or
 * index than REPO's (GIT_DIR, GIT_WORK_TREE, GIT_INDEX_FILE, GIT_COMMON_DIR,
 * and the rest of proc_env_without_git_repo()'s list, which builds, hooks
 * and measured commands get too) are dropped, so that kagari started from
 * inside a git hook cannot write to the index of the hook's command.
 * GIT_CONFIG_NOSYSTEM, GIT_CONFIG_GLOBAL and the like are left as they are.
 * So no user program runs from these calls except configured content filters
 * (e.g. git-lfs) that a checkout needs.
 *
 * Typical order (cmd/compare.c):
 *
 *	git_toplevel(".", &root, &err);
 *	git_prune_orphans(root, &err);                  (worktree.h)
 *	git_resolve_commit(root, against, &base_sha, &err);
 *	git_head_info(root, &head_sha, &dirty, &err);
 *	git_worktree_add(root, base_sha, tmp, &wt, &err);   (worktree.h)
 *	git_show_file_exists(root, base_sha, "bench/kagari.yaml", &ex, &err);
 *	... build and measure ...
 *	git_worktree_remove(&wt, &err); git_worktree_release(&wt);
 *
 * Errors: every function returns 0 or -1; on -1 a one-line reason is
 * appended to err (git's own last stderr lines included where it failed).
 * Strings returned through char ** are the caller's to free().
 * A pending child_interrupt() stops the git call at once (it fails with
 * "... was interrupted"): call child_interrupt_clear() before cleaning up.
 */
#ifndef KAGARI_GIT_GIT_H
#define KAGARI_GIT_GIT_H

#include <stddef.h>
#include <stdint.h>

struct sbuf;
struct strvec;

/* Time limits: most calls, and those that walk a whole tree. */
#define GIT_TIMEOUT_NS (INT64_C(30) * 1000000000)
#define GIT_SLOW_TIMEOUT_NS (INT64_C(300) * 1000000000)

/*
 * Run git in REPO (a folder; git's -C) with args (NULL-terminated, without
 * "git" itself) as described above. Returns git's exit code (0..255) — a
 * non-zero exit is not an error here — with its stdout appended to out and
 * its stderr to gerr (either may be NULL). Returns -1 with a reason in err
 * when git could not be started (not installed), was killed, timed out or
 * was interrupted.
 */
int git_exec(const char *repo, const char *const *args, int64_t timeout_ns, struct sbuf *out,
	     struct sbuf *gerr, struct sbuf *err);

/*
 * git_exec() with in_len bytes at in as git's standard input (in NULL:
 * /dev/null): fast-import streams, cat-file --batch requests.
 */
int git_exec_input(const char *repo, const char *const *args, const char *in, size_t in_len,
		   int64_t timeout_ns, struct sbuf *out, struct sbuf *gerr, struct sbuf *err);

/*
 * git_exec() with git's standard input read from in_fd (the caller's, left
 * open): a stream longer than memory should hold, written by another
 * thread into a pipe (the history branch's fast-import stream).
 */
int git_exec_fd(const char *repo, const char *const *args, int in_fd, int64_t timeout_ns,
		struct sbuf *out, struct sbuf *gerr, struct sbuf *err);

/*
 * The same, but any non-zero exit is also -1, with "'git SUBCMD' failed
 * (exited with code N): <git's last stderr lines>" in err. Returns 0.
 */
int git_run(const char *repo, const char *const *args, int64_t timeout_ns, struct sbuf *out,
	    struct sbuf *err);

/*
 * Append "'git SUBCMD' failed (exited with code N): <the last lines of
 * gerr>" to err: the message git_run() gives, for callers of git_exec().
 */
void git_add_failure(const char *const *args, int code, const struct sbuf *gerr, struct sbuf *err);

/*
 * The top folder of the working tree that contains dir
 * (`rev-parse --show-toplevel`), in *root (caller frees). -1 with a clear
 * message when dir does not exist, is not inside a git repository, or is in
 * one without a working tree (bare).
 */
int git_toplevel(const char *dir, char **root, struct sbuf *err);

/*
 * Check revision text from the user before it reaches git: rejects an empty
 * text, a leading '-' (it would be read as an option), control characters
 * and whitespace. Returns 0 or -1 with the reason.
 */
int git_check_rev(const char *rev, struct sbuf *err);

/*
 * Resolve rev (anything `git rev-parse` understands: a sha, branch, tag,
 * HEAD~1, origin/main, ...) to the full hex sha of a commit, in *sha (caller
 * frees). Errors: invalid text (git_check_rev); an unknown revision (the
 * message names it and says to fetch it; in a shallow clone it says so and
 * suggests `git fetch --unshallow`, or `fetch-depth: 0` for GitHub's
 * actions/checkout); a revision that names a tree or blob; no commits yet.
 */
int git_resolve_commit(const char *repo, const char *rev, char **sha, struct sbuf *err);

/* *shallow = 1 when repo is a shallow clone (`--is-shallow-repository`). */
int git_is_shallow(const char *repo, int *shallow, struct sbuf *err);

/*
 * HEAD's commit sha in *head_sha (caller frees; NULL on an unborn branch,
 * i.e. before the first commit) and *dirty: 1 when the working tree holds
 * a change the measured code may see — a staged or unstaged change to a
 * tracked file, or an untracked file other than kagari's own: the paths in
 * skip (absolute and canonical, as realpath() gives them: the suite files
 * being run, kagari's --output and export files; NULL for none) and
 * anything in a `.kagari/` folder (the history). So the suite file a user
 * has not committed yet, and the reports kagari writes, do not make a run
 * dirty, but a new source file does. Ignored files never count.
 * Submodules count as git status is configured to show them. The user's
 * index is not rewritten (GIT_OPTIONAL_LOCKS=0). head_sha or dirty may be
 * NULL when not wanted.
 */
int git_head_info(const char *repo, char **head_sha, int *dirty, const struct strvec *skip,
		  struct sbuf *err);
/*
 * Like git_head_info(), with the records of `git status --porcelain -z
 * --untracked-files=all` that make the tree dirty by that rule in *status
 * (replaced; empty when clean, as git_head_info()'s dirty is 0): compare
 * two such texts to see whether the tree changed in between.
 */
int git_head_status(const char *repo, char **head_sha, struct sbuf *status,
		    const struct strvec *skip, struct sbuf *err);

/*
 * *exists = 1 when relpath (relative to the top of the working tree, '/'
 * separated; "./" and "." components are ignored) names a file or folder
 * in commit sha (`git cat-file -e SHA:PATH`), else 0. -1 when relpath is
 * empty, absolute or contains "..", or when sha is not a commit here.
 */
int git_show_file_exists(const char *repo, const char *sha, const char *relpath, int *exists,
			 struct sbuf *err);

/* 1 if s is a full hex object name (40 or 64 lowercase hex digits). */
int git_is_full_sha(const char *s);

/*
 * The values of trailer `key` (e.g. "Kagari-Accept") in the commits of
 * base..head, read with git's own trailer parsing (`git log
 * --format=%(trailers:key=KEY,valueonly,unfold)`), newest commit first:
 * commits->v[i] is the full sha of the commit that carries values->v[i].
 * base and head are full shas. Returns 0, or -1 with the reason in err.
 */
int git_range_trailers(const char *repo, const char *base, const char *head, const char *key,
		       struct strvec *commits, struct strvec *values, struct sbuf *err);

/*
 * The user part of a URL "scheme://USER[:PASSWORD]@host/...": its offset
 * and length (a token lives here). 1 when there is one, else 0. Every
 * place that shows, drops or redacts credentials finds them here.
 */
int git_url_userinfo(const char *url, size_t *start, size_t *len);

#endif
