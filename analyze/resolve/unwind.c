// SPDX-License-Identifier: MIT
/*
 * analyze/unwind.c - DWARF call graphs: unwind a sample's user stack
 * offline with libdwfl.
 *
 * Each process gets one Dwfl, attached (dwfl_attach_state) to callbacks
 * that serve the sample being unwound: set_initial_registers maps perf's
 * registers to DWARF's (regs.c), memory_read serves the stack copy
 * [sp, sp + dyn_size) and the read-only mappings of ELF files, from the
 * file.  DSOs are reported to the Dwfl (dwfl_report_begin_add) the first
 * time a frame's pc falls into them, at the load bias of that mapping, so
 * a DSO's CFI is parsed once per process however many samples use it.
 * When a frame's pc falls where a different DSO or load bias was reported
 * (the process exec'd or remapped), the Dwfl is rebuilt and the sample is
 * unwound again.
 *
 * When CFI cannot unwind a frame libdwfl falls back to the architecture's
 * frame-pointer unwinder (elfutils backends/<arch>_unwind.c); such frames
 * are flagged (ana_loc.fallback).  A frame that could only be reached by
 * reading past the end of a full stack copy is never guessed: the stack
 * ends with an ANA_LOC_TRUNCATED marker instead.
 */
#include <assert.h>
#include <elf.h>
#include <elfutils/libdwfl.h>
#include <errno.h>
#include <libelf.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>

#include "analyze/resolve/unwind.h"
#include "common/util.h"
#include <amber/common.h>

/* Processes with a live Dwfl; each holds its DSOs' files open. */
#define UW_MAX_PROCS 32
/* Frames of one user stack when the caller sets no limit. */
#define UW_MAX_FRAMES 1024
/* A failed read this close above a full stack copy is taken as the copy
 * being too short; farther ones are bad pointers. */
#define UW_STACK_SLACK (1u << 20)

/* One DSO reported to a process's Dwfl. */
struct uw_module {
	uint64_t lo, hi;              /* the module's address range */
	uint64_t bias;                /* load address - ELF address */
	const struct ana_dso *dso;
	Dwfl_Module *mod;             /* NULL: reporting failed, do not retry */
	const uint8_t *raw;           /* the ELF file's bytes (libelf's), or NULL */
	size_t raw_size;
};

struct uw_proc {
	struct ana_unwinder *u;
	uint32_t pid;
	Dwfl *dwfl;
	struct uw_module *mods;
	size_t nr_mods, cap_mods;
	uint64_t last_use;
	bool stale;                   /* a mapping changed under a reported module */
};

struct ana_unwinder {
	const struct ana_regs_arch *arch;
	uint8_t ehdr[sizeof(Elf64_Ehdr)];
	Elf *arch_elf;                /* header only: tells libdwfl the machine */
	struct uw_proc *procs[UW_MAX_PROCS];
	size_t nr_procs;
	uint64_t clock;
	struct ana_unwind_stats stats;

	struct ana_dso_table *dsos;   /* where a frame's DSO is looked up */

	/* The sample being unwound. */
	struct ana_thread *t;
	const struct ana_sample *s;
	struct ana_unwind_stack stack;
	unsigned limit;               /* most frames to collect */
	bool read_failed;             /* a memory read failed since the last frame */
	bool read_past_end;           /* ... just above a full stack copy */
	bool truncated, fallback, no_module, ended, cut;

	/* Its frames; handed out once the unwind is known good. */
	struct ana_unwind_frame *frames;
	size_t nr_frames, cap_frames;
};

/*
 * Separate debug files are never looked for.  libdwfl reads a module's
 * .eh_frame first and turns to .debug_frame only for a frame .eh_frame
 * cannot unwind (the outermost one of every stack, whose return address
 * is undefined); finding that in a separate debug file costs opening it
 * and inflating all of its compressed DWARF, once per process, only to
 * find the same rule.  The ELF's own .debug_frame is still used.
 */
static int uw_find_debuginfo(Dwfl_Module *mod, void **userdata, const char *modname,
			     Dwarf_Addr base, const char *file_name, const char *debuglink_file,
			     GElf_Word debuglink_crc, char **debuginfo_file_name)
{
	return -1;
}

