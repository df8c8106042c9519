/*
 * history/sync: pushing the history's runs to the history branch and
 * pulling the branch's runs into the history (sync.h; docs/history.md).
 */
#include "history/sync.h"

#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "base/sbuf.h"
#include "base/strvec.h"
#include "base/xalloc.h"
#include "git/git.h"
#include "history/history_internal.h"
#include "model/rng.h"

/* cat-file --batch answers are read in parts of at most this many bytes. */
#define BATCH_BYTES ((size_t)24 << 20)
/* A marker larger than this is not kagari's (it writes a few hundred bytes). */
#define MARKER_MAX_BYTES ((size_t)64 << 10)

static const char marker_text[] =
    "kagari history branch\n"
    "format: 1\n"
    "\n"
    "Written by `kagari history push`: one JSON file per run under runs/,\n"
    "named by the run's origin (time, commit, machine, a random part).\n"
    "Files are only ever added. Do not edit, rebase or force-push this branch;\n"
    "`kagari history pull` imports it (docs/history.md).\n";

struct branch_file {
	char *path;
	const char *origin; /* inside path; NULL for a badly named file */
	char sha[65];
	size_t size;
};

struct branch {
	char *tip; /* NULL: the remote has no such branch */
	struct branch_file *v;
	size_t nr, alloc;
	int marker;
	char marker_sha[65];
	size_t marker_size;
};

/* What a push or a pull works on. */
struct ctx {
	struct history *h;
	const struct history_sync *o;
	struct history_sync_result *res;
	char *repo;   /* the top of the working tree */
	char *url;    /* the remote's URL as git takes it */
	char *ref;    /* refs/kagari/history/BRANCH */
	char *key;    /* sync_state's key of this branch */
	char *secret; /* the user part of url (redacted in messages), or NULL */
};

char *history_sync_redact(const char *url)
{
	size_t at, n;
	if (!git_url_userinfo(url, &at, &n))
		return xstrdup(url);
	return xstrfmt("%.*s***%s", (int)at, url, url + at + n);
}

/* Every copy of secret in sb replaced by "***". */
static void scrub(struct sbuf *sb, const char *secret)
{
	if (!secret || !*secret || !sb->len)
		return;
	struct sbuf out = SBUF_INIT;
	const char *p = sb->buf, *q;
	size_t n = strlen(secret);
	while ((q = strstr(p, secret))) {
		sbuf_add(&out, p, (size_t)(q - p));
		sbuf_adds(&out, "***");
		p = q + n;
	}
	sbuf_adds(&out, p);
	sbuf_reset(sb);
	sbuf_add(sb, out.buf, out.len);
	sbuf_release(&out);
}

static void branch_release(struct branch *b)
{
	for (size_t i = 0; i < b->nr; i++)
		free(b->v[i].path);
	free(b->v);
	free(b->tip);
	memset(b, 0, sizeof(*b));
}

static int run(struct ctx *c, const char *const *args, struct sbuf *out, struct sbuf *err)
{
	return git_run(c->repo, args, GIT_SLOW_TIMEOUT_NS, out, err);
}

/* The remote's URL: a remote's (fetch or push) URL, else remote itself
   when it reads as a URL or a path. */
static int resolve_url(struct ctx *c, int push, struct sbuf *err)
{
	const char *args[] = {"remote", "get-url", push ? "--push" : "--", c->o->remote, NULL};
	if (!push)
		args[2] = c->o->remote, args[3] = NULL;
	struct sbuf out = SBUF_INIT, gerr = SBUF_INIT;
	int code = git_exec(c->repo, args, GIT_TIMEOUT_NS, &out, &gerr, err);
	if (code == 0) {
		sbuf_rtrim(&out);
		c->url = sbuf_detach(&out);
	} else if (code > 0 && c->o->remote[0] != '-' && strpbrk(c->o->remote, "/:")) {
		c->url = xstrdup(c->o->remote);
	} else if (code > 0) {
		sbuf_addf(err,
			  "no remote '%s' in '%s' (`git remote -v` lists them; --remote takes a "
			  "remote's name or a URL)",
			  c->o->remote, c->repo);
	}
	sbuf_release(&out);
	sbuf_release(&gerr);
	if (!c->url)
		return -1;
	c->res->url = history_sync_redact(c->url);
	size_t at, n;
	if (git_url_userinfo(c->url, &at, &n) && n)
		c->secret = xstrndup(c->url + at, n);
	return 0;
}

