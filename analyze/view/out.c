// SPDX-License-Identifier: MIT
/*
 * analyze/view/out.c - command output: the -o file, buffered output cut at
 * the terminal width, the progress line.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <fcntl.h>
#include <stdio.h>
#include <sys/ioctl.h>
#include <sys/stat.h>
#include <unistd.h>

#include "analyze/view/out.h"
#include "common/util.h"

static bool output_is_stdout(const char *path)
{
	return !path || !strcmp(path, "-");
}

/* Why @path, as lstat() saw it in @st, is no place to write an output;
 * NULL when it is one. */
static const char *output_refused(const struct stat *st)
{
	if (S_ISLNK(st->st_mode))
		return "is a symbolic link, which -o never follows (name the file it points to, "
		       "or '-' for standard output)";
	if (S_ISDIR(st->st_mode))
		return "is a directory";
	return NULL;
}

int ana_output_open(struct ana_output *o, const char *path)
{
	struct stat st;
	mode_t mode = 0666;   /* less the umask, as fopen() would */
	int fd = -1, err;

	memset(o, 0, sizeof(*o));
	if (output_is_stdout(path)) {
		o->f = stdout;
		return 0;
	}
	o->path = strdup(path);
	if (!o->path)
		return -ENOMEM;
	if (!lstat(path, &st)) {
		const char *why = output_refused(&st);

		if (why) {
			amb_errmsg_set("%s %s", path, why);
			err = S_ISDIR(st.st_mode) ? -EISDIR : -ELOOP;
			goto fail;
		}
		if (!S_ISREG(st.st_mode)) {
			/* A FIFO or a device: written to as it is, never created. */
			fd = open(path, O_WRONLY | O_NOFOLLOW | O_CLOEXEC);
			goto fdopen;
		}
		/* Replaced whole: the new file gets the old one's permissions. */
		mode = st.st_mode & 07777;
		if (asprintf(&o->tmp, "%s.new-%ld", path, (long)getpid()) < 0) {
			o->tmp = NULL;
			err = -ENOMEM;
			goto fail;
		}
		unlink(o->tmp);   /* a leftover of an earlier run with this pid */
		fd = open(o->tmp, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0600);
		if (fd >= 0 && fchmod(fd, mode) < 0) {
			err = -errno;
			close(fd);
			goto fail;
		}
		goto fdopen;
	}
	if (errno != ENOENT) {
		err = -errno;
		goto fail;
	}
	fd = open(path, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, mode);
fdopen:
	if (fd < 0) {
		err = -errno;
		goto fail;
	}
	o->f = fdopen(fd, "w");
	if (!o->f) {
		err = -errno;
		close(fd);
		goto fail;
	}
	return 0;
fail:
	if (o->tmp)
		unlink(o->tmp);
	free(o->tmp);
	free(o->path);
	memset(o, 0, sizeof(*o));
	return err;
}

const char *ana_output_name(const char *path)
{
	return output_is_stdout(path) ? "standard output" : path;
}

int ana_output_close(struct ana_output *o, int err)
{
	FILE *f = o->f;
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
	if (o->tmp) {
		if (!err && !cerr && rename(o->tmp, o->path))
			cerr = -errno;
		if (err || cerr)
			unlink(o->tmp);
	}
	free(o->tmp);
	free(o->path);
	memset(o, 0, sizeof(*o));
	if (err && err != -EIO)
		return err;
	return cerr ? cerr : err;
}


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
	o->writes++;
	if (n && fwrite(p, 1, n, o->f) != n)
		out_fail(o, errno);
}

static void out_flush_buf(struct ana_out *o)
{
	out_fwrite(o, o->buf, o->len);
	o->len = 0;
}

bool ana_out_mark(struct ana_out *o, size_t room, struct ana_out_mark *m)
{
	if (o->width || room > ANA_OUT_BUF)
		return false;
	if (!o->buf) {
		o->buf = malloc(ANA_OUT_BUF);
		o->len = 0;
		if (!o->buf)
			return false;
	}
	if (ANA_OUT_BUF - o->len < room)
		return false;
	m->pos = o->len;
	m->writes = o->writes;
	return true;
}

const char *ana_out_since(const struct ana_out *o, const struct ana_out_mark *m, size_t *len)
{
	if (o->writes != m->writes || !o->buf || o->len < m->pos)
		return NULL;
	*len = o->len - m->pos;
	return o->buf + m->pos;
}

