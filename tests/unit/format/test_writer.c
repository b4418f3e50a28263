// SPDX-License-Identifier: MIT
/* Unit tests for format/writer.c: round trips through the reader, the
 * caller's thread and one or more background threads (the same file
 * whatever their number), concurrent appenders, argument checks, disk full, and
 * verbatim copies of stored blocks (amb_reader_load_stored and
 * amb_writer_append_stored). */
#include <errno.h>
#include <pthread.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <sys/mount.h>

#include <cmocka.h>

#include "tests/unit/format/fmt_test.h"

struct spec {
	uint16_t type;
	uint32_t stream;
	size_t len;
	bool text;
};

/* Write @n blocks described by @specs (cycled) and check that the reader,
 * indexed and scanning, gives them back byte for byte. */
static void roundtrip(const struct spec *specs, size_t nspecs, size_t n, int threads, int level)
{
	char *dir = tmpdir_new();
	const char *path = tpath(dir, "rt.amber");
	AMB_OPTS(amb_writer_opts, o);
	struct amb_writer *w;
	struct amb_writer_stats st;
	size_t maxlen = 0;
	uint8_t *buf;

	assert_non_null(dir);
	for (size_t i = 0; i < nspecs; i++)
		maxlen = AMB_MAX(maxlen, specs[i].len);
	buf = malloc(maxlen + 1);
	assert_non_null(buf);

	o.threads = threads;
	o.zstd_level = level;
	o.max_queued = 1u << 20;
	assert_int_equal(amb_writer_open(path, &o, &w), 0);
	for (size_t i = 0; i < n; i++) {
		const struct spec *s = &specs[i % nspecs];
		struct amb_block_desc d = { s->type, s->stream, i, i * 10, i * 10 + 5 };

		fill_payload(buf, s->len, (uint32_t)i, s->text);
		assert_int_equal(amb_writer_append(w, &d, buf, s->len), 0);
	}
	assert_int_equal(amb_writer_flush(w), 0);
	amb_writer_get_stats(w, &st);
	assert_int_equal(st.blocks, n);
	assert_int_equal(st.queued_bytes, 0);
	assert_int_equal(st.error, 0);
	assert_int_equal(amb_writer_close(w), 0);

	for (unsigned flags = 0; flags <= AMB_READ_SCAN; flags += AMB_READ_SCAN) {
		struct amb_reader *r;
		struct amb_payload *p = amb_payload_new();

		assert_int_equal(amb_reader_open(path, flags, &r), 0);
		assert_int_equal(amb_reader_indexed(r), !flags);
		assert_int_equal(amb_reader_problem_count(r), 0);
		assert_int_equal(amb_reader_block_count(r), n + 2);
		assert_int_equal(amb_reader_block(r, n)->type, AMB_BLOCK_INDEX);
		assert_int_equal(amb_reader_block(r, n + 1)->type, AMB_BLOCK_TRAILER);
		for (size_t i = 0; i < n; i++) {
			const struct spec *s = &specs[i % nspecs];
			const struct amb_block_info *bi = amb_reader_block(r, i);
			const void *data;
			size_t len;

			assert_int_equal(bi->seq, i);
			assert_int_equal(bi->type, s->type);
			assert_int_equal(bi->stream, s->stream);
			assert_int_equal(bi->record_count, i);
			assert_int_equal(bi->first_time, i * 10);
			assert_int_equal(bi->last_time, i * 10 + 5);
			if (level == 0 || s->len < AMB_SMALL_BLOCK || !s->text)
				assert_int_equal(bi->codec, AMB_CODEC_NONE);
			else
				assert_int_equal(bi->codec, AMB_CODEC_ZSTD);
			assert_int_equal(amb_reader_load(r, i, p, &data, &len), 0);
			assert_int_equal(len, s->len);
			fill_payload(buf, s->len, (uint32_t)i, s->text);
			if (len)
				assert_memory_equal(data, buf, len);
		}
		amb_payload_free(p);
		amb_reader_close(r);
	}
	free(buf);
	tmpdir_free(dir);
}

