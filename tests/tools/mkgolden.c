// SPDX-License-Identifier: MIT
/*
 * tests/tools/mkgolden.c - write the golden files of testdata/.
 *
 *   mkgolden DIR      (normally: mkgolden testdata)
 *
 * DIR/valid/NAME.amber are deterministic (fixed uuid and time) valid files.
 * DIR/invalid/NAME.amber are damaged copies, each made by breaking one rule
 * of docs/FORMAT.md, with DIR/invalid/NAME.err holding the first problem
 * amb_verify() must report.  The expected line is composed here from what
 * was damaged, independently of the reader, so the unit test comparing the
 * two (tests/unit/format/test_golden.c) checks the reader's diagnosis.
 */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <amber/common.h>
#include "common/util.h"
#include <amber/format.h>
#include "format/format_internal.h"

static const uint8_t golden_uuid[16] = {
	0x61, 0x6d, 0x62, 0x65, 0x72, 0x2d, 0x47, 0x6f,
	0xac, 0x6c, 0x64, 0x65, 0x6e, 0x2d, 0x30, 0x31,
};
#define GOLDEN_TIME 1767225600000000000ull  /* 2026-01-01T00:00:00Z */

static const char *outdir;

static void die(const char *what, int err)
{
	fprintf(stderr, "mkgolden: error: %s: %s\n", what, amb_strerror(err));
	exit(1);
}

static const char *path_of(const char *sub, const char *name, const char *ext)
{
	static char buf[4096];

	snprintf(buf, sizeof(buf), "%s/%s/%s%s", outdir, sub, name, ext);
	return buf;
}

/* A perf sample record (PERF_RECORD_SAMPLE with IP, TID, TIME) in the
 * producer's byte order. */
static void put_sample(struct amb_buf *b, bool big, uint64_t ip, uint32_t tid, uint64_t time)
{
	uint8_t r[32];

	if (big) {
		for (int i = 0; i < 4; i++)
			r[i] = (uint8_t)(9u >> (24 - 8 * i));
		r[4] = 0;
		r[5] = 2;  /* misc: PERF_RECORD_MISC_USER */
		r[6] = 0;
		r[7] = 32;
		for (int i = 0; i < 8; i++) {
			r[8 + i] = (uint8_t)(ip >> (56 - 8 * i));
			r[24 + i] = (uint8_t)(time >> (56 - 8 * i));
		}
		for (int i = 0; i < 4; i++) {
			r[16 + i] = (uint8_t)(tid >> (24 - 8 * i));
			r[20 + i] = (uint8_t)(tid >> (24 - 8 * i));
		}
	} else {
		amb_put_le32(r, 9);
		amb_put_le16(r + 4, 2);
		amb_put_le16(r + 6, 32);
		amb_put_le64(r + 8, ip);
		amb_put_le32(r + 16, tid);
		amb_put_le32(r + 20, tid);
		amb_put_le64(r + 24, time);
	}
	if (amb_buf_append(b, r, sizeof(r)))
		die("buffer", -ENOMEM);
}

static struct amb_writer *open_writer(const char *path, uint8_t endian, int level)
{
	AMB_OPTS(amb_writer_opts, o);
	struct amb_writer *w;
	int err;

	o.uuid = golden_uuid;
	o.created_ns = GOLDEN_TIME;
	o.zstd_level = level;
	o.producer_endian = endian;
	o.producer_word_size = 8;
	o.producer_machine = endian == AMB_ENDIAN_BIG ? 22 : 62;
	unlink(path);
	err = amb_writer_open(path, &o, &w);
	if (err)
		die(path, err);
	return w;
}

static void append(struct amb_writer *w, uint16_t type, uint32_t stream, uint64_t count,
		   uint64_t t0, uint64_t t1, const struct amb_buf *b)
{
	struct amb_block_desc d = { type, stream, count, t0, t1 };
	int err = amb_writer_append(w, &d, b->data, b->len);

	if (err)
		die("append", err);
}

