/*
 * measure/preflight: what would otherwise fail in the middle of a run,
 * checked before anything runs, every problem at once. Each problem is a
 * message pushed to `errors` (FILE:LINE:COL where the suite has one); the
 * return is the exit code to stop with (model/exit.h), 0 when none.
 */
#ifndef KAGARI_MEASURE_PREFLIGHT_H
#define KAGARI_MEASURE_PREFLIGHT_H

#include "suite/select.h"

struct strvec;

/*
 * A counter, allocation or system-call metric this machine cannot measure (no perf, no
 * valgrind, no allocation shim: execute_metric_unsupported()) fails the
 * run before anything runs (EXIT_UNSUPPORTED) when it is required: named
 * in `counters: [..]`, `allocations: true`, under `regression:` or in a
 * budget — unless `unsupported: skip`. counters_software and alloc_shim
 * are struct execute_instruments' counters_software and shim_override.
 */
int preflight_instruments(const struct loaded_suites *ls, int counters_software,
			  const char *alloc_shim, struct strvec *errors);
/*
 * A working folder or stdin file that does not exist (EXIT_INVALID: the
 * suite points at nothing), a program that is not there or not
 * executable (EXIT_EXEC). Values with variables are left to run time.
 */
int preflight_paths(const struct loaded_suites *ls, struct strvec *errors);

#endif
