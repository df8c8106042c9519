/*
 * fuzz/fuzz_github_event: libFuzzer target for the GitHub Actions event
 * reader (ci/github.h: github_event_base_text) and the workflow-command
 * escaping (report/annotations.h).
 *
 * Input layout: byte 0 picks the event name (pull_request, push,
 * merge_group, pull_request_target, pull_request_review, workflow_dispatch,
 * or the empty name); the rest is the event file's text.
 *
 * Invariants checked besides memory safety (abort() on violation):
 *   - success: the sha is 40 or 64 hex digits, and the event is one the
 *     contract names (never pull_request_target);
 *   - failure: a non-empty one-line reason and *sha left NULL (open:
 *     tests/data/fuzz-regressions/open/github_event/ still break it);
 *   - escaping: github_escape_data()/github_escape_property() of the text
 *     leave no raw CR or LF (no injected workflow command), and the
 *     property form no ':' or ','; unescaping gives the text back.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/sbuf.h"
#include "ci/github.h"
#include "report/annotations.h"

static const char *const events[] = {
	"pull_request",	       "push", "merge_group", "pull_request_target",
	"pull_request_review", "workflow_dispatch",   "",
};

static void event_fail(const char *what, const char *event,
		       const struct sbuf *ctx)
{
	fprintf(stderr, "fuzz_github_event invariant violated: %s (event '%s')\n",
		what, event);
	if (ctx && ctx->len)
		fprintf(stderr, "%.2000s\n", ctx->buf);
	abort();
}

static int hex_sha(const char *s)
{
	size_t n = strlen(s);
	if (n != 40 && n != 64)
		return 0;
	for (size_t i = 0; i < n; i++)
		if (!strchr("0123456789abcdefABCDEF", s[i]))
			return 0;
	return 1;
}

/* Undo GitHub's %XX escapes. */
static void unescape(const char *s, struct sbuf *out)
{
	for (; *s; s++) {
		if (!strncmp(s, "%25", 3))
			sbuf_addch(out, '%'), s += 2;
		else if (!strncmp(s, "%0D", 3))
			sbuf_addch(out, '\r'), s += 2;
		else if (!strncmp(s, "%0A", 3))
			sbuf_addch(out, '\n'), s += 2;
		else if (!strncmp(s, "%3A", 3))
			sbuf_addch(out, ':'), s += 2;
		else if (!strncmp(s, "%2C", 3))
			sbuf_addch(out, ','), s += 2;
		else
			sbuf_addch(out, *s);
	}
}

static void check_escape(const char *text, const char *event)
{
	struct sbuf d = SBUF_INIT, p = SBUF_INIT, back = SBUF_INIT;
	github_escape_data(&d, text);
	github_escape_property(&p, text);
	if (strpbrk(d.buf, "\r\n") || strpbrk(p.buf, "\r\n:,"))
		event_fail("escaping left a line break, ':' or ','", event, &p);
	unescape(d.buf, &back);
	if (strcmp(back.buf, text))
		event_fail("data escaping does not round-trip", event, &d);
	sbuf_reset(&back);
	unescape(p.buf, &back);
	if (strcmp(back.buf, text))
		event_fail("property escaping does not round-trip", event, &p);
	sbuf_release(&d);
	sbuf_release(&p);
	sbuf_release(&back);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	if (size < 1)
		return 0;
	const char *event = events[data[0] % (sizeof(events) / sizeof(events[0]))];
	const char *text = (const char *)data + 1;
	size_t len = size - 1;
	char *sha = NULL;
	struct sbuf err = SBUF_INIT;
	int rc = github_event_base_text(event, text, len, "event.json", &sha, &err);
	if (rc == 0) {
		if (!sha || !hex_sha(sha))
			event_fail("accepted a sha that is not 40 or 64 hex digits",
				   event, NULL);
		if (!strcmp(event, "pull_request_target") || !*event ||
		    !strcmp(event, "workflow_dispatch"))
			event_fail("accepted an event the contract refuses", event, NULL);
		if (err.len)
			event_fail("success with a message", event, &err);
	} else {
		if (rc != -1 || !err.len || strchr(err.buf, '\n'))
			event_fail("bad failure report", event, &err);
		if (sha)
			event_fail("*sha set on failure", event, NULL);
	}
	free(sha);
	sbuf_release(&err);

	char *s = strndup(text, len);
	if (!s)
		abort();
	check_escape(s, event);
	free(s);
	return 0;
}
