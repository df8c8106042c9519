#include "measure/sample.h"

#include <errno.h>
#include <fcntl.h>
#include <linux/perf_event.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "base/sbuf.h"
#include "base/xalloc.h"
#include "measure/counters.h"

#define SAMPLE_TYPE                                                                                \
	(PERF_SAMPLE_IP | PERF_SAMPLE_TID | PERF_SAMPLE_TIME | PERF_SAMPLE_CALLCHAIN |             \
	 PERF_SAMPLE_PERIOD)

/* Data pages per CPU (a power of two), largest first: beyond the per-user
   perf_event_mlock_kb, mmap needs RLIMIT_MEMLOCK room, so fall back. */
static const unsigned ring_pages[] = {128, 32, 8};

static void fill_attr(struct perf_event_attr *a, const struct sample_probe *p, unsigned freq,
		      int enable_on_exec)
{
	memset(a, 0, sizeof(*a));
	a->size = sizeof(*a);
	a->type = p->type;
	a->config = p->config;
	a->freq = 1;
	a->sample_freq = freq;
	a->sample_type = SAMPLE_TYPE;
	a->precise_ip = (unsigned)p->precise_ip;
	a->disabled = enable_on_exec;
	a->enable_on_exec = enable_on_exec;
	a->inherit = 1;
	a->exclude_kernel = 1;
	a->exclude_hv = 1;
	a->exclude_callchain_kernel = 1;
	a->mmap = 1;
	a->mmap2 = 1;
	a->comm = 1;
	a->comm_exec = 1;
	a->task = 1;
	a->sample_id_all = 1;
	a->watermark = 1;
}

static long open_attr(struct perf_event_attr *a, pid_t pid, int cpu)
{
	return syscall(SYS_perf_event_open, a, pid, cpu, -1, PERF_FLAG_FD_CLOEXEC);
}

static unsigned read_max_freq(void)
{
	struct sbuf sb = SBUF_INIT;
	unsigned v = 0;
	if (sbuf_read_file(&sb, "/proc/sys/kernel/perf_event_max_sample_rate", 64) == 0)
		v = (unsigned)strtoul(sb.buf, NULL, 10);
	sbuf_release(&sb);
	return v;
}

void sample_probe(struct sample_probe *p, int software_only)
{
	struct perf_event_attr a;
	memset(p, 0, sizeof(*p));
	p->paranoid = counters_paranoid();
	p->max_freq = read_max_freq();
	int hw_errno = 0;
	if (!software_only) {
		p->type = PERF_TYPE_HARDWARE;
		p->config = PERF_COUNT_HW_CPU_CYCLES;
		p->hardware = 1;
		/* The highest precision the PMU grants: EINVAL/EOPNOTSUPP
		   means "not that precise", so step down. */
		for (int prec = 3; prec >= 0; prec--) {
			p->precise_ip = prec;
			fill_attr(&a, p, 1000, 0);
			long fd = open_attr(&a, 0, -1);
			if (fd >= 0) {
				close((int)fd);
				p->ok = 1;
				snprintf(p->name, sizeof(p->name), "cycles%s%.*s", prec ? ":" : "",
					 prec, "ppp");
				return;
			}
			hw_errno = errno;
			if (errno != EINVAL && errno != EOPNOTSUPP)
				break;
		}
		struct sbuf why = SBUF_INIT;
		counters_explain(hw_errno, COUNTERS_CYCLES, p->paranoid, &why);
		p->why_not_hardware = sbuf_detach(&why);
	} else {
		p->why_not_hardware = xstrdup("hardware sampling skipped (software only)");
	}
	p->type = PERF_TYPE_SOFTWARE;
	p->config = PERF_COUNT_SW_CPU_CLOCK;
	p->hardware = 0;
	p->precise_ip = 0;
	fill_attr(&a, p, 1000, 0);
	long fd = open_attr(&a, 0, -1);
	if (fd >= 0) {
		close((int)fd);
		p->ok = 1;
		snprintf(p->name, sizeof(p->name), "cpu-clock");
		return;
	}
	int sw_errno = errno;
	struct sbuf why = SBUF_INIT;
	switch (sw_errno) {
	case EACCES:
	case EPERM:
		sbuf_addf(&why, "sampling with perf_event_open is not permitted (%s): ",
			  sw_errno == EACCES ? "EACCES" : "EPERM");
		if (p->paranoid > 2)
			sbuf_addf(&why,
				  "kernel.perf_event_paranoid is %d (Debian and "
				  "Android forbid all unprivileged use at 3); "
				  "`sudo sysctl kernel.perf_event_paranoid=2` "
				  "allows sampling your own programs",
				  p->paranoid);
		else
			sbuf_addf(&why,
				  "kernel.perf_event_paranoid is %d, which would "
				  "allow it, so a container's seccomp policy or a "
				  "security module blocks perf_event_open (Docker: "
				  "--cap-add PERFMON, or a seccomp profile that "
				  "allows perf_event_open)",
				  p->paranoid);
		break;
	default:
		counters_explain(sw_errno, COUNTERS_TASK_CLOCK, p->paranoid, &why);
		break;
	}
	p->why = sbuf_detach(&why);
	p->name[0] = '\0';
}