static int setup(struct ctx *c, struct history *h, const struct history_sync *o,
		 struct history_sync_result *res, int push, struct sbuf *err)
{
	memset(c, 0, sizeof(*c));
	memset(res, 0, sizeof(*res));
	strvec_init(&res->warnings);
	c->h = h;
	c->o = o;
	c->res = res;
	if (git_toplevel(o->repo, &c->repo, err))
		return -1;
	if (!*o->branch || o->branch[0] == '-') {
		sbuf_addf(err, "--branch '%s': not a branch name", o->branch);
		return -1;
	}
	c->ref = xstrfmt("refs/kagari/history/%s", o->branch);
	const char *chk[] = {"check-ref-format", c->ref, NULL};
	struct sbuf gerr = SBUF_INIT;
	int code = git_exec(c->repo, chk, GIT_TIMEOUT_NS, NULL, &gerr, err);
	sbuf_release(&gerr);
	if (code) {
		if (code > 0)
			sbuf_addf(err,
				  "--branch '%s': not a valid branch name (git check-ref-format)",
				  o->branch);
		return -1;
	}
	if (resolve_url(c, push, err))
		return -1;
	c->key = xstrfmt("tip %s %s", c->res->url, o->branch);
	return 0;
}

static void ctx_release(struct ctx *c)
{
	free(c->repo);
	free(c->url);
	free(c->ref);
	free(c->key);
	free(c->secret);
}

/* Fetch the branch into the private ref; b->tip NULL when the remote has
   no such branch. */
static int fetch(struct ctx *c, struct branch *b, struct sbuf *err)
{
	char *spec = xstrfmt("+refs/heads/%s:%s", c->o->branch, c->ref);
	const char *args[] = {"fetch",
			      "--quiet",
			      "--no-tags",
			      "--no-write-fetch-head",
			      "--no-recurse-submodules",
			      "--no-prune",
			      "--no-auto-gc",
			      "--",
			      c->url,
			      spec,
			      NULL};
	struct sbuf gerr = SBUF_INIT, out = SBUF_INIT;
	int code = git_exec(c->repo, args, GIT_SLOW_TIMEOUT_NS, NULL, &gerr, err);
	int rc = 0;
	if (code > 0 && strstr(gerr.buf, "couldn't find remote ref")) {
		b->tip = NULL;
	} else if (code) {
		if (code > 0) {
			sbuf_addf(err, "cannot fetch branch '%s' from '%s': ", c->o->branch,
				  c->res->url);
			git_add_failure(args, code, &gerr, err);
		}
		rc = -1;
	} else {
		const char *rp[] = {"rev-parse", "--verify", "--quiet", c->ref, NULL};
		if (run(c, rp, &out, err))
			rc = -1;
		sbuf_rtrim(&out);
		b->tip = sbuf_detach(&out);
	}
	free(spec);
	sbuf_release(&gerr);
	sbuf_release(&out);
	return rc;
}

static void branch_add(struct branch *b, const char *path, const char *sha, size_t size)
{
	if (b->nr == b->alloc) {
		b->alloc = b->alloc ? 2 * b->alloc : 256;
		b->v = xreallocarray(b->v, b->alloc, sizeof(*b->v));
	}
	struct branch_file *f = &b->v[b->nr++];
	memset(f, 0, sizeof(*f));
	f->path = xstrdup(path);
	snprintf(f->sha, sizeof(f->sha), "%s", sha);
	f->size = size;
	/* runs/YYYY-MM/ORIGIN.json, its folder the origin's month. */
	const char *base = strrchr(f->path, '/');
	size_t n = base ? strlen(base + 1) : 0;
	if (!base || n <= 5 || strcmp(base + 1 + n - 5, ".json"))
		return;
	char *o = xstrndup(base + 1, n - 5);
	struct sbuf want = SBUF_INIT;
	if (history_origin_valid(o)) {
		history_run_path(o, &want);
		if (!strcmp(want.buf, f->path)) {
			f->path[base + 1 + n - 5 - f->path] = 0;
			f->origin = base + 1;
		}
	}
	sbuf_release(&want);
	free(o);
}

