// SPDX-License-Identifier: MIT
/*
 * analyze/machine.c - threads and per-process address spaces rebuilt from
 * COMM, FORK, EXIT and MMAP2 records (see machine.h for the rules).
 */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "analyze/resolve/machine.h"
#include "common/hashmap.h"
#include "common/util.h"
#include <amber/common.h>

struct proc {
	uint32_t pid;
	struct ana_map *maps;  /* sorted by start, never overlapping */
	size_t nr, cap;
	uint64_t gen;          /* names this state of @maps: ana_machine_space_gen() */
	/* The maps before the last exec, until the process is seen running
	 * in user mode (ana_machine_ran_user()): a sample taken inside execve
	 * still holds the old image's user registers, its syscall in the old
	 * libc, which the new maps do not cover. */
	struct ana_map *old;
	size_t nr_old;
};

struct ana_thread {
	uint32_t pid, tid;
	const char *comm;      /* a struct comm_str's text */
	struct proc *proc;
	bool exited;
};

/* Open-addressing table from a 32-bit id to a pointer. */

/*
 * A command name.  Names are never freed before the machine, not even when
 * a thread changes its name: a pointer from ana_thread_comm() then stays
 * valid and never comes to name another string, so reports can use it as
 * the name's identity.  Names change rarely (exec, prctl), so this costs
 * little.
 */
struct comm_str {
	struct comm_str *next;
	char s[];
};

/*
 * Resolved addresses, direct-mapped.  ana_machine_resolve() answers the
 * same for the same address space state (proc.gen, or kernel_gen for
 * kernel addresses), address, lookup address and @want: DSOs are looked
 * for once and symbol caches never forget, and a loc's map pointer stays
 * valid while its proc's state does.  So a stack's frames, seen again and
 * again, are looked up once.
 */
#define RESOLVE_CACHE_SIZE 4096u   /* a power of two */

struct resolve_slot {
	uint64_t gen;                  /* 0: empty */
	uint64_t addr, lookup_addr;
	unsigned want;
	struct ana_loc loc;
};

struct ana_machine {
	struct ana_dso_table *dsos;
	struct resolve_slot *resolved; /* RESOLVE_CACHE_SIZE slots, made on first use */
	size_t resolved_map;           /* amb_big_free()'s size of @resolved */
	struct comm_str *comms;        /* every name ever given */
	uint64_t gen;                  /* the last proc.gen handed out */
	uint64_t kernel_gen;           /* stack key of walks without a thread */
	struct ana_ksyms *ksyms;
	struct ana_session *ksyms_src; /* KSYMS not parsed yet: see machine_ksyms() */
	struct amb_hashmap threads;    /* tid -> struct ana_thread */
	struct amb_hashmap procs;      /* pid -> struct proc */
	uint64_t broken_chains;        /* frame-pointer chains cut (stackwalk.c) */
	size_t pre_exec;               /* procs with an old image (proc.old) */
	const struct ana_dso *broken_dsos[4]; /* after frames of these */
};

static void *id_get(const struct amb_hashmap *t, uint32_t id)
{
	return amb_hashmap_find_u64(t, amb_hash_u64(id), id);
}

/* Store @v under @id, replacing what was there (the caller owns it). */
static int id_put(struct amb_hashmap *t, uint32_t id, void *v)
{
	return amb_hashmap_put_u64(t, amb_hash_u64(id), id, v, NULL);
}

struct ana_machine *ana_machine_new(struct ana_dso_table *dsos)
{
	struct ana_machine *m = calloc(1, sizeof(*m));

	if (!m)
		return NULL;
	m->dsos = dsos;
	m->gen = m->kernel_gen = 1;
	return m;
}

