// SPDX-License-Identifier: MIT
/*
 * Fuzz the recorder's kernel-symbol trim (record/ksyms_trim.c): parsing a
 * kallsyms text (with common/kallsyms.h: it must keep exactly the text
 * symbols the analyzer would read), marking addresses, walking sample records for the
 * addresses they name, writing the kept lines back, and looking for
 * function pointers in a tracepoint's print format.  The trim reads the
 * recorder's own file, but that file holds what the kernel wrote.
 *
 * Input: 8 bytes of sample_type, then bytes used three ways: as kallsyms
 * text, as a run of u64 addresses, and as perf records.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <linux/perf_event.h>

#include <amber/common.h>
#include "common/kallsyms.h"
#include "record/ksyms_trim.h"

static int count_text(void *ctx, const struct amb_kallsym *sym)
{
	*(size_t *)ctx += amb_kallsyms_is_text(sym->type);
	return 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct amb_buf out = AMB_BUF_INIT;
	struct perf_event_attr attr;
	struct amb_perf_layout layout;
	struct rec_ksyms *k;
	uint8_t *body;
	char *text;
	uint64_t kept;
	size_t len;

	if (size < 8)
		return 0;
	memset(&attr, 0, sizeof(attr));
	attr.sample_type = (amb_get_le64(data) & (PERF_SAMPLE_MAX - 1)) | PERF_SAMPLE_IDENTIFIER;
	attr.sample_regs_user = 0xff;
	amb_perf_layout_init(&layout, &attr);
	len = size - 8;
	/* Exact-size copies, so ASan sees any overread. */
	text = malloc(len + 1);
	body = malloc(len + 1);
	if (!text || !body)
		goto out;
	memcpy(text, data + 8, len);
	memcpy(body, data + 8, len);
	rec_format_names_functions(text, len);
	k = rec_ksyms_parse(text, len);
	if (!k)
		goto out;
	if (rec_ksyms_count(k) > len / 4)
		abort();  /* a symbol line has at least "0 t " */
	if (amb_kallsyms_has_addresses(text, len)) {
		size_t n = 0;

		amb_kallsyms_for_each(text, len, count_text, &n, NULL);
		if (rec_ksyms_count(k) != n)
			abort();
	} else if (rec_ksyms_count(k)) {
		abort();
	}
	for (size_t i = 0; i + 8 <= len; i += 8)
		rec_ksyms_mark(k, amb_get_le64(body + i));
	rec_ksyms_mark_records(k, &layout, body, len & ~(size_t)7);
	if (!rec_ksyms_write_used(k, &out, &kept)) {
		/* Whole lines of the input only, each at most once, plus a newline
		 * for a last line without one. */
		if (kept > rec_ksyms_count(k) || out.len > len + 1)
			abort();
		if (out.len && out.data[out.len - 1] != '\n')
			abort();
	}
	rec_ksyms_free(k);
out:
	amb_buf_free(&out);
	free(text);
	free(body);
	return 0;
}
