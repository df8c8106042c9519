/*
 * cmd/common: finding and loading the suites named on the command line and
 * selecting benchmarks by --filter and --tag (common.h). Prints its errors.
 */
#include "cmd/common.h"

#include <errno.h>
#include <math.h>
#include <regex.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "analyze/analyze.h"
#include "base/fileio.h"
#include "base/sbuf.h"
#include "base/xalloc.h"
#include "cmd/cmd.h"
#include "cmd/exit.h"
#include "plan/plan.h"
#include "report/output.h"
#include "report/report.h"
#include "suite/vars.h"
#include "suite/discover.h"
#include "suite/load.h"
#include "suite/units.h"

int common_load_files(const struct strvec *files, struct loaded_suites *ls)
{
	memset(ls, 0, sizeof(*ls));
	struct sbuf err = SBUF_INIT;
	int rc = 0;
	ls->suites = xcalloc(files->nr + 1, sizeof(*ls->suites));
	for (size_t i = 0; i < files->nr; i++) {
		sbuf_reset(&err);
		struct suite *s = suite_load(files->v[i], &err);
		if (!s) {
			sbuf_rtrim(&err);
			fprintf(stderr, "%s\n", err.buf);
			rc = EXIT_INVALID;
			continue;
		}
		ls->suites[ls->nr++] = s;
	}
	if (rc)
		cmd_error("invalid suite: nothing was run");
	sbuf_release(&err);
	return rc;
}

