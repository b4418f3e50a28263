// SPDX-License-Identifier: MIT
/* Unit tests for analyze/machine.c: threads from COMM/FORK/EXIT, address
 * spaces from MMAP2 (overlap replacement, fork copies, exec empties). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "analyze/resolve/resolve.h"

struct fixture {
	struct ana_dso_table *dsos;
	struct ana_machine *m;
};

static int setup(void **state)
{
	struct fixture *f = calloc(1, sizeof(*f));

	if (!f)
		return -1;
	f->dsos = ana_dso_table_new(NULL);
	f->m = ana_machine_new(f->dsos);
	*state = f;
	return f->dsos && f->m ? 0 : -1;
}

static int teardown(void **state)
{
	struct fixture *f = *state;

	ana_machine_free(f->m);
	ana_dso_table_free(f->dsos);
	free(f);
	return 0;
}

static void comm(struct ana_machine *m, uint32_t pid, uint32_t tid, const char *name, bool exec)
{
	struct ana_record r = { .type = PERF_RECORD_COMM };

	r.u.comm.pid = pid;
	r.u.comm.tid = tid;
	r.u.comm.comm = name;
	r.u.comm.exec = exec;
	assert_int_equal(ana_machine_process(m, &r), 0);
}

static void fork_(struct ana_machine *m, uint32_t type, uint32_t pid, uint32_t ppid,
		  uint32_t tid, uint32_t ptid)
{
	struct ana_record r = { .type = type };

	r.u.fork.pid = pid;
	r.u.fork.ppid = ppid;
	r.u.fork.tid = tid;
	r.u.fork.ptid = ptid;
	assert_int_equal(ana_machine_process(m, &r), 0);
}

static void mmap2(struct ana_machine *m, uint32_t pid, uint64_t addr, uint64_t len,
		  uint64_t pgoff, const char *file)
{
	struct ana_record r = { .type = PERF_RECORD_MMAP2 };

	r.u.mmap.pid = pid;
	r.u.mmap.tid = pid;
	r.u.mmap.addr = addr;
	r.u.mmap.len = len;
	r.u.mmap.pgoff = pgoff;
	r.u.mmap.prot = 5;  /* PROT_READ | PROT_EXEC */
	r.u.mmap.filename = file;
	assert_int_equal(ana_machine_process(m, &r), 0);
}

static void test_threads(void **state)
{
	struct fixture *f = *state;
	struct ana_thread *t;

	comm(f->m, 100, 100, "parent", false);
	fork_(f->m, PERF_RECORD_FORK, 100, 100, 101, 100);   /* a thread */
	fork_(f->m, PERF_RECORD_FORK, 200, 100, 200, 100);   /* a process */
	t = ana_machine_find_thread(f->m, 101);
	assert_non_null(t);
	assert_int_equal(ana_thread_pid(t), 100);
	assert_string_equal(ana_thread_comm(t), "parent");   /* inherited */
	comm(f->m, 100, 101, "worker", false);
	assert_string_equal(ana_thread_comm(t), "worker");
	assert_string_equal(ana_thread_comm(ana_machine_find_thread(f->m, 100)), "parent");

	fork_(f->m, PERF_RECORD_EXIT, 100, 100, 101, 101);
	assert_true(ana_thread_exited(t));
	assert_false(ana_thread_exited(ana_machine_find_thread(f->m, 100)));

	/* A thread no record named gets perf's ":TID". */
	t = ana_machine_thread(f->m, 300, 301);
	assert_non_null(t);
	assert_string_equal(ana_thread_comm(t), ":301");
	/* The idle task is perf's "swapper". */
	assert_string_equal(ana_thread_comm(ana_machine_thread(f->m, 0, 0)), "swapper");
	assert_int_equal(ana_machine_thread_count(f->m), 5);
	assert_null(ana_machine_find_thread(f->m, 999));

	/* A running thread synthesized as COMM then FORK keeps its name;
	 * a tid reused after an exit takes its new parent's. */
	comm(f->m, 500, 500, "proc", false);
	comm(f->m, 500, 501, "own-name", false);
	fork_(f->m, PERF_RECORD_FORK, 500, 500, 501, 500);
	assert_string_equal(ana_thread_comm(ana_machine_find_thread(f->m, 501)), "own-name");
	fork_(f->m, PERF_RECORD_EXIT, 500, 500, 501, 501);
	fork_(f->m, PERF_RECORD_FORK, 500, 500, 501, 500);
	assert_string_equal(ana_thread_comm(ana_machine_find_thread(f->m, 501)), "proc");

	/* Met first without its process (a tracepoint's next_pid), then
	 * named by a COMM of its real one: the same thread moves. */
	t = ana_machine_thread(f->m, 401, 401);
	comm(f->m, 400, 401, "late", false);
	assert_ptr_equal(ana_machine_find_thread(f->m, 401), t);
	assert_int_equal(ana_thread_pid(t), 400);
	assert_string_equal(ana_thread_comm(t), "late");
	assert_int_equal(ana_machine_thread_count(f->m), 8);
}

