// SPDX-License-Identifier: MIT
/*
 * analyze/verify.c - `amber-analyze verify FILE [--salvage OUT]`: check every
 * rule and checksum of a recording (FORMAT.md §7) and optionally copy its
 * intact blocks into a new, closed file.
 */
#include <getopt.h>
#include <stdio.h>
#include <string.h>

#include "analyze/cmd/cmd.h"
#include "common/util.h"
#include <amber/common.h>

static const char usage[] =
	"usage: amber-analyze verify [--salvage OUT] [FILE]\n"
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
	"read or written at all.\n";

struct verify_out {
	const char *path;
	char shown[4200];   /* the path as printed: escaped (common/util.h) */
	int header_err;     /* the file header's problem, or 0 */
};

static int print_problem(void *ctx, const struct amb_problem *pb)
{
	struct verify_out *o = ctx;

	/* The format library's messages name their place (FORMAT.md §7). */
	if (!strncmp(pb->msg, "file header:", 12))
		o->header_err = pb->err;
	printf("%s: ", o->shown);
	amb_fput_text(stdout, pb->msg);
	putchar('\n');
	return 0;
}

struct verify_args {
	const char *salvage;
	bool quiet;
};

static int verify_option(void *ctx, int c, const char *arg)
{
	struct verify_args *a = ctx;

	switch (c) {
	case 's': a->salvage = arg; return 0;
	case 'q': a->quiet = true; return 0;
	default: return 1;
	}
}

int ana_cmd_verify(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "salvage", required_argument, NULL, 's' },
		{ "quiet", no_argument, NULL, 'q' },
		{ NULL, 0, NULL, 0 },
	};
	static const struct ana_cmd_desc desc = { "verify", usage, "s:q", opts, 1, 1, true };
	struct amb_verify_stats st;
	struct verify_args a = { NULL, false };
	struct verify_out o;
	amb_warn_fn old;
	int n;

	o.path = NULL;
	o.header_err = 0;
	n = ana_cmd_parse(&desc, argc, argv, NULL, verify_option, &a, &o.path);
	if (n != ANA_CMD_GO_ON)
		return n;
	amb_text_escape(o.shown, sizeof(o.shown), o.path);
	memset(&st, 0, sizeof(st));
	amb_errmsg_clear();
	/* A perf.data is no damaged recording: say what it is, as every
	 * command does, and nothing about salvaging it. */
	if (ana_perfdata_hint(o.path)) {
		ana_cmd_error("verify", "%s", amb_errmsg());
		return 2;
	}
	/* The reader's problems come as problems: not as warnings too. */
	old = amb_set_warn(NULL, NULL);
	n = amb_verify(o.path, print_problem, &o, &st);
	amb_set_warn(old, NULL);
	if (n < 0) {
		ana_cmd_fail("verify", o.path, n);
		return 2;
	}
	if (o.header_err == -AMB_E_VERSION) {
		/* Another major's blocks may follow other rules (FORMAT.md §8). */
		if (!a.quiet)
			printf("%s: not checked further\n", o.shown);
	} else if (!a.quiet) {
		printf("%s: %llu blocks ok, %llu bad, %llu problem%s; %s",
		       o.shown, (unsigned long long)st.blocks_ok, (unsigned long long)st.blocks_bad,
		       (unsigned long long)st.problems, st.problems == 1 ? "" : "s",
		       st.has_trailer ? (st.index_ok ? "closed (trailer and index valid)"
						     : "trailer present, index damaged")
				      : "no trailer (recording not closed)");
		if (st.tail_bytes)
			printf("; %llu bytes after the last readable block",
			       (unsigned long long)st.tail_bytes);
		printf("\n");
	}
	if (o.header_err && o.header_err != -AMB_E_VERSION && !a.salvage)
		printf("%s: other commands refuse a file whose header is damaged; "
		       "'amber-analyze verify --salvage OUT FILE' writes its intact blocks to OUT\n",
		       o.shown);
	fflush(stdout);
	if (a.salvage) {
		long saved = amb_salvage(o.path, a.salvage);

		if (saved < 0) {
			ana_cmd_error("verify", "%s: salvage to %s: %s", o.path, a.salvage,
				      amb_strerror((int)saved));
			return 2;
		}
		printf("%s: salvaged %ld block%s into ", o.shown, saved, saved == 1 ? "" : "s");
		amb_fput_text(stdout, a.salvage);
		putchar('\n');
	}
	return n ? 1 : 0;
}
