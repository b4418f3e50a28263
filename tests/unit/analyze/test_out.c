// SPDX-License-Identifier: MIT
/*
 * Unit tests for the buffered output of analyze/report_common.c: the
 * hand-rolled number and string formatting report and script use in their
 * hot paths must write exactly what printf and amb_json_str() write, and
 * output larger than the buffer, printf and JSON must come out in order.
 * Oracles: fprintf and amb_json_str() into a second stream.
 */
#include <inttypes.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "analyze/cmd/cmd.h"
#include <amber/common.h>
#include "common/util.h"

/* Two memory streams: what ana_out wrote, and what the oracle wrote. */
struct pair {
	char *got, *want;
	size_t got_len, want_len;
	FILE *g, *w;
	struct ana_out out;
};

static void pair_open(struct pair *p)
{
	memset(p, 0, sizeof(*p));
	p->g = open_memstream(&p->got, &p->got_len);
	p->w = open_memstream(&p->want, &p->want_len);
	assert_non_null(p->g);
	assert_non_null(p->w);
	ana_out_init(&p->out, p->g);
	assert_int_equal(p->out.width, 0);   /* a memory stream is no tty */
}

static void pair_check(struct pair *p)
{
	assert_int_equal(ana_out_finish(&p->out), 0);
	fclose(p->g);
	fclose(p->w);
	assert_int_equal(p->got_len, p->want_len);
	assert_memory_equal(p->got, p->want, p->got_len);
	free(p->got);
	free(p->want);
}

static const uint64_t values[] = {
	0, 1, 9, 10, 15, 16, 99, 100, 255, 999, 1000, 4095, 65535, 999999, 1000000,
	0x7fffffffull, 0xffffffffull, 1000000000ull, 0x123456789abcdefull,
	9999999999999999999ull, 10000000000000000000ull, UINT64_MAX - 1, UINT64_MAX,
};

static void test_numbers(void **state)
{
	static const unsigned widths[] = { 0, 1, 3, 6, 7, 10, 16, 20, 24, 40 };
	struct pair p;
	size_t i, j;

	(void)state;
	pair_open(&p);
	for (i = 0; i < AMB_ARRAY_SIZE(values); i++) {
		for (j = 0; j < AMB_ARRAY_SIZE(widths); j++) {
			uint64_t v = values[i];
			int w = (int)widths[j];

			ana_out_u64(&p.out, v, widths[j], ' ');
			fprintf(p.w, "%*" PRIu64, w, v);
			ana_out_u64(&p.out, v, widths[j], '0');
			fprintf(p.w, "%0*" PRIu64, w, v);
			ana_out_x64(&p.out, v, widths[j]);
			fprintf(p.w, "%*" PRIx64, w, v);
			ana_out_char(&p.out, '\n');
			fputc('\n', p.w);
		}
	}
	pair_check(&p);
}

static void test_strings(void **state)
{
	static const char *const strs[] = {
		"", "a", "worker-0", "sixteen chars ok", "seventeen chars!!",
		"a command name far longer than any column",
	};
	struct pair p;
	size_t i;

	(void)state;
	pair_open(&p);
	for (i = 0; i < AMB_ARRAY_SIZE(strs); i++) {
		ana_out_str_right(&p.out, strs[i], 16);
		fprintf(p.w, "%16s", strs[i]);
		ana_out_str(&p.out, strs[i]);
		fputs(strs[i], p.w);
		ana_out_printf(&p.out, "[%s|%5d]", strs[i], (int)i);
		fprintf(p.w, "[%s|%5d]", strs[i], (int)i);
	}
	pair_check(&p);
}

static void test_json(void **state)
{
	static const char *const strs[] = {
		"", "plain", "quote \" and backslash \\", "nl\ncr\rtab\t",
		"\x01\x1f\x7f control", "utf-8 \xc3\xa9\xe2\x82\xac", "end\\",
		"c1 \xc2\x9b[31m \xc2\x85", "\xc2", "\xc2\xa0",
	};
	struct pair p;
	size_t i;

	(void)state;
	pair_open(&p);
	for (i = 0; i < AMB_ARRAY_SIZE(strs); i++) {
		ana_out_json(&p.out, strs[i]);
		amb_json_str(p.w, strs[i]);
	}
	ana_out_json(&p.out, NULL);
	amb_json_str(p.w, NULL);
	pair_check(&p);
}

/* Recorded text prints as amb_fput_text() writes it; _right() counts a
 * UTF-8 character as one column and an escape as four. */
