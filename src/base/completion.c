/*
 * base/completion: a shell completion script (completion.h), generated
 * from the command table and each command's option table — the same tables
 * that parse the flags and print --help — so it cannot lag behind them.
 * Completes the command names, each command's --options, the values of
 * enumerated options (--format FMT ...), file names for FILE arguments and
 * suite paths, command names after `help` and shell names after
 * `completion`.
 *
 *   source <(kagari completion bash)
 *   kagari completion zsh > "${fpath[1]}/_kagari"
 *   kagari completion fish > ~/.config/fish/completions/kagari.fish
 */
#include "base/completion.h"

#include <stdio.h>
#include <string.h>

#include "base/sbuf.h"

/* The commands being completed. */
struct completion_set {
	const struct completion_command *cmds;
	size_t n;
};

static const char *const shells[] = {"bash", "zsh", "fish", NULL};

static int takes_value(const struct opt *o)
{
	return o->type != OPT_BOOL;
}

static int is_file_arg(const struct opt *o)
{
	return o->arg && !strcmp(o->arg, "FILE");
}

/* "a|b|c" as "a b c". */
static void add_choices(struct sbuf *out, const char *choices)
{
	for (const char *p = choices; *p; p++)
		sbuf_addch(out, *p == '|' ? ' ' : *p);
}

/* What a command's positional arguments are: commands, shells or paths. */
static const char *positional_kind(const struct completion_command *e)
{
	static const char *const kinds[] = {
	    [COMPLETION_FILES] = "files",
	    [COMPLETION_COMMANDS] = "commands",
	    [COMPLETION_SHELLS] = "shells",
	    [COMPLETION_NONE] = "none",
	};
	return kinds[e->args];
}

/* The i-th command of set, NULL past the last. */
static const struct completion_command *cmd_at(const struct completion_set *set, size_t i)
{
	return i < set->n ? &set->cmds[i] : NULL;
}

static void command_words(const struct completion_set *set, struct sbuf *out)
{
	const struct completion_command *e;
	for (size_t i = 0; (e = cmd_at(set, i)); i++)
		sbuf_addf(out, "%s%s", i ? " " : "", e->name);
}

static void gen_bash(const struct completion_set *set, struct sbuf *out)
{
	const struct completion_command *e;
	sbuf_adds(out,
		  "# kagari completion for bash: source <(kagari completion bash)\n"
		  "_kagari() {\n"
		  "\tlocal cur=${COMP_WORDS[COMP_CWORD]} prev=${COMP_WORDS[COMP_CWORD-1]}\n"
		  "\tlocal cmd= i opts=\n"
		  "\tfor ((i = 1; i < COMP_CWORD; i++)); do\n"
		  "\t\tcase ${COMP_WORDS[i]} in -*) ;; *) cmd=${COMP_WORDS[i]}; break ;; esac\n"
		  "\tdone\n"
		  "\tif [ -z \"$cmd\" ]; then\n"
		  "\t\tCOMPREPLY=($(compgen -W \"");
	command_words(set, out);
	sbuf_adds(out, " --help --version\" -- \"$cur\"))\n\t\treturn\n\tfi\n\tcase $cmd in\n");
	for (size_t i = 0; (e = cmd_at(set, i)); i++) {
		sbuf_addf(out, "\t%s)\n\t\tcase $prev in\n", e->name);
		for (const struct opt *o = e->opts; o && o->name; o++) {
			if (!takes_value(o))
				continue;
			sbuf_addf(out, "\t\t--%s) ", o->name);
			if (o->choices) {
				sbuf_adds(out, "COMPREPLY=($(compgen -W \"");
				add_choices(out, o->choices);
				sbuf_adds(out, "\" -- \"$cur\")) ;;\n");
			} else if (is_file_arg(o)) {
				sbuf_adds(out, "COMPREPLY=($(compgen -f -- \"$cur\")) ;;\n");
			} else {
				sbuf_adds(out, "COMPREPLY=() ;;\n");
			}
		}
		sbuf_adds(out, "\t\t*)\n\t\t\topts=\"");
		for (const struct opt *o = e->opts; o && o->name; o++)
			sbuf_addf(out, "--%s ", o->name);
		sbuf_adds(out, "--help\"\n\t\t\tif [[ $cur == -* ]]; then\n"
			       "\t\t\t\tCOMPREPLY=($(compgen -W \"$opts\" -- \"$cur\"))\n"
			       "\t\t\telse\n");
		const char *k = positional_kind(e);
		if (!strcmp(k, "commands")) {
			sbuf_adds(out, "\t\t\t\tCOMPREPLY=($(compgen -W \"");
			command_words(set, out);
			sbuf_adds(out, "\" -- \"$cur\"))\n");
		} else if (!strcmp(k, "shells")) {
			sbuf_adds(
			    out,
			    "\t\t\t\tCOMPREPLY=($(compgen -W \"bash zsh fish\" -- \"$cur\"))\n");
		} else if (!strcmp(k, "none")) {
			sbuf_adds(out, "\t\t\t\tCOMPREPLY=()\n");
		} else {
			sbuf_adds(out, "\t\t\t\tCOMPREPLY=($(compgen -f -- \"$cur\"))\n");
		}
		sbuf_adds(out, "\t\t\tfi ;;\n\t\tesac ;;\n");
	}
	sbuf_adds(out, "\tesac\n}\ncomplete -o filenames -o bashdefault -F _kagari kagari\n");
}

