// SPDX-License-Identifier: MIT
/*
 * analyze/replay/perfdata.c - read a perf.data file as `perf record`
 * writes it (tools/perf/util/header.c, Documentation/perf.data-file-format.txt):
 *
 *   file header (104 bytes): magic "PERFILE2", header size, attr entry
 *   size, the attrs / data / event_types sections {u64 offset, u64 size},
 *   a 256-bit feature bitmap;
 *   attrs: entries of perf_event_attr + {offset, size} of its u64 ids;
 *   data: the records, kernel ones and perf's own (types >= 64);
 *   features: after the data, one {offset, size} per bit set, in bit order.
 *
 * The byte order is the magic's: "PERFILE2" read as a little-endian u64
 * on a little-endian file.  Every number of the header, the attrs and the
 * features is in that order; records are handed on unchanged.
 */
#include <byteswap.h>
#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>
#include <zstd.h>

#include "analyze/replay/perf_record.h"
#include "analyze/replay/perfdata.h"
#include "analyze/replay/replay.h"
#include "common/util.h"
#include <amber/common.h>

#define PERF_MAGIC2   0x32454c4946524550ull  /* "PERFILE2" as a little-endian u64 */
#define FILE_HDR_SIZE 104u
#define ATTR_MAX      512u
#define IDS_MAX       (1u << 20)             /* of all attrs: far more than CPUs x threads */
#define STR_MAX       (1u << 20)             /* one string of a feature section */
#define DECOMP_MAX    (256u << 20)           /* one compressed record, expanded */

/* Feature bits (tools/perf/util/header.h). */
enum {
	FEAT_TRACING_DATA = 1, FEAT_BUILD_ID = 2, FEAT_HOSTNAME = 3, FEAT_OSRELEASE = 4,
	FEAT_VERSION = 5, FEAT_ARCH = 6, FEAT_NRCPUS = 7, FEAT_CPUDESC = 8, FEAT_CPUID = 9,
	FEAT_TOTAL_MEM = 10, FEAT_CMDLINE = 11, FEAT_EVENT_DESC = 12, FEAT_CPU_TOPOLOGY = 13,
	FEAT_NUMA_TOPOLOGY = 14, FEAT_SAMPLE_TIME = 21, FEAT_CLOCKID = 23, FEAT_COMPRESSED = 27,
	FEAT_CLOCK_DATA = 29, FEAT_BITS = 256,
};

struct kvlist {
	struct ana_perfdata_kv *v;
	size_t n, cap;
};

struct ana_perfdata {
	const uint8_t *base;
	size_t size;
	void *map;
	size_t map_len;
	bool swap;
	uint64_t data_off, data_size;
	struct ana_perfdata_attr *attrs;
	size_t nr_attrs;
	struct kvlist kv[3];
	struct ana_perfdata_buildid *bids;
	size_t nr_bids, cap_bids;
	uint16_t machine;
	uint8_t word_size;
	uint32_t nr_cpus_avail;
	uint64_t feat[FEAT_BITS / 64];
	struct { uint64_t id; char *name; } *tp_ids;  /* tracepoint id -> "sys:name" */
	size_t nr_tp_ids, cap_tp_ids;
};

/* A bounds-checked cursor over a section, in the file's byte order. */
struct cur {
	const uint8_t *p;
	size_t len, pos;
	bool swap;
	bool bad;
};

static uint16_t fix16(bool swap, uint16_t v) { return swap ? bswap_16(v) : v; }
static uint32_t fix32(bool swap, uint32_t v) { return swap ? bswap_32(v) : v; }
static uint64_t fix64(bool swap, uint64_t v) { return swap ? bswap_64(v) : v; }

static uint32_t ld32(const uint8_t *p, bool swap)
{
	uint32_t v;

	memcpy(&v, p, 4);
	return fix32(swap, v);
}

static uint64_t ld64(const uint8_t *p, bool swap)
{
	uint64_t v;

	memcpy(&v, p, 8);
	return fix64(swap, v);
}

static const uint8_t *cur_take(struct cur *c, size_t n)
{
	const uint8_t *p;

	if (c->bad || n > c->len - c->pos) {
		c->bad = true;
		return NULL;
	}
	p = c->p + c->pos;
	c->pos += n;
	return p;
}

static uint32_t cur_u32(struct cur *c)
{
	const uint8_t *p = cur_take(c, 4);

	return p ? ld32(p, c->swap) : 0;
}

static uint64_t cur_u64(struct cur *c)
{
	const uint8_t *p = cur_take(c, 8);

	return p ? ld64(p, c->swap) : 0;
}

/* perf's do_write_string(): u32 length (padding included), then the
 * NUL-terminated, zero-padded string.  Returns a heap copy or NULL. */
static char *cur_string(struct cur *c)
{
	uint32_t n = cur_u32(c);
	const uint8_t *p;

	if (c->bad || n > STR_MAX || !(p = cur_take(c, n))) {
		c->bad = true;
		return NULL;
	}
	return strndup((const char *)p, n);
}

/* ---- key/values --------------------------------------------------------------- */

static int kv_add(struct kvlist *l, const char *key, const char *val, size_t len)
{
	struct ana_perfdata_kv *e;

	if (amb_ensure_cap((void **)&l->v, &l->cap, sizeof(*l->v), l->n + 1))
		return -ENOMEM;
	e = &l->v[l->n];
	e->key = strdup(key);
	e->val = malloc(len + 1);
	if (!e->key || !e->val) {
		free(e->key);
		free(e->val);
		return -ENOMEM;
	}
	memcpy(e->val, val, len);
	e->val[len] = '\0';
	e->len = len;
	l->n++;
	return 0;
}

