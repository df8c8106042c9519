/*
 * base/opts: command-line option tables (opts.h) — lookup with a "did you
 * mean" hint, value parsing per type, the parser itself, and the aligned
 * help lines, and the defaults and release of the struct the table fills.
 * It knows no command's flags: cmd/ passes each command's own struct.
 */
#include "base/opts.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "base/sbuf.h"
#include "base/suggest.h"
#include "base/xalloc.h"

static const struct opt *find_opt(const struct opt *table, const char *name, size_t len)
{
	for (; table->name; table++)
		if (strlen(table->name) == len && !strncmp(table->name, name, len))
			return table;
	return NULL;
}

static void suggest(const struct opt *table, const char *name, struct sbuf *err)
{
	const char *best = NULL;
	size_t best_d = 3;
	for (; table->name; table++) {
		size_t d = suggest_distance(name, table->name);
		if (d < best_d) {
			best_d = d;
			best = table->name;
		}
	}
	if (best)
		sbuf_addf(err, " (did you mean '--%s'?)", best);
}

static int choice_ok(const char *choices, const char *v)
{
	size_t n = strlen(v);
	const char *p = choices;
	while (*p) {
		const char *bar = strchr(p, '|');
		size_t len = bar ? (size_t)(bar - p) : strlen(p);
		if (len == n && !strncmp(p, v, n))
			return 1;
		if (!bar)
			break;
		p = bar + 1;
	}
	return 0;
}

/* One use of an OPT_APPEND(_NAMED) option: its name (when named), then its
   n values. */
static void append_values(const struct opt *o, char *const *v, size_t n, void *dest)
{
	struct strvec *sv = (struct strvec *)((char *)dest + o->offset);
	if (o->type == OPT_APPEND_NAMED)
		strvec_push(sv, o->name);
	for (size_t k = 0; k < n; k++)
		strvec_push(sv, v[k]);
}

static int set_value(const struct opt *o, const char *v, void *dest, struct sbuf *err)
{
	char *base = (char *)dest + o->offset;
	switch (o->type) {
	case OPT_BOOL:
		*(int *)base = 1;
		return 0;
	case OPT_ENUM:
		if (!choice_ok(o->choices, v)) {
			sbuf_addf(err, "invalid value '%s' for '--%s': expected one of %s", v,
				  o->name, o->choices);
			return -1;
		}
		/* fallthrough */
	case OPT_STRING: {
		char **dst = (char **)base;
		free(*dst);
		*dst = xstrdup(v);
		return 0;
	}
	case OPT_LIST: {
		struct strvec *sv = (struct strvec *)base;
		const char *p = v;
		for (;;) {
			const char *comma = strchr(p, ',');
			size_t len = comma ? (size_t)(comma - p) : strlen(p);
			if (len)
				strvec_push_take(sv, xstrndup(p, len));
			if (!comma)
				break;
			p = comma + 1;
		}
		return 0;
	}
	case OPT_APPEND:
	case OPT_APPEND_NAMED: {
		char *one = (char *)v;
		append_values(o, &one, 1, dest);
		return 0;
	}
	case OPT_COUNT: {
		char *end;
		errno = 0;
		long n = strtol(v, &end, 10);
		if (!*v || *end || errno || n < 0 || n > 1000000) {
			sbuf_addf(err,
				  "invalid value '%s' for '--%s': expected a whole number from 0 "
				  "to 1000000",
				  v, o->name);
			return -1;
		}
		*(int *)base = (int)n;
		return 0;
	}
	case OPT_SEED: {
		char *end;
		errno = 0;
		if (!*v || *v == '-') {
			sbuf_addf(err,
				  "invalid value '%s' for '--%s': expected an unsigned integer", v,
				  o->name);
			return -1;
		}
		unsigned long long n = strtoull(v, &end, 10);
		if (*end || errno) {
			sbuf_addf(err,
				  "invalid value '%s' for '--%s': expected an unsigned integer", v,
				  o->name);
			return -1;
		}
		struct opts_seed *seed = (struct opts_seed *)base;
		seed->value = (uint64_t)n;
		seed->given = 1;
		return 0;
	}
	}
	return -1;
}

size_t opts_nargs(const struct opt *o)
{
	if (o->type == OPT_BOOL)
		return 0;
	if (o->type != OPT_APPEND && o->type != OPT_APPEND_NAMED)
		return 1;
	/* the words of the help placeholder: "NAME MIN MAX" takes three */
	size_t n = 0;
	for (const char *p = o->arg ? o->arg : "V"; *p; p++)
		if (*p != ' ' && (p[1] == ' ' || !p[1]))
			n++;
	return n ? n : 1;
}

static const struct opt_alias *find_alias(const struct opt_alias *aliases, const char *a)
{
	for (; aliases && aliases->alias; aliases++)
		if (!strcmp(aliases->alias, a))
			return aliases;
	return NULL;
}

/*
 * The option argv[*i] (spelled `spell`: --NAME or an alias) stands for o,
 * with the value after '=' in `inl` (or NULL): take its values from inl or
 * from the arguments that follow, advancing *i past them, and store them.
 */
