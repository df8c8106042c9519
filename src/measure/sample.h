/*
 * measure/sample: statistical sampling of a command's process tree through
 * perf_event_open(2), for the profiles that explain a regression.
 *
 * The event: hardware `cycles` where the CPU has a PMU, with the highest
 * `precise_ip` that opens (PEBS on Intel, IBS on AMD: the recorded IP is the
 * instruction that overflowed the counter, not one a few dozen instructions
 * later — the "skid"); otherwise the `cpu-clock` software event, a hrtimer
 * the kernel provides everywhere, including virtual machines without a PMU
 * and `perf_event_paranoid` 2 for one's own processes. Either way sampling
 * runs by frequency (sample_freq, default SAMPLE_DEFAULT_FREQ per second of
 * CPU time; the kernel adjusts the period and reports it per sample),
 * user space only.
 *
 * Each sample carries the IP, pid/tid, time, period and the user call
 * chain (PERF_SAMPLE_CALLCHAIN, which the kernel walks by frame pointers:
 * code built with -fomit-frame-pointer shows its leaf functions but loses
 * or skips callers). Side-band records map addresses to files: MMAP/MMAP2
 * (every executable mapping of the program and its shared libraries),
 * COMM (with the exec flag: the old mappings are gone), FORK and EXIT;
 * LOST (records the buffer had no room for) and THROTTLE (the kernel
 * lowered the rate because sampling took too long) are counted.
 *
 * `inherit` follows the command into every child it forks, and the kernel
 * refuses to mmap an inherited per-task event (all children would write
 * to one buffer), so there is one event and one ring buffer per CPU, the
 * way `perf record` does it. They are opened on the spawning process (the
 * runner, runner.h) disabled with `enable_on_exec`: nothing is recorded in
 * the runner itself, the command's copy switches on at its exec. While the
 * command runs, a thread of this process drains the ring buffers into
 * memory (the runner stays as small as it is; the measured command is not
 * slowed by a full buffer); after it ends, sampler_end() drains the rest
 * and parses everything into a struct sample_data.
 *
 * Call order:
 *
 *	struct sample_probe p;
 *	sample_probe(&p);                       once: which event, and why
 *	                                        not the better ones
 *	struct sampler s = SAMPLER_INIT;
 *	per sampled run:
 *	    sampler_begin(&s, &p, pid, freq, &err);  open, mmap, start draining
 *	    ... start the command through `pid`, wait for it ...
 *	    sampler_end(&s, &data, &err);            drain, parse, close
 *	    ... symbols_aggregate(..., &data, ...) ...
 *	    sample_data_release(&data);
 *	sampler_release(&s);                    idempotent
 *	sample_probe_release(&p);
 *
 * Nothing here prints; errors are appended to a caller-supplied sbuf.
 */
#ifndef KAGARI_MEASURE_SAMPLE_H
#define KAGARI_MEASURE_SAMPLE_H

#include <pthread.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

struct sbuf;

#define SAMPLE_DEFAULT_FREQ 3999 /* not 4000: stay off 1 ms/4 ms ticks */
#define SAMPLE_MAX_FREQ 100000

/* The event sampling uses here. */
struct sample_probe {
	int ok;	       /* an event opens: the fields below are valid */
	char name[32]; /* "cycles:ppp", "cycles", "cpu-clock" */
	uint32_t type; /* PERF_TYPE_HARDWARE or PERF_TYPE_SOFTWARE */
	uint64_t config;
	int precise_ip;	   /* 0..3 */
	int hardware;	   /* 1 for cycles */
	int paranoid;	   /* counters_paranoid() */
	unsigned max_freq; /* kernel.perf_event_max_sample_rate (0: unknown) */
	/* Why hardware cycles are not used (ENOENT: no PMU, ...), or NULL. */
	char *why_not_hardware;
	/* When !ok: why no event opens, and what to do about it. */
	char *why;
};

/*
 * Try cycles (precise_ip 3, 2, 1, 0), then cpu-clock, each as a sampling
 * event on this process; software_only skips the hardware event (tests).
 * Never fails: the outcome is in p.
 */
