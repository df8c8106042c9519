/*
 * kagari doctor without a process: the examination (measure/doctor.h)
 * gives a line per item with a status, and what it says of this machine's
 * terminal follows its inputs; the text and JSON outputs (report/doctor.h)
 * of a fixed list are compared whole with golden files
 * tests/data/golden/out/doctor.{text,json} (KAGARI_UPDATE_GOLDEN=1
 * rewrites them).
 */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <jansson.h>
#include <stdlib.h>
#include <string.h>

#include "base/sbuf.h"
#include "measure/doctor.h"
#include "report/doctor.h"

#include "golden.h"

static const struct doctor_line *find(const struct doctor *d, const char *item)
{
	for (size_t i = 0; i < d->nr; i++)
		if (!strcmp(d->v[i].item, item))
			return &d->v[i];
	return NULL;
}

static void test_examine(void **state)
{
	(void)state;
	struct doctor d = { NULL, 0, 0 };
	const struct doctor_inputs tty = { .counters_software = 1, .stdout_tty = 1 };

	doctor_examine(&d, &tty);
	assert_true(d.nr >= 10);
	for (size_t i = 0; i < d.nr; i++) {
		assert_true(d.v[i].status <= DOCTOR_INFO);
		assert_true(*d.v[i].item && d.v[i].value);
		assert_true(!d.v[i].advice || *d.v[i].advice);
	}
	/* every family of check is there */
	assert_non_null(find(&d, "perf_event_paranoid"));
	assert_non_null(find(&d, "event task-clock"));
	assert_non_null(find(&d, "valgrind"));
	assert_non_null(find(&d, "runner"));
	assert_non_null(find(&d, "ASLR"));
	const struct doctor_line *out = find(&d, "stdout");
	assert_non_null(out);
	assert_string_equal(out->value, "a terminal");
	doctor_release(&d);
	assert_int_equal(d.nr, 0);

	const struct doctor_inputs pipe = { .counters_software = 1, .stdout_tty = 0 };
	doctor_examine(&d, &pipe);
	out = find(&d, "stdout");
	assert_non_null(out);
	assert_string_equal(out->value, "not a terminal");
	assert_non_null(strstr(out->advice, "--format json"));
	doctor_release(&d);
}

static void test_outputs_golden(void **state)
{
	(void)state;
	struct doctor d = { NULL, 0, 0 };
	struct sbuf out = SBUF_INIT;

	doctor_add(&d, DOCTOR_OK, "perf_event_paranoid", "2",
		   "user-space counting of your own programs is allowed");
	doctor_add(&d, DOCTOR_WARN, "event cycles", "does not open",
		   "no hardware performance counters for 'cycles' here");
	doctor_add(&d, DOCTOR_INFO, "CPUs", "2 online", NULL);
	doctor_add(&d, DOCTOR_INFO, "name \"quoted\" \\ tab\t", "é ✓", "");
	report_doctor_text(&out, &d);
	assert_int_equal(check_golden(GOLDEN_DIR "/out/doctor.text", &out), 0);
	sbuf_reset(&out);
	report_doctor_json(&out, &d);
	assert_int_equal(check_golden(GOLDEN_DIR "/out/doctor.json", &out), 0);
	/* the JSON parses, with null for no advice */
	json_error_t jerr;
	json_t *root = json_loads(out.buf, 0, &jerr);
	assert_non_null(root);
	json_t *checks = json_object_get(root, "checks");
	assert_int_equal(json_array_size(checks), 4);
	assert_true(json_is_null(json_object_get(json_array_get(checks, 2), "advice")));
	assert_string_equal(
	    json_string_value(json_object_get(json_array_get(checks, 3), "item")),
	    "name \"quoted\" \\ tab\t");
	json_decref(root);
	sbuf_release(&out);
	doctor_release(&d);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_examine),
		cmocka_unit_test(test_outputs_golden),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
