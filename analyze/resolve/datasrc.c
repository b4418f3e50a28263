// SPDX-License-Identifier: MIT
/*
 * analyze/resolve/datasrc.c - the perf_mem_data_src value of a memory
 * sample, decoded and described as perf describes it.
 *
 * The layout and the constants are the kernel's ABI
 * (include/uapi/linux/perf_event.h, union perf_mem_data_src and the
 * PERF_MEM_* macros); they are spelled out here rather than taken from
 * <linux/perf_event.h> so that recordings from newer kernels decode the
 * same whatever headers this was built with.  The words are perf's
 * (tools/perf/util/mem-events.c, as of Linux 6.12): a level is described
 * from the numbered level (lvl_num, with remote and hops) when the PMU set
 * one, else from the older bit mask of levels.  One deviation: perf
 * leaves a trailing space after a level that is neither a hit nor a miss
 * ("RAM "); this does not.
 */
#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include "analyze/resolve/datasrc.h"

/* Bit positions and widths of the fields (PERF_MEM_*_SHIFT). */
#define OP_SHIFT      0
#define LVL_SHIFT     5
#define SNOOP_SHIFT   19
#define LOCK_SHIFT    24
#define TLB_SHIFT     26
#define LVLNUM_SHIFT  33
#define REMOTE_SHIFT  37
#define SNOOPX_SHIFT  38
#define BLK_SHIFT     40
#define HOPS_SHIFT    43

#define OP_NA       0x01
#define OP_LOAD     0x02
#define OP_STORE    0x04
#define OP_PFETCH   0x08
#define OP_EXEC     0x10
#define LVL_NA      0x01
#define LVL_HIT     0x02
#define LVL_MISS    0x04
#define LVLNUM_NA   0x0f
#define SNOOP_NA    0x01
#define LOCK_NA     0x01
#define LOCK_LOCKED 0x02
#define TLB_NA      0x01
#define TLB_HIT     0x02
#define TLB_MISS    0x04
#define BLK_NA      0x01
#define BLK_DATA    0x02
#define BLK_ADDR    0x04

static uint64_t field(uint64_t v, unsigned shift, unsigned width)
{
	return (v >> shift) & ((1ull << width) - 1);
}

void ana_datasrc_decode(uint64_t v, struct ana_datasrc *d)
{
	d->op = (uint8_t)field(v, OP_SHIFT, 5);
	d->lvl = (uint16_t)field(v, LVL_SHIFT, 14);
	d->snoop = (uint8_t)field(v, SNOOP_SHIFT, 5);
	d->lock = (uint8_t)field(v, LOCK_SHIFT, 2);
	d->dtlb = (uint8_t)field(v, TLB_SHIFT, 7);
	d->lvl_num = (uint8_t)field(v, LVLNUM_SHIFT, 4);
	d->remote = (uint8_t)field(v, REMOTE_SHIFT, 1);
	d->snoopx = (uint8_t)field(v, SNOOPX_SHIFT, 2);
	d->blk = (uint8_t)field(v, BLK_SHIFT, 3);
	d->hops = (uint8_t)field(v, HOPS_SHIFT, 3);
}

/* Appends with snprintf's truncation, keeping track of the end. */
struct text {
	char *buf;
	size_t len, pos;
};

static void put(struct text *t, const char *s)
{
	int n;

	if (t->pos >= t->len)
		return;
	n = snprintf(t->buf + t->pos, t->len - t->pos, "%s", s);
	if (n > 0)
		t->pos += (size_t)n;
}

/* The names of the bits of @mask that are set, joined by " or ". */
static void put_bits(struct text *t, unsigned mask, const char *const *names, size_t nr,
		     bool *printed)
{
	for (size_t i = 0; i < nr && mask; i++, mask >>= 1) {
		if (!(mask & 1) || !names[i])
			continue;
		if (*printed)
			put(t, " or ");
		put(t, names[i]);
		*printed = true;
	}
}

