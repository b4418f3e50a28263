// SPDX-License-Identifier: MIT
/*
 * record/ring.c - one CPU's perf ring buffer: mapping it, and copying whole
 * records out of it.
 *
 * The kernel writes records at data_head and we own [data_tail, data_head).
 * data_head is read with acquire semantics so that the record bytes it
 * covers are visible; data_tail is stored with release semantics after we
 * finished copying so the kernel does not overwrite what we still read
 * (perf_event_open(2), "The mmap layout"; tools/lib/perf mmap.c).
 */
#include <errno.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include <amber/common.h>
#include "record/ring.h"
#include "record/stage.h"

int rec_ring_mmap(struct rec_ring *r, int fd, int cpu, unsigned pages)
{
	size_t psz = (size_t)sysconf(_SC_PAGESIZE);
	void *p;

	memset(r, 0, sizeof(*r));
	r->fd = -1;
	if (!pages || (pages & (pages - 1)))
		return -EINVAL;
	r->map_len = (1 + (size_t)pages) * psz;
	p = mmap(NULL, r->map_len, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
	if (p == MAP_FAILED) {
		r->map_len = 0;
		return -errno;
	}
	r->base = p;
	r->fd = fd;
	r->cpu = cpu;
	r->data = (const uint8_t *)p + psz;
	r->size = (uint64_t)pages * psz;
	return 0;
}

void rec_ring_unmap(struct rec_ring *r)
{
	if (r && r->base) {
		munmap(r->base, r->map_len);
		r->base = NULL;
		r->data = NULL;
	}
}

/* Copy @n bytes at ring position @pos into @dst, wrapping at the end. */
static void ring_read(const uint8_t *data, uint64_t size, uint64_t pos, void *dst, size_t n)
{
	uint64_t off = pos & (size - 1);
	size_t first = (size_t)AMB_MIN((uint64_t)n, size - off);

	memcpy(dst, data + off, first);
	if (first < n)
		memcpy((uint8_t *)dst + first, data, n - first);
}

uint64_t rec_ring_copy(const uint8_t *data, uint64_t size, uint64_t tail, uint64_t head,
		       struct rec_stage *st)
{
	/* Records are at most 64 KiB (u16 size); one straddling the end of
	 * the ring is reassembled here. */
	static _Thread_local uint8_t tmp[65536];

	while (head - tail >= sizeof(struct perf_event_header)) {
		struct perf_event_header h;
		uint64_t off = tail & (size - 1);
		const void *rec;

		ring_read(data, size, tail, &h, sizeof(h));
		if (h.size < sizeof(h) || h.size > head - tail || h.size > size) {
			/* Cannot happen with a sane kernel; never trust it. */
			st->c.bad += head - tail;
			return head;
		}
		if (off + h.size <= size) {
			rec = data + off;
		} else {
			ring_read(data, size, tail, tmp, h.size);
			rec = tmp;
		}
		if (rec_stage_add(st, rec, h.size))
			break; /* out of memory: leave the rest in the ring */
		tail += h.size;
		if (st->block_bytes && st->buf.len >= st->block_bytes)
			break;
	}
	return tail;
}

uint64_t rec_ring_drain(struct rec_ring *r, struct rec_stage *st)
{
	struct perf_event_mmap_page *pc = r->base;
	uint64_t head, tail, done;

	if (!pc)
		return 0;
	head = __atomic_load_n(&pc->data_head, __ATOMIC_ACQUIRE);
	tail = pc->data_tail;
	if (head == tail)
		return 0;
	done = rec_ring_copy(r->data, r->size, tail, head, st);
	__atomic_store_n(&pc->data_tail, done, __ATOMIC_RELEASE);
	return done - tail;
}
