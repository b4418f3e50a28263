// SPDX-License-Identifier: MIT
/* Unit tests for record/ksyms_trim.c: which kallsyms lines a set of
 * addresses keeps (the holder, its aliases and the symbol that ends it;
 * return addresses one byte early; nothing for user addresses and
 * callchain context markers), the walk over sample records, and the
 * rewrite of a recording: other blocks kept byte for byte, the META keys,
 * the auto rule (also: no trim when a tracepoint prints function pointers),
 * and the original left as it was after a stop signal or a full disk. */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cmocka.h>

#include <amber/format.h>
#include "record/ksyms_trim.h"
#include "record/output.h"
#include "common/util.h"

#define ST (PERF_SAMPLE_IDENTIFIER | PERF_SAMPLE_IP | PERF_SAMPLE_TID | PERF_SAMPLE_TIME | \
	    PERF_SAMPLE_ADDR | PERF_SAMPLE_CPU | PERF_SAMPLE_PERIOD | PERF_SAMPLE_CALLCHAIN)

/* The layout of records whose event has sample_type @st. */
static void layout_init(struct amb_perf_layout *l, uint64_t st)
{
	struct perf_event_attr a = { 0 };

	a.sample_type = st;
	amb_perf_layout_init(l, &a);
}

/* Not in address order everywhere, with aliases, a data symbol, an
 * absolute one, a malformed line, module symbols and no final newline. */
static const char table[] =
	"0000000000000000 A fixed_percpu_data\n"
	"ffffffff81000000 T _stext\n"
	"ffffffff81000000 T _text\n"
	"ffffffff81000100 t alpha\n"
	"ffffffff81000200 t beta\n"
	"ffffffff81000300 D some_data\n"
	"not a symbol line\n"
	"ffffffff81000500 t delta\n"
	"ffffffff81000400 T gamma\n"
	"ffffffff81000600 W epsilon\n"
	"ffffffffc0000000 t mod_fn\t[mymod]\n"
	"ffffffffc0000100 t mod_end\t[mymod]";

/* The kept lines, as rec_ksyms_write_used() writes them. */
static char *used_text(struct rec_ksyms *k)
{
	struct amb_buf b = AMB_BUF_INIT;
	uint64_t kept;

	assert_int_equal(rec_ksyms_write_used(k, &b, &kept), 0);
	assert_int_equal(amb_buf_append(&b, "", 1), 0);
	return (char *)b.data;
}

static void expect_used(struct rec_ksyms *k, const char *want)
{
	char *got = used_text(k);

	assert_string_equal(got, want);
	free(got);
}

static void test_parse(void **state)
{
	struct rec_ksyms *k = rec_ksyms_parse(table, strlen(table));

	(void)state;
	assert_non_null(k);
	/* Text symbols only: not A, not D, not the malformed line. */
	assert_int_equal(rec_ksyms_count(k), 9);
	expect_used(k, "");
	rec_ksyms_free(k);

	k = rec_ksyms_parse("", 0);
	assert_non_null(k);
	assert_int_equal(rec_ksyms_count(k), 0);
	rec_ksyms_mark(k, 0xffffffff81000000ull);
	expect_used(k, "");
	rec_ksyms_free(k);
}

