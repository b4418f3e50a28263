// SPDX-License-Identifier: MIT
/*
 * format/writer.c - write an .amber file block by block (FORMAT.md §9).
 *
 * With threads = 0 the appending thread produces each block (encodes,
 * numbers and writes it) under io_lock.  With threads = N the appends
 * queue jobs, numbered in append order, and N background threads take
 * them from the queue in that order and encode them, each with its own
 * compression state (struct amb_enc), N at a time; a thread then waits
 * for its job's turn (next_emit) and writes the block.  Either way one
 * party at a time writes: it owns next_seq, end and the index entries.
 * `lock` protects the queue, the turns, the statistics, which any thread
 * may read, and the sample layout once learnt.
 */
#include "format/format_internal.h"

#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>
#include <sys/uio.h>
#include <time.h>
#include <unistd.h>

#include <zstd.h>

#include <amber/common.h>

#define AMB_DEFAULT_MAX_QUEUED (64u << 20)

struct amb_job {
	struct amb_job *next;
	uint64_t order;            /* its place among the appends, from 0 */
	struct amb_block_desc desc;
	void *data;
	size_t len;
	bool layout;               /* the sample layout applies (ring_codec) */
	/* amb_writer_append_stored(): @data is encoded already. */
	bool stored;
	uint8_t codec;
	uint64_t raw_size;
	uint64_t checksum;
};

/* What encoding blocks takes: the zstd context and the buffers; one for
 * the appending thread (and the close), one per background thread. */
struct amb_enc {
	ZSTD_CCtx *cctx;
	uint8_t *cbuf;
	size_t cbuf_cap;
	/* ring_codec = AMB_CODEC_SAMPLE: the codec's state, its output and
	 * the check's. */
	struct amb_sample_codec *sc;
	struct amb_buf sbuf;
	uint8_t *check;
	size_t check_cap;
};

/* An encoded block, ready to be written. */
struct amb_encoded {
	uint8_t codec;
	const void *stored;
	size_t stored_len;
	uint64_t checksum;
};

struct amb_writer {
	int fd;
	struct amb_writer_opts opts;

	pthread_mutex_t io_lock;   /* serialises producers when threads = 0 */
	pthread_mutex_t lock;      /* protects the queue, the turns and st */
	pthread_cond_t cond;       /* queue changed: new job, space, idle, turn */
	struct amb_job *head, *tail;
	unsigned busy;             /* threads holding a job */
	uint64_t next_order;       /* of the next job queued */
	uint64_t next_emit;        /* of the job whose block is written next */
	bool stop;
	pthread_t *threads;
	unsigned nr_started;
	struct amb_enc *encs;      /* one per thread */
	struct amb_writer_stats st;

	/* Owned by the writing party (see the file comment). */
	uint64_t next_seq;
	uint64_t end;              /* end of the last complete block */
	struct amb_buf index;      /* encoded INDEX entries, FORMAT.md §6 */
	struct amb_enc enc;        /* threads = 0, and the INDEX at close */
	/* ring_codec = AMB_CODEC_SAMPLE: the layout once an EVENT_ATTR entry
	 * gave it; learnt in append order, never changed after. */
	bool have_layout;
	struct amb_sample_layout layout;
};

static uint16_t host_machine(void)
{
#if defined(__x86_64__)
	return 62;
#elif defined(__aarch64__)
	return 183;
#elif defined(__i386__)
	return 3;
#elif defined(__arm__)
	return 40;
#elif defined(__powerpc64__)
	return 21;
#elif defined(__s390x__)
	return 22;
#elif defined(__riscv)
	return 243;
#else
	return 0;
#endif
}

