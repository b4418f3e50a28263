// SPDX-License-Identifier: MIT
/*
 * record/output.c - the output file of amber-rec and amber-rec stat -o:
 * never destroy a recording silently.
 */
#include <errno.h>
#include <stdio.h>
#include <sys/stat.h>

#include "record/output.h"

int rec_output_move_old(const char *path)
{
	struct stat st;
	char old[4096];

	if (lstat(path, &st))
		return errno == ENOENT ? 0 : -errno;
	if (snprintf(old, sizeof(old), "%s.old", path) >= (int)sizeof(old))
		return -ENAMETOOLONG;
	if (rename(path, old))
		return -errno;
	fprintf(stderr, "amber-rec: note: moved existing %s to %s\n", path, old);
	return 0;
}
