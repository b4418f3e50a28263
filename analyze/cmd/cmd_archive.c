// SPDX-License-Identifier: MIT
/*
 * analyze/archive.c - the `archive` command: copy a recording and append
 * FILE blocks (FORMAT.md §5.5) holding the ELF files, separate debug info
 * and vDSO image its analysis needs, so that it analyzes on any machine.
 *
 * Which DSOs: those the samples hit (--hit, the default: the session is
 * replayed and every sample ip, callchain entry and stack word pointing
 * into code is resolved to its DSO), or every user DSO the recording maps
 * (--all).  Each is looked for on this machine in dso.c's order and used
 * only when its build-id equals the recorded one; a DSO without a recorded
 * build-id cannot be keyed and is left out with a warning.
 *
 * The input's blocks are copied in order as they are stored, neither
 * decoded nor recompressed: the same codec, payload bytes and payload
 * checksums (the file header keeps the input's UUID and creation time);
 * only the block numbers, the INDEX and the TRAILER are made anew.
 *
 * --compact instead decodes every block and writes it anew for the
 * archive's sake, at zstd level 19 by default: RING blocks with the sample
 * codec (FORMAT.md §4.1), those of a stream joined into blocks of up to
 * 16 MiB (a recorder flushes small blocks every second; each block is
 * encoded alone, so bigger ones compress better).  The records are the
 * same, in the same order in each stream.  The writer's threads encode
 * blocks in parallel (-j), the file the same whatever their number.
 */
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <gelf.h>
#include <inttypes.h>
#include <libelf.h>
#include <elfutils/libdwelf.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/auxv.h>
#include <sys/stat.h>
#include <unistd.h>

#include "analyze/cmd/cmd.h"
#include "common/util.h"
#include <amber/common.h>

struct archive_opts {
	const char *in, *out;
	bool all;
	bool mini;
	bool no_debug;
	bool compact;
	bool no_files;
	int zstd_level;                /* -1: the default of the mode */
	struct ana_pipeline_opts po;   /* --symfs, --no-debuginfod, -j */
};

/* --compact: RING blocks of a stream joined up to this many raw bytes. */
#define COMPACT_JOIN (16u << 20)
#define COMPACT_LEVEL 19
/* Without -j: the writer's threads, one per CPU up to this many (at level
 * 19 each holds up to about 80 MiB of zstd state besides its blocks). */
#define WRITER_THREADS_DEFAULT_MAX 4

struct archive_stats {
	unsigned files;
	uint64_t bytes;           /* file bytes embedded */
	unsigned missing;         /* DSOs with no usable file here */
};

static const char usage[] =
"usage: amber-analyze archive [OPTIONS] IN -o OUT\n\n"
"Copy recording IN to OUT with the ELF files, separate debug info and vDSO\n"
"image its analysis needs embedded (keyed and checked by build-id), so that\n"
"OUT analyzes on a machine that has none of them.\n\n"
"  -o, --output OUT   the new recording (must not exist)\n"
"      --hit          DSOs that samples hit (default; exact: the session is replayed)\n"
"      --all          every user DSO the recording maps\n"
"      --mini         reduced ELF files: symbols, CFI, line and inline info only\n"
"      --no-debug     leave out separate debug info (/usr/lib/debug/.build-id)\n"
"      --no-files     embed no files (with --compact: only make the file smaller)\n"
"      --symfs DIR    look for the recorded paths under DIR, not on this host\n"
"      --no-debuginfod  do not ask the servers of DEBUGINFOD_URLS\n"
"      --compact      encode every block anew: samples with the sample codec, each\n"
"                     CPU's blocks joined up to 16 MiB, zstd level 19 (-z to change)\n"
"  -z, --compression-level N  zstd level for the new blocks (default "
AMB_STR(AMB_DEFAULT_ZSTD_LEVEL) ", " AMB_STR(COMPACT_LEVEL) " with --compact)\n"
"  -j, --jobs N       N threads decode the samples and N compress the new blocks\n"
"                     (default: one per CPU, at most " AMB_STR(WRITER_THREADS_DEFAULT_MAX) " compressing; at level 19\n"
"                     each takes up to about 80 MiB)\n"
"  -h, --help\n";

