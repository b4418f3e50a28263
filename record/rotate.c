// SPDX-License-Identifier: MIT
/*
 * record/rotate.c - the files of a recording that rotates, keeps to a
 * disk budget, or keeps its newest data in memory (the flight recorder).
 *
 * A switch from one file to the next (rotate_switch):
 *   1. the drain starts copying aside the state records (COMM, FORK,
 *      MMAP2, ...) it hands to the old file;
 *   2. a snapshot of the kernel and the target's processes is taken and
 *      the new file's prologue written from it: the new file knows what
 *      is alive now, with its own metadata, events, kernel symbols,
 *      topology and build-ids;
 *   3. the drain cuts (rec_drain_cut): every record drained so far to the
 *      old file, every later one to the new, whose blocks start with the
 *      state records set aside in 1 (so what changed while the snapshot
 *      was taken is known too);
 *   4. the old file gets the counts of its window and its final META, is
 *      closed and its kernel symbols trimmed (ksyms_trim.c).
 * The flight recorder (flight.c) keeps blocks in memory instead, plus a
 * base snapshot older than every block it holds; a dump writes the base
 * snapshot, the state records since, and the blocks.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include <amber/common.h>
#include <amber/format.h>
#include "common/util.h"
#include "record/flight.h"
#include "record/ksyms_trim.h"
#include "record/output.h"
#include "record/rotate.h"
#include "record/sysutil.h"

#define WRITER_QUEUE     (64u << 20)
#define MIN_BLOCK_BYTES  (64u << 10)
/* The flight recorder's snapshot is renewed at most this often. */
#define FLIGHT_RENEW_MIN_NS (2ull * 1000000000)

/* One file being written. */
struct rot_file {
	struct rec_rotate *r;
	struct amb_writer *w;
	struct rec_output out;     /* the file, held by descriptor (output.c) */
	char *path;
	uint64_t start_ns;         /* its snapshot: time.start_ns */
	uint64_t run_ns;           /* start of its COUNTS window */
	uint64_t blocks;           /* blocks appended (prologue, then the drain's) */
	uint64_t ring_blocks;
};

struct rec_rotate {
	const struct rec_describe *d;
	const struct rec_opts *o;
	struct rec_drain *drain;
	struct amb_perf_layout layout;
	bool timestamped;          /* names carry the time (--switch-output, flight) */
	char session[33];          /* one id for every file of this run (hex) */
	unsigned seq;              /* files begun */
	char *prev_name;           /* basename of the previous file */
	struct rot_file *cur;
	uint64_t next_switch_ns;   /* --switch-output=TIME */
	unsigned long usr2_seen;
	uint64_t (*counts_base)[3];
	size_t nr_fds;
	size_t block_bytes;
	/* Files written and kept, oldest first (--switch-max-files). */
	char **kept;
	size_t nr_kept, cap_kept;
	unsigned removed;
	uint64_t raw_bytes;
	bool budget_reached;
	/* Flight recorder. */
	struct rec_flight *flight;
	struct rec_snapshot base, pending;
	bool have_pending;
	uint64_t dump_dropped;     /* samples let go before the dump being written */
	uint64_t flight_dropped;   /* ... before every dump */
};

static const char *base_name(const char *path)
{
	const char *s = strrchr(path, '/');

	return s ? s + 1 : path;
}

/* "trace.amber" -> "trace.20250102-030405.678.amber" (local time, as perf
 * names its switched files), or the output itself when not timestamped. */
static char *file_name(struct rec_rotate *r)
{
	const char *out = r->o->output;
	size_t n = strlen(out), sfx = n > 6 && !strcmp(out + n - 6, ".amber") ? 6 : 0;
	struct timespec ts;
	struct tm tm;
	char when[64];
	char *p = NULL;

	if (!r->timestamped)
		return strdup(out);
	clock_gettime(CLOCK_REALTIME, &ts);
	localtime_r(&ts.tv_sec, &tm);
	strftime(when, sizeof(when), "%Y%m%d-%H%M%S", &tm);
	for (int k = 0; k < 1000; k++) {
		char extra[16] = "";
		struct stat sb;

		if (k)
			snprintf(extra, sizeof(extra), "-%d", k);
		free(p);
		if (asprintf(&p, "%.*s.%s.%03ld%s%s", (int)(n - sfx), out, when,
			     ts.tv_nsec / 1000000, extra, out + n - sfx) < 0)
			return NULL;
		if (lstat(p, &sb) && errno == ENOENT)
			return p;
	}
	free(p);
	errno = EEXIST;
	return NULL;
}

