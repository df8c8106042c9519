/*
 * Tests for the history branch's run files (history/sync.h): a run file
 * imported and exported again is the same text (also from another
 * writer's layout); importing it twice stores one run; files that are not kagari runs, of a newer
 * format, with an origin not matching their name, a field of the wrong kind, a commit id that is
 * not 4 to 64 hex digits or a fingerprint that is not 16 are refused whole (nothing stored) with a
 * reason naming the field; origins have their shape and differ; credentials in a remote's URL are
 * redacted.
 */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "base/sbuf.h"
#include "base/strvec.h"
#include "base/tmpdir.h"
#include "base/xalloc.h"
#include "history/history.h"
#include "history/sync.h"

#define ORIGIN "20261204T191807Z-e4bf2036eae7-091b445f7f99fc12-a37d85b32e19"

/* A run file as kagari writes it (compact, keys in its order). */
static const char run_file[] =
    "{\"kagari_history\":1,\"origin\":\"" ORIGIN "\","
    "\"run\":{\"time\":\"2026-12-04T19:18:07.020Z\",\"started\":\"2026-12-04T19:18:07.011Z\","
    "\"kind\":\"run\",\"head_sha\":\"e4bf2036eae786308bf30949696b7ca67a3f4b00\","
    "\"base_sha\":null,\"base_ref\":null,\"dirty\":0,\"branch\":\"main\",\"seed\":42,"
    "\"version\":\"0.1.0\",\"exit_code\":0,\"kernel\":\"6.1\",\"counters_source\":null},"
    "\"machine\":{\"fingerprint\":\"091b445f7f99fc12\",\"machine_id\":\"63a8b1250a83fe02\","
    "\"cpu_model\":\"AMD EPYC\",\"cores\":2,\"arch\":\"x86_64\"},"
    "\"results\":[[\"s\",\"b\",\"m\",\"head\",\"latency\",\"pass\",2,1500.5,1500.5,1000.0,"
    "2001.0,707.5,1950.25,null,null,null,null],"
    "[\"s\",\"b\",\"m\",\"head\",\"allocs\",\"pass\",2,100.0,100.0,100.0,100.0,0.0,100.0,\"pass\","
    "0.5,"
    "-1.25,2.5]],"
    "\"report\":{\"schema_version\":\"1\",\"tool\":\"kagari\"}}\n";

struct fx {
	char *dir;
	struct history *h;
};

static int setup(void **state)
{
	struct fx *f = xcalloc(1, sizeof(*f));
	char tmpl[] = "/tmp/kagari-test-sync-XXXXXX";
	f->dir = xstrdup(mkdtemp(tmpl));
	char *path = xstrfmt("%s/h.sqlite", f->dir);
	struct sbuf err = SBUF_INIT;
	assert_int_equal(history_open(path, 1000, &f->h, &err), 0);
	free(path);
	sbuf_release(&err);
	*state = f;
	return 0;
}

static int teardown(void **state)
{
	struct fx *f = *state;
	history_close(f->h);
	char *cmd = xstrfmt("rm -rf '%s'", f->dir);
	assert_int_equal(system(cmd), 0);
	free(cmd);
	free(f->dir);
	free(f);
	return 0;
}

static int64_t runs(struct history *h)
{
	struct sbuf err = SBUF_INIT;
	int64_t n = history_count_runs(h, &err);
	sbuf_release(&err);
	return n;
}

static int import(struct history *h, const char *origin, const char *text, struct sbuf *why)
{
	struct sbuf err = SBUF_INIT;
	assert_int_equal(history_begin(h, &err), 0);
	int rc = history_run_import(h, origin, text, strlen(text), why, &err);
	assert_int_equal(history_commit(h, &err), 0);
	assert_string_equal(err.buf, "");
	sbuf_release(&err);
	return rc;
}

static void test_round_trip(void **state)
{
	struct fx *f = *state;
	struct sbuf why = SBUF_INIT, out = SBUF_INIT, err = SBUF_INIT;
	assert_int_equal(import(f->h, ORIGIN, run_file, &why), 1);
	assert_int_equal(runs(f->h), 1);
	assert_int_equal(history_run_export(f->h, ORIGIN, &out, &err), 0);
	assert_string_equal(out.buf, run_file);
	/* Twice is once. */
	assert_int_equal(import(f->h, ORIGIN, run_file, &why), 0);
	assert_int_equal(runs(f->h), 1);
	struct strvec o = STRVEC_INIT;
	assert_int_equal(history_list_origins(f->h, &o, &err), 0);
	assert_int_equal(o.nr, 1);
	assert_string_equal(o.v[0], ORIGIN);
	/* Its series is there for `kagari history`. */
	struct history_points p = {0};
	assert_int_equal(history_query(f->h, NULL, "allocs", &p, &err), 0);
	assert_int_equal(p.nr, 1);
	assert_true(p.v[0].median == 100);
	assert_string_equal(p.v[0].fingerprint, "091b445f7f99fc12");
	history_points_release(&p);
	strvec_clear(&o);
	sbuf_release(&why);
	sbuf_release(&out);
	sbuf_release(&err);
}

