/*
 * plan/shard: the deterministic split of the selected benchmarks over N
 * jobs (shard.h).
 *
 * The unit is the benchmark, not the command: a benchmark's commands are
 * measured interleaved round by round and its ratios are relative to its
 * `baseline:` command, so they belong in one job.
 *
 * By count: the selected benchmarks in suite order, the i-th to shard
 * i mod N. Balanced: when the history (cmd/record.h) knows the recent wall
 * time of every selected command on this machine, longest first to the
 * least loaded shard (ties: the lower index), so every job gets about the
 * same time. Every job computes the same split from the same suites and
 * the same history; a job whose history differs (none at all, say) falls
 * back to the split by count, so jobs of one matrix should share the
 * history or have none.
 */
#include "plan/shard.h"

#include <limits.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "base/sbuf.h"
#include "base/xalloc.h"
#include "model/result.h"
#include "model/rng.h"

int shard_parse(const char *text, int *k, int *n)
{
	char *end;
	if (!text || !*text)
		return -1;
	long a = strtol(text, &end, 10);
	if (end == text || *end != '/')
		return -1;
	const char *p = end + 1;
	long b = strtol(p, &end, 10);
	if (end == p || *end || a < 1 || b < 1 || a > b || b > 1024)
		return -1;
	*k = (int)a;
	*n = (int)b;
	return 0;
}

struct item {
	size_t suite, bench;
	double ms;
	size_t order;
};

static int by_time(const void *a, const void *b)
{
	const struct item *x = a, *y = b;
	if (x->ms != y->ms)
		return x->ms > y->ms ? -1 : 1;
	return x->order < y->order ? -1 : x->order > y->order;
}

static void fnv_add(uint64_t *h, const void *p, size_t len)
{
	const unsigned char *c = p;
	for (size_t i = 0; i < len; i++)
		*h = (*h ^ c[i]) * UINT64_C(1099511628211);
}

/*
 * The assignment's fingerprint: FNV-1a over every selected benchmark in
 * suite order (suite name, benchmark name, its shard). It depends only on
 * the suites, the selection and the split, so every job of a matrix that
 * split alike computes the same one, and merge can refuse shards of
 * different splits (one balanced, one by count: a benchmark in neither).
 * shard_of is indexed by it[].order; -1 for every shard (--replicate).
 */
static char *assignment_fingerprint(const struct loaded_suites *ls, const struct item *it,
				    const int *shard_of, size_t nr, int n)
{
	uint64_t h = UINT64_C(14695981039346656037);
	fnv_add(&h, &n, sizeof(n));
	for (size_t o = 0; o < nr; o++) {
		const struct item *x = NULL;
		for (size_t i = 0; i < nr && !x; i++)
			if (it[i].order == o)
				x = &it[i];
		const struct suite *su = ls->suites[x->suite];
		const char *bn = su->benches[x->bench].name;
		fnv_add(&h, su->name, strlen(su->name) + 1);
		fnv_add(&h, bn, strlen(bn) + 1);
		fnv_add(&h, &shard_of[o], sizeof(shard_of[o]));
	}
	return xstrfmt("%016llx", (unsigned long long)h);
}

static void set_assignment(struct shard_record *rec, const char *split, char *fp)
{
	free(rec->split);
	free(rec->assignment);
	rec->split = xstrdup(split);
	rec->assignment = fp;
}

