/*
 * ci/github: what `kagari ci` reads from GitHub Actions — the base commit
 * named by the workflow's event file — and the step summary file it
 * appends to (github.h). The annotations and the summary's text are
 * written by report/annotations.c.
 */
#include "ci/github.h"

#include <errno.h>
#include <jansson.h>
#include <stdlib.h>
#include <string.h>

#include "base/fileio.h"
#include "base/xalloc.h"

/* Event files are small; anything bigger is not one. */
#define EVENT_MAX_BYTES (64u << 20)

static int is_hex_sha(const char *s)
{
	size_t n = strlen(s);
	if (n != 40 && n != 64)
		return 0;
	for (size_t i = 0; i < n; i++)
		if (!strchr("0123456789abcdefABCDEF", s[i]))
			return 0;
	return 1;
}

static int all_zeros(const char *s)
{
	return *s && strspn(s, "0") == strlen(s);
}

/* The string at a dotted path of objects, or NULL (why in *missing). */
static const char *lookup(json_t *root, const char *const *path, const char **bad)
{
	json_t *v = root;
	for (size_t i = 0; path[i]; i++) {
		if (!json_is_object(v)) {
			*bad = "is not an object";
			return NULL;
		}
		v = json_object_get(v, path[i]);
		if (!v) {
			*bad = "is missing";
			return NULL;
		}
	}
	if (!json_is_string(v)) {
		*bad = json_is_null(v) ? "is null" : "is not a string";
		return NULL;
	}
	return json_string_value(v);
}

static int is_pull_request_event(const char *name)
{
	return !strcmp(name, "pull_request") || !strcmp(name, "pull_request_review") ||
	       !strcmp(name, "pull_request_review_comment");
}

int github_event_base_text(const char *event_name, const char *text, size_t len, const char *label,
			   char **sha, struct sbuf *err)
{
	static const char *const pr_path[] = {"pull_request", "base", "sha", NULL};
	static const char *const mg_path[] = {"merge_group", "base_sha", NULL};
	static const char *const push_path[] = {"before", NULL};
	const char *const *path;
	const char *field;

	*sha = NULL;
	if (!event_name || !*event_name) {
		sbuf_adds(err, "GITHUB_EVENT_NAME is not set, so the event in GITHUB_EVENT_PATH "
			       "cannot be read; pass --against REV or set KAGARI_BASE_REF");
		return -1;
	}
	if (!strcmp(event_name, "pull_request_target")) {
		sbuf_adds(err, "the 'pull_request_target' event is refused: its job runs with a "
			       "write token and the repository's secrets, and building and running "
			       "the pull request's code there would hand both to untrusted code; "
			       "run kagari ci on 'pull_request' instead");
		return -1;
	}
	if (is_pull_request_event(event_name)) {
		path = pr_path;
		field = "pull_request.base.sha";
	} else if (!strcmp(event_name, "merge_group")) {
		path = mg_path;
		field = "merge_group.base_sha";
	} else if (!strcmp(event_name, "push")) {
		path = push_path;
		field = "before";
	} else {
		sbuf_addf(err,
			  "the '%s' event names no base commit; pass --against REV or set "
			  "KAGARI_BASE_REF",
			  event_name);
		return -1;
	}

	json_error_t je;
	json_t *root = json_loadb(text, len, JSON_REJECT_DUPLICATES, &je);
	if (!root) {
		sbuf_addf(err, "%s:%d:%d: invalid JSON in the GitHub event file: ", label, je.line,
			  je.column > 0 ? je.column : 1);
		sbuf_add_escaped(err, je.text);
		return -1;
	}
	int rc = -1;
	const char *bad = NULL;
	const char *v = json_is_object(root) ? lookup(root, path, &bad) : NULL;
	if (!json_is_object(root)) {
		sbuf_addf(err, "'%s': the GitHub event is not a JSON object", label);
	} else if (!v) {
		sbuf_addf(
		    err, "'%s': %s %s in the '%s' event; pass --against REV or set KAGARI_BASE_REF",
		    label, field, bad, event_name);
	} else if (!strcmp(event_name, "push") && all_zeros(v)) {
		sbuf_adds(
		    err, "the 'push' event has no previous commit ('before' is all zeros: the push "
			 "created a branch or tag); pass --against REV or set KAGARI_BASE_REF");
	} else if (!is_hex_sha(v)) {
		sbuf_addf(err, "'%s': %s is not a commit sha: '", label, field);
		sbuf_add_escaped(err, v);
		sbuf_addch(err, '\'');
	} else {
		*sha = xstrdup(v);
		rc = 0;
	}
	json_decref(root);
	return rc;
}

