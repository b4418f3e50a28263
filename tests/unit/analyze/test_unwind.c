// SPDX-License-Identifier: MIT
/*
 * Unit tests for analyze/unwind.c: the bounds of reads from a sample's stack
 * copy under hostile sizes, and (on x86_64) a real unwind: the test captures
 * its own registers and stack inside a chain of functions, describes its
 * executable's mappings to a machine as MMAP2 records would, and checks that
 * libdwfl walks the chain back through CFI - and that a short copy ends in
 * the truncation marker, never a wrong frame.
 */
#include <elf.h>
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include <cmocka.h>

#include "analyze/resolve/resolve.h"

/* ---- stack copy bounds --------------------------------------------------- */

static const struct ana_regs_arch *x86(void)
{
	return ana_regs_arch(EM_X86_64);
}

/* A sample with only SP (perf index 7) and IP (8) sampled. */
static void sample_init(struct ana_sample *s, uint64_t *regs, uint64_t sp, uint64_t ip,
			const uint8_t *stack, uint64_t size, uint64_t dyn)
{
	memset(s, 0, sizeof(*s));
	regs[0] = sp;
	regs[1] = ip;
	s->user_abi = PERF_SAMPLE_REGS_ABI_64;
	s->user_regs_mask = 1ULL << 7 | 1ULL << 8;
	s->user_regs = regs;
	s->user_stack = stack;
	s->user_stack_size = size;
	s->user_stack_dyn_size = dyn;
}

static void test_stack_read_inside(void **state)
{
	uint8_t stack[32];
	uint64_t regs[2], v;
	struct ana_sample s;
	struct ana_unwind_stack st;
	unsigned i;

	for (i = 0; i < sizeof(stack); i++)
		stack[i] = (uint8_t)i;
	sample_init(&s, regs, 0x1000, 0x400000, stack, sizeof(stack), sizeof(stack));
	assert_true(ana_unwind_stack_init(&st, &s, x86()));
	assert_true(st.full);
	assert_true(ana_unwind_stack_read(&st, 0x1000, &v));
	assert_int_equal(v, 0x0706050403020100ULL);
	assert_true(ana_unwind_stack_read(&st, 0x1000 + 24, &v));   /* last word */
	assert_int_equal(v, 0x1f1e1d1c1b1a1918ULL);
	assert_true(ana_unwind_stack_read(&st, 0x1003, &v));        /* unaligned */
	assert_int_equal(v, 0x0a09080706050403ULL);
}

static void test_stack_read_outside(void **state)
{
	uint8_t stack[32] = { 0 };
	uint64_t regs[2], v = 42;
	struct ana_sample s;
	struct ana_unwind_stack st;

	sample_init(&s, regs, 0x1000, 0x400000, stack, sizeof(stack), sizeof(stack));
	assert_true(ana_unwind_stack_init(&st, &s, x86()));
	assert_false(ana_unwind_stack_read(&st, 0xfff, &v));        /* below sp */
	assert_false(ana_unwind_stack_read(&st, 0x1000 + 25, &v));  /* straddles the end */
	assert_false(ana_unwind_stack_read(&st, 0x1000 + 32, &v));
	assert_false(ana_unwind_stack_read(&st, UINT64_MAX - 3, &v));
	assert_false(ana_unwind_stack_read(&st, 0, &v));
	assert_int_equal(v, 42);
}

/* dyn_size larger than the copy: only the copy is readable. */
static void test_stack_dyn_above_size(void **state)
{
	uint8_t *stack = malloc(16);
	uint64_t regs[2], v;
	struct ana_sample s;
	struct ana_unwind_stack st;

	assert_non_null(stack);
	memset(stack, 0xab, 16);
	sample_init(&s, regs, 0x1000, 0x400000, stack, 16, 1ULL << 40);
	assert_true(ana_unwind_stack_init(&st, &s, x86()));
	assert_int_equal(st.len, 16);
	assert_true(ana_unwind_stack_read(&st, 0x1008, &v));
	assert_false(ana_unwind_stack_read(&st, 0x1010, &v));
	assert_false(ana_unwind_stack_read(&st, 0x1000 + 4096, &v));
	free(stack);
}

/* A short dynamic size shrinks what is readable and means "not full". */
static void test_stack_dyn_below_size(void **state)
{
	uint8_t stack[64] = { 0 };
	uint64_t regs[2], v;
	struct ana_sample s;
	struct ana_unwind_stack st;

	sample_init(&s, regs, 0x1000, 0x400000, stack, sizeof(stack), 8);
	assert_true(ana_unwind_stack_init(&st, &s, x86()));
	assert_false(st.full);
	assert_true(ana_unwind_stack_read(&st, 0x1000, &v));
	assert_false(ana_unwind_stack_read(&st, 0x1001, &v));
	assert_false(ana_unwind_stack_read(&st, 0x1008, &v));
}

