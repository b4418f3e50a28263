// SPDX-License-Identifier: MIT
/*
 * format/codec_sample_dec.c - the sample codec's decoder (codec 2,
 * FORMAT.md §4.1; the codec is explained in codec_sample.c): the payload
 * header and stream directory checked, the streams decompressed, and the
 * records written back, each sample's fields as their predictions plus the
 * stored differences, with a copy of the sample decoder specialized for
 * the layout of `-g` recordings.  The payload is untrusted input: every
 * count, index and length is checked against what is there.
 */
#include "format/codec_sample_internal.h"

#include <byteswap.h>
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include <zstd.h>

#include <amber/common.h>
#include "common/util.h"

/* ---- stores in the records' byte order ----------------------------------------- */

/* The decoder's stores, with the byte order a constant where the decoder
 * is specialized (sample_decode()). */
#define ALWAYS_INLINE inline __attribute__((always_inline))

static ALWAYS_INLINE void put64(bool sw, uint8_t *p, uint64_t v)
{
	if (sw)
		v = bswap_64(v);
	memcpy(p, &v, 8);
}

static ALWAYS_INLINE void put32(bool sw, uint8_t *p, uint32_t v)
{
	if (sw)
		v = bswap_32(v);
	memcpy(p, &v, 4);
}

static ALWAYS_INLINE void put16(bool sw, uint8_t *p, uint16_t v)
{
	if (sw)
		v = bswap_16(v);
	memcpy(p, &v, 2);
}

/* ---- decoder columns ---------------------------------------------------------- */

struct rcol {
	const uint8_t *p, *end;          /* the first stream */
	const uint8_t *hp, *hend;        /* the second */
};

/* LEB128, as put_varint() (codec_sample_enc.c) writes it: at most 10
 * bytes, the 10th holding only bit 63 (FORMAT.md §4.1). */
static inline bool get_varint(const uint8_t **pp, const uint8_t *end, uint64_t *v)
{
	const uint8_t *p = *pp;
	uint64_t x = 0;
	unsigned shift = 0;

	while (p < end && shift < 64) {
		uint8_t b = *p++;

		if (shift == 63 && b > 1)
			return false;

		x |= (uint64_t)(b & 0x7f) << shift;
		if (!(b & 0x80)) {
			*v = x;
			*pp = p;
			return true;
		}
		shift += 7;
	}
	return false;
}

/*
 * The next value of a number column.  columns_load() has checked that the
 * second stream ends a varint exactly where the first stream's bytes run
 * out (number_column_ok()), so a byte left in the first stream means a
 * varint left in the second: one bounds check covers both.
 */
static inline bool get_num(struct rcol *r, uint64_t *v)
{
	uint64_t hi;

	if (r->p >= r->end)
		return false;
	/* Most values fit in 15 bits: one byte in each stream. */
	if (*r->hp < 0x80) {
		*v = (uint64_t)*r->hp++ << 8 | *r->p++;
		return true;
	}
	if (!get_varint(&r->hp, r->hend, &hi) || hi > (UINT64_MAX >> 8))
		return false;
	*v = hi << 8 | *r->p++;
	return true;
}

static inline bool get_bytes(struct rcol *r, size_t n, const uint8_t **p)
{
	if (n > (size_t)(r->end - r->p))
		return false;
	*p = r->p;
	r->p += n;
	return true;
}

/* Whether column @r, a number column, holds as many varints in its second
 * stream (bytes below 0x80 end one) as bytes in its first, and its second
 * stream ends with a whole varint (FORMAT.md §4.1: one value is one byte
 * of each plus the rest of its varint).  Any other column is refused: it
 * could not be used up exactly. */
static bool number_column_ok(const struct rcol *r)
{
	const uint8_t *q = r->hp;
	size_t n = (size_t)(r->hend - r->hp), more = 0;

	/* Count the bytes that continue a varint, eight at a time: their
	 * top bits, gathered into the top byte by the multiplication. */
	for (; (size_t)(r->hend - q) >= 8; q += 8) {
		uint64_t w;

		memcpy(&w, q, 8);
		more += ((w >> 7) & 0x0101010101010101ull) * 0x0101010101010101ull >> 56;
	}
	for (; q < r->hend; q++)
		more += *q >> 7;
	return n - more == (size_t)(r->end - r->p) && (!n || r->hend[-1] < 0x80);
}

