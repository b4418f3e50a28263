// SPDX-License-Identifier: MIT
/*
 * tests/tools/corrupt.c - damage a recording the ways an adversarial test
 * does (tests/cli/test_corruption.sh): flips, truncation, zeroed ranges,
 * duplicated, swapped, dropped and spliced blocks, concatenation, header
 * damage.  Blocks are found by walking the block headers of an undamaged
 * IN (FORMAT.md §3: header_len at offset 4, stored_size at offset 32).
 *
 *   corrupt blocks IN                 one line per block: INDEX OFFSET LENGTH TYPE
 *   corrupt IN OUT flip OFFSET BIT    flip one bit
 *   corrupt IN OUT trunc LENGTH       keep the first LENGTH bytes
 *   corrupt IN OUT zero OFFSET LENGTH zero a range (clipped to the file)
 *   corrupt IN OUT dup K              block K twice in a row
 *   corrupt IN OUT swap K             blocks K and K+1 swapped
 *   corrupt IN OUT drop K             block K cut out
 *   corrupt IN OUT splice K FILE J    block J of FILE inserted before block K
 *   corrupt IN OUT cat FILE           FILE appended
 *   corrupt IN OUT zerohdr            the 64-byte file header zeroed
 *
 * Exit status 0, 1 on an error, 2 for a bad command line.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <amber/common.h>
#include "common/util.h"

struct image {
	uint8_t *p;
	size_t len;
};

struct block {
	size_t off, len;
	unsigned type;
};

static int load(const char *path, struct image *im)
{
	im->p = (uint8_t *)amb_read_file(path, 1u << 30, &im->len);
	if (!im->p) {
		fprintf(stderr, "corrupt: %s: %s\n", path, strerror(errno));
		return -1;
	}
	return 0;
}

/* The blocks of @im up to the first that does not fit; returns their count. */
static size_t walk(const struct image *im, struct block *v, size_t max)
{
	size_t off = 64, n = 0;

	if (im->len >= 16)
		off = amb_get_le32(im->p + 12);
	while (n < max && off + 80 <= im->len) {
		size_t hl = amb_get_le16(im->p + off + 4);
		uint64_t stored = amb_get_le64(im->p + off + 32);

		if (amb_get_le32(im->p + off) != 0x4b424d41u || hl < 80 || stored > im->len ||
		    off + hl + stored > im->len)
			break;
		v[n++] = (struct block){ off, hl + (size_t)stored, amb_get_le16(im->p + off + 6) };
		off += hl + (size_t)stored;
	}
	return n;
}

static int save(const char *path, const uint8_t *a, size_t alen, const uint8_t *b, size_t blen,
		const uint8_t *c, size_t clen)
{
	FILE *f = fopen(path, "wb");

	if (!f || fwrite(a, 1, alen, f) != alen || fwrite(b, 1, blen, f) != blen ||
	    fwrite(c, 1, clen, f) != clen || fclose(f)) {
		fprintf(stderr, "corrupt: %s: %s\n", path, strerror(errno));
		return 1;
	}
	return 0;
}

static size_t num(const char *s)
{
	return (size_t)strtoull(s, NULL, 0);
}

#define MAXB 100000

int main(int argc, char **argv)
{
	static struct block v[MAXB], w[MAXB];
	struct image im, other;
	const char *op;
	size_t n, k;

	if (argc == 3 && !strcmp(argv[1], "blocks")) {
		if (load(argv[2], &im))
			return 1;
		n = walk(&im, v, MAXB);
		for (k = 0; k < n; k++)
			printf("%zu %zu %zu %u\n", k, v[k].off, v[k].len, v[k].type);
		return 0;
	}
	if (argc < 4)
		goto usage;
	if (load(argv[1], &im))
		return 1;
	n = walk(&im, v, MAXB);
	op = argv[3];
	if (!strcmp(op, "flip") && argc == 6) {
		size_t off = num(argv[4]);

		if (off < im.len)
			im.p[off] ^= (uint8_t)(1u << (num(argv[5]) & 7));
		return save(argv[2], im.p, im.len, NULL, 0, NULL, 0);
	}
	if (!strcmp(op, "trunc") && argc == 5)
		return save(argv[2], im.p, AMB_MIN(num(argv[4]), im.len), NULL, 0, NULL, 0);
	if (!strcmp(op, "zero") && argc == 6) {
		size_t off = AMB_MIN(num(argv[4]), im.len);

		memset(im.p + off, 0, AMB_MIN(num(argv[5]), im.len - off));
		return save(argv[2], im.p, im.len, NULL, 0, NULL, 0);
	}
	if (!strcmp(op, "zerohdr") && argc == 4) {
		memset(im.p, 0, AMB_MIN((size_t)64, im.len));
		return save(argv[2], im.p, im.len, NULL, 0, NULL, 0);
	}
	if (!strcmp(op, "cat") && argc == 5) {
		if (load(argv[4], &other))
			return 1;
		return save(argv[2], im.p, im.len, other.p, other.len, NULL, 0);
	}
	if (argc < 5)
		goto usage;
	k = num(argv[4]);
	if (k >= n) {
		fprintf(stderr, "corrupt: %s has %zu blocks, no block %zu\n", argv[1], n, k);
		return 1;
	}
	if (!strcmp(op, "dup") && argc == 5)
		return save(argv[2], im.p, v[k].off + v[k].len, im.p + v[k].off, v[k].len,
			    im.p + v[k].off + v[k].len, im.len - v[k].off - v[k].len);
	if (!strcmp(op, "drop") && argc == 5)
		return save(argv[2], im.p, v[k].off, im.p + v[k].off + v[k].len,
			    im.len - v[k].off - v[k].len, NULL, 0);
	if (!strcmp(op, "swap") && argc == 5) {
		uint8_t *t;
		size_t a = v[k].len, b;

		if (k + 1 >= n) {
			fprintf(stderr, "corrupt: no block after block %zu\n", k);
			return 1;
		}
		b = v[k + 1].len;
		t = malloc(a);
		if (!t)
			return 1;
		memcpy(t, im.p + v[k].off, a);
		memmove(im.p + v[k].off, im.p + v[k + 1].off, b);
		memcpy(im.p + v[k].off + b, t, a);
		free(t);
		return save(argv[2], im.p, im.len, NULL, 0, NULL, 0);
	}
	if (!strcmp(op, "splice") && argc == 7) {
		size_t j = num(argv[6]), m;
		uint8_t *buf;
		int rc;

		if (load(argv[5], &other))
			return 1;
		m = walk(&other, w, MAXB);
		if (j >= m) {
			fprintf(stderr, "corrupt: %s has %zu blocks, no block %zu\n", argv[5], m, j);
			return 1;
		}
		buf = malloc(im.len + w[j].len);
		if (!buf)
			return 1;
		memcpy(buf, im.p, v[k].off);
		memcpy(buf + v[k].off, other.p + w[j].off, w[j].len);
		memcpy(buf + v[k].off + w[j].len, im.p + v[k].off, im.len - v[k].off);
		rc = save(argv[2], buf, im.len + w[j].len, NULL, 0, NULL, 0);
		free(buf);
		return rc;
	}
usage:
	fprintf(stderr, "usage: corrupt blocks IN | corrupt IN OUT OP ARGS (see tests/tools/corrupt.c)\n");
	return 2;
}
