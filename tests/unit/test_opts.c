/*
 * base/opts: the option tables' parser, in particular the options that
 * take several arguments and repeat (OPT_APPEND, OPT_APPEND_NAMED) and the
 * short spellings (struct opt_alias) that `kagari bench` parses hyperfine's
 * -P NAME MIN MAX, -L NAME LIST, -n NAME and -N with; and the life of the
 * struct a table fills: its unset values set by opts_defaults() and what
 * each type owns freed by opts_release() (run under ASan, whose leak check
 * fails the _asan variant when a type is not freed), for this file's table
 * and for every command's.
 */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>
#include <stdlib.h>
#include <string.h>

#include "base/opts.h"
#include "base/sbuf.h"
#include "base/strvec.h"
#include "base/xalloc.h"
#include "cmd/cmd.h"

struct dest {
	struct strvec args;
	int help;
	struct opts_seed seed;
	int quiet;
	int runs;
	char *shell;
	struct strvec tags;   /* OPT_LIST */
	struct strvec scan;   /* OPT_APPEND, 3 */
	struct strvec lists;  /* OPT_APPEND, 2 */
	struct strvec names;  /* OPT_APPEND, 1 */
	struct strvec exports; /* OPT_APPEND_NAMED, shared */
	char *format;	       /* OPT_ENUM */
	int untabled;	       /* in no table entry: opts_*() leave it */
};

static const struct opts_layout layout = {
	.args = offsetof(struct dest, args),
	.help = offsetof(struct dest, help),
};

#define D(f) offsetof(struct dest, f)
static const struct opt table[] = {
	{ "quiet", OPT_BOOL, D(quiet), NULL, "q", NULL },
	{ "runs", OPT_COUNT, D(runs), "N", "r", NULL },
	{ "shell", OPT_STRING, D(shell), "SHELL", "s", NULL },
	{ "tag", OPT_LIST, D(tags), "T", "t", NULL },
	{ "scan", OPT_APPEND, D(scan), "NAME MIN MAX", "P", NULL },
	{ "list", OPT_APPEND, D(lists), "NAME A,B", "L", NULL },
	{ "name", OPT_APPEND, D(names), "NAME", "n", NULL },
	{ "export-json", OPT_APPEND_NAMED, D(exports), "FILE", "j", NULL },
	{ "export-csv", OPT_APPEND_NAMED, D(exports), "FILE", "c", NULL },
	{ "seed", OPT_SEED, D(seed), "N", "seed", NULL },
	{ "format", OPT_ENUM, D(format), "FMT", "f", "table|json" },
	{ NULL, 0, 0, NULL, NULL, NULL },
};
#undef D

static const struct opt_alias aliases[] = {
	{ "-r", "runs", NULL },
	{ "-P", "scan", NULL },
	{ "-L", "list", NULL },
	{ "-n", "name", NULL },
	{ "-N", "shell", "none" },
	{ NULL, NULL, NULL },
};

/* The struct's life as cmd_exec() leads it: zeroed, then the table's
   unset values; freed by the table. */
static void dest_init(struct dest *d)
{
	memset(d, 0, sizeof(*d));
	opts_defaults(table, &layout, d);
}

static void dest_release(struct dest *d)
{
	opts_release(table, &layout, d);
}

/* Parse the NULL-terminated words; returns opts_parse_aliased()'s result,
   the message (if any) in err. */
static int parse(struct dest *d, struct sbuf *err, ...)
{
	char *argv[32];
	int argc = 0;
	va_list ap;
	va_start(ap, err);
	for (char *w; (w = va_arg(ap, char *));)
		argv[argc++] = w;
	va_end(ap);
	return opts_parse_aliased(table, aliases, &layout, argc, argv, d, err);
}

static void assert_words(const struct strvec *sv, const char *const *want, size_t n)
{
	assert_int_equal(sv->nr, n);
	for (size_t i = 0; i < n; i++)
		assert_string_equal(sv->v[i], want[i]);
}

static void test_nargs(void **state)
{
	(void)state;
	assert_int_equal(opts_nargs(&table[0]), 0); /* bool */
	assert_int_equal(opts_nargs(&table[1]), 1); /* count */
	assert_int_equal(opts_nargs(&table[3]), 1); /* list: one, comma-split */
	assert_int_equal(opts_nargs(&table[4]), 3); /* NAME MIN MAX */
	assert_int_equal(opts_nargs(&table[5]), 2); /* NAME A,B */
	assert_int_equal(opts_nargs(&table[6]), 1);
	assert_int_equal(opts_nargs(&table[7]), 1);
}

