/*
 * measure/runner_internal: what the runner's files share; not for callers
 * outside src/measure/runner*.c (they use runner.h).
 *
 *   runner_proto.c   the frame encoding and the transport (frames and
 *                    descriptors over the socket), used by both ends
 *   runner_server.c  the runner process: its loop, one request at a time,
 *                    and batches
 *   runner.c         kagari's side: starting the runner (kagari-runner or
 *                    a fork), requests, answers, batches, stopping it
 */
#ifndef KAGARI_MEASURE_RUNNER_INTERNAL_H
#define KAGARI_MEASURE_RUNNER_INTERNAL_H

#include <stddef.h>
#include <stdint.h>

#include "base/sbuf.h"
#include "measure/runner.h"

/*
 * Frames: a u32 payload length, then the payload. Integers are native
 * (both ends are the same binary); strings are a u32 length, the bytes and
 * a NUL, so the runner can point into its receive buffer instead of copying;
 * NONE as a length means NULL.
 *
 * request:  u32 magic, pad, flags, in, out, err, fdmask; i64 timeout, grace;
 *           u32 argc, argv...; u32 envc (NONE: inherit), envp...;
 *           str dir, in_path, in_data, out_path, err_path
 *           (+ SCM_RIGHTS: the descriptors named by fdmask, in order)
 * answer:   u32 status; i32 code, exit_code, signal; u32 timed_out,
 *           interrupted, spawn_errno, truncated; i64 wall, user, sys,
 *           maxrss; str error, stderr_tail, out, err
 * repeat:   u32 REPEAT_MAGIC, pad: the same request as the previous one
 *           but for its pad (sent when the other bytes would be identical
 *           and no descriptors travel; measured runs repeat one command,
 *           and the environment alone makes a request a few KiB)
 *           pad: the layout pad's length (runner.h), NONE for none
 * hello:    (runner -> kagari, once) str error (empty: ready)
 * batch:    u32 BATCH_MAGIC; u32 TABLE_SAME (the table of the previous
 *           batch) or TABLE_NEW, u32 length, table; u32 n, n entries of
 *           u32 request index, unit, flags, pad
 *           table: u32 count, per request: u32 nok, i32 ok codes, u32
 *           length, a request payload as above (no descriptors, pad
 *           NONE: the entries carry it)
 * batch answer: u32 stop (STOP_*), u32 n, n answer payloads as above
 *           (status CHILD_NOT_RUN for entries not run)
 */
#define FRAME_MAGIC 0x3152474bU	 /* "KGR1" */
#define REPEAT_MAGIC 0x3252474bU /* "KGR2" */
#define BATCH_MAGIC 0x3352474bU	 /* "KGR3" */
#define TABLE_NEW 1u
#define TABLE_SAME 2u
/* batch answer: why the batch stopped early */
#define STOP_NONE 0u
#define STOP_BARRIER 1u
#define STOP_INTERRUPT 2u
#define STOP_BAD 3u
/* Unit ids of a batch are below this (the runner keeps a flag per id). */
#define MAX_UNIT RUNNER_MAX_UNIT
/* Passed to a kagari-runner program; a different build refuses to serve. */
#define PROTOCOL_TOKEN "kagari-runner-protocol-4"

/*
 * After answering, the runner polls its socket this long before it blocks:
 * kagari usually asks for the next run within microseconds, and catching
 * the request while still on the CPU saves a wake-up from idle (tens of
 * microseconds on a virtual machine) per run. Only time between runs is
 * spent; a measured program never competes with it.
 */
#define SPIN_NS INT64_C(100000)
#define NONE UINT32_MAX
#define FD_IN 1u
#define FD_OUT 2u
#define FD_ERR 4u

struct reader {
	const char *p, *end;
	int bad;
};

/* Where a request frame (and a repeat frame) holds its pad. */
#define PAD_OFFSET (2 * sizeof(uint32_t))

/* runner_proto.c */
void rp_put_u32(struct sbuf *b, uint32_t v);
void rp_put_i64(struct sbuf *b, int64_t v);
void rp_put_bytes(struct sbuf *b, const void *p, size_t len);
void rp_put_str(struct sbuf *b, const char *s);
void rp_begin_frame(struct sbuf *b);
void rp_end_frame(struct sbuf *b);
void rp_get(struct reader *rd, void *out, size_t n);
uint32_t rp_get_u32(struct reader *rd);
int64_t rp_get_i64(struct reader *rd);
const char *rp_get_bytes(struct reader *rd, size_t *len);
const char *rp_get_str(struct reader *rd);
int rp_send_frame(int fd, const struct sbuf *b, const int *fds, int nfds);
int rp_recv_frame(int fd, struct sbuf *b, int *fds, int *nfds);

/* runner_server.c */
void rp_hello(int sock, const char *error);
/* The runner process's loop over socket `sock`, in a fork or in
   kagari-runner; it never returns. */
void __attribute__((noreturn)) rp_runner_main(int sock);

#endif
