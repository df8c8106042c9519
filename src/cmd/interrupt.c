/*
 * cmd/interrupt: SIGINT/SIGTERM while measuring — the handler sets a flag
 * and forwards the interrupt to the runner (interrupt.h).
 */
#include "cmd/interrupt.h"

#include <string.h>
#include <unistd.h>

#include "proc/proc.h"
#include "measure/runner.h"

volatile sig_atomic_t interrupt_requested;
static const struct runner *volatile forward_to;

static void on_signal(int sig)
{
	if (interrupt_requested) {
		static const char msg[] = "kagari: second signal, exiting at once\n";
		(void)!write(2, msg, sizeof(msg) - 1);
		_exit(4);
	}
	interrupt_requested = sig;
	if (forward_to)
		runner_interrupt(forward_to);
}

void interrupt_install(const struct runner *runner)
{
	forward_to = runner;
	struct sigaction sa;
	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = on_signal;
	sigemptyset(&sa.sa_mask);
	/* Every signal that would end us by default, not just the terminal's
	   two: a hang-up, SIGQUIT, a CPU or file-size limit or a stray kill
	   would otherwise leave temporary folders, a registered worktree and
	   no report. */
	for (const int *sig = proc_fatal_signals; *sig; sig++)
		sigaction(*sig, &sa, NULL);
}

void interrupt_uninstall(void)
{
	for (const int *sig = proc_fatal_signals; *sig; sig++)
		signal(*sig, SIG_DFL);
	forward_to = NULL;
}