/* The file's path (its ".json" cut when it has an origin), for a message:
   a file name on the branch is anyone's, so its control characters are
   escaped (a line break in it starts no line of its own). */
static void file_path(const struct branch_file *f, struct sbuf *out)
{
	sbuf_add_escaped(out, f->path);
	if (f->origin)
		sbuf_adds(out, ".json");
}

static int cmp_file(const void *a, const void *b)
{
	const struct branch_file *x = a, *y = b;
	if (!x->origin || !y->origin)
		return !x->origin - !y->origin;
	return strcmp(x->origin, y->origin);
}

/* The files of the tip: the marker, runs/ (sorted by origin; badly named
   ones last, origin NULL). Files elsewhere are not kagari's and ignored. */
static int list(struct ctx *c, struct branch *b, struct sbuf *err)
{
	const char *args[] = {"ls-tree", "-r", "-l", "-z", "--full-tree", b->tip, NULL};
	struct sbuf out = SBUF_INIT;
	if (run(c, args, &out, err)) {
		sbuf_release(&out);
		return -1;
	}
	/* "MODE TYPE SHA SIZE\tPATH\0" (SIZE padded on the left). */
	for (char *s = out.buf; s < out.buf + out.len; s += strlen(s) + 1) {
		char *tab = strchr(s, '\t');
		char mode[16], type[16], sha[65];
		unsigned long long size = 0;
		if (!tab || sscanf(s, "%15s %15s %64s %llu", mode, type, sha, &size) != 4 ||
		    strcmp(type, "blob"))
			continue;
		const char *path = tab + 1;
		if (!strcmp(path, HISTORY_MARKER)) {
			b->marker = 1;
			b->marker_size = (size_t)size;
			snprintf(b->marker_sha, sizeof(b->marker_sha), "%s", sha);
		} else if (!strncmp(path, "runs/", 5)) {
			branch_add(b, path, sha, (size_t)size);
		}
	}
	sbuf_release(&out);
	if (b->nr)
		qsort(b->v, b->nr, sizeof(*b->v), cmp_file);
	return 0;
}

/*
 * The number of the marker's "format: N" line: N, or -1 when the line is
 * missing or N is no plain decimal number (a sign, a leading zero, any other
 * character, more than 9 digits: 4294967297 is not format 1).
 */
static long marker_format(const char *text, const char **line)
{
	const char *f = strstr(text, "\nformat: ");
	*line = f ? f + 1 : NULL;
	if (!f)
		return -1;
	f += 9;
	size_t n = strspn(f, "0123456789");
	if (!n || n > 9 || f[0] == '0' || (f[n] && f[n] != '\n'))
		return -1;
	return strtol(f, NULL, 10);
}

/* A branch that is not kagari's (no marker of its own), of a newer format
   or of a format that is no number, is refused. */
