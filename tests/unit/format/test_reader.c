// SPDX-License-Identifier: MIT
/* Unit tests for format/reader.c: truncation at every size, resync after a
 * damaged header, index validation and fallback, filters, load errors. */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>

#include <cmocka.h>

#include "format/format_internal.h"
#include "tests/unit/format/fmt_test.h"

#define NBLOCKS 12

static size_t block_len(size_t i)
{
	return 20 + i * 37 % 300;
}

/* A small closed file: NBLOCKS RING blocks on streams 0..2, times 100*i. */
static void make_file(const char *path, int level)
{
	AMB_OPTS(amb_writer_opts, o);
	struct amb_writer *w;
	uint8_t buf[400];

	o.zstd_level = level;
	assert_int_equal(amb_writer_open(path, &o, &w), 0);
	for (size_t i = 0; i < NBLOCKS; i++) {
		struct amb_block_desc d = { AMB_BLOCK_RING, (uint32_t)(i % 3), 1, 100 * i + 1,
					    100 * i + 50 };

		fill_block(buf, block_len(i), (uint32_t)i, i % 2, d.type, d.record_count, false);
		assert_int_equal(amb_writer_append(w, &d, buf, block_len(i)), 0);
	}
	assert_int_equal(amb_writer_close(w), 0);
}

static void check_payload(struct amb_reader *r, struct amb_payload *p, size_t i)
{
	uint8_t buf[400];
	const void *data;
	size_t len;

	assert_int_equal(amb_reader_load(r, i, p, &data, &len), 0);
	assert_int_equal(len, block_len(i));
	fill_block(buf, len, (uint32_t)i, i % 2, AMB_BLOCK_RING, 1, false);
	assert_memory_equal(data, buf, len);
}

/* Cut the file at every size from full down to 0: no crash, and exactly the
 * blocks that end at or before the cut are recovered. */
static void test_truncate_everywhere(void **state)
{
	char *dir = tmpdir_new();
	const char *path = tpath(dir, "t.amber");
	uint64_t ends[NBLOCKS + 2], full;
	struct amb_payload *p = amb_payload_new();
	struct amb_reader *r;
	size_t nb;
	int fd;

	(void)state;
	make_file(path, 1);
	full = file_size_of(path);
	assert_int_equal(amb_reader_open(path, 0, &r), 0);
	nb = amb_reader_block_count(r);
	assert_int_equal(nb, NBLOCKS + 2);
	for (size_t i = 0; i < nb; i++) {
		const struct amb_block_info *bi = amb_reader_block(r, i);

		ends[i] = bi->offset + AMB_BLOCK_HDR_SIZE + bi->stored_size;
	}
	assert_int_equal(ends[nb - 1], full);
	amb_reader_close(r);

	fd = open(path, O_RDWR);
	assert_true(fd >= 0);
	for (uint64_t t = full; t != UINT64_MAX; t--) {
		size_t expect = 0;
		bool boundary = t == AMB_FILE_HDR_SIZE;
		int err;

		assert_int_equal(ftruncate(fd, (off_t)t), 0);
		err = amb_reader_open(path, 0, &r);
		if (t < AMB_FILE_HDR_SIZE) {
			assert_int_equal(err, -AMB_E_TRUNCATED);
			continue;
		}
		assert_int_equal(err, 0);
		while (expect < nb && ends[expect] <= t)
			expect++;
		for (size_t i = 0; i < nb; i++)
			boundary |= ends[i] == t;
		assert_int_equal(amb_reader_block_count(r), expect);
		if (t == full) {
			assert_true(amb_reader_indexed(r));
			assert_int_equal(amb_reader_problem_count(r), 0);
		} else {
			/* "not closed", plus a torn block unless cut at a boundary */
			assert_false(amb_reader_indexed(r));
			assert_int_equal(amb_reader_problem_count(r), boundary ? 1 : 2);
			assert_int_equal(amb_reader_problem(r, 0)->err, -AMB_E_NO_TRAILER);
			if (!boundary) {
				const struct amb_problem *pb = amb_reader_problem(r, 1);

				assert_int_equal(pb->err, -AMB_E_TRUNCATED);
				assert_int_equal(pb->offset, expect ? ends[expect - 1] : AMB_FILE_HDR_SIZE);
				assert_non_null(strstr(pb->msg, "torn"));
			}
		}
		for (size_t i = 0; i < expect && i < NBLOCKS; i++)
			check_payload(r, p, i);
		amb_reader_close(r);
	}
	close(fd);
	amb_payload_free(p);
	tmpdir_free(dir);
}

