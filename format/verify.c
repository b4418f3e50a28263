// SPDX-License-Identifier: MIT
/*
 * format/verify.c - check every rule and checksum of a file (FORMAT.md §7),
 * independently of its index, then the index against what the scan found.
 */
#include "format/format_internal.h"

#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <amber/common.h>

struct verify_ctx {
	amb_problem_fn cb;
	void *cb_ctx;
	struct amb_verify_stats *st;
	bool stop;
};

/* Hand one problem to the caller; false when the caller asked to stop. */
static bool report(struct verify_ctx *v, uint64_t block, uint64_t offset, int err,
		   const char *fmt, ...) AMB_PRINTF(5, 6);
static bool report(struct verify_ctx *v, uint64_t block, uint64_t offset, int err,
		   const char *fmt, ...)
{
	struct amb_problem pb = { .block = block, .offset = offset, .err = err };
	va_list ap;

	if (v->stop)
		return false;
	va_start(ap, fmt);
	vsnprintf(pb.msg, sizeof(pb.msg), fmt, ap);
	va_end(ap);
	v->st->problems++;
	if (v->cb && v->cb(v->cb_ctx, &pb))
		v->stop = true;
	return !v->stop;
}

/* Compare INDEX entry @k with the block the scan found at the same place. */
static void check_entry(struct verify_ctx *v, uint64_t k, const struct amb_block_info *e,
			const struct amb_block_info *b, uint64_t index_offset)
{
	const char *field = NULL;

	if (e->offset != b->offset)
		field = "offset";
	else if (e->seq != b->seq)
		field = "seq";
	else if (e->type != b->type)
		field = "type";
	else if (e->codec != b->codec || e->flags != b->flags)
		field = "codec or flags";
	else if (e->stream != b->stream)
		field = "stream";
	else if (e->raw_size != b->raw_size || e->stored_size != b->stored_size)
		field = "raw_size or stored_size";
	else if (e->record_count != b->record_count)
		field = "record_count";
	else if (e->first_time != b->first_time || e->last_time != b->last_time)
		field = "first_time or last_time";
	if (field)
		report(v, k, index_offset, -AMB_E_INDEX,
		       "index at offset %llu: entry %llu: %s disagrees with block at offset %llu",
		       (unsigned long long)index_offset, (unsigned long long)k, field,
		       (unsigned long long)b->offset);
}

/* True when one of the first @n blocks of @r starts at @offset. */
static bool block_at(struct amb_reader *r, size_t n, uint64_t offset)
{
	for (size_t i = 0; i < n; i++)
		if (amb_reader_block(r, i)->offset == offset)
			return true;
	return false;
}

/* A trailer's block_count that differs from the blocks found is still worth
 * reading the index for when blocks may have been lost to damage: never
 * more than the file can hold. */
static bool entries_checkable(struct amb_reader *r, size_t found, uint64_t block_count)
{
	return block_count > found &&
	       block_count <= amb_reader_file_size(r) / AMB_BLOCK_HDR_SIZE;
}