/* A file laid out by another writer (the report first, white space) is
   read whole: the same run, exported in kagari's layout again. */
static void test_other_layout(void **state)
{
	struct fx *f = *state;
	const char *rep = strstr(run_file, ",\"report\":");
	char *other =
	    xstrfmt("{ \"report\" : {\"schema_version\":\"1\", \"tool\":\"kagari\"},\n %.*s}",
		    (int)(rep - run_file - 1), run_file + 1);
	struct sbuf why = SBUF_INIT, out = SBUF_INIT, err = SBUF_INIT;
	assert_int_equal(import(f->h, ORIGIN, other, &why), 1);
	assert_int_equal(history_run_export(f->h, ORIGIN, &out, &err), 0);
	assert_string_equal(out.buf, run_file);
	free(other);
	sbuf_release(&why);
	sbuf_release(&out);
	sbuf_release(&err);
}

/* text refused: 2, the reason holds want, nothing stored. */
static void refused(struct fx *f, const char *origin, const char *text, const char *want)
{
	struct sbuf why = SBUF_INIT;
	assert_int_equal(import(f->h, origin, text, &why), 2);
	if (!strstr(why.buf, want))
		fail_msg("reason '%s' lacks '%s'", why.buf, want);
	assert_int_equal(runs(f->h), 0);
	sbuf_release(&why);
}

/* run_file with `from` replaced by `to` (once). */
static char *edit(const char *from, const char *to)
{
	const char *at = strstr(run_file, from);
	assert_non_null(at);
	return xstrfmt("%.*s%s%s", (int)(at - run_file), run_file, to, at + strlen(from));
}

static void test_refusals(void **state)
{
	struct fx *f = *state;
	refused(f, ORIGIN, "not json", "not JSON (line 1");
	refused(f, ORIGIN, "{\"schema_version\":\"1\"}", "not a kagari run");
	refused(f, ORIGIN, "[1,2]", "not a kagari run");
	char *t = edit("\"kagari_history\":1", "\"kagari_history\":2");
	refused(f, ORIGIN, t, "written by a newer kagari (run format 2; this one reads up to 1)");
	free(t);
	refused(f, "20261204T191807Z-e4bf2036eae7-091b445f7f99fc12-000000000000", run_file,
		"its origin does not match its file name");
	t = edit("\"kind\":\"run\",", "");
	refused(f, ORIGIN, t, "run.kind is missing");
	free(t);
	t = edit("\"cores\":2", "\"cores\":\"two\"");
	refused(f, ORIGIN, t, "machine.cores is not an integer");
	free(t);
	/* A bad second row: the first is not stored either. */
	t = edit("\"allocs\",\"pass\",2", "\"allocs\",\"pass\",\"2\"");
	refused(f, ORIGIN, t, "results[1][6] is not an integer");
	free(t);
	t = edit("\"report\":{", "\"report\":[{");
	refused(f, ORIGIN, t, "not JSON");
	free(t);
	t = edit("\"report\":{\"schema_version\":\"1\",\"tool\":\"kagari\"}", "\"report\":7");
	refused(f, ORIGIN, t, "report is not an object");
	free(t);
	/* Commit ids and fingerprints are shown and linked as they are: only
	   what git and kagari write passes (a history branch is anyone's). */
	static const char *const bad_shas[] = {"\"<plaintext>\"", "\"abc\"",	   "\"\"",
					       "\"E4BF2036\"",	  "\"e4bf 2036\"", NULL};
	for (int i = 0; bad_shas[i]; i++) {
		char *to = xstrfmt("\"head_sha\":%s", bad_shas[i]);
		t = edit("\"head_sha\":\"e4bf2036eae786308bf30949696b7ca67a3f4b00\"", to);
		refused(f, ORIGIN, t,
			"run.head_sha is not a commit id (4 to 64 lowercase hex digits)");
		free(t);
		free(to);
	}
	t = edit("\"base_sha\":null", "\"base_sha\":\"x\\u001b]0;t\\u0007\"");
	refused(f, ORIGIN, t, "run.base_sha is not a commit id");
	free(t);
	t = edit("\"fingerprint\":\"091b445f7f99fc12\"", "\"fingerprint\":\"091b445f7f99fc1\\n\"");
	refused(f, ORIGIN, t, "machine.fingerprint is not a fingerprint (16 lowercase hex digits)");
	free(t);
	struct sbuf err = SBUF_INIT;
	struct history_points p = {0};
	assert_int_equal(history_query(f->h, NULL, NULL, &p, &err), 0);
	assert_int_equal(p.nr, 0);
	sbuf_release(&err);
}