/* A command name's pointer outlives renames and is never reused for
 * another name (reports use it as the name's identity). */
static void test_comm_pointers(void **state)
{
	struct fixture *f = *state;
	struct ana_thread *t;
	const char *first, *second;
	int i;

	comm(f->m, 7, 7, "first", false);
	t = ana_machine_find_thread(f->m, 7);
	assert_non_null(t);
	first = ana_thread_comm(t);
	comm(f->m, 7, 7, "first", false);
	assert_ptr_equal(ana_thread_comm(t), first);   /* same name, same string */
	comm(f->m, 7, 7, "second", true);
	second = ana_thread_comm(t);
	assert_ptr_not_equal(second, first);
	assert_string_equal(first, "first");            /* still readable */
	for (i = 0; i < 100; i++) {
		char name[16];

		snprintf(name, sizeof(name), "n%d", i);
		comm(f->m, 7, 7, name, false);
		assert_ptr_not_equal(ana_thread_comm(t), first);
		assert_ptr_not_equal(ana_thread_comm(t), second);
	}
	assert_string_equal(first, "first");
	assert_string_equal(second, "second");
}

static void test_mmap_overlap(void **state)
{
	struct fixture *f = *state;
	const struct ana_map *map;
	struct ana_thread *t;

	comm(f->m, 10, 10, "app", false);
	t = ana_machine_find_thread(f->m, 10);
	mmap2(f->m, 10, 0x1000, 0x3000, 0, "/lib/a.so");      /* [0x1000, 0x4000) */
	mmap2(f->m, 10, 0x8000, 0x1000, 0, "/lib/b.so");
	assert_int_equal(ana_thread_map_count(t), 2);
	assert_null(ana_thread_find_map(t, 0xfff));
	assert_null(ana_thread_find_map(t, 0x4000));
	map = ana_thread_find_map(t, 0x3fff);
	assert_non_null(map);
	assert_string_equal(map->dso->path, "/lib/a.so");
	assert_int_equal(ana_map_file_offset(map, 0x3fff), 0x2fff);

	/* A mapping in the middle splits a.so in two; the right part's file
	 * offset moves with it. */
	mmap2(f->m, 10, 0x2000, 0x1000, 0x5000, "/lib/c.so");
	assert_int_equal(ana_thread_map_count(t), 4);
	map = ana_thread_find_map(t, 0x1800);
	assert_string_equal(map->dso->path, "/lib/a.so");
	assert_int_equal(map->end, 0x2000);
	map = ana_thread_find_map(t, 0x2800);
	assert_string_equal(map->dso->path, "/lib/c.so");
	assert_int_equal(ana_map_file_offset(map, 0x2800), 0x5800);
	map = ana_thread_find_map(t, 0x3800);
	assert_string_equal(map->dso->path, "/lib/a.so");
	assert_int_equal(map->start, 0x3000);
	assert_int_equal(ana_map_file_offset(map, 0x3800), 0x2800);

	/* One mapping covering several replaces them all. */
	mmap2(f->m, 10, 0x0, 0x9000, 0, "/lib/d.so");
	assert_int_equal(ana_thread_map_count(t), 1);
	assert_string_equal(ana_thread_find_map(t, 0x8800)->dso->path, "/lib/d.so");

	/* Same DSO twice: one table entry. */
	mmap2(f->m, 10, 0x10000, 0x1000, 0, "/lib/d.so");
	assert_ptr_equal(ana_thread_find_map(t, 0x10000)->dso,
			 ana_thread_find_map(t, 0x0)->dso);

	/* Anonymous executable memory is JIT code, named after the process. */
	mmap2(f->m, 10, 0x20000, 0x1000, 0, "//anon");
	assert_string_equal(ana_thread_find_map(t, 0x20000)->dso->path, "[JIT] tid 10");
}

