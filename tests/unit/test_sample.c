/*
 * Tests for measure/sample.c and measure/symbols.c: the record parser on
 * hand-made records, the symbolizer on this (position-independent) test
 * program and on files that cannot be read, and real sampling of the
 * synthetic call tree (bench/profile_tree.c, depth 4) through the runner
 * process with the cpu-clock software event, which works without a PMU.
 * `test_sample hardware` runs the same with hardware cycles and skips,
 * with the reason, where there is no PMU.
 */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <linux/perf_event.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "model/profile.h"
#include "base/sbuf.h"
#include "measure/runner.h"
#include "measure/sample.h"
#include "measure/symbols.h"
#include "test_skip.h"

#ifndef KAGARI_PROFILE_TREE
#define KAGARI_PROFILE_TREE "kagari-profile-tree"
#endif

static struct runner runner;

/* ---- hand-made records ---------------------------------------------------- */

static void put(struct sbuf *b, const void *p, size_t n)
{
	sbuf_add(b, p, n);
}

static void put64(struct sbuf *b, uint64_t v)
{
	put(b, &v, 8);
}

static void put32(struct sbuf *b, uint32_t v)
{
	put(b, &v, 4);
}

static void header(struct sbuf *b, uint32_t type, uint16_t misc, size_t size)
{
	struct perf_event_header h = { type, misc, (uint16_t)size };
	put(b, &h, sizeof(h));
}

static void trailer(struct sbuf *b, uint32_t pid, uint64_t time)
{
	put32(b, pid);
	put32(b, pid);
	put64(b, time);
}

static void mmap2(struct sbuf *b, uint32_t pid, uint64_t t, uint64_t start,
		  uint64_t len, uint64_t pgoff, uint32_t prot, const char *path)
{
	size_t name = (strlen(path) + 8) & ~(size_t)7;
	header(b, PERF_RECORD_MMAP2, 0, 8 + 8 + 24 + 24 + 8 + name + 16);
	put32(b, pid);
	put32(b, pid);
	put64(b, start);
	put64(b, len);
	put64(b, pgoff);
	put64(b, 0);
	put64(b, 0);
	put64(b, 0);
	put32(b, prot);
	put32(b, 0);
	char buf[256] = { 0 };
	memcpy(buf, path, strlen(path));
	put(b, buf, name);
	trailer(b, pid, t);
}

static void sample(struct sbuf *b, uint32_t pid, uint64_t t,
		   const uint64_t *ips, size_t n)
{
	header(b, PERF_RECORD_SAMPLE, PERF_RECORD_MISC_USER,
	       8 + 40 + 8 * (n + 1));
	put64(b, ips[0]);
	put32(b, pid);
	put32(b, pid);
	put64(b, t);
	put64(b, 250000);
	put64(b, n + 1);
	put64(b, (uint64_t)PERF_CONTEXT_USER);
	for (size_t i = 0; i < n; i++)
		put64(b, ips[i]);
}