void ana_machine_free(struct ana_machine *m)
{
	struct amb_hashmap_slot *slot;

	if (!m)
		return;
	amb_hashmap_for_each(&m->threads, slot)
		free(slot->value);
	while (m->comms) {
		struct comm_str *c = m->comms;

		m->comms = c->next;
		free(c);
	}
	amb_hashmap_for_each(&m->procs, slot) {
		struct proc *p = slot->value;

		free(p->maps);
		free(p->old);
		free(p);
	}
	amb_hashmap_free(&m->threads);
	amb_hashmap_free(&m->procs);
	ana_ksyms_free(m->ksyms);
	amb_big_free(m->resolved, m->resolved_map);
	free(m);
}

/* @p's mappings changed: give their new state a value never used before. */
static void proc_changed(struct ana_machine *m, struct proc *p)
{
	p->gen = ++m->gen;
}

/* Forget @p's image before its last exec, if it has one. */
static void proc_drop_old(struct ana_machine *m, struct proc *p)
{
	if (!p->old)
		return;
	free(p->old);
	p->old = NULL;
	p->nr_old = 0;
	m->pre_exec--;
	proc_changed(m, p);
}

static struct proc *proc_get(struct ana_machine *m, uint32_t pid)
{
	struct proc *p = id_get(&m->procs, pid);

	if (p)
		return p;
	p = calloc(1, sizeof(*p));
	if (!p)
		return NULL;
	p->pid = pid;
	proc_changed(m, p);
	if (id_put(&m->procs, pid, p)) {
		free(p);
		return NULL;
	}
	return p;
}

static int proc_copy_maps(struct ana_machine *m, struct proc *dst, const struct proc *src)
{
	struct ana_map *maps = NULL;

	if (dst == src)
		return 0;
	proc_drop_old(m, dst);
	if (src->nr) {
		maps = malloc(src->nr * sizeof(*maps));
		if (!maps)
			return -ENOMEM;
		memcpy(maps, src->maps, src->nr * sizeof(*maps));
	}
	free(dst->maps);
	dst->maps = maps;
	dst->nr = dst->cap = src->nr;
	return 0;
}

static int thread_set_comm(struct ana_machine *m, struct ana_thread *t, const char *comm)
{
	size_t len = strlen(comm);
	struct comm_str *c;

	if (t->comm && !strcmp(t->comm, comm))
		return 0;
	c = malloc(sizeof(*c) + len + 1);
	if (!c)
		return -ENOMEM;
	memcpy(c->s, comm, len + 1);
	c->next = m->comms;
	m->comms = c;
	t->comm = c->s;
	return 0;
}

static struct ana_thread *thread_new(struct ana_machine *m, uint32_t pid, uint32_t tid,
				     const char *comm)
{
	struct ana_thread *t = calloc(1, sizeof(*t));
	char name[16];

	if (!t)
		return NULL;
	t->pid = pid;
	t->tid = tid;
	if (!comm) {
		/* Like perf: a thread no record named is ":TID", and the idle
		 * task (pid 0, which no COMM ever names) "swapper". */
		snprintf(name, sizeof(name), ":%u", tid);
		comm = pid == 0 && tid == 0 ? "swapper" : name;
	}
	t->proc = proc_get(m, pid);
	if (!t->proc || thread_set_comm(m, t, comm))
		goto fail;
	if (id_put(&m->threads, tid, t))
		goto fail;
	return t;
fail:
	free(t);
	return NULL;
}

struct ana_thread *ana_machine_thread(struct ana_machine *m, uint32_t pid, uint32_t tid)
{
	struct ana_thread *t = id_get(&m->threads, tid);

	if (t) {
		/* A tid reused by another process: start over. */
		if (t->pid != pid && pid != UINT32_MAX) {
			struct proc *p = proc_get(m, pid);

			if (!p)
				return NULL;
			t->pid = pid;
			t->proc = p;
		}
		return t;
	}
	return thread_new(m, pid, tid, NULL);
}

struct ana_thread *ana_machine_find_thread(const struct ana_machine *m, uint32_t tid)
{
	return id_get(&m->threads, tid);
}

size_t ana_machine_thread_count(const struct ana_machine *m)
{
	return amb_hashmap_count(&m->threads);
}

uint32_t ana_thread_pid(const struct ana_thread *t)
{
	return t->pid;
}

