/*
 * suite/select: the suites a command runs — found and loaded from the
 * paths on its command line — and the benchmarks of them that --filter,
 * --tag and --skip-tag select. cmd/common.h prints what fails.
 */
#ifndef KAGARI_SUITE_SELECT_H
#define KAGARI_SUITE_SELECT_H

#include <stddef.h>

#include "base/strvec.h"
#include "suite/model.h"

struct sbuf;

/* --filter RE, --tag T (any of them), --skip-tag T (none of them). */
struct suite_selection {
	char *filter;
	struct strvec tags;
	struct strvec skip_tags;
};

struct loaded_suites {
	struct suite **suites;
	size_t nr;
	/* selected[i][b]: benchmark b of suite i is selected */
	unsigned char **selected;
	size_t nr_selected; /* benchmarks selected in all */
};

/*
 * Discover and load every suite of paths (the positional arguments).
 * 0; -1 when the paths name no suite (the reason in err); -2 when a
 * suite is invalid (every error of every invalid suite in err, a line
 * each: FILE:LINE:COL: field: message). ls is filled with the valid ones
 * (suites_release() it in every case).
 */
int suites_load(const struct strvec *paths, struct loaded_suites *ls, struct sbuf *err);
/* The same for suite files (suite_discover()'s), without the -1. */
int suites_load_files(const struct strvec *files, struct loaded_suites *ls, struct sbuf *err);
/*
 * Apply sel (NULL selects everything) to ls. 0, or -1 with the reason in
 * err for a bad regex or when nothing is selected.
 */
int suites_select(const struct suite_selection *sel, struct loaded_suites *ls, struct sbuf *err);
/*
 * Put suite s (owned from now on) in place of suite i and select its
 * benchmarks by the same selection (sel, NULL: all); returns how many are
 * selected (0 is not an error here). sharded: --shard without --replicate
 * narrowed the selection. compare uses it to run the base commit's copy of
 * a suite.
 */
size_t suites_replace(const struct suite_selection *sel, int sharded, struct loaded_suites *ls,
		      size_t i, struct suite *s);
/*
 * The benchmarks of `other` that sel selects and `ran` has no benchmark
 * of that name: what running `ran` in its place leaves out (compare's two
 * copies of a suite). Their names go to out.
 */
void suites_left_out(const struct suite_selection *sel, const struct suite *ran,
		     const struct suite *other, struct strvec *out);
void suites_release(struct loaded_suites *ls);

#endif