/* The rest of a paired comparison travels in the optional member
   "comparisons" (a kagari before it skips the member): round trip, into
   the points `kagari history` shows, and refusals of a bad one. */
static void test_comparisons(void **state)
{
	struct fx *f = *state;
	static const char cmp[] = "\"comparisons\":[[1,0.75,-1.5,2.25,0.25,5.0,1]],";
	char *text = edit("\"report\":", "\"comparisons\":[[1,0.75,-1.5,2.25,0.25,5.0,1]],"
					 "\"report\":");
	struct sbuf why = SBUF_INIT, out = SBUF_INIT, err = SBUF_INIT;
	assert_int_equal(import(f->h, ORIGIN, text, &why), 1);
	assert_int_equal(history_run_export(f->h, ORIGIN, &out, &err), 0);
	assert_string_equal(out.buf, text);
	assert_non_null(strstr(out.buf, cmp));
	struct history_points p = {0};
	assert_int_equal(history_query(f->h, NULL, "allocs", &p, &err), 0);
	assert_int_equal(p.nr, 1);
	assert_true(p.v[0].mean_change_percent == 0.75 && p.v[0].mean_ci_low_percent == -1.5 &&
		    p.v[0].mean_ci_high_percent == 2.25 && p.v[0].p_value == 0.25 &&
		    p.v[0].max_percent == 5 && p.v[0].gate == 1);
	assert_string_equal(p.v[0].verdict, "pass");
	history_points_release(&p);
	free(text);
	sbuf_release(&why);
	sbuf_release(&out);
	sbuf_release(&err);
}

static void test_comparisons_refused(void **state)
{
	struct fx *f = *state;
	char *t =
	    edit("\"report\":", "\"comparisons\":[[2,0.75,-1.5,2.25,0.25,5.0,1]],\"report\":");
	refused(f, ORIGIN, t,
		"comparisons[0] is not an array of a results row's index and 6 values");
	free(t);
	t = edit("\"report\":", "\"comparisons\":[[1,\"x\",-1.5,2.25,0.25,5.0,1]],\"report\":");
	refused(f, ORIGIN, t, "comparisons[0][1] is not a number or null");
	free(t);
	t = edit("\"report\":", "\"comparisons\":[[1,0.75,-1.5,2.25,0.25,5.0,0.5]],\"report\":");
	refused(f, ORIGIN, t, "comparisons[0][6] is not an integer or null");
	free(t);
	t = edit("\"report\":", "\"comparisons\":{},\"report\":");
	refused(f, ORIGIN, t, "comparisons is not an array");
	free(t);
}

static void test_origins(void **state)
{
	(void)state;
	char *a =
	    history_origin_new("2026-01-31T23:59:58.5Z", "0123456789abcdef0123456789abcdef01234567",
			       "00112233445566ff");
	char *b =
	    history_origin_new("2026-01-31T23:59:58.5Z", "0123456789abcdef0123456789abcdef01234567",
			       "00112233445566ff");
	assert_true(history_origin_valid(a));
	assert_memory_equal(a, "20260131T235958Z-0123456789ab-00112233445566ff-", 47);
	assert_string_not_equal(a, b); /* the random part */
	struct sbuf p = SBUF_INIT;
	history_run_path(a, &p);
	assert_memory_equal(p.buf, "runs/2026-01/20260131T235958Z-", 30);
	char *c = history_origin_new(NULL, NULL, NULL);
	assert_true(history_origin_valid(c));
	assert_memory_equal(c, "00000000T000000Z-000000000000-0000000000000000-", 47);
	assert_false(history_origin_valid("garbage"));
	assert_false(
	    history_origin_valid("20260131T235958Z-0123456789ab-00112233445566ff-../../../x"));
	free(a);
	free(b);
	free(c);
	sbuf_release(&p);
}

static void test_redact(void **state)
{
	(void)state;
	char *r = history_sync_redact("https://x-access-token:ghs_SECRET@github.com/o/r.git");
	assert_string_equal(r, "https://***@github.com/o/r.git");
	free(r);
	r = history_sync_redact("https://github.com/o/r@v.git");
	assert_string_equal(r, "https://github.com/o/r@v.git");
	free(r);
	r = history_sync_redact("../remote.git");
	assert_string_equal(r, "../remote.git");
	free(r);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test_setup_teardown(test_round_trip, setup, teardown),
	    cmocka_unit_test_setup_teardown(test_other_layout, setup, teardown),
	    cmocka_unit_test_setup_teardown(test_refusals, setup, teardown),
	    cmocka_unit_test_setup_teardown(test_comparisons, setup, teardown),
	    cmocka_unit_test_setup_teardown(test_comparisons_refused, setup, teardown),
	    cmocka_unit_test(test_origins),
	    cmocka_unit_test(test_redact),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
