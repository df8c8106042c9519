/*
 * kagari history [options] [PATH...]: the stored history of the selected
 * benchmarks (the filters of `run`) as one series per command, metric and
 * machine over commits, with the steps binary segmentation finds
 * (history/steps.h, docs/history.md). A series holds the points of one
 * machine fingerprint only: this machine's series come first, other
 * machines' are listed apart, never mixed in.
 *
 * A commit measured several times is one point, the median of its runs'
 * medians, placed at its first run. Runs of a dirty working tree or outside
 * a repository stand for no commit and are not shown.
 *
 * Here: the options, the calls and the exit code. history/series.h builds
 * the series, report/history.h and report/history_site.h render them;
 * push and pull are cmd/history_sync.c's.
 */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "base/sbuf.h"
#include "base/strvec.h"
#include "base/xalloc.h"
#include "cmd/cmd.h"
#include "cmd/common.h"
#include "cmd/exit.h"
#include "cmd/history_check.h"
#include "cmd/history_sync.h"
#include "cmd/record.h"
#include "git/web.h"
#include "history/history.h"
#include "history/series.h"
#include "measure/sysinfo.h"
#include "model/result.h"
#include "report/history.h"
#include "report/history_site.h"
#include "report/read_json.h"
#include "report/report.h"
#include "report/output.h"

struct history_cli {
	struct cli_common common;
	struct cli_selection selection;
	struct cli_out out;		  /* format, output */
	struct cli_analysis analysis;	  /* metric */
	char *history;			  /* --history FILE (the one read) */
	char *commit_url;		  /* --commit-url TEMPLATE (the site's links) */
	char *min_change;		  /* --min-change P */
	char *detect;			  /* --detect P */
	char *since;			  /* check --since REV */
	int from_branch;		  /* --from-branch */
	struct cli_history_branch branch; /* --branch B, --remote R */
};

#define H(f) offsetof(struct history_cli, f)
static const struct opt history_opts[] = {
    OPT_COMMON_SELECTION(struct history_cli),
    {"metric", OPT_STRING, H(analysis.metric), "M", "only metric M (default: every metric stored)",
     NULL},
    {"commit-url", OPT_STRING, H(commit_url), "TEMPLATE",
     "the site's commit links, {sha} standing for the commit (default: from the origin remote on "
     "GitHub or GitLab; '' for none)",
     NULL},
    {"min-change", OPT_STRING, H(min_change), "P",
     "report only steps of at least P percent (default 1)", NULL},
    {"detect", OPT_STRING, H(detect), "P",
     "say how many runs per commit would find a step of P percent (default 5), or that none would",
     NULL},
    {"history", OPT_STRING, H(history), "FILE",
     "read the history FILE (default: .kagari/history.sqlite beside the suite)", NULL},
    {"format", OPT_ENUM, H(out.format), "FMT",
     "output format: table (default), json, markdown, html", "table|json|markdown|html"},
    {"output", OPT_STRING, H(out.output), "FILE",
     "write to FILE (atomically) instead of stdout; never an input; with --format html, a folder "
     "(DIR/) gets a site to publish: DIR/index.html, in a new or empty folder or one kagari wrote "
     "(its .kagari-site)",
     NULL},
    {"since", OPT_STRING, H(since), "REV",
     "check: the range REV..HEAD to check (default: HEAD's first parent, so HEAD alone)", NULL},
    {"from-branch", OPT_BOOL, H(from_branch), NULL,
     "import the history branch's new runs first (as `kagari history pull`)", NULL},
    {"branch", OPT_STRING, H(branch.branch), "B",
     "push, pull, --from-branch: the history branch B (default kagari-history)", NULL},
    {"remote", OPT_STRING, H(branch.remote), "R",
     "push, pull, --from-branch: the remote R, a name or a URL (default origin)", NULL},
    {NULL, 0, 0, NULL, NULL, NULL},
};
#undef H

/* Is benchmark suite/bench selected (--bench, --tag, PATH...)? ctx: the
   loaded suites. */
static int selected(void *ctx, const char *suite, const char *bench)
{
	const struct loaded_suites *ls = ctx;
	for (size_t i = 0; i < ls->nr; i++) {
		if (strcmp(ls->suites[i]->name, suite))
			continue;
		for (size_t b = 0; b < ls->suites[i]->nr_benches; b++)
			if (ls->selected[i][b] && !strcmp(ls->suites[i]->benches[b].name, bench))
				return 1;
	}
	return 0;
}

