// SPDX-License-Identifier: MIT
/*
 * format/codec_sample_enc.c - the sample codec's encoder (codec 2,
 * FORMAT.md §4.1; the codec is explained in codec_sample.c): the records of
 * a RING payload into the streams of the columns, each modelled sample's
 * fields as differences from their predictions and its call chain as a
 * reference to the block's prefix tree, then each stream compressed on its
 * own behind the payload header and the stream directory.
 */
#include "format/codec_sample_internal.h"

#include <assert.h>
#include <errno.h>
#include <string.h>

#include <zstd.h>

#include <amber/common.h>
#include "common/hashmap.h"
#include "common/util.h"

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

static bool all_zero(const uint8_t *p, size_t n)
{
	return !n || (!p[0] && !memcmp(p, p + 1, n - 1));
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
		return amb_sample_node_add(c, parent, pred);
	}
	if (known && (addr >= CONTEXT_MIN || z >> 62 ||
		      64 - __builtin_clzll(z) > 64 - __builtin_clzll((uint64_t)known))) {
		put_num(c, COL_CHAIN_NODES, 4 * (uint64_t)(known - 1) + 2);
		return amb_sample_node_add(c, parent, (uint32_t)(known - 1));
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
	return amb_sample_node_add(c, parent, (uint32_t)entry);
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
	if (amb_sample_chain_add(c, cur) ||
	    amb_hashmap_add(&c->chains, h, ci, (void *)(uintptr_t)(ci + 1)))
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
			t = amb_sample_thread_get(c, (st & PS_TID) ? (uint32_t)c->prev[P_TID] : 0);
			if (!t)
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

	err = amb_sample_codec_reset(c, l);
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
