/*
 * base/suggest: "did you mean ...?" by edit distance, for suite keys,
 * variables and command-line flags alike.
 */
#ifndef KAGARI_BASE_SUGGEST_H
#define KAGARI_BASE_SUGGEST_H

#include <stddef.h>

/* Levenshtein distance (insert, delete, substitute, adjacent swap). */
size_t suggest_distance(const char *a, const char *b);
/*
 * The candidate closest to `word` (NULL-terminated list), or NULL when none
 * is close enough to be a plausible typo (distance at most 1 for short
 * words, at most a third of the length otherwise) or a case-insensitive match.
 */
const char *suggest_closest(const char *word, const char *const *candidates);

#endif