uint32_t ana_thread_tid(const struct ana_thread *t)
{
	return t->tid;
}

const char *ana_thread_comm(const struct ana_thread *t)
{
	return t->comm;
}

bool ana_thread_exited(const struct ana_thread *t)
{
	return t->exited;
}

size_t ana_thread_map_count(const struct ana_thread *t)
{
	return t->proc->nr;
}

/* Index of the first of @nr sorted @maps whose end is above @addr (the
 * only candidate to contain it), or @nr. */
static size_t maps_upper_in(const struct ana_map *maps, size_t nr, uint64_t addr)
{
	size_t lo = 0, hi = nr;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (maps[mid].end <= addr)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo;
}

static size_t maps_upper(const struct proc *p, uint64_t addr)
{
	return maps_upper_in(p->maps, p->nr, addr);
}

const struct ana_map *ana_thread_find_map(const struct ana_thread *t, uint64_t addr)
{
	const struct proc *p = t->proc;
	size_t i = maps_upper(p, addr);

	if (i < p->nr && p->maps[i].start <= addr)
		return &p->maps[i];
	/* Inside execve: the old image's, where the new one has nothing. */
	if (p->nr_old) {
		i = maps_upper_in(p->old, p->nr_old, addr);
		if (i < p->nr_old && p->old[i].start <= addr)
			return &p->old[i];
	}
	return NULL;
}

const struct ana_map *ana_thread_next_map(const struct ana_thread *t, uint64_t addr)
{
	const struct proc *p = t->proc;
	size_t i = maps_upper(p, addr);

	/* maps[i] is the first to end above @addr: it holds it or lies above. */
	if (i < p->nr && p->maps[i].start <= addr)
		i++;
	return i < p->nr ? &p->maps[i] : NULL;
}

/*
 * Insert @nm, cutting away what it overlaps: the maps around it keep their
 * parts outside [nm->start, nm->end), with pgoff moved for a right part.
 */
static int proc_insert_map(struct proc *p, const struct ana_map *nm)
{
	size_t first = maps_upper(p, nm->start), last = first, keep_l = 0, keep_r = 0;
	struct ana_map left, right;

	while (last < p->nr && p->maps[last].start < nm->end)
		last++;
	/* maps[first, last) overlap the new one. */
	if (first < last && p->maps[first].start < nm->start) {
		left = p->maps[first];
		left.end = nm->start;
		keep_l = 1;
	}
	if (first < last && p->maps[last - 1].end > nm->end) {
		right = p->maps[last - 1];
		right.pgoff += nm->end - right.start;
		right.start = nm->end;
		keep_r = 1;
	}
	{
		size_t removed = last - first, added = 1 + keep_l + keep_r;
		size_t nr = p->nr - removed + added;

		if (amb_ensure_cap((void **)&p->maps, &p->cap, sizeof(*p->maps), nr))
			return -ENOMEM;
		memmove(&p->maps[first + added], &p->maps[last],
			(p->nr - last) * sizeof(*p->maps));
		if (keep_l)
			p->maps[first++] = left;
		p->maps[first++] = *nm;
		if (keep_r)
			p->maps[first] = right;
		p->nr = nr;
	}
	return 0;
}

static int process_mmap(struct ana_machine *m, const struct ana_record *rec)
{
	struct ana_thread *t;
	struct ana_map map;
	uint64_t end;

	if (rec->u.mmap.pid == UINT32_MAX)
		return 0;
	if ((rec->misc & PERF_RECORD_MISC_CPUMODE_MASK) == PERF_RECORD_MISC_KERNEL)
		return 0;
	if (!rec->u.mmap.len || __builtin_add_overflow(rec->u.mmap.addr, rec->u.mmap.len, &end))
		return 0;
	t = ana_machine_thread(m, rec->u.mmap.pid, rec->u.mmap.tid);
	if (!t)
		return -ENOMEM;
	map = (struct ana_map){
		.start = rec->u.mmap.addr,
		.end = end,
		.pgoff = rec->u.mmap.pgoff,
		.prot = rec->u.mmap.prot,
		.flags = rec->u.mmap.flags,
	};
	/* Plain MMAP records only come for executable mappings. */
	map.dso = ana_dso_table_get(m->dsos, rec->u.mmap.filename ? rec->u.mmap.filename : "",
				    rec->u.mmap.build_id, rec->u.mmap.build_id_size,
				    rec->type == PERF_RECORD_MMAP || (map.prot & 4 /* PROT_EXEC */),
				    rec->u.mmap.pid);
	if (!map.dso)
		return -ENOMEM;
	proc_changed(m, t->proc);
	return proc_insert_map(t->proc, &map);
}