static const struct spec every_type[] = {
	{ AMB_BLOCK_META, AMB_STREAM_NONE, 300, true },
	{ AMB_BLOCK_EVENT_ATTR, AMB_STREAM_NONE, 200, false },
	{ AMB_BLOCK_RING, 1, 5000, true },
	{ AMB_BLOCK_SYNTH, AMB_STREAM_NONE, 70, true },
	{ AMB_BLOCK_BUILDID, AMB_STREAM_NONE, 90, false },
	{ AMB_BLOCK_TRACEFS, AMB_STREAM_NONE, 2000, true },
	{ AMB_BLOCK_KSYMS, AMB_STREAM_NONE, 4000, true },
	{ AMB_BLOCK_TOPOLOGY, AMB_STREAM_NONE, 100, true },
	{ AMB_BLOCK_COUNTS, AMB_STREAM_NONE, 48, false },
	{ AMB_BLOCK_FILE, AMB_STREAM_NONE, 1000, false },
	{ 200, 7, 64, true },  /* unknown type: written and read back */
};

static void test_every_type(void **state)
{
	(void)state;
	roundtrip(every_type, AMB_ARRAY_SIZE(every_type), AMB_ARRAY_SIZE(every_type), 0, 3);
	roundtrip(every_type, AMB_ARRAY_SIZE(every_type), AMB_ARRAY_SIZE(every_type), 1, 3);
	roundtrip(every_type, AMB_ARRAY_SIZE(every_type), AMB_ARRAY_SIZE(every_type), 3, 3);
	roundtrip(every_type, AMB_ARRAY_SIZE(every_type), AMB_ARRAY_SIZE(every_type), 0, 0);
}

static void test_sizes(void **state)
{
	static const struct spec sizes[] = {
		{ AMB_BLOCK_RING, 0, 0, true },
		{ AMB_BLOCK_RING, 0, 1, true },
		{ AMB_BLOCK_RING, 0, AMB_SMALL_BLOCK - 1, true },
		{ AMB_BLOCK_RING, 0, AMB_SMALL_BLOCK, true },
		{ AMB_BLOCK_RING, 1, 3u << 20, true },
		{ AMB_BLOCK_RING, 1, 3u << 20, false },
	};

	(void)state;
	roundtrip(sizes, AMB_ARRAY_SIZE(sizes), AMB_ARRAY_SIZE(sizes), 0, 1);
	roundtrip(sizes, AMB_ARRAY_SIZE(sizes), AMB_ARRAY_SIZE(sizes), 1, 1);
	roundtrip(sizes, AMB_ARRAY_SIZE(sizes), AMB_ARRAY_SIZE(sizes), 4, 1);
}

static void test_many_blocks(void **state)
{
	static const struct spec small[] = {
		{ AMB_BLOCK_RING, 0, 100, true },
		{ AMB_BLOCK_RING, 1, 10, false },
	};

	(void)state;
	roundtrip(small, AMB_ARRAY_SIZE(small), 5000, 0, 1);
	roundtrip(small, AMB_ARRAY_SIZE(small), 5000, 1, 1);
	roundtrip(small, AMB_ARRAY_SIZE(small), 5000, 3, 1);
}

/* Blocks of every type and size, from the caller's thread and from 1, 2
 * and 5 background threads: the files are the same, byte for byte. */
static void test_threads_same_file(void **state)
{
	static const uint8_t uuid[16] = { 7 };
	char *dir = tmpdir_new();
	static const int threads[] = { 0, 1, 2, 5 };
	uint8_t *first = NULL, *buf = malloc((3u << 20) + 1);
	size_t first_len = 0;

	(void)state;
	assert_non_null(buf);
	for (size_t t = 0; t < AMB_ARRAY_SIZE(threads); t++) {
		const char *path = tpath(dir, "same.amber");
		AMB_OPTS(amb_writer_opts, o, .zstd_level = 3, .threads = threads[t], .uuid = uuid,
			 .created_ns = 42, .max_queued = 1u << 20);
		struct amb_writer *w;
		uint8_t *file;
		size_t len;

		unlink(path);
		assert_int_equal(amb_writer_open(path, &o, &w), 0);
		for (size_t i = 0; i < 3 * AMB_ARRAY_SIZE(every_type); i++) {
			const struct spec *s = &every_type[i % AMB_ARRAY_SIZE(every_type)];
			size_t n = i % 7 == 3 ? 3u << 20 : s->len;
			struct amb_block_desc d = { s->type, s->stream, i, i, i + 1 };

			fill_payload(buf, n, (uint32_t)i, s->text);
			assert_int_equal(amb_writer_append(w, &d, buf, n), 0);
		}
		assert_int_equal(amb_writer_close(w), 0);
		file = slurp(path, &len);
		assert_non_null(file);
		if (!first) {
			first = file;
			first_len = len;
			continue;
		}
		assert_int_equal(len, first_len);
		assert_memory_equal(file, first, len);
		free(file);
	}
	free(first);
	free(buf);
	tmpdir_free(dir);
}