static void test_mark(void **state)
{
	struct rec_ksyms *k = rec_ksyms_parse(table, strlen(table));

	(void)state;
	/* Inside beta: beta, and gamma which ends it (the data symbol between
	 * them is no text symbol); kept in the table's order. */
	rec_ksyms_mark(k, 0xffffffff81000250ull);
	expect_used(k, "ffffffff81000200 t beta\nffffffff81000400 T gamma\n");
	rec_ksyms_free(k);

	/* Aliases all stay, in their order; then the next symbol. */
	k = rec_ksyms_parse(table, strlen(table));
	rec_ksyms_mark(k, 0xffffffff81000010ull);
	expect_used(k, "ffffffff81000000 T _stext\nffffffff81000000 T _text\n"
		       "ffffffff81000100 t alpha\n");
	rec_ksyms_free(k);

	/* User space and addresses below the kernel keep nothing; the last
	 * symbol has no successor, and gets its newline back. */
	k = rec_ksyms_parse(table, strlen(table));
	rec_ksyms_mark(k, 0x401000);
	rec_ksyms_mark(k, 0);
	expect_used(k, "");
	rec_ksyms_mark(k, 0xffffffffc0000150ull);
	expect_used(k, "ffffffffc0000100 t mod_end\t[mymod]\n");
	rec_ksyms_free(k);

	/* Repeated addresses (tracepoint samples) in symbols found lately
	 * mark nothing new; others, before or after them, still do. */
	k = rec_ksyms_parse(table, strlen(table));
	rec_ksyms_mark(k, 0xffffffff81000250ull);
	rec_ksyms_mark(k, 0xffffffff81000110ull);
	rec_ksyms_mark(k, 0xffffffff81000251ull);
	rec_ksyms_mark(k, 0xffffffff810002ffull);
	rec_ksyms_mark(k, 0xffffffff81000111ull);
	expect_used(k, "ffffffff81000100 t alpha\nffffffff81000200 t beta\n"
		       "ffffffff81000400 T gamma\n");
	rec_ksyms_mark(k, 0xffffffff81000580ull);
	rec_ksyms_mark(k, 0xffffffff81000010ull);
	expect_used(k, "ffffffff81000000 T _stext\nffffffff81000000 T _text\n"
		       "ffffffff81000100 t alpha\nffffffff81000200 t beta\n"
		       "ffffffff81000500 t delta\nffffffff81000400 T gamma\n"
		       "ffffffff81000600 W epsilon\n");
	rec_ksyms_free(k);
}

/* Append a sample of ST to @b: @ip, @addr, then callchain @cc[@n]. */
static void add_sample(struct amb_buf *b, uint64_t ip, uint64_t addr, const uint64_t *cc,
		       uint64_t n)
{
	uint64_t body[8] = { 7, ip, 1ull << 32 | 1, 1000, addr, 0, 250000, n };
	struct perf_event_header h = { PERF_RECORD_SAMPLE, PERF_RECORD_MISC_KERNEL,
				       (uint16_t)(8 + sizeof(body) + n * 8) };

	assert_int_equal(amb_buf_append(b, &h, sizeof(h)), 0);
	assert_int_equal(amb_buf_append(b, body, sizeof(body)), 0);
	assert_int_equal(amb_buf_append(b, cc, (size_t)n * 8), 0);
}

/* Samples that name alpha (IP), gamma by a return address at its very
 * start (so beta, where the call was, too) and delta (ADDR); context
 * markers and user addresses name nothing. */
static void make_records(struct amb_buf *b)
{
	const uint64_t cc[] = { PERF_CONTEXT_KERNEL, 0xffffffff81000400ull, PERF_CONTEXT_USER,
				0x401000, 0x402000 };
	const uint64_t user[] = { PERF_CONTEXT_USER, 0x401000 };
	struct perf_event_header comm = { PERF_RECORD_COMM, 0, 16 };
	uint64_t pad = 0xffffffffc0000000ull;  /* not a sample: not looked at */

	add_sample(b, 0xffffffff81000110ull, 0xffffffff81000510ull, cc, 5);
	add_sample(b, 0x401234, 0, user, 2);
	assert_int_equal(amb_buf_append(b, &comm, sizeof(comm)), 0);
	assert_int_equal(amb_buf_append(b, &pad, sizeof(pad)), 0);
}

static const char kept_lines[] =
	"ffffffff81000100 t alpha\n"
	"ffffffff81000200 t beta\n"
	"ffffffff81000500 t delta\n"
	"ffffffff81000400 T gamma\n"
	"ffffffff81000600 W epsilon\n";

static void test_records(void **state)
{
	struct rec_ksyms *k = rec_ksyms_parse(table, strlen(table));
	struct amb_buf b = AMB_BUF_INIT;
	struct amb_perf_layout l;
	size_t full;

	(void)state;
	layout_init(&l, ST);
	make_records(&b);
	rec_ksyms_mark_records(k, &l, b.data, b.len);
	expect_used(k, kept_lines);
	rec_ksyms_free(k);

	/* A sample cut inside its callchain still names its IP and ADDR; a
	 * record claiming more than is left ends the walk. */
	k = rec_ksyms_parse(table, strlen(table));
	full = b.len;
	b.len = 0;
	make_records(&b);
	assert_true(b.len == full);
	b.data[6] = 8 + 64 + 16;  /* header.size: the callchain's first two entries */
	rec_ksyms_mark_records(k, &l, b.data, 8 + 64 + 16);
	expect_used(k, "ffffffff81000100 t alpha\nffffffff81000200 t beta\n"
		       "ffffffff81000500 t delta\nffffffff81000600 W epsilon\n");
	rec_ksyms_mark_records(k, &l, b.data, 7);
	rec_ksyms_free(k);
	amb_buf_free(&b);
}