/* pwritev every byte of @iov at @off, continuing after short writes. */
static int write_full(int fd, struct iovec *iov, int iovcnt, uint64_t off)
{
	while (iovcnt > 0) {
		ssize_t n;

		if (iov->iov_len == 0) {
			iov++;
			iovcnt--;
			continue;
		}
		n = pwritev(fd, iov, iovcnt, (off_t)off);
		if (n < 0) {
			if (errno == EINTR)
				continue;
			return -errno;
		}
		if (n == 0)
			return -EIO;
		off += (uint64_t)n;
		while (n > 0) {
			size_t k = AMB_MIN((size_t)n, iov->iov_len);

			iov->iov_base = (uint8_t *)iov->iov_base + k;
			iov->iov_len -= k;
			n -= (ssize_t)k;
			if (iov->iov_len == 0) {
				iov++;
				iovcnt--;
			}
		}
	}
	return 0;
}

static int writer_error(struct amb_writer *w)
{
	int err;

	pthread_mutex_lock(&w->lock);
	err = w->st.error;
	pthread_mutex_unlock(&w->lock);
	return err;
}

/*
 * FORMAT.md §9: after a failed write the file is cut back to the last
 * complete block, and the writer refuses every later block with the error.
 */
static int writer_fail(struct amb_writer *w, int err)
{
	/* Best effort: if even this fails, a reader drops the torn tail. */
	if (ftruncate(w->fd, (off_t)w->end) < 0)
		amb_warn("amber file: cannot truncate back to offset %llu after %s: %s",
			 (unsigned long long)w->end, amb_strerror(err), strerror(errno));
	pthread_mutex_lock(&w->lock);
	if (!w->st.error)
		w->st.error = err;
	err = w->st.error;
	pthread_cond_broadcast(&w->cond);
	pthread_mutex_unlock(&w->lock);
	return err;
}

/* Write one block whose payload is already encoded with @codec and hashes
 * to @checksum. */
static int writer_emit(struct amb_writer *w, const struct amb_block_desc *d, uint8_t codec,
		       uint64_t raw_size, const void *stored, size_t stored_len, uint64_t checksum)
{
	struct amb_block_hdr h = {
		.header_len = AMB_BLOCK_HDR_SIZE,
		.type = d->type,
		.codec = codec,
		.stream = d->stream,
		.raw_size = raw_size,
		.stored_size = stored_len,
		.record_count = d->record_count,
		.first_time = d->first_time,
		.last_time = d->last_time,
	};
	uint8_t hbuf[AMB_BLOCK_HDR_SIZE];
	struct amb_block_info bi;
	struct iovec iov[2];
	int err;

	/* The index entry is reserved first so that a block on disk always
	 * has its entry: running out of memory here is not a write error. */
	if (amb_buf_reserve(&w->index, AMB_INDEX_ENTRY_SIZE))
		return -ENOMEM;
	h.seq = w->next_seq;
	h.payload_checksum = checksum;
	amb_block_hdr_encode(&h, hbuf);

	/* §9: header and payload in one write at the end of the file. */
	iov[0].iov_base = hbuf;
	iov[0].iov_len = sizeof(hbuf);
	iov[1].iov_base = (void *)stored;
	iov[1].iov_len = stored_len;
	err = write_full(w->fd, iov, 2, w->end);
	if (!err && w->opts.sync == AMB_SYNC_BLOCK && fdatasync(w->fd) < 0)
		err = -errno;
	if (err)
		return writer_fail(w, err);

	amb_block_info_from_hdr(&bi, &h, w->end);
	amb_index_entry_encode(&bi, w->index.data + w->index.len);
	w->index.len += AMB_INDEX_ENTRY_SIZE;
	w->end += AMB_BLOCK_HDR_SIZE + stored_len;
	w->next_seq++;

	pthread_mutex_lock(&w->lock);
	w->st.blocks++;
	w->st.raw_bytes += raw_size;
	w->st.stored_bytes += stored_len;
	w->st.file_bytes = w->end;
	pthread_mutex_unlock(&w->lock);
	return 0;
}

/* The sample layout of the first EVENT_ATTR entry of @data, once. */
static void writer_learn_layout(struct amb_writer *w, const void *data, size_t len)
{
	struct amb_event_entry e;
	struct amb_cursor c;

	amb_cursor_init(&c, data, len);
	if (amb_event_next(&c, &e) == 1 &&
	    amb_sample_layout_from_attr(&w->layout, e.attr, e.attr_size,
					w->opts.producer_endian) == 0)
		w->have_layout = true;
}

