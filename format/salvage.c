// SPDX-License-Identifier: MIT
/*
 * format/salvage.c - copy every intact block of a damaged or unclosed file
 * into a new, closed file (FORMAT.md §7, "Salvaging").
 *
 * A damaged file header loses no block: the blocks are found by scanning
 * (each block header checks itself), and the producer fields the new
 * header needs are taken from the damaged one where they are plausible,
 * else inferred from the blocks: the byte order from an EVENT_ATTR entry
 * (perf_event_attr.size, at offset 4 of the attr, equals attr_size in the
 * producer's order), the machine from META uname.machine.
 */
#include "format/format_internal.h"

#include <errno.h>
#include <string.h>

#include <amber/common.h>

/* The first decodable payload of a block of @type, or NULL. */
static const void *first_payload(struct amb_reader *r, struct amb_payload *p, unsigned type,
				 size_t *len)
{
	const struct amb_block_filter f = { (int)type, -1, 0, 0 };
	const void *data;
	size_t i;

	amb_reader_for_each_block(r, &f, i)
		if (!amb_reader_load(r, i, p, &data, len))
			return data;
	return NULL;
}

/* The producer's byte order, from the first EVENT_ATTR entry; 0 if none. */
static uint8_t infer_endian(struct amb_reader *r, struct amb_payload *p)
{
	struct amb_event_entry e;
	struct amb_cursor c;
	const void *data;
	size_t len;

	data = first_payload(r, p, AMB_BLOCK_EVENT_ATTR, &len);
	if (!data)
		return 0;
	amb_cursor_init(&c, data, len);
	if (amb_event_next(&c, &e) != 1 || e.attr_size < 8)
		return 0;
	if (amb_get_le32(e.attr + 4) == e.attr_size)
		return AMB_ENDIAN_LITTLE;
	if (((uint32_t)e.attr[4] << 24 | (uint32_t)e.attr[5] << 16 | (uint32_t)e.attr[6] << 8 |
	     e.attr[7]) == e.attr_size)
		return AMB_ENDIAN_BIG;
	return 0;
}

/* The producer's ELF machine from META uname.machine; 0 if unknown. */
static uint16_t infer_machine(struct amb_reader *r, struct amb_payload *p)
{
	static const struct { const char *uname; uint16_t machine; } names[] = {
		{ "x86_64", 62 }, { "aarch64", 183 }, { "i386", 3 }, { "i486", 3 },
		{ "i586", 3 }, { "i686", 3 }, { "armv7l", 40 }, { "armv6l", 40 },
		{ "ppc64le", 21 }, { "ppc64", 21 }, { "ppc", 20 }, { "s390x", 22 },
		{ "riscv64", 243 },
	};
	const struct amb_block_filter f = { AMB_BLOCK_META, -1, 0, 0 };
	uint16_t m = 0;
	size_t i;

	amb_reader_for_each_block(r, &f, i) {
		struct amb_cursor c;
		const void *data;
		struct amb_kv kv;
		size_t len;

		if (amb_reader_load(r, i, p, &data, &len))
			continue;
		amb_cursor_init(&c, data, len);
		while (amb_kv_next(&c, &kv) == 1) {
			if (kv.key_len != 13 || memcmp(kv.key, "uname.machine", 13))
				continue;
			for (size_t k = 0; k < AMB_ARRAY_SIZE(names); k++)
				if (kv.val_len == strlen(names[k].uname) &&
				    !memcmp(kv.val, names[k].uname, kv.val_len))
					m = names[k].machine;
		}
	}
	return m;
}

/*
 * The producer fields of @o that the damaged header of @r leaves unknown
 * (zero), inferred from its blocks; what was assumed is said through a
 * warning.
 */
static void infer_producer(struct amb_reader *r, struct amb_writer_opts *o)
{
	static const uint8_t zero[16];
	struct amb_payload *p = amb_payload_new();
	const char *endian = "as its header says", *machine = "as its header says";

	if (!p)
		return;
	if (!o->producer_endian) {
		o->producer_endian = infer_endian(r, p);
		endian = o->producer_endian ? "from its event attributes" : "unknown: this host's";
	}
	if (!o->producer_machine) {
		o->producer_machine = infer_machine(r, p);
		machine = o->producer_machine ? "from META uname.machine" : "unknown: this host's";
	}
	if (!o->producer_word_size && o->producer_machine)
		o->producer_word_size = o->producer_machine == 3 || o->producer_machine == 40 ||
					o->producer_machine == 20 ? 4 : 8;
	if (!memcmp(o->uuid, zero, sizeof(zero)))
		o->uuid = NULL;   /* a new one */
	amb_warn("the file header is damaged: the salvaged copy has the producer's byte order %s, "
		 "its machine %s, and %s", endian, machine,
		 o->uuid ? "the damaged header's uuid and time, which nothing checks" : "a new uuid");
	amb_payload_free(p);
}

long amb_salvage(const char *in, const char *out)
{
	AMB_OPTS(amb_writer_opts, o);
	AMB_OPTS(amb_copy_opts, co, .flags = AMB_COPY_DECODE | AMB_COPY_SKIP_DAMAGED);
	struct amb_writer *w = NULL;
	struct amb_reader *r = NULL;
	bool damaged;
	long saved = 0;
	int err;

	/* Scan: the index of a damaged file is the last thing to trust, and
	 * a damaged file header loses no block. */
	err = amb_reader_open_salvage(in, &r, &damaged);
	if (err)
		return err;
	/* No header and no block: not a recording at all; nothing is written. */
	if (damaged && !amb_reader_block_count(r)) {
		err = amb_reader_problem(r, 0)->err;
		goto out;
	}
	err = amb_writer_opts_from(&o, r);
	if (err)
		goto out;
	if (damaged)
		infer_producer(r, &o);
	o.threads = 0;
	o.zstd_level = 0;  /* payloads are copied as stored */
	err = amb_writer_open(out, &o, &w);
	if (err)
		goto out;
	/* Intact: checksum good and decodes to raw_size (the copy warns about
	 * the others and leaves them out). */
	saved = amb_copy_blocks(r, w, &co);
	if (saved < 0) {
		err = (int)saved;
		goto out;
	}
	err = amb_writer_close(w);
	w = NULL;
out:
	if (w)
		amb_writer_close(w);
	amb_reader_close(r);
	return err ? err : saved;
}