/* ---- decoding ------------------------------------------------------------------- */

struct dec {
	struct amb_sample_codec *c;
	struct rcol col[AMB_SAMPLE_COLUMNS];
	uint8_t *out;
	size_t pos, end;         /* write position, raw_size */
	char *why;
	size_t why_len;
};

static int dec_fail(struct dec *d, const char *fmt, ...) AMB_PRINTF(2, 3);
static int dec_fail(struct dec *d, const char *fmt, ...)
{
	va_list ap;

	if (d->why && d->why_len) {
		va_start(ap, fmt);
		vsnprintf(d->why, d->why_len, fmt, ap);
		va_end(ap);
	}
	return -AMB_E_DECOMPRESS;
}

static const char *const col_names[AMB_SAMPLE_COLUMNS] = {
	"head", "verbatim", "id", "tid", "time", "cpu", "period", "ip", "chain_ref",
	"chain_nodes", "addr", "fields", "regs", "stack_meta", "stack_data", "bytes",
};

/* A record being written: [start, lim) is where it may go. */
struct wr {
	uint8_t *p, *lim;
};

#define GET(d, i, v)                                                                   \
	do {                                                                           \
		if (!get_num(&(d)->col[i], (v)))                                        \
			return dec_fail((d), "sample record %zu: column %s ends early", \
					rec, col_names[i]);                            \
	} while (0)
/* Room in the record for @count items of @each bytes (counts come from
 * the payload: no product is formed that could wrap). */
#define ROOM_N(d, w, count, each)                                                      \
	do {                                                                           \
		if ((uint64_t)(count) > (uint64_t)((w)->lim - (w)->p) / (each))      \
			return dec_fail((d), "sample record %zu: longer than %s", rec,  \
					(w)->lim == (d)->out + (d)->end ? "raw_size"    \
									: "64 KiB"); \
	} while (0)
#define ROOM(d, w, n) ROOM_N(d, w, n, 1)

/* A u64 field of the fixed part, for which sample_decode_as() made room,
 * stored as the difference from its previous value. */
static ALWAYS_INLINE int get_fixed(struct dec *d, size_t rec, struct wr *w, enum sample_col col,
				   enum sample_prev f, bool sw)
{
	uint64_t v;

	GET(d, col, &v);
	d->c->prev[f] += unzz64(v);
	put64(sw, w->p, d->c->prev[f]);
	w->p += 8;
	return 0;
}

/* The same for a u64 field after the fixed part. */
static ALWAYS_INLINE int get_delta(struct dec *d, size_t rec, struct wr *w, enum sample_col col,
				   enum sample_prev f, bool sw)
{
	ROOM(d, w, 8);
	return get_fixed(d, rec, w, col, f, sw);
}

static int get_regs(struct dec *d, size_t rec, struct wr *w, struct rcol *col,
		    const uint8_t *ref, unsigned n)
{
	const bool sw = d->c->swap;

	ROOM(d, w, 8u * n);
	for (unsigned i = 0; i < n; i++) {
		uint64_t v;

		if (!get_num(col, &v))
			return dec_fail(d, "sample record %zu: registers end early", rec);
		put64(sw, w->p, unzz64(v) + (ref ? ld64(d->c, ref + 8 * i) : 0));
		w->p += 8;
	}
	return 0;
}

static int bytes_copy(struct dec *d, size_t rec, struct wr *w, enum sample_col col, uint64_t n)
{
	const uint8_t *p;

	ROOM(d, w, n);
	if (!get_bytes(&d->col[col], (size_t)n, &p))
		return dec_fail(d, "sample record %zu: column %s ends early", rec, col_names[col]);
	memcpy(w->p, p, (size_t)n);
	w->p += n;
	return 0;
}

