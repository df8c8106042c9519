/*
 * report/inputs: the files a command reads, so that no report is written
 * over one (inputs.h).
 */
#include "report/inputs.h"

#include <stdlib.h>

#include "base/fileio.h"
#include "base/sbuf.h"
#include "base/xalloc.h"
#include "report/output.h"
#include "suite/vars.h"

void input_files_add(struct input_files *in, const char *path, const char *what)
{
	strvec_push(&in->paths, path);
	strvec_push(&in->what, what);
}

void input_files_add_suites(struct input_files *in, const struct loaded_suites *ls)
{
	for (size_t i = 0; i < ls->nr; i++) {
		const struct suite *s = ls->suites[i];
		char *what = xstrfmt("the suite file '%s'", s->file);
		input_files_add(in, s->file, what);
		free(what);
		/* Every benchmark's, selected or not: overwriting one is as bad. */
		for (size_t b = 0; b < s->nr_benches; b++) {
			const struct bench_spec *bs = &s->benches[b];
			if (bs->stdin_spec.kind != STDIN_FILE || vars_present(bs->stdin_spec.value))
				continue;
			const char *v = bs->stdin_spec.value;
			char *p = v[0] == '/' ? xstrdup(v) : xstrfmt("%s/%s", s->dir, v);
			what = xstrfmt("the stdin file of benchmark '%s' (suite '%s')", bs->name,
				       s->name);
			input_files_add(in, p, what);
			free(what);
			free(p);
		}
	}
}

void input_files_add_history(struct input_files *in, const char *path)
{
	char *what = xstrfmt("the history database '%s'", path);
	input_files_add(in, path, what);
	free(what);
}

void input_files_release(struct input_files *in)
{
	strvec_clear(&in->paths);
	strvec_clear(&in->what);
}

int report_output_refuse(const char *label, const char *path, const char *section,
			 const struct input_files *in, struct sbuf *err)
{
	struct sbuf why = SBUF_INIT;
	int rc = 0;
	if (report_output_check(path, section, &why)) {
		sbuf_addf(err, "%s %s", label, why.buf);
		rc = -1;
	}
	for (size_t i = 0; !rc && in && i < in->paths.nr; i++) {
		if (fileio_same_file(path, in->paths.v[i])) {
			sbuf_addf(err, "%s '%s' is %s; refusing to overwrite it", label, path,
				  in->what.v[i]);
			rc = -1;
		}
	}
	sbuf_release(&why);
	return rc;
}
