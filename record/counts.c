// SPDX-License-Identifier: MIT
/*
 * record/counts.c - the final COUNTS block (FORMAT.md §5.4): one read() of
 * every counter, with the time it was enabled and running so the analyzer
 * can scale multiplexed counts.
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include <amber/common.h>
#include <amber/format.h>
#include "record/counts.h"

int rec_counts_build(const struct rec_evlist *el, const struct rec_target *t,
		     uint64_t (*base)[3], struct amb_buf *b)
{
	size_t per_event = el->nr_cpus * el->nr_threads;
	int n = 0;

	for (size_t e = 0; e < el->events->n; e++) {
		for (size_t c = 0; c < el->nr_cpus; c++) {
			for (size_t th = 0; th < el->nr_threads; th++) {
				size_t i = e * per_event + c * el->nr_threads + th;
				/* read_format: value, time_enabled, time_running, id */
				uint64_t v[4];
				struct amb_count_entry ce;
				ssize_t r;
				int err;

				if (el->fds[i] < 0)
					continue;
				do
					r = read(el->fds[i], v, sizeof(v));
				while (r < 0 && errno == EINTR);
				if (r != (ssize_t)sizeof(v)) {
					char thread[32] = "";

					if (el->nr_threads > 1 || t->kind == REC_TARGET_PID ||
					    t->kind == REC_TARGET_TID)
						snprintf(thread, sizeof(thread), ", thread %d",
							 (int)t->threads[th]);
					amb_warn("event '%s' on cpu %d%s: cannot read the count: %s",
						 el->events->v[e].name, t->cpus[c], thread,
						 r < 0 ? strerror(errno) : "short read");
					continue;
				}
				memset(&ce, 0, sizeof(ce));
				ce.event = (uint32_t)e;
				ce.cpu = (uint32_t)t->cpus[c];
				/* A command's counters are its task's too (FORMAT.md §5.4). */
				ce.tid = t->kind != REC_TARGET_SYSTEM ? (uint32_t)t->threads[th]
								       : UINT32_MAX;
				ce.value = v[0];
				ce.time_enabled = v[1];
				ce.time_running = v[2];
				if (base) {
					ce.value -= base[i][0];
					ce.time_enabled -= base[i][1];
					ce.time_running -= base[i][2];
					memcpy(base[i], v, sizeof(base[i]));
				}
				ce.id = v[3];
				err = amb_count_put(b, &ce);
				if (err)
					return err;
				n++;
			}
		}
	}
	return n;
}
