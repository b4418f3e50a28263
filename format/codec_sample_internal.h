/* SPDX-License-Identifier: MIT */
/*
 * format/codec_sample_internal.h - what the sample codec's three files
 * share (codec 2, FORMAT.md §4.1; the codec is explained in
 * codec_sample.c): perf's sample_type and read_format bits, the columns and
 * the predicted fields, the codec's state with the block's prefix tree,
 * address list, recent chains and threads, the functions of
 * codec_sample.c that grow them, and the small helpers the encoder and the
 * decoder both inline (the records' byte order, signed differences, the
 * predictions).  Private to format/codec_sample*.c.
 */
#ifndef AMB_FORMAT_CODEC_SAMPLE_INTERNAL_H
#define AMB_FORMAT_CODEC_SAMPLE_INTERNAL_H

#include <byteswap.h>
#include <errno.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <zstd.h>

#include <amber/common.h>
#include "common/hashmap.h"
#include "common/util.h"
#include "format/format_internal.h"

/* perf_event.h's PERF_SAMPLE_* bits, as FORMAT.md §4.1 lists them: the
 * codec does not depend on the kernel headers of the machine it runs on. */
#define PS_IP             (1ull << 0)
#define PS_TID            (1ull << 1)
#define PS_TIME           (1ull << 2)
#define PS_ADDR           (1ull << 3)
#define PS_READ           (1ull << 4)
#define PS_CALLCHAIN      (1ull << 5)
#define PS_ID             (1ull << 6)
#define PS_CPU            (1ull << 7)
#define PS_PERIOD         (1ull << 8)
#define PS_STREAM_ID      (1ull << 9)
#define PS_RAW            (1ull << 10)
#define PS_BRANCH_STACK   (1ull << 11)
#define PS_REGS_USER      (1ull << 12)
#define PS_STACK_USER     (1ull << 13)
#define PS_WEIGHT         (1ull << 14)
#define PS_DATA_SRC       (1ull << 15)
#define PS_IDENTIFIER     (1ull << 16)
#define PS_TRANSACTION    (1ull << 17)
#define PS_REGS_INTR      (1ull << 18)
#define PS_PHYS_ADDR      (1ull << 19)
#define PS_AUX            (1ull << 20)
#define PS_CGROUP         (1ull << 21)
#define PS_DATA_PAGE_SIZE (1ull << 22)
#define PS_CODE_PAGE_SIZE (1ull << 23)
#define PS_WEIGHT_STRUCT  (1ull << 24)
#define PS_KNOWN          ((1ull << 25) - 1)

#define RF_TOTAL_TIME_ENABLED (1ull << 0)
#define RF_TOTAL_TIME_RUNNING (1ull << 1)
#define RF_ID                 (1ull << 2)
#define RF_GROUP              (1ull << 3)
#define RF_LOST               (1ull << 4)
#define RF_KNOWN              ((1ull << 5) - 1)

#define RECORD_SAMPLE   9u
#define RECORD_HDR      8u
#define RECORD_MAX      0xffffu
/* Callchain entries at or above this are PERF_CONTEXT_* markers. */
#define CONTEXT_MIN     ((uint64_t)-4095)

#define SAMPLE_VERSION  1u
#define READ_PREV_MAX   32u     /* read values predicted by position */
#define RECENT_MAX      256u    /* chains referred to by recency */

/* The columns of FORMAT.md §4.1, in the order the directory lists them. */
enum sample_col {
	COL_HEAD, COL_VERBATIM, COL_ID, COL_TID, COL_TIME, COL_CPU, COL_PERIOD, COL_IP,
	COL_CHAIN_REF, COL_CHAIN_NODES, COL_ADDR, COL_FIELDS, COL_REGS, COL_STACK_META,
	COL_STACK_DATA, COL_BYTES,
};
_Static_assert(COL_BYTES + 1 == AMB_SAMPLE_COLUMNS, "column count");

/* Scalar fields predicted by the field's previous value in the block. */
enum sample_prev {
	P_IDENTIFIER, P_IP, P_TIME, P_ADDR, P_ID, P_STREAM_ID, P_PERIOD, P_WEIGHT,
	P_DATA_SRC, P_TRANSACTION, P_PHYS_ADDR, P_CGROUP, P_DATA_PAGE_SIZE,
	P_CODE_PAGE_SIZE, P_PID, P_TID, P_CPU, P_MISC, P_TIME_D1, P_TIME_D2, P_TIME_D3,
	P_COUNT,
};

/* A node of the block's call-chain prefix tree: node 0 is the empty chain,
 * every other one the path of @parent followed by @addr (chains are keyed
 * as chain_key_at() says).  Parents are always made before their children. */
