/*
 * cmd/interrupt: SIGINT/SIGTERM while measuring — the handler sets a flag
 * and forwards the interrupt to the runner (interrupt.h).
 */
#include "cmd/interrupt.h"

#include <string.h>
#include <unistd.h>

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
	sigaction(SIGINT, &sa, NULL);
	sigaction(SIGTERM, &sa, NULL);
}

void interrupt_uninstall(void)
{
	signal(SIGINT, SIG_DFL);
	signal(SIGTERM, SIG_DFL);
	forward_to = NULL;
}
