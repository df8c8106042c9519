/*
 * base/opts: the option tables' parser, in particular the options that
 * take several arguments and repeat (OPT_APPEND, OPT_APPEND_NAMED) and the
 * short spellings (struct opt_alias) that `kagari bench` parses hyperfine's
 * -P NAME MIN MAX, -L NAME LIST, -n NAME and -N with.
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

struct dest {
	struct strvec args;
	int help;
	uint64_t seed;
	int have_seed;
	int quiet;
	int runs;
	char *shell;
	struct strvec tags;   /* OPT_LIST */
	struct strvec scan;   /* OPT_APPEND, 3 */
	struct strvec lists;  /* OPT_APPEND, 2 */
	struct strvec names;  /* OPT_APPEND, 1 */
	struct strvec exports; /* OPT_APPEND_NAMED, shared */
};

static const struct opts_layout layout = {
	.args = offsetof(struct dest, args),
	.help = offsetof(struct dest, help),
	.seed = offsetof(struct dest, seed),
	.have_seed = offsetof(struct dest, have_seed),
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
	{ "seed", OPT_SEED, 0, "N", "seed", NULL },
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

static void dest_init(struct dest *d)
{
	memset(d, 0, sizeof(*d));
	strvec_init(&d->args);
	strvec_init(&d->tags);
	strvec_init(&d->scan);
	strvec_init(&d->lists);
	strvec_init(&d->names);
	strvec_init(&d->exports);
	d->runs = -1;
}

static void dest_release(struct dest *d)
{
	strvec_clear(&d->args);
	strvec_clear(&d->tags);
	strvec_clear(&d->scan);
	strvec_clear(&d->lists);
	strvec_clear(&d->names);
	strvec_clear(&d->exports);
	free(d->shell);
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
	assert_int_equal(d.have_seed, 1);
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
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