static void test_fork_exec(void **state)
{
	struct fixture *f = *state;
	struct ana_thread *parent, *child, *thr;
	uint64_t gen;

	comm(f->m, 1, 1, "sh", false);
	mmap2(f->m, 1, 0x400000, 0x1000, 0, "/bin/sh");
	mmap2(f->m, 1, 0x7000000, 0x1000, 0, "/lib/libc.so.6");
	parent = ana_machine_find_thread(f->m, 1);

	fork_(f->m, PERF_RECORD_FORK, 2, 1, 2, 1);
	child = ana_machine_find_thread(f->m, 2);
	assert_string_equal(ana_thread_comm(child), "sh");
	assert_string_equal(ana_thread_find_map(child, 0x400000)->dso->path, "/bin/sh");

	/*
	 * The child's address space is a copy: changing it leaves the
	 * parent's.  After an exec the old image answers where the new one
	 * has nothing, until the process is seen in user mode: a sample
	 * inside execve still holds the old image's user registers (its
	 * syscall in the old libc).
	 */
	assert_int_equal(*ana_machine_pre_exec(f->m), 0);
	comm(f->m, 2, 2, "workload", true);
	assert_string_equal(ana_thread_comm(child), "workload");
	assert_int_equal(*ana_machine_pre_exec(f->m), 1);
	assert_string_equal(ana_thread_find_map(child, 0x400000)->dso->path, "/bin/sh");
	mmap2(f->m, 2, 0x400000, 0x2000, 0, "/usr/bin/workload");
	assert_string_equal(ana_thread_find_map(child, 0x400000)->dso->path, "/usr/bin/workload");
	assert_string_equal(ana_thread_find_map(child, 0x7000000)->dso->path, "/lib/libc.so.6");
	assert_string_equal(ana_thread_find_map(parent, 0x400000)->dso->path, "/bin/sh");
	assert_false(ana_machine_ran_user(f->m, 1));
	gen = ana_machine_space_gen(f->m, child);
	assert_true(ana_machine_ran_user(f->m, 2));
	assert_true(ana_machine_space_gen(f->m, child) != gen);
	assert_int_equal(*ana_machine_pre_exec(f->m), 0);
	assert_null(ana_thread_find_map(child, 0x7000000));
	assert_string_equal(ana_thread_find_map(child, 0x400000)->dso->path, "/usr/bin/workload");
	assert_false(ana_machine_ran_user(f->m, 2));
	assert_string_equal(ana_thread_find_map(parent, 0x7000000)->dso->path, "/lib/libc.so.6");

	/* Threads share their process's address space. */
	fork_(f->m, PERF_RECORD_FORK, 2, 2, 3, 2);
	thr = ana_machine_find_thread(f->m, 3);
	mmap2(f->m, 2, 0x700000, 0x1000, 0, "/lib/libm.so");
	assert_non_null(ana_thread_find_map(thr, 0x700000));
	assert_non_null(ana_thread_find_map(child, 0x700000));
	assert_null(ana_thread_find_map(parent, 0x700000));

	/* Kernel mappings are left to ana_ksyms. */
	{
		struct ana_record r = { .type = PERF_RECORD_MMAP2 };

		r.u.mmap.pid = UINT32_MAX;
		r.u.mmap.addr = 0xffffffff81000000ull;
		r.u.mmap.len = 0x1000000;
		r.u.mmap.filename = "[kernel.kallsyms]_text";
		assert_int_equal(ana_machine_process(f->m, &r), 0);
	}
	/* Overflowing and empty mappings are ignored, not trusted. */
	mmap2(f->m, 2, UINT64_MAX - 10, 0x1000, 0, "/bad");
	mmap2(f->m, 2, 0x900000, 0, 0, "/bad");
	assert_null(ana_thread_find_map(child, 0x900000));
}

