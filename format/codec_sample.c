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
 *
 * The codec is four files.  This one holds what both directions share:
 * the layout from an attr, the codec's state (new, free, reset, stats), the
 * thread table and the growth of the prefix tree and of the block's chains.
 * codec_sample_enc.c encodes, codec_sample_dec.c decodes, and
 * codec_sample_internal.h declares the state, the columns and the helpers
 * both of them inline (byte order, signed differences, predictions).
 */
#include "format/codec_sample_internal.h"

#include <byteswap.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include <zstd.h>

#include <amber/common.h>
#include "common/hashmap.h"
#include "common/util.h"

/* ---- layout ------------------------------------------------------------------ */

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
int amb_sample_codec_reset(struct amb_sample_codec *c, const struct amb_sample_layout *l)
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
struct thread_ref *amb_sample_thread_get(struct amb_sample_codec *c, uint32_t tid)
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

/* ---- the prefix tree and the block's chains ------------------------------------ */

/* A new node below @parent with the address of entry @entry. */
int amb_sample_node_add(struct amb_sample_codec *c, uint32_t parent, uint32_t entry)
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

int amb_sample_chain_add(struct amb_sample_codec *c, uint32_t node)
{
	if (amb_ensure_cap((void **)&c->chains_by_index, &c->cap_chains,
			   sizeof(*c->chains_by_index), c->nr_chains + 1))
		return -ENOMEM;
	c->chains_by_index[c->nr_chains++] = (struct chain_ref){
		node, c->nodes[node].depth, c->nodes[node].addr, 0, SIZE_MAX,
	};
	return 0;
}