static int check_marker(struct ctx *c, struct branch *b, struct sbuf *err)
{
	if (!b->marker) {
		sbuf_addf(err,
			  "branch '%s' of '%s' is not a kagari history branch (it has no %s file "
			  "at its root); refusing to read or write it (choose another --branch)",
			  c->o->branch, c->res->url, HISTORY_MARKER);
		return -1;
	}
	struct sbuf out = SBUF_INIT;
	int rc = 0;
	if (b->marker_size > MARKER_MAX_BYTES) {
		rc = 1;
	} else {
		const char *args[] = {"cat-file", "blob", b->marker_sha, NULL};
		rc = run(c, args, &out, err);
		if (!rc &&
		    (out.len != strlen(out.buf) || strncmp(out.buf, "kagari history branch\n", 22)))
			rc = 1;
	}
	const char *line = NULL;
	long format = rc ? 0 : marker_format(out.buf, &line);
	if (rc == 1 || (!rc && !line)) {
		sbuf_addf(err,
			  "branch '%s' of '%s': its %s file is not kagari's; refusing to read or "
			  "write it",
			  c->o->branch, c->res->url, HISTORY_MARKER);
		rc = -1;
	} else if (!rc && format < 1) {
		/* The line as it is, escaped and cut: the file is anyone's. */
		char *l = xstrndup(line, strcspn(line, "\n") < 60 ? strcspn(line, "\n") : 60);
		sbuf_addf(err, "branch '%s' of '%s': its %s file says '", c->o->branch, c->res->url,
			  HISTORY_MARKER);
		sbuf_add_escaped(err, l);
		sbuf_addf(err,
			  "', which is no format number (this kagari knows format %d); refusing "
			  "to read or write it",
			  HISTORY_BRANCH_FORMAT);
		free(l);
		rc = -1;
	} else if (!rc && format > HISTORY_BRANCH_FORMAT) {
		sbuf_addf(err,
			  "branch '%s' of '%s' was written by a newer kagari (branch format %ld; "
			  "this one knows up to %d); use that kagari",
			  c->o->branch, c->res->url, format, HISTORY_BRANCH_FORMAT);
		rc = -1;
	}
	sbuf_release(&out);
	return rc ? -1 : 0;
}

/* fetch(), list() and check_marker(): the branch, or its absence. */
static int load_branch(struct ctx *c, struct branch *b, struct sbuf *err)
{
	if (fetch(c, b, err))
		return -1;
	if (!b->tip)
		return 0;
	return list(c, b, err) || check_marker(c, b, err) ? -1 : 0;
}

/* Compare the tip with the one last seen: a warning when the branch was
   rewritten or deleted since. */
static int note_rewrite(struct ctx *c, const struct branch *b, struct sbuf *err)
{
	char *last = NULL;
	if (history_state_get(c->h, c->key, &last, err))
		return -1;
	int rewritten = 0;
	if (last && !b->tip) {
		rewritten = 1;
	} else if (last && strcmp(last, b->tip)) {
		const char *args[] = {"merge-base", "--is-ancestor", last, b->tip, NULL};
		struct sbuf gerr = SBUF_INIT;
		int code = git_exec(c->repo, args, GIT_SLOW_TIMEOUT_NS, NULL, &gerr, err);
		sbuf_release(&gerr);
		if (code < 0) {
			free(last);
			return -1;
		}
		rewritten = code != 0; /* 1: not an ancestor; 128: no such commit here */
	}
	if (rewritten) {
		c->res->rewritten = 1;
		strvec_pushf(&c->res->warnings,
			     "branch '%s' of '%s' was %s since this history last saw it (at "
			     "%.12s): runs may have been lost there; the runs of this history are "
			     "kept, and `kagari history push` adds back those the branch lacks",
			     c->o->branch, c->res->url,
			     b->tip ? "rewritten (force-pushed)" : "deleted", last);
	}
	free(last);
	return 0;
}

static int find_origin(const struct branch *b, const char *origin)
{
	size_t lo = 0, hi = b->nr;
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		int c = b->v[mid].origin ? strcmp(b->v[mid].origin, origin) : 1;
		if (!c)
			return 1;
		if (c < 0)
			lo = mid + 1;
		else
			hi = mid;
	}
	return 0;
}

static size_t branch_runs(const struct branch *b)
{
	size_t n = 0;
	for (size_t i = 0; i < b->nr; i++)
		n += b->v[i].origin != NULL;
	return n;
}

/*
 * The fast-import stream of a push, written into a pipe by a thread of its
 * own while git reads it: one run file in memory at a time, so a push of
 * many runs takes no more memory than a push of one (31 runs of 8 MiB once
 * took a stream of 277 MB). The main thread is in git_exec_fd() meanwhile
 * and touches neither the history nor the buffers.
 */
