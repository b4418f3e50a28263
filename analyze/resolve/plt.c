// SPDX-License-Identifier: MIT
/*
 * analyze/resolve/plt.c - names for PLT stubs (plt.h).
 *
 * A call to a function of another object goes through a stub in the
 * caller's PLT, which jumps through a GOT slot that the dynamic linker
 * fills: no ELF symbol covers the stub, so a sample there would have no
 * name.  objdump and perf name it after the function the slot is filled
 * with: each x86-64 stub is one `jmp *disp32(%rip)` (after an endbr64 and
 * a bnd prefix when built for CET or MPX), whose operand is the slot's
 * address, and the relocation at that address names the function.  The
 * first entry of a lazy .plt (which pushes the GOT's link map and jumps
 * to the resolver) and the lazy entries of a .plt beside a .plt.sec (which
 * push an index instead) jump through no slot of their own: unnamed, as
 * objdump leaves them.  A slot an IRELATIVE relocation fills has no
 * symbol, only the address of the ifunc that picks the function: its
 * stub is named after that ifunc when a sample first lands there.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "analyze/resolve/plt.h"
#include <amber/common.h>

#ifndef R_X86_64_IRELATIVE
#define R_X86_64_IRELATIVE 37
#endif

/* A relocation that fills a GOT slot a stub may jump through. */
struct slot_rel {
	uint64_t slot;          /* r_offset */
	uint64_t addend;        /* IRELATIVE: the ifunc's address */
	const char *name;       /* the symbol's, or NULL for IRELATIVE */
	size_t order;           /* position in the file: ties sort by it */
};

/* What ana_plt_load() builds: entries with their names' offsets in a
 * growing buffer, made pointers once the buffer stops moving. */
struct builder {
	struct ana_plt_entry *v;
	size_t *name_off;
	size_t n, cap;
	char *names;
	size_t len, names_cap;
};

static int cmp_slot(const void *a, const void *b)
{
	const struct slot_rel *x = a, *y = b;

	if (x->slot != y->slot)
		return x->slot < y->slot ? -1 : 1;
	return x->order < y->order ? -1 : x->order > y->order;
}

static int cmp_start(const void *a, const void *b)
{
	const struct ana_plt_entry *x = a, *y = b;

	if (x->start != y->start)
		return x->start < y->start ? -1 : 1;
	return x->end < y->end ? -1 : x->end > y->end;
}

/* Every JUMP_SLOT, GLOB_DAT and IRELATIVE relocation of @elf's RELA
 * sections into *@out (*@n of them), sorted by slot.  0 or -ENOMEM. */
static int slot_rels(Elf *elf, struct slot_rel **out, size_t *n)
{
	size_t rela_size = gelf_fsize(elf, ELF_T_RELA, 1, EV_CURRENT), cap = 0;
	struct slot_rel *v = NULL;
	Elf_Scn *scn = NULL;

	*out = NULL;
	*n = 0;
	if (!rela_size)
		return 0;
	while ((scn = elf_nextscn(elf, scn))) {
		Elf_Scn *symscn;
		Elf_Data *data, *syms;
		GElf_Shdr sh, symsh;

		if (!gelf_getshdr(scn, &sh) || sh.sh_type != SHT_RELA || sh.sh_entsize != rela_size)
			continue;
		symscn = elf_getscn(elf, sh.sh_link);
		if (!symscn || !gelf_getshdr(symscn, &symsh) ||
		    (symsh.sh_type != SHT_DYNSYM && symsh.sh_type != SHT_SYMTAB))
			continue;
		data = elf_getdata(scn, NULL);
		syms = elf_getdata(symscn, NULL);
		if (!data || !syms)
			continue;
		for (size_t i = 0; i < data->d_size / rela_size && i <= INT32_MAX; i++) {
			uint64_t type, sym_idx;
			const char *name = NULL;
			GElf_Rela r;
			GElf_Sym sym;

			if (!gelf_getrela(data, (int)i, &r))
				break;
			type = GELF_R_TYPE(r.r_info);
			sym_idx = GELF_R_SYM(r.r_info);
			if (type == R_X86_64_JUMP_SLOT || type == R_X86_64_GLOB_DAT) {
				if (!sym_idx || sym_idx > INT32_MAX ||
				    !gelf_getsym(syms, (int)sym_idx, &sym))
					continue;
				name = elf_strptr(elf, symsh.sh_link, sym.st_name);
				if (!name || !name[0])
					continue;
			} else if (type != R_X86_64_IRELATIVE) {
				continue;
			}
			if (*n == cap) {
				struct slot_rel *nv;

				cap = cap ? 2 * cap : 64;
				nv = realloc(v, cap * sizeof(*v));
				if (!nv) {
					free(v);
					return -ENOMEM;
				}
				v = nv;
			}
			v[*n] = (struct slot_rel){ r.r_offset, (uint64_t)r.r_addend, name, *n };
			(*n)++;
		}
	}
	if (*n)
		qsort(v, *n, sizeof(*v), cmp_slot);
	*out = v;
	return 0;
}

