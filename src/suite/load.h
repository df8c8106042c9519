/*
 * suite/load: read a suite file into the typed model of suite/model.h.
 *
 * The file is read (at most 1 MiB), checked for encoding problems (a BOM,
 * invalid UTF-8, control characters other than tab, newline and carriage
 * return), parsed with libyaml's document API (one document; aliases may
 * not expand beyond max(10000, nodes in the file) nodes), then walked and
 * validated: unknown and duplicate keys, wrong types, units, variables and
 * path rules. Inheritance defaults -> benchmark -> command is resolved, so
 * every bench_spec and command_spec carries complete settings.
 *
 * Errors: on failure suite_load() returns NULL and appends ALL problems to
 * errs, one per line ("\n"-terminated), sorted by position:
 *     FILE:LINE:COL: field.path: message
 * (FILE is the path as given), or `FILE: message` when there is no position
 * (unreadable file, empty suite). Messages are lowercase with hints such as
 * "did you mean 'command'?".
 *
 * Resolved values: command_spec.settings is authoritative for cwd, env,
 * timeout, stdout/stderr and exit codes; command_spec.exec carries the
 * command (argv or shell script) and, for convenience, copies of the
 * resolved cwd, env and timeout. Hooks and build keep only what they set
 * themselves, with timeout_ns defaulting to 5 min (hooks) and 10 min (build).
 * Strings are unexpanded (see vars.h).
 *
 * Ownership: the returned suite belongs to the caller (suite_free()).
 */
#ifndef KAGARI_SUITE_LOAD_H
#define KAGARI_SUITE_LOAD_H

#include <stddef.h>

#include "suite/model.h"

struct sbuf;

#define SUITE_MAX_BYTES (1024 * 1024)
#define SUITE_BUILD_TIMEOUT_NS (INT64_C(600) * 1000000000)
#define SUITE_HOOK_TIMEOUT_NS (INT64_C(300) * 1000000000)

struct suite *suite_load(const char *path, struct sbuf *errs);

/*
 * Load a suite from memory, as if read from `file` (used for messages and
 * to find the suite's folder and repository root; the file need not exist).
 */
struct suite *suite_load_mem(const char *file, const char *data, size_t len, struct sbuf *errs);

#endif
