// SPDX-License-Identifier: MIT
/*
 * Unit tests for format/screen.c and what the reader and salvage do with
 * blocks that do not belong (FORMAT.md §7): copies of a block, two blocks
 * with one seq, another recording's blocks after its file header, moved
 * blocks under a valid index, small blocks over their decoding ratio or
 * the total budget, and a file whose header is damaged.
 */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>

#include <cmocka.h>

#include "format/format_internal.h"
#include "tests/unit/format/fmt_test.h"

#define NBLOCKS 6

static size_t block_len(size_t i)
{
	return 40 + i * 29;
}

/* NBLOCKS RING blocks (streams 0, 1), stored raw, closed; @uuid fixed. */
static void make_file(const char *path, uint8_t uuid0, uint8_t endian)
{
	const uint8_t uuid[16] = { uuid0, 1, 2, 3 };
	AMB_OPTS(amb_writer_opts, o, .zstd_level = 0, .uuid = uuid, .producer_endian = endian);
	struct amb_writer *w;
	uint8_t buf[400];

	assert_int_equal(amb_writer_open(path, &o, &w), 0);
	for (size_t i = 0; i < NBLOCKS; i++) {
		struct amb_block_desc d = { AMB_BLOCK_RING, (uint32_t)(i % 2), 1, 10 * i + 1,
					    10 * i + 5 };

		fill_block(buf, block_len(i), (uint32_t)i + uuid0, false, d.type, d.record_count,
			   endian == AMB_ENDIAN_BIG);
		assert_int_equal(amb_writer_append(w, &d, buf, block_len(i)), 0);
	}
	assert_int_equal(amb_writer_close(w), 0);
}

/* Offset of block @k of the image @b (walking the headers). */
static size_t block_off(const uint8_t *b, unsigned k)
{
	size_t off = AMB_FILE_HDR_SIZE;

	while (k--)
		off += AMB_BLOCK_HDR_SIZE + (size_t)amb_get_le64(b + off + 32);
	return off;
}

static bool has_problem(struct amb_reader *r, const char *text)
{
	for (size_t i = 0; i < amb_reader_problem_count(r); i++)
		if (strstr(amb_reader_problem(r, i)->msg, text))
			return true;
	return false;
}

struct all_problems {
	char all[4096];
	size_t n;
};

static int collect(void *ctx, const struct amb_problem *pb)
{
	struct all_problems *ps = ctx;
	size_t len = strlen(ps->all);

	snprintf(ps->all + len, sizeof(ps->all) - len, "%s\n", pb->msg);
	ps->n++;
	return 0;
}

/* Block 2 twice in a row: the copy is left out, once, with a problem. */
static void test_copy(void **state)
{
	char *dir = tmpdir_new();
	const char *in = tpath(dir, "a.amber"), *dup = tpath(dir, "dup.amber");
	struct all_problems ps = { "", 0 };
	struct amb_reader *r;
	size_t len, b2, b3;
	uint8_t *b, *d;

	(void)state;
	make_file(in, 1, 0);
	b = slurp(in, &len);
	b2 = block_off(b, 2);
	b3 = block_off(b, 3);
	d = malloc(len + (b3 - b2));
	assert_non_null(d);
	memcpy(d, b, b3);
	memcpy(d + b3, b + b2, len - b2);
	assert_int_equal(spew(dup, d, len + (b3 - b2)), 0);

	assert_int_equal(amb_reader_open(dup, 0, &r), 0);
	/* NBLOCKS, INDEX and TRAILER; the copy is not listed. */
	assert_int_equal(amb_reader_block_count(r), NBLOCKS + 2);
	for (size_t i = 0; i < NBLOCKS; i++)
		assert_int_equal(amb_reader_block(r, i)->seq, i);
	assert_true(has_problem(r, "a copy of block 2 at offset"));
	amb_reader_close(r);

	/* verify says what it is: a copy, not blocks lost. */
	assert_true(amb_verify(dup, collect, &ps, NULL) > 0);
	assert_non_null(strstr(ps.all, "block 3 at offset"));
	assert_non_null(strstr(ps.all, "a copy of block 2"));
	assert_null(strstr(ps.all, "lost"));

	/* Salvage leaves it out. */
	assert_int_equal(amb_salvage(dup, tpath(dir, "s.amber")), NBLOCKS);
	free(d);
	free(b);
	tmpdir_free(dir);
}

/* Two different blocks with one seq: both kept, reported. */
static void test_clash(void **state)
{
	char *dir = tmpdir_new();
	const char *in = tpath(dir, "a.amber");
	struct amb_reader *r;
	size_t len, b1;
	uint8_t *b;

	(void)state;
	make_file(in, 1, 0);
	b = slurp(in, &len);
	b1 = block_off(b, 1);
	amb_put_le64(b + b1 + 16, 3);                       /* block 1 says seq 3 */
	amb_put_le64(b + b1 + 72, amb_checksum(b + b1, 72));
	assert_int_equal(spew(in, b, len), 0);
	assert_int_equal(amb_reader_open(in, AMB_READ_SCAN, &r), 0);
	assert_int_equal(amb_reader_block_count(r), NBLOCKS + 2);
	assert_true(has_problem(r, "seq 3 is also block 1's"));
	amb_reader_close(r);
	free(b);
	tmpdir_free(dir);
}

