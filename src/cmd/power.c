/*
 * kagari power [options] TRACE...: what compare's design decides, and at
 * what cost, on a machine's own recorded noise (docs/power.md). This file
 * reads the options, the suite's design and the traces; the trials are
 * power/replay.h's, the table and JSON report/power.h's.
 */
#include <errno.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/sbuf.h"
#include "base/xalloc.h"
#include "cmd/cmd.h"
#include "cmd/common.h"
#include "model/exit.h"
#include "model/trace.h"
#include "power/replay.h"
#include "report/power.h"
#include "report/output.h"
#include "suite/discover.h"
#include "suite/load.h"
#include "suite/model.h"
#include "suite/units.h"

#define POWER_DEFAULT_CELLS "0@2,3@2,5@3,10@3,20@10,2@2,3@3,40%x2.5@10"
#define POWER_DEFAULT_TRIALS 500
#define TRACE_MAX_BYTES ((size_t)1 << 30)

struct power_cli {
	struct cli_common common;
	struct cli_out out;	      /* format, output */
	struct cli_measure measure;   /* seed, max_runs */
	struct cli_analysis analysis; /* metric, confidence */
	char *cells;		      /* --cells LIST */
	int trials;		      /* --trials N, -1 unset */
	int runs_per_round;	      /* -1 unset */
	char *order;		      /* random|abba|alternate */
	char *rare_share;	      /* --rare-share P */
};

#define P(f) offsetof(struct power_cli, f)
static const struct opt power_opts[] = {
    {"cells", OPT_STRING, P(cells), "LIST",
     "cells to replay, EFFECT@T or SHARE%xFACTOR@T, comma-separated (default " POWER_DEFAULT_CELLS
     ")",
     NULL},
    {"trials", OPT_COUNT, P(trials), "N", "trials per cell (default 500)", NULL},
    {"seed", OPT_SEED, P(measure.seed), "N",
     "seed for the windows, the order and the shaped changes (default 1)", NULL},
    {"metric", OPT_ENUM, P(analysis.metric), "M",
     "the trace column replayed: latency (wall_ns, default) or cpu_total (user_ns + sys_ns)",
     "latency|cpu_total"},
    {"runs-per-round", OPT_COUNT, P(runs_per_round), "N",
     "runs per side per round (default: the suite's, else 1)", NULL},
    {"max-runs", OPT_COUNT, P(measure.max_runs), "N",
     "the sequential design's cap, runs per side (default: the suite's, else 200)", NULL},
    {"confidence", OPT_STRING, P(analysis.confidence), "C",
     "confidence of the verdicts (default: the suite's, else 0.95)", NULL},
    {"rare-share", OPT_STRING, P(rare_share), "P",
     "the share of runs a pass must see a slowdown of, as the suite's regression.rare_share "
     "(default: the suite's, else what the 45-round pass minimum gives, about 6.4%)",
     NULL},
    {"order", OPT_ENUM, P(order), "ORDER",
     "order inside a round (default: the suite's, else random)", "random|abba|alternate"},
    {"format", OPT_ENUM, P(out.format), "FMT", "report format: table (default) or json",
     "table|json"},
    {"output", OPT_STRING, P(out.output), "FILE",
     "write the report to FILE (atomically) instead of stdout; never an input", NULL},
    {NULL, 0, 0, NULL, NULL, NULL},
};
#undef P

static int load_traces(const struct power_cli *cli, int need_cpu, struct trace *tr)
{
	for (size_t i = 0; i < cli->common.args.nr; i++) {
		struct sbuf text = SBUF_INIT, err = SBUF_INIT;
		const char *f = cli->common.args.v[i];
		if (sbuf_read_file(&text, f, TRACE_MAX_BYTES)) {
			cmd_error("%s: cannot read the trace: %s", f, strerror(errno));
			sbuf_release(&text);
			return EXIT_INVALID;
		}
		int bad =
		    trace_parse(f, text.buf ? text.buf : "", text.len, need_cpu, &tr[i], &err);
		sbuf_release(&text);
		if (bad) {
			cmd_error("%s", err.buf);
			sbuf_release(&err);
			return EXIT_INVALID;
		}
		sbuf_release(&err);
	}
	return 0;
}

/* The design's overrides from the command line; 0 or the exit code. */
static int design_from_cli(const struct power_cli *cli, struct power_design *d)
{
	d->metric = cli->analysis.metric && !strcmp(cli->analysis.metric, "cpu_total")
			? METRIC_CPU_TOTAL
			: METRIC_LATENCY;
	if (cli->runs_per_round == 0 || cli->measure.max_runs == 0 || cli->trials == 0) {
		cmd_error("--%s must be at least 1", cli->trials == 0 ? "trials"
						     : cli->measure.max_runs == 0
							 ? "max-runs"
							 : "runs-per-round");
		return EXIT_USAGE;
	}
	if (cli->runs_per_round > 0)
		d->st.runs_per_round = cli->runs_per_round;
	if (cli->measure.max_runs > 0)
		d->st.max_runs = cli->measure.max_runs;
	if (cli->order)
		d->st.order = !strcmp(cli->order, "abba")	 ? ORDER_ABBA
			      : !strcmp(cli->order, "alternate") ? ORDER_ALTERNATE
								 : ORDER_RANDOM;
	if (cli->analysis.confidence &&
	    common_parse_confidence(cli->analysis.confidence, &d->st.regression.confidence))
		return EXIT_USAGE;
	if (cli->rare_share) {
		struct sbuf err = SBUF_INIT;
		double pct;
		if (units_parse_percent(cli->rare_share, &pct, &err) || !(pct < 100)) {
			cmd_error("--rare-share '%s': %s", cli->rare_share,
				  err.len ? err.buf : "a share of the runs below 100%");
			sbuf_release(&err);
			return EXIT_USAGE;
		}
		sbuf_release(&err);
		d->st.regression.rare_share = pct / 100;
	}
	power_design_plan(d);
	return 0;
}