/* sp so high that the copy would wrap: cut at the top, no wrapped reads. */
static void test_stack_wraps(void **state)
{
	uint8_t *stack = calloc(1, 64);
	uint64_t regs[2], v;
	struct ana_sample s;
	struct ana_unwind_stack st;

	assert_non_null(stack);
	sample_init(&s, regs, UINT64_MAX - 20, 0x400000, stack, 64, 64);
	assert_true(ana_unwind_stack_init(&st, &s, x86()));
	assert_int_equal(st.len, 20);
	assert_true(ana_unwind_stack_read(&st, UINT64_MAX - 20, &v));
	assert_true(ana_unwind_stack_read(&st, UINT64_MAX - 8, &v));  /* sp + 12: last word */
	assert_false(ana_unwind_stack_read(&st, UINT64_MAX - 7, &v));
	assert_false(ana_unwind_stack_read(&st, 0, &v));
	free(stack);
}

/* Too small to hold a word, missing pieces: nothing is readable. */
static void test_stack_unusable(void **state)
{
	uint8_t stack[8] = { 0 };
	uint64_t regs[2], v;
	struct ana_sample s;
	struct ana_unwind_stack st;

	sample_init(&s, regs, 0x1000, 0x400000, stack, 4, 4);
	assert_true(ana_unwind_stack_init(&st, &s, x86()));
	assert_false(ana_unwind_stack_read(&st, 0x1000, &v));

	sample_init(&s, regs, 0x1000, 0x400000, NULL, 8, 8);
	assert_false(ana_unwind_stack_init(&st, &s, x86()));
	assert_false(ana_unwind_stack_read(&st, 0x1000, &v));

	sample_init(&s, regs, 0x1000, 0x400000, stack, 8, 8);
	s.user_regs_mask = 1ULL << 8;           /* no SP */
	assert_false(ana_unwind_stack_init(&st, &s, x86()));

	sample_init(&s, regs, 0x1000, 0x400000, stack, 8, 8);
	s.user_abi = PERF_SAMPLE_REGS_ABI_NONE; /* a kernel thread */
	assert_false(ana_unwind_stack_init(&st, &s, x86()));
	assert_false(ana_unwind_stack_init(&st, &s, NULL));
}

static void test_unwinder_arch(void **state)
{
	struct ana_unwinder *u;

	errno = 0;
	assert_null(ana_unwinder_new(EM_386, NULL));
	assert_int_equal(errno, ENOTSUP);
	u = ana_unwinder_new(EM_X86_64, NULL);
	assert_non_null(u);
	ana_unwinder_free(u);
	ana_unwinder_free(NULL);
}

/* ---- a real unwind of this test's own stack (x86_64) ---------------------- */

#if defined(__x86_64__)

#define CAPTURE_MAX 8192

struct capture {
	uint64_t regs[24];     /* every perf register up to R15, by perf index */
	uint8_t stack[CAPTURE_MAX];
	size_t len;
};

static struct capture cap;

/* Copy the stack from sp up; the bytes belong to frames ASan knows nothing
 * of, so the copy must not be instrumented. */
__attribute__((noinline, no_sanitize_address))
static void copy_stack(uint64_t sp)
{
	const volatile uint8_t *src = (const uint8_t *)(uintptr_t)sp;
	size_t i;

	for (i = 0; i < cap.len; i++)
		cap.stack[i] = src[i];
}

/* The innermost frame: take the registers, then the stack. */
__attribute__((noinline))
static int chain_leaf(int x)
{
	uint64_t ip, sp, bp, bx, r12, r13, r14, r15;

	__asm__ volatile("lea 0(%%rip), %0\n\t"
			 "mov %%rsp, %1\n\t"
			 "mov %%rbp, %2\n\t"
			 "mov %%rbx, %3\n\t"
			 "mov %%r12, %4\n\t"
			 "mov %%r13, %5\n\t"
			 "mov %%r14, %6\n\t"
			 "mov %%r15, %7\n\t"
			 : "=r"(ip), "=m"(sp), "=m"(bp), "=m"(bx), "=m"(r12), "=m"(r13),
			   "=m"(r14), "=m"(r15));
	cap.regs[8] = ip;
	cap.regs[7] = sp;
	cap.regs[6] = bp;
	cap.regs[1] = bx;
	cap.regs[20] = r12;
	cap.regs[21] = r13;
	cap.regs[22] = r14;
	cap.regs[23] = r15;
	copy_stack(sp);
	return x + 1;
}

