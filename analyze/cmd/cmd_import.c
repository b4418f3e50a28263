// SPDX-License-Identifier: MIT
/*
 * analyze/cmd/cmd_import.c - `amber-analyze import perf.data -o FILE.amber`:
 * a perf.data converted into a recording every command reads
 * (replay/perfdata.c reads it, perfdata_import.c writes the .amber).
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "analyze/cmd/cmd.h"
#include "common/util.h"
#include <amber/common.h>

static const char usage[] =
"usage: amber-analyze import [OPTIONS] PERF.DATA -o FILE.amber\n"
"\n"
"Convert a perf.data file (perf record, either byte order, -z compressed\n"
"included) into an .amber recording: events, records, build-ids, host and\n"
"topology, tracepoint formats.  report, script, flame, diff, archive ...\n"
"then read it.\n"
"\n"
"  -o, --output FILE      the .amber file to write (must not exist)\n"
"      --kallsyms FILE    kernel symbols (a /proc/kallsyms copy from the recording\n"
"                         host and boot); perf.data stores none.  Default: this\n"
"                         host's /proc/kallsyms when its kernel is the recorded one\n"
"                         (build-id; without one, host name and kernel release)\n"
"                         and it puts _text where the recording had it\n"
"      --no-kallsyms      store no kernel symbols\n"
"  -z, --compression-level N  zstd level of the blocks (default 3)\n";

enum { O_KALLSYMS = 256, O_NO_KALLSYMS };

struct import_args {
	const char *out;
	struct ana_import_opts o;
};

static int import_option(void *ctx, int c, const char *arg)
{
	struct import_args *a = ctx;
	char *end;
	long v;

	switch (c) {
	case 'o': a->out = arg; return 0;
	case O_KALLSYMS: a->o.kallsyms = arg; return 0;
	case O_NO_KALLSYMS: a->o.host_kallsyms = false; return 0;
	case 'z':
		v = strtol(arg, &end, 10);
		if (end == arg || *end || v < 0 || v > 19)
			return -EINVAL;
		a->o.zstd_level = (int)v;
		return 0;
	default: return 1;
	}
}

int ana_cmd_import(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "output", required_argument, NULL, 'o' },
		{ "kallsyms", required_argument, NULL, O_KALLSYMS },
		{ "no-kallsyms", no_argument, NULL, O_NO_KALLSYMS },
		{ "compression-level", required_argument, NULL, 'z' },
		{ NULL, 0, NULL, 0 },
	};
	static const struct ana_cmd_desc desc = { "import", usage, "o:z:", opts, 1, 1, false };
	struct import_args a = { NULL, { NULL, true, AMB_DEFAULT_ZSTD_LEVEL, 0 } };
	const char *path = NULL;
	struct ana_perfdata *pd = NULL;
	struct ana_import_stats st;
	struct stat sb;
	int rc, err;

	rc = ana_cmd_parse(&desc, argc, argv, NULL, import_option, &a, &path);
	if (rc != ANA_CMD_GO_ON)
		return rc;
	if (!a.out) {
		ana_cmd_error("import", "no output file: give -o FILE.amber");
		return 2;
	}
	amb_errmsg_clear();
	err = ana_perfdata_open(path, &pd);
	if (err) {
		ana_cmd_error("import", "%s: %s", path, *amb_errmsg() ? amb_errmsg() : amb_strerror(err));
		return err == -AMB_E_MAGIC || err == -ENOENT ? 2 : 1;
	}
	if (!stat(path, &sb))
		a.o.created_ns = (uint64_t)sb.st_mtim.tv_sec * 1000000000u + (uint64_t)sb.st_mtim.tv_nsec;
	amb_errmsg_clear();
	err = ana_perfdata_import(pd, a.out, &a.o, &st);
	ana_perfdata_close(pd);
	if (err)
		return ana_cmd_fail("import", a.out, err);
	fprintf(stderr, "amber-analyze: import: %s: %llu records (%llu samples, %llu synthesized) "
		"in %llu CPU stream%s written to %s\n", path, (unsigned long long)st.records,
		(unsigned long long)st.samples, (unsigned long long)st.synth,
		(unsigned long long)st.streams, st.streams == 1 ? "" : "s", a.out);
	if (st.ksyms_from)
		fprintf(stderr, "amber-analyze: import: kernel symbols from %s%s%s%s\n", st.ksyms_from,
			st.ksyms_why ? " (" : "", st.ksyms_why ? st.ksyms_why : "",
			st.ksyms_why ? ")" : "");
	else
		fprintf(stderr, "amber-analyze: import: no kernel symbols (perf.data stores none; "
			"--kallsyms FILE adds a copy of the recording host's /proc/kallsyms)\n");
	if (st.bad)
		fprintf(stderr, "amber-analyze: import: %llu records did not parse and were left out\n",
			(unsigned long long)st.bad);
	if (st.damaged) {
		fprintf(stderr, "amber-analyze: import: %s is damaged or cut short: what was intact "
			"is imported (see the warnings above)\n", path);
		return 1;
	}
	return 0;
}
