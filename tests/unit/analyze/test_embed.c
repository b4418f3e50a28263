// SPDX-License-Identifier: MIT
/*
 * Unit tests for analyze/embed.c: FILE blocks (FORMAT.md §5.5) are
 * reassembled from parts in any order into a private cache named by the
 * hex build-id, and everything hostile is refused with a warning and
 * written nowhere: a stored name such as "../../etc/passwd", a corrupted
 * payload, a file whose build-id note differs from its key, overlapping
 * parts, holes, parts past the file size, a file over the size cap.
 * The embedded ELF is one this test links with a fixed build-id.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cmocka.h>

#include "analyze/resolve/resolve.h"
#include <amber/common.h>
#include <amber/format.h>

#define BUILD_ID_HEX "0123456789abcdef0123456789abcdef01234567"
#define OTHER_HEX    "fedcba9876543210fedcba9876543210fedcba98"

struct fixture {
	char dir[64];            /* everything of this test */
	char cache[128];         /* where the cache directory is made */
	char elf[128];
	uint8_t *image;          /* the ELF's bytes */
	size_t size;
	uint8_t id[20], other[20];
	char amber[160];
};

static unsigned nr_warnings;
static char last_warning[1024];

static void catch_warning(void *ctx, const char *msg)
{
	(void)ctx;
	nr_warnings++;
	snprintf(last_warning, sizeof(last_warning), "%s", msg);
}

static void unhex(const char *s, uint8_t *out)
{
	for (size_t i = 0; s[2 * i]; i++) {
		unsigned v;

		sscanf(s + 2 * i, "%2x", &v);
		out[i] = (uint8_t)v;
	}
}

static int setup(void **state)
{
	struct fixture *fx = calloc(1, sizeof(*fx));
	char cmd[512];
	FILE *f;

	assert_non_null(fx);
	snprintf(fx->dir, sizeof(fx->dir), "/tmp/amber-test-embed.XXXXXX");
	assert_non_null(mkdtemp(fx->dir));
	snprintf(fx->cache, sizeof(fx->cache), "%s/cache", fx->dir);
	assert_int_equal(mkdir(fx->cache, 0700), 0);
	snprintf(fx->elf, sizeof(fx->elf), "%s/prog", fx->dir);
	snprintf(fx->amber, sizeof(fx->amber), "%s/t.amber", fx->dir);
	snprintf(cmd, sizeof(cmd),
		 "printf 'int main(void){return 0;}\\n' | cc -x c -o %s -Wl,--build-id=0x%s - ",
		 fx->elf, BUILD_ID_HEX);
	assert_int_equal(system(cmd), 0);
	f = fopen(fx->elf, "rb");
	assert_non_null(f);
	fseek(f, 0, SEEK_END);
	fx->size = (size_t)ftell(f);
	rewind(f);
	fx->image = malloc(fx->size);
	assert_non_null(fx->image);
	assert_int_equal(fread(fx->image, 1, fx->size, f), fx->size);
	fclose(f);
	unhex(BUILD_ID_HEX, fx->id);
	unhex(OTHER_HEX, fx->other);
	amb_set_warn(catch_warning, NULL);
	nr_warnings = 0;
	last_warning[0] = '\0';
	*state = fx;
	return 0;
}

static int teardown(void **state)
{
	struct fixture *fx = *state;
	char cmd[256];

	snprintf(cmd, sizeof(cmd), "rm -rf %s", fx->dir);
	if (system(cmd))
		return -1;
	free(fx->image);
	free(fx);
	return 0;
}

/* One FILE part to write. */
struct part {
	const uint8_t *id;
	unsigned kind;
	const char *name;
	uint64_t file_size, offset;
	const uint8_t *data;
	size_t len;
};

