// SPDX-License-Identifier: MIT
/* Unit tests for common/: little-endian helpers, byte buffer, CPU lists,
 * JSON escaping, the warning callback and amb_read_file. */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>

#include <amber/common.h>
#include "common/hashmap.h"
#include "common/util.h"

static void test_le_roundtrip(void **state)
{
	uint8_t b[8];

	(void)state;
	amb_put_le16(b, 0x1234);
	assert_int_equal(b[0], 0x34);
	assert_int_equal(b[1], 0x12);
	assert_int_equal(amb_get_le16(b), 0x1234);
	amb_put_le32(b, 0xdeadbeef);
	assert_int_equal(b[0], 0xef);
	assert_int_equal(b[3], 0xde);
	assert_int_equal(amb_get_le32(b), 0xdeadbeef);
	amb_put_le64(b, 0x0102030405060708ull);
	assert_int_equal(b[0], 0x08);
	assert_int_equal(b[7], 0x01);
	assert_true(amb_get_le64(b) == 0x0102030405060708ull);
}

static void test_buf(void **state)
{
	struct amb_buf b = AMB_BUF_INIT;

	(void)state;
	for (int i = 0; i < 1000; i++)
		assert_int_equal(amb_buf_put_le32(&b, (uint32_t)i), 0);
	assert_int_equal(b.len, 4000);
	assert_int_equal(amb_get_le32(b.data + 4 * 999), 999);
	assert_int_equal(amb_buf_printf(&b, "x=%d", 42), 0);
	assert_int_equal(b.len, 4004);
	assert_memory_equal(b.data + 4000, "x=42", 4);
	amb_buf_reset(&b);
	assert_int_equal(b.len, 0);
	assert_int_equal(amb_buf_append(&b, "abc", 3), 0);
	assert_int_equal(amb_buf_put_le16(&b, 0xbeef), 0);
	assert_int_equal(amb_buf_put_le64(&b, 7), 0);
	assert_int_equal(b.len, 13);
	amb_buf_free(&b);
	assert_null(b.data);
	amb_buf_free(&b);
	assert_int_equal(amb_buf_reserve(&b, SIZE_MAX), -ENOMEM);
}

static void test_cpulist(void **state)
{
	uint64_t set[2];

	(void)state;
	assert_int_equal(amb_cpulist_parse("0-3,8,10-11", set, 128), 7);
	assert_true(set[0] == 0xd0full);
	assert_int_equal(amb_cpulist_parse("64\n", set, 128), 1);
	assert_true(set[1] == 1 && set[0] == 0);
	assert_int_equal(amb_cpulist_parse("1,1,1", set, 128), 1);
	assert_int_equal(amb_cpulist_parse("", set, 128), -EINVAL);
	assert_int_equal(amb_cpulist_parse("3-1", set, 128), -EINVAL);
	assert_int_equal(amb_cpulist_parse("a", set, 128), -EINVAL);
	assert_int_equal(amb_cpulist_parse("1,", set, 128), -EINVAL);
	assert_int_equal(amb_cpulist_parse("128", set, 128), -EINVAL);
	assert_int_equal(amb_cpulist_parse("99999999999", set, 128), -EINVAL);
}

static void test_json(void **state)
{
	char *out = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&out, &len);

	(void)state;
	amb_json_str(f, "a\"b\\c\n\x01");
	amb_json_str(f, NULL);
	amb_json_strn(f, "xy\0z", 4);
	amb_json_str(f, "c1\xc2\x9b\xc3\xa9");
	fclose(f);
	assert_string_equal(out, "\"a\\\"b\\\\c\\n\\u0001\"\"\"\"xy\\u0000z\"\"c1\\u009b\xc3\xa9\"");
	free(out);
}

/* Recorded text: controls, C1, DEL and broken UTF-8 escape; UTF-8 stays. */
/* amb_hash_words(): equal words, equal hashes; keys that differ in one
 * word, in their order or in their length spread apart, bucket bits too. */
static int cmp_u64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

	return x < y ? -1 : x > y;
}

