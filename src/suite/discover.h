/*
 * suite/discover: which suite files the PATH arguments name.
 *
 * A PATH is a suite file or a directory. A directory contributes its
 * `kagari.yaml`, `*.kagari.yaml`, `himorime.yaml` and `*.himorime.yaml`
 * (not recursively), sorted by name. With no PATH (n == 0), `./kagari.yaml`
 * is used, or `./himorime.yaml` when only that exists.
 *
 * The rule is applied to a tree that a caller describes (struct
 * suite_tree): the working tree's files (suite_discover()), or a commit's
 * (cmd/gate_suites.c reads the base revision through git), so that both
 * sides of a compare find their suites by the very same rule.
 */
#ifndef KAGARI_SUITE_DISCOVER_H
#define KAGARI_SUITE_DISCOVER_H

#include <stddef.h>

struct sbuf;
struct strvec;

enum suite_entry { SUITE_ENTRY_NONE, SUITE_ENTRY_FILE, SUITE_ENTRY_DIR };

/*
 * A tree to discover suites in. Paths are as the user gave them (relative
 * to the current folder, or absolute); the tree maps them to its files.
 */
struct suite_tree {
	/* What path is (NONE: nothing there). 0, or -1 with "PATH: reason\n"
	   appended to err when it cannot be told. */
	int (*kind)(void *data, const char *path, enum suite_entry *kind, struct sbuf *err);
	/* The names (no folder) of the files directly in folder dir, any
	   order: folders excluded. 0, or -1 with "DIR: reason\n" in err. */
	int (*files)(void *data, const char *dir, struct strvec *names, struct sbuf *err);
	void *data;
};

/*
 * Append the suite files to `files` in argument order (a file named twice
 * is listed once). Returns 0, or -1 with one line per problem appended to
 * err ("PATH: message"): a missing path, a directory without suites, no
 * suite in the current folder. A file PATH is taken as given whatever its
 * name; suite_load() reports whether it reads as a suite.
 */
int suite_discover(const char *const *paths, size_t n, struct strvec *files, struct sbuf *err);

/* The same rule in tree t. */
int suite_discover_tree(const struct suite_tree *t, const char *const *paths, size_t n,
			struct strvec *files, struct sbuf *err);

/* 1 if a file name (no folder) is one a directory contributes. */
int suite_discover_name_matches(const char *name);

#endif