/*
 * Does --output name a folder for the site (--format html and a path that
 * ends in '/' or is a folder)? An existing file, or a new name without a
 * slash, is one page as before.
 */
static int history_site_mode(const struct history_cli *cli)
{
	const char *o = cli->out.output;
	struct stat st;
	if (!o || !*o || !cli->out.format || strcmp(cli->out.format, "html"))
		return 0;
	return o[strlen(o) - 1] == '/' || (!stat(o, &st) && S_ISDIR(st.st_mode));
}

/* --min-change, --detect (percentages) and --metric checked. 0 or EXIT_USAGE. */
static int history_check_args(const struct history_cli *cli, double *min_change, double *detect)
{
	*min_change = 1;
	if (cli->min_change) {
		char *end;
		*min_change = strtod(cli->min_change, &end);
		if (end == cli->min_change || *end || !(*min_change >= 0 && *min_change < 1e6)) {
			cmd_error("--min-change '%s': expected a percentage such as 2 or 0.5",
				  cli->min_change);
			return EXIT_USAGE;
		}
	}
	*detect = 5;
	if (cli->detect) {
		char *end;
		*detect = strtod(cli->detect, &end);
		if (end == cli->detect || *end || !(*detect > 0 && *detect < 1e6)) {
			cmd_error("--detect '%s': expected a percentage above 0 such as 5 or 0.5",
				  cli->detect);
			return EXIT_USAGE;
		}
	}
	int check = cli->common.args.nr && !strcmp(cli->common.args.v[0], "check");
	if (cli->commit_url && !history_site_mode(cli) && !check) {
		cmd_error("--commit-url is for the site (--format html --output DIR/) and "
			  "`history check`");
		return EXIT_USAGE;
	}
	struct sbuf err = SBUF_INIT;
	if (cli->commit_url && *cli->commit_url && git_web_check_template(cli->commit_url, &err)) {
		cmd_error("--commit-url %s", err.buf);
		sbuf_release(&err);
		return EXIT_USAGE;
	}
	sbuf_release(&err);
	if (cli->analysis.metric && metric_lookup(cli->analysis.metric) < 0) {
		cmd_error("--metric '%s': no such metric", cli->analysis.metric);
		return EXIT_USAGE;
	}
	return 0;
}

/* The output is never an input: not the history, not a suite. */
static int history_check_output(const struct history_cli *cli, const struct loaded_suites *ls,
				const char *path)
{
	const char *o = cli->out.output;
	if (o[0] && o[strlen(o) - 1] == '/' && !history_site_mode(cli)) {
		cmd_error("--output '%s' names a folder: only --format html writes a site into one",
			  o);
		return EXIT_USAGE;
	}
	struct stat st;
	size_t n = strlen(o);
	while (n > 1 && o[n - 1] == '/')
		n--;
	char *bare = xstrndup(o, n);
	int file = history_site_mode(cli) && !stat(bare, &st) && !S_ISDIR(st.st_mode);
	free(bare);
	if (file) {
		cmd_error("--output '%s' names a folder, but it is a file", o);
		return EXIT_USAGE;
	}
	struct input_files in = INPUT_FILES_INIT;
	input_files_add_suites(&in, ls);
	input_files_add_history(&in, path);
	/* A site is its index page: that is what must be no input. */
	char *index = history_site_mode(cli) ? history_site_index(o) : NULL;
	int rc = common_check_output("--output", index ? index : o, NULL, &in, EXIT_USAGE);
	free(index);
	input_files_release(&in);
	/* Never over the user's own files: a folder kagari did not write. */
	struct sbuf err = SBUF_INIT;
	if (!rc && history_site_mode(cli) && history_site_check_folder(o, &err)) {
		cmd_error("--output %s", err.buf);
		rc = EXIT_USAGE;
	}
	sbuf_release(&err);
	return rc;
}

/* The history at path opened (*h) and its points of --metric read (*pts).
   0, EXIT_USAGE when there is none, or EXIT_EXEC. */
