// SPDX-License-Identifier: MIT
/*
 * record/tp_filter.c - tracepoint filters, as perf's --filter sets them: the
 * expression goes to every descriptor of the event with
 * PERF_EVENT_IOC_SET_FILTER, so the kernel drops the hits that do not
 * match before they reach the ring.
 *
 * The ioctl says only EINVAL when the kernel cannot parse a filter.  The
 * same parser, given the expression through the event's tracefs "filter"
 * file, keeps a description of the error there (kernel/trace/
 * trace_events_filter.c, append_filter_err()), so that is where the reason
 * is looked up - only when the file holds no filter of someone else's,
 * and it is cleared again after.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <unistd.h>

#include <linux/perf_event.h>

#include "common/util.h"
#include "record/events/tracefs.h"
#include "record/tp_filter.h"

int rec_filter_parse_error(const char *text, char *out, size_t outlen)
{
	const char *pe = strstr(text, "parse_error: "), *caret = NULL, *expr = NULL, *nl;
	int n;

	if (!pe)
		return -ENOENT;
	/* Above "parse_error:", the filter and a caret under its error. */
	for (const char *l = text, *prev = NULL; l < pe; prev = l, l = nl + 1) {
		nl = strchr(l, '\n');
		if (!nl || nl > pe)
			break;
		if (l[strspn(l, " ")] == '^') {
			caret = l;
			expr = prev;
		}
	}
	pe += strlen("parse_error: ");
	nl = strchr(pe, '\n');
	n = snprintf(out, outlen, "%.*s", (int)(nl ? nl - pe : (long)strlen(pe)), pe);
	if (caret && expr && n >= 0 && (size_t)n < outlen)
		snprintf(out + n, outlen - (size_t)n, "\n    %.*s\n    %.*s",
			 (int)strcspn(expr, "\n"), expr, (int)strcspn(caret, "\n"), caret);
	return 0;
}

/* Write @s to tracefs file @path.  0 or -errno. */
static int write_str(const char *path, const char *s)
{
	int fd = open(path, O_WRONLY | O_TRUNC | O_CLOEXEC);
	ssize_t n;
	int e = 0;

	if (fd < 0)
		return -errno;
	n = write(fd, s, strlen(s));
	if (n < 0)
		e = -errno;
	close(fd);
	return e;
}

/* The kernel's reason for refusing @expr on tracepoint @sys:@event, from
 * its tracefs filter file, into @why.  Returns 0 or -errno. */
static int kernel_reason(const char *sys, const char *event, const char *expr, char *why,
			 size_t whylen)
{
	const char *root = rec_tracefs_root();
	char path[4096], rel[512];
	char *cur, *text;
	size_t len;
	int e;

	if (!root)
		return -ENOENT;
	snprintf(rel, sizeof(rel), "events/%s/%s/filter", sys, event);
	if (snprintf(path, sizeof(path), "%s/%s", root, rel) >= (int)sizeof(path))
		return -ENAMETOOLONG;
	cur = rec_tracefs_read(rel, &len);
	if (!cur)
		return -errno;
	/* Someone's ftrace filter is there: leave it alone. */
	e = strncmp(cur, "none", 4) ? -EBUSY : 0;
	free(cur);
	if (e)
		return e;
	e = write_str(path, expr);
	if (!e) {
		/* The kernel took it here: clear it, nothing to say. */
		write_str(path, "0");
		return -ENOENT;
	}
	text = rec_tracefs_read(rel, &len);
	write_str(path, "0");
	if (!text)
		return -errno;
	e = rec_filter_parse_error(text, why, whylen);
	free(text);
	return e;
}

int rec_filter_set(struct rec_evlist *el, size_t e, const char *expr, char *err, size_t errlen)
{
	const struct rec_event *ev = &el->events->v[e];
	size_t per = el->nr_cpus * el->nr_threads;

	if (!ev->tracepoint) {
		snprintf(err, errlen, "--filter '%s': event '%s' is not a tracepoint (filters "
			 "select tracepoint hits by their fields)", expr, ev->name);
		return -EINVAL;
	}
	for (size_t i = 0; i < per; i++) {
		int fd = el->fds[e * per + i], en;
		char why[512];

		if (fd < 0 || !ioctl(fd, PERF_EVENT_IOC_SET_FILTER, expr))
			continue;
		en = errno;
		if (en == EINVAL &&
		    !kernel_reason(ev->tp_system, ev->tp_event, expr, why, sizeof(why)))
			snprintf(err, errlen, "--filter '%s' on %s: the kernel refused it: %s\n"
				 "  (the fields are in %s/events/%s/%s/format)", expr, ev->name, why,
				 rec_tracefs_root(), ev->tp_system, ev->tp_event);
		else
			snprintf(err, errlen, "--filter '%s' on %s: the kernel refused it: %s%s",
				 expr, ev->name, strerror(en), en == EINVAL
				 ? " (a field, an operator or a value is wrong; see the event's "
				   "format file in tracefs)" : "");
		return -en;
	}
	return 0;
}
