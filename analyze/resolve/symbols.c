// SPDX-License-Identifier: MIT
/*
 * analyze/symbols.c - user-space symbolization with libdwfl: one Dwfl per
 * DSO, reported at base 0 so that module addresses are the ELF's own
 * virtual addresses, and a cache of results per (DSO, address).
 *
 * Symbols come from dwfl_module_addrinfo (.symtab, else .dynsym, and the
 * separate debuginfo libdwfl finds), source lines from dwfl_module_getsrc,
 * and the inline chain from the DWARF scopes around the address in its CU
 * (lookup_inline).  Line tables and DWARF scopes are read only for the
 * addresses whose caller asks for them (ANA_SYM_SRCLINE, ANA_SYM_INLINE).
 *
 * dwfl_module_addrinfo walks the whole symbol table on each call (a
 * million instructions on libc's debug symbols), so it is asked only
 * where sizeless symbols decide.  Everywhere else the module's table,
 * read once and sorted, gives the symbols containing an address, and
 * libdwfl's own rules choose among them (span_choose: aliases, nested
 * symbols, bindings).  Then, of the functions starting where that symbol
 * starts, the one perf keeps gives the name (perf_alias: malloc, not
 * libdwfl's __libc_malloc), so that names read as in perf.  A symbol no
 * other one could stand in for is also remembered as an address range
 * (range_is_clean), so that later addresses inside it are answered
 * without a search.
 *
 * C++ and Rust names are shown demangled, as perf report shows them
 * without -v: libiberty's cplus_demangle() without parameters, Rust's hash
 * left out, a PLT stub as the demangled NAME@plt; each name is demangled
 * once per DSO (shown_name).  --no-demangle keeps the ELF's spelling.
 */
#include <dwarf.h>
#include <elfutils/libdw.h>
#include <elfutils/libdwfl.h>
#include <errno.h>
#include <gelf.h>
#include <libiberty/demangle.h>
#include <stdlib.h>
#include <string.h>

#include "analyze/resolve/dso.h"
#include "analyze/resolve/plt.h"
#include "analyze/resolve/symbols.h"
#include "common/hashmap.h"
#include "common/util.h"
#include <amber/common.h>

struct load_seg {
	uint64_t off, filesz, vaddr, memsz;
};

struct cache_entry {
	uint64_t addr;
	unsigned have;          /* ANA_SYM_* computed so far */
	struct ana_sym_info info;
};

/* Entries live in chunks so that pointers handed out stay valid while
 * the hash table grows. */
#define CHUNK_ENTRIES 512
struct cache_chunk {
	struct cache_chunk *next;
	size_t used;
	struct cache_entry e[CHUNK_ENTRIES];
};

/* Where a symbol of the module's table that dwfl_module_addrinfo() could
 * answer with (named, defined, not a section, file or TLS symbol) lies:
 * [start, end), end == start for a sizeless one.  @index is its place in
 * the table, the order libdwfl searches in; @bind its binding as libdwfl
 * ranks them (bind_rank()). */
struct sym_span {
	uint64_t start, end;
	const char *name;
	uint32_t index;
	uint8_t bind;
	bool func;               /* STT_FUNC or STT_GNU_IFUNC: perf loads only these */
};

/* A symbol dwfl_module_addrinfo() answered with for every address of
 * [start, end): see range_is_clean(). */
struct sym_range {
	uint64_t start, end;
	const char *name;
};

/* A top-level scope of a CU (a child of the CU DIE, or of a unit it
 * imports) that holds addresses: the lowest and the highest of its
 * ranges, and its place in the CU's order of children. */
struct cu_scope {
	uint64_t lo, hi;         /* [lo, hi) covers every range */
	size_t order;
	Dwarf_Die die;
};

/* The top-level scopes of one CU, sorted by lo, and reach[i], the highest
 * hi of v[0..i]. */
struct cu_scopes {
	struct cu_scope *v;
	uint64_t *reach;
	size_t n;
};

struct ana_sym_cache {
	Dwfl *dwfl;
	Dwfl_Module *mod;
	bool failed;            /* the ELF could not be reported: never retry */
	struct load_seg *segs;
	size_t nr_segs;
	struct amb_hashmap cache;  /* address -> struct cache_entry */
	struct cache_chunk *chunks;
	/* dwfl_module_addrinfo() walks the whole symbol table on every call;
	 * symbols it has named are remembered as ranges, so that it runs
	 * about once per function instead of once per address. */
	struct sym_span *spans;  /* every symbol, sorted by start */
	uint64_t *reach;         /* reach[i]: the highest end of spans[0..i] */
	size_t nr_spans;
	bool spans_loaded;
	bool table_rules;        /* span_choose() may answer (not ppc64) */
	int first_global;        /* dwfl_module_getsymtab_first_global() */
	struct sym_range *ranges; /* sorted by start, disjoint */
	size_t nr_ranges, cap_ranges;
	struct ana_plt plt;      /* the PLT stubs' names (plt.c) */
	bool plt_loaded;
	bool no_demangle;        /* the DSO's names as the ELF spells them */
	/* Each name shown_name() was asked for, by its address (the names
	 * live as long as the module): the demangled copy, or the name
	 * itself when it is not mangled.  @demangled owns the copies. */
	struct amb_hashmap shown;
	char **demangled;
	size_t nr_demangled, cap_demangled;
	/* The top-level scopes of each CU an inline chain was asked in
	 * (cu_scopes_get()), by the CU DIE's offset; owns them. */
	struct amb_hashmap cus;
};

