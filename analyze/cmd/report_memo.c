// SPDX-License-Identifier: MIT
/*
 * analyze/cmd/report_memo.c - the stack memos of `amber-analyze report`:
 * what a sample's stack resolved to (its entries and call graph paths),
 * kept under its memo key and, when the codec named its call chain, in a
 * direct-mapped cache by chain_key (struct stack_memo, struct chain_memo
 * in report.h), and the flush that hands what the samples reusing a memo
 * add up to on to the entries.
 *
 * The lookups each sample makes (ana_report_memo_key(),
 * ana_report_memo_find(), ana_report_chain_memo_find(),
 * ana_report_memo_apply()) are inline in report.h, beside
 * process_sample() in cmd_report.c; this file makes, remembers and
 * flushes the memos.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "analyze/cmd/report.h"
#include "common/hashmap.h"
#include <amber/common.h>

/*
 * Give the entries and call graph paths of @m what the samples that found
 * it added since the last flush: all at once, as the report reads them
 * only when the run is over.
 */
static void memo_flush(struct stack_memo *m)
{
	uint32_t i;

	if (!m->samples)
		return;
	m->self->samples += m->samples;
	m->self->period += m->period;
	for (i = 0; i < m->nr_children; i++)
		m->children[i]->children += m->period;
	for (i = 0; i < m->nr_cg_ends; i++)
		ana_report_cg_add_again(m->cg_ends[i], m->period);
	m->samples = m->period = 0;
}

/* Flush and forget every memo. */
void ana_report_memo_clear(struct memo_table *mt)
{
	struct amb_hashmap_slot *slot;

	amb_hashmap_for_each(&mt->map, slot) {
		memo_flush(slot->value);
		free(slot->value);
	}
	amb_hashmap_clear(&mt->map);
	mt->bytes = 0;
	if (mt->by_chain)
		memset(mt->by_chain, 0, CHAIN_MEMOS * sizeof(*mt->by_chain));
}

/* True when every sort key's identity (ana_report_key_identity() without a
 * frame) comes from what struct chain_memo compares. */
bool ana_report_chain_memo_usable(const struct report *r)
{
	for (size_t i = 0; i < r->nr_keys; i++) {
		switch (r->keys[i].kind) {
		case SK_COMM: case SK_PID: case SK_TID: case SK_DSO: case SK_SYM:
		case SK_CPU: case SK_EVENT: case SK_SYM_SIZE:
			break;
		default:
			return false;
		}
	}
	return true;
}

/* Remember @m as the memo of @smp's chain_key; k[0] of the current memo
 * key is its stack key. */
void ana_report_chain_memo_set(struct report *r, const struct ana_sample *smp,
			       const struct ana_thread *t, struct stack_memo *m)
{
	struct chain_memo *cm = ana_report_chain_memo_slot(&r->memos, smp->chain_key);

	*cm = (struct chain_memo){
		.chain_key = smp->chain_key,
		.stack_key = r->memos.key[0],
		.t = t,
		.comm = ana_thread_comm(t),
		.evt = smp->evt,
		.pid = smp->pid,
		.tid = smp->tid,
		.cpu = smp->cpu,
		.cpumode = smp->cpumode,
		.memo = m,
	};
}

/*
 * Remember what the current sample resolved to, under the key
 * ana_report_memo_key() made: its leaf entry @self, the r->stack_entries
 * of --children with their frames, and the frames' names for -g.  The memo
 * made goes to *@made.  Returns 0 or -ENOMEM.
 */
int ana_report_memo_add(struct report *r, struct hist_entry *self, unsigned nr_children,
			struct stack_memo **made)
{
	struct memo_table *mt = &r->memos;
	unsigned nr_ends = !r->callgraph ? 0 : r->children ? nr_children : 1;
	size_t size = sizeof(struct stack_memo) + mt->nr_key * sizeof(uint64_t) +
		      nr_children * sizeof(struct hist_entry *) +
		      nr_ends * sizeof(struct cg_node *);
	struct stack_memo *m;

	if (mt->bytes + size > MEMO_MAX_BYTES)
		ana_report_memo_clear(mt);
	m = malloc(size);
	if (!m)
		return -ENOMEM;
	/* The arrays follow the struct, all of 8-byte words. */
	m->key = (uint64_t *)(m + 1);
	m->children = (struct hist_entry **)(m->key + mt->nr_key);
	m->cg_ends = (struct cg_node **)(m->children + nr_children);
	memcpy(m->key, mt->key, mt->nr_key * sizeof(*m->key));
	memcpy(m->children, r->stack_entries, nr_children * sizeof(*m->children));
	memcpy(m->cg_ends, r->cg_ends, nr_ends * sizeof(*m->cg_ends));
	m->nr_key = mt->nr_key;
	m->nr_children = nr_children;
	m->nr_cg_ends = nr_ends;
	m->self = self;
	m->samples = m->period = 0;
	if (amb_hashmap_add(&mt->map, mt->hash, (uintptr_t)m, m)) {
		free(m);
		return -ENOMEM;
	}
	mt->bytes += size;
	*made = m;
	return 0;
}
