// SPDX-License-Identifier: MIT
/*
 * Fuzz target for rec_events_parse(): arbitrary -e strings.
 *
 * Tracepoints resolve against a small fake tracefs tree made once in a
 * temporary directory (rec_tracefs_set_root), so the fuzzer never mounts
 * anything or walks the real tree, yet exercises globs, id files and
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

#include "record/record.h"

int LLVMFuzzerInitialize(int *argc, char ***argv);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static char fake_root[64];

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