/* ---- the rewrite -------------------------------------------------------------- */

struct fixture {
	char dir[64];
	char path[128];
	struct amb_perf_layout l;
};

static int setup(void **state)
{
	struct fixture *f = calloc(1, sizeof(*f));

	if (!f)
		return -1;
	strcpy(f->dir, "/tmp/amb-trim-XXXXXX");
	if (!mkdtemp(f->dir))
		return -1;
	snprintf(f->path, sizeof(f->path), "%s/rec.amber", f->dir);
	layout_init(&f->l, ST);
	*state = f;
	return 0;
}

static int teardown(void **state)
{
	struct fixture *f = *state;
	char cmd[128];

	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", f->dir);
	if (system(cmd))
		return -1;
	free(f);
	return 0;
}

static void append(struct amb_writer *w, uint16_t type, const void *data, size_t len)
{
	struct amb_block_desc d = { .type = type, .stream = type == AMB_BLOCK_RING ? 0 : AMB_STREAM_NONE,
				    .record_count = 1 };

	assert_int_equal(amb_writer_append(w, &d, data, len), 0);
}

/* META, KSYMS, RING (the records above), and @filler bytes of a FILE-like
 * incompressible block; stored raw, so sizes are predictable. */
static void write_recording_tp(const char *path, size_t filler, const char *format)
{
	AMB_OPTS(amb_writer_opts, o);
	struct amb_writer *w;
	struct amb_buf meta = AMB_BUF_INIT, ring = AMB_BUF_INIT;

	o.threads = 0;
	o.zstd_level = 0;
	assert_int_equal(amb_writer_open(path, &o, &w), 0);
	assert_int_equal(amb_kv_put_str(&meta, "hostname", "test"), 0);
	append(w, AMB_BLOCK_META, meta.data, meta.len);
	append(w, AMB_BLOCK_KSYMS, table, strlen(table));
	if (format) {
		struct amb_buf tfs = AMB_BUF_INIT;

		assert_int_equal(amb_kv_put_str(&tfs, "header_page", "field: u64 timestamp;"), 0);
		assert_int_equal(amb_kv_put_str(&tfs, "timer/hrtimer_expire_entry", format), 0);
		append(w, AMB_BLOCK_TRACEFS, tfs.data, tfs.len);
		amb_buf_free(&tfs);
	}
	make_records(&ring);
	append(w, AMB_BLOCK_RING, ring.data, ring.len);
	if (filler) {
		uint8_t *junk = malloc(filler);
		uint64_t x = 88172645463325252ull;

		assert_non_null(junk);
		for (size_t i = 0; i < filler; i++) {
			x ^= x << 13, x ^= x >> 7, x ^= x << 17;
			junk[i] = (uint8_t)x;
		}
		append(w, AMB_BLOCK_TOPOLOGY, junk, filler);
		free(junk);
	}
	assert_int_equal(amb_writer_close(w), 0);
	amb_buf_free(&meta);
	amb_buf_free(&ring);
}

static void write_recording(const char *path, size_t filler)
{
	write_recording_tp(path, filler, NULL);
}

static char *slurp(const char *path, size_t *len)
{
	char *p = amb_read_file(path, 1u << 24, len);

	assert_non_null(p);
	return p;
}

/* rec_ksyms_trim() of the recording at @path, held as amber-rec holds it. */
static int trim_path(const char *path, const struct amb_perf_layout *l, enum rec_ksyms_mode mode,
		     int level, const volatile sig_atomic_t *stop, struct rec_ksyms_trim_stats *st,
		     char *err, size_t errlen)
{
	struct rec_output o;
	int ret = rec_output_adopt(&o, path);

	if (ret)
		return ret;
	ret = rec_ksyms_trim(&o, l, mode, level, stop, st, err, errlen);
	rec_output_close(&o);
	return ret;
}