static void test_text(void **state)
{
	static const char *const strs[] = {
		"", "plain", "\x1b]0;title\x07", "nl\ntab\t", "\xc2\x9b" "2J", "caf\xc3\xa9 \xff",
	};
	struct pair p;
	size_t i;

	(void)state;
	pair_open(&p);
	for (i = 0; i < AMB_ARRAY_SIZE(strs); i++) {
		ana_out_text(&p.out, strs[i]);
		amb_fput_text(p.w, strs[i]);
	}
	ana_out_textn(&p.out, "a\0b", 3);
	fputs("a\\x00b", p.w);
	ana_out_text(&p.out, NULL);
	ana_out_text_right(&p.out, "caf\xc3\xa9", 6);
	fputs("  caf\xc3\xa9", p.w);
	ana_out_text_right(&p.out, "\x1b", 6);
	fputs("  \\x1b", p.w);
	pair_check(&p);
}

/* More than the buffer holds, in pieces of every size, with printf and
 * JSON in between: all of it in order. */
static void test_large_and_order(void **state)
{
	size_t big = 3 * ANA_OUT_BUF + 123, n, i;
	char *chunk = malloc(big);
	struct pair p;

	(void)state;
	assert_non_null(chunk);
	for (i = 0; i < big; i++)
		chunk[i] = (char)('a' + i % 26);
	pair_open(&p);
	for (n = 1, i = 0; i + n <= big; i += n, n = n * 3 + 1) {
		ana_out_write(&p.out, chunk + i, n);
		fwrite(chunk + i, 1, n, p.w);
		ana_out_printf(&p.out, "<%zu>", n);
		fprintf(p.w, "<%zu>", n);
		ana_out_json(&p.out, "j");
		amb_json_str(p.w, "j");
	}
	ana_out_write(&p.out, chunk, big);
	fwrite(chunk, 1, big, p.w);
	/* A printf result longer than its stack buffer. */
	ana_out_printf(&p.out, "%.*s", 20000, chunk);
	fprintf(p.w, "%.*s", 20000, chunk);
	pair_check(&p);
	free(chunk);
}

/* A mark gives back exactly what was written after it while it is all in
 * the buffer, and NULL once any of it went out; a cut (terminal) output
 * takes no mark. */
static void test_mark(void **state)
{
	char *chunk = malloc(ANA_OUT_BUF);
	struct ana_out_mark m;
	const char *since;
	struct pair p;
	size_t len;

	(void)state;
	assert_non_null(chunk);
	memset(chunk, 'x', ANA_OUT_BUF);
	pair_open(&p);
	ana_out_write(&p.out, "head ", 5);
	fputs("head ", p.w);
	assert_true(ana_out_mark(&p.out, 1000, &m));
	since = ana_out_since(&p.out, &m, &len);
	assert_non_null(since);
	assert_int_equal(len, 0);
	ana_out_printf(&p.out, "%d-%s", 42, "frames");
	ana_out_char(&p.out, '\n');
	fputs("42-frames\n", p.w);
	since = ana_out_since(&p.out, &m, &len);
	assert_non_null(since);
	assert_int_equal(len, 10);
	assert_memory_equal(since, "42-frames\n", 10);
	/* Less room than asked: no mark, and nothing goes out for it. */
	ana_out_write(&p.out, chunk, ANA_OUT_BUF - 100);
	fwrite(chunk, 1, ANA_OUT_BUF - 100, p.w);
	assert_int_equal(p.out.writes, 0);
	assert_false(ana_out_mark(&p.out, 1000, &m));
	assert_int_equal(p.out.writes, 0);
	assert_true(ana_out_mark(&p.out, 10, &m));
	ana_out_write(&p.out, "abc", 3);
	fputs("abc", p.w);
	since = ana_out_since(&p.out, &m, &len);
	assert_non_null(since);
	assert_int_equal(len, 3);
	assert_memory_equal(since, "abc", 3);
	/* Once something after the mark has gone out: NULL. */
	ana_out_write(&p.out, chunk, ANA_OUT_BUF);
	fwrite(chunk, 1, ANA_OUT_BUF, p.w);
	assert_null(ana_out_since(&p.out, &m, &len));
	assert_false(ana_out_mark(&p.out, ANA_OUT_BUF + 1, &m));
	pair_check(&p);

	/* Lines cut at a width: no mark. */
	pair_open(&p);
	p.out.width = 40;
	assert_false(ana_out_mark(&p.out, 10, &m));
	p.out.width = 0;
	pair_check(&p);
	free(chunk);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_numbers),
		cmocka_unit_test(test_strings),
		cmocka_unit_test(test_json),
		cmocka_unit_test(test_text),
		cmocka_unit_test(test_large_and_order),
		cmocka_unit_test(test_mark),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
