// SPDX-License-Identifier: MIT
/*
 * format/header.c - encode, decode and check the file header (FORMAT.md §2),
 * block headers (§3) and INDEX entries (§6); the checksum and pread helper
 * every other file of format/ uses.
 */
#include "format/format_internal.h"

#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include <xxhash.h>

#include <amber/common.h>

uint64_t amb_checksum(const void *p, size_t len)
{
#if AMB_CHECKSUM_AVX2
	if (__builtin_cpu_supports("avx2"))
		return amb_checksum_avx2(p, len);
#endif
	return XXH3_64bits(p, len);
}

ssize_t amb_pread_full(int fd, void *buf, size_t n, uint64_t off)
{
	size_t done = 0;

	if (off > (uint64_t)INT64_MAX - n)
		return -EOVERFLOW;
	while (done < n) {
		ssize_t k = pread(fd, (uint8_t *)buf + done, n - done, (off_t)(off + done));

		if (k < 0) {
			if (errno == EINTR)
				continue;
			return -errno;
		}
		if (k == 0)
			break;
		done += (size_t)k;
	}
	return (ssize_t)done;
}

static void set_why(char *why, size_t why_len, const char *fmt, ...) AMB_PRINTF(3, 4);
static void set_why(char *why, size_t why_len, const char *fmt, ...)
{
	va_list ap;

	if (!why || !why_len)
		return;
	va_start(ap, fmt);
	vsnprintf(why, why_len, fmt, ap);
	va_end(ap);
}

void amb_file_hdr_encode(const struct amb_file_header *h, uint8_t buf[AMB_FILE_HDR_SIZE])
{
	memset(buf, 0, AMB_FILE_HDR_SIZE);
	memcpy(buf, AMB_FILE_MAGIC, 8);
	amb_put_le16(buf + 8, h->major);
	amb_put_le16(buf + 10, h->minor);
	amb_put_le32(buf + 12, AMB_FILE_HDR_SIZE);
	buf[16] = h->producer_endian;
	buf[17] = h->producer_word_size;
	amb_put_le16(buf + 18, h->producer_machine);
	amb_put_le32(buf + 20, h->flags);
	memcpy(buf + 24, h->uuid, 16);
	amb_put_le64(buf + 40, h->created_ns);
	/* offset 48: reserved, zero */
	amb_put_le64(buf + AMB_FILE_HDR_SIZE - 8, amb_checksum(buf, AMB_FILE_HDR_SIZE - 8));
}

