// SPDX-License-Identifier: MIT
/*
 * format/reader.c - open an .amber file and list its blocks through the
 * index or by scanning (FORMAT.md §6, §7); load.c loads their payloads.
 */
#include "format/format_internal.h"

#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <amber/common.h>
#include "common/util.h"

/* Resynchronisation reads the file in windows of this size. */
#define RESYNC_WINDOW (256u << 10)

/* True for -AMB_E_*: damage to report and step over, not a system error. */
static bool is_format_error(int err)
{
	return err <= -AMB_E_BASE && err > -AMB_E_END;
}

/* Record a problem and pass it to the warning callback (§7: every problem
 * names the block and the offset, which the caller puts in @fmt). */
static void add_problem(struct amb_reader *r, uint64_t block, uint64_t offset, int err,
			const char *fmt, ...) AMB_PRINTF(5, 6);
static void add_problem(struct amb_reader *r, uint64_t block, uint64_t offset, int err,
			const char *fmt, ...)
{
	struct amb_problem *pb;
	va_list ap;

	if (r->nproblems == r->problems_cap) {
		size_t cap = r->problems_cap ? r->problems_cap * 2 : 8;
		struct amb_problem *p = realloc(r->problems, cap * sizeof(*p));

		if (!p) {
			amb_warn("out of memory recording a problem of the file");
			return;
		}
		r->problems = p;
		r->problems_cap = cap;
	}
	pb = &r->problems[r->nproblems++];
	pb->block = block;
	pb->offset = offset;
	pb->err = err;
	va_start(ap, fmt);
	vsnprintf(pb->msg, sizeof(pb->msg), fmt, ap);
	va_end(ap);
	amb_warn("%s", pb->msg);
}

static int add_block(struct amb_reader *r, const struct amb_block_info *bi)
{
	if (r->nblocks == r->blocks_cap) {
		size_t cap = r->blocks_cap ? r->blocks_cap * 2 : 64;
		struct amb_block_info *p = realloc(r->blocks, cap * sizeof(*p));

		if (!p)
			return -ENOMEM;
		r->blocks = p;
		r->blocks_cap = cap;
	}
	r->blocks[r->nblocks++] = *bi;
	return 0;
}

/*
 * §7 step 4: search forward from @from, byte by byte, for the next offset
 * holding a valid block header.  Returns it, UINT64_MAX when there is none,
 * or a negative error in *err.
 */
static uint64_t reader_resync(struct amb_reader *r, uint64_t from, uint8_t *win, int *err)
{
	uint8_t magic[4];
	uint64_t off = from;

	amb_put_le32(magic, AMB_BLOCK_MAGIC);
	*err = 0;
	while (off < r->file_size) {
		size_t want = (size_t)AMB_MIN((uint64_t)RESYNC_WINDOW, r->file_size - off);
		ssize_t n = amb_pread_full(r->fd, win, want, off);
		size_t limit, i = 0;
		bool last;

		if (n < 0) {
			*err = (int)n;
			return UINT64_MAX;
		}
		last = off + (uint64_t)n >= r->file_size || (size_t)n < want;
		/* Candidates past limit may lack bytes of their header: they are
		 * looked at again from the next window. */
		limit = last ? (size_t)n : (size_t)n - AMB_BLOCK_HDR_MAX;
		while (i < limit) {
			const uint8_t *p = memmem(win + i, (size_t)n - i, magic, sizeof(magic));
			struct amb_block_hdr h;
			size_t pos;

			if (!p)
				break;
			pos = (size_t)(p - win);
			if (pos >= limit)
				break;
			if (amb_block_hdr_decode(p, (size_t)n - pos, &h, NULL, 0) == 0)
				return off + pos;
			i = pos + 1;
		}
		if (last)
			break;
		off += limit;
	}
	return UINT64_MAX;
}

/*
 * §7 "Another recording": the first valid file header in [@from, @to),
 * where damage made the scan resynchronise (`cat a.amber b.amber` puts
 * b's header there).  Returns its offset with the header in *@fh,
 * UINT64_MAX when there is none, or a negative error in *@err.
 */
static uint64_t find_file_header(struct amb_reader *r, uint64_t from, uint64_t to, uint8_t *win,
				 struct amb_file_header *fh, int *err)
{
	uint64_t off = from;

