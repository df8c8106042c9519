/*
 * cmd/history_check: `kagari history check [--since REV]` — does a step or
 * a paired regression beyond the tolerance lie in REV..HEAD? The series
 * come from cmd/history.c; here the range (git), the tolerances (the
 * suites), the alerts, the Markdown (report/history.h) and the exit code.
 */
#ifndef KAGARI_CMD_HISTORY_CHECK_H
#define KAGARI_CMD_HISTORY_CHECK_H

#include "cmd/common.h"
#include "report/history.h"

/*
 * The range REV..HEAD of the repository of dir (since NULL: HEAD's first
 * parent, so HEAD alone; a root commit: HEAD and all before it) as a
 * sorted list of full ids in *range. 0, or EXIT_USAGE with the reason
 * printed (no repository, REV no commit of it).
 */
int history_check_range(const char *dir, const char *since, struct strvec *range, char **head);

/*
 * The tolerance T of series s's command and metric in the loaded suites
 * (regression.METRIC.max_percent) when its suite gates that metric; NAN
 * when it does not, or the command is no longer in the suites.
 */
double history_check_tolerance(const struct loaded_suites *ls, const struct history_series *s);

/*
 * The alerts of hv's series in range (sorted ids), each with the tolerance
 * of its command and metric in the loaded suites ls, written as Markdown
 * to out; tmpl: the commit link template (NULL: none, no_links says why).
 * Returns 1 when there is any alert, else 0.
 */
int history_check_alerts(struct sbuf *out, const struct history_view *hv,
			 const struct loaded_suites *ls, const struct strvec *range,
			 const char *since, const char *head, const char *dir, const char *tmpl,
			 const char *no_links);

#endif
