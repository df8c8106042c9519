/*
 * execute_identical: may a compare whose artifacts are byte-identical be
 * called an A/A for one command? Asked once a benchmark's `setup` has run
 * on both sides and before its first timed run, so that what setup wrote
 * (in ${workdir} or the tree) is there to compare, and `cleanup` has not
 * removed it yet.
 *
 * Only when the command runs ${artifact} itself (its argv[0] is exactly
 * "${artifact}") and nothing else it names differs between the two sides:
 * each further argument (and the value after '=' of an --option=VALUE),
 * each environment value the suite sets and the stdin file either expands
 * to the same path on both sides, or names no file on either side and
 * reads the same once each side's own folders (its ${workdir}, suite
 * folder, tree, temporary folder, artifact) are set aside, or names a
 * regular file whose bytes are the same on both sides. And the benchmark's
 * hooks (`setup`, `prepare_each`, `cleanup`) must be the same on both
 * sides by the same rule: every word of them (of a shell hook's script,
 * its words split at blanks and shell punctuation) and every environment
 * value they get, where a folder counts as its name (a hook's `cd
 * ${workdir}`). Anything else — a shell command, "${artifact}-tool", a
 * script, input or config that changed, a hook script that differs, a
 * folder the command reads — is not an A/A: a change measured there may
 * be the change's, and must be judged as one.
 */
#include "measure/execute_internal.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "base/sbuf.h"
#include "base/strvec.h"
#include "base/xalloc.h"
#include "measure/execute.h"
#include "suite/vars.h"

#define SAME_FILE_MAX ((size_t)1 << 30)
#define NR_OWN 5

/* One side as its words are read: relative to cwd, its own folders aside. */
struct side_view {
	const char *cwd;
	const char *own[NR_OWN]; /* workdir, suite folder, tree, tmpdir, artifact */
};

/* Are the regular files a and b byte-identical? */
static int same_bytes(const char *a, const char *b)
{
	struct sbuf x = SBUF_INIT, y = SBUF_INIT;
	int same = sbuf_read_file(&x, a, SAME_FILE_MAX) >= 0 &&
		   sbuf_read_file(&y, b, SAME_FILE_MAX) >= 0 && x.len == y.len &&
		   !memcmp(x.buf, y.buf, x.len);
	sbuf_release(&x);
	sbuf_release(&y);
	return same;
}

/* w with each of the side's own folders (the longest that matches at a
   place first) replaced by a marker of which it is. */
static char *unown(const char *w, const struct side_view *v)
{
	struct sbuf sb = SBUF_INIT;
	while (*w) {
		size_t best = 0;
		int k = -1;
		for (int i = 0; i < NR_OWN; i++) {
			size_t l = v->own[i] ? strlen(v->own[i]) : 0;
			if (l > best && !strncmp(w, v->own[i], l)) {
				best = l;
				k = i;
			}
		}
		if (k >= 0) {
			sbuf_addf(&sb, "\x01%d", k);
			w += best;
		} else {
			sbuf_addch(&sb, *w++);
		}
	}
	return sbuf_detach(&sb);
}

/* Do a and b read the same once each side's own folders are set aside? */
static int same_name(const char *a, const char *b, const struct side_view *va,
		     const struct side_view *vb)
{
	char *na = unown(a, va), *nb = unown(b, vb);
	int same = !strcmp(na, nb);
	free(na);
	free(nb);
	return same;
}

/*
 * Does the word, a on the base side and b on the head side (relative
 * paths resolved against each side's cwd), name the same thing? A folder
 * on both sides is the same thing by its name when `folders` is set (a
 * hook's), else never (the command may read what is in it).
 */
static int same_thing(const char *a, const char *b, const struct side_view *va,
		      const struct side_view *vb, int folders)
{
	char *pa = execute_join_path(va->cwd, a), *pb = execute_join_path(vb->cwd, b);
	struct stat sa, sb;
	int ea = stat(pa, &sa) == 0, eb = stat(pb, &sb) == 0;
	int same;
	if (!strcmp(pa, pb))
		same = 1; /* one path for both sides: the same file, or none */
	else if (!ea && !eb)
		same = same_name(a, b, va, vb); /* names no file: a plain word */
	else if (ea && eb && S_ISREG(sa.st_mode) && S_ISREG(sb.st_mode))
		/* sizes first: files of two sizes are never read */
		same = sa.st_size == sb.st_size && same_bytes(pa, pb);
	else
		same = folders && ea && eb && S_ISDIR(sa.st_mode) && S_ISDIR(sb.st_mode) &&
		       same_name(a, b, va, vb);
	free(pa);
	free(pb);
	return same;
}