/* True when the @n bytes at @p print safely, tabs allowed. */
static bool line_is_safe(const char *p, size_t n)
{
	while (n) {
		size_t esc, ok = amb_text_safe_prefix(p, n, &esc);

		if (!esc)
			return true;
		if (esc != 1 || p[ok] != '\t')
			return false;
		p += ok + 1;
		n -= ok + 1;
	}
	return true;
}

/*
 * A line for a terminal: whatever reached it unescaped (text the user
 * gave, say) loses its control characters here, tabs excepted, so that
 * nothing printed can steer the terminal (amb_text_safe_prefix(),
 * common/util.h).  Text escaped before is plain and passes unchanged.
 */
static void out_flush_line(struct ana_out *o)
{
	const char *p = (const char *)o->line.data;
	size_t n = o->line.len;

	if (!line_is_safe(p, n)) {
		struct amb_buf safe = AMB_BUF_INIT;

		for (size_t i = 0; i < n; i++) {
			const char *tab = memchr(p + i, '\t', n - i);
			size_t k = tab ? (size_t)(tab - (p + i)) : n - i;

			if (amb_buf_put_text(&safe, p + i, k) || (tab && amb_buf_append(&safe, "\t", 1)))
				out_fail(o, ENOMEM);
			i += k;
		}
		amb_buf_free(&o->line);
		o->line = safe;
	}
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
	size_t n = s ? strlen(s) : 0;
	char esc[6];

	/* JSON is never cut. */
	if (o->width)
		ana_out_no_cut(o);
	ana_out_char(o, '"');
	/* amb_json_strn()'s rule: safe runs as they are, but for '"' and
	 * '\\'; each escaped unit (a C1 control is C2 XX) as \u00XX. */
	while (n) {
		size_t bad, ok = amb_text_safe_prefix(s, n, &bad), run = 0;

		for (size_t i = 0; i < ok; i++) {
			if (s[i] != '"' && s[i] != '\\')
				continue;
			ana_out_write(o, s + run, i - run);
			ana_out_write(o, esc, amb_json_esc((unsigned char)s[i], esc));
			run = i + 1;
		}
		ana_out_write(o, s + run, ok - run);
		if (bad)
			ana_out_write(o, esc, amb_json_esc((unsigned char)s[ok + bad - 1], esc));
		s += ok + bad;
		n -= ok + bad;
	}
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

void ana_out_textn(struct ana_out *o, const char *s, size_t n)
{
	while (n) {
		size_t esc, ok = amb_text_safe_prefix(s, n, &esc);

		ana_out_write(o, s, ok);
		for (size_t i = 0; i < esc; i++) {
			static const char hex[] = "0123456789abcdef";
			unsigned char c = (unsigned char)s[ok + i];
			char e[AMB_TEXT_ESC_MAX] = { '\\', 'x', hex[c >> 4], hex[c & 15] };

			ana_out_write(o, e, sizeof(e));
		}
		s += ok + esc;
		n -= ok + esc;
	}
}

void ana_out_text(struct ana_out *o, const char *s)
{
	if (s)
		ana_out_textn(o, s, strlen(s));
}

/* Columns @s (as ana_out_textn() writes it) takes: escapes take four,
 * a UTF-8 sequence one. */
static size_t text_width(const char *s)
{
	size_t n = strlen(s), w = 0;

	while (n) {
		size_t esc, ok = amb_text_safe_prefix(s, n, &esc);

		for (size_t i = 0; i < ok; i++)
			w += ((unsigned char)s[i] & 0xc0) != 0x80;
		w += esc * AMB_TEXT_ESC_MAX;
		s += ok + esc;
		n -= ok + esc;
	}
	return w;
}

void ana_out_text_right(struct ana_out *o, const char *s, unsigned width)
{
	size_t w;

	s = s ? s : "";
	w = text_width(s);
	if (w < width)
		out_pad(o, ' ', width - w);
	ana_out_text(o, s);
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


void ana_progress_init(struct ana_progress *p, const char *what)
{
	p->what = what;
	p->tty = isatty(STDERR_FILENO);
	p->shown = false;
}

void ana_progress_show(struct ana_progress *p, uint64_t records)
{
	if (!p->tty)
		return;
	fprintf(stderr, "\ramber-analyze %s: %" PRIu64 " records...", p->what, records);
	p->shown = true;
}

void ana_progress_done(struct ana_progress *p)
{
	if (p->shown)
		fprintf(stderr, "\r\033[K");
	p->shown = false;
}
