/*
 * execute_identical: may a compare whose artifacts are byte-identical be
 * called an A/A for one command? Only when that command runs ${artifact}
 * itself (its argv[0] is exactly "${artifact}") and nothing else it names
 * differs between the two sides: each further argument (and the value
 * after '=' of an --option=VALUE), each environment value the suite sets
 * and the stdin file either expands to the same path on both sides, or
 * names no file on either side and reads the same, or names a regular file
 * whose bytes are the same on both sides. Anything else — a shell command,
 * "${artifact}-tool", a script or config that changed, a folder, a path in
 * ${workdir} (made by setup, gone by now) — is not an A/A: a change
 * measured there may be the change's, and must be judged as one.
 */
#include "measure/execute_internal.h"

#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "base/sbuf.h"
#include "base/strvec.h"
#include "base/xalloc.h"
#include "measure/execute.h"
#include "suite/vars.h"

#define SAME_FILE_MAX ((size_t)1 << 30)

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

/*
 * Does the word, a on the base side and b on the head side (relative
 * paths resolved against each side's cwd), name the same thing?
 */
static int same_thing(const char *a, const char *b, const char *cwd_a,
		      const char *cwd_b)
{
	char *pa = execute_join_path(cwd_a, a), *pb = execute_join_path(cwd_b, b);
	struct stat sa, sb;
	int ea = stat(pa, &sa) == 0, eb = stat(pb, &sb) == 0;
	int same;
	if (!strcmp(pa, pb))
		same = 1; /* one path for both sides: the same file, or none */
	else if (!ea && !eb)
		same = !strcmp(a, b); /* names no file: a plain word */
	else
		same = ea && eb && S_ISREG(sa.st_mode) && S_ISREG(sb.st_mode) &&
		       same_bytes(pa, pb);
	free(pa);
	free(pb);
	return same;
}

/* A word, and the value of an --option=VALUE word, name the same thing. */
static int same_word(const char *a, const char *b, const char *cwd_a,
		     const char *cwd_b)
{
	if (!same_thing(a, b, cwd_a, cwd_b))
		return 0;
	const char *qa = strchr(a, '='), *qb = strchr(b, '=');
	if (!qa || !qb)
		return !qa && !qb;
	return qa - a == qb - b && !strncmp(a, b, (size_t)(qa - a)) &&
	       same_thing(qa + 1, qb + 1, cwd_a, cwd_b);
}

int execute_same_inputs(const struct suite *s, const struct bench_spec *b,
			const struct command_spec *cs,
			const struct execute_side sides[SIDE__COUNT])
{
	if (cs->exec.shell || cs->exec.argv.nr == 0 ||
	    strcmp(cs->exec.argv.v[0], "${artifact}") != 0)
		return 0;
	struct execute_prepared p[SIDE__COUNT];
	char *dir[SIDE__COUNT], *head_dir[SIDE__COUNT], *in[SIDE__COUNT];
	const struct strvec *layers[] = { &cs->settings.env, &cs->exec.env };
	int ok = 1;
	struct sbuf err = SBUF_INIT;
	for (int sd = 0; sd < SIDE__COUNT; sd++) {
		memset(&p[sd], 0, sizeof(p[sd]));
		strvec_init(&p[sd].argv);
		strvec_init(&p[sd].env);
		dir[sd] = execute_side_suite_dir(s, &sides[sd]);
		head_dir[sd] = execute_suite_dir_in(s, sides[sd].head_root);
		in[sd] = NULL;
		/* No ${workdir}: a path there expands to an error, hence "no". */
		struct vars_context ctx = {
			.artifact = sides[sd].artifact, .root = dir[sd],
			.head_root = head_dir[sd], .workdir = NULL, .env = NULL,
			.repo = sides[sd].root, .head_repo = sides[sd].head_root,
		};
		if (ok && execute_prepare_exec(&cs->exec, layers, 2, dir[sd],
					       cs->settings.cwd, &ctx, &p[sd], &err))
			ok = 0;
		if (ok && b->stdin_spec.kind == STDIN_FILE &&
		    !(in[sd] = execute_side_path("stdin", b->stdin_spec.value, dir[sd],
						 &ctx, &err)))
			ok = 0;
	}
	const struct execute_prepared *pb = &p[SIDE_BASE], *ph = &p[SIDE_HEAD];
	ok = ok && pb->argv.nr == ph->argv.nr;
	for (size_t i = 1; ok && i < pb->argv.nr; i++)
		ok = same_word(pb->argv.v[i], ph->argv.v[i], pb->cwd, ph->cwd);
	for (size_t l = 0; ok && l < sizeof(layers) / sizeof(*layers); l++)
		for (size_t i = 0; ok && i < layers[l]->nr; i++) {
			const char *eq = strchr(layers[l]->v[i], '=');
			if (!eq)
				continue;
			char *name = xstrndup(layers[l]->v[i], (size_t)(eq - layers[l]->v[i]));
			const char *va = strvec_getenv(&pb->env, name);
			const char *vh = strvec_getenv(&ph->env, name);
			ok = va && vh && same_word(va, vh, pb->cwd, ph->cwd);
			free(name);
		}
	if (ok && in[SIDE_BASE])
		ok = same_thing(in[SIDE_BASE], in[SIDE_HEAD], "/", "/");
	for (int sd = 0; sd < SIDE__COUNT; sd++) {
		execute_prepared_release(&p[sd]);
		free(dir[sd]);
		free(head_dir[sd]);
		free(in[sd]);
	}
	sbuf_release(&err);
	return ok;
}
