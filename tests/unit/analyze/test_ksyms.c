// SPDX-License-Identifier: MIT
/* Unit tests for analyze/ksyms.c: parsing /proc/kallsyms text and lookup. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "analyze/resolve/resolve.h"

static const char kallsyms[] =
	"ffffffff81000000 T _text\n"
	"ffffffff81000000 T startup_64\n"
	"ffffffff81001000 t do_one_initcall\n"
	"ffffffff81002000 D some_data\n"                 /* not text: dropped */
	"ffffffff81003000 W weak_fn\n"
	"ffffffff81004000 T schedule\n"
	"garbage line\n"
	"ffffffffc0001000 t e1000_xmit\t[e1000]\n"
	"ffffffffc0002000 t e1000_poll\t[e1000]\n"
	"ffffffff81001800 T unsorted_but_fine\n";

static void test_parse_and_find(void **state)
{
	struct ana_ksyms *k = ana_ksyms_parse(kallsyms, strlen(kallsyms));
	const struct ana_ksym *s;
	uint64_t off;

	(void)state;
	assert_non_null(k);
	assert_int_equal(ana_ksyms_count(k), 8);
	assert_int_equal(ana_ksyms_bad_lines(k), 1);

	assert_null(ana_ksyms_find(k, 0xffffffff80ffffffull, &off));

	s = ana_ksyms_find(k, 0xffffffff81000010ull, &off);
	assert_non_null(s);
	/* Of two aliases the last in the text, as perf 6.1 shows them. */
	assert_string_equal(s->name, "startup_64");
	assert_int_equal(off, 0x10);
	assert_null(s->module);

	s = ana_ksyms_find(k, 0xffffffff81001234ull, &off);
	assert_string_equal(s->name, "do_one_initcall");
	assert_int_equal(off, 0x234);

	/* An out-of-order line is sorted into place. */
	s = ana_ksyms_find(k, 0xffffffff81001800ull, &off);
	assert_string_equal(s->name, "unsorted_but_fine");
	assert_int_equal(off, 0);

	/* Data symbols are not kept: the address falls into the previous text one. */
	s = ana_ksyms_find(k, 0xffffffff81002010ull, &off);
	assert_string_equal(s->name, "unsorted_but_fine");

	s = ana_ksyms_find(k, 0xffffffff81003fffull, &off);
	assert_string_equal(s->name, "weak_fn");

	s = ana_ksyms_find(k, 0xffffffffc0001010ull, &off);
	assert_string_equal(s->name, "e1000_xmit");
	assert_string_equal(s->module, "[e1000]");

	/* The last symbol covers a bounded span only. */
	assert_non_null(ana_ksyms_find(k, 0xffffffffc0002100ull, &off));
	assert_null(ana_ksyms_find(k, 0xffffffffc0002000ull + (2u << 20), &off));
	ana_ksyms_free(k);
}

static void test_restricted(void **state)
{
	static const char hidden[] =
		"0000000000000000 T _text\n"
		"0000000000000000 T schedule\n";
	struct ana_ksyms *k = ana_ksyms_parse(hidden, strlen(hidden));

	(void)state;
	assert_non_null(k);
	assert_int_equal(ana_ksyms_count(k), 0);
	assert_null(ana_ksyms_find(k, 0, NULL));
	ana_ksyms_free(k);
}

static void test_malformed(void **state)
{
	static const char bad[] =
		"ffffffff81000000\n"                 /* no type */
		"zzzz T x\n"                         /* bad hex */
		"ffffffff81000000 TT x\n"            /* long type */
		"11112222333344445 T toolong\n"      /* 17 digits */
		"ffffffff81000000 T x [unclosed\n"
		"ffffffff81000000 T ok";             /* no final newline */
	struct ana_ksyms *k = ana_ksyms_parse(bad, strlen(bad));
	uint64_t off;

	(void)state;
	assert_non_null(k);
	assert_int_equal(ana_ksyms_count(k), 1);
	assert_int_equal(ana_ksyms_bad_lines(k), 5);
	assert_string_equal(ana_ksyms_find(k, 0xffffffff81000004ull, &off)->name, "ok");
	ana_ksyms_free(k);
	ana_ksyms_free(NULL);

	k = ana_ksyms_parse("", 0);
	assert_non_null(k);
	assert_int_equal(ana_ksyms_count(k), 0);
	ana_ksyms_free(k);
}

