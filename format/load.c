// SPDX-License-Identifier: MIT
/*
 * format/load.c - load one block's payload (FORMAT.md §3, §4): read the
 * block header and stored payload in one pread, check both against the
 * block list and the payload checksum, check that the codec can be what
 * the header says before allocating raw_size bytes, and decode it (codec
 * none in place, zstd, or the sample codec of codec_sample_dec.c).
 * reader.c lists the blocks; this file reads them.
 */
#include "format/format_internal.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <zstd.h>

#include <amber/common.h>
#include "common/util.h"

struct amb_payload {
	uint8_t *in;           /* block header + stored payload */
	size_t in_cap, in_map; /* usable bytes; amb_big_alloc() size */
	uint8_t *out;          /* decoded payload */
	size_t out_cap, out_map;
	const uint8_t *stored; /* stored payload of the last good load */
	size_t stored_len;
	ZSTD_DCtx *dctx;
	struct amb_sample_codec *sc;   /* codec 2, made on first use */
	bool sample_loaded;            /* the last good load was codec 2's */
	char errmsg[240];
};

/*
 * Make *@buf hold @need bytes, where the file's largest block would need
 * @largest.  A buffer amb_big_alloc() maps is for one of many blocks of
 * about that size, so it is made large enough for the largest at once (up
 * to four times @need: a damaged block list cannot make a small block
 * reserve much), rather than in steps, each a fresh mapping whose pages
 * are faulted in and cleared again; when that much cannot be had, @need
 * is enough.  Errors as amb_big_reserve().
 */
static int payload_reserve(uint8_t **buf, size_t *cap, size_t *map, size_t need,
			   uint64_t largest)
{
	if (need <= *cap)
		return 0;
	if (need >= AMB_BIG_MIN && largest > need &&
	    !amb_big_reserve(buf, cap, map, (size_t)AMB_MIN(largest, (uint64_t)need * 4)))
		return 0;
	return amb_big_reserve(buf, cap, map, need);
}

/*
 * Read and check block @bi (numbered @i) into @p, leaving its stored
 * payload in p->stored and its payload checksum in *checksum.  The header
 * is read with the payload in one pread and compared with @bi, so a block
 * listed by a damaged index cannot be mistaken for another.
 */
static int payload_read(struct amb_reader *r, const struct amb_block_info *bi, size_t i,
			struct amb_payload *p, uint64_t *checksum)
{
	unsigned long long off = bi->offset;
	struct amb_block_hdr h;
	uint64_t computed;
	size_t hlen = AMB_BLOCK_HDR_SIZE, need;
	char why[160];
	ssize_t n;
	int err;

	p->stored = NULL;
	p->stored_len = 0;
	p->errmsg[0] = 0;
	if (bi->stored_size > AMB_BLOCK_STORED_MAX || bi->raw_size > AMB_BLOCK_RAW_MAX) {
		err = -AMB_E_TOO_BIG;
		snprintf(p->errmsg, sizeof(p->errmsg), "block %zu at offset %llu: size over its cap",
			 i, off);
		return err;
	}
again:
	need = hlen + (size_t)bi->stored_size;
	if (bi->offset > r->file_size || need > r->file_size - bi->offset) {
		snprintf(p->errmsg, sizeof(p->errmsg),
			 "block %zu at offset %llu: truncated: block ends beyond end of file %llu",
			 i, off, (unsigned long long)r->file_size);
		return -AMB_E_TRUNCATED;
	}
	/* One byte more, for the NUL after a stored (codec none) payload. */
	if (payload_reserve(&p->in, &p->in_cap, &p->in_map, need + 1,
			    r->max_stored + AMB_BLOCK_HDR_SIZE + 1)) {
		snprintf(p->errmsg, sizeof(p->errmsg),
			 "block %zu at offset %llu: out of memory for %zu bytes", i, off, need);
		return -ENOMEM;
	}
	n = amb_pread_full(r->fd, p->in, need, bi->offset);
	if (n < 0 || (size_t)n < need) {
		err = n < 0 ? (int)n : -AMB_E_TRUNCATED;
		snprintf(p->errmsg, sizeof(p->errmsg), "block %zu at offset %llu: read: %s",
			 i, off, amb_strerror(err));
		return err;
	}
	err = amb_block_hdr_decode(p->in, need, &h, why, sizeof(why));
	/*
	 * A longer header (a later minor, §3): read again with its length,
	 * once.  It may not even fit the first read when the payload is
	 * small (-AMB_E_TRUNCATED); decode has checked the magic and the
	 * header_len range by then.
	 */
	if ((!err || err == -AMB_E_TRUNCATED) && hlen == AMB_BLOCK_HDR_SIZE &&
	    amb_get_le16(p->in + 4) != hlen) {
		hlen = amb_get_le16(p->in + 4);
		goto again;
	}
	if (!err && h.header_len != hlen) {
		/* The header changed between the two reads. */
		snprintf(why, sizeof(why), "header_len changed from %zu to %u while reading",
			 hlen, h.header_len);
		err = -AMB_E_CORRUPT;
	}
	if (err) {
		snprintf(p->errmsg, sizeof(p->errmsg), "block %zu at offset %llu: %s", i, off, why);
		return err;
	}
	if (h.seq != bi->seq || h.type != bi->type || h.codec != bi->codec ||
	    h.stored_size != bi->stored_size || h.raw_size != bi->raw_size) {
		snprintf(p->errmsg, sizeof(p->errmsg),
			 "block %zu at offset %llu: block header disagrees with the index", i, off);
		return -AMB_E_INDEX;
	}
	p->stored = p->in + hlen;
	p->stored_len = (size_t)bi->stored_size;
	computed = amb_checksum(p->stored, p->stored_len);
	if (computed != h.payload_checksum) {
		snprintf(p->errmsg, sizeof(p->errmsg),
			 "block %zu at offset %llu: payload checksum mismatch (stored 0x%016llx, computed 0x%016llx)",
			 i, off, (unsigned long long)h.payload_checksum, (unsigned long long)computed);
		p->stored = NULL;
		p->stored_len = 0;
		return -AMB_E_PAYLOAD_CHECKSUM;
	}
	/* The NUL after a codec none payload (amb_reader_load). */
	p->in[need] = '\0';
	*checksum = h.payload_checksum;
	return 0;
}