/* §7 step 4: a damaged block header is reported and the scan resumes at
 * the next valid header. */
static void test_resync(void **state)
{
	char *dir = tmpdir_new();
	const char *path = tpath(dir, "r.amber");
	struct amb_payload *p = amb_payload_new();
	struct amb_reader *r;
	uint64_t off3;
	uint8_t *b;
	size_t len;

	(void)state;
	make_file(path, 0);
	assert_int_equal(amb_reader_open(path, 0, &r), 0);
	off3 = amb_reader_block(r, 3)->offset;
	amb_reader_close(r);
	b = slurp(path, &len);
	b[off3 + 20] ^= 0x40;  /* inside seq: header checksum fails */
	assert_int_equal(spew(path, b, len), 0);

	/* The index lists block 3, whose header no longer checks: the reader
	 * does not trust the index then, and scans (FORMAT.md §7 step 2). */
	assert_int_equal(amb_reader_open(path, 0, &r), 0);
	assert_false(amb_reader_indexed(r));
	assert_int_equal(amb_reader_problem(r, 0)->err, -AMB_E_INDEX);
	assert_non_null(strstr(amb_reader_problem(r, 0)->msg, "index entry 3: no such block at offset"));
	assert_int_equal(amb_reader_block_count(r), NBLOCKS + 1);
	check_payload(r, p, 2);
	assert_int_equal(amb_reader_block(r, 3)->seq, 4);
	amb_reader_close(r);

	/* Scanning skips it and finds everything after it. */
	assert_int_equal(amb_reader_open(path, AMB_READ_SCAN, &r), 0);
	assert_int_equal(amb_reader_problem_count(r), 1);
	assert_int_equal(amb_reader_problem(r, 0)->err, -AMB_E_HDR_CHECKSUM);
	assert_int_equal(amb_reader_problem(r, 0)->offset, off3);
	assert_int_equal(amb_reader_block_count(r), NBLOCKS + 1);
	assert_int_equal(amb_reader_block(r, 3)->seq, 4);
	amb_reader_close(r);

	/* Bad magic: same recovery. */
	b[off3 + 20] ^= 0x40;
	b[off3] = 'X';
	assert_int_equal(spew(path, b, len), 0);
	assert_int_equal(amb_reader_open(path, AMB_READ_SCAN | AMB_READ_VERIFY, &r), 0);
	assert_int_equal(amb_reader_problem_count(r), 1);
	assert_int_equal(amb_reader_problem(r, 0)->err, -AMB_E_MAGIC);
	assert_int_equal(amb_reader_block_count(r), NBLOCKS + 1);
	amb_reader_close(r);

	/* AMB_READ_VERIFY drops a block whose payload is damaged. */
	b[off3] = 'A';
	b[off3 + AMB_BLOCK_HDR_SIZE + 2] ^= 1;
	assert_int_equal(spew(path, b, len), 0);
	assert_int_equal(amb_reader_open(path, AMB_READ_VERIFY, &r), 0);
	assert_int_equal(amb_reader_problem_count(r), 1);
	assert_int_equal(amb_reader_problem(r, 0)->err, -AMB_E_PAYLOAD_CHECKSUM);
	assert_int_equal(amb_reader_block_count(r), NBLOCKS + 1);
	amb_reader_close(r);

	free(b);
	amb_payload_free(p);
	tmpdir_free(dir);
}

/* Rewrite the raw INDEX payload of @b with @patch applied, fixing the
 * checksums so that only the index rules can catch it. */
static void patch_index(uint8_t *b, size_t len, size_t at, uint64_t v)
{
	uint64_t toff = len - AMB_TRAILER_BLOCK_SIZE, ioff = amb_get_le64(b + toff + AMB_BLOCK_HDR_SIZE);
	struct amb_block_hdr h;

	assert_int_equal(amb_block_hdr_decode(b + ioff, AMB_BLOCK_HDR_SIZE, &h, NULL, 0), 0);
	assert_int_equal(h.codec, AMB_CODEC_NONE);
	amb_put_le64(b + ioff + AMB_BLOCK_HDR_SIZE + at, v);
	h.payload_checksum = amb_checksum(b + ioff + AMB_BLOCK_HDR_SIZE, (size_t)h.stored_size);
	amb_block_hdr_encode(&h, b + ioff);
}

