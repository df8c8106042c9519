/*
 * suite/discover: which suite files the PATH arguments name.
 *
 * A PATH is a suite file or a directory. A directory contributes its
 * `kagari.yaml`, `*.kagari.yaml`, `himorime.yaml` and `*.himorime.yaml`
 * (not recursively), sorted by name. With no PATH (n == 0), `./kagari.yaml`
 * is used, or `./himorime.yaml` when only that exists.
 */
#ifndef KAGARI_SUITE_DISCOVER_H
#define KAGARI_SUITE_DISCOVER_H

#include <stddef.h>

struct sbuf;
struct strvec;

/*
 * Append the suite files to `files` in argument order (a file named twice
 * is listed once). Returns 0, or -1 with one line per problem appended to
 * err ("PATH: message"): a missing path, a directory without suites, no
 * suite in the current folder. A file PATH is taken as given whatever its
 * name; suite_load() reports whether it reads as a suite.
 */
int suite_discover(const char *const *paths, size_t n, struct strvec *files, struct sbuf *err);

/* 1 if a file name (no folder) is one a directory contributes. */
int suite_discover_name_matches(const char *name);

#endif