static struct text text_init(char *buf, size_t len)
{
	if (len)
		buf[0] = '\0';
	return (struct text){ buf, len, 0 };
}

const char *ana_datasrc_op(const struct ana_datasrc *d, char *buf, size_t len)
{
	const char *s = d->op & OP_NA ? "N/A" : d->op & OP_LOAD ? "LOAD" :
			d->op & OP_STORE ? "STORE" : d->op & OP_PFETCH ? "PFETCH" :
			d->op & OP_EXEC ? "EXEC" : "No";

	snprintf(buf, len, "%s", s);
	return buf;
}

const char *ana_datasrc_level(const struct ana_datasrc *d, char *buf, size_t len)
{
	/* PERF_MEM_LVL_* bits, in bit order. */
	static const char *const lvl_names[] = {
		"N/A", "HIT", "MISS", "L1", "LFB/MAB", "L2", "L3", "Local RAM",
		"Remote RAM (1 hop)", "Remote RAM (2 hops)", "Remote Cache (1 hop)",
		"Remote Cache (2 hops)", "I/O", "Uncached",
	};
	/* PERF_MEM_LVLNUM_* values. */
	static const char *const lvlnum_names[16] = {
		[0x1] = "L1", [0x2] = "L2", [0x3] = "L3", [0x4] = "L4", [0x5] = "L2 MHB",
		[0x7] = "Memory-side Cache", [0x8] = "Uncached", [0x9] = "CXL", [0xa] = "I/O",
		[0xb] = "Any cache", [0xc] = "LFB/MAB", [0xd] = "RAM", [0xe] = "PMEM",
		[0xf] = "N/A",
	};
	/* PERF_MEM_HOPS_* values: perf puts "Remote " before them. */
	static const char *const hops_names[] = {
		"N/A", "core, same node", "node, same socket", "socket, same board", "board",
	};
	const char *hit_miss = d->lvl & LVL_HIT ? "hit" : d->lvl & LVL_MISS ? "miss" : "";
	struct text t = text_init(buf, len);
	bool printed = false;
	char tmp[32];

	if (d->lvl_num && d->lvl_num != LVLNUM_NA) {
		if (d->remote)
			put(&t, "Remote ");
		if (d->hops) {
			if (d->hops < sizeof(hops_names) / sizeof(hops_names[0]))
				put(&t, hops_names[d->hops]);
			else {
				snprintf(tmp, sizeof(tmp), "%u hops", d->hops);
				put(&t, tmp);
			}
			put(&t, " ");
		}
		if (lvlnum_names[d->lvl_num]) {
			put(&t, lvlnum_names[d->lvl_num]);
		} else {
			snprintf(tmp, sizeof(tmp), "Unknown level %u", d->lvl_num);
			put(&t, tmp);
		}
		printed = true;
	} else {
		put_bits(&t, d->lvl & ~(LVL_NA | LVL_HIT | LVL_MISS), lvl_names,
			 sizeof(lvl_names) / sizeof(lvl_names[0]), &printed);
	}
	if (!printed) {
		snprintf(buf, len, "N/A");
		return buf;
	}
	if (*hit_miss) {
		put(&t, " ");
		put(&t, hit_miss);
	}
	return buf;
}

const char *ana_datasrc_snoop(const struct ana_datasrc *d, char *buf, size_t len)
{
	static const char *const snoop_names[] = { "N/A", "None", "Hit", "Miss", "HitM" };
	static const char *const snoopx_names[] = { "Fwd", "Peer" };
	struct text t = text_init(buf, len);
	bool printed = false;

	put_bits(&t, d->snoop, snoop_names, 5, &printed);
	put_bits(&t, d->snoopx, snoopx_names, 2, &printed);
	if (!printed)
		snprintf(buf, len, "N/A");
	return buf;
}