/* libiberty's cplus_demangle(), renamed where the Makefile links it
 * (IBERTY_OBJ): a malloc'ed string, or NULL for a name it does not know. */
char *ana_cplus_demangle(const char *mangled, int options);

static char *debuginfo_path;

static const Dwfl_Callbacks offline_callbacks = {
	.find_elf = dwfl_build_id_find_elf,
	.find_debuginfo = dwfl_standard_find_debuginfo,
	.section_address = dwfl_offline_section_address,
	.debuginfo_path = &debuginfo_path,
};

static void cu_scopes_free(struct cu_scopes *cs)
{
	if (cs) {
		free(cs->v);
		free(cs->reach);
		free(cs);
	}
}

void ana_sym_cache_free(struct ana_sym_cache *c)
{
	struct amb_hashmap_slot *slot;

	if (!c)
		return;
	if (c->dwfl)
		dwfl_end(c->dwfl);
	free(c->segs);
	amb_hashmap_free(&c->cache);
	free(c->spans);
	free(c->reach);
	free(c->ranges);
	ana_plt_free(&c->plt);
	amb_hashmap_free(&c->shown);
	for (size_t i = 0; i < c->nr_demangled; i++)
		free(c->demangled[i]);
	free(c->demangled);
	amb_hashmap_for_each(&c->cus, slot)
		cu_scopes_free(slot->value);
	amb_hashmap_free(&c->cus);
	while (c->chunks) {
		struct cache_chunk *next = c->chunks->next;

		free(c->chunks);
		c->chunks = next;
	}
	free(c);
}

static int load_segments(struct ana_sym_cache *c)
{
	GElf_Addr bias;
	Elf *elf = dwfl_module_getelf(c->mod, &bias);
	size_t n, i;

	if (!elf || elf_getphdrnum(elf, &n))
		return -ENOENT;
	c->segs = calloc(n ? n : 1, sizeof(*c->segs));
	if (!c->segs)
		return -ENOMEM;
	for (i = 0; i < n; i++) {
		GElf_Phdr ph;

		if (!gelf_getphdr(elf, (int)i, &ph) || ph.p_type != PT_LOAD)
			continue;
		c->segs[c->nr_segs++] = (struct load_seg){ ph.p_offset, ph.p_filesz, ph.p_vaddr,
							   ph.p_memsz };
	}
	return 0;
}

/* The DSO's symbol state, opened on first use. */
static struct ana_sym_cache *cache_get(struct ana_dso *d)
{
	struct ana_sym_cache *c = d->syms;

	if (c)
		return c->failed ? NULL : c;
	if (d->status != ANA_DSO_FOUND || !d->elf_path)
		return NULL;
	c = calloc(1, sizeof(*c));
	if (!c)
		return NULL;
	d->syms = c;
	c->no_demangle = d->no_demangle;
	c->dwfl = dwfl_begin(&offline_callbacks);
	if (!c->dwfl)
		goto fail;
	dwfl_report_begin(c->dwfl);
	/* Base 0 and add_p_vaddr: module addresses equal ELF addresses. */
	c->mod = dwfl_report_elf(c->dwfl, d->short_name, d->elf_path, -1, 0, true);
	dwfl_report_end(c->dwfl, NULL, NULL);
	if (!c->mod || load_segments(c))
		goto fail;
	return c;
fail:
	c->failed = true;
	return NULL;
}

int ana_dso_file_to_vaddr(struct ana_dso *d, uint64_t off, uint64_t *vaddr)
{
	struct ana_sym_cache *c = cache_get(d);
	size_t i;

	if (!c)
		return -ENOENT;
	for (i = 0; i < c->nr_segs; i++) {
		const struct load_seg *s = &c->segs[i];

		if (off >= s->off && off - s->off < s->filesz) {
			*vaddr = off - s->off + s->vaddr;
			return 0;
		}
	}
	return -ENOENT;
}

/* Whether [a, a + alen) and [b, b + blen) overlap, with no sum that could
 * wrap (a mapping's pgoff and len come from the recording). */
static bool overlaps(uint64_t a, uint64_t alen, uint64_t b, uint64_t blen)
{
	return a <= b ? b - a < alen : a - b < blen;
}

int ana_dso_load_bias(struct ana_dso *d, uint64_t start, uint64_t pgoff, uint64_t len,
		      uint64_t *bias)
{
	struct ana_sym_cache *c = cache_get(d);
	size_t i;

	if (!c)
		return -ENOENT;
	for (i = 0; i < c->nr_segs; i++) {
		const struct load_seg *s = &c->segs[i];

		/* The segment's file bytes and the mapping's overlap: file
		 * offset s->off is at ELF address s->vaddr and at address
		 * start + (s->off - pgoff) alike. */
		if (s->filesz && overlaps(pgoff, len, s->off, s->filesz)) {
			*bias = start - pgoff + s->off - s->vaddr;
			return 0;
		}
	}
	return -ENOENT;
}