static const Dwfl_Callbacks uw_dwfl_callbacks = {
	.find_elf = dwfl_build_id_find_elf,
	.find_debuginfo = uw_find_debuginfo,
	.section_address = dwfl_offline_section_address,
};

bool ana_unwind_stack_init(struct ana_unwind_stack *st, const struct ana_sample *s,
			   const struct ana_regs_arch *arch)
{
	uint64_t sp, len;

	memset(st, 0, sizeof(*st));
	if (!arch || !s->user_abi || !s->user_stack || !s->user_stack_size ||
	    !ana_regs_value(s->user_regs_mask, s->user_regs, arch->perf_sp, &sp))
		return false;
	len = AMB_MIN(s->user_stack_dyn_size, s->user_stack_size);
	/* A copy reaching past the top of the address space is cut there. */
	if (len > UINT64_MAX - sp)
		len = UINT64_MAX - sp;
	st->data = s->user_stack;
	st->sp = sp;
	st->len = len;
	st->full = len && len == s->user_stack_size;
	return true;
}

bool ana_unwind_stack_read(const struct ana_unwind_stack *st, uint64_t addr, uint64_t *val)
{
	if (st->len < 8 || addr < st->sp || addr - st->sp > st->len - 8)
		return false;
	*val = amb_get_le64(st->data + (addr - st->sp));
	return true;
}

/* ---- processes -------------------------------------------------------------- */

static void proc_free(struct uw_proc *p)
{
	if (!p)
		return;
	if (p->dwfl)
		dwfl_end(p->dwfl);
	free(p->mods);
	free(p);
}

static const struct uw_module *proc_module_at(const struct uw_proc *p, uint64_t addr)
{
	size_t i;

	for (i = 0; i < p->nr_mods; i++)
		if (p->mods[i].lo <= addr && addr < p->mods[i].hi)
			return &p->mods[i];
	return NULL;
}

static const struct uw_module *proc_module_of(const struct uw_proc *p, const struct ana_dso *d)
{
	size_t i;

	for (i = 0; i < p->nr_mods; i++)
		if (p->mods[i].dso == d && p->mods[i].mod)
			return &p->mods[i];
	return NULL;
}

/* Serve reads of read-only file mappings (.text, .rodata, .eh_frame) from
 * the file: what a writable mapping holds at run time is not in it. */
static bool file_read(struct uw_proc *p, uint64_t addr, uint64_t *val)
{
	const struct ana_map *map = ana_thread_find_map(p->u->t, addr);
	const struct uw_module *um;
	uint64_t off;

	if (!map || (map->prot & PROT_WRITE) || map->end - addr < 8)
		return false;
	um = proc_module_of(p, map->dso);
	if (!um || !um->raw)
		return false;
	off = ana_map_file_offset(map, addr);
	if (off > um->raw_size || um->raw_size - off < 8)
		return false;
	*val = amb_get_le64(um->raw + off);
	return true;
}

static bool uw_memory_read(Dwfl *dwfl, Dwarf_Addr addr, Dwarf_Word *result, void *arg)
{
	struct uw_proc *p = arg;
	struct ana_unwinder *u = p->u;
	const struct ana_unwind_stack *st = &u->stack;
	uint64_t v;

	if (ana_unwind_stack_read(st, addr, &v) || file_read(p, addr, &v)) {
		*result = v;
		return true;
	}
	u->read_failed = true;
	/* Failing at or above sp, the read went past the copy's end. */
	if (st->full && addr >= st->sp && addr - st->sp < st->len + UW_STACK_SLACK)
		u->read_past_end = true;
	return false;
}

static pid_t uw_next_thread(Dwfl *dwfl, void *dwfl_arg, void **thread_argp)
{
	/* Threads are named by each sample, never enumerated. */
	return 0;
}

static bool uw_get_thread(Dwfl *dwfl, pid_t tid, void *dwfl_arg, void **thread_argp)
{
	*thread_argp = dwfl_arg;
	return true;
}

