/*
 * Golden outputs of what `kagari report` cannot render: the GitHub
 * workflow-command annotations and the short fallback step summary
 * (report/annotations.h) of every fixed report of tests/data/golden/NAME.json,
 * compared WHOLE with tests/data/golden/out/NAME.annotations and
 * NAME.summary-fallback. The companion of tests/e2e/t_golden.sh, which
 * says how the inputs are made; KAGARI_UPDATE_GOLDEN=1 rewrites the
 * goldens, and a difference is printed as a diff.
 */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <glob.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "base/sbuf.h"
#include "model/result.h"
#include "report/annotations.h"
#include "report/read_json.h"

#include "golden.h"

static void test_annotations_golden(void **state)
{
	glob_t g;
	int failed = 0;
	(void)state;

	assert_int_equal(glob(GOLDEN_DIR "/*.json", 0, NULL, &g), 0);
	/* compare, run, merged, profile, odd (make_inputs.py) */
	assert_true(g.gl_pathc >= 5);
	for (size_t i = 0; i < g.gl_pathc; i++) {
		const char *path = g.gl_pathv[i];
		struct sbuf text = SBUF_INIT, out = SBUF_INIT, err = SBUF_INIT;
		struct sbuf golden = SBUF_INIT;
		struct run_result r;
		const char *base = strrchr(path, '/') + 1;
		size_t stem = strlen(base) - strlen(".json");

		run_result_init(&r);
		assert_int_equal(sbuf_read_file(&text, path, 1 << 24), 0);
		if (report_read_json(text.buf, text.len, path, &r, &err))
			fail_msg("%s: %s", path, err.buf);

		github_annotations(&out, &r, 0, NULL);
		sbuf_addf(&golden, GOLDEN_DIR "/out/%.*s.annotations", (int)stem, base);
		failed |= check_golden(golden.buf, &out);

		sbuf_reset(&out);
		sbuf_reset(&golden);
		github_summary_fallback(&out, &r, 0);
		sbuf_addf(&golden, GOLDEN_DIR "/out/%.*s.summary-fallback", (int)stem,
			  base);
		failed |= check_golden(golden.buf, &out);

		run_result_release(&r);
		sbuf_release(&text);
		sbuf_release(&out);
		sbuf_release(&err);
		sbuf_release(&golden);
	}
	globfree(&g);
	assert_int_equal(failed, 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_annotations_golden),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
