/*
 * git/worktree: the temporary detached worktree of the base revision
 * (worktree.h) — adding it under kagari's private folder with a lock that
 * names its owner, removing it, and pruning worktrees orphaned by a kagari
 * that died.
 */
#include "git/worktree.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "base/fileio.h"
#include "base/sbuf.h"
#include "base/strvec.h"
#include "base/tmpdir.h"
#include "base/xalloc.h"
#include "git/git.h"
#include "proc/proc.h"

#define LOCK_PREFIX "kagari "

/*
 * Concurrent compares in one repository: `git worktree add`, `remove` and
 * `list` of several processes race on .git/worktrees/ (one reads an entry
 * another is still writing: "failed to read .git/worktrees/base7/
 * commondir"). Every kagari serialises its worktree changes and listings
 * with an exclusive flock on <git common dir>/kagari-worktrees.lock (made
 * once, left in place: removing a lock file races with its next user).
 * Nested calls of one process share the lock (a depth count: a second
 * flock of the same file from the same process would wait for itself).
 * A lock that cannot be had within WT_LOCK_WAIT_MS goes on unlocked,
 * which is what kagari did before.
 */
#define WT_LOCK_FILE "kagari-worktrees.lock"
/* In a worktree's admin folder: flocked by its maker while it lives. */
#define WT_LIVE_FILE "kagari-live.lock"
#define WT_LOCK_WAIT_MS 600000

static int wt_lock_fd = -1, wt_lock_depth;

static int rev_parse_path(const char *dir, const char *opt, char **out, struct sbuf *err);

static void repo_lock(const char *repo)
{
	if (wt_lock_depth++ > 0)
		return;
	char *common = NULL;
	struct sbuf scratch = SBUF_INIT;
	if (rev_parse_path(repo, "--git-common-dir", &common, &scratch) == 0 && *common) {
		char *path = common[0] == '/' ? xstrfmt("%s/" WT_LOCK_FILE, common)
					      : xstrfmt("%s/%s/" WT_LOCK_FILE, repo, common);
		/* 0644 (within the umask): another user of a shared
		   repository must be able to open it; one who may not write
		   it takes the flock on a read-only descriptor. */
		int fd = open(path, O_RDWR | O_CREAT | O_CLOEXEC | O_NOFOLLOW, 0644);
		if (fd < 0 && (errno == EACCES || errno == EPERM || errno == EROFS))
			fd = open(path, O_RDONLY | O_CLOEXEC | O_NOFOLLOW);
		for (int waited = 0; fd >= 0; waited += 10) {
			if (flock(fd, LOCK_EX | LOCK_NB) == 0) {
				wt_lock_fd = fd;
				break;
			}
			if (errno != EWOULDBLOCK || waited >= WT_LOCK_WAIT_MS) {
				close(fd);
				break;
			}
			struct timespec ts = {0, 10 * 1000 * 1000};
			nanosleep(&ts, NULL);
		}
		free(path);
	}
	free(common);
	sbuf_release(&scratch);
}

static void repo_unlock(void)
{
	if (wt_lock_depth <= 0 || --wt_lock_depth > 0)
		return;
	if (wt_lock_fd >= 0)
		close(wt_lock_fd);
	wt_lock_fd = -1;
}

static void lock_reason(struct sbuf *sb)
{
	sbuf_adds(sb, LOCK_PREFIX);
	proc_owner_tag(sb);
}

struct wt_entry {
	char *path;
	char *lock_reason; /* NULL when not locked; "" locked without one */
};

struct wt_list {
	struct wt_entry *v;
	size_t nr, alloc;
};

static void wt_list_release(struct wt_list *l)
{
	for (size_t i = 0; i < l->nr; i++) {
		free(l->v[i].path);
		free(l->v[i].lock_reason);
	}
	free(l->v);
	l->v = NULL;
	l->nr = l->alloc = 0;
}

/*
 * Parse `worktree list --porcelain` output: records of "key[ value]"
 * fields separated by sep ('\0' with -z, else '\n'), records separated by
 * an empty field.
 */
