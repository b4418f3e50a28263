// SPDX-License-Identifier: MIT
/*
 * common/perf_sample.c - walk a PERF_RECORD_SAMPLE body and a sample_id_all
 * trailer (include/uapi/linux/perf_event.h, FORMAT.md §5.6).
 *
 * One walk serves four entry points: reading only or also rewriting in
 * host order, for either byte order.  It is written once, inlined into
 * each, so that the byte order and the rewriting are constants there and
 * the common case (this host's order, reading only) carries no test of
 * either per field.
 */
#include "common/perf_sample.h"

#include <assert.h>
#include <string.h>

#define ALWAYS_INLINE inline __attribute__((always_inline))

static const char *const field_names[AMB_PERF_F_MAX] = {
	[AMB_PERF_F_NONE] = "nothing",
	[AMB_PERF_F_IDENTIFIER] = "identifier",
	[AMB_PERF_F_IP] = "ip",
	[AMB_PERF_F_TID] = "tid",
	[AMB_PERF_F_TIME] = "time",
	[AMB_PERF_F_ADDR] = "addr",
	[AMB_PERF_F_ID] = "id",
	[AMB_PERF_F_STREAM_ID] = "stream_id",
	[AMB_PERF_F_CPU] = "cpu",
	[AMB_PERF_F_PERIOD] = "period",
	[AMB_PERF_F_READ] = "read values",
	[AMB_PERF_F_CALLCHAIN_NR] = "callchain nr",
	[AMB_PERF_F_CALLCHAIN] = "callchain",
	[AMB_PERF_F_RAW_SIZE] = "raw size",
	[AMB_PERF_F_RAW] = "raw data",
	[AMB_PERF_F_BRANCH_NR] = "branch nr",
	[AMB_PERF_F_BRANCH_HW_IDX] = "branch hw_idx",
	[AMB_PERF_F_BRANCHES] = "branches",
	[AMB_PERF_F_REGS_USER] = "user regs",
	[AMB_PERF_F_STACK_SIZE] = "user stack size",
	[AMB_PERF_F_STACK] = "user stack",
	[AMB_PERF_F_STACK_DYN_SIZE] = "user stack dyn_size",
	[AMB_PERF_F_STACK_DYN] = "user stack dyn_size",
	[AMB_PERF_F_WEIGHT] = "weight",
	[AMB_PERF_F_DATA_SRC] = "data_src",
	[AMB_PERF_F_TRANSACTION] = "transaction",
	[AMB_PERF_F_REGS_INTR] = "intr regs",
	[AMB_PERF_F_PHYS_ADDR] = "phys_addr",
	[AMB_PERF_F_CGROUP] = "cgroup",
	[AMB_PERF_F_DATA_PAGE_SIZE] = "data_page_size",
	[AMB_PERF_F_CODE_PAGE_SIZE] = "code_page_size",
	[AMB_PERF_F_AUX_SIZE] = "aux size",
	[AMB_PERF_F_AUX] = "aux data",
	[AMB_PERF_F_SAMPLE_ID] = "sample_id trailer",
};

const char *amb_perf_field_name(enum amb_perf_field f)
{
	return (unsigned)f < AMB_PERF_F_MAX ? field_names[f] : "?";
}

