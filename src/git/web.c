/*
 * git/web: commit links and subjects for published pages (web.h).
 */
#include "git/web.h"

#include <stdlib.h>
#include <string.h>

#include "base/sbuf.h"
#include "base/strvec.h"
#include "base/xalloc.h"
#include "git/git.h"

/* Shas per `git log --no-walk` call: far below any argument limit. */
#define WEB_SHAS_PER_CALL 2000

/* Characters a repository path may hold and be put in a URL as it is. */
static int path_ok(const char *s, size_t n)
{
	if (!n)
		return 0;
	for (size_t i = 0; i < n; i++) {
		unsigned char c = (unsigned char)s[i];
		if (!((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
		      strchr("-._~/", c)))
			return 0;
	}
	return !strstr(s, "..");
}

static int host_ok(const char *s, size_t n)
{
	if (!n)
		return 0;
	for (size_t i = 0; i < n; i++) {
		unsigned char c = (unsigned char)s[i];
		if (!((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
		      c == '-' || c == '.'))
			return 0;
	}
	return 1;
}

/* 'h' GitHub, 'l' GitLab, 0 neither (by the host's name). */
static int forge_of(const char *host, size_t n)
{
	char *h = xstrndup(host, n);
	for (char *p = h; *p; p++)
		if (*p >= 'A' && *p <= 'Z')
			*p = (char)(*p - 'A' + 'a');
	int f = strstr(h, "github") ? 'h' : strstr(h, "gitlab") ? 'l' : 0;
	free(h);
	return f;
}

int git_web_from_remote(const char *url, char **tmpl, char **page)
{
	const char *host, *port = NULL, *path;
	size_t host_len, port_len = 0;
	int keep_port = 0;
	const char *sep = strstr(url, "://");
	*tmpl = NULL;
	if (page)
		*page = NULL;
	if (sep) {
		size_t scheme = (size_t)(sep - url);
		if (!((scheme == 5 && !strncmp(url, "https", 5)) ||
		      (scheme == 4 && !strncmp(url, "http", 4)) ||
		      (scheme == 3 && !strncmp(url, "ssh", 3)) ||
		      (scheme == 3 && !strncmp(url, "git", 3))))
			return -1;
		keep_port = scheme >= 4; /* an ssh port is no web port */
		const char *auth = sep + 3;
		path = strchr(auth, '/');
		if (!path)
			return -1;
		/* The user name and any password or token: never kept. */
		size_t ui, un;
		host = git_url_userinfo(url, &ui, &un) ? url + ui + un + 1 : auth;
		const char *colon = memchr(host, ':', (size_t)(path - host));
		host_len = (size_t)((colon ? colon : path) - host);
		if (colon) {
			port = colon + 1;
			port_len = (size_t)(path - port);
			if (!port_len || strspn(port, "0123456789") < port_len)
				return -1;
		}
		path++;
	} else {
		/* scp-like: [user@]host:path, a colon before any slash */
		const char *colon = strchr(url, ':');
		const char *slash = strchr(url, '/');
		if (!colon || (slash && slash < colon))
			return -1;
		const char *at = memchr(url, '@', (size_t)(colon - url));
		host = at ? at + 1 : url;
		host_len = (size_t)(colon - host);
		path = colon + 1;
	}
	int forge = forge_of(host, host_len);
	if (!forge || !host_ok(host, host_len))
		return -1;
	size_t plen = strlen(path);
	while (plen && path[plen - 1] == '/')
		plen--;
	if (plen > 4 && !strncmp(path + plen - 4, ".git", 4))
		plen -= 4;
	while (plen && *path == '/')
		path++, plen--;
	char *p = xstrndup(path, plen);
	/* owner/name at least, nothing a URL would have to escape */
	if (!path_ok(p, plen) || !strchr(p, '/') || strstr(p, "//")) {
		free(p);
		return -1;
	}
	struct sbuf base = SBUF_INIT;
	sbuf_adds(&base, "https://");
	sbuf_add(&base, host, host_len);
	if (keep_port && port) {
		sbuf_addch(&base, ':');
		sbuf_add(&base, port, port_len);
	}
	sbuf_addch(&base, '/');
	sbuf_adds(&base, p);
	free(p);
	struct sbuf t = SBUF_INIT;
	sbuf_addf(&t, "%s%s" GIT_WEB_SHA, base.buf, forge == 'l' ? "/-/commit/" : "/commit/");
	*tmpl = sbuf_detach(&t);
	if (page)
		*page = sbuf_detach(&base);
	sbuf_release(&base);
	return 0;
}

int git_web_check_template(const char *tmpl, struct sbuf *err)
{
	if (strncmp(tmpl, "https://", 8) && strncmp(tmpl, "http://", 7)) {
		sbuf_addf(err, "'%s' is not an http:// or https:// address", tmpl);
		return -1;
	}
	if (!strstr(tmpl, GIT_WEB_SHA)) {
		sbuf_addf(err,
			  "'%s' has no " GIT_WEB_SHA " where the commit goes "
			  "(e.g. https://github.com/OWNER/REPO/commit/" GIT_WEB_SHA ")",
			  tmpl);
		return -1;
	}
	for (const unsigned char *q = (const unsigned char *)tmpl; *q; q++)
		if (*q <= ' ' || *q == 0x7f || strchr("\"'<>\\`", *q)) {
			sbuf_addf(err,
				  "'%s' holds a space, quote, angle bracket or control character",
				  tmpl);
			return -1;
		}
	return 0;
}

void git_web_commit_url(struct sbuf *out, const char *tmpl, const char *sha)
{
	size_t k = strlen(GIT_WEB_SHA);
	for (const char *s = tmpl, *hit; *s; s = hit + k) {
		hit = strstr(s, GIT_WEB_SHA);
		if (!hit) {
			sbuf_adds(out, s);
			return;
		}
		sbuf_add(out, s, (size_t)(hit - s));
		sbuf_adds(out, sha);
	}
}

int git_web_origin(const char *dir, char **tmpl, char **page)
{
	struct sbuf out = SBUF_INIT, err = SBUF_INIT;
	char *repo = NULL;
	int rc = -1;
	*tmpl = NULL;
	if (page)
		*page = NULL;
	static const char *const args[] = {"remote", "get-url", "origin", NULL};
	if (!git_toplevel(dir, &repo, &err) &&
	    !git_run(repo, args, GIT_SLOW_TIMEOUT_NS, &out, &err)) {
		while (out.len && (out.buf[out.len - 1] == '\n' || out.buf[out.len - 1] == '\r'))
			out.buf[--out.len] = '\0';
		rc = git_web_from_remote(out.buf, tmpl, page);
	}
	free(repo);
	sbuf_release(&out);
	sbuf_release(&err);
	return rc;
}

static int cmp_sha(const void *a, const void *b)
{
	return strncmp(*(const char *const *)a, *(const char *const *)b, 40);
}

/* One `git log --no-walk` over sha[0..n): each line "SHA SUBJECT", put
   in place by a binary search of all[0..nr_all) (sorted). */
static void subjects_call(const char *repo, const char *const *sha, size_t n,
			  const char *const *all, size_t nr_all, char **subject, int *failed)
{
	struct strvec args = STRVEC_INIT;
	struct sbuf out = SBUF_INIT, err = SBUF_INIT;
	strvec_push(&args, "log");
	strvec_push(&args, "--no-walk=unsorted");
	strvec_push(&args, "--ignore-missing");
	strvec_push(&args, "--format=%H %s");
	for (size_t i = 0; i < n; i++)
		if (sha[i] && strlen(sha[i]) == 40 && strspn(sha[i], "0123456789abcdef") == 40)
			strvec_push(&args, sha[i]);
	if (args.nr > 4 &&
	    !git_run(repo, (const char *const *)args.v, GIT_SLOW_TIMEOUT_NS, &out, &err)) {
		for (char *s = out.buf, *nl; s && *s; s = nl + 1) {
			nl = strchr(s, '\n');
			if (!nl)
				break;
			if (nl - s < 41 || s[40] != ' ')
				continue;
			const char *key = s;
			const char *const *hit = bsearch(&key, all, nr_all, sizeof(*all), cmp_sha);
			size_t i = hit ? (size_t)(hit - all) : nr_all;
			if (i < nr_all && !subject[i])
				subject[i] = xstrndup(s + 41, (size_t)(nl - s - 41));
		}
	} else if (args.nr > 4) {
		*failed = 1;
	}
	strvec_clear(&args);
	sbuf_release(&out);
	sbuf_release(&err);
}

static int cmp_str(const void *a, const void *b)
{
	return strcmp(*(const char *const *)a, *(const char *const *)b);
}

int git_subjects_load(struct git_subjects *sj, const char *dir, const char *const *sha, size_t n)
{
	struct sbuf err = SBUF_INIT;
	char *repo = NULL;
	int failed = 0;
	sj->sha = xcalloc(n + 1, sizeof(*sj->sha));
	memcpy(sj->sha, sha, n * sizeof(*sha));
	qsort(sj->sha, n, sizeof(*sj->sha), cmp_str);
	size_t k = 0;
	for (size_t i = 0; i < n; i++)
		if (!k || strcmp(sj->sha[i], sj->sha[k - 1]))
			sj->sha[k++] = sj->sha[i];
	sj->nr = k;
	sj->subject = xcalloc(k + 1, sizeof(*sj->subject));
	if (git_toplevel(dir, &repo, &err)) {
		sbuf_release(&err);
		return -1;
	}
	for (size_t i = 0; i < k; i += WEB_SHAS_PER_CALL)
		subjects_call(repo, sj->sha + i,
			      k - i < WEB_SHAS_PER_CALL ? k - i : WEB_SHAS_PER_CALL, sj->sha, k,
			      sj->subject, &failed);
	free(repo);
	sbuf_release(&err);
	return failed ? -1 : 0;
}

const char *git_subjects_get(const struct git_subjects *sj, const char *sha)
{
	const char **hit = bsearch(&sha, sj->sha, sj->nr, sizeof(*sj->sha), cmp_str);
	return hit ? sj->subject[hit - sj->sha] : NULL;
}

void git_subjects_release(struct git_subjects *sj)
{
	for (size_t i = 0; i < sj->nr; i++)
		free(sj->subject[i]);
	free(sj->subject);
	free(sj->sha);
	memset(sj, 0, sizeof(*sj));
}