static int kv_addf(struct kvlist *l, const char *key, const char *fmt, ...) AMB_PRINTF(3, 4);
static int kv_addf(struct kvlist *l, const char *key, const char *fmt, ...)
{
	char buf[128];
	va_list ap;
	int n;

	va_start(ap, fmt);
	n = vsnprintf(buf, sizeof(buf), fmt, ap);
	va_end(ap);
	return kv_add(l, key, buf, (size_t)AMB_MIN(n, (int)sizeof(buf) - 1));
}

/* ---- feature sections ------------------------------------------------------- */

static uint16_t arch_machine(const char *arch, uint8_t *word)
{
	static const struct { const char *name; uint16_t machine; uint8_t word; } tab[] = {
		{ "x86_64", 62, 8 }, { "aarch64", 183, 8 }, { "arm64", 183, 8 },
		{ "i386", 3, 4 }, { "i686", 3, 4 }, { "x86", 3, 4 }, { "arm", 40, 4 },
		{ "ppc64le", 21, 8 }, { "ppc64", 21, 8 }, { "powerpc", 20, 4 },
		{ "s390x", 22, 8 }, { "s390", 22, 8 }, { "riscv64", 243, 8 },
		{ "mips", 8, 4 }, { "mips64", 8, 8 }, { "loongarch64", 258, 8 },
		{ "sparc64", 43, 8 },
	};

	for (size_t i = 0; i < AMB_ARRAY_SIZE(tab); i++) {
		if (!strcmp(arch, tab[i].name)) {
			*word = tab[i].word;
			return tab[i].machine;
		}
	}
	if (!strncmp(arch, "armv", 4)) {
		*word = 4;
		return 40;
	}
	return 0;
}

/* A feature holding one string, stored as META @key. */
static int feat_string(struct ana_perfdata *pd, struct cur *c, const char *key)
{
	char *s = cur_string(c);
	int err;

	if (!s)
		return c->bad ? -AMB_E_CORRUPT : -ENOMEM;
	err = kv_add(&pd->kv[ANA_PERFDATA_META], key, s, strlen(s));
	if (!err && !strcmp(key, "uname.machine")) {
		uint8_t w = 8;
		uint16_t m = arch_machine(s, &w);

		if (m) {
			pd->machine = m;
			pd->word_size = w;
		}
	}
	free(s);
	return err;
}

static int feat_cmdline(struct ana_perfdata *pd, struct cur *c)
{
	uint32_t n = cur_u32(c);
	struct amb_buf b = AMB_BUF_INIT;
	int err = 0;

	for (uint32_t i = 0; i < n && !c->bad && !err; i++) {
		char *s = cur_string(c);

		if (!s)
			break;
		if ((i && amb_buf_append(&b, " ", 1)) || amb_buf_append(&b, s, strlen(s)))
			err = -ENOMEM;
		free(s);
	}
	if (!err && !c->bad)
		err = kv_add(&pd->kv[ANA_PERFDATA_META], "cmdline", b.data ? (char *)b.data : "", b.len);
	amb_buf_free(&b);
	return err ? err : c->bad ? -AMB_E_CORRUPT : 0;
}

/*
 * HEADER_BUILD_ID: perf_record_header_build_id entries { header, pid,
 * build_id[24] (20 bytes, size, 3 reserved), filename[] }.
 */
static int feat_build_id(struct ana_perfdata *pd, struct cur *c)
{
	while (c->len - c->pos >= 8 + 4 + 24) {
		const uint8_t *h = c->p + c->pos;
		uint16_t misc, size;
		struct ana_perfdata_buildid *b;
		size_t flen;

		memcpy(&misc, h + 4, 2);
		memcpy(&size, h + 6, 2);
		misc = fix16(c->swap, misc);
		size = fix16(c->swap, size);
		if (size < 36 || size > c->len - c->pos)
			return -AMB_E_CORRUPT;
		if (amb_ensure_cap((void **)&pd->bids, &pd->cap_bids, sizeof(*pd->bids),
				   pd->nr_bids + 1))
			return -ENOMEM;
		b = &pd->bids[pd->nr_bids];
		memset(b, 0, sizeof(*b));
		memcpy(b->build_id, h + 12, 20);
		/* PERF_RECORD_MISC_BUILD_ID_SIZE: the size byte is valid. */
		b->size = (misc & (1u << 15)) ? AMB_MIN(h[32], 20) : 20;
		flen = strnlen((const char *)h + 36, size - 36u);
		b->path = strndup((const char *)h + 36, flen);
		if (!b->path)
			return -ENOMEM;
		switch (misc & PERF_RECORD_MISC_CPUMODE_MASK) {
		case PERF_RECORD_MISC_KERNEL:
		case PERF_RECORD_MISC_GUEST_KERNEL:
			b->kind = !strcmp(b->path, "[kernel.kallsyms]") ? AMB_DSO_KERNEL : AMB_DSO_MODULE;
			break;
		default:
			b->kind = !strcmp(b->path, "[vdso]") ? AMB_DSO_VDSO : AMB_DSO_USER;
		}
		pd->nr_bids++;
		c->pos += size;
	}
	return 0;
}

/* HEADER_EVENT_DESC: u32 nr, u32 attr size, then per event the attr,
 * u32 nr_ids, the name string and the ids.  Only names are taken: the
 * attrs section has the rest. */
static int feat_event_desc(struct ana_perfdata *pd, struct cur *c)
{
	uint32_t nr = cur_u32(c), sz = cur_u32(c);

	for (uint32_t i = 0; i < nr && !c->bad; i++) {
		uint32_t nids;
		char *name;

		cur_take(c, sz);
		nids = cur_u32(c);
		name = cur_string(c);
		if (!name)
			break;
		if (nids > (c->len - c->pos) / 8) {
			free(name);
			c->bad = true;
			break;
		}
		cur_take(c, 8u * nids);
		if (i < pd->nr_attrs && *name) {
			free(pd->attrs[i].name);
			pd->attrs[i].name = name;
		} else {
			free(name);
		}
	}
	return c->bad ? -AMB_E_CORRUPT : 0;
}