static void finish(struct amb_writer *w)
{
	int err = amb_writer_close(w);

	if (err)
		die("close", err);
}

static void ring(struct amb_buf *b, bool big, uint32_t cpu, unsigned n, uint64_t t0)
{
	amb_buf_reset(b);
	for (unsigned i = 0; i < n; i++)
		put_sample(b, big, 0x401000 + 16 * (i % 7), 1000 + cpu, t0 + 1000 * i);
}

static void write_minimal(const char *path)
{
	struct amb_writer *w = open_writer(path, AMB_ENDIAN_LITTLE, 3);
	struct amb_buf b = AMB_BUF_INIT;

	amb_kv_put_str(&b, "amber.version", "0.1.0");
	amb_kv_put_str(&b, "clock", "monotonic");
	append(w, AMB_BLOCK_META, AMB_STREAM_NONE, 2, 0, 0, &b);
	finish(w);
	amb_buf_free(&b);
}

/* Every block type of FORMAT.md §5 with its encoding. */
static void write_all_types(const char *path, int level)
{
	struct amb_writer *w = open_writer(path, AMB_ENDIAN_LITTLE, level);
	struct amb_buf b = AMB_BUF_INIT;
	uint8_t attr[136] = { 0 }, ids[16], bid[20];
	struct amb_event_entry ev = {
		.attr = attr, .attr_size = sizeof(attr), .name = "cpu-clock", .name_len = 9,
		.leader = UINT32_MAX, .nr_ids = 2, .ids = ids,
	};
	struct amb_buildid_entry be = {
		.build_id = bid, .build_id_len = sizeof(bid), .kind = AMB_DSO_USER,
		.path = "/usr/bin/true", .path_len = 13,
	};
	struct amb_count_entry ce = { 0, 0, UINT32_MAX, 77, 123456, 1000000, 1000000 };
	struct amb_file_entry fe = {
		.build_id = bid, .build_id_len = sizeof(bid), .kind = AMB_FILE_ELF_MINI,
		.name = "/usr/bin/true", .name_len = 13, .file_size = 256, .part_offset = 0,
		.data_len = 256,
	};

	for (unsigned i = 0; i < sizeof(bid); i++)
		bid[i] = (uint8_t)(0xb0 + i);
	amb_put_le32(attr + 4, sizeof(attr));
	amb_put_le64(ids, 77);
	amb_put_le64(ids + 8, 78);

	amb_kv_put_str(&b, "amber.version", "0.1.0");
	amb_kv_put_str(&b, "hostname", "golden");
	amb_kv_put_str(&b, "clock", "monotonic");
	append(w, AMB_BLOCK_META, AMB_STREAM_NONE, 3, 0, 0, &b);
	amb_buf_reset(&b);
	amb_event_put(&b, &ev);
	append(w, AMB_BLOCK_EVENT_ATTR, AMB_STREAM_NONE, 1, 0, 0, &b);
	amb_buf_reset(&b);
	amb_kv_put_str(&b, "header_page", "\tfield: u64 timestamp;\toffset:0;\tsize:8;\tsigned:0;\n");
	amb_kv_put_str(&b, "sched/sched_switch", "name: sched_switch\nID: 316\nformat:\n");
	append(w, AMB_BLOCK_TRACEFS, AMB_STREAM_NONE, 2, 0, 0, &b);
	amb_buf_reset(&b);
	amb_buf_printf(&b, "ffffffff81000000 T _stext\nffffffff81001000 T do_one_initcall\n");
	append(w, AMB_BLOCK_KSYMS, AMB_STREAM_NONE, 2, 0, 0, &b);
	amb_buf_reset(&b);
	amb_kv_put_str(&b, "cpu.0.core", "0");
	amb_kv_put_str(&b, "cpu.1.core", "1");
	append(w, AMB_BLOCK_TOPOLOGY, AMB_STREAM_NONE, 2, 0, 0, &b);
	ring(&b, false, 0, 4, 5000);
	append(w, AMB_BLOCK_SYNTH, AMB_STREAM_NONE, 4, 5000, 8000, &b);
	ring(&b, false, 0, 40, 10000);
	append(w, AMB_BLOCK_RING, 0, 40, 10000, 49000, &b);
	ring(&b, false, 1, 40, 10500);
	append(w, AMB_BLOCK_RING, 1, 40, 10500, 49500, &b);
	amb_buf_reset(&b);
	amb_buildid_put(&b, &be);
	append(w, AMB_BLOCK_BUILDID, AMB_STREAM_NONE, 1, 0, 0, &b);
	amb_buf_reset(&b);
	amb_file_put_header(&b, &fe);
	for (unsigned i = 0; i < fe.data_len; i++)
		amb_buf_append(&b, &(uint8_t){ (uint8_t)i }, 1);
	append(w, AMB_BLOCK_FILE, AMB_STREAM_NONE, 1, 0, 0, &b);
	amb_buf_reset(&b);
	amb_count_put(&b, &ce);
	append(w, AMB_BLOCK_COUNTS, AMB_STREAM_NONE, 1, 0, 0, &b);
	finish(w);
	amb_buf_free(&b);
}