struct appender {
	struct amb_writer *w;
	uint32_t stream;
};

#define APPENDS 300

static void *append_thread(void *arg)
{
	struct appender *a = arg;
	uint8_t buf[256];

	for (uint32_t i = 0; i < APPENDS; i++) {
		struct amb_block_desc d = { AMB_BLOCK_RING, a->stream, i, 0, 0 };
		size_t len = 8 + i % 200;

		/* The payload says who wrote it and which one it is. */
		fill_payload(buf, len, a->stream * 100000 + i, true);
		if (amb_writer_append(a->w, &d, buf, len))
			return (void *)1;
	}
	return NULL;
}

/* Four threads append at once: every block arrives once, intact, and each
 * thread's blocks keep their order. */
static void test_concurrent(void **state)
{
	(void)state;
	for (int threads = 0; threads <= 3; threads += 1 + (threads == 1)) {
		char *dir = tmpdir_new();
		const char *path = tpath(dir, "conc.amber");
		AMB_OPTS(amb_writer_opts, o, .zstd_level = AMB_DEFAULT_ZSTD_LEVEL);
		struct appender a[4];
		pthread_t t[4];
		struct amb_reader *r;
		struct amb_payload *p = amb_payload_new();
		uint32_t next[4] = { 0 };
		uint8_t buf[256];
		size_t i;

		o.threads = threads;
		o.max_queued = 4096;
		assert_int_equal(amb_writer_open(path, &o, &a[0].w), 0);
		for (i = 0; i < 4; i++) {
			a[i].w = a[0].w;
			a[i].stream = (uint32_t)i;
			assert_int_equal(pthread_create(&t[i], NULL, append_thread, &a[i]), 0);
		}
		for (i = 0; i < 4; i++) {
			void *ret;

			pthread_join(t[i], &ret);
			assert_null(ret);
		}
		assert_int_equal(amb_writer_close(a[0].w), 0);

		assert_int_equal(amb_reader_open(path, 0, &r), 0);
		assert_int_equal(amb_reader_block_count(r), 4 * APPENDS + 2);
		for (i = 0; i < 4 * APPENDS; i++) {
			const struct amb_block_info *bi = amb_reader_block(r, i);
			const void *data;
			size_t len;
			uint32_t s = bi->stream, k;

			assert_true(s < 4);
			k = next[s]++;
			assert_int_equal(bi->seq, i);
			assert_int_equal(bi->record_count, k);
			assert_int_equal(amb_reader_load(r, i, p, &data, &len), 0);
			assert_int_equal(len, 8 + k % 200);
			fill_payload(buf, len, s * 100000 + k, true);
			assert_memory_equal(data, buf, len);
		}
		amb_payload_free(p);
		amb_reader_close(r);
		tmpdir_free(dir);
	}
}

/* threads = 1: append waits rather than queue more than max_queued. */
static void test_queue_bound(void **state)
{
	char *dir = tmpdir_new();
	AMB_OPTS(amb_writer_opts, o);
	struct amb_writer_stats st;
	struct amb_writer *w;
	uint8_t buf[3000];

	(void)state;
	o.threads = 1;
	o.max_queued = 10000;
	o.zstd_level = 6;
	assert_int_equal(amb_writer_open(tpath(dir, "q.amber"), &o, &w), 0);
	for (uint32_t i = 0; i < 300; i++) {
		struct amb_block_desc d = { AMB_BLOCK_RING, 0, 0, 0, 0 };

		fill_payload(buf, sizeof(buf), i, true);
		assert_int_equal(amb_writer_append(w, &d, buf, sizeof(buf)), 0);
		amb_writer_get_stats(w, &st);
		assert_true(st.queued_bytes <= o.max_queued);
	}
	/* A block larger than the whole bound still goes through. */
	assert_int_equal(amb_writer_append_owned(w, &(struct amb_block_desc){ AMB_BLOCK_RING, 0, 0, 0, 0 },
						 calloc(1, 50000), 50000), 0);
	assert_int_equal(amb_writer_flush(w), 0);
	amb_writer_get_stats(w, &st);
	assert_int_equal(st.queued_bytes, 0);
	assert_int_equal(st.blocks, 301);
	assert_true(st.raw_bytes == 300 * sizeof(buf) + 50000);
	assert_true(st.stored_bytes < st.raw_bytes);
	assert_int_equal(amb_writer_close(w), 0);
	tmpdir_free(dir);
}

