/*
 * report/flame: the differential flame graph of a sampled profile
 * (svg.h's svg_flame_graph()). The folded stacks of both sides are merged
 * into one tree of frames (children by name under their caller); each
 * frame is drawn as wide as its share of the head's samples, callers
 * below callees, and coloured by the verdict on its function's self time
 * (analyze/profile.h): red for `grew`, blue for `shrank`, deeper for a
 * larger relative change; beige for `same`, grey for too few samples.
 * A frame seen only on the base side has no width and is not drawn.
 */
#include "report/svg.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "base/xalloc.h"
#include "report/report.h"

#define FLAME_WIDTH 1000
#define FLAME_ROW 16
#define FLAME_MAX_DEPTH 64
#define FLAME_MIN_PX 0.5 /* narrower frames are left out */

struct fnode {
	char *name;
	uint64_t n[PROFILE_SIDES];
	size_t child, sibling; /* index + 1; 0: none */
};

struct flame {
	struct fnode *v;
	size_t nr, alloc;
	int depth; /* deepest frame drawn */
};

static size_t node_new(struct flame *f, const char *name, size_t len)
{
	ALLOC_GROW(f->v, f->nr + 1, f->alloc);
	struct fnode *n = &f->v[f->nr];
	memset(n, 0, sizeof(*n));
	n->name = xstrndup(name, len);
	return f->nr++;
}

/* The child of parent named name[0..len), made when new. */
static size_t child_of(struct flame *f, size_t parent, const char *name, size_t len)
{
	for (size_t c = f->v[parent].child; c; c = f->v[c - 1].sibling) {
		const char *cn = f->v[c - 1].name;
		if (strlen(cn) == len && !memcmp(cn, name, len))
			return c - 1;
	}
	size_t k = node_new(f, name, len);
	f->v[k].sibling = f->v[parent].child;
	f->v[parent].child = k + 1;
	return k;
}

static void add_stack(struct flame *f, const struct profile_stack *st)
{
	size_t at = 0;
	int depth = 0;
	for (int s = 0; s < PROFILE_SIDES; s++)
		f->v[0].n[s] += st->count[s];
	for (const char *p = st->stack; *p && depth < FLAME_MAX_DEPTH; depth++) {
		const char *e = strchr(p, ';');
		size_t len = e ? (size_t)(e - p) : strlen(p);
		at = child_of(f, at, p, len);
		for (int s = 0; s < PROFILE_SIDES; s++)
			f->v[at].n[s] += st->count[s];
		p += len + (e != NULL);
	}
}

/* The change of the function a frame names (frames carry no binary: the
   first function of that name), or NULL. */
static const struct profile_change *change_of(const struct profile_set *ps, const char *name)
{
	for (size_t i = 0; i < ps->nr_changes; i++) {
		const char *fn = ps->funcs[ps->changes[i].func].function;
		size_t k = 0;
		/* frames had ';', ' ' and '\n' replaced by '_' */
		while (fn[k] && name[k] &&
		       (fn[k] == name[k] || (name[k] == '_' && strchr("; \n", fn[k]))))
			k++;
		if (!fn[k] && !name[k])
			return &ps->changes[i];
	}
	return NULL;
}

static void fill(struct sbuf *out, const struct profile_change *ch)
{
	if (!ch || ch->verdict == PROFILE_TOO_FEW) {
		sbuf_adds(out, "#dddddd");
		return;
	}
	if (ch->verdict == PROFILE_SAME) {
		sbuf_adds(out, "#eadbc2");
		return;
	}
	double base = ch->self_ns[PROFILE_BASE];
	double rel = base > 0 ? fabs(ch->change_ns) / base : 1;
	/* 2% and below pale, 50% and above full */
	double t = rel <= 0.02 ? 0 : rel >= 0.5 ? 1 : (rel - 0.02) / 0.48;
	int hi = 255, lo = (int)lround(200 - 150 * t);
	if (ch->verdict == PROFILE_GREW)
		sbuf_addf(out, "#%02x%02x%02x", hi, lo, lo);
	else
		sbuf_addf(out, "#%02x%02x%02x", lo, lo, hi);
}

