/*
 * report/counted_functions: the functions whose valgrind counts changed
 * most, base → head, that every format shows under a command measured with
 * --profile (or metrics.profile) and a valgrind instrument — exact counts
 * from the cachegrind runs already made, beside the sampled profile.
 */
#ifndef KAGARI_REPORT_COUNTED_FUNCTIONS_H
#define KAGARI_REPORT_COUNTED_FUNCTIONS_H

#include <stddef.h>

struct command_result;
struct run_result;
struct sbuf;

#define COUNTED_FN_ROWS 5
#define COUNTED_FN_ROWS_JSON 20

struct counted_fn_row {
	const char *name; /* borrowed */
	/* instructions and estimated cycles per side; 0 when the side did
	   not list the function, NAN estimated cycles without the cache
	   simulation */
	double ir[2], est[2]; /* [0] base, [1] head */
};

/*
 * Up to max rows: compare (both sides have functions): the functions whose
 * count changed, by the size of the change in estimated cycles (in
 * instructions without them), largest first, ties by name; one side: the
 * head's functions by instructions. *two says which. Returns how many.
 */
size_t report_counted_fn_rows(const struct command_result *c, size_t max,
			      struct counted_fn_row *rows, int *two);

/*
 * One row as text: "NAME 3000000 → 3090000 instructions (+3.0%),
 * 3100000 → 3195000 estimated cycles (+3.1%)" (one side: "NAME 3000000
 * instructions, 3100000 estimated cycles").
 */
void report_counted_fn_text(struct sbuf *out, const struct counted_fn_row *row, int two);

/* Markdown: a heading and one bullet per command with rows. */
void report_counted_fn_markdown(struct sbuf *out, const struct run_result *r, size_t max);

#endif