/* Append @len bytes of @image (a whole file) as FILE blocks of @kind keyed
 * by @id. */
static int append_file(struct amb_writer *w, const uint8_t *id, size_t id_len, unsigned kind,
		       const char *name, const uint8_t *image, uint64_t len)
{
	struct amb_file_entry fe = {
		.build_id = id, .build_id_len = (uint8_t)id_len, .kind = (uint8_t)kind,
		.name = name, .name_len = (uint32_t)AMB_MIN(strlen(name), UINT32_MAX), .file_size = len,
	};

	return amb_writer_append_file(w, &fe, image);
}

/* True when @elf holds code: separate debug info keeps the section
 * headers of the code but makes them SHT_NOBITS. */
static bool elf_has_code(Elf *elf)
{
	Elf_Scn *scn = NULL;
	GElf_Shdr sh;

	while ((scn = elf_nextscn(elf, scn)))
		if (gelf_getshdr(scn, &sh) && (sh.sh_flags & SHF_EXECINSTR) &&
		    sh.sh_type != SHT_NOBITS && sh.sh_size)
			return true;
	return false;
}

/*
 * Read the ELF at @path into memory and check that its build-id is @id.
 * Returns 0 with *image (caller frees), *len and *has_code (see
 * elf_has_code), -ESTALE for another build-id, -EFBIG over the cap,
 * -ENOEXEC for a non-ELF, -errno.
 */
static int read_checked(const char *path, const uint8_t *id, size_t id_len, uint8_t **image,
			uint64_t *len, bool *has_code)
{
	const void *note;
	struct stat st;
	Elf *elf = NULL;
	uint8_t *buf = NULL;
	size_t done = 0;
	ssize_t n;
	int fd, err = 0;

	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	if (fstat(fd, &st)) {
		err = -errno;
		goto out;
	}
	if (!S_ISREG(st.st_mode)) {
		err = -EINVAL;
		goto out;
	}
	if ((uint64_t)st.st_size > ANA_EMBED_FILE_MAX) {
		err = -EFBIG;
		goto out;
	}
	buf = malloc(st.st_size ? (size_t)st.st_size : 1);
	if (!buf) {
		err = -ENOMEM;
		goto out;
	}
	while (done < (size_t)st.st_size) {
		n = pread(fd, buf + done, (size_t)st.st_size - done, (off_t)done);
		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0) {
			err = n < 0 ? -errno : -EIO;
			goto out;
		}
		done += (size_t)n;
	}
	/* Check the bytes we hold, not the file: it may change meanwhile. */
	elf = elf_memory((char *)buf, done);
	if (!elf || elf_kind(elf) != ELF_K_ELF) {
		err = -ENOEXEC;
		goto out;
	}
	n = dwelf_elf_gnu_build_id(elf, &note);
	if (n <= 0 || (size_t)n != id_len || memcmp(note, id, id_len))
		err = -ESTALE;
	else
		*has_code = elf_has_code(elf);
out:
	elf_end(elf);
	close(fd);
	if (err) {
		free(buf);
		return err;
	}
	*image = buf;
	*len = done;
	return 0;
}

/*
 * Embed the file at @path for @id as @kind (reduced first with --mini).
 * An AMB_FILE_ELF without code is separate debug info, the only file
 * found (in a debug directory, or from debuginfod), and is embedded as
 * AMB_FILE_DEBUG.
 */
static int embed_path(struct amb_writer *w, const struct archive_opts *o, const uint8_t *id,
		      size_t id_len, unsigned kind, const char *path, struct archive_stats *st)
{
	uint8_t *image = NULL, *mini = NULL;
	uint64_t len = 0;
	size_t mini_len = 0;
	bool has_code = false;
	int err;

	err = read_checked(path, id, id_len, &image, &len, &has_code);
	if (err)
		return err;
	if (kind == AMB_FILE_ELF && !has_code)
		kind = AMB_FILE_DEBUG;
	if (o->mini && (kind == AMB_FILE_ELF || kind == AMB_FILE_DEBUG)) {
		err = ana_elf_reduce(image, (size_t)len, &mini, &mini_len);
		if (err) {
			amb_warn("%s: cannot reduce (%s); embedded whole", path, strerror(-err));
		} else {
			free(image);
			image = mini;
			len = mini_len;
			if (kind == AMB_FILE_ELF)
				kind = AMB_FILE_ELF_MINI;
		}
	}
	err = append_file(w, id, id_len, kind, path, image, len);
	if (!err) {
		st->files++;
		st->bytes += len;
	}
	free(image);
	return err;
}