static void test_hash_words(void **state)
{
	enum { KEYS = 4096, WORDS = 9 };
	uint64_t *h = calloc(3 * KEYS + 1, sizeof(*h)), w[WORDS], low[64] = { 0 };
	size_t n = 0;

	(void)state;
	assert_non_null(h);
	for (unsigned k = 0; k < KEYS; k++) {
		for (unsigned i = 0; i < WORDS; i++)
			w[i] = 0x400000 + 16 * i;        /* a callchain-like key */
		w[k % WORDS] += 8 * (k / WORDS + 1) + 1;
		h[n++] = amb_hash_words(w, WORDS);
		assert_true(h[n - 1] == amb_hash_words(w, WORDS));
		/* A shorter key, up to the word that differs. */
		if (k % WORDS + 1 < WORDS)
			h[n++] = amb_hash_words(w, k % WORDS + 1);
		w[0] ^= w[1];                            /* swap two words */
		w[1] ^= w[0];
		w[0] ^= w[1];
		h[n++] = amb_hash_words(w, WORDS);
	}
	h[n++] = amb_hash_words(w, 0);
	qsort(h, n, sizeof(*h), cmp_u64);
	for (size_t i = 1; i < n; i++)
		assert_true(h[i] != h[i - 1]);
	/* The map indexes by the low bits: 64 buckets all used. */
	for (size_t i = 0; i < n; i++)
		low[h[i] & 63]++;
	for (size_t i = 0; i < 64; i++)
		assert_true(low[i] > n / 64 / 2);
	free(h);
}

static void test_text(void **state)
{
	struct amb_buf b = AMB_BUF_INIT;
	char small[12], big[64], *out = NULL;
	size_t esc, len = 0;
	FILE *f;

	(void)state;
	assert_int_equal(amb_text_safe_prefix("abc", 3, &esc), 3);
	assert_int_equal(esc, 0);
	assert_int_equal(amb_text_safe_prefix("ab\x1b[31m", 7, &esc), 2);
	assert_int_equal(esc, 1);
	assert_int_equal(amb_text_safe_prefix("caf\xc3\xa9\xc2\x9b", 7, &esc), 5);
	assert_int_equal(esc, 2);
	assert_int_equal(amb_text_safe_prefix("\xe2\x82\xac\xf0\x9f\x98\x80", 7, &esc), 7);
	assert_int_equal(amb_text_safe_prefix("\xc3", 1, &esc), 0);   /* cut short */
	assert_int_equal(esc, 1);
	assert_int_equal(amb_text_safe_prefix("\xe0\x80\x80", 3, &esc), 0);   /* overlong */
	assert_int_equal(amb_text_safe_prefix("\xed\xa0\x80", 3, &esc), 0);   /* surrogate */
	assert_int_equal(amb_text_safe_prefix("\xf4\x90\x80\x80", 4, &esc), 0);   /* > U+10FFFF */
	/* Every byte value at every place of a long ASCII run (the run is
	 * read eight bytes at a time): the prefix ends right before it unless
	 * it is printable ASCII. */
	for (unsigned c = 0; c < 256; c++) {
		for (size_t at = 0; at < 19; at++) {
			char run[19];

			memset(run, 'a', sizeof(run));
			run[at] = (char)c;
			esc = 9;
			if (c >= 0x20 && c < 0x7f) {
				assert_int_equal(amb_text_safe_prefix(run, sizeof(run), &esc), sizeof(run));
				assert_int_equal(esc, 0);
			} else {
				assert_int_equal(amb_text_safe_prefix(run, sizeof(run), &esc), at);
				assert_int_equal(esc, 1);
			}
		}
	}
	assert_int_equal(amb_text_safe_prefix("abcdefgh\xc3\xa9ijklmnop\x01", 19, &esc), 18);
	assert_int_equal(esc, 1);

	assert_int_equal(amb_buf_put_text(&b, "a\tb\nc\x7f\xff\\x", 9), 0);
	assert_int_equal(b.len, strlen("a\\x09b\\x0ac\\x7f\\xff\\x"));
	assert_memory_equal(b.data, "a\\x09b\\x0ac\\x7f\\xff\\x", b.len);
	assert_int_equal(b.data[b.len], '\0');
	amb_buf_free(&b);

	assert_string_equal(amb_text_escape(big, sizeof(big), "\x1b]0;t\x07ok"),
			    "\\x1b]0;t\\x07ok");
	assert_string_equal(amb_text_escape(big, sizeof(big), NULL), "");
	/* Cut to fit, never inside an escape or a UTF-8 character. */
	assert_string_equal(amb_text_escape(small, sizeof(small), "abcdefghijklmn"), "abcdefghijk");
	assert_string_equal(amb_text_escape(small, sizeof(small), "abcdefgh\x01"), "abcdefgh");
	assert_string_equal(amb_text_escape(small, sizeof(small), "abcdefghij\xc3\xa9"), "abcdefghij");

	f = open_memstream(&out, &len);
	assert_non_null(f);
	amb_fput_text(f, "t\x1b[2Jx\xc2\x85y");
	amb_fput_text(f, NULL);
	fclose(f);
	assert_string_equal(out, "t\\x1b[2Jx\\xc2\\x85y");
	free(out);
}

