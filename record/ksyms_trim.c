// SPDX-License-Identifier: MIT
/*
 * record/ksyms_trim.c - after a clean stop, replace the recording's whole
 * kernel symbol table by the symbols its samples use.
 *
 * The KSYMS block is written before the first sample (FORMAT.md §9), when
 * nobody knows which kernel code will be hit, so it holds all of
 * /proc/kallsyms: some 60,000 text symbols, over 600 KB compressed, more
 * than the samples of a short recording.  Once the recording is complete
 * the recorder reads its own RING blocks back, finds every kernel address
 * a sample names (IP, callchain, data address, branches), and writes a new
 * file with a KSYMS block of only the text symbols holding those addresses
 * plus the symbol after each, which bounds it (FORMAT.md §5, "trimmed
 * KSYMS").  Every other block is copied as stored.  The new file is synced
 * and renamed over the old one, so at every moment one complete recording
 * is on disk: a crash, a signal or a full disk during the trim leaves the
 * untrimmed file.
 *
 * This is the recorder's only pass over sample bodies, and it happens after
 * recording, never on the draining path.  By default (REC_KSYMS_AUTO) it
 * runs only when the table is a sizeable share of the file, so its cost
 * (reading the file back, writing it again) stays bounded by a small
 * multiple of the table's size, and not when a recorded tracepoint prints
 * kernel function pointers (%ps in timer, workqueue or kmem events): those
 * need the whole table to be named.
 */
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <amber/common.h>
#include <amber/format.h>
#include "common/kallsyms.h"
#include "common/util.h"
#include "record/ksyms_trim.h"
#include "record/output.h"

/* PERF_CONTEXT_* markers in a callchain are the top 4095 u64 values. */
#define CONTEXT_MARKER_MIN ((uint64_t)-4095)

struct ksym_line {
	uint64_t addr;
	size_t off, len;           /* the line in the table's text, '\n' included */
	bool used;
};

struct rec_ksyms {
	const char *text;          /* not owned */
	struct ksym_line *v;       /* text symbols, by address, then text order */
	size_t nr, cap;
	bool any_addr;             /* some line has a nonzero address */
	size_t hits[256];          /* by address (hit_slot): 1 + the symbol
				    * rec_ksyms_mark() found there last, or 0 */
};

/* The slot of hits[] for @addr: the addresses of a recording's samples
 * (a few IPs, the return addresses of its stacks) rarely share one. */
static size_t hit_slot(uint64_t addr)
{
	return (size_t)((addr * 0x9e3779b97f4a7c15ull) >> 56);
}

static int by_addr(const void *a, const void *b)
{
	const struct ksym_line *x = a, *y = b;

	if (x->addr != y->addr)
		return x->addr < y->addr ? -1 : 1;
	return x->off < y->off ? -1 : x->off > y->off;
}

static int by_offset(const void *a, const void *b)
{
	const struct ksym_line *x = a, *y = b;

	return x->off < y->off ? -1 : x->off > y->off;
}

/* A line of the text: kept when it is a text symbol.  The grammar is the
 * analyzer's (common/kallsyms.h), so a line is kept exactly when the
 * analysis would read it as a symbol. */
static int add_line(void *ctx, const struct amb_kallsym *sym)
{
	struct rec_ksyms *k = ctx;

	k->any_addr |= sym->addr != 0;
	if (!amb_kallsyms_is_text(sym->type))
		return 0;
	if (amb_ensure_cap((void **)&k->v, &k->cap, sizeof(*k->v), k->nr + 1))
		return -ENOMEM;
	k->v[k->nr++] = (struct ksym_line){ sym->addr, sym->off, sym->len, false };
	return 0;
}

struct rec_ksyms *rec_ksyms_parse(const char *text, size_t len)
{
	struct rec_ksyms *k = calloc(1, sizeof(*k));

	if (!k)
		return NULL;
	k->text = text;
	if (amb_kallsyms_for_each(text, len, add_line, k, NULL)) {
		rec_ksyms_free(k);
		return NULL;
	}
	/* Addresses all hidden: the analysis keeps no symbol, nor do we. */
	if (!k->any_addr)
		k->nr = 0;
	if (k->nr)
		qsort(k->v, k->nr, sizeof(*k->v), by_addr);
	return k;
}

void rec_ksyms_free(struct rec_ksyms *k)
{
	if (!k)
		return;
	free(k->v);
	free(k);
}

size_t rec_ksyms_count(const struct rec_ksyms *k)
{
	return k->nr;
}