static void parse_list(const struct sbuf *out, char sep, struct wt_list *l)
{
	const char *p = out->buf, *end = out->buf + out->len;
	struct wt_entry *cur = NULL;

	while (p < end) {
		const char *e = memchr(p, sep, (size_t)(end - p));
		size_t n = e ? (size_t)(e - p) : (size_t)(end - p);
		if (!n) {
			cur = NULL;
		} else if (n > 9 && !strncmp(p, "worktree ", 9)) {
			ALLOC_GROW(l->v, l->nr + 1, l->alloc);
			cur = &l->v[l->nr++];
			cur->path = xstrndup(p + 9, n - 9);
			cur->lock_reason = NULL;
		} else if (cur && n >= 6 && !strncmp(p, "locked", 6) && (n == 6 || p[6] == ' ')) {
			free(cur->lock_reason);
			cur->lock_reason = n == 6 ? xstrdup("") : xstrndup(p + 7, n - 7);
		}
		p = e ? e + 1 : end;
	}
}

static int list_worktrees(const char *repo, struct wt_list *l, struct sbuf *err)
{
	static const char *const zargs[] = {"worktree", "list", "--porcelain", "-z", NULL};
	static const char *const args[] = {"worktree", "list", "--porcelain", NULL};
	struct sbuf out = SBUF_INIT, gerr = SBUF_INIT;
	int code = git_exec(repo, zargs, GIT_TIMEOUT_NS, &out, &gerr, err);
	char sep = '\0';

	if (code == 129) {
		/* git before 2.36 has no -z; our paths hold no newline. */
		sbuf_reset(&out);
		if (git_run(repo, args, GIT_TIMEOUT_NS, &out, err) < 0)
			code = -1;
		else
			code = 0;
		sep = '\n';
	} else if (code > 0) {
		git_add_failure(zargs, code, &gerr, err);
		code = -1;
	}
	if (code == 0)
		parse_list(&out, sep, l);
	sbuf_release(&out);
	sbuf_release(&gerr);
	return code;
}

/* 1 if path is a registered worktree of repo, 0 if not, -1 on failure. */
static int is_registered(const char *repo, const char *path, struct sbuf *err)
{
	struct wt_list l = {0};
	int ret;

	if (list_worktrees(repo, &l, err) < 0)
		return -1;
	ret = 0;
	/* Entry 0 is the main worktree: never one of ours. */
	for (size_t i = 1; i < l.nr; i++)
		if (!strcmp(l.v[i].path, path))
			ret = 1;
	wt_list_release(&l);
	return ret;
}

static int path_exists(const char *path)
{
	struct stat st;
	return lstat(path, &st) == 0 || errno != ENOENT;
}

/*
 * Remove the worktree at path (folder and entry); see git_worktree_remove.
 */
static int remove_worktree_locked(const char *repo, const char *path, struct sbuf *err);

static int remove_worktree(const char *repo, const char *path, struct sbuf *err)
{
	repo_lock(repo);
	int ret = remove_worktree_locked(repo, path, err);
	repo_unlock();
	return ret;
}

static int remove_worktree_locked(const char *repo, const char *path, struct sbuf *err)
{
	const char *args[] = {"worktree", "remove", "--force", "--force", path, NULL};
	struct sbuf why = SBUF_INIT;
	int reg, ret = -1;

	if (git_run(repo, args, GIT_SLOW_TIMEOUT_NS, NULL, &why) < 0) {
		reg = is_registered(repo, path, err);
		if (reg < 0)
			goto out;
		if (reg) {
			/* git refused with the folder present (a submodule,
			 * a file it cannot delete): delete the folder, which
			 * is ours, and let git drop the entry of a missing
			 * folder. */
			tmpdir_remove(path);
			sbuf_reset(&why);
			if (git_run(repo, args, GIT_SLOW_TIMEOUT_NS, NULL, &why) < 0) {
				sbuf_addf(err,
					  "cannot remove the temporary "
					  "worktree '%s': %s",
					  path, why.buf);
				goto out;
			}
		}
	}
	if (path_exists(path) && tmpdir_remove(path) < 0) {
		sbuf_addf(err, "cannot delete the temporary worktree folder '%s'", path);
		goto out;
	}
	ret = 0;
out:
	sbuf_release(&why);
	return ret;
}