void sample_probe_release(struct sample_probe *p)
{
	free(p->why_not_hardware);
	free(p->why);
	memset(p, 0, sizeof(*p));
}

void sample_data_release(struct sample_data *d)
{
	for (size_t i = 0; i < d->nr_maps; i++)
		free(d->maps[i].path);
	free(d->maps);
	free(d->samples);
	free(d->ips);
	free(d->tasks);
	memset(d, 0, sizeof(*d));
}

/* ---- ring buffers -------------------------------------------------------- */

/*
 * Copy what the kernel has written since the last call out of one ring
 * buffer (records may wrap around its end) and hand the space back.
 */
static void drain_one(struct sampler *s, int cpu)
{
	struct perf_event_mmap_page *mp = s->map[cpu];
	if (!mp)
		return;
	unsigned char *data = (unsigned char *)mp + mp->data_offset;
	uint64_t size = mp->data_size;
	uint64_t head = __atomic_load_n(&mp->data_head, __ATOMIC_ACQUIRE);
	uint64_t tail = mp->data_tail;
	if (head == tail)
		return;
	uint64_t n = head - tail;
	pthread_mutex_lock(&s->lock);
	if (s->raw[cpu].len + n > SAMPLE_MAX_BYTES / (size_t)s->ncpu) {
		s->dropped += n;
	} else {
		uint64_t off = tail % size;
		uint64_t first = n < size - off ? n : size - off;
		sbuf_add(&s->raw[cpu], data + off, (size_t)first);
		if (n > first)
			sbuf_add(&s->raw[cpu], data, (size_t)(n - first));
	}
	pthread_mutex_unlock(&s->lock);
	__atomic_store_n(&mp->data_tail, head, __ATOMIC_RELEASE);
}

static void *drain_thread(void *arg)
{
	struct sampler *s = arg;
	struct pollfd *pfd = xcalloc((size_t)s->ncpu + 1, sizeof(*pfd));
	pfd[0].fd = s->stop[0];
	pfd[0].events = POLLIN;
	for (int i = 0; i < s->ncpu; i++) {
		pfd[i + 1].fd = s->fd[i];
		pfd[i + 1].events = POLLIN;
	}
	for (;;) {
		/* The watermark wakes us at a quarter full; the timeout
		   bounds the delay when the rate is low. */
		int n = poll(pfd, (nfds_t)s->ncpu + 1, 50);
		for (int i = 0; i < s->ncpu; i++)
			drain_one(s, i);
		if (n > 0 && (pfd[0].revents & (POLLIN | POLLHUP)))
			break;
	}
	free(pfd);
	return NULL;
}

void sampler_release(struct sampler *s)
{
	if (s->thread_running) {
		char c = 1;
		ssize_t w;
		do
			w = write(s->stop[1], &c, 1);
		while (w < 0 && errno == EINTR);
		pthread_join(s->thread, NULL);
		s->thread_running = 0;
	}
	for (int i = 0; i < s->ncpu; i++) {
		if (s->map && s->map[i])
			munmap(s->map[i], s->map_len);
		if (s->fd && s->fd[i] >= 0)
			close(s->fd[i]);
		if (s->raw)
			sbuf_release(&s->raw[i]);
	}
	free(s->fd);
	free(s->map);
	free(s->raw);
	s->fd = NULL;
	s->map = NULL;
	s->raw = NULL;
	s->ncpu = 0;
	for (int i = 0; i < 2; i++) {
		if (s->stop[i] >= 0)
			close(s->stop[i]);
		s->stop[i] = -1;
	}
	if (s->lock_init)
		pthread_mutex_destroy(&s->lock);
	s->lock_init = 0;
	s->dropped = 0;
}

static int online_cpus(void)
{
	long n = sysconf(_SC_NPROCESSORS_CONF);
	return n < 1 ? 1 : n > 4096 ? 4096 : (int)n;
}

int sampler_begin(struct sampler *s, const struct sample_probe *p, pid_t pid, unsigned freq,
		  struct sbuf *err)
{
	sampler_release(s);
	if (!p->ok) {
		sbuf_adds(err, p->why ? p->why : "no sampling event opens here");
		return -1;
	}
	if (freq < 1)
		freq = 1;
	if (p->max_freq && freq > p->max_freq)
		freq = p->max_freq;
	s->ncpu = online_cpus();
	s->fd = xcalloc((size_t)s->ncpu, sizeof(*s->fd));
	s->map = xcalloc((size_t)s->ncpu, sizeof(*s->map));
	s->raw = xcalloc((size_t)s->ncpu, sizeof(*s->raw));
	for (int i = 0; i < s->ncpu; i++) {
		s->fd[i] = -1;
		sbuf_init(&s->raw[i]);
	}
	pthread_mutex_init(&s->lock, NULL);
	s->lock_init = 1;

