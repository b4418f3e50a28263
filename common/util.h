/* SPDX-License-Identifier: MIT */
/*
 * common/util.h - small helpers of amber's own tools, not part of the
 * installed library's API: the one growth helper for arrays, CPU lists,
 * JSON string escaping, big short-lived buffers and reading small files.
 */
#ifndef AMB_COMMON_UTIL_H
#define AMB_COMMON_UTIL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include <amber/common.h>

/*
 * The detail of an error: library code that returns an error whose code
 * alone does not say enough ("no event 'x' in the recording (events: a,
 * b)") sets it with amb_errmsg_set() just before returning, and the tool's
 * main() or command prints it (amb_errmsg(), "" when none was set since
 * the last amb_errmsg_clear()).  Thread-local; at most 1023 bytes kept.
 */
void amb_errmsg_set(const char *fmt, ...) AMB_PRINTF(1, 2);
const char *amb_errmsg(void);
void amb_errmsg_clear(void);

/*
 * Make room for at least @need elements of @elem_size bytes in the array
 * *@data, whose capacity is *@cap elements: when @need exceeds it, the
 * array is reallocated to the larger of @need and twice the capacity (at
 * least 16).  Elements up to the old capacity keep their values; new ones
 * are uninitialised.  Returns 0, or -ENOMEM (also for a size that would
 * overflow) with *@data and *@cap unchanged.  Used as
 *     if (amb_ensure_cap((void **)&v, &cap, sizeof(*v), n + 1)) ...
 */
int amb_ensure_cap(void **data, size_t *cap, size_t elem_size, size_t need);

/*
 * Parse a CPU list such as "0-3,8,10-11" into @set, an array of @nbits bits
 * (bit i set for CPU i).  Returns the number of CPUs set, or -EINVAL for a
 * malformed list or a CPU >= @nbits.
 */
int amb_cpulist_parse(const char *s, uint64_t *set, unsigned nbits);

/* Write @s (NUL-terminated) to @f as a JSON string literal, with quotes. */
void amb_json_str(FILE *f, const char *s);
/* Same for @n bytes that need not be NUL-terminated. */
void amb_json_strn(FILE *f, const char *s, size_t n);

/*
 * Memory for big, short-lived buffers (decoded blocks, symbol tables).
 * Every 4 KiB page touched costs a page fault, and in a VM a fault costs
 * microseconds, more than decoding spends on the page; so buffers of 1 MiB
 * and more are mapped on 2 MiB boundaries with transparent huge pages asked
 * for (a hint the kernel may ignore).  Smaller ones come from malloc().
 * *@size receives what amb_big_free() needs (0 for malloc'd memory); the
 * buffer holds at least @want bytes, and *@size of them when nonzero.
 * NULL when out of memory.  The content is not preserved across calls.
 */
void *amb_big_alloc(size_t want, size_t *size);
void amb_big_free(void *p, size_t size);

/* Read a whole (small) file such as a /proc or /sys entry into a
 * NUL-terminated heap string.  At most @max bytes are read.  Returns the
 * string (caller frees) or NULL with errno set. */
char *amb_read_file(const char *path, size_t max, size_t *len);

#endif /* AMB_COMMON_UTIL_H */
