// SPDX-License-Identifier: MIT
/*
 * analyze/report_common.c - filters, output, progress, interned strings and
 * source lines shared by report.c, script.c, flame.c and diff.c.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <time.h>
#include <unistd.h>
#include <xxhash.h>

#include "analyze/report_common.h"

/* ---- filters ------------------------------------------------------------- */

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

int ana_session_clock_ref(const struct ana_session *s, int64_t *perf_ns, int64_t *real_ns)
{
	const char *perf_ref = ana_session_meta(s, "clock.ref.perf_ns");
	const char *real_ref = ana_session_meta(s, "clock.ref.realtime_ns");

	if (!perf_ref || !real_ref)
		return -ENODATA;
	*perf_ns = strtoll(perf_ref, NULL, 10);
	*real_ns = strtoll(real_ref, NULL, 10);
	return 0;
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

/* ---- options every sample command takes ---------------------------------- */

void ana_sample_opts_init(struct ana_sample_opts *o)
{
	memset(o, 0, sizeof(*o));
	ana_filter_init(&o->filter);
}

void ana_sample_opts_free(struct ana_sample_opts *o)
{
	ana_filter_free(&o->filter);
}

int ana_sample_option(struct ana_sample_opts *o, int c, const char *arg)
{
	switch (c) {
	case ANA_OPT_PID:
		return ana_filter_set(&o->filter, ANA_FILTER_PID, arg);
	case ANA_OPT_TID:
		return ana_filter_set(&o->filter, ANA_FILTER_TID, arg);
	case ANA_OPT_COMM:
		return ana_filter_set(&o->filter, ANA_FILTER_COMM, arg);
	case ANA_OPT_CPU:
		return ana_filter_set(&o->filter, ANA_FILTER_CPU, arg);
	case ANA_OPT_DSO:
		return ana_filter_set(&o->filter, ANA_FILTER_DSO, arg);
	case ANA_OPT_SYM:
		return ana_filter_set(&o->filter, ANA_FILTER_SYM, arg);
	case ANA_OPT_TIME:
		return ana_filter_set(&o->filter, ANA_FILTER_TIME, arg);
	case ANA_OPT_EVENT:
		o->event = arg;
		return 0;
	case ANA_OPT_SYMFS:
		o->dso.symfs = arg;
		return 0;
	case ANA_OPT_NO_DEBUGINFOD:
		o->dso.no_debuginfod = true;
		return 0;
	default:
		return 1;
	}
}

/* ---- output file ----------------------------------------------------------------- */

static bool output_is_stdout(const char *path)
{
	return !path || !strcmp(path, "-");
}

FILE *ana_output_open(const char *path)
{
	return output_is_stdout(path) ? stdout : fopen(path, "w");
}

const char *ana_output_name(const char *path)
{
	return output_is_stdout(path) ? "standard output" : path;
}

int ana_output_close(FILE *f, int err)
{
	int cerr = 0;

	if (!f)
		return err;
	/* ferror() first: fclose() frees the stream. */
	if (ferror(f))
		cerr = -EIO;
	if (fflush(f))
		cerr = -errno;
	if (f != stdout && fclose(f) && !cerr)
		cerr = -errno;
	if (err && err != -EIO)
		return err;
	return cerr ? cerr : err;
}

/* ---- output -------------------------------------------------------------------- */

void ana_out_init(struct ana_out *o, FILE *f)
{
	struct winsize ws;

	memset(o, 0, sizeof(*o));
	o->f = f;
	if (isatty(fileno(f)) && !ioctl(fileno(f), TIOCGWINSZ, &ws) && ws.ws_col > 20)
		o->width = ws.ws_col;
}

/* Remember the first failure and its cause (errno, e.g. ENOSPC). */
static void out_fail(struct ana_out *o, int err)
{
	if (!o->error)
		o->err = err > 0 ? err : EIO;
	o->error = true;
}

static void out_fwrite(struct ana_out *o, const void *p, size_t n)
{
	if (n && fwrite(p, 1, n, o->f) != n)
		out_fail(o, errno);
}

static void out_flush_buf(struct ana_out *o)
{
	out_fwrite(o, o->buf, o->len);
	o->len = 0;
}

static void out_flush_line(struct ana_out *o)
{
	out_fwrite(o, o->line.data, AMB_MIN(o->line.len, (size_t)o->width));
	if (fputc('\n', o->f) == EOF)
		out_fail(o, errno);
	o->line.len = 0;
}

/* Cutting: gather the current line, write it cut at each newline. */
static void out_cut(struct ana_out *o, const char *p, size_t n)
{
	const char *end = p + n;

	while (p < end) {
		const char *nl = memchr(p, '\n', (size_t)(end - p));

		if (amb_buf_append(&o->line, p, (size_t)((nl ? nl : end) - p)))
			out_fail(o, ENOMEM);
		if (!nl)
			break;
		out_flush_line(o);
		p = nl + 1;
	}
}

void ana_out_no_cut(struct ana_out *o)
{
	/* What is pending goes out as it is, uncut. */
	out_fwrite(o, o->line.data, o->line.len);
	o->line.len = 0;
	o->width = 0;
}

void ana_out_write_slow(struct ana_out *o, const void *p, size_t n)
{
	if (o->width) {
		out_cut(o, p, n);
		return;
	}
	if (!o->buf) {
		o->buf = malloc(ANA_OUT_BUF);
		o->len = 0;
	}
	if (o->buf && ANA_OUT_BUF - o->len < n)
		out_flush_buf(o);
	if (!o->buf || n >= ANA_OUT_BUF) {
		out_fwrite(o, p, n);
		return;
	}
	memcpy(o->buf + o->len, p, n);
	o->len += n;
}

void ana_out_printf(struct ana_out *o, const char *fmt, ...)
{
	char tmp[8192];
	va_list ap;
	int n;

	va_start(ap, fmt);
	n = vsnprintf(tmp, sizeof(tmp), fmt, ap);
	va_end(ap);
	if (n < 0) {
		out_fail(o, EINVAL);
		return;
	}
	if ((size_t)n < sizeof(tmp) || o->width) {
		/* Cut lines never need more than the stack buffer holds. */
		ana_out_write(o, tmp, AMB_MIN((size_t)n, sizeof(tmp) - 1));
		return;
	}
	{
		char *big = malloc((size_t)n + 1);

		if (!big) {
			out_fail(o, ENOMEM);
			return;
		}
		va_start(ap, fmt);
		vsnprintf(big, (size_t)n + 1, fmt, ap);
		va_end(ap);
		ana_out_write(o, big, (size_t)n);
		free(big);
	}
}

void ana_out_json(struct ana_out *o, const char *s)
{
	static const char hex[] = "0123456789abcdef";
	const char *run;

	/* JSON is never cut. */
	if (o->width)
		ana_out_no_cut(o);
	ana_out_char(o, '"');
	for (run = s = s ? s : ""; *s; s++) {
		unsigned char c = (unsigned char)*s;
		char esc[6] = { '\\', 0 };
		size_t n = 2;

		if (c >= 0x20 && c != 0x7f && c != '"' && c != '\\')
			continue;
		ana_out_write(o, run, (size_t)(s - run));
		run = s + 1;
		switch (c) {
		case '"':  esc[1] = '"'; break;
		case '\\': esc[1] = '\\'; break;
		case '\n': esc[1] = 'n'; break;
		case '\r': esc[1] = 'r'; break;
		case '\t': esc[1] = 't'; break;
		default:
			memcpy(esc + 1, "u00", 3);
			esc[4] = hex[c >> 4];
			esc[5] = hex[c & 15];
			n = 6;
		}
		ana_out_write(o, esc, n);
	}
	ana_out_write(o, run, (size_t)(s - run));
	ana_out_char(o, '"');
}

int ana_out_finish(struct ana_out *o)
{
	if (o->line.len)
		out_flush_line(o);
	amb_buf_free(&o->line);
	if (o->buf)
		out_flush_buf(o);
	free(o->buf);
	o->buf = NULL;
	if (fflush(o->f) || ferror(o->f))
		out_fail(o, errno);
	return o->error ? -o->err : 0;
}

static void out_pad(struct ana_out *o, char pad, size_t n)
{
	static const char spaces[] = "                                ";
	static const char zeros[] = "00000000000000000000000000000000";
	const char *src = pad == '0' ? zeros : spaces;

	while (n) {
		size_t k = AMB_MIN(n, sizeof(spaces) - 1);

		ana_out_write(o, src, k);
		n -= k;
	}
}

void ana_out_str_right(struct ana_out *o, const char *s, unsigned width)
{
	size_t len = strlen(s);

	if (len < width)
		out_pad(o, ' ', width - len);
	ana_out_write(o, s, len);
}

void ana_out_u64(struct ana_out *o, uint64_t v, unsigned width, char pad)
{
	char tmp[20];
	char *p = tmp + sizeof(tmp);
	size_t n;

	do {
		*--p = (char)('0' + v % 10);
		v /= 10;
	} while (v);
	n = (size_t)(tmp + sizeof(tmp) - p);
	if (n < width)
		out_pad(o, pad, width - n);
	ana_out_write(o, p, n);
}

void ana_out_x64(struct ana_out *o, uint64_t v, unsigned width)
{
	static const char hex[] = "0123456789abcdef";
	char tmp[16];
	char *p = tmp + sizeof(tmp);
	size_t n;

	do {
		*--p = hex[v & 15];
		v >>= 4;
	} while (v);
	n = (size_t)(tmp + sizeof(tmp) - p);
	if (n < width)
		out_pad(o, ' ', width - n);
	ana_out_write(o, p, n);
}

/* ---- progress ------------------------------------------------------------------ */

#define PROGRESS_EVERY (1u << 18)

void ana_progress_init(struct ana_progress *p, const char *what)
{
	p->what = what;
	p->n = 0;
	p->tty = isatty(STDERR_FILENO);
	p->shown = false;
}

void ana_progress_tick(struct ana_progress *p)
{
	if (++p->n % PROGRESS_EVERY || !p->tty)
		return;
	fprintf(stderr, "\ramber-analyze %s: %" PRIu64 " records...", p->what, p->n);
	p->shown = true;
}

void ana_progress_done(struct ana_progress *p)
{
	if (p->shown)
		fprintf(stderr, "\r\033[K");
	p->shown = false;
}

/* ---- interned strings ------------------------------------------------------------ */

const char *ana_intern(struct ana_intern *in, const char *s)
{
	size_t i, len = strlen(s);
	uint64_t h = XXH3_64bits(s, len);

	if ((in->nr + 1) * 2 > in->cap) {
		size_t cap = in->cap ? in->cap * 2 : 1024, j;
		char **n = calloc(cap, sizeof(*n));

		if (!n)
			return NULL;
		for (j = 0; j < in->cap; j++) {
			size_t k;

			if (!in->tab[j])
				continue;
			k = XXH3_64bits(in->tab[j], strlen(in->tab[j])) & (cap - 1);
			while (n[k])
				k = (k + 1) & (cap - 1);
			n[k] = in->tab[j];
		}
		free(in->tab);
		in->tab = n;
		in->cap = cap;
	}
	for (i = h & (in->cap - 1); in->tab[i]; i = (i + 1) & (in->cap - 1))
		if (!strcmp(in->tab[i], s))
			return in->tab[i];
	in->tab[i] = strdup(s);
	if (!in->tab[i])
		return NULL;
	in->nr++;
	return in->tab[i];
}

void ana_intern_free(struct ana_intern *in)
{
	for (size_t i = 0; i < in->cap; i++)
		free(in->tab[i]);
	free(in->tab);
	memset(in, 0, sizeof(*in));
}

/* ---- source lines ------------------------------------------------------------------ */

const char *ana_loc_srcline(const struct ana_loc *loc, char *buf, size_t len)
{
	char name[128];
	int n;

	if (loc->kind == ANA_LOC_SYM && loc->sym->file) {
		const char *base = strrchr(loc->sym->file, '/');

		n = snprintf(buf, len, "%s:%d", base ? base + 1 : loc->sym->file, loc->sym->line);
		if (loc->sym->nr_inl && n > 0 && (size_t)n < len)
			snprintf(buf + n, len - (size_t)n, " %s (inlined)", loc->sym->inl[0].name);
		return buf;
	}
	if (loc->kind == ANA_LOC_SYM || loc->kind == ANA_LOC_KERNEL)
		snprintf(buf, len, "%s+0x%" PRIx64, ana_loc_sym_name(loc, name, sizeof(name)),
			 loc->offset);
	else
		snprintf(buf, len, "%s", ana_loc_sym_name(loc, name, sizeof(name)));
	return buf;
}

int ana_sample_opts_check(const struct ana_sample_opts *o, const struct ana_session *s,
			  char *msg, size_t len)
{
	size_t n = ana_session_event_count(s), used;

	if (!o->event)
		return 0;
	for (size_t i = 0; i < n; i++)
		if (!strcmp(ana_session_event(s, i)->name, o->event))
			return 0;
	used = (size_t)snprintf(msg, len, "no event '%s' in the recording (events:", o->event);
	for (size_t i = 0; i < n && used < len; i++)
		used += (size_t)snprintf(msg + used, len - used, "%s %s", i ? "," : "",
					 ana_session_event(s, i)->name);
	if (used < len)
		snprintf(msg + used, len - used, ")");
	return -ENOENT;
}