/* `cat a b`: b's header, then b's blocks, are another recording's. */
static void test_foreign(void **state)
{
	char *dir = tmpdir_new();
	const char *a = tpath(dir, "a.amber"), *o = tpath(dir, "b.amber"),
		   *cat = tpath(dir, "cat.amber"), *self = tpath(dir, "self.amber");
	struct all_problems ps = { "", 0 };
	struct amb_verify_stats st;
	struct amb_reader *r;
	size_t alen, blen;
	uint8_t *ab, *bb, *both;

	(void)state;
	make_file(a, 1, 0);
	make_file(o, 2, 0);
	ab = slurp(a, &alen);
	bb = slurp(o, &blen);
	both = malloc(alen + blen);
	assert_non_null(both);
	memcpy(both, ab, alen);
	memcpy(both + alen, bb, blen);
	assert_int_equal(spew(cat, both, alen + blen), 0);
	memcpy(both + alen, ab, alen);
	assert_int_equal(spew(self, both, 2 * alen), 0);

	assert_int_equal(amb_reader_open(cat, 0, &r), 0);
	assert_int_equal(amb_reader_block_count(r), NBLOCKS + 2);
	assert_true(has_problem(r, "file header of another recording (uuid 02010203"));
	assert_true(has_problem(r, "8 blocks of another recording left out"));
	assert_int_equal(amb_reader_block(r, NBLOCKS + 1)->type, AMB_BLOCK_TRAILER);
	amb_reader_close(r);
	assert_int_equal(amb_verify(cat, collect, &ps, &st), 2);
	assert_int_equal(st.blocks_ok, NBLOCKS + 2);
	assert_int_equal(st.tail_bytes, blen);

	/* The file twice: its second half is copies. */
	assert_int_equal(amb_reader_open(self, 0, &r), 0);
	assert_int_equal(amb_reader_block_count(r), NBLOCKS + 2);
	assert_true(has_problem(r, "this recording's file header again"));
	amb_reader_close(r);

	free(both);
	free(ab);
	free(bb);
	tmpdir_free(dir);
}

/* Blocks 1 and 2 swapped under a valid index: the reader scans and keeps
 * both; verify says they are out of order, not lost. */
static void test_swapped(void **state)
{
	char *dir = tmpdir_new();
	const char *in = tpath(dir, "a.amber");
	struct all_problems ps = { "", 0 };
	struct amb_reader *r;
	size_t len, b1, b2, b3;
	uint8_t *b, *t;

	(void)state;
	make_file(in, 1, 0);
	b = slurp(in, &len);
	b1 = block_off(b, 1);
	b2 = block_off(b, 2);
	b3 = block_off(b, 3);
	t = malloc(b2 - b1);
	assert_non_null(t);
	memcpy(t, b + b1, b2 - b1);
	memmove(b + b1, b + b2, b3 - b2);
	memcpy(b + b1 + (b3 - b2), t, b2 - b1);
	assert_int_equal(spew(in, b, len), 0);

	assert_int_equal(amb_reader_open(in, 0, &r), 0);
	assert_false(amb_reader_indexed(r));
	assert_int_equal(amb_reader_block_count(r), NBLOCKS + 2);
	assert_int_equal(amb_reader_block(r, 1)->seq, 2);
	assert_int_equal(amb_reader_block(r, 2)->seq, 1);
	amb_reader_close(r);
	assert_true(amb_verify(in, collect, &ps, NULL) > 0);
	assert_non_null(strstr(ps.all, "seq 1 after seq 2 (blocks out of order)"));
	assert_null(strstr(ps.all, "lost"));
	free(t);
	free(b);
	tmpdir_free(dir);
}

/* A META block decoding to 256 MiB from a few KB is never decoded; small
 * blocks past the total budget are left out. */
