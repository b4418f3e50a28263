// SPDX-License-Identifier: MIT
/*
 * analyze/verify.c - `amber-analyze verify FILE [--salvage OUT]`: check every
 * rule and checksum of a recording (FORMAT.md §7) and optionally copy its
 * intact blocks into a new, closed file.
 */
#include <getopt.h>
#include <stdio.h>
#include <string.h>

#include "analyze/analyze.h"
#include "common/common.h"

static void usage(FILE *f)
{
	fprintf(f,
		"usage: amber-analyze verify [--salvage OUT] FILE\n"
		"\n"
		"Check the file header, every block header and payload checksum (each\n"
		"payload is decompressed), block sequence numbers, the index and the\n"
		"trailer.  Each problem is printed as 'FILE: block N at offset X: ...'.\n"
		"\n"
		"  -s, --salvage OUT  write every intact block, renumbered, with a new\n"
		"                     index and trailer, to OUT (which must not exist)\n"
		"  -q, --quiet        print only problems, not the summary\n"
		"  -h, --help         this help\n"
		"\n"
		"exit status: 0 the file is clean (and the salvage, if asked, was written);\n"
		"1 problems were found; 2 usage error, or the file (or OUT) cannot be\n"
		"read or written at all.\n");
}

struct verify_out {
	const char *path;
};

static int print_problem(void *ctx, const struct amb_problem *pb)
{
	const struct verify_out *o = ctx;

	/* The format library's messages name their place (FORMAT.md §7). */
	printf("%s: %s\n", o->path, pb->msg);
	return 0;
}

int cmd_verify(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "salvage", required_argument, NULL, 's' },
		{ "quiet", no_argument, NULL, 'q' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	struct amb_verify_stats st;
	const char *salvage = NULL;
	struct verify_out o;
	bool quiet = false;
	int c, n;

	optind = 1;
	while ((c = getopt_long(argc, argv, "s:qh", opts, NULL)) != -1) {
		switch (c) {
		case 's':
			salvage = optarg;
			break;
		case 'q':
			quiet = true;
			break;
		case 'h':
			usage(stdout);
			return 0;
		default:
			usage(stderr);
			return 2;
		}
	}
	if (optind != argc - 1) {
		usage(stderr);
		return 2;
	}
	o.path = argv[optind];
	memset(&st, 0, sizeof(st));
	n = amb_verify(o.path, print_problem, &o, &st);
	if (n < 0) {
		fprintf(stderr, "amber-analyze: error: %s: %s\n", o.path, amb_strerror(n));
		return 2;
	}
	if (!quiet) {
		printf("%s: %llu blocks ok, %llu bad, %llu problem%s; %s",
		       o.path, (unsigned long long)st.blocks_ok, (unsigned long long)st.blocks_bad,
		       (unsigned long long)st.problems, st.problems == 1 ? "" : "s",
		       st.has_trailer ? (st.index_ok ? "closed (trailer and index valid)"
						     : "trailer present, index damaged")
				      : "no trailer (recording not closed)");
		if (st.tail_bytes)
			printf("; %llu bytes after the last readable block",
			       (unsigned long long)st.tail_bytes);
		printf("\n");
	}
	fflush(stdout);
	if (salvage) {
		long saved = amb_salvage(o.path, salvage);

		if (saved < 0) {
			fprintf(stderr, "amber-analyze: error: %s: salvage to %s: %s\n", o.path,
				salvage, amb_strerror((int)saved));
			return 2;
		}
		printf("%s: salvaged %ld block%s into %s\n", o.path, saved,
		       saved == 1 ? "" : "s", salvage);
	}
	return n ? 1 : 0;
}
