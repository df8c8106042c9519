/*
 * ci/github: what `kagari ci` reads from GitHub Actions (the base commit of
 * the workflow's event) and the step summary file it appends to. The
 * annotations and summary text are report/annotations.h's.
 *
 * Nothing here prints or exits: functions return 0 or -1 with a reason
 * appended to err.
 */
#ifndef KAGARI_CI_GITHUB_H
#define KAGARI_CI_GITHUB_H

#include <stddef.h>

#include "base/sbuf.h"

/*
 * The base commit of a GitHub Actions event, in *sha (caller frees):
 *
 *	pull_request, pull_request_review, pull_request_review_comment
 *	                     .pull_request.base.sha
 *	merge_group          .merge_group.base_sha
 *	push                 .before (refused when all zeros: a new branch
 *	                     or tag has no previous commit)
 *	pull_request_target  refused: it runs with a write token and the
 *	                     repository's secrets, so building and running the
 *	                     pull request's code there would hand both to
 *	                     untrusted code
 *	anything else        refused, asking for --against
 *
 * event_name and event_path are $GITHUB_EVENT_NAME and $GITHUB_EVENT_PATH;
 * either may be NULL or empty (an error that says which is missing). The
 * file must be a JSON object and the sha 40 or 64 hex digits. Returns 0, or
 * -1 with a one-line reason in err.
 */
int github_event_base(const char *event_name, const char *event_path, char **sha, struct sbuf *err);
/* The same on the event's text; `label` names it in messages. */
int github_event_base_text(const char *event_name, const char *text, size_t len, const char *label,
			   char **sha, struct sbuf *err);

/*
 * Is the event a push to the repository's default branch — the one event
 * whose job may write the history branch (`kagari ci --history-push`,
 * SECURITY.md)? *yes = 1 when event_name is "push" and the event file's
 * .ref is "refs/heads/" + .repository.default_branch; else *yes = 0 and
 * why says what the event is instead (a pull request, another branch, a
 * tag). Returns 0, or -1 with a reason in err (no or unreadable event file
 * for a push).
 */
int github_event_default_push(const char *event_name, const char *event_path, int *yes,
			      struct sbuf *why, struct sbuf *err);

/*
 * Append text to the file at path (created 0666 & ~umask when missing),
 * starting on a new line when the file is not empty and does not end with
 * one; existing content is kept. Returns 0 or -1 with the reason.
 */
int github_append_file(const char *path, const char *text, size_t len, struct sbuf *err);

#endif