/* Learn the sample layout from @d's payload when it is the first
 * EVENT_ATTR block and the writer wants it; in append order. */
static void writer_maybe_learn(struct amb_writer *w, const struct amb_block_desc *d,
			       const void *data, size_t len)
{
	if (d->type == AMB_BLOCK_EVENT_ATTR && !w->have_layout &&
	    w->opts.ring_codec == AMB_CODEC_SAMPLE)
		writer_learn_layout(w, data, len);
}

/*
 * Encode the RING payload @data with the sample codec into e->sbuf and
 * check that it decodes back to @data.  Returns 1 when e->sbuf is to be
 * written, 0 when the block is better left to zstd (no sample fits the
 * layout, the encoding failed or did not come back identical), -ENOMEM.
 */
static int writer_sample_encode(struct amb_writer *w, struct amb_enc *e, const void *data,
				size_t len)
{
	struct amb_sample_stats st;
	int err;

	if (!e->sc && !(e->sc = amb_sample_codec_new()))
		return -ENOMEM;
	err = amb_sample_encode(e->sc, &w->layout, w->opts.zstd_level, data, len, &e->sbuf);
	if (err == -ENOMEM)
		return err;
	amb_sample_codec_stats(e->sc, &st);
	if (err || !st.samples || e->sbuf.len >= len)
		return 0;
	if (len + 1 > e->check_cap) {
		uint8_t *p = realloc(e->check, len + 1);

		if (!p)
			return -ENOMEM;
		e->check = p;
		e->check_cap = len + 1;
	}
	/* A recording cannot be made again: what is written must decode. */
	err = amb_sample_decode(e->sc, e->sbuf.data, e->sbuf.len, e->check, len, NULL, 0);
	if (err == -ENOMEM)
		return err;
	if (err || memcmp(e->check, data, len)) {
		amb_warn("amber file: a RING block of %zu bytes did not decode back from the sample codec (%s); stored with zstd",
			 len, err ? amb_strerror(err) : "bytes differ");
		return 0;
	}
	return 1;
}

/*
 * Encode @data as a block's payload into *@out, compressed when that pays
 * (FORMAT.md §4), with the sample codec for a RING block when @layout;
 * what *@out points to lives in @e or is @data.  0 or -ENOMEM.
 */
static int writer_encode(struct amb_writer *w, struct amb_enc *e, const struct amb_block_desc *d,
			 const void *data, size_t len, bool layout, struct amb_encoded *out)
{
	size_t bound, n;
	int err;

	*out = (struct amb_encoded){ AMB_CODEC_NONE, data, len, 0 };
	if (w->opts.zstd_level <= 0 || len < AMB_SMALL_BLOCK)
		goto done;
	if (d->type == AMB_BLOCK_RING && layout) {
		err = writer_sample_encode(w, e, data, len);
		if (err < 0)
			return err;
		if (err) {
			*out = (struct amb_encoded){ AMB_CODEC_SAMPLE, e->sbuf.data, e->sbuf.len, 0 };
			goto done;
		}
	}

	if (!e->cctx && !(e->cctx = ZSTD_createCCtx()))
		return -ENOMEM;
	bound = ZSTD_compressBound(len);
	if (bound > e->cbuf_cap) {
		uint8_t *p = realloc(e->cbuf, bound);

		if (!p)
			return -ENOMEM;
		e->cbuf = p;
		e->cbuf_cap = bound;
	}
	n = ZSTD_compressCCtx(e->cctx, e->cbuf, e->cbuf_cap, data, len, w->opts.zstd_level);
	/* A failed or useless compression is not an error: store the bytes. */
	if (!ZSTD_isError(n) && n < len)
		*out = (struct amb_encoded){ AMB_CODEC_ZSTD, e->cbuf, n, 0 };
done:
	out->checksum = amb_checksum(out->stored, out->stored_len);
	return 0;
}