struct stream {
	struct ctx *c;
	const struct branch *b;
	const struct strvec *missing;
	int fd;		 /* the pipe's writing end, closed when done */
	struct sbuf buf; /* what is to be written next */
	struct sbuf err; /* why the stream stopped short */
	int failed;	 /* 1: err says why; 2: git stopped reading */
};

/* data[0..len) written whole to the pipe. 0, or -1 (s->failed). */
static int stream_put(struct stream *s, const char *data, size_t len)
{
	for (size_t at = 0; at < len;) {
		ssize_t n = write(s->fd, data + at, len - at);
		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0) {
			s->failed = 2; /* git exited: its own error says why */
			return -1;
		}
		at += (size_t)n;
	}
	return 0;
}

/* s->buf written and emptied. */
static int stream_flush(struct stream *s)
{
	int rc = stream_put(s, s->buf.buf, s->buf.len);
	sbuf_reset(&s->buf);
	return rc;
}

static void fi_data(struct sbuf *s, const char *text, size_t len)
{
	sbuf_addf(s, "data %zu\n", len);
	sbuf_add(s, text, len);
	sbuf_addch(s, '\n');
}

static void *stream_write(void *arg)
{
	struct stream *s = arg;
	struct ctx *c = s->c;
	struct sbuf path = SBUF_INIT, file = SBUF_INIT;
	/* Signals are the main thread's: it waits on git and stops it. */
	sigset_t all;
	sigfillset(&all);
	pthread_sigmask(SIG_BLOCK, &all, NULL);
	sbuf_addf(&s->buf, "commit %s\ncommitter kagari <kagari@localhost> %lld +0000\n", c->ref,
		  (long long)time(NULL));
	sbuf_addf(&file, "kagari history: %zu run%s\n", s->missing->nr,
		  s->missing->nr == 1 ? "" : "s");
	fi_data(&s->buf, file.buf, file.len);
	if (s->b->tip)
		sbuf_addf(&s->buf, "from %s\n", s->b->tip);
	else
		sbuf_addf(&s->buf, "M 100644 inline %s\n", HISTORY_MARKER),
		    fi_data(&s->buf, marker_text, sizeof(marker_text) - 1);
	for (size_t i = 0; i < s->missing->nr && !stream_flush(s); i++) {
		sbuf_reset(&path);
		sbuf_reset(&file);
		history_run_path(s->missing->v[i], &path);
		if (history_run_export(c->h, s->missing->v[i], &file, &s->err)) {
			s->failed = 1;
			break;
		}
		/* The file itself straight from its buffer, not copied again. */
		sbuf_addf(&s->buf, "M 100644 inline %s\ndata %zu\n", path.buf, file.len);
		if (stream_flush(s) || stream_put(s, file.buf, file.len) || stream_put(s, "\n", 1))
			break;
	}
	/* Cut short, the stream lacks "done": fast-import commits nothing. */
	if (!s->failed) {
		sbuf_adds(&s->buf, "\ndone\n");
		stream_flush(s);
	}
	close(s->fd);
	sbuf_release(&path);
	sbuf_release(&file);
	return NULL;
}

/* The commit adding the runs `missing` on b's tip (a root commit with the
   marker when there is none), built into the private ref by one
   `git fast-import` reading the stream as stream_write() makes it: its
   sha. */