static void test_open_rules(void **state)
{
	char *dir = tmpdir_new();
	const char *path = tpath(dir, "x.amber");
	AMB_OPTS(amb_writer_opts, o, .zstd_level = AMB_DEFAULT_ZSTD_LEVEL);
	struct amb_writer *w;
	struct amb_block_desc d = { AMB_BLOCK_RING, 0, 0, 0, 0 };
	struct stat sb;
	uint8_t b = 0;

	(void)state;
	assert_int_equal(amb_writer_open(path, NULL, &w), 0);
	assert_int_equal(stat(path, &sb), 0);
	assert_int_equal(sb.st_mode & 0777, 0600);

	/* Refused blocks leave the writer usable. */
	assert_int_equal(amb_writer_append(w, &d, &b, AMB_BLOCK_RAW_MAX + (size_t)1), -E2BIG);
	d.type = AMB_BLOCK_INDEX;
	assert_int_equal(amb_writer_append(w, &d, &b, 1), -EINVAL);
	d.type = AMB_BLOCK_RING;
	d.first_time = 5;
	d.last_time = 4;
	assert_int_equal(amb_writer_append(w, &d, &b, 1), -EINVAL);
	assert_int_equal(amb_writer_append_owned(w, &d, malloc(4), 4), -EINVAL);
	d.last_time = 5;
	assert_int_equal(amb_writer_append(w, &d, &b, 1), 0);
	assert_int_equal(amb_writer_close(w), 0);
	assert_int_equal(amb_writer_close(NULL), 0);

	assert_int_equal(amb_writer_open(path, NULL, &w), -EEXIST);
	assert_null(w);
	o.threads = AMB_WRITER_THREADS_MAX + 1;
	assert_int_equal(amb_writer_open(tpath(dir, "y.amber"), &o, &w), -EINVAL);
	assert_int_equal(access(tpath(dir, "y.amber"), F_OK), -1);
	o.threads = -1;
	assert_int_equal(amb_writer_open(tpath(dir, "y.amber"), &o, &w), -EINVAL);
	assert_int_equal(access(tpath(dir, "y.amber"), F_OK), -1);
	tmpdir_free(dir);
}

/* Producer fields, uuid and created_ns reach the file header; a file that
 * says its raw records are big-endian is exposed as such. */
static void test_header_fields(void **state)
{
	static const uint8_t uuid[16] = { 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16 };
	char *dir = tmpdir_new();
	const char *path = tpath(dir, "be.amber");
	const struct amb_file_header *h;
	AMB_OPTS(amb_writer_opts, o, .zstd_level = AMB_DEFAULT_ZSTD_LEVEL);
	struct amb_writer *w;
	struct amb_reader *r;

	(void)state;
	o.producer_endian = AMB_ENDIAN_BIG;
	o.producer_word_size = 8;
	o.producer_machine = 22;
	o.uuid = uuid;
	o.created_ns = 1234567890123ull;
	o.sync = AMB_SYNC_BLOCK;
	assert_int_equal(amb_writer_open(path, &o, &w), 0);
	assert_int_equal(amb_writer_close(w), 0);
	assert_int_equal(amb_reader_open(path, 0, &r), 0);
	h = amb_reader_header(r);
	assert_int_equal(h->producer_endian, AMB_ENDIAN_BIG);
	assert_int_equal(h->producer_word_size, 8);
	assert_int_equal(h->producer_machine, 22);
	assert_memory_equal(h->uuid, uuid, 16);
	assert_int_equal(h->created_ns, 1234567890123ull);
	assert_int_equal(h->major, AMB_FORMAT_MAJOR);
	assert_int_equal(h->header_len, AMB_FILE_HDR_SIZE);
	assert_true(amb_reader_indexed(r));
	assert_int_equal(amb_reader_block_count(r), 2);
	amb_reader_close(r);

	/* A random uuid is RFC 4122 version 4. */
	assert_int_equal(amb_writer_open(tpath(dir, "u.amber"), NULL, &w), 0);
	assert_int_equal(amb_writer_close(w), 0);
	assert_int_equal(amb_reader_open(tpath(dir, "u.amber"), 0, &r), 0);
	h = amb_reader_header(r);
	assert_int_equal(h->uuid[6] >> 4, 4);
	assert_int_equal(h->uuid[8] >> 6, 2);
	assert_int_equal(h->producer_endian, amb_host_is_le() ? AMB_ENDIAN_LITTLE : AMB_ENDIAN_BIG);
	assert_int_equal(h->producer_word_size, sizeof(long));
	amb_reader_close(r);
	tmpdir_free(dir);
}