	struct perf_event_attr a;
	long page = sysconf(_SC_PAGESIZE);
	size_t pi = 0;
	int opened = 0;
	for (int i = 0; i < s->ncpu; i++) {
		fill_attr(&a, p, freq, 1);
		a.wakeup_watermark = (uint32_t)(ring_pages[pi] * (size_t)page / 4);
		long fd = open_attr(&a, pid, i);
		if (fd < 0) {
			/* An offline CPU (the configured count includes
			   them) is not an error; anything else is. */
			if (errno == ENODEV || errno == EINVAL)
				continue;
			counters_explain(errno, COUNTERS_CYCLES, p->paranoid, err);
			goto fail;
		}
		s->fd[i] = (int)fd;
		for (;;) {
			s->map_len = (ring_pages[pi] + 1) * (size_t)page;
			void *m =
			    mmap(NULL, s->map_len, PROT_READ | PROT_WRITE, MAP_SHARED, s->fd[i], 0);
			if (m != MAP_FAILED) {
				s->map[i] = m;
				break;
			}
			if (errno == EPERM && pi + 1 < sizeof(ring_pages) / sizeof(ring_pages[0]) &&
			    opened == 0) {
				pi++;
				continue;
			}
			sbuf_addf(err,
				  "cannot map the sampling ring buffer (%s): the "
				  "per-user limit kernel.perf_event_mlock_kb and "
				  "`ulimit -l` bound it; raise either",
				  strerror(errno));
			goto fail;
		}
		opened++;
	}
	if (!opened) {
		sbuf_adds(err, "the sampling event opened on no CPU");
		goto fail;
	}
	if (pipe2(s->stop, O_CLOEXEC)) {
		sbuf_addf(err, "pipe: %s", strerror(errno));
		goto fail;
	}
	/* The thread must not take kagari's signals (their handlers expect
	   the main thread's state). */
	sigset_t all, old;
	sigfillset(&all);
	pthread_sigmask(SIG_SETMASK, &all, &old);
	int rc = pthread_create(&s->thread, NULL, drain_thread, s);
	pthread_sigmask(SIG_SETMASK, &old, NULL);
	if (rc) {
		sbuf_addf(err, "cannot start the sampling thread: %s", strerror(rc));
		goto fail;
	}
	s->thread_running = 1;
	return 0;
fail:
	sampler_release(s);
	return -1;
}

int sampler_end(struct sampler *s, struct sample_data *out, struct sbuf *err)
{
	memset(out, 0, sizeof(*out));
	if (!s->ncpu) {
		sbuf_adds(err, "sampling was not started");
		return -1;
	}
	if (s->thread_running) {
		char c = 1;
		ssize_t w;
		do
			w = write(s->stop[1], &c, 1);
		while (w < 0 && errno == EINTR);
		pthread_join(s->thread, NULL);
		s->thread_running = 0;
	}
	for (int i = 0; i < s->ncpu; i++)
		drain_one(s, i);
	for (int i = 0; i < s->ncpu; i++)
		sample_parse((const unsigned char *)s->raw[i].buf, s->raw[i].len, out);
	out->dropped = s->dropped;
	sampler_release(s);
	return 0;
}

/* ---- parsing -------------------------------------------------------------- */

static uint64_t rd64(const unsigned char *p)
{
	uint64_t v;
	memcpy(&v, p, 8);
	return v;
}

static uint32_t rd32(const unsigned char *p)
{
	uint32_t v;
	memcpy(&v, p, 4);
	return v;
}

/* sample_id_all trailer with TID|TIME: {u32 pid, tid; u64 time} last. */
static uint64_t trailer_time(const unsigned char *rec, size_t size)
{
	return size >= sizeof(struct perf_event_header) + 16 ? rd64(rec + size - 8) : 0;
}

