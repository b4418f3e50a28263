/* SPDX-License-Identifier: MIT */
/*
 * analyze/resolve/plt.h - names for the stubs of an ELF's procedure
 * linkage table, which no ELF symbol covers: `NAME@plt`, as objdump and
 * perf name them.  symbols.c asks here before the symbol tables.
 */
#ifndef AMB_ANALYZE_PLT_H
#define AMB_ANALYZE_PLT_H

#include <gelf.h>
#include <stddef.h>
#include <stdint.h>

/* One stub: [start, end) in the ELF's virtual addresses. */
struct ana_plt_entry {
	uint64_t start, end;
	const char *name;       /* "NAME@plt", owned by the struct ana_plt;
				 * NULL for an ifunc's stub not yet named
				 * (ana_plt_name()) */
	uint64_t ifunc;         /* an IRELATIVE slot's addend: the ifunc */
};

/* The stubs of one ELF, sorted by start, disjoint. */
struct ana_plt {
	struct ana_plt_entry *v;
	size_t n;
	char *names;            /* the names ana_plt_load() gave, back to back */
	char **later;           /* those ana_plt_name() gave */
	size_t nr_later;
};

/* The name of the function that starts exactly at @addr in the ELF, or
 * NULL; ana_plt_name() copies it. */
typedef const char *(*ana_plt_name_at_fn)(void *ctx, uint64_t addr);

/*
 * Find the stubs of @elf's PLT sections (.plt, .plt.sec, .plt.got) and
 * name each after the symbol of the relocation that fills the GOT slot it
 * jumps through (JUMP_SLOT, GLOB_DAT); a stub whose slot an IRELATIVE
 * relocation fills keeps the relocation's addend (the ifunc's address) to
 * be named on first use (ana_plt_name()), as asking a symbol table for
 * each ifunc of libc up front would cost more than a small report.  Only
 * x86-64 stubs are decoded; for any other machine, and for an ELF without
 * a PLT, @out is left empty.  @elf is untrusted: every index, size and
 * offset is checked.  Returns 0, or -ENOMEM (@out then empty); free @out
 * with ana_plt_free().
 */
int ana_plt_load(Elf *elf, struct ana_plt *out);

/* The stub of @p holding @addr, or NULL. */
struct ana_plt_entry *ana_plt_find(const struct ana_plt *p, uint64_t addr);

/*
 * The name of stub @e of @p: its own, or for an ifunc's stub, named now
 * and kept, "FN@plt" after the function @name_at finds at its ifunc
 * address, else objdump's "*ABS*+0xADDR@plt".  NULL without memory (then
 * asked again next time).
 */
const char *ana_plt_name(struct ana_plt *p, struct ana_plt_entry *e, ana_plt_name_at_fn name_at,
			 void *ctx);

/* Free what ana_plt_load() put in @p, and leave it empty. */
void ana_plt_free(struct ana_plt *p);

#endif /* AMB_ANALYZE_PLT_H */
