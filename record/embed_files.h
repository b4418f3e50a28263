/* SPDX-License-Identifier: MIT */
/*
 * record/embed_files.h - --embed: FILE blocks of the ELF files the
 * targets mapped (embed_files.c, FORMAT.md §5.5).
 */
#ifndef AMB_REC_EMBED_FILES_H
#define AMB_REC_EMBED_FILES_H

#include <stdbool.h>
#include <stdint.h>

#include <amber/format.h>

enum rec_embed_mode {
	REC_EMBED_NONE = 0,
	REC_EMBED_HIT,      /* DSOs the targets mapped executable (MMAP2) */
	REC_EMBED_ALL,      /* and every user DSO of the BUILDID table */
};

/* What rec_embed_write() embedded, for the summary. */
struct rec_embed_stats {
	unsigned files;     /* files embedded (ELF, debug info, vDSO) */
	uint64_t bytes;     /* their size before compression */
	unsigned stale;     /* left out: the file's build-id changed */
};

/*
 * Append to @w FILE blocks (FORMAT.md §5.5) for the DSOs @mode selects,
 * read back from @path, the recording @w is writing (flushed first): the
 * executable user MMAP2 records of its RING blocks, and of its SYNTH
 * blocks when @synth_is_target (-p/-t targets, not -a's every process) or
 * for REC_EMBED_ALL; REC_EMBED_ALL adds the BUILDID table's user DSOs.
 * Each ELF is embedded only when its bytes carry the recorded build-id
 * (else a warning), with /usr/lib/debug/.build-id/xx/rest.debug when
 * installed, and this kernel's vDSO image.  Returns 0 or a writer error
 * (-ENOMEM, -errno).
 */
int rec_embed_write(struct amb_writer *w, const char *path, enum rec_embed_mode mode,
		    bool synth_is_target, struct rec_embed_stats *st);

#endif /* AMB_REC_EMBED_FILES_H */