/* Resolve @addr in @mode for @t and check what it is and where. */
static void expect_loc(struct fixture *f, struct ana_thread *t, unsigned mode, uint64_t addr,
		       bool kernel, enum ana_loc_kind kind, const char *dso)
{
	struct ana_loc loc;

	ana_machine_resolve(f->m, t, mode, addr, addr, 0, &loc);
	assert_int_equal(loc.kernel, kernel);
	assert_int_equal(loc.kind, kind);
	assert_string_equal(ana_loc_dso_name(&loc), dso);
}

static void test_resolve_unknown(void **state)
{
	struct fixture *f = *state;
	struct ana_thread *t;

	comm(f->m, 5, 5, "x", false);
	t = ana_machine_find_thread(f->m, 5);
	mmap2(f->m, 5, 0x1000, 0x1000, 0, "/nonexistent/lib.so");
	expect_loc(f, t, PERF_RECORD_MISC_USER, 0x500, false, ANA_LOC_UNKNOWN, "[unknown]");
	expect_loc(f, t, PERF_RECORD_MISC_USER, 0x1100, false, ANA_LOC_NO_FILE, "lib.so");
	/* Kernel addresses without KSYMS stay unknown, but are kernel ones;
	 * where the mode says nothing, the address decides. */
	expect_loc(f, t, PERF_RECORD_MISC_KERNEL, 0xffffffff81000000ull, true, ANA_LOC_UNKNOWN,
		   "[kernel.kallsyms]");
	expect_loc(f, t, PERF_RECORD_MISC_CPUMODE_UNKNOWN, 0xffffffff81000000ull, true,
		   ANA_LOC_UNKNOWN, "[kernel.kallsyms]");
	/*
	 * A user-mode address with the top bit set is what a frame-pointer
	 * walk read off a user stack, no kernel code: [unknown] in [unknown],
	 * as perf has it.
	 */
	expect_loc(f, t, PERF_RECORD_MISC_USER, 0xdfdf000000000000ull, false, ANA_LOC_UNKNOWN,
		   "[unknown]");
}

/*
 * Resolved addresses are cached: a remap, an exec, a fork and new kernel
 * symbols must each be seen by the next lookup, and the stack key must
 * change with them.
 */
