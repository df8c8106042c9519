/*
 * report/list: `kagari list`'s output, the benchmarks and commands a
 * selection would run: text (suite, then each selected benchmark with its
 * tags and commands) or JSON {"suites": [{name, file, benchmarks: [{name,
 * tags, commands: [{name, command, shell}]}]}]}. selected[i][b] says
 * whether benchmark b of suite i is listed.
 */
#ifndef KAGARI_REPORT_LIST_H
#define KAGARI_REPORT_LIST_H

#include <stddef.h>

#include "base/sbuf.h"
#include "suite/model.h"

void report_list_text(struct sbuf *out, struct suite *const *suites, size_t nr,
		      unsigned char *const *selected);
void report_list_json(struct sbuf *out, struct suite *const *suites, size_t nr,
		      unsigned char *const *selected);

#endif
