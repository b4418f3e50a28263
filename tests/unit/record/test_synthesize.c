// SPDX-License-Identifier: MIT
/* Unit tests for record/synthesize.c, record/buildid.c and record/kernel.c:
 * synthesized COMM/FORK/MMAP2 records have the kernel's layout and the
 * sample_id_all trailer of the first event; our own process synthesizes
 * into records naming our executable with its real build-id; build-ids
 * are found in note buffers, ELF files and the cache; kallsyms and
 * /proc/modules text parse. */
#include <elf.h>
#include <errno.h>
#include <link.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cmocka.h>

#include "record/buildid.h"
#include "record/kernel.h"
#include "record/stage.h"
#include "record/synthesize.h"
#include "record/target.h"
#include "common/kallsyms.h"
#include "common/util.h"

#define ST (PERF_SAMPLE_IDENTIFIER | PERF_SAMPLE_IP | PERF_SAMPLE_TID | \
	    PERF_SAMPLE_TIME | PERF_SAMPLE_CPU | PERF_SAMPLE_PERIOD)

/* The layout of records whose event has sample_type @st. */
static void layout_init(struct amb_perf_layout *l, uint64_t st)
{
	struct perf_event_attr a = { 0 };

	a.sample_type = st;
	amb_perf_layout_init(l, &a);
}

static void ctx_init(struct rec_synth_ctx *x, struct amb_buf *bids)
{
	memset(x, 0, sizeof(*x));
	x->sample_type = ST;
	x->id = 77;
	x->time = 123456789;
	x->cpu = 1;
	x->buildids = bids;
	x->cache = rec_buildid_cache_new();
	assert_non_null(x->cache);
}

static void ctx_free(struct rec_synth_ctx *x)
{
	rec_buildid_cache_free(x->cache);
	rec_synth_ctx_free(x);
}

static uint32_t u32_at(const uint8_t *p)
{
	uint32_t v;

	memcpy(&v, p, 4);
	return v;
}

static uint64_t u64_at(const uint8_t *p)
{
	uint64_t v;

	memcpy(&v, p, 8);
	return v;
}

/* The trailer: pid/tid, time, cpu/res, identifier. */
static void check_trailer(const uint8_t *rec, uint32_t pid, uint32_t tid)
{
	const struct perf_event_header *h = (const void *)rec;
	const uint8_t *t = rec + h->size - 32;

	assert_int_equal(u32_at(t), pid);
	assert_int_equal(u32_at(t + 4), tid);
	assert_int_equal(u64_at(t + 8), 123456789);
	assert_int_equal(u32_at(t + 16), 1);
	assert_int_equal(u64_at(t + 24), 77);
}

