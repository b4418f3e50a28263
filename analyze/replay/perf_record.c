// SPDX-License-Identifier: MIT
/*
 * analyze/replay/perf_record.c - decode raw perf records into struct
 * ana_record.
 *
 * Records come from an untrusted file (FORMAT.md §5.6): every field is read
 * through a cursor bounded by header.size, every count is checked against
 * what is left of the record before it is used, and nothing is allocated
 * per record.  Each record is first copied into the parser's aligned
 * scratch buffer (header.size is a u16, so 64 KiB always suffices); records
 * of the other byte order are then swapped there field by field, so arrays
 * handed out (callchain, registers, branches) are in host order.  Samples
 * and sample_id_all trailers are walked by common/perf_sample.c, the
 * walker the recorder uses too; the bodies of the other record types are
 * decoded here.
 *
 * Like perf, tracepoint RAW data, user stack bytes and AUX data are never
 * swapped as u64 arrays: they are byte strings whose meaning the consumer
 * knows (libtraceevent swaps tracepoint fields itself).  Only their u32/u64
 * size fields are swapped.
 */
#include <assert.h>
#include <byteswap.h>
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "analyze/replay/perf_record.h"
#include "analyze/replay/replay.h"
#include <amber/common.h>
#include "common/perf_sample.h"

#define REC_MAX 65536u  /* header.size is a u16 */

/* The sample_type bits of the common layouts: the fixed fields and a
 * callchain, what `-g` records. */
#define SIMPLE_BITS (PERF_SAMPLE_IDENTIFIER | PERF_SAMPLE_IP | PERF_SAMPLE_TID |        \
		     PERF_SAMPLE_TIME | PERF_SAMPLE_ADDR | PERF_SAMPLE_ID |             \
		     PERF_SAMPLE_STREAM_ID | PERF_SAMPLE_CPU | PERF_SAMPLE_PERIOD |     \
		     PERF_SAMPLE_CALLCHAIN)

/*
 * Where the fields of a sample of a common layout (only SIMPLE_BITS) are,
 * from the record's start; -1 for a field it does not carry.  Such a
 * sample is decoded by reading them (parse_simple()), not by a walk.
 */
struct simple_layout {
	bool ok;                   /* the layout is a common one */
	bool chain;                /* CALLCHAIN: its nr is at @fixed */
	bool common_g;             /* the layout of common_g (parse_simple()) */
	int16_t id, ip, tid, time, addr, stream_id, cpu, period;
	uint16_t fixed;            /* header and fixed fields */
};

struct ana_parser {
	bool swap;
	bool borrow;                          /* ana_parser_set_borrow() */
	struct ana_record *clean;             /* with @borrow: a record the last call
					       * left zero but for what a common
					       * layout's sample carries */
	const struct ana_event *(*lookup)(void *ctx, uint64_t id);
	void *ctx;
	bool have_last;                       /* @lookup's last answer: records */
	uint64_t last_id;                     /* come in runs of one id */
	const struct ana_event *last_evt;
	const struct ana_event *first;
	struct amb_perf_layout base;          /* of @first, which locates the sample id */
	struct simple_layout base_simple;
	const struct ana_event *layout_evt;   /* the event @layout is of, or NULL */
	struct amb_perf_layout layout;
	struct simple_layout simple;          /* of @layout */
	char errmsg[160];
	uint64_t scratch[REC_MAX / 8];  /* one record, host order after decoding */
};

static const struct perf_event_attr zero_attr;

static const struct perf_event_attr *base_attr(const struct ana_parser *p)
{
	return p->first ? &p->first->attr : &zero_attr;
}

/* The layout of `-g` recordings, IDENTIFIER IP TID TIME CPU PERIOD
 * CALLCHAIN: its offsets as constants. */
static const struct simple_layout common_g = {
	.ok = true, .chain = true, .common_g = true, .id = 8, .ip = 16, .tid = 24, .time = 32,
	.addr = -1, .stream_id = -1, .cpu = 40, .period = 48, .fixed = 56,
};

/* Fill @sl from @l: the walk of walk_fixed() in perf_sample.c, with the
 * offsets kept. */