int amb_file_hdr_decode(const uint8_t *buf, size_t avail, struct amb_file_header *h,
			char *why, size_t why_len)
{
	uint64_t stored, computed;
	uint32_t hlen;

	/* FORMAT.md §7 step 1: magic, major, header_len, checksum, in order. */
	if (memcmp(buf, AMB_FILE_MAGIC, AMB_MIN(avail, 8)) != 0) {
		set_why(why, why_len, "file header: bad magic (not an .amber file)");
		return -AMB_E_MAGIC;
	}
	if (avail < 16) {
		set_why(why, why_len, "file header: truncated: file is %zu bytes, header needs %u",
			avail, AMB_FILE_HDR_SIZE);
		return -AMB_E_TRUNCATED;
	}
	h->major = amb_get_le16(buf + 8);
	h->minor = amb_get_le16(buf + 10);
	if (h->major != AMB_FORMAT_MAJOR) {
		set_why(why, why_len, "file header: unsupported major version %u (this reader knows %u)",
			h->major, AMB_FORMAT_MAJOR);
		return -AMB_E_VERSION;
	}
	hlen = amb_get_le32(buf + 12);
	if (hlen < AMB_FILE_HDR_SIZE || hlen > AMB_FILE_HDR_MAX || hlen % 8) {
		set_why(why, why_len, "file header: header_len %u outside [%u, %u] or not a multiple of 8",
			hlen, AMB_FILE_HDR_SIZE, AMB_FILE_HDR_MAX);
		return -AMB_E_CORRUPT;
	}
	if (avail < hlen) {
		set_why(why, why_len, "file header: truncated: file is %zu bytes, header needs %u",
			avail, hlen);
		return -AMB_E_TRUNCATED;
	}
	stored = amb_get_le64(buf + hlen - 8);
	computed = amb_checksum(buf, hlen - 8);
	if (stored != computed) {
		set_why(why, why_len,
			"file header: checksum mismatch (stored 0x%016llx, computed 0x%016llx)",
			(unsigned long long)stored, (unsigned long long)computed);
		return -AMB_E_HDR_CHECKSUM;
	}
	h->header_len = hlen;
	h->producer_endian = buf[16];
	h->producer_word_size = buf[17];
	h->producer_machine = amb_get_le16(buf + 18);
	h->flags = amb_get_le32(buf + 20);
	memcpy(h->uuid, buf + 24, 16);
	h->created_ns = amb_get_le64(buf + 40);
	if (h->producer_endian != AMB_ENDIAN_LITTLE && h->producer_endian != AMB_ENDIAN_BIG) {
		set_why(why, why_len, "file header: producer_endian %u is neither 1 (little) nor 2 (big)",
			h->producer_endian);
		return -AMB_E_CORRUPT;
	}
	if (h->producer_word_size != 4 && h->producer_word_size != 8) {
		set_why(why, why_len, "file header: producer_word_size %u is neither 4 nor 8",
			h->producer_word_size);
		return -AMB_E_CORRUPT;
	}
	if (amb_get_le64(buf + 48) != 0) {
		set_why(why, why_len, "file header: reserved field at offset 48 is not zero");
		return -AMB_E_RESERVED;
	}
	return 0;
}

void amb_block_hdr_encode(const struct amb_block_hdr *h, uint8_t buf[AMB_BLOCK_HDR_SIZE])
{
	amb_put_le32(buf, AMB_BLOCK_MAGIC);
	amb_put_le16(buf + 4, AMB_BLOCK_HDR_SIZE);
	amb_put_le16(buf + 6, h->type);
	buf[8] = h->codec;
	buf[9] = h->flags;
	amb_put_le16(buf + 10, h->reserved);
	amb_put_le32(buf + 12, h->stream);
	amb_put_le64(buf + 16, h->seq);
	amb_put_le64(buf + 24, h->raw_size);
	amb_put_le64(buf + 32, h->stored_size);
	amb_put_le64(buf + 40, h->record_count);
	amb_put_le64(buf + 48, h->first_time);
	amb_put_le64(buf + 56, h->last_time);
	amb_put_le64(buf + 64, h->payload_checksum);
	amb_put_le64(buf + 72, amb_checksum(buf, 72));
}