	*err = 0;
	while (off < to) {
		size_t want = (size_t)AMB_MIN((uint64_t)RESYNC_WINDOW, r->file_size - off);
		ssize_t n = amb_pread_full(r->fd, win, want, off);
		size_t limit, i = 0;

		if (n < 0) {
			*err = (int)n;
			return UINT64_MAX;
		}
		/* Headers starting past limit are looked at from the next window. */
		limit = (size_t)AMB_MIN((uint64_t)n, to - off);
		if ((size_t)n == want && off + (uint64_t)n < r->file_size && limit > (size_t)n - AMB_FILE_HDR_MAX)
			limit = (size_t)n - AMB_FILE_HDR_MAX;
		while (i < limit) {
			const uint8_t *p = memmem(win + i, (size_t)n - i, AMB_FILE_MAGIC, 8);
			size_t pos;

			if (!p || (pos = (size_t)(p - win)) >= limit)
				break;
			if (amb_file_hdr_decode(p, (size_t)n - pos, fh, NULL, 0) == 0)
				return off + pos;
			i = pos + 1;
		}
		if (!limit)
			break;
		off += limit;
	}
	return UINT64_MAX;
}

static void uuid_hex(const uint8_t uuid[16], char out[33])
{
	static const char hx[] = "0123456789abcdef";

	for (int i = 0; i < 16; i++) {
		out[2 * i] = hx[uuid[i] >> 4];
		out[2 * i + 1] = hx[uuid[i] & 15];
	}
	out[32] = '\0';
}

/* §7 step 3: scan block headers forward from the end of the file header. */
static int reader_scan(struct amb_reader *r)
{
	uint8_t *buf = malloc(AMB_MAX(RESYNC_WINDOW, AMB_BLOCK_HDR_MAX));
	uint64_t off = r->hdr.header_len, skipped = 0, foreign_at = 0;
	bool foreign = false;   /* inside another recording's blocks */
	bool after_trailer;
	int err = 0;

	if (!buf)
		return -ENOMEM;
	r->nblocks = 0;
	r->indexed = false;
	r->data_end = off;
	while (off < r->file_size) {
		size_t want = (size_t)AMB_MIN((uint64_t)AMB_BLOCK_HDR_MAX, r->file_size - off);
		struct amb_block_info bi;
		struct amb_block_hdr h;
		char why[160];
		uint64_t end;
		ssize_t n;

		n = amb_pread_full(r->fd, buf, want, off);
		if (n < 0) {
			err = (int)n;
			goto out;
		}
		err = amb_block_hdr_decode(buf, (size_t)n, &h, why, sizeof(why));
		/* §7: what follows a closed recording's trailer and is no block
		 * (nor another recording's file header, below) was appended to
		 * it: said once, and not read as damage. */
		after_trailer = !foreign && r->nblocks &&
				r->blocks[r->nblocks - 1].type == AMB_BLOCK_TRAILER;
		if (err && after_trailer && memcmp(buf, AMB_FILE_MAGIC, AMB_MIN((size_t)n, 8))) {
			add_problem(r, UINT64_MAX, off, -AMB_E_CORRUPT,
				    "offset %llu: %llu bytes after the trailer of the closed recording: "
				    "not part of it, left out", (unsigned long long)off,
				    (unsigned long long)(r->file_size - off));
			err = 0;
			break;
		}
		if (err == -AMB_E_TRUNCATED) {
			add_problem(r, r->nblocks, off, err,
				    "block %zu at offset %llu: torn: header ends beyond end of file %llu",
				    r->nblocks, (unsigned long long)off,
				    (unsigned long long)r->file_size);
			err = 0;
			break;
		}
		if (err) {
			struct amb_file_header fh;
			uint64_t next, fh_off = UINT64_MAX;
			int herr = err;

			next = reader_resync(r, off + 1, buf, &err);
			if (!err)
				fh_off = find_file_header(r, off, next == UINT64_MAX ? r->file_size : next,
							  buf, &fh, &err);
			if (err)
				goto out;
			/* A file header where a block should start is said below. */
			if (!foreign && fh_off != off)
				add_problem(r, r->nblocks, off, herr, "block %zu at offset %llu: %s",
					    r->nblocks, (unsigned long long)off, why);
			if (fh_off != UINT64_MAX) {
				char hex[33];

				if (foreign && skipped)
					add_problem(r, UINT64_MAX, foreign_at, -AMB_E_CORRUPT,
						    "offset %llu: %llu blocks of another recording left out",
						    (unsigned long long)foreign_at, (unsigned long long)skipped);
				foreign = memcmp(fh.uuid, r->hdr.uuid, sizeof(fh.uuid)) != 0;
				foreign_at = fh_off;
				skipped = 0;
				uuid_hex(fh.uuid, hex);
				add_problem(r, UINT64_MAX, fh_off, -AMB_E_CORRUPT, foreign ?
					    "offset %llu: file header of another recording (uuid %s): its blocks are not part of this one and are left out" :
					    "offset %llu: this recording's file header again (uuid %s): the file holds a copy of itself",
					    (unsigned long long)fh_off, hex);
			}
			off = next;
			if (off == UINT64_MAX)
				break;
			continue;
		}
		/* Sizes are capped by amb_block_hdr_decode(): no overflow. */
		end = off + h.header_len + h.stored_size;
		if (end > r->file_size) {
			add_problem(r, r->nblocks, off, -AMB_E_TRUNCATED,
				    "block %zu at offset %llu: torn: payload ends at %llu beyond end of file %llu",
				    r->nblocks, (unsigned long long)off, (unsigned long long)end,
				    (unsigned long long)r->file_size);
			break;
		}
		if (foreign) {
			skipped++;
			off = end;
			continue;
		}
		amb_block_info_from_hdr(&bi, &h, off);
		err = add_block(r, &bi);
		if (err)
			goto out;
		off = end;
		r->data_end = end;
	}
	if (foreign && skipped)
		add_problem(r, UINT64_MAX, foreign_at, -AMB_E_CORRUPT,
			    "offset %llu: %llu blocks of another recording left out",
			    (unsigned long long)foreign_at, (unsigned long long)skipped);
out:
	free(buf);
	return err;
}

