/*
 * git/git: the git calls kagari makes (git.h), all through proc/child.h
 * with a clean environment and no hooks: running git and describing its
 * failures, the repository top, revision checks with hints (shallow
 * clones, unknown names), HEAD and its dirtiness, files in a commit.
 */
#include "git/git.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "base/path.h"
#include "base/sbuf.h"
#include "base/strvec.h"
#include "base/xalloc.h"
#include "proc/child.h"
#include "proc/proc.h"

static void git_env(struct strvec *env)
{
	/* Not the hook's repository or index (see proc.h). */
	proc_env_without_git_repo(env, NULL);
	strvec_setenv(env, "GIT_OPTIONAL_LOCKS", "0");
	strvec_setenv(env, "LC_ALL", "C");
	strvec_setenv(env, "GIT_TERMINAL_PROMPT", "0");
}

/* "git rev-parse", "git worktree add": how a call is named in messages. */
static void git_label(const char *const *args, struct sbuf *out)
{
	sbuf_adds(out, "git");
	while (args[0] && !strcmp(args[0], "-c") && args[1])
		args += 2; /* name the command, not its settings */
	if (!args[0])
		return;
	sbuf_addf(out, " %s", args[0]);
	if (!strcmp(args[0], "worktree") && args[1])
		sbuf_addf(out, " %s", args[1]);
}

int git_exec(const char *repo, const char *const *args, int64_t timeout_ns, struct sbuf *out,
	     struct sbuf *gerr, struct sbuf *err)
{
	return git_exec_input(repo, args, NULL, 0, timeout_ns, out, gerr, err);
}

/* git_exec_input() and git_exec_fd(): standard input from in[0..in_len),
   else from in_fd when it is >= 0, else /dev/null. */
static int exec_with_input(const char *repo, const char *const *args, const char *in, size_t in_len,
			   int in_fd, int64_t timeout_ns, struct sbuf *out, struct sbuf *gerr,
			   struct sbuf *err)
{
	struct child c = CHILD_INIT;
	struct sbuf why = SBUF_INIT;
	int code;

	strvec_push(&c.argv, "git");
	strvec_push(&c.argv, "-C");
	strvec_push(&c.argv, repo);
	strvec_pushv(&c.argv, (const char *const[]){"-c", "core.hooksPath=/dev/null", "-c",
						    "core.fsmonitor=false", "-c", "gc.auto=0", "-c",
						    "maintenance.auto=false", NULL});
	strvec_pushv(&c.argv, args);
	git_env(&c.env);
	c.in = CHILD_IN_NULL;
	if (in) {
		c.in = CHILD_IN_CONTENT;
		c.in_data = in;
		c.in_len = in_len;
	} else if (in_fd >= 0) {
		c.in = CHILD_IN_FD;
		c.in_fd = in_fd;
	}
	c.out = CHILD_OUT_CAPTURE;
	c.err = CHILD_OUT_CAPTURE;
	c.timeout_ns = timeout_ns;

	code = child_run(&c, &why);
	if (code < 0 || c.res.status != CHILD_EXITED || c.res.timed_out || c.res.interrupted) {
		sbuf_adds(err, "'");
		git_label(args, err);
		sbuf_adds(err, "' ");
		if (code < 0 && why.len) {
			sbuf_addf(err, "could not be run: %s", why.buf);
		} else {
			child_result_describe(&c.res, timeout_ns, err);
			child_add_stderr_tail(err, c.res.err.buf, c.res.err.len, CHILD_TAIL_LINE);
		}
		code = -1;
	} else if (c.res.out_truncated) {
		sbuf_adds(err, "'");
		git_label(args, err);
		sbuf_addf(err, "' wrote more than %zu MiB", CHILD_CAPTURE_MAX >> 20);
		code = -1;
	} else {
		if (out)
			sbuf_add(out, c.res.out.buf, c.res.out.len);
		if (gerr)
			sbuf_add(gerr, c.res.err.buf, c.res.err.len);
	}
	sbuf_release(&why);
	child_release(&c);
	return code;
}

int git_exec_input(const char *repo, const char *const *args, const char *in, size_t in_len,
		   int64_t timeout_ns, struct sbuf *out, struct sbuf *gerr, struct sbuf *err)
{
	return exec_with_input(repo, args, in, in_len, -1, timeout_ns, out, gerr, err);
}