__attribute__((noinline))
static int chain_mid(int x)
{
	int r = chain_leaf(x * 3);

	__asm__ volatile("" ::: "memory");
	return r + 2;
}

__attribute__((noinline))
static int chain_top(int x)
{
	int r = chain_mid(x + 5);

	__asm__ volatile("" ::: "memory");
	return r * 2;
}

struct fixture {
	struct ana_dso_table *dsos;
	struct ana_machine *m;
	struct ana_unwinder *u;
	struct ana_thread *t;
};

/* Describe this process's mappings of its executable as MMAP2 records. */
static int load_self_maps(struct ana_machine *m)
{
	char exe[4096], line[4608];
	ssize_t n = readlink("/proc/self/exe", exe, sizeof(exe) - 1);
	FILE *f = fopen("/proc/self/maps", "r");
	int found = 0;

	if (n <= 0 || !f) {
		if (f)
			fclose(f);
		return -1;
	}
	exe[n] = 0;
	while (fgets(line, sizeof(line), f)) {
		unsigned long long lo, hi, off;
		char perms[8], path[4096];
		struct ana_record r = { .type = PERF_RECORD_MMAP2 };

		path[0] = 0;
		if (sscanf(line, "%llx-%llx %7s %llx %*s %*s %4095s", &lo, &hi, perms, &off,
			   path) < 4 || strcmp(path, exe))
			continue;
		r.misc = PERF_RECORD_MISC_USER;
		r.u.mmap.pid = r.u.mmap.tid = (uint32_t)getpid();
		r.u.mmap.addr = lo;
		r.u.mmap.len = hi - lo;
		r.u.mmap.pgoff = off;
		r.u.mmap.prot = (perms[0] == 'r' ? PROT_READ : 0) |
				(perms[1] == 'w' ? PROT_WRITE : 0) |
				(perms[2] == 'x' ? PROT_EXEC : 0);
		r.u.mmap.filename = exe;
		if (ana_machine_process(m, &r))
			break;
		found++;
	}
	fclose(f);
	return found ? 0 : -1;
}

static int setup_self(void **state)
{
	struct fixture *f = calloc(1, sizeof(*f));

	if (!f)
		return -1;
	*state = f;
	f->dsos = ana_dso_table_new(NULL);
	f->m = f->dsos ? ana_machine_new(f->dsos) : NULL;
	f->u = f->dsos ? ana_unwinder_new(EM_X86_64, f->dsos) : NULL;
	if (!f->m || !f->u || load_self_maps(f->m))
		return -1;
	f->t = ana_machine_thread(f->m, (uint32_t)getpid(), (uint32_t)getpid());
	return f->t ? 0 : -1;
}

static int teardown_self(void **state)
{
	struct fixture *f = *state;

	ana_unwinder_free(f->u);
	ana_machine_free(f->m);
	ana_dso_table_free(f->dsos);
	free(f);
	return 0;
}

struct frames {
	char names[32][64];
	enum ana_loc_kind kinds[32];
	bool fallback[32];
	unsigned n;
};

static int collect(void *ctx, const struct ana_loc *loc, unsigned depth)
{
	struct frames *fr = ctx;
	char buf[64];

	assert_int_equal(depth, fr->n);
	if (fr->n == 32)
		return 1;
	snprintf(fr->names[fr->n], sizeof(fr->names[0]), "%s",
		 ana_loc_sym_name(loc, buf, sizeof(buf)));
	fr->kinds[fr->n] = loc->kind;
	fr->fallback[fr->n] = loc->fallback;
	fr->n++;
	return 0;
}

/* A sample as the kernel would write it from the capture. */
static void capture_sample(struct ana_sample *s, uint64_t *regs, size_t size, size_t dyn)
{
	uint64_t mask = 0;
	unsigned i, n = 0;

	for (i = 0; i < 24; i++) {
		if (i >= 9 && i < 16)   /* FLAGS and segment registers: not needed */
			continue;
		mask |= 1ULL << i;
		regs[n++] = cap.regs[i];
	}
	memset(s, 0, sizeof(*s));
	s->ip = cap.regs[8];
	s->cpumode = PERF_RECORD_MISC_USER;
	s->user_abi = PERF_SAMPLE_REGS_ABI_64;
	s->user_regs_mask = mask;
	s->user_regs = regs;
	s->user_stack = cap.stack;
	s->user_stack_size = size;
	s->user_stack_dyn_size = dyn;
}