void sample_probe(struct sample_probe *p, int software_only);
void sample_probe_release(struct sample_probe *p);

/* One sample: where the program was, and how it got there. */
struct sample_rec {
	uint32_t pid, tid;
	uint64_t time;	 /* perf clock, ns */
	uint64_t period; /* events (cycles, or ns of cpu-clock) it stands for */
	size_t ip;	 /* index of the first frame in sample_data.ips */
	size_t nr_ips;	 /* frames, leaf first (the sample IP, then the
			    return addresses of its callers) */
};

/* An executable file mapping (MMAP/MMAP2). */
struct sample_map {
	uint32_t pid;
	uint64_t time;
	uint64_t start, len, pgoff;
	char *path; /* as the kernel reported it ("[vdso]", "... (deleted)") */
};

/* A process event: fork (ppid valid), exec (COMM with the exec flag). */
enum sample_task_kind { SAMPLE_TASK_FORK, SAMPLE_TASK_EXEC };
struct sample_task {
	enum sample_task_kind kind;
	uint32_t pid, ppid;
	uint64_t time;
};

/* What one sampled run recorded (sampler_end). Owns everything. */
struct sample_data {
	struct sample_rec *samples;
	size_t nr_samples, alloc_samples;
	uint64_t *ips;
	size_t nr_ips, alloc_ips;
	struct sample_map *maps;
	size_t nr_maps, alloc_maps;
	struct sample_task *tasks;
	size_t nr_tasks, alloc_tasks;
	uint64_t lost;	       /* records the kernel could not write (LOST) */
	uint64_t lost_samples; /* LOST_SAMPLES */
	uint64_t throttled;    /* THROTTLE records */
	uint64_t dropped;      /* bytes past SAMPLE_MAX_BYTES, not kept */
	uint64_t forks, exits;
	uint64_t malformed; /* records that did not parse (skipped) */
};

void sample_data_release(struct sample_data *d);

/* The raw records kept per run at most (beyond: counted as dropped). */
#define SAMPLE_MAX_BYTES ((size_t)256 << 20)

struct sampler {
	int ncpu;
	int *fd;	  /* per CPU, -1 when not open */
	void **map;	  /* per CPU ring buffer mapping, or NULL */
	size_t map_len;	  /* bytes per mapping (1 + 2^n pages) */
	struct sbuf *raw; /* per CPU: records copied out of the ring */
	uint64_t dropped;
	int stop[2]; /* pipe that wakes and stops the drain thread */
	pthread_t thread;
	int thread_running;
	pthread_mutex_t lock; /* raw[], dropped: the thread and sampler_end */
	int lock_init;
};

#define SAMPLER_INIT                                                                               \
	{                                                                                          \
		.ncpu = 0, .stop = { -1, -1 }                                                      \
	}

/*
 * Open the probe's event on every online CPU for the children `pid` (0 =
 * this process) starts from now on, map the ring buffers, start the drain
 * thread. freq is clamped to [1, probe max]. Returns 0, or -1 with the
 * reason (counters_explain wording for perf_event_open, the mlock limit
 * for mmap) in err; nothing is left open then.
 */
int sampler_begin(struct sampler *s, const struct sample_probe *p, pid_t pid, unsigned freq,
		  struct sbuf *err);

/*
 * After the run (the command and its descendants are gone): stop the
 * thread, drain, close, and parse into *out (zeroed first). Returns 0, or
 * -1 with a reason in err (nothing was sampled then; *out is still valid).
 */
int sampler_end(struct sampler *s, struct sample_data *out, struct sbuf *err);

/* Close and free whatever is open (stops the thread). Idempotent. */
void sampler_release(struct sampler *s);

/*
 * Parse the raw records of one ring buffer (as the kernel writes them with
 * this module's attr) into *out, appending. Exposed for tests.
 */
void sample_parse(const unsigned char *buf, size_t len, struct sample_data *out);

#endif
