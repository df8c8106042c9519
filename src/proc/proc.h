/*
 * proc: the Linux-specific process plumbing behind child.c and the runner (runner.c,
 * runner_server.c).
 *
 * Everything here that touches prctl, /proc or pidfds lives in this one file
 * so the logic above it has no #ifdefs:
 *
 *   - signal names for messages ("killed by SIGSEGV");
 *   - making this process a child subreaper, so that descendants orphaned by
 *     a measured command (a daemon that called setsid, a grandchild whose
 *     parent died) are reparented to us instead of to init, where we can
 *     find, kill and reap them;
 *   - listing this process's children, and killing and reaping the ones that
 *     are not ours;
 *   - pidfd_open (a pollable handle on a child's exit);
 *   - the environment without git's repository variables;
 *   - the signals that end a process by default;
 *   - owner tags: who made a temporary thing, and whether it is gone;
 *   - masking secret environment values in text shown to users.
 *
 * Nothing here prints. Functions that can fail return -1 with errno set or
 * with a reason appended to `err`, as documented per function.
 */
#ifndef KAGARI_PROC_PROC_H
#define KAGARI_PROC_PROC_H

#include <stddef.h>
#include <sys/types.h>

struct sbuf;
struct strvec;

/*
 * The conventional name of a signal: "SIGSEGV", "SIGRTMIN+3". Never NULL: an
 * unknown number gives "SIG?". The string is static.
 */
const char *proc_signal_name(int sig);

/*
 * The number of a signal given by name, with or without the "SIG" prefix,
 * case-insensitive ("segv", "SIGKILL"), or by number ("9"). -1 if unknown.
 */
int proc_signal_number(const char *name);

/*
 * Make this process a child subreaper (prctl PR_SET_CHILD_SUBREAPER): orphans
 * among its descendants are reparented to it. The setting survives fork() in
 * neither direction (children do not inherit it) and is cleared by exec.
 * Returns 0, or -1 with a reason in err.
 */
int proc_become_subreaper(struct sbuf *err);

/* 1 if this process is a child subreaper, else 0. */
int proc_is_subreaper(void);

/*
 * Cheap test for "this process has no children at all, living or zombie":
 * returns 1 when it has none, 0 when it has some (or cannot tell).
 */
int proc_has_no_children(void);

/*
 * Append the pids of this process's direct children (of every thread) to
 * *pids (an ALLOC_GROW array with *nr elements and *alloc capacity). Uses
 * /proc/self/task/TID/children, falling back to a scan of /proc/PID/stat
 * when the kernel lacks that file. Returns 0, or -1 with errno set.
 */
int proc_list_children(pid_t **pids, size_t *nr, size_t *alloc);

/*
 * Kill (SIGKILL) and reap every child of this process whose pid is not in
 * keep[0..nkeep), repeating until none is left, so that the children of a
 * killed orphan (which are reparented to us in turn when we are a subreaper)
 * are caught too. Only call it when every child outside `keep` belongs to
 * the caller's finished run. Returns the number of processes reaped.
 */
int proc_reap_strays(const pid_t *keep, size_t nkeep);

/*
 * pidfd_open(2) for a child: a descriptor (O_CLOEXEC) that polls readable
 * when the process exits, or -1 with errno set (ENOSYS on old kernels).
 */
int proc_pidfd_open(pid_t pid);

/*
 * Copy of `text` (caller frees) in which the value of every environment
 * variable whose NAME contains TOKEN, SECRET, PASSWORD, KEY, AUTH, COOKIE,
 * SESSION or CREDENTIAL (case-insensitive) is replaced by "***" wherever it
 * appears, when the value has at least 4 characters. `envp` is a
 * NULL-terminated NAME=VALUE array; NULL means this process's environ.
 * Longer values are masked first, so a secret containing a shorter one is
 * hidden whole.
 */
char *proc_mask_secrets(const char *text, const char *const *envp);

/*
 * Append to env every NAME=VALUE of envp (NULL: this process's environ)
 * except the variables that tie git to one repository or index: git's own
 * list (`git rev-parse --local-env-vars`: GIT_DIR, GIT_WORK_TREE,
 * GIT_INDEX_FILE, GIT_COMMON_DIR, GIT_OBJECT_DIRECTORY, ...) and
 * GIT_QUARANTINE_PATH, minus the configuration ones (GIT_CONFIG_PARAMETERS,
 * GIT_CONFIG_COUNT: settings such as safe.directory, not a repository).
 * Started from a git hook, kagari would otherwise point every git call,
 * build and hook at the hook's repository and index (a base build would
 * see the head's index and commit). The one list for kagari's own git
 * calls (git/git.c) and for the commands, hooks and builds of a suite.
 */
void proc_env_without_git_repo(struct strvec *env, const char *const *envp);

/*
 * Who owns a temporary thing kagari made (a locked worktree, a private
 * folder), so that a later kagari can tell whether its maker is gone:
 * appends "pid=PID start=TICKS host=HOSTNAME" for this process (TICKS is
 * its start time from /proc, so that a reused pid is not mistaken for it;
 * 0 when unknown; HOSTNAME with anything but [A-Za-z0-9._-] made '_').
 */
void proc_owner_tag(struct sbuf *sb);

/*
 * What an owner tag (proc_owner_tag) says of its process: 0 when it is
 * certainly gone (no such pid, a zombie, or the pid reused by a process
 * that started at another time), 1 when it may still run, -1 when the
 * text is not an owner tag or names another host (whose processes cannot
 * be checked from here). Fields may come in any order; a pid is required.
 */
int proc_owner_state(const char *tag);

/*
 * The signals whose default action ends a process and that come from
 * outside (a terminal, kill, a resource limit) rather than from a fault
 * of our own code: SIGHUP, SIGINT, SIGQUIT, SIGTERM, SIGUSR1, SIGUSR2,
 * SIGALRM, SIGVTALRM, SIGPROF, SIGXCPU, SIGXFSZ, SIGIO, SIGPWR, SIGSTKFLT.
 * SIGPIPE is not in it: kagari ignores it, and a write to a closed pipe
 * fails with EPIPE instead. Terminated by 0.
 */
extern const int proc_fatal_signals[];

#endif
