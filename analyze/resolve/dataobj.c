// SPDX-License-Identifier: MIT
/*
 * analyze/resolve/dataobj.c - the data object behind a data address.
 *
 * A file's data is mapped from its file (.data, .rodata, the start of
 * .bss in the last file page) and, for the rest of .bss, as anonymous
 * memory right after its last file mapping.  Both are the binary's: the
 * load bias comes from the file mapping, and the address is the binary's
 * when it lands in one of its PT_LOAD segments, file bytes or not.  Its
 * symbol is then the ELF's data symbol (STT_OBJECT), found by libdwfl
 * through symbols.c as code symbols are.
 */
#include <stdio.h>
#include <string.h>

#include "analyze/resolve/dataobj.h"
#include "analyze/resolve/symbols.h"

/* How far below [stack] a fault grows it: Linux's stack_guard_gap, 256
 * pages of 4 KiB by default. */
#define STACK_GROWTH (1u << 20)

/* The ELF address of @addr in @d's image as @map (a mapping of @d's file)
 * places it; false when @addr is not in one of its segments. */
static bool image_vaddr(struct ana_dso_table *dsos, const struct ana_map *map, uint64_t addr,
			uint64_t *vaddr)
{
	struct ana_dso *d = map->dso;
	uint64_t bias;

	/* A data file (ld.so.cache, a locale archive) has no build-id: only
	 * ELF images, which have one, are looked for. */
	if (d->type != ANA_DSO_TYPE_FILE || (!d->build_id_len && d->status != ANA_DSO_FOUND) ||
	    ana_dso_resolve(dsos, d) != ANA_DSO_FOUND ||
	    ana_dso_load_bias(d, map->start, map->pgoff, map->end - map->start, &bias))
		return false;
	*vaddr = addr - bias;
	return ana_dso_vaddr_loaded(d, *vaddr);
}

static void in_image(struct ana_dso_table *dsos, const struct ana_map *map, uint64_t addr,
		     struct ana_dobj *o)
{
	uint64_t vaddr;

	o->kind = ANA_DOBJ_FILE;
	o->dso = map->dso;
	if (image_vaddr(dsos, map, addr, &vaddr) &&
	    !ana_sym_lookup_data(map->dso, vaddr, &o->sym, &o->offset) && o->sym)
		o->kind = ANA_DOBJ_SYM;
}

void ana_dobj_resolve(struct ana_dso_table *dsos, struct ana_thread *t, uint64_t addr,
		      struct ana_dobj *o)
{
	const struct ana_map *map, *prev;

	memset(o, 0, sizeof(*o));
	if (addr >> 63) {
		o->kind = ANA_DOBJ_KERNEL;
		return;
	}
	map = t ? ana_thread_find_map(t, addr) : NULL;
	if (!map) {
		/*
		 * A fault just below the stack grows it: the kernel reports the
		 * grown [stack] right after the sample.  Growth is refused
		 * farther away than the stack guard gap (256 pages).
		 */
		map = t ? ana_thread_next_map(t, addr) : NULL;
		if (map && !strcmp(map->dso->path, "[stack]") && map->start - addr <= STACK_GROWTH)
			o->kind = ANA_DOBJ_STACK;
		return;
	}
	switch (map->dso->type) {
	case ANA_DSO_TYPE_FILE:
		in_image(dsos, map, addr, o);
		return;
	case ANA_DSO_TYPE_ANON:
		if (!strcmp(map->dso->path, "[heap]")) {
			o->kind = ANA_DOBJ_HEAP;
			return;
		}
		if (!strcmp(map->dso->path, "[stack]")) {
			o->kind = ANA_DOBJ_STACK;
			return;
		}
		/* .bss past the last file page: right after the file's mapping. */
		prev = map->start ? ana_thread_find_map(t, map->start - 1) : NULL;
		if (prev && prev->dso->type == ANA_DSO_TYPE_FILE) {
			uint64_t vaddr;

			if (image_vaddr(dsos, prev, addr, &vaddr)) {
				in_image(dsos, prev, addr, o);
				return;
			}
		}
		o->kind = ANA_DOBJ_ANON;
		return;
	default:
		/* JIT code and the vDSO: memory of no file we can read. */
		o->kind = ANA_DOBJ_ANON;
		return;
	}
}

const char *ana_dobj_dso_name(const struct ana_dobj *o)
{
	switch (o->kind) {
	case ANA_DOBJ_SYM:
	case ANA_DOBJ_FILE:
		return o->dso->short_name;
	case ANA_DOBJ_HEAP:
		return "[heap]";
	case ANA_DOBJ_STACK:
		return "[stack]";
	case ANA_DOBJ_ANON:
		return "//anon";
	case ANA_DOBJ_KERNEL:
		return "[kernel.kallsyms]";
	case ANA_DOBJ_UNKNOWN:
	default:
		return "[unknown]";
	}
}

const char *ana_dobj_name(const struct ana_dobj *o, char *buf, size_t len)
{
	switch (o->kind) {
	case ANA_DOBJ_SYM:
		return o->sym;
	case ANA_DOBJ_FILE:
		snprintf(buf, len, "[%s]", o->dso->short_name);
		return buf;
	default:
		return ana_dobj_dso_name(o);
	}
}