void git_worktree_release(struct git_worktree *wt)
{
	free(wt->repo);
	free(wt->path);
	free(wt->sha);
	wt->repo = wt->path = wt->sha = NULL;
	if (wt->live_lock > 0)
		close(wt->live_lock - 1);
	wt->live_lock = 0;
}

/*
 * Hold the flock on kagari-live.lock in the admin folder of the worktree
 * just added (see git_prune_orphans). Called with the repository's
 * worktree lock held, right after `git worktree add`. Without it (the
 * filesystem has no flock, say) the worktree is judged by the older rules;
 * that is no reason to fail the compare.
 */
static void hold_live_lock(struct git_worktree *wt)
{
	char *admin = NULL;
	struct sbuf scratch = SBUF_INIT;
	if (rev_parse_path(wt->path, "--absolute-git-dir", &admin, &scratch) == 0 && *admin) {
		int fd = tmpdir_lock_named(admin, WT_LIVE_FILE, 1, &scratch);
		if (fd >= 0)
			wt->live_lock = fd + 1;
	}
	free(admin);
	sbuf_release(&scratch);
}

/* 1 when dir is a git directory (it has HEAD and objects/). */
static int is_git_dir(const char *dir)
{
	struct sbuf p = SBUF_INIT;
	sbuf_addf(&p, "%s/HEAD", dir);
	int ok = path_exists(p.buf);
	sbuf_reset(&p);
	sbuf_addf(&p, "%s/objects", dir);
	ok = ok && path_exists(p.buf);
	sbuf_release(&p);
	return ok;
}

/* `git rev-parse OPT` in dir, first line, in *out (caller frees). */
static int rev_parse_path(const char *dir, const char *opt, char **out, struct sbuf *err)
{
	const char *args[] = {"rev-parse", opt, NULL};
	struct sbuf o = SBUF_INIT;
	*out = NULL;
	if (git_run(dir, args, GIT_TIMEOUT_NS, &o, err) < 0) {
		sbuf_release(&o);
		return -1;
	}
	char *nl = memchr(o.buf, '\n', o.len);
	if (nl)
		sbuf_setlen(&o, (size_t)(nl - o.buf));
	*out = sbuf_detach(&o);
	return 0;
}

/*
 * The user's local copy of submodule `name` (at `path` in the superproject):
 * <gitdir>/modules/<name>, <commondir>/modules/<name> (git keeps a linked
 * worktree's submodules under its own git dir), or the git dir of the
 * user's checkout at <userdir>/<path>. NULL when there is none.
 */
static char *local_submodule(const char *gitdir, const char *commondir, const char *userdir,
			     const char *name, const char *path)
{
	const char *bases[] = {gitdir, commondir};
	for (size_t i = 0; i < 2; i++) {
		if (!bases[i])
			continue;
		char *cand = xstrfmt("%s/modules/%s", bases[i], name);
		if (is_git_dir(cand))
			return cand;
		free(cand);
	}
	if (userdir) {
		char *dir = xstrfmt("%s/%s", userdir, path);
		char *dotgit = xstrfmt("%s/.git", dir), *abs = NULL, *top = NULL;
		struct sbuf ignored = SBUF_INIT;
		/* Only a checkout of its own: else rev-parse would find the
		 * superproject. */
		if (path_exists(dotgit) &&
		    !rev_parse_path(dir, "--absolute-git-dir", &abs, &ignored) &&
		    !rev_parse_path(dir, "--show-toplevel", &top, &ignored)) {
			char *real_dir = realpath(dir, NULL);
			if (!real_dir || strcmp(real_dir, top) || !is_git_dir(abs)) {
				free(abs);
				abs = NULL;
			}
			free(real_dir);
		}
		free(top);
		free(dir);
		free(dotgit);
		sbuf_release(&ignored);
		return abs;
	}
	return NULL;
}

/*
 * The "submodule.NAME.path\nPATH\0" entries of the worktree folder wt's
 * .gitmodules in *out: 1 when there are some, 0 when there is no
 * .gitmodules or it names no path, -1 on error (in err).
 */