/* Check the INDEX payload against the trailer; build the block list. */
static int index_parse(struct amb_reader *r, const uint8_t *data, size_t len,
		       uint64_t block_count, uint64_t index_offset, char *why, size_t why_len)
{
	uint64_t prev_end = r->hdr.header_len;
	uint32_t entry_size;
	int err;

	if (len < AMB_INDEX_PREFIX) {
		snprintf(why, why_len, "index payload of %zu bytes is shorter than its prefix", len);
		return -AMB_E_INDEX;
	}
	entry_size = amb_get_le32(data);
	if (entry_size < AMB_INDEX_ENTRY_SIZE || amb_get_le32(data + 4) != 0) {
		snprintf(why, why_len, "index entry_size %u below %u or reserved field not zero",
			 entry_size, AMB_INDEX_ENTRY_SIZE);
		return -AMB_E_INDEX;
	}
	if ((len - AMB_INDEX_PREFIX) % entry_size ||
	    (len - AMB_INDEX_PREFIX) / entry_size != block_count) {
		snprintf(why, why_len, "index holds %zu bytes of entries, trailer says %llu blocks",
			 len - AMB_INDEX_PREFIX, (unsigned long long)block_count);
		return -AMB_E_INDEX;
	}
	r->nblocks = 0;
	for (uint64_t k = 0; k < block_count; k++) {
		struct amb_block_info bi;

		amb_index_entry_decode(data + AMB_INDEX_PREFIX + k * entry_size, &bi);
		/* Offset first: the sum below cannot overflow once it is known
		 * to be below index_offset and stored_size is capped. */
		if (bi.offset < prev_end || bi.offset > index_offset ||
		    bi.stored_size > AMB_BLOCK_STORED_MAX || bi.raw_size > AMB_BLOCK_RAW_MAX ||
		    bi.last_time < bi.first_time ||
		    bi.offset + AMB_BLOCK_HDR_SIZE + bi.stored_size > index_offset) {
			snprintf(why, why_len,
				 "index entry %llu (offset %llu, stored_size %llu) out of order or outside the data",
				 (unsigned long long)k, (unsigned long long)bi.offset,
				 (unsigned long long)bi.stored_size);
			return -AMB_E_INDEX;
		}
		prev_end = bi.offset + AMB_BLOCK_HDR_SIZE + bi.stored_size;
		err = add_block(r, &bi);
		if (err)
			return err;
	}
	return 0;
}

