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
	if (!l)
		amb_errmsg_set("an empty list");
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
		if (end == p || errno || v > UINT32_MAX || (*end && *end != ',') || *p == '-') {
			amb_errmsg_set("not a list of decimal ids (1234,1240)");
			return -EINVAL;
		}
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

/*
 * "SECONDS[.FRACTION]" as nanoseconds, exactly (digits past the ninth are
 * ignored), and in *@unit the nanoseconds its last digit stands for.
 */
static int parse_ns(const char *s, size_t len, uint64_t *ns, uint64_t *unit)
{
	uint64_t sec = 0, frac = 0, scale = 1000000000;
	size_t i = 0, digits = 0;

	for (; i < len && s[i] >= '0' && s[i] <= '9'; i++, digits++) {
		if (sec > (UINT64_MAX / 1000000000 - 9) / 10)
			return -EINVAL;
		sec = sec * 10 + (uint64_t)(s[i] - '0');
	}
	if (i < len && s[i] == '.') {
		for (i++; i < len && s[i] >= '0' && s[i] <= '9'; i++, digits++) {
			if (scale > 1) {
				scale /= 10;
				frac += (uint64_t)(s[i] - '0') * scale;
			}
		}
	}
	if (!digits || i != len)
		return -EINVAL;
	*ns = sec * 1000000000 + frac;
	*unit = scale;
	return 0;
}

/* A percentage "P%" (0 <= P <= 100) of the @len bytes at @s. */
static int parse_pct(const char *s, size_t len, double *pct)
{
	char tmp[32], *end;

	if (len < 2 || len >= sizeof(tmp) || s[len - 1] != '%')
		return -EINVAL;
	memcpy(tmp, s, len - 1);
	tmp[len - 1] = '\0';
	*pct = strtod(tmp, &end);
	return end == tmp || *end || !(*pct >= 0 && *pct <= 100) ? -EINVAL : 0;
}

/*
 * One end of an absolute, relative or wall-clock range (@len 0: open).  An
 * @end given to the microsecond or coarser holds its whole microsecond, as
 * script prints times: "206.831322" up to 206.831322999.
 */
static int parse_time_end(const char *s, size_t len, bool end, struct ana_time_end *e)
{
	uint64_t unit;
	int err;

	memset(e, 0, sizeof(*e));
	if (!len)
		return 0;
	if (memchr(s, ':', len)) {
		e->kind = ANA_TIME_CLOCK;
		e->sec = parse_clock(s, len);
		return e->sec < 0 ? -EINVAL : 0;
	}
	e->kind = *s == '+' ? ANA_TIME_REL : ANA_TIME_ABS;
	err = *s == '+' ? parse_ns(s + 1, len - 1, &e->ns, &unit) : parse_ns(s, len, &e->ns, &unit);
	if (!err && end && unit >= 1000)
		e->ns += 999;
	return err;
}

/* Add @r, written as the @len bytes at @text. */
static int add_time_range(struct ana_filter *f, struct ana_time_range *r, const char *text,
			  size_t len)
{
	if (f->nr_time == ANA_TIME_RANGES_MAX) {
		amb_errmsg_set("more than %d time ranges", ANA_TIME_RANGES_MAX);
		return -E2BIG;
	}
	snprintf(r->text, sizeof(r->text), "%.*s", (int)len, text);
	f->time[f->nr_time++] = *r;
	return 0;
}

