/* SPDX-License-Identifier: MIT */
/*
 * analyze/resolve/ksyms.h - kernel symbols from the recorded /proc/kallsyms
 * text (ksyms.c, KSYMS block, FORMAT.md §5.8).
 */
#ifndef AMB_ANALYZE_KSYMS_H
#define AMB_ANALYZE_KSYMS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct ana_ksyms;

struct ana_ksym {
	uint64_t addr;
	const char *name;
	const char *module;    /* "[name]" of a module, NULL for the kernel image */
};

/*
 * Parse /proc/kallsyms text of @len bytes (need not be NUL-terminated):
 * "ADDR TYPE NAME [MODULE]" lines, the grammar of common/kallsyms.h (which
 * the recorder's trim uses too).  Only text symbols (t, T, w, W) are kept.
 * Malformed lines are counted and skipped.  When every address is 0
 * (kptr_restrict) the table is empty.  The text is copied.  NULL with
 * errno = ENOMEM on failure.  Free with ana_ksyms_free() (NULL accepted).
 */
struct ana_ksyms *ana_ksyms_parse(const char *text, size_t len);
void ana_ksyms_free(struct ana_ksyms *k);

/* Number of symbols kept, and of malformed lines skipped. */
size_t ana_ksyms_count(const struct ana_ksyms *k);
size_t ana_ksyms_bad_lines(const struct ana_ksyms *k);

/*
 * The symbol containing @addr: the last one starting at or below it, if
 * @addr is below the next symbol's start (the last symbol covers at most
 * 1 MiB, being of unknown size).  NULL when none.  *offset is addr - start.
 */
const struct ana_ksym *ana_ksyms_find(const struct ana_ksyms *k, uint64_t addr,
				      uint64_t *offset);

/* The size of @s, a symbol of @k: up to the next symbol's start, as its
 * end is; 0 for the last one, or a symbol not of @k. */
uint64_t ana_ksyms_size(const struct ana_ksyms *k, const struct ana_ksym *s);

#endif /* AMB_ANALYZE_KSYMS_H */
