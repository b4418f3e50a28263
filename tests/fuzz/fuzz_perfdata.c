// SPDX-License-Identifier: MIT
/*
 * Fuzz the perf.data reader and importer (replay/perfdata.c,
 * perfdata_import.c): an input opened as a perf.data (header, attrs, feature
 * sections, tracing data), every record of its data section walked (zstd
 * compressed ones expanded), and the whole file imported into an .amber
 * that the session then reads back.  Seeds: small perf.data files recorded
 * with -g, -z and a tracepoint (testdata/fuzz/fuzz_perfdata/).
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "analyze/replay/replay.h"
#include <amber/common.h>
#include "tests/fuzz/fuzz_scratch.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);
int LLVMFuzzerInitialize(int *argc, char ***argv);


int LLVMFuzzerInitialize(int *argc, char ***argv)
{
	(void)argc;
	(void)argv;
	fuzz_scratch_init("perfdata", "out.amber", 0);
	return 0;
}

static int count(void *ctx, const uint8_t *rec, size_t len, uint32_t type)
{
	(void)rec;
	(void)type;
	*(size_t *)ctx += len;
	return 0;
}

static int visit(void *ctx, const struct ana_record *rec)
{
	(void)ctx;
	(void)rec;
	return 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct ana_import_opts o = { NULL, false, 1, 1 };
	struct ana_perfdata_stats ps;
	struct ana_import_stats st;
	struct ana_perfdata *pd;
	struct ana_session *s;
	size_t bytes = 0, n;

	if (ana_perfdata_open_mem(data, size, &pd))
		return 0;
	ana_perfdata_attrs(pd, &n);
	ana_perfdata_buildids(pd, &n);
	ana_perfdata_for_each(pd, count, &bytes, &ps);
	unlink(path);
	if (!ana_perfdata_import(pd, path, &o, &st) && !ana_session_open(path, &s)) {
		ana_session_for_each(s, visit, NULL);
		ana_session_close(s);
	}
	unlink(path);
	ana_perfdata_close(pd);
	return 0;
}