/* Each use of an OPT_APPEND option takes its N arguments and appends them,
   commas kept; flags mix with positional arguments. */
static void test_append_repeats(void **state)
{
	(void)state;
	struct dest d;
	struct sbuf err = SBUF_INIT;
	dest_init(&d);
	assert_int_equal(parse(&d, &err, "--list", "x", "1,2", "cmd1", "-L", "y", "a,,b",
			       "--scan", "t", "1", "5", "-P", "u", "0", "2",
			       "-n", "first", "--name=second,with comma", "cmd2", (char *)NULL),
			 0);
	static const char *const lists[] = { "x", "1,2", "y", "a,,b" };
	static const char *const scan[] = { "t", "1", "5", "u", "0", "2" };
	static const char *const names[] = { "first", "second,with comma" };
	static const char *const args[] = { "cmd1", "cmd2" };
	assert_words(&d.lists, lists, 4);
	assert_words(&d.scan, scan, 6);
	assert_words(&d.names, names, 2);
	assert_words(&d.args, args, 2);
	assert_string_equal(err.buf, "");
	dest_release(&d);
	sbuf_release(&err);
}

/* The values of a multi-argument option are taken as given, even when they
   start with '-' (a negative MIN) or look like flags. */
static void test_append_takes_dashes(void **state)
{
	(void)state;
	struct dest d;
	struct sbuf err = SBUF_INIT;
	dest_init(&d);
	assert_int_equal(parse(&d, &err, "-P", "x", "-5", "--quiet", (char *)NULL), 0);
	static const char *const scan[] = { "x", "-5", "--quiet" };
	assert_words(&d.scan, scan, 3);
	assert_int_equal(d.quiet, 0);
	dest_release(&d);
	sbuf_release(&err);
}

/* OPT_APPEND_NAMED options sharing one list keep their order across each
   other. */
static void test_append_named_order(void **state)
{
	(void)state;
	struct dest d;
	struct sbuf err = SBUF_INIT;
	dest_init(&d);
	assert_int_equal(parse(&d, &err, "--export-csv", "b.csv", "--export-json=a.json",
			       "--export-csv", "c.csv", (char *)NULL),
			 0);
	static const char *const want[] = { "export-csv", "b.csv", "export-json", "a.json",
					    "export-csv", "c.csv" };
	assert_words(&d.exports, want, 6);
	dest_release(&d);
	sbuf_release(&err);
}

static void test_aliases(void **state)
{
	(void)state;
	struct dest d;
	struct sbuf err = SBUF_INIT;
	dest_init(&d);
	assert_int_equal(parse(&d, &err, "-r", "7", "-N", "--seed", "9", (char *)NULL), 0);
	assert_int_equal(d.runs, 7);
	assert_string_equal(d.shell, "none"); /* -N: --shell none, no argument */
	assert_int_equal(d.seed.given, 1);
	assert_int_equal(d.seed.value, 9);
	assert_int_equal(d.args.nr, 0);
	dest_release(&d);
	sbuf_release(&err);

	/* an alias is an exact word: no "-r=7", no unknown short flag */
	dest_init(&d);
	assert_int_equal(parse(&d, &err, "-r=7", (char *)NULL), -1);
	assert_string_equal(err.buf, "unknown option '-r=7'");
	dest_release(&d);
	sbuf_release(&err);
	dest_init(&d);
	assert_int_equal(parse(&d, &err, "-x", (char *)NULL), -1);
	assert_string_equal(err.buf, "unknown option '-x'");
	dest_release(&d);
	sbuf_release(&err);

	/* without aliases a short flag is unknown */
	dest_init(&d);
	char *argv[] = { "-r", "7" };
	assert_int_equal(opts_parse(table, &layout, 2, argv, &d, &err), -1);
	assert_string_equal(err.buf, "unknown option '-r'");
	dest_release(&d);
	sbuf_release(&err);
}