static int feat_nrcpus(struct ana_perfdata *pd, struct cur *c)
{
	uint32_t avail = cur_u32(c), online = cur_u32(c);

	if (c->bad)
		return -AMB_E_CORRUPT;
	pd->nr_cpus_avail = avail;
	if (kv_addf(&pd->kv[ANA_PERFDATA_META], "nr_cpus.available", "%u", avail) ||
	    kv_addf(&pd->kv[ANA_PERFDATA_META], "nr_cpus.online", "%u", online))
		return -ENOMEM;
	return 0;
}

/* Skip @n strings; false when the section ends first. */
static bool skip_strings(struct cur *c, uint32_t n)
{
	for (uint32_t i = 0; i < n && !c->bad; i++) {
		uint32_t len = cur_u32(c);

		cur_take(c, len);
	}
	return !c->bad;
}

/*
 * HEADER_CPU_TOPOLOGY: core and thread sibling lists, then (perf >= 4.x)
 * core_id and socket_id of each available CPU, then die siblings and
 * die ids.  Each part is optional at the end of the section.
 */
static int feat_cpu_topology(struct ana_perfdata *pd, struct cur *c)
{
	struct kvlist *t = &pd->kv[ANA_PERFDATA_TOPOLOGY];
	uint32_t ncpu = AMB_MIN(pd->nr_cpus_avail, 65536u);
	char key[64];

	if (!skip_strings(c, cur_u32(c)) || !skip_strings(c, cur_u32(c)))
		return -AMB_E_CORRUPT;
	if (c->pos == c->len || (size_t)ncpu * 8 > c->len - c->pos)
		return 0;
	for (uint32_t i = 0; i < ncpu; i++) {
		uint32_t core = cur_u32(c), socket = cur_u32(c);

		snprintf(key, sizeof(key), "cpu.%u.core", i);
		if (kv_addf(t, key, "%d", (int32_t)core))
			return -ENOMEM;
		snprintf(key, sizeof(key), "cpu.%u.package", i);
		if (kv_addf(t, key, "%d", (int32_t)socket))
			return -ENOMEM;
	}
	if (c->pos == c->len || !skip_strings(c, cur_u32(c)) ||
	    (size_t)ncpu * 4 > c->len - c->pos)
		return 0;
	for (uint32_t i = 0; i < ncpu; i++) {
		snprintf(key, sizeof(key), "cpu.%u.die", i);
		if (kv_addf(t, key, "%d", (int32_t)cur_u32(c)))
			return -ENOMEM;
	}
	return 0;
}

/* Each CPU of the list @s gets cpu.N.node = @node; at most *@budget CPUs
 * in all, whatever a damaged file lists. */
static int node_cpus(struct kvlist *t, const char *s, uint32_t node, unsigned *budget)
{
	char key[64];

	while (*s) {
		char *end;
		unsigned long a = strtoul(s, &end, 10), b = a;

		if (end == s)
			return 0;
		if (*end == '-')
			b = strtoul(end + 1, &end, 10);
		if (b < a || b >= 65536 || b - a >= *budget)
			return 0;
		*budget -= (unsigned)(b - a + 1);
		for (unsigned long i = a; i <= b; i++) {
			snprintf(key, sizeof(key), "cpu.%lu.node", i);
			if (kv_addf(t, key, "%u", node))
				return -ENOMEM;
		}
		s = *end == ',' ? end + 1 : end;
		if (*end && *end != ',')
			return 0;
	}
	return 0;
}

/* HEADER_NUMA_TOPOLOGY: u32 nr, then { u32 node, u64 mem_total (KiB),
 * u64 mem_free, string cpus }. */
static int feat_numa_topology(struct ana_perfdata *pd, struct cur *c)
{
	struct kvlist *t = &pd->kv[ANA_PERFDATA_TOPOLOGY];
	uint32_t nr = cur_u32(c);
	unsigned budget = 65536;
	char key[64];

	for (uint32_t i = 0; i < nr && !c->bad; i++) {
		uint32_t node = cur_u32(c);
		uint64_t total = cur_u64(c);
		char *cpus;
		int err;

		cur_u64(c);
		cpus = cur_string(c);
		if (!cpus)
			break;
		snprintf(key, sizeof(key), "node.%u.cpus", node);
		err = kv_add(t, key, cpus, strlen(cpus));
		snprintf(key, sizeof(key), "node.%u.mem_total", node);
		if (!err)
			err = kv_addf(t, key, "%llu", (unsigned long long)total * 1024);
		if (!err)
			err = node_cpus(t, cpus, node, &budget);
		free(cpus);
		if (err)
			return err;
	}
	return c->bad ? -AMB_E_CORRUPT : 0;
}

static int feat_sample_time(struct ana_perfdata *pd, struct cur *c)
{
	uint64_t first = cur_u64(c), last = cur_u64(c);

	if (c->bad)
		return -AMB_E_CORRUPT;
	if (kv_addf(&pd->kv[ANA_PERFDATA_META], "time.start_ns", "%llu", (unsigned long long)first) ||
	    kv_addf(&pd->kv[ANA_PERFDATA_META], "time.end_ns", "%llu", (unsigned long long)last))
		return -ENOMEM;
	return 0;
}

