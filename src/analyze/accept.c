/*
 * analyze/accept: Kagari-Accept trailers turn regressions up to their
 * bound into `accepted` (accept.h).
 */
#include "analyze/accept.h"

#include <ctype.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "base/sbuf.h"
#include "base/xalloc.h"

int accept_parse(const char *value, const char *commit, struct acceptance *a, struct sbuf *err)
{
	static const char form[] =
	    "expected 'BENCHMARK/COMMAND METRIC +P%', e.g. 'parse/fast latency +15%'";
	char *copy = xstrdup(value), *save = NULL;
	char *target = strtok_r(copy, " \t", &save);
	char *metric = target ? strtok_r(NULL, " \t", &save) : NULL;
	char *pct = metric ? strtok_r(NULL, " \t", &save) : NULL;
	char *extra = pct ? strtok_r(NULL, " \t", &save) : NULL;
	char *slash = target ? strrchr(target, '/') : NULL;
	int rc = -1;
	if (!pct || extra || !slash || slash == target || !slash[1]) {
		sbuf_addf(err, "'%s': %s", value, form);
		goto out;
	}
	int m = metric_lookup(metric);
	if (m < 0 || !metric_get((enum metric_id)m)->comparable) {
		sbuf_addf(err, "'%s': unknown or incomparable metric '%s'", value, metric);
		goto out;
	}
	size_t n = strlen(pct);
	char *end = NULL;
	/* "+" digits [. digits] "%": no exponent, no sign, no spaces */
	double p = pct[0] == '+' && n > 2 && pct[n - 1] == '%' && isdigit((unsigned char)pct[1]) &&
			   strspn(pct + 1, "0123456789.") == n - 2
		       ? strtod(pct + 1, &end)
		       : NAN;
	if (!isfinite(p) || end != pct + n - 1 || p <= 0 || p > 1000) {
		sbuf_addf(err, "'%s': the bound '%s' is not +P%% with 0 < P <= 1000 (%s)", value,
			  pct, form);
		goto out;
	}
	*slash = '\0';
	a->commit = xstrdup(commit);
	a->benchmark = xstrdup(target);
	a->command = xstrdup(slash + 1);
	a->metric = (enum metric_id)m;
	a->max_percent = p;
	rc = 0;
out:
	free(copy);
	return rc;
}

/* The acceptance of (bench, command, metric) with the largest bound. */
static const struct acceptance *find(const struct run_result *r, const char *bench, const char *cmd,
				     enum metric_id m)
{
	const struct acceptance *best = NULL;
	for (size_t i = 0; i < r->nr_accepts; i++) {
		const struct acceptance *a = &r->accepts[i];
		if (a->metric == m && !strcmp(a->benchmark, bench) && !strcmp(a->command, cmd) &&
		    (!best || a->max_percent > best->max_percent))
			best = a;
	}
	return best;
}

void accept_apply(struct run_result *r)
{
	for (size_t i = 0; i < r->nr_suites; i++)
		for (size_t b = 0; b < r->suites[i].nr_benches; b++) {
			struct bench_result *br = &r->suites[i].benches[b];
			for (size_t c = 0; c < br->nr_commands; c++) {
				struct command_result *cr = &br->commands[c];
				for (int m = 0; m < METRIC__COUNT; m++) {
					struct comparison *cp = &cr->comparison[m];
					if (!cp->present || !cp->gate ||
					    cp->verdict != VERDICT_REGRESSION)
						continue;
					const struct acceptance *a =
					    find(r, br->name, cr->name, (enum metric_id)m);
					if (!a)
						continue;
					char *reason;
					if (cp->change_percent <= a->max_percent) {
						reason = xstrfmt("accepted by commit %.12s "
								 "(Kagari-Accept: up to +%g%%): %s",
								 a->commit, a->max_percent,
								 cp->reason ? cp->reason : "");
						cp->verdict = VERDICT_ACCEPTED;
						free(cp->accepted_by);
						cp->accepted_by = xstrdup(a->commit);
					} else {
						reason = xstrfmt("%s; beyond the +%g%% that commit "
								 "%.12s accepts",
								 cp->reason ? cp->reason : "",
								 a->max_percent, a->commit);
					}
					free(cp->reason);
					cp->reason = reason;
				}
			}
		}
}