static void test_records(void **state)
{
	struct amb_buf b = AMB_BUF_INIT, bids = AMB_BUF_INIT;
	struct rec_synth_ctx x;
	struct rec_buildid bid = { .len = 20 };
	struct rec_mmap2 m = { 0 };
	struct amb_perf_layout l;
	struct rec_stage st = { 0 };
	const struct perf_event_header *h;
	size_t off = 0;

	(void)state;
	ctx_init(&x, &bids);
	for (int i = 0; i < 20; i++)
		bid.id[i] = (uint8_t)(0xa0 + i);
	assert_int_equal(rec_synth_comm(&x, &b, 10, 11, "worker-0"), 0);
	assert_int_equal(rec_synth_fork(&x, &b, 10, 11), 0);
	m.pid = 10;
	m.tid = 10;
	m.addr = 0x400000;
	m.len = 0x1000;
	m.pgoff = 0x2000;
	m.prot = PROT_READ | PROT_EXEC;
	m.flags = MAP_PRIVATE;
	m.misc = PERF_RECORD_MISC_USER;
	m.bid = &bid;
	m.filename = "/usr/bin/x";
	assert_int_equal(rec_synth_mmap2(&x, &b, &m), 0);
	assert_int_equal(x.nr_records, 3);

	/* COMM: pid, tid, "worker-0\0" padded to 16, trailer */
	h = (const void *)b.data;
	assert_int_equal(h->type, PERF_RECORD_COMM);
	assert_int_equal(h->size, 8 + 8 + 16 + 32);
	assert_int_equal(u32_at(b.data + 8), 10);
	assert_int_equal(u32_at(b.data + 12), 11);
	assert_string_equal((const char *)b.data + 16, "worker-0");
	check_trailer(b.data, 10, 11);
	off += h->size;

	/* FORK: pid, ppid, tid, ptid, time */
	h = (const void *)(b.data + off);
	assert_int_equal(h->type, PERF_RECORD_FORK);
	assert_int_equal(h->size, 8 + 24 + 32);
	assert_int_equal(u32_at(b.data + off + 8), 10);
	assert_int_equal(u32_at(b.data + off + 12), 10);
	assert_int_equal(u32_at(b.data + off + 16), 11);
	assert_int_equal(u32_at(b.data + off + 20), 10);
	assert_int_equal(u64_at(b.data + off + 24), 123456789);
	check_trailer(b.data + off, 10, 11);
	off += h->size;

	/* MMAP2 with build-id */
	h = (const void *)(b.data + off);
	assert_int_equal(h->type, PERF_RECORD_MMAP2);
	assert_int_equal(h->misc, PERF_RECORD_MISC_USER | PERF_RECORD_MISC_MMAP_BUILD_ID);
	assert_int_equal(h->size % 8, 0);
	assert_int_equal(u64_at(b.data + off + 16), 0x400000);
	assert_int_equal(u64_at(b.data + off + 24), 0x1000);
	assert_int_equal(u64_at(b.data + off + 32), 0x2000);
	assert_int_equal(b.data[off + 40], 20);
	assert_memory_equal(b.data + off + 44, bid.id, 20);
	assert_int_equal(u32_at(b.data + off + 64), PROT_READ | PROT_EXEC);
	assert_int_equal(u32_at(b.data + off + 68), MAP_PRIVATE);
	assert_string_equal((const char *)b.data + off + 72, "/usr/bin/x");
	check_trailer(b.data + off, 10, 10);
	off += h->size;
	assert_int_equal(off, b.len);

	/* The drain's time logic reads the same trailers. */
	layout_init(&l, ST);
	st.layout = &l;
	for (size_t o = 0; o < b.len; o += ((const struct perf_event_header *)(b.data + o))->size)
		assert_int_equal(rec_stage_add(&st, b.data + o,
					       ((const struct perf_event_header *)(b.data + o))->size), 0);
	assert_int_equal(st.first_time, 123456789);
	assert_int_equal(st.last_time, 123456789);
	rec_stage_free(&st);

	amb_buf_free(&b);
	amb_buf_free(&bids);
	ctx_free(&x);
}

/* Without a build-id MMAP2 carries maj/min/ino and no MMAP_BUILD_ID bit. */
static void test_mmap2_no_buildid(void **state)
{
	struct amb_buf b = AMB_BUF_INIT;
	struct rec_synth_ctx x;
	struct rec_mmap2 m = { 0 };
	const struct perf_event_header *h;

	(void)state;
	ctx_init(&x, NULL);
	m.maj = 8;
	m.min = 2;
	m.ino = 4242;
	m.filename = "/tmp/no-id";
	m.misc = PERF_RECORD_MISC_USER;
	assert_int_equal(rec_synth_mmap2(&x, &b, &m), 0);
	h = (const void *)b.data;
	assert_int_equal(h->misc, PERF_RECORD_MISC_USER);
	assert_int_equal(u32_at(b.data + 40), 8);
	assert_int_equal(u32_at(b.data + 44), 2);
	assert_int_equal(u64_at(b.data + 48), 4242);
	amb_buf_free(&b);
	ctx_free(&x);
}