int git_exec_fd(const char *repo, const char *const *args, int in_fd, int64_t timeout_ns,
		struct sbuf *out, struct sbuf *gerr, struct sbuf *err)
{
	return exec_with_input(repo, args, NULL, 0, in_fd, timeout_ns, out, gerr, err);
}

void git_add_failure(const char *const *args, int code, const struct sbuf *gerr, struct sbuf *err)
{
	sbuf_adds(err, "'");
	git_label(args, err);
	sbuf_addf(err, "' failed (exited with code %d)", code);
	child_add_stderr_tail(err, gerr->buf, gerr->len, CHILD_TAIL_LINE);
}

int git_run(const char *repo, const char *const *args, int64_t timeout_ns, struct sbuf *out,
	    struct sbuf *err)
{
	struct sbuf gerr = SBUF_INIT;
	int code = git_exec(repo, args, timeout_ns, out, &gerr, err);
	if (code > 0)
		git_add_failure(args, code, &gerr, err);
	sbuf_release(&gerr);
	return code == 0 ? 0 : -1;
}

int git_is_full_sha(const char *s)
{
	size_t n = 0;
	if (!s)
		return 0;
	for (; s[n]; n++)
		if (!((s[n] >= '0' && s[n] <= '9') || (s[n] >= 'a' && s[n] <= 'f')))
			return 0;
	return n == 40 || n == 64;
}

/* The first line of out, trimmed, if it is a full sha; else NULL. */
static char *take_sha(struct sbuf *out)
{
	char *nl = memchr(out->buf, '\n', out->len);
	if (nl)
		sbuf_setlen(out, (size_t)(nl - out->buf));
	sbuf_rtrim(out);
	if (!git_is_full_sha(out->buf))
		return NULL;
	return sbuf_detach(out);
}

/* Quote user text for a message: control characters as \xNN. */
static void add_quoted(struct sbuf *sb, const char *s)
{
	sbuf_addch(sb, '\'');
	for (size_t i = 0; s[i] && i < 200; i++) {
		unsigned char ch = (unsigned char)s[i];
		if (ch < 0x20 || ch == 0x7f)
			sbuf_addf(sb, "\\x%02x", ch);
		else
			sbuf_addch(sb, ch);
	}
	if (strlen(s) > 200)
		sbuf_adds(sb, "...");
	sbuf_addch(sb, '\'');
}

int git_toplevel(const char *dir, char **root, struct sbuf *err)
{
	static const char *const args[] = {"rev-parse", "--show-toplevel", NULL};
	struct sbuf out = SBUF_INIT, gerr = SBUF_INIT;
	struct stat st;
	int code, ret = -1;

	*root = NULL;
	if (stat(dir, &st) < 0) {
		sbuf_addf(err, "cannot use folder '%s': %s", dir, strerror(errno));
		return -1;
	}
	if (!S_ISDIR(st.st_mode)) {
		sbuf_addf(err, "'%s' is not a folder", dir);
		return -1;
	}
	code = git_exec(dir, args, GIT_TIMEOUT_NS, &out, &gerr, err);
	if (code < 0)
		goto out;
	if (code != 0) {
		if (strstr(gerr.buf, "not a git repository"))
			sbuf_addf(err, "'%s' is not inside a git repository", dir);
		else if (strstr(gerr.buf, "must be run in a work tree"))
			sbuf_addf(err,
				  "'%s' is in a git repository without a "
				  "working tree (a bare repository)",
				  dir);
		else
			git_add_failure(args, code, &gerr, err);
		goto out;
	}
	/* Paths may hold any byte but a newline ends the one line git prints.
	 */
	if (out.len && out.buf[out.len - 1] == '\n')
		sbuf_setlen(&out, out.len - 1);
	if (!out.len || memchr(out.buf, '\n', out.len)) {
		sbuf_addf(err,
			  "'%s' is in a git repository without a working tree "
			  "(a bare repository)",
			  dir);
		goto out;
	}
	*root = sbuf_detach(&out);
	ret = 0;
out:
	sbuf_release(&out);
	sbuf_release(&gerr);
	return ret;
}