/* A word, and the value of an --option=VALUE word, name the same thing. */
static int same_word(const char *a, const char *b, const struct side_view *va,
		     const struct side_view *vb, int folders)
{
	if (!same_thing(a, b, va, vb, folders))
		return 0;
	const char *qa = strchr(a, '='), *qb = strchr(b, '=');
	if (!qa || !qb)
		return !qa && !qb;
	return qa - a == qb - b && !strncmp(a, b, (size_t)(qa - a)) &&
	       same_thing(qa + 1, qb + 1, va, vb, folders);
}

/* The words of a shell script, split at blanks and shell punctuation. */
static void shell_words(const char *s, struct strvec *out)
{
	static const char sep[] = " \t\n;&|<>()`'\"";
	while (*s) {
		size_t l = strcspn(s, sep);
		if (l)
			strvec_push_take(out, xstrndup(s, l));
		s += l;
		if (*s)
			s++;
	}
}

/*
 * Do two prepared commands (the same spec expanded per side) name the
 * same things? Their words from argv[first] on (a shell script's split
 * into words) and the environment values that `layers` set.
 */
static int same_prepared(const struct execute_prepared *pb, const struct execute_prepared *ph,
			 int shell, size_t first, const struct strvec *const *layers,
			 size_t nr_layers, const struct side_view v[SIDE__COUNT], int folders)
{
	struct strvec wb = STRVEC_INIT, wh = STRVEC_INIT;
	if (shell && pb->argv.nr == 3 && ph->argv.nr == 3) {
		shell_words(pb->argv.v[2], &wb);
		shell_words(ph->argv.v[2], &wh);
	} else {
		for (size_t i = first; i < pb->argv.nr; i++)
			strvec_push(&wb, pb->argv.v[i]);
		for (size_t i = first; i < ph->argv.nr; i++)
			strvec_push(&wh, ph->argv.v[i]);
	}
	struct side_view vb = v[SIDE_BASE], vh = v[SIDE_HEAD];
	vb.cwd = pb->cwd;
	vh.cwd = ph->cwd;
	int ok = wb.nr == wh.nr;
	for (size_t i = 0; ok && i < wb.nr; i++)
		ok = same_word(wb.v[i], wh.v[i], &vb, &vh, folders);
	for (size_t l = 0; ok && l < nr_layers; l++)
		for (size_t i = 0; ok && i < layers[l]->nr; i++) {
			const char *eq = strchr(layers[l]->v[i], '=');
			if (!eq)
				continue;
			char *name = xstrndup(layers[l]->v[i], (size_t)(eq - layers[l]->v[i]));
			const char *va = strvec_getenv(&pb->env, name);
			const char *vh_ = strvec_getenv(&ph->env, name);
			ok = va && vh_ && same_word(va, vh_, &vb, &vh, folders);
			free(name);
		}
	strvec_clear(&wb);
	strvec_clear(&wh);
	return ok;
}

/* Every hook of one list names the same things on both sides. */
static int same_hooks(const char *what, const struct exec_spec *hooks, size_t n,
		      const struct bench_spec *b, char *const suite_dir[SIDE__COUNT],
		      const struct vars_context ctx[SIDE__COUNT],
		      const struct side_view v[SIDE__COUNT])
{
	int ok = 1;
	for (size_t i = 0; ok && i < n; i++) {
		struct execute_prepared p[SIDE__COUNT];
		struct sbuf err = SBUF_INIT;
		int prepared = 1;
		for (int sd = 0; sd < SIDE__COUNT; sd++)
			if (execute_prepare_hook(what, hooks, i, b, suite_dir[sd], &ctx[sd], &p[sd],
						 &err))
				prepared = 0;
		const struct strvec *layers[] = {&b->settings.env, &hooks[i].env};
		ok = prepared && same_prepared(&p[SIDE_BASE], &p[SIDE_HEAD], hooks[i].shell, 0,
					       layers, 2, v, 1);
		for (int sd = 0; sd < SIDE__COUNT; sd++)
			execute_prepared_release(&p[sd]);
		sbuf_release(&err);
	}
	return ok;
}