/* Files in @dir besides the recording: a left-over copy would show here. */
static int other_files(const char *dir)
{
	DIR *d = opendir(dir);
	struct dirent *e;
	int n = 0;

	assert_non_null(d);
	while ((e = readdir(d)))
		n += strcmp(e->d_name, ".") && strcmp(e->d_name, "..") &&
		     strcmp(e->d_name, "rec.amber") && strcmp(e->d_name, "filler");
	closedir(d);
	return n;
}

static void test_trim_used(void **state)
{
	static volatile sig_atomic_t stop;
	const struct amb_block_filter any = AMB_FILTER_ANY;
	struct fixture *f = *state;
	struct rec_ksyms_trim_stats st;
	struct amb_payload *pl = amb_payload_new();
	struct amb_reader *r;
	const char *want[] = { "meta", "meta", "ring", NULL };
	bool kept_seen = false, ring_seen = false;
	char err[256];
	size_t i, n = 0, before_len;
	char *before = NULL;

	write_recording(f->path, 0);
	before = slurp(f->path, &before_len);
	assert_int_equal(trim_path(f->path, &f->l, REC_KSYMS_USED, 3, &stop, &st, err,
					sizeof(err)), 0);
	assert_true(st.trimmed);
	assert_int_equal(st.kept, 5);
	assert_int_equal(st.total, 9);
	assert_int_equal(st.bytes_before, before_len);
	assert_true(st.bytes_after < st.bytes_before);
	assert_int_equal(other_files(f->dir), 0);

	/* META, the new KSYMS and its META, RING; the reader finds it clean. */
	assert_int_equal(amb_reader_open(f->path, AMB_READ_VERIFY, &r), 0);
	assert_int_equal(amb_reader_problem_count(r), 0);
	assert_true(amb_reader_indexed(r));
	amb_reader_for_each_block(r, &any, i) {
		const struct amb_block_info *bi = amb_reader_block(r, i);
		const void *data;
		size_t len;

		if (bi->type == AMB_BLOCK_INDEX || bi->type == AMB_BLOCK_TRAILER)
			continue;
		assert_int_equal(amb_reader_load(r, i, pl, &data, &len), 0);
		if (bi->type == AMB_BLOCK_KSYMS) {
			assert_int_equal(len, strlen(kept_lines));
			assert_memory_equal(data, kept_lines, len);
			assert_int_equal(bi->record_count, 5);
			continue;
		}
		assert_non_null(want[n]);
		assert_string_equal(amb_block_type_name(bi->type), want[n]);
		n++;
		if (bi->type == AMB_BLOCK_META && n == 2) {
			struct amb_cursor c;
			struct amb_kv kv;

			amb_cursor_init(&c, data, len);
			assert_int_equal(amb_kv_next(&c, &kv), 1);
			assert_memory_equal(kv.key, "ksyms.kept", kv.key_len);
			assert_memory_equal(kv.val, "5", kv.val_len);
			assert_int_equal(amb_kv_next(&c, &kv), 1);
			assert_memory_equal(kv.key, "ksyms.total", kv.key_len);
			assert_memory_equal(kv.val, "9", kv.val_len);
			kept_seen = true;
		}
		if (bi->type == AMB_BLOCK_RING) {
			struct amb_buf ring = AMB_BUF_INIT;

			make_records(&ring);
			assert_int_equal(len, ring.len);
			assert_memory_equal(data, ring.data, len);
			amb_buf_free(&ring);
			ring_seen = true;
		}
	}
	assert_null(want[n]);
	assert_true(kept_seen && ring_seen);
	amb_reader_close(r);
	amb_payload_free(pl);
	free(before);

	/* Trimming again keeps the same symbols: they still cover every sample. */
	assert_int_equal(trim_path(f->path, &f->l, REC_KSYMS_USED, 3, &stop, &st, err,
					sizeof(err)), 0);
	assert_true(st.trimmed);
	assert_int_equal(st.kept, 5);
	assert_int_equal(st.total, 5);
}

