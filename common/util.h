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

/* The recording amber-rec writes without -o, and amber-analyze reads without
 * a FILE, as perf does with perf.data; the one before it is moved aside to
 * AMB_DEFAULT_RECORDING ".old". */
#define AMB_DEFAULT_RECORDING "trace.amber"

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

/*
 * Write @s (NUL-terminated) to @f as a JSON string literal, with quotes:
 * '"' and '\\' escaped, and what amb_text_safe_prefix() escapes in text
 * (C0 controls, DEL, C1 controls, bytes that are not UTF-8) as \n, \r,
 * \t or \u00XX, XX being the control's code point or the stray byte, so
 * that the output is well-formed UTF-8 JSON whatever the input.
 */
void amb_json_str(FILE *f, const char *s);
/* Same for @n bytes that need not be NUL-terminated. */
void amb_json_strn(FILE *f, const char *s, size_t n);
/* The JSON escape of byte @c ("\\n", "\\u001b" ...) into @out; returns its
 * length, 2 or 6.  The one table the JSON writers share. */
size_t amb_json_esc(unsigned char c, char out[6]);

/*
 * Text that came from a recording (a comm, a path, a symbol name, a META
 * value) or from a command line, made safe to print as part of one line
 * of text, on a terminal or in a file: the C0 controls (newline and tab
 * included), DEL, the C1 controls U+0080..U+009F and every byte that is
 * not part of well-formed UTF-8 print as "\xNN"; everything else (ASCII
 * text, well-formed UTF-8, the backslash itself) is copied as it is.  So
 * no recorded string can move the cursor, recolour or retitle a terminal,
 * nor start a line of its own in a report.
 *
 * amb_text_safe_prefix() returns how many of the @n bytes at @s may be
 * copied as they are; when that is less than @n, *@esc receives how many
 * bytes after them are to be escaped (1, or 2 for a C1 control).  The
 * other helpers write the escaped form: appended to @b (0 or -ENOMEM),
 * to @f, or into @buf of @len bytes (NUL-terminated, cut when too long;
 * returns @buf).  NULL strings are empty.
 */
#define AMB_TEXT_ESC_MAX 4   /* bytes of output per escaped byte: "\xNN" */
size_t amb_text_safe_prefix(const char *s, size_t n, size_t *esc);
int amb_buf_put_text(struct amb_buf *b, const char *s, size_t n);
void amb_fput_text(FILE *f, const char *s);
char *amb_text_escape(char *buf, size_t len, const char *s);

/*
 * Memory for big, short-lived buffers (decoded blocks, symbol tables).
 * Every 4 KiB page touched costs a page fault, and in a VM a fault costs
 * microseconds (15 to 30 in the paravirtualized guests we test on), more
 * than decoding spends on the page; so buffers of 128 KiB and more are
 * mapped on 2 MiB boundaries with transparent huge pages asked for (a hint
 * the kernel may ignore), but for a last unit of which @want uses less
 * than 128 KiB: a huge page is cleared whole at its first touch, which
 * costs more than small pages would for a few bytes.  Smaller buffers
 * come from malloc().
 * *@size receives what amb_big_free() needs (0 for malloc'd memory); the
 * buffer holds at least @want bytes, and *@size of them when nonzero.
 * NULL when out of memory.  The content is not preserved across calls.
 */
#define AMB_BIG_MIN ((size_t)128 << 10)  /* the smallest buffer amb_big_alloc() maps */
void *amb_big_alloc(size_t want, size_t *size);
void amb_big_free(void *p, size_t size);

/* amb_big_alloc() of zeroed memory, for tables of which a run touches a
 * few scattered entries (a fault per page touched, at most one per 2 MiB
 * with huge pages).  Freed with amb_big_free(). */
void *amb_big_zalloc(size_t want, size_t *size);

/*
 * Make *@buf, a buffer of amb_big_alloc() (NULL at first, with *@cap and
 * *@map zero), hold at least @need bytes.  Its content is not kept.  It
 * grows to more than 1.5 times its last capacity (and at most 1.5 times
 * @need), so a run of ever larger blocks maps (and faults in) a fresh
 * buffer a few times, not once per block.  *@cap receives the usable
 * bytes, *@map what amb_big_free() needs.  -ENOMEM, with the buffer freed
 * and all three zeroed, when out of memory.
 */
int amb_big_reserve(uint8_t **buf, size_t *cap, size_t *map, size_t need);

/* Read a whole (small) file such as a /proc or /sys entry into a
 * NUL-terminated heap string.  At most @max bytes are read.  Returns the
 * string (caller frees) or NULL with errno set. */
char *amb_read_file(const char *path, size_t max, size_t *len);

/* This process's vDSO, the image the kernel maps into every process: its
 * address from the auxiliary vector, its length from its [vdso] line in
 * /proc/self/maps.  Returns 0 with *@image and *@len set (the mapping
 * lives as long as the process), or -ENOENT. */
int amb_self_vdso(const void **image, size_t *len);

#endif /* AMB_COMMON_UTIL_H */