static int read_gitmodules(const char *wt, struct sbuf *out, struct sbuf *err)
{
	static const char *const list[] = {
	    "config", "-z", "-f", ".gitmodules", "--get-regexp", "^submodule\\..*\\.path$", NULL};
	struct sbuf gerr = SBUF_INIT;
	int ret = -1;

	char *gm = xstrfmt("%s/.gitmodules", wt);
	int have_gm = path_exists(gm);
	free(gm);
	if (!have_gm) {
		ret = 0;
		goto out;
	}
	int code = git_exec(wt, list, GIT_TIMEOUT_NS, out, &gerr, err);
	if (code < 0)
		goto out;
	if (code == 1) { /* no submodule paths */
		ret = 0;
		goto out;
	}
	if (code) {
		git_add_failure(list, code, &gerr, err);
		goto out;
	}
	ret = 1;
out:
	sbuf_release(&gerr);
	return ret;
}

/*
 * Of the .gitmodules entries in `list` (read_gitmodules()), the gitlinks of
 * the commit checked out in wt: their names, paths and local copies
 * (local_submodule()) pushed to names, paths and srcs. A submodule without
 * a local copy is an error.
 */
static int find_submodules(const char *wt, const struct sbuf *list, const char *gitdir,
			   const char *commondir, const char *userdir, const char *repo,
			   struct strvec *names, struct strvec *paths, struct strvec *srcs,
			   struct sbuf *err)
{
	struct sbuf stage = SBUF_INIT;
	int ret = -1;

	/* Entries: "submodule.NAME.path\nPATH\0". */
	for (const char *p = list->buf; p < list->buf + list->len; p += strlen(p) + 1) {
		const char *nl = strchr(p, '\n');
		size_t klen = nl ? (size_t)(nl - p) : 0;
		if (!nl || klen <= strlen("submodule..path"))
			continue;
		char *name = xstrndup(p + strlen("submodule."), klen - strlen("submodule..path"));
		const char *path = nl + 1;
		/* Only gitlinks of this commit: .gitmodules may list more. */
		char *spec = xstrfmt(":(literal)%s", path);
		const char *ls[] = {"ls-files", "--stage", "--", spec, NULL};
		sbuf_reset(&stage);
		int lrc = git_run(wt, ls, GIT_TIMEOUT_NS, &stage, err);
		free(spec);
		if (lrc < 0) {
			free(name);
			goto out;
		}
		if (strncmp(stage.buf, "160000 ", 7)) {
			free(name);
			continue;
		}
		char *src = local_submodule(gitdir, commondir, userdir, name, path);
		if (!src) {
			sbuf_addf(err,
				  "submodule '%s' (%s) of the base revision is "
				  "not available locally, and kagari never "
				  "fetches: run 'git -C %s submodule update "
				  "--init --recursive' and try again",
				  name, path, repo);
			free(name);
			goto out;
		}
		strvec_push_take(names, name);
		strvec_push(paths, path);
		strvec_push_take(srcs, src);
	}
	ret = 0;
out:
	sbuf_release(&stage);
	return ret;
}

/* `git -c ... submodule update -- PATH...` in wt, each from srcs[i]. */
static int update_submodules(const char *wt, const struct strvec *names, const struct strvec *paths,
			     const struct strvec *srcs, struct sbuf *err)
{
	struct strvec args = STRVEC_INIT;

	strvec_pushv(&args, (const char *const[]){"-c", "protocol.allow=never", "-c",
						  "protocol.file.allow=always", NULL});
	for (size_t i = 0; i < paths->nr; i++) {
		strvec_push(&args, "-c");
		strvec_pushf(&args, "submodule.%s.url=%s", names->v[i], srcs->v[i]);
	}
	strvec_pushv(&args, (const char *const[]){"submodule", "update", "--quiet", "--", NULL});
	strvec_pushv(&args, paths->v);
	int rc = git_run(wt, args.v, GIT_SLOW_TIMEOUT_NS, NULL, err);
	strvec_clear(&args);
	return rc < 0 ? -1 : 0;
}

/*
 * Check out the submodules of the worktree folder `wt` (recursively), each
 * cloned from the user's local copy (local_submodule()) and never from its
 * URL: `git -c protocol.allow=never -c protocol.file.allow=always -c
 * submodule.NAME.url=LOCAL ... submodule update -- PATH...`. Without
 * `--init`, nothing is written to the repository's config (the -c url makes
 * the submodule active for this one call); the clones live under the
 * worktree's own git dir and go with it. gitdir/commondir/userdir: where the
 * local copies of this level's submodules are (see local_submodule()).
 */