bool ana_dso_vaddr_loaded(struct ana_dso *d, uint64_t vaddr)
{
	struct ana_sym_cache *c = cache_get(d);
	size_t i;

	for (i = 0; c && i < c->nr_segs; i++)
		if (vaddr >= c->segs[i].vaddr && vaddr - c->segs[i].vaddr < c->segs[i].memsz)
			return true;
	return false;
}

static struct cache_entry *cache_slot(struct ana_sym_cache *c, uint64_t addr)
{
	uint64_t h = amb_hash_u64(addr);
	struct cache_entry *e = amb_hashmap_find_u64(&c->cache, h, addr);

	if (e)
		return e;
	if (!c->chunks || c->chunks->used == CHUNK_ENTRIES) {
		struct cache_chunk *ch = malloc(sizeof(*ch));

		if (!ch)
			return NULL;
		ch->next = c->chunks;
		ch->used = 0;
		c->chunks = ch;
	}
	e = &c->chunks->e[c->chunks->used];
	memset(e, 0, sizeof(*e));
	e->addr = addr;
	if (amb_hashmap_add(&c->cache, h, addr, e))
		return NULL;
	c->chunks->used++;
	return e;
}

static const char *shown_name(struct ana_sym_cache *c, const char *name);

/*
 * The name of the function @die inlines, as binutils' addr2line gives it
 * (and so perf, which asks addr2line): its linkage name where it has one
 * (a C++ function's, or a C function's asm label, as glibc's __GI__Fork
 * for _Fork), demangled as symbol names are; else its DW_AT_name.  An
 * inlined instance names its function through DW_AT_abstract_origin;
 * dwarf_attr_integrate() follows it (and DW_AT_specification).
 */
static const char *die_name(struct ana_sym_cache *c, Dwarf_Die *die)
{
	Dwarf_Attribute attr;
	const char *name;

	name = dwarf_formstring(dwarf_attr_integrate(die, DW_AT_linkage_name, &attr));
	if (!name)
		name = dwarf_formstring(dwarf_attr_integrate(die, DW_AT_MIPS_linkage_name, &attr));
	if (name)
		return shown_name(c, name);
	name = dwarf_formstring(dwarf_attr_integrate(die, DW_AT_name, &attr));
	return name ? name : "??";
}

/* The DIEs that can hold DIEs with addresses, which the walk enters (the
 * tags libdw's own scope walk enters). */
static bool may_hold_scopes(Dwarf_Die *die)
{
	switch (dwarf_tag(die)) {
	case DW_TAG_compile_unit:
	case DW_TAG_module:
	case DW_TAG_lexical_block:
	case DW_TAG_with_stmt:
	case DW_TAG_catch_block:
	case DW_TAG_try_block:
	case DW_TAG_entry_point:
	case DW_TAG_inlined_subroutine:
	case DW_TAG_subprogram:
	case DW_TAG_namespace:
	case DW_TAG_class_type:
	case DW_TAG_structure_type:
		return true;
	default:
		return false;
	}
}

/* Imported units nest at most this deep, and one walk enters at most
 * IMPORT_VISITS of them: a hostile file's cycles or fans of imports end
 * there. */
#define IMPORT_DEPTH_MAX 8
#define IMPORT_VISITS    256

/* The DW_TAG_imported_unit @die's unit into *@unit, when the walk may
 * enter one more (*@visits left, at @depth). */
static bool import_enter(Dwarf_Die *die, Dwarf_Die *unit, unsigned depth, unsigned *visits)
{
	Dwarf_Attribute attr;

	if (depth >= IMPORT_DEPTH_MAX || !*visits)
		return false;
	--*visits;
	return dwarf_formref_die(dwarf_attr(die, DW_AT_import, &attr), unit) != NULL;
}

/*
 * Call @fn on each child of @parent in order until it returns nonzero, the
 * children of a DW_TAG_imported_unit counting as children of @parent, in
 * its place (DWARF 5 §3.2.5, and what dwz makes), @depth imports down,
 * with *@visits more to enter.  Returns what @fn returned last, 0 when it
 * saw every child.
 */
static int for_each_child(Dwarf_Die *parent, unsigned depth, unsigned *visits,
			  int (*fn)(Dwarf_Die *child, void *arg), void *arg)
{
	Dwarf_Die child, unit;
	int ret = 0;

	if (dwarf_child(parent, &child) != 0)
		return 0;
	do {
		if (dwarf_tag(&child) != DW_TAG_imported_unit)
			ret = fn(&child, arg);
		else if (import_enter(&child, &unit, depth, visits))
			ret = for_each_child(&unit, depth + 1, visits, fn, arg);
		if (ret)
			return ret;
	} while (dwarf_siblingof(&child, &child) == 0);
	return 0;
}

struct holding {
	Dwarf_Addr pc;
	Dwarf_Die *found;
};

static int holds_pc(Dwarf_Die *child, void *arg)
{
	struct holding *h = arg;

	if (dwarf_haspc(child, h->pc) <= 0)
		return 0;
	*h->found = *child;
	return 1;
}