/* ---- the budget ------------------------------------------------------------- */

/* Bytes the end of a file may still take: COUNTS, the final META, INDEX
 * (an entry per block, @blocks of them before it) and TRAILER. */
static uint64_t end_reserve(const struct rec_rotate *r, uint64_t blocks)
{
	uint64_t meta = 512 + 2 * strlen(r->o->output) + 64;
	uint64_t counts = (uint64_t)r->nr_fds * 48;

	return 4 * AMB_BLOCK_HDR_SIZE + meta + counts + AMB_INDEX_ENTRY_SIZE * (blocks + 3) + 8 +
	       AMB_TRAILER_PAYLOAD;
}

/* An upper bound of the file's size with @len more raw bytes in one more
 * block and its end written: compression never makes a payload larger
 * (FORMAT.md §4), so queued raw bytes bound what they will take. */
static uint64_t bound_with(struct rot_file *f, size_t len, bool exact)
{
	struct amb_writer_stats ws;

	if (exact)
		amb_writer_flush(f->w);
	amb_writer_get_stats(f->w, &ws);
	return ws.file_bytes + ws.queued_bytes +
	       (f->blocks - AMB_MIN(ws.blocks, f->blocks)) * AMB_BLOCK_HDR_SIZE +
	       (len ? AMB_BLOCK_HDR_SIZE + len : 0) + end_reserve(f->r, f->blocks + 1);
}

/* rec_sink.room: the block fits under --max-size with the file's end.  On
 * the drain thread. */
static bool file_room(void *ctx, size_t len)
{
	struct rot_file *f = ctx;
	uint64_t max = f->r->o->max_size;

	if (bound_with(f, len, false) <= max)
		return true;
	/* Queued blocks count as raw: wait for them to be compressed before
	 * saying no. */
	return bound_with(f, len, true) <= max;
}

/* rec_sink.append for a file.  On the drain thread. */
static int file_append(void *ctx, const struct amb_block_desc *d, void *data, size_t len,
		       const struct rec_counters *c)
{
	struct rot_file *f = ctx;
	struct amb_writer_stats ws;

	(void)c;
	amb_writer_get_stats(f->w, &ws);
	if (ws.queued_bytes + len > WRITER_QUEUE)
		atomic_fetch_add(&f->r->drain->queue_full, 1);
	f->blocks++;
	f->ring_blocks++;
	return amb_writer_append_owned(f->w, d, data, len);
}

static void file_sink(struct rot_file *f, struct rec_sink *s)
{
	s->append = file_append;
	s->room = f->r->o->max_size ? file_room : NULL;
	s->ctx = f;
}

/* ---- files ------------------------------------------------------------------ */

static int put_u64(struct amb_buf *b, const char *key, uint64_t v)
{
	char s[32];

	snprintf(s, sizeof(s), "%" PRIu64, v);
	return amb_kv_put_str(b, key, s);
}

/* META keys of a file's start: which one of the run it is (FORMAT.md §5.1). */
static int start_keys(struct rec_rotate *r, struct amb_buf *b)
{
	int err = put_u64(b, "rotate.seq", r->seq);

	if (!err)
		err = amb_kv_put_str(b, "rotate.session", r->session);
	/* The file written until now (a switch opens the next one before
	 * closing it), or the last one closed. */
	const char *prev = r->cur ? base_name(r->cur->path) : r->prev_name;

	if (!err && prev)
		err = amb_kv_put_str(b, "rotate.prev", prev);
	if (!err && r->flight)
		err = amb_kv_put_str(b, "flight.keep", r->o->flight_spec);
	return err;
}