static int parse_sample(const unsigned char *p, const unsigned char *end, struct sample_data *out)
{
	/* ip, pid/tid, time, period, nr, ips[nr] */
	if (end - p < 40)
		return -1;
	struct sample_rec r;
	uint64_t ip = rd64(p);
	r.pid = rd32(p + 8);
	r.tid = rd32(p + 12);
	r.time = rd64(p + 16);
	r.period = rd64(p + 24);
	uint64_t nr = rd64(p + 32);
	p += 40;
	if (nr > (uint64_t)(end - p) / 8)
		return -1;
	r.ip = out->nr_ips;
	ALLOC_GROW(out->ips, out->nr_ips + nr + 1, out->alloc_ips);
	for (uint64_t i = 0; i < nr; i++) {
		uint64_t a = rd64(p + 8 * i);
		/* Context markers (PERF_CONTEXT_USER, ...) are not frames. */
		if (a >= (uint64_t)PERF_CONTEXT_MAX)
			continue;
		out->ips[out->nr_ips++] = a;
	}
	if (out->nr_ips == r.ip) /* no chain at all: the IP alone */
		out->ips[out->nr_ips++] = ip;
	r.nr_ips = out->nr_ips - r.ip;
	ALLOC_GROW(out->samples, out->nr_samples + 1, out->alloc_samples);
	out->samples[out->nr_samples++] = r;
	return 0;
}

static int parse_mmap(const unsigned char *rec, size_t size, int v2, struct sample_data *out)
{
	const unsigned char *p = rec + sizeof(struct perf_event_header);
	const unsigned char *end = rec + size;
	/* pid, tid, addr, len, pgoff [, maj, min, ino, ino_gen, prot, flags] */
	size_t fixed = v2 ? 8 + 24 + 24 + 8 : 8 + 24;
	if ((size_t)(end - p) < fixed + 16)
		return -1;
	struct sample_map m;
	m.pid = rd32(p);
	m.start = rd64(p + 8);
	m.len = rd64(p + 16);
	m.pgoff = rd64(p + 24);
	m.time = trailer_time(rec, size);
	const char *name = (const char *)(p + fixed);
	size_t max = (size_t)(end - 16 - (const unsigned char *)name);
	size_t n = strnlen(name, max);
	if (v2) {
		uint32_t prot = rd32(p + 32 + 24);
		/* Only code is sampled; data mappings would only cost
		   lookups. */
		if (!(prot & PROT_EXEC))
			return 0;
	} else if (((const struct perf_event_header *)rec)->misc & PERF_RECORD_MISC_MMAP_DATA) {
		return 0;
	}
	m.path = xstrndup(name, n);
	ALLOC_GROW(out->maps, out->nr_maps + 1, out->alloc_maps);
	out->maps[out->nr_maps++] = m;
	return 0;
}

static void add_task(struct sample_data *out, enum sample_task_kind k, uint32_t pid, uint32_t ppid,
		     uint64_t time)
{
	ALLOC_GROW(out->tasks, out->nr_tasks + 1, out->alloc_tasks);
	out->tasks[out->nr_tasks++] =
	    (struct sample_task){.kind = k, .pid = pid, .ppid = ppid, .time = time};
}

void sample_parse(const unsigned char *buf, size_t len, struct sample_data *out)
{
	size_t off = 0;
	while (off + sizeof(struct perf_event_header) <= len) {
		struct perf_event_header h;
		memcpy(&h, buf + off, sizeof(h));
		if (h.size < sizeof(h) || off + h.size > len) {
			out->malformed++;
			break;
		}
		const unsigned char *rec = buf + off;
		const unsigned char *body = rec + sizeof(h);
		const unsigned char *end = rec + h.size;
		int bad = 0;
		switch (h.type) {
		case PERF_RECORD_SAMPLE:
			bad = parse_sample(body, end, out);
			break;
		case PERF_RECORD_MMAP:
			bad = parse_mmap(rec, h.size, 0, out);
			break;
		case PERF_RECORD_MMAP2:
			bad = parse_mmap(rec, h.size, 1, out);
			break;
		case PERF_RECORD_COMM:
			if (end - body < 8)
				bad = 1;
			else if (h.misc & PERF_RECORD_MISC_COMM_EXEC)
				add_task(out, SAMPLE_TASK_EXEC, rd32(body), 0,
					 trailer_time(rec, h.size));
			break;
		case PERF_RECORD_FORK:
		case PERF_RECORD_EXIT:
			if (end - body < 24) {
				bad = 1;
				break;
			}
			if (h.type == PERF_RECORD_EXIT) {
				out->exits++;
				break;
			}
			out->forks++;
			/* A new thread shares its process's mappings. */
			if (rd32(body) != rd32(body + 4))
				add_task(out, SAMPLE_TASK_FORK, rd32(body), rd32(body + 4),
					 rd64(body + 16));
			break;
		case PERF_RECORD_LOST:
			if (end - body < 16)
				bad = 1;
			else
				out->lost += rd64(body + 8);
			break;
		case PERF_RECORD_LOST_SAMPLES:
			if (end - body < 8)
				bad = 1;
			else
				out->lost_samples += rd64(body);
			break;
		case PERF_RECORD_THROTTLE:
			out->throttled++;
			break;
		default: /* UNTHROTTLE and others: nothing to keep */
			break;
		}
		if (bad)
			out->malformed++;
		off += h.size;
	}
}
