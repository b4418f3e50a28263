/* SPDX-License-Identifier: MIT */
/*
 * format/format_internal.h - declarations shared by the files of format/.
 *
 * Not installed and not for other modules: record/ and analyze/ use only
 * <amber/format.h>.  Nothing here is exported from libamber-format.so
 * (hidden visibility, no AMB_API).  Test tools, linked statically, may
 * include it to build damaged files.
 */
#ifndef AMB_FORMAT_INTERNAL_H
#define AMB_FORMAT_INTERNAL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include <amber/format.h>

/* Size of the TRAILER block: header plus payload (FORMAT.md §6). */
#define AMB_TRAILER_BLOCK_SIZE (AMB_BLOCK_HDR_SIZE + AMB_TRAILER_PAYLOAD)
/* INDEX payload prefix: entry_size and a reserved u32 (FORMAT.md §6). */
#define AMB_INDEX_PREFIX 8u
/* Cap on the block header length field (FORMAT.md §3). */
#define AMB_BLOCK_HDR_MAX 4096u

/* A block header with every field decoded (FORMAT.md §3). */
struct amb_block_hdr {
	uint16_t header_len;
	uint16_t type;
	uint8_t codec;
	uint8_t flags;
	uint16_t reserved;
	uint32_t stream;
	uint64_t seq;
	uint64_t raw_size;
	uint64_t stored_size;
	uint64_t record_count;
	uint64_t first_time;
	uint64_t last_time;
	uint64_t payload_checksum;
};

/* ---- header.c ------------------------------------------------------------ */

/* Encode @h into the 64-byte version 1.0 file header @buf, checksum included. */
void amb_file_hdr_encode(const struct amb_file_header *h, uint8_t buf[AMB_FILE_HDR_SIZE]);

/*
 * Decode and check the file header in the first @avail bytes of @buf
 * (FORMAT.md §2, §7 step 1).  Returns 0, -AMB_E_TRUNCATED when @avail is
 * shorter than the header, -AMB_E_MAGIC, -AMB_E_VERSION, -AMB_E_CORRUPT
 * (header_len, producer fields) or -AMB_E_HDR_CHECKSUM; @why (may be NULL)
 * receives a message naming the field.
 */
int amb_file_hdr_decode(const uint8_t *buf, size_t avail, struct amb_file_header *h,
			char *why, size_t why_len);

/* Encode @h as an 80-byte block header into @buf and checksum it. */
void amb_block_hdr_encode(const struct amb_block_hdr *h, uint8_t buf[AMB_BLOCK_HDR_SIZE]);

/*
 * Decode and check the block header at the start of the @avail bytes of @buf
 * (FORMAT.md §3, §7 step 4): magic, header_len, header checksum (before any
 * other field is trusted), reserved, the size caps and first_time <=
 * last_time.  Returns 0, -AMB_E_TRUNCATED when @avail does not hold the
 * header, or the -AMB_E_* of the first broken rule with a message in @why
 * (may be NULL).
 */
int amb_block_hdr_decode(const uint8_t *buf, size_t avail, struct amb_block_hdr *h,
			 char *why, size_t why_len);

/* Fill @bi from the decoded header @h found at @offset. */
void amb_block_info_from_hdr(struct amb_block_info *bi, const struct amb_block_hdr *h,
			     uint64_t offset);

/* Encode @bi as one 64-byte INDEX entry (FORMAT.md §6) into @buf. */
void amb_index_entry_encode(const struct amb_block_info *bi, uint8_t buf[AMB_INDEX_ENTRY_SIZE]);
/* Decode one INDEX entry; @buf holds at least AMB_INDEX_ENTRY_SIZE bytes. */
void amb_index_entry_decode(const uint8_t *buf, struct amb_block_info *bi);

/* XXH3-64, seed 0, of @len bytes: the one checksum of the format (§1). */
uint64_t amb_checksum(const void *p, size_t len);