/* Text inside a single-quoted zsh _arguments spec's [description]. */
static void zsh_desc(struct sbuf *out, const char *s)
{
	for (; s && *s; s++) {
		if (*s == '\'')
			sbuf_adds(out, "'\\''");
		else if (*s == '[' || *s == ']' || *s == ':' || *s == '\\')
			sbuf_addf(out, "\\%c", *s);
		else
			sbuf_addch(out, *s);
	}
}

static void gen_zsh(const struct completion_set *set, struct sbuf *out)
{
	const struct completion_command *e;
	sbuf_adds(out,
		  "#compdef kagari\n"
		  "# kagari completion for zsh: kagari completion zsh > \"${fpath[1]}/_kagari\"\n"
		  "_kagari() {\n"
		  "\tlocal -a commands\n"
		  "\tcommands=(\n");
	for (size_t i = 0; (e = cmd_at(set, i)); i++) {
		sbuf_addf(out, "\t\t'%s:", e->name);
		zsh_desc(out, e->summary);
		sbuf_adds(out, "'\n");
	}
	sbuf_adds(out, "\t)\n"
		       "\tif (( CURRENT == 2 )); then\n"
		       "\t\t_describe -t commands 'kagari command' commands\n"
		       "\t\treturn\n"
		       "\tfi\n"
		       "\tlocal cmd=$words[2]\n"
		       "\tshift words\n"
		       "\t(( CURRENT-- ))\n"
		       "\tcurcontext=\"${curcontext%:*:*}:kagari-$cmd:\"\n"
		       "\tcase $cmd in\n");
	for (size_t i = 0; (e = cmd_at(set, i)); i++) {
		sbuf_addf(out, "\t%s)\n\t\t_arguments -s \\\n", e->name);
		for (const struct opt *o = e->opts; o && o->name; o++) {
			sbuf_addf(out, "\t\t\t'%s--%s[", o->type == OPT_LIST ? "*" : "", o->name);
			zsh_desc(out, o->help);
			sbuf_addch(out, ']');
			if (takes_value(o)) {
				sbuf_adds(out, ":");
				zsh_desc(out, o->arg ? o->arg : "value");
				sbuf_addch(out, ':');
				if (o->choices) {
					sbuf_addch(out, '(');
					add_choices(out, o->choices);
					sbuf_addch(out, ')');
				} else if (is_file_arg(o)) {
					sbuf_adds(out, "_files");
				} else {
					sbuf_adds(out, " ");
				}
			}
			sbuf_adds(out, "' \\\n");
		}
		sbuf_adds(out, "\t\t\t'(- *)--help[show this help]' \\\n");
		const char *k = positional_kind(e);
		if (!strcmp(k, "commands"))
			sbuf_adds(out, "\t\t\t\"1:command:(${commands%%:*})\"\n");
		else if (!strcmp(k, "shells"))
			sbuf_adds(out, "\t\t\t'1:shell:(bash zsh fish)'\n");
		else if (!strcmp(k, "none"))
			sbuf_adds(out, "\t\t\t\n");
		else
			sbuf_adds(out, "\t\t\t'*:suite or folder:_files'\n");
		sbuf_adds(out, "\t\t;;\n");
	}
	sbuf_adds(out, "\tesac\n}\n"
		       "if [ \"$funcstack[1]\" = _kagari ]; then\n"
		       "\t_kagari \"$@\"\n"
		       "else\n"
		       "\tcompdef _kagari kagari\n"
		       "fi\n");
}