static const char *clock_name(uint32_t clockid)
{
	switch (clockid) {
	case 0: return "realtime";
	case 1: return "monotonic";
	case 4: return "monotonic_raw";
	case 7: return "boottime";
	case 11: return "tai";
	default: return NULL;
	}
}

/* HEADER_CLOCK_DATA (perf record -k): u32 version, u32 clockid, then one
 * instant as u64 time of day and u64 clockid time, in ns. */
static int feat_clock_data(struct ana_perfdata *pd, struct cur *c)
{
	struct kvlist *m = &pd->kv[ANA_PERFDATA_META];
	uint32_t version = cur_u32(c), clockid = cur_u32(c);
	uint64_t tod = cur_u64(c), clk = cur_u64(c);
	const char *name = clock_name(clockid);

	if (c->bad || version != 1)
		return c->bad ? -AMB_E_CORRUPT : 0;
	if ((name && kv_add(m, "clock", name, strlen(name))) ||
	    kv_addf(m, "clock.ref.perf_ns", "%llu", (unsigned long long)clk) ||
	    kv_addf(m, "clock.ref.realtime_ns", "%llu", (unsigned long long)tod))
		return -ENOMEM;
	return 0;
}

/* The "name: X" and "ID: N" lines of a tracefs format file. */
static void format_name_id(const char *text, size_t len, char *name, size_t nlen, uint64_t *id)
{
	const char *end = text + len, *p = text;

	*name = '\0';
	*id = UINT64_MAX;
	while (p < end) {
		const char *nl = memchr(p, '\n', (size_t)(end - p));
		size_t l = nl ? (size_t)(nl - p) : (size_t)(end - p);

		if (l > 6 && !memcmp(p, "name: ", 6))
			snprintf(name, nlen, "%.*s", (int)(l - 6), p + 6);
		else if (l > 4 && !memcmp(p, "ID: ", 4))
			*id = strtoull(p + 4, NULL, 10);
		p += l + 1;
	}
}

/* One format file of system @sys: TRACEFS key "sys/name". */
static int add_format(struct ana_perfdata *pd, const char *sys, const uint8_t *text, size_t len)
{
	char name[128], key[300];
	uint64_t id;

	format_name_id((const char *)text, len, name, sizeof(name), &id);
	if (!*name)
		return 0;
	snprintf(key, sizeof(key), "%s/%s", sys, name);
	if (kv_add(&pd->kv[ANA_PERFDATA_TRACEFS], key, (const char *)text, len))
		return -ENOMEM;
	if (id != UINT64_MAX) {
		if (amb_ensure_cap((void **)&pd->tp_ids, &pd->cap_tp_ids, sizeof(*pd->tp_ids),
				   pd->nr_tp_ids + 1))
			return -ENOMEM;
		snprintf(key, sizeof(key), "%s:%s", sys, name);
		pd->tp_ids[pd->nr_tp_ids].id = id;
		pd->tp_ids[pd->nr_tp_ids].name = strdup(key);
		if (!pd->tp_ids[pd->nr_tp_ids].name)
			return -ENOMEM;
		pd->nr_tp_ids++;
	}
	return 0;
}

/* A NUL-terminated string of the tracing data, or NULL. */
static const char *cur_cstr(struct cur *c)
{
	const uint8_t *s = c->p + c->pos;
	size_t n;

	if (c->bad)
		return NULL;
	n = strnlen((const char *)s, c->len - c->pos);
	if (n == c->len - c->pos) {
		c->bad = true;
		return NULL;
	}
	c->pos += n + 1;
	return (const char *)s;
}

/*
 * HEADER_TRACING_DATA, as perf's trace-event-info.c writes it: magic
 * "\027\010\104tracing", version string, endianness, long size, page
 * size, header_page and header_event, ftrace formats, per system the
 * event formats, kallsyms (perf writes none) and ftrace_printk.  Its
 * numbers are in the byte order its own endian byte names.
 */
static int feat_tracing_data(struct ana_perfdata *pd, struct cur *c0)
{
	static const uint8_t magic[10] = { 0x17, 0x08, 0x44, 't', 'r', 'a', 'c', 'i', 'n', 'g' };
	struct cur c = { c0->p, c0->len, 0, false, false };
	const uint8_t *m = cur_take(&c, 10), *b;
	const char *version, *s;
	uint32_t n, page_size;
	int err;

	if (!m || memcmp(m, magic, 10))
		return -AMB_E_CORRUPT;
	version = cur_cstr(&c);
	b = cur_take(&c, 2);
	if (!version || !b)
		return -AMB_E_CORRUPT;
	c.swap = (b[0] != 0) == amb_host_is_le();
	page_size = cur_u32(&c);
	if (!c.bad && kv_addf(&pd->kv[ANA_PERFDATA_META], "page_size", "%u", page_size))
		return -ENOMEM;
	for (int i = 0; i < 2; i++) {
		const char *want = i ? "header_event" : "header_page";
		uint64_t size;

		s = cur_cstr(&c);
		if (!s || strcmp(s, want))
			return -AMB_E_CORRUPT;
		size = cur_u64(&c);
		if (c.bad || size > c.len - c.pos)
			return -AMB_E_CORRUPT;
		if (kv_add(&pd->kv[ANA_PERFDATA_TRACEFS], want, (const char *)c.p + c.pos, size))
			return -ENOMEM;
		c.pos += size;
	}
	n = cur_u32(&c);
	for (uint32_t i = 0; i < n && !c.bad; i++) {
		uint64_t size = cur_u64(&c);

		if (c.bad || size > c.len - c.pos)
			return -AMB_E_CORRUPT;
		if ((err = add_format(pd, "ftrace", c.p + c.pos, size)))
			return err;
		c.pos += size;
	}
	n = cur_u32(&c);
	for (uint32_t i = 0; i < n && !c.bad; i++) {
		const char *sys = cur_cstr(&c);
		uint32_t cnt = cur_u32(&c);

		for (uint32_t j = 0; j < cnt && !c.bad; j++) {
			uint64_t size = cur_u64(&c);

			if (c.bad || !sys || size > c.len - c.pos)
				return -AMB_E_CORRUPT;
			if ((err = add_format(pd, sys, c.p + c.pos, size)))
				return err;
			c.pos += size;
		}
	}
	/* kallsyms, ftrace_printk, saved cmdlines: not used. */
	return c.bad ? -AMB_E_CORRUPT : 0;
}