/* The chain of a sample (chain_encode()): its index in *@ci. */
static int chain_decode(struct dec *d, size_t rec, uint32_t *ci_out)
{
	struct amb_sample_codec *c = d->c;
	uint64_t ref, base, k, v;
	uint32_t cur;

	GET(d, COL_CHAIN_REF, &ref);
	if (ref) {
		int rank = -1;
		uint64_t ci;

		if (ref <= RECENT_MAX) {
			if (ref > c->nr_recent)
				return dec_fail(d, "sample record %zu: recent chain %llu of %u", rec,
						(unsigned long long)ref - 1, c->nr_recent);
			rank = (int)ref - 1;
			ci = c->recent[rank];
		} else {
			ci = ref - RECENT_MAX - 1;
			if (ci >= c->nr_chains)
				return dec_fail(d, "sample record %zu: chain %llu of %zu", rec,
						(unsigned long long)ci, c->nr_chains);
			/* A chain in the list is referred to by its rank only. */
			for (unsigned i = 0; i < c->nr_recent; i++)
				if (c->recent[i] == ci)
					return dec_fail(d, "sample record %zu: chain %llu by index, not rank %u",
							rec, (unsigned long long)ci, i);
		}
		recent_touch(c, (uint32_t)ci, rank);
		*ci_out = (uint32_t)ci;
		return 0;
	}
	GET(d, COL_CHAIN_NODES, &base);
	GET(d, COL_CHAIN_NODES, &k);
	if (base >= c->nr_nodes)
		return dec_fail(d, "sample record %zu: new chain below node %llu of %zu",
				rec, (unsigned long long)base, c->nr_nodes);
	/* Each new entry takes at least a byte of the column: bounded. */
	if (k > (uint64_t)(d->col[COL_CHAIN_NODES].end - d->col[COL_CHAIN_NODES].p))
		return dec_fail(d, "sample record %zu: column chain_nodes ends early", rec);
	for (cur = (uint32_t)base; k > 0; k--) {
		uint32_t pred = node_pred(c, cur);
		long entry = pred;

		GET(d, COL_CHAIN_NODES, &v);
		switch (v & 3) {
		case 0:
			if (v)
				entry = addr_new(c, c->addrs[pred].addr + unzz64(v >> 2));
			break;
		case 1:
			if (v == 1) {
				GET(d, COL_CHAIN_NODES, &v);
				entry = addr_new(c, c->addrs[pred].addr + unzz64(v));
			} else if (v >> 2 <= 4095) {
				entry = addr_new(c, 0 - (v >> 2));
			} else {
				return dec_fail(d, "sample record %zu: chain entry code %llu", rec,
						(unsigned long long)v);
			}
			break;
		case 2:
			if (v >> 2 >= c->nr_addrs)
				return dec_fail(d, "sample record %zu: chain entry address %llu of %zu",
						rec, (unsigned long long)(v >> 2), c->nr_addrs);
			entry = (long)(v >> 2);
			break;
		default:
			return dec_fail(d, "sample record %zu: chain entry code %llu", rec,
					(unsigned long long)v);
		}
		if (entry < 0 || amb_sample_node_add(c, cur, (uint32_t)entry))
			return -ENOMEM;
		cur = (uint32_t)(c->nr_nodes - 1);
	}
	if (c->nr_chains >= UINT32_MAX || amb_sample_chain_add(c, cur))
		return -ENOMEM;
	recent_touch(c, (uint32_t)(c->nr_chains - 1), -1);
	*ci_out = (uint32_t)(c->nr_chains - 1);
	return 0;
}

/* The fields before READ, one u64 each (TID and CPU two u32s). */
#define FIXED_FIELDS (PS_IDENTIFIER | PS_IP | PS_TID | PS_TIME | PS_ADDR | PS_ID | PS_STREAM_ID | \
		      PS_CPU | PS_PERIOD)

/*
 * Decode sample @rec, whose head value was @code + 1, laid out as @st
 * with the byte order @sw: the layout's sample_type and its records'
 * order, constants where sample_decode() specializes it.
 */
