/*
 * report/syscall_names: the system calls by name that every format shows
 * under a command measured with `metrics.syscalls` — on a compare, the
 * names whose median count per run changed most from base to head
 * ("write 200 → 400"); on a one-sided run, the most frequent names.
 */
#ifndef KAGARI_REPORT_SYSCALL_NAMES_H
#define KAGARI_REPORT_SYSCALL_NAMES_H

#include <stddef.h>

struct command_result;
struct sbuf;

/* Rows shown per command by the text formats; JSON lists more. */
#define SYSCALL_ROWS 5
#define SYSCALL_ROWS_JSON 20

struct syscall_row {
	const char *name;  /* borrowed from the command's sides */
	double base, head; /* median count per run; 0 when the side made none */
};

/*
 * Up to max rows into rows[]: compare (both sides have names): the names
 * whose count changed, by the size of the change (largest first; ties by
 * name); one side: the head's names by count. *two says which. Returns
 * how many; 0 when the command has no names.
 */
size_t report_syscall_rows(const struct command_result *c, size_t max, struct syscall_row *rows,
			   int *two);

/*
 * The rows as one line: "write 200 → 400, openat 3 → 5" (compare; "no
 * call changed its count" when none did) or "write 200, read 3" (one
 * side). Appends nothing and returns 0 when the command has no names.
 * ascii: "->" for the arrow.
 */
int report_syscall_line(struct sbuf *out, const struct command_result *c, size_t max, int ascii);

struct run_result;

/*
 * Markdown (the markdown and github formats): a "System calls" heading and
 * one bullet per command with names — on a compare only the commands whose
 * counts changed — "- **bench / command**: write 200 → 400, ...".
 */
void report_syscall_markdown(struct sbuf *out, const struct run_result *r, size_t max);

#endif
