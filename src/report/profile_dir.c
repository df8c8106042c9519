/*
 * report/profile_dir: --profile-dir's folded stacks (profile_dir.h).
 */
#include "report/profile_dir.h"

#include <errno.h>
#include <string.h>
#include <sys/stat.h>

#include "base/fileio.h"
#include "base/sbuf.h"
#include "base/strvec.h"
#include "model/profile.h"
#include "model/result.h"

/* A file name part: [A-Za-z0-9._-] kept, anything else '_'. */
static void add_name_part(struct sbuf *sb, const char *s)
{
	for (; *s; s++)
		sbuf_addch(sb, (*s >= 'a' && *s <= 'z') || (*s >= 'A' && *s <= 'Z') ||
				       (*s >= '0' && *s <= '9') || *s == '.' || *s == '-'
				   ? *s
				   : '_');
}

int report_profile_dir(const struct run_result *r, const char *dir, struct strvec *errors)
{
	if (mkdir(dir, 0777) != 0 && errno != EEXIST) {
		strvec_pushf(errors, "cannot create the profile folder '%s': %s", dir,
			     strerror(errno));
		return -1;
	}
	int rc = 0;
	struct sbuf path = SBUF_INIT, body = SBUF_INIT, err = SBUF_INIT;
	for (size_t i = 0; i < r->nr_suites; i++)
		for (size_t b = 0; b < r->suites[i].nr_benches; b++) {
			const struct bench_result *br = &r->suites[i].benches[b];
			for (size_t c = 0; c < br->nr_commands; c++) {
				const struct command_result *cr = &br->commands[c];
				if (!cr->profile)
					continue;
				for (int sd = 0; sd < SIDE__COUNT; sd++) {
					if (!cr->side[sd].present)
						continue;
					sbuf_reset(&path);
					sbuf_addf(&path, "%s/", dir);
					add_name_part(&path, r->suites[i].name);
					sbuf_addch(&path, '.');
					add_name_part(&path, br->name);
					sbuf_addch(&path, '.');
					add_name_part(&path, cr->name);
					sbuf_addf(&path, ".%s.folded", side_name((enum side)sd));
					sbuf_reset(&body);
					profile_folded(
					    cr->profile,
					    sd == SIDE_BASE ? PROFILE_BASE : PROFILE_HEAD, &body);
					sbuf_reset(&err);
					if (fileio_write_atomic(path.buf, body.buf, body.len,
								&err)) {
						strvec_push(errors, err.buf);
						rc = -1;
					}
				}
			}
		}
	sbuf_release(&path);
	sbuf_release(&body);
	sbuf_release(&err);
	return rc;
}