static void test_errors(void **state)
{
	(void)state;
	struct dest d;
	struct sbuf err = SBUF_INIT;

	/* too few arguments: the spelling used and the placeholder */
	dest_init(&d);
	assert_int_equal(parse(&d, &err, "cmd", "-P", "ms", "1", (char *)NULL), -1);
	assert_string_equal(err.buf, "-P needs NAME MIN MAX (3 values)");
	dest_release(&d);
	sbuf_release(&err);

	dest_init(&d);
	assert_int_equal(parse(&d, &err, "--list", "x", (char *)NULL), -1);
	assert_string_equal(err.buf, "--list needs NAME A,B (2 values)");
	dest_release(&d);
	sbuf_release(&err);

	dest_init(&d);
	assert_int_equal(parse(&d, &err, "-n", (char *)NULL), -1);
	assert_string_equal(err.buf, "option '-n' needs a value (NAME)");
	dest_release(&d);
	sbuf_release(&err);

	/* '=' gives one value only */
	dest_init(&d);
	assert_int_equal(parse(&d, &err, "--scan=x", "1", "2", (char *)NULL), -1);
	assert_string_equal(err.buf, "option '--scan' takes 3 values (NAME MIN MAX), not '=x'");
	dest_release(&d);
	sbuf_release(&err);

	/* the one-value types keep their messages */
	dest_init(&d);
	assert_int_equal(parse(&d, &err, "--quiet=1", (char *)NULL), -1);
	assert_string_equal(err.buf, "option '--quiet' takes no value");
	dest_release(&d);
	sbuf_release(&err);
	dest_init(&d);
	assert_int_equal(parse(&d, &err, "-r", "1x", (char *)NULL), -1);
	assert_string_equal(err.buf, "invalid value '1x' for '--runs': expected a whole number from 0 to 1000000");
	dest_release(&d);
	sbuf_release(&err);
	dest_init(&d);
	assert_int_equal(parse(&d, &err, "--runz", "1", (char *)NULL), -1);
	assert_string_equal(err.buf, "unknown option '--runz' (did you mean '--runs'?)");
	dest_release(&d);
	sbuf_release(&err);
}

/* `--` ends flags: what follows is positional, aliases included. */
static void test_dashdash(void **state)
{
	(void)state;
	struct dest d;
	struct sbuf err = SBUF_INIT;
	dest_init(&d);
	assert_int_equal(parse(&d, &err, "--tag", "a,b", "--", "-P", "-h", (char *)NULL), 0);
	static const char *const args[] = { "-P", "-h" };
	static const char *const tags[] = { "a", "b" };
	assert_words(&d.args, args, 2);
	assert_words(&d.tags, tags, 2);
	assert_int_equal(d.help, 0);
	assert_int_equal(d.scan.nr, 0);
	dest_release(&d);
	sbuf_release(&err);
}

/* Every field the table names holds its type's unset value. */
static void assert_unset(const struct dest *d)
{
	assert_int_equal(d->quiet, 0);	       /* OPT_BOOL */
	assert_int_equal(d->runs, -1);	       /* OPT_COUNT */
	assert_null(d->shell);		       /* OPT_STRING */
	assert_null(d->format);		       /* OPT_ENUM */
	assert_int_equal(d->seed.given, 0);    /* OPT_SEED */
	assert_int_equal(d->seed.value, 0);
	const struct strvec *lists[] = { &d->args, &d->tags, &d->scan, &d->lists,
					 &d->names, &d->exports };
	for (size_t i = 0; i < sizeof(lists) / sizeof(lists[0]); i++) {
		assert_int_equal(lists[i]->nr, 0); /* LIST, APPEND(_NAMED), args */
		assert_non_null(lists[i]->v);
		assert_null(lists[i]->v[0]);
	}
	assert_int_equal(d->help, 0);
}

/* The unset values come from walking the table: whatever the struct held
   before, each field an entry names is set by its type, and a field no
   entry names is left alone. */
static void test_defaults_from_table(void **state)
{
	(void)state;
	struct dest d;
	memset(&d, 0x5a, sizeof(d));
	opts_defaults(table, &layout, &d);
	assert_unset(&d);
	int garbage;
	memset(&garbage, 0x5a, sizeof(garbage));
	assert_int_equal(d.untabled, garbage);

	/* a count no option gave stays -1 after parsing: "unset", not 0 */
	struct sbuf err = SBUF_INIT;
	dest_init(&d);
	assert_int_equal(parse(&d, &err, "--quiet", (char *)NULL), 0);
	assert_int_equal(d.runs, -1);
	assert_int_equal(d.quiet, 1);
	dest_release(&d);
	sbuf_release(&err);
}

