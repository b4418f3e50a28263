/* SPDX-License-Identifier: MIT */
/*
 * analyze/replay/replay.h - the replay layer's public interface: a
 * recording opened as a session (session.c), its events, and its perf
 * records decoded to host byte order (perf_record.c) and delivered in time
 * order.
 *
 * The layers of analyze/ (docs/ARCHITECTURE.md), each including only those
 * below it and of those only the public header:
 *   cmd/ -> view/ -> resolve/ -> replay/ -> format/ -> common/
 */
#ifndef AMB_ANALYZE_REPLAY_H
#define AMB_ANALYZE_REPLAY_H

#include <linux/perf_event.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include <amber/format.h>

/* ---- events --------------------------------------------------------------- */

/* One EVENT_ATTR entry, decoded to host byte order. */
struct ana_event {
	struct perf_event_attr attr; /* zero-extended from the stored attr_size */
	char *name;
	uint32_t index;              /* entry number (FORMAT.md §5.2) */
	uint32_t leader;             /* UINT32_MAX if none */
	uint32_t flags;              /* AMB_EVENT_* */
	uint64_t *ids;
	uint32_t nr_ids;
	bool tracepoint;             /* attr.type == PERF_TYPE_TRACEPOINT */
};

/* ---- decoded perf records -------------------------------------------------- */

struct ana_branch {
	uint64_t from, to, flags;
};

/*
 * A decoded PERF_RECORD_SAMPLE.  Pointers point into the record's (host
 * order) bytes or the parser's scratch space: valid only during the
 * callback that received the record.
 */
struct ana_sample {
	const struct ana_event *evt;   /* NULL if the id matches no event */
	uint64_t id;
	uint64_t ip;
	uint32_t pid, tid;
	uint64_t time;
	uint64_t addr;
	uint32_t cpu;
	uint64_t period;
	uint64_t nr_callchain;
	const uint64_t *callchain;     /* includes PERF_CONTEXT_* markers */
	uint32_t raw_size;
	const uint8_t *raw;            /* tracepoint payload, producer byte order */
	uint64_t user_abi;             /* PERF_SAMPLE_REGS_ABI_* (0 = none) */
	uint64_t user_regs_mask;       /* attr.sample_regs_user */
	const uint64_t *user_regs;     /* popcount(mask) values, host order */
	uint64_t user_stack_size;
	const uint8_t *user_stack;     /* raw stack bytes (target byte order) */
	uint64_t user_stack_dyn_size;
	uint64_t weight;
	uint64_t data_src;
	uint64_t nr_branches;
	const struct ana_branch *branches;
	uint64_t branch_hw_idx;        /* with PERF_SAMPLE_BRANCH_HW_INDEX, else 0 */
	uint8_t cpumode;               /* header.misc & PERF_RECORD_MISC_CPUMODE_MASK */
	uint64_t stream_id;
	uint64_t transaction;
	uint64_t phys_addr;
	uint64_t cgroup;
	uint64_t data_page_size;
	uint64_t code_page_size;
	uint64_t nr_read;              /* PERF_SAMPLE_READ: u64 words, laid out */
	const uint64_t *read;          /* as attr.read_format says, host order */
	uint64_t intr_abi;             /* PERF_SAMPLE_REGS_INTR, as user_* */
	uint64_t intr_regs_mask;
	const uint64_t *intr_regs;
	uint64_t aux_size;             /* PERF_SAMPLE_AUX */
	const uint8_t *aux;
	/* Samples with the same nonzero chain_key have the same callchain
	 * (the codec told them apart, amb_payload_chains()); 0: not known.
	 * Set by ana_session_for_each(), 0 from ana_parse_record(). */
	uint64_t chain_key;
};

/*
 * Any record, with the sample_id_all fields (pid/tid/time/cpu/id) filled
 * for non-sample records when present.  @type is PERF_RECORD_*.
 */
