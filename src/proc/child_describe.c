/*
 * proc/child_describe: child_result_describe(), the one wording of how a
 * run ended, and the stderr tail line of messages.
 */
#include "proc/child_internal.h"

#include <string.h>

#include "proc/proc.h"

static void describe_ns(struct sbuf *out, int64_t ns)
{
	if (ns % 1000000000 == 0)
		sbuf_addf(out, "%lld s", (long long)(ns / 1000000000));
	else if (ns >= 1000000000)
		sbuf_addf(out, "%.3g s", (double)ns / 1e9);
	else
		sbuf_addf(out, "%.3g ms", (double)ns / 1e6);
}

void child_result_describe(const struct child_result *r, int64_t timeout_ns, struct sbuf *out)
{
	if (r->timed_out) {
		sbuf_adds(out, "timed out");
		if (timeout_ns > 0) {
			sbuf_adds(out, " after ");
			describe_ns(out, timeout_ns);
		}
		return;
	}
	if (r->interrupted) {
		sbuf_adds(out, "interrupted");
		return;
	}
	switch (r->status) {
	case CHILD_NOT_RUN:
		sbuf_adds(out, "did not run");
		break;
	case CHILD_EXITED:
		sbuf_addf(out, "exited with status %d", r->exit_code);
		break;
	case CHILD_SIGNALED:
		sbuf_addf(out, "killed by signal %s", proc_signal_name(r->signal));
		break;
	case CHILD_SPAWN_FAILED:
		sbuf_adds(out, "could not be started");
		break;
	case CHILD_ERROR:
		sbuf_adds(out, "could not be run");
		break;
	}
}

/* The last three meaningful lines of tail, on one line (CHILD_TAIL_LINE). */
static void add_tail_line(struct sbuf *out, const char *tail, size_t len)
{
	const char *lines[3];
	size_t lens[3], n = 0;
	const char *p = tail, *end = tail + len;

	while (p < end) {
		const char *nl = memchr(p, '\n', (size_t)(end - p));
		const char *le = nl ? nl : end;
		const char *s = p;
		while (s < le && (*s == ' ' || *s == '\t' || *s == '\r'))
			s++;
		const char *e = le;
		while (e > s && (e[-1] == ' ' || e[-1] == '\t' || e[-1] == '\r'))
			e--;
		if (e > s && strncmp(s, "hint:", 5)) {
			if (n == 3) {
				memmove(lines, lines + 1, 2 * sizeof(*lines));
				memmove(lens, lens + 1, 2 * sizeof(*lens));
				n = 2;
			}
			lines[n] = s;
			lens[n] = (size_t)(e - s);
			n++;
		}
		p = nl ? nl + 1 : end;
	}
	for (size_t i = 0; i < n; i++) {
		if (i)
			sbuf_adds(out, "; ");
		/* Keep the message on one line and printable. */
		for (size_t k = 0; k < lens[i] && k < 400; k++) {
			unsigned char ch = (unsigned char)lines[i][k];
			if (ch < 0x20 || ch == 0x7f)
				sbuf_addch(out, ' ');
			else
				sbuf_addch(out, ch);
		}
	}
}

void child_add_stderr_tail(struct sbuf *out, const char *tail, size_t len,
			   enum child_tail_style style)
{
	if (style == CHILD_TAIL_LINE) {
		if (!len)
			return;
		sbuf_adds(out, ": ");
		add_tail_line(out, tail, len);
		return;
	}
	len = strnlen(tail, len);
	if (!len)
		return;
	sbuf_addf(out, "\n--- stderr (last %d KiB) ---\n", CHILD_TAIL_MAX / 1024);
	sbuf_add(out, tail, len);
}