static void write_bigendian(const char *path)
{
	struct amb_writer *w = open_writer(path, AMB_ENDIAN_BIG, 3);
	struct amb_buf b = AMB_BUF_INIT;

	amb_kv_put_str(&b, "clock", "monotonic");
	append(w, AMB_BLOCK_META, AMB_STREAM_NONE, 1, 0, 0, &b);
	ring(&b, true, 0, 8, 1000);
	append(w, AMB_BLOCK_RING, 0, 8, 1000, 8000, &b);
	finish(w);
	amb_buf_free(&b);
}

/* Store @v of @n bytes at @p in the producer's byte order. */
static void put_order(uint8_t *p, uint64_t v, unsigned n, bool big)
{
	for (unsigned i = 0; i < n; i++)
		p[big ? n - 1 - i : i] = (uint8_t)(v >> (8 * i));
}

#define CODEC_ST 0x101a7ull   /* IDENTIFIER IP TID TIME CPU PERIOD */
#define CODEC_ST_CHAIN (CODEC_ST | 0x20)   /* + CALLCHAIN */

/* Samples with call chains and a COMM record, as amber-rec writes them. */
static void codec_ring(struct amb_buf *b, bool big, uint32_t cpu, unsigned n, uint64_t t0)
{
	static const uint64_t callers[] = { 0x401800, 0x401900, 0x402000 };
	uint8_t r[96];

	amb_buf_reset(b);
	for (unsigned k = 0; k < n; k++) {
		unsigned nr = 3 + k % 3;
		size_t len = 64 + 8 * nr;

		memset(r, 0, sizeof(r));
		put_order(r, 9, 4, big);
		put_order(r + 4, k % 5 ? 2 : 1, 2, big);
		put_order(r + 6, len, 2, big);
		put_order(r + 8, 11 + cpu, 8, big);
		put_order(r + 16, 0x401000 + 16 * (k % 7), 8, big);
		put_order(r + 24, 1000, 4, big);
		put_order(r + 28, 1000 + cpu, 4, big);
		put_order(r + 32, t0 + 250000 * k + (k * 37) % 900, 8, big);
		put_order(r + 40, cpu, 4, big);
		put_order(r + 48, 250000, 8, big);
		put_order(r + 56, nr, 8, big);
		put_order(r + 64, (uint64_t)-512, 8, big);
		put_order(r + 72, 0x401000 + 16 * (k % 7), 8, big);
		for (unsigned i = 2; i < nr; i++)
			put_order(r + 64 + 8 * i, callers[(i + k) % 3], 8, big);
		if (amb_buf_append(b, r, len))
			die("buffer", -ENOMEM);
		if (k == n / 2) {
			/* PERF_RECORD_COMM of pid/tid 1000, "golden", with its trailer */
			memset(r, 0, sizeof(r));
			put_order(r, 3, 4, big);
			put_order(r + 6, 64, 2, big);
			put_order(r + 8, 1000, 4, big);
			put_order(r + 12, 1000, 4, big);
			memcpy(r + 16, "golden", 6);
			put_order(r + 24, 11 + cpu, 8, big);
			put_order(r + 32, 1000, 4, big);
			put_order(r + 36, 1000, 4, big);
			put_order(r + 40, t0 + 250000 * k, 8, big);
			put_order(r + 48, cpu, 4, big);
			put_order(r + 56, 11 + cpu, 8, big);
			if (amb_buf_append(b, r, 64))
				die("buffer", -ENOMEM);
		}
	}
}

