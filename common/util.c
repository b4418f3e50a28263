// SPDX-License-Identifier: MIT
/* common/util.c - array growth, CPU lists, JSON strings, big buffers, small files. */
#include "common/util.h"

#include <errno.h>
#include <stdarg.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

static _Thread_local char errmsg[1024];

void amb_errmsg_set(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(errmsg, sizeof(errmsg), fmt, ap);
	va_end(ap);
}

const char *amb_errmsg(void)
{
	return errmsg;
}

void amb_errmsg_clear(void)
{
	errmsg[0] = 0;
}

int amb_ensure_cap(void **data, size_t *cap, size_t elem_size, size_t need)
{
	size_t n;
	void *p;

	if (need <= *cap)
		return 0;
	n = *cap < 8 ? 16 : *cap * 2;
	if (n < need)
		n = need;
	if (!elem_size || n > SIZE_MAX / elem_size)
		return -ENOMEM;
	p = realloc(*data, n * elem_size);
	if (!p)
		return -ENOMEM;
	*data = p;
	*cap = n;
	return 0;
}

static int parse_uint(const char **sp, unsigned *out)
{
	const char *s = *sp;
	unsigned long v = 0;

	if (*s < '0' || *s > '9')
		return -EINVAL;
	while (*s >= '0' && *s <= '9') {
		v = v * 10 + (unsigned long)(*s - '0');
		if (v > 1u << 20)
			return -EINVAL;
		s++;
	}
	*sp = s;
	*out = (unsigned)v;
	return 0;
}

int amb_cpulist_parse(const char *s, uint64_t *set, unsigned nbits)
{
	int count = 0;

	memset(set, 0, (nbits + 63) / 64 * sizeof(uint64_t));
	while (*s == ' ' || *s == '\n')
		s++;
	if (!*s)
		return -EINVAL;
	for (;;) {
		unsigned lo, hi;

		if (parse_uint(&s, &lo))
			return -EINVAL;
		hi = lo;
		if (*s == '-') {
			s++;
			if (parse_uint(&s, &hi) || hi < lo)
				return -EINVAL;
		}
		if (hi >= nbits)
			return -EINVAL;
		for (unsigned c = lo; c <= hi; c++) {
			if (!(set[c / 64] & (1ull << (c % 64))))
				count++;
			set[c / 64] |= 1ull << (c % 64);
		}
		if (*s == ',') {
			s++;
			continue;
		}
		while (*s == ' ' || *s == '\n')
			s++;
		return *s ? -EINVAL : count;
	}
}

void amb_json_strn(FILE *f, const char *s, size_t n)
{
	putc('"', f);
	for (size_t i = 0; i < n; i++) {
		unsigned char c = (unsigned char)s[i];

		switch (c) {
		case '"':  fputs("\\\"", f); break;
		case '\\': fputs("\\\\", f); break;
		case '\n': fputs("\\n", f); break;
		case '\r': fputs("\\r", f); break;
		case '\t': fputs("\\t", f); break;
		default:
			if (c < 0x20 || c == 0x7f)
				fprintf(f, "\\u%04x", c);
			else
				putc(c, f);
		}
	}
	putc('"', f);
}

void amb_json_str(FILE *f, const char *s)
{
	amb_json_strn(f, s ? s : "", s ? strlen(s) : 0);
}

char *amb_read_file(const char *path, size_t max, size_t *lenp)
{
	struct amb_buf b = AMB_BUF_INIT;
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	int saved;

	if (fd < 0)
		return NULL;
	for (;;) {
		ssize_t n;

		if (b.len >= max)
			break;
		if (amb_buf_reserve(&b, 4096 + 1)) {
			errno = ENOMEM;
			goto fail;
		}
		n = read(fd, b.data + b.len, AMB_MIN(4096, max - b.len));
		if (n < 0) {
			if (errno == EINTR)
				continue;
			goto fail;
		}
		if (n == 0)
			break;
		b.len += (size_t)n;
	}
	close(fd);
	if (amb_buf_reserve(&b, 1)) {
		amb_buf_free(&b);
		errno = ENOMEM;
		return NULL;
	}
	b.data[b.len] = 0;
	if (lenp)
		*lenp = b.len;
	return (char *)b.data;
fail:
	saved = errno;
	close(fd);
	amb_buf_free(&b);
	errno = saved;
	return NULL;
}

#define BIG_ALIGN ((size_t)2 << 20)

void *amb_big_alloc(size_t want, size_t *size)
{
	size_t len = (want + BIG_ALIGN - 1) & ~(BIG_ALIGN - 1), head, tail;
	uint8_t *map, *p;

	if (want < BIG_ALIGN / 2) {
		*size = 0;
		return malloc(want ? want : 1);
	}
	if (len < want || len > SIZE_MAX - BIG_ALIGN)
		return NULL;
	/* Map one alignment unit more and trim both ends to the boundary. */
	map = mmap(NULL, len + BIG_ALIGN, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS,
		   -1, 0);
	if (map == MAP_FAILED)
		return NULL;
	p = (uint8_t *)(((uintptr_t)map + BIG_ALIGN - 1) & ~(uintptr_t)(BIG_ALIGN - 1));
	head = (size_t)(p - map);
	tail = BIG_ALIGN - head;
	if (head)
		munmap(map, head);
	if (tail)
		munmap(p + len, tail);
#ifdef MADV_HUGEPAGE
	madvise(p, len, MADV_HUGEPAGE);
#endif
	*size = len;
	return p;
}

void amb_big_free(void *p, size_t size)
{
	if (!size)
		free(p);
	else if (p)
		munmap(p, size);
}
