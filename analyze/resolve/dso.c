// SPDX-License-Identifier: MIT
/*
 * analyze/dso.c - the DSO table, keyed by build-id, and the search for each
 * DSO's ELF file (the order is documented at ana_dso_resolve in
 * symbols.h).  A file whose build-id differs from the recorded one is
 * never used: symbols from another build would be silently wrong.
 */
#include <assert.h>
#include <errno.h>
#include <fcntl.h>
#include <gelf.h>
#include <libelf.h>
#include <elfutils/libdwelf.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <limits.h>
#include <linux/openat2.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "analyze/resolve/debuginfod.h"
#include "analyze/resolve/dso.h"
#include "analyze/resolve/symbols.h"
#include "common/util.h"
#include <amber/common.h>

struct buildid_note {
	char *path;
	uint8_t id[ANA_BUILD_ID_MAX];
	uint8_t len;
};

struct ana_dso_table {
	struct ana_dso_opts opts;
	int symfs_fd;                        /* --symfs DIR, opened on first use; -1 */
	struct ana_dso **dsos;
	size_t nr, cap;
	struct buildid_note *notes;   /* the recording's BUILDID table */
	size_t nr_notes, cap_notes;
	ana_dso_embedded_fn embedded;
	void *embedded_ctx;
	struct ana_debuginfod *debuginfod;   /* made when first needed */
	bool debuginfod_failed;              /* ... and not made: no servers */
};

struct ana_dso_table *ana_dso_table_new(const struct ana_dso_opts *opts)
{
	struct ana_dso_table *t = calloc(1, sizeof(*t));

	if (!t)
		return NULL;
	if (opts)
		t->opts = *opts;
	t->symfs_fd = -1;
	elf_version(EV_CURRENT);
	return t;
}

void ana_dso_table_free(struct ana_dso_table *t)
{
	size_t i;

	if (!t)
		return;
	for (i = 0; i < t->nr; i++) {
		ana_sym_cache_free(t->dsos[i]->syms);
		free(t->dsos[i]->path);
		free(t->dsos[i]->elf_path);
		free(t->dsos[i]);
	}
	for (i = 0; i < t->nr_notes; i++)
		free(t->notes[i].path);
	if (t->symfs_fd >= 0)
		close(t->symfs_fd);
	ana_debuginfod_free(t->debuginfod);
	free(t->notes);
	free(t->dsos);
	free(t);
}

void ana_dso_table_set_embedded(struct ana_dso_table *t, ana_dso_embedded_fn fn, void *ctx)
{
	t->embedded = fn;
	t->embedded_ctx = ctx;
}

int ana_dso_table_add_buildid(struct ana_dso_table *t, const char *path,
			      const uint8_t *build_id, size_t len)
{
	struct buildid_note *n;

	if (!len || len > ANA_BUILD_ID_MAX)
		return 0;
	if (amb_ensure_cap((void **)&t->notes, &t->cap_notes, sizeof(*t->notes), t->nr_notes + 1))
		return -ENOMEM;
	n = &t->notes[t->nr_notes];
	n->path = strdup(path);
	if (!n->path)
		return -ENOMEM;
	memcpy(n->id, build_id, len);
	n->len = (uint8_t)len;
	t->nr_notes++;
	return 0;
}

static const struct buildid_note *note_find(const struct ana_dso_table *t, const char *path)
{
	size_t i;

	/* The last entry for a path wins: a later one describes a newer file. */
	for (i = t->nr_notes; i-- > 0;)
		if (!strcmp(t->notes[i].path, path))
			return &t->notes[i];
	return NULL;
}

static enum ana_dso_type type_of(const char *path, bool exec)
{
	if (!strcmp(path, "[vdso]"))
		return ANA_DSO_TYPE_VDSO;
	if (!strncmp(path, "[kernel.kallsyms]", 17))
		return ANA_DSO_TYPE_KERNEL;
	if (!*path || !strcmp(path, "//anon") || !strncmp(path, "/anon_hugepage", 14) ||
	    !strncmp(path, "[anon", 5) || !strcmp(path, "[heap]") ||
	    !strncmp(path, "[stack", 6) || !strncmp(path, "/dev/zero", 9) ||
	    !strncmp(path, "/memfd:", 7) || !strncmp(path, "/SYSV", 5))
		return exec ? ANA_DSO_TYPE_JIT : ANA_DSO_TYPE_ANON;
	if (!strncmp(path, "/tmp/perf-", 10))
		return ANA_DSO_TYPE_JIT;
	return ANA_DSO_TYPE_FILE;
}

