// SPDX-License-Identifier: MIT
/*
 * analyze/resolve/filter.c - sample filters: --pid --tid --comm --cpu --dso --sym
 * --time.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "analyze/resolve/filter.h"
#include "common/util.h"

void ana_filter_init(struct ana_filter *f)
{
	memset(f, 0, sizeof(*f));
	f->t_end = UINT64_MAX;
	f->rel_end = -1;
}

static void free_list(char **l)
{
	for (char **p = l; p && *p; p++)
		free(*p);
	free(l);
}

void ana_filter_free(struct ana_filter *f)
{
	free(f->pids);
	free(f->tids);
	free_list(f->comms);
	free_list(f->dsos);
	free_list(f->syms);
	free(f->cpus);
	free(f->time_spec);
	ana_filter_init(f);
}

/* Split @arg at commas into a NULL-terminated list appended to *@list. */
static int add_strings(char ***list, const char *arg)
{
	size_t n = 0;
	const char *p = arg;
	char **l = *list;

	while (l && l[n])
		n++;
	for (;;) {
		const char *c = strchr(p, ',');
		size_t len = c ? (size_t)(c - p) : strlen(p);
		char **nl;

		if (len) {
			nl = realloc(l, (n + 2) * sizeof(*nl));
			if (!nl)
				return -ENOMEM;
			l = nl;
			*list = l;
			l[n] = strndup(p, len);
			if (!l[n])
				return -ENOMEM;
			l[++n] = NULL;
		}
		if (!c)
			break;
		p = c + 1;
	}
	return l ? 0 : -EINVAL;
}

static int add_ids(uint32_t **ids, size_t *nr, const char *arg)
{
	const char *p = arg;

	for (;;) {
		char *end;
		unsigned long v;
		uint32_t *n;

		errno = 0;
		v = strtoul(p, &end, 10);
		if (end == p || errno || v > UINT32_MAX || (*end && *end != ','))
			return -EINVAL;
		n = realloc(*ids, (*nr + 1) * sizeof(*n));
		if (!n)
			return -ENOMEM;
		*ids = n;
		n[(*nr)++] = (uint32_t)v;
		if (!*end)
			return 0;
		p = end + 1;
	}
}

/* Seconds of the day from "HH:MM:SS[.frac]", or -1. */
static double parse_clock(const char *s, size_t len)
{
	unsigned h, m;
	double sec;
	char tmp[64];
	int n = 0;

	if (!len || len >= sizeof(tmp))
		return -1;
	memcpy(tmp, s, len);
	tmp[len] = '\0';
	if (sscanf(tmp, "%u:%u:%lf%n", &h, &m, &sec, &n) != 3 || (size_t)n != len ||
	    h > 23 || m > 59 || sec < 0 || sec >= 61)
		return -1;
	return h * 3600.0 + m * 60.0 + sec;
}

static int parse_seconds(const char *s, size_t len, double *v)
{
	char tmp[64], *end;

	if (len >= sizeof(tmp))
		return -EINVAL;
	memcpy(tmp, s, len);
	tmp[len] = '\0';
	*v = strtod(tmp, &end);
	return end == tmp || *end || *v < 0 ? -EINVAL : 0;
}