/* FORMAT.md §9: on a full disk the file is cut back to the last complete
 * block, the error sticks, and a scan finds exactly the blocks written. */
static void disk_full(const char *mnt, int threads)
{
	char name[32];
	const char *path;
	AMB_OPTS(amb_writer_opts, o, .zstd_level = AMB_DEFAULT_ZSTD_LEVEL);
	struct amb_writer_stats st;
	struct amb_writer *w;
	struct amb_reader *r;
	struct amb_payload *p = amb_payload_new();
	uint8_t buf[10000];
	int err = 0, i;

	snprintf(name, sizeof(name), "full%d.amber", threads);
	path = tpath(mnt, name);
	o.threads = threads;
	o.max_queued = 30000;
	assert_int_equal(amb_writer_open(path, &o, &w), 0);
	for (i = 0; i < 1000 && !err; i++) {
		struct amb_block_desc d = { AMB_BLOCK_RING, 0, (uint64_t)i, 0, 0 };

		fill_payload(buf, sizeof(buf), (uint32_t)i, false);
		err = amb_writer_append(w, &d, buf, sizeof(buf));
	}
	assert_int_equal(err, -ENOSPC);
	amb_writer_get_stats(w, &st);
	assert_int_equal(st.error, -ENOSPC);
	assert_true(st.blocks > 0);
	assert_int_equal(st.file_bytes, file_size_of(path));
	assert_int_equal(amb_writer_append(w, &(struct amb_block_desc){ AMB_BLOCK_RING, 0, 0, 0, 0 },
					   buf, 1), -ENOSPC);
	assert_int_equal(amb_writer_close(w), -ENOSPC);

	assert_int_equal(amb_reader_open(path, 0, &r), 0);
	assert_false(amb_reader_indexed(r));
	/* Only the "not closed" problem: no torn tail. */
	assert_int_equal(amb_reader_problem_count(r), 1);
	assert_int_equal(amb_reader_problem(r, 0)->err, -AMB_E_NO_TRAILER);
	assert_int_equal(amb_reader_block_count(r), st.blocks);
	for (size_t k = 0; k < st.blocks; k++) {
		const void *data;
		size_t len;

		assert_int_equal(amb_reader_load(r, k, p, &data, &len), 0);
		fill_payload(buf, sizeof(buf), (uint32_t)k, false);
		assert_int_equal(len, sizeof(buf));
		assert_memory_equal(data, buf, len);
	}
	amb_reader_close(r);
	amb_payload_free(p);
	unlink(path);
}

static void test_disk_full(void **state)
{
	char *dir = tmpdir_new();

	(void)state;
	assert_non_null(dir);
	if (geteuid() != 0 || mount("amb-test", dir, "tmpfs", 0, "size=256k") != 0) {
		tmpdir_free(dir);
		skip();  /* needs root to mount a small tmpfs */
	}
	disk_full(dir, 0);
	disk_full(dir, 1);
	disk_full(dir, 3);
	assert_int_equal(umount(dir), 0);
	tmpdir_free(dir);
}

/* Write a source file of mixed blocks: compressible, random, tiny. */
static void write_source(const char *path)
{
	static const struct spec specs[] = {
		{ AMB_BLOCK_RING, 0, 5000, true },      /* zstd */
		{ AMB_BLOCK_SYNTH, AMB_STREAM_NONE, 3000, false },  /* incompressible: none */
		{ AMB_BLOCK_META, AMB_STREAM_NONE, 10, true },      /* small: none */
		{ AMB_BLOCK_FILE, AMB_STREAM_NONE, 0, false },
	};
	AMB_OPTS(amb_writer_opts, o, .zstd_level = AMB_DEFAULT_ZSTD_LEVEL);
	struct amb_writer *w;
	uint8_t buf[5000];

	assert_int_equal(amb_writer_open(path, &o, &w), 0);
	for (size_t i = 0; i < 8; i++) {
		const struct spec *s = &specs[i % AMB_ARRAY_SIZE(specs)];
		struct amb_block_desc d = { s->type, s->stream + (uint32_t)(s->stream != AMB_STREAM_NONE) * (uint32_t)i,
					    i + 1, 100 * i, 100 * i + 7 };

		fill_block(buf, s->len, (uint32_t)i, s->text, d.type, d.record_count, false);
		assert_int_equal(amb_writer_append(w, &d, buf, s->len), 0);
	}
	assert_int_equal(amb_writer_close(w), 0);
}

/* Copy every data block of @src into @dst with append_stored: the copy
 * has the same codecs, stored bytes and payload checksums, and decodes to
 * the same payloads. */
