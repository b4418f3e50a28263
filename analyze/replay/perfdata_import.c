// SPDX-License-Identifier: MIT
/*
 * analyze/replay/perfdata_import.c - a perf.data written as an .amber
 * recording (FORMAT.md §5.9).
 *
 * Kernel records are copied byte for byte, in the perf.data's byte order
 * (the .amber file header says which); only perf's own records (types >=
 * 64: rounds, build-ids, id index ...) are left out, their content being
 * in the tables.  perf writes the records of all CPUs into one data
 * section, each pass over the rings closed by a FINISHED_ROUND, and sorts
 * them by time when it reads them; the importer does the same at each
 * round and then splits them into one RING stream per CPU, so that the
 * session's merge gives perf's order back.  Records perf synthesized for
 * what ran before it started carry time 0 and go into SYNTH blocks.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/utsname.h>
#include <unistd.h>

#include "analyze/replay/perf_record.h"
#include "analyze/replay/perfdata.h"
#include "analyze/replay/replay.h"
#include "common/kallsyms.h"
#include "common/util.h"
#include <amber/common.h>

#define STAGE_BYTES   (4u << 20)     /* a RING block's raw size, as amber-rec's */
#define MAX_STREAMS   4096u          /* CPU numbers past this go to stream 0 */
#define KALLSYMS_MAX  (256u << 20)
#define BAD_WARN_MAX  10

/* A record waiting for its round to end. */
struct pend {
	uint64_t time;
	uint64_t seq;        /* arrival: equal times keep it */
	size_t off;          /* in the pending bytes */
	uint32_t len;
	uint32_t stream;
};

/* The records of one stream (a CPU, or SYNTH) before they become a block. */
struct stage {
	uint32_t stream;
	uint16_t type;
	struct amb_buf b;
	uint64_t n, t0, t1;
};

struct importer {
	struct ana_perfdata *pd;
	struct amb_writer *w;
	struct ana_event *events;
	size_t nr_events;
	struct { uint64_t id; uint32_t ev; } *ids;  /* sorted by id */
	size_t nr_ids;
	struct ana_parser *parser;
	bool sample_id_all;
	uint64_t last_time;
	struct amb_buf pbytes;
	struct pend *pend;
	size_t npend, cap_pend;
	uint64_t seq;
	struct stage *stages;
	size_t nstages, cap_stages;
	struct stage synth;
	struct ana_import_stats *st;
	int err;
};

static const struct ana_event *lookup_id(void *ctx, uint64_t id)
{
	struct importer *im = ctx;
	size_t lo = 0, hi = im->nr_ids;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (im->ids[mid].id < id)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo < im->nr_ids && im->ids[lo].id == id ? &im->events[im->ids[lo].ev] : NULL;
}

static int cmp_ids(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

	return x < y ? -1 : x > y;
}

/* Host-order events for the record parser, as the session will see them. */
static int make_events(struct importer *im)
{
	size_t n, k = 0;
	const struct ana_perfdata_attr *a = ana_perfdata_attrs(im->pd, &n);
	size_t nids = 0;

	im->events = calloc(n, sizeof(*im->events));
	for (size_t i = 0; i < n; i++)
		nids += a[i].nr_ids;
	im->ids = calloc(nids ? nids : 1, sizeof(*im->ids));
	if (!im->events || !im->ids)
		return -ENOMEM;
	for (size_t i = 0; i < n; i++) {
		struct ana_event *e = &im->events[i];

		ana_attr_to_host(&e->attr, a[i].attr, a[i].attr_size, ana_perfdata_swapped(im->pd));
		e->name = a[i].name;
		e->index = (uint32_t)i;
		e->leader = UINT32_MAX;
		e->ids = a[i].ids;
		e->nr_ids = a[i].nr_ids;
		e->tracepoint = e->attr.type == PERF_TYPE_TRACEPOINT;
		for (uint32_t j = 0; j < a[i].nr_ids; j++) {
			im->ids[k].id = a[i].ids[j];
			im->ids[k++].ev = (uint32_t)i;
		}
	}
	im->nr_events = n;
	im->nr_ids = k;
	qsort(im->ids, k, sizeof(*im->ids), cmp_ids);
	im->sample_id_all = n && im->events[0].attr.sample_id_all;
	im->parser = ana_parser_new(ana_perfdata_swapped(im->pd), lookup_id, im,
				    n ? &im->events[0] : NULL);
	return im->parser ? 0 : -ENOMEM;
}