static void test_bad_index(void **state)
{
	char *dir = tmpdir_new();
	const char *path = tpath(dir, "i.amber");
	struct amb_reader *r;
	uint8_t *b;
	size_t len;

	(void)state;
	make_file(path, 0);
	b = slurp(path, &len);
	/* Entry 2 claims an offset before entry 1's block ends. */
	patch_index(b, len, AMB_INDEX_PREFIX + 2 * AMB_INDEX_ENTRY_SIZE, AMB_FILE_HDR_SIZE + 8);
	assert_int_equal(spew(path, b, len), 0);
	assert_int_equal(amb_reader_open(path, 0, &r), 0);
	assert_false(amb_reader_indexed(r));
	assert_int_equal(amb_reader_problem_count(r), 1);
	assert_int_equal(amb_reader_problem(r, 0)->err, -AMB_E_INDEX);
	assert_int_equal(amb_reader_block_count(r), NBLOCKS + 2);
	amb_reader_close(r);

	/* An offset past the index. */
	patch_index(b, len, AMB_INDEX_PREFIX + 2 * AMB_INDEX_ENTRY_SIZE, len);
	assert_int_equal(spew(path, b, len), 0);
	assert_int_equal(amb_reader_open(path, 0, &r), 0);
	assert_false(amb_reader_indexed(r));
	assert_int_equal(amb_reader_block_count(r), NBLOCKS + 2);
	amb_reader_close(r);

	/* A wrong entry_size. */
	free(b);
	make_file(tpath(dir, "j.amber"), 0);
	b = slurp(tpath(dir, "j.amber"), &len);
	patch_index(b, len, 0, 1);
	assert_int_equal(spew(path, b, len), 0);
	assert_int_equal(amb_reader_open(path, 0, &r), 0);
	assert_false(amb_reader_indexed(r));
	assert_int_equal(amb_reader_problem(r, 0)->err, -AMB_E_INDEX);
	amb_reader_close(r);
	free(b);
	tmpdir_free(dir);
}

/*
 * info (the reader's problems) and verify say the same of a closed file
 * with bytes appended after its trailer, of one whose index lists a block
 * whose header is damaged, and of an index entry that is not a copy of
 * its block's header (FORMAT.md §7).
 */
static void test_reader_and_verify_agree(void **state)
{
	char *dir = tmpdir_new();
	const char *path = tpath(dir, "a.amber");
	struct problems ps = { 0 };
	struct amb_reader *r;
	uint8_t *b, *more;
	size_t len;
	uint64_t off;

	(void)state;
	make_file(path, 0);
	b = slurp(path, &len);
	/* Appended bytes: the recording is still closed and indexed. */
	more = malloc(len + 30);
	assert_non_null(more);
	memcpy(more, b, len);
	memset(more + len, 'x', 30);
	assert_int_equal(spew(path, more, len + 30), 0);
	assert_int_equal(amb_reader_open(path, 0, &r), 0);
	assert_true(amb_reader_indexed(r));
	assert_int_equal(amb_reader_block_count(r), NBLOCKS + 2);
	assert_int_equal(amb_reader_problem_count(r), 1);
	assert_non_null(strstr(amb_reader_problem(r, 0)->msg,
			       "30 bytes after the trailer of the closed recording"));
	assert_int_equal(amb_verify(path, collect_problem, &ps, NULL), 1);
	assert_string_equal(ps.first, amb_reader_problem(r, 0)->msg);
	amb_reader_close(r);
	free(more);

	/* A damaged header the index lists: the index is not used, the block
	 * is lost; one problem each for both. */
	off = AMB_FILE_HDR_SIZE;
	off += AMB_BLOCK_HDR_SIZE + amb_get_le64(b + off + 32);   /* block 1 */
	b[off + 40] ^= 0xff;
	assert_int_equal(spew(path, b, len), 0);
	assert_int_equal(amb_reader_open(path, 0, &r), 0);
	assert_false(amb_reader_indexed(r));
	assert_int_equal(amb_reader_problem_count(r), 2);
	assert_non_null(strstr(amb_reader_problem(r, 0)->msg, "index entry 1: no such block"));
	assert_non_null(strstr(amb_reader_problem(r, 1)->msg, "header checksum mismatch"));
	memset(&ps, 0, sizeof(ps));
	assert_int_equal(amb_verify(path, collect_problem, &ps, NULL), 2);
	assert_non_null(strstr(ps.first, "header checksum mismatch"));
	amb_reader_close(r);
	b[off + 40] ^= 0xff;

	/* An entry whose record_count is not its header's: headers win. */
	patch_index(b, len, AMB_INDEX_PREFIX + 5 * AMB_INDEX_ENTRY_SIZE + 40, 77);
	assert_int_equal(spew(path, b, len), 0);
	assert_int_equal(amb_reader_open(path, 0, &r), 0);
	assert_false(amb_reader_indexed(r));
	assert_int_equal(amb_reader_problem_count(r), 1);
	assert_non_null(strstr(amb_reader_problem(r, 0)->msg,
			       "index entry 5 disagrees with the block header"));
	assert_int_equal(amb_reader_block(r, 5)->record_count, 1);
	memset(&ps, 0, sizeof(ps));
	assert_int_equal(amb_verify(path, collect_problem, &ps, NULL), 1);
	assert_non_null(strstr(ps.first, "entry 5: record_count disagrees"));
	amb_reader_close(r);
	free(b);
	tmpdir_free(dir);
}