/*
 * The first child of @parent whose ranges hold @pc, into *@found (imports
 * as for_each_child() walks them).  1 when one is found, 0 when none, as
 * dwarf_haspc() answers: a DIE whose ranges cannot be read holds nothing.
 */
static int child_holding(Dwarf_Die *parent, Dwarf_Addr pc, Dwarf_Die *found, unsigned *visits)
{
	struct holding h = { pc, found };

	return for_each_child(parent, 0, visits, holds_pc, &h);
}

struct scopes_build {
	struct cu_scopes *cs;
	size_t cap;
	size_t order;            /* children seen so far */
};

/* Append @child to the scopes being built when it holds addresses;
 * -ENOMEM without memory. */
static int scope_add(Dwarf_Die *child, void *arg)
{
	struct scopes_build *b = arg;
	Dwarf_Addr base, start, end, lo = UINT64_MAX, hi = 0;
	ptrdiff_t off = 0;

	b->order++;
	while ((off = dwarf_ranges(child, off, &base, &start, &end)) > 0) {
		lo = AMB_MIN(lo, start);
		hi = AMB_MAX(hi, end);
	}
	if (lo >= hi)
		return 0;
	if (amb_ensure_cap((void **)&b->cs->v, &b->cap, sizeof(*b->cs->v), b->cs->n + 1))
		return -ENOMEM;
	b->cs->v[b->cs->n++] = (struct cu_scope){ lo, hi, b->order, *child };
	return 0;
}

static int cu_scope_cmp(const void *a, const void *b)
{
	const struct cu_scope *x = a, *y = b;

	if (x->lo != y->lo)
		return x->lo < y->lo ? -1 : 1;
	return x->order < y->order ? -1 : x->order > y->order;
}

/*
 * The top-level scopes of @cu, made on first use.  child_holding() on a
 * CU asks dwarf_haspc() of every child in turn, types and declarations
 * included: 280,000 instructions an address in libc's CUs.  NULL without
 * memory (the caller then walks the children).
 */
static struct cu_scopes *cu_scopes_get(struct ana_sym_cache *c, Dwarf_Die *cu)
{
	uint64_t key = dwarf_dieoffset(cu), h = amb_hash_u64(key);
	struct cu_scopes *cs = amb_hashmap_find_u64(&c->cus, h, key);
	struct scopes_build b = { 0 };
	unsigned visits = IMPORT_VISITS;

	if (cs)
		return cs;
	cs = calloc(1, sizeof(*cs));
	if (!cs)
		return NULL;
	b.cs = cs;
	if (for_each_child(cu, 0, &visits, scope_add, &b) ||
	    !(cs->reach = malloc((cs->n ? cs->n : 1) * sizeof(*cs->reach))))
		goto fail;
	qsort(cs->v, cs->n, sizeof(*cs->v), cu_scope_cmp);
	for (size_t i = 0; i < cs->n; i++)
		cs->reach[i] = i ? AMB_MAX(cs->reach[i - 1], cs->v[i].hi) : cs->v[i].hi;
	if (amb_hashmap_add(&c->cus, h, key, cs))
		goto fail;
	return cs;
fail:
	cu_scopes_free(cs);
	return NULL;
}

/*
 * child_holding() for a CU's own children, from its top-level scopes:
 * of those whose span holds @pc, the first in the CU's order whose ranges
 * hold it.  1 when one is found (into *@found), 0 when none.
 */
static int cu_child_holding(struct cu_scopes *cs, Dwarf_Addr pc, Dwarf_Die *found)
{
	size_t lo = 0, hi = cs->n, best = SIZE_MAX;

	/* The first scope starting above @pc; those before it may hold it
	 * while the running highest end is above it. */
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (cs->v[mid].lo <= pc)
			lo = mid + 1;
		else
			hi = mid;
	}
	while (lo-- > 0 && cs->reach[lo] > pc) {
		struct cu_scope *e = &cs->v[lo];

		if (e->hi > pc && (best == SIZE_MAX || e->order < cs->v[best].order) &&
		    dwarf_haspc(&e->die, pc) > 0)
			best = lo;
	}
	if (best == SIZE_MAX)
		return 0;
	*found = cs->v[best].die;
	return 1;
}

/*
 * The inline chain at @addr, innermost first, into @info: every
 * DW_TAG_inlined_subroutine on the way from the CU down to the innermost
 * DIE holding the address, each with the function it inlines and where it
 * was called from.  The walk is libdw's own scope walk (the first child
 * holding the address at each level, entering only DIEs that can hold
 * scopes), but it keeps every level: dwarf_getscopes() stops at the
 * innermost inlined instance and goes on with the scopes of its abstract
 * definition, so that of leaf() inlined into mid() inlined into top() it
 * gave leaf alone (addr2line -i: leaf, mid, top), and its search for that
 * definition walked the whole CU on every call.
 */
