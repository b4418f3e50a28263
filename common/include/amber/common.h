/* SPDX-License-Identifier: MIT */
/*
 * common/common.h - helpers shared by every amber module.
 *
 * Nothing here knows about the .amber format, the recorder or the analyzer:
 * explicit little-endian accessors, byte swapping, a growable byte buffer,
 * the one warning callback library code reports through, CPU-list parsing
 * and JSON string escaping.  common/ includes nothing of ours.
 */
#ifndef AMB_COMMON_H
#define AMB_COMMON_H

#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#define AMB_ARRAY_SIZE(a) (sizeof(a) / sizeof((a)[0]))
#define AMB_MIN(a, b) ((a) < (b) ? (a) : (b))
#define AMB_MAX(a, b) ((a) > (b) ? (a) : (b))
#define AMB_PRINTF(f, a) __attribute__((format(printf, f, a)))
/* The value of macro @x as a string literal. */
#define AMB_STR_(x) #x
#define AMB_STR(x) AMB_STR_(x)

/* ---- explicit little-endian access (never memcpy a struct to disk) ------ */

static inline uint16_t amb_get_le16(const void *p)
{
	const uint8_t *b = p;
	return (uint16_t)(b[0] | b[1] << 8);
}

static inline uint32_t amb_get_le32(const void *p)
{
	const uint8_t *b = p;
	return (uint32_t)b[0] | (uint32_t)b[1] << 8 | (uint32_t)b[2] << 16 |
	       (uint32_t)b[3] << 24;
}

static inline uint64_t amb_get_le64(const void *p)
{
	const uint8_t *b = p;
	return (uint64_t)amb_get_le32(b) | (uint64_t)amb_get_le32(b + 4) << 32;
}

static inline void amb_put_le16(void *p, uint16_t v)
{
	uint8_t *b = p;
	b[0] = (uint8_t)v;
	b[1] = (uint8_t)(v >> 8);
}

static inline void amb_put_le32(void *p, uint32_t v)
{
	uint8_t *b = p;
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
 * Library code never prints.  It reports non-fatal problems through one
 * process-wide callback; each tool's main() installs one that prints
 * "amber-xxx: warning: ...".  With no callback installed warnings are
 * dropped.  @ctx is passed back unchanged.
 */
typedef void (*amb_warn_fn)(void *ctx, const char *msg);

/* Install @fn (NULL to silence) and return the previous callback. */
amb_warn_fn amb_set_warn(amb_warn_fn fn, void *ctx);

/* Format a message and hand it to the installed callback. */
void amb_warn(const char *fmt, ...) AMB_PRINTF(1, 2);

/* ---- growable byte buffer --------------------------------------------- */

/*
 * A heap buffer that grows by doubling.  Zero-initialise it (or use
 * AMB_BUF_INIT); amb_buf_free() releases the storage and may be called on a
 * zeroed buffer.  Append functions return 0 or -ENOMEM; on failure the
 * buffer keeps its previous content.
 */
struct amb_buf {
	uint8_t *data;
	size_t len;
	size_t cap;
};
#define AMB_BUF_INIT { NULL, 0, 0 }

int amb_buf_reserve(struct amb_buf *b, size_t extra);
int amb_buf_append(struct amb_buf *b, const void *p, size_t n);
int amb_buf_put_le16(struct amb_buf *b, uint16_t v);
int amb_buf_put_le32(struct amb_buf *b, uint32_t v);
int amb_buf_put_le64(struct amb_buf *b, uint64_t v);
/* Append printf-formatted text (no terminating NUL is counted in len). */
int amb_buf_printf(struct amb_buf *b, const char *fmt, ...) AMB_PRINTF(2, 3);
void amb_buf_reset(struct amb_buf *b);
void amb_buf_free(struct amb_buf *b);

#endif /* AMB_COMMON_H */
