/* report/write_doctor: `kagari doctor`'s text and JSON (see doctor.h). */
#include "report/doctor.h"

#include "report/json_emit.h"

void report_doctor_text(struct sbuf *out, const struct doctor *d)
{
	for (size_t i = 0; i < d->nr; i++) {
		const struct doctor_line *l = &d->v[i];
		sbuf_addf(out, "%-4s  %s: %s", doctor_status_name(l->status), l->item, l->value);
		if (l->advice)
			sbuf_addf(out, " \xe2\x80\x94 %s", l->advice);
		sbuf_addch(out, '\n');
	}
}

void report_doctor_json(struct sbuf *out, const struct doctor *d)
{
	struct json_emit j;
	json_emit_init(&j, out, 1);
	json_emit_begin_object(&j);
	json_emit_key(&j, "checks");
	json_emit_begin_array(&j);
	for (size_t i = 0; i < d->nr; i++) {
		const struct doctor_line *l = &d->v[i];
		json_emit_begin_object_inline(&j);
		json_emit_kv_string(&j, "status", doctor_status_name(l->status));
		json_emit_kv_string(&j, "item", l->item);
		json_emit_kv_string(&j, "value", l->value);
		if (l->advice)
			json_emit_kv_string(&j, "advice", l->advice);
		else
			json_emit_kv_null(&j, "advice");
		json_emit_end_object(&j);
	}
	json_emit_end_array(&j);
	json_emit_end_object(&j);
	json_emit_finish(&j);
	sbuf_addch(out, '\n');
}