void rec_ksyms_mark(struct rec_ksyms *k, uint64_t addr)
{
	size_t lo = 0, hi = k->nr, i;

	/* User addresses lie below every kernel symbol: the common case. */
	if (!k->nr || addr < k->v[0].addr)
		return;
	/* Samples repeat their addresses (a scheduler recording has millions
	 * of stacks through __schedule): one inside the symbol found there
	 * last marks nothing new. */
	i = k->hits[hit_slot(addr)];
	if (i && k->v[i - 1].addr <= addr && (i == k->nr || addr < k->v[i].addr))
		return;
	/* Invariant: v[lo].addr <= addr, and addr < v[hi].addr if hi < nr. */
	while (hi - lo > 1) {
		size_t mid = lo + (hi - lo) / 2;

		if (k->v[mid].addr <= addr)
			lo = mid;
		else
			hi = mid;
	}
	/* The symbol and its aliases (a reader shows the first of them in
	 * text order), and the next symbol, whose address ends this one. */
	for (i = lo; ; i--) {
		k->v[i].used = true;
		if (!i || k->v[i - 1].addr != k->v[lo].addr)
			break;
	}
	if (lo + 1 < k->nr)
		k->v[lo + 1].used = true;
	k->hits[hit_slot(addr)] = lo + 1;
}

/* Mark @a and @a - 1: a reader looks a return address up one byte early,
 * so that a call at the very end of a function names that function. */
static void mark_both(struct rec_ksyms *k, uint64_t a)
{
	if (a >= CONTEXT_MARKER_MIN)
		return;
	rec_ksyms_mark(k, a);
	if (a)
		rec_ksyms_mark(k, a - 1);
}

static uint64_t get_u64(const uint8_t *p)
{
	uint64_t v;

	memcpy(&v, p, sizeof(v)); /* written by this host */
	return v;
}

void rec_ksyms_mark_records(struct rec_ksyms *k, const struct amb_perf_layout *l,
			    const uint8_t *data, size_t len)
{
	size_t pos = 0;

	while (len - pos >= sizeof(struct perf_event_header)) {
		struct perf_event_header h;
		struct amb_perf_sample s;
		enum amb_perf_field f;
		const uint8_t *p = data + pos;

		memcpy(&h, p, sizeof(h));
		if (h.size < sizeof(h) || h.size > len - pos)
			return;
		pos += h.size;
		if (h.type != PERF_RECORD_SAMPLE)
			continue;
		/* A sample cut short still names what was found before the cut
		 * (the parts not reached have no offset and count 0). */
		f = amb_perf_sample_walk(l, p, h.size, false, &s);
		if ((l->sample_type & PERF_SAMPLE_IP) && amb_perf_walked(f, AMB_PERF_F_IP))
			mark_both(k, s.ip);
		if ((l->sample_type & PERF_SAMPLE_ADDR) && amb_perf_walked(f, AMB_PERF_F_ADDR))
			mark_both(k, s.addr);
		for (uint64_t i = 0; i < s.nr_callchain; i++)
			mark_both(k, get_u64(p + s.callchain + i * 8));
		for (uint64_t i = 0; i < s.nr_branches; i++) {
			mark_both(k, get_u64(p + s.branches + i * 24));
			mark_both(k, get_u64(p + s.branches + i * 24 + 8));
		}
	}
}

int rec_ksyms_write_used(const struct rec_ksyms *k, struct amb_buf *out, uint64_t *kept)
{
	struct ksym_line *used;
	size_t n = 0;
	int err = 0;

	*kept = 0;
	for (size_t i = 0; i < k->nr; i++)
		n += k->v[i].used;
	if (!n)
		return 0;
	used = malloc(n * sizeof(*used));
	if (!used)
		return -ENOMEM;
	n = 0;
	for (size_t i = 0; i < k->nr; i++)
		if (k->v[i].used)
			used[n++] = k->v[i];
	/* The recorded order, which a reader relies on for aliases. */
	qsort(used, n, sizeof(*used), by_offset);
	for (size_t i = 0; i < n && !err; i++) {
		err = amb_buf_append(out, k->text + used[i].off, used[i].len);
		/* The text's last line may lack its newline. */
		if (!err && k->text[used[i].off + used[i].len - 1] != '\n')
			err = amb_buf_append(out, "\n", 1);
	}
	free(used);
	*kept = err ? 0 : n;
	return err;
}

/* ---- the rewrite ------------------------------------------------------------ */

struct trim {
	struct rec_output *out;
	struct amb_reader *r;
	const volatile sig_atomic_t *stop;
	struct amb_buf text;       /* the recorded table, all KSYMS blocks */
	struct amb_buf kept_text;  /* the trimmed table */
	uint64_t kept, total;
	bool replaced;             /* the new KSYMS is in the new file */
	char *err;
	size_t errlen;
};