static void lookup_inline(struct ana_sym_cache *c, uint64_t addr, struct ana_sym_info *info)
{
	struct ana_inline_frame chain[ANA_INLINE_MAX];
	struct cu_scopes *cs;
	Dwarf_Die *cu, die, next;
	Dwarf_Files *files = NULL;
	Dwarf_Addr bias, pc;
	size_t nfiles = 0;
	unsigned n = 0, visits = IMPORT_VISITS;

	cu = dwfl_module_addrdie(c->mod, addr, &bias);
	if (!cu)
		return;
	if (dwarf_getsrcfiles(cu, &files, &nfiles))
		files = NULL;
	pc = addr - bias;
	cs = cu_scopes_get(c, cu);
	die = *cu;
	for (int found = cs ? cu_child_holding(cs, pc, &next) :
			      child_holding(&die, pc, &next, &visits);
	     found; found = child_holding(&die, pc, &next, &visits)) {
		die = next;
		if (dwarf_tag(&die) == DW_TAG_inlined_subroutine) {
			struct ana_inline_frame *f;
			Dwarf_Attribute attr;
			Dwarf_Word w;

			/* Outermost first here; past ANA_INLINE_MAX levels the
			 * innermost are kept, as the caller wants them. */
			if (n == ANA_INLINE_MAX) {
				memmove(chain, chain + 1, (ANA_INLINE_MAX - 1) * sizeof(chain[0]));
				n--;
			}
			f = &chain[n++];
			f->name = die_name(c, &die);
			f->file = NULL;
			f->line = 0;
			if (files && !dwarf_formudata(dwarf_attr(&die, DW_AT_call_file, &attr), &w) &&
			    w < nfiles)
				f->file = dwarf_filesrc(files, w, NULL, NULL);
			if (!dwarf_formudata(dwarf_attr(&die, DW_AT_call_line, &attr), &w) &&
			    w <= INT32_MAX)
				f->line = (int)w;
		}
		if (!may_hold_scopes(&die) || !dwarf_haschildren(&die))
			break;
	}
	for (unsigned i = 0; i < n; i++)
		info->inl[i] = chain[n - 1 - i];
	info->nr_inl = n;
}

/*
 * Sort @n spans by start: least significant digit radix sort, a byte at a
 * time, each pass stable, so that symbols starting at one address stay in
 * table order.  The eight bytes are counted in one sweep, and a byte that
 * is the same in every span (the high bytes of a DSO's addresses) costs
 * no pass.  qsort()'s comparator calls were half of a small report's time
 * on libc's 10,000 symbols.  @tmp holds @n spans.
 */
static void spans_sort(struct sym_span *a, struct sym_span *tmp, size_t n)
{
	size_t count[8][256] = { { 0 } };   /* 16 KiB */

	if (n < 2)
		return;
	for (size_t i = 0; i < n; i++)
		for (unsigned d = 0; d < 8; d++)
			count[d][(a[i].start >> (8 * d)) & 0xff]++;
	for (unsigned d = 0; d < 8; d++) {
		unsigned shift = 8 * d;
		size_t at = 0;

		if (count[d][(a[0].start >> shift) & 0xff] == n)
			continue;
		for (unsigned v = 0; v < 256; v++) {
			size_t c = count[d][v];

			count[d][v] = at;
			at += c;
		}
		for (size_t i = 0; i < n; i++)
			tmp[count[d][(a[i].start >> shift) & 0xff]++] = a[i];
		memcpy(a, tmp, n * sizeof(*a));
	}
}

/* GELF_ST_BIND as libdwfl ranks bindings when two symbols contain an
 * address: global over weak over local over anything else. */
enum { RANK_OTHER, RANK_LOCAL, RANK_WEAK, RANK_GLOBAL };

static uint8_t bind_rank(const GElf_Sym *sym)
{
	switch (GELF_ST_BIND(sym->st_info)) {
	case STB_GLOBAL: return RANK_GLOBAL;
	case STB_WEAK:   return RANK_WEAK;
	case STB_LOCAL:  return RANK_LOCAL;
	default:         return RANK_OTHER;
	}
}

/*
 * Every symbol dwfl_module_addrinfo() could answer with, sorted, with the
 * running highest end.  The others (unnamed, undefined, section, file and
 * TLS symbols: the workload's thread-local buffer "starts" at 0 and would
 * seem to cover its functions) play no part in its choice.
 */
