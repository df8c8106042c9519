/*
 * kagari list without a process: a suite loaded from text and a selection
 * give the text and JSON of report/list.h, compared whole with
 * tests/data/golden/out/list.{text,json} (KAGARI_UPDATE_GOLDEN=1 rewrites
 * them); a benchmark left out of the selection is not listed, and a
 * command is shown as a user would type it (quoted for sh where needed).
 */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <string.h>

#include "base/sbuf.h"
#include "report/list.h"
#include "suite/load.h"
#include "suite/model.h"

#include "golden.h"

static const char suite_text[] =
    "version: \"1\"\n"
    "name: demo\n"
    "benchmarks:\n"
    "  - name: parse\n"
    "    tags: [smoke, io]\n"
    "    commands:\n"
    "      big: {command: [\"${root}/big\", --in, \"data/big file.json\"]}\n"
    "      quote: {command: [\"./tool\", \"it's\"]}\n"
    "  - name: skipped\n"
    "    commands:\n"
    "      run: {command: [./skip]}\n"
    "  - name: shell\n"
    "    commands:\n"
    "      run: {command: \"sort -n < in.txt | head -3\", shell: true}\n";

static void test_outputs_golden(void **state)
{
	(void)state;
	struct sbuf errs = SBUF_INIT, out = SBUF_INIT;
	struct suite *s = suite_load_mem("demo.yaml", suite_text, sizeof(suite_text) - 1, &errs);
	if (!s)
		fail_msg("suite: %s", errs.buf);
	assert_int_equal(s->nr_benches, 3);
	unsigned char sel[3] = {1, 0, 1};
	unsigned char *selected[1] = {sel};
	struct suite *suites[1] = {s};

	report_list_text(&out, suites, 1, selected);
	assert_int_equal(check_golden(GOLDEN_DIR "/out/list.text", &out), 0);
	assert_null(strstr(out.buf, "skipped"));
	assert_non_null(strstr(out.buf, "'data/big file.json'"));
	assert_non_null(strstr(out.buf, "'it'\\''s'"));
	sbuf_reset(&out);
	report_list_json(&out, suites, 1, selected);
	assert_int_equal(check_golden(GOLDEN_DIR "/out/list.json", &out), 0);
	assert_non_null(strstr(out.buf, "\"shell\": true"));
	suite_free(s);
	sbuf_release(&out);
	sbuf_release(&errs);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_outputs_golden),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
