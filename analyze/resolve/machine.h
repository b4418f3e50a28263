/* SPDX-License-Identifier: MIT */
/*
 * analyze/machine.h - the traced machine's threads and address spaces,
 * rebuilt from COMM, FORK, EXIT and MMAP2 records (synthesized ones first,
 * then those the kernel wrote while recording).
 *
 * Threads of one process share one address space.  FORK of a new process
 * copies its parent's; COMM with the exec flag empties it (the new image's
 * MMAP2 records follow); a new mapping replaces whatever it overlaps, as
 * mmap(MAP_FIXED) does.
 */
#ifndef AMB_ANALYZE_MACHINE_H
#define AMB_ANALYZE_MACHINE_H

#include <stdbool.h>
#include <stdint.h>

#include "analyze/replay/replay.h"
#include "analyze/resolve/dso.h"
#include "analyze/resolve/symbols.h"
#include "analyze/resolve/ksyms.h"

/* One mapping [start, end) of a process. */
struct ana_map {
	uint64_t start, end;
	uint64_t pgoff;        /* file offset mapped at @start */
	uint32_t prot, flags;
	struct ana_dso *dso;   /* owned by the machine's DSO table */
};

struct ana_thread;
struct ana_machine;

/*
 * A machine whose DSOs come from @dsos (borrowed; must outlive the
 * machine).  NULL with errno set on failure.  Free with
 * ana_machine_free() (NULL accepted).
 */
struct ana_machine *ana_machine_new(struct ana_dso_table *dsos);
void ana_machine_free(struct ana_machine *m);

/*
 * Apply one record: COMM, FORK, EXIT, MMAP and MMAP2 change the model,
 * other types are ignored.  Kernel mappings (pid -1) are ignored: kernel
 * addresses are resolved with ana_ksyms.  Returns 0 or -ENOMEM.
 */
int ana_machine_process(struct ana_machine *m, const struct ana_record *rec);

/*
 * The thread @tid of process @pid, created (named ":TID", with its
 * process's address space, or an empty one) when no record introduced it.
 * NULL on -ENOMEM.  Owned by @m.
 */
struct ana_thread *ana_machine_thread(struct ana_machine *m, uint32_t pid, uint32_t tid);

/* The thread @tid if known, else NULL. */
struct ana_thread *ana_machine_find_thread(const struct ana_machine *m, uint32_t tid);

/* Number of threads known (alive or exited). */
size_t ana_machine_thread_count(const struct ana_machine *m);

/* The process and thread ids of @t. */
uint32_t ana_thread_pid(const struct ana_thread *t);
uint32_t ana_thread_tid(const struct ana_thread *t);
/* The thread's current command name; never NULL.  The string lives as long
 * as the machine, also after the thread changes its name, so its pointer
 * identifies the name (equal pointers: equal names). */
const char *ana_thread_comm(const struct ana_thread *t);
/* True once an EXIT record for @t was applied. */
bool ana_thread_exited(const struct ana_thread *t);

/* The mapping of @t's process containing @addr, or NULL. */
const struct ana_map *ana_thread_find_map(const struct ana_thread *t, uint64_t addr);

/* The first mapping of @t's process above @addr (not holding it), or NULL. */
const struct ana_map *ana_thread_next_map(const struct ana_thread *t, uint64_t addr);

/* Number of mappings of @t's process (for tests and statistics). */
size_t ana_thread_map_count(const struct ana_thread *t);

/*
 * Take the recording's kernel symbols (KSYMS block) and build-id table
 * (BUILDID blocks) from @s.  Returns 0 or -ENOMEM; a recording without
 * KSYMS leaves kernel addresses unresolved.  The kernel symbols are parsed
 * when the first kernel address is resolved, so @s must outlive @m.
 */
int ana_machine_load_session(struct ana_machine *m, struct ana_session *s);

/* Use @k (taken over: freed with @m) for kernel addresses. */
void ana_machine_set_ksyms(struct ana_machine *m, struct ana_ksyms *k);

/* How a resolved address is to be shown. */
enum ana_loc_kind {
	ANA_LOC_UNKNOWN = 0,   /* no mapping, or no kernel symbols */
	ANA_LOC_KERNEL,        /* @ksym set */
	ANA_LOC_SYM,           /* @sym set, from a verified (or unchecked) ELF */
	ANA_LOC_NO_SYM,        /* in a DSO whose ELF is found but no symbol covers it */
	ANA_LOC_NO_FILE,       /* in a DSO whose ELF is missing, or [vdso], //anon, JIT */
	ANA_LOC_STALE,         /* in a DSO whose only candidates have another build-id */
	ANA_LOC_TRUNCATED,     /* marker frame: the user stack copy ended first (unwind.h) */
	ANA_LOC_BROKEN_FP,     /* marker frame: the frame-pointer chain went on into
				* addresses where nothing is mapped (stackwalk.h) */
};

/* One address, resolved.  Pointers are owned by the machine and its DSOs. */
struct ana_loc {
	enum ana_loc_kind kind;
	bool kernel;                    /* a kernel address (shown [k]) */
	uint64_t addr;                  /* as sampled */
	const struct ana_map *map;      /* user mapping, or NULL */
	struct ana_dso *dso;            /* user DSO, or NULL */
	uint64_t vaddr;                 /* ELF address inside @dso (ANA_LOC_SYM/NO_SYM) */
	const struct ana_ksym *ksym;    /* ANA_LOC_KERNEL */
	uint64_t offset;                /* from the symbol's start */
	const struct ana_sym_info *sym; /* ANA_LOC_SYM */
	bool fallback;                  /* unwound by frame pointers: callers may be missing */
	unsigned dropped;               /* ANA_LOC_BROKEN_FP: the recorded entries it stands for */
};

