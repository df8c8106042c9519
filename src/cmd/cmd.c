/*
 * cmd/cmd: the table of subcommands, option parsing into each command's
 * own struct (its life: defaults and release from its table), usage text,
 * and the message helpers (cmd_error(), cmd_warning()) every command prints
 * through.
 */
#include "cmd/cmd.h"

#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/sbuf.h"
#include "base/xalloc.h"
#include "model/exit.h"
#include "model/rng.h"

static const struct cmd_entry *const commands[] = {
    &cmd_init,	 &cmd_validate,	  &cmd_list,  &cmd_run,	   &cmd_compare, &cmd_ci,
    &cmd_report, &cmd_history,	  &cmd_merge, &cmd_bisect, &cmd_doctor,	 &cmd_version,
    &cmd_help,	 &cmd_completion, &cmd_bench, &cmd_aa,	   &cmd_power,
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

/* cmd_guard_workflow_commands(): 0 off, 1 lines prefixed, 2 also fenced. */
static int workflow_guard;

void cmd_guard_workflow_commands(int fence)
{
	workflow_guard = fence ? 2 : 1;
}

/* A token the printed text cannot know, for ::stop-commands::TOKEN. */
static void fence_token(char *token, size_t size)
{
	snprintf(token, size, "kagari-%016llx%016llx", (unsigned long long)rng_random_seed(),
		 (unsigned long long)rng_random_seed());
}

/*
 * U+200B ZERO WIDTH SPACE: invisible, and not white space to a GitHub
 * runner (it trims lines with .NET's TrimStart(), which stops at it).
 */
#define ZWSP "\xe2\x80\x8b"

/*
 * Append text with every place a GitHub runner would read as a workflow
 * command broken by ZWSP: before a "::" that only white space precedes on
 * its line (ASCII blanks or any non-ASCII character: a superset of the
 * Unicode white space the runner trims; CR and LF end lines), and inside
 * every "##[" (the older form, read anywhere in a line). Returns the number
 * of places broken.
 */
static size_t break_workflow_commands(struct sbuf *out, const char *text, size_t len)
{
	size_t n = 0;
	int at_start = 1;
	for (size_t i = 0; i < len; i++) {
		unsigned char c = (unsigned char)text[i];
		if (c == '\n' || c == '\r') {
			at_start = 1;
		} else if (at_start &&
			   (c == ' ' || c == '\t' || c == '\v' || c == '\f' || c >= 0x80)) {
			; /* still in the line's leading white space */
		} else {
			if (at_start && c == ':' && i + 1 < len && text[i + 1] == ':') {
				sbuf_adds(out, ZWSP);
				n++;
			}
			at_start = 0;
		}
		sbuf_addch(out, (char)c);
		if (c == '#' && i + 2 < len && text[i + 1] == '#' && text[i + 2] == '[') {
			sbuf_adds(out, ZWSP);
			n++;
		}
	}
	return n;
}

int cmd_workflow_safe_text(const char *text, size_t len, struct sbuf *out)
{
	if (workflow_guard != 2)
		return 0;
	sbuf_reset(out);
	return break_workflow_commands(out, text, len) > 0;
}

/*
 * A message of more than one line carries text kagari did not write (a
 * failing program's stderr tail, a build's output). Under `kagari ci` a CI
 * runner reads workflow commands (`::error::`, `::stop-commands::`,
 * `::add-mask::`) from any line that starts with one, leading blanks
 * ignored, and it ends a line at a CR as well as at an LF: every line after
 * the first gets a visible "  | " in front, and on GitHub the message is
 * fenced with ::stop-commands:: and a random token the program cannot know.
 */
static void print_guarded(const char *prefix, const char *msg)
{
	const char *nl = strpbrk(msg, "\r\n");
	if (!workflow_guard || !nl) {
		/* One line starts with "kagari: "; the older "##[" form is
		   read anywhere in it. */
		struct sbuf safe = SBUF_INIT;
		if (cmd_workflow_safe_text(msg, strlen(msg), &safe))
			msg = safe.buf;
		fprintf(stderr, "kagari: %s%s\n", prefix, msg);
		sbuf_release(&safe);
		return;
	}
	char token[40] = "";
	if (workflow_guard == 2) {
		fence_token(token, sizeof(token));
		fprintf(stderr, "::stop-commands::%s\n", token);
	}
	struct sbuf out = SBUF_INIT;
	sbuf_addf(&out, "kagari: %s", prefix);
	sbuf_add(&out, msg, (size_t)(nl - msg));
	for (const char *p = nl; *p;) {
		/* One line break: LF, CR LF or a lone CR. */
		p += p[0] == '\r' && p[1] == '\n' ? 2 : 1;
		if (!*p)
			break; /* a final line break ends the message */
		const char *end = p + strcspn(p, "\r\n");
		sbuf_adds(&out, "\n  | ");
		sbuf_add(&out, p, (size_t)(end - p));
		p = end;
	}
	fprintf(stderr, "%s\n", out.buf);
	if (workflow_guard == 2)
		fprintf(stderr, "::%s::\n", token);
	sbuf_release(&out);
}

static void vmessage(const char *prefix, const char *fmt, va_list ap)
{
	struct sbuf sb = SBUF_INIT;
	sbuf_vaddf(&sb, fmt, ap);
	print_guarded(prefix, sb.buf);
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
	sbuf_adds(out, "kagari - a performance regression gate for command-line programs\n\n"
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

static const struct opts_layout cli_layout = {
    .args = offsetof(struct cli_common, args),
    .help = offsetof(struct cli_common, help),
};

/*
 * GitHub's pull_request_target event runs the job with a write token and
 * the repository's secrets, on behalf of a pull request that anyone may
 * open: every command that builds or runs code (a suite's commands, a
 * build, a revision's tree) refuses it, whatever names the base, unless
 * --allow-pull-request-target says this job checks out trusted code only.
 */
static int refuse_pull_request_target(const struct cmd_entry *e, const struct cli_common *cli)
{
	const char *ev = getenv("GITHUB_EVENT_NAME");
	if (!ev || strcmp(ev, "pull_request_target") || cli->allow_pull_request_target)
		return 0;
	cmd_error("GITHUB_EVENT_NAME is 'pull_request_target': kagari %s refuses to build or run "
		  "anything under it, since that job runs with a write token and the repository's "
		  "secrets, and the pull request's code would get both; run it on 'pull_request' "
		  "instead (--allow-pull-request-target overrides this, only for a job that checks "
		  "out no untrusted code; see SECURITY.md)",
		  e->name);
	return 1;
}

int cmd_exec(const struct cmd_entry *e, int argc, char **argv, struct cmd_env *env)
{
	static const struct opt none[] = {{NULL, 0, 0, NULL, NULL, NULL}};
	const struct opt *table = e->opts ? e->opts : none;
	/* The command's own struct, cli_common first; zeroed, then each
	   field its table names unset. */
	void *cli = xcalloc(1, e->cli_size ? e->cli_size : sizeof(struct cli_common));
	struct cli_common *common = cli;
	struct sbuf err = SBUF_INIT;
	opts_defaults(table, &cli_layout, cli);
	int rc;
	if (opts_parse_aliased(table, e->aliases, &cli_layout, argc, argv, cli, &err)) {
		cmd_error("%s", err.buf);
		fprintf(stderr, "usage: kagari %s %s (see 'kagari help %s')\n", e->name, e->args,
			e->name);
		rc = EXIT_USAGE;
	} else if (common->help) {
		struct sbuf out = SBUF_INIT;
		cmd_usage(e, &out);
		fputs(out.buf, stdout);
		sbuf_release(&out);
		rc = EXIT_PASS;
	} else if (e->needs_runner && refuse_pull_request_target(e, common)) {
		rc = EXIT_USAGE;
	} else {
		rc = e->exec(cli, env);
	}
	sbuf_release(&err);
	opts_release(table, &cli_layout, cli);
	free(cli);
	return rc;
}
