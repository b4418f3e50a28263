/* SPDX-License-Identifier: MIT */
/*
 * record/ksyms_trim.h - after a clean stop, keeping only the kernel
 * symbols the samples use (ksyms_trim.c).
 */
#ifndef AMB_REC_KSYMS_TRIM_H
#define AMB_REC_KSYMS_TRIM_H

#include <signal.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <amber/common.h>
#include "common/perf_sample.h"

enum rec_ksyms_mode {
	REC_KSYMS_AUTO = 0, /* trim when the table is 1/REC_KSYMS_AUTO_SHARE of the file or
			     * more, unless tracepoints print kernel function pointers */
	REC_KSYMS_USED,     /* always trim */
	REC_KSYMS_ALL,      /* keep the whole table */
};
#define REC_KSYMS_AUTO_SHARE 32

/*
 * The trim keeps exactly what the analysis reads: both parse the table with
 * common/kallsyms.h, and both find a sample's addresses with the walker of
 * common/perf_sample.h.
 */

/* A kallsyms text's text symbols, sorted by address, each marked used or not. */
struct rec_ksyms;

/* Index kallsyms @text (@len bytes; borrowed: it must outlive the result):
 * the lines common/kallsyms.h parses with a text TYPE (t T w W), none when
 * every address is zero, exactly the symbols the analyzer would read.
 * Returns NULL when out of memory.  Free with rec_ksyms_free(). */
struct rec_ksyms *rec_ksyms_parse(const char *text, size_t len);

/* Free @k (NULL-safe), never the text. */
void rec_ksyms_free(struct rec_ksyms *k);

/* The number of text symbols @k indexed. */
size_t rec_ksyms_count(const struct rec_ksyms *k);

/* Mark the symbol holding @addr (the last one starting at or below it),
 * its aliases, and the next symbol, which ends it.  Addresses below every
 * symbol (user space) mark nothing. */
void rec_ksyms_mark(struct rec_ksyms *k, uint64_t addr);

/* Mark what every sample among the records @data (@len bytes, a RING
 * payload of this host) names: IP, ADDR, callchain entries and branch
 * addresses, each also one byte earlier (return addresses are looked up
 * so).  Stops at the first record whose size does not fit. */
void rec_ksyms_mark_records(struct rec_ksyms *k, const struct amb_perf_layout *l,
			    const uint8_t *data, size_t len);

/* Append the marked symbols' lines to @out in their text order; *@kept
 * gets their count.  Returns 0 or -ENOMEM. */
int rec_ksyms_write_used(const struct rec_ksyms *k, struct amb_buf *out, uint64_t *kept);

/* Whether tracefs format file @text (@len bytes) prints a kernel function
 * pointer: %ps, %pS, %pf, %pF or %pB in its "print fmt:". */
bool rec_format_names_functions(const char *text, size_t len);

/* What rec_ksyms_trim() did, for the summary. */
struct rec_ksyms_trim_stats {
	bool trimmed;
	uint64_t kept, total;          /* text symbols after and before */
	uint64_t bytes_before, bytes_after;
	uint64_t raw_saved;            /* raw (decoded) bytes of the table left out */
};

/*
 * Replace the KSYMS blocks of the closed recording @out (read through its
 * descriptor; samples laid out as @l) by one holding only the symbols its
 * samples use, plus META keys ksyms.kept and ksyms.total, through a synced
 * copy written beside it and put in its place (rec_output_replace(),
 * wherever it is by then; @out then holds the copy); other blocks are
 * copied as stored, new blocks compressed at @zstd_level.  Nothing is
 * done (0, st->trimmed false) for REC_KSYMS_ALL, a discarded recording,
 * a file without KSYMS block, or in REC_KSYMS_AUTO when the table is
 * under 1/REC_KSYMS_AUTO_SHARE of the file or a recorded tracepoint
 * prints kernel function pointers.  Stops with -EINTR once *@stop is set.
 * On any error the recording is left as it was (the copy is removed) and
 * @err says what failed.
 */
struct rec_output;
int rec_ksyms_trim(struct rec_output *out, const struct amb_perf_layout *l,
		   enum rec_ksyms_mode mode, int zstd_level, const volatile sig_atomic_t *stop,
		   struct rec_ksyms_trim_stats *st, char *err, size_t errlen);

#endif /* AMB_REC_KSYMS_TRIM_H */