static bool uw_set_initial_registers(Dwfl_Thread *thread, void *thread_arg)
{
	struct uw_proc *p = thread_arg;
	const struct ana_unwinder *u = p->u;
	const struct ana_regs_arch *arch = u->arch;
	const struct ana_sample *s = u->s;
	Dwarf_Word regs[32];
	unsigned i, first = 0;
	uint64_t pc;

	assert(arch->nr_dwarf <= AMB_ARRAY_SIZE(regs));
	if (!ana_regs_value(s->user_regs_mask, s->user_regs, arch->perf_ip, &pc))
		return false;
	/* Set each run of registers the sample has; the others stay undefined. */
	for (i = 0; i <= arch->nr_dwarf; i++) {
		uint64_t v;

		if (i < arch->nr_dwarf &&
		    ana_regs_value(s->user_regs_mask, s->user_regs, arch->perf_of_dwarf[i], &v)) {
			regs[i] = v;
			continue;
		}
		if (i > first && !dwfl_thread_state_registers(thread, (int)first, i - first,
							      regs + first))
			return false;
		first = i + 1;
	}
	dwfl_thread_state_register_pc(thread, pc);
	return true;
}

static const Dwfl_Thread_Callbacks uw_thread_callbacks = {
	.next_thread = uw_next_thread,
	.get_thread = uw_get_thread,
	.memory_read = uw_memory_read,
	.set_initial_registers = uw_set_initial_registers,
};

static struct uw_proc *proc_new(struct ana_unwinder *u, uint32_t pid)
{
	struct uw_proc *p = calloc(1, sizeof(*p));

	if (!p)
		return NULL;
	p->u = u;
	p->pid = pid;
	p->dwfl = dwfl_begin(&uw_dwfl_callbacks);
	if (!p->dwfl)
		goto fail;
	if (!dwfl_attach_state(p->dwfl, u->arch_elf, (pid_t)pid, &uw_thread_callbacks, p)) {
		amb_warn("unwind: pid %u: cannot attach the unwinder: %s", pid, dwfl_errmsg(-1));
		goto fail;
	}
	u->stats.sessions++;
	return p;
fail:
	proc_free(p);
	return NULL;
}

/* The session of process @pid, made (evicting the least recently used one
 * when all slots are taken) if needed.  NULL when it cannot be made. */
static struct uw_proc *proc_get(struct ana_unwinder *u, uint32_t pid)
{
	size_t i, victim = 0;
	struct uw_proc *p;

	for (i = 0; i < u->nr_procs; i++) {
		if (u->procs[i]->pid == pid) {
			u->procs[i]->last_use = ++u->clock;
			return u->procs[i];
		}
		if (u->procs[i]->last_use < u->procs[victim]->last_use)
			victim = i;
	}
	p = proc_new(u, pid);
	if (!p)
		return NULL;
	p->last_use = ++u->clock;
	if (u->nr_procs < UW_MAX_PROCS) {
		u->procs[u->nr_procs++] = p;
	} else {
		proc_free(u->procs[victim]);
		u->procs[victim] = p;
	}
	return p;
}

/* Replace @p's session by an empty one; NULL (and @p gone) on failure. */
static struct uw_proc *proc_rebuild(struct ana_unwinder *u, struct uw_proc *p)
{
	struct uw_proc *n = proc_new(u, p->pid);
	size_t i;

	for (i = 0; i < u->nr_procs && u->procs[i] != p; i++)
		;
	assert(i < u->nr_procs);
	if (n) {
		n->last_use = p->last_use;
		u->procs[i] = n;
	} else {
		u->procs[i] = u->procs[--u->nr_procs];
	}
	proc_free(p);
	return n;
}

static int proc_add_module(struct uw_proc *p, const struct uw_module *um)
{
	if (amb_ensure_cap((void **)&p->mods, &p->cap_mods, sizeof(*p->mods), p->nr_mods + 1))
		return -ENOMEM;
	p->mods[p->nr_mods++] = *um;
	return 0;
}

/*
 * Make sure the DSO mapped at @pc, a frame's pc, is reported to @p's Dwfl
 * at the right bias, found from @lookup (@pc, or pc - 1 for a return
 * address).  Returns 1 when it is, 0 when there is no ELF to report (no
 * CFI: libdwfl will fall back to frame pointers), -1 when another DSO or
 * bias was reported there (@p->stale set).
 */