/* Create the next file (named now) with its prologue from @snap. */
static int file_open(struct rec_rotate *r, const struct rec_snapshot *snap, uint64_t start_ns,
		     struct rot_file **out, char *err, size_t errlen)
{
	AMB_OPTS(amb_writer_opts, wo);
	struct amb_writer_stats ws;
	struct amb_buf meta = AMB_BUF_INIT;
	struct rot_file *f = calloc(1, sizeof(*f));
	int e;

	*out = NULL;
	if (!f)
		return -ENOMEM;
	f->r = r;
	f->out.fd = -1;
	f->start_ns = f->run_ns = start_ns;
	f->path = file_name(r);
	if (!f->path) {
		e = -errno;
		snprintf(err, errlen, "cannot name the next file after %s: %s", r->o->output,
			 strerror(-e));
		free(f);
		return e;
	}
	/* An older file at a name is moved aside, never replaced. */
	e = rec_output_create(&f->out, f->path, err, errlen);
	if (e)
		goto fail;
	if (f->out.moved_to)
		amb_warn("moved existing %s to %s", f->path, f->out.moved_to);
	wo.zstd_level = r->o->zstd_level;
	wo.sync = r->o->sync && !f->out.discard ? AMB_SYNC_BLOCK : AMB_SYNC_NONE;
	wo.threads = 1;
	wo.max_queued = WRITER_QUEUE;
	wo.ring_codec = AMB_CODEC_SAMPLE;
	e = rec_output_writer_fd(&f->out);
	if (e >= 0)
		e = amb_writer_open_fd(e, &wo, &f->w);
	if (e) {
		snprintf(err, errlen, "cannot create %s: %s", f->path, amb_strerror(e));
		goto fail;
	}
	e = start_keys(r, &meta);
	if (!e)
		e = rec_describe_start(r->d, f->w, snap, start_ns, &meta);
	if (!e)
		e = amb_writer_flush(f->w);
	amb_buf_free(&meta);
	if (e) {
		snprintf(err, errlen, "writing %s: %s", f->path, amb_strerror(e));
		goto fail;
	}
	amb_writer_get_stats(f->w, &ws);
	f->blocks = ws.blocks;
	if (r->o->max_size && bound_with(f, MIN_BLOCK_BYTES, true) > r->o->max_size) {
		snprintf(err, errlen, "--max-size %" PRIu64 " bytes is too small: what describes "
			 "the recording (kernel symbols, processes, build-ids) takes %" PRIu64
			 " bytes of %s", r->o->max_size, ws.file_bytes, f->path);
		e = -EFBIG;
		goto fail;
	}
	r->seq++;
	*out = f;
	return 0;
fail:
	if (f->w) {
		amb_writer_close(f->w);
		unlink(f->path);
	}
	rec_output_close(&f->out);
	free(f->path);
	free(f);
	return e;
}

/* Remember @path as written and kept; remove the oldest beyond
 * --switch-max-files. */
static void file_kept(struct rec_rotate *r, char *path)
{
	unsigned max = r->o->switch_max_files;

	if (amb_ensure_cap((void **)&r->kept, &r->cap_kept, sizeof(*r->kept), r->nr_kept + 1)) {
		free(path);
		return;
	}
	r->kept[r->nr_kept++] = path;
	/* The file being written counts as one of the N. */
	while (max && r->nr_kept + (r->cur ? 1 : 0) > max && r->nr_kept) {
		if (unlink(r->kept[0]) && errno != ENOENT)
			amb_warn("--switch-max-files: cannot remove %s: %s", r->kept[0],
				 strerror(errno));
		else
			r->removed++;
		free(r->kept[0]);
		memmove(r->kept, r->kept + 1, (r->nr_kept - 1) * sizeof(*r->kept));
		r->nr_kept--;
	}
}

