/* SPDX-License-Identifier: MIT */
/*
 * record/rec_internal.h - the recorder's own modules, as main.c sees them.
 *
 * options.c   command line -> struct rec_opts
 * target.c    what to record: a forked command, -p/-t threads, CPUs
 * evsel.c     sampling settings on the parsed events; opening them per CPU
 * ring.c      one mmap'ed perf ring per CPU and copying whole records out
 * stage.c     per-CPU staging buffer: record counts, times, lost records
 * drain.c     the drain thread: rings -> staging -> RING blocks
 * buildid.c   NT_GNU_BUILD_ID notes from ELF files, memory and note files
 * kernel.c    /proc/kallsyms, kernel text range, /proc/modules
 * synth.c     SYNTH records (COMM, FORK, MMAP2) and the BUILDID table
 * meta.c      META key/values
 * topology.c  TOPOLOGY key/values (libnuma + sysfs)
 * counts.c    the final COUNTS block
 * ksyms_trim.c after the recording: keep only the kernel symbols samples use
 */
#ifndef AMB_REC_INTERNAL_H
#define AMB_REC_INTERNAL_H

#include <pthread.h>
#include <signal.h>
#include <stdatomic.h>
#include <sys/types.h>

#include <amber/common.h>
#include <amber/format.h>
#include "common/perf_sample.h"
#include "record/record.h"

/* ---- options.c --------------------------------------------------------- */

enum rec_callgraph {
	REC_CG_NONE = 0,
	REC_CG_FP,      /* PERF_SAMPLE_CALLCHAIN walked by the kernel */
	REC_CG_DWARF,   /* user registers + stack copy, unwound by analyze */
};

#define REC_DEFAULT_FREQ        4000u
#define REC_DEFAULT_STACK_SIZE  32768u   /* issue 5 measures this choice */
#define REC_DEFAULT_FLUSH_MS    1000u
#define REC_DEFAULT_OUTPUT      "trace.amber"

struct rec_opts {
	char **event_specs;        /* -e arguments, in order (not owned strings) */
	size_t nr_event_specs, cap_event_specs;
	const char *output;
	unsigned freq;             /* -F; 0 when -c is used */
	uint64_t period;           /* -c; 0 = use freq */
	enum rec_callgraph callgraph;
	uint32_t stack_size;       /* --call-graph dwarf,SIZE */
	bool data;                 /* -d */
	bool branch;               /* --branch */
	unsigned mmap_pages;       /* -m; 0 = chosen from the sampling mode */
	int zstd_level;            /* -z */
	unsigned flush_ms;         /* --flush-interval */
	bool sync;                 /* --sync: fdatasync every block */
	int embed;                 /* --embed[=hit|all]: enum rec_embed_mode */
	int kallsyms;              /* --kallsyms=auto|used|all: enum rec_ksyms_mode */
	double duration;           /* --duration seconds; 0 = until the end */
	pid_t *pids;               /* -p (malloc'ed) */
	size_t nr_pids, cap_pids;
	pid_t *tids;               /* -t (malloc'ed) */
	size_t nr_tids, cap_tids;
	bool system_wide;          /* -a */
	const char *cpulist;       /* -C */
	bool list_events;          /* --list-events [PATTERN] */
	const char *list_pattern;
	bool help, version;
	char **argv;               /* the command after the options, or NULL */
	int argc;
};

/*
 * Parse the command line into @o (zeroed and filled with defaults first).
 * getopt_long state is reset, so this may be called more than once.
 * Returns 0, or -EINVAL with a message for the user in @err.  Free with
 * rec_opts_free(), also after an error.  Strings point into @argv.
 */
int rec_opts_parse(struct rec_opts *o, int argc, char **argv, char *err, size_t errlen);
/* Free the arrays rec_opts_parse() allocated and zero @o (NULL-safe). */
void rec_opts_free(struct rec_opts *o);

/* Default dwarf rings: REC_RING_HOLD_MS of samples, at least MIN_BYTES and
 * at most MAX_BYTES per CPU, all CPUs' rings together within BUDGET. */
#define REC_RING_HOLD_MS    100u
#define REC_RING_MIN_BYTES  (8ull << 20)
#define REC_RING_MAX_BYTES  (32ull << 20)
#define REC_RING_BUDGET     (256ull << 20)

/* Ring pages (of @page_size bytes) to use when -m is not given, by sampling
 * mode, frequency and stack copy size, for rings on @nr_cpus CPUs. */