static ALWAYS_INLINE int sample_decode_as(struct dec *d, size_t rec, uint16_t code,
					  const uint64_t st, const bool sw)
{
	struct amb_sample_codec *c = d->c;
	struct wr w = { d->out + d->pos, d->out + d->pos + AMB_MIN(d->end - d->pos, RECORD_MAX) };
	struct chain_ref *cr = NULL;
	struct thread_ref *t;
	uint32_t ci = 0;
	uint64_t v, n, pred;
	uint16_t misc;
	int err;

	/* The header and the fixed fields, IDENTIFIER to PERIOD, all u64s:
	 * room for them at once. */
	ROOM(d, &w, RECORD_HDR + 8 * (size_t)__builtin_popcountll(st & FIXED_FIELDS));
	w.p += RECORD_HDR;
	if (st & PS_CALLCHAIN) {
		err = chain_decode(d, rec, &ci);
		if (err)
			return err;
		cr = &c->chains_by_index[ci];
		c->rec_chain[rec] = ci;
	}
	misc = code ^ misc_pred(c, cr);
	if (cr)
		cr->misc = (uint32_t)misc + 1;
	c->prev[P_MISC] = misc;
	pred = chain_ip(c, cr);
	if ((st & PS_IDENTIFIER) && (err = get_fixed(d, rec, &w, COL_ID, P_IDENTIFIER, sw)))
		return err;
	if (st & PS_IP) {
		GET(d, COL_IP, &v);
		c->prev[P_IP] = pred + unzz64(v);
		put64(sw, w.p, c->prev[P_IP]);
		w.p += 8;
	}
	if (st & PS_TID) {
		uint64_t a, b;

		GET(d, COL_TID, &a);
		GET(d, COL_TID, &b);
		c->prev[P_PID] = (uint32_t)(c->prev[P_PID] + unzz32(a));
		c->prev[P_TID] = (uint32_t)(c->prev[P_TID] + unzz32(b));
		put32(sw, w.p, (uint32_t)c->prev[P_PID]);
		put32(sw, w.p + 4, (uint32_t)c->prev[P_TID]);
		w.p += 8;
	}
	if (st & PS_TIME) {
		GET(d, COL_TIME, &v);
		v = time_pred(c) + unzz64(v);
		time_push(c, v);
		c->prev[P_TIME] += v;
		put64(sw, w.p, c->prev[P_TIME]);
		w.p += 8;
	}
	if ((st & PS_ADDR) && (err = get_fixed(d, rec, &w, COL_ADDR, P_ADDR, sw)))
		return err;
	if ((st & PS_ID) && (err = get_fixed(d, rec, &w, COL_ID, P_ID, sw)))
		return err;
	if ((st & PS_STREAM_ID) && (err = get_fixed(d, rec, &w, COL_ID, P_STREAM_ID, sw)))
		return err;
	if (st & PS_CPU) {
		uint64_t a, b;

		GET(d, COL_CPU, &a);
		GET(d, COL_CPU, &b);
		if (b > UINT32_MAX)
			return dec_fail(d, "sample record %zu: cpu res %llu", rec, (unsigned long long)b);
		c->prev[P_CPU] = (uint32_t)(c->prev[P_CPU] + unzz32(a));
		put32(sw, w.p, (uint32_t)c->prev[P_CPU]);
		put32(sw, w.p + 4, (uint32_t)b);
		w.p += 8;
	}
	if ((st & PS_PERIOD) && (err = get_fixed(d, rec, &w, COL_PERIOD, P_PERIOD, sw)))
		return err;
	if (st & PS_READ) {
		n = 1;
		if (c->l.read_format & RF_GROUP) {
			GET(d, COL_FIELDS, &n);
			ROOM(d, &w, 8);
			put64(sw, w.p, n);
			w.p += 8;
			if (n > RECORD_MAX)
				return dec_fail(d, "sample record %zu: read group of %llu", rec,
						(unsigned long long)n);
		}
		n = read_words(c->l.read_format, n);
		ROOM_N(d, &w, n, 8);
		for (uint64_t i = 0; i < n; i++) {
			GET(d, COL_FIELDS, &v);
			v = unzz64(v);
			if (i < READ_PREV_MAX)
				v = c->prev_read[i] += v;
			put64(sw, w.p, v);
			w.p += 8;
		}
	}
	if (st & PS_CALLCHAIN) {
		uint32_t k = cr->node;
		uint8_t *e;

		n = cr->depth;
		ROOM(d, &w, 8 + 8 * n);  /* n: a node's depth, a u32 */
		put64(sw, w.p, n);
		e = w.p + 8;
		w.p += 8 + 8 * n;
		/* A chain written before is copied from there (the output
		 * holds the whole block); else its entries 1.. come from the
		 * leaf up, and the node at depth 1 is entry 0. */
		if (cr->out != SIZE_MAX) {
			const uint8_t *from = d->out + cr->out;

			if (n <= 16) {
				for (uint64_t i = 0; i < n; i++)
					memcpy(e + 8 * i, from + 8 * i, 8);
			} else {
				memcpy(e, from, 8 * n);
			}
		} else {
			cr->out = (size_t)(e - d->out);
			for (; c->nodes[k].depth > 1; k = c->nodes[k].parent) {
				e += 8;
				put64(sw, e, c->nodes[k].addr);
			}
			if (n)
				put64(sw, w.p - 8 * n, c->nodes[k].addr);
		}
	}
	if (st & PS_RAW) {
		GET(d, COL_FIELDS, &n);
		ROOM(d, &w, 4);
		if (n > UINT32_MAX)
			return dec_fail(d, "sample record %zu: raw size %llu", rec, (unsigned long long)n);
		put32(sw, w.p, (uint32_t)n);
		w.p += 4;
		if ((err = bytes_copy(d, rec, &w, COL_BYTES, n)))
			return err;
	}
	if (st & PS_BRANCH_STACK) {
		uint64_t from = 0, to, flags;

		GET(d, COL_FIELDS, &n);
		ROOM(d, &w, 8);
		put64(sw, w.p, n);
		w.p += 8;
		if (c->l.flags & AMB_SAMPLE_BRANCH_HW_INDEX) {
			GET(d, COL_FIELDS, &v);
			ROOM(d, &w, 8);
			put64(sw, w.p, unzz64(v));
			w.p += 8;
		}
		ROOM_N(d, &w, n, 24);
		for (uint64_t i = 0; i < n; i++) {
			GET(d, COL_FIELDS, &v);
			GET(d, COL_FIELDS, &to);
			GET(d, COL_FIELDS, &flags);
			from += unzz64(v);
			put64(sw, w.p, from);
			put64(sw, w.p + 8, from + unzz64(to));
			put64(sw, w.p + 16, flags);
			w.p += 24;
		}
	}
	if (st & PS_REGS_USER) {
		GET(d, COL_REGS, &v);
		ROOM(d, &w, 8);
		put64(sw, w.p, v);
		w.p += 8;
		if (v) {
			uint8_t *regs = w.p;

			t = amb_sample_thread_get(c, (st & PS_TID) ? (uint32_t)c->prev[P_TID] : 0);
			if (!t)
				return -ENOMEM;
			err = get_regs(d, rec, &w, &d->col[COL_REGS],
				       t->has_regs ? d->out + t->regs : NULL, c->nr_regs_user);
			if (err)
				return err;
			t->regs = (size_t)(regs - d->out);
			t->has_regs = true;
		}
	}
	if (st & PS_STACK_USER) {
		GET(d, COL_STACK_META, &n);
		ROOM(d, &w, 8);
		put64(sw, w.p, n);
		w.p += 8;
		if (n) {
			uint64_t dyn, tail;

			GET(d, COL_STACK_META, &dyn);
			GET(d, COL_STACK_META, &tail);
			if (dyn > n || tail > 1)
				return dec_fail(d, "sample record %zu: stack dyn_size %llu of %llu, tail %llu",
						rec, (unsigned long long)dyn, (unsigned long long)n,
						(unsigned long long)tail);
			ROOM(d, &w, n);
			ROOM(d, &w, n + 8);
			if ((err = bytes_copy(d, rec, &w, COL_STACK_DATA, tail ? n : dyn)))
				return err;
			if (!tail) {
				memset(w.p, 0, (size_t)(n - dyn));
				w.p += n - dyn;
			}
			put64(sw, w.p, dyn);
			w.p += 8;
		}
	}
	if ((st & (PS_WEIGHT | PS_WEIGHT_STRUCT)) &&
	    (err = get_delta(d, rec, &w, COL_FIELDS, P_WEIGHT, sw)))
		return err;
	if ((st & PS_DATA_SRC) && (err = get_delta(d, rec, &w, COL_FIELDS, P_DATA_SRC, sw)))
		return err;
	if ((st & PS_TRANSACTION) && (err = get_delta(d, rec, &w, COL_FIELDS, P_TRANSACTION, sw)))
		return err;
	if (st & PS_REGS_INTR) {
		GET(d, COL_FIELDS, &v);
		ROOM(d, &w, 8 + 8u * (v ? c->nr_regs_intr : 0));
		put64(sw, w.p, v);
		w.p += 8;
		for (unsigned i = 0; v && i < c->nr_regs_intr; i++) {
			uint64_t x;

			GET(d, COL_FIELDS, &x);
			c->prev_intr[i] += unzz64(x);
			put64(sw, w.p, c->prev_intr[i]);
			w.p += 8;
		}
	}
	if ((st & PS_PHYS_ADDR) && (err = get_delta(d, rec, &w, COL_FIELDS, P_PHYS_ADDR, sw)))
		return err;
	if ((st & PS_CGROUP) && (err = get_delta(d, rec, &w, COL_FIELDS, P_CGROUP, sw)))
		return err;
	if ((st & PS_DATA_PAGE_SIZE) && (err = get_delta(d, rec, &w, COL_FIELDS, P_DATA_PAGE_SIZE, sw)))
		return err;
	if ((st & PS_CODE_PAGE_SIZE) && (err = get_delta(d, rec, &w, COL_FIELDS, P_CODE_PAGE_SIZE, sw)))
		return err;
	if (st & PS_AUX) {
		GET(d, COL_FIELDS, &n);
		ROOM(d, &w, 8);
		put64(sw, w.p, n);
		w.p += 8;
		if ((err = bytes_copy(d, rec, &w, COL_BYTES, n)))
			return err;
	}
	n = (uint64_t)(w.p - (d->out + d->pos));
	put32(sw, d->out + d->pos, RECORD_SAMPLE);
	put16(sw, d->out + d->pos + 4, misc);
	put16(sw, d->out + d->pos + 6, (uint16_t)n);
	d->pos += (size_t)n;
	return 0;
}
/* The layout of `-g` recordings in this host's byte order has its own
 * copy of the decoder, with every test of the layout made at compile
 * time. */