/* The separate debug info of @d, when installed with the same build-id. */
static int embed_debug(struct amb_writer *w, const struct archive_opts *o,
		       const struct ana_dso *d, struct archive_stats *st)
{
	char hex[2 * ANA_BUILD_ID_MAX + 1], path[4200];
	int err, n;

	ana_dso_build_id_hex(d, hex);
	/* The debug directory of dso.c's step 3. */
	if (o->po.dso.debug_dir)
		n = snprintf(path, sizeof(path), "%s/.build-id/%.2s/%s.debug", o->po.dso.debug_dir,
			     hex, hex + 2);
	else
		n = snprintf(path, sizeof(path), "%s/usr/lib/debug/.build-id/%.2s/%s.debug",
			     o->po.dso.symfs ? o->po.dso.symfs : "", hex, hex + 2);
	if (n < 0 || (size_t)n >= sizeof(path) || access(path, R_OK))
		return 0;
	if (d->elf_path && !strcmp(d->elf_path, path))
		return 0;   /* already embedded as the DSO's only file */
	err = embed_path(w, o, d->build_id, d->build_id_len, AMB_FILE_DEBUG, path, st);
	if (err == -ESTALE || err == -ENOEXEC) {
		amb_warn("%s: not the debug info of build-id %s; left out", path, hex);
		return 0;
	}
	return err;
}

/* This machine's vDSO, when its build-id is the recorded one (same kernel). */
static int embed_vdso(struct amb_writer *w, const struct ana_buildid *b, struct archive_stats *st)
{
	uintptr_t base = (uintptr_t)getauxval(AT_SYSINFO_EHDR);
	char line[512];
	uint64_t start, end, len = 0;
	const void *note;
	Elf *elf;
	ssize_t n;
	FILE *f;
	int err = 0;

	if (!base || !b->build_id_len)
		return 0;
	f = fopen("/proc/self/maps", "re");
	if (!f)
		return 0;
	while (fgets(line, sizeof(line), f)) {
		if (strstr(line, "[vdso]") && sscanf(line, "%" SCNx64 "-%" SCNx64, &start, &end) == 2 &&
		    start == base && end > start) {
			len = end - start;
			break;
		}
	}
	fclose(f);
	if (!len)
		return 0;
	elf = elf_memory((char *)base, (size_t)len);
	n = elf ? dwelf_elf_gnu_build_id(elf, &note) : -1;
	if (n > 0 && (size_t)n == b->build_id_len && !memcmp(note, b->build_id, b->build_id_len)) {
		err = append_file(w, b->build_id, b->build_id_len, AMB_FILE_VDSO, "[vdso]",
				  (const uint8_t *)base, len);
		if (!err) {
			st->files++;
			st->bytes += len;
		}
	}
	elf_end(elf);
	return err;
}

static int embed_dso(struct amb_writer *w, const struct archive_opts *o, struct ana_dso_table *t,
		     struct ana_dso *d, struct archive_stats *st)
{
	char hex[2 * ANA_BUILD_ID_MAX + 1];
	int err;

	if (!d->build_id_len) {
		amb_warn("%s: no build-id recorded: cannot be embedded safely; left out", d->path);
		st->missing++;
		return 0;
	}
	if (ana_dso_resolve(t, d) != ANA_DSO_FOUND || !d->verified) {
		st->missing++;   /* dso.c warned, naming what it tried */
		return 0;
	}
	err = embed_path(w, o, d->build_id, d->build_id_len, AMB_FILE_ELF, d->elf_path, st);
	if (err == -ESTALE || err == -ENOEXEC || err == -EFBIG) {
		amb_warn("%s: %s changed or cannot be embedded (%s); left out", d->path,
			 d->elf_path, err == -ESTALE ? "build-id differs now" : strerror(-err));
		st->missing++;
		return 0;
	}
	if (!err && !o->no_debug)
		err = embed_debug(w, o, d, st);
	if (err)
		amb_warn("%s (build-id %s): %s", d->path, ana_dso_build_id_hex(d, hex),
			 amb_strerror(err));
	return err;
}