/* --cells (or the default list) into cells[0..*nc); 0 or the exit code. */
static int cells_from_cli(const struct power_cli *cli, struct power_cell **cells, size_t *nc)
{
	struct sbuf err = SBUF_INIT;
	int rc = 0;
	if (power_parse_cells(cli->cells ? cli->cells : POWER_DEFAULT_CELLS, cells, nc, &err)) {
		cmd_error("%s", err.buf);
		rc = EXIT_USAGE;
	}
	sbuf_release(&err);
	return rc;
}

/* Every trace holds at least one window of `need` runs; 0 or EXIT_INVALID. */
static int check_trace_lengths(const struct power_design *d, const struct trace *tr, size_t nt,
			       size_t need)
{
	struct sbuf err = SBUF_INIT;
	int rc = 0;
	if (power_traces_long_enough(d, tr, nt, need, &err)) {
		cmd_error("%s", err.buf);
		rc = EXIT_INVALID;
	}
	sbuf_release(&err);
	return rc;
}

/* power_cells_fit(), as the command's exit: 0 or EXIT_USAGE. */
static int check_cells_fit(const struct power_design *d, const struct trace *tr, size_t nt,
			   const struct power_cell *cells, size_t nc)
{
	struct sbuf err = SBUF_INIT;
	int rc = 0;
	if (power_cells_fit(d, tr, nt, cells, nc, &err)) {
		cmd_error("%s", err.buf);
		rc = EXIT_USAGE;
	}
	sbuf_release(&err);
	return rc;
}

/* --output is none of the inputs (the traces, the suite); 0 or the code. */
static int check_output(const struct power_cli *cli, const struct power_design *d)
{
	if (!cli->out.output)
		return 0;
	struct input_files in = INPUT_FILES_INIT;
	for (size_t i = 0; i < cli->common.args.nr; i++) {
		char *what = xstrfmt("the trace '%s'", cli->common.args.v[i]);
		input_files_add(&in, cli->common.args.v[i], what);
		free(what);
	}
	if (d->from)
		input_files_add(&in, d->from, "the suite file");
	int rc = common_check_output("--output", cli->out.output, NULL, &in, EXIT_USAGE);
	input_files_release(&in);
	return rc;
}

/* The table or JSON to stdout or --output; 0 or EXIT_EXEC. */
static int write_result(const struct power_cli *cli, const struct power_design *d,
			const struct trace *tr, size_t nt, const struct power_cell *cells,
			size_t nc, uint64_t seed)
{
	struct power_trace_stats ts;
	struct sbuf out = SBUF_INIT;
	int rc;
	power_trace_stats(tr, nt, d->metric, &ts);
	if (cli->out.format && !strcmp(cli->out.format, "json"))
		report_power_json(&out, d, tr, nt, &ts, cells, nc, seed);
	else
		report_power_table(&out, d, tr, nt, &ts, cells, nc, seed);
	rc = common_write_output(cli->out.output, NULL, out.buf, out.len);
	sbuf_release(&out);
	return rc;
}

static int power_exec(const void *opts, struct cmd_env *env)
{
	const struct power_cli *cli = opts;
	(void)env;
	struct power_design d;
	struct sbuf err = SBUF_INIT;
	struct power_cell *cells = NULL;
	size_t nc = 0, nt = cli->common.args.nr;
	struct trace *tr = NULL;
	int rc = 0;

	memset(&d, 0, sizeof(d));
	if (!nt) {
		cmd_error("power needs at least one trace file (kagari power TRACE...; "
			  "`kagari aa --trace FILE` records one)");
		return EXIT_USAGE;
	}
	if (power_design_from_suite(&d, &err)) {
		sbuf_rtrim(&err);
		fprintf(stderr, "%s\n", err.buf);
		cmd_error("invalid suite: nothing was replayed");
		sbuf_release(&err);
		settings_release(&d.st);
		return EXIT_INVALID;
	}
	if ((rc = design_from_cli(cli, &d)) || (rc = cells_from_cli(cli, &cells, &nc)))
		goto out;
	tr = xcalloc(nt + 1, sizeof(*tr));
	size_t need = (size_t)(d.warm_rounds + d.rounds) * 2 * (size_t)d.st.runs_per_round;
	if ((rc = load_traces(cli, d.metric == METRIC_CPU_TOTAL, tr)) ||
	    (rc = check_trace_lengths(&d, tr, nt, need)) ||
	    (rc = check_cells_fit(&d, tr, nt, cells, nc)) || (rc = check_output(cli, &d)))
		goto out;
	uint64_t seed = cli->measure.seed.given ? cli->measure.seed.value : 1;
	power_replay(&d, tr, nt, need, cells, nc,
		     cli->trials > 0 ? cli->trials : POWER_DEFAULT_TRIALS, seed);
	rc = write_result(cli, &d, tr, nt, cells, nc, seed);
out:
	for (size_t i = 0; i < nc; i++)
		free(cells[i].text);
	free(cells);
	for (size_t i = 0; tr && i < nt; i++)
		trace_release(&tr[i]);
	free(tr);
	settings_release(&d.st);
	free((char *)d.from);
	sbuf_release(&err);
	return rc;
}

const struct cmd_entry cmd_power = {
    .name = "power",
    .args = "[options] TRACE...",
    .summary =
	"replay compare's design over recorded A/A traces: how often it decides, and at what cost",
    .opts = power_opts,
    .cli_size = sizeof(struct power_cli),
    .exec = power_exec,
};
