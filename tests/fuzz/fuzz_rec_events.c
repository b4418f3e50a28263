// SPDX-License-Identifier: MIT
/*
 * Fuzz target for rec_events_parse(): arbitrary -e strings, and the same
 * bytes as a PMU format file (rec_pmu_format_parse).
 *
 * Tracepoints resolve against a small fake tracefs tree made once in a
 * temporary directory (rec_tracefs_set_root), and pmu/terms/ events
 * against a fake /sys/bus/event_source/devices beside it
 * (rec_pmu_set_root), so the fuzzer never mounts anything or walks the
 * real trees, yet exercises globs, id files, formats, event aliases and
 * suggestions.  Every input must either parse into well-formed events or
 * fail with a message, leaving the list as it was.
 */
#include <errno.h>
#include <ftw.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "record/events/events.h"
#include "record/events/pmu.h"
#include "record/events/tracefs.h"

int LLVMFuzzerInitialize(int *argc, char ***argv);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static char fake_root[64];
static char pmu_root[80];

static void put(const char *rel, const char *text)
{
	char path[256];
	FILE *f;

	snprintf(path, sizeof(path), "%s/%s", fake_root, rel);
	if (!text) {
		mkdir(path, 0755);
		return;
	}
	f = fopen(path, "w");
	if (f) {
		fputs(text, f);
		fclose(f);
	}
}

static int rm_one(const char *path, const struct stat *st, int flag, struct FTW *ftw)
{
	(void)st;
	(void)flag;
	(void)ftw;
	remove(path);
	return 0;
}

static void fake_remove(void)
{
	nftw(fake_root, rm_one, 8, FTW_DEPTH | FTW_PHYS);
}

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
	(void)argc;
	(void)argv;
	strcpy(fake_root, "/tmp/amber-fuzz-tracefs-XXXXXX");
	if (!mkdtemp(fake_root))
		abort();
	atexit(fake_remove);
	put("events", NULL);
	put("events/enable", "0\n");
	put("events/sched", NULL);
	put("events/sched/sched_switch", NULL);
	put("events/sched/sched_switch/id", "316\n");
	put("events/sched/sched_wakeup", NULL);
	put("events/sched/sched_wakeup/id", "318\n");
	put("events/sched/sched_bad", NULL);
	put("events/sched/sched_bad/id", "x\n");
	put("events/irq", NULL);
	put("events/irq/irq_handler_entry", NULL);
	put("events/irq/irq_handler_entry/id", "120");
	put("events/ftrace", NULL);
	put("events/ftrace/function", NULL);
	if (rec_tracefs_set_root(fake_root))
		abort();

	put("pmu", NULL);
	put("pmu/fake", NULL);
	put("pmu/fake/type", "42\n");
	put("pmu/fake/format", NULL);
	put("pmu/fake/format/event", "config:0-7\n");
	put("pmu/fake/format/umask", "config:8-15\n");
	put("pmu/fake/format/cmask", "config:24-31\n");
	put("pmu/fake/format/edge", "config:18\n");
	put("pmu/fake/format/ldlat", "config1:0-15\n");
	put("pmu/fake/format/split", "config2:0-3,32-35\n");
	put("pmu/fake/events", NULL);
	put("pmu/fake/events/ev1", "event=0x3c\n");
	put("pmu/fake/events/ev2", "event=0xcd,umask=0x1\n");
	put("pmu/fake/events/ev2.scale", "2.5\n");
	put("pmu/fake/events/ev2.unit", "MiB\n");
	put("pmu/fake/events/needs", "event=0x40,umask=?\n");
	put("pmu/fake/events/named", "event=0x11,name=n\n");
	put("pmu/other", NULL);
	put("pmu/other/type", "7\n");
	snprintf(pmu_root, sizeof(pmu_root), "%s/pmu", fake_root);
	if (rec_pmu_set_root(pmu_root))
		abort();
	return 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct rec_event_list l = { 0 };
	char err[256], *spec;
	int ret;

	if (size > 4096)
		return 0;
	spec = malloc(size + 1);
	if (!spec)
		return 0;
	memcpy(spec, data, size);
	spec[size] = 0;

	/* The same bytes as a sysfs format file ("config1:0-3,8"). */
	{
		struct rec_pmu_field f;

		if (!rec_pmu_format_parse(spec, &f) &&
		    (f.word > 2 || !f.mask || f.width != (unsigned)__builtin_popcountll(f.mask)))
			abort();
	}

	/* Something already in the list must survive a failed parse. */
	if (rec_events_parse(&l, "cpu-clock", NULL, 0) || l.n != 1)
		abort();
	ret = rec_events_parse(&l, spec, err, sizeof(err));
	if (ret) {
		if (ret != -EINVAL && ret != -ENOENT && ret != -ENOMEM)
			abort();
		if (!err[0] || l.n != 1)
			abort();
	} else {
		if (l.n < 2)
			abort();
		for (size_t i = 0; i < l.n; i++) {
			const struct rec_event *e = &l.v[i];

			if (!e->name || e->leader >= (int)l.n || e->leader < -1)
				abort();
			if (e->tracepoint != (e->tp_system != NULL) ||
			    e->tracepoint != (e->tp_event != NULL))
				abort();
		}
		if (rec_events_fallback_cpu_clock(&l, l.n - 1) != (l.v[l.n - 1].tracepoint ? -EINVAL : 0))
			abort();
	}
	rec_events_free(&l);
	free(spec);
	return 0;
}
