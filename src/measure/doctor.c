/* measure/doctor: the machine examined for `kagari doctor` (see doctor.h). */
#include <dirent.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "measure/doctor.h"

#include "base/sbuf.h"
#include "base/xalloc.h"
#include "measure/alloc.h"
#include "measure/counters.h"
#include "measure/runner.h"
#include "measure/sample.h"
#include "measure/syscalls.h"
#include "measure/sysinfo.h"
#include "measure/valgrind.h"

/* The first line of a small file, trimmed; -1 when unreadable. */
static int read_line(const char *path, struct sbuf *out)
{
	sbuf_reset(out);
	if (sbuf_read_file(out, path, 4096) < 0)
		return -1;
	char *nl = strchr(out->buf, '\n');
	if (nl)
		sbuf_setlen(out, (size_t)(nl - out->buf));
	sbuf_rtrim(out);
	return 0;
}

/* Returns 1 when the hardware `instructions` event opens (auto: perf). */
static int check_counters(struct doctor *d, const struct doctor_inputs *env)
{
	struct counters_probe p;
	struct sbuf v = SBUF_INIT;
	counters_probe(&p, env->counters_software);

	if (p.paranoid == INT32_MIN)
		doctor_add(d, DOCTOR_INFO, "perf_event_paranoid", "unreadable",
			   "no /proc/sys/kernel/perf_event_paranoid: this kernel may "
			   "lack perf events");
	else if (p.paranoid > 2) {
		sbuf_addf(&v, "%d", p.paranoid);
		doctor_add(d, DOCTOR_WARN, "perf_event_paranoid", v.buf,
			   "unprivileged counting is forbidden; `sudo sysctl "
			   "kernel.perf_event_paranoid=1` allows counting your own "
			   "programs");
	} else {
		sbuf_addf(&v, "%d", p.paranoid);
		doctor_add(d, DOCTOR_OK, "perf_event_paranoid", v.buf,
			   "user-space counting of your own programs is allowed");
	}

	int hw = 0, hw_ok = 0;
	for (int e = 0; e < COUNTERS__COUNT; e++) {
		enum counters_event ev = (enum counters_event)e;
		int ok = !!(p.available & COUNTERS_BIT(e));
		sbuf_reset(&v);
		sbuf_addf(&v, "event %s", counters_event_name(ev));
		if (counters_event_hardware(ev)) {
			hw++;
			hw_ok += ok;
		}
		doctor_add(d, ok ? DOCTOR_OK : DOCTOR_WARN, v.buf, ok ? "opens" : "does not open",
			   ok ? NULL : p.why[e]);
	}
	sbuf_reset(&v);
	if (hw_ok == hw)
		doctor_add(d, DOCTOR_OK, "PMU", "present: every hardware event opens", NULL);
	else if (hw_ok)
		doctor_add(d, DOCTOR_WARN, "PMU", "present, but some hardware events do not open",
			   "the missing ones are reported `unsupported` with the reason above");
	else if (p.err[COUNTERS_CYCLES] == ENOENT || p.err[COUNTERS_CYCLES] == ENODEV)
		doctor_add(d, DOCTOR_WARN, "PMU", "absent (a virtual machine or hosted runner)",
			   "cycles and branch misses cannot be counted here; instructions, "
			   "estimated cycles and cache misses come from valgrind "
			   "(`instrument: auto`)");
	else
		doctor_add(d, DOCTOR_WARN, "PMU", "unusable", p.why[COUNTERS_CYCLES]);

	sbuf_reset(&v);
	sbuf_adds(&v, p.group_read ? "one read per group" : "one read per event");
	doctor_add(d, p.group_read ? DOCTOR_OK : DOCTOR_INFO, "inherited counter groups", v.buf,
		   p.group_read ? NULL
				: "the kernel refuses group reads of inherited "
				  "events; kagari reads each event apart");

	int perf = !!(p.available & COUNTERS_BIT(COUNTERS_INSTRUCTIONS));
	doctor_add(d, perf ? DOCTOR_OK : DOCTOR_INFO, "counters source (instrument: auto)",
		   perf ? "perf" : "valgrind",
		   perf ? NULL
			: "instructions are counted under valgrind in separate, "
			  "slower runs; `instrument: perf` would report them unsupported");
	counters_probe_release(&p);
	sbuf_release(&v);
	return perf;
}