/* The command itself: ${artifact} on the same arguments, env and stdin. */
static int same_command(const struct bench_spec *b, const struct command_spec *cs,
			char *const suite_dir[SIDE__COUNT],
			const struct vars_context ctx[SIDE__COUNT],
			const struct side_view v[SIDE__COUNT])
{
	if (cs->exec.shell || cs->exec.argv.nr == 0 ||
	    strcmp(cs->exec.argv.v[0], "${artifact}") != 0)
		return 0;
	struct execute_prepared p[SIDE__COUNT];
	char *in[SIDE__COUNT] = {NULL, NULL};
	const struct strvec *layers[] = {&cs->settings.env, &cs->exec.env};
	int ok = 1;
	struct sbuf err = SBUF_INIT;
	for (int sd = 0; sd < SIDE__COUNT; sd++) {
		memset(&p[sd], 0, sizeof(p[sd]));
		strvec_init(&p[sd].argv);
		strvec_init(&p[sd].env);
		if (ok && execute_prepare_exec(&cs->exec, layers, 2, suite_dir[sd],
					       cs->settings.cwd, &ctx[sd], &p[sd], &err))
			ok = 0;
		if (ok && b->stdin_spec.kind == STDIN_FILE &&
		    !(in[sd] = execute_side_path("stdin", b->stdin_spec.value, suite_dir[sd],
						 &ctx[sd], &err)))
			ok = 0;
	}
	ok = ok && same_prepared(&p[SIDE_BASE], &p[SIDE_HEAD], 0, 1, layers, 2, v, 0);
	if (ok && in[SIDE_BASE]) {
		struct side_view vb = v[SIDE_BASE], vh = v[SIDE_HEAD];
		vb.cwd = vh.cwd = "/";
		ok = same_thing(in[SIDE_BASE], in[SIDE_HEAD], &vb, &vh, 0);
	}
	for (int sd = 0; sd < SIDE__COUNT; sd++) {
		execute_prepared_release(&p[sd]);
		free(in[sd]);
	}
	sbuf_release(&err);
	return ok;
}

int execute_same_inputs(const struct bench_spec *b, const struct command_spec *cs,
			const struct execute_side sides[SIDE__COUNT],
			char *const suite_dir[SIDE__COUNT],
			const struct vars_context ctx[SIDE__COUNT])
{
	struct side_view v[SIDE__COUNT];
	for (int sd = 0; sd < SIDE__COUNT; sd++)
		v[sd] = (struct side_view){
		    .cwd = suite_dir[sd],
		    .own = {ctx[sd].workdir, suite_dir[sd], sides[sd].root, sides[sd].tmpdir,
			    sides[sd].artifact},
		};
	return same_command(b, cs, suite_dir, ctx, v) &&
	       same_hooks("setup", b->setup, b->nr_setup, b, suite_dir, ctx, v) &&
	       same_hooks("prepare_each", b->prepare_each, b->nr_prepare_each, b, suite_dir, ctx,
			  v) &&
	       same_hooks("cleanup", b->cleanup, b->nr_cleanup, b, suite_dir, ctx, v);
}

int execute_same_artifacts(const char *a, const char *b)
{
	return a && b && same_bytes(a, b);
}

void execute_warn_artifact_sizes(const char *suite, const char *a, const char *b, const char *note,
				 struct strvec *warnings)
{
	struct stat sa, sb;
	if (!a || !b || stat(a, &sa) || stat(b, &sb) || sa.st_size == sb.st_size)
		return;
	strvec_pushf(warnings,
		     "suite '%s': the base and head ${artifact} differ in size (%jd and %jd "
		     "bytes), as a build whose output holds its folder (__FILE__, debug "
		     "information, an rpath) does for that alone: %s",
		     suite, (intmax_t)sa.st_size, (intmax_t)sb.st_size, note);
}
