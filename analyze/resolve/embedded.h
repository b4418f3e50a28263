/* SPDX-License-Identifier: MIT */
/*
 * analyze/resolve/embedded.h - files embedded in a recording (FILE blocks,
 * FORMAT.md §5.5): finding them, reassembling their parts, verifying them
 * and extracting them into a private cache directory that dso.c can use
 * (embedded.c).
 *
 * Trust: a recording is untrusted input.  An embedded file is written only
 * under a directory made with mkdtemp (mode 0700) in $TMPDIR, named only by
 * the hex of its build-id (never by the name stored in the block), created
 * with O_EXCL | O_NOFOLLOW and mode 0600, and used only when its parts are
 * all intact (payload checksums), tile [0, file_size) without overlap or
 * hole, and its NT_GNU_BUILD_ID note equals the build-id it is filed
 * under, and nothing is written before cheap checks pass (its size
 * against the recording bytes that hold it, an ELF header in its first
 * part).  The directory and everything in it are removed by
 * ana_embed_free(), or by ana_embed_remove_all() from a signal handler.
 */
#ifndef AMB_ANALYZE_EMBEDDED_H
#define AMB_ANALYZE_EMBEDDED_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "analyze/replay/replay.h"
#include "analyze/resolve/dso.h"

/* Cap on the size of one embedded file, and on all extracted bytes. */
#define ANA_EMBED_FILE_MAX  (2ull << 30)
#define ANA_EMBED_TOTAL_MAX (8ull << 30)
/* A file is extracted only when its size is at most this many times the
 * recording's stored bytes that hold it, plus ANA_EMBED_SLACK. */
#define ANA_EMBED_RATIO_MAX 64u
#define ANA_EMBED_SLACK     (1ull << 20)

struct ana_embed;

/*
 * Index the FILE blocks of @r (borrowed; must outlive the result): which
 * (build-id, kind) files exist and where their parts are.  Nothing is
 * written until a file is asked for.  Blocks that do not load or parse are
 * reported with amb_warn() and skipped.  @tmpdir is where the cache
 * directory is made (NULL: $TMPDIR, else /tmp).  Returns 0 or -ENOMEM;
 * free with ana_embed_free() (NULL accepted), which removes the cache.
 */
int ana_embed_open(struct amb_reader *r, const char *tmpdir, struct ana_embed **out);
void ana_embed_free(struct ana_embed *e);

/* Number of distinct (build-id, kind) files the recording embeds. */
size_t ana_embed_count(const struct ana_embed *e);

/* The @i-th embedded file: its build-id, kind (AMB_FILE_*), size, and the
 * stored name (informational, not NUL-terminated, never a path).  Returns
 * false when @i is out of range. */
bool ana_embed_info(const struct ana_embed *e, size_t i, const uint8_t **build_id,
		    size_t *build_id_len, unsigned *kind, uint64_t *size,
		    const char **name, size_t *name_len);

/* True when a file of @kind with @build_id is embedded (not yet checked). */
bool ana_embed_has(const struct ana_embed *e, const uint8_t *build_id, size_t len,
		   unsigned kind);

/*
 * The path of the verified, extracted file of @kind for @build_id,
 * extracting it on first use; NULL when it is not embedded or fails a
 * check (warned once with amb_warn(), naming the build-id and the block).
 * The string is owned by @e.
 */
const char *ana_embed_path(struct ana_embed *e, const uint8_t *build_id, size_t len,
			   unsigned kind);

/*
 * The ana_dso_embedded_fn for dso.c: the ELF for @build_id (full ELF,
 * else reduced ELF, else vDSO image, else separate debug info).  The
 * separate debug info, when embedded, is extracted next to it as
 * "<rest of hex>.debug", the name Debian's .gnu_debuglink gives, so that
 * libdwfl finds it.  @ctx is the struct ana_embed.
 */
const char *ana_embed_lookup(void *ctx, const uint8_t *build_id, size_t len);

/*
 * Remove the cache directory of every ana_embed of this process, and all
 * that is in it.  Async-signal-safe (system calls only): for a handler of
 * the signals that end the process (SIGINT, SIGTERM, SIGHUP, SIGPIPE),
 * which then lets the signal take its course.  The ana_embed objects are
 * not to be used afterwards.
 */
void ana_embed_remove_all(void);


#endif /* AMB_ANALYZE_EMBEDDED_H */