/* The first relocation of slot @slot, or NULL. */
static const struct slot_rel *slot_find(const struct slot_rel *v, size_t n, uint64_t slot)
{
	size_t lo = 0, hi = n;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (v[mid].slot < slot)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo < n && v[lo].slot == slot ? &v[lo] : NULL;
}

/* The GOT slot the stub of @size bytes at @b (address @addr) jumps
 * through: [endbr64] [bnd] jmp *disp32(%rip).  False when it is no such
 * stub. */
static bool stub_slot(const uint8_t *b, size_t size, uint64_t addr, uint64_t *slot)
{
	static const uint8_t endbr64[4] = { 0xf3, 0x0f, 0x1e, 0xfa };
	size_t p = 0;
	int32_t disp;

	if (size >= 4 && !memcmp(b, endbr64, 4))
		p = 4;
	if (p < size && b[p] == 0xf2)
		p++;
	if (size < p + 6 || b[p] != 0xff || b[p + 1] != 0x25)
		return false;
	disp = (int32_t)((uint32_t)b[p + 2] | (uint32_t)b[p + 3] << 8 | (uint32_t)b[p + 4] << 16 |
			 (uint32_t)b[p + 5] << 24);
	*slot = addr + p + 6 + (uint64_t)(int64_t)disp;
	return true;
}

/* Append the entry [start, end) named @fn@plt to @bld; @fn NULL: an
 * ifunc's, named later after the one at @ifunc.  0 or -ENOMEM. */
static int add_entry(struct builder *bld, uint64_t start, uint64_t end, const char *fn,
		     uint64_t ifunc)
{
	size_t len = fn ? strlen(fn) + 4 : 0;

	if (bld->n == bld->cap) {
		size_t cap = bld->cap ? 2 * bld->cap : 32;
		struct ana_plt_entry *v = realloc(bld->v, cap * sizeof(*v));
		size_t *off;

		if (!v)
			return -ENOMEM;
		bld->v = v;
		off = realloc(bld->name_off, cap * sizeof(*off));
		if (!off)
			return -ENOMEM;
		bld->name_off = off;
		bld->cap = cap;
	}
	bld->v[bld->n] = (struct ana_plt_entry){ start, end, NULL, fn ? 0 : ifunc };
	if (!fn) {
		bld->name_off[bld->n++] = SIZE_MAX;
		return 0;
	}
	if (bld->names_cap - bld->len < len + 1) {
		size_t cap = AMB_MAX(2 * bld->names_cap, bld->len + len + 1);
		char *names = realloc(bld->names, cap);

		if (!names)
			return -ENOMEM;
		bld->names = names;
		bld->names_cap = cap;
	}
	memcpy(bld->names + bld->len, fn, len - 4);
	memcpy(bld->names + bld->len + len - 4, "@plt", 5);
	bld->name_off[bld->n++] = bld->len;
	bld->len += len + 1;
	return 0;
}

/* Name the stubs of the PLT section @scn (@sh) after @rels.  0 or -ENOMEM. */
static int section_stubs(struct builder *bld, Elf_Scn *scn, const GElf_Shdr *sh,
			 const struct slot_rel *rels, size_t nr_rels)
{
	Elf_Data *data = elf_getdata(scn, NULL);
	uint64_t es = sh->sh_entsize ? sh->sh_entsize : 16;

	if (!data || !data->d_buf || es < 6 || es > 64)
		return 0;
	for (uint64_t off = 0; off + es <= data->d_size && off + es <= sh->sh_size; off += es) {
		uint64_t addr = sh->sh_addr + off, slot;
		const struct slot_rel *r;
		int err;

		if (addr + es < addr)
			break;
		if (!stub_slot((const uint8_t *)data->d_buf + off, es, addr, &slot) ||
		    !(r = slot_find(rels, nr_rels, slot)))
			continue;
		err = add_entry(bld, addr, addr + es, r->name, r->addend);
		if (err)
			return err;
	}
	return 0;
}