/* RING blocks in the sample codec (FORMAT.md §4.1): the layout comes
 * from the EVENT_ATTR entry, which is written first. */
static void write_sample_codec(const char *path, bool big)
{
	AMB_OPTS(amb_writer_opts, o);
	struct amb_buf b = AMB_BUF_INIT;
	uint8_t attr[136] = { 0 }, ids[16];
	struct amb_event_entry ev = {
		.attr = attr, .attr_size = sizeof(attr), .name = "cpu-clock", .name_len = 9,
		.leader = UINT32_MAX, .nr_ids = 2, .ids = ids,
	};
	struct amb_writer *w;
	int err;

	o.uuid = golden_uuid;
	o.created_ns = GOLDEN_TIME;
	o.zstd_level = 3;
	o.producer_endian = big ? AMB_ENDIAN_BIG : AMB_ENDIAN_LITTLE;
	o.producer_word_size = 8;
	o.producer_machine = big ? 22 : 62;
	o.ring_codec = AMB_CODEC_SAMPLE;
	unlink(path);
	err = amb_writer_open(path, &o, &w);
	if (err)
		die(path, err);
	put_order(attr, 1, 4, big);
	put_order(attr + 4, sizeof(attr), 4, big);
	put_order(attr + 24, CODEC_ST_CHAIN, 8, big);
	amb_put_le64(ids, 11);
	amb_put_le64(ids + 8, 12);
	amb_kv_put_str(&b, "clock", "monotonic");
	append(w, AMB_BLOCK_META, AMB_STREAM_NONE, 1, 0, 0, &b);
	amb_buf_reset(&b);
	amb_event_put(&b, &ev);
	append(w, AMB_BLOCK_EVENT_ATTR, AMB_STREAM_NONE, 1, 0, 0, &b);
	for (uint32_t cpu = 0; cpu < 2; cpu++) {
		codec_ring(&b, big, cpu, 60, 1000000 + 1000 * cpu);
		append(w, AMB_BLOCK_RING, cpu, 61, 1000000 + 1000 * cpu,
		       1000000 + 1000 * cpu + 250000 * 59 + (59 * 37) % 900, &b);
	}
	finish(w);
	amb_buf_free(&b);
}

/* What a killed recorder leaves: blocks but no INDEX or TRAILER. */
static uint64_t write_unclosed(const char *path, int level)
{
	struct amb_writer *w = open_writer(path, AMB_ENDIAN_LITTLE, level);
	struct amb_buf b = AMB_BUF_INIT;
	struct amb_writer_stats st;

	amb_kv_put_str(&b, "clock", "monotonic");
	append(w, AMB_BLOCK_META, AMB_STREAM_NONE, 1, 0, 0, &b);
	ring(&b, false, 0, 20, 1000);
	append(w, AMB_BLOCK_RING, 0, 20, 1000, 20000, &b);
	ring(&b, false, 1, 20, 1500);
	append(w, AMB_BLOCK_RING, 1, 20, 1500, 20500, &b);
	amb_writer_get_stats(w, &st);
	finish(w);
	if (truncate(path, (off_t)st.file_bytes))
		die(path, -errno);
	amb_buf_free(&b);
	return st.file_bytes;
}