static bool dso_matches(const struct ana_dso *d, const char *path, const uint8_t *id,
			size_t len)
{
	if (len || d->build_id_len)
		return d->build_id_len == len && !memcmp(d->build_id, id, len) &&
		       (len || !strcmp(d->path, path));
	return !strcmp(d->path, path);
}

struct ana_dso *ana_dso_table_get(struct ana_dso_table *t, const char *path,
				  const uint8_t *build_id, size_t len, bool exec,
				  uint32_t pid)
{
	enum ana_dso_type type = type_of(path, exec);
	char jit_name[48];
	struct ana_dso *d;
	size_t i;

	if (len > ANA_BUILD_ID_MAX)
		len = 0;
	if (type == ANA_DSO_TYPE_JIT) {
		/* perf's name for code nobody describes. */
		snprintf(jit_name, sizeof(jit_name), "[JIT] tid %u", pid);
		path = jit_name;
		len = 0;
	} else if (type == ANA_DSO_TYPE_ANON) {
		/* The heap and the main stack keep their names: data addresses
		 * (-d) are shown by the mapping that holds them. */
		path = !strcmp(path, "[heap]") ? "[heap]" : !strcmp(path, "[stack]") ? "[stack]"
		       : "//anon";
		len = 0;
	} else if (!len && (type == ANA_DSO_TYPE_FILE || type == ANA_DSO_TYPE_VDSO)) {
		const struct buildid_note *n = note_find(t, path);

		if (n) {
			build_id = n->id;
			len = n->len;
		}
	}
	/* Linear: a recording maps tens to hundreds of distinct DSOs, and
	 * callers cache the map -> DSO link. */
	for (i = 0; i < t->nr; i++)
		if (dso_matches(t->dsos[i], path, build_id, len))
			return t->dsos[i];
	if (amb_ensure_cap((void **)&t->dsos, &t->cap, sizeof(*t->dsos), t->nr + 1))
		return NULL;
	d = calloc(1, sizeof(*d));
	if (!d)
		return NULL;
	d->path = strdup(path);
	if (!d->path) {
		free(d);
		return NULL;
	}
	d->short_name = strrchr(d->path, '/');
	d->short_name = d->short_name && d->short_name[1] && type == ANA_DSO_TYPE_FILE ?
			d->short_name + 1 : d->path;
	if (len)
		memcpy(d->build_id, build_id, len);
	d->build_id_len = (uint8_t)len;
	d->type = type;
	d->no_demangle = t->opts.no_demangle;
	/* A [vdso] is looked for only as an embedded image, by build-id. */
	if (type != ANA_DSO_TYPE_FILE && !(type == ANA_DSO_TYPE_VDSO && len))
		d->status = ANA_DSO_NO_FILE;
	t->dsos[t->nr++] = d;
	return d;
}

char *ana_dso_build_id_hex(const struct ana_dso *d, char *buf)
{
	static const char hex[] = "0123456789abcdef";
	size_t i;

	for (i = 0; i < d->build_id_len; i++) {
		buf[2 * i] = hex[d->build_id[i] >> 4];
		buf[2 * i + 1] = hex[d->build_id[i] & 15];
	}
	buf[2 * i] = '\0';
	return buf;
}

/*
 * Build-id of the ELF at @path into @id (ANA_BUILD_ID_MAX bytes).  Returns
 * its length (0: the file has none), or -errno / -ENOEXEC for a file that
 * is not ELF.
 */
static ssize_t file_build_id(const char *path, uint8_t *id)
{
	const void *p;
	ssize_t n;
	Elf *elf;
	int fd;

	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	elf = elf_begin(fd, ELF_C_READ_MMAP, NULL);
	if (!elf || elf_kind(elf) != ELF_K_ELF) {
		n = -ENOEXEC;
		goto out;
	}
	n = dwelf_elf_gnu_build_id(elf, &p);
	if (n < 0 || n > ANA_BUILD_ID_MAX)
		n = 0;
	else if (n)
		memcpy(id, p, (size_t)n);
out:
	elf_end(elf);
	close(fd);
	return n;
}

static bool fmt_ok(int n, size_t len)
{
	return n > 0 && (size_t)n < len;
}

/* Outcome of trying one candidate file. */
enum try_result { TRY_ABSENT, TRY_MISMATCH, TRY_OK };

