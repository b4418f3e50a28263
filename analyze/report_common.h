/* SPDX-License-Identifier: MIT */
/*
 * analyze/report_common.h - what `report` and `script` share: sample
 * filters (--pid --tid --comm --cpu --dso --sym --time), buffered output
 * that fits a terminal, a progress line on a terminal's stderr, interned
 * strings, and the source line of a resolved address.
 */
#ifndef AMB_ANALYZE_REPORT_COMMON_H
#define AMB_ANALYZE_REPORT_COMMON_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "analyze/analyze.h"
#include "analyze/machine.h"
#include "common/common.h"

/* ---- filters ------------------------------------------------------------- */

enum ana_filter_kind {
	ANA_FILTER_PID, ANA_FILTER_TID, ANA_FILTER_COMM, ANA_FILTER_CPU,
	ANA_FILTER_DSO, ANA_FILTER_SYM, ANA_FILTER_TIME,
};

#define ANA_FILTER_CPUS 4096

struct ana_filter {
	uint32_t *pids, *tids;
	size_t nr_pids, nr_tids;
	char **comms, **dsos, **syms;   /* NULL-terminated lists */
	uint64_t *cpus;                 /* bitmap of ANA_FILTER_CPUS, or NULL */
	char *time_spec;                /* --time as given, until prepared */
	bool time_rel;                  /* START,END are seconds from the first sample */
	double rel_start, rel_end;      /* relative: seconds (end < 0: open) */
	uint64_t t_start, t_end;        /* absolute perf clock (0 / UINT64_MAX: open) */
	uint64_t first_time;            /* first sample's time, 0 until seen */
};

void ana_filter_init(struct ana_filter *f);
void ana_filter_free(struct ana_filter *f);

/*
 * Add the filter @kind from its option argument: comma-separated lists, a
 * CPU list for ANA_FILTER_CPU, "START,END" for ANA_FILTER_TIME (either
 * may be empty).  Returns 0, -EINVAL for a malformed argument, -ENOMEM.
 */
int ana_filter_set(struct ana_filter *f, enum ana_filter_kind kind, const char *arg);

/*
 * Convert a wall-clock --time (HH:MM:SS[.frac], local time, on the day the
 * recording was made) to the perf clock with the META keys
 * clock.ref.perf_ns and clock.ref.realtime_ns.  Returns 0, -EINVAL for a
 * malformed time, -ENODATA when the recording lacks the clock keys.
 */
int ana_filter_prepare(struct ana_filter *f, struct ana_session *s);

/* True when a sample at @time passes --time (the first call sees the first
 * sample: relative times count from it). */
bool ana_filter_time(struct ana_filter *f, uint64_t time);
/* True when the sample passes --pid --tid --comm --cpu. */
bool ana_filter_thread(const struct ana_filter *f, const struct ana_sample *s,
		       const struct ana_thread *t);
/* True when the frame @loc named @sym passes --dso and --sym. */
bool ana_filter_frame(const struct ana_filter *f, const struct ana_loc *loc, const char *sym);

/* ---- output -------------------------------------------------------------------- */

/* Bytes gathered before one fwrite (when lines are not cut). */
#define ANA_OUT_BUF (256u << 10)

/*
 * Buffered output; lines are cut at the terminal width when it is a tty.
 * Otherwise bytes gather in @buf and go out ANA_OUT_BUF at a time: the
 * ana_out_write() family is what hot loops use instead of printf.
 */
struct ana_out {
	FILE *f;
	unsigned width;        /* 0: no limit */
	struct amb_buf line;   /* the current line, when cutting */
	char *buf;             /* pending output when not cutting (ANA_OUT_BUF), lazily */
	size_t len;
	bool error;
};

void ana_out_init(struct ana_out *o, FILE *f);
/* Never cut lines (JSON). */
void ana_out_no_cut(struct ana_out *o);
void ana_out_printf(struct ana_out *o, const char *fmt, ...) AMB_PRINTF(2, 3);
/* @s as a JSON string literal, with the quotes. */
void ana_out_json(struct ana_out *o, const char *s);
/* Flush and free; returns 0, or -1 with errno when a write failed. */
int ana_out_finish(struct ana_out *o);

/* What ana_out_write() does when @buf is full, missing or lines are cut. */
void ana_out_write_slow(struct ana_out *o, const void *p, size_t n);

/* Append @n bytes of @p. */
static inline void ana_out_write(struct ana_out *o, const void *p, size_t n)
{
	if (o->buf && !o->width && ANA_OUT_BUF - o->len >= n) {
		memcpy(o->buf + o->len, p, n);
		o->len += n;
		return;
	}
	ana_out_write_slow(o, p, n);
}

static inline void ana_out_str(struct ana_out *o, const char *s)
{
	ana_out_write(o, s, strlen(s));
}

static inline void ana_out_char(struct ana_out *o, char c)
{
	if (o->buf && !o->width && o->len < ANA_OUT_BUF) {
		o->buf[o->len++] = c;
		return;
	}
	ana_out_write_slow(o, &c, 1);
}

/* @s right-aligned in @width columns (printf "%*s"); never cut. */
void ana_out_str_right(struct ana_out *o, const char *s, unsigned width);
/* @v in decimal, right-aligned in @width columns padded with @pad (' ' or
 * '0'): printf "%*" PRIu64 and "%0*" PRIu64. */
void ana_out_u64(struct ana_out *o, uint64_t v, unsigned width, char pad);
/* @v in lower-case hex, right-aligned in @width columns with spaces
 * (printf "%*" PRIx64). */
void ana_out_x64(struct ana_out *o, uint64_t v, unsigned width);

/* ---- progress ------------------------------------------------------------------ */

struct ana_progress {
	const char *what;
	uint64_t n;
	bool tty, shown;
};

/* Show progress only when stderr is a terminal. */
void ana_progress_init(struct ana_progress *p, const char *what);
void ana_progress_tick(struct ana_progress *p);
void ana_progress_done(struct ana_progress *p);

/* ---- interned strings ------------------------------------------------------------ */

/* A set of strings, each stored once: equal strings get equal pointers. */
struct ana_intern {
	char **tab;
	size_t cap, nr;
};

/* The stored copy of @s (added if new), or NULL on -ENOMEM.  Valid until
 * ana_intern_free(). */
const char *ana_intern(struct ana_intern *in, const char *s);
void ana_intern_free(struct ana_intern *in);

/* ---- source lines ------------------------------------------------------------------ */

/*
 * "file.c:42" for @loc (resolved with ANA_SYM_SRCLINE | ANA_SYM_INLINE),
 * followed by " fn (inlined)" when the address is in an inlined copy of
 * fn; "sym+0xoff" when there is no line information.  Returns @buf.
 */
const char *ana_loc_srcline(const struct ana_loc *loc, char *buf, size_t len);

#endif /* AMB_ANALYZE_REPORT_COMMON_H */