static int add_submodules(const char *wt, const char *gitdir, const char *commondir,
			  const char *userdir, const char *repo, int depth, struct sbuf *err)
{
	struct sbuf out = SBUF_INIT;
	struct strvec paths = STRVEC_INIT, names = STRVEC_INIT, srcs = STRVEC_INIT;
	int ret = -1;

	if (depth > 16) {
		sbuf_adds(err, "submodules nested more than 16 deep");
		goto out;
	}
	int have = read_gitmodules(wt, &out, err);
	if (have <= 0) {
		ret = have;
		goto out;
	}
	if (find_submodules(wt, &out, gitdir, commondir, userdir, repo, &names, &paths, &srcs, err))
		goto out;
	if (!paths.nr) {
		ret = 0;
		goto out;
	}
	if (update_submodules(wt, &names, &paths, &srcs, err))
		goto out;
	for (size_t i = 0; i < paths.nr; i++) {
		char *sub = xstrfmt("%s/%s", wt, paths.v[i]);
		char *user = userdir ? xstrfmt("%s/%s", userdir, paths.v[i]) : NULL;
		int rc = add_submodules(sub, srcs.v[i], NULL, user, repo, depth + 1, err);
		free(sub);
		free(user);
		if (rc)
			goto out;
	}
	ret = 0;
out:
	sbuf_release(&out);
	strvec_clear(&paths);
	strvec_clear(&names);
	strvec_clear(&srcs);
	return ret;
}

/*
 * `git worktree add --lock --detach` of wt->sha at wt->path, holding the
 * live lock of the new worktree (hold_live_lock()).
 */
static int check_out_worktree(struct git_worktree *wt, struct sbuf *err)
{
	struct sbuf reason = SBUF_INIT, why = SBUF_INIT;
	int ret = 0;

	lock_reason(&reason);
	const char *args[] = {"worktree", "add",      "--quiet", "--lock", "--reason",
			      reason.buf, "--detach", wt->path,	 wt->sha,  NULL};
	repo_lock(wt->repo);
	int arc = git_run(wt->repo, args, GIT_SLOW_TIMEOUT_NS, NULL, &why);
	if (arc >= 0)
		hold_live_lock(wt);
	repo_unlock();
	if (arc < 0) {
		sbuf_addf(err,
			  "cannot check out '%s' into a temporary "
			  "worktree: %s",
			  wt->sha, why.buf);
		ret = -1;
	}
	sbuf_release(&why);
	sbuf_release(&reason);
	return ret;
}

/* `git update-index -q --refresh` in the new worktree. */
static int refresh_worktree_index(const struct git_worktree *wt, struct sbuf *err)
{
	static const char *const args[] = {"update-index", "-q", "--refresh", NULL};
	if (git_run(wt->path, args, GIT_SLOW_TIMEOUT_NS, NULL, err) < 0)
		return -1;
	return 0;
}

/*
 * A build may need the base's submodules: add_submodules() of the new
 * worktree, from the local copies of the repository's.
 */
static int add_worktree_submodules(const struct git_worktree *wt, struct sbuf *err)
{
	char *gitdir = NULL, *common = NULL;
	int rc = rev_parse_path(wt->repo, "--absolute-git-dir", &gitdir, err);
	if (!rc)
		rc = rev_parse_path(wt->repo, "--git-common-dir", &common, err);
	if (!rc && common[0] != '/') {
		char *abs = xstrfmt("%s/%s", wt->repo, common);
		free(common);
		common = abs;
	}
	if (!rc)
		rc = add_submodules(wt->path, gitdir, common, wt->repo, wt->repo, 0, err);
	free(gitdir);
	free(common);
	return rc;
}

/*
 * The name of the worktree's folder: "base", or (len > 0) the one that
 * makes <parent>/NAME len characters long — a prefix of "base" ("b",
 * "ba", "bas") or "base" padded with '_' — when there is one. Every such
 * name is_base_name().
 */