static void write_recording(const char *path, const struct part *parts, size_t n)
{
	AMB_OPTS(amb_writer_opts, o, .zstd_level = AMB_DEFAULT_ZSTD_LEVEL);
	struct amb_writer *w;

	o.threads = 0;
	assert_int_equal(amb_writer_open(path, &o, &w), 0);
	for (size_t i = 0; i < n; i++) {
		struct amb_block_desc d = { .type = AMB_BLOCK_FILE, .stream = AMB_STREAM_NONE,
					    .record_count = 1 };
		size_t name_len = strlen(parts[i].name);
		struct amb_buf b = AMB_BUF_INIT;

		/* Encoded by hand (FORMAT.md §5.5): amb_file_put_header() refuses
		 * the broken parts these tests need. */
		assert_int_equal(amb_buf_put_le32(&b, (uint32_t)(1 + 1 + 2 + 20 + 4 + name_len + 16)), 0);
		assert_int_equal(amb_buf_append(&b, (uint8_t[]){ 20, (uint8_t)parts[i].kind, 0, 0 }, 4), 0);
		assert_int_equal(amb_buf_append(&b, parts[i].id, 20), 0);
		assert_int_equal(amb_buf_put_le32(&b, (uint32_t)name_len), 0);
		assert_int_equal(amb_buf_append(&b, parts[i].name, name_len), 0);
		assert_int_equal(amb_buf_put_le64(&b, parts[i].file_size), 0);
		assert_int_equal(amb_buf_put_le64(&b, parts[i].offset), 0);
		assert_int_equal(amb_buf_append(&b, parts[i].data, parts[i].len), 0);
		assert_int_equal(amb_writer_append(w, &d, b.data, b.len), 0);
		amb_buf_free(&b);
	}
	assert_int_equal(amb_writer_close(w), 0);
}

/* Entries of @dir (recursively) that are not directories. */
static unsigned count_files(const char *dir)
{
	char cmd[256], line[64];
	unsigned n = 0;
	FILE *p;

	snprintf(cmd, sizeof(cmd), "find %s ! -type d | wc -l", dir);
	p = popen(cmd, "r");
	assert_non_null(p);
	if (fgets(line, sizeof(line), p))
		n = (unsigned)atoi(line);
	pclose(p);
	return n;
}

static struct ana_embed *open_embed(struct fixture *fx, struct amb_reader **r)
{
	struct ana_embed *e;

	assert_int_equal(amb_reader_open(fx->amber, 0, r), 0);
	assert_int_equal(ana_embed_open(*r, fx->cache, &e), 0);
	return e;
}

static void test_parts_out_of_order(void **state)
{
	struct fixture *fx = *state;
	size_t a = fx->size / 3, b = 2 * fx->size / 3;
	struct part parts[] = {
		{ fx->id, AMB_FILE_ELF, "/usr/bin/prog", fx->size, b, fx->image + b, fx->size - b },
		{ fx->id, AMB_FILE_ELF, "/usr/bin/prog", fx->size, 0, fx->image, a },
		{ fx->id, AMB_FILE_ELF, "/usr/bin/prog", fx->size, a, fx->image + a, b - a },
	};
	struct amb_reader *r;
	struct ana_embed *e;
	const char *path;
	struct stat st;
	char expect[256];
	uint8_t *back;
	FILE *f;

	write_recording(fx->amber, parts, AMB_ARRAY_SIZE(parts));
	e = open_embed(fx, &r);
	assert_int_equal(ana_embed_count(e), 1);
	assert_true(ana_embed_has(e, fx->id, 20, AMB_FILE_ELF));
	assert_false(ana_embed_has(e, fx->id, 20, AMB_FILE_DEBUG));
	path = ana_embed_lookup(e, fx->id, 20);
	assert_non_null(path);
	assert_int_equal(nr_warnings, 0);
	/* <cache>/amber-embed.XXXXXX/.build-id/01/23...67 */
	snprintf(expect, sizeof(expect), "/.build-id/01/%s", BUILD_ID_HEX + 2);
	assert_int_equal(strncmp(path, fx->cache, strlen(fx->cache)), 0);
	assert_string_equal(path + strlen(path) - strlen(expect), expect);
	assert_int_equal(lstat(path, &st), 0);
	assert_true(S_ISREG(st.st_mode));
	assert_int_equal(st.st_mode & 0777, 0600);
	assert_int_equal((size_t)st.st_size, fx->size);
	back = malloc(fx->size);
	f = fopen(path, "rb");
	assert_non_null(f);
	assert_int_equal(fread(back, 1, fx->size, f), fx->size);
	fclose(f);
	assert_memory_equal(back, fx->image, fx->size);
	free(back);
	/* The same answer again, without a second extraction. */
	assert_ptr_equal(ana_embed_lookup(e, fx->id, 20), path);
	assert_null(ana_embed_lookup(e, fx->other, 20));
	ana_embed_free(e);
	amb_reader_close(r);
	/* Everything made is removed. */
	assert_int_equal(count_files(fx->cache), 0);
	assert_int_equal(rmdir(fx->cache), 0);
}

