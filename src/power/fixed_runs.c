/*
 * power/fixed_runs: a fixed `runs` too small for any gated comparison to
 * reach the suite's confidence (fixed_runs.h).
 */
#include "power/fixed_runs.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "analyze/analyze.h"
#include "base/sbuf.h"
#include "base/strvec.h"
#include "model/result.h"
#include "plan/plan.h"

/*
 * The smallest p the exact test can give: 2^-n for the signed-rank test
 * over n rounds (all differences on one side), 1 / C(2k, k) for
 * Mann-Whitney with k runs per side (the two samples apart).
 */
static double smallest_p(enum pairing pairing, int rounds, int runs)
{
	if (pairing == PAIRING_INDEPENDENT)
		return exp(lgamma(runs + 1.0) * 2 - lgamma(2.0 * runs + 1));
	return ldexp(1.0, -rounds);
}

/* One command's analysis settings as compare would give them. */
static void command_rules(const struct command_spec *cs, struct analysis_settings *out)
{
	struct command_result cr;
	memset(&cr, 0, sizeof(cr));
	analyze_settings_from_suite(cs, &cr);
	*out = cr.analysis;
	for (size_t i = 0; i < cr.nr_budgets; i++) {
		free(cr.budgets[i].aggregation);
		free(cr.budgets[i].op);
		free(cr.budgets[i].limit_text);
		free(cr.budgets[i].reason);
	}
	free(cr.budgets);
}

/*
 * regression.rare_share asks for more head runs than the design measures:
 * no pass is possible (docs/statistics.md, "The blind share of a pass").
 * One warning per `rare_share` key.
 */
static size_t warn_rare_share(const struct suite *s, struct strvec *warnings)
{
	size_t warned = 0;
	for (size_t b = 0; b < s->nr_benches; b++) {
		const struct settings *st = &s->benches[b].settings;
		const struct regression_cfg *rc = &st->regression;
		if (!(rc->rare_share > 0) || !rc->rare_share_loc.line)
			continue;
		int seen = 0;
		for (size_t e = 0; e < b && !seen; e++) {
			const struct src_loc *o = &s->benches[e].settings.regression.rare_share_loc;
			seen =
			    o->line == rc->rare_share_loc.line && o->col == rc->rare_share_loc.col;
		}
		long need = (long)ceil(log(0.05) / log1p(-rc->rare_share) - 1e-9);
		long have = st->runs > 0 ? st->runs : st->max_runs;
		if (seen || need <= have)
			continue;
		struct sbuf at = SBUF_INIT;
		if (rc->rare_share_loc.line == s->defaults.regression.rare_share_loc.line &&
		    rc->rare_share_loc.col == s->defaults.regression.rare_share_loc.col)
			sbuf_adds(&at, "defaults.regression.rare_share");
		else
			sbuf_addf(&at, "benchmarks[%zu].regression.rare_share", b);
		strvec_pushf(warnings,
			     "%s:%d:%d: %s: rare_share %g%% needs %ld head runs for a pass, but %s "
			     "is %ld: no comparison of benchmark '%s' can pass; raise %s to at "
			     "least %ld",
			     s->file, rc->rare_share_loc.line, rc->rare_share_loc.col, at.buf,
			     rc->rare_share * 100, need, st->runs > 0 ? "runs" : "max_runs", have,
			     s->benches[b].name, st->runs > 0 ? "runs" : "max_runs", need);
		sbuf_release(&at);
		warned++;
	}
	return warned;
}

size_t power_warn_fixed_runs(const struct suite *s, struct strvec *warnings)
{
	/*
	 * Holm's family is the gated comparisons of the fixed design (the
	 * sequential ones spend their error on their own, analyze.c), here
	 * as if this suite ran alone.
	 */
	size_t m = 0, warned = 0;
	for (size_t b = 0; b < s->nr_benches; b++)
		for (size_t c = 0; s->benches[b].settings.runs > 0 && c < s->benches[b].nr_commands;
		     c++) {
			struct analysis_settings a;
			command_rules(&s->benches[b].commands[c], &a);
			for (int k = 0; k < METRIC__COUNT; k++)
				m += a.metric[k].compare && a.metric[k].gate &&
				     a.correction == CORRECTION_HOLM;
		}
	for (size_t b = 0; b < s->nr_benches; b++) {
		const struct bench_spec *bs = &s->benches[b];
		const struct settings *st = &bs->settings;
		if (st->runs <= 0)
			continue;
		/* One warning per `runs` key: benchmarks that inherit it share it. */
		int seen = 0;
		for (size_t e = 0; e < b && !seen; e++)
			seen = s->benches[e].settings.runs > 0 &&
			       s->benches[e].settings.runs_loc.line == st->runs_loc.line &&
			       s->benches[e].settings.runs_loc.col == st->runs_loc.col;
		for (size_t c = 0; !seen && c < bs->nr_commands; c++) {
			struct analysis_settings a;
			command_rules(&bs->commands[c], &a);
			int gated = 0;
			for (int k = 0; k < METRIC__COUNT; k++)
				gated |= a.metric[k].compare && a.metric[k].gate;
			if (!gated)
				continue;
			int per_round = st->runs_per_round > 0 ? st->runs_per_round : 1;
			int rounds = plan_rounds_for(st->runs, per_round);
			size_t family = a.correction == CORRECTION_HOLM && m > 1 ? m : 1;
			double alpha = 1 - a.confidence, thr = alpha / (double)family;
			double p = smallest_p(a.pairing, rounds, st->runs);
			if (p < thr)
				continue;
			int need = st->runs;
			while (need < 100000000 &&
			       smallest_p(a.pairing, plan_rounds_for(need, per_round), need) >= thr)
				need += a.pairing == PAIRING_INDEPENDENT ? 1 : per_round;
			struct sbuf at = SBUF_INIT, how = SBUF_INIT;
			if (st->runs_loc.line == s->defaults.runs_loc.line &&
			    st->runs_loc.col == s->defaults.runs_loc.col)
				sbuf_adds(&at, "defaults.runs");
			else
				sbuf_addf(&at, "benchmarks[%zu].runs", b);
			if (a.pairing == PAIRING_INDEPENDENT)
				sbuf_addf(&how, "%d runs per side", st->runs);
			else
				sbuf_addf(&how, "%d round%s of %d", rounds, rounds == 1 ? "" : "s",
					  per_round);
			if (family > 1)
				strvec_pushf(
				    warnings,
				    "%s:%d:%d: %s: runs: %d gives %s; the smallest "
				    "possible p is %.2g, not below the Holm threshold %g / "
				    "%zu = %.2g of the suite's %zu gated comparisons: no "
				    "regression can reach the confidence %g; leave runs "
				    "unset (sequential rounds in compare), or at least %d",
				    s->file, st->runs_loc.line, st->runs_loc.col, at.buf, st->runs,
				    how.buf, p, alpha, family, thr, family, a.confidence, need);
			else
				strvec_pushf(
				    warnings,
				    "%s:%d:%d: %s: runs: %d gives %s; the smallest "
				    "possible p is %.2g, not below 1 - confidence = %g: no "
				    "regression can reach the confidence %g; leave runs "
				    "unset (sequential rounds in compare), or at least %d",
				    s->file, st->runs_loc.line, st->runs_loc.col, at.buf, st->runs,
				    how.buf, p, alpha, a.confidence, need);
			sbuf_release(&at);
			sbuf_release(&how);
			warned++;
			seen = 1;
		}
	}
	return warned + warn_rare_share(s, warnings);
}
