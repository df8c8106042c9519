/*
 * report/profile_dir: `--profile-dir DIR` — the folded stacks of every
 * profiled command, one file per side: DIR/SUITE.BENCH.COMMAND.SIDE.folded
 * (names reduced to [A-Za-z0-9._-], anything else '_'), each written
 * atomically.
 */
#ifndef KAGARI_REPORT_PROFILE_DIR_H
#define KAGARI_REPORT_PROFILE_DIR_H

struct run_result;
struct strvec;

/* Write them; 0, or -1 with a message per file not written in errors. */
int report_profile_dir(const struct run_result *r, const char *dir, struct strvec *errors);

#endif