static void test_hostile_name(void **state)
{
	struct fixture *fx = *state;
	struct part parts[] = {
		{ fx->id, AMB_FILE_ELF, "../../../../../../../tmp/amber-test-embed-pwned",
		  fx->size, 0, fx->image, fx->size },
		{ fx->id, AMB_FILE_DEBUG, "/etc/passwd", fx->size, 0, fx->image, fx->size },
	};
	struct amb_reader *r;
	struct ana_embed *e;
	const char *path, *dbg;
	char expect[256];
	struct stat st;

	unlink("/tmp/amber-test-embed-pwned");
	write_recording(fx->amber, parts, AMB_ARRAY_SIZE(parts));
	e = open_embed(fx, &r);
	path = ana_embed_lookup(e, fx->id, 20);
	assert_non_null(path);
	dbg = ana_embed_path(e, fx->id, 20, AMB_FILE_DEBUG);
	assert_non_null(dbg);
	/* Named by the build-id, next to each other, inside the cache. */
	snprintf(expect, sizeof(expect), "%s.debug", path);
	assert_string_equal(dbg, expect);
	assert_int_equal(strncmp(path, fx->cache, strlen(fx->cache)), 0);
	assert_null(strstr(path, ".."));
	assert_int_not_equal(lstat("/tmp/amber-test-embed-pwned", &st), 0);
	assert_int_equal(count_files(fx->cache), 2);
	ana_embed_free(e);
	amb_reader_close(r);
	assert_int_equal(count_files(fx->cache), 0);
}

static void test_bad_checksum(void **state)
{
	struct fixture *fx = *state;
	size_t half = fx->size / 2;
	struct part parts[] = {
		{ fx->id, AMB_FILE_ELF, "prog", fx->size, 0, fx->image, half },
		{ fx->id, AMB_FILE_ELF, "prog", fx->size, half, fx->image + half, fx->size - half },
	};
	const struct amb_block_info *bi;
	struct amb_reader *r;
	struct ana_embed *e;
	uint8_t byte;
	int fd;

	write_recording(fx->amber, parts, AMB_ARRAY_SIZE(parts));
	/* Flip a byte inside the second block's stored payload. */
	assert_int_equal(amb_reader_open(fx->amber, 0, &r), 0);
	bi = amb_reader_block(r, 1);
	assert_int_equal(bi->type, AMB_BLOCK_FILE);
	fd = open(fx->amber, O_RDWR);
	assert_true(fd >= 0);
	assert_int_equal(pread(fd, &byte, 1, (off_t)(bi->offset + 80 + bi->stored_size / 2)), 1);
	byte ^= 0x5a;
	assert_int_equal(pwrite(fd, &byte, 1, (off_t)(bi->offset + 80 + bi->stored_size / 2)), 1);
	close(fd);
	amb_reader_close(r);

	e = open_embed(fx, &r);
	assert_true(nr_warnings >= 1);   /* the part that does not load */
	assert_non_null(strstr(last_warning, "checksum"));
	assert_null(ana_embed_lookup(e, fx->id, 20));
	assert_non_null(strstr(last_warning, "missing"));
	assert_non_null(strstr(last_warning, BUILD_ID_HEX));
	assert_int_equal(count_files(fx->cache), 0);
	ana_embed_free(e);
	amb_reader_close(r);
}

static void test_wrong_build_id(void **state)
{
	struct fixture *fx = *state;
	/* The ELF filed under a build-id it does not have. */
	struct part parts[] = {
		{ fx->other, AMB_FILE_ELF, "prog", fx->size, 0, fx->image, fx->size },
	};
	struct amb_reader *r;
	struct ana_embed *e;

	write_recording(fx->amber, parts, AMB_ARRAY_SIZE(parts));
	e = open_embed(fx, &r);
	assert_null(ana_embed_lookup(e, fx->other, 20));
	assert_int_equal(nr_warnings, 1);
	assert_non_null(strstr(last_warning, "build-id note says " BUILD_ID_HEX));
	/* The rejected file is gone at once, not only at free. */
	assert_int_equal(count_files(fx->cache), 0);
	/* Asked again: no second attempt, no second warning. */
	assert_null(ana_embed_lookup(e, fx->other, 20));
	assert_int_equal(nr_warnings, 1);
	ana_embed_free(e);
	amb_reader_close(r);
}