int ana_plt_load(Elf *elf, struct ana_plt *out)
{
	struct builder bld = { 0 };
	struct slot_rel *rels = NULL;
	size_t nr_rels = 0, shstrndx, k;
	Elf_Scn *scn = NULL;
	GElf_Ehdr eh;
	int err = 0;

	memset(out, 0, sizeof(*out));
	if (!elf || elf_kind(elf) != ELF_K_ELF || !gelf_getehdr(elf, &eh) ||
	    eh.e_machine != EM_X86_64 || eh.e_ident[EI_CLASS] != ELFCLASS64 ||
	    eh.e_ident[EI_DATA] != ELFDATA2LSB || elf_getshdrstrndx(elf, &shstrndx))
		return 0;
	err = slot_rels(elf, &rels, &nr_rels);
	if (err || !nr_rels)
		goto out;
	while ((scn = elf_nextscn(elf, scn))) {
		const char *name;
		GElf_Shdr sh;

		if (!gelf_getshdr(scn, &sh) || sh.sh_type != SHT_PROGBITS ||
		    !(sh.sh_flags & SHF_EXECINSTR))
			continue;
		name = elf_strptr(elf, shstrndx, sh.sh_name);
		if (!name || (strcmp(name, ".plt") && strcmp(name, ".plt.sec") &&
			      strcmp(name, ".plt.got")))
			continue;
		err = section_stubs(&bld, scn, &sh, rels, nr_rels);
		if (err)
			goto out;
	}
	if (!bld.n)
		goto out;
	for (size_t i = 0; i < bld.n; i++)
		bld.v[i].name = bld.name_off[i] == SIZE_MAX ? NULL : bld.names + bld.name_off[i];
	qsort(bld.v, bld.n, sizeof(*bld.v), cmp_start);
	/* Sections of a hostile file may overlap: keep the entries disjoint. */
	for (size_t i = k = 0; i < bld.n; i++)
		if (!k || bld.v[i].start >= bld.v[k - 1].end)
			bld.v[k++] = bld.v[i];
	out->v = bld.v;
	out->n = k;
	out->names = bld.names;
	bld.v = NULL;
	bld.names = NULL;
out:
	free(rels);
	free(bld.v);
	free(bld.name_off);
	free(bld.names);
	return err;
}

struct ana_plt_entry *ana_plt_find(const struct ana_plt *p, uint64_t addr)
{
	size_t lo = 0, hi = p->n;

	/* Invariant: v[0..lo) start at or below @addr, v[hi..) above. */
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (p->v[mid].start <= addr)
			lo = mid + 1;
		else
			hi = mid;
	}
	if (lo && addr < p->v[lo - 1].end)
		return &p->v[lo - 1];
	return NULL;
}

const char *ana_plt_name(struct ana_plt *p, struct ana_plt_entry *e, ana_plt_name_at_fn name_at,
			 void *ctx)
{
	const char *fn = e->name ? NULL : name_at ? name_at(ctx, e->ifunc) : NULL;
	char **later, *name;

	if (e->name)
		return e->name;
	later = realloc(p->later, (p->nr_later + 1) * sizeof(*later));
	if (!later)
		return NULL;
	p->later = later;
	if (fn ? asprintf(&name, "%s@plt", fn) < 0
	       : asprintf(&name, "*ABS*+0x%" PRIx64 "@plt", e->ifunc) < 0)
		return NULL;
	p->later[p->nr_later++] = name;
	e->name = name;
	return name;
}

void ana_plt_free(struct ana_plt *p)
{
	for (size_t i = 0; i < p->nr_later; i++)
		free(p->later[i]);
	free(p->later);
	free(p->v);
	free(p->names);
	memset(p, 0, sizeof(*p));
}
