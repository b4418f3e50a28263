// SPDX-License-Identifier: MIT
/*
 * analyze/symbols.c - user-space symbolization with libdwfl: one Dwfl per
 * DSO, reported at base 0 so that module addresses are the ELF's own
 * virtual addresses, and a cache of results per (DSO, address).
 *
 * Symbols come from dwfl_module_addrinfo (.symtab, else .dynsym, and the
 * separate debuginfo libdwfl finds), source lines from dwfl_module_getsrc,
 * and the inline chain from the DWARF scopes (dwarf_getscopes) around the
 * address in its CU.  Line tables and DWARF scopes are read only for the
 * addresses whose caller asks for them (ANA_SYM_SRCLINE, ANA_SYM_INLINE).
 *
 * dwfl_module_addrinfo walks the whole symbol table on each call, so a
 * symbol it named is remembered as an address range whenever no other
 * symbol could answer for an address inside it (range_is_clean): the
 * table is walked about once per function, not once per address.  And
 * where the module's table, read once and sorted, shows one symbol alone
 * around an address (span_alone), that symbol is the answer without the
 * walk; libdwfl is asked where aliases or nested and sizeless symbols
 * leave the choice to its rules.
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

/* Where a symbol of the module's table lies: [start, end), end == start
 * for a sizeless one; its name when dwfl_module_addrinfo() could answer
 * with it at all (named, defined, not a section, file or TLS symbol),
 * else NULL. */
struct sym_span {
	uint64_t start, end;
	const char *name;
};

/* A symbol dwfl_module_addrinfo() answered with for every address of
 * [start, end): see range_is_clean(). */