#define COMMON_G (PS_IDENTIFIER | PS_IP | PS_TID | PS_TIME | PS_CPU | PS_PERIOD | PS_CALLCHAIN)

static int sample_decode(struct dec *d, size_t rec, uint16_t code)
{
	const struct amb_sample_codec *c = d->c;

	if (c->l.sample_type == COMMON_G && !c->swap)
		return sample_decode_as(d, rec, code, COMMON_G, false);
	return sample_decode_as(d, rec, code, c->l.sample_type, c->swap);
}
#undef GET
#undef ROOM

/* Read the payload header and stream directory, and decompress the
 * streams into @d->col. */
static int columns_load(struct dec *d, const uint8_t *in, size_t in_len, size_t raw_size,
			uint64_t *checksum, uint32_t *records)
{
	struct amb_sample_codec *c = d->c;
	struct amb_sample_layout l;
	uint64_t raw_len[AMB_SAMPLE_STREAMS], stored_len[AMB_SAMPLE_STREAMS], total = 0;
	const uint8_t *p, *end;
	size_t hdr_len, at;
	int err;

	if (in_len < AMB_SAMPLE_HDR_SIZE)
		return dec_fail(d, "sample payload of %zu bytes is shorter than its header", in_len);
	hdr_len = amb_get_le16(in);
	if (hdr_len < AMB_SAMPLE_HDR_SIZE || hdr_len > in_len || in[2] != SAMPLE_VERSION)
		return dec_fail(d, "sample payload header: length %zu, version %u", hdr_len, in[2]);
	memset(&l, 0, sizeof(l));
	l.byte_order = in[3];
	l.flags = in[4];
	l.sample_type = amb_get_le64(in + 8);
	l.read_format = amb_get_le64(in + 16);
	l.regs_user = amb_get_le64(in + 24);
	l.regs_intr = amb_get_le64(in + 32);
	*checksum = amb_get_le64(in + 40);
	*records = amb_get_le32(in + 48);
	if ((l.byte_order != AMB_ENDIAN_LITTLE && l.byte_order != AMB_ENDIAN_BIG) ||
	    (l.flags & ~AMB_SAMPLE_BRANCH_HW_INDEX) || (l.sample_type & ~PS_KNOWN) ||
	    (l.read_format & ~RF_KNOWN) || amb_get_le32(in + 52) != AMB_SAMPLE_STREAMS)
		return dec_fail(d, "sample payload header: byte order %u, flags 0x%x, sample_type 0x%llx, read_format 0x%llx or %u streams not known",
				l.byte_order, l.flags, (unsigned long long)l.sample_type,
				(unsigned long long)l.read_format, amb_get_le32(in + 52));
	if (in[5] || amb_get_le16(in + 6) || amb_get_le64(in + 56))
		return dec_fail(d, "sample payload header: reserved field not zero");
	err = amb_sample_codec_reset(c, &l);
	if (err)
		return err;

	p = in + hdr_len;
	end = in + in_len;
	for (size_t i = 0; i < AMB_SAMPLE_STREAMS; i++) {
		stored_len[i] = 0;
		if (!get_varint(&p, end, &raw_len[i]) ||
		    (raw_len[i] && !get_varint(&p, end, &stored_len[i])))
			return dec_fail(d, "sample payload: stream directory ends early");
		if (raw_len[i] > AMB_SAMPLE_STREAMS_MAX(raw_size) || stored_len[i] > raw_len[i])
			return dec_fail(d, "sample payload: stream %zu (%s) of %llu bytes stored in %llu",
					i, col_names[i / 2], (unsigned long long)raw_len[i],
					(unsigned long long)stored_len[i]);
		/* Raw streams are used in place: only the others need room. */
		if (stored_len[i] != raw_len[i])
			total += raw_len[i];
	}
	if (total > AMB_SAMPLE_STREAMS_MAX(raw_size))
		return dec_fail(d, "sample payload: streams of %llu bytes in all, over the cap for raw_size %zu",
				(unsigned long long)total, raw_size);
	if (amb_big_reserve(&c->scratch, &c->scratch_cap, &c->scratch_map, (size_t)total))
		return -ENOMEM;

	at = 0;
	for (size_t i = 0; i < AMB_SAMPLE_STREAMS; i++) {
		const uint8_t *src = p, *start;
		size_t got = (size_t)raw_len[i];

		if (stored_len[i] > (uint64_t)(end - p))
			return dec_fail(d, "sample payload: stream %zu (%s) ends beyond the payload",
					i, col_names[i / 2]);
		p += stored_len[i];
		if (stored_len[i] == raw_len[i]) {
			start = src;
		} else if (stored_len[i] == 0) {
			memset(c->scratch + at, 0, got);
			start = c->scratch + at;
		} else {
			/* One frame, and nothing after it (FORMAT.md §4.1). */
			got = ZSTD_findFrameCompressedSize(src, (size_t)stored_len[i]);
			if (ZSTD_isError(got) || got != stored_len[i])
				return dec_fail(d, "sample payload: stream %zu (%s) is not one whole zstd frame",
						i, col_names[i / 2]);
			got = ZSTD_decompressDCtx(c->dctx, c->scratch + at, (size_t)raw_len[i], src,
						  (size_t)stored_len[i]);
			if (ZSTD_isError(got) || got != raw_len[i])
				return dec_fail(d, "sample payload: stream %zu (%s) does not decode to %llu bytes: %s",
						i, col_names[i / 2], (unsigned long long)raw_len[i],
						ZSTD_isError(got) ? ZSTD_getErrorName(got) : "short");
			start = c->scratch + at;
		}
		if (stored_len[i] != raw_len[i])
			at += got;
		if (i % 2 == 0) {
			d->col[i / 2].p = start;
			d->col[i / 2].end = start + got;
		} else {
			d->col[i / 2].hp = start;
			d->col[i / 2].hend = start + got;
		}
	}
	if (p != end)
		return dec_fail(d, "sample payload: %zu bytes after the last stream",
				(size_t)(end - p));
	for (size_t k = 0; k < AMB_SAMPLE_COLUMNS; k++) {
		if (k == COL_VERBATIM || k == COL_STACK_DATA || k == COL_BYTES)
			continue;
		if (!number_column_ok(&d->col[k]))
			return dec_fail(d, "sample payload: column %s: %zu values in its first stream, not as many in its second",
					col_names[k], (size_t)(d->col[k].end - d->col[k].p));
	}
	return 0;
}

