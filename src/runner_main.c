/*
 * kagari-runner: the runner process as a program of its own (see
 * measure/runner.h). kagari forks and execs it first thing; a fresh process
 * image this small keeps the peak RSS it passes on to every measured command
 * (the kernel carries a vfork parent's high-water mark into the child)
 * below that of the smallest programs. Built statically, it maps no shared
 * libraries. Not meant to be run by hand: it takes `--serve FD TOKEN`, as
 * runner_start() passes them.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "measure/runner.h"

int main(int argc, char **argv)
{
	char *end = NULL;
	long fd = argc == 4 ? strtol(argv[2], &end, 10) : -1;
	if (argc == 4 && !strcmp(argv[1], "--serve") && end && !*end && fd >= 0 && fd <= INT32_MAX)
		runner_serve((int)fd, argv[3]); /* returns only for a wrong token */
	fputs(RUNNER_PROGRAM ": internal helper of kagari, not to be run by hand\n", stderr);
	return 2;
}