void amb_perf_layout_init(struct amb_perf_layout *l, const struct perf_event_attr *attr)
{
	uint64_t st = attr->sample_type;
	int32_t off = sizeof(struct perf_event_header);

	memset(l, 0, sizeof(*l));
	l->sample_type = st;
	l->read_format = attr->read_format;
	l->nr_regs_user = (uint32_t)__builtin_popcountll(attr->sample_regs_user);
	l->nr_regs_intr = (uint32_t)__builtin_popcountll(attr->sample_regs_intr);
	l->branch_hw_index = !!(attr->branch_sample_type & PERF_SAMPLE_BRANCH_HW_INDEX);

	/* A sample: IDENTIFIER, IP, TID, TIME, ADDR, ID, STREAM_ID, CPU, PERIOD. */
	l->id_off = l->time_off = l->tid_off = l->cpu_off = -1;
	if (st & PERF_SAMPLE_IDENTIFIER) {
		l->id_off = off;
		off += 8;
	}
	if (st & PERF_SAMPLE_IP)
		off += 8;
	if (st & PERF_SAMPLE_TID) {
		l->tid_off = off;
		off += 8;
	}
	if (st & PERF_SAMPLE_TIME) {
		l->time_off = off;
		off += 8;
	}
	if (st & PERF_SAMPLE_ADDR)
		off += 8;
	if (st & PERF_SAMPLE_ID) {
		if (l->id_off < 0)
			l->id_off = off;
		off += 8;
	}
	if (st & PERF_SAMPLE_STREAM_ID)
		off += 8;
	if (st & PERF_SAMPLE_CPU) {
		l->cpu_off = off;
		off += 8;
	}
	if (st & PERF_SAMPLE_PERIOD)
		off += 8;
	l->fixed_size = (uint32_t)off;

	/* The trailer: TID, TIME, ID, STREAM_ID, CPU, IDENTIFIER. */
	off = 0;
	l->trailer_time_off = l->trailer_id_off = -1;
	if (st & PERF_SAMPLE_TID)
		off += 8;
	if (st & PERF_SAMPLE_TIME) {
		l->trailer_time_off = off;
		off += 8;
	}
	if (st & PERF_SAMPLE_ID) {
		l->trailer_id_off = off;
		off += 8;
	}
	if (st & PERF_SAMPLE_STREAM_ID)
		off += 8;
	if (st & PERF_SAMPLE_CPU)
		off += 8;
	if (st & PERF_SAMPLE_IDENTIFIER) {
		l->trailer_id_off = off;
		off += 8;
	}
	l->trailer_size = (uint32_t)off;
}

/* ---- reading (and rewriting) fields -------------------------------------- */

/*
 * The record being walked: [pos, end) is what is left of it.  The getters
 * do not check the length (their callers do, against the field they read)
 * and, when @wr and @sw, store the value back in host order.
 */
struct cursor {
	uint8_t *b;
	size_t pos, end;
};

static ALWAYS_INLINE size_t left(const struct cursor *c)
{
	return c->end - c->pos;
}

static ALWAYS_INLINE uint64_t take64(struct cursor *c, bool sw, bool wr)
{
	uint64_t v;

	memcpy(&v, c->b + c->pos, 8);
	if (sw) {
		v = __builtin_bswap64(v);
		if (wr)
			memcpy(c->b + c->pos, &v, 8);
	}
	c->pos += 8;
	return v;
}

static ALWAYS_INLINE uint32_t take32(struct cursor *c, bool sw, bool wr)
{
	uint32_t v;

	memcpy(&v, c->b + c->pos, 4);
	if (sw) {
		v = __builtin_bswap32(v);
		if (wr)
			memcpy(c->b + c->pos, &v, 4);
	}
	c->pos += 4;
	return v;
}

/* memset() through libc: its vector stores zero a struct of this size in
 * a few cycles, where the rep stos GCC inlines for a constant size costs
 * as much as a whole walk. */
static ALWAYS_INLINE void zero(void *p, size_t n)
{
	__asm__("" : "+r"(n));
	memset(p, 0, n);
}

/* Skip @n u64 words (which fit), swapping them in place when rewriting. */
static ALWAYS_INLINE void skip64s(struct cursor *c, uint64_t n, bool sw, bool wr)
{
	if (sw && wr) {
		uint8_t *p = c->b + c->pos;

		for (uint64_t i = 0; i < n; i++, p += 8) {
			uint64_t v;

			memcpy(&v, p, 8);
			v = __builtin_bswap64(v);
			memcpy(p, &v, 8);
		}
	}
	c->pos += (size_t)n * 8;
}

uint64_t amb_perf_read_words(uint64_t read_format, const void *p, size_t avail, bool swapped)
{
	const uint64_t per = 1 + !!(read_format & PERF_FORMAT_ID) + !!(read_format & PERF_FORMAT_LOST);
	const uint64_t times = !!(read_format & PERF_FORMAT_TOTAL_TIME_ENABLED) +
			       !!(read_format & PERF_FORMAT_TOTAL_TIME_RUNNING);
	const uint64_t words_left = avail / 8;
	uint64_t words = times + per, nr;

	if (read_format & PERF_FORMAT_GROUP) {
		if (!words_left)
			return 0;
		memcpy(&nr, p, 8);
		if (swapped)
			nr = __builtin_bswap64(nr);
		if (nr > words_left / per)
			return 0;
		words = 1 + times + nr * per;
	}
	return words <= words_left ? words : 0;
}