static void stored_copy(const char *src, const char *dst, int threads, unsigned read_flags)
{
	struct amb_payload *p = amb_payload_new(), *q = amb_payload_new();
	struct amb_reader *r, *c;
	AMB_OPTS(amb_writer_opts, o);
	struct amb_writer *w;
	struct problems ps = { 0 };
	size_t n = 0;

	assert_non_null(p);
	assert_non_null(q);
	assert_int_equal(amb_reader_open(src, read_flags, &r), 0);
	o.threads = threads;
	o.zstd_level = 19;   /* unused: nothing is recompressed */
	assert_int_equal(amb_writer_open(dst, &o, &w), 0);
	for (size_t i = 0; i < amb_reader_block_count(r); i++) {
		struct amb_block_info info;
		const void *stored;
		size_t len;

		if (amb_reader_block(r, i)->type == AMB_BLOCK_INDEX ||
		    amb_reader_block(r, i)->type == AMB_BLOCK_TRAILER)
			continue;
		assert_int_equal(amb_reader_load_stored(r, i, p, &stored, &len, &info), 0);
		assert_int_equal(len, info.stored_size);
		assert_int_equal(info.seq, amb_reader_block(r, i)->seq);
		assert_true(info.payload_checksum != 0);
		assert_int_equal(amb_writer_append_stored(w, &info, stored, len), 0);
		n++;
	}
	assert_int_equal(n, 8);
	assert_int_equal(amb_writer_close(w), 0);

	assert_int_equal(amb_verify(dst, collect_problem, &ps, NULL), 0);
	assert_int_equal(amb_reader_open(dst, 0, &c), 0);
	assert_int_equal(amb_reader_block_count(c), n + 2);
	for (size_t i = 0; i < n; i++) {
		const struct amb_block_info *a = amb_reader_block(r, i), *b = amb_reader_block(c, i);
		struct amb_block_info ia, ib;
		const void *sa, *sb, *da, *db;
		size_t la, lb;

		assert_int_equal(b->seq, i);
		assert_int_equal(b->type, a->type);
		assert_int_equal(b->stream, a->stream);
		assert_int_equal(b->codec, a->codec);
		assert_int_equal(b->raw_size, a->raw_size);
		assert_int_equal(b->stored_size, a->stored_size);
		assert_int_equal(b->record_count, a->record_count);
		assert_int_equal(b->first_time, a->first_time);
		assert_int_equal(b->last_time, a->last_time);
		assert_int_equal(amb_reader_load_stored(r, i, p, &sa, &la, &ia), 0);
		assert_int_equal(amb_reader_load_stored(c, i, q, &sb, &lb, &ib), 0);
		assert_int_equal(la, lb);
		assert_memory_equal(sa, sb, la);
		assert_int_equal(ia.payload_checksum, ib.payload_checksum);
		assert_int_equal(amb_reader_load(r, i, p, &da, &la), 0);
		assert_int_equal(amb_reader_load(c, i, q, &db, &lb), 0);
		assert_int_equal(la, lb);
		assert_memory_equal(da, db, la);
	}
	amb_reader_close(c);
	amb_reader_close(r);
	amb_payload_free(p);
	amb_payload_free(q);
}

static void test_append_stored_copy(void **state)
{
	char *dir = tmpdir_new();
	const char *src = tpath(dir, "src.amber");
	struct amb_reader *r;
	bool zstd = false;

	(void)state;
	assert_non_null(dir);
	write_source(src);
	/* The source must exercise both codecs. */
	assert_int_equal(amb_reader_open(src, 0, &r), 0);
	for (size_t i = 0; i < amb_reader_block_count(r); i++)
		zstd |= amb_reader_block(r, i)->codec == AMB_CODEC_ZSTD;
	amb_reader_close(r);
	assert_true(zstd);
	stored_copy(src, tpath(dir, "c0.amber"), 0, 0);
	stored_copy(src, tpath(dir, "c1.amber"), 1, 0);
	stored_copy(src, tpath(dir, "c2.amber"), 0, AMB_READ_SCAN);
	tmpdir_free(dir);
}

