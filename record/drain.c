// SPDX-License-Identifier: MIT
/*
 * record/drain.c - the drain thread: empties every CPU ring into its
 * staging buffer and hands full (or old enough) stages to the writer as
 * RING blocks.
 *
 * The writer runs with its own compression thread, so this thread never
 * waits for zstd or the disk unless the writer's queue is full; that is
 * counted so that the summary can say the disk could not keep up.  Stages
 * are handed over at least every flush_ms, so a recorder killed with
 * SIGKILL loses at most about that much of the recording.
 */
#include <errno.h>
#include <poll.h>
#include <stdlib.h>
#include <string.h>
#include <sys/eventfd.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include <amber/format.h>
#include "record/drain.h"
#include "record/sysutil.h"

#define DRAIN_POLL_MS 100
#define DRAIN_NICE    (-10)

static uint64_t now_ms(void)
{
	return rec_now_ns() / 1000000u;
}

static void note_error(struct rec_drain *d, int err)
{
	int zero = 0;

	atomic_compare_exchange_strong(&d->error, &zero, err);
}

/* The default sink: the writer, counting the appends that must wait. */
static int append_to_writer(struct rec_drain *d, const struct amb_block_desc *bd, void *data,
			    size_t len)
{
	struct amb_writer_stats ws;

	amb_writer_get_stats(d->w, &ws);
	if (d->max_queued && ws.queued_bytes + len > d->max_queued)
		atomic_fetch_add(&d->queue_full, 1);
	return amb_writer_append_owned(d->w, bd, data, len);
}

/* Hand stage @i to the sink.  Returns 0 (also when the sink has no room
 * and the stage stays: d->held is then set) or the sink's error. */
static int drain_flush_stage(struct rec_drain *d, size_t i)
{
	struct rec_stage *st = &d->stages[i];
	struct rec_counters c;
	struct amb_block_desc bd;
	size_t len;
	void *data;
	int err;

	if (!st->buf.len)
		return 0;
	if (d->sink.room && !d->sink.room(d->sink.ctx, st->buf.len)) {
		atomic_store(&d->held, true);
		return 0;
	}
	/* What the next sink must know of tasks and mappings, from records
	 * this one receives (rec_drain_cut). */
	if (atomic_load(&d->side_on) && d->side &&
	    rec_records_copy_state(&d->layout, st->buf.data, st->buf.len, 0, &d->side[i]) < 0) {
		note_error(d, -ENOMEM);
		return -ENOMEM;
	}
	rec_stage_counted(st, &c);
	data = rec_stage_take(st, (uint32_t)d->rings[i].cpu, &bd, &len);
	if (!data)
		return 0;
	rec_counters_add(&d->sent, &c);
	err = d->sink.append ? d->sink.append(d->sink.ctx, &bd, data, len, &c)
			     : append_to_writer(d, &bd, data, len);
	if (err)
		note_error(d, err);
	return err;
}

int rec_drain_pass(struct rec_drain *d, bool flush_all, uint64_t now, uint64_t *last_flush)
{
	bool due = flush_all || now - *last_flush >= d->flush_ms;
	int ret = 0;

	/* A sink without room: the rings keep the records (and the kernel
	 * counts what it has to drop) until a cut brings one with room. */
	if (atomic_load(&d->held))
		return atomic_load(&d->error);
	for (size_t i = 0; i < d->nr_rings; i++) {
		/* A stage fills up to block_bytes and stops the copy; hand it
		 * over and go on, so the kernel gets its space back a block at
		 * a time and a RING block stays near block_bytes. */
		for (;;) {
			bool full;
			int err;

			rec_ring_drain(&d->rings[i], &d->stages[i]);
			full = d->stages[i].buf.len >= d->block_bytes;
			if (atomic_load(&d->error))
				break; /* the file is closed for writing: see below */
			if (!due && !full)
				break;
			err = drain_flush_stage(d, i);
			if (err && !ret)
				ret = err;
			if (err || !full || atomic_load(&d->held))
				break;
		}
		if (atomic_load(&d->held))
			break;
		if (atomic_load(&d->error)) {
			/* Keep the kernel writing, drop what we cannot store. */
			amb_buf_reset(&d->stages[i].buf);
			d->stages[i].nr_records = 0;
			while (rec_ring_drain(&d->rings[i], &d->stages[i]))
				amb_buf_reset(&d->stages[i].buf);
			d->stages[i].nr_records = 0;
		}
	}
	if (due)
		*last_flush = now;
	return ret ? ret : atomic_load(&d->error);
}

