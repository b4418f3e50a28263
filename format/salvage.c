// SPDX-License-Identifier: MIT
/*
 * format/salvage.c - copy every intact block of a damaged or unclosed file
 * into a new, closed file (FORMAT.md §7).
 */
#include "format/format_internal.h"

#include <errno.h>

#include <amber/common.h>

long amb_salvage(const char *in, const char *out)
{
	AMB_OPTS(amb_writer_opts, o);
	AMB_OPTS(amb_copy_opts, co, .flags = AMB_COPY_DECODE | AMB_COPY_SKIP_DAMAGED);
	struct amb_writer *w = NULL;
	struct amb_reader *r = NULL;
	long saved = 0;
	int err;

	/* Scan: the index of a damaged file is the last thing to trust. */
	err = amb_reader_open(in, AMB_READ_SCAN, &r);
	if (err)
		return err;
	err = amb_writer_opts_from(&o, r);
	if (err)
		goto out;
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