static void test_parse(void **state)
{
	(void)state;
	struct sbuf b = SBUF_INIT;
	mmap2(&b, 7, 10, 0x1000, 0x2000, 0, PROT_READ | PROT_EXEC, "/x/prog");
	mmap2(&b, 7, 11, 0x9000, 0x1000, 0, PROT_READ, "/x/data"); /* not code */
	/* exec of 7, with its comm */
	header(&b, PERF_RECORD_COMM, PERF_RECORD_MISC_COMM_EXEC, 8 + 8 + 8 + 16);
	put32(&b, 7);
	put32(&b, 7);
	put(&b, "prog\0\0\0\0", 8);
	trailer(&b, 7, 5);
	uint64_t ips[] = { 0x1100, 0x1200, 0x1300 };
	sample(&b, 7, 20, ips, 3);
	header(&b, PERF_RECORD_LOST, 0, 8 + 16 + 16);
	put64(&b, 1);
	put64(&b, 42);
	trailer(&b, 7, 30);
	header(&b, PERF_RECORD_THROTTLE, 0, 8 + 24 + 16);
	put64(&b, 31);
	put64(&b, 1);
	put64(&b, 1);
	trailer(&b, 7, 31);
	/* fork of 8 from 7 */
	header(&b, PERF_RECORD_FORK, 0, 8 + 24 + 16);
	put32(&b, 8);
	put32(&b, 7);
	put32(&b, 8);
	put32(&b, 7);
	put64(&b, 40);
	trailer(&b, 8, 40);
	/* a truncated record at the end is counted, not read past */
	header(&b, PERF_RECORD_SAMPLE, 0, 64);

	struct sample_data d;
	memset(&d, 0, sizeof(d));
	sample_parse((const unsigned char *)b.buf, b.len, &d);
	assert_int_equal(d.nr_maps, 1);
	assert_string_equal(d.maps[0].path, "/x/prog");
	assert_int_equal(d.maps[0].start, 0x1000);
	assert_int_equal(d.maps[0].time, 10);
	assert_int_equal(d.nr_samples, 1);
	assert_int_equal(d.samples[0].nr_ips, 3); /* the context marker is gone */
	assert_int_equal(d.ips[d.samples[0].ip + 2], 0x1300);
	assert_int_equal(d.samples[0].time, 20);
	assert_int_equal(d.lost, 42);
	assert_int_equal(d.throttled, 1);
	assert_int_equal(d.forks, 1);
	assert_int_equal(d.nr_tasks, 2); /* the exec and the fork */
	assert_int_equal(d.malformed, 1);

	/* Aggregation: /x/prog cannot be read, so its frames are grouped as
	   unknown in "prog"; an address outside every mapping is [unknown]. */
	uint64_t ips2[] = { 0x1100, 0x50 };
	sample(&b, 7, 21, ips2, 2);
	struct sample_data d2;
	memset(&d2, 0, sizeof(d2));
	struct sbuf c = SBUF_INIT;
	/* re-parse without the broken record */
	sample_parse((const unsigned char *)b.buf, b.len, &d2);
	struct profile_set ps = PROFILE_SET_INIT;
	struct profile_run *r = profile_run_add(&ps, PROFILE_HEAD, 1, 1e6);
	struct symbols *sy = symbols_new();
	symbols_aggregate(sy, &d2, &ps, r);
	symbols_free(sy);
	assert_int_equal(r->samples, 1);
	size_t unk = profile_func_intern(&ps, "[unknown in prog]", "prog");
	assert_int_equal(r->counts[r->slot[unk] - 1].self, 1);
	profile_folded(&ps, PROFILE_HEAD, &c);
	assert_string_equal(c.buf, "[unknown_in_prog];[unknown_in_prog];"
				   "[unknown_in_prog] 1\n");
	profile_set_release(&ps);
	sample_data_release(&d);
	sample_data_release(&d2);
	sbuf_release(&b);
	sbuf_release(&c);
}

/* ---- the symbolizer on this program ------------------------------------- */

__attribute__((noinline)) int symbols_test_target(int x);
__attribute__((noinline)) int symbols_test_target(int x)
{
	__asm__ volatile("");
	return x * 3 + 1;
}

static void test_lookup_self(void **state)
{
	(void)state;
	/* Where is symbols_test_target mapped? /proc/self/maps gives the
	   mapping, its offset and the file: the same as an MMAP2 record. */
	uintptr_t addr = (uintptr_t)&symbols_test_target + 4;
	FILE *f = fopen("/proc/self/maps", "r");
	assert_non_null(f);
	char line[4096], path[4096] = "";
	unsigned long lo = 0, hi = 0, off = 0;
	int found = 0;
	while (fgets(line, sizeof(line), f)) {
		char perms[8];
		if (sscanf(line, "%lx-%lx %7s %lx %*s %*s %4095s", &lo, &hi, perms,
			   &off, path) == 5 &&
		    addr >= lo && addr < hi) {
			found = 1;
			break;
		}
	}
	fclose(f);
	assert_true(found);
	struct symbols *sy = symbols_new();
	const char *name = symbols_lookup_file(sy, path, addr - lo + off);
	assert_non_null(name);
	assert_string_equal(name, "symbols_test_target");
	/* Unreadable files have no symbols (and are asked once). */
	assert_null(symbols_lookup_file(sy, "/nonexistent/libx.so", 0x100));
	assert_null(symbols_lookup_file(sy, "[vdso]", 0x100));
	symbols_free(sy);
	char *b = symbols_binary_name("/usr/lib/libc.so.6 (deleted)");
	assert_string_equal(b, "libc.so.6");
	free(b);
	assert_int_equal(symbols_test_target(1), 4);
}

/* ---- real sampling ------------------------------------------------------ */