static void simple_init(struct simple_layout *sl, const struct amb_perf_layout *l)
{
	const uint64_t st = l->sample_type;
	int16_t off = sizeof(struct perf_event_header);

	memset(sl, 0, sizeof(*sl));
	/* Without PERIOD a sample's period is a matter of the attr, left to
	 * parse_sample(). */
	sl->ok = !(st & ~(uint64_t)SIMPLE_BITS) && (st & PERF_SAMPLE_PERIOD);
	sl->chain = st & PERF_SAMPLE_CALLCHAIN;
	sl->id = sl->ip = sl->tid = sl->time = sl->addr = sl->stream_id = sl->cpu = sl->period = -1;
	if (st & PERF_SAMPLE_IDENTIFIER) {
		sl->id = off;
		off += 8;
	}
	if (st & PERF_SAMPLE_IP) {
		sl->ip = off;
		off += 8;
	}
	if (st & PERF_SAMPLE_TID) {
		sl->tid = off;
		off += 8;
	}
	if (st & PERF_SAMPLE_TIME) {
		sl->time = off;
		off += 8;
	}
	if (st & PERF_SAMPLE_ADDR) {
		sl->addr = off;
		off += 8;
	}
	/* The walk reads ID after IDENTIFIER: ID is the value kept. */
	if (st & PERF_SAMPLE_ID) {
		sl->id = off;
		off += 8;
	}
	if (st & PERF_SAMPLE_STREAM_ID) {
		sl->stream_id = off;
		off += 8;
	}
	if (st & PERF_SAMPLE_CPU) {
		sl->cpu = off;
		off += 8;
	}
	if (st & PERF_SAMPLE_PERIOD) {
		sl->period = off;
		off += 8;
	}
	sl->fixed = (uint16_t)off;
	assert(sl->fixed == l->fixed_size);
	sl->common_g = sl->ok && st == (PERF_SAMPLE_IDENTIFIER | PERF_SAMPLE_IP | PERF_SAMPLE_TID |
					PERF_SAMPLE_TIME | PERF_SAMPLE_CPU | PERF_SAMPLE_PERIOD |
					PERF_SAMPLE_CALLCHAIN);
	assert(!sl->common_g || !memcmp(sl, &common_g, sizeof(*sl)));
}

struct ana_parser *ana_parser_new(bool swap,
				  const struct ana_event *(*lookup)(void *ctx, uint64_t id),
				  void *ctx, const struct ana_event *first_event)
{
	struct ana_parser *p = calloc(1, sizeof(*p));

	if (!p)
		return NULL;
	p->swap = swap;
	p->lookup = lookup;
	p->ctx = ctx;
	p->first = first_event;
	amb_perf_layout_init(&p->base, base_attr(p));
	simple_init(&p->base_simple, &p->base);
	return p;
}

void ana_parser_free(struct ana_parser *p)
{
	free(p);
}

void ana_parser_set_borrow(struct ana_parser *p, bool borrow)
{
	p->borrow = borrow;
	p->clean = NULL;
}

const char *ana_parser_errmsg(const struct ana_parser *p)
{
	return p->errmsg;
}

/* What both parsers of a record (ana_parse_record()'s path for samples of
 * a common layout and parse_record()) inline. */
#define ALWAYS_INLINE inline __attribute__((always_inline))

/* The layout of @evt's records (the first event's when NULL).  Recordings
 * have few events, mostly one: the last one's layout is kept. */
static ALWAYS_INLINE const struct amb_perf_layout *layout_of(struct ana_parser *p,
							     const struct ana_event *evt)
{
	if (!evt)
		return &p->base;
	if (evt != p->layout_evt) {
		amb_perf_layout_init(&p->layout, &evt->attr);
		simple_init(&p->simple, &p->layout);
		p->layout_evt = evt;
	}
	return &p->layout;
}

static int fail(struct ana_parser *p, int err, const char *fmt, ...) AMB_PRINTF(3, 4);
static int fail(struct ana_parser *p, int err, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(p->errmsg, sizeof(p->errmsg), fmt, ap);
	va_end(ap);
	return err;
}

/*
 * A cursor over [pos, end) of the scratch copy.  Getters swap in place when
 * the record is of the other byte order, so what they leave behind is host
 * order; each returns false, moving nothing, when the field does not fit.
 */
struct rd {
	uint8_t *b;
	size_t pos, end;
	bool swap;
};

static bool rd_u64(struct rd *r, uint64_t *v)
{
	uint64_t x;

	if (r->end - r->pos < 8)
		return false;
	memcpy(&x, r->b + r->pos, 8);
	if (r->swap) {
		x = bswap_64(x);
		memcpy(r->b + r->pos, &x, 8);
	}
	*v = x;
	r->pos += 8;
	return true;
}

static bool rd_u32(struct rd *r, uint32_t *v)
{
	uint32_t x;

	if (r->end - r->pos < 4)
		return false;
	memcpy(&x, r->b + r->pos, 4);
	if (r->swap) {
		x = bswap_32(x);
		memcpy(r->b + r->pos, &x, 4);
	}
	*v = x;
	r->pos += 4;
	return true;
}

static bool rd_u16(struct rd *r, uint16_t *v)
{
	uint16_t x;

	if (r->end - r->pos < 2)
		return false;
	memcpy(&x, r->b + r->pos, 2);
	if (r->swap) {
		x = bswap_16(x);
		memcpy(r->b + r->pos, &x, 2);
	}
	*v = x;
	r->pos += 2;
	return true;
}