/*
 * Check that block @bi's stored payload, read into @p, can be what its
 * codec says before decoding it: the sizes of codec none agree, a zstd
 * frame that names its content size names raw_size, a sample payload's
 * records are in the file's byte order and can fill raw_size, the codec
 * is known.
 */
static int payload_precheck(const struct amb_reader *r, const struct amb_block_info *bi, size_t i,
			    struct amb_payload *p)
{
	unsigned long long off = bi->offset;
	unsigned long long fcs;

	switch (bi->codec) {
	case AMB_CODEC_NONE:
		if (bi->stored_size == bi->raw_size)
			return 0;
		snprintf(p->errmsg, sizeof(p->errmsg),
			 "block %zu at offset %llu: codec none with stored_size %llu != raw_size %llu",
			 i, off, (unsigned long long)bi->stored_size, (unsigned long long)bi->raw_size);
		return -AMB_E_CORRUPT;
	case AMB_CODEC_ZSTD: {
		size_t frame;

		/* Checked before raw_size bytes are allocated for a hostile header. */
		fcs = ZSTD_getFrameContentSize(p->stored, p->stored_len);
		if (fcs == ZSTD_CONTENTSIZE_ERROR ||
		    (fcs != ZSTD_CONTENTSIZE_UNKNOWN && fcs != bi->raw_size)) {
			snprintf(p->errmsg, sizeof(p->errmsg),
				 "block %zu at offset %llu: zstd payload does not decode to raw_size %llu: frame announces %lld",
				 i, off, (unsigned long long)bi->raw_size,
				 fcs == ZSTD_CONTENTSIZE_ERROR ? -1ll : (long long)fcs);
			return -AMB_E_DECOMPRESS;
		}
		/* One frame, and nothing after it (FORMAT.md §4). */
		frame = ZSTD_findFrameCompressedSize(p->stored, p->stored_len);
		if (ZSTD_isError(frame) || frame != p->stored_len) {
			snprintf(p->errmsg, sizeof(p->errmsg),
				 "block %zu at offset %llu: zstd payload of %zu bytes is not one whole frame: %s",
				 i, off, p->stored_len,
				 ZSTD_isError(frame) ? ZSTD_getErrorName(frame) : "bytes after it");
			return -AMB_E_DECOMPRESS;
		}
		return 0;
	}
	case AMB_CODEC_SAMPLE:
		/* FORMAT.md §4.1: the records are read in producer_endian
		 * order once decoded, so they must be written in it. */
		if (p->stored_len >= AMB_SAMPLE_HDR_SIZE && p->stored[3] != r->hdr.producer_endian) {
			snprintf(p->errmsg, sizeof(p->errmsg),
				 "block %zu at offset %llu: sample payload's records are of byte order %u, the file's producer_endian is %u",
				 i, off, p->stored[3], r->hdr.producer_endian);
			return -AMB_E_DECOMPRESS;
		}
		/* Records of 8 bytes to 64 KiB, so raw_size is bounded by
		 * the record count before raw_size bytes are allocated. */
		if (p->stored_len >= AMB_SAMPLE_HDR_SIZE &&
		    bi->raw_size >= 8ull * amb_get_le32(p->stored + 48) &&
		    bi->raw_size <= 65535ull * amb_get_le32(p->stored + 48))
			return 0;
		snprintf(p->errmsg, sizeof(p->errmsg),
			 "block %zu at offset %llu: sample payload of %zu bytes cannot decode to raw_size %llu",
			 i, off, p->stored_len, (unsigned long long)bi->raw_size);
		return -AMB_E_DECOMPRESS;
	default:
		snprintf(p->errmsg, sizeof(p->errmsg), "block %zu at offset %llu: unknown codec %u",
			 i, off, bi->codec);
		return -AMB_E_CODEC;
	}
}

