// SPDX-License-Identifier: MIT
/*
 * format/codec_sample.c - codec 2, "sample" (FORMAT.md §4.1): RING payloads
 * with PERF_RECORD_SAMPLE split into columns of variable-length integers,
 * each column compressed with zstd on its own.
 *
 * Samples are what a RING block is made of, and they are regular: the same
 * few call chains come back again and again, times grow by about the
 * period, ids, pids and CPUs hardly change, a thread's registers move
 * little from one sample to the next.  So each sample field is predicted
 * from what came before it in the block and only the difference is
 * stored, in the column of its kind, where zstd finds the repetitions;
 * call chains become references into a prefix tree of the block's chains;
 * user stack copies go to a stream of their own, where zstd matches them
 * against the thread's earlier copies.
 * Every other record, and any sample the layout does not describe exactly,
 * is stored as it is.  Decoding gives back the kernel's bytes exactly; the
 * payload carries a checksum of them.
 *
 * The codec knows the sample layout only from the masks in its payload
 * header (sample_type, read_format, the register masks), which the writer
 * takes from an EVENT_ATTR entry: a block decodes on its own.  It does not
 * care whether a sample is "really" of that layout: a sample is modelled
 * when the layout's fields add up to exactly its size, and whatever the
 * fields mean, they are put back in the same order.
 */
#include "format/format_internal.h"

#include <assert.h>
#include <byteswap.h>
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <zstd.h>

#include <amber/common.h>
#include "common/hashmap.h"
#include "common/util.h"

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

/* ---- byte order of the records and variable-length integers -------------- */

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

/* The decoder's stores, with the byte order a constant where the decoder
 * is specialized (sample_decode()). */
#define ALWAYS_INLINE inline __attribute__((always_inline))

static ALWAYS_INLINE void put64(bool sw, uint8_t *p, uint64_t v)
{
	if (sw)
		v = bswap_64(v);
	memcpy(p, &v, 8);
}

static ALWAYS_INLINE void put32(bool sw, uint8_t *p, uint32_t v)
{
	if (sw)
		v = bswap_32(v);
	memcpy(p, &v, 4);
}

