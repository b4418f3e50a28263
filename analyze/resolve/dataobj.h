/* SPDX-License-Identifier: MIT */
/*
 * analyze/resolve/dataobj.h - the data object a data address is in
 * (dataobj.c): the ELF data symbol of a binary (its .data, .bss, .rodata
 * ...), else the mapping that holds it - the heap, the stack, anonymous
 * memory, a file without a symbol there - as perf mem report's
 * symbol_daddr and dso_daddr keys show it.
 */
#ifndef AMB_ANALYZE_DATAOBJ_H
#define AMB_ANALYZE_DATAOBJ_H

#include <stddef.h>
#include <stdint.h>

#include "analyze/resolve/dso.h"
#include "analyze/resolve/machine.h"

enum ana_dobj_kind {
	ANA_DOBJ_UNKNOWN = 0,  /* no mapping holds the address */
	ANA_DOBJ_SYM,          /* a symbol of @dso */
	ANA_DOBJ_FILE,         /* in @dso's image, where no symbol is (or no ELF) */
	ANA_DOBJ_HEAP,         /* [heap] */
	ANA_DOBJ_STACK,        /* [stack] (the main thread's) */
	ANA_DOBJ_ANON,         /* other anonymous memory (thread stacks, mmap) */
	ANA_DOBJ_KERNEL,       /* a kernel address */
};

/* What a data address is in.  Pointers live as long as the DSO table. */
struct ana_dobj {
	enum ana_dobj_kind kind;
	struct ana_dso *dso;   /* SYM, FILE: the binary or library */
	const char *sym;       /* SYM: its name */
	uint64_t offset;       /* SYM: @addr minus the symbol's start */
};

/*
 * Find what data address @addr of thread @t (NULL: none known) is in:
 * the mapping that holds it, and in a file's image (also its .bss, which
 * the kernel maps as anonymous memory right after the file's last data
 * page) the ELF symbol, found through @dsos.  Kernel addresses (top bit
 * set) are ANA_DOBJ_KERNEL: the recorded kernel symbols are functions
 * only.  Never fails: what cannot be told is ANA_DOBJ_UNKNOWN or FILE.
 */
void ana_dobj_resolve(struct ana_dso_table *dsos, struct ana_thread *t, uint64_t addr,
		      struct ana_dobj *o);

/* dso_daddr: the DSO's short name, "[heap]", "[stack]", "//anon",
 * "[kernel.kallsyms]" or "[unknown]". */
const char *ana_dobj_dso_name(const struct ana_dobj *o);

/* symbol_daddr's object: the symbol's name, "[heap]", "[stack]",
 * "//anon", "[kernel.kallsyms]", "[unknown]", or for a file's data
 * without a symbol "[NAME]" with the DSO's short name (into @buf).
 * Returns a string that lives as long as the DSO table, or @buf. */
const char *ana_dobj_name(const struct ana_dobj *o, char *buf, size_t len);

#endif /* AMB_ANALYZE_DATAOBJ_H */