static char *folder_name(const char *parent, size_t len)
{
	size_t used = strlen(parent) + 1;
	if (!len || len <= used)
		return xstrdup("base");
	size_t k = len - used;
	if (k <= 4)
		return xstrndup("base", k);
	char *name = xmalloc(k + 1);
	memcpy(name, "base", 4);
	memset(name + 4, '_', k - 4);
	name[k] = '\0';
	return name;
}

/* Is name one folder_name() gives? */
static int is_base_name(const char *name)
{
	size_t n = strlen(name);
	if (!n || strncmp(name, "base", n < 4 ? n : 4))
		return 0;
	return n <= 4 || strspn(name + 4, "_") == n - 4;
}

int git_worktree_add_as(const char *repo, const char *sha, const char *parent_dir, unsigned flags,
			struct git_worktree *wt, struct sbuf *err)
{
	struct sbuf scratch = SBUF_INIT;
	char *repo_abs = NULL, *parent_abs = NULL, *name = NULL;
	struct stat st;
	int ret = -1;

	if (!git_is_full_sha(sha)) {
		sbuf_addf(err, "invalid commit '%s': expected a full hex sha", sha ? sha : "");
		return -1;
	}
	repo_abs = realpath(repo, NULL);
	if (!repo_abs) {
		sbuf_addf(err, "cannot use repository folder '%s': %s", repo, strerror(errno));
		goto out;
	}
	parent_abs = realpath(parent_dir, NULL);
	if (!parent_abs || stat(parent_abs, &st) < 0 || !S_ISDIR(st.st_mode)) {
		sbuf_addf(err, "cannot use temporary folder '%s': %s", parent_dir,
			  parent_abs ? "not a folder" : strerror(errno));
		goto out;
	}

	git_worktree_release(wt);
	wt->repo = repo_abs;
	repo_abs = NULL;
	name = folder_name(parent_abs, flags & GIT_WORKTREE_SAME_LENGTH ? strlen(wt->repo) : 0);
	wt->path = xstrfmt("%s/%s", parent_abs, name);
	wt->sha = xstrdup(sha);
	if (path_exists(wt->path)) {
		sbuf_addf(err,
			  "cannot create the temporary worktree '%s': it "
			  "already exists",
			  wt->path);
		/* Not ours: make sure remove leaves it alone. */
		free(wt->path);
		wt->path = NULL;
		goto out;
	}

	if (check_out_worktree(wt, err) || refresh_worktree_index(wt, err) ||
	    (!(flags & GIT_WORKTREE_NO_SUBMODULES) && add_worktree_submodules(wt, err))) {
		remove_worktree(wt->repo, wt->path, &scratch);
		goto out;
	}
	ret = 0;
out:
	free(repo_abs);
	free(parent_abs);
	free(name);
	sbuf_release(&scratch);
	return ret;
}

int git_worktree_add(const char *repo, const char *sha, const char *parent_dir,
		     struct git_worktree *wt, struct sbuf *err)
{
	return git_worktree_add_as(repo, sha, parent_dir, 0, wt, err);
}

int git_worktree_add_submodules(const struct git_worktree *wt, struct sbuf *err)
{
	return add_worktree_submodules(wt, err);
}

/* The folders above dst, below top, made where missing. */
static int make_parents(const char *top, const char *dst, struct sbuf *err)
{
	char *p = xstrdup(dst);
	int rc = 0;
	for (char *slash = p + strlen(top) + 1; (slash = strchr(slash, '/')); slash++) {
		*slash = '\0';
		if (mkdir(p, 0777) != 0 && errno != EEXIST) {
			sbuf_addf(err, "cannot create '%s': %s", p, strerror(errno));
			rc = -1;
			break;
		}
		*slash = '/';
	}
	free(p);
	return rc;
}