/* Trim the kernel symbols of the closed file @f as a plain recording's. */
static void file_trim(struct rec_rotate *r, struct rot_file *f, const volatile sig_atomic_t *stop)
{
	struct rec_ksyms_trim_stats st;
	char msg[512];

	if (rec_ksyms_trim(&f->out, &r->layout, r->o->kallsyms, r->o->zstd_level, stop, &st, msg,
			   sizeof(msg)))
		amb_warn("kept all kernel symbols in %s: %s", f->path, msg);
}

/* End @f: COUNTS of its window (not for the flight recorder), the final
 * META, close, trim.  @f is freed; its name is kept (file_kept). */
static int file_close(struct rec_rotate *r, struct rot_file *f, const struct rec_file_end *e,
		      const char *reason, const char *next, const volatile sig_atomic_t *stop,
		      char *err, size_t errlen)
{
	struct amb_buf meta = AMB_BUF_INIT;
	struct amb_writer_stats ws;
	struct rec_file_end end = *e;
	int ret = 0, cerr;

	ret = amb_kv_put_str(&meta, "rotate.reason", reason);
	if (!ret && next)
		ret = amb_kv_put_str(&meta, "rotate.next", next);
	if (!ret && r->flight)
		ret = put_u64(&meta, "flight.dropped_samples", r->flight_dropped);
	end.meta_extra = &meta;
	if (!ret)
		ret = rec_describe_end(r->d, f->w, &end);
	amb_buf_free(&meta);
	amb_writer_get_stats(f->w, &ws);
	cerr = amb_writer_close(f->w);
	f->w = NULL;
	if (!ret)
		ret = cerr;
	if (ret) {
		snprintf(err, errlen, "writing %s: %s (the file is readable up to its last "
			 "complete block)", f->path, amb_strerror(ret));
	} else {
		r->raw_bytes += ws.raw_bytes;
		file_trim(r, f, stop);
	}
	rec_output_close(&f->out);
	free(r->prev_name);
	r->prev_name = strdup(base_name(f->path));
	file_kept(r, f->path);
	free(f);
	return ret;
}

/* ---- rotation ----------------------------------------------------------------- */

static int rotate_switch(struct rec_rotate *r, const char *reason, const volatile sig_atomic_t *stop,
			 char *err, size_t errlen)
{
	struct rot_file *old = r->cur, *nf = NULL;
	struct rec_snapshot snap;
	struct rec_counters sent;
	struct rec_sink sink;
	struct rec_file_end e;
	uint64_t t;
	int ret;

	atomic_store(&r->drain->side_on, true);
	t = rec_now_ns();
	ret = rec_snapshot_take(r->d, t, true, false, &snap);
	if (ret)
		snprintf(err, errlen, "describing the next file: %s", strerror(-ret));
	else
		ret = file_open(r, &snap, t, &nf, err, errlen);
	rec_snapshot_free(&snap);
	if (ret) {
		atomic_store(&r->drain->side_on, false);
		return ret;
	}
	file_sink(nf, &sink);
	ret = rec_drain_cut(r->drain, &sink, &sent);
	/* The counters are read at the cut: the old file's window ends,
	 * the new one's begins. */
	memset(&e, 0, sizeof(e));
	e.run_ns = old->run_ns;
	e.end_ns = rec_now_ns();
	e.c = &sent;
	e.counts = true;
	e.counts_base = r->counts_base;
	nf->run_ns = e.end_ns;
	r->cur = nf;
	if (r->o->switch_ns)
		r->next_switch_ns = e.end_ns + r->o->switch_ns;
	if (ret) {
		/* The old file is still ended properly; the recording stops. */
		file_close(r, old, &e, reason, base_name(nf->path), stop, err, errlen);
		snprintf(err, errlen, "switching to %s: %s", nf->path, amb_strerror(ret));
		return ret;
	}
	return file_close(r, old, &e, reason, base_name(nf->path), stop, err, errlen);
}

/* ---- the flight recorder ----------------------------------------------------------- */

