/*
 * cmd/shard: --shard and --replicate read, the history's expected times
 * looked up, and plan/shard.h's split applied (shard.h).
 */
#include "cmd/shard.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <unistd.h>

#include "base/sbuf.h"
#include "base/xalloc.h"
#include "cmd/record.h"
#include "cmd/session.h"
#include "history/history.h"
#include "measure/sysinfo.h"
#include "model/exit.h"
#include "plan/shard.h"

/* The expected milliseconds of every selected benchmark (suite order)
   from the history, in ms[]; 0 when one is unknown. */
static int expected_times(const struct session_config *cfg, const struct loaded_suites *ls,
			  double *ms)
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
	for (size_t i = 0, k = 0; i < ls->nr && ok; i++)
		for (size_t b = 0; b < ls->suites[i]->nr_benches && ok; b++) {
			const struct suite *su = ls->suites[i];
			const struct bench_spec *bs = &su->benches[b];
			if (!ls->selected[i][b])
				continue;
			ms[k] = 0;
			for (size_t c = 0; c < bs->nr_commands && ok; c++) {
				const char *s1 = su->name, *b1 = bs->name,
					   *c1 = bs->commands[c].name;
				double one;
				if (history_expected_ms(h, m.fingerprint, &s1, &b1, &c1, 1, &one,
							&err) ||
				    !isfinite(one))
					ok = 0;
				else
					ms[k] += one;
			}
			k++;
		}
	history_machine_release(&m);
out:
	history_close(h);
	sbuf_release(&err);
	free(path);
	return ok;
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
	double *ms = xcalloc(ls->nr_selected + 1, sizeof(*ms));
	/* The history is read only for a split it can balance. */
	int balanced = sh->spec && !sh->replicate && (size_t)n <= ls->nr_selected &&
		       expected_times(cfg, ls, ms);
	struct plan_shard_counts counts;
	struct sbuf err = SBUF_INIT;
	int rc = 0;
	if (plan_shard_split(ls, k, n, sh->spec != NULL, sh->replicate, balanced ? ms : NULL, rec,
			     &counts, &err)) {
		cmd_error("--shard %s: %s", sh->spec, err.buf);
		rc = EXIT_USAGE;
	} else if (sh->spec && !sh->replicate && !cfg->quiet) {
		fprintf(stderr, "kagari: shard %d/%d: %zu of %zu benchmarks (%s)\n", k, n,
			counts.mine, counts.total,
			counts.balanced ? "balanced by expected time from the history"
					: "split by count");
	}
	sbuf_release(&err);
	free(ms);
	return rc;
}

void shard_record(const struct session_config *cfg, size_t nr_selected, struct shard_record *out)
{
	static const struct cli_shard unsharded;
	const struct cli_shard *sh = cfg->shard ? cfg->shard : &unsharded;
	plan_shard_record(cfg->selection, sh->spec, sh->replicate, nr_selected, out);
}