static void expect_untouched(struct fixture *f, enum rec_ksyms_mode mode, sig_atomic_t stop_now,
			     int want_err)
{
	static volatile sig_atomic_t stop;
	struct rec_ksyms_trim_stats st;
	char err[256], *before, *after;
	size_t before_len, after_len;

	before = slurp(f->path, &before_len);
	stop = stop_now;
	assert_int_equal(trim_path(f->path, &f->l, mode, 3, &stop, &st, err, sizeof(err)),
			 want_err);
	assert_false(st.trimmed);
	if (want_err)
		assert_true(strlen(err) > 0);
	after = slurp(f->path, &after_len);
	assert_int_equal(before_len, after_len);
	assert_memory_equal(before, after, before_len);
	assert_int_equal(other_files(f->dir), 0);
	free(before);
	free(after);
}

static void test_trim_auto(void **state)
{
	struct fixture *f = *state;

	/* The table is under 1/32 of the file: auto leaves it, used trims. */
	write_recording(f->path, strlen(table) * REC_KSYMS_AUTO_SHARE * 2);
	expect_untouched(f, REC_KSYMS_AUTO, 0, 0);
	expect_untouched(f, REC_KSYMS_ALL, 0, 0);
	unlink(f->path);

	/* A table that is most of the file is trimmed by auto too. */
	write_recording(f->path, 0);
	expect_untouched(f, REC_KSYMS_ALL, 0, 0);
	{
		static volatile sig_atomic_t stop;
		struct rec_ksyms_trim_stats st;
		char err[256];

		assert_int_equal(trim_path(f->path, &f->l, REC_KSYMS_AUTO, 3, &stop, &st,
						err, sizeof(err)), 0);
		assert_true(st.trimmed);
	}
}

static const char fmt_ps[] =
	"name: hrtimer_expire_entry\nID: 334\nformat:\n"
	"\tfield:void * function;\toffset:16;\tsize:8;\tsigned:0;\n\n"
	"print fmt: \"hrtimer=%p function=%ps now=%llu\", REC->hrtimer, REC->function, REC->now\n";
static const char fmt_plain[] =
	"name: sched_switch\nformat:\n\tfield:char prev_comm[16];\toffset:8;\tsize:16;\n\n"
	"print fmt: \"prev_comm=%s prev_pid=%d ptr=%p%%\", REC->prev_comm, REC->prev_pid\n";

static void test_format_names_functions(void **state)
{
	const char *names[] = { "%ps", "%pS", "%pf", "%pF", "%pB" };
	char buf[64];

	(void)state;
	assert_true(rec_format_names_functions(fmt_ps, strlen(fmt_ps)));
	assert_false(rec_format_names_functions(fmt_plain, strlen(fmt_plain)));
	for (size_t i = 0; i < sizeof(names) / sizeof(names[0]); i++) {
		snprintf(buf, sizeof(buf), "print fmt: \"x=%s\", REC->x", names[i]);
		assert_true(rec_format_names_functions(buf, strlen(buf)));
	}
	/* Only the print format counts; a "%p" at the very end is no %ps. */
	assert_false(rec_format_names_functions("field: %ps\n", 11));
	assert_false(rec_format_names_functions("print fmt: \"%p", 14));
	assert_false(rec_format_names_functions("print fmt: %p\0s", 15));
}

static void test_trim_auto_tracepoint(void **state)
{
	static volatile sig_atomic_t stop;
	struct fixture *f = *state;
	struct rec_ksyms_trim_stats st;
	char err[256];

	/* A tracepoint that prints function pointers: auto keeps the table ... */
	write_recording_tp(f->path, 0, fmt_ps);
	expect_untouched(f, REC_KSYMS_AUTO, 0, 0);
	/* ... used trims all the same. */
	assert_int_equal(trim_path(f->path, &f->l, REC_KSYMS_USED, 3, &stop, &st, err,
					sizeof(err)), 0);
	assert_true(st.trimmed);
	unlink(f->path);

	/* One that does not: auto trims. */
	write_recording_tp(f->path, 0, fmt_plain);
	assert_int_equal(trim_path(f->path, &f->l, REC_KSYMS_AUTO, 3, &stop, &st, err,
					sizeof(err)), 0);
	assert_true(st.trimmed);
}