/* GCC on x86-64 builds an AVX2 copy of XXH3 (checksum_x86.c), which
 * amb_checksum() uses where the CPU has AVX2. */
#if defined(__x86_64__) && defined(__GNUC__) && !defined(__clang__)
#define AMB_CHECKSUM_AVX2 1
uint64_t amb_checksum_avx2(const void *p, size_t len);
#else
#define AMB_CHECKSUM_AVX2 0
#endif

/* ---- io (header.c) ------------------------------------------------------- */

/* pread exactly @n bytes at @off, retrying on EINTR and short reads.
 * Returns the number of bytes read (< @n only at end of file) or -errno. */
ssize_t amb_pread_full(int fd, void *buf, size_t n, uint64_t off);

/* ---- opts.c: the library's side of AMB_OPTS (<amber/common.h>) ------------ */

/* Offset of the first byte after @field of struct @type. */
#define amb_offsetofend(type, field) (offsetof(type, field) + sizeof(((type *)0)->field))

/*
 * Each options struct names its last field in a macro `<type>__last_field`
 * next to the code that reads it (libbpf's pattern): the fields this
 * library knows end there.  AMB_OPTS_LAST_CHECK(type) fails the build when
 * a field was added after it without moving the macro.
 */
#define AMB_OPTS_KNOWN(type) amb_offsetofend(struct type, type##__last_field)
#define AMB_OPTS_LAST_CHECK(type)                                            \
	_Static_assert(sizeof(struct type) - AMB_OPTS_KNOWN(type) < _Alignof(struct type), \
		       #type "__last_field is not the last field of struct " #type)

/*
 * Whether the caller's options @opts (NULL: all defaults) may be used:
 * their sz holds at least the sz field and at most 4096 bytes, and every
 * byte past the @known bytes this library knows is zero.  Reports the
 * first broken rule naming @type through amb_warn().
 */
bool amb_opts_valid(const void *opts, size_t known, const char *type);
#define AMB_OPTS_VALID(opts, type) amb_opts_valid((opts), AMB_OPTS_KNOWN(type), "struct " #type)

/* The options structs of <amber/format.h>. */
#define amb_writer_opts__last_field ring_codec
AMB_OPTS_LAST_CHECK(amb_writer_opts);
#define amb_copy_opts__last_field ring_join
AMB_OPTS_LAST_CHECK(amb_copy_opts);

/* Whether the caller's struct @opts (not NULL) holds @field. */
#define AMB_OPTS_HAS(opts, field) \
	((opts)->sz >= amb_offsetofend(__typeof__(*(opts)), field))
/* @opts->field when @opts holds it, @fallback when @opts is NULL or too short. */
#define AMB_OPTS_GET(opts, field, fallback) \
	((opts) && AMB_OPTS_HAS(opts, field) ? (opts)->field : (fallback))

/* ---- screen.c: what a reader keeps of the blocks it found (FORMAT.md §7) -- */

/* Budgets of the small (metadata) blocks: a block may decode to at most
 * AMB_SMALL_RATIO_MAX times its stored size plus AMB_SMALL_SLACK, and all
 * that a reader keeps adds up to at most AMB_SMALL_TOTAL_MAX. */
#define AMB_SMALL_RATIO_MAX 256u
#define AMB_SMALL_SLACK     (64u << 10)
#define AMB_SMALL_TOTAL_MAX (128u << 20)

/* Whether blocks of @type are small ones: META, EVENT_ATTR, BUILDID,
 * TRACEFS, KSYMS, TOPOLOGY, COUNTS. */
bool amb_block_is_small(unsigned type);

/* Told each block amb_blocks_screen() leaves out or doubts: its position
 * @block, @offset, the -AMB_E_* and a message naming both. */
typedef void (*amb_screen_problem_fn)(void *ctx, uint64_t block, uint64_t offset, int err,
				      const char *msg);

/* What amb_blocks_screen() says of a block. */
enum amb_screen_verdict {
	AMB_SCREEN_KEEP = 0,
	AMB_SCREEN_CLASH,    /* kept, but an earlier, different block has its seq */
	AMB_SCREEN_COPY,     /* a copy of an earlier block */
	AMB_SCREEN_BOMB,     /* a small block over its decoding ratio */
	AMB_SCREEN_BUDGET,   /* a small block past the total budget */
};

/*
 * Screen the @n blocks @v found in a file: a copy of an earlier block
 * (same seq and description), a small block over its decoding ratio or
 * past the total budget are reported through @problem, as are two
 * different blocks sharing a seq (both kept).  With @verdict NULL those
 * blocks are left out, in place, and *@n becomes the number kept; else
 * nothing is left out and @verdict[i] (*@n of them) says what block i
 * is (enum amb_screen_verdict).  Returns 0 or -ENOMEM (@v half screened).
 */
int amb_blocks_screen(struct amb_block_info *v, size_t *n, uint8_t *verdict,
		      amb_screen_problem_fn problem, void *ctx);

/* ---- reader.c, load.c ----------------------------------------------------- */

/* An open file: reader.c fills it (header, blocks, problems), load.c
 * reads blocks through it. */
struct amb_reader {
	int fd;
	unsigned flags;
	uint64_t file_size;
	uint64_t data_end;
	struct amb_file_header hdr;
	bool indexed;
	struct amb_block_info *blocks;
	size_t nblocks, blocks_cap;
	struct amb_problem *problems;
	size_t nproblems, problems_cap;
	bool hdr_damaged;      /* amb_reader_open_salvage(): the header did not check */
	uint64_t max_raw, max_stored; /* of the blocks listed (load.c's buffers) */
};

/*
 * load.c: read block @bi (numbered @i, for messages; @bi need not be in
 * the list yet, as the INDEX block while the index is read) into @p and
 * decode it, as amb_reader_load() does.  *@data and *@len point into @p
 * until its next load.  Errors as amb_reader_load(), the message in
 * amb_payload_errmsg(@p).
 */
int amb_payload_load_block(struct amb_reader *r, const struct amb_block_info *bi, size_t i,
			   struct amb_payload *p, const void **data, size_t *len);

/*
 * Like amb_reader_open(), and on a fatal file header error also a message
 * naming the field in @why ("file header: bad magic ...").
 */
int amb_reader_open_msg(const char *path, unsigned flags, struct amb_reader **out,
			char *why, size_t why_len);

/*
 * For verify: amb_reader_open_msg() with AMB_READ_SCAN, and every block
 * found listed: none is screened out (amb_blocks_screen()), so the caller
 * can screen them itself and see all; a damaged file header is a problem
 * (the first), as in amb_reader_open_salvage(), and the blocks are still
 * found.
 */
int amb_reader_open_all(const char *path, struct amb_reader **out, char *why, size_t why_len);

/*
 * For salvage (FORMAT.md §7, "Salvaging"): amb_reader_open() with
 * AMB_READ_SCAN, except that a file header that fails its checks is a
 * problem, not an error: its fields are kept where they are plausible
 * (producer fields zero where not, for the caller to infer), and blocks
 * are scanned from header_len when a block starts there, else from the
 * first valid block header in the file; amb_reader_header() then has
 * header_len set to that offset.  *@damaged says whether this happened.
 */
int amb_reader_open_salvage(const char *path, struct amb_reader **out, bool *damaged);

/* The stored (still encoded) payload of the last successful load into @p. */
const uint8_t *amb_payload_stored(const struct amb_payload *p, size_t *len);

/* Offset just past the last readable block (file header end if none). */
uint64_t amb_reader_data_end(const struct amb_reader *r);

/* ---- codec_sample.c: codec 2, perf samples in columns (FORMAT.md §4.1) ---- */

#define AMB_SAMPLE_HDR_SIZE 64u      /* payload header written by version 1 */
#define AMB_SAMPLE_COLUMNS  16u      /* columns of version 1 */
#define AMB_SAMPLE_STREAMS  (2 * AMB_SAMPLE_COLUMNS)  /* two streams a column */
/* Cap on the decoded streams of a block of @raw bytes, all together. */
#define AMB_SAMPLE_STREAMS_MAX(raw) (2 * (uint64_t)(raw) + 65536)
#define AMB_SAMPLE_BRANCH_HW_INDEX 1u /* layout flag: branch stacks carry hw_idx */

/* What the codec needs to find the fields of a sample (FORMAT.md §4.1). */
struct amb_sample_layout {
	uint64_t sample_type;        /* perf_event_attr.sample_type */
	uint64_t read_format;        /* with PERF_SAMPLE_READ, else 0 */
	uint64_t regs_user;          /* sample_regs_user, with PERF_SAMPLE_REGS_USER */
	uint64_t regs_intr;          /* sample_regs_intr, with PERF_SAMPLE_REGS_INTR */
	uint8_t byte_order;          /* enum amb_endian of the records */
	uint8_t flags;               /* AMB_SAMPLE_BRANCH_HW_INDEX */
};

/*
 * Fill @l from the perf_event_attr of @size bytes at @attr, in byte order
 * @endian (enum amb_endian).  Returns 0, -EINVAL for a bad @endian, or
 * -ENOTSUP when sample_type or read_format has bits the codec does not
 * know (then it cannot be used).
 */
int amb_sample_layout_from_attr(struct amb_sample_layout *l, const uint8_t *attr, uint32_t size,
				uint8_t endian);

/* Encoder and decoder state, reused from block to block by one thread. */
struct amb_sample_codec;
struct amb_sample_codec *amb_sample_codec_new(void);
void amb_sample_codec_free(struct amb_sample_codec *c);

/*
 * Encode the @len bytes of whole perf records at @data (a RING payload) as
 * a codec 2 payload with layout @l, columns compressed with zstd at @level
 * (0: stored), into @out, replacing its content.  Returns 0; -EINVAL when
 * @data does not hold whole records; -E2BIG when the columns would exceed
 * their cap; -ENOMEM.
 */
int amb_sample_encode(struct amb_sample_codec *c, const struct amb_sample_layout *l, int level,
		      const void *data, size_t len, struct amb_buf *out);

/*
 * Decode the codec 2 payload of @stored_len bytes at @stored into @out,
 * which holds exactly @raw_size bytes.  Returns 0, -ENOMEM,
 * -AMB_E_DECOMPRESS when the payload breaks a rule of FORMAT.md §4.1 or
 * does not decode to @raw_size bytes, or -AMB_E_PAYLOAD_CHECKSUM when what
 * it decodes to does not have its checksum; @why (may be NULL) then says
 * what.
 */
int amb_sample_decode(struct amb_sample_codec *c, const void *stored, size_t stored_len,
		      void *out, size_t raw_size, char *why, size_t why_len);

/*
 * The chains of the records the last successful amb_sample_decode() wrote:
 * entry k is for its k-th record, the index in the block's chain list
 * (FORMAT.md §4.1) of a sample's call chain, UINT32_MAX for a record
 * without one.  Two samples of the block with the same index have the
 * same chain.  *@nr is the number of records; NULL and 0 before a good
 * decode.  The array belongs to @c and lasts until its next decode.
 */
const uint32_t *amb_sample_codec_chains(const struct amb_sample_codec *c, size_t *nr);

/* What the last amb_sample_encode() made (benchmarks and tests). */
struct amb_sample_stats {
	uint64_t records, samples, verbatim;
	uint64_t chains_new, nodes;
	size_t stream_raw[AMB_SAMPLE_STREAMS], stream_stored[AMB_SAMPLE_STREAMS];
};
void amb_sample_codec_stats(const struct amb_sample_codec *c, struct amb_sample_stats *st);

#endif /* AMB_FORMAT_INTERNAL_H */
