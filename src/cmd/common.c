/*
 * cmd/common: finding and loading the suites named on the command line and
 * selecting benchmarks by --filter and --tag (common.h). Prints its errors.
 */
#include "cmd/common.h"

#include <errno.h>
#include <math.h>
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
#include "model/exit.h"
#include "power/fixed_runs.h"
#include "run/gate_suites.h"
#include "report/output.h"
#include "report/report.h"
#include "suite/vars.h"
#include "suite/units.h"

/* suites_load()'s or suites_load_files()'s rc printed; the exit code. */
static int load_said(int rc, const struct sbuf *err)
{
	if (rc == -1) {
		cmd_error("%s", err->buf);
	} else if (rc) {
		fputs(err->buf, stderr);
		cmd_error("invalid suite: nothing was run");
	}
	return rc ? EXIT_INVALID : 0;
}

int common_load(const struct strvec *paths, struct loaded_suites *ls)
{
	struct sbuf err = SBUF_INIT;
	int rc = load_said(suites_load(paths, ls, &err), &err);
	sbuf_release(&err);
	return rc;
}

int common_load_files(const struct strvec *files, struct loaded_suites *ls)
{
	struct sbuf err = SBUF_INIT;
	int rc = load_said(suites_load_files(files, ls, &err), &err);
	sbuf_release(&err);
	return rc;
}

int gate_suites_find(const struct strvec *paths, const struct suite_selection *sel,
		     const char *base_ref, int explicit_base, struct gate_suites *g)
{
	struct gate_said said = {SBUF_INIT, SBUF_INIT};
	int rc = gate_suites_collect(paths, sel, base_ref, explicit_base, g, &said);
	if (said.suites.len)
		fputs(said.suites.buf, stderr);
	if (said.error.len)
		cmd_error("%s", said.error.buf);
	sbuf_release(&said.suites);
	sbuf_release(&said.error);
	return rc;
}

int common_select(const struct suite_selection *sel, struct loaded_suites *ls)
{
	struct sbuf err = SBUF_INIT;
	int rc = suites_select(sel, ls, &err);
	if (rc)
		cmd_error("%s", err.buf);
	sbuf_release(&err);
	return rc ? EXIT_USAGE : 0;
}

int common_check_output(const char *label, const char *path, const char *section,
			const struct input_files *in, int code)
{
	struct sbuf err = SBUF_INIT;
	int rc = 0;
	if (report_output_refuse(label, path, section, in, &err)) {
		cmd_error("%s", err.buf);
		rc = code;
	}
	sbuf_release(&err);
	return rc;
}

size_t common_warn_power(const struct suite *s)
{
	struct strvec warnings = STRVEC_INIT;
	size_t n = power_warn_fixed_runs(s, &warnings);
	for (size_t i = 0; i < warnings.nr; i++)
		cmd_warning("%s", warnings.v[i]);
	strvec_clear(&warnings);
	return n;
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