static char *build_commit(struct ctx *c, const struct branch *b, const struct strvec *missing,
			  struct sbuf *err)
{
	int fds[2];
	if (pipe2(fds, O_CLOEXEC)) {
		sbuf_addf(err, "cannot make a pipe for 'git fast-import': %s", strerror(errno));
		return NULL;
	}
	struct stream s = {c, b, missing, fds[1], SBUF_INIT, SBUF_INIT, 0};
	pthread_t writer;
	int e = pthread_create(&writer, NULL, stream_write, &s);
	if (e) {
		sbuf_addf(err, "cannot start writing the stream for 'git fast-import': %s",
			  strerror(e));
		close(fds[0]);
		close(fds[1]);
		return NULL;
	}
	const char *args[] = {"fast-import", "--quiet", "--done", "--force", NULL};
	struct sbuf gerr = SBUF_INIT, gitmsg = SBUF_INIT;
	int code = git_exec_fd(c->repo, args, fds[0], GIT_SLOW_TIMEOUT_NS, NULL, &gerr, &gitmsg);
	/* git is gone: a writer still writing gets EPIPE and ends. */
	close(fds[0]);
	pthread_join(writer, NULL);
	char *sha = NULL;
	if (s.failed == 1) {
		sbuf_add(err, s.err.buf, s.err.len); /* the history could not be read */
	} else if (code) {
		if (code > 0)
			git_add_failure(args, code, &gerr, err);
		else
			sbuf_add(err, gitmsg.buf, gitmsg.len);
	} else if (s.failed) {
		sbuf_adds(err, "'git fast-import' stopped reading its stream");
	} else {
		const char *rp[] = {"rev-parse", "--verify", "--quiet", c->ref, NULL};
		struct sbuf out = SBUF_INIT;
		if (!run(c, rp, &out, err)) {
			sbuf_rtrim(&out);
			sha = sbuf_detach(&out);
		}
		sbuf_release(&out);
	}
	sbuf_release(&gerr);
	sbuf_release(&gitmsg);
	sbuf_release(&s.buf);
	sbuf_release(&s.err);
	return sha;
}

/* Push commit to the branch: 0 done, 1 rejected (another job got there
   first: fetch and build again), -1 failed. */
static int push_commit(struct ctx *c, const char *commit, struct sbuf *err)
{
	char *spec = xstrfmt("%s:refs/heads/%s", commit, c->o->branch);
	const char *args[] = {"push", "--porcelain", "--no-verify", "--", c->url, spec, NULL};
	struct sbuf out = SBUF_INIT, gerr = SBUF_INIT;
	int code = git_exec(c->repo, args, GIT_SLOW_TIMEOUT_NS, &out, &gerr, err);
	int rc = code == 0 ? 0 : -1;
	if (code > 0) {
		const char *r = strstr(out.buf, "[remote rejected]");
		if (strstr(out.buf, "[rejected]") ||
		    (r && (strstr(r, "lock") || strstr(r, "failed to update") ||
			   strstr(r, "incorrect old value") || strstr(r, "stale"))))
			rc = 1;
		else {
			sbuf_addf(err, "cannot push to branch '%s' of '%s': ", c->o->branch,
				  c->res->url);
			git_add_failure(args, code, &gerr, err);
			if (strstr(out.buf, "[remote rejected]"))
				sbuf_adds(err, strstr(out.buf, "[remote rejected]"));
		}
	}
	sbuf_rtrim(err);
	free(spec);
	sbuf_release(&out);
	sbuf_release(&gerr);
	return rc;
}

/* One attempt: 0 pushed (or nothing to push), 1 rejected, -1 failed. */
static int push_once(struct ctx *c, int first, struct sbuf *err)
{
	struct branch b = {0};
	struct strvec local = STRVEC_INIT, missing = STRVEC_INIT;
	int rc = -1;
	char *commit = NULL;
	if (load_branch(c, &b, err) || (first && note_rewrite(c, &b, err)))
		goto out;
	/* Only now, the branch being kagari's, is the history written. */
	if (history_assign_origins(c->h, err) || history_list_origins(c->h, &local, err))
		goto out;
	for (size_t i = 0; i < local.nr; i++)
		if (!find_origin(&b, local.v[i]))
			strvec_push(&missing, local.v[i]);
	c->res->on_branch = branch_runs(&b);
	if (!missing.nr) {
		free(c->res->tip);
		c->res->tip = b.tip ? xstrdup(b.tip) : NULL;
		rc = b.tip ? history_state_set(c->h, c->key, b.tip, err) : 0;
		goto out;
	}
	commit = build_commit(c, &b, &missing, err);
	if (!commit)
		goto out;
	c->res->attempts++;
	rc = push_commit(c, commit, err);
	if (rc == 0) {
		c->res->pushed = missing.nr;
		c->res->on_branch += missing.nr;
		c->res->created = !b.tip;
		free(c->res->tip);
		c->res->tip = xstrdup(commit);
		rc = history_state_set(c->h, c->key, commit, err);
	}
out:
	free(commit);
	branch_release(&b);
	strvec_clear(&local);
	strvec_clear(&missing);
	return rc;
}

