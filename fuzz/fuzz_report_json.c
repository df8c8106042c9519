/*
 * fuzz/fuzz_report_json: libFuzzer target for the saved-report reader
 * (report/read_json.h) and, through it, every report writer.
 *
 * Invariants checked besides memory safety (abort() on violation):
 *   - rejection: exactly one reason, prefixed "FILE:" (FILE:LINE:COL for
 *     invalid JSON, FILE: FIELD.PATH otherwise);
 *   - acceptance: every format renders (table, json, csv, samples-csv,
 *     markdown, github, html) or fails with a reason; the JSON rendering
 *     reads back, and rendering that again gives the same text (what
 *     `kagari report` re-renders is a fixed point after one round trip).
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/sbuf.h"
#include "report/read_json.h"
#include "report/report.h"
#include "model/result.h"

#define REPORT_FUZZ_FILE "fuzz.json"

static void report_fail(const char *what, const struct sbuf *a,
			const struct sbuf *b)
{
	fprintf(stderr, "fuzz_report_json invariant violated: %s\n", what);
	if (a && a->len)
		fprintf(stderr, "1: %.4000s\n", a->buf);
	if (b && b->len)
		fprintf(stderr, "2: %.4000s\n", b->buf);
	abort();
}

static void render_all(const struct run_result *r)
{
	static const enum report_format formats[] = {
		REPORT_TABLE, REPORT_CSV, REPORT_SAMPLES_CSV, REPORT_MARKDOWN,
		REPORT_GITHUB, REPORT_HTML,
	};
	for (size_t i = 0; i < sizeof(formats) / sizeof(formats[0]); i++) {
		struct report_options o;
		report_options_init(&o);
		o.terminal_width = 80;
		struct sbuf out = SBUF_INIT, err = SBUF_INIT;
		if (report_render(r, formats[i], &o, &out, &err) && !err.len)
			report_fail("a writer failed without a reason", NULL, NULL);
		sbuf_release(&out);
		sbuf_release(&err);
	}
}

static int render_json(const struct run_result *r, struct sbuf *out)
{
	struct report_options o;
	report_options_init(&o);
	struct sbuf err = SBUF_INIT;
	int rc = report_render(r, REPORT_JSON, &o, out, &err);
	if (rc && !err.len)
		report_fail("the JSON writer failed without a reason", NULL, NULL);
	sbuf_release(&err);
	return rc;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct run_result r;
	struct sbuf err = SBUF_INIT;
	run_result_init(&r);
	int rc = report_read_json((const char *)data, size, REPORT_FUZZ_FILE, &r, &err);
	if (rc) {
		if (rc != -1 || !err.len)
			report_fail("rejected without a reason", &err, NULL);
		if (strncmp(err.buf, REPORT_FUZZ_FILE ":", sizeof(REPORT_FUZZ_FILE)))
			report_fail("a reason without FILE:", &err, NULL);
		run_result_release(&r);
		sbuf_release(&err);
		return 0;
	}
	if (err.len)
		report_fail("accepted with a message", &err, NULL);
	render_all(&r);

	struct sbuf j1 = SBUF_INIT, j2 = SBUF_INIT, e2 = SBUF_INIT;
	if (render_json(&r, &j1) == 0) {
		struct run_result r2;
		run_result_init(&r2);
		if (report_read_json(j1.buf, j1.len, "again.json", &r2, &e2))
			report_fail("kagari's own JSON does not read back", &e2, &j1);
		if (render_json(&r2, &j2) == 0 &&
		    (j1.len != j2.len || memcmp(j1.buf, j2.buf, j1.len)))
			report_fail("JSON -> read -> JSON is not a fixed point", &j1, &j2);
		run_result_release(&r2);
	}
	sbuf_release(&j1);
	sbuf_release(&j2);
	sbuf_release(&e2);
	run_result_release(&r);
	sbuf_release(&err);
	return 0;
}