/*
 * Sampled profiles (--profile): which event opens, and whether its ring
 * buffers map (the mlock limit) — a real sampler started and stopped.
 */
static void check_sampling(struct doctor *d)
{
	struct sample_probe p;
	struct sbuf v = SBUF_INIT, err = SBUF_INIT;
	sample_probe(&p, 0);
	if (!p.ok) {
		doctor_add(d, DOCTOR_WARN, "sampling (--profile)", "does not work", p.why);
		goto out;
	}
	struct sampler s = SAMPLER_INIT;
	struct sample_data data;
	if (sampler_begin(&s, &p, 0, SAMPLE_DEFAULT_FREQ, &err) || sampler_end(&s, &data, &err)) {
		sampler_release(&s);
		doctor_add(d, DOCTOR_WARN, "sampling (--profile)", "does not work", err.buf);
		goto out;
	}
	sample_data_release(&data);
	sbuf_addf(&v, "works, event %s", p.name);
	if (p.hardware)
		doctor_add(d, DOCTOR_OK, "sampling (--profile)", v.buf,
			   p.precise_ip ? "hardware cycles with precise_ip (no skid)"
					: "hardware cycles; precise_ip is not available, "
					  "so sampled addresses may skid a few "
					  "instructions");
	else {
		struct sbuf note = SBUF_INIT;
		sbuf_addf(&note,
			  "the cpu-clock software timer, as no hardware sampling "
			  "opens (%s); it attributes CPU time as well, at timer "
			  "resolution",
			  p.why_not_hardware ? p.why_not_hardware : "unknown");
		doctor_add(d, DOCTOR_OK, "sampling (--profile)", v.buf, note.buf);
		sbuf_release(&note);
	}
out:
	sample_probe_release(&p);
	sbuf_release(&v);
	sbuf_release(&err);
}

/* valgrind, and with it where `estimated_cycles` and `cycles` come from. */
static void check_valgrind(struct doctor *d, int pmu)
{
	char *path = NULL, *version = NULL;
	struct sbuf err = SBUF_INIT, v = SBUF_INIT;
	if (valgrind_probe(NULL, &path, &version, &err) == 0) {
		sbuf_addf(&v, "%s (%s)", version ? version : "unknown version", path);
		doctor_add(d, DOCTOR_OK, "valgrind", v.buf,
			   "exact instruction counts and estimated cycles with `instrument: "
			   "valgrind`");
		doctor_add(d, DOCTOR_OK, "estimated_cycles",
			   "valgrind (cachegrind cache simulation)",
			   pmu ? "under `instrument: auto` only when listed in metrics.counters: "
				 "the PMU gives the real `cycles` here"
			       : "`instrument: auto` or `valgrind`; with no PMU here, `cycles` "
				 "is unsupported and estimated_cycles stands in for it");
	} else {
		doctor_add(d, DOCTOR_WARN, "valgrind", "not available", err.buf);
		doctor_add(d, DOCTOR_WARN, "estimated_cycles", "not available",
			   "it is valgrind's cache simulation; install valgrind");
	}
	free(path);
	free(version);
	sbuf_release(&err);
	sbuf_release(&v);
}

/* metrics.syscalls: whether the syscall tracepoints open here. */
static void check_syscalls(struct doctor *d)
{
	struct syscalls_probe p;
	struct sbuf v = SBUF_INIT;
	syscalls_probe(&p);
	if (p.ok) {
		sbuf_addf(&v, "%zu call names%s", p.nr,
			  p.private_mount ? ", tracefs mounted privately" : "");
		doctor_add(d, DOCTOR_OK, "syscalls (metrics.syscalls)", v.buf,
			   "counted exactly by the kernel's syscall tracepoints");
	} else {
		doctor_add(d, DOCTOR_WARN, "syscalls (metrics.syscalls)", "cannot be counted",
			   p.why);
	}
	syscalls_probe_release(&p);
	sbuf_release(&v);
}