struct ana_record {
	uint32_t type;
	uint16_t misc;
	uint16_t size;
	uint32_t stream;               /* CPU of the RING block, AMB_STREAM_NONE for SYNTH */
	bool synthesized;              /* from a SYNTH block */
	uint64_t time;
	uint32_t pid, tid, cpu;
	uint64_t id;
	const struct ana_event *evt;
	union {
		struct ana_sample sample;
		struct { uint32_t pid, tid; const char *comm; bool exec; } comm;
		struct { uint32_t pid, ppid, tid, ptid; uint64_t time; } fork; /* FORK and EXIT */
		struct {
			uint32_t pid, tid;
			uint64_t addr, len, pgoff;
			uint32_t maj, min;
			uint64_t ino, ino_generation;
			uint8_t build_id[20];
			uint8_t build_id_size;      /* 0 when the record has maj/min/ino */
			uint32_t prot, flags;
			const char *filename;
		} mmap;                         /* MMAP2, and MMAP (prot/flags 0) */
		struct { uint64_t id, lost; } lost;            /* LOST */
		struct { uint64_t lost; } lost_samples;        /* LOST_SAMPLES */
		struct { uint64_t time, id, stream_id; } throttle; /* THROTTLE/UNTHROTTLE */
		struct { uint64_t offset, size; uint32_t flags; } aux;
		struct { uint32_t next_prev_pid, next_prev_tid; } switch_cpu;
		struct { uint32_t pid, tid; } task;          /* ITRACE_START, READ */
		struct {
			uint64_t addr;
			uint32_t len;
			uint16_t ksym_type, flags;
			const char *name;
		} ksymbol;                                   /* KSYMBOL */
		struct { uint64_t id; const char *path; } cgroup; /* CGROUP */
	} u;
	const uint8_t *bytes;          /* the whole record, host byte order for the header */
};

/* ---- session -------------------------------------------------------------- */

struct ana_session;

/*
 * Open a recording: read its META, EVENT_ATTR, BUILDID, TRACEFS, TOPOLOGY
 * and COUNTS blocks (small; KSYMS waits for ana_session_ksyms()) and prepare
 * the k-way merge of its RING blocks.
 * Problems the format reader stepped over, blocks that do not load and
 * entries that do not parse are reported through amb_warn() and skipped.
 * Errors: as amb_reader_open(), -ENOMEM; *out is NULL then.  Free with
 * ana_session_close() (NULL accepted).
 */
int ana_session_open(const char *path, struct ana_session **out);
void ana_session_close(struct ana_session *s);

/* The format reader of @s (owned by @s). */
struct amb_reader *ana_session_reader(struct ana_session *s);

/* META value for @key as a NUL-terminated string, or NULL. */
const char *ana_session_meta(const struct ana_session *s, const char *key);
/* Number of distinct META keys, and the @i-th key (NULL when out of range)
 * in the order first written, with its value in *val. */
size_t ana_session_meta_count(const struct ana_session *s);
const char *ana_session_meta_at(const struct ana_session *s, size_t i, const char **val);
/* TOPOLOGY value for @key, or NULL. */
const char *ana_session_topology(const struct ana_session *s, const char *key);
/* Number of distinct TOPOLOGY keys, and the @i-th key (NULL when out of
 * range) in the order first written, with its value in *val. */
size_t ana_session_topology_count(const struct ana_session *s);
const char *ana_session_topology_at(const struct ana_session *s, size_t i, const char **val);
/* TRACEFS value for @key ("header_page", "sched/sched_switch"), or NULL; *len set. */
const char *ana_session_tracefs(const struct ana_session *s, const char *key, size_t *len);
/*
 * KSYMS text (NUL-terminated), or NULL when none was recorded.  Decoded on
 * the first call (blocks that do not load are warned about then), so the
 * session is not to be shared between threads while that may happen.
 */
const char *ana_session_ksyms(const struct ana_session *s, size_t *len);