int ana_filter_set(struct ana_filter *f, enum ana_filter_kind kind, const char *arg)
{
	const char *comma;
	int n;

	switch (kind) {
	case ANA_FILTER_PID:
		return add_ids(&f->pids, &f->nr_pids, arg);
	case ANA_FILTER_TID:
		return add_ids(&f->tids, &f->nr_tids, arg);
	case ANA_FILTER_COMM:
		return add_strings(&f->comms, arg);
	case ANA_FILTER_DSO:
		return add_strings(&f->dsos, arg);
	case ANA_FILTER_SYM:
		return add_strings(&f->syms, arg);
	case ANA_FILTER_CPU:
		if (!f->cpus) {
			f->cpus = calloc(ANA_FILTER_CPUS / 64, sizeof(uint64_t));
			if (!f->cpus)
				return -ENOMEM;
		}
		n = amb_cpulist_parse(arg, f->cpus, ANA_FILTER_CPUS);
		return n < 0 ? n : 0;
	case ANA_FILTER_TIME:
		comma = strchr(arg, ',');
		if (!comma)
			return -EINVAL;
		free(f->time_spec);
		f->time_spec = strdup(arg);
		if (!f->time_spec)
			return -ENOMEM;
		/* Relative unless a part has a colon; checked in _prepare. */
		if (!strchr(arg, ':')) {
			f->time_rel = true;
			f->rel_start = 0;
			f->rel_end = -1;
			if (comma > arg && parse_seconds(arg, (size_t)(comma - arg), &f->rel_start))
				return -EINVAL;
			if (comma[1] && parse_seconds(comma + 1, strlen(comma + 1), &f->rel_end))
				return -EINVAL;
		} else {
			if (comma > arg && parse_clock(arg, (size_t)(comma - arg)) < 0)
				return -EINVAL;
			if (comma[1] && parse_clock(comma + 1, strlen(comma + 1)) < 0)
				return -EINVAL;
		}
		return 0;
	}
	return -EINVAL;
}

int ana_filter_prepare(struct ana_filter *f, struct ana_session *s)
{
	const char *spec = f->time_spec, *comma;
	int64_t pref, rref;
	struct tm tm;
	time_t day;
	double midnight_ns;

	if (!spec || f->time_rel)
		return 0;
	if (ana_session_clock_ref(s, &pref, &rref))
		return -ENODATA;
	day = (time_t)(rref / 1000000000);
	if (!localtime_r(&day, &tm))
		return -EINVAL;
	tm.tm_hour = tm.tm_min = tm.tm_sec = 0;
	midnight_ns = (double)mktime(&tm) * 1e9;
	comma = strchr(spec, ',');
	if (comma > spec) {
		double sod = parse_clock(spec, (size_t)(comma - spec));
		double t = (double)pref + (midnight_ns + sod * 1e9 - (double)rref);

		f->t_start = t > 0 ? (uint64_t)t : 0;
	}
	if (comma[1]) {
		double sod = parse_clock(comma + 1, strlen(comma + 1));
		double t = (double)pref + (midnight_ns + sod * 1e9 - (double)rref);

		f->t_end = t > 0 ? (uint64_t)t : 0;
	}
	return 0;
}

bool ana_filter_time(struct ana_filter *f, uint64_t time)
{
	if (!f->first_time)
		f->first_time = time ? time : 1;
	if (!f->time_spec)
		return true;
	if (f->time_rel) {
		double rel = time >= f->first_time ? (double)(time - f->first_time) / 1e9 : 0;

		return rel >= f->rel_start && (f->rel_end < 0 || rel <= f->rel_end);
	}
	return time >= f->t_start && time <= f->t_end;
}

static bool id_in(const uint32_t *ids, size_t nr, uint32_t id)
{
	for (size_t i = 0; i < nr; i++)
		if (ids[i] == id)
			return true;
	return false;
}

static bool str_in(char **l, const char *s)
{
	for (; *l; l++)
		if (!strcmp(*l, s))
			return true;
	return false;
}

bool ana_filter_thread(const struct ana_filter *f, const struct ana_sample *s,
		       const struct ana_thread *t)
{
	if (f->nr_pids && !id_in(f->pids, f->nr_pids, s->pid))
		return false;
	if (f->nr_tids && !id_in(f->tids, f->nr_tids, s->tid))
		return false;
	if (f->comms && !str_in(f->comms, ana_thread_comm(t)))
		return false;
	if (f->cpus && (s->cpu >= ANA_FILTER_CPUS || !(f->cpus[s->cpu / 64] >> (s->cpu % 64) & 1)))
		return false;
	return true;
}

bool ana_filter_frame(const struct ana_filter *f, const struct ana_loc *loc, const char *sym)
{
	if (f->dsos && !str_in(f->dsos, ana_loc_dso_name(loc)) &&
	    !(loc->dso && str_in(f->dsos, loc->dso->path)))
		return false;
	if (f->syms && !str_in(f->syms, sym))
		return false;
	return true;
}
