/*
 * report/inputs: the files a command reads (suite files, stdin files, a
 * saved report, the history database), so that no output overwrites one.
 */
#ifndef KAGARI_REPORT_INPUTS_H
#define KAGARI_REPORT_INPUTS_H

#include "base/strvec.h"
#include "suite/select.h"

struct sbuf;

/* what[i] describes paths[i] for messages: "the suite file 'kagari.yaml'". */
struct input_files {
	struct strvec paths;
	struct strvec what;
};
#define INPUT_FILES_INIT                                                                           \
	{                                                                                          \
		STRVEC_INIT, STRVEC_INIT                                                           \
	}
void input_files_add(struct input_files *in, const char *path, const char *what);
/* Every suite file of ls, and every stdin file its benchmarks name. */
void input_files_add_suites(struct input_files *in, const struct loaded_suites *ls);
/* The history database at path (cmd/record.h's record_history_path()). */
void input_files_add_history(struct input_files *in, const char *path);
void input_files_release(struct input_files *in);
/*
 * May a report go to path (into section)? Not when no report can go there
 * (report_output_check(): a directory, a socket, a section in a FIFO ...)
 * nor when it names an input (the same file however spelled or linked,
 * or the same resolved path when one does not exist yet). label starts
 * the message ("--output", "FILE:L:C: report.outputs[0].path:"). 0, or
 * -1 with the message in err.
 */
int report_output_refuse(const char *label, const char *path, const char *section,
			 const struct input_files *in, struct sbuf *err);

#endif
