/*
 * git/web: where a commit is shown on the web, and what its subject is,
 * for the pages `kagari history --format html` publishes.
 *
 * A commit link is a template holding "{sha}" (the full commit id goes
 * there): the user's --commit-url, or one derived from the `origin`
 * remote when it is on GitHub or GitLab (a host named github.com or
 * gitlab.com, or one whose name holds "github" or "gitlab": an
 * Enterprise or self-hosted instance). The remote's user name and
 * password or token are never part of what is derived: a CI checkout's
 * `https://gitlab-ci-token:TOKEN@host/group/project.git` gives
 * `https://host/group/project/-/commit/{sha}`.
 */
#ifndef KAGARI_GIT_WEB_H
#define KAGARI_GIT_WEB_H

#include <stddef.h>

struct sbuf;

#define GIT_WEB_SHA "{sha}"

/*
 * The commit link template of remote URL url (https://, http://, ssh://,
 * git:// or scp-like user@host:path), in *tmpl (caller frees); also the
 * repository's page (without credentials) in *page when page is not NULL.
 * 0, or -1 (nothing allocated) when the URL is no GitHub or GitLab
 * repository kagari can tell, or its path holds characters a URL would
 * have to escape.
 */
int git_web_from_remote(const char *url, char **tmpl, char **page);

/*
 * A --commit-url template checked: http:// or https://, holding {sha} at
 * least once, no space, quote, angle bracket or control character.
 * 0, or -1 with a reason in err.
 */
int git_web_check_template(const char *tmpl, struct sbuf *err);

/* The template with every {sha} replaced by sha, appended to out. */
void git_web_commit_url(struct sbuf *out, const char *tmpl, const char *sha);

/*
 * The commit link template of the repository of dir from its `origin`
 * remote (git_web_from_remote()), and its page: 0, or -1 when there is
 * no repository, no origin, or no host kagari can link to.
 */
int git_web_origin(const char *dir, char **tmpl, char **page);

/*
 * The subjects (first lines) of commits of the repository of dir, with
 * one git call per 2,000 commits: git_subjects_load() takes n full ids
 * in any order, repeated or not; git_subjects_get() gives a commit's
 * subject, NULL for one the repository does not have (or when there is
 * no repository: the load then returns -1, and every subject is NULL).
 */
struct git_subjects {
	const char **sha; /* sorted, each once (the caller's strings) */
	char **subject;
	size_t nr;
};
int git_subjects_load(struct git_subjects *sj, const char *dir, const char *const *sha, size_t n);
const char *git_subjects_get(const struct git_subjects *sj, const char *sha);
void git_subjects_release(struct git_subjects *sj);

#endif
