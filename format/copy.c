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
#include <stdlib.h>
#include <string.h>

#include <amber/common.h>
#include "common/util.h"

#define AMB_COPY_KNOWN_FLAGS (AMB_COPY_SKIP_DAMAGED | AMB_COPY_DECODE | AMB_COPY_RECODE)

/* AMB_COPY_RECODE: the RING records of one stream waiting to be joined. */
struct ring_pending {
	uint32_t stream;
	struct amb_buf data;
	struct amb_block_desc d;
};

struct ring_join {
	size_t limit;               /* raw bytes of a joined block */
	struct ring_pending *v;
	size_t n, cap;
	size_t total;               /* bytes waiting in all */
};

/* Append the records waiting for @pd as one block and empty it. */
static int join_flush(struct amb_writer *w, struct ring_join *j, struct ring_pending *pd)
{
	int err;

	if (!pd->data.len)
		return 0;
	/* The writer takes the bytes over (it would copy them otherwise);
	 * the stream's next records start a new buffer. */
	j->total -= pd->data.len;
	err = amb_writer_append_owned(w, &pd->d, pd->data.data, pd->data.len);
	pd->data = (struct amb_buf)AMB_BUF_INIT;
	memset(&pd->d, 0, sizeof(pd->d));
	return err;
}

/*
 * Add RING block @bi's @len raw bytes to its stream's waiting records,
 * writing them out first when the block would not fit; bounded as a whole
 * too: a few joined blocks' worth wait at most, the biggest going first.
 */
static int join_add(struct amb_writer *w, struct ring_join *j, const struct amb_block_info *bi,
		    const void *data, size_t len)
{
	struct ring_pending *pd = NULL;
	int err;

	for (size_t i = 0; i < j->n; i++)
		if (j->v[i].stream == bi->stream)
			pd = &j->v[i];
	if (!pd) {
		if (amb_ensure_cap((void **)&j->v, &j->cap, sizeof(*j->v), j->n + 1))
			return -ENOMEM;
		pd = &j->v[j->n++];
		memset(pd, 0, sizeof(*pd));
		pd->stream = bi->stream;
	}
	if (pd->data.len && pd->data.len + len > j->limit) {
		err = join_flush(w, j, pd);
		if (err)
			return err;
	}
	while (j->total + len > 4 * j->limit) {
		struct ring_pending *big = &j->v[0];

		for (size_t i = 1; i < j->n; i++)
			if (j->v[i].data.len > big->data.len)
				big = &j->v[i];
		err = join_flush(w, j, big);
		if (err)
			return err;
	}
	/* A joined block's room at once: no copies as it grows (the pages
	 * not written to cost nothing). */
	if (!pd->data.len && amb_buf_reserve(&pd->data, AMB_MAX(len, j->limit)))
		return -ENOMEM;
	if (amb_buf_append(&pd->data, data, len))
		return -ENOMEM;
	j->total += len;
	if (!pd->d.type) {
		pd->d = (struct amb_block_desc){ AMB_BLOCK_RING, bi->stream, 0, 0, 0 };
	}
	pd->d.record_count += bi->record_count;
	/* Blocks without times (0, 0) do not narrow the range. */
	if (bi->first_time || bi->last_time) {
		if (!pd->d.first_time || bi->first_time < pd->d.first_time)
			pd->d.first_time = bi->first_time;
		if (bi->last_time > pd->d.last_time)
			pd->d.last_time = bi->last_time;
	}
	return 0;
}

/* AMB_COPY_RECODE: block @bi, decoded into @data, appended anew (or joined). */
static int copy_recode(struct amb_writer *w, struct ring_join *j, const struct amb_block_info *bi,
		       const void *data, size_t len)
{
	struct amb_block_desc d = { bi->type, bi->stream, bi->record_count, bi->first_time,
				    bi->last_time };

	if (bi->type == AMB_BLOCK_RING && j->limit)
		return join_add(w, j, bi, data, len);
	return amb_writer_append(w, &d, data, len);
}

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
	struct ring_join join = { 0 };
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
	if (flags & AMB_COPY_RECODE)
		join.limit = AMB_MIN(AMB_OPTS_GET(opts, ring_join, (size_t)0), (size_t)AMB_BLOCK_RAW_MAX);
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
		if (flags & (AMB_COPY_DECODE | AMB_COPY_RECODE))
			err = amb_reader_load(r, i, p, &data, &len);
		if (!err && !(flags & AMB_COPY_RECODE))
			err = amb_reader_load_stored(r, i, p, &stored, &stored_len, &info);
		if (err && err != -ENOMEM && (flags & AMB_COPY_SKIP_DAMAGED)) {
			amb_warn("%s; not copied", amb_payload_errmsg(p));
			err = 0;
			continue;
		}
		if (!err && (flags & AMB_COPY_RECODE))
			err = copy_recode(w, &join, bi, data, len);
		else if (!err)
			err = amb_writer_append_stored(w, &info, stored, stored_len);
		if (err)
			break;
		copied++;
	}
	for (size_t k = 0; k < join.n; k++) {
		if (!err)
			err = join_flush(w, &join, &join.v[k]);
		amb_buf_free(&join.v[k].data);
	}
	free(join.v);
	amb_payload_free(p);
	return err ? err : copied;
}
