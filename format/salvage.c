// SPDX-License-Identifier: MIT
/*
 * format/salvage.c - copy every intact block of a damaged or unclosed file
 * into a new, closed file (FORMAT.md §7).
 */
#include "format/format_internal.h"

#include <errno.h>

#include "common/common.h"

long amb_salvage(const char *in, const char *out)
{
	struct amb_writer_opts o;
	const struct amb_file_header *fh;
	struct amb_writer *w = NULL;
	struct amb_reader *r = NULL;
	struct amb_payload *p = NULL;
	long saved = 0;
	int err;

	/* Scan: the index of a damaged file is the last thing to trust. */
	err = amb_reader_open(in, AMB_READ_SCAN, &r);
	if (err)
		return err;
	p = amb_payload_new();
	if (!p) {
		err = -ENOMEM;
		goto out;
	}
	fh = amb_reader_header(r);
	amb_writer_opts_init(&o);
	o.threads = 0;
	o.zstd_level = 0;  /* payloads are copied as stored */
	o.producer_endian = fh->producer_endian;
	o.producer_word_size = fh->producer_word_size;
	o.producer_machine = fh->producer_machine;
	o.uuid = fh->uuid;
	o.created_ns = fh->created_ns;
	err = amb_writer_open(out, &o, &w);
	if (err)
		goto out;

	for (size_t i = 0; i < amb_reader_block_count(r); i++) {
		const struct amb_block_info *bi = amb_reader_block(r, i);
		struct amb_block_info info;
		const void *stored, *data;
		size_t len, stored_len;

		if (bi->type == AMB_BLOCK_INDEX || bi->type == AMB_BLOCK_TRAILER)
			continue;
		/* Intact: checksum good and decodes to raw_size (reported by the
		 * reader's warning callback otherwise).  Decoding is the proof;
		 * what is copied is the stored payload, verbatim. */
		err = amb_reader_load(r, i, p, &data, &len);
		if (!err)
			err = amb_reader_load_stored(r, i, p, &stored, &stored_len, &info);
		if (err == -ENOMEM)
			goto out;
		if (err) {
			amb_warn("salvage: skipping %s", amb_payload_errmsg(p));
			continue;
		}
		/* Same codec and payload checksum; new seq. */
		err = amb_writer_append_stored(w, &info, stored, stored_len);
		if (err)
			goto out;
		saved++;
	}
	err = amb_writer_close(w);
	w = NULL;
out:
	if (w)
		amb_writer_close(w);
	amb_payload_free(p);
	amb_reader_close(r);
	return err ? err : saved;
}