unsigned rec_opts_default_pages(const struct rec_opts *o, size_t nr_cpus, size_t page_size);

/* ---- target.c ------------------------------------------------------------ */

enum rec_target_kind {
	REC_TARGET_CMD,     /* a command we fork and exec */
	REC_TARGET_PID,     /* -p: all threads of running processes */
	REC_TARGET_TID,     /* -t: single threads */
	REC_TARGET_SYSTEM,  /* -a or -C: every task on the CPUs (while a
			     * command runs, when one is given) */
};

struct rec_target {
	enum rec_target_kind kind;
	int *cpus;          /* CPUs to open events on */
	size_t nr_cpus;
	pid_t *threads;     /* per-thread opens (PID/TID), or the child (CMD) */
	size_t nr_threads, cap_threads;
	pid_t *procs;       /* processes to synthesize (PID/TID: their tgids) */
	size_t nr_procs, cap_procs;
	pid_t child;        /* the forked command (CMD, or SYSTEM with one), else 0 */
	int go_fd;          /* CMD: writing a byte lets the child exec */
	int err_fd;         /* CMD: carries errno of a failed exec (CLOEXEC pipe) */
};

/*
 * Fill @t from @o: the CPU list (-C or every online CPU), the threads of
 * -p/-t (read from /proc/PID/task), or fork the command, which then waits
 * until rec_target_start().  Errors: -ESRCH for a missing process (message
 * in @err), -EINVAL for a bad CPU list, -errno from fork/pipe.
 */
int rec_target_init(struct rec_target *t, const struct rec_opts *o, char *err, size_t errlen);

/* CMD: let the child exec.  Returns 0, or -errno of a failed exec. */
int rec_target_start(struct rec_target *t);

/* True while at least one target process still exists (always true for
 * SYSTEM).  CMD: reaps the child and stores its wait status. */
bool rec_target_alive(struct rec_target *t, int *wstatus);

/* Kill and reap a CMD child that never ran; free the arrays. */
void rec_target_free(struct rec_target *t);

/* Read the threads of process @pid from /proc/PID/task into a malloc'ed
 * array.  Returns the count or -errno (-ESRCH when it does not exist). */
int rec_proc_threads(pid_t pid, pid_t **out);

/* waitpid(@pid, @wstatus, 0), retried on EINTR.  Returns waitpid's value. */
pid_t rec_reap(pid_t pid, int *wstatus);

/* ---- evsel.c ------------------------------------------------------------- */

/* Sampling settings common to every event (rec_attr_apply). */
struct rec_sampling {
	unsigned freq;
	uint64_t period;
	enum rec_callgraph callgraph;
	uint32_t stack_size;
	bool data, branch;
	bool raw;                  /* some event is a tracepoint: RAW on all */
	bool enable_on_exec;       /* CMD targets */
	bool inherit;
	uint32_t wakeup_bytes;     /* watermark */
};

/* The sample_type every event of a recording shares (FORMAT.md §5.6). */
uint64_t rec_sample_type(const struct rec_sampling *s);

/*
 * Fill the sampling part of @ev's attr (already typed by rec_events_parse)
 * from @s, or from the event's own period=/freq= terms when it has them.
 * @first marks the event that also tracks mmap/comm/task (perf does the
 * same on one event only); tracepoints sample every hit with RAW payloads.
 */
void rec_attr_apply(struct rec_event *ev, const struct rec_sampling *s, bool first);

struct rec_ring;

/* All the events of a recording opened on a target. */
struct rec_evlist {
	struct rec_event_list *events;
	size_t nr_cpus, nr_threads;     /* nr_threads = 1 for per-CPU opens */
	int *fds;                       /* [event][cpu][thread], -1 when unopened */
	uint64_t *ids;                  /* same shape: PERF_EVENT_IOC_ID */
	struct rec_ring *rings;         /* one per CPU */
	size_t nr_rings;
};

/*
 * Apply @s to every event of @events and open them on @t: per CPU, per
 * thread for PID/TID targets, disabled unless enable_on_exec.  A hardware
 * event the machine has no PMU for is replaced by cpu-clock (with a
 * warning).  The first fd of each CPU owns a ring of @pages pages; every
 * other fd of that CPU is redirected into it.  Errors: -errno with a
 * message naming the event, CPU and thread in @err, explaining
 * perf_event_paranoid for EACCES/EPERM.
 */