static int history_read(const struct history_cli *cli, const char *path, struct history **h,
			struct history_points *pts, struct sbuf *err)
{
	struct stat st;
	if (stat(path, &st)) {
		cmd_error("no history at '%s' (%s): `kagari run` and `kagari compare` record one",
			  path, strerror(errno));
		return EXIT_USAGE;
	}
	/* Only reading: a history in a read-only folder is still shown. */
	if (history_open_read(path, record_timeout_ms(), h, err) ||
	    history_query(*h, NULL, cli->analysis.metric, pts, err)) {
		cmd_error("%s", err->buf);
		return EXIT_EXEC;
	}
	return 0;
}

/* This machine, as the history knows machines (its fingerprint first). */
static void this_machine(struct history_machine *m)
{
	struct environment_info envi = {0};
	envi.cpu_model = sysinfo_cpu_model();
	envi.logical_cpus = (int)sysconf(_SC_NPROCESSORS_ONLN);
	history_machine_detect(&envi, getenv("KAGARI_MACHINE_ID"), m);
	free(envi.cpu_model);
}

/* The series in --format. */
static void history_render(struct sbuf *out, const struct history_cli *cli,
			   const struct history_view *hv)
{
	const char *f = cli->out.format ? cli->out.format : "table";
	if (!strcmp(f, "json"))
		report_history_json(out, hv);
	else if (!strcmp(f, "markdown"))
		report_history_markdown(out, hv);
	else if (!strcmp(f, "html"))
		report_history_html(out, hv);
	else
		report_history_table(out, hv);
}

/* out to --output or standard output. 0 or EXIT_EXEC. */
static int history_write(const struct history_cli *cli, const struct sbuf *out)
{
	return common_write_output(cli->out.output, NULL, out->buf, out->len);
}

/* `kagari history push|pull [options] [PATH...]`: args[0] names it. */
static int history_subcommand(const struct history_cli *cli, int *rc)
{
	const struct strvec *args = &cli->common.args;
	const char *sub = args->nr ? args->v[0] : NULL;
	if (!sub || (strcmp(sub, "push") && strcmp(sub, "pull")))
		return 0;
	enum history_sync_op op = !strcmp(sub, "push") ? HISTORY_SYNC_PUSH : HISTORY_SYNC_PULL;
	if (cli->from_branch) {
		cmd_error("--from-branch is for showing the history; `kagari history %s` takes "
			  "--branch and --remote",
			  op == HISTORY_SYNC_PUSH ? "push" : "pull");
		*rc = EXIT_USAGE;
	} else {
		struct strvec paths = STRVEC_INIT; /* the arguments after push|pull */
		for (size_t i = 1; i < args->nr; i++)
			strvec_push(&paths, args->v[i]);
		*rc = history_sync_exec(&paths, cli->history, &cli->branch, op);
		strvec_clear(&paths);
	}
	return 1;
}

/* The subjects of every commit of the series (git/web.h). */
static void subjects_load(struct git_subjects *sj, const struct history_series_set *set,
			  const char *dir)
{
	const struct history_series *v = set->v;
	size_t nr = set->nr;
	size_t total = 0, k = 0;
	for (size_t i = 0; i < nr; i++)
		total += v[i].nr;
	const char **sha = xcalloc(total + 1, sizeof(*sha));
	for (size_t i = 0; i < nr; i++)
		for (size_t q = 0; q < v[i].nr; q++)
			sha[k++] = v[i].pts[q].sha;
	git_subjects_load(sj, dir, sha, k); /* none: no subjects shown */
	free(sha);
}

/* One series as the site shows it (report/history_site.h); the strings
   it allocates (noise line, links) are pushed on keep. */
/* The report page of a run the site marks (reports/run-ID.html). */
struct run_page {
	int64_t run;
	char *name;
	struct sbuf html;
};

static int cmp_page(const void *a, const void *b)
{
	int64_t x = ((const struct run_page *)a)->run, y = ((const struct run_page *)b)->run;
	return (x > y) - (x < y);
}

/* The page of run (NULL when it has none). */
static const struct run_page *page_of(const struct run_page *v, size_t nr, int64_t run)
{
	struct run_page k = {run, NULL, SBUF_INIT};
	return nr ? bsearch(&k, v, nr, sizeof(*v), cmp_page) : NULL;
}