static const char *feat_name(unsigned bit)
{
	switch (bit) {
	case FEAT_TRACING_DATA: return "tracing data";
	case FEAT_BUILD_ID: return "build-ids";
	case FEAT_HOSTNAME: return "hostname";
	case FEAT_OSRELEASE: return "os release";
	case FEAT_VERSION: return "perf version";
	case FEAT_ARCH: return "arch";
	case FEAT_NRCPUS: return "nrcpus";
	case FEAT_CPUDESC: return "cpu description";
	case FEAT_CPUID: return "cpuid";
	case FEAT_CMDLINE: return "cmdline";
	case FEAT_EVENT_DESC: return "event desc";
	case FEAT_CPU_TOPOLOGY: return "cpu topology";
	case FEAT_NUMA_TOPOLOGY: return "numa topology";
	case FEAT_SAMPLE_TIME: return "sample time";
	case FEAT_CLOCK_DATA: return "clock data";
	default: return "feature";
	}
}

static int read_feature(struct ana_perfdata *pd, unsigned bit, struct cur *c)
{
	switch (bit) {
	case FEAT_TRACING_DATA: return feat_tracing_data(pd, c);
	case FEAT_BUILD_ID: return feat_build_id(pd, c);
	case FEAT_HOSTNAME: return feat_string(pd, c, "hostname");
	case FEAT_OSRELEASE: return feat_string(pd, c, "uname.release");
	case FEAT_VERSION: return feat_string(pd, c, "perf.version");
	case FEAT_ARCH: return feat_string(pd, c, "uname.machine");
	case FEAT_NRCPUS: return feat_nrcpus(pd, c);
	case FEAT_CPUDESC: return feat_string(pd, c, "cpu.model");
	case FEAT_CPUID: return feat_string(pd, c, "cpu.cpuid");
	case FEAT_CMDLINE: return feat_cmdline(pd, c);
	case FEAT_EVENT_DESC: return feat_event_desc(pd, c);
	case FEAT_CPU_TOPOLOGY: return feat_cpu_topology(pd, c);
	case FEAT_NUMA_TOPOLOGY: return feat_numa_topology(pd, c);
	case FEAT_SAMPLE_TIME: return feat_sample_time(pd, c);
	case FEAT_CLOCK_DATA: return feat_clock_data(pd, c);
	default: return 0;
	}
}

/*
 * The feature sections follow the data: one {offset, size} per bit set.
 * A section that lies outside the file or does not parse is warned about
 * and skipped; the others are still read.
 */
static int read_features(struct ana_perfdata *pd)
{
	uint64_t at = pd->data_off + pd->data_size;
	unsigned nsec = 0;
	int err;

	for (unsigned bit = 0; bit < FEAT_BITS; bit++)
		nsec += (pd->feat[bit / 64] >> (bit % 64)) & 1;
	if (!nsec)
		return 0;
	if (at > pd->size || (uint64_t)nsec * 16 > pd->size - at) {
		amb_warn("perf.data: the feature sections (%u, at offset %llu) lie past the end of "
			 "the file (%zu bytes): the file is cut short; build-ids, hostname, event "
			 "names and tracepoint formats are missing", nsec,
			 (unsigned long long)at, pd->size);
		return 0;
	}
	/* Bit order: NRCPUS before CPU_TOPOLOGY, ATTRS-dependent EVENT_DESC after. */
	for (unsigned bit = 0, k = 0; bit < FEAT_BITS; bit++) {
		const uint8_t *e;
		uint64_t off, size;
		struct cur c;

		if (!((pd->feat[bit / 64] >> (bit % 64)) & 1))
			continue;
		e = pd->base + at + 16ull * k++;
		off = ld64(e, pd->swap);
		size = ld64(e + 8, pd->swap);
		if (off > pd->size || size > pd->size - off) {
			amb_warn("perf.data: %s section (feature %u) at offset %llu, %llu bytes, lies "
				 "past the end of the file; skipped", feat_name(bit), bit,
				 (unsigned long long)off, (unsigned long long)size);
			continue;
		}
		c = (struct cur){ pd->base + off, (size_t)size, 0, pd->swap, false };
		err = read_feature(pd, bit, &c);
		if (err == -ENOMEM)
			return err;
		if (err)
			amb_warn("perf.data: %s section (feature %u) at offset %llu: %s; what it "
				 "holds past the damage is left out", feat_name(bit), bit,
				 (unsigned long long)off, amb_strerror(err));
	}
	return 0;
}

/* ---- attrs ---------------------------------------------------------------------- */

