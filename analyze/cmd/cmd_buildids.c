// SPDX-License-Identifier: MIT
/*
 * analyze/cmd/cmd_buildids.c - `amber-analyze buildids`: every DSO with its
 * build-id, its hits, and where analysis finds its ELF (embedded, the
 * recorded path, the debug directory, ~/.debug, --symfs, debuginfod), or
 * that it is missing or only exists with another build-id (MISMATCH).
 */
#include <errno.h>
#include <getopt.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "analyze/cmd/cmd.h"
#include "common/util.h"

static const char usage[] =
"usage: amber-analyze buildids [OPTIONS] [FILE]\n\n"
"Every DSO of the recording: build-id, samples in it, frames in it, and\n"
"where analysis finds its ELF: embedded, path, symfs, debug-dir, ~/.debug,\n"
"debuginfod, host (this machine's vDSO: the same kernel), missing, or\n"
"MISMATCH (only files with another build-id exist).\n"
"The kernel's symbols come from the recording: kallsyms, or unused when the\n"
"recorder kept none because no sample was in the kernel.\n\n"
"      --symfs DIR       look for the recorded paths under DIR, not on this host\n"
"      --hit             only DSOs that samples hit\n"
"      --no-debuginfod   do not ask the servers of DEBUGINFOD_URLS\n"
"  -h, --help\n";

/* Where @d's ELF was found, in the words of the usage text. */
static const char *where(const struct ana_dso *d)
{
	switch (d->status) {
	case ANA_DSO_MISSING: return "missing";
	case ANA_DSO_MISMATCH: return "MISMATCH";
	case ANA_DSO_NO_FILE: return "-";
	case ANA_DSO_UNRESOLVED: return "?";
	case ANA_DSO_FOUND: break;
	}
	switch (d->origin) {
	case ANA_DSO_FROM_EMBEDDED: return "embedded";
	case ANA_DSO_FROM_PATH: return d->verified ? "path" : "path (unverified)";
	case ANA_DSO_FROM_SYMFS: return d->verified ? "symfs" : "symfs (unverified)";
	case ANA_DSO_FROM_DEBUG_DIR: return "debug-dir";
	case ANA_DSO_FROM_DOT_DEBUG: return "~/.debug";
	case ANA_DSO_FROM_DEBUGINFOD: return "debuginfod";
	case ANA_DSO_FROM_HOST_VDSO: return "host";
	case ANA_DSO_FROM_NONE: break;
	}
	return "found";
}

static int print_table(struct ana_session *s, struct ana_dso_table *t,
		       const struct ana_dso_hits *h, bool only_hit)
{
	char hex[2 * ANA_BUILD_ID_MAX + 1];
	size_t ksyms_len = 0;

	printf("%-40s %9s %9s  %-10s %s\n", "BUILD-ID", "SAMPLES", "FRAMES", "WHERE", "PATH");
	for (size_t i = 0; i < h->n; i++) {
		struct ana_dso *d = h->v[i].dso;

		if (only_hit && !h->v[i].samples && !h->v[i].frames)
			continue;
		ana_dso_resolve(t, d);
		printf("%-40s %9" PRIu64 " %9" PRIu64 "  %-10s ",
		       d->build_id_len ? ana_dso_build_id_hex(d, hex) : "(none)",
		       h->v[i].samples, h->v[i].frames, where(d));
		amb_fput_text(stdout, d->path);
		putchar('\n');
	}
	/* Kernel and vDSO entries of the BUILDID table: not ELF lookups. */
	ana_session_ksyms(s, &ksyms_len);
	for (size_t i = 0; !only_hit && i < ana_session_buildid_count(s); i++) {
		const struct ana_buildid *b = ana_session_buildid(s, i);
		const char *w;
		size_t k;

		if (b->kind == AMB_DSO_USER)
			continue;
		for (k = 0; k < b->build_id_len; k++)
			snprintf(hex + 2 * k, 3, "%02x", b->build_id[k]);
		hex[2 * k] = '\0';
		if (b->kind == AMB_DSO_VDSO) {
			/* Embedded, or this machine's own (the same kernel). */
			struct ana_dso *d = ana_dso_table_get(t, b->path, b->build_id,
							      b->build_id_len, true, 0);

			if (!d)
				return -ENOMEM;
			ana_dso_resolve(t, d);
			w = where(d);
		} else if (ksyms_len)
			w = "kallsyms";
		else  /* trimmed to nothing: no sample was in the kernel */
			w = ana_session_meta(s, "ksyms.kept") ? "unused" : "missing";
		printf("%-40s %9s %9s  %-10s ", b->build_id_len ? hex : "(none)", "-", "-", w);
		amb_fput_text(stdout, b->path);
		putchar('\n');
	}
	return fflush(stdout) ? -errno : 0;
}

enum { O_SYMFS = 256, O_HIT, O_NO_DEBUGINFOD };

struct buildids_args {
	struct ana_pipeline_opts o;
	bool only_hit;
};

static int buildids_option(void *ctx, int c, const char *arg)
{
	struct buildids_args *a = ctx;

	switch (c) {
	case O_SYMFS: a->o.dso.symfs = arg; return 0;
	case O_HIT: a->only_hit = true; return 0;
	case O_NO_DEBUGINFOD: a->o.dso.no_debuginfod = true; return 0;
	default: return 1;
	}
}

int ana_cmd_buildids(int argc, char **argv)
{
	static const struct option longopts[] = {
		{ "symfs", required_argument, NULL, O_SYMFS },
		{ "hit", no_argument, NULL, O_HIT },
		{ "no-debuginfod", no_argument, NULL, O_NO_DEBUGINFOD },
		{ NULL, 0, NULL, 0 },
	};
	static const struct ana_cmd_desc desc = { "buildids", usage, "", longopts, 1, 1, true };
	struct buildids_args a = { .only_hit = false };
	struct ana_pipeline *p = NULL;
	struct ana_dso_hits h = { 0 };
	const char *path = NULL;
	int err, rc;

	ana_pipeline_opts_init(&a.o);
	rc = ana_cmd_parse(&desc, argc, argv, NULL, buildids_option, &a, &path);
	if (rc != ANA_CMD_GO_ON)
		goto out;
	rc = 1;
	if (ana_cmd_open("buildids", path, &a.o, &p))
		goto out;
	err = ana_dso_hits_collect(p, &h);
	if (!err) {
		/* The table's WHERE says which files are missing or stale: the
		 * lookup's warnings would say it again, and of DSOs without a
		 * sample too. */
		amb_warn_fn warn = amb_set_warn(NULL, NULL);

		err = print_table(ana_pipeline_session(p), ana_pipeline_dsos(p), &h, a.only_hit);
		amb_set_warn(warn, NULL);
	}
	if (err)
		ana_cmd_fail("buildids", path, err);
	else
		rc = 0;
out:
	ana_dso_hits_free(&h);
	ana_pipeline_close(p);
	ana_pipeline_opts_free(&a.o);
	return rc;
}