static int process_comm(struct ana_machine *m, const struct ana_record *rec)
{
	struct ana_thread *t = id_get(&m->threads, rec->u.comm.tid);

	if (t && t->pid != rec->u.comm.pid) {
		/* A tid first met without its process (a sample's, a
		 * tracepoint's next_pid), or reused: the same thread moves,
		 * so that pointers to it stay valid and nothing leaks. */
		struct proc *p = proc_get(m, rec->u.comm.pid);

		if (!p)
			return -ENOMEM;
		t->pid = rec->u.comm.pid;
		t->proc = p;
		t->exited = false;
	}
	if (!t) {
		t = thread_new(m, rec->u.comm.pid, rec->u.comm.tid, rec->u.comm.comm);
		if (!t)
			return -ENOMEM;
	} else if (thread_set_comm(m, t, rec->u.comm.comm)) {
		return -ENOMEM;
	}
	if (rec->u.comm.exec) {
		/* The new image's MMAP2s follow; the old one stays for the
		 * samples still inside execve. */
		struct proc *p = t->proc;

		proc_drop_old(m, p);
		if (p->nr) {
			p->old = p->maps;
			p->nr_old = p->nr;
			m->pre_exec++;
		} else {
			free(p->maps);
		}
		p->maps = NULL;
		p->nr = p->cap = 0;
		proc_changed(m, p);
	}
	return 0;
}

static int process_fork(struct ana_machine *m, const struct ana_record *rec)
{
	struct ana_thread *parent = id_get(&m->threads, rec->u.fork.ptid), *child;
	const char *comm = parent ? parent->comm : NULL;
	uint32_t pid = rec->u.fork.pid, tid = rec->u.fork.tid;

	child = id_get(&m->threads, tid);
	if (child) {
		/* A reused tid: the old thread is gone.  Unless it is the same
		 * thread, alive in the same process: a recorder synthesizes a
		 * running thread's COMM, then its FORK, which must not give
		 * it back its process's name. */
		bool same = !child->exited && child->pid == pid;

		child->pid = pid;
		child->exited = false;
		child->proc = proc_get(m, pid);
		if (!child->proc || (comm && !same && thread_set_comm(m, child, comm)))
			return -ENOMEM;
	} else {
		child = thread_new(m, pid, tid, comm);
		if (!child)
			return -ENOMEM;
	}
	/* A new process starts as a copy of its parent's address space; a new
	 * thread (pid == ppid) shares it already. */
	if (pid != rec->u.fork.ppid) {
		struct proc *pp = parent ? parent->proc : id_get(&m->procs, rec->u.fork.ppid);

		proc_changed(m, child->proc);
		if (pp)
			return proc_copy_maps(m, child->proc, pp);
		proc_drop_old(m, child->proc);
		child->proc->nr = 0;
	}
	return 0;
}

int ana_machine_process(struct ana_machine *m, const struct ana_record *rec)
{
	struct ana_thread *t;

	switch (rec->type) {
	case PERF_RECORD_COMM:
		return process_comm(m, rec);
	case PERF_RECORD_FORK:
		return process_fork(m, rec);
	case PERF_RECORD_EXIT:
		t = id_get(&m->threads, rec->u.fork.tid);
		if (t)
			t->exited = true;
		return 0;
	case PERF_RECORD_MMAP:
	case PERF_RECORD_MMAP2:
		return process_mmap(m, rec);
	default:
		return 0;
	}
}