static char last_warning[128];

static void capture(void *ctx, const char *msg)
{
	*(int *)ctx += 1;
	snprintf(last_warning, sizeof(last_warning), "%s", msg);
}

static void test_warn(void **state)
{
	int calls = 0;

	(void)state;
	amb_set_warn(capture, &calls);
	amb_warn("block %d at offset %u", 12, 81920u);
	assert_int_equal(calls, 1);
	assert_string_equal(last_warning, "block 12 at offset 81920");
	assert_ptr_equal(amb_set_warn(NULL, NULL), capture);
	amb_warn("dropped");
	assert_int_equal(calls, 1);
}

static void test_read_file(void **state)
{
	char path[] = "/tmp/amb_test_XXXXXX";
	int fd = mkstemp(path);
	size_t len = 0;
	char *s;

	(void)state;
	assert_true(fd >= 0);
	assert_int_equal(write(fd, "hello world", 11), 11);
	close(fd);
	s = amb_read_file(path, 1 << 20, &len);
	assert_non_null(s);
	assert_int_equal(len, 11);
	assert_string_equal(s, "hello world");
	free(s);
	s = amb_read_file(path, 5, &len);
	assert_int_equal(len, 5);
	assert_string_equal(s, "hello");
	free(s);
	unlink(path);
	errno = 0;
	assert_null(amb_read_file(path, 10, NULL));
	assert_int_equal(errno, ENOENT);
}

static void test_big_alloc(void **state)
{
	size_t size;
	uint8_t *p;

	(void)state;
	p = amb_big_alloc(100, &size);
	assert_non_null(p);
	assert_int_equal(size, 0);       /* small: from malloc */
	memset(p, 1, 100);
	amb_big_free(p, size);
	p = amb_big_alloc(3u << 20, &size);
	assert_non_null(p);
	assert_true(size >= 3u << 20);
	assert_int_equal((uintptr_t)p % (2u << 20), 0);
	memset(p, 2, size);              /* all of it is usable */
	amb_big_free(p, size);
	amb_big_free(NULL, 0);
	amb_big_free(NULL, 4096);
	assert_null(amb_big_alloc(SIZE_MAX - 100, &size));
}

/*
 * Whether the mapping of this process that holds @addr has the VmFlags
 * mnemonic @flag ("hg": huge pages asked for; "nh": refused), from
 * /proc/self/smaps.
 */
static bool vma_has_flag(const void *addr, const char *flag)
{
	FILE *f = fopen("/proc/self/smaps", "r");
	char line[512];
	bool in = false, has = false;

	assert_non_null(f);
	while (fgets(line, sizeof(line), f)) {
		unsigned long lo, hi;

		if (sscanf(line, "%lx-%lx ", &lo, &hi) == 2 && strchr(line, '-') < strchr(line, ' ')) {
			in = (uintptr_t)addr >= lo && (uintptr_t)addr < hi;
			continue;
		}
		if (in && !strncmp(line, "VmFlags:", 8)) {
			char want[8];

			snprintf(want, sizeof(want), " %s", flag);
			for (char *q = strstr(line, want); q && !has; q = strstr(q + 1, want))
				has = q[3] == ' ' || q[3] == '\n';
			break;
		}
	}
	fclose(f);
	return has;
}

