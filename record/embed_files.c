// SPDX-License-Identifier: MIT
/*
 * record/embed_files.c - `amber-rec --embed`: at the end of a recording, append
 * FILE blocks (FORMAT.md §5.5) holding the ELF files of the DSOs the
 * targets mapped, their separate debug info where installed, and the vDSO
 * image, so that the recording analyzes on a machine without them.
 *
 * The recorder does not decode samples, so it cannot know which DSOs they
 * hit: `hit` here means "mapped executable by the targets", read back from
 * the executable MMAP2 records the recording holds (the kernel's, written
 * while recording, and the synthesized ones of -p/-t targets).  `all` adds
 * every user DSO of the BUILDID table, which for -a is every process's.
 * `amber-analyze archive --hit` embeds exactly what samples hit.
 *
 * A file is embedded only when its build-id still equals the recorded one:
 * a binary rebuilt while recording must not pass for the one that ran.
 */
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <linux/perf_event.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <amber/common.h>
#include <amber/format.h>
#include "common/util.h"
#include "record/buildid.h"
#include "record/embed_files.h"

#define FILE_MAX  (2ull << 30)          /* larger files are left out */
#define MMAP2_FILENAME_OFF 72u          /* FORMAT.md §5.6: perf's MMAP2 layout */
#define PROT_EXEC_BIT 4u
#ifndef PERF_RECORD_MISC_MMAP_BUILD_ID
#define PERF_RECORD_MISC_MMAP_BUILD_ID (1 << 14)
#endif

/* One DSO to embed. */
struct embed_dso {
	struct rec_buildid bid;
	uint8_t kind;              /* enum amb_dso_kind */
	char *path;
};

struct embed_set {
	struct embed_dso *v;
	size_t n, cap;
};

static int set_add(struct embed_set *s, const struct rec_buildid *bid, uint8_t kind,
		   const char *path, size_t path_len)
{
	struct embed_dso *d;

	if (!bid->len)
		return 0;
	for (size_t i = 0; i < s->n; i++)
		if (s->v[i].bid.len == bid->len && !memcmp(s->v[i].bid.id, bid->id, bid->len))
			return 0;
	if (amb_ensure_cap((void **)&s->v, &s->cap, sizeof(*s->v), s->n + 1))
		return -ENOMEM;
	d = &s->v[s->n];
	d->path = strndup(path, path_len);
	if (!d->path)
		return -ENOMEM;
	d->bid = *bid;
	d->kind = kind;
	s->n++;
	return 0;
}

static void set_free(struct embed_set *s)
{
	for (size_t i = 0; i < s->n; i++)
		free(s->v[i].path);
	free(s->v);
	memset(s, 0, sizeof(*s));
}

/* The recorded build-id of @path from the BUILDID table, when listed. */
static const struct embed_dso *table_find(const struct embed_set *table, const char *path)
{
	for (size_t i = table->n; i-- > 0;)
		if (!strcmp(table->v[i].path, path))
			return &table->v[i];
	return NULL;
}

/* Executable user MMAP2 records of one SYNTH or RING payload (host order:
 * we wrote it). */
static int scan_mmaps(const uint8_t *p, size_t len, const struct embed_set *table,
		      struct embed_set *out)
{
	size_t pos = 0;

	while (len - pos >= 8) {
		uint32_t type;
		uint16_t misc, size;
		const uint8_t *r = p + pos;

		memcpy(&type, r, 4);
		memcpy(&misc, r + 4, 2);
		memcpy(&size, r + 6, 2);
		if (size < 8 || size > len - pos)
			break;   /* drain.c keeps whole records only; be safe anyway */
		pos += size;
		if (type == PERF_RECORD_MMAP2 && size > MMAP2_FILENAME_OFF) {
			const char *name = (const char *)r + MMAP2_FILENAME_OFF;
			size_t name_len = strnlen(name, size - MMAP2_FILENAME_OFF);
			struct rec_buildid bid = { 0 };
			uint32_t pid, prot;
			int err;

			memcpy(&pid, r + 8, 4);
			memcpy(&prot, r + 64, 4);
			if (pid == UINT32_MAX || !(prot & PROT_EXEC_BIT) || name[0] != '/' ||
			    name_len == size - MMAP2_FILENAME_OFF)
				continue;
			if (misc & PERF_RECORD_MISC_MMAP_BUILD_ID) {
				bid.len = AMB_MIN(r[40], (uint8_t)REC_BUILDID_MAX);
				memcpy(bid.id, r + 44, bid.len);
			} else {
				const struct embed_dso *t = table_find(table, name);

				if (t)
					bid = t->bid;
			}
			err = set_add(out, &bid, AMB_DSO_USER, name, name_len);
			if (err)
				return err;
		}
	}
	return 0;
}

static int load_table(struct amb_reader *r, struct amb_payload *pl, struct embed_set *table)
{
	struct amb_block_filter f = { AMB_BLOCK_BUILDID, -1, 0, 0 };
	size_t i;

	amb_reader_for_each_block(r, &f, i) {
		struct amb_buildid_entry e;
		struct amb_cursor c;
		const void *data;
		size_t len;

		if (amb_reader_load(r, i, pl, &data, &len))
			continue;
		amb_cursor_init(&c, data, len);
		while (amb_buildid_next(&c, &e) == 1) {
			struct rec_buildid bid = { .len = e.build_id_len };
			int err;

			memcpy(bid.id, e.build_id, AMB_MIN(e.build_id_len, sizeof(bid.id)));
			err = set_add(table, &bid, e.kind, e.path, e.path_len);
			if (err)
				return err;
		}
	}
	return 0;
}

