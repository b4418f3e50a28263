/* SPDX-License-Identifier: MIT */
/*
 * record/rotate.h - the output of a recording that is not simply one
 * file (rotate.c): files switched on SIGUSR2, at a size or a time
 * (--switch-output, --switch-max-files), a file or files kept under a
 * disk budget (--max-size), or the flight recorder's memory written out
 * on SIGUSR2 and at the end (--flight-recorder).  Every file is
 * described whole (describe.c) and analyzes alone; no record is lost or
 * repeated between two files (rec_drain_cut).
 */
#ifndef AMB_REC_ROTATE_H
#define AMB_REC_ROTATE_H

#include <signal.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "record/describe.h"
#include "record/drain.h"

struct rec_rotate;

/*
 * Start the output @d->opts asks for (rec_opts_rotating()): open the first
 * file and write its prologue, or take the flight recorder's first
 * snapshot.  @start_ns is the recording's start (the first file's
 * time.start_ns).  The drain is started by the caller afterwards, with
 * rec_rotate_sink()'s sink and rec_rotate_block_bytes()'s block size.
 * Returns 0 with *@out set, or -errno with a message in @err; free *@out
 * with rec_rotate_free() either way.
 */
int rec_rotate_open(struct rec_rotate **out, const struct rec_describe *d,
		    struct rec_drain *drain, uint64_t start_ns, char *err, size_t errlen);

/* The sink the drain must start with. */
void rec_rotate_sink(struct rec_rotate *r, struct rec_sink *sink);

/* The RING block size for this output: @dflt, or less, so that a file
 * under a small budget or a small flight recorder holds several. */
size_t rec_rotate_block_bytes(const struct rec_rotate *r, size_t dflt);

/* The events were enabled at @run_ns: the first file's COUNTS window. */
void rec_rotate_running(struct rec_rotate *r, uint64_t run_ns);

/*
 * From the recorder's loop, often: switch files (or dump the flight
 * recorder) when @usr2 - the number of SIGUSR2 received so far - grew,
 * when the current file reached its size or time, or when the disk
 * budget is near; renew the flight recorder's snapshot.  @stop (a signal
 * flag) interrupts the kernel symbol trim of a closed file.  Returns 0,
 * 1 when the recording must stop (--max-size reached without
 * --switch-output), or -errno with a message in @err.
 */
int rec_rotate_tick(struct rec_rotate *r, unsigned long usr2, const volatile sig_atomic_t *stop,
		    char *err, size_t errlen);

/* How the recording's end is described (rec_rotate_close). */
struct rec_rotate_end {
	uint64_t end_ns;           /* events disabled */
	bool have_status;          /* the command's wait status */
	int wstatus;
	const volatile sig_atomic_t *stop;  /* interrupts the kernel symbol trim */
};

/*
 * After the drain stopped: end the last file (or write the flight
 * recorder's memory out) and close it.  Returns 0 or -errno with a
 * message in @err (the file is then readable up to its last complete
 * block).
 */
int rec_rotate_close(struct rec_rotate *r, const struct rec_rotate_end *e, char *err,
		     size_t errlen);

/* What the output did, for the summary. */
struct rec_rotate_stats {
	unsigned files;            /* files written and still there */
	unsigned removed;          /* files removed by --switch-max-files */
	uint64_t bytes;            /* their size on disk */
	uint64_t raw_bytes;        /* raw bytes of their blocks */
	const char *first, *last;  /* names of the first and last file kept */
	bool budget_reached;       /* --max-size stopped the recording */
	uint64_t flight_dropped;   /* samples the flight recorder let go */
};
void rec_rotate_get_stats(const struct rec_rotate *r, struct rec_rotate_stats *st);

/* Free @r (NULL-safe); a file still open is closed as it is (readable by
 * scanning). */
void rec_rotate_free(struct rec_rotate *r);

#endif /* AMB_REC_ROTATE_H */
