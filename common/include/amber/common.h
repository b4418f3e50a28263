/* SPDX-License-Identifier: MIT */
/*
 * <amber/common.h> - the helpers of common/ that the installed library's
 * API uses: the export marker, option structs that carry their size,
 * explicit little-endian accessors, a growable byte buffer and the one
 * warning callback library code reports through.  Installed next to
 * <amber/format.h>; it needs only the C library and compiles as C99 and
 * as C++.  Helpers that only amber's own tools use are in common/util.h.
 *
 * Conventions of every function of the library: 0 (or a count) on
 * success, a negative errno or -AMB_E_* (<amber/format.h>) on failure;
 * nothing is printed and exit() is never called.
 */
#ifndef AMB_COMMON_H
#define AMB_COMMON_H

#include <stdarg.h>   /* va_list, for wrappers of amb_warn() and amb_buf_printf() */
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>   /* memset(), for AMB_OPTS */

#ifdef __cplusplus
extern "C" {
#endif

/*
 * AMB_API marks the functions of the installed library.  libamber-format
 * is compiled with -fvisibility=hidden, so a function without the marker
 * (every helper of common/util.h, common/hashmap.h and
 * format/format_internal.h) is not exported from libamber-format.so.
 */
#if defined(__GNUC__) && __GNUC__ >= 4
#define AMB_API __attribute__((visibility("default")))
#else
#define AMB_API
#endif

#if defined(__GNUC__)
#define AMB_PRINTF(f, a) __attribute__((format(printf, f, a)))
#else
#define AMB_PRINTF(f, a)
#endif

#define AMB_ARRAY_SIZE(a) (sizeof(a) / sizeof((a)[0]))
#define AMB_MIN(a, b) ((a) < (b) ? (a) : (b))
#define AMB_MAX(a, b) ((a) > (b) ? (a) : (b))
/* The value of macro @x as a string literal. */
#define AMB_STR_(x) #x
#define AMB_STR(x) AMB_STR_(x)

/* ---- option structs that carry their size (libbpf's LIBBPF_OPTS) -------- */

/*
 * Every options struct of the API (struct amb_writer_opts,
 * struct amb_copy_opts) starts with `size_t sz`, the size of the struct
 * as the caller was compiled, so that later versions can add fields at
 * the end without breaking programs built against older headers:
 *  - the library reads only the fields that lie within sz; a field past
 *    it (a caller built before the field existed) takes its documented
 *    default, as do all fields when the struct pointer is NULL;
 *  - bytes past the fields the library knows (a caller built against a
 *    newer header, running with an older library) must be zero, else the
 *    function fails with -EINVAL: a caller never silently loses an option;
 *  - sz smaller than the sz field itself, or over 4096, is -EINVAL.
 *
 * AMB_OPTS declares such a struct @NAME of type struct @TYPE, zeroed
 * (padding included), with sz set and the fields given:
 *
 *     AMB_OPTS(amb_writer_opts, o, .zstd_level = 3, .threads = 1);
 *
 * ISO C before C23 wants at least one argument after NAME: write
 * AMB_OPTS(amb_copy_opts, co, ) for a struct with every field zero.
 * C++ has no compound literals: value-initialise the struct and set sz
 * (`amb_writer_opts o = {}; o.sz = sizeof(o);`).
 */
#define AMB_OPTS(TYPE, NAME, ...)                                           \
	struct TYPE NAME = ((void)memset(&NAME, 0, sizeof(struct TYPE)),      \
			    (struct TYPE){ .sz = sizeof(struct TYPE), __VA_ARGS__ })

/* ---- explicit little-endian access (never memcpy a struct to disk) ------ */

/* The 16, 32 or 64-bit little-endian value at @p (any alignment). */
static inline uint16_t amb_get_le16(const void *p)
{
	const uint8_t *b = (const uint8_t *)p;
	return (uint16_t)(b[0] | b[1] << 8);
}

static inline uint32_t amb_get_le32(const void *p)
{
	const uint8_t *b = (const uint8_t *)p;
	return (uint32_t)b[0] | (uint32_t)b[1] << 8 | (uint32_t)b[2] << 16 |
	       (uint32_t)b[3] << 24;
}

static inline uint64_t amb_get_le64(const void *p)
{
	const uint8_t *b = (const uint8_t *)p;
	return (uint64_t)amb_get_le32(b) | (uint64_t)amb_get_le32(b + 4) << 32;
}

/* Store @v at @p (any alignment) in little-endian byte order. */
static inline void amb_put_le16(void *p, uint16_t v)
{
	uint8_t *b = (uint8_t *)p;
	b[0] = (uint8_t)v;
	b[1] = (uint8_t)(v >> 8);
}

static inline void amb_put_le32(void *p, uint32_t v)
{
	uint8_t *b = (uint8_t *)p;
	b[0] = (uint8_t)v;
	b[1] = (uint8_t)(v >> 8);
	b[2] = (uint8_t)(v >> 16);
	b[3] = (uint8_t)(v >> 24);
}

static inline void amb_put_le64(void *p, uint64_t v)
{
	amb_put_le32(p, (uint32_t)v);
	amb_put_le32((uint8_t *)p + 4, (uint32_t)(v >> 32));
}

/* True when this process runs little-endian. */
static inline bool amb_host_is_le(void)
{
	const uint16_t one = 1;
	return *(const uint8_t *)&one == 1;
}

/* ---- warnings ------------------------------------------------------------ */

/*
 * Library code never prints.  It reports non-fatal problems (a damaged
 * block left out of a copy, ...) through one process-wide callback; each
 * amber tool's main() installs one that prints "amber-xxx: warning: ...".
 * With no callback installed warnings are dropped.  @msg is a complete
 * message without a trailing newline, valid only during the call; @ctx is
 * the pointer given to amb_set_warn(), passed back unchanged.  The
 * callback may be called from the writer's background thread.
 */
typedef void (*amb_warn_fn)(void *ctx, const char *msg);

/*
 * Install @fn with @ctx (@fn NULL: drop warnings) and return the previous
 * callback.  Not thread-safe: call it before using the library from
 * several threads.
 */
AMB_API amb_warn_fn amb_set_warn(amb_warn_fn fn, void *ctx);

/*
 * Format a message (at most 1023 bytes are kept) and hand it to the
 * installed callback, as the library does for its own warnings; a
 * program may send its own through the same callback.
 */
AMB_API void amb_warn(const char *fmt, ...) AMB_PRINTF(1, 2);

/* ---- growable byte buffer --------------------------------------------- */

/*
 * A heap buffer that grows by doubling; the encoders of <amber/format.h>
 * (amb_kv_put(), amb_event_put() ...) append to one.  Zero-initialise it
 * (or use AMB_BUF_INIT).  The caller owns @data: amb_buf_free() releases
 * it and may be called on a zeroed buffer; a caller may also take @data
 * over (it comes from malloc()) and zero the struct.  Append functions
 * return 0 or -ENOMEM; on failure the buffer keeps its previous content.
 */
struct amb_buf {
	uint8_t *data;
	size_t len;
	size_t cap;
};
#define AMB_BUF_INIT { NULL, 0, 0 }

/* Make room for @extra more bytes after len.  0 or -ENOMEM. */
AMB_API int amb_buf_reserve(struct amb_buf *b, size_t extra);
/* Append the @n bytes at @p (@p may be NULL when @n is 0). */
AMB_API int amb_buf_append(struct amb_buf *b, const void *p, size_t n);
/* Append @v as 2, 4 or 8 little-endian bytes. */
AMB_API int amb_buf_put_le16(struct amb_buf *b, uint16_t v);
AMB_API int amb_buf_put_le32(struct amb_buf *b, uint32_t v);
AMB_API int amb_buf_put_le64(struct amb_buf *b, uint64_t v);
/* Append printf-formatted text.  A NUL follows it in @data but is not
 * counted in len.  0, -ENOMEM, or -EINVAL for a bad format. */
AMB_API int amb_buf_printf(struct amb_buf *b, const char *fmt, ...) AMB_PRINTF(2, 3);
/* Empty the buffer (len = 0), keeping its storage. */
AMB_API void amb_buf_reset(struct amb_buf *b);
/* Release the storage; @b is a zeroed, empty buffer afterwards. */
AMB_API void amb_buf_free(struct amb_buf *b);

#ifdef __cplusplus
}
#endif

#endif /* AMB_COMMON_H */