static void test_filters(void **state)
{
	char *dir = tmpdir_new();
	const char *path = tpath(dir, "f.amber");
	struct amb_block_filter any = AMB_FILTER_ANY, f = AMB_FILTER_ANY;
	struct amb_reader *r;
	size_t i, n;

	(void)state;
	make_file(path, 3);
	assert_int_equal(amb_reader_open(path, 0, &r), 0);

	n = 0;
	amb_reader_for_each_block(r, &any, i)
		n++;
	assert_int_equal(n, NBLOCKS + 2);
	assert_int_equal(amb_reader_next(r, NULL, 0), 0);

	f.type = AMB_BLOCK_INDEX;
	assert_int_equal(amb_reader_next(r, &f, 0), NBLOCKS);
	assert_int_equal(amb_reader_next(r, &f, NBLOCKS + 1), SIZE_MAX);

	f.type = AMB_BLOCK_RING;
	f.stream = 1;
	n = 0;
	amb_reader_for_each_block(r, &f, i) {
		assert_int_equal(i % 3, 1);
		n++;
	}
	assert_int_equal(n, NBLOCKS / 3);

	/* Time overlap: block i spans [100i+1, 100i+50]. */
	f.stream = -1;
	f.t0 = 251;
	f.t1 = 401;
	n = 0;
	amb_reader_for_each_block(r, &f, i) {
		assert_true(i == 3 || i == 4);
		n++;
	}
	assert_int_equal(n, 2);
	f.t0 = 60;
	f.t1 = 90;
	assert_int_equal(amb_reader_next(r, &f, 0), SIZE_MAX);
	/* The INDEX has no timestamps: no time filter excludes it. */
	f.type = -1;
	assert_int_equal(amb_reader_next(r, &f, 0), NBLOCKS);

	assert_null(amb_reader_block(r, NBLOCKS + 2));
	assert_null(amb_reader_problem(r, 0));
	assert_int_equal(amb_reader_file_size(r), file_size_of(path));
	amb_reader_close(r);
	amb_reader_close(NULL);
	tmpdir_free(dir);
}

static void test_load_errors(void **state)
{
	char *dir = tmpdir_new();
	const char *path = tpath(dir, "l.amber");
	struct amb_payload *p = amb_payload_new();
	struct amb_reader *r;
	const void *data;
	size_t len;

	(void)state;
	make_file(path, 3);
	assert_int_equal(amb_reader_open(path, 0, &r), 0);
	assert_int_equal(amb_reader_load(r, NBLOCKS + 2, p, &data, &len), -EINVAL);
	assert_int_equal(amb_reader_load(r, 0, NULL, &data, &len), -EINVAL);
	amb_reader_close(r);
	assert_int_equal(amb_reader_open(tpath(dir, "missing"), 0, &r), -ENOENT);
	assert_null(r);
	assert_int_equal(amb_reader_open(dir, 0, &r), -EINVAL);
	amb_payload_free(p);
	amb_payload_free(NULL);
	tmpdir_free(dir);
}

/* Problems found at open also go to the warning callback. */
static int nwarn;
static void count_warn(void *ctx, const char *msg)
{
	(void)ctx;
	(void)msg;
	nwarn++;
}