static int flight_dump(struct rec_rotate *r, const char *reason, const volatile sig_atomic_t *stop,
		       char *err, size_t errlen)
{
	struct rec_flight_take t;
	struct rec_file_end e;
	struct rot_file *f = NULL;
	uint64_t start;
	int ret;

	ret = rec_flight_take(r->flight, &t);
	if (ret) {
		snprintf(err, errlen, "flight recorder: %s", strerror(-ret));
		return ret;
	}
	r->dump_dropped = t.dropped.samples;
	r->flight_dropped += t.dropped.samples;
	/* time.start_ns: where the data begins (the SYNTH records keep the
	 * base snapshot's time). */
	start = 0;
	for (size_t i = 0; i < t.nr_blocks; i++)
		if (t.blocks[i].d.first_time && (!start || t.blocks[i].d.first_time < start))
			start = t.blocks[i].d.first_time;
	if (!start)
		start = r->base.time;
	ret = file_open(r, &r->base, start, &f, err, errlen);
	/* The state records since the base snapshot, per CPU, before the
	 * blocks of their CPU: a RING stream as the kernel wrote it. */
	for (size_t i = 0; !ret && i < t.nr_state; i++) {
		struct rec_records *s = &t.state[i].r;
		struct amb_block_desc d = { .type = AMB_BLOCK_RING, .stream = t.state[i].stream,
					    .record_count = s->nr, .first_time = s->first_time,
					    .last_time = s->last_time };

		if (!s->buf.len)
			continue;
		ret = amb_writer_append_owned(f->w, &d, s->buf.data, s->buf.len);
		memset(&s->buf, 0, sizeof(s->buf));
		f->blocks++;
	}
	for (size_t i = 0; !ret && i < t.nr_blocks; i++) {
		ret = amb_writer_append_owned(f->w, &t.blocks[i].d, t.blocks[i].data, t.blocks[i].len);
		t.blocks[i].data = NULL;
		f->blocks++;
	}
	if (ret && f) {
		snprintf(err, errlen, "writing %s: %s", f->path, amb_strerror(ret));
		amb_writer_close(f->w);
		rec_output_close(&f->out);
		free(f->path);
		free(f);
	}
	if (!ret) {
		memset(&e, 0, sizeof(e));
		e.end_ns = rec_now_ns();
		e.c = &t.c;
		ret = file_close(r, f, &e, reason, NULL, stop, err, errlen);
	}
	rec_flight_take_free(&t);
	return ret;
}

/* Take a newer snapshot now and then; make it the base once nothing held
 * is older than it, so the state records kept stay few. */
static int flight_renew(struct rec_rotate *r)
{
	uint64_t now = rec_now_ns(), first = rec_flight_first_time(r->flight);
	uint64_t settle = (uint64_t)r->o->flush_ms * 1000000 + 250000000;
	int err;

	if (!r->have_pending) {
		uint64_t span = now - (first && first < now ? first : r->base.time);

		if (now - r->base.time < AMB_MAX(FLIGHT_RENEW_MIN_NS, span / 2))
			return 0;
		err = rec_snapshot_take(r->d, now, true, false, &r->pending);
		if (err) {
			rec_snapshot_free(&r->pending);
			return err;
		}
		r->have_pending = true;
		return 0;
	}
	/* A block handed over later may still hold older records: a stage
	 * is handed over at least every flush interval. */
	if (now - r->pending.time < settle || (first && first < r->pending.time))
		return 0;
	rec_snapshot_free(&r->base);
	r->base = r->pending;
	memset(&r->pending, 0, sizeof(r->pending));
	r->have_pending = false;
	rec_flight_set_base(r->flight, r->base.time);
	return 0;
}

/* ---- the interface ------------------------------------------------------------------- */

int rec_rotate_open(struct rec_rotate **out, const struct rec_describe *d,
		    struct rec_drain *drain, uint64_t start_ns, char *err, size_t errlen)
{
	const struct rec_opts *o = d->opts;
	struct rec_rotate *r = calloc(1, sizeof(*r));
	uint8_t id[16] = { 0 };
	int ret;