/* A u64 field of the sample: fail with @f when it does not fit. */
#define U64(dst, f) do {                                \
		if (checked && left(&c) < 8)            \
			return (f);                     \
		(dst) = take64(&c, sw, wr);             \
	} while (0)

/* A u32 pair (TID, CPU). */
#define U32X2(a, b, f) do {                             \
		if (checked && left(&c) < 8)            \
			return (f);                     \
		(a) = take32(&c, sw, wr);               \
		(b) = take32(&c, sw, wr);               \
	} while (0)

/* abi, then @nr registers unless abi is NONE. */
#define REGS(abi, regs, nr, f) do {                     \
		U64(abi, f);                            \
		if ((abi) != PERF_SAMPLE_REGS_ABI_NONE) {       \
			if ((nr) > left(&c) / 8) {      \
				s->claimed = (nr);      \
				return (f);             \
			}                               \
			(regs) = (uint32_t)c.pos;       \
			skip64s(&c, (nr), sw, wr);      \
		}                                       \
	} while (0)

/*
 * The fixed fields IDENTIFIER .. PERIOD.  Unless @checked, the caller
 * knows they all fit.  On failure *@cp is left where it was.
 */
static ALWAYS_INLINE enum amb_perf_field
walk_fixed(uint64_t st, struct cursor *cp, bool sw, bool wr, bool checked,
	   struct amb_perf_sample *s)
{
	struct cursor c = *cp;

	if (st & PERF_SAMPLE_IDENTIFIER)
		U64(s->id, AMB_PERF_F_IDENTIFIER);
	if (st & PERF_SAMPLE_IP)
		U64(s->ip, AMB_PERF_F_IP);
	if (st & PERF_SAMPLE_TID)
		U32X2(s->pid, s->tid, AMB_PERF_F_TID);
	if (st & PERF_SAMPLE_TIME)
		U64(s->time, AMB_PERF_F_TIME);
	if (st & PERF_SAMPLE_ADDR)
		U64(s->addr, AMB_PERF_F_ADDR);
	if (st & PERF_SAMPLE_ID)
		U64(s->id, AMB_PERF_F_ID);
	if (st & PERF_SAMPLE_STREAM_ID)
		U64(s->stream_id, AMB_PERF_F_STREAM_ID);
	if (st & PERF_SAMPLE_CPU)
		U32X2(s->cpu, s->cpu_res, AMB_PERF_F_CPU);
	if (st & PERF_SAMPLE_PERIOD)
		U64(s->period, AMB_PERF_F_PERIOD);
	*cp = c;
	return AMB_PERF_F_NONE;
}

static ALWAYS_INLINE enum amb_perf_field
sample_walk(const struct amb_perf_layout *l, uint8_t *rec, size_t size, bool sw, bool wr,
	    struct amb_perf_sample *s)
{
	struct cursor c = { rec, sizeof(struct perf_event_header), size };
	const uint64_t st = l->sample_type;
	const bool checked = true;
	enum amb_perf_field f;
	uint64_t n, v;

	zero(s, sizeof(*s));
	if (size < c.pos)
		c.end = c.pos;     /* no body at all: the first field fails */
	/* Samples of a sane kernel always hold their fixed fields. */
	if (c.end >= l->fixed_size)
		f = walk_fixed(st, &c, sw, wr, false, s);
	else
		f = walk_fixed(st, &c, sw, wr, true, s);
	if (f)
		return f;
	assert(c.pos == l->fixed_size);