/* @n u64 words, swapped in place.  The kernel keeps every array of a sample
 * 8-byte aligned; a misaligned one can only come from a damaged record. */
static bool rd_u64s(struct rd *r, uint64_t n, const uint64_t **out)
{
	uint64_t *a = (uint64_t *)(void *)(r->b + r->pos);

	if (r->pos % 8 || n > (r->end - r->pos) / 8)
		return false;
	if (r->swap)
		for (uint64_t i = 0; i < n; i++)
			a[i] = bswap_64(a[i]);
	*out = a;
	r->pos += n * 8;
	return true;
}

/* @n bytes left as they are (producer order). */
static bool rd_bytes(struct rd *r, uint64_t n, const uint8_t **out)
{
	if (n > r->end - r->pos)
		return false;
	*out = r->b + r->pos;
	r->pos += n;
	return true;
}

/* A NUL-terminated string that must end before r->end; skips it all. */
static bool rd_str(struct rd *r, const char **out)
{
	const uint8_t *s = r->b + r->pos;

	if (!memchr(s, 0, r->end - r->pos))
		return false;
	*out = (const char *)s;
	r->pos = r->end;
	return true;
}

/*
 * Find the record's event from its sample id (FORMAT.md §5.6): the first u64
 * of a sample, the last of a sample_id_all trailer, or with PERF_SAMPLE_ID
 * alone its position in the fields before it, all as the first event's
 * layout says.  Without any id the recording has one event, the first.
 * @rec/@size is the whole record.
 */
static ALWAYS_INLINE const struct ana_event *find_event(struct ana_parser *p, uint32_t type,
					  const uint8_t *rec, size_t size, uint64_t *id)
{
	const struct amb_perf_layout *l = &p->base;
	size_t off;

	*id = 0;
	if (l->id_off < 0)
		return p->first;
	if (type == PERF_RECORD_SAMPLE) {
		off = (size_t)l->id_off;
	} else {
		if (!base_attr(p)->sample_id_all ||
		    size - sizeof(struct perf_event_header) < l->trailer_size)
			return p->first;
		off = size - l->trailer_size + (size_t)l->trailer_id_off;
	}
	if (off + 8 > size)
		return NULL;
	memcpy(id, rec + off, 8);
	if (p->swap)
		*id = bswap_64(*id);
	if (!p->lookup)
		return NULL;
	if (!p->have_last || p->last_id != *id) {
		p->last_evt = p->lookup(p->ctx, *id);
		p->last_id = *id;
		p->have_last = true;
	}
	return p->last_evt;
}

/* PERF_SAMPLE_READ or a READ record body, laid out as @fmt says. */
static bool rd_read_values(struct rd *r, uint64_t fmt, const uint64_t **vals, uint64_t *n)
{
	*n = amb_perf_read_words(fmt, r->b + r->pos, r->end - r->pos, r->swap);
	return *n && rd_u64s(r, *n, vals);
}

/* Why the sample walk stopped at @f, in words that name the count. */
static int sample_fail(struct ana_parser *p, enum amb_perf_field f,
		       const struct amb_perf_sample *ps, unsigned size)
{
	switch (f) {
	case AMB_PERF_F_CALLCHAIN:
		return fail(p, -AMB_E_CORRUPT, "callchain nr %llu exceeds the record (size %u)",
			    (unsigned long long)ps->claimed, size);
	case AMB_PERF_F_RAW:
		return fail(p, -AMB_E_CORRUPT, "raw size %u does not fit the record (size %u)",
			    (unsigned)ps->claimed, size);
	case AMB_PERF_F_BRANCHES:
		return fail(p, -AMB_E_CORRUPT, "branch nr %llu exceeds the record (size %u)",
			    (unsigned long long)ps->claimed, size);
	case AMB_PERF_F_STACK:
		return fail(p, -AMB_E_CORRUPT, "user stack size %llu does not fit the record (size %u)",
			    (unsigned long long)ps->claimed, size);
	case AMB_PERF_F_STACK_DYN:
		return fail(p, -AMB_E_CORRUPT, "user stack dyn_size %llu > size %llu",
			    (unsigned long long)ps->stack_dyn_size,
			    (unsigned long long)ps->stack_size);
	case AMB_PERF_F_AUX:
		return fail(p, -AMB_E_CORRUPT, "aux size %llu exceeds the record (size %u)",
			    (unsigned long long)ps->claimed, size);
	default:
		return fail(p, -AMB_E_CORRUPT, "sample %s does not fit the record (size %u)",
			    amb_perf_field_name(f), size);
	}
}

