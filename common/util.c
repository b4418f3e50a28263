// SPDX-License-Identifier: MIT
/* common/util.c - array growth, CPU lists, JSON strings, big buffers, small files. */
#include "common/util.h"

#include <errno.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/auxv.h>
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

/* True when the @n bytes at @s start with a C1 control, U+0080..U+009F
 * in UTF-8 (C2 80 .. C2 9F): terminals may obey those as they obey ESC. */
static bool is_c1(const unsigned char *s, size_t n)
{
	return n >= 2 && s[0] == 0xc2 && s[1] >= 0x80 && s[1] <= 0x9f;
}

/* Length of the well-formed UTF-8 sequence at @s (RFC 3629: no overlong
 * form, no surrogate, nothing past U+10FFFF), or 0; U+FFFE and U+FFFF
 * count as malformed. */
static size_t utf8_len(const unsigned char *s, size_t n)
{
	unsigned char c = s[0];
	size_t len;
	unsigned char lo = 0x80, hi = 0xbf;

	if (c >= 0xc2 && c <= 0xdf)
		len = 2;
	else if (c >= 0xe0 && c <= 0xef)
		len = 3;
	else if (c >= 0xf0 && c <= 0xf4)
		len = 4;
	else
		return 0;
	if (c == 0xe0)
		lo = 0xa0;
	else if (c == 0xed)
		hi = 0x9f;
	else if (c == 0xf0)
		lo = 0x90;
	else if (c == 0xf4)
		hi = 0x8f;
	if (n < len || s[1] < lo || s[1] > hi)
		return 0;
	for (size_t i = 2; i < len; i++)
		if (s[i] < 0x80 || s[i] > 0xbf)
			return 0;
	/* U+FFFE and U+FFFF are no characters (and not allowed in XML). */
	if (c == 0xef && s[1] == 0xbf && s[2] >= 0xbe)
		return 0;
	return len;
}

size_t amb_text_safe_prefix(const char *str, size_t n, size_t *esc)
{
	const unsigned char *s = (const unsigned char *)str;
	size_t i = 0;

	*esc = 0;
	while (i < n) {
		size_t len;

		/* Eight printable ASCII bytes at a time: none below 0x20 and
		 * none above 0x7e (the "hasless" and "hasmore" tests of Sean
		 * Anderson's Bit Twiddling Hacks, exact as tests of a word). */
		while (n - i >= 8) {
			const uint64_t ones = 0x0101010101010101ull, highs = ones << 7;
			uint64_t w;

			memcpy(&w, s + i, 8);
			if ((((w - ones * 0x20) & ~w) | ((w + ones) | w)) & highs)
				break;
			i += 8;
		}
		if (i == n)
			break;
		if (s[i] >= 0x20 && s[i] < 0x7f) {
			i++;
			continue;
		}
		if (s[i] >= 0x80 && !is_c1(s + i, n - i) && (len = utf8_len(s + i, n - i))) {
			i += len;
			continue;
		}
		*esc = is_c1(s + i, n - i) ? 2 : 1;
		break;
	}
	return i;
}

int amb_buf_put_text(struct amb_buf *b, const char *s, size_t n)
{
	static const char hex[] = "0123456789abcdef";

	while (n) {
		size_t esc, ok = amb_text_safe_prefix(s, n, &esc);

		if (amb_buf_reserve(b, ok + esc * AMB_TEXT_ESC_MAX + 1))
			return -ENOMEM;
		memcpy(b->data + b->len, s, ok);
		b->len += ok;
		for (size_t i = 0; i < esc; i++) {
			unsigned char c = (unsigned char)s[ok + i];
			char *q = (char *)b->data + b->len;

			q[0] = '\\';
			q[1] = 'x';
			q[2] = hex[c >> 4];
			q[3] = hex[c & 15];
			b->len += AMB_TEXT_ESC_MAX;
		}
		b->data[b->len] = '\0';
		s += ok + esc;
		n -= ok + esc;
	}
	return 0;
}

void amb_fput_text(FILE *f, const char *s)
{
	size_t n = s ? strlen(s) : 0;

	while (n) {
		size_t esc, ok = amb_text_safe_prefix(s, n, &esc);

		fwrite(s, 1, ok, f);
		for (size_t i = 0; i < esc; i++)
			fprintf(f, "\\x%02x", (unsigned char)s[ok + i]);
		s += ok + esc;
		n -= ok + esc;
	}
}

