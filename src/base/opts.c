#include "base/opts.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "base/sbuf.h"
#include "base/xalloc.h"

void cli_init(struct cli *c)
{
	memset(c, 0, sizeof(*c));
	strvec_init(&c->tags);
	strvec_init(&c->skip_tags);
	strvec_init(&c->args);
	c->runs = -1;
	c->warmup = -1;
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
	strvec_clear(&c->tags);
	strvec_clear(&c->skip_tags);
	strvec_clear(&c->args);
	cli_init(c);
}

size_t opts_edit_distance(const char *a, const char *b)
{
	size_t la = strlen(a), lb = strlen(b);
	size_t *row = xcalloc(lb + 1, sizeof(*row));
	for (size_t j = 0; j <= lb; j++)
		row[j] = j;
	for (size_t i = 1; i <= la; i++) {
		size_t diag = row[0];
		row[0] = i;
		for (size_t j = 1; j <= lb; j++) {
			size_t up = row[j];
			size_t best = diag + (a[i - 1] != b[j - 1]);
			if (up + 1 < best)
				best = up + 1;
			if (row[j - 1] + 1 < best)
				best = row[j - 1] + 1;
			row[j] = best;
			diag = up;
		}
	}
	size_t d = row[lb];
	free(row);
	return d;
}

static const struct opt *find_opt(const struct opt *table, const char *name,
				  size_t len)
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
		size_t d = opts_edit_distance(name, table->name);
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

static int set_value(const struct opt *o, const char *v, struct cli *c,
		     struct sbuf *err)
{
	char *base = (char *)c + o->offset;
	switch (o->type) {
	case OPT_BOOL:
		*(int *)base = 1;
		return 0;
	case OPT_ENUM:
		if (!choice_ok(o->choices, v)) {
			sbuf_addf(err, "invalid value '%s' for '--%s': expected one of %s",
				  v, o->name, o->choices);
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
	case OPT_COUNT: {
		char *end;
		errno = 0;
		long n = strtol(v, &end, 10);
		if (!*v || *end || errno || n < 0 || n > 1000000) {
			sbuf_addf(err, "invalid value '%s' for '--%s': expected a whole number from 0 to 1000000",
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
			sbuf_addf(err, "invalid value '%s' for '--%s': expected an unsigned integer",
				  v, o->name);
			return -1;
		}
		unsigned long long n = strtoull(v, &end, 10);
		if (*end || errno) {
			sbuf_addf(err, "invalid value '%s' for '--%s': expected an unsigned integer",
				  v, o->name);
			return -1;
		}
		c->seed = (uint64_t)n;
		c->have_seed = 1;
		return 0;
	}
	}
	return -1;
}

int opts_parse(const struct opt *table, int argc, char **argv, struct cli *c,
	       struct sbuf *err)
{
	int flags_done = 0;
	for (int i = 0; i < argc; i++) {
		const char *a = argv[i];
		if (flags_done || a[0] != '-' || !strcmp(a, "-")) {
			strvec_push(&c->args, a);
			continue;
		}
		if (!strcmp(a, "--")) {
			flags_done = 1;
			continue;
		}
		if (!strcmp(a, "-h") || !strcmp(a, "--help")) {
			c->help = 1;
			continue;
		}
		if (a[1] != '-') {
			sbuf_addf(err, "unknown option '%s'", a);
			return -1;
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
		const char *value = NULL;
		if (o->type == OPT_BOOL) {
			if (eq) {
				sbuf_addf(err, "option '--%s' takes no value", o->name);
				return -1;
			}
		} else if (eq) {
			value = eq + 1;
		} else if (i + 1 < argc) {
			value = argv[++i];
		} else {
			sbuf_addf(err, "option '--%s' needs a value (%s)", o->name,
				  o->arg ? o->arg : "VALUE");
			return -1;
		}
		if (set_value(o, value, c, err))
			return -1;
	}
	return 0;
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