/*
 * §7 step 2: every block the index lists has at its offset a valid block
 * header that says what the index says: blocks moved, swapped or copied
 * after the index was written make the reader scan instead of skipping
 * them one by one at load.  One small read per block.
 */
static int index_check_headers(struct amb_reader *r, char *why, size_t why_len)
{
	uint8_t hbuf[AMB_BLOCK_HDR_MAX];

	for (size_t i = 0; i < r->nblocks; i++) {
		const struct amb_block_info *bi = &r->blocks[i];
		struct amb_block_hdr h;
		size_t want = AMB_BLOCK_HDR_SIZE;
		ssize_t n;
		int err;

again:
		n = amb_pread_full(r->fd, hbuf, want, bi->offset);
		if (n < 0)
			return (int)n;
		err = amb_block_hdr_decode(hbuf, (size_t)n, &h, NULL, 0);
		/* A longer header (a later minor): read it whole, once. */
		if (err == -AMB_E_TRUNCATED && want == AMB_BLOCK_HDR_SIZE && (size_t)n == want &&
		    amb_get_le16(hbuf + 4) > want && amb_get_le16(hbuf + 4) <= AMB_BLOCK_HDR_MAX) {
			want = amb_get_le16(hbuf + 4);
			goto again;
		}
		if (err) {
			snprintf(why, why_len, "index entry %zu: no such block at offset %llu", i,
				 (unsigned long long)bi->offset);
			return -AMB_E_INDEX;
		}
		/* §6: an entry is a copy of its block's header; any difference
		 * is damage, and the headers, which check themselves, win. */
		if (h.seq != bi->seq || h.type != bi->type || h.codec != bi->codec ||
		    h.flags != bi->flags || h.stream != bi->stream ||
		    h.stored_size != bi->stored_size || h.raw_size != bi->raw_size ||
		    h.record_count != bi->record_count || h.first_time != bi->first_time ||
		    h.last_time != bi->last_time) {
			snprintf(why, why_len, "index entry %zu disagrees with the block header at "
				 "offset %llu", i, (unsigned long long)bi->offset);
			return -AMB_E_INDEX;
		}
	}
	return 0;
}

/*
 * §7 step 2: use the trailer and index, the trailer ending at @end (the end
 * of the file, or of the last block a scan found).  Returns 1 when they
 * were used, 0 when there is no trailer there, -AMB_E_* with @why for a
 * damaged one, or -errno for I/O and memory errors.
 */
