// SPDX-License-Identifier: MIT
/*
 * format/copy.c - make a new file from the blocks of another: the payloads
 * are copied as stored (same codec, bytes and payload checksum), the blocks
 * renumbered, and the new file gets its own index and trailer.  Salvage,
 * `amber-analyze archive` and the recorder's kernel-symbol trim are built
 * on it.
 */
#include "format/format_internal.h"

#include <errno.h>

#include <amber/common.h>

#define AMB_COPY_KNOWN_FLAGS (AMB_COPY_SKIP_DAMAGED | AMB_COPY_DECODE)

int amb_writer_opts_from(struct amb_writer_opts *o, const struct amb_reader *r)
{
	const struct amb_file_header *fh = amb_reader_header(r);

	/* Written into the caller's struct: only the fields its sz holds. */
	if (!o || !AMB_OPTS_VALID(o, amb_writer_opts))
		return -EINVAL;
	if (AMB_OPTS_HAS(o, producer_endian))
		o->producer_endian = fh->producer_endian;
	if (AMB_OPTS_HAS(o, producer_word_size))
		o->producer_word_size = fh->producer_word_size;
	if (AMB_OPTS_HAS(o, producer_machine))
		o->producer_machine = fh->producer_machine;
	if (AMB_OPTS_HAS(o, uuid))
		o->uuid = fh->uuid;
	if (AMB_OPTS_HAS(o, created_ns))
		o->created_ns = fh->created_ns;
	return 0;
}

long amb_copy_blocks(struct amb_reader *r, struct amb_writer *w,
		     const struct amb_copy_opts *opts)
{
	unsigned flags = AMB_OPTS_GET(opts, flags, 0);
	amb_copy_fn fn = AMB_OPTS_GET(opts, fn, NULL);
	void *ctx = AMB_OPTS_GET(opts, ctx, NULL);
	struct amb_payload *p;
	long copied = 0;
	int err = 0;

	if (!AMB_OPTS_VALID(opts, amb_copy_opts))
		return -EINVAL;
	if (flags & ~AMB_COPY_KNOWN_FLAGS) {
		amb_warn("struct amb_copy_opts: unknown flags 0x%x",
			 flags & ~AMB_COPY_KNOWN_FLAGS);
		return -EINVAL;
	}
	p = amb_payload_new();
	if (!p)
		return -ENOMEM;
	for (size_t i = 0; i < amb_reader_block_count(r); i++) {
		const struct amb_block_info *bi = amb_reader_block(r, i);
		struct amb_block_info info;
		const void *stored, *data;
		size_t len, stored_len;

		if (bi->type == AMB_BLOCK_INDEX || bi->type == AMB_BLOCK_TRAILER)
			continue;
		if (fn) {
			err = fn(ctx, w, bi, i);
			if (err < 0)
				break;
			if (!err)
				continue;
		}
		/* With AMB_COPY_DECODE, decoding to raw_size is the proof that a
		 * block is intact; what is copied is the stored payload. */
		err = 0;
		if (flags & AMB_COPY_DECODE)
			err = amb_reader_load(r, i, p, &data, &len);
		if (!err)
			err = amb_reader_load_stored(r, i, p, &stored, &stored_len, &info);
		if (err && err != -ENOMEM && (flags & AMB_COPY_SKIP_DAMAGED)) {
			amb_warn("%s; not copied", amb_payload_errmsg(p));
			err = 0;
			continue;
		}
		if (!err)
			err = amb_writer_append_stored(w, &info, stored, stored_len);
		if (err)
			break;
		copied++;
	}
	amb_payload_free(p);
	return err ? err : copied;
}