/* ---- blocks ------------------------------------------------------------------- */

static int stage_write(struct importer *im, struct stage *s)
{
	struct amb_block_desc d = { s->type, s->stream, s->n, s->t0, s->t1 };
	int err;

	if (!s->n)
		return 0;
	err = amb_writer_append_owned(im->w, &d, s->b.data, s->b.len);
	s->b = (struct amb_buf)AMB_BUF_INIT;
	s->n = s->t0 = s->t1 = 0;
	return err;
}

static int stage_add(struct importer *im, struct stage *s, const uint8_t *rec, size_t len,
		     uint64_t time)
{
	if (amb_buf_append(&s->b, rec, len))
		return -ENOMEM;
	if (!s->n || time < s->t0)
		s->t0 = time;
	if (time > s->t1)
		s->t1 = time;
	s->n++;
	im->st->records++;
	if (s->b.len >= STAGE_BYTES)
		return stage_write(im, s);
	return 0;
}

static struct stage *stage_of(struct importer *im, uint32_t stream)
{
	for (size_t i = 0; i < im->nstages; i++)
		if (im->stages[i].stream == stream)
			return &im->stages[i];
	if (amb_ensure_cap((void **)&im->stages, &im->cap_stages, sizeof(*im->stages),
			   im->nstages + 1))
		return NULL;
	memset(&im->stages[im->nstages], 0, sizeof(*im->stages));
	im->stages[im->nstages].stream = stream;
	im->stages[im->nstages].type = AMB_BLOCK_RING;
	im->st->streams++;
	return &im->stages[im->nstages++];
}

static int cmp_pend(const void *a, const void *b)
{
	const struct pend *x = a, *y = b;

	if (x->time != y->time)
		return x->time < y->time ? -1 : 1;
	return x->seq < y->seq ? -1 : x->seq > y->seq;
}

/* End of a round: the pending records in time order into their streams. */
static int flush_round(struct importer *im)
{
	int err = 0;

	if (im->sample_id_all && im->npend > 1)
		qsort(im->pend, im->npend, sizeof(*im->pend), cmp_pend);
	for (size_t i = 0; i < im->npend && !err; i++) {
		const struct pend *p = &im->pend[i];
		struct stage *s = stage_of(im, p->stream);

		err = s ? stage_add(im, s, im->pbytes.data + p->off, p->len, p->time) : -ENOMEM;
	}
	im->npend = 0;
	im->pbytes.len = 0;
	return err;
}

static int on_record(void *ctx, const uint8_t *rec, size_t len, uint32_t type)
{
	struct importer *im = ctx;
	struct ana_record r;
	struct pend *p;
	int ret;

	if (type >= ANA_PERF_RECORD_USER_TYPE_START) {
		if (type == ANA_PERF_RECORD_FINISHED_ROUND)
			im->err = flush_round(im);
		else
			im->st->skipped++;
		return im->err;
	}
	ret = ana_parse_record(im->parser, rec, len, &r);
	if (ret < 0) {
		if (im->st->bad++ < BAD_WARN_MAX)
			amb_warn("perf.data: a record of type %u (%zu bytes) does not parse: %s; "
				 "left out", type, len, ana_parser_errmsg(im->parser));
		return 0;
	}
	if (type == PERF_RECORD_SAMPLE)
		im->st->samples++;
	if (type != PERF_RECORD_SAMPLE && !r.time && im->sample_id_all) {
		im->st->synth++;
		im->err = stage_add(im, &im->synth, rec, len, 0);
		return im->err;
	}
	/* Without sample_id_all only samples have times: the rest keep their place. */
	if (!r.time && !im->sample_id_all)
		r.time = im->last_time;
	im->last_time = r.time;
	if (amb_ensure_cap((void **)&im->pend, &im->cap_pend, sizeof(*im->pend), im->npend + 1) ||
	    amb_buf_append(&im->pbytes, rec, len))
		return im->err = -ENOMEM;
	p = &im->pend[im->npend++];
	p->time = r.time;
	p->seq = im->seq++;
	p->off = im->pbytes.len - len;
	p->len = (uint32_t)len;
	p->stream = r.cpu < MAX_STREAMS ? r.cpu : 0;
	return 0;
}