static void check_shim(struct doctor *d, const struct doctor_inputs *env)
{
	struct sbuf path = SBUF_INIT, err = SBUF_INIT;
	if (alloc_shim_find(env->alloc_shim, &path, &err) == 0)
		doctor_add(d, DOCTOR_OK, "allocation shim", path.buf,
			   "`allocations: true` counts malloc calls and bytes");
	else
		doctor_add(d, DOCTOR_WARN, "allocation shim", "not found", err.buf);
	sbuf_release(&path);
	sbuf_release(&err);
}

static void check_runner(struct doctor *d)
{
	struct sbuf path = SBUF_INIT;
	runner_program_path(&path);
	if (path.len)
		doctor_add(d, DOCTOR_OK, "runner", path.buf,
			   "measured commands start from this small static process");
	else
		doctor_add(d, DOCTOR_WARN, "runner", "kagari-runner not found",
			   "commands start from a fork of kagari, whose larger resident "
			   "set raises the floor of peak_rss; install kagari-runner in "
			   "../lib/kagari/ beside kagari's folder");
	sbuf_release(&path);
}

static void check_cpu(struct doctor *d)
{
	struct sbuf v = SBUF_INIT;
	char *model = sysinfo_cpu_model();
	sbuf_adds(&v, model ? model : "unknown");
	free(model);
	doctor_add(d, DOCTOR_INFO, "CPU model", v.buf,
		   "compare results only between runs on the same CPU model");

	long online = sysconf(_SC_NPROCESSORS_ONLN);
	sbuf_reset(&v);
	sbuf_addf(&v, "%ld online", online);
	doctor_add(d, online > 1 ? DOCTOR_INFO : DOCTOR_WARN, "CPUs", v.buf,
		   online > 1 ? NULL
			      : "with one CPU, kagari and the measured program "
				"share it; timings are noisier");

	/* Frequency governors: one per CPU, usually all the same. */
	struct sbuf govs = SBUF_INIT, line = SBUF_INIT, path = SBUF_INIT;
	int seen = 0, performance = 0;
	DIR *dir = opendir("/sys/devices/system/cpu");
	struct dirent *de;
	while (dir && (de = readdir(dir))) {
		if (strncmp(de->d_name, "cpu", 3) || !de->d_name[3] ||
		    strspn(de->d_name + 3, "0123456789") != strlen(de->d_name + 3))
			continue;
		sbuf_reset(&path);
		sbuf_addf(&path, "/sys/devices/system/cpu/%s/cpufreq/scaling_governor", de->d_name);
		if (read_line(path.buf, &line) < 0)
			continue;
		seen++;
		performance += !strcmp(line.buf, "performance");
		/* List each distinct governor once. */
		struct sbuf needle = SBUF_INIT;
		sbuf_addf(&needle, ",%s,", line.buf);
		struct sbuf hay = SBUF_INIT;
		sbuf_addf(&hay, ",%s,", govs.buf);
		if (!strstr(hay.buf, needle.buf))
			sbuf_addf(&govs, "%s%s", govs.len ? "," : "", line.buf);
		sbuf_release(&needle);
		sbuf_release(&hay);
	}
	if (dir)
		closedir(dir);
	if (!seen)
		doctor_add(d, DOCTOR_INFO, "frequency governor",
			   "not exposed (no cpufreq; usual in virtual machines)",
			   "the host decides the clock speed; expect more run-to-run "
			   "variation than on a pinned bare-metal machine");
	else if (performance == seen)
		doctor_add(d, DOCTOR_OK, "frequency governor", govs.buf, NULL);
	else
		doctor_add(d, DOCTOR_WARN, "frequency governor", govs.buf,
			   "for steadier timings: `sudo cpupower frequency-set -g "
			   "performance`");

	/* Turbo: intel_pstate's no_turbo, else cpufreq's boost. */
	if (read_line("/sys/devices/system/cpu/intel_pstate/no_turbo", &line) == 0) {
		int off = !strcmp(line.buf, "1");
		doctor_add(d, off ? DOCTOR_OK : DOCTOR_WARN, "turbo",
			   off ? "off (intel_pstate)" : "on (intel_pstate)",
			   off ? NULL
			       : "turbo makes the clock depend on temperature and load: "
				 "`echo 1 | sudo tee "
				 "/sys/devices/system/cpu/intel_pstate/no_turbo`");
	} else if (read_line("/sys/devices/system/cpu/cpufreq/boost", &line) == 0) {
		int off = !strcmp(line.buf, "0");
		doctor_add(d, off ? DOCTOR_OK : DOCTOR_WARN, "turbo",
			   off ? "off (cpufreq boost)" : "on (cpufreq boost)",
			   off ? NULL
			       : "boost makes the clock depend on temperature and load: "
				 "`echo 0 | sudo tee /sys/devices/system/cpu/cpufreq/boost`");
	} else {
		doctor_add(d, DOCTOR_INFO, "turbo", "not exposed",
			   "no intel_pstate/no_turbo or cpufreq/boost here (usual in "
			   "virtual machines)");
	}
	sbuf_release(&govs);
	sbuf_release(&line);
	sbuf_release(&path);
	sbuf_release(&v);
}