int git_check_rev(const char *rev, struct sbuf *err)
{
	if (!rev || !*rev) {
		sbuf_adds(err, "invalid revision: it is empty");
		return -1;
	}
	if (rev[0] == '-') {
		sbuf_adds(err, "invalid revision ");
		add_quoted(err, rev);
		sbuf_adds(err, ": it must not begin with '-'");
		return -1;
	}
	for (const char *p = rev; *p; p++) {
		unsigned char ch = (unsigned char)*p;
		if (ch < 0x20 || ch == 0x7f || ch == ' ') {
			sbuf_adds(err, "invalid revision ");
			add_quoted(err, rev);
			sbuf_adds(err, ch == ' ' || ch == '\t' || ch == '\n' || ch == '\r' ||
					       ch == '\v' || ch == '\f'
					   ? ": it contains whitespace"
					   : ": it contains a control character");
			return -1;
		}
	}
	return 0;
}

int git_is_shallow(const char *repo, int *shallow, struct sbuf *err)
{
	static const char *const args[] = {"rev-parse", "--is-shallow-repository", NULL};
	struct sbuf out = SBUF_INIT;
	int ret = git_run(repo, args, GIT_TIMEOUT_NS, &out, err);
	sbuf_rtrim(&out);
	*shallow = ret == 0 && !strcmp(out.buf, "true");
	sbuf_release(&out);
	return ret;
}

/*
 * `rev-parse --verify --quiet --end-of-options REV`: 1 with *sha set when
 * it names an object, 0 when not, -1 when git could not be run.
 */
static int verify_object(const char *repo, const char *rev, char **sha, struct sbuf *err)
{
	const char *args[] = {"rev-parse", "--verify", "--quiet", "--end-of-options", rev, NULL};
	struct sbuf out = SBUF_INIT, gerr = SBUF_INIT;
	int code = git_exec(repo, args, GIT_TIMEOUT_NS, &out, &gerr, err);
	int ret = -1;

	*sha = NULL;
	if (code == 0) {
		*sha = take_sha(&out);
		if (*sha) {
			ret = 1;
		} else {
			sbuf_adds(err, "'git rev-parse' printed no object name for ");
			add_quoted(err, rev);
		}
	} else if (code == 1) {
		ret = 0;
	} else if (code > 1) {
		git_add_failure(args, code, &gerr, err);
	}
	sbuf_release(&out);
	sbuf_release(&gerr);
	return ret;
}

/* Why rev (valid text, not a commit here) did not resolve. */
static int explain_unknown(const char *repo, const char *rev, struct sbuf *err)
{
	char *obj = NULL, *head = NULL;
	int shallow = 0, found;

	found = verify_object(repo, rev, &obj, err);
	if (found < 0)
		return -1;
	if (found) {
		const char *args[] = {"cat-file", "-t", obj, NULL};
		struct sbuf type = SBUF_INIT;
		int code = git_exec(repo, args, GIT_TIMEOUT_NS, &type, NULL, err);
		if (code < 0) {
			free(obj);
			sbuf_release(&type);
			return -1;
		}
		if (code > 0) {
			/* A full hex name parses without the object: unknown. */
			free(obj);
			sbuf_release(&type);
			goto unknown;
		}
		sbuf_rtrim(&type);
		sbuf_adds(err, "revision ");
		add_quoted(err, rev);
		sbuf_addf(err, " names a %s, not a commit",
			  type.len ? type.buf : "non-commit object");
		free(obj);
		sbuf_release(&type);
		return 0;
	}

unknown:
	found = verify_object(repo, "HEAD^{commit}", &head, err);
	free(head);
	if (found < 0)
		return -1;
	if (git_is_shallow(repo, &shallow, err) < 0)
		return -1;

	sbuf_adds(err, "unknown revision ");
	add_quoted(err, rev);
	if (shallow)
		sbuf_adds(err, ": this is a shallow clone, so the commit may not have "
			       "been fetched; run 'git fetch --unshallow' (on GitHub "
			       "Actions, give actions/checkout 'fetch-depth: 0')");
	else if (!found)
		sbuf_adds(err, ": the repository has no commits yet; commit or "
			       "fetch it first");
	else
		sbuf_adds(err, ": no such commit in this repository; fetch it "
			       "first (e.g. 'git fetch origin')");
	return 0;
}

