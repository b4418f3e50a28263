/* SPDX-License-Identifier: MIT */
/*
 * record/output.h - the recording's file (output.c): what -o may name,
 * moving an older recording out of the way, creating the new one and
 * holding it by descriptor, finding where it is now and what it holds.
 *
 * A recorder only ever touches its own file: it creates it (O_EXCL,
 * O_NOFOLLOW, 0600) and keeps a descriptor of it; another amber-rec
 * started on the same path may move it aside while it records (to
 * FILE.old, FILE.old.1, ...), and the summary and the kernel-symbol trim
 * follow it there.  Renaming a recording (moving it aside, putting the
 * trimmed copy in its place) is done under an exclusive flock() of the
 * file renamed, so two recorders never rename the same file at once.
 */
#ifndef AMB_REC_OUTPUT_H
#define AMB_REC_OUTPUT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct rec_output {
	const char *path;      /* -o as given */
	int fd;                /* the recording (O_RDWR), or /dev/null; -1 when none */
	bool discard;          /* -o /dev/null: the recording is written nowhere */
	char *moved_to;        /* where an older recording at @path went, or NULL */
};

/*
 * Check -o @path before anything starts: "-" (standard output) is
 * refused, as is anything at @path that is neither a regular file nor a
 * symbolic link (both are moved aside later) nor /dev/null (the recording
 * is discarded, for measuring amber-rec's own cost).  Returns 0, or a
 * negative errno with a message naming what @path is in @err.
 */
int rec_output_check(const char *path, char *err, size_t errlen);

/*
 * Make the file of a new recording at @path into @o: /dev/null is opened
 * as it is; otherwise a regular file or symbolic link at @path is renamed
 * to the first of FILE.old, FILE.old.1, FILE.old.2 ... that does not
 * exist (nothing is ever replaced; @o->moved_to says where it went) and
 * @path is created.  Returns 0, or a negative errno with @err set.
 */
int rec_output_create(struct rec_output *o, const char *path, char *err, size_t errlen);

/*
 * Hold the existing recording @path in @o, as rec_output_create() would
 * have made it (for tools and tests that trim a file).  Returns 0, or
 * -errno: -ELOOP for a symbolic link, -EISDIR, -EINVAL for what is not a
 * regular file.
 */
int rec_output_adopt(struct rec_output *o, const char *path);

/* A descriptor of the recording for amb_writer_open_fd() (a dup), or -errno. */
int rec_output_writer_fd(const struct rec_output *o);

/* The path the recording has now (it may have been moved aside since it
 * was made), into @buf; @o->path when it cannot be told.  Returns @buf. */
const char *rec_output_where(const struct rec_output *o, char *buf, size_t len);

/* The size of the recording now, in bytes (0 when discarded). */
uint64_t rec_output_size(const struct rec_output *o);

/* The samples (PERF_RECORD_SAMPLE) the file holds, read back from its
 * RING blocks; -1 when it cannot be read or is discarded. */
int64_t rec_output_samples(const struct rec_output *o);

/*
 * Put the file @tmp, open on @tmp_fd, in the place of the recording,
 * wherever that is now, under the recording's lock; @o then holds
 * @tmp_fd (taken over) instead.  Returns 0, or a negative errno (@tmp is
 * left for the caller to remove, @tmp_fd still the caller's).
 */
int rec_output_replace(struct rec_output *o, const char *tmp, int tmp_fd);

/* Close the descriptor and free @o's strings (@o may be zeroed). */
void rec_output_close(struct rec_output *o);

#endif /* AMB_REC_OUTPUT_H */