static void check_machine(struct doctor *d, const struct doctor_inputs *env)
{
	struct sbuf line = SBUF_INIT, v = SBUF_INIT;
	if (read_line("/proc/sys/kernel/randomize_va_space", &line) == 0) {
		const char *what = !strcmp(line.buf, "0")   ? "off"
				   : !strcmp(line.buf, "1") ? "partial"
							    : "full";
		sbuf_addf(&v, "%s (%s)", line.buf, what);
		doctor_add(d, DOCTOR_INFO, "ASLR", v.buf,
			   strcmp(line.buf, "0")
			       ? "addresses change every run, a small source of "
				 "timing noise that kagari's repeated, interleaved "
				 "runs absorb; `setarch -R` turns it off for one command"
			       : NULL);
	} else {
		doctor_add(d, DOCTOR_INFO, "ASLR", "unknown", NULL);
	}

	long cpus = sysconf(_SC_NPROCESSORS_ONLN);
	if (read_line("/proc/loadavg", &line) == 0) {
		double l1 = strtod(line.buf, NULL);
		sbuf_reset(&v);
		sbuf_add(&v, line.buf,
			 strcspn(line.buf, " ") < line.len ? strcspn(line.buf, " ") : line.len);
		sbuf_adds(&v, " (1 min)");
		int busy = cpus > 0 && l1 > 0.5 * (double)cpus;
		doctor_add(d, busy ? DOCTOR_WARN : DOCTOR_OK, "load average", v.buf,
			   busy ? "other work competes with measured runs; stop it, "
				  "or expect wider confidence intervals and gate cpu_total "
				  "(see time metrics)"
				: NULL);
	} else {
		doctor_add(d, DOCTOR_INFO, "load average", "unknown", NULL);
	}
	/* Which metric decides on a shared machine (docs/limits.md): the
	   undecided reason offers only a time metric for latency. */
	doctor_add(d, DOCTOR_INFO, "time metrics", "latency is wall time, cpu_total CPU time",
		   "on a shared or busy machine latency takes the other work's share; "
		   "gate cpu_total beside it (regression: {cpu_total: {max_percent: 3}}): "
		   "where latency cannot resolve its tolerance, the reason names the time "
		   "metrics that did (never peak_rss, never a count of work)");

	doctor_add(d, DOCTOR_INFO, "stdout", env->stdout_tty ? "a terminal" : "not a terminal",
		   env->stdout_tty ? "progress and colour are shown (--quiet, --no-color)"
				   : "no colour; write machine-readable reports with "
				     "--format json --output FILE");
	sbuf_release(&line);
	sbuf_release(&v);
}

void doctor_examine(struct doctor *d, const struct doctor_inputs *env)
{
	int pmu = check_counters(d, env);
	check_sampling(d);
	check_valgrind(d, pmu);
	check_syscalls(d);
	check_shim(d, env);
	check_runner(d);
	check_cpu(d);
	check_machine(d, env);
}
