/*
 * sysinfo: the machine (uname, /proc/cpuinfo, $CI) and the clocks
 * (sysinfo.h). The one reader of /proc/cpuinfo: `kagari doctor` asks
 * sysinfo_cpu_model() too.
 */
#include "measure/sysinfo.h"

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
		const char *keys[] = { "model name", "Hardware", "cpu model", NULL };
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
	return xstrfmt("%04d-%02d-%02dT%02d:%02d:%02d.%03ldZ", tm.tm_year + 1900,
		       tm.tm_mon + 1, tm.tm_mday, tm.tm_hour, tm.tm_min,
		       tm.tm_sec, ts.tv_nsec / 1000000);
}

int64_t sysinfo_monotonic_ns(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (int64_t)ts.tv_sec * 1000000000 + ts.tv_nsec;
}