static void test_overlap_and_holes(void **state)
{
	struct fixture *fx = *state;
	size_t half = fx->size / 2;
	struct part overlap[] = {
		{ fx->id, AMB_FILE_ELF, "prog", fx->size, 0, fx->image, half + 16 },
		{ fx->id, AMB_FILE_ELF, "prog", fx->size, half, fx->image + half, fx->size - half },
	};
	struct part hole[] = {
		{ fx->id, AMB_FILE_ELF, "prog", fx->size, 0, fx->image, half - 16 },
		{ fx->id, AMB_FILE_ELF, "prog", fx->size, half, fx->image + half, fx->size - half },
	};
	struct part twice[] = {
		{ fx->id, AMB_FILE_ELF, "prog", fx->size, 0, fx->image, fx->size },
		{ fx->id, AMB_FILE_ELF, "prog", fx->size, 0, fx->image, fx->size },
	};
	struct part sizes[] = {
		{ fx->id, AMB_FILE_ELF, "prog", fx->size, 0, fx->image, half },
		{ fx->id, AMB_FILE_ELF, "prog", fx->size + 1, half, fx->image + half,
		  fx->size - half },
	};
	const struct { struct part *p; const char *why; } cases[] = {
		{ overlap, "overlaps" }, { hole, "missing" }, { twice, "overlaps" },
		{ sizes, "disagree" },
	};
	struct amb_reader *r;
	struct ana_embed *e;

	for (size_t i = 0; i < AMB_ARRAY_SIZE(cases); i++) {
		unlink(fx->amber);
		write_recording(fx->amber, cases[i].p, 2);
		nr_warnings = 0;
		e = open_embed(fx, &r);
		assert_true(ana_embed_has(e, fx->id, 20, AMB_FILE_ELF));
		assert_null(ana_embed_lookup(e, fx->id, 20));
		assert_int_equal(nr_warnings, 1);
		assert_non_null(strstr(last_warning, cases[i].why));
		assert_int_equal(count_files(fx->cache), 0);
		ana_embed_free(e);
		amb_reader_close(r);
	}
}

static void test_part_past_end_and_cap(void **state)
{
	struct fixture *fx = *state;
	struct part past[] = {
		/* part_offset + data_len > file_size */
		{ fx->id, AMB_FILE_ELF, "prog", fx->size, 8, fx->image, fx->size },
		/* a file over the 2 GiB cap */
		{ fx->other, AMB_FILE_ELF, "big", ANA_EMBED_FILE_MAX + 1, 0, fx->image, 64 },
	};
	struct amb_reader *r;
	struct ana_embed *e;

	write_recording(fx->amber, past, AMB_ARRAY_SIZE(past));
	e = open_embed(fx, &r);
	/* Both refused while indexing: nothing is known about them. */
	assert_int_equal(nr_warnings, 2);
	assert_non_null(strstr(last_warning, "does not fit"));
	assert_int_equal(ana_embed_count(e), 0);
	assert_null(ana_embed_lookup(e, fx->id, 20));
	assert_null(ana_embed_lookup(e, fx->other, 20));
	ana_embed_free(e);
	amb_reader_close(r);
}

static void test_planted_symlink(void **state)
{
	struct fixture *fx = *state;
	struct part parts[] = {
		{ fx->id, AMB_FILE_ELF, "prog", fx->size, 0, fx->image, fx->size },
		{ fx->id, AMB_FILE_DEBUG, "prog.debug", fx->size, 0, fx->image, fx->size },
	};
	struct amb_reader *r;
	struct ana_embed *e;
	const char *path;
	char victim[256], link[512];
	struct stat st;

	/* A link planted where the debug file goes is never written through. */
	write_recording(fx->amber, parts, AMB_ARRAY_SIZE(parts));
	e = open_embed(fx, &r);
	path = ana_embed_path(e, fx->id, 20, AMB_FILE_ELF);
	assert_non_null(path);
	snprintf(victim, sizeof(victim), "%s/victim", fx->dir);
	snprintf(link, sizeof(link), "%s.debug", path);
	assert_int_equal(symlink(victim, link), 0);
	assert_null(ana_embed_path(e, fx->id, 20, AMB_FILE_DEBUG));
	assert_int_equal(nr_warnings, 1);
	assert_non_null(strstr(last_warning, "cannot create"));
	assert_int_not_equal(lstat(victim, &st), 0);
	unlink(link);
	ana_embed_free(e);
	amb_reader_close(r);
}

