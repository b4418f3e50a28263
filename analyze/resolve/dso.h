/* SPDX-License-Identifier: MIT */
/*
 * analyze/resolve/dso.h - the DSO table (dso.c): every shared object of a
 * recording, keyed by build-id, and the search for its ELF file.
 *
 * A DSO is identified by its build-id.  Its ELF is looked for in a fixed
 * order (ana_dso_resolve) and used only when its build-id matches the
 * recorded one; a DSO without a usable ELF still gets a name, and its
 * frames are marked.
 */
#ifndef AMB_ANALYZE_DSO_H
#define AMB_ANALYZE_DSO_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define ANA_BUILD_ID_MAX 64

/* What became of the search for a DSO's ELF (dso.c). */
enum ana_dso_status {
	ANA_DSO_UNRESOLVED = 0, /* not looked for yet */
	ANA_DSO_FOUND,          /* an ELF with the recorded build-id (or, without one, the path) */
	ANA_DSO_MISSING,        /* no candidate file exists */
	ANA_DSO_MISMATCH,       /* candidates exist, none has the recorded build-id */
	ANA_DSO_NO_FILE,        /* nothing to look for: //anon, [heap], a [vdso] without build-id ... */
};

/* Where a FOUND DSO's ELF came from (the steps of ana_dso_resolve). */
enum ana_dso_origin {
	ANA_DSO_FROM_NONE = 0,
	ANA_DSO_FROM_EMBEDDED,  /* a FILE block of the recording */
	ANA_DSO_FROM_PATH,      /* the recorded path on this machine */
	ANA_DSO_FROM_SYMFS,     /* under --symfs */
	ANA_DSO_FROM_DEBUG_DIR, /* <debug_dir>/.build-id */
	ANA_DSO_FROM_DOT_DEBUG, /* ~/.debug */
	ANA_DSO_FROM_DEBUGINFOD,
	ANA_DSO_FROM_HOST_VDSO, /* this machine's vDSO: the same kernel build */
};

enum ana_dso_type {
	ANA_DSO_TYPE_FILE = 0,  /* a mapped ELF file */
	ANA_DSO_TYPE_ANON,      /* anonymous memory, [heap], [stack] */
	ANA_DSO_TYPE_JIT,       /* executable anonymous memory: JIT code */
	ANA_DSO_TYPE_VDSO,
	ANA_DSO_TYPE_KERNEL,    /* [kernel.kallsyms] and modules: see ana_ksyms */
};

struct ana_sym_cache;

/* One shared object.  Owned by its ana_dso_table; never freed before it. */
struct ana_dso {
	char *path;                         /* as recorded */
	const char *short_name;             /* basename of @path, or @path */
	uint8_t build_id[ANA_BUILD_ID_MAX];
	uint8_t build_id_len;               /* 0: none recorded */
	enum ana_dso_type type;
	enum ana_dso_status status;
	char *elf_path;                     /* the file used, when FOUND */
	enum ana_dso_origin origin;         /* where @elf_path was found */
	bool verified;                      /* FOUND by build-id, not by path alone */
	bool warned;
	bool no_demangle;                   /* names as the ELF spells them (opts) */
	struct ana_sym_cache *syms;         /* symbols.c state, created lazily */
};

/* Where dso.c looks for ELF files (see ana_dso_resolve). */
struct ana_dso_opts {
	const char *symfs;          /* --symfs DIR, or NULL */
	const char *home;           /* for ~/.debug; NULL: $HOME */
	const char *debug_dir;      /* NULL: /usr/lib/debug, or <symfs>/usr/lib/debug */
	bool no_debuginfod;         /* never ask debuginfod servers */
	bool no_demangle;           /* C++ and Rust symbols as the ELF spells them */
};

struct ana_dso_table;

/*
 * A table of DSOs keyed by build-id (or by path when none is known).
 * @opts is copied (its strings must outlive the table).  NULL with errno
 * set on failure.  Free with ana_dso_table_free() (NULL accepted), which
 * also frees every DSO's symbol state.
 */
struct ana_dso_table *ana_dso_table_new(const struct ana_dso_opts *opts);
void ana_dso_table_free(struct ana_dso_table *t);

/*
 * Remember that @path has @build_id (from the recording's BUILDID table),
 * so that MMAP2 records without one find it.  Returns 0 or -ENOMEM.
 */
int ana_dso_table_add_buildid(struct ana_dso_table *t, const char *path,
			      const uint8_t *build_id, size_t len);

/*
 * The DSO for a mapping of @path with @build_id (@len 0 when the record had
 * none: the BUILDID table is consulted, then the path alone is the key).
 * @exec tells JIT code from data when @path names anonymous memory.  @pid is
 * used only in a JIT DSO's name.  The DSO is created on first use and owned
 * by @t.  NULL on -ENOMEM.
 */
struct ana_dso *ana_dso_table_get(struct ana_dso_table *t, const char *path,
				  const uint8_t *build_id, size_t len, bool exec,
				  uint32_t pid);

/*
 * Find @d's ELF file (once; later calls return the first answer) in this
 * order, using a file only when its build-id equals the recorded one:
 *  1. a copy embedded in the recording (FILE blocks, FORMAT.md §5.5); for
 *     a [vdso], only that and, without --symfs, this machine's own vDSO
 *     (its kernel's, read from this process's memory),
 *  2. the recorded path; with --symfs DIR, DIR/<recorded path> instead,
 *     so that an empty DIR hides this machine's files as in perf,
 *  3. <debug_dir>/.build-id/xx/rest.debug, where debug_dir defaults to
 *     /usr/lib/debug, or with --symfs to DIR/usr/lib/debug,
 *  4. without --symfs, ~/.debug/.build-id/xx/rest[/elf] (perf's cache),
 *  5. with --symfs, DIR/.build-id/xx/rest,
 *  6. debuginfod servers, when DEBUGINFOD_URLS is set and
 *     @opts->no_debuginfod is not (debuginfod.c),
 * and warns once per DSO (amb_warn) when none fits.  Paths under DIR are
 * resolved as if DIR were the root directory: neither ".." in a recorded
 * path nor a symbolic link in DIR leads out of it (openat2 with
 * RESOLVE_IN_ROOT; where the kernel lacks it, a path whose real location
 * is outside DIR is not used).  Returns @d->status.
 */
enum ana_dso_status ana_dso_resolve(struct ana_dso_table *t, struct ana_dso *d);

/* Lower-case hex of @d's build-id into @buf (at least 129 bytes). */
char *ana_dso_build_id_hex(const struct ana_dso *d, char *buf);

/*
 * Hook for embedded files (FILE blocks): @fn is asked first for an ELF
 * path with @build_id; it returns a path owned by the callee, or NULL.
 */
typedef const char *(*ana_dso_embedded_fn)(void *ctx, const uint8_t *build_id, size_t len);
void ana_dso_table_set_embedded(struct ana_dso_table *t, ana_dso_embedded_fn fn, void *ctx);

#endif /* AMB_ANALYZE_DSO_H */
