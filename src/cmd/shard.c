/*
 * cmd/shard: the deterministic split of the selected benchmarks over N
 * jobs (shard.h).
 *
 * The unit is the benchmark, not the command: a benchmark's commands are
 * measured interleaved round by round and its ratios are relative to its
 * `baseline:` command, so they belong in one job.
 *
 * By count: the selected benchmarks in suite order, the i-th to shard
 * i mod N. Balanced: when the history (record.h) knows the recent wall
 * time of every selected command on this machine, longest first to the
 * least loaded shard (ties: the lower index), so every job gets about the
 * same time. Every job computes the same split from the same suites and
 * the same history; a job whose history differs (none at all, say) falls
 * back to the split by count, so jobs of one matrix should share the
 * history or have none.
 */
#include "cmd/shard.h"

#include <limits.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "base/sbuf.h"
#include "base/xalloc.h"
#include "cmd/exit.h"
#include "cmd/record.h"
#include "cmd/session.h"
#include "history/history.h"
#include "measure/sysinfo.h"
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

/* Expected time of every item from the history; 0 when one is unknown. */
static int expected_times(const struct session_config *cfg, const struct loaded_suites *ls,
			  struct item *it, size_t n)
{
	char *path = record_history_path(cfg->history, ls);
	struct stat st;
	int ok = 0;
	struct history *h = NULL;
	struct sbuf err = SBUF_INIT;
	if (cfg->no_history || stat(path, &st) ||
	    history_open_read(path, record_timeout_ms(), &h, &err))
		goto out;
	struct environment_info env = {0};
	env.cpu_model = sysinfo_cpu_model();
	env.logical_cpus = (int)sysconf(_SC_NPROCESSORS_ONLN);
	struct history_machine m;
	history_machine_detect(&env, getenv("KAGARI_MACHINE_ID"), &m);
	free(env.cpu_model);
	ok = 1;
	for (size_t i = 0; i < n && ok; i++) {
		const struct suite *su = ls->suites[it[i].suite];
		const struct bench_spec *bs = &su->benches[it[i].bench];
		it[i].ms = 0;
		for (size_t c = 0; c < bs->nr_commands && ok; c++) {
			const char *s1 = su->name, *b1 = bs->name, *c1 = bs->commands[c].name;
			double ms;
			if (history_expected_ms(h, m.fingerprint, &s1, &b1, &c1, 1, &ms, &err) ||
			    !isfinite(ms))
				ok = 0;
			else
				it[i].ms += ms;
		}
	}
	history_machine_release(&m);
out:
	history_close(h);
	sbuf_release(&err);
	free(path);
	return ok;
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

int shard_select(const struct session_config *cfg, struct loaded_suites *ls,
		 struct shard_record *rec)
{
	static const struct cli_shard unsharded;
	const struct cli_shard *sh = cfg->shard ? cfg->shard : &unsharded;
	int k = 1, n = 1;
	if (!sh->spec && sh->replicate) {
		cmd_error(
		    "--replicate needs --shard K/N (every job then measures every benchmark)");
		return EXIT_USAGE;
	}
	if (sh->spec && shard_parse(sh->spec, &k, &n)) {
		cmd_error("--shard '%s': expected K/N with 1 <= K <= N, e.g. 2/4", sh->spec);
		return EXIT_USAGE;
	}
	struct item *it = xcalloc(ls->nr_selected + 1, sizeof(*it));
	size_t nr = 0;
	for (size_t i = 0; i < ls->nr; i++)
		for (size_t b = 0; b < ls->suites[i]->nr_benches; b++)
			if (ls->selected[i][b]) {
				it[nr] = (struct item){i, b, 0, nr};
				nr++;
			}
	if (!sh->spec || sh->replicate) {
		/* One shard, or every shard measuring everything. */
		int *all = xcalloc(nr + 1, sizeof(*all));
		for (size_t i = 0; i < nr; i++)
			all[i] = sh->replicate ? -1 : 0;
		set_assignment(rec, sh->replicate ? "replicate" : "count",
			       assignment_fingerprint(ls, it, all, nr, n));
		free(all);
		free(it);
		return 0;
	}
	if ((size_t)n > nr) {
		cmd_error("--shard %s: %zu benchmark%s selected, fewer than %d shards; use at most "
			  "%zu shards",
			  sh->spec, nr, nr == 1 ? " is" : "s are", n, nr);
		free(it);
		return EXIT_USAGE;
	}
	int balanced = expected_times(cfg, ls, it, nr);
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
	if (!cfg->quiet)
		fprintf(stderr, "kagari: shard %d/%d: %zu of %zu benchmarks (%s)\n", k, n, mine, nr,
			balanced ? "balanced by expected time from the history" : "split by count");
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

void shard_record(const struct session_config *cfg, size_t nr_selected, struct shard_record *out)
{
	static const struct cli_shard unsharded;
	const struct cli_shard *sh = cfg->shard ? cfg->shard : &unsharded;
	int k = 1, n = 1;
	if (sh->spec && shard_parse(sh->spec, &k, &n))
		k = n = 1;
	struct sbuf sel = SBUF_INIT;
	const struct cli_selection *cs = cfg->selection;
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
	out->replicate = sh->spec && sh->replicate;
	out->selection = sbuf_detach(&sel);
	out->benchmarks = nr_selected > INT_MAX ? INT_MAX : (int)nr_selected;
	out->run_id = xstrfmt("%016llx", (unsigned long long)rng_random_seed());
}