struct chain_node {
	uint64_t addr;
	uint32_t parent;
	uint32_t depth;
	uint32_t last_child;    /* the child made last, 0 when none */
	uint32_t entry;         /* its address in the block's address list */
};

/* The block's chain entry addresses, as the prefix tree's nodes made them
 * (FORMAT.md §4.1): what followed each last, to predict the next. */
struct addr_entry {
	uint64_t addr;
	uint32_t next;          /* entry of the child made last below a node of
				 * this entry, + 1; 0 when none */
};

/* A distinct chain of the block: its tree node with the node's depth and
 * address (the predicted ip) at hand, the misc of its last sample (the
 * node's, FORMAT.md §4.1), and for the decoder where its entries were
 * first written out (SIZE_MAX: not yet). */
struct chain_ref {
	uint32_t node;
	uint32_t depth;
	uint64_t addr;
	uint32_t misc;          /* misc + 1, 0 none */
	size_t out;
};

/* A thread's previous sample with user registers in the block: the
 * offset of its first REGS_USER value in the raw records (the encoder's
 * input, the decoder's output). */
struct thread_ref {
	size_t regs;
	bool has_regs;
};

struct amb_sample_codec {
	struct amb_sample_layout l;
	bool swap;                      /* records are not in host byte order */
	unsigned nr_regs_user, nr_regs_intr;
	uint64_t prev[P_COUNT];
	uint64_t prev_read[READ_PREV_MAX];
	uint64_t prev_intr[64];

	struct chain_node *nodes;
	size_t nr_nodes, cap_nodes;
	struct addr_entry *addrs;
	size_t nr_addrs, cap_addrs;
	struct amb_hashmap addr_map;    /* encoder: address -> its last entry + 1 */
	struct amb_hashmap children;    /* (parent, addr) -> node */
	struct amb_hashmap chains;      /* encoder: hash of a whole chain -> index + 1 */
	struct chain_ref *chains_by_index;  /* the block's distinct chains */
	size_t nr_chains, cap_chains;
	uint32_t recent[RECENT_MAX];    /* chain indexes, the latest used first */
	unsigned nr_recent;

	struct thread_ref *threads;
	size_t nr_threads, cap_threads;
	struct amb_hashmap by_tid;      /* tid -> threads index + 1 */

	/* Encoder: the streams of the columns, and their compressed forms. */
	struct amb_buf s[AMB_SAMPLE_STREAMS];
	struct amb_buf packed;
	ZSTD_CCtx *cctx;
	/* Decoder: decompressed columns. */
	ZSTD_DCtx *dctx;
	uint8_t *scratch;
	size_t scratch_cap, scratch_map;
	/* Decoder: each record's chain index, UINT32_MAX for none
	 * (amb_sample_codec_chains()). */
	uint32_t *rec_chain;
	size_t nr_rec_chain, cap_rec_chain;

	struct amb_sample_stats st;
};

/* ---- byte order of the records and signed differences -------------------- */

static inline uint64_t ld64(const struct amb_sample_codec *c, const uint8_t *p)
{
	uint64_t v;

	memcpy(&v, p, 8);
	return c->swap ? bswap_64(v) : v;
}

static inline uint32_t ld32(const struct amb_sample_codec *c, const uint8_t *p)
{
	uint32_t v;

	memcpy(&v, p, 4);
	return c->swap ? bswap_32(v) : v;
}

static inline uint16_t ld16(const struct amb_sample_codec *c, const uint8_t *p)
{
	uint16_t v;

	memcpy(&v, p, 2);
	return c->swap ? bswap_16(v) : v;
}

/* Signed differences as unsigned integers: 0, -1, 1, -2 ... -> 0, 1, 2, 3 ... */
static inline uint64_t zz64(uint64_t d)
{
	return (d << 1) ^ (uint64_t)((int64_t)d >> 63);
}

static inline uint64_t unzz64(uint64_t v)
{
	return (v >> 1) ^ (0 - (v & 1));
}

/* 32-bit fields (pid, tid, cpu) differ modulo 2^32. */
static inline uint64_t zz32(uint32_t d)
{
	return (uint32_t)((d << 1) ^ (uint32_t)((int32_t)d >> 31));
}

static inline uint32_t unzz32(uint64_t v)
{
	return (uint32_t)((v >> 1) ^ (0 - (v & 1)));
}

/* ---- layout ------------------------------------------------------------------ */

/* Number of u64 words of a READ value whose GROUP nr is @nr (1 without GROUP). */
static inline uint64_t read_words(uint64_t fmt, uint64_t nr)
{
	uint64_t per = 1 + !!(fmt & RF_ID) + !!(fmt & RF_LOST);
	uint64_t times = !!(fmt & RF_TOTAL_TIME_ENABLED) + !!(fmt & RF_TOTAL_TIME_RUNNING);

	return times + nr * per;
}