int git_resolve_commit(const char *repo, const char *rev, char **sha, struct sbuf *err)
{
	char *spec;
	int found;

	*sha = NULL;
	if (git_check_rev(rev, err) < 0)
		return -1;
	spec = xstrfmt("%s^{commit}", rev);
	found = verify_object(repo, spec, sha, err);
	free(spec);
	if (found > 0)
		return 0;
	if (found == 0)
		explain_unknown(repo, rev, err);
	return -1;
}

/* Is rel (a path relative to the top of the tree) in kagari's .kagari/? */
static int in_kagari_folder(const char *rel)
{
	return !strncmp(rel, ".kagari/", 8) || strstr(rel, "/.kagari/") != NULL;
}

/*
 * Keep in status (`git status --porcelain -z` records "XY path") what
 * makes the tree dirty: every tracked change, and the untracked files
 * other than kagari's own (skip: absolute canonical paths; .kagari/).
 */
static int filter_status(const char *repo, struct sbuf *status, const struct strvec *skip,
			 struct sbuf *err)
{
	struct sbuf kept = SBUF_INIT;
	char *top = NULL;
	int ret = 0;
	for (size_t i = 0; i < status->len;) {
		const char *rec = status->buf + i;
		size_t n = strlen(rec);
		i += n + 1;
		int drop = 0;
		if (n > 3 && rec[0] == '?' && rec[1] == '?') {
			const char *rel = rec + 3;
			drop = in_kagari_folder(rel);
			if (!drop && skip && skip->nr) {
				if (!top && git_toplevel(repo, &top, err) < 0) {
					ret = -1;
					break;
				}
				char *abs = xstrfmt("%s/%s", top, rel);
				for (size_t k = 0; k < skip->nr && !drop; k++)
					drop = !strcmp(abs, skip->v[k]);
				free(abs);
			}
		}
		if (!drop)
			sbuf_add(&kept, rec, n + 1);
	}
	if (!ret) {
		sbuf_reset(status);
		sbuf_add(status, kept.buf, kept.len);
	}
	free(top);
	sbuf_release(&kept);
	return ret;
}

int git_head_status(const char *repo, char **head_sha, struct sbuf *status,
		    const struct strvec *skip, struct sbuf *err)
{
	/* Every untracked file, not its folder: a new folder may hold both
	   the suite (not a change) and a new source file (one). */
	static const char *const args[] = {
	    "status", "--porcelain", "-z", "--untracked-files=all", "--no-renames", NULL};
	*head_sha = NULL;
	sbuf_reset(status);
	if (verify_object(repo, "HEAD^{commit}", head_sha, err) < 0)
		return -1;
	if (git_run(repo, args, GIT_SLOW_TIMEOUT_NS, status, err) < 0 ||
	    filter_status(repo, status, skip, err) < 0) {
		free(*head_sha);
		*head_sha = NULL;
		return -1;
	}
	return 0;
}

int git_head_info(const char *repo, char **head_sha, int *dirty, const struct strvec *skip,
		  struct sbuf *err)
{
	struct sbuf out = SBUF_INIT;
	char *sha = NULL;

	if (head_sha)
		*head_sha = NULL;
	if (dirty)
		*dirty = 0;
	if (dirty) {
		if (git_head_status(repo, &sha, &out, skip, err) < 0) {
			sbuf_release(&out);
			return -1;
		}
		*dirty = out.len > 0;
	} else if (verify_object(repo, "HEAD^{commit}", &sha, err) < 0) {
		return -1;
	}
	sbuf_release(&out);
	if (head_sha)
		*head_sha = sha;
	else
		free(sha);
	return 0;
}

/*
 * relpath with "." and empty components dropped, in out. -1 for an empty,
 * absolute or ".."-containing path.
 */