static void test_maps_line(void **state)
{
	char l1[] = "00400000-00452000 r-xp 00001000 08:02 173521      /usr/bin/dbus daemon";
	char l2[] = "7ffd1000-7ffd3000 r-xp 00000000 00:00 0                  [vdso]";
	char l3[] = "7f0000000000-7f0000021000 rw-s 00000000 00:00 0 ";
	char l4[] = "garbage";
	struct rec_maps_line m;

	(void)state;
	assert_int_equal(rec_maps_parse_line(l1, &m), 0);
	assert_int_equal(m.start, 0x400000);
	assert_int_equal(m.end, 0x452000);
	assert_int_equal(m.pgoff, 0x1000);
	assert_int_equal(m.maj, 8);
	assert_int_equal(m.min, 2);
	assert_int_equal(m.ino, 173521);
	assert_int_equal(m.prot, PROT_READ | PROT_EXEC);
	assert_false(m.shared);
	assert_string_equal(m.path, "/usr/bin/dbus daemon");
	assert_int_equal(rec_maps_parse_line(l2, &m), 0);
	assert_string_equal(m.path, "[vdso]");
	assert_int_equal(rec_maps_parse_line(l3, &m), 0);
	assert_true(m.shared);
	assert_int_equal(m.prot, PROT_READ | PROT_WRITE);
	assert_string_equal(m.path, "");
	assert_int_equal(rec_maps_parse_line(l4, &m), -EINVAL);
}

/* The build-id of this test program as the dynamic loader mapped it (its
 * PT_NOTE segments in memory): an independent reading to compare libelf's
 * with.  The Makefile links unit tests with --build-id. */
static int self_note_cb(struct dl_phdr_info *info, size_t size, void *ctx)
{
	struct rec_buildid *out = ctx;

	(void)size;
	if (info->dlpi_name && info->dlpi_name[0])
		return 0;     /* the main program has an empty name */
	for (int i = 0; i < info->dlpi_phnum; i++) {
		const ElfW(Phdr) *ph = &info->dlpi_phdr[i];
		const uint8_t *p = (const uint8_t *)(info->dlpi_addr + ph->p_vaddr);
		const uint8_t *end = p + ph->p_memsz;

		if (ph->p_type != PT_NOTE)
			continue;
		while (p + 12 <= end) {
			uint32_t namesz, descsz, type;

			memcpy(&namesz, p, 4);
			memcpy(&descsz, p + 4, 4);
			memcpy(&type, p + 8, 4);
			if (type == NT_GNU_BUILD_ID && namesz == 4 && !memcmp(p + 12, "GNU", 4) &&
			    descsz <= sizeof(out->id)) {
				out->len = (uint8_t)descsz;
				memcpy(out->id, p + 16, descsz);
				return 1;
			}
			p += 12 + ((namesz + 3) & ~3u) + ((descsz + 3) & ~3u);
		}
	}
	return 1;
}

static void self_build_id(struct rec_buildid *out)
{
	memset(out, 0, sizeof(*out));
	dl_iterate_phdr(self_note_cb, out);
	if (!out->len)
		fail_msg("this test program has no NT_GNU_BUILD_ID note (link it with -Wl,--build-id)");
}

/* Our own process: COMM for this thread, MMAP2 for our executable with
 * the build-id libelf reads from it, and a BUILDID entry for it. */
