// SPDX-License-Identifier: MIT
/* Unit tests for analyze/regs.c: perf -> DWARF register numbering for
 * x86_64 and aarch64, and picking values out of a sampled register block. */
#include <elf.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include "analyze/resolve/resolve.h"

static void test_unknown_machine(void **state)
{
	assert_null(ana_regs_arch(EM_386));
	assert_null(ana_regs_arch(0));
	assert_non_null(ana_regs_arch(EM_X86_64));
	assert_non_null(ana_regs_arch(EM_AARCH64));
}

/* x86-64 psABI DWARF numbers against perf_regs.h (PERF_REG_X86_*). */
static void test_x86_64_table(void **state)
{
	static const struct { unsigned dwarf, perf; const char *name; } want[] = {
		{ 0, 0, "rax" }, { 1, 3, "rdx" }, { 2, 2, "rcx" }, { 3, 1, "rbx" },
		{ 4, 4, "rsi" }, { 5, 5, "rdi" }, { 6, 6, "rbp" }, { 7, 7, "rsp" },
		{ 8, 16, "r8" }, { 9, 17, "r9" }, { 10, 18, "r10" }, { 11, 19, "r11" },
		{ 12, 20, "r12" }, { 13, 21, "r13" }, { 14, 22, "r14" }, { 15, 23, "r15" },
		{ 16, 8, "rip" },
	};
	const struct ana_regs_arch *a = ana_regs_arch(EM_X86_64);
	size_t i;

	assert_int_equal(a->nr_dwarf, 17);
	for (i = 0; i < sizeof(want) / sizeof(want[0]); i++) {
		if (a->perf_of_dwarf[want[i].dwarf] != want[i].perf)
			fail_msg("DWARF %u (%s) maps to perf %u, want %u", want[i].dwarf,
				 want[i].name, a->perf_of_dwarf[want[i].dwarf], want[i].perf);
	}
	assert_int_equal(a->perf_sp, 7);
	assert_int_equal(a->perf_ip, 8);
	assert_int_equal(a->dwarf_fp, 6);
}

static void test_aarch64_table(void **state)
{
	const struct ana_regs_arch *a = ana_regs_arch(EM_AARCH64);
	unsigned i;

	assert_int_equal(a->nr_dwarf, 32);
	for (i = 0; i < 31; i++)
		assert_int_equal(a->perf_of_dwarf[i], i);   /* x0..x30 */
	assert_int_equal(a->perf_of_dwarf[31], 31);     /* sp */
	assert_int_equal(a->perf_sp, 31);
	assert_int_equal(a->perf_ip, 32);
	assert_int_equal(a->dwarf_fp, 29);
}

/* The block holds only the masked registers, in bit order. */
static void test_value_sparse_mask(void **state)
{
	const uint64_t mask = (1ULL << 1) | (1ULL << 7) | (1ULL << 8) | (1ULL << 23);
	const uint64_t regs[] = { 0x11, 0x77, 0x88, 0x2323 };
	uint64_t v = 0xdead;

	assert_true(ana_regs_value(mask, regs, 1, &v));
	assert_int_equal(v, 0x11);
	assert_true(ana_regs_value(mask, regs, 7, &v));
	assert_int_equal(v, 0x77);
	assert_true(ana_regs_value(mask, regs, 8, &v));
	assert_int_equal(v, 0x88);
	assert_true(ana_regs_value(mask, regs, 23, &v));
	assert_int_equal(v, 0x2323);
	v = 0xdead;
	assert_false(ana_regs_value(mask, regs, 0, &v));
	assert_false(ana_regs_value(mask, regs, 22, &v));
	assert_false(ana_regs_value(mask, regs, 64, &v));
	assert_false(ana_regs_value(mask, regs, 1000, &v));
	assert_false(ana_regs_value(mask, NULL, 1, &v));
	assert_int_equal(v, 0xdead);
}

static void test_value_bit63(void **state)
{
	const uint64_t regs[] = { 1, 2 };
	uint64_t v;

	assert_true(ana_regs_value(1ULL | 1ULL << 63, regs, 63, &v));
	assert_int_equal(v, 2);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_unknown_machine),
		cmocka_unit_test(test_x86_64_table),
		cmocka_unit_test(test_aarch64_table),
		cmocka_unit_test(test_value_sparse_mask),
		cmocka_unit_test(test_value_bit63),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
