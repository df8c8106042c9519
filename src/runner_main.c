/*
 * kagari-runner: the runner process as a program of its own (see
 * measure/runner.h). kagari forks and execs it first thing; a fresh process
 * image this small keeps the peak RSS it passes on to every measured command
 * (the kernel carries a vfork parent's high-water mark into the child)
 * below that of the smallest programs. Built statically, it maps no shared
 * libraries. Not meant to be run by hand.
 */
#include "measure/runner.h"

int main(int argc, char **argv)
{
	return runner_program_main(argc, argv);
}