static int load_spans(struct ana_sym_cache *c)
{
	int n = dwfl_module_getsymtab(c->mod), i;
	struct sym_span *tmp;
	GElf_Ehdr ehdr;
	GElf_Addr bias;
	Elf *elf;
	size_t k = 0;

	c->spans_loaded = true;
	if (n <= 1)
		return 0;
	/* On ppc64 libdwfl also tries a function's descriptor address. */
	elf = dwfl_module_getelf(c->mod, &bias);
	c->table_rules = elf && gelf_getehdr(elf, &ehdr) && ehdr.e_machine != EM_PPC64;
	c->first_global = dwfl_module_getsymtab_first_global(c->mod);
	if (c->first_global < 0)
		c->table_rules = false;
	c->spans = malloc((size_t)n * sizeof(*c->spans));
	c->reach = malloc((size_t)n * sizeof(*c->reach));
	tmp = malloc((size_t)n * sizeof(*tmp));
	if (!c->spans || !c->reach || !tmp) {
		free(tmp);
		return -ENOMEM;
	}
	for (i = 1; i < n; i++) {
		GElf_Word shndx;
		GElf_Addr a;
		GElf_Sym sym;
		const char *name = dwfl_module_getsym_info(c->mod, i, &sym, &a, &shndx, NULL, NULL);
		int type;

		if (!name || !name[0] || shndx == SHN_UNDEF)
			continue;
		type = GELF_ST_TYPE(sym.st_info);
		if (type == STT_SECTION || type == STT_FILE || type == STT_TLS)
			continue;
		c->spans[k].start = a;
		c->spans[k].name = name;
		c->spans[k].index = (uint32_t)i;
		c->spans[k].bind = bind_rank(&sym);
		c->spans[k].func = type == STT_FUNC || type == STT_GNU_IFUNC;
		/* A symbol running past the address space overlaps all above it. */
		if (__builtin_add_overflow(a, sym.st_size, &c->spans[k].end))
			c->spans[k].end = UINT64_MAX;
		k++;
	}
	spans_sort(c->spans, tmp, k);
	free(tmp);
	for (size_t j = 0; j < k; j++)
		c->reach[j] = j ? AMB_MAX(c->reach[j - 1], c->spans[j].end) : c->spans[j].end;
	c->nr_spans = k;
	return 0;
}

/* After load_spans() failed: no table, so no range is ever clean and
 * every lookup asks libdwfl. */
static void spans_drop(struct ana_sym_cache *c)
{
	free(c->spans);
	free(c->reach);
	c->spans = NULL;
	c->reach = NULL;
	c->nr_spans = 0;
}

/* Index of the first span starting at or above @addr, or nr_spans. */
static size_t spans_lower(const struct ana_sym_cache *c, uint64_t addr)
{
	size_t lo = 0, hi = c->nr_spans;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (c->spans[mid].start < addr)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo;
}

/*
 * True when dwfl_module_addrinfo() names the symbol [start, end) for every
 * address inside it: no other symbol overlaps it or starts inside it but
 * its exact aliases.  It picks, among the symbols containing an address,
 * the closest below with a nonzero size, breaking ties on binding, and
 * falls back to sizeless symbols only when none contains the address (a
 * global one at exactly the address also hides the locals): with no other
 * symbol around, every address of the range sees the same candidates.
 */
static bool range_is_clean(const struct ana_sym_cache *c, uint64_t start, uint64_t end)
{
	size_t i = spans_lower(c, start);

	if (i > 0 && c->reach[i - 1] > start)
		return false;
	for (; i < c->nr_spans && c->spans[i].start < end; i++)
		if (c->spans[i].start != start || c->spans[i].end != end)
			return false;
	return true;
}

/* At most this many symbols are looked at below an address, and at most
 * this many may contain it; past that libdwfl is asked. */
#define SPAN_SCAN 64
#define SPAN_CANDIDATES 16

/* Whether libdwfl's search, having chosen @best, takes @s instead: it is
 * closer to the address, or binds more strongly, or starts at the same
 * address with a smaller size and binds no weaker (its "the end of its
 * range might be closer"). */
static bool span_better(const struct sym_span *best, const struct sym_span *s)
{
	if (!best || best->start < s->start || best->bind < s->bind)
		return true;
	return best->start == s->start && best->end - best->start > s->end - s->start &&
	       best->bind <= s->bind;
}

/*
 * The symbol dwfl_module_addrinfo() names for @addr, chosen by its rules
 * from the sorted table instead of by its walk of the whole table: it
 * goes through the symbols in table order, first from first_global on
 * (the non-local ones), keeping the better one (span_better()) of those
 * with a size that contain @addr; the locals only when none of those
 * does.  Sizeless symbols count only when no symbol with a size contains
 * @addr, or when one is at @addr itself (it can keep the locals out):
 * then, as where more symbols crowd around @addr than this looks at,
 * NULL, and libdwfl decides.
 */
static const struct sym_span *span_choose(const struct ana_sym_cache *c, uint64_t addr)
{
	size_t i = addr == UINT64_MAX ? c->nr_spans : spans_lower(c, addr + 1), j, n = 0;
	const struct sym_span *cand[SPAN_CANDIDATES], *best = NULL;
	unsigned first = c->first_global > 1 ? (unsigned)c->first_global : 1;

	if (!c->table_rules)
		return NULL;
	/* spans[0..i) start at or below @addr. */
	for (j = i; j-- > 0 && c->spans[j].start == addr;)
		if (c->spans[j].end == addr)
			return NULL;
	for (j = i; j-- > 0 && c->reach[j] > addr;) {
		const struct sym_span *s = &c->spans[j];
		size_t k;

		if (i - j > SPAN_SCAN || s->end == UINT64_MAX)
			return NULL;
		if (s->end <= addr)
			continue;
		if (n == SPAN_CANDIDATES)
			return NULL;
		/* Kept in table order, the order libdwfl meets them in. */
		for (k = n++; k > 0 && cand[k - 1]->index > s->index; k--)
			cand[k] = cand[k - 1];
		cand[k] = s;
	}
	for (j = 0; j < n; j++)
		if (cand[j]->index >= first && span_better(best, cand[j]))
			best = cand[j];
	if (!best && c->first_global > 1)
		for (j = 0; j < n && cand[j]->index < first; j++)
			if (span_better(best, cand[j]))
				best = cand[j];
	return best;
}