int amb_sample_decode(struct amb_sample_codec *c, const void *stored, size_t stored_len,
		      void *out, size_t raw_size, char *why, size_t why_len)
{
	struct dec d = { .c = c, .out = out, .end = raw_size, .why = why, .why_len = why_len };
	uint64_t checksum = 0, computed;
	uint32_t records = 0;
	size_t rec;
	int err;

	c->nr_rec_chain = 0;
	if (!c->dctx && !(c->dctx = ZSTD_createDCtx()))
		return -ENOMEM;
	err = columns_load(&d, stored, stored_len, raw_size, &checksum, &records);
	if (err)
		return err;
	/* Records take 8 bytes at least: a count that cannot fit raw_size
	 * allocates nothing. */
	if ((uint64_t)records * RECORD_HDR > raw_size)
		return dec_fail(&d, "sample payload: %u records cannot fit %zu bytes", records,
				raw_size);
	if (amb_ensure_cap((void **)&c->rec_chain, &c->cap_rec_chain, sizeof(*c->rec_chain),
			   records ? records : 1))
		return -ENOMEM;
	for (rec = 0; rec < records; rec++) {
		uint64_t head;

		c->rec_chain[rec] = UINT32_MAX;

		if (!get_num(&d.col[COL_HEAD], &head))
			return dec_fail(&d, "record %zu of %u: column head ends early", rec, records);
		if (head == 0) {
			const uint8_t *p;
			uint16_t size;

			if (d.col[COL_VERBATIM].end - d.col[COL_VERBATIM].p < RECORD_HDR)
				return dec_fail(&d, "record %zu: column verbatim ends early", rec);
			size = ld16(c, d.col[COL_VERBATIM].p + 6);
			if (size < RECORD_HDR || size > d.end - d.pos ||
			    !get_bytes(&d.col[COL_VERBATIM], size, &p))
				return dec_fail(&d, "record %zu: verbatim record of %u bytes does not fit",
						rec, size);
			memcpy(d.out + d.pos, p, size);
			d.pos += size;
			continue;
		}
		if (head - 1 > 0xffff)
			return dec_fail(&d, "sample record %zu: misc 0x%llx", rec,
					(unsigned long long)head - 1);
		err = sample_decode(&d, rec, (uint16_t)(head - 1));
		if (err)
			return err;
	}
	if (d.pos != raw_size)
		return dec_fail(&d, "sample payload decodes to %zu bytes, not raw_size %zu", d.pos,
				raw_size);
	for (size_t i = 0; i < AMB_SAMPLE_COLUMNS; i++)
		if (d.col[i].p != d.col[i].end || d.col[i].hp != d.col[i].hend)
			return dec_fail(&d, "sample payload: %zu bytes left in column %s",
					(size_t)(d.col[i].end - d.col[i].p) +
					(size_t)(d.col[i].hend - d.col[i].hp), col_names[i]);
	computed = amb_checksum(out, raw_size);
	if (computed != checksum) {
		if (why && why_len)
			snprintf(why, why_len,
				 "decoded sample payload checksum mismatch (stored 0x%016llx, computed 0x%016llx)",
				 (unsigned long long)checksum, (unsigned long long)computed);
		return -AMB_E_PAYLOAD_CHECKSUM;
	}
	c->nr_rec_chain = records;
	return 0;
}