/* Huge pages are asked for on every 2 MiB unit of a big buffer but a last
 * one it would use less than 128 KiB of, which gets small pages. */
static void test_big_alloc_huge(void **state)
{
	const size_t mib = 1u << 20;
	size_t size;
	uint8_t *p;

	(void)state;
	if (access("/sys/kernel/mm/transparent_hugepage/enabled", F_OK))
		skip();          /* a kernel without THP keeps no such flags */
	p = amb_big_alloc(4 * mib + 100, &size);
	assert_non_null(p);
	assert_int_equal(size, 6 * mib);
	assert_true(vma_has_flag(p, "hg"));
	assert_true(vma_has_flag(p + 4 * mib - 1, "hg"));
	assert_true(vma_has_flag(p + 4 * mib, "nh"));
	assert_true(vma_has_flag(p + 6 * mib - 1, "nh"));
	amb_big_free(p, size);

	p = amb_big_alloc(4 * mib + 200 * 1024, &size);
	assert_non_null(p);
	assert_true(vma_has_flag(p + 5 * mib, "hg"));
	assert_false(vma_has_flag(p + 5 * mib, "nh"));
	amb_big_free(p, size);

	p = amb_big_alloc(300 * 1024, &size);
	assert_non_null(p);
	assert_int_equal(size, 2 * mib);
	assert_true(vma_has_flag(p, "hg"));
	amb_big_free(p, size);
}

/* Zeroed memory, small (malloc()ed: the chunk just freed, dirty, is the
 * one malloc() hands out again) and big (mapped). */
static void test_big_zalloc(void **state)
{
	const size_t sizes[] = { 1000, 100000, 3u << 20 };
	size_t size;
	uint8_t *p;

	(void)state;
	for (size_t k = 0; k < AMB_ARRAY_SIZE(sizes); k++) {
		p = malloc(sizes[k]);
		assert_non_null(p);
		memset(p, 0xa5, sizes[k]);
		free(p);
		p = amb_big_zalloc(sizes[k], &size);
		assert_non_null(p);
		for (size_t i = 0; i < sizes[k]; i++)
			if (p[i])
				fail_msg("byte %zu of %zu not zero", i, sizes[k]);
		amb_big_free(p, size);
	}
	assert_null(amb_big_zalloc(SIZE_MAX - 100, &size));
}

/* A run of slowly growing needs maps a new buffer a few times, not once
 * per need (each new mapping is faulted in again). */
static void test_big_reserve(void **state)
{
	size_t cap = 0, map = 0, last_cap = 0, regrowths = 0;
	uint8_t *buf = NULL;

	(void)state;
	assert_int_equal(amb_big_reserve(&buf, &cap, &map, 500000), 0);
	assert_non_null(buf);
	assert_true(cap >= 500000);
	memset(buf, 1, cap);
	last_cap = cap;
	for (size_t need = 500000; need <= 8000000; need += 10000) {
		assert_int_equal(amb_big_reserve(&buf, &cap, &map, need), 0);
		assert_true(cap >= need);
		if (cap != last_cap) {
			/* At least half as large again as before. */
			assert_true(cap >= last_cap + last_cap / 2);
			regrowths++;
		}
		last_cap = cap;
		memset(buf, 2, need);
	}
	assert_true(regrowths <= 6);
	/* A smaller need keeps the buffer. */
	assert_int_equal(amb_big_reserve(&buf, &cap, &map, 100), 0);
	assert_int_equal(cap, last_cap);
	assert_int_equal(amb_big_reserve(&buf, &cap, &map, SIZE_MAX - 100), -ENOMEM);
	assert_null(buf);
	assert_int_equal(cap, 0);
	assert_int_equal(map, 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_le_roundtrip),
		cmocka_unit_test(test_buf),
		cmocka_unit_test(test_cpulist),
		cmocka_unit_test(test_json),
		cmocka_unit_test(test_text),
		cmocka_unit_test(test_hash_words),
		cmocka_unit_test(test_warn),
		cmocka_unit_test(test_read_file),
		cmocka_unit_test(test_big_alloc),
		cmocka_unit_test(test_big_alloc_huge),
		cmocka_unit_test(test_big_reserve),
		cmocka_unit_test(test_big_zalloc),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