static int reader_try_index(struct amb_reader *r, uint64_t end, char *why, size_t why_len)
{
	uint8_t tbuf[AMB_TRAILER_BLOCK_SIZE], ibuf[AMB_BLOCK_HDR_MAX];
	uint64_t toff, index_offset, block_count, data_end, max_raw;
	struct amb_block_info tinfo, iinfo;
	struct amb_payload *p = NULL;
	struct amb_block_hdr th, ih;
	const void *data;
	size_t len, want;
	ssize_t n;
	int err;

	if (end < (uint64_t)r->hdr.header_len + AMB_BLOCK_HDR_SIZE + AMB_TRAILER_BLOCK_SIZE)
		return 0;
	toff = end - AMB_TRAILER_BLOCK_SIZE;
	n = amb_pread_full(r->fd, tbuf, sizeof(tbuf), toff);
	if (n < 0)
		return (int)n;
	if ((size_t)n < sizeof(tbuf) || amb_get_le32(tbuf) != AMB_BLOCK_MAGIC)
		return 0;
	err = amb_block_hdr_decode(tbuf, sizeof(tbuf), &th, why, why_len);
	if (err)
		return err;
	/* A valid block that is not a trailer: the last block of an unclosed
	 * file happens to have a 24-byte payload. */
	if (th.type != AMB_BLOCK_TRAILER)
		return 0;
	if (th.header_len != AMB_BLOCK_HDR_SIZE || th.codec != AMB_CODEC_NONE ||
	    th.stored_size != AMB_TRAILER_PAYLOAD || th.raw_size != AMB_TRAILER_PAYLOAD) {
		snprintf(why, why_len, "trailer header has wrong sizes or codec");
		return -AMB_E_CORRUPT;
	}
	if (amb_checksum(tbuf + AMB_BLOCK_HDR_SIZE, AMB_TRAILER_PAYLOAD) != th.payload_checksum) {
		snprintf(why, why_len, "trailer payload checksum mismatch");
		return -AMB_E_PAYLOAD_CHECKSUM;
	}
	index_offset = amb_get_le64(tbuf + AMB_BLOCK_HDR_SIZE);
	block_count = amb_get_le64(tbuf + AMB_BLOCK_HDR_SIZE + 8);
	data_end = amb_get_le64(tbuf + AMB_BLOCK_HDR_SIZE + 16);
	if (data_end != index_offset || index_offset < r->hdr.header_len ||
	    index_offset >= toff || block_count > (index_offset - r->hdr.header_len) / AMB_BLOCK_HDR_SIZE) {
		snprintf(why, why_len, "trailer fields out of range (index_offset %llu, block_count %llu, data_end %llu)",
			 (unsigned long long)index_offset, (unsigned long long)block_count,
			 (unsigned long long)data_end);
		return -AMB_E_INDEX;
	}

	want = (size_t)AMB_MIN((uint64_t)sizeof(ibuf), toff - index_offset);
	n = amb_pread_full(r->fd, ibuf, want, index_offset);
	if (n < 0)
		return (int)n;
	err = amb_block_hdr_decode(ibuf, (size_t)n, &ih, why, why_len);
	if (err)
		return err == -AMB_E_TRUNCATED ? -AMB_E_INDEX : err;
	if (ih.type != AMB_BLOCK_INDEX || index_offset + ih.header_len + ih.stored_size != toff) {
		snprintf(why, why_len, "no index block of the right size at offset %llu",
			 (unsigned long long)index_offset);
		return -AMB_E_INDEX;
	}
	/* FORMAT.md §7 Caps: decoding the index never allocates more than
	 * AMB_INDEX_ENTRY_SIZE per block the file can hold before it. */
	max_raw = AMB_INDEX_PREFIX +
		  (index_offset - r->hdr.header_len) / AMB_BLOCK_HDR_SIZE * AMB_INDEX_ENTRY_SIZE;
	if (ih.raw_size > max_raw) {
		snprintf(why, why_len,
			 "index at offset %llu: raw_size %llu over the cap of %llu for this file",
			 (unsigned long long)index_offset, (unsigned long long)ih.raw_size,
			 (unsigned long long)max_raw);
		return -AMB_E_TOO_BIG;
	}

	p = amb_payload_new();
	if (!p)
		return -ENOMEM;
	amb_block_info_from_hdr(&iinfo, &ih, index_offset);
	err = amb_payload_load_block(r, &iinfo, (size_t)block_count, p, &data, &len);
	if (err) {
		snprintf(why, why_len, "%.180s", amb_payload_errmsg(p));
		goto out;
	}
	err = index_parse(r, data, len, block_count, index_offset, why, why_len);
	if (!err)
		err = index_check_headers(r, why, why_len);
	if (err)
		goto out;
	amb_block_info_from_hdr(&tinfo, &th, toff);
	err = add_block(r, &iinfo);
	if (!err)
		err = add_block(r, &tinfo);
	if (err)
		goto out;
	r->data_end = end;
	r->indexed = true;
	err = 1;
out:
	amb_payload_free(p);
	return err;
}

/*
 * No trailer ends the file, and the scan is done: when it ended at a
 * trailer after all (bytes were appended to a closed recording, which the
 * scan said), use that trailer's index if it checks; otherwise the file
 * was not closed, which is said (first: it explains the rest).  Returns
 * 0 or -errno.
 */