static int fail(struct trim *t, int err, const char *what)
{
	snprintf(t->err, t->errlen, "%s: %s", what, amb_strerror(err));
	return err;
}

bool rec_format_names_functions(const char *text, size_t len)
{
	const char *fmt = memmem(text, len, "print fmt:", 10);

	if (!fmt)
		return false;
	for (const char *p = fmt, *end = text + len; (p = memchr(p, '%', (size_t)(end - p))); p++)
		if (end - p >= 3 && p[1] == 'p' && p[2] && strchr("sSfFB", p[2]))
			return true;
	return false;
}

/* Whether a recorded tracepoint prints a kernel function pointer, which a
 * trimmed table could not name (FORMAT.md §5.8). */
static int tracefs_names_functions(struct amb_reader *r, bool *names)
{
	const struct amb_block_filter tracefs = { AMB_BLOCK_TRACEFS, -1, 0, 0 };
	struct amb_payload *pl = amb_payload_new();
	const void *data;
	size_t i, len;
	int err = 0;

	*names = false;
	if (!pl)
		return -ENOMEM;
	amb_reader_for_each_block(r, &tracefs, i) {
		struct amb_cursor c;
		struct amb_kv kv;

		err = amb_reader_load(r, i, pl, &data, &len);
		if (err)
			break;
		amb_cursor_init(&c, data, len);
		while (!*names && amb_kv_next(&c, &kv) == 1)
			*names = rec_format_names_functions((const char *)kv.val, kv.val_len);
		if (*names)
			break;
	}
	amb_payload_free(pl);
	return err;
}

/* Load the KSYMS blocks and mark every address the RING blocks name. */
static int find_used(struct trim *t, const struct amb_perf_layout *l, struct rec_ksyms **out)
{
	const struct amb_block_filter ksyms = { AMB_BLOCK_KSYMS, -1, 0, 0 };
	const struct amb_block_filter ring = { AMB_BLOCK_RING, -1, 0, 0 };
	struct amb_payload *pl = amb_payload_new();
	struct rec_ksyms *k = NULL;
	const void *data;
	size_t i, len;
	int err = 0;

	if (!pl)
		return fail(t, -ENOMEM, "reading the recording back");
	amb_reader_for_each_block(t->r, &ksyms, i) {
		err = amb_reader_load(t->r, i, pl, &data, &len);
		if (!err)
			err = amb_buf_append(&t->text, data, len);
		if (err) {
			fail(t, err, "reading the kernel symbols back");
			goto out;
		}
	}
	k = rec_ksyms_parse((const char *)t->text.data, t->text.len);
	if (!k) {
		err = fail(t, -ENOMEM, "parsing the kernel symbols");
		goto out;
	}
	amb_reader_for_each_block(t->r, &ring, i) {
		if (*t->stop) {
			err = fail(t, -EINTR, "reading the samples back");
			goto out;
		}
		err = amb_reader_load(t->r, i, pl, &data, &len);
		if (err) {
			snprintf(t->err, t->errlen, "%s", amb_payload_errmsg(pl));
			goto out;
		}
		rec_ksyms_mark_records(k, l, data, len);
	}
	t->total = rec_ksyms_count(k);
out:
	amb_payload_free(pl);
	if (err) {
		rec_ksyms_free(k);
		k = NULL;
	}
	*out = k;
	return err;
}

/* amb_copy_fn: every block as stored, but the first KSYMS block becomes
 * the trimmed table and a META block saying so; later ones are dropped. */
static int replace_ksyms(void *ctx, struct amb_writer *w, const struct amb_block_info *bi,
			 size_t i)
{
	struct trim *t = ctx;
	struct amb_block_desc d = { .type = AMB_BLOCK_KSYMS, .stream = AMB_STREAM_NONE,
				    .record_count = t->kept };
	struct amb_buf meta = AMB_BUF_INIT;
	char v[2][24];
	int err;

	(void)i;
	if (*t->stop)
		return -EINTR;
	if (bi->type != AMB_BLOCK_KSYMS)
		return 1;
	if (t->replaced)
		return 0;
	t->replaced = true;
	if (t->kept_text.len) {
		err = amb_writer_append(w, &d, t->kept_text.data, t->kept_text.len);
		if (err)
			return err;
	}
	snprintf(v[0], sizeof(v[0]), "%" PRIu64, t->kept);
	snprintf(v[1], sizeof(v[1]), "%" PRIu64, t->total);
	err = amb_kv_put_str(&meta, "ksyms.kept", v[0]);
	if (!err)
		err = amb_kv_put_str(&meta, "ksyms.total", v[1]);
	if (!err) {
		d = (struct amb_block_desc){ .type = AMB_BLOCK_META, .stream = AMB_STREAM_NONE,
					     .record_count = 2 };
		err = amb_writer_append(w, &d, meta.data, meta.len);
	}
	amb_buf_free(&meta);
	return err;
}