/* The last comparison of commit c when it marks a change (the site's
   verdict mark), else NULL. */
static const struct history_point *mark_of(const struct history_commit *c)
{
	const struct history_point *e = c->nr_cmps ? c->cmps[c->nr_cmps - 1] : NULL;
	return e && history_verdict_is_change(e->verdict) ? e : NULL;
}

/*
 * The HTML report of every run whose verdict the site marks, from the JSON
 * report the history keeps of it (report/read_json.h, the HTML writer):
 * each mark links to the evidence. A run without a stored report, or one
 * that does not read, gets no page (and its mark links to its commit).
 */
static struct run_page *site_reports(struct history *h, const struct history_series_set *set,
				     size_t *nr)
{
	struct run_page *v = NULL;
	size_t n = 0;
	for (size_t i = 0; i < set->nr; i++)
		for (size_t q = 0; q < set->v[i].nr; q++) {
			const struct history_point *e = mark_of(&set->v[i].pts[q]);
			if (!e)
				continue;
			v = xreallocarray(v, n + 1, sizeof(*v));
			v[n++] = (struct run_page){e->run, NULL, SBUF_INIT};
		}
	if (n > 1)
		qsort(v, n, sizeof(*v), cmp_page);
	size_t k = 0;
	struct sbuf err = SBUF_INIT;
	for (size_t i = 0; i < n; i++) {
		if (k && v[k - 1].run == v[i].run)
			continue;
		char *json = NULL;
		struct run_result r;
		run_result_init(&r);
		sbuf_reset(&err);
		char *what = xstrfmt("the report of run %lld", (long long)v[i].run);
		struct sbuf html = SBUF_INIT;
		struct report_options o;
		report_options_init(&o);
		if (!history_run_report(h, v[i].run, &json, &err) && json &&
		    !report_read_json(json, strlen(json), what, &r, &err) &&
		    !report_render(&r, REPORT_HTML, &o, &html, &err)) {
			v[k] = (struct run_page){
			    v[i].run, xstrfmt("reports/run-%lld.html", (long long)v[i].run), html};
			k++;
		} else {
			sbuf_release(&html);
		}
		free(what);
		free(json);
		run_result_release(&r);
	}
	sbuf_release(&err);
	*nr = k;
	return v;
}

static void site_series(struct history_site_series *o, const struct history_series *s,
			const struct git_subjects *sj, const char *tmpl, double detect,
			const struct loaded_suites *ls, const struct run_page *pages,
			size_t nr_pages, struct strvec *keep)
{
	struct history_site_point *pts = xcalloc(s->nr ? s->nr : 1, sizeof(*pts));
	struct history_site_step *st = xcalloc(s->nr_steps + 1, sizeof(*st));
	struct sbuf t = SBUF_INIT;
	for (size_t q = 0; q < s->nr; q++) {
		const struct history_commit *c = &s->pts[q];
		pts[q] = (struct history_site_point){
		    c->sha,
		    c->time,
		    git_subjects_get(sj, c->sha),
		    NULL,
		    c->median,
		    c->low,
		    c->high,
		    c->runs,
		    c->place != HISTORY_ON_LINE && s->pts[0].place == HISTORY_ON_LINE,
		    NULL,
		    NULL,
		    NULL,
		    NAN,
		    NAN,
		    NAN,
		    c->nr_cmps,
		    NULL};
		const struct history_point *e = mark_of(c);
		if (e) {
			const struct run_page *pg = page_of(pages, nr_pages, e->run);
			pts[q].report = pg ? pg->name : NULL;
			pts[q].verdict = e->verdict;
			pts[q].kind = e->kind;
			pts[q].base_sha = e->base_sha;
			pts[q].change_percent = e->change_percent;
			pts[q].ci_low_percent = e->ci_low_percent;
			pts[q].ci_high_percent = e->ci_high_percent;
		}
		if (tmpl) {
			sbuf_reset(&t);
			git_web_commit_url(&t, tmpl, c->sha);
			strvec_push(keep, t.buf);
			pts[q].url = keep->v[keep->nr - 1];
		}
	}
	for (size_t k = 0; k < s->nr_steps; k++) {
		const struct history_step *h = &s->steps[k];
		int paired = h->evidence == HISTORY_EVIDENCE_PAIRED;
		st[k] = (struct history_site_step){h->at,
						   h->before,
						   h->after,
						   h->change_percent,
						   h->from_sha,
						   paired,
						   paired ? h->cmp->ci_low_percent : NAN,
						   paired ? h->cmp->ci_high_percent : NAN};
	}
	sbuf_reset(&t);
	report_history_noise_line(&t, s, detect);
	strvec_push(keep, t.buf);
	sbuf_release(&t);
	const struct history_point *l = s->last;
	*o = (struct history_site_series){
	    .suite = s->key->suite,
	    .benchmark = s->key->benchmark,
	    .command = s->key->command,
	    .metric = s->metric,
	    .machine = s->key->fingerprint,
	    .cpu_model = s->key->cpu_model,
	    .this_machine = s->this_machine,
	    .pts = pts,
	    .nr = s->nr,
	    .steps = st,
	    .nr_steps = s->nr_steps,
	    .noise = keep->v[keep->nr - 1],
	    .last = {l->sha, l->time, l->kind, l->result, l->verdict, l->change_percent,
		     l->ci_low_percent, l->ci_high_percent},
	    .nr_regressions = s->nr_regressions,
	    .nr_improvements = s->nr_improvements,
	    .nr_accepted = s->nr_accepted,
	    .gated = isfinite(history_check_tolerance(ls, s)),
	};
}