int rec_evlist_open(struct rec_evlist *el, struct rec_event_list *events,
		    const struct rec_sampling *s, const struct rec_target *t,
		    unsigned pages, char *err, size_t errlen);

/* PERF_EVENT_IOC_ENABLE / _DISABLE on every fd; a refused ioctl is
 * reported through amb_warn() naming the event. */
void rec_evlist_enable(struct rec_evlist *el, bool on);

/* Unmap the rings, close the fds, free the arrays (NULL-safe). */
void rec_evlist_close(struct rec_evlist *el);

/* The id the kernel gave the first fd of event @e (for SYNTH trailers). */
uint64_t rec_evlist_first_id(const struct rec_evlist *el, size_t e);

/* ---- ring.c ---------------------------------------------------------------- */

struct rec_stage;

/* One CPU's perf ring: metadata page followed by 2^n data pages. */
struct rec_ring {
	int fd;
	int cpu;
	void *base;                /* mmap: metadata page + data */
	size_t map_len;
	const uint8_t *data;       /* data area */
	uint64_t size;             /* data area bytes, power of two */
};

/* Map @pages data pages (power of two) of @fd.  Returns 0 or -errno. */
int rec_ring_mmap(struct rec_ring *r, int fd, int cpu, unsigned pages);
void rec_ring_unmap(struct rec_ring *r);

/*
 * Copy the whole records in ring data @data (@size bytes, a power of two)
 * between @tail and @head (free-running positions) into @st, handling the
 * wrap at the end of the ring.  Stops early, after the record that fills
 * the stage to st->block_bytes, or when memory runs out.  Returns the new
 * tail: @head or less; a malformed record header (size 0 or beyond head)
 * drops the rest, counted in st->bad, and returns @head.  Pure: no kernel
 * involved.
 */
uint64_t rec_ring_copy(const uint8_t *data, uint64_t size, uint64_t tail, uint64_t head,
		       struct rec_stage *st);

/* Read data_head (acquire), copy, publish data_tail (release).  Returns
 * the bytes consumed; the ring may hold more when the stage became full. */
uint64_t rec_ring_drain(struct rec_ring *r, struct rec_stage *st);

/* ---- stage.c ------------------------------------------------------------- */

struct rec_counters {
	uint64_t records, samples;
	uint64_t lost_records;     /* sum of PERF_RECORD_LOST.lost */
	uint64_t lost_samples;     /* sum of PERF_RECORD_LOST_SAMPLES.lost */
	uint64_t throttle, unthrottle;
	uint64_t bytes;
	uint64_t bad;              /* malformed ring content dropped */
	uint64_t stack_zeroed;     /* stale stack-copy bytes written as zeros */
};

/* Records of one CPU waiting to become a RING block. */
struct rec_stage {
	struct amb_buf buf;
	const struct amb_perf_layout *layout;  /* every event's (FORMAT.md §5.6) */
	uint64_t nr_records;       /* in buf */
	uint64_t first_time, last_time;
	size_t block_bytes;        /* full at this size: ring copies stop; 0 = never */
	struct rec_counters c;     /* running totals, never reset */
};

/*
 * Append one whole record (@len == header.size bytes, already checked) and
 * account it.  In a sample's PERF_SAMPLE_STACK_USER copy the bytes past
 * dyn_size are whatever the ring held before (the kernel skips them): they
 * are stored as zeros, which leaks nothing of earlier samples and costs
 * next to nothing compressed.  Returns 0 or -ENOMEM.
 */
int rec_stage_add(struct rec_stage *st, const void *rec, size_t len);

/* Take the staged bytes (caller frees) and fill @d for a RING block of
 * @cpu; the stage starts empty.  NULL when nothing is staged. */
void *rec_stage_take(struct rec_stage *st, uint32_t cpu, struct amb_block_desc *d, size_t *len);

void rec_stage_free(struct rec_stage *st);

/* ---- drain.c --------------------------------------------------------------- */

struct rec_drain {
	struct rec_ring *rings;
	size_t nr_rings;
	struct amb_writer *w;
	struct amb_perf_layout layout;  /* of the first event, which all share */
	size_t block_bytes;        /* hand a stage over at this size ... */
	unsigned flush_ms;         /* ... or after this long */
	size_t max_queued;         /* the writer's queue limit, for queue_full */
	struct rec_stage *stages;  /* one per ring */
	pthread_t thread;
	bool running;
	atomic_bool stop;
	atomic_int error;          /* first writer error, 0 */
	atomic_ulong queue_full;   /* appends made while the writer queue was full */
};

