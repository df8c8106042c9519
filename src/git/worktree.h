/*
 * worktree: the temporary, detached git worktree that holds the base
 * revision during `kagari compare`, and the cleanup of ones a killed kagari
 * left behind.
 *
 * Call order:
 *
 *	git_prune_orphans(root, &err);          once at start (failure is only
 *	                                        worth a warning)
 *	char *tmp = tmpdir_create("kagari-compare", &err);     private, 0700
 *	struct git_worktree wt = GIT_WORKTREE_INIT;
 *	if (git_worktree_add(root, base_sha, tmp, &wt, &err) < 0) ...
 *	... build and measure in wt.path ...
 *	git_worktree_remove(&wt, &err);         at exit, on error, after an
 *	                                        interrupt (call
 *	                                        child_interrupt_clear() first)
 *	git_worktree_release(&wt);
 *	tmpdir_remove(tmp); free(tmp);
 *
 * How kagari's worktrees are recognised: each is created locked (so that
 * neither `git worktree prune` nor `git gc` drops its entry while it runs)
 * with the lock reason
 *
 *	kagari pid=PID start=TICKS host=HOSTNAME
 *
 * naming the kagari process that made it (TICKS is its start time from
 * /proc, so a reused pid is not mistaken for it; 0 when unknown). The user's
 * own worktrees, locked or not, never carry such a reason and are never
 * touched. Git hooks do not run (core.hooksPath=/dev/null, see git.h).
 */
#ifndef KAGARI_GIT_WORKTREE_H
#define KAGARI_GIT_WORKTREE_H

struct sbuf;

/* All three strings are owned by the struct (git_worktree_release). */
struct git_worktree {
	char *repo; /* absolute path of the repository folder given to add */
	char *path; /* absolute, canonical: <parent_dir>/base (or as
		       git_worktree_add_as() names it) */
	char *sha;  /* the commit checked out */
	/* 1 + the descriptor of the flock on the worktree's admin folder's
	   kagari-live.lock (0: none; a zeroed struct holds none). */
	int live_lock;
};

#define GIT_WORKTREE_INIT                                                                          \
	{                                                                                          \
		NULL, NULL, NULL, 0                                                                \
	}

/*
 * Check out commit sha (a full hex sha, e.g. from git_resolve_commit) into a
 * new detached worktree of repo at <parent_dir>/base: `git worktree add
 * --lock --reason ... --detach PATH SHA`, then `git update-index -q
 * --refresh` inside it, so that the fresh checkout is not "racily clean"
 * and a build that asks git whether the tree is dirty gets a fast, true
 * answer. parent_dir is a private folder the caller made (mkdtemp, 0700);
 * "base" must not exist in it yet. Takes up to GIT_SLOW_TIMEOUT_NS.
 *
 * wt must be GIT_WORKTREE_INIT (or released). Its fields are set before git
 * runs, so on failure too the caller calls git_worktree_remove() (harmless
 * when nothing was made) and git_worktree_release(). Returns 0, or -1 with
 * a reason in err.
 */
int git_worktree_add(const char *repo, const char *sha, const char *parent_dir,
		     struct git_worktree *wt, struct sbuf *err);

/* git_worktree_add_as()'s flags. */
enum {
	/*
	 * Name the folder so that wt->path is exactly as long as the
	 * repository's real path (wt->repo): a prefix of "base" or "base"
	 * padded with '_'. A build that embeds its folder (__FILE__, debug
	 * information, an rpath) then lays out its output the same on both
	 * sides; two different folders can never give the same bytes, but
	 * equal lengths give the same sizes and offsets, whatever the build
	 * system. When parent_dir is too long for that, the folder is "base"
	 * (the caller sees strlen(wt->path) != strlen(wt->repo)).
	 */
	GIT_WORKTREE_SAME_LENGTH = 1,
	/* Leave the submodules out: git_worktree_add_submodules() adds them. */
	GIT_WORKTREE_NO_SUBMODULES = 2,
};

/* git_worktree_add() with flags (above). */
int git_worktree_add_as(const char *repo, const char *sha, const char *parent_dir, unsigned flags,
			struct git_worktree *wt, struct sbuf *err);

/*
 * The submodules of a worktree made with GIT_WORKTREE_NO_SUBMODULES,
 * checked out as git_worktree_add() does. Returns 0, or -1 with a reason
 * in err (one that names a submodule not available locally).
 */
int git_worktree_add_submodules(const struct git_worktree *wt, struct sbuf *err);

/*
 * Make wt hold the working tree's uncommitted changes too: for each record
 * of status (git_head_status()'s, paths relative to the top of wt->repo),
 * the working tree's file or symlink copied in (its mode kept, folders
 * made), or deleted when the working tree has none. A folder (a
 * submodule's) is left as checked out. wt then builds what the working
 * tree builds, in another folder. Returns 0, or -1 with a reason in err.
 */
int git_worktree_copy_changes(const struct git_worktree *wt, const struct sbuf *status,
			      struct sbuf *err);

/*
 * Remove wt's folder and its entry in the repository (`git worktree remove
 * --force --force`: it is locked and may hold build output). Works when the
 * folder was already deleted and when there is nothing to remove (a failed
 * or repeated add/remove), touching no other worktree; if git refuses (e.g.
 * a submodule inside), the folder is deleted directly and the entry removed
 * after. Returns 0 when neither the folder nor the entry is left, else -1
 * with a reason in err. wt keeps its fields (release it after).
 */
int git_worktree_remove(struct git_worktree *wt, struct sbuf *err);

/*
 * Remove the worktrees kagari left behind in repo: those whose lock reason
 * is kagari's (above), made on this host, and whose maker is gone or whose
 * folder is gone. The maker's liveness is first the flock it holds, for as
 * long as it lives, on kagari-live.lock in the worktree's admin folder
 * <git common dir>/worktrees/<id>/ (taken by git_worktree_add while the
 * repository's worktree lock is held, so no prune sees the entry without
 * it): every process sharing the repository sees that file, whatever its
 * mount namespace or TMPDIR, where the worktree's folder itself may be
 * invisible. Held, the worktree is never removed; free, its maker is gone.
 * Without that file (a kagari before it, or a filesystem without flock),
 * the lock of the maker's private folder (the nearest kagari-* above the
 * worktree, base/tmpdir.h's tmpdir_lock()) decides the same way, whatever
 * its pid looks like from here (a pid of another pid namespace names no
 * process here, or another one). Only a worktree with neither lock is
 * judged by its pid (not running, or running with another start time).
 * When such a worktree's folder is <P>/base (or another name
 * git_worktree_add_as() gives) and P is named "kagari-*", owned
 * by us and not a symlink, the whole private folder P is deleted too. Other
 * worktrees are never touched, not even prunable ones. Returns 0 (also when
 * there was nothing to do), or -1 with a reason in err (the first failure;
 * the rest are still attempted).
 */
int git_prune_orphans(const char *repo, struct sbuf *err);

/* Free wt's strings; wt is then GIT_WORKTREE_INIT. Removes nothing. */
void git_worktree_release(struct git_worktree *wt);

#endif