/* Every type holding memory, given (some twice, so the first value is
   replaced), is freed by opts_release() — ASan's leak check says so in the
   _asan variant — and left unset, so a second release is harmless; the
   OPT_APPEND_NAMED entries share one list, which is freed once. */
static void test_release_every_type(void **state)
{
	(void)state;
	struct dest d;
	struct sbuf err = SBUF_INIT;
	dest_init(&d);
	assert_int_equal(parse(&d, &err, "--quiet", "-r", "4", "--shell", "bash", "-N",
			       "--tag", "a,b", "--tag", "c", "-P", "x", "1", "9",
			       "-L", "y", "p,q", "-n", "one", "--export-json", "a.json",
			       "--export-csv", "b.csv", "--seed", "42", "--format", "json",
			       "--format", "table", "pos1", "pos2", "--help", (char *)NULL),
			 0);
	assert_string_equal(d.shell, "none");
	assert_string_equal(d.format, "table");
	assert_int_equal(d.tags.nr, 3);
	assert_int_equal(d.exports.nr, 4);
	assert_int_equal(d.args.nr, 2);
	assert_int_equal(d.help, 1);
	assert_int_equal(d.seed.value, 42);
	opts_release(table, &layout, &d);
	assert_unset(&d);
	opts_release(table, &layout, &d); /* twice: nothing left to free */
	assert_unset(&d);
	sbuf_release(&err);
}

/* One use of o in argv (its name, then a value of its type per argument). */
static void push_use(struct strvec *argv, const struct opt *o)
{
	strvec_pushf(argv, "--%s", o->name);
	for (size_t k = 0; k < opts_nargs(o); k++) {
		if (o->type == OPT_COUNT || o->type == OPT_SEED)
			strvec_push(argv, "3");
		else if (o->choices) /* the first choice */
			strvec_pushf(argv, "%.*s", (int)strcspn(o->choices, "|"), o->choices);
		else
			strvec_pushf(argv, "v%zu", k);
	}
}

/* Every command's own struct, as cmd_exec() leads it: each option given
   twice and a positional argument, then released by the table alone —
   under ASan, a field the release missed is a leak. */
static void test_every_command_releases(void **state)
{
	(void)state;
	const struct opts_layout cl = {
		.args = offsetof(struct cli_common, args),
		.help = offsetof(struct cli_common, help),
	};
	size_t nr = 0;
	for (size_t i = 0; cmd_at(i); i++) {
		const struct cmd_entry *e = cmd_at(i);
		static const struct opt none[] = { { NULL, 0, 0, NULL, NULL, NULL } };
		const struct opt *t = e->opts ? e->opts : none;
		size_t size = e->cli_size ? e->cli_size : sizeof(struct cli_common);
		assert_true(size >= sizeof(struct cli_common));
		struct strvec argv = STRVEC_INIT;
		for (const struct opt *o = t; o->name; o++) {
			assert_true(o->offset < size); /* the entry lies in the struct */
			push_use(&argv, o);
			push_use(&argv, o);
		}
		strvec_push(&argv, "PATH");
		void *cli = xcalloc(1, size);
		struct sbuf err = SBUF_INIT;
		opts_defaults(t, &cl, cli);
		int rc = opts_parse_aliased(t, e->aliases, &cl, (int)argv.nr,
					    (char **)argv.v, cli, &err);
		if (rc)
			fail_msg("kagari %s: %s", e->name, err.buf);
		assert_int_equal(((struct cli_common *)cli)->args.nr, 1);
		opts_release(t, &cl, cli);
		assert_int_equal(((struct cli_common *)cli)->args.nr, 0);
		free(cli);
		sbuf_release(&err);
		strvec_clear(&argv);
		nr++;
	}
	assert_true(nr >= 17);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_nargs),
		cmocka_unit_test(test_append_repeats),
		cmocka_unit_test(test_append_takes_dashes),
		cmocka_unit_test(test_append_named_order),
		cmocka_unit_test(test_aliases),
		cmocka_unit_test(test_errors),
		cmocka_unit_test(test_dashdash),
		cmocka_unit_test(test_defaults_from_table),
		cmocka_unit_test(test_release_every_type),
		cmocka_unit_test(test_every_command_releases),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