static int proc_ensure_module(struct uw_proc *p, uint64_t pc, uint64_t lookup)
{
	const struct ana_map *map = ana_thread_find_map(p->u->t, pc);
	const struct uw_module *um;
	struct uw_module nm = { 0 };
	struct ana_dso *d = map ? map->dso : NULL;
	uint64_t vaddr;
	size_t i;

	if (!d || (d->type != ANA_DSO_TYPE_FILE && d->type != ANA_DSO_TYPE_VDSO))
		return 0;
	if (ana_dso_resolve(p->u->dsos, d) != ANA_DSO_FOUND || !d->elf_path ||
	    ana_dso_file_to_vaddr(d, ana_map_file_offset(map, lookup), &vaddr))
		return 0;
	nm.bias = lookup - vaddr;
	um = proc_module_at(p, lookup);
	if (um) {
		if (um->dso == d && um->bias == nm.bias)
			return um->mod ? 1 : 0;
		p->stale = true;
		return -1;
	}
	nm.dso = d;
	dwfl_report_begin_add(p->dwfl);
	nm.mod = dwfl_report_elf(p->dwfl, d->short_name, d->elf_path, -1, nm.bias, true);
	dwfl_report_end(p->dwfl, NULL, NULL);
	if (nm.mod) {
		Dwarf_Addr lo, hi, bias;
		Elf *elf;

		dwfl_module_info(nm.mod, NULL, &lo, &hi, NULL, NULL, NULL, NULL);
		nm.lo = lo;
		nm.hi = hi;
		elf = dwfl_module_getelf(nm.mod, &bias);
		if (elf)
			nm.raw = (const uint8_t *)elf_rawfile(elf, &nm.raw_size);
		for (i = 0; i < p->nr_mods; i++) {
			if (p->mods[i].lo < nm.hi && nm.lo < p->mods[i].hi) {
				p->stale = true;
				return -1;
			}
		}
	} else {
		amb_warn("unwind: pid %u: cannot use %s: %s", p->pid, d->elf_path,
			 dwfl_errmsg(-1));
		nm.lo = map->start;
		nm.hi = map->end;
	}
	if (proc_add_module(p, &nm))
		return 0;
	return nm.mod ? 1 : 0;
}

/* ---- unwinding ------------------------------------------------------------ */

static int frames_push(struct ana_unwinder *u, uint64_t pc, bool activation, bool fallback)
{
	struct ana_unwind_frame *f;

	if (amb_ensure_cap((void **)&u->frames, &u->cap_frames, sizeof(*u->frames),
			   u->nr_frames + 1))
		return -ENOMEM;
	f = &u->frames[u->nr_frames++];
	f->pc = pc;
	f->activation = activation;
	f->fallback = fallback;
	return 0;
}

static int uw_frame(Dwfl_Frame *state, void *arg)
{
	struct uw_proc *p = arg;
	struct ana_unwinder *u = p->u;
	bool activation, fallback = false, after_fail = u->read_failed, past_end = u->read_past_end;
	Dwarf_Addr pc;
	uint64_t lookup;

	/* The flags tell about the step from the previous frame to this one. */
	u->read_failed = u->read_past_end = false;
	if (!dwfl_frame_pc(state, &pc, &activation))
		return DWARF_CB_ABORT;
	if (!activation && after_fail && past_end) {
		/* CFI needed bytes beyond the copy; whatever libdwfl's
		 * fallback made of the rest would be a guess. */
		u->truncated = true;
		return DWARF_CB_ABORT;
	}
	if (!pc && !activation) {
		/* A zero return address ends the stack (the ABI's outermost frame). */
		u->ended = true;
		return DWARF_CB_ABORT;
	}
	if (u->nr_frames == u->limit) {
		u->cut = true;
		return DWARF_CB_ABORT;
	}
	lookup = activation ? pc : pc - 1;
	if (u->nr_frames && (after_fail || u->no_module)) {
		fallback = true;
		u->fallback = true;
	}
	switch (proc_ensure_module(p, pc, lookup)) {
	case -1:
		return DWARF_CB_ABORT;
	case 0:
		u->no_module = true;
		break;
	default:
		u->no_module = false;
		break;
	}
	if (frames_push(u, pc, activation, fallback))
		return DWARF_CB_ABORT;
	return DWARF_CB_OK;
}