/* A name for an attr without HEADER_EVENT_DESC, as perf would show it. */
static char *attr_name(const struct ana_perfdata *pd, const struct perf_event_attr *a)
{
	static const char *const hw[] = { "cycles", "instructions", "cache-references",
		"cache-misses", "branches", "branch-misses", "bus-cycles",
		"stalled-cycles-frontend", "stalled-cycles-backend", "ref-cycles" };
	static const char *const sw[] = { "cpu-clock", "task-clock", "page-faults",
		"context-switches", "cpu-migrations", "minor-faults", "major-faults",
		"alignment-faults", "emulation-faults", "dummy", "bpf-output", "cgroup-switches" };
	char buf[64];

	if (a->type == PERF_TYPE_HARDWARE && a->config < AMB_ARRAY_SIZE(hw))
		return strdup(hw[a->config]);
	if (a->type == PERF_TYPE_SOFTWARE && a->config < AMB_ARRAY_SIZE(sw))
		return strdup(sw[a->config]);
	if (a->type == PERF_TYPE_TRACEPOINT)
		for (size_t i = 0; i < pd->nr_tp_ids; i++)
			if (pd->tp_ids[i].id == a->config)
				return strdup(pd->tp_ids[i].name);
	if (a->type == PERF_TYPE_RAW)
		snprintf(buf, sizeof(buf), "r%llx", (unsigned long long)a->config);
	else
		snprintf(buf, sizeof(buf), "%u:0x%llx", a->type, (unsigned long long)a->config);
	return strdup(buf);
}

static int read_attrs(struct ana_perfdata *pd, uint64_t entry, uint64_t off, uint64_t size)
{
	size_t n;

	if (entry < 64 + 16 || entry > ATTR_MAX + 16 || off > pd->size || size > pd->size - off) {
		amb_errmsg_set("perf.data: attrs section (offset %llu, %llu bytes, entries of %llu) "
			       "lies outside the file (%zu bytes)", (unsigned long long)off,
			       (unsigned long long)size, (unsigned long long)entry, pd->size);
		return -AMB_E_CORRUPT;
	}
	n = (size_t)(size / entry);
	if (!n) {
		amb_errmsg_set("perf.data: no events in the attrs section");
		return -AMB_E_CORRUPT;
	}
	pd->attrs = calloc(n, sizeof(*pd->attrs));
	if (!pd->attrs)
		return -ENOMEM;
	for (size_t i = 0, total = 0; i < n; i++) {
		const uint8_t *e = pd->base + off + i * entry;
		struct ana_perfdata_attr *a = &pd->attrs[i];
		uint32_t asz = ld32(e + 4, pd->swap);   /* perf_event_attr.size */
		uint64_t ioff = ld64(e + entry - 16, pd->swap), isz = ld64(e + entry - 8, pd->swap);

		pd->nr_attrs++;
		if (!asz)
			asz = 64;   /* PERF_ATTR_SIZE_VER0 */
		a->attr = e;
		a->attr_size = (uint32_t)AMB_MIN((uint64_t)asz, entry - 16);
		total += isz / 8;
		if (ioff > pd->size || isz > pd->size - ioff || total > IDS_MAX) {
			amb_errmsg_set("perf.data: ids of event %zu (offset %llu, %llu bytes) lie "
				       "outside the file", i, (unsigned long long)ioff,
				       (unsigned long long)isz);
			return -AMB_E_CORRUPT;
		}
		a->nr_ids = (uint32_t)(isz / 8);
		a->ids = calloc(a->nr_ids ? a->nr_ids : 1, sizeof(*a->ids));
		if (!a->ids)
			return -ENOMEM;
		for (uint32_t j = 0; j < a->nr_ids; j++)
			a->ids[j] = ld64(pd->base + ioff + 8ull * j, pd->swap);
	}
	return 0;
}

/* ---- opening ---------------------------------------------------------------------- */

bool ana_perfdata_probe(const void *head, size_t len)
{
	uint64_t m;

	if (len < 8)
		return false;
	memcpy(&m, head, 8);
	/* Pipe mode has the same magic and a 16-byte header. */
	return m == PERF_MAGIC2 || m == bswap_64(PERF_MAGIC2);
}

bool ana_perfdata_hint(const char *path)
{
	uint8_t head[8];
	/* O_NONBLOCK: a FIFO must not wait for a writer. */
	int fd = open(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK);
	bool is;

	if (fd < 0)
		return false;
	is = read(fd, head, sizeof(head)) == (ssize_t)sizeof(head) &&
	     ana_perfdata_probe(head, sizeof(head));
	close(fd);
	if (is)
		amb_errmsg_set("%s is a perf.data file (written by perf record), not an .amber "
			       "recording: convert it with 'amber-analyze import %s -o FILE.amber'",
			       path, path);
	return is;
}