static int reader_trailer_found(struct amb_reader *r)
{
	struct amb_block_info *scanned;
	size_t n = r->nblocks;
	char why[240];
	int err;

	if (n && r->blocks[n - 1].type == AMB_BLOCK_TRAILER) {
		uint64_t end = r->data_end;

		scanned = malloc(n * sizeof(*scanned));
		if (!scanned)
			return -ENOMEM;
		memcpy(scanned, r->blocks, n * sizeof(*scanned));
		err = reader_try_index(r, end, why, sizeof(why));
		if (err < 0 && is_format_error(err))
			add_problem(r, UINT64_MAX, end - AMB_TRAILER_BLOCK_SIZE, err,
				    "trailer at offset %llu: %s: blocks found by scanning",
				    (unsigned long long)(end - AMB_TRAILER_BLOCK_SIZE), why);
		if (err != 1) {
			/* The scan's list stands. */
			memcpy(r->blocks, scanned, n * sizeof(*scanned));
			r->nblocks = n;
			r->indexed = false;
			r->data_end = end;
		}
		free(scanned);
		return err < 0 && !is_format_error(err) ? err : 0;
	}
	add_problem(r, UINT64_MAX, r->file_size, -AMB_E_NO_TRAILER,
		    "file of %llu bytes has no trailer (recording was not closed): blocks found by scanning",
		    (unsigned long long)r->file_size);
	if (r->nproblems > 1) {
		struct amb_problem pb = r->problems[r->nproblems - 1];

		memmove(r->problems + 1, r->problems, (r->nproblems - 1) * sizeof(pb));
		r->problems[0] = pb;
	}
	return 0;
}

/* AMB_READ_VERIFY: check every payload on open; drop and report bad ones. */
static int reader_verify_payloads(struct amb_reader *r)
{
	struct amb_payload *p = amb_payload_new();
	size_t kept = 0;

	if (!p)
		return -ENOMEM;
	for (size_t i = 0; i < r->nblocks; i++) {
		const void *data;
		size_t len;
		int err = amb_payload_load_block(r, &r->blocks[i], i, p, &data, &len);

		if (err && !is_format_error(err)) {
			amb_payload_free(p);
			return err;
		}
		if (err) {
			add_problem(r, i, r->blocks[i].offset, err, "%s", amb_payload_errmsg(p));
			continue;
		}
		r->blocks[kept++] = r->blocks[i];
	}
	r->nblocks = kept;
	amb_payload_free(p);
	return 0;
}

/*
 * A recording is read at offsets, so only a regular file (or a block
 * device) will do: name what @path is instead, in amb_errmsg() (for the
 * tools) and in @why.
 */
static void reader_not_a_file(const char *path, mode_t mode, char *why, size_t why_len)
{
	const char *what = S_ISDIR(mode) ? "a directory" :
			   S_ISFIFO(mode) ? "a FIFO (named pipe): save the recording to a file first" :
			   S_ISCHR(mode) ? "a character device" :
			   S_ISSOCK(mode) ? "a socket" : "not a regular file";

	amb_errmsg_set("%s: is %s, not a recording", path, what);
	if (why_len)
		snprintf(why, why_len, "%s", amb_errmsg());
}

/* The screen's problems are the reader's (screen.c, FORMAT.md §7). */
static void screen_problem(void *ctx, uint64_t block, uint64_t offset, int err, const char *msg)
{
	add_problem(ctx, block, offset, err, "%s", msg);
}

/*
 * §7 "Salvaging": the fields of a file header @buf (@n bytes) that failed
 * its checks, where they are plausible; zero where they are not, for the
 * salvager to infer.  Returns the offset of the first block: header_len
 * when a valid block header sits there, else the first one found from
 * offset 0 (the file size when there is none), or a negative error.
 */