static int normalize_relpath(const char *relpath, struct sbuf *out, struct sbuf *err)
{
	if (!relpath || !*relpath || relpath[0] == '/') {
		sbuf_adds(err, "invalid path ");
		add_quoted(err, relpath ? relpath : "");
		sbuf_adds(err, ": it must be relative to the top of the repository");
		return -1;
	}
	if (path_clean_relative(relpath, out)) {
		sbuf_adds(err, "invalid path ");
		add_quoted(err, relpath);
		sbuf_adds(err, ": it must not contain '..'");
		return -1;
	}
	if (!out->len) {
		sbuf_adds(err, "invalid path ");
		add_quoted(err, relpath);
		sbuf_adds(err, ": it names no file");
		return -1;
	}
	return 0;
}

int git_show_file_exists(const char *repo, const char *sha, const char *relpath, int *exists,
			 struct sbuf *err)
{
	struct sbuf path = SBUF_INIT, spec = SBUF_INIT;
	char *commit = NULL;
	int found, code, ret = -1;

	*exists = 0;
	if (!git_is_full_sha(sha)) {
		sbuf_adds(err, "invalid commit ");
		add_quoted(err, sha ? sha : "");
		sbuf_adds(err, ": expected a full hex sha");
		return -1;
	}
	if (normalize_relpath(relpath, &path, err) < 0)
		goto out;

	/* cat-file -e fails alike for a missing path and a missing commit:
	 * tell them apart first. */
	sbuf_addf(&spec, "%s^{commit}", sha);
	found = verify_object(repo, spec.buf, &commit, err);
	if (found < 0)
		goto out;
	if (!found) {
		sbuf_addf(err, "commit '%s' is not in the repository", sha);
		goto out;
	}
	sbuf_reset(&spec);
	sbuf_addf(&spec, "%s:%s", sha, path.buf);
	{
		const char *args[] = {"cat-file", "-e", spec.buf, NULL};
		code = git_exec(repo, args, GIT_TIMEOUT_NS, NULL, NULL, err);
	}
	if (code < 0)
		goto out;
	*exists = code == 0;
	ret = 0;
out:
	free(commit);
	sbuf_release(&path);
	sbuf_release(&spec);
	return ret;
}

int git_range_trailers(const char *repo, const char *base, const char *head, const char *key,
		       struct strvec *commits, struct strvec *values, struct sbuf *err)
{
	if (!git_is_full_sha(base) || !git_is_full_sha(head)) {
		sbuf_adds(err, "invalid commit range: expected full hex shas");
		return -1;
	}
	/* Records end with RS (0x1e); the sha and each value with US (0x1f). */
	char *format = xstrfmt(
	    "--format=%%H%%x1f%%(trailers:key=%s,valueonly,unfold,separator=%%x1f)%%x1e", key);
	char *range = xstrfmt("%s..%s", base, head);
	const char *args[] = {"log", format, range, "--", NULL};
	struct sbuf out = SBUF_INIT;
	int rc = git_run(repo, args, GIT_TIMEOUT_NS, &out, err);
	for (char *rec = out.buf; !rc && rec && *rec;) {
		char *end = strchr(rec, '\x1e');
		if (end)
			*end = '\0';
		while (*rec == '\n')
			rec++;
		char *us = strchr(rec, '\x1f');
		if (us) {
			*us = '\0';
			for (char *v = us + 1; *v;) {
				char *next = strchr(v, '\x1f');
				if (next)
					*next = '\0';
				char *t = v;
				while (*t == ' ' || *t == '\t')
					t++;
				size_t n = strlen(t);
				while (n &&
				       (t[n - 1] == '\n' || t[n - 1] == ' ' || t[n - 1] == '\t'))
					t[--n] = '\0';
				if (*t) {
					strvec_push(commits, rec);
					strvec_push(values, t);
				}
				if (!next)
					break;
				v = next + 1;
			}
		}
		rec = end ? end + 1 : NULL;
	}
	sbuf_release(&out);
	free(format);
	free(range);
	return rc;
}

int git_url_userinfo(const char *url, size_t *start, size_t *len)
{
	const char *s = strstr(url, "://");
	if (!s)
		return 0;
	s += 3;
	size_t host = strcspn(s, "/");
	const char *at = NULL;
	for (const char *p = s; p < s + host; p++)
		if (*p == '@')
			at = p;
	if (!at)
		return 0;
	*start = (size_t)(s - url);
	*len = (size_t)(at - s);
	return 1;
}