	*out = r;
	if (!r)
		return -ENOMEM;
	r->d = d;
	r->o = o;
	r->drain = drain;
	amb_perf_layout_init(&r->layout, &d->events->v[0].attr);
	r->timestamped = o->switch_signal || o->switch_size || o->switch_ns ||
			 o->flight_bytes || o->flight_ns;
	if (getrandom(id, sizeof(id), 0) != (ssize_t)sizeof(id)) {
		uint64_t t = rec_clock_ns(CLOCK_REALTIME) ^ (uint64_t)getpid() << 32;

		memcpy(id, &t, sizeof(t));
	}
	for (size_t i = 0; i < sizeof(id); i++)
		snprintf(r->session + 2 * i, 3, "%02x", id[i]);
	r->nr_fds = d->events->n * d->evlist->nr_cpus * d->evlist->nr_threads;
	r->counts_base = calloc(r->nr_fds ? r->nr_fds : 1, sizeof(*r->counts_base));
	if (!r->counts_base)
		return -ENOMEM;

	r->block_bytes = SIZE_MAX;
	if (o->flight_bytes || o->flight_ns) {
		r->flight = rec_flight_new(&r->layout, o->flight_bytes, o->flight_ns);
		if (!r->flight)
			return -ENOMEM;
		if (o->flight_bytes)
			r->block_bytes = o->flight_bytes / 16;
		ret = rec_snapshot_take(d, start_ns, false, true, &r->base);
		if (ret)
			snprintf(err, errlen, "describing the recording: %s", strerror(-ret));
		return ret;
	}
	if (o->max_size)
		r->block_bytes = o->max_size / 16;
	if (o->switch_size)
		r->block_bytes = AMB_MIN(r->block_bytes, o->switch_size / 8);
	{
		struct rec_snapshot snap;

		ret = rec_snapshot_take(d, start_ns, false, true, &snap);
		if (ret)
			snprintf(err, errlen, "describing the recording: %s", strerror(-ret));
		else
			ret = file_open(r, &snap, start_ns, &r->cur, err, errlen);
		rec_snapshot_free(&snap);
	}
	if (!ret && o->max_size) {
		/* Room for a few blocks under the budget beside the prologue. */
		uint64_t room = o->max_size - AMB_MIN(o->max_size, bound_with(r->cur, 0, true));

		r->block_bytes = AMB_MIN(r->block_bytes, room / 4);
	}
	return ret;
}

void rec_rotate_sink(struct rec_rotate *r, struct rec_sink *sink)
{
	if (r->flight) {
		sink->append = rec_flight_add;
		sink->room = NULL;
		sink->ctx = r->flight;
	} else {
		file_sink(r->cur, sink);
	}
}

size_t rec_rotate_block_bytes(const struct rec_rotate *r, size_t dflt)
{
	return AMB_MAX((size_t)MIN_BLOCK_BYTES, AMB_MIN(dflt, r->block_bytes));
}

void rec_rotate_running(struct rec_rotate *r, uint64_t run_ns)
{
	if (r->cur)
		r->cur->run_ns = run_ns;
	if (r->o->switch_ns)
		r->next_switch_ns = run_ns + r->o->switch_ns;
}

/* Why the current file should end now, or NULL. */
static const char *switch_due(struct rec_rotate *r, unsigned long usr2)
{
	const struct rec_opts *o = r->o;

	if (usr2 != r->usr2_seen && (o->switch_signal || o->switch_size || o->switch_ns)) {
		r->usr2_seen = usr2;
		return "signal";
	}
	r->usr2_seen = usr2;
	if (atomic_load(&r->drain->held))
		return "max-size";
	if (o->switch_ns && rec_now_ns() >= r->next_switch_ns)
		return "time";
	if (o->switch_size || o->max_size) {
		/* Begin the next file while the budget leaves room for what
		 * arrives meanwhile (the drain holds back past it anyway). */
		uint64_t margin = AMB_MAX(o->max_size / 8, 2 * r->block_bytes);
		uint64_t size = bound_with(r->cur, 0, false);

		/* Queued blocks count raw until written: look again then. */
		if ((o->switch_size && size >= o->switch_size) ||
		    (o->max_size && size + margin >= o->max_size))
			size = bound_with(r->cur, 0, true);
		if (o->switch_size && size >= o->switch_size)
			return "size";
		if (o->max_size && size + margin >= o->max_size)
			return "max-size";
	}
	return NULL;
}