/* The remembered range containing @addr, or NULL. */
static const struct sym_range *range_find(const struct ana_sym_cache *c, uint64_t addr)
{
	size_t lo = 0, hi = c->nr_ranges;

	/* Invariant: ranges[0..lo) start at or below @addr, ranges[hi..) above. */
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (c->ranges[mid].start <= addr)
			lo = mid + 1;
		else
			hi = mid;
	}
	if (lo && addr < c->ranges[lo - 1].end)
		return &c->ranges[lo - 1];
	return NULL;
}

/* Remember that @name covers [start, start + size) if nothing else can
 * answer for an address there (the table is loaded: lookup_symbol()).
 * Failing to remember costs only time. */
static void range_learn(struct ana_sym_cache *c, uint64_t start, uint64_t size,
			const char *name)
{
	uint64_t end;
	size_t i;

	/* Without the table (none, or it could not be loaded) no range is
	 * known to be clean. */
	if (!size || __builtin_add_overflow(start, size, &end) || !c->spans)
		return;
	if (!range_is_clean(c, start, end))
		return;
	if (amb_ensure_cap((void **)&c->ranges, &c->cap_ranges, sizeof(*c->ranges),
			   c->nr_ranges + 1))
		return;
	for (i = c->nr_ranges; i > 0 && c->ranges[i - 1].start > start; i--)
		;
	memmove(&c->ranges[i + 1], &c->ranges[i], (c->nr_ranges - i) * sizeof(*c->ranges));
	c->ranges[i] = (struct sym_range){ start, end, name };
	c->nr_ranges++;
}

/*
 * @name demangled, when it is a C++ or Rust name (_Z..., _R...) that
 * libiberty's cplus_demangle() understands, without parameters, as perf
 * shows it: "ns::work" for _ZN2ns4workEl.  A PLT stub's NAME@plt keeps its
 * suffix.  Anything else, and any name when c->no_demangle, is returned as
 * it is; so is @name when there is no memory for its copy.  The result
 * lives as long as @c.
 */
static const char *shown_name(struct ana_sym_cache *c, const char *name)
{
	uint64_t h = amb_hash_u64((uintptr_t)name);
	const char *at;
	char *d, *base = NULL;
	size_t len;

	if (!name || c->no_demangle || name[0] != '_' || (name[1] != 'Z' && name[1] != 'R'))
		return name;
	if ((at = amb_hashmap_find_u64(&c->shown, h, (uintptr_t)name)))
		return at;
	len = strlen(name);
	if (len > 4 && !strcmp(name + len - 4, "@plt"))
		base = strndup(name, len - 4);
	d = ana_cplus_demangle(base ? base : name, DMGL_NO_OPTS);
	if (d && base) {
		char *plt = malloc(strlen(d) + sizeof("@plt"));

		if (plt)
			strcpy(stpcpy(plt, d), "@plt");
		free(d);
		d = plt;
	}
	free(base);
	if (d && amb_ensure_cap((void **)&c->demangled, &c->cap_demangled,
				sizeof(*c->demangled), c->nr_demangled + 1)) {
		free(d);
		d = NULL;
	}
	if (d)
		c->demangled[c->nr_demangled++] = d;
	/* Not mangled, or no memory: the name itself, remembered all the
	 * same (a map without room asks again next time). */
	amb_hashmap_add(&c->shown, h, (uintptr_t)name, d ? d : (char *)name);
	return d ? d : name;
}

/* perf's prefix_underscores_count(). */
static size_t leading_underscores(const char *name)
{
	size_t n = 0;

	while (name[n] == '_')
		n++;
	return n;
}

/* Whether perf keeps function @b rather than @a, both starting at one
 * address (its choose_best_symbol(), util/symbol.c): one with a size over
 * a sizeless one, a non-weak one over a weak one, a global one over a
 * local one, fewer leading underscores, the longer name; on a tie the
 * first in table order stays. */
static bool perf_prefers(const struct sym_span *a, const struct sym_span *b)
{
	bool asized = a->end > a->start, bsized = b->end > b->start;
	size_t au, bu, al, bl;

	if (asized != bsized)
		return bsized;
	if ((a->bind == RANK_WEAK) != (b->bind == RANK_WEAK))
		return a->bind == RANK_WEAK;
	if ((a->bind == RANK_GLOBAL) != (b->bind == RANK_GLOBAL))
		return b->bind == RANK_GLOBAL;
	au = leading_underscores(a->name);
	bu = leading_underscores(b->name);
	if (au != bu)
		return bu < au;
	al = strlen(a->name);
	bl = strlen(b->name);
	return bl > al;
}

/*
 * The name perf gives the function at @start that libdwfl named @name:
 * perf keeps one function of those starting at one address, by its own
 * rules (perf_prefers()), where libdwfl takes the first global one of the
 * table (__libc_malloc where perf has malloc, execve where perf has
 * __GI___execve).  @name stays when it is not a function's (perf has no
 * such symbol) or when perf's choice would not contain @addr (a shorter
 * alias); else perf's choice, its size in *@size.
 */