int github_event_base(const char *event_name, const char *event_path, char **sha, struct sbuf *err)
{
	*sha = NULL;
	if (!event_path || !*event_path) {
		sbuf_adds(
		    err, "GITHUB_EVENT_PATH is not set; pass --against REV or set KAGARI_BASE_REF");
		return -1;
	}
	/* Refusals that need no file come first. */
	if (!event_name || !(is_pull_request_event(event_name) ||
			     !strcmp(event_name, "merge_group") || !strcmp(event_name, "push")))
		return github_event_base_text(event_name, "", 0, event_path, sha, err);
	struct sbuf text = SBUF_INIT;
	if (sbuf_read_file(&text, event_path, EVENT_MAX_BYTES)) {
		sbuf_addf(err, "cannot read the GitHub event file '%s' (GITHUB_EVENT_PATH): %s",
			  event_path, strerror(errno));
		sbuf_release(&text);
		return -1;
	}
	int rc = github_event_base_text(event_name, text.buf, text.len, event_path, sha, err);
	sbuf_release(&text);
	return rc;
}

int github_append_file(const char *path, const char *text, size_t len, struct sbuf *err)
{
	return fileio_append(path, text, len, 0, err);
}

int github_event_default_push(const char *event_name, const char *event_path, int *yes,
			      struct sbuf *why, struct sbuf *err)
{
	static const char *const ref_path[] = {"ref", NULL};
	static const char *const def_path[] = {"repository", "default_branch", NULL};
	*yes = 0;
	if (!event_name || strcmp(event_name, "push")) {
		sbuf_addf(why, "the '%s' event is not a push", event_name ? event_name : "(none)");
		return 0;
	}
	if (!event_path || !*event_path) {
		sbuf_adds(err, "GITHUB_EVENT_PATH is not set, so the push's branch is unknown");
		return -1;
	}
	struct sbuf text = SBUF_INIT;
	if (sbuf_read_file(&text, event_path, EVENT_MAX_BYTES)) {
		sbuf_addf(err, "cannot read the GitHub event file '%s' (GITHUB_EVENT_PATH): %s",
			  event_path, strerror(errno));
		sbuf_release(&text);
		return -1;
	}
	json_error_t je;
	json_t *root = json_loadb(text.buf, text.len, JSON_REJECT_DUPLICATES, &je);
	sbuf_release(&text);
	if (!root) {
		sbuf_addf(err, "%s:%d:%d: invalid JSON in the GitHub event file: ", event_path,
			  je.line, je.column > 0 ? je.column : 1);
		sbuf_add_escaped(err, je.text);
		return -1;
	}
	const char *bad = NULL;
	const char *ref = lookup(root, ref_path, &bad);
	const char *def = ref ? lookup(root, def_path, &bad) : NULL;
	if (!ref || !def) {
		sbuf_addf(err, "'%s': %s %s in the 'push' event", event_path,
			  ref ? "repository.default_branch" : "ref", bad);
		json_decref(root);
		return -1;
	}
	if (!strncmp(ref, "refs/heads/", 11) && !strcmp(ref + 11, def)) {
		*yes = 1;
	} else {
		sbuf_adds(why, "the push is to '");
		sbuf_add_escaped(why, ref);
		sbuf_adds(why, "', not to the default branch '");
		sbuf_add_escaped(why, def);
		sbuf_addch(why, '\'');
	}
	json_decref(root);
	return 0;
}