static void draw(struct sbuf *out, const struct flame *f, const struct profile_set *ps, size_t k,
		 double x, int depth, int two)
{
	const struct fnode *n = &f->v[k];
	double total = (double)f->v[0].n[PROFILE_HEAD];
	double w = (double)n->n[PROFILE_HEAD] / total * FLAME_WIDTH;
	if (w < FLAME_MIN_PX)
		return;
	double y = (double)(f->depth - depth) * FLAME_ROW;
	const struct profile_change *ch = k ? change_of(ps, n->name) : NULL;
	sbuf_addf(out, "<g><title>");
	report_html_escape(out, k ? n->name : "all", 0);
	sbuf_addf(out, ": head %llu samples (%.1f%%)", (unsigned long long)n->n[PROFILE_HEAD],
		  100.0 * (double)n->n[PROFILE_HEAD] / total);
	if (two && f->v[0].n[PROFILE_BASE])
		sbuf_addf(out, ", base %llu (%.1f%%)", (unsigned long long)n->n[PROFILE_BASE],
			  100.0 * (double)n->n[PROFILE_BASE] / (double)f->v[0].n[PROFILE_BASE]);
	if (ch && two) {
		struct sbuf t = SBUF_INIT;
		sbuf_addf(&t, "; self ");
		report_profile_ms(&t, ch->change_ns, 1);
		sbuf_adds(&t, ", ");
		report_profile_verdict(&t, ch, 1);
		report_html_escape(out, t.buf, 0);
		sbuf_release(&t);
	}
	sbuf_addf(out,
		  "</title><rect x=\"%.1f\" y=\"%.0f\" width=\"%.1f\" "
		  "height=\"%d\" fill=\"",
		  x, y, w, FLAME_ROW - 1);
	if (k)
		fill(out, two ? ch : NULL);
	else
		sbuf_adds(out, "#cccccc");
	sbuf_adds(out, "\"/>");
	size_t chars = (size_t)((w - 4) / 6.5);
	if (chars >= 3) {
		const char *name = k ? n->name : "all";
		size_t len = strlen(name);
		sbuf_addf(out, "<text x=\"%.1f\" y=\"%.0f\">", x + 2, y + FLAME_ROW - 4);
		if (len <= chars) {
			report_html_escape(out, name, 0);
		} else {
			char *cut = xstrndup(name, chars - 2);
			report_html_escape(out, cut, 0);
			sbuf_adds(out, "..");
			free(cut);
		}
		sbuf_adds(out, "</text>");
	}
	sbuf_adds(out, "</g>\n");
	/* Children left to right by name, so the picture is stable. */
	size_t nc = 0;
	for (size_t c = n->child; c; c = f->v[c - 1].sibling)
		nc++;
	size_t *kids = xcalloc(nc + 1, sizeof(*kids));
	nc = 0;
	for (size_t c = n->child; c; c = f->v[c - 1].sibling)
		kids[nc++] = c - 1;
	for (size_t i = 1; i < nc; i++)
		for (size_t j = i; j > 0 && strcmp(f->v[kids[j - 1]].name, f->v[kids[j]].name) > 0;
		     j--) {
			size_t t = kids[j];
			kids[j] = kids[j - 1];
			kids[j - 1] = t;
		}
	for (size_t i = 0; i < nc; i++) {
		draw(out, f, ps, kids[i], x, depth + 1, two);
		x += (double)f->v[kids[i]].n[PROFILE_HEAD] / total * FLAME_WIDTH;
	}
	free(kids);
}

/* The depth of the deepest frame wide enough to draw. */
static int deepest(const struct flame *f, size_t k, int depth)
{
	double total = (double)f->v[0].n[PROFILE_HEAD];
	int best = depth;
	for (size_t c = f->v[k].child; c; c = f->v[c - 1].sibling)
		if ((double)f->v[c - 1].n[PROFILE_HEAD] / total * FLAME_WIDTH >= FLAME_MIN_PX) {
			int d = deepest(f, c - 1, depth + 1);
			if (d > best)
				best = d;
		}
	return best;
}

void svg_flame_graph(struct sbuf *out, const struct command_result *c)
{
	const struct profile_set *ps = c->profile;
	int two = c->side[SIDE_BASE].present;
	struct flame f = {0};
	node_new(&f, "", 0);
	for (size_t i = 0; ps && i < ps->nr_stacks; i++)
		add_stack(&f, &ps->stacks[i]);
	if (!f.v[0].n[PROFILE_HEAD]) {
		sbuf_adds(out, "<p class=\"meta\">no sampled stacks on the head "
			       "side to draw</p>\n");
	} else {
		f.depth = deepest(&f, 0, 0);
		sbuf_addf(out,
			  "<svg class=\"flame\" viewBox=\"0 0 %d %d\" "
			  "width=\"%d\" height=\"%d\" role=\"img\">"
			  "<title>%s flame graph: widths from the head's "
			  "samples%s</title>\n",
			  FLAME_WIDTH, (f.depth + 1) * FLAME_ROW, FLAME_WIDTH,
			  (f.depth + 1) * FLAME_ROW, two ? "differential" : "",
			  two ? ", colour from the change of each function's "
				"self time (red grew, blue shrank)"
			      : "");
		draw(out, &f, ps, 0, 0, 0, two);
		sbuf_adds(out, "</svg>\n");
	}
	for (size_t i = 0; i < f.nr; i++)
		free(f.v[i].name);
	free(f.v);
}