static void test_resolve_after_changes(void **state)
{
	static const char ksyms[] = "ffffffff81000000 T first_name\n";
	static const char ksyms2[] = "ffffffff81000000 T second_name\n";
	struct fixture *f = *state;
	struct ana_sample smp = { .pid = 9, .tid = 9, .ip = 0x1100 };
	struct ana_thread *t, *child;
	struct ana_loc loc;
	uint64_t key;

	comm(f->m, 9, 9, "app", false);
	t = ana_machine_find_thread(f->m, 9);
	mmap2(f->m, 9, 0x1000, 0x1000, 0, "/nonexistent/a.so");
	key = ana_stack_key(f->m, NULL, t, &smp);
	assert_int_not_equal(key, 0);
	assert_int_equal(ana_stack_key(f->m, NULL, t, &smp), key);
	ana_machine_resolve(f->m, t, PERF_RECORD_MISC_USER, 0x1100, 0x1100, 0, &loc);
	assert_string_equal(ana_loc_dso_name(&loc), "a.so");
	ana_machine_resolve(f->m, t, PERF_RECORD_MISC_USER, 0x1100, 0x1100, 0, &loc);
	assert_string_equal(ana_loc_dso_name(&loc), "a.so");

	/* Remapped: another DSO at the same address. */
	mmap2(f->m, 9, 0x1000, 0x1000, 0, "/nonexistent/b.so");
	assert_int_not_equal(ana_stack_key(f->m, NULL, t, &smp), key);
	key = ana_stack_key(f->m, NULL, t, &smp);
	ana_machine_resolve(f->m, t, PERF_RECORD_MISC_USER, 0x1100, 0x1100, 0, &loc);
	assert_string_equal(ana_loc_dso_name(&loc), "b.so");
	assert_int_equal(loc.map->start, 0x1000);

	/* A forked process has an address space (and key) of its own. */
	fork_(f->m, PERF_RECORD_FORK, 10, 9, 10, 9);
	child = ana_machine_find_thread(f->m, 10);
	assert_int_not_equal(ana_stack_key(f->m, NULL, child, &smp), key);
	ana_machine_resolve(f->m, child, PERF_RECORD_MISC_USER, 0x1100, 0x1100, 0, &loc);
	assert_string_equal(ana_loc_dso_name(&loc), "b.so");

	/* Exec empties it, once the process is seen in user mode (until then
	 * the old image answers where the new one has nothing). */
	comm(f->m, 9, 9, "app2", true);
	assert_int_not_equal(ana_stack_key(f->m, NULL, t, &smp), key);
	key = ana_stack_key(f->m, NULL, t, &smp);
	ana_machine_resolve(f->m, t, PERF_RECORD_MISC_USER, 0x1100, 0x1100, 0, &loc);
	assert_string_equal(ana_loc_dso_name(&loc), "b.so");
	assert_true(ana_machine_ran_user(f->m, 9));
	assert_int_not_equal(ana_stack_key(f->m, NULL, t, &smp), key);
	ana_machine_resolve(f->m, t, PERF_RECORD_MISC_USER, 0x1100, 0x1100, 0, &loc);
	assert_int_equal(loc.kind, ANA_LOC_UNKNOWN);
	ana_machine_resolve(f->m, child, PERF_RECORD_MISC_USER, 0x1100, 0x1100, 0, &loc);
	assert_string_equal(ana_loc_dso_name(&loc), "b.so");

	/* Kernel addresses follow the kernel symbols in use. */
	key = ana_stack_key(f->m, NULL, NULL, &smp);
	ana_machine_set_ksyms(f->m, ana_ksyms_parse(ksyms, sizeof(ksyms) - 1));
	assert_int_not_equal(ana_stack_key(f->m, NULL, NULL, &smp), key);
	ana_machine_resolve(f->m, t, PERF_RECORD_MISC_KERNEL, 0xffffffff81000010ull,
			    0xffffffff81000010ull, 0, &loc);
	assert_int_equal(loc.kind, ANA_LOC_KERNEL);
	assert_string_equal(loc.ksym->name, "first_name");
	ana_machine_set_ksyms(f->m, ana_ksyms_parse(ksyms2, sizeof(ksyms2) - 1));
	ana_machine_resolve(f->m, t, PERF_RECORD_MISC_KERNEL, 0xffffffff81000010ull,
			    0xffffffff81000010ull, 0, &loc);
	assert_string_equal(loc.ksym->name, "second_name");
	assert_int_equal(loc.offset, 0x10);
}

struct walked {
	enum ana_loc_kind kind[16];
	uint64_t addr[16];
	unsigned n;
};

