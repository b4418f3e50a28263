// SPDX-License-Identifier: MIT
/*
 * analyze/embed.c - files embedded in a recording (FORMAT.md §5.5): an
 * index of their parts, and their extraction into a private cache.
 *
 * Opening reads every FILE block once to learn its build-id, kind, size and
 * part offset; a file is reassembled only when dso.c asks for it.  The cache
 * is a mkdtemp directory laid out as a debug directory,
 * <dir>/.build-id/xx/rest for the ELF and <dir>/.build-id/xx/rest.debug for
 * its separate debug info, so libdwfl's .gnu_debuglink search finds the
 * second next to the first.  Only names made here from the hex build-id are
 * ever created, each through a directory fd with O_EXCL | O_NOFOLLOW.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <gelf.h>
#include <inttypes.h>
#include <libelf.h>
#include <elfutils/libdwelf.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <limits.h>
#include <signal.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "analyze/resolve/embedded.h"
#include "common/util.h"
#include <amber/common.h>

/* One FILE block: where its part goes. */
struct embed_part {
	size_t block;             /* reader block index */
	uint64_t offset, len;     /* part_offset, data_len */
};

enum embed_state { EMBED_UNTRIED = 0, EMBED_OK, EMBED_BAD };

/* One embedded file: all parts naming the same (build-id, kind). */
struct embed_file {
	uint8_t id[ANA_BUILD_ID_MAX];
	uint8_t id_len;
	uint8_t kind;
	uint64_t size;
	char *name;               /* as stored; for messages and `buildids` only */
	size_t name_len;
	struct embed_part *parts;
	size_t nr_parts, cap_parts;
	bool inconsistent;        /* parts disagree on file_size */
	enum embed_state state;
	char *path;               /* extracted file, when EMBED_OK */
};

struct ana_embed {
	struct amb_reader *r;
	const char *tmpdir;
	struct embed_file *files;
	size_t nr, cap;
	char *dir;                /* the cache directory, made on first use */
	int dirfd;
	int live_slot;            /* its slot for ana_embed_remove_all(), or -1 */
	uint64_t written;         /* bytes extracted, against ANA_EMBED_TOTAL_MAX */
	/* What was created under @dir, removed in reverse order at free. */
	struct created { char *rel; bool dir; } *created;
	size_t nr_created, cap_created;
};

/*
 * The cache directories alive in this process, for ana_embed_remove_all()
 * in a signal handler: slots are claimed and released with atomics, and a
 * slot's path is written before it is published.
 */
#define LIVE_MAX 16
static struct live_cache {
	volatile sig_atomic_t used;
	char path[PATH_MAX];
} live[LIVE_MAX];

static int live_add(const char *path)
{
	for (int i = 0; i < LIVE_MAX; i++) {
		if (__atomic_load_n(&live[i].used, __ATOMIC_ACQUIRE))
			continue;
		snprintf(live[i].path, sizeof(live[i].path), "%s", path);
		__atomic_store_n(&live[i].used, 1, __ATOMIC_RELEASE);
		return i;
	}
	return -1;   /* no room: removed at free only */
}

static void live_drop(int slot)
{
	if (slot >= 0)
		__atomic_store_n(&live[slot].used, 0, __ATOMIC_RELEASE);
}

/* Remove what is in the directory @dfd, @depth levels deep at most, with
 * system calls only (async-signal-safe: no malloc, no stdio). */
static void remove_below(int dfd, int depth)
{
	char buf[4096];
	bool again = true;
	long n;

	/* Passes until one finds nothing to remove but "." and "..". */
	while (again) {
		again = false;
		lseek(dfd, 0, SEEK_SET);
		n = syscall(SYS_getdents64, dfd, buf, sizeof(buf));
		for (long pos = 0; pos < n;) {
			struct linux_dirent64 {
				uint64_t d_ino;
				int64_t d_off;
				unsigned short d_reclen;
				unsigned char d_type;
				char d_name[];
			} *de = (void *)(buf + pos);

			pos += de->d_reclen;
			if (!strcmp(de->d_name, ".") || !strcmp(de->d_name, ".."))
				continue;
			/* Another pass only when this one removed something. */
			if (de->d_type == DT_DIR && depth > 0) {
				int sub = openat(dfd, de->d_name,
						 O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);

				if (sub >= 0) {
					remove_below(sub, depth - 1);
					close(sub);
				}
				again |= !unlinkat(dfd, de->d_name, AT_REMOVEDIR);
			} else {
				again |= !unlinkat(dfd, de->d_name, 0);
			}
		}
	}
}

