// SPDX-License-Identifier: MIT
/*
 * analyze/perf_record.c - decode raw perf records into struct ana_record.
 *
 * Records come from an untrusted file (FORMAT.md §5.6): every field is read
 * through a cursor bounded by header.size, every count is checked against
 * what is left of the record before it is used, and nothing is allocated
 * per record.  Each record is first copied into the parser's aligned
 * scratch buffer (header.size is a u16, so 64 KiB always suffices); records
 * of the other byte order are then swapped there field by field, so arrays
 * handed out (callchain, registers, branches) are in host order.
 *
 * Like perf, tracepoint RAW data, user stack bytes and AUX data are never
 * swapped as u64 arrays: they are byte strings whose meaning the consumer
 * knows (libtraceevent swaps tracepoint fields itself).  Only their u32/u64
 * size fields are swapped.
 */
#include <byteswap.h>
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "analyze/replay/perf_record.h"
#include "analyze/replay/replay.h"
#include <amber/common.h>

#define REC_MAX 65536u  /* header.size is a u16 */

struct ana_parser {
	bool swap;
	const struct ana_event *(*lookup)(void *ctx, uint64_t id);
	void *ctx;
	const struct ana_event *first;
	char errmsg[160];
	uint64_t scratch[REC_MAX / 8];  /* one record, host order after decoding */
};

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
	return p;
}

void ana_parser_free(struct ana_parser *p)
{
	free(p);
}

