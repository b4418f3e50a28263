/* SPDX-License-Identifier: MIT */
/*
 * record/synthesize.h - perf records for what ran before the recording
 * started (synthesize.c): COMM, FORK and MMAP2 records with the first
 * event's sample_id trailer, and the BUILDID table.
 */
#ifndef AMB_REC_SYNTHESIZE_H
#define AMB_REC_SYNTHESIZE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include <amber/common.h>
#include "record/buildid.h"

/* What every synthesized record's sample_id_all trailer carries. */
struct rec_synth_ctx {
	uint64_t sample_type;      /* of the first event */
	uint64_t id;               /* its first sample id */
	uint64_t time;             /* recording start time, perf clock */
	uint32_t cpu;
	struct rec_buildid_cache *cache;
	struct amb_buf *buildids;  /* BUILDID entries, one per distinct build-id */
	void *seen;                /* internal: build-ids already listed */
	size_t nr_seen, cap_seen;
	struct rec_buildid vdso;   /* this kernel's vDSO, read once */
	bool vdso_done;
	uint64_t nr_records;       /* records appended so far */
	bool data;                 /* -d: data mappings too, as mmap_data reports them */
};

/* Append a COMM / FORK (thread @tid to its process @pid) / MMAP2 record
 * with the trailer of @x to @out, counted in x->nr_records.  Returns 0,
 * -ENOMEM, or -E2BIG for a name too long for a u16 record size; on error
 * @out is left as it was. */
int rec_synth_comm(struct rec_synth_ctx *x, struct amb_buf *out, pid_t pid, pid_t tid,
		   const char *comm);
int rec_synth_fork(struct rec_synth_ctx *x, struct amb_buf *out, pid_t pid, pid_t tid);

/* The fields of one MMAP2 record (rec_synth_mmap2). */
struct rec_mmap2 {
	uint32_t pid, tid;
	uint64_t addr, len, pgoff;
	uint32_t maj, min;
	uint64_t ino;
	uint32_t prot, flags;
	uint16_t misc;             /* PERF_RECORD_MISC_USER / _KERNEL */
	const struct rec_buildid *bid;  /* NULL or len 0: maj/min/ino form */
	const char *filename;
};
int rec_synth_mmap2(struct rec_synth_ctx *x, struct amb_buf *out, const struct rec_mmap2 *m);

/*
 * For each thread of process @pid, the leader first: a FORK (the leader
 * from its parent, every other thread from the leader) followed by the
 * thread's own COMM, which a reader applies after the FORK's inherited
 * name; then MMAP2 for every executable mapping of @pid (with x->data
 * every mapping: files, [heap], [stack], and anonymous memory as
 * "//anon", perf's name), build-ids read through the cache and listed
 * once in x->buildids.  A process that vanished meanwhile or cannot be
 * read is skipped: returns 0 with nothing added.  Errors: -ENOMEM, -E2BIG.
 */
int rec_synth_process(struct rec_synth_ctx *x, struct amb_buf *out, pid_t pid);

/* MMAP2 of the kernel text and of every module (pid -1, misc KERNEL) from
 * @kallsyms (may be NULL: addresses hidden); their build-ids and the
 * vDSO's go to x->buildids.  Returns 0 or -ENOMEM. */
int rec_synth_kernel(struct rec_synth_ctx *x, struct amb_buf *out,
		     const char *kallsyms, size_t kallsyms_len);

/* rec_synth_process() for every process in /proc (system-wide
 * recording).  Returns 0, -errno when /proc cannot be listed, -ENOMEM,
 * -E2BIG. */
int rec_synth_all(struct rec_synth_ctx *x, struct amb_buf *out);

/* rec_synth_process() for each process of @roots (@n) and every process
 * descending from one of them, parents first (a recording that follows
 * children, starting a new file).  Returns 0, -errno when /proc cannot be
 * listed, -ENOMEM, -E2BIG. */
int rec_synth_tree(struct rec_synth_ctx *x, struct amb_buf *out, const pid_t *roots, size_t n);

/* Free the build-id list of @x (not x->cache, not x->buildids). */
void rec_synth_ctx_free(struct rec_synth_ctx *x);

/* One line of /proc/PID/maps. */
struct rec_maps_line {
	uint64_t start, end, pgoff, ino;
	uint32_t maj, min;
	uint32_t prot;             /* PROT_* */
	bool shared;
	const char *path;          /* points into the line; "" for anonymous */
};

/* Parse /proc/PID/maps line @line (NUL-terminated, without its newline)
 * into @m, whose path points into @line.  Returns 0, or -EINVAL for a
 * malformed line. */
int rec_maps_parse_line(char *line, struct rec_maps_line *m);

#endif /* AMB_REC_SYNTHESIZE_H */
