/*
 * opts: command-line options declared in tables.
 *
 * Each subcommand declares a NULL-terminated array of `struct opt`; the same
 * table drives parsing, `--help` and the man page synopsis, so they cannot
 * drift. Parsed values land in the caller's struct (each command's own,
 * in cmd/) at each field's offset; this module knows no command's flags.
 * The table also owns the struct's life: opts_defaults() sets every
 * field it names to its type's unset value and opts_release() frees what
 * each type holds, so no command keeps an init or a free list by hand.
 * Flags may come before or after positional arguments; `--` ends flags.
 * Short spellings (hyperfine's -r, -P, -N ...) are aliases of table
 * entries (struct opt_alias), so every flag keeps one name in help.
 */
#ifndef KAGARI_BASE_OPTS_H
#define KAGARI_BASE_OPTS_H

#include <stddef.h>
#include <stdint.h>

#include "base/strvec.h"

struct sbuf;

/* Each type's field and its unset value (opts_defaults()). */
enum opt_type {
	OPT_BOOL,   /* int set to 1; unset 0 */
	OPT_STRING, /* char * (last one wins); unset NULL */
	OPT_LIST,   /* struct strvec; repeatable and comma-separated; empty */
	OPT_COUNT,  /* int >= 0; unset -1 */
	OPT_SEED,   /* struct opts_seed; unset { 0, 0 } */
	OPT_ENUM,   /* char *, must be one of `choices` (|-separated); NULL */
	/*
	 * struct strvec; repeatable. Each use takes the N arguments that
	 * follow (N: the words of `arg`, "NAME MIN MAX" is 3) and appends
	 * them as given, commas included. --name=V only when N is 1.
	 */
	OPT_APPEND,
	/*
	 * As OPT_APPEND, but each use first appends the option's name: several
	 * options can share one strvec and keep their command-line order
	 * ("export-json", "a.json", "export-csv", "b.csv").
	 */
	OPT_APPEND_NAMED,
};

/* An OPT_SEED field: the value, and whether it was given at all. */
struct opts_seed {
	uint64_t value;
	int given;
};

struct opt {
	const char *name; /* long name without "--" */
	enum opt_type type;
	size_t offset;	 /* into the caller's struct */
	const char *arg; /* placeholder in help, e.g. "RE" */
	const char *help;
	const char *choices; /* OPT_ENUM: "table|json|csv"; on OPT_STRING only
				for completion (the command checks) */
};

/*
 * Another spelling of a table entry: the exact argument `alias` (e.g. "-r")
 * stands for --`name`; with `value` set it takes no argument and stands for
 * --`name` `value` (hyperfine's -N is --shell none). NULL-alias-terminated.
 */
struct opt_alias {
	const char *alias;
	const char *name;
	const char *value;
};

/*
 * Where the fields every command has lie in the caller's struct (cmd/'s
 * struct cmd_opts, first in each command's): positional arguments
 * (struct strvec) and -h/--help (int).
 */
struct opts_layout {
	size_t args, help;
};

/*
 * Set every field the table names (and the layout's, when not NULL) to its
 * type's unset value (enum opt_type). Fields the table does not name are
 * left as they are: start from a zeroed struct.
 */
void opts_defaults(const struct opt *table, const struct opts_layout *layout, void *dest);
/*
 * Free what every field the table names (and the layout's positional
 * arguments) owns, and leave it unset as opts_defaults() would: entries
 * that share a field (OPT_APPEND_NAMED) and a second call are harmless.
 */
void opts_release(const struct opt *table, const struct opts_layout *layout, void *dest);

/*
 * Parse argv[0..argc) (the arguments after the subcommand name) against the
 * NULL-name-terminated table into dest (laid out as `layout` says). Returns 0, or -1 with a message
 * in err (and a "did you mean" hint for a misspelled flag).
 */
int opts_parse(const struct opt *table, const struct opts_layout *layout, int argc, char **argv,
	       void *dest, struct sbuf *err);
/* opts_parse() that also takes the spellings in aliases (NULL: none). */
int opts_parse_aliased(const struct opt *table, const struct opt_alias *aliases,
		       const struct opts_layout *layout, int argc, char **argv, void *dest,
		       struct sbuf *err);
/* How many arguments one use of o takes: 0 (OPT_BOOL), 1, or more. */
size_t opts_nargs(const struct opt *o);
/* Append the option list, one aligned line per option, to out. */
void opts_help(const struct opt *table, struct sbuf *out);

#endif