/* Append @len bytes of @image (a whole file) as FILE blocks of @kind keyed
 * by @bid. */
static int append_parts(struct amb_writer *w, const struct rec_buildid *bid, unsigned kind,
			const char *name, const uint8_t *image, uint64_t len)
{
	struct amb_file_entry fe = {
		.build_id = bid->id, .build_id_len = bid->len, .kind = (uint8_t)kind,
		.name = name, .name_len = (uint32_t)AMB_MIN(strlen(name), UINT32_MAX), .file_size = len,
	};

	return amb_writer_append_file(w, &fe, image);
}

/*
 * Embed the file at @path as @kind if its bytes, read now, carry @bid.
 * Returns 1 when embedded, 0 when left out (with a warning for a stale
 * file), or a writer error.
 */
static int embed_file(struct amb_writer *w, const struct rec_buildid *bid, unsigned kind,
		      const char *path, struct rec_embed_stats *st)
{
	struct rec_buildid now;
	struct stat sb;
	uint8_t *image = NULL;
	size_t done = 0;
	int fd, err = 0;

	/* A FIFO put in the file's place must not hang the recorder. */
	fd = open(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK | O_NOCTTY);
	if (fd < 0)
		return 0;
	if (fstat(fd, &sb) || !S_ISREG(sb.st_mode) || (uint64_t)sb.st_size > FILE_MAX ||
	    !sb.st_size)
		goto out;
	image = malloc((size_t)sb.st_size);
	if (!image)
		goto out;
	while (done < (size_t)sb.st_size) {
		ssize_t n = pread(fd, image + done, (size_t)sb.st_size - done, (off_t)done);

		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			goto out;
		done += (size_t)n;
	}
	/* Check the bytes embedded, not the path: the file may change. */
	if (rec_buildid_from_memory(image, done, &now) || now.len != bid->len ||
	    memcmp(now.id, bid->id, bid->len)) {
		if (kind != AMB_FILE_DEBUG) {
			amb_warn("--embed: %s has changed since it was mapped (build-id differs): "
				 "not embedded", path);
			st->stale++;
		}
		goto out;
	}
	err = append_parts(w, bid, kind, path, image, done);
	if (!err) {
		st->files++;
		st->bytes += done;
		err = 1;
	}
out:
	free(image);
	close(fd);
	return err;
}

/* This kernel's vDSO, read from our own mapping (same kernel, same vDSO). */
static int embed_vdso(struct amb_writer *w, const struct rec_buildid *bid,
		      struct rec_embed_stats *st)
{
	struct rec_buildid now;
	const void *image;
	size_t len;
	int err;

	if (amb_self_vdso(&image, &len) || rec_buildid_from_memory(image, len, &now) ||
	    now.len != bid->len || memcmp(now.id, bid->id, bid->len))
		return 0;
	err = append_parts(w, bid, AMB_FILE_VDSO, "[vdso]", image, len);
	if (!err) {
		st->files++;
		st->bytes += len;
	}
	return err;
}

int rec_embed_write(struct amb_writer *w, const char *path, enum rec_embed_mode mode,
		    bool synth_is_target, struct rec_embed_stats *st)
{
	struct embed_set table = { 0 }, want = { 0 };
	struct amb_payload *pl = NULL;
	struct amb_reader *r = NULL;
	int err;

	memset(st, 0, sizeof(*st));
	if (mode == REC_EMBED_NONE)
		return 0;
	err = amb_writer_flush(w);
	if (err)
		return err;
	/* Our own output, still open for writing: no trailer yet, so scan. */
	err = amb_reader_open(path, AMB_READ_SCAN, &r);
	if (err)
		return err;
	pl = amb_payload_new();
	if (!pl) {
		err = -ENOMEM;
		goto out;
	}
	err = load_table(r, pl, &table);
	for (size_t i = 0; !err && i < amb_reader_block_count(r); i++) {
		const struct amb_block_info *bi = amb_reader_block(r, i);
		const void *data;
		size_t len;

		if (bi->type != AMB_BLOCK_RING &&
		    !(bi->type == AMB_BLOCK_SYNTH && (synth_is_target || mode == REC_EMBED_ALL)))
			continue;
		if (amb_reader_load(r, i, pl, &data, &len))
			continue;
		err = scan_mmaps(data, len, &table, &want);
	}
	for (size_t i = 0; !err && i < table.n; i++) {
		const struct embed_dso *t = &table.v[i];

		if (t->kind == AMB_DSO_VDSO)
			err = embed_vdso(w, &t->bid, st);
		else if (t->kind == AMB_DSO_USER && mode == REC_EMBED_ALL)
			err = set_add(&want, &t->bid, t->kind, t->path, strlen(t->path));
	}
	for (size_t i = 0; !err && i < want.n; i++) {
		const struct embed_dso *d = &want.v[i];
		char hex[2 * sizeof(d->bid.id) + 1], dbg[256];

		int n = embed_file(w, &d->bid, AMB_FILE_ELF, d->path, st);

		if (n <= 0) {
			err = n;
			continue;
		}
		for (size_t k = 0; k < d->bid.len; k++)
			snprintf(hex + 2 * k, 3, "%02x", d->bid.id[k]);
		snprintf(dbg, sizeof(dbg), "/usr/lib/debug/.build-id/%.2s/%s.debug", hex, hex + 2);
		n = embed_file(w, &d->bid, AMB_FILE_DEBUG, dbg, st);
		err = n < 0 ? n : 0;
	}
out:
	amb_payload_free(pl);
	amb_reader_close(r);
	set_free(&table);
	set_free(&want);
	return err;
}