/* PERF_RECORD_SAMPLE at @b (8-byte aligned; the scratch copy when
 * swapped): walked (and turned to host order) by perf_sample.c. */
static int parse_sample(struct ana_parser *p, const struct amb_perf_layout *l,
			const struct perf_event_attr *a, uint8_t *b, struct ana_record *rec)
{
	struct ana_sample *s = &rec->u.sample;
	const uint64_t st = l->sample_type;
	struct amb_perf_sample ps;
	enum amb_perf_field f;

	f = amb_perf_sample_to_host(l, b, rec->size, p->swap, &ps);
	if (f) {
		memset(s, 0, sizeof(*s));
		return sample_fail(p, f, &ps, rec->size);
	}
	/* The walk keeps u64 arrays 8-byte aligned from the record's start,
	 * which @b is.  One assignment of the whole struct:
	 * what it does not name is zero, and nothing is written twice. */
#define AT(off, type) ((off) ? (const type *)(const void *)(b + (off)) : NULL)
	*s = (struct ana_sample){
		.evt = rec->evt,
		.id = ps.id,
		.ip = ps.ip,
		.pid = st & PERF_SAMPLE_TID ? ps.pid : UINT32_MAX,
		.tid = st & PERF_SAMPLE_TID ? ps.tid : UINT32_MAX,
		.time = ps.time,
		.addr = ps.addr,
		.cpu = st & PERF_SAMPLE_CPU ? ps.cpu : UINT32_MAX,
		/* perf record -c N leaves PERIOD out of sample_type: every
		 * sample then stands for the attr's period, as perf reads it
		 * (evsel__parse_sample). */
		.period = st & PERF_SAMPLE_PERIOD ? ps.period : a->sample_period,
		.nr_callchain = ps.nr_callchain,
		.callchain = AT(ps.callchain, uint64_t),
		.raw_size = ps.raw_size,
		.raw = AT(ps.raw, uint8_t),
		.user_abi = ps.user_abi,
		.user_regs_mask = st & PERF_SAMPLE_REGS_USER ? a->sample_regs_user : 0,
		.user_regs = AT(ps.user_regs, uint64_t),
		.user_stack_size = ps.stack_size,
		.user_stack = AT(ps.stack, uint8_t),
		.user_stack_dyn_size = ps.stack_dyn_size,
		.weight = ps.weight,
		.data_src = ps.data_src,
		.nr_branches = ps.nr_branches,
		.branches = AT(ps.branches, struct ana_branch),
		.branch_hw_idx = ps.branch_hw_idx,
		.cpumode = rec->misc & PERF_RECORD_MISC_CPUMODE_MASK,
		.stream_id = ps.stream_id,
		.transaction = ps.transaction,
		.phys_addr = ps.phys_addr,
		.cgroup = ps.cgroup,
		.data_page_size = ps.data_page_size,
		.code_page_size = ps.code_page_size,
		.nr_read = ps.nr_read,
		.read = AT(ps.read, uint64_t),
		.intr_abi = ps.intr_abi,
		.intr_regs_mask = st & PERF_SAMPLE_REGS_INTR ? a->sample_regs_intr : 0,
		.intr_regs = AT(ps.intr_regs, uint64_t),
		.aux_size = ps.aux_size,
		.aux = AT(ps.aux, uint8_t),
	};
#undef AT
	rec->pid = s->pid;
	rec->tid = s->tid;
	rec->time = s->time;
	rec->cpu = s->cpu;
	rec->id = s->id;
	return 0;
}

#define NEED(ok, what) do { if (!(ok)) { field = (what); goto short_field; } } while (0)

/* The body of a non-sample record; r->end is the start of its trailer. */
static int parse_other(struct ana_parser *p, struct rd *r, const struct perf_event_attr *a,
		       struct ana_record *rec)
{
	const char *field = NULL;
	uint64_t v;
	uint32_t w;