/*
 * Names are cut out of the parser's own copy: the caller's text is not
 * written, need not be NUL-terminated, and may go away; blanks of either
 * kind split fields, fields after the module are ignored, a module may end
 * the text, and a name ends at the first blank even when eight or more
 * bytes follow it on the line.
 */
static void test_names_cut_out(void **state)
{
	static const char lines[] =
		"ffffffff81000000 T a_name_longer_than_sixteen_bytes [mod_a] ignored\n"
		"ffffffff81000100\tt\tshort\n"
		"  ffffffff81000200   W   spaced_out   \n"
		"FFFFFFFF81000300 t mod_fn\t[some_module]";
	size_t len = sizeof(lines) - 1;
	char *text = malloc(len + 8), *before = malloc(len + 8);
	struct ana_ksyms *k;
	const struct ana_ksym *s;
	uint64_t off;

	(void)state;
	assert_non_null(text);
	assert_non_null(before);
	/* No NUL after the text: bytes that would make another line. */
	memcpy(text, lines, len);
	memcpy(text + len, " x\n0 t\n", 8);
	memcpy(before, text, len + 8);
	k = ana_ksyms_parse(text, len);
	assert_non_null(k);
	assert_memory_equal(text, before, len + 8);
	memset(text, 'Z', len + 8);
	free(text);
	free(before);

	assert_int_equal(ana_ksyms_count(k), 4);
	assert_int_equal(ana_ksyms_bad_lines(k), 0);
	s = ana_ksyms_find(k, 0xffffffff81000010ull, &off);
	assert_string_equal(s->name, "a_name_longer_than_sixteen_bytes");
	assert_string_equal(s->module, "[mod_a]");
	assert_string_equal(ana_ksyms_find(k, 0xffffffff81000100ull, &off)->name, "short");
	assert_string_equal(ana_ksyms_find(k, 0xffffffff81000200ull, &off)->name, "spaced_out");
	s = ana_ksyms_find(k, 0xffffffff81000301ull, &off);
	assert_string_equal(s->name, "mod_fn");
	assert_string_equal(s->module, "[some_module]");
	assert_int_equal(off, 1);
	ana_ksyms_free(k);
}

/* A table of the size the kernel has: its memory comes in huge pieces. */
static void test_large_table(void **state)
{
	const size_t nr = 100000;
	char *text = malloc(nr * 48), *p = text;
	struct ana_ksyms *k;
	uint64_t off;

	(void)state;
	assert_non_null(text);
	for (size_t i = 0; i < nr; i++)
		p += sprintf(p, "%016llx %c sym_%zu%s\n",
			     (unsigned long long)(0xffffffff81000000ull + 16 * i),
			     i % 3 ? 't' : 'd', i, i % 5 ? "" : "\t[m]");
	k = ana_ksyms_parse(text, (size_t)(p - text));
	free(text);
	assert_non_null(k);
	assert_int_equal(ana_ksyms_count(k), nr - (nr + 2) / 3);
	assert_string_equal(ana_ksyms_find(k, 0xffffffff81000000ull + 16 * 99998 + 3, &off)->name,
			    "sym_99998");
	assert_int_equal(off, 3);
	/* sym_99999 is data: the address falls into the text symbol before it. */
	assert_string_equal(ana_ksyms_find(k, 0xffffffff81000000ull + 16 * 99999, &off)->name,
			    "sym_99998");
	assert_string_equal(ana_ksyms_find(k, 0xffffffff81000000ull + 16 * 5, &off)->module, "[m]");
	ana_ksyms_free(k);
}