void ana_machine_set_ksyms(struct ana_machine *m, struct ana_ksyms *k)
{
	struct amb_hashmap_slot *slot;

	ana_ksyms_free(m->ksyms);
	m->ksyms = k;
	m->ksyms_src = NULL;
	/* Kernel frames resolve differently now: no stack key stays valid. */
	m->kernel_gen = ++m->gen;
	amb_hashmap_for_each(&m->procs, slot)
		proc_changed(m, slot->value);
}

int ana_machine_load_session(struct ana_machine *m, struct ana_session *s)
{
	const struct amb_block_filter ksyms = { AMB_BLOCK_KSYMS, -1, 0, 0 };
	size_t i;

	for (i = 0; i < ana_session_buildid_count(s); i++) {
		const struct ana_buildid *b = ana_session_buildid(s, i);

		if ((b->kind != AMB_DSO_USER && b->kind != AMB_DSO_VDSO) || !b->path)
			continue;
		if (ana_dso_table_add_buildid(m->dsos, b->path, b->build_id, b->build_id_len))
			return -ENOMEM;
	}
	/* Parsed when the first kernel address is resolved: a user-only
	 * recording, or a report of user DSOs only, never pays for it. */
	if (amb_reader_next(ana_session_reader(s), &ksyms, 0) != SIZE_MAX) {
		ana_machine_set_ksyms(m, NULL);
		m->ksyms_src = s;
	}
	return 0;
}

/*
 * The kernel symbols, parsed from the session's KSYMS text on first use
 * (ana_machine_load_session()).  Without memory for them kernel addresses
 * stay unresolved, with a warning: resolving cannot fail.
 */
static const struct ana_ksyms *machine_ksyms(struct ana_machine *m)
{
	struct ana_session *s = m->ksyms_src;
	const char *text;
	size_t len;

	if (!s)
		return m->ksyms;
	m->ksyms_src = NULL;
	text = ana_session_ksyms(s, &len);
	if (!text)
		return NULL;
	m->ksyms = ana_ksyms_parse(text, len);
	if (!m->ksyms) {
		amb_warn("KSYMS block: out of memory for %zu bytes of kernel symbols; "
			 "kernel addresses unresolved", len);
		return NULL;
	}
	if (ana_ksyms_bad_lines(m->ksyms))
		amb_warn("KSYMS block: %zu malformed lines skipped", ana_ksyms_bad_lines(m->ksyms));
	if (!ana_ksyms_count(m->ksyms))
		amb_warn("KSYMS block: no usable kernel symbols (addresses hidden by kptr_restrict?)");
	/* Nothing resolved against them before: no stack key to invalidate. */
	return m->ksyms;
}

const struct ana_ksym *ana_machine_ksym(struct ana_machine *m, uint64_t addr, uint64_t *off)
{
	return ana_ksyms_find(machine_ksyms(m), addr, off);
}

uint64_t ana_loc_sym_size(struct ana_machine *m, const struct ana_loc *loc)
{
	if (loc->kind == ANA_LOC_KERNEL)
		return ana_ksyms_size(machine_ksyms(m), loc->ksym);
	return loc->kind == ANA_LOC_SYM ? loc->sym->sym_size : 0;
}

/*
 * Whether @addr is the kernel's: as @cpumode says, and by the address only
 * where the mode says nothing (unknown, hypervisor).  A user-mode address
 * with the top bit set is no kernel code but garbage a frame-pointer walk
 * found on a user stack; perf names it [unknown] in [unknown] too.
 */
static bool is_kernel(unsigned cpumode, uint64_t addr)
{
	if (cpumode == PERF_RECORD_MISC_USER || cpumode == PERF_RECORD_MISC_GUEST_USER)
		return false;
	return cpumode == PERF_RECORD_MISC_KERNEL || cpumode == PERF_RECORD_MISC_GUEST_KERNEL ||
	       (addr >> 63);
}