/* Write the trimmed copy to @tmp, beside the recording, and put it in the
 * recording's place (rec_output_replace(): wherever that is by then). */
static int rewrite(struct trim *t, const char *tmp, int zstd_level)
{
	AMB_OPTS(amb_writer_opts, wo);
	AMB_OPTS(amb_copy_opts, co, .fn = replace_ksyms, .ctx = t);
	struct amb_writer *w;
	int fd, wfd, err, cerr;
	long n;

	amb_writer_opts_from(&wo, t->r);
	wo.zstd_level = zstd_level;
	wo.threads = 0;
	wo.sync = AMB_SYNC_CLOSE;  /* on disk before it replaces the original */
	fd = open(tmp, O_RDWR | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0600);
	if (fd < 0)
		return fail(t, -errno, "creating the trimmed copy");
	wfd = fcntl(fd, F_DUPFD_CLOEXEC, 0);
	err = wfd < 0 ? -errno : amb_writer_open_fd(wfd, &wo, &w);
	if (err) {
		close(fd);
		unlink(tmp);
		return fail(t, err, "creating the trimmed copy");
	}
	n = amb_copy_blocks(t->r, w, &co);
	err = n < 0 ? (int)n : 0;
	cerr = amb_writer_close(w);
	if (!err)
		err = cerr;
	if (!err)
		err = rec_output_replace(t->out, tmp, fd);
	if (err) {
		close(fd);
		unlink(tmp);
		return fail(t, err, "writing the trimmed copy");
	}
	return 0;
}

int rec_ksyms_trim(struct rec_output *out, const struct amb_perf_layout *l,
		   enum rec_ksyms_mode mode, int zstd_level, const volatile sig_atomic_t *stop,
		   struct rec_ksyms_trim_stats *st, char *errbuf, size_t errlen)
{
	const struct amb_block_filter ksyms = { AMB_BLOCK_KSYMS, -1, 0, 0 };
	struct trim t = { .out = out, .stop = stop, .text = AMB_BUF_INIT,
			  .kept_text = AMB_BUF_INIT, .err = errbuf, .errlen = errlen };
	struct rec_ksyms *k = NULL;
	uint64_t table = 0;
	char tmp[4200], where[4096], self[64];
	size_t i;
	int err;

	memset(st, 0, sizeof(*st));
	errbuf[0] = '\0';
	/* Only our own file, through our descriptor (wherever it is now). */
	if (mode == REC_KSYMS_ALL || out->discard || out->fd < 0)
		return 0;
	snprintf(self, sizeof(self), "/proc/self/fd/%d", out->fd);
	err = amb_reader_open(self, 0, &t.r);
	if (err)
		return fail(&t, err, "reading the recording back");
	amb_reader_for_each_block(t.r, &ksyms, i)
		table += amb_reader_block(t.r, i)->stored_size + AMB_BLOCK_HDR_SIZE;
	st->bytes_before = st->bytes_after = amb_reader_file_size(t.r);
	err = 0;
	if (!table || !amb_reader_indexed(t.r) ||
	    (mode == REC_KSYMS_AUTO && table * REC_KSYMS_AUTO_SHARE < st->bytes_before))
		goto out;
	if (mode == REC_KSYMS_AUTO) {
		bool names;

		err = tracefs_names_functions(t.r, &names);
		if (err) {
			fail(&t, err, "reading the tracepoint formats back");
			goto out;
		}
		if (names)
			goto out;
	}
	/* Beside the recording: the rename that replaces it stays in its directory. */
	rec_output_where(out, where, sizeof(where));
	if (snprintf(tmp, sizeof(tmp), "%s.trim-%ld", where, (long)getpid()) >= (int)sizeof(tmp)) {
		err = fail(&t, -ENAMETOOLONG, "naming the trimmed copy");
		goto out;
	}
	err = find_used(&t, l, &k);
	if (!err)
		err = rec_ksyms_write_used(k, &t.kept_text, &t.kept);
	if (err) {
		if (!errbuf[0])
			fail(&t, err, "selecting the kernel symbols");
		goto out;
	}
	err = rewrite(&t, tmp, zstd_level);
	if (err)
		goto out;
	st->trimmed = true;
	st->kept = t.kept;
	st->total = t.total;
	st->raw_saved = t.text.len > t.kept_text.len ? t.text.len - t.kept_text.len : 0;
	st->bytes_after = rec_output_size(out);
out:
	rec_ksyms_free(k);
	amb_buf_free(&t.text);
	amb_buf_free(&t.kept_text);
	amb_reader_close(t.r);
	return err;
}
