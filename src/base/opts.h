/*
 * opts: command-line options declared in tables.
 *
 * Each subcommand declares a NULL-terminated array of `struct opt`; the same
 * table drives parsing, `--help` and the man page synopsis, so they cannot
 * drift. Parsed values land in one `struct cli` at the field's offset.
 * Flags may come before or after positional arguments; `--` ends flags.
 */
#ifndef KAGARI_BASE_OPTS_H
#define KAGARI_BASE_OPTS_H

#include <stddef.h>
#include <stdint.h>

#include "base/strvec.h"

struct sbuf;

enum opt_type {
	OPT_BOOL,   /* int set to 1 */
	OPT_STRING, /* char * (last one wins) */
	OPT_LIST,   /* struct strvec; repeatable and comma-separated */
	OPT_COUNT,  /* int >= 0 */
	OPT_SEED,   /* the uint64_t seed; also sets have_seed */
	OPT_ENUM,   /* char *, must be one of `choices` (|-separated) */
};

struct opt {
	const char *name; /* long name without "--" */
	enum opt_type type;
	size_t offset;	  /* into struct cli */
	const char *arg;  /* placeholder in help, e.g. "RE" */
	const char *help;
	const char *choices; /* OPT_ENUM: "table|json|csv" */
};

/* Every flag any command takes. Unset values are NULL / 0 / -1. */
struct cli {
	char *filter;
	struct strvec tags;
	struct strvec skip_tags;
	char *format;
	char *output;
	char *summary;
	char *section;
	int have_seed;
	uint64_t seed;
	int runs;   /* -1 unset */
	int warmup; /* -1 unset */
	int quiet;
	int no_color;
	int force;
	int fail_on_inconclusive;
	char *against;
	int profile;	   /* --profile */
	char *profile_dir; /* --profile-dir DIR */
	int help;
	struct strvec args; /* positional arguments */
};

void cli_init(struct cli *c);
void cli_release(struct cli *c);

/*
 * Parse argv[0..argc) (the arguments after the subcommand name) against the
 * NULL-name-terminated table. Returns 0, or -1 with a message in err (and a
 * "did you mean" hint for a misspelled flag).
 */
int opts_parse(const struct opt *table, int argc, char **argv, struct cli *c,
	       struct sbuf *err);
/* Append the option list, one aligned line per option, to out. */
void opts_help(const struct opt *table, struct sbuf *out);
/* Levenshtein distance, for "did you mean" hints. */
size_t opts_edit_distance(const char *a, const char *b);

#endif