/* The cut, on the thread that drains (rec_drain_cut). */
static void drain_do_cut(struct rec_drain *d)
{
	struct rec_sink next;
	uint64_t last = 0;
	int err = 0;

	pthread_mutex_lock(&d->lock);
	next = d->cut_next;
	pthread_mutex_unlock(&d->lock);

	/* Everything the rings hold now goes to the old sink, as far as it
	 * has room; what it has none for stays staged, for the new one. */
	rec_drain_pass(d, true, now_ms(), &last);
	atomic_store(&d->side_on, false);
	d->sink = next;
	atomic_store(&d->held, false);
	for (size_t i = 0; i < d->nr_rings; i++) {
		if (d->side && !err)
			err = rec_stage_prepend(&d->stages[i], &d->side[i]);
		if (d->side)
			rec_records_free(&d->side[i]);
	}
	if (err)
		note_error(d, err);

	pthread_mutex_lock(&d->lock);
	d->cut_sent = d->sent;
	memset(&d->sent, 0, sizeof(d->sent));
	d->cut_pending = false;
	d->cut_done = true;
	pthread_cond_broadcast(&d->cond);
	pthread_mutex_unlock(&d->lock);
}

static bool cut_pending(struct rec_drain *d)
{
	bool p;

	pthread_mutex_lock(&d->lock);
	p = d->cut_pending;
	pthread_mutex_unlock(&d->lock);
	return p;
}

static void *drain_main(void *arg)
{
	struct rec_drain *d = arg;
	size_t nfd = d->nr_rings + 1;
	struct pollfd *pfd = calloc(nfd, sizeof(*pfd));
	uint64_t last_flush = now_ms();

	/* This thread only copies; when it waits for a CPU behind the very
	 * tasks it records the rings overflow.  Ask for a larger share where
	 * allowed (root, CAP_SYS_NICE); without it nothing changes. */
	setpriority(PRIO_PROCESS, (id_t)syscall(SYS_gettid), DRAIN_NICE);

	for (size_t i = 0; pfd && i < d->nr_rings; i++) {
		pfd[i].fd = d->rings[i].fd;
		pfd[i].events = POLLIN;
	}
	if (pfd) {
		pfd[d->nr_rings].fd = d->wake_fd;
		pfd[d->nr_rings].events = POLLIN;
	}
	while (!atomic_load(&d->stop)) {
		if (pfd && poll(pfd, nfd, DRAIN_POLL_MS) > 0) {
			/* A ring whose tasks all exited reports POLLHUP forever;
			 * stop polling it (it is still drained every pass). */
			for (size_t i = 0; i < d->nr_rings; i++)
				if (pfd[i].revents & (POLLHUP | POLLERR | POLLNVAL))
					pfd[i].fd = -1;
			if (pfd[d->nr_rings].revents & POLLIN) {
				uint64_t v;

				if (read(d->wake_fd, &v, sizeof(v)) < 0)
					(void)0; /* nothing to do: the flag below decides */
			}
		} else if (!pfd) {
			struct timespec ts = { 0, DRAIN_POLL_MS * 1000000L };

			nanosleep(&ts, NULL);
		}
		if (cut_pending(d))
			drain_do_cut(d);
		else
			rec_drain_pass(d, false, now_ms(), &last_flush);
	}
	free(pfd);
	return NULL;
}