static void test_warnings(void **state)
{
	char *dir = tmpdir_new();
	const char *path = tpath(dir, "w.amber");
	struct amb_reader *r;

	(void)state;
	make_file(path, 1);
	assert_int_equal(truncate(path, (off_t)file_size_of(path) - 30), 0);
	amb_set_warn(count_warn, NULL);
	assert_int_equal(amb_reader_open(path, 0, &r), 0);
	amb_set_warn(NULL, NULL);
	assert_int_equal(nwarn, (int)amb_reader_problem_count(r));
	assert_int_equal(nwarn, 2);
	amb_reader_close(r);
	tmpdir_free(dir);
}

/*
 * FORMAT.md §3/§8: a later minor may write block headers longer than 80
 * bytes.  A small payload behind a 96-byte header must load (the first read
 * of a block assumes 80 bytes and has to read again).
 */
static void test_long_block_header(void **state)
{
	char *dir = tmpdir_new();
	const char *a = tpath(dir, "a.amber");
	struct amb_block_desc d = { .type = AMB_BLOCK_META, .stream = AMB_STREAM_NONE };
	AMB_OPTS(amb_writer_opts, o);
	struct amb_writer *w;
	struct amb_reader *r;
	struct amb_payload *p;
	uint8_t out[64 + 96 + 5];
	const void *data;
	uint8_t *in;
	size_t len;

	(void)state;
	o.zstd_level = 0;
	assert_int_equal(amb_writer_open(a, &o, &w), 0);
	assert_int_equal(amb_writer_append(w, &d, "hello", 5), 0);
	assert_int_equal(amb_writer_close(w), 0);
	in = slurp(a, &len);
	assert_non_null(in);
	/* File header, then the block's first 72 bytes, 16 bytes of unknown
	 * header extension, and the header checksum at header_len - 8. */
	memcpy(out, in, 64 + 72);
	memset(out + 64 + 72, 0, 16);
	amb_put_le16(out + 64 + 4, 96);
	amb_put_le64(out + 64 + 88, amb_checksum(out + 64, 88));
	memcpy(out + 64 + 96, "hello", 5);
	free(in);
	const char *b = tpath(dir, "b.amber");
	assert_int_equal(spew(b, out, sizeof(out)), 0);

	assert_int_equal(amb_reader_open(b, 0, &r), 0);
	assert_int_equal(amb_reader_block_count(r), 1);
	p = amb_payload_new();
	assert_int_equal(amb_reader_load(r, 0, p, &data, &len), 0);
	assert_int_equal(len, 5);
	assert_memory_equal(data, "hello", 5);
	amb_payload_free(p);
	amb_reader_close(r);
	tmpdir_free(dir);
}

/* Not a file: a FIFO (opened without waiting for a writer), a directory,
 * a character device; each refused with -EINVAL and named (FORMAT.md §7). */
/*
 * A zstd payload is one frame and nothing after it (FORMAT.md §4): a
 * block copied with a stray byte after its frame (payload checksum made
 * anew, so only the codec can tell) is refused by name.
 */
static void test_one_frame(void **state)
{
	char *dir = tmpdir_new();
	const char *a = tpath(dir, "a.amber"), *b = tpath(dir, "b.amber");
	struct amb_block_desc d = { AMB_BLOCK_META, AMB_STREAM_NONE, 1, 0, 0 };
	AMB_OPTS(amb_writer_opts, o, .zstd_level = 3);
	struct amb_payload *p = amb_payload_new();
	struct amb_block_info info;
	struct amb_writer *w;
	struct amb_reader *r;
	uint8_t buf[600], copy[700];
	const void *data;
	size_t len;

	(void)state;
	fill_payload(buf, sizeof(buf), 3, true);
	assert_int_equal(amb_writer_open(a, &o, &w), 0);
	assert_int_equal(amb_writer_append(w, &d, buf, sizeof(buf)), 0);
	assert_int_equal(amb_writer_close(w), 0);

	assert_int_equal(amb_reader_open(a, 0, &r), 0);
	assert_int_equal(amb_reader_load_stored(r, 0, p, &data, &len, &info), 0);
	assert_int_equal(info.codec, AMB_CODEC_ZSTD);
	assert_true(len + 1 <= sizeof(copy));
	memcpy(copy, data, len);
	copy[len] = 0x28;  /* a stray byte: the first of a zstd frame's magic */
	info.stored_size = len + 1;
	info.payload_checksum = amb_checksum(copy, len + 1);
	amb_reader_close(r);
	assert_int_equal(amb_writer_open(b, &o, &w), 0);
	assert_int_equal(amb_writer_append_stored(w, &info, copy, len + 1), 0);
	assert_int_equal(amb_writer_close(w), 0);

	assert_int_equal(amb_reader_open(b, 0, &r), 0);
	assert_int_equal(amb_reader_load(r, 0, p, &data, &len), -AMB_E_DECOMPRESS);
	assert_non_null(strstr(amb_payload_errmsg(p), "is not one whole frame"));
	amb_reader_close(r);
	amb_payload_free(p);
	tmpdir_free(dir);
}