	if (st & PERF_SAMPLE_READ) {
		n = amb_perf_read_words(l->read_format, c.b + c.pos, left(&c), sw);
		if (!n)
			return AMB_PERF_F_READ;
		s->read = (uint32_t)c.pos;
		s->nr_read = n;
		skip64s(&c, n, sw, wr);
	}
	if (st & PERF_SAMPLE_CALLCHAIN) {
		U64(n, AMB_PERF_F_CALLCHAIN_NR);
		if (n > left(&c) / 8) {
			s->claimed = n;
			return AMB_PERF_F_CALLCHAIN;
		}
		s->callchain = (uint32_t)c.pos;
		s->nr_callchain = n;
		skip64s(&c, n, sw, wr);
	}
	if (st & PERF_SAMPLE_RAW) {
		uint32_t raw;

		if (left(&c) < 4)
			return AMB_PERF_F_RAW_SIZE;
		raw = take32(&c, sw, wr);
		/* The kernel pads the data so that the u32 size and it fill u64s. */
		if (raw > left(&c) || (c.pos + raw) % 8) {
			s->claimed = raw;
			return AMB_PERF_F_RAW;
		}
		s->raw = (uint32_t)c.pos;
		s->raw_size = raw;
		c.pos += raw;
	}
	if (st & PERF_SAMPLE_BRANCH_STACK) {
		U64(n, AMB_PERF_F_BRANCH_NR);
		if (l->branch_hw_index)
			U64(s->branch_hw_idx, AMB_PERF_F_BRANCH_HW_IDX);
		if (n > left(&c) / 24) {
			s->claimed = n;
			return AMB_PERF_F_BRANCHES;
		}
		s->branches = (uint32_t)c.pos;
		s->nr_branches = n;
		skip64s(&c, n * 3, sw, wr);
	}
	if (st & PERF_SAMPLE_REGS_USER)
		REGS(s->user_abi, s->user_regs, l->nr_regs_user, AMB_PERF_F_REGS_USER);
	if (st & PERF_SAMPLE_STACK_USER) {
		U64(n, AMB_PERF_F_STACK_SIZE);
		if (n) {
			/* Every part before is aligned; a size that is not a
			 * multiple of 8 would misalign those after. */
			if (n > left(&c) || n % 8) {
				s->claimed = n;
				return AMB_PERF_F_STACK;
			}
			s->stack = (uint32_t)c.pos;
			s->stack_size = n;
			c.pos += (size_t)n;
			U64(v, AMB_PERF_F_STACK_DYN_SIZE);
			s->stack_dyn_size = v;
			if (v > n) {
				s->claimed = v;
				return AMB_PERF_F_STACK_DYN;
			}
		}
	}
	if (st & (PERF_SAMPLE_WEIGHT | PERF_SAMPLE_WEIGHT_STRUCT))
		U64(s->weight, AMB_PERF_F_WEIGHT);
	if (st & PERF_SAMPLE_DATA_SRC)
		U64(s->data_src, AMB_PERF_F_DATA_SRC);
	if (st & PERF_SAMPLE_TRANSACTION)
		U64(s->transaction, AMB_PERF_F_TRANSACTION);
	if (st & PERF_SAMPLE_REGS_INTR)
		REGS(s->intr_abi, s->intr_regs, l->nr_regs_intr, AMB_PERF_F_REGS_INTR);
	if (st & PERF_SAMPLE_PHYS_ADDR)
		U64(s->phys_addr, AMB_PERF_F_PHYS_ADDR);
	if (st & PERF_SAMPLE_CGROUP)
		U64(s->cgroup, AMB_PERF_F_CGROUP);
	if (st & PERF_SAMPLE_DATA_PAGE_SIZE)
		U64(s->data_page_size, AMB_PERF_F_DATA_PAGE_SIZE);
	if (st & PERF_SAMPLE_CODE_PAGE_SIZE)
		U64(s->code_page_size, AMB_PERF_F_CODE_PAGE_SIZE);
	if (st & PERF_SAMPLE_AUX) {
		U64(n, AMB_PERF_F_AUX_SIZE);
		if (n > left(&c)) {
			s->claimed = n;
			return AMB_PERF_F_AUX;
		}
		s->aux = (uint32_t)c.pos;
		s->aux_size = n;
	}
	return AMB_PERF_F_NONE;
}

