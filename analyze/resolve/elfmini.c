// SPDX-License-Identifier: MIT
/*
 * analyze/elfmini.c - reduce an ELF file to what symbolization and
 * unwinding read: symbol tables, CFI, line tables and inline information,
 * notes (the build-id) and the program headers (which map mmap offsets to
 * ELF addresses).  Every other section keeps its header, as SHT_NOBITS, so
 * section numbers, sh_link and sh_info stay valid: the result is what
 * `eu-strip --only-keep-debug` makes, plus .eh_frame and the dynamic
 * symbols.
 */
#include <errno.h>
#include <gelf.h>
#include <libelf.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "analyze/resolve/elfmini.h"
#include <amber/common.h>

static bool keep_section(const char *name, const GElf_Shdr *sh, size_t idx, size_t shstrndx)
{
	static const char *const keep[] = {
		".symtab", ".strtab", ".dynsym", ".dynstr", ".eh_frame", ".eh_frame_hdr",
		".debug_frame", ".debug_line", ".debug_line_str", ".debug_info",
		".debug_abbrev", ".debug_str", ".debug_str_offsets", ".debug_addr",
		".debug_rnglists", ".debug_ranges", ".debug_aranges", ".gnu_debuglink",
		".gnu_debugdata",
	};

	if (idx == shstrndx || sh->sh_type == SHT_NOTE)
		return true;
	if (!name)
		return false;
	for (size_t i = 0; i < AMB_ARRAY_SIZE(keep); i++)
		if (!strcmp(name, keep[i]))
			return true;
	/* Compressed (.zdebug_*) forms of the same sections. */
	if (!strncmp(name, ".zdebug_", 8)) {
		char plain[64];

		snprintf(plain, sizeof(plain), ".%s", name + 2);
		return keep_section(plain, sh, idx, SIZE_MAX);
	}
	return false;
}

/* Copy the sections of @in to @out, emptying those not kept. */
static int copy_sections(Elf *in, Elf *out, size_t shstrndx)
{
	Elf_Scn *scn = NULL;

	while ((scn = elf_nextscn(in, scn))) {
		Elf_Scn *nscn = elf_newscn(out);
		Elf_Data *d, *nd;
		GElf_Shdr sh;
		const char *name;
		bool keep;

		if (!nscn || !gelf_getshdr(scn, &sh))
			return -EINVAL;
		name = elf_strptr(in, shstrndx, sh.sh_name);
		keep = sh.sh_type != SHT_NOBITS && keep_section(name, &sh, elf_ndxscn(scn), shstrndx);
		nd = elf_newdata(nscn);
		if (!nd)
			return -ENOMEM;
		if (keep) {
			d = elf_rawdata(scn, NULL);
			if (!d)
				return -EINVAL;
			nd->d_buf = d->d_buf;
			nd->d_size = d->d_size;
			nd->d_type = ELF_T_BYTE;
			nd->d_align = d->d_align ? d->d_align : 1;
			nd->d_version = EV_CURRENT;
		} else {
			sh.sh_type = SHT_NOBITS;
			nd->d_buf = NULL;
			nd->d_size = sh.sh_size;
			nd->d_type = ELF_T_BYTE;
			nd->d_align = sh.sh_addralign ? sh.sh_addralign : 1;
			nd->d_version = EV_CURRENT;
		}
		if (!gelf_update_shdr(nscn, &sh))
			return -EINVAL;
	}
	return 0;
}

int ana_elf_reduce(const void *image, size_t len, uint8_t **out, size_t *out_len)
{
	Elf *in = NULL, *o = NULL;
	GElf_Ehdr eh;
	size_t shstrndx, nph;
	uint8_t *buf = NULL;
	off_t size;
	int fd = -1, err = -EINVAL;

	elf_version(EV_CURRENT);
	in = elf_memory((char *)image, len);
	if (!in || elf_kind(in) != ELF_K_ELF || !gelf_getehdr(in, &eh) ||
	    elf_getshdrstrndx(in, &shstrndx) || elf_getphdrnum(in, &nph))
		goto out;
	fd = memfd_create("amber-elfmini", MFD_CLOEXEC);
	if (fd < 0) {
		err = -errno;
		goto out;
	}
	o = elf_begin(fd, ELF_C_WRITE, NULL);
	if (!o || !gelf_newehdr(o, gelf_getclass(in)))
		goto out;
	if (nph) {
		if (!gelf_newphdr(o, nph))
			goto out;
		for (size_t i = 0; i < nph; i++) {
			GElf_Phdr ph;

			/* Copied as they are: they describe the original file's
			 * layout, which the recorded mmap offsets refer to. */
			if (!gelf_getphdr(in, (int)i, &ph) || !gelf_update_phdr(o, (int)i, &ph))
				goto out;
		}
	}
	err = copy_sections(in, o, shstrndx);
	if (err)
		goto out;
	err = -EINVAL;
	eh.e_shstrndx = (GElf_Half)(shstrndx < SHN_LORESERVE ? shstrndx : SHN_XINDEX);
	if (!gelf_update_ehdr(o, &eh))
		goto out;
	if (shstrndx >= SHN_LORESERVE) {
		GElf_Shdr s0;
		Elf_Scn *z = elf_getscn(o, 0);

		if (!z || !gelf_getshdr(z, &s0))
			goto out;
		s0.sh_link = (GElf_Word)shstrndx;
		if (!gelf_update_shdr(z, &s0))
			goto out;
	}
	size = elf_update(o, ELF_C_WRITE);
	if (size <= 0)
		goto out;
	buf = malloc((size_t)size);
	if (!buf) {
		err = -ENOMEM;
		goto out;
	}
	for (off_t done = 0; done < size;) {
		ssize_t n = pread(fd, buf + done, (size_t)(size - done), done);

		if (n <= 0) {
			err = n < 0 ? -errno : -EIO;
			goto out;
		}
		done += n;
	}
	*out = buf;
	*out_len = (size_t)size;
	buf = NULL;
	err = 0;
out:
	free(buf);
	elf_end(o);
	elf_end(in);
	if (fd >= 0)
		close(fd);
	return err;
}
