// SPDX-License-Identifier: MIT
/*
 * tests/fuzz/fuzz_perf_record.c - fuzz analyze/perf_record.c.
 *
 * Input: a 33-byte prefix that plays the event's attr, then perf records.
 *   u8  flags: bit 0 records are byte-swapped, bit 1 sample_id_all,
 *       bit 2 no event at all (first_event NULL), bit 3 the parser borrows
 *       the records (ana_parser_set_borrow: read in place when aligned)
 *   u64 sample_type, u64 read_format, u64 sample_regs_user (= regs_intr),
 *   u64 branch_sample_type, all little-endian
 * Records are parsed one after another until one fails; every decoded
 * array is read in full so that ASan sees any pointer past the record.
 * Each record also goes, as an exact-size copy, through the common walker
 * (common/perf_sample.c) itself, whose every part must lie in the record.
 * The input's first bytes also go through ana_attr_to_host() both ways.
 */
#include <byteswap.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "analyze/replay/replay.h"
#include "analyze/replay/perf_record.h"
#include <amber/common.h>
#include "common/perf_sample.h"

#define PREFIX 33

static struct ana_event ev;
static volatile uint64_t sink;  /* keeps touch() from being optimised away */

static const struct ana_event *lookup(void *ctx, uint64_t id)
{
	(void)ctx;
	return (id & 1) ? &ev : NULL;
}

static uint64_t touch(const struct ana_record *rec)
{
	const struct ana_sample *s = &rec->u.sample;
	uint64_t sum = rec->time + rec->pid;

	if (rec->type == PERF_RECORD_SAMPLE) {
		for (uint64_t i = 0; i < s->nr_callchain; i++)
			sum += s->callchain[i];
		for (uint32_t i = 0; i < s->raw_size; i++)
			sum += s->raw[i];
		for (uint64_t i = 0; i < s->nr_branches; i++)
			sum += s->branches[i].from + s->branches[i].to + s->branches[i].flags;
		if (s->user_abi)
			for (int i = 0; i < __builtin_popcountll(s->user_regs_mask); i++)
				sum += s->user_regs[i];
		if (s->intr_abi)
			for (int i = 0; i < __builtin_popcountll(s->intr_regs_mask); i++)
				sum += s->intr_regs[i];
		for (uint64_t i = 0; i < s->user_stack_size; i++)
			sum += s->user_stack[i];
		for (uint64_t i = 0; i < s->nr_read; i++)
			sum += s->read[i];
		for (uint64_t i = 0; i < s->aux_size; i++)
			sum += s->aux[i];
	} else if (rec->type == PERF_RECORD_COMM) {
		sum += strlen(rec->u.comm.comm);
	} else if (rec->type == PERF_RECORD_MMAP || rec->type == PERF_RECORD_MMAP2) {
		sum += strlen(rec->u.mmap.filename);
	} else if (rec->type == PERF_RECORD_KSYMBOL) {
		sum += strlen(rec->u.ksymbol.name);
	} else if (rec->type == PERF_RECORD_CGROUP) {
		sum += strlen(rec->u.cgroup.path);
	}
	return sum;
}

/* Walk the record at @p (@avail bytes left) on an exact-size copy, as a
 * sample and as a record with a trailer, and check where the parts lie. */
static void walk_common(const struct amb_perf_layout *l, const uint8_t *p, size_t avail,
			bool swap)
{
	struct amb_perf_sample s;
	struct amb_perf_sample_id t;
	uint16_t size;
	uint8_t *b;

	if (avail < 8)
		return;
	memcpy(&size, p + 6, 2);
	if (swap)
		size = bswap_16(size);
	if (size < 8 || size > avail || !(b = malloc(size)))
		return;
	memcpy(b, p, size);
	if (!amb_perf_sample_walk(l, b, size, swap, &s)) {
		if ((s.callchain && s.callchain + s.nr_callchain * 8 > size) ||
		    (s.branches && s.branches + s.nr_branches * 24 > size) ||
		    (s.raw && s.raw + s.raw_size > size) ||
		    (s.stack && s.stack + s.stack_size + 8 > size) ||
		    (s.aux && s.aux + s.aux_size > size) ||
		    (s.read && s.read + s.nr_read * 8 > size) ||
		    (s.user_regs && s.user_regs + l->nr_regs_user * 8ull > size) ||
		    s.stack_dyn_size > s.stack_size || s.callchain % 8 || s.branches % 8)
			abort();
		sink += amb_perf_sample_to_host(l, b, size, swap, &s);
	}
	if (!amb_perf_sample_id_walk(l, b, size, swap, &t) &&
	    (t.off < 8 || t.off + l->trailer_size != size))
		abort();
	free(b);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct amb_perf_layout layout;
	struct perf_event_attr a;
	struct ana_parser *p;
	struct ana_record rec;
	size_t pos = PREFIX;
	uint8_t flags;

	ana_attr_to_host(&a, data, (uint32_t)AMB_MIN(size, 512u), true);
	ana_attr_to_host(&a, data, (uint32_t)AMB_MIN(size, 512u), false);
	if (size < PREFIX)
		return 0;
	flags = data[0];
	memset(&ev, 0, sizeof(ev));
	ev.attr.sample_type = amb_get_le64(data + 1) & (PERF_SAMPLE_MAX - 1);
	ev.attr.read_format = amb_get_le64(data + 9) & 0x1f;
	ev.attr.sample_regs_user = amb_get_le64(data + 17);
	ev.attr.sample_regs_intr = ev.attr.sample_regs_user;
	ev.attr.branch_sample_type = amb_get_le64(data + 25);
	ev.attr.sample_id_all = !!(flags & 2);
	amb_perf_layout_init(&layout, &ev.attr);
	p = ana_parser_new(flags & 1, lookup, NULL, (flags & 4) ? NULL : &ev);
	if (!p)
		return 0;
	/* Reading in place: the input stays put for the whole run. */
	ana_parser_set_borrow(p, flags & 8);
	while (pos < size) {
		int ret = ana_parse_record(p, data + pos, size - pos, &rec);

		walk_common(&layout, data + pos, size - pos, flags & 1);

		if (ret <= 0)
			break;
		sink += touch(&rec);
		pos += (size_t)ret;
	}
	ana_parser_free(p);
	return 0;
}