int common_load(const struct strvec *paths, struct loaded_suites *ls)
{
	memset(ls, 0, sizeof(*ls));
	struct strvec files = STRVEC_INIT;
	struct sbuf err = SBUF_INIT;
	int rc = EXIT_INVALID;
	if (suite_discover(paths->v, paths->nr, &files, &err))
		cmd_error("%s", err.buf);
	else
		rc = common_load_files(&files, ls);
	sbuf_release(&err);
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
static size_t select_benches(const struct cli_selection *sel, regex_t *re, const struct suite *s,
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
static const struct cli_selection select_all = {NULL, STRVEC_INIT, STRVEC_INIT};

static int compile_filter(const struct cli_selection *sel, regex_t *re)
{
	int e = regcomp(re, sel->filter, REG_EXTENDED | REG_NOSUB);
	if (e) {
		char msg[256];
		regerror(e, re, msg, sizeof(msg));
		cmd_error("invalid --filter '%s': %s", sel->filter, msg);
		return EXIT_USAGE;
	}
	return 0;
}

int common_select(const struct cli_selection *sel, struct loaded_suites *ls)
{
	regex_t re;
	if (!sel)
		sel = &select_all;
	if (sel->filter && compile_filter(sel, &re))
		return EXIT_USAGE;
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
		cmd_error("no benchmark matches the selection%s", what.buf);
		sbuf_release(&what);
		return EXIT_USAGE;
	}
	return 0;
}

void common_left_out(const struct cli_selection *selection, const struct suite *ran,
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

size_t common_replace_suite(const struct cli_selection *selection, int sharded,
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

void common_release(struct loaded_suites *ls)
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

void input_files_add(struct input_files *in, const char *path, const char *what)
{
	strvec_push(&in->paths, path);
	strvec_push(&in->what, what);
}

void input_files_add_suites(struct input_files *in, const struct loaded_suites *ls)
{
	for (size_t i = 0; i < ls->nr; i++) {
		const struct suite *s = ls->suites[i];
		char *what = xstrfmt("the suite file '%s'", s->file);
		input_files_add(in, s->file, what);
		free(what);
		/* Every benchmark's, selected or not: overwriting one is as bad. */
		for (size_t b = 0; b < s->nr_benches; b++) {
			const struct bench_spec *bs = &s->benches[b];
			if (bs->stdin_spec.kind != STDIN_FILE || vars_present(bs->stdin_spec.value))
				continue;
			const char *v = bs->stdin_spec.value;
			char *p = v[0] == '/' ? xstrdup(v) : xstrfmt("%s/%s", s->dir, v);
			what = xstrfmt("the stdin file of benchmark '%s' (suite '%s')", bs->name,
				       s->name);
			input_files_add(in, p, what);
			free(what);
			free(p);
		}
	}
}

void input_files_add_history(struct input_files *in, const char *path)
{
	char *what = xstrfmt("the history database '%s'", path);
	input_files_add(in, path, what);
	free(what);
}

void input_files_release(struct input_files *in)
{
	strvec_clear(&in->paths);
	strvec_clear(&in->what);
}

int common_check_output(const char *label, const char *path, const char *section,
			const struct input_files *in, int code)
{
	struct sbuf err = SBUF_INIT;
	int rc = 0;
	if (report_output_check(path, section, &err)) {
		cmd_error("%s %s", label, err.buf);
		rc = code;
	}
	for (size_t i = 0; !rc && in && i < in->paths.nr; i++) {
		if (fileio_same_file(path, in->paths.v[i])) {
			cmd_error("%s '%s' is %s; refusing to overwrite it", label, path,
				  in->what.v[i]);
			rc = code;
		}
	}
	sbuf_release(&err);
	return rc;
}

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
static size_t warn_rare_share(const struct suite *s)
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
		cmd_warning("%s:%d:%d: %s: rare_share %g%% needs %ld head runs for a pass, but %s "
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

size_t common_warn_power(const struct suite *s)
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
				cmd_warning("%s:%d:%d: %s: runs: %d gives %s; the smallest "
					    "possible p is %.2g, not below the Holm threshold %g / "
					    "%zu = %.2g of the suite's %zu gated comparisons: no "
					    "regression can reach the confidence %g; leave runs "
					    "unset (sequential rounds in compare), or at least %d",
					    s->file, st->runs_loc.line, st->runs_loc.col, at.buf,
					    st->runs, how.buf, p, alpha, family, thr, family,
					    a.confidence, need);
			else
				cmd_warning("%s:%d:%d: %s: runs: %d gives %s; the smallest "
					    "possible p is %.2g, not below 1 - confidence = %g: no "
					    "regression can reach the confidence %g; leave runs "
					    "unset (sequential rounds in compare), or at least %d",
					    s->file, st->runs_loc.line, st->runs_loc.col, at.buf,
					    st->runs, how.buf, p, alpha, a.confidence, need);
			sbuf_release(&at);
			sbuf_release(&how);
			warned++;
			seen = 1;
		}
	}
	return warned + warn_rare_share(s);
}

/* Is path the file standard output is (--output /dev/stdout)? */
static int is_stdout(const char *path)
{
	struct stat a, b;
	return fstat(STDOUT_FILENO, &a) == 0 && stat(path, &b) == 0 && a.st_dev == b.st_dev &&
	       a.st_ino == b.st_ino;
}

int common_write_output(const char *path, const char *section, const char *text, size_t len)
{
	int rc = 0;
	struct sbuf safe = SBUF_INIT;
	/* What reaches a CI runner's log cannot issue workflow commands. */
	if ((!path || is_stdout(path)) && cmd_workflow_safe_text(text, len, &safe)) {
		text = safe.buf;
		len = safe.len;
	}
	if (!path) {
		fwrite(text, 1, len, stdout);
		if (fflush(stdout) != 0 || ferror(stdout)) {
			cmd_error("cannot write the report to standard output: %s",
				  strerror(errno));
			rc = EXIT_EXEC;
		}
	} else {
		struct sbuf err = SBUF_INIT;
		if (report_output_write(path, section, text, len, &err)) {
			cmd_error("%s (the previous file, if any, is untouched)", err.buf);
			rc = EXIT_EXEC;
		}
		sbuf_release(&err);
	}
	sbuf_release(&safe);
	return rc;
}

int common_write_summary(const struct run_result *r, const char *path)
{
	struct report_options o;
	struct sbuf md = SBUF_INIT, err = SBUF_INIT;
	int rc = 0;
	report_options_init(&o);
	if (report_render(r, REPORT_MARKDOWN, &o, &md, &err) ||
	    report_output_append(path, md.buf, md.len, &err)) {
		cmd_error("--summary: %s", err.buf);
		rc = EXIT_EXEC;
	}
	sbuf_release(&md);
	sbuf_release(&err);
	return rc;
}

int common_parse_max_percent(const struct strvec *args, struct analyze_overrides *ov)
{
	for (size_t i = 0; i < args->nr; i++) {
		const char *arg = args->v[i];
		const char *eq = strchr(arg, '=');
		char *name = eq ? xstrndup(arg, (size_t)(eq - arg)) : xstrdup("latency");
		int m = metric_lookup(name);
		struct sbuf err = SBUF_INIT;
		int rc = 0;
		double p = 0;
		if (m < 0 || !metric_get(m)->comparable) {
			cmd_error("--max-percent '%s': '%s' is not a metric that can be compared",
				  arg, name);
			rc = EXIT_USAGE;
		} else if (units_parse_tolerance(eq ? eq + 1 : arg, &p, &err)) {
			cmd_error(
			    "--max-percent '%s': %s (expected P or METRIC=P, e.g. 5 or latency=5)",
			    arg, err.buf);
			rc = EXIT_USAGE;
		} else {
			ov->have_max_percent[m] = 1;
			ov->max_percent[m] = p;
		}
		free(name);
		sbuf_release(&err);
		if (rc)
			return rc;
	}
	return 0;
}

static void settings_max_percent(struct settings *st, const struct analyze_overrides *ov)
{
	for (int m = 0; m < METRIC__COUNT; m++)
		if (ov->have_max_percent[m])
			st->regression.metric[m].max_percent = ov->max_percent[m];
}

void common_apply_max_percent(struct loaded_suites *ls, const struct analyze_overrides *ov)
{
	for (size_t i = 0; i < ls->nr; i++) {
		struct suite *su = ls->suites[i];
		settings_max_percent(&su->defaults, ov);
		for (size_t b = 0; b < su->nr_benches; b++) {
			settings_max_percent(&su->benches[b].settings, ov);
			for (size_t c = 0; c < su->benches[b].nr_commands; c++)
				settings_max_percent(&su->benches[b].commands[c].settings, ov);
		}
	}
}

int common_parse_confidence(const char *text, double *c)
{
	char *end;
	double v = strtod(text, &end);
	if (end == text || *end || !(v >= 0.5 && v <= 0.999)) {
		cmd_error("--confidence '%s': expected a number from 0.5 to 0.999, e.g. 0.95",
			  text);
		return EXIT_USAGE;
	}
	*c = v;
	return 0;
}