static void test_budget(void **state)
{
	char *dir = tmpdir_new();
	const char *bomb = tpath(dir, "bomb.amber"), *big = tpath(dir, "big.amber");
	AMB_OPTS(amb_writer_opts, o, .zstd_level = 1);
	struct amb_block_desc d = { AMB_BLOCK_META, AMB_STREAM_NONE, 1, 0, 0 };
	size_t part = 16u << 20, nparts = AMB_SMALL_TOTAL_MAX / part + 1;
	struct amb_writer *w;
	struct amb_reader *r;
	uint8_t *p;

	(void)state;
	p = calloc(1, AMB_BLOCK_RAW_MAX);
	assert_non_null(p);
	assert_int_equal(amb_writer_open(bomb, &o, &w), 0);
	assert_int_equal(amb_writer_append(w, &d, p, AMB_BLOCK_RAW_MAX), 0);
	d.type = AMB_BLOCK_TOPOLOGY;
	assert_int_equal(amb_writer_append(w, &d, p, 1000), 0);
	assert_int_equal(amb_writer_close(w), 0);
	assert_int_equal(amb_reader_open(bomb, 0, &r), 0);
	assert_int_equal(amb_reader_block_count(r), 1 + 2);
	assert_int_equal(amb_reader_block(r, 0)->type, AMB_BLOCK_TOPOLOGY);
	assert_true(has_problem(r, "meta block of raw_size 268435456 from"));
	amb_reader_close(r);

	/* Incompressible KSYMS parts, each fine alone, too many together. */
	fill_payload(p, part, 7, false);
	o.zstd_level = 0;
	assert_int_equal(amb_writer_open(big, &o, &w), 0);
	d.type = AMB_BLOCK_KSYMS;
	for (size_t i = 0; i < nparts; i++)
		assert_int_equal(amb_writer_append(w, &d, p, part), 0);
	d.type = AMB_BLOCK_RING;
	d.stream = 0;
	assert_int_equal(amb_writer_append(w, &d, p, part), 0);
	assert_int_equal(amb_writer_close(w), 0);
	assert_int_equal(amb_reader_open(big, 0, &r), 0);
	/* All KSYMS but the last, the RING block, INDEX and TRAILER. */
	assert_int_equal(amb_reader_block_count(r), nparts - 1 + 1 + 2);
	assert_true(has_problem(r, "would take the metadata past the"));
	amb_reader_close(r);
	free(p);
	tmpdir_free(dir);
}

/* A damaged file header loses no block: salvage scans, keeps the damaged
 * header's plausible fields and infers the rest. */
static void test_salvage_header(void **state)
{
	char *dir = tmpdir_new();
	const char *in = tpath(dir, "a.amber"), *out = tpath(dir, "s.amber"),
		   *out2 = tpath(dir, "s2.amber");
	uint8_t attr[128] = { 0 }, ids[8] = { 0 };
	struct amb_event_entry ev = { attr, sizeof(attr), "cpu-clock", 9, UINT32_MAX, 0, 1, ids };
	AMB_OPTS(amb_writer_opts, o, .zstd_level = 0, .producer_endian = AMB_ENDIAN_BIG);
	struct amb_block_desc d = { AMB_BLOCK_EVENT_ATTR, AMB_STREAM_NONE, 1, 0, 0 };
	struct amb_buf buf = AMB_BUF_INIT;
	struct amb_writer *w;
	struct amb_reader *r;
	size_t len;
	uint8_t *b;

	(void)state;
	attr[7] = sizeof(attr);   /* attr.size, big-endian */
	assert_int_equal(amb_event_put(&buf, &ev), 0);
	assert_int_equal(amb_writer_open(in, &o, &w), 0);
	assert_int_equal(amb_writer_append(w, &d, buf.data, buf.len), 0);
	d = (struct amb_block_desc){ AMB_BLOCK_RING, 0, 1, 1, 2 };
	assert_int_equal(amb_writer_append(w, &d, attr, sizeof(attr)), 0);
	assert_int_equal(amb_writer_close(w), 0);
	amb_buf_free(&buf);
	b = slurp(in, &len);

	/* One changed byte of the uuid: the plain reader refuses. */
	b[30] ^= 1;
	assert_int_equal(spew(in, b, len), 0);
	assert_int_equal(amb_reader_open(in, 0, &r), -AMB_E_HDR_CHECKSUM);
	assert_int_equal(amb_salvage(in, out), 2);
	assert_int_equal(amb_verify(out, NULL, NULL, NULL), 0);
	assert_int_equal(amb_reader_open(out, 0, &r), 0);
	assert_int_equal(amb_reader_header(r)->producer_endian, AMB_ENDIAN_BIG);
	assert_int_equal(amb_reader_header(r)->uuid[6], b[30]);
	amb_reader_close(r);

	/* The whole header zeroed: the byte order comes from the attr. */
	memset(b, 0, AMB_FILE_HDR_SIZE);
	assert_int_equal(spew(in, b, len), 0);
	assert_int_equal(amb_salvage(in, out2), 2);
	assert_int_equal(amb_reader_open(out2, 0, &r), 0);
	assert_int_equal(amb_reader_header(r)->producer_endian, AMB_ENDIAN_BIG);
	assert_int_equal(amb_reader_block_count(r), 2 + 2);
	amb_reader_close(r);
	free(b);
	tmpdir_free(dir);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_copy),
		cmocka_unit_test(test_clash),
		cmocka_unit_test(test_foreign),
		cmocka_unit_test(test_swapped),
		cmocka_unit_test(test_budget),
		cmocka_unit_test(test_salvage_header),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
