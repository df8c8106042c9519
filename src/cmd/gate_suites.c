/*
 * cmd/gate_suites: the base revision's suites, found as the working
 * tree's are, and matched with the working tree's (gate_suites.h).
 */
#include "cmd/gate_suites.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "base/path.h"
#include "base/sbuf.h"
#include "base/xalloc.h"
#include "cmd/cmd.h"
#include "cmd/exit.h"
#include "git/git.h"
#include "git/tree.h"
#include "suite/discover.h"
#include "suite/load.h"

/* The base commit's tree, as suite/discover.h reads a tree. */
struct base_tree {
	const char *repo, *sha;
	char *cwd;  /* the current folder, physical: where relative paths start */
	int failed; /* git could not be asked (the message is in the caller's err) */
};

/* abs with its longest existing prefix resolved (symbolic links), the rest
   as written: the repository top git gives is resolved too. */
static char *physical(const char *abs)
{
	char *real = realpath(abs, NULL);
	if (real)
		return real;
	const char *slash = strrchr(abs, '/');
	if (!slash || slash == abs)
		return xstrdup(abs);
	char *parent = xstrndup(abs, (size_t)(slash - abs));
	char *pp = physical(parent);
	char *out = xstrfmt("%s%s", strcmp(pp, "/") ? pp : "", slash);
	free(parent);
	free(pp);
	return out;
}

/* A path as the user gave it, relative to the repository's top; NULL when
   it lies outside the repository. Its folders are resolved in the working
   tree, its last part is not: a suite file that is a symbolic link names
   the link's path in the base, as git stores it. */
static char *repo_rel(const struct base_tree *bt, const char *path)
{
	char *joined = path[0] == '/' ? xstrdup(path) : xstrfmt("%s/%s", bt->cwd, path);
	char *norm = path_normalize(joined);
	char *slash = strrchr(norm, '/');
	char *phys;
	if (slash && slash != norm) {
		*slash = '\0';
		char *parent = physical(norm);
		phys = xstrfmt("%s/%s", strcmp(parent, "/") ? parent : "", slash + 1);
		free(parent);
	} else {
		phys = physical(norm);
	}
	const char *in = path_inside(phys, bt->repo);
	char *rel = in ? xstrdup(in) : NULL;
	free(joined);
	free(norm);
	free(phys);
	return rel;
}

static int bt_kind(void *data, const char *path, enum suite_entry *kind, struct sbuf *err)
{
	struct base_tree *bt = data;
	char *rel = repo_rel(bt, path);
	enum git_entry e = GIT_ENTRY_NONE;
	int rc = 0;
	if (rel && git_tree_kind(bt->repo, bt->sha, rel, &e, err)) {
		sbuf_addch(err, '\n');
		bt->failed = 1;
		rc = -1;
	}
	*kind = e == GIT_ENTRY_DIR    ? SUITE_ENTRY_DIR
		: e == GIT_ENTRY_FILE ? SUITE_ENTRY_FILE
				      : SUITE_ENTRY_NONE;
	free(rel);
	return rc;
}

static int bt_files(void *data, const char *dir, struct strvec *names, struct sbuf *err)
{
	struct base_tree *bt = data;
	char *rel = repo_rel(bt, dir);
	int rc = 0;
	if (rel && git_tree_files(bt->repo, bt->sha, rel, names, err)) {
		sbuf_addch(err, '\n');
		bt->failed = 1;
		rc = -1;
	}
	free(rel);
	return rc;
}

/* err's lines joined with "; ", without the last newline. */
static char *one_line(const struct sbuf *err)
{
	struct sbuf sb = SBUF_INIT;
	for (size_t i = 0; i < err->len; i++)
		if (err->buf[i] != '\n')
			sbuf_addch(&sb, err->buf[i]);
		else if (i + 1 < err->len)
			sbuf_adds(&sb, "; ");
	return sbuf_detach(&sb);
}

/*
 * The base's suite files for the arguments, into files, by discover.h's
 * rule in the base's tree. A file of the working tree the base lacks
 * stands for its folder there. What the base lacks is said in notes.
 * Returns 0, or -1 when git failed (the reason in err).
 */