/* Entries of @dir at any depth, directories included. */
static unsigned count_entries(const char *dir)
{
	char cmd[256], line[64];
	unsigned n = 0;
	FILE *p;

	snprintf(cmd, sizeof(cmd), "find %s -mindepth 1 | wc -l", dir);
	p = popen(cmd, "r");
	assert_non_null(p);
	if (fgets(line, sizeof(line), p))
		n = (unsigned)atoi(line);
	pclose(p);
	return n;
}

/* What is cheap to check is checked before anything is written: not even
 * the cache directory is made for a file that is no ELF, or that claims
 * far more bytes than the recording holds for it. */
static void test_precheck(void **state)
{
	struct fixture *fx = *state;
	size_t half = 32u << 20;
	uint8_t *zeros = calloc(1, half + 64), text[4096];
	struct part parts[] = {
		{ fx->id, AMB_FILE_ELF, "text", sizeof(text), 0, text, sizeof(text) },
		{ fx->other, AMB_FILE_ELF, "bomb", 2 * (uint64_t)half, 0, NULL, 0 },
		{ fx->other, AMB_FILE_ELF, "bomb", 2 * (uint64_t)half, 0, NULL, 0 },
	};
	struct amb_reader *r;
	struct ana_embed *e;

	assert_non_null(zeros);
	memset(text, 'x', sizeof(text));
	/* 64 MiB of zeros behind a valid ELF header, in two parts. */
	memcpy(zeros, fx->image, 64);
	amb_put_le64(zeros + 32, 0);   /* e_phoff */
	amb_put_le64(zeros + 40, 0);   /* e_shoff */
	parts[1].data = zeros;
	parts[1].len = half;
	parts[2].offset = half;
	parts[2].data = zeros + 64;    /* zeros only */
	parts[2].len = half;
	write_recording(fx->amber, parts, AMB_ARRAY_SIZE(parts));
	e = open_embed(fx, &r);
	assert_null(ana_embed_lookup(e, fx->id, 20));
	assert_non_null(strstr(last_warning, "does not start with an ELF header"));
	assert_null(ana_embed_lookup(e, fx->other, 20));
	assert_non_null(strstr(last_warning, "claims 67108864 bytes from"));
	assert_int_equal(count_entries(fx->cache), 0);
	ana_embed_free(e);
	amb_reader_close(r);
	free(zeros);
}

/* The removal a signal handler does: the whole cache, at once. */
static void test_remove_all(void **state)
{
	struct fixture *fx = *state;
	struct part parts[] = {
		{ fx->id, AMB_FILE_ELF, "prog", fx->size, 0, fx->image, fx->size },
	};
	struct amb_reader *r;
	struct ana_embed *e;

	write_recording(fx->amber, parts, AMB_ARRAY_SIZE(parts));
	e = open_embed(fx, &r);
	assert_non_null(ana_embed_lookup(e, fx->id, 20));
	assert_true(count_entries(fx->cache) >= 4);   /* dir, .build-id, xx, file */
	ana_embed_remove_all();
	assert_int_equal(count_entries(fx->cache), 0);
	ana_embed_free(e);
	amb_reader_close(r);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_parts_out_of_order, setup, teardown),
		cmocka_unit_test_setup_teardown(test_hostile_name, setup, teardown),
		cmocka_unit_test_setup_teardown(test_bad_checksum, setup, teardown),
		cmocka_unit_test_setup_teardown(test_wrong_build_id, setup, teardown),
		cmocka_unit_test_setup_teardown(test_overlap_and_holes, setup, teardown),
		cmocka_unit_test_setup_teardown(test_part_past_end_and_cap, setup, teardown),
		cmocka_unit_test_setup_teardown(test_planted_symlink, setup, teardown),
		cmocka_unit_test_setup_teardown(test_precheck, setup, teardown),
		cmocka_unit_test_setup_teardown(test_remove_all, setup, teardown),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
