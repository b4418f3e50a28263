/* SPDX-License-Identifier: MIT */
/*
 * tests/fuzz/fuzz_scratch.h - the scratch directory of a fuzz target that
 * hands its input to code that reads a file by name: a fresh directory
 * under /tmp holding one file, both removed at exit.  Included by one
 * fuzz_*.c each (static functions and state).
 */
#ifndef AMB_FUZZ_SCRATCH_H
#define AMB_FUZZ_SCRATCH_H

#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

static char root[64], path[96];

static void fuzz_scratch_remove(void)
{
	unlink(path);
	rmdir(root);
}

/*
 * Make /tmp/amber-fuzz-@name.XXXXXX and set path to @file in it, removed
 * at exit.  With @isolate, the directory is also HOME and TMPDIR and
 * DEBUGINFOD_URLS is unset, so that the code under test finds no file of
 * this machine (~/.debug, caches) and asks no server.  Aborts on failure.
 */
static void fuzz_scratch_init(const char *name, const char *file, int isolate)
{
	snprintf(root, sizeof(root), "/tmp/amber-fuzz-%s.XXXXXX", name);
	if (!mkdtemp(root))
		abort();
	snprintf(path, sizeof(path), "%s/%s", root, file);
	atexit(fuzz_scratch_remove);
	if (isolate) {
		setenv("HOME", root, 1);
		setenv("TMPDIR", root, 1);
		unsetenv("DEBUGINFOD_URLS");
	}
}

#endif /* AMB_FUZZ_SCRATCH_H */