/*
 * Resolve @addr of thread @t (NULL: kernel only) sampled in @cpumode
 * (PERF_RECORD_MISC_*; where it says neither user nor kernel, an address
 * with the top bit set is the kernel's).  @want is ANA_SYM_SRCLINE |
 * ANA_SYM_INLINE or 0.
 * @lookup_addr is the address to symbolize: @addr, or @addr - 1 for a
 * return address so that the call instruction's line and inline chain are
 * found.  Never fails: what cannot be resolved is ANA_LOC_UNKNOWN or marked.
 */
void ana_machine_resolve(struct ana_machine *m, struct ana_thread *t, unsigned cpumode,
			 uint64_t addr, uint64_t lookup_addr, unsigned want,
			 struct ana_loc *loc);

/* The recorded kernel symbol holding @addr, and *@off into it; NULL when
 * the recording has no kernel symbols or none holds @addr.  Loads the
 * KSYMS block on first use. */
const struct ana_ksym *ana_machine_ksym(struct ana_machine *m, uint64_t addr, uint64_t *off);

/* The size of @loc's symbol (the ELF symbol's, or a kernel symbol's up to
 * the next one), 0 when unknown. */
uint64_t ana_loc_sym_size(struct ana_machine *m, const struct ana_loc *loc);

/*
 * A frame-pointer call chain of a sample was cut after a frame in @dso
 * (NULL: not known): the code there keeps no frame pointer (stackwalk.c).
 * The machine remembers how many and the first few DSOs, for one warning.
 */
void ana_machine_note_broken_chain(struct ana_machine *m, const struct ana_dso *dso);
/* How many chains were cut, and up to @max of their DSOs' short names
 * (distinct) into @names, their number in *@n. */
uint64_t ana_machine_broken_chains(const struct ana_machine *m, const char **names, size_t max,
				   size_t *n);

/* Name of the object @loc is in: DSO short name, "[kernel.kallsyms]",
 * "[module]", or "[unknown]". */
const char *ana_loc_dso_name(const struct ana_loc *loc);

/*
 * The function name to show for @loc: the symbol's name, or for what has
 * none "[unknown]", "0x<file offset>" (no symbol or no ELF), or
 * "[stale build-id] 0x<file offset>" (only ELFs of another build exist).
 * Names are returned as is; made-up ones are formatted into @buf.
 */
const char *ana_loc_sym_name(const struct ana_loc *loc, char *buf, size_t len);

/*
 * The ELF's spelling of @loc's symbol when the name shown is another (a
 * demangled C++ or Rust name: "_ZN2ns4workEl" for "ns::work"), else NULL.
 * Two symbols can show alike (overloads); this tells them apart.
 */
static inline const char *ana_loc_mangled(const struct ana_loc *loc)
{
	return loc->kind == ANA_LOC_SYM && loc->sym->raw_name != loc->sym->name ?
		       loc->sym->raw_name : NULL;
}

/*
 * Processes inside execve.  After a COMM record of an exec the old image's
 * maps stay behind the new ones (ana_thread_find_map() falls back to them)
 * until the process is seen in user mode: a sample taken inside execve
 * still carries the old image's user registers.  ana_machine_pre_exec()
 * points at the number of processes with an old image, for a cheap check
 * on every sample; ana_machine_ran_user() says that a sample of process
 * @pid ran in user mode, which forgets its old image, and returns whether
 * there was one (its address space then changed: ana_machine_space_gen()).
 */
const size_t *ana_machine_pre_exec(const struct ana_machine *m);
bool ana_machine_ran_user(struct ana_machine *m, uint32_t pid);

/*
 * A value naming the state of @t's address space (or, with @t NULL, of the
 * kernel's symbols): it changes whenever a mapping of @t's process or the
 * kernel symbols change, and is never reused for another state while @m
 * lives.  What resolving an address gives depends only on it (and on the
 * address and what is asked), so it keys caches of resolved stacks.
 */
uint64_t ana_machine_space_gen(const struct ana_machine *m, const struct ana_thread *t);

/*
 * The name of @loc as a frame of a stack where no column names its object
 * (flame graphs, folded stacks, the export formats): ana_loc_sym_name(),
 * but for what has no symbol in a known object "object+0xoffset"
 * ("libfoo.so+0xfce63"), so that such frames of different objects stay
 * apart.  Made-up names are formatted into @buf.
 */
const char *ana_loc_frame_name(const struct ana_loc *loc, char *buf, size_t len);

/* The file offset @addr corresponds to inside @map's DSO. */
static inline uint64_t ana_map_file_offset(const struct ana_map *map, uint64_t addr)
{
	return addr - map->start + map->pgoff;
}

/*
 * "file.c:42" for @loc (resolved with ANA_SYM_SRCLINE | ANA_SYM_INLINE),
 * followed by " fn (inlined)" when the address is in an inlined copy of
 * fn; "sym+0xoff" when there is no line information.  Returns @buf.
 */
const char *ana_loc_srcline(const struct ana_loc *loc, char *buf, size_t len);

#endif /* AMB_ANALYZE_MACHINE_H */