static int base_discover(struct base_tree *bt, const struct strvec *paths, const char *base_ref,
			 struct strvec *files, struct strvec *notes, struct sbuf *err)
{
	struct suite_tree t = {bt_kind, bt_files, bt};
	struct sbuf why = SBUF_INIT;
	if (!paths->nr) {
		if (suite_discover_tree(&t, NULL, 0, files, &why) && !bt->failed)
			strvec_pushf(notes,
				     "%s has no kagari.yaml or himorime.yaml in the current folder",
				     base_ref);
	} else {
		for (size_t i = 0; i < paths->nr && !bt->failed; i++) {
			const char *arg = paths->v[i];
			char *folder = NULL;
			enum suite_entry k;
			struct stat st;
			if (bt_kind(bt, arg, &k, &why))
				break;
			if (k == SUITE_ENTRY_NONE && stat(arg, &st) == 0 && !S_ISDIR(st.st_mode)) {
				const char *slash = strrchr(arg, '/');
				folder =
				    slash ? xstrndup(arg, slash == arg ? 1 : (size_t)(slash - arg))
					  : xstrdup(".");
				strvec_pushf(notes,
					     "%s is not in %s: %s's suites in its folder '%s' take "
					     "its place",
					     arg, base_ref, base_ref, folder);
				arg = folder;
			}
			size_t before = files->nr;
			suite_discover_tree(&t, &arg, 1, files, &why);
			if (files->nr == before && !bt->failed)
				strvec_pushf(notes, "%s has no suite at '%s'", base_ref, arg);
			free(folder);
		}
	}
	int rc = 0;
	if (bt->failed) {
		sbuf_addf(err, "cannot read the suites of %s: ", base_ref);
		char *line = one_line(&why);
		sbuf_adds(err, line);
		free(line);
		rc = -1;
	}
	sbuf_release(&why);
	return rc;
}

/* One suite file of either side: where it is in the repository, its text. */
struct copy {
	struct suite *s; /* owned until it moves to the result */
	char *rel;	 /* relative to the repository's top */
	struct sbuf text;
	int match; /* the index of the other side's copy it matches, or -1 */
};

static struct copy *copies_new(size_t n)
{
	struct copy *c = xcalloc(n + 1, sizeof(*c));
	for (size_t i = 0; i < n; i++) {
		sbuf_init(&c[i].text);
		c[i].match = -1;
	}
	return c;
}

static void copies_release(struct copy *c, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		suite_free(c[i].s);
		free(c[i].rel);
		sbuf_release(&c[i].text);
	}
	free(c);
}

/* The base's copies of files: read from the commit and loaded as if they
   were the working tree's files (their folder, root and relative paths
   are the working tree's). 0 or an exit code (printed). */
static int load_base(struct base_tree *bt, const struct strvec *files, const char *base_ref,
		     struct copy *out)
{
	struct sbuf err = SBUF_INIT;
	int rc = 0;
	for (size_t i = 0; i < files->nr && !rc; i++) {
		struct copy *c = &out[i];
		c->rel = repo_rel(bt, files->v[i]);
		sbuf_reset(&err);
		if (!c->rel || git_tree_read(bt->repo, bt->sha, c->rel, &c->text, &err)) {
			cmd_error("cannot read %s's copy of the suite %s: %s", base_ref,
				  files->v[i], err.len ? err.buf : "not in the repository");
			rc = EXIT_EXEC;
		} else if (!(c->s = suite_load_mem(files->v[i], c->text.buf, c->text.len, &err))) {
			sbuf_rtrim(&err);
			cmd_error("%s's copy of the suite %s is invalid (--suite-from head runs "
				  "the working tree's):\n%s",
				  base_ref, c->rel, err.buf);
			rc = EXIT_INVALID;
		}
	}
	sbuf_release(&err);
	return rc;
}

/* The working tree's suites: the ones it has, loaded; where the working
   tree lacks what the arguments name, a note (the base's gate anyway).
   0 or EXIT_INVALID (printed). */
static int load_head(struct base_tree *bt, const struct strvec *paths, struct copy **out, size_t *n,
		     struct strvec *notes)
{
	struct strvec files = STRVEC_INIT;
	struct sbuf err = SBUF_INIT;
	struct loaded_suites ls;
	int rc;
	if (suite_discover(paths->v, paths->nr, &files, &err)) {
		char *line = one_line(&err);
		strvec_pushf(notes, "the working tree: %s", line);
		free(line);
	}
	rc = common_load_files(&files, &ls);
	*n = ls.nr;
	*out = copies_new(ls.nr);
	for (size_t i = 0; i < ls.nr; i++) {
		struct copy *c = &(*out)[i];
		c->s = ls.suites[i];
		ls.suites[i] = NULL;
		c->rel = repo_rel(bt, c->s->file);
		if (sbuf_read_file(&c->text, c->s->file, SUITE_MAX_BYTES) < 0)
			sbuf_reset(&c->text);
	}
	ls.nr = 0;
	common_release(&ls);
	strvec_clear(&files);
	sbuf_release(&err);
	return rc;
}

