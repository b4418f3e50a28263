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

void amb_writer_opts_from(struct amb_writer_opts *o, const struct amb_reader *r)
{
	const struct amb_file_header *fh = amb_reader_header(r);

	amb_writer_opts_init(o);
	o->producer_endian = fh->producer_endian;
	o->producer_word_size = fh->producer_word_size;
	o->producer_machine = fh->producer_machine;
	o->uuid = fh->uuid;
	o->created_ns = fh->created_ns;
}

long amb_copy_blocks(struct amb_reader *r, struct amb_writer *w, unsigned flags,
		     amb_copy_fn fn, void *ctx)
{
	struct amb_payload *p = amb_payload_new();
	long copied = 0;
	int err = 0;

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
