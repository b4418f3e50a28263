// SPDX-License-Identifier: MIT
/*
 * memtouch.c - touches three known buffers one page at a time, for the
 * memory tests (page faults recorded with -d --phys-data).
 *
 *   memtouch_global  a global array in .bss, GLOBAL_PAGES pages (touch_global)
 *   heap             a malloc()ed buffer of HEAP_PAGES pages, below glibc's
 *                    mmap threshold, so in the brk heap (touch_heap); a
 *                    second block makes the heap grow once more, as the
 *                    kernel names it "[heap]" only in the records of its
 *                    later growths (the first says "//anon")
 *   stack            an array on touch_stack's own frame, STACK_PAGES pages
 *
 * Each touch_* function writes one byte of every page of its buffer, and
 * nothing else: a page fault whose ip is in touch_X has its data address in
 * buffer X (or, for the first instruction of a code page, its own ip).  The
 * buffers' ranges, and the program's text, are printed on stdout:
 *
 *     global 0xSTART 0xEND
 *     heap 0xSTART 0xEND
 *     stack 0xSTART 0xEND
 *     text 0xSTART 0xEND
 *
 * Then it forks, and the child writes every page again: the pages are
 * shared copy-on-write then, present when the kernel samples the fault, so
 * those samples carry the pages' physical addresses too (a fault on a page
 * not yet there has none).  The parent waits for the child and exits 0.
 * --rounds N repeats the parent's writes (after the first round the pages
 * are there: no more faults).
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#if defined(__clang__)
#define NOINLINE __attribute__((noinline))
#else
#define NOINLINE __attribute__((noinline, noclone))
#endif

#define PAGE         4096u
#define GLOBAL_PAGES 64u
#define HEAP_PAGES   16u   /* 64 KiB: below the 128 KiB mmap threshold */
#define STACK_PAGES  32u
#define SPARE_BYTES  (100u << 10)   /* more than the heap's first growth leaves */

char memtouch_global[GLOBAL_PAGES * PAGE] __attribute__((aligned(4096)));

/* The linker's bounds of the program's text. */
extern const char __executable_start[], etext[];

NOINLINE void touch_global(unsigned pages);
NOINLINE void touch_heap(char *buf, unsigned pages);
NOINLINE void touch_stack(unsigned pages, uintptr_t range[2]);

NOINLINE void touch_global(unsigned pages)
{
	volatile char *p = memtouch_global;

	for (unsigned i = 0; i < pages; i++)
		p[(size_t)i * PAGE] = (char)i;
}

NOINLINE void touch_heap(char *buf, unsigned pages)
{
	volatile char *p = buf;

	for (unsigned i = 0; i < pages; i++)
		p[(size_t)i * PAGE] = (char)i;
}

/* @range is on the caller's stack, whose page is there already. */
NOINLINE void touch_stack(unsigned pages, uintptr_t range[2])
{
	char buf[STACK_PAGES * PAGE];
	volatile char *p = buf;

	range[0] = (uintptr_t)buf;
	range[1] = (uintptr_t)buf + sizeof(buf);
	/* From the top down, the way the stack grows. */
	for (unsigned i = pages; i-- > 0;)
		p[(size_t)i * PAGE] = (char)i;
	__asm__ volatile("" : : "r"(p) : "memory");
}

static void usage(FILE *f)
{
	fprintf(f, "usage: memtouch [--rounds N]\n");
}

int main(int argc, char **argv)
{
	unsigned rounds = 1;
	uintptr_t stack[2];
	char *heap, *spare;
	pid_t child;
	int status;

	for (int i = 1; i < argc; i++) {
		if (!strcmp(argv[i], "--rounds") && i + 1 < argc) {
			char *end;
			unsigned long v = strtoul(argv[++i], &end, 10);

			if (*end || !v || v > 1000) {
				usage(stderr);
				return 2;
			}
			rounds = (unsigned)v;
		} else if (!strcmp(argv[i], "--help")) {
			usage(stdout);
			return 0;
		} else {
			usage(stderr);
			return 2;
		}
	}
	heap = malloc((size_t)HEAP_PAGES * PAGE);
	spare = malloc(SPARE_BYTES);
	if (!heap || !spare)
		return 1;
	for (unsigned r = 0; r < rounds; r++) {
		touch_global(GLOBAL_PAGES);
		touch_heap(heap, HEAP_PAGES);
		touch_stack(STACK_PAGES, stack);
	}
	printf("global %p %p\n", (void *)memtouch_global,
	       (void *)(memtouch_global + sizeof(memtouch_global)));
	printf("heap %p %p\n", (void *)heap, (void *)(heap + (size_t)HEAP_PAGES * PAGE));
	printf("stack %p %p\n", (void *)stack[0], (void *)stack[1]);
	printf("text %p %p\n", (const void *)__executable_start, (const void *)etext);
	fflush(stdout);

	child = fork();
	if (child < 0)
		return 1;
	if (!child) {
		touch_global(GLOBAL_PAGES);
		touch_heap(heap, HEAP_PAGES);
		touch_stack(STACK_PAGES, stack);
		_exit(0);
	}
	if (waitpid(child, &status, 0) != child || !WIFEXITED(status) || WEXITSTATUS(status))
		return 1;
	free(spare);
	free(heap);
	return 0;
}