/* Match the working tree's copies with the base's: the same path first,
   then the same suite name. */
static void match_copies(struct copy *base, size_t nb, struct copy *head, size_t nh)
{
	for (int by_name = 0; by_name < 2; by_name++)
		for (size_t h = 0; h < nh; h++)
			for (size_t b = 0; b < nb && head[h].match < 0; b++) {
				if (base[b].match >= 0)
					continue;
				int same = by_name ? !strcmp(base[b].s->name, head[h].s->name)
						   : base[b].rel && head[h].rel &&
							 !strcmp(base[b].rel, head[h].rel);
				if (same) {
					base[b].match = (int)h;
					head[h].match = (int)b;
				}
			}
}

static void add_left_out(struct sbuf *sb, const struct strvec *names, const char *whose)
{
	if (!names->nr) {
		sbuf_adds(sb, "no benchmark left out");
		return;
	}
	sbuf_adds(sb, "left out: ");
	for (size_t k = 0; k < names->nr; k++)
		sbuf_addf(sb, "%s'%s'", k ? ", " : "", names->v[k]);
	sbuf_addf(sb, " (only in %s copy)", whose);
}

/* The line for base copy b, or none when the working tree holds the same
   file at the same place. */
static void note_base(const struct copy *b, const struct copy *head,
		      const struct cli_selection *sel, const char *base_ref, struct strvec *notes)
{
	const struct copy *h = b->match >= 0 ? &head[b->match] : NULL;
	int same_text =
	    h && h->text.len == b->text.len && !memcmp(h->text.buf, b->text.buf, b->text.len);
	int same_place = h && h->rel && !strcmp(h->rel, b->rel);
	if (same_text && same_place)
		return;
	struct sbuf msg = SBUF_INIT;
	sbuf_addf(&msg, "suite '%s': both sides run %s's copy of %s, ", b->s->name, base_ref,
		  b->rel);
	if (!h)
		sbuf_adds(&msg, "which is not among the working tree's suites (a suite deleted, "
				"renamed or moved still gates the change that does it; ");
	else if (same_place)
		sbuf_adds(&msg, "which differs from the working tree's (");
	else
		sbuf_addf(&msg, "which the working tree has as %s%s (matched by the suite's name; ",
			  h->rel ? h->rel : h->s->file, same_text ? "" : ", changed");
	sbuf_adds(&msg, "suite_from: base; --suite-from head runs the working tree's)");
	if (h) {
		struct strvec left = STRVEC_INIT;
		common_left_out(sel, b->s, h->s, &left);
		sbuf_adds(&msg, "; ");
		add_left_out(&msg, &left, "the working tree's");
		strvec_clear(&left);
	}
	strvec_push(notes, msg.buf);
	sbuf_release(&msg);
}

/* Append suite s (taken) to g. */
static void add_suite(struct gate_suites *g, struct suite *s, const char *from, int gating)
{
	size_t i = g->ls.nr++;
	g->ls.suites = xreallocarray(g->ls.suites, g->ls.nr + 1, sizeof(*g->ls.suites));
	g->from = xreallocarray(g->from, g->ls.nr + 1, sizeof(*g->from));
	g->gating = xreallocarray(g->gating, g->ls.nr + 1, 1);
	g->ls.suites[i] = s;
	g->ls.suites[i + 1] = NULL;
	g->from[i] = from;
	g->gating[i] = (unsigned char)gating;
}

/* No suite in the base: the working tree's gate, as compare runs them. */
static int adopt(const struct strvec *paths, const char *base_ref, int explicit_base,
		 struct gate_suites *g)
{
	if (explicit_base) {
		cmd_error("--suite-from base: %s has no suite where the arguments point (%s)",
			  base_ref, g->notes.nr ? g->notes.v[g->notes.nr - 1] : "none found");
		return EXIT_USAGE;
	}
	struct loaded_suites ls;
	int rc = common_load(paths, &ls);
	for (size_t i = 0; !rc && i < ls.nr; i++) {
		add_suite(g, ls.suites[i], "head", 1);
		ls.suites[i] = NULL;
	}
	if (!rc)
		ls.nr = 0;
	common_release(&ls);
	if (!rc)
		strvec_pushf(
		    &g->notes,
		    "%s has no suite (looked for kagari.yaml, *.kagari.yaml, himorime.yaml "
		    "and *.himorime.yaml where the working tree's are): both sides run the "
		    "working tree's suites, and they gate (suite_from: head; the change "
		    "that adopts kagari)",
		    base_ref);
	return rc;
}