/* §6: the trailer points at the index, which lists every earlier block. */
static void check_index(struct verify_ctx *v, struct amb_reader *r, struct amb_payload *p)
{
	size_t n = amb_reader_block_count(r), ti = n - 1, ii = n - 2;
	const struct amb_block_info *tb = amb_reader_block(r, ti), *ib;
	uint64_t problems = v->st->problems;
	uint64_t index_offset, block_count, data_end;
	const uint8_t *data;
	const void *raw;
	uint32_t entry_size;
	size_t len;

	if (amb_reader_load(r, ti, p, &raw, &len) || len != AMB_TRAILER_PAYLOAD) {
		report(v, ti, tb->offset, -AMB_E_INDEX,
		       "trailer at offset %llu: payload is not %u readable bytes",
		       (unsigned long long)tb->offset, AMB_TRAILER_PAYLOAD);
		return;
	}
	data = raw;
	index_offset = amb_get_le64(data);
	block_count = amb_get_le64(data + 8);
	data_end = amb_get_le64(data + 16);
	ib = n >= 2 ? amb_reader_block(r, ii) : NULL;
	if (!ib || ib->type != AMB_BLOCK_INDEX || ib->offset != index_offset ||
	    data_end != index_offset || (block_count != ii && !entries_checkable(r, ii, block_count))) {
		report(v, ti, tb->offset, -AMB_E_INDEX,
		       "trailer at offset %llu: index_offset %llu, block_count %llu, data_end %llu do not match the %zu blocks found",
		       (unsigned long long)tb->offset, (unsigned long long)index_offset,
		       (unsigned long long)block_count, (unsigned long long)data_end,
		       n >= 2 ? n - 2 : 0);
		return;
	}
	if (amb_reader_load(r, ii, p, &raw, &len))
		return;  /* already reported with the other payloads */
	data = raw;
	if (len < AMB_INDEX_PREFIX) {
		report(v, ii, ib->offset, -AMB_E_INDEX, "index at offset %llu: payload of %zu bytes",
		       (unsigned long long)ib->offset, len);
		return;
	}
	entry_size = amb_get_le32(data);
	if (entry_size < AMB_INDEX_ENTRY_SIZE || amb_get_le32(data + 4) ||
	    (len - AMB_INDEX_PREFIX) % entry_size ||
	    (len - AMB_INDEX_PREFIX) / entry_size != block_count) {
		report(v, ii, ib->offset, -AMB_E_INDEX,
		       "index at offset %llu: entry_size %u, %zu bytes of entries for %llu blocks",
		       (unsigned long long)ib->offset, entry_size, len - AMB_INDEX_PREFIX,
		       (unsigned long long)block_count);
		return;
	}
	if (block_count != ii) {
		/* Blocks the index lists are gone (their headers are damaged,
		 * reported above): named as the reader names them. */
		for (uint64_t k = 0; k < block_count; k++) {
			struct amb_block_info e;

			amb_index_entry_decode(data + AMB_INDEX_PREFIX + k * entry_size, &e);
			if (!block_at(r, ii, e.offset)) {
				report(v, ti, tb->offset, -AMB_E_INDEX,
				       "trailer at offset %llu: index entry %llu: no such block at offset %llu",
				       (unsigned long long)tb->offset, (unsigned long long)k,
				       (unsigned long long)e.offset);
				return;
			}
		}
		report(v, ti, tb->offset, -AMB_E_INDEX,
		       "trailer at offset %llu: block_count %llu does not match the %zu blocks found",
		       (unsigned long long)tb->offset, (unsigned long long)block_count, ii);
		return;
	}
	for (size_t k = 0; k < ii && !v->stop; k++) {
		struct amb_block_info e;

		amb_index_entry_decode(data + AMB_INDEX_PREFIX + k * entry_size, &e);
		check_entry(v, k, &e, amb_reader_block(r, k), ib->offset);
	}
	v->st->index_ok = v->st->problems == problems;
}

/* The screen's problems are verify's (screen.c). */
static void verify_screen_problem(void *ctx, uint64_t block, uint64_t offset, int err,
				  const char *msg)
{
	report(ctx, block, offset, err, "%s", msg);
}

static int cmp_u64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

	return x < y ? -1 : x > y;
}

/* True when the reader reported a damaged block header in (@from, @to). */
static bool damage_between(struct amb_reader *r, uint64_t from, uint64_t to)
{
	for (size_t i = 0; i < amb_reader_problem_count(r); i++) {
		const struct amb_problem *pb = amb_reader_problem(r, i);

		if (pb->block != UINT64_MAX && pb->offset > from && pb->offset < to &&
		    pb->err != -AMB_E_TRUNCATED)
			return true;
	}
	return false;
}

/* Index of the first of the sorted @seqs that is >= @x. */
static size_t lower_bound(const uint64_t *seqs, size_t n, uint64_t x)
{
	size_t l = 0, h = n;

	while (l < h) {
		size_t m = l + (h - l) / 2;

		if (seqs[m] < x)
			l = m + 1;
		else
			h = m;
	}
	return l;
}