static int64_t salvage_header(struct amb_reader *r, const uint8_t *buf, size_t n)
{
	struct amb_file_header *h = &r->hdr;
	uint8_t win[AMB_BLOCK_HDR_MAX], *rwin;
	uint64_t start = AMB_FILE_HDR_SIZE, found;
	struct amb_block_hdr bh;
	ssize_t got;
	int err;

	memset(h, 0, sizeof(*h));
	h->major = AMB_FORMAT_MAJOR;
	if (n >= AMB_FILE_HDR_SIZE) {
		uint32_t hlen = amb_get_le32(buf + 12);

		if (hlen >= AMB_FILE_HDR_SIZE && hlen <= AMB_FILE_HDR_MAX && hlen % 8 == 0)
			start = hlen;
		if (buf[16] == AMB_ENDIAN_LITTLE || buf[16] == AMB_ENDIAN_BIG)
			h->producer_endian = buf[16];
		if (buf[17] == 4 || buf[17] == 8)
			h->producer_word_size = buf[17];
		switch (amb_get_le16(buf + 18)) {
		case 3: case 20: case 21: case 22: case 40: case 62: case 183: case 243:
			h->producer_machine = amb_get_le16(buf + 18);
			break;
		}
		memcpy(h->uuid, buf + 24, sizeof(h->uuid));
		h->created_ns = amb_get_le64(buf + 40);
	}
	if (start < r->file_size) {
		got = amb_pread_full(r->fd, win, (size_t)AMB_MIN((uint64_t)sizeof(win),
								 r->file_size - start), start);
		if (got < 0)
			return got;
		if (amb_block_hdr_decode(win, (size_t)got, &bh, NULL, 0) == 0)
			return (int64_t)start;
	}
	rwin = malloc(AMB_MAX(RESYNC_WINDOW, AMB_BLOCK_HDR_MAX));
	if (!rwin)
		return -ENOMEM;
	found = reader_resync(r, 0, rwin, &err);
	free(rwin);
	if (err)
		return err;
	return found == UINT64_MAX ? (int64_t)r->file_size : (int64_t)found;
}

/* How reader_open() treats a file, besides the public flags. */
enum reader_mode {
	READER_SALVAGE = 1u << 0,   /* amb_reader_open_salvage() */
	READER_ALL     = 1u << 1,   /* amb_reader_open_all(): nothing screened */
};

static int reader_open(const char *path, unsigned flags, unsigned mode, struct amb_reader **out,
		       char *why, size_t why_len)
{
	uint8_t hbuf[AMB_FILE_HDR_MAX];
	bool no_trailer = false;
	char hwhy[240];
	struct amb_reader *r;
	struct stat sb;
	ssize_t n;
	int err;

	*out = NULL;
	if (why_len)
		why[0] = 0;
	if (flags & ~(unsigned)(AMB_READ_SCAN | AMB_READ_VERIFY)) {
		amb_warn("amb_reader_open: unknown flags 0x%x",
			 flags & ~(unsigned)(AMB_READ_SCAN | AMB_READ_VERIFY));
		return -EINVAL;
	}
	r = calloc(1, sizeof(*r));
	if (!r)
		return -ENOMEM;
	r->flags = flags;
	/* O_NONBLOCK: opening a FIFO must not wait for a writer. */
	r->fd = open(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK);
	if (r->fd < 0 || fstat(r->fd, &sb) < 0) {
		err = -errno;
		goto out;
	}
	if (!S_ISREG(sb.st_mode) && !S_ISBLK(sb.st_mode)) {
		reader_not_a_file(path, sb.st_mode, why, why_len);
		err = -EINVAL;
		goto out;
	}
	r->file_size = (uint64_t)sb.st_size;

	n = amb_pread_full(r->fd, hbuf, (size_t)AMB_MIN(r->file_size, (uint64_t)sizeof(hbuf)), 0);
	if (n < 0) {
		err = (int)n;
		goto out;
	}
	err = amb_file_hdr_decode(hbuf, (size_t)n, &r->hdr, hwhy, sizeof(hwhy));
	/* A newer major is no damage: its blocks may not follow these rules. */
	if (err && (mode & READER_SALVAGE) && is_format_error(err) && err != -AMB_E_VERSION) {
		int64_t start = salvage_header(r, hbuf, (size_t)n);

		if (start < 0) {
			err = (int)start;
			goto out;
		}
		add_problem(r, UINT64_MAX, 0, err, "%s", hwhy);
		r->hdr_damaged = true;
		r->hdr.header_len = (uint32_t)start;   /* where the blocks start */
		flags |= AMB_READ_SCAN;
		err = 0;
	}
	if (err) {
		/* For the tools: what is wrong, and with which file. */
		amb_errmsg_set("%s: %s", path, hwhy);
		if (why_len)
			snprintf(why, why_len, "%s", hwhy);
		goto out;
	}

	if (!(flags & AMB_READ_SCAN)) {
		char iwhy[240];

		err = reader_try_index(r, r->file_size, iwhy, sizeof(iwhy));
		if (err < 0 && !is_format_error(err))
			goto out;
		no_trailer = err == 0;
		if (err < 0)
			add_problem(r, UINT64_MAX, r->file_size - AMB_TRAILER_BLOCK_SIZE, err,
				    "trailer at offset %llu: %s: blocks found by scanning",
				    (unsigned long long)(r->file_size - AMB_TRAILER_BLOCK_SIZE), iwhy);
	}
	err = 0;
	if (!r->indexed)
		err = reader_scan(r);
	if (!err && no_trailer)
		err = reader_trailer_found(r);
	if (!err && !(mode & READER_ALL))
		err = amb_blocks_screen(r->blocks, &r->nblocks, NULL, screen_problem, r);
	for (size_t i = 0; i < r->nblocks; i++) {
		r->max_raw = AMB_MAX(r->max_raw, r->blocks[i].raw_size);
		r->max_stored = AMB_MAX(r->max_stored, r->blocks[i].stored_size);
	}
	if (!err && (flags & AMB_READ_VERIFY))
		err = reader_verify_payloads(r);
	if (err)
		goto out;
	*out = r;
	return 0;
out:
	amb_reader_close(r);
	return err;
}