static enum try_result try_candidate(struct ana_dso *d, const char *path, char *why,
				     size_t why_len)
{
	uint8_t id[ANA_BUILD_ID_MAX];
	struct stat st;
	ssize_t n;

	if (stat(path, &st) || !S_ISREG(st.st_mode))
		return TRY_ABSENT;
	n = file_build_id(path, id);
	if (n < 0)
		return TRY_ABSENT;
	if (!d->build_id_len) {
		/* Nothing to check against: the path is all we have. */
		d->verified = false;
		return TRY_OK;
	}
	if ((size_t)n == d->build_id_len && !memcmp(id, d->build_id, (size_t)n)) {
		d->verified = true;
		return TRY_OK;
	}
	if (!why[0]) {
		char hex[2 * ANA_BUILD_ID_MAX + 1];
		static const char hx[] = "0123456789abcdef";
		ssize_t i;

		for (i = 0; i < n; i++) {
			hex[2 * i] = hx[id[i] >> 4];
			hex[2 * i + 1] = hx[id[i] & 15];
		}
		hex[n > 0 ? 2 * n : 0] = '\0';
		if (snprintf(why, why_len, "%s has build-id %s", path, n ? hex : "(none)") < 0)
			why[0] = '\0';
	}
	return TRY_MISMATCH;
}

/* A file to try, and which step of the search it stands for. */
struct dso_cand {
	char path[4200];
	enum ana_dso_origin origin;
	bool in_symfs;         /* @path is relative to --symfs DIR, as to a root */
};

#define DSO_CANDS_MAX 8

/* Append "<fmt>" as a candidate of @origin, relative to --symfs DIR when
 * @in_symfs; a path that does not fit is left out (no real file has it). */
static void cand_add(struct dso_cand *c, size_t *n, enum ana_dso_origin origin, bool in_symfs,
		     const char *fmt, ...) AMB_PRINTF(5, 6);
static void cand_add(struct dso_cand *c, size_t *n, enum ana_dso_origin origin, bool in_symfs,
		     const char *fmt, ...)
{
	va_list ap;
	int len;

	assert(*n < DSO_CANDS_MAX);
	va_start(ap, fmt);
	len = vsnprintf(c[*n].path, sizeof(c[*n].path), fmt, ap);
	va_end(ap);
	if (!fmt_ok(len, sizeof(c[*n].path)))
		return;
	c[*n].origin = origin;
	c[*n].in_symfs = in_symfs;
	(*n)++;
}

/* Whether @path has a ".." component. */
static bool has_dotdot(const char *path)
{
	for (const char *p = path; (p = strstr(p, "..")); p += 2)
		if ((p == path || p[-1] == '/') && (p[2] == '/' || !p[2]))
			return true;
	return false;
}

/*
 * The path on this machine of @rel under --symfs DIR taken as the root
 * directory, into @out: ".." and symbolic links (absolute ones too) stay
 * inside DIR, as in a chroot.  False when @rel does not resolve there.
 */
static bool symfs_resolve(struct ana_dso_table *t, const char *rel, char *out, size_t len)
{
	struct open_how how = {
		.flags = O_RDONLY | O_CLOEXEC,
		.resolve = RESOLVE_IN_ROOT | RESOLVE_NO_MAGICLINKS,
	};
	char proc[64], root[PATH_MAX], *real;
	ssize_t n;
	size_t rl;
	int fd;

	if (t->symfs_fd < 0)
		t->symfs_fd = open(t->opts.symfs, O_PATH | O_DIRECTORY | O_CLOEXEC);
	if (t->symfs_fd < 0)
		return false;
	fd = (int)syscall(SYS_openat2, t->symfs_fd, rel, &how, sizeof(how));
	if (fd >= 0) {
		/* Where the file really is: inside DIR by construction. */
		snprintf(proc, sizeof(proc), "/proc/self/fd/%d", fd);
		n = readlink(proc, out, len - 1);
		close(fd);
		if (n <= 0 || (size_t)n >= len - 1)
			return false;
		out[n] = '\0';
		return true;
	}
	if (errno != ENOSYS)
		return false;
	/* No openat2 (Linux < 5.6): refuse ".." and check where symbolic
	 * links lead; an absolute link inside DIR cannot be followed. */
	if (has_dotdot(rel) || !realpath(t->opts.symfs, root))
		return false;
	{
		char joined[PATH_MAX + 4200];

		if (!fmt_ok(snprintf(joined, sizeof(joined), "%s/%s", root, rel), sizeof(joined)))
			return false;
		real = realpath(joined, NULL);
	}
	rl = strlen(root);
	if (!real || strncmp(real, root, rl) || (real[rl] != '/' && strcmp(root, "/")) ||
	    !fmt_ok((int)strlen(real), len)) {
		free(real);
		return false;
	}
	strcpy(out, real);
	free(real);
	return true;
}