/* Unwind the user part of u->s into u->frames. */
static void unwind_user(struct ana_unwinder *u, uint32_t pid)
{
	struct uw_proc *p = proc_get(u, pid);
	int attempt, ret;

	for (attempt = 0; p && attempt < 2; attempt++) {
		u->nr_frames = 0;
		u->read_failed = u->read_past_end = false;
		u->truncated = u->fallback = u->no_module = u->ended = u->cut = false;
		ret = dwfl_getthread_frames(p->dwfl, (pid_t)ana_thread_tid(u->t), uw_frame, p);
		if (!p->stale) {
			/* libdwfl takes a return address it could not read for
			 * the outermost frame's undefined one (ret 0): only a
			 * last step without failed reads reached the end. */
			bool stopped = u->cut || u->ended;

			if (u->truncated || (!stopped && u->read_past_end)) {
				u->truncated = true;
				u->stats.truncated++;
			} else if (u->ended || (!stopped && !ret && !u->read_failed)) {
				u->stats.complete++;
			} else if (!u->cut) {
				u->stats.failed++;
			}
			if (u->fallback)
				u->stats.partial++;
			return;
		}
		p = proc_rebuild(u, p);
	}
	u->nr_frames = 0;
	u->truncated = false;
	u->stats.failed++;
}

unsigned ana_unwind_user(struct ana_unwinder *u, struct ana_thread *t, const struct ana_sample *s,
			 unsigned max, const struct ana_unwind_frame **frames, bool *truncated)
{
	u->t = t;
	u->s = s;
	u->limit = max ? max : UW_MAX_FRAMES;
	u->stats.samples++;
	ana_unwind_stack_init(&u->stack, s, u->arch);
	unwind_user(u, ana_thread_pid(t));
	*frames = u->frames;
	*truncated = u->truncated;
	return u->nr_frames;
}

bool ana_unwind_sampled_pc(const struct ana_unwinder *u, const struct ana_sample *s, uint64_t *pc)
{
	return ana_regs_value(s->user_regs_mask, s->user_regs, u->arch->perf_ip, pc);
}

bool ana_unwind_usable(const struct ana_unwinder *u, const struct ana_sample *s)
{
	struct ana_unwind_stack st;
	uint64_t pc;

	/* Asked of every sample: most carry no stack copy at all. */
	if (!s->user_stack || !s->user_abi)
		return false;
	return ana_unwind_stack_init(&st, s, u->arch) && st.len >= 8 &&
	       ana_regs_value(s->user_regs_mask, s->user_regs, u->arch->perf_ip, &pc);
}

/* ---- lifetime ----------------------------------------------------------------- */

struct ana_unwinder *ana_unwinder_new(uint16_t e_machine, struct ana_dso_table *dsos)
{
	const struct ana_regs_arch *arch = ana_regs_arch(e_machine);
	struct ana_unwinder *u;

	if (!arch) {
		errno = ENOTSUP;
		return NULL;
	}
	u = calloc(1, sizeof(*u));
	if (!u)
		return NULL;
	u->arch = arch;
	u->dsos = dsos;
	/* libdwfl picks its unwinder backend from an ELF header; make one
	 * that says what the recording's producer was. */
	memcpy(u->ehdr, ELFMAG, SELFMAG);
	u->ehdr[EI_CLASS] = ELFCLASS64;
	u->ehdr[EI_DATA] = ELFDATA2LSB;
	u->ehdr[EI_VERSION] = EV_CURRENT;
	amb_put_le16(&u->ehdr[offsetof(Elf64_Ehdr, e_type)], ET_EXEC);
	amb_put_le16(&u->ehdr[offsetof(Elf64_Ehdr, e_machine)], e_machine);
	amb_put_le32(&u->ehdr[offsetof(Elf64_Ehdr, e_version)], EV_CURRENT);
	amb_put_le16(&u->ehdr[offsetof(Elf64_Ehdr, e_ehsize)], sizeof(Elf64_Ehdr));
	elf_version(EV_CURRENT);
	u->arch_elf = elf_memory((char *)u->ehdr, sizeof(u->ehdr));
	if (!u->arch_elf) {
		free(u);
		errno = EINVAL;
		return NULL;
	}
	return u;
}

void ana_unwinder_free(struct ana_unwinder *u)
{
	size_t i;

	if (!u)
		return;
	for (i = 0; i < u->nr_procs; i++)
		proc_free(u->procs[i]);
	if (u->arch_elf)
		elf_end(u->arch_elf);
	free(u->frames);
	free(u);
}

void ana_unwind_get_stats(const struct ana_unwinder *u, struct ana_unwind_stats *st)
{
	*st = u->stats;
}
