// SPDX-License-Identifier: MIT
/* format/error.c - names of format error codes and block types. */
#include <amber/format.h>

#include <string.h>

static const char *const amb_error_names[AMB_E_END - AMB_E_BASE] = {
	[AMB_E_MAGIC - AMB_E_BASE]            = "not an .amber file (bad magic)",
	[AMB_E_VERSION - AMB_E_BASE]          = "unsupported format major version",
	[AMB_E_HDR_CHECKSUM - AMB_E_BASE]     = "header checksum mismatch",
	[AMB_E_PAYLOAD_CHECKSUM - AMB_E_BASE] = "payload checksum mismatch",
	[AMB_E_TRUNCATED - AMB_E_BASE]        = "data truncated",
	[AMB_E_TOO_BIG - AMB_E_BASE]          = "length exceeds its cap",
	[AMB_E_CODEC - AMB_E_BASE]            = "unknown codec",
	[AMB_E_DECOMPRESS - AMB_E_BASE]       = "decompression failed",
	[AMB_E_RESERVED - AMB_E_BASE]         = "reserved field is not zero",
	[AMB_E_CORRUPT - AMB_E_BASE]          = "corrupt structure",
	[AMB_E_NO_TRAILER - AMB_E_BASE]       = "no trailer (recording was not closed)",
	[AMB_E_INDEX - AMB_E_BASE]            = "index disagrees with the blocks",
};

const char *amb_strerror(int err)
{
	int e = err < 0 ? -err : err;

	if (e >= AMB_E_BASE && e < AMB_E_END)
		return amb_error_names[e - AMB_E_BASE];
	if (e == 0)
		return "success";
	/* strerror() of glibc never returns NULL and is thread-safe for known
	 * codes, which are the only ones library code returns. */
	return strerror(e);
}

static const char *const amb_block_names[AMB_BLOCK_TYPE_MAX_KNOWN + 1] = {
	[AMB_BLOCK_META]       = "meta",
	[AMB_BLOCK_EVENT_ATTR] = "event_attr",
	[AMB_BLOCK_RING]       = "ring",
	[AMB_BLOCK_SYNTH]      = "synth",
	[AMB_BLOCK_BUILDID]    = "buildid",
	[AMB_BLOCK_TRACEFS]    = "tracefs",
	[AMB_BLOCK_KSYMS]      = "ksyms",
	[AMB_BLOCK_TOPOLOGY]   = "topology",
	[AMB_BLOCK_COUNTS]     = "counts",
	[AMB_BLOCK_FILE]       = "file",
	[AMB_BLOCK_INDEX]      = "index",
	[AMB_BLOCK_TRAILER]    = "trailer",
};

const char *amb_block_type_name(unsigned type)
{
	if (type < sizeof(amb_block_names) / sizeof(amb_block_names[0]) && amb_block_names[type])
		return amb_block_names[type];
	return "unknown";
}