/* A single-quoted fish string. */
static void fish_quote(struct sbuf *out, const char *s)
{
	sbuf_addch(out, '\'');
	for (; s && *s; s++) {
		if (*s == '\'' || *s == '\\')
			sbuf_addch(out, '\\');
		sbuf_addch(out, *s);
	}
	sbuf_addch(out, '\'');
}

static void gen_fish(const struct completion_set *set, struct sbuf *out)
{
	const struct completion_command *e;
	struct sbuf all = SBUF_INIT;
	command_words(set, &all);
	sbuf_adds(out, "# kagari completion for fish: kagari completion fish > "
		       "~/.config/fish/completions/kagari.fish\n"
		       "complete -c kagari -f\n");
	for (size_t i = 0; (e = cmd_at(set, i)); i++) {
		sbuf_addf(out, "complete -c kagari -n '__fish_use_subcommand' -a %s -d ", e->name);
		fish_quote(out, e->summary);
		sbuf_addch(out, '\n');
	}
	for (size_t i = 0; (e = cmd_at(set, i)); i++) {
		char cond[128];
		snprintf(cond, sizeof(cond), "'__fish_seen_subcommand_from %s'", e->name);
		for (const struct opt *o = e->opts; o && o->name; o++) {
			sbuf_addf(out, "complete -c kagari -n %s -l %s", cond, o->name);
			if (o->choices) {
				sbuf_adds(out, " -x -a ");
				struct sbuf c = SBUF_INIT;
				add_choices(&c, o->choices);
				fish_quote(out, c.buf);
				sbuf_release(&c);
			} else if (is_file_arg(o)) {
				sbuf_adds(out, " -r -F");
			} else if (takes_value(o)) {
				sbuf_adds(out, " -x");
			}
			sbuf_adds(out, " -d ");
			fish_quote(out, o->help);
			sbuf_addch(out, '\n');
		}
		sbuf_addf(out, "complete -c kagari -n %s -s h -l help -d 'show this help'\n", cond);
		const char *k = positional_kind(e);
		if (!strcmp(k, "commands"))
			sbuf_addf(out, "complete -c kagari -n %s -a '%s'\n", cond, all.buf);
		else if (!strcmp(k, "shells"))
			sbuf_addf(out, "complete -c kagari -n %s -a 'bash zsh fish'\n", cond);
		else if (!strcmp(k, "files"))
			sbuf_addf(out, "complete -c kagari -n %s -F\n", cond);
	}
	sbuf_release(&all);
}

int completion_script(const char *shell, const struct completion_command *cmds, size_t n,
		      struct sbuf *out)
{
	const struct completion_set set = {cmds, n};
	if (!strcmp(shell, shells[0]))
		gen_bash(&set, out);
	else if (!strcmp(shell, shells[1]))
		gen_zsh(&set, out);
	else if (!strcmp(shell, shells[2]))
		gen_fish(&set, out);
	else
		return -1;
	return 0;
}