	switch (rec->type) {
	case PERF_RECORD_MMAP:
	case PERF_RECORD_MMAP2: {
		__typeof__(rec->u.mmap) *m = &rec->u.mmap;

		NEED(rd_u32(r, &m->pid) && rd_u32(r, &m->tid), "pid/tid");
		NEED(rd_u64(r, &m->addr) && rd_u64(r, &m->len) && rd_u64(r, &m->pgoff),
		     "addr/len/pgoff");
		if (rec->type == PERF_RECORD_MMAP2) {
			if (rec->misc & PERF_RECORD_MISC_MMAP_BUILD_ID) {
				const uint8_t *hdr, *b;

				/* { u8 build_id_size; u8, u16 reserved; u8 build_id[20]; } */
				NEED(rd_bytes(r, 4, &hdr) && rd_bytes(r, 20, &b), "build-id");
				m->build_id_size = hdr[0];
				if (m->build_id_size > sizeof(m->build_id))
					return fail(p, -AMB_E_CORRUPT, "MMAP2 build-id size %u > 20",
						    m->build_id_size);
				memcpy(m->build_id, b, m->build_id_size);
			} else {
				NEED(rd_u32(r, &m->maj) && rd_u32(r, &m->min) &&
				     rd_u64(r, &m->ino) && rd_u64(r, &m->ino_generation),
				     "maj/min/ino");
			}
			NEED(rd_u32(r, &m->prot) && rd_u32(r, &m->flags), "prot/flags");
		}
		NEED(rd_str(r, &m->filename), "filename (no NUL)");
		rec->pid = m->pid;
		rec->tid = m->tid;
		break;
	}
	case PERF_RECORD_COMM:
		NEED(rd_u32(r, &rec->u.comm.pid) && rd_u32(r, &rec->u.comm.tid), "pid/tid");
		NEED(rd_str(r, &rec->u.comm.comm), "comm (no NUL)");
		rec->u.comm.exec = rec->misc & PERF_RECORD_MISC_COMM_EXEC;
		rec->pid = rec->u.comm.pid;
		rec->tid = rec->u.comm.tid;
		break;
	case PERF_RECORD_FORK:
	case PERF_RECORD_EXIT:
		NEED(rd_u32(r, &rec->u.fork.pid) && rd_u32(r, &rec->u.fork.ppid) &&
		     rd_u32(r, &rec->u.fork.tid) && rd_u32(r, &rec->u.fork.ptid), "pids");
		NEED(rd_u64(r, &rec->u.fork.time), "time");
		rec->pid = rec->u.fork.pid;
		rec->tid = rec->u.fork.tid;
		rec->time = rec->u.fork.time;
		break;
	case PERF_RECORD_LOST:
		NEED(rd_u64(r, &rec->u.lost.id) && rd_u64(r, &rec->u.lost.lost), "id/lost");
		break;
	case PERF_RECORD_LOST_SAMPLES:
		NEED(rd_u64(r, &rec->u.lost_samples.lost), "lost");
		break;
	case PERF_RECORD_THROTTLE:
	case PERF_RECORD_UNTHROTTLE:
		NEED(rd_u64(r, &rec->u.throttle.time) && rd_u64(r, &rec->u.throttle.id) &&
		     rd_u64(r, &rec->u.throttle.stream_id), "time/id/stream_id");
		rec->time = rec->u.throttle.time;
		break;
	case PERF_RECORD_AUX:
		NEED(rd_u64(r, &rec->u.aux.offset) && rd_u64(r, &rec->u.aux.size) &&
		     rd_u64(r, &v), "offset/size/flags");
		rec->u.aux.flags = (uint32_t)v;
		break;
	case PERF_RECORD_SWITCH_CPU_WIDE:
		NEED(rd_u32(r, &rec->u.switch_cpu.next_prev_pid) &&
		     rd_u32(r, &rec->u.switch_cpu.next_prev_tid), "next_prev pid/tid");
		break;
	case PERF_RECORD_ITRACE_START:
		NEED(rd_u32(r, &rec->u.task.pid) && rd_u32(r, &rec->u.task.tid), "pid/tid");
		rec->pid = rec->u.task.pid;
		rec->tid = rec->u.task.tid;
		break;
	case PERF_RECORD_READ: {
		const uint64_t *vals;

		NEED(rd_u32(r, &rec->u.task.pid) && rd_u32(r, &rec->u.task.tid), "pid/tid");
		NEED(rd_read_values(r, a->read_format, &vals, &v), "read values");
		rec->pid = rec->u.task.pid;
		rec->tid = rec->u.task.tid;
		break;
	}
	case PERF_RECORD_KSYMBOL:
		NEED(rd_u64(r, &rec->u.ksymbol.addr) && rd_u32(r, &rec->u.ksymbol.len) &&
		     rd_u16(r, &rec->u.ksymbol.ksym_type) && rd_u16(r, &rec->u.ksymbol.flags),
		     "addr/len/type/flags");
		NEED(rd_str(r, &rec->u.ksymbol.name), "name (no NUL)");
		break;
	case PERF_RECORD_CGROUP:
		NEED(rd_u64(r, &rec->u.cgroup.id), "id");
		NEED(rd_str(r, &rec->u.cgroup.path), "path (no NUL)");
		break;
	case PERF_RECORD_NAMESPACES:
		NEED(rd_u32(r, &w) && rd_u32(r, &w) && rd_u64(r, &v), "pid/tid/nr");
		if (v > (r->end - r->pos) / 16)
			return fail(p, -AMB_E_CORRUPT, "NAMESPACES nr %llu exceeds the record (size %u)",
				    (unsigned long long)v, rec->size);
		break;
	default:
		/* SWITCH has no body; other types are passed on undecoded. */
		break;
	}
	return 0;

short_field:
	return fail(p, -AMB_E_CORRUPT, "%s %s does not fit the record (size %u)",
		    ana_record_type_name(rec->type), field, rec->size);
}