static void sampled_tree(const struct sample_probe *p)
{
	struct sampler s = SAMPLER_INIT;
	struct sbuf err = SBUF_INIT;
	struct child_result res = CHILD_RESULT_INIT;
	struct runner_request req = RUNNER_REQUEST_INIT;
	const char *argv[] = { KAGARI_PROFILE_TREE, "-n", "40", NULL };
	req.argv = argv;
	if (sampler_begin(&s, p, runner_pid(&runner), SAMPLE_DEFAULT_FREQ, &err))
		fail_msg("sampler_begin: %s", err.buf);
	int rc = runner_run(&runner, &req, &res, &err);
	assert_int_equal(rc, 0);
	struct sample_data d;
	assert_int_equal(sampler_end(&s, &d, &err), 0);
	/* ~80 ms of CPU at ~4 kHz; leave room for a loaded machine. */
	print_message("%s: %zu samples, %zu maps, lost %llu, throttled %llu\n",
		      p->name, d.nr_samples, d.nr_maps,
		      (unsigned long long)d.lost, (unsigned long long)d.throttled);
	assert_true(d.nr_samples >= 50);
	assert_true(d.nr_maps >= 2); /* the program and ld.so at least */

	struct profile_set ps = PROFILE_SET_INIT;
	double cpu = (double)(res.user_ns + res.sys_ns);
	struct profile_run *r = profile_run_add(&ps, PROFILE_HEAD, 1, cpu);
	struct symbols *sy = symbols_new();
	symbols_aggregate(sy, &d, &ps, r);
	symbols_free(sy);
	/* The leaves do the work: most samples are theirs, and with frame
	   pointers each sample's chain reaches the root node_1 and main. */
	uint64_t leaves = 0, leaf_funcs = 0;
	for (size_t i = 0; i < r->nr; i++) {
		const struct profile_func *f = &ps.funcs[r->counts[i].func];
		if (!strncmp(f->function, "leaf_1", 6)) {
			assert_string_equal(f->binary, "kagari-profile-tree");
			leaves += r->counts[i].self;
			leaf_funcs++;
		}
	}
	assert_true(leaves * 10 >= r->samples * 8);
	assert_true(leaf_funcs >= 12); /* of 16, each ~6% */
	size_t root = profile_func_intern(&ps, "node_1", "kagari-profile-tree");
	assert_true(root < r->nr_slot && r->slot[root]);
	assert_true(r->counts[r->slot[root] - 1].incl * 10 >= leaves * 9);
	struct sbuf folded = SBUF_INIT;
	profile_folded(&ps, PROFILE_HEAD, &folded);
	/* GCC may set up no frame in a leaf that needs none, even with
	   -fno-omit-frame-pointer: then the chain skips the leaf's caller
	   (the ELF return address read is the caller's caller's). */
	assert_true(strstr(folded.buf, "main;node_1;node_10;node_100;"
					"node_1000;leaf_10000 ") ||
		    strstr(folded.buf, "main;node_1;node_10;node_100;"
				       "leaf_10000 "));
	sbuf_release(&folded);
	profile_set_release(&ps);
	sample_data_release(&d);
	sampler_release(&s);
	child_result_release(&res);
	sbuf_release(&err);
}

static void test_software(void **state)
{
	(void)state;
	struct sample_probe p;
	sample_probe(&p, 1);
	if (!p.ok) {
		char why[512];
		snprintf(why, sizeof(why), "cpu-clock sampling: %s", p.why);
		sample_probe_release(&p);
		test_skip(why, NULL);
	}
	assert_string_equal(p.name, "cpu-clock");
	assert_false(p.hardware);
	sampled_tree(&p);
	sample_probe_release(&p);
}

static void test_hardware(void **state)
{
	(void)state;
	struct sample_probe p;
	sample_probe(&p, 0);
	if (!p.ok || !p.hardware) {
		char why[512];
		snprintf(why, sizeof(why), "no hardware sampling here: %s",
			 p.why_not_hardware ? p.why_not_hardware : p.why);
		sample_probe_release(&p);
		test_skip(why, NULL);
	}
	assert_true(!strncmp(p.name, "cycles", 6));
	print_message("hardware sampling with %s (precise_ip %d)\n", p.name,
		      p.precise_ip);
	sampled_tree(&p);
	sample_probe_release(&p);
}

static void test_not_ok(void **state)
{
	(void)state;
	struct sample_probe p;
	memset(&p, 0, sizeof(p));
	p.why = "kernel.perf_event_paranoid is 3";
	struct sampler s = SAMPLER_INIT;
	struct sbuf err = SBUF_INIT;
	assert_int_equal(sampler_begin(&s, &p, 0, 4000, &err), -1);
	assert_string_equal(err.buf, "kernel.perf_event_paranoid is 3");
	struct sample_data d;
	assert_int_equal(sampler_end(&s, &d, &err), -1);
	sampler_release(&s);
	sbuf_release(&err);
}

int main(int argc, char **argv)
{
	int hardware = argc > 1 && strcmp(argv[1], "hardware") == 0;
	struct sbuf err = SBUF_INIT;
	if (runner_start(&runner, &err)) {
		fprintf(stderr, "cannot start the runner: %s\n", err.buf);
		return 1;
	}
	sbuf_release(&err);
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_parse),
		cmocka_unit_test(test_lookup_self),
		cmocka_unit_test(test_software),
		cmocka_unit_test(test_not_ok),
	};
	const struct CMUnitTest hw[] = {
		cmocka_unit_test(test_hardware),
	};
	int failed = hardware ? cmocka_run_group_tests(hw, NULL, NULL)
			      : cmocka_run_group_tests(tests, NULL, NULL);
	runner_stop(&runner);
	return test_skip_status(failed);
}