static int open_mem(struct ana_perfdata *pd)
{
	uint64_t magic, hsize, entry, aoff, asize;
	const uint8_t *h = pd->base;
	uint8_t word = sizeof(long);
	int err;

	if (pd->size < 16) {
		amb_errmsg_set("perf.data: %zu bytes, shorter than its header", pd->size);
		return -AMB_E_TRUNCATED;
	}
	memcpy(&magic, h, 8);
	if (magic != PERF_MAGIC2 && magic != bswap_64(PERF_MAGIC2)) {
		amb_errmsg_set("not a perf.data file (no PERFILE2 magic)");
		return -AMB_E_MAGIC;
	}
	pd->swap = magic != (amb_host_is_le() ? PERF_MAGIC2 : bswap_64(PERF_MAGIC2));
	hsize = ld64(h + 8, pd->swap);
	if (hsize == 16) {
		amb_errmsg_set("a pipe-mode perf.data (perf record -o -): not supported; record "
			       "to a file, or convert with 'perf inject -i IN -o OUT'");
		return -ENOTSUP;
	}
	if (hsize < FILE_HDR_SIZE || pd->size < FILE_HDR_SIZE) {
		amb_errmsg_set("perf.data: header of %llu bytes in a file of %zu: truncated or "
			       "not written by perf record", (unsigned long long)hsize, pd->size);
		return pd->size < FILE_HDR_SIZE ? -AMB_E_TRUNCATED : -ENOTSUP;
	}
	entry = ld64(h + 16, pd->swap);
	aoff = ld64(h + 24, pd->swap);
	asize = ld64(h + 32, pd->swap);
	pd->data_off = ld64(h + 40, pd->swap);
	pd->data_size = ld64(h + 48, pd->swap);
	for (int i = 0; i < FEAT_BITS / 64; i++)
		pd->feat[i] = ld64(h + 72 + 8 * i, pd->swap);
	pd->machine = arch_machine(
#if defined(__x86_64__)
		"x86_64",
#elif defined(__aarch64__)
		"aarch64",
#else
		"",
#endif
		&word);
	pd->word_size = word;
	if (pd->data_off > pd->size) {
		amb_errmsg_set("perf.data: data section at offset %llu, past the end of the file "
			       "(%zu bytes)", (unsigned long long)pd->data_off, pd->size);
		return -AMB_E_TRUNCATED;
	}
	if (pd->data_size > pd->size - pd->data_off)
		amb_warn("perf.data: the data section (%llu bytes at offset %llu) ends past the end "
			 "of the file (%zu bytes): the file is cut short; the records in it are "
			 "imported", (unsigned long long)pd->data_size,
			 (unsigned long long)pd->data_off, pd->size);
	else if (!pd->data_size && pd->size > pd->data_off)
		amb_warn("perf.data: the header says the data section is empty: perf record did "
			 "not finish the file; the records in it are imported");
	err = read_attrs(pd, entry, aoff, asize);
	if (!err && pd->data_size <= pd->size - pd->data_off && pd->data_size)
		err = read_features(pd);
	for (size_t i = 0; !err && i < pd->nr_attrs; i++) {
		struct perf_event_attr a;

		if (pd->attrs[i].name)
			continue;
		ana_attr_to_host(&a, pd->attrs[i].attr, pd->attrs[i].attr_size, pd->swap);
		pd->attrs[i].name = attr_name(pd, &a);
		if (!pd->attrs[i].name)
			err = -ENOMEM;
	}
	return err;
}

int ana_perfdata_open_mem(const void *data, size_t len, struct ana_perfdata **out)
{
	struct ana_perfdata *pd = calloc(1, sizeof(*pd));
	int err;

	*out = NULL;
	if (!pd)
		return -ENOMEM;
	pd->base = data;
	pd->size = len;
	err = open_mem(pd);
	if (err) {
		ana_perfdata_close(pd);
		return err;
	}
	*out = pd;
	return 0;
}

int ana_perfdata_open(const char *path, struct ana_perfdata **out)
{
	struct ana_perfdata *pd;
	struct stat st;
	void *map = NULL;
	int fd, err;

	*out = NULL;
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0 || fstat(fd, &st)) {
		err = -errno;
		amb_errmsg_set("%s: %s", path, strerror(errno));
		if (fd >= 0)
			close(fd);
		return err;
	}
	if (st.st_size > 0) {
		map = mmap(NULL, (size_t)st.st_size, PROT_READ, MAP_PRIVATE, fd, 0);
		if (map == MAP_FAILED) {
			err = -errno;
			amb_errmsg_set("%s: %s", path, strerror(errno));
			close(fd);
			return err;
		}
		madvise(map, (size_t)st.st_size, MADV_SEQUENTIAL);
	}
	close(fd);
	err = ana_perfdata_open_mem(map ? map : "", map ? (size_t)st.st_size : 0, &pd);
	if (err) {
		if (map)
			munmap(map, (size_t)st.st_size);
		return err;
	}
	pd->map = map;
	pd->map_len = map ? (size_t)st.st_size : 0;
	*out = pd;
	return 0;
}

void ana_perfdata_close(struct ana_perfdata *pd)
{
	if (!pd)
		return;
	for (size_t i = 0; i < pd->nr_attrs; i++) {
		free(pd->attrs[i].ids);
		free(pd->attrs[i].name);
	}
	free(pd->attrs);
	for (int k = 0; k < 3; k++) {
		for (size_t i = 0; i < pd->kv[k].n; i++) {
			free(pd->kv[k].v[i].key);
			free(pd->kv[k].v[i].val);
		}
		free(pd->kv[k].v);
	}
	for (size_t i = 0; i < pd->nr_bids; i++)
		free(pd->bids[i].path);
	free(pd->bids);
	for (size_t i = 0; i < pd->nr_tp_ids; i++)
		free(pd->tp_ids[i].name);
	free(pd->tp_ids);
	if (pd->map)
		munmap(pd->map, pd->map_len);
	free(pd);
}

bool ana_perfdata_swapped(const struct ana_perfdata *pd)
{
	return pd->swap;
}

const struct ana_perfdata_attr *ana_perfdata_attrs(const struct ana_perfdata *pd, size_t *n)
{
	*n = pd->nr_attrs;
	return pd->attrs;
}

const struct ana_perfdata_kv *ana_perfdata_kvs(const struct ana_perfdata *pd, int what, size_t *n)
{
	if (what < 0 || what > 2) {
		*n = 0;
		return NULL;
	}
	*n = pd->kv[what].n;
	return pd->kv[what].v;
}

const struct ana_perfdata_buildid *ana_perfdata_buildids(const struct ana_perfdata *pd, size_t *n)
{
	*n = pd->nr_bids;
	return pd->bids;
}

uint16_t ana_perfdata_machine(const struct ana_perfdata *pd)
{
	return pd->machine;
}

uint8_t ana_perfdata_word_size(const struct ana_perfdata *pd)
{
	return pd->word_size;
}

/* ---- the data section ------------------------------------------------------------- */

/* The walk stops at damage, which is no error of the walk. */
#define DAMAGED (-ECANCELED)