int amb_reader_open_msg(const char *path, unsigned flags, struct amb_reader **out,
			char *why, size_t why_len)
{
	return reader_open(path, flags, 0, out, why, why_len);
}

int amb_reader_open_all(const char *path, struct amb_reader **out, char *why, size_t why_len)
{
	return reader_open(path, AMB_READ_SCAN, READER_ALL | READER_SALVAGE, out, why, why_len);
}

int amb_reader_open_salvage(const char *path, struct amb_reader **out, bool *damaged)
{
	int err = reader_open(path, AMB_READ_SCAN, READER_SALVAGE, out, NULL, 0);

	*damaged = !err && (*out)->hdr_damaged;
	return err;
}

int amb_reader_open(const char *path, unsigned flags, struct amb_reader **out)
{
	return amb_reader_open_msg(path, flags, out, NULL, 0);
}

void amb_reader_close(struct amb_reader *r)
{
	if (!r)
		return;
	if (r->fd >= 0)
		close(r->fd);
	free(r->blocks);
	free(r->problems);
	free(r);
}

const struct amb_file_header *amb_reader_header(const struct amb_reader *r)
{
	return &r->hdr;
}

uint64_t amb_reader_file_size(const struct amb_reader *r)
{
	return r->file_size;
}

uint64_t amb_reader_data_end(const struct amb_reader *r)
{
	return r->data_end;
}

bool amb_reader_indexed(const struct amb_reader *r)
{
	return r->indexed;
}

size_t amb_reader_block_count(const struct amb_reader *r)
{
	return r->nblocks;
}

const struct amb_block_info *amb_reader_block(const struct amb_reader *r, size_t i)
{
	return i < r->nblocks ? &r->blocks[i] : NULL;
}

size_t amb_reader_problem_count(const struct amb_reader *r)
{
	return r->nproblems;
}

const struct amb_problem *amb_reader_problem(const struct amb_reader *r, size_t i)
{
	return i < r->nproblems ? &r->problems[i] : NULL;
}

/* Blocks without timestamps (first_time = last_time = 0) are not tied to a
 * time range and pass every time filter. */
static bool block_matches(const struct amb_block_info *bi, const struct amb_block_filter *f)
{
	if (!f)
		return true;
	if (f->type >= 0 && bi->type != (unsigned)f->type)
		return false;
	if (f->stream >= 0 && bi->stream != (uint64_t)f->stream)
		return false;
	if (f->t1 && (bi->first_time || bi->last_time) &&
	    (bi->first_time > f->t1 || bi->last_time < f->t0))
		return false;
	return true;
}

size_t amb_reader_next(const struct amb_reader *r, const struct amb_block_filter *f,
		       size_t from)
{
	for (size_t i = from; i < r->nblocks; i++)
		if (block_matches(&r->blocks[i], f))
			return i;
	return SIZE_MAX;
}