/* src (regular or a symlink, as st says) to dst, replacing what is there. */
static int copy_entry(const char *src, const struct stat *st, const char *dst, struct sbuf *err)
{
	struct stat dst_st;
	if (lstat(dst, &dst_st) == 0 && !S_ISREG(dst_st.st_mode) && !S_ISDIR(dst_st.st_mode))
		unlink(dst); /* a symlink that became a file, or the other way */
	if (S_ISLNK(st->st_mode)) {
		char target[PATH_MAX];
		ssize_t n = readlink(src, target, sizeof(target) - 1);
		if (n < 0) {
			sbuf_addf(err, "cannot read the symlink '%s': %s", src, strerror(errno));
			return -1;
		}
		target[n] = '\0';
		unlink(dst);
		if (symlink(target, dst) != 0) {
			sbuf_addf(err, "cannot create the symlink '%s': %s", dst, strerror(errno));
			return -1;
		}
		return 0;
	}
	struct sbuf data = SBUF_INIT;
	int rc = -1;
	if (sbuf_read_file(&data, src, (size_t)1 << 30) < 0)
		sbuf_addf(err, "cannot read '%s': %s", src, strerror(errno));
	else if (!fileio_write_atomic(dst, data.buf, data.len, err) &&
		 chmod(dst, st->st_mode & 07777) == 0)
		rc = 0;
	else if (!err->len)
		sbuf_addf(err, "cannot set the mode of '%s': %s", dst, strerror(errno));
	sbuf_release(&data);
	return rc;
}

int git_worktree_copy_changes(const struct git_worktree *wt, const struct sbuf *status,
			      struct sbuf *err)
{
	for (const char *p = status->buf; p < status->buf + status->len; p += strlen(p) + 1) {
		if (strlen(p) < 4)
			continue;
		char *src = xstrfmt("%s/%s", wt->repo, p + 3);
		char *dst = xstrfmt("%s/%s", wt->path, p + 3);
		struct stat st;
		int rc = 0;
		if (lstat(src, &st) != 0) {
			/* Deleted in the working tree: deleted here too. */
			if (errno != ENOENT || (unlink(dst) != 0 && errno != ENOENT)) {
				sbuf_addf(err, "cannot delete '%s' as in '%s': %s", dst, src,
					  strerror(errno));
				rc = -1;
			}
		} else if (S_ISREG(st.st_mode) || S_ISLNK(st.st_mode)) {
			rc = make_parents(wt->path, dst, err) || copy_entry(src, &st, dst, err);
		}
		/* A folder (a submodule's checkout) stays as checked out. */
		free(src);
		free(dst);
		if (rc)
			return -1;
	}
	return 0;
}

int git_worktree_remove(struct git_worktree *wt, struct sbuf *err)
{
	if (!wt->repo || !wt->path)
		return 0;
	return remove_worktree(wt->repo, wt->path, err);
}

/*
 * After removing an orphan at <P>/base (or another is_base_name()): delete P too when it is
 * kagari's private temporary folder (named as tmpdir_create() names kagari's, ours, not a symlink).
 */
static void remove_private_parent(const char *path)
{
	const char *slash = strrchr(path, '/');
	struct stat st;
	char *parent;
	const char *name;

	if (!slash || !is_base_name(slash + 1) || slash == path)
		return;
	parent = xstrndup(path, (size_t)(slash - path));
	name = strrchr(parent, '/');
	name = name ? name + 1 : parent;
	if (tmpdir_name_is_kagari(name, NULL) && lstat(parent, &st) == 0 && S_ISDIR(st.st_mode) &&
	    st.st_uid == geteuid())
		tmpdir_remove(parent);
	free(parent);
}

/*
 * The liveness of the kagari that made the worktree at path: the lock of
 * the nearest enclosing private folder (kagari-*, tmpdir_lock()), which
 * its maker holds for as long as it lives, in whatever pid namespace.
 * tmpdir_lock_state()'s answer (1 live, 0 gone with *fd holding the lock,
 * -1 no such lock: a kagari before locks, or a folder that is gone).
 */
static int owner_lock_state(const char *path, int *fd)
{
	char *dir = xstrdup(path);
	int ret = -1;
	*fd = -1;
	for (int depth = 0; depth < 4; depth++) {
		char *slash = strrchr(dir, '/');
		if (!slash || slash == dir)
			break;
		*slash = '\0';
		const char *name = strrchr(dir, '/');
		name = name ? name + 1 : dir;
		if (tmpdir_name_is_kagari(name, NULL)) {
			ret = tmpdir_lock_state(dir, fd);
			break;
		}
	}
	free(dir);
	return ret;
}

/*
 * The admin folder <common>/worktrees/<id> of the worktree at path: the
 * one whose gitdir file names path/.git (git writes it for every
 * worktree; the folder itself may be invisible from here). NULL if none.
 */