int history_sync_push(struct history *h, const struct history_sync *o,
		      struct history_sync_result *res, struct sbuf *err)
{
	struct ctx c;
	int rc = setup(&c, h, o, res, 1, err);
	int attempts = o->attempts > 0 ? o->attempts : HISTORY_PUSH_ATTEMPTS;
	for (int i = 0; !rc && i < attempts; i++) {
		rc = push_once(&c, i == 0, err);
		if (rc != 1)
			break;
		if (i + 1 == attempts) {
			sbuf_addf(err,
				  "cannot push to branch '%s' of '%s': rejected %d times, other "
				  "jobs kept pushing first; run it again",
				  o->branch, res->url, attempts);
			rc = -1;
			break;
		}
		rc = 0;
		/* Apart from the others racing for the branch: a random wait
		   in [d/2, d), d doubling from 100 ms up to 1.6 s. */
		unsigned d = 100u << (i < 4 ? i : 4);
		usleep((useconds_t)((d / 2 + rng_random_seed() % (d / 2)) * 1000));
	}
	scrub(err, c.secret);
	ctx_release(&c);
	return rc ? -1 : 0;
}

/* Where a blob's text is in a cat-file answer. */
struct blob {
	size_t at, len;
};

/* The first files of files[0..n) whose blobs fit in BATCH_BYTES (one at
   least): how many. */
static size_t batch_size(struct branch_file *const *files, size_t n)
{
	size_t j = 0, bytes = 0;
	for (; j < n && (j == 0 || bytes + files[j]->size < BATCH_BYTES); j++)
		bytes += files[j]->size + 100;
	return j;
}

/* The blobs of files[0..n) read by one `git cat-file --batch` into out,
   each one's place in blobs[i]. */
static int read_blobs(struct ctx *c, struct branch_file *const *files, size_t n, struct sbuf *out,
		      struct blob *blobs, struct sbuf *err)
{
	const char *args[] = {"cat-file", "--batch", NULL};
	struct sbuf in = SBUF_INIT, gerr = SBUF_INIT;
	for (size_t k = 0; k < n; k++)
		sbuf_addf(&in, "%s\n", files[k]->sha);
	sbuf_reset(out);
	int code =
	    git_exec_input(c->repo, args, in.buf, in.len, GIT_SLOW_TIMEOUT_NS, out, &gerr, err);
	if (code > 0)
		git_add_failure(args, code, &gerr, err);
	sbuf_release(&in);
	sbuf_release(&gerr);
	if (code)
		return -1;
	/* "SHA blob SIZE\nCONTENT\n" per request */
	char *p = out->buf, *end = out->buf + out->len;
	for (size_t k = 0; k < n; k++) {
		char *nl = memchr(p, '\n', (size_t)(end - p));
		char *sp = nl ? memrchr(p, ' ', (size_t)(nl - p)) : NULL;
		size_t sz = sp ? strtoull(sp + 1, NULL, 10) : 0;
		if (!sp || (size_t)(end - nl - 1) < sz + 1) {
			sbuf_addf(err, "'git cat-file' gave no object '%s'", files[k]->sha);
			return -1;
		}
		blobs[k] = (struct blob){(size_t)(nl + 1 - out->buf), sz};
		p = nl + 1 + sz + 1;
	}
	return 0;
}

/* One file imported (its text at text[0..len)): a bad one is a warning. */
static int import_one(struct ctx *c, const struct branch_file *f, const char *text, size_t len,
		      struct sbuf *why, struct sbuf *err)
{
	sbuf_reset(why);
	int r = history_run_import(c->h, f->origin, text, len, why, err);
	if (r < 0)
		return -1;
	if (r == 2) {
		struct sbuf path = SBUF_INIT;
		file_path(f, &path);
		strvec_pushf(&c->res->warnings, "branch '%s': skipped '%s': %s", c->o->branch,
			     path.buf, why->buf);
		sbuf_release(&path);
		c->res->skipped++;
	} else {
		c->res->imported += (size_t)r;
		c->res->present += (size_t)(1 - r);
	}
	return 0;
}