/* A payload's decode buffer is made for the file's largest block when a
 * block first needs a big one (within four times its size), not grown
 * block by block: each new buffer's pages are faulted in and cleared
 * again.  Three RING blocks of 1.5, 3 and 5 MiB decode into one buffer. */
static void test_load_reserves_ahead(void **state)
{
	const size_t sizes[] = { 3u << 19, 3u << 20, 5u << 20 };
	char *dir = tmpdir_new();
	const char *path = tpath(dir, "grow.amber");
	AMB_OPTS(amb_writer_opts, o, .zstd_level = 1);
	struct amb_payload *p = amb_payload_new();
	const void *data, *first = NULL;
	struct amb_writer *w;
	struct amb_reader *r;
	uint8_t *buf = malloc(5u << 20);
	size_t len;

	(void)state;
	assert_non_null(buf);
	assert_non_null(p);
	assert_int_equal(amb_writer_open(path, &o, &w), 0);
	for (size_t i = 0; i < AMB_ARRAY_SIZE(sizes); i++) {
		struct amb_block_desc d = { AMB_BLOCK_RING, 0, 100, 10 * i + 1, 10 * i + 5 };

		fill_block(buf, sizes[i], (uint32_t)i, true, d.type, d.record_count, false);
		assert_int_equal(amb_writer_append(w, &d, buf, sizes[i]), 0);
	}
	assert_int_equal(amb_writer_close(w), 0);

	assert_int_equal(amb_reader_open(path, 0, &r), 0);
	for (size_t i = 0; i < AMB_ARRAY_SIZE(sizes); i++) {
		assert_int_equal(amb_reader_load(r, i, p, &data, &len), 0);
		assert_int_equal(len, sizes[i]);
		fill_block(buf, sizes[i], (uint32_t)i, true, AMB_BLOCK_RING, 100, false);
		assert_memory_equal(data, buf, len);
		if (!first)
			first = data;
		assert_ptr_equal(data, first);
	}
	amb_reader_close(r);
	amb_payload_free(p);
	free(buf);
	tmpdir_free(dir);
}

static void test_not_a_file(void **state)
{
	char *dir = tmpdir_new();
	const char *fifo = tpath(dir, "fifo");
	struct amb_reader *r = (struct amb_reader *)1;
	char why[240];

	(void)state;
	assert_int_equal(mkfifo(fifo, 0600), 0);
	assert_int_equal(amb_reader_open_msg(fifo, 0, &r, why, sizeof(why)), -EINVAL);
	assert_null(r);
	assert_non_null(strstr(why, "is a FIFO"));
	assert_int_equal(amb_reader_open_msg(dir, 0, &r, why, sizeof(why)), -EINVAL);
	assert_non_null(strstr(why, "is a directory"));
	amb_errmsg_clear();
	assert_int_equal(amb_reader_open("/dev/null", 0, &r), -EINVAL);
	assert_non_null(strstr(amb_errmsg(), "/dev/null: is a character device"));
	tmpdir_free(dir);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_truncate_everywhere),
		cmocka_unit_test(test_resync),
		cmocka_unit_test(test_bad_index),
		cmocka_unit_test(test_reader_and_verify_agree),
		cmocka_unit_test(test_filters),
		cmocka_unit_test(test_load_errors),
		cmocka_unit_test(test_warnings),
		cmocka_unit_test(test_long_block_header),
		cmocka_unit_test(test_one_frame),
		cmocka_unit_test(test_load_reserves_ahead),
		cmocka_unit_test(test_not_a_file),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