struct walk {
	struct ana_perfdata *pd;
	ana_perfdata_record_fn fn;
	void *ctx;
	struct ana_perfdata_stats *st;
	ZSTD_DStream *zd;
	struct amb_buf carry;       /* expanded bytes not yet a whole record */
};

/* Header of the record at @p: type and size, host order. */
static void rec_head(const struct ana_perfdata *pd, const uint8_t *p, uint32_t *type, uint16_t *size)
{
	uint16_t s;

	*type = ld32(p, pd->swap);
	memcpy(&s, p + 6, 2);
	*size = fix16(pd->swap, s);
}

/*
 * Hand on the whole records at the start of w->carry, keeping a partial
 * one: perf cuts its compressed chunks anywhere.  Returns the callback's
 * value, or DAMAGED for a record of size < 8.
 */
static int carry_deliver(struct walk *w)
{
	struct amb_buf *b = &w->carry;
	size_t pos = 0;
	int ret = 0;

	while (b->len - pos >= 8) {
		uint32_t type;
		uint16_t size;

		rec_head(w->pd, b->data + pos, &type, &size);
		if (size < 8) {
			amb_warn("perf.data: compressed data: record of size %u; the rest of the data "
				 "is left out", size);
			w->st->damaged = true;
			ret = DAMAGED;
			break;
		}
		if (size > b->len - pos)
			break;
		w->st->records++;
		ret = w->fn(w->ctx, b->data + pos, size, type);
		if (ret)
			break;
		pos += size;
	}
	memmove(b->data, b->data + pos, b->len - pos);
	b->len -= pos;
	return ret;
}

/* PERF_RECORD_COMPRESSED: zstd frames whose content continues the records. */
static int expand(struct walk *w, const uint8_t *p, size_t len, uint64_t off)
{
	ZSTD_inBuffer in = { p, len, 0 };
	size_t grown = 0;

	if (!w->zd) {
		w->zd = ZSTD_createDStream();
		if (!w->zd || ZSTD_isError(ZSTD_initDStream(w->zd)))
			return -ENOMEM;
	}
	w->st->compressed++;
	for (;;) {
		ZSTD_outBuffer out;
		size_t r;

		if (amb_buf_reserve(&w->carry, 1u << 20))
			return -ENOMEM;
		out = (ZSTD_outBuffer){ w->carry.data + w->carry.len, w->carry.cap - w->carry.len, 0 };
		r = ZSTD_decompressStream(w->zd, &out, &in);
		if (ZSTD_isError(r)) {
			amb_warn("perf.data: compressed record at offset %llu: %s; the rest of the "
				 "data is left out", (unsigned long long)off, ZSTD_getErrorName(r));
			w->st->damaged = true;
			return DAMAGED;
		}
		w->carry.len += out.pos;
		grown += out.pos;
		/* Hand records on as they come: memory stays one step's output. */
		if (out.pos) {
			int ret = carry_deliver(w);

			if (ret)
				return ret;
		}
		if (grown > DECOMP_MAX) {
			amb_warn("perf.data: compressed record at offset %llu expands past %u MiB; "
				 "the rest of the data is left out", (unsigned long long)off,
				 DECOMP_MAX >> 20);
			w->st->damaged = true;
			return DAMAGED;
		}
		/* A full output buffer may leave expanded bytes inside zstd. */
		if (in.pos == in.size && out.pos < out.size)
			break;
	}
	return 0;
}

int ana_perfdata_for_each(struct ana_perfdata *pd, ana_perfdata_record_fn fn, void *ctx,
			  struct ana_perfdata_stats *st)
{
	struct walk w = { pd, fn, ctx, st, NULL, AMB_BUF_INIT };
	uint64_t pos = pd->data_off, end;
	int ret = 0;

	memset(st, 0, sizeof(*st));
	end = pd->data_size ? pd->data_off + AMB_MIN(pd->data_size, pd->size - pd->data_off)
			    : pd->size;
	if (pd->data_size > pd->size - pd->data_off)
		st->damaged = true;
	while (end - pos >= 8) {
		const uint8_t *p = pd->base + pos;
		uint32_t type;
		uint16_t size;

		rec_head(pd, p, &type, &size);
		if (size < 8 || size > end - pos) {
			amb_warn("perf.data: data section: record at offset %llu (type %u, size %u) %s; "
				 "the %llu bytes from there on are left out", (unsigned long long)pos,
				 type, size, size < 8 ? "is shorter than its header" :
				 "runs past the end of the data", (unsigned long long)(end - pos));
			st->damaged = true;
			break;
		}
		st->bytes += size;
		if (type == ANA_PERF_RECORD_COMPRESSED) {
			ret = expand(&w, p + 8, size - 8u, pos);
			if (ret)
				break;
		} else {
			st->records++;
			ret = fn(ctx, p, size, type);
			if (ret)
				break;
		}
		pos += size;
		if (type == ANA_PERF_RECORD_AUXTRACE && size >= 16) {
			/* The AUX data follows the record, outside header.size. */
			uint64_t aux = ld64(p + 8, pd->swap);

			if (aux > end - pos) {
				st->damaged = true;
				break;
			}
			pos += aux;
		}
	}
	if (!ret && end - pos > 0 && end - pos < 8) {
		amb_warn("perf.data: data section ends with %llu bytes that are no record",
			 (unsigned long long)(end - pos));
		st->damaged = true;
	}
	if (!ret && w.carry.len) {
		amb_warn("perf.data: compressed data ends inside a record (%zu bytes left)",
			 w.carry.len);
		st->damaged = true;
	}
	if (ret == DAMAGED)
		ret = 0;
	ZSTD_freeDStream(w.zd);
	amb_buf_free(&w.carry);
	return ret;
}