enum { O_HIT = 256, O_ALL, O_MINI, O_NO_DEBUG, O_SYMFS, O_NO_DEBUGINFOD, O_COMPACT, O_NO_FILES };

static int archive_option(void *ctx, int c, const char *arg)
{
	struct archive_opts *o = ctx;
	char *end;
	long v;

	switch (c) {
	case 'o': o->out = arg; return 0;
	case O_HIT: o->all = false; return 0;
	case O_ALL: o->all = true; return 0;
	case O_MINI: o->mini = true; return 0;
	case O_NO_DEBUG: o->no_debug = true; return 0;
	case O_SYMFS: o->po.dso.symfs = arg; return 0;
	case O_NO_DEBUGINFOD: o->po.dso.no_debuginfod = true; return 0;
	case O_COMPACT: o->compact = true; return 0;
	case O_NO_FILES: o->no_files = true; return 0;
	case 'z':
		v = strtol(arg, &end, 10);
		if (end == arg || *end || v < 0 || v > 22) {
			amb_errmsg_set("not a level 0..22");
			return -EINVAL;
		}
		o->zstd_level = (int)v;
		return 0;
	case 'j':
		v = strtol(arg, &end, 10);
		if (end == arg || *end || v < 1 || v > AMB_WRITER_THREADS_MAX) {
			amb_errmsg_set("not a number of threads 1..%d", AMB_WRITER_THREADS_MAX);
			return -EINVAL;
		}
		o->po.jobs = (unsigned)v;
		return 0;
	default: return 1;
	}
}

/* Returns ANA_CMD_GO_ON or the exit status. */
static int parse_args(struct archive_opts *o, int argc, char **argv)
{
	static const struct option longopts[] = {
		{ "output", required_argument, NULL, 'o' },
		{ "hit", no_argument, NULL, O_HIT },
		{ "all", no_argument, NULL, O_ALL },
		{ "mini", no_argument, NULL, O_MINI },
		{ "no-debug", no_argument, NULL, O_NO_DEBUG },
		{ "symfs", required_argument, NULL, O_SYMFS },
		{ "no-debuginfod", no_argument, NULL, O_NO_DEBUGINFOD },
		{ "compact", no_argument, NULL, O_COMPACT },
		{ "no-files", no_argument, NULL, O_NO_FILES },
		{ "compression-level", required_argument, NULL, 'z' },
		{ "jobs", required_argument, NULL, 'j' },
		{ NULL, 0, NULL, 0 },
	};
	static const struct ana_cmd_desc desc = { "archive", usage, "o:z:j:", longopts, 1, 1, false };
	int rc;

	o->zstd_level = -1;
	rc = ana_cmd_parse(&desc, argc, argv, NULL, archive_option, o, &o->in);
	if (rc == ANA_CMD_GO_ON && !o->out) {
		fputs(usage, stderr);
		rc = 2;
	}
	if (o->zstd_level < 0)
		o->zstd_level = o->compact ? COMPACT_LEVEL : AMB_DEFAULT_ZSTD_LEVEL;
	return rc;
}

/* The writer's threads: -j, else one per CPU up to
 * WRITER_THREADS_DEFAULT_MAX. */
static unsigned writer_threads(const struct archive_opts *o)
{
	long n = sysconf(_SC_NPROCESSORS_ONLN);

	if (o->po.jobs)
		return o->po.jobs;
	return n > 1 ? (unsigned)AMB_MIN(n, WRITER_THREADS_DEFAULT_MAX) : 1;
}