/*
 * Start draining @rings into @w on a new thread; @attr is the first event's
 * (every event shares its sample layout).  Returns 0 or -errno.
 * rec_drain_stop() drains once more, hands every stage to the writer and
 * joins; counters are then in rec_drain_totals().
 */
int rec_drain_start(struct rec_drain *d, struct rec_ring *rings, size_t n,
		    struct amb_writer *w, const struct perf_event_attr *attr,
		    size_t block_bytes, unsigned flush_ms, size_t max_queued);
void rec_drain_stop(struct rec_drain *d);
void rec_drain_totals(const struct rec_drain *d, struct rec_counters *c);
/* One drain pass over every ring; flush stages that are due.  Used by the
 * thread and by tests.  Returns 0 or the writer's error. */
int rec_drain_pass(struct rec_drain *d, bool flush_all, uint64_t now_ms, uint64_t *last_flush_ms);
void rec_drain_free(struct rec_drain *d);

/* ---- buildid.c ----------------------------------------------------------- */

#define REC_BUILDID_MAX 20u   /* what an MMAP2 record can carry */

struct rec_buildid {
	uint8_t len;                  /* 0: none found */
	uint8_t id[64];
};

/* Find an NT_GNU_BUILD_ID note in a raw note section (@buf, @len: a
 * sequence of ELF notes, as /sys/kernel/notes).  Returns 0, or -ENOENT. */
int rec_buildid_from_notes(const void *buf, size_t len, struct rec_buildid *out);

/* Build-id of the ELF file at @path (libelf).  0, -ENOENT when it has none,
 * -errno when it cannot be opened, -EINVAL when it is not ELF. */
int rec_buildid_from_file(const char *path, struct rec_buildid *out);

/* Same for an ELF image in memory (the vDSO). */
int rec_buildid_from_memory(const void *image, size_t len, struct rec_buildid *out);

/* Cache by (device, inode): each mapped file is read once. */
struct rec_buildid_cache;
/* An empty cache, or NULL (errno ENOMEM).  Free with rec_buildid_cache_free(). */
struct rec_buildid_cache *rec_buildid_cache_new(void);
/* Free @c and its entries (NULL-safe). */
void rec_buildid_cache_free(struct rec_buildid_cache *c);
/* Look up (dev, ino) or read @path; the result (possibly len 0) is cached.
 * Returns 0 with *@out filled, -ENOENT when the file has no build-id (or
 * cannot be read; *@out has len 0), -ENOMEM. */
int rec_buildid_cache_get(struct rec_buildid_cache *c, uint64_t dev, uint64_t ino,
			  const char *path, struct rec_buildid *out);

/* ---- kernel.c -------------------------------------------------------------- */

/* Read /proc/sys/kernel/NAME as an integer; @def when unreadable. */
long rec_proc_sys_long(const char *name, long def);

/*
 * /proc/kallsyms text (caller frees; *@len, which must not be NULL, gets its
 * length), without the never-executed "__pfx_" padding symbols.  When
 * kptr_restrict hides the addresses (all zero) returns NULL with errno
 * EPERM: storing it would be useless.  Other errors: NULL with errno.
 */
char *rec_kallsyms_read(size_t *len);

/* Remove the "__pfx_" symbols' lines from kallsyms @text of @len bytes, in
 * place (the result stays NUL-terminated; lines that do not parse stay).
 * Returns the new length. */
size_t rec_kallsyms_drop_padding(char *text, size_t len);

/* ---- ksyms_trim.c ------------------------------------------------------------ */

enum rec_ksyms_mode {
	REC_KSYMS_AUTO = 0, /* trim when the table is 1/REC_KSYMS_AUTO_SHARE of the file or
			     * more, unless tracepoints print kernel function pointers */
	REC_KSYMS_USED,     /* always trim */
	REC_KSYMS_ALL,      /* keep the whole table */
};
#define REC_KSYMS_AUTO_SHARE 32

/* A kallsyms text's text symbols, sorted by address, each marked used or not. */
struct rec_ksyms;

/* Index kallsyms @text (@len bytes; borrowed: it must outlive the result):
 * the lines common/kallsyms.h parses with a text TYPE (t T w W), none when
 * every address is zero, exactly the symbols the analyzer would read.
 * Returns NULL when out of memory.  Free with rec_ksyms_free(). */