static ALWAYS_INLINE void put16(bool sw, uint8_t *p, uint16_t v)
{
	if (sw)
		v = bswap_16(v);
	memcpy(p, &v, 2);
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

/* ---- encoder columns ------------------------------------------------------ */

/* LEB128: 7 bits a byte, least significant first, high bit = more. */
static inline void put_varint(struct amb_buf *b, uint64_t v)
{
	uint8_t *p = b->data + b->len;

	while (v >= 0x80) {
		*p++ = (uint8_t)(v | 0x80);
		v >>= 7;
	}
	*p++ = (uint8_t)v;
	b->len = (size_t)(p - b->data);
}

static inline void put_bytes(struct amb_buf *b, const void *p, size_t n)
{
	memcpy(b->data + b->len, p, n);
	b->len += n;
}

/* A value of a number column: its low byte in the column's first stream,
 * the rest as a varint in its second (FORMAT.md §4.1). */
static inline void put_num(struct amb_sample_codec *c, enum sample_col col, uint64_t v)
{
	struct amb_buf *lo = &c->s[2 * col];

	lo->data[lo->len++] = (uint8_t)v;
	put_varint(&c->s[2 * col + 1], v >> 8);
}

/* The bytes of a byte column go to its first stream. */
static inline void put_col_bytes(struct amb_sample_codec *c, enum sample_col col, const void *p,
				 size_t n)
{
	put_bytes(&c->s[2 * col], p, n);
}

/* ---- decoder columns ---------------------------------------------------------- */

struct rcol {
	const uint8_t *p, *end;          /* the first stream */
	const uint8_t *hp, *hend;        /* the second */
};

static inline bool get_varint(const uint8_t **pp, const uint8_t *end, uint64_t *v)
{
	const uint8_t *p = *pp;
	uint64_t x = 0;
	unsigned shift = 0;

	while (p < end && shift < 64) {
		uint8_t b = *p++;

		x |= (uint64_t)(b & 0x7f) << shift;
		if (!(b & 0x80)) {
			*v = x;
			*pp = p;
			return true;
		}
		shift += 7;
	}
	return false;
}

static inline bool get_num(struct rcol *r, uint64_t *v)
{
	uint64_t hi;

	if (r->p >= r->end || r->hp >= r->hend)
		return false;
	/* Most values fit in 15 bits: one byte in each stream. */
	if (*r->hp < 0x80) {
		*v = (uint64_t)*r->hp++ << 8 | *r->p++;
		return true;
	}
	if (!get_varint(&r->hp, r->hend, &hi) || hi > (UINT64_MAX >> 8))
		return false;
	*v = hi << 8 | *r->p++;
	return true;
}

static inline bool get_bytes(struct rcol *r, size_t n, const uint8_t **p)
{
	if (n > (size_t)(r->end - r->p))
		return false;
	*p = r->p;
	r->p += n;
	return true;
}

/* ---- layout ------------------------------------------------------------------ */

/* Number of u64 words of a READ value whose GROUP nr is @nr (1 without GROUP). */
static uint64_t read_words(uint64_t fmt, uint64_t nr)
{
	uint64_t per = 1 + !!(fmt & RF_ID) + !!(fmt & RF_LOST);
	uint64_t times = !!(fmt & RF_TOTAL_TIME_ENABLED) + !!(fmt & RF_TOTAL_TIME_RUNNING);

	return times + nr * per;
}

int amb_sample_layout_from_attr(struct amb_sample_layout *l, const uint8_t *attr, uint32_t size,
				uint8_t endian)
{
	bool swap = (endian == AMB_ENDIAN_BIG) == amb_host_is_le();
	uint64_t v;

	memset(l, 0, sizeof(*l));
	l->byte_order = endian;
	/* struct perf_event_attr: sample_type at 24, read_format at 32,
	 * branch_sample_type at 72, sample_regs_user at 80, sample_regs_intr
	 * at 96; an older, shorter attr has zeros there. */
#define ATTR_U64(off, dst)                                     \
	do {                                                   \
		v = 0;                                         \
		if (size >= (off) + 8)                         \
			memcpy(&v, attr + (off), 8);           \
		(dst) = swap ? bswap_64(v) : v;                \
	} while (0)
	ATTR_U64(24, l->sample_type);
	ATTR_U64(32, l->read_format);
	ATTR_U64(72, v);
	if (v & (1ull << 17)) /* PERF_SAMPLE_BRANCH_HW_INDEX */
		l->flags |= AMB_SAMPLE_BRANCH_HW_INDEX;
	ATTR_U64(80, l->regs_user);
	ATTR_U64(96, l->regs_intr);
#undef ATTR_U64
	if (endian != AMB_ENDIAN_LITTLE && endian != AMB_ENDIAN_BIG)
		return -EINVAL;
	if ((l->sample_type & ~PS_KNOWN) || (l->read_format & ~RF_KNOWN))
		return -ENOTSUP;
	if (!(l->sample_type & PS_READ))
		l->read_format = 0;
	if (!(l->sample_type & PS_REGS_USER))
		l->regs_user = 0;
	if (!(l->sample_type & PS_REGS_INTR))
		l->regs_intr = 0;
	if (!(l->sample_type & PS_BRANCH_STACK))
		l->flags = 0;
	return 0;
}

/* ---- the codec's state --------------------------------------------------------- */

struct amb_sample_codec *amb_sample_codec_new(void)
{
	return calloc(1, sizeof(struct amb_sample_codec));
}

void amb_sample_codec_free(struct amb_sample_codec *c)
{
	if (!c)
		return;
	free(c->nodes);
	free(c->addrs);
	amb_hashmap_free(&c->addr_map);
	free(c->chains_by_index);
	amb_hashmap_free(&c->children);
	amb_hashmap_free(&c->chains);
	free(c->threads);
	amb_hashmap_free(&c->by_tid);
	for (size_t i = 0; i < AMB_SAMPLE_STREAMS; i++)
		amb_buf_free(&c->s[i]);
	amb_buf_free(&c->packed);
	ZSTD_freeCCtx(c->cctx);
	ZSTD_freeDCtx(c->dctx);
	amb_big_free(c->scratch, c->scratch_map);
	free(c->rec_chain);
	free(c);
}

const uint32_t *amb_sample_codec_chains(const struct amb_sample_codec *c, size_t *nr)
{
	*nr = c->nr_rec_chain;
	return c->nr_rec_chain ? c->rec_chain : NULL;
}

void amb_sample_codec_stats(const struct amb_sample_codec *c, struct amb_sample_stats *st)
{
	*st = c->st;
}

/* Every block starts from nothing (FORMAT.md §4.1: blocks decode alone). */
static int codec_reset(struct amb_sample_codec *c, const struct amb_sample_layout *l)
{
	c->l = *l;
	c->swap = (l->byte_order == AMB_ENDIAN_BIG) == amb_host_is_le();
	c->nr_regs_user = (unsigned)__builtin_popcountll(l->regs_user);
	c->nr_regs_intr = (unsigned)__builtin_popcountll(l->regs_intr);
	memset(c->prev, 0, sizeof(c->prev));
	memset(c->prev_read, 0, sizeof(c->prev_read));
	memset(c->prev_intr, 0, sizeof(c->prev_intr));
	amb_hashmap_clear(&c->children);
	amb_hashmap_clear(&c->chains);
	amb_hashmap_clear(&c->by_tid);
	c->nr_threads = 0;
	c->nr_nodes = 0;
	c->nr_chains = 0;
	c->nr_recent = 0;
	amb_hashmap_clear(&c->addr_map);
	if (amb_ensure_cap((void **)&c->nodes, &c->cap_nodes, sizeof(*c->nodes), 1) ||
	    amb_ensure_cap((void **)&c->addrs, &c->cap_addrs, sizeof(*c->addrs), 1))
		return -ENOMEM;
	/* The root, the empty chain, has entry 0: address 0. */
	c->nodes[0] = (struct chain_node){ 0, 0, 0, 0, 0 };
	c->nr_nodes = 1;
	c->addrs[0] = (struct addr_entry){ 0, 0 };
	c->nr_addrs = 1;
	memset(&c->st, 0, sizeof(c->st));
	return 0;
}

/* The reference state of thread @tid, made on first use; NULL without memory. */
static struct thread_ref *thread_get(struct amb_sample_codec *c, uint32_t tid)
{
	uint64_t h = amb_hash_u64(tid);
	uintptr_t i = (uintptr_t)amb_hashmap_find_u64(&c->by_tid, h, tid);

	if (i)
		return &c->threads[i - 1];
	if (amb_ensure_cap((void **)&c->threads, &c->cap_threads, sizeof(*c->threads),
			   c->nr_threads + 1) ||
	    amb_hashmap_add(&c->by_tid, h, tid, (void *)(uintptr_t)(c->nr_threads + 1)))
		return NULL;
	memset(&c->threads[c->nr_threads], 0, sizeof(c->threads[0]));
	return &c->threads[c->nr_threads++];
}

/* A new address list entry for @addr; its index, or -ENOMEM. */
static long addr_new(struct amb_sample_codec *c, uint64_t addr)
{
	if (c->nr_addrs >= UINT32_MAX ||
	    amb_ensure_cap((void **)&c->addrs, &c->cap_addrs, sizeof(*c->addrs), c->nr_addrs + 1))
		return -ENOMEM;
	c->addrs[c->nr_addrs] = (struct addr_entry){ addr, 0 };
	return (long)c->nr_addrs++;
}

/* A new node below @parent with the address of entry @entry. */
static int node_add(struct amb_sample_codec *c, uint32_t parent, uint32_t entry)
{
	if (c->nr_nodes >= UINT32_MAX ||
	    amb_ensure_cap((void **)&c->nodes, &c->cap_nodes, sizeof(*c->nodes), c->nr_nodes + 1))
		return -ENOMEM;
	c->nodes[c->nr_nodes] = (struct chain_node){
		c->addrs[entry].addr, parent, c->nodes[parent].depth + 1, 0, entry,
	};
	c->nodes[parent].last_child = (uint32_t)c->nr_nodes;
	c->addrs[c->nodes[parent].entry].next = entry + 1;
	c->nr_nodes++;
	return 0;
}

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

/*
 * A new chain entry @addr below @parent is one number v, or two
 * (FORMAT.md §4.1), pred being node_pred()'s entry:
 *   v = 4 * zz(addr - pred's address): v = 0 takes pred's entry, any
 *       other value makes a new entry;
 *   v = 4 * k + 1, k in 1..4095: the context marker -k, a new entry;
 *   v = 1, then zz(addr - pred's address): a difference too big for the
 *       first form, a new entry;
 *   v = 4 * i + 2: the address of entry i, and its entry.
 * The encoder takes the shorter of the difference and the entry index.
 */
static int put_node(struct amb_sample_codec *c, uint32_t parent, uint64_t addr)
{
	uint32_t pred = node_pred(c, parent);
	uint64_t z = zz64(addr - c->addrs[pred].addr), h = amb_hash_u64(addr);
	uintptr_t known = (uintptr_t)amb_hashmap_find_u64(&c->addr_map, h, addr);
	long entry;

	if (z == 0) {
		put_num(c, COL_CHAIN_NODES, 0);
		return node_add(c, parent, pred);
	}
	if (known && (addr >= CONTEXT_MIN || z >> 62 ||
		      64 - __builtin_clzll(z) > 64 - __builtin_clzll((uint64_t)known))) {
		put_num(c, COL_CHAIN_NODES, 4 * (uint64_t)(known - 1) + 2);
		return node_add(c, parent, (uint32_t)(known - 1));
	}
	if (addr >= CONTEXT_MIN) {
		put_num(c, COL_CHAIN_NODES, 4 * (0 - addr) + 1);
	} else if (z >> 62) {
		put_num(c, COL_CHAIN_NODES, 1);
		put_num(c, COL_CHAIN_NODES, z);
	} else {
		put_num(c, COL_CHAIN_NODES, 4 * z);
	}
	entry = addr_new(c, addr);
	if (entry < 0)
		return (int)entry;
	if (amb_hashmap_put_u64(&c->addr_map, h, addr, (void *)(uintptr_t)(entry + 1), NULL))
		return -ENOMEM;
	return node_add(c, parent, (uint32_t)entry);
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

/* Chain @ci was used: it moves to the front of the recent list. */
static void recent_touch(struct amb_sample_codec *c, uint32_t ci, int rank)
{
	unsigned n = rank >= 0 ? (unsigned)rank
			       : AMB_MIN(c->nr_recent, RECENT_MAX - 1);

	memmove(c->recent + 1, c->recent, n * sizeof(c->recent[0]));
	c->recent[0] = ci;
	if (rank < 0 && c->nr_recent < RECENT_MAX)
		c->nr_recent++;
}

static int chain_add(struct amb_sample_codec *c, uint32_t node)
{
	if (amb_ensure_cap((void **)&c->chains_by_index, &c->cap_chains,
			   sizeof(*c->chains_by_index), c->nr_chains + 1))
		return -ENOMEM;
	c->chains_by_index[c->nr_chains++] = (struct chain_ref){
		node, c->nodes[node].depth, c->nodes[node].addr, 0, SIZE_MAX,
	};
	return 0;
}

static bool all_zero(const uint8_t *p, size_t n)
{
	return !n || (!p[0] && !memcmp(p, p + 1, n - 1));
}

/* Make c->scratch hold @n bytes (its content is not kept). */
static int scratch_reserve(struct amb_sample_codec *c, size_t n)
{
	size_t map;
	uint8_t *p;

	if (n <= c->scratch_cap)
		return 0;
	amb_big_free(c->scratch, c->scratch_map);
	c->scratch = NULL;
	c->scratch_cap = c->scratch_map = 0;
	p = amb_big_alloc(n ? n : 1, &map);
	if (!p)
		return -ENOMEM;
	c->scratch = p;
	c->scratch_map = map;
	c->scratch_cap = map ? map : n;
	return 0;
}

/* ---- encoding ----------------------------------------------------------------- */

/* Where the variable parts of a sample are, found by sample_walk(). */
struct sample_walk {
	size_t chain;            /* offset of the first callchain entry */
	uint64_t chain_nr;
};

/*
 * Check that the fields @c's layout describes add up to exactly the @size
 * bytes of the sample at @r (FORMAT.md §4.1, "modelled samples"), noting
 * where its callchain is.
 */
static bool sample_walk(const struct amb_sample_codec *c, const uint8_t *r, size_t size,
			struct sample_walk *w)
{
	const uint64_t st = c->l.sample_type;
	size_t off = RECORD_HDR;
	uint64_t n;

#define NEED(k) do { if ((uint64_t)(k) > size - off) return false; } while (0)
#define SKIP(k) do { NEED(k); off += (size_t)(k); } while (0)
	off += 8u * (unsigned)__builtin_popcountll(st & (PS_IDENTIFIER | PS_IP | PS_TID | PS_TIME |
						      PS_ADDR | PS_ID | PS_STREAM_ID | PS_CPU |
						      PS_PERIOD));
	if (off > size)
		return false;
	if (st & PS_READ) {
		n = 1;
		if (c->l.read_format & RF_GROUP) {
			NEED(8);
			n = ld64(c, r + off);
			off += 8;
			if (n > (size - off) / 8)
				return false;
		}
		n = read_words(c->l.read_format, n);
		if (n > (size - off) / 8)
			return false;
		off += (size_t)n * 8;
	}
	if (st & PS_CALLCHAIN) {
		NEED(8);
		n = ld64(c, r + off);
		off += 8;
		if (n > (size - off) / 8)
			return false;
		w->chain = off;
		w->chain_nr = n;
		off += (size_t)n * 8;
	}
	if (st & PS_RAW) {
		NEED(4);
		n = ld32(c, r + off);
		off += 4;
		SKIP(n);
	}
	if (st & PS_BRANCH_STACK) {
		NEED(8);
		n = ld64(c, r + off);
		off += 8;
		if (c->l.flags & AMB_SAMPLE_BRANCH_HW_INDEX)
			SKIP(8);
		if (n > (size - off) / 24)
			return false;
		off += (size_t)n * 24;
	}
	if (st & PS_REGS_USER) {
		NEED(8);
		n = ld64(c, r + off);
		off += 8;
		if (n)
			SKIP(8u * c->nr_regs_user);
	}
	if (st & PS_STACK_USER) {
		NEED(8);
		n = ld64(c, r + off);
		off += 8;
		if (n) {
			SKIP(n);
			NEED(8);
			if (ld64(c, r + off) > n)
				return false;
			off += 8;
		}
	}
	off += 8u * (unsigned)__builtin_popcountll(st & (PS_DATA_SRC | PS_TRANSACTION));
	if (st & (PS_WEIGHT | PS_WEIGHT_STRUCT))
		off += 8;
	if (off > size)
		return false;
	if (st & PS_REGS_INTR) {
		NEED(8);
		n = ld64(c, r + off);
		off += 8;
		if (n)
			SKIP(8u * c->nr_regs_intr);
	}
	off += 8u * (unsigned)__builtin_popcountll(st & (PS_PHYS_ADDR | PS_CGROUP |
						      PS_DATA_PAGE_SIZE | PS_CODE_PAGE_SIZE));
	if (off > size)
		return false;
	if (st & PS_AUX) {
		NEED(8);
		n = ld64(c, r + off);
		off += 8;
		SKIP(n);
	}
#undef SKIP
#undef NEED
	return off == size;
}

/*
 * The prefix tree keys a chain of n entries e[0..n-1] by e[0], e[n-1],
 * e[n-2], ..., e[1] (FORMAT.md §4.1): the context marker e[0] and the
 * outermost callers are shared by many chains, e[1] (the ip) is the leaf.
 */
static inline uint64_t chain_key_at(const struct amb_sample_codec *c, const uint8_t *e,
				    uint64_t nr, uint64_t j)
{
	return ld64(c, e + 8 * (j ? nr - j : 0));
}

struct child_key {
	const struct amb_sample_codec *c;
	uint32_t parent;
	uint64_t addr;
};

static bool child_eq(uint64_t stored, const void *key)
{
	const struct child_key *k = key;
	const struct chain_node *n = &k->c->nodes[stored];

	return n->parent == k->parent && n->addr == k->addr;
}

static inline uint64_t child_hash(uint32_t parent, uint64_t addr)
{
	return amb_hash_u64(addr ^ ((uint64_t)parent << 40 | parent));
}

struct chain_key {
	const struct amb_sample_codec *c;
	const uint8_t *e;
	uint64_t nr;
};

/* Whether chain @stored (an index) has the entries of @key. */
static bool chain_eq(uint64_t stored, const void *key)
{
	const struct chain_key *k = key;
	const struct chain_node *nodes = k->c->nodes;
	uint32_t n = k->c->chains_by_index[stored].node;

	if (nodes[n].depth != k->nr)
		return false;
	for (uint64_t j = k->nr; j > 0; j--, n = nodes[n].parent)
		if (nodes[n].addr != chain_key_at(k->c, k->e, k->nr, j - 1))
			return false;
	return true;
}

/*
 * Code the chain of @nr entries at @e in COL_CHAIN_REF: by its rank in the
 * recent list, by its index, or as a new chain, described in
 * COL_CHAIN_NODES by the deepest node of the tree it shares and the
 * entries below it.  Returns the chain's index, or -ENOMEM.
 */
static long chain_encode(struct amb_sample_codec *c, const uint8_t *e, uint64_t nr)
{
	struct chain_key ck = { c, e, nr };
	uint64_t h = amb_checksum(e, (size_t)nr * 8);
	uintptr_t found = (uintptr_t)amb_hashmap_find(&c->chains, h, chain_eq, &ck);
	uint32_t cur = 0, ci;
	uint64_t j = 0;
	int rank = -1;

	if (found) {
		ci = (uint32_t)(found - 1);
		for (unsigned i = 0; i < c->nr_recent; i++) {
			if (c->recent[i] == ci) {
				rank = (int)i;
				break;
			}
		}
		put_num(c, COL_CHAIN_REF, rank >= 0 ? (uint64_t)rank + 1 : RECENT_MAX + 1 + ci);
		recent_touch(c, ci, rank);
		return ci;
	}
	while (j < nr) {
		struct child_key k = { c, cur, chain_key_at(c, e, nr, j) };
		uintptr_t child = (uintptr_t)amb_hashmap_find(&c->children,
							      child_hash(cur, k.addr), child_eq, &k);

		if (!child)
			break;
		cur = (uint32_t)(child - 1);
		j++;
	}
	if (amb_buf_reserve(&c->s[2 * COL_CHAIN_NODES], 2 + 2 * (size_t)(nr - j)) ||
	    amb_buf_reserve(&c->s[2 * COL_CHAIN_NODES + 1], 20 + 20 * (size_t)(nr - j)))
		return -ENOMEM;
	put_num(c, COL_CHAIN_REF, 0);
	put_num(c, COL_CHAIN_NODES, cur);
	put_num(c, COL_CHAIN_NODES, nr - j);
	for (; j < nr; j++) {
		uint64_t addr = chain_key_at(c, e, nr, j);
		uint32_t n = (uint32_t)c->nr_nodes;

		if (put_node(c, cur, addr) ||
		    amb_hashmap_add(&c->children, child_hash(cur, addr), n,
				    (void *)(uintptr_t)(n + 1)))
			return -ENOMEM;
		cur = n;
	}
	ci = (uint32_t)c->nr_chains;
	if (chain_add(c, cur) || amb_hashmap_add(&c->chains, h, ci, (void *)(uintptr_t)(ci + 1)))
		return -ENOMEM;
	recent_touch(c, ci, -1);
	c->st.chains_new++;
	return ci;
}

/* Code @v in @col as its difference from the field's previous value. */
static inline void put_delta(struct amb_sample_codec *c, enum sample_col col, enum sample_prev f,
			     uint64_t v)
{
	put_num(c, col, zz64(v - c->prev[f]));
	c->prev[f] = v;
}

/* Room in every stream for what one record of @size bytes can add to it:
 * an 8-byte field takes at most 1 + 9 bytes in its column's two streams
 * (FORMAT.md §4.1), and a new chain reserves its own. */
static int reserve_record(struct amb_sample_codec *c, size_t size)
{
	size_t need = size + size / 4 + 64;

	for (size_t i = 0; i < AMB_SAMPLE_STREAMS; i++)
		if (c->s[i].cap - c->s[i].len < need && amb_buf_reserve(&c->s[i], need))
			return -ENOMEM;
	return 0;
}

/* Code @n register values at @p as differences from @ref (NULL: zeros). */
static void put_regs(struct amb_sample_codec *c, enum sample_col col, const uint8_t *p,
		     const uint8_t *ref, unsigned n)
{
	for (unsigned i = 0; i < n; i++)
		put_num(c, col, zz64(ld64(c, p + 8 * i) - (ref ? ld64(c, ref + 8 * i) : 0)));
}

static int sample_encode(struct amb_sample_codec *c, const uint8_t *raw, size_t at, size_t size,
			 uint16_t misc, const struct sample_walk *w)
{
	const uint64_t st = c->l.sample_type;
	const uint8_t *r = raw + at;
	struct chain_ref *cr = NULL;
	struct thread_ref *t;
	size_t off = RECORD_HDR;
	uint64_t v, n, pred;

	if (st & PS_CALLCHAIN) {
		long ci = chain_encode(c, r + w->chain, w->chain_nr);

		if (ci < 0)
			return (int)ci;
		cr = &c->chains_by_index[ci];
	}
	put_num(c, COL_HEAD, (uint64_t)(misc ^ misc_pred(c, cr)) + 1);
	if (cr)
		cr->misc = (uint32_t)misc + 1;
	c->prev[P_MISC] = misc;
	pred = chain_ip(c, cr);
	if (st & PS_IDENTIFIER) {
		put_delta(c, COL_ID, P_IDENTIFIER, ld64(c, r + off));
		off += 8;
	}
	if (st & PS_IP) {
		v = ld64(c, r + off);
		put_num(c, COL_IP, zz64(v - pred));
		c->prev[P_IP] = v;
		off += 8;
	}
	if (st & PS_TID) {
		uint32_t pid = ld32(c, r + off), tid = ld32(c, r + off + 4);

		put_num(c, COL_TID, zz32(pid - (uint32_t)c->prev[P_PID]));
		put_num(c, COL_TID, zz32(tid - (uint32_t)c->prev[P_TID]));
		c->prev[P_PID] = pid;
		c->prev[P_TID] = tid;
		off += 8;
	}
	if (st & PS_TIME) {
		v = ld64(c, r + off);
		n = v - c->prev[P_TIME];
		put_num(c, COL_TIME, zz64(n - time_pred(c)));
		time_push(c, n);
		c->prev[P_TIME] = v;
		off += 8;
	}
	if (st & PS_ADDR) {
		put_delta(c, COL_ADDR, P_ADDR, ld64(c, r + off));
		off += 8;
	}
	if (st & PS_ID) {
		put_delta(c, COL_ID, P_ID, ld64(c, r + off));
		off += 8;
	}
	if (st & PS_STREAM_ID) {
		put_delta(c, COL_ID, P_STREAM_ID, ld64(c, r + off));
		off += 8;
	}
	if (st & PS_CPU) {
		uint32_t cpu = ld32(c, r + off);

		put_num(c, COL_CPU, zz32(cpu - (uint32_t)c->prev[P_CPU]));
		put_num(c, COL_CPU, ld32(c, r + off + 4));
		c->prev[P_CPU] = cpu;
		off += 8;
	}
	if (st & PS_PERIOD) {
		put_delta(c, COL_PERIOD, P_PERIOD, ld64(c, r + off));
		off += 8;
	}
	if (st & PS_READ) {
		n = 1;
		if (c->l.read_format & RF_GROUP) {
			n = ld64(c, r + off);
			put_num(c, COL_FIELDS, n);
			off += 8;
		}
		n = read_words(c->l.read_format, n);
		for (uint64_t i = 0; i < n; i++, off += 8) {
			v = ld64(c, r + off);
			if (i < READ_PREV_MAX) {
				put_num(c, COL_FIELDS, zz64(v - c->prev_read[i]));
				c->prev_read[i] = v;
			} else {
				put_num(c, COL_FIELDS, zz64(v));
			}
		}
	}
	if (st & PS_CALLCHAIN)
		off += 8 + (size_t)w->chain_nr * 8;
	if (st & PS_RAW) {
		n = ld32(c, r + off);
		put_num(c, COL_FIELDS, n);
		put_col_bytes(c, COL_BYTES, r + off + 4, (size_t)n);
		off += 4 + (size_t)n;
	}
	if (st & PS_BRANCH_STACK) {
		uint64_t from = 0;

		n = ld64(c, r + off);
		put_num(c, COL_FIELDS, n);
		off += 8;
		if (c->l.flags & AMB_SAMPLE_BRANCH_HW_INDEX) {
			put_num(c, COL_FIELDS, zz64(ld64(c, r + off)));
			off += 8;
		}
		for (uint64_t i = 0; i < n; i++, off += 24) {
			uint64_t f = ld64(c, r + off), to = ld64(c, r + off + 8);

			put_num(c, COL_FIELDS, zz64(f - from));
			put_num(c, COL_FIELDS, zz64(to - f));
			put_num(c, COL_FIELDS, ld64(c, r + off + 16));
			from = f;
		}
	}
	if (st & PS_REGS_USER) {
		v = ld64(c, r + off);
		put_num(c, COL_REGS, v);
		off += 8;
		if (v) {
			if (!(t = thread_get(c, (st & PS_TID) ? (uint32_t)c->prev[P_TID] : 0)))
				return -ENOMEM;
			put_regs(c, COL_REGS, r + off, t->has_regs ? raw + t->regs : NULL,
				 c->nr_regs_user);
			t->regs = at + off;
			t->has_regs = true;
			off += 8u * c->nr_regs_user;
		}
	}
	if (st & PS_STACK_USER) {
		n = ld64(c, r + off);
		put_num(c, COL_STACK_META, n);
		off += 8;
		if (n) {
			const uint8_t *data = r + off;
			uint64_t dyn = ld64(c, data + n);
			bool zero_tail = all_zero(data + dyn, (size_t)(n - dyn));

			/* zstd finds what a copy shares with the thread's earlier
			 * ones better than any transform tried (FORMAT.md §4.1). */
			put_num(c, COL_STACK_META, dyn);
			put_num(c, COL_STACK_META, zero_tail ? 0 : 1);
			put_col_bytes(c, COL_STACK_DATA, data, (size_t)(zero_tail ? dyn : n));
			off += (size_t)n + 8;
		}
	}
	if (st & (PS_WEIGHT | PS_WEIGHT_STRUCT)) {
		put_delta(c, COL_FIELDS, P_WEIGHT, ld64(c, r + off));
		off += 8;
	}
	if (st & PS_DATA_SRC) {
		put_delta(c, COL_FIELDS, P_DATA_SRC, ld64(c, r + off));
		off += 8;
	}
	if (st & PS_TRANSACTION) {
		put_delta(c, COL_FIELDS, P_TRANSACTION, ld64(c, r + off));
		off += 8;
	}
	if (st & PS_REGS_INTR) {
		v = ld64(c, r + off);
		put_num(c, COL_FIELDS, v);
		off += 8;
		for (unsigned i = 0; v && i < c->nr_regs_intr; i++, off += 8) {
			uint64_t x = ld64(c, r + off);

			put_num(c, COL_FIELDS, zz64(x - c->prev_intr[i]));
			c->prev_intr[i] = x;
		}
	}
	if (st & PS_PHYS_ADDR) {
		put_delta(c, COL_FIELDS, P_PHYS_ADDR, ld64(c, r + off));
		off += 8;
	}
	if (st & PS_CGROUP) {
		put_delta(c, COL_FIELDS, P_CGROUP, ld64(c, r + off));
		off += 8;
	}
	if (st & PS_DATA_PAGE_SIZE) {
		put_delta(c, COL_FIELDS, P_DATA_PAGE_SIZE, ld64(c, r + off));
		off += 8;
	}
	if (st & PS_CODE_PAGE_SIZE) {
		put_delta(c, COL_FIELDS, P_CODE_PAGE_SIZE, ld64(c, r + off));
		off += 8;
	}
	if (st & PS_AUX) {
		n = ld64(c, r + off);
		put_num(c, COL_FIELDS, n);
		put_col_bytes(c, COL_BYTES, r + off + 8, (size_t)n);
		off += 8 + (size_t)n;
	}
	assert(off == size);
	return 0;
}

/* Compress stream @i into c->packed; its stored length in *stored
 * (FORMAT.md §4.1: 0 for all zeros, the raw length when zstd does not
 * shrink it). */
static int stream_pack(struct amb_sample_codec *c, size_t i, int level, size_t *stored)
{
	const struct amb_buf *b = &c->s[i];
	struct amb_buf *p = &c->packed;
	size_t bound, n;

	*stored = 0;
	if (all_zero(b->data, b->len))
		return 0;
	bound = ZSTD_compressBound(b->len);
	if (amb_buf_reserve(p, AMB_MAX(bound, b->len)))
		return -ENOMEM;
	if (level > 0 && b->len >= AMB_SMALL_BLOCK) {
		/* The directory says how long a stream is: frames need not. */
		ZSTD_CCtx_reset(c->cctx, ZSTD_reset_session_and_parameters);
		ZSTD_CCtx_setParameter(c->cctx, ZSTD_c_compressionLevel, level);
		ZSTD_CCtx_setParameter(c->cctx, ZSTD_c_contentSizeFlag, 0);
		n = ZSTD_compress2(c->cctx, p->data + p->len, bound, b->data, b->len);
		if (!ZSTD_isError(n) && n < b->len) {
			p->len += n;
			*stored = n;
			return 0;
		}
	}
	memcpy(p->data + p->len, b->data, b->len);
	p->len += b->len;
	*stored = b->len;
	return 0;
}

int amb_sample_encode(struct amb_sample_codec *c, const struct amb_sample_layout *l, int level,
		      const void *data, size_t len, struct amb_buf *out)
{
	const uint8_t *raw = data;
	size_t stored[AMB_SAMPLE_STREAMS], total = 0, pos = 0;
	uint8_t hdr[AMB_SAMPLE_HDR_SIZE];
	uint64_t records = 0;
	int err;

	err = codec_reset(c, l);
	if (err)
		return err;
	if (level > 0 && !c->cctx && !(c->cctx = ZSTD_createCCtx()))
		return -ENOMEM;
	for (size_t i = 0; i < AMB_SAMPLE_STREAMS; i++)
		c->s[i].len = 0;
	c->packed.len = 0;

	while (pos < len) {
		struct sample_walk w = { 0, 0 };
		uint32_t type;
		uint16_t misc, size;

		if (len - pos < RECORD_HDR)
			return -EINVAL;
		type = ld32(c, raw + pos);
		misc = ld16(c, raw + pos + 4);
		size = ld16(c, raw + pos + 6);
		if (size < RECORD_HDR || size > len - pos)
			return -EINVAL;
		err = reserve_record(c, size);
		if (err)
			return err;
		if (type == RECORD_SAMPLE && sample_walk(c, raw + pos, size, &w)) {
			err = sample_encode(c, raw, pos, size, misc, &w);
			if (err)
				return err;
			c->st.samples++;
		} else {
			put_num(c, COL_HEAD, 0);
			put_col_bytes(c, COL_VERBATIM, raw + pos, size);
			c->st.verbatim++;
		}
		records++;
		pos += size;
	}
	if (records > UINT32_MAX)
		return -E2BIG;

	for (size_t i = 0; i < AMB_SAMPLE_STREAMS; i++) {
		total += c->s[i].len;
		err = stream_pack(c, i, level, &stored[i]);
		if (err)
			return err;
		c->st.stream_raw[i] = c->s[i].len;
		c->st.stream_stored[i] = stored[i];
	}
	/* FORMAT.md §4.1 caps what the streams may add up to. */
	if (total > AMB_SAMPLE_STREAMS_MAX(len))
		return -E2BIG;

	memset(hdr, 0, sizeof(hdr));
	amb_put_le16(hdr, AMB_SAMPLE_HDR_SIZE);
	hdr[2] = SAMPLE_VERSION;
	hdr[3] = l->byte_order;
	hdr[4] = l->flags;
	amb_put_le64(hdr + 8, l->sample_type);
	amb_put_le64(hdr + 16, l->read_format);
	amb_put_le64(hdr + 24, l->regs_user);
	amb_put_le64(hdr + 32, l->regs_intr);
	amb_put_le64(hdr + 40, amb_checksum(raw, len));
	amb_put_le32(hdr + 48, (uint32_t)records);
	amb_put_le32(hdr + 52, AMB_SAMPLE_STREAMS);

	out->len = 0;
	if (amb_buf_reserve(out, sizeof(hdr) + AMB_SAMPLE_STREAMS * 20 + c->packed.len))
		return -ENOMEM;
	put_bytes(out, hdr, sizeof(hdr));
	for (size_t i = 0; i < AMB_SAMPLE_STREAMS; i++) {
		put_varint(out, c->s[i].len);
		if (c->s[i].len)
			put_varint(out, stored[i]);
	}
	put_bytes(out, c->packed.data, c->packed.len);
	c->st.records = records;
	c->st.nodes = c->nr_nodes - 1;
	return 0;
}

/* ---- decoding ------------------------------------------------------------------- */

struct dec {
	struct amb_sample_codec *c;
	struct rcol col[AMB_SAMPLE_COLUMNS];
	uint8_t *out;
	size_t pos, end;         /* write position, raw_size */
	char *why;
	size_t why_len;
};

static int dec_fail(struct dec *d, const char *fmt, ...) AMB_PRINTF(2, 3);
static int dec_fail(struct dec *d, const char *fmt, ...)
{
	va_list ap;

	if (d->why && d->why_len) {
		va_start(ap, fmt);
		vsnprintf(d->why, d->why_len, fmt, ap);
		va_end(ap);
	}
	return -AMB_E_DECOMPRESS;
}

static const char *const col_names[AMB_SAMPLE_COLUMNS] = {
	"head", "verbatim", "id", "tid", "time", "cpu", "period", "ip", "chain_ref",
	"chain_nodes", "addr", "fields", "regs", "stack_meta", "stack_data", "bytes",
};

/* A record being written: [start, lim) is where it may go. */
struct wr {
	uint8_t *p, *lim;
};

#define GET(d, i, v)                                                                   \
	do {                                                                           \
		if (!get_num(&(d)->col[i], (v)))                                        \
			return dec_fail((d), "sample record %zu: column %s ends early", \
					rec, col_names[i]);                            \
	} while (0)
#define ROOM(d, w, n)                                                                  \
	do {                                                                           \
		if ((uint64_t)(n) > (uint64_t)((w)->lim - (w)->p))                    \
			return dec_fail((d), "sample record %zu: longer than %s", rec,  \
					(w)->lim == (d)->out + (d)->end ? "raw_size"    \
									: "64 KiB"); \
	} while (0)

static ALWAYS_INLINE int get_delta(struct dec *d, size_t rec, struct wr *w, enum sample_col col,
				   enum sample_prev f, bool sw)
{
	uint64_t v;

	GET(d, col, &v);
	ROOM(d, w, 8);
	d->c->prev[f] += unzz64(v);
	put64(sw, w->p, d->c->prev[f]);
	w->p += 8;
	return 0;
}

static int get_regs(struct dec *d, size_t rec, struct wr *w, struct rcol *col,
		    const uint8_t *ref, unsigned n)
{
	const bool sw = d->c->swap;

	ROOM(d, w, 8u * n);
	for (unsigned i = 0; i < n; i++) {
		uint64_t v;

		if (!get_num(col, &v))
			return dec_fail(d, "sample record %zu: registers end early", rec);
		put64(sw, w->p, unzz64(v) + (ref ? ld64(d->c, ref + 8 * i) : 0));
		w->p += 8;
	}
	return 0;
}

static int bytes_copy(struct dec *d, size_t rec, struct wr *w, enum sample_col col, uint64_t n)
{
	const uint8_t *p;

	ROOM(d, w, n);
	if (!get_bytes(&d->col[col], (size_t)n, &p))
		return dec_fail(d, "sample record %zu: column %s ends early", rec, col_names[col]);
	memcpy(w->p, p, (size_t)n);
	w->p += n;
	return 0;
}

/* The chain of a sample (chain_encode()): its index in *@ci. */
static int chain_decode(struct dec *d, size_t rec, uint32_t *ci_out)
{
	struct amb_sample_codec *c = d->c;
	uint64_t ref, base, k, v;
	uint32_t cur;

	GET(d, COL_CHAIN_REF, &ref);
	if (ref) {
		int rank = -1;
		uint64_t ci;

		if (ref <= RECENT_MAX) {
			if (ref > c->nr_recent)
				return dec_fail(d, "sample record %zu: recent chain %llu of %u", rec,
						(unsigned long long)ref - 1, c->nr_recent);
			rank = (int)ref - 1;
			ci = c->recent[rank];
		} else {
			ci = ref - RECENT_MAX - 1;
			if (ci >= c->nr_chains)
				return dec_fail(d, "sample record %zu: chain %llu of %zu", rec,
						(unsigned long long)ci, c->nr_chains);
			/* A chain in the list is referred to by its rank only. */
			for (unsigned i = 0; i < c->nr_recent; i++)
				if (c->recent[i] == ci)
					return dec_fail(d, "sample record %zu: chain %llu by index, not rank %u",
							rec, (unsigned long long)ci, i);
		}
		recent_touch(c, (uint32_t)ci, rank);
		*ci_out = (uint32_t)ci;
		return 0;
	}
	GET(d, COL_CHAIN_NODES, &base);
	GET(d, COL_CHAIN_NODES, &k);
	if (base >= c->nr_nodes)
		return dec_fail(d, "sample record %zu: new chain below node %llu of %zu",
				rec, (unsigned long long)base, c->nr_nodes);
	/* Each new entry takes at least a byte of the column: bounded. */
	if (k > (uint64_t)(d->col[COL_CHAIN_NODES].end - d->col[COL_CHAIN_NODES].p))
		return dec_fail(d, "sample record %zu: column chain_nodes ends early", rec);
	for (cur = (uint32_t)base; k > 0; k--) {
		uint32_t pred = node_pred(c, cur);
		long entry = pred;

		GET(d, COL_CHAIN_NODES, &v);
		switch (v & 3) {
		case 0:
			if (v)
				entry = addr_new(c, c->addrs[pred].addr + unzz64(v >> 2));
			break;
		case 1:
			if (v == 1) {
				GET(d, COL_CHAIN_NODES, &v);
				entry = addr_new(c, c->addrs[pred].addr + unzz64(v));
			} else if (v >> 2 <= 4095) {
				entry = addr_new(c, 0 - (v >> 2));
			} else {
				return dec_fail(d, "sample record %zu: chain entry code %llu", rec,
						(unsigned long long)v);
			}
			break;
		case 2:
			if (v >> 2 >= c->nr_addrs)
				return dec_fail(d, "sample record %zu: chain entry address %llu of %zu",
						rec, (unsigned long long)(v >> 2), c->nr_addrs);
			entry = (long)(v >> 2);
			break;
		default:
			return dec_fail(d, "sample record %zu: chain entry code %llu", rec,
					(unsigned long long)v);
		}
		if (entry < 0 || node_add(c, cur, (uint32_t)entry))
			return -ENOMEM;
		cur = (uint32_t)(c->nr_nodes - 1);
	}
	if (c->nr_chains >= UINT32_MAX || chain_add(c, cur))
		return -ENOMEM;
	recent_touch(c, (uint32_t)(c->nr_chains - 1), -1);
	*ci_out = (uint32_t)(c->nr_chains - 1);
	return 0;
}

/*
 * Decode sample @rec, whose head value was @code + 1, laid out as @st
 * with the byte order @sw: the layout's sample_type and its records'
 * order, constants where sample_decode() specializes it.
 */
static ALWAYS_INLINE int sample_decode_as(struct dec *d, size_t rec, uint16_t code,
					  const uint64_t st, const bool sw)
{
	struct amb_sample_codec *c = d->c;
	struct wr w = { d->out + d->pos, d->out + d->pos + AMB_MIN(d->end - d->pos, RECORD_MAX) };
	struct chain_ref *cr = NULL;
	struct thread_ref *t;
	uint32_t ci = 0;
	uint64_t v, n, pred;
	uint16_t misc;
	int err;

	ROOM(d, &w, RECORD_HDR);
	w.p += RECORD_HDR;
	if (st & PS_CALLCHAIN) {
		err = chain_decode(d, rec, &ci);
		if (err)
			return err;
		cr = &c->chains_by_index[ci];
		c->rec_chain[rec] = ci;
	}
	misc = code ^ misc_pred(c, cr);
	if (cr)
		cr->misc = (uint32_t)misc + 1;
	c->prev[P_MISC] = misc;
	pred = chain_ip(c, cr);
	if ((st & PS_IDENTIFIER) && (err = get_delta(d, rec, &w, COL_ID, P_IDENTIFIER, sw)))
		return err;
	if (st & PS_IP) {
		GET(d, COL_IP, &v);
		ROOM(d, &w, 8);
		c->prev[P_IP] = pred + unzz64(v);
		put64(sw, w.p, c->prev[P_IP]);
		w.p += 8;
	}
	if (st & PS_TID) {
		uint64_t a, b;

		GET(d, COL_TID, &a);
		GET(d, COL_TID, &b);
		ROOM(d, &w, 8);
		c->prev[P_PID] = (uint32_t)(c->prev[P_PID] + unzz32(a));
		c->prev[P_TID] = (uint32_t)(c->prev[P_TID] + unzz32(b));
		put32(sw, w.p, (uint32_t)c->prev[P_PID]);
		put32(sw, w.p + 4, (uint32_t)c->prev[P_TID]);
		w.p += 8;
	}
	if (st & PS_TIME) {
		GET(d, COL_TIME, &v);
		ROOM(d, &w, 8);
		v = time_pred(c) + unzz64(v);
		time_push(c, v);
		c->prev[P_TIME] += v;
		put64(sw, w.p, c->prev[P_TIME]);
		w.p += 8;
	}
	if ((st & PS_ADDR) && (err = get_delta(d, rec, &w, COL_ADDR, P_ADDR, sw)))
		return err;
	if ((st & PS_ID) && (err = get_delta(d, rec, &w, COL_ID, P_ID, sw)))
		return err;
	if ((st & PS_STREAM_ID) && (err = get_delta(d, rec, &w, COL_ID, P_STREAM_ID, sw)))
		return err;
	if (st & PS_CPU) {
		uint64_t a, b;

		GET(d, COL_CPU, &a);
		GET(d, COL_CPU, &b);
		ROOM(d, &w, 8);
		if (b > UINT32_MAX)
			return dec_fail(d, "sample record %zu: cpu res %llu", rec, (unsigned long long)b);
		c->prev[P_CPU] = (uint32_t)(c->prev[P_CPU] + unzz32(a));
		put32(sw, w.p, (uint32_t)c->prev[P_CPU]);
		put32(sw, w.p + 4, (uint32_t)b);
		w.p += 8;
	}
	if ((st & PS_PERIOD) && (err = get_delta(d, rec, &w, COL_PERIOD, P_PERIOD, sw)))
		return err;
	if (st & PS_READ) {
		n = 1;
		if (c->l.read_format & RF_GROUP) {
			GET(d, COL_FIELDS, &n);
			ROOM(d, &w, 8);
			put64(sw, w.p, n);
			w.p += 8;
			if (n > RECORD_MAX)
				return dec_fail(d, "sample record %zu: read group of %llu", rec,
						(unsigned long long)n);
		}
		n = read_words(c->l.read_format, n);
		ROOM(d, &w, 8 * n);
		for (uint64_t i = 0; i < n; i++) {
			GET(d, COL_FIELDS, &v);
			v = unzz64(v);
			if (i < READ_PREV_MAX)
				v = c->prev_read[i] += v;
			put64(sw, w.p, v);
			w.p += 8;
		}
	}
	if (st & PS_CALLCHAIN) {
		uint32_t k = cr->node;
		uint8_t *e;

		n = cr->depth;
		ROOM(d, &w, 8 + 8 * n);
		put64(sw, w.p, n);
		e = w.p + 8;
		w.p += 8 + 8 * n;
		/* A chain written before is copied from there (the output
		 * holds the whole block); else its entries 1.. come from the
		 * leaf up, and the node at depth 1 is entry 0. */
		if (cr->out != SIZE_MAX) {
			const uint8_t *from = d->out + cr->out;

			if (n <= 16) {
				for (uint64_t i = 0; i < n; i++)
					memcpy(e + 8 * i, from + 8 * i, 8);
			} else {
				memcpy(e, from, 8 * n);
			}
		} else {
			cr->out = (size_t)(e - d->out);
			for (; c->nodes[k].depth > 1; k = c->nodes[k].parent) {
				e += 8;
				put64(sw, e, c->nodes[k].addr);
			}
			if (n)
				put64(sw, w.p - 8 * n, c->nodes[k].addr);
		}
	}
	if (st & PS_RAW) {
		GET(d, COL_FIELDS, &n);
		ROOM(d, &w, 4);
		if (n > UINT32_MAX)
			return dec_fail(d, "sample record %zu: raw size %llu", rec, (unsigned long long)n);
		put32(sw, w.p, (uint32_t)n);
		w.p += 4;
		if ((err = bytes_copy(d, rec, &w, COL_BYTES, n)))
			return err;
	}
	if (st & PS_BRANCH_STACK) {
		uint64_t from = 0, to, flags;

		GET(d, COL_FIELDS, &n);
		ROOM(d, &w, 8);
		put64(sw, w.p, n);
		w.p += 8;
		if (c->l.flags & AMB_SAMPLE_BRANCH_HW_INDEX) {
			GET(d, COL_FIELDS, &v);
			ROOM(d, &w, 8);
			put64(sw, w.p, unzz64(v));
			w.p += 8;
		}
		ROOM(d, &w, 24 * n);
		for (uint64_t i = 0; i < n; i++) {
			GET(d, COL_FIELDS, &v);
			GET(d, COL_FIELDS, &to);
			GET(d, COL_FIELDS, &flags);
			from += unzz64(v);
			put64(sw, w.p, from);
			put64(sw, w.p + 8, from + unzz64(to));
			put64(sw, w.p + 16, flags);
			w.p += 24;
		}
	}
	if (st & PS_REGS_USER) {
		GET(d, COL_REGS, &v);
		ROOM(d, &w, 8);
		put64(sw, w.p, v);
		w.p += 8;
		if (v) {
			uint8_t *regs = w.p;

			if (!(t = thread_get(c, (st & PS_TID) ? (uint32_t)c->prev[P_TID] : 0)))
				return -ENOMEM;
			err = get_regs(d, rec, &w, &d->col[COL_REGS],
				       t->has_regs ? d->out + t->regs : NULL, c->nr_regs_user);
			if (err)
				return err;
			t->regs = (size_t)(regs - d->out);
			t->has_regs = true;
		}
	}
	if (st & PS_STACK_USER) {
		GET(d, COL_STACK_META, &n);
		ROOM(d, &w, 8);
		put64(sw, w.p, n);
		w.p += 8;
		if (n) {
			uint64_t dyn, tail;

			GET(d, COL_STACK_META, &dyn);
			GET(d, COL_STACK_META, &tail);
			if (dyn > n || tail > 1)
				return dec_fail(d, "sample record %zu: stack dyn_size %llu of %llu, tail %llu",
						rec, (unsigned long long)dyn, (unsigned long long)n,
						(unsigned long long)tail);
			ROOM(d, &w, n + 8);
			if ((err = bytes_copy(d, rec, &w, COL_STACK_DATA, tail ? n : dyn)))
				return err;
			if (!tail) {
				memset(w.p, 0, (size_t)(n - dyn));
				w.p += n - dyn;
			}
			put64(sw, w.p, dyn);
			w.p += 8;
		}
	}
	if ((st & (PS_WEIGHT | PS_WEIGHT_STRUCT)) &&
	    (err = get_delta(d, rec, &w, COL_FIELDS, P_WEIGHT, sw)))
		return err;
	if ((st & PS_DATA_SRC) && (err = get_delta(d, rec, &w, COL_FIELDS, P_DATA_SRC, sw)))
		return err;
	if ((st & PS_TRANSACTION) && (err = get_delta(d, rec, &w, COL_FIELDS, P_TRANSACTION, sw)))
		return err;
	if (st & PS_REGS_INTR) {
		GET(d, COL_FIELDS, &v);
		ROOM(d, &w, 8 + 8u * (v ? c->nr_regs_intr : 0));
		put64(sw, w.p, v);
		w.p += 8;
		for (unsigned i = 0; v && i < c->nr_regs_intr; i++) {
			uint64_t x;

			GET(d, COL_FIELDS, &x);
			c->prev_intr[i] += unzz64(x);
			put64(sw, w.p, c->prev_intr[i]);
			w.p += 8;
		}
	}
	if ((st & PS_PHYS_ADDR) && (err = get_delta(d, rec, &w, COL_FIELDS, P_PHYS_ADDR, sw)))
		return err;
	if ((st & PS_CGROUP) && (err = get_delta(d, rec, &w, COL_FIELDS, P_CGROUP, sw)))
		return err;
	if ((st & PS_DATA_PAGE_SIZE) && (err = get_delta(d, rec, &w, COL_FIELDS, P_DATA_PAGE_SIZE, sw)))
		return err;
	if ((st & PS_CODE_PAGE_SIZE) && (err = get_delta(d, rec, &w, COL_FIELDS, P_CODE_PAGE_SIZE, sw)))
		return err;
	if (st & PS_AUX) {
		GET(d, COL_FIELDS, &n);
		ROOM(d, &w, 8);
		put64(sw, w.p, n);
		w.p += 8;
		if ((err = bytes_copy(d, rec, &w, COL_BYTES, n)))
			return err;
	}
	n = (uint64_t)(w.p - (d->out + d->pos));
	put32(sw, d->out + d->pos, RECORD_SAMPLE);
	put16(sw, d->out + d->pos + 4, misc);
	put16(sw, d->out + d->pos + 6, (uint16_t)n);
	d->pos += (size_t)n;
	return 0;
}
/* The layout of `-g` recordings in this host's byte order has its own
 * copy of the decoder, with every test of the layout made at compile
 * time. */
#define COMMON_G (PS_IDENTIFIER | PS_IP | PS_TID | PS_TIME | PS_CPU | PS_PERIOD | PS_CALLCHAIN)

static int sample_decode(struct dec *d, size_t rec, uint16_t code)
{
	const struct amb_sample_codec *c = d->c;

	if (c->l.sample_type == COMMON_G && !c->swap)
		return sample_decode_as(d, rec, code, COMMON_G, false);
	return sample_decode_as(d, rec, code, c->l.sample_type, c->swap);
}
#undef GET
#undef ROOM

/* Read the payload header and stream directory, and decompress the
 * streams into @d->col. */
static int columns_load(struct dec *d, const uint8_t *in, size_t in_len, size_t raw_size,
			uint64_t *checksum, uint32_t *records)
{
	struct amb_sample_codec *c = d->c;
	struct amb_sample_layout l;
	uint64_t raw_len[AMB_SAMPLE_STREAMS], stored_len[AMB_SAMPLE_STREAMS], total = 0;
	const uint8_t *p, *end;
	size_t hdr_len, at;
	int err;

	if (in_len < AMB_SAMPLE_HDR_SIZE)
		return dec_fail(d, "sample payload of %zu bytes is shorter than its header", in_len);
	hdr_len = amb_get_le16(in);
	if (hdr_len < AMB_SAMPLE_HDR_SIZE || hdr_len > in_len || in[2] != SAMPLE_VERSION)
		return dec_fail(d, "sample payload header: length %zu, version %u", hdr_len, in[2]);
	memset(&l, 0, sizeof(l));
	l.byte_order = in[3];
	l.flags = in[4];
	l.sample_type = amb_get_le64(in + 8);
	l.read_format = amb_get_le64(in + 16);
	l.regs_user = amb_get_le64(in + 24);
	l.regs_intr = amb_get_le64(in + 32);
	*checksum = amb_get_le64(in + 40);
	*records = amb_get_le32(in + 48);
	if ((l.byte_order != AMB_ENDIAN_LITTLE && l.byte_order != AMB_ENDIAN_BIG) ||
	    (l.flags & ~AMB_SAMPLE_BRANCH_HW_INDEX) || (l.sample_type & ~PS_KNOWN) ||
	    (l.read_format & ~RF_KNOWN) || amb_get_le32(in + 52) != AMB_SAMPLE_STREAMS)
		return dec_fail(d, "sample payload header: byte order %u, flags 0x%x, sample_type 0x%llx, read_format 0x%llx or %u streams not known",
				l.byte_order, l.flags, (unsigned long long)l.sample_type,
				(unsigned long long)l.read_format, amb_get_le32(in + 52));
	if (in[5] || amb_get_le16(in + 6) || amb_get_le64(in + 56))
		return dec_fail(d, "sample payload header: reserved field not zero");
	err = codec_reset(c, &l);
	if (err)
		return err;

	p = in + hdr_len;
	end = in + in_len;
	for (size_t i = 0; i < AMB_SAMPLE_STREAMS; i++) {
		stored_len[i] = 0;
		if (!get_varint(&p, end, &raw_len[i]) ||
		    (raw_len[i] && !get_varint(&p, end, &stored_len[i])))
			return dec_fail(d, "sample payload: stream directory ends early");
		if (raw_len[i] > AMB_SAMPLE_STREAMS_MAX(raw_size) || stored_len[i] > raw_len[i])
			return dec_fail(d, "sample payload: stream %zu (%s) of %llu bytes stored in %llu",
					i, col_names[i / 2], (unsigned long long)raw_len[i],
					(unsigned long long)stored_len[i]);
		/* Raw streams are used in place: only the others need room. */
		if (stored_len[i] != raw_len[i])
			total += raw_len[i];
	}
	if (total > AMB_SAMPLE_STREAMS_MAX(raw_size))
		return dec_fail(d, "sample payload: streams of %llu bytes in all, over the cap for raw_size %zu",
				(unsigned long long)total, raw_size);
	if (scratch_reserve(c, (size_t)total))
		return -ENOMEM;

	at = 0;
	for (size_t i = 0; i < AMB_SAMPLE_STREAMS; i++) {
		const uint8_t *src = p, *start;
		size_t got = (size_t)raw_len[i];

		if (stored_len[i] > (uint64_t)(end - p))
			return dec_fail(d, "sample payload: stream %zu (%s) ends beyond the payload",
					i, col_names[i / 2]);
		p += stored_len[i];
		if (stored_len[i] == raw_len[i]) {
			start = src;
		} else if (stored_len[i] == 0) {
			memset(c->scratch + at, 0, got);
			start = c->scratch + at;
		} else {
			got = ZSTD_decompressDCtx(c->dctx, c->scratch + at, (size_t)raw_len[i], src,
						  (size_t)stored_len[i]);
			if (ZSTD_isError(got) || got != raw_len[i])
				return dec_fail(d, "sample payload: stream %zu (%s) does not decode to %llu bytes: %s",
						i, col_names[i / 2], (unsigned long long)raw_len[i],
						ZSTD_isError(got) ? ZSTD_getErrorName(got) : "short");
			start = c->scratch + at;
		}
		if (stored_len[i] != raw_len[i])
			at += got;
		if (i % 2 == 0) {
			d->col[i / 2].p = start;
			d->col[i / 2].end = start + got;
		} else {
			d->col[i / 2].hp = start;
			d->col[i / 2].hend = start + got;
		}
	}
	if (p != end)
		return dec_fail(d, "sample payload: %zu bytes after the last stream",
				(size_t)(end - p));
	return 0;
}

int amb_sample_decode(struct amb_sample_codec *c, const void *stored, size_t stored_len,
		      void *out, size_t raw_size, char *why, size_t why_len)
{
	struct dec d = { .c = c, .out = out, .end = raw_size, .why = why, .why_len = why_len };
	uint64_t checksum = 0, computed;
	uint32_t records = 0;
	size_t rec;
	int err;

	c->nr_rec_chain = 0;
	if (!c->dctx && !(c->dctx = ZSTD_createDCtx()))
		return -ENOMEM;
	err = columns_load(&d, stored, stored_len, raw_size, &checksum, &records);
	if (err)
		return err;
	/* Records take 8 bytes at least: a count that cannot fit raw_size
	 * allocates nothing. */
	if ((uint64_t)records * RECORD_HDR > raw_size)
		return dec_fail(&d, "sample payload: %u records cannot fit %zu bytes", records,
				raw_size);
	if (amb_ensure_cap((void **)&c->rec_chain, &c->cap_rec_chain, sizeof(*c->rec_chain),
			   records ? records : 1))
		return -ENOMEM;
	for (rec = 0; rec < records; rec++) {
		uint64_t head;

		c->rec_chain[rec] = UINT32_MAX;

		if (!get_num(&d.col[COL_HEAD], &head))
			return dec_fail(&d, "record %zu of %u: column head ends early", rec, records);
		if (head == 0) {
			const uint8_t *p;
			uint16_t size;

			if (d.col[COL_VERBATIM].end - d.col[COL_VERBATIM].p < RECORD_HDR)
				return dec_fail(&d, "record %zu: column verbatim ends early", rec);
			size = ld16(c, d.col[COL_VERBATIM].p + 6);
			if (size < RECORD_HDR || size > d.end - d.pos ||
			    !get_bytes(&d.col[COL_VERBATIM], size, &p))
				return dec_fail(&d, "record %zu: verbatim record of %u bytes does not fit",
						rec, size);
			memcpy(d.out + d.pos, p, size);
			d.pos += size;
			continue;
		}
		if (head - 1 > 0xffff)
			return dec_fail(&d, "sample record %zu: misc 0x%llx", rec,
					(unsigned long long)head - 1);
		err = sample_decode(&d, rec, (uint16_t)(head - 1));
		if (err)
			return err;
	}
	if (d.pos != raw_size)
		return dec_fail(&d, "sample payload decodes to %zu bytes, not raw_size %zu", d.pos,
				raw_size);
	for (size_t i = 0; i < AMB_SAMPLE_COLUMNS; i++)
		if (d.col[i].p != d.col[i].end || d.col[i].hp != d.col[i].hend)
			return dec_fail(&d, "sample payload: %zu bytes left in column %s",
					(size_t)(d.col[i].end - d.col[i].p) +
					(size_t)(d.col[i].hend - d.col[i].hp), col_names[i]);
	computed = amb_checksum(out, raw_size);
	if (computed != checksum) {
		if (why && why_len)
			snprintf(why, why_len,
				 "decoded sample payload checksum mismatch (stored 0x%016llx, computed 0x%016llx)",
				 (unsigned long long)checksum, (unsigned long long)computed);
		return -AMB_E_PAYLOAD_CHECKSUM;
	}
	c->nr_rec_chain = records;
	return 0;
}
