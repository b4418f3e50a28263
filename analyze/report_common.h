/* SPDX-License-Identifier: MIT */
/*
 * analyze/report_common.h - what the sample commands (`report`, `script`,
 * `flame`, `diff`) share: sample filters (--pid --tid --comm --cpu --dso
 * --sym --time) and the options that set them, the -o output file,
 * buffered output that fits a terminal, a progress line on a terminal's stderr, interned strings, and
 * the source line of a resolved address.
 */
#ifndef AMB_ANALYZE_REPORT_COMMON_H
#define AMB_ANALYZE_REPORT_COMMON_H

#include <getopt.h>
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

/* An empty filter: everything passes.  ana_filter_free() frees what
 * ana_filter_set() added and leaves @f empty again. */
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

/* The recording's clock reference: one instant as perf time and as
 * CLOCK_REALTIME, in ns (META clock.ref.*).  Returns 0, or -ENODATA when
 * the recording has none. */
int ana_session_clock_ref(const struct ana_session *s, int64_t *perf_ns, int64_t *real_ns);
/* True when the sample passes --pid --tid --comm --cpu. */
bool ana_filter_thread(const struct ana_filter *f, const struct ana_sample *s,
		       const struct ana_thread *t);
/* True when the frame @loc named @sym passes --dso and --sym. */
bool ana_filter_frame(const struct ana_filter *f, const struct ana_loc *loc, const char *sym);

/* ---- options every sample command takes ---------------------------------- */

/*
 * getopt_long values of ANA_SAMPLE_OPTIONS.  -C and -e keep their letters
 * so that a command may list "C:" and "e:" among its short options; the
 * others lie above any character a command uses for its own options.
 */
enum ana_sample_opt {
	ANA_OPT_CPU = 'C',
	ANA_OPT_EVENT = 'e',
	ANA_OPT_PID = 0x1000,
	ANA_OPT_TID,
	ANA_OPT_COMM,
	ANA_OPT_DSO,
	ANA_OPT_SYM,
	ANA_OPT_TIME,
	ANA_OPT_SYMFS,
	ANA_OPT_NO_DEBUGINFOD,
};

/*
 * getopt_long entries of the options report, script, flame and diff share:
 * --pid --tid --comm --cpu --dso(s) --sym(bols) --time --event --symfs
 * --no-debuginfod.  A command puts ANA_SAMPLE_OPTIONS in its option table
 * and hands every value its own switch does not know to
 * ana_sample_option(): a new filter is added here and there only.
 */
#define ANA_SAMPLE_OPTIONS                                                  \
	{ "pid", required_argument, NULL, ANA_OPT_PID },                    \
	{ "tid", required_argument, NULL, ANA_OPT_TID },                    \
	{ "comm", required_argument, NULL, ANA_OPT_COMM },                  \
	{ "cpu", required_argument, NULL, ANA_OPT_CPU },                    \
	{ "dso", required_argument, NULL, ANA_OPT_DSO },                    \
	{ "dsos", required_argument, NULL, ANA_OPT_DSO },                   \
	{ "sym", required_argument, NULL, ANA_OPT_SYM },                    \
	{ "symbols", required_argument, NULL, ANA_OPT_SYM },                \
	{ "time", required_argument, NULL, ANA_OPT_TIME },                  \
	{ "event", required_argument, NULL, ANA_OPT_EVENT },                \
	{ "symfs", required_argument, NULL, ANA_OPT_SYMFS },                \
	{ "no-debuginfod", no_argument, NULL, ANA_OPT_NO_DEBUGINFOD }

/* What ANA_SAMPLE_OPTIONS set. */
struct ana_sample_opts {
	struct ana_filter filter;
	struct ana_dso_opts dso;   /* --symfs, --no-debuginfod */
	const char *event;         /* -e: only samples of this event; NULL: all */
};

/* Defaults: no filter, no event, no --symfs. */
void ana_sample_opts_init(struct ana_sample_opts *o);
/* Free the filters (the strings of @o point into argv and are not freed). */
void ana_sample_opts_free(struct ana_sample_opts *o);

/*
 * Apply the option getopt_long returned as @c, with @arg (optarg), to @o.
 * Returns 0; 1 when @c is none of ANA_SAMPLE_OPTIONS (the command's usage
 * error); -EINVAL for a malformed argument, -ENOMEM.  @arg must outlive @o.
 */
int ana_sample_option(struct ana_sample_opts *o, int c, const char *arg);

/*
 * Check @o against the recording @s: -ENOENT when -e names no event of @s,
 * with a message listing the events written into @msg (@len bytes).
 * Returns 0 when every option fits.
 */
int ana_sample_opts_check(const struct ana_sample_opts *o, const struct ana_session *s,
			  char *msg, size_t len);

/* ---- output file ----------------------------------------------------------------- */

/*
 * The stream a command writes to for -o @path: standard output when @path
 * is NULL or "-", else @path created (or truncated) for writing.  Returns
 * the stream, or NULL with errno set by fopen().
 */
FILE *ana_output_open(const char *path);

/* What messages call the output of -o @path: @path, or "standard output". */
const char *ana_output_name(const char *path);

/*
 * Finish the stream @f of ana_output_open() (NULL: nothing to do): flush
 * it, and close it unless it is standard output.  @err is what writing it
 * returned.  A write error shows up here at the latest (the last buffer
 * goes out now, and fclose() may report what write-back found), so a full
 * disk is never a silent success.  Returns @err when it is an error other
 * than -EIO; else the cause fflush()/fclose() report (-ENOSPC ...), -EIO
 * when the stream's error flag is all there is, or 0.
 */
int ana_output_close(FILE *f, int err);

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
	int err;               /* errno of the first failure */
};

/* Start output to @f (borrowed); lines are cut when @f is a terminal. */
void ana_out_init(struct ana_out *o, FILE *f);
/* Never cut lines (JSON). */
void ana_out_no_cut(struct ana_out *o);
/* printf into @o; a failure is remembered for ana_out_finish(). */
void ana_out_printf(struct ana_out *o, const char *fmt, ...) AMB_PRINTF(2, 3);
/* @s as a JSON string literal, with the quotes. */
void ana_out_json(struct ana_out *o, const char *s);
/* Flush and free; returns 0, or the negative errno of the first failed
 * write (-ENOSPC for a full disk). */
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

/* Append the string @s. */
static inline void ana_out_str(struct ana_out *o, const char *s)
{
	ana_out_write(o, s, strlen(s));
}

/* Append the byte @c. */
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

/*
 * A record counter on stderr, shown only when stderr is a terminal (the
 * one place outside a cmd_* function that writes there: it is the
 * commands' own progress line).  _tick() counts a record and redraws
 * every 2^18 of them; _done() erases the line.  @what is borrowed.
 */
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
/* Free every stored string; @in is empty (and reusable) after. */
void ana_intern_free(struct ana_intern *in);

/* ---- source lines ------------------------------------------------------------------ */

/*
 * "file.c:42" for @loc (resolved with ANA_SYM_SRCLINE | ANA_SYM_INLINE),
 * followed by " fn (inlined)" when the address is in an inlined copy of
 * fn; "sym+0xoff" when there is no line information.  Returns @buf.
 */
const char *ana_loc_srcline(const struct ana_loc *loc, char *buf, size_t len);

#endif /* AMB_ANALYZE_REPORT_COMMON_H */