int rec_rotate_tick(struct rec_rotate *r, unsigned long usr2, const volatile sig_atomic_t *stop,
		    char *err, size_t errlen)
{
	const struct rec_opts *o = r->o;
	const char *why;
	int ret;

	if (r->flight) {
		if (usr2 != r->usr2_seen) {
			r->usr2_seen = usr2;
			struct rec_counters sent;
			struct rec_sink sink;

			/* Whatever the stages hold now goes into memory first. */
			rec_rotate_sink(r, &sink);
			ret = rec_drain_cut(r->drain, &sink, &sent);
			if (!ret)
				ret = flight_dump(r, "signal", stop, err, errlen);
			else
				snprintf(err, errlen, "flight recorder: %s", amb_strerror(ret));
			if (ret)
				return ret;
		}
		ret = flight_renew(r);
		if (ret)
			snprintf(err, errlen, "flight recorder snapshot: %s", strerror(-ret));
		return ret;
	}
	if (!r->cur)
		return 0;
	if (!o->switch_signal && !o->switch_size && !o->switch_ns) {
		/* --max-size alone: one file, which ends at the budget. */
		if (atomic_load(&r->drain->held)) {
			r->budget_reached = true;
			return 1;
		}
		return 0;
	}
	why = switch_due(r, usr2);
	if (!why)
		return 0;
	if (!strcmp(why, "max-size") && atomic_load(&r->drain->held) && !r->cur->ring_blocks) {
		snprintf(err, errlen, "--max-size %" PRIu64 ": a block of samples does not fit in "
			 "a new file beside what describes the recording", o->max_size);
		return -EFBIG;
	}
	return rotate_switch(r, why, stop, err, errlen);
}

int rec_rotate_close(struct rec_rotate *r, const struct rec_rotate_end *end, char *err,
		     size_t errlen)
{
	struct rec_counters sent;
	struct rec_file_end e;
	struct rot_file *f = r->cur;

	if (r->flight)
		return flight_dump(r, "end", end->stop, err, errlen);
	if (!f)
		return 0;
	/* The drain has stopped: what the last file received since the last
	 * cut is its share. */
	sent = r->drain->sent;
	memset(&e, 0, sizeof(e));
	e.run_ns = f->run_ns;
	e.end_ns = end->end_ns;
	e.c = &sent;
	e.have_status = end->have_status;
	e.wstatus = end->wstatus;
	e.counts = true;
	e.counts_base = r->counts_base;
	r->cur = NULL;
	return file_close(r, f, &e, r->budget_reached ? "max-size" : "end", NULL, end->stop,
			  err, errlen);
}

void rec_rotate_get_stats(const struct rec_rotate *r, struct rec_rotate_stats *st)
{
	memset(st, 0, sizeof(*st));
	if (!r)
		return;
	st->files = (unsigned)r->nr_kept;
	st->removed = r->removed;
	st->raw_bytes = r->raw_bytes;
	st->budget_reached = r->budget_reached;
	st->flight_dropped = r->flight_dropped;
	for (size_t i = 0; i < r->nr_kept; i++) {
		struct stat sb;

		if (!stat(r->kept[i], &sb))
			st->bytes += (uint64_t)sb.st_size;
	}
	if (r->nr_kept) {
		st->first = r->kept[0];
		st->last = r->kept[r->nr_kept - 1];
	}
}

void rec_rotate_free(struct rec_rotate *r)
{
	if (!r)
		return;
	if (r->cur) {
		amb_writer_close(r->cur->w);
		free(r->cur->path);
		free(r->cur);
	}
	for (size_t i = 0; i < r->nr_kept; i++)
		free(r->kept[i]);
	free(r->kept);
	free(r->prev_name);
	free(r->counts_base);
	rec_flight_free(r->flight);
	rec_snapshot_free(&r->base);
	rec_snapshot_free(&r->pending);
	free(r);
}
