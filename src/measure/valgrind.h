/*
 * measure/valgrind: instruction counts from valgrind's cachegrind, for
 * machines without hardware counters and for near-exact comparisons.
 *
 * A measured command is wrapped as
 *
 *   valgrind --tool=cachegrind --cache-sim=no --branch-sim=no
 *            --trace-children=yes --cachegrind-out-file=DIR/cg.%p
 *            --log-file=DIR/vg.%p.log ARGV...
 *
 * so that every process of its tree that runs to completion (an exec'd
 * program gets its own instance) writes one cg.PID file into the private
 * folder DIR; the `summary:` lines of all of them are summed into the
 * metric `instructions` (guest instructions, Ir). valgrind's own messages
 * go to the vg.*.log files, never to the program's stderr. Notes: a child
 * forked without exec inherits its parent's counts up to the fork (so the
 * sum counts those twice, the same way every run); counts depend on the
 * sizes of the environment and argv and on path lengths, which is why the
 * engine runs both sides with equal-length paths (execute.c).
 *
 * Call order:
 *   valgrind_probe(NULL, &path, &version, &err)  once; -1: not installed
 *   per run: empty DIR, valgrind_wrap_argv(path, argv, DIR, &wrapped), run it,
 *            valgrind_read_dir(DIR, &ir, &files, &err)
 */
#ifndef KAGARI_MEASURE_VALGRIND_H
#define KAGARI_MEASURE_VALGRIND_H

#include <stddef.h>
#include <stdint.h>

struct sbuf;
struct strvec;

/* How much longer than the command's timeout a valgrind run may take. */
#define VALGRIND_TIMEOUT_FACTOR 50

/*
 * Find `valgrind` on path_env (a PATH value; NULL: $PATH) into *path and
 * read its version ("3.19.0" from "valgrind-3.19.0") into *version (both
 * allocated, the caller frees them). Returns 0, or -1 with a reason (not
 * installed, with the install hint; or it did not run) in err; both are
 * then NULL.
 */
int valgrind_probe(const char *path_env, char **path, char **version, struct sbuf *err);

/* The version number in the first line of `valgrind --version`, or NULL. */
char *valgrind_parse_version(const char *text);

/*
 * Push the valgrind command line for argv (NULL-terminated) onto out;
 * `valgrind` is the program (valgrind_probe's path).
 */
void valgrind_wrap_argv(const char *valgrind, const char *const *argv, const char *dir,
			struct strvec *out);

/*
 * The instruction total of one cachegrind output file's text: its
 * `summary:` line (first event), or, without one, the sum of the first
 * event column of its cost lines. Returns 0, or -1 with a reason.
 */
int valgrind_parse_output(const char *text, uint64_t *ir, struct sbuf *err);

/*
 * Sum the totals of every cg.* file in dir into *ir; *files is how many
 * there were (0 is not an error here). Returns 0, or -1 with a reason.
 */
int valgrind_read_dir(const char *dir, uint64_t *ir, size_t *files, struct sbuf *err);

/* Remove every file in dir (not dir itself). Returns 0 or -1 with a reason. */
int valgrind_clear_dir(const char *dir, struct sbuf *err);

#endif
