/*
 * Tests for analyze/accept: the Kagari-Accept trailer's grammar (what is
 * accepted, what is refused and the reason a user reads), and how an
 * acceptance changes a regression's verdict: up to +P% accepted with the
 * commit, beyond it a regression that names the acceptance, other
 * commands, metrics and verdicts untouched.
 */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <stdlib.h>
#include <string.h>

#include "analyze/accept.h"
#include "base/sbuf.h"
#include "base/xalloc.h"

#define SHA "0123456789abcdef0123456789abcdef01234567"

static void test_parse_ok(void **state)
{
	(void)state;
	struct acceptance a;
	struct sbuf err = SBUF_INIT;
	memset(&a, 0, sizeof(a));
	assert_int_equal(accept_parse("parse/fast latency +15%", SHA, &a, &err), 0);
	assert_string_equal(a.benchmark, "parse");
	assert_string_equal(a.command, "fast");
	assert_int_equal(a.metric, METRIC_LATENCY);
	assert_true(a.max_percent == 15);
	assert_string_equal(a.commit, SHA);
	acceptance_release(&a);
	/* a benchmark name with a slash: the command is after the last one */
	assert_int_equal(accept_parse("io/big/cat  peak_rss\t+2.5%", SHA, &a, &err), 0);
	assert_string_equal(a.benchmark, "io/big");
	assert_string_equal(a.command, "cat");
	assert_int_equal(a.metric, METRIC_PEAK_RSS);
	assert_true(a.max_percent == 2.5);
	acceptance_release(&a);
	sbuf_release(&err);
}

static void refused(const char *value, const char *why)
{
	struct acceptance a;
	struct sbuf err = SBUF_INIT;
	memset(&a, 0, sizeof(a));
	assert_int_equal(accept_parse(value, SHA, &a, &err), -1);
	if (!strstr(err.buf, why))
		fail_msg("'%s': message '%s' lacks '%s'", value, err.buf, why);
	assert_null(a.benchmark);
	sbuf_release(&err);
}

static void test_parse_refused(void **state)
{
	(void)state;
	refused("", "BENCHMARK/COMMAND METRIC +P%");
	refused("parse/fast latency", "BENCHMARK/COMMAND METRIC +P%");
	refused("parse latency +15%", "BENCHMARK/COMMAND METRIC +P%");
	refused("/fast latency +15%", "BENCHMARK/COMMAND METRIC +P%");
	refused("parse/ latency +15%", "BENCHMARK/COMMAND METRIC +P%");
	refused("parse/fast latency +15% please", "BENCHMARK/COMMAND METRIC +P%");
	refused("parse/fast speed +15%", "unknown or incomparable metric 'speed'");
	refused("parse/fast latency 15%", "the bound '15%'");
	refused("parse/fast latency +15", "the bound '+15'");
	refused("parse/fast latency -15%", "the bound '-15%'");
	refused("parse/fast latency +0%", "0 < P <= 1000");
	refused("parse/fast latency +1001%", "0 < P <= 1000");
	refused("parse/fast latency +1e2%", "the bound '+1e2%'");
	refused("parse/fast latency +x%", "the bound '+x%'");
}

/* A result with commands fast and slow of benchmark parse, each with a
   gated latency comparison of verdict v and change c. */
static void one(struct run_result *r, const char *v, double change)
{
	run_result_init(r);
	r->mode = xstrdup("compare");
	r->nr_suites = 1;
	r->suites = xcalloc(1, sizeof(*r->suites));
	struct suite_result *s = &r->suites[0];
	s->nr_benches = 1;
	s->benches = xcalloc(1, sizeof(*s->benches));
	struct bench_result *b = &s->benches[0];
	strvec_init(&b->tags);
	b->name = xstrdup("parse");
	b->nr_commands = 2;
	b->commands = xcalloc(2, sizeof(*b->commands));
	for (int i = 0; i < 2; i++) {
		struct command_result *c = &b->commands[i];
		c->name = xstrdup(i ? "slow" : "fast");
		for (int m = METRIC_LATENCY; m <= METRIC_CPU_TOTAL; m += METRIC_CPU_TOTAL) {
			struct comparison *cp = &c->comparison[m];
			cp->present = 1;
			cp->gate = 1;
			cp->verdict = (enum verdict)verdict_parse(v);
			cp->reason = xstrdup("why");
			cp->change_percent = change;
		}
	}
}

static void accept_one(struct run_result *r, const char *value)
{
	struct acceptance a;
	struct sbuf err = SBUF_INIT;
	memset(&a, 0, sizeof(a));
	assert_int_equal(accept_parse(value, SHA, &a, &err), 0);
	run_result_add_acceptance(r, &a);
	acceptance_release(&a);
	sbuf_release(&err);
}

static void test_apply(void **state)
{
	(void)state;
	struct run_result r;
	one(&r, "regression", 14.9);
	accept_one(&r, "parse/fast latency +15%");
	accept_apply(&r);
	const struct command_result *fast = &r.suites[0].benches[0].commands[0];
	const struct command_result *slow = &r.suites[0].benches[0].commands[1];
	assert_string_equal(verdict_name(fast->comparison[METRIC_LATENCY].verdict), "accepted");
	assert_string_equal(fast->comparison[METRIC_LATENCY].accepted_by, SHA);
	assert_string_equal(fast->comparison[METRIC_LATENCY].reason,
			    "accepted by commit 0123456789ab (Kagari-Accept: up to +15%): why");
	/* another metric, another command: untouched */
	assert_string_equal(verdict_name(fast->comparison[METRIC_CPU_TOTAL].verdict), "regression");
	assert_string_equal(verdict_name(slow->comparison[METRIC_LATENCY].verdict), "regression");
	assert_null(slow->comparison[METRIC_LATENCY].accepted_by);
	run_result_release(&r);

	/* beyond the bound: still a regression, the reason names the bound */
	one(&r, "regression", 15.1);
	accept_one(&r, "parse/fast latency +15%");
	accept_apply(&r);
	fast = &r.suites[0].benches[0].commands[0];
	assert_string_equal(verdict_name(fast->comparison[METRIC_LATENCY].verdict), "regression");
	assert_null(fast->comparison[METRIC_LATENCY].accepted_by);
	assert_string_equal(fast->comparison[METRIC_LATENCY].reason,
			    "why; beyond the +15% that commit 0123456789ab accepts");
	run_result_release(&r);

	/* the largest of two bounds counts; a pass stays a pass */
	one(&r, "regression", 30);
	accept_one(&r, "parse/slow latency +10%");
	accept_one(&r, "parse/slow latency +40%");
	accept_apply(&r);
	slow = &r.suites[0].benches[0].commands[1];
	assert_string_equal(verdict_name(slow->comparison[METRIC_LATENCY].verdict), "accepted");
	run_result_release(&r);
	one(&r, "pass", 3);
	accept_one(&r, "parse/fast latency +15%");
	accept_apply(&r);
	assert_string_equal(verdict_name(r.suites[0].benches[0].commands[0].comparison[METRIC_LATENCY].verdict), "pass");
	assert_string_equal(r.suites[0].benches[0].commands[0].comparison[METRIC_LATENCY].reason, "why");
	run_result_release(&r);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_parse_ok),
		cmocka_unit_test(test_parse_refused),
		cmocka_unit_test(test_apply),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
