/*
 * cmd/interrupt: the first signal that would end kagari by default
 * (SIGINT, SIGTERM, SIGHUP, SIGQUIT, SIGXCPU, SIGXFSZ, ...: the list is
 * proc_fatal_signals) asks kagari to stop (the runner stops the running
 * command's process group, cleanup hooks run, a partial report marked
 * `interrupted` is written, temporary folders and the base worktree are
 * removed, exit 4); a second one exits at once with status 4. SIGPIPE is
 * ignored (main.c): a report written to a closed pipe fails with EPIPE,
 * which ends the same way (exit 4, cleanup done).
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
/* Restore default dispositions (after the last cleanup). */
void interrupt_uninstall(void);

#endif