static void test_unwind_self(void **state)
{
	struct fixture *f = *state;
	struct ana_unwind_stats st;
	struct ana_sample s;
	struct frames fr = { .n = 0 };
	uint64_t regs[24];

	cap.len = CAPTURE_MAX;
	assert_int_equal(chain_top(1), ((1 + 5) * 3 + 1 + 2) * 2);
	capture_sample(&s, regs, cap.len, cap.len);
	assert_true(ana_unwind_usable(f->u, &s));
	ana_stack_walk(f->m, f->u, f->t, &s, 0, 0, collect, &fr);
	assert_true(fr.n >= 4);
	assert_string_equal(fr.names[0], "chain_leaf");
	assert_string_equal(fr.names[1], "chain_mid");
	assert_string_equal(fr.names[2], "chain_top");
	assert_string_equal(fr.names[3], "test_unwind_self");
	assert_false(fr.fallback[1]);
	assert_false(fr.fallback[3]);

	/* Once more: the DSO is reported already, the result is the same. */
	fr.n = 0;
	ana_stack_walk(f->m, f->u, f->t, &s, 0, 3, collect, &fr);
	assert_int_equal(fr.n, 3);
	assert_string_equal(fr.names[2], "chain_top");
	ana_unwind_get_stats(f->u, &st);
	assert_int_equal(st.samples, 2);
	assert_int_equal(st.sessions, 1);
}

/* A copy that ends inside chain_mid's frame: chain_leaf and chain_mid are
 * found, then the marker; never a frame made up from what lies beyond. */
static void test_unwind_truncated(void **state)
{
	struct fixture *f = *state;
	struct ana_unwind_stats st;
	struct ana_sample s;
	struct frames full = { .n = 0 }, fr = { .n = 0 };
	uint64_t regs[24];
	size_t len;
	unsigned i, truncated = 0;

	cap.len = CAPTURE_MAX;
	chain_top(2);
	capture_sample(&s, regs, cap.len, cap.len);
	ana_stack_walk(f->m, f->u, f->t, &s, 0, 0, collect, &full);
	assert_true(full.n >= 4);

	/* Every copy length from one word up, each a full copy. */
	for (len = 8; len <= 512; len += 8) {
		fr.n = 0;
		capture_sample(&s, regs, len, len);
		ana_stack_walk(f->m, f->u, f->t, &s, 0, 0, collect, &fr);
		assert_true(fr.n >= 1);
		for (i = 0; i + 1 < fr.n; i++)
			assert_string_equal(fr.names[i], full.names[i]);
		if (fr.kinds[fr.n - 1] == ANA_LOC_TRUNCATED) {
			assert_string_equal(fr.names[fr.n - 1], "[truncated]");
			truncated++;
		} else {
			assert_string_equal(fr.names[fr.n - 1], full.names[fr.n - 1]);
		}
	}
	assert_true(truncated > 0);
	ana_unwind_get_stats(f->u, &st);
	assert_true(st.truncated >= truncated);
}

/* A copy that ends before the stack does but is not "full" (dyn < size):
 * the stack just ends, without a marker and without wrong frames. */
static void test_unwind_short_dyn(void **state)
{
	struct fixture *f = *state;
	struct ana_sample s;
	struct frames fr = { .n = 0 };
	uint64_t regs[24];
	unsigned i;

	cap.len = CAPTURE_MAX;
	chain_top(3);
	capture_sample(&s, regs, CAPTURE_MAX, 16);
	ana_stack_walk(f->m, f->u, f->t, &s, 0, 0, collect, &fr);
	assert_true(fr.n >= 1);
	assert_string_equal(fr.names[0], "chain_leaf");
	for (i = 0; i < fr.n; i++)
		assert_int_not_equal(fr.kinds[i], ANA_LOC_TRUNCATED);
	assert_true(fr.n <= 2);
}

#endif /* __x86_64__ */

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_stack_read_inside),
		cmocka_unit_test(test_stack_read_outside),
		cmocka_unit_test(test_stack_dyn_above_size),
		cmocka_unit_test(test_stack_dyn_below_size),
		cmocka_unit_test(test_stack_wraps),
		cmocka_unit_test(test_stack_unusable),
		cmocka_unit_test(test_unwinder_arch),
	};
#if defined(__x86_64__)
	const struct CMUnitTest self_tests[] = {
		cmocka_unit_test(test_unwind_self),
		cmocka_unit_test(test_unwind_truncated),
		cmocka_unit_test(test_unwind_short_dyn),
	};
#endif
	int failed = cmocka_run_group_tests(tests, NULL, NULL);

#if defined(__x86_64__)
	failed += cmocka_run_group_tests(self_tests, setup_self, teardown_self);
#endif
	return failed;
}