const char *ana_parser_errmsg(const struct ana_parser *p)
{
	return p->errmsg;
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

static unsigned popcount64(uint64_t x)
{
	return (unsigned)__builtin_popcountll(x);
}

/* Bytes of the sample_id_all trailer a non-sample record carries. */
static size_t sample_id_size(uint64_t sample_type)
{
	const uint64_t bits = PERF_SAMPLE_TID | PERF_SAMPLE_TIME | PERF_SAMPLE_ID |
			      PERF_SAMPLE_STREAM_ID | PERF_SAMPLE_CPU | PERF_SAMPLE_IDENTIFIER;

	return 8u * popcount64(sample_type & bits);
}

static const struct perf_event_attr zero_attr;

static const struct perf_event_attr *base_attr(const struct ana_parser *p)
{
	return p->first ? &p->first->attr : &zero_attr;
}

/*
 * Find the record's event from its sample id (FORMAT.md §5.6): the first u64
 * of a sample, the last of a sample_id_all trailer, or with PERF_SAMPLE_ID
 * alone its position in the fields before it.  Without any id the recording
 * has one event, the first.  @body/@len is the record after its header.
 */
static const struct ana_event *find_event(const struct ana_parser *p, uint32_t type,
					  const uint8_t *body, size_t len, uint64_t *id)
{
	const struct perf_event_attr *a = base_attr(p);
	uint64_t st = a->sample_type;
	size_t off;

	*id = 0;
	if (!(st & (PERF_SAMPLE_IDENTIFIER | PERF_SAMPLE_ID)))
		return p->first;
	if (type == PERF_RECORD_SAMPLE) {
		if (st & PERF_SAMPLE_IDENTIFIER)
			off = 0;
		else
			off = 8u * popcount64(st & (PERF_SAMPLE_IP | PERF_SAMPLE_TID |
						   PERF_SAMPLE_TIME | PERF_SAMPLE_ADDR));
	} else {
		size_t tsz = sample_id_size(st);

		if (!a->sample_id_all || len < tsz)
			return p->first;
		if (st & PERF_SAMPLE_IDENTIFIER)
			off = len - 8;
		else
			off = len - tsz + 8u * popcount64(st & (PERF_SAMPLE_TID | PERF_SAMPLE_TIME));
	}
	if (len < 8 || off > len - 8)
		return NULL;
	memcpy(id, body + off, 8);
	if (p->swap)
		*id = bswap_64(*id);
	return p->lookup ? p->lookup(p->ctx, *id) : NULL;
}

/* PERF_SAMPLE_READ or a READ record body, laid out as @fmt says. */
static bool rd_read_values(struct rd *r, uint64_t fmt, const uint64_t **vals, uint64_t *n)
{
	uint64_t per = 1 + !!(fmt & PERF_FORMAT_ID) + !!(fmt & PERF_FORMAT_LOST);
	uint64_t times = !!(fmt & PERF_FORMAT_TOTAL_TIME_ENABLED) +
			 !!(fmt & PERF_FORMAT_TOTAL_TIME_RUNNING);
	uint64_t nr = 1, words;

	if (fmt & PERF_FORMAT_GROUP) {
		uint64_t left;

		if (r->end - r->pos < 8)
			return false;
		memcpy(&nr, r->b + r->pos, 8);
		if (r->swap)
			nr = bswap_64(nr);
		left = (r->end - r->pos) / 8;
		if (nr > left / per)
			return false;
		words = 1 + times + nr * per;
	} else {
		words = times + per;
	}
	*n = words;
	return rd_u64s(r, words, vals);
}

/* u64 abi, then one u64 per bit of @mask unless abi is NONE. */
static bool rd_regs(struct rd *r, uint64_t mask, uint64_t *abi, const uint64_t **regs)
{
	if (!rd_u64(r, abi))
		return false;
	if (*abi == PERF_SAMPLE_REGS_ABI_NONE)
		return true;
	return rd_u64s(r, popcount64(mask), regs);
}

/* The sample_id_all trailer: TID, TIME, ID, STREAM_ID, CPU, IDENTIFIER. */
static void parse_sample_id(struct rd *r, uint64_t st, struct ana_record *rec)
{
	uint64_t v;
	uint32_t a, b;

	if ((st & PERF_SAMPLE_TID) && rd_u32(r, &a) && rd_u32(r, &b)) {
		rec->pid = a;
		rec->tid = b;
	}
	if ((st & PERF_SAMPLE_TIME) && rd_u64(r, &v))
		rec->time = v;
	if ((st & PERF_SAMPLE_ID) && rd_u64(r, &v))
		rec->id = v;
	if (st & PERF_SAMPLE_STREAM_ID)
		rd_u64(r, &v);
	if ((st & PERF_SAMPLE_CPU) && rd_u32(r, &a) && rd_u32(r, &b))
		rec->cpu = a;
	if ((st & PERF_SAMPLE_IDENTIFIER) && rd_u64(r, &v))
		rec->id = v;
}

#define NEED(ok, what) do { if (!(ok)) { field = (what); goto short_field; } } while (0)

/* PERF_RECORD_SAMPLE, fields in the order of include/uapi/linux/perf_event.h. */
static int parse_sample(struct ana_parser *p, struct rd *r, const struct perf_event_attr *a,
			struct ana_record *rec)
{
	struct ana_sample *s = &rec->u.sample;
	uint64_t st = a->sample_type;
	const char *field = NULL;
	uint32_t hi;

	s->evt = rec->evt;
	s->pid = s->tid = s->cpu = UINT32_MAX;
	s->cpumode = rec->misc & PERF_RECORD_MISC_CPUMODE_MASK;
	if (st & PERF_SAMPLE_IDENTIFIER)
		NEED(rd_u64(r, &s->id), "identifier");
	if (st & PERF_SAMPLE_IP)
		NEED(rd_u64(r, &s->ip), "ip");
	if (st & PERF_SAMPLE_TID) {
		NEED(rd_u32(r, &s->pid) && rd_u32(r, &s->tid), "tid");
	}
	if (st & PERF_SAMPLE_TIME)
		NEED(rd_u64(r, &s->time), "time");
	if (st & PERF_SAMPLE_ADDR)
		NEED(rd_u64(r, &s->addr), "addr");
	if (st & PERF_SAMPLE_ID)
		NEED(rd_u64(r, &s->id), "id");
	if (st & PERF_SAMPLE_STREAM_ID)
		NEED(rd_u64(r, &s->stream_id), "stream_id");
	if (st & PERF_SAMPLE_CPU)
		NEED(rd_u32(r, &s->cpu) && rd_u32(r, &hi), "cpu");
	if (st & PERF_SAMPLE_PERIOD)
		NEED(rd_u64(r, &s->period), "period");
	if (st & PERF_SAMPLE_READ)
		NEED(rd_read_values(r, a->read_format, &s->read, &s->nr_read), "read values");
	if (st & PERF_SAMPLE_CALLCHAIN) {
		NEED(rd_u64(r, &s->nr_callchain), "callchain nr");
		if (!rd_u64s(r, s->nr_callchain, &s->callchain))
			return fail(p, -AMB_E_CORRUPT, "callchain nr %llu exceeds the record (size %u)",
				    (unsigned long long)s->nr_callchain, rec->size);
	}
	if (st & PERF_SAMPLE_RAW) {
		NEED(rd_u32(r, &s->raw_size), "raw size");
		/* The kernel pads raw data so that the u32 size and it fill u64s. */
		if (!rd_bytes(r, s->raw_size, &s->raw) || r->pos % 8)
			return fail(p, -AMB_E_CORRUPT, "raw size %u does not fit the record (size %u)",
				    s->raw_size, rec->size);
	}
	if (st & PERF_SAMPLE_BRANCH_STACK) {
		const uint64_t *br;

		NEED(rd_u64(r, &s->nr_branches), "branch nr");
		if (a->branch_sample_type & PERF_SAMPLE_BRANCH_HW_INDEX)
			NEED(rd_u64(r, &s->branch_hw_idx), "branch hw_idx");
		if (s->nr_branches > (r->end - r->pos) / sizeof(struct ana_branch) ||
		    !rd_u64s(r, s->nr_branches * 3, &br))
			return fail(p, -AMB_E_CORRUPT, "branch nr %llu exceeds the record (size %u)",
				    (unsigned long long)s->nr_branches, rec->size);
		s->branches = (const struct ana_branch *)(const void *)br;
	}
	if (st & PERF_SAMPLE_REGS_USER) {
		s->user_regs_mask = a->sample_regs_user;
		NEED(rd_regs(r, a->sample_regs_user, &s->user_abi, &s->user_regs), "user regs");
	}
	if (st & PERF_SAMPLE_STACK_USER) {
		NEED(rd_u64(r, &s->user_stack_size), "user stack size");
		if (s->user_stack_size) {
			if (!rd_bytes(r, s->user_stack_size, &s->user_stack) || r->pos % 8)
				return fail(p, -AMB_E_CORRUPT,
					    "user stack size %llu does not fit the record (size %u)",
					    (unsigned long long)s->user_stack_size, rec->size);
			NEED(rd_u64(r, &s->user_stack_dyn_size), "user stack dyn_size");
			if (s->user_stack_dyn_size > s->user_stack_size)
				return fail(p, -AMB_E_CORRUPT,
					    "user stack dyn_size %llu > size %llu",
					    (unsigned long long)s->user_stack_dyn_size,
					    (unsigned long long)s->user_stack_size);
		}
	}
	if (st & (PERF_SAMPLE_WEIGHT | PERF_SAMPLE_WEIGHT_STRUCT))
		NEED(rd_u64(r, &s->weight), "weight");
	if (st & PERF_SAMPLE_DATA_SRC)
		NEED(rd_u64(r, &s->data_src), "data_src");
	if (st & PERF_SAMPLE_TRANSACTION)
		NEED(rd_u64(r, &s->transaction), "transaction");
	if (st & PERF_SAMPLE_REGS_INTR) {
		s->intr_regs_mask = a->sample_regs_intr;
		NEED(rd_regs(r, a->sample_regs_intr, &s->intr_abi, &s->intr_regs), "intr regs");
	}
	if (st & PERF_SAMPLE_PHYS_ADDR)
		NEED(rd_u64(r, &s->phys_addr), "phys_addr");
	if (st & PERF_SAMPLE_CGROUP)
		NEED(rd_u64(r, &s->cgroup), "cgroup");
	if (st & PERF_SAMPLE_DATA_PAGE_SIZE)
		NEED(rd_u64(r, &s->data_page_size), "data_page_size");
	if (st & PERF_SAMPLE_CODE_PAGE_SIZE)
		NEED(rd_u64(r, &s->code_page_size), "code_page_size");
	if (st & PERF_SAMPLE_AUX) {
		NEED(rd_u64(r, &s->aux_size), "aux size");
		if (!rd_bytes(r, s->aux_size, &s->aux))
			return fail(p, -AMB_E_CORRUPT, "aux size %llu exceeds the record (size %u)",
				    (unsigned long long)s->aux_size, rec->size);
	}
	rec->pid = s->pid;
	rec->tid = s->tid;
	rec->time = s->time;
	rec->cpu = s->cpu;
	rec->id = s->id;
	return 0;

short_field:
	return fail(p, -AMB_E_CORRUPT, "sample %s does not fit the record (size %u)", field,
		    rec->size);
}

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

int ana_parse_record(struct ana_parser *p, const uint8_t *data, size_t len,
		     struct ana_record *rec)
{
	const struct perf_event_attr *a;
	const struct ana_event *evt;
	struct perf_event_header h;
	struct rd r;
	uint64_t id;
	int err;

	memset(rec, 0, sizeof(*rec));
	rec->pid = rec->tid = rec->cpu = UINT32_MAX;
	rec->stream = AMB_STREAM_NONE;
	p->errmsg[0] = '\0';
	if (len < sizeof(h))
		return fail(p, -AMB_E_TRUNCATED, "%zu bytes left, less than a record header", len);
	memcpy(&h, data, sizeof(h));
	if (p->swap) {
		h.type = bswap_32(h.type);
		h.misc = bswap_16(h.misc);
		h.size = bswap_16(h.size);
	}
	if (h.size < sizeof(h))
		return fail(p, -AMB_E_CORRUPT, "record size %u is less than its header", h.size);
	if (h.size > len)
		return fail(p, -AMB_E_TRUNCATED, "record of type %u and size %u, only %zu bytes left",
			    h.type, h.size, len);

	memcpy(p->scratch, data, h.size);
	memcpy(p->scratch, &h, sizeof(h));
	rec->type = h.type;
	rec->misc = h.misc;
	rec->size = h.size;
	rec->bytes = (const uint8_t *)p->scratch;

	evt = find_event(p, h.type, rec->bytes + sizeof(h), h.size - sizeof(h), &id);
	rec->evt = evt;
	a = evt ? &evt->attr : base_attr(p);

	r.b = (uint8_t *)p->scratch;
	r.pos = sizeof(h);
	r.end = h.size;
	r.swap = p->swap;
	if (h.type == PERF_RECORD_SAMPLE) {
		err = parse_sample(p, &r, a, rec);
		return err ? err : h.size;
	}

	/* Kernel records carry the sample_id_all trailer; types the kernel does
	 * not know (perf user types start at 64) are passed on undecoded. */
	if (a->sample_id_all && h.type < PERF_RECORD_MAX) {
		size_t tsz = sample_id_size(a->sample_type);
		struct rd t;

		if (h.size - sizeof(h) < tsz)
			return fail(p, -AMB_E_CORRUPT, "%s record of size %u is shorter than its "
				    "sample_id trailer (%zu bytes)", ana_record_type_name(h.type),
				    h.size, tsz);
		r.end = h.size - tsz;
		t = r;
		t.pos = r.end;
		t.end = h.size;
		parse_sample_id(&t, a->sample_type, rec);
	}
	err = parse_other(p, &r, a, rec);
	if (err)
		return err;
	if (!rec->id)
		rec->id = id;
	return h.size;
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