/* Where the union of struct ana_record ends. */
#define U_END (offsetof(struct ana_record, u) + sizeof(((struct ana_record *)0)->u))

/* Everything but the union, as a record that is not a sample starts. */
static void rec_reset(struct ana_record *rec)
{
	memset(rec, 0, offsetof(struct ana_record, u));
	memset((uint8_t *)rec + U_END, 0, sizeof(*rec) - U_END);
	rec->pid = rec->tid = rec->cpu = UINT32_MAX;
	rec->stream = AMB_STREAM_NONE;
}

static ALWAYS_INLINE uint64_t ld64(const uint8_t *b, int16_t off)
{
	uint64_t v = 0;

	if (off >= 0)
		memcpy(&v, b + off, 8);
	return v;
}

static ALWAYS_INLINE uint32_t ld32(const uint8_t *b, int16_t off)
{
	uint32_t v = UINT32_MAX;

	if (off >= 0)
		memcpy(&v, b + off, 4);
	return v;
}

/*
 * A sample of a common layout @sl at @b, of size h->size, in host order:
 * what parse_sample() makes of it, field by field, without the walk.
 * Returns the size, or 0 when the sample does not fit its layout (the
 * walk then says why).
 */
static ALWAYS_INLINE int parse_simple_as(struct ana_parser *p, const struct simple_layout *sl,
					  const struct perf_event_header *h, const uint8_t *b,
					  const struct ana_event *evt, struct ana_record *rec)
{
	struct ana_sample *s = &rec->u.sample;
	const uint64_t *chain = NULL;
	uint64_t nr = 0;

	if (h->size < sl->fixed)
		return 0;
	if (sl->chain) {
		if (h->size - sl->fixed < 8)
			return 0;
		memcpy(&nr, b + sl->fixed, 8);
		if (nr > (h->size - sl->fixed - 8u) / 8)
			return 0;
		chain = (const uint64_t *)(const void *)(b + sl->fixed + 8);
	}
	/* A record this parser cleared before still holds zeros wherever a
	 * sample of a common layout writes nothing. */
	if (rec != p->clean) {
		memset(rec, 0, sizeof(*rec));
		p->clean = p->borrow ? rec : NULL;
	}
	rec->type = PERF_RECORD_SAMPLE;
	rec->misc = h->misc;
	rec->size = h->size;
	rec->stream = AMB_STREAM_NONE;
	rec->synthesized = false;
	rec->evt = evt;
	rec->bytes = b;
	s->evt = evt;
	s->id = ld64(b, sl->id);
	s->ip = ld64(b, sl->ip);
	s->pid = ld32(b, sl->tid);
	s->tid = ld32(b, sl->tid >= 0 ? sl->tid + 4 : -1);
	s->time = ld64(b, sl->time);
	s->addr = ld64(b, sl->addr);
	s->stream_id = ld64(b, sl->stream_id);
	s->cpu = ld32(b, sl->cpu);
	s->period = ld64(b, sl->period);
	s->nr_callchain = nr;
	s->callchain = chain;
	s->cpumode = h->misc & PERF_RECORD_MISC_CPUMODE_MASK;
	rec->pid = s->pid;
	rec->tid = s->tid;
	rec->time = s->time;
	rec->cpu = s->cpu;
	rec->id = s->id;
	return h->size;
}

static ALWAYS_INLINE int parse_simple(struct ana_parser *p, const struct simple_layout *sl,
			const struct perf_event_header *h, const uint8_t *b,
			const struct ana_event *evt, struct ana_record *rec)
{
	if (sl->common_g)
		return parse_simple_as(p, &common_g, h, b, evt, rec);
	return parse_simple_as(p, sl, h, b, evt, rec);
}

/* ana_parse_record() for every record: either byte order, in place or
 * copied, samples of any layout and the other types. */