/* The recording's clock reference: one instant as perf time and as
 * CLOCK_REALTIME, in ns (META clock.ref.*).  Returns 0, or -ENODATA when
 * the recording has none. */
int ana_session_clock_ref(const struct ana_session *s, int64_t *perf_ns, int64_t *real_ns);

/* Number of EVENT_ATTR entries, and the @i-th one (owned by @s; @i must be
 * below the count). */
size_t ana_session_event_count(const struct ana_session *s);
const struct ana_event *ana_session_event(const struct ana_session *s, size_t i);
/* The event whose ids include @id, or NULL. */
const struct ana_event *ana_session_event_by_id(const struct ana_session *s, uint64_t id);

/* Build-id table entries (host copies). */
struct ana_buildid {
	uint8_t build_id[64];
	uint8_t build_id_len;
	uint8_t kind;          /* enum amb_dso_kind */
	char *path;
};
/* Number of build-id table entries, and the @i-th one (owned by @s). */
size_t ana_session_buildid_count(const struct ana_session *s);
const struct ana_buildid *ana_session_buildid(const struct ana_session *s, size_t i);

/*
 * One COUNTS block (FORMAT.md §5.4): what each counter counted in the
 * block's window.  Blocks add up: a sampling recording has one, with the
 * final counts; `amber-rec stat -o` writes one per interval or run.
 */
struct ana_counts {
	uint32_t run;                  /* the block's stream: the run of stat -r
					* (0 for a block of no stream) */
	uint64_t first_time, last_time; /* the window, perf clock; 0 when unknown */
	struct amb_count_entry *v;     /* the entries, in file order */
	size_t n;
};
/* Number of COUNTS blocks that loaded, and the @i-th in file order (owned
 * by @s; @i below the count). */
size_t ana_session_counts_count(const struct ana_session *s);
const struct ana_counts *ana_session_counts(const struct ana_session *s, size_t i);

/* True when the raw records need byte swapping on this host. */
bool ana_session_swapped(const struct ana_session *s);

/*
 * Use @n threads in ana_session_for_each(): the caller's, which merges
 * and delivers the records, and @n - 1 workers that decode RING blocks
 * ahead of it; 1: the caller's thread alone, 0 (the default) one per
 * online CPU.  The records, their order and the warnings are the same
 * whatever @n; memory grows by four decoded blocks per worker at most
 * (one decoding, three waiting).
 */
void ana_session_set_jobs(struct ana_session *s, unsigned n);

/* Record callback; return nonzero to stop the iteration (returned as is). */
typedef int (*ana_record_fn)(void *ctx, const struct ana_record *rec);

/*
 * Deliver every record: SYNTH records first in file order, then the RING
 * records of all CPUs merged on timestamp (a k-way merge; records of one
 * stream keep their order even where their times step back a little).
 * Streams block by block: memory is one decoded block and one parser per
 * CPU, never the whole file.  A record that fails to parse is counted in
 * bad_records and reported once with its block and offset; the rest of its
 * block is skipped.  rec->cpu falls back to the RING block's stream when the
 * record carries no CPU.  Resets and fills the stats.  Returns 0, the
 * callback's nonzero value, or -ENOMEM.
 */
int ana_session_for_each(struct ana_session *s, ana_record_fn fn, void *ctx);

struct ana_session_stats {
	uint64_t records;
	uint64_t samples;
	uint64_t lost;          /* from LOST records */
	uint64_t lost_samples;  /* from LOST_SAMPLES records */
	uint64_t bad_records;
	uint64_t first_time, last_time;
};
/* Copy into @st the counts of the last ana_session_for_each(). */
void ana_session_get_stats(const struct ana_session *s, struct ana_session_stats *st);

/* "SAMPLE", "MMAP2", ... for PERF_RECORD_* @type. */
const char *ana_record_type_name(uint32_t type);

/* perf.data files and their import (perfdata.c, perfdata_import.c). */
#include "analyze/replay/perfdata.h"

#endif /* AMB_ANALYZE_REPLAY_H */