/* ana_machine_resolve() without the cache. */
static void resolve(struct ana_machine *m, struct ana_thread *t, unsigned cpumode,
		    uint64_t addr, uint64_t lookup_addr, unsigned want, struct ana_loc *loc)
{
	const struct ana_map *map;
	struct ana_dso *d;
	uint64_t vaddr;

	memset(loc, 0, sizeof(*loc));
	loc->addr = addr;
	if (is_kernel(cpumode, addr)) {
		loc->kernel = true;
		loc->ksym = ana_ksyms_find(machine_ksyms(m), lookup_addr, &loc->offset);
		if (loc->ksym) {
			loc->kind = ANA_LOC_KERNEL;
			loc->offset += addr - lookup_addr;
		}
		return;
	}
	if (!t)
		return;
	map = ana_thread_find_map(t, addr);
	if (!map)
		return;
	d = map->dso;
	loc->map = map;
	loc->dso = d;
	/* A [vdso] resolves when its image is embedded (dso.c). */
	if (d->type != ANA_DSO_TYPE_FILE && d->type != ANA_DSO_TYPE_VDSO) {
		loc->kind = ANA_LOC_NO_FILE;
		return;
	}
	switch (ana_dso_resolve(m->dsos, d)) {
	case ANA_DSO_FOUND:
		break;
	case ANA_DSO_MISMATCH:
		loc->kind = ANA_LOC_STALE;
		return;
	default:
		loc->kind = ANA_LOC_NO_FILE;
		return;
	}
	if (lookup_addr < map->start || lookup_addr >= map->end)
		lookup_addr = addr;
	if (ana_dso_file_to_vaddr(d, ana_map_file_offset(map, lookup_addr), &vaddr)) {
		loc->kind = ANA_LOC_NO_SYM;
		loc->vaddr = ana_map_file_offset(map, addr);
		return;
	}
	loc->vaddr = vaddr + (addr - lookup_addr);
	if (ana_sym_lookup(d, vaddr, want, &loc->sym) || !loc->sym->name) {
		loc->kind = ANA_LOC_NO_SYM;
		loc->sym = NULL;
		return;
	}
	loc->kind = ANA_LOC_SYM;
	loc->offset = loc->sym->offset + (addr - lookup_addr);
}

void ana_machine_resolve(struct ana_machine *m, struct ana_thread *t, unsigned cpumode,
			 uint64_t addr, uint64_t lookup_addr, unsigned want,
			 struct ana_loc *loc)
{
	uint64_t gen = is_kernel(cpumode, addr) ? m->kernel_gen : t ? t->proc->gen : 0;
	struct resolve_slot *slot;
	uint64_t h;

	if (!gen) {
		resolve(m, t, cpumode, addr, lookup_addr, want, loc);
		return;
	}
	if (!m->resolved) {
		m->resolved = amb_big_zalloc(RESOLVE_CACHE_SIZE * sizeof(*m->resolved),
					     &m->resolved_map);
		if (!m->resolved) {
			resolve(m, t, cpumode, addr, lookup_addr, want, loc);
			return;
		}
	}
	h = (addr ^ (lookup_addr << 7) ^ (gen << 17) ^ want) * 0x9e3779b97f4a7c15ull;
	slot = &m->resolved[(h >> 32) & (RESOLVE_CACHE_SIZE - 1)];
	if (slot->gen == gen && slot->addr == addr && slot->lookup_addr == lookup_addr &&
	    slot->want == want) {
		*loc = slot->loc;
		return;
	}
	resolve(m, t, cpumode, addr, lookup_addr, want, loc);
	slot->gen = gen;
	slot->addr = addr;
	slot->lookup_addr = lookup_addr;
	slot->want = want;
	slot->loc = *loc;
}

void ana_machine_note_broken_chain(struct ana_machine *m, const struct ana_dso *dso)
{
	m->broken_chains++;
	for (size_t i = 0; dso && i < AMB_ARRAY_SIZE(m->broken_dsos); i++) {
		if (m->broken_dsos[i] == dso)
			break;
		if (!m->broken_dsos[i]) {
			m->broken_dsos[i] = dso;
			break;
		}
	}
}

