/*
 * cmd/record: every `run`, `compare` and `ci` appends to the history
 * (record.h; docs/history.md).
 */
#include "cmd/record.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/sbuf.h"
#include "base/xalloc.h"
#include "cmd/exit.h"
#include "cmd/session.h"
#include "git/git.h"
#include "history/history.h"
#include "report/report.h"

char *record_history_path(const char *history, const struct loaded_suites *ls)
{
	if (history)
		return xstrdup(history);
	const char *dir = ls->nr ? ls->suites[0]->dir : ".";
	return xstrfmt("%s/.kagari/history.sqlite", dir);
}

int record_timeout_ms(void)
{
	const char *v = getenv("KAGARI_HISTORY_TIMEOUT_MS");
	char *end;
	long ms = v && *v ? strtol(v, &end, 10) : -1;
	if (v && *v && !*end && ms >= 0 && ms <= 3600000)
		return (int)ms;
	return HISTORY_DEFAULT_TIMEOUT_MS;
}

/* The branch HEAD is on, or NULL (detached, no repository). */
static char *current_branch(const char *repo)
{
	static const char *const args[] = {"symbolic-ref", "--short", "-q", "HEAD", NULL};
	struct sbuf out = SBUF_INIT, err = SBUF_INIT;
	char *b = NULL;
	if (git_exec(repo, args, GIT_TIMEOUT_NS, &out, NULL, &err) == 0) {
		sbuf_rtrim(&out);
		if (out.len)
			b = sbuf_detach(&out);
	}
	sbuf_release(&out);
	sbuf_release(&err);
	return b;
}

int record_session(struct session *s)
{
	const struct run_result *r = &s->r;
	if (s->cfg.no_history || r->interrupted || !s->ls.nr)
		return 0;
	char *path = record_history_path(s->cfg.history, &s->ls);
	struct sbuf err = SBUF_INIT, json = SBUF_INIT;
	char *repo = NULL, *head = NULL, *branch = NULL;
	int dirty = r->git.dirty;
	/* `run` does not put git in its report; the history needs the commit:
	   the one measured from the start. */
	if (!git_toplevel(s->ls.suites[0]->dir, &repo, &err)) {
		if (!r->git.head_sha && git_head_info(repo, &head, &dirty, &s->git_skip, &err))
			dirty = -1;
		if (!r->git.head_sha && s->git_start_sha) {
			free(head);
			head = xstrdup(s->git_start_sha);
		}
		branch = current_branch(repo);
	}
	/* HEAD or the working tree changed while measuring. */
	if (s->git_moved)
		dirty = 1;
	sbuf_reset(&err);
	struct report_options o;
	report_options_init(&o);
	o.json_compact = 1;
	if (report_render(r, REPORT_JSON, &o, &json, &err))
		sbuf_reset(&json); /* the statistics are still worth keeping */
	sbuf_reset(&err);
	struct history_record rec = {
	    .kind = s->cfg.history_kind ? s->cfg.history_kind : r->mode,
	    .head_sha = r->git.head_sha ? r->git.head_sha : head,
	    .base_sha = r->git.base_sha,
	    .base_ref = r->git.base_ref,
	    .dirty = dirty,
	    .branch = branch,
	    .exit_code = r->summary.exit_code,
	};
	struct history_machine m;
	history_machine_detect(&r->env, getenv("KAGARI_MACHINE_ID"), &m);
	struct history *h = NULL;
	int rc = 0;
	if (history_open(path, record_timeout_ms(), &h, &err) ||
	    history_append(h, &rec, &m, r, json.len ? json.buf : NULL, &err) < 0) {
		cmd_error("%s; the run was not recorded (the reports were written; --no-history "
			  "skips the history)",
			  err.buf);
		rc = EXIT_EXEC;
	}
	history_close(h);
	history_machine_release(&m);
	free(path);
	free(repo);
	free(head);
	free(branch);
	sbuf_release(&err);
	sbuf_release(&json);
	return rc;
}