static char host_vdso_file[64];
static pthread_once_t host_vdso_once = PTHREAD_ONCE_INIT;

/* Copy this process's vDSO (amb_self_vdso()) into a memfd. */
static void host_vdso_make(void)
{
	const void *image;
	size_t len;
	int fd;

	if (amb_self_vdso(&image, &len) || (fd = memfd_create("amber-vdso", MFD_CLOEXEC)) < 0)
		return;
	for (size_t done = 0; done < len;) {
		ssize_t n = write(fd, (const char *)image + done, len - done);

		if (n <= 0) {
			close(fd);
			return;
		}
		done += (size_t)n;
	}
	/* Kept open for the life of the process: the path names it. */
	snprintf(host_vdso_file, sizeof(host_vdso_file), "/proc/self/fd/%d", fd);
}

/*
 * This machine's vDSO as a file, "/proc/self/fd/N", made once; NULL when
 * it cannot be read.  A recording's [vdso] whose build-id is this
 * kernel's resolves to it, as perf's does through its cache on the host
 * that recorded (try_candidate() checks the build-id).
 */
static const char *host_vdso(void)
{
	pthread_once(&host_vdso_once, host_vdso_make);
	return host_vdso_file[0] ? host_vdso_file : NULL;
}

/* Steps 1-5 of ana_dso_resolve for @d, in order, into @c. */
static size_t local_candidates(const struct ana_dso_table *t, const struct ana_dso *d,
			       struct dso_cand *c)
{
	const char *symfs = t->opts.symfs;
	const char *home = t->opts.home ? t->opts.home : getenv("HOME");
	char hex[2 * ANA_BUILD_ID_MAX + 1];
	size_t n = 0;

	ana_dso_build_id_hex(d, hex);
	if (d->build_id_len && t->embedded) {
		const char *p = t->embedded(t->embedded_ctx, d->build_id, d->build_id_len);

		if (p)
			cand_add(c, &n, ANA_DSO_FROM_EMBEDDED, false, "%s", p);
	}
	if (d->type == ANA_DSO_TYPE_VDSO && d->build_id_len && !symfs && host_vdso())
		cand_add(c, &n, ANA_DSO_FROM_HOST_VDSO, false, "%s", host_vdso());
	if (d->type != ANA_DSO_TYPE_FILE)
		return n;   /* a [vdso] exists only in memory, or embedded */
	/* perf's --symfs: the recorded path under DIR, never on this host. */
	if (symfs)
		cand_add(c, &n, ANA_DSO_FROM_SYMFS, true, "%s", d->path);
	else
		cand_add(c, &n, ANA_DSO_FROM_PATH, false, "%s", d->path);
	if (!d->build_id_len)
		return n;   /* only the recorded path is safe without a build-id */
	if (t->opts.debug_dir)
		cand_add(c, &n, ANA_DSO_FROM_DEBUG_DIR, false, "%s/.build-id/%.2s/%s.debug",
			 t->opts.debug_dir, hex, hex + 2);
	else
		cand_add(c, &n, ANA_DSO_FROM_DEBUG_DIR, symfs != NULL,
			 "/usr/lib/debug/.build-id/%.2s/%s.debug", hex, hex + 2);
	/* ~/.debug is this machine's cache: --symfs stands for another one. */
	if (home && !symfs) {
		cand_add(c, &n, ANA_DSO_FROM_DOT_DEBUG, false, "%s/.debug/.build-id/%.2s/%s", home,
			 hex, hex + 2);
		/* perf >= 4.x caches a directory holding "elf" and "debug". */
		cand_add(c, &n, ANA_DSO_FROM_DOT_DEBUG, false, "%s/.debug/.build-id/%.2s/%s/elf",
			 home, hex, hex + 2);
	}
	if (symfs)
		cand_add(c, &n, ANA_DSO_FROM_SYMFS, true, "/.build-id/%.2s/%s", hex, hex + 2);
	return n;
}