/* Encode @data with @e and write it as one block. */
static int writer_produce(struct amb_writer *w, struct amb_enc *e, const struct amb_block_desc *d,
			  const void *data, size_t len, bool layout)
{
	struct amb_encoded out;
	int err = writer_encode(w, e, d, data, len, layout, &out);

	if (err)
		return err;
	return writer_emit(w, d, out.codec, len, out.stored, out.stored_len, out.checksum);
}

static void enc_free(struct amb_enc *e)
{
	ZSTD_freeCCtx(e->cctx);
	free(e->cbuf);
	amb_sample_codec_free(e->sc);
	amb_buf_free(&e->sbuf);
	free(e->check);
	memset(e, 0, sizeof(*e));
}

/* A background thread and its compression state. */
struct writer_thread_arg {
	struct amb_writer *w;
	struct amb_enc *enc;
};

static void *writer_thread(void *arg)
{
	struct amb_writer *w = ((struct writer_thread_arg *)arg)->w;
	struct amb_enc *e = ((struct writer_thread_arg *)arg)->enc;

	free(arg);
	pthread_mutex_lock(&w->lock);
	for (;;) {
		struct amb_encoded out = { 0 };
		struct amb_job *job;
		int err;

		while (!w->head && !w->stop)
			pthread_cond_wait(&w->cond, &w->lock);
		job = w->head;
		if (!job)
			break;
		w->head = job->next;
		if (!w->head)
			w->tail = NULL;
		w->busy++;
		err = w->st.error;
		pthread_mutex_unlock(&w->lock);

		if (!err && job->stored)
			out = (struct amb_encoded){ job->codec, job->data, job->len, job->checksum };
		else if (!err)
			err = writer_encode(w, e, &job->desc, job->data, job->len, job->layout, &out);

		/* Blocks are written in append order: wait for this one's turn
		 * (the jobs before it are held by other threads, which take
		 * them in order).  After an error queued blocks are dropped:
		 * the file must end at the last complete block. */
		pthread_mutex_lock(&w->lock);
		while (job->order != w->next_emit)
			pthread_cond_wait(&w->cond, &w->lock);
		if (!err)
			err = w->st.error;
		pthread_mutex_unlock(&w->lock);
		if (!err)
			err = writer_emit(w, &job->desc, out.codec,
					  job->stored ? job->raw_size : job->len, out.stored,
					  out.stored_len, out.checksum);
		free(job->data);

		pthread_mutex_lock(&w->lock);
		w->next_emit++;
		/*
		 * A block this thread could not produce (out of memory: write
		 * errors are recorded by writer_fail() already) is lost, so
		 * the caller, who was told "queued", must learn it: it becomes
		 * the writer's error like a write error.
		 */
		if (err && !w->st.error) {
			w->st.error = err;
			amb_warn("amber file: block of type %s, %zu bytes, dropped at offset %llu: %s",
				 amb_block_type_name(job->desc.type), job->len,
				 (unsigned long long)w->end, amb_strerror(err));
		}
		w->st.queued_bytes -= job->len;
		w->busy--;
		pthread_cond_broadcast(&w->cond);
		free(job);
	}
	pthread_mutex_unlock(&w->lock);
	return NULL;
}

static int check_desc(const struct amb_block_desc *d, size_t len)
{
	if (!d || d->type == 0 || d->type == AMB_BLOCK_INDEX || d->type == AMB_BLOCK_TRAILER)
		return -EINVAL;
	if (d->last_time < d->first_time)
		return -EINVAL;
	if (len > AMB_BLOCK_RAW_MAX)
		return -E2BIG;
	return 0;
}

/* Hand @job (with its data) to the background thread; frees both when
 * the writer has failed. */