/* ---- damaged copies ------------------------------------------------------- */

struct image {
	uint8_t *p;
	size_t len;
};

static struct image load(const char *path)
{
	struct image im;

	im.p = (uint8_t *)amb_read_file(path, 1u << 20, &im.len);
	if (!im.p)
		die(path, -errno);
	return im;
}

/* Offset of block @k, walking the headers (sizes at §3 offsets 4 and 32). */
static size_t block_off(const struct image *im, unsigned k)
{
	size_t off = AMB_FILE_HDR_SIZE;

	while (k--)
		off += amb_get_le16(im->p + off + 4) + (size_t)amb_get_le64(im->p + off + 32);
	return off;
}

static void rehash_header(struct image *im, size_t off)
{
	amb_put_le64(im->p + off + 72, amb_checksum(im->p + off, 72));
}

static void rehash_payload(struct image *im, size_t off)
{
	uint64_t stored = amb_get_le64(im->p + off + 32);

	amb_put_le64(im->p + off + 64, amb_checksum(im->p + off + 80, (size_t)stored));
	rehash_header(im, off);
}

static void rehash_file_header(struct image *im)
{
	amb_put_le64(im->p + 56, amb_checksum(im->p, 56));
}

static void emit(const char *name, const struct image *im, size_t len, const char *fmt, ...)
	AMB_PRINTF(4, 5);
static void emit(const char *name, const struct image *im, size_t len, const char *fmt, ...)
{
	char msg[512];
	FILE *f;
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	f = fopen(path_of("invalid", name, ".amber"), "wb");
	if (!f || fwrite(im->p, 1, len, f) != len || fclose(f))
		die(name, -errno);
	f = fopen(path_of("invalid", name, ".err"), "w");
	if (!f || fprintf(f, "%s\n", msg) < 0 || fclose(f))
		die(name, -errno);
}

static struct image copy(const struct image *src)
{
	struct image im = { malloc(src->len), src->len };

	if (!im.p)
		die("copy", -ENOMEM);
	memcpy(im.p, src->p, src->len);
	return im;
}

/* @src with @extra more bytes of room at the end (len unchanged). */
static struct image grow(const struct image *src, size_t extra)
{
	struct image im = { malloc(src->len + extra), src->len + extra };

	if (!im.p)
		die("copy", -ENOMEM);
	memcpy(im.p, src->p, src->len);
	return im;
}

/*
 * Eight META blocks of some 8 KB, each a zstd frame of 256 MiB (one pair
 * whose value is zeros): what made info, dump and report use 2.4 GB.  A
 * reader leaves them out (FORMAT.md §7, "Budgets").
 */
static void write_meta_bomb(void)
{
	const char *path = path_of("invalid", "meta_bomb", ".amber");
	struct amb_writer *w = open_writer(path, AMB_ENDIAN_LITTLE, 19);
	size_t raw = AMB_BLOCK_RAW_MAX;
	uint8_t *p = calloc(1, raw);
	struct amb_block_desc d = { AMB_BLOCK_META, AMB_STREAM_NONE, 1, 0, 0 };
	struct image im;
	FILE *f;

	if (!p)
		die("meta_bomb", -ENOMEM);
	amb_put_le32(p, 1);
	p[4] = 'k';
	amb_put_le32(p + 5, (uint32_t)(raw - 9));
	for (int i = 0; i < 8; i++)
		if (amb_writer_append(w, &d, p, raw))
			die("meta_bomb", -EIO);
	free(p);
	finish(w);
	im = load(path);
	f = fopen(path_of("invalid", "meta_bomb", ".err"), "w");
	if (!f || fprintf(f, "block 0 at offset %u: meta block of raw_size %zu from %llu stored bytes: "
			  "over the 256:1 a reader decodes; left out\n", AMB_FILE_HDR_SIZE, raw,
			  (unsigned long long)amb_get_le64(im.p + AMB_FILE_HDR_SIZE + 32)) < 0 || fclose(f))
		die("meta_bomb", -errno);
	free(im.p);
}