static __attribute__((noinline)) int parse_record(struct ana_parser *p, const uint8_t *data,
						  size_t len, struct ana_record *rec)
{
	const struct amb_perf_layout *l;
	const struct perf_event_attr *a;
	const struct ana_event *evt;
	struct perf_event_header h;
	struct rd r;
	uint8_t *b;
	uint64_t id;
	int err;

	p->errmsg[0] = '\0';
	if (len < sizeof(h)) {
		p->clean = NULL;
		rec_reset(rec);
		memset(&rec->u, 0, sizeof(rec->u));
		return fail(p, -AMB_E_TRUNCATED, "%zu bytes left, less than a record header", len);
	}
	memcpy(&h, data, sizeof(h));
	if (p->swap) {
		h.type = bswap_32(h.type);
		h.misc = bswap_16(h.misc);
		h.size = bswap_16(h.size);
	}
	if (h.size < sizeof(h) || h.size > len) {
		p->clean = NULL;
		rec_reset(rec);
		memset(&rec->u, 0, sizeof(rec->u));
		if (h.size < sizeof(h))
			return fail(p, -AMB_E_CORRUPT, "record size %u is less than its header",
				    h.size);
		return fail(p, -AMB_E_TRUNCATED, "record of type %u and size %u, only %zu bytes left",
			    h.type, h.size, len);
	}

	/* Records of this host's order are only read, never rewritten: a
	 * borrowed one is read where it is. */
	if (p->borrow && !p->swap && !((uintptr_t)data % 8)) {
		b = (uint8_t *)(uintptr_t)data;
	} else {
		memcpy(p->scratch, data, h.size);
		memcpy(p->scratch, &h, sizeof(h));
		b = (uint8_t *)p->scratch;
	}
	evt = find_event(p, h.type, b, h.size, &id);
	l = layout_of(p, evt);
	if (h.type == PERF_RECORD_SAMPLE && !p->swap) {
		const struct simple_layout *sl = evt ? &p->simple : &p->base_simple;

		if (sl->ok && (err = parse_simple(p, sl, &h, b, evt, rec)) > 0)
			return err;
	}

	/* Everything but the union, which a sample fills whole (parse_sample)
	 * and which is zeroed for any other outcome. */
	p->clean = NULL;
	rec_reset(rec);
	rec->type = h.type;
	rec->misc = h.misc;
	rec->size = h.size;
	rec->bytes = b;
	rec->evt = evt;
	a = evt ? &evt->attr : base_attr(p);

	if (h.type == PERF_RECORD_SAMPLE) {
		err = parse_sample(p, l, a, b, rec);
		return err ? err : h.size;
	}

	memset(&rec->u, 0, sizeof(rec->u));
	r.b = b;
	r.pos = sizeof(h);
	r.end = h.size;
	r.swap = p->swap;
	/* Kernel records carry the sample_id_all trailer; types the kernel does
	 * not know (perf user types start at 64) are passed on undecoded. */
	if (a->sample_id_all && h.type < PERF_RECORD_MAX) {
		const uint64_t st = l->sample_type;
		struct amb_perf_sample_id t;

		if (amb_perf_sample_id_to_host(l, b, h.size, p->swap, &t))
			return fail(p, -AMB_E_CORRUPT, "%s record of size %u is shorter than its "
				    "sample_id trailer (%zu bytes)", ana_record_type_name(h.type),
				    h.size, (size_t)l->trailer_size);
		r.end = t.off;
		if (st & PERF_SAMPLE_TID) {
			rec->pid = t.pid;
			rec->tid = t.tid;
		}
		if (st & PERF_SAMPLE_TIME)
			rec->time = t.time;
		if (st & (PERF_SAMPLE_ID | PERF_SAMPLE_IDENTIFIER))
			rec->id = t.id;
		if (st & PERF_SAMPLE_CPU)
			rec->cpu = t.cpu;
	}
	err = parse_other(p, &r, a, rec);
	if (err)
		return err;
	if (!rec->id)
		rec->id = id;
	return h.size;
}

int ana_parse_record(struct ana_parser *p, const uint8_t *data, size_t len,
		     struct ana_record *rec)
{
	struct perf_event_header h;

	/* Most records are samples of a common layout in host order, read in
	 * place: parsed here, in a function small enough to need almost no
	 * stack frame (a sample in 114 instructions, not 130). */
	if (p->borrow && !p->swap && len >= sizeof(h) && !((uintptr_t)data % 8)) {
		memcpy(&h, data, sizeof(h));
		if (h.type == PERF_RECORD_SAMPLE && h.size >= sizeof(h) && h.size <= len) {
			const struct ana_event *evt;
			const struct simple_layout *sl;
			uint64_t id;
			int n;

			evt = find_event(p, h.type, data, h.size, &id);
			layout_of(p, evt);
			sl = evt ? &p->simple : &p->base_simple;
			if (sl->ok && (n = parse_simple(p, sl, &h, data, evt, rec)) > 0) {
				p->errmsg[0] = '\0';
				return n;
			}
		}
	}
	return parse_record(p, data, len, rec);
}