/* Take @path as @d's ELF.  False only when out of memory. */
static bool dso_found(struct ana_dso *d, const char *path, enum ana_dso_origin origin)
{
	d->elf_path = strdup(path);
	if (!d->elf_path)
		return false;
	d->origin = origin;
	d->status = ANA_DSO_FOUND;
	return true;
}

/*
 * Step 6: ask the debuginfod servers for the executable, else the debug
 * info, of @d.  The client is made on first use; a table whose client
 * cannot be made asks no more.
 */
static enum try_result try_debuginfod(struct ana_dso_table *t, struct ana_dso *d, char *why,
				      size_t why_len, char **path)
{
	enum try_result res = TRY_ABSENT;

	*path = NULL;
	if (t->opts.no_debuginfod || !d->build_id_len || d->type != ANA_DSO_TYPE_FILE ||
	    t->debuginfod_failed)
		return TRY_ABSENT;
	if (!t->debuginfod) {
		t->debuginfod = ana_debuginfod_new();
		if (!t->debuginfod) {
			t->debuginfod_failed = true;
			return TRY_ABSENT;
		}
	}
	for (int debuginfo = 0; debuginfo < 2 && res != TRY_OK; debuginfo++) {
		char *p = ana_debuginfod_find(t->debuginfod, d->build_id, d->build_id_len,
					      debuginfo);

		if (!p)
			continue;
		res = try_candidate(d, p, why, why_len);
		if (res == TRY_OK)
			*path = p;
		else
			free(p);
	}
	return res;
}

/* The search itself, done once per DSO: ana_dso_resolve() is called for
 * every frame, and this one's frame is 34 KiB of candidate paths. */
static enum ana_dso_status dso_search(struct ana_dso_table *t, struct ana_dso *d)
{
	struct dso_cand cand[DSO_CANDS_MAX];
	char why[4400] = "";
	char hex[2 * ANA_BUILD_ID_MAX + 1];
	const char *dbg = t->opts.debug_dir ? t->opts.debug_dir : "/usr/lib/debug";
	bool mismatch = false;
	enum try_result r;
	char *found;
	size_t n, i;

	n = local_candidates(t, d, cand);
	for (i = 0; i < n; i++) {
		char real[4200];

		if (cand[i].in_symfs) {
			if (!symfs_resolve(t, cand[i].path, real, sizeof(real)))
				continue;
			memcpy(cand[i].path, real, strlen(real) + 1);
		}
		r = try_candidate(d, cand[i].path, why, sizeof(why));
		if (r == TRY_OK)
			return dso_found(d, cand[i].path, cand[i].origin) ? d->status
									   : ANA_DSO_UNRESOLVED;
		mismatch |= r == TRY_MISMATCH;
	}
	if (d->type == ANA_DSO_TYPE_VDSO) {
		/* Not embedded: nothing else can have it, and nothing to warn. */
		d->status = ANA_DSO_NO_FILE;
		return d->status;
	}
	r = try_debuginfod(t, d, why, sizeof(why), &found);
	if (r == TRY_OK) {
		bool ok = dso_found(d, found, ANA_DSO_FROM_DEBUGINFOD);

		free(found);
		return ok ? d->status : ANA_DSO_UNRESOLVED;   /* unresolved: try again later */
	}
	mismatch |= r == TRY_MISMATCH;
	d->status = mismatch ? ANA_DSO_MISMATCH : ANA_DSO_MISSING;
	if (!d->warned) {
		d->warned = true;
		if (mismatch)
			amb_warn("%s: no file with the recorded build-id %s (%s); its frames are marked [stale build-id]",
				 d->path, ana_dso_build_id_hex(d, hex), why);
		else
			amb_warn("%s: not found (build-id %s; tried %s%s, %s/.build-id%s%s); no symbols",
				 d->path, d->build_id_len ? ana_dso_build_id_hex(d, hex) : "not recorded",
				 t->opts.symfs ? "under --symfs " : "the path", t->opts.symfs ? t->opts.symfs : "",
				 t->opts.symfs && !t->opts.debug_dir ? "<symfs>/usr/lib/debug" : dbg,
				 t->opts.symfs ? "" : ", ~/.debug", t->debuginfod ? " and debuginfod" : "");
	}
	return d->status;
}

enum ana_dso_status ana_dso_resolve(struct ana_dso_table *t, struct ana_dso *d)
{
	if (d->status != ANA_DSO_UNRESOLVED)
		return d->status;
	return dso_search(t, d);
}
