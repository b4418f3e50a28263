// SPDX-License-Identifier: MIT
/*
 * Fuzz a whole replay: an input file opened as a recording, its small
 * blocks loaded (META, EVENT_ATTR, BUILDID, TRACEFS, KSYMS), every record
 * merged, parsed and applied to the thread/address-space model, every
 * sample's stack walked and symbolized, tracepoint payloads formatted.
 * This is what report and script do with a file from another machine.
 *
 * Symbol files are looked for only under an empty --symfs root, with HOME
 * pointing at an empty directory and no debuginfod, so that the names a
 * crafted file carries never reach real files of this machine.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "analyze/analyze.h"
#include "analyze/machine.h"
#include "analyze/symbols.h"
#include "analyze/tracepoint.h"
#include "common/common.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);
int LLVMFuzzerInitialize(int *argc, char ***argv);

static char root[64], path[96];

static void remove_root(void)
{
	unlink(path);
	rmdir(root);
}

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
	(void)argc;
	(void)argv;
	snprintf(root, sizeof(root), "/tmp/amber-fuzz-session.XXXXXX");
	if (!mkdtemp(root))
		abort();
	snprintf(path, sizeof(path), "%s/in.amber", root);
	atexit(remove_root);
	setenv("HOME", root, 1);
	unsetenv("DEBUGINFOD_URLS");
	return 0;
}

struct replay {
	struct ana_machine *m;
	struct ana_tp *tp;
	struct amb_buf line;
	unsigned frames;
};

static int on_frame(void *ctx, const struct ana_loc *loc, unsigned depth)
{
	struct replay *rp = ctx;
	char buf[64];

	(void)depth;
	rp->frames += ana_loc_sym_name(loc, buf, sizeof(buf)) != NULL;
	rp->frames += ana_loc_dso_name(loc) != NULL;
	return 0;
}

static int on_record(void *ctx, const struct ana_record *rec)
{
	struct replay *rp = ctx;
	struct ana_thread *t;

	if (ana_machine_process(rp->m, rec))
		return 0;
	if (rec->type != PERF_RECORD_SAMPLE)
		return 0;
	t = ana_machine_thread(rp->m, rec->u.sample.pid, rec->u.sample.tid);
	ana_machine_walk_stack(rp->m, t, &rec->u.sample, ANA_SYM_SRCLINE | ANA_SYM_INLINE, 64,
			       on_frame, rp);
	if (rp->tp && rec->u.sample.raw_size) {
		amb_buf_reset(&rp->line);
		ana_tp_format(rp->tp, rec->u.sample.raw, rec->u.sample.raw_size, &rp->line);
	}
	return 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct ana_dso_opts dopts = { .symfs = root, .home = root, .debug_dir = root,
				      .no_debuginfod = true };
	struct replay rp = { 0 };
	struct ana_dso_table *dsos = NULL;
	struct ana_session *s = NULL;
	FILE *f = fopen(path, "wb");

	if (!f)
		abort();
	if (size && fwrite(data, 1, size, f) != size)
		abort();
	fclose(f);

	if (ana_session_open(path, &s))
		goto out;
	dsos = ana_dso_table_new(&dopts);
	rp.m = dsos ? ana_machine_new(dsos) : NULL;
	if (!rp.m || ana_machine_load_session(rp.m, s))
		goto out;
	rp.tp = ana_tp_from_session(s);
	ana_session_for_each(s, on_record, &rp);
out:
	ana_tp_free(rp.tp);
	amb_buf_free(&rp.line);
	ana_machine_free(rp.m);
	ana_dso_table_free(dsos);
	ana_session_close(s);
	unlink(path);
	return 0;
}