/* ---- the codec's state (codec_sample.c) -------------------------------------- */

/*
 * Start @c on a block of layout @l: the predictions, the prefix tree (its
 * root only), the address list (entry 0 only), the chains, the recent list,
 * the threads and the statistics start from nothing (FORMAT.md §4.1: blocks
 * decode alone); the memory is kept for the next block.  Returns 0 or
 * -ENOMEM.
 */
int amb_sample_codec_reset(struct amb_sample_codec *c, const struct amb_sample_layout *l);

/* The reference state of thread @tid in the block, made (zeroed) on first
 * use.  Owned by @c and valid until the next call; NULL without memory. */
struct thread_ref *amb_sample_thread_get(struct amb_sample_codec *c, uint32_t tid);

/* A new node of the prefix tree below node @parent with the address of
 * entry @entry (both exist): it becomes @parent's last child and @entry what
 * follows @parent's entry, the two predictions of node_pred().  Returns 0 or
 * -ENOMEM. */
int amb_sample_node_add(struct amb_sample_codec *c, uint32_t parent, uint32_t entry);

/* A new distinct chain of the block ending at node @node, at index
 * c->nr_chains - 1, with no misc yet and not yet written out.  Returns 0 or
 * -ENOMEM. */
int amb_sample_chain_add(struct amb_sample_codec *c, uint32_t node);

/* Small, and used for every chain entry or sample: inlined on both sides. */

/* A new address list entry for @addr; its index, or -ENOMEM. */
static inline long addr_new(struct amb_sample_codec *c, uint64_t addr)
{
	if (c->nr_addrs >= UINT32_MAX ||
	    amb_ensure_cap((void **)&c->addrs, &c->cap_addrs, sizeof(*c->addrs), c->nr_addrs + 1))
		return -ENOMEM;
	c->addrs[c->nr_addrs] = (struct addr_entry){ addr, 0 };
	return (long)c->nr_addrs++;
}

/* Chain @ci was used: it moves to the front of the recent list. */
static inline void recent_touch(struct amb_sample_codec *c, uint32_t ci, int rank)
{
	unsigned n = rank >= 0 ? (unsigned)rank
			       : AMB_MIN(c->nr_recent, RECENT_MAX - 1);

	if (n)
		memmove(c->recent + 1, c->recent, n * sizeof(c->recent[0]));
	c->recent[0] = ci;
	if (rank < 0 && c->nr_recent < RECENT_MAX)
		c->nr_recent++;
}

/* ---- predictions ------------------------------------------------------------- */

/*
 * The entry a new node below @parent is predicted to have: that of the
 * node made last below @parent (another ip of the same function), else
 * the one that last followed @parent's address anywhere in the tree (a
 * kernel path below another user frame), else @parent's own.
 */
static inline uint32_t node_pred(const struct amb_sample_codec *c, uint32_t parent)
{
	const struct chain_node *p = &c->nodes[parent];
	uint32_t next = c->addrs[p->entry].next;

	if (p->last_child)
		return c->nodes[p->last_child].entry;
	return next ? next - 1 : p->entry;
}

/* Time differences are predicted by the median of the last three. */
static inline uint64_t time_pred(const struct amb_sample_codec *c)
{
	int64_t a = (int64_t)c->prev[P_TIME_D1], b = (int64_t)c->prev[P_TIME_D2];
	int64_t d = (int64_t)c->prev[P_TIME_D3];

	if (a > b) {
		int64_t t = a;

		a = b;
		b = t;
	}
	return (uint64_t)(d < a ? a : d > b ? b : d);
}

static inline void time_push(struct amb_sample_codec *c, uint64_t delta)
{
	c->prev[P_TIME_D3] = c->prev[P_TIME_D2];
	c->prev[P_TIME_D2] = c->prev[P_TIME_D1];
	c->prev[P_TIME_D1] = delta;
}

/* The predicted misc of a sample of chain @cr (NULL: a sample without a
 * chain, the root's): that of the chain's previous sample, else that of the
 * previous sample.  Blocks hold samples with chains or without, never
 * both, so the root's misc is always the previous sample's. */
static inline uint16_t misc_pred(const struct amb_sample_codec *c, const struct chain_ref *cr)
{
	return (uint16_t)(cr && cr->misc ? cr->misc - 1 : c->prev[P_MISC]);
}

/* The predicted ip: the chain's node's address (its entry 1, or entry 0
 * for a chain of one, see chain_key_at()), else the previous sample's ip. */
static inline uint64_t chain_ip(const struct amb_sample_codec *c, const struct chain_ref *cr)
{
	return cr && cr->node ? cr->addr : c->prev[P_IP];
}

#endif /* AMB_FORMAT_CODEC_SAMPLE_INTERNAL_H */
