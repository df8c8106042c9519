/* report/write_list: `kagari list`'s text and JSON (see list.h). */
#include "report/list.h"

#include <stdlib.h>

#include "report/json_emit.h"

void report_list_text(struct sbuf *out, struct suite *const *suites, size_t nr,
		      unsigned char *const *selected)
{
	for (size_t i = 0; i < nr; i++) {
		const struct suite *s = suites[i];
		sbuf_addf(out, "%s (%s)\n", s->name, s->file);
		for (size_t b = 0; b < s->nr_benches; b++) {
			if (!selected[i][b])
				continue;
			const struct bench_spec *bs = &s->benches[b];
			sbuf_addf(out, "  %s", bs->name);
			for (size_t t = 0; t < bs->tags.nr; t++)
				sbuf_addf(out, "%s%s", t ? ", " : "  [", bs->tags.v[t]);
			sbuf_adds(out, bs->tags.nr ? "]\n" : "\n");
			for (size_t c = 0; c < bs->nr_commands; c++) {
				char *d = exec_spec_display(&bs->commands[c].exec);
				sbuf_addf(out, "    %s: %s\n", bs->commands[c].name, d);
				free(d);
			}
		}
	}
}

void report_list_json(struct sbuf *out, struct suite *const *suites, size_t nr,
		      unsigned char *const *selected)
{
	struct json_emit j;
	json_emit_init(&j, out, 1);
	json_emit_begin_object(&j);
	json_emit_key(&j, "suites");
	json_emit_begin_array(&j);
	for (size_t i = 0; i < nr; i++) {
		const struct suite *s = suites[i];
		json_emit_begin_object(&j);
		json_emit_kv_string(&j, "name", s->name);
		json_emit_kv_string(&j, "file", s->file);
		json_emit_key(&j, "benchmarks");
		json_emit_begin_array(&j);
		for (size_t b = 0; b < s->nr_benches; b++) {
			if (!selected[i][b])
				continue;
			const struct bench_spec *bs = &s->benches[b];
			json_emit_begin_object(&j);
			json_emit_kv_string(&j, "name", bs->name);
			json_emit_key(&j, "tags");
			json_emit_begin_array_inline(&j);
			for (size_t t = 0; t < bs->tags.nr; t++)
				json_emit_string(&j, bs->tags.v[t]);
			json_emit_end_array(&j);
			json_emit_key(&j, "commands");
			json_emit_begin_array(&j);
			for (size_t c = 0; c < bs->nr_commands; c++) {
				char *d = exec_spec_display(&bs->commands[c].exec);
				json_emit_begin_object(&j);
				json_emit_kv_string(&j, "name", bs->commands[c].name);
				json_emit_kv_string(&j, "command", d);
				json_emit_kv_bool(&j, "shell", bs->commands[c].exec.shell);
				json_emit_end_object(&j);
				free(d);
			}
			json_emit_end_array(&j);
			json_emit_end_object(&j);
		}
		json_emit_end_array(&j);
		json_emit_end_object(&j);
	}
	json_emit_end_array(&j);
	json_emit_end_object(&j);
	json_emit_finish(&j);
	sbuf_addch(out, '\n');
}