static void write_invalid(void)
{
	struct image base, im, open_im;
	size_t b0, b1, b2, idx, tr, end;
	uint64_t stored, v;

	write_all_types(path_of("invalid", "base", ".tmp"), 3);
	base = load(path_of("invalid", "base", ".tmp"));
	unlink(path_of("invalid", "base", ".tmp"));
	b0 = block_off(&base, 0);
	b1 = block_off(&base, 1);
	b2 = block_off(&base, 2);
	tr = base.len - AMB_TRAILER_BLOCK_SIZE;
	idx = (size_t)amb_get_le64(base.p + tr + 80);

	im = copy(&base);
	im.p[1] = 'a';
	emit("bad_magic", &im, im.len, "file header: bad magic (not an .amber file)");
	free(im.p);

	im = copy(&base);
	amb_put_le16(im.p + 8, 2);
	rehash_file_header(&im);
	emit("bad_version", &im, im.len, "file header: unsupported major version 2 (this reader knows 1)");
	free(im.p);

	im = copy(&base);
	im.p[30] ^= 0x01;  /* inside the uuid */
	emit("file_header_checksum", &im, im.len,
	     "file header: checksum mismatch (stored 0x%016llx, computed 0x%016llx)",
	     (unsigned long long)amb_get_le64(im.p + 56), (unsigned long long)amb_checksum(im.p, 56));
	free(im.p);

	im = copy(&base);
	emit("truncated_header", &im, 40, "file header: truncated: file is 40 bytes, header needs 64");
	free(im.p);

	im = copy(&base);
	im.p[16] = 3;
	rehash_file_header(&im);
	emit("bad_endian", &im, im.len, "file header: producer_endian 3 is neither 1 (little) nor 2 (big)");
	free(im.p);

	im = copy(&base);
	im.p[b1 + 17] ^= 0x10;  /* seq of block 1 */
	emit("block_header_checksum", &im, im.len,
	     "block 1 at offset %zu: header checksum mismatch (stored 0x%016llx, computed 0x%016llx)",
	     b1, (unsigned long long)amb_get_le64(im.p + b1 + 72),
	     (unsigned long long)amb_checksum(im.p + b1, 72));
	free(im.p);

	im = copy(&base);
	stored = amb_get_le64(im.p + b0 + 32);
	im.p[b0 + 80 + stored / 2] ^= 0x01;
	emit("payload_checksum", &im, im.len,
	     "block 0 at offset %zu: payload checksum mismatch (stored 0x%016llx, computed 0x%016llx)",
	     b0, (unsigned long long)amb_get_le64(im.p + b0 + 64),
	     (unsigned long long)amb_checksum(im.p + b0 + 80, (size_t)stored));
	free(im.p);

	im = copy(&base);
	im.p[b1 + 8] = 7;
	rehash_header(&im, b1);
	emit("bad_codec", &im, im.len, "block 1 at offset %zu: unknown codec 7", b1);
	free(im.p);

	im = copy(&base);
	amb_put_le64(im.p + b0 + 24, 512ull << 20);
	rehash_header(&im, b0);
	emit("oversized_length", &im, im.len,
	     "block 0 at offset %zu: raw_size %llu over the cap of %u", b0, 512ull << 20,
	     AMB_BLOCK_RAW_MAX);
	free(im.p);

	im = copy(&base);
	amb_put_le16(im.p + b2 + 10, 1);
	rehash_header(&im, b2);
	emit("reserved_nonzero", &im, im.len,
	     "block 2 at offset %zu: reserved field is 0x0001, not zero", b2);
	free(im.p);

	/* Block 1 cut out of the file: a real gap. */
	im = copy(&base);
	memmove(im.p + b1, im.p + b2, im.len - b2);
	emit("seq_gap", &im, im.len - (b2 - b1),
	     "block 1 at offset %zu: seq 2, expected 1 (blocks lost before it)", b1);
	free(im.p);

	/* Block 1 claims block 5's seq: two different blocks, one number. */
	im = copy(&base);
	amb_put_le64(im.p + b1 + 16, 5);
	rehash_header(&im, b1);
	emit("seq_repeat", &im, im.len,
	     "block 5 at offset %zu: seq 5 is also block 1's at offset %zu, a different block: "
	     "one of them is not of this recording", block_off(&im, 5), b1);
	free(im.p);

	/* Block 1 twice in a row (FORMAT.md §7, "Repeated blocks"). */
	im = grow(&base, b2 - b1);
	memmove(im.p + b2 + (b2 - b1), im.p + b2, base.len - b2);
	memcpy(im.p + b2, im.p + b1, b2 - b1);
	emit("dup_block", &im, im.len,
	     "block 2 at offset %zu: a copy of block 1 at offset %zu (seq 1): left out", b2, b1);
	free(im.p);

	/* Blocks 1 and 2 swapped. */
	im = copy(&base);
	{
		size_t b3 = block_off(&base, 3);

		memcpy(im.p + b1, base.p + b2, b3 - b2);
		memcpy(im.p + b1 + (b3 - b2), base.p + b1, b2 - b1);
		emit("swapped_blocks", &im, im.len,
		     "block 2 at offset %zu: seq 1 after seq 2 (blocks out of order)", b1 + (b3 - b2));
	}
	free(im.p);

	/* `cat base other`: another recording's header and blocks follow. */
	write_all_types(path_of("invalid", "other", ".tmp"), 3);
	open_im = load(path_of("invalid", "other", ".tmp"));
	unlink(path_of("invalid", "other", ".tmp"));
	open_im.p[24] ^= 0xff;  /* another uuid */
	rehash_file_header(&open_im);
	im = grow(&base, open_im.len);
	memcpy(im.p + base.len, open_im.p, open_im.len);
	emit("concatenated", &im, im.len,
	     "offset %zu: file header of another recording (uuid %02x%02x%02x%02x%02x%02x%02x%02x"
	     "%02x%02x%02x%02x%02x%02x%02x%02x): its blocks are not part of this one and are left out",
	     base.len, open_im.p[24], open_im.p[25], open_im.p[26], open_im.p[27], open_im.p[28],
	     open_im.p[29], open_im.p[30], open_im.p[31], open_im.p[32], open_im.p[33],
	     open_im.p[34], open_im.p[35], open_im.p[36], open_im.p[37], open_im.p[38],
	     open_im.p[39]);
	free(im.p);
	free(open_im.p);

	write_meta_bomb();

	/* The first zstd block: claim one byte more than its frame holds. */
	im = copy(&base);
	{
		unsigned k = 0;
		size_t z = block_off(&im, 0);

		while (z < idx && im.p[z + 8] != AMB_CODEC_ZSTD)
			z = block_off(&im, ++k);
		if (z >= idx)
			die("golden file has no zstd block", -AMB_E_CORRUPT);
		v = amb_get_le64(im.p + z + 24);
		amb_put_le64(im.p + z + 24, v + 1);
		rehash_header(&im, z);
		emit("bad_decompress", &im, im.len,
		     "block %u at offset %zu: zstd payload does not decode to raw_size %llu: frame announces %llu",
		     k, z, (unsigned long long)(v + 1), (unsigned long long)v);
	}
	free(im.p);

	/* Index entry 1 lists a wrong record_count; every checksum is valid.
	 * Stored raw (level 0) so that the entry can be patched in place. */
	write_all_types(path_of("invalid", "raw", ".tmp"), 0);
	im = load(path_of("invalid", "raw", ".tmp"));
	unlink(path_of("invalid", "raw", ".tmp"));
	{
		size_t rtr = im.len - AMB_TRAILER_BLOCK_SIZE;
		size_t ridx = (size_t)amb_get_le64(im.p + rtr + 80);
		size_t e1 = ridx + 80 + AMB_INDEX_PREFIX + AMB_INDEX_ENTRY_SIZE;

		v = amb_get_le64(im.p + e1 + 40);
		amb_put_le64(im.p + e1 + 40, v + 1);
		rehash_payload(&im, ridx);
		emit("corrupt_index", &im, im.len,
		     "index at offset %zu: entry 1: record_count disagrees with block at offset %zu",
		     ridx, block_off(&im, 1));
	}
	free(im.p);

	im = copy(&base);
	amb_put_le64(im.p + tr + 80, b2);
	rehash_payload(&im, tr);
	emit("bad_trailer", &im, im.len,
	     "trailer at offset %zu: index_offset %zu, block_count %llu, data_end %zu do not match the %llu blocks found",
	     tr, b2, (unsigned long long)amb_get_le64(im.p + tr + 88), idx,
	     (unsigned long long)amb_get_le64(im.p + tr + 88));
	free(im.p);

	/* A sample codec block whose payload header names version 9, its
	 * checksums recomputed: only the codec can tell. */
	write_sample_codec(path_of("invalid", "codec", ".tmp"), false);
	im = load(path_of("invalid", "codec", ".tmp"));
	unlink(path_of("invalid", "codec", ".tmp"));
	{
		size_t z = block_off(&im, 2);

		if (im.p[z + 8] != AMB_CODEC_SAMPLE)
			die("golden codec file: block 2 is not in the sample codec", -AMB_E_CORRUPT);
		im.p[z + 80 + 2] = 9;
		rehash_payload(&im, z);
		emit("bad_sample_payload", &im, im.len,
		     "block 2 at offset %zu: sample payload header: length %u, version 9", z,
		     amb_get_le16(im.p + z + 80));
	}
	free(im.p);

	/* Unclosed recordings: a torn last block, garbage after the last one. */
	end = (size_t)write_unclosed(path_of("invalid", "unclosed", ".tmp"), 3);
	open_im = load(path_of("invalid", "unclosed", ".tmp"));
	unlink(path_of("invalid", "unclosed", ".tmp"));
	b2 = block_off(&open_im, 2);
	emit("torn_tail", &open_im, end - 10,
	     "block 2 at offset %zu: torn: payload ends at %zu beyond end of file %zu",
	     b2, end, end - 10);
	emit("torn_header", &open_im, b2 + 30,
	     "block 2 at offset %zu: torn: header ends beyond end of file %zu", b2, b2 + 30);
	emit("no_trailer", &open_im, end,
	     "file ends at offset %zu without a trailer (recording was not closed)", end);
	free(open_im.p);
	free(base.p);
}

int main(int argc, char **argv)
{
	if (argc != 2) {
		fprintf(stderr, "usage: mkgolden DIR\n");
		return 2;
	}
	outdir = argv[1];
	mkdir(outdir, 0755);
	mkdir(path_of("valid", "", ""), 0755);
	mkdir(path_of("invalid", "", ""), 0755);
	write_minimal(path_of("valid", "minimal", ".amber"));
	write_all_types(path_of("valid", "all_types", ".amber"), 3);
	write_bigendian(path_of("valid", "bigendian", ".amber"));
	unlink(path_of("valid", "unclosed", ".amber"));
	write_unclosed(path_of("valid", "unclosed", ".amber"), 3);
	write_sample_codec(path_of("valid", "sample_codec", ".amber"), false);
	write_sample_codec(path_of("valid", "sample_codec_be", ".amber"), true);
	write_invalid();
	return 0;
}