/* "P%/N" or "A%-B%", several separated by commas (perf's forms). */
static int parse_time_pcts(struct ana_filter *f, const char *arg)
{
	const char *p = arg;

	for (;;) {
		const char *c = strchr(p, ',');
		size_t len = c ? (size_t)(c - p) : strlen(p);
		const char *slash = memchr(p, '/', len), *dash = memchr(p, '-', len);
		struct ana_time_range r = { .start.kind = ANA_TIME_PCT, .end.kind = ANA_TIME_PCT };
		double a, b;
		int err;

		if (slash) {
			char tmp[32], *end;
			unsigned long n;
			size_t nl = len - (size_t)(slash + 1 - p);

			if (nl >= sizeof(tmp))
				goto bad;
			memcpy(tmp, slash + 1, nl);
			tmp[nl] = '\0';
			n = strtoul(tmp, &end, 10);
			if (parse_pct(p, (size_t)(slash - p), &a) || a <= 0 || end == tmp || *end ||
			    !n || (double)(n - 1) * a >= 100)
				goto bad;
			r.start.pct = (double)(n - 1) * a;
			r.end.pct = AMB_MIN(100.0, (double)n * a);
		} else if (dash) {
			if (parse_pct(p, (size_t)(dash - p), &a) ||
			    parse_pct(dash + 1, len - (size_t)(dash + 1 - p), &b) || b < a)
				goto bad;
			r.start.pct = a;
			r.end.pct = b;
		} else {
			goto bad;
		}
		err = add_time_range(f, &r, p, len);
		if (err)
			return err;
		if (!c)
			return 0;
		p = c + 1;
		continue;
bad:
		if (len == strlen(arg))
			amb_errmsg_set("neither P%%/N (the N-th slice of P%%) nor A%%-B%%");
		else
			amb_errmsg_set("'%.*s' is neither P%%/N (the N-th slice of P%%) nor A%%-B%%",
				       (int)len, p);
		return -EINVAL;
	}
}

/* "START,END" ranges separated by spaces. */
static int parse_time_ranges(struct ana_filter *f, const char *arg)
{
	const char *p = arg;

	for (;;) {
		struct ana_time_range r;
		const char *comma, *end;
		size_t len;
		int err;

		while (*p == ' ')
			p++;
		if (!*p)
			return f->nr_time ? 0 : -EINVAL;
		len = strcspn(p, " ");
		end = p + len;
		comma = memchr(p, ',', len);
		if (!comma || memchr(comma + 1, ',', (size_t)(end - comma - 1)) ||
		    parse_time_end(p, (size_t)(comma - p), false, &r.start) ||
		    parse_time_end(comma + 1, (size_t)(end - comma - 1), true, &r.end)) {
			amb_errmsg_set("%s%.*s%snot START,END (a time as script prints it, "
				       "309.762212; +SECONDS from the start; HH:MM:SS[.frac]) or "
				       "percentages (P%%/N, A%%-B%%)", len == strlen(arg) ? "" : "'",
				       len == strlen(arg) ? 0 : (int)len, p,
				       len == strlen(arg) ? "" : "' is ");
			return -EINVAL;
		}
		err = add_time_range(f, &r, p, len);
		if (err)
			return err;
		p = end;
	}
}

static int set_time(struct ana_filter *f, const char *arg)
{
	int err;

	free(f->time_spec);
	f->nr_time = 0;
	f->time_ready = false;
	f->time_spec = strdup(arg);
	if (!f->time_spec)
		return -ENOMEM;
	err = strchr(arg, '%') ? parse_time_pcts(f, arg) : parse_time_ranges(f, arg);
	if (err) {
		free(f->time_spec);
		f->time_spec = NULL;
		f->nr_time = 0;
	}
	return err;
}

int ana_filter_set(struct ana_filter *f, enum ana_filter_kind kind, const char *arg)
{
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
		if (n < 0)
			amb_errmsg_set("not a CPU list (0-3,7) of CPUs below %d", ANA_FILTER_CPUS);
		return n < 0 ? n : 0;
	case ANA_FILTER_TIME:
		return set_time(f, arg);
	}
	return -EINVAL;
}

/* The time a range end stands for, perf clock ns; @open for an open end. */
static uint64_t resolve_end(const struct ana_time_end *e, uint64_t open, uint64_t first,
			    uint64_t last, double midnight_ns, int64_t pref, int64_t rref)
{
	double t;

	switch (e->kind) {
	case ANA_TIME_ABS:
		return e->ns;
	case ANA_TIME_REL:
		return first + e->ns < first ? UINT64_MAX : first + e->ns;
	case ANA_TIME_PCT:
		t = (double)first + (double)(last - first) * e->pct / 100.0;
		return e->pct >= 100 ? last : (uint64_t)t;
	case ANA_TIME_CLOCK:
		t = (double)pref + (midnight_ns + e->sec * 1e9 - (double)rref);
		return t > 0 ? (uint64_t)t : 0;
	case ANA_TIME_OPEN:
		break;
	}
	return open;
}

