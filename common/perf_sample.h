/* SPDX-License-Identifier: MIT */
/*
 * common/perf_sample.h - the one walker of the kernel's PERF_RECORD_SAMPLE
 * body and of the sample_id_all trailer of other records (the field order
 * of include/uapi/linux/perf_event.h).  Kernel ABI, nothing of amber's
 * format: the recorder walks its samples to their user stack copy and
 * their kernel addresses (record/stage.c, record/ksyms_trim.c), the
 * analyzer decodes every field (analyze/replay/perf_record.c).
 *
 * A record is untrusted input.  The walkers read it in either byte order,
 * check every length and count against the record's size before using it
 * and never read past it; they allocate nothing.  What they report are
 * byte offsets from the record's start (header included) for the parts of
 * variable size, and the values of the fixed-size fields in host order.
 * The kernel keeps every part 8-byte aligned; a sample whose RAW data or
 * user stack copy would break that is refused, so every u64 array a walk
 * reports starts at a multiple of 8 from the record's start.
 */
#ifndef AMB_COMMON_PERF_SAMPLE_H
#define AMB_COMMON_PERF_SAMPLE_H

#include <linux/perf_event.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/*
 * How the records of one event are laid out: the inputs (from its
 * perf_event_attr) and what follows from them.  Fill it with
 * amb_perf_layout_init(); the walkers only read it.
 */
struct amb_perf_layout {
	uint64_t sample_type;
	uint64_t read_format;
	uint32_t nr_regs_user;     /* registers in a REGS_USER dump: popcount(sample_regs_user) */
	uint32_t nr_regs_intr;     /* same for REGS_INTR */
	bool branch_hw_index;      /* BRANCH_STACK carries hw_idx (PERF_SAMPLE_BRANCH_HW_INDEX) */
	/* Derived: */
	uint32_t fixed_size;       /* header + the fixed fields IDENTIFIER .. PERIOD */
	int32_t id_off;            /* sample id in a sample: IDENTIFIER, else ID; -1 */
	int32_t time_off;          /* TIME in a sample; -1 */
	int32_t tid_off, cpu_off;  /* the u32 pairs TID and CPU in a sample; -1 */
	uint32_t trailer_size;     /* bytes of the sample_id_all trailer */
	int32_t trailer_time_off;  /* TIME from the trailer's start; -1 */
	int32_t trailer_id_off;    /* IDENTIFIER, else ID, from the trailer's start; -1 */
};

/*
 * Fill @l from @attr (host order): sample_type, read_format, the register
 * masks and branch_sample_type.  Bits of sample_type the walkers do not
 * know are kept but never walked: nothing follows them in perf_event.h.
 */
void amb_perf_layout_init(struct amb_perf_layout *l, const struct perf_event_attr *attr);

/*
 * The part of a sample a walk could not fit in the record, in record
 * order; AMB_PERF_F_NONE (0) when the walk succeeded.  "_NR" and "_SIZE"
 * name a count or size field itself, the bare name what it counts.
 */
enum amb_perf_field {
	AMB_PERF_F_NONE = 0,
	AMB_PERF_F_IDENTIFIER,
	AMB_PERF_F_IP,
	AMB_PERF_F_TID,
	AMB_PERF_F_TIME,
	AMB_PERF_F_ADDR,
	AMB_PERF_F_ID,
	AMB_PERF_F_STREAM_ID,
	AMB_PERF_F_CPU,
	AMB_PERF_F_PERIOD,
	AMB_PERF_F_READ,           /* the read values (GROUP: nr and entries) */
	AMB_PERF_F_CALLCHAIN_NR,
	AMB_PERF_F_CALLCHAIN,
	AMB_PERF_F_RAW_SIZE,
	AMB_PERF_F_RAW,            /* also: RAW data that does not end on 8 bytes */
	AMB_PERF_F_BRANCH_NR,
	AMB_PERF_F_BRANCH_HW_IDX,
	AMB_PERF_F_BRANCHES,
	AMB_PERF_F_REGS_USER,      /* abi, and the registers unless abi is NONE */
	AMB_PERF_F_STACK_SIZE,
	AMB_PERF_F_STACK,          /* also: a size that is not a multiple of 8 */
	AMB_PERF_F_STACK_DYN_SIZE,
	AMB_PERF_F_STACK_DYN,      /* dyn_size fits but is larger than size */
	AMB_PERF_F_WEIGHT,
	AMB_PERF_F_DATA_SRC,
	AMB_PERF_F_TRANSACTION,
	AMB_PERF_F_REGS_INTR,
	AMB_PERF_F_PHYS_ADDR,
	AMB_PERF_F_CGROUP,
	AMB_PERF_F_DATA_PAGE_SIZE,
	AMB_PERF_F_CODE_PAGE_SIZE,
	AMB_PERF_F_AUX_SIZE,
	AMB_PERF_F_AUX,
	AMB_PERF_F_SAMPLE_ID,      /* a non-sample record shorter than its trailer */
	AMB_PERF_F_MAX
};

/* Whether a walk that returned @err got past @part: the part is then in
 * the result (AMB_PERF_F_NONE: the walk got past every part). */
static inline bool amb_perf_walked(enum amb_perf_field err, enum amb_perf_field part)
{
	return err == AMB_PERF_F_NONE || err > part;
}

/* A short name of @f for messages ("callchain nr", "user stack size");
 * "?" for a value out of range. */
const char *amb_perf_field_name(enum amb_perf_field f);

/*
 * One sample as a walk found it.  Fixed-size fields are values in host
 * order, 0 when the sample does not carry them.  Parts of variable size are
 * a byte offset from the record's start, 0 when absent (or not reached),
 * with their count or size.
 */