/* Read, check and decode block @bi (numbered @i) into @p (format_internal.h). */
int amb_payload_load_block(struct amb_reader *r, const struct amb_block_info *bi, size_t i,
			   struct amb_payload *p, const void **data, size_t *len)
{
	unsigned long long off = bi->offset;
	uint64_t checksum;
	size_t raw;
	int err;

	p->sample_loaded = false;
	err = payload_read(r, bi, i, p, &checksum);
	if (err)
		return err;
	err = payload_precheck(r, bi, i, p);
	if (err)
		goto fail;
	if (bi->codec == AMB_CODEC_NONE) {
		*data = p->stored;
		*len = p->stored_len;
		return 0;
	}
	/* payload_precheck() let only codecs 1 and 2 through, each of which
	 * decodes into raw_size bytes (and a NUL after them). */
	raw = (size_t)bi->raw_size;
	if (payload_reserve(&p->out, &p->out_cap, &p->out_map, raw + 1, r->max_raw + 1)) {
		snprintf(p->errmsg, sizeof(p->errmsg),
			 "block %zu at offset %llu: out of memory for %zu bytes", i, off, raw);
		err = -ENOMEM;
		goto fail;
	}
	if (bi->codec == AMB_CODEC_ZSTD) {
		size_t got;

		if (!p->dctx && !(p->dctx = ZSTD_createDCtx())) {
			err = -ENOMEM;
			goto fail;
		}
		/* The buffer is raw_size bytes: a frame decoding to more fails. */
		got = ZSTD_decompressDCtx(p->dctx, p->out, raw, p->stored, p->stored_len);
		if (ZSTD_isError(got) || got != raw) {
			snprintf(p->errmsg, sizeof(p->errmsg),
				 "block %zu at offset %llu: zstd payload does not decode to raw_size %zu: %s",
				 i, off, raw, ZSTD_isError(got) ? ZSTD_getErrorName(got) : "short");
			err = -AMB_E_DECOMPRESS;
			goto fail;
		}
	} else {
		char why[200];

		if (!p->sc && !(p->sc = amb_sample_codec_new())) {
			err = -ENOMEM;
			goto fail;
		}
		err = amb_sample_decode(p->sc, p->stored, p->stored_len, p->out, raw, why,
					sizeof(why));
		if (err) {
			if (err == -ENOMEM)
				snprintf(why, sizeof(why), "out of memory");
			snprintf(p->errmsg, sizeof(p->errmsg), "block %zu at offset %llu: %s", i, off,
				 why);
			goto fail;
		}
		p->sample_loaded = true;
	}
	p->out[raw] = '\0';
	*data = p->out;
	*len = raw;
	return 0;
fail:
	p->stored = NULL;
	p->stored_len = 0;
	return err;
}

struct amb_payload *amb_payload_new(void)
{
	return calloc(1, sizeof(struct amb_payload));
}

void amb_payload_free(struct amb_payload *p)
{
	if (!p)
		return;
	ZSTD_freeDCtx(p->dctx);
	amb_sample_codec_free(p->sc);
	amb_big_free(p->in, p->in_map);
	amb_big_free(p->out, p->out_map);
	free(p);
}

int amb_reader_load(struct amb_reader *r, size_t i, struct amb_payload *p,
		    const void **data, size_t *len)
{
	if (!p)
		return -EINVAL;
	if (!r || i >= r->nblocks) {
		snprintf(p->errmsg, sizeof(p->errmsg), "block %zu: no such block", i);
		return -EINVAL;
	}
	return amb_payload_load_block(r, &r->blocks[i], i, p, data, len);
}

int amb_reader_load_stored(struct amb_reader *r, size_t i, struct amb_payload *p,
			   const void **stored, size_t *stored_len, struct amb_block_info *info)
{
	uint64_t checksum;
	int err;

	if (!p)
		return -EINVAL;
	if (!r || i >= r->nblocks) {
		snprintf(p->errmsg, sizeof(p->errmsg), "block %zu: no such block", i);
		return -EINVAL;
	}
	err = payload_read(r, &r->blocks[i], i, p, &checksum);
	if (!err)
		err = payload_precheck(r, &r->blocks[i], i, p);
	if (err) {
		p->stored = NULL;
		p->stored_len = 0;
		return err;
	}
	*info = r->blocks[i];
	info->payload_checksum = checksum;
	*stored = p->stored;
	*stored_len = p->stored_len;
	return 0;
}

const char *amb_payload_errmsg(const struct amb_payload *p)
{
	return p->errmsg;
}

const uint32_t *amb_payload_chains(const struct amb_payload *p, size_t *nr)
{
	*nr = 0;
	return p->sample_loaded ? amb_sample_codec_chains(p->sc, nr) : NULL;
}

const uint8_t *amb_payload_stored(const struct amb_payload *p, size_t *len)
{
	*len = p->stored_len;
	return p->stored;
}
