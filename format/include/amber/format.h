/* SPDX-License-Identifier: MIT */
/*
 * <amber/format.h> - read and write .amber recordings (format/ of amber).
 *
 * The normative description of the bytes is docs/FORMAT.md; section numbers
 * below ("FORMAT.md §3") point into it.  Installed as <amber/format.h> with
 * libamber-format (.so and .a, `pkg-config amber-format`); it needs only
 * <amber/common.h>, installed next to it, and the C library, and compiles
 * as C99 and as C++.
 *
 * Conventions:
 *  - Functions return 0 (or a count) on success and a negative error code on
 *    failure: -errno for system errors, -AMB_E_* for format errors.
 *    amb_strerror() names both.
 *  - Functions never print and never exit; warnings go through the callback
 *    installed with amb_set_warn() (<amber/common.h>).
 *  - Options structs carry their size (AMB_OPTS, <amber/common.h>).
 *  - The caller owns what it passes in; pointers returned into a reader
 *    or payload stay valid as long as that object (or until the next load
 *    into the payload), as said at each function.
 *  - A file is untrusted input: no length field makes the reader allocate
 *    more than the caps below.
 */
#ifndef AMB_FORMAT_H
#define AMB_FORMAT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <amber/common.h>

#ifdef __cplusplus
extern "C" {
#endif

#define AMB_FORMAT_MAJOR 1
#define AMB_FORMAT_MINOR 0

#define AMB_FILE_MAGIC       "\x89" "AMBER\r\n"  /* 8 bytes, FORMAT.md §2 */
#define AMB_FILE_HDR_SIZE    64u                  /* header size written by 1.0 */
#define AMB_FILE_HDR_MAX     4096u                /* cap on header_len */
#define AMB_BLOCK_MAGIC      0x4b424d41u          /* "AMBK" little-endian */
#define AMB_BLOCK_HDR_SIZE   80u                  /* FORMAT.md §3 */
#define AMB_BLOCK_RAW_MAX    (256u << 20)         /* cap on a block's raw size */
#define AMB_BLOCK_STORED_MAX (AMB_BLOCK_RAW_MAX + (1u << 20))
#define AMB_INDEX_ENTRY_SIZE 64u
#define AMB_TRAILER_PAYLOAD  24u
#define AMB_STREAM_NONE      0xffffffffu          /* block not tied to a CPU */
#define AMB_DEFAULT_ZSTD_LEVEL 3
#define AMB_SMALL_BLOCK      64u                  /* raw sizes below stay uncompressed */

/* Block types, FORMAT.md §5.  New types bump the minor version. */
enum amb_block_type {
	AMB_BLOCK_META       = 1,  /* recording metadata, key/values */
	AMB_BLOCK_EVENT_ATTR = 2,  /* perf_event_attr + name + sample ids */
	AMB_BLOCK_RING       = 3,  /* raw perf records of one CPU ring */
	AMB_BLOCK_SYNTH      = 4,  /* synthesized perf records */
	AMB_BLOCK_BUILDID    = 5,  /* build-id table */
	AMB_BLOCK_TRACEFS    = 6,  /* tracefs header/format files, key/values */
	AMB_BLOCK_KSYMS      = 7,  /* kernel symbols, /proc/kallsyms text */
	AMB_BLOCK_TOPOLOGY   = 8,  /* CPU/NUMA/cache topology, key/values */
	AMB_BLOCK_COUNTS     = 9,  /* counter reads */
	AMB_BLOCK_FILE       = 10, /* embedded file (ELF, debuginfo) or part */
	AMB_BLOCK_INDEX      = 11, /* index of all earlier blocks */
	AMB_BLOCK_TRAILER    = 12, /* points at the index; last in the file */
	AMB_BLOCK_TYPE_MAX_KNOWN = 12,
};

/* Name of a block type ("ring", "meta", ...), or "unknown". */
AMB_API const char *amb_block_type_name(unsigned type);

/* Payload codecs, FORMAT.md §4. */
enum amb_codec {
	AMB_CODEC_NONE   = 0,  /* the raw bytes */
	AMB_CODEC_ZSTD   = 1,  /* one zstd frame */
	AMB_CODEC_SAMPLE = 2,  /* RING blocks: perf samples in columns (§4.1) */
};

/* Producer byte order, file header offset 16 (FORMAT.md §2). */
enum amb_endian {
	AMB_ENDIAN_LITTLE = 1,
	AMB_ENDIAN_BIG    = 2,
};

/* Format error codes; returned negated.  Stable: never renumber. */
enum amb_error {
	AMB_E_BASE = 4000,
	AMB_E_MAGIC = AMB_E_BASE,   /* not an .amber file */
	AMB_E_VERSION,              /* unsupported major version */
	AMB_E_HDR_CHECKSUM,         /* file or block header checksum mismatch */
	AMB_E_PAYLOAD_CHECKSUM,     /* block payload checksum mismatch */
	AMB_E_TRUNCATED,            /* data ends inside a header or payload */
	AMB_E_TOO_BIG,              /* a length exceeds its documented cap */
	AMB_E_CODEC,                /* unknown codec */
	AMB_E_DECOMPRESS,           /* codec failed or produced the wrong size */
	AMB_E_RESERVED,             /* a reserved field is not zero */
	AMB_E_CORRUPT,              /* any other structural rule broken */
	AMB_E_NO_TRAILER,           /* no valid trailer (recording not closed) */
	AMB_E_INDEX,                /* index disagrees with the blocks */
	AMB_E_END,
};

/* Message for a negative return value (-errno or -AMB_E_*). Never NULL. */
AMB_API const char *amb_strerror(int err);

/* ---- file header --------------------------------------------------------- */

/* The decoded file header (FORMAT.md §2). */
struct amb_file_header {
	uint16_t major, minor;
	uint32_t header_len;
	uint8_t producer_endian;    /* enum amb_endian of the raw perf records */
	uint8_t producer_word_size; /* 4 or 8 */
	uint16_t producer_machine;  /* ELF e_machine of the producer (62 = x86_64) */
	uint32_t flags;             /* none defined in 1.0 */
	uint8_t uuid[16];           /* recording UUID (random, version 4) */
	uint64_t created_ns;        /* CLOCK_REALTIME at creation, ns since epoch */
};

/* ---- writer -------------------------------------------------------------- */

enum amb_sync {
	AMB_SYNC_NONE  = 0, /* leave flushing to the kernel */
	AMB_SYNC_BLOCK = 1, /* fdatasync after every block */
	AMB_SYNC_CLOSE = 2, /* fdatasync once, at close */
};

/* The most background threads a writer takes (amb_writer_opts.threads). */
#define AMB_WRITER_THREADS_MAX 256

/*
 * Options of amb_writer_open(); declare them with
 * AMB_OPTS(amb_writer_opts, o, .field = value, ...).  A field the caller's
 * struct does not hold (sz too small), or every field when the options
 * are NULL, takes the default in brackets; a field that is there is used
 * as it is, so a zeroed zstd_level means "store raw".
 */
struct amb_writer_opts {
	size_t sz;                  /* sizeof(struct amb_writer_opts) */
	int zstd_level;             /* 1..22, 0 = store raw [AMB_DEFAULT_ZSTD_LEVEL] */
	enum amb_sync sync;         /* [AMB_SYNC_NONE] */
	/*
	 * 0: amb_writer_append() compresses and writes on the caller's thread.
	 * N (1..AMB_WRITER_THREADS_MAX): N background threads compress, each
	 * a block at a time, and write; append only queues.  The blocks reach
	 * the file in append order, and the file is the same, byte for byte,
	 * whatever N.  Each thread holds its own zstd state (about 80 MiB at
	 * level 19) and a block or two.  [0]
	 */
	int threads;
	size_t max_queued;          /* bytes queued before append waits; 0 = [64 MiB] */
	uint8_t producer_endian;    /* enum amb_endian; 0 = [host byte order] */
	uint8_t producer_word_size; /* 4 or 8; 0 = [sizeof(long)] */
	uint16_t producer_machine;  /* ELF e_machine; 0 = [host's] */
	const uint8_t *uuid;        /* 16 bytes, copied; NULL = [a random one] */
	uint64_t created_ns;        /* file header created_ns; 0 = [now] */
	/*
	 * Codec of RING blocks: 0 or AMB_CODEC_ZSTD = [zstd, as every block];
	 * AMB_CODEC_SAMPLE = the sample codec (FORMAT.md §4.1), its columns
	 * compressed at zstd_level.  It finds the samples' fields with the
	 * layout of the first EVENT_ATTR entry appended before the block (its
	 * sample_type, read_format and register masks); a RING block appended
	 * before any, or in which no sample fits that layout, gets zstd.
	 * Each encoded block is decoded again and compared before it is
	 * written; one that does not come back identical gets zstd too.
	 */
	unsigned ring_codec;
};

/* What one block says about its payload (FORMAT.md §3). */
struct amb_block_desc {
	uint16_t type;           /* enum amb_block_type */
	uint32_t stream;         /* CPU number, or AMB_STREAM_NONE */
	uint64_t record_count;
	uint64_t first_time;     /* 0 when the payload has no timestamps */
	uint64_t last_time;
};

struct amb_writer;

/*
 * Create @path (O_EXCL, mode 0600: a recording can hold memory of the
 * target), write the file header and return the writer in *out (NULL on
 * error).  @opts may be NULL for defaults; it is not used after the call.
 * Errors: -EEXIST when @path exists (callers decide whether to move it away),
 * -EINVAL for invalid options (sz, a value out of range, non-zero bytes
 * past the fields this library knows), other -errno from open/write,
 * -ENOMEM.  The file is removed again when an error follows its creation.
 * Free with amb_writer_close().
 */
AMB_API int amb_writer_open(const char *path, const struct amb_writer_opts *opts,
			    struct amb_writer **out);

/*
 * Like amb_writer_open(), but write into @fd, which the caller opened: an
 * empty regular file open for writing (the caller chose how to create it
 * and may keep a dup() of it, to find and read the recording later), or
 * a device such as /dev/null.  The writer owns @fd from this call on,
 * also when it fails, and closes it in amb_writer_close().  Blocks are
 * written at offsets from 0 (pwrite), so @fd must allow that.  Errors as
 * amb_writer_open(), and -EBADF for a negative @fd.
 */
AMB_API int amb_writer_open_fd(int fd, const struct amb_writer_opts *opts,
			       struct amb_writer **out);

/*
 * Append one block described by @d with the @len bytes at @data as its
 * raw payload; the payload is copied.  With threads = 0 the block is on
 * disk (modulo sync policy) when this returns; with threads > 0 it is
 * queued, and blocks reach the disk in append order.
 * Thread-safe: several threads may append to one writer.
 * Errors: -EINVAL for type 0, INDEX or TRAILER or last_time < first_time,
 * -E2BIG for a payload over AMB_BLOCK_RAW_MAX, -ENOMEM; the first write
 * error of the writer (for example -ENOSPC) once one has happened: after
 * it no further block is written, and the file ends at the last complete
 * block.
 */
AMB_API int amb_writer_append(struct amb_writer *w, const struct amb_block_desc *d,
			      const void *data, size_t len);
/*
 * Like amb_writer_append(), but the writer takes @data over instead of
 * copying it: it must come from malloc() and is freed by the writer, also
 * when an error is returned.
 */
AMB_API int amb_writer_append_owned(struct amb_writer *w, const struct amb_block_desc *d,
				    void *data, size_t len);

/*
 * Append a block whose payload is already encoded, as another file stores
 * it (amb_reader_load_stored()): @info gives its type, stream, record
 * count, times, codec, raw_size, stored_size and payload_checksum; its
 * seq and offset are ignored (blocks are numbered anew).  The payload is
 * written as it is, so the codec and the payload checksum are preserved.
 * @stored (@stored_len bytes) is copied when threads > 0.
 * Errors: -EINVAL when @info describes an INDEX or TRAILER block, has
 * last_time < first_time, or its stored_size is not @stored_len, or codec
 * none has stored_size != raw_size; -AMB_E_CODEC for an unknown codec;
 * -E2BIG over AMB_BLOCK_RAW_MAX / AMB_BLOCK_STORED_MAX;
 * -AMB_E_PAYLOAD_CHECKSUM when @stored does not hash to
 * info->payload_checksum (nothing is written); -ENOMEM; the writer's
 * first error, as amb_writer_append().
 */
struct amb_block_info;   /* below, with the reader */
AMB_API int amb_writer_append_stored(struct amb_writer *w, const struct amb_block_info *info,
				     const void *stored, size_t stored_len);

/* Wait until every queued block is written (and synced, with
 * AMB_SYNC_BLOCK).  Returns 0 or the writer's first error.  Thread-safe. */
AMB_API int amb_writer_flush(struct amb_writer *w);

struct amb_writer_stats {
	uint64_t blocks;       /* blocks completely written */
	uint64_t raw_bytes;    /* their payloads' raw bytes */
	uint64_t stored_bytes; /* their payloads' stored bytes */
	uint64_t file_bytes;   /* bytes of the file that are safe */
	uint64_t queued_bytes; /* raw bytes waiting in the queue */
	int error;             /* first error, or 0 */
};

/* Copy a snapshot of the writer's counters into *st; safe from any thread. */
AMB_API void amb_writer_get_stats(struct amb_writer *w, struct amb_writer_stats *st);

/*
 * Flush, write the index and trailer (FORMAT.md §6), sync as asked, close the
 * file and free @w (also on error; NULL is accepted).  Returns 0 or the first
 * error; on error the file still ends at its last complete block, which a
 * reader recovers by scanning.
 */
AMB_API int amb_writer_close(struct amb_writer *w);

/* ---- reader -------------------------------------------------------------- */

/* One block as found in the index or by scanning. */
struct amb_block_info {
	uint64_t seq;          /* block number as written */
	uint64_t offset;       /* file offset of the block header */
	uint64_t raw_size;
	uint64_t stored_size;
	uint64_t record_count;
	uint64_t first_time;
	uint64_t last_time;
	uint32_t stream;
	uint16_t type;
	uint8_t codec;
	uint8_t flags;
	/* XXH3-64 of the stored payload (FORMAT.md §3).  The index does not
	 * record it: only amb_reader_load_stored() fills it in; 0 elsewhere. */
	uint64_t payload_checksum;
};

/* A problem the reader found and stepped over (FORMAT.md §7). */
struct amb_problem {
	uint64_t block;        /* block number (position in the file), or UINT64_MAX */
	uint64_t offset;       /* file offset where the problem is */
	int err;               /* -AMB_E_* or -errno */
	char msg[240];         /* "block 12 at offset 81920: checksum mismatch ..." */
};

enum amb_reader_flags {
	AMB_READ_SCAN   = 1u << 0, /* ignore the index; scan every block header */
	AMB_READ_VERIFY = 1u << 1, /* also check every payload checksum on open */
};

struct amb_reader;

/*
 * Open @path: check the file header, then load the index through the
 * trailer, or (no trailer, a damaged index, or AMB_READ_SCAN) scan block
 * headers forward.  A torn or damaged tail is dropped with a problem
 * recorded; blocks before it stay readable.  Copies of a block, another
 * recording's blocks and small blocks over the budgets are left out, each
 * with a problem (FORMAT.md §7).  @flags is a set of enum amb_reader_flags.  Returns 0
 * with the reader in *out (NULL on error).  Errors: -EINVAL for an unknown
 * flag or a path that is not a regular file or block device, -errno from
 * open/read, -ENOMEM, -AMB_E_MAGIC, -AMB_E_VERSION, -AMB_E_HDR_CHECKSUM,
 * -AMB_E_CORRUPT, -AMB_E_TRUNCATED (file header); with AMB_READ_VERIFY
 * also a read error or -ENOMEM while checking payloads (a damaged payload
 * is a problem, not an error).  Free with amb_reader_close().
 */
AMB_API int amb_reader_open(const char *path, unsigned flags, struct amb_reader **out);
/* Close the file and free @r and everything it handed out (NULL accepted). */
AMB_API void amb_reader_close(struct amb_reader *r);

/* The checked file header, owned by @r. */
AMB_API const struct amb_file_header *amb_reader_header(const struct amb_reader *r);
/* The file size seen at open. */
AMB_API uint64_t amb_reader_file_size(const struct amb_reader *r);

/* True when a valid trailer and index were found and used. */
AMB_API bool amb_reader_indexed(const struct amb_reader *r);

/* Number of readable blocks; INDEX and TRAILER blocks are counted too. */
AMB_API size_t amb_reader_block_count(const struct amb_reader *r);
/* The @i-th block (0 <= @i < count) in file order, owned by @r; NULL for
 * a bad @i. */
AMB_API const struct amb_block_info *amb_reader_block(const struct amb_reader *r, size_t i);

/* Number of problems amb_reader_open() found and stepped over (with
 * AMB_READ_VERIFY, damaged payloads too); loads never add any. */
AMB_API size_t amb_reader_problem_count(const struct amb_reader *r);
/* The @i-th problem, owned by @r and valid until amb_reader_close();
 * NULL for a bad @i. */
AMB_API const struct amb_problem *amb_reader_problem(const struct amb_reader *r, size_t i);

/* Which blocks an iteration visits; fields < 0 / 0 mean "any". */
struct amb_block_filter {
	int type;              /* enum amb_block_type, or -1 */
	int64_t stream;        /* stream id, or -1 */
	uint64_t t0, t1;       /* overlap with [t0, t1]; t1 == 0: no time filter */
};
#define AMB_FILTER_ANY { -1, -1, 0, 0 }

/* Index of the first block >= @from matching @f (NULL: any), or SIZE_MAX. */
AMB_API size_t amb_reader_next(const struct amb_reader *r, const struct amb_block_filter *f,
			       size_t from);

#define amb_reader_for_each_block(r, f, i) \
	for ((i) = amb_reader_next((r), (f), 0); (i) != SIZE_MAX; \
	     (i) = amb_reader_next((r), (f), (i) + 1))

/*
 * Per-thread decode state: a read buffer, an output buffer and a zstd
 * context.  One reader may be loaded from by several threads at once, each
 * with its own amb_payload.
 */
struct amb_payload;
/* A new, empty decode state, or NULL when out of memory.  It is not tied
 * to a reader; free it with amb_payload_free(). */
AMB_API struct amb_payload *amb_payload_new(void);
/* Free @p and the payload it holds (NULL accepted). */
AMB_API void amb_payload_free(struct amb_payload *p);

/*
 * Read block @i, check its payload checksum, decompress it into @p and
 * point *data and *len at the raw payload (valid until the next load into @p).
 * A NUL byte follows the payload (not counted in *len), so text payloads
 * such as KSYMS can be used in place as strings.
 * Errors: -EINVAL for a bad @i, -errno from pread, -AMB_E_TRUNCATED,
 * -AMB_E_PAYLOAD_CHECKSUM, -AMB_E_CODEC, -AMB_E_DECOMPRESS, -ENOMEM.  The
 * message of the last error, naming block and offset, is in
 * amb_payload_errmsg(@p).
 */
AMB_API int amb_reader_load(struct amb_reader *r, size_t i, struct amb_payload *p,
			    const void **data, size_t *len);
/* The message of the last failed load into @p ("" when none), owned by @p
 * and valid until its next load. */
AMB_API const char *amb_payload_errmsg(const struct amb_payload *p);

/*
 * What the codec knew of the call chains of the block last loaded into
 * @p with amb_reader_load(), when that block was of codec 2 (sample,
 * FORMAT.md §4.1): entry k is for the payload's k-th record, the index of
 * its call chain in the block's list of distinct chains, or UINT32_MAX
 * for a record without one.  Two samples of the block with the same index
 * have the same callchain, so an analyzer can tell repeated chains apart
 * without comparing them.  *@nr is the number of records; NULL and 0 for
 * other codecs and after a failed load.  Owned by @p, valid until its
 * next load.
 */
AMB_API const uint32_t *amb_payload_chains(const struct amb_payload *p, size_t *nr);

/*
 * Read block @i and check its payload checksum like amb_reader_load(), but
 * do not decode it: point *stored and *stored_len at the payload as stored
 * (valid until the next load into @p) and copy the block's description,
 * with its payload_checksum, into *info.  The codec is checked without
 * decoding: codec none must have stored_size == raw_size, and a zstd frame
 * that names its content size must name raw_size.  For copying blocks
 * verbatim with amb_writer_append_stored().  Errors as amb_reader_load().
 */
AMB_API int amb_reader_load_stored(struct amb_reader *r, size_t i, struct amb_payload *p,
				   const void **stored, size_t *stored_len,
				   struct amb_block_info *info);

/* ---- copying blocks into a new file ----------------------------------------- */

/*
 * Set the fields of @o that describe a recording - the producer fields,
 * uuid and created_ns - to those of @r's file header, so that a file
 * written with @o describes the same recording as @r's; the other fields
 * are left as they are.  @o must carry its size (AMB_OPTS); only fields
 * within it are written.  The uuid points into @r: open the writer
 * before closing @r.  Returns 0, or -EINVAL when @o is NULL or its sz is
 * invalid (see AMB_OPTS).
 */
AMB_API int amb_writer_opts_from(struct amb_writer_opts *o, const struct amb_reader *r);

enum amb_copy_flags {
	AMB_COPY_SKIP_DAMAGED = 1u << 0, /* leave out, with a warning, blocks that fail to load */
	AMB_COPY_DECODE       = 1u << 1, /* also decode each block before copying it */
	/* Decode each block and append it anew, encoded with the writer's
	 * options (zstd_level, ring_codec) instead of as stored; RING blocks
	 * of a stream are joined (see ring_join). */
	AMB_COPY_RECODE       = 1u << 2,
};

/*
 * Asked before block @i (@bi) is copied: return 1 to copy it, 0 to leave
 * it out, or a negative error to stop the copy with it.  It may append
 * blocks of its own to @w, which then stand where block @i stood.
 */
typedef int (*amb_copy_fn)(void *ctx, struct amb_writer *w, const struct amb_block_info *bi,
			   size_t i);

/*
 * Options of amb_copy_blocks(), declared with AMB_OPTS(amb_copy_opts, o,
 * ...); every field defaults to zero (NULL options: copy every block, stop
 * at the first that does not load).
 */
struct amb_copy_opts {
	size_t sz;             /* sizeof(struct amb_copy_opts) */
	unsigned flags;        /* enum amb_copy_flags */
	amb_copy_fn fn;        /* chooses per block; NULL: copy all */
	void *ctx;             /* passed to @fn */
	/*
	 * With AMB_COPY_RECODE: consecutive RING blocks of one stream are
	 * joined into blocks of up to this many raw bytes (at most
	 * AMB_BLOCK_RAW_MAX), the records of each stream keeping their
	 * order; a joined block takes the place of the block that did not
	 * fit, or comes at the end.  Bigger blocks compress better (each
	 * block is encoded alone) and take more memory to read.  0: [no
	 * joining].
	 */
	size_t ring_join;
};

/*
 * Copy the blocks of @r, INDEX and TRAILER excepted, to @w in file order
 * as stored: same codec, payload bytes and payload checksum, new seq
 * (with AMB_COPY_RECODE: decoded and encoded anew, RING blocks joined).
 * @opts->fn chooses per block.  A block that does not load (checksum,
 * truncation, with AMB_COPY_DECODE also decoding) stops the copy with its
 * error unless the flags have AMB_COPY_SKIP_DAMAGED.  Returns the number
 * of blocks copied, or a negative error: -EINVAL for invalid options
 * (sz, an unknown flag), -ENOMEM, a load error, the writer's first error
 * (-ENOSPC ...), or @fn's.  Blocks copied before an error stay in @w.
 */
AMB_API long amb_copy_blocks(struct amb_reader *r, struct amb_writer *w,
			     const struct amb_copy_opts *opts);

/* ---- verify and salvage ---------------------------------------------------- */

/* Called once per problem found by amb_verify(), with @ctx as given to it;
 * @pb is valid during the call only.  Return nonzero to stop verifying. */
typedef int (*amb_problem_fn)(void *ctx, const struct amb_problem *pb);

/* What amb_verify() found. */
struct amb_verify_stats {
	uint64_t blocks_ok;    /* blocks whose header and payload are intact */
	uint64_t blocks_bad;
	uint64_t problems;
	uint64_t tail_bytes;   /* bytes after the last readable block */
	bool has_trailer;
	bool index_ok;
};

/*
 * Check every structural rule and checksum of @path (FORMAT.md §7): file
 * header, every block header and payload (decompressing each), sequence
 * numbers, the index against the blocks, the trailer.  Each problem goes to
 * @cb (NULL: only counted) with @ctx; *@st (may be NULL) receives the
 * counts.  Returns the number of problems (0 = clean), or a negative error
 * when the file cannot be read at all: -errno from open/read, -ENOMEM,
 * or the file header's -AMB_E_*.
 */
AMB_API int amb_verify(const char *path, amb_problem_fn cb, void *ctx,
		       struct amb_verify_stats *st);

/*
 * Write to @out (which must not exist) a new valid file holding every intact
 * block of @in, in order, renumbered, with a fresh index and trailer; the
 * damaged ones are reported through the warning callback.  A damaged file
 * header is no error: the blocks are found by scanning and the new header
 * takes what FORMAT.md §7 "Salvaging" says (with a warning).  Returns the
 * number of blocks saved, or a negative error: those of amb_reader_open()
 * (for a file header, only when no block is found either, or for another
 * major version) and amb_writer_open() (-EEXIST when @out exists),
 * -ENOMEM, or a write error, after which @out holds the blocks saved so far.
 */
AMB_API long amb_salvage(const char *in, const char *out);

/* ---- payload encodings (FORMAT.md §5) ------------------------------------- */

/*
 * A bounds-checked little-endian cursor over a payload; it points into the
 * caller's memory and owns nothing.  Every getter returns 0 or
 * -AMB_E_TRUNCATED without moving past the end.
 */
struct amb_cursor {
	const uint8_t *p;
	size_t len;
	size_t pos;
};

/* Start @c at the first of the @len bytes at @p. */
static inline void amb_cursor_init(struct amb_cursor *c, const void *p, size_t len)
{
	c->p = (const uint8_t *)p;
	c->len = len;
	c->pos = 0;
}

/* Bytes between the cursor and the end. */
static inline size_t amb_cursor_left(const struct amb_cursor *c)
{
	return c->len - c->pos;
}

/* Read the next 1, 2, 4 or 8 bytes as a little-endian integer into *v
 * and skip them; on -AMB_E_TRUNCATED neither *v nor @c change. */
AMB_API int amb_cursor_u8(struct amb_cursor *c, uint8_t *v);
AMB_API int amb_cursor_u16(struct amb_cursor *c, uint16_t *v);
AMB_API int amb_cursor_u32(struct amb_cursor *c, uint32_t *v);
AMB_API int amb_cursor_u64(struct amb_cursor *c, uint64_t *v);
/* Point *p (when @p is not NULL) at the next @n bytes (no copy) and skip
 * them; 0 or -AMB_E_TRUNCATED, without moving. */
AMB_API int amb_cursor_bytes(struct amb_cursor *c, size_t n, const uint8_t **p);

/*
 * Key/value payloads (META, TRACEFS, TOPOLOGY; FORMAT.md §5.1):
 * repeated { u32 key_len; key; u32 value_len; value }.
 */
/* Append the pair (@key, a NUL-terminated string; the @len bytes at @val)
 * to @b, nothing on error.  -E2BIG for a key over 4096 bytes or a value
 * over 4 GiB, -ENOMEM. */
AMB_API int amb_kv_put(struct amb_buf *b, const char *key, const void *val, size_t len);
/* amb_kv_put() of the NUL-terminated string @val (its NUL not stored). */
AMB_API int amb_kv_put_str(struct amb_buf *b, const char *key, const char *val);

struct amb_kv {
	const char *key;       /* not NUL-terminated */
	uint32_t key_len;
	const uint8_t *val;
	uint32_t val_len;
};
/* 1 and the next pair in *kv, 0 at the end, or -AMB_E_TRUNCATED,
 * -AMB_E_TOO_BIG (key over 4096 bytes), -AMB_E_CORRUPT (NUL in the key);
 * @c does not move on error. */
AMB_API int amb_kv_next(struct amb_cursor *c, struct amb_kv *kv);

/*
 * EVENT_ATTR entries (FORMAT.md §5.2).  @attr is the perf_event_attr exactly
 * as given to perf_event_open, in the producer's byte order.
 */
struct amb_event_entry {
	const uint8_t *attr;
	uint32_t attr_size;
	const char *name;      /* not NUL-terminated */
	uint32_t name_len;
	uint32_t leader;       /* index of the group leader entry, or UINT32_MAX */
	uint32_t flags;        /* AMB_EVENT_* */
	uint32_t nr_ids;
	const uint8_t *ids;    /* nr_ids little-endian u64 sample ids */
};
#define AMB_EVENT_FALLBACK 1u     /* opened in place of an unavailable event */
#define AMB_EVENT_UNSUPPORTED 2u  /* could not be opened here: no ids, no counts */
/* Append the entry @e to @b (nothing on error): 0, -E2BIG over a §7 cap,
 * -ENOMEM. */
AMB_API int amb_event_put(struct amb_buf *b, const struct amb_event_entry *e);
/* Decode the entry at @c into @e, pointing into the payload (no copies):
 * 1, 0 at the end, or -AMB_E_TRUNCATED / -AMB_E_TOO_BIG / -AMB_E_RESERVED
 * without moving @c. */
AMB_API int amb_event_next(struct amb_cursor *c, struct amb_event_entry *e);

/* BUILDID entries (FORMAT.md §5.3). */
enum amb_dso_kind {
	AMB_DSO_USER = 0, AMB_DSO_KERNEL = 1, AMB_DSO_MODULE = 2, AMB_DSO_VDSO = 3,
};
struct amb_buildid_entry {
	const uint8_t *build_id;
	uint8_t build_id_len;  /* <= 64 */
	uint8_t kind;          /* enum amb_dso_kind */
	const char *path;      /* not NUL-terminated */
	uint32_t path_len;
};
/* Append @e to @b (nothing on error): 0, -E2BIG (build-id over 64 bytes,
 * path over 4096), -ENOMEM. */
AMB_API int amb_buildid_put(struct amb_buf *b, const struct amb_buildid_entry *e);
/* Decode the entry at @c into @e, pointing into the payload: 1, 0 at the
 * end, or -AMB_E_TRUNCATED / -AMB_E_TOO_BIG / -AMB_E_RESERVED without
 * moving @c. */
AMB_API int amb_buildid_next(struct amb_cursor *c, struct amb_buildid_entry *e);

/* COUNTS entries (FORMAT.md §5.4). */
struct amb_count_entry {
	uint32_t event;        /* index into the EVENT_ATTR entries */
	uint32_t cpu;          /* UINT32_MAX when per-thread */
	uint32_t tid;          /* UINT32_MAX when per-CPU */
	uint64_t id;
	uint64_t value;
	uint64_t time_enabled;
	uint64_t time_running;
};
/* Append @e to @b (nothing on error): 0 or -ENOMEM. */
AMB_API int amb_count_put(struct amb_buf *b, const struct amb_count_entry *e);
/* Decode the entry at @c into @e: 1, 0 at the end, or -AMB_E_TRUNCATED
 * (also for an entry shorter than 44 bytes) without moving @c. */
AMB_API int amb_count_next(struct amb_cursor *c, struct amb_count_entry *e);

/* FILE blocks (FORMAT.md §5.5): one part of one embedded file. */
struct amb_file_entry {
	const uint8_t *build_id;
	uint8_t build_id_len;
	uint8_t kind;          /* AMB_FILE_* */
	const char *name;      /* original path; never trusted as a path */
	uint32_t name_len;
	uint64_t file_size;    /* size of the whole file */
	uint64_t part_offset;  /* where this part's data goes in the file */
	const uint8_t *data;
	uint64_t data_len;
};
enum amb_file_kind { AMB_FILE_ELF = 0, AMB_FILE_DEBUG = 1, AMB_FILE_VDSO = 2,
		     AMB_FILE_ELF_MINI = 3 };
/* Append the header of a FILE payload for @e to @b (nothing on error);
 * the caller appends @e->data_len bytes after it.  0, -E2BIG over a §7
 * cap, -EINVAL when the part lies outside file_size, -ENOMEM. */
AMB_API int amb_file_put_header(struct amb_buf *b, const struct amb_file_entry *e);

/* Size of the parts amb_writer_append_file() splits a file into (well
 * under the block cap, so that readers can reassemble files bigger than a
 * block; FORMAT.md §5.5). */
#define AMB_FILE_PART_SIZE (32u << 20)

/*
 * Append the whole file @image (@e->file_size bytes) as FILE blocks of
 * AMB_FILE_PART_SIZE bytes at most, each carrying @e's build-id, kind and
 * name (@e's part_offset, data and data_len are ignored); @image is
 * copied.  Returns 0, the errors of amb_file_put_header(), -ENOMEM, or
 * the writer's error (parts appended before it stay in the file).
 */
AMB_API int amb_writer_append_file(struct amb_writer *w, const struct amb_file_entry *e,
				   const uint8_t *image);
/* Decode the FILE payload of @len bytes into @e (pointers into it):
 * 0, -AMB_E_TRUNCATED, -AMB_E_TOO_BIG, -AMB_E_RESERVED or -AMB_E_CORRUPT
 * (part outside file_size, §5.5). */
AMB_API int amb_file_parse(const void *payload, size_t len, struct amb_file_entry *e);

#ifdef __cplusplus
}
#endif

#endif /* AMB_FORMAT_H */