struct sym_range {
	uint64_t start, end;
	const char *name;
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

void ana_sym_cache_free(struct ana_sym_cache *c)
{
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

static const char *die_name(Dwarf_Die *die)
{
	Dwarf_Attribute attr;
	const char *name;

	/* An inlined instance names its function through DW_AT_abstract_origin;
	 * _integrate follows it (and DW_AT_specification). */
	name = dwarf_formstring(dwarf_attr_integrate(die, DW_AT_name, &attr));
	return name ? name : "??";
}

static void lookup_inline(Dwfl_Module *mod, uint64_t addr, struct ana_sym_info *info)
{
	Dwarf_Die *cu, *scopes = NULL;
	Dwarf_Files *files = NULL;
	Dwarf_Addr bias;
	size_t nfiles = 0;
	int n, i;

	cu = dwfl_module_addrdie(mod, addr, &bias);
	if (!cu)
		return;
	n = dwarf_getscopes(cu, addr - bias, &scopes);
	if (n <= 0)
		return;
	if (dwarf_getsrcfiles(cu, &files, &nfiles))
		files = NULL;
	for (i = 0; i < n && info->nr_inl < ANA_INLINE_MAX; i++) {
		struct ana_inline_frame *f;
		Dwarf_Attribute attr;
		Dwarf_Word w;

		if (dwarf_tag(&scopes[i]) != DW_TAG_inlined_subroutine)
			continue;
		f = &info->inl[info->nr_inl++];
		f->name = die_name(&scopes[i]);
		f->file = NULL;
		f->line = 0;
		if (files && !dwarf_formudata(dwarf_attr(&scopes[i], DW_AT_call_file, &attr), &w) &&
		    w < nfiles)
			f->file = dwarf_filesrc(files, w, NULL, NULL);
		if (!dwarf_formudata(dwarf_attr(&scopes[i], DW_AT_call_line, &attr), &w) &&
		    w <= INT32_MAX)
			f->line = (int)w;
	}
	free(scopes);
}

/*
 * Sort @n spans by start, then end: least significant digit radix sort,
 * a byte at a time, end's bytes then start's, each pass stable.  A pass
 * whose byte is the same in every span (the high bytes of a DSO's
 * addresses) is skipped.  qsort()'s comparator calls were half of a
 * small report's time on libc's 10,000 symbols.  @tmp holds @n spans.
 */
static void spans_sort(struct sym_span *a, struct sym_span *tmp, size_t n)
{
	for (unsigned pass = 0; pass < 16; pass++) {
		unsigned shift = 8 * (pass % 8);
		size_t count[256] = { 0 }, at = 0;
		bool by_end = pass < 8;

		for (size_t i = 0; i < n; i++)
			count[((by_end ? a[i].end : a[i].start) >> shift) & 0xff]++;
		if (n && count[((by_end ? a[0].end : a[0].start) >> shift) & 0xff] == n)
			continue;
		for (unsigned d = 0; d < 256; d++) {
			size_t c = count[d];

			count[d] = at;
			at += c;
		}
		for (size_t i = 0; i < n; i++)
			tmp[count[((by_end ? a[i].end : a[i].start) >> shift) & 0xff]++] = a[i];
		memcpy(a, tmp, n * sizeof(*a));
	}
}

/* Every named symbol's extent, sorted, with the running highest end. */
static int load_spans(struct ana_sym_cache *c)
{
	int n = dwfl_module_getsymtab(c->mod), i;
	struct sym_span *tmp;
	size_t k = 0;

	c->spans_loaded = true;
	if (n <= 1)
		return 0;
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

		if (!name)
			continue;
		type = GELF_ST_TYPE(sym.st_info);
		c->spans[k].start = a;
		c->spans[k].name = name[0] && shndx != SHN_UNDEF && type != STT_SECTION &&
				   type != STT_FILE && type != STT_TLS ? name : NULL;
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

/*
 * The symbol dwfl_module_addrinfo() would name for @addr, found in the
 * sorted table instead of by its walk over the whole table, when that is
 * certain: one eligible symbol with a size contains @addr, and its range
 * is clean (range_is_clean(): no other symbol, alias or not, overlaps it
 * or starts inside it).  Then it is the only candidate with a size, and
 * the sizeless ones are only a fallback.  NULL otherwise.
 */
static const struct sym_span *span_alone(const struct ana_sym_cache *c, uint64_t addr)
{
	size_t i = addr == UINT64_MAX ? c->nr_spans : spans_lower(c, addr + 1);
	const struct sym_span *s;

	if (!i)
		return NULL;
	s = &c->spans[i - 1];   /* the last symbol starting at or below @addr */
	if (!s->name || s->end <= addr || !range_is_clean(c, s->start, s->end))
		return NULL;
	/* range_is_clean() lets exact aliases through; which of them
	 * dwfl_module_addrinfo() names depends on its order and bindings. */
	if (i >= 2 && c->spans[i - 2].start == s->start && c->spans[i - 2].end == s->end)
		return NULL;
	return s;
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

/* The function starting exactly at @addr, for an IRELATIVE PLT stub's
 * ifunc (ana_plt_name()), or NULL. */
static const char *function_at(void *ctx, uint64_t addr)
{
	struct ana_sym_cache *c = ctx;
	GElf_Off off = 0;
	GElf_Sym sym;
	const char *name = dwfl_module_addrinfo(c->mod, addr, &off, &sym, NULL, NULL, NULL);

	return name && !off ? name : NULL;
}

/* The ELF symbol containing @addr into @info; a PLT stub, which none
 * covers, as NAME@plt. */
static void lookup_symbol(struct ana_sym_cache *c, uint64_t addr, struct ana_sym_info *info)
{
	const struct sym_range *r = range_find(c, addr);
	struct ana_plt_entry *pe;
	const struct sym_span *sp;
	GElf_Off off = 0;
	GElf_Sym sym;

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
	if (r) {
		info->name = r->name;
		info->offset = addr - r->start;
		info->sym_start = r->start;
		info->sym_size = r->end - r->start;
		return;
	}
	if (!c->spans_loaded && load_spans(c))
		spans_drop(c);
	if ((sp = span_alone(c, addr))) {
		info->name = sp->name;
		info->offset = addr - sp->start;
		info->sym_start = sp->start;
		info->sym_size = sp->end - sp->start;
		range_learn(c, sp->start, sp->end - sp->start, sp->name);
		return;
	}
	info->name = dwfl_module_addrinfo(c->mod, addr, &off, &sym, NULL, NULL, NULL);
	info->offset = info->name ? off : 0;
	info->sym_start = addr - info->offset;
	info->sym_size = info->name ? sym.st_size : 0;
	if (info->name)
		range_learn(c, info->sym_start, sym.st_size, info->name);
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
		lookup_inline(c->mod, addr, &e->info);
		e->have |= ANA_SYM_INLINE;
	}
	*out = &e->info;
	return 0;
}