static int find_repo(const struct strvec *paths, struct base_tree *bt, char **repo)
{
	struct sbuf err = SBUF_INIT;
	int rc = 0;
	bt->cwd = getcwd(NULL, 0);
	if (!bt->cwd) {
		cmd_error("cannot read the current folder");
		return EXIT_EXEC;
	}
	/* The first argument's folder, or its nearest one that exists. */
	const char *first = paths->nr ? paths->v[0] : ".";
	char *joined = first[0] == '/' ? xstrdup(first) : xstrfmt("%s/%s", bt->cwd, first);
	char *dir = path_normalize(joined);
	struct stat st;
	while (strcmp(dir, "/") && (stat(dir, &st) != 0 || !S_ISDIR(st.st_mode))) {
		char *slash = strrchr(dir, '/');
		if (slash == dir)
			slash[1] = '\0';
		else
			*slash = '\0';
	}
	if (git_toplevel(dir, repo, &err)) {
		cmd_error("%s (compare needs a git repository)", err.buf);
		rc = EXIT_EXEC;
	}
	free(joined);
	free(dir);
	sbuf_release(&err);
	return rc;
}

int gate_suites_find(const struct strvec *paths, const struct cli_selection *sel,
		     const char *base_ref, int explicit_base, struct gate_suites *g)
{
	memset(g, 0, sizeof(*g));
	strvec_init(&g->notes);
	strvec_init(&g->replaced);
	g->ls.suites = xcalloc(1, sizeof(*g->ls.suites));
	struct base_tree bt;
	memset(&bt, 0, sizeof(bt));
	char *repo = NULL, *sha = NULL;
	struct strvec bfiles = STRVEC_INIT;
	struct sbuf err = SBUF_INIT;
	struct copy *base = NULL, *head = NULL;
	size_t nh = 0;
	int rc = find_repo(paths, &bt, &repo);
	if (!rc && git_resolve_commit(repo, base_ref, &sha, &err)) {
		cmd_error("%s", err.buf);
		rc = EXIT_EXEC;
	}
	bt.repo = repo;
	bt.sha = sha;
	if (!rc && base_discover(&bt, paths, base_ref, &bfiles, &g->notes, &err)) {
		cmd_error("%s", err.buf);
		rc = EXIT_EXEC;
	}
	base = copies_new(bfiles.nr);
	if (!rc)
		rc = load_base(&bt, &bfiles, base_ref, base);
	if (!rc && !bfiles.nr) {
		rc = adopt(paths, base_ref, explicit_base, g);
		goto out;
	}
	if (!rc)
		rc = load_head(&bt, paths, &head, &nh, &g->notes);
	if (rc)
		goto out;
	match_copies(base, bfiles.nr, head, nh);
	for (size_t b = 0; b < bfiles.nr; b++) {
		note_base(&base[b], head, sel, base_ref, &g->notes);
		add_suite(g, base[b].s, "base", 1);
		base[b].s = NULL;
	}
	for (size_t h = 0; h < nh; h++) {
		if (head[h].match >= 0) {
			strvec_push(&g->replaced, head[h].s->file);
			continue;
		}
		strvec_pushf(
		    &g->notes,
		    "suite '%s' (%s) is not in %s: both sides run the working tree's copy, "
		    "measured and reported but not gating (suite_from: head, gating: false; "
		    "its budgets are not checked); it gates from the next change on",
		    head[h].s->name, head[h].rel ? head[h].rel : head[h].s->file, base_ref);
		suite_ungate(head[h].s);
		add_suite(g, head[h].s, "head", 0);
		head[h].s = NULL;
	}
out:
	copies_release(base, bfiles.nr);
	if (head)
		copies_release(head, nh);
	strvec_clear(&bfiles);
	sbuf_release(&err);
	free(bt.cwd);
	free(repo);
	free(sha);
	return rc;
}

void gate_suites_release(struct gate_suites *g)
{
	common_release(&g->ls);
	free(g->from);
	free(g->gating);
	strvec_clear(&g->notes);
	strvec_clear(&g->replaced);
	memset(g, 0, sizeof(*g));
}
