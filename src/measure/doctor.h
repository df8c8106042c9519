/*
 * measure/doctor: examine what this machine can measure and how well, for
 * `kagari doctor`: performance counters (perf_event_paranoid, each event
 * tried for real), where counter metrics would come from, sampling,
 * valgrind, the allocation shim, the runner program, the CPU, its
 * frequency governor and turbo, ASLR, the load, and whether stdout is a
 * terminal. Every finding is a line of model/doctor.h with what to do
 * about it. Reads the machine; prints nothing.
 */
#ifndef KAGARI_MEASURE_DOCTOR_H
#define KAGARI_MEASURE_DOCTOR_H

#include "model/doctor.h"

/* What cmd/ knows of the environment (its struct cmd_env). */
struct doctor_inputs {
	int counters_software;	/* KAGARI_TEST_COUNTERS_SOFTWARE */
	const char *alloc_shim; /* KAGARI_ALLOC_SHIM, or NULL */
	int stdout_tty;
};

void doctor_examine(struct doctor *d, const struct doctor_inputs *env);

#endif