const char *ana_record_type_name(uint32_t type)
{
	static const char *const names[] = {
		[PERF_RECORD_MMAP] = "MMAP",
		[PERF_RECORD_LOST] = "LOST",
		[PERF_RECORD_COMM] = "COMM",
		[PERF_RECORD_EXIT] = "EXIT",
		[PERF_RECORD_THROTTLE] = "THROTTLE",
		[PERF_RECORD_UNTHROTTLE] = "UNTHROTTLE",
		[PERF_RECORD_FORK] = "FORK",
		[PERF_RECORD_READ] = "READ",
		[PERF_RECORD_SAMPLE] = "SAMPLE",
		[PERF_RECORD_MMAP2] = "MMAP2",
		[PERF_RECORD_AUX] = "AUX",
		[PERF_RECORD_ITRACE_START] = "ITRACE_START",
		[PERF_RECORD_LOST_SAMPLES] = "LOST_SAMPLES",
		[PERF_RECORD_SWITCH] = "SWITCH",
		[PERF_RECORD_SWITCH_CPU_WIDE] = "SWITCH_CPU_WIDE",
		[PERF_RECORD_NAMESPACES] = "NAMESPACES",
		[PERF_RECORD_KSYMBOL] = "KSYMBOL",
		[PERF_RECORD_BPF_EVENT] = "BPF_EVENT",
		[PERF_RECORD_CGROUP] = "CGROUP",
		[PERF_RECORD_TEXT_POKE] = "TEXT_POKE",
		[PERF_RECORD_AUX_OUTPUT_HW_ID] = "AUX_OUTPUT_HW_ID",
	};

	if (type < AMB_ARRAY_SIZE(names) && names[type])
		return names[type];
	return "UNKNOWN";
}

/*
 * The bitfield word after read_format.  The C ABI allocates bitfields from
 * the least significant bit on little-endian machines and from the most
 * significant on big-endian ones, byte by byte; so the same flag sits at
 * the mirrored bit of the same byte.  Reversing the bits of each byte (what
 * perf's perf_event__attr_swap does) moves every flag to its host place.
 */
static void reverse_bits_per_byte(uint8_t *p, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		uint8_t b = p[i];

		b = (uint8_t)((b >> 4) | (b << 4));
		b = (uint8_t)(((b & 0xcc) >> 2) | ((b & 0x33) << 2));
		b = (uint8_t)(((b & 0xaa) >> 1) | ((b & 0x55) << 1));
		p[i] = b;
	}
}

void ana_attr_to_host(struct perf_event_attr *dst, const uint8_t *src, uint32_t size, bool swap)
{
	/* Every scalar field of perf_event_attr by offset and width. */
	static const struct { uint8_t off, width; } fields[] = {
		{ 0, 4 },   /* type */
		{ 4, 4 },   /* size */
		{ 8, 8 },   /* config */
		{ 16, 8 },  /* sample_period / sample_freq */
		{ 24, 8 },  /* sample_type */
		{ 32, 8 },  /* read_format */
		{ 48, 4 },  /* wakeup_events / wakeup_watermark */
		{ 52, 4 },  /* bp_type */
		{ 56, 8 },  /* bp_addr / config1 */
		{ 64, 8 },  /* bp_len / config2 */
		{ 72, 8 },  /* branch_sample_type */
		{ 80, 8 },  /* sample_regs_user */
		{ 88, 4 },  /* sample_stack_user */
		{ 92, 4 },  /* clockid */
		{ 96, 8 },  /* sample_regs_intr */
		{ 104, 4 }, /* aux_watermark */
		{ 108, 2 }, /* sample_max_stack */
		{ 110, 2 }, /* __reserved_2 */
		{ 112, 4 }, /* aux_sample_size */
		{ 116, 4 }, /* __reserved_3 */
		{ 120, 8 }, /* sig_data */
	};
	const size_t flags_off = offsetof(struct perf_event_attr, read_format) + 8;
	uint8_t *d = (uint8_t *)dst;
	size_t n = AMB_MIN((size_t)size, sizeof(*dst));

	memset(dst, 0, sizeof(*dst));
	memcpy(dst, src, n);
	if (!swap)
		return;
	for (size_t i = 0; i < AMB_ARRAY_SIZE(fields); i++) {
		size_t off = fields[i].off;

		if (off + fields[i].width > n)
			break;
		if (fields[i].width == 8) {
			uint64_t v;

			memcpy(&v, d + off, 8);
			v = bswap_64(v);
			memcpy(d + off, &v, 8);
		} else if (fields[i].width == 4) {
			uint32_t v;

			memcpy(&v, d + off, 4);
			v = bswap_32(v);
			memcpy(d + off, &v, 4);
		} else {
			uint16_t v;

			memcpy(&v, d + off, 2);
			v = bswap_16(v);
			memcpy(d + off, &v, 2);
		}
	}
	if (n >= flags_off + 8)
		reverse_bits_per_byte(d + flags_off, 8);
}