static void test_trim_stop_and_odd_paths(void **state)
{
	struct fixture *f = *state;
	char link[160];

	write_recording(f->path, 0);
	/* A signal during the trim: the recording stays as written. */
	expect_untouched(f, REC_KSYMS_USED, 1, -EINTR);

	/* Not a regular file: never held, so never trimmed. */
	snprintf(link, sizeof(link), "%s/link.amber", f->dir);
	assert_int_equal(symlink("rec.amber", link), 0);
	{
		static volatile sig_atomic_t stop;
		struct rec_ksyms_trim_stats st;
		char err[256];

		assert_int_equal(trim_path(link, &f->l, REC_KSYMS_USED, 3, &stop, &st, err,
					   sizeof(err)), -ELOOP);
		assert_int_equal(trim_path(f->dir, &f->l, REC_KSYMS_USED, 3, &stop, &st, err,
					   sizeof(err)), -EISDIR);
	}
	unlink(link);
}

/*
 * Issue 19, item 3: a second amber-rec moved this recording aside (to
 * FILE.old) and made its own FILE: the trim rewrites this recording where
 * it is now, and never touches the other one's file.
 */
static void test_trim_follows_the_file(void **state)
{
	static volatile sig_atomic_t stop;
	struct fixture *f = *state;
	struct rec_ksyms_trim_stats st;
	struct amb_reader *r;
	struct rec_output o;
	char old[200], where[300], err[256], *other, *after;
	size_t other_len, after_len;

	write_recording(f->path, 0);
	assert_int_equal(rec_output_adopt(&o, f->path), 0);
	snprintf(old, sizeof(old), "%s.old", f->path);
	assert_int_equal(rename(f->path, old), 0);
	write_recording(f->path, 0);   /* the other recorder's file */
	other = slurp(f->path, &other_len);

	assert_int_equal(rec_ksyms_trim(&o, &f->l, REC_KSYMS_USED, 3, &stop, &st, err,
					sizeof(err)), 0);
	assert_true(st.trimmed);
	after = slurp(f->path, &after_len);
	assert_int_equal(after_len, other_len);
	assert_memory_equal(after, other, other_len);
	/* The trimmed copy is at FILE.old, and held: the summary names it. */
	assert_string_equal(rec_output_where(&o, where, sizeof(where)), old);
	assert_int_equal(amb_reader_open(old, AMB_READ_VERIFY, &r), 0);
	assert_int_equal(amb_reader_problem_count(r), 0);
	amb_reader_close(r);
	assert_int_equal(rec_output_size(&o), st.bytes_after);
	rec_output_close(&o);
	unlink(old);
	free(other);
	free(after);
}

/* Fill the file system of @dir up to the last @left bytes. */
static void fill(const char *dir, size_t left)
{
	char path[160], buf[4096] = { 1 };
	off_t size = 0;
	int fd;

	snprintf(path, sizeof(path), "%s/filler", dir);
	fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0600);
	assert_true(fd >= 0);
	while (write(fd, buf, sizeof(buf)) == (ssize_t)sizeof(buf))
		size += (off_t)sizeof(buf);
	assert_int_equal(ftruncate(fd, size > (off_t)left ? size - (off_t)left : 0), 0);
	close(fd);
}

static void test_trim_disk_full(void **state)
{
	struct fixture *f = *state;

	if (geteuid() != 0 || mount("amb-test", f->dir, "tmpfs", 0, "size=128k") != 0) {
		skip();  /* needs root to mount a small tmpfs */
		return;
	}
	/* The copy needs more room than is left: the original stays whole. */
	write_recording(f->path, 16384);
	fill(f->dir, 4096);
	expect_untouched(f, REC_KSYMS_USED, 0, -ENOSPC);
	assert_int_equal(umount(f->dir), 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_parse),
		cmocka_unit_test(test_mark),
		cmocka_unit_test(test_records),
		cmocka_unit_test_setup_teardown(test_trim_used, setup, teardown),
		cmocka_unit_test_setup_teardown(test_trim_auto, setup, teardown),
		cmocka_unit_test(test_format_names_functions),
		cmocka_unit_test_setup_teardown(test_trim_auto_tracepoint, setup, teardown),
		cmocka_unit_test_setup_teardown(test_trim_stop_and_odd_paths, setup, teardown),
		cmocka_unit_test_setup_teardown(test_trim_disk_full, setup, teardown),
		cmocka_unit_test_setup_teardown(test_trim_follows_the_file, setup, teardown),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