const char *ana_datasrc_tlb(const struct ana_datasrc *d, char *buf, size_t len)
{
	static const char *const tlb_names[] = { "N/A", "HIT", "MISS", "L1", "L2", "Walker",
						 "Fault" };
	struct text t = text_init(buf, len);
	bool printed = false;

	put_bits(&t, d->dtlb & ~(TLB_HIT | TLB_MISS), tlb_names, 7, &printed);
	if (!printed)
		put(&t, "N/A");
	if (d->dtlb & TLB_HIT)
		put(&t, " hit");
	if (d->dtlb & TLB_MISS)
		put(&t, " miss");
	return buf;
}

const char *ana_datasrc_lock(const struct ana_datasrc *d, char *buf, size_t len)
{
	snprintf(buf, len, "%s", d->lock & LOCK_NA ? "N/A" : d->lock & LOCK_LOCKED ? "Yes" : "No");
	return buf;
}

const char *ana_datasrc_blk(const struct ana_datasrc *d, char *buf, size_t len)
{
	struct text t = text_init(buf, len);

	if (!d->blk || (d->blk & BLK_NA)) {
		put(&t, "N/A");
		return buf;
	}
	if (d->blk & BLK_DATA)
		put(&t, "Data");
	if (d->blk & BLK_ADDR)
		put(&t, d->blk & BLK_DATA ? " Addr" : "Addr");
	return buf;
}

const char *ana_datasrc_describe(uint64_t v, char *buf, size_t len)
{
	char op[16], lvl[96], snp[64], tlb[64], lck[8], blk[16];
	struct ana_datasrc d;

	ana_datasrc_decode(v, &d);
	/* perf's BLK field keeps the leading space of its " N/A", " Data". */
	snprintf(buf, len, "|OP %s|LVL %s|SNP %s|TLB %s|LCK %s|BLK  %s",
		 ana_datasrc_op(&d, op, sizeof(op)), ana_datasrc_level(&d, lvl, sizeof(lvl)),
		 ana_datasrc_snoop(&d, snp, sizeof(snp)), ana_datasrc_tlb(&d, tlb, sizeof(tlb)),
		 ana_datasrc_lock(&d, lck, sizeof(lck)), ana_datasrc_blk(&d, blk, sizeof(blk)));
	return buf;
}

bool ana_datasrc_known(uint64_t v)
{
	struct ana_datasrc d;

	ana_datasrc_decode(v, &d);
	return (d.op & ~OP_NA) || (d.lvl & ~LVL_NA) || (d.snoop & ~SNOOP_NA) ||
	       (d.lock & ~LOCK_NA) || (d.dtlb & ~TLB_NA) ||
	       (d.lvl_num && d.lvl_num != LVLNUM_NA) || d.remote || d.snoopx ||
	       (d.blk & ~BLK_NA) || d.hops;
}

bool ana_sample_weight(const struct ana_sample *s, uint64_t *weight, uint32_t *ins_lat)
{
	uint64_t st = s->evt ? s->evt->attr.sample_type : 0;

	*weight = 0;
	if (ins_lat)
		*ins_lat = 0;
	if (st & PERF_SAMPLE_WEIGHT_STRUCT) {
		/* union perf_sample_weight: var1_dw is the value's low half in
		 * either byte order, var2_w the 16 bits above it. */
		*weight = s->weight & 0xffffffffu;
		if (ins_lat)
			*ins_lat = (uint32_t)((s->weight >> 32) & 0xffffu);
		return true;
	}
	if (st & PERF_SAMPLE_WEIGHT) {
		*weight = s->weight;
		return true;
	}
	return false;
}

const char *ana_page_size_name(uint64_t size, char *buf, size_t len)
{
	static const char unit[] = "BKMG";
	unsigned i = 0;

	if (!size) {
		snprintf(buf, len, "N/A");
		return buf;
	}
	/* perf's unit_number__scnprintf(): divides while the quotient is
	 * above one, so 1024 stays "1024B" and 2048 is "2K". */
	while (size / 1024 > 1 && i < 3) {
		size /= 1024;
		i++;
	}
	snprintf(buf, len, "%" PRIu64 "%c", size, unit[i]);
	return buf;
}