static int writer_enqueue(struct amb_writer *w, struct amb_job *job)
{
	size_t len = job->len;
	int err;

	pthread_mutex_lock(&w->lock);
	/* A block larger than max_queued still goes through an empty queue. */
	while (!w->st.error && w->st.queued_bytes &&
	       w->st.queued_bytes + len > w->opts.max_queued)
		pthread_cond_wait(&w->cond, &w->lock);
	err = w->st.error;
	if (!err) {
		if (!job->stored)
			writer_maybe_learn(w, &job->desc, job->data, job->len);
		job->layout = w->have_layout;
		job->order = w->next_order++;
		if (w->tail)
			w->tail->next = job;
		else
			w->head = job;
		w->tail = job;
		w->st.queued_bytes += len;
		pthread_cond_broadcast(&w->cond);
		job = NULL;
	}
	pthread_mutex_unlock(&w->lock);
	if (job) {
		free(job->data);
		free(job);
	}
	return err;
}

/* threads = 0: compress and write on the caller's thread, one block at a
 * time, unless an earlier write failed. */
static int writer_produce_now(struct amb_writer *w, const struct amb_block_desc *d,
			      const void *data, size_t len)
{
	int err;

	pthread_mutex_lock(&w->io_lock);
	err = writer_error(w);
	if (!err) {
		writer_maybe_learn(w, d, data, len);
		err = writer_produce(w, &w->enc, d, data, len, w->have_layout);
	}
	pthread_mutex_unlock(&w->io_lock);
	return err;
}

int amb_writer_append_owned(struct amb_writer *w, const struct amb_block_desc *d,
			    void *data, size_t len)
{
	struct amb_job *job;
	int err;

	err = check_desc(d, len);
	if (err)
		goto out;
	if (!w->opts.threads) {
		err = writer_produce_now(w, d, data, len);
		goto out;
	}
	job = calloc(1, sizeof(*job));
	if (!job) {
		err = -ENOMEM;
		goto out;
	}
	job->desc = *d;
	job->data = data;
	job->len = len;
	return writer_enqueue(w, job);
out:
	free(data);
	return err;
}

int amb_writer_append(struct amb_writer *w, const struct amb_block_desc *d,
		      const void *data, size_t len)
{
	void *copy;
	int err;

	err = check_desc(d, len);
	if (err)
		return err;
	if (!w->opts.threads)
		return writer_produce_now(w, d, data, len);
	copy = malloc(len ? len : 1);
	if (!copy)
		return -ENOMEM;
	if (len)
		memcpy(copy, data, len);
	return amb_writer_append_owned(w, d, copy, len);
}

int amb_writer_append_stored(struct amb_writer *w, const struct amb_block_info *info,
			     const void *stored, size_t stored_len)
{
	struct amb_block_desc d = {
		.type = info->type, .stream = info->stream, .record_count = info->record_count,
		.first_time = info->first_time, .last_time = info->last_time,
	};
	struct amb_job *job;
	uint64_t checksum;
	int err;

	err = check_desc(&d, info->raw_size > SIZE_MAX ? SIZE_MAX : (size_t)info->raw_size);
	if (err)
		return err;
	if (stored_len > AMB_BLOCK_STORED_MAX)
		return -E2BIG;
	if (info->stored_size != stored_len ||
	    (info->codec == AMB_CODEC_NONE && info->raw_size != stored_len))
		return -EINVAL;
	if (info->codec != AMB_CODEC_NONE && info->codec != AMB_CODEC_ZSTD &&
	    info->codec != AMB_CODEC_SAMPLE)
		return -AMB_E_CODEC;
	/* The bytes must be the ones described: a block is never written
	 * with a checksum that does not hold. */
	checksum = amb_checksum(stored, stored_len);
	if (checksum != info->payload_checksum)
		return -AMB_E_PAYLOAD_CHECKSUM;
	if (!w->opts.threads) {
		pthread_mutex_lock(&w->io_lock);
		err = writer_error(w);
		if (!err)
			err = writer_emit(w, &d, info->codec, info->raw_size, stored, stored_len,
					  checksum);
		pthread_mutex_unlock(&w->io_lock);
		return err;
	}
	job = calloc(1, sizeof(*job));
	if (!job)
		return -ENOMEM;
	job->data = malloc(stored_len ? stored_len : 1);
	if (!job->data) {
		free(job);
		return -ENOMEM;
	}
	if (stored_len)
		memcpy(job->data, stored, stored_len);
	job->desc = d;
	job->len = stored_len;
	job->stored = true;
	job->codec = info->codec;
	job->raw_size = info->raw_size;
	job->checksum = checksum;
	return writer_enqueue(w, job);
}

