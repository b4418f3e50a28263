/* SPDX-License-Identifier: MIT */
/*
 * tests/unit/analyze/synth.h - build synthetic perf records for tests.
 *
 * Shared by the analyze unit tests, the fuzz seeds and tests/tools/mksynth.c.
 * A struct syn_rec collects one record in either byte order: syn_begin(),
 * then fields in the kernel's order, then syn_end() patches header.size.
 * Everything is static so that each test program carries its own copy.
 */
#ifndef AMB_TESTS_SYNTH_H
#define AMB_TESTS_SYNTH_H

#include <byteswap.h>
#include <linux/perf_event.h>
#include <stdbool.h>
#include <stdint.h>
#include <string.h>

struct syn_rec {
	uint8_t b[65536];
	size_t len;
	bool swap;             /* write in the byte order other than the host's */
};

static inline void syn_raw(struct syn_rec *s, const void *p, size_t n)
{
	if (s->len + n <= sizeof(s->b)) {
		memcpy(s->b + s->len, p, n);
		s->len += n;
	}
}

static inline void syn_u16(struct syn_rec *s, uint16_t v)
{
	v = s->swap ? bswap_16(v) : v;
	syn_raw(s, &v, 2);
}

static inline void syn_u32(struct syn_rec *s, uint32_t v)
{
	v = s->swap ? bswap_32(v) : v;
	syn_raw(s, &v, 4);
}

static inline void syn_u64(struct syn_rec *s, uint64_t v)
{
	v = s->swap ? bswap_64(v) : v;
	syn_raw(s, &v, 8);
}

/* A string with its NUL, padded with zeros to a multiple of 8 as the kernel does. */
static inline void syn_str(struct syn_rec *s, const char *str)
{
	static const uint8_t zeros[8];
	size_t n = strlen(str) + 1;

	syn_raw(s, str, n);
	syn_raw(s, zeros, (8 - n % 8) % 8);
}

static inline void syn_begin(struct syn_rec *s, uint32_t type, uint16_t misc)
{
	s->len = 0;
	syn_u32(s, type);
	syn_u16(s, misc);
	syn_u16(s, 0);
}

/* Patch header.size; returns the record length. */
static inline size_t syn_end(struct syn_rec *s)
{
	uint16_t v = (uint16_t)s->len;

	v = s->swap ? bswap_16(v) : v;
	memcpy(s->b + 6, &v, 2);
	return s->len;
}

/* The sample_id_all trailer for @st (TID, TIME, ID, STREAM_ID, CPU, IDENTIFIER). */
static inline void syn_sample_id(struct syn_rec *s, uint64_t st, uint32_t pid, uint32_t tid,
				 uint64_t time, uint64_t id, uint32_t cpu)
{
	if (st & PERF_SAMPLE_TID) {
		syn_u32(s, pid);
		syn_u32(s, tid);
	}
	if (st & PERF_SAMPLE_TIME)
		syn_u64(s, time);
	if (st & PERF_SAMPLE_ID)
		syn_u64(s, id);
	if (st & PERF_SAMPLE_STREAM_ID)
		syn_u64(s, id);
	if (st & PERF_SAMPLE_CPU) {
		syn_u32(s, cpu);
		syn_u32(s, 0);
	}
	if (st & PERF_SAMPLE_IDENTIFIER)
		syn_u64(s, id);
}

/* A minimal sample for @st holding only IDENTIFIER/IP/TID/TIME/ID/CPU/PERIOD
 * (other bits must be clear), used to build streams of records quickly. */
static inline size_t syn_simple_sample(struct syn_rec *s, uint64_t st, uint64_t id,
				       uint64_t ip, uint32_t pid, uint32_t tid,
				       uint64_t time, uint32_t cpu, uint64_t period)
{
	syn_begin(s, PERF_RECORD_SAMPLE, PERF_RECORD_MISC_USER);
	if (st & PERF_SAMPLE_IDENTIFIER)
		syn_u64(s, id);
	if (st & PERF_SAMPLE_IP)
		syn_u64(s, ip);
	if (st & PERF_SAMPLE_TID) {
		syn_u32(s, pid);
		syn_u32(s, tid);
	}
	if (st & PERF_SAMPLE_TIME)
		syn_u64(s, time);
	if (st & PERF_SAMPLE_ID)
		syn_u64(s, id);
	if (st & PERF_SAMPLE_CPU) {
		syn_u32(s, cpu);
		syn_u32(s, 0);
	}
	if (st & PERF_SAMPLE_PERIOD)
		syn_u64(s, period);
	return syn_end(s);
}

static inline size_t syn_comm(struct syn_rec *s, uint64_t st, uint32_t pid, uint32_t tid,
			      const char *comm, bool exec, uint64_t time, uint64_t id,
			      uint32_t cpu)
{
	syn_begin(s, PERF_RECORD_COMM, exec ? PERF_RECORD_MISC_COMM_EXEC : 0);
	syn_u32(s, pid);
	syn_u32(s, tid);
	syn_str(s, comm);
	syn_sample_id(s, st, pid, tid, time, id, cpu);
	return syn_end(s);
}

static inline size_t syn_fork(struct syn_rec *s, uint32_t type, uint64_t st, uint32_t pid,
			      uint32_t ppid, uint32_t tid, uint32_t ptid, uint64_t time,
			      uint64_t id, uint32_t cpu)
{
	syn_begin(s, type, 0);
	syn_u32(s, pid);
	syn_u32(s, ppid);
	syn_u32(s, tid);
	syn_u32(s, ptid);
	syn_u64(s, time);
	syn_sample_id(s, st, pid, tid, time, id, cpu);
	return syn_end(s);
}

/* MMAP2; @build_id (20 bytes max, @bid_len) NULL for the maj/min/ino form. */
static inline size_t syn_mmap2(struct syn_rec *s, uint64_t st, uint32_t pid, uint32_t tid,
			       uint64_t addr, uint64_t len, uint64_t pgoff,
			       const uint8_t *build_id, uint8_t bid_len, const char *file,
			       uint64_t time, uint64_t id, uint32_t cpu)
{
	syn_begin(s, PERF_RECORD_MMAP2, PERF_RECORD_MISC_USER |
		  (build_id ? PERF_RECORD_MISC_MMAP_BUILD_ID : 0));
	syn_u32(s, pid);
	syn_u32(s, tid);
	syn_u64(s, addr);
	syn_u64(s, len);
	syn_u64(s, pgoff);
	if (build_id) {
		uint8_t hdr[4] = { bid_len, 0, 0, 0 }, bid[20] = { 0 };

		memcpy(bid, build_id, bid_len);
		syn_raw(s, hdr, 4);
		syn_raw(s, bid, 20);
	} else {
		syn_u32(s, 8);        /* maj */
		syn_u32(s, 1);        /* min */
		syn_u64(s, 123456);   /* ino */
		syn_u64(s, 7);        /* ino_generation */
	}
	syn_u32(s, 5);                /* PROT_READ | PROT_EXEC */
	syn_u32(s, 2);                /* MAP_PRIVATE */
	syn_str(s, file);
	syn_sample_id(s, st, pid, tid, time, id, cpu);
	return syn_end(s);
}

#endif /* AMB_TESTS_SYNTH_H */
