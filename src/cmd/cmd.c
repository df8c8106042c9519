/*
 * cmd/cmd: the table of subcommands, `struct cli` (every flag), option
 * parsing into it, usage text, and the message helpers (cmd_error(),
 * cmd_warning()) every command prints through.
 */
#include "cmd/cmd.h"

#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/sbuf.h"
#include "cmd/exit.h"

static const struct cmd_entry *const commands[] = {
	&cmd_init, &cmd_validate, &cmd_list, &cmd_run, &cmd_compare, &cmd_ci,
	&cmd_report, &cmd_history, &cmd_merge, &cmd_bisect, &cmd_doctor, &cmd_version, &cmd_help,
	&cmd_completion, &cmd_bench, &cmd_aa, &cmd_power,
};
#define NR_COMMANDS (sizeof(commands) / sizeof(commands[0]))

const struct cmd_entry *cmd_find(const char *name)
{
	for (size_t i = 0; i < NR_COMMANDS; i++)
		if (!strcmp(commands[i]->name, name))
			return commands[i];
	return NULL;
}

const struct cmd_entry *cmd_at(size_t i)
{
	return i < NR_COMMANDS ? commands[i] : NULL;
}

static void vmessage(const char *prefix, const char *fmt, va_list ap)
{
	struct sbuf sb = SBUF_INIT;
	sbuf_vaddf(&sb, fmt, ap);
	fprintf(stderr, "kagari: %s%s\n", prefix, sb.buf);
	fflush(stderr);
	sbuf_release(&sb);
}

void cmd_error(const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	vmessage("error: ", fmt, ap);
	va_end(ap);
}

void cmd_warning(const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	vmessage("warning: ", fmt, ap);
	va_end(ap);
}

void cmd_usage(const struct cmd_entry *e, struct sbuf *out)
{
	sbuf_addf(out, "usage: kagari %s %s\n\n%s\n", e->name, e->args, e->summary);
	if (e->opts && e->opts->name) {
		sbuf_adds(out, "\noptions:\n");
		opts_help(e->opts, out);
	}
	sbuf_adds(out, "  -h, --help");
	sbuf_addchars(out, ' ', 4);
	sbuf_adds(out, "show this help\n");
}

void cmd_overview(struct sbuf *out)
{
	sbuf_adds(out,
		  "kagari - a performance regression gate for command-line programs\n\n"
		  "usage: kagari <command> [options] [PATH...]\n\ncommands:\n");
	size_t width = 0;
	for (size_t i = 0; i < NR_COMMANDS; i++)
		if (strlen(commands[i]->name) > width)
			width = strlen(commands[i]->name);
	for (size_t i = 0; i < NR_COMMANDS; i++) {
		sbuf_addf(out, "  %s", commands[i]->name);
		sbuf_addchars(out, ' ', width + 3 - strlen(commands[i]->name));
		sbuf_addf(out, "%s\n", commands[i]->summary);
	}
	sbuf_adds(out,
		  "\nPATH is a suite file or a folder holding kagari.yaml, *.kagari.yaml,\n"
		  "himorime.yaml or *.himorime.yaml (default: ./kagari.yaml).\n"
		  "Run 'kagari help <command>' for a command's options; see kagari(1).\n\n"
		  "exit codes: 0 pass, 1 budget exceeded or regression, 2 invalid suite,\n"
		  "3 usage error, 4 execution failure, 5 internal error, 6 unsupported metric\n");
}

void cli_init(struct cli *c)
{
	memset(c, 0, sizeof(*c));
	strvec_init(&c->tags);
	strvec_init(&c->skip_tags);
	strvec_init(&c->args);
	strvec_init(&c->max_percent);
	strvec_init(&c->exports);
	c->runs = -1;
	c->warmup = -1;
	c->repeat = -1;
	c->trials = -1;
	c->runs_per_round = -1;
	c->max_runs = -1;
}

void cli_release(struct cli *c)
{
	free(c->filter);
	free(c->profile_dir);
	free(c->format);
	free(c->output);
	free(c->summary);
	free(c->section);
	free(c->against);
	free(c->max_time);
	free(c->suite_from);
	free(c->confidence);
	free(c->history);
	free(c->shard);
	free(c->metric);
	free(c->trace);
	free(c->cells);
	free(c->order);
	free(c->min_change);
	free(c->good);
	free(c->bad);
	strvec_clear(&c->max_percent);
	strvec_clear(&c->exports);
	free(c->time_unit);
	strvec_clear(&c->tags);
	strvec_clear(&c->skip_tags);
	strvec_clear(&c->args);
	cli_init(c);
}

static const struct opts_layout cli_layout = {
	.args = offsetof(struct cli, args),
	.help = offsetof(struct cli, help),
	.seed = offsetof(struct cli, seed),
	.have_seed = offsetof(struct cli, have_seed),
};

int cmd_exec(const struct cmd_entry *e, int argc, char **argv,
	     struct cmd_env *env)
{
	static const struct opt none[] = { { NULL, 0, 0, NULL, NULL, NULL } };
	struct cli cli;
	struct sbuf err = SBUF_INIT;
	cli_init(&cli);
	int rc;
	if (e->raw_args) {
		for (int i = 0; i < argc; i++) {
			if (!strcmp(argv[i], "-h") || !strcmp(argv[i], "--help"))
				cli.help = 1;
			strvec_push(&cli.args, argv[i]);
		}
	}
	if (!e->raw_args &&
	    opts_parse(e->opts ? e->opts : none, &cli_layout, argc, argv, &cli, &err)) {
		cmd_error("%s", err.buf);
		fprintf(stderr, "usage: kagari %s %s (see 'kagari help %s')\n",
			e->name, e->args, e->name);
		rc = EXIT_USAGE;
	} else if (cli.help) {
		struct sbuf out = SBUF_INIT;
		cmd_usage(e, &out);
		fputs(out.buf, stdout);
		sbuf_release(&out);
		rc = EXIT_PASS;
	} else {
		rc = e->exec(&cli, env);
	}
	sbuf_release(&err);
	cli_release(&cli);
	return rc;
}
