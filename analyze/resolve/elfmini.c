// SPDX-License-Identifier: MIT
/*
 * analyze/elfmini.c - reduce an ELF file to what symbolization and
 * unwinding read: symbol tables, CFI, line tables and inline information,
 * notes (the build-id) and the program headers (which map mmap offsets to
 * ELF addresses).  Every other section keeps its header, as SHT_NOBITS, so
 * section numbers, sh_link and sh_info stay valid: the result is what
 * `eu-strip --only-keep-debug` makes, plus .eh_frame and the dynamic
 * symbols, and on x86-64 what names the PLT stubs (plt.c): the PLT
 * sections and, of the relocation sections, the relocations that fill
 * the GOT slots the stubs jump through.
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
		".gnu_debugdata", ".plt", ".plt.sec", ".plt.got",
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

#ifndef R_X86_64_IRELATIVE
#define R_X86_64_IRELATIVE 37
#endif

/*
 * Into @nd, a new data of @out's copy of the x86-64 RELA section @scn: its
 * relocations that fill a GOT slot a PLT stub jumps through (JUMP_SLOT,
 * GLOB_DAT, IRELATIVE), in a buffer *@buf owned by the caller until the
 * file is written.  0, -EINVAL or -ENOMEM.
 */
static int copy_plt_relas(Elf_Scn *scn, Elf_Data *nd, void **buf)
{
	Elf_Data *d = elf_getdata(scn, NULL);
	size_t n = 0, total;
	GElf_Rela r;

	if (!d)
		return -EINVAL;
	total = d->d_size / sizeof(Elf64_Rela);
	*buf = malloc(total ? total * sizeof(Elf64_Rela) : 1);
	if (!*buf)
		return -ENOMEM;
	nd->d_buf = *buf;
	nd->d_type = ELF_T_RELA;
	nd->d_align = 8;
	nd->d_version = EV_CURRENT;
	nd->d_size = total * sizeof(Elf64_Rela);
	for (size_t i = 0; i < total && i <= INT32_MAX; i++) {
		uint64_t type;

		if (!gelf_getrela(d, (int)i, &r))
			return -EINVAL;
		type = GELF_R_TYPE(r.r_info);
		if ((type == R_X86_64_JUMP_SLOT || type == R_X86_64_GLOB_DAT ||
		     type == R_X86_64_IRELATIVE) && !gelf_update_rela(nd, (int)n++, &r))
			return -EINVAL;
	}
	nd->d_size = n * sizeof(Elf64_Rela);
	return 0;
}

/* Copy the sections of @in to @out, emptying those not kept; the
 * buffers of the filtered ones go to @bufs (one per section). */
static int copy_sections(Elf *in, Elf *out, size_t shstrndx, void **bufs)
{
	Elf_Scn *scn = NULL;
	GElf_Ehdr eh;
	bool x86_64 = gelf_getehdr(in, &eh) && eh.e_machine == EM_X86_64 &&
		      gelf_getclass(in) == ELFCLASS64;

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
		if (x86_64 && sh.sh_type == SHT_RELA && sh.sh_entsize == sizeof(Elf64_Rela)) {
			int err = copy_plt_relas(scn, nd, &bufs[elf_ndxscn(scn)]);

			if (err)
				return err;
		} else if (keep) {
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
	Elf *in = NULL, *o = NULL, *chk;
	GElf_Ehdr eh;
	size_t shstrndx, nph, nscn = 0;
	void **bufs = NULL;
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
	if (elf_getshdrnum(in, &nscn))
		goto out;
	bufs = calloc(nscn ? nscn : 1, sizeof(*bufs));
	if (!bufs) {
		err = -ENOMEM;
		goto out;
	}
	err = copy_sections(in, o, shstrndx, bufs);
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
	/* Laid out first, written only when no bigger than the input (plus
	 * room for headers): the sections kept are the input's, and a hostile
	 * alignment must not have gigabytes of padding written. */
	size = elf_update(o, ELF_C_NULL);
	if (size <= 0 || (uint64_t)size > (uint64_t)len + (1u << 20))
		goto out;
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
	/* What libelf wrote from a hostile header, it may not read back. */
	chk = elf_memory((char *)buf, (size_t)size);
	if (!chk || elf_kind(chk) != ELF_K_ELF || !gelf_getehdr(chk, &eh)) {
		elf_end(chk);
		goto out;
	}
	elf_end(chk);
	*out = buf;
	*out_len = (size_t)size;
	buf = NULL;
	err = 0;
out:
	free(buf);
	elf_end(o);
	for (size_t i = 0; bufs && i < nscn; i++)
		free(bufs[i]);
	free(bufs);
	elf_end(in);
	if (fd >= 0)
		close(fd);
	return err;
}
