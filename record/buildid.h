/* SPDX-License-Identifier: MIT */
/*
 * record/buildid.h - GNU build-ids read with libelf from files, memory
 * and note sections, and a cache of them by (device, inode) (buildid.c).
 */
#ifndef AMB_REC_BUILDID_H
#define AMB_REC_BUILDID_H

#include <stddef.h>
#include <stdint.h>

#define REC_BUILDID_MAX 20u   /* what an MMAP2 record can carry */

/* A build-id; at most REC_BUILDID_MAX bytes of it fit in an MMAP2 record. */
struct rec_buildid {
	uint8_t len;                  /* 0: none found */
	uint8_t id[64];
};

/* Find an NT_GNU_BUILD_ID note in a raw note section (@buf, @len: a
 * sequence of ELF notes, as /sys/kernel/notes).  Returns 0, or -ENOENT. */
int rec_buildid_from_notes(const void *buf, size_t len, struct rec_buildid *out);

/* Build-id of the ELF file at @path (libelf).  0, -ENOENT when it has none,
 * -errno when it cannot be opened, -EINVAL when it is not ELF. */
int rec_buildid_from_file(const char *path, struct rec_buildid *out);

/* Same for an ELF image in memory (the vDSO). */
int rec_buildid_from_memory(const void *image, size_t len, struct rec_buildid *out);

/* Cache by (device, inode): each mapped file is read once. */
struct rec_buildid_cache;
/* An empty cache, or NULL (errno ENOMEM).  Free with rec_buildid_cache_free(). */
struct rec_buildid_cache *rec_buildid_cache_new(void);
/* Free @c and its entries (NULL-safe). */
void rec_buildid_cache_free(struct rec_buildid_cache *c);
/* Look up (dev, ino) or read @path; the result (possibly len 0) is cached.
 * Returns 0 with *@out filled, -ENOENT when the file has no build-id (or
 * cannot be read; *@out has len 0), -ENOMEM. */
int rec_buildid_cache_get(struct rec_buildid_cache *c, uint64_t dev, uint64_t ino,
			  const char *path, struct rec_buildid *out);

#endif /* AMB_REC_BUILDID_H */
