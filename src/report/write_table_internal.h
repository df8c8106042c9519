/*
 * report/write_table_internal: what the two writers of the `table` format
 * share — kagari's table (write_table.c) and bench's hyperfine layout
 * (write_table_bench.c): the colours, the collected lines of a block, and
 * the helpers that make user text safe for a terminal.
 */
#ifndef KAGARI_REPORT_WRITE_TABLE_INTERNAL_H
#define KAGARI_REPORT_WRITE_TABLE_INTERNAL_H

#include <stddef.h>

#include "base/sbuf.h"
#include "model/result.h"
#include "report/report.h"

enum tcolor { TC_NONE, TC_GREEN, TC_RED, TC_YELLOW, TC_BOLD, TC_DIM };

#define TABLE_MAX_CELLS 8
#define TABLE_GROUPS 3
#define GROUP_TEXT (-1)
#define GROUP_METRICS 0
#define GROUP_COMPARE 1
#define GROUP_PROFILE 2
#define PROFILE_ROWS 8

/* One output line of a benchmark block: free text or a row of cells. */
struct tline {
	int group;
	size_t indent;
	char *text; /* GROUP_TEXT: the whole line, colours included */
	size_t ncells;
	char *cell[TABLE_MAX_CELLS]; /* sanitised, without colour */
	enum tcolor color[TABLE_MAX_CELLS];
};

struct table {
	const struct run_result *r;
	const struct report_options *o;
	struct sbuf *out;
	struct tline *lines;
	size_t nr, alloc;
};

/* Append s[0..n) (or s) safe for a terminal: tabs become a space, other
   control characters `?`, invalid UTF-8 U+FFFD. */
void table_add_safe_len(struct sbuf *out, const char *s, size_t n);
void table_add_safe(struct sbuf *out, const char *s);
/* s in colour c when the report is coloured; _safe: of user text. */
void table_paint(const struct table *t, struct sbuf *out, enum tcolor c, const char *s);
void table_paint_safe(const struct table *t, struct sbuf *out, enum tcolor c, const char *s);
/* The colour of a command's, benchmark's or suite's result. */
enum tcolor table_result_tcolor(enum result res);
/* ", N what" (the first part without the comma); n = 0 only if always. */
void table_count_part(struct sbuf *sb, int n, const char *what, int always);
/* kagari bench's table (write_table_bench.c). */
void table_write_bench(struct table *t);

#endif
