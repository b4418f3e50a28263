/* SPDX-License-Identifier: MIT */
/*
 * analyze/view/out.h - command output (out.c): the -o output file, buffered
 * output that fits a terminal, and a progress line on a terminal's stderr.
 */
#ifndef AMB_ANALYZE_OUT_H
#define AMB_ANALYZE_OUT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include <amber/common.h>

/*
 * The -o output of a command (flame, diff).  Never written through a
 * link: @path NULL or "-" is standard output; a new @path is created
 * (O_EXCL, O_NOFOLLOW); an existing regular file is replaced whole, by a
 * file written beside it (O_EXCL) and renamed over it at a successful
 * close, so a failed write leaves it as it was and its other hard links
 * keep their content; a FIFO or a device is written to as it is (opened
 * without O_CREAT or O_TRUNC); a symbolic link or a directory is refused.
 */
struct ana_output {
	FILE *f;               /* the stream to write; NULL when not open */
	char *path;            /* where the output goes; NULL: standard output */
	char *tmp;             /* the file being written, renamed to @path at close */
};

/*
 * Open @o for -o @path as described above.  Returns 0, or a negative
 * errno with amb_errmsg() saying what @path is when that is why (-ELOOP
 * for a symbolic link, -EISDIR for a directory).
 */
int ana_output_open(struct ana_output *o, const char *path);

/* What messages call the output of -o @path: @path, or "standard output". */
const char *ana_output_name(const char *path);

/*
 * Finish @o (not open: nothing to do): flush it, close it unless it is
 * standard output, and when @err is 0 and writing worked, put a new file
 * in its place (rename); else remove the new file.  @err is what writing
 * it returned.  A write error shows up here at the latest (the last
 * buffer goes out now, and fclose() may report what write-back found), so
 * a full disk is never a silent success.  Returns @err when it is an error
 * other than -EIO; else the cause fflush()/fclose()/rename() report
 * (-ENOSPC ...), -EIO when the stream's error flag is all there is, or 0.
 */
int ana_output_close(struct ana_output *o, int err);


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
	uint64_t writes;       /* writes to @f so far (struct ana_out_mark) */
};

/* A place in an ana_out's buffered output (ana_out_mark()). */
struct ana_out_mark {
	size_t pos;
	uint64_t writes;
};

/* Start output to @f (borrowed); lines are cut when @f is a terminal. */
void ana_out_init(struct ana_out *o, FILE *f);
/* Never cut lines (JSON). */
void ana_out_no_cut(struct ana_out *o);
/*
 * Mark in *@m where the next byte written to @o goes, when its buffer has
 * @room bytes free.  False when less is free (a mark never makes output
 * go out earlier than it would: where output meets stderr stays the
 * same), when @o does not buffer (lines are cut at a terminal's width)
 * or has no buffer (out of memory).
 */
bool ana_out_mark(struct ana_out *o, size_t room, struct ana_out_mark *m);
/*
 * What was written to @o since mark @m: a pointer into its buffer, valid
 * until the next write, and the length in *@len; NULL when some of it has
 * already gone out.
 */
const char *ana_out_since(const struct ana_out *o, const struct ana_out_mark *m, size_t *len);
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

/*
 * Text from a recording, or any text not written by amber itself: @s
 * (NUL-terminated; NULL prints nothing), or the @n bytes at @s, with
 * control characters and bytes that are not UTF-8 escaped as "\xNN"
 * (amb_text_safe_prefix(), common/util.h).  Every text output prints
 * recorded strings through these; JSON has its own escaping
 * (ana_out_json()).  _right() right-aligns in @width columns, counting
 * an escape as four and a UTF-8 character as one.
 */
void ana_out_text(struct ana_out *o, const char *s);
void ana_out_textn(struct ana_out *o, const char *s, size_t n);
void ana_out_text_right(struct ana_out *o, const char *s, unsigned width);

/* @s right-aligned in @width columns (printf "%*s"); never cut. */
void ana_out_str_right(struct ana_out *o, const char *s, unsigned width);
/* @v in decimal, right-aligned in @width columns padded with @pad (' ' or
 * '0'): printf "%*" PRIu64 and "%0*" PRIu64. */
void ana_out_u64(struct ana_out *o, uint64_t v, unsigned width, char pad);
/* @v in lower-case hex, right-aligned in @width columns with spaces
 * (printf "%*" PRIx64). */
void ana_out_x64(struct ana_out *o, uint64_t v, unsigned width);


struct ana_progress {
	const char *what;
	bool tty, shown;
};

/*
 * A record counter on stderr, shown only when stderr is a terminal (the
 * one place outside a cmd_* function that writes there: it is the
 * commands' own progress line).  _show() draws the number of records read
 * so far (the pipeline's progress callback, every 2^18 records); _done()
 * erases the line.  @what is borrowed.
 */
void ana_progress_init(struct ana_progress *p, const char *what);
void ana_progress_show(struct ana_progress *p, uint64_t records);
void ana_progress_done(struct ana_progress *p);

#endif /* AMB_ANALYZE_OUT_H */