int amb_writer_flush(struct amb_writer *w)
{
	int err;

	/* threads = 0: wait for an append running on another thread. */
	pthread_mutex_lock(&w->io_lock);
	pthread_mutex_unlock(&w->io_lock);
	pthread_mutex_lock(&w->lock);
	while (w->head || w->busy)
		pthread_cond_wait(&w->cond, &w->lock);
	err = w->st.error;
	pthread_mutex_unlock(&w->lock);
	return err;
}

void amb_writer_get_stats(struct amb_writer *w, struct amb_writer_stats *st)
{
	pthread_mutex_lock(&w->lock);
	*st = w->st;
	pthread_mutex_unlock(&w->lock);
}

/* FORMAT.md §6: the INDEX block, then the TRAILER pointing at it. */
static int writer_finish(struct amb_writer *w)
{
	struct amb_block_desc d = { .stream = AMB_STREAM_NONE };
	uint64_t index_offset = w->end, block_count = w->next_seq;
	uint8_t trailer[AMB_TRAILER_PAYLOAD];
	struct amb_buf payload = AMB_BUF_INIT;
	int err;

	err = amb_buf_put_le32(&payload, AMB_INDEX_ENTRY_SIZE);
	if (!err)
		err = amb_buf_put_le32(&payload, 0);
	if (!err)
		err = amb_buf_append(&payload, w->index.data, w->index.len);
	if (err)
		goto out;
	if (payload.len > AMB_BLOCK_RAW_MAX) {
		err = -E2BIG;
		goto out;
	}
	d.type = AMB_BLOCK_INDEX;
	d.record_count = block_count;
	err = writer_produce(w, &w->enc, &d, payload.data, payload.len, false);
	if (err)
		goto out;

	amb_put_le64(trailer, index_offset);
	amb_put_le64(trailer + 8, block_count);
	amb_put_le64(trailer + 16, index_offset);
	d.type = AMB_BLOCK_TRAILER;
	d.record_count = 0;
	err = writer_emit(w, &d, AMB_CODEC_NONE, sizeof(trailer), trailer, sizeof(trailer),
			  amb_checksum(trailer, sizeof(trailer)));
out:
	amb_buf_free(&payload);
	return err;
}

static void writer_free(struct amb_writer *w)
{
	struct amb_job *job, *next;

	for (job = w->head; job; job = next) {
		next = job->next;
		free(job->data);
		free(job);
	}
	enc_free(&w->enc);
	for (int i = 0; w->encs && i < w->opts.threads; i++)
		enc_free(&w->encs[i]);
	free(w->encs);
	free(w->threads);
	amb_buf_free(&w->index);
	pthread_cond_destroy(&w->cond);
	pthread_mutex_destroy(&w->lock);
	pthread_mutex_destroy(&w->io_lock);
	free(w);
}

/* Stop the background threads once the queue is empty, and join them. */
static void writer_stop_threads(struct amb_writer *w)
{
	pthread_mutex_lock(&w->lock);
	w->stop = true;
	pthread_cond_broadcast(&w->cond);
	pthread_mutex_unlock(&w->lock);
	for (unsigned i = 0; i < w->nr_started; i++)
		pthread_join(w->threads[i], NULL);
	w->nr_started = 0;
}

int amb_writer_close(struct amb_writer *w)
{
	int err;

	if (!w)
		return 0;
	err = amb_writer_flush(w);
	writer_stop_threads(w);
	if (!err)
		err = writer_finish(w);
	if (!err && w->opts.sync != AMB_SYNC_NONE && fdatasync(w->fd) < 0)
		err = -errno;
	if (close(w->fd) < 0 && !err)
		err = -errno;
	writer_free(w);
	return err;
}