/*
 * §7: seq numbers grow by one.  Copies of a block were left out by the
 * reader (screen.c, which said so); what is left is a gap, where blocks
 * were lost, or a step back, where blocks were moved.  A jump over seqs
 * that appear later is not a loss: the step back that brings them is
 * reported instead.
 */
static void check_seq(struct verify_ctx *v, struct amb_reader *r, size_t i, const uint64_t *seqs,
		      size_t n, bool *any, uint64_t *max)
{
	const struct amb_block_info *bi = amb_reader_block(r, i);
	uint64_t expect = *any ? *max + 1 : 0;
	uint64_t from = i ? amb_reader_block(r, i - 1)->offset : 0;

	if (*any && bi->seq <= *max) {
		report(v, i, bi->offset, -AMB_E_CORRUPT,
		       "block %zu at offset %llu: seq %llu after seq %llu (blocks out of order)",
		       i, (unsigned long long)bi->offset, (unsigned long long)bi->seq,
		       (unsigned long long)*max);
		return;
	}
	/* Lost: some seq in [expect, bi->seq) is in no block of the file,
	 * unless a damaged header the reader reported lies just before: that
	 * block is the one missing, said once. */
	if (bi->seq > expect && !damage_between(r, from, bi->offset) &&
	    lower_bound(seqs, n, bi->seq) - lower_bound(seqs, n, expect) < bi->seq - expect)
		report(v, i, bi->offset, -AMB_E_CORRUPT,
		       "block %zu at offset %llu: seq %llu, expected %llu (blocks lost before it)",
		       i, (unsigned long long)bi->offset, (unsigned long long)bi->seq,
		       (unsigned long long)expect);
	*any = true;
	*max = bi->seq;
}

/*
 * §3, §5.6: a RING or SYNTH payload is whole perf records, @record_count of
 * them.  Each record's size is the u16 at offset 6 of its header, in the
 * producer's byte order.  A writer that counted wrong or cut a record
 * leaves a payload whose checksum holds: said here, the block still read.
 */
static void check_records(struct verify_ctx *v, size_t i, const struct amb_block_info *bi,
			  const struct amb_payload *p, const uint8_t *data, size_t len, bool big)
{
	uint64_t count = 0;
	size_t pos = 0, decoded;

	/* A sample-codec payload is whole records by construction (its
	 * decoder writes each record's size), and it knows how many. */
	if (amb_payload_chains(p, &decoded)) {
		count = decoded;
		pos = len;
	}
	while (len - pos >= 8) {
		uint16_t size = big ? (uint16_t)(data[pos + 6] << 8 | data[pos + 7])
				    : (uint16_t)(data[pos + 7] << 8 | data[pos + 6]);

		if (size < 8 || size > len - pos)
			break;
		pos += size;
		count++;
	}
	if (pos != len)
		report(v, i, bi->offset, -AMB_E_CORRUPT,
		       "block %zu at offset %llu: %s payload ends in %zu bytes that are no whole perf record",
		       i, (unsigned long long)bi->offset, amb_block_type_name(bi->type), len - pos);
	else if (count != bi->record_count)
		report(v, i, bi->offset, -AMB_E_CORRUPT,
		       "block %zu at offset %llu: record_count %llu, but the payload holds %llu perf records",
		       i, (unsigned long long)bi->offset, (unsigned long long)bi->record_count,
		       (unsigned long long)count);
}