char *amb_text_escape(char *buf, size_t len, const char *s)
{
	size_t n = s ? strlen(s) : 0, out = 0;

	if (!len)
		return buf;
	while (n) {
		size_t esc, ok = amb_text_safe_prefix(s, n, &esc);

		if (out + ok >= len) {
			/* Cut on a character boundary, never inside UTF-8. */
			ok = len - 1 - out;
			while (ok && ((unsigned char)s[ok] & 0xc0) == 0x80)
				ok--;
			memcpy(buf + out, s, ok);
			out += ok;
			break;
		}
		memcpy(buf + out, s, ok);
		out += ok;
		if (out + esc * AMB_TEXT_ESC_MAX >= len)
			break;
		for (size_t i = 0; i < esc; i++) {
			snprintf(buf + out, AMB_TEXT_ESC_MAX + 1, "\\x%02x", (unsigned char)s[ok + i]);
			out += AMB_TEXT_ESC_MAX;
		}
		s += ok + esc;
		n -= ok + esc;
	}
	buf[out] = '\0';
	return buf;
}

size_t amb_json_esc(unsigned char c, char out[6])
{
	static const char hex[] = "0123456789abcdef";

	out[0] = '\\';
	switch (c) {
	case '"':  out[1] = '"'; return 2;
	case '\\': out[1] = '\\'; return 2;
	case '\n': out[1] = 'n'; return 2;
	case '\r': out[1] = 'r'; return 2;
	case '\t': out[1] = 't'; return 2;
	default:
		memcpy(out + 1, "u00", 3);
		out[4] = hex[c >> 4];
		out[5] = hex[c & 15];
		return 6;
	}
}

void amb_json_strn(FILE *f, const char *s, size_t n)
{
	char esc[6];

	putc('"', f);
	while (n) {
		size_t bad, ok = amb_text_safe_prefix(s, n, &bad);

		for (size_t i = 0; i < ok; i++) {
			if (s[i] == '"' || s[i] == '\\')
				fwrite(esc, 1, amb_json_esc((unsigned char)s[i], esc), f);
			else
				putc(s[i], f);
		}
		/* A C1 control is C2 XX: U+00XX. */
		if (bad)
			fwrite(esc, 1, amb_json_esc((unsigned char)s[ok + bad - 1], esc), f);
		s += ok + bad;
		n -= ok + bad;
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

/*
 * Ask for huge pages on the units of the mapping @p (@len bytes) that
 * @want bytes fill, all but a last one of which they would use less than
 * 128 KiB: the first touch of a huge page clears all 2 MiB of it, so a
 * buffer for a block of 4 MiB and a few bytes gets two huge pages and a
 * small one for its last bytes, not a third huge page cleared for them.
 */
static void big_advise(uint8_t *p, size_t want, size_t len)
{
	size_t huge = want & ~(BIG_ALIGN - 1);

	if (want - huge >= BIG_ALIGN / 16)
		huge += BIG_ALIGN;
#ifdef MADV_HUGEPAGE
	if (huge)
		madvise(p, huge, MADV_HUGEPAGE);
#endif
#ifdef MADV_NOHUGEPAGE
	if (huge < len)
		madvise(p + huge, len - huge, MADV_NOHUGEPAGE);
#endif
}

void *amb_big_alloc(size_t want, size_t *size)
{
	size_t len = (want + BIG_ALIGN - 1) & ~(BIG_ALIGN - 1), head, tail;
	uint8_t *map, *p;

	if (want < AMB_BIG_MIN) {
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
	big_advise(p, want, len);
	*size = len;
	return p;
}

void *amb_big_zalloc(size_t want, size_t *size)
{
	void *p = amb_big_alloc(want, size);

	/* A fresh anonymous mapping is zeroed: only malloc()ed memory is not. */
	if (p && !*size)
		memset(p, 0, want ? want : 1);
	return p;
}

void amb_big_free(void *p, size_t size)
{
	if (!size)
		free(p);
	else if (p)
		munmap(p, size);
}

int amb_big_reserve(uint8_t **buf, size_t *cap, size_t *map, size_t need)
{
	size_t want, m;
	uint8_t *q;

	if (need <= *cap)
		return 0;
	/* More than half as large again as before (*cap < need), and at
	 * most half as large again as needed. */
	want = need <= SIZE_MAX - *cap / 2 ? need + *cap / 2 : need;
	amb_big_free(*buf, *map);
	*buf = NULL;
	*cap = *map = 0;
	q = amb_big_alloc(want, &m);
	if (!q)
		return -ENOMEM;
	*buf = q;
	*map = m;
	*cap = m ? m : want;
	return 0;
}

int amb_self_vdso(const void **image, size_t *len)
{
	uintptr_t base = (uintptr_t)getauxval(AT_SYSINFO_EHDR);
	uint64_t start, end;
	char line[512];
	FILE *f;

	*image = NULL;
	*len = 0;
	if (!base || !(f = fopen("/proc/self/maps", "re")))
		return -ENOENT;
	while (fgets(line, sizeof(line), f))
		if (strstr(line, "[vdso]") && sscanf(line, "%" SCNx64 "-%" SCNx64, &start, &end) == 2 &&
		    start == base && end > start)
			*len = (size_t)(end - start);
	fclose(f);
	if (!*len)
		return -ENOENT;
	*image = (const void *)base;
	return 0;
}