struct rec_ksyms *rec_ksyms_parse(const char *text, size_t len);
void rec_ksyms_free(struct rec_ksyms *k);
size_t rec_ksyms_count(const struct rec_ksyms *k);

/* Mark the symbol holding @addr (the last one starting at or below it),
 * its aliases, and the next symbol, which ends it.  Addresses below every
 * symbol (user space) mark nothing. */
void rec_ksyms_mark(struct rec_ksyms *k, uint64_t addr);

/* Mark what every sample among the records @data (@len bytes, a RING
 * payload of this host) names: IP, ADDR, callchain entries and branch
 * addresses, each also one byte earlier (return addresses are looked up
 * so).  Stops at the first record whose size does not fit. */
void rec_ksyms_mark_records(struct rec_ksyms *k, const struct amb_perf_layout *l,
			    const uint8_t *data, size_t len);

/* Append the marked symbols' lines to @out in their text order; *@kept
 * gets their count.  Returns 0 or -ENOMEM. */
int rec_ksyms_write_used(const struct rec_ksyms *k, struct amb_buf *out, uint64_t *kept);

/* Whether tracefs format file @text (@len bytes) prints a kernel function
 * pointer: %ps, %pS, %pf, %pF or %pB in its "print fmt:". */
bool rec_format_names_functions(const char *text, size_t len);

struct rec_ksyms_trim_stats {
	bool trimmed;
	uint64_t kept, total;          /* text symbols after and before */
	uint64_t bytes_before, bytes_after;
	uint64_t raw_saved;            /* raw (decoded) bytes of the table left out */
};

/*
 * Replace the KSYMS blocks of the closed recording @path (samples laid out
 * as @l) by one holding only the symbols its samples use, plus META keys
 * ksyms.kept and ksyms.total, through a synced copy renamed over @path;
 * other blocks are copied as stored, new blocks compressed at @zstd_level.
 * Nothing is done (0, st->trimmed false) for REC_KSYMS_ALL, a file that is
 * not a regular file or has no KSYMS block, or in REC_KSYMS_AUTO when the
 * table is under 1/REC_KSYMS_AUTO_SHARE of the file or a recorded
 * tracepoint prints kernel function pointers.  Stops with -EINTR
 * once *@stop is set.  On any error @path is left as it was (the copy is
 * removed) and @err says what failed.
 */
int rec_ksyms_trim(const char *path, const struct amb_perf_layout *l, enum rec_ksyms_mode mode,
		   int zstd_level, const volatile sig_atomic_t *stop,
		   struct rec_ksyms_trim_stats *st, char *err, size_t errlen);

struct rec_module {
	char name[64];
	uint64_t addr, size;
};
/* Parse /proc/modules text into a malloc'ed array.  Returns the count or
 * -errno.  Modules with a hidden (zero) address are skipped. */
int rec_modules_parse(const char *text, size_t len, struct rec_module **out);

/* ---- synth.c --------------------------------------------------------------- */

/* What every synthesized record's sample_id_all trailer carries. */
struct rec_synth_ctx {
	uint64_t sample_type;      /* of the first event */
	uint64_t id;               /* its first sample id */
	uint64_t time;             /* recording start time, perf clock */
	uint32_t cpu;
	struct rec_buildid_cache *cache;
	struct amb_buf *buildids;  /* BUILDID entries, one per distinct build-id */
	void *seen;                /* internal: build-ids already listed */
	size_t nr_seen, cap_seen;
	struct rec_buildid vdso;   /* this kernel's vDSO, read once */
	bool vdso_done;
	uint64_t nr_records;       /* records appended so far */
};

/* Append a COMM / FORK (thread @tid to its process @pid) / MMAP2 record
 * with the trailer of @x to @out, counted in x->nr_records.  Returns 0,
 * -ENOMEM, or -E2BIG for a name too long for a u16 record size; on error
 * @out is left as it was. */
int rec_synth_comm(struct rec_synth_ctx *x, struct amb_buf *out, pid_t pid, pid_t tid,
		   const char *comm);
int rec_synth_fork(struct rec_synth_ctx *x, struct amb_buf *out, pid_t pid, pid_t tid);
struct rec_mmap2 {
	uint32_t pid, tid;
	uint64_t addr, len, pgoff;
	uint32_t maj, min;
	uint64_t ino;
	uint32_t prot, flags;
	uint16_t misc;             /* PERF_RECORD_MISC_USER / _KERNEL */
	const struct rec_buildid *bid;  /* NULL or len 0: maj/min/ino form */
	const char *filename;
};
int rec_synth_mmap2(struct rec_synth_ctx *x, struct amb_buf *out, const struct rec_mmap2 *m);