/* Import the files, read a batch at a time, all in one transaction with
   the tip seen; each bad file is a warning and skipped whole. */
static int import_all(struct ctx *c, const struct branch *b, struct branch_file *const *files,
		      size_t n, struct sbuf *err)
{
	struct sbuf why = SBUF_INIT, out = SBUF_INIT;
	struct blob *blobs = xcalloc(n + 1, sizeof(*blobs));
	if (history_begin(c->h, err)) {
		free(blobs);
		return -1;
	}
	int rc = 0;
	for (size_t i = 0, m; i < n && !rc; i += m) {
		m = batch_size(files + i, n - i);
		rc = read_blobs(c, files + i, m, &out, blobs, err);
		for (size_t k = 0; k < m && !rc; k++)
			rc = import_one(c, files[i + k], out.buf + blobs[k].at, blobs[k].len, &why,
					err);
	}
	if (!rc && b->tip)
		rc = history_state_set(c->h, c->key, b->tip, err);
	if (!rc)
		rc = history_commit(c->h, err);
	else
		history_rollback(c->h);
	free(blobs);
	sbuf_release(&why);
	sbuf_release(&out);
	return rc;
}

static int pull(struct ctx *c, struct sbuf *err)
{
	struct branch b = {0};
	struct strvec local = STRVEC_INIT;
	struct branch_file **want = NULL;
	size_t nr = 0;
	struct sbuf path = SBUF_INIT;
	int rc = -1;
	if (load_branch(c, &b, err) || note_rewrite(c, &b, err) ||
	    history_list_origins(c->h, &local, err))
		goto out;
	c->res->tip = b.tip ? xstrdup(b.tip) : NULL;
	c->res->on_branch = branch_runs(&b);
	want = xcalloc(b.nr + 1, sizeof(*want));
	for (size_t i = 0, k = 0; i < b.nr; i++) {
		const char *o = b.v[i].origin;
		if (!o) {
			sbuf_reset(&path);
			file_path(&b.v[i], &path);
			strvec_pushf(&c->res->warnings,
				     "branch '%s': skipped '%s': not a kagari run (its name is no "
				     "run's origin)",
				     c->o->branch, path.buf);
			c->res->skipped++;
			continue;
		}
		/* Both sorted: walk them together. */
		while (k < local.nr && strcmp(local.v[k], o) < 0)
			k++;
		if (k < local.nr && !strcmp(local.v[k], o)) {
			c->res->present++;
		} else if (b.v[i].size > HISTORY_MAX_RUN_FILE_BYTES) {
			/* Never read: its size is the tree's, from `git ls-tree -l`. */
			sbuf_reset(&path);
			file_path(&b.v[i], &path);
			strvec_pushf(&c->res->warnings,
				     "branch '%s': skipped '%s': %.1f MiB, more than a run file "
				     "may be (%zu MiB)",
				     c->o->branch, path.buf, (double)b.v[i].size / (1 << 20),
				     HISTORY_MAX_RUN_FILE_BYTES >> 20);
			c->res->skipped++;
		} else {
			want[nr++] = &b.v[i];
		}
	}
	rc = import_all(c, &b, want, nr, err);
out:
	free(want);
	sbuf_release(&path);
	strvec_clear(&local);
	branch_release(&b);
	return rc;
}

int history_sync_pull(struct history *h, const struct history_sync *o,
		      struct history_sync_result *res, struct sbuf *err)
{
	struct ctx c;
	int rc = setup(&c, h, o, res, 0, err);
	if (!rc)
		rc = pull(&c, err);
	scrub(err, c.secret);
	ctx_release(&c);
	return rc;
}

void history_sync_result_release(struct history_sync_result *res)
{
	free(res->url);
	free(res->tip);
	strvec_clear(&res->warnings);
	memset(res, 0, sizeof(*res));
}
