/* SPDX-License-Identifier: MIT */
/*
 * analyze/resolve/hits.h - which DSOs a recording's samples hit (hits.c):
 * what `buildids` shows and `archive` embeds.
 */
#ifndef AMB_ANALYZE_HITS_H
#define AMB_ANALYZE_HITS_H

#include <stdbool.h>
#include <stdint.h>

#include "analyze/replay/replay.h"
#include "analyze/resolve/dso.h"

/* One DSO of a recording and how many samples touched it. */
struct ana_dso_hit {
	struct ana_dso *dso;      /* owned by the pipeline's DSO table */
	uint64_t samples;         /* samples whose ip is in it */
	uint64_t frames;          /* callchain frames and stack words in it */
	bool mapped_exec;         /* an executable mapping of it was seen */
};

struct ana_dso_hits {
	struct ana_dso_hit *v;
	size_t n, cap;
};

/*
 * Replay the recording of @p: every user DSO of an executable MMAP2
 * record or of the BUILDID table gets an entry; a sample's ip, its
 * callchain entries and, for DWARF-mode samples, every word of its user
 * stack copy that points into an executable mapping count as hits (stack
 * words over-approximate the callers, which only costs archive space).
 * Kernel DSOs are not listed.  Returns 0 or -ENOMEM; free @h with
 * ana_dso_hits_free().
 */
struct ana_pipeline;
int ana_dso_hits_collect(struct ana_pipeline *p, struct ana_dso_hits *h);
void ana_dso_hits_free(struct ana_dso_hits *h);

#endif /* AMB_ANALYZE_HITS_H */