/*
 * Copy the caller's options @u (NULL, or as many fields as its sz holds)
 * into the writer's own @o, with a default for every field @u lacks and
 * for the zero values that mean one, and check them.
 */
static int fill_opts(struct amb_writer_opts *o, const struct amb_writer_opts *u,
		     uint8_t uuid[16])
{
	struct timespec ts;

	if (!AMB_OPTS_VALID(u, amb_writer_opts))
		return -EINVAL;
	*o = (struct amb_writer_opts){
		.sz = sizeof(*o),
		.zstd_level = AMB_OPTS_GET(u, zstd_level, AMB_DEFAULT_ZSTD_LEVEL),
		.sync = AMB_OPTS_GET(u, sync, AMB_SYNC_NONE),
		.threads = AMB_OPTS_GET(u, threads, 0),
		.max_queued = AMB_OPTS_GET(u, max_queued, 0),
		.producer_endian = AMB_OPTS_GET(u, producer_endian, 0),
		.producer_word_size = AMB_OPTS_GET(u, producer_word_size, 0),
		.producer_machine = AMB_OPTS_GET(u, producer_machine, 0),
		.uuid = AMB_OPTS_GET(u, uuid, NULL),
		.created_ns = AMB_OPTS_GET(u, created_ns, 0),
		.ring_codec = AMB_OPTS_GET(u, ring_codec, 0),
	};
	if (o->threads < 0 || o->threads > AMB_WRITER_THREADS_MAX || o->zstd_level < 0 ||
	    o->zstd_level > ZSTD_maxCLevel() ||
	    (o->sync != AMB_SYNC_NONE && o->sync != AMB_SYNC_BLOCK && o->sync != AMB_SYNC_CLOSE) ||
	    (o->ring_codec != 0 && o->ring_codec != AMB_CODEC_ZSTD &&
	     o->ring_codec != AMB_CODEC_SAMPLE))
		return -EINVAL;
	if (o->producer_endian == 0)
		o->producer_endian = amb_host_is_le() ? AMB_ENDIAN_LITTLE : AMB_ENDIAN_BIG;
	if (o->producer_endian != AMB_ENDIAN_LITTLE && o->producer_endian != AMB_ENDIAN_BIG)
		return -EINVAL;
	if (o->producer_word_size == 0)
		o->producer_word_size = sizeof(long);
	if (o->producer_word_size != 4 && o->producer_word_size != 8)
		return -EINVAL;
	if (o->producer_machine == 0)
		o->producer_machine = host_machine();
	if (o->max_queued == 0)
		o->max_queued = AMB_DEFAULT_MAX_QUEUED;
	if (o->uuid) {
		memcpy(uuid, o->uuid, 16);
	} else {
		if (getrandom(uuid, 16, 0) != 16)
			return errno ? -errno : -EIO;
		uuid[6] = (uint8_t)((uuid[6] & 0x0f) | 0x40);  /* RFC 4122 version 4 */
		uuid[8] = (uint8_t)((uuid[8] & 0x3f) | 0x80);  /* RFC 4122 variant */
	}
	o->uuid = NULL;
	if (o->created_ns == 0) {
		clock_gettime(CLOCK_REALTIME, &ts);
		o->created_ns = (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
	}
	return 0;
}

/*
 * The writer of a new recording into @fd (owned from here on, closed on
 * error), with the file header written.  @path, when not NULL, names the
 * file the caller created for it, removed again on error.
 */
static int writer_start(int fd, const char *path, const struct amb_writer_opts *opts,
			struct amb_writer **out)
{
	struct amb_file_header fh = { .major = AMB_FORMAT_MAJOR, .minor = AMB_FORMAT_MINOR };
	uint8_t hbuf[AMB_FILE_HDR_SIZE];
	struct amb_writer *w;
	struct iovec iov;
	int err;

	*out = NULL;
	w = calloc(1, sizeof(*w));
	if (!w) {
		err = -ENOMEM;
		goto fail;
	}
	w->fd = fd;
	pthread_mutex_init(&w->io_lock, NULL);
	pthread_mutex_init(&w->lock, NULL);
	pthread_cond_init(&w->cond, NULL);
	err = fill_opts(&w->opts, opts, fh.uuid);
	if (err)
		goto out;
	if (w->opts.zstd_level > 0) {
		w->enc.cctx = ZSTD_createCCtx();
		if (!w->enc.cctx) {
			err = -ENOMEM;
			goto out;
		}
	}

	fh.producer_endian = w->opts.producer_endian;
	fh.producer_word_size = w->opts.producer_word_size;
	fh.producer_machine = w->opts.producer_machine;
	fh.created_ns = w->opts.created_ns;
	amb_file_hdr_encode(&fh, hbuf);
	iov.iov_base = hbuf;
	iov.iov_len = sizeof(hbuf);
	err = write_full(w->fd, &iov, 1, 0);
	if (err)
		goto out;
	w->end = AMB_FILE_HDR_SIZE;
	w->st.file_bytes = w->end;

	if (w->opts.threads) {
		w->threads = calloc((size_t)w->opts.threads, sizeof(*w->threads));
		w->encs = calloc((size_t)w->opts.threads, sizeof(*w->encs));
		if (!w->threads || !w->encs) {
			err = -ENOMEM;
			goto out;
		}
	}
	for (int i = 0; i < w->opts.threads; i++) {
		struct writer_thread_arg *a = malloc(sizeof(*a));

		if (!a) {
			err = -ENOMEM;
			goto out;
		}
		*a = (struct writer_thread_arg){ w, &w->encs[i] };
		err = -pthread_create(&w->threads[w->nr_started], NULL, writer_thread, a);
		if (err) {
			free(a);
			goto out;
		}
		w->nr_started++;
	}
	*out = w;
	return 0;
out:
	writer_stop_threads(w);
	writer_free(w);
fail:
	close(fd);
	/* The caller created the file exclusively for us: it is ours to remove. */
	if (path)
		unlink(path);
	return err;
}

int amb_writer_open(const char *path, const struct amb_writer_opts *opts,
		    struct amb_writer **out)
{
	struct amb_writer_opts checked;
	uint8_t uuid[16];
	int fd, err;

	*out = NULL;
	/* Bad options touch no file. */
	err = fill_opts(&checked, opts, uuid);
	if (err)
		return err;
	/* §9: exclusive, 0600: a recording can hold the target's memory. */
	fd = open(path, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0600);
	if (fd < 0)
		return -errno;
	return writer_start(fd, path, opts, out);
}

int amb_writer_open_fd(int fd, const struct amb_writer_opts *opts, struct amb_writer **out)
{
	*out = NULL;
	if (fd < 0)
		return -EBADF;
	return writer_start(fd, NULL, opts, out);
}

int amb_writer_append_file(struct amb_writer *w, const struct amb_file_entry *e,
			   const uint8_t *image)
{
	uint64_t off = 0, len = e->file_size;

	/* An empty file is still one (empty) part: its build-id is recorded. */
	do {
		struct amb_file_entry part = *e;
		struct amb_block_desc d = { .type = AMB_BLOCK_FILE, .stream = AMB_STREAM_NONE,
					    .record_count = 1 };
		struct amb_buf b = AMB_BUF_INIT;
		int err;

		part.part_offset = off;
		part.data_len = AMB_MIN(len - off, (uint64_t)AMB_FILE_PART_SIZE);
		err = amb_file_put_header(&b, &part);
		if (!err)
			err = amb_buf_append(&b, image + off, (size_t)part.data_len);
		if (err) {
			amb_buf_free(&b);
			return err;
		}
		err = amb_writer_append_owned(w, &d, b.data, b.len);
		if (err)
			return err;
		off += part.data_len;
	} while (off < len);
	return 0;
}