static void test_self(void **state)
{
	struct amb_buf b = AMB_BUF_INIT, bids = AMB_BUF_INIT;
	struct rec_synth_ctx x;
	struct rec_buildid exe_bid, mine;
	struct amb_cursor c;
	struct amb_buildid_entry be;
	char exe[4096];
	ssize_t n = readlink("/proc/self/exe", exe, sizeof(exe) - 1);
	bool comm = false, mmap = false, listed = false;

	(void)state;
	assert_true(n > 0);
	exe[n] = '\0';
	self_build_id(&mine);
	assert_int_equal(rec_buildid_from_file(exe, &exe_bid), 0);
	assert_int_equal(exe_bid.len, mine.len);
	assert_memory_equal(exe_bid.id, mine.id, mine.len);
	ctx_init(&x, &bids);
	assert_int_equal(rec_synth_process(&x, &b, getpid()), 0);
	for (size_t o = 0; o < b.len;) {
		const struct perf_event_header *h = (const void *)(b.data + o);

		assert_true(h->size >= 8 && o + h->size <= b.len);
		if (h->type == PERF_RECORD_COMM && u32_at(b.data + o + 12) == (uint32_t)getpid())
			comm = true;
		if (h->type == PERF_RECORD_MMAP2 && !strcmp((const char *)b.data + o + 72, exe)) {
			assert_true(h->misc & PERF_RECORD_MISC_MMAP_BUILD_ID);
			assert_int_equal(b.data[o + 40], exe_bid.len);
			assert_memory_equal(b.data + o + 44, exe_bid.id, exe_bid.len);
			mmap = true;
		}
		o += h->size;
	}
	assert_true(comm);
	assert_true(mmap);
	amb_cursor_init(&c, bids.data, bids.len);
	while (amb_buildid_next(&c, &be) == 1)
		if (be.path_len == strlen(exe) && !memcmp(be.path, exe, be.path_len)) {
			assert_int_equal(be.kind, AMB_DSO_USER);
			assert_memory_equal(be.build_id, exe_bid.id, exe_bid.len);
			listed = true;
		}
	assert_true(listed);
	/* a process that does not exist adds nothing and is no error */
	n = (ssize_t)b.len;
	assert_int_equal(rec_synth_process(&x, &b, 0x3fffffff), 0);
	assert_int_equal(b.len, (size_t)n);
	amb_buf_free(&b);
	amb_buf_free(&bids);
	ctx_free(&x);
}

static size_t put_note(uint8_t *p, uint32_t type, const char *name, const uint8_t *desc,
		       uint32_t descsz)
{
	uint32_t namesz = (uint32_t)strlen(name) + 1;
	size_t np = (namesz + 3) & ~3u, dp = (descsz + 3) & ~3u;

	memcpy(p, &namesz, 4);
	memcpy(p + 4, &descsz, 4);
	memcpy(p + 8, &type, 4);
	memset(p + 12, 0, np + dp);
	memcpy(p + 12, name, namesz);
	memcpy(p + 12 + np, desc, descsz);
	return 12 + np + dp;
}

static void test_notes(void **state)
{
	uint8_t buf[256], id[20], other[6] = { 1, 2, 3, 4, 5, 6 };
	struct rec_buildid bid;
	size_t n = 0;

	(void)state;
	for (int i = 0; i < 20; i++)
		id[i] = (uint8_t)i;
	n += put_note(buf + n, 1, "Linux", other, sizeof(other));
	n += put_note(buf + n, 3, "GNU", id, sizeof(id));
	assert_int_equal(rec_buildid_from_notes(buf, n, &bid), 0);
	assert_int_equal(bid.len, 20);
	assert_memory_equal(bid.id, id, 20);
	/* truncated inside the descriptor */
	assert_int_equal(rec_buildid_from_notes(buf, n - 8, &bid), -ENOENT);
	assert_int_equal(bid.len, 0);
	/* a descsz beyond the buffer */
	memset(buf + 4, 0xff, 4);
	assert_int_equal(rec_buildid_from_notes(buf, n, &bid), -ENOENT);
	assert_int_equal(rec_buildid_from_file("/nonexistent/file", &bid), -ENOENT);
	assert_int_equal(rec_buildid_from_file("/proc/self/status", &bid), -EINVAL);
}