void ana_embed_remove_all(void)
{
	for (int i = 0; i < LIVE_MAX; i++) {
		int dfd;

		if (!__atomic_load_n(&live[i].used, __ATOMIC_ACQUIRE))
			continue;
		dfd = open(live[i].path, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
		if (dfd >= 0) {
			/* The cache is <dir>/.build-id/xx/file: three levels. */
			remove_below(dfd, 3);
			close(dfd);
		}
		rmdir(live[i].path);
	}
}

static void hex_of(const uint8_t *id, size_t len, char *buf)
{
	static const char hx[] = "0123456789abcdef";
	size_t i;

	for (i = 0; i < len; i++) {
		buf[2 * i] = hx[id[i] >> 4];
		buf[2 * i + 1] = hx[id[i] & 15];
	}
	buf[2 * i] = '\0';
}

static const char *kind_name(unsigned kind)
{
	switch (kind) {
	case AMB_FILE_ELF: return "ELF";
	case AMB_FILE_DEBUG: return "debug info";
	case AMB_FILE_VDSO: return "vDSO image";
	case AMB_FILE_ELF_MINI: return "reduced ELF";
	default: return "unknown kind";
	}
}

static struct embed_file *file_find(const struct ana_embed *e, const uint8_t *id, size_t len,
				    unsigned kind)
{
	for (size_t i = 0; i < e->nr; i++) {
		struct embed_file *f = &e->files[i];

		if (f->kind == kind && f->id_len == len && !memcmp(f->id, id, len))
			return f;
	}
	return NULL;
}

static struct embed_file *file_add(struct ana_embed *e, const struct amb_file_entry *fe)
{
	struct embed_file *f;

	if (amb_ensure_cap((void **)&e->files, &e->cap, sizeof(*e->files), e->nr + 1))
		return NULL;
	f = &e->files[e->nr];
	memset(f, 0, sizeof(*f));
	f->name = malloc(fe->name_len + 1);
	if (!f->name)
		return NULL;
	memcpy(f->name, fe->name, fe->name_len);
	f->name[fe->name_len] = '\0';
	f->name_len = fe->name_len;
	memcpy(f->id, fe->build_id, fe->build_id_len);
	f->id_len = fe->build_id_len;
	f->kind = fe->kind;
	f->size = fe->file_size;
	e->nr++;
	return f;
}

static int part_add(struct embed_file *f, size_t block, const struct amb_file_entry *fe)
{
	if (amb_ensure_cap((void **)&f->parts, &f->cap_parts, sizeof(*f->parts), f->nr_parts + 1))
		return -ENOMEM;
	f->parts[f->nr_parts++] = (struct embed_part){ block, fe->part_offset, fe->data_len };
	return 0;
}

/* Take one FILE block into the index; a block that breaks a rule is
 * reported and left out (its file then has a hole and is refused). */
static int index_block(struct ana_embed *e, size_t i, const void *data, size_t len)
{
	const struct amb_block_info *bi = amb_reader_block(e->r, i);
	struct amb_file_entry fe;
	struct embed_file *f;
	char hex[2 * ANA_BUILD_ID_MAX + 1];
	int err;

	err = amb_file_parse(data, len, &fe);
	if (err) {
		amb_warn("FILE block %zu at offset %" PRIu64 ": %s; ignored", i, bi->offset,
			 amb_strerror(err));
		return 0;
	}
	if (fe.build_id_len < 2 || fe.build_id_len > ANA_BUILD_ID_MAX) {
		amb_warn("FILE block %zu at offset %" PRIu64 ": build-id of %u bytes; ignored", i,
			 bi->offset, fe.build_id_len);
		return 0;
	}
	hex_of(fe.build_id, fe.build_id_len, hex);
	if (fe.kind > AMB_FILE_ELF_MINI) {
		/* A later minor may add kinds: not an error, just not ours. */
		return 0;
	}
	if (fe.file_size > ANA_EMBED_FILE_MAX || fe.part_offset > fe.file_size ||
	    fe.data_len > fe.file_size - fe.part_offset) {
		amb_warn("FILE block %zu at offset %" PRIu64 ": %s %s: part [%" PRIu64 ", +%" PRIu64
			 ") does not fit a file of %" PRIu64 " bytes (cap %llu); ignored",
			 i, bi->offset, kind_name(fe.kind), hex, fe.part_offset, fe.data_len,
			 fe.file_size, ANA_EMBED_FILE_MAX);
		return 0;
	}
	f = file_find(e, fe.build_id, fe.build_id_len, fe.kind);
	if (!f) {
		f = file_add(e, &fe);
		if (!f)
			return -ENOMEM;
	} else if (f->size != fe.file_size) {
		f->inconsistent = true;
	}
	return part_add(f, i, &fe);
}

int ana_embed_open(struct amb_reader *r, const char *tmpdir, struct ana_embed **out)
{
	struct amb_block_filter flt = { AMB_BLOCK_FILE, -1, 0, 0 };
	struct amb_payload *pl = NULL;
	struct ana_embed *e;
	size_t i;
	int err = 0;

	*out = NULL;
	e = calloc(1, sizeof(*e));
	if (!e)
		return -ENOMEM;
	e->r = r;
	e->tmpdir = tmpdir;
	e->dirfd = -1;
	e->live_slot = -1;
	amb_reader_for_each_block(r, &flt, i) {
		const void *data;
		size_t len;

		if (!pl) {
			pl = amb_payload_new();
			if (!pl) {
				err = -ENOMEM;
				goto out;
			}
		}
		if (amb_reader_load(r, i, pl, &data, &len)) {
			amb_warn("%s; the part is ignored", amb_payload_errmsg(pl));
			continue;
		}
		err = index_block(e, i, data, len);
		if (err)
			goto out;
	}
out:
	amb_payload_free(pl);
	if (err) {
		ana_embed_free(e);
		return err;
	}
	*out = e;
	return 0;
}

/* Note @rel (under the cache) for removal at free.  Returns 0 or -ENOMEM. */
static int remember(struct ana_embed *e, const char *rel, bool is_dir)
{
	char *copy;

	if (amb_ensure_cap((void **)&e->created, &e->cap_created, sizeof(*e->created),
			   e->nr_created + 1))
		return -ENOMEM;
	copy = strdup(rel);
	if (!copy)
		return -ENOMEM;
	e->created[e->nr_created].rel = copy;
	e->created[e->nr_created++].dir = is_dir;
	return 0;
}

void ana_embed_free(struct ana_embed *e)
{
	if (!e)
		return;
	/* Reverse order: files before the directories holding them. */
	for (size_t i = e->nr_created; i-- > 0;) {
		if (e->dirfd >= 0)
			unlinkat(e->dirfd, e->created[i].rel, e->created[i].dir ? AT_REMOVEDIR : 0);
		free(e->created[i].rel);
	}
	if (e->dirfd >= 0)
		close(e->dirfd);
	if (e->dir)
		rmdir(e->dir);
	live_drop(e->live_slot);
	for (size_t i = 0; i < e->nr; i++) {
		free(e->files[i].name);
		free(e->files[i].parts);
		free(e->files[i].path);
	}
	free(e->created);
	free(e->files);
	free(e->dir);
	free(e);
}

size_t ana_embed_count(const struct ana_embed *e)
{
	return e ? e->nr : 0;
}

bool ana_embed_info(const struct ana_embed *e, size_t i, const uint8_t **build_id,
		    size_t *build_id_len, unsigned *kind, uint64_t *size,
		    const char **name, size_t *name_len)
{
	const struct embed_file *f;

	if (!e || i >= e->nr)
		return false;
	f = &e->files[i];
	*build_id = f->id;
	*build_id_len = f->id_len;
	*kind = f->kind;
	*size = f->size;
	*name = f->name;
	*name_len = f->name_len;
	return true;
}

bool ana_embed_has(const struct ana_embed *e, const uint8_t *build_id, size_t len,
		   unsigned kind)
{
	return e && file_find(e, build_id, len, kind) != NULL;
}

/* Make the cache directory: private (0700), fresh (mkdtemp), held by fd. */
static int cache_dir(struct ana_embed *e)
{
	const char *base = e->tmpdir ? e->tmpdir : getenv("TMPDIR");
	char tmpl[4096];
	int n;

	if (e->dirfd >= 0)
		return 0;
	if (!base || !*base)
		base = "/tmp";
	n = snprintf(tmpl, sizeof(tmpl), "%s/amber-embed.XXXXXX", base);
	if (n < 0 || (size_t)n >= sizeof(tmpl))
		return -ENAMETOOLONG;
	if (!mkdtemp(tmpl))
		return -errno;
	e->dir = strdup(tmpl);
	if (!e->dir) {
		rmdir(tmpl);
		return -ENOMEM;
	}
	e->dirfd = open(e->dir, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
	if (e->dirfd < 0) {
		int err = -errno;

		rmdir(e->dir);
		free(e->dir);
		e->dir = NULL;
		return err;
	}
	e->live_slot = live_add(e->dir);
	return 0;
}

/* mkdirat that accepts a directory this cache made earlier. */
static int subdir(struct ana_embed *e, const char *rel)
{
	struct stat st;

	if (!mkdirat(e->dirfd, rel, 0700)) {
		if (remember(e, rel, true)) {
			unlinkat(e->dirfd, rel, AT_REMOVEDIR);
			return -ENOMEM;
		}
		return 0;
	}
	if (errno != EEXIST)
		return -errno;
	/* Only this process writes here (0700, fresh name): still, never
	 * follow a link planted by anyone. */
	if (fstatat(e->dirfd, rel, &st, AT_SYMLINK_NOFOLLOW) || !S_ISDIR(st.st_mode))
		return -ENOTDIR;
	return 0;
}

/* Parts sorted by offset must tile [0, size) exactly: no overlap, no hole. */
static int part_cmp(const void *a, const void *b)
{
	const struct embed_part *x = a, *y = b;

	return x->offset < y->offset ? -1 : x->offset > y->offset;
}

static int check_tiling(struct embed_file *f, char *why, size_t why_len)
{
	uint64_t end = 0;

	if (f->inconsistent) {
		snprintf(why, why_len, "its parts disagree on the file size");
		return -EINVAL;
	}
	qsort(f->parts, f->nr_parts, sizeof(*f->parts), part_cmp);
	for (size_t i = 0; i < f->nr_parts; i++) {
		const struct embed_part *p = &f->parts[i];

		if (p->offset < end) {
			snprintf(why, why_len, "part at offset %" PRIu64 " (block %zu) overlaps the "
				 "previous part, which ends at %" PRIu64, p->offset, p->block, end);
			return -EINVAL;
		}
		if (p->offset > end) {
			snprintf(why, why_len, "bytes [%" PRIu64 ", %" PRIu64 ") are missing",
				 end, p->offset);
			return -EINVAL;
		}
		end = p->offset + p->len;
	}
	if (end != f->size) {
		snprintf(why, why_len, "bytes [%" PRIu64 ", %" PRIu64 ") are missing", end, f->size);
		return -EINVAL;
	}
	return 0;
}

static ssize_t pwrite_full(int fd, const uint8_t *p, size_t n, uint64_t off)
{
	size_t done = 0;

	while (done < n) {
		ssize_t w = pwrite(fd, p + done, n - done, (off_t)(off + done));

		if (w < 0 && errno == EINTR)
			continue;
		if (w <= 0)
			return w < 0 ? -errno : -EIO;
		done += (size_t)w;
	}
	return 0;
}

/* Build-id of the ELF open on @fd, compared with @f's key. */
static bool buildid_matches(int fd, const struct embed_file *f, char *why, size_t why_len)
{
	const void *p;
	ssize_t n;
	Elf *elf;
	bool ok = false;

	elf_version(EV_CURRENT);
	elf = elf_begin(fd, ELF_C_READ_MMAP, NULL);
	if (!elf || elf_kind(elf) != ELF_K_ELF) {
		snprintf(why, why_len, "it is not an ELF file");
		goto out;
	}
	n = dwelf_elf_gnu_build_id(elf, &p);
	if (n <= 0) {
		snprintf(why, why_len, "it has no build-id note");
		goto out;
	}
	if ((size_t)n != f->id_len || memcmp(p, f->id, f->id_len)) {
		char hex[2 * ANA_BUILD_ID_MAX + 1];

		hex_of(p, AMB_MIN((size_t)n, (size_t)ANA_BUILD_ID_MAX), hex);
		snprintf(why, why_len, "its build-id note says %s", hex);
		goto out;
	}
	ok = true;
out:
	elf_end(elf);
	return ok;
}

/*
 * What can be checked before a byte is written: the file's size against
 * the recording's bytes that hold it (an honest ELF compresses a few
 * times, never ANA_EMBED_RATIO_MAX times), and an ELF header in its first
 * part whose section and program header tables lie within the file.
 */
static int precheck(struct ana_embed *e, struct embed_file *f, struct amb_payload *pl, char *why,
		    size_t why_len)
{
	uint64_t stored = 0, shoff, phoff, shsize, phsize;
	struct amb_file_entry fe;
	const uint8_t *h;
	const void *data;
	size_t len;
	bool is64, le;
	int err;

	for (size_t i = 0; i < f->nr_parts; i++)
		stored += amb_reader_block(e->r, f->parts[i].block)->stored_size;
	if (f->size > ANA_EMBED_SLACK + ANA_EMBED_RATIO_MAX * stored) {
		snprintf(why, why_len, "it claims %" PRIu64 " bytes from %" PRIu64 " bytes of the "
			 "recording, more than %u times as many", f->size, stored, ANA_EMBED_RATIO_MAX);
		return -EFBIG;
	}
	/* The parts are sorted and tile the file: parts[0] starts it. */
	err = amb_reader_load(e->r, f->parts[0].block, pl, &data, &len);
	if (!err)
		err = amb_file_parse(data, len, &fe);
	if (err) {
		snprintf(why, why_len, "block %zu: %s", f->parts[0].block, amb_strerror(err));
		return err;
	}
	h = fe.data;
	if (fe.data_len < 52 || memcmp(h, "\x7f" "ELF", 4) || (h[4] != 1 && h[4] != 2) ||
	    (h[5] != 1 && h[5] != 2) || (h[4] == 2 && fe.data_len < 64)) {
		snprintf(why, why_len, "it does not start with an ELF header");
		return -ENOEXEC;
	}
	is64 = h[4] == 2;
	le = h[5] == 1;
#define GET16(o) (le ? amb_get_le16(h + (o)) : (uint16_t)(h[o] << 8 | h[(o) + 1]))
#define GET32(o) (le ? amb_get_le32(h + (o)) : (uint32_t)GET16(o) << 16 | GET16((o) + 2))
#define GET64(o) (le ? amb_get_le64(h + (o)) : (uint64_t)GET32(o) << 32 | GET32((o) + 4))
	phoff = is64 ? GET64(32) : GET32(28);
	shoff = is64 ? GET64(40) : GET32(32);
	phsize = (uint64_t)GET16(is64 ? 54 : 42) * GET16(is64 ? 56 : 44);
	shsize = (uint64_t)GET16(is64 ? 58 : 46) * GET16(is64 ? 60 : 48);
#undef GET64
#undef GET32
#undef GET16
	if (phoff > f->size || phsize > f->size - phoff || shoff > f->size ||
	    shsize > f->size - shoff) {
		snprintf(why, why_len, "its ELF header places tables outside its %" PRIu64 " bytes",
			 f->size);
		return -ENOEXEC;
	}
	return 0;
}

/*
 * Write @f to <dir>/.build-id/xx/rest[.debug] and check it.  Returns 0 with
 * f->path set, or a negative error with a reason in @why (the half-written
 * file is removed).
 */
static int extract(struct ana_embed *e, struct embed_file *f, char *why, size_t why_len)
{
	char hex[2 * ANA_BUILD_ID_MAX + 1], rel[2 * ANA_BUILD_ID_MAX + 32], xx[16];
	struct amb_payload *pl = NULL;
	bool made = false;
	int fd = -1, err;

	err = check_tiling(f, why, why_len);
	if (err)
		return err;
	if (f->size > ANA_EMBED_TOTAL_MAX - e->written) {
		snprintf(why, why_len, "extracting it would pass the %llu-byte cap on embedded files",
			 ANA_EMBED_TOTAL_MAX);
		return -EFBIG;
	}
	pl = amb_payload_new();
	if (!pl) {
		snprintf(why, why_len, "out of memory");
		return -ENOMEM;
	}
	err = precheck(e, f, pl, why, why_len);
	if (err)
		goto out;
	err = cache_dir(e);
	if (err) {
		snprintf(why, why_len, "cannot create a cache directory: %s", strerror(-err));
		goto out;
	}
	hex_of(f->id, f->id_len, hex);
	snprintf(xx, sizeof(xx), ".build-id/%.2s", hex);
	err = subdir(e, ".build-id");
	if (!err)
		err = subdir(e, xx);
	if (err) {
		snprintf(why, why_len, "cannot create %s/%s: %s", e->dir, xx, strerror(-err));
		goto out;
	}
	/* Only the hex build-id names the file: never the stored name. */
	snprintf(rel, sizeof(rel), "%s/%s%s", xx, hex + 2, f->kind == AMB_FILE_DEBUG ? ".debug" : "");
	fd = openat(e->dirfd, rel, O_RDWR | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0600);
	if (fd < 0) {
		err = -errno;
		snprintf(why, why_len, "cannot create %s/%s: %s", e->dir, rel, strerror(errno));
		goto out;
	}
	made = true;
	for (size_t i = 0; i < f->nr_parts; i++) {
		const struct embed_part *p = &f->parts[i];
		struct amb_file_entry fe;
		const void *data;
		size_t len;

		err = amb_reader_load(e->r, p->block, pl, &data, &len);
		if (err) {
			snprintf(why, why_len, "%s", amb_payload_errmsg(pl));
			goto out;
		}
		/* The block was parsed when indexed; the reader checked its
		 * checksum again now, so it holds the same bytes. */
		err = amb_file_parse(data, len, &fe);
		if (err || fe.part_offset != p->offset || fe.data_len != p->len) {
			err = err ? err : -AMB_E_CORRUPT;
			snprintf(why, why_len, "block %zu changed since it was indexed", p->block);
			goto out;
		}
		err = (int)pwrite_full(fd, fe.data, (size_t)fe.data_len, fe.part_offset);
		if (err) {
			snprintf(why, why_len, "writing %s/%s: %s", e->dir, rel, strerror(-err));
			goto out;
		}
	}
	e->written += f->size;
	if (!buildid_matches(fd, f, why, why_len)) {
		err = -EINVAL;
		goto out;
	}
	if (asprintf(&f->path, "%s/%s", e->dir, rel) < 0) {
		f->path = NULL;
		err = -ENOMEM;
		snprintf(why, why_len, "out of memory");
		goto out;
	}
	err = remember(e, rel, false);
	if (err) {
		free(f->path);
		f->path = NULL;
		snprintf(why, why_len, "out of memory");
		goto out;
	}
	made = false;
out:
	if (fd >= 0)
		close(fd);
	if (made)
		unlinkat(e->dirfd, rel, 0);
	amb_payload_free(pl);
	return err;
}

const char *ana_embed_path(struct ana_embed *e, const uint8_t *build_id, size_t len,
			   unsigned kind)
{
	struct embed_file *f = e ? file_find(e, build_id, len, kind) : NULL;
	char why[512] = "", hex[2 * ANA_BUILD_ID_MAX + 1];

	if (!f)
		return NULL;
	if (f->state == EMBED_UNTRIED) {
		f->state = extract(e, f, why, sizeof(why)) ? EMBED_BAD : EMBED_OK;
		if (f->state == EMBED_BAD) {
			hex_of(f->id, f->id_len, hex);
			amb_warn("embedded %s %s (%s, %zu part%s starting at block %zu): %s; ignored",
				 kind_name(f->kind), hex, f->name, f->nr_parts,
				 f->nr_parts == 1 ? "" : "s", f->nr_parts ? f->parts[0].block : 0,
				 why);
		}
	}
	return f->state == EMBED_OK ? f->path : NULL;
}

const char *ana_embed_lookup(void *ctx, const uint8_t *build_id, size_t len)
{
	static const unsigned order[] = { AMB_FILE_ELF, AMB_FILE_ELF_MINI, AMB_FILE_VDSO };
	struct ana_embed *e = ctx;
	const char *debug = NULL;

	/* First the debug info, so that it sits next to the ELF when libdwfl
	 * looks for it. */
	if (ana_embed_has(e, build_id, len, AMB_FILE_DEBUG))
		debug = ana_embed_path(e, build_id, len, AMB_FILE_DEBUG);
	for (size_t i = 0; i < AMB_ARRAY_SIZE(order); i++) {
		const char *p = ana_embed_path(e, build_id, len, order[i]);

		if (p)
			return p;
	}
	/* A separate debug file keeps the symbol table and program headers:
	 * enough for symbols when nothing else is there. */
	return debug;
}
