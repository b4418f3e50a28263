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

/* Hand stage @i to the writer.  Returns 0 or the writer's error. */
static int drain_flush_stage(struct rec_drain *d, size_t i)
{
	struct amb_writer_stats ws;
	struct amb_block_desc bd;
	size_t len;
	void *data;
	int err;

	data = rec_stage_take(&d->stages[i], (uint32_t)d->rings[i].cpu, &bd, &len);
	if (!data)
		return 0;
	amb_writer_get_stats(d->w, &ws);
	if (d->max_queued && ws.queued_bytes + len > d->max_queued)
		atomic_fetch_add(&d->queue_full, 1);
	err = amb_writer_append_owned(d->w, &bd, data, len);
	if (err) {
		int zero = 0;

		atomic_compare_exchange_strong(&d->error, &zero, err);
	}
	return err;
}

int rec_drain_pass(struct rec_drain *d, bool flush_all, uint64_t now, uint64_t *last_flush)
{
	bool due = flush_all || now - *last_flush >= d->flush_ms;
	int ret = 0;

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
			if (err || !full)
				break;
		}
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

static void *drain_main(void *arg)
{
	struct rec_drain *d = arg;
	struct pollfd *pfd = calloc(d->nr_rings ? d->nr_rings : 1, sizeof(*pfd));
	uint64_t last_flush = now_ms();

	/* This thread only copies; when it waits for a CPU behind the very
	 * tasks it records the rings overflow.  Ask for a larger share where
	 * allowed (root, CAP_SYS_NICE); without it nothing changes. */
	setpriority(PRIO_PROCESS, (id_t)syscall(SYS_gettid), DRAIN_NICE);

	for (size_t i = 0; pfd && i < d->nr_rings; i++) {
		pfd[i].fd = d->rings[i].fd;
		pfd[i].events = POLLIN;
	}
	while (!atomic_load(&d->stop)) {
		if (pfd && poll(pfd, d->nr_rings, DRAIN_POLL_MS) > 0) {
			/* A ring whose tasks all exited reports POLLHUP forever;
			 * stop polling it (it is still drained every pass). */
			for (size_t i = 0; i < d->nr_rings; i++)
				if (pfd[i].revents & (POLLHUP | POLLERR | POLLNVAL))
					pfd[i].fd = -1;
		} else if (!pfd) {
			struct timespec ts = { 0, DRAIN_POLL_MS * 1000000L };

			nanosleep(&ts, NULL);
		}
		rec_drain_pass(d, false, now_ms(), &last_flush);
	}
	free(pfd);
	return NULL;
}

int rec_drain_start(struct rec_drain *d, struct rec_ring *rings, size_t n,
		    struct amb_writer *w, const struct perf_event_attr *attr,
		    size_t block_bytes, unsigned flush_ms, size_t max_queued)
{
	int err;

	memset(d, 0, sizeof(*d));
	d->rings = rings;
	d->nr_rings = n;
	d->w = w;
	d->block_bytes = block_bytes;
	d->flush_ms = flush_ms;
	d->max_queued = max_queued;
	amb_perf_layout_init(&d->layout, attr);
	d->stages = calloc(n ? n : 1, sizeof(*d->stages));
	if (!d->stages)
		return -ENOMEM;
	for (size_t i = 0; i < n; i++) {
		d->stages[i].layout = &d->layout;
		d->stages[i].block_bytes = block_bytes;
	}
	atomic_init(&d->stop, false);
	atomic_init(&d->error, 0);
	atomic_init(&d->queue_full, 0);
	err = -pthread_create(&d->thread, NULL, drain_main, d);
	if (err)
		return err;
	d->running = true;
	return 0;
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
	free(d->stages);
	d->stages = NULL;
}