static int keep_frame(void *ctx, const struct ana_loc *loc, unsigned depth)
{
	struct walked *w = ctx;

	(void)depth;
	if (w->n < 16) {
		w->kind[w->n] = loc->kind;
		w->addr[w->n++] = loc->addr;
	}
	return 0;
}

/*
 * A frame-pointer chain that runs on, after its last mapped return
 * address, into addresses where nothing is mapped ends there with one
 * marker; unmapped frames between mapped ones (a JIT) stay; the sampled pc
 * always stays; ANA_WALK_RAW gives the chain as recorded.
 */
static void test_broken_fp_chain(void **state)
{
	struct fixture *f = *state;
	uint64_t chain[] = { PERF_CONTEXT_KERNEL, 0xffffffff81000010ull, PERF_CONTEXT_USER,
			     0x1100, 0x1200, 0x9000, 0x1300, 0x7777, 0x8888, 0x7777 };
	struct ana_sample smp = { .pid = 3, .tid = 3, .cpumode = PERF_RECORD_MISC_KERNEL,
				  .callchain = chain, .nr_callchain = 10 };
	const char *names[4];
	struct ana_thread *t;
	struct walked w = { .n = 0 };
	size_t n;

	comm(f->m, 3, 3, "py", false);
	t = ana_machine_find_thread(f->m, 3);
	mmap2(f->m, 3, 0x1000, 0x1000, 0, "/nonexistent/libpython.so");
	assert_int_equal(ana_stack_walk(f->m, NULL, t, &smp, 0, 0, keep_frame, &w), 6);
	assert_true(w.kind[0] != ANA_LOC_BROKEN_FP);
	assert_int_equal(w.addr[1], 0x1100);
	assert_int_equal(w.addr[3], 0x9000);   /* between mapped frames: kept */
	assert_int_equal(w.addr[4], 0x1300);
	assert_int_equal(w.kind[5], ANA_LOC_BROKEN_FP);
	assert_int_equal(w.addr[5], 0x7777);
	assert_int_equal(ana_machine_broken_chains(f->m, names, 4, &n), 1);
	assert_int_equal(n, 1);
	assert_string_equal(names[0], "libpython.so");
	/* As recorded, on request. */
	w.n = 0;
	assert_int_equal(ana_stack_walk(f->m, NULL, t, &smp, ANA_WALK_RAW, 0, keep_frame, &w), 8);
	assert_int_equal(w.addr[7], 0x7777);
	assert_int_equal(w.kind[7], ANA_LOC_UNKNOWN);
	/* A user pc in nothing mapped, with nothing after it: no marker. */
	smp.nr_callchain = 4;
	chain[3] = 0x9000;
	w.n = 0;
	assert_int_equal(ana_stack_walk(f->m, NULL, t, &smp, 0, 0, keep_frame, &w), 2);
	assert_int_equal(w.kind[1], ANA_LOC_UNKNOWN);
	/* ... and with garbage after it, the pc stays and the rest goes. */
	smp.nr_callchain = 6;
	chain[4] = 0x5555;
	w.n = 0;
	assert_int_equal(ana_stack_walk(f->m, NULL, t, &smp, 0, 0, keep_frame, &w), 3);
	assert_int_equal(w.addr[1], 0x9000);
	assert_int_equal(w.kind[2], ANA_LOC_BROKEN_FP);
	assert_int_equal(ana_machine_broken_chains(f->m, names, 4, &n), 2);
	assert_int_equal(n, 1);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_threads, setup, teardown),
		cmocka_unit_test_setup_teardown(test_comm_pointers, setup, teardown),
		cmocka_unit_test_setup_teardown(test_mmap_overlap, setup, teardown),
		cmocka_unit_test_setup_teardown(test_fork_exec, setup, teardown),
		cmocka_unit_test_setup_teardown(test_resolve_unknown, setup, teardown),
		cmocka_unit_test_setup_teardown(test_resolve_after_changes, setup, teardown),
		cmocka_unit_test_setup_teardown(test_broken_fp_chain, setup, teardown),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
