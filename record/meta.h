/* SPDX-License-Identifier: MIT */
/*
 * record/meta.h - the META key/values written before the first RING
 * block (meta.c, FORMAT.md §5.1).
 */
#ifndef AMB_REC_META_H
#define AMB_REC_META_H

#include <stdint.h>

#include <amber/common.h>

/* Append the start-of-recording META keys to @b: @argc/@argv, the
 * recorder's own command line, the host, the CPU, the clocks, @target,
 * @cpus_recorded, @ring_pages and @start_ns (time.start_ns), and the
 * kernel knobs that decide what a recording can see.  Returns 0 or
 * -ENOMEM. */
int rec_meta_start(struct amb_buf *b, int argc, char **argv, const char *target,
		   const char *cpus_recorded, unsigned ring_pages, uint64_t start_ns);

#endif /* AMB_REC_META_H */