uint64_t ana_machine_broken_chains(const struct ana_machine *m, const char **names, size_t max,
				   size_t *n)
{
	*n = 0;
	for (size_t i = 0; i < AMB_ARRAY_SIZE(m->broken_dsos) && m->broken_dsos[i] && *n < max; i++)
		names[(*n)++] = m->broken_dsos[i]->short_name;
	return m->broken_chains;
}

const char *ana_loc_dso_name(const struct ana_loc *loc)
{
	if (loc->kind == ANA_LOC_TRUNCATED)
		return "[truncated]";
	if (loc->kernel) {
		if (loc->ksym && loc->ksym->module)
			return loc->ksym->module;
		return "[kernel.kallsyms]";
	}
	if (loc->dso)
		return loc->dso->short_name;
	return "[unknown]";
}

const size_t *ana_machine_pre_exec(const struct ana_machine *m)
{
	return &m->pre_exec;
}

bool ana_machine_ran_user(struct ana_machine *m, uint32_t pid)
{
	struct proc *p = m->pre_exec ? id_get(&m->procs, pid) : NULL;

	if (!p || !p->old)
		return false;
	proc_drop_old(m, p);
	return true;
}

uint64_t ana_machine_space_gen(const struct ana_machine *m, const struct ana_thread *t)
{
	return t ? t->proc->gen : m->kernel_gen;
}

const char *ana_loc_sym_name(const struct ana_loc *loc, char *buf, size_t len)
{
	uint64_t off = loc->map ? ana_map_file_offset(loc->map, loc->addr) : loc->addr;

	switch (loc->kind) {
	case ANA_LOC_KERNEL:
		return loc->ksym->name;
	case ANA_LOC_SYM:
		return loc->sym->name;
	case ANA_LOC_STALE:
		snprintf(buf, len, "[stale build-id] 0x%" PRIx64, off);
		return buf;
	case ANA_LOC_NO_SYM:
	case ANA_LOC_NO_FILE:
		snprintf(buf, len, "0x%" PRIx64, off);
		return buf;
	case ANA_LOC_TRUNCATED:
		return "[truncated]";
	case ANA_LOC_BROKEN_FP:
		return "[broken frame-pointer chain]";
	case ANA_LOC_UNKNOWN:
	default:
		return "[unknown]";
	}
}

const char *ana_loc_frame_name(const struct ana_loc *loc, char *buf, size_t len)
{
	const char *name = ana_loc_sym_name(loc, buf, len);

	if (loc->kernel || !loc->dso || !loc->map)
		return name;
	switch (loc->kind) {
	case ANA_LOC_NO_SYM:
	case ANA_LOC_NO_FILE:
	case ANA_LOC_STALE:
		snprintf(buf, len, "%s%s+0x%" PRIx64, loc->kind == ANA_LOC_STALE ?
			 "[stale build-id] " : "", ana_loc_dso_name(loc),
			 ana_map_file_offset(loc->map, loc->addr));
		return buf;
	default:
		return name;
	}
}

const char *ana_loc_srcline(const struct ana_loc *loc, char *buf, size_t len)
{
	char name[128];
	int n;

	if (loc->kind == ANA_LOC_SYM && loc->sym->file) {
		const char *base = strrchr(loc->sym->file, '/');

		n = snprintf(buf, len, "%s:%d", base ? base + 1 : loc->sym->file, loc->sym->line);
		if (loc->sym->nr_inl && n > 0 && (size_t)n < len)
			snprintf(buf + n, len - (size_t)n, " %s (inlined)", loc->sym->inl[0].name);
		return buf;
	}
	if (loc->kind == ANA_LOC_SYM || loc->kind == ANA_LOC_KERNEL)
		snprintf(buf, len, "%s+0x%" PRIx64, ana_loc_sym_name(loc, name, sizeof(name)),
			 loc->offset);
	else
		snprintf(buf, len, "%s", ana_loc_sym_name(loc, name, sizeof(name)));
	return buf;
}
