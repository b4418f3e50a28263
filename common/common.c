// SPDX-License-Identifier: MIT
/* common/common.c - the warning callback and the growable byte buffer. */
#include <amber/common.h>
#include "common/util.h"

#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static amb_warn_fn warn_fn;
static void *warn_ctx;

amb_warn_fn amb_set_warn(amb_warn_fn fn, void *ctx)
{
	amb_warn_fn old = warn_fn;

	warn_fn = fn;
	warn_ctx = ctx;
	return old;
}

void amb_warn(const char *fmt, ...)
{
	char msg[1024];
	va_list ap;

	if (!warn_fn)
		return;
	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	warn_fn(warn_ctx, msg);
}

int amb_buf_reserve(struct amb_buf *b, size_t extra)
{
	/* No real buffer gets near half the address space; refusing such
	 * sizes early keeps the doubling from overflowing. */
	if (extra > SIZE_MAX / 4 - b->len)
		return -ENOMEM;
	return amb_ensure_cap((void **)&b->data, &b->cap, 1,
			      b->len + extra > 256 ? b->len + extra : 256);
}

int amb_buf_append(struct amb_buf *b, const void *p, size_t n)
{
	if (!n)
		return 0;
	if (amb_buf_reserve(b, n))
		return -ENOMEM;
	memcpy(b->data + b->len, p, n);
	b->len += n;
	return 0;
}

int amb_buf_put_le16(struct amb_buf *b, uint16_t v)
{
	uint8_t t[2];

	amb_put_le16(t, v);
	return amb_buf_append(b, t, sizeof(t));
}

int amb_buf_put_le32(struct amb_buf *b, uint32_t v)
{
	uint8_t t[4];

	amb_put_le32(t, v);
	return amb_buf_append(b, t, sizeof(t));
}

int amb_buf_put_le64(struct amb_buf *b, uint64_t v)
{
	uint8_t t[8];

	amb_put_le64(t, v);
	return amb_buf_append(b, t, sizeof(t));
}

int amb_buf_printf(struct amb_buf *b, const char *fmt, ...)
{
	va_list ap;
	int n;

	va_start(ap, fmt);
	n = vsnprintf(NULL, 0, fmt, ap);
	va_end(ap);
	if (n < 0)
		return -EINVAL;
	/* +1 for the NUL vsnprintf writes; it is not counted in len. */
	if (amb_buf_reserve(b, (size_t)n + 1))
		return -ENOMEM;
	va_start(ap, fmt);
	vsnprintf((char *)b->data + b->len, (size_t)n + 1, fmt, ap);
	va_end(ap);
	b->len += (size_t)n;
	return 0;
}

void amb_buf_reset(struct amb_buf *b)
{
	b->len = 0;
}

void amb_buf_free(struct amb_buf *b)
{
	free(b->data);
	b->data = NULL;
	b->len = b->cap = 0;
}