/*
 * COMM, FORK (each thread to its process) and MMAP2 for every executable
 * mapping of process @pid, build-ids read through the cache and listed
 * once in x->buildids.  A process that vanished meanwhile or cannot be
 * read is skipped: returns 0 with nothing added.  Errors: -ENOMEM, -E2BIG.
 */
int rec_synth_process(struct rec_synth_ctx *x, struct amb_buf *out, pid_t pid);

/* MMAP2 of the kernel text and of every module (pid -1, misc KERNEL) from
 * @kallsyms (may be NULL: addresses hidden); their build-ids and the
 * vDSO's go to x->buildids.  Returns 0 or -ENOMEM. */
int rec_synth_kernel(struct rec_synth_ctx *x, struct amb_buf *out,
		     const char *kallsyms, size_t kallsyms_len);

/* rec_synth_process() for every process in /proc (system-wide
 * recording).  Returns 0, -errno when /proc cannot be listed, -ENOMEM,
 * -E2BIG. */
int rec_synth_all(struct rec_synth_ctx *x, struct amb_buf *out);

/* Free the build-id list of @x (not x->cache, not x->buildids). */
void rec_synth_ctx_free(struct rec_synth_ctx *x);

/* Parse one /proc/PID/maps line.  Returns 0, or -EINVAL. */
struct rec_maps_line {
	uint64_t start, end, pgoff, ino;
	uint32_t maj, min;
	uint32_t prot;             /* PROT_* */
	bool shared;
	const char *path;          /* points into the line; "" for anonymous */
};
int rec_maps_parse_line(char *line, struct rec_maps_line *m);

/* ---- meta.c ------------------------------------------------------------- */

/* One instant on both clocks (FORMAT.md §5.1 clock.ref.*). */
void rec_clock_ref(uint64_t *perf_ns, uint64_t *realtime_ns);
uint64_t rec_now_ns(void);   /* CLOCK_MONOTONIC, the perf clock we use */

/* Append the start-of-recording META keys to @b.  @cmdline is the
 * recorder's own command line.  Returns 0 or -ENOMEM. */
int rec_meta_start(struct amb_buf *b, int argc, char **argv, const char *target,
		   const char *cpus_recorded, unsigned ring_pages, uint64_t start_ns);

/* ---- topology.c ------------------------------------------------------------ */

/* Append the TOPOLOGY keys of FORMAT.md §5.7 to @b.  Missing sysfs files
 * are skipped.  Returns 0 or -ENOMEM. */
int rec_topology_build(struct amb_buf *b);

/* ---- counts.c ------------------------------------------------------------ */

/* read() every fd of @el and append COUNTS entries to @b.  Returns the
 * number of entries or -ENOMEM; unreadable fds are skipped with a warning. */
int rec_counts_build(const struct rec_evlist *el, const struct rec_target *t, struct amb_buf *b);

/* ---- embed.c (--embed) ------------------------------------------------------ */

enum rec_embed_mode {
	REC_EMBED_NONE = 0,
	REC_EMBED_HIT,      /* DSOs the targets mapped executable (MMAP2) */
	REC_EMBED_ALL,      /* and every user DSO of the BUILDID table */
};

struct rec_embed_stats {
	unsigned files;     /* files embedded (ELF, debug info, vDSO) */
	uint64_t bytes;     /* their size before compression */
	unsigned stale;     /* left out: the file's build-id changed */
};

/*
 * Append to @w FILE blocks (FORMAT.md §5.5) for the DSOs @mode selects,
 * read back from @path, the recording @w is writing (flushed first): the
 * executable user MMAP2 records of its RING blocks, and of its SYNTH
 * blocks when @synth_is_target (-p/-t targets, not -a's every process) or
 * for REC_EMBED_ALL; REC_EMBED_ALL adds the BUILDID table's user DSOs.
 * Each ELF is embedded only when its bytes carry the recorded build-id
 * (else a warning), with /usr/lib/debug/.build-id/xx/rest.debug when
 * installed, and this kernel's vDSO image.  Returns 0 or a writer error
 * (-ENOMEM, -errno).
 */
int rec_embed_write(struct amb_writer *w, const char *path, enum rec_embed_mode mode,
		    bool synth_is_target, struct rec_embed_stats *st);

#endif /* AMB_REC_INTERNAL_H */
