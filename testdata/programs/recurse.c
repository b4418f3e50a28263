// SPDX-License-Identifier: MIT
/*
 * recurse.c - a call tree with recursion, for inclusive ("children")
 * shares: a function that is on the stack several times in one sample
 * must count once for that sample, so no entry passes 100%.
 *
 *     recurse [--rounds N] [--depth D] [--mix R,F]
 *
 *     main
 *       run                     N rounds of R parts of descend, F of flat
 *         descend(D)            burns one unit, then calls descend(D-1) ...
 *           burn            (-> note, 1/16 of a unit)
 *           descend(D-1)
 *             burn
 *             ...
 *               descend(0)
 *                 burn
 *         flat                  burns D+1 units: no recursion
 *           burn
 *
 * Each descend part and each flat part burns the same D+1 units, so with
 * the default --mix 3,1 about 3/4 of the time has descend on the stack
 * (up to D+1 times), and all of it burn.  Built with frame pointers
 * (recurse) and without (recurse-nofp, for --call-graph dwarf).  Prints
 * "recurse: checksum 0x<16 hex digits>", the same on every run with the
 * same options; a bad option exits 2.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* noclone: a clone (fn.isra.0) would rename the functions tests look for. */
#if defined(__clang__)
#define NOINLINE __attribute__((noinline))
#else
#define NOINLINE __attribute__((noinline, noclone))
#endif

#define UNIT_ITERS 20000u

static volatile uint64_t sink;

/*
 * Keeps burn a non-leaf, so that it gets a frame pointer (GCC 12 ignores
 * -mno-omit-leaf-frame-pointer) and --call-graph fp sees its caller; and
 * does a sixteenth of a unit's work itself, so that burn is a function
 * with time of its own and one callee, which a call graph draws as a
 * branch (a leaf itself, a sample in note misses burn in a frame-pointer
 * chain; unwound with DWARF it does not).
 */
NOINLINE static void note(uint64_t x)
{
	for (unsigned i = 0; i < UNIT_ITERS / 16; i++)
		x = (x * 2862933555777941757ULL + i) ^ (x >> 31);
	sink = x;
}

/* @units units of work, about 30 us of CPU each. */
NOINLINE static uint64_t burn(uint64_t seed, unsigned units)
{
	uint64_t x = seed | 1;

	for (unsigned u = 0; u < units; u++) {
		for (unsigned i = 0; i < UNIT_ITERS; i++)
			x = (x * 6364136223846793005ULL + i) ^ (x >> 29);
		note(x);
	}
	return x;
}

/* Recursion @depth deep, one unit burnt at each level; the addition after
 * the call keeps it from being a tail call. */
NOINLINE static uint64_t descend(uint64_t seed, unsigned depth)
{
	uint64_t r = burn(seed, 1);

	if (depth)
		r += descend(r, depth - 1);
	return r ^ depth;
}

NOINLINE static uint64_t flat(uint64_t seed, unsigned depth)
{
	return burn(seed, depth + 1) + 1;
}

NOINLINE static uint64_t run(unsigned rounds, unsigned depth, unsigned r, unsigned f)
{
	uint64_t x = 1;

	for (unsigned n = 0; n < rounds; n++) {
		for (unsigned i = 0; i < r; i++)
			x = descend(x, depth);
		for (unsigned i = 0; i < f; i++)
			x = flat(x, depth);
	}
	return x;
}

static int usage(void)
{
	fprintf(stderr, "usage: recurse [--rounds N] [--depth D] [--mix R,F]\n");
	return 2;
}

int main(int argc, char **argv)
{
	unsigned rounds = 1000, depth = 6, r = 3, f = 1;

	for (int i = 1; i < argc; i++) {
		char *end;

		if (!strcmp(argv[i], "--help")) {
			usage();
			return 0;
		} else if (!strcmp(argv[i], "--rounds") && i + 1 < argc) {
			rounds = (unsigned)strtoul(argv[++i], &end, 10);
			if (*end || rounds > 1000000)
				return usage();
		} else if (!strcmp(argv[i], "--depth") && i + 1 < argc) {
			depth = (unsigned)strtoul(argv[++i], &end, 10);
			if (*end || depth > 64)
				return usage();
		} else if (!strcmp(argv[i], "--mix") && i + 1 < argc) {
			if (sscanf(argv[++i], "%u,%u", &r, &f) != 2 || r > 100 || f > 100)
				return usage();
		} else {
			return usage();
		}
	}
	sink = run(rounds, depth, r, f);
	printf("recurse: checksum 0x%016llx\n", (unsigned long long)sink);
	return 0;
}