/* ---- tables ------------------------------------------------------------------- */

static int write_kvs(struct importer *im, int what, uint16_t type, const char *const *extra)
{
	struct amb_buf b = AMB_BUF_INIT;
	size_t n;
	const struct ana_perfdata_kv *kv = ana_perfdata_kvs(im->pd, what, &n);
	struct amb_block_desc d = { type, AMB_STREAM_NONE, 0, 0, 0 };
	int err = 0;

	for (size_t i = 0; i < n && !err; i++, d.record_count++)
		err = amb_kv_put(&b, kv[i].key, kv[i].val, kv[i].len);
	for (; extra && *extra && !err; extra += 2, d.record_count++)
		err = amb_kv_put_str(&b, extra[0], extra[1]);
	if (!err && d.record_count)
		return amb_writer_append_owned(im->w, &d, b.data, b.len);
	amb_buf_free(&b);
	return err;
}

static int write_events(struct importer *im)
{
	struct amb_buf b = AMB_BUF_INIT, ids = AMB_BUF_INIT;
	struct amb_block_desc d = { AMB_BLOCK_EVENT_ATTR, AMB_STREAM_NONE, 0, 0, 0 };
	size_t n;
	const struct ana_perfdata_attr *a = ana_perfdata_attrs(im->pd, &n);
	int err = 0;

	for (size_t i = 0; i < n && !err; i++) {
		struct amb_event_entry e = {
			.attr = a[i].attr, .attr_size = a[i].attr_size, .name = a[i].name,
			.name_len = (uint32_t)AMB_MIN(strlen(a[i].name), 1024u),
			.leader = UINT32_MAX, .nr_ids = a[i].nr_ids,
		};

		ids.len = 0;
		for (uint32_t j = 0; j < a[i].nr_ids && !err; j++)
			err = amb_buf_put_le64(&ids, a[i].ids[j]);
		e.ids = ids.data;
		if (!err)
			err = amb_event_put(&b, &e);
		d.record_count++;
	}
	amb_buf_free(&ids);
	if (!err)
		return amb_writer_append_owned(im->w, &d, b.data, b.len);
	amb_buf_free(&b);
	return err;
}

static int write_buildids(struct importer *im)
{
	struct amb_buf b = AMB_BUF_INIT;
	struct amb_block_desc d = { AMB_BLOCK_BUILDID, AMB_STREAM_NONE, 0, 0, 0 };
	size_t n;
	const struct ana_perfdata_buildid *bid = ana_perfdata_buildids(im->pd, &n);
	int err = 0;

	for (size_t i = 0; i < n && !err; i++, d.record_count++) {
		struct amb_buildid_entry e = {
			bid[i].build_id, bid[i].size, bid[i].kind, bid[i].path,
			(uint32_t)AMB_MIN(strlen(bid[i].path), 4096u),
		};

		err = amb_buildid_put(&b, &e);
	}
	if (!err && d.record_count)
		return amb_writer_append_owned(im->w, &d, b.data, b.len);
	amb_buf_free(&b);
	return err;
}

/* The GNU build-id note of the running kernel (/sys/kernel/notes), or 0. */
static size_t host_kernel_build_id(uint8_t *out, size_t max)
{
	size_t len, pos = 0, got = 0;
	char *notes = amb_read_file("/sys/kernel/notes", 1u << 16, &len);

	while (notes && len - pos >= 12) {
		uint32_t namesz = amb_get_le32(notes + pos), descsz = amb_get_le32(notes + pos + 4);
		uint32_t type = amb_get_le32(notes + pos + 8);
		size_t name_al = ((size_t)namesz + 3) & ~(size_t)3, desc_al = ((size_t)descsz + 3) & ~(size_t)3;

		if (name_al > len - pos - 12 || desc_al > len - pos - 12 - name_al)
			break;
		if (type == 3 && namesz == 4 && !memcmp(notes + pos + 12, "GNU", 4) && descsz <= max) {
			memcpy(out, notes + pos + 12 + name_al, descsz);
			got = descsz;
			break;
		}
		pos += 12 + name_al + desc_al;
	}
	free(notes);
	return got;
}