/* Every broken description is refused, and nothing is written for it. */
static void test_append_stored_rules(void **state)
{
	char *dir = tmpdir_new();
	const char *src = tpath(dir, "src.amber"), *dst = tpath(dir, "dst.amber");
	struct amb_payload *p = amb_payload_new();
	struct amb_block_info info, bad;
	struct amb_writer_stats st;
	struct amb_reader *r;
	struct amb_writer *w;
	const void *stored;
	size_t len, zi = SIZE_MAX;
	uint8_t *copy;

	(void)state;
	assert_non_null(dir);
	assert_non_null(p);
	write_source(src);
	assert_int_equal(amb_reader_open(src, 0, &r), 0);
	for (size_t i = 0; i < amb_reader_block_count(r) && zi == SIZE_MAX; i++)
		if (amb_reader_block(r, i)->codec == AMB_CODEC_ZSTD)
			zi = i;
	assert_true(zi != SIZE_MAX);
	assert_int_equal(amb_reader_load_stored(r, zi, p, &stored, &len, &info), 0);
	copy = malloc(len);
	assert_non_null(copy);
	memcpy(copy, stored, len);
	assert_int_equal(amb_writer_open(dst, NULL, &w), 0);

	copy[len / 2] ^= 1;
	assert_int_equal(amb_writer_append_stored(w, &info, copy, len), -AMB_E_PAYLOAD_CHECKSUM);
	copy[len / 2] ^= 1;
	bad = info;
	bad.payload_checksum ^= 1;
	assert_int_equal(amb_writer_append_stored(w, &bad, copy, len), -AMB_E_PAYLOAD_CHECKSUM);
	assert_int_equal(amb_writer_append_stored(w, &info, copy, len - 1), -EINVAL);
	bad = info;
	bad.codec = AMB_CODEC_NONE;   /* none must have stored == raw */
	assert_int_equal(amb_writer_append_stored(w, &bad, copy, len), -EINVAL);
	bad = info;
	bad.codec = 7;
	assert_int_equal(amb_writer_append_stored(w, &bad, copy, len), -AMB_E_CODEC);
	bad = info;
	bad.type = AMB_BLOCK_INDEX;
	assert_int_equal(amb_writer_append_stored(w, &bad, copy, len), -EINVAL);
	bad = info;
	bad.first_time = 10;
	bad.last_time = 9;
	assert_int_equal(amb_writer_append_stored(w, &bad, copy, len), -EINVAL);
	bad = info;
	bad.raw_size = (uint64_t)AMB_BLOCK_RAW_MAX + 1;
	assert_int_equal(amb_writer_append_stored(w, &bad, copy, len), -E2BIG);
	amb_writer_get_stats(w, &st);
	assert_int_equal(st.blocks, 0);
	assert_int_equal(st.error, 0);
	/* The good one still goes through. */
	assert_int_equal(amb_writer_append_stored(w, &info, copy, len), 0);
	amb_writer_get_stats(w, &st);
	assert_int_equal(st.blocks, 1);
	assert_int_equal(st.stored_bytes, len);
	assert_int_equal(st.raw_bytes, info.raw_size);
	assert_int_equal(amb_writer_close(w), 0);
	free(copy);

	/* The reader side: no such block, and a damaged payload. */
	assert_int_equal(amb_reader_load_stored(r, amb_reader_block_count(r), p, &stored, &len,
						&info), -EINVAL);
	assert_int_equal(amb_reader_load_stored(NULL, 0, NULL, &stored, &len, &info), -EINVAL);
	{
		uint64_t off = amb_reader_block(r, zi)->offset + AMB_BLOCK_HDR_SIZE + 3;
		int fd = open(src, O_RDWR);
		uint8_t b;

		assert_true(fd >= 0);
		assert_int_equal(pread(fd, &b, 1, (off_t)off), 1);
		b ^= 0x40;
		assert_int_equal(pwrite(fd, &b, 1, (off_t)off), 1);
		close(fd);
	}
	assert_int_equal(amb_reader_load_stored(r, zi, p, &stored, &len, &info),
			 -AMB_E_PAYLOAD_CHECKSUM);
	assert_non_null(strstr(amb_payload_errmsg(p), "checksum mismatch"));
	amb_reader_close(r);
	amb_payload_free(p);
	tmpdir_free(dir);
}

/* A file bigger than a part is split into FILE blocks that reassemble to
 * it (FORMAT.md §5.5); an empty file is one empty part. */
