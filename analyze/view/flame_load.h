/* SPDX-License-Identifier: MIT */
/*
 * analyze/view/flame_load.h - read the samples of a recording into a stack
 * tree (stacks.h), for `flame` and `diff`: each sample the pipeline hands
 * over (resolve.h) is walked and added as a path of frame names.
 */
#ifndef AMB_ANALYZE_FLAME_LOAD_H
#define AMB_ANALYZE_FLAME_LOAD_H

#include <stdbool.h>
#include <stdint.h>

#include "analyze/resolve/resolve.h"
#include "analyze/view/intern.h"
#include "analyze/view/offcpu.h"
#include "analyze/view/stacks.h"

/* What path a sample adds to the tree. */
enum ana_flame_key {
	ANA_FLAME_KEY_STACK = 0,  /* its whole stack, one frame per function */
	ANA_FLAME_KEY_DSO_SYM,    /* [DSO short name, symbol] of its leaf */
	ANA_FLAME_KEY_SYM,        /* [symbol] of its leaf */
	ANA_FLAME_KEY_SRCLINE,    /* [file:line] of its leaf */
};

struct ana_flame_load_opts {
	struct ana_pipeline_opts *sample; /* filters, event, DSO lookup; NULL: none */
	enum ana_flame_key key;
	bool period;                /* weigh by period, not by 1 per sample */
	bool reverse;               /* ANA_FLAME_KEY_STACK: leaf first (callee-rooted) */
	bool comm;                  /* ANA_FLAME_KEY_STACK: the command as outermost frame */
	bool inline_frames;         /* ANA_FLAME_KEY_STACK: inlined functions as frames */
	/* Off-CPU or wall-clock time instead of samples (offcpu.h): weights
	 * are nanoseconds, and an off-CPU stack ends in a frame naming the
	 * state.  @thread: "comm-TID" instead of comm as outermost frame. */
	enum ana_offcpu_mode time;
	bool thread;
};

struct ana_flame_load_stats {
	uint64_t samples;   /* SAMPLE records read (with @time: on-CPU samples) */
	uint64_t added;     /* of those, added to the tree */
	uint64_t filtered;  /* left out by the filters */
	uint64_t weight;    /* weight added */
	char event[256];    /* the event whose samples were added, "" for all */
	uint64_t event_samples; /* its samples within --time (all: @samples) */
	unsigned sampled_events; /* events of the recording that were sampled */
	struct ana_offcpu_stats time;  /* with @time */
};

/*
 * A frame is named by its function; what has no symbol by its object and
 * file offset ("libfoo.so+0xfce63", ana_loc_frame_name()), so that such
 * frames of different objects stay apart.
 *
 * Add the samples of the recording @path to @slot of @t.  @st (may be
 * NULL) receives counts.  @o->sample's relative and percentage --time
 * ranges are resolved against @path's own span.  Returns 0 or an error of ana_pipeline_open()
 * (with its detail in amb_errmsg()), -ENOMEM.
 */
int ana_flame_load(const char *path, struct ana_stk_tree *t, unsigned slot,
	       const struct ana_flame_load_opts *o, struct ana_flame_load_stats *st);

/* The filters' lines for the usage text of `flame` and `diff`. */
#define FLAME_FILTER_HELP                                                     \
	"      --pid/--tid LIST    only these processes/threads\n"                \
	"      --comm LIST         only these commands\n"                         \
	"      --cpu LIST          only these CPUs (0-3,7)\n"                     \
	"      --dso LIST          only samples whose leaf is in these objects\n" \
	"      --sym LIST          only samples whose leaf is one of these\n"     \
	"      --time RANGES       START,END as script prints times, +SECONDS from the\n" \
	"                          start, HH:MM:SS; or P%/N, A%-B% (see report --help)\n"

#endif /* AMB_ANALYZE_FLAME_LOAD_H */