/* perf's kernel map, the first records it synthesizes: the reference
 * symbol its name ends with ("[kernel.kallsyms]_text": _text) and where
 * that symbol was when perf recorded (the MMAP's pgoff). */
struct kref {
	struct ana_parser *parser;
	char sym[64];
	uint64_t addr;
	bool found;
};

/* ana_perfdata_for_each(): stop at perf's kernel MMAP, or at the first
 * sample (perf synthesizes its maps before). */
static int find_kref(void *ctx, const uint8_t *rec, size_t len, uint32_t type)
{
	static const char prefix[] = "[kernel.kallsyms]";
	struct kref *k = ctx;
	struct ana_record r;

	if (type == PERF_RECORD_SAMPLE)
		return 1;
	if ((type != PERF_RECORD_MMAP && type != PERF_RECORD_MMAP2) ||
	    ana_parse_record(k->parser, rec, len, &r) < 0 || !r.u.mmap.filename ||
	    strncmp(r.u.mmap.filename, prefix, sizeof(prefix) - 1))
		return 0;
	snprintf(k->sym, sizeof(k->sym), "%s", r.u.mmap.filename + sizeof(prefix) - 1);
	k->addr = r.u.mmap.pgoff;
	k->found = k->sym[0] != '\0';
	return 1;
}

/* The address of kernel symbol @name in kallsyms @text, or 0. */
static uint64_t kallsyms_addr(const char *text, size_t len, const char *name)
{
	const char *pos = text, *end = text + len;
	size_t n = strlen(name);
	struct amb_kallsym sym;
	int r;

	while ((r = amb_kallsyms_next(text, &pos, end, &sym)) != 0)
		if (r == 1 && !sym.module && sym.name_len == n && !memcmp(sym.name, name, n))
			return sym.addr;
	return 0;
}

/* The value of META key @key of the perf.data, or NULL. */
static const char *meta_of(const struct importer *im, const char *key)
{
	size_t n;
	const struct ana_perfdata_kv *kv = ana_perfdata_kvs(im->pd, ANA_PERFDATA_META, &n);

	for (size_t i = 0; i < n; i++)
		if (!strcmp(kv[i].key, key))
			return kv[i].val;
	return NULL;
}

/*
 * perf.data holds no kernel symbols: perf reads them at report time from
 * /proc/kallsyms, trusting they are the recorded kernel's.  The importer
 * stores them once: --kallsyms FILE, else this host's table when its
 * kernel is the recorded one, by build-id or, for a perf.data without the
 * kernel's build-id (perf record -B), by the same host name and kernel
 * release.  Either way the table must put perf's reference symbol (_text)
 * where the recording had it: a table of another boot (KASLR moves the
 * kernel) would name every kernel frame wrongly.
 */
static int write_ksyms(struct importer *im, const struct ana_import_opts *o)
{
	struct amb_block_desc d = { AMB_BLOCK_KSYMS, AMB_STREAM_NONE, 0, 0, 0 };
	struct kref k = { .parser = im->parser };
	const char *path = o->kallsyms, *why = NULL;
	struct ana_perfdata_stats ps;
	uint64_t at;
	char *text;
	size_t len;
	int err;

	if (!path && !o->host_kallsyms)
		return 0;
	/* Any table is checked against perf's kernel map. */
	err = ana_perfdata_for_each(im->pd, find_kref, &k, &ps);
	if (err < 0)
		return err;
	if (!path && o->host_kallsyms) {
		uint8_t host[64];
		size_t hlen = host_kernel_build_id(host, sizeof(host)), n;
		const struct ana_perfdata_buildid *b = ana_perfdata_buildids(im->pd, &n);
		bool has_kernel_id = false;
		const char *hostname = meta_of(im, "hostname"), *release = meta_of(im, "uname.release");
		struct utsname u;

		for (size_t i = 0; i < n; i++) {
			if (b[i].kind != AMB_DSO_KERNEL)
				continue;
			has_kernel_id = true;
			if (hlen && b[i].size == hlen && !memcmp(b[i].build_id, host, hlen))
				why = "this host's: the recorded kernel build-id";
		}
		if (!has_kernel_id && k.found && hostname && release && !uname(&u) &&
		    !strcmp(hostname, u.nodename) && !strcmp(release, u.release))
			why = "this host's: no kernel build-id recorded, the same host name and "
			      "kernel release";
		if (why)
			path = "/proc/kallsyms";
	}
	if (!path)
		return 0;
	text = amb_read_file(path, KALLSYMS_MAX, &len);
	if (!text) {
		amb_errmsg_set("--kallsyms %s: %s", path, strerror(errno));
		return -errno;
	}
	if (k.found && (at = kallsyms_addr(text, len, k.sym)) != k.addr) {
		free(text);
		if (why) {
			amb_warn("this host's kernel is the recorded one, but its /proc/kallsyms puts %s "
				 "at 0x%" PRIx64 ", the recording at 0x%" PRIx64 " (another boot, or "
				 "addresses hidden from this user): no kernel symbols stored; "
				 "--kallsyms FILE gives the recording boot's", k.sym, at, k.addr);
			return 0;
		}
		amb_errmsg_set("--kallsyms %s: %s is at 0x%" PRIx64 " in it, at 0x%" PRIx64
			       " in the recording: the table of another boot or kernel would name "
			       "kernel frames wrongly (--no-kallsyms stores none)",
			       path, k.sym, at, k.addr);
		return -EINVAL;
	}
	for (size_t i = 0; i < len; i++)
		d.record_count += text[i] == '\n';
	im->st->ksyms_from = path;
	im->st->ksyms_why = why;
	return amb_writer_append_owned(im->w, &d, text, len);
}