int amb_verify(const char *path, amb_problem_fn cb, void *ctx, struct amb_verify_stats *st)
{
	struct amb_verify_stats local;
	struct verify_ctx v = { .cb = cb, .cb_ctx = ctx };
	struct amb_payload *p = NULL;
	struct amb_reader *r = NULL;
	struct amb_block_info *blocks = NULL;
	uint8_t *verdict = NULL;
	uint64_t *seqs = NULL, max_seq = 0;
	bool any_seq = false;
	char why[200];
	size_t n;
	int err;

	v.st = st ? st : &local;
	memset(v.st, 0, sizeof(*v.st));
	/* §7: scan every header; the index is checked against the scan below.
	 * Every block found is listed: the screen below says which a reader
	 * leaves out, and why. */
	err = amb_reader_open_all(path, &r, why, sizeof(why));
	if (err <= -AMB_E_BASE && err > -AMB_E_END) {
		report(&v, UINT64_MAX, 0, err, "%s", why);
		return (int)v.st->problems;
	}
	if (err)
		return err;
	p = amb_payload_new();
	if (!p) {
		err = -ENOMEM;
		goto out;
	}

	for (size_t i = 0; i < amb_reader_problem_count(r); i++) {
		const struct amb_problem *pb = amb_reader_problem(r, i);

		report(&v, pb->block, pb->offset, pb->err, "%s", pb->msg);
	}

	n = amb_reader_block_count(r);
	seqs = malloc((n ? n : 1) * sizeof(*seqs));
	verdict = malloc(n ? n : 1);
	blocks = malloc((n ? n : 1) * sizeof(*blocks));
	if (!seqs || !verdict || !blocks) {
		err = -ENOMEM;
		goto out;
	}
	for (size_t i = 0; i < n; i++) {
		blocks[i] = *amb_reader_block(r, i);
		seqs[i] = blocks[i].seq;
	}
	qsort(seqs, n, sizeof(*seqs), cmp_u64);
	err = amb_blocks_screen(blocks, &n, verdict, verify_screen_problem, &v);
	if (err)
		goto out;
	for (size_t i = 0; i < n && !v.stop; i++) {
		const struct amb_block_info *bi = amb_reader_block(r, i);
		const void *data;
		size_t len;

		/* A copy or a clash of seqs was said to be one; a bomb is not
		 * decoded. */
		if (verdict[i] == AMB_SCREEN_COPY)
			continue;
		if (verdict[i] != AMB_SCREEN_CLASH)
			check_seq(&v, r, i, seqs, n, &any_seq, &max_seq);
		if (verdict[i] != AMB_SCREEN_KEEP && verdict[i] != AMB_SCREEN_CLASH) {
			v.st->blocks_bad++;
			continue;
		}
		err = amb_reader_load(r, i, p, &data, &len);
		if (err == -ENOMEM)
			goto out;
		if (err) {
			v.st->blocks_bad++;
			report(&v, i, bi->offset, err, "%s", amb_payload_errmsg(p));
		} else {
			v.st->blocks_ok++;
			if (bi->type == AMB_BLOCK_RING || bi->type == AMB_BLOCK_SYNTH)
				check_records(&v, i, bi, p, data, len,
					      amb_reader_header(r)->producer_endian == AMB_ENDIAN_BIG);
		}
		if ((bi->type == AMB_BLOCK_INDEX && i + 2 != n) ||
		    (bi->type == AMB_BLOCK_TRAILER && i + 1 != n))
			report(&v, i, bi->offset, -AMB_E_CORRUPT,
			       "block %zu at offset %llu: %s block before the end of the file",
			       i, (unsigned long long)bi->offset, amb_block_type_name(bi->type));
	}
	err = 0;

	v.st->tail_bytes = amb_reader_file_size(r) - amb_reader_data_end(r);
	if (n && amb_reader_block(r, n - 1)->type == AMB_BLOCK_TRAILER) {
		v.st->has_trailer = true;
		check_index(&v, r, p);
	} else {
		report(&v, UINT64_MAX, amb_reader_data_end(r), -AMB_E_NO_TRAILER,
		       "file ends at offset %llu without a trailer (recording was not closed)",
		       (unsigned long long)amb_reader_data_end(r));
	}
out:
	free(blocks);
	free(verdict);
	free(seqs);
	amb_payload_free(p);
	amb_reader_close(r);
	return err ? err : (int)AMB_MIN(v.st->problems, (uint64_t)INT32_MAX);
}
