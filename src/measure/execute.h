/*
 * execute: measure the selected benchmarks of one suite, for one side
 * (`run`) or two (`compare`), filling the result model.
 *
 * Call order: fill a `struct execute_options` and one `struct execute_side`
 * per side (build first with execute_build() when the suite has `build`),
 * then execute_suite(). Per benchmark and side it makes a fresh ${workdir},
 * runs `setup`, then the rounds of plan.h (warm-up rounds first, discarded),
 * with `prepare_each` before every run, and `cleanup` at the end — also
 * after a failure or an interrupt. A unit (side, command) whose run fails
 * (exit status outside `exit_codes`, a signal, a timeout, a command that
 * cannot start) drops out of later rounds; the failure is recorded on the
 * command result with the masked stderr tail. Nothing here prints.
 */
#ifndef KAGARI_MEASURE_EXECUTE_H
#define KAGARI_MEASURE_EXECUTE_H

#include <signal.h>
#include <stdint.h>

#include "report/result.h"
#include "suite/model.h"

struct runner;
struct sbuf;

struct execute_side {
	int present;
	const char *root;      /* this side's repository root (absolute) */
	const char *head_root; /* the head side's root */
	const char *artifact;  /* built program, or NULL without `build` */
	const char *tmpdir;    /* private folder for this side's workdirs */
};

/* Progress callback: called before each measured or warm-up round. */
typedef void execute_progress_fn(void *data, const char *bench,
				 int round, int total_rounds, int warmup);

struct execute_options {
	struct runner *runner;
	uint64_t seed;
	int runs_override;   /* -1: the suite's value */
	int warmup_override; /* -1: the suite's value */
	volatile sig_atomic_t *interrupted; /* set by the signal handler */
	execute_progress_fn *progress;
	void *progress_data;
};

/*
 * Run the suite's `build` for one side. Returns 0, or -1 with the reason
 * (exit status, stderr tail) in err.
 */
int execute_build(const struct suite *s, const struct execute_side *side,
		  const struct execute_options *o, struct sbuf *err);

/*
 * Measure benchmarks whose `selected[i]` is non-zero into out (which must
 * be zeroed; its strings are allocated). Returns 0 when measuring took
 * place (failures of commands are in the result), -1 when interrupted.
 */
int execute_suite(const struct suite *s, const unsigned char *selected,
		  const struct execute_side sides[SIDE__COUNT],
		  const struct execute_options *o, struct suite_result *out);

/* The display form of a command: argv joined with shell quoting as needed. */
char *execute_command_display(const struct exec_spec *e);

#endif