static ALWAYS_INLINE enum amb_perf_field
sample_id_walk(const struct amb_perf_layout *l, uint8_t *rec, size_t size, bool sw, bool wr,
	       struct amb_perf_sample_id *t)
{
	const uint64_t st = l->sample_type;
	struct cursor c;

	memset(t, 0, sizeof(*t));
	if (size < sizeof(struct perf_event_header) ||
	    size - sizeof(struct perf_event_header) < l->trailer_size)
		return AMB_PERF_F_SAMPLE_ID;
	c.b = rec;
	c.pos = size - l->trailer_size;
	c.end = size;
	t->off = (uint32_t)c.pos;
	if (st & PERF_SAMPLE_TID) {
		t->pid = take32(&c, sw, wr);
		t->tid = take32(&c, sw, wr);
	}
	if (st & PERF_SAMPLE_TIME)
		t->time = take64(&c, sw, wr);
	if (st & PERF_SAMPLE_ID)
		t->id = take64(&c, sw, wr);
	if (st & PERF_SAMPLE_STREAM_ID)
		t->stream_id = take64(&c, sw, wr);
	if (st & PERF_SAMPLE_CPU) {
		t->cpu = take32(&c, sw, wr);
		t->cpu_res = take32(&c, sw, wr);
	}
	if (st & PERF_SAMPLE_IDENTIFIER)
		t->id = take64(&c, sw, wr);
	assert(c.pos == c.end);
	return AMB_PERF_F_NONE;
}

/*
 * The walks only write when asked to rewrite a record of the other byte
 * order, so casting const away for the reading entry points is sound.
 */
enum amb_perf_field amb_perf_sample_walk(const struct amb_perf_layout *l, const void *rec,
					 size_t size, bool swapped, struct amb_perf_sample *out)
{
	uint8_t *b = (uint8_t *)(uintptr_t)rec;

	return swapped ? sample_walk(l, b, size, true, false, out)
		       : sample_walk(l, b, size, false, false, out);
}

enum amb_perf_field amb_perf_sample_to_host(const struct amb_perf_layout *l, void *rec,
					    size_t size, bool swapped, struct amb_perf_sample *out)
{
	return swapped ? sample_walk(l, rec, size, true, true, out)
		       : sample_walk(l, rec, size, false, false, out);
}

enum amb_perf_field amb_perf_sample_id_walk(const struct amb_perf_layout *l, const void *rec,
					    size_t size, bool swapped,
					    struct amb_perf_sample_id *out)
{
	uint8_t *b = (uint8_t *)(uintptr_t)rec;

	return swapped ? sample_id_walk(l, b, size, true, false, out)
		       : sample_id_walk(l, b, size, false, false, out);
}

enum amb_perf_field amb_perf_sample_id_to_host(const struct amb_perf_layout *l, void *rec,
					       size_t size, bool swapped,
					       struct amb_perf_sample_id *out)
{
	return swapped ? sample_id_walk(l, rec, size, true, true, out)
		       : sample_id_walk(l, rec, size, false, false, out);
}

static uint8_t *put32(uint8_t *p, uint32_t v)
{
	memcpy(p, &v, 4);
	return p + 4;
}

static uint8_t *put64(uint8_t *p, uint64_t v)
{
	memcpy(p, &v, 8);
	return p + 8;
}

size_t amb_perf_sample_id_write(const struct amb_perf_layout *l,
				const struct amb_perf_sample_id *id, void *out)
{
	const uint64_t st = l->sample_type;
	uint8_t *p = out;

	if (st & PERF_SAMPLE_TID) {
		p = put32(p, id->pid);
		p = put32(p, id->tid);
	}
	if (st & PERF_SAMPLE_TIME)
		p = put64(p, id->time);
	if (st & PERF_SAMPLE_ID)
		p = put64(p, id->id);
	if (st & PERF_SAMPLE_STREAM_ID)
		p = put64(p, id->stream_id);
	if (st & PERF_SAMPLE_CPU) {
		p = put32(p, id->cpu);
		p = put32(p, id->cpu_res);
	}
	if (st & PERF_SAMPLE_IDENTIFIER)
		p = put64(p, id->id);
	assert((size_t)(p - (uint8_t *)out) == l->trailer_size);
	return l->trailer_size;
}
