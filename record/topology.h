/* SPDX-License-Identifier: MIT */
/*
 * record/topology.h - the TOPOLOGY key/values (topology.c, FORMAT.md §5.7).
 */
#ifndef AMB_REC_TOPOLOGY_H
#define AMB_REC_TOPOLOGY_H

#include <amber/common.h>

/* Append the TOPOLOGY keys of FORMAT.md §5.7 to @b.  Missing sysfs files
 * are skipped.  Returns 0 or -ENOMEM. */
int rec_topology_build(struct amb_buf *b);

#endif /* AMB_REC_TOPOLOGY_H */
