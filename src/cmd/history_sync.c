/*
 * cmd/history_sync: the history branch from the command line
 * (history_sync.h; docs/history.md).
 */
#include "cmd/history_sync.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "base/sbuf.h"
#include "base/xalloc.h"
#include "model/exit.h"
#include "cmd/record.h"
#include "history/history.h"
#include "history/sync.h"

static void print_result(enum history_sync_op op, const struct history_sync *o,
			 const struct history_sync_result *r, FILE *to)
{
	const char *tip = r->tip ? r->tip : "none";
	if (op == HISTORY_SYNC_PULL && !r->tip)
		fprintf(to,
			"kagari: history pull: '%s' has no branch '%s' yet; nothing to import\n",
			r->url, o->branch);
	else if (op == HISTORY_SYNC_PULL)
		fprintf(to,
			"kagari: history pull: %zu run%s on branch '%s' of '%s' (%.12s): %zu "
			"imported, %zu already here, %zu skipped\n",
			r->on_branch, r->on_branch == 1 ? "" : "s", o->branch, r->url, tip,
			r->imported, r->present, r->skipped);
	else if (!r->pushed)
		fprintf(to,
			"kagari: history push: nothing to push; branch '%s' of '%s' has every run "
			"of this history (%zu on it)\n",
			o->branch, r->url, r->on_branch);
	else
		fprintf(to,
			"kagari: history push: %zu run%s pushed to %sbranch '%s' of '%s' (%.12s) "
			"in %d attempt%s; %zu on it\n",
			r->pushed, r->pushed == 1 ? "" : "s", r->created ? "the new " : "",
			o->branch, r->url, tip, r->attempts, r->attempts == 1 ? "" : "s",
			r->on_branch);
}

int history_sync_run(const struct cli_history_branch *hb, enum history_sync_op op, const char *path,
		     const char *dir, FILE *to)
{
	struct history_sync o = {
	    .repo = dir,
	    .remote = hb->remote ? hb->remote : HISTORY_DEFAULT_REMOTE,
	    .branch = hb->branch ? hb->branch : HISTORY_DEFAULT_BRANCH,
	};
	struct stat st;
	if (op == HISTORY_SYNC_PUSH && stat(path, &st)) {
		cmd_error("no history at '%s' (%s): nothing to push (`kagari run` and `kagari "
			  "compare` record one)",
			  path, strerror(errno));
		return EXIT_USAGE;
	}
	struct sbuf err = SBUF_INIT;
	struct history *h = NULL;
	struct history_sync_result r = {0};
	int rc = 0;
	if (history_open(path, record_timeout_ms(), &h, &err))
		rc = EXIT_EXEC;
	else if (op == HISTORY_SYNC_PUSH)
		rc = history_sync_push(h, &o, &r, &err) ? EXIT_EXEC : 0;
	else
		rc = history_sync_pull(h, &o, &r, &err) ? EXIT_EXEC : 0;
	for (size_t i = 0; i < r.warnings.nr; i++)
		cmd_warning("%s", r.warnings.v[i]);
	if (rc)
		cmd_error("history %s: %s", op == HISTORY_SYNC_PUSH ? "push" : "pull", err.buf);
	else
		print_result(op, &o, &r, to);
	fflush(to);
	history_sync_result_release(&r);
	history_close(h);
	sbuf_release(&err);
	return rc;
}

int history_sync_exec(const struct strvec *paths, const char *history,
		      const struct cli_history_branch *hb, enum history_sync_op op)
{
	struct loaded_suites ls;
	int rc = common_load(paths, &ls);
	if (rc) {
		suites_release(&ls);
		return rc;
	}
	char *path = record_history_path(history, &ls);
	rc = history_sync_run(hb, op, path, ls.nr ? ls.suites[0]->dir : ".", stdout);
	free(path);
	suites_release(&ls);
	return rc;
}
