// SPDX-License-Identifier: MIT
/*
 * Fuzz the recorder's only looks inside records: rec_stage_add() finds each
 * record's timestamp and walks samples to their user stack copy to zero its
 * stale tail (record/stage.c, with the walker of common/perf_sample.c), and
 * rec_records_copy_state() picks the COMM, FORK, MMAP2... records out of a
 * staged block by their trailer's time (for the next rotated file).  The ring hands it whole records whose
 * header.size was checked, but their bodies are whatever the kernel (or a
 * bug) wrote.
 *
 * Input: 8 bytes of sample_type, 8 of sample_regs_user, then records, each
 * cut to the size its header claims (at least 8, at most what is left).
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <linux/perf_event.h>

#include <amber/common.h>
#include "record/stage.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct perf_event_attr attr;
	struct amb_perf_layout layout;
	struct rec_stage st;
	size_t pos = 16;

	if (size < 16)
		return 0;
	memset(&attr, 0, sizeof(attr));
	attr.size = sizeof(attr);
	/* The recorder always asks for IDENTIFIER|TID|TIME (FORMAT.md §5.6). */
	attr.sample_type = amb_get_le64(data) | PERF_SAMPLE_IDENTIFIER | PERF_SAMPLE_TIME;
	attr.sample_type &= PERF_SAMPLE_MAX - 1;
	attr.sample_regs_user = amb_get_le64(data + 8);
	attr.sample_id_all = 1;
	amb_perf_layout_init(&layout, &attr);

	memset(&st, 0, sizeof(st));
	st.layout = &layout;
	while (size - pos >= sizeof(struct perf_event_header)) {
		uint16_t len = (uint16_t)(data[pos + 6] | data[pos + 7] << 8);
		/* Records are 8-byte aligned in the ring, as the kernel writes them. */
		uint8_t *rec;

		len &= (uint16_t)~7u;
		if (len < sizeof(struct perf_event_header) || len > size - pos)
			break;
		rec = malloc(len);     /* exact size, so ASan sees any overread */
		if (!rec)
			break;
		memcpy(rec, data + pos, len);
		rec[6] = (uint8_t)len;
		rec[7] = (uint8_t)(len >> 8);
		rec_stage_add(&st, rec, len);
		free(rec);
		pos += len;
	}
	if (st.buf.len) {
		struct rec_records r = { 0 };
		struct amb_block_desc d;
		size_t n;
		void *blk;
		long copied = rec_records_copy_state(&layout, st.buf.data, st.buf.len,
						     amb_get_le64(data) >> 32, &r);

		if (copied < 0 || r.buf.len > st.buf.len || (uint64_t)copied != r.nr ||
		    r.first_time > r.last_time)
			abort();
		rec_records_free(&r);
		blk = rec_stage_take(&st, 0, &d, &n);

		if (!blk || n == 0 || d.record_count == 0 || d.first_time > d.last_time)
			abort();
		free(blk);
	}
	rec_stage_free(&st);
	return 0;
}