int rec_drain_start(struct rec_drain *d, struct rec_ring *rings, size_t n,
		    struct amb_writer *w, const struct perf_event_attr *attr,
		    size_t block_bytes, unsigned flush_ms, size_t max_queued)
{
	struct rec_sink sink = d->sink;
	int err;

	/* A sink set before starting (rec_drain_set_sink) stays. */
	memset(d, 0, sizeof(*d));
	d->sink = sink;
	d->wake_fd = -1;
	d->rings = rings;
	d->nr_rings = n;
	d->w = w;
	d->block_bytes = block_bytes;
	d->flush_ms = flush_ms;
	d->max_queued = max_queued;
	amb_perf_layout_init(&d->layout, attr);
	d->stages = calloc(n ? n : 1, sizeof(*d->stages));
	d->side = calloc(n ? n : 1, sizeof(*d->side));
	if (!d->stages || !d->side)
		return -ENOMEM;
	for (size_t i = 0; i < n; i++) {
		d->stages[i].layout = &d->layout;
		d->stages[i].block_bytes = block_bytes;
	}
	atomic_init(&d->stop, false);
	atomic_init(&d->error, 0);
	atomic_init(&d->queue_full, 0);
	atomic_init(&d->side_on, false);
	atomic_init(&d->held, false);
	if (pthread_mutex_init(&d->lock, NULL))
		return -ENOMEM;
	if (pthread_cond_init(&d->cond, NULL)) {
		pthread_mutex_destroy(&d->lock);
		return -ENOMEM;
	}
	d->wake_fd = eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK);
	d->sync_ready = true;
	if (d->wake_fd < 0)
		return -errno;
	err = -pthread_create(&d->thread, NULL, drain_main, d);
	if (err)
		return err;
	d->running = true;
	return 0;
}

void rec_drain_set_sink(struct rec_drain *d, const struct rec_sink *sink)
{
	d->sink = *sink;
}

int rec_drain_cut(struct rec_drain *d, const struct rec_sink *next, struct rec_counters *sent)
{
	uint64_t one = 1;

	if (!d->sync_ready)
		return -EINVAL;
	pthread_mutex_lock(&d->lock);
	d->cut_next = *next;
	d->cut_pending = true;
	d->cut_done = false;
	pthread_mutex_unlock(&d->lock);
	if (!d->running) {
		drain_do_cut(d);
	} else if (write(d->wake_fd, &one, sizeof(one)) < 0) {
		/* The eventfd cannot overflow here; the poll timeout would
		 * do anyway. */
	}
	pthread_mutex_lock(&d->lock);
	while (!d->cut_done)
		pthread_cond_wait(&d->cond, &d->lock);
	*sent = d->cut_sent;
	pthread_mutex_unlock(&d->lock);
	return atomic_load(&d->error);
}

void rec_drain_stop(struct rec_drain *d)
{
	uint64_t last = 0;

	if (!d->running)
		return;
	atomic_store(&d->stop, true);
	pthread_join(d->thread, NULL);
	d->running = false;
	rec_drain_pass(d, true, now_ms(), &last);
}

void rec_drain_totals(const struct rec_drain *d, struct rec_counters *c)
{
	memset(c, 0, sizeof(*c));
	for (size_t i = 0; d->stages && i < d->nr_rings; i++) {
		const struct rec_counters *s = &d->stages[i].c;

		c->records += s->records;
		c->samples += s->samples;
		c->lost_records += s->lost_records;
		c->lost_samples += s->lost_samples;
		c->throttle += s->throttle;
		c->unthrottle += s->unthrottle;
		c->bytes += s->bytes;
		c->bad += s->bad;
		c->stack_zeroed += s->stack_zeroed;
	}
}

void rec_drain_free(struct rec_drain *d)
{
	if (!d)
		return;
	if (d->running)
		rec_drain_stop(d);
	for (size_t i = 0; d->stages && i < d->nr_rings; i++)
		rec_stage_free(&d->stages[i]);
	for (size_t i = 0; d->side && i < d->nr_rings; i++)
		rec_records_free(&d->side[i]);
	free(d->stages);
	free(d->side);
	d->stages = NULL;
	d->side = NULL;
	/* Only rec_drain_start() makes these (tests fill a zeroed drain). */
	if (d->sync_ready) {
		pthread_cond_destroy(&d->cond);
		pthread_mutex_destroy(&d->lock);
		if (d->wake_fd >= 0)
			close(d->wake_fd);
		d->wake_fd = -1;
		d->sync_ready = false;
	}
}
