/* SPDX-License-Identifier: MIT */
/*
 * record/output.h - the output file of a recording (output.c): an
 * existing one is moved aside, never overwritten.
 */
#ifndef AMB_REC_OUTPUT_H
#define AMB_REC_OUTPUT_H

/*
 * Move an existing @path to "@path.old" (replacing an older .old), as perf
 * does, and say so on stderr.  Returns 0 (also when there is nothing to
 * move), -ENAMETOOLONG, or -errno of lstat/rename.
 */
int rec_output_move_old(const char *path);

#endif /* AMB_REC_OUTPUT_H */