/* A fixed-seed xorshift: the same "random" table on every run. */
static uint64_t next_rand(uint64_t *x)
{
	*x ^= *x << 13;
	*x ^= *x >> 7;
	*x ^= *x << 17;
	return *x;
}

#define NR_RAND_SYMS 3000

/*
 * What ana_ksyms_find() must answer, by brute force over the symbols in
 * text order: the highest start at or below @addr, and of the aliases
 * starting there the last in the text (perf's); the highest symbol of all
 * covers 1 MiB only.
 */
static size_t find_expected(const uint64_t *addr, size_t nr, uint64_t a)
{
	size_t best = SIZE_MAX, i;
	uint64_t top = 0;

	for (i = 0; i < nr; i++) {
		top = addr[i] > top ? addr[i] : top;
		if (addr[i] <= a && (best == SIZE_MAX || addr[i] >= addr[best]))
			best = i;
	}
	if (best != SIZE_MAX && addr[best] == top && a - top >= (1u << 20))
		return SIZE_MAX;
	return best;
}

/*
 * Tables in address order (no sort needed) and out of order (sorted):
 * lookups agree with brute force, aliases included.
 */
static void check_random_table(bool in_order)
{
	static uint64_t addr[NR_RAND_SYMS];
	char *text = malloc(NR_RAND_SYMS * 40), *p = text;
	struct ana_ksyms *k;
	uint64_t x = 0x9e3779b97f4a7c15ull, base = 0xffffffff81000000ull;
	size_t i;

	assert_non_null(text);
	for (i = 0; i < NR_RAND_SYMS; i++) {
		if (in_order)
			/* Ascending, with some aliases (steps of 0). */
			addr[i] = (i ? addr[i - 1] : base) + next_rand(&x) % 4 * 0x10;
		else if (i && next_rand(&x) % 8 == 0)
			addr[i] = addr[next_rand(&x) % i];   /* an alias, elsewhere in the text */
		else
			addr[i] = base + next_rand(&x) % 0x1000000;
		p += sprintf(p, "%016llx %c s%zu\n", (unsigned long long)addr[i],
			     "tTwW"[i % 4], i);
	}
	k = ana_ksyms_parse(text, (size_t)(p - text));
	assert_non_null(k);
	assert_int_equal(ana_ksyms_count(k), NR_RAND_SYMS);
	for (i = 0; i < 2 * NR_RAND_SYMS; i++) {
		/* Mostly symbol starts and the bytes around them. */
		uint64_t a = i % 2 ? addr[next_rand(&x) % NR_RAND_SYMS] + next_rand(&x) % 3 - 1 :
				     base - 0x100 + next_rand(&x) % (in_order ? 0x200000 : 0x1200000);
		size_t want = find_expected(addr, NR_RAND_SYMS, a);
		const struct ana_ksym *s;
		char name[32];
		uint64_t off;

		s = ana_ksyms_find(k, a, &off);
		if (want == SIZE_MAX) {
			assert_null(s);
			continue;
		}
		assert_non_null(s);
		snprintf(name, sizeof(name), "s%zu", want);
		assert_string_equal(s->name, name);
		assert_int_equal(off, a - addr[want]);
	}
	ana_ksyms_free(k);
	free(text);
}

static void test_random_in_order(void **state)
{
	(void)state;
	check_random_table(true);
}

static void test_random_out_of_order(void **state)
{
	(void)state;
	check_random_table(false);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_parse_and_find),
		cmocka_unit_test(test_restricted),
		cmocka_unit_test(test_malformed),
		cmocka_unit_test(test_names_cut_out),
		cmocka_unit_test(test_large_table),
		cmocka_unit_test(test_random_in_order),
		cmocka_unit_test(test_random_out_of_order),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
