/*
 * sysinfo: the machine (uname, /proc/cpuinfo, $CI), the clocks and the
 * CPU ticks of /proc/stat (sysinfo.h). The one reader of /proc/cpuinfo: `kagari doctor` asks
 * sysinfo_cpu_model() too.
 */
#include "measure/sysinfo.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/utsname.h>
#include <time.h>
#include <unistd.h>

#include "base/sbuf.h"
#include "base/xalloc.h"
#include "model/result.h"

char *sysinfo_cpu_model(void)
{
	struct sbuf sb = SBUF_INIT;
	char *model = NULL;
	if (sbuf_read_file(&sb, "/proc/cpuinfo", 16 << 20) == 0) {
		const char *keys[] = {"model name", "Hardware", "cpu model", NULL};
		for (int k = 0; keys[k] && !model; k++) {
			const char *p = strstr(sb.buf, keys[k]);
			if (!p)
				continue;
			const char *colon = strchr(p, ':');
			const char *eol = strchr(p, '\n');
			if (!colon || (eol && colon > eol))
				continue;
			colon++;
			while (*colon == ' ' || *colon == '\t')
				colon++;
			model = xstrndup(colon, eol ? (size_t)(eol - colon) : strlen(colon));
		}
	}
	sbuf_release(&sb);
	return model;
}

void sysinfo_collect(struct environment_info *env)
{
	struct utsname u;
	if (uname(&u) == 0) {
		env->os = xstrdup(u.sysname);
		env->kernel = xstrdup(u.release);
		env->arch = xstrdup(u.machine);
	}
	env->cpu_model = sysinfo_cpu_model();
	long n = sysconf(_SC_NPROCESSORS_ONLN);
	env->logical_cpus = n > 0 ? (int)n : 0;
	const char *ci = getenv("CI");
	env->ci = ci && *ci && strcmp(ci, "0") && strcmp(ci, "false");
}

char *sysinfo_now_rfc3339(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_REALTIME, &ts);
	struct tm tm;
	gmtime_r(&ts.tv_sec, &tm);
	return xstrfmt("%04d-%02d-%02dT%02d:%02d:%02d.%03ldZ", tm.tm_year + 1900, tm.tm_mon + 1,
		       tm.tm_mday, tm.tm_hour, tm.tm_min, tm.tm_sec, ts.tv_nsec / 1000000);
}

int sysinfo_cpu_ticks(const char *path, struct cpu_ticks *t)
{
	FILE *f = fopen(path ? path : "/proc/stat", "r");
	if (!f)
		return -1;
	char line[512];
	int ok = 0;
	if (fgets(line, sizeof(line), f) && !strncmp(line, "cpu ", 4)) {
		unsigned long long v[8];
		if (sscanf(line + 4, "%llu %llu %llu %llu %llu %llu %llu %llu", &v[0], &v[1], &v[2],
			   &v[3], &v[4], &v[5], &v[6], &v[7]) == 8) {
			t->total = 0;
			for (int i = 0; i < 8; i++)
				t->total += v[i];
			t->steal = v[7];
			ok = 1;
		}
	}
	fclose(f);
	return ok ? 0 : -1;
}

double sysinfo_steal_percent(const struct cpu_ticks *a, const struct cpu_ticks *b)
{
	if (b->total <= a->total || b->steal < a->steal)
		return NAN;
	return 100.0 * (double)(b->steal - a->steal) / (double)(b->total - a->total);
}

int64_t sysinfo_monotonic_ns(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (int64_t)ts.tv_sec * 1000000000 + ts.tv_nsec;
}