static const char *perf_alias(const struct ana_sym_cache *c, const char *name, uint64_t start,
			      uint64_t addr, uint64_t *size)
{
	const struct sym_span *best = NULL, *named = NULL;

	if (!c->table_rules)
		return name;
	for (size_t i = spans_lower(c, start); i < c->nr_spans && c->spans[i].start == start; i++) {
		const struct sym_span *s = &c->spans[i];

		if (!s->func)
			continue;
		if (s->name == name)
			named = s;
		if (!best || perf_prefers(best, s))
			best = s;
	}
	if (!named || best == named || best->end <= addr)
		return name;
	*size = best->end - best->start;
	return best->name;
}

/*
 * The ELF symbol dwfl_module_addrinfo() names for @addr, its start and its
 * size (0 for a sizeless one), or NULL for none: from a remembered range,
 * else chosen from the sorted table, else (sizeless symbols deciding, or
 * no table) by libdwfl's walk.  A range learnt on the way is remembered.
 * libdwfl's name, as objdump's: perf's is perf_alias()'s.
 */
static const char *symbol_of(struct ana_sym_cache *c, uint64_t addr, uint64_t *start,
			     uint64_t *size)
{
	const struct sym_range *r = range_find(c, addr);
	const struct sym_span *sp;
	GElf_Off off = 0;
	GElf_Sym sym;
	const char *name;

	if (r) {
		*start = r->start;
		*size = r->end - r->start;
		return r->name;
	}
	if (!c->spans_loaded && load_spans(c))
		spans_drop(c);
	if ((sp = span_choose(c, addr))) {
		name = sp->name;
		*start = sp->start;
		*size = sp->end - sp->start;
	} else {
		name = dwfl_module_addrinfo(c->mod, addr, &off, &sym, NULL, NULL, NULL);
		*start = name ? addr - off : addr;
		*size = name ? sym.st_size : 0;
	}
	if (name)
		range_learn(c, *start, *size, name);
	return name;
}

/* The function starting exactly at @addr, for an IRELATIVE PLT stub's
 * ifunc (ana_plt_name()), or NULL. */
static const char *function_at(void *ctx, uint64_t addr)
{
	uint64_t start, size;
	const char *name = symbol_of(ctx, addr, &start, &size);

	return name && start == addr ? name : NULL;
}

/* The ELF symbol containing @addr into @info; a PLT stub, which none
 * covers, as NAME@plt. */
static void lookup_symbol(struct ana_sym_cache *c, uint64_t addr, struct ana_sym_info *info)
{
	struct ana_plt_entry *pe;

	if (!c->plt_loaded) {
		GElf_Addr bias;

		/* Without memory for them, stubs stay unnamed. */
		ana_plt_load(dwfl_module_getelf(c->mod, &bias), &c->plt);
		c->plt_loaded = true;
	}
	if ((pe = ana_plt_find(&c->plt, addr)) && ana_plt_name(&c->plt, pe, function_at, c)) {
		info->name = pe->name;
		info->offset = addr - pe->start;
		info->sym_start = pe->start;
		info->sym_size = pe->end - pe->start;
		return;
	}
	info->name = symbol_of(c, addr, &info->sym_start, &info->sym_size);
	if (!info->name) {
		info->offset = 0;
		info->sym_start = addr;
		info->sym_size = 0;
		return;
	}
	info->name = perf_alias(c, info->name, info->sym_start, addr, &info->sym_size);
	info->offset = addr - info->sym_start;
}

int ana_sym_lookup_data(struct ana_dso *d, uint64_t addr, const char **name, uint64_t *offset)
{
	struct ana_sym_cache *c = cache_get(d);
	struct ana_sym_info info;

	*name = NULL;
	*offset = 0;
	if (!c)
		return -ENOENT;
	memset(&info, 0, sizeof(info));
	lookup_symbol(c, addr, &info);
	*name = shown_name(c, info.name);
	*offset = info.offset;
	return 0;
}

int ana_sym_lookup(struct ana_dso *d, uint64_t addr, unsigned want,
		   const struct ana_sym_info **out)
{
	struct ana_sym_cache *c = cache_get(d);
	struct cache_entry *e;

	if (!c)
		return -ENOENT;
	e = cache_slot(c, addr);
	if (!e)
		return -ENOMEM;
	if (!e->have) {
		lookup_symbol(c, addr, &e->info);
		e->info.raw_name = e->info.name;
		e->info.name = shown_name(c, e->info.name);
		e->have = 1u << 31;   /* symbol done */
	}
	if ((want & ANA_SYM_SRCLINE) && !(e->have & ANA_SYM_SRCLINE)) {
		Dwfl_Line *l = dwfl_module_getsrc(c->mod, addr);
		int line = 0;

		e->info.file = l ? dwfl_lineinfo(l, NULL, &line, NULL, NULL, NULL) : NULL;
		e->info.line = e->info.file ? line : 0;
		e->have |= ANA_SYM_SRCLINE;
	}
	if ((want & ANA_SYM_INLINE) && !(e->have & ANA_SYM_INLINE)) {
		lookup_inline(c, addr, &e->info);
		e->have |= ANA_SYM_INLINE;
	}
	*out = &e->info;
	return 0;
}
