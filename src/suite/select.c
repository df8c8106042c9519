/*
 * suite/select: the suites named on the command line, loaded, and the
 * benchmarks --filter, --tag and --skip-tag select (select.h).
 */
#include "suite/select.h"

#include <regex.h>
#include <stdlib.h>
#include <string.h>

#include "base/sbuf.h"
#include "base/xalloc.h"
#include "suite/discover.h"
#include "suite/load.h"

int suites_load_files(const struct strvec *files, struct loaded_suites *ls, struct sbuf *err)
{
	memset(ls, 0, sizeof(*ls));
	int rc = 0;
	struct sbuf one = SBUF_INIT;
	ls->suites = xcalloc(files->nr + 1, sizeof(*ls->suites));
	for (size_t i = 0; i < files->nr; i++) {
		sbuf_reset(&one);
		struct suite *s = suite_load(files->v[i], &one);
		if (!s) {
			sbuf_rtrim(&one);
			sbuf_addf(err, "%s\n", one.buf);
			rc = -2;
			continue;
		}
		ls->suites[ls->nr++] = s;
	}
	sbuf_release(&one);
	return rc;
}

int suites_load(const struct strvec *paths, struct loaded_suites *ls, struct sbuf *err)
{
	memset(ls, 0, sizeof(*ls));
	struct strvec files = STRVEC_INIT;
	int rc = -1;
	if (!suite_discover(paths->v, paths->nr, &files, err))
		rc = suites_load_files(&files, ls, err);
	strvec_clear(&files);
	return rc;
}

static int has_tag(const struct bench_spec *b, const struct strvec *tags)
{
	for (size_t i = 0; i < tags->nr; i++)
		if (strvec_contains(&b->tags, tags->v[i]))
			return 1;
	return 0;
}

/* Mark the benchmarks of s that --filter (compiled in re), --tag and
   --skip-tag select; returns how many. */
static size_t select_benches(const struct suite_selection *sel, regex_t *re, const struct suite *s,
			     unsigned char *selected)
{
	size_t n = 0;
	for (size_t b = 0; b < s->nr_benches; b++) {
		const struct bench_spec *bs = &s->benches[b];
		selected[b] = 0;
		if (re && regexec(re, bs->name, 0, NULL, 0))
			continue;
		if (sel->tags.nr && !has_tag(bs, &sel->tags))
			continue;
		if (sel->skip_tags.nr && has_tag(bs, &sel->skip_tags))
			continue;
		selected[b] = 1;
		n++;
	}
	return n;
}

/* A command without selection options (bench) selects everything. */
static const struct suite_selection select_all = {NULL, STRVEC_INIT, STRVEC_INIT};

static int compile_filter(const struct suite_selection *sel, regex_t *re, struct sbuf *err)
{
	int e = regcomp(re, sel->filter, REG_EXTENDED | REG_NOSUB);
	if (e) {
		char msg[256];
		regerror(e, re, msg, sizeof(msg));
		sbuf_addf(err, "invalid --filter '%s': %s", sel->filter, msg);
		return -1;
	}
	return 0;
}

int suites_select(const struct suite_selection *sel, struct loaded_suites *ls, struct sbuf *err)
{
	regex_t re;
	if (!sel)
		sel = &select_all;
	if (sel->filter && compile_filter(sel, &re, err))
		return -1;
	ls->selected = xcalloc(ls->nr + 1, sizeof(*ls->selected));
	ls->nr_selected = 0;
	for (size_t i = 0; i < ls->nr; i++) {
		const struct suite *s = ls->suites[i];
		ls->selected[i] = xcalloc(s->nr_benches + 1, 1);
		ls->nr_selected +=
		    select_benches(sel, sel->filter ? &re : NULL, s, ls->selected[i]);
	}
	if (sel->filter)
		regfree(&re);
	if (!ls->nr_selected) {
		struct sbuf what = SBUF_INIT;
		if (sel->filter)
			sbuf_addf(&what, " --filter '%s'", sel->filter);
		for (size_t i = 0; i < sel->tags.nr; i++)
			sbuf_addf(&what, " --tag %s", sel->tags.v[i]);
		for (size_t i = 0; i < sel->skip_tags.nr; i++)
			sbuf_addf(&what, " --skip-tag %s", sel->skip_tags.v[i]);
		sbuf_addf(err, "no benchmark matches the selection%s", what.buf);
		sbuf_release(&what);
		return -1;
	}
	return 0;
}

void suites_left_out(const struct suite_selection *selection, const struct suite *ran,
		     const struct suite *other, struct strvec *out)
{
	regex_t re;
	if (!selection)
		selection = &select_all;
	int have_re =
	    selection->filter && !regcomp(&re, selection->filter, REG_EXTENDED | REG_NOSUB);
	unsigned char *sel = xcalloc(other->nr_benches + 1, 1);
	select_benches(selection, have_re ? &re : NULL, other, sel);
	for (size_t b = 0; b < other->nr_benches; b++) {
		int found = 0;
		for (size_t k = 0; k < ran->nr_benches && !found; k++)
			found = !strcmp(ran->benches[k].name, other->benches[b].name);
		if (sel[b] && !found)
			strvec_push(out, other->benches[b].name);
	}
	free(sel);
	if (have_re)
		regfree(&re);
}

size_t suites_replace(const struct suite_selection *selection, int sharded,
		      struct loaded_suites *ls, size_t i, struct suite *s)
{
	regex_t re;
	if (!selection)
		selection = &select_all;
	/* The filter compiled once already; it cannot fail now. */
	int have_re =
	    selection->filter && !regcomp(&re, selection->filter, REG_EXTENDED | REG_NOSUB);
	size_t before = 0;
	const struct suite *old = ls->suites[i];
	for (size_t b = 0; b < old->nr_benches; b++)
		before += ls->selected[i][b] != 0;
	unsigned char *sel = xcalloc(s->nr_benches + 1, 1);
	size_t n = select_benches(selection, have_re ? &re : NULL, s, sel);
	/*
	 * What the selection narrowed beyond the filters (--shard) stays
	 * narrowed: a benchmark the old suite has keeps its old selection, and
	 * one only the new suite has is measured only by an unsharded job, so
	 * that shards stay disjoint.
	 */
	for (size_t b = 0; b < s->nr_benches; b++) {
		if (!sel[b])
			continue;
		int found = 0, was = 0;
		for (size_t o = 0; o < old->nr_benches && !found; o++)
			if (!strcmp(old->benches[o].name, s->benches[b].name)) {
				found = 1;
				was = ls->selected[i][o] != 0;
			}
		if (found ? !was : sharded) {
			sel[b] = 0;
			n--;
		}
	}
	suite_free(ls->suites[i]);
	free(ls->selected[i]);
	ls->suites[i] = s;
	ls->selected[i] = sel;
	ls->nr_selected = ls->nr_selected - before + n;
	if (have_re)
		regfree(&re);
	return n;
}

void suites_release(struct loaded_suites *ls)
{
	for (size_t i = 0; i < ls->nr; i++) {
		suite_free(ls->suites[i]);
		if (ls->selected)
			free(ls->selected[i]);
	}
	free(ls->suites);
	free(ls->selected);
	memset(ls, 0, sizeof(*ls));
}