/* A process that exits while we synthesize it is skipped, not an error:
 * a zombie (exited, not reaped) still has a task and a comm but no maps;
 * a reaped one has nothing left in /proc. */
static void test_exited_process(void **state)
{
	struct amb_buf b = AMB_BUF_INIT, bids = AMB_BUF_INIT;
	struct rec_synth_ctx x;
	int wstatus;
	pid_t pid;

	(void)state;
	ctx_init(&x, &bids);
	pid = fork();
	assert_true(pid >= 0);
	if (!pid)
		_exit(0);
	/* A zombie once /proc/PID/stat says Z (the exit is asynchronous). */
	for (int i = 0; i < 1000; i++) {
		char path[64], *st;

		snprintf(path, sizeof(path), "/proc/%d/stat", (int)pid);
		st = amb_read_file(path, 4096, NULL);
		if (st && strstr(st, ") Z ")) {
			free(st);
			break;
		}
		free(st);
		usleep(1000);
	}
	assert_int_equal(rec_synth_process(&x, &b, pid), 0);
	for (size_t o = 0; o < b.len;) {
		const struct perf_event_header *h = (const void *)(b.data + o);

		assert_true(h->size >= 8 && o + h->size <= b.len);
		assert_int_not_equal(h->type, PERF_RECORD_MMAP2);
		o += h->size;
	}
	assert_int_equal(waitpid(pid, &wstatus, 0), pid);
	amb_buf_reset(&b);
	assert_int_equal(rec_synth_process(&x, &b, pid), 0);
	assert_int_equal(b.len, 0);
	amb_buf_free(&b);
	amb_buf_free(&bids);
	ctx_free(&x);
}

/* A mapped file replaced by a FIFO (nobody writing) must not block the
 * recorder: it is no ELF file.  alarm() turns a hang into a failure. */
static void test_buildid_fifo(void **state)
{
	char dir[] = "/tmp/amber-test-fifo-XXXXXX", path[64];
	struct rec_buildid bid;

	(void)state;
	assert_non_null(mkdtemp(dir));
	snprintf(path, sizeof(path), "%s/fifo", dir);
	assert_int_equal(mkfifo(path, 0600), 0);
	alarm(10);
	assert_int_equal(rec_buildid_from_file(path, &bid), -EINVAL);
	alarm(0);
	assert_int_equal(bid.len, 0);
	unlink(path);
	rmdir(dir);
}

static void test_cache(void **state)
{
	struct rec_buildid_cache *c = rec_buildid_cache_new();
	struct rec_buildid a, b;
	struct stat st;

	(void)state;
	assert_non_null(c);
	assert_int_equal(stat("/proc/self/exe", &st), 0);
	self_build_id(&b);
	assert_int_equal(rec_buildid_cache_get(c, st.st_dev, st.st_ino, "/proc/self/exe", &a), 0);
	assert_int_equal(a.len, b.len);
	assert_memory_equal(a.id, b.id, b.len);
	/* a second lookup of the same file does not open the path again */
	assert_int_equal(rec_buildid_cache_get(c, st.st_dev, st.st_ino, "/nonexistent", &b), 0);
	assert_int_equal(a.len, b.len);
	assert_memory_equal(a.id, b.id, a.len);
	/* misses are cached too */
	assert_int_equal(rec_buildid_cache_get(c, 1, 2, "/nonexistent", &b), -ENOENT);
	assert_int_equal(rec_buildid_cache_get(c, 1, 2, "/proc/self/exe", &b), -ENOENT);
	rec_buildid_cache_free(c);
}