static int take_option(const struct opt *o, const char *spell, const char *inl, int *i, int argc,
		       char **argv, void *dest, struct sbuf *err)
{
	size_t n = opts_nargs(o);
	if (n == 0) {
		if (inl) {
			sbuf_addf(err, "option '%s' takes no value", spell);
			return -1;
		}
		return set_value(o, NULL, dest, err);
	}
	if (inl && n > 1) {
		sbuf_addf(err, "option '%s' takes %zu values (%s), not '=%s'", spell, n, o->arg,
			  inl);
		return -1;
	}
	if (inl)
		return set_value(o, inl, dest, err);
	if ((size_t)(argc - 1 - *i) < n) {
		if (n == 1)
			sbuf_addf(err, "option '%s' needs a value (%s)", spell,
				  o->arg ? o->arg : "VALUE");
		else
			sbuf_addf(err, "%s needs %s (%zu values)", spell, o->arg, n);
		return -1;
	}
	char **v = argv + *i + 1;
	*i += (int)n;
	if (n > 1) {
		append_values(o, v, n, dest);
		return 0;
	}
	return set_value(o, v[0], dest, err);
}

/* An argument that starts with one '-' (or is an alias): an alias, or an
   error. */
static int take_alias(const struct opt *table, const struct opt_alias *aliases, int *i, int argc,
		      char **argv, void *dest, struct sbuf *err)
{
	const char *a = argv[*i];
	const struct opt_alias *al = find_alias(aliases, a);
	const struct opt *o = al ? find_opt(table, al->name, strlen(al->name)) : NULL;
	if (!o) {
		sbuf_addf(err, "unknown option '%s'", a);
		return -1;
	}
	if (!al->value)
		return take_option(o, a, NULL, i, argc, argv, dest, err);
	return set_value(o, al->value, dest, err);
}

int opts_parse_aliased(const struct opt *table, const struct opt_alias *aliases,
		       const struct opts_layout *layout, int argc, char **argv, void *dest,
		       struct sbuf *err)
{
	struct strvec *args = (struct strvec *)((char *)dest + layout->args);
	int flags_done = 0;
	for (int i = 0; i < argc; i++) {
		const char *a = argv[i];
		if (flags_done || a[0] != '-' || !strcmp(a, "-")) {
			strvec_push(args, a);
			continue;
		}
		if (!strcmp(a, "--")) {
			flags_done = 1;
			continue;
		}
		if (!strcmp(a, "-h") || !strcmp(a, "--help")) {
			*(int *)((char *)dest + layout->help) = 1;
			continue;
		}
		if (a[1] != '-' || find_alias(aliases, a)) {
			if (take_alias(table, aliases, &i, argc, argv, dest, err))
				return -1;
			continue;
		}
		const char *name = a + 2;
		const char *eq = strchr(name, '=');
		size_t len = eq ? (size_t)(eq - name) : strlen(name);
		const struct opt *o = find_opt(table, name, len);
		if (!o) {
			char *n = xstrndup(name, len);
			sbuf_addf(err, "unknown option '--%s'", n);
			suggest(table, n, err);
			free(n);
			return -1;
		}
		char *spell = xstrfmt("--%s", o->name);
		int rc = take_option(o, spell, eq ? eq + 1 : NULL, &i, argc, argv, dest, err);
		free(spell);
		if (rc)
			return -1;
	}
	return 0;
}

int opts_parse(const struct opt *table, const struct opts_layout *layout, int argc, char **argv,
	       void *dest, struct sbuf *err)
{
	return opts_parse_aliased(table, NULL, layout, argc, argv, dest, err);
}

void opts_help(const struct opt *table, struct sbuf *out)
{
	size_t width = 0;
	for (const struct opt *o = table; o->name; o++) {
		size_t w = strlen(o->name) + 2 + (o->arg ? strlen(o->arg) + 1 : 0);
		if (w > width)
			width = w;
	}
	for (const struct opt *o = table; o->name; o++) {
		size_t start = out->len;
		sbuf_addf(out, "  --%s", o->name);
		if (o->arg)
			sbuf_addf(out, " %s", o->arg);
		size_t used = out->len - start;
		sbuf_addchars(out, ' ', width + 4 - used);
		sbuf_addf(out, "%s\n", o->help);
	}
}

/* Unset o's field, freeing what it holds when `owned` (not after a fresh
   zeroed struct, where nothing is). */
static void unset(const struct opt *o, void *dest, int owned)
{
	char *base = (char *)dest + o->offset;
	switch (o->type) {
	case OPT_BOOL:
		*(int *)base = 0;
		break;
	case OPT_COUNT:
		*(int *)base = -1;
		break;
	case OPT_STRING:
	case OPT_ENUM:
		if (owned)
			free(*(char **)base);
		*(char **)base = NULL;
		break;
	case OPT_LIST:
	case OPT_APPEND:
	case OPT_APPEND_NAMED:
		if (owned)
			strvec_clear((struct strvec *)base);
		else
			strvec_init((struct strvec *)base);
		break;
	case OPT_SEED: {
		struct opts_seed *seed = (struct opts_seed *)base;
		seed->value = 0;
		seed->given = 0;
		break;
	}
	}
}

static void unset_all(const struct opt *table, const struct opts_layout *layout, void *dest,
		      int owned)
{
	for (const struct opt *o = table; o && o->name; o++)
		unset(o, dest, owned);
	if (!layout)
		return;
	struct strvec *args = (struct strvec *)((char *)dest + layout->args);
	if (owned)
		strvec_clear(args);
	else
		strvec_init(args);
	*(int *)((char *)dest + layout->help) = 0;
}

void opts_defaults(const struct opt *table, const struct opts_layout *layout, void *dest)
{
	unset_all(table, layout, dest, 0);
}

void opts_release(const struct opt *table, const struct opts_layout *layout, void *dest)
{
	unset_all(table, layout, dest, 1);
}
