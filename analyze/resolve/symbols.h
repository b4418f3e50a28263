/* SPDX-License-Identifier: MIT */
/*
 * analyze/resolve/symbols.h - user symbols, source lines and inline chains of
 * a DSO through libdwfl (symbols.c), cached per address.
 */
#ifndef AMB_ANALYZE_SYMBOLS_H
#define AMB_ANALYZE_SYMBOLS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "analyze/resolve/dso.h"

/* One frame an address expands to: the innermost inlined call first. */
struct ana_inline_frame {
	const char *name;     /* function name, owned by the DSO's symbol state */
	const char *file;     /* call site's file, or NULL */
	int line;             /* call site's line, or 0 */
};

#define ANA_INLINE_MAX 8

/* What an address of a DSO resolves to.  Owned by the DSO's symbol cache. */
struct ana_sym_info {
	const char *name;     /* ELF symbol as shown (demangled), or NULL when none
			       * covers the address */
	const char *raw_name; /* the same as the ELF spells it (_ZN2ns4workEl) */
	uint64_t offset;      /* address - symbol start */
	uint64_t sym_start;   /* symbol start (ELF address) */
	uint64_t sym_size;    /* the symbol's st_size, 0 when it has none */
	const char *file;     /* source file of the address itself, or NULL */
	int line;
	/* Inlined functions containing the address, innermost first; their
	 * @file/@line are where each was inlined into the next one. */
	struct ana_inline_frame inl[ANA_INLINE_MAX];
	unsigned nr_inl;
};

/* What ana_sym_lookup() is asked to compute besides the symbol. */
#define ANA_SYM_SRCLINE 1u   /* file and line */
#define ANA_SYM_INLINE  2u   /* the inline chain */

/*
 * Resolve @addr, an ELF virtual address of @d (see ana_dso_file_to_vaddr),
 * with libdwfl.  Results are cached per (DSO, address).  @d must be
 * resolved (ana_dso_resolve) to ANA_DSO_FOUND.  Returns 0 with *out set,
 * -ENOENT when the DSO's ELF cannot be used, -ENOMEM.
 */
int ana_sym_lookup(struct ana_dso *d, uint64_t addr, unsigned want,
		   const struct ana_sym_info **out);

/*
 * Convert @off, a file offset inside @d's ELF (what an mmap's pgoff gives),
 * to the ELF virtual address the symbol tables use, via the PT_LOAD
 * program headers.  Returns 0, or -ENOENT when no PT_LOAD covers @off
 * or the ELF cannot be opened.
 */
int ana_dso_file_to_vaddr(struct ana_dso *d, uint64_t off, uint64_t *vaddr);

/*
 * The symbol holding @addr, an ELF virtual address of @d, as
 * ana_sym_lookup() finds it but without keeping a result per address: for
 * data addresses, which seldom repeat.  *@name (owned by @d's symbol
 * state) is NULL when no symbol holds @addr, *@offset the distance from
 * its start.  Returns 0, or -ENOENT when the DSO's ELF cannot be used.
 */
int ana_sym_lookup_data(struct ana_dso *d, uint64_t addr, const char **name, uint64_t *offset);

/*
 * The load bias of @d's image in a mapping of @len bytes at @start of its
 * file offset @pgoff: address minus ELF virtual address, from a PT_LOAD
 * segment whose file bytes the mapping holds.  Returns 0, or -ENOENT
 * when none does or the ELF cannot be used.
 */
int ana_dso_load_bias(struct ana_dso *d, uint64_t start, uint64_t pgoff, uint64_t len,
		      uint64_t *bias);

/* Whether ELF virtual address @vaddr lies in a PT_LOAD segment of @d's
 * image, in its file bytes or past them (.bss).  False when the ELF
 * cannot be used. */
bool ana_dso_vaddr_loaded(struct ana_dso *d, uint64_t vaddr);

/* Release @d's symbol state (called by ana_dso_table_free). */
void ana_sym_cache_free(struct ana_sym_cache *c);

#endif /* AMB_ANALYZE_SYMBOLS_H */