static void test_kallsyms(void **state)
{
	static const char text[] =
		"ffffffff81000000 T _text\n"
		"ffffffff81000100 T _stext_not\n"
		"ffffffff81000200 T _stext\n"
		"ffffffff82000000 T _etext\n"
		"ffffffffc0001000 t foo\t[ext4]\n";
	static const char mods[] =
		"ext4 1000000 2 - Live 0xffffffffc0000000\n"
		"hidden 4096 0 - Live 0x0000000000000000\n"
		"crc32c_intel 24576 3 - Live 0xffffffffc0200000 (E)\n";
	struct rec_module *m;
	uint64_t a;

	(void)state;
	assert_int_equal(amb_kallsyms_find(text, strlen(text), "_stext", &a), 0);
	assert_int_equal(a, 0xffffffff81000200ull);
	assert_int_equal(amb_kallsyms_find(text, strlen(text), "_etext", &a), 0);
	assert_int_equal(a, 0xffffffff82000000ull);
	assert_int_equal(amb_kallsyms_find(text, strlen(text), "foo", &a), 0);
	assert_int_equal(a, 0xffffffffc0001000ull);
	assert_int_equal(amb_kallsyms_find(text, strlen(text), "_end", &a), -ENOENT);
	assert_int_equal(rec_modules_parse(mods, strlen(mods), &m), 2);
	assert_string_equal(m[0].name, "ext4");
	assert_int_equal(m[0].addr, 0xffffffffc0000000ull);
	assert_int_equal(m[0].size, 1000000);
	assert_string_equal(m[1].name, "crc32c_intel");
	free(m);
}

/* A dependency list longer than any fixed line buffer must not lose its
 * module, nor the line after it. */
static void test_modules_long_line(void **state)
{
	struct amb_buf t = AMB_BUF_INIT;
	struct rec_module *m;

	(void)state;
	assert_int_equal(amb_buf_printf(&t, "nf_conntrack 172032 6 "), 0);
	for (int i = 0; i < 60; i++)
		assert_int_equal(amb_buf_printf(&t, "dependent_module_%02d,", i), 0);
	assert_int_equal(amb_buf_printf(&t, " Live 0xffffffffc0400000\n"), 0);
	assert_int_equal(amb_buf_printf(&t, "ext4 1000000 2 - Live 0xffffffffc0000000\n"), 0);
	assert_true(t.len > 1024);
	assert_int_equal(rec_modules_parse((const char *)t.data, t.len, &m), 2);
	assert_string_equal(m[0].name, "nf_conntrack");
	assert_int_equal(m[0].size, 172032);
	assert_int_equal(m[0].addr, 0xffffffffc0400000ull);
	assert_string_equal(m[1].name, "ext4");
	free(m);
	amb_buf_free(&t);
}

static void test_kallsyms_padding(void **state)
{
	char text[] = "ffffffff81000000 T _stext\n"
		      "ffffffff81000010 t __pfx_foo\n"
		      "ffffffff81000020 t foo\n"
		      "ffffffff81000030 t __pfx_bar\t[mod]\n"
		      "ffffffff81000040 t bar\t[mod]\n"
		      "ffffffff81000050 T __pfx_last";
	size_t len;

	(void)state;
	len = rec_kallsyms_drop_padding(text, strlen(text));
	assert_string_equal(text, "ffffffff81000000 T _stext\n"
				  "ffffffff81000020 t foo\n"
				  "ffffffff81000040 t bar\t[mod]\n");
	assert_int_equal(len, strlen(text));
	/* Lines that are not "ADDR TYPE NAME" stay. */
	char odd[] = "garbage\n__pfx_x\n";
	assert_int_equal(rec_kallsyms_drop_padding(odd, strlen(odd)), strlen("garbage\n__pfx_x\n"));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_records),
		cmocka_unit_test(test_mmap2_no_buildid),
		cmocka_unit_test(test_maps_line),
		cmocka_unit_test(test_self),
		cmocka_unit_test(test_notes),
		cmocka_unit_test(test_exited_process),
		cmocka_unit_test(test_buildid_fifo),
		cmocka_unit_test(test_cache),
		cmocka_unit_test(test_kallsyms),
		cmocka_unit_test(test_kallsyms_padding),
		cmocka_unit_test(test_modules_long_line),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