int ana_cmd_archive(int argc, char **argv)
{
	struct archive_opts o = { .in = NULL };
	struct archive_stats st = { 0 };
	AMB_OPTS(amb_writer_opts, wo);
	AMB_OPTS(amb_copy_opts, co, .flags = AMB_COPY_SKIP_DAMAGED);
	long n;
	struct ana_pipeline *p = NULL;
	struct ana_session *s;
	struct ana_dso_table *t;
	struct ana_embed *have;
	struct ana_dso_hits h = { 0 };
	struct amb_writer *w = NULL;
	struct amb_reader *r;
	int err, ret;

	ana_pipeline_opts_init(&o.po);
	ret = parse_args(&o, argc, argv);
	if (ret != ANA_CMD_GO_ON)
		goto out;
	ret = 1;
	/* Files are looked for on this machine only; what IN embeds already
	 * is copied with its blocks. */
	o.po.host_files_only = true;
	if (ana_cmd_open("archive", o.in, &o.po, &p))
		goto out;
	s = ana_pipeline_session(p);
	r = ana_session_reader(s);
	t = ana_pipeline_dsos(p);
	have = ana_pipeline_embed(p);
	err = o.no_files ? 0 : ana_dso_hits_collect(p, &h);
	if (err) {
		ana_cmd_fail("archive", o.in, err);
		goto out;
	}

	amb_writer_opts_from(&wo, r);
	wo.zstd_level = o.zstd_level;
	wo.threads = (int)writer_threads(&o);
	if (o.compact) {
		wo.ring_codec = AMB_CODEC_SAMPLE;
		co.flags |= AMB_COPY_RECODE;
		co.ring_join = COMPACT_JOIN;
		/* Room for a joined block per thread and the next. */
		wo.max_queued = ((size_t)wo.threads + 1) * COMPACT_JOIN;
	}
	err = amb_writer_open(o.out, &wo, &w);
	if (err) {
		ana_cmd_error("archive", "cannot create %s: %s", o.out, amb_strerror(err));
		goto out;
	}
	/* A block the session warned about already is left out: an archive of
	 * a damaged file keeps what is intact. */
	n = amb_copy_blocks(r, w, &co);
	err = n < 0 ? (int)n : 0;
	for (size_t i = 0; !err && i < h.n; i++) {
		struct ana_dso *d = h.v[i].dso;

		if (!o.all && !h.v[i].samples && !h.v[i].frames)
			continue;
		if (d->build_id_len && (ana_embed_has(have, d->build_id, d->build_id_len, AMB_FILE_ELF) ||
					ana_embed_has(have, d->build_id, d->build_id_len,
						      AMB_FILE_ELF_MINI)))
			continue;
		err = embed_dso(w, &o, t, d, &st);
	}
	for (size_t i = 0; !err && !o.no_files && i < ana_session_buildid_count(s); i++) {
		const struct ana_buildid *b = ana_session_buildid(s, i);

		if (b->kind == AMB_DSO_VDSO &&
		    !ana_embed_has(have, b->build_id, b->build_id_len, AMB_FILE_VDSO))
			err = embed_vdso(w, b, &st);
	}
	if (err) {
		ana_cmd_error("archive", "writing %s: %s", o.out, amb_strerror(err));
		goto out;
	}
	err = amb_writer_close(w);
	w = NULL;
	if (err) {
		ana_cmd_error("archive", "closing %s: %s", o.out, amb_strerror(err));
		goto out;
	}
	fprintf(stderr, "[ amber-analyze archive: %u file%s embedded (%.2f MB before compression)%s; "
		"%u DSO%s not found with the recorded build-id -> ",
		st.files, st.files == 1 ? "" : "s", (double)st.bytes / 1e6,
		o.mini ? ", reduced" : "", st.missing, st.missing == 1 ? "" : "s");
	amb_fput_text(stderr, o.out);
	fputs(" ]\n", stderr);
	ret = 0;
out:
	if (w) {
		/* A half-written archive is not a valid one: close it, remove it. */
		amb_writer_close(w);
		unlink(o.out);
	}
	ana_dso_hits_free(&h);
	ana_pipeline_close(p);
	ana_pipeline_opts_free(&o.po);
	return ret;
}
