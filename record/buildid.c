// SPDX-License-Identifier: MIT
/*
 * record/buildid.c - read NT_GNU_BUILD_ID notes: from ELF files and images
 * (libelf) and from raw note files such as /sys/kernel/notes; plus a cache
 * keyed by (device, inode) so each mapped file is opened once.
 */
#include <errno.h>
#include <fcntl.h>
#include <gelf.h>
#include <libelf.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "common/util.h"
#include "record/buildid.h"

#ifndef NT_GNU_BUILD_ID
#define NT_GNU_BUILD_ID 3
#endif

static void set_id(struct rec_buildid *out, const void *desc, size_t len)
{
	len = AMB_MIN(len, sizeof(out->id));
	memcpy(out->id, desc, len);
	out->len = (uint8_t)len;
}

int rec_buildid_from_notes(const void *buf, size_t len, struct rec_buildid *out)
{
	const uint8_t *p = buf;
	size_t pos = 0;

	memset(out, 0, sizeof(*out));
	/* Elf{32,64}_Nhdr are the same: namesz, descsz, type; 4-byte padding. */
	while (len - pos >= 12) {
		uint32_t namesz, descsz, type;
		size_t name_pad, desc_pad;

		memcpy(&namesz, p + pos, 4);
		memcpy(&descsz, p + pos + 4, 4);
		memcpy(&type, p + pos + 8, 4);
		pos += 12;
		name_pad = ((size_t)namesz + 3) & ~(size_t)3;
		desc_pad = ((size_t)descsz + 3) & ~(size_t)3;
		if (name_pad > len - pos || desc_pad > len - pos - name_pad)
			return -ENOENT;
		if (type == NT_GNU_BUILD_ID && namesz == 4 &&
		    !memcmp(p + pos, "GNU", 4) && descsz) {
			set_id(out, p + pos + name_pad, descsz);
			return 0;
		}
		pos += name_pad + desc_pad;
	}
	return -ENOENT;
}

/* Walk the SHT_NOTE sections, then the PT_NOTE segments (stripped files
 * may lack section headers). */
static int elf_find_buildid(Elf *elf, struct rec_buildid *out)
{
	Elf_Scn *scn = NULL;
	size_t nph;

	if (elf_kind(elf) != ELF_K_ELF)
		return -EINVAL;
	while ((scn = elf_nextscn(elf, scn))) {
		GElf_Shdr sh;
		Elf_Data *data;
		GElf_Nhdr nh;
		size_t off = 0, noff, doff;

		if (!gelf_getshdr(scn, &sh) || sh.sh_type != SHT_NOTE)
			continue;
		data = elf_getdata(scn, NULL);
		if (!data)
			continue;
		while ((off = gelf_getnote(data, off, &nh, &noff, &doff)) > 0) {
			if (nh.n_type == NT_GNU_BUILD_ID && nh.n_namesz == 4 &&
			    !memcmp((char *)data->d_buf + noff, "GNU", 4) && nh.n_descsz) {
				set_id(out, (char *)data->d_buf + doff, nh.n_descsz);
				return 0;
			}
		}
	}
	if (elf_getphdrnum(elf, &nph))
		return -ENOENT;
	for (size_t i = 0; i < nph; i++) {
		GElf_Phdr ph;
		Elf_Data *data;
		GElf_Nhdr nh;
		size_t off = 0, noff, doff;

		if (!gelf_getphdr(elf, (int)i, &ph) || ph.p_type != PT_NOTE)
			continue;
		data = elf_getdata_rawchunk(elf, (int64_t)ph.p_offset, ph.p_filesz,
					    ph.p_align == 8 ? ELF_T_NHDR8 : ELF_T_NHDR);
		if (!data)
			continue;
		while ((off = gelf_getnote(data, off, &nh, &noff, &doff)) > 0) {
			if (nh.n_type == NT_GNU_BUILD_ID && nh.n_namesz == 4 &&
			    !memcmp((char *)data->d_buf + noff, "GNU", 4) && nh.n_descsz) {
				set_id(out, (char *)data->d_buf + doff, nh.n_descsz);
				return 0;
			}
		}
	}
	return -ENOENT;
}

int rec_buildid_from_file(const char *path, struct rec_buildid *out)
{
	struct stat sb;
	Elf *elf;
	int fd, err;

	memset(out, 0, sizeof(*out));
	elf_version(EV_CURRENT);
	/* The path comes from /proc/PID/maps and may have been replaced
	 * since by a FIFO or a device: never block opening it, never read
	 * anything but a regular file. */
	fd = open(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK | O_NOCTTY);
	if (fd < 0)
		return -errno;
	if (fstat(fd, &sb)) {
		err = -errno;
		goto out;
	}
	if (!S_ISREG(sb.st_mode)) {
		err = -EINVAL;
		goto out;
	}
	elf = elf_begin(fd, ELF_C_READ_MMAP, NULL);
	err = elf ? elf_find_buildid(elf, out) : -EINVAL;
	elf_end(elf);
out:
	close(fd);
	return err;
}

int rec_buildid_from_memory(const void *image, size_t len, struct rec_buildid *out)
{
	Elf *elf;
	int err;

	memset(out, 0, sizeof(*out));
	elf_version(EV_CURRENT);
	/* libelf does not write through the pointer with ELF_C_READ. */
	elf = elf_memory((char *)image, len);
	err = elf ? elf_find_buildid(elf, out) : -EINVAL;
	elf_end(elf);
	return err;
}

struct buildid_slot {
	uint64_t dev, ino;
	struct rec_buildid bid;
};

struct rec_buildid_cache {
	struct buildid_slot *v;
	size_t n, cap;
};

struct rec_buildid_cache *rec_buildid_cache_new(void)
{
	return calloc(1, sizeof(struct rec_buildid_cache));
}

void rec_buildid_cache_free(struct rec_buildid_cache *c)
{
	if (!c)
		return;
	free(c->v);
	free(c);
}

int rec_buildid_cache_get(struct rec_buildid_cache *c, uint64_t dev, uint64_t ino,
			  const char *path, struct rec_buildid *out)
{
	struct buildid_slot *s;

	/* A recording maps at most a few thousand distinct files; a linear
	 * scan over them costs nothing next to opening one ELF file. */
	for (size_t i = 0; i < c->n; i++) {
		if (c->v[i].dev == dev && c->v[i].ino == ino) {
			*out = c->v[i].bid;
			return out->len ? 0 : -ENOENT;
		}
	}
	if (amb_ensure_cap((void **)&c->v, &c->cap, sizeof(*c->v), c->n + 1))
		return -ENOMEM;
	s = &c->v[c->n++];
	s->dev = dev;
	s->ino = ino;
	rec_buildid_from_file(path, &s->bid);
	*out = s->bid;
	return out->len ? 0 : -ENOENT;
}