struct amb_perf_sample {
	uint64_t id;               /* ID, else IDENTIFIER (the kernel writes one value) */
	uint64_t ip;
	uint32_t pid, tid;
	uint64_t time;
	uint64_t addr;
	uint64_t stream_id;
	uint32_t cpu, cpu_res;
	uint64_t period;
	uint32_t read;             /* @nr_read u64 words laid out as read_format says */
	uint64_t nr_read;
	uint32_t callchain;        /* @nr_callchain u64 entries, PERF_CONTEXT_* markers included */
	uint64_t nr_callchain;
	uint32_t raw;              /* @raw_size bytes, the producer's byte order */
	uint32_t raw_size;
	uint32_t branches;         /* @nr_branches entries of three u64: from, to, flags */
	uint64_t nr_branches;
	uint64_t branch_hw_idx;
	uint64_t user_abi;         /* PERF_SAMPLE_REGS_ABI_*; NONE: no registers follow */
	uint32_t user_regs;        /* layout nr_regs_user u64 values when user_abi != 0 */
	uint32_t stack;            /* @stack_size bytes of user stack copy (when nonzero) */
	uint64_t stack_size;
	uint64_t stack_dyn_size;   /* bytes of the copy the kernel wrote; the rest is stale */
	uint64_t weight;           /* WEIGHT, or WEIGHT_STRUCT as one u64 */
	uint64_t data_src;
	uint64_t transaction;
	uint64_t intr_abi;         /* REGS_INTR, as user_* */
	uint32_t intr_regs;
	uint64_t phys_addr;
	uint64_t cgroup;
	uint64_t data_page_size;
	uint64_t code_page_size;
	uint32_t aux;              /* @aux_size bytes */
	uint64_t aux_size;
	uint64_t claimed;          /* after a failed walk: the count or size the part
				    * that did not fit claimed (0 for a fixed field
				    * and for the read values) */
};

/*
 * Walk sample @rec of @size bytes (header.size, already checked to be at
 * least the 8-byte header and no more than what the caller holds) laid out
 * as @l says; @swapped: the record is in the other byte order.  Fills @out
 * (zeroed first) and returns AMB_PERF_F_NONE, or the part that does not
 * fit; @out then holds every part before it, none after.  Only lengths and
 * dyn_size <= size are checked, never values.  Never reads outside @rec.
 */
enum amb_perf_field amb_perf_sample_walk(const struct amb_perf_layout *l, const void *rec,
					 size_t size, bool swapped, struct amb_perf_sample *out);

/*
 * amb_perf_sample_walk(), rewriting in place, when @swapped, every numeric
 * field it passes in host order: the fixed fields, counts and sizes, the
 * u64 arrays (read values, callchain, branches, registers).  RAW data,
 * the user stack copy and AUX data are byte strings whose meaning only
 * their consumer knows and stay as they are; only their sizes are
 * swapped.  After a failed walk the parts before the failing one are in
 * host order.  A decoder calls this on its own copy of the record.
 */
enum amb_perf_field amb_perf_sample_to_host(const struct amb_perf_layout *l, void *rec,
					    size_t size, bool swapped, struct amb_perf_sample *out);

/*
 * The size in u64 words of the read values at @p (@avail bytes there),
 * the struct read_format of perf_event_open(2) that PERF_SAMPLE_READ and
 * PERF_RECORD_READ carry, laid out as @read_format says: per counter its
 * value, then id and lost when asked for; GROUP: nr first, then the times,
 * then nr counters.  @swapped: the nr is in the other byte order.  Returns
 * 0 when the values do not fit in @avail (or a GROUP lacks even its nr).
 */
uint64_t amb_perf_read_words(uint64_t read_format, const void *p, size_t avail, bool swapped);

/* The sample_id_all trailer of a non-sample record: TID, TIME, ID,
 * STREAM_ID, CPU, IDENTIFIER, those the sample_type selects. */
struct amb_perf_sample_id {
	uint32_t pid, tid;
	uint64_t time;
	uint64_t id;               /* IDENTIFIER, else ID */
	uint64_t stream_id;
	uint32_t cpu, cpu_res;
	uint32_t off;              /* where the trailer starts in the record */
};

/*
 * Read the trailer at the end of record @rec of @size bytes (header.size)
 * into @out (zeroed first).  Whether the record has one (attr.sample_id_all,
 * a kernel record type) is the caller's knowledge.  Returns AMB_PERF_F_NONE,
 * or AMB_PERF_F_SAMPLE_ID when the record after its header is shorter than
 * the trailer (@out stays zeroed).
 */
enum amb_perf_field amb_perf_sample_id_walk(const struct amb_perf_layout *l, const void *rec,
					    size_t size, bool swapped,
					    struct amb_perf_sample_id *out);

/* amb_perf_sample_id_walk(), rewriting the trailer in host order in place
 * when @swapped. */
enum amb_perf_field amb_perf_sample_id_to_host(const struct amb_perf_layout *l, void *rec,
					       size_t size, bool swapped,
					       struct amb_perf_sample_id *out);

/*
 * Write the trailer @id selects by @l into @out (l->trailer_size bytes, in
 * host order), as the kernel would append it to a record of this host.
 * @id->off is ignored.  Returns the bytes written, l->trailer_size.
 */
size_t amb_perf_sample_id_write(const struct amb_perf_layout *l,
				const struct amb_perf_sample_id *id, void *out);

#endif /* AMB_COMMON_PERF_SAMPLE_H */