int amb_block_hdr_decode(const uint8_t *buf, size_t avail, struct amb_block_hdr *h,
			 char *why, size_t why_len)
{
	uint64_t stored, computed;
	uint8_t magic[4];
	uint16_t hlen;

	amb_put_le32(magic, AMB_BLOCK_MAGIC);
	if (memcmp(buf, magic, AMB_MIN(avail, sizeof(magic))) != 0) {
		set_why(why, why_len, "bad block magic (no block starts here)");
		return -AMB_E_MAGIC;
	}
	if (avail < 6) {
		set_why(why, why_len, "torn: header ends beyond end of file");
		return -AMB_E_TRUNCATED;
	}
	hlen = amb_get_le16(buf + 4);
	if (hlen < AMB_BLOCK_HDR_SIZE || hlen > AMB_BLOCK_HDR_MAX || hlen % 8) {
		set_why(why, why_len, "header_len %u outside [%u, %u] or not a multiple of 8",
			hlen, AMB_BLOCK_HDR_SIZE, AMB_BLOCK_HDR_MAX);
		return -AMB_E_CORRUPT;
	}
	if (avail < hlen) {
		set_why(why, why_len, "torn: header ends beyond end of file");
		return -AMB_E_TRUNCATED;
	}
	/* §3: the header checksum is checked before any other field is trusted. */
	stored = amb_get_le64(buf + hlen - 8);
	computed = amb_checksum(buf, hlen - 8u);
	if (stored != computed) {
		set_why(why, why_len, "header checksum mismatch (stored 0x%016llx, computed 0x%016llx)",
			(unsigned long long)stored, (unsigned long long)computed);
		return -AMB_E_HDR_CHECKSUM;
	}
	h->header_len = hlen;
	h->type = amb_get_le16(buf + 6);
	h->codec = buf[8];
	h->flags = buf[9];
	h->reserved = amb_get_le16(buf + 10);
	h->stream = amb_get_le32(buf + 12);
	h->seq = amb_get_le64(buf + 16);
	h->raw_size = amb_get_le64(buf + 24);
	h->stored_size = amb_get_le64(buf + 32);
	h->record_count = amb_get_le64(buf + 40);
	h->first_time = amb_get_le64(buf + 48);
	h->last_time = amb_get_le64(buf + 56);
	h->payload_checksum = amb_get_le64(buf + 64);
	if (h->reserved) {
		set_why(why, why_len, "reserved field is 0x%04x, not zero", h->reserved);
		return -AMB_E_RESERVED;
	}
	if (h->raw_size > AMB_BLOCK_RAW_MAX) {
		set_why(why, why_len, "raw_size %llu over the cap of %u",
			(unsigned long long)h->raw_size, AMB_BLOCK_RAW_MAX);
		return -AMB_E_TOO_BIG;
	}
	if (h->stored_size > AMB_BLOCK_STORED_MAX) {
		set_why(why, why_len, "stored_size %llu over the cap of %u",
			(unsigned long long)h->stored_size, AMB_BLOCK_STORED_MAX);
		return -AMB_E_TOO_BIG;
	}
	if (h->last_time < h->first_time) {
		set_why(why, why_len, "last_time %llu before first_time %llu",
			(unsigned long long)h->last_time, (unsigned long long)h->first_time);
		return -AMB_E_CORRUPT;
	}
	return 0;
}

void amb_block_info_from_hdr(struct amb_block_info *bi, const struct amb_block_hdr *h,
			     uint64_t offset)
{
	memset(bi, 0, sizeof(*bi));
	bi->seq = h->seq;
	bi->offset = offset;
	bi->raw_size = h->raw_size;
	bi->stored_size = h->stored_size;
	bi->record_count = h->record_count;
	bi->first_time = h->first_time;
	bi->last_time = h->last_time;
	bi->stream = h->stream;
	bi->type = h->type;
	bi->codec = h->codec;
	bi->flags = h->flags;
}

void amb_index_entry_encode(const struct amb_block_info *bi, uint8_t buf[AMB_INDEX_ENTRY_SIZE])
{
	amb_put_le64(buf, bi->offset);
	amb_put_le64(buf + 8, bi->seq);
	amb_put_le16(buf + 16, bi->type);
	buf[18] = bi->codec;
	buf[19] = bi->flags;
	amb_put_le32(buf + 20, bi->stream);
	amb_put_le64(buf + 24, bi->raw_size);
	amb_put_le64(buf + 32, bi->stored_size);
	amb_put_le64(buf + 40, bi->record_count);
	amb_put_le64(buf + 48, bi->first_time);
	amb_put_le64(buf + 56, bi->last_time);
}

void amb_index_entry_decode(const uint8_t *buf, struct amb_block_info *bi)
{
	memset(bi, 0, sizeof(*bi));
	bi->offset = amb_get_le64(buf);
	bi->seq = amb_get_le64(buf + 8);
	bi->type = amb_get_le16(buf + 16);
	bi->codec = buf[18];
	bi->flags = buf[19];
	bi->stream = amb_get_le32(buf + 20);
	bi->raw_size = amb_get_le64(buf + 24);
	bi->stored_size = amb_get_le64(buf + 32);
	bi->record_count = amb_get_le64(buf + 40);
	bi->first_time = amb_get_le64(buf + 48);
	bi->last_time = amb_get_le64(buf + 56);
}