int plan_shard_split(struct loaded_suites *ls, int k, int n, int sharded, int replicate,
		     const double *ms, struct shard_record *rec, struct plan_shard_counts *counts,
		     struct sbuf *err)
{
	struct item *it = xcalloc(ls->nr_selected + 1, sizeof(*it));
	size_t nr = 0;
	for (size_t i = 0; i < ls->nr; i++)
		for (size_t b = 0; b < ls->suites[i]->nr_benches; b++)
			if (ls->selected[i][b]) {
				it[nr] = (struct item){i, b, ms ? ms[nr] : 0, nr};
				nr++;
			}
	counts->total = counts->mine = nr;
	counts->balanced = 0;
	if (!sharded || replicate) {
		/* One shard, or every shard measuring everything. */
		int *all = xcalloc(nr + 1, sizeof(*all));
		for (size_t i = 0; i < nr; i++)
			all[i] = replicate ? -1 : 0;
		set_assignment(rec, replicate ? "replicate" : "count",
			       assignment_fingerprint(ls, it, all, nr, n));
		free(all);
		free(it);
		return 0;
	}
	if ((size_t)n > nr) {
		sbuf_addf(err,
			  "%zu benchmark%s selected, fewer than %d shards; use at most %zu shards",
			  nr, nr == 1 ? " is" : "s are", n, nr);
		free(it);
		return -1;
	}
	int balanced = ms != NULL;
	int *shard_of = xcalloc(nr, sizeof(*shard_of));
	if (balanced) {
		double *load = xcalloc((size_t)n, sizeof(*load));
		qsort(it, nr, sizeof(*it), by_time);
		for (size_t i = 0; i < nr; i++) {
			int best = 0;
			for (int s = 1; s < n; s++)
				if (load[s] < load[best])
					best = s;
			load[best] += it[i].ms;
			shard_of[i] = best;
		}
		free(load);
	} else {
		for (size_t i = 0; i < nr; i++)
			shard_of[i] = (int)(i % (size_t)n);
	}
	int *by_order = xcalloc(nr + 1, sizeof(*by_order));
	for (size_t i = 0; i < nr; i++)
		by_order[it[i].order] = shard_of[i];
	set_assignment(rec, balanced ? "balanced" : "count",
		       assignment_fingerprint(ls, it, by_order, nr, n));
	free(by_order);
	size_t mine = 0;
	for (size_t i = 0; i < nr; i++) {
		int keep = shard_of[i] == k - 1;
		ls->selected[it[i].suite][it[i].bench] = (unsigned char)keep;
		mine += (size_t)keep;
	}
	ls->nr_selected = mine;
	counts->mine = mine;
	counts->balanced = balanced;
	free(shard_of);
	free(it);
	return 0;
}

/* A value of the selection string: as given, quoted when it holds blanks. */
static void add_selection(struct sbuf *sb, const char *opt, const char *v)
{
	sbuf_addf(sb, "%s--%s ", sb->len ? " " : "", opt);
	if (v[strcspn(v, " \t'\"\\")] || !*v) {
		sbuf_addch(sb, '\'');
		for (; *v; v++)
			if (*v == '\'')
				sbuf_adds(sb, "'\\''");
			else
				sbuf_addch(sb, *v);
		sbuf_addch(sb, '\'');
	} else {
		sbuf_adds(sb, v);
	}
}

void plan_shard_record(const struct suite_selection *cs, const char *spec, int replicate,
		       size_t nr_selected, struct shard_record *out)
{
	int k = 1, n = 1;
	if (spec && shard_parse(spec, &k, &n))
		k = n = 1;
	struct sbuf sel = SBUF_INIT;
	if (cs && cs->filter)
		add_selection(&sel, "filter", cs->filter);
	for (size_t i = 0; cs && i < cs->tags.nr; i++)
		add_selection(&sel, "tag", cs->tags.v[i]);
	for (size_t i = 0; cs && i < cs->skip_tags.nr; i++)
		add_selection(&sel, "skip-tag", cs->skip_tags.v[i]);
	free(out->selection);
	free(out->run_id);
	out->present = 1;
	out->index = k;
	out->count = n;
	out->replicate = spec && replicate;
	out->selection = sbuf_detach(&sel);
	out->benchmarks = nr_selected > INT_MAX ? INT_MAX : (int)nr_selected;
	out->run_id = xstrfmt("%016llx", (unsigned long long)rng_random_seed());
}