int ana_perfdata_import(struct ana_perfdata *pd, const char *path,
			const struct ana_import_opts *o, struct ana_import_stats *st)
{
	static const char *const extra[] = { "import.from", "perf.data", NULL };
	struct importer im = { .pd = pd, .st = st };
	AMB_OPTS(amb_writer_opts, wo);
	struct ana_perfdata_stats ps;
	int err;

	memset(st, 0, sizeof(*st));
	wo.threads = 1;
	wo.zstd_level = o->zstd_level;
	wo.producer_endian = (ana_perfdata_swapped(pd) == amb_host_is_le()) ? AMB_ENDIAN_BIG
									  : AMB_ENDIAN_LITTLE;
	wo.producer_word_size = ana_perfdata_word_size(pd);
	wo.producer_machine = ana_perfdata_machine(pd);
	wo.created_ns = o->created_ns;
	im.synth.type = AMB_BLOCK_SYNTH;
	im.synth.stream = AMB_STREAM_NONE;
	err = make_events(&im);
	if (err)
		goto out;
	err = amb_writer_open(path, &wo, &im.w);
	if (err) {
		amb_errmsg_set("%s: %s", path, amb_strerror(err));
		goto out;
	}
	/* FORMAT.md §9: what decodes the records comes before them. */
	err = write_kvs(&im, ANA_PERFDATA_META, AMB_BLOCK_META, extra);
	if (!err)
		err = write_events(&im);
	if (!err)
		err = write_kvs(&im, ANA_PERFDATA_TRACEFS, AMB_BLOCK_TRACEFS, NULL);
	if (!err)
		err = write_kvs(&im, ANA_PERFDATA_TOPOLOGY, AMB_BLOCK_TOPOLOGY, NULL);
	if (!err)
		err = write_buildids(&im);
	if (!err)
		err = write_ksyms(&im, o);
	if (err)
		goto out;
	err = ana_perfdata_for_each(pd, on_record, &im, &ps);
	if (!err)
		err = im.err;
	if (!err)
		err = flush_round(&im);
	for (size_t i = 0; i < im.nstages && !err; i++)
		err = stage_write(&im, &im.stages[i]);
	if (!err)
		err = stage_write(&im, &im.synth);
	st->damaged = ps.damaged;
out:
	if (im.w) {
		int cerr = amb_writer_close(im.w);

		if (!err)
			err = cerr;
		if (err) {
			if (!*amb_errmsg())
				amb_errmsg_set("writing %s: %s", path, amb_strerror(err));
			unlink(path);
		}
	}
	for (size_t i = 0; i < im.nstages; i++)
		amb_buf_free(&im.stages[i].b);
	free(im.stages);
	amb_buf_free(&im.synth.b);
	amb_buf_free(&im.pbytes);
	free(im.pend);
	ana_parser_free(im.parser);
	free(im.events);
	free(im.ids);
	return err;
}
