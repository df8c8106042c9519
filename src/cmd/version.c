/*
 * kagari version (and `kagari --version`, `-V`): the version, the commit
 * this binary was built from when the build knew it (cmake/commit.cmake),
 * the counter sources compiled in, and what it was built with. The first
 * line is always `kagari VERSION`, for scripts.
 */
#include <stdio.h>
#include <jansson.h>
#include <sqlite3.h>
#include <sys/syscall.h>
#include <yaml.h>

#include "cmd/cmd.h"
#include "cmd/exit.h"
#include "kagari_commit.h"
#include "measure/alloc.h"
#include "measure/counters.h"

#ifndef KAGARI_LINKING
#define KAGARI_LINKING "dynamically linked"
#endif

static int version_exec(const void *opts, struct cmd_env *env)
{
	printf("kagari %s\n", KAGARI_VERSION);
	printf("commit: %s\n",
	       *KAGARI_COMMIT ? KAGARI_COMMIT : "unknown (not built from a git checkout)");
	printf("counter sources:\n");
#ifdef SYS_perf_event_open
	printf("  perf      perf_event_open, in the timed runs:");
	for (int e = 0; e < COUNTERS__COUNT; e++)
		printf("%s %s", e ? "," : "", counters_event_name(e));
	printf("\n");
#else
	printf("  perf      not in this build (no perf_event_open)\n");
#endif
	printf("  valgrind  cachegrind, in separate untimed runs: instructions, "
	       "estimated_cycles, cache_misses\n");
	printf("  alloc     %s (LD_PRELOAD): allocs, alloc_bytes, peak_heap\n", ALLOC_SHIM_NAME);
	printf("  syscalls  syscall tracepoints (perf_event_open), in separate untimed runs: "
	       "syscalls, by name\n");
	printf("built with: libyaml %s, jansson %s, sqlite %s; %s\n", yaml_get_version_string(),
	       JANSSON_VERSION, sqlite3_libversion(), KAGARI_LINKING);
	return EXIT_PASS;
}

const struct cmd_entry cmd_version = {
    .name = "version",
    .args = "",
    .summary = "print the version, the commit and the counter sources "
	       "(also --version)",
    .exec = version_exec,
};