/* The commit link template: --commit-url, else the origin remote's; NULL
   with the reason in *why when there is none. */
static char *site_links(const struct history_cli *cli, const char *dir, char **page,
			const char **why)
{
	char *tmpl = NULL;
	*page = NULL;
	*why = NULL;
	if (cli->commit_url) {
		if (*cli->commit_url)
			return xstrdup(cli->commit_url);
		*why = "--commit-url is empty";
		return NULL;
	}
	if (git_web_origin(dir, &tmpl, page)) {
		*why = "no origin remote on GitHub or GitLab to link to (--commit-url TEMPLATE "
		       "says where a commit is shown)";
		return NULL;
	}
	return tmpl;
}

/* The site into the folder --output names (report/history_site.h).
   0 or EXIT_EXEC. */
static int history_publish(const struct history_cli *cli, const struct history_view *hv,
			   const struct loaded_suites *ls, struct history *h)
{
	const struct history_series *v = hv->set->v;
	size_t nr = hv->set->nr;
	const char *dir = ls->suites[0]->dir;
	struct git_subjects sj;
	struct strvec keep = STRVEC_INIT;
	struct sbuf err = SBUF_INIT;
	char *page = NULL;
	const char *why;
	char *tmpl = site_links(cli, dir, &page, &why);
	subjects_load(&sj, hv->set, dir);
	/* keep holds copies: its strings stay where they are as it grows. */
	struct history_site_series *ss = xcalloc(nr ? nr : 1, sizeof(*ss));
	size_t nr_pages;
	struct run_page *pages = site_reports(h, hv->set, &nr_pages);
	for (size_t i = 0; i < nr; i++)
		site_series(&ss[i], &v[i], &sj, tmpl, hv->detect, ls, pages, nr_pages, &keep);
	struct history_site_file *files = xcalloc(nr_pages + 1, sizeof(*files));
	for (size_t i = 0; i < nr_pages; i++)
		files[i] =
		    (struct history_site_file){pages[i].name, pages[i].html.buf, pages[i].html.len};
	char *now = sysinfo_now_rfc3339();
	struct history_site site = {hv->machine, page, why, now, hv->runs, ss, nr, files, nr_pages};
	int rc = 0;
	if (history_site_write(cli->out.output, &site, &err)) {
		cmd_error("--output %s", err.buf);
		rc = EXIT_EXEC;
	}
	for (size_t i = 0; i < nr; i++) {
		free((void *)ss[i].pts);
		free((void *)ss[i].steps);
	}
	free(ss);
	for (size_t i = 0; i < nr_pages; i++) {
		free(pages[i].name);
		sbuf_release(&pages[i].html);
	}
	free(pages);
	free(files);
	free(now);
	free(tmpl);
	free(page);
	git_subjects_release(&sj);
	strvec_clear(&keep);
	sbuf_release(&err);
	return rc;
}

