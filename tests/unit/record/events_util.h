/* SPDX-License-Identifier: MIT */
/*
 * tests/unit/record/events_util.h - what the -e parser tests share:
 * parsing helpers and a fake directory tree (tracefs or sysfs PMUs) in a
 * mkdtemp directory.  Included by one test program each, after cmocka.h.
 */
#ifndef AMB_TEST_EVENTS_UTIL_H
#define AMB_TEST_EVENTS_UTIL_H

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "record/events/events.h"
#include "record/events/pmu.h"
#include "record/events/tracefs.h"

static char fake_root[64];

/* Create the fake tree's root: @templ is a mkdtemp template. */
static int fake_root_make(const char *templ)
{
	snprintf(fake_root, sizeof(fake_root), "%s", templ);
	return mkdtemp(fake_root) ? 0 : -1;
}

static int fake_root_remove(void)
{
	char cmd[128];

	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", fake_root);
	return system(cmd) == 0 ? 0 : -1;
}

static void fake_mkdir(const char *rel)
{
	char path[256];

	snprintf(path, sizeof(path), "%s/%s", fake_root, rel);
	assert_int_equal(mkdir(path, 0755), 0);
}

static void fake_write(const char *rel, const char *text)
{
	char path[256];
	FILE *f;

	snprintf(path, sizeof(path), "%s/%s", fake_root, rel);
	f = fopen(path, "w");
	assert_non_null(f);
	fputs(text, f);
	assert_int_equal(fclose(f), 0);
}

/* Parse @spec into a fresh list expecting success and @n events. */
static void parse_ok(struct rec_event_list *l, const char *spec, size_t n)
{
	char err[1024];
	int ret;

	memset(l, 0, sizeof(*l));
	ret = rec_events_parse(l, spec, err, sizeof(err));
	if (ret)
		fail_msg("'%s': %d %s", spec, ret, err);
	assert_int_equal(l->n, n);
}

/* Parse @spec expecting error @want with @needle in the message. */
static void parse_fails(const char *spec, int want, const char *needle)
{
	struct rec_event_list l = { 0 };
	char err[1024];
	int ret;

	ret = rec_events_parse(&l, spec, err, sizeof(err));
	if (ret != want || !strstr(err, needle))
		fail_msg("'%s': got %d '%s', want %d with '%s'", spec, ret, err, want, needle);
	assert_int_equal(l.n, 0);
	assert_null(l.v);
}

#endif /* AMB_TEST_EVENTS_UTIL_H */