/* "309.762212" for perf time @ns, as script prints it. */
static const char *ns_text(uint64_t ns, char *buf, size_t len)
{
	snprintf(buf, len, "%" PRIu64 ".%06" PRIu64, ns / 1000000000, ns % 1000000000 / 1000);
	return buf;
}

int ana_filter_prepare_span(struct ana_filter *f, uint64_t first, uint64_t last,
			    bool have_clock, int64_t pref, int64_t rref)
{
	double midnight_ns = 0;
	bool clock = false;
	size_t i;

	f->time_ready = false;
	if (!f->time_spec)
		return 0;
	for (i = 0; i < f->nr_time; i++)
		clock |= f->time[i].start.kind == ANA_TIME_CLOCK ||
			 f->time[i].end.kind == ANA_TIME_CLOCK;
	if (clock) {
		time_t day;
		struct tm tm;

		if (!have_clock) {
			amb_errmsg_set("--time %s: the recording has no clock reference "
				       "(META clock.ref.*) to place a time of day", f->time_spec);
			return -ENODATA;
		}
		day = (time_t)(rref / 1000000000);
		if (!localtime_r(&day, &tm))
			return -EINVAL;
		tm.tm_hour = tm.tm_min = tm.tm_sec = 0;
		tm.tm_isdst = -1;
		midnight_ns = (double)mktime(&tm) * 1e9;
	}
	for (i = 0; i < f->nr_time; i++) {
		const struct ana_time_range *r = &f->time[i];
		char a[32], b[32];

		f->t_start[i] = resolve_end(&r->start, 0, first, last, midnight_ns, pref, rref);
		f->t_end[i] = resolve_end(&r->end, UINT64_MAX, first, last, midnight_ns, pref, rref);
		if (!last || (f->t_end[i] >= first && f->t_start[i] <= last && f->t_start[i] <= f->t_end[i]))
			continue;
		if (f->t_start[i] > f->t_end[i])
			amb_warn("--time: range %s ends before it starts", r->text);
		else
			amb_warn("--time: range %s lies outside the recording (%s .. %s)%s", r->text,
				 ns_text(first, a, sizeof(a)), ns_text(last, b, sizeof(b)),
				 (r->start.kind == ANA_TIME_ABS || r->end.kind == ANA_TIME_ABS) &&
				 f->t_end[i] < first ?
				 "; seconds from the start are written +SECONDS" : "");
	}
	f->time_ready = true;
	return 0;
}

int ana_filter_prepare(struct ana_filter *f, struct ana_session *s)
{
	struct amb_reader *r = ana_session_reader(s);
	struct amb_block_filter bf = { .type = AMB_BLOCK_RING, .stream = -1 };
	uint64_t first = 0, last = 0;
	int64_t pref = 0, rref = 0;
	bool have_clock;
	size_t i;

	if (!f->time_spec)
		return 0;
	for (i = amb_reader_next(r, &bf, 0); i != SIZE_MAX; i = amb_reader_next(r, &bf, i + 1)) {
		const struct amb_block_info *bi = amb_reader_block(r, i);

		if (!bi->first_time)
			continue;
		if (!first || bi->first_time < first)
			first = bi->first_time;
		last = AMB_MAX(last, AMB_MAX(bi->first_time, bi->last_time));
	}
	have_clock = !ana_session_clock_ref(s, &pref, &rref);
	return ana_filter_prepare_span(f, first, last, have_clock, pref, rref);
}

bool ana_filter_time(const struct ana_filter *f, uint64_t time)
{
	size_t i;

	if (!f->time_spec)
		return true;
	for (i = 0; i < f->nr_time && f->time_ready; i++)
		if (time >= f->t_start[i] && time <= f->t_end[i])
			return true;
	return false;
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
