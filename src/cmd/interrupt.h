/*
 * cmd/interrupt: the first SIGINT/SIGTERM asks kagari to stop (the runner
 * stops the running command's process group, cleanup hooks run, a partial
 * report marked `interrupted` is written, exit 4); a second one exits at
 * once with status 4.
 */
#ifndef KAGARI_CMD_INTERRUPT_H
#define KAGARI_CMD_INTERRUPT_H

#include <signal.h>

struct runner;

extern volatile sig_atomic_t interrupt_requested;

/*
 * Install the handlers. The runner sits in its own process group (a
 * terminal's Ctrl-C reaches only kagari), so the signal is forwarded to it
 * with runner_interrupt(); `runner` may be NULL.
 */
void interrupt_install(const struct runner *runner);
/* Restore default dispositions. */
void interrupt_uninstall(void);

#endif