static char *admin_dir_of(const char *repo, const char *path)
{
	char *common = NULL, *found = NULL;
	struct sbuf scratch = SBUF_INIT, text = SBUF_INIT;
	if (rev_parse_path(repo, "--git-common-dir", &common, &scratch) || !*common)
		goto out;
	char *wts = common[0] == '/' ? xstrfmt("%s/worktrees", common)
				     : xstrfmt("%s/%s/worktrees", repo, common);
	char *want = xstrfmt("%s/.git", path);
	DIR *d = opendir(wts);
	struct dirent *e;
	while (d && !found && (e = readdir(d))) {
		if (e->d_name[0] == '.')
			continue;
		char *file = xstrfmt("%s/%s/gitdir", wts, e->d_name);
		sbuf_reset(&text);
		if (sbuf_read_file(&text, file, PATH_MAX + 16) == 0) {
			while (text.len &&
			       (text.buf[text.len - 1] == '\n' || text.buf[text.len - 1] == '\r'))
				text.buf[--text.len] = '\0';
			if (!strcmp(text.buf, want))
				found = xstrfmt("%s/%s", wts, e->d_name);
		}
		free(file);
	}
	if (d)
		closedir(d);
	free(want);
	free(wts);
out:
	free(common);
	sbuf_release(&scratch);
	sbuf_release(&text);
	return found;
}

/*
 * The maker's flock on the admin folder's kagari-live.lock:
 * tmpdir_lock_state()'s answer (1 live; 0 gone, *fd holding it; -1 no
 * such lock).
 */
static int live_lock_state(const char *repo, const char *path, int *fd)
{
	char *admin = admin_dir_of(repo, path);
	int ret = -1;
	*fd = -1;
	if (admin)
		ret = tmpdir_lock_state_named(admin, WT_LIVE_FILE, fd);
	free(admin);
	return ret;
}

static int prune_orphans_locked(const char *repo, struct sbuf *err);

int git_prune_orphans(const char *repo, struct sbuf *err)
{
	repo_lock(repo);
	int ret = prune_orphans_locked(repo, err);
	repo_unlock();
	return ret;
}

static int prune_orphans_locked(const char *repo, struct sbuf *err)
{
	struct wt_list l = {0};
	int ret = 0;

	if (list_worktrees(repo, &l, err) < 0)
		return -1;
	for (size_t i = 1; i < l.nr; i++) {
		const struct wt_entry *e = &l.v[i];
		const char *r = e->lock_reason;
		int gone, state;

		if (!r || strncmp(r, LOCK_PREFIX, strlen(LOCK_PREFIX)))
			continue;
		/* -1: not kagari's, or made on another machine sharing this
		 * repository, where neither the pid nor the folder can be
		 * checked from here. */
		state = proc_owner_state(r + strlen(LOCK_PREFIX));
		if (state < 0)
			continue;
		/* The maker's lock decides: the one in the admin folder
		 * (seen by all who share the repository, whatever their
		 * TMPDIR or mount namespace), else its private folder's: a
		 * pid seen from another pid namespace (a container,
		 * unshare --pid) may name no process here, or another one.
		 * Held: it lives, never removed; free: it is gone (we hold
		 * the lock while removing). Without either, the pid rule of
		 * old. */
		int live_fd = -1, lk = live_lock_state(repo, e->path, &live_fd);
		int lock_fd = -1;
		if (lk < 0)
			lk = owner_lock_state(e->path, &lock_fd);
		else
			lock_fd = live_fd;
		if (lk == 1)
			continue;
		/* An entry is listed only once git has made its folder, so a
		 * missing folder is never a worktree still being added. */
		gone = !path_exists(e->path);
		if (lk < 0 && !gone && state > 0)
			continue;
		struct sbuf why = SBUF_INIT;
		int rrc = remove_worktree(repo, e->path, &why);
		if (rrc < 0) {
			if (lock_fd >= 0)
				close(lock_fd);
			if (!ret)
				sbuf_adds(err, why.buf);
			sbuf_release(&why);
			ret = -1;
			continue;
		}
		sbuf_release(&why);
		remove_private_parent(e->path);
		if (lock_fd >= 0)
			close(lock_fd);
	}
	wt_list_release(&l);
	return ret;
}
