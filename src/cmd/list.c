/* kagari list: the benchmarks and commands a selection would run. */
#include <stdio.h>
#include <string.h>

#include "base/sbuf.h"
#include "cmd/cmd.h"
#include "cmd/common.h"
#include "cmd/exit.h"
#include "measure/execute.h"
#include "report/json_emit.h"

#include <stdlib.h>

struct list_cli {
	struct cli_common common;
	struct cli_selection selection;
	struct cli_out out; /* format */
};

static const struct opt list_opts[] = {
    OPT_COMMON_SELECTION(struct list_cli),
    {"format", OPT_ENUM, offsetof(struct list_cli, out.format), "FMT", "text (default) or json",
     "text|json"},
    {NULL, 0, 0, NULL, NULL, NULL},
};

static void list_text(const struct loaded_suites *ls, struct sbuf *out)
{
	for (size_t i = 0; i < ls->nr; i++) {
		const struct suite *s = ls->suites[i];
		sbuf_addf(out, "%s (%s)\n", s->name, s->file);
		for (size_t b = 0; b < s->nr_benches; b++) {
			if (!ls->selected[i][b])
				continue;
			const struct bench_spec *bs = &s->benches[b];
			sbuf_addf(out, "  %s", bs->name);
			for (size_t t = 0; t < bs->tags.nr; t++)
				sbuf_addf(out, "%s%s", t ? ", " : "  [", bs->tags.v[t]);
			sbuf_adds(out, bs->tags.nr ? "]\n" : "\n");
			for (size_t c = 0; c < bs->nr_commands; c++) {
				char *d = execute_command_display(&bs->commands[c].exec);
				sbuf_addf(out, "    %s: %s\n", bs->commands[c].name, d);
				free(d);
			}
		}
	}
}

static void list_json(const struct loaded_suites *ls, struct sbuf *out)
{
	struct json_emit j;
	json_emit_init(&j, out, 1);
	json_emit_begin_object(&j);
	json_emit_key(&j, "suites");
	json_emit_begin_array(&j);
	for (size_t i = 0; i < ls->nr; i++) {
		const struct suite *s = ls->suites[i];
		json_emit_begin_object(&j);
		json_emit_kv_string(&j, "name", s->name);
		json_emit_kv_string(&j, "file", s->file);
		json_emit_key(&j, "benchmarks");
		json_emit_begin_array(&j);
		for (size_t b = 0; b < s->nr_benches; b++) {
			if (!ls->selected[i][b])
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
				char *d = execute_command_display(&bs->commands[c].exec);
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

static int list_exec(const void *opts, struct cmd_env *env)
{
	const struct list_cli *cli = opts;
	struct loaded_suites ls;
	int rc = common_load(&cli->common.args, &ls);
	if (!rc)
		rc = common_select(&cli->selection, &ls);
	if (!rc) {
		struct sbuf out = SBUF_INIT;
		if (cli->out.format && !strcmp(cli->out.format, "json"))
			list_json(&ls, &out);
		else
			list_text(&ls, &out);
		fputs(out.buf, stdout);
		sbuf_release(&out);
	}
	common_release(&ls);
	return rc;
}

const struct cmd_entry cmd_list = {
    .name = "list",
    .args = "[--filter RE] [--tag T] [--skip-tag T] [--format text|json] [PATH...]",
    .summary = "list the benchmarks and commands a selection would run",
    .opts = list_opts,
    .cli_size = sizeof(struct list_cli),
    .exec = list_exec,
};
