/* SPDX-License-Identifier: MIT */
/*
 * analyze/resolve/datasrc.h - what a memory sample says of its access
 * (datasrc.c): the perf_mem_data_src value of PERF_SAMPLE_DATA_SRC decoded
 * field by field and described as perf describes it, and the weight of
 * PERF_SAMPLE_WEIGHT or PERF_SAMPLE_WEIGHT_STRUCT.
 */
#ifndef AMB_ANALYZE_DATASRC_H
#define AMB_ANALYZE_DATASRC_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "analyze/replay/replay.h"

/*
 * The fields of union perf_mem_data_src (include/uapi/linux/perf_event.h),
 * by their bit positions in the value, whatever the byte order of the
 * producer (the parser hands over the value in host order).  Each holds
 * the field's bits as the kernel's PERF_MEM_<FIELD>_* constants name them.
 */
struct ana_datasrc {
	uint8_t op;        /* bits 0-4:   PERF_MEM_OP_* (NA, LOAD, STORE, PFETCH, EXEC) */
	uint16_t lvl;      /* bits 5-18:  PERF_MEM_LVL_* (NA, HIT, MISS, L1 ... UNC) */
	uint8_t snoop;     /* bits 19-23: PERF_MEM_SNOOP_* (NA, NONE, HIT, MISS, HITM) */
	uint8_t lock;      /* bits 24-25: PERF_MEM_LOCK_* (NA, LOCKED) */
	uint8_t dtlb;      /* bits 26-32: PERF_MEM_TLB_* (NA, HIT, MISS, L1, L2, WK, OS) */
	uint8_t lvl_num;   /* bits 33-36: PERF_MEM_LVLNUM_* (L1 .. RAM, PMEM, NA) */
	uint8_t remote;    /* bit 37:     PERF_MEM_REMOTE_REMOTE */
	uint8_t snoopx;    /* bits 38-39: PERF_MEM_SNOOPX_* (FWD, PEER) */
	uint8_t blk;       /* bits 40-42: PERF_MEM_BLK_* (NA, DATA, ADDR) */
	uint8_t hops;      /* bits 43-45: PERF_MEM_HOPS_* (0: none, 1..4) */
};

/* Split @v into its fields. */
void ana_datasrc_decode(uint64_t v, struct ana_datasrc *d);

/*
 * Each field described as perf's tools/perf/util/mem-events.c describes
 * it (the text of perf mem report's sort keys), into @buf of @len bytes
 * (truncated, always terminated); each returns @buf.
 *   op:    "LOAD", "STORE", "PFETCH", "EXEC", "N/A" or "No"
 *   level: "L1 hit", "Remote RAM hit", "Remote node, same socket RAM hit",
 *          "Remote RAM (1 hop) hit", "L2 or L3 miss", "N/A" - from
 *          lvl_num (with remote and hops) when set, else from the lvl bits
 *   snoop: "None", "Hit", "HitM", "Miss or Fwd", ..., "N/A"
 *   tlb:   "L1 or L2 hit", "Walker miss", "N/A", ...
 *   lock:  "Yes", "No", "N/A"
 *   blk:   "Data", "Addr", "Data Addr" or "N/A"
 */
const char *ana_datasrc_op(const struct ana_datasrc *d, char *buf, size_t len);
const char *ana_datasrc_level(const struct ana_datasrc *d, char *buf, size_t len);
const char *ana_datasrc_snoop(const struct ana_datasrc *d, char *buf, size_t len);
const char *ana_datasrc_tlb(const struct ana_datasrc *d, char *buf, size_t len);
const char *ana_datasrc_lock(const struct ana_datasrc *d, char *buf, size_t len);
const char *ana_datasrc_blk(const struct ana_datasrc *d, char *buf, size_t len);

/*
 * perf script's data_src text for @v: "|OP LOAD|LVL L1 hit|SNP None|TLB
 * L1 or L2 hit|LCK No|BLK  N/A" (perf_script__meminfo_scnprintf), into
 * @buf.  Returns @buf.
 */
const char *ana_datasrc_describe(uint64_t v, char *buf, size_t len);

/* True when @v says anything: some field other than "not available". */
bool ana_datasrc_known(uint64_t v);

/*
 * The weight of sample @s: PERF_SAMPLE_WEIGHT's value, or the access
 * latency of PERF_SAMPLE_WEIGHT_STRUCT (its low 32 bits, var1_dw; the
 * instruction latency above it is in *@ins_lat when not NULL).  False
 * (and 0) when its event records no weight.
 */
bool ana_sample_weight(const struct ana_sample *s, uint64_t *weight, uint32_t *ins_lat);

/*
 * perf's name of a page size (tools/perf/util/util.c get_page_size_name()
 * with unit_number__scnprintf()): "4K", "2M", "1G", "N/A" for 0.
 * Returns @buf.
 */
const char *ana_page_size_name(uint64_t size, char *buf, size_t len);

#endif /* AMB_ANALYZE_DATASRC_H */