static void test_append_file(void **state)
{
	char *dir = tmpdir_new();
	const char *path = tpath(dir, "f.amber");
	const uint8_t id[20] = { 1, 2, 3 };
	size_t len = AMB_FILE_PART_SIZE + 5, got = 0, i, n;
	uint8_t *image = malloc(len), *back = calloc(1, len);
	struct amb_file_entry fe = { .build_id = id, .build_id_len = sizeof(id), .kind = AMB_FILE_ELF,
				     .name = "/usr/bin/x", .name_len = 10, .file_size = len };
	AMB_OPTS(amb_writer_opts, o);
	struct amb_writer *w;
	struct amb_reader *r;
	struct amb_payload *p = amb_payload_new();
	struct amb_block_filter f = { AMB_BLOCK_FILE, -1, 0, 0 };

	(void)state;
	assert_non_null(image);
	assert_non_null(back);
	fill_payload(image, len, 7, false);
	o.zstd_level = 1;
	assert_int_equal(amb_writer_open(path, &o, &w), 0);
	assert_int_equal(amb_writer_append_file(w, &fe, image), 0);
	fe.file_size = 0;
	assert_int_equal(amb_writer_append_file(w, &fe, image), 0);
	assert_int_equal(amb_writer_close(w), 0);

	assert_int_equal(amb_reader_open(path, 0, &r), 0);
	n = 0;
	amb_reader_for_each_block(r, &f, i) {
		const void *data;
		size_t dlen;
		struct amb_file_entry e;

		assert_int_equal(amb_reader_load(r, i, p, &data, &dlen), 0);
		assert_int_equal(amb_file_parse(data, dlen, &e), 0);
		assert_memory_equal(e.build_id, id, sizeof(id));
		assert_int_equal(e.name_len, 10);
		if (n < 2) {
			assert_int_equal(e.file_size, len);
			assert_int_equal(e.part_offset, n ? AMB_FILE_PART_SIZE : 0);
			assert_int_equal(e.data_len, n ? 5 : AMB_FILE_PART_SIZE);
			memcpy(back + e.part_offset, e.data, (size_t)e.data_len);
			got += (size_t)e.data_len;
		} else {
			assert_int_equal(e.file_size, 0);
			assert_int_equal(e.data_len, 0);
		}
		n++;
	}
	assert_int_equal(n, 3);
	assert_int_equal(got, len);
	assert_memory_equal(back, image, len);
	amb_payload_free(p);
	amb_reader_close(r);
	free(image);
	free(back);
	tmpdir_free(dir);
}

/* amb_writer_open_fd(): the caller's file, kept open by a dup(); the fd
 * is the writer's even when the open fails. */
static void test_open_fd(void **state)
{
	char *dir = tmpdir_new();
	const char *path = tpath(dir, "fd.amber");
	AMB_OPTS(amb_writer_opts, bad, .zstd_level = 99);
	struct amb_block_desc d = { AMB_BLOCK_META, AMB_STREAM_NONE, 1, 0, 0 };
	struct amb_writer *w;
	struct amb_reader *r;
	char proc[64];
	int fd, keep;

	(void)state;
	fd = open(path, O_RDWR | O_CREAT | O_EXCL, 0600);
	assert_true(fd >= 0);
	keep = dup(fd);
	assert_int_equal(amb_writer_open_fd(fd, NULL, &w), 0);
	assert_int_equal(amb_writer_append(w, &d, "\1\0\0\0k\0\0\0\0", 9), 0);
	assert_int_equal(amb_writer_close(w), 0);
	/* Read back through the kept descriptor, wherever the file is now. */
	assert_int_equal(rename(path, tpath(dir, "moved.amber")), 0);
	snprintf(proc, sizeof(proc), "/proc/self/fd/%d", keep);
	assert_int_equal(amb_reader_open(proc, 0, &r), 0);
	assert_int_equal(amb_reader_block_count(r), 1 + 2);
	amb_reader_close(r);
	close(keep);

	assert_int_equal(amb_writer_open_fd(-1, NULL, &w), -EBADF);
	fd = open("/dev/null", O_WRONLY);
	assert_true(fd >= 0);
	assert_int_equal(amb_writer_open_fd(fd, &bad, &w), -EINVAL);
	assert_null(w);
	assert_int_equal(fcntl(fd, F_GETFD), -1);   /* closed */
	tmpdir_free(dir);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_every_type),
		cmocka_unit_test(test_sizes),
		cmocka_unit_test(test_many_blocks),
		cmocka_unit_test(test_threads_same_file),
		cmocka_unit_test(test_concurrent),
		cmocka_unit_test(test_queue_bound),
		cmocka_unit_test(test_open_rules),
		cmocka_unit_test(test_header_fields),
		cmocka_unit_test(test_disk_full),
		cmocka_unit_test(test_append_stored_copy),
		cmocka_unit_test(test_append_stored_rules),
		cmocka_unit_test(test_append_file),
		cmocka_unit_test(test_open_fd),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