/* `kagari history check`: 1 when an alert lies in the range, 0 when
   none, EXIT_USAGE for a range git cannot tell; the Markdown to
   --output or standard output either way. */
static int history_check(const struct history_cli *cli, const struct history_view *hv,
			 const struct loaded_suites *ls, struct sbuf *out)
{
	const char *dir = ls->suites[0]->dir;
	struct strvec range = STRVEC_INIT;
	char *head = NULL, *page = NULL;
	int rc = history_check_range(dir, cli->since, &range, &head);
	if (!rc) {
		const char *why;
		char *tmpl = site_links(cli, dir, &page, &why);
		int any =
		    history_check_alerts(out, hv, ls, &range, cli->since, head, dir, tmpl, why);
		free(tmpl);
		rc = history_write(cli, out);
		if (!rc && any)
			rc = EXIT_FAIL;
	}
	free(head);
	free(page);
	strvec_clear(&range);
	return rc;
}

static int history_exec(const void *opts, struct cmd_env *env)
{
	const struct history_cli *cli = opts;
	(void)env;
	double min_change, detect;
	int rc_sub;
	if (history_subcommand(cli, &rc_sub))
		return rc_sub;
	int rc = history_check_args(cli, &min_change, &detect);
	if (rc)
		return rc;
	/* `kagari history check [--since REV] [PATH...]`: the suites are the
	   arguments after it. */
	const struct strvec *args = &cli->common.args;
	int check = args->nr && !strcmp(args->v[0], "check");
	struct strvec paths = STRVEC_INIT;
	for (size_t i = check; i < args->nr; i++)
		strvec_push(&paths, args->v[i]);
	if (cli->since && !check) {
		cmd_error("--since is for `kagari history check`");
		strvec_clear(&paths);
		return EXIT_USAGE;
	}
	if (check && cli->out.format && strcmp(cli->out.format, "markdown")) {
		cmd_error("history check writes Markdown (an issue's body): --format %s is not "
			  "one of its formats",
			  cli->out.format);
		strvec_clear(&paths);
		return EXIT_USAGE;
	}
	struct loaded_suites ls;
	rc = common_load(&paths, &ls);
	strvec_clear(&paths);
	if (!rc)
		rc = common_select(&cli->selection, &ls);
	if (rc) {
		common_release(&ls);
		return rc;
	}
	char *path = record_history_path(cli->history, &ls);
	struct sbuf err = SBUF_INIT, out = SBUF_INIT;
	struct history *h = NULL;
	struct history_points pts = {0};
	struct history_series_set set = {NULL, 0};
	if (cli->out.output)
		rc = history_check_output(cli, &ls, path);
	if (!rc && cli->from_branch)
		rc = history_sync_run(&cli->branch, HISTORY_SYNC_PULL, path, ls.suites[0]->dir,
				      stderr);
	if (!rc)
		rc = history_read(cli, path, &h, &pts, &err);
	if (rc)
		goto out;
	int64_t runs = history_count_runs(h, &err);
	struct history_machine m;
	this_machine(&m);
	struct history_order order;
	history_order_load(&order, ls.suites[0]->dir, &pts);
	struct history_series_options opt = {m.fingerprint, min_change, detect, selected, &ls};
	history_series_build(&set, &pts, &order, &opt);
	history_order_release(&order);
	struct history_view hv = {path, m.fingerprint, runs, detect, &set};
	if (check) {
		rc = history_check(cli, &hv, &ls, &out);
	} else if (history_site_mode(cli)) {
		rc = history_publish(cli, &hv, &ls, h);
	} else {
		history_render(&out, cli, &hv);
		rc = history_write(cli, &out);
	}
	history_machine_release(&m);
out:
	history_series_release(&set);
	history_points_release(&pts);
	history_close(h);
	free(path);
	sbuf_release(&err);
	sbuf_release(&out);
	common_release(&ls);
	return rc;
}

const struct cmd_entry cmd_history = {
    .name = "history",
    .args = "[check|push|pull] [options] [PATH...]",
    .summary = "show the recorded series per command and metric over commits, with their steps "
	       "and verdicts; check REV..HEAD for steps (exit 1); push/pull the history branch",
    .opts = history_opts,
    .cli_size = sizeof(struct history_cli),
    .needs_runner = 0,
    .exec = history_exec,
};
