// SPDX-License-Identifier: MIT
/*
 * format/screen.c - what a reader keeps of the blocks it found (FORMAT.md
 * §7, "Repeated blocks" and "Budgets").
 *
 * The block list, from the index or a scan, is screened once at open:
 *  - a block whose seq an earlier block already has, with the same
 *    description (type, stream, codec, sizes, record count, times), is a
 *    copy (a duplicated block, a file concatenated with itself): it is
 *    left out, or a report would count its records twice.  Two different
 *    blocks claiming one seq are both kept, and reported: nothing says
 *    which one belongs here;
 *  - a small block (metadata: every type but RING, SYNTH, FILE, INDEX and
 *    TRAILER) whose raw_size is more than AMB_SMALL_RATIO_MAX times its
 *    stored_size plus AMB_SMALL_SLACK is a decompression bomb, and once
 *    the small blocks kept add up to AMB_SMALL_TOTAL_MAX raw bytes the
 *    rest are over the budget: both are left out, so no reader decodes or
 *    keeps more metadata than an honest recording has.
 * Each left-out block is a problem of the reader, so verify lists it too.
 */
#include "format/format_internal.h"

#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>

#include <amber/common.h>
#include "common/hashmap.h"

bool amb_block_is_small(unsigned type)
{
	switch (type) {
	case AMB_BLOCK_META:
	case AMB_BLOCK_EVENT_ATTR:
	case AMB_BLOCK_BUILDID:
	case AMB_BLOCK_TRACEFS:
	case AMB_BLOCK_KSYMS:
	case AMB_BLOCK_TOPOLOGY:
	case AMB_BLOCK_COUNTS:
		return true;
	default:
		return false;
	}
}

/* Whether @a and @b describe the same block (the seq aside). */
static bool same_block(const struct amb_block_info *a, const struct amb_block_info *b)
{
	return a->type == b->type && a->stream == b->stream && a->codec == b->codec &&
	       a->raw_size == b->raw_size && a->stored_size == b->stored_size &&
	       a->record_count == b->record_count && a->first_time == b->first_time &&
	       a->last_time == b->last_time;
}

int amb_blocks_screen(struct amb_block_info *v, size_t *n, uint8_t *verdict,
		      amb_screen_problem_fn problem, void *ctx)
{
	struct amb_hashmap by_seq = { 0 };   /* seq -> kept index + 1 */
	uint64_t small_total = 0, max_seq = 0;
	size_t kept = 0, *pos;               /* pos[k]: where kept block k was found */
	bool any = false;
	char msg[240];
	int err = 0;

	pos = malloc((*n ? *n : 1) * sizeof(*pos));
	if (!pos)
		return -ENOMEM;
	for (size_t i = 0; i < *n; i++) {
		const struct amb_block_info *bi = &v[i], *pb;
		uint64_t h = amb_hash_u64(bi->seq);
		uintptr_t prev = 0;

		/* Seqs only grow in a sound file: look up only when one does not. */
		if (any && bi->seq <= max_seq)
			prev = (uintptr_t)amb_hashmap_find_u64(&by_seq, h, bi->seq);
		/* The earlier block: moved to its kept index unless @verdict. */
		pb = !prev ? NULL : verdict ? &v[pos[prev - 1]] : &v[prev - 1];
		if (pb && same_block(pb, bi)) {
			snprintf(msg, sizeof(msg),
				 "block %zu at offset %" PRIu64 ": a copy of block %zu at offset %" PRIu64
				 " (seq %" PRIu64 "): left out", i, bi->offset, pos[prev - 1],
				 pb->offset, bi->seq);
			problem(ctx, i, bi->offset, -AMB_E_CORRUPT, msg);
			if (verdict)
				verdict[i] = AMB_SCREEN_COPY;
			continue;
		}
		if (prev) {
			snprintf(msg, sizeof(msg),
				 "block %zu at offset %" PRIu64 ": seq %" PRIu64 " is also block %zu's at "
				 "offset %" PRIu64 ", a different block: one of them is not of this recording",
				 i, bi->offset, bi->seq, pos[prev - 1], pb->offset);
			problem(ctx, i, bi->offset, -AMB_E_CORRUPT, msg);
		}
		if (amb_block_is_small(bi->type)) {
			/* Sizes are capped (§3): no overflow. */
			if (bi->raw_size > AMB_SMALL_SLACK + AMB_SMALL_RATIO_MAX * bi->stored_size) {
				snprintf(msg, sizeof(msg),
					 "block %zu at offset %" PRIu64 ": %s block of raw_size %" PRIu64
					 " from %" PRIu64 " stored bytes: over the %u:1 a reader decodes; left out",
					 i, bi->offset, amb_block_type_name(bi->type), bi->raw_size,
					 bi->stored_size, AMB_SMALL_RATIO_MAX);
				problem(ctx, i, bi->offset, -AMB_E_TOO_BIG, msg);
				if (verdict)
					verdict[i] = AMB_SCREEN_BOMB;
				continue;
			}
			if (bi->raw_size > AMB_SMALL_TOTAL_MAX - small_total) {
				snprintf(msg, sizeof(msg),
					 "block %zu at offset %" PRIu64 ": %s block of raw_size %" PRIu64
					 " would take the metadata past the %u bytes a reader keeps; left out",
					 i, bi->offset, amb_block_type_name(bi->type), bi->raw_size,
					 AMB_SMALL_TOTAL_MAX);
				problem(ctx, i, bi->offset, -AMB_E_TOO_BIG, msg);
				if (verdict)
					verdict[i] = AMB_SCREEN_BUDGET;
				continue;
			}
			small_total += bi->raw_size;
		}
		if (!prev && amb_hashmap_add(&by_seq, h, bi->seq, (void *)(uintptr_t)(kept + 1))) {
			err = -ENOMEM;
			break;
		}
		if (!any || bi->seq > max_seq)
			max_seq = bi->seq;
		any = true;
		if (verdict) {
			verdict[i] = prev ? AMB_SCREEN_CLASH : AMB_SCREEN_KEEP;
			pos[kept++] = i;
			continue;
		}
		pos[kept] = i;
		v[kept++] = *bi;
	}
	amb_hashmap_free(&by_seq);
	free(pos);
	if (!err && !verdict)
		*n = kept;
	return err;
}
